"""Tiles outside a view's index space, in the interpreter and in tileir's PTX.

The Tile IR specification calls a tile index outside a partition view's index space
undefined.  tileir gives a bounds-checked view access (one without `inbounds`) the
meaning NVIDIA's tileiras compiles it to (its SASS tests the tile index against the
index space even where the tiles divide the tensor): every element of such a tile is
out of bounds, so a load gives the view's padding value everywhere and a store or
`atomic_red_view_tko` writes nothing.  cuTile kernels rely on it when they launch
more tile blocks than there are tiles (cuTile's FFT sample).  The interpreter and
the PTX (run in the simulator) must agree on every element, on each target, and
the simulator fails any access outside the arrays.  An `inbounds` promise that a
tile lies in bounds makes such an index an error in the interpreter.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileir.compiler import compile_module, load_module
from tileir.interpreter import KernelError, launch
from tileir.testing import simulate

ARCHES = ("sm_80", "sm_90a", "sm_100a")

X = "tensor_view<64x32xf32, strides=[32,1]>"
XP = f"partition_view<tile=(16x32), padding_value = nan, {X}>"
Y = "tensor_view<?x32xf32, strides=[32,1]>"
YP = f"partition_view<tile=(16x32), {Y}>"
C = "tensor_view<8xi32, strides=[1]>"
CP = f"partition_view<tile=(4), {C}>"
R = "tensor_view<?xf32, strides=[1]>"
RP = f"partition_view<tile=(64), padding_value = neg_inf, {R}>"

#: Block `bx` loads tile `bx` of a static 64x32 `x` (4 tiles; both dimensions divided,
#: so no per-element mask) and copies it to row block `bx` of `o` (one per block, so
#: blocks past `x` show its padding).  It stores the tile to `y`, whose `n` rows are
#: declared a multiple of 16 (`assume div_by`): the blocks past `y` store nothing.
#: It adds one to four counters of an 8-element array through `atomic_red_view_tko`
#: (two tiles): blocks past it add nothing.  And it loads tile `bx` of a ragged
#: `r` (masked per element) with `neg_inf` padding into `ro`.
OUTSIDE = f"""
cuda_tile.module @m {{
  entry @k(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %n: tile<i32>, %o: tile<ptr<f32>>,
           %m: tile<i32>, %c: tile<ptr<i32>>, %r: tile<ptr<f32>>, %rn: tile<i32>,
           %ro: tile<ptr<f32>>, %rm: tile<i32>) {{
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %xv = make_tensor_view %x, shape = [64, 32], strides = [32, 1] : {X}
    %xp = make_partition_view %xv : {XP}
    %t, %tok = load_view_tko weak %xp[%bx, %c0] : {XP}, tile<i32> -> tile<16x32xf32>, token
    %nd = assume div_by<16>, %n : tile<i32>
    %yv = make_tensor_view %y, shape = [%nd, 32], strides = [32, 1] : tile<i32> -> {Y}
    %yp = make_partition_view %yv : {YP}
    %s1 = store_view_tko weak %t, %yp[%bx, %c0] : tile<16x32xf32>, {YP}, tile<i32> -> token
    %ov = make_tensor_view %o, shape = [%m, 32], strides = [32, 1] : tile<i32> -> {Y}
    %op = make_partition_view %ov : {YP}
    %s2 = store_view_tko weak %t, %op[%bx, %c0] : tile<16x32xf32>, {YP}, tile<i32> -> token
    %one = constant <i32: 1> : tile<4xi32>
    %cv = make_tensor_view %c, shape = [8], strides = [1] : {C}
    %cp = make_partition_view %cv : {CP}
    %s3 = atomic_red_view_tko relaxed device %cp[%bx], add, %one : tile<4xi32>, {CP}, tile<i32> -> token
    %rv = make_tensor_view %r, shape = [%rn], strides = [1] : tile<i32> -> {R}
    %rp = make_partition_view %rv : {RP}
    %u, %tok2 = load_view_tko weak %rp[%bx] : {RP}, tile<i32> -> tile<64xf32>, token
    %rov = make_tensor_view %ro, shape = [%rm], strides = [1] : tile<i32> -> {R}
    %rop = make_partition_view %rov : {RP}
    %s4 = store_view_tko weak %u, %rop[%bx] : tile<64xf32>, {RP}, tile<i32> -> token
    return
  }}
}}
"""

BLOCKS = 6


def outside_args() -> list[object]:
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    y = np.full((32, 32), -1.0, np.float32)
    o = np.full((BLOCKS * 16, 32), -2.0, np.float32)
    c = np.zeros(8, np.int32)
    r = np.arange(100, dtype=np.float32)
    ro = np.full(BLOCKS * 64, -3.0, np.float32)
    return [x, y, 32, o, BLOCKS * 16, c, r, 100, ro, BLOCKS * 64]


def check_outside(args: list[object]) -> None:
    x, y, _, o, _, c, r, _, ro, _ = args
    assert isinstance(x, np.ndarray) and isinstance(o, np.ndarray) and isinstance(y, np.ndarray)
    assert isinstance(c, np.ndarray) and isinstance(r, np.ndarray) and isinstance(ro, np.ndarray)
    np.testing.assert_array_equal(o[:64], x)
    assert np.isnan(o[64:]).all()  # blocks 4 and 5: x's padding
    np.testing.assert_array_equal(y, x[:32])  # blocks 2..5 store nothing
    np.testing.assert_array_equal(c, np.ones(8, np.int32))  # blocks 2..5 add nothing
    np.testing.assert_array_equal(ro[:100], r)
    np.testing.assert_array_equal(ro[100:], -np.inf)  # the ragged tile 1 and tiles 2..5


def test_interpreter_pads_tiles_outside_the_index_space(tmp_path: Path) -> None:
    path = tmp_path / "outside.mlir"
    path.write_text(OUTSIDE)
    args = outside_args()
    launch(path, (BLOCKS, 1, 1), *args)
    check_outside(args)


@pytest.mark.parametrize("arch", ARCHES)
def test_ptx_agrees_with_the_interpreter_outside_the_index_space(tmp_path: Path, arch: str) -> None:
    path = tmp_path / "outside.mlir"
    path.write_text(OUTSIDE)
    ptx = compile_module(load_module(path), arch).ptx
    assert ptx is not None
    by_ptx, by_interpreter = outside_args(), outside_args()
    simulate(ptx, (BLOCKS, 1, 1), by_ptx)
    launch(path, (BLOCKS, 1, 1), *by_interpreter)
    check_outside(by_ptx)
    for got, want in zip(by_ptx, by_interpreter, strict=True):
        if isinstance(got, np.ndarray):
            assert isinstance(want, np.ndarray)
            assert got.tobytes() == want.tobytes()


def test_index_read_as_unsigned_is_outside(tmp_path: Path) -> None:
    """Index operands are unsigned: -1 is the largest index, far outside."""
    text = OUTSIDE.replace(
        "%bx, %by, %bz = get_tile_block_id : tile<i32>", "%bx = constant <i32: -1> : tile<i32>"
    )
    path = tmp_path / "minus_one.mlir"
    path.write_text(text)
    args = outside_args()
    launch(path, (1, 1, 1), *args)
    o, c = args[3], args[5]
    assert isinstance(o, np.ndarray) and isinstance(c, np.ndarray)
    assert (o == -2.0).all() and (c == 0).all()


def test_inbounds_promise_outside_the_index_space_is_diagnosed(tmp_path: Path) -> None:
    text = OUTSIDE.replace(
        "%t, %tok = load_view_tko weak %xp[%bx, %c0] :",
        "%t, %tok = load_view_tko weak %xp[%bx, %c0] inbounds = [true, true] :",
    )
    path = tmp_path / "inbounds.mlir"
    path.write_text(text)
    with pytest.raises(KernelError, match=r"outside the view's index space .*`inbounds`"):
        launch(path, (BLOCKS, 1, 1), *outside_args())
