"""The app's pages, each declared once: its file, menu title and icon, address and own
name, and for a page with a step player its heading, its picture (``views/pictures/``), the
core function of its study, the numbers lessons may quote, its Copy-as-code printer and
its Home card.  Everything that lists pages reads this: the menu (``app.py``), the pages'
headings (:func:`ui.board.study_page`), the study computed (:func:`views.pictures.compute`),
Copy as code (:mod:`views.code`), the lessons' numbers (:mod:`views.lessons`), the export
(:mod:`views.export`) and Home's cards.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The numbers a scene may quote on a page that draws the bound and test-error curves.
CURVE_NUMBERS = (
    "m",
    "bound_min",
    "bound_argmin",
    "test_min",
    "test_argmin",
    "rank_corr",
    "end",
    "bound_end",
    "test_end",
)


@dataclass(frozen=True)
class Card:
    """A page's picture on Home: the study it shows (``data``, the kernel width ``gamma``,
    ``k``) at ``step``, and what it says.  The card's link opens the page on it."""

    data: str
    gamma: str
    k: int
    step: int
    text: str


@dataclass(frozen=True)
class Link:
    """A page's link on Home, under "Labs, theory and the papers": its tooltip and the line
    under it."""

    help: str
    caption: str


@dataclass(frozen=True)
class Page:
    file: str
    title: str  # in the menu and the tab
    icon: str
    url_path: str  # "" for Home
    key: str  # the page's own name (PageState)
    picture: str = ""  # the module of its picture (views/pictures/), for a page with a step player
    stem: str = ""  # the name of the files it saves (downloads, code), when not its address
    heading: str = ""  # the page's title on the page, when not its menu title
    controls: str = ""  # the heading over the page's own controls in the sidebar
    study: str = ""  # "module:function", the core function its study comes from
    printer: str = "study"  # what its Copy-as-code script prints (views.code.PRINTERS)
    numbers: tuple = ()  # the numbers a lesson's scene on it may quote
    card: Card | None = None  # its picture on Home
    link: Link | None = None  # its link on Home, for a page without a card

    @property
    def file_stem(self):
        return self.stem or self.url_path

    @property
    def shown_title(self):
        """The title the page shows above everything (its heading, else its menu title)."""
        return self.heading or self.title

    def study_function(self):
        """The core function of the page's study (imported when first asked for)."""
        import importlib

        module, function = self.study.split(":")
        return getattr(importlib.import_module(module), function)


