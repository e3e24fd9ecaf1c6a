# tileir — an open, inspectable compiler for CUDA Tile IR.
#
#   make demo    compile a bundled cuTile kernel to PTX, check it with ptxas, follow its load
#                through every stage
#   make test    FileCheck suites (lit) + pytest (+ GPU tests, skipped without a GPU) + notebooks
#   make docs    regenerate the pass/op reference, the generated dialect pages and the
#                notebooks' stored outputs, and build the notebooks as HTML (docs/_build/html)
#   make bench   bytecode and compile times (vs tileiras);  make fuzz   the fuzzers, long
#
# Both create .venv and install what they need on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: install demo test filecheck pytest notebooks gpu lint corpus bench fuzz docs docs-test clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,notebooks]'
	touch $(STAMP)

demo: install
	$(BIN)/python -m tileir.demo

# Notebooks before pytest, so that pytest's summary stays the last line.
test: install filecheck notebooks pytest

# The tests start no compile server (tests/conftest.py and docs/cli.md say why; the
# server's own tests start theirs, privately, and stop it).
test filecheck pytest notebooks gpu fuzz cutile-shim: export TILEIR_SERVER = 0

# lit's tileir-opt and tileir-as runs go to a compile server of the run's own
# (tests/private_server.py: started, then stopped and removed; docs/testing.md).
filecheck: install
	$(BIN)/python tests/private_server.py $(BIN)/lit -sv tests/filecheck

# On every core, a test file to a worker (docs/testing.md); PYTEST_JOBS=0 for one process.
PYTEST_JOBS ?= auto
pytest: install
	$(BIN)/python -m pytest -q -n $(PYTEST_JOBS) --dist loadfile --no-loadscope-reorder tests/pytest tests/gpu

# Every shell block of README.md and docs/*.md, the slow ones too (make test runs the others).
docs-test: install
	TILEIR_DOCS_SLOW=1 $(BIN)/python -m pytest -q tests/pytest/test_docs_commands.py -rs

# Every notebook of docs/notebooks, executed top to bottom (no GPU needed); fails when the
# outputs a notebook is stored with are not what it prints now (`make docs` stores them).
notebooks: install
	$(BIN)/python docs/notebooks/run.py

gpu: install
	$(BIN)/python -m pip install --quiet -e '.[gpu]'
	$(BIN)/python -m pytest -q tests/gpu -rs

lint: install
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/ruff check tileir tests
	$(BIN)/pyright

corpus: install
	$(BIN)/python -m pip install --quiet -e '.[cutile]'
	$(BIN)/python tests/corpus/generate.py

# Read/write times of the bytecode reader and writer over the corpus, and their scaling;
# compile time per corpus kernel, tileir-as against tileiras, and against op count
# (docs/performance.md).
bench: install
	$(BIN)/python benchmarks/bench_bytecode.py
	$(BIN)/python benchmarks/bench_compile.py
	$(BIN)/python benchmarks/bench_scaling.py
	$(BIN)/python benchmarks/bench_gpu.py

# The fuzzers, long (docs/testing.md): the bytecode reader's hypothesis test (make test runs
# 500 examples; FUZZ_EXAMPLES=N to change), then the compiler's campaign over mutated
# corpus kernels (make test runs 1,000), resumed from .fuzz/ until it has run FUZZ_MUTANTS
# mutants (FUZZ_SEED, FUZZ_DIR and FUZZ_JOBS to change); it lists what it found.
FUZZ_EXAMPLES ?= 20000
FUZZ_MUTANTS ?= 100000
FUZZ_SEED ?= 1
FUZZ_DIR ?= .fuzz
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
fuzz: install
	TILEIR_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -q -s -p no:cacheprovider tests/pytest/test_bytecode_fuzz.py
	$(BIN)/python -m tileir.testing.fuzz --dir $(FUZZ_DIR) --seed $(FUZZ_SEED) --until $(FUZZ_MUTANTS) --jobs $(FUZZ_JOBS)

# Mutation testing (docs/testing.md): one small change at a time to a copy of the
# conversions, the LLVM lowering and the bytecode reader, each against a fast subset of
# the tests; lists the mutants the tests did not notice.  Not part of make test.
MUTATE_SEED ?= 1
MUTATE_SECONDS ?= 1200
MUTATE_JOBS ?= 2
.PHONY: mutate
mutate: install
	TILEIR_SERVER=0 $(BIN)/python -m tileir.testing.mutate --seed $(MUTATE_SEED) --seconds $(MUTATE_SECONDS) --jobs $(MUTATE_JOBS)

# cuTile Python's export_kernel compiling every corpus kernel through the tileir-as shim, for
# sm_80 and sm_90 (make test does sm_80; needs cuda-tile, no GPU): docs/cutile.md.
.PHONY: cutile-shim
cutile-shim: install
	TILEIR_CUTILE_ARCHS=sm_80,sm_90 $(BIN)/python -m pytest -q -p no:cacheprovider tests/pytest/test_cutile_shim.py

# The pass/op reference (docs/reference.md) and the generated dialect pages, from the code;
# the notebooks executed and stored with their outputs (what a code host shows), then
# rendered as HTML pages in docs/_build/html/notebooks/ (nbconvert: the docs extra).
docs: install
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	$(BIN)/python -m tileir.reference docs/reference.md
	$(BIN)/python -m tileir.dialects.nv_tileas.docs docs/dialects/nv_tileas.md
	$(BIN)/python -m tileir.dialects.cuda_tile.reference --write
	TILEIR_SERVER=0 $(BIN)/python docs/notebooks/run.py --write
	$(BIN)/python docs/notebooks/run.py --html docs/_build/html/notebooks

clean:
	rm -rf $(VENV) build *.egg-info
	find . -name __pycache__ -prune -exec rm -rf {} +
