"""`launch`: run a cuda_tile entry over a grid of tile blocks, on numpy arrays.

The calling convention is cuTile's: the entry's parameters in order, a numpy array
for each `tile<ptr<T>>` (the pointer designates the array's first element; pointer
arithmetic counts elements of T) and a Python int or float for each scalar tile.
Arrays are updated in place.  Tile blocks run one after another, x fastest, then y,
then z; cuTile promises nothing about their order, so a kernel whose result depends
on it is racy on the device too.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
from xdsl.dialects.builtin import AnyFloat, IntegerType, ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import DiagnosticException, InterpretationError

import tileir.dialects.cuda_tile.ops as ct
from tileir.diagnostics import CompileError
from tileir.dialects.cuda_tile.types import PointerType, TileType
from tileir.interpreter.arith import CudaTileArithFunctions
from tileir.interpreter.control import CudaTileControlFunctions
from tileir.interpreter.errors import ArgumentError, KernelError
from tileir.interpreter.memory import Memory, MemoryFault
from tileir.interpreter.memory_ops import CudaTileMemoryFunctions
from tileir.interpreter.numerics import dtype_of, int_range, to_float
from tileir.interpreter.state import KernelState, Options, run_region, set_state
from tileir.interpreter.tiles import CudaTileTileFunctions
from tileir.utils.numeric import dense_to_numpy

Grid = int | Sequence[int]


@dataclass
class LaunchResult:
    """What a launch left besides the arrays it updated."""

    entry: str
    grid: tuple[int, int, int]
    printed: str = ""
    warnings: list[str] = field(default_factory=list[str])


def register_cuda_tile(interpreter: Interpreter) -> None:
    """Give an xDSL interpreter the semantics of every cuda_tile op."""
    for functions in (
        CudaTileArithFunctions(),
        CudaTileTileFunctions(),
        CudaTileMemoryFunctions(),
        CudaTileControlFunctions(),
    ):
        interpreter.register_implementations(functions)


def load(module_or_path: ModuleOp | Operation | str | Path) -> ModuleOp:
    """A module from a module, a `cuda_tile.module` op, or a .mlir/.tileirbc path."""
    if isinstance(module_or_path, ModuleOp):
        return module_or_path
    if isinstance(module_or_path, Operation):
        if module_or_path.parent is None:
            return ModuleOp([module_or_path])
        top = module_or_path.get_toplevel_object()
        if isinstance(top, ModuleOp):
            return top
        raise CompileError(f"cannot launch from a detached '{module_or_path.name}' op")
    if isinstance(module_or_path, str | Path):
        return read_module(module_or_path)
    raise CompileError(
        f"expected a module or a .mlir/.tileirbc path, got {type(module_or_path).__name__}"
    )


def read_module(path: str | Path) -> ModuleOp:
    """A .tileirbc (bytecode reader) or .mlir (text front end) file, verified; errors
    are located `CompileError`s.  (What `tileir.compiler.load_module` does, without
    importing the compiler's pipeline, which a launch does not need.)"""
    from xdsl.utils.exceptions import ParseError

    from tileir.diagnostics import verify_module
    from tileir.frontend import parse_error, parse_text
    from tileir.registry import make_context

    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise CompileError(f"no such file: {path}") from None
    except OSError as e:
        raise CompileError(f"cannot read {path}: {e.strerror}") from None
    ctx = make_context()
    if p.suffix in (".tileirbc", ".bc") or data.startswith(b"\x7fTileIR"):
        from tileir.bytecode.reader import read_bytecode

        return read_bytecode(data, str(path), ctx)
    try:
        module = parse_text(ctx, data, str(path))
    except ParseError as e:
        raise parse_error(e) from None
    verify_module(module)
    return module


def entries(module: ModuleOp) -> list[ct.EntryOp]:
    return [op for op in module.walk() if isinstance(op, ct.EntryOp)]


def find_entry(module: ModuleOp, name: str | None) -> ct.EntryOp:
    found = entries(module)
    names = [e.sym_name.data for e in found]
    if not found:
        raise CompileError("the module has no cuda_tile.entry to launch")
    if name is None:
        if len(found) > 1:
            raise CompileError(
                f"the module has {len(found)} entries ({', '.join(names)}); choose one with entry="
            )
        return found[0]
    for e in found:
        if e.sym_name.data == name:
            return e
    raise CompileError(f"no entry named '{name}' (the module has: {', '.join(names)})")


def normalize_grid(grid: Grid) -> tuple[int, int, int]:
    dims = [grid] if isinstance(grid, int | np.integer) else list(grid)
    if not 1 <= len(dims) <= 3:
        raise ArgumentError(f"the grid has 1 to 3 dimensions, got {len(dims)}")
    out: list[int] = []
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, int | np.integer) or int(d) < 1:
            raise ArgumentError(f"grid dimensions are positive integers, got {tuple(dims)}")
        out.append(int(d))
    return (*out, 1, 1)[:3]  # pyright: ignore[reportReturnType]


