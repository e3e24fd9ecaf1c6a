"""`tileas-tma-feeds` (sm_90a, `tma_feeds=True`): a warp-specialized producer copies
its operands with TMA boxes (A into its K-major swizzled slot, a `[K, N]` B into an
MN-major swizzled one), through tensor maps it builds on the device, from one thread
and 40 registers (docs/codegen.md, "TMA feeds for the rings").

The PTX simulator (`tileir.testing.ptx_tma`) runs the fed GEMMs against numpy at
ragged shapes (M, N and K not multiples of the tile: the boxes' out-of-bounds
elements land as zeros), and the broken variants fail: a stage whose `expect_tx`
counts half the box's bytes, a box issued through a map its thread never acquired.
No GPU has run this PTX yet: the simulator checks what the PTX asks for (fields,
fences, bytes, swizzle), not the tensor map's bit encoding.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tileir.compiler import compile_module, load_module
from tileir.dialects.nv_tileas.core_matrices import B_MN_SWIZZLE_ATTR
from tileir.testing import SimulationError
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


def _half_the_bytes(ptx: str) -> str:
    return re.sub(r"(mbarrier\.expect_tx[^\]]*\], )(\d+)", lambda m: f"{m[1]}{int(m[2]) // 2}", ptx)


def _no_acquire(ptx: str) -> str:
    return re.sub(r"@t_lead fence\.proxy\.tensormap::generic\.acquire\.gpu[^;]*;", "", ptx)


@pytest.mark.parametrize("breakage", [_half_the_bytes, _no_acquire])
def test_broken_tma_feeds_are_caught(breakage: Callable[[str], str]) -> None:
    ptx = _ptx(RAGGED)
    broken = breakage(ptx)
    assert broken != ptx
    with pytest.raises(SimulationError):
        _common.simulate_case(RAGGED, broken, SEED)


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
