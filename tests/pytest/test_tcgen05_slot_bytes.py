"""sm_100a and sm_90a: the ring budget counts a `tcgen05` or `wgmma` ring slot as the
lowering lays it out (`ring_budget.ring_slot_bytes`, `laid_out_operand_bytes`): the
operand's core-matrix buffer with its core matrices padded apart against bank conflicts,
or swizzled where that conflicts no more (`core_matrices.padded_operand_buffers`, the
one function the lowering's `wgmma.operand_buffers` lays the slots out with), not the
dense tile: a padded 128x128 16-bit MN-major slot is 36,864 bytes, not 32,768 (a
swizzled K-major one is dense), and the swizzled buffers' alignment is counted
(`ring_budget.alignment_allowance`).  For a few corpus kernels every slot the
lowering allocates for a `tcgen05` or `wgmma` ring is one the budget counted, the shared
memory the budget counts for the whole kernel (transient uses, rings, operands staged
once, the persistent reserve) is at least what the PTX declares, and both fit the
kernel's per-CTA share (docs/codegen.md, "Blackwell" and "The ring budget counts what
the lowering declares").  On sm_90a the `wgmma` attention kernel also stages Q once and
takes P from registers; counted dense, its slots and Q fell short of its PTX by 32
bytes, the GEMM's by 8,256."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from xdsl.dialects import scf
from xdsl.ir import SSAValue

import tileir.transforms.tileas.pipeline_dot_operands as pdo
import tileir.transforms.tileas.ring_budget as rb
from tileir.compiler import compile_module, load_module
from tileir.conversions.tileas_to_llvm.async_copy import AsyncFeeds, Ring
from tileir.conversions.tileas_to_llvm.operand_placement import OperandPlacement, SlotPlacement
from tileir.dialects.nv_tileas import ops as tas

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

#: 128x128 f16 attention at `occupancy = 2` (K and V on one-slot rings within half an
#: SM), and a 128x128 GEMM whose MMAs stay in flight over a 3-stage ring, on sm_100a;
#: that GEMM and a `wgmma` flash attention (Q staged once) on sm_90a.
KERNELS = (
    ("attention_occupancy_f16", "sm_100a"),
    ("gemm_bf16_two_warpgroups", "sm_100a"),
    ("gemm_bf16_two_warpgroups", "sm_90a"),
    ("flash_attention_f16", "sm_90a"),
)


class _Recorder:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counted_slots: set[tuple[int, int]] = set()
        self.laid_out_slots: set[tuple[int, int]] = set()
        self.counted_total = 0
        self.share = 0
        self._trial: rb.RingBudget | None = None
        count_slot, assuming, plan = pdo.ring_slot_bytes, rb.RingBudget.assuming, pdo.plan_function
        placement = AsyncFeeds.ring_placement

        def counting_slot(load: tas.TiledLoadOp, dense: int) -> int:
            size = count_slot(load, dense)
            use = pdo.operand_use(load)
            if use is not None and isinstance(use.operation, tas.DotOp):
                self.counted_slots.add((use.index, size))
            return size

        def recording_trial(budget: rb.RingBudget, fed: set[SSAValue]) -> rb.RingBudget:
            self._trial = assuming(budget, fed)
            return self._trial

        def planning(
            loops: Sequence[scf.ForOp],
            stages: int,
            budget: rb.RingBudget,
            specialize: bool,
            specialized_stages: int = 0,
        ) -> list[pdo.LoopPlan]:
            plans = plan(loops, stages, budget, specialize, specialized_stages)
            trial = self._trial
            assert trial is not None
            fed = {v for p in plans for v in p.fed}
            self.counted_total = (
                rb.transient_bound(trial.fn, fed)
                + trial.placed
                + trial.scoped
                + rb.staged_once_bound(trial.fn)
                + rb.PERSISTENT_RESERVE
            )
            self.share = rb.kernel_shared_budget(trial.fn, trial.arch)
            return plans

        def laying_out(feeds: AsyncFeeds, ring: Ring) -> OperandPlacement | SlotPlacement:
            place = placement(feeds, ring)
            if ring.dot.atom.info.engine in ("tcgen05", "wgmma") and not ring.read_from_slot:
                self.laid_out_slots.add((ring.index, place.operand_bytes(ring.index)))
            return place

        monkeypatch.setattr(pdo, "ring_slot_bytes", counting_slot)
        monkeypatch.setattr(rb.RingBudget, "assuming", recording_trial)
        monkeypatch.setattr(pdo, "plan_function", planning)
        monkeypatch.setattr(AsyncFeeds, "ring_placement", laying_out)


@pytest.mark.parametrize(("name", "arch"), KERNELS)
def test_budget_counts_the_slots_the_lowering_lays_out(
    name: str, arch: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _Recorder(monkeypatch)
    ptx = compile_module(load_module(CORPUS / f"{name}.mlir"), arch).ptx
    assert ptx is not None
    # Every slot of a tcgen05 or wgmma ring as large as the budget counted it (padded: more
    # than the dense tile of a 16-bit 128-row operand).
    assert seen.laid_out_slots and seen.laid_out_slots <= seen.counted_slots, (
        seen.laid_out_slots,
        seen.counted_slots,
    )
    declared = sum(int(n) for n in re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]", ptx))
    assert declared <= seen.counted_total <= seen.share
