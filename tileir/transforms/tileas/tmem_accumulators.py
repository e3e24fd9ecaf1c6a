"""`tileas-tmem-accumulators`: where each `tcgen05` dot keeps its accumulator in tensor
memory, and which accumulators stay there across their K loop (sm_100a).

Every `tcgen05` dot gets `nv_tileas.tmem_column`, the first tensor-memory column of
its accumulator.  A dot whose accumulator is an `scf.for` iteration argument that only
the dot uses, and whose result only goes back to the same argument through the
loop's `scf.yield`, also gets `nv_tileas.tmem_resident`: the accumulator then stays in
tensor memory from one iteration to the next (no `tcgen05.st`/`tcgen05.ld` per
iteration), the loop carries the initial registers unchanged, and one
`nv_tileas.read_tmem_accumulator` after the loop reads the result back for every use of
the loop's result (it also ends the accumulation, so that another run of the loop starts
from its initial value).  Resident accumulators get columns of their own (they are live for
the whole loop, beside any other dot of its body; a chain of dots, each accumulating
into the last one's result, shares one accumulator); the other `tcgen05` dots share the
columns after them (each is done with its columns before the next starts).  A kernel
needing more than the 512 columns of tensor memory keeps its accumulators in registers
between iterations (no dot is marked resident).

A resident dot whose A and B both come from the `cp.async` rings of
`tileas-pipeline-dot-operands` (each a `future_wait` of a future its loop carries) also
gets `nv_tileas.tmem_in_flight`: its MMAs stay in flight across iterations.  The MMAs of
iteration `k` commit to the "empty" mbarrier of the ring slot they read, the ring gets
one slot more (`stages` in all), and the copy of iteration `k + 1` refills the slot of
iteration `k`'s MMAs after waiting for that commit, while iteration `k + 1`'s MMAs run
(PTX ISA 9.7.16.6.3, "tcgen05.commit": the arrival comes once every earlier
`tcgen05.mma` of the committing thread has completed, its reads of shared memory
included).  Only the read after the loop waits for the last of them.

The decision is made here, on nv_tileas, and shows in `--emit=tileas`;
`convert-tileas-to-llvm` carries it out (`conversions/tileas_to_llvm/tcgen05.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, UnitAttr, i64
from xdsl.ir import BlockArgument
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.ops.tmem import (
    TMEM_COLUMN_ATTR,
    TMEM_IN_FLIGHT_ATTR,
    TMEM_RESIDENT_ATTR,
    ReadTmemAccumulatorOp,
)
from tileir.transforms.tileas.pipeline_dot_operands import (
    ACCUMULATOR_REGISTERS,
    feed_clauses,
    set_feed_clauses,
)
from tileir.transforms.tileas.tcgen05_plan import TCGEN05_M, TMEM_COLUMNS, tmem_columns


def _rows(dot: tas.DotOp) -> int:
    acc = dot.acc.type
    assert isinstance(acc, TensorType)
    return acc.get_shape()[0]


def _columns(dot: tas.DotOp) -> int:
    acc = dot.acc.type
    assert isinstance(acc, TensorType)
    m, n = acc.get_shape()
    return tmem_columns((m, n))


def resident_chain(dot: tas.DotOp) -> tuple[int, list[tas.DotOp]] | None:
    """The `scf.for` iteration argument whose accumulator can stay in tensor memory, and
    the `tcgen05` dots that accumulate into it in turn, when `dot` is the first of them:
    its accumulator is the argument, which only it uses; each dot's result is only the
    next one's accumulator (a block-scaled K step is one dot per scale block), and the
    last one's is only yielded back to the argument.  None otherwise."""
    acc = dot.acc
    loop = dot.parent_op()
    if not isinstance(acc, BlockArgument) or not isinstance(loop, scf.ForOp):
        return None
    if acc.block is not loop.body.block or acc.index == 0:
        return None
    position = acc.index - 1  # the first block argument is the induction variable
    if acc.uses.get_length() != 1:
        return None
    chain = [dot]
    while chain[-1].result.uses.get_length() == 1:
        use = next(iter(chain[-1].result.uses))
        user = use.operation
        if isinstance(user, scf.YieldOp):
            return (position, chain) if use.index == position else None
        if (
            not isinstance(user, tas.DotOp)
            or user.acc is not chain[-1].result
            or user.atom.info.engine != "tcgen05"
            or user.parent_op() is not loop
        ):
            return None
        chain.append(user)
    return None


