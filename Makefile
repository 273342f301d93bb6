# Two entry points for a fresh clone with only Python 3.11+ present:
#   make run   -> create .venv, install runtime requirements, start the app
#   make test  -> create .venv, install test requirements, run the test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The library's tests (mpcore only): run first, so that a mistake in the core fails in minutes.
LIBRARY := tests/test_api_hostile.py tests/test_bounds.py tests/test_curves.py tests/test_datasets.py \
           tests/test_deflations.py tests/test_engine.py tests/test_estimators.py tests/test_kept_results.py \
           tests/test_kmp.py tests/test_labs.py tests/test_lowrank.py tests/test_mpkfda.py \
           tests/test_reproductions.py tests/test_skcca_kcca.py tests/test_skpca.py tests/test_studies.py \
           tests/test_ties.py tests/test_validation.py tests/test_verdicts.py

.PHONY: run serve test docs bench mutation reproduce venv clean

# Packages are installed with uv (from PyPI, into the venv) when it can be had: it installs the
# test requirements in seconds where pip takes about a minute; pip otherwise.  Both compile the
# packages' bytecode as they install (pip by default, uv when asked): where PYTHONDONTWRITEBYTECODE
# is set, no process ever writes it, and each would compile Streamlit, scikit-learn and SciPy anew.
install = if [ -x $(BIN)/uv ]; then $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python $(1); \
          else $(BIN)/python -m pip install --quiet $(1); fi

$(BIN)/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11 or newer is needed, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	-$(BIN)/python -m pip install --quiet uv

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(call install,-r requirements.txt)
	@touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(call install,-r requirements-dev.txt)
	@touch $@ $(VENV)/.runtime

venv: $(VENV)/.dev

# make run PORT=8600 for another port; ADDRESS=0.0.0.0 to be reachable from other computers.
PORT ?= 8501
ADDRESS ?= localhost
run: $(VENV)/.runtime
	$(BIN)/streamlit run server.py --server.address $(ADDRESS) --server.port $(PORT)

# A class: one app process per core behind HAProxy (Debian: apt-get install haproxy), the
# shipped lessons computed on every process at start; see docs/serving.md.
serve: $(VENV)/.runtime
	$(BIN)/python -m deploy.serve

# The library's tests first (stopping at the first failure), then everything else; both on two
# workers (pytest-xdist) in a random order (pytest-randomly; the run names its seed at its
# end, "this order again": rerun one with -p randomly --randomly-seed=N).  An idle worker
# takes tests queued for the other (worksteal): xdist's default hands each worker a run of
# consecutive tests, and one worker could be left alone with a long file's queue.
# The rest's report lists its fifteen slowest tests; each file's time: python -m
# benchmarks.suite_times on a --durations=0 report.
test: $(VENV)/.dev
	$(BIN)/python -m pytest -q -x -n 2 --dist worksteal $(LIBRARY)
	$(BIN)/python -m pytest -q -n 2 --dist worksteal --durations=15 $(addprefix --ignore=,$(LIBRARY))

# The documentation site (Sphinx, numpydoc, sphinx-gallery running examples/), offline, warnings as
# errors; open docs/_build/html/index.html.  The test suite builds it too (tests/test_docs.py).
docs: $(VENV)/.dev
	$(BIN)/python -m sphinx -W --keep-going -b html docs docs/_build/html

# Each benchmark's output is added, dated, to the performance page (docs/performance.rst).
bench: $(VENV)/.dev
	$(BIN)/python -m benchmarks.record benchmarks.core_speed
	$(BIN)/python -m benchmarks.record benchmarks.app_speed
	$(BIN)/python -m benchmarks.record benchmarks.browser_speed
	$(BIN)/python -m benchmarks.record benchmarks.export_speed

# The papers' items at full size with the validation data (about 30 minutes on 2 cores); the
# results are kept with the package, on the docs' reproduction page and in the README's summary.
DATA ?= ../shared/data
reproduce: $(VENV)/.dev
	$(BIN)/python -m mpcore.experiments report --size full --data-dir $(DATA) --out results/full --jobs 2
	$(BIN)/python tools/keep_results.py results/full/results.json

# Mutation testing of the core (bounds, criteria, deflations, engine, nkcca, kmp), then
# benchmarks/mutation.md written from the results (tools/mutation_report.py; it says which
# survivors are explained by benchmarks/mutation_notes.toml).  One BLAS thread: mutmut forks
# after NumPy is loaded, and a forked child's OpenBLAS pool can hang until the time limit.
mutation: $(VENV)/.dev
	$(BIN)/python -m pip install --quiet "mutmut>=3.8"
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $(BIN)/mutmut run --max-children 2 || true
	$(BIN)/python tools/mutation_report.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis mutants docs/_build docs/generated docs/auto_examples docs/_generated
