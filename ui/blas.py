"""One BLAS thread per pool for the app's server, set once when the server imports it.

Streamlit runs each session's script in a thread of one process, and NumPy and SciPy
each bring their own OpenBLAS thread pool.  With the libraries' default (one thread per
core in each pool), two sessions computing at once, or even one session alternating
between NumPy and SciPy calls, ask for more threads than a small server has cores, and
the pools' threads spin while waiting.  One thread per pool was faster on a two-core
server, each page's study alone and many sessions at once (``benchmarks/blas_threads.py``;
the figures are on the performance page).

``MPLAB_BLAS_THREADS`` overrides it: a number of threads per pool, or ``default`` to
leave the libraries' own choice (a many-core server with few users may prefer more).
"""

import os

import numpy  # noqa: F401 - the pools must be loaded for the limit to reach them
import scipy.linalg  # noqa: F401
from threadpoolctl import threadpool_limits

ENV = "MPLAB_BLAS_THREADS"


def threads_wanted(value):
    """Threads per pool for the setting ``value`` (None: leave the libraries' default)."""
    value = (value or "1").strip().lower()
    if value == "default":
        return None
    try:
        return max(1, int(value))
    except ValueError:
        return 1


THREADS = threads_wanted(os.environ.get(ENV))
if THREADS is not None:
    _limits = threadpool_limits(limits=THREADS)  # kept: the limit lasts for the process
