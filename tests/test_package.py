"""The package as a user gets it: build the wheel, install it into a fresh virtual
environment outside the checkout, and run a smoke script there (estimators, the bundled
data through importlib.resources, the experiments command, no app libraries)."""

import functools
import os
import shutil
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SMOKE = textwrap.dedent("""
    import subprocess, sys
    from pathlib import Path
    import numpy as np
    import mpcore
    from mpcore import SparseKPCA, KernelMatchingPursuit
    from mpcore.datasets import load_dataset

    assert "site-packages" in mpcore.__file__, mpcore.__file__
    boston = load_dataset("boston")
    assert boston.X.shape == (506, 12)
    for name in ("sonar", "pima", "ionosphere"):
        assert load_dataset(name).X.shape[0] > 200
    X = boston.X[:120]
    Z = SparseKPCA(n_components=5).fit(X).transform(X)
    assert Z.shape == (120, 5) and np.isfinite(Z).all()
    model = KernelMatchingPursuit(n_components=8).fit(X, boston.y[:120])
    assert model.predict(X).shape == (120,)
    out = Path(sys.argv[1])
    subprocess.run([sys.executable, "-m", "mpcore.experiments", "hussain2011-fig7", "--size", "tiny", "--jobs", "1",
                    "--out", str(out)], check=True)
    assert (out / "hussain2011-fig7.csv").read_text().count("\\n") > 2 and "Verdict" in (out / "hussain2011-fig7.html").read_text()
    assert not {"streamlit", "plotly", "ui", "views"} & set(sys.modules)
    print("smoke ok")
""")


def _one_build_at_a_time(run_folder):
    """A lock for building from the checkout: setuptools builds in its ``build/`` and
    ``*.egg-info``, and two workers' builds at once break each other ("Failed building
    wheel")."""
    from filelock import FileLock

    return FileLock(str(run_folder / "build.lock"))


@pytest.fixture(scope="module")
def wheel(run_folder):
    """The wheel, built from the checkout once per run: the test workers share it."""
    wheels = run_folder / "wheels"
    with _one_build_at_a_time(run_folder):
        if not any(wheels.glob("matching_pursuit_lab-*.whl")):
            wheels.mkdir(exist_ok=True)
            subprocess.run(
                [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(wheels)],
                check=True,
                cwd=wheels,
            )
    return next(wheels.glob("matching_pursuit_lab-*.whl"))


def fresh_environment(base, requirement):
    """A new virtual environment in ``base`` (outside the checkout) with ``requirement``
    installed from the wheel's own metadata: by uv when the test environment has it (``make
    venv`` installs it: seconds where pip takes most of a minute), else by pip."""
    env = base / "venv"
    uv = Path(sys.executable).parent / "uv"
    venv.EnvBuilder(with_pip=not uv.exists()).create(env)  # uv installs into it without pip
    python = env / "bin" / "python"
    if uv.exists():
        command = [str(uv), "pip", "install", "--quiet", "--link-mode", "copy", "--python", str(python), requirement]
    else:
        command = [str(python), "-m", "pip", "install", "-q", requirement]
    subprocess.run(command, check=True, cwd=base)
    return python


@pytest.fixture(scope="module")
def installed(tmp_path_factory, wheel):
    """A fresh virtual environment with the wheel installed, without the app's extra."""
    base = tmp_path_factory.mktemp("package")
    return fresh_environment(base, str(wheel)), base, wheel


def test_wheel_holds_the_package_and_its_data(installed):
    import zipfile

    names = zipfile.ZipFile(installed[2]).namelist()
    for member in (
        "mpcore/data/boston.csv",
        "mpcore/data/README.md",
        "mpcore/experiments/__main__.py",
        "mpcore/experiments/wang2016.py",
    ):
        assert member in names
    # The app is inside the package `mplab` (nothing as generic as a top-level `ui` is installed).
    for member in (
        "mplab/app.py",
        "mplab/server.py",
        "mplab/.streamlit/config.toml",
        "mplab/static/player/player.js",
        "mplab/static/player/streamlit.js",
        "mplab/views/lessons/3-fisher.toml",
        "mplab/static/plotly-player.min.js",
        "mplab/app_pages/home.py",
        "mplab/deploy/haproxy.cfg",
        "mpcore/py.typed",
    ):
        assert member in names
    assert not any(name.startswith(("ui/", "app_pages/", "deploy/", "tests/", "benchmarks/")) for name in names)
    entry_points = zipfile.ZipFile(installed[2]).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "mplab = mplab.deploy.cli:main" in entry_points
    metadata = zipfile.ZipFile(installed[2]).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "License-Expression: BSD-3-Clause AND CC-BY-4.0" in metadata  # the code's and the UCI data's
    assert "License-File: mpcore/data/LICENSE" in metadata and "Classifier: Intended Audience :: Education" in metadata
    assert "Provides-Extra: app" in metadata


