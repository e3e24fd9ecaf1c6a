"""Warp-specialized agents and their pipelines: `agent_switch`, `create_pipeline`,
`create_iterator` / `inc_iter`, the producer handshake (`producer_acquire`,
`producer_write`, `producer_commit`) and the consumer's (`consumer_wait`,
`consumer_read`, `consumer_release`), as `tileas-specialize-agents` writes them
(docs/codegen.md, "Warp specialization").  PTX ISA sections: *mbarrier*, *cp.async*
(`cp.async.mbarrier.arrive`), *setmaxnreg*, *bar* (named barriers), *membar/fence*
(`fence.proxy.async`).

* **Agents.**  The consumer (the second agent) runs the CTA's first warps, the producer
  (one warpgroup) the warps after them: the kernel's `.reqntid` counts them all
  (`kernel.py`), and the switch is a branch on the thread id.  A thread's warp id is
  `%tid.x / 32` in both: the consumer's warpgroups are the CTA's (its `wgmma`s and
  exchanges need no offset), and the producer's layouts, over its 4 warps, read only the
  two low bits of the warp id, which are the warp's number within the producer.  An agent whose register budget
  (`max_regs`) differs from the kernel's `.maxnreg` starts with `setmaxnreg.dec` /
  `.inc`.  A CTA barrier inside an agent (an exchange's) becomes the agent's own named
  barrier, `bar.sync 1 + a, 32 * W[a]`: the other agent never reaches it.
* **The pipeline.**  `create_pipeline` places, in the kernel's persistent shared
  memory, one ring of `numStages` slots per payload (laid out as the dot reads it,
  `operand_placement.py`) and two mbarriers per stage, *full* (expecting every producer
  thread) and *empty* (every consumer thread); thread 0 of the CTA initializes them
  before a CTA barrier that every warp reaches.
* **Registers.**  An iterator is the count of stages it has passed (`n`; its stage is
  `n mod numStages`, its round `n / numStages`); a producer token is the address of the
  *full* mbarrier of the stage it acquired, a consumer token the iterator it waited at.
* **Producer.**  `producer_acquire` waits for the *empty* mbarrier of its stage with
  the parity of the round before (the first round passes: a fresh mbarrier's phase of
  parity 1 counts as complete); `producer_write` points each payload's copies at the
  stage's slot (`async_copy.LowerAsyncTiledLoad`) and runs them; `producer_commit`
  arrives twice on *full* (the synchronous element copies of a partly masked group were
  made visible to the async proxy where they were stored, `async_copy._copy`): with
  `cp.async.mbarrier.arrive` (raising the pending count until its copies land) and with
  `mbarrier.arrive` (releasing its stores).
* **Consumer.**  `consumer_wait` waits for *full* with the round's parity, and no more:
  `wgmma` reads the stage through the async proxy, which sees what `cp.async` wrote
  once the wait orders it, and the element copies' stores the producer fenced
  (`LowerConsumer`; a `tcgen05` MMA warp still fences); `consumer_read` hands the dot the stage's
  slots; `consumer_release` arrives on *empty* of the stage read `g` iterations before,
  `g` the `wgmma` groups its dots leave in flight (`wgmma.wait_group g` has retired
  that stage's group by then), nothing in the first `g` iterations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import llvm, scf
from xdsl.dialects.builtin import (
    IntegerAttr,
    ModuleOp,
    TensorType,
    UnrealizedConversionCastOp,
    i32,
)
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.async_copy import AsyncFeeds, LowerAsyncWait, Ring
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import LoweringContext, element_bits
from tileir.conversions.tileas_to_llvm.control_flow import split_after
from tileir.conversions.tileas_to_llvm.kernel import register_cap
from tileir.conversions.tileas_to_llvm.mbarriers import (
    MBARRIER_BYTES,
    arrive,
    arrive_after_copies,
    cta_thread_zero,
    init_mbarrier,
    instruction,
    wait_parity,
)
from tileir.conversions.tileas_to_llvm.operand_placement import SlotPlacement
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.conversions.tileas_to_llvm.shared_arena import allocate_persistent
from tileir.conversions.tileas_to_llvm.tma import TmaMaps
from tileir.diagnostics import not_supported
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import WARP_SIZE
from tileir.dialects.nv_tileas.ops.compute import COPIED_SCALES_ATTR
from tileir.targets import allocated_registers
from tileir.transforms.tileas.pipeline_dot_operands import groups_in_flight
from tileir.transforms.tileas.specialize_agents import FENCE_AFTER_DRAIN_ATTR, agent_warps
from tileir.transforms.tileas.tcgen05_agents import TCGEN05_SWITCH_ATTR
from tileir.transforms.tileas.tf32_operands import ROUNDED_IN_SHARED_ATTR


@dataclass
class Pipeline:
    """What the lowering knows of one `create_pipeline`."""

    op: tas.CreatePipelineOp
    producer_threads: int
    consumer_threads: int
    #: One ring per payload, in the order the producer yields them.
    rings: list[Ring] = field(default_factory=list)
    #: `wgmma` groups the consumer's dots leave in flight.
    in_flight: int = 0
    #: The shared address of the first *full* mbarrier (the *empty* ones follow).
    barriers: SSAValue | None = None
    #: Some stage is written by `cp.async` copies (not only TMA boxes, `tma.py`): each
    #: producer thread's commit then arrives after its copies too.
    copies: bool = False

    @property
    def stages(self) -> int:
        return self.op.stages

    def full(self, b: LLBuilder, stage: SSAValue) -> SSAValue:
        assert self.barriers is not None
        return b.add(self.barriers, b.mul(stage, b.const(MBARRIER_BYTES, i32)))

    def empty(self, b: LLBuilder, stage: SSAValue) -> SSAValue:
        assert self.barriers is not None
        base = b.add(self.barriers, b.const(self.stages * MBARRIER_BYTES, i32))
        return b.add(base, b.mul(stage, b.const(MBARRIER_BYTES, i32)))

    def stage(self, b: LLBuilder, count: SSAValue) -> SSAValue:
        return b.urem(count, b.const(self.stages, i32))

    def slots(self, b: LLBuilder, count: SSAValue, feeds: AsyncFeeds) -> list[SSAValue]:
        """The shared address of each payload's slot in the stage of iterator `count`."""
        stage = self.stage(b, count)
        slots: list[SSAValue] = []
        for ring in self.rings:
            assert ring.base is not None
            size = feeds.ring_placement(ring).operand_bytes(ring.index)
            slots.append(b.add(ring.base, b.mul(stage, b.const(size, i32))))
        return slots

    def parity(self, b: LLBuilder, count: SSAValue) -> SSAValue:
        return b.and_(b.udiv(count, b.const(self.stages, i32)), b.const(1, i32))


