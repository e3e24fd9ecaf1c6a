"""`tileas-specialize-agents`: a pipelined `wgmma` K loop as two warp-specialized agents,
a producer that copies operand tiles into an N-stage pipeline and a consumer that
multiplies them (seed 001 "Queue-to-Pipeline Lowering", seed 003's pipeline family).

`tileas-pipeline-dot-operands` chooses the loops (`why_not_specialized`): on sm_90a, a
loop whose every dot runs on `wgmma` with a group in flight and reads both operands from
`cp.async` copies; it turns their loads into `nv_tileas.async.tiled_load`s, leaves them
in the iteration that uses them, and records the pipeline's stage count on the loop
(`nv_tileas.warp_specialize`).  This pass builds the agents, in seed 001's explicit
handshake form:

    %stages = nv_tileas.view %alloc : tensor<4x16384xi8> -> !nv_tileas.tiled_view<4x16384xi8, smem>
    %p, %c = nv_tileas.async.pipeline.create_pipeline %stages {numStages = 4, ...}
    nv_tileas.async.pipeline.agent_switch attributes {max_regs = [40, 232], ...} {
      // agent 0, the producer: W warps
      %it = create_iterator %p
      scf.for %k = %lb to %ub step %s iter_args(%t = %p, %i = %it) {
        %t1 = producer_acquire %t, %i                // the stage is free
        %t2, %fa, %fb = producer_write %t1, %i {     // the copies of iteration %k
          <the loads' index computation at %k>
          %fa = nv_tileas.async.tiled_load ...  yield %fa, %fb }
        %t3 = producer_commit %t2                    // the stage is full when they land
        scf.yield %t3, inc_iter %i
      }
    }, {
      // agent 1, the consumer: W warps, the loop and everything after it
      %it = create_iterator %c
      scf.for ... iter_args(%acc = ..., %t = %c, %i = %it) {
        %w = consumer_wait %t, %i
        %w2, %a, %b = consumer_read %w, %i { ^bb0(%sa, %sb): yield %sa, %sb }
        %d = nv_tileas.dot %a, %b, %acc {nv_tileas.groups_in_flight = 1}
        %t2 = consumer_release %w2
        ...
      }
      nv_tileas.async.wait                           // no wgmma outlives the loop
      <the rest of the kernel>
    }

The consumer has the warps the kernel's layouts were assigned for (`nv_tileas.num_warps`,
W: one or two warpgroups), the producer one warpgroup: the kernel runs W + 4 warps, and
inside an agent a thread's warp is its warp within the agent.  When W is 8, the
producer's tiles are laid out anew over its 4 warps (`fewer_warps`), each thread
copying twice the elements; every other layout means what it meant.  The code before the loop (pure index
computation: `why_not_specialized` requires it) runs in every warp; the agents'
register budgets (`max_regs`: the producer needs few, the consumer's accumulator many)
become `setmaxnreg`.  `consumer_release` of a stage that a dot with `g` groups in
flight read frees it `g` iterations later, once `wgmma.wait_group` has retired them
(`convert-tileas-to-llvm`, docs/codegen.md "Warp specialization").

Several K loops in the function's body (split-dot-accumulators' halves) are specialized
together (`specialize_loops`), through one pipeline whose stages all of them fill
alike (`tileas-pipeline-dot-operands` checks it: `joint_specialization`): the producer
runs each loop's copies in turn, the consumer the loops and everything between and
after them, and each agent carries its token and iterator from one loop into the next,
so both count the stages on and agree on every stage and phase.  What the producer's
copies take from between the loops is pure index arithmetic, of which it gets its own
copies; a `cta_barrier` between the loops (a store waiting for an earlier store)
becomes the consumer's `agent_barrier`: the producer's reads are each done before the
consumer is handed their stage, and none waits for a write (a loop with a barrier is
not specialized).  A K loop nested in another loop (a persistent kernel's tile loop)
is not specialized yet.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    ModuleOp,
    TensorType,
    UnitAttr,
    i8,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, ParametrizedAttribute, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free
from xdsl.transforms.dead_code_elimination import region_dce

from tileir.diagnostics import error_at
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import Residency
from tileir.dialects.nv_tileas.layouts import (
    WARP_SIZE,
    BlockedLayoutAttr,
    DistributedLayout,
    SliceLayoutAttr,
)
from tileir.dialects.nv_tileas.types import (
    IteratorKind,
    PipelineIteratorType,
    TiledViewType,
)
from tileir.printing import pinned_name
from tileir.targets import allocated_registers, register_budget
from tileir.transforms.tileas.assign_layouts import NUM_WARPS_ATTR
from tileir.transforms.tileas.materialize_schedule import operand_sources
from tileir.transforms.tileas.occupancy import recorded_occupancy
from tileir.utils.bits import mlir_bit_width
from tileir.utils.walk import enclosing_function

#: On a loop `tileas-pipeline-dot-operands` chose: the stages of its pipeline.
SPECIALIZE_ATTR = "nv_tileas.warp_specialize"

#: On an `agent_switch` this pass builds: the warps of each agent.
AGENT_WARPS_ATTR = "nv_tileas.agent_warps"

#: On the `async.wait` after each loop of a consumer that runs several: a memory fence
#: (`membar.cta`) follows the drain.  ptxas 13 otherwise serializes every `wgmma` of the
#: first loop (C7514, "non wgmma instructions reading accumulator registers ... between
#: start and end of the pipeline stage": `WARPGROUP.DEPBAR.LE gsb0, 0x0` after each
#: `HGMMA`) once a later loop waits on or arrives at an mbarrier after the first loop's
#: epilogue has read its accumulators; with the fence gemm_f16_wide_acc keeps a group in
#: flight in both loops (`DEPBAR.LE gsb0, 0x1`), at one fence a loop.
FENCE_AFTER_DRAIN_ATTR = "nv_tileas.fence_after_drain"

#: The producer's warps: one warpgroup (`setmaxnreg` acts on whole warpgroups).
PRODUCER_WARPS = 4


def kernel_warps(loop: scf.ForOp) -> int:
    """The warps of the kernel `loop` is in (`tileas-assign-layouts`; a
    warpgroup where none is recorded)."""
    fn = enclosing_function(loop)
    warps = fn.attributes.get(NUM_WARPS_ATTR) if fn is not None else None
    return warps.value.data if isinstance(warps, IntegerAttr) else PRODUCER_WARPS


#: The most registers an agent is given (`.maxnreg` of a warp-specialized kernel: the
#: largest agent budget, at most what 256 threads may launch with).
AGENT_REGISTER_LIMIT = 248

#: The producer's register budget per consumer warpgroup it feeds: it only computes
#: addresses and issues copies (CUTLASS's and tileiras's Hopper GEMMs give their load
#: warps 40 too).  Feeding two consumer warpgroups, each producer thread copies twice
#: the elements: the held-out 128x128x64 bf16 GEMM spilled 44 bytes in its producer at
#: 40 registers and none at 48; it gets 56, which costs the consumer nothing (224 either
#: way, `consumer_registers`) and keeps `gemm_f16_wide_acc`'s producer from spilling 12
#: bytes at 48 since its copies test one predicate a group (`async_copy`).
PRODUCER_REGISTERS = {4: 40, 8: 56}

#: 16-byte copies a producer thread issues per stage within its base budget; each one
#: more takes `REGISTERS_PER_EXTRA_COPY` (its 64-bit global address).  tileiras's
#: producers issue TMA copies from one thread and need no more than the base; ours issue
#: `cp.async` from every thread.  Feeding one consumer warpgroup, the register file has
#: room for more (4 warps x 72 + 4 x 248 = 1,280 of its 2,048 registers a lane):
#: `gemm_bf16_big_tile` (48 KiB a stage, 24 copies a thread) spilled 216 bytes at 40
#: registers, 12 at 56 and none at 72.
BASE_COPIES = 8
REGISTERS_PER_EXTRA_COPY = 2

#: Feeding two consumer warpgroups, the copies a producer thread issues per stage within
#: `PRODUCER_REGISTERS[8]`; beyond them it gets `WIDE_PRODUCER_REGISTERS` (the consumer
#: 216, `consumer_registers`: 4 x 64 + 8 x 216 = 1,984 of the 2,016 registers a lane the
#: CTA's 12 warps launch with at 168).  ptxas 13 -v, sm_90a: the
#: held-out 128x128x64 bf16 GEMM (32 KiB a stage, 16 copies) spills none at 48;
#: t_matmul_f16_256x256x64 (48 KiB, 24 copies, two K loops) spilled 56 bytes in its
#: producer at 48, 4 at 56 and none at 64, as do s_matmul_f16 and gemm_f16_wide_acc.
TWO_WARPGROUP_BASE_COPIES = 16
WIDE_PRODUCER_REGISTERS = 64

#: The consumer's warps: the kernel's, one or two warpgroups (those with a producer
#: budget).  Two consumer warpgroups are fed by one producer warpgroup (tileiras's
#: shape: 384 threads, `.maxnreg 168`, the consumer raised to 232), the producer's tiles
#: laid out anew over its 4 warps (`fewer_warps`).  Two agents of two warpgroups each
#: would launch 512 threads at 128 registers and spill (`gemm_bf16_two_warpgroups`:
#: 176 bytes).
CONSUMER_WARPS = tuple(PRODUCER_REGISTERS)


def producer_registers(consumer_warps: int, stage_bytes: int) -> int:
    """The producer's budget when it feeds a consumer of `consumer_warps` warps stages
    of `stage_bytes` bytes (`BASE_COPIES`), in `setmaxnreg`'s steps of 8."""
    base = PRODUCER_REGISTERS[consumer_warps]
    copies = -(-stage_bytes // (PRODUCER_WARPS * WARP_SIZE * 16))
    if consumer_warps != PRODUCER_WARPS:
        return WIDE_PRODUCER_REGISTERS if copies > TWO_WARPGROUP_BASE_COPIES else base
    extra = max(0, copies - BASE_COPIES) * REGISTERS_PER_EXTRA_COPY
    return min(AGENT_REGISTER_LIMIT, -(-(base + extra) // 8) * 8)


#: Ops whose lowering exchanges values through shared memory (with CTA barriers).
EXCHANGING_OPS = (
    tas.ConvertLayoutOp,
    tas.ReduceOp,
    tas.ScanOp,
    tas.ShuffleOp,
    tas.InsertSliceOp,
    tas.ExtractSliceOp,
    tas.ReinterpretOp,
)


#: Accumulator registers a thread of a two-warpgroup consumer may hold.  At 232
#: registers the held-out `s_matmul_f16` (a 128x256 f32 accumulator, 128 a thread)
#: spilled 288 bytes in its epilogue warp-specialized when first tried; since the
#: epilogue's stores address their elements from one address ("Memory accesses") it
#: spills none at 224 (ptxas 13 -v, sm_90a), nor do the split accumulators of
#: gemm_f16_wide_acc and t_matmul_f16_256x256x64 (two K loops of 256x128, 128 a thread).
#: No dot keeps more than 128 (`split-dot-accumulators` splits wider ones).
TWO_WARPGROUP_ACCUMULATOR_LIMIT = 128


def too_many_for_two_warpgroups(accumulator_registers: int) -> str | None:
    """Why a loop whose dots hold `accumulator_registers` a thread stays in one agent
    when its consumer would be two warpgroups, or None."""
    if accumulator_registers <= TWO_WARPGROUP_ACCUMULATOR_LIMIT:
        return None
    return (
        f"its accumulator takes {accumulator_registers} registers a thread, more than a "
        f"consumer of two warpgroups keeps beside its epilogue "
        f"({TWO_WARPGROUP_ACCUMULATOR_LIMIT})"
    )


def consumer_registers(warps: int, stage_bytes: int, occupancy: int = 1) -> int:
    """The consumer's budget: what the CTA's registers at launch leave its `warps` warps
    once the producer's warpgroup holds its budget, in `setmaxnreg`'s steps of 8 (one
    consumer warpgroup: 248; two: 224 beside a producer of 56, 216 beside one of 64;
    one warpgroup of a kernel compiled for 3 CTAs an SM, `occupancy`: 120).

    The bound is the CTA's own pool, not the register file: a CTA launches with
    `.maxnreg` registers a thread (`register_budget` of all its threads: 168 for 384),
    `setmaxnreg.dec` returns registers to that CTA's pool and `setmaxnreg.inc` blocks
    until the pool has enough (PTX ISA, *setmaxnreg*).  Budgets over the pool hang the
    kernel: on an H200 (2026-11-27) `gemm_bf16_two_warpgroups` and `gemm_f16_wide_acc`
    never finished with a producer of 48 and consumers of 232, 128 x (48 + 2 x 232) =
    65,536 registers against the 64,512 the CTA had (`agents.fit_to_register_pool`
    checks the lowering against the kernel's final `.maxnreg`)."""
    producer = producer_registers(warps, stage_bytes)
    total = PRODUCER_WARPS + warps
    launched = allocated_registers(register_budget(total * WARP_SIZE, occupancy))
    rows = launched * total - PRODUCER_WARPS * producer
    return min(AGENT_REGISTER_LIMIT, rows // warps // 8 * 8)


def _needed(prologue: Sequence[Operation], users: set[int]) -> list[Operation]:
    """The ops of `prologue` (in order) whose results ops of `users` (ids) use, directly
    or through each other."""
    needed: set[int] = set()
    for o in reversed(prologue):
        if id(o) in needed or any(id(u.operation) in users for r in o.results for u in r.uses):
            needed.add(id(o))
            for v in o.operands:
                if isinstance(v.owner, Operation):
                    needed.add(id(v.owner))
    return [o for o in prologue if id(o) in needed]


def top_level_loops(fn: func.FuncOp) -> list[Operation]:
    """The loops of `fn`'s body (not nested in other ops), in order."""
    return [op for op in fn.body.block.ops if isinstance(op, scf.ForOp | scf.WhileOp)]


def _pure_top_level(op: Operation) -> bool:
    """Whether every agent may run its own copy of `op`, an op of the function's body."""
    return not op.regions and is_side_effect_free(op) and not isinstance(op, EXCHANGING_OPS)


def producer_inputs(loop: scf.ForOp, ops: Sequence[Operation]) -> list[Operation] | str:
    """The ops of the function's body before `loop` (in order) that compute the values
    `ops` (the producer's copies of `loop`'s loads and their index computation) take
    from outside the loop, or why the producer cannot run its own copies of them: each
    must be pure, region-free and free of exchanges (`_pure_top_level`), since the
    consumer runs the original (or nothing, where only the producer needs it)."""
    block = loop.parent_block()
    assert block is not None
    before: list[Operation] = []
    for op in block.ops:
        if op is loop:
            break
        before.append(op)
    inputs = _needed(before, {id(o) for o in ops})
    for op in inputs:
        if not _pure_top_level(op):
            return (
                f"a load's index computation depends on '{op.name}', which only one agent may run"
            )
    return inputs


def why_not_specialized(loop: scf.ForOp, loads: Sequence[tas.TiledLoadOp]) -> str | None:
    """Why the pipelined loop `loop`, whose dots read the tiles of `loads` (all
    qualified for rings, every dot with a `wgmma` group in flight), does not become a
    producer and a consumer agent; None when it does.  The loop must be in the
    function's body, and the code before the function's first loop pure (it runs in
    every warp, and the consumer takes the rest of the kernel); every other loop of the
    function's body a K loop of dots too (`tileas-pipeline-dot-operands` then requires
    them all warp-specialized, through one pipeline: `joint_specialization`); the loads'
    index computation, and what it takes from before the loop, pure and free of
    exchanges (the producer runs its own copy); the kernel one or two warpgroups, the
    consumer's (`setmaxnreg` acts on warpgroups), with layouts the producer's one
    warpgroup can take."""
    fn = loop.parent_op()
    if not isinstance(fn, func.FuncOp):
        return "the loop is nested in other control flow"
    warps = fn.attributes.get(NUM_WARPS_ATTR)
    if not isinstance(warps, IntegerAttr) or warps.value.data not in CONSUMER_WARPS:
        return "the kernel's warps are not one or two warpgroups"
    loops = top_level_loops(fn)
    for op in fn.body.block.ops:
        if op is loops[0]:
            break
        if not _pure_top_level(op):
            return f"'{op.name}' before the loop would run in both agents"
    for other in loops:
        if other is not loop and not (isinstance(other, scf.ForOp) and is_dot_loop(other)):
            return "the kernel has another loop at the top, not a K loop of dots"
    if any(isinstance(o, tas.CtaBarrierOp) for o in loop.body.walk()):
        # A load there waits for other threads' writes (`tileas-insert-barriers`): the
        # producer, running ahead, would not.
        return "a CTA barrier in the loop orders its accesses after other threads' writes"
    producer: list[Operation] = []
    for load in loads:
        sources = operand_sources(load, loop)
        if sources is None or any(isinstance(s, EXCHANGING_OPS) for s in sources):
            return "a load's index computation exchanges values between threads"
        producer += [*sources, load]
    inputs = producer_inputs(loop, producer)
    if isinstance(inputs, str):
        return inputs
    if warps.value.data != PRODUCER_WARPS:
        # The producer's ops and the ops before the loop it gets copies of (`sink_prologue`)
        # are laid out anew over its warps (`_spread_over_producer`).
        for o in [*producer, *inputs]:
            if any(fewer_warps(r.type, PRODUCER_WARPS) is None for r in o.results):
                return f"'{o.name}' has a layout the producer's 4 warps cannot take"
    return None


def is_dot_loop(loop: scf.ForOp) -> bool:
    """Whether `loop` is an innermost loop with a dot (a K loop the pipelining pass
    plans)."""
    body = list(loop.body.walk())
    return any(isinstance(o, tas.DotOp) for o in body) and not any(
        isinstance(o, scf.ForOp | scf.WhileOp) for o in body
    )


def fewer_warps(attr: Attribute, warps: int) -> Attribute | None:
    """`attr` (a type, or any attribute holding layouts) with each blocked layout spread
    over `warps` warps: the warps of its slowest dimensions halved until that many are
    left, each thread then holding more of the tile.  None when a layout is not blocked
    (or a slice of one) or its warps do not halve down to `warps`."""
    if isinstance(attr, BlockedLayoutAttr):
        wpc = list(attr.wpc)
        for d in reversed(attr.dim_order):
            while math.prod(wpc) > warps and wpc[d] > 1:
                wpc[d] //= 2
        if math.prod(wpc) != warps:
            return None
        return BlockedLayoutAttr(attr.spt, attr.tpw, wpc, attr.dim_order)
    if isinstance(attr, DistributedLayout) and not isinstance(attr, SliceLayoutAttr):
        return None
    if isinstance(attr, ParametrizedAttribute):
        params = _each_with_fewer_warps(attr.parameters, warps)
        if params is None or params is attr.parameters:
            return None if params is None else attr
        return type(attr).new(params)
    if isinstance(attr, ArrayAttr):
        data = cast(ArrayAttr[Attribute], attr).data
        items = _each_with_fewer_warps(data, warps)
        if items is None or items is data:
            return None if items is None else attr
        return ArrayAttr(items)
    return attr


def _each_with_fewer_warps(attrs: Sequence[Attribute], warps: int) -> Sequence[Attribute] | None:
    """`fewer_warps` of each of `attrs`: None if one has none, `attrs` itself if none
    changed."""
    out: list[Attribute] = []
    for a in attrs:
        b = fewer_warps(a, warps)
        if b is None:
            return None
        out.append(b)
    return attrs if all(a is b for a, b in zip(attrs, out, strict=True)) else out


def _spread_over_producer(region: Region) -> None:
    """Lay the producer's tiles out over its `PRODUCER_WARPS` warps (its values, and the
    attributes of its ops that hold layouts), when the kernel's layouts are for more:
    the producer runs fewer warps than the consumer (`CONSUMER_WARPS`), and only the
    producer's threads copy the tiles (`why_not_specialized` checked the layouts)."""
    for op in list(region.walk()):
        for name, value in [*op.properties.items(), *op.attributes.items()]:
            new = fewer_warps(value, PRODUCER_WARPS)
            assert new is not None
            if new is not value:
                target = op.properties if name in op.properties else op.attributes
                target[name] = new
        for result in list(op.results):
            new_type = fewer_warps(result.type, PRODUCER_WARPS)
            assert new_type is not None
            if new_type is not result.type:
                Rewriter.replace_value_with_new_type(result, new_type)


@dataclass
class _Loop:
    """The parts of a chosen loop."""

    loop: scf.ForOp
    stages: int
    loads: list[tas.AsyncTiledLoadOp]
    waits: list[tas.FutureWaitOp]
    dots: list[tas.DotOp]


def _parts(loop: scf.ForOp, stages: int) -> _Loop:
    body = loop.body.block
    loads = [op for op in body.ops if isinstance(op, tas.AsyncTiledLoadOp)]
    waits: list[tas.FutureWaitOp] = []
    for load in loads:
        users = [u.operation for u in load.result.uses]
        if len(users) != 1 or not isinstance(users[0], tas.FutureWaitOp):
            raise error_at(
                load, "a warp-specialized load must be waited for once, in its iteration"
            )
        waits.append(users[0])
    dots = [op for op in body.ops if isinstance(op, tas.DotOp)]
    if not loads or not dots:
        raise error_at(loop, f"{SPECIALIZE_ATTR} on a loop without asynchronous loads and dots")
    return _Loop(loop, stages, loads, waits, dots)


def bytes_per_stage(loads: Sequence[tas.AsyncTiledLoadOp]) -> int:
    """Bytes of one stage: a tile of each load."""
    total = 0
    for load in loads:
        t = load.loaded_type()
        assert isinstance(t, TensorType)
        total += math.prod(t.get_shape()) * (mlir_bit_width(t.element_type) or 8) // 8
    return total


def _producer_loop(parts: _Loop, token: SSAValue, iterator: SSAValue) -> scf.ForOp:
    """The producer's copy of one loop: the same iterations, each filling the stage of
    `iterator` (carried on, with the token, to the producer's next loop)."""
    loop = parts.loop
    body = Block(arg_types=[loop.lb.type, token.type, iterator.type])
    k, t, i = body.args
    # The same iterations: the loop's name for them, not pinned, so that the loop keeps it.
    k.name_hint = pinned_name(loop.body.block.args[0]) or loop.body.block.args[0].name_hint
    acquire = tas.ProducerAcquireOp(t, i)
    body.add_op(acquire)
    write_body = Block()
    futures: list[SSAValue] = []
    for load in parts.loads:
        sources = operand_sources(load, loop)
        assert sources is not None
        mapping: dict[SSAValue, SSAValue] = {loop.body.block.args[0]: k}
        for op in [*sources, load]:
            clone = op.clone(value_mapper=mapping)
            write_body.add_op(clone)
            for old, new in zip(op.results, clone.results, strict=True):
                mapping[old] = new
        futures.append(mapping[load.result])
    write_body.add_op(tas.PipelineYieldOp(futures))
    write = tas.ProducerWriteOp.build(
        operands=[acquire.result, i],
        result_types=[acquire.result.type, [f.type for f in futures]],
        regions=[Region(write_body)],
    )
    body.add_op(write)
    commit = tas.ProducerCommitOp(write.results[0])
    body.add_op(commit)
    step = tas.IncIterOp(i)
    body.add_op(step)
    body.add_op(scf.YieldOp(commit.result, step.result))
    producer_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [token, iterator], Region(body))
    producer_loop.attributes.update(
        {k: v for k, v in loop.attributes.items() if k != SPECIALIZE_ATTR}
    )
    producer_loop.location = loop.location
    return producer_loop


def _producer(
    parts: Sequence[_Loop], token: SSAValue, iterator_type: PipelineIteratorType
) -> Region:
    """Agent 0: each loop's copies in turn, through one iterator that keeps counting
    stages from one loop to the next (the consumer's does the same)."""
    outer = Block()
    it = tas.CreateIteratorOp(token, iterator_type)
    outer.add_op(it)
    t, i = token, it.result
    for part in parts:
        producer_loop = _producer_loop(part, t, i)
        outer.add_op(producer_loop)
        t, i = producer_loop.results
    outer.add_op(tas.PipelineYieldOp())
    return Region(outer)


def _consumer_loop(parts: _Loop, token: SSAValue, iterator: SSAValue) -> scf.ForOp:
    """`parts.loop` reading its tiles from the stages of `iterator`, inserted in its
    place (the old loop erased), then an `async.wait` (no `wgmma` outlives it)."""
    loop = parts.loop
    body = loop.body.block
    t = body.insert_arg(token.type, len(body.args))
    i = body.insert_arg(iterator.type, len(body.args))
    first = min(parts.waits, key=body.get_operation_index)
    wait = tas.ConsumerWaitOp(t, i, 0)
    Rewriter.insert_op(wait, InsertPoint.before(first))
    read_body = Block(arg_types=[w.result.type for w in parts.waits])
    read_body.add_op(tas.PipelineYieldOp(list(read_body.args)))
    read = tas.ConsumerReadOp.build(
        operands=[wait.result, i],
        result_types=[wait.result.type, [w.result.type for w in parts.waits]],
        properties={"consumer_idx": IntegerAttr(0, i32)},
        regions=[Region(read_body)],
    )
    Rewriter.insert_op(read, InsertPoint.after(wait))
    for w, value in zip(parts.waits, read.results[1:], strict=True):
        w.result.replace_all_uses_with(value)
        Rewriter.erase_op(w)
    for load in parts.loads:
        Rewriter.erase_op(load)
    last_dot = max(parts.dots, key=body.get_operation_index)
    release = tas.ConsumerReleaseOp(read.results[0])
    Rewriter.insert_op(release, InsertPoint.after(last_dot))
    step = tas.IncIterOp(i)
    Rewriter.insert_op(step, InsertPoint.after(release))
    terminator = body.last_op
    assert isinstance(terminator, scf.YieldOp)
    Rewriter.replace_op(terminator, scf.YieldOp(*terminator.arguments, release.result, step.result))
    new_body = Region()
    loop.body.move_blocks(new_body)
    consumer_loop = scf.ForOp(
        loop.lb, loop.ub, loop.step, [*loop.iter_args, token, iterator], new_body
    )
    consumer_loop.attributes.update(
        {k: v for k, v in loop.attributes.items() if k != SPECIALIZE_ATTR}
    )
    consumer_loop.location = loop.location
    for old, new in zip(loop.results, consumer_loop.results, strict=False):
        old.replace_all_uses_with(new)
    Rewriter.insert_op(consumer_loop, InsertPoint.before(loop))
    # The accumulators of the groups still in flight are read after the loop.
    drain = tas.AsyncWaitOp([])
    drain.location = loop.location
    Rewriter.insert_op(drain, InsertPoint.after(consumer_loop))
    Rewriter.erase_op(loop)
    return consumer_loop


def _consumer(
    parts: Sequence[_Loop],
    token: SSAValue,
    iterator_type: PipelineIteratorType,
    rest: Sequence[Operation],
) -> Region:
    """Agent 1: the rest of the kernel (`rest`, moved: the loops and everything between
    and after them), each loop reading its tiles from the pipeline through one iterator
    carried from loop to loop."""
    outer = Block()
    it = tas.CreateIteratorOp(token, iterator_type)
    outer.add_op(it)
    for op in rest:
        op.detach()
        outer.add_op(op)
    t, i = token, it.result
    for part in parts:
        consumer_loop = _consumer_loop(part, t, i)
        t, i = consumer_loop.results[-2:]
        drain = consumer_loop.next_op
        assert isinstance(drain, tas.AsyncWaitOp)
        if len(parts) > 1:
            drain.attributes[FENCE_AFTER_DRAIN_ATTR] = UnitAttr()
    outer.add_op(tas.PipelineYieldOp())
    # The loads' index computation is the producer's now.
    region = Region(outer)
    region_dce(region)
    return region


def _agent_barrier(barrier: tas.CtaBarrierOp) -> tas.AgentBarrierOp:
    """The consumer's barrier in place of the CTA's `barrier` (between or after the
    loops).  Every access it orders is the consumer's: the producer only reads the
    loops' tiles, each read done before the consumer is handed its stage, and none of
    them waits for a write at a barrier of its own (`why_not_specialized`), so none is
    ordered after a write the consumer makes."""
    agent = tas.AgentBarrierOp()
    agent.location = barrier.location
    Rewriter.replace_op(barrier, agent)
    return agent


def _same_payloads(parts: Sequence[_Loop]) -> bool:
    """Whether the loops' stages hold the same tiles (types and layouts), in the same
    order: one pipeline's slots then serve them all."""
    payloads = [[load.loaded_type() for load in part.loads] for part in parts]
    return all(p == payloads[0] for p in payloads)


def specialize_loops(loops: Sequence[scf.ForOp], stages: int) -> tas.AgentSwitchOp:
    """Replace `loops` (the loops of one function's body, in order) and everything after
    the first by a pipeline and an `agent_switch` of a producer and a consumer (module
    doc): the producer runs each loop's copies in turn and the consumer the rest of the
    kernel, both counting the pipeline's stages on across the loops."""
    parts = [_parts(loop, stages) for loop in loops]
    if not _same_payloads(parts):
        raise error_at(loops[1], f"{SPECIALIZE_ATTR} on loops whose stages differ")
    first = loops[0]
    fn = first.parent_op()
    assert isinstance(fn, func.FuncOp)
    warps_attr = fn.attributes.get(NUM_WARPS_ATTR)
    assert isinstance(warps_attr, IntegerAttr)
    warps = warps_attr.value.data
    block = first.parent_block()
    assert block is not None
    terminator = block.last_op
    rest: list[Operation] = []
    op = first.next_op
    while op is not None and op is not terminator:
        rest.append(op)
        op = op.next_op
    stage_bytes = bytes_per_stage(parts[0].loads)
    storage = tas.AllocTensorOp(TensorType(i8, [stages, stage_bytes]))
    stage_view = TiledViewType([stages, stage_bytes], i8, Residency.SMEM)
    view = tas.ViewOp(storage.result, stage_view)
    pipeline = tas.CreatePipelineOp(view.result, stages, 0, 1)
    at = InsertPoint.before(first)
    for new in (storage, view, pipeline):
        new.location = first.location
        Rewriter.insert_op(new, at)
        at = InsertPoint.after(new)
    payload = TiledViewType([stage_bytes], i8, Residency.SMEM)
    producer_it = PipelineIteratorType(payload, stages)
    consumer_it = PipelineIteratorType(payload, stages, kind=IteratorKind.CONSUMER)
    producer = _producer(parts, pipeline.producer_token, producer_it)
    # Its own copies of what the copies take from between the loops, while the originals
    # are there (`why_not_specialized` checked them pure); the consumer keeps those.
    between = [o for o in rest if not isinstance(o, scf.ForOp | scf.WhileOp) and _pure_top_level(o)]
    sink_prologue(between, producer)
    for i, o in enumerate(rest):
        if isinstance(o, tas.CtaBarrierOp):
            rest[i] = _agent_barrier(o)
    consumer = _consumer(parts, pipeline.consumer_token, consumer_it, [first, *rest])
    switch = tas.AgentSwitchOp(
        [producer, consumer],
        [
            producer_registers(warps, stage_bytes),
            consumer_registers(warps, stage_bytes, recorded_occupancy(fn)),
        ],
    )
    switch.attributes[AGENT_WARPS_ATTR] = DenseArrayBase.from_list(i32, [PRODUCER_WARPS, warps])
    switch.location = first.location
    Rewriter.insert_op(switch, InsertPoint.after(pipeline))
    prologue = [o for o in block.ops if o not in (storage, view, pipeline, switch, terminator)]
    for region in switch.agents:
        sink_prologue(prologue, region)
    if warps != PRODUCER_WARPS:
        _spread_over_producer(switch.agents[0])
    for o in reversed(prologue):
        if not any(r.uses for r in o.results):
            Rewriter.erase_op(o)
    return switch


def sink_prologue(prologue: Sequence[Operation], region: Region) -> None:
    """Give `region` its own copies of the prologue ops it uses (pure index arithmetic,
    `why_not_specialized`), at its start: a value computed before the `agent_switch`
    would be live across it in both agents' registers, and the producer runs on few."""
    block = region.block
    mapping: dict[SSAValue, SSAValue] = {}
    first = block.first_op
    assert first is not None
    for o in _needed(prologue, {id(o) for o in region.walk()}):
        clone = o.clone(value_mapper=mapping)
        Rewriter.insert_op(clone, InsertPoint.before(first))
        for old, new in zip(o.results, clone.results, strict=True):
            mapping[old] = new
    for o in region.walk():
        for i, v in enumerate(o.operands):
            if v in mapping:
                o.operands[i] = mapping[v]


def specialized_loops(fn: func.FuncOp) -> list[tuple[scf.ForOp, int]]:
    found: list[tuple[scf.ForOp, int]] = []
    for op in fn.walk():
        if isinstance(op, scf.ForOp):
            attr = op.attributes.get(SPECIALIZE_ATTR)
            if isinstance(attr, IntegerAttr):
                found.append((op, attr.value.data))
    return found


def agent_warps(switch: tas.AgentSwitchOp) -> list[int]:
    """The warps of each agent of `switch`."""
    attr = switch.attributes.get(AGENT_WARPS_ATTR)
    if not isinstance(attr, DenseArrayBase):
        raise error_at(switch, f"an agent_switch without {AGENT_WARPS_ATTR} cannot be lowered")
    return [int(v) for v in attr.get_values()]


@dataclass(frozen=True)
class SpecializeAgentsPass(ModulePass):
    """The loops `tileas-pipeline-dot-operands` marked `nv_tileas.warp_specialize`
    become a producer and a consumer agent around an N-stage pipeline (the K loops of
    one kernel all around one pipeline, in turn)."""

    name = "tileas-specialize-agents"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            found = specialized_loops(fn)
            if not found:
                continue
            stages = {s for _, s in found}
            if len(stages) != 1:
                raise error_at(
                    found[1][0], f"{SPECIALIZE_ATTR} with different stages in one kernel"
                )
            specialize_loops([loop for loop, _ in found], stages.pop())
