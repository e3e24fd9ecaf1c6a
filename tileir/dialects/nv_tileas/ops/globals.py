"""Globals: module-level variables and their addresses, what cuda_tile's `global` and
`get_global` become (tileir's addition to seed 003's roster).

Seed 003 addresses memory through views of pointers a kernel is given; it has no
statically allocated variable.  cuTile kernels declare some (a spin lock, a constant
table), so `nv_tileas.global` keeps the initializer (a rank-1 dense literal of builtin
type), its alignment in bytes, whether it is read-only (`constant`) and its symbol
visibility, and `nv_tileas.get_global` gives its address as a cuda_tile pointer, like
every pointer at this stage.  `convert-tileas-to-llvm` emits a PTX `.global` array with
the initializer's bytes.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure, SymbolOpInterface, SymbolTable

from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileas.ops.base import TileASOp
from tileir.dialects.nv_tileas.syntax import bare_tile_syntax
from tileir.dialects.nv_tileas.verifiers import GET_GLOBAL_SYMBOL, GLOBAL_VALUE
from tileir.utils.bits import is_pow2


@irdl_op_definition
class GlobalOp(TileASOp):
    """`nv_tileas.global @table dense<[1, 2, 3, 4]> : tensor<4xi32> {alignment = 16 : i64}`

    A statically allocated variable of global memory, initialized with `value`, that
    keeps its contents across launches; `constant` marks it read-only."""

    name = "nv_tileas.global"
    sym_name = prop_def(SymbolNameConstraint())
    value = prop_def(DenseIntOrFPElementsAttr)
    alignment = opt_prop_def(IntegerAttr)
    constant = opt_prop_def(UnitAttr)
    sym_visibility = opt_prop_def(StringAttr)
    traits = traits_def(SymbolOpInterface())
    assembly_format = "$sym_name $value attr-dict"
    irdl_options = (ParsePropInAttrDict(),)
    RULES: ClassVar[tuple[str, ...]] = (GLOBAL_VALUE,)

    def __init__(
        self,
        sym_name: str,
        value: DenseIntOrFPElementsAttr,
        *,
        alignment: int = 0,
        constant: bool = False,
        visibility: str | None = None,
    ):
        props: dict[str, Attribute] = {"sym_name": StringAttr(sym_name), "value": value}
        if alignment:
            props["alignment"] = IntegerAttr(alignment, i64)
        if constant:
            props["constant"] = UnitAttr()
        if visibility is not None:
            props["sym_visibility"] = StringAttr(visibility)
        super().__init__(properties=props)

    @property
    def alignment_bytes(self) -> int:
        return 0 if self.alignment is None else self.alignment.value.data

    def verify_(self) -> None:
        if len(self.value.get_shape()) != 1:
            raise self.op_error("initializer must have rank 1")
        if self.alignment_bytes < 0 or (self.alignment_bytes and not is_pow2(self.alignment_bytes)):
            raise self.op_error(f"alignment must be a power of two, got {self.alignment_bytes}")


def referenced_global(op: Operation, symbol: SymbolRefAttr) -> GlobalOp | None:
    """The `nv_tileas.global` that `symbol` names from `op`, if any."""
    target = SymbolTable.lookup_symbol(op, symbol)
    return target if isinstance(target, GlobalOp) else None


@bare_tile_syntax
@irdl_op_definition
class GetGlobalOp(TileASOp):
    """`%p = nv_tileas.get_global @table : !cuda_tile.ptr<i32>`

    The address of a global, a pointer to its element type."""

    name = "nv_tileas.get_global"
    global_name = prop_def(SymbolRefAttr)
    result = result_def(PointerType)
    traits = traits_def(Pure())
    assembly_format = "$global_name attr-dict `:` type($result)"
    RULES: ClassVar[tuple[str, ...]] = (GET_GLOBAL_SYMBOL,)

    def __init__(self, symbol: str, result_type: PointerType):
        super().__init__(
            properties={"global_name": SymbolRefAttr(symbol)}, result_types=[result_type]
        )

    def verify_(self) -> None:
        target = referenced_global(self, self.global_name)
        name = self.global_name.root_reference.data
        if target is None:
            raise self.op_error(f"'@{name}' does not name an nv_tileas.global")
        assert isinstance(self.result.type, PointerType)
        if self.result.type.pointee != target.value.get_element_type():
            raise self.op_error(
                f"result {self.result.type} does not point to the element type "
                f"{target.value.get_element_type()} of @{name}"
            )


GLOBAL_OPS: list[type[TileASOp]] = [GlobalOp, GetGlobalOp]
