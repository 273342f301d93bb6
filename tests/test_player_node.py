"""The player's pure helpers under Node's own test runner (``tests/js/*.test.mjs``,
``node --test``): run with the rest of the suite.  Node is needed; under CI (``CI`` set) its
absence is a failure, elsewhere the test is skipped with a message."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_players_pure_helpers_pass_under_node():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("Node is needed for the player's tests (tests/js) and was not found")
        pytest.skip("Node is not installed: the player's tests in tests/js were not run")
    tests = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "tests" / "js").glob("*.test.mjs"))
    assert tests, "no tests in tests/js"
    done = subprocess.run([node, "--test", *tests], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout
