"""`tileas-tma-feeds` (sm_90a, `tma_feeds=True`): a warp-specialized producer copies
its operands with TMA boxes (A into its K-major swizzled slot, a `[K, N]` B into an
MN-major swizzled one), through tensor maps it builds on the device, from one thread
and 40 registers (docs/codegen.md, "TMA feeds for the rings").

The PTX simulator (`tileir.testing.ptx_tma`) runs the fed GEMMs against numpy at
ragged shapes (M, N and K not multiples of the tile: the boxes' out-of-bounds
elements land as zeros), and the broken variants fail: a stage whose `expect_tx`
counts half the box's bytes, a box issued through a map its thread never acquired.
A batched operand's map moves with its batch (its bound a guard), and a tf32
operand's f32 box is rounded in its slot after it lands.  Warpgroups that split N
get their slices of B through a rank-4 map (a box at the other's coordinate, or the
map's second stride wrong, fails).  No GPU has run this PTX yet: the simulator checks what the PTX asks for (fields,
fences, bytes, swizzle), not the tensor map's bit encoding.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tileir.compiler import compile_module, load_module
from tileir.dialects.nv_tileas.core_matrices import B_MN_SWIZZLE_ATTR
from tileir.testing import SimulationError
from tileir.transforms.tileas import tma_feeds
from tileir.transforms.tileas.tma_feeds import TMA_BLOCKED_ATTR, TMA_FEED_ATTR

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 20261127
#: M, N, K = 72, 40, 296 on 64x32x32 tiles: ragged in all three, and the pipeline wraps.
RAGGED = "gemm_bf16_deep_k"


def _ptx(name: str, tma_feeds: bool = True) -> str:
    ptx = compile_module(load_module(CORPUS / f"{name}.mlir"), "sm_90a", tma_feeds=tma_feeds).ptx
    assert ptx is not None
    return ptx


def test_a_ragged_gemm_fed_by_tma_matches_numpy() -> None:
    ptx = _ptx(RAGGED)
    assert ptx.count("cp.async.bulk.tensor.2d") == 2  # A's box and B's
    assert "tensormap.cp_fenceproxy" in ptx and "cp.async.mbarrier.arrive" not in ptx
    _common.simulate_case(RAGGED, ptx, SEED)


def test_two_consumer_warpgroups_fed_by_tma() -> None:
    """tileiras's shape: B's 128 columns are two 128-byte boxes a stage; the producer,
    all TMA, gives up registers (56 -> 40) for the consumer's two warpgroups."""
    ptx = _ptx("gemm_bf16_two_warpgroups")
    assert ptx.count("cp.async.bulk.tensor.2d") == 3
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in ptx
    _common.simulate_case("gemm_bf16_two_warpgroups", ptx, SEED)


def test_a_producers_loops_share_their_maps() -> None:
    """gemm_f16_wide_acc's producer runs a K loop per half of its 256x256 accumulator
    over the same A and B: one map each, built before the first loop (4 before)."""
    ptx = _ptx("gemm_f16_wide_acc")
    assert ptx.count("tensormap.cp_fenceproxy") == 2
    assert ptx.count("cp.async.bulk.tensor.2d") == 6
    _common.simulate_case("gemm_f16_wide_acc", ptx, SEED)


def _half_the_bytes(ptx: str) -> str:
    return re.sub(r"(mbarrier\.expect_tx[^\]]*\], )(\d+)", lambda m: f"{m[1]}{int(m[2]) // 2}", ptx)


def _no_acquire(ptx: str) -> str:
    return re.sub(r"@t_lead fence\.proxy\.tensormap::generic\.acquire\.gpu[^;]*;", "", ptx)


def _every_thread_issues(ptx: str) -> str:
    """A one-agent ring's boxes issued by every thread, not only thread 0 (which
    acquired the map)."""
    return re.sub(r"(and\.b32 t_first, %r\d+, )0xFFFFFFFF;", r"\g<1>0;", ptx)


