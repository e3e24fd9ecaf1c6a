"""Block-scaled `tcgen05` dots as warp-specialized agents (sm_100a) where their scales'
raw tiles are already `tcgen05.cp`'s source layout (`tcgen05_agents.copied_scale`):
NVIDIA's swizzled samples load each operand's scales as `1 x 1 x 32 x 16` blocks and
reshape and permute them to `[M, K/32]` (B's then to `[K/32, N]`), and those blocks'
bytes are the `ScaleFactorBuffer` that `tcgen05.cp.32x128b.warpx4` copies.  The raw
tiles ride the pipeline's stages beside A and B, and the MMA warp copies stage `s`'s
slots into tensor-memory scale set `s` before its MMAs (docs/codegen.md, "Blackwell:
warp-specialized agents", "Block-scaled dots as agents").

No Blackwell GPU is at hand: `ptxas -arch=sm_100a` judges the PTX, the PTX simulator
runs it against numpy, and the PTX broken (a copy issued after the MMAs of its set, all
iterations on one set, the MMA warp not waiting for its stage) fails there."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, load_module, parse_module_text
from tileir.driver.remarks import Remark, tileas_remarks
from tileir.testing import SimulationError, simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

#: 128x128x128 e4m3 tiles (B read K-contiguous from an N x K array), each operand's
#: scales the swizzled samples' raw `1x1x32x16` blocks of a `[R/128, K/128, 32, 16]`
#: array, reshaped and permuted to `128 x 4` (B's to `4 x 128`); 8 warps.
KERNEL = """
entry @swizzled_scales(%arg0: tile<ptr<f8E4M3FN>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f8E8M0FNU>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f8E4M3FN>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<ptr<f8E8M0FNU>>, %arg20: tile<i32>, %arg21: tile<i32>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<ptr<f32>>, %arg25: tile<i32>, %arg26: tile<i32>, %arg27: tile<i32>, %arg28: tile<i32>, %arg29: tile<i32>, %arg30: tile<i32>, %arg31: tile<i32>, %arg32: tile<i32>) optimization_hints=<default = {}> {
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
  %sbs0 = assume div_by<16>, %arg30 : tile<i32>
  %sbs1 = assume div_by<16>, %arg31 : tile<i32>
  %sbs2 = assume div_by<16>, %arg32 : tile<i32>
  %cs = assume div_by<4>, %arg27 : tile<i32>
  %va = make_tensor_view %a, shape = [%arg1, %arg2], strides = [%as, 1] : tile<i32> -> tensor_view<?x?xf8E4M3FN, strides=[?,1]>
  %vsa = make_tensor_view %sa, shape = [%arg6, %arg7, %arg8, %arg9], strides = [%sas0, %sas1, %sas2, 1] : tile<i32> -> tensor_view<?x?x?x?xf8E8M0FNU, strides=[?,?,?,1]>
  %vb = make_tensor_view %b, shape = [%arg15, %arg16], strides = [%bs, 1] : tile<i32> -> tensor_view<?x?xf8E4M3FN, strides=[?,1]>
  %vsb = make_tensor_view %sb, shape = [%arg20, %arg21, %arg22, %arg23], strides = [%sbs0, %sbs1, %sbs2, 1] : tile<i32> -> tensor_view<?x?x?x?xf8E8M0FNU, strides=[?,?,?,1]>
  %vc = make_tensor_view %c, shape = [%arg25, %arg26], strides = [%cs, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %zero = constant <i32: 0> : tile<i32>
  %one = constant <i32: 1> : tile<i32>
  %acc0 = constant <f32: 0.000000e+00> : tile<128x128xf32>
  %pa = make_partition_view %va : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>>
  %psa = make_partition_view %vsa : partition_view<tile=(1x1x32x16), padding_value = zero, tensor_view<?x?x?x?xf8E8M0FNU, strides=[?,?,?,1]>>
  %pb = make_partition_view %vb : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>, dim_map=[1, 0]>
  %psb = make_partition_view %vsb : partition_view<tile=(1x1x32x16), padding_value = zero, tensor_view<?x?x?x?xf8E8M0FNU, strides=[?,?,?,1]>>
  %for = for %k in (%zero to %arg29, step %one) : tile<i32> iter_values(%acc = %acc0) -> (tile<128x128xf32>) {
    %ta, %t0 = load_view_tko weak %pa[%bx, %k] token = %0 : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>>, tile<i32> -> tile<128x128xf8E4M3FN>, token
    %raw, %t1 = load_view_tko weak %psa[%bx, %k, %zero, %zero] token = %0 : partition_view<tile=(1x1x32x16), padding_value = zero, tensor_view<?x?x?x?xf8E8M0FNU, strides=[?,?,?,1]>>, tile<i32> -> tile<1x1x32x16xf8E8M0FNU>, token
    %split = reshape %raw : tile<1x1x32x16xf8E8M0FNU> -> tile<1x1x32x4x4xf8E8M0FNU>
    %swapped = permute %split [0, 3, 2, 1, 4] : tile<1x1x32x4x4xf8E8M0FNU> -> tile<1x4x32x1x4xf8E8M0FNU>
    %scales = reshape %swapped : tile<1x4x32x1x4xf8E8M0FNU> -> tile<128x4xf8E8M0FNU>
    %tb, %t2 = load_view_tko weak %pb[%k, %by] token = %0 : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>, dim_map=[1, 0]>, tile<i32> -> tile<128x128xf8E4M3FN>, token
    %rawb, %t3 = load_view_tko weak %psb[%by, %k, %zero, %zero] token = %0 : partition_view<tile=(1x1x32x16), padding_value = zero, tensor_view<?x?x?x?xf8E8M0FNU, strides=[?,?,?,1]>>, tile<i32> -> tile<1x1x32x16xf8E8M0FNU>, token
    %splitb = reshape %rawb : tile<1x1x32x16xf8E8M0FNU> -> tile<1x1x32x4x4xf8E8M0FNU>
    %swb = permute %splitb [0, 3, 2, 1, 4] : tile<1x1x32x4x4xf8E8M0FNU> -> tile<1x4x32x1x4xf8E8M0FNU>
    %sbt = reshape %swb : tile<1x4x32x1x4xf8E8M0FNU> -> tile<128x4xf8E8M0FNU>
    %tsb = permute %sbt [1, 0] : tile<128x4xf8E8M0FNU> -> tile<4x128xf8E8M0FNU>
    %d = mmaf_scaled %ta, %tb, %acc, %scales, %tsb : tile<128x128xf8E4M3FN>, tile<128x128xf8E4M3FN>, tile<128x128xf32>, tile<128x4xf8E8M0FNU>, tile<4x128xf8E8M0FNU>
    continue %d : tile<128x128xf32>
  }
  %pc = make_partition_view %vc : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
  %1 = store_view_tko weak %for, %pc[%bx, %by] token = %0 : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  return
}
"""

#: `KERNEL` with B's blocks permuted otherwise: column `4 b + x` of the `4 x 128` tile
#: takes factor `y` from byte `16 b + 4 y + x`, which `tcgen05.cp` would copy as
#: factor `x` of column `32 y + b` (a kernel of its own; the one agent stages it).
UNSWAPPED = KERNEL.replace(
    "%swb = permute %splitb [0, 3, 2, 1, 4] : tile<1x1x32x4x4xf8E8M0FNU> -> "
    "tile<1x4x32x1x4xf8E8M0FNU>",
    "%swb = permute %splitb [0, 1, 2, 4, 3] : tile<1x1x32x4x4xf8E8M0FNU> -> "
    "tile<1x1x32x4x4xf8E8M0FNU>",
).replace(
    "%sbt = reshape %swb : tile<1x4x32x1x4xf8E8M0FNU>",
    "%sbt = reshape %swb : tile<1x1x32x4x4xf8E8M0FNU>",
)


@functools.cache
def _ptx(text: str = KERNEL, warp_specialize: bool = True) -> str:
    module = parse_module_text(text, "copied_scales.mlir")
    ptx = compile_module(module, "sm_100a", warp_specialize=warp_specialize).ptx
    assert ptx is not None
    return ptx


def _swizzled(factors: np.ndarray) -> np.ndarray:
    """`[R, G]` factors as the samples' raw blocks, `[R/128, G/4, 32, 16]`: factor `g`
    of row `32 a + b` of block `(i, j)` at byte `4 a + g % 4` of the block's row `b`."""
    r, g = factors.shape
    blocks = factors.reshape(r // 128, 4, 32, g // 4, 4).transpose(0, 3, 2, 1, 4)
    return np.ascontiguousarray(blocks.reshape(r // 128, g // 4, 32, 16))


def _run(ptx: str, m: int, n: int, k: int, seed: int = 7) -> None:
    """`ptx` over an `m x n` product with `k` of K (a multiple of 128) in the simulator,
    against numpy; the scale arrays cover whole 128-row blocks, as the samples' do."""
    rng = np.random.default_rng(seed)
    f8 = ml_dtypes.float8_e4m3fn
    a = rng.integers(-8, 9, (m, k)).astype(np.float32).astype(f8)
    bt = rng.integers(-8, 9, (n, k)).astype(np.float32).astype(f8)
    mb, nb, kb = -(-m // 128), -(-n // 128), k // 128
    sa = (127 + rng.integers(-3, 4, (128 * mb, k // 32))).astype(np.uint8)
    sb = (127 + rng.integers(-3, 4, (128 * nb, k // 32))).astype(np.uint8)
    fa = np.repeat(2.0 ** (sa[:m].astype(np.float64) - 127), 32, axis=1)
    fb = np.repeat(2.0 ** (sb[:n].astype(np.float64) - 127), 32, axis=1)
    expected = (a.astype(np.float64) * fa) @ (bt.astype(np.float64) * fb).T
    c = np.full((m, n), np.nan, dtype=np.float32)
    e8m0 = ml_dtypes.float8_e8m0fnu
    args = [
        *(a, m, k, k, 1),
        *(_swizzled(sa).view(e8m0), mb, kb, 32, 16, kb * 512, 512, 16, 1),
        *(bt, n, k, k, 1),
        *(_swizzled(sb).view(e8m0), nb, kb, 32, 16),
        *(c, m, n, n, 1, kb, kb * 512, 512, 16),
    ]
    simulate(ptx, (mb, nb, 1), args)
    np.testing.assert_array_equal(c, expected.astype(np.float32))


def test_agents_copy_the_scales_from_the_stage() -> None:
    """Three agents (8 epilogue warps, the producer's warpgroup, the MMA warp); the MMA
    warp's two `tcgen05.cp`s a stage read the scale slots, with no CTA barrier in the
    loop; ptxas takes it without spills."""
    ptx = _ptx()
    assert ".reqntid 416, 1, 1" in ptx
    assert ptx.count("tcgen05.cp.cta_group::1.32x128b.warpx4") == 2
    assert ptx.count("bar.sync 0;") == 4  # tensor memory, two pipelines, dealloc
    result = run_ptxas(ptx, "sm_100a")
    assert not any(result.spills.values())
    # The copies come after the MMA warp's wait for its stage, before its MMAs.
    body = ptx[ptx.index("tcgen05.fence::after_thread_sync", ptx.index("setmaxnreg")) :]
    assert body.index("tcgen05.cp.") < body.index("tcgen05.mma.")


def test_remark_says_the_mma_warp_copies_the_scales() -> None:
    remarks = _remarks(parse_module_text(KERNEL, "copied_scales.mlir"))
    (pipelined,) = [r.message for r in remarks if r.name == "DotPipelined"]
    assert "three agents: a producer of 4 warps" in pipelined
    assert (
        "A's and B's scales: the raw 1x1x32x16xf8E8M0FNU and 1x1x32x16xf8E8M0FNU tiles ride "
        "the stages, already in the tcgen05.cp layout, and the MMA warp copies them" in pipelined
    )
    assert any("one UE8M0 scale per 32 of K" in r.message for r in remarks)


@pytest.mark.parametrize(("m", "n", "k"), [(128, 128, 256), (128, 256, 768), (200, 160, 384)])
def test_agents_match_numpy(m: int, n: int, k: int) -> None:
    """Two K tiles; six (the 3 stages and scale sets go round twice); ragged M and N
    (the producer's edge copies)."""
    _run(_ptx(), m, n, k)


def _mma_copies(ptx: str) -> tuple[list[str], list[str]]:
    copies = re.findall(r"\t@%p\d+ tcgen05\.cp\.[^\n]*\n", ptx)
    mmas = re.findall(r"\t@%p\d+ tcgen05\.mma\.[^\n]*\n", ptx)
    assert len(copies) == 2 and len(mmas) == 4
    return copies, mmas


def _copies_after_the_mmas(ptx: str) -> str:
    copies, mmas = _mma_copies(ptx)
    ptx = ptx.replace("".join(copies), "")
    return ptx.replace(mmas[-1], mmas[-1] + "".join(copies))


def _one_scale_set(ptx: str) -> str:
    # The stage's number is the slot's offset over its 512 bytes (`copied_scale_slots`).
    found = re.search(r"mov\.b32 (%r\d+), 9;\n\tshr\.u32 (%r\d+), (%r\d+), \1;", ptx)
    assert found is not None
    return ptx[: found.start()] + f"mov.b32 {found.group(2)}, 0;" + ptx[found.end() :]


def _no_stage_wait(ptx: str) -> str:
    waits = list(
        re.finditer(
            r"\s*mbarrier\.try_wait\.parity\.shared::cta\.b64 t_done[^;]*;\s*@!t_done bra tileir_wait;",
            ptx,
        )
    )
    # The MMA warp's wait for a full stage: the one its proxy fence follows.
    (wait,) = [w for w in waits if "fence.proxy.async" in ptx[w.end() : w.end() + 80]]
    return ptx[: wait.start()] + ptx[wait.end() :]


@pytest.mark.parametrize(
    ("broken", "says"),
    [
        # Set s copied after the MMAs that read it: they read the set of i - S.
        (_copies_after_the_mmas, "a tcgen05.cp writes tensor memory columns 128 .. 131"),
        # Every iteration on set 0: the copy of i + 1 over the scales MMAs of i read.
        (_one_scale_set, "that a tcgen05.mma still reads as scale factors"),
        # The MMA warp copies the slots before the producer's copies have landed.
        (_no_stage_wait, "async-race"),
    ],
)
def test_broken_copies_fail_in_the_simulator(broken: Callable[[str], str], says: str) -> None:
    with pytest.raises(SimulationError, match=re.escape(says)):
        _run(broken(_ptx()), 128, 128, 768)


def test_one_agent_without_specialization_still_stages() -> None:
    """`warp_specialize=False`: one agent, the scales written into staging buffers."""
    ptx = _ptx(warp_specialize=False)
    assert ".reqntid 256, 1, 1" in ptx and "setmaxnreg" not in ptx
    _run(ptx, 128, 128, 256)


def _remarks(module: ModuleOp) -> list[Remark]:
    tileas = compile_module(module, "sm_100a", stop_after="tileas")
    assert tileas.module is not None
    return tileas_remarks(tileas.module, "sm_100a")


def _reason(module_text: str | None = None, corpus: str | None = None) -> str:
    if corpus is not None:
        module = load_module(CORPUS / f"{corpus}.mlir")
    else:
        assert module_text is not None
        module = parse_module_text(module_text, "k.mlir")
    (remark,) = [r.message for r in _remarks(module) if r.name == "DotPipelined"]
    return remark[remark.index("not warp-specialized: ") :]


def test_scales_not_in_the_copy_layout_stay_in_one_agent() -> None:
    """The reasons: B's scale blocks permuted otherwise (`UNSWAPPED`), A's `128 x 4` (MXFP4, with the register
    gate as if an agent staged them), A's `128 x 2` (not whole 4-group blocks)."""
    assert _reason(UNSWAPPED).startswith(
        "not warp-specialized: B's scales are not laid out in their raw tile as tcgen05.cp"
    )
    mxfp4 = _reason(corpus="block_scaled_mm_e2m1_m128")
    assert mxfp4.startswith(
        "not warp-specialized: A's scales are not laid out in their raw tile as tcgen05.cp "
        "copies them: the kernel's warps would stage them"
    )
    assert "leave each thread 32 registers, fewer than the producer's 40" in mxfp4
    assert "A's scales come as 128x2 tiles" in _reason(corpus="block_scaled_mm_e4m3_m128")
