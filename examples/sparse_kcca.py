"""
Sparse kernel CCA on two views
==============================

Sparse kernel CCA (Hussain et al. 2011, Alg. 3) on two views of a shared latent variable:
the rings of Wang 2016, whose radii depend on Z and whose angles are noise.  More shared
basis points raise the training correlation; the test correlation says when they stop
helping.
"""

import matplotlib.pyplot as plt
import numpy as np

import mpcore
from mpcore.datasets import load_dataset, prepare

split = prepare(load_dataset("rings-two-view", n_samples=600, seed=0), seed=0)
sizes, train, test = (5, 10, 20, 40), [], []
for k in sizes:
    model = mpcore.SparseKCCA(n_components=k, gamma=0.5).fit(split.X_train, split.Y_train)
    u, v = model.transform(split.X_test, split.Y_test)
    train.append(model.correlations_[0])
    test.append(np.corrcoef(u[:, 0], v[:, 0])[0, 1])
    print(f"{k:2d} shared basis points: training correlation {train[-1]:.3f}, test correlation {test[-1]:.3f}")

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(sizes, train, "o-", label="training")
ax.plot(sizes, test, "s--", label="test")
ax.set(xlabel="shared basis points", ylabel="first canonical correlation", title="Two-view rings")
ax.legend()
fig.tight_layout()
plt.show()
