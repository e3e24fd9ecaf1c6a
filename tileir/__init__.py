"""tileir: an open, inspectable compiler for NVIDIA CUDA Tile IR, in Python on xDSL.

The Python API (`tileir.api`, documented in docs/user-guide.md):

    import tileir

    module = tileir.load("kernel.tileirbc")          # bytecode or cuda_tile text
    result = tileir.compile(module, arch="sm_90a")   # .cuda_tile .tileaa .tileas .llvm .ptx
    result = tileir.compile(ct_kernel, signature, arch="sm_90")  # a cuTile @ct.kernel
    result.asm["tileas"], result.remarks             # stage texts; the compiler's decisions
    after = tileir.run_pass(result.tileas.module, "tileas-canonicalize")
    tileir.diff(result.tileas.module, after)

The names below load on first use, so `import tileir` stays cheap for the drivers.
"""

# No `from __future__ import annotations`: it imports the `__future__` module, 0.25 ms
# of every cache hit (tileir/driver/client.py).
#: `typing.TYPE_CHECKING` without importing `typing` (a few milliseconds of every
#: `tileir-as` start, whose client imports this package only for `tileir.driver`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tileir.api import (
        Compilation,
        LaunchUnavailable,
        PassRecord,
        Stage,
        available_passes,
        compile,
        diff,
        emit_ptx,
        launch,
        launcher,
        load,
        load_cutile,
        run_pass,
    )
    from tileir.compiler import print_ir
    from tileir.diagnostics import CompileError
    from tileir.display import compare, show

#: Public name -> the module that defines it.
_EXPORTS = {
    "Compilation": "tileir.api",
    "LaunchUnavailable": "tileir.api",
    "PassRecord": "tileir.api",
    "Stage": "tileir.api",
    "available_passes": "tileir.api",
    "compile": "tileir.api",
    "diff": "tileir.api",
    "emit_ptx": "tileir.api",
    "launch": "tileir.api",
    "launcher": "tileir.api",
    "load": "tileir.api",
    "load_cutile": "tileir.api",
    "run_pass": "tileir.api",
    "print_ir": "tileir.compiler",
    "CompileError": "tileir.diagnostics",
    "compare": "tileir.display",
    "show": "tileir.display",
}

__all__ = [
    "Compilation",
    "CompileError",
    "LaunchUnavailable",
    "PassRecord",
    "Stage",
    "available_passes",
    "compare",
    "compile",
    "diff",
    "emit_ptx",
    "launch",
    "launcher",
    "load",
    "load_cutile",
    "print_ir",
    "run_pass",
    "show",
]


def __getattr__(name: str) -> "Any":
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tileir' has no attribute '{name}'")
    import importlib  # here, not at the top: the client's start imports this package

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
