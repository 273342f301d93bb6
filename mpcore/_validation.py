"""Argument checks shared by every public function.

Each check raises ``ValueError`` with a sentence a student can act on; the app shows
the same sentence in an ``st.error`` box (bad input gets a sentence, never a traceback).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")

#: A candidate column is eligible while its residual size exceeds this fraction of the
#: largest initial residual size (the engine's eligibility rule).
ELIGIBILITY_RTOL = 1e-10


def as_real(value: Any, name: str, what: str = "an array of numbers") -> np.ndarray:
    """``value`` as a float64 array: None, text and objects are a TypeError, complex
    numbers and unreadable cells a ValueError -- each with a sentence."""
    if value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be {what}, not {type(value).__name__}.")
    if np.iscomplexobj(value):
        raise ValueError(f"{name} has complex entries; real numbers are needed.")
    try:
        return np.asarray(value, dtype=float)
    except ValueError:  # text in a cell (a ValueError saying so)
        raise ValueError(f"{name} must contain numbers only; some cells could not be read as numbers.") from None
    except (TypeError, OverflowError):
        raise TypeError(f"{name} must be {what}; some entries could not be read as numbers.") from None


def check_finite_matrix(A: Any, name: str = "K", *, square: bool = False, min_rows: int = 2) -> np.ndarray:
    """Return ``A`` as a 2-D float64 array, or raise a ValueError that says what is wrong."""
    A = as_real(A, name, "a matrix of numbers")
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got an array with {A.ndim} dimension(s).")
    if A.shape[0] < min_rows:
        raise ValueError(f"{name} has {A.shape[0]} row(s); at least {min_rows} are needed.")
    if square and A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be square (one row and one column per training point), got shape {A.shape}.")
    # One fast reduction first; the elementwise count only runs when something is wrong
    # (or when huge finite values overflow the sum).
    if not np.isfinite(A.sum()) and not np.all(np.isfinite(A)):
        bad = int(np.size(A) - np.count_nonzero(np.isfinite(A)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); remove or impute them first.")
    return np.asarray(A)


def check_kernel(K: Any, name: str = "K") -> np.ndarray:
    """A square, finite, real kernel matrix with at least two points."""
    return check_finite_matrix(K, name, square=True)


#: Relative tolerance of the kernel checks: asymmetry, a negative diagonal or a 2 x 2
#: minor below ``-SYMMETRY_RTOL * max|K|`` (or its square) means "not a kernel".
SYMMETRY_RTOL = 1e-8


def check_psd_kernel(
    K: Any, name: str = "K", full_check_max: int = 1500, n_pairs: int = 20_000, seed: int = 0
) -> np.ndarray:
    """A real, square, finite, symmetric matrix that is not clearly indefinite: what the
    selection paths need.  Cheap checks only (a full eigen-decomposition would cost more
    than a path):

    - symmetry: ``max |K - K'| <= 1e-8 max |K|``, exactly up to m = 1500, beyond that
      on ``n_pairs`` random entry pairs;
    - the diagonal: ``K[i, i] >= -1e-8 max |K|`` (a kernel's diagonal is a squared norm);
    - every 2 x 2 principal minor up to m = 1500, beyond that ``n_pairs`` random ones
      (seeded, so the same answer every time):
      ``K[i, i] K[j, j] - K[i, j]^2 >= -1e-8 max|K|^2`` (Cauchy-Schwarz in feature space).

    A matrix that passes can still be slightly indefinite (a kernel rounded to a few
    digits, or a deflated one); one that fails is certainly not a kernel.
    """
    K = check_kernel(K, name)
    m = K.shape[0]
    scale = max(float(K.max()), -float(K.min()), 1e-300)  # max |K| without an m x m temporary
    tol = SYMMETRY_RTOL * scale
    rng = np.random.default_rng(seed)
    if m <= full_check_max:
        gap = float(np.abs(K - K.T).max())
    else:
        i, j = rng.integers(0, m, size=(2, n_pairs))
        gap = float(np.abs(K[i, j] - K[j, i]).max())
    if gap > tol:
        raise ValueError(
            f"{name} is not symmetric (entries differ from their transposes by up to {gap:.3g}); "
            "a kernel matrix of the training points with themselves is."
        )
    diag = np.diag(K)
    if diag.min() < -tol:
        i = int(np.argmin(diag))
        raise ValueError(
            f"{name}[{i}, {i}] = {diag[i]:.3g} is negative; the diagonal of a kernel matrix holds "
            "squared norms, so it cannot be."
        )
    if m <= full_check_max:  # every pair
        minors = np.outer(diag, diag) - K**2
        row, column = np.unravel_index(int(np.argmin(minors)), minors.shape)
        worst, lowest = (int(row), int(column)), float(minors[row, column])
    else:
        i, j = rng.integers(0, m, size=(2, n_pairs))
        minors = diag[i] * diag[j] - K[i, j] ** 2
        at = int(np.argmin(minors))
        worst, lowest = (int(i[at]), int(j[at])), float(minors[at])
    if lowest < -SYMMETRY_RTOL * scale**2 - tol * scale:
        raise ValueError(
            f"{name} is not positive semi-definite: |{name}[{worst[0]}, {worst[1]}]| exceeds the "
            "geometric mean of the two diagonal entries, which no kernel allows."
        )
    return np.asarray(K)


def check_target(y: Any, m: int, name: str = "y") -> np.ndarray:
    """A finite 1-D target with one entry per training point."""
    y = as_real(y, name, "a column of numbers")
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"{name} must be a single column of values, got shape {y.shape}.")
    if y.shape[0] != m:
        raise ValueError(f"{name} has {y.shape[0]} entries but the kernel has {m} rows; they must match.")
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains NaN or infinite values; remove or impute them first.")
    return np.asarray(y)


def check_nonconstant(y: np.ndarray, name: str = "target") -> None:
    if np.ptp(y) == 0:
        raise ValueError(f"The {name} is constant (every value is {y[0]:g}); there is nothing to fit.")


def check_binary_labels(y: Any, name: str = "labels") -> tuple[np.ndarray, np.ndarray]:
    """Return labels mapped to -1/+1 and the two original classes (sorted)."""
    if y is None or isinstance(y, (str, bytes)) or np.iscomplexobj(y):
        raise TypeError(f"{name} must be a column of class labels.")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"{name} must be a single column, got shape {y.shape}.")
    try:
        classes = np.unique(y)
    except TypeError:
        raise TypeError(f"{name} must be a column of plain class labels (numbers or text), all of one kind.") from None
    shown = [value.item() if isinstance(value, np.generic) else value for value in classes[:5]]
    if classes.size == 1:
        raise ValueError(f"Only one class ({shown[0]!r}) is present; a Fisher discriminant needs two classes.")
    if classes.size != 2:
        raise ValueError(
            f"A Fisher discriminant needs exactly two classes, got {classes.size} "
            f"({', '.join(map(repr, shown))}{', ...' if classes.size > 5 else ''}); "
            "pick one class against the rest first."
        )
    return np.where(y == classes[1], 1.0, -1.0), classes


def check_indices(
    indices: Any, m: int, name: str = "indices", *, allow_empty: bool = False, unique: bool = True
) -> np.ndarray:
    """Column indices: whole numbers in ``0 .. m - 1`` (a 1-D list), each once."""
    if indices is None or isinstance(indices, (str, bytes)):
        raise TypeError(f"{name} must be a list of column numbers, not {type(indices).__name__}.")
    array = np.asarray(indices)
    if array.dtype == object or np.iscomplexobj(array):
        raise TypeError(f"{name} must be a list of whole column numbers.")
    array = array.ravel() if array.ndim == 0 else array
    if array.ndim != 1:
        raise ValueError(f"{name} must be a flat list of column numbers, got shape {array.shape}.")
    if array.size == 0:
        if allow_empty:
            return array.astype(int)
        raise ValueError(f"{name} is empty; at least one column is needed.")
    if array.dtype.kind == "f":
        if not np.all(np.isfinite(array)) or np.any(array != np.round(array)):
            raise ValueError(f"{name} must be whole column numbers.")
    elif array.dtype.kind not in "iu":
        raise TypeError(f"{name} must be whole column numbers.")
    if array.min() < 0 or array.max() >= m:
        raise ValueError(f"{name} must lie between 0 and {m - 1} (the kernel has {m} columns).")
    array = array.astype(int)
    if unique and np.unique(array).size != array.size:
        raise ValueError(f"{name} lists a column twice; each chosen column must be different.")
    return array


def check_n_steps(k: Any, m: int, name: str = "k") -> int:
    """Number of basis vectors: an integer with 1 <= k < m."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise ValueError(f"{name} (the number of basis vectors) must be a whole number, got {k!r}.")
    k = int(k)
    if k <= 0:
        raise ValueError(f"{name} (the number of basis vectors) must be at least 1, got {k}.")
    if k >= m:
        raise ValueError(
            f"{name} = {k} basis vectors is not sparse: it must be smaller than the number of training points ({m})."
        )
    return int(k)


def check_positive(value: Any, name: str, *, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number, got {value!r}.")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'non-negative' if allow_zero else 'positive'}, got {value!r}.")
    return float(value)


def check_choice(value: T, options: Iterable[object], name: str) -> T:
    if value not in options:
        raise ValueError(f"Unknown {name} {value!r}; choose one of: {', '.join(map(repr, options))}.")
    return value


def check_same_rows(A: np.ndarray, B: np.ndarray, names: tuple[str, str] = ("X", "Y")) -> None:
    if A.shape[0] != B.shape[0]:
        raise ValueError(
            f"The two views must describe the same points: {names[0]} has {A.shape[0]} rows, "
            f"{names[1]} has {B.shape[0]}."
        )


def available_memory() -> int | None:
    """Bytes of memory a new allocation can use now: Linux's ``MemAvailable``, else the
    machine's physical memory, else None (unknown: nothing is refused)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _gigabytes(n_bytes: float) -> str:
    return f"{n_bytes / 1e9:,.1f} GB" if n_bytes >= 1e8 else f"{n_bytes / 1e6:,.0f} MB"


class TooLargeError(ValueError, MemoryError):
    """Work refused before allocating, for want of memory: a ValueError (bad input gets a
    sentence, like every other refusal) and a MemoryError (what it would have become)."""


def check_memory(n_bytes: float, what: str, advice: str = "") -> None:
    """Refuse, with a sentence and before allocating, work that needs ``n_bytes`` of memory
    when the machine has less available (``what``: what would be built)."""
    free = available_memory()
    if free is not None and n_bytes > free:
        raise TooLargeError(
            f"{what} needs about {_gigabytes(n_bytes)} of memory and {_gigabytes(free)} is available."
            + (f" {advice}" if advice else "")
        )
