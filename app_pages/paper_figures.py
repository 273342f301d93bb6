"""Paper figures: a gallery card per figure or table of the papers, reproduced on offline data."""

import streamlit as st

from mpcore.experiments import FIGURES, READINGS, run
from mpcore.experiments.report import load_kept
from ui import board, compute
from ui.state import Control, PageState, plain
from views import code, paper_figures, site

PAGE = "paper-figures"
PAPERS = {
    "all": ("All papers", None),
    "hussain2011": ("Hussain et al. (2011): bounds for KMP, sparse KPCA, sparse KCCA", "Hussain et al. (2011)"),
    "diethe2015": ("Diethe (2015): greedy kernel Fisher discriminants", "Diethe (2015)"),
    "vincent2002": ("Vincent and Bengio (2002): kernel matching pursuit", "Vincent and Bengio (2002)"),
    "wang2016": ("Wang (2016): column selection for KCCA", "Wang (2016)"),
}
LABELS = {  # each paper's own word for its items: Diethe writes "Figure", the others "Fig."
    name: ("Table " if "-table" in name else "Figure " if name.startswith("diethe") else "Fig. ")
    + name.rsplit("table" if "-table" in name else "fig", 1)[1]
    for name in FIGURES
}
RESULTS_MAX = 40
VERDICT_COLOURS = {"reproduced": "green", "partly": "orange", "not reproduced": "red", "not judged": "gray"}

state = PageState(PAGE)
# presenter mode and the text size as on every page (the cards' charts grow with the text)
board.page_top(
    state,
    site.by_key(PAGE).title,
    "Each card states what a paper found (with its numbers), reruns it here on offline data and says what "
    "differs from the paper's setting. **Quick** runs take seconds; **paper-sized** runs use the papers' sizes "
    "and repetitions and can take minutes. Each card quotes the sentence of the paper it judges, says how our "
    "numbers become a verdict (written before the runs, the same reading of vague words for every card) and gives "
    "the verdict (reproduced, partly, not reproduced, or not judged at this size) from the run's own numbers, with "
    "the reason. The same reproductions run from a terminal: "
    "`python -m views.paper_figures NAME --out DIR` writes each item's figures and verdict as HTML and its data as "
    "CSV, and `python -m mpcore.experiments report --out DIR` one page with every verdict.",
)

controls = st.columns([3, 2, 2])
paper = state.widget(
    controls[0].selectbox,
    Control("paper", "all", str, options=tuple(PAPERS)),
    "Paper",
    options=tuple(PAPERS),
    format_func=lambda key: PAPERS[key][0],
    scope=PAGE,
    help="Show the cards of one paper only.",
)
full = state.widget(
    controls[1].toggle,
    Control("full", False, bool),
    "Paper-sized runs",
    scope=PAGE,
    help="Off: quick runs (seconds, fewer splits and smaller sets). On: the papers' sizes and "
    "repetitions, which can take several minutes per card.",
)
size = "full" if full else "quick"
shown = [name for name, info in FIGURES.items() if paper == "all" or info.paper == PAPERS[paper][1]]
with st.expander("How the papers' vague words are read (the same for every card)", icon=":material/rule:"):
    st.markdown("\n".join(f"- {plain(word)}: {plain(reading)}." for word, reading in READINGS))


def _results():
    """Finished reproductions by (function, size), shared by all sessions (items that share a
    computation, like Figs 2 and 4, share the entry), in a store no ``clear_cache`` message
    empties (:func:`ui.compute.store`).  Not ``st.cache_resource`` on the function, so a
    progress bar can be drawn while it runs."""
    return compute.store("reproductions")


def _key(name):
    return FIGURES[name].function.__name__, size


def _compute(name, slot):
    store = _results()
    key = _key(name)
    if key not in store:

        def report(done, total):
            slot.progress(done / max(total, 1), text=f"Reproducing {name} ({size}): {done} of {total} runs")

        try:
            with compute.released():  # minutes at full size: other pages run meanwhile
                store[key] = run(name, size, progress=report)
        except ValueError as error:
            slot.error(f"Cannot reproduce {name}: {error}", icon=":material/error:")
            return
        while len(store) > RESULTS_MAX:
            store.popitem(last=False)
        slot.empty()
    store.move_to_end(key)


