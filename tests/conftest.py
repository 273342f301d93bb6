import os

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
    from ui import figures

    monkeypatch.setattr(figures, "VALIDATE", True)


# --- the browser tests' app: one per test worker, for every module ------------------------------


@pytest.fixture(scope="session")
def server():
    """The app as ``make run`` starts it, on a free loopback port (its address)."""
    from browser_support import start_app

    url, process = start_app()
    yield url
    process.terminate()
    process.wait(timeout=20)
