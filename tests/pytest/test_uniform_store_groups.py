"""A masked vector store whose elements provably share one mask value stores all or
nothing under one predicate (`tiled_memory.LowerTiledStore`, `uniform_groups`), where a
thread's share of the tile is at most `UNIFORM_STORE_WORDS` words or the kernel has no
dot; larger shares beside a dot keep the per-element fallback (a 128x256 GEMM epilogue
spilled without it).  A dot-free 128x128 f32 copy (128 words a thread) stores with one
predicate a group and matches numpy over partial tiles.

gemm_f16_aligned_edges (extents multiples of 16, partial last tiles): its result's
2-element groups take one predicate each and the GEMM still matches numpy in the
simulator; the same rule forced on clamp_f32_2d with 129 columns in rows of 136, whose
last group of a row is cut by the edge, stores into the rows' padding.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.ir import Operation

import tileir.conversions.tileas_to_llvm as lowering
from tileir.compiler import compile_module, load_module, parse_module_text
from tileir.dialects.nv_tileas import ops as tas
from tileir.testing import simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 20261128


def _ptx(name: str, arch: str) -> str:
    ptx = compile_module(load_module(CORPUS / f"{name}.tileirbc"), arch).ptx
    assert ptx is not None
    return ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_aligned_result_groups_store_under_one_predicate(arch: str) -> None:
    ptx = _ptx("gemm_f16_aligned_edges", arch)
    # Loads, ring copies and the store: no element path left.
    assert "t_none" not in ptx
    _common.simulate_case("gemm_f16_aligned_edges", ptx, SEED)


def _clamp_with_odd_columns() -> tuple[_common.KernelInputs, np.ndarray]:
    """clamp_f32_2d's inputs with 129 columns in rows of 136, `out` too (its rows'
    padding holds NaN): the last 2-element group of each row is cut by the edge."""
    case = _common.load_case_module("clamp_f32_2d")
    inputs = case.make_inputs(np.random.default_rng(SEED))
    x = inputs["arrays"]["x"]
    rows, width = x.shape[0], 129
    buffer = _common.empty_output((rows, case.LDX), np.float32)
    arrays = {
        "x": _common.strided_view(_common.backing_buffer(x), (rows, width)),
        "out": _common.strided_view(buffer, (rows, width)),
    }
    grid = (inputs["grid"][0], -(-width // case.TILE_N), 1)
    return _common.make_kernel_inputs(
        params=inputs["params"],
        arrays=arrays,
        scalars=inputs["scalars"],
        outputs=inputs["outputs"],
        grid=grid,
    ), buffer


def _run_clamp(ptx: str) -> None:
    case = _common.load_case_module("clamp_f32_2d")
    inputs, buffer = _clamp_with_odd_columns()
    expected = case.reference(_common.copy_inputs(inputs))
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    _common.check_outputs(case, inputs, expected)
    assert np.isnan(buffer[:, 129:]).all(), "a store past the row's end"


def test_groups_cut_by_the_edge_keep_their_elements(monkeypatch: pytest.MonkeyPatch) -> None:
    """clamp_f32_2d (its extents promise nothing) keeps the per-element fallback and
    stores nothing past a row's end; with every store's mask claimed constant over its
    tile, the group cut by the edge stores its out-of-bounds element too."""
    _run_clamp(_ptx("clamp_f32_2d", "sm_90a"))
    original = lowering.mask_runs

    def claimed(module: Operation) -> dict[int, tuple[int, ...]]:
        runs = original(module)
        for o in module.walk():
            if isinstance(o, tas.TiledStoreOp) and o.mask is not None:
                runs[id(o)] = (1 << 20,) * len(o.mask.type.get_shape())  # pyright: ignore
        return runs

    monkeypatch.setattr(lowering, "mask_runs", claimed)
    with pytest.raises(AssertionError, match="past the row's end"):
        _run_clamp(_ptx("clamp_f32_2d", "sm_90a"))


#: A dot-free 2-D copy of 128x128 f32 tiles over a 200x132 array: 128 words a thread at
#: four warps, partial tiles at both edges, the extents multiples of the 4-element groups.
ROWS, COLS, TILE = 200, 132, 128
_VIEW = f"tensor_view<{ROWS}x{COLS}xf32, strides=[{COLS},1]>"
_PART = f"partition_view<tile=({TILE}x{TILE}), {_VIEW}>"
COPY = f"""
cuda_tile.module @m {{
  entry @copy(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>) {{
    %xa = assume div_by<16>, %x : tile<ptr<f32>>
    %ya = assume div_by<16>, %y : tile<ptr<f32>>
    %tx = make_tensor_view %xa, shape = [{ROWS}, {COLS}], strides = [{COLS}, 1] : {_VIEW}
    %ty = make_tensor_view %ya, shape = [{ROWS}, {COLS}], strides = [{COLS}, 1] : {_VIEW}
    %px = make_partition_view %tx : {_PART}
    %py = make_partition_view %ty : {_PART}
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %t, %tok = load_view_tko weak %px[%bx, %by] : {_PART}, tile<i32> -> tile<{TILE}x{TILE}xf32>, token
    %n = negf %t : tile<{TILE}x{TILE}xf32>
    %s = store_view_tko weak %n, %py[%bx, %by] : tile<{TILE}x{TILE}xf32>, {_PART}, tile<i32> -> token
    return
  }}
}}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_large_stores_without_a_dot_take_one_predicate(arch: str) -> None:
    """Past `UNIFORM_STORE_WORDS` the per-element fallback is kept only beside a dot
    (`stores_beside_dots`): a dot-free kernel stores its 128 words a thread with one
    predicate a group, and the partial tiles store exactly their elements."""
    ptx = compile_module(parse_module_text(COPY, "copy.mlir"), arch).ptx
    assert ptx is not None
    assert "t_none" not in ptx  # no element path
    x = np.random.default_rng(SEED).standard_normal((ROWS, COLS)).astype(np.float32)
    y = np.full((ROWS, COLS), np.nan, np.float32)
    simulate(ptx, (2, 2, 1), [x, y])
    np.testing.assert_array_equal(y, -x)
