"""`tileas-specialize-agents` on sm_90a: a `wgmma` K loop as a producer agent that
copies operand tiles into an mbarrier pipeline and a consumer agent that multiplies them
(docs/codegen.md, "Warp specialization").

The simulator runs the warp-specialized GEMMs of the corpus against numpy (ragged edges,
a consumer of two warpgroups, a pipeline that wraps around), and each deliberately broken
variant of the handshake fails: a consumer that does not wait for its stage, a producer
that does not wait for the stage to be released or waits for the wrong phase, a consumer
that never releases, a producer that counts its stages differently from the consumer.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import PassEvent, compile_module, load_module
from tileir.testing import SimulationError

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402

SEED = 20261126
#: Ten K steps through nine slots: the pipeline wraps around (once), ragged edges.
WRAPPING = "gemm_bf16_deep_k"


def _run(name: str, ptx: str) -> None:
    _common.simulate_case(name, ptx, SEED)


@pytest.mark.parametrize("name", ["gemm_f16", "batched_matmul_2d_f16"])
def test_specialized_gemm_matches_numpy(name: str) -> None:
    """(And gemm_bf16_deep_k, whose pipeline wraps: test_corpus_simulated.py.)"""
    ptx = compile_module(load_module(CORPUS / f"{name}.mlir"), "sm_90a").ptx
    assert ptx is not None
    # Two agents of one warpgroup: the producer gives up registers for the consumer.
    assert ".reqntid 256" in ptx and "setmaxnreg.dec.sync.aligned.u32 40;" in ptx
    assert "cp.async.mbarrier.arrive.shared::cta.b64" in ptx
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    # The one CTA-wide barrier is the pipeline's set-up, before the agents part; a
    # barrier inside the consumer (its epilogue's exchange) is its named barrier, which
    # does not wait for the producer's warps.
    assert ptx.count("bar.sync 0;") == 1 and "bar.sync 2, 128;" in ptx
    _run(name, ptx)


def test_two_consumer_warpgroups_share_one_producer() -> None:
    """A kernel of two warpgroups (128x128 tiles) is tileiras's shape: a consumer of 8
    warps fed by a producer of 4, 384 threads at 168 registers; the producer's tiles are
    laid out over its 4 warps, and the GEMM (ragged) still matches numpy.  The budgets fit
    the 384 x 168 registers the CTA launches with: 128 x (56 + 2 x 224) = 64,512 (with a
    producer of 48 and consumers of 232, 65,536, the consumers' `setmaxnreg.inc` waited
    forever on an H200)."""
    ptx = compile_module(load_module(CORPUS / "gemm_bf16_two_warpgroups.mlir"), "sm_90a").ptx
    assert ptx is not None
    assert ".reqntid 384, 1, 1" in ptx and ".maxnreg 168" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 56;" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 224;" in ptx
    assert ptx.count("bar.sync 0;") == 1 and "bar.sync 2, 256;" in ptx
    _run("gemm_bf16_two_warpgroups", ptx)


def _without_wait(ptx: str, n: int) -> str:
    """The `n`-th mbarrier wait (its `try_wait`, which also acquires, and its loop) gone."""
    waits = list(re.finditer(r"mbarrier\.try_wait\.parity[^\n]*\n\t@!t_done bra tileir_wait;", ptx))
    assert len(waits) > n
    return ptx[: waits[n].start()] + ptx[waits[n].end() :]


def _consumer_does_not_wait(ptx: str) -> str:
    return _without_wait(ptx, 1)


def _producer_does_not_wait(ptx: str) -> str:
    return _without_wait(ptx, 0)


def _producer_waits_for_the_wrong_phase(ptx: str) -> str:
    """The producer's parity without the flip that lets the first round pass."""
    return re.sub(
        r"xor\.b32 (%r\d+), (%r\d+), %r\d+;\n(?=(?:.*\n){0,8}\{\n\t\.reg \.pred t_done)",
        r"mov.b32 \1, \2;\n",
        ptx,
        count=1,
    )


def _consumer_never_releases(ptx: str) -> str:
    return re.sub(r"@t_some mbarrier\.arrive\.shared::cta\.b64 _, \[%r\d+\];", "", ptx)


def _producer_counts_one_stage_less(ptx: str) -> str:
    """The producer's stage is its count modulo N - 1 while the consumer's is modulo N
    (the first `rem.u32` by the pipeline's N slots)."""
    return re.sub(
        r"mov\.b32 (%r\d+), (\d+);\n\trem\.u32",
        lambda m: f"mov.b32 {m[1]}, {int(m[2]) - 1};\n\trem.u32",
        ptx,
        count=1,
    )