@dataclass
class AgentRegion:
    """An agent's blocks after lowering: from `entry` up to (not into) `merge`."""

    entry: Block
    merge: Block
    barrier: int
    threads: int


@dataclass
class Agents:
    """The pipelines and agent regions of one run (planned before the rewrite)."""

    feeds: AsyncFeeds
    pipelines: dict[int, Pipeline] = field(default_factory=dict)
    #: Every pipeline-family op, to the pipeline it belongs to.
    owner: dict[int, Pipeline] = field(default_factory=dict)
    regions: list[AgentRegion] = field(default_factory=list)
    #: The `agent_barrier`s inside the switches planned here.
    agent_barriers: set[int] = field(default_factory=set)
    #: The producers' tensor maps, whose slots the end of their switch gives back.
    tma: TmaMaps | None = None

    def plan(self, module: ModuleOp) -> None:
        for switch in [op for op in module.walk() if isinstance(op, tas.AgentSwitchOp)]:
            warps = agent_warps(switch)
            if len(warps) != 2 and TCGEN05_SWITCH_ATTR not in switch.attributes:
                raise not_supported(switch, "an agent_switch of other than two agents")
            for op in switch.walk():
                if isinstance(op, tas.AgentBarrierOp):
                    self.agent_barriers.add(id(op))
                origin = _pipeline_of(op)
                if origin is None:
                    continue
                pipeline = self.pipelines.get(id(origin))
                if pipeline is None:
                    pipeline = Pipeline(origin, WARP_SIZE * warps[0], WARP_SIZE * warps[1])
                    self.pipelines[id(origin)] = pipeline
                self.owner[id(op)] = pipeline
                if isinstance(op, tas.ConsumerReadOp):
                    self._consumer_rings(op, pipeline)
        for pipeline in self.pipelines.values():
            self.owner[id(pipeline.op)] = pipeline
        for op in module.walk():
            if isinstance(op, tas.ProducerWriteOp) and id(op) in self.owner:
                self._producer_rings(op, self.owner[id(op)])

    def _consumer_rings(self, read: tas.ConsumerReadOp, pipeline: Pipeline) -> None:
        """The rings of `pipeline`, one per value `read` hands a dot.  Where the
        pipeline serves several loops (`specialize_agents.specialize_loops`), each later
        loop's dots read the first's rings: the same operand, the same tile (type and
        layout) and the same engine, so the same placement in the slots."""
        shared = bool(pipeline.rings)
        if shared and len(read.values) != len(pipeline.rings):
            raise not_supported(read, "consumer_reads of one pipeline that read different stages")
        for position, value in enumerate(read.values):
            uses = list(value.uses)
            user = uses[0].operation if len(uses) == 1 else None
            if isinstance(user, ct.FToFOp) and ROUNDED_IN_SHARED_ATTR in user.attributes:
                # Rounded to tf32 in the stage first (`ring_rounding.py`).
                uses = list(user.result.uses)
            dot = uses[0].operation if len(uses) == 1 else None
            if isinstance(dot, tas.DotOp) and uses[0].index in _SCALE_OPERANDS and not shared:
                if COPIED_SCALES_ATTR not in dot.attributes:
                    raise not_supported(read, "a pipeline stage of scales the dot does not copy")
                pipeline.rings.append(self._scale_ring(dot, uses[0].index, value, pipeline))
                continue
            if not isinstance(dot, tas.DotOp) or uses[0].index not in (0, 1):
                raise not_supported(read, "a pipeline stage read by other than a dot operand")
            index = uses[0].index
            if shared:
                ring = pipeline.rings[position]
                if not _reads_alike(ring.dot, dot, index) or ring.index != index:
                    raise not_supported(
                        read, "consumer_reads of one pipeline whose dots read its slots differently"
                    )
                self.feeds.by_dot[(id(dot), index)] = ring
                continue
            ring = Ring(dot, index, in_flight=groups_in_flight(dot), stages=pipeline.stages)
            self.feeds.by_dot[(id(dot), ring.index)] = ring
            pipeline.rings.append(ring)
            pipeline.in_flight = max(pipeline.in_flight, ring.in_flight)

    def _scale_ring(
        self, dot: tas.DotOp, operand: int, value: SSAValue, pipeline: Pipeline
    ) -> Ring:
        """The ring of a block-scaled dot's raw scale tile (`COPIED_SCALES_ATTR`, dot
        operand 3 for A's, 4 for B's; ring index 2, 3): its slot holds the tile's bytes
        row-major, which are `tcgen05.cp`'s source layout (`tcgen05_agents.copied_scale`),
        so the dot copies the slot itself (`tcgen05.copied_scale_slots`)."""
        t = value.type
        assert isinstance(t, TensorType)
        shape = tuple(t.get_shape())
        strides = [element_bits(t) // 8] * len(shape)
        for d in reversed(range(len(shape) - 1)):
            strides[d] = strides[d + 1] * shape[d + 1]
        index = operand - _SCALE_OPERANDS[0] + 2
        ring = Ring(dot, index, stages=pipeline.stages)
        ring.placement = SlotPlacement(shape, element_bits(t) // 8, tuple(strides))
        self.feeds.by_dot[(id(dot), index)] = ring
        return ring

    def _producer_rings(self, write: tas.ProducerWriteOp, pipeline: Pipeline) -> None:
        block = write.body.block
        last = block.last_op
        assert isinstance(last, tas.PipelineYieldOp)
        if len(last.values) != len(pipeline.rings):
            raise not_supported(write, "a producer_write whose payloads are not the stage's")
        for value, ring in zip(last.values, pipeline.rings, strict=True):
            load = value.owner
            if not isinstance(load, tas.AsyncTiledLoadOp):
                raise not_supported(write, "a stage written by other than asynchronous tiled loads")
            self.feeds.rings[id(load)] = ring
            pipeline.copies = pipeline.copies or not load.atom.info.is_tma

    def pipeline(self, op: Operation) -> Pipeline:
        found = self.owner.get(id(op))
        if found is None:
            raise not_supported(op, "a pipeline op outside the agents of its pipeline")
        return found

    def name_barriers(self) -> None:
        """Every CTA barrier inside an agent becomes the agent's named barrier."""
        for region in self.regions:
            seen: set[int] = set()
            todo = [region.entry]
            while todo:
                block = todo.pop()
                if id(block) in seen or block is region.merge:
                    continue
                seen.add(id(block))
                for op in list(block.ops):
                    if isinstance(op, nvvm.Barrier0Op):
                        _replace_barrier(op, region.barrier, region.threads)
                last = block.last_op
                if last is not None:
                    todo.extend(s for s in last.successors)


#: The operands of a block-scaled `nv_tileas.dot` that are its scales (A's, B's).
_SCALE_OPERANDS = (3, 4)


def _reads_alike(first: tas.DotOp, other: tas.DotOp, index: int) -> bool:
    """Whether `other` reads operand `index` from shared memory as `first` does (the
    ring's placement is `first`'s: the same operand tiles and instruction), with as many
    `wgmma` groups in flight."""
    return (
        first.operands[index].type == other.operands[index].type
        and first.a.type == other.a.type
        and first.b.type == other.b.type
        and first.atom == other.atom
        and groups_in_flight(first) == groups_in_flight(other)
    )


def _replace_barrier(op: nvvm.Barrier0Op, barrier: int, threads: int) -> None:
    block = op.parent_block()
    assert block is not None
    ids = [llvm.ConstantOp(IntegerAttr(v, i32), i32) for v in (barrier, threads)]
    named = nvvm.BarrierOp(ids[0].result, ids[1].result)
    for new in (*ids, named):
        new.location = op.location
        block.insert_op_before(new, op)
    op.detach()
    op.erase()


def _pipeline_of(op: Operation) -> tas.CreatePipelineOp | None:
    """The pipeline a pipeline-family op works on, through the tokens and iterators it
    takes (carried by loops)."""
    if isinstance(op, tas.CreatePipelineOp):
        return op
    if not isinstance(
        op,
        tas.CreateIteratorOp
        | tas.IncIterOp
        | tas.ProducerAcquireOp
        | tas.ProducerWriteOp
        | tas.ProducerCommitOp
        | tas.ConsumerWaitOp
        | tas.ConsumerReadOp
        | tas.ConsumerReleaseOp,
    ):
        return None
    value: SSAValue = op.operands[0]
    for _ in range(64):
        owner = value.owner
        if isinstance(owner, tas.CreatePipelineOp):
            return owner
        if isinstance(value, BlockArgument):
            loop = value.block.parent_op()
            if not isinstance(loop, scf.ForOp) or value.index == 0:
                return None
            value = loop.iter_args[value.index - 1]
        elif isinstance(owner, scf.ForOp):
            value = owner.iter_args[value.index]  # pyright: ignore[reportAttributeAccessIssue]
        elif isinstance(owner, Operation) and owner.operands:
            value = owner.operands[0]
        else:
            return None
    return None


def iterator_count(ctx: LoweringContext, op: Operation, value: SSAValue) -> SSAValue:
    """The register of `value`, an iterator or a token as `op` sees it: the stages it has
    passed (module doc), from which the stage and the phase parity follow."""
    (register,) = ctx.registers_of(op, value)
    return register


def _token(ctx: LoweringContext, rewriter: PatternRewriter, value: SSAValue, t: object) -> SSAValue:
    return ctx.pack(rewriter, [value], t)  # pyright: ignore[reportArgumentType]


class AgentPattern(TilePattern):
    """A pattern that reads what `Agents.plan` found (pipelines, rings, agent regions)."""

    def __init__(self, ctx: LoweringContext, agents: Agents):
        super().__init__(ctx)
        self.agents = agents


class LowerStageStorage(TilePattern):
    """The stage storage of a pipeline (`alloc_tensor` viewed in shared memory) has no
    registers: `create_pipeline` places the rings."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: tas.AllocTensorOp | tas.ViewOp, rewriter: PatternRewriter
    ) -> None:
        result = op.results[0]
        users = [u.operation for u in result.uses]
        if not users:
            return
        if isinstance(op, tas.AllocTensorOp):
            if not all(isinstance(u, tas.ViewOp) and _feeds_pipeline(u) for u in users):
                return
        elif not _feeds_pipeline(op):
            return
        rewriter.replace(op, UnrealizedConversionCastOp.get([], [result.type]))


def _feeds_pipeline(view: Operation) -> bool:
    uses = list(view.results[0].uses)
    return bool(uses) and all(isinstance(u.operation, tas.CreatePipelineOp) for u in uses)


class LowerCreatePipeline(AgentPattern):
    """`create_pipeline`: the rings of its payloads and its mbarriers, initialized before
    the agents start (module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.CreatePipelineOp, rewriter: PatternRewriter) -> None:
        pipeline = self.agents.pipeline(op)
        state = self.ctx.function_state(op)
        feeds = self.agents.feeds
        for ring in pipeline.rings:
            place = feeds.ring_placement(ring)
            ring.base = allocate_persistent(
                state,
                rewriter,
                pipeline.stages * place.operand_bytes(ring.index),
                alignment=place.alignment(ring.index),
            )
        pipeline.barriers = allocate_persistent(
            state, rewriter, 2 * pipeline.stages * MBARRIER_BYTES
        )
        b = self.builder(rewriter, op)
        first = cta_thread_zero(b, state)
        for stage in range(pipeline.stages):
            for address, count in (
                (pipeline.full(b, b.const(stage, i32)), pipeline.producer_threads),
                (pipeline.empty(b, b.const(stage, i32)), pipeline.consumer_threads),
            ):
                init_mbarrier(b, address, count, first)
        b.op(nvvm.Barrier0Op())
        zero = b.const(0, i32)
        rewriter.replace(
            op,
            [],
            [_token(self.ctx, rewriter, zero, r.type) for r in op.results],
        )


class LowerIterator(TilePattern):
    """`create_iterator`: stage 0 of round 0; `inc_iter`: one stage on."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: tas.CreateIteratorOp | tas.IncIterOp, rewriter: PatternRewriter
    ) -> None:
        b = self.builder(rewriter, op)
        if isinstance(op, tas.CreateIteratorOp):
            value = b.const(0, i32)
        else:
            value = b.add(iterator_count(self.ctx, op, op.iterator), b.const(1, i32))
        rewriter.replace(op, [], [_token(self.ctx, rewriter, value, op.result.type)])


def fit_to_register_pool(budgets: Sequence[int], warps: Sequence[int], start: int) -> list[int]:
    """The agents' `setmaxnreg` budgets (`budgets`, one per agent of `warps` warps; 0 or
    less: inherit) lowered where needed so that the CTA's register pool can grant them:
    every warp launches with the kernel's `.maxnreg` (`start`, allocated in granules of
    8), `setmaxnreg.dec` returns registers to the CTA's pool and `setmaxnreg.inc` blocks
    until the pool has enough (PTX ISA, *setmaxnreg*), so budgets that need more than
    the CTA launched with never finish: `gemm_bf16_two_warpgroups` hung on an H200 that
    way (producer 48, two consumers 232, 168 at launch; 65,536 registers wanted of
    64,512).  `tileas-specialize-agents` sizes budgets for a launch at one CTA per SM;
    an occupancy hint lowers `.maxnreg` below that (`kernel.py`), and then the raised
    budgets share what the others leave, in steps of 8 (at least `start`: no `.inc`)."""
    granted = allocated_registers(start)
    resolved = [granted if b <= 0 else b for b in budgets]
    pool = granted * sum(warps)
    if sum(b * w for b, w in zip(resolved, warps, strict=True)) <= pool:
        return list(budgets)
    kept = sum(b * w for b, w in zip(resolved, warps, strict=True) if b <= granted)
    raised = sum(w for b, w in zip(resolved, warps, strict=True) if b > granted)
    cap = max(granted, (pool - kept) // raised // 8 * 8)
    return [min(b, cap) if b > granted else b for b in budgets]


class LowerAgentSwitch(AgentPattern):
    """A branch on the thread id to each agent's blocks, which start with the agent's
    `setmaxnreg` and end at the code after the switch (module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.AgentSwitchOp, rewriter: PatternRewriter) -> None:
        if op.args:
            raise not_supported(op, "an agent_switch with operands")
        state = self.ctx.function_state(op)
        warps = agent_warps(op)
        start = register_cap(op)
        budgets = (
            list(op.budgets) if start is None else fit_to_register_pool(op.budgets, warps, start)
        )
        parent, merge, region = split_after(op)
        if self.agents.tma is not None:
            self.agents.tma.release(
                LLBuilder(rewriter, InsertPoint.at_start(merge)), state, rewriter, op
            )
        b = LLBuilder(rewriter, InsertPoint.at_end(parent))
        assert state.tid is not None
        blocks: list[Block] = []
        last = parent
        for index, (agent, budget) in enumerate(zip(op.agents, budgets, strict=True)):
            source = agent.block
            terminator = source.last_op
            assert isinstance(terminator, tas.PipelineYieldOp)
            block = Block()
            region.insert_block_after(block, last)
            last = block
            rewriter.erase(terminator)
            for moved in list(source.ops):
                moved.detach()
                block.add_op(moved)
            at = LLBuilder(rewriter, InsertPoint.at_start(block))
            if budget > 0 and start is not None and budget != start:
                kind = "dec" if budget < start else "inc"
                instruction(at, f"setmaxnreg.{kind}.sync.aligned.u32", budget, min_ptx_isa="8.0")
            block.add_op(llvm.BrOp(merge))
            blocks.append(block)
            self.agents.regions.append(
                AgentRegion(block, merge, 1 + index, WARP_SIZE * warps[index])
            )
        # The last agent (the consumer) takes the first warps (module doc), the others
        # the warps after it in order (`tcgen05_agents.py`: the producer, the MMA warp).
        order = [len(blocks) - 1, *range(len(blocks) - 1)]
        bound = 0
        for position, index in enumerate(order[:-1]):
            bound += WARP_SIZE * warps[index]
            mine = b.icmp("ult", state.tid, b.const(bound, i32), signed=False)
            otherwise = blocks[order[-1]]
            if position < len(order) - 2:
                otherwise = Block()
                region.insert_block_after(otherwise, parent)
            b.op(llvm.CondBrOp(mine, blocks[index], (), otherwise, ()))
            b = LLBuilder(rewriter, InsertPoint.at_end(otherwise))
        rewriter.erase(op)


