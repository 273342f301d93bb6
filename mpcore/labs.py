"""The deflation lab: one criterion, several deflations, side by side (Diethe 2015, sec. 3.2-3.3).

Every run keeps the deflated kernel as ``K_0 - U V'`` (:class:`mpcore.deflations.LowRankDeflation`,
which picks what the explicit matrix of :class:`mpcore.deflations.ExplicitDeflation` picks),
so any of the seven deflations of :data:`mpcore.DEFLATIONS` can follow any criterion:

========  =======================================================  ==============================
family    criteria                                                 learner on the chosen points
========  =======================================================  ==============================
mpkfda    :data:`mpcore.FISHER_CRITERIA` (Diethe 2015, eq. 7, 11-13)   Fisher discriminant: test error rate
kpca      ``variance`` ``||K[:, i]||^2 / K[i, i]`` (Hussain et al. 2011, Alg. 2) projection: mean test residual
kmp       ``fit`` ``|K[:, i]'y| / ||K[:, i]||`` (Hussain et al. 2011, Alg. 5)   least squares: test MSE
========  =======================================================  ==============================

(each family also offers ``random``).  ``mpkfda`` with any deflation is Diethe 2015's
MPKFDA, and ``kmp``/``fit`` with ``projection`` is pre-fitting KMP (tested).  Sparse
KPCA's own deflation, ``K - K[:, i] K[i, :] / K[i, i]``, is the Schur complement with
``tau = e_i`` rather than the normalised column, so it is not among the seven: the lab
shows how the KPCA criterion fares under each of them.

>>> from mpcore.datasets import load_dataset, prepare
>>> from mpcore.labs import compare_deflations
>>> split = prepare(load_dataset("moons", n_samples=120), seed=0)
>>> lab = compare_deflations(split, 5, "mpkfda", "optimal", ("projection", "hotelling"), gamma=2.0)
>>> lab.facts(3)["projection"].annihilated
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import eigvalsh
from scipy.sparse.linalg import LinearOperator, eigsh
from sklearn.cluster import KMeans
from sklearn.kernel_approximation import RBFSampler

from . import criteria
from ._validation import check_binary_labels, check_choice, check_n_steps, check_positive, check_psd_kernel
from .cca import eigen_floor, kcca_from_eigen
from .criteria import FISHER_CRITERIA, Criterion
from .datasets import Split
from .deflations import DEFLATIONS, LowRankDeflation
from .engine import PursuitPath, check_step, pursue
from .kernels import kernel_diag, kernel_matrix
from .lowrank import extend_basis, factor_eigen, low_rank_eigen
from .mpkfda import fisher_direction
from .nkcca import (
    _beta_function,
    _nystrom_kcca,
    _psd_solve,
    approximation_error,
    draw_landmarks,
    effective_dimension,
    leverage_from_eigen,
    nystrom_kcca_from_columns,
    nystrom_kcca_path,
    theorem1_columns,
    theorem1_epsilon,
)
from .nystrom import nested_projection_residuals, nystrom_factor, nystrom_features
from .skpca import skpca_path
from .studies import _common, _kernel_params
from .views import embed_2d

#: The lab's families and the criteria each offers (the first is the family's own).
LAB_CRITERIA = {
    "mpkfda": FISHER_CRITERIA,
    "kpca": ("variance", "random"),
    "kmp": ("fit", "random"),
}
LAB_FAMILIES = tuple(LAB_CRITERIA)

#: What each family's error curve measures (the y axis of the error plot).
ERROR_NAMES = {"mpkfda": "test error rate", "kpca": "mean test residual", "kmp": "test MSE"}

#: Relative tolerances for the facts: an entry this small (times the kernel's largest
#: entry) counts as zero.
FACT_RTOL = 1e-8


def _one_view_criterion(family: str, name: str, rng: np.random.Generator) -> Criterion:
    if name == "random":
        return lambda state: rng.random(state.m)
    if family == "kpca":
        return lambda state: criteria._ratio(state.column_sq_norms(), state.diag())
    return criteria.kmp("y")


def lab_path(
    K: np.ndarray,
    k: int,
    family: str,
    criterion: str,
    deflation: str,
    y: ArrayLike | None = None,
    stages: int = 1,
    seed: int = 0,
    tau_from: str = "deflated",
) -> PursuitPath:
    """Choose k columns of ``K`` by a criterion with any deflation (``K_j = K - U V'``).

    One or two products with K per step, no copy of K.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        The training kernel.
    k : int
        The columns to choose, ``1 <= k < m``.
    family : str
        One of :data:`LAB_FAMILIES`.
    criterion : str
        One of ``LAB_CRITERIA[family]``.
    deflation : str
        One of :data:`mpcore.DEFLATIONS` (Diethe 2015, eq. 15-19).
    y : ndarray of shape (m,) or None, default=None
        Labels (-1/+1, ``mpkfda``) or the target (``kmp``); unused for ``kpca``.
    stages : int, default=1
        As in :func:`mpcore.mpkfda_path`.
    seed : int, default=0
        Drives the ``random`` criterion.
    tau_from : {"deflated", "original"}, default="deflated"
        Take tau from the deflated kernel or from K.

    Returns
    -------
    PursuitPath
        The path.
    """
    K = check_psd_kernel(K)  # the low-rank state reads K's rows as its columns
    m = K.shape[0]
    check_choice(family, LAB_FAMILIES, "family")
    check_choice(criterion, LAB_CRITERIA[family], "criterion")
    check_choice(deflation, DEFLATIONS, "deflation")
    k = check_n_steps(k, m)
    rng = np.random.default_rng(seed)
    weights, track = None, None
    if family == "mpkfda":
        signs, _ = check_binary_labels(y)
        score, pick = criteria.fisher(criterion, signs, rng)
        weights, _, _, track = criteria.fisher_scatter_parts(signs)
    else:
        if family == "kmp" and y is None:
            raise ValueError("The KMP family needs a target y.")
        if family == "kmp":
            target = np.asarray(y, dtype=float)
            track = {"y": target - target.mean()}
        score, pick = _one_view_criterion(family, criterion, rng), "max"
    state = LowRankDeflation(K, deflation, tau_from, weights=weights, track=track)
    return pursue(
        state,
        score,
        k,
        pick=pick,
        stages=int(stages),
        algorithm=f"{family} lab",
        criterion_name=criterion,
        deflation_name=deflation,
    )


#: K_0 is replaced by a low-rank ``E diag(values) E'`` at most this far from it (2-norm,
#: times its largest eigenvalue, twice over: the factor's residual and the eigenvalues
#: dropped from it).  That moves every eigenvalue and singular value of K_j by at most
#: 2e-10 of the scale (Weyl), a fiftieth of :data:`FACT_RTOL`: no fact can change.
SPECTRUM_RTOL = 1e-10

#: The largest low-rank factor of K_0 the facts use; a kernel that needs more (high
#: intrinsic dimension) gets its facts from a fixed subsample of this many points.
FACT_LIMIT = 400


@dataclass(frozen=True)
class KernelSpectrum:
    """What the facts need of K_0, computed once per kernel (:func:`kernel_spectrum`).

    Parameters
    ----------
    values : ndarray of shape (p,)
        Eigenvalues of a low-rank approximation of K_0 within ``2 SPECTRUM_RTOL`` x top
        in 2-norm.
    vectors : ndarray of shape (m, p)
        Their orthonormal eigenvectors.
    top : float
        K_0's largest eigenvalue.
    frobenius : float
        ``||K_0||_F``.
    trace : float
        ``tr K_0``.
    m : int
        The size of K_0.
    sample : ndarray of int or None, default=None
        None when the facts are exact (to that accuracy), else the sorted (FACT_LIMIT,)
        indices of the fixed subsample whose principal submatrix of ``K_j`` the
        spectral facts describe.
    """

    values: np.ndarray
    vectors: np.ndarray
    top: float
    frobenius: float
    trace: float
    m: int
    sample: np.ndarray | None = None


def kernel_spectrum(K0: np.ndarray, limit: int = FACT_LIMIT, seed: int = 0) -> KernelSpectrum:
    """The :class:`KernelSpectrum` of a PSD kernel.

    A pivoted Cholesky factor, stopped once its residual's trace (which bounds the
    residual's 2-norm) is below ``SPECTRUM_RTOL`` x top, then the eigenpairs of that
    factor: O(m p^2) for rank p, instead of a full O(m^3) decomposition.  When more than
    ``limit`` pivots would be needed, the facts fall back to a fixed ``limit``-point
    subsample.  A kernel the factor cannot certify PSD gets a LAPACK decomposition
    instead.

    Parameters
    ----------
    K0 : array-like of shape (m, m)
        The kernel.
    limit : int, default=FACT_LIMIT
        The most pivots before falling back to a subsample.
    seed : int, default=0
        Seeds the subsample.

    Returns
    -------
    KernelSpectrum
        What the step facts need of K0.
    """
    K0 = np.asarray(K0, dtype=float)
    m = K0.shape[0]
    top = _largest_eigenvalue(K0)
    tolerance = SPECTRUM_RTOL * top
    sample, eigen = None, low_rank_eigen(K0, tolerance, limit, fallback=False)
    if eigen is None:  # more pivots than the limit: a subsample's block, formed directly
        sample = np.sort(np.random.default_rng(seed).choice(m, size=limit, replace=False))
        eigen = np.empty(0), np.empty((limit, 0))
    values, vectors = eigen
    return KernelSpectrum(
        values=values,
        vectors=vectors,
        top=top,
        frobenius=float(np.linalg.norm(K0)),
        trace=float(np.trace(K0)),
        m=m,
        sample=sample,
    )


def _largest_eigenvalue(K0: np.ndarray) -> float:
    """The largest eigenvalue of a symmetric K0: Lanczos (a few products with K0) when it
    is large, LAPACK otherwise; at least 1e-300."""
    m = K0.shape[0]
    if m > 64:
        top = eigsh(K0, k=1, which="LA", v0=np.full(m, m**-0.5), return_eigenvectors=False)[0]
    else:
        top = eigvalsh(K0, subset_by_index=[m - 1, m - 1])[0]
    return max(float(top), 1e-300)


def _reduced_kernel(spectrum: KernelSpectrum, U: np.ndarray | None, V: np.ndarray | None) -> np.ndarray:
    """``K_j = K_0 - U V'`` in an orthonormal basis B of span(E, U, V), E the spectrum's
    eigenvectors: the (n, n) matrix ``B' K_j B``, n <= p + 2r, with K_0 replaced by
    ``E diag(values) E'``.

    That K_j's nonzero eigenvalues and singular values are the small matrix's, and
    ``K_j - K_j'`` has the same Frobenius norm (it lives in span(B)).  O(m (p + r)^2 + n^3)
    instead of O(m^3).
    """
    E, values = spectrum.vectors, spectrum.values
    small = np.diag(values)
    if U is None or V is None:
        return small
    B = np.hstack([E, extend_basis(E, np.hstack([U, V]))])
    BU, BV = B.T @ U, B.T @ V
    reduced = np.zeros((B.shape[1],) * 2)
    reduced[: values.size, : values.size] = small
    return np.asarray(reduced - BU @ BV.T)


@dataclass(frozen=True)
class StepFacts:
    """What is true of a deflated kernel ``K_j`` (m x m) after j steps.

    The spectral facts (symmetric, asymmetry, min_eigenvalue, psd, rank) replace K_0 by
    a low-rank approximation within ``2 SPECTRUM_RTOL`` of its largest eigenvalue, which
    cannot change them (:func:`kernel_spectrum`).  When K_0 needs a factor of more than
    ``FACT_LIMIT`` columns, they describe the principal submatrix of K_j on a fixed
    subsample instead (:attr:`KernelSpectrum.sample`; asymmetry then relative to that
    block of K_0); rank is then the block's.

    Parameters
    ----------
    symmetric : bool
        K_j equals its transpose (asymmetry below ``FACT_RTOL``).
    asymmetry : float
        ``||K_j - K_j'||_F / ||K_0||_F``.
    min_eigenvalue : float
        The smallest eigenvalue of the symmetric part ``(K_j + K_j')/2`` (it decides
        ``x'K_j x >= 0`` for all x), relative to the largest eigenvalue of K_0.
    psd : bool
        ``min_eigenvalue >= -FACT_RTOL``.
    rank : int
        The numerical rank (singular values above ``FACT_RTOL`` x the largest of K_0).
    trace : float
        ``trace(K_j)``.
    last_left : float
        ``||K_j[:, i_j]|| / ||K_0[:, i_j]||`` for the last chosen column (0 = annihilated);
        nan at j = 0.
    chosen_left : float
        The largest such ratio over all chosen columns (nan at j = 0).
    annihilated : bool
        Every chosen column is (numerically) zero in K_j.
    next_pick : int or None
        The next chosen point.
    next_distance : float
        Its feature-space distance ``sqrt(k(x,x) + k(z,z) - 2 k(x,z))`` to the nearest
        chosen point (nan when there is no next pick or nothing chosen yet).
    next_nearest : int or None
        That nearest chosen point.
    """

    symmetric: bool
    asymmetry: float
    min_eigenvalue: float
    psd: bool
    rank: int
    trace: float
    last_left: float
    chosen_left: float
    annihilated: bool
    next_pick: int | None
    next_distance: float
    next_nearest: int | None


def _spectral_facts(
    spectrum: KernelSpectrum, K0: np.ndarray, U: np.ndarray | None, V: np.ndarray | None
) -> tuple[float, float, int]:
    """(asymmetry, min_eigenvalue, rank) of ``K_j = K0 - U V'``: from its reduced form, or
    of its block on the spectrum's subsample."""
    if spectrum.sample is None:
        reduced, n, scale = _reduced_kernel(spectrum, U, V), spectrum.m, spectrum.frobenius
    else:
        rows = spectrum.sample
        reduced = K0[np.ix_(rows, rows)]
        scale = float(np.linalg.norm(reduced))
        if U is not None and V is not None:
            reduced = reduced - U[rows] @ V[rows].T
        n = rows.size
    asymmetry = float(np.linalg.norm(reduced - reduced.T)) / max(scale, 1e-300)
    # NumPy's LAPACK throughout: alternating with SciPy's, whose OpenBLAS keeps its own
    # spinning threads, made these small problems several times slower on two cores
    eigenvalues = np.linalg.eigvalsh((reduced + reduced.T) / 2)
    # a reduced form smaller than K_j leaves K_j zero eigenvalues it does not list
    smallest = min(float(eigenvalues[0]), 0.0) if reduced.shape[0] < n else float(eigenvalues[0])
    # a symmetric matrix's singular values are its eigenvalues' sizes: no second decomposition
    singular = np.abs(eigenvalues) if asymmetry <= FACT_RTOL else np.linalg.svd(reduced, compute_uv=False)
    return asymmetry, smallest / spectrum.top, int(np.sum(singular > FACT_RTOL * spectrum.top))


def step_facts(path: PursuitPath, j: int, spectrum: KernelSpectrum | None = None) -> StepFacts:
    """The :class:`StepFacts` of ``path.deflated_kernel(j)``, from its low-rank form without forming it.

    Each step's facts cost O(m (p + r)^2 + (p + r)^3) for a factor of K_0 of rank p and
    a deflation of rank r, or O(FACT_LIMIT^3) on a subsample.

    Parameters
    ----------
    path : PursuitPath
        The path.
    j : int
        The step.
    spectrum : KernelSpectrum or None, default=None
        :func:`kernel_spectrum` of K_0, if already known.

    Returns
    -------
    StepFacts
        What is true of ``K_j``.
    """
    j = check_step(j, path.n_steps)
    K0, U, V = path._low_rank(j, 0)
    if spectrum is None:
        spectrum = kernel_spectrum(K0)
    asymmetry, min_eig, rank = _spectral_facts(spectrum, K0, U, V)
    chosen = path.indices[:j]
    if j:
        columns = K0[:, chosen] if U is None or V is None else K0[:, chosen] - U @ V[chosen].T
        ratios = np.linalg.norm(columns, axis=0) / np.maximum(np.linalg.norm(K0[:, chosen], axis=0), 1e-300)
        last_left, chosen_left = float(ratios[-1]), float(ratios.max())
    else:
        last_left = chosen_left = float("nan")
    next_pick = int(path.indices[j]) if j < path.n_steps else None
    distance, nearest = float("nan"), None
    if next_pick is not None and j:
        squared = K0[next_pick, next_pick] + np.diag(K0)[chosen] - 2 * K0[next_pick, chosen]
        best = int(np.argmin(squared))
        distance, nearest = float(np.sqrt(max(squared[best], 0.0))), int(chosen[best])
    trace = spectrum.trace - (0.0 if U is None or V is None else float(np.einsum("ij,ij->", U, V)))
    return StepFacts(
        symmetric=asymmetry <= FACT_RTOL,
        asymmetry=asymmetry,
        min_eigenvalue=min_eig,
        psd=min_eig >= -FACT_RTOL,
        rank=rank,
        trace=trace,
        last_left=last_left,
        chosen_left=chosen_left,
        annihilated=bool(j) and chosen_left <= 1e-6,
        next_pick=next_pick,
        next_distance=distance,
        next_nearest=nearest,
    )


def learner_errors(
    family: str,
    K: np.ndarray,
    K_test: np.ndarray,
    y: ArrayLike | None,
    y_test: ArrayLike | None,
    indices: np.ndarray,
    test_diag: np.ndarray | None = None,
    shrinkage: float | str | None = "auto",
    memo: dict[Any, float] | None = None,
) -> np.ndarray:
    """The family's learner on ``indices[:j]`` for j = 1..len(indices), scored on the test set.

    ``mpkfda``: the Fisher discriminant's error rate; ``kpca``: the mean test residual
    ``||phi(x) - P phi(x)||^2``; ``kmp``: the test MSE of least squares on
    ``K[:, indices[:j]]`` plus an offset (the training mean).  The Nystroem features of
    nested index sets are nested (Cholesky), so they are computed once for the whole path.

    Parameters
    ----------
    family : str
        One of :data:`LAB_FAMILIES`.
    K : ndarray of shape (m, m)
        The training kernel.
    K_test : ndarray of shape (n, m)
        The kernel between test and training points.
    y, y_test : ndarray or None
        The training and test targets (labels for ``mpkfda``).
    indices : ndarray of int
        The chosen points, in order.
    test_diag : ndarray of shape (n,) or None, default=None
        ``k(x, x)`` of the test points (needed for ``kpca``).
    shrinkage : "auto", float or None, default="auto"
        The Fisher discriminant's shrinkage.
    memo : dict or None, default=None
        Shared between calls on the same data, keyed by the chosen prefix (paths that
        pick alike share their fits).

    Returns
    -------
    ndarray of shape (len(indices),)
        The test error after each step.
    """
    indices = np.asarray(indices, dtype=int)
    out = np.empty(indices.size)
    if family == "kpca":
        if test_diag is None:
            raise ValueError("The kpca family's error needs test_diag, k(x, x) of the test points.")
        return np.asarray(nested_projection_residuals(K, K_test, test_diag, indices).mean(axis=0))
    if y is None or y_test is None:
        raise ValueError(f"The {family} family's error needs the targets y and y_test.")
    target, target_test = np.asarray(y, dtype=float), np.asarray(y_test, dtype=float)
    memo = {} if memo is None else memo
    if family == "mpkfda" and indices.size:
        factor = nystrom_factor(K[np.ix_(indices, indices)])
        F, F_test = nystrom_features(K[:, indices], factor), nystrom_features(K_test[:, indices], factor)
    for j in range(1, indices.size + 1):
        key = (family, indices[:j].tobytes())
        if key not in memo:
            if family == "mpkfda":
                w, b, _ = fisher_direction(F[:, :j], target, shrinkage)
                memo[key] = float(np.mean(np.sign(F_test[:, :j] @ w + b) != target_test))
            else:
                idx = indices[:j]
                mean = float(np.mean(target))
                weights = np.linalg.lstsq(K[:, idx], target - mean, rcond=None)[0]
                memo[key] = float(np.mean((K_test[:, idx] @ weights + mean - target_test) ** 2))
        out[j - 1] = memo[key]
    return out


@dataclass(frozen=True)
class DeflationComparison:
    """One criterion under several deflations on one split.

    Parameters
    ----------
    family : str
        The lab family ("kpca", "kmp", "mpkfda").
    criterion : str
        The criterion's name.
    split : Split
        The data.
    K, K_test : ndarray of shape (m, m), (n, m)
        The kernels.
    paths : dict of str to PursuitPath
        One path per deflation.
    errors : dict of str to ndarray
        Per deflation, the test error after j = 1.. steps.
    coords, coords_test : ndarray
        2-D views of the inputs (as :class:`mpcore.studies.Study`).
    coord_titles : tuple of str
        Their axis titles.
    order : ndarray of int
        The heatmaps' display order.
    seconds : dict of str to float
        The selection time of each deflation's path.
    _memo : dict
        Internal: memoised step facts.
    """

    family: str
    criterion: str
    split: Split
    K: np.ndarray
    K_test: np.ndarray
    paths: dict[str, PursuitPath]
    errors: dict[str, np.ndarray]
    coords: np.ndarray
    coords_test: np.ndarray | None
    coord_titles: tuple[str, str]
    order: np.ndarray
    seconds: dict[str, float]
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def deflations(self) -> tuple[str, ...]:
        return tuple(self.paths)

    @property
    def n_steps(self) -> int:
        """The longest path's length (a path that stopped early stays at its last step)."""
        return max(path.n_steps for path in self.paths.values())

    @property
    def m(self) -> int:
        return int(self.K.shape[0])

    @property
    def error_name(self) -> str:
        return ERROR_NAMES[self.family]

    def step_of(self, deflation: str, j: int) -> int:
        """Step ``j`` clipped to that deflation's own path length.

        Parameters
        ----------
        deflation : str
            A deflation of the comparison.
        j : int
            The step.

        Returns
        -------
        int
            ``min(j, n_steps of that path)``.
        """
        return min(check_step(j, self.n_steps), self.paths[deflation].n_steps)

    def facts(self, j: int) -> dict[str, StepFacts]:
        """The :class:`StepFacts` of every deflation's kernel at step j (memoised).

        Parameters
        ----------
        j : int
            The step (clipped to each path's length).

        Returns
        -------
        dict of str to StepFacts
            Per deflation.
        """
        j = check_step(j, self.n_steps)
        if j not in self._memo:
            self._memo[j] = {
                name: step_facts(path, self.step_of(name, j), spectrum=self.spectrum)
                for name, path in self.paths.items()
            }
        facts: dict[str, StepFacts] = self._memo[j]
        return facts

    @property
    def spectrum(self) -> KernelSpectrum:
        """:func:`kernel_spectrum` of K (computed on first use, then kept)."""
        if "spectrum" not in self._memo:
            self._memo["spectrum"] = kernel_spectrum(self.K)
        spectrum: KernelSpectrum = self._memo["spectrum"]
        return spectrum

    def heatmaps(self, j: int) -> dict[str, np.ndarray]:
        """Every deflation's ``K_j`` on the display order (at most 200 x 200).

        Parameters
        ----------
        j : int
            The step (clipped to each path's length).

        Returns
        -------
        dict of str to ndarray
            Per deflation.
        """
        return {name: path.deflated_block(self.step_of(name, j), self.order) for name, path in self.paths.items()}

    def chosen(self, j: int) -> dict[str, np.ndarray]:
        """The training indices each deflation chose in the first j steps.

        Parameters
        ----------
        j : int
            The step (clipped to each path's length).

        Returns
        -------
        dict of str to ndarray
            Per deflation.
        """
        return {name: path.indices[: self.step_of(name, j)] for name, path in self.paths.items()}

    def next_picks(self, j: int) -> dict[str, int | None]:
        """Each deflation's next pick after step j.

        Parameters
        ----------
        j : int
            The step (clipped to each path's length).

        Returns
        -------
        dict of str to int or None
            Per deflation (None when that path is done).
        """
        return {name: (int(path.indices[j]) if j < path.n_steps else None) for name, path in self.paths.items()}

    def summary(self) -> dict[str, Any]:
        """The numbers a sentence about this comparison may quote, computed (never typed).

        Returns
        -------
        dict
            ``m``, ``n_steps``; ``first_difference``, the first step at which two of the
            deflations pick different points (0 when they pick the same at every step);
            ``shared_picks``, the steps at which all of them pick the same point; ``best``
            and ``best_error``, the deflation with the lowest test error after ``n_steps``
            steps (each path at its own last step) and that error; ``indefinite``, the
            deflations whose kernel is not positive semi-definite after ``n_steps`` steps
            (as the facts table says: :attr:`StepFacts.psd`), joined in words ("none" when
            every one is), and ``n_indefinite``, how many.
        """
        picks = [path.indices for path in self.paths.values()]
        steps = min(len(p) for p in picks)
        same = [all(p[j] == picks[0][j] for p in picks) for j in range(steps)]
        differ = next((j + 1 for j, agree in enumerate(same) if not agree), 0)
        if not differ and any(len(p) != len(picks[0]) for p in picks):
            differ = steps + 1  # one path stopped earlier: it picks nothing where the others pick
        last = {name: float(values[-1]) for name, values in self.errors.items() if len(values)}
        best = min(last, key=lambda name: last[name]) if last else None
        lost = [name for name, fact in self.facts(self.n_steps).items() if not fact.psd]
        return {
            "m": int(self.m),
            "n_steps": int(self.n_steps),
            "indefinite": _in_words(lost) or "none",
            "n_indefinite": len(lost),
            "first_difference": int(differ),
            "shared_picks": int(sum(same)),
            "best": best,
            "best_error": last[best] if best is not None else float("nan"),
        }

    def error_table(self) -> dict[str, np.ndarray]:
        """The columns of a CSV: step, then one test-error column per deflation.

        Returns
        -------
        dict of str to ndarray
            NaN past a path's end.
        """
        steps = np.arange(1, self.n_steps + 1)
        table = {"step": steps}
        for name, values in self.errors.items():
            padded = np.full(steps.size, np.nan)
            padded[: values.size] = values
            table[name] = padded
        return table


def _split_kernels(
    split: Split, kernel: str, gamma: float | str | None, degree: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, tuple[str, str], np.ndarray]:
    params, K, K_test, coords, coords_test, titles, order = _common(split, kernel, gamma, degree)
    test_diag = kernel_diag(split.X_test, kernel, **params)
    return K, K_test, test_diag, coords, coords_test, titles, order


def _check_family_data(family: str, split: Split) -> None:
    y = split.y_train
    if family in ("mpkfda", "kmp") and y is None:
        raise ValueError(f"The {family} family needs a target; pick a binary or regression dataset.")
    if family == "mpkfda" and not np.all(np.isin(np.asarray(y), (-1.0, 1.0))):
        raise ValueError("The Fisher (mpkfda) family needs two classes labelled -1 and +1; pick a binary dataset.")


def compare_deflations(
    split: Split,
    k: int,
    family: str,
    criterion: str,
    deflations: Sequence[str],
    kernel: str = "rbf",
    gamma: float | str | None = None,
    degree: int = 3,
    stages: int = 1,
    seed: int = 0,
    tau_from: str = "deflated",
) -> DeflationComparison:
    """Run one criterion with each of several deflations on a split.

    Parameters
    ----------
    split : Split
        The data (:func:`mpcore.datasets.prepare`).
    k : int
        The number of columns to choose.
    family : str
        One of :data:`LAB_FAMILIES` ("kpca", "kmp", "mpkfda").
    criterion : str
        One of ``LAB_CRITERIA[family]``.
    deflations : sequence of str
        Names of :data:`mpcore.DEFLATIONS`.
    kernel : str, default="rbf"
        A name of :data:`mpcore.KERNELS`.
    gamma : float, "median" or None, default=None
        The kernel width (None: ``1 / d``).
    degree : int, default=3
        The degree of the "poly" kernel.
    stages : int, default=1
        Columns per score vector.
    seed : int, default=0
        Drives the ``random`` criterion.
    tau_from : {"deflated", "original"}, default="deflated"
        Read tau from the deflated kernel (Diethe 2015, sec. 3.2.4) or the original one.

    Returns
    -------
    DeflationComparison
        The paths, their test errors and the facts of every step.
    """
    deflations = tuple(dict.fromkeys(deflations))
    if not deflations:
        raise ValueError("Pick at least one deflation to compare.")
    for name in deflations:
        check_choice(name, DEFLATIONS, "deflation")
    check_choice(family, LAB_FAMILIES, "family")
    _check_family_data(family, split)
    K, K_test, test_diag, coords, coords_test, titles, order = _split_kernels(split, kernel, gamma, degree)
    y = split.y_train
    paths: dict[str, PursuitPath] = {}
    errors: dict[str, np.ndarray] = {}
    seconds: dict[str, float] = {}
    memo: dict[Any, float] = {}
    for name in deflations:
        started = time.perf_counter()
        paths[name] = lab_path(K, k, family, criterion, name, y=y, stages=stages, seed=seed, tau_from=tau_from)
        seconds[name] = time.perf_counter() - started
        errors[name] = learner_errors(family, K, K_test, y, split.y_test, paths[name].indices, test_diag, memo=memo)
    return DeflationComparison(
        family, criterion, split, K, K_test, paths, errors, coords, coords_test, titles, order, seconds
    )


def criterion_deflation_table(
    split: Split,
    k: int,
    family: str,
    criteria_names: Sequence[str] | None = None,
    deflations: Sequence[str] = DEFLATIONS,
    kernel: str = "rbf",
    gamma: float | str | None = None,
    degree: int = 3,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Diethe 2015, Figure 1 / Figure 3 on one split: every criterion x deflation.

    The test error after k steps and the selection time of each pair; ``random`` draws
    from ``seed`` (one run, not an average).

    Parameters
    ----------
    split : Split
        The data (:func:`mpcore.datasets.prepare`).
    k : int
        The number of columns to choose.
    family : str
        One of :data:`LAB_FAMILIES` ("kpca", "kmp", "mpkfda").
    criteria_names : sequence of str or None, default=None
        The criteria (None: all of the family's).
    deflations : sequence of str, default=DEFLATIONS
        The deflations.
    kernel : str, default="rbf"
        A name of :data:`mpcore.KERNELS`.
    gamma : float, "median" or None, default=None
        The kernel width (None: ``1 / d``).
    degree : int, default=3
        The degree of the "poly" kernel.
    seed : int, default=0
        Drives the ``random`` criterion.
    progress : callable or None, default=None
        ``progress(done, total)``, called after each run.

    Returns
    -------
    dict
        ``criteria`` (C,), ``deflations`` (D,), ``error`` (C, D) (the family's error at
        the last step of each path), ``best_error`` (C, D) (its minimum over j = 1..k),
        ``seconds`` (C, D).
    """
    check_choice(family, LAB_FAMILIES, "family")
    _check_family_data(family, split)
    criteria_names = tuple(criteria_names or LAB_CRITERIA[family])
    for name in criteria_names:
        check_choice(name, LAB_CRITERIA[family], "criterion")
    for name in deflations:
        check_choice(name, DEFLATIONS, "deflation")
    K, K_test, test_diag, *_ = _split_kernels(split, kernel, gamma, degree)
    shape = (len(criteria_names), len(deflations))
    error, best, seconds = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
    total, done = shape[0] * shape[1], 0
    for a, criterion in enumerate(criteria_names):
        for b, deflation in enumerate(deflations):
            started = time.perf_counter()
            path = lab_path(K, k, family, criterion, deflation, y=split.y_train, seed=seed)
            seconds[a, b] = time.perf_counter() - started
            curve = learner_errors(family, K, K_test, split.y_train, split.y_test, path.indices, test_diag)
            if curve.size:
                error[a, b], best[a, b] = curve[-1], curve.min()
            done += 1
            if progress is not None:
                progress(done, total)
    return {
        "criteria": criteria_names,
        "deflations": tuple(deflations),
        "error": error,
        "best_error": best,
        "seconds": seconds,
        "k": int(k),
        "family": family,
    }


__all__ = [
    "LAB_CRITERIA",
    "LAB_FAMILIES",
    "ERROR_NAMES",
    "StepFacts",
    "lab_path",
    "step_facts",
    "learner_errors",
    "DeflationComparison",
    "compare_deflations",
    "criterion_deflation_table",
    "COLUMN_METHODS",
    "ColumnSelection",
    "column_selection",
    "nystrom_error",
]


# --- column selection: greedy vs uniform vs ridge leverage (vs k-means) ----------------------

#: Ways to choose Nystroem landmarks compared in the column-selection lab, and the random Fourier
#: features baseline (Rahimi and Recht 2008; Lopez-Paz et al. 2014's randomized CCA, which Wang 2016
#: compares with): ``r`` features in place of ``r`` columns, for the RBF kernel only.
COLUMN_METHODS = ("greedy", "uniform", "ridge-leverage", "k-means", "random-features")


def random_features(X: np.ndarray, gamma: float, top: int, seed: int) -> Callable[[int], np.ndarray]:
    """``top`` random Fourier features of the RBF kernel ``exp(-gamma ||x - z||^2)``, by rank.

    Drawn once by scikit-learn's :class:`~sklearn.kernel_approximation.RBFSampler`; the
    first r of them, rescaled, are r features of their own (the draws are independent), so
    the ranks are nested as the landmarks' are.

    Parameters
    ----------
    X : ndarray of shape (N, d)
        The inputs.
    gamma : float
        The RBF kernel's gamma.
    top : int
        The largest rank.
    seed : int
        The sampler's seed.

    Returns
    -------
    callable
        ``features(r)``: an (N, r) array Z with ``Z Z'`` approximating the kernel.
    """
    Z = RBFSampler(gamma=gamma, n_components=int(top), random_state=int(seed)).fit_transform(X)
    return lambda r: Z[:, : int(r)] * np.sqrt(top / int(r))


def feature_error(K: np.ndarray, Z: np.ndarray, eigen: tuple[np.ndarray, np.ndarray]) -> tuple[float, float]:
    """The trace (nuclear) and spectral norms of ``K - Z Z'``.

    A random-feature approximation is not below K, so the residual is indefinite and its
    nuclear norm sums the eigenvalues' sizes.  With K's eigenpairs above a floor,
    ``(values, V)``, the residual lives in span(V, Z) plus K's remainder (trace
    ``tr K - sum(values)``, added to the nuclear norm), O(N (p + r)^2).

    Parameters
    ----------
    K : ndarray of shape (N, N)
        The kernel.
    Z : ndarray of shape (N, r)
        The features.
    eigen : tuple of ndarray
        K's eigenpairs ``(values (p,), vectors (N, p))`` above some floor.

    Returns
    -------
    trace_error : float
        The error in the trace norm.
    spectral_error : float
        The error in the spectral norm.
    """
    values, V = eigen
    B = np.hstack([V, extend_basis(V, Z)])
    BZ = B.T @ Z
    small = -(BZ @ BZ.T)
    small[np.arange(values.size), np.arange(values.size)] += values
    residual = np.linalg.eigvalsh((small + small.T) / 2)
    rest = max(float(np.trace(K) - values.sum()), 0.0)
    return float(np.abs(residual).sum() + rest), float(np.abs(residual).max(initial=0.0))


def nystrom_error(
    K: np.ndarray, C: np.ndarray, W: np.ndarray, eigen: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[float, float]:
    """Trace and spectral norm of ``K - C W^+ C'``, without forming it for the trace.

    Both equal its summed and largest eigenvalues (the Nystroem residual is PSD).  With
    ``eigen``, the residual with ``V diag(values) V'`` for K lives in span(V, C), and its
    largest eigenvalue is a small matrix's: exact to within the floor, O(N (p + M)^2).
    Without it, Lanczos on the residual (relative tolerance 1e-6).

    Parameters
    ----------
    K : ndarray of shape (N, N)
        The kernel.
    C : ndarray of shape (N, M)
        The kernel between all points and the landmarks.
    W : ndarray of shape (M, M)
        The kernel among the landmarks.
    eigen : tuple of ndarray or None, default=None
        K's eigenpairs ``(values (p,), vectors (N, p))`` above some floor.

    Returns
    -------
    trace_error : float
        The error in the trace norm.
    spectral_error : float
        The error in the spectral norm.
    """
    if eigen is not None:
        values, V = eigen
        B = np.hstack([V, extend_basis(V, C)])
        BC = B.T @ C
        approximation = BC @ _psd_solve(W, BC.T, rtol=1e-10)  # B' C W^+ C' B: same trace, B spans C
        trace = float(np.trace(K) - np.trace(approximation))
        small = -approximation
        small[np.arange(values.size), np.arange(values.size)] += values
        return max(trace, 0.0), max(float(np.linalg.eigvalsh((small + small.T) / 2)[-1]), 0.0)
    WC = _psd_solve(W, C.T, rtol=1e-10)  # W^+ C'  (M, N)
    trace = float(np.trace(K) - np.einsum("ij,ji->", C, WC))
    residual = LinearOperator(K.shape, matvec=lambda v: K @ v - C @ (WC @ v), dtype=float)
    start = np.ones(K.shape[0]) / np.sqrt(K.shape[0])
    spectral = float(eigsh(residual, k=1, which="LA", v0=start, return_eigenvectors=False, tol=1e-6)[0])
    return max(trace, 0.0), max(spectral, 0.0)


#: Eigenvalues below this times the largest are rounding noise of a symmetric eigensolver
#: (about 50 machine epsilons): the column lab never keeps those directions.
NOISE_RTOL = 1e-14


def _kernel_eigen(K: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs ``(values, vectors)`` of K within ``2 max(floor, NOISE_RTOL top)`` of it
    in 2-norm: from a pivoted Cholesky factor whose PSD residual has at most that trace
    (O(N p^2) for rank p: 0.04 s instead of 0.6 s at N = 2100), or, for a kernel of high
    rank, LAPACK's eigenpairs above it."""
    return low_rank_eigen(K, max(floor, NOISE_RTOL * _largest_eigenvalue(K)), K.shape[0] // 3)


def _centred_from(eigen: tuple[np.ndarray, np.ndarray], floor: float) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs of ``H K H`` above ``floor`` from K's: ``H V diag(values)^(1/2)`` is a
    factor of it within the floor (H is a contraction), O(N p^2)."""
    values, V = eigen
    return factor_eigen((V - V.mean(axis=0)) * np.sqrt(np.maximum(values, 0.0)), floor)


def _landmark_orders(K: np.ndarray, method: str, top: int, seed: int, scores: np.ndarray | None = None) -> np.ndarray:
    """Indices of ``top`` landmarks for one seed, nested (rank r uses the first r)."""
    if method == "uniform":
        return np.random.default_rng(seed).permutation(K.shape[0])[:top]
    if method == "ridge-leverage":  # sample_columns' draws, without re-checking K
        return draw_landmarks(K.shape[0], top, "ridge-leverage", scores, seed)[0]
    return skpca_path(K, top).indices


@dataclass(frozen=True)
class ColumnSelection:
    """Results of :func:`column_selection` (Wang 2016, Fig. 1 and the kernel error).

    Parameters
    ----------
    ranks : ndarray of shape (R,)
        Landmark counts (draws, for ridge-leverage sampling with replacement).
    methods : tuple of str
        The methods run.
    repeats : int
        Seeds per random method (greedy: 1).
    kernel_error : dict
        Method -> {"trace": (S, R), "spectral": (S, R), "distinct": (S, R)} for view X
        (``distinct``: the number of different landmarks behind each rank).
    landmarks : dict
        Method -> the first repetition's landmark order for view X (not for k-means,
        whose centres are not training points).
    leverage : tuple of ndarray
        Per view, the ridge leverage scores sorted descending (N,).
    effective_dimension : tuple of float
        Per view, their sum (Wang 2016, eq. 11).
    two_view : bool
        Whether the KCCA results below were computed (empty when False).
    kcca : dict
        Method -> {"rho", "T", "alpha", "bound", "valid"}: (S, R) arrays of
        ``|rho - rho~|``, ``||T - T~||``, ``||alpha - alpha~|| / sqrt(N)``, the Thm 2 step
        II bound ``(1/2 + 4 sqrt(2)/r) ||T - T~|| / (N lambda1)`` and whether its
        condition ``||T - T~|| <= r/2`` holds.
    exact : dict
        {"rho": the exact first canonical correlation, "gap": r = sigma1(T) - sigma2(T)}.
    speedup : dict
        {"ranks", "incremental", "refit", "speedup"}: (S, R') cumulative seconds of the
        incremental path and of refitting at every rank, and their ratio (Fig. 1(d)).
    settings : dict
        The parameters used (and ``kernel_trace``).
    coords : ndarray of shape (N, 2) or None, default=None
        A 2-D view of the training inputs of view X, for drawing the landmarks.
    coord_titles : tuple of str, default=("x1", "x2")
        Its axis titles.
    split : Split or None, default=None
        The data.
    theorem1 : dict
        Two views only: Wang 2016, Thm 1 at each rank, ``"epsilon/ridge-leverage"`` and
        ``"epsilon/uniform"`` (R,): the ``|rho - rho~|`` it guarantees with probability 0.95
        with that many columns per view (the larger of the two views'), for the lab's
        ridge-leverage sampling and for uniform sampling, each with its own beta at the
        theorem's gamma; ``"columns at 0.05"``: the columns per view it asks for
        ``|rho - rho~| <= 0.05`` at t = 1/2, and ``"beta at 0.05"`` the betas there (the
        smaller of the two views') ({"ridge-leverage", "uniform"}).
    """

    ranks: np.ndarray
    methods: tuple[str, ...]
    repeats: int
    kernel_error: dict[str, dict[str, np.ndarray]]
    landmarks: dict[str, np.ndarray]
    leverage: tuple[np.ndarray, ...]
    effective_dimension: tuple[float, ...]
    two_view: bool
    kcca: dict[str, dict[str, np.ndarray]]
    exact: dict[str, Any]
    speedup: dict[str, Any]
    settings: dict[str, Any]
    coords: np.ndarray | None = None
    coord_titles: tuple[str, str] = ("x1", "x2")
    split: Split | None = None
    theorem1: dict[str, Any] = field(default_factory=dict)

    @property
    def m(self) -> int:
        return int(self.leverage[0].size)

    def table(self) -> dict[str, np.ndarray]:
        """The columns of a CSV: rank, then the mean over repetitions of every error curve.

        Returns
        -------
        dict of str to ndarray
            The columns by name.
        """
        table = {"rank": self.ranks}
        for name, arrays in self.kernel_error.items():
            table[f"{name} trace error"] = arrays["trace"].mean(axis=0)
            table[f"{name} spectral error"] = arrays["spectral"].mean(axis=0)
        for name, arrays in self.kcca.items():
            for key in ("rho", "T", "alpha", "bound"):
                table[f"{name} {key}"] = arrays[key].mean(axis=0)
        return table

    def summary(self) -> dict[str, Any]:
        """The numbers a sentence about these results may quote, computed (never typed).

        Returns
        -------
        dict
            ``m``, ``rank`` (the largest rank run), ``d_eff`` (view X's effective dimension,
            Wang 2016, eq. 11), ``best`` (the method with the lowest mean trace error at that
            rank) and, per method, ``trace_<method>`` (its mean trace error there; a hyphen in
            a method's name becomes an underscore: ``trace_ridge_leverage``); ``speedup``,
            the incremental path's mean speed-up over refitting at the largest rank it ran
            (above 1: the incremental path was quicker; nan when it was not timed).
        """
        out: dict[str, Any] = {"m": self.m, "rank": int(self.ranks[-1]), "d_eff": float(self.effective_dimension[0])}
        ratios = np.asarray(self.speedup.get("speedup", np.zeros((0, 0))), dtype=float)
        out["speedup"] = float(ratios[:, -1].mean()) if ratios.size else float("nan")
        errors = {name: float(arrays["trace"][:, -1].mean()) for name, arrays in self.kernel_error.items()}
        out.update({f"trace_{name.replace('-', '_')}": value for name, value in errors.items()})
        out["best"] = min(errors, key=lambda name: errors[name]) if errors else None
        return out

    def spread(self, values: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The mean, minimum and maximum over repetitions.

        Parameters
        ----------
        values : ndarray of shape (S, R)
            One row per repetition.

        Returns
        -------
        mean : ndarray of shape (R,)
            The mean over repetitions, per rank.
        low : ndarray of shape (R,)
            The smallest, per rank.
        high : ndarray of shape (R,)
            The largest, per rank.
        """
        values = np.asarray(values, dtype=float)
        return values.mean(axis=0), values.min(axis=0), values.max(axis=0)


MAX_REPEATS = 100  # seeds per random method: each repeats the whole Nyström path


def column_selection(
    split: Split,
    ranks: ArrayLike,
    methods: Sequence[str] = ("greedy", "uniform", "ridge-leverage"),
    repeats: int = 3,
    kernel: str = "rbf",
    gamma: float | str | None = None,
    degree: int = 3,
    reg: float = 1e-3,
    leverage_ratio: float = 1.0,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> ColumnSelection:
    """Compare Nystroem landmark choices on the training part of a split (Wang 2016, Fig. 1).

    For each method and rank: the kernel approximation error of view X (trace and
    spectral norm of ``K - L``); with two views also exact KCCA against Nystroem KCCA
    (``|rho - rho~|``, ``||T - T~||``, the kernel stability ``||alpha - alpha~|| / sqrt(N)`` and its
    Thm 2 bound), each random method repeated with ``repeats`` seeds.  ``greedy`` takes
    sparse KPCA's (pivoted Cholesky) order per view; ``k-means`` uses scikit-learn's
    cluster centres as landmarks (kernel error only: they are not columns).  Exact KCCA
    is O(N^3): meant for N up to about 2000.

    Parameters
    ----------
    split : Split
        The data (two views for the KCCA results).
    ranks : sequence of int
        The landmark counts.
    methods : sequence of str, default=("greedy", "uniform", "ridge-leverage")
        The landmark choices ("k-means" too).
    repeats : int, default=3
        Seeds per random method.
    kernel : str, default="rbf"
        A name of :data:`mpcore.KERNELS`.
    gamma : float, "median" or None, default=None
        The kernel width (None: ``1 / d``).
    degree : int, default=3
        The degree of the "poly" kernel.
    reg : float, default=1e-3
        The KCCA ridge.
    leverage_ratio : float, default=1.0
        The ridge leverage scores use ``gamma_lev = leverage_ratio * reg`` (the paper:
        ``reg x 10^-4..1``).
    seed : int, default=0
        The first seed.
    progress : callable or None, default=None
        ``progress(done, total)``, called as work completes.

    Returns
    -------
    ColumnSelection
        Every error curve and the timings.
    """
    for name in methods:
        check_choice(name, COLUMN_METHODS, "column-selection method")
    if not methods:
        raise ValueError("Pick at least one way to choose the columns.")
    if "random-features" in methods and kernel != "rbf":
        raise ValueError(
            f"Random Fourier features approximate the Gaussian (RBF) kernel only, not the {kernel} kernel: "
            "choose the RBF kernel or leave random-features out."
        )
    X = split.X_train
    N = X.shape[0]
    ranks = np.unique(np.asarray(ranks, dtype=int))
    if ranks.size == 0 or ranks[0] < 1 or ranks[-1] >= N:
        raise ValueError(f"The ranks must be whole numbers between 1 and N - 1 = {N - 1}.")
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or not 1 <= repeats <= MAX_REPEATS:
        raise ValueError(
            f"repeats must be a whole number from 1 to {MAX_REPEATS} (Wang 2016 averages 20 seeds), got {repeats!r}."
        )
    reg = check_positive(reg, "The regularisation lambda")
    leverage_gamma = check_positive(leverage_ratio, "The leverage ratio") * reg
    params = _kernel_params(kernel, gamma, degree, X)
    K1 = kernel_matrix(X, kernel=kernel, **params)
    two_view = split.Y_train is not None
    views = [K1]
    if two_view:
        Y_train = split.second_view()[0]
        params_y = _kernel_params(kernel, gamma, degree, Y_train)
        views.append(kernel_matrix(Y_train, kernel=kernel, **params_y))
    # one low-rank eigendecomposition per view, down to the floor below which a direction
    # moves exact KCCA's T by less than SHRINK_RTOL (or to rounding noise): it gives the
    # leverage scores, the spectral kernel errors and exact KCCA
    eigens = [_kernel_eigen(K, eigen_floor(N, min(reg, leverage_gamma))) for K in views]
    leverage = tuple(leverage_from_eigen(*eigen, leverage_gamma) for eigen in eigens)
    top = int(ranks[-1])
    kcca_methods = [name for name in methods if name != "k-means"] if two_view else []
    work = sum(1 if name == "greedy" else repeats for name in methods) + (repeats if two_view else 0)
    work += sum(1 if name == "greedy" else repeats for name in kcca_methods) + (1 if two_view else 0)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, work)

    memo: dict[tuple[int, str, int], np.ndarray] = {}

    def orders_of(view: int, name: str, draw: int) -> np.ndarray:
        """A view's landmark order for one method and seed, computed once (the kernel
        errors and KCCA share view X's)."""
        if (view, name, draw) not in memo:
            memo[view, name, draw] = _landmark_orders(views[view], name, top, draw, scores=leverage[view])
        return memo[view, name, draw]

    kernel_error, landmarks = {}, {}
    for name in methods:
        n_rep = 1 if name == "greedy" else repeats
        trace, spectral = np.zeros((n_rep, ranks.size)), np.zeros((n_rep, ranks.size))
        distinct = np.tile(ranks, (n_rep, 1))
        for s in range(n_rep):
            if name == "k-means":
                for c, r in enumerate(ranks):
                    Z = KMeans(n_clusters=int(r), n_init=1, random_state=seed + s).fit(X).cluster_centers_
                    C = kernel_matrix(X, Z, kernel=kernel, **params)
                    trace[s, c], spectral[s, c] = nystrom_error(
                        K1, C, kernel_matrix(Z, kernel=kernel, **params), eigen=eigens[0]
                    )
            elif name == "random-features":
                features = random_features(X, params["gamma"], top, seed + s)
                for c, r in enumerate(ranks):
                    trace[s, c], spectral[s, c] = feature_error(K1, features(r), eigens[0])
            else:
                order = orders_of(0, name, seed + s)
                if s == 0:
                    landmarks[name] = order
                for c, r in enumerate(ranks):
                    idx = np.unique(order[:r])
                    distinct[s, c] = idx.size
                    trace[s, c], spectral[s, c] = nystrom_error(K1, K1[:, idx], K1[np.ix_(idx, idx)], eigen=eigens[0])
            tick()
        kernel_error[name] = {"trace": trace, "spectral": spectral, "distinct": distinct}

    kcca_results, exact_summary, speedup, theorem1 = {}, {}, {}, {}
    if two_view:
        K2 = views[1]
        centred_x, centred_y = (_centred_from(eigen, eigen_floor(N, reg)) for eigen in eigens)
        exact = kcca_from_eigen(centred_x, centred_y, N, reg, reg, n_directions=2)
        sigma = np.append(exact.correlations, 0.0)[:2]
        gap = float(sigma[0] - sigma[1])
        exact_summary = {"rho": float(exact.correlations[0]), "gap": gap}
        tick()
        for name in kcca_methods:
            n_rep = 1 if name == "greedy" else repeats
            arrays = {key: np.zeros((n_rep, ranks.size)) for key in ("rho", "T", "alpha", "bound")}
            arrays["valid"] = np.zeros((n_rep, ranks.size), dtype=bool)
            for s in range(n_rep):
                if name == "random-features":
                    inputs = (X, split.second_view()[0])
                    made = [
                        random_features(A, p["gamma"], top, seed + s + 1000 * v)
                        for v, (A, p) in enumerate(zip(inputs, (params, params_y)))
                    ]
                for c, r in enumerate(ranks):
                    if name == "random-features":  # L = Z Z' is Nystroem's C W^+ C' with C = Z, W = I
                        Z1, Z2 = made[0](r), made[1](r)
                        eye = np.eye(int(r))
                        approx = nystrom_kcca_from_columns(Z1, eye, Z2, eye, reg, reg)
                    else:
                        orders = [orders_of(v, name, seed + s + 1000 * v) for v in range(len(views))]
                        approx = _nystrom_kcca(K1, K2, orders[0][:r], orders[1][:r], reg, reg)
                    errors = approximation_error(exact, approx)
                    arrays["rho"][s, c], arrays["T"][s, c], arrays["alpha"][s, c] = (
                        errors["rho"],
                        errors["T"],
                        errors["alpha"],
                    )
                    arrays["bound"][s, c] = (
                        (0.5 + 4 * np.sqrt(2) / gap) * errors["T"] / (N * reg) if gap > 0 else np.inf
                    )
                    arrays["valid"][s, c] = errors["T"] <= gap / 2
                tick()
            kcca_results[name] = arrays
        path_ranks = ranks
        incremental, refit = np.zeros((repeats, ranks.size)), np.zeros((repeats, ranks.size))
        for s in range(repeats):
            rng = np.random.default_rng(seed + s)
            out = nystrom_kcca_path(K1, K2, rng.permutation(N)[:top], rng.permutation(N)[:top], path_ranks, reg, reg)
            incremental[s], refit[s] = out["seconds_incremental"], out["seconds_refit"]
            tick()
        theorem1 = _theorem1(views, eigens, leverage, ranks, reg)
        speedup = {
            "ranks": path_ranks,
            "incremental": incremental,
            "refit": refit,
            "speedup": refit / np.maximum(incremental, 1e-12),
        }
    settings = {
        "N": N,
        "kernel": kernel,
        "kernel_params": params,
        "reg": reg,
        "leverage_gamma": leverage_gamma,
        "repeats": int(repeats),
        "seed": int(seed),
        "kernel_trace": float(np.trace(K1)),
    }
    coords, _, titles = embed_2d(X, None, split.y_train)
    return ColumnSelection(
        ranks,
        tuple(methods),
        int(repeats),
        kernel_error,
        landmarks,
        tuple(np.sort(s)[::-1] for s in leverage),
        tuple(float(s.sum()) for s in leverage),
        two_view,
        kcca_results,
        exact_summary,
        speedup,
        settings,
        coords,
        titles,
        split,
        theorem1,
    )


#: The accuracy and confidence the column lab quotes Wang 2016, Thm 1 at.
THEOREM1_EPSILON, THEOREM1_DELTA = 0.05, 0.05


def _theorem1(
    views: Sequence[np.ndarray],
    eigens: Sequence[tuple[np.ndarray, np.ndarray]],
    leverage: Sequence[np.ndarray],
    ranks: np.ndarray,
    reg: float,
) -> dict[str, Any]:
    """Wang 2016, Thm 1 for both views at each rank (the smallest epsilon over t), and the columns
    it asks for at :data:`THEOREM1_EPSILON` with t = 1/2 (see :attr:`ColumnSelection.theorem1`).

    Each sampling's beta is its own distribution's at the theorem's gamma = epsilon lambda (1 - t)
    / 2 (:func:`mpcore.nkcca.sampling_beta`): the leverage columns are drawn by scores at the
    lab's gamma, not the theorem's, so their beta is below 1 too."""
    N = views[0].shape[0]
    rests = [max(float(np.trace(K)) - values.sum(), 0.0) for K, (values, _) in zip(views, eigens)]
    out: dict[str, Any] = {"ranks": ranks}
    distributions = {
        "ridge-leverage": [scores / scores.sum() for scores in leverage],
        "uniform": [np.full(N, 1.0 / N) for _ in views],
    }

    def beta_of(view: int, p: np.ndarray) -> Callable[[float], float]:
        values, vectors = eigens[view]
        return _beta_function(values, vectors, np.diag(views[view]), p, rests[view])

    betas = {name: [beta_of(v, p) for v, p in enumerate(ps)] for name, ps in distributions.items()}
    for name, beta in betas.items():
        out[f"epsilon/{name}"] = np.array(
            [
                max(
                    theorem1_epsilon(values, reg, int(r), N, rest, THEOREM1_DELTA, b)
                    for (values, _), rest, b in zip(eigens, rests, beta)
                )
                for r in ranks
            ]
        )
    t = 0.5
    gamma = THEOREM1_EPSILON * reg * (1 - t) / 2
    out["columns at 0.05"] = {
        name: max(
            theorem1_columns(effective_dimension(values, gamma, N, rest), N, THEOREM1_DELTA, t, b(gamma))
            for (values, _), rest, b in zip(eigens, rests, beta)
        )
        for name, beta in betas.items()
    }
    out["beta at 0.05"] = {name: min(b(gamma) for b in beta) for name, beta in betas.items()}
    return out


def _in_words(names: Sequence[str]) -> str:
    """``["a", "b", "c"]`` as "a, b and c"."""
    names = list(names)
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)
