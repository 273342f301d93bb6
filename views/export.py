"""Demos that travel: a study's step player saved as one HTML file that needs no server
and no network -- for a lecture-hall PC without Python, a slide deck's iframe, a course
site or a learning platform.

The file holds the same player (its modules, ``static/player/``, carried as text) and the same
payload the app sends to the browser (:func:`views.player.payload`), so it draws the same
panels in the same layouts, with the same keys, play / pause / speed, predict-the-next-pick
and narration.  Around it, a small page: the scenes (one study, or a page's presets as a
lesson: PageDown past a scene's last step opens the next), presenter mode, the text size,
the theme, the scene and step in the address's fragment (``#scene=2&step=5``) so a link
reopens them, and a line saying which settings and which version made it, with the
settings' address back into the app.

Size: Plotly.js is the player's own partial bundle (``static/plotly-player.min.js``:
the plotly package's version of plotly.js with only the traces the player draws, a third
of the full one), and it and each scene's payload are gzip-compressed and base64-encoded,
then inflated in the browser with ``DecompressionStream`` (sizes: the performance page).

From the app: a "Save" button on every page with a player (:func:`scene_from_page`,
:func:`lesson_of_page`).  From the command line -- each address opened by its page's
picture (:func:`views.pictures.open_address`), as a browser new to the app would get it, with
no app running (``python -m views.export`` in a clone)::

    mplab export "http://localhost:8501/kmp?data=sinc&gamma=3" --out sinc.html
    mplab export "kmp?data=sinc" --out sinc.html          # address without a host
    mplab export --presets kmp --out kmp-lesson.html      # a page's presets, one file
    mplab export --presets kmp --out-dir site/kmp         # one file per preset, and an index
"""

from __future__ import annotations

import argparse
import base64
import datetime
import functools
import gzip
import html
import json
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

from views import site
from views.player import STYLE, player_modules, used_modules

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
DEFAULT_APP_URL = "http://localhost:8501"  # where `make run` serves the app


@dataclass(frozen=True)
class Scene:
    """One study as the player shows it: ``payload`` (the player's JSON, with its step and
    lesson line), the ``page`` (its own name, :mod:`views.site`) and ``query`` (the settings,
    as in the app's address) that made it, and a ``name`` (the preset's, if any)."""

    page: str
    payload: str
    query: dict = field(default_factory=dict)
    name: str = ""

    def title(self):
        page = site.by_key(self.page).title
        return f"{page}: {self.name}" if self.name else page

    def address(self, app_url=DEFAULT_APP_URL):
        """The settings' address in the app at ``app_url`` (scheme, host and any base path)."""
        path = site.by_key(self.page).url_path
        query = urlencode(self.query)
        return f"{app_url.rstrip('/')}/{path}" + (f"?{query}" if query else "")


def version():
    """This project's version (``mpcore.__version__``)."""
    import mpcore

    return mpcore.__version__


def _packed(text):
    """``text`` gzip-compressed and base64-encoded (the browser inflates it)."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")


@functools.lru_cache(maxsize=2)
def _packed_plotly(path):
    return _packed(Path(path).read_text(encoding="utf-8"))


def packed_plotly():
    """The player's plotly.js bundle, packed (once per process)."""
    from views.player import PLOTLY_BUNDLE

    return _packed_plotly(str(PLOTLY_BUNDLE))


