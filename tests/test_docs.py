"""The documentation: the site builds offline with warnings as errors, the public API's
docstrings pass numpydoc's validation, and their examples run (doctests)."""

import doctest
import html
import importlib
import inspect
import pkgutil
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from test_examples import EXPECT

import mpcore

ROOT = Path(__file__).resolve().parent.parent
#: numpydoc's checks every public object passes: the site's own (docs/conf.py), one list
#: (``"all"`` and the codes left out, as numpydoc reads it).
CHECKS = runpy.run_path(str(ROOT / "docs" / "conf.py"))["numpydoc_validation_checks"]
#: The public modules whose every function, class and method is checked too.
MODULES = (
    "bounds",
    "datasets",
    "criteria",
    "deflations",
    "curves",
    "studies",
    "labs",
    "views",
    "explore",
    "references",
)
#: Result records: their fields are documented as Attributes, their constructors are internal.
RECORDS = {"PursuitPath", "CCAResult", "KCCAResult", "NystromKCCAResult", "FisherModel"}


def numpydoc_errors(name):
    from numpydoc.validate import validate

    return [f"{name}: {code} {message}" for code, message in validate(name)["errors"] if checked(code)]


def checked(code):
    """Whether the site checks numpydoc's ``code``: ``{"all", ...}`` lists the exceptions."""
    return (code not in CHECKS) if "all" in CHECKS else (code in CHECKS)


def public_api():
    """Every public function, class and method of ``mpcore.__all__`` and of the public modules."""
    names = []
    for name in mpcore.__all__:
        obj = getattr(mpcore, name)
        if inspect.isfunction(obj):
            names.append(f"{obj.__module__}.{name}")
        elif inspect.isclass(obj):
            if name not in RECORDS:
                names.append(f"{obj.__module__}.{name}")
            names += [
                f"{obj.__module__}.{name}.{method}"
                for method, function in inspect.getmembers(obj, inspect.isfunction)
                if not method.startswith("_") and function.__module__.startswith("mpcore")
            ]
    for module_name in MODULES:
        module = importlib.import_module(f"mpcore.{module_name}")
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                names.append(f"{module.__name__}.{name}")
            elif inspect.isclass(obj):
                names.append(f"{module.__name__}.{name}")
                names += [
                    f"{module.__name__}.{name}.{method}"
                    for method, function in vars(obj).items()
                    if inspect.isfunction(function) and not method.startswith("_")
                ]
    return sorted(set(names))


def test_the_public_api_passes_numpydoc_validation():
    names = public_api()
    assert len(names) > 200 and "mpcore.estimators.SparseKPCA.fit" in names and "mpcore.bounds.kmp_vc" in names
    assert "mpcore.deflations.LowRankDeflation.deflate" in names and "mpcore.studies.Study.heatmaps" in names
    errors = [error for name in names for error in numpydoc_errors(name)]
    assert errors == [], "\n".join(errors)


def undocumented_parameter(alpha, beta):
    """A function whose docstring forgets one parameter and its return value.

    Parameters
    ----------
    alpha : int
        Documented.
    """
    return alpha + beta


def test_the_validation_catches_a_missing_parameter_and_return():
    """The check above is not vacuous: a docstring that forgets ``beta`` and Returns fails it."""
    errors = numpydoc_errors(f"{__name__}.undocumented_parameter")
    assert any("PR01" in error and "beta" in error for error in errors)
    assert any("RT01" in error for error in errors)


def test_the_docstring_examples_run():
    """Every ``>>>`` example in mpcore runs and prints what it shows."""
    attempted = failed = 0
    for info in pkgutil.walk_packages(mpcore.__path__, "mpcore."):
        module = importlib.import_module(info.name)
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        attempted, failed = attempted + result.attempted, failed + result.failed
    assert failed == 0
    assert attempted >= 50  # the estimators', the bounds', the kernels' and Nystroem KCCA's examples


