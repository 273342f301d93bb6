"""The app process gives a study's freed arrays back to the system (``serving/memory.py``):
what held a third of a gigabyte after one client's burst of studies, shown in a process of
its own, with and without the fix."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A large block freed (glibc then raises its threshold for mapping blocks on their own), then
# forty arrays of 8 MB with small objects allocated between them, as a study's arrays are among
# the page scripts' objects; then the arrays freed.  Prints the MB resident above the start,
# at the peak and after the arrays are gone.
PROBE = """
import sys
import numpy as np
if sys.argv[1] == "fixed":
    from serving.memory import return_large_blocks
    assert return_large_blocks()
def resident():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
big = np.ones(30_000_000 // 8)
del big
start = resident()
kept, arrays = [], []
for _ in range(40):
    arrays.append(np.ones(8_000_000 // 8))
    kept.append(bytearray(1000))
peak = resident()
del arrays
print(round(peak - start), round(resident() - start))
"""


def _resident(mode):
    run = subprocess.run([sys.executable, "-c", PROBE, mode], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return [int(value) for value in run.stdout.split()]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_freed_arrays_go_back_to_the_system():
    peak, after = _resident("as-glibc-does")
    assert peak > 250 and after > 250  # the finding: 320 MB of freed arrays stay resident
    peak, after = _resident("fixed")
    assert peak > 250 and after < 20  # with the threshold fixed, they are given back at once
