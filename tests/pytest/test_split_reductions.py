"""split-large-reductions: a tile loaded only to be reduced, whose words exceed what a
thread may hold (512x128 f32 at 4 warps: 512 registers a thread), is loaded in pieces
by a loop into a running piece-shaped tile and reduced once; the PTX, run in the
simulator, equals the interpreter (which runs the kernel unsplit) and numpy, ragged
edges included, and ptxas spills nothing.

Two kernels of cuTile's `t_reduce_*_all` shape: a float max along the rows of 512x128
tiles (NVIDIA's test, on a 2x2 grid of a 700x200 array: the second row of tiles is
ragged at a row that is no multiple of the 32-row pieces, and has pieces wholly
outside the array, read as the view's `neg_inf` padding), an integer sum along the
columns of 128x512 tiles (a 200x500 array, with the view's default padding) whose
values wrap around, and a float sum and an integer difference (not commutative) of the
first kernel's shape, split into 32 pieces of 16 rows combined in the reduce's tree
order: their results must be the interpreter's (the unsplit reduce) and numpy's tree
bit for bit, which the pieces combined in any other order miss.  A split whose pieces
all read the first one must fail.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, parse_module_text
from tileir.interpreter import launch
from tileir.testing import simulate
from tileir.transforms.cuda_tile import split_reductions

MAX_VIEW = (
    "partition_view<tile=(512x128), padding_value = neg_inf, tensor_view<?x?xf32, strides=[?,1]>>"
)
MAX_OUT = "partition_view<tile=(1x128), tensor_view<?x?xf32, strides=[?,1]>>"
MAX_KERNEL = f"""
cuda_tile.module @m {{
  entry @max_rows(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %gm: tile<i32>) {{
    %t = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %tx = make_tensor_view %x, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %px = make_partition_view %tx : {MAX_VIEW}
    %tile, %tok = load_view_tko weak %px[%bx, %by] token = %t : {MAX_VIEW}, tile<i32> -> tile<512x128xf32>, token
    %r = reduce %tile dim=0 identities=[0xFF800000 : f32] : tile<512x128xf32> -> tile<128xf32>
    (%a: tile<f32>, %b: tile<f32>) {{
      %c = maxf %a, %b : tile<f32>
      yield %c : tile<f32>
    }}
    %row = reshape %r : tile<128xf32> -> tile<1x128xf32>
    %ty = make_tensor_view %y, shape = [%gm, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %py = make_partition_view %ty : {MAX_OUT}
    %s = store_view_tko weak %row, %py[%bx, %by] token = %t : tile<1x128xf32>, {MAX_OUT}, tile<i32> -> token
    return
  }}
}}
"""

SUM_VIEW = "partition_view<tile=(128x512), tensor_view<?x?xi32, strides=[?,1]>>"
SUM_OUT = "partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>"
SUM_KERNEL = f"""
cuda_tile.module @m {{
  entry @sum_columns(%x: tile<ptr<i32>>, %y: tile<ptr<i32>>, %m: tile<i32>, %n: tile<i32>) {{
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %tx = make_tensor_view %x, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
    %px = make_partition_view %tx : {SUM_VIEW}
    %tile, %tok = load_view_tko weak %px[%bx, %c0] token = %t : {SUM_VIEW}, tile<i32> -> tile<128x512xi32>, token
    %r = reduce %tile dim=1 identities=[0 : i32] : tile<128x512xi32> -> tile<128xi32>
    (%a: tile<i32>, %b: tile<i32>) {{
      %c = addi %a, %b : tile<i32>
      yield %c : tile<i32>
    }}
    %ty = make_tensor_view %y, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %py = make_partition_view %ty : {SUM_OUT}
    %s = store_view_tko weak %r, %py[%bx] token = %t : tile<128xi32>, {SUM_OUT}, tile<i32> -> token
    return
  }}
}}
"""

FSUM_VIEW = "partition_view<tile=(512x128), tensor_view<?x?xf32, strides=[?,1]>>"
FSUM_KERNEL = (
    MAX_KERNEL.replace(MAX_VIEW, FSUM_VIEW)
    .replace("0xFF800000 : f32", "0.000000e+00 : f32")
    .replace("maxf %a, %b", "addf %a, %b")
)
ISUB_KERNEL = (
    FSUM_KERNEL.replace("f32", "i32")
    .replace("0.000000e+00 : i32", "0 : i32")
    .replace("addf %a, %b", "subi %a, %b")
)

MAX_M, MAX_N, MAX_GRID = 700, 200, (2, 2, 1)
SUM_M, SUM_N, SUM_GRID = 200, 500, (2, 1, 1)


def _max_arguments(y: np.ndarray) -> list[object]:
    x = np.random.default_rng(23).uniform(-100.0, -1.0, (MAX_M, MAX_N)).astype(np.float32)
    return [x, y, MAX_M, MAX_N, MAX_GRID[0]]


def _max_expected() -> np.ndarray:
    x = _max_arguments(np.zeros(0))[0]
    assert isinstance(x, np.ndarray)
    return np.stack([x[:512].max(axis=0), x[512:].max(axis=0)])


def tree(x: np.ndarray, body: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """The reduce's order along axis 0: rows r + half combined into rows r (the body's
    first argument, the element, is the upper row), halving until one row remains."""
    while len(x) > 1:
        half = len(x) // 2
        x = body(x[half:], x[:half])
    return x[0]


def _tiles(x: np.ndarray) -> np.ndarray:
    """`x` padded with zeros (the views' default padding) to whole 512-row tiles."""
    rows = -(-len(x) // 512) * 512
    return np.concatenate([x, np.zeros((rows - len(x), x.shape[1]), x.dtype)])


def _tree_inputs(seed: int, dtype: type) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype is np.float32:
        return rng.uniform(-1.0, 1.0, (MAX_M, MAX_N)).astype(np.float32)
    return rng.integers(-1000, 1000, (MAX_M, MAX_N)).astype(np.int32)


def _tree_case(
    seed: int, dtype: type, body: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> tuple[Callable[[np.ndarray], list[object]], Callable[[], np.ndarray]]:
    """(arguments, expected) of a kernel reducing each 512-row tile in the reduce's tree
    order with `body`, on inputs drawn from `seed`."""

    def arguments(y: np.ndarray) -> list[object]:
        return [_tree_inputs(seed, dtype), y, MAX_M, MAX_N, MAX_GRID[0]]

    def expected() -> np.ndarray:
        padded = _tiles(_tree_inputs(seed, dtype))
        return np.stack([tree(padded[:512], body), tree(padded[512:], body)])

    return arguments, expected


_fsum_arguments, _fsum_expected = _tree_case(25, np.float32, np.add)
_isub_arguments, _isub_expected = _tree_case(26, np.int32, np.subtract)


def _sum_arguments(y: np.ndarray) -> list[object]:
    rng = np.random.default_rng(24)
    x = rng.integers(-(2**31), 2**31, (SUM_M, SUM_N), dtype=np.int64).astype(np.int32)
    return [x, y, SUM_M, SUM_N]


def _sum_expected() -> np.ndarray:
    x = _sum_arguments(np.zeros(0))[0]
    assert isinstance(x, np.ndarray)
    return x.sum(axis=1, dtype=np.int32)  # wraps around


def _ptx(kernel: str, arch: str) -> str:
    tileaa = compile_module(parse_module_text(kernel, "reduce.mlir"), arch, stop_after="tileaa")
    assert tileaa.module is not None
    shown = str(tileaa.module)
    assert "512x128x" not in shown and "128x512x" not in shown  # only pieces are loaded
    ptx = compile_module(parse_module_text(kernel, "reduce.mlir"), arch).ptx
    assert ptx is not None
    return ptx


CASES = {
    "max": (MAX_KERNEL, MAX_GRID, _max_arguments, _max_expected, (MAX_GRID[0], MAX_N)),
    "sum": (SUM_KERNEL, SUM_GRID, _sum_arguments, _sum_expected, (SUM_M,)),
    "fsum": (FSUM_KERNEL, MAX_GRID, _fsum_arguments, _fsum_expected, (MAX_GRID[0], MAX_N)),
    "isub": (ISUB_KERNEL, MAX_GRID, _isub_arguments, _isub_expected, (MAX_GRID[0], MAX_N)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_split_reduction_matches_interpreter(case: str) -> None:
    kernel, grid, arguments, expected, shape = CASES[case]
    want = expected()
    dtype = want.dtype
    ptx = _ptx(kernel, "sm_90a")
    report = run_ptxas(ptx, "sm_90a")
    assert report.ok and set(report.spills.values()) == {0}, report.output
    got = np.zeros(shape, dtype)
    simulate(ptx, grid, arguments(got))
    by_interpreter = np.zeros(shape, dtype)
    launch(parse_module_text(kernel, "reduce.mlir"), grid, *arguments(by_interpreter))
    np.testing.assert_array_equal(by_interpreter, want)
    np.testing.assert_array_equal(got, by_interpreter)


@pytest.mark.parametrize("arch", ["sm_80", "sm_100a"])
@pytest.mark.parametrize("case", ["max", "fsum"])
def test_no_spills_elsewhere(case: str, arch: str) -> None:
    """The loop (max) and the nested loops of tree order (fsum) spill nothing on the
    other targets either (sm_90a: above)."""
    report = run_ptxas(_ptx(CASES[case][0], arch), arch)
    assert report.ok and set(report.spills.values()) == {0}, report.output


def test_pieces_at_the_first_index_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every piece read at `2 n * i` (the loop's index dropped): the max sees only one
    32-row piece of each tile."""
    index = split_reductions.piece_index
    monkeypatch.setattr(split_reductions, "piece_index", lambda first, k: index(first, first))
    got = np.zeros((MAX_GRID[0], MAX_N), np.float32)
    simulate(_ptx(MAX_KERNEL, "sm_90a"), MAX_GRID, _max_arguments(got))
    assert not np.array_equal(got, _max_expected())