def _script_json(value):
    """JSON safe inside a <script> element: no "<" at all, so nothing in it can close the
    element or open another (JSON reads \\u003c back as "<")."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _text_size(payload):
    """The text size (100, 125, 150) the scene was shown at, where the file opens."""
    try:
        size = round(100 * float(json.loads(payload).get("text_scale", 1)))
    except (ValueError, TypeError, AttributeError):
        return 100
    return size if size in (100, 125, 150) else 100


def _safe_url(url):
    return url if urlsplit(url).scheme in ("http", "https") else ""


def _shared_studies(payloads):
    """Each scene's payload split into its study (kept once however many scenes show it: a
    guided lesson often steps through one study in several scenes) and its view (the step,
    display and narration :func:`views.player.with_step` appended).  Returns ``(studies,
    [(study index, view JSON text)])``; the browser merges them back."""
    studies, index, heads = [], {}, []
    for text in payloads:
        study, view = text, "{}"
        cut = text.rfind(',"step":')  # the view's first key (views.player._view); never unescaped inside a string
        if cut > 0 and text.endswith("}"):
            study, view = text[:cut] + "}", "{" + text[cut + 1 :]
        if study not in index:
            index[study] = len(studies)
            studies.append(study)
        heads.append((index[study], view))
    return studies, heads


def standalone(scenes, *, app_url=DEFAULT_APP_URL, title=None, made=None):
    """The HTML text of one self-contained page showing ``scenes`` (a list of
    :class:`Scene`) in the step player.  ``app_url``: where the app runs (for the
    settings' links back into it); ``made``: the date it was made (default: today)."""
    if not scenes:
        raise ValueError("nothing to export: no scene")
    made = made or datetime.date.today().isoformat()
    studies, heads = _shared_studies([scene.payload for scene in scenes])
    title = title or (scenes[0].title() if len(scenes) == 1 else f"{site.by_key(scenes[0].page).title}: a lesson")
    data = {
        "title": title,
        "heading": site.by_key(scenes[0].page).title if len(scenes) == 1 else title,
        "version": version(),
        "text": _text_size(scenes[0].payload),
        "made": made,
        "plotly": packed_plotly(),
        "scenes": [
            {
                "name": scene.name or scene.title(),
                "page": site.by_key(scene.page).title,
                "settings": ", ".join(f"{key}={value}" for key, value in scene.query.items()) or "the defaults",
                "url": _safe_url(scene.address(app_url)),
                "study": study,
                "view": view,
            }
            for scene, (study, view) in zip(scenes, heads)
        ],
        "studies": [_packed(text) for text in studies],
    }
    modules = player_modules()
    css = (HERE / "standalone.css").read_text(encoding="utf-8") + STYLE.read_text(encoding="utf-8")
    return PAGE.format(
        title=html.escape(title),
        heading=html.escape(data["heading"]),
        version=html.escape(data["version"]),
        css=css,
        data=_script_json(data),
        modules=_script_json({name: modules[name] for name in used_modules("standalone.js")}),
        script=modules["offline.js"],
    )


PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Matching Pursuit Lab {version}">
<title>{title}</title>
<style>
{css}
</style>
</head>
<body>
<header class="mx-bar">
  <h1 class="mx-title" id="mx-title">{heading}</h1>
  <nav class="mx-scenes" id="mx-scenes" aria-label="Scenes" hidden>
    <button type="button" class="mpl-btn" id="mx-prev" aria-label="Previous scene" title="Previous scene">&#9664;</button>
    <select class="mpl-select" id="mx-scene" aria-label="Scene" title="Scene (PageDown past the last step opens the next)"></select>
    <button type="button" class="mpl-btn" id="mx-next" aria-label="Next scene" title="Next scene">&#9654;</button>
  </nav>
  <label class="mpl-toggle" title="For a projector: the step's main charts on one screen"><input type="checkbox" class="mpl-check" id="mx-present"> Presenter mode</label>
  <div class="mx-sizes" role="group" aria-label="Text size" id="mx-sizes"></div>
  <label class="mpl-toggle" title="Dark background"><input type="checkbox" class="mpl-check" id="mx-dark"> Dark</label>
</header>
<main><div class="mpl-root" id="mx-player"><p class="mx-loading" id="mx-loading">Loading the charts&hellip;</p></div></main>
<footer class="mx-made" id="mx-made"></footer>
<noscript><p>This demo needs JavaScript.</p></noscript>
<script type="application/json" id="mx-data">{data}</script>
<script type="application/json" id="mx-modules">{modules}</script>
<script type="module">
{script}
</script>
</body>
</html>
"""


# --- making scenes: from a running page, or from an address ---------------------------------


def scene_from_page(state, payload_text, name=""):
    """The scene a page shows now (called by :func:`ui.board.player`)."""
    return Scene(page=state.page, payload=payload_text, query=dict(state.query()), name=name)


def file_stem(scene, page_key=None):
    """A file name (without ".html") for a scene, or for a page's lesson."""
    page = site.by_key(scene.page if scene is not None else page_key)
    name = page.url_path + (f"-{scene.name}" if scene is not None and scene.name else "")
    return _slug(name)


def lesson_stem(key, lesson):
    """A file name (without ".html") for a guided lesson: a shipped lesson's name
    ("2-kmp"), else its title's words ("kernel-matching-pursuit-and-when-to-stop")."""
    from views import lessons

    return _slug(key if key in lessons.shipped() else lesson.title)[:60].strip("-") or "lesson"


def app_base(url, page_key):
    """The app's address (scheme, host, base path) from a page's full address."""
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https"):
        return DEFAULT_APP_URL
    path = parts.path.rstrip("/")
    own = site.by_key(page_key).url_path
    if own and path.endswith("/" + own):
        path = path[: -len(own) - 1]
    return f"{parts.scheme}://{parts.netloc}{path}"


def parse_target(target):
    """``(page, query, app_url)`` from an app address ("http://host:8501/kmp?data=sinc"),
    an address without a host ("kmp?data=sinc", "/kmp?data=sinc") or a page's name.
    ValueError with a sentence for anything else."""
    text = str(target).strip()
    if not text:
        raise ValueError('give an app address, such as "http://localhost:8501/kmp?data=sinc"')
    parts = urlsplit(text)
    if parts.scheme and parts.scheme not in ("http", "https"):
        raise ValueError(f"{text!r} is not an http(s) address of the app")
    page = site.by_path(parts.path.rstrip("/").rsplit("/", 1)[-1])  # the last part: the app may sit under a base path
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    if not page.picture:
        raise ValueError(
            f"the page {page.title!r} has no step player; export one of "
            f"{', '.join('/' + p.url_path for p in site.PLAYER_PAGES)}"
        )
    return page, query, app_base(text, page.key)


def run_page(page, query):
    """The scene ``page`` (:class:`views.site.Page`) shows at the address's ``query``, as a
    browser opening that address would get it, and the notes the page shows about the
    link: the page's picture (:mod:`views.pictures`), with no app running."""
    from views import pictures
    from views.presets import PRESETS

    view = pictures.open_address(page, query)
    names = {preset.name for preset in PRESETS.get(page.key, ())}
    lesson = view.lesson
    name = lesson["name"] if isinstance(lesson, dict) else (lesson[0] if lesson and lesson[0] in names else "")
    return Scene(page=page.key, payload=view.payload(), query=view.query, name=name), view.notes


def preset_queries(page_key):
    """The addresses' queries of a page's presets (ValueError when it has none)."""
    from views.presets import PRESETS

    presets = PRESETS.get(page_key)
    if not presets:
        with_presets = ", ".join(site.by_key(key).url_path for key in PRESETS)
        raise ValueError(f"the page {page_key!r} has no presets; these have: {with_presets}")
    return [dict(preset.params) for preset in presets]


def lesson_queries(key):
    """The addresses (page, query) of every scene of lesson ``key`` (a shipped lesson's
    name, or a lesson file's text encoded by :func:`views.lessons.encode`)."""
    from views import lessons

    lesson = lessons.load(key)
    out = []
    for number, scene in enumerate(lesson.scenes, 1):
        query = {**scene.query(), "lesson": key, "scene": str(number)}
        if scene.step:
            query["step"] = str(scene.step)
        out.append((site.by_key(scene.page), query))
    return lesson, out


def _lesson_key(value):
    """The lesson parameter for a shipped lesson's name, an encoded lesson, or a .toml file."""
    from views import lessons

    path = Path(value)
    if path.suffix == ".toml" and path.is_file():
        text = path.read_bytes()
        lessons.parse(text)  # refused here, with its line, rather than scene by scene
        return lessons.encode(text.decode("utf-8"))
    return value


def run_lesson(key):
    """Every scene of a lesson as its address opens it: ``(lesson, [(scene,
    notes)])``, each scene's payload carrying its narration, question and checked claims."""
    lesson, queries = lesson_queries(key)
    return lesson, [run_page(page, query) for page, query in queries]


# One export at a time per process: each computes every scene's study, and a class clicking
# "Save" at once would otherwise compute them all side by side.
_EXPORTING = threading.Lock()


@functools.lru_cache(maxsize=8)
def _lesson_file(page_key, app_url, stamp, guided=None):
    import subprocess
    import tempfile

    what = ["--lesson", guided] if guided is not None else ["--presets", page_key]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "lesson.html"
        done = subprocess.run(
            [sys.executable, "-m", "views.export", *what, "--out", str(out), "--app-url", app_url],
            cwd=ROOT,  # the app's folder, where `ui` is (a clone or the installed package)
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0:
            raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "export failed")
        return out.read_bytes()


def lesson_of_page(page_key, app_url=DEFAULT_APP_URL):
    """One HTML file with all the presets of a page as scenes (bytes; made in a separate
    process, one at a time, and kept: a second "Save" of the same lesson is instant)."""
    with _EXPORTING:
        return _lesson_file(page_key, app_url, version())


def guided_lesson_file(key, app_url=DEFAULT_APP_URL):
    """One HTML file with every scene of a guided lesson (``key``: a shipped lesson's name
    or an encoded lesson file, :mod:`views.lessons`), narration and questions included; made
    as :func:`lesson_of_page` makes a page's presets."""
    with _EXPORTING:
        return _lesson_file(None, app_url, version(), key)


# --- the command ---------------------------------------------------------------------------


def _slug(text):
    keep = "".join(ch.lower() if ch.isalnum() else "-" for ch in text)
    return "-".join(part for part in keep.split("-") if part)[:60] or "demo"


def _index_page(title, entries):
    items = "\n".join(f'<li><a href="{html.escape(name)}">{html.escape(label)}</a></li>' for name, label in entries)
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"</head><body><h1>{html.escape(title)}</h1><ul>\n{items}\n</ul></body></html>\n"
    )


