"""Errors the interpreter reports: located at the op that failed, naming the tile
block that was running, never a Python traceback."""

from __future__ import annotations

from xdsl.ir import Operation

from tileir.diagnostics import CompileError, location_of


class KernelError(CompileError):
    """A kernel did something cuTile leaves undefined (an out-of-bounds access, a
    violated `assume`, a failed `assert`), or the interpreter cannot run it."""

    def __init__(
        self,
        message: str,
        op: Operation | None = None,
        block: tuple[int, int, int] | None = None,
    ):
        prefix = f"'{op.name}' op " if op is not None else ""
        where = f" (tile block {block})" if block is not None else ""
        super().__init__(prefix + message + where, location_of(op))
        self.op = op
        self.block = block


class KernelAssertionError(KernelError):
    """A `cuda_tile.assert` failed: the device would trap."""


class ArgumentError(CompileError):
    """The launch arguments do not fit the entry's parameters."""
