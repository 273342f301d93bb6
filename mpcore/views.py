"""Small helpers that turn data into things a person can look at.

Pure NumPy / scikit-learn, no plotting: a 2-D view of the inputs, a display order for
kernel heatmaps, and a grid for decision surfaces.  The app's figure builders take the
arrays these return.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.decomposition import PCA

MAX_HEATMAP_SIDE = 200


def embed_2d(
    X_train: ArrayLike,
    X_test: ArrayLike | None = None,
    y_train: ArrayLike | None = None,
    y_test: ArrayLike | None = None,
    target_name: str = "target",
) -> tuple[np.ndarray, np.ndarray | None, tuple[str, str]]:
    """The coordinates for drawing the inputs in a plane.

    - d = 1 with a target: (x, y) -- the natural picture of 1-D regression;
    - d = 1 without one: (x, 0);
    - d = 2: the inputs themselves;
    - d > 2: the first two principal components, fitted on the training points.

    Parameters
    ----------
    X_train : array-like of shape (m, d)
        The training inputs.
    X_test : array-like of shape (n, d) or None, default=None
        The test inputs.
    y_train, y_test : array-like or None, default=None
        The targets (used for 1-D inputs).
    target_name : str, default="target"
        The y axis's title for 1-D inputs.

    Returns
    -------
    train : ndarray of shape (m, 2)
        The training points' positions.
    test : ndarray of shape (n, 2) or None
        The test points' positions.
    titles : tuple of str
        The two axes' titles.
    """
    X_train = np.asarray(X_train, dtype=float)
    d = X_train.shape[1]

    def as_plane(X: ArrayLike, y: ArrayLike | None) -> np.ndarray:
        points = np.asarray(X, dtype=float)
        if d == 1:
            second = np.zeros(points.shape[0]) if y is None else np.asarray(y, dtype=float)
            return np.column_stack([points[:, 0], second])
        return points[:, :2]

    if d <= 2:
        titles = ("x", target_name if y_train is not None else "") if d == 1 else ("x1", "x2")
        return as_plane(X_train, y_train), None if X_test is None else as_plane(X_test, y_test), titles
    pca = PCA(n_components=2, random_state=0).fit(X_train)
    share = 100 * pca.explained_variance_ratio_
    titles = (f"PC 1 ({share[0]:.0f}% var.)", f"PC 2 ({share[1]:.0f}% var.)")  # short: a projector panel is small
    test = None if X_test is None else pca.transform(np.asarray(X_test, dtype=float))
    return pca.transform(X_train), test, titles


def display_order(sort_key: ArrayLike, max_side: int = MAX_HEATMAP_SIDE) -> np.ndarray:
    """Which training points a heatmap shows, and in which order.

    Points are sorted by ``sort_key`` (class label or target value, stable so ties keep
    their index order) so block structure shows; if there are more than ``max_side``,
    every ``m / max_side``-th point of the sorted order is kept, so a heatmap never has
    more than ``max_side^2`` cells.

    Parameters
    ----------
    sort_key : array-like of shape (m,)
        What to sort by.
    max_side : int, default=200
        The most points shown.

    Returns
    -------
    ndarray of int
        Indices into the training set.
    """
    order = np.argsort(np.asarray(sort_key, dtype=float), kind="stable")
    if order.size > max_side:
        keep = np.linspace(0, order.size - 1, max_side).round().astype(int)
        order = order[keep]
    return order


def grid_2d(points: ArrayLike, n: int = 60, margin: float = 0.15) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A regular n x n grid covering some points, with a relative margin.

    Parameters
    ----------
    points : array-like of shape (m, 2)
        The points to cover.
    n : int, default=60
        Grid points per axis.
    margin : float, default=0.15
        The margin, relative to the points' range.

    Returns
    -------
    xs, ys : ndarray of shape (n,)
        The axes' values.
    grid : ndarray of shape (n * n, 2)
        In row-major order (``grid[i * n + j] = (xs[j], ys[i])``), as Plotly's contour expects.
    """
    points = np.asarray(points, dtype=float)
    low, high = points.min(axis=0), points.max(axis=0)
    pad = margin * np.maximum(high - low, 1e-9)
    xs = np.linspace(low[0] - pad[0], high[0] + pad[0], n)
    ys = np.linspace(low[1] - pad[1], high[1] + pad[1], n)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.c_[gx.ravel(), gy.ravel()]
