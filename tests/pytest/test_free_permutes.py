"""Permutes and reshapes on a tile's way to a dot move no data
(`assign_layouts.chain_layouts`, `layout.LowerPermute`), and a permute whose result
another layout wants still goes through shared memory, correctly.

A dot writes its operands (and a block-scaled one its scales) into shared memory in
its own arrangement, so the layout of a tile on its way there is free: each permute's
result takes the source's layout with its dimensions relabelled, each reshape's the
source's seen through it, and both lower to a renaming of registers.  NVIDIA's swizzled
block-scaled samples reshape and permute their raw `1x1x32x16` scale blocks so
(docs/codegen.md, "Permutes and reshapes on the way to a dot")."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tileir.compiler import compile_module, parse_module_text
from tileir.dialects.nv_tileas.layouts import BlockedLayoutAttr, LinearLayout, same_registers
from tileir.testing import simulate
from tileir.transforms.tileas.assign_layouts import (
    blocked_spelling,
    permuted_layout,
    reshaped_linear,
)

#: C = A @ B with A stored transposed (K x M, rows of M) and permuted after the load;
#: `PLAIN` swaps the load and the permute for A stored M x K.
KERNEL = """
entry @gemm_at_f16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %a = assume div_by<16>, %arg0 : tile<ptr<f16>>
  %b = assume div_by<16>, %arg5 : tile<ptr<f16>>
  %c = assume div_by<16>, %arg10 : tile<ptr<f32>>
  %va = make_tensor_view %a, shape = [%arg1, %arg2], strides = [%arg3, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
  %vb = make_tensor_view %b, shape = [%arg6, %arg7], strides = [%arg8, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
  %vc = make_tensor_view %c, shape = [%arg11, %arg12], strides = [%arg13, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %zero = constant <i32: 0> : tile<i32>
  %acc = constant <f32: 0.000000e+00> : tile<64x32xf32>
  %pa = make_partition_view %va : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
  %pb = make_partition_view %vb : partition_view<tile=(32x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
  %at, %t0 = load_view_tko weak %pa[%zero, %bx] token = %0 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<32x64xf16>, token
  %tb, %t1 = load_view_tko weak %pb[%zero, %by] token = %0 : partition_view<tile=(32x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<32x32xf16>, token
  %ta = permute %at [1, 0] : tile<32x64xf16> -> tile<64x32xf16>
  %d = mmaf %ta, %tb, %acc : tile<64x32xf16>, tile<32x32xf16>, tile<64x32xf32>
  %pc = make_partition_view %vc : partition_view<tile=(64x32), tensor_view<?x?xf32, strides=[?,1]>>
  %2 = store_view_tko weak %d, %pc[%bx, %by] token = %0 : tile<64x32xf32>, partition_view<tile=(64x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  return
}
"""
PLAIN = (
    KERNEL.replace("tile=(32x64)", "tile=(64x32)")
    .replace("%pa[%zero, %bx]", "%pa[%bx, %zero]")
    .replace("-> tile<32x64xf16>, token", "-> tile<64x32xf16>, token")
    .replace("%ta = permute %at [1, 0] : tile<32x64xf16> -> tile<64x32xf16>", "")
    .replace("mmaf %ta", "mmaf %at")
)
#: The permute of a loaded tile that is stored: both layouts are the accesses'
#: coalesced ones, so the permute is an exchange through shared memory.
STORED = KERNEL.replace(
    "%d = mmaf %ta, %tb, %acc : tile<64x32xf16>, tile<32x32xf16>, tile<64x32xf32>",
    "%d = ftof %ta : tile<64x32xf16> -> tile<64x32xf32>",
)

M, N, K = 128, 64, 32


def _ptx(text: str, arch: str) -> str:
    ptx = compile_module(parse_module_text(text, "gemm_at.mlir"), arch).ptx
    assert ptx is not None
    return ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_100a"])
def test_permute_into_a_dot_moves_nothing(arch: str) -> None:
    """The permuted A costs no exchange: the kernel passes as many CTA barriers and
    declares as many exchange buffers as the one that loads A untransposed, and its
    result equals numpy."""
    permuted, plain = _ptx(KERNEL, arch), _ptx(PLAIN, arch)
    assert permuted.count("bar.sync") == plain.count("bar.sync")
    assert permuted.count("st.shared") == plain.count("st.shared")
    if arch == "sm_80":
        rng = np.random.default_rng(5)
        a = rng.integers(-4, 5, (M, K)).astype(np.float16)
        b = rng.integers(-4, 5, (K, N)).astype(np.float16)
        out = np.zeros((M, N), dtype=np.float32)
        x = np.ascontiguousarray(a.T)
        args = [x, K, M, M, 1, b, K, N, N, 1, out, M, N, N, 1]
        simulate(permuted, (M // 64, N // 32, 1), args)
        np.testing.assert_array_equal(out, a.astype(np.float32) @ b.astype(np.float32))


def test_permute_that_is_stored_still_exchanges() -> None:
    """A permute whose result the store wants coalesced along the other dimension moves
    elements between threads, through shared memory between CTA barriers."""
    ptx = _ptx(STORED, "sm_80")
    assert "tileir_xchg" in ptx
    assert "st.shared" in ptx and "bar.sync" in ptx
    x = np.random.default_rng(6).uniform(-8, 8, (K, M)).astype(np.float16)
    out = np.zeros((M, N), dtype=np.float32)
    b = np.zeros((K, N), dtype=np.float16)
    simulate(ptx, (M // 64, N // 32, 1), [x, K, M, M, 1, b, K, N, N, 1, out, M, N, N, 1])
    expected = np.tile(x.T.astype(np.float32)[:, :32], (1, N // 32))
    np.testing.assert_array_equal(out, expected)


#: A block-scaled product whose A scales come as the swizzled samples' raw blocks: one
#: `1 x 1 x 32 x 16` block of bytes per 128 rows and 128 K, factor `g` of row
#: `32 a + b` at byte `4 a + g` of the block's row `b` (cuTile's `unswizzle_32_4_4`),
#: reshaped and permuted to `128 x 4` before `mmaf_scaled`; `PLAIN_SCALES` loads them
#: `M x K/32`.
SWIZZLED = """
entry @swizzled_scales(%arg0: tile<ptr<f8E4M3FN>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f8E8M0FNU>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f8E4M3FN>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<ptr<f8E8M0FNU>>, %arg20: tile<i32>, %arg21: tile<i32>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<ptr<f32>>, %arg25: tile<i32>, %arg26: tile<i32>, %arg27: tile<i32>, %arg28: tile<i32>, %arg29: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %a = assume div_by<16>, %arg0 : tile<ptr<f8E4M3FN>>
  %sa = assume div_by<16>, %arg5 : tile<ptr<f8E8M0FNU>>
  %b = assume div_by<16>, %arg14 : tile<ptr<f8E4M3FN>>
  %sb = assume div_by<16>, %arg19 : tile<ptr<f8E8M0FNU>>
  %c = assume div_by<16>, %arg24 : tile<ptr<f32>>
  %as = assume div_by<16>, %arg3 : tile<i32>
  %sas0 = assume div_by<16>, %arg10 : tile<i32>
  %sas1 = assume div_by<16>, %arg11 : tile<i32>
  %sas2 = assume div_by<16>, %arg12 : tile<i32>
  %bs = assume div_by<16>, %arg17 : tile<i32>
  %sbs = assume div_by<16>, %arg22 : tile<i32>
  %cs = assume div_by<4>, %arg27 : tile<i32>
  %va = make_tensor_view %a, shape = [%arg1, %arg2], strides = [%as, 1] : tile<i32> -> tensor_view<?x?xf8E4M3FN, strides=[?,1]>
  %vsa = make_tensor_view %sa, shape = [%arg6, %arg7, %arg8, %arg9], strides = [%sas0, %sas1, %sas2, 1] : tile<i32> -> tensor_view<?x?x?x?xf8E8M0FNU, strides=[?,?,?,1]>
  %vb = make_tensor_view %b, shape = [%arg15, %arg16], strides = [%bs, 1] : tile<i32> -> tensor_view<?x?xf8E4M3FN, strides=[?,1]>
  %vsb = make_tensor_view %sb, shape = [%arg20, %arg21], strides = [%sbs, 1] : tile<i32> -> tensor_view<?x?xf8E8M0FNU, strides=[?,1]>
  %vc = make_tensor_view %c, shape = [%arg25, %arg26], strides = [%cs, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %zero = constant <i32: 0> : tile<i32>
  %one = constant <i32: 1> : tile<i32>
  %acc0 = constant <f32: 0.000000e+00> : tile<128x32xf32>
  %pa = make_partition_view %va : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>>
  %psa = make_partition_view %vsa : partition_view<tile=(1x1x32x16), padding_value = zero, tensor_view<?x?x?x?xf8E8M0FNU, strides=[?,?,?,1]>>
  %pb = make_partition_view %vb : partition_view<tile=(128x32), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>>
  %psb = make_partition_view %vsb : partition_view<tile=(4x32), padding_value = zero, tensor_view<?x?xf8E8M0FNU, strides=[?,1]>>
  %for = for %k in (%zero to %arg29, step %one) : tile<i32> iter_values(%acc = %acc0) -> (tile<128x32xf32>) {
    %ta, %t0 = load_view_tko weak %pa[%bx, %k] token = %0 : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>>, tile<i32> -> tile<128x128xf8E4M3FN>, token
    %raw, %t1 = load_view_tko weak %psa[%bx, %k, %zero, %zero] token = %0 : partition_view<tile=(1x1x32x16), padding_value = zero, tensor_view<?x?x?x?xf8E8M0FNU, strides=[?,?,?,1]>>, tile<i32> -> tile<1x1x32x16xf8E8M0FNU>, token
    %split = reshape %raw : tile<1x1x32x16xf8E8M0FNU> -> tile<1x1x32x4x4xf8E8M0FNU>
    %swapped = permute %split [0, 3, 2, 1, 4] : tile<1x1x32x4x4xf8E8M0FNU> -> tile<1x4x32x1x4xf8E8M0FNU>
    %scales = reshape %swapped : tile<1x4x32x1x4xf8E8M0FNU> -> tile<128x4xf8E8M0FNU>
    %tb, %t2 = load_view_tko weak %pb[%k, %by] token = %0 : partition_view<tile=(128x32), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>>, tile<i32> -> tile<128x32xf8E4M3FN>, token
    %tsb, %t3 = load_view_tko weak %psb[%k, %by] token = %0 : partition_view<tile=(4x32), padding_value = zero, tensor_view<?x?xf8E8M0FNU, strides=[?,1]>>, tile<i32> -> tile<4x32xf8E8M0FNU>, token
    %d = mmaf_scaled %ta, %tb, %acc, %scales, %tsb : tile<128x128xf8E4M3FN>, tile<128x32xf8E4M3FN>, tile<128x32xf32>, tile<128x4xf8E8M0FNU>, tile<4x32xf8E8M0FNU>
    continue %d : tile<128x32xf32>
  }
  %pc = make_partition_view %vc : partition_view<tile=(128x32), tensor_view<?x?xf32, strides=[?,1]>>
  %1 = store_view_tko weak %for, %pc[%bx, %by] token = %0 : tile<128x32xf32>, partition_view<tile=(128x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  return
}
"""
PLAIN_SCALES = (
    SWIZZLED.replace(
        "shape = [%arg6, %arg7, %arg8, %arg9], strides = [%sas0, %sas1, %sas2, 1] : tile<i32> "
        "-> tensor_view<?x?x?x?xf8E8M0FNU, strides=[?,?,?,1]>",
        "shape = [%arg6, %arg7], strides = [%sas0, 1] : tile<i32> "
        "-> tensor_view<?x?xf8E8M0FNU, strides=[?,1]>",
    )
    .replace(
        "tile=(1x1x32x16), padding_value = zero, tensor_view<?x?x?x?xf8E8M0FNU, strides=[?,?,?,1]>",
        "tile=(128x4), padding_value = zero, tensor_view<?x?xf8E8M0FNU, strides=[?,1]>",
    )
    .replace("%psa[%bx, %k, %zero, %zero]", "%psa[%bx, %k]")
    .replace("-> tile<1x1x32x16xf8E8M0FNU>, token", "-> tile<128x4xf8E8M0FNU>, token")
)
PLAIN_SCALES = PLAIN_SCALES.replace(
    PLAIN_SCALES[PLAIN_SCALES.index("    %split") : PLAIN_SCALES.index("    %tb, %t2")], ""
).replace("%raw, %t1", "%scales, %t1")


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
def test_swizzled_scales_match_numpy_with_one_exchange_at_most(arch: str) -> None:
    """On sm_100a the scale chain costs no CTA barrier: as many as with the scales loaded
    `M x K/32`.  On sm_90a (the dot cut into one column of scales a K group) the chain
    renames registers and the tile is converted once into its columns' layout
    (`gathered_slices`): no more barriers than the plain load, whose four columns are
    converted one by one.  Both equal numpy over two K tiles."""
    swizzled, plain = _ptx(SWIZZLED, arch), _ptx(PLAIN_SCALES, arch)
    if arch == "sm_100a":
        assert swizzled.count("bar.sync") == plain.count("bar.sync")
    else:
        assert swizzled.count("bar.sync") <= plain.count("bar.sync")
    m, n, k = 128, 32, 256
    rng = np.random.default_rng(7)
    a = rng.integers(-8, 9, (m, k)).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
    b = rng.integers(-8, 9, (k, n)).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
    raw = (127 + rng.integers(-2, 3, (m // 128, k // 128, 32, 16))).astype(np.uint8)
    b_scale = (127 + rng.integers(-2, 3, (k // 32, n))).astype(np.uint8)
    rows = [
        np.concatenate(
            [
                raw[i, j].reshape(32, 4, 4).transpose(1, 0, 2).reshape(128, 4)
                for j in range(k // 128)
            ],
            axis=1,
        )
        for i in range(m // 128)
    ]
    a_scale = 2.0 ** (np.concatenate(rows, axis=0).astype(np.float64) - 127)
    expected = (a.astype(np.float64) * np.repeat(a_scale, 32, axis=1)) @ (
        b.astype(np.float64) * np.repeat(2.0 ** (b_scale.astype(np.float64) - 127), 32, axis=0)
    )
    c = np.zeros((m, n), dtype=np.float32)
    e8m0 = ml_dtypes.float8_e8m0fnu
    args = [
        *(a, m, k, k, 1),
        *(raw.view(e8m0), m // 128, k // 128, 32, 16, (k // 128) * 512, 512, 16, 1),
        *(b, k, n, n, 1),
        *(b_scale.view(e8m0), k // 32, n, n, 1),
        *(c, m, n, n, 1),
        k // 128,
    ]
    simulate(swizzled, (m // 128, n // 32, 1), args)
    np.testing.assert_array_equal(c, expected.astype(np.float32))


def test_swizzled_scale_chain_is_a_renaming() -> None:
    """The swizzled samples' scale chain, `1x1x32x16 -> [1,1,32,4,4] -> permute
    [0,3,2,1,4] -> [128,4] -> permute [1,0]`, from the raw block's coalesced layout (8
    warps, each holding the block): every step has a blocked layout in which it renames
    registers (reshapes: `same_registers`; permutes: the relabelled layout)."""
    raw = BlockedLayoutAttr([1, 1, 1, 16], [1, 1, 32, 1], [8, 1, 1, 1], [3, 2, 1, 0])
    src = raw.linear([1, 1, 32, 16])
    split = reshaped_linear(src, (1, 1, 32, 4, 4))
    assert split is not None
    split_layout = blocked_spelling(split)
    assert split_layout is not None and same_registers(src, split_layout.linear(split.shape))
    perm = (0, 3, 2, 1, 4)
    swapped = permuted_layout(split_layout, perm)
    lin = swapped.linear([1, 4, 32, 1, 4])
    for r in range(lin.num_registers):
        for lane in (0, 5, 31):
            c = lin.coord(r, lane, 3)
            assert split.coord(r, lane, 3) == tuple(c[perm.index(d)] for d in range(5))
    rows = reshaped_linear(lin, (128, 4))
    assert rows is not None
    rows_layout = blocked_spelling(rows)
    assert rows_layout is not None and same_registers(lin, rows_layout.linear([128, 4]))
    # A thread's four groups of a row are its first registers (packed scale stores).
    assert rows.registers[:2] == ((0, 1), (0, 2))


def test_a_layout_no_blocked_layout_spells_is_left_alone() -> None:
    """A thread's registers that step along dimension 1 first while its lanes step
    along dimension 0 first have no blocked spelling (one order serves both): the chain
    stops there and propagation decides."""
    odd = LinearLayout((32, 4), ((0, 1), (1, 0)), ((2, 0), (4, 0), (8, 0), (16, 0), (0, 2)), ())
    assert blocked_spelling(odd) is None
