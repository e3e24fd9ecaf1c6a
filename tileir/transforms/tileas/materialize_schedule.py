"""`tileas-materialize-schedule{num-stages=2}`: turn a loop's schedule into IR (seed 003
"Schedule Infrastructure Builders").

For every `scf.for`, innermost first, a schedule analysis (`analyze_loop`) partitions the
memory operations directly in the loop body:

* **loads** (ops that read memory) and **stores** (ops that write it), each either
  *resident* (every operand is defined outside the loop: the same access on every
  iteration) or *pending* (an operand depends on the iteration arguments, the induction
  variable or an iter-arg: a new access per iteration);
* **async roots**: ops that start asynchronous work (an `!nv_tileas.async.token` or
  `!async.value` result);
* the **async-eligible** subsets `resident_async` / `pending_async`: loads that are async
  already, or synchronous global tiled loads whose per-thread width has a `cp.async`
  atom in the catalog (`cp_async_32b`/`64b`/`128b`), when the schedule has more than one
  stage.

The partition is recorded on the loop as `nv_tileas.schedule` (a dictionary of counts
and `num_stages`), and materialized:

* a **resident load** is hoisted in front of the loop (it is loaded once and stays
  resident);
* a **pending load** is **stage-expanded** when the schedule has `num_stages = S > 1`:
  the load is cloned for stages `0 .. S-2` in front of the loop (the iterations
  `lb + k * step`) and once in the body for the iteration `S - 1` ahead
  (`iv + (S-1) * step`); the loop carries the `S - 1` loaded tiles as new iter-args,
  the body uses the oldest one where it used the load, and yields the rest, shifted, with
  the new tile last.  Expansion follows seed 003's `expand_single_tiled_op`: one map from
  the op's operands to their source ops in the body (the pure index computation of its
  coordinates), one from each source op to its per-stage replica; every replica's
  operands are rewired through the two maps, so no replica mixes values of two stages.
  Replicas carry `nv_tileas.stage = k`.  A stage's induction variable is built with
  the nv_tileas index-expression builders (`build_index_expr`: no overflow flags).

Legality of moving a load to another iteration (hoisting or expanding), all required:
the op is an `nv_tileas.tiled_load` without token operand or result (an ordered access
stays where its token puts it) and with weak semantics (an acquire must not move); no
dimension is `in_bounds` (every access is bounds-checked against its view, so a load
issued for an iteration that does not run reads padding and cannot fault); the loop
body writes no memory and holds no memory-consistency op other than a reduction or scan
(nothing in the loop can change what the load reads: a reduction's or scan's memory is
its own shared-memory scratch for the exchange across warps, which no global load can
read, so it is judged by its body like any region-holding op; its consistency trait is
for canonicalizations, which must not reorder its exchanges); a pending load's operands
are loop invariant or computed from the induction variable by pure, region-free ops of
the body.  A load that fails any of them
is still counted, and left in place.  Stores and async roots are counted, never moved.

The stage count of a loop is its `nv_tileas.num_stages` attribute when it has one (a
scheduling hint), else the pass option `num-stages` (at least 1; 1 materializes no
stages, only resident loads).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    i32,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator, MemoryEffectKind, get_effects, is_side_effect_free

from tileir.diagnostics import CompileError, error_at
from tileir.dialects.nv_tileas.attributes import (
    ATOM_CATALOG,
    MemSemantic,
    Residency,
)
from tileir.dialects.nv_tileas.builders import add, build_index_expr
from tileir.dialects.nv_tileas.foreign import AsyncValueType
from tileir.dialects.nv_tileas.interfaces import is_memory_consistency_op
from tileir.dialects.nv_tileas.ops import TiledLoadOp
from tileir.dialects.nv_tileas.ops.compute import AxisRegionOp
from tileir.dialects.nv_tileas.ops.memory import TiledLoadBase
from tileir.dialects.nv_tileas.types import AsyncTokenType, TiledViewType

SCHEDULE_ATTR = "nv_tileas.schedule"
STAGE_ATTR = "nv_tileas.stage"
NUM_STAGES_ATTR = "nv_tileas.num_stages"


# ---------------------------------------------------------------------------
# The schedule analysis.
# ---------------------------------------------------------------------------


def _reads(op: Operation) -> bool:
    effects = get_effects(op)
    return effects is not None and any(e.kind is MemoryEffectKind.READ for e in effects)


def may_write_memory(op: Operation) -> bool:
    """Does `op` (or anything nested in it) write memory, or might it (unknown effects,
    such as an opaque op's)?  Region-holding ops and terminators are judged by what they
    hold."""
    for nested in op.walk():
        if nested.regions or nested.has_trait(IsTerminator):
            continue
        effects = get_effects(nested)
        if effects is None:
            return True
        if any(e.kind in (MemoryEffectKind.WRITE, MemoryEffectKind.FREE) for e in effects):
            return True
    return False


def starts_async_work(op: Operation) -> bool:
    """An async root: an op with an async token or async value result."""
    return any(isinstance(r.type, AsyncTokenType | AsyncValueType) for r in op.results)


def defined_outside(value: SSAValue, loop: scf.ForOp) -> bool:
    """Is `value` defined outside `loop` (neither in its body nor one of its iteration
    arguments)?"""
    owner = value.owner
    op = owner.parent_op() if isinstance(owner, Block) else owner
    return op is None or not loop.is_ancestor(op)


@dataclass
class ScheduleAnalysis:
    """The partition of one loop's memory operations (seed 003 `materialize_schedule`)."""

    loop: scf.ForOp
    num_stages: int
    resident_loads: list[Operation] = field(default_factory=list)
    pending_loads: list[Operation] = field(default_factory=list)
    resident_stores: list[Operation] = field(default_factory=list)
    pending_stores: list[Operation] = field(default_factory=list)
    async_roots: list[Operation] = field(default_factory=list)
    resident_async: list[Operation] = field(default_factory=list)
    pending_async: list[Operation] = field(default_factory=list)
    #: Does the body write memory or order it (blocks moving any load)?
    clobbers: bool = False

    def summary(self) -> DictionaryAttr:
        def n(ops: Sequence[Operation]) -> IntegerAttr:
            return IntegerAttr(len(ops), i32)

        return DictionaryAttr(
            {
                "num_stages": IntegerAttr(self.num_stages, i32),
                "resident_loads": n(self.resident_loads),
                "pending_loads": n(self.pending_loads),
                "resident_stores": n(self.resident_stores),
                "pending_stores": n(self.pending_stores),
                "async_roots": n(self.async_roots),
                "resident_async": n(self.resident_async),
                "pending_async": n(self.pending_async),
            }
        )


def async_eligible(op: Operation, num_stages: int) -> bool:
    """Can this load run asynchronously?  Async ops are; a synchronous global tiled load is
    when the catalog has a `cp.async` atom of its per-thread width and the schedule has
    stages to overlap."""
    if starts_async_work(op):
        return True
    if num_stages < 2 or not isinstance(op, TiledLoadOp):
        return False
    view = op.view.type
    if not isinstance(view, TiledViewType) or view.residency_kind is not Residency.GMEM:
        return False
    return f"cp_async_{op.atom.info.bits}b" in ATOM_CATALOG


def analyze_loop(loop: scf.ForOp, num_stages: int) -> ScheduleAnalysis:
    analysis = ScheduleAnalysis(loop, num_stages)
    for op in loop.body.block.ops:
        if (is_memory_consistency_op(op) and not isinstance(op, AxisRegionOp)) or may_write_memory(
            op
        ):
            analysis.clobbers = True
        if starts_async_work(op):
            analysis.async_roots.append(op)
        if op.regions:
            continue  # Judged by what it holds (clobbers), not a memory op itself.
        reads, writes = _reads(op), may_write_memory(op)
        if not reads and not writes:
            continue
        resident = all(defined_outside(v, loop) for v in op.operands)
        if writes:
            (analysis.resident_stores if resident else analysis.pending_stores).append(op)
        elif reads:
            (analysis.resident_loads if resident else analysis.pending_loads).append(op)
    analysis.resident_async = [o for o in analysis.resident_loads if async_eligible(o, num_stages)]
    analysis.pending_async = [o for o in analysis.pending_loads if async_eligible(o, num_stages)]
    return analysis


# ---------------------------------------------------------------------------
# Legality.
# ---------------------------------------------------------------------------


def movable_load(op: Operation, analysis: ScheduleAnalysis) -> TiledLoadOp | None:
    """`op`, when it may run in another iteration than its own (see the module doc)."""
    if analysis.clobbers or not isinstance(op, TiledLoadOp):
        return None
    if op.token is not None or op.result_token is not None:
        return None
    if op.semantic() is not MemSemantic.WEAK:
        return None
    if any(op.in_bounds_flags()):
        return None
    return op


def operand_sources(op: Operation, loop: scf.ForOp) -> list[Operation] | None:
    """Seed 003 `collect_operand_sources`: the ops of the loop body that compute `op`'s
    operands, in body order, or None when an operand depends on anything but the
    induction variable through pure, region-free ops (an iter-arg, a memory read)."""
    iv = loop.body.block.args[0]
    sources: list[Operation] = []
    seen: set[int] = set()

    def visit(value: SSAValue) -> bool:
        if value is iv or defined_outside(value, loop):
            return True
        owner = value.owner
        if not isinstance(owner, Operation) or owner.parent_block() is not loop.body.block:
            return False
        if id(owner) in seen:
            return True
        if owner.regions or not is_side_effect_free(owner):
            return False
        seen.add(id(owner))
        if not all(visit(v) for v in owner.operands):
            return False
        sources.append(owner)
        return True

    if not all(visit(v) for v in op.operands):
        return None
    block = loop.body.block
    sources.sort(key=block.get_operation_index)
    return sources


# ---------------------------------------------------------------------------
# Stage expansion.
# ---------------------------------------------------------------------------


def _constant_of(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def stage_iv(base: SSAValue, step: SSAValue, k: int, at: InsertPoint) -> SSAValue:
    """`base + k * step`, the induction variable `k` iterations after `base`, built with
    the nv_tileas index-expression builders (no overflow flags)."""
    if k == 0:
        return base
    b = Builder(at)
    t = base.type
    assert isinstance(t, IntegerType | IndexType)
    step_c = _constant_of(step)
    if step_c is not None:
        offset = b.insert(arith.ConstantOp(IntegerAttr(k * step_c, t))).result
        return add(b, base, offset)
    factor = b.insert(arith.ConstantOp(IntegerAttr(k, t))).result
    return build_index_expr(b, base, factor, step)


def clone_for_stage(
    rewriter: Rewriter,
    op: TiledLoadBase,
    sources: Sequence[Operation],
    iv: SSAValue,
    stage_value: SSAValue,
    stage: int,
    at: InsertPoint,
) -> TiledLoadBase:
    """One replica of `op` (and of its operand sources) for the iteration whose induction
    variable is `stage_value`: seed 003's replica map (source op -> replica) and operand
    source map (operand -> source op) rewire every replica's operands within its stage."""
    replicas: dict[int, Operation] = {}

    def lookup(value: SSAValue) -> SSAValue:
        if value is iv:
            return stage_value
        owner = value.owner
        if isinstance(owner, Operation) and id(owner) in replicas:
            return replicas[id(owner)].results[value.index]  # type: ignore[union-attr]
        return value

    for source in [*sources, op]:
        replica = source.clone()
        for i, operand in enumerate(replica.operands):
            replica.operands[i] = lookup(operand)
        rewriter.insert_op(replica, at)
        at = InsertPoint.after(replica)
        replicas[id(source)] = replica
    load = replicas[id(op)]
    assert isinstance(load, TiledLoadBase)
    load.attributes[STAGE_ATTR] = IntegerAttr(stage, i32)
    return load


def expand_pending_load(
    rewriter: Rewriter,
    loop: scf.ForOp,
    op: TiledLoadBase,
    sources: Sequence[Operation],
    stages: int,
) -> scf.ForOp:
    """Seed 003 `expand_single_tiled_op`: `op` becomes `stages - 1` prologue replicas,
    carried through new iter-args, and one replica for the iteration `stages - 1` ahead.
    `op` is a tiled load, or an asynchronous one whose futures the loop then carries
    (`tileas-pipeline-dot-operands`)."""
    block = loop.body.block
    iv = block.args[0]
    before = InsertPoint.before(loop)
    prologue: list[SSAValue] = []
    for k in range(stages - 1):
        value = stage_iv(loop.lb, loop.step, k, before)
        prologue.append(clone_for_stage(rewriter, op, sources, iv, value, k, before).results[0])
    # The replica for the iteration stages - 1 ahead, at the end of the body.
    terminator = block.last_op
    assert isinstance(terminator, scf.YieldOp)
    at = InsertPoint.before(terminator)
    ahead_iv = stage_iv(iv, loop.step, stages - 1, at)
    ahead = clone_for_stage(rewriter, op, sources, iv, ahead_iv, stages - 1, at)
    carried = [block.insert_arg(v.type, len(block.args)) for v in prologue]
    for arg, value in zip(carried, prologue, strict=True):
        arg.name_hint = value.name_hint or op.results[0].name_hint
    op.results[0].replace_all_uses_with(carried[0])
    rewriter.erase_op(op)
    # The original operand sources now feed nothing but each other: erase them.
    for source in reversed(sources):
        if not any(r.uses for r in source.results):
            rewriter.erase_op(source)
    new_yield = scf.YieldOp(*terminator.arguments, *carried[1:], ahead.results[0])
    rewriter.replace_op(terminator, new_yield)
    body = Region()
    loop.body.move_blocks(body)
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *prologue], body)
    new_loop.attributes.update(loop.attributes)
    old_count = len(loop.results)
    rewriter.replace_op(loop, new_loop, new_loop.results[:old_count])
    return new_loop