@pytest.mark.parametrize(
    "breakage",
    [
        _consumer_does_not_wait,
        _producer_does_not_wait,
        _producer_waits_for_the_wrong_phase,
        _consumer_never_releases,
        _producer_counts_one_stage_less,
    ],
    ids=[
        "missing-full-wait",
        "missing-empty-wait",
        "wrong-phase",
        "no-release",
        "stages-off-by-one",
    ],
)
def test_broken_handshakes_are_caught(breakage: Callable[[str], str]) -> None:
    ptx = compile_module(load_module(CORPUS / f"{WRAPPING}.mlir"), "sm_90a").ptx
    assert ptx is not None
    broken = breakage(ptx)
    assert broken != ptx
    with pytest.raises(SimulationError):
        _run(WRAPPING, broken)


def test_a_wide_accumulator_stays_in_one_agent_of_two_warpgroups() -> None:
    """A consumer of two warpgroups keeps 216 or 224 registers a thread: up to 128 of them
    accumulator (`gemm_bf16_two_warpgroups`, 128x128: 64; the held-out 128x256 GEMM and
    the halves of gemm_f16_wide_acc: 128, no spills) it is warp-specialized; more keeps
    the loop in one agent with its wgmma group in flight, and the remark says why."""
    from tileir.transforms.tileas.specialize_agents import (
        TWO_WARPGROUP_ACCUMULATOR_LIMIT,
        too_many_for_two_warpgroups,
    )

    assert too_many_for_two_warpgroups(TWO_WARPGROUP_ACCUMULATOR_LIMIT) is None
    why = too_many_for_two_warpgroups(192)
    assert why is not None and "192 registers a thread" in why
    ptx = compile_module(load_module(CORPUS / "gemm_bf16_two_warpgroups.mlir"), "sm_90a").ptx
    assert ptx is not None and "setmaxnreg.inc.sync.aligned.u32 224;" in ptx


def test_a_producer_of_many_copies_for_two_warpgroups_gets_more_registers() -> None:
    """Feeding two consumer warpgroups, a producer thread issuing more than 16 copies a
    stage gets 64 registers and the consumer 216 (the held-out t_matmul_f16_256x256x64,
    24 copies, spilled 56 bytes in its producer at 48); up to 16, 56 and 224."""
    from tileir.transforms.tileas.specialize_agents import (
        consumer_registers,
        producer_registers,
    )

    assert (producer_registers(8, 32768), consumer_registers(8, 32768)) == (56, 224)
    assert (producer_registers(8, 49152), consumer_registers(8, 49152)) == (64, 216)
    assert (producer_registers(4, 49152), consumer_registers(4, 49152)) == (72, 248)


#: Two K loops (split-dot-accumulators: one per 256x128 half of a 256x256 accumulator),
#: each half's store between or after them.
TWO_LOOPS = "gemm_f16_wide_acc"


def _two_loop_ptx(on_pass: Callable[[PassEvent], None] | None = None) -> str:
    ptx = compile_module(load_module(CORPUS / f"{TWO_LOOPS}.mlir"), "sm_90a", on_pass=on_pass).ptx
    assert ptx is not None
    return ptx


def test_agents_span_the_k_loops_of_a_kernel() -> None:
    """One pipeline serves both K loops: the producer copies the first loop's tiles, then
    the second's, the consumer multiplies them and stores each half, both counting the
    stages on from one loop to the next.  The barrier between the halves' stores is the
    consumer's (named barrier 2 of its 256 threads); the kernel (ragged: 200x48 by 48x296)
    matches numpy."""
    ptx = _two_loop_ptx()
    assert ".reqntid 384, 1, 1" in ptx and ".maxnreg 168" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 56;" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 224;" in ptx
    assert ptx.count("bar.sync 0;") == 1 and "bar.sync 2, 256;" in ptx
    # Each loop's copies arrive on the stage's full mbarrier; each consumer loop drains
    # its wgmma groups before its half's epilogue.
    assert ptx.count("cp.async.mbarrier.arrive.shared::cta.b64") == 2
    assert ptx.count("wgmma.wait_group.sync.aligned 0;") == 2
    # ptxas keeps both loops' wgmma groups in flight (no C7514: each drain is followed by
    # a fence, FENCE_AFTER_DRAIN_ATTR) and spills nothing.
    assert ptx.count("membar.cta;") == 2
    report = run_ptxas(ptx, "sm_90a")
    assert report.ok and set(report.spills.values()) == {0}
    assert "C7514" not in report.output
    _run(TWO_LOOPS, ptx)


