"""Choosing data and kernel: the sidebar's dataset picker (registry datasets, their
generator options, uploads kept per session), the kernel picker, the algorithm
controls the pages share, and the lesson presets (which view a page opens on, the
picker that shows the preset the view is on).

Every choice is a :class:`ui.state.Control`: in the URL, remembered across pages,
clamped when a link asks for too much.  Nothing here computes a study
(:mod:`ui.compute` does) or draws one (:mod:`ui.board`).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import threading
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import streamlit as st

from mpcore import datasets
from mpcore.datasets import REGISTRY
from ui import compute
from ui.state import PageState, class_params, format_value, literal, plain
from views.controls import one_name
from views.pictures.settings import (  # noqa: F401 - the names the pages and tests use
    AUTO_GAMMA,
    GAMMAS,
    KERNEL,
    KERNEL_NAMES,
    POINTS,
    SEED,
    STANDARDIZE,
    TEST,
    UPLOAD_PREFIX,
    DataChoice,
    KernelChoice,
    data_choice,
    data_control,
    dataset_controls,
    kernel_choice,
    kernel_controls,
)

MIN_TRAIN = 5  # fewer training points than this and no control built from the data would make sense


UPLOADS_KEPT = 3  # per session: an upload is one user's, and it lives in that user's session


def _upload_store():
    """This session's uploaded datasets by name (content hash inside), the newest
    ``UPLOADS_KEPT`` (oldest out): never shared with another user, never unbounded."""
    return st.session_state.setdefault("_upload_store", OrderedDict())


# A file this large is parsed in a worker process: parsing a large CSV holds the server's
# interpreter (every other student's page) for seconds; in a worker, the session waits and
# the others go on.  Smaller files parse faster here than a worker could answer.
IN_WORKER_BYTES = 256_000
# The longest a file may take to read in the worker (far more than the largest legal CSV
# takes): past it the worker is stopped, the student gets a sentence and the next upload a new worker.
WORKER_SECONDS = 60.0
_WORKER = None
_WORKER_LOCK = threading.Lock()


def _parse_in_worker(name, content):
    """:func:`mpcore.datasets.parse_upload` in the server's one parsing process (started on
    first use, with ``spawn``: never a fork of the server's threads); its sentences come
    back as the same ValueError."""
    global _WORKER
    with _WORKER_LOCK:
        if _WORKER is None:
            _WORKER = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        worker = _WORKER
    try:
        with compute.released():  # other pages run while the worker reads
            return worker.submit(datasets.parse_upload, name, content).result(timeout=WORKER_SECONDS)
    except BrokenProcessPool:  # the worker died (out of memory, killed): a new one next time
        _forget(worker)
        raise ValueError("The file could not be read as data.") from None
    except TimeoutError:
        _forget(worker, stop=True)
        raise ValueError(
            f"Reading the file took longer than {WORKER_SECONDS:g} s, so it was stopped; try a smaller file."
        ) from None


def _forget(worker, stop=False):
    """Let the next upload start a new worker; ``stop``: end this one's process now."""
    global _WORKER
    with _WORKER_LOCK:
        if _WORKER is worker:
            _WORKER = None
    if stop:
        for process in list(getattr(worker, "_processes", {}).values()):  # the pool has no public kill
            process.terminate()
        worker.shutdown(wait=False, cancel_futures=True)


def parse_upload(name, content):
    """The upload's table, parsed here or, when large, in the worker process."""
    if len(content) >= IN_WORKER_BYTES:
        return _parse_in_worker(name, content)
    return datasets.parse_upload(name, content)


def _parsed(uploaded):
    """The upload's table, parsed once per file and session (not on every rerun)."""
    content = uploaded.getvalue()
    digest = hashlib.sha256(content).hexdigest()
    cached = st.session_state.get("_upload_parsed")
    if cached is None or cached[0] != digest:
        try:
            with st.spinner("Reading the file..."):
                cached = (digest, parse_upload(uploaded.name, content), None)
        except (ValueError, TypeError) as error:
            cached = (digest, None, str(error))
        except Exception:  # anything else a hostile file provokes is still one sentence, never a traceback
            cached = (digest, None, "The file could not be read as data.")
        st.session_state["_upload_parsed"] = cached
    return cached[1], cached[2], content