@pytest.mark.parametrize(
    ("name", "breakage"),
    [
        (RAGGED, _half_the_bytes),
        (RAGGED, _no_acquire),
        ("flash_attention_f16", _half_the_bytes),
        ("flash_attention_f16", _every_thread_issues),
    ],
)
def test_broken_tma_feeds_are_caught(name: str, breakage: Callable[[str], str]) -> None:
    ptx = _ptx(name)
    broken = breakage(ptx)
    assert broken != ptx
    with pytest.raises(SimulationError):
        _common.simulate_case(name, broken, SEED)


def test_the_decisions_are_in_the_tileas_stage() -> None:
    """Both of gemm_f16's operands are fed by TMA (B's slot MN-major swizzled, on its
    dot); without `tma_feeds` nothing changes."""
    tileas = compile_module(
        load_module(CORPUS / "gemm_f16.mlir"), "sm_90a", tma_feeds=True, keep_stages=True
    ).stages["tileas"]
    assert tileas.count(TMA_FEED_ATTR + " = {swizzle = 64") == 2
    assert f"{B_MN_SWIZZLE_ATTR} = 64" in tileas
    assert '"B: fed by TMA: 64B MN-major swizzle, 1 box of 32x32"' in tileas
    assert TMA_BLOCKED_ATTR not in tileas
    assert "tensormap" not in _ptx("gemm_f16", tma_feeds=False)


BATCHED = "batched_matmul_2d_f16"


def _batched_case(ptx: str) -> None:
    """batched_matmul_2d_f16 at a ragged shape (M, N, K = 40, 72, 88 on 64x64x64 tiles,
    2 batches) on a grid one batch too many: that batch's CTAs must read nothing (their
    masks are all off) and store nothing."""
    from _common import empty_output, flatten_args, make_kernel_inputs  # pyright: ignore

    from tileir.testing import simulate

    rng = np.random.default_rng(SEED)
    batches, m, n, k = 2, 40, 72, 88
    a = rng.uniform(-1.0, 1.0, (batches, m, k)).astype(np.float16)
    b = rng.uniform(-1.0, 1.0, (batches, k, n)).astype(np.float16)
    c = empty_output((batches, m, n), np.float16)
    inputs = make_kernel_inputs(
        params=("a", "b", "c", "k_tiles"),
        arrays={"a": a, "b": b, "c": c},
        scalars={"k_tiles": 2},
        outputs=("c",),
        grid=(batches + 1, 1, 2),
    )
    simulate(ptx, inputs["grid"], flatten_args(inputs))
    want = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float16)
    np.testing.assert_allclose(inputs["arrays"]["c"], want, rtol=2e-3, atol=1e-3)


def test_a_batched_gemm_through_a_unit_dimension_fed_by_tma() -> None:
    """A `[1, rows, cols]` tile of a 3-D array seen as `[rows, cols]`: a 2-D map whose
    base is moved by the CTA's batch offset, the batch's bound a guard that moves the
    box out of bounds where the batch is past the array."""
    ptx = _ptx(BATCHED)
    assert ptx.count("cp.async.bulk.tensor.2d") == 2
    assert "cp.async.cg" not in ptx
    _batched_case(ptx)


