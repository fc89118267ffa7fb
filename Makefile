# All set-up happens here: every target creates the environment when it is missing.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
export NUMBA_CACHE_DIR ?= $(CURDIR)/.venv/numba-cache

.PHONY: demo test bench lab clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "uv>=0.4,<1"
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e ".[dev]"
	rm -f $(VENV)/.installed-* && touch $@

demo: $(STAMP)
	$(BIN)/python -m minitorch.demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python bench/run.py

lab: $(STAMP)
	$(BIN)/jupyter lab

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
