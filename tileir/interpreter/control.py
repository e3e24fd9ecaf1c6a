"""cuda_tile control flow (`for`, `loop`, `if` and their terminators) and the
debugging ops `print_tko` and `assert`."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)

import tileir.dialects.cuda_tile.ops as ct
from tileir.dialects.cuda_tile.ops.newer import GdcLaunchDependentsTkoOp, GdcWaitTkoOp
from tileir.interpreter.errors import KernelAssertionError
from tileir.interpreter.numerics import as_unsigned, exact_ints
from tileir.interpreter.state import KernelState, run_region, state_of
from tileir.interpreter.values import TOKEN

Values = tuple[Any, ...]

_SPEC = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfFgGaAcsp%])")


def printf(fmt: str, args: list[np.ndarray]) -> str:
    """C printf of scalars; with tile arguments, one line per element (as each
    thread of the tile would print its element)."""
    arrays = [np.asarray(a) for a in args]
    shape = np.broadcast_shapes(*(a.shape for a in arrays)) if arrays else ()
    flats = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    count = int(np.prod(shape)) if shape else 1
    return "".join(_format_one(fmt, [f[i] for f in flats]) for i in range(count))


def _format_one(fmt: str, values: list[Any]) -> str:
    it = iter(values)

    def replace(m: re.Match[str]) -> str:
        flags, width, precision, _, conv = m.groups()
        if conv == "%":
            return "%"
        value = next(it, None)
        if value is None:
            return m.group(0)
        spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
        v = np.asarray(value)
        if conv in "di":
            return (spec + "d") % int(exact_ints(v, True))
        if conv in "ouxX":
            return (spec + conv) % int(as_unsigned(v).astype(np.uint64))
        if conv in "eEfFgGaA":
            c = {"a": "e", "A": "E", "F": "f"}.get(conv, conv)
            return (spec + c) % float(v.astype(np.float64))
        if conv == "c":
            return chr(int(v) & 0xFF)
        if conv == "p":
            return f"{int(v):#x}"
        return str(value)

    return _SPEC.sub(replace, fmt)


def _less(a: Any, b: Any, unsigned: bool) -> bool:
    if unsigned:
        return int(as_unsigned(np.asarray(a)).astype(np.uint64)) < int(
            as_unsigned(np.asarray(b)).astype(np.uint64)
        )
    return int(exact_ints(np.asarray(a), True)) < int(exact_ints(np.asarray(b), True))


def _add_wrapping(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b in a's integer type, two's-complement wrap-around."""
    ua = as_unsigned(a)
    total = ua.astype(np.uint64) + as_unsigned(b).astype(np.uint64)
    return total.astype(ua.dtype).view(a.dtype).reshape(())


def _leave(state: KernelState, kind: str, values: Values, count: int) -> Values:
    """Hand a `continue`/`break`/`return` to the enclosing op; the results of the op
    being left are never read."""
    state.pending = (kind, values)
    return (None,) * count


@register_impls
class CudaTileControlFunctions(InterpreterFunctions):
    """cuda_tile's structured control flow."""

    @impl(ct.ForOp)
    def run_for(self, interpreter: Interpreter, op: ct.ForOp, args: Values) -> Values:
        state = state_of(interpreter)
        lower, upper, step, *values = args
        unsigned = op.unsignedCmp is not None
        if not _less(np.zeros_like(np.asarray(step)), step, unsigned):
            raise state.error(op, f"the step must be positive, got {int(np.asarray(step))}")
        iv = np.asarray(lower).copy()
        carried = tuple(values)
        while _less(iv, upper, unsigned):
            kind, out = run_region(interpreter, op.region, (iv, *carried), "for")
            if kind == "return":
                return _leave(state, kind, out, len(op.results))
            if kind == "break":
                return out
            carried = out if kind == "continue" else carried
            iv = _add_wrapping(iv, np.asarray(step))
        return carried

    @impl(ct.LoopOp)
    def run_loop(self, interpreter: Interpreter, op: ct.LoopOp, args: Values) -> Values:
        state = state_of(interpreter)
        carried = tuple(args)
        while True:
            kind, out = run_region(interpreter, op.region, carried, "loop")
            if kind == "return":
                return _leave(state, kind, out, len(op.results))
            if kind == "break":
                return out
            if kind == "end":
                raise state.error(op, "the loop body ended without `continue` or `break`")
            carried = out

    @impl(ct.IfOp)
    def run_if(self, interpreter: Interpreter, op: ct.IfOp, args: Values) -> Values:
        state = state_of(interpreter)
        taken = op.then_region if bool(np.asarray(args[0])) else op.else_region
        if not taken.blocks:
            return ()
        kind, out = run_region(interpreter, taken, (), "if")
        if kind in ("continue", "break", "return"):
            return _leave(state, kind, out, len(op.results))
        return out

    @impl_terminator(ct.YieldOp)
    def run_yield(self, interpreter: Interpreter, op: ct.YieldOp, args: Values):
        return ReturnedValues(args), ()

    @impl_terminator(ct.ContinueOp)
    def run_continue(self, interpreter: Interpreter, op: ct.ContinueOp, args: Values):
        return ReturnedValues(args), ()

    @impl_terminator(ct.BreakOp)
    def run_break(self, interpreter: Interpreter, op: ct.BreakOp, args: Values):
        return ReturnedValues(args), ()

    @impl_terminator(ct.ReturnOp)
    def run_return(self, interpreter: Interpreter, op: ct.ReturnOp, args: Values):
        return ReturnedValues(args), ()

    @impl(ct.AssertOp)
    def run_assert(self, interpreter: Interpreter, op: ct.AssertOp, args: Values) -> Values:
        state = state_of(interpreter)
        condition = np.asarray(args[0])
        if not condition.all():
            failed = np.argwhere(~condition)
            where = f" at element {tuple(int(i) for i in failed[0])}" if condition.ndim else ""
            raise KernelAssertionError(
                f'assertion failed{where}: "{op.message.data}"', op, state.block
            )
        return ()

    @impl(ct.PrintTkoOp)
    def run_print_tko(self, interpreter: Interpreter, op: ct.PrintTkoOp, args: Values) -> Values:
        state = state_of(interpreter)
        text = printf(op.format, [np.asarray(a) for a in args[: len(op.args)]])
        state.printed.append(text)
        state.out.write(text)
        return (TOKEN,)

    @impl(GdcWaitTkoOp)
    def run_gdc_wait(self, interpreter: Interpreter, op: GdcWaitTkoOp, args: Values) -> Values:
        # Grids run one after another here: whatever this grid waits for has finished.
        return (TOKEN,)

    @impl(GdcLaunchDependentsTkoOp)
    def run_gdc_launch_dependents(
        self, interpreter: Interpreter, op: GdcLaunchDependentsTkoOp, args: Values
    ) -> Values:
        # Only lets dependent grids start early; ordering only, nothing to do here.
        return (TOKEN,)