@pytest.mark.parametrize("breakage", ["unmoved", "unguarded"])
def test_broken_batched_feeds_are_caught(breakage: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The map at the array's first batch for every CTA, or no guard on the batch
    bound: the simulator (or numpy) says so."""
    if breakage == "unmoved":
        monkeypatch.setattr(tma_feeds, "_moved_base", lambda base, *_: base)
    else:
        decide = tma_feeds.decide

        def unguarded(*args: Any) -> Any:
            feed, match = decide(*args)
            return feed, dataclasses.replace(match, guards=(None, None))

        monkeypatch.setattr(tma_feeds, "decide", unguarded)
    with pytest.raises((SimulationError, AssertionError)):
        _batched_case(_ptx(BATCHED))


def test_tf32_a_fed_by_tma_and_rounded_in_its_slot(tmp_path: Path) -> None:
    """gemm_tf32 with a K tile of 16 (warp-specialized: its stages fit): A's f32 tile is
    a 64B-swizzled box (elemtype f32, no rounding on the way in), rounded to tf32 by the
    consumer in its slot once the *full* mbarrier says the bytes landed; B, transposed
    into its K-major slot for `wgmma`, stays on `cp.async`.  Ragged (M, N, K = 72,
    40, 40 on 64x64x16 tiles); the result equals numpy's and, bit for bit, the
    `cp.async` feed's; with half the box's bytes expected, the rounding reads the slot
    before the box has landed."""
    from _common import (  # pyright: ignore
        copy_inputs,
        empty_output,
        flatten_args,
        make_kernel_inputs,
    )

    from tileir.testing import simulate

    source = (CORPUS / "gemm_tf32.mlir").read_text()
    path = tmp_path / "gemm_tf32_k16.mlir"
    path.write_text(source.replace("64x32", "64x16").replace("32x64", "16x64"))
    fed = compile_module(load_module(path), "sm_90a", tma_feeds=True, keep_stages=True)
    assert '"A: fed by TMA: 64B swizzle, 1 box of 64x16"' in fed.stages["tileas"]
    assert "B: stays on cp.async: its [K, N] tile is transposed" in fed.stages["tileas"]
    plain = compile_module(load_module(path), "sm_90a").ptx
    assert fed.ptx is not None and plain is not None
    assert fed.ptx.count("cp.async.bulk.tensor.2d") == 1 and "tensormap" not in plain
    case = _common.load_case_module("gemm_tf32")

    def run(ptx: str) -> np.ndarray:
        full = case.make_inputs(np.random.default_rng(SEED))["arrays"]  # (its tf32 ties)
        m, n, k = 72, 40, 40
        inputs = make_kernel_inputs(
            params=("a", "b", "c", "k_tiles"),
            arrays={
                "a": np.ascontiguousarray(full["a"][:m, :k]),
                "b": np.ascontiguousarray(full["b"][:k, :n]),
                "c": empty_output((m, n), np.float32),
            },
            scalars={"k_tiles": -(-k // 16)},
            outputs=("c",),
            grid=(2, 1, 1),
        )
        expected = case.reference(copy_inputs(inputs))
        simulate(ptx, inputs["grid"], flatten_args(inputs))
        _common.check_outputs(case, inputs, expected)
        return inputs["arrays"]["c"]

    assert np.array_equal(run(plain), run(fed.ptx))
    with pytest.raises(SimulationError):
        run(_half_the_bytes(fed.ptx))


#: One-agent rings under mbarriers fed by TMA, one map a tensor and box in a kernel:
#: K^T (read transposed by `order`: a box of the `[N, K]` matrix into its K-major
#: slot) and V (the `[K, N]` B of P·V, into an MN-major slot), both 128-byte swizzled:
#: (boxes, maps, whether `cp.async` copies are left).  The causal kernel's second loop
#: copies through the first loop's two maps; attention_wide_kv_bf16 (8 warps, one
#: issuing thread of 256) has two boxes a K load, and its V stays on `cp.async` (its
#: dot's warpgroups split N, whose rank-4 map needs V's head extent proven a multiple
#: of 16, which this kernel does not assume: `WIDE` below does).
ONE_AGENT = {
    "flash_attention_f16": (7, 2, False),
    "flash_attention_causal_bf16": (14, 2, False),
    "attention_wide_kv_bf16": (6, 1, True),
}


@pytest.mark.parametrize("name", sorted(ONE_AGENT))
def test_attention_k_and_v_fed_by_tma_in_one_agent(name: str) -> None:
    """The CTA's thread 0 builds each map, raises the slot's *full* mbarrier by the
    box's bytes and issues it; every thread arrives (the barrier expects the CTA);
    the pool slots go back after the last loop's `async.wait`.  Equal to numpy at the
    case's ragged query tile, the ring wrapping over its 3 KV tiles."""
    ptx = _ptx(name)
    boxes, maps, copies = ONE_AGENT[name]
    assert ptx.count("cp.async.bulk.tensor.2d") == boxes
    assert ptx.count("red.release.gpu.global.and.b32") == maps
    assert ("cp.async.cg" in ptx) == copies
    _common.simulate_case(name, ptx, SEED)


def test_one_agent_rings_say_why_not() -> None:
    """A one-agent ring read by `mma.sync` (`ldmatrix`: ordinary loads, which a box
    over the slot would need a proxy fence after) stays on cp.async, and says so."""
    tileas = compile_module(
        load_module(CORPUS / "gemm_bf16_ragged.mlir"), "sm_90a", tma_feeds=True, keep_stages=True
    ).stages["tileas"]
    assert TMA_FEED_ATTR + " = " not in tileas
    assert '"A: stays on cp.async: not yet: its dot reads the slot with ordinary loads' in tileas


PERSISTENT = "persistent_gemm_f16"


def test_a_persistent_gemm_builds_its_maps_once() -> None:
    """persistent_gemm_f16 (4 blocks over 3 x 2 ragged tiles, two of them taking two):
    A's and B's maps are built once before the loop over the tiles (the operands'
    pointers, extents and strides the same in every tile, only the boxes' coordinates
    change) and go back at the kernel's end; equal to numpy."""
    ptx = _ptx(PERSISTENT)
    assert ptx.count("tensormap.cp_fenceproxy") == 2
    assert ptx.count("red.release.gpu.global.and.b32") == 2
    assert "cp.async.cg" not in ptx
    _common.simulate_case(PERSISTENT, ptx, SEED)


def _one_slot_on_one_sm(name: str, monkeypatch: Any) -> str:
    """`name`'s PTX with one pool slot an SM (`Q` = 1): the CTAs on one SM take turns
    on each map, a CTA waiting until the one before gives the slot back."""
    from tileir.conversions.tileas_to_llvm import tma

    monkeypatch.setattr(tma, "_resident_limit", lambda op: 1)
    return _ptx(name)


def _simulate_on_one_sm(name: str, ptx: str, grid: tuple[int, int, int]) -> dict[str, Any]:
    """Run `ptx` over `grid` with every CTA on one SM, warps interleaved at random (a
    CTA spinning for a slot lets the others run); the outputs and their reference."""
    from tileir.testing import simulate

    case = _common.load_case_module(name)
    inputs = case.make_inputs(np.random.default_rng(SEED))
    expected = case.reference(_common.copy_inputs(inputs))
    inputs["grid"] = grid
    simulate(
        ptx,
        grid,
        _common.flatten_args(inputs),
        sm_count=1,
        warp_order="random",
        seed=1,
        max_steps=3_000_000,
    )
    return {"case": case, "inputs": inputs, "expected": expected}


def test_persistent_maps_go_back_after_every_tile(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one slot an SM, two CTAs of persistent_gemm_f16 on one SM take turns (each
    holds its maps for all its tiles, then gives them back: the other one's wait ends);
    given back after each tile's `async.wait` instead (as a map built per tile would
    be), the other CTA takes the slot and writes its map while the first still issues
    boxes through it, which the simulator reports."""
    from tileir.conversions.tileas_to_llvm import tma

    grid = (2, 1, 1)
    run = _simulate_on_one_sm(PERSISTENT, _one_slot_on_one_sm(PERSISTENT, monkeypatch), grid)
    _common.check_outputs(run["case"], run["inputs"], run["expected"])

    def after_each_tile(desc: Any, loads: list[Any]) -> Any:
        op = loads[-1].parent_op().next_op
        while op is not None and not isinstance(op, tma.tas.AsyncWaitOp):
            op = op.next_op
        return op

    monkeypatch.setattr(tma, "release_point", after_each_tile)
    broken = _one_slot_on_one_sm(PERSISTENT, monkeypatch)
    with pytest.raises(SimulationError, match="has not acquired"):
        _simulate_on_one_sm(PERSISTENT, broken, grid)


CAUSAL = "flash_attention_causal_bf16"


def test_a_causal_map_released_before_the_second_loop_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """flash_attention_causal_bf16's K and V maps given back after the first loop's
    `async.wait` (the first load's ring), not the second's: with one slot an SM, the
    next CTA on the SM takes the slot and writes its map while the second loop still
    issues boxes through it."""
    from tileir.conversions.tileas_to_llvm import tma

    release = tma.release_point
    monkeypatch.setattr(tma, "release_point", lambda desc, loads: release(desc, loads[:1]))
    broken = _one_slot_on_one_sm(CAUSAL, monkeypatch)
    with pytest.raises(SimulationError, match="has not acquired"):
        _simulate_on_one_sm(CAUSAL, broken, (3, 1, 1))


def test_a_map_shared_by_other_tensors_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Maps keyed by their box alone (K's and V's are both 64x64, 128-byte swizzled):
    V's boxes copy K's tiles, and the output is not numpy's."""
    decide = tma_feeds._decide

    def by_box(*args: Any) -> Any:
        feed, match = decide(*args)
        return feed, dataclasses.replace(match, key=(feed.swizzle, feed.box))

    monkeypatch.setattr(tma_feeds, "_decide", by_box)
    ptx = _ptx(CAUSAL)
    assert ptx.count("tensormap.cp_fenceproxy") == 1
    with pytest.raises(AssertionError):
        _common.simulate_case(CAUSAL, ptx, SEED)


#: attention_wide_kv_bf16 (64 queries, 256-key tiles, head size 128; its P·V's two
#: warpgroups split V's 128 columns), V's head extent proven a multiple of 16 (cuTile's
#: samples prove it, div_by<16>; the corpus kernel does not, and stays on cp.async).
WIDE = "attention_wide_kv_bf16"
WIDE_V_EXTENT = "%assume_40 = assume bounded<0, ?>, %arg22 : tile<i32>"


def _wide_ptx(tmp_path: Path) -> str:
    text = (CORPUS / f"{WIDE}.mlir").read_text()
    assert text.count(WIDE_V_EXTENT) == 1
    proven = WIDE_V_EXTENT.replace("%assume_40 =", "%v_d =")
    proven += "\n  %assume_40 = assume div_by<16>, %v_d : tile<i32>"
    path = tmp_path / f"{WIDE}.mlir"
    path.write_text(text.replace(WIDE_V_EXTENT, proven))
    ptx = compile_module(load_module(path), "sm_90a", tma_feeds=True).ptx
    assert ptx is not None
    return ptx


def _other_warpgroups_box(ptx: str) -> str:
    """Warpgroup 1's box at warpgroup 0's coordinate: both slices hold its blocks."""
    return re.sub(r"(mov\.b32 t_j, )1;", r"\g<1>0;", ptx)


def _dense_group_stride(ptx: str) -> str:
    """The rank-4 map's second stride (between groups of the warpgroups' blocks) one
    block's 16 bytes, not 32."""
    return re.sub(r"(mov\.u64 t_group, )32;", r"\g<1>16;", ptx)


def test_warpgroups_splitting_n_get_their_slices_of_b(tmp_path: Path) -> None:
    """V of the P·V product, read by two warpgroups that split N, comes in one rank-4
    box per warpgroup (its 8-column blocks j, j + 2, .. contiguous in its slice); the
    simulated kernel matches numpy, and a box at the other warpgroup's coordinate or
    the map's second stride wrong do not."""
    ptx = _wide_ptx(tmp_path)
    assert ptx.count("cp.async.bulk.tensor.4d") == 4  # (a stage: the first, the refill)
    assert "tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r" in ptx
    _common.simulate_case(WIDE, ptx, SEED)
    for breakage in (_other_warpgroups_box, _dense_group_stride):
        broken = breakage(ptx)
        assert broken != ptx
        with pytest.raises(AssertionError):
            _common.simulate_case(WIDE, broken, SEED)


def test_a_split_b_without_its_extent_proven_says_why() -> None:
    """attention_wide_kv_bf16 as the corpus has it: V's head extent has no div_by, so its
    rank-4 map's column bounds would not be exact, and V stays on cp.async, saying so."""
    tileas = str(
        compile_module(
            load_module(CORPUS / f"{WIDE}.mlir"), "sm_90a", tma_feeds=True, stop_after="tileas"
        ).module
    )
    assert "B: stays on cp.async: its columns' extent is not proven a multiple of 16" in tileas
