"""Each test file's time in a pytest run: the sum of its tests' set-up, call and tear-down,
from the report of ``pytest --durations=0`` (saved to a file), slowest first.  Given several
reports (runs of two commits back to back, say), a column for each and the last one's ratio
to the first.

    python -m pytest -n 2 --durations=0 > run.txt; python -m benchmarks.suite_times run.txt
    python -m benchmarks.suite_times before=old.txt after=new.txt   # side by side, NAME=FILE
    python -m benchmarks.record benchmarks.suite_times run.txt      # and into the performance page

With several workers the files' times add up to more than the run's wall time, which the
report's last line gives.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

LINE = re.compile(r"^\s*([0-9.]+)s\s+(setup|call|teardown)\s+(\S+?\.py)::")
WALL = re.compile(r"in ([0-9.]+)s(?: \(([0-9:]+)\))?")
TOTAL = "all files (summed over workers)"
WALL_ROW = "wall time of the run"


def per_file(text):
    """``{file: seconds}`` from a ``--durations=0`` report, and the run's wall time (or None)."""
    times = defaultdict(float)
    for line in text.splitlines():
        found = LINE.match(line)
        if found:
            times[found.group(3)] += float(found.group(1))
    walls = [
        float(found.group(1))
        for line in text.splitlines()
        if "passed" in line
        for found in [WALL.search(line)]
        if found
    ]
    return dict(times), (walls[-1] if walls else None)


def table(times, wall=None):
    total = sum(times.values())
    rows = [f"{'file':<34} {'seconds':>9} {'share':>7}"]
    rows += [
        f"{name:<34} {seconds:>9.1f} {seconds / total:>6.1%}"
        for name, seconds in sorted(times.items(), key=lambda item: -item[1])
    ]
    rows.append(f"{TOTAL:<34} {total:>9.1f}")
    if wall is not None:
        rows.append(f"{WALL_ROW:<34} {wall:>9.1f}")
    return "\n".join(rows)


def side_by_side(runs):
    """``runs``: ``[(name, times, wall)]``.  A row per file (slowest first in the first run;
    "-" where a run has no such file), then the totals and wall times, and the last run's
    ratio to the first in the last column (none for a file under a second in the first:
    the ratio of two roundings)."""
    names = [name for name, _, _ in runs]
    width = max(9, *(len(name) for name in names))
    first, last = runs[0][1], runs[-1][1]
    files = sorted({name for _, times, _ in runs for name in times}, key=lambda f: (-first.get(f, 0.0), f))

    def cell(value):
        return f"{'-':>{width}}" if value is None else f"{value:>{width}.1f}"

    def ratio(a, b):
        return f"{b / a:>7.2f}" if a is not None and a >= 1 and b is not None else f"{'-':>7}"

    rows = [f"{'file':<34} " + " ".join(f"{name:>{width}}" for name in names) + f" {'ratio':>7}"]
    for name in files:
        values = [times.get(name) for _, times, _ in runs]
        rows.append(f"{name:<34} " + " ".join(map(cell, values)) + " " + ratio(first.get(name), last.get(name)))
    totals = [sum(times.values()) for _, times, _ in runs]
    rows.append(f"{TOTAL:<34} " + " ".join(map(cell, totals)) + " " + ratio(totals[0], totals[-1]))
    walls = [wall for _, _, wall in runs]
    if any(wall is not None for wall in walls):
        rows.append(f"{WALL_ROW:<34} " + " ".join(map(cell, walls)) + " " + ratio(walls[0], walls[-1]))
    return "\n".join(rows)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    runs = []
    for arg in argv:
        name, path = ("", arg) if Path(arg).is_file() or "=" not in arg else arg.split("=", 1)
        if not Path(path).is_file():
            print(f"{path}: no such file")
            return 1
        times, wall = per_file(Path(path).read_text(encoding="utf-8", errors="replace"))
        if not times:
            print(f"{path} has no --durations=0 report")
            return 1
        runs.append((name or Path(path).stem, times, wall))
    if len(runs) == 1:
        print(table(runs[0][1], runs[0][2]))
    else:
        print(side_by_side(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
