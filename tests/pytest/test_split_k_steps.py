"""split-dot-k-steps: a K loop whose operand stage does not fit twice in the shared
memory its rings may take runs twice as many steps of half the K width, and its result
equals numpy's, the interpreter's (before and after the split) and the PTX simulator's,
ragged K included.

The kernel is cuTile's AllGatherMatmul (a tf32 GEMM read as f32, K steps of 128) with
64x64 output tiles: its stage of 32 + 32 KiB does not fit twice in the 109 KiB the
rings of a kernel asking for two CTAs an SM may take, so it runs in K steps of 64.  C
(50x40) = A (50x300) @ B (300x40) in one CTA (ragged in M and N too, so that the
simulator runs it quickly): three 128-wide K blocks become six steps of 64, the fifth
ragged (256..300) and the sixth wholly outside K (padding only).  Small
integers keep every product and sum exact in tf32 and f32.  A split that did not double
the loop's bound reads only half of K and must fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import PassEvent, compile_module, parse_module_text
from tileir.dialects.cuda_tile.ops.control_flow import ForOp
from tileir.dialects.cuda_tile.ops.integer import MulIOp
from tileir.driver.remarks import Remark, tileas_remarks
from tileir.interpreter import launch
from tileir.registry import make_context
from tileir.testing import simulate
from tileir.transforms.cuda_tile import split_k_steps

TILE = "partition_view<tile=({shape}), {pad}tensor_view<?x?xf32, strides=[?,1]>>"
A_VIEW = TILE.format(shape="64x128", pad="padding_value = zero, ")
B_VIEW = TILE.format(shape="128x64", pad="padding_value = zero, ")
C_VIEW = TILE.format(shape="64x64", pad="")

KERNEL = f"""
cuda_tile.module @m {{
  entry @matmul(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>,
                %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>)
      optimization_hints=<sm_90 = {{occupancy = 2}}> {{
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : {A_VIEW}
    %pb = make_partition_view %tb : {B_VIEW}
    %zero = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<64x64xf32>) {{
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : {A_VIEW}, tile<i32> -> tile<64x128xf32>, token
      %ra = ftof %la : tile<64x128xf32> -> tile<64x128xtf32>
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : {B_VIEW}, tile<i32> -> tile<128x64xf32>, token
      %rb = ftof %lb : tile<128x64xf32> -> tile<128x64xtf32>
      %d = mmaf %ra, %rb, %x : tile<64x128xtf32>, tile<128x64xtf32>, tile<64x64xf32>
      continue %d : tile<64x64xf32>
    }}
    %pc = make_partition_view %tc : {C_VIEW}
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<64x64xf32>, {C_VIEW}, tile<i32> -> token
    return
  }}
}}
"""

M, N, K = 50, 40, 300
GRID = (1, 1, 1)
SPLIT = "K step of 128 split into 2 steps of 64"


def _arguments(c: np.ndarray) -> list[object]:
    rng = np.random.default_rng(16)
    a = rng.integers(-3, 4, (M, K)).astype(np.float32)
    b = rng.integers(-3, 4, (K, N)).astype(np.float32)
    return [a, b, c, M, N, K, -(-K // 128)]


def _expected() -> np.ndarray:
    a, b = _arguments(np.zeros(0))[:2]
    assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def _split_module() -> ModuleOp:
    ctx = make_context()
    module = parse_module_text(KERNEL, "matmul.mlir", ctx)
    split_k_steps.SplitKStepsPass(arch="sm_90a").apply(ctx, module)
    return module


def _interpreted(module: ModuleOp) -> np.ndarray:
    got = np.zeros((M, N), np.float32)
    launch(module, GRID, *_arguments(got))
    return got


def test_split_k_steps_match_numpy() -> None:
    split = _split_module()
    assert SPLIT in str(split) and "tile<64x64xtf32>, tile<64x64xtf32>" in str(split)
    np.testing.assert_array_equal(_interpreted(parse_module_text(KERNEL, "m.mlir")), _expected())
    np.testing.assert_array_equal(_interpreted(split), _expected())
    remarks: list[Remark] = []

    def after(event: PassEvent) -> None:
        if event.stage == "tileas" and event.ends_stage:
            found = tileas_remarks(event.module, "sm_90a")
            remarks.extend(r for r in found if r.name == "KStepSplit")

    ptx = compile_module(parse_module_text(KERNEL, "matmul.mlir"), "sm_90a", on_pass=after).ptx
    assert len(remarks) == 1 and remarks[0].kind == "passed" and SPLIT in remarks[0].message
    assert ptx is not None
    report = run_ptxas(ptx, "sm_90a")
    assert report.ok and set(report.spills.values()) == {0}, report.output
    got = np.zeros((M, N), np.float32)
    simulate(ptx, GRID, _arguments(got))
    np.testing.assert_array_equal(got, _expected())


def test_split_without_doubled_bound_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge catches a split that narrows the step but keeps the loop's bounds."""

    def same_bounds(loop: ForOp, dot: Operation, plan: split_k_steps.Plan) -> None:
        real(loop, dot, plan)
        for bound in (0, 1):  # undo the scaling of the lower and upper bounds
            scaled = loop.operands[bound].owner
            assert isinstance(scaled, MulIOp)
            loop.operands[bound] = scaled.operands[0]

    real = split_k_steps.split_step
    monkeypatch.setattr(split_k_steps, "split_step", same_bounds)
    got = _interpreted(_split_module())
    assert not np.array_equal(got, _expected())
