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

.PHONY: demo demo-distributed test bench lab docs clean

# --compile-bytecode: uv leaves the bytecode of what it installs to be compiled on first import,
# and where bytecode is never written (PYTHONDONTWRITEBYTECODE) every fresh process would
# compile Numba's and NumPy's sources again: 2-3 s of each process's start (import 0.99 s ->
# 0.45 s, the first small op and backward 3.4 s -> 1.4 s), for ~40 s once at install.
# `minitorch warmup` then compiles the kernels of common models into NUMBA_CACHE_DIR (a few
# minutes, once), so nothing run after set-up waits for the compiler.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "uv>=0.4,<1"
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e ".[dev]"
	$(BIN)/minitorch warmup
	rm -f $(VENV)/.installed-* && touch $@

demo: $(STAMP)
	$(BIN)/minitorch train --out out/demo.png

# the demo on 2 ranks over MPI (DistributedDataParallel), with a checkpoint rank 0 saves after each epoch
demo-distributed: $(STAMP)
	$(BIN)/minitorch train --distributed --nproc-per-node 2 --out out/demo-distributed.png --checkpoint out/demo-distributed.pt

$(TORCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet "torch==$(TORCH_VERSION)"
	touch $@

# The PyTorch corpus (compat/) runs each script under PyTorch and under minitorch in child
# processes and compares what they print; compat/known_gaps.py lists the scripts that differ.
# The notebooks run in a pytest process of their own: the test suite switches Numba's CUDA
# simulator on, and the notebooks must see the environment a student's JupyterLab has.
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval-sanitize.cfg

# Numba compiles for the host CPU, and float32 results differ in their last bits from one CPU
# to another: the notebooks run a second time compiled for a generic x86-64, so an output that
# only holds on the machine that wrote it fails here too. Each CPU name keeps its own cache.
#
# The four runs are independent, and each keeps about one core busy (pytest and Numba's compiler
# are single-threaded): `make test` runs them TEST_JOBS at a time (2: the unit tests beside the
# other three in turn, in this order), which on two cores takes about the time of the unit
# tests alone. Every run goes to its end (-k); each run's output is printed whole when it ends
# (never interleaved), and make names a run that failed. `make test TEST_JOBS=1` runs them one
# by one, printing as they go.
TEST_JOBS ?= 2
TEST_RUNS := test-unit test-compat test-notebooks test-notebooks-generic
.PHONY: $(TEST_RUNS)
test: $(STAMP) $(TORCH_STAMP)
	$(MAKE) --no-print-directory -k -j$(TEST_JOBS) --output-sync=line $(TEST_RUNS)

test-unit: $(STAMP) $(TORCH_STAMP)
	MINITORCH_REQUIRE_TORCH=1 MINITORCH_REQUIRE_MPI=1 $(BIN)/python -m pytest -q

test-compat: $(STAMP) $(TORCH_STAMP)
	MINITORCH_REQUIRE_TORCH=1 $(BIN)/python -m pytest -q -p no:cacheprovider compat

test-notebooks: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider $(NBVAL) notebooks

test-notebooks-generic: $(STAMP)
	NUMBA_CPU_NAME=generic NUMBA_CACHE_DIR=$(CURDIR)/.venv/numba-cache-generic $(BIN)/python -m pytest -q -p no:cacheprovider $(NBVAL) notebooks

bench: $(STAMP) $(TORCH_STAMP)
	$(BIN)/python bench/run.py

# The course: `make student STEP=N [OUT=dir]` writes a student release with the solutions of
# steps >= N removed; `make grade [SUBMISSION=dir] [STEP=N]` scores a copy of minitorch task by
# task (the course itself by default) and writes a Gradescope results.json.
.PHONY: student grade
student: $(STAMP)
	@test -n "$(STEP)" || { echo "usage: make student STEP=N [OUT=dir]"; exit 2; }
	$(BIN)/python -m minitorch.course student --step $(STEP) --out $(or $(OUT),out/student-step$(STEP))

# `make release-check STEP=N`: write the release of step N (to out/release-check/stepN, reused so
# Numba's cache survives) and check it: each task fails only on its own stub, the release imports,
# the step's notebook runs under nbval, and the reference scores full points on the step.
.PHONY: release-check
release-check: $(STAMP)
	@test -n "$(STEP)" || { echo "usage: make release-check STEP=N"; exit 2; }
	$(BIN)/python -m minitorch.course release-check --step $(STEP) --out out/release-check/step$(STEP)

# `make status [STEP=N] [TASK=X.Y] [BACKEND=cpu]`: run your code's task tests and print each task's state and points, and the next task.
status: $(STAMP)
	$(BIN)/minitorch course status $(if $(STEP),--step $(STEP)) $(if $(TASK),--task $(TASK)) $(if $(BACKEND),--backend $(BACKEND))

grade: $(STAMP)
	$(BIN)/python -m minitorch.course grade $(if $(SUBMISSION),--submission $(SUBMISSION)) $(if $(STEP),--step $(STEP)) --results $(or $(RESULTS),out/results.json)

# `make milestone N=k`: run milestone k (1 perceptron, 2 XOR, 3 digits MLP, 4 LeNet-5, 5 attention) on your code;
# without N, list them and the steps each needs.
.PHONY: milestone
milestone: $(STAMP)
	$(BIN)/minitorch milestone $(if $(N),$(N),--list) $(if $(QUICK),--quick)

docs: $(STAMP)
	$(BIN)/python -m compat.coverage
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --quiet
	@echo "site written to out/site (open out/site/index.html)"

lab: $(STAMP)
	$(BIN)/jupyter lab

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
