"""A value the user sets, as a link carries it: :class:`Control` (its name in the address, its
default and what is allowed) and the sentences that show text from a link or a file safely.
No Streamlit: the page pictures (:mod:`views.pictures`), the export and the tests read addresses
with the same rules as the pages' widgets (:mod:`ui.state`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class Control:
    """A value the user sets: its URL name, default, and what is allowed.

    ``options``: allowed values (anything else in the URL is ignored); ``lo``/``hi``:
    numeric bounds (values outside are clamped); ``kind``: int, float, bool, str, or
    tuple (a subset of ``options``, written ``a,b,c`` in the URL, kept in option order).
    """

    name: str
    default: object
    kind: type = str
    options: tuple | None = None
    lo: float | None = None
    hi: float | None = None
    nearest: bool = False  # numeric options: a link's value in between takes the nearest option
    # How a page draws it (ui/board.py draws any control from these; the pictures never do):
    widget: str = ""  # "slider", "select_slider", "selectbox", "multiselect", "toggle", "number_input"
    label: str = ""
    help: str = ""
    group: str = ""  # "bounds": the study pages' seldom-changed settings, in a group folded away
    scope: str = "page"  # whose value it is: this page's, "shared" by every page, or a name of its own
    step: float | None = None  # a slider's or number box's step
    fmt: str = ""  # a number box's printf format
    names: tuple = ()  # (value, what the widget calls it) pairs, for values shown by another name
    widget_key: str = ""  # the widget's own key, when its options differ with another setting
    disabled: bool = False  # shown but not to be changed here (the bounds explorer's knob on the x axis)

    def name_of(self, value):
        """What the widget shows for ``value``."""
        return dict(self.names).get(value, format_value(value))

    def parse(self, text):
        """The value a URL string stands for, or None if it is not allowed."""
        if self.kind is tuple:
            parts = [part for part in str(text).split(",") if part]
            if not parts or any(part not in self.options for part in parts):
                return None
            return tuple(option for option in self.options if option in parts)
        try:
            if self.kind is bool:
                value = {"true": True, "1": True, "false": False, "0": False}[str(text).lower()]
            elif self.kind is int:
                value = int(round(float(text)))
            elif self.kind is float:
                value = float(text)
                if not math.isfinite(value):
                    return None
            else:
                value = str(text)
        except (ValueError, KeyError, OverflowError):
            return None
        if self.options is not None:
            matches = [option for option in self.options if str(option) == str(value) or option == value]
            if not matches and self.nearest and self.kind in (int, float):
                return min(self.options, key=lambda option: (abs(option - value), option))
            return matches[0] if matches else None
        return self.clamp(value)

    def out_of_range(self, text):
        """True when the number in ``text`` lies outside ``lo``..``hi`` (parse clamps it)."""
        if self.kind not in (int, float) or (self.lo is None and self.hi is None):
            return False
        try:
            number = float(text)
        except (TypeError, ValueError):
            return False
        return (self.lo is not None and number < self.lo) or (self.hi is not None and number > self.hi)

    def clamp(self, value):
        if self.lo is not None and value < self.lo:
            value = type(value)(self.lo)
        if self.hi is not None and value > self.hi:
            value = type(value)(self.hi)
        return value

    def valid(self, value):
        if self.kind is tuple:
            return isinstance(value, (list, tuple)) and all(item in self.options for item in value)
        if self.options is not None:
            return value in self.options
        return self.clamp(value) == value


def visible(text):
    """``text`` with every invisible control shown as its escape: bidirectional overrides
    and isolates (which can reverse what a sentence appears to say), zero-width spaces and
    joiners, and other format and control characters (as ``\\u202e``)."""
    return "".join(
        f"\\u{ord(ch):04x}" if unicodedata.category(ch) in ("Cf", "Cc") and ch not in "\n\t" else ch for ch in str(text)
    )


def literal(text, limit=80):
    """``text`` from a link or a file, safe inside Markdown: a code span (no links, no
    images, no formatting), on one line, every invisible control shown escaped
    (:func:`visible`), cut to ``limit`` characters."""
    text = visible(str(text).replace("\n", " ").replace("\r", " "))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}"


_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def plain(text):
    """A sentence that may hold text from a file or a link, safe inside Markdown: every
    ASCII punctuation mark is backslash-escaped (CommonMark shows it as itself), so no
    link, image, emphasis or web address can form; invisible controls are shown escaped
    (:func:`visible`)."""
    return _PUNCTUATION.sub(r"\\\1", visible(text))


def one_name(asked, control):
    """Note that a page reads ``control`` (``asked``: name -> the control read by it, so far
    in this run).  A name means one thing on a page and in its address: ValueError when
    another control, one with another label or kind, was read by the same name."""
    first = asked.setdefault(control.name, control)
    if first is not control and (first.label, first.kind) != (control.label, control.kind):
        raise ValueError(
            f"two controls of this page are called {control.name!r} ({first.label or first.name!r} and "
            f"{control.label or control.name!r}): an address could not tell them apart; rename one"
        )


def format_value(value):
    if isinstance(value, (list, tuple)):
        return ",".join(str(item) for item in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def read(control, text):
    """``(value, note)`` for the link's ``text`` of ``control``: the value it stands for
    (parsed, clamped) or None when it is not allowed, and the sentence to show the user
    about it (None when there is nothing to say)."""
    value = control.parse(text)
    if value is None:
        return None, (
            f"The link's value {literal(text)} for {control.name!r} is not allowed here; "
            f"using {format_value(control.default)!r}."
        )
    if control.out_of_range(text):
        return value, (
            f"The link's {control.name} = {literal(text)} is outside "
            f"{format_value(control.lo)} to {format_value(control.hi)}; using {format_value(value)}."
        )
    if control.nearest and format_value(value) != str(text).strip():
        return value, (
            f"The link's {control.name} = {literal(text)} is not one of the values "
            f"offered here; using the nearest, {format_value(value)}."
        )
    return value, None
