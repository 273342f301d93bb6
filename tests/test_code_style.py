"""The code as the project's tools want it: formatted by ruff, clean of ruff's lint rules
(pyproject.toml says which), and the library's type hints consistent under mypy."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*command):
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_the_code_is_formatted_and_lint_clean():
    pytest.importorskip("ruff")
    formatted = run("ruff", "format", "--check", ".")
    assert formatted.returncode == 0, formatted.stdout[-3000:] + formatted.stderr[-1000:]
    linted = run("ruff", "check", ".")
    assert linted.returncode == 0, linted.stdout[-3000:]


def test_the_library_type_checks():
    pytest.importorskip("mypy")
    checked = run("mypy", "mpcore")
    assert checked.returncode == 0, checked.stdout[-3000:]
    assert "Success" in checked.stdout


def test_the_players_modules_each_hold_one_concern_a_reader_can_take_in():
    """The step player is split by concern (decoding, screens, figures, drawing, labels,
    keys, lessons, predict mode, the Streamlit adapter, the saved page's entry): no module
    over 400 lines, and nothing left on ``window`` for the tests to read (they listen to the
    player's events: benchmarks/player_hooks.py)."""
    modules = sorted((ROOT / "static" / "player").glob("*.js"))
    assert len(modules) >= 10
    long = {path.name: n for path in modules if (n := len(path.read_text().splitlines())) > 400}
    assert not long, f"modules over 400 lines: {long}"
    for path in modules:
        for name in ("__mplPlayer", "__mplRendered", "__mplSettled"):
            assert name not in path.read_text(), f"{path.name} leaves {name} for the tests"
