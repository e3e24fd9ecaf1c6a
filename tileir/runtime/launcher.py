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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation

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
    cubin: bytes | None = None,
    block: tuple[int, int, int] = (1, 1, 1),
) -> RuntimeResult:
    """Compile and run `entry` on the GPU over `grid`; the same arguments as
    `tileir.interpreter.launch` (arrays are copied in, and back out in place).

    With `cubin`, that cubin of the same entry runs instead of compiling: one built
    ahead of time (where the GPU machine has no ptxas), or another compiler's (NVIDIA
    `tileiras`'s, to judge it by the same interpreter), launched with `block` (a Tile IR
    cubin's `(1, 1, 1)` as cuTile launches them, or the entry's `.reqntid`)."""
    call = _prepare(module_or_path, grid, args, entry, device)
    target = arch or arch_for(call.gpu.capability())
    if cubin is None:
        kernel = compile_kernel(call.module, call.symbol, target, num_warps)
        cubin, block = kernel.cubin, kernel.block
    function = call.gpu.load(cubin, call.symbol)
    with _on_device(call) as (packed, uploads):
        call.gpu.launch(function, call.grid, block, packed)
        for raw, address in uploads.values():
            if raw.flags.writeable:
                call.gpu.download(address, raw)
    return RuntimeResult(call.symbol, call.grid, block, target, call.gpu.name)


def time_kernel(
    module_or_path: ModuleOp | Operation | str | Path,
    grid: Grid,
    *args: Any,
    entry: str | None = None,
    cubin: bytes | None = None,
    block: tuple[int, int, int] = (1, 1, 1),
    repeats: int = 20,
    num_warps: int = 4,
    device: int = 0,
) -> float:
    """Milliseconds per launch of `entry` over `grid` on the arguments `launch` takes
    (copied to the device once, not back): tileir's cubin for the device, or `cubin`
    (another compiler's, of the same entry) launched with `block` (a Tile IR cubin's
    `(1, 1, 1)`, as cuTile launches them: the driver takes the block size from the
    kernel's `.reqntid`)."""
    call = _prepare(module_or_path, grid, args, entry, device)
    if cubin is None:
        kernel = compile_kernel(
            call.module, call.symbol, arch_for(call.gpu.capability()), num_warps
        )
        cubin, block = kernel.cubin, kernel.block
    function = call.gpu.load(cubin, call.symbol)
    with _on_device(call) as (packed, _):
        return call.gpu.time_launches(function, call.grid, block, packed, repeats)


@dataclass
class _Call:
    """A launch's module, entry, grid and arguments, checked as the interpreter checks
    them, and the backend it runs on."""

    module: ModuleOp
    symbol: str
    grid: tuple[int, int, int]
    params: list[Attribute]
    args: tuple[Any, ...]
    scalars: list[Any]
    gpu: Backend


def _prepare(
    module_or_path: ModuleOp | Operation | str | Path,
    grid: Grid,
    args: tuple[Any, ...],
    entry: str | None,
    device: int,
) -> _Call:
    module = load(module_or_path)
    kernel_op = find_entry(module, entry)
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
    return _Call(module, symbol, normalize_grid(grid), params, args, scalars, backend(device))


@contextmanager
def _on_device(
    call: _Call,
) -> Iterator[tuple[list[np.ndarray], dict[int, tuple[np.ndarray, int]]]]:
    """The kernel's parameters with every array's buffer copied to the device (freed
    on exit): the packed parameter values, and the uploads by host buffer address."""
    gpu = call.gpu
    uploads: dict[int, tuple[np.ndarray, int]] = {}
    packed: list[np.ndarray] = []
    try:
        for t, value, scalar in zip(call.params, call.args, call.scalars, strict=True):
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
        yield packed, uploads
    finally:
        for _, address in uploads.values():
            gpu.free(address)