def _restart_iterator(agent: int) -> Callable[[PassEvent], None]:
    """A hook that, right after `tileas-specialize-agents`, starts the iterator of agent
    `agent`'s second loop at 0 again (a fresh `create_iterator`), not where its first
    loop left it; the other agent keeps counting."""

    def hook(event: PassEvent) -> None:
        if event.name != "tileas-specialize-agents":
            return
        from xdsl.dialects import scf

        from tileir.dialects.nv_tileas import ops as tas

        (switch,) = [o for o in event.module.walk() if isinstance(o, tas.AgentSwitchOp)]
        block = switch.agents[agent].block
        first, second = [o for o in block.ops if isinstance(o, scf.ForOp)]
        (create,) = [o for o in block.ops if isinstance(o, tas.CreateIteratorOp)]
        fresh = tas.CreateIteratorOp(create.operands[0], create.result.type)
        block.insert_op_before(fresh, second)
        index = len(second.iter_args) - 1
        assert second.iter_args[index] is first.results[-1]
        second.operands[3 + index] = fresh.result

    return hook


def test_a_producer_iterator_restarted_between_loops_is_caught() -> None:
    """The producer's second loop counts its stages from 0 again while the consumer's
    goes on from where its first loop left them: the producer waits for stages the
    consumer releases in another order, and refills one the consumer is reading; the
    simulator names the deadlock or the race."""
    ptx = _two_loop_ptx(_restart_iterator(0))
    assert ptx != _two_loop_ptx()
    with pytest.raises(SimulationError, match=r"deadlock|race"):
        _run(TWO_LOOPS, ptx)


def test_a_consumer_iterator_restarted_between_loops_is_caught() -> None:
    """The consumer's second loop counts from 0 again: with two K steps a loop and four
    stages its waits pass on the phases the first loop's stages completed, so it reads
    the first loop's tiles (B's other half), ordered, no race: the result differs from
    numpy."""
    ptx = _two_loop_ptx(_restart_iterator(1))
    assert ptx != _two_loop_ptx()
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        _run(TWO_LOOPS, ptx)


@pytest.mark.parametrize("warps", [4, 8])
def test_agent_budgets_fit_the_registers_the_cta_launches_with(warps: int) -> None:
    """`setmaxnreg.inc` waits until the CTA's own pool has the registers (PTX ISA,
    *setmaxnreg*): the producer's and the consumer's budgets together never exceed what
    the CTA's warps launch with (`register_budget` of all its threads) for any stage size.
    Sized against the register file instead (2,048 a lane), two consumer warpgroups got
    232 beside a producer of 48 and hung on an H200 (2026-11-27)."""
    from tileir.targets import allocated_registers, register_budget
    from tileir.transforms.tileas.specialize_agents import (
        PRODUCER_WARPS,
        consumer_registers,
        producer_registers,
    )

    total = PRODUCER_WARPS + warps
    launch = allocated_registers(register_budget(total * 32))
    for stage_bytes in range(4096, 128 * 1024 + 1, 4096):
        producer = producer_registers(warps, stage_bytes)
        consumer = consumer_registers(warps, stage_bytes)
        assert PRODUCER_WARPS * producer + warps * consumer <= launch * total, stage_bytes
        assert consumer % 8 == 0 and producer % 8 == 0


def test_the_lowering_fits_raised_budgets_to_the_pool() -> None:
    """`fit_to_register_pool`: budgets within the pool pass unchanged; over it (a lower
    `.maxnreg`, from an occupancy hint) the raised budgets share what the others leave,
    in steps of 8, and never drop below the launch's (no `.inc` then)."""
    from tileir.conversions.tileas_to_llvm.agents import fit_to_register_pool

    assert fit_to_register_pool([48, 224], [4, 8], 168) == [48, 224]
    assert fit_to_register_pool([40, 232], [4, 8], 168) == [40, 232]  # 64,512 exactly
    assert fit_to_register_pool([48, 232], [4, 8], 168) == [48, 224]  # the H200 hang
    assert fit_to_register_pool([40, 248], [4, 4], 128) == [40, 216]  # 2 CTAs an SM
    assert fit_to_register_pool([40, -1, 152], [4, 1, 4], 152) == [40, -1, 152]
    assert fit_to_register_pool([200, 232], [4, 8], 168) == [168, 168]  # all raised: none can
