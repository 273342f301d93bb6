"""Each test file's time in a pytest run: the sum of its tests' set-up, call and tear-down,
from the report of ``pytest --durations=0`` (saved to a file), slowest first.

    python -m pytest -n 2 --durations=0 > run.txt; python -m benchmarks.suite_times run.txt
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
    rows.append(f"{'all files (summed over workers)':<34} {total:>9.1f}")
    if wall is not None:
        rows.append(f"{'wall time of the run':<34} {wall:>9.1f}")
    return "\n".join(rows)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 1:
        print(__doc__)
        return 2
    times, wall = per_file(Path(argv[0]).read_text(encoding="utf-8", errors="replace"))
    if not times:
        print(f"{argv[0]} has no --durations=0 report")
        return 1
    print(table(times, wall))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
