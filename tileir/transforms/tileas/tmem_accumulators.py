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

A 64-row accumulator (data-path layout F) qualifies too where it and the dot's result
are in the `mma.sync` fragment layout, which `tcgen05.ld/st.16x256b` moves as it is
(`tcgen05_plan.fragment_type`); in any other layout it goes through shared memory each
iteration and stays in registers.

A resident dot whose A and B both come from the `cp.async` rings of
`tileas-pipeline-dot-operands` (each a `future_wait` of a future its loop carries) also
gets `nv_tileas.tmem_in_flight`: its MMAs stay in flight across iterations.  The MMAs of
iteration `k` commit to the "empty" mbarrier of the ring slot they read, the ring gets
one slot more (`stages` in all), and the copy of iteration `k + 1` refills the slot of
iteration `k`'s MMAs after waiting for that commit, while iteration `k + 1`'s MMAs run
(PTX ISA 9.7.16.6.3, "tcgen05.commit": the arrival comes once every earlier
`tcgen05.mma` of the committing thread has completed, its reads of shared memory
included).  Only the read after the loop waits for the last of them.

An accumulator that the loop scales row by row before the dot accumulates into it (the
dot's accumulator is `mulf(arg, broadcast(f))`, `f` one factor per row in the
accumulator's layout, `arg` the iteration argument only the `mulf` uses: flash
attention's `O * alpha`) stays in tensor memory as well (`rescaled_chain`): the dot takes
`arg` again, the `mulf` becomes `nv_tileas.scale_tmem_accumulator f` (tensor memory read,
scaled and written back a column slice at a time), and `nv_tileas.write_tmem_accumulator`
puts the loop's initial value in tensor memory before the loop (`nv_tileas.tmem_stored`
on the dots and the read): the registers the loop carries are then read by nothing, so
neither the accumulator nor its initial value occupies registers across the loop (64 a
thread for a 128x128 O with 8 warps; the softmax of attention needs them).

A `tcgen05` dot in a loop whose A or B the loop does not change (an op before the loop
computes it: attention's Q) gets `nv_tileas.staged_once`: the operand is written to
shared memory once, before the loop, into a buffer of its own, instead of every
iteration, and its registers are not live across the loop.

A synchronous `tcgen05` dot whose A its loop computes in registers as 128 rows of 16-bit
elements, one row a thread in its warp's lane quarter (attention's P:
`tcgen05_plan.a_in_tmem_obstacle`), gets `nv_tileas.tmem_a_column`: the lowering writes A
to tensor memory there (`tcgen05.st`) and its MMAs read it from there instead of from a
shared-memory buffer.  The columns are the transient accumulators' (S's, which the softmax
has read before P is computed), or the ones after them where A is wider, and only where the
kernel's tensor-memory allocation does not grow.