def _describe(t: Attribute) -> str:
    return str(t).replace("!cuda_tile.", "")


def marshal_argument(
    memory: Memory, index: int, t: Attribute, value: Any, any_shape: bool = False
) -> np.ndarray:
    """The interpreter value of one entry argument (`any_shape`: tiles of any shape,
    given as arrays, for `call`)."""
    where = f"argument {index} ({_describe(t)})"
    if not isinstance(t, TileType) or (t.rank != 0 and not any_shape):
        raise ArgumentError(f"{where}: only scalar tile parameters can be launched")
    el = t.element_type
    if t.rank != 0:
        if isinstance(el, PointerType):
            raise ArgumentError(f"{where}: tiles of pointers cannot be passed")
        tile = np.asarray(value)
        if tile.shape != t.dims:
            raise ArgumentError(f"{where}: expected an array of shape {t.dims}, got {tile.shape}")
        want = dtype_of(el)
        if tile.dtype != want:
            raise ArgumentError(f"{where}: expected an array of {want}, got {tile.dtype}")
        return tile.copy()
    if isinstance(el, PointerType):
        if not isinstance(value, np.ndarray):
            raise ArgumentError(f"{where}: expected a numpy array, got {type(value).__name__}")
        want = dtype_of(el.pointee)
        # Tile IR has no unsigned types: cuTile passes uint arrays as ptr<iN>.
        same_bits = (
            want.kind == "i" and value.dtype.kind == "u" and want.itemsize == value.dtype.itemsize
        )
        if value.dtype != want and not same_bits:
            raise ArgumentError(f"{where}: expected an array of {want}, got {value.dtype}")
        try:
            return np.asarray(memory.map_array(value, f"argument {index}"), dtype=np.int64)
        except MemoryFault as e:
            raise ArgumentError(f"{where}: {e}") from None
    dt = dtype_of(el)
    if isinstance(value, np.ndarray | np.generic) and np.ndim(value) == 0:
        value = value.item()
    if isinstance(el, IntegerType):
        if isinstance(value, bool) and el.width.data != 1:
            raise ArgumentError(f"{where}: expected an int, got a bool")
        if not isinstance(value, int):
            raise ArgumentError(f"{where}: expected an int, got {type(value).__name__}")
        lo, _ = int_range(dt, True)
        _, hi = int_range(dt, False)
        if el.width.data == 1:
            lo, hi = 0, 1
        if not lo <= value <= hi:
            raise ArgumentError(f"{where}: {value} does not fit in {el.width.data} bits")
        if dt == np.bool_:
            return np.asarray(bool(value))
        bits = dt.itemsize * 8
        return np.asarray(value & ((1 << bits) - 1)).astype(f"u{dt.itemsize}").view(dt).reshape(())
    if isinstance(el, AnyFloat):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ArgumentError(f"{where}: expected a float, got {type(value).__name__}")
        return to_float(np.asarray(float(value), dtype=np.float64), dt)
    raise ArgumentError(f"{where}: unsupported parameter type")


def call(
    module_or_path: ModuleOp | Operation | str | Path,
    function: str,
    *args: Any,
    options: Options | None = None,
    out: IO[str] | None = None,
) -> tuple[Any, ...]:
    """Run one `testing$func` (or `entry`) once, as tile block (0, 0, 0) of a 1x1x1
    grid, and return what it returns (numpy arrays).  Tile parameters of any shape take
    numpy arrays of that shape and element type; pointers take arrays as in `launch`."""
    module = load(module_or_path)
    funcs = [
        op
        for op in module.walk()
        if isinstance(op, ct.EntryOp | ct.TestingFuncOp) and op.sym_name.data == function
    ]
    if not funcs:
        raise CompileError(f"no function named '{function}'")
    func = funcs[0]
    params = list(func.function_type.inputs.data)
    if len(args) != len(params):
        raise ArgumentError(f"@{function} takes {len(params)} argument(s), got {len(args)}")
    memory = Memory()
    values = tuple(
        marshal_argument(memory, i, t, v, any_shape=True)
        for i, (t, v) in enumerate(zip(params, args, strict=True))
    )
    state = KernelState(memory, (1, 1, 1), options or Options(), out=out or sys.stdout)
    state.globals = _allocate_globals(module, memory)
    interpreter = Interpreter(module)
    register_cuda_tile(interpreter)
    set_state(interpreter, state)
    _, results = _run_block(interpreter, state, func, values, (0, 0, 0))
    return results


