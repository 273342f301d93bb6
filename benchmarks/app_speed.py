"""Server time of the app's pages with default settings, measured with AppTest.

For each page: the first compute (cold cache: the page's study is computed) and a step
(the Next button: cached study, only the step's views are redrawn; on the bounds
explorer, which has no stepper, moving a slider), each the median of several runs.  Budgets (SPEC section 7): first compute <= 2 s, step <= 0.3 s.

    python -m benchmarks.app_speed [--repeats 5]

The Paper figures page computes nothing until asked: it is timed opening, and each of its
cards by the quick reproduction behind it (``mpcore.experiments.run(name, "quick")``,
the time a user waits after pressing the card's button).

AppTest runs the whole script for a click (a browser reruns only the stepper fragment),
so the step figure here is an upper bound of what a user waits for.
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
PAGES = {"Sparse KPCA": ("app_pages/sparse_kpca.py", "skpca"), "KMP": ("app_pages/kmp.py", "kmp"),
         "Sparse KCCA": ("app_pages/sparse_kcca.py", "skcca"), "MPKFDA": ("app_pages/mpkfda.py", "mpkfda"),
         "Deflation lab": ("app_pages/deflation_lab.py", "deflation-lab"),
         "Column lab": ("app_pages/column_lab.py", "column-lab"),
         "Bounds": ("app_pages/bounds_explorer.py", None)}


def measure(path, key, repeats):
    first, steps = [], []
    for _ in range(repeats):
        st.cache_resource.clear()
        st.cache_data.clear()
        at = AppTest.from_file(APP, default_timeout=120)
        at.run()  # home page (its own small studies), not timed
        st.cache_resource.clear()
        st.cache_data.clear()
        started = time.perf_counter()
        at.switch_page(path).run()
        first.append(time.perf_counter() - started)
        for _ in range(3):
            started = time.perf_counter()
            if key is None:  # no stepper: time a rerun after moving the first slider instead
                slider = at.slider[0]
                slider.set_value(slider.max if slider.value != slider.max else slider.min).run()
            else:
                at.button(key=f"{key}:next").click().run()
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
    print(f"{'Paper figures':<16}{statistics.median(opens):>20.2f}{statistics.median(opens) / 2.0:>8.0%}"
          "   (opening: nothing runs until a card's button)")
    done = {}
    for name, info in FIGURES.items():
        if info.function in done:  # Figs 2/4, 3/5 and Figures 1/3 share one computation
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
    args = parser.parse_args()
    print(f"{'page':<16}{'first compute (s)':>20}{'budget':>9}{'step (s)':>11}{'budget':>9}")
    for name, (path, key) in PAGES.items():
        first, step = measure(path, key, args.repeats)
        print(f"{name:<16}{first:>20.2f}{first / 2.0:>8.0%}{step:>11.3f}{step / 0.3:>8.0%}")
    gallery(args.repeats)
    print("(medians; 'budget' = share of the SPEC budget used: 2 s first compute, 0.3 s per step)")


if __name__ == "__main__":
    main()
