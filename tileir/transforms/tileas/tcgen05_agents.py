"""`tileas-tcgen05-agents`: a pipelined `tcgen05` K loop (sm_100a) as three
warp-specialized agents around the tensor-memory accumulator: a producer that copies
operand tiles into an N-stage pipeline, an MMA agent of one warp whose elected thread
issues the `tcgen05.mma`s, and epilogue warps that read the accumulator back and store
it (docs/codegen.md, "Blackwell: warp-specialized agents").

`tileas-pipeline-dot-operands` chooses the loops (`why_not_tcgen05_agents`): on a
`tcgen05` target, the kernel's only loop at the top, with one `tcgen05` dot whose A and B
both come from `cp.async` copies and whose accumulator the loop carries (so that
`tileas-tmem-accumulators` keeps it in tensor memory), code before the loop that is pure
and the kernel's warps one or two warpgroups; and where the launch's share of registers
at the CTAs per SM its shared memory allows holds the producer's budget
(`too_few_registers`: the agents add 5 warps to the CTA).  It leaves their loads
asynchronous in the iteration that uses them and records the stages and the epilogue's
budget on the loop (`TCGEN05_AGENTS_ATTR`, `EPILOGUE_REGISTERS_ATTR`).  This pass runs
after `tileas-tmem-accumulators`: `tileas-specialize-agents` builds the sm_90a producer
and consumer (the prologue's copies, the producer's layouts), then the consumer's loop
moves into an agent of its own and the accumulator gets a pipeline:

    %p, %c = create_pipeline %stages {numStages = S}        // the operand ring
    %ap, %ac = create_pipeline %acc {numStages = 1}         // the accumulator
    agent_switch {max_regs = [P, -1, E], nv_tileas.agent_warps = [4, 1, W]} {
      // agent 0, the producer (sm_90a's): acquire a stage, copy, commit
    }, {
      // agent 1, the MMA warp
      %w0 = consumer_wait %ac, %ai                          // the accumulator is stored
      scf.for ... {
        %w = consumer_wait %c, %i                           // the stage is full
        %w2, %a, %b = consumer_read %w, %i {...}
        %d = nv_tileas.dot %a, %b, %x {nv_tileas.tmem_mma_agent, tmem_stored, ...}
        consumer_release %w2                                // tcgen05.commit: the slot is free
      }
      consumer_release %w0                                  // tcgen05.commit: D is complete
    }, {
      // agent 2, the epilogue: W warps, the kernel's layouts
      %t = producer_acquire %ap, %ei
      producer_write %t, %ei { write_tmem_accumulator %init; yield }
      producer_commit ...                                   // D holds the initial value
      producer_acquire ..., inc_iter %ei                    // the MMA warp released D
      %r = read_tmem_accumulator %init {tmem_stored}
      <the rest of the kernel>
    }

A block-scaled dot (`nv_tileas.dot ... scales`) becomes the agents where each of its
scales is a chain of reshapes and permutes of a raw tile whose bytes are already
`tcgen05.cp`'s source layout (`copied_scale`: NVIDIA's swizzled `1x1x32x16` scale
blocks): the raw tiles ride the stages beside A and B, the MMA warp's dot takes them as
they are (`nv_tileas.copied_scales`) and copies stage `s`'s slots into tensor-memory
scale set `s` before its MMAs.  Other block-scaled loops stay in one agent, the remark
says why (`why_not_copied_scales`).

The accumulator is the one stage of the second pipeline, owned by the epilogue: it
writes the initial value (`tcgen05.st`), hands the stage to the MMA warp, and acquiring
it again waits until the MMA warp released it, with a `tcgen05.commit` that arrives once
every MMA it issued has completed.  The operand ring's stages are released the same way,
one commit per iteration, so the producer refills a slot as soon as the MMAs that read
it are done (PTX ISA 9.7.16.6.3, "tcgen05.commit").  The lowering
(`conversions/tileas_to_llvm/tcgen05_agents.py`) carries this out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    ModuleOp,
    TensorType,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import VerifyException

from tileir.diagnostics import error_at
from tileir.dialects.cuda_tile.carriers import shape_of
from tileir.dialects.cuda_tile.ops.conversion import FToFOp
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import Residency
from tileir.dialects.nv_tileas.core_matrices import (
    SCALE_BLOCK_BYTES,
    SCALE_BLOCK_GROUPS,
    SCALE_BLOCK_ROWS,
    ScaleFactorBuffer,
)
from tileir.dialects.nv_tileas.layouts import WARP_SIZE
from tileir.dialects.nv_tileas.ops.compute import COPIED_SCALES_ATTR
from tileir.dialects.nv_tileas.ops.pipeline import INHERIT_REGISTER_BUDGET
from tileir.dialects.nv_tileas.ops.tmem import (
    TMEM_COLUMN_ATTR,
    TMEM_IN_FLIGHT_ATTR,
    TMEM_RESIDENT_ATTR,
    TMEM_STORED_ATTR,
    ReadTmemAccumulatorOp,
    WriteTmemAccumulatorOp,
)
from tileir.dialects.nv_tileas.types import (
    IteratorKind,
    PipelineIteratorType,
    TiledViewType,
)
from tileir.targets import ARCHS, RESERVED_SHARED_PER_CTA, register_budget
from tileir.transforms.tileas.assign_layouts import NUM_WARPS_ATTR
from tileir.transforms.tileas.ring_budget import occupancy_hint, transient_bound
from tileir.transforms.tileas.specialize_agents import (
    AGENT_REGISTER_LIMIT,
    AGENT_WARPS_ATTR,
    PRODUCER_WARPS,
    bytes_per_stage,
    kernel_warps,
    producer_registers,
    sink_prologue,
    specialize_loops,
    top_level_loops,
    why_not_specialized,
)
from tileir.transforms.tileas.tcgen05_plan import TCGEN05_M, TMEM_COLUMNS, tmem_columns

#: On a loop `tileas-pipeline-dot-operands` chose for this pass: its pipeline's stages.
TCGEN05_AGENTS_ATTR = "nv_tileas.tcgen05_agents"

#: On an `agent_switch` this pass builds (unit): its agents are a producer, an MMA warp
#: and the epilogue, in that order.
TCGEN05_SWITCH_ATTR = "nv_tileas.tcgen05_switch"

#: On a `tcgen05` dot (unit): the MMA agent issues it; it neither waits for its MMAs nor
#: synchronizes with other warps (its pipelines do).
MMA_AGENT_ATTR = "nv_tileas.tmem_mma_agent"

#: The MMA agent's warps: one, whose elected thread issues every MMA and commit.
MMA_WARPS = 1

#: Threads resident on one SM at most (sm_90, sm_100: 64 warps).
THREADS_PER_SM = 2048


#: On a loop `tileas-pipeline-dot-operands` chose for this pass: the epilogue's
#: register budget (`epilogue_registers`).
EPILOGUE_REGISTERS_ATTR = "nv_tileas.tcgen05_epilogue_registers"


def cta_threads(warps: int) -> int:
    """The threads of a CTA whose epilogue has `warps` warps."""
    return (PRODUCER_WARPS + MMA_WARPS + warps) * WARP_SIZE


def ctas_per_sm(fn: func.FuncOp, arch: str, shared_bytes: int, columns: int) -> int:
    """The CTAs of `fn` that can share an SM on `arch` when each takes `shared_bytes` of
    shared memory and `columns` of tensor memory, whatever their registers (at least
    one, and as many as its `occupancy` hint asks where that is fewer)."""
    target = ARCHS[arch]
    warps = fn.attributes.get(NUM_WARPS_ATTR)
    assert isinstance(warps, IntegerAttr)
    by_shared = target.shared_per_sm // (shared_bytes + RESERVED_SHARED_PER_CTA)
    by_threads = THREADS_PER_SM // cta_threads(warps.value.data)
    ctas = min(by_shared, by_threads, TMEM_COLUMNS // max(columns, 1))
    hint = occupancy_hint(fn, arch)
    return max(1, min(ctas, hint) if hint else ctas)


def epilogue_registers(warps: int, ctas: int) -> int:
    """The epilogue's register budget: the share of the register file each thread of
    `ctas` CTAs per SM gets (the kernel's `.maxnreg`, `register_budget`), which it keeps
    (no `setmaxnreg`), so that the agents' extra warps do not take CTAs off the SM that
    its shared memory leaves room for.  Its accumulator is in tensor memory and
    `llvm-sink-tmem-loads` reads it back 32 columns at a time; the MMA warp inherits the
    same, and only the producer gives registers back."""
    return min(AGENT_REGISTER_LIMIT, register_budget(cta_threads(warps), ctas))


class PlannedLoop(Protocol):
    """What `too_few_registers` reads of a `pipeline_dot_operands.LoopPlan`."""

    loop: scf.ForOp
    stages: int

    @property
    def fed(self) -> set[SSAValue]: ...


def too_few_registers(
    plan: PlannedLoop, arch: str, ring_bytes: int, record: bool = True
) -> str | None:
    """Why the loop of `plan` (chosen by `why_not_tcgen05_agents`) stays in one agent
    after all, its rings taking `ring_bytes`: the launch's share of registers at the
    CTAs per SM that the kernel's shared memory (the rings and its largest exchange,
    `transient_bound`), its threads and its tensor memory allow (`epilogue_registers`)
    is below the producer's budget (`producer_registers`, what its copies were measured
    to need on sm_90a); None when it is not, and the share is recorded on the loop as
    the epilogue's budget (unless not `record`: a loop that stays in one agent for
    another reason, whose remark says this one too)."""
    loop = plan.loop
    fn = loop.parent_op()
    assert isinstance(fn, func.FuncOp)
    shared_bytes = ring_bytes + transient_bound(fn, plan.fed)
    (dot,) = [op for op in loop.body.block.ops if isinstance(op, tas.DotOp)]
    acc = dot.acc.type
    assert isinstance(acc, TensorType)
    m, n = acc.get_shape()
    warps = kernel_warps(loop)
    ctas = ctas_per_sm(fn, arch, shared_bytes, tmem_columns((m, n)))
    registers = epilogue_registers(warps, ctas)
    producer = producer_registers(warps, ring_bytes // max(plan.stages, 1))
    if registers < producer:
        return (
            f"{ctas} CTAs of {cta_threads(warps)} threads fit an SM (about {shared_bytes} "
            f"bytes of shared memory each) and leave each thread {registers} registers, "
            f"fewer than the producer's {producer}"
        )
    if record:
        loop.attributes[EPILOGUE_REGISTERS_ATTR] = IntegerAttr(registers, i32)
    return None


#: Why a block-scaled dot whose scales are not raw copy-layout tiles stays in one agent.
SCALES_STAGED = (
    "the kernel's warps would stage them into the tcgen05.cp layout from their registers, "
    "and no agent stages scales yet"
)


@dataclass(frozen=True)
class CopiedScale:
    """A block-scaled dot's scales (one operand's) whose raw tile a ring slot holds in
    `tcgen05.cp`'s source layout: `source`, the loaded (or stage-read) raw tile, and
    `chain`, the reshapes (`nv_tileas.view`) and permutes (`nv_tileas.shuffle`) from it
    to the dot's `[M, K/G]` or `[K/G, N]` scales, in order."""

    source: SSAValue
    chain: tuple[Operation, ...]


