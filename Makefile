# All set-up happens here: every target creates the environment when it is missing.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
# PyTorch is the oracle of the differential tests and the yardstick of the benchmarks,
# never a dependency of the package. pip (not uv) installs it: pip finds the CPU build.
TORCH_VERSION := 2.13.0
TORCH_STAMP := $(VENV)/.torch-$(TORCH_VERSION)
export NUMBA_CACHE_DIR ?= $(CURDIR)/.venv/numba-cache

.PHONY: demo test bench lab docs clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "uv>=0.4,<1"
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e ".[dev]"
	rm -f $(VENV)/.installed-* && touch $@

demo: $(STAMP)
	$(BIN)/minitorch train --out out/demo.png

$(TORCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet "torch==$(TORCH_VERSION)"
	touch $@

test: $(STAMP) $(TORCH_STAMP)
	MINITORCH_REQUIRE_TORCH=1 $(BIN)/python -m pytest -q

bench: $(STAMP) $(TORCH_STAMP)
	$(BIN)/python bench/run.py

docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --quiet
	@echo "site written to out/site (open out/site/index.html)"

lab: $(STAMP)
	$(BIN)/jupyter lab

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
