"""The full-size verdicts kept with the package (what the gallery and the README show first)
must be what the current code computes: one cheap item is rerun at full size and compared."""

import json
import sys
from pathlib import Path

import pytest

from mpcore import experiments as E
from mpcore.experiments.report import KEPT, load_kept, short, verdict_summary, verdict_table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import keep_results  # noqa: E402


@pytest.fixture(scope="module")
def kept():
    kept = load_kept()
    assert kept is not None, f"{KEPT.name} is missing: run `make reproduce`"
    return kept


def test_kept_results_are_a_full_run_with_the_validation_data(kept):
    meta = kept["meta"]
    assert meta["size"] == "full" and meta["data"] == "validation data"
    assert set(kept["items"]) == set(E.FIGURES)
    assert all(item["status"] in E.VERDICTS for item in kept["items"].values()), "every item judged, none skipped"
    assert "/" not in meta["machine"] and meta["date"].endswith("UTC")


def test_kept_results_are_what_the_current_code_computes(kept):
    result = E.run("vincent2002-fig6", "full")
    item = kept["items"]["vincent2002-fig6"]
    assert (item["status"], item["reason"]) == (result.verdict.status, result.verdict.reason)
    assert item["findings"] == {key: short(value) for key, value in result.findings.items()}


def test_the_docs_and_the_readme_show_the_kept_verdicts(kept):
    """The reproduction page's table and the README's sentence are the kept run's, as
    tools/keep_results.py writes them."""
    page = (ROOT / "docs" / "reproducing.md").read_text(encoding="utf-8")
    block = page.split(keep_results.START, 1)[1].split(keep_results.END, 1)[0]
    assert block.strip() == verdict_table(kept).strip()
    assert block.count("\n| ") == len(E.FIGURES) + 2  # the header, its rule and one line per item
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.split(keep_results.START, 1)[1].split(keep_results.END, 1)[0].strip() == verdict_summary(kept)


def test_keeping_refuses_a_run_that_is_not_full_size(tmp_path):
    quick = tmp_path / "results.json"
    quick.write_text(json.dumps({"meta": {"size": "quick"}, "items": {}}))
    with pytest.raises(SystemExit, match="quick run"):
        keep_results.main([str(quick)])
    assert (
        keep_results.readme_with("T\n", "a <!-- verdicts:start -->\nold\n<!-- verdicts:end --> b")
        == "a <!-- verdicts:start -->\nT\n<!-- verdicts:end --> b"
    )