def copied_scale(scale: SSAValue, k_dim: int, rows: int) -> CopiedScale | str:
    """`scale` (A's with `k_dim` 1, B's with 0, of a dot with `rows` rows of A or
    columns of B) as a chain of reshapes and permutes of one raw tile whose row-major
    bytes are exactly the `ScaleFactorBuffer` that `tcgen05.cp.32x128b.warpx4` copies
    (factor `g` of row `i` at byte `16 (i % 32) + 4 (i / 32 % 4) + g % 4` of its
    512-byte block): NVIDIA's swizzled samples' `1 x 1 x 32 x 16` blocks
    (`reshape [.., 32, 4, 4] -> permute [0, 3, 2, 1, 4] -> reshape [128, 4]`, B's then
    `permute [1, 0]`), whose slot the MMA warp copies straight into tensor memory.
    Else why not."""
    chain: list[Operation] = []
    value = scale
    while isinstance(value.owner, tas.ViewOp | tas.ShuffleOp):
        op = value.owner
        if isinstance(op, tas.ViewOp) and (not op.is_value_view or op.indices):
            break
        if not value.has_one_use():
            return "are used by more than the dot"
        chain.append(op)
        value = op.operands[0]
    chain.reverse()
    t = value.type
    if not isinstance(t, TensorType) or not isinstance(scale.type, TensorType):
        return "are not a tile"
    groups = scale.type.get_shape()[k_dim]
    buf = ScaleFactorBuffer(rows, groups)
    shape = tuple(t.get_shape())
    if rows % SCALE_BLOCK_ROWS or groups % SCALE_BLOCK_GROUPS or math.prod(shape) != buf.bytes:
        return (
            f"come as {'x'.join(map(str, shape))} tiles, not whole 128-row, 4-group blocks "
            "of the tcgen05.cp layout"
        )
    import numpy as np  # here only: a compilation without block-scaled dots imports no numpy

    # Each element of the dot's scales, as the byte of the raw tile it is.
    where = np.arange(math.prod(shape)).reshape(shape)
    for op in chain:
        if isinstance(op, tas.ShuffleOp):
            where = where.transpose(op.perm)
        else:
            rt = op.results[0].type
            assert isinstance(rt, TensorType)
            where = where.reshape(tuple(rt.get_shape()))
    if k_dim == 0:
        where = where.T
    i, g = np.indices(where.shape)
    block = SCALE_BLOCK_BYTES * (g // SCALE_BLOCK_GROUPS * buf.row_blocks + i // SCALE_BLOCK_ROWS)
    want = block + 16 * (i % 32) + 4 * (i // 32 % 4) + g % 4
    if not np.array_equal(where, want):
        return "are not laid out in their raw tile as tcgen05.cp copies them"
    return CopiedScale(value, tuple(chain))


def why_not_copied_scales(dot: tas.DotOp, loop: scf.ForOp) -> str | None:
    """Why the scales of the block-scaled `dot` of `loop` cannot go from the stage's
    slots straight into tensor memory (`copied_scale`, each a raw tile loaded in the
    loop body), so that the dot stays in one agent; None when they can."""
    assert dot.scales is not None
    rows = (shape_of(dot.a.type)[-2], shape_of(dot.b.type)[-1])
    for name, scale, k_dim, extent in zip(("A's", "B's"), dot.scales, (1, 0), rows, strict=True):
        found = copied_scale(scale, k_dim, extent)
        if isinstance(found, str):
            return f"{name} scales {found}: {SCALES_STAGED}"
        source = found.source.owner
        if not isinstance(source, tas.TiledLoadOp | tas.FutureWaitOp) or (
            source.parent_block() is not loop.body.block
        ):
            return f"{name} scales are not loaded in the loop body"
    return None


def copied_scales_clauses(dot: tas.DotOp, stages: int) -> list[str]:
    """What the `DotPipelined` remark says of the scales of `dot` (chosen for the
    agents): the MMA warp copies each stage's raw scale tiles into its scale set."""
    if dot.scales is None:
        return []
    tiles = []
    for scale in dot.scales:
        value = scale
        while isinstance(value.owner, tas.ViewOp | tas.ShuffleOp):
            value = value.owner.operands[0]
        t = value.type
        assert isinstance(t, TensorType)
        tiles.append(f"{'x'.join(map(str, t.get_shape()))}x{t.element_type}")
    return [
        f"A's and B's scales: the raw {tiles[0]} and {tiles[1]} tiles ride the stages, "
        "already in the tcgen05.cp layout, and the MMA warp copies them from the stage's "
        f"slots into its scale set in tensor memory (tcgen05.cp; {stages} sets, one a stage)"
    ]


def why_not_tcgen05_agents(
    loop: scf.ForOp, loads: Sequence[tas.TiledLoadOp], dots: Sequence[tas.DotOp], direct: bool
) -> str | None:
    """Why the pipelined `tcgen05` loop `loop`, whose dots read the tiles of `loads`
    (qualified for rings; `direct`: some operand is not), does not become a producer, an
    MMA warp and epilogue warps (module doc); None when it does."""
    if len(dots) != 1:
        return "the loop has more than one dot"
    (dot,) = dots
    fn = loop.parent_op()
    if (
        dot.scales is not None
        and isinstance(fn, func.FuncOp)
        and any(other is not loop and isinstance(other, scf.ForOp) for other in top_level_loops(fn))
    ):
        # The N halves of a block-scaled tile that `split-dot-accumulators` split share
        # their tensor-memory columns one loop after the other (`tmem_accumulators`),
        # and the agents take the loop and everything after it.
        return (
            "the kernel has another K loop at the top (the N halves of a block-scaled tile, "
            "which share their tensor-memory columns in one agent)"
        )
    if direct:
        return "not both operands of its dot come from rings"
    operand_loads = 2
    if dot.scales is not None:
        why = why_not_copied_scales(dot, loop)
        if why is not None:
            return why
        operand_loads = 4  # and A's and B's raw scale tiles
    if len(loads) != operand_loads:
        return "not both operands of its dot come from rings"
    if any(isinstance(v.owner, FToFOp) for v in (dot.a, dot.b)):
        # Every consumer thread rounds its own words of the slot (`ring_rounding.py`).
        return "its operands are rounded to tf32 in their slots by the threads that read them"
    acc = dot.acc.type
    assert isinstance(acc, TensorType)
    if acc.get_shape()[0] % TCGEN05_M:
        return (
            f"its {acc.get_shape()[0]}-row accumulator (data-path layout F: half the lanes, "
            "read in .16x256b fragments) is not generated for agents yet"
        )
    body = loop.body.block
    arg = dot.acc
    uses = list(dot.result.uses)
    if (
        len(loop.results) != 1
        or arg not in body.args
        or not arg.has_one_use()
        or len(uses) != 1
        or not isinstance(uses[0].operation, scf.YieldOp)
    ):
        return "the loop carries other values than its dot's accumulator"
    return why_not_specialized(loop, loads)


def mark_tcgen05_agents(loop: scf.ForOp, stages: int) -> str:
    """Mark `loop` (its loads already asynchronous) for this pass with its pipeline's
    `stages`; the agents as the remarks say them."""
    loop.attributes[TCGEN05_AGENTS_ATTR] = IntegerAttr(stages, i32)
    w = kernel_warps(loop)
    stage_bytes = sum(bytes_per_stage([load]) for load in _loads(loop))
    registers = loop.attributes.get(EPILOGUE_REGISTERS_ATTR)
    assert isinstance(registers, IntegerAttr)
    producer = min(producer_registers(w, stage_bytes), registers.value.data)
    return (
        f"three agents: a producer of {PRODUCER_WARPS} warps ({producer} registers), "
        f"an MMA warp and an epilogue of {w} warps ({registers.value.data} registers)"
    )


def _loads(loop: scf.ForOp) -> list[tas.AsyncTiledLoadOp]:
    return [op for op in loop.body.block.ops if isinstance(op, tas.AsyncTiledLoadOp)]


@dataclass
class _Accumulator:
    """The resident accumulator of the loop's dot (`tileas-tmem-accumulators`)."""

    dot: tas.DotOp
    read: ReadTmemAccumulatorOp
    column: IntegerAttr


def _accumulator(loop: scf.ForOp, dot: tas.DotOp) -> _Accumulator:
    column = dot.attributes.get(TMEM_COLUMN_ATTR)
    uses = [u.operation for u in loop.results[0].uses]
    read = uses[0] if len(uses) == 1 else None
    if (
        TMEM_RESIDENT_ATTR not in dot.attributes
        or TMEM_IN_FLIGHT_ATTR in dot.attributes
        or not isinstance(column, IntegerAttr)
        or not isinstance(read, ReadTmemAccumulatorOp)
    ):
        raise error_at(
            loop,
            f"{TCGEN05_AGENTS_ATTR} on a loop whose accumulator is not resident in tensor memory",
        )
    return _Accumulator(dot, read, column)


def _pipeline(
    at: Operation, stages: int, stage_bytes: int, residency: Residency
) -> list[Operation]:
    """The stage storage, its view and a pipeline of `stages` stages over it, before
    `at`.  The accumulator's pipeline (`Residency.TMEM`, one stage of one byte) has a
    placeholder storage: its stage is the accumulator's tensor-memory columns."""
    storage = tas.AllocTensorOp(TensorType(i8, [stages, stage_bytes]))
    view = tas.ViewOp(storage.result, TiledViewType([stages, stage_bytes], i8, residency))
    smem = residency is Residency.SMEM
    pipeline = tas.CreatePipelineOp(view.result, stages, 0 if smem else 2, 1, shared_mem=smem)
    for new in (storage, view, pipeline):
        new.location = at.location
        Rewriter.insert_op(new, InsertPoint.before(at))
    return [storage, view, pipeline]


def _mma_agent(region: Region, accumulator: tas.CreatePipelineOp) -> None:
    """`region` (the consumer's iterator and loop) as the MMA agent: it waits for the
    accumulator's stage before the loop and releases it after."""
    block = region.block
    payload = TiledViewType([1], i8, Residency.TMEM)
    it = tas.CreateIteratorOp(
        accumulator.consumer_token, PipelineIteratorType(payload, 1, kind=IteratorKind.CONSUMER)
    )
    wait = tas.ConsumerWaitOp(accumulator.consumer_token, it.result, 0)
    first = block.first_op
    assert first is not None
    Rewriter.insert_op([it, wait], InsertPoint.before(first))
    last = block.last_op
    assert isinstance(last, tas.PipelineYieldOp)
    Rewriter.insert_op(tas.ConsumerReleaseOp(wait.result), InsertPoint.before(last))


def _epilogue(read: ReadTmemAccumulatorOp, accumulator: tas.CreatePipelineOp) -> None:
    """Before `read` (in what was the consumer): the initial accumulator into tensor
    memory (the stage written and committed), then the stage acquired again, which
    waits until the MMA warp released it."""
    payload = TiledViewType([1], i8, Residency.TMEM)
    token = accumulator.producer_token
    it = tas.CreateIteratorOp(token, PipelineIteratorType(payload, 1))
    acquire = tas.ProducerAcquireOp(token, it.result)
    write_body = Block()
    write_body.add_ops(
        [WriteTmemAccumulatorOp(read.loop_result, read.column.value.data), tas.PipelineYieldOp([])]
    )
    write = tas.ProducerWriteOp.build(
        operands=[acquire.result, it.result],
        result_types=[acquire.result.type, []],
        regions=[Region(write_body)],
    )
    commit = tas.ProducerCommitOp(write.results[0])
    step = tas.IncIterOp(it.result)
    ready = tas.ProducerAcquireOp(commit.result, step.result)
    Rewriter.insert_op([it, acquire, write, commit, step, ready], InsertPoint.before(read))


def _copied_scales(dot: tas.DotOp) -> None:
    """The MMA warp's block-scaled `dot` takes the raw scale tiles its `consumer_read`
    hands it (`copied_scale`), marked `COPIED_SCALES_ATTR`: the lowering copies their
    slots into tensor-memory scale set `s`, `s` the stage read; the reshapes and
    permutes between go."""
    assert dot.scales is not None
    groups = shape_of(dot.scales[0].type)[-1]
    rows = (shape_of(dot.a.type)[-2], shape_of(dot.b.type)[-1])
    chains: list[Operation] = []
    for position, (scale, k_dim, extent) in enumerate(zip(dot.scales, (1, 0), rows, strict=True)):
        found = copied_scale(scale, k_dim, extent)
        if isinstance(found, str) or not isinstance(found.source.owner, tas.ConsumerReadOp):
            raise error_at(dot, f"block-scaled dot of the MMA warp whose scales {found}")
        dot.operands[3 + position] = found.source
        chains += found.chain
    dot.attributes[COPIED_SCALES_ATTR] = IntegerAttr(groups, i64)
    for op in reversed(chains):
        Rewriter.erase_op(op)


def specialize_tcgen05_loop(loop: scf.ForOp, stages: int, registers: int) -> tas.AgentSwitchOp:
    """Replace `loop` and everything after it in its function by two pipelines and an
    `agent_switch` of a producer, an MMA warp and the epilogue (module doc): sm_90a's
    producer and consumer, the consumer's loop then moved into an agent of its own."""
    (dot,) = [op for op in loop.body.block.ops if isinstance(op, tas.DotOp)]
    acc = _accumulator(loop, dot)
    warps = kernel_warps(loop)
    stage_bytes = bytes_per_stage(_loads(loop))
    # Tensor memory holds the accumulation from before the loop on: the epilogue writes
    # the initial value, the MMAs always accumulate, the read after reads tensor memory
    # (and takes the initial value, which is what it holds where the loop ran no
    # iteration).
    position = dot.acc.index - 1  # pyright: ignore[reportAttributeAccessIssue]
    acc.read.operands[0] = loop.iter_args[position]
    for marked in (dot, acc.read):
        marked.attributes[TMEM_STORED_ATTR] = UnitAttr()
    dot.attributes[MMA_AGENT_ATTR] = UnitAttr()
    pair = specialize_loops([loop], stages)
    accumulator = _pipeline(pair, 1, 1, Residency.TMEM)[2]
    assert isinstance(accumulator, tas.CreatePipelineOp)
    consumer = pair.agents[1].block
    (mma_loop,) = [op for op in consumer.ops if isinstance(op, scf.ForOp) and dot.parent_op() is op]
    iterator = mma_loop.iter_args[-1].owner
    assert isinstance(iterator, tas.CreateIteratorOp)
    prefix = list(consumer.ops)[: consumer.get_operation_index(iterator)]
    mma = Region(Block())
    for op in (iterator, mma_loop):
        op.detach()
        mma.block.add_op(op)
    mma.block.add_op(tas.PipelineYieldOp([]))
    # No `wgmma` drain: the accumulator's release waits for every MMA.
    for drain in [op for op in consumer.ops if isinstance(op, tas.AsyncWaitOp)]:
        Rewriter.erase_op(drain)
    sink_prologue(prefix, mma)
    if dot.scales is not None:
        _copied_scales(dot)
    _mma_agent(mma, accumulator)
    _epilogue(acc.read, accumulator)
    agents = [Region(), mma, Region()]
    pair.agents[0].move_blocks(agents[0])
    pair.agents[1].move_blocks(agents[2])
    region_dce(agents[2])
    producer = min(producer_registers(warps, stage_bytes), registers)
    switch = tas.AgentSwitchOp(agents, [producer, INHERIT_REGISTER_BUDGET, registers])
    switch.attributes[AGENT_WARPS_ATTR] = DenseArrayBase.from_list(
        i32, [PRODUCER_WARPS, MMA_WARPS, warps]
    )
    switch.attributes[TCGEN05_SWITCH_ATTR] = UnitAttr()
    switch.location = pair.location
    Rewriter.replace_op(pair, switch)
    try:
        switch.verify()
    except VerifyException as e:
        raise error_at(switch, f"the tcgen05 agents do not verify: {e}") from e
    return switch


@dataclass(frozen=True)
class Tcgen05AgentsPass(ModulePass):
    """The loops `tileas-pipeline-dot-operands` marked `nv_tileas.tcgen05_agents` become
    a producer, an MMA warp and epilogue warps around two pipelines (module doc)."""

    name = "tileas-tcgen05-agents"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            for loop in [o for o in fn.walk() if isinstance(o, scf.ForOp)]:
                attr = loop.attributes.get(TCGEN05_AGENTS_ATTR)
                registers = loop.attributes.get(EPILOGUE_REGISTERS_ATTR)
                if isinstance(attr, IntegerAttr) and isinstance(registers, IntegerAttr):
                    del loop.attributes[TCGEN05_AGENTS_ATTR]
                    del loop.attributes[EPILOGUE_REGISTERS_ATTR]
                    specialize_tcgen05_loop(loop, attr.value.data, registers.value.data)
