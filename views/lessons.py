"""Guided lessons: a narrated path through the app's pages, written as data.

A lesson is a short TOML file: a title, a summary and two or more scenes.  A scene names a
page and its settings (the same keys as the page's address), the step it opens on and,
optionally, the last step it plays to (``until``: a step, or ``"bound_argmin"`` for where
the study's bound is lowest); then two to four sentences of
narration, optional speaker notes, an optional question, optional claims and an optional
"try it yourself" prompt, which unlocks the page's controls for that scene::

    title = "Kernel matching pursuit, and when to stop"
    summary = "One sentence on what the lesson shows."

    [[scene]]
    title = "A bound below 1"
    page = "kmp"
    settings = { data = "xor", points = "3000", k = "40" }
    step = 0
    until = 8
    narration = "The bound is lowest, {bound_min:.2f}, after {bound_argmin} basis functions."
    notes = "Speaker notes: shown to the lecturer only in a folded box."
    claims = ["bound below 1", "bound stops before the test error"]
    try = "Halve the number of points: does the bound stay below 1?"
    panel = "bounds"  # the panel the narration discusses, first on the projector

    [scene.question]
    ask = "Where will the bound be lowest?"
    choices = ["after 2 steps", "after about 10", "after 40"]
    answer = 2
    explain = "After {bound_argmin}: past that, each basis function costs more than it explains."

Numbers in the narration are computed, never typed: ``{name}`` (with an optional format,
``{bound_min:.2f}``) is filled from the study on screen; which names a page offers is
:data:`NUMBERS`.  Those ending ``_min`` / ``_argmin`` are the best over the whole path; those
ending ``_end`` are at the scene's last step (``{end}``), where the board stands when the
scene is over.  A setting the narration names is a placeholder too (``{variant}`` says
"pre-fitting" on a pre-fitting study), never a word typed.

A conclusion is never typed either: a ``[scene.say]`` table names phrases that a claim
chooses, and the narration places them like numbers::

    [scene.say]
    verdict = { if = "bound below 1", then = "a real guarantee ({bound_min:.2f})", else = "no guarantee" }

so a "try it yourself" scene says the right thing whatever the student set.  A claim is a
sentence from :data:`CLAIMS` checked on the scene's own study; the app shows whether it
holds in the speaker notes, and the tests check every shipped scene's claims.  A
question's ``kind`` is ``"choice"`` (the default: multiple choice, the answer revealed once
chosen) or ``"next-pick"`` (predict the next point the greedy step picks, on the board
itself).

:func:`parse` reads a lesson and refuses a bad one with a sentence naming the line and what
is wrong (:class:`LessonError`); :func:`shipped` gives the lessons in ``views/lessons/``.
"""

from __future__ import annotations

import base64
import difflib
import functools
import hashlib
import math
import re
import string
import tomllib
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from mpcore.bounds import vacuous
from mpcore.datasets import REGISTRY
from views import site
from views.controls import literal

HERE = Path(__file__).resolve().parent / "lessons"

#: The largest lesson file read (bytes); a lesson of twelve scenes is about 6 kB.
MAX_BYTES = 64_000
MAX_SCENES = 30
#: Narration: two to four sentences, at most this many characters (a projector's worth).
MAX_NARRATION = 600

#: The numbers a scene's narration, question and claims may use, by page (each page says
#: which, :attr:`views.site.Page.numbers`).
NUMBERS = {page.key: page.numbers for page in site.PLAYER_PAGES}
PAGES = tuple(NUMBERS)
#: Every page's address (``sparse-kpca``), which a lesson names its page by, and the page's
#: own name (``skpca``), which older lessons used and is still read.
ADDRESSES = {page.url_path: page.key for page in site.PAGES if page.key in NUMBERS}


@functools.cache
def setting_keys():
    """The settings a scene may give: every control's name on a page with a step player
    (:func:`views.pictures.controls`; which one a page takes depends on the page and the
    dataset, and the page says so of one it does not)."""
    from views import pictures  # (it reads lessons)

    return frozenset(control.name for page in site.PLAYER_PAGES for control in pictures.controls(page.key))


#: How a setting a narration names reads in a sentence (other values read as they are).
WORDS = {
    "variant": {"prefit": "pre-fitting", "backfit": "back-fitting", "basic": "basic matching pursuit"},
}


def word(name, value):
    """A setting's value as a sentence says it."""
    return WORDS.get(name, {}).get(value, value)


