"""Run a benchmark and add what it printed, dated, to the performance page's log.

    python -m benchmarks.record benchmarks.class_load same 100
    python -m benchmarks.record benchmarks.suite_times results.txt

The benchmark runs as ``python -m MODULE ARGS`` (its output still shows as it comes); its
output goes at the top of the log of ``docs/performance.rst`` with the date, the command,
the machine (cores, Python, platform) and the load when it started, so that a figure is
never read without when and beside what it was taken.  Nothing is written when it fails.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "performance.rst"
MARK = ".. performance-log-start\n"


def machine():
    """The machine in a line: cores this process may use, Python, platform, load averages."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    try:
        load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        load = "unknown"
    return f"{cores} cores, Python {platform.python_version()}, {platform.system()}; load {load} (1, 5, 15 min)"


def entry(command, output, when=None, where=None):
    """The log's entry for ``command`` and what it printed (reStructuredText)."""
    when = when or datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = output.rstrip() or "(it printed nothing)"
    return (
        f"**{when}**: ``{command}``\n\n"
        f"   {where or machine()}\n\n"
        "   .. code-block:: text\n\n" + textwrap.indent(text, "      ") + "\n\n"
    )


def add(text, page=PAGE):
    """Put ``text`` at the top of the page's log."""
    content = page.read_text(encoding="utf-8")
    if MARK not in content:
        raise ValueError(f"{page} has no {MARK.strip()!r} line to add the log under")
    head, tail = content.split(MARK, 1)
    page.write_text(head + MARK + "\n" + text + tail.lstrip("\n"), encoding="utf-8")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    where = machine()
    command = ["python", "-m", *argv]
    lines = []
    with subprocess.Popen(
        [sys.executable, "-m", *argv], stdout=subprocess.PIPE, text=True, cwd=PAGE.parent.parent
    ) as process:
        for line in process.stdout:
            print(line, end="", flush=True)
            lines.append(line)
    if process.returncode != 0:
        print(f"{' '.join(command)} failed (exit {process.returncode}); nothing recorded", file=sys.stderr)
        return process.returncode
    add(entry(" ".join(command), "".join(lines), where=where))
    print(f"recorded in {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
