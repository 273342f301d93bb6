"""How many pages each test file opens: a pytest plugin that counts, test by test, the pages
Playwright loads (``Page.goto``, ``Page.reload``) and the browser contexts it opens, and the
report of those counts by file, most loads first.  The suite is bound by the CPU of its two
cores, and each page a test opens costs Chromium seconds of it (the performance page): the
count says where they go.

    PAGE_LOADS=loads python -m pytest -p benchmarks.page_loads -n 2 ...   # each process writes loads/<pid>.tsv
    python -m benchmarks.page_loads loads                                  # by file, most loads first

Without ``PAGE_LOADS`` the plugin counts nothing.
"""

from __future__ import annotations

import atexit
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

FOLDER = "PAGE_LOADS"
LOADS = ("Page.goto", "Page.reload")
CONTEXTS = ("Browser.new_context", "Browser.new_page")


def watch(counts, current, methods):
    """Wrap each ``(cls, name)`` of ``methods`` so that a call adds one to
    ``counts[(current[0], "Cls.name")]``: the test running (``current[0]``) and what it called."""
    for cls, name in methods:
        original = getattr(cls, name)

        def counted(*args, _original=original, _what=f"{cls.__name__}.{name}", **kwargs):
            counts[(current[0], _what)] += 1
            return _original(*args, **kwargs)

        setattr(cls, name, counted)


def pytest_configure(config):
    folder = os.environ.get(FOLDER)
    if not folder:
        return
    from playwright.sync_api import Browser, Page

    counts, current = Counter(), ["(outside a test)"]
    watch(counts, current, [(Page, "goto"), (Page, "reload"), (Browser, "new_context"), (Browser, "new_page")])
    config.pluginmanager.register(_Current(current), "page-loads-current")
    atexit.register(_write, Path(folder), counts)


class _Current:
    def __init__(self, current):
        self.current = current

    def pytest_runtest_setup(self, item):
        self.current[0] = item.nodeid


def _write(folder, counts):
    folder.mkdir(parents=True, exist_ok=True)
    rows = [f"{test}\t{what}\t{number}\n" for (test, what), number in sorted(counts.items())]
    (folder / f"{os.getpid()}.tsv").write_text("".join(rows), encoding="utf-8")


def by_file(folder):
    """``{file: {"loads": n, "contexts": n}}`` from the counts the processes wrote into ``folder``."""
    files = defaultdict(Counter)
    for path in sorted(Path(folder).glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            test, what, number = line.rsplit("\t", 2)
            kind = "loads" if what in LOADS else "contexts" if what in CONTEXTS else None
            if kind:
                files[test.split("::")[0]][kind] += int(number)
    return dict(files)


def table(files):
    """The report's lines: each file's page loads and browser contexts, most loads first, and
    the totals."""
    width = max([len(name) for name in files] + [len("all files")])
    lines = [f"{'file':<{width}}  {'loads':>6}  {'contexts':>8}"]
    for name, count in sorted(files.items(), key=lambda item: (-item[1]["loads"], item[0])):
        lines.append(f"{name:<{width}}  {count['loads']:>6}  {count['contexts']:>8}")
    loads = sum(count["loads"] for count in files.values())
    contexts = sum(count["contexts"] for count in files.values())
    lines.append(f"{'all files':<{width}}  {loads:>6}  {contexts:>8}")
    return lines


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("Give the folder the test run's processes wrote into (PAGE_LOADS).", file=sys.stderr)
        return 2
    files = by_file(argv[0])
    if not files:
        print(f"{argv[0]} holds no counts: run the tests with PAGE_LOADS={argv[0]} and -p benchmarks.page_loads.")
        return 1
    print("\n".join(table(files)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
