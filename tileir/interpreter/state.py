"""What one launch carries while it runs (memory, grid, the running tile block,
output) and how regions run.

cuda_tile regions are single blocks whose terminator says where control goes:
`yield` back to the parent op, `continue`/`break` to the enclosing loop, `return`
out of the entry.  A `continue`, `break` or `return` can end a branch of an `if`
nested inside the loop; the `if` then records the exit as *pending* and the region
runner of the block holding it stops there and hands the exit outwards, until the
loop (or the entry) that owns it takes it.  No Python exception crosses xDSL's
interpreter for control flow.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import IO, Any

from xdsl.interpreter import Interpreter
from xdsl.ir import Operation, Region

from tileir.dialects.cuda_tile.ops import (
    BreakOp,
    ContinueOp,
    ReturnOp,
    YieldOp,
)
from tileir.interpreter.errors import KernelError
from tileir.interpreter.memory import Memory, MemoryFault


@dataclass
class Options:
    """How strictly the interpreter treats undefined behaviour.

    `overflow`: what an integer op whose `overflow<...>` flag promises no wrap does
    when it wraps: "warn" (record a warning, keep the wrapped value), "error", or
    "ignore".  `check_assumptions`: whether a violated `assume` is an error.
    """

    overflow: str = "warn"
    check_assumptions: bool = True

    def __post_init__(self) -> None:
        if self.overflow not in ("warn", "error", "ignore"):
            raise ValueError(
                f"Options.overflow is 'warn', 'error' or 'ignore', got {self.overflow!r}"
            )


@dataclass
class KernelState:
    memory: Memory
    grid: tuple[int, int, int]
    options: Options = field(default_factory=Options)
    block: tuple[int, int, int] = (0, 0, 0)
    out: IO[str] = field(default_factory=lambda: sys.stdout)
    printed: list[str] = field(default_factory=list[str])
    warnings: list[str] = field(default_factory=list[str])
    warned_ops: set[int] = field(default_factory=set[int])
    globals: dict[str, int] = field(default_factory=dict[str, int])
    #: A `continue`/`break`/`return` leaving the block being run: (kind, values).
    pending: tuple[str, tuple[Any, ...]] | None = None
    #: The op being run (the innermost one when ops nest): where internal errors point.
    current: Operation | None = None

    def error(self, op: Operation, message: str) -> KernelError:
        return KernelError(message, op, self.block)

    def fault(self, op: Operation, fault: MemoryFault) -> KernelError:
        return KernelError(str(fault), op, self.block)

    def warn(self, op: Operation, message: str) -> None:
        if id(op) in self.warned_ops:
            return
        self.warned_ops.add(id(op))
        err = KernelError(message, op, self.block)
        self.warnings.append(err.format().replace("error: ", "warning: ", 1))


_KEY = "state"


class StateKey:
    """The key the launch state is stored under (`Interpreter.get_data`)."""


def state_of(interpreter: Interpreter) -> KernelState:
    state = interpreter.get_data(StateKey, _KEY, lambda: None)  # pyright: ignore[reportArgumentType]
    if state is None:
        raise KernelError("cuda_tile ops run only inside a launch (tileir.interpreter.launch)")
    return state


def set_state(interpreter: Interpreter, state: KernelState) -> None:
    interpreter.set_data(StateKey, _KEY, state)  # pyright: ignore[reportArgumentType]


_TERMINATORS: dict[type[Operation], str] = {
    YieldOp: "yield",
    ContinueOp: "continue",
    BreakOp: "break",
    ReturnOp: "return",
}


def run_region(
    interpreter: Interpreter, region: Region, args: tuple[Any, ...], name: str
) -> tuple[str, tuple[Any, ...]]:
    """Run a single-block region; returns how it ended (`yield`, `continue`,
    `break`, `return`, or `end` for a block without a terminator) and the values."""
    block = region.block
    state = state_of(interpreter)
    interpreter.push_scope(name)
    try:
        interpreter.set_values(zip(block.args, args, strict=True))
        for op in block.ops:
            values = interpreter.get_values(op.operands)
            kind = _TERMINATORS.get(type(op))
            if kind is not None:
                return kind, tuple(values)
            state.current = op
            results = interpreter.run_op(op, values)
            interpreter.set_values(zip(op.results, results, strict=True))
            if state.pending is not None:
                pending, state.pending = state.pending, None
                return pending
        return "end", ()
    finally:
        interpreter.pop_scope()
