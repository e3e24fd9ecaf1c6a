"""Whole-tile tests of masked ring copies (`tileas_to_llvm/tile_bounds.py`): a copy whose
mask is the `and` of 1-D compares of an `iota` against a scalar copies its tile
unpredicated when every compare holds for the whole `iota` (one warp-uniform test of
scalars), and takes the element predicates only on the edge path.  Run in the PTX
simulator against numpy on kernels with tiles inside and across the edges, and a test
that lets an edge tile through must fail.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from tileir.compiler import compile_module, load_module
from tileir.conversions.tileas_to_llvm import async_copy
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.tile_bounds import TileBounds, mask_bounds
from tileir.dialects.nv_tileas import ops as tas
from tileir.testing import SimulationError

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 20261127

#: The branch over a tile's unpredicated copies to its edge path.
EDGE_BRANCH = re.compile(r"@!%p\d+ bra tileir_edge;")


def _ptx(name: str, arch: str, warp_specialize: bool = True) -> str:
    module = load_module(CORPUS / f"{name}.mlir")
    ptx = compile_module(module, arch, warp_specialize=warp_specialize).ptx
    assert ptx is not None
    return ptx


def test_a_gemm_operand_mask_is_its_row_and_column_bounds() -> None:
    """`gemm_bf16_ragged`'s 32x32 A and 32x64 B tiles: each mask is a row bound and a
    column bound, all in bounds when the bounds reach the tile's extents."""
    module = load_module(CORPUS / "gemm_bf16_ragged.mlir")
    compile_module(module, "sm_90a", stop_after="tileas")
    loads = [o for o in module.walk() if isinstance(o, tas.AsyncTiledLoadOp)]
    assert loads
    for load in loads:
        assert load.mask is not None
        found = mask_bounds(load.mask)
        assert found is not None
        t = load.loaded_type()
        assert isinstance(t, TensorType)
        assert sorted(least for _, least, _ in found) == sorted(t.get_shape())


@pytest.mark.parametrize(
    ("name", "arch", "warp_specialize"),
    [
        ("gemm_bf16_ragged", "sm_90a", True),  # ragged M, N and K: both paths run
        ("gemm_f16", "sm_90a", True),  # a warp-specialized producer
        ("gemm_f16", "sm_90a", False),  # one agent, the ring under mbarriers
        ("flash_attention_f16", "sm_90a", True),
        ("gemm_bf16_ragged", "sm_100a", True),  # tcgen05: groups cut by the edge
    ],
)
def test_copies_behind_a_whole_tile_test_match_numpy(
    name: str, arch: str, warp_specialize: bool
) -> None:
    ptx = _ptx(name, arch, warp_specialize)
    assert EDGE_BRANCH.search(ptx) is not None
    _common.simulate_case(name, ptx, SEED)


@pytest.mark.parametrize(
    ("name", "arch"), [("gemm_bf16_ragged", "sm_80"), ("gemm_f16_aligned_edges", "sm_100a")]
)
def test_other_rings_keep_their_predicates(name: str, arch: str) -> None:
    """sm_80's rings copy as before (measured on sm_90a only), and so do sm_100a's
    where every group moves all or nothing: each is one predicated copy either way
    (`async_copy.py`)."""
    ptx = _ptx(name, arch)
    assert EDGE_BRANCH.search(ptx) is None
    assert "cp.async.cg.shared.global" in ptx


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
def test_a_test_that_lets_an_edge_tile_through_is_caught(
    arch: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every tile taken as whole: the ragged tiles' copies read past the operands' ends
    (and their zero padding is never written), which the simulator reports."""
    from xdsl.dialects.builtin import i1

    def always(b: LLBuilder, plan: TileBounds, scalars: Sequence[SSAValue]) -> SSAValue:
        return b.const(1, i1)

    monkeypatch.setattr(async_copy, "whole_tile_test", always)
    ptx = _ptx("gemm_bf16_ragged", arch)
    with pytest.raises(SimulationError):
        _common.simulate_case("gemm_bf16_ragged", ptx, SEED)
