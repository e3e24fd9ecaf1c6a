"""Attention's K/V loop on sm_90a with P·V in flight across the next iteration's scores
and softmax (`tileas-overlap-attention-dots`, `dot.py`, `wgmma.py`, `async_copy.py`),
run in the PTX simulator against numpy.

In the rotated loop each iteration issues S_{j+1} = Q·K_{j+1}, then O_j = P_j·V_j + Os_j,
waits with `wgmma.wait_group 1` (S_{j+1} done, P·V running), computes the softmax of
S_{j+1}, then `wgmma.wait_group 0` and a CTA barrier before O_j is rescaled and the rings
are refilled; a prologue computes S_0 and its softmax, an epilogue the last P·V.  The
corpus attention kernels must still match numpy; a loop that waits one group short
before the rescale (O read while its group runs) and one that refills V's slot before
P·V is done with it must not.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from pathlib import Path

import pytest
from xdsl.dialects import scf
from xdsl.rewriter import InsertPoint, Rewriter

from tileir import pipelines
from tileir.compiler import compile_module, load_module
from tileir.dialects.nv_tileas import ops as tas
from tileir.testing import SimulationError
from tileir.transforms.tileas import overlap_attention_dots as overlap
from tileir.transforms.tileas import pipeline_dot_operands as pipeline

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402

SEED = 20261126
WAIT_1 = "wgmma.wait_group.sync.aligned 1;"
WAIT_0 = "wgmma.wait_group.sync.aligned 0;"
#: The rotated loop's `wgmma` commits and waits, in order (docs/codegen.md, "P·V in
#: flight"): a group may stay in flight at each of the first two waits.
ROTATED_WAITS = [
    "wgmma.commit_group.sync.aligned;",
    WAIT_1,
    "wgmma.commit_group.sync.aligned;",
    WAIT_1,
    WAIT_0,
]


def _compiled(name: str) -> tuple[str, str]:
    compiled = compile_module(load_module(CORPUS / f"{name}.mlir"), "sm_90a", keep_stages=True)
    assert compiled.ptx is not None
    return compiled.ptx, compiled.stages["tileas"]


def _tileas(name: str) -> str:
    """The kernel's nv_tileas stage only (no lowering: quicker)."""
    compiled = compile_module(
        load_module(CORPUS / f"{name}.mlir"), "sm_90a", stop_after="tileas", keep_stages=True
    )
    return compiled.stages["tileas"]


def _loop_waits(ptx: str) -> list[str]:
    """The `wgmma` commits and waits of the first rotated loop's body, in order."""
    body = ptx[ptx.index(WAIT_1) - 2000 :]
    body = body[: body.index("bar.sync 0;", body.index(WAIT_0))]
    return re.findall(r"wgmma\.(?:commit_group|wait_group)\S* ?\d*;", body)


@pytest.mark.parametrize("name", ["flash_attention_f16", "flash_attention_causal_bf16"])
def test_pv_in_flight_matches_numpy(name: str) -> None:
    ptx, tileas = _compiled(name)
    loops = 2 if "causal" in name else 1
    # The remark says so; both products of each loop leave their group pending.
    assert tileas.count(overlap.OVERLAPPED) == loops
    assert tileas.count(f"{overlap.WGMMA_PENDING_ATTR} = 1") == 2 * loops
    assert tileas.count(f"{overlap.WGMMA_PENDING_ATTR} = 0") == loops
    # S_{j+1} committed, P_j·V_j committed, wait until one is pending, then all.
    assert _loop_waits(ptx) == ROTATED_WAITS
    # The second product's A is in registers (no P through shared memory).
    assert re.search(r"wgmma\.mma_async\S* \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}", ptx)
    _common.simulate_case(name, ptx, SEED)


def _one_block(monkeypatch: pytest.MonkeyPatch, **changes: int) -> None:
    """`flash_attention_f16`'s simulated case on one block of 64 queries of one head
    (one CTA: quicker), with `changes` to its other fields."""
    case = _common.load_case_module("flash_attention_f16")
    small = dataclasses.replace(case.CASE, shape=(1, 1, case.TILE_M), **changes)
    monkeypatch.setattr(case, "make_inputs", small.make_inputs)
    monkeypatch.setattr(case, "reference", small.reference)