def test_installed_wheel_runs_outside_the_checkout(installed):
    python, base, _ = installed
    script = base / "smoke.py"
    script.write_text(SMOKE)
    result = subprocess.run(
        [str(python), str(script), str(base / "out")], capture_output=True, text=True, cwd=base, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "smoke ok" in result.stdout


def test_the_command_without_the_app_extra_says_what_to_install(installed):
    python, base, _ = installed
    result = subprocess.run([str(python.parent / "mplab")], capture_output=True, text=True, cwd=base, timeout=120)
    assert result.returncode != 0 and 'pip install "streamlit>=1.61" "plotly>=5.20"' in result.stderr
    assert "Traceback" not in result.stderr


def test_the_command_tells_the_librarys_version_without_the_app_extra(installed):
    """``mplab --version`` needs only the library (the command imports it for that alone)."""
    python, base, _ = installed
    run = functools.partial(subprocess.run, capture_output=True, text=True, cwd=base, timeout=120)
    version = run([str(python), "-c", "import mpcore; print(mpcore.__version__)"]).stdout.strip()
    result = run([str(python.parent / "mplab"), "--version"])
    assert result.returncode == 0 and version and result.stdout.strip() == f"Matching Pursuit Lab {version}"


def _as_another_user(home):
    """How to run a command as a user who cannot write the install: ``nobody`` when the
    tests run as root (who installed it), else this user, with the install made read-only."""
    if os.geteuid() == 0:
        return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"], {"HOME": str(home)}
    return [], {}


def test_the_installed_command_serves_the_app_from_an_install_it_cannot_write(wheel):
    """``pip install "WHEEL[app]"`` in a fresh environment (as root, when the tests run as
    root), then ``mplab`` run by another user (``nobody``) who cannot write a byte of the
    install, from a folder outside the checkout: the pages run without an error from the
    installed files, with the class-ready configuration, plotly.js is served by the app
    itself, ``mplab export`` writes a demo, and nothing was written into the install."""
    import tempfile
    import urllib.request

    from benchmarks.visit import visit
    from deploy.serve import free_port, healthy, lesson_addresses

    base = Path(tempfile.mkdtemp(prefix="mplab-install-"))  # readable by every user, unlike pytest's
    try:
        base.chmod(0o755)
        python = fresh_environment(base, f"{wheel}[app]")
        package = Path(
            subprocess.run(
                [str(python), "-c", "import mplab.deploy.cli as c; print(c.ROOT)"],
                capture_output=True,
                text=True,
                check=True,
                cwd=base,
            ).stdout.strip()
        )
        assert "site-packages" in str(package)
        home = base / "home"
        home.mkdir()
        runner, env = _as_another_user(home)
        if runner:
            home.chmod(0o777)
        else:
            subprocess.run(["chmod", "-R", "a-w", str(package)], check=True)
        before = sorted(str(path.relative_to(package)) for path in package.rglob("*"))
        port = free_port()
        url = f"http://localhost:{port}"
        log = (home / "mplab.log").open("w")
        process = subprocess.Popen(
            [*runner, str(python.parent / "mplab"), "--port", str(port)],
            cwd=home,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env},
        )
        try:
            for _ in range(600):  # up to a minute, checked every 0.1 s
                if healthy(url) or process.poll() is not None:
                    break
                subprocess.run(["sleep", "0.1"])
            assert healthy(url), (home / "mplab.log").read_text()[-3000:]
            for page, query in [("", ""), ("lessons", ""), ("references", "")] + lesson_addresses(["all"])[:2]:
                seen = visit(url, page, query, timeout=120)
                assert seen.error is None, (page, seen.error)
            with urllib.request.urlopen(f"{url}/app/static/plotly-player.min.js", timeout=30) as response:
                assert response.status == 200 and b"plotly.js" in response.read(400)
            shown = (home / "mplab.log").read_text()
            assert f"Matching Pursuit Lab at {url}/" in shown and "Traceback" not in shown
            demo = home / "sinc.html"
            done = subprocess.run(
                [*runner, str(python.parent / "mplab"), "export", "kmp?data=sinc&k=5", "--out", str(demo)],
                capture_output=True,
                text=True,
                cwd=home,
                env={**os.environ, **env},
                timeout=300,
            )
            assert done.returncode == 0 and demo.stat().st_size > 500_000, done.stderr[-2000:]
            process.terminate()  # as a service manager stops it: the app must stop with it
            process.wait(timeout=60)
            for _ in range(300):  # up to 30 s, checked every 0.1 s
                if not healthy(url):
                    break
                subprocess.run(["sleep", "0.1"])
            assert not healthy(url), "the app outlived the mplab command"
        finally:
            process.kill()
            log.close()
        assert sorted(str(path.relative_to(package)) for path in package.rglob("*")) == before
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(base)], check=False)
        shutil.rmtree(base, ignore_errors=True)


