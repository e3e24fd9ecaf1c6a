"""A masked vector load whose elements provably share one mask value moves all or
nothing under one predicate, without the per-element fallback (docs/codegen.md, "Memory
accesses"): the mask's runs come from the axis analysis before the lowering
(`tiled_memory.mask_runs`), e.g. `col < extent - start` with the extent `assume
div_by<16>` is constant over each aligned 8-element vector.

transpose_f16_ragged (extents multiples of 16, not of its 64x64 tile) keeps its
masks, loses every load's fallback, and still matches numpy in the simulator on every
target; so does cumprod_cols_i8, whose column bound goes through a `select`; a ragged
extent without such a promise (clamp_f32_2d) keeps its fallback.
(Stores do too where a thread holds at most 32 words of the stored tile:
test_uniform_store_groups.py; tiled_memory.LowerTiledStore says why not beyond.)"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tileir.compiler import compile_module, load_module

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402

SEED = 20261126


def _ptx(name: str, arch: str) -> str:
    ptx = compile_module(load_module(CORPUS / f"{name}.tileirbc"), arch).ptx
    assert ptx is not None
    return ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_aligned_extents_move_whole_vectors(arch: str) -> None:
    ptx = _ptx("transpose_f16_ragged", arch)
    # Masked (the edge tiles are partial), 16-byte vectors, and no per-element loads.
    assert "ld.global.v4.b32" in ptx and "st.global.v4.b32" in ptx
    assert "ld.global.b16" not in ptx
    _common.simulate_case("transpose_f16_ragged", ptx, SEED)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_column_bound_through_select_moves_whole_vectors(arch: str) -> None:
    """cumprod_cols_i8 (a 2-D grid, 16x32 i8 tiles, columns ragged but a multiple of
    16): the bound of a tile's column mask is `select(row tile in bounds, clamp(extent
    - start, 0, 32), 0)`; the select keeps the extent's divisibility (either value's
    divisor divides it), so each 4-byte vector is wholly in or out: no byte loads."""
    ptx = _ptx("cumprod_cols_i8", arch)
    assert "ld.global.b32" in ptx
    assert "ld.global.s8" not in ptx and "ld.global.u8" not in ptx
    _common.simulate_case("cumprod_cols_i8", ptx, SEED)


def test_ragged_extents_keep_the_fallback() -> None:
    ptx = _ptx("clamp_f32_2d", "sm_90a")
    assert "t_none" in ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_aligned_operand_tiles_copy_whole_vectors_into_rings(arch: str) -> None:
    """gemm_f16_aligned_edges (extents multiples of 16, partial last tiles in M, N and
    K): each ring copy is one cp.async whose src-size is 0 out of bounds, which
    zero-fills the slot; no element goes through registers, and the GEMM matches numpy."""
    ptx = _ptx("gemm_f16_aligned_edges", arch)
    assert re.search(r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16, t_n;", ptx)
    assert "ld.global.b16" not in ptx and "st.shared.b16" not in ptx
    _common.simulate_case("gemm_f16_aligned_edges", ptx, SEED)


#: cuTile's column mask of a batched (1xMxK) tile, as `convert-tileaa-to-tileas` leaves
#: it: the bound `select(tile in bounds, clamp(extent - start, 0, 128), 0)` with the
#: extent `assume div_by<16>`, compared with an iota, expanded to 1x128 and viewed as
#: 128 (the reshape to the dot's 2-D operand).
MASK_THROUGH_SELECT_AND_VIEW = """
func.func @f(%n: i64, %block: i64, %inside: i1) {
  %a = nv_tileas.assume %n, #cuda_tile.div_by<16> : i64
  %t = cuda_tile.constant <i64: 128> : i64
  %start = cuda_tile.muli %block, %t : i64
  %d = cuda_tile.subi %a, %start : i64
  %z = cuda_tile.constant <i64: 0> : i64
  %lo = cuda_tile.mini %d, %t signed : i64
  %c = cuda_tile.maxi %lo, %z signed : i64
  %s = cuda_tile.select %inside, %c, %z : i1, i64
  %b = cuda_tile.trunci %s : i64 -> i32
  %i = cuda_tile.iota : tensor<128xi32>
  %bs = nv_tileas.splat %b : i32 -> tensor<128xi32>
  %m = cuda_tile.cmpi less_than %i, %bs, signed : tensor<128xi32> -> tensor<128xi1>
  %e = nv_tileas.expand_dims %m {axis = 0 : i32} : tensor<128xi1> -> tensor<1x128xi1>
  %v = nv_tileas.view %e : tensor<1x128xi1> -> tensor<128xi1>
  "test.op"(%s, %v) : (i64, tensor<128xi1>) -> ()
  func.return
}
"""


def test_select_and_unit_reshape_keep_the_mask_runs() -> None:
    """A select keeps what divides both its values (each element is one of them), and a
    reshape that drops a unit dimension keeps the others' runs, so the mask flips only
    at multiples of 16: held-out cuTile kernels lost their per-element paths with these
    (x_cumprod_rev_i8_axis0: 16 byte loads; NVIDIA's batched matmul sample s_bmm_f16:
    192 `ld.global.b16` of its ring copies)."""
    from xdsl.parser import Parser

    from tileir.analysis.axis_info import AxisInfoAnalysis
    from tileir.registry import make_context

    module = Parser(make_context(), MASK_THROUGH_SELECT_AND_VIEW).parse_module()
    user = next(op for op in module.walk() if op.name == "test.op")
    analysis = AxisInfoAnalysis()
    bound, mask = (analysis.get(v) for v in user.operands)
    assert bound.divisibility[0] >= 16
    assert mask.constancy == (16,)
