"""A page's settings as a value: the data, the kernel, the study's own settings and how it
is drawn, read from an address (:class:`Address`) with the same controls the page's
widgets draw (:class:`views.controls.Control`, each stated once).  No Streamlit.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import numpy as np

from mpcore import datasets
from mpcore.datasets import REGISTRY
from views.controls import Control, format_value, literal, one_name, read

UPLOAD_PREFIX = "upload: "
AUTO_GAMMA = "auto (median)"
GAMMAS = (AUTO_GAMMA, "1/d", *"0.001 0.003 0.01 0.03 0.05 0.1 0.3 0.5 1 2 3 5 10 30 100".split())
KERNEL_NAMES = {"rbf": "Gaussian (RBF)", "laplacian": "Laplacian", "poly": "polynomial", "linear": "linear"}
DELTAS = (0.01, 0.05, 0.1, 0.2)
TEXT_SIZES = (100, 125, 150)
PRESENT = Control("present", False, bool)  # how a view is shown: presenter mode, text size
TEXT = Control("text", 100, int, options=TEXT_SIZES)
RESCALES = (1.0, 0.2, 0.1)

POINTS = Control(
    "points",
    500,
    int,
    lo=20,
    hi=3000,
    widget="slider",
    label="Points (before the split)",
    scope="shared",
    step=10,
    help="How many points to use in all (a seeded subsample of larger datasets; the number "
    "generated for synthetic ones). Time grows with the square of this.",
)
TEST = Control(
    "test",
    0.3,
    float,
    lo=0.1,
    hi=0.5,
    widget="slider",
    label="Test fraction",
    scope="shared",
    step=0.05,
    help="Share of the points held out to measure test error; the rest train.",
)
SEED = Control(
    "seed",
    0,
    int,
    lo=0,
    hi=9999,
    widget="number_input",
    label="Data seed",
    scope="shared",
    step=1,
    help="Seeds the generator, the subsample and the train/test split. Same seed, same data.",
)
STANDARDIZE = Control(
    "std",
    True,
    bool,
    widget="toggle",
    label="Standardise features",
    scope="shared",
    help="Scale each feature to mean 0 and variance 1 using the training part only.",
)
KERNEL = Control("kernel", "rbf", str, options=("rbf", "laplacian", "poly", "linear"))
DEGREE = Control("degree", 3, int, lo=1, hi=6, widget="slider", label="Degree", help="Degree of the polynomial kernel.")
DELTA = Control(
    "delta",
    0.05,
    float,
    options=DELTAS,
    widget="select_slider",
    label="Confidence delta",
    group="bounds",
    help="The bounds hold with probability at least 1 - delta over the draw of the training set.",
)
OWN_SCALE = Control(
    "ownscale",
    False,
    bool,
    widget="toggle",
    label="Heatmap: scale K_j to itself",
    group="bounds",
    help="Off: both heatmaps share the original kernel's colour scale, so you see how much "
    "deflation removed. On: the deflated kernel gets its own scale, so you see the "
    "structure of what is left.",
)
RESCALE = Control(
    "rescale",
    1.0,
    float,
    options=RESCALES,
    widget="select_slider",
    label="Also draw the bounds rescaled",
    group="bounds",
    names=tuple((v, "no" if v == 1 else f"× 1/{round(1 / v)}") for v in RESCALES),
    help="Adds each bound multiplied by this factor as a dotted curve named with the factor, to "
    "compare its shape with the test error when the bound itself is above 1 (the paper "
    "drew its KMP and SKCCA bounds × 1/5). The bound itself is always drawn too.",
)


def log_axis(default=False, group="bounds"):
    """The study pages' log-scale bound axis (on by default where bounds span decades)."""
    return Control(
        "log",
        default,
        bool,
        widget="toggle",
        label="Log-scale bound axis",
        group=group,
        help="A log y axis shows bounds far above 1 next to small test errors.",
    )