def ring_fed(dot: tas.DotOp, loop: scf.ForOp) -> bool:
    """Whether A and B of `dot` both come from `cp.async` rings of `loop`: each the
    `future_wait` of a future `loop` carries (`tileas-pipeline-dot-operands`)."""
    for operand in (dot.a, dot.b):
        wait = operand.owner
        if not isinstance(wait, tas.FutureWaitOp):
            return False
        future = wait.future
        if not isinstance(future, BlockArgument) or future.block is not loop.body.block:
            return False
    return True


def _say_resident(dot: tas.DotOp, in_flight: bool) -> None:
    """The feed `tileas-pipeline-dot-operands` recorded (what the `DotPipelined` remark
    reports) counted the accumulator's registers; a resident one is in tensor memory."""
    clauses = feed_clauses(dot)
    if clauses is not None:
        where = f"the accumulator in tensor memory ({_columns(dot)} columns)"
        clauses = [where if ACCUMULATOR_REGISTERS.fullmatch(c) else c for c in clauses]
        if in_flight:
            clauses.append("its MMAs in flight across iterations (tcgen05.commit frees each slot)")
        set_feed_clauses(dot, clauses)


@dataclass(frozen=True)
class TmemAccumulatorsPass(ModulePass):
    """`tcgen05` dots: tensor-memory columns, and accumulators kept there across their
    loop (module docstring)."""

    name = "tileas-tmem-accumulators"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.walk():
            if isinstance(fn, func.FuncOp):
                self.place(fn)

    def place(self, fn: func.FuncOp) -> None:
        dots = [
            o for o in fn.walk() if isinstance(o, tas.DotOp) and o.atom.info.engine == "tcgen05"
        ]
        if not dots:
            return
        # A 64-row accumulator is read out through shared memory into its layout:
        # it stays in registers between iterations.
        chains = [
            chain
            for chain in (resident_chain(d) for d in dots if _rows(d) % TCGEN05_M == 0)
            if chain is not None
        ]
        resident = [d for _, chain in chains for d in chain]
        transient = [d for d in dots if d not in resident]
        needed = sum(_columns(chain[0]) for _, chain in chains) + max(
            (_columns(d) for d in transient), default=0
        )
        if needed > TMEM_COLUMNS:
            chains, transient = [], dots
        column = 0
        for position, chain in chains:
            dot = chain[0]
            loop = dot.parent_op()
            assert isinstance(loop, scf.ForOp)
            # The MMAs of one dot stay in flight; a chain's waits for its own commits.
            in_flight = len(chain) == 1 and ring_fed(dot, loop)
            for link in chain:
                link.attributes[TMEM_COLUMN_ATTR] = IntegerAttr(column, i64)
                link.attributes[TMEM_RESIDENT_ATTR] = UnitAttr()
                if in_flight:
                    link.attributes[TMEM_IN_FLIGHT_ATTR] = UnitAttr()
                _say_resident(link, in_flight)
            # Read back even when the loop's result is unused: the read also ends the
            # accumulation, so that the next run of the loop starts from its initial value.
            result = loop.results[position]
            read = ReadTmemAccumulatorOp(result, column)
            Rewriter.insert_op(read, InsertPoint.after(loop))
            result.replace_uses_with_if(
                read.result, lambda use, read=read: use.operation is not read
            )
            column += _columns(dot)
        for dot in transient:
            dot.attributes[TMEM_COLUMN_ATTR] = IntegerAttr(column, i64)
