"""The handshakes of Blackwell's warp-specialized agents (`tileas-tcgen05-agents`,
sm_100a): a producer, an MMA warp and the epilogue around two pipelines, the operand
ring and the tensor-memory accumulator (docs/codegen.md, "Blackwell: warp-specialized
agents").  Everything else is the sm_90a lowering's (`agents.py`: the agent switch, the
pipelines' rings and mbarriers, the producer's copies, iterators); this file lowers the
handshakes whose other side is `tcgen05` work, before `agents.py`'s patterns see them.
PTX ISA sections: 9.7.16.6.3 "tcgen05.commit", 9.7.16.6.4 "tcgen05.fence", the
mbarrier instructions.

* The MMA warp's `consumer_wait` (a ring stage, or the accumulator's): the *full*
  mbarrier's phase, then `fence.proxy.async` (the MMAs read the stage through the async
  proxy) and `tcgen05.fence::after_thread_sync` (the epilogue's `tcgen05.st` of the
  initial accumulator is ordered before the MMAs).
* The MMA warp's `consumer_release`: the elected thread's `tcgen05.commit` to the
  stage's *empty* mbarrier, which arrives once every MMA it issued so far has completed
  (their reads of the stage, their writes of D): *empty* expects that one arrival.  No
  thread waits for MMAs in the loop; the producer refills a slot as soon as the MMAs
  that read it are done.
* The epilogue's `producer_commit` of the accumulator: `tcgen05.fence::before_thread_sync`
  (its `tcgen05.st`, waited for with `tcgen05.wait::st`, before the arrival), then
  `mbarrier.arrive` on *full* (every epilogue thread); its `producer_acquire`: the
  *empty* phase of the round before, then `tcgen05.fence::after_thread_sync` before
  `tcgen05.ld` reads D.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.agents import (
    Agents,
    LowerConsumer,
    LowerProducer,
    iterator_count,
)
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import LoweringContext
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.conversions.tileas_to_llvm.tcgen05 import (
    TCGEN05_PTX_ISA,
    agent_issuer,
    commit,
    tensor_memory,
)
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import WARP_SIZE
from tileir.transforms.tileas.specialize_agents import agent_warps
from tileir.transforms.tileas.tcgen05_agents import TCGEN05_SWITCH_ATTR

#: The agents of a `tcgen05` switch, in order.
PRODUCER, MMA, EPILOGUE = range(3)


@dataclass
class Tcgen05Agents:
    """Which pipeline ops of the `tcgen05` agent switches run in the MMA warp and which
    in the epilogue, and the arrivals each pipeline's mbarriers expect (set on the
    `agents.py` plan)."""

    agents: Agents
    mma: set[int] = field(default_factory=set[int])
    epilogue: set[int] = field(default_factory=set[int])

    def plan(self, module: ModuleOp) -> None:
        for switch in [op for op in module.walk() if isinstance(op, tas.AgentSwitchOp)]:
            if TCGEN05_SWITCH_ATTR not in switch.attributes:
                continue
            warps = agent_warps(switch)
            for index, region in enumerate(switch.agents):
                for op in region.walk():
                    pipeline = self.agents.owner.get(id(op))
                    if pipeline is None:
                        continue
                    if isinstance(op, tas.ProducerCommitOp):
                        pipeline.producer_threads = WARP_SIZE * warps[index]
                    if isinstance(op, tas.ConsumerReleaseOp):
                        # One `tcgen05.commit` releases the stage.
                        pipeline.consumer_threads = 1
                    if index == MMA:
                        self.mma.add(id(op))
                    elif index == EPILOGUE:
                        self.epilogue.add(id(op))


def _fence(b: LLBuilder, which: str) -> None:
    asm = ptx.PtxAsm()
    asm.instr(f"tcgen05.fence::{which}")
    b.asm(asm, min_ptx_isa=TCGEN05_PTX_ISA)


class Tcgen05AgentPattern(TilePattern):
    def __init__(self, ctx: LoweringContext, plan: Tcgen05Agents):
        super().__init__(ctx)
        self.plan = plan


class LowerMmaHandshake(Tcgen05AgentPattern):
    """The MMA warp's `consumer_wait` (`agents.py`'s, then `tcgen05.fence`) and
    `consumer_release` (module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: tas.ConsumerWaitOp | tas.ConsumerReleaseOp, rewriter: PatternRewriter
    ) -> None:
        if id(op) not in self.plan.mma:
            return
        if isinstance(op, tas.ConsumerWaitOp):
            after = op.next_op
            assert after is not None
            LowerConsumer(self.ctx, self.plan.agents).match_and_rewrite(op, rewriter)
            _fence(LLBuilder(rewriter, InsertPoint.before(after)), "after_thread_sync")
            return
        pipeline = self.plan.agents.pipeline(op)
        b = self.builder(rewriter, op)
        count = iterator_count(self.ctx, op, op.token)
        state = self.ctx.function_state(op)
        memory = tensor_memory(state, rewriter)
        empty = pipeline.empty(b, pipeline.stage(b, count))
        asm = ptx.PtxAsm()
        commit(asm, asm.input(empty, "r"), asm.input(agent_issuer(state, rewriter, memory)))
        b.asm(asm, min_ptx_isa=TCGEN05_PTX_ISA)
        rewriter.replace(op, [], [op.token])


class LowerEpilogueHandshake(Tcgen05AgentPattern):
    """The epilogue's `producer_acquire` and `producer_commit` of the accumulator:
    `agents.py`'s, with `tcgen05.fence::after_thread_sync` after the acquire and
    `tcgen05.fence::before_thread_sync` before the commit (module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: tas.ProducerAcquireOp | tas.ProducerCommitOp, rewriter: PatternRewriter
    ) -> None:
        if id(op) not in self.plan.epilogue:
            return
        after = op.next_op
        assert after is not None
        if isinstance(op, tas.ProducerCommitOp):
            _fence(self.builder(rewriter, op), "before_thread_sync")
        LowerProducer(self.ctx, self.plan.agents).match_and_rewrite(op, rewriter)
        if isinstance(op, tas.ProducerAcquireOp):
            _fence(LLBuilder(rewriter, InsertPoint.before(after)), "after_thread_sync")


def tcgen05_agent_patterns(ctx: LoweringContext, plan: Tcgen05Agents) -> list[TilePattern]:
    """The patterns, to be tried before `agents.agent_patterns`."""
    return [LowerMmaHandshake(ctx, plan), LowerEpilogueHandshake(ctx, plan)]