The decision is made here, on nv_tileas, and shows in `--emit=tileas`;
`convert-tileas-to-llvm` carries it out (`conversions/tileas_to_llvm/tcgen05.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, TensorType, UnitAttr, i64
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.dialects.cuda_tile.attributes import RoundingMode
from tileir.dialects.cuda_tile.ops.conversion import FToFOp
from tileir.dialects.cuda_tile.ops.floating_point import MulFOp
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.ops.tmem import (
    STAGED_ONCE_ATTR,
    TMEM_A_COLUMN_ATTR,
    TMEM_COLUMN_ATTR,
    TMEM_IN_FLIGHT_ATTR,
    TMEM_RESIDENT_ATTR,
    TMEM_STORED_ATTR,
    ReadTmemAccumulatorOp,
    ScaleTmemAccumulatorOp,
    WriteTmemAccumulatorOp,
)
from tileir.transforms.tileas.pipeline_dot_operands import (
    ACCUMULATOR_REGISTERS,
    READ_FROM_SLOT_ATTR,
    feed_clauses,
    set_feed_clauses,
)
from tileir.transforms.tileas.tcgen05_plan import (
    TCGEN05_M,
    TMEM_COLUMNS,
    a_in_tmem_obstacle,
    chain_from,
    fragment_type,
    resident_chain,
    tmem_a_columns,
    tmem_allocation,
    tmem_columns,
)
from tileir.transforms.tileas.tf32_operands import ROUNDED_IN_SHARED_ATTR


def _rows(dot: tas.DotOp) -> int:
    acc = dot.acc.type
    assert isinstance(acc, TensorType)
    return acc.get_shape()[0]


def _columns(dot: tas.DotOp) -> int:
    acc = dot.acc.type
    assert isinstance(acc, TensorType)
    m, n = acc.get_shape()
    return tmem_columns((m, n))


@dataclass(frozen=True)
class Rescale:
    """The `mulf(arg, broadcast(factor))` a rescaled accumulator goes through before its
    first dot (`rescaled_chain`)."""

    mulf: MulFOp
    broadcast: tas.BroadcastOp
    argument: BlockArgument


def _row_factor(dot: tas.DotOp) -> Rescale | None:
    """`dot`'s accumulator as `mulf(arg, broadcast(f))` with `arg` an iteration
    argument of `dot`'s loop that only the `mulf` uses, `f` an `M x 1` tensor in the
    accumulator's layout, the `mulf` round-to-nearest without flush and used only by
    `dot`; None otherwise."""
    mulf = dot.acc.owner
    loop = dot.parent_op()
    if not isinstance(mulf, MulFOp) or not isinstance(loop, scf.ForOp):
        return None
    if mulf.flush_to_zero_flag is not None or mulf.rounding() is not RoundingMode.NEAREST_EVEN:
        return None
    if mulf.result.uses.get_length() != 1 or mulf.parent_op() is not loop:
        return None
    lhs, rhs = mulf.operands
    for arg, other in ((lhs, rhs), (rhs, lhs)):
        spread = other.owner
        if not isinstance(arg, BlockArgument) or not isinstance(spread, tas.BroadcastOp):
            continue
        if arg.block is not loop.body.block or arg.index == 0 or arg.uses.get_length() != 1:
            continue
        source, acc = spread.src.type, dot.acc.type
        assert isinstance(source, TensorType) and isinstance(acc, TensorType)
        (m, n), (rows, one) = acc.get_shape(), source.get_shape()
        if (rows, one) != (m, 1) or n == 1 or source.encoding != acc.encoding:
            continue
        return Rescale(mulf, spread, arg)
    return None


def rescaled_chain(dot: tas.DotOp) -> tuple[int, list[tas.DotOp], Rescale] | None:
    """As `resident_chain`, for an accumulator the loop scales row by row before `dot`
    (`_row_factor`): the argument's position, the chain of dots, and the scaling."""
    rescale = _row_factor(dot)
    if rescale is None:
        return None
    found = chain_from(dot, rescale.argument.index - 1)
    return None if found is None else (found[0], found[1], rescale)


def loop_invariant_operands(dot: tas.DotOp) -> list[int]:
    """Which of `dot`'s A (0) and B (1) an op outside its enclosing `scf.for` defines
    (the loop does not change them)."""
    loop = dot.parent_op()
    if not isinstance(loop, scf.ForOp):
        return []
    invariant: list[int] = []
    for index, operand in enumerate((dot.a, dot.b)):
        owner = operand.owner
        if isinstance(owner, Operation) and not loop.is_ancestor(owner):
            invariant.append(index)
    return invariant


def ring_fed(dot: tas.DotOp, loop: scf.ForOp) -> bool:
    """Whether A and B of `dot` both come from `cp.async` rings of `loop`: each the
    `future_wait` of a future `loop` carries (`tileas-pipeline-dot-operands`), or its
    f32 tile rounded to tf32 in the slot (`tf32_operands.py`: the dot still reads the
    slot, which the rounding rewrote before the MMAs are issued).  Not a wait that reads
    its tile back into registers (`READ_FROM_SLOT_ATTR`): the dot writes that operand."""
    for operand in (dot.a, dot.b):
        wait = operand.owner
        if isinstance(wait, FToFOp) and ROUNDED_IN_SHARED_ATTR in wait.attributes:
            wait = wait.args[0].owner
        if not isinstance(wait, tas.FutureWaitOp) or READ_FROM_SLOT_ATTR in wait.attributes:
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
        # A 64-row accumulator may stay too where `.16x256b` moves its registers as they
        # are (`fragment_type`); one in another layout goes through shared memory each
        # iteration and stays in registers between iterations.
        full = [
            d
            for d in dots
            if _rows(d) % TCGEN05_M == 0
            or (fragment_type(d.acc.type) and fragment_type(d.result.type))
        ]
        chains: list[tuple[int, list[tas.DotOp], Rescale | None]] = []
        for d in full:
            plain = resident_chain(d)
            if plain is not None:
                chains.append((*plain, None))
                continue
            rescaled = rescaled_chain(d)
            if rescaled is not None:
                chains.append(rescaled)
        resident = [d for _, chain, _ in chains for d in chain]
        transient = [d for d in dots if d not in resident]
        needed = sum(_columns(chain[0]) for _, chain, _ in chains) + max(
            (_columns(d) for d in transient), default=0
        )
        if needed > TMEM_COLUMNS:
            chains, transient = [], dots
        column = 0
        for position, chain, rescale in chains:
            dot = chain[0]
            loop = dot.parent_op()
            assert isinstance(loop, scf.ForOp)
            # The MMAs of one dot stay in flight; a chain's waits for its own commits, and
            # so does a rescaled one (the scaling reads what the last MMAs wrote).
            in_flight = len(chain) == 1 and rescale is None and ring_fed(dot, loop)
            for link in chain:
                link.attributes[TMEM_COLUMN_ATTR] = IntegerAttr(column, i64)
                link.attributes[TMEM_RESIDENT_ATTR] = UnitAttr()
                if in_flight:
                    link.attributes[TMEM_IN_FLIGHT_ATTR] = UnitAttr()
                if rescale is not None:
                    link.attributes[TMEM_STORED_ATTR] = UnitAttr()
                _say_resident(link, in_flight)
            if rescale is not None:
                _scale_in_tensor_memory(loop, position, dot, rescale, column)
            # Read back even when the loop's result is unused: the read also ends the
            # accumulation, so that the next run of the loop starts from its initial value.
            result = loop.results[position]
            read = ReadTmemAccumulatorOp(result, column)
            if rescale is not None:
                read.attributes[TMEM_STORED_ATTR] = UnitAttr()
            Rewriter.insert_op(read, InsertPoint.after(loop))
            result.replace_uses_with_if(
                read.result, lambda use, read=read: use.operation is not read
            )
            column += _columns(dot)
        for dot in transient:
            dot.attributes[TMEM_COLUMN_ATTR] = IntegerAttr(column, i64)
        # A computed in registers (attention's P): in the transient accumulators'
        # columns (attention's S, read into registers before P is computed from it, as
        # CUTLASS's and FlashAttention-4's P overwrites S), else after them; written and
        # read within its dot, which waits for its own commit.  Only where the kernel's
        # allocation (a power of two) does not grow: two CTAs of 256 columns share an
        # SM's 512, and a CTA allocating more waits for the other's.
        shared = max((_columns(d) for d in transient), default=0)
        allocated = tmem_allocation(column + shared)
        for dot in dots:
            if a_in_tmem_obstacle(dot) is not None:
                continue
            width = tmem_a_columns(dot)
            a_column = column if width <= shared else column + shared
            if tmem_allocation(a_column + width) > allocated:
                _say_a_not_in_tmem(dot, a_column + width, allocated)
                continue
            dot.attributes[TMEM_A_COLUMN_ATTR] = IntegerAttr(a_column, i64)
            _say_a_in_tmem(dot, a_column)
        for dot in dots:
            invariant = loop_invariant_operands(dot)
            if invariant:
                dot.attributes[STAGED_ONCE_ATTR] = ArrayAttr(
                    [IntegerAttr(i, i64) for i in invariant]
                )


def _say_a_in_tmem(dot: tas.DotOp, column: int) -> None:
    """The `DotPipelined` remark's clause on A: in tensor memory, not in shared memory."""
    clauses = feed_clauses(dot)
    if clauses is not None:
        where = (
            f"P: in tensor memory (A from columns {column} .. {column + tmem_a_columns(dot) - 1})"
        )
        set_feed_clauses(dot, [*clauses, where])


def _say_a_not_in_tmem(dot: tas.DotOp, needed: int, allocated: int) -> None:
    """The clause on an A that could go to tensor memory but stays in shared memory."""
    clauses = feed_clauses(dot)
    if clauses is not None:
        why = (
            f"P: not in tensor memory (not yet: its columns would take the kernel's "
            f"allocation from {allocated} to {tmem_allocation(needed)} columns)"
        )
        set_feed_clauses(dot, [*clauses, why])


def _scale_in_tensor_memory(
    loop: scf.ForOp, position: int, dot: tas.DotOp, rescale: Rescale, column: int
) -> None:
    """The initial value into tensor memory before `loop`, the row scaling of the
    accumulator done there, and `dot` accumulating into the loop's argument again."""
    initial: SSAValue = loop.iter_args[position]
    Rewriter.insert_op(WriteTmemAccumulatorOp(initial, column), InsertPoint.before(loop))
    factor = rescale.broadcast.src
    scale = ScaleTmemAccumulatorOp(rescale.argument, factor, column)
    Rewriter.insert_op(scale, InsertPoint.before(rescale.mulf))
    dot.operands[2] = rescale.argument
    rescale.mulf.detach()
    rescale.mulf.erase()
    if not rescale.broadcast.result.uses:
        rescale.broadcast.detach()
        rescale.broadcast.erase()