@st.cache_data(show_spinner=False)
def _kept():
    """The full-size results kept with the package (None when there are none)."""
    return load_kept()


def _kept_verdict(name):
    """The kept full-size verdict of item ``name``: the first thing a card shows."""
    kept = _kept()
    item = None if kept is None else kept["items"].get(name)
    if item is None or item["status"] is None:
        return False
    meta = kept["meta"]
    if item["status"] == "skipped":
        st.caption(f"Not in the kept full-size run of {meta['date']}: {plain(item['reason'])}")
        return False
    colour = VERDICT_COLOURS[item["status"]]
    st.markdown(f":{colour}-badge[**{item['status'].capitalize()}** at full size] {plain(item['reason'])}")
    with st.expander("The full-size run's numbers"):
        st.markdown("\n".join(f"- {plain(key)}: {plain(value)}" for key, value in item["findings"].items()))
    st.caption(
        f"Kept from `report --size full` ({meta['data']}), run {meta['date']} with version "
        f"{meta['versions']['matching-pursuit-lab']} on {meta['machine']}: {item['seconds']:.0f} s. "
        "Rerun it below to see its figures."
    )
    return True


def _card(name):
    info = FIGURES[name]
    with st.container(border=True):
        st.subheader(f"{info.paper}, {LABELS[name]}: {info.title}")
        st.markdown(f"**The paper says.** {plain(info.quoted)}")
        st.markdown(f"**Judged by.** {plain(info.criterion)}")
        st.markdown(f"**The paper's finding.** {info.finding}")
        st.markdown(f"**Settings: the paper's and ours.** {info.differences}")
        if info.needs_data:
            _kept_verdict(name)
            st.info(
                "This item needs files that are not bundled with the app (the validation data). Run it from a "
                f"terminal: `python -m mpcore.experiments {name} --data-dir DIR --out OUT`, or "
                "`python -m mpcore.experiments report --data-dir DIR --out OUT` for every verdict.",
                icon=":material/folder_off:",
            )
            return
        kept = _kept_verdict(name)
        slot = st.empty()
        stored = _results().get(_key(name))
        if stored is None:
            label = ("Rerun" if kept else "Reproduce") + (" (paper-sized: minutes)" if full else " (quick: up to 20 s)")
            if not slot.button(
                label,
                key=f"run-{name}-{size}",
                icon=":material/play_arrow:",
                help="Run this reproduction now; the result is kept for everyone until the app restarts.",
            ):
                return
            _compute(name, slot)
            stored = _results().get(_key(name))
            if stored is None:
                return
        result = stored.as_item(name)
        verdict = result.verdict
        if verdict is not None:
            colour = VERDICT_COLOURS[verdict.status]
            st.markdown(f":{colour}-badge[**{verdict.status.capitalize()}**] {plain(verdict.reason)}")
        for number, fig in enumerate(paper_figures.paper_figures(result)):
            board.chart(fig, key=f"fig-{name}-{number}")
        ours = (f"- {key}: {paper_figures.format_value(value)}" for key, value in result.findings.items())
        st.markdown("**Ours.**\n" + "\n".join(ours))
        st.caption(f"{size} run, {result.seconds:.1f} s; settings: {paper_figures.format_value(result.settings)}")
        st.download_button(
            "Download the data (CSV)",
            result.to_csv,
            f"{name}-{size}.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
            key=f"csv-{name}-{size}",
            help="The numbers behind the figure, one row per point / cell.",
        )
        board.copy_as_code(
            lambda: code.experiment_script(f"{info.paper}, {LABELS[name]}: {info.title}", name, size),
            f"{name}-{size}",
        )


missing = [name for name in shown if _key(name) not in _results() and not FIGURES[name].needs_data]
if missing and controls[2].button(
    f"Reproduce all {len(missing)} shown",
    icon=":material/play_circle:",
    key="run-all",
    help="Run every card shown that has no result yet, one after another.",
):
    slot = st.empty()
    for name in missing:
        _compute(name, slot)
    st.rerun()  # redraw the cards (and this button's count) from the finished results

for name in shown:
    _card(name)
state.write_url()
