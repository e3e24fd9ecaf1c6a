"""`wgmma` groups in flight with rings of only the slots the loop reads
(`nv_tileas.refill_after_wait`, `tileas-pipeline-dot-operands`' `sized_plan`): where the
deeper form's extra slot does not fit, iteration `i` waits for its slot, issues its
`wgmma` group, `wgmma.wait_group 1` retires group `i - 1`, a CTA barrier makes that so
in every warp, and only then the body refills the slot of group `i - 1` with the tile
`stages - 1` ahead (docs/codegen.md, "`wgmma` groups in flight").

gemm_f16 is compiled with the loop's rings given room for exactly 2 and 3 slots (and
gemm_tf32, rounded in its slots, with 2), run in the PTX simulator against numpy; the
variant whose refill is issued before the `wgmma.wait_group 1` must be reported as a
race (a write to a slot that an unfinished `wgmma` reads).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tileir.compiler import PassEvent, compile_module, load_module
from tileir.dialects.nv_tileas import ops as tas
from tileir.testing import SimulationError
from tileir.transforms.tileas import pipeline_dot_operands as pdo
from tileir.transforms.tileas.ring_budget import RingBudget

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 20261127

#: The end of the product in the loop body: its group committed, the one before it
#: retired in this warp and, past the CTA barrier, in every warp.
RETIRE = "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 1;\n\tbar.sync 0;\n"


def _ptx_with_room(
    monkeypatch: pytest.MonkeyPatch, slots: int, stop_after: str = "ptx", name: str = "gemm_f16"
) -> tuple[str, list[str]]:
    """`name`'s PTX (one agent; none before `stop_after`) where its loop's rings have room
    for exactly `slots` slots, and the remarks of its dots."""

    class Room(RingBudget):
        per_stage = 0

        def for_loop(self, fed: object, scoped: bool = False) -> int:
            return slots * self.per_stage

    sized = pdo._sized  # pyright: ignore[reportPrivateUsage]

    def with_room(
        candidates: pdo.LoopPlan, num_stages: int, budget: RingBudget, shallow: int | None = None
    ) -> pdo.LoopPlan:
        room = Room(budget.fn, budget.arch)
        room.per_stage = candidates.per_stage
        return sized(candidates, num_stages, room, shallow)

    monkeypatch.setattr(pdo, "_sized", with_room)
    feeds: list[str] = []

    def record(event: PassEvent) -> None:
        if event.name == pdo.PipelineDotOperandsPass.name:
            dots = [op for op in event.module.walk() if isinstance(op, tas.DotOp)]
            feeds.extend("; ".join(pdo.feed_clauses(dot) or []) for dot in dots)

    module = load_module(CORPUS / f"{name}.mlir")
    result = compile_module(
        module, "sm_90a", warp_specialize=False, on_pass=record, stop_after=stop_after
    )
    return result.ptx or "", feeds


def test_deeper_form_where_its_extra_slot_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Room for the option's 3 stages and the slot of the group in flight: `N + 1` slots,
    the refill two iterations back (no barrier after the product)."""
    _, feeds = _ptx_with_room(monkeypatch, 4, stop_after="tileas")
    assert feeds and all(
        "3-stage ring of cp.async copies under mbarriers, 1 wgmma group in flight;" in feed
        for feed in feeds
    )


@pytest.mark.parametrize(
    ("name", "slots"),
    [
        ("gemm_f16", 2),
        ("gemm_f16", 3),
        # f32 through the ring, rounded to tf32 in the slot: a CTA barrier before the
        # product too (the rounding's stores).
        ("gemm_tf32", 2),
    ],
)
def test_slots_only_ring_matches_numpy(
    monkeypatch: pytest.MonkeyPatch, name: str, slots: int
) -> None:
    ptx, feeds = _ptx_with_room(monkeypatch, slots, name=name)
    assert feeds and all(
        f"operands through a {slots}-stage ring of cp.async copies under mbarriers, 1 wgmma "
        f"group in flight ({slots} slots, {pdo.REFILLED_AFTER_WAIT})" in feed
        for feed in feeds
    )
    # Two rings (A and B) of `slots` full mbarriers each.
    assert len(re.findall(r"mbarrier\.init\.shared::cta\.b64", ptx)) == 2 * slots
    assert RETIRE in ptx
    _common.simulate_case(name, ptx, SEED)


@pytest.mark.parametrize("slots", [2, 3])
def test_refill_before_the_wait_is_a_race(monkeypatch: pytest.MonkeyPatch, slots: int) -> None:
    """The body's copies issued before `wgmma.wait_group 1` and its barrier (moved to the
    end of the body): they write the slot that group `i - 1` may still read."""
    ptx, _ = _ptx_with_room(monkeypatch, slots)
    start = ptx.index(RETIRE)
    back = re.compile(r"\tbra\.uni \$L__\w+;\n").search(ptx, start)
    assert back is not None
    broken = (
        ptx[:start]
        + "\twgmma.commit_group.sync.aligned;\n"
        + ptx[start + len(RETIRE) : back.start()]
        + "\twgmma.wait_group.sync.aligned 1;\n\tbar.sync 0;\n"
        + ptx[back.start() :]
    )
    # (A copy is an `async-race`; where the copies of a ragged edge store through
    # registers, the store comes first.)
    with pytest.raises(SimulationError, match=r"that an unfinished wgmma\.mma_async reads"):
        _common.simulate_case("gemm_f16", broken, SEED)
