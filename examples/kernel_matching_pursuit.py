"""
Kernel matching pursuit: three variants and a grid search
=========================================================

Kernel matching pursuit (Vincent and Bengio 2002) fits noisy samples of sinc with basic,
back-fitting and pre-fitting pursuit, then the estimator tunes its number of bases in a
scikit-learn grid search.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import GridSearchCV

import mpcore

rng = np.random.default_rng(0)
X = rng.uniform(-4, 4, size=(200, 1))
y = np.sinc(X[:, 0]) + 0.05 * rng.normal(size=200)
X_test = np.linspace(-4, 4, 400)[:, None]
y_test = np.sinc(X_test[:, 0])

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(X[:, 0], y, ".", color="0.7", label="training points")
for variant in ("basic", "backfit", "prefit"):
    model = mpcore.KernelMatchingPursuit(n_components=12, variant=variant, gamma=2.0).fit(X, y)
    error = np.mean((model.predict(X_test) - y_test) ** 2)
    print(f"{variant:8s} 12 steps: test MSE {error:.5f}, {model.n_components_} distinct bases")
    ax.plot(X_test[:, 0], model.predict(X_test), label=f"{variant} (test MSE {error:.4f})")
ax.set(xlabel="x", ylabel="y", title="12 steps of each variant on sinc")
ax.legend(fontsize="small")
fig.tight_layout()

# %%
# The number of bases is a hyper-parameter like any other.
search = GridSearchCV(mpcore.KernelMatchingPursuit(gamma=2.0), {"n_components": [2, 4, 8, 16, 32]}, cv=5)
search.fit(X, y)
print(
    "5-fold CV picks",
    search.best_params_["n_components"],
    "bases; R^2 on the test grid:",
    round(search.score(X_test, y_test), 4),
)
plt.show()
