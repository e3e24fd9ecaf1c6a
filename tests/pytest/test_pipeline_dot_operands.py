"""The K loop of a GEMM as a ring of `cp.async` copies (`tileas-pipeline-dot-operands`,
`convert-tileas-to-llvm`'s `async_copy.py`), run in the PTX simulator.

The pipelined corpus GEMMs match numpy (ragged M, N and K included, and with more
stages than the default), and the simulator rejects each deliberately broken variant of
their PTX (sm_80's `cp.async.wait_group` rings): a wait that leaves the tile being read
in flight, a wait that is missing, the CTA barrier between the copies and the tensor
cores removed.  A pipeline the simulator
could not tell from a broken one would prove nothing.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tileir.backend.ptx.target import module_to_ptx
from tileir.compiler import compile_module, load_module
from tileir.dialects.nv_tileas import ops as tas
from tileir.pipelines import stage_passes
from tileir.registry import make_context
from tileir.testing import ASYNC_RACE, SimulationError
from tileir.transforms.tileas.pipeline_dot_operands import (
    READ_FROM_SLOT_ATTR,
    PipelineDotOperandsPass,
)

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402

SEED = 20261126
PIPELINED = ("gemm_f16", "gemm_bf16_ragged", "batched_matmul_f16")
ARCHS = ("sm_80", "sm_90a")


def _ptx(name: str, arch: str, warp_specialize: bool = True) -> str:
    ptx = compile_module(
        load_module(CORPUS / f"{name}.mlir"), arch, warp_specialize=warp_specialize
    ).ptx
    assert ptx is not None
    return ptx


def _run(name: str, ptx: str) -> None:
    """Simulate `ptx` on the case's inputs and compare with its numpy reference."""
    _common.simulate_case(name, ptx, SEED)


@pytest.mark.parametrize(
    ("name", "arch"),
    [
        *((name, arch) for name in PIPELINED for arch in ARCHS),
        # wgmma dots with 64 accumulator registers a thread: the ring frees registers.
        ("gemm_bf16_big_tile", "sm_90a"),
        ("gemm_e4m3_scaled", "sm_90a"),
        # Operands reshaped from 1 x M x K (sm_80: two stages do not fit 24 KiB).
        ("batched_matmul_2d_f16", "sm_100a"),
        # A 1 x M x K fp8 tile whose rank's layout was fitted to another shape: its own
        # layout, so that the reshape is a renaming and A goes on the ring (B, N-major,
        # is transposed for the fp8 wgmma, which takes K-major operands only).
        ("batched_matmul_e5m2", "sm_90a"),
    ],
)
def test_pipelined_gemm_matches_numpy(name: str, arch: str) -> None:
    ptx = _ptx(name, arch)
    assert "cp.async.cg.shared.global" in ptx
    _run(name, ptx)


def test_wgmma_leaves_one_group_in_flight() -> None:
    """sm_90a: the ring keeps a slot for the `wgmma` still running, each iteration waits
    only for the group before it, and the loop's exit waits for the last one before the
    epilogue reads the accumulator."""
    ptx = _ptx("gemm_f16", "sm_90a")
    loop = ptx[ptx.index("wgmma.fence") : ptx.index("wgmma.wait_group.sync.aligned 0;")]
    assert loop.count("wgmma.wait_group.sync.aligned 1;") == 1
    # The accumulator stays in the loop's registers: no move touches it in flight.
    mma = re.search(r"wgmma\.mma_async\S* \{([^}]*)\}", loop)
    assert mma is not None
    accumulator = {r.strip() for r in mma.group(1).split(",")}
    moves = re.findall(r"mov\.b32 (%f\d+), (%f\d+);", loop)
    assert not any(src in accumulator or dst in accumulator for dst, src in moves)
    _run("gemm_f16", ptx)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
def test_two_warpgroups_share_the_ring(arch: str) -> None:
    """8 warps: on sm_90a two warpgroups of `wgmma` each keep a group in flight, and the
    slot refilled in an iteration must be free in both (the CTA barrier before the
    tensor cores orders every warp's `wgmma.wait_group` before the copy); ragged edges.
    (Without warp specialization, which gives sm_90a a producer agent instead:
    test_specialize_agents.py.)"""
    ptx = _ptx("gemm_bf16_two_warpgroups", arch, warp_specialize=False)
    assert ".reqntid 256" in ptx
    assert ("wgmma.wait_group.sync.aligned 1;" in ptx) == (arch == "sm_90a")
    _run("gemm_bf16_two_warpgroups", ptx)


