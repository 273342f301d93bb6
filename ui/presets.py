"""Named lessons: each algorithm page opens on the first (where its bound has something
to say) and offers the others from the sidebar.  A preset is the URL of a view, so it
is exactly what a lecturer would share as a link.

The numbers in the descriptions were measured on these settings (data seed 0); the
tests check the findings (the bound's minimum below or above 1), not the digits.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    name: str
    lesson: str
    params: dict


PRESETS = {
    "skpca": (
        Preset("Boston: the bound has a best sparsity",
               "The compression bound (seed 000 Cor. 1) is far below 1 (about 0.47) and lowest after about twenty "
               "basis vectors: past that, each extra one costs the bound more than it explains (seed 000 Fig. 2).",
               {"data": "boston", "gamma": "0.05", "k": "60", "log": "true"}),
        Preset("Rings: a few points explain everything",
               "With the median-heuristic width, six points already explain most of the variance; the bound is "
               "lowest there.", {"data": "rings", "k": "30", "log": "true"}),
        Preset("A trivial bound, and why",
               "A kernel this narrow (gamma = 30) makes every point its own direction: nothing compresses, the "
               "residual stays high and the bound never gets below 1.",
               {"data": "rings", "gamma": "30", "k": "40", "log": "true"}),
        Preset("Score 59 random candidates per step",
               "Smola and Schoelkopf's trick: 59 random candidates contain one of the best 5% with probability "
               "95%. Compare the picks and the bound with the full search.",
               {"data": "boston", "gamma": "0.05", "k": "60", "sub": "true", "cand": "59", "log": "true"}),
    ),
    "kmp": (
        Preset("XOR, many points: a bound below 1",
               "With 2,100 training points the KMP bound (seed 000 Thm 4) falls to about 0.57 after a dozen basis "
               "functions, while the test error keeps improving a little longer.",
               {"data": "xor", "points": "3000", "k": "40"}),
        Preset("sinc: the bound's shape follows the test error",
               "The bound stays above 1 (350 points are too few for a VC-style bound) but is lowest near where the "
               "test error is (t = 7 against 9 here); the paper drew its bound × 1/5 to show this (seed 000 Fig. 1).",
               {"data": "sinc", "gamma": "3", "k": "30", "rescale": "0.2"}),
        Preset("A trivial bound, and why",
               "350 training points and a noisy boundary: the bound is above 1 at every sparsity. It says nothing "
               "here -- the test error is still small.", {"data": "moons", "k": "30"}),
        Preset("Basic KMP revisits points",
               "Without refitting, basic matching pursuit can pick the same column again and needs more steps.",
               {"data": "sinc", "gamma": "3", "k": "30", "variant": "basic"}),
    ),
    "skcca": (
        Preset("Two-view rings: the bound tracks the test error",
               "The sparse KCCA bound (seed 000 Thm 9) is non-trivial and lowest at the same sparsity as the test "
               "error.", {"data": "rings-two-view", "points": "1500", "gamma": "1/d", "k": "30"}),
        Preset("Fewer points: below 1 only briefly",
               "With 350 training pairs the bound dips just under 1 for a few steps.",
               {"data": "rings-two-view", "points": "500", "gamma": "1/d", "k": "30"}),
        Preset("A trivial bound, and why",
               "A strict tolerance (alpha = 0.3): many test pairs count as errors, and with 350 pairs the bound "
               "stays above 1 at every sparsity -- though the variates still agree well.",
               {"data": "rings-two-view", "points": "500", "gamma": "1/d", "k": "30", "alpha": "0.3",
                "rescale": "0.2"}),
    ),
    "mpkfda": (
        Preset("Tight blobs: the bound dips below 1",
               "Thm 1 of seed 002 needs large margins and many points: two tight blobs and 2,100 training points "
               "take it just under 1 -- the best it does at classroom sizes.",
               {"data": "blobs", "points": "3000", "spread": "0.3", "gamma": "0.5", "k": "20"}),
        Preset("A trivial bound, and why",
               "On two moons with 350 points the bound is 1 at every step: its estimation terms A and B (eq. 10) "
               "outweigh the margin. The classifier is fine; the guarantee is empty.", {"data": "moons", "k": "30"}),
        Preset("Deflation changes the picks",
               "Hotelling's deflation (eq. 15) turns K indefinite and picks different points than projection; "
               "compare with the default.", {"data": "moons", "k": "30", "deflation": "hotelling"}),
    ),
}
