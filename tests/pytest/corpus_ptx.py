"""tileir's PTX of a corpus kernel for a target, compiled once per test run and shared by
the test files that need it: test_corpus_compile.py assembles it with ptxas,
test_corpus_simulated.py runs it in the simulator.  Each (kernel, target) was compiled
by both, in different workers; the run's processes now keep the PTX in one directory
(`TILEIR_TEST_PTX_DIR`, made by tests/conftest.py for the run and removed after it), so
the second reads what the first compiled.  Within one run the sources cannot change
under it, so the file name (kernel, target) is the whole key.  Without the variable (a
test module run on its own outside pytest's configuration) every call compiles."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from tileir.compiler import compile_module, load_module
from tileir.diagnostics import CompileError

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
#: The run's directory of compiled PTX.
PTX_DIR_ENV = "TILEIR_TEST_PTX_DIR"


@functools.cache
def corpus_ptx(name: str, arch: str) -> str | CompileError:
    """tileir's PTX for corpus kernel `name` on `arch`, or the error saying why it
    cannot compile it (errors are not kept: each process compiles those again)."""
    directory = os.environ.get(PTX_DIR_ENV)
    path = Path(directory, f"{name}.{arch}.ptx") if directory else None
    if path is not None and path.is_file():
        return path.read_text()
    try:
        ptx = compile_module(load_module(CORPUS / f"{name}.mlir"), arch).ptx
    except CompileError as e:
        return e
    assert ptx is not None
    if path is not None:
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        partial.write_text(ptx)
        os.replace(partial, path)  # whole or absent for the other processes
    return ptx