_NUMBER = r"(-?\d+(?:\.\d+)?)"
#: The claims a scene may state, each checked on the scene's study: the pattern, the
#: numbers it needs, and the test.
CLAIMS = {
    r"bound below 1": (("bound_min",), lambda n: not vacuous(n["bound_min"])),
    r"bound never below 1": (("bound_min",), lambda n: vacuous(n["bound_min"])),
    r"bound rises past its lowest": (("bound_argmin",), lambda n: _rises(n) is not None),
    r"bound crosses 1": (("crossing_step",), lambda n: n["crossing_step"] >= 0),
    rf"argmins within {_NUMBER}": (
        ("bound_argmin", "test_argmin"),
        lambda n, d: abs(n["bound_argmin"] - n["test_argmin"]) <= float(d),
    ),
    r"bound stops before the test error": (
        ("bound_argmin", "test_argmin"),
        lambda n: n["bound_argmin"] < n["test_argmin"],
    ),
    rf"rank correlation below {_NUMBER}": (("rank_corr",), lambda n, x: n["rank_corr"] < float(x)),
    rf"rank correlation above {_NUMBER}": (("rank_corr",), lambda n, x: n["rank_corr"] > float(x)),
    rf"test error below {_NUMBER}": (("test_min",), lambda n, x: n["test_min"] < float(x)),
    rf"test error at the end below {_NUMBER}": (("test_end",), lambda n, x: n["test_end"] < float(x)),
    r"deflations pick the same points": (("first_difference",), lambda n: n["first_difference"] == 0),
    rf"deflations differ by step {_NUMBER}": (
        ("first_difference",),
        lambda n, j: 0 < n["first_difference"] <= float(j),
    ),
    r"a deflation turns the kernel indefinite": (("n_indefinite",), lambda n: n["n_indefinite"] > 0),
    r"every deflation keeps the kernel psd": (("n_indefinite",), lambda n: n["n_indefinite"] == 0),
    r"incremental is quicker": (("speedup",), lambda n: n["speedup"] > 1),
    r"printed reading lowest later": (
        ("printed_argmin", "operator_argmin"),
        lambda n: n["printed_argmin"] > n["operator_argmin"],
    ),
    r"local bounds above the compression bound": (
        ("local_min", "bound_min"),
        lambda n: n["local_min"] > n["bound_min"],
    ),
    r"best deflation is ([a-z-]+)": (("best",), lambda n, name: n["best"] == name),
    r"best columns are ([a-z-]+)": (("best",), lambda n, name: n["best"] == name),
}

#: Words that state a claim: a narration, question or explanation using them must list the
#: claim (or choose the words by it, in [scene.say]), so that the app checks it.
STATED = {
    r"\brises (?:again|past)": "bound rises past its lowest",
    r"never (?:gets |goes |falls )?below 1|above 1 at every|(?:stays|is) (?:above )?1 at every|stays above 1": (
        "bound never below 1"
    ),
    r"\bcross(?:es|ing)? 1\b": "bound crosses 1",
}

SCENE_KEYS = {
    "title",
    "page",
    "settings",
    "step",
    "until",
    "narration",
    "notes",
    "claims",
    "try",
    "question",
    "say",
    "panel",
}
SAY_KEYS = {"if", "then", "else"}
QUESTION_KEYS = {"kind", "ask", "choices", "answer", "explain"}
TOP_KEYS = {"title", "summary", "scene"}


class LessonError(ValueError):
    """A lesson that cannot be read: the message says where (line) and what is wrong."""


@dataclass(frozen=True)
class Question:
    kind: str  # "choice" or "next-pick"
    ask: str
    choices: tuple = ()
    answer: int = 0  # 1-based index into choices (choice questions)
    explain: str = ""


