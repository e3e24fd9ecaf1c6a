"""`targets.register_budget` and `assign_layouts.dot_warps`: the register budget a
kernel carries (`.maxnreg`), raised where its occupancy hint cannot be met
(`kernel.relax_occupancy_cap`), and the warps a large dot accumulator gets; and the
per-target CTA resources `convert-tileaa-to-tileas` checks against."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.parser import Parser

from tileir.compiler import compile_module, load_module
from tileir.conversions.tileas_to_llvm.kernel import OccupancyCap, relax_occupancy_cap
from tileir.pipelines import stage_passes
from tileir.registry import make_context
from tileir.targets import hint_target, register_budget
from tileir.transforms.tileas.assign_layouts import dot_warps


@pytest.mark.parametrize(
    ("threads", "ctas", "budget"),
    [
        (128, 1, 255),  # 512 would fit: capped at 255
        (256, 1, 255),
        (384, 1, 168),  # 170, rounded down to the allocation granule (tileiras: 168)
        (256, 2, 128),
        (512, 4, 32),
        (1024, 32, 16),  # asks for less than ptxas can give: the floor
    ],
)
def test_register_budget(threads: int, ctas: int, budget: int) -> None:
    assert register_budget(threads, ctas) == budget


@pytest.mark.parametrize(
    ("arch", "shared", "maxnreg"),
    [
        ("sm_90a", 88 * 1024, 128),  # two CTAs fit in 228 KiB: the hint holds
        ("sm_90a", 113 * 1024, 128),  # exactly two (1 KiB reserved each)
        ("sm_90a", 113 * 1024 + 1, 255),  # one CTA: the cap buys nothing
        ("sm_80", 81 * 1024, 128),  # 164 KiB an SM on sm_80
        ("sm_80", 100 * 1024, 255),
        ("sm_90a", 300 * 1024, 255),  # cannot launch at all: still the one-CTA share
    ],
)
def test_an_occupancy_cap_shared_memory_defeats_is_raised(
    arch: str, shared: int, maxnreg: int
) -> None:
    fn = llvm.FuncOp("k", llvm.LLVMFunctionType([], llvm.LLVMVoidType()))
    fn.attributes["nvvm.maxnreg"] = IntegerAttr(128, i32)
    relax_occupancy_cap(fn, OccupancyCap(threads=256, hint=2), shared, arch)
    assert fn.attributes["nvvm.maxnreg"] == IntegerAttr(maxnreg, i32)


def test_wide_attention_keeps_the_registers_its_hint_cannot_use() -> None:
    """`attention_wide_kv_bf16` asks for two CTAs per SM but takes more than half an
    SM's shared memory on sm_90a (its 64x256 scores and 256-key tiles): `.maxnreg` is
    the one-CTA share, 255, not the hint's 128 (where ptxas spilled 388 bytes)."""
    corpus = Path(__file__).resolve().parents[1] / "corpus"
    ptx = compile_module(load_module(corpus / "attention_wide_kv_bf16.mlir"), "sm_90a").ptx
    assert ptx is not None
    assert re.search(r"\.maxnreg 255\b", ptx)
    smem = sum(int(n) for n in re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]", ptx))
    assert smem > 113 * 1024


def test_hint_target_drops_the_feature_suffix() -> None:
    assert [hint_target(a) for a in ("sm_80", "sm_90a", "sm_100a", "sm_120")] == [
        "sm_80",
        "sm_90",
        "sm_100",
        "sm_120",
    ]


def _tileaa(text: str) -> func.FuncOp:
    ctx: Context = make_context()
    module = Parser(ctx, text).parse_module()
    for p in stage_passes("sm_90a", 4)[0][1]:
        p.apply(ctx, module)
    return next(op for op in module.walk() if isinstance(op, func.FuncOp))


DOT = """
cuda_tile.module @m {{
  entry @k(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>) {{
    %av = make_tensor_view %a, shape = [{m}, 32], strides = [32, 1] : tensor_view<{m}x32xf16, strides=[32,1]>
    %bv = make_tensor_view %b, shape = [32, {n}], strides = [{n}, 1] : tensor_view<32x{n}xf16, strides=[{n},1]>
    %ap = make_partition_view %av : partition_view<tile=({m}x32), tensor_view<{m}x32xf16, strides=[32,1]>>
    %bp = make_partition_view %bv : partition_view<tile=(32x{n}), tensor_view<32x{n}xf16, strides=[{n},1]>>
    %cv = make_tensor_view %c, shape = [{m}, {n}], strides = [{n}, 1] : tensor_view<{m}x{n}xf32, strides=[{n},1]>
    %cp = make_partition_view %cv : partition_view<tile=({m}x{n}), tensor_view<{m}x{n}xf32, strides=[{n},1]>>
    %z = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%z, %z] : partition_view<tile=({m}x32), tensor_view<{m}x32xf16, strides=[32,1]>>, tile<i32> -> tile<{m}x32xf16>, token
    %y, %t1 = load_view_tko weak %bp[%z, %z] : partition_view<tile=(32x{n}), tensor_view<32x{n}xf16, strides=[{n},1]>>, tile<i32> -> tile<32x{n}xf16>, token
    %acc = constant <f32: 0.000000e+00> : tile<{m}x{n}xf32>
    %r = mmaf %x, %y, %acc : tile<{m}x32xf16>, tile<32x{n}xf16>, tile<{m}x{n}xf32>
    %t2 = store_view_tko weak %r, %cp[%z, %z] : tile<{m}x{n}xf32>, partition_view<tile=({m}x{n}), tensor_view<{m}x{n}xf32, strides=[{n},1]>>, tile<i32> -> token
    return
  }}
}}
"""