# ---------------------------------------------------------------------------
# The passes.
# ---------------------------------------------------------------------------


def loop_stages(loop: scf.ForOp, default: int) -> int:
    hint = loop.attributes.get(NUM_STAGES_ATTR)
    if hint is None:
        return default
    if not isinstance(hint, IntegerAttr) or hint.value.data < 1:
        raise error_at(loop, f"{NUM_STAGES_ATTR} must be a positive integer, got {hint}")
    return hint.value.data


def materialize_loop(loop: scf.ForOp, num_stages: int) -> scf.ForOp:
    """Analyze `loop`, hoist its resident loads, expand its pending loads, and record the
    schedule on the (possibly rebuilt) loop."""
    rewriter = Rewriter()
    analysis = analyze_loop(loop, num_stages)
    for op in analysis.resident_loads:
        load = movable_load(op, analysis)
        if load is not None:
            load.detach()
            rewriter.insert_op(load, InsertPoint.before(loop))
    if num_stages > 1:
        for op in analysis.pending_loads:
            load = movable_load(op, analysis)
            if load is None:
                continue
            sources = operand_sources(load, loop)
            if sources is None:
                continue
            loop = expand_pending_load(rewriter, loop, load, sources, num_stages)
    loop.attributes[SCHEDULE_ATTR] = analysis.summary()
    return loop


def check_num_stages(pass_name: str, num_stages: int) -> None:
    if num_stages < 1:
        raise CompileError(f"{pass_name}: option num-stages must be at least 1, got {num_stages}")


def materialize_schedules(
    root: Operation, stages_of: Callable[[scf.ForOp], int], skip: Callable[[scf.ForOp], bool]
) -> None:
    # Innermost first: a post-order walk visits nested loops before their parents.
    loops = [op for op in root.walk(region_first=True) if isinstance(op, scf.ForOp)]
    for loop in loops:
        if not skip(loop):
            materialize_loop(loop, stages_of(loop))


@dataclass(frozen=True)
class MaterializeSchedulePass(ModulePass):
    """Partitions each loop's loads, stores and async roots into resident and pending
    ones, hoists resident loads and stage-expands pending tiled loads (seed 003)."""

    name = "tileas-materialize-schedule"

    num_stages: int = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_num_stages(self.name, self.num_stages)
        materialize_schedules(op, lambda loop: loop_stages(loop, self.num_stages), lambda _: False)
