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

from tileir.compiler import compile_module, load_module
from tileir.testing import SimulationError

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402

SEED = 20261126
#: Ten K steps through four stages: the pipeline wraps around, ragged edges.
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
    laid out over its 4 warps, and the GEMM (ragged) still matches numpy."""
    ptx = compile_module(load_module(CORPUS / "gemm_bf16_two_warpgroups.mlir"), "sm_90a").ptx
    assert ptx is not None
    assert ".reqntid 384, 1, 1" in ptx and ".maxnreg 168" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 48;" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 232;" in ptx
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
    """The producer's stage is its count modulo 3 while the consumer's is modulo 4."""
    return re.sub(r"mov\.b32 (%r\d+), 4;\n\trem\.u32", r"mov.b32 \1, 3;\n\trem.u32", ptx, count=1)


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
    """A consumer of two warpgroups keeps 232 registers a thread: up to 64 of them
    accumulator (`gemm_bf16_two_warpgroups`, 128x128) it is warp-specialized; more (the
    held-out 128x256 GEMM, 128 a thread, spilled 288 bytes so) keeps the loop in one
    agent with its wgmma group in flight, and the remark says why."""
    from tileir.transforms.tileas.specialize_agents import (
        TWO_WARPGROUP_ACCUMULATOR_LIMIT,
        too_many_for_two_warpgroups,
    )

    assert too_many_for_two_warpgroups(TWO_WARPGROUP_ACCUMULATOR_LIMIT) is None
    why = too_many_for_two_warpgroups(128)
    assert why is not None and "128 registers a thread" in why
    ptx = compile_module(load_module(CORPUS / "gemm_bf16_two_warpgroups.mlir"), "sm_90a").ptx
    assert ptx is not None and "setmaxnreg.inc.sync.aligned.u32 232;" in ptx
