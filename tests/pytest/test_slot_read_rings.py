"""Rings of raw tiles read back from their slots (`nv_tileas.read_from_slot`): a dot
operand computed from loads (the block-scaled GEMM's fp8 tiles dequantized with their
scales, an fp8 B the dot stores transposed) gets no ring of its own, so the loads' raw
bytes ride rings of `cp.async` copies instead, and each wait reads its thread's elements
of the slot into registers before the conversion (`tileas-pipeline-dot-operands`
`why_not_slot_read`, `async_copy.LowerFutureWait`).  Run in the PTX simulator against
numpy (ragged M and N; exact), on sm_90a and sm_100a under mbarriers and on sm_80 under
`cp.async.wait_group`; a wait on the wrong parity must fail.  On sm_90a a dot whose
operand is so computed (or a chain of them on one accumulator) leaves one `wgmma` group
in flight, the operand written into one of two buffers in turn
(`dot.LowerDot._buffer_in_turn`); one buffer for every iteration must fail as a race.
The links of a chain share their two buffers dot by dot (`turn_chain`); a buffer written
again before the `wgmma.wait_group` that retires its reader must fail as a race.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

import pytest
from xdsl.dialects.builtin import i32
from xdsl.ir import SSAValue

from tileir.compiler import compile_module, load_module
from tileir.conversions.tileas_to_llvm.async_copy import AsyncFeeds
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.testing import SimulationError

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 20261126

#: `mbarrier.try_wait.parity` of a ring slot: the barrier and the parity operands.
WAIT = re.compile(r"mbarrier\.try_wait\.parity\.shared::cta\.b64 t_done, \[(%r\d+)\], (%r\d+);")


@cache
def _compiled(name: str, arch: str) -> tuple[str, str]:
    """The PTX of corpus kernel `name` and its nv_tileas text."""
    result = compile_module(
        load_module(CORPUS / f"{name}.mlir"), arch, warp_specialize=False, keep_stages=True
    )
    assert result.ptx is not None
    return result.ptx, result.stages["tileas"]


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80", "sm_100a"])
def test_block_scaled_operands_from_slots_match_numpy(arch: str) -> None:
    ptx, tileas = _compiled("block_scaled_mm_e4m3", arch)
    # The fp8 tiles and B's scales ride rings; A's scales (2-byte accesses) do not.
    assert tileas.count("nv_tileas.async.future_wait") == 3
    assert "A: computed from the slot after the wait (the raw 64x64xf8E4M3FN load rides" in tileas
    assert "B: computed from the slot after the wait (the raw 64x64xf8E4M3FN, " in tileas
    if arch == "sm_90a":
        # The two dots of a K tile chain one accumulator: one group in flight, each
        # dot's, the chain's operands written into two buffers in turn dot by dot
        # (`turn_chain`).
        assert tileas.count("1 wgmma group in flight, each dot a group of its own") == 2
        assert tileas.count("A: written into two buffers that the chain's 2 dots share") == 2
        assert ptx.count("wgmma.wait_group.sync.aligned 1;") == 2
    if arch == "sm_80":
        assert "cp.async.wait_group" in ptx and "mbarrier" not in ptx
    else:
        assert WAIT.search(ptx) is not None and "cp.async.wait_group" not in ptx
        # The fp8 tile is read back in whole words, where the conversion needs them
        # (`llvm-sink-tmem-loads`), not at the wait.
        after = ptx[WAIT.search(ptx).end() :]  # pyright: ignore[reportOptionalMemberAccess]
        assert re.search(r"ld\.shared\.v4\.b32", after)
        assert not re.search(r"ld\.shared\.v4\.b32", after[:600])
    _common.simulate_case("block_scaled_mm_e4m3", ptx, SEED)


#: The remark of an fp8 B read back from its slot, with a group in flight (sm_90a).
IN_FLIGHT = (
    "B: computed from the slot after the wait (the raw {} load rides a ring)",
    "B: written into two buffers in turn",
    "1 wgmma group in flight",
)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
def test_transposed_fp8_b_from_its_slot_matches_numpy(arch: str) -> None:
    """An fp8 B loaded N-contiguous, which `wgmma` (`tcgen05`) reads K-contiguous: the
    raw tile rides a ring and the dot stores it transposed from the registers the wait
    read (on sm_100a its MMAs then wait each iteration: `tmem_accumulators.ring_fed`)."""
    ptx, tileas = _compiled("gemm_e4m3_scaled", arch)
    assert "B: computed from the slot after the wait" in tileas
    if arch == "sm_90a":
        raw, *clauses = IN_FLIGHT
        assert all(c in tileas for c in (raw.format("64x64xf8E4M3FN"), *clauses))
        assert "wgmma.wait_group.sync.aligned 1;" in ptx
    _common.simulate_case("gemm_e4m3_scaled", ptx, SEED)


def test_transposed_e5m2_b_in_flight_matches_numpy() -> None:
    """A batched e5m2 matmul (3 K tiles: the first buffer written again in the third
    iteration) with its B stored transposed, one `wgmma` group in flight."""
    ptx, tileas = _compiled("batched_matmul_e5m2", "sm_90a")
    raw, *clauses = IN_FLIGHT
    assert all(c in tileas for c in (raw.format("32x64xf8E5M2"), *clauses))
    _common.simulate_case("batched_matmul_e5m2", ptx, SEED)


def test_one_buffer_for_a_computed_operand_in_flight_is_a_race(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every iteration writing the first buffer overwrites the operand the previous
    iteration's group, still in flight, reads."""

    def first(self: AsyncFeeds, b: LLBuilder, dot: object) -> SSAValue:
        return b.const(0, i32)

    monkeypatch.setattr(AsyncFeeds, "iteration_parity", first)
    result = compile_module(
        load_module(CORPUS / "gemm_e4m3_scaled.mlir"), "sm_90a", warp_specialize=False
    )
    assert result.ptx is not None
    with pytest.raises(SimulationError, match=r"unfinished wgmma\.mma_async"):
        _common.simulate_case("gemm_e4m3_scaled", result.ptx, SEED)


def test_wrong_parity_of_a_slot_read_is_caught() -> None:
    """The first wait of the loop with parity 1 in round 0 passes before the copies
    land, and the conversion reads a slot not yet written."""
    ptx, _ = _compiled("block_scaled_mm_e4m3", "sm_90a")
    broken = WAIT.sub(lambda m: m.group(0).replace(f"{m.group(2)};", "1;"), ptx, count=1)
    assert broken != ptx
    with pytest.raises((SimulationError, AssertionError)):
        _common.simulate_case("block_scaled_mm_e4m3", broken, SEED)


def test_chain_buffer_written_before_its_reader_retires_is_a_race() -> None:
    """The links of a chain share two buffers in turn (`turn_by_dot`): link `j` writes
    the buffer link `j - 2` read, whose group the `wgmma.wait_group 1` after link `j - 1`
    retired.  Waiting for all but two groups leaves that reader in flight while the
    buffer is written again."""
    ptx, _ = _compiled("block_scaled_mm_e4m3", "sm_90a")
    broken = ptx.replace("wgmma.wait_group.sync.aligned 1;", "wgmma.wait_group.sync.aligned 2;")
    assert broken != ptx
    with pytest.raises(SimulationError, match=r"unfinished wgmma\.mma_async"):
        _common.simulate_case("block_scaled_mm_e4m3", broken, SEED)
