# tileir — an open, inspectable compiler for CUDA Tile IR.
#
#   make demo    compile a bundled cuTile kernel to PTX, check it with ptxas, show every stage
#   make test    FileCheck suites (lit) + pytest (+ GPU tests, skipped without a GPU)
#   make bench   bytecode read/write times;  make fuzz   the bytecode fuzz test, long
#
# Both create .venv and install what they need on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: install demo test filecheck pytest gpu lint corpus bench fuzz docs clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: install
	$(BIN)/python -m tileir.demo

test: install filecheck pytest

filecheck: install
	$(BIN)/lit -sv tests/filecheck

pytest: install
	$(BIN)/python -m pytest -q tests/pytest tests/gpu

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

# Read/write times of the bytecode reader and writer over the corpus, and their scaling.
bench: install
	$(BIN)/python benchmarks/bench_bytecode.py

# The bytecode fuzz test, long (make test runs 500 examples): FUZZ_EXAMPLES=N to change.
FUZZ_EXAMPLES ?= 20000
fuzz: install
	TILEIR_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -q -s -p no:cacheprovider tests/pytest/test_bytecode_fuzz.py

# cuTile Python's export_kernel compiling every corpus kernel through the tileir-as shim, for
# sm_80 and sm_90 (make test does sm_80; needs cuda-tile, no GPU): docs/cutile.md.
.PHONY: cutile-shim
cutile-shim: install
	TILEIR_CUTILE_ARCHS=sm_80,sm_90 $(BIN)/python -m pytest -q -p no:cacheprovider tests/pytest/test_cutile_shim.py

clean:
	rm -rf $(VENV) build *.egg-info
	find . -name __pycache__ -prune -exec rm -rf {} +