@dataclass(frozen=True)
class Scene:
    title: str
    page: str
    settings: dict
    narration: str
    step: int = 0
    until: int | str | None = None  # a step, or a number the study computes ("bound_argmin")
    notes: str = ""
    claims: tuple = ()
    try_it: str = ""
    question: Question | None = None
    say: tuple = ()  # (name, claim, then, else): phrases a claim chooses
    panel: str = ""  # the panel the narration discusses: presenter mode shows it first

    @property
    def last_step(self):
        """The step the scene plays to: a number, or the name of one the study computes."""
        return self.step if self.until is None else self.until

    def query(self):
        """The scene's settings as the page's address gives them (text values)."""
        return {key: _text(value) for key, value in self.settings.items()}

    def reopens(self, given):
        """Whether an address that gives ``given`` (its parameters: a mapping) opens this
        scene on the scene's own settings and first step rather than on what it gives.  A
        scene's controls are locked, so any setting of another value, or a missing step
        where the scene starts past step 0, is the scene's; a "try it" scene keeps what the
        student set, so only a bare link (``?lesson=...&scene=N``, no setting of the scene
        and no step) opens it on its own."""
        if self.try_it:
            return "step" not in given and not any(key in given for key in self.settings)
        if self.step and "step" not in given:
            return True
        return any(given.get(key) != value for key, value in self.query().items())

    def address(self, key, number, view=()):
        """The parameters of the scene's own address: its settings, step, lesson ``key`` and
        ``number``, with the viewer's ``view`` (presenter mode, text size) kept."""
        query = {**dict(view), **self.query(), "lesson": key, "scene": str(number)}
        if self.step:
            query["step"] = str(self.step)
        return query


@dataclass(frozen=True)
class Lesson:
    title: str
    summary: str
    scenes: tuple
    source: str = field(default="", compare=False)  # the TOML text it was read from

    def scene(self, number):
        """Scene ``number`` (1-based), clipped into range."""
        return self.scenes[max(1, min(int(number), len(self.scenes))) - 1]


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# --- reading ------------------------------------------------------------------------------


def _scene_lines(text):
    """The line number of each ``[[scene]]`` header (1-based)."""
    return [number for number, line in enumerate(text.splitlines(), 1) if re.match(r"\s*\[\[\s*scene\s*\]\]", line)]


def _line_of(text, scene, key=None):
    """The line where scene ``scene`` (0-based) sets ``key`` (its header's when not found)."""
    headers = _scene_lines(text)
    if scene is None or scene >= len(headers):
        if key is not None:
            for number, line in enumerate(text.splitlines(), 1):
                if re.match(rf"\s*{re.escape(key)}\s*=", line):
                    return number
        return 1
    lines = text.splitlines()
    start = headers[scene]
    end = headers[scene + 1] - 1 if scene + 1 < len(headers) else len(lines)
    if key is not None:
        for number in range(start, end + 1):
            line = lines[number - 1]
            if re.match(rf"\s*{re.escape(key)}\s*=", line) or re.match(rf"\s*\[\s*scene\.{re.escape(key)}\s*\]", line):
                return number
    return start


def fields(template):
    """The names ``{name}`` / ``{name:fmt}`` in a template (ValueError on a broken brace)."""
    return [name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name]


def _check_template(template, page, where, phrases=()):
    try:
        names = fields(template)
    except ValueError as error:
        raise LessonError(
            f"{where}: the braces do not pair up ({error}); write {{{{ and }}}} for a brace itself."
        ) from None
    unknown = [name for name in names if name not in NUMBERS[page] and name not in phrases]
    if unknown:
        raise LessonError(
            f"{where}: {{{unknown[0]}}} is not a number the {page} page computes"
            + (" nor a phrase of the scene's [scene.say]" if phrases else "")
            + "; it offers "
            + ", ".join("{" + n + "}" for n in (*NUMBERS[page], *phrases))
            + "."
        )


def _claim(sentence):
    """The claim a sentence states: (pattern, needed numbers, test, arguments), or None."""
    for pattern, (needs, test) in CLAIMS.items():
        match = re.fullmatch(pattern, sentence.strip().lower())
        if match:
            return pattern, needs, test, match.groups()
    return None


def _string(value, where, name, required=True, limit=None):
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise LessonError(f"{where}: {name} must be text in quotes" + (" and not empty." if required else "."))
    if limit is not None and len(value) > limit:
        raise LessonError(f"{where}: {name} is {len(value)} characters; at most {limit} fit on a projected screen.")
    return value.strip()


def _whole(value, where, name, lo=0, hi=100_000):
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise LessonError(f"{where}: {name} must be a whole number from {lo} to {hi}, not {value!r}.")
    return value