def k_control(m, default=40, hi=150):
    """Number of basis vectors k: at most min(hi, m - 1); None when the data leave no choice (k = 1)."""
    top = max(1, min(hi, m - 1))
    if top <= 1:
        return None
    return Control(
        "k",
        min(default, top),
        int,
        lo=1,
        hi=top,
        widget="slider",
        label="Basis vectors k",
        help="How many points the greedy selection chooses (the sparsity). "
        + (f"At most m - 1 = {m - 1} here." if m - 1 < hi else f"At most {hi} here (and never above m - 1)."),
    )


# A registry dataset's generator options that get a widget: (option, its control), the
# control's default and allowed values taken from the dataset (dataset_controls).
GENERATOR_OPTIONS = (
    (
        "noise",
        Control(
            "noise",
            0.0,
            float,
            lo=0.0,
            hi=1.0,
            widget="slider",
            label="Noise",
            step=0.01,
            help="Standard deviation of the noise the generator adds.",
        ),
    ),
    (
        "spread",
        Control(
            "spread",
            1.0,
            float,
            lo=0.2,
            hi=5.0,
            widget="slider",
            label="Blob spread",
            step=0.1,
            help="Standard deviation of each blob.",
        ),
    ),
    (
        "positive_class",
        Control(
            "positive", 1, int, widget="selectbox", label="Positive class", help="This class against all the others."
        ),
    ),
)


def dataset_controls(name):
    """The generator options of registry dataset ``name`` as controls: ``[(option, control)]``
    (their values are remembered per dataset)."""
    if name.startswith(UPLOAD_PREFIX):
        return []
    info, out = REGISTRY[name], []
    for option, control in GENERATOR_OPTIONS:
        if option in info.options:
            allowed = {"options": tuple(info.choices[option])} if option in info.choices else {}
            out.append((option, replace(control, default=control.kind(info.options[option]), scope=name, **allowed)))
    return out


@functools.lru_cache(maxsize=32)
def registry_dataset(name, options):
    """A registry dataset with its generator ``options`` (sorted pairs), loaded once per
    process and read-only, so no caller can change what the others see."""
    dataset = datasets.load_dataset(name, **dict(options))
    for array in (dataset.X, dataset.y, dataset.Y):
        if isinstance(array, np.ndarray):
            array.flags.writeable = False
    return dataset


@dataclass(frozen=True)
class DataChoice:
    """Everything that decides the training and test data (hashable: a cache key).  An
    upload's dataset travels with it (``upload``), not compared: its name holds its hash."""

    name: str
    options: tuple
    test: float
    seed: int
    standardize: bool
    points: int
    upload: object = field(default=None, compare=False, repr=False)

    def dataset(self):
        if self.name.startswith(UPLOAD_PREFIX):
            if self.upload is None:
                raise ValueError("an uploaded dataset lives in the browser session that uploaded it")
            return self.upload
        return registry_dataset(self.name, self.options)

    def train_size(self):
        """m, the number of training points the split will have."""
        return datasets.train_size(self.dataset().n_samples, self.test, self.points)

    def split(self):
        data = self.dataset()
        subsample = self.points if data.n_samples > self.points else None
        return datasets.prepare(
            data, test_size=self.test, seed=self.seed, standardize=self.standardize, subsample=subsample
        )


def data_choice(name, generator, test, seed, standardize, points, upload=None):
    """The :class:`DataChoice` of these settings (``generator``: the dataset's options, as
    pairs; a generator that takes a size gets ``points``)."""
    if name.startswith(UPLOAD_PREFIX):
        generator = ()
    elif "n_samples" in REGISTRY[name].options:
        generator = tuple(sorted({**dict(generator), "n_samples": int(points)}.items()))
    return DataChoice(name, tuple(generator), float(test), int(seed), bool(standardize), int(points), upload)


@dataclass(frozen=True)
class KernelChoice:
    """The kernel settings of a page (hashable: a cache key); ``gamma=None`` means 1/d,
    ``"median"`` the median heuristic on the training inputs."""

    kernel: str
    gamma: float | str | None
    degree: int