class LowerProducer(AgentPattern):
    """`producer_acquire`, `producer_write`, `producer_commit` (module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: tas.ProducerAcquireOp | tas.ProducerWriteOp | tas.ProducerCommitOp,
        rewriter: PatternRewriter,
    ) -> None:
        pipeline = self.agents.pipeline(op)
        b = self.builder(rewriter, op)
        if isinstance(op, tas.ProducerAcquireOp):
            count = iterator_count(self.ctx, op, op.iterator)
            stage = pipeline.stage(b, count)
            parity = b.xor(pipeline.parity(b, count), b.const(1, i32))
            wait_parity(b, pipeline.empty(b, stage), parity)
            full = pipeline.full(b, stage)
            rewriter.replace(op, [], [_token(self.ctx, rewriter, full, op.result.type)])
        elif isinstance(op, tas.ProducerWriteOp):
            count = iterator_count(self.ctx, op, op.iterator)
            slots = pipeline.slots(b, count, self.agents.feeds)
            full = iterator_count(self.ctx, op, op.token)
            for ring, slot in zip(pipeline.rings, slots, strict=True):
                ring.write_slot = slot
                ring.write_barrier = full
            block = op.body.block
            last = block.last_op
            assert isinstance(last, tas.PipelineYieldOp)
            values = list(last.values)
            rewriter.erase(last)
            at: Operation = op
            for moved in list(block.ops):
                moved.detach()
                rewriter.insert(moved, InsertPoint.after(at))
                at = moved
            rewriter.replace(op, [], [op.token, *values])
        else:
            full = iterator_count(self.ctx, op, op.token)
            if pipeline.copies:
                arrive_after_copies(b, full)
            else:
                arrive(b, full)  # TMA boxes only: their bytes complete the phase
            rewriter.replace(op, [], [op.token])


class LowerConsumer(AgentPattern):
    """`consumer_wait`, `consumer_read`, `consumer_release` (module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: tas.ConsumerWaitOp | tas.ConsumerReadOp | tas.ConsumerReleaseOp,
        rewriter: PatternRewriter,
    ) -> None:
        pipeline = self.agents.pipeline(op)
        b = self.builder(rewriter, op)
        if isinstance(op, tas.ConsumerWaitOp):
            count = iterator_count(self.ctx, op, op.iterator)
            wait_parity(b, pipeline.full(b, pipeline.stage(b, count)), pipeline.parity(b, count))
            # No proxy fence here: the wait orders the producer's copies before the
            # consumer's `wgmma`s, which read the stage through the async proxy; bytes
            # `cp.async` wrote need no `fence.proxy.async` for that (CUTLASS's and
            # Triton's Hopper `cp.async` pipelines fence none; the simulator's rule,
            # `ptx_wgmma`), and the bytes of an edge tile's element path, which the
            # producer stores with `st.shared`, are fenced by the producer thread that
            # stored them before it arrives (`async_copy._copy`).  A fence per stage in
            # each consumer thread (`MEMBAR.ALL.CTA` + `FENCE.VIEW.ASYNC.S`) took 20 %
            # of the warps' stall samples of `gemm_bf16_two_warpgroups` on an H200
            # (ncu, 2026-11-27), the `WARPGROUP.ARRIVE` after it 12 % more.  An MMA
            # warp of `tcgen05` keeps its fence: not measured (no Blackwell GPU).
            if any(ring.dot.atom.info.engine == "tcgen05" for ring in pipeline.rings):
                b.op(nvvm.FenceProxyOp())
            rewriter.replace(op, [], [_token(self.ctx, rewriter, count, op.result.type)])
        elif isinstance(op, tas.ConsumerReadOp):
            count = iterator_count(self.ctx, op, op.iterator)
            slots = pipeline.slots(b, count, self.agents.feeds)
            for ring, slot in zip(pipeline.rings, slots, strict=True):
                ring.current = slot
            last = op.body.block.last_op
            assert last is not None
            rewriter.erase(last)
            # The dot reads the stage from its slots: no registers stand for the tiles.
            tiles = [UnrealizedConversionCastOp.get([], [v.type]) for v in op.values]
            for cast in tiles:
                b.op(cast)
            rewriter.replace(op, [], [op.token, *(c.results[0] for c in tiles)])
        else:
            count = iterator_count(self.ctx, op, op.token)
            g = pipeline.in_flight
            # The stage read `g` iterations ago (its wgmma group has retired), from
            # iteration `g` on.
            read = b.sub(count, b.const(g, i32)) if g else count
            arrive(b, pipeline.empty(b, pipeline.stage(b, read)), count, g)
            rewriter.replace(op, [], [op.token])


