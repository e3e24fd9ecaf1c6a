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
stay synchronous, on sm_100a they still ride, with the PTX unchanged.

Each `tcgen05` dot writes its converted operands into a buffer that its MMAs read
asynchronously.  The links of a chain on a resident accumulator take two buffers in
turn (`pipeline_dot_operands.tcgen05_turn_chain`, `TURN_BY_DOT_ATTR`): link `j` writes
buffer `j mod 2` once the commit of the link before the one before has arrived on that
buffer's mbarrier, so a link's MMAs run while the next link converts.  In the simulator
the kernel matches numpy, with buffers in turn and with links that wait for their own
commits (where the buffers would cost the rings a stage); without the buffer's wait, or
without a link's commit wait, the next store into the buffer is reported as a race."""

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

#: The wait of every thread, before a link writes its buffer in turn, for the commit of
#: the link that read it last (`tcgen05._wait_slot`).
BUFFER_WAIT = re.compile(
    r"\$L_tc_slot:\s*mbarrier\.try_wait\.parity\.shared::cta\.b64 %tc_ok[^;]*;"
    r"\s*@!%tc_ok bra\.uni \$L_tc_slot;"
)

#: The simulator's report of a store into an operand an MMA still reads.
RACE = r"a store to shared memory that a tcgen05\.mma still reads"

#: What the remark says of A where its accumulator keeps its loads synchronous.
KEPT_SYNCHRONOUS = "its loads do not ride rings read back from their slots"


def _compile(arch: str) -> tuple[str, str]:
    result = compile_module(
        load_module(CORPUS / f"{KERNEL}.mlir"), arch, warp_specialize=False, keep_stages=True
    )
    assert result.ptx is not None
    return result.ptx, result.stages["tileas"]


@cache
def _default() -> tuple[str, str]:
    return _compile("sm_100a")


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
    assert ptx == _default()[0]
    _, tileas = _compile("sm_90a")
    assert f"{KEPT_SYNCHRONOUS}: the loop's accumulators take 32 registers a thread" in tileas
    assert "nv_tileas.read_from_slot" not in tileas


def test_chain_in_flight_matches_numpy_and_an_early_buffer_write_is_a_race() -> None:
    """The two links of a K tile take two buffers in turn: link `j` writes buffer `j
    mod 2` once the commit of link `j - 2` has arrived, and nobody waits for a link's
    own MMAs until the read after the loop."""
    ptx, tileas = _default()
    assert tileas.count(pipeline_dot_operands.TCGEN05_TURNS) == 2
    assert "%tc_done" not in ptx  # no wait for a link's own commit
    waits = list(BUFFER_WAIT.finditer(ptx))
    assert len(waits) == 2
    _common.simulate_case(KERNEL, ptx, SEED)
    # The second link without its wait for the first iteration's second link: its
    # store into buffer 1 comes while those MMAs may still read it.
    broken = ptx[: waits[1].start()] + ptx[waits[1].end() :]
    with pytest.raises(SimulationError, match=RACE):
        _common.simulate_case(KERNEL, broken, SEED)


def test_links_that_wait_match_numpy_and_an_early_overwrite_is_a_race(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the buffers in turn would cost the rings a stage (NVIDIA's 256x256
    kernels), each link waits for its own commit before the next writes its buffer."""
    monkeypatch.setattr(pipeline_dot_operands, "tcgen05_turn_chain", lambda plan: [])
    ptx, _ = _compile("sm_100a")
    _common.simulate_case(KERNEL, ptx, SEED)
    # The first link without its commit wait: the store of the next converted operand
    # into the buffer comes while that link's MMAs may still read it.
    waits = list(COMMIT_WAIT.finditer(ptx))
    assert len(waits) == 2
    broken = ptx[: waits[0].start()] + ptx[waits[0].end() :]
    with pytest.raises(SimulationError, match=RACE):
        _common.simulate_case(KERNEL, broken, SEED)
