"""The server's part of a setting's new value: each page's picture at a kernel width it has
not drawn, in this process, split as the view route spends it -- the address read, the
study computed, the picture drawn (Plotly's figures) and its payload written (JSON, gzip).

    python -m benchmarks.draw_speed [--repeats 5] [--points 350]

Each page is opened at its first preset with ``points`` training points (where its data
takes a size), then at ``repeats`` kernel widths in turn; each figure is the median over
those widths, the first opening (every import and cache cold) apart.  In the app a new
study is computed and drawn in a child process forked from a warmed server, so the cold
column is what a fork server that was never warmed would pay.  Milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import time

from ui import compute as ui_compute
from views import pictures, site

WIDTHS = ["0.5", "1", "2", "3", "4", "5", "7", "10"]


def timed(page, query):
    """``(read, compute, draw, payload)`` seconds of one opening of ``page`` at ``query``: the
    picture drawn and written as the app does (:func:`ui.compute.drawn`), its draw timed apart."""
    started = time.perf_counter()
    settings, _ = pictures.read_address(page, query)
    read = time.perf_counter()
    study, _ = pictures.compute(settings)
    computed = time.perf_counter()
    drawing = []

    def draw(settings, study):
        begun = time.perf_counter()
        shown = pictures.module(page).draw(settings, study)
        drawing.append(time.perf_counter() - begun)
        return shown

    ui_compute.drawn(settings, study, draw)
    written = time.perf_counter()
    return read - started, computed - read, drawing[0], written - computed - drawing[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--points", type=int, default=350)
    args = parser.parse_args(argv)
    print(f"a new kernel width's picture, in this process, {args.points} points where a page takes a size; ms")
    print(f"{'page':16s} {'cold':>6s} {'read':>6s} {'compute':>8s} {'draw':>6s} {'payload':>8s} {'total':>6s}")
    for page in site.PLAYER_PAGES:
        if not page.study:
            continue
        names = {control.name for control in pictures.controls(page.key)}
        base = {"points": str(args.points)} if "points" in names else {}
        first = timed(page.key, base)
        runs = [timed(page.key, {**base, "gamma": width}) for width in WIDTHS[: args.repeats]]
        medians = [1e3 * statistics.median(run[i] for run in runs) for i in range(4)]
        print(
            f"{page.key:16s} {1e3 * sum(first):6.0f} {medians[0]:6.1f} {medians[1]:8.1f} {medians[2]:6.1f}"
            f" {medians[3]:8.1f} {sum(medians):6.0f}"
        )


if __name__ == "__main__":
    main()
