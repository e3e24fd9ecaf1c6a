"""`occupancy.fit_occupancy`: an `occupancy` hint whose register share cannot hold a
loop's tensor-core accumulators and the operands the loop computes from them is lowered
to the largest occupancy that can, recorded on the kernel with a remark, and everything
that reads the hint reads the recorded value: the `.maxnreg`, the rings' shared memory,
P from registers.

The corpus kernel `attention_occupancy_f16` has the tiles and the hint of cuTile's
attention test with head size 128 (128x128 scores and output, `occupancy=2`, 8 warps):
S, O and P take 160 registers a thread, more than the hint's 128.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, load_module, parse_module_text
from tileir.driver.remarks import tileas_remarks
from tileir.transforms.tileas.occupancy import OCCUPANCY_ATTR, OCCUPANCY_NOTE_ATTR
from tileir.transforms.tileas.ring_budget import occupancy_hint

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
FMHA = CORPUS / "attention_occupancy_f16.mlir"


def _kernel(module: ModuleOp) -> func.FuncOp:
    return next(op for op in module.walk() if isinstance(op, func.FuncOp))


def _tileas(module: ModuleOp, arch: str) -> ModuleOp:
    result = compile_module(module, arch, stop_after="tileas")
    assert result.module is not None
    return result.module


def test_fmha_tiles_are_compiled_for_one_cta_on_sm_90a() -> None:
    tileas = _tileas(load_module(FMHA), "sm_90a")
    fn = _kernel(tileas)
    assert fn.attributes[OCCUPANCY_ATTR] == IntegerAttr(1, i32)
    assert occupancy_hint(fn, "sm_90a") == 1
    (remark,) = [
        r for r in tileas_remarks(tileas, "sm_90a") if r.name == "OccupancyHintNotHonoured"
    ]
    assert remark.kind == "missed" and remark.category == "Kernel"
    # S and O (64 registers a thread each) and P (32 words of f16 pairs).
    assert remark.message.startswith(
        "occupancy hint 2 not honoured: a loop's tensor-core accumulators and the operands "
        "it computes from them need 160 registers a thread, more than the 128 that 2 CTAs "
        "of 256 threads leave; compiled for 1 CTA per SM (255 registers a thread)"
    ), remark.message
    ptx = compile_module(load_module(FMHA), "sm_90a").ptx
    assert ptx is not None and ".maxnreg 255\n" in ptx
    # P goes to the second wgmma from registers, which 128 registers did not allow.
    assert re.search(
        r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.f16\.f16 \{[^}]*\}, \{%r", ptx
    )
    report = run_ptxas(ptx, "sm_90a")
    assert report.ok and set(report.spills.values()) == {0}, report.output


def test_tensor_memory_accumulators_keep_the_hint() -> None:
    """On sm_100a the 128-row S and O live in tensor memory: no registers to count."""
    fn = _kernel(_tileas(load_module(FMHA), "sm_100a"))
    assert OCCUPANCY_ATTR not in fn.attributes and OCCUPANCY_NOTE_ATTR not in fn.attributes
    assert occupancy_hint(fn, "sm_100a") == 2
    ptx = compile_module(load_module(FMHA), "sm_100a").ptx
    assert ptx is not None and ".maxnreg 128\n" in ptx


LOOP_DOT = """
cuda_tile.module @m {{
  entry @k(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %kt: tile<i32>)
      optimization_hints=<sm_90 = {{occupancy = {hint}}}> {{
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %ta = make_tensor_view %a, shape = [{m}, 1024], strides = [1024, 1] : tensor_view<{m}x1024xf16, strides=[1024,1]>
    %tb = make_tensor_view %b, shape = [1024, {n}], strides = [{n}, 1] : tensor_view<1024x{n}xf16, strides=[{n},1]>
    %tc = make_tensor_view %c, shape = [{m}, {n}], strides = [{n}, 1] : tensor_view<{m}x{n}xf32, strides=[{n},1]>
    %pa = make_partition_view %ta : partition_view<tile=({m}x32), tensor_view<{m}x1024xf16, strides=[1024,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(32x{n}), tensor_view<1024x{n}xf16, strides=[{n},1]>>
    %pc = make_partition_view %tc : partition_view<tile=({m}x{n}), tensor_view<{m}x{n}xf32, strides=[{n},1]>>
    %zero = constant <f32: 0.000000e+00> : tile<{m}x{n}xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<{m}x{n}xf32>) {{
      %la, %lat = load_view_tko weak %pa[%c0, %i] token = %t : partition_view<tile=({m}x32), tensor_view<{m}x1024xf16, strides=[1024,1]>>, tile<i32> -> tile<{m}x32xf16>, token
      %lb, %lbt = load_view_tko weak %pb[%i, %c0] token = %t : partition_view<tile=(32x{n}), tensor_view<1024x{n}xf16, strides=[{n},1]>>, tile<i32> -> tile<32x{n}xf16>, token
      %d = mmaf %la, %lb, %x : tile<{m}x32xf16>, tile<32x{n}xf16>, tile<{m}x{n}xf32>
      continue %d : tile<{m}x{n}xf32>
    }}
    %s = store_view_tko weak %acc, %pc[%c0, %c0] token = %t : tile<{m}x{n}xf32>, partition_view<tile=({m}x{n}), tensor_view<{m}x{n}xf32, strides=[{n},1]>>, tile<i32> -> token
    return
  }}
}}
"""


@pytest.mark.parametrize(
    ("m", "n", "hint", "loops"),
    [
        (64, 64, 4, 1),  # 4 warps: 32 accumulator registers, 128 for 4 CTAs
        (128, 64, 4, 1),  # 64 registers a thread
        (128, 128, 2, 1),  # 8 warps: 64
        (128, 128, 3, 2),  # split-dot-accumulators (64 + its reserve of 64 > 80): halves
        (128, 128, 4, 2),  # and with 4 CTAs of 128 threads
    ],
)
def test_a_gemm_loop_keeps_its_hint(m: int, n: int, hint: int, loops: int) -> None:
    """A GEMM's accumulator fits the hint's share, or split-dot-accumulators (which runs
    first, on cuda_tile) runs its K loop once per part so that each part's does: the
    hint is lowered only where no split helps (attention's loops carry more than the
    accumulator, and are not split)."""
    module = parse_module_text(LOOP_DOT.format(m=m, n=n, hint=hint), "gemm.mlir")
    tileas = _tileas(module, "sm_90a")
    fn = _kernel(tileas)
    assert OCCUPANCY_ATTR not in fn.attributes
    assert occupancy_hint(fn, "sm_90a") == hint
    assert sum(isinstance(op, scf.ForOp) for op in fn.walk()) == loops
