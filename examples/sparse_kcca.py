"""Sparse kernel CCA (Hussain et al. 2011, Alg. 3) on two views of a shared latent variable: the
rings of Wang 2016, whose radii depend on Z and whose angles are noise."""
import numpy as np

import mpcore
from mpcore.datasets import load_dataset, prepare

split = prepare(load_dataset("rings-two-view", n_samples=600, seed=0), seed=0)
for k in (5, 10, 20, 40):
    model = mpcore.SparseKCCA(n_components=k, gamma=0.5).fit(split.X_train, split.Y_train)
    u, v = model.transform(split.X_test, split.Y_test)
    print(f"{k:2d} shared basis points: training correlation {model.correlations_[0]:.3f}, "
          f"test correlation {np.corrcoef(u[:, 0], v[:, 0])[0, 1]:.3f}")