@pytest.mark.parametrize(
    ("m", "n", "requested", "warps"),
    [
        (64, 64, 4, 4),  # 32 accumulator registers per thread
        (128, 64, 4, 4),  # 64: the threshold itself
        (128, 128, 4, 8),  # 128 with 4 warps
        (256, 256, 4, 8),  # 512 with 4, 256 with 8: capped at 8
        (128, 128, 2, 8),
        (64, 64, 8, 8),  # never fewer than asked
    ],
)
def test_dot_warps(m: int, n: int, requested: int, warps: int) -> None:
    assert dot_warps(_tileaa(DOT.format(m=m, n=n)), requested) == warps


@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_90a", "sm_100a"])
def test_every_target_aware_pass_of_the_pipeline_gets_the_target(arch: str) -> None:
    """`convert-tileaa-to-tileas` checks an `execute`'s resources against the CTA of
    the target being compiled for (it was always sm_90a's)."""
    from tileir.conversions.tileaa_queues import ResourceModel
    from tileir.conversions.tileaa_to_tileas import ConvertTileAAToTileASPass
    from tileir.targets import ARCHS

    passes = [p for _, stage in stage_passes(arch, 4) for p in stage]
    (boundary,) = [p for p in passes if isinstance(p, ConvertTileAAToTileASPass)]
    assert boundary.arch == arch
    model = ResourceModel.for_arch(arch)
    assert model.shared_memory_bytes == ARCHS[arch].shared_per_block
    assert (model.tensor_memory_bytes > 0) == (arch == "sm_100a")


LOOP = """
cuda_tile.module @m {{
  entry @k(%a: tile<ptr<f32>>, %n: tile<i32>) {{
    %av = make_tensor_view %a, shape = [{r}, {c}], strides = [{c}, 1] : tensor_view<{r}x{c}xf32, strides=[{c},1]>
    %ap = make_partition_view %av : partition_view<tile=({r}x{c}), tensor_view<{r}x{c}xf32, strides=[{c},1]>>
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %init = constant <f32: 0.000000e+00> : tile<{r}x{c}xf32>
    %sum = for %i in (%z to %n, step %one) : tile<i32> iter_values(%acc = %init) -> (tile<{r}x{c}xf32>) {{
      %x, %t = load_view_tko weak %ap[%z, %z] : partition_view<tile=({r}x{c}), tensor_view<{r}x{c}xf32, strides=[{c},1]>>, tile<i32> -> tile<{r}x{c}xf32>, token
      %s = addf %acc, %x : tile<{r}x{c}xf32>
      continue %s : tile<{r}x{c}xf32>
    }}
    %t2 = store_view_tko weak %sum, %ap[%z, %z] : tile<{r}x{c}xf32>, partition_view<tile=({r}x{c}), tensor_view<{r}x{c}xf32, strides=[{c},1]>>, tile<i32> -> token
    return
  }}
}}
"""


@pytest.mark.parametrize(
    ("r", "c", "warps"),
    [
        (32, 64, 4),  # 16 carried registers a thread
        (32, 512, 4),  # 128: the threshold itself
        (32, 1024, 8),  # 256 with 4 warps, 128 with 8
        (64, 1024, 16),  # 512 with 4: 16 warps
        (128, 1024, 16),  # capped at 16 (256 registers a thread)
    ],
)
def test_loop_carried_tiles_get_more_warps(r: int, c: int, warps: int) -> None:
    """A loop's carried tiles (not dot accumulators) over 128 registers a thread double
    the warps, up to 16 (NVIDIA's LayerNorm backward sample carries two 32x1024 f32 sums:
    8.7 KB of spill stores with 4 warps, 0.9 KB with 16)."""
    assert dot_warps(_tileaa(LOOP.format(r=r, c=c)), 4) == warps


def test_sixteen_warp_loop_matches_numpy() -> None:
    """The 16-warp kernel of a 64x1024 carried sum, run in the PTX simulator."""
    import numpy as np

    from tileir.compiler import compile_module
    from tileir.testing import simulate

    module = Parser(make_context(), LOOP.format(r=64, c=1024)).parse_module()
    ptx = compile_module(module, "sm_80").ptx
    assert ptx is not None and ".reqntid 512, 1, 1" in ptx
    a = np.random.default_rng(0).integers(-100, 100, (64, 1024)).astype(np.float32)
    want = 3 * a
    simulate(ptx, (1, 1, 1), [a, 3])
    np.testing.assert_array_equal(a, want)
