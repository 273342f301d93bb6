import json
import os
import signal
import time

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import mpcore

# One BLAS thread for the whole run, as the app's server uses (ui/blas.py): the first app
# test would otherwise set it midway, and the numerical tests after it would round
# differently from those before it -- the results would depend on the order of the tests.
_BLAS = threadpool_limits(limits=1, user_api="blas")
# And in every process the tests start (the docs' build running the gallery, Copy as code's
# scripts, the installed command, the app): the suite runs on as many workers as cores, so a
# second BLAS thread per process has no core of its own and spins, waiting for one.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, config):
    """The run's test order, said at its end (after the slowest tests, before the summary)
    even under ``-q``, which leaves out the header where pytest-randomly names it: a failure
    that hangs on the order can be run again."""
    seed = getattr(config.option, "randomly_seed", None)
    if seed is not None and not os.environ.get("PYTEST_XDIST_WORKER"):
        terminalreporter.write_line(f"this order again: -p randomly --randomly-seed={seed}")


def rbf_kernel(n, d=3, gamma=0.5, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d))
    return X, mpcore.kernel_matrix(X, gamma=gamma)


@pytest.fixture
def small_kernel():
    return rbf_kernel(60, seed=1)


@pytest.fixture
def regression_data():
    rng = np.random.default_rng(3)
    X = rng.uniform(-3, 3, size=(80, 1))
    y = np.sinc(X[:, 0]) + 0.05 * rng.normal(size=80)
    return X, y, mpcore.kernel_matrix(X, gamma=1.0)


@pytest.fixture
def xor_data():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    return X, y, mpcore.kernel_matrix(X, gamma=1.0)


@pytest.fixture
def two_view_data():
    """A shared latent variable seen through two different non-linear maps."""
    rng = np.random.default_rng(5)
    z = rng.uniform(0, 1, size=150)
    X = np.c_[np.cos(4 * z), np.sin(4 * z)] + 0.05 * rng.normal(size=(150, 2))
    Y = np.c_[z, z**2] + 0.05 * rng.normal(size=(150, 2))
    return X, Y, mpcore.kernel_matrix(X, gamma=2.0), mpcore.kernel_matrix(Y, gamma=2.0)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(autouse=True)
def validate_figures(monkeypatch):
    """Plotly's property checks on, so a misspelt figure property fails a test."""
    from views import figures

    monkeypatch.setattr(figures, "VALIDATE", True)


# --- the browser tests' app: one for the whole run, shared by the test workers -------------------


@pytest.fixture(scope="session")
def run_folder(tmp_path_factory, worker_id):
    """A folder of this run that every test worker shares (pytest-xdist's workers each have
    their own temporary folder, in the run's)."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent


@pytest.fixture(scope="session")
def server(run_folder):
    """The app as ``make run`` starts it, on a free loopback port (its address): one for the
    run, as a class shares one, so that a study computed for one worker's tests is ready for
    the other's.  The first worker to ask starts it; the last to finish stops it."""
    from browser_support import start_app
    from filelock import FileLock

    record = run_folder / "app.json"
    with FileLock(str(run_folder / "app.lock")):
        shared = json.loads(record.read_text()) if record.exists() else None
        if shared is None:
            classes = run_folder / "classes"  # this run's live classes, apart from any other run's
            classes.mkdir(mode=0o700, exist_ok=True)
            url, process = start_app({"MPLAB_CLASSES": str(classes / "classes.sqlite3")})
            shared = {"url": url, "pid": process.pid, "users": 0}
        shared["users"] += 1
        record.write_text(json.dumps(shared))
    yield shared["url"]
    with FileLock(str(run_folder / "app.lock")):
        shared = json.loads(record.read_text())
        shared["users"] -= 1
        if shared["users"]:
            record.write_text(json.dumps(shared))
            return
        record.unlink()
        _stop(shared["pid"])


def _stop(pid, within=20.0):
    """End the app's process ``pid`` (a child of this worker or of another) and wait until it
    has ended; kill it if it takes longer than ``within`` seconds."""
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:  # this worker's child: reaped
                return
        except ChildProcessError:  # another worker's: ended once it is gone or a zombie
            if _ended(pid):
                return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


def _ended(pid):
    """Whether process ``pid`` is gone, or has exited and waits for its parent to reap it."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True