def _question(raw, text, index, page, phrases=()):
    def at(key):
        return f"line {_line_of(text, index, key)} (scene {index + 1}'s question)"

    where = at("question")
    if not isinstance(raw, dict):
        raise LessonError(f"{where}: a question is a table, [scene.question], with ask, choices and answer.")
    extra = sorted(set(raw) - QUESTION_KEYS)
    if extra:
        raise LessonError(
            f"{where}: {extra[0]!r} is not a key of a question; the keys are " + ", ".join(sorted(QUESTION_KEYS)) + "."
        )
    kind = raw.get("kind", "choice")
    if kind not in ("choice", "next-pick"):
        raise LessonError(f'{at("kind")}: kind must be "choice" or "next-pick", not {kind!r}.')
    ask = _string(raw.get("ask"), at("ask"), "ask", limit=300)
    explain = _string(raw.get("explain"), at("explain"), "explain", required=False, limit=400)
    _check_template(ask, page, at("ask"), phrases)
    _check_template(explain, page, at("explain"), phrases)
    if kind == "next-pick":
        if "choices" in raw or "answer" in raw:
            raise LessonError(f"{where}: a next-pick question is answered on the board; it takes no choices or answer.")
        return Question(kind, ask, explain=explain)
    choices = raw.get("choices")
    if (
        not isinstance(choices, list)
        or not 2 <= len(choices) <= 5
        or not all(isinstance(c, str) and c.strip() for c in choices)
    ):
        raise LessonError(f'{at("choices")}: choices must be a list of two to five texts, like ["a", "b", "c"].')
    answer = _whole(raw.get("answer"), at("answer"), "answer (the number of the right choice, from 1)", 1, len(choices))
    for choice in choices:
        _check_template(choice, page, at("choices"), phrases)
    return Question(kind, ask, tuple(c.strip() for c in choices), answer, explain)


def _scene(raw, text, index):
    where = f"line {_line_of(text, index)} (scene {index + 1})"
    if not isinstance(raw, dict):
        raise LessonError(f"{where}: a scene is a table that starts with [[scene]].")
    extra = sorted(set(raw) - SCENE_KEYS)
    if extra:
        raise LessonError(
            f"line {_line_of(text, index, extra[0])} (scene {index + 1}): {extra[0]!r} is not a key of "
            "a scene; the keys are " + ", ".join(sorted(SCENE_KEYS)) + "."
        )

    def at(key):
        return f"line {_line_of(text, index, key)} (scene {index + 1})"

    page = ADDRESSES.get(raw.get("page"), raw.get("page"))
    if page not in PAGES:
        raise LessonError(
            f"{at('page')}: page must be one of "
            + ", ".join(f'"{p}"' for p in ADDRESSES)
            + f", not {raw.get('page')!r}."
        )
    settings = raw.get("settings", {})
    if not isinstance(settings, dict) or not all(isinstance(v, (str, int, float, bool)) for v in settings.values()):
        raise LessonError(
            f"{at('settings')}: settings is a table of the page's address keys and plain values, "
            'like { data = "sinc", k = 30 }.'
        )
    if any(key in ("lesson", "scene", "step", "present", "text") for key in settings):
        raise LessonError(
            f"{at('settings')}: settings name what the page shows; the step is the scene's own "
            "'step', and presenter mode and the text size are the viewer's."
        )
    _check_settings(settings, at("settings"))
    say = _say(raw.get("say", {}), at("say"), page)
    phrases = tuple(name for name, *_ in say)
    narration = _string(raw.get("narration"), at("narration"), "narration", limit=MAX_NARRATION)
    _check_template(narration, page, at("narration"), phrases)
    notes = _string(raw.get("notes"), at("notes"), "notes", required=False, limit=2000)
    _check_template(notes, page, at("notes"), phrases)
    step = _whole(raw.get("step", 0), at("step"), "step")
    until = raw.get("until")
    if isinstance(until, str):  # a step the study computes: "bound_argmin"
        if until not in ("bound_argmin", "test_argmin") or until not in NUMBERS[page]:
            raise LessonError(
                f'{at("until")}: until is a step number, or "bound_argmin" or "test_argmin" on the '
                f"pages with bounds, not {until!r}."
            )
    elif until is not None:
        until = _whole(until, at("until"), "until")
        if until < step:
            raise LessonError(f"{at('until')}: until ({until}) comes before the scene's step ({step}).")
    claims = raw.get("claims", [])
    if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
        raise LessonError(f'{at("claims")}: claims is a list of sentences, like ["bound below 1"].')
    for claim in claims:
        _checkable(claim, page, at("claims"))
    question = _question(raw["question"], text, index, page, phrases) if "question" in raw else None
    stated = [narration, *((question.ask, question.explain) if question else ())]
    for pattern, claim in STATED.items():
        said = next((t for t in stated if re.search(pattern, t, re.IGNORECASE)), None)
        if said is not None and claim not in [c.strip().lower() for c in claims]:
            words = re.search(pattern, said, re.IGNORECASE).group(0)
            raise LessonError(
                f"{at('claims')}: the scene says {words!r}, which states the claim {claim!r}: list it in "
                "claims, so that the app checks it on the study and on what is drawn."
            )
    return Scene(
        title=_string(raw.get("title"), at("title"), "title", limit=120),
        page=page,
        settings=dict(settings),
        narration=narration,
        step=step,
        until=until,
        notes=notes,
        claims=tuple(c.strip() for c in claims),
        try_it=_string(raw.get("try"), at("try"), "try", required=False, limit=300),
        question=question,
        say=say,
        panel=_panel(raw.get("panel"), at("panel")),
    )


