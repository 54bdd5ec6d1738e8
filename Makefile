# Two commands for a newcomer:
#   make lab    JupyterLab on notebooks/, opening the first lesson (01_tour.ipynb)
#   make test   the whole test suite, including the PyTorch/Paddle differential tests
# Both create .venv on first use. Installs are keyed on pyproject.toml through stamp
# files, so a second run skips pip entirely until pyproject.toml changes.
#
# Options: LAB_ARGS="--no-browser --port 8899" make lab;  PYTEST_ARGS="-x tests/core" make test
#
# make bench   the benchmark suite (issue 9): prints a table, writes benchmarks/results.json
#              and regenerates benchmarks/RESULTS.md (minutes). BENCH_ARGS="--smoke" for a
#              quick check, BENCH_ARGS="--only 1,6" for some sections.

PYTHON      ?= python3
VENV        := .venv
PY          := $(VENV)/bin/python
LAB_ARGS    ?=
PYTEST_ARGS ?=
BENCH_ARGS  ?=
# Jupyter refuses to start as root unless told; these machines run as root.
LAB_ROOT    := $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: lab test bench venv clean-venv

lab: $(VENV)/.installed-dev
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=notebooks \
		--LabApp.default_url=/lab/tree/01_tour.ipynb $(LAB_ROOT) $(LAB_ARGS)

test: $(VENV)/.installed-dev-oracle
	@$(PY) -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests; treating that as a failure" >&2; fi; \
	exit $$rc

# The suite drops OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE in its own process only (see RESULTS.md).
bench: $(VENV)/.installed-dev-oracle
	$(PY) -m benchmarks $(BENCH_ARGS)

# The student copies of the exercises (notebooks/student/) from their sources (notebooks/exercises/).
exercises: | $(PY)
	$(PY) scripts/build_student.py

venv: $(PY)

$(PY):
	$(PYTHON) -m venv $(VENV)

# pip (not uv/poetry): torch==2.13.0 must come from the local CPU wheel via pip's find-links.
$(VENV)/.installed-dev: pyproject.toml | $(PY)
	$(PY) -m pip install -e '.[dev]'
	touch $@

$(VENV)/.installed-dev-oracle: pyproject.toml | $(PY)
	$(PY) -m pip install -e '.[dev,oracle]'
	touch $@ $(VENV)/.installed-dev

clean-venv:
	rm -rf $(VENV)
