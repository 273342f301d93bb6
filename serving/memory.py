"""The app process gives large blocks of memory back to the system as soon as it frees them.

A study's arrays are megabytes each.  glibc's allocator maps a block over its threshold
(128 KB) on its own and unmaps it when it is freed -- but after the first such block is
freed it raises that threshold to the block's size (up to 32 MB), and from then on blocks
below it come from the process's heap, where a freed one stays resident among the small
objects allocated around it.  Thirty studies asked at once by one client left about a third
of a gigabyte resident that no store held, for as long as the process ran (the performance
page: calling ``malloc_trim`` from a debugger gave it back).  A fixed threshold keeps every
large block mapped on its own, returned when freed (:func:`return_large_blocks`).
"""

from __future__ import annotations

import ctypes
import sys

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)
LARGE = 1 << 20  # bytes: a block this large or larger is mapped on its own


def return_large_blocks(threshold: int = LARGE) -> bool:
    """Have glibc map every block of ``threshold`` bytes or more on its own, for good
    (setting the threshold turns its raising off): whether it took (not glibc: False)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # another C library (musl): its own allocator
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return mallopt(M_MMAP_THRESHOLD, threshold) == 1