def test_citations_are_author_year_everywhere():
    """Readers know "Hussain et al. (2011)", not the project's old file labels ("seed 000") or
    a working spec outside the repository: no tracked text, the command's help nor the
    report says either."""
    import re
    import subprocess

    root = Path(__file__).resolve().parent.parent
    tracked = subprocess.run(
        ["git", "ls-files", "*.py", "*.md", "*.toml", "*.cff"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    old = re.compile(r"\b[Ss]eed 00\d\b|\bSPEC section\b")
    offenders = [
        name
        for name in tracked
        if name != "tests/test_package.py"  # this test names what it looks for
        and old.search((root / name).read_text(encoding="utf-8"))
    ]
    assert offenders == [], offenders
    help_text = subprocess.run(
        [sys.executable, "-m", "mpcore.experiments", "--help"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    assert not old.search(help_text)


def test_every_author_year_citation_names_a_work_of_the_bibliography():
    """Every "Author (year)" the app, its lessons, the library, the README and the docs cite is an
    entry of mpcore.references, with the right number of authors ("et al." for three or
    more, "A and B" for two): a misremembered year or a co-author that is not there fails."""
    import re
    import subprocess

    from mpcore.references import REFERENCES

    root = Path(__file__).resolve().parent.parent
    tracked = subprocess.run(
        ["git", "ls-files", "views", "ui", "app_pages", "mpcore", "README.md", "docs", "examples"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    known = {reference.cite().replace(" and ", " & ") for reference in REFERENCES}
    coauthors = {
        (author.rsplit(" ", 1)[-1], str(reference.year)) for reference in REFERENCES for author in reference.authors[1:]
    }  # the last name of a full author list
    citation = re.compile(
        r"\b([A-Z][a-zéö]+(?:-[A-Z][a-z]+)?)( et al\.| (?:and|&) [A-Z][a-zéö]+(?:-[A-Z][a-z]+)?)?,?"
        r" \(?((?:19|20)\d\d)\)?"
    )
    cited, unknown = set(), []
    for name in tracked:
        if not name.endswith((".py", ".toml", ".md")) or name == "mpcore/references.py":
            continue
        for match in citation.finditer((root / name).read_text(encoding="utf-8")):
            lead, rest, year = match.groups()
            text = f"{lead}{(rest or '').replace(' and ', ' & ')} {year}"
            if text in known:
                cited.add(text)
            elif (lead, year) not in coauthors:
                unknown.append(f"{name}: {match.group(0)!r}")
    assert unknown == [], unknown
    assert {"Hussain et al. 2011", "Diethe 2015", "Vincent & Bengio 2002", "Wang 2016"} <= cited


def test_citation_file_is_complete_and_agrees_with_the_bibliography():
    """CITATION.cff: what GitHub and Zenodo read; its version is the package's, and every work it
    lists is an entry of mpcore.references with the same title, year and DOI (one bibliography)."""
    import yaml

    import mpcore
    from mpcore.references import REFERENCES

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert {"cff-version", "message", "title", "authors", "license", "version", "references"} <= set(cff)
    assert cff["version"] == mpcore.__version__ and cff["license"] == "BSD-3-Clause"
    by_title = {reference.title.lower(): reference for reference in REFERENCES}
    for work in cff["references"]:
        reference = by_title[work["title"].lower()]
        assert work["year"] == reference.year, work["title"]
        assert work.get("doi", "") == reference.doi, work["title"]
        assert [a["family-names"] for a in work["authors"]] == [n.rsplit(" ", 1)[-1] for n in reference.authors]
    assert {reference.key for reference in REFERENCES[:5]} <= {
        reference.key
        for reference in REFERENCES
        if reference.title.lower() in {work["title"].lower() for work in cff["references"]}
    }


def test_the_sdist_is_complete_and_its_tests_run(tmp_path, run_folder):
    """The source distribution holds every tracked file but CI's (check-manifest agrees), and
    its test suite runs from the unpacked folder: the tests, their conftest, the examples, the
    documentation's sources, the app and the records are all there."""
    import tarfile

    with _one_build_at_a_time(run_folder):
        subprocess.run(
            [sys.executable, "-m", "build", "--sdist", "-o", str(tmp_path), str(ROOT)],
            check=True,
            capture_output=True,
            cwd=tmp_path,
            timeout=600,
        )
    archive = next(tmp_path.glob("matching_pursuit_lab-*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path, filter="data")
    unpacked = next(path for path in tmp_path.iterdir() if path.is_dir())
    tracked = set(
        subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    )
    shipped = {str(path.relative_to(unpacked)) for path in unpacked.rglob("*") if path.is_file()}
    git_files = {".gitignore", ".gitattributes"}  # as check-manifest, which leaves them out too
    assert {name for name in tracked if not name.startswith(".ci/") and name not in git_files} <= shipped
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "tests/test_bounds.py",
            "tests/test_engine.py",
            "tests/test_examples.py",
        ],
        cwd=unpacked,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert " passed" in result.stdout


def test_the_command_says_when_its_port_is_taken():
    """``mplab --port N`` on a port something already listens on: a sentence, not Streamlit's traceback."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "deploy.cli", "--port", str(port)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
    assert result.returncode != 0 and f"Port {port} is already in use" in result.stderr
    assert "Traceback" not in result.stderr


def _stopped_with_ctrl_c(after_start):
    """``mplab`` started as a terminal starts it (its own process group) and sent the
    terminal's Ctrl-C (SIGINT to that group) once it has printed its first line (its address:
    the command runs, the app is starting) and ``after_start(url)`` returns: its exit status
    and everything it printed."""
    import signal

    from deploy.serve import free_port

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "deploy.cli", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        # as a shell starts it: Ctrl-C not ignored (a test worker of pytest-xdist ignores it,
        # and a child inherits that)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        first = process.stdout.readline()  # before it, Python itself is starting: its own traceback
        after_start(f"http://localhost:{port}")
        os.killpg(process.pid, signal.SIGINT)
        out, _ = process.communicate(timeout=60)
        out = first + out
    finally:
        if process.poll() is None:
            process.kill()
    return process.returncode, out, port


def test_ctrl_c_stops_the_command_and_the_app_in_one_line():
    """Ctrl-C printed Streamlit's "Aborted!" and exited 241; during start-up, a traceback.
    Now: one line, status 130, and the app is gone, whether it answered or was still starting
    (the command's address printed: a Ctrl-C a fixed 0.3 s after the start came, under load,
    while Python itself was starting, which prints its own traceback)."""
    import signal
    import time

    from deploy.serve import healthy

    def when_up(url):
        for _ in range(600):  # until it answers (a condition, checked every 0.1 s)
            if healthy(url):
                return
            time.sleep(0.1)
        raise AssertionError("the app did not start")

    for after_start in (when_up, lambda url: None):  # serving, and the app still starting
        status, out, port = _stopped_with_ctrl_c(after_start)
        # 130, or ended by SIGINT itself (Python does that when the interrupt came while it was
        # loading a module): a shell shows 130 for both
        assert status in (130, -signal.SIGINT), (status, out)
        assert out.strip().splitlines()[-1] == "Stopped." and "Traceback" not in out and "Aborted" not in out, out
        for _ in range(20):  # the app is gone: it does not answer, nor come up later on its own
            assert not healthy(f"http://localhost:{port}", timeout=0.5), "the app still answers"
            time.sleep(0.1)


def test_every_folder_the_wheel_installs_is_a_package_setuptools_is_told_of(wheel):
    """Each folder of the wheel that holds files is in pyproject.toml's ``packages``: one
    that is not (a folder of data files) made setuptools print a 40-line warning per folder
    that it "would be ignored", and a later setuptools may ignore it."""
    import tomllib
    import zipfile

    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    with zipfile.ZipFile(wheel) as archive:
        folders = {
            name.rsplit("/", 1)[0].replace("/", ".")
            for name in archive.namelist()
            if "/" in name and ".dist-info/" not in name and not name.rsplit("/", 1)[0].split("/")[-1].startswith(".")
        }
    assert folders and folders <= declared, sorted(folders - declared)
