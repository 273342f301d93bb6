"""mpcore: the numerical core of Matching Pursuit Lab.

One idea -- maximise a criterion over candidate columns, then deflate -- with
interchangeable criteria (:mod:`mpcore.criteria`) and deflations
(:mod:`mpcore.deflations`) run by one loop (:func:`mpcore.engine.pursue`).
"""

from . import bounds, criteria, curves, datasets, deflations, labs, studies, views
from .cca import CCAResult, KCCAResult, center_kernel, kcca, regularized_cca
from .criteria import FISHER_CRITERIA
from .deflations import DEFLATIONS
from .engine import PursuitPath, pursue
from .estimators import (
    MPKFDA,
    KernelMatchingPursuit,
    KernelMatchingPursuitClassifier,
    NystromKCCA,
    SparseKCCA,
    SparseKPCA,
)
from .kernels import KERNELS, gamma_from_width, kernel_diag, kernel_matrix
from .kmp import KMP_VARIANTS, LOSSES, kmp_path
from .mpkfda import FisherModel, fit_fisher, mpkfda_path
from .nkcca import (
    SAMPLINGS,
    NystromKCCAResult,
    approximation_error,
    nystrom_kcca,
    nystrom_kcca_path,
    ridge_leverage_scores,
    sample_columns,
)
from .nystrom import nystrom_factor, nystrom_features, projection_residuals
from .skcca import fit_sparse_cca, pair_distances, skcca_path
from .skpca import skpca_path, smola_scholkopf_path

#: The version of the package (also the distribution's, read from here by the build).
__version__ = "0.1.0"

__all__ = [
    "MPKFDA",
    "KernelMatchingPursuit",
    "KernelMatchingPursuitClassifier",
    "NystromKCCA",
    "SparseKCCA",
    "SparseKPCA",
    "kernel_diag",
    "CCAResult",
    "bounds",
    "curves",
    "datasets",
    "labs",
    "studies",
    "views",
    "approximation_error",
    "DEFLATIONS",
    "FISHER_CRITERIA",
    "FisherModel",
    "KCCAResult",
    "NystromKCCAResult",
    "SAMPLINGS",
    "center_kernel",
    "criteria",
    "deflations",
    "fit_fisher",
    "fit_sparse_cca",
    "kcca",
    "mpkfda_path",
    "nystrom_kcca",
    "nystrom_kcca_path",
    "pair_distances",
    "regularized_cca",
    "ridge_leverage_scores",
    "sample_columns",
    "skcca_path",
    "KERNELS",
    "KMP_VARIANTS",
    "LOSSES",
    "PursuitPath",
    "gamma_from_width",
    "kernel_matrix",
    "kmp_path",
    "nystrom_factor",
    "nystrom_features",
    "projection_residuals",
    "pursue",
    "skpca_path",
    "smola_scholkopf_path",
]
