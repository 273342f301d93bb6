"""The papers' bounds along a path: the KMP bound (Hussain et al. 2011, Thm 4) and the sparse KPCA
compression bound (Cor. 1) against test error, with where each is lowest."""
import numpy as np

import mpcore
from mpcore.curves import kmp_curves, skpca_curves
from mpcore.datasets import load_dataset, prepare

data = load_dataset("boston", keep_b=True)
split = prepare(data, test_size=56 / data.n_samples, seed=0)
K = mpcore.kernel_matrix(split.X_train, gamma=0.05)
K_test = mpcore.kernel_matrix(split.X_test, split.X_train, gamma=0.05)
offset = split.y_train.mean()
path = mpcore.kmp_path(K, split.y_train - offset, 40)
kmp = kmp_curves(K, split.y_train, K_test, split.y_test, path, alpha=0.25 * split.y_train.std(), offset=offset)
print("KMP: bound lowest at t =", kmp.argmin["KMP bound"], "with value", round(float(np.min(kmp.curves["KMP bound"])), 3),
      "| test error lowest at t =", kmp.argmin["test error rate"])

pca = skpca_curves(K, K_test, np.ones(len(K_test)), mpcore.skpca_path(K, 60))
for name in ("compression bound", "global Rademacher bound"):
    print(f"sparse KPCA {name}: lowest at t = {pca.argmin[name]}, value {np.min(pca.curves[name]):.3f}")

print("kmp_vc(m=450, k=17, t=150, delta=0.05) =", round(float(mpcore.bounds.kmp_vc(450, 17, 150, 0.05)), 3))
