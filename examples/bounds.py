"""
The bounds along a path
=======================

The KMP bound (Hussain et al. 2011, Thm 4) against the test error along a kernel matching
pursuit on Boston housing, and the sparse KPCA compression bound (Cor. 1) with the global
Rademacher bound of full KPCA (Thm 7) along a sparse KPCA path, each with where it is
lowest: the sparsity a bound would choose.
"""

import matplotlib.pyplot as plt
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
print(
    "KMP: bound lowest at t =",
    kmp.argmin["KMP bound"],
    "with value",
    round(float(np.min(kmp.curves["KMP bound"])), 3),
    "| test error lowest at t =",
    kmp.argmin["test error rate"],
)

pca = skpca_curves(K, K_test, np.ones(len(K_test)), mpcore.skpca_path(K, 60))
for name in ("compression bound", "global Rademacher bound"):
    print(f"sparse KPCA {name}: lowest at t = {pca.argmin[name]}, value {np.min(pca.curves[name]):.3f}")

fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
for ax, curves, names, title in (
    (axes[0], kmp, ("KMP bound", "test error rate"), "Kernel matching pursuit"),
    (axes[1], pca, ("compression bound", "global Rademacher bound"), "Sparse KPCA"),
):
    for name in names:
        values = np.asarray(curves.curves[name])
        ax.plot(np.arange(values.size), values, label=name)
        ax.axvline(curves.argmin[name], color=ax.lines[-1].get_color(), linestyle=":")
    ax.set(xlabel="t (basis vectors)", title=title)
    ax.legend(fontsize="small")
fig.tight_layout()

# %%
# One value by hand: the bound for 17 basis vectors and 150 points outside them in error.
print("kmp_vc(m=450, k=17, t=150, delta=0.05) =", round(float(mpcore.bounds.kmp_vc(450, 17, 150, 0.05)), 3))
plt.show()