def _panel(value, where):
    if value is None:
        return ""
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,40}", value):
        raise LessonError(f'{where}: panel is the name of one of the page\'s panels, like "bounds", not {value!r}.')
    return value


def _check_settings(settings, where):
    """Refuse a setting no page has, or a dataset the app does not offer, with the choices."""
    known = setting_keys()
    for key in settings:
        if key not in known:
            near = difflib.get_close_matches(key, known, n=1)
            raise LessonError(
                f"{where}: {key!r} is not a setting of any page"
                + (f" (did you mean {near[0]!r}?)" if near else "")
                + "; the settings are "
                + ", ".join(sorted(known))
                + "."
            )
    data = settings.get("data")
    if data is not None and str(data) not in REGISTRY:
        raise LessonError(
            f"{where}: data = {str(data)!r} is not a dataset of the app; the datasets are "
            + ", ".join(sorted(REGISTRY))
            + "."
        )


def _checkable(claim, page, where):
    """Refuse a claim the app cannot check on ``page``'s study."""
    found = _claim(claim)
    if found is None:
        raise LessonError(
            f"{where}: {claim!r} is not a claim the app can check; the claims are: "
            + "; ".join(_readable(p) for p in CLAIMS)
            + "."
        )
    missing = [name for name in found[1] if name not in NUMBERS[page]]
    if missing:
        raise LessonError(f"{where}: {claim!r} needs {missing[0]}, which the {page} page does not compute.")


def _say(raw, where, page):
    """A scene's phrases chosen by claims: ((name, claim, then, else), ...)."""
    if not isinstance(raw, dict):
        raise LessonError(f'{where}: say is a table of phrases, like [scene.say] with verdict = {{ if = "...", ... }}.')
    out = []
    for name, phrase in raw.items():
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or name in NUMBERS[page]:
            raise LessonError(
                f"{where}: a phrase's name is a lower-case word that no number of the {page} page has, not {name!r}."
            )
        if not isinstance(phrase, dict) or set(phrase) != SAY_KEYS:
            raise LessonError(
                f'{where}: the phrase {name!r} needs exactly if, then and else, like {{ if = "bound below 1", '
                'then = "a guarantee", else = "no guarantee" }.'
            )
        claim = phrase["if"]
        if not isinstance(claim, str):
            raise LessonError(f"{where}: the phrase {name!r}'s if is a claim in quotes.")
        _checkable(claim, page, where)
        then = _string(phrase["then"], where, f"the phrase {name!r}'s then", required=False, limit=300)
        otherwise = _string(phrase["else"], where, f"the phrase {name!r}'s else", required=False, limit=300)
        for template in (then, otherwise):
            _check_template(template, page, where)
        out.append((name, claim.strip(), then, otherwise))
    return tuple(out)


def _readable(pattern):
    return pattern.replace(_NUMBER, "N").replace("([a-z-]+)", "NAME")


