"""Blackwell's warp-specialized agents (`tileas-tcgen05-agents`, sm_100a): a producer
that copies operand tiles into a ring, an MMA warp whose elected thread issues the
`tcgen05.mma`s and commits each stage to its *empty* mbarrier, and epilogue warps that
store the initial accumulator to tensor memory, wait for the MMA warp's last commit and
read it back (docs/codegen.md, "Blackwell: warp-specialized agents").

No Blackwell GPU is at hand: `ptxas -arch=sm_100a` judges the PTX, the PTX simulator
runs it against numpy, and each handshake removed from the PTX fails there."""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, load_module
from tileir.testing import SimulationError, simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]
from cases._gemm import GemmCase  # noqa: E402  # pyright: ignore[reportMissingImports]

#: The corpus kernels whose K loop becomes the three agents on sm_100a: 128-row
#: accumulators kept in tensor memory, both operands on rings, one CTA an SM anyway
#: (shared memory, tensor memory).
AGENT_KERNELS = ("gemm_bf16_big_tile", "gemm_f16_wide_acc")
#: The kernel the deep-K case and the broken variants start from.
BASE = "gemm_bf16_big_tile"


@functools.cache
def _ptx(name: str, warp_specialize: bool = True) -> str:
    module = load_module(CORPUS / f"{name}.mlir")
    ptx = compile_module(module, "sm_100a", warp_specialize=warp_specialize).ptx
    assert ptx is not None
    return ptx


@pytest.mark.parametrize("name", AGENT_KERNELS)
def test_agents_match_numpy(name: str) -> None:
    ptx = _ptx(name)
    warps = 4 if name == BASE else 8
    # Epilogue warps first, then the producer's warpgroup, then the MMA warp.
    assert f".reqntid {(warps + 5) * 32}, 1, 1" in ptx
    assert ptx.count("setmaxnreg.dec.sync.aligned.u32") == 1
    # Commits go to the pipelines' mbarriers only: one per stage, one for D.
    assert ptx.count("tcgen05.commit") == 2
    # No CTA barrier between the copies and the MMAs, nor after the MMAs.
    assert ptx.count("bar.sync 0;") == 4  # tensor memory, two pipelines, dealloc
    run_ptxas(ptx, "sm_100a")
    _common.simulate_case(name, ptx, 0)


def test_one_agent_without_specialization() -> None:
    """`warp_specialize=False` keeps the loop in one agent (MMAs in flight, a CTA
    barrier before each iteration's MMAs)."""
    ptx = _ptx(BASE, warp_specialize=False)
    assert ".reqntid 128, 1, 1" in ptx and "setmaxnreg" not in ptx


def _deep_inputs() -> tuple[Any, dict[str, np.ndarray]]:
    """`gemm_bf16_big_tile` over 7 K steps, the last one ragged: the 3-stage ring wraps
    around twice, each refill after the commit of the MMAs that read the slot.  (The
    inputs are the corpus cases' `KernelInputs`, a module pyright does not resolve.)"""
    case = GemmCase((130, 72, 7 * 128 - 40), (128, 64, 128), ml_dtypes.bfloat16)
    inputs = case.make_inputs(np.random.default_rng(1))
    return inputs, case.reference(_common.copy_inputs(inputs))


def test_ring_wraps_around() -> None:
    inputs, expected = _deep_inputs()
    simulate(_ptx(BASE), inputs["grid"], _common.flatten_args(inputs))
    np.testing.assert_allclose(inputs["arrays"]["c"], expected["c"], rtol=1e-5, atol=1e-4)


def test_loop_that_does_not_run_stores_the_initial_accumulator() -> None:
    """With no K step the MMA warp commits nothing but the accumulator's release: the
    epilogue reads back the zeros it stored."""
    case = _common.load_case_module(BASE)
    inputs = case.make_inputs(np.random.default_rng(0))
    inputs["scalars"]["k_tiles"] = 0
    inputs["arrays"]["c"][...] = np.nan
    simulate(_ptx(BASE), inputs["grid"], _common.flatten_args(inputs))
    np.testing.assert_array_equal(inputs["arrays"]["c"], 0.0)


def _waits(ptx: str) -> list[re.Match[str]]:
    """The mbarrier waits of the agents (`agents.py`'s spin loops), in PTX order: the
    producer's on *empty*, the MMA warp's on the accumulator's *full* and on each
    stage's *full*, the epilogue's on the accumulator's *empty* before it stores the
    initial value (round 0, which passes) and after (the MMA warp's last commit)."""
    return list(
        re.finditer(
            r"\s*mbarrier\.try_wait\.parity\.shared::cta\.b64 t_done[^;]*;\s*@!t_done bra tileir_wait;",
            ptx,
        )
    )


def _without_wait(index: int) -> str:
    ptx = _ptx(BASE)
    waits = _waits(ptx)
    assert len(waits) == 5
    wait = waits[index]
    return ptx[: wait.start()] + ptx[wait.end() :]


@pytest.mark.parametrize(
    ("what", "index", "says"),
    [
        # The producer refills a slot without waiting for the commit of the MMAs that
        # read it.
        ("slot", 0, "a buffer refilled before its readers released it"),
        # The MMA warp reads a stage before its copies have landed.
        ("full", 2, "async-race"),
        # The epilogue reads D before the MMA warp's last commit.
        ("ready", 4, "before the tcgen05.commit's mbarrier phase completed"),
    ],
)
def test_broken_handshake_fails_in_the_simulator(what: str, index: int, says: str) -> None:
    inputs, _ = _deep_inputs()
    with pytest.raises(SimulationError, match=re.escape(says)):
        simulate(_without_wait(index), inputs["grid"], _common.flatten_args(inputs))
