"""The names of a lowered tile's registers: the tile's own name and the register's index.

A tile becomes the registers its layout gives each thread (`context.py`), and xDSL
carries a replaced value's name hint to the value that replaces it: a scalar `%bm`
stays `%bm`, but a tile's replacement is the cast that packs its registers, which
disappears at the end of the pass, and the registers themselves were unnamed (`%145`).
So a value followed by name from cuda_tile to nv_tileas was lost in the llvm stage.
`name_registers` names register `i` of a named tile `tx` `tx.i`, pinned or
Python-named as the tile was (`tileir.printing`, items 4 and 5): the llvm text shows
`tx = ct.load(...)`'s registers as `%tx.0`, `%tx.1`, ..., and the PTX printer ends an
instruction that writes a Python-named value's registers in their names (`// tx.0,
tx.1`: `tileir/backend/ptx/target.py`, `NameComments`).  The dot keeps a register apart
from another value of the same base name, which MLIR's uniquing suffixes (`%acc_24`).

Only registers made by the rewrite of that very op are named: a register it reuses
(a splat's scalar, a broadcast's source registers) keeps the name of the value that
made it.  A loop's or branch's block arguments become one block argument per register
(`control_flow.py`); `name_block_registers` names those after the value they hold
(`%iterArg0.0`, `%iterArg0.1`, ...)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from tileir.printing import PINNED


def register_hint(hint: str, index: int) -> str:
    """The hint of register `index` of a tile hinted `hint` (`tx$$` -> `tx.3$$`): the
    index goes before the marks that pin the name (`tileir.printing.PINNED`)."""
    base = hint.rstrip(PINNED)
    return f"{base}.{index}{hint[len(base) :]}"


def name_registers(
    op: Operation, new_results: Sequence[SSAValue | None], inserted: Sequence[Operation]
) -> None:
    """`LocatedWalker`'s `on_replace` hook: name the registers of `op`'s named tile
    results after them."""
    made: set[Operation] | None = None
    for old, new in zip(op.results, new_results, strict=True):
        hint = old.name_hint
        if hint is None or new is None or not isinstance(new, OpResult):
            continue
        if not isinstance(new.op, UnrealizedConversionCastOp):
            continue
        if made is None:
            made = set(inserted)
        if new.op not in made:
            continue
        for index, register in enumerate(new.op.inputs):
            if (
                isinstance(register, OpResult)
                and register.name_hint is None
                and register.op in made
            ):
                register.name_hint = register_hint(hint, index)


def name_block_registers(old: SSAValue, new: SSAValue) -> None:
    """`new`, the value that replaces block argument or result `old` (a register block
    argument, or a cast packing several), has its block-argument registers named as
    `old` was."""
    hint = old.name_hint
    if hint is None:
        return
    owner = new.owner
    if not isinstance(owner, UnrealizedConversionCastOp):
        if isinstance(new, BlockArgument) and new.name_hint is None:
            new.name_hint = hint
        return
    for index, register in enumerate(owner.inputs):
        if isinstance(register, BlockArgument) and register.name_hint is None:
            register.name_hint = register_hint(hint, index)
