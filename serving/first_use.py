"""What a study's computation imports on first use, imported once in the fork server that
every study's child process is forked from (:data:`serving.children.PRELOAD`).

The core and the pictures load some of scikit-learn's modules, and most of Plotly's (each
figure class on first access), only when first used: each child imported them again for
its one study, which made a small study's child several times slower than its computation.
Importing this module computes and draws one small study of every page with a step player
in the fork server, which loads them there once.
"""

from __future__ import annotations

import os

from serving.children import NICE
from ui import compute
from views import pictures, site

#: A small view of each page: a few points and steps (what each page's first preset does not set).
SMALL = {"points": "80", "k": "3", "rank": "5", "repeats": "1"}


def first_use():
    """Compute and draw a small study of each page; returns ``(page, why)`` for each page it
    could not (none: tests/test_children.py).  Nothing here may stop the fork server, whose
    children compute every study: a failure is kept, not raised."""
    # at the children's priority: this runs beside the app's first pages (the fork server
    # only forks the children from here on, and each lowers itself to this anyway)
    os.nice(max(0, NICE - os.nice(0)))
    missed = []
    for page in site.PLAYER_PAGES:
        if not page.study:
            continue
        try:
            settings, _ = pictures.read_address(page.key, SMALL)
            study, _ = pictures.compute(settings)
            compute.drawn(settings, study)
        except Exception as error:  # noqa: BLE001 - kept for the test, never raised in the fork server
            missed.append((page.key, repr(error)))
    return missed


MISSED = first_use()
