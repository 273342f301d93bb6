"""Greedy kernel Fisher discriminants (Diethe 2015): criteria x deflations with cross-validation,
and calibrated probabilities from MPKFDA.predict_proba."""
import numpy as np
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import mpcore
from mpcore.datasets import load_dataset

data = load_dataset("breast-cancer")
for criterion in ("random", "optimal", "pseudo"):
    for deflation in ("none", "projection", "ortho-schur"):
        model = make_pipeline(StandardScaler(), mpcore.MPKFDA(n_components=10, criterion=criterion,
                                                            deflation=deflation, gamma="scale", random_state=0))
        accuracy = cross_val_score(model, data.X, data.y, cv=5).mean()
        print(f"{criterion:8s} + {deflation:11s}: 5-fold accuracy {accuracy:.3f}")

model = make_pipeline(StandardScaler(), mpcore.MPKFDA(n_components=10, gamma="scale")).fit(data.X, data.y)
print("P(class", model.classes_[1], ") for the first five:", np.round(model.predict_proba(data.X[:5])[:, 1], 3))
