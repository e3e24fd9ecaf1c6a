"""sm_100a: dot operands computed from raw tiles that ride `cp.async` rings (the
block-scaled GEMM's fp8 tiles and scales, `nv_tileas.read_from_slot`) where the loop's
accumulator lives in tensor memory.

`tileas-pipeline-dot-operands` keeps such loads synchronous where the loop's
accumulators take more than `SLOT_READ_ACCUMULATOR_LIMIT` registers a thread (the tile
read back and the conversion come on top of them).  A `tcgen05` accumulator that
`tileas-tmem-accumulators` keeps in tensor memory (`tcgen05_plan.accumulator_in_tmem`)
takes no register, so it no longer counts: NVIDIA's 256x256 block-scaled kernels (a
512-column accumulator, 256 registers a thread if it were in registers) now feed their
fp8 tiles through rings.  Here the corpus kernel stands in for them under a limit below
its 32 accumulator registers: on sm_90a (`wgmma`, accumulator in registers) its operands
stay synchronous, on sm_100a they still ride, with the PTX unchanged.  The `tcgen05` dot
writes the converted operand into its own buffer, which the MMAs read asynchronously:
the simulator matches numpy, and without the wait for the commit's mbarrier the next K
group's store into that buffer is reported as a race."""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

import pytest

import tileir.transforms.tileas.pipeline_dot_operands as pipeline_dot_operands
from tileir.compiler import compile_module, load_module
from tileir.testing import SimulationError

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

KERNEL = "block_scaled_mm_e4m3"
SEED = 20261127

#: The wait of every thread for a synchronous `tcgen05` dot's commit (its mbarrier phase).
COMMIT_WAIT = re.compile(
    r"\s*mbarrier\.try_wait\.parity\.shared::cta\.b64 %tc_done[^;]*;\s*@!%tc_done[^;]*;"
)

#: What the remark says of A where its accumulator keeps its loads synchronous.
KEPT_SYNCHRONOUS = "its loads do not ride rings read back from their slots"


def _compile(arch: str) -> tuple[str, str]:
    result = compile_module(
        load_module(CORPUS / f"{KERNEL}.mlir"), arch, warp_specialize=False, keep_stages=True
    )
    assert result.ptx is not None
    return result.ptx, result.stages["tileas"]


@cache
def _ptx() -> str:
    return _compile("sm_100a")[0]


def test_tensor_memory_accumulator_takes_no_registers_from_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pipeline_dot_operands, "SLOT_READ_ACCUMULATOR_LIMIT", 16)
    ptx, tileas = _compile("sm_100a")
    assert "A: computed from the slot after the wait (the raw 64x64xf8E4M3FN load rides" in tileas
    assert KEPT_SYNCHRONOUS not in tileas
    # A's scales (two a row, in rows of any stride) are too narrow for a cp.async.
    assert (
        "its 64x2xf8E8M0FNU load stays synchronous: no cp.async copies its 16-bit accesses "
        "(its addresses are contiguous for only 2 bytes)" in tileas
    )
    assert ptx == _ptx()
    _, tileas = _compile("sm_90a")
    assert f"{KEPT_SYNCHRONOUS}: the loop's accumulators take 32 registers a thread" in tileas
    assert "nv_tileas.read_from_slot" not in tileas


def test_converted_operands_match_numpy_and_an_early_overwrite_is_a_race() -> None:
    ptx = _ptx()
    assert "cp.async.cg.shared.global" in ptx or "cp.async.ca.shared.global" in ptx
    _common.simulate_case(KERNEL, ptx, SEED)
    # The first K group's dot without its commit wait: the store of the next converted
    # operand into the buffer comes while that dot's MMAs may still read it.
    waits = list(COMMIT_WAIT.finditer(ptx))
    assert len(waits) == 2
    broken = ptx[: waits[0].start()] + ptx[waits[0].end() :]
    with pytest.raises(
        SimulationError, match=r"a store to shared memory that a tcgen05\.mma still"
    ):
        _common.simulate_case(KERNEL, broken, SEED)
