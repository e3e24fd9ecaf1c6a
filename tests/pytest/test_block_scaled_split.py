"""Native block-scaled `tcgen05.mma` for a 256x256 tile on sm_100a (issue 16, step 6).

Its accumulator takes all 512 tensor-memory columns, leaving none for the scale factors
(`block_scaled_form`'s reason), so `split-dot-accumulators` runs the K loop once per
256x128 half along N (A and its scales re-read, B and its scales halved), each half a
native block-scaled dot (256 + 12 columns a scale set); the two loops run one after the
other and share their accumulator columns (`tmem_accumulators._Group.overlaps`).

The corpus kernel `block_scaled_mm_e4m3_m128` retiled to 256x256 (ragged in M and N, the
second half partly outside) matches numpy exactly in the PTX simulator: with 64-wide K
tiles both halves keep their MMAs in flight on 3-slot rings (and share the slot
mbarriers of their columns); with 128-wide K tiles the second half's rings do not fit
beside the first's and it runs synchronously -- the path of NVIDIA's 256x256 samples."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tileir.compiler import compile_module, load_module
from tileir.testing import simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

KERNEL = "block_scaled_mm_e4m3_m128"
M, N = 300, 200
GROUP = 32


def _retiled(tile_k: int, tmp_path: Path) -> Path:
    """The corpus kernel on 256x256 output tiles and `tile_k`-wide K tiles."""
    g = tile_k // GROUP
    text = (CORPUS / f"{KERNEL}.mlir").read_text()
    for old, new in (
        ("128x32x", "256x256x"),
        ("(128x32)", "(256x256)"),
        ("128x64x", f"256x{tile_k}x"),
        ("(128x64)", f"(256x{tile_k})"),
        ("128x2x", f"256x{g}x"),
        ("(128x2)", f"(256x{g})"),
        ("64x32x", f"{tile_k}x256x"),
        ("(64x32)", f"({tile_k}x256)"),
        ("2x32x", f"{g}x256x"),
        ("(2x32)", f"({g}x256)"),
    ):
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / f"{KERNEL}_256x256x{tile_k}.mlir"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "tile_k,k_tiles,in_flight", [(64, 3, 2), (128, 2, 1)], ids=["both-in-flight", "one-in-flight"]
)
def test_256x256_tile_runs_as_two_native_halves(
    tile_k: int, k_tiles: int, in_flight: int, tmp_path: Path
) -> None:
    result = compile_module(load_module(_retiled(tile_k, tmp_path)), "sm_100a", keep_stages=True)
    ptx, tileas = result.ptx, result.stages["tileas"]
    assert ptx is not None
    steps = tile_k // GROUP
    # Two halves x two 128-row blocks x the K steps of a tile; A's two row blocks and
    # B's half copied per half.
    assert ptx.count(".kind::mxf8f6f4.block_scale.scale_vec::1X") == 2 * 2 * steps
    assert ptx.count("tcgen05.cp.cta_group::1.32x128b.warpx4") == 2 * 3
    assert "cvt.rn.bf16" not in ptx
    assert tileas.count("block-scaled accumulator split into 2 passes along N") == 2
    # Both halves' accumulators at column 0, their scales after them.
    assert re.findall(r"nv_tileas\.tmem_column = (\d+)", tileas) == ["0", "0"]
    assert tileas.count("nv_tileas.tmem_in_flight") == in_flight

    rng = np.random.default_rng(20261127)
    k = tile_k * k_tiles
    e4m3, e8m0 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu
    a = rng.integers(-8, 9, (M, k)).astype(np.float32).astype(e4m3)
    bt = rng.integers(-8, 9, (N, k)).astype(np.float32).astype(e4m3)
    sa = (127 + rng.integers(-2, 3, (M, k // GROUP))).astype(np.uint8).view(e8m0)
    sb = (127 + rng.integers(-2, 3, (k // GROUP, N))).astype(np.uint8).view(e8m0)
    inputs = _common.make_kernel_inputs(
        params=("a", "a_scale", "bt", "b_scale", "c", "k_tiles"),
        arrays={
            "a": a,
            "a_scale": sa,
            "bt": bt,
            "b_scale": sb,
            "c": _common.empty_output((M, N), np.float32),
        },
        scalars={"k_tiles": k_tiles},
        outputs=("c",),
        grid=(2, 1, 1),
    )
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    scaled_a = a.astype(np.float64) * np.repeat(sa.astype(np.float64), GROUP, 1)
    scaled_b = bt.astype(np.float64).T * np.repeat(sb.astype(np.float64), GROUP, 0)
    # Integers -8..8 times 2^-2..2^2: every partial sum is exact in f32.
    np.testing.assert_array_equal(inputs["arrays"]["c"], (scaled_a @ scaled_b).astype(np.float32))
