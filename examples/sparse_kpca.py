"""
Sparse kernel PCA against full kernel PCA
=========================================

Sparse kernel PCA (Hussain et al. 2011, Alg. 2) chooses t training points of the Boston
housing data by matching pursuit.  The residual ``sum ||phi(x) - P phi(x)||^2`` of the
training points after projecting onto the chosen points is compared with full kernel PCA's
t-component optimum (the sum of the eigenvalues left out), and Smola and Schölkopf's
Alg. 6 is checked to pick the same points (Thm 5).
"""

import matplotlib.pyplot as plt
import numpy as np

import mpcore
from mpcore.datasets import load_dataset, prepare

split = prepare(load_dataset("boston"), seed=0)
K = mpcore.kernel_matrix(split.X_train, kernel="rbf", gamma=0.1)
eigenvalues = np.sort(np.linalg.eigvalsh(K))[::-1]
path = mpcore.skpca_path(K, 40)

# %%
# The residual is the trace of the deflated kernel ``K_t``; full KPCA's is the sum of the
# eigenvalues after the t-th.
steps = np.arange(41)
sparse = np.array([np.trace(path.deflated_kernel(t)) for t in steps])
full = np.array([eigenvalues[t:].sum() for t in steps])
print(" t   sparse KPCA residual   full KPCA residual")
for t in (5, 10, 20, 40):
    print(f"{t:2d}   {sparse[t]:20.2f}   {full[t]:18.2f}")

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(steps, sparse, label="sparse KPCA (t chosen points)")
ax.plot(steps, full, "--", label="full KPCA (t components)")
ax.set(xlabel="t", ylabel="training residual", yscale="log", title="Boston, rbf kernel, gamma = 0.1")
ax.legend()
fig.tight_layout()

# %%
# Thm 5: the explicit low-rank approximation of Smola and Schölkopf chooses the same points.
check = mpcore.skpca.check_theorem5(K, path)
print(f"Alg. 6 picks the same {check.steps} points as Alg. 2 (Thm 5):", check.same)

# %%
# The estimator: Nystroem features of the chosen points, and each test point's residual.
model = mpcore.SparseKPCA(n_components=20, gamma=0.1).fit(split.X_train)
print("test residual per point (mean):", round(float(model.score_samples(split.X_test).mean()), 4))
plt.show()