def parse(text):
    """The :class:`Lesson` a TOML ``text`` describes; :class:`LessonError` (a sentence with
    the line and what is wrong) when it cannot be read."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise LessonError(f"The file is {len(text):,} bytes; a lesson is at most {MAX_BYTES:,}.")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise LessonError("The file is not UTF-8 text; save it as plain text (a .toml file).") from None
    if len(text.encode()) > MAX_BYTES:
        raise LessonError(f"The file is {len(text.encode()):,} bytes; a lesson is at most {MAX_BYTES:,}.")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise LessonError(f"This is not valid TOML: {error}.") from None
    extra = sorted(set(raw) - TOP_KEYS)
    if extra:
        raise LessonError(
            f"line {_line_of(text, None, extra[0])}: {extra[0]!r} is not a key of a lesson; the keys "
            "are title, summary and [[scene]] tables."
        )
    title = _string(raw.get("title"), f"line {_line_of(text, None, 'title')}", "title", limit=120)
    summary = _string(
        raw.get("summary"), f"line {_line_of(text, None, 'summary')}", "summary", required=False, limit=400
    )
    scenes = raw.get("scene")
    if not isinstance(scenes, list) or not scenes:
        raise LessonError("A lesson needs at least one scene: a [[scene]] table with page, settings and narration.")
    if len(scenes) > MAX_SCENES:
        raise LessonError(f"line {_scene_lines(text)[MAX_SCENES]}: a lesson has at most {MAX_SCENES} scenes.")
    return Lesson(title, summary, tuple(_scene(raw_scene, text, i) for i, raw_scene in enumerate(scenes)), text)


# --- numbers and claims -------------------------------------------------------------------------


class _Numbers(dict):
    def __missing__(self, key):
        return "?"


def fill(template, numbers, say=()):
    """``template`` with its ``{name}`` fields filled from ``numbers`` and the phrases
    ``say`` (a scene's, each chosen by its claim on ``numbers``); a number the study does
    not have (nan, or an argmin of a missing curve) shows as "n/a"."""
    numbers = {**numbers, **phrases(say, numbers)}
    values = {}
    for name in fields(template):
        value = numbers.get(name)
        bad = value is None or (isinstance(value, float) and not math.isfinite(value))
        values[name] = _NotAvailable() if bad else value
    return template.format_map(_Numbers(values))


def phrases(say, numbers):
    """Each phrase of a scene's ``say`` as the study makes it: its ``then`` text where its
    claim holds on ``numbers``, else its ``else`` text, numbers filled in."""
    return {name: fill(then if check(claim, numbers) else otherwise, numbers) for name, claim, then, otherwise in say}


def at_end(numbers, last):
    """``numbers`` with the curves' values at step ``last`` (a step, or a number's name such
    as "bound_argmin"): ``end``, ``bound_end`` and ``test_end``.  The curves start at t = 1:
    at step 0 the values are nan."""
    series = numbers.get("series")
    if not series:
        return numbers
    if isinstance(last, str):
        last = numbers.get(last)
    out = dict(numbers)
    if not isinstance(last, (int, float)) or last != last:
        return out
    length = max((len(values) for values in series.values()), default=0)
    end = max(0, min(int(last), length))
    out["end"] = end
    for name, values in series.items():
        out[f"{name}_end"] = float(values[end - 1]) if 1 <= end <= len(values) else float("nan")
    return out


class _NotAvailable:
    def __format__(self, spec):
        return "n/a"


def check(claim, numbers):
    """Whether ``claim`` holds for ``numbers`` (False when a number it needs is missing)."""
    found = _claim(claim)
    if found is None:
        raise LessonError(f"{claim!r} is not a claim the app can check.")
    _, needs, test, args = found
    for name in needs:
        value = numbers.get(name)
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return False
    return bool(test(numbers, *args))


# --- what is on screen at the scene's last step --------------------------------------------------


def _rises(numbers):
    """The first step after the bound's lowest point where the bound is higher, or None."""
    bound, low = numbers.get("series", {}).get("bound"), numbers.get("bound_argmin")
    if not bound or low is None:
        return None
    return next((t for t in range(low + 1, len(bound) + 1) if bound[t - 1] > bound[low - 1]), None)


def _first(curve, below):
    """The first step where a curve of the numbers' ``series`` is below ``below`` (None: never)."""

    def find(numbers, *args):
        values = numbers.get("series", {}).get(curve) or ()
        level = below(*args)
        return next((t for t, value in enumerate(values, 1) if value < level), None)

    return find


def _named(name):
    return lambda numbers, *args: numbers.get(name)


def _latest(*names):
    def find(numbers, *args):
        steps = [numbers.get(name) for name in names]
        return None if any(step is None for step in steps) else max(steps)

    return find


def _always(numbers, *args):
    return 0


def _bound_min_seen(numbers, *args):
    """The chart writes a bound's lowest value when the bound never gets below 1 ("never
    below 1 (min ...)", at every step); else its lowest point is drawn once reached."""
    value = numbers.get("bound_min")
    if isinstance(value, (int, float)) and vacuous(value):
        return 0
    return numbers.get("bound_argmin")