def _allocate_globals(module: ModuleOp, memory: Memory) -> dict[str, int]:
    out: dict[str, int] = {}
    for op in module.walk():
        if isinstance(op, ct.GlobalOp):
            data = np.ascontiguousarray(dense_to_numpy(op.value))
            out[op.sym_name.data] = memory.allocate(
                data.nbytes, op.alignment_bytes, f"@{op.sym_name.data}", data.tobytes()
            )
    return out


def blocks(grid: tuple[int, int, int]) -> Iterator[tuple[int, int, int]]:
    gx, gy, gz = grid
    for z in range(gz):
        for y in range(gy):
            for x in range(gx):
                yield (x, y, z)


def _root_cause(e: BaseException) -> BaseException:
    seen: set[int] = set()
    while isinstance(e, DiagnosticException | InterpretationError) and id(e) not in seen:
        seen.add(id(e))
        cause = e.__cause__ or e.__context__
        if cause is None:
            break
        e = cause
    return e


def _run_block(
    interpreter: Interpreter,
    state: KernelState,
    func: ct.EntryOp | ct.TestingFuncOp,
    values: tuple[Any, ...],
    block: tuple[int, int, int],
) -> tuple[str, tuple[Any, ...]]:
    """Run `func`'s body as tile block `block`; every failure becomes a located error."""
    state.block = block
    try:
        kind, results = run_region(interpreter, func.body, values, func.sym_name.data)
    except CompileError:
        raise
    except (DiagnosticException, InterpretationError) as e:
        cause = _root_cause(e)
        if isinstance(cause, CompileError):
            raise cause from None
        raise KernelError(f"internal interpreter error: {cause}", state.current, block) from None
    except RecursionError:
        raise KernelError("the kernel nests too deeply", None, block) from None
    except Exception as e:  # a bug in the interpreter: report it, located if possible
        raise KernelError(
            f"internal interpreter error: {type(e).__name__}: {e}", state.current, block
        ) from e
    if kind not in ("return", "end"):
        raise KernelError(f"the function body ended with `{kind}`", func, block)
    return kind, results


def launch(
    module_or_path: ModuleOp | Operation | str | Path,
    grid: Grid,
    *args: Any,
    entry: str | None = None,
    options: Options | None = None,
    out: IO[str] | None = None,
    indirect_arrays: Sequence[np.ndarray] = (),
) -> LaunchResult:
    """Run `entry` (the module's only entry by default) over `grid` = (gx, gy, gz).

    `args` are the entry's parameters in order: a numpy array per `tile<ptr<T>>`,
    a Python int or float per scalar.  Arrays are updated in place.  `print_tko`
    output goes to `out` (stdout by default) and is also returned.  Raises
    `CompileError` (a `KernelError` for what the kernel did) with a located message.

    `indirect_arrays` are mapped after the arguments, in order: arrays the kernel
    reaches only through addresses it reads from memory (cuTile's lists of arrays
    pass a table of base addresses).  A `Memory` that maps the same arrays in the
    same order gives the same addresses, to write into such a table beforehand.
    """
    module = load(module_or_path)
    kernel = find_entry(module, entry)
    grid3 = normalize_grid(grid)
    params = list(kernel.function_type.inputs.data)
    name = kernel.sym_name.data
    if len(args) != len(params):
        listing = ", ".join(_describe(p) for p in params)
        raise ArgumentError(
            f"entry @{name} takes {len(params)} argument(s) ({listing}), got {len(args)}"
        )
    memory = Memory()
    values = tuple(
        marshal_argument(memory, i, t, v) for i, (t, v) in enumerate(zip(params, args, strict=True))
    )
    for i, a in enumerate(indirect_arrays):
        memory.map_array(a, f"indirect array {i}")
    state = KernelState(memory, grid3, options or Options(), out=out or sys.stdout)
    state.globals = _allocate_globals(module, memory)
    interpreter = Interpreter(module)
    register_cuda_tile(interpreter)
    set_state(interpreter, state)
    for block in blocks(grid3):
        _run_block(interpreter, state, kernel, values, block)
    return LaunchResult(name, grid3, "".join(state.printed), state.warnings)
