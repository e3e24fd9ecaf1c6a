"""Unit tests of the nv_tileas pass helpers: the atom-catalog lookup of
tileas-remove-layout-conversions and the schedule analysis of tileas-materialize-schedule."""

from __future__ import annotations

import pytest
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp, TensorType, f16, f32
from xdsl.parser import Parser

from tileir.dialects.nv_tileas.attributes import ATOM_CATALOG, SwizzleMode
from tileir.dialects.nv_tileas.layouts import BlockedLayoutAttr, SharedLayoutAttr
from tileir.registry import make_context
from tileir.transforms.tileas.materialize_schedule import analyze_loop, operand_sources
from tileir.transforms.tileas.remove_layout_conversions import (
    direct_atom,
    layouts_agree,
    storage_class,
)

SHARED = SharedLayoutAttr(SwizzleMode.NONE, [0])


def registers(per_thread: int, warps: int = 1) -> BlockedLayoutAttr:
    return BlockedLayoutAttr([per_thread], [32], [warps], [0])


@pytest.mark.parametrize(
    ("element", "per_thread", "store", "load"),
    [
        (f32, 4, "sts_128b", "lds_128b"),
        (f32, 2, "sts_64b", "lds_64b"),
        (f32, 1, "sts_32b", "lds_32b"),
        (f16, 8, "sts_128b", "lds_128b"),
        (f16, 2, "sts_32b", "lds_32b"),
        (f16, 1, None, None),
    ],
)
def test_direct_atom_width(element, per_thread, store, load):
    shape = [128 * per_thread]
    r = TensorType(element, shape, registers(per_thread))
    s = TensorType(element, shape, SHARED)
    to_shared, to_registers = direct_atom(r, s), direct_atom(s, r)
    assert (to_shared.name if to_shared else None) == store
    assert (to_registers.name if to_registers else None) == load
    for atom in (to_shared, to_registers):
        assert atom is None or ATOM_CATALOG[atom.name] is atom


def test_no_direct_atom_within_a_storage_class():
    a = TensorType(f32, [128], registers(4))
    b = TensorType(f32, [128], registers(1, 4))
    assert direct_atom(a, b) is None
    assert not layouts_agree(a, b)
    assert layouts_agree(a, a)
    assert storage_class(TensorType(f32, [128])) is None
    assert storage_class(a) == "rmem"
    assert storage_class(TensorType(f32, [128], SHARED)) == "smem"


LOOP = """
func.func @f(%v: !nv_tileas.tiled_view<4096xf32, gmem>, %o: !nv_tileas.tiled_view<4096xf32, gmem>,
             %t: !nv_tileas.async.token) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %k = %c0 to %c32 step %c1 {
    %c2 = arith.constant 2 : index
    %j = arith.muli %k, %c2 : index
    %a = nv_tileas.tiled_load %v[%j] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    %b = nv_tileas.tiled_load %v[%c0] {atom = #nv_tileas<atom ldg_16b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    %c = nv_tileas.async.tiled_load %v[%k] {atom = #nv_tileas<atom cp_async_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> !async.value<tensor<128xf32>>
    nv_tileas.tiled_store %a, %o[%c0] {atom = #nv_tileas<atom stg_128b>} : tensor<128xf32>, !nv_tileas.tiled_view<4096xf32, gmem>
  }
  func.return
}
"""


def test_schedule_analysis_partition():
    module = Parser(make_context(), LOOP).parse_module()
    assert isinstance(module, ModuleOp)
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    analysis = analyze_loop(loop, 3)
    names = lambda ops: [o.results[0].name_hint if o.results else o.name for o in ops]  # noqa: E731
    assert names(analysis.pending_loads) == ["a", "c"]
    assert names(analysis.resident_loads) == ["b"]
    # The store writes the same place every iteration (its operands are loop invariant
    # except the stored value, which is computed in the loop).
    assert names(analysis.pending_stores) == ["nv_tileas.tiled_store"]
    assert names(analysis.async_roots) == ["c"]
    # ldg_16b has no cp.async counterpart; ldg_128b has cp_async_128b.
    assert names(analysis.pending_async) == ["a", "c"]
    assert names(analysis.resident_async) == []
    assert analysis.clobbers
    # One stage: nothing is async-eligible but what is async already.
    assert names(analyze_loop(loop, 1).pending_async) == ["c"]
    # The coordinate of %a comes from the induction variable through a constant and a muli.
    a = analysis.pending_loads[0]
    sources = operand_sources(a, loop)
    assert sources is not None and [s.name for s in sources] == ["arith.constant", "arith.muli"]
    assert isinstance(module.body.block.first_op, func.FuncOp)