_WHOLE = _named("n_steps")
_CURVES_SEEN = {
    "m": _always,
    "bound_min": _bound_min_seen,
    "bound_argmin": _named("bound_argmin"),
    "test_min": _named("test_argmin"),
    "test_argmin": _named("test_argmin"),
    "rank_corr": _WHOLE,  # a correlation over every t: the whole curves
    "end": _named("end"),
    "bound_end": _named("end"),
    "test_end": _named("end"),
    "printed_argmin": _named("printed_argmin"),
    "operator_argmin": _named("operator_argmin"),
    "local_min": _latest("printed_argmin", "operator_argmin"),
}
#: From which step each number a page offers is on screen.  The algorithm pages draw their
#: curves up to the step shown (whole at the path's last step), so a curve's lowest point is
#: on screen once the step reaches it; the deflation lab draws each step's picks and facts,
#: so what it says of the whole path is on screen at its last step; the column lab and the
#: bounds explorer draw their curves whole at every step.  A name not listed is a setting
#: (``variant``) or a value the page shows at every step.
SEEN_FROM = {
    "skpca": _CURVES_SEEN,
    "kmp": _CURVES_SEEN,
    "skcca": _CURVES_SEEN,
    "mpkfda": _CURVES_SEEN,
    "deflation-lab": {
        "first_difference": _named("first_difference"),
        **{name: _WHOLE for name in ("n_steps", "shared_picks", "best", "best_error", "indefinite", "n_indefinite")},
    },
    "column-lab": {},
    # the explorer draws its curves whole at every step: where a bound crosses 1 is always on screen
    "bounds": {"crossing": _always, "crossing_step": _always},
}
#: From which step what each claim states is on screen (as :data:`SEEN_FROM`): a bound below
#: 1 once it has got there, two lowest points once both are drawn, a rise once drawn.
CLAIMS_SEEN = {
    r"bound below 1": _first("bound", lambda: 1.0),
    r"bound never below 1": _bound_min_seen,
    r"bound rises past its lowest": _rises,
    r"bound crosses 1": _always,
    rf"argmins within {_NUMBER}": _latest("bound_argmin", "test_argmin"),
    r"bound stops before the test error": _latest("bound_argmin", "test_argmin"),
    rf"rank correlation below {_NUMBER}": _WHOLE,
    rf"rank correlation above {_NUMBER}": _WHOLE,
    rf"test error below {_NUMBER}": _first("test", float),
    rf"test error at the end below {_NUMBER}": _named("end"),
    r"deflations pick the same points": _WHOLE,
    rf"deflations differ by step {_NUMBER}": _named("first_difference"),
    r"a deflation turns the kernel indefinite": _WHOLE,
    r"every deflation keeps the kernel psd": _WHOLE,
    r"incremental is quicker": _always,
    r"printed reading lowest later": _latest("printed_argmin", "operator_argmin"),
    r"local bounds above the compression bound": _latest("printed_argmin", "operator_argmin", "bound_argmin"),
    r"best deflation is ([a-z-]+)": _WHOLE,
    r"best columns are ([a-z-]+)": _always,
}


def said(scene, numbers):
    """The templates ``scene`` says on the study of ``numbers``: its narration, notes,
    question (the choices too) and explanation, and each of its phrases as its claim chose
    it."""
    out = [scene.narration, scene.notes]
    if scene.question is not None:
        out += [scene.question.ask, scene.question.explain, *scene.question.choices]
    return out + [then if check(claim, numbers) else otherwise for _, claim, then, otherwise in scene.say]


def unseen(scene, numbers, n_steps=None):
    """What ``scene`` states that is not on screen at its last step: a sentence for each
    number its texts quote, and each claim it makes, that the page draws only at a later
    step (or never), [] when everything is.  ``numbers``: the study's
    (:func:`at_end` is applied), ``n_steps``: its path's length."""
    numbers = at_end(dict(numbers or {}), scene.last_step)
    if n_steps is None:
        n_steps = numbers.get("n_steps", max((len(v) for v in numbers.get("series", {}).values()), default=None))
    numbers["n_steps"] = n_steps
    last = _step(scene.last_step, numbers)
    if not isinstance(last, int):
        return []
    seen, out = SEEN_FROM[scene.page], []
    names = dict.fromkeys(name for text in said(scene, numbers) for name in fields(text))
    for name in names:
        if name in seen:
            step = seen[name](numbers)
            if step is None or step > last:
                out.append(_too_late(f"{{{name}}}", step, last, n_steps))
    for claim in (*scene.claims, *(claim for _, claim, *_ in scene.say)):
        if not check(claim, numbers):
            continue  # a claim that does not hold is said so in the notes: nothing to draw
        pattern, _, _, args = _claim(claim)
        step = CLAIMS_SEEN[pattern](numbers, *args)
        if step is None or step > last:
            out.append(_too_late(f"the claim {claim!r}", step, last, n_steps))
    return out


