"""`launch` on a GPU, with the interpreter's signature.

The module is compiled by tileir (`tileir.compiler.compile_module`, what `tileir-as`
runs) for the device's architecture and assembled by ptxas into a cubin; the block
size is the entry's `.reqntid`.  Every buffer an array argument views is copied to
the device (so a pointer keeps its offset into the buffer, as for strided views),
the kernel runs, and every writable buffer is copied back into the arrays.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from tileir.diagnostics import CompileError
from tileir.dialects.cuda_tile.types import PointerType, TileType
from tileir.interpreter.errors import ArgumentError
from tileir.interpreter.launcher import Grid, find_entry, load, marshal_argument, normalize_grid
from tileir.interpreter.memory import Memory, MemoryFault, byte_view
from tileir.runtime.backends import Backend, GpuUnavailable, open_backend

#: tileir's target for a compute capability's major version (minor: see `arch_for`).
_ARCH_OF_MAJOR = {8: "sm_80", 9: "sm_90a", 10: "sm_100a", 12: "sm_120"}


@dataclass
class Kernel:
    """A compiled entry: its cubin, symbol and block size."""

    cubin: bytes
    symbol: str
    block: tuple[int, int, int]
    arch: str
    ptx: str


@dataclass
class RuntimeResult:
    entry: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    arch: str
    backend: str


_BACKEND: Backend | None = None
_KERNELS: dict[tuple[str, str, str, int], Kernel] = {}


def arch_for(capability: tuple[int, int]) -> str:
    major, minor = capability
    if major == 8 and minor in (6, 7, 9):
        return f"sm_8{minor}"
    arch = _ARCH_OF_MAJOR.get(major)
    if arch is None:
        raise GpuUnavailable(f"tileir has no target for compute capability {major}.{minor}")
    return arch


def block_size(ptx: str, symbol: str) -> tuple[int, int, int]:
    """The `.reqntid` of entry `symbol` in `ptx`."""
    pattern = rf"\.entry\s+{re.escape(symbol)}\s*\(.*?\)\s*([^{{]*)\{{"
    m = re.search(pattern, ptx, re.S)
    dims = (
        re.search(r"\.reqntid\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?", m.group(1)) if m else None
    )
    if dims is None:
        raise CompileError(f"the PTX of @{symbol} records no .reqntid block size")
    return (int(dims.group(1)), int(dims.group(2) or 1), int(dims.group(3) or 1))


def compile_kernel(module: ModuleOp, entry: str, arch: str, num_warps: int = 4) -> Kernel:
    """tileir's cubin of `module` for `arch` (cached on the module text)."""
    from tileir.backend.ptx.ptxas import run_ptxas
    from tileir.compiler import compile_module, print_ir

    text = print_ir(module)
    key = (hashlib.sha256(text.encode()).hexdigest(), entry, arch, num_warps)
    cached = _KERNELS.get(key)
    if cached is not None:
        return cached
    result = compile_module(module.clone(), arch, num_warps=num_warps)
    assert result.ptx is not None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "kernel.cubin"
        try:
            report = run_ptxas(result.ptx, arch, str(out))
        except FileNotFoundError as e:
            raise CompileError(str(e)) from None
        if not report.ok:
            raise CompileError(
                f"internal compiler error: ptxas rejected tileir's PTX:\n{report.output.strip()}"
            )
        cubin = out.read_bytes()
    kernel = Kernel(cubin, entry, block_size(result.ptx, entry), arch, result.ptx)
    _KERNELS[key] = kernel
    return kernel


def backend(ordinal: int = 0) -> Backend:
    global _BACKEND
    if _BACKEND is None:
        _BACKEND = open_backend(ordinal)
    return _BACKEND


def _root(a: np.ndarray) -> np.ndarray:
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root


def _host_address(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


def launch(
    module_or_path: ModuleOp | Operation | str | Path,
    grid: Grid,
    *args: Any,
    entry: str | None = None,
    arch: str | None = None,
    num_warps: int = 4,
    device: int = 0,
) -> RuntimeResult:
    """Compile and run `entry` on the GPU over `grid`; the same arguments as
    `tileir.interpreter.launch` (arrays are copied in, and back out in place)."""
    module = load(module_or_path)
    kernel_op = find_entry(module, entry)
    grid3 = normalize_grid(grid)
    symbol = kernel_op.sym_name.data
    params = list(kernel_op.function_type.inputs.data)
    if len(args) != len(params):
        raise ArgumentError(f"entry @{symbol} takes {len(params)} argument(s), got {len(args)}")
    # The interpreter's argument checks, and the scalar values at their widths.
    scratch = Memory()
    scalars = [
        marshal_argument(scratch, i, t, v)
        for i, (t, v) in enumerate(zip(params, args, strict=True))
    ]

    gpu = backend(device)
    target = arch or arch_for(gpu.capability())
    kernel = compile_kernel(module, symbol, target, num_warps)
    function = gpu.load(kernel.cubin, kernel.symbol)

    uploads: dict[int, tuple[np.ndarray, int]] = {}
    packed: list[np.ndarray] = []
    try:
        for t, value, scalar in zip(params, args, scalars, strict=True):
            assert isinstance(t, TileType)
            if isinstance(t.element_type, PointerType):
                root = _root(value)
                key = _host_address(root)
                if key not in uploads:
                    try:
                        raw = byte_view(root)
                    except MemoryFault as e:
                        raise ArgumentError(f"argument {len(packed)}: {e}") from None
                    uploads[key] = (raw, gpu.upload(raw))
                base = uploads[key][1] + (_host_address(value) - key)
                packed.append(np.array([base], dtype=np.uint64))
            else:
                v = np.asarray(scalar)
                packed.append(
                    np.array([v.astype(np.uint8) if v.dtype == np.bool_ else v]).reshape(1)
                )
        gpu.launch(function, grid3, kernel.block, packed)
        for raw, address in uploads.values():
            if raw.flags.writeable:
                gpu.download(address, raw)
    finally:
        for _, address in uploads.values():
            gpu.free(address)
    return RuntimeResult(symbol, grid3, kernel.block, target, gpu.name)