def kernel_controls(page_default="rbf", gamma=AUTO_GAMMA):
    """The kernel's controls on a page: kind, width, polynomial degree."""
    kind = Control(
        "kernel",
        page_default,
        str,
        options=KERNEL.options,
        widget="selectbox",
        label="Kernel",
        names=tuple(KERNEL_NAMES.items()),
        help="k(x, z): Gaussian exp(-gamma ||x-z||^2), Laplacian exp(-gamma ||x-z||_1), "
        "polynomial (gamma <x,z> + 1)^degree, or linear <x,z>.",
    )
    width = Control(
        "gamma",
        gamma,
        str,
        options=GAMMAS,
        widget="selectbox",
        label="gamma (inverse squared width)",
        help="Larger gamma = narrower kernel = more local basis functions. 'auto (median)': the "
        "median heuristic, width = the median distance between two training points "
        "(Gaussian: gamma = 1 / (2 median²); Laplacian: 1 / median L1 distance), tuned "
        "again whenever the dataset changes. '1/d': scikit-learn's default.",
    )
    return kind, width, DEGREE


def kernel_choice(kind, gamma_text, degree):
    """The :class:`KernelChoice` of a kernel's widgets' values."""
    gamma = None
    if kind != "linear":
        gamma = {AUTO_GAMMA: "median", "1/d": None}.get(gamma_text, gamma_text)
        gamma = gamma if gamma in (None, "median") else float(gamma)
    return KernelChoice(kind, gamma, int(degree) if kind == "poly" else 3)


class Address:
    """An address's query read as a browser new to the app reads it: each control's value
    from the query (parsed and clamped, with a note when the link asked for something else)
    or its default.  :meth:`query` is the address the page then writes."""

    def __init__(self, query):
        self.given = {str(key): str(value) for key, value in dict(query).items()}
        self.values = {}  # name -> (value, default), in the order read
        self.asked = {}  # name -> the control read by that name
        self.pinned = set()
        self.notes = []
        self.said = []  # the sentences beside the controls (a setting the data leave no choice about), in order
        self.guided = None  # a guided lesson's scene the address opens: (lesson, its key, scene number)

    def get(self, control):
        """The value of ``control`` (read once per name, as a page reads its link once;
        ValueError when another control of the page has taken the name)."""
        one_name(self.asked, control)
        if control.name in self.values:
            return self.values[control.name][0]
        value = control.default
        if control.name in self.given:
            parsed, note = read(control, self.given[control.name])
            if note is not None:
                self.notes.append(note)
            if parsed is not None:
                value = parsed
        self.values[control.name] = (value, control.default)
        return value

    def fixed(self, text):
        """A setting the data leave no choice about (the page says why beside its widgets)."""
        self.said.append(text)

    def header(self, text):
        """A heading over the controls that follow (the page draws it)."""
        self.said.append(text)

    def controls(self):
        """What the page's sidebar shows for this address besides the values: each control
        read, in order, and the sentences between them.  Two addresses with the same
        ``controls()`` draw the same widgets (the page may change one value in place)."""
        return tuple(self.asked.values()), tuple(self.said)

    def reserve(self, place):
        """A place for a control read later, above the ones that follow (the page keeps it)."""

    def remember(self, name, value, default):
        self.values[name] = (value, default)

    def query(self):
        """The query the page writes back: every value not at its default, and the pinned ones."""
        return {
            name: format_value(value)
            for name, (value, default) in self.values.items()
            if value != default or name in self.pinned
        }


def data_control(tasks, preset, names=None):
    """The dataset's control on a page of ``tasks`` whose default dataset is ``preset``
    (``names``: the datasets offered, the registry's of those tasks unless given)."""
    names = tuple(name for name, info in REGISTRY.items() if info.task in tasks) if names is None else tuple(names)
    return Control("data", preset, str, options=names)


def data_controls(tasks, preset):
    """Every control :func:`read_data` may read on such a page."""
    return (
        data_control(tasks, preset),
        SEED,
        *(control for _, control in GENERATOR_OPTIONS),
        POINTS,
        TEST,
        STANDARDIZE,
    )


