"""Named lessons: each algorithm page opens on the first (where its bound has something
to say) and offers the others from the sidebar.  A preset is the URL of a view, so it
is exactly what a lecturer would share as a link.

A lesson's numbers are computed from the study on screen, never typed: the text may
quote ``{m}`` (training points) and the fields of
:meth:`mpcore.curves.BoundCurves.summary` (``{bound_min}``, ``{bound_argmin}``,
``{test_min}``, ``{test_argmin}``, ``{rank_corr}``).  ``tests/test_player.py`` checks
each preset's finding on its settings (the bound below or above 1, the argmins close,
the rank correlation weak), so a sentence cannot outlive the fact it states.
"""

from __future__ import annotations

from dataclasses import dataclass

from views.controls import format_value


@dataclass(frozen=True)
class Preset:
    name: str
    lesson: str
    params: dict

    def text(self, numbers):
        """The lesson with its numbers filled in from the study (``numbers``: ``m`` and
        the curves' summary)."""
        return self.lesson.format(**numbers)


PRESETS = {
    "skpca": (
        Preset(
            "Boston: the bound has a best sparsity",
            "The compression bound (Hussain et al. 2011, Cor. 1) is lowest, {bound_min:.2f}, after {bound_argmin} "
            "basis vectors: past that, each one costs the bound more than it explains.",
            {"data": "boston", "gamma": "0.05", "k": "60", "log": "true"},
        ),
        Preset(
            "Rings: a few points explain everything",
            "With the median-heuristic width, {bound_argmin} points explain most of the variance: the "
            "compression bound is lowest there ({bound_min:.2f}).",
            {"data": "rings", "k": "30", "log": "true"},
        ),
        Preset(
            "A trivial bound, and why",
            "A kernel this narrow (gamma = 30) makes every point its own direction: nothing compresses, the "
            "residual stays high and the bound never gets below 1 (its lowest: {bound_min:.2f}).",
            {"data": "rings", "gamma": "30", "k": "40", "log": "true"},
        ),
        Preset(
            "Score 59 random candidates per step",
            "Smola and Schölkopf's trick: 59 random candidates hold one of the best 5% with probability 95%. "
            "Compare the picks and the bound (lowest {bound_min:.2f}) with the full search.",
            {"data": "boston", "gamma": "0.05", "k": "60", "sub": "true", "cand": "59", "log": "true"},
        ),
    ),
    "kmp": (
        Preset(
            "XOR, many points: a bound below 1",
            "With {m:,} training points the KMP bound (Hussain et al. 2011, Thm 4) falls to {bound_min:.2f} after "
            "{bound_argmin} basis functions; the test error goes on improving until t = {test_argmin}.",
            {"data": "xor", "points": "3000", "k": "40"},
        ),
        Preset(
            "sinc: the bound's best sparsity is near the test error's",
            "{m} points are too few for this VC-style bound to get below 1 (lowest {bound_min:.2f}), yet it is "
            "lowest at t = {bound_argmin}, near the test error's best, t = {test_argmin} (the paper drew its "
            "bound × 1/5 to show this: Hussain et al. 2011, Fig. 1).",
            {"data": "sinc", "gamma": "3", "k": "30", "rescale": "0.2"},
        ),
        Preset(
            "A trivial bound, and why",
            "{m} training points and a noisy boundary: the bound is above 1 at every sparsity (lowest "
            "{bound_min:.2f}). It says nothing here, yet the test error is small ({test_min:.3f}).",
            {"data": "moons", "k": "30"},
        ),
        Preset(
            "Basic KMP revisits points",
            "Without refitting (Vincent and Bengio 2002), basic matching pursuit can pick the same column again "
            "and needs more steps.",
            {"data": "sinc", "gamma": "3", "k": "30", "variant": "basic"},
        ),
    ),
    "skcca": (
        Preset(
            "Two-view rings: the bound picks the test error's sparsity",
            "The sparse KCCA bound (Hussain et al. 2011, Thm 9) is lowest ({bound_min:.2f}) at t = {bound_argmin}, "
            "where the test error is lowest too (t = {test_argmin}); over all t it follows the error only "
            "loosely (rank correlation {rank_corr:.2f}).",
            {"data": "rings-two-view", "points": "1500", "gamma": "1/d", "k": "30"},
        ),
        Preset(
            "Fewer points: below 1 only briefly",
            "With {m} training pairs the bound dips just under 1 (to {bound_min:.2f}) for a few steps.",
            {"data": "rings-two-view", "points": "500", "gamma": "1/d", "k": "30"},
        ),
        Preset(
            "A trivial bound, and why",
            "A strict tolerance (alpha = 0.3): more test pairs count as errors, and with {m} pairs the bound "
            "stays above 1 (lowest {bound_min:.2f}) -- though the variates still agree well.",
            {"data": "rings-two-view", "points": "500", "gamma": "1/d", "k": "30", "alpha": "0.3", "rescale": "0.2"},
        ),
    ),
    "mpkfda": (
        Preset(
            "Tight blobs: the bound dips below 1",
            "Diethe (2015), Thm 1, needs large margins and many points: two tight blobs and {m:,} training points "
            "take it just under 1 ({bound_min:.2f}), the best it does at classroom sizes.",
            {"data": "blobs", "points": "3000", "spread": "0.3", "gamma": "0.5", "k": "20"},
        ),
        Preset(
            "A trivial bound, and why",
            "On two moons with {m} points the bound is 1 at every step: its estimation terms A and B (Diethe "
            "2015, eq. 10) outweigh the margin. The classifier is fine (test error {test_min:.3f}); the "
            "guarantee is empty.",
            {"data": "moons", "k": "30"},
        ),
        Preset(
            "Deflation changes the picks",
            "Hotelling's deflation (Diethe 2015, eq. 15) turns K indefinite and picks different points than "
            "projection; compare with the default.",
            {"data": "moons", "k": "30", "deflation": "hotelling"},
        ),
    ),
}


VIEW_KEYS = frozenset({"present", "text", "step"})  # how a view is shown, not what it shows


def matching(page, values):
    """The preset of ``page`` whose settings are exactly the view's (``values``: name ->
    ``(value, default)``, as a page reads them), how it is shown aside -- presenter mode,
    text size, step -- or None when something else was changed."""
    current = {name: format_value(value) for name, (value, _) in values.items()}
    changed = {name for name, (value, default) in values.items() if value != default} - VIEW_KEYS
    for preset in PRESETS.get(page, ()):
        if all(current.get(name) == value for name, value in preset.params.items()) and changed <= set(preset.params):
            return preset
    return None
