"""One run of an algorithm on one train/test split, with everything needed to look at
any step of it: the app's pages draw from these, and notebook users can too.

A *study* is: kernels of the split, the greedy path, the bound-vs-sparsity curves, a
2-D view of the inputs and a heatmap display order.  Its methods answer "what does
step j look like?" cheaply (they never rerun the pursuit):

>>> from mpcore.datasets import load_dataset, prepare
>>> from mpcore.studies import kmp_study
>>> split = prepare(load_dataset("sinc"), seed=0)
>>> study = kmp_study(split, k=10, gamma=2.0)
>>> study.prediction(3, split.X_test).shape
(60,)

Step ``j`` means "after j basis vectors were chosen": ``j = 0`` is the start; the
kernel heatmap shows ``K_j``; :meth:`Study.criterion` is the score vector computed on
``K_j``, whose winner becomes basis vector ``j + 1``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import curves as curves_module
from ._validation import check_binary_labels
from .curves import BoundCurves
from .datasets import Split
from .engine import PursuitPath, check_step
from .kernels import kernel_diag, kernel_matrix, median_gamma
from .kmp import kmp_path
from .mpkfda import FisherModel, _fisher_model, mpkfda_path
from .nystrom import nystrom_features
from .skcca import _fit_sparse_cca, skcca_path
from .skpca import skpca_path
from .views import display_order, embed_2d, grid_2d


def _kernel_params(kernel: str, gamma: float | str | None, degree: int, X: np.ndarray) -> dict[str, float]:
    """Kernel parameters for training inputs ``X``: ``gamma`` None means ``1 / d``,
    ``"median"`` the median heuristic (:func:`mpcore.kernels.median_gamma`), else a number."""
    if kernel == "linear":
        return {}
    if gamma is None:
        gamma = 1.0 / X.shape[1]
    elif isinstance(gamma, str):
        if gamma != "median":
            raise ValueError(f"gamma must be a positive number, None (1/d) or 'median'; got {gamma!r}.")
        gamma = median_gamma(X, kernel)
    params: dict[str, float] = {"gamma": float(gamma)}
    if kernel == "poly":
        params.update(degree=int(degree), coef0=1.0)
    return params


class StepView(NamedTuple):
    """What the pages draw at step j.

    Parameters
    ----------
    chosen : ndarray of int
        The chosen points, in order.
    scores : ndarray of shape (m,)
        The criterion on ``K_j``.
    winner : int
        The point it picks.
    next_pick : int or None
        The next pick (None after the last step).
    """

    chosen: np.ndarray
    scores: np.ndarray
    winner: int
    next_pick: int | None


# The fields' own docstrings (a named tuple's would say "Alias for field number 0").
StepView.chosen.__doc__ = "The chosen points, in order."
StepView.scores.__doc__ = "The criterion on ``K_j``."
StepView.winner.__doc__ = "The point the criterion picks."
StepView.next_pick.__doc__ = "The next pick (None after the last step)."


@dataclass(frozen=True)
class Study:
    """A computed path on one split, and the views of any step of it.

    Parameters
    ----------
    family : str
        "skpca", "kmp", "skcca" or "mpkfda".
    split : Split
        The data.
    kernel : str
        The kernel's name.
    kernel_params : dict
        Its parameters.
    K : ndarray of shape (m, m)
        The first view's training kernel.
    K_test : ndarray of shape (n, m)
        Its kernel between test and training points.
    path : PursuitPath
        The greedy path.
    curves : BoundCurves
        The bounds and errors against the number of basis vectors.
    coords, coords_test : ndarray of shape (m, 2), (n, 2)
        A 2-D view of the training and test inputs.
    coord_titles : tuple of str
        The view's axis titles.
    order : ndarray of int
        The training points shown in heatmaps, sorted by class or target.
    extras : dict
        Family-specific (the second view's kernels, KMP's offset, ...).
    """

    family: str
    split: Split
    kernel: str
    kernel_params: dict[str, float]
    K: np.ndarray
    K_test: np.ndarray
    path: PursuitPath
    curves: BoundCurves
    coords: np.ndarray
    coords_test: np.ndarray | None
    coord_titles: tuple[str, str]
    order: np.ndarray
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def n_steps(self) -> int:
        return self.path.n_steps

    @property
    def m(self) -> int:
        return int(self.K.shape[0])

    def _check_step(self, j: int) -> int:
        return check_step(j, self.n_steps)

    def chosen(self, j: int) -> np.ndarray:
        """The training indices of the first ``j`` basis vectors, in order of choice.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0: nothing chosen yet).

        Returns
        -------
        ndarray of int, shape (j,)
            The chosen points.
        """
        return self.path.indices[: self._check_step(j)]

    def criterion(self, j: int) -> tuple[np.ndarray, int]:
        """The criterion on ``K_j`` and the point it chose next.

        At the last step (nothing chosen next) this is the score row of the last pick and
        its winner, so the panel still shows the final decision.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0: nothing chosen yet).

        Returns
        -------
        scores : ndarray of shape (m,)
            The criterion (nan where a point is not eligible).
        winner : int
            The point it picks.
        """
        j = self._check_step(j)
        row = min(j, self.n_steps - 1)
        return self.path.scores[row], int(self.path.indices[row])

    def step_view(self, j: int) -> StepView:
        """What the pages draw at step ``j``.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0: nothing chosen yet).

        Returns
        -------
        StepView
            The chosen points, the criterion, its winner and the next pick.
        """
        scores, winner = self.criterion(j)
        return StepView(self.chosen(j), scores, winner, winner if j < self.n_steps else None)

    def heatmaps(self, j: int, view: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """``K_0`` and ``K_j`` on the display order, each at most 200 x 200.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0: nothing chosen yet).
        view : int, default=0
            The kernel for two views (0 = X, 1 = Y).

        Returns
        -------
        original : ndarray
            The block of ``K_0``.
        deflated : ndarray
            The block of ``K_j``.
        """
        j = self._check_step(j)
        return self.path.deflated_block(0, self.order, view=view), self.path.deflated_block(j, self.order, view=view)

    def path_table(self) -> dict[str, np.ndarray]:
        """The columns of a CSV download of the path: one row per chosen basis vector.

        Returns
        -------
        dict of str to ndarray
            Step, training index, dataset row, criterion value, plotted position.
        """
        idx = self.path.indices
        steps = np.arange(1, idx.size + 1)
        winners = self.path.scores[np.arange(idx.size), idx] if idx.size else np.zeros(0)
        return {
            "step": steps,
            "training index": idx,
            "dataset row": self.split.train_index[idx],
            "criterion value": winners,
            "x (plot)": self.coords[idx, 0],
            "y (plot)": self.coords[idx, 1],
        }

    # --- the model at step j ---------------------------------------------------------

    def residuals(self, j: int) -> np.ndarray:
        """Sparse KPCA: ``||phi(x_i) - P_j phi(x_i)||^2`` of every training point.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0: nothing chosen yet).

        Returns
        -------
        ndarray of shape (m,)
            The squared residuals.
        """
        return np.asarray(self.path.extras["residuals"][self._check_step(j)])

    def _kernel_to_chosen(self, X_rows: ArrayLike, idx: np.ndarray, view: int = 0) -> np.ndarray:
        X_basis = (self.split.X_train if view == 0 else self.split.second_view()[0])[idx]
        params = self.kernel_params if view == 0 else self.extras["kernel_params_y"]
        return kernel_matrix(np.asarray(X_rows, dtype=float), X_basis, self.kernel, **params)

    def prediction(self, j: int, X_rows: np.ndarray) -> np.ndarray:
        """Kernel matching pursuit: the function after ``j`` steps at some points.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0: nothing chosen yet).
        X_rows : array-like of shape (n, d)
            Points, standardised like the training inputs.

        Returns
        -------
        ndarray of shape (n,)
            The predictions.
        """
        j = self._check_step(j)
        X_rows = np.asarray(X_rows, dtype=float)
        K_rows = self._kernel_to_chosen(X_rows, self.path.indices[:j]) if j else np.empty((X_rows.shape[0], 0))
        return self._kmp_output(j, K_rows)

    def _kmp_output(self, j: int, K_rows: np.ndarray) -> np.ndarray:
        """KMP's function after ``j`` steps from the kernel between some points and the
        first ``j`` (or more) chosen points, in the order chosen."""
        offset = self.extras["offset"]
        if j == 0:
            return np.full(K_rows.shape[0], offset + self.path.extras["fitted"][0][0])
        coefs = self.path.extras["coefs"][j - 1, :j]
        return np.asarray(K_rows[:, :j] @ coefs + self.path.extras["intercepts"][j - 1] + offset)

    def fitted(self, j: int | None = None) -> np.ndarray:
        """Kernel matching pursuit: the training predictions after ``j`` steps.

        Parameters
        ----------
        j : int or None, default=None
            The step; None for every step.

        Returns
        -------
        ndarray of shape (m,) or (n_steps + 1, m)
            The predictions.
        """
        rows = self.path.extras["fitted"] + self.extras["offset"]
        return np.asarray(rows if j is None else rows[self._check_step(j)])

    def train_mse(self) -> np.ndarray:
        """Kernel matching pursuit: the training mean squared error after 0..n_steps steps.

        Returns
        -------
        ndarray of shape (n_steps + 1,)
            The errors.
        """
        return np.asarray(((self.fitted() - self.split.y_train) ** 2).mean(axis=1))

    def fisher(self, j: int) -> FisherModel | None:
        """Greedy Fisher discriminant: the Fisher model on the first ``j`` points.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0: nothing chosen yet).

        Returns
        -------
        FisherModel or None
            None at j = 0.
        """
        j = self._check_step(j)
        if j == 0:
            return None
        # fitted once per step (a picture asks each step's model of several panels), on the
        # kernel and labels the path was computed from, checked then
        fitted: dict[int, FisherModel] = self.__dict__.setdefault("_fisher_models", {})
        if j not in fitted:
            signs = check_binary_labels(self.split.targets()[0])[0]
            fitted[j] = _fisher_model(self.K, signs, self.path.indices[:j], self.extras["shrinkage"])
        return fitted[j]

    def decision(self, j: int, X_rows: np.ndarray) -> np.ndarray:
        """The real-valued classifier output after ``j`` steps (its sign is the class).

        KMP's prediction, or the Fisher discriminant's ``w'phi + b``.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0: nothing chosen yet).
        X_rows : array-like of shape (n, d)
            Points, standardised like the training inputs.

        Returns
        -------
        ndarray of shape (n,)
            The decision values.
        """
        if self.family == "kmp":
            return self.prediction(j, X_rows)
        model = self.fisher(j)
        if model is None:
            return np.zeros(np.asarray(X_rows).shape[0])
        return model.decision(self._kernel_to_chosen(X_rows, model.indices))

    def _decision_from_kernel(self, j: int, K_rows: np.ndarray) -> np.ndarray:
        """:meth:`decision` from the kernel between the points and the first ``j`` (or
        more) chosen points, in the order chosen."""
        if self.family == "kmp":
            return self._kmp_output(j, K_rows)
        model = self.fisher(j)
        if model is None:
            return np.zeros(K_rows.shape[0])
        return model.decision(K_rows[:, :j])  # the model's points are the first j chosen

    def decision_grid(self, j: int, n: int = 60) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """:meth:`decision` over the plotted plane, when the plane is the input space (d = 2).

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0: nothing chosen yet).
        n : int, default=60
            Grid points per axis.

        Returns
        -------
        tuple of (ndarray, ndarray, ndarray) or None
            ``(xs, ys, values (n, n))``, or None when d != 2.
        """
        grids = self.decision_grids([j], n=n)
        return None if grids is None else (grids[0], grids[1], grids[2][self._check_step(j)])

    def decision_grids(
        self, steps: Iterable[int], n: int = 60
    ) -> tuple[np.ndarray, np.ndarray, dict[int, np.ndarray]] | None:
        """:meth:`decision_grid` at several steps, from one kernel evaluation.

        The grid's kernel to the points chosen by the last step, whose first j columns
        serve step j.

        Parameters
        ----------
        steps : iterable of int
            The steps, each ``0 <= j <= n_steps``.
        n : int, default=60
            Grid points per axis.

        Returns
        -------
        tuple of (ndarray, ndarray, dict) or None
            ``(xs, ys, {j: values (n, n)})``, or None when d != 2.
        """
        if self.split.X_train.shape[1] != 2:
            return None
        steps = [self._check_step(j) for j in steps]
        shown = [self.coords] + ([] if self.coords_test is None else [self.coords_test])
        xs, ys, grid = grid_2d(np.vstack(shown), n=n)
        last = max(steps, default=0)
        K_grid = self._kernel_to_chosen(grid, self.path.indices[:last]) if last else np.empty((grid.shape[0], 0))
        return xs, ys, {j: self._decision_from_kernel(j, K_grid).reshape(n, n) for j in steps}

    def fit_curve(self, j: int, n: int = 200) -> tuple[np.ndarray, np.ndarray] | None:
        """KMP on 1-D inputs: the function over the range of the data.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0: nothing chosen yet).
        n : int, default=200
            Points on the curve.

        Returns
        -------
        tuple of (ndarray, ndarray) or None
            ``(xs, f(xs))``, or None when the inputs are not 1-D.
        """
        curves = self.fit_curves([j], n=n)
        return None if curves is None else (curves[0], curves[1][self._check_step(j)])

    def fit_curves(self, steps: Iterable[int], n: int = 200) -> tuple[np.ndarray, dict[int, np.ndarray]] | None:
        """:meth:`fit_curve` at several steps, from one kernel evaluation.

        The curve's kernel to the points chosen by the last step, whose first j columns
        serve step j.

        Parameters
        ----------
        steps : iterable of int
            The steps, each ``0 <= j <= n_steps``.
        n : int, default=200
            Points on the curve.

        Returns
        -------
        tuple of (ndarray, dict) or None
            ``(xs, {j: f(xs) after j steps})``, or None when the inputs are not 1-D.
        """
        if self.split.X_train.shape[1] != 1:
            return None
        steps = [self._check_step(j) for j in steps]
        X = np.vstack([self.split.X_train, self.split.X_test])
        xs = np.linspace(X.min(), X.max(), n)
        last = max(steps, default=0)
        K_rows = self._kernel_to_chosen(xs[:, None], self.path.indices[:last]) if last else np.empty((n, 0))
        return xs, {j: self._kmp_output(j, K_rows) for j in steps}

    def projections(self, j: int) -> dict[str, tuple[Any, Any]] | None:
        """Sparse KCCA: the first canonical variates after ``j`` steps.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0: nothing chosen yet).

        Returns
        -------
        dict or None
            ``{"train": (f_x, f_y), "test": (f_x, f_y), "correlation": (train, test)}``, or
            None at j = 0.
        """
        j = self._check_step(j)
        if j == 0:
            return None
        # fitted once per step (the curves keep theirs), on the kernels the path was computed
        # from, checked then
        kept = self.__dict__.setdefault("_skcca_variates", {})
        if j not in kept:
            idx = self.path.indices[:j]
            Ky, Ky_test = self.extras["Ky"], self.extras["Ky_test"]
            cca, Cx, Cy = _fit_sparse_cca(self.K, Ky, idx, self.extras["reg"], 1)
            train = cca.transform(nystrom_features(self.K[:, idx], Cx), nystrom_features(Ky[:, idx], Cy))
            test = cca.transform(nystrom_features(self.K_test[:, idx], Cx), nystrom_features(Ky_test[:, idx], Cy))
            kept[j] = (train[0][:, 0], train[1][:, 0], test[0][:, 0], test[1][:, 0])
        fx, fy, fx_test, fy_test = kept[j]

        def corr(a: np.ndarray, b: np.ndarray) -> float:
            return float(np.corrcoef(a, b)[0, 1]) if np.std(a) > 0 and np.std(b) > 0 else float("nan")

        return {
            "train": (fx, fy),
            "test": (fx_test, fy_test),
            "correlation": (corr(fx, fy), corr(fx_test, fy_test)),
        }


def _common(
    split: Split, kernel: str, gamma: float | str | None, degree: int
) -> tuple[dict[str, float], np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, tuple[str, str], np.ndarray]:
    params = _kernel_params(kernel, gamma, degree, split.X_train)
    K = kernel_matrix(split.X_train, kernel=kernel, **params)
    K_test = kernel_matrix(split.X_test, split.X_train, kernel=kernel, **params)
    coords, coords_test, titles = embed_2d(split.X_train, split.X_test, split.y_train, split.y_test)
    return params, K, K_test, coords, coords_test, titles, display_order(heatmap_sort_key(split, coords))


def heatmap_sort_key(split: Split, coords: np.ndarray) -> np.ndarray:
    """What orders a heatmap's rows so its structure shows.

    The input itself for 1-D data (a band around the diagonal), the class then the first
    plotted coordinate for two classes (two blocks, each smooth), else the target, else
    the first coordinate.

    Parameters
    ----------
    split : Split
        The data.
    coords : ndarray of shape (m, 2)
        The training points' plotted positions.

    Returns
    -------
    ndarray of shape (m,)
        The sort key.
    """
    y = split.y_train
    if split.X_train.shape[1] == 1:
        return split.X_train[:, 0]
    if y is not None and split.classes:
        rank = np.empty(y.size)
        rank[np.lexsort((coords[:, 0], y))] = np.arange(y.size)
        return rank
    return y if y is not None else coords[:, 0]


def _radius(K: np.ndarray) -> float:
    return float(np.sqrt(max(np.max(np.diag(K)), 1e-300)))


def skpca_study(
    split: Split,
    k: int,
    kernel: str = "rbf",
    gamma: float | str | None = None,
    degree: int = 3,
    candidates: int | None = None,
    seed: int = 0,
    delta: float = 0.05,
) -> Study:
    """Sparse kernel PCA (Hussain et al. 2011, Alg. 2) on a split, with its bounds (Cor. 1, Thms 7-8).

    The bounds use ``R^2 = max_i k(x_i, x_i)``.

    Parameters
    ----------
    split : Split
        The data (:func:`mpcore.datasets.prepare`).
    k : int
        The number of basis vectors to choose.
    kernel : str, default="rbf"
        A name of :data:`mpcore.KERNELS`.
    gamma : float, "median" or None, default=None
        The kernel width (None: ``1 / d``; "median": the median heuristic).
    degree : int, default=3
        The degree of the "poly" kernel.
    candidates : int or None, default=None
        Score this many random columns per step (None: all).
    seed : int, default=0
        Seeds the candidates' draws.
    delta : float, default=0.05
        The bounds' confidence.

    Returns
    -------
    Study
        The path, its curves and the views of every step.
    """
    params, K, K_test, coords, coords_test, titles, order = _common(split, kernel, gamma, degree)
    path = skpca_path(K, k, candidates=candidates, seed=seed)
    test_diag = kernel_diag(split.X_test, kernel, **params)
    bound_curves = curves_module.skpca_curves(K, K_test, test_diag, path, delta=delta, R=_radius(K))
    return Study("skpca", split, kernel, params, K, K_test, path, bound_curves, coords, coords_test, titles, order)


def kmp_study(
    split: Split,
    k: int,
    kernel: str = "rbf",
    gamma: float | str | None = None,
    degree: int = 3,
    variant: str = "prefit",
    loss: str = "squared",
    alpha: float | None = None,
    delta: float = 0.05,
) -> Study:
    """Kernel matching pursuit (Vincent and Bengio 2002) on a split, with the KMP bound (Hussain et al. 2011, Thm 4).

    With the squared loss the target is centred first (its training mean is added back
    to every prediction); with the other losses a free bias is fitted instead.

    Parameters
    ----------
    split : Split
        The data (:func:`mpcore.datasets.prepare`).
    k : int
        The number of basis vectors to choose.
    kernel : str, default="rbf"
        A name of :data:`mpcore.KERNELS`.
    gamma : float, "median" or None, default=None
        The kernel width (None: ``1 / d``; "median": the median heuristic).
    degree : int, default=3
        The degree of the "poly" kernel.
    variant : {"prefit", "backfit", "basic"}, default="prefit"
        The pursuit.
    loss : {"squared", "tanh", "logistic", "hinge"}, default="squared"
        The loss.
    alpha : float or None, default=None
        The bound's error tolerance (None: 1 for a -1/+1 target, for which ``|f - y| > 1``
        is, for ``f`` between -1 and 3, the same as a wrong sign; half the target's
        standard deviation otherwise).
    delta : float, default=0.05
        The bounds' confidence.

    Returns
    -------
    Study
        The path, its curves and the views of every step.
    """
    if split.y_train is None:
        raise ValueError("Kernel matching pursuit needs a target; pick a regression or binary dataset.")
    params, K, K_test, coords, coords_test, titles, order = _common(split, kernel, gamma, degree)
    y = np.asarray(split.y_train, dtype=float)
    binary = split.classes
    offset = float(y.mean()) if loss == "squared" else 0.0
    path = kmp_path(K, y - offset, k, variant=variant, loss=loss, fit_intercept=loss != "squared")
    if alpha is None:
        alpha = 1.0 if binary else curves_module.default_alpha(y)
    y_test = split.targets()[1]
    bound_curves = curves_module.kmp_curves(K, y, K_test, y_test, path, alpha=alpha, delta=delta, offset=offset)
    extras = {"offset": offset, "binary": binary, "alpha": float(alpha), "settings": {"variant": variant}}
    return Study(
        "kmp", split, kernel, params, K, K_test, path, bound_curves, coords, coords_test, titles, order, extras
    )


def skcca_study(
    split: Split,
    k: int,
    kernel: str = "rbf",
    gamma: float | str | None = None,
    degree: int = 3,
    alpha: float = 1.0,
    delta: float = 0.05,
    reg: float = 1e-3,
) -> Study:
    """Sparse kernel CCA (Hussain et al. 2011, Alg. 3) on a two-view split, with its bound (Thm 9).

    Each view gets the same kernel; ``gamma=None`` means ``1 / d`` of that view, a given
    ``gamma`` is used for both (the views are standardised).  Heatmap order follows the
    first principal coordinate of view X.

    Parameters
    ----------
    split : Split
        The data (:func:`mpcore.datasets.prepare`).
    k : int
        The number of basis vectors to choose.
    kernel : str, default="rbf"
        A name of :data:`mpcore.KERNELS`.
    gamma : float, "median" or None, default=None
        The kernel width (None: ``1 / d``; "median": the median heuristic).
    degree : int, default=3
        The degree of the "poly" kernel.
    alpha : float, default=1.0
        The bound's tolerance on the variates' difference.
    delta : float, default=0.05
        The bounds' confidence.
    reg : float, default=1e-3
        The CCA ridge.

    Returns
    -------
    Study
        The path, its curves and the views of every step.
    """
    if split.Y_train is None:
        raise ValueError("Sparse KCCA needs two views; pick a two-view dataset.")
    params, K, K_test, coords, coords_test, titles, order = _common(split, kernel, gamma, degree)
    Y_train, Y_test = split.second_view()
    params_y = _kernel_params(kernel, gamma, degree, Y_train)
    Ky = kernel_matrix(Y_train, kernel=kernel, **params_y)
    Ky_test = kernel_matrix(Y_test, Y_train, kernel=kernel, **params_y)
    path = skcca_path(K, Ky, k)
    # each step's first variates, computed once for the curves and kept for the views
    variates: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
    bound_curves = curves_module._skcca_curves(K, Ky, K_test, Ky_test, path, alpha, delta, reg, variates)
    coords_y, coords_y_test, titles_y = embed_2d(Y_train, Y_test)
    extras = {
        "Ky": Ky,
        "Ky_test": Ky_test,
        "kernel_params_y": params_y,
        "reg": reg,
        "coords_y": coords_y,
        "coords_y_test": coords_y_test,
        "coord_titles_y": titles_y,
    }
    study = Study(
        "skcca", split, kernel, params, K, K_test, path, bound_curves, coords, coords_test, titles, order, extras
    )
    study.__dict__["_skcca_variates"] = variates
    return study


def mpkfda_study(
    split: Split,
    k: int,
    kernel: str = "rbf",
    gamma: float | str | None = None,
    degree: int = 3,
    criterion: str = "optimal",
    deflation: str = "projection",
    stages: int = 1,
    seed: int = 0,
    delta: float = 0.05,
    shrinkage: float | str | None = "auto",
) -> Study:
    """Greedy kernel Fisher discriminant (Diethe 2015, Alg. 1) on a binary split, with its bound (Thm 1).

    The bound uses ``R^2 = max_i k(x_i, x_i)``.

    Parameters
    ----------
    split : Split
        The data (:func:`mpcore.datasets.prepare`).
    k : int
        The number of basis vectors to choose.
    kernel : str, default="rbf"
        A name of :data:`mpcore.KERNELS`.
    gamma : float, "median" or None, default=None
        The kernel width (None: ``1 / d``; "median": the median heuristic).
    degree : int, default=3
        The degree of the "poly" kernel.
    criterion : str, default="optimal"
        A name of :data:`mpcore.FISHER_CRITERIA`.
    deflation : str, default="projection"
        A name of :data:`mpcore.DEFLATIONS`.
    stages : int, default=1
        Points chosen per score vector.
    seed : int, default=0
        Seeds the random criterion.
    delta : float, default=0.05
        The bounds' confidence.
    shrinkage : "auto", float or None, default="auto"
        The Fisher discriminant's shrinkage.

    Returns
    -------
    Study
        The path, its curves and the views of every step.
    """
    if split.y_train is None or not np.all(np.isin(split.y_train, (-1.0, 1.0))):
        raise ValueError("The greedy Fisher discriminant needs two classes labelled -1 and +1; pick a binary dataset.")
    params, K, K_test, coords, coords_test, titles, order = _common(split, kernel, gamma, degree)
    path = mpkfda_path(K, split.y_train, k, criterion=criterion, deflation=deflation, stages=stages, seed=seed)
    y_train, y_test = split.targets()
    # each step's Fisher model, fitted once for the curves and kept for the views
    fitted: dict[int, FisherModel] = {}
    bound_curves = curves_module._mpkfda_curves(K, y_train, K_test, y_test, path, delta, _radius(K), shrinkage, fitted)
    extras = {"shrinkage": shrinkage, "settings": {"criterion": criterion, "deflation": deflation}}
    study = Study(
        "mpkfda", split, kernel, params, K, K_test, path, bound_curves, coords, coords_test, titles, order, extras
    )
    study.__dict__["_fisher_models"] = fitted
    return study