def _refuse(uploaded, why):
    st.error(
        f"{literal(uploaded.name, 60)}: {plain(why)} The previous dataset is still in use.", icon=":material/error:"
    )


def first_task(table, tasks):
    """The task an upload opens on: two classes when its last column (the first target
    offered) has exactly two values, each in two rows at least (a split keeps both in
    training), and the page takes a binary task; else the page's first."""
    if "binary" in tasks and table.columns and table.two_values(table.columns[-1], each_at_least=2) is not None:
        return "binary"
    return tasks[0]


def target_sentence(table, target, task, tasks):
    """How the target column was read, and how to read it otherwise (None when there is
    nothing to say: a target of many values read as numbers)."""
    two = table.two_values(target)
    if two is None:
        return None
    values = f"{literal(two[0], 20)} and {literal(two[1], 20)}"
    if task == "binary":
        other = " Choose regression under Task to read them as numbers." if "regression" in tasks else ""
        return f"The target {literal(target, 40)} has two values, {values}: read as two classes.{other}"
    other = " Choose binary under Task to read them as two classes." if "binary" in tasks else ""
    return f"The target {literal(target, 40)} has two values, {values}: read as numbers, as chosen.{other}"


def _upload_section(state, tasks):
    """File uploader and its column choices; on success the upload becomes the dataset,
    on failure an error says why and the previous dataset stays."""
    with st.sidebar.expander("Upload your own data (CSV or .npz)", expanded=False):
        uploaded = st.file_uploader(
            "Data file",
            type=["csv", "txt", "npz"],
            key="upload_file",
            max_upload_size=max(1, datasets.LIMITS.file_bytes // 2**20),
            help="CSV: one row per point, a header row with column names is optional. .npz: arrays X (and y, Y). "
            f"Limits: {datasets.LIMITS.describe()}. Parsed as numbers only; nothing in the file is executed.",
        )
        if uploaded is None:
            return None
        table, why, content = _parsed(uploaded)
        if table is None:
            _refuse(uploaded, why)
            return None
        columns = list(table.columns)
        file_digest = hashlib.sha256(content).hexdigest()
        if st.session_state.get("_upload_task_for") != file_digest:  # a new file: its own first guess
            st.session_state["_upload_task_for"] = file_digest
            st.session_state["upload_task"] = first_task(table, tasks)
            st.session_state.pop("upload_target", None)
        task = st.selectbox("Task", tasks, key="upload_task", help="What the columns mean on this page.")
        target = second = None
        if task in ("regression", "binary"):
            target = st.selectbox(
                "Target column",
                columns,
                index=len(columns) - 1,
                key="upload_target",
                help="The value to predict; every other column is an input.",
            )
            said = target_sentence(table, target, task, tasks)
            if said:
                st.caption(said)
        if task == "two-view":
            second = st.multiselect(
                "Second-view columns",
                columns,
                default=columns[len(columns) // 2 :],
                key="upload_second",
                help="These columns form view Y; the rest form view X.",
            )
        digest = hashlib.sha256(content + repr((task, target, second)).encode()).hexdigest()[:10]
        name = f"{UPLOAD_PREFIX}{uploaded.name[:60]} [{digest}]"
        store = _upload_store()
        if name not in store:
            try:
                dataset = datasets.dataset_from_table(
                    table, task, target=target, second_view=second, name=uploaded.name[:60]
                )
            except (ValueError, TypeError) as error:
                _refuse(uploaded, str(error))
                return None
            if datasets.train_size(dataset.n_samples, 0.5, POINTS.hi) < MIN_TRAIN:
                _refuse(
                    uploaded,
                    f"It has {dataset.n_samples} rows; the app needs at least "
                    f"{2 * MIN_TRAIN} (a train/test split and a few steps).",
                )
                return None
            store[name] = dataset
            while len(store) > UPLOADS_KEPT:
                store.popitem(last=False)
        st.success(f"Loaded {literal(uploaded.name, 60)}: {plain(store[name].summary())}", icon=":material/check:")
        return name


def _title(name):
    if name.startswith(UPLOAD_PREFIX):
        return name[len(UPLOAD_PREFIX) :].rsplit(" [", 1)[0] + " (uploaded)"
    return REGISTRY[name].title


BOUND_SETTINGS = "Bound and display settings"  # the study pages' Seldom group of delta, axes, heatmap scale


class Seldom:
    """A sidebar group of settings a lecture seldom changes (the data's seed and split, the
    bounds' delta and axes), in an expander whose widgets are made only while it is open
    (opening it reruns the page, as the formulas do).  Each widget costs the server about a
    millisecond per run and the browser its drawing: a class opening a lesson at once ran
    twenty of them per page.  Closed, a setting keeps its value (from the link, the session
    or its default), the link still carries it, and a line under the group names the
    settings not at their default, so nothing set is out of sight."""

    def __init__(self, state: PageState, title, name):
        self.state, self.title = state, title
        self.box = st.sidebar.expander(
            title, icon=":material/tune:", key=f"seldom-{name}-{state.page}", on_change="rerun"
        )
        self.open = bool(self.box.open)
        self._changed = []
        self._note = None

    def draw(self, control):
        """:meth:`widget` for a control that says how it is drawn."""
        return self.widget(
            control.widget, control, control.label, scope=_scope(self.state, control), **widget_arguments(control)
        )

    def widget(self, kind, control, label, **kwargs):
        """``state.widget`` with the group's ``kind`` of widget (``"toggle"``, ``"slider"``...).
        Call a group's widgets one after another, with nothing drawn in the sidebar between:
        the line naming a closed group's changed settings is made at the first of them (no
        placeholder on every run: two elements of a page's 37), where the next sidebar
        element goes, right under the group."""
        value = self.state.widget(getattr(self.box, kind), control, label, shown=self.open, **kwargs)
        if not self.open and value != control.default:
            said = kwargs.get("format_func", _said)
            self._changed.append(f"{label} {said(value)}")
            if self._note is None:
                self._note = st.sidebar.empty()
            self._note.caption(plain(f"{self.title}: " + "; ".join(self._changed)))
        return value


def _said(value):
    return ("on" if value else "off") if isinstance(value, bool) else format_value(value)


def data_sidebar(state: PageState, tasks, preset):
    """The shared dataset picker (sidebar); returns a :class:`DataChoice`.

    The choice is remembered across pages: a page whose task does not fit the last
    dataset shows its own preset and leaves the remembered one alone.
    """
    sb = st.sidebar
    sb.header("Data")
    uploaded = _upload_section(state, tasks)
    session = st.session_state
    store = _upload_store()  # this session's uploads only, never another user's
    if uploaded is not None and session.get("_last_upload") != uploaded:
        session["_last_upload"] = uploaded
        session["data"] = uploaded
    names = [n for n, info in REGISTRY.items() if info.task in tasks]
    names += [n for n, upload in store.items() if upload.task in tasks]
    control = data_control(tasks, preset, names)
    name = state.widget(
        sb.selectbox,
        control,
        "Dataset",
        keep=True,
        widget_key=f"w:data:{state.page}",
        options=names,
        format_func=_title,
        help="Datasets that fit this page's task. Synthetic ones are generated from the data seed; "
        "the others are bundled with the app (see data/README.md).",
    )
    if name.startswith(UPLOAD_PREFIX):
        state.url.pop("data")  # an upload cannot travel in a link
        state.linkable = False  # (nor may its study be named to the next browser at this address)
    else:
        state.pin("data")  # a link without a dataset opens the page's first preset instead
    state.resolve(SEED)  # the generators need the seed before its widget is drawn
    generator = _dataset_options(state, name)
    points = draw(state, POINTS)
    more = Seldom(state, "More data settings", "data")
    test, seed, standardize = (more.draw(control) for control in (TEST, SEED, STANDARDIZE))
    if not name.startswith(UPLOAD_PREFIX) and "seed" in REGISTRY[name].options:
        generator = tuple(sorted({**dict(generator), "seed": int(seed)}.items()))
    upload = store.get(name) if name.startswith(UPLOAD_PREFIX) else None
    data = data_choice(name, generator, test, seed, standardize, points, upload)
    try:
        data.dataset()
    except (ValueError, KeyError) as error:
        st.error(f"Cannot load {literal(_title(name))}: {plain(error)}", icon=":material/error:")
        st.stop()
    state.data_slot = sb.empty()  # what the data are, said by the view (:func:`data_note`)
    return data


def data_note(state: PageState, data):
    """Under the data's controls: what the dataset is, and that it has fewer points than
    the size asked for, when it has.  Said by the page's view (``ui.board.study_page``),
    which a size or a noise changes in place."""
    slot = getattr(state, "data_slot", None)
    if slot is None:
        return
    loaded = data.dataset()
    box = slot.container()
    box.caption(plain(loaded.summary()) if data.name.startswith(UPLOAD_PREFIX) else loaded.summary())
    if loaded.n_samples < int(data.points):  # the slider is a cap: say what it means for these data
        box.caption(
            f"These data have {loaded.n_samples:,} points, fewer than {int(data.points):,}: all of them are used."
        )


def _dataset_options(state, name):
    """Generator options of a registry dataset (noise, class), one control each; their
    values are remembered per dataset."""
    return tuple(sorted((option, draw(state, control)) for option, control in dataset_controls(name)))


def kernel_sidebar(state: PageState, data=None, default="rbf", gamma=AUTO_GAMMA):
    """Kernel choice (sidebar): kind, gamma and polynomial degree; a :class:`KernelChoice`.
    Each page keeps its own kernel.  The width defaults to the median heuristic, which
    re-tunes itself to every dataset; a width the user picked stays when the dataset
    changes, one set by a preset or the default goes back to ``auto``."""
    sb = st.sidebar
    sb.header("Kernel")
    session = st.session_state
    kind_control, width_control, degree_control = kernel_controls(default, gamma)
    mine, seen = f"{state.page}:gamma-by-user", f"{state.page}:gamma-for"
    if data is not None:
        if session.get(seen, data.name) != data.name and not session.get(mine):
            session[f"{state.page}:gamma"] = AUTO_GAMMA
        session[seen] = data.name
    kind = draw(state, kind_control)
    text = AUTO_GAMMA
    if kind != "linear":
        text = draw(state, width_control, on_user_change=lambda: session.__setitem__(mine, True))
    degree = draw(state, degree_control) if kind == "poly" else 3
    return kernel_choice(kind, text, degree)


def widget_arguments(control):
    """The keyword arguments of ``control``'s widget: its help, range, step and options."""
    kwargs = {"help": control.help or None}
    if control.widget in ("slider", "number_input"):
        kwargs.update(min_value=control.lo, max_value=control.hi)
        if control.step is not None:
            kwargs["step"] = control.step
        if control.fmt:
            kwargs["format"] = control.fmt
    if control.options is not None and control.widget in ("selectbox", "select_slider", "multiselect", "radio"):
        kwargs["options"] = list(control.options)
    if control.widget == "radio":
        kwargs["horizontal"] = True
    if control.disabled:
        kwargs["disabled"] = True
    if control.names:
        kwargs["format_func"] = control.name_of
    return kwargs


def _scope(state, control):
    return {"shared": None, "page": state.page}.get(control.scope, control.scope)


def draw(state: PageState, control, where=None, **extra):
    """Draw ``control``'s widget in the sidebar (or ``where``) and return its value."""
    make = getattr(where or st.sidebar, control.widget)
    if control.widget_key:
        extra["widget_key"] = control.widget_key
    return state.widget(
        make, control, control.label, scope=_scope(state, control), **widget_arguments(control), **extra
    )


class Sidebar:
    """A page's controls as the page's picture reads them (:mod:`views.pictures`): ``get``
    draws the control's widget in the sidebar -- in its group, folded away, for the
    seldom-changed ones -- and returns its value, as :class:`views.pictures.settings.Address`
    returns a link's."""

    def __init__(self, state: PageState):
        self.state = state
        self._groups = {}
        self._places = {}
        self._asked = {}

    def get(self, control):
        one_name(self._asked, control)
        if control.group in self._places:
            return draw(self.state, control, where=self._places[control.group])
        if control.group:
            group = self._groups.get(control.group)
            if group is None:
                group = self._groups[control.group] = Seldom(self.state, BOUND_SETTINGS, control.group)
            return group.draw(control)
        return draw(self.state, control)

    def fixed(self, text):
        """Say why a setting has no widget (the data leave no choice)."""
        st.sidebar.caption(text)

    def header(self, text):
        st.sidebar.header(text)

    def reserve(self, place):
        """A container in the sidebar, here, for the controls of group ``place`` read later."""
        self._places[place] = st.sidebar.container()


SHARED_KEYS = ("data", "points", "test", "seed", "std")


DATA_PARAMS = ("data", "points", "noise", "spread", "positive")


def open_on_preset(state: PageState):
    """A first visit to the page opens on its first preset, under whatever the link sets
    (``?present=1&step=3`` still gets the preset's data); a link that names its dataset
    describes its own view and gets no preset, and a dataset the user already chose on
    another page is kept, with its own size, noise and width."""
    from views.presets import PRESETS

    session = st.session_state
    visited = f"{state.page}:visited"
    pending = session.get("_url_pending") or {}
    if state.entered and "data" not in pending and not session.get(visited) and state.page in PRESETS:
        params = dict(PRESETS[state.page][0].params)
        if "data" in session:  # keep the dataset chosen elsewhere, with its own size and width
            params = {key: value for key, value in params.items() if key not in DATA_PARAMS + ("gamma",)}
        session["_url_pending"] = {**params, **pending}  # what the link says wins
    session[visited] = True


def preset_picker(state: PageState):
    """Reserve the sidebar's place for the page's named lessons; :func:`player` fills it
    once every setting of the run is known (it shows the preset the view is on)."""
    from views.presets import PRESETS

    if PRESETS.get(state.page):
        st.sidebar.header("Lesson")
        state.preset_slot = st.sidebar.empty()


def current_preset(state: PageState):
    """The page's preset whose settings are exactly this view's (:func:`views.presets.matching`)."""
    from views.presets import matching

    return matching(state.page, state.url)


def fill_preset_picker(state: PageState, matched, lesson=""):
    """The preset picker, showing the preset the view is on (or "Custom settings");
    choosing one opens its view, as its link would."""
    from views.presets import PRESETS

    slot = getattr(state, "preset_slot", None)
    presets = PRESETS.get(state.page)
    if slot is None or not presets:
        return
    session = st.session_state
    names = [preset.name for preset in presets]
    key = f"w:{state.page}:preset"

    def apply():
        chosen = next(p for p in presets if p.name == session[key])
        for name in list(session):
            if (str(name).startswith(f"{state.page}:") and name != f"{state.page}:visited") or name in SHARED_KEYS:
                del session[name]
        session["_page"] = None  # the next run reads the URL again, as on opening a link
        keep = {name: st.query_params[name] for name in ("present", "text") if name in st.query_params}
        keep.update(class_params())
        st.query_params.from_dict({**chosen.params, **keep})
        st.rerun()  # the whole page: the picker sits in the page's view, whose own widgets rerun only it

    session[key] = matched.name if matched is not None else None
    box = slot.container()
    box.selectbox(
        "Preset",
        names,
        key=key,
        on_change=apply,
        placeholder="Custom settings: choose a preset...",
        help="Named views that each show one point about this algorithm and its bound; choosing one sets "
        "the data, kernel and settings (and the address bar, to share it). The board shows the "
        "preset's lesson above the story.",
    )
    if matched is not None:
        box.caption(lesson)
