"""The code as the project's tools want it: formatted by ruff, clean of ruff's lint rules
(pyproject.toml says which), and the library's type hints consistent under mypy."""

import re
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
    """``mypy mpcore`` under pyproject.toml's settings: strict, every module."""
    pytest.importorskip("mypy")
    checked = run("mypy", "mpcore")
    assert checked.returncode == 0, checked.stdout[-3000:]
    assert "Success" in checked.stdout


def _strict(script):
    """``mypy --strict`` on a user's script, as a user with mpcore installed runs it: the
    library is read for its types, its own findings are not the script's."""
    return run("mypy", "--strict", "--follow-imports=silent", f"tests/typing/{script}")


def test_a_users_script_that_fits_and_transforms_sees_real_types():
    """Every estimator, path and bound a script touches has a type (they were all ``Any``):
    the script passes ``mypy --strict`` and no revealed type is ``Any``."""
    pytest.importorskip("mypy")
    checked = _strict("fit_and_transform.py")
    assert checked.returncode == 0, checked.stdout[-3000:]
    revealed = re.findall(r'Revealed type is "(.+)"', checked.stdout)
    asked = (ROOT / "tests" / "typing" / "fit_and_transform.py").read_text().count("reveal_type(")
    assert len(revealed) == asked, checked.stdout
    assert not [kind for kind in revealed if kind == "Any" or kind.endswith("| Any")], revealed
    assert "mpcore.estimators.SparseKPCA" in revealed and "mpcore.engine.PursuitPath" in revealed


def test_a_wrong_call_fails_the_type_check():
    """The check above could pass on types that say nothing; these calls it must refuse."""
    pytest.importorskip("mypy")
    checked = _strict("wrong_calls.py")
    assert checked.returncode == 1
    assert 'Argument "n_components" to "SparseKPCA" has incompatible type "str"' in checked.stdout
    assert "wrong_calls.py:10: error: Incompatible types in assignment" in checked.stdout


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