def main(argv=None, prog="python -m views.export"):
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Save demos of Matching Pursuit Lab as standalone HTML files (no server, no network).",
    )
    parser.add_argument(
        "targets",
        nargs="*",
        metavar="ADDRESS",
        help='app addresses to export, e.g. "http://localhost:8501/kmp?data=sinc&gamma=3" or '
        '"kmp?data=sinc"; several make one file with one scene each',
    )
    parser.add_argument(
        "--presets",
        metavar="PAGE",
        action="append",
        default=[],
        help="add every preset of this page (e.g. kmp, sparse-kpca) as a scene",
    )
    parser.add_argument(
        "--lesson",
        metavar="LESSON",
        help="add every scene of a guided lesson: a shipped lesson's name (e.g. 2-kmp) or a lesson file (.toml)",
    )
    parser.add_argument("--out", metavar="FILE", help="write one HTML file with every scene")
    parser.add_argument("--out-dir", metavar="DIR", help="write one HTML file per scene, and an index.html")
    parser.add_argument(
        "--app-url",
        metavar="URL",
        help=f"the app's address for the links back into it (default: the addresses', else {DEFAULT_APP_URL})",
    )
    parser.add_argument("--title", help="the page's title (default: from the scenes)")
    args = parser.parse_args(argv)
    if bool(args.out) == bool(args.out_dir):
        parser.error("give exactly one of --out FILE and --out-dir DIR")
    try:
        jobs = [parse_target(target) for target in args.targets]
        for name in args.presets:
            page = site.by_path(name)
            jobs += [(page, query, DEFAULT_APP_URL) for query in preset_queries(page.key)]
        if args.lesson:
            lesson, queries = lesson_queries(_lesson_key(args.lesson))
            jobs += [(page, query, DEFAULT_APP_URL) for page, query in queries]
            args.title = args.title or lesson.title
        if not jobs:
            parser.error("nothing to export: give an address, --presets PAGE or --lesson LESSON")
        app_url = args.app_url or next((url for _, _, url in jobs if url != DEFAULT_APP_URL), DEFAULT_APP_URL)
        if not _safe_url(app_url):
            raise ValueError(f"--app-url {app_url!r} is not an http(s) address")
        scenes = []
        for page, query, _ in jobs:
            scene, notes = run_page(page, query)
            for note in notes:
                print(f"note ({page.title}): {note}", file=sys.stderr)
            scenes.append(scene)
            print(f"ran {scene.title()} ({len(scene.payload) / 1e6:.2f} MB of steps)", file=sys.stderr)
        with _EXPORTING:
            if args.out:
                written = [(Path(args.out), standalone(scenes, app_url=app_url, title=args.title))]
            else:
                folder = Path(args.out_dir)
                names = [f"{i + 1:02d}-{_slug(scene.title())}.html" for i, scene in enumerate(scenes)]
                written = [(folder / name, standalone([scene], app_url=app_url)) for name, scene in zip(names, scenes)]
                index = _index_page(
                    args.title or "Matching Pursuit Lab demos",
                    [(name, scene.title()) for name, scene in zip(names, scenes)],
                )
                written.append((folder / "index.html", index))
        for path, text in written:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB)", file=sys.stderr)
    except (ValueError, OSError) as error:  # (a lesson's LessonError is a ValueError)
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