def _too_late(what, step, last, n_steps):
    where = "never drawn" if step is None else f"drawn from step {step}"
    return f"{what} is {where}, but the scene ends at step {last}" + (f" of {n_steps}" if n_steps else "") + "."


# --- shipped lessons and addresses --------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def shipped():
    """The lessons in ``views/lessons/``, by file stem, in their file names' order (read and
    checked once per process: every page entry with a lesson link asks for them)."""
    return {path.stem: parse(path.read_text(encoding="utf-8")) for path in sorted(HERE.glob("*.toml"))}


def encode(text):
    """A lesson's TOML text as an address parameter (zlib, then URL-safe base64)."""
    return "z" + base64.urlsafe_b64encode(zlib.compress(text.encode(), 9)).decode().rstrip("=")


def decode(value):
    """The TOML text :func:`encode` made (LessonError when ``value`` is not one)."""
    if not value.startswith("z") or len(value) > 2 * MAX_BYTES:
        raise LessonError("The address's lesson is neither a shipped lesson's name nor a lesson file's text.")
    try:
        data = base64.urlsafe_b64decode(value[1:] + "=" * (-len(value[1:]) % 4))
        inflater = zlib.decompressobj()
        text = inflater.decompress(data, MAX_BYTES + 1)
    except (ValueError, zlib.error):
        text, inflater = b"", None
    if len(text) > MAX_BYTES:
        raise LessonError(f"The address's lesson is longer than {MAX_BYTES:,} bytes.")
    if inflater is None or not inflater.eof:
        raise LessonError("The address's lesson is damaged (it may have been cut short when it was copied).")
    return text.decode("utf-8", errors="replace")


def page_title(scene):
    return site.by_key(scene.page).title


@functools.lru_cache(maxsize=16)
def load(value):
    """The lesson an address's ``lesson`` value names: a shipped lesson's name, or a
    lesson file's text (:func:`encode`), read once however many times an address is
    opened (a lesson is immutable; one that cannot be read is refused each time)."""
    found = shipped()
    if value in found:
        return found[value]
    return parse(decode(value))


def head(lesson, key, number, numbers, resume=False):
    """What the player shows of the scene (the payload's ``lesson`` field): its title and
    narration with the study's numbers filled in, and the lesson around it.  ``key``: the
    address's ``lesson`` value; ``resume``: the viewer comes back to this scene."""
    scene = lesson.scene(number)
    numbers = at_end(numbers or {}, scene.last_step)
    numbers.update(phrases(scene.say, numbers))  # chosen once, placed in every text

    def filled(template):
        return fill(template, numbers)

    question = None
    if scene.question is not None:
        q = scene.question
        question = {
            "kind": q.kind,
            "ask": filled(q.ask),
            "choices": [filled(c) for c in q.choices],
            "answer": q.answer,
            "explain": filled(q.explain),
        }
    return {
        "name": scene.title,
        "text": filled(scene.narration),
        "guide": {
            "lesson": lesson.title,
            "id": hashlib.sha1(key.encode()).hexdigest()[:12],
            "scene": number,
            "scenes": len(lesson.scenes),
            "notes": filled(scene.notes),
            "claims": [[claim, check(claim, numbers)] for claim in scene.claims],
            "unseen": unseen(scene, numbers),
            "question": question,
            "try": scene.try_it,
            "resume": bool(resume),
            "panel": scene.panel,
            "start": scene.step,
            "until": _step(scene.until, numbers),
        },
    }


def _step(until, numbers):
    """A scene's last step: a number, or the step a study's number names (None if unknown)."""
    if isinstance(until, str):
        value = numbers.get(until)
        return int(value) if isinstance(value, (int, float)) and value == value else None
    return until


def not_here(name):
    """What a page says of a scene's setting ``name`` it does not have (a lesson written for
    another version of the app)."""
    return f"This lesson's scene sets {literal(name)}, which this page does not have; it is ignored."
