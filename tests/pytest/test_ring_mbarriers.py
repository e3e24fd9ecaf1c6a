"""Rings that stay in one agent wait on mbarriers (sm_90a; `async_copy.py`,
`nv_tileas.ring_mbarriers`): each slot has a *full* mbarrier that every thread arrives
on after its copies into the slot (`cp.async.mbarrier.arrive` + `mbarrier.arrive`), and
the `future_wait` is `mbarrier.try_wait.parity` with the round's parity, carried in bit
0 of the future; no `cp.async.wait_group`.  Run in the PTX simulator against numpy,
and each deliberately broken variant must fail: a wait on the wrong parity, a missing
`cp.async.mbarrier.arrive`, an expected count one short, a ring one slot short.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tileir.compiler import compile_module, load_module
from tileir.conversions.tileas_to_llvm import async_copy
from tileir.testing import SimulationError

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 20261126

#: `mbarrier.try_wait.parity` of a ring slot: the barrier and the parity operands.
WAIT = re.compile(r"mbarrier\.try_wait\.parity\.shared::cta\.b64 t_done, \[(%r\d+)\], (%r\d+);")


def _ptx(name: str, arch: str = "sm_90a") -> str:
    ptx = compile_module(load_module(CORPUS / f"{name}.mlir"), arch, warp_specialize=False).ptx
    assert ptx is not None
    return ptx


def _loop(ptx: str) -> str:
    """The K loop's body: from its first wait to the loop's exit waits."""
    start = WAIT.search(ptx)
    assert start is not None
    end = ptx.index("mbarrier.inval")
    return ptx[start.start() : end]


@pytest.mark.parametrize(
    "name",
    [
        "gemm_f16",  # wgmma, a group in flight: N + 1 slots
        "gemm_bf16_ragged",  # mma.sync on sm_90a, ragged M, N and K
        "flash_attention_f16",  # K and V rings beside a staged Q and P
        "gemm_f16_wide_acc",  # one K loop per half of the accumulator
    ],
)
def test_ring_under_mbarriers_matches_numpy(name: str) -> None:
    ptx = _ptx(name)
    assert "cp.async.wait_group" not in ptx and "cp.async.wait_all" not in ptx
    assert "cp.async.mbarrier.arrive.shared::cta.b64" in ptx
    assert WAIT.search(ptx) is not None
    _common.simulate_case(name, ptx, SEED)


def test_mma_sync_ring_needs_no_barrier_before_the_dot() -> None:
    """An `mma.sync` dot whose operands both come from rings under mbarriers: each
    thread's wait acquires every thread's copies, so no CTA barrier stands between the
    waits and the `ldmatrix` reads; the one after the dot still orders the reads
    before the slot's refill."""
    body = _loop(_ptx("gemm_bf16_ragged"))
    first_mma = body.index("mma.sync")
    assert "bar.sync" not in body[:first_mma]
    assert "bar.sync 0;" in body[first_mma:]


@pytest.mark.parametrize(("name", "mbarriers"), [("gemm_bf16_ragged", True), ("gemm_tf32", False)])
def test_sm_100a_rings_of_mma_sync_dots_wait_on_mbarriers(name: str, mbarriers: bool) -> None:
    """sm_100a: an `mma.sync` dot's rings wait on mbarriers as on sm_90a; a `tcgen05`
    dot's keep `cp.async.wait_group` (their refills wait for the MMAs' commits)."""
    ptx = _ptx(name, "sm_100a")
    assert ("cp.async.mbarrier.arrive.shared::cta.b64" in ptx) == mbarriers
    assert ("cp.async.wait_group" in ptx) != mbarriers
    if mbarriers:
        _common.simulate_case(name, ptx, SEED)


def _wrong_parity(ptx: str) -> str:
    """The loop's first wait with parity 1 in round 0: a fresh mbarrier's phase of that
    parity counts as complete, so the wait passes before the copies land."""
    return WAIT.sub(
        lambda m: m.group(0).replace(f"{m.group(2)};", "1;"),
        ptx,
        count=1,
    )


def _missing_arrive(ptx: str) -> str:
    """The copies' `cp.async.mbarrier.arrive` dropped, the plain arrivals kept: each
    phase completes before the copies land.  (Dropping one alone can be harmless: a
    later `cp.async.mbarrier.arrive` of the thread covers all its earlier copies, and
    the dot waits on both operands' mbarriers.)"""
    return re.sub(r"\n\s*cp\.async\.mbarrier\.arrive\.shared::cta\.b64 \[%r\d+\];", "", ptx)


def _count_one_over(ptx: str) -> str:
    """Every mbarrier expecting one thread more than the CTA has: no phase completes.
    (One fewer is not caught: the simulator runs the CTA's threads in step, so every
    thread's `cp.async.mbarrier.arrive` has raised the count before the plain arrivals
    complete the phase, which then waits for all the copies anyway.)"""
    return re.sub(r"(mbarrier\.init\.shared::cta\.b64 \[%r\d+\]), 128;", r"\1, 129;", ptx)


@pytest.mark.parametrize(
    "breakage",
    [_wrong_parity, _missing_arrive, _count_one_over],
    ids=["wrong-parity", "missing-arrive", "count-one-over"],
)
@pytest.mark.parametrize("name", ["gemm_f16", "gemm_bf16_ragged"])
def test_broken_mbarrier_rings_are_caught(name: str, breakage: Callable[[str], str]) -> None:
    ptx = _ptx(name)
    broken = breakage(ptx)
    assert broken != ptx
    with pytest.raises(SimulationError):
        _common.simulate_case(name, broken, SEED)


def test_ring_one_slot_short_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ring lowered with one slot fewer than its stages load ahead (an `mma.sync`
    ring: `N - 1` slots): the last stage before the loop fills a slot that has no
    mbarrier of its own."""
    slots = async_copy.Ring.slots
    assert isinstance(slots, property) and slots.fget is not None
    full = slots.fget
    monkeypatch.setattr(async_copy.Ring, "slots", property(lambda ring: full(ring) - 1))
    ptx = _ptx("gemm_bf16_ragged")
    with pytest.raises(SimulationError):
        _common.simulate_case("gemm_bf16_ragged", ptx, SEED)