def test_unit_dimension_reshape_of_a_load_feeds_a_ring() -> None:
    """A batched matmul's `1 x M x K -> M x K` reshape of each operand (a register
    renaming) no longer hides the load: the pointers and the mask are viewed in the
    dot's shape, the load becomes a ring, and the dot keeps a group in flight."""
    ptx = _ptx("batched_matmul_2d_f16", "sm_90a")
    assert "cp.async.cg.shared.global" in ptx
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    _run("batched_matmul_2d_f16", ptx)


def _wgmma_group_too_many_in_flight(ptx: str) -> str:
    return ptx.replace("wgmma.wait_group.sync.aligned 1;", "wgmma.wait_group.sync.aligned 3;")


def _wgmma_not_drained(ptx: str) -> str:
    return ptx.replace("wgmma.wait_group.sync.aligned 0;", "")


@pytest.mark.parametrize(
    "breakage",
    [_wgmma_group_too_many_in_flight, _wgmma_not_drained],
    ids=["slot-refilled-while-read", "accumulator-read-in-flight"],
)
def test_broken_wgmma_pipelines_are_caught(breakage: Callable[[str], str]) -> None:
    """A copy into a slot a `wgmma` group still reads, and an epilogue that reads the
    accumulator before the last group completes (one agent: the warp-specialized
    pipeline's broken variants are in test_specialize_agents.py)."""
    result = compile_module(load_module(CORPUS / "gemm_f16.mlir"), "sm_90a", warp_specialize=False)
    assert result.ptx is not None
    ptx = result.ptx
    broken = breakage(ptx)
    assert broken != ptx
    with pytest.raises(SimulationError, match=r"unfinished wgmma|has not completed"):
        _run("gemm_f16", broken)


def _ptx_with_stages(name: str, arch: str, stages: int) -> str:
    """The named pipeline with `tileas-pipeline-dot-operands{num-stages=stages}`."""
    module = load_module(CORPUS / f"{name}.mlir")
    ctx = make_context()
    for _, passes in stage_passes(arch, 4):
        for p in passes:
            if isinstance(p, PipelineDotOperandsPass):
                p = PipelineDotOperandsPass(arch=arch, num_stages=stages)
            p.apply(ctx, module)
    return module_to_ptx(module, arch)


@pytest.mark.parametrize("arch", ARCHS)
def test_deeper_ring_matches_numpy(arch: str) -> None:
    """Four stages: three slots, two stages in flight while the dot runs (on sm_90a
    each slot's fill waited for on its full mbarrier: test_ring_mbarriers.py)."""
    ptx = _ptx_with_stages("gemm_bf16_ragged", arch, 4)
    if arch == "sm_80":
        assert "cp.async.wait_group 4;" in ptx
    else:
        assert "mbarrier.try_wait.parity" in ptx and "cp.async.wait_group" not in ptx
    _run("gemm_bf16_ragged", ptx)


def test_two_stages_wait_for_everything() -> None:
    """Two stages: one slot, the copy of the next tile overlaps nothing but the loop's
    bookkeeping, and each wait lets no group stay in flight."""
    ptx = _ptx_with_stages("gemm_f16", "sm_80", 2)
    assert "cp.async.cg.shared.global" in ptx and "cp.async.wait_all;" in ptx
    assert "cp.async.wait_group" not in ptx
    _run("gemm_f16", ptx)


def _one_more_in_flight(ptx: str) -> str:
    return ptx.replace("cp.async.wait_group 2;", "cp.async.wait_group 3;")


def _no_wait(ptx: str) -> str:
    return ptx.replace("cp.async.wait_group 2;", "")


def _no_barrier_before_tensor_cores(ptx: str) -> str:
    """Drop the CTA barrier that follows the first wait of each iteration (the one
    before the tensor cores read the slot)."""
    return re.sub(
        r"(cp\.async\.wait_group 2;.*?)\n\s*bar\.sync 0;",
        r"\1",
        ptx,
        count=1,
        flags=re.DOTALL,
    )


