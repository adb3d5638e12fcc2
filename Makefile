# Two commands on a fresh machine: `make book` and `make test`. Everything else is optional.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: help setup book test lint unit lab student grade-demo bench record lock clean

help:
	@echo "make book     set up .venv and build the HTML book into _build/html"
	@echo "              (REPO_URL=https://github.com/ORG/REPO: where launch buttons point)"
	@echo "make test     set up .venv, lint, build the book, run unit, notebook and browser tests"
	@echo "make lab      open the labs (student versions) in JupyterLab"
	@echo "make student  regenerate the student versions in labs/ from instructors/labs/"
	@echo "make bench    measure simulator speed (python -m simcore bench)"
	@echo "make record   re-record data/measurements on a loop device (root)"

$(STAMP): requirements.txt pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (disklab)" >/dev/null
	touch $(STAMP)

setup: $(STAMP)

book/_static/plotly.min.js book/_static/mathjax/MathJax.js &: $(STAMP)
	$(PY) tools/book_assets.py book/_static

# REPO_URL: the repository the launch buttons and README badge point at (a fork or a course sets
# it here once; default: the origin remote, else _config.yml; see tools/repo_url.py)
REPO_URL ?=
book: $(STAMP) book/_static/plotly.min.js book/_static/mathjax/MathJax.js
	REPO_URL="$(REPO_URL)" $(PY) tools/build_book.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .

unit: $(STAMP)
	$(VENV)/bin/pytest -q tests -m "not browser and not book"

# The instructor keys (instructors/labs/, stored executed) are checked cell by cell with nbval;
# the student versions in labs/ are run by tests/test_labkit_labs.py.
# pytest-xdist: TEST_WORKERS processes (default: one per logical core), each taking whole files
# (loadfile: a notebook's cells run in order in one kernel, a module's fixtures are made once).
TEST_WORKERS ?= logical
test: $(STAMP) lint book
	$(VENV)/bin/pytest -n $(TEST_WORKERS) --dist loadfile --durations=25 tests instructors/labs --nbval-lax --nbval-current-env --nbval-kernel-startup-timeout=300 -p no:cacheprovider

# The repository root, as on Binder, opened at labs/ (the student versions); chapters open as
# notebooks and explorers load plotly.js once per page (tools/lab_setup.py, jupyter-config/).
lab: $(STAMP)
	$(PY) tools/lab_setup.py
	$(VENV)/bin/jupyter lab --ServerApp.root_dir="$(CURDIR)" --LabApp.default_url=/lab/tree/labs \
	  $(if $(filter 0,$(shell id -u)),--allow-root)

# labs/ holds only student versions (what Binder and `make lab` open); keys stay in instructors/.
student: $(STAMP)
	$(PY) -m simcore student instructors/labs --out labs

# Grade the Lab 1 key against itself (public variants): a full-marks run of the whole pipeline.
grade-demo: $(STAMP)
	$(PY) -m simcore grade --public-variants --key instructors/labs/lab1_time.ipynb instructors/labs/lab1_time.ipynb --out /tmp/disklab-grade-demo/grades.csv --force

bench: $(STAMP)
	$(PY) -m simcore bench

# Re-record the loop-device measurements the labs fall back to (needs root; labelled honestly).
record: $(STAMP)
	$(PY) -m hardware.record_loop --overwrite

lock:
	rm -rf /tmp/disklab-lock && $(PYTHON) -m venv /tmp/disklab-lock
	/tmp/disklab-lock/bin/pip install --quiet -r requirements.in
	/tmp/disklab-lock/bin/pip freeze --exclude-editable > requirements.txt

clean:
	rm -rf _build book/_static/plotly.min.js book/_static/mathjax .pytest_cache
