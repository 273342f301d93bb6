# Two entry points for a fresh clone with only Python 3.11+ present:
#   make run   -> create .venv, install runtime requirements, start the app
#   make test  -> create .venv, install test requirements, run the test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
NO_BROWSER := --ignore=tests/test_browser.py --ignore=tests/test_lecture.py --ignore=tests/test_export.py \
              --ignore=tests/test_player_js.py
APP_LEVEL := --ignore=tests/test_app.py --ignore=tests/test_code.py --ignore=tests/test_package.py \
             --ignore=tests/test_lessons.py --ignore=tests/test_examples.py --ignore=tests/test_docs.py

.PHONY: run serve test docs bench mutation reproduce venv clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11 or newer is needed, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	@touch $@ $(VENV)/.runtime

venv: $(VENV)/.dev

run: $(VENV)/.runtime
	$(BIN)/streamlit run server.py

# A class: one app process per core behind HAProxy (Debian: apt-get install haproxy), the
# shipped lessons computed on every process at start; see the README's "Serving a class".
serve: $(VENV)/.runtime
	$(BIN)/python -m deploy.serve

# The whole suite in a random order (pytest-randomly prints its seed; rerun one with
# -p randomly --randomly-seed=N) on two workers (pytest-xdist: the browser tests mostly wait
# for Chromium and the app, so two at once took 5.1 minutes where one after the other took
# about 9), then the library's tests again in another order (the app-level ones -- whole
# pages in AppTest, wheels built, examples run -- once: run twice they took 4 of the 27
# minutes, and each starts from a fresh app or environment anyway).
test: $(VENV)/.dev
	$(BIN)/python -m pytest -q -n 2
	$(BIN)/python -m pytest -q -p no:cacheprovider $(NO_BROWSER) $(APP_LEVEL)

# The documentation site (Sphinx, numpydoc, sphinx-gallery running examples/), offline, warnings as
# errors; open docs/_build/html/index.html.  The test suite builds it too (tests/test_docs.py).
docs: $(VENV)/.dev
	$(BIN)/python -m sphinx -W --keep-going -b html docs docs/_build/html

bench: $(VENV)/.dev
	$(BIN)/python -m benchmarks.core_speed
	$(BIN)/python -m benchmarks.app_speed
	$(BIN)/python -m benchmarks.browser_speed
	$(BIN)/python -m benchmarks.export_speed

# The papers' items at full size with the validation data (about 30 minutes on 2 cores); the
# results are kept with the package and in the README's verdict table.
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
