"""A user's script, type-checked by tests/test_code_style.py with ``mypy --strict``: every
``reveal_type`` must name a real type, never ``Any``."""

from typing import reveal_type

import numpy as np

from mpcore import (
    MPKFDA,
    KernelMatchingPursuit,
    KernelMatchingPursuitClassifier,
    NystromKCCA,
    SparseKCCA,
    SparseKPCA,
    bounds,
    kernel_matrix,
    kmp_path,
    skpca_path,
)

X = np.random.default_rng(0).normal(size=(60, 3))
y = X[:, 0] + 0.1 * X[:, 1]

pca = SparseKPCA(n_components=4, gamma="scale").fit(X)
reveal_type(pca)
reveal_type(pca.transform(X))
reveal_type(pca.support_vectors_)

regressor = KernelMatchingPursuit(n_components=4).fit(X, y)
reveal_type(regressor.predict(X))
classifier = KernelMatchingPursuitClassifier(n_components=4).fit(X, y > 0)
reveal_type(classifier.decision_function(X))
reveal_type(classifier.predict_proba(X))
fisher = MPKFDA(n_components=4).fit(X, y > 0)
reveal_type(fisher.predict(X))

cca = SparseKCCA(n_components=4).fit(X, X[:, ::-1])
reveal_type(cca.transform(X))
reveal_type(cca.transform(X, X[:, ::-1]))
nystrom = NystromKCCA(n_components=10).fit(X, X[:, ::-1])
reveal_type(nystrom.score(X, X[:, ::-1]))

K = kernel_matrix(X, X, kernel="rbf", gamma=0.5)
path = skpca_path(K, 4)
reveal_type(path)
reveal_type(path.indices)
reveal_type(path.deflated_kernel(2))
reveal_type(kmp_path(K, y, 4).stop_reason)
reveal_type(bounds.kmp_vc(60, 4, 4, 0.05))
