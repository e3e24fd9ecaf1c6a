"""`tileas-sink-loads`: a tile loaded at the top of a kernel and first used after a
product that goes through shared memory is loaded right before that use, not held in
registers across the product's exchanges (`t_fft_f32`'s twiddle tile, docs/codegen.md);
the kernel still matches numpy in the PTX simulator, and a store between the two places
keeps the load where it is."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tileir.compiler import compile_module, load_module
from tileir.testing import simulate

KERNEL = """
entry @twiddled(%a: tile<ptr<f32>>, %x: tile<ptr<f32>>, %t: tile<ptr<f32>>,
                %out: tile<ptr<f32>>, %copy: tile<ptr<f32>>) {
  %t0 = make_token : token
  %z = constant <i32: 0> : tile<i32>
  %av = make_tensor_view %a, shape = [16, 16], strides = [16, 1] : tensor_view<16x16xf32, strides=[16,1]>
  %xv = make_tensor_view %x, shape = [16, 64], strides = [64, 1] : tensor_view<16x64xf32, strides=[64,1]>
  %tv = make_tensor_view %t, shape = [16, 64], strides = [64, 1] : tensor_view<16x64xf32, strides=[64,1]>
  %ov = make_tensor_view %out, shape = [16, 64], strides = [64, 1] : tensor_view<16x64xf32, strides=[64,1]>
  %cv = make_tensor_view %copy, shape = [16, 16], strides = [16, 1] : tensor_view<16x16xf32, strides=[16,1]>
  %ap = make_partition_view %av : partition_view<tile=(16x16), tensor_view<16x16xf32, strides=[16,1]>>
  %xp = make_partition_view %xv : partition_view<tile=(16x64), tensor_view<16x64xf32, strides=[64,1]>>
  %tp = make_partition_view %tv : partition_view<tile=(16x64), tensor_view<16x64xf32, strides=[64,1]>>
  %op = make_partition_view %ov : partition_view<tile=(16x64), tensor_view<16x64xf32, strides=[64,1]>>
  %cp = make_partition_view %cv : partition_view<tile=(16x16), tensor_view<16x16xf32, strides=[16,1]>>
  %ta, %t1 = load_view_tko weak %ap[%z, %z] token = %t0 : partition_view<tile=(16x16), tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> tile<16x16xf32>, token
  %tx, %t2 = load_view_tko weak %xp[%z, %z] token = %t0 : partition_view<tile=(16x64), tensor_view<16x64xf32, strides=[64,1]>>, tile<i32> -> tile<16x64xf32>, token
  %tt, %t3 = load_view_tko weak %tp[%z, %z] token = %t0 : partition_view<tile=(16x64), tensor_view<16x64xf32, strides=[64,1]>>, tile<i32> -> tile<16x64xf32>, token
  STORE
  %zero = constant <f32: 0.000000e+00> : tile<16x64xf32>
  %p = mmaf %ta, %tx, %zero : tile<16x16xf32>, tile<16x64xf32>, tile<16x64xf32>
  %r = mulf %p, %tt : tile<16x64xf32>
  %t5 = store_view_tko weak %r, %op[%z, %z] token = %t0 : tile<16x64xf32>, partition_view<tile=(16x64), tensor_view<16x64xf32, strides=[64,1]>>, tile<i32> -> token
  return
}
"""

#: A store of A between the loads and the product: the twiddle tile stays at the top.
STORE = (
    "%t4 = store_view_tko weak %ta, %cp[%z, %z] token = %t0 : tile<16x16xf32>, "
    "partition_view<tile=(16x16), tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> token"
)


def _compiled(tmp_path: Path, store: bool) -> tuple[str, str]:
    path = tmp_path / "twiddled.mlir"
    path.write_text(KERNEL.replace("STORE", STORE if store else ""))
    compiled = compile_module(load_module(path), "sm_90a", keep_stages=True)
    assert compiled.ptx is not None
    return compiled.ptx, compiled.stages["tileas"]


@pytest.mark.parametrize("store", [False, True])
def test_twiddle_load_sinks_to_its_use(tmp_path: Path, store: bool) -> None:
    ptx, tileas = _compiled(tmp_path, store)
    ops = re.findall(r"nv_tileas\.(tiled_load|dot)\b", tileas)
    # Without a store between, the third load (the twiddles) follows the product.
    assert ops == (
        ["tiled_load"] * 3 + ["dot"] if store else ["tiled_load"] * 2 + ["dot", "tiled_load"]
    )
    rng = np.random.default_rng(3)
    a = rng.standard_normal((16, 16)).astype(np.float32)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    t = rng.standard_normal((16, 64)).astype(np.float32)
    out = np.zeros((16, 64), np.float32)
    copy = np.zeros((16, 16), np.float32)
    simulate(ptx, (1, 1, 1), [a, x, t, out, copy])
    np.testing.assert_allclose(out, (a @ x) * t, rtol=1e-5, atol=1e-5)
    if store:
        np.testing.assert_array_equal(copy, a)
