"""Calls a type checker must refuse (tests/test_code_style.py): if these passed, the types
users see would be ``Any``."""

import numpy as np

from mpcore import SparseKCCA, SparseKPCA

X = np.zeros((10, 2))
SparseKPCA(n_components="three").fit(X)
variates: np.ndarray = SparseKCCA().fit(X, X).transform(X, X)
