"""A tile flattened only to be reduced, as cuTile's `ct.argmax(x, axis=None)` writes it
(`reshape` to one dimension, an `iota` of the flat indices, a two-operand `reduce`):
the reshape renames registers (`assign_layouts.renamed_reshape_results`), so no exchange
moves the tile, and the result is still numpy's.  NVIDIA's 512x128 f32 sample of this
shape did not compile before: its exchange needed 256 KiB of shared memory.

Simulated PTX against numpy (`np.argmax`: the first index of the maximum) and against
the interpreter, with ties that cross registers, lanes and warps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType

from tileir.compiler import compile_module, parse_module_text
from tileir.dialects.cuda_tile.carriers import shape_of
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import BlockedLayoutAttr, reshaped_linear
from tileir.interpreter import launch
from tileir.testing import simulate

ROWS, COLS = 64, 32

KERNEL = f"""
cuda_tile.module @m {{
  entry @argmax_all(%x: tile<ptr<f32>>, %out: tile<ptr<i32>>) {{
    %xa = assume div_by<16>, %x : tile<ptr<f32>>
    %tv = make_tensor_view %xa, shape = [{ROWS}, {COLS}], strides = [{COLS}, 1] : tensor_view<{ROWS}x{COLS}xf32, strides=[{COLS},1]>
    %pv = make_partition_view %tv : partition_view<tile=({ROWS}x{COLS}), tensor_view<{ROWS}x{COLS}xf32, strides=[{COLS},1]>>
    %z = constant <i32: 0> : tile<i32>
    %t, %tok = load_view_tko weak %pv[%z, %z] : partition_view<tile=({ROWS}x{COLS}), tensor_view<{ROWS}x{COLS}xf32, strides=[{COLS},1]>>, tile<i32> -> tile<{ROWS}x{COLS}xf32>, token
    %flat = reshape %t : tile<{ROWS}x{COLS}xf32> -> tile<{ROWS * COLS}xf32>
    %i = iota : tile<{ROWS * COLS}xi32>
    %r:2 = reduce %flat, %i dim=0 identities=[0xFF800000 : f32, 0 : i32] : tile<{ROWS * COLS}xf32>, tile<{ROWS * COLS}xi32> -> tile<f32>, tile<i32>
    (%a0: tile<f32>, %b0: tile<f32>, %a1: tile<i32>, %b1: tile<i32>) {{
      %gt = cmpf greater_than ordered %a0, %b0 : tile<f32> -> tile<i1>
      %eq = cmpf equal ordered %a0, %b0 : tile<f32> -> tile<i1>
      %lt = cmpi less_than %a1, %b1, signed : tile<i32> -> tile<i1>
      %tie = andi %eq, %lt : tile<i1>
      %take = ori %gt, %tie : tile<i1>
      %v = select %take, %a0, %b0 : tile<i1>, tile<f32>
      %j = select %take, %a1, %b1 : tile<i1>, tile<i32>
      yield %v, %j : tile<f32>, tile<i32>
    }}
    %o = reshape %r#1 : tile<i32> -> tile<1xi32>
    %ov = make_tensor_view %out, shape = [1], strides = [1] : tensor_view<1xi32, strides=[1]>
    %opv = make_partition_view %ov : partition_view<tile=(1), tensor_view<1xi32, strides=[1]>>
    %s = store_view_tko weak %o, %opv[%z] : tile<1xi32>, partition_view<tile=(1), tensor_view<1xi32, strides=[1]>>, tile<i32> -> token
    return
  }}
}}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_the_reshape_renames_registers(arch: str) -> None:
    """The flat tile's layout is the loaded tile's seen through the reshape (4 f32 a
    thread), not the rank's default (one a thread, from the 1-element store), which the
    reshape would reach only through shared memory."""
    module = parse_module_text(KERNEL, "argmax.mlir")
    compile_module(module, arch, stop_after="tileas")
    flat = next(
        op
        for op in module.walk()
        if isinstance(op, tas.ViewOp)
        and op.is_value_view
        and tuple(shape_of(op.result.type)) == (ROWS * COLS,)
    )
    source, result = flat.src.type, flat.result.type
    assert isinstance(source, TensorType) and isinstance(result, TensorType)
    loaded, renamed = source.encoding, result.encoding
    assert isinstance(loaded, BlockedLayoutAttr) and isinstance(renamed, BlockedLayoutAttr)
    seen = reshaped_linear(loaded.linear([ROWS, COLS]), (ROWS * COLS,))
    assert renamed.linear([ROWS * COLS]) == seen
    assert tuple(renamed.spt) == (4,)


def inputs(maxima: list[int]) -> np.ndarray:
    """Random values below 1, with 1.0 at the flat indices `maxima`."""
    x = np.random.default_rng(5).uniform(-1, 0.99, (ROWS, COLS)).astype(np.float32)
    x.reshape(-1)[maxima] = 1.0
    return x


#: Where the maxima are: one; two in one thread's registers; across lanes; across warps
#: (the later one first in the list: the lower index must win whatever the tree).
MAXIMA = [[1500], [9, 10], [700, 37], [2047, 1536, 513]]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("maxima", MAXIMA, ids=lambda m: "-".join(map(str, m)))
def test_flattened_argmax_is_numpys(arch: str, maxima: list[int], tmp_path: Path) -> None:
    result = compile_module(parse_module_text(KERNEL, "argmax.mlir"), arch)
    assert result.ptx is not None
    x = inputs(maxima)
    got = np.full(1, -1, np.int32)
    simulate(result.ptx, (1, 1, 1), [x.copy(), got])
    assert got[0] == np.argmax(x) == min(maxima)
    path = tmp_path / "argmax.mlir"
    path.write_text(KERNEL)
    interpreted = np.full(1, -1, np.int32)
    launch(path, (1, 1, 1), x.copy(), interpreted)
    assert interpreted[0] == got[0]
