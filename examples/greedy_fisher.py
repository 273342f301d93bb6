"""
Greedy kernel Fisher discriminants: criteria and deflations
===========================================================

MPKFDA (Diethe 2015) with three selection criteria and three deflations, each scored by
five-fold cross-validation on the breast-cancer data, then calibrated probabilities from
``MPKFDA.predict_proba``.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import mpcore
from mpcore.datasets import load_dataset

data = load_dataset("breast-cancer")
criteria, deflations = ("random", "optimal", "pseudo"), ("none", "projection", "ortho-schur")
accuracy = np.zeros((len(criteria), len(deflations)))
for i, criterion in enumerate(criteria):
    for j, deflation in enumerate(deflations):
        model = make_pipeline(
            StandardScaler(),
            mpcore.MPKFDA(n_components=10, criterion=criterion, deflation=deflation, gamma="scale", random_state=0),
        )
        accuracy[i, j] = cross_val_score(model, data.X, data.y, cv=5).mean()
        print(f"{criterion:8s} + {deflation:11s}: 5-fold accuracy {accuracy[i, j]:.3f}")

fig, ax = plt.subplots(figsize=(6, 3.5))
image = ax.imshow(accuracy, cmap="viridis")
ax.set(
    xticks=range(len(deflations)),
    xticklabels=deflations,
    yticks=range(len(criteria)),
    yticklabels=criteria,
    xlabel="deflation",
    ylabel="criterion",
    title="5-fold accuracy, 10 basis points",
)
for (i, j), value in np.ndenumerate(accuracy):
    ax.text(j, i, f"{value:.3f}", ha="center", va="center", color="white" if value < accuracy.mean() else "black")
fig.colorbar(image)
fig.tight_layout()

# %%
# Probabilities that agree with ``predict`` (a one-parameter logistic fit, Platt 1999).
model = make_pipeline(StandardScaler(), mpcore.MPKFDA(n_components=10, gamma="scale")).fit(data.X, data.y)
print("P(class", model.classes_[1], ") for the first five:", np.round(model.predict_proba(data.X[:5])[:, 1], 3))
plt.show()
