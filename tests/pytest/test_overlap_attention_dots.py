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
import re
import sys
from pathlib import Path

import pytest
from xdsl.dialects import scf
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.compiler import compile_module, load_module
from tileir.dialects.nv_tileas import ops as tas
from tileir.testing import SimulationError
from tileir.transforms.tileas import overlap_attention_dots as overlap

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402

SEED = 20261126
WAIT_1 = "wgmma.wait_group.sync.aligned 1;"
WAIT_0 = "wgmma.wait_group.sync.aligned 0;"


def _compiled(name: str) -> tuple[str, str]:
    compiled = compile_module(load_module(CORPUS / f"{name}.mlir"), "sm_90a", keep_stages=True)
    assert compiled.ptx is not None
    return compiled.ptx, compiled.stages["tileas"]


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
    assert _loop_waits(ptx) == [
        "wgmma.commit_group.sync.aligned;",
        WAIT_1,
        "wgmma.commit_group.sync.aligned;",
        WAIT_1,
        WAIT_0,
    ]
    # The second product's A is in registers (no P through shared memory).
    assert re.search(r"wgmma\.mma_async\S* \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}", ptx)
    _common.simulate_case(name, ptx, SEED)


@pytest.mark.parametrize("tiles", [1, 2])
def test_short_trip_counts_match_numpy(tiles: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """One and two K/V tiles: the rotated loop runs no iteration or one, and the
    prologue and the epilogue do the rest."""
    case = _common.load_case_module("flash_attention_f16")
    short = dataclasses.replace(case.CASE, kv_tiles=tiles)
    monkeypatch.setattr(case, "make_inputs", short.make_inputs)
    monkeypatch.setattr(case, "reference", short.reference)
    ptx, _ = _compiled("flash_attention_f16")
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
    """Where both accumulators, two P tiles and the reserve exceed the kernel's register
    budget, the loop stays as it was and the second product's remark says why."""
    monkeypatch.setattr(overlap, "OVERLAP_RESERVE", 1000)
    ptx, tileas = _compiled("flash_attention_f16")
    assert overlap.WGMMA_PENDING_ATTR not in tileas
    assert WAIT_1 not in ptx
    assert re.search(
        r"wgmma waited for each iteration, not across the next softmax "
        r"\(1096 registers a thread needed, 255 allowed\)",
        tileas,
    )