@pytest.mark.parametrize("tiles", [1, 2])
def test_short_trip_counts_match_numpy(tiles: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """One and two K/V tiles: the rotated loop runs no iteration or one, and the
    prologue and the epilogue do the rest (one block of queries)."""
    _one_block(monkeypatch, kv_tiles=tiles)
    ptx, _ = _compiled("flash_attention_f16")
    _common.simulate_case("flash_attention_f16", ptx, SEED)


def test_two_stage_rings_match_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rings of two stages (the loop carries one future of K and one of V and loads the
    next): the prologue loads K_1, the loop refills K_j's and V_{j-1}'s slots after its
    barrier."""
    two_stages = functools.partial(pipeline.PipelineDotOperandsPass, num_stages=2)
    monkeypatch.setattr(pipelines, "PipelineDotOperandsPass", two_stages)
    _one_block(monkeypatch)
    ptx, tileas = _compiled("flash_attention_f16")
    assert "operands through a 2-stage ring" in tileas
    assert tileas.count(overlap.OVERLAPPED) == 1
    assert _loop_waits(ptx) == ROTATED_WAITS
    _common.simulate_case("flash_attention_f16", ptx, SEED)


def test_rescale_before_the_product_is_done_is_caught() -> None:
    """`wgmma.wait_group 1` where the loop needs 0: the rescale reads O_j while P_j·V_j
    still writes it."""
    ptx, _ = _compiled("flash_attention_f16")
    first = ptx.index(WAIT_1)
    second = ptx.index(WAIT_1, first + 1)
    at = ptx.index(WAIT_0, second)
    broken = ptx[:at] + WAIT_1 + ptx[at + len(WAIT_0) :]
    with pytest.raises(
        SimulationError, match=r"accumulator of a wgmma.mma_async that has not completed"
    ):
        _common.simulate_case("flash_attention_f16", broken, SEED)


def test_v_slot_refilled_while_read_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The body's copy of V_{j+2} moved before the wait for P_j·V_j: it overwrites the
    slot the product in flight still reads."""
    rotate = overlap.rotate

    def refill_early(parts: overlap.AttentionLoop, key: int) -> scf.ForOp:
        loop = rotate(parts, key)
        body = loop.body.block
        barrier = next(op for op in body.ops if isinstance(op, tas.CtaBarrierOp))
        v_load = [op for op in body.ops if isinstance(op, tas.AsyncTiledLoadOp)][-1]
        after = body.get_operation_index(barrier)
        for op in overlap.body_slice([v_load], body):
            if body.get_operation_index(op) > after:
                op.detach()
                Rewriter.insert_op(op, InsertPoint.before(barrier))
        return loop

    monkeypatch.setattr(overlap, "rotate", refill_early)
    ptx, _ = _compiled("flash_attention_f16")
    with pytest.raises(
        SimulationError,
        match=r"async-race: an asynchronous copy into shared memory that an unfinished wgmma",
    ):
        _common.simulate_case("flash_attention_f16", ptx, SEED)


def test_registers_that_do_not_allow_it_say_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where both accumulators, P in flight, the tiles the softmax takes from before the
    loop and the reserve exceed the kernel's register budget, the loop keeps only the
    next scores in flight behind P·V, or where that does not fit either stays as it was,
    and the second product's remark says why: with a reserve of 174 the unmasked loop
    of the causal kernel fits (32 + 32 + 16 + 1 + 174 = 255), the masked one, which also
    keeps the mask's indices, does not (32 + 32 + 16 + 34 + 174); with the scores ahead
    only it does (32 + 32 + 16 + 2 x 34 + 26 + 8 for its copies masked element by element
    = 182), and the kernel so rotated matches numpy; with a reserve of 140 for that too
    it does not (296)."""
    monkeypatch.setattr(overlap, "OVERLAP_RESERVE", 174)
    case = _common.load_case_module("flash_attention_causal_bf16")
    one_head = dataclasses.replace(case.CASE, shape=(1, 1, 3 * case.TILE))
    monkeypatch.setattr(case, "make_inputs", one_head.make_inputs)
    monkeypatch.setattr(case, "reference", one_head.reference)
    ptx, tileas = _compiled("flash_attention_causal_bf16")
    assert tileas.count(overlap.OVERLAPPED) == 1
    assert tileas.count(f"{overlap.SCORES_AHEAD} (288 registers a thread needed, 255 allowed)") == 1
    assert tileas.count(f"{overlap.WGMMA_PENDING_ATTR} = 0") == 2
    # Both loops: P·V (S_{j+1}) committed, wait until one is pending, twice.
    assert ptx.count(WAIT_1) == 4
    _common.simulate_case("flash_attention_causal_bf16", ptx, SEED)

    monkeypatch.setattr(overlap, "SCORES_AHEAD_RESERVE", 140)
    tileas = _tileas("flash_attention_causal_bf16")
    assert tileas.count(f"{overlap.WGMMA_PENDING_ATTR} = 0") == 1
    assert re.search(
        r"wgmma waited for each iteration, not across the next softmax "
        r"\(288 registers a thread needed, 255 allowed\) nor the next first product "
        r"\(296 registers a thread needed, 255 allowed\)",
        tileas,
    )


def test_a_causal_mask_counts_its_indices(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registers of the tiles the softmax takes from before the loop: the unmasked
    loop's scale (1), the masked loop's 32 column indices, row indices and scale."""
    counted: list[int] = []
    live_in = overlap.live_in_registers

    def recording(parts: overlap.AttentionLoop) -> int:
        counted.append(live_in(parts))
        return counted[-1]

    monkeypatch.setattr(overlap, "live_in_registers", recording)
    monkeypatch.setattr(overlap, "rotate", lambda parts, key: parts.loop)
    _tileas("flash_attention_causal_bf16")
    assert counted == [1, 34]


def _p_through_shared_memory(monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """`flash_attention_f16` with P written to shared memory for its product
    (`tileas-pipeline-dot-operands` not marking it `a_in_registers`)."""
    monkeypatch.setattr(pipeline, "mark_register_a", lambda loop, arch: None)
    return _compiled("flash_attention_f16")


def test_p_through_shared_memory_in_flight_matches_numpy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """P·V reads P from the exchanges' arena while the softmax of the next tile runs:
    the softmax exchanges nothing there, and the next P is written only after the
    iteration's `wgmma.wait_group 0` and barrier.  A store into P's buffer while P_j·V_j
    runs (what an exchange of the softmax would do there) is caught."""
    _one_block(monkeypatch)
    ptx, tileas = _p_through_shared_memory(monkeypatch)
    assert overlap.A_IN_REGISTERS_ATTR not in tileas
    assert tileas.count(overlap.OVERLAPPED) == 1
    assert _loop_waits(ptx) == ROTATED_WAITS
    _common.simulate_case("flash_attention_f16", ptx, SEED)

    first = ptx.index(WAIT_1)
    at = ptx.index("\n", ptx.index(WAIT_1, first + 1)) + 1
    arena = re.search(r"mov\.u32 (%r\d+), tileir_xchg_0;", ptx)
    assert arena is not None
    # Each thread its own word at the start of the arena, where P is.
    store = (
        "mov.u32 %hc, %tid.x;\nshl.b32 %hc, %hc, 2;\n"
        f"add.u32 %hc, %hc, {arena.group(1)};\nst.shared.u32 [%hc], %hc;\n"
    )
    broken = ptx[:at] + store + ptx[at:]
    declared = broken.index(".reg .b32")
    broken = broken[:declared] + ".reg .b32 %hc;\n" + broken[declared:]
    with pytest.raises(
        SimulationError, match=r"store to shared memory that an unfinished wgmma.mma_async reads"
    ):
        _common.simulate_case("flash_attention_f16", broken, SEED)


def test_p_beside_exchanges_gets_a_buffer_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A softmax that exchanges values through shared memory (every op counted as one
    here) would overwrite P in the arena while its product runs: P gets a buffer of its
    own (the loop's product and its copy after the loop), where the kernel's shared
    memory allows it; where it does not, the loop stays as it was and says why."""
    monkeypatch.setattr(overlap, "op_bound", lambda op, fed, warps: 1)
    monkeypatch.setattr(pipeline, "mark_register_a", lambda loop, arch: None)
    tileas = _tileas("flash_attention_f16")
    assert tileas.count(f"{overlap.OVERLAPPED} ({overlap.OWN_BUFFER})") == 1
    assert tileas.count(overlap.A_OWN_BUFFER_ATTR) == 2

    # Too little shared memory for it: the softmax waits for P·V, with only the next
    # scores in flight behind it, and P stays in the arena.
    monkeypatch.setattr(overlap, "kernel_shared_budget", lambda fn, arch: 40000)
    tileas = _tileas("flash_attention_f16")
    assert overlap.A_OWN_BUFFER_ATTR not in tileas
    why = (
        r"P goes through shared memory, which the softmax's exchanges reuse, and a buffer "
        r"of its own \(\d+ bytes\) does not fit: \d+ bytes of shared memory needed, 40000 "
        r"allowed"
    )
    assert re.search(rf"{overlap.SCORES_AHEAD} \({why}\)", tileas)

    monkeypatch.setattr(overlap, "SCORES_AHEAD_RESERVE", 1000)
    tileas = _tileas("flash_attention_f16")
    assert overlap.WGMMA_PENDING_ATTR not in tileas
    assert re.search(rf"not across the next softmax \({why}\) nor the next first", tileas)


def test_p_in_a_buffer_of_its_own_matches_numpy() -> None:
    """`attention_wide_kv_bf16` (64x256 P over two warpgroups, written to shared memory
    for P·V; the softmax's row maximum and sum cross the warpgroups through the
    arena): P_j in its own buffer while the softmax of S_{j+1} exchanges, equal to
    numpy (one block, two K/V tiles: the loop runs once)."""
    ptx, tileas = _compiled("attention_wide_kv_bf16")
    assert tileas.count(f"{overlap.OVERLAPPED} ({overlap.OWN_BUFFER})") == 1
    assert _loop_waits(ptx) == ROTATED_WAITS
    _common.simulate_case("attention_wide_kv_bf16", ptx, SEED)


def test_p_in_the_exchanges_arena_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same loop rotated with P left in the arena: the softmax's exchange across
    warpgroups overwrites P_j while P_j·V_j reads it."""
    monkeypatch.setattr(overlap, "why_not_own_buffer", lambda parts, arch: None)
    ptx, tileas = _compiled("attention_wide_kv_bf16")
    assert overlap.A_OWN_BUFFER_ATTR not in tileas
    assert _loop_waits(ptx) == ROTATED_WAITS
    with pytest.raises(
        SimulationError, match=r"store to shared memory that an unfinished wgmma.mma_async reads"
    ):
        _common.simulate_case("attention_wide_kv_bf16", ptx, SEED)