# One flat list, in the order of the lessons: algorithms, then the labs, the theory and the
# papers.  (Streamlit draws sections as <div>s inside the menu's <ul>, which screen readers
# cannot read as a list: axe-core reports it as a serious violation.)
PAGES = (
    Page("app_pages/home.py", "Home", ":material/home:", "", "home"),
    Page("app_pages/lessons.py", "Guided lessons", ":material/school:", "lessons", "lessons"),
    Page(
        "app_pages/sparse_kpca.py",
        "Sparse KPCA",
        ":material/blur_on:",
        "sparse-kpca",
        "skpca",
        picture="views.pictures.skpca",
        heading="Sparse kernel PCA",
        controls="Sparse KPCA",
        study="mpcore.studies:skpca_study",
        numbers=(*CURVE_NUMBERS, "printed_argmin", "operator_argmin", "local_min"),
        card=Card(
            "rings",
            "2",
            20,
            6,
            "Criterion: variance explained, ‖K[:, i]‖² / K[i, i]. Deflation: Schur complement (pivoted "
            "Cholesky). Model: the subspace of the chosen points.",
        ),
    ),
    Page(
        "app_pages/kmp.py",
        "Kernel Matching Pursuit",
        ":material/show_chart:",
        "kmp",
        "kmp",
        picture="views.pictures.kmp",
        stem="kernel-matching-pursuit",
        heading="Kernel matching pursuit",
        controls="Matching pursuit",
        study="mpcore.studies:kmp_study",
        numbers=(*CURVE_NUMBERS, "variant"),
        card=Card(
            "sinc",
            "2",
            15,
            5,
            "Criterion: fit of the residual, |K[:, i]'y| / ‖K[:, i]‖. Deflation: project the chosen column "
            "out. Model: least squares on the chosen columns.",
        ),
    ),
    Page(
        "app_pages/sparse_kcca.py",
        "Sparse KCCA",
        ":material/compare_arrows:",
        "sparse-kcca",
        "skcca",
        picture="views.pictures.skcca",
        heading="Sparse kernel CCA",
        controls="Sparse KCCA",
        study="mpcore.studies:skcca_study",
        numbers=CURVE_NUMBERS,
        card=Card(
            "rings-two-view",
            "1/d",
            20,
            10,
            "Criterion: alignment of a point's columns in the two views. Deflation: in both views. "
            "Model: CCA on the chosen points.",
        ),
    ),
    Page(
        "app_pages/mpkfda.py",
        "Greedy Fisher (MPKFDA)",
        ":material/call_split:",
        "mpkfda",
        "mpkfda",
        picture="views.pictures.mpkfda",
        heading="Greedy kernel Fisher discriminant (MPKFDA)",
        controls="Greedy Fisher",
        study="mpcore.studies:mpkfda_study",
        numbers=(*CURVE_NUMBERS, "criterion", "deflation"),
        card=Card(
            "moons",
            "1/d",
            20,
            8,
            "Criterion: Fisher ratio of the column, (K[:, i]'y)² / (K[:, i]'B K[:, i]). Deflation: one of "
            "seven. Model: Fisher discriminant on the chosen points.",
        ),
    ),
    Page(
        "app_pages/deflation_lab.py",
        "Deflation lab",
        ":material/layers:",
        "deflation-lab",
        "deflation-lab",
        picture="views.pictures.deflation_lab",
        controls="Lab",
        study="mpcore.labs:compare_deflations",
        printer="deflations",
        link=Link(
            "One criterion, seven ways to deflate, side by side: which keep K positive semi-definite, "
            "which wipe out the chosen column, and what it does to the test error.",
            "Seven deflations side by side, with what stays PSD and the criterion × deflation table.",
        ),
        numbers=(
            "m",
            "n_steps",
            "first_difference",
            "shared_picks",
            "best",
            "best_error",
            "indefinite",
            "n_indefinite",
        ),
    ),
    Page(
        "app_pages/column_lab.py",
        "Nyström & column selection",
        ":material/view_column:",
        "column-selection",
        "column-lab",
        picture="views.pictures.column_lab",
        controls="Columns",
        study="mpcore.labs:column_selection",
        printer="columns",
        link=Link(
            "Greedy, uniform and leverage-score columns for a Nyström approximation (Wang 2016, Fig. 1).",
            "Greedy vs uniform vs leverage-score columns: kernel error, KCCA accuracy, stability, speed-up.",
        ),
        numbers=(
            "m",
            "rank",
            "d_eff",
            "best",
            "trace_greedy",
            "trace_uniform",
            "trace_ridge_leverage",
            "trace_k_means",
            "speedup",
        ),
    ),
    # the bounds explorer draws formulas, not a study: its own computation; where the first
    # bound crosses 1 along the axis is what a scene may quote
    Page(
        "app_pages/bounds_explorer.py",
        "Bounds explorer",
        ":material/functions:",
        "bounds",
        "bounds",
        "views.pictures.bounds",
        numbers=("crossing", "crossing_step"),
        link=Link(
            "Every bound as a function of m, k, t and δ; no data needed.",
            "Every bound against m, k, t and δ: where it says something, and which is tighter.",
        ),
    ),
    Page(
        "app_pages/paper_figures.py",
        "Paper figures",
        ":material/menu_book:",
        "paper-figures",
        "paper-figures",
        link=Link(
            "The papers' figures and tables rerun on offline data, each with the paper's finding and what differs "
            "here.",
            "Each paper figure and table: the paper's claim, our rerun, and what differs.",
        ),
    ),
    Page("app_pages/references.py", "References", ":material/format_quote:", "references", "references"),
)
#: The pages with a step player, in the menu's order.
PLAYER_PAGES = tuple(page for page in PAGES if page.picture)


def problems(pages=PAGES):
    """What is wrong with a list of pages, as sentences (none for the app's own): a name or
    an address used twice, a picture that names another page, a study that cannot be
    imported, a printer ``views.code`` does not have, a card on a page without a picture."""
    import importlib

    from views.code import PRINTERS

    out = []
    for field in ("key", "url_path", "file"):
        values = [getattr(page, field) for page in pages]
        out += [f"two pages have the {field} {value!r}" for value in sorted(set(values)) if values.count(value) > 1]
    for page in pages:
        if page.picture and importlib.import_module(page.picture).PAGE != page.key:
            out.append(f"the picture of {page.key!r} ({page.picture}) names another page")
        if page.study:
            try:
                page.study_function()
            except (ImportError, AttributeError, ValueError) as error:
                out.append(f"the study of {page.key!r} ({page.study}) cannot be imported: {error}")
        if page.printer not in PRINTERS:
            out.append(f"{page.key!r} prints {page.printer!r}; Copy as code has {', '.join(PRINTERS)}")
        if (page.card or page.numbers or page.study) and not page.picture:
            out.append(f"{page.key!r} has a study, numbers or a card but no picture")
    return out


def by_key(key):
    """The page whose own name is ``key`` (ValueError with the names when there is none)."""
    for page in PAGES:
        if page.key == key:
            return page
    raise ValueError(f"no page is called {key!r}; the pages are {', '.join(p.key for p in PAGES)}")


def by_path(path):
    """The page at the address path ``path`` ("/kmp", "kmp/", "" for Home), also when it
    is given by its own name ("skpca") or file ("app_pages/kmp.py")."""
    name = path.strip().strip("/")
    for page in PAGES:
        if name in (page.url_path, page.key, page.file, page.file.rsplit("/", 1)[-1]):
            return page
    raise ValueError(
        f"no page has the address {path!r}; the addresses are {', '.join('/' + p.url_path for p in PAGES)}"
    )