@pytest.mark.parametrize(
    "breakage",
    [_one_more_in_flight, _no_wait, _no_barrier_before_tensor_cores],
    ids=["wait-one-group-short", "missing-wait", "missing-barrier"],
)
@pytest.mark.parametrize("arch", ["sm_80"])
def test_broken_pipelines_are_caught(arch: str, breakage: Callable[[str], str]) -> None:
    """(sm_80's rings: `cp.async.wait_group`; sm_90a's wait on mbarriers, whose broken
    variants are in test_ring_mbarriers.py.)"""
    ptx = _ptx("gemm_bf16_ragged", arch)
    broken = breakage(ptx)
    assert broken != ptx
    with pytest.raises(SimulationError) as caught:
        _run("gemm_bf16_ragged", broken)
    # A read of a slot whose copy may not have landed (in this thread or another).
    assert caught.value.kind == ASYNC_RACE, caught.value


def test_a_view_of_pointers_two_loads_read_stays_synchronous() -> None:
    """A batched matmul's A tile loaded twice from one view of pointers and multiplied by
    itself: reshaping one load into the dot's shape would replace the view the other still
    reads, so neither operand gets a ring of its own (their raw loads ride rings read back
    from their slots, `READ_FROM_SLOT_ATTR`) and the IR verifies.  (Kills issue 18's last
    mutant: the one-use check on that view dropped, an internal error.)"""
    module = load_module(CORPUS / "batched_matmul_2d_f16.mlir")
    ctx = make_context()
    for _, passes in stage_passes("sm_90a", 4):
        for p in passes:
            if isinstance(p, PipelineDotOperandsPass):
                dot = next(op for op in module.walk() if isinstance(op, tas.DotOp))
                a_view, b_view = (v.owner for v in (dot.a, dot.b))
                assert isinstance(a_view, tas.ViewOp) and isinstance(b_view, tas.ViewOp)
                a_load = a_view.src.owner
                assert isinstance(a_load, tas.TiledLoadOp)
                again = a_load.clone()
                assert again.parent_block() is None
                block = a_load.parent_block()
                assert block is not None
                block.insert_op_after(again, a_load)
                b_view.operands[0] = again.result
                p.apply(ctx, module)
                module.verify()
                assert all(
                    READ_FROM_SLOT_ATTR in op.attributes
                    for op in module.walk()
                    if isinstance(op, tas.AsyncTiledLoadOp)
                )
                feed = str(dot.attributes["nv_tileas.operand_feed"])
                assert "A: computed from the slot after the wait" in feed
                return
            p.apply(ctx, module)
    raise AssertionError("no tileas-pipeline-dot-operands in the sm_90a pipeline")


def test_tcgen05_rings_are_planned_as_large_as_they_are_lowered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ring feeding `tcgen05` MMAs left in flight has as many slots as stages (the
    slot they read is refilled after their commit), one more than a synchronous dot's:
    the plan counts them so (`LoopPlan.tcgen05`).  With room for two of `gemm_f16`'s
    stages (6.5 KiB each as the lowering lays the slots out, `padded_operand_buffers`: A
    swizzled 64 bytes wide, B's core matrices padded apart) and not for three, the loop
    gets a 2-stage ring (one tile loaded ahead per operand), not the 3-stage one that
    counting `stages - 1` slots gave and that then took 19.5 KiB."""
    from tileir.transforms.tileas.ring_budget import RingBudget

    monkeypatch.setattr(RingBudget, "for_loop", lambda self, fed, scoped=False: 2 * 7680)
    compiled = compile_module(load_module(CORPUS / "gemm_f16.mlir"), "sm_100a", keep_stages=True)
    assert compiled.ptx is not None and "tcgen05.mma" in compiled.ptx
    tileas = compiled.stages["tileas"]
    assert "operands through a 2-stage ring" in tileas
    # A and B: one tile ahead before the loop and one in its body each.
    assert tileas.count("nv_tileas.async.tiled_load") == 2 * 2
    _run("gemm_f16", compiled.ptx)
