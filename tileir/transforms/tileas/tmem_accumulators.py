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
from its initial value).  Resident accumulators get columns of their own while their
loop runs (they are live for the whole loop, beside any other dot of its body; a chain
of dots, each accumulating into the last one's result, shares one accumulator), but
those of loops that run one after another in the same block share columns
(`_assign_columns`); the other `tcgen05` dots share the columns after them (each is done
with its columns before the next starts).  A kernel needing more than the 512 columns
of tensor memory keeps its accumulators in registers between iterations (no dot is
marked resident).

A stored accumulator (below) whose loop starts from the result of an earlier loop's
stored accumulator (a causal attention split at the diagonal: the unmasked loop's O
flows into the masked loop) continues it in place (`_continuations`): the same
columns, no read back after the first loop and no write before the second, so the
128x128 O of cuTile's d128 causal attention takes 128 columns, not 256, and with S (and
P in S's columns) the kernel allocates 256 of the SM's 512: two CTAs fit.

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

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, TensorType, UnitAttr, i64
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.diagnostics import not_supported
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
from tileir.transforms.tileas.materialize_schedule import STAGE_ATTR
from tileir.transforms.tileas.pipeline_dot_operands import (
    ACCUMULATOR_REGISTERS,
    READ_FROM_SLOT_ATTR,
    feed_clauses,
    set_feed_clauses,
)
from tileir.transforms.tileas.tcgen05_agents import TCGEN05_AGENTS_ATTR
from tileir.transforms.tileas.tcgen05_plan import (
    TCGEN05_M,
    TMEM_COLUMNS,
    TMEM_SCALE_COLUMN_ATTR,
    TMEM_SCALE_SETS_ATTR,
    a_in_tmem_obstacle,
    chain_from,
    dot_scale_buffers,
    fragment_type,
    may_stay_in_flight,
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


@dataclass
class Chain:
    """A resident accumulator: the position of its loop's iteration argument, the dots
    that accumulate into it in turn (`resident_chain`), the scaling a rescaled one goes
    through (`rescaled_chain`), whether its MMAs stay in flight, and its first column."""

    position: int
    dots: list[tas.DotOp]
    rescale: Rescale | None
    in_flight: bool = False
    column: int = 0

    @property
    def loop(self) -> scf.ForOp:
        loop = self.dots[0].parent_op()
        assert isinstance(loop, scf.ForOp)
        return loop


def _continuations(chains: Sequence[Chain]) -> dict[int, Chain]:
    """The stored accumulators (`rescaled_chain`: in tensor memory from before the loop
    on) that continue the one of an earlier loop of the same block in place, by the id
    of the later chain: its loop's initial value is the earlier loop's result (the two
    loops of a causal attention split at the diagonal: the first loop's O flows into the
    second).  Both are in tensor memory whether their loops ran or not, so the later
    one may take the earlier one's columns as they are: no read back into registers
    after the first loop, no write before the second (`_assign_columns` keeps every
    other accumulator out of those columns from the first loop to the second)."""
    by_result = {
        (id(chain.loop), chain.position): chain for chain in chains if chain.rescale is not None
    }
    continued: dict[int, Chain] = {}
    taken: set[int] = set()
    for chain in chains:
        if chain.rescale is None:
            continue
        initial = chain.loop.iter_args[chain.position]
        earlier = initial.owner
        if not isinstance(earlier, scf.ForOp) or not isinstance(initial, OpResult):
            continue
        before = by_result.get((id(earlier), initial.index))
        if (
            before is None
            or id(before) in taken
            or earlier.parent_block() is not chain.loop.parent_block()
            or _columns(before.dots[0]) != _columns(chain.dots[0])
        ):
            continue
        continued[id(chain)] = before
        taken.add(id(before))
    return continued


@dataclass
class _Group:
    """Chains that hold one accumulator in the same columns, each continuing the last
    (`_continuations`), and where in their block they are live: from the first loop to
    the last one (`span`, indices of the block's ops)."""

    chains: list[Chain]
    block: Block | None
    span: tuple[int, int]
    width: int
    exclusive: bool
    column: int = 0
    #: A's ring slots of a group of one chain whose MMAs stay in flight (`_ring_slots`).
    slots: int | None = None
    #: Whether its dots are block-scaled (never warp-specialized: `tcgen05_agents`).
    scaled: bool = False

    def overlaps(self, other: _Group) -> bool:
        """Whether the two may be live at once: loops of different blocks (one may run
        inside the other, or in a loop around both), spans that meet, or MMAs in flight
        (their slot mbarriers are the lowering's per column: `tcgen05.slot_barriers`).
        Block-scaled loops one after the other in a block share even then, as the halves
        of a split block-scaled dot (`split-dot-accumulators`), unless both have MMAs in
        flight on rings of different slots: the later one's MMAs are issued after a CTA
        barrier that follows the earlier one's read back (`tcgen05.wait::ld`), which
        waited for its last commit (their loops are not warp-specialized); the later one
        takes the earlier one's slot mbarriers with its columns, their phases as the
        drain left them."""
        apart = self.block is other.block and (
            self.span[1] < other.span[0] or other.span[1] < self.span[0]
        )
        if not (self.exclusive or other.exclusive):
            return not apart
        if not (self.scaled and other.scaled):
            return True
        if self.exclusive and other.exclusive:
            return not (apart and self.slots is not None and self.slots == other.slots)
        return not apart


def _assign_columns(chains: Sequence[Chain], continued: dict[int, Chain]) -> int:
    """Give every resident accumulator its first column (`Chain.column`) and return the
    columns they take together: accumulators live at the same time (`_Group.overlaps`)
    get columns apart, in order, the first free ones (as before, where every pair
    overlaps); loops that run one after another share them, as the unmasked and masked
    loops of a causal attention do (each O 128 columns: 256 instead of 384, so two CTAs
    of 256 columns each fit an SM's 512 where one of 512 kept the other waiting in
    `tcgen05.alloc`)."""
    follows = {
        id(before): chain for chain in chains for before in [continued.get(id(chain))] if before
    }
    groups: list[_Group] = []
    for chain in chains:
        if id(chain) in continued:
            continue
        members = [chain]
        while id(members[-1]) in follows:
            members.append(follows[id(members[-1])])
        block = chain.loop.parent_block()
        where = [block.get_operation_index(c.loop) if block else 0 for c in members]
        groups.append(
            _Group(
                members,
                block,
                (min(where), max(where)),
                _columns(chain.dots[0]),
                any(c.in_flight for c in members),
                slots=_ring_slots(chain.dots[0]) if len(members) == 1 and chain.in_flight else None,
                scaled=all(dot_scale_buffers(c.dots[0]) is not None for c in members),
            )
        )
    placed: list[_Group] = []
    for group in groups:
        column = 0
        moved = True
        while moved:
            moved = False
            for other in placed:
                if (
                    group.overlaps(other)
                    and column < other.column + other.width
                    and other.column < column + group.width
                ):
                    column = other.column + other.width
                    moved = True
        group.column = column
        placed.append(group)
        for chain in group.chains:
            chain.column = column
    return max((g.column + g.width for g in placed), default=0)


def _say_resident(dot: tas.DotOp, in_flight: bool, continues: bool = False) -> None:
    """The feed `tileas-pipeline-dot-operands` recorded (what the `DotPipelined` remark
    reports) counted the accumulator's registers; a resident one is in tensor memory
    (`continues`: in the columns of the earlier loop's, which it continues)."""
    clauses = feed_clauses(dot)
    if clauses is not None:
        where = f"the accumulator in tensor memory ({_columns(dot)} columns)"
        if continues:
            where += (
                f", columns {_column_of(dot)} .. {_column_of(dot) + _columns(dot) - 1} as "
                "the loop before left them (no read back between the loops)"
            )
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
        chains: list[Chain] = []
        for d in full:
            plain = resident_chain(d)
            if plain is not None:
                chains.append(Chain(*plain, None))
                continue
            rescaled = rescaled_chain(d)
            if rescaled is not None:
                chains.append(Chain(*rescaled))
        for chain in chains:
            loop = chain.loop
            # The MMAs of one dot stay in flight; a chain's waits for its own commits, and
            # so does a rescaled one (the scaling reads what the last MMAs wrote).
            chain.in_flight = (
                len(chain.dots) == 1
                and chain.rescale is None
                and ring_fed(chain.dots[0], loop)
                and may_stay_in_flight(chain.dots[0])
            )
        continued = _continuations(chains)
        column = _assign_columns(chains, continued)
        resident = [d for chain in chains for d in chain.dots]
        transient = [d for d in dots if d not in resident]
        needed = column + max((_columns(d) for d in transient), default=0)
        if needed > TMEM_COLUMNS:
            chains, transient, continued, column = [], dots, {}, 0
        for chain in chains:
            dot, loop, rescale, position = chain.dots[0], chain.loop, chain.rescale, chain.position
            before = continued.get(id(chain))
            for link in chain.dots:
                link.attributes[TMEM_COLUMN_ATTR] = IntegerAttr(chain.column, i64)
                link.attributes[TMEM_RESIDENT_ATTR] = UnitAttr()
                if chain.in_flight:
                    link.attributes[TMEM_IN_FLIGHT_ATTR] = UnitAttr()
                if rescale is not None:
                    link.attributes[TMEM_STORED_ATTR] = UnitAttr()
                _say_resident(link, chain.in_flight, before is not None)
            if rescale is not None:
                _scale_in_tensor_memory(loop, position, dot, rescale, chain.column, before)
            # Read back even when the loop's result is unused: the read also ends the
            # accumulation, so that the next run of the loop starts from its initial value
            # (a stored accumulator whose only use is the next loop's, which continues it
            # in place, needs none: `_continuations`).
            result = loop.results[position]
            after = next((c for c in chains if continued.get(id(c)) is chain), None)
            kept = after is not None and result.uses.get_length() == 1
            if kept:
                continue
            read = ReadTmemAccumulatorOp(result, chain.column)
            if rescale is not None:
                read.attributes[TMEM_STORED_ATTR] = UnitAttr()
            Rewriter.insert_op(read, InsertPoint.after(loop))
            result.replace_uses_with_if(
                read.result, lambda use, read=read: use.operation is not read
            )
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
        _place_scales(dots, column + shared)
        for dot in dots:
            invariant = loop_invariant_operands(dot)
            if invariant:
                dot.attributes[STAGED_ONCE_ATTR] = ArrayAttr(
                    [IntegerAttr(i, i64) for i in invariant]
                )


def _ring_slots(dot: tas.DotOp) -> int | None:
    """The slots of the ring of A of `dot`, whose MMAs stay in flight (`ring_fed`): the
    stage of the body's refill plus one (`async_copy.Ring.slots`, as the lowering counts
    them), found by following A's future through the loop's iteration arguments to the
    load the body yields; None where that chain is not there."""
    wait, loop = dot.a.owner, dot.parent_op()
    if not isinstance(wait, tas.FutureWaitOp) or not isinstance(loop, scf.ForOp):
        return None
    value, body = wait.future, loop.body.block
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    for _ in range(len(body.args)):
        if not isinstance(value, BlockArgument) or value.block is not body or value.index == 0:
            break
        value = yielded.operands[value.index - 1]
    stage = value.owner.attributes.get(STAGE_ATTR) if isinstance(value, OpResult) else None
    return stage.value.data + 1 if isinstance(stage, IntegerAttr) else None


def _place_scales(dots: Sequence[tas.DotOp], column: int) -> None:
    """The tensor-memory columns of the scale factors of each block-scaled dot of
    `dots` (`TMEM_SCALE_COLUMN_ATTR`), from `column` (after the accumulators) and after
    any A in tensor memory: one set a dot that waits for its own commit (the next
    iteration's copy finds it free), one a slot of A's ring where its MMAs stay in
    flight (`TMEM_SCALE_SETS_ATTR`: iteration `i` copies into its slot's set, which
    the MMAs of iteration `i - S` read and the ring's refill of that slot waited for)."""
    for dot in dots:
        a_column = dot.attributes.get(TMEM_A_COLUMN_ATTR)
        if isinstance(a_column, IntegerAttr):
            column = max(column, a_column.value.data + tmem_a_columns(dot))
    for dot in dots:
        buffers = dot_scale_buffers(dot)
        if buffers is None:
            continue
        sets = 1
        loop = dot.parent_op()
        agents = loop.attributes.get(TCGEN05_AGENTS_ATTR) if loop is not None else None
        if isinstance(agents, IntegerAttr):
            # The MMA warp's dot (`tileas-tcgen05-agents`): a set a stage of its
            # pipeline, the set of iteration `i` the stage it read (`_copied_scales`).
            sets = agents.value.data
            dot.attributes[TMEM_SCALE_SETS_ATTR] = IntegerAttr(sets, i64)
        elif TMEM_IN_FLIGHT_ATTR in dot.attributes:
            slots = _ring_slots(dot)
            if slots is None:
                raise not_supported(dot, "block-scaled MMAs in flight without A's ring slots")
            sets = slots
            dot.attributes[TMEM_SCALE_SETS_ATTR] = IntegerAttr(sets, i64)
        dot.attributes[TMEM_SCALE_COLUMN_ATTR] = IntegerAttr(column, i64)
        column += sets * (buffers[0].columns + buffers[1].columns)
        if column > TMEM_COLUMNS:
            raise not_supported(
                dot,
                f"block-scaled dots whose accumulators and scale factors take {column} "
                f"tensor-memory columns (at most {TMEM_COLUMNS})",
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
    loop: scf.ForOp,
    position: int,
    dot: tas.DotOp,
    rescale: Rescale,
    column: int,
    continued: Chain | None = None,
) -> None:
    """The initial value into tensor memory before `loop` (unless the loop continues the
    accumulator of an earlier one, `continued`, which left it there), the row scaling
    of the accumulator done there, and `dot` accumulating into the loop's argument
    again."""
    if continued is None:
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


def _column_of(dot: tas.DotOp) -> int:
    """The first column `tmem_column` gives `dot`'s accumulator."""
    attr = dot.attributes[TMEM_COLUMN_ATTR]
    assert isinstance(attr, IntegerAttr)
    return attr.value.data
