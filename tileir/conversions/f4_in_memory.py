"""f4E2M1FN elements in global memory are reported as not supported yet.

An f4E2M1FN tile is held one element to a register byte (`tileas_to_llvm/fp8.py`), and
cuTile reaches it only through bytes: `ct.unpack_from_bytes(bytes, ct.float4_e2m1fn)`
(cuda_tile `unpack`).  A tensor view or pointer of f4E2M1FN elements is something else:
NVIDIA's tileiras packs such elements two to a byte in memory (its sm_100 SASS for a
128-element f4 tile loads 64 bytes with `LDG.E.U8` and splits each with
`F2FP.F16.E2M1.UNPACK_B`), while tileir's loads and stores address one byte an
element.  Until they pack, the first op that would touch such memory is an error,
before the lift to nv_tileaa.  (`tileir.interpreter` still runs such views one byte an
element.)
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float4E2M1FNType, ModuleOp
from xdsl.ir import Attribute

from tileir.diagnostics import not_supported
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.types import PointerType, TensorViewType


def _addresses_f4(t: Attribute) -> bool:
    """A pointer (tile) to, or a tensor view of, f4E2M1FN elements."""
    if isinstance(t, TensorViewType):
        return isinstance(t.element_type, Float4E2M1FNType)
    el = element_type(t)
    return isinstance(el, PointerType) and isinstance(el.pointee, Float4E2M1FNType)


def reject_f4_in_memory(module: ModuleOp) -> None:
    """Raise a located diagnostic at the first op whose operand or result addresses
    f4E2M1FN elements in memory (the module docstring)."""
    for op in module.walk():
        types = [v.type for v in (*op.operands, *op.results)]
        if any(_addresses_f4(t) for t in types):
            raise not_supported(
                op,
                "f4E2M1FN elements in memory (tileiras packs them two to a byte)",
                instead="load bytes and unpack them (ct.unpack_from_bytes(b, ct.float4_e2m1fn))",
            )
