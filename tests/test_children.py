"""Studies computed in child processes (``serving/children.py``): the same study and
payload as computed in the app's process, bounds that end a runaway study with a
sentence, and a computation nobody waits for stopped at once."""

import multiprocessing
import os

import pytest

from serving import children
from ui import compute
from views import pictures

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs fork (Linux, macOS)")


def test_a_study_computed_in_a_child_is_the_one_computed_here_and_drawn_the_same():
    settings, _ = pictures.read_address("kmp", {"data": "sinc", "points": "200", "k": "6", "seed": "3"})
    study, seconds, shown = children.compute(settings)
    here, _ = pictures.compute(settings)
    assert seconds > 0
    assert shown == compute.drawn(settings, here)  # the gzipped payload byte for byte, its steps and numbers
    assert shown == compute.drawn(settings, study)


def test_the_payload_is_handed_over_before_the_study_has_crossed():
    """``drawn`` hears of the payload while the child's study is still on its way: called
    once, with the payload the call then returns, before the call returns."""
    settings, _ = pictures.read_address("kmp", {"data": "sinc", "points": "200", "k": "5", "seed": "4"})
    heard = []
    returned = []

    def drawn(payload):
        heard.append(payload)
        assert not returned, "the payload came after the study"

    returned.append(children.compute(settings, drawn=drawn))
    assert heard == [returned[0][2]] and heard[0][0][:2] == b"\x1f\x8b"  # the gzipped payload


def studies():
    """The study children running now (not another worker of this process: an upload's)."""
    return [child for child in multiprocessing.active_children() if type(child).__name__ == "ForkServerProcess"]


def test_a_child_runs_below_the_page_scripts(monkeypatch):
    seen = []
    settings, _ = pictures.read_address("column-lab", {})

    def progress(done, total):
        if not seen:  # asked from the child's loop: its niceness, read from outside
            seen.extend(os.getpriority(os.PRIO_PROCESS, child.pid) for child in studies())

    children.compute(settings, progress)
    assert seen and min(seen) >= children.NICE


def test_a_study_past_its_memory_gets_a_sentence_and_the_server_goes_on(monkeypatch):
    monkeypatch.setattr(children, "MEMORY", 30_000_000)
    settings, _ = pictures.read_address("skcca", {"points": "3000", "k": "100"})
    with pytest.raises(ValueError, match="more memory than the server gives one study"):
        children.compute(settings)
    monkeypatch.undo()
    small, _ = pictures.read_address("kmp", {"data": "sinc", "points": "100", "k": "3"})
    assert children.compute(small)[0] is not None


def test_the_cores_sentence_of_the_core_comes_back_as_it_is():
    settings, _ = pictures.read_address("kmp", {"data": "moons", "variant": "prefit", "loss": "tanh"})
    with pytest.raises(ValueError, match="Pre-fitting needs the squared loss"):
        children.compute(settings)


def test_a_computation_nobody_waits_for_is_stopped():
    """The session left (Streamlit stops its script at the next progress report): the
    child is stopped then, not left to run to its end."""
    settings, _ = pictures.read_address("column-lab", {})
    reports = []

    def progress(done, total):
        reports.append(done)
        if len(reports) == 2:
            raise RuntimeError("the session left")

    with pytest.raises(RuntimeError, match="the session left"):
        children.compute(settings, progress)
    assert studies() == []


FIRST_USE = """
import sys
import serving.first_use as first_use
from ui import compute
from views import pictures
print(first_use.MISSED)
loaded = set(sys.modules)
for page, query in [("kmp", {"data": "moons", "points": "150", "gamma": "3"}), ("skpca", {"points": "120"}),
                    ("mpkfda", {"points": "140"}), ("deflation-lab", {"points": "100"})]:
    settings, _ = pictures.read_address(page, query)
    study, _ = pictures.compute(settings)
    compute.drawn(settings, study)
print(sorted(set(sys.modules) - loaded))
"""


def test_the_fork_server_has_loaded_what_a_study_imports_on_first_use():
    """A child is forked from the fork server for each study: what the core and the
    pictures import on first use (scikit-learn's and Plotly's lazily loaded modules) is
    loaded there once (``serving/first_use.py``), so that a child imports nothing."""
    import subprocess
    import sys

    assert "serving.first_use" in children.PRELOAD
    done = subprocess.run([sys.executable, "-c", FIRST_USE], capture_output=True, text=True, check=True, timeout=300)
    missed, imported = done.stdout.strip().splitlines()[-2:]
    assert missed == "[]", missed
    assert imported == "[]", f"a study imported modules the fork server had not: {imported}"
