"""Every public function of mpcore, called with one hostile argument at a time, answers
with a ValueError or TypeError that says something -- never another exception, never a
hang, never a normal-looking result from a matrix that is not a kernel."""

import signal
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import mpcore
from mpcore import bounds, criteria, datasets, explore

RNG = np.random.default_rng(0)
X = RNG.normal(size=(20, 2))
K = mpcore.kernel_matrix(X, gamma=0.5)
K2 = mpcore.kernel_matrix(X**2, gamma=0.5)
Y = np.sin(X[:, 0])
LABELS = np.where(X[:, 0] > 0, 1.0, -1.0)
IDX = [0, 3, 5]
NOT_PSD = K.copy()
NOT_PSD[0, 0] = -5.0
ASYMMETRIC = K + np.triu(np.full_like(K, 0.1), 1)

EXACT = mpcore.kcca(K, K2)
APPROX = mpcore.nystrom_kcca(K, K2, IDX, IDX)
STATE = mpcore.deflations.CholeskyDeflation(K)


def _npz_bytes():
    import io

    buffer = io.BytesIO()
    np.savez(buffer, X=X, y=Y)
    return buffer.getvalue()


NPZ = _npz_bytes()

HOSTILE = {
    "None": None,
    "empty": [],
    "text": "nope",
    "minus one": -1,
    "zero": 0,
    "huge int": 10**9,
    "huge float": 1e300,
    "tiny": 1e-300,
    "nan": float("nan"),
    "inf": float("inf"),
    "empty matrix": np.zeros((0, 0)),
    "nan matrix": np.full((20, 20), np.nan),
    "complex": K + 1j,
    "minus identity": -np.eye(20),
    "negative diagonal": NOT_PSD,
    "asymmetric": ASYMMETRIC,
    "index 99": [99],
    "index -1": [-1],
    "3-D": np.zeros((2, 2, 2)),
    "object": object(),
}

# name -> (function, valid arguments); each argument is replaced in turn by each hostile value
CALLS = {
    "kernel_matrix": (mpcore.kernel_matrix, (X,), {"gamma": 0.5}),
    "kernel_diag": (mpcore.kernel_diag, (X,), {"gamma": 0.5}),
    "gamma_from_width": (mpcore.gamma_from_width, (1.0,), {}),
    "skpca_path": (mpcore.skpca_path, (K, 3), {}),
    "smola_scholkopf_path": (mpcore.smola_scholkopf_path, (K, 3), {}),
    "kmp_path": (mpcore.kmp_path, (K, Y, 3), {}),
    "skcca_path": (mpcore.skcca_path, (K, K2, 3), {}),
    "mpkfda_path": (mpcore.mpkfda_path, (K, LABELS, 3), {}),
    "fit_fisher": (mpcore.fit_fisher, (K, LABELS, IDX), {}),
    "fit_sparse_cca": (mpcore.fit_sparse_cca, (K, K2, IDX), {}),
    "kcca": (mpcore.kcca, (K, K2), {}),
    "center_kernel": (mpcore.center_kernel, (K,), {}),
    "nystrom_kcca": (mpcore.nystrom_kcca, (K, K2, IDX, IDX), {}),
    "nystrom_kcca_path": (mpcore.nystrom_kcca_path, (K, K2, IDX, IDX, [1, 2]), {}),
    "ridge_leverage_scores": (mpcore.ridge_leverage_scores, (K, 0.1), {}),
    "sample_columns": (mpcore.sample_columns, (K, 3), {}),
    "nystrom_factor": (mpcore.nystrom_factor, (K[:3, :3],), {}),
    "compression_subspace": (bounds.compression_subspace, (0.1, 100, 5, 0.05), {}),
    "kmp_vc": (bounds.kmp_vc, (100, 5, 3, 0.05), {}),
    "compression_classification": (bounds.compression_classification, (100, 5, 3, 0.05), {}),
    "pca_global_rademacher": (bounds.pca_global_rademacher, (np.linspace(5, 0, 20), np.ones(20), 3, 0.05), {}),
    "pca_local_rademacher": (
        bounds.pca_local_rademacher,
        (np.linspace(5, 0, 20), np.linspace(4, 0, 20), 3, 20, 0.05),
        {},
    ),
    "running_min": (bounds.running_min, ([3.0, 2.0, 4.0],), {}),
    "vacuous": (bounds.vacuous, ([0.4, 1.0, 2.0], 1.0), {}),
    "says_something": (bounds.says_something, ([1.4, 0.9, 2.0], 1.0), {}),
    "explore.grid": (explore.grid, ("m",), {}),
    "explore.explore": (explore.explore, ("kmp_vc", "m", [100, 200]), {"k": 10, "t": 5}),
    "load_dataset": (datasets.load_dataset, ("sinc",), {}),
    "parse_csv": (datasets.parse_csv, ("a,b\n1,2\n3,4\n",), {}),
    "parse_npz": (datasets.parse_npz, (NPZ,), {}),
    "train_size": (datasets.train_size, (100,), {}),
    "approximation_error": (mpcore.approximation_error, (EXACT, APPROX), {}),
    "pair_distances": (mpcore.pair_distances, (X, X[:, ::-1]), {}),
    "regularized_cca": (mpcore.regularized_cca, (X, X**2), {}),
    "nystrom_features": (mpcore.nystrom_features, (K[:, IDX], np.linalg.cholesky(K[np.ix_(IDX, IDX)])), {}),
    "projection_residuals": (
        mpcore.projection_residuals,
        (np.ones(20), mpcore.nystrom_features(K[:, IDX], np.linalg.cholesky(K[np.ix_(IDX, IDX)]))),
        {},
    ),
    "pursue": (mpcore.pursue, (STATE, criteria.skpca, 3), {}),
    "bounds.mpkfda": (
        bounds.mpkfda,
        (np.array([-1.0, 1.0]), np.array([0.1, 0.2]), 0.0, np.array([400, 300]), 720, 20, 0.05),
        {},
    ),
}