class LowerAgentBarrier(AgentPattern):
    """`agent_barrier`: a CTA barrier, which `Agents.name_barriers` then makes the agent's
    named barrier (`bar.sync 1 + a, 32 * W[a]`), as it does an exchange's."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.AgentBarrierOp, rewriter: PatternRewriter) -> None:
        if id(op) not in self.agents.agent_barriers:
            raise not_supported(op, "an agent_barrier outside the agents of this agent_switch")
        rewriter.replace(op, [nvvm.Barrier0Op()], [])


class FenceAfterDrain(AgentPattern):
    """An `async.wait` `tileas-specialize-agents` marked (a consumer loop's drain where
    the consumer runs several loops: `FENCE_AFTER_DRAIN_ATTR` says why): lowered as any
    drain (`LowerAsyncWait`), then a `membar.cta`."""

    def __init__(self, ctx: LoweringContext, agents: Agents):
        super().__init__(ctx, agents)
        self.drain = LowerAsyncWait(ctx, agents.feeds)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.AsyncWaitOp, rewriter: PatternRewriter) -> None:
        if FENCE_AFTER_DRAIN_ATTR not in op.attributes:
            return
        instruction(LLBuilder(rewriter, InsertPoint.after(op)), "membar.cta")
        self.drain.match_and_rewrite(op, rewriter)


def agent_patterns(ctx: LoweringContext, agents: Agents) -> list[TilePattern]:
    return [
        LowerAgentBarrier(ctx, agents),
        FenceAfterDrain(ctx, agents),
        LowerStageStorage(ctx),
        LowerCreatePipeline(ctx, agents),
        LowerIterator(ctx),
        LowerAgentSwitch(ctx, agents),
        LowerProducer(ctx, agents),
        LowerConsumer(ctx, agents),
    ]
