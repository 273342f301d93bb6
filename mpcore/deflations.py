"""Deflations: the kernel *states* that the greedy loop deflates.

A state holds the current deflated kernel K_j (explicitly or as ``K_0 - U V'``),
answers what criteria ask about its columns, and deflates itself by one chosen column.

- :class:`CholeskyDeflation`: ``K <- K - tau tau' / K[i, i]``, ``tau = K[:, i]``; SKPCA
  (Hussain et al. 2011, eq. 5).
- :class:`ProjectionDeflation`: ``K <- (I - tau tau' / tau'tau) K``; KMP pre-fit, SKCCA
  (Hussain et al. 2011, Alg. 1, 3, 5).
- :class:`TwoViewProjection`: the projection deflation on both views; SKCCA (Hussain et al.
  2011, Alg. 3).
- :class:`ExplicitDeflation`: any rule of :data:`DEFLATIONS` on the full matrix; MPKFDA, the
  deflation lab (Diethe 2015, eq. 15-19).

The first three never form K_j: they track exactly the quantities their criterion
needs with one kernel-vector product per step (O(m^2) per step, O(k m^2) in all).
The explicit state keeps the m x m matrix and applies the textbook update (O(m^2) per
step), which is what a reader should compare against the papers' equations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Union

import numpy as np
from numpy.typing import ArrayLike

from ._validation import ELIGIBILITY_RTOL, check_choice
from .lowrank import symmetric_products

#: Where tau comes from: the chosen column of the current (deflated) kernel, or of K0.
TAU_SOURCES = ("deflated", "original")

#: The seven deflations of Diethe 2015 (eq. 15-19) plus Mackey's orthogonalised projection.
DEFLATIONS = (
    "none",
    "hotelling",
    "projection",
    "schur",
    "ortho-hotelling",
    "ortho-projection",
    "ortho-schur",
)

#: Tracked squared norms are recomputed exactly (O(m^2 r), rare) once the residual has
#: shrunk by this factor since the last exact computation: incremental updates carry an
#: absolute error of about 1e-16 r times the reference level, so the tracked values
#: keep a relative accuracy of about 1e-8 r or better between refreshes.
_REFRESH_FACTOR = 1e-8


class _Columns:
    """An (rows x r) matrix that grows one column at a time (amortised O(rows))."""

    def __init__(self, rows: int, capacity: int = 16) -> None:
        self._data = np.empty((rows, capacity))
        self.size = 0

    def append(self, column: np.ndarray) -> None:
        if self.size == self._data.shape[1]:
            grown = np.empty((self._data.shape[0], 2 * self._data.shape[1]))
            grown[:, : self.size] = self._data[:, : self.size]
            self._data = grown
        self._data[:, self.size] = column
        self.size += 1

    @property
    def view(self) -> np.ndarray:
        return self._data[:, : self.size]


def _column_sq_norms(A: np.ndarray) -> np.ndarray:
    return np.asarray(np.einsum("ij,ij->j", A, A))


#: The docstrings of the methods some states have (what some criteria read), shared by
#: every state that has them (:class:`KernelState` copies them at class creation).
OPTIONAL_METHOD_DOCS = {
    "column_sq_norms": """The squared norms ``||K_j[:, i]||^2`` of the deflated columns, tracked by updates.

        Returns
        -------
        ndarray of shape (m,)
            One per candidate.
        """,
    "columns_dot": """``K_j' v`` for a vector ``v`` the state tracks.

        Parameters
        ----------
        key : str
            The name the vector was tracked under (``"y"`` for the target).

        Returns
        -------
        ndarray of shape (n,)
            The product with every deflated column.
        """,
}


class KernelState:
    """What :func:`mpcore.pursue` needs of a deflated kernel: the interface of every state here.

    A state holds the current (deflated) kernel ``K_j`` and updates it when a column is
    chosen.  Subclasses record the deflation as low-rank factors so that any step can be
    rebuilt (:meth:`mpcore.PursuitPath.deflated_kernel`).  Attributes every state has:
    ``m`` (the number of candidates), ``threshold`` (the residual size below which a
    candidate is no longer eligible) and ``rank`` (the terms recorded so far).
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A state's methods of this interface (or of :data:`OPTIONAL_METHOD_DOCS`) without
        a docstring of their own get the shared one."""
        super().__init_subclass__(**kwargs)
        for name, member in vars(cls).items():
            if not callable(member) or member.__doc__ is not None:
                continue
            if callable(getattr(KernelState, name, None)):
                member.__doc__ = getattr(KernelState, name).__doc__
            elif name in OPTIONAL_METHOD_DOCS:
                member.__doc__ = OPTIONAL_METHOD_DOCS[name]

    def residual_size(self) -> np.ndarray:
        """How much of each candidate is left to explain (eligible above ``threshold``).

        Returns
        -------
        ndarray of shape (m,)
            For example the squared norms of the deflated columns.
        """
        raise NotImplementedError

    def deflate(self, i: int) -> bool:
        """Remove from the kernel what column ``i`` explains.

        Parameters
        ----------
        i : int
            The chosen column.

        Returns
        -------
        bool
            False when the column's residual turned out to be below ``threshold`` (its
            tracked size had drifted above the true one): nothing was deflated.
        """
        raise NotImplementedError

    def kernels(self) -> tuple[np.ndarray, ...]:
        """The input kernels, one per view.

        Returns
        -------
        tuple of ndarray
            ``(K_0,)``, or ``(Kx, Ky)`` for two views.
        """
        raise NotImplementedError

    def factors(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """The deflation so far as low-rank factors, one pair per view.

        Returns
        -------
        tuple of (ndarray, ndarray)
            ``(U, V)`` with ``K_j = K_0 - U V'`` for each view.
        """
        raise NotImplementedError


class CholeskyDeflation(KernelState):
    """Sparse-KPCA deflation: pivoted Cholesky, ``K_j = K_0 - L_j L_j'``.

    Choosing i sets ``u = K_j[:, i] / sqrt(K_j[i, i])`` and ``K_{j+1} = K_j - u u'``
    (Hussain et al. 2011, eq. 5).  ``diag(K_j)`` is the squared residual
    ``||phi(x) - P phi(x)||^2`` of every training point after projecting onto the span
    of the chosen points (eq. 7).  Tracks the diagonal and the squared column norms with
    one product ``K_0 u`` per step.

    Parameters
    ----------
    K0 : ndarray of shape (m, m)
        A checked kernel matrix (not copied, not modified).
    """

    name = "cholesky"

    def __init__(self, K0: np.ndarray) -> None:
        self.K0 = K0
        self.m = K0.shape[0]
        self.d = np.diag(K0).astype(float).copy()
        self.s = _column_sq_norms(K0)
        self.threshold = ELIGIBILITY_RTOL * max(float(self.d.max()), 0.0)
        self.L = _Columns(self.m)
        self._d_ref = float(self.d.max())
        self._s_ref = float(self.s.max())
        self.diag_history = [self.d.copy()]  # residuals ||phi(x) - P phi(x)||^2 after each step

    rank = property(lambda self: self.L.size)

    def residual_size(self) -> np.ndarray:
        return self.d

    def diag(self) -> np.ndarray:
        """``diag(K_j)``: every training point's squared residual after projection.

        Returns
        -------
        ndarray of shape (m,)
            The tracked diagonal.
        """
        return self.d

    def column_sq_norms(self) -> np.ndarray:
        return self.s

    def column(self, i: int) -> np.ndarray:
        """Column ``i`` of the current deflated kernel, O(m r).

        Read as row i: K_0 is a checked kernel, and its rows are contiguous.

        Parameters
        ----------
        i : int
            The column.

        Returns
        -------
        ndarray of shape (m,)
            ``K_j[:, i]``.
        """
        L = self.L.view
        return np.asarray(self.K0[i] - L @ L[i, :])

    def column_sq_norm_error(self) -> float:
        """A bound on the absolute round-off in the tracked squared column norms.

        Each update adds about ``eps`` times the level they started from.

        Returns
        -------
        float
            The bound.
        """
        return float(8.0 * np.finfo(float).eps * (self.rank + 1) * self._s_ref)

    def exact_scores(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The criterion's parts recomputed from ``K_0 - L L'`` for some columns, O(m r) each.

        For the criterion's contenders whose tracked values may be off.

        Parameters
        ----------
        idx : array-like of int
            The columns.

        Returns
        -------
        sq_norms : ndarray of shape (len(idx),)
            ``||K_j[:, i]||^2`` for each candidate.
        diag : ndarray of shape (len(idx),)
            ``K_j[i, i]`` for each candidate.
        """
        L = self.L.view
        columns = self.K0[:, idx] - L @ L[idx].T
        diag = np.diag(self.K0)[idx] - np.einsum("ij,ij->i", L[idx], L[idx])
        return np.einsum("ij,ij->j", columns, columns), diag

    def deflate(self, i: int) -> bool:
        col = self.column(i)
        pivot = col[i]
        if not pivot > self.threshold:
            return False
        u = col / np.sqrt(pivot)
        L = self.L.view
        Ku = self.K0 @ u - L @ (L.T @ u)  # K_j u, the one O(m^2) product
        self.s = np.maximum(self.s - 2.0 * u * Ku + u * u * (u @ u), 0.0)
        self.d = np.maximum(self.d - u * u, 0.0)
        self.d[i] = 0.0
        self.s[i] = 0.0
        self.L.append(u)
        self.diag_history.append(self.d.copy())
        self._maybe_refresh()
        return True

    def refresh_norms(self) -> None:
        """Recompute every squared column norm from ``K_0 - L L'`` (O(m^2 r)).

        The tracked values then start again from their current, smaller level.
        """
        L = self.L.view
        self.s = _column_sq_norms(self.K0 - L @ L.T)
        self._d_ref = float(self.d.max())
        self._s_ref = float(self.s.max())

    def _maybe_refresh(self) -> None:
        if float(self.d.max()) < _REFRESH_FACTOR * self._d_ref:
            self.refresh_norms()

    def kernels(self) -> tuple[np.ndarray, ...]:
        return (self.K0,)

    def factors(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        L = self.L.view.copy()
        return ((L, L),)


class ProjectionDeflation(KernelState):
    """One-sided projection deflation ``D_j = P_j D_0`` with ``P_j = I - Q_j Q_j'``.

    Choosing i sets ``q = D_j[:, i] / ||D_j[:, i]||`` and ``D_{j+1} = (I - q q') D_j``
    (Hussain et al. 2011, Alg. 1 line 7, Alg. 3, Alg. 5; Diethe 2015, eq. 16).  ``Q_j`` is
    an orthonormal basis of the span of the chosen columns of ``D_0``, so ``D_j`` is the
    part of every dictionary column that the chosen ones do not yet explain.  Costs one
    product ``D_0' q`` per step.

    Parameters
    ----------
    D0 : ndarray of shape (m, n)
        Any dictionary (a kernel matrix is the square case).  Not modified.
    track : dict of str to ndarray of shape (m,), default=None
        Vectors projected alongside (e.g. the target ``y``): :meth:`projected` gives
        ``P_j v`` and :meth:`columns_dot` gives ``D_j' v``.
    symmetric : bool, default=False
        ``D0`` is a checked kernel, whose rows then stand in for its columns (contiguous).
    """

    name = "projection"

    def __init__(self, D0: np.ndarray, track: Mapping[str, ArrayLike] | None = None, symmetric: bool = False) -> None:
        self.K0 = D0
        self.rows, self.m = D0.shape
        # a checked kernel: its rows are its columns, read contiguously, and D0' q = D0 q
        self.symmetric = bool(symmetric) and self.rows == self.m
        self.s0 = _column_sq_norms(D0)
        self.s = self.s0.copy()
        self.threshold = ELIGIBILITY_RTOL * max(float(self.s0.max()), 0.0)
        self.Q = _Columns(self.rows)
        self.W = _Columns(self.m)  # W = D_0' Q
        self._tracked = {}
        for key, v in (track or {}).items():
            v = np.asarray(v, dtype=float)
            self._tracked[key] = [v.copy(), D0.T @ v]
        self._s_ref = float(self.s0.max())
        self.last_q: np.ndarray | None = None
        self.last_w: np.ndarray | None = None

    rank = property(lambda self: self.Q.size)

    def residual_size(self) -> np.ndarray:
        return self.s

    def column_sq_norms(self) -> np.ndarray:
        return self.s

    def original_column_sq_norms(self) -> np.ndarray:
        """The squared norms of the original columns ``||D_0[:, i]||^2``.

        Returns
        -------
        ndarray of shape (n,)
            One per column.
        """
        return self.s0

    def column(self, i: int) -> np.ndarray:
        """Column ``i`` of the current deflated dictionary, O(m r).

        Parameters
        ----------
        i : int
            The column.

        Returns
        -------
        ndarray of shape (m,)
            ``K_j[:, i]``.
        """
        return np.asarray((self.K0[i] if self.symmetric else self.K0[:, i]) - self.Q.view @ self.W.view[i, :])

    def projected(self, key: str) -> np.ndarray:
        """``P_j v`` for a tracked vector: the residual of v after the chosen columns.

        Parameters
        ----------
        key : str
            The name the vector was tracked under.

        Returns
        -------
        ndarray of shape (m,)
            The projected vector.
        """
        return np.asarray(self._tracked[key][0])

    def columns_dot(self, key: str) -> np.ndarray:
        """``D_j' v = D_0' P_j v`` for a tracked vector.

        Parameters
        ----------
        key : str
            The name the vector was tracked under.

        Returns
        -------
        ndarray of shape (n,)
            The product with every deflated column.
        """
        return np.asarray(self._tracked[key][1])

    def basis(self) -> np.ndarray:
        """The orthonormal basis ``Q_j`` of the chosen columns' span.

        Returns
        -------
        ndarray of shape (m, r)
            One column per chosen column.
        """
        return self.Q.view

    def deflate(self, i: int) -> bool:
        v = self.column(i)
        if self.Q.size:
            Q = self.Q.view
            v = v - Q @ (Q.T @ v)  # a second Gram-Schmidt pass: near-dependent columns keep Q orthonormal
        norm2 = float(v @ v)
        if not norm2 > self.threshold:
            self.s[i] = norm2  # the downdated norm had drifted above the true one: correct it
            return False
        q = v / np.sqrt(norm2)
        w = self.K0 @ q if self.symmetric else self.K0.T @ q  # the one O(m^2) product
        self._apply(q, w, i)
        return True

    def _apply(self, q: np.ndarray, w: np.ndarray, i: int) -> None:
        self.s = np.maximum(self.s - w * w, 0.0)
        self.s[i] = 0.0
        for entry in self._tracked.values():
            c = q @ entry[0]
            entry[0] = entry[0] - c * q
            entry[1] = entry[1] - c * w
        self.Q.append(q)
        self.W.append(w)
        self.last_q, self.last_w = q, w
        self._maybe_refresh()

    def _maybe_refresh(self) -> None:
        level = float(self.s.max())
        if level < _REFRESH_FACTOR * self._s_ref:
            self.s = _column_sq_norms(self.K0 - self.Q.view @ self.W.view.T)
            self._s_ref = level

    def kernels(self) -> tuple[np.ndarray, ...]:
        return (self.K0,)

    def factors(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        return ((self.Q.view.copy(), self.W.view.copy()),)


class TwoViewProjection(KernelState):
    """The projection deflation applied to two views at the same chosen index.

    Tracks, for every candidate i, the squared norms of both deflated columns and their
    inner product ``<P_x Kx[:, i], P_y Ky[:, i]>`` (the SKCCA criterion's numerator,
    Hussain et al. 2011, Alg. 3 line 3) with one product per view per step.

    Parameters
    ----------
    Kx, Ky : ndarray of shape (m, m)
        The two views' checked kernels.
    """

    name = "projection"

    def __init__(self, Kx: np.ndarray, Ky: np.ndarray) -> None:
        self.x = ProjectionDeflation(Kx, symmetric=True)
        self.y = ProjectionDeflation(Ky, symmetric=True)
        self.m = Kx.shape[1]
        self.cross = np.einsum("ij,ij->j", Kx, Ky)
        self.threshold = ELIGIBILITY_RTOL

    rank = property(lambda self: self.x.rank)

    def residual_size(self) -> np.ndarray:
        """The smaller of the two views' squared column norms, relative to each view's largest.

        Returns
        -------
        ndarray of shape (m,)
            Zero everywhere when a view's kernel is zero.
        """
        top_x, top_y = self.x.s0.max(), self.y.s0.max()
        if top_x <= 0 or top_y <= 0:  # a view's kernel is zero: nothing can be chosen
            return np.zeros(self.m)
        return np.asarray(np.minimum(self.x.s / top_x, self.y.s / top_y))

    def deflate(self, i: int) -> bool:
        vx, vy = self.x.column(i), self.y.column(i)
        nx, ny = float(vx @ vx), float(vy @ vy)
        if not (nx > self.x.threshold and ny > self.y.threshold):
            return False
        qx, qy = vx / np.sqrt(nx), vy / np.sqrt(ny)
        qy_in_x = qy - self.x.Q.view @ (self.x.Q.view.T @ qy)  # P_x q_y (before adding q_x)
        qx_in_y = qx - self.y.Q.view @ (self.y.Q.view.T @ qx)  # P_y q_x (before adding q_y)
        # K' [u v] with K read once (kernels are symmetric): the step's only O(m^2) work
        ax, by = symmetric_products(self.x.K0, [qx, qy_in_x])
        ay, bx = symmetric_products(self.y.K0, [qy, qx_in_y])
        self.cross = self.cross - ax * bx - ay * by + ax * ay * (qx @ qy)
        self.cross[i] = 0.0
        refresh_due = [view._s_ref for view in (self.x, self.y)]
        self.x._apply(qx, ax, i)
        self.y._apply(qy, ay, i)
        if [view._s_ref for view in (self.x, self.y)] != refresh_due:
            Dx = self.x.K0 - self.x.Q.view @ self.x.W.view.T
            Dy = self.y.K0 - self.y.Q.view @ self.y.W.view.T
            self.cross = np.einsum("ij,ij->j", Dx, Dy)
        return True

    def kernels(self) -> tuple[np.ndarray, ...]:
        return (self.x.K0, self.y.K0)

    def factors(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        return self.x.factors() + self.y.factors()


# --- explicit deflations (Diethe 2015, section 3.3.2) -------------------------------------
#
# Each rule receives the current matrix K and the unit vector tau = K[:, i] / ||K[:, i]||
# and returns the rank-one terms (a, b) with K_new = K - sum a b'.  Returning the terms
# rather than the matrix lets the path rebuild any intermediate kernel later.  K is an
# array, or the low-rank state's operator (products with it, never its entries).

Matrix = Union[np.ndarray, "_Operator"]
Terms = list[tuple[np.ndarray, np.ndarray]]


def _hotelling(K: Matrix, v: np.ndarray) -> Terms:
    """``K - (v' K v) v v'`` (eq. 15)."""
    return [((v @ K @ v) * v, v)]


def _projection(K: Matrix, v: np.ndarray) -> Terms:
    """``(I - v v') K`` (eq. 16)."""
    return [(v, K.T @ v)]


def _schur(K: Matrix, v: np.ndarray) -> Terms:
    """``K - K v v' K / (v' K v)`` (eq. 17); no-op when ``v' K v`` vanishes."""
    Kv, vK = K @ v, K.T @ v
    denominator = v @ Kv
    scale = K.scale if isinstance(K, _Operator) else np.abs(K).max()
    if not abs(denominator) > 1e-12 * max(scale, 1e-300):
        return []
    return [(Kv / denominator, vK)]


def _two_sided_projection(K: Matrix, v: np.ndarray) -> Terms:
    """``(I - v v') K (I - v v')`` (Mackey's orthogonalised projection, with v = q)."""
    Kv, vK = K @ v, K.T @ v
    return [(v, vK), (Kv - (v @ Kv) * v, v)]


_RULES: dict[str, Callable[[Matrix, np.ndarray], Terms]] = {
    "none": lambda K, v: [],
    "hotelling": _hotelling,
    "projection": _projection,
    "schur": _schur,
    "ortho-hotelling": _hotelling,
    "ortho-projection": _two_sided_projection,
    "ortho-schur": _schur,
}


def _subtract_outer(K: np.ndarray, a: np.ndarray, b: np.ndarray, rows: int = 128) -> None:
    """``K -= a b'`` in place, a block of rows at a time (no m x m temporary).

    (SciPy's BLAS ``dger`` would be faster alone, but interleaving SciPy's and NumPy's
    OpenBLAS thread pools in one loop made the whole path slower on two cores.)
    """
    for start in range(0, K.shape[0], rows):
        K[start : start + rows] -= a[start : start + rows, None] * b


def _direction(state: ExplicitDeflation | LowRankDeflation, i: int, column: np.ndarray) -> np.ndarray | None:
    """The unit vector the rule deflates by when i is chosen: tau, the chosen column of the
    current kernel (``column``) or of K0 (``state.tau_from``), orthogonalised against the
    earlier q's for the ``ortho-*`` deflations (eq. 18; appended to ``state.Q``).  None
    when tau already lies in span(Q): nothing new to remove."""
    if state.tau_from == "original":
        column = state.K0[:, i]
    v = column / np.linalg.norm(column)
    if not state._orthogonalise:
        return np.asarray(v)
    Q = state.Q.view
    v = v - Q @ (Q.T @ v)
    norm = np.linalg.norm(v)
    if not norm > 1e-8:
        return None
    # A second Gram-Schmidt pass ("twice is enough": Giraud, Langou and Rozloznik 2005): one
    # pass leaves q off orthogonal to Q by about eps / norm, and with tau from K0 those errors
    # compound step after step until K_j is no longer (I - QQ')K(I - QQ').
    v = v - Q @ (Q.T @ v)
    v = v / np.linalg.norm(v)
    state.Q.append(v)
    return np.asarray(v)


class ExplicitDeflation(KernelState):
    """The full m x m deflated kernel, updated by one of :data:`DEFLATIONS`.

    With ``tau = K[:, i] / ||K[:, i]||`` (current K):

    - ``none``: K unchanged (greedy subset selection);
    - ``hotelling``: ``K - (tau' K tau) tau tau'`` (Diethe 2015, eq. 15);
    - ``projection``: ``(I - tau tau') K`` (eq. 16);
    - ``schur``: ``K - K tau tau' K / (tau' K tau)`` (eq. 17);
    - ``ortho-*``: first Gram-Schmidt ``q = (I - Q Q') tau / ||.||``, ``Q <- [Q q]``
      (eq. 18), then Hotelling (eq. 18), two-sided projection
      ``(I - q q') K (I - q q')``, or Schur (eq. 19) with q in place of tau.

    The paper's tables say "Ortho-projection" where its text defines orthogonalised
    Hotelling; both are offered.  One step costs O(m^2).

    ``tau_from``: ``"deflated"`` (default, sec. 3.2.4: tau is the chosen column of the
    current K) or ``"original"`` (the chosen column of K0).  It changes the picks of
    projection, Hotelling and ortho-projection, but never makes ortho-Schur differ from
    Schur: Schur steps by v_1..v_t give the block Schur complement
    ``K0 - K0 V (V' K0 V)^+ V' K0``, which depends only on span(V), and Gram-Schmidt keeps
    the span (Mackey 2009, Prop. 2.2, proved for sparse PCA; Diethe 2015, sec. 3.3.2 expects it
    to fail for MPKFDA, but the argument never uses what the vectors are).

    Parameters
    ----------
    K0 : ndarray of shape (m, m)
        A checked kernel matrix (copied: the copy is deflated in place).
    deflation : str, default="projection"
        A name of :data:`DEFLATIONS`.
    tau_from : {"deflated", "original"}, default="deflated"
        Where tau comes from (see above).
    """

    def __init__(self, K0: np.ndarray, deflation: str = "projection", tau_from: str = "deflated") -> None:
        check_choice(tau_from, TAU_SOURCES, "tau_from")
        self.name = deflation
        self.tau_from = tau_from
        self.K0 = K0
        self.K = np.array(K0, dtype=np.float64, order="C", copy=True)
        self.m = K0.shape[1]
        self._s = _column_sq_norms(self.K)
        self.threshold = ELIGIBILITY_RTOL * max(float(self._s.max()), 0.0)
        self._rule = _RULES[deflation]
        self._orthogonalise = deflation.startswith("ortho-")
        self.Q = _Columns(K0.shape[0])
        self.left = _Columns(K0.shape[0])
        self.right = _Columns(self.m)

    rank = property(lambda self: self.left.size)

    def residual_size(self) -> np.ndarray:
        return self._s

    def column_sq_norms(self) -> np.ndarray:
        return self._s

    def current(self) -> np.ndarray:
        """The current deflated kernel; do not modify.

        Returns
        -------
        ndarray of shape (m, m)
            ``K_j``.
        """
        return self.K

    def columns_dot(self, v: np.ndarray) -> np.ndarray:
        """``K_j' v``.

        Parameters
        ----------
        v : ndarray of shape (m,)
            Any vector.

        Returns
        -------
        ndarray of shape (m,)
            The product with every deflated column.
        """
        return np.asarray(self.K.T @ v)

    def deflate(self, i: int) -> bool:
        column = self.K[:, i]
        if not float(column @ column) > self.threshold:
            return False
        v = _direction(self, i, column)
        terms = [] if v is None else self._rule(self.K, v)
        for a, b in terms:
            _subtract_outer(self.K, a, b)
            self.left.append(a)
            self.right.append(b)
        if terms:
            self._s = _column_sq_norms(self.K)
        return True

    def kernels(self) -> tuple[np.ndarray, ...]:
        return (self.K0,)

    def factors(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        return ((self.left.view.copy(), self.right.view.copy()),)


class LowRankDeflation(KernelState):
    """The seven deflations of :class:`ExplicitDeflation` without a copy of K.

    ``K_j = K_0 - U_j V_j'``, one rank-one term ``a b'`` at a time.

    The same rules, picks and recorded factors as :class:`ExplicitDeflation`, but the
    deflated kernel is never formed.  It tracks, by rank-one updates:

    - the squared column norms ``||K_j[:, i]||^2`` (eligibility);
    - the ``weights``-weighted squared norms ``sum_r w_r K_j[r, i]^2``;
    - ``K_j' v`` for each vector ``v`` in ``track``.

    That is everything the Fisher criteria need (Diethe 2015, eq. 7: the numerator
    ``(K_j[:, i]' y)^2`` and the scatter ``K_j[:, i]' B K_j[:, i]`` with B diagonal minus
    two constant blocks).  Each term costs one product ``K_0' [a, w a]`` plus O(m r):
    one to two passes over K per step against the explicit matrix's five or six, and no
    m x m copy.  The tracked sums are recomputed exactly (O(m^2 r), rarely) when the
    norms have shrunk by ``_REFRESH_FACTOR``.

    Parameters
    ----------
    K0 : ndarray of shape (m, m)
        A checked kernel matrix (not copied, not modified).
    deflation : str, default="projection"
        A name of :data:`DEFLATIONS`.
    tau_from : {"deflated", "original"}, default="deflated"
        Where tau comes from (as :class:`ExplicitDeflation`).
    weights : ndarray of shape (m,) or None, default=None
        The row weights of :meth:`weighted_column_sq_norms` (the Fisher scatter's diagonal).
    track : dict of str to ndarray of shape (m,), default=None
        Vectors v whose products ``K_j' v`` are tracked (:meth:`columns_dot`).
    """

    def __init__(
        self,
        K0: np.ndarray,
        deflation: str = "projection",
        tau_from: str = "deflated",
        weights: ArrayLike | None = None,
        track: Mapping[str, ArrayLike] | None = None,
    ) -> None:
        check_choice(tau_from, TAU_SOURCES, "tau_from")
        self.name, self.tau_from, self.K0 = deflation, tau_from, K0
        self.m = K0.shape[1]
        self.weights = np.ones(self.m) if weights is None else np.asarray(weights, dtype=float)
        self._keys = list(track or {})
        vectors = np.column_stack([np.asarray(track[key], dtype=float) for key in self._keys]) if track else None
        self._vectors = vectors
        self._rule = _RULES[deflation]
        self._orthogonalise = deflation.startswith("ortho-")
        self.Q, self.left, self.right = _Columns(self.m), _Columns(self.m), _Columns(self.m)
        self.max_abs_entry: float | None = None  # the largest |entry| of K_0, once asked for
        self._pass: tuple[np.ndarray, np.ndarray | None] | None = None
        self._exact_sums()
        self.threshold = ELIGIBILITY_RTOL * max(float(self.s.max()), 0.0)

    rank = property(lambda self: self.left.size)

    def _exact_sums(self) -> None:
        """Norms, weighted norms and tracked products from ``K_0 - U V'``, a block of columns at a time."""
        m, U, V = self.m, self.left.view, self.right.view
        self.s, self.sw = np.empty(m), np.empty(m)
        for start in range(0, m, 256):
            block = self.K0[:, start : start + 256] - U @ V[start : start + 256].T
            self.s[start : start + 256] = _column_sq_norms(block)
            self.sw[start : start + 256] = np.einsum("i,ij,ij->j", self.weights, block, block)
        self.tracked: np.ndarray | None = None if self._vectors is None else self._KT(self._vectors)
        self._s_ref = float(self.s.max())

    def _K0(self, A: np.ndarray) -> np.ndarray:
        """``K_0 A`` for a vector or a block (m, p) of a few vectors, K_0 read once."""
        return self.K0 @ A if A.ndim == 1 else symmetric_products(self.K0, A.T).T

    def _K(self, A: np.ndarray) -> np.ndarray:
        """``K_j A`` for a vector or a block of vectors (m, p)."""
        cached = self._cached(A, transposed=False)
        return np.asarray(cached if cached is not None else self._K0(A) - self.left.view @ (self.right.view.T @ A))

    def _KT(self, A: np.ndarray) -> np.ndarray:
        """``K_j' A``."""
        cached = self._cached(A, transposed=True)
        return np.asarray(cached if cached is not None else self._K0(A) - self.right.view @ (self.left.view.T @ A))

    def residual_size(self) -> np.ndarray:
        return self.s

    def column_sq_norms(self) -> np.ndarray:
        return self.s

    def column(self, i: int) -> np.ndarray:
        """Column ``i`` of the current deflated kernel, O(m r).

        Read as row i of the symmetric K_0 (contiguous).

        Parameters
        ----------
        i : int
            The column.

        Returns
        -------
        ndarray of shape (m,)
            ``K_j[:, i]``.
        """
        return np.asarray(self.K0[i] - self.left.view @ self.right.view[i])

    def columns_dot(self, key: str) -> np.ndarray:
        if self.tracked is None:
            raise KeyError(f"no vector is tracked under {key!r}")
        return self.tracked[:, self._keys.index(key)]

    def weighted_column_sq_norms(self) -> np.ndarray:
        """The ``weights``-weighted squared norms ``sum_r w_r K_j[r, i]^2``.

        Returns
        -------
        ndarray of shape (m,)
            One per column.
        """
        return self.sw

    def diag(self) -> np.ndarray:
        """``diag(K_j)``, O(m r).

        Returns
        -------
        ndarray of shape (m,)
            The diagonal of the deflated kernel.
        """
        return np.asarray(np.diag(self.K0) - np.einsum("ij,ij->i", self.left.view, self.right.view))

    def current(self) -> np.ndarray:
        """The deflated kernel, formed on request (the lab's facts; O(m^2 r)).

        Returns
        -------
        ndarray of shape (m, m)
            ``K_0 - U V'``.
        """
        return np.asarray(self.K0 - self.left.view @ self.right.view.T)

    def deflate(self, i: int) -> bool:
        column = self.column(i)
        if not float(column @ column) > self.threshold:
            return False
        v = _direction(self, i, column)
        if v is None:
            return True
        # one pass over K0 gives K_j v, K_j' v and K_j' (w v): all that projection and
        # Hotelling need, and the first half of Schur and the two-sided projection
        self._pass = (v, None)  # filled on first use: "none" never needs it
        for number, (a, b) in enumerate(self._rule(_Operator(self), v)):
            self._apply(a, b, reuse=number == 0)
        self._pass = None
        if float(self.s.max()) < _REFRESH_FACTOR * self._s_ref:
            self._exact_sums()
        return True

    def _step_pass(self) -> np.ndarray:
        """``K_0 [v, w v]`` for this step's v, computed once, K_0 read once."""
        assert self._pass is not None  # (a step's pass is set while the step runs)
        v, P = self._pass
        if P is None:
            P = symmetric_products(self.K0, [v, self.weights * v]).T
            self._pass = (v, P)
        return P

    def _cached(self, vector: np.ndarray, transposed: bool) -> np.ndarray | None:
        """``K_j v`` or ``K_j' v`` from this step's pass when ``vector`` is its v, else None."""
        if self._pass is None or vector is not self._pass[0]:
            return None
        v, P = self._pass[0], self._step_pass()
        U, V = self.left.view, self.right.view
        return np.asarray(P[:, 0] - (V @ (U.T @ v) if transposed else U @ (V.T @ v)))

    def _apply(self, a: np.ndarray, b: np.ndarray, reuse: bool = False) -> None:
        """``K_{j+1} = K_j - a b'``: update the tracked sums, then record the term.
        ``reuse``: a is a multiple of this step's v and nothing was removed yet, so
        ``K_j' [a, w a]`` comes from the step's pass instead of a new one."""
        v = None if self._pass is None else self._pass[0]
        alpha = float(a @ v) if (reuse and v is not None) else 0.0
        if reuse and v is not None and np.allclose(a, alpha * v, rtol=0.0, atol=1e-14 * max(abs(alpha), 1e-300)):
            U, V = self.left.view, self.right.view
            P = self._step_pass()
            KTa = alpha * (P[:, 0] - V @ (U.T @ v))
            KTwa = alpha * (P[:, 1] - V @ (U.T @ (self.weights * v)))
        else:
            KTa, KTwa = self._KT(np.column_stack([a, self.weights * a])).T
        self.s = np.maximum(self.s - 2.0 * b * KTa + b * b * (a @ a), 0.0)
        self.sw = np.maximum(self.sw - 2.0 * b * KTwa + b * b * (a @ (self.weights * a)), 0.0)
        if self.tracked is not None:
            self.tracked = self.tracked - np.outer(b, a @ self._vectors)
        self.left.append(a)
        self.right.append(b)

    def kernels(self) -> tuple[np.ndarray, ...]:
        return (self.K0,)

    def factors(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        return ((self.left.view.copy(), self.right.view.copy()),)


class _Operator:
    """The current ``K_j`` as the rules see it: ``K @ v``, ``K.T @ v`` and ``v @ K @ v``
    through the low-rank form (the rules of :data:`_RULES` use only these)."""

    __array_ufunc__ = None  # so ``v @ K`` reaches __rmatmul__ instead of NumPy

    def __init__(self, state: LowRankDeflation) -> None:
        self._state = state

    @property
    def scale(self) -> float:
        """The largest |entry| of K_0 (the explicit rule uses the current K's; only the
        no-op test of a vanishing Schur denominator reads it)."""
        state = self._state
        if state.max_abs_entry is None:
            state.max_abs_entry = max(float(state.K0.max()), -float(state.K0.min()))
        return state.max_abs_entry

    def __matmul__(self, v: np.ndarray) -> np.ndarray:
        return self._state._K(v)

    @property
    def T(self) -> _Transposed:
        return _Transposed(self._state)

    def __rmatmul__(self, v: np.ndarray) -> np.ndarray:  # v @ K = K' v
        return self._state._KT(v)


class _Transposed:
    def __init__(self, state: LowRankDeflation) -> None:
        self._state = state

    def __matmul__(self, v: np.ndarray) -> np.ndarray:
        return self._state._KT(v)
