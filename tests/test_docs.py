"""The examples in the core's docstrings run and print what they say."""
import doctest
import importlib

import pytest

MODULES = ["mpcore.studies", "mpcore.labs", "mpcore.explore", "mpcore.experiments"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
