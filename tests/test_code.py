"""Copy as code: each page's script runs on its own (mpcore and scikit-learn only) and
prints the numbers the page shows."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_app import assert_clean, decode, figures, open_page, opened, panel, player

from ui import board
from views.code import numbers_of

ROOT = Path(__file__).resolve().parent.parent


def run_script(at, tmp_path, stem):
    """The script of the view's "Copy as code" menu (``stem``), run on its own: its NUMBERS."""
    assert not [block for block in at.code if "NUMBERS" in block.value], "made before the menu is opened"
    opened(at, board.code_menu_key(stem))
    assert_clean(at)
    scripts = [block.value for block in at.code if "NUMBERS" in block.value]
    assert len(scripts) == 1, "the page must offer exactly one script"
    script = scripts[0]
    assert "streamlit" not in script and "plotly" not in script and "ui." not in script and "views." not in script
    path = tmp_path / "view.py"
    path.write_text(script)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return numbers_of(result.stdout)


def page_trace(fig, name):
    return next(item for item in fig["data"] if item.get("name") == name)


@pytest.mark.parametrize(
    "page, curve",
    [("skpca", "compression bound"), ("kmp", "KMP bound"), ("skcca", "SKCCA bound"), ("mpkfda", "test error rate")],
)
def test_algorithm_page_script_prints_the_pages_curves(page, curve, tmp_path):
    at = open_page(page)
    stem = {"skpca": "sparse-kpca", "kmp": "kernel-matching-pursuit", "skcca": "sparse-kcca", "mpkfda": "mpkfda"}[page]
    assert_clean(at)
    numbers = run_script(at, tmp_path, stem)
    bounds = panel(player(at), "bounds")["figure"]
    shown = decode(page_trace(bounds, curve)["y"]).astype(float)
    ours = np.asarray(numbers["curves"][curve], dtype=float)
    finite = np.isfinite(shown)
    assert finite.any() and shown.size == ours.size
    np.testing.assert_allclose(ours[finite], shown[finite], rtol=1e-5, atol=1e-7)
    assert len(numbers["indices"]) == ours.size


def test_deflation_lab_script_prints_each_deflations_errors(tmp_path):
    at = open_page("deflation-lab", {"points": "200", "k": "8"})
    numbers = run_script(at, tmp_path, "deflation-lab")
    errors = panel(player(at), "errors")["figure"]
    for name, values in numbers["errors"].items():
        np.testing.assert_allclose(values, decode(page_trace(errors, name)["y"]), rtol=1e-5)


def test_column_lab_script_prints_the_correlation_errors(tmp_path):
    at = open_page("column-lab")
    numbers = run_script(at, tmp_path, "column-selection")
    fig = panel(player(at), "rho")["figure"]  # "Canonical correlation error (Fig. 1b)", drawn by the player
    for method in ("uniform", "ridge-leverage"):
        # atol: at the top ranks rho~ comes from an ill-conditioned solve, and the app's one
        # BLAS thread rounds differently from the script's default at about 1e-10
        np.testing.assert_allclose(numbers[f"{method} rho"], decode(page_trace(fig, method)["y"]), rtol=1e-5, atol=1e-9)


def test_bounds_explorer_script_prints_the_curve(tmp_path):
    at = open_page("bounds")
    numbers = run_script(at, tmp_path, "bounds-explorer")
    fig = panel(player(at), "bound")["figure"]  # "Bound against ...", drawn by the player
    shown = decode(fig["data"][0]["y"]).astype(float)
    ours = np.asarray(numbers["bound"], dtype=float)
    finite = np.isfinite(shown) & np.isfinite(ours)
    np.testing.assert_allclose(ours[finite], shown[finite], rtol=1e-5)


def test_paper_card_script_prints_the_cards_table(tmp_path):
    at = open_page("paper-figures", {"paper": "vincent2002"})
    if any(button.key == "run-vincent2002-fig6-quick" for button in at.button):  # not run yet in this process
        at.button(key="run-vincent2002-fig6-quick").click().run()
    assert_clean(at)
    numbers = run_script(at, tmp_path, "vincent2002-fig6-quick")
    titles = [a["text"] for f in figures(at) for a in f["layout"].get("annotations", []) if "test error" in a["text"]]
    shown = [float(text.rsplit("test error ", 1)[1]) for text in titles[:4]]
    np.testing.assert_allclose(numbers["test error"], shown, atol=5e-4)