def test_the_site_builds_offline_with_warnings_as_errors(tmp_path):
    """``make docs``: Sphinx with numpydoc's validation, autosummary and the gallery (every
    example run to the end, printing what it promises, its figure kept), warnings as errors."""
    pytest.importorskip("sphinx_gallery")
    out = tmp_path / "html"
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q", str(ROOT / "docs"), str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    estimator = (out / "generated" / "mpcore.SparseKPCA.html").read_text(encoding="utf-8")
    assert "Parameters" in estimator and "n_components" in estimator and "Examples" in estimator
    assert 'id="mpcore.SparseKPCA.fit"' in estimator  # the methods are documented on the class's page
    gallery = out / "auto_examples"
    assert len(list(gallery.glob("*.html"))) >= 8 and len(list((out / "_images").glob("sphx_glr_*_001.png"))) >= 7
    for name, printed in EXPECT.items():  # every example ran to the end and printed what it promises
        page = html.unescape((gallery / name.replace(".py", ".html")).read_text(encoding="utf-8"))
        assert printed in page, (name, printed)
    # offline: no page loads a script or a style sheet from elsewhere (sphinx-gallery's page
    # of the examples' run times loaded jQuery and DataTables from CDNs)
    remote = re.compile(r'<script[^>]+src="https?://|<link[^>]+href="https?://')
    loading = [str(path.relative_to(out)) for path in out.rglob("*.html") if remote.search(path.read_text("utf-8"))]
    assert loading == [], loading
    references = (out / "references.html").read_text(encoding="utf-8")
    assert "https://doi.org/10.1023/A:1013955821559" in references and "Diethe" in references
    assert (out / "_images" / "presenter.png").exists()
    # what moved out of the README is on the site, with the changelog and how to cite
    for page in ("teaching", "lessons", "serving", "reproducing", "library", "sklearn_users", "speed", "changelog"):
        assert (out / f"{page}.html").exists(), page
    import yaml

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    citing = html.unescape(re.sub(r"<[^>]+>", "", (out / "citing.html").read_text(encoding="utf-8")))
    assert f"version = {{{cff['version']}}}" in citing and f"title = {{{cff['title']}}}" in citing
    assert cff["version"] == mpcore.__version__
    # each estimator's page shows the gallery examples that use it (sphinx-gallery's back-references)
    for name in ("SparseKPCA", "MPKFDA", "kmp_path"):
        assert "sphx-glr-thumbcontainer" in (out / "generated" / f"mpcore.{name}.html").read_text(encoding="utf-8"), (
            name
        )


# --- the README: what a newcomer reads first ------------------------------------------------
README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def test_the_readme_is_short_and_every_link_in_it_opens():
    """At most ~200 lines (a five-minute read), and every relative link and picture names a
    file of the repository (the pages it sends readers to are in the docs)."""
    assert len(README.splitlines()) <= 200
    links = re.findall(r"\]\(([^)\s]+)\)", README)
    assert len(links) >= 10
    for link in links:
        if link.startswith(("http://", "https://")):
            continue
        assert (ROOT / link.split("#")[0]).exists(), f"the README links to {link}, which does not exist"


def test_the_readmes_python_runs():
    """The library in ten lines: the README's Python runs as it is written."""
    blocks = readme_blocks("python")
    assert blocks and len(blocks[0].strip().splitlines()) <= 12
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_the_readmes_commands_are_ones_the_project_has():
    """Every ``make`` target the README names is in the Makefile, and every ``python -m``
    command exists and takes every option the README gives it."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    commands = [line.split("#")[0].strip() for block in readme_blocks("bash") for line in block.splitlines()]
    commands = [command for command in commands if command]
    assert any(command.startswith("make run") for command in commands)
    for command in commands:
        words = command.split()
        if words[0] == "make":
            assert re.search(rf"^{words[1]}:", makefile, re.M), f"make {words[1]} is not a target"
        elif "-m" in words:
            module = words[words.index("-m") + 1]
            shown = subprocess.run(
                [sys.executable, "-m", module, "--help"], capture_output=True, text=True, cwd=ROOT, timeout=120
            )
            assert shown.returncode == 0, shown.stderr[-2000:]
            for option in (word for word in words if word.startswith("--")):
                assert option in shown.stdout, f"{module} has no {option}"
        else:
            pytest.fail(f"the README's command {command!r} is not checked here")
