"""Server time of the app's pages with default settings, measured with AppTest.

For each page: the first compute (cold cache: the page's study is computed, and on the
pages with the step player every step's views are built and sent) and then a rerun with
everything cached -- what any later interaction with the sidebar costs at least.  Steps
themselves run in the browser on every page (``benchmarks.browser_speed`` times them), so
the second figure is a cached rerun.  Each figure is the median of several runs.  Budgets: first compute <= 1 s at the
defaults and <= 2 s at the largest size (``--points 3000``), step <= 0.3 s.

    python -m benchmarks.app_speed [--repeats 5]

The Paper figures page computes nothing until asked: it is timed opening, and each of its
cards by the quick reproduction behind it (``mpcore.experiments.run(name, "quick")``,
the time a user waits after pressing the card's button).

"""

import argparse
import statistics
import time
from pathlib import Path

import streamlit as st
from streamlit.logger import set_log_level
from streamlit.testing.v1 import AppTest

set_log_level("error")  # AppTest's bare-mode cache notices are not results

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGES = {
    "Sparse KPCA": "app_pages/sparse_kpca.py",
    "KMP": "app_pages/kmp.py",
    "Sparse KCCA": "app_pages/sparse_kcca.py",
    "MPKFDA": "app_pages/mpkfda.py",
    "Deflation lab": "app_pages/deflation_lab.py",
    "Column lab": "app_pages/column_lab.py",
    "Bounds": "app_pages/bounds_explorer.py",
}
# With --points: a generated dataset each page offers, since the bundled ones are smaller than 3000
GENERATED = {
    "Sparse KPCA": "rings",
    "KMP": "sinc",
    "Sparse KCCA": "rings-two-view",
    "MPKFDA": "moons",
    "Deflation lab": "moons",
    "Column lab": "rings-two-view",
}


def measure(path, repeats, params=()):
    first, steps = [], []
    for _ in range(repeats):
        st.cache_resource.clear()
        st.cache_data.clear()
        at = AppTest.from_file(APP, default_timeout=120)
        at.run()  # home page (its own small studies), not timed
        st.cache_resource.clear()
        st.cache_data.clear()
        for name, value in params:  # a link's settings, read on entering the page
            at.query_params[name] = value
        started = time.perf_counter()
        at.switch_page(path).run()
        first.append(time.perf_counter() - started)
        for _ in range(3):
            started = time.perf_counter()
            at.run()
            steps.append(time.perf_counter() - started)
        assert not at.exception, at.exception
    return statistics.median(first), statistics.median(steps)


def gallery(repeats):
    """Opening the Paper figures page, and each card's quick reproduction (medians)."""
    from mpcore.experiments import FIGURES, run

    opens = []
    for _ in range(repeats):
        at = AppTest.from_file(APP, default_timeout=120)
        at.run()
        started = time.perf_counter()
        at.switch_page("app_pages/paper_figures.py").run()
        opens.append(time.perf_counter() - started)
        assert not at.exception, at.exception
    print(
        f"{'Paper figures':<16}{statistics.median(opens):>20.2f}{statistics.median(opens) / 2.0:>8.0%}"
        "   (opening: nothing runs until a card's button)"
    )
    done = {}
    for name, info in FIGURES.items():
        if info.function in done or info.needs_data:  # shared computations; items needing --data-dir
            continue
        seconds = []
        for _ in range(max(1, min(repeats, 3))):
            started = time.perf_counter()
            run(name, "quick")
            seconds.append(time.perf_counter() - started)
        done[info.function] = statistics.median(seconds)
        print(f"  card {name:<11}{done[info.function]:>18.2f} s (quick reproduction)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--points",
        type=int,
        default=None,
        help="open each page with this many points (the largest the app allows is 3000); "
        "default: the page's defaults, and the gallery is timed too",
    )
    parser.add_argument(
        "--pages",
        nargs="*",
        default=None,
        metavar="PAGE",
        help="time only these pages (names as printed, e.g. 'Deflation lab')",
    )
    args = parser.parse_args()
    params = () if args.points is None else (("points", str(args.points)),)
    budget = 1.0 if args.points is None else 2.0  # issue targets: 1 s at defaults, 2 s at the largest size
    print(f"points: {'defaults' if args.points is None else args.points}")
    print(f"{'page':<16}{'first compute (s)':>20}{'budget':>9}{'rerun (s)':>15}{'budget':>9}")
    for name, path in PAGES.items():
        if args.pages and name not in args.pages:
            continue
        data = (("data", GENERATED[name]),) if params and name in GENERATED else ()
        first, step = measure(path, args.repeats, params + data)
        print(f"{name:<16}{first:>20.2f}{first / budget:>8.0%}{step:>15.3f}{step / 0.3:>8.0%}")
    if args.points is None and not args.pages:
        gallery(args.repeats)
    print(
        f"(medians; 'budget' = share used of {budget:g} s for the first compute and 0.3 s for a cached rerun; "
        "steps run in the browser)"
    )


if __name__ == "__main__":
    main()