# Public names that are not functions to call with arguments: estimator classes (checked by
# scikit-learn's check_estimator in test_estimators.py), result classes, modules and constants.
NOT_CALLED = {
    "MPKFDA",
    "KernelMatchingPursuit",
    "KernelMatchingPursuitClassifier",
    "NystromKCCA",
    "SparseKCCA",
    "SparseKPCA",
    "CCAResult",
    "FisherModel",
    "KCCAResult",
    "NystromKCCAResult",
    "PursuitPath",
    "bounds",
    "curves",
    "datasets",
    "labs",
    "studies",
    "views",
    "criteria",
    "deflations",
    "DEFLATIONS",
    "FISHER_CRITERIA",
    "SAMPLINGS",
    "KERNELS",
    "KMP_VARIANTS",
    "LOSSES",
}


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds):
    def stop(signum, frame):
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _call(function, args, kwargs):
    with time_limit(10):
        try:
            return function(*args, **kwargs)
        except (ValueError, TypeError) as error:
            assert str(error).strip(), f"{function.__name__} raised {type(error).__name__} with no message"
            return error


def _numbers(value, seen=None):
    """Every float a result holds: arrays, numbers, and the fields of dicts, tuples and
    result objects (not functions or whole kernel states)."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, (bool, str, bytes)) or value is None or callable(value):
        return []
    if isinstance(value, (int, float, np.number)):
        return [float(value)]
    if isinstance(value, np.ndarray):
        return value.ravel().astype(float).tolist() if value.dtype.kind in "biuf" else []
    if isinstance(value, dict):
        return [x for key, item in value.items() if key not in NAN_BY_DESIGN for x in _numbers(item, seen)]
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _numbers(item, seen)]
    if hasattr(value, "__dataclass_fields__"):
        return [
            x
            for name in value.__dataclass_fields__
            if name not in NAN_BY_DESIGN
            for x in _numbers(getattr(value, name), seen)
        ]
    return []


# A path's score rows mark the candidates that could not be chosen (already chosen,
# exhausted, not sampled) with NaN: documented, not a failure.
NAN_BY_DESIGN = {"scores"}


def _clean(result):
    """What a call may answer: an exception with a sentence, or a result without NaN (a
    bound may be infinite: "undefined" is its documented answer)."""
    if isinstance(result, Exception):
        return True
    return not any(np.isnan(x) for x in _numbers(result))


@pytest.mark.parametrize("name", list(CALLS))
def test_one_hostile_argument_at_a_time(name):
    function, args, kwargs = CALLS[name]
    valid = _call(function, args, kwargs)
    assert not isinstance(valid, Exception), f"the valid call of {name} fails: {valid}"  # a real baseline
    assert _clean(valid) and (_numbers(valid) or name in ("train_size",) or valid is not None)
    failures = []
    for position in range(len(args)):
        for label, value in HOSTILE.items():
            bad = list(args)
            bad[position] = value
            try:
                result = _call(function, bad, kwargs)
            except Exception as error:  # noqa: BLE001 - what this test is looking for
                failures.append(f"argument {position} = {label}: {type(error).__name__}: {str(error)[:80]}")
                continue
            if not _clean(result):
                failures.append(f"argument {position} = {label}: returned NaN instead of refusing")
    assert not failures, f"{name}:\n" + "\n".join(failures)


def test_every_public_function_is_called_with_hostile_arguments():
    public = {name for name in mpcore.__all__ if name not in NOT_CALLED}
    called = {name for name in CALLS if "." not in name}
    assert public <= called, f"not covered: {sorted(public - called)}"
    assert NOT_CALLED <= set(mpcore.__all__)  # nothing listed here that is gone
    for name in (name for name in bounds.__all__ if callable(getattr(bounds, name))):  # and every bound
        assert name in CALLS or f"bounds.{name}" in CALLS, name


KERNEL_TAKERS = [
    "skpca_path",
    "kmp_path",
    "skcca_path",
    "mpkfda_path",
    "smola_scholkopf_path",
    "kcca",
    "nystrom_kcca",
    "nystrom_kcca_path",
    "fit_sparse_cca",
    "fit_fisher",
]
# Positive diagonal, symmetric, yet no kernel: |K[i, j]| above the diagonal's geometric mean.
BAD_MINOR = K.copy()
BAD_MINOR[0, 1] = BAD_MINOR[1, 0] = 3.0


@pytest.mark.parametrize("name", KERNEL_TAKERS)
@pytest.mark.parametrize("matrix", ["negative diagonal", "minus identity", "asymmetric", "complex", "bad minor"])
def test_what_is_not_a_kernel_is_refused_with_its_reason(name, matrix):
    """Every function that takes a kernel matrix refuses one that cannot be a kernel,
    saying why -- before this, kcca answered a correlation of 0.975 for a matrix with a
    negative diagonal and nystrom_kcca 0.727 for -I."""
    function, args, kwargs = CALLS[name]
    bad = BAD_MINOR if matrix == "bad minor" else HOSTILE[matrix]
    reason = {
        "negative diagonal": "negative",
        "minus identity": "negative",
        "asymmetric": "not symmetric",
        "complex": "complex|real",
        "bad minor": "not positive semi-definite",
    }[matrix]
    with pytest.raises(ValueError, match=reason):
        function(bad, *args[1:], **kwargs)
    if len(args) > 1 and name not in ("fit_fisher", "kmp_path", "mpkfda_path", "skpca_path", "smola_scholkopf_path"):
        with pytest.raises(ValueError, match=reason):  # the second view is checked too
            function(args[0], bad, *args[2:], **kwargs)


def test_fisher_needs_two_classes():
    for labels in (np.ones(20), np.arange(20) % 3):
        with pytest.raises(ValueError, match="class"):
            mpcore.fit_fisher(K, labels, IDX)


def test_sizes_that_would_allocate_without_bound_are_refused():
    with time_limit(10):
        with pytest.raises(ValueError, match="at most"):
            datasets.load_dataset("sinc", n_samples=10**8)
        with pytest.raises(ValueError, match="at most"):
            explore.grid("m", n=1e9)


@settings(max_examples=200, deadline=None)
@given(
    emp=st.floats(allow_nan=True, allow_infinity=True),
    m=st.integers(-5, 10**6),
    t=st.integers(-5, 10**6),
    k=st.integers(-5, 10**6),
    delta=st.floats(allow_nan=True, allow_infinity=True),
)
def test_bounds_answer_a_number_or_a_sentence(emp, m, t, k, delta):
    for function, args in (
        (bounds.compression_subspace, (emp, m, t, delta)),
        (bounds.kmp_vc, (m, k, t, delta)),
        (bounds.compression_classification, (m, k, t, delta)),
    ):
        try:
            value = function(*args)
        except (ValueError, TypeError) as error:
            assert str(error).strip()
        else:  # a number: the formulas as printed (kmp_vc can dip below 0 where m - k - t is tiny)
            assert np.asarray(value, dtype=float).shape == ()


@settings(max_examples=120, deadline=None)
@given(
    st.integers(2, 12).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.one_of(st.floats(-1e6, 1e6), st.sampled_from([np.nan, np.inf, 0.0, 1.0])),
                min_size=n * n,
                max_size=n * n,
            ),
        )
    )
)
@example((2, [1.0, 0.0, 0.0, 5e-324]))  # a subnormal diagonal: its score's quotient overflowed (a warning)
def test_paths_on_arbitrary_matrices_give_a_path_or_a_sentence(case):
    n, values = case
    matrix = np.array(values).reshape(n, n)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    for function, args in (
        (mpcore.skpca_path, (matrix, 1)),
        (mpcore.kmp_path, (matrix, y, 1)),
        (mpcore.mpkfda_path, (matrix, y, 1)),
        (mpcore.skcca_path, (matrix, matrix, 1)),
    ):
        try:
            with time_limit(10):
                path = function(*args)
        except (ValueError, TypeError) as error:
            assert str(error).strip()
        else:  # accepted: then it was a kernel matrix (to the core's documented tolerance), so the path is sound
            tol = 1e-8 * max(np.abs(matrix).max(), 1e-300)  # check_psd_kernel's: 1e-8 of max |K|, floored
            assert np.allclose(matrix, matrix.T, rtol=0, atol=tol) and np.all(np.diag(matrix) >= -tol)
            assert path.indices.size <= 1