def read_data(address, tasks, preset):
    """The :class:`DataChoice` an address opens on a page of ``tasks`` whose default dataset
    is ``preset`` (ValueError with the reason when the dataset cannot be loaded)."""
    name = address.get(data_control(tasks, preset))
    address.pinned.add("data")
    seed = address.get(SEED)
    generator = {option: address.get(control) for option, control in dataset_controls(name)}
    if "seed" in REGISTRY[name].options:
        generator["seed"] = int(seed)
    points = address.get(POINTS)
    test = address.get(TEST)
    standardize = address.get(STANDARDIZE)
    return data_choice(name, sorted(generator.items()), test, seed, standardize, points)


def read_kernel(address, default="rbf", gamma=AUTO_GAMMA):
    """The :class:`KernelChoice` an address sets on a page."""
    kind_control, width_control, degree_control = kernel_controls(default, gamma)
    kind = address.get(kind_control)
    text = address.get(width_control) if kind != "linear" else AUTO_GAMMA
    degree = address.get(degree_control) if kind == "poly" else 3
    return kernel_choice(kind, text, degree)


def read_k(address, m, default=40, hi=150):
    control = k_control(m, default, hi)
    if control is None:
        address.fixed(f"Basis vectors k = 1: with m = {m} training points there is no other choice.")
        return 1
    return int(address.get(control))


#: The address's parameters that are not a view's: the live class's own (``ui/live.py``) and
#: the step (the browser's own, in the address for a copied link).
NOT_THE_VIEW = ("class", "key", "step")


def view_address(url_path, query):
    """A view as a live class names it: the page's address and its ``query`` (a mapping of
    text), sorted, without the class's own parameters or the step."""
    from urllib.parse import urlencode

    kept = sorted((str(name), str(value)) for name, value in dict(query).items() if name not in NOT_THE_VIEW)
    return f"{url_path}?{urlencode(kept)}"


def step_of(text, n_steps):
    """``(step, note)``: the step an address's ``step`` text asks for, clamped to 0..n_steps,
    and the sentence saying what was shown instead (None when it is shown as asked)."""
    if text is None:
        return 0, None
    value = Control("step", 0, int, lo=0, hi=n_steps).parse(text)
    if value is None:
        return 0, f"The link's step {literal(text)} is not a number; showing step 0."
    if str(value) != str(text).strip():
        return int(value), (
            f"The link asks for step {literal(text)}; this run has steps 0 to {n_steps}, so it shows step {value}."
        )
    return int(value), None


#: The controls of how a study page with bounds draws them (:func:`bound_view`), with its log axis.
BOUND_VIEW = (OWN_SCALE, RESCALE)


def bound_view(address, log):
    """How a study page with bounds draws them: the heatmaps' shared scale, the ``log``
    axis (the page's own default) and the bounds' rescaled copies."""
    return {
        "shared_scale": not address.get(OWN_SCALE),
        "log_y": address.get(log),
        "rescale": rescale_factor(address.get(RESCALE)),
    }


def algorithm_seed(help_text):
    """The seed of a page's own randomness (separate from the data seed)."""
    return Control("aseed", 0, int, lo=0, hi=9999, widget="number_input", label="Algorithm seed", help=help_text)


def rescale_factor(value):
    """The rescale control's value as the bound panel takes it: None when off."""
    return None if value == 1 else float(value)


@dataclass(frozen=True)
class Settings:
    """A page's settings as one value: what a study computes from (``data``, ``kernel``,
    ``study``: the study function's keyword arguments) and how the page draws it
    (``view``), each a tuple of ``(name, value)`` pairs so that it can name a cached study."""

    page: str
    data: DataChoice | None  # None for a page without data (the bounds explorer)
    kernel: KernelChoice | None
    study: tuple
    view: tuple = ()

    @classmethod
    def of(cls, page, data, kernel, study, **view):
        return cls(page, data, kernel, tuple(sorted(study.items())), tuple(view.items()))

    @property
    def options(self):
        """The study's settings as keyword arguments."""
        return dict(self.study)

    def shown(self, name):
        """How the page draws it: the view's value ``name``."""
        return dict(self.view)[name]

    def key(self):
        """A hashable name for the study and how it is drawn (the payload's cache key)."""
        return (self.page, self.data, self.kernel, self.study, self.view)

    def study_key(self):
        """A hashable name for the study alone (however it is drawn)."""
        return (self.page, self.data, self.kernel, self.study)
