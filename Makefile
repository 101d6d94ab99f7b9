# m4bench: two commands for a fresh machine.
#   make demo   build the synthetic sources and run the end-to-end demo
#   make test   lint, type-check and run the default test suite
# More test tiers (docs/testing.md):
#   make test-full    the default suite plus the heavy tier (full sweeps)
#   make test-quick   the default suite without the slow tests (sources, sandbox)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-full test-quick lint typecheck pytest system-deps install clean

demo: install
	$(BIN)/m4bench demo

test: install lint typecheck pytest

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: install
	$(BIN)/mypy

# --dist loadfile: one worker runs all tests of a file, so a module fixture is built
# once (loadgroup groups nothing with pytest 9 and pytest-xdist 3.8: docs/testing.md).
PYTEST := $(BIN)/python -m pytest -n 2 --dist loadfile

pytest: install
	$(PYTEST)

test-full: install lint typecheck
	$(PYTEST) -m ""

test-quick: install
	$(PYTEST) -m "not slow and not heavy"

install: $(STAMP)

# Debian packages the sandbox needs (bubblewrap); installed only when missing.
system-deps:
	@bash scripts/system-deps.sh

$(STAMP): pyproject.toml requirements.lock | system-deps
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
