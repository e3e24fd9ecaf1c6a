"""split-dot-accumulators: a K loop with a 256x256 f32 accumulator (256 registers a
thread at 8 warps, more than a thread may have) runs once per 256x128 half, and the
halves' results equal the interpreter's and numpy's, ragged edges included.

The kernel is NVIDIA's cuTile matmul shape with a 16-deep K tile (so that the simulator
runs it quickly): C (200x300 f16) = A (200x40) @ B (40x300) on a 1x2 grid, so the
second CTA's second half lies wholly outside N and its first half is ragged.  Small
integers keep every sum exact.  A broken split whose second pass addresses the first
half again (its B columns and its store) leaves columns unwritten and must fail.
"""

from __future__ import annotations

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, parse_module_text
from tileir.driver.remarks import tileas_remarks
from tileir.interpreter import launch
from tileir.testing import simulate
from tileir.transforms.cuda_tile import split_accumulators

TILE = "partition_view<tile=({shape}), {pad}tensor_view<?x?xf16, strides=[?,1]>>"
A_VIEW = TILE.format(shape="256x16", pad="padding_value = zero, ")
B_VIEW = TILE.format(shape="16x256", pad="padding_value = zero, ")
C_VIEW = TILE.format(shape="256x256", pad="")

KERNEL = f"""
cuda_tile.module @m {{
  entry @matmul(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f16>>,
                %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {{
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %pa = make_partition_view %ta : {A_VIEW}
    %pb = make_partition_view %tb : {B_VIEW}
    %zero = constant <f32: 0.000000e+00> : tile<256x256xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<256x256xf32>) {{
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : {A_VIEW}, tile<i32> -> tile<256x16xf16>, token
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : {B_VIEW}, tile<i32> -> tile<16x256xf16>, token
      %d = mmaf %la, %lb, %x : tile<256x16xf16>, tile<16x256xf16>, tile<256x256xf32>
      continue %d : tile<256x256xf32>
    }}
    %h = ftof %acc : tile<256x256xf32> -> tile<256x256xf16>
    %pc = make_partition_view %tc : {C_VIEW}
    %s = store_view_tko weak %h, %pc[%bx, %by] token = %t : tile<256x256xf16>, {C_VIEW}, tile<i32> -> token
    return
  }}
}}
"""

M, N, K = 200, 300, 40
GRID = (1, 2, 1)


def _arguments(c: np.ndarray) -> list[object]:
    rng = np.random.default_rng(15)
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    return [a, b, c, M, N, K, -(-K // 16)]


def _expected() -> np.ndarray:
    a, b = _arguments(np.zeros(0))[:2]
    assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)


def _simulated(arch: str) -> np.ndarray:
    ptx = compile_module(parse_module_text(KERNEL, "matmul.mlir"), arch).ptx
    assert ptx is not None
    got = np.zeros((M, N), np.float16)
    simulate(ptx, GRID, _arguments(got))
    return got


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_split_dot_matches_interpreter(arch: str) -> None:
    module = parse_module_text(KERNEL, "matmul.mlir")
    tileaa = compile_module(module, arch, stop_after="tileaa").module
    assert tileaa is not None
    shown = str(tileaa)
    assert shown.count("scf.for") == 2
    assert "accumulator of 256 registers a thread split into 2 passes of 128" in shown
    tileas = compile_module(parse_module_text(KERNEL, "matmul.mlir"), arch, stop_after="tileas")
    assert tileas.module is not None
    split = [r for r in tileas_remarks(tileas.module, arch) if r.name == "AccumulatorSplit"]
    assert len(split) == 2 and split[0].kind == "passed"
    assert split[0].message.endswith("split into 2 passes of 128")
    ptx = compile_module(parse_module_text(KERNEL, "matmul.mlir"), arch).ptx
    assert ptx is not None
    report = run_ptxas(ptx, arch)
    assert report.ok and set(report.spills.values()) == {0}, report.output
    got = np.zeros((M, N), np.float16)
    simulate(ptx, GRID, _arguments(got))
    by_interpreter = np.zeros((M, N), np.float16)
    launch(parse_module_text(KERNEL, "matmul.mlir"), GRID, *_arguments(by_interpreter))
    np.testing.assert_array_equal(by_interpreter, _expected())
    np.testing.assert_array_equal(got, by_interpreter)


def test_second_pass_on_the_first_half_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    index = split_accumulators.Halver.index

    def first_half_only(self: split_accumulators.Halver, value: object, h: int) -> object:
        return index(self, value, 0)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(split_accumulators.Halver, "index", first_half_only)
    got = _simulated("sm_90a")
    assert not np.array_equal(got, _expected())
    np.testing.assert_array_equal(got[:, :128], _expected()[:, :128])
