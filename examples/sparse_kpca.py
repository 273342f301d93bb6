"""Sparse kernel PCA (Hussain et al. 2011, Alg. 2): how close a few chosen points get to full KPCA.

Chooses t points of the Boston housing data by matching pursuit and compares the
training residual sum ||phi(x) - P phi(x)||^2 with full kernel PCA's t-component
optimum; then checks Smola and Schoelkopf's Alg. 6 picks the same points (Thm 5)."""
import numpy as np

import mpcore
from mpcore.datasets import load_dataset, prepare

split = prepare(load_dataset("boston"), seed=0)
K = mpcore.kernel_matrix(split.X_train, kernel="rbf", gamma=0.1)
eigenvalues = np.sort(np.linalg.eigvalsh(K))[::-1]
path = mpcore.skpca_path(K, 40)

print(" t   sparse KPCA residual   full KPCA residual")
for t in (5, 10, 20, 40):
    sparse = np.trace(path.deflated_kernel(t))
    print(f"{t:2d}   {sparse:20.2f}   {eigenvalues[t:].sum():18.2f}")

check = mpcore.skpca.check_theorem5(K, path)
print(f"Alg. 6 picks the same {check.steps} points as Alg. 2 (Thm 5):", check.same)

model = mpcore.SparseKPCA(n_components=20, gamma=0.1).fit(split.X_train)
print("test residual per point (mean):", round(float(model.score_samples(split.X_test).mean()), 4))
