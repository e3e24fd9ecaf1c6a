"""Tile rearrangement ops (NVIDIA group Core): `cat`, `extract`, `permute` and the
13.3 byte-array views `pack` / `unpack`.

* `cat %a, %b dim = D : A, B -> R` joins two tiles of equal rank along `D`.
* `extract %t[%i, ...] : T -> R` cuts `T` into blocks of shape `R` and returns block
  `(i, ...)`; each index is a `tile<i32>`.
* `permute %t [p0, p1, ...] : T -> R` reorders dimensions: `R[k] = T[p[k]]`.
* `pack %t : T -> tile<Nxi8>` / `unpack %b : tile<Nxi8> -> T` reinterpret a rank-1 tile
  as bytes and back (same number of bits; sub-byte elements are packed).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    i32,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.base import (
    I8,
    I32,
    NUMBER_OR_I4,
    CudaTileOp,
    check_same_element_type,
    check_same_rank,
    check_tile_of,
    inside_cuda_tile_function,
)
from tileir.dialects.cuda_tile.syntax import (
    AsmFormat,
    parse_cuda_tile_type,
    parse_integer_of,
    parse_operand_list,
)
from tileir.dialects.cuda_tile.types import TileType
from tileir.dialects.cuda_tile.warnings import emit_warning
from tileir.utils.bits import mlir_bit_width, storage_bits


def check_tile(op: CudaTileOp, value: SSAValue, position: str) -> None:
    """ODS's `CudaTile_TileType` constraint (summary `Tile type`)."""
    if inside_cuda_tile_function(op) and not isinstance(value.type, TileType):
        raise op.op_error(f"{position} must be Tile type, but got '{value.type}'")


class ReshapingOp(CudaTileOp):
    """`%source ... : T -> R`, one tile in, one tile out."""

    GROUP: ClassVar[str] = "Core"
    traits = traits_def(Pure())

    def print_types(self, f: AsmFormat, source: SSAValue, result: SSAValue) -> None:
        f.literal(":")
        f.type(source.type)
        f.literal("->")
        f.type(result.type)


@irdl_op_definition
class CatOp(ReshapingOp):
    """`%lhs, %rhs dim = D : A, B -> R`: concatenation along dimension D."""

    name = "cuda_tile.cat"
    SYNTAX: ClassVar[str] = "%lhs, %rhs dim = N [{attrs}] : T, T -> R"
    lhs = operand_def()
    rhs = operand_def()
    dim = prop_def(IntegerAttr)
    result = result_def()

    @property
    def dimension(self) -> int:
        return self.dim.value.data

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.operand(self.lhs)
        f.literal(",")
        f.operand(self.rhs)
        f.literal("dim")
        f.literal("=")
        f.keyword(str(self.dimension))
        f.attr_dict(self)
        f.literal(":")
        f.type(self.lhs.type)
        f.literal(",")
        f.type(self.rhs.type)
        f.literal("->")
        f.type(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> CatOp:
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        parser.parse_keyword("dim")
        parser.parse_punctuation("=")
        dim = parse_integer_of(parser, i32)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        lhs_type = parse_cuda_tile_type(parser)
        parser.parse_punctuation(",")
        rhs_type = parse_cuda_tile_type(parser)
        parser.parse_punctuation("->")
        result_type = parse_cuda_tile_type(parser)
        return cls.create(
            operands=[parser.resolve_operand(lhs, lhs_type), parser.resolve_operand(rhs, rhs_type)],
            result_types=[result_type],
            properties={"dim": IntegerAttr(dim, i64)},
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_tile(self, self.lhs, "operand #0")
        check_tile(self, self.rhs, "operand #1")
        check_tile(self, self.result, "result #0")
        names = ("lhs", "rhs", "result")
        values = (self.lhs, self.rhs, self.result)
        check_same_rank(self, names, values)
        check_same_element_type(self, names, values)
        lhs, rhs, res = (shape_of(v.type) for v in values)
        dim, rank = self.dimension, len(lhs)
        if dim < 0 or dim >= rank:
            raise self.op_error(f"expect dim to be [0, {rank}), but got: {dim}")
        if lhs[dim] + rhs[dim] != res[dim]:
            raise self.op_error(
                f"invalid concat at position {dim}, expected: {lhs[dim] + rhs[dim]} but got: "
                f"{res[dim]}"
            )
        for i in range(rank):
            if i == dim:
                continue
            if lhs[i] != rhs[i]:
                raise self.op_error(
                    f"expect lhs and rhs shapes to match at non-concat position {i}, "
                    f"expected: {lhs[i]} but got: {rhs[i]}"
                )
            if lhs[i] != res[i]:
                raise self.op_error(
                    f"expect lhs and result shapes to match at non-concat position {i}, "
                    f"expected: {lhs[i]} but got: {res[i]}"
                )


#: The type of `extract`'s indices (their type is not written).
INDEX_TYPE = TileType([], i32)


@irdl_op_definition
class ExtractOp(ReshapingOp):
    """`%source[%i, ...] : T -> R`: block `(i, ...)` of `T` cut into blocks of shape R.
    Indices are `tile<i32>`; one per dimension."""

    name = "cuda_tile.extract"
    SYNTAX: ClassVar[str] = "%source[%i, ...] [{attrs}] : T -> R"
    source = operand_def()
    indices = var_operand_def()
    result = result_def()

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.operand(self.source)
        f.literal("[")
        f.operands(self.indices)
        f.literal("]")
        f.attr_dict(self)
        self.print_types(f, self.source, self.result)

    @classmethod
    def parse(cls, parser: Parser) -> ExtractOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        indices = parse_operand_list(parser)
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parse_cuda_tile_type(parser)
        parser.parse_punctuation("->")
        result_type = parse_cuda_tile_type(parser)
        return cls.create(
            operands=[
                parser.resolve_operand(source, source_type),
                *(parser.resolve_operand(i, INDEX_TYPE) for i in indices),
            ],
            result_types=[result_type],
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_tile(self, self.source, "operand #0")
        for i, index in enumerate(self.indices):
            check_tile_of(self, index, f"operand #{i + 1}", I32, rank=0, variadic=True)
        check_tile(self, self.result, "result #0")
        check_same_rank(self, ("source", "result"), (self.source, self.result))
        src, res = self.source.type, self.result.type
        if element_type(src) != element_type(res):
            raise self.op_error("source and result element type do not match")
        src_shape, res_shape = shape_of(src), shape_of(res)
        for i, (s, r) in enumerate(zip(src_shape, res_shape, strict=True)):
            if r == 0 or s % r:
                raise self.op_error(
                    f"source dimension {i} size ({s}) must be evenly divisible by result "
                    f"dimension {i} size ({r})"
                )
        if len(self.indices) != len(src_shape):
            raise self.op_error(f"expected {len(src_shape)} indices, but got {len(self.indices)}")
        self._warn_about_constant_indices(src_shape, res_shape)

    def _warn_about_constant_indices(
        self, src_shape: tuple[int, ...], res_shape: tuple[int, ...]
    ) -> None:
        """NVIDIA warns (and still verifies) when a constant index is negative or past
        the last block: the program may be right on paths never taken."""
        from tileir.dialects.cuda_tile.ops.core import ConstantOp

        for i, index in enumerate(self.indices):
            owner = index.owner
            if not isinstance(owner, ConstantOp):
                continue
            values = owner.value.get_values()
            if not values or len(set(values)) != 1 or not isinstance(values[0], int):
                continue
            value = values[0]
            last = src_shape[i] // res_shape[i] - 1
            if value < 0:
                emit_warning(
                    self,
                    f"extract index {i} has negative value {value}, which may cause "
                    "undefined behavior",
                )
            if value > last:
                emit_warning(
                    self,
                    f"extract index {i} value {value} may be out of bounds (max valid "
                    f"index: {last})",
                )


@irdl_op_definition
class PermuteOp(ReshapingOp):
    """`%source [p0, p1, ...] : T -> R`: result dimension k is source dimension p[k]."""

    name = "cuda_tile.permute"
    SYNTAX: ClassVar[str] = "%source [p0, p1, ...] [{attrs}] : T -> R"
    source = operand_def()
    permutation = prop_def(DenseArrayBase)
    result = result_def()

    @property
    def perm(self) -> tuple[int, ...]:
        values = self.permutation.get_values()  # pyright: ignore[reportAttributeAccessIssue, reportUnknownVariableType, reportUnknownMemberType]
        return tuple(int(v) for v in values)  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.operand(self.source)
        f.keyword("[" + ", ".join(map(str, self.perm)) + "]")
        f.attr_dict(self)
        self.print_types(f, self.source, self.result)

    @classmethod
    def parse(cls, parser: Parser) -> PermuteOp:
        source = parser.parse_unresolved_operand()
        perm = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parse_integer_of(parser, i32)
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parse_cuda_tile_type(parser)
        parser.parse_punctuation("->")
        result_type = parse_cuda_tile_type(parser)
        return cls.create(
            operands=[parser.resolve_operand(source, source_type)],
            result_types=[result_type],
            properties={"permutation": DenseArrayBase.from_list(i32, perm)},
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_tile(self, self.source, "operand #0")
        check_tile(self, self.result, "result #0")
        names = ("source", "result")
        values = (self.source, self.result)
        check_same_element_type(self, names, values)
        check_same_rank(self, names, values)
        src = shape_of(self.source.type)
        rank = len(src)
        perm = self.perm
        if rank < 2:
            raise self.op_error(f"expects at least rank 2, but got: {rank}")
        if len(perm) != rank:
            raise self.op_error(
                f"expect permutation size ({len(perm)}) to equal the rank of the source ({rank})"
            )
        if len(set(perm)) != len(perm):
            raise self.op_error("expect permutation elements to be unique")
        for i, p in enumerate(perm):
            if p < 0 or p >= rank:
                raise self.op_error(
                    f"permutation element at index {i} ({p}) is out of bound [0, {rank})"
                )
        res = shape_of(self.result.type)
        for i, p in enumerate(perm):
            if res[i] != src[p]:
                raise self.op_error(
                    f"result shape invalid at index {i}, expected: {src[p]}, but got: {res[i]}"
                )


class ByteViewOp(ReshapingOp):
    """`%source : T -> R` (13.3): reinterpret a rank-1 tile's bits."""

    SINCE: ClassVar[str] = "13.3"
    source = operand_def()
    result = result_def()

    SOURCE_ELEMENTS: ClassVar = NUMBER_OR_I4
    RESULT_ELEMENTS: ClassVar = I8

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.operand(self.source)
        f.attr_dict(self)
        self.print_types(f, self.source, self.result)

    @classmethod
    def parse(cls, parser: Parser):  # pyright: ignore[reportMissingParameterType]
        source = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parse_cuda_tile_type(parser)
        parser.parse_punctuation("->")
        result_type = parse_cuda_tile_type(parser)
        return cls.create(
            operands=[parser.resolve_operand(source, source_type)],
            result_types=[result_type],
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_tile_of(self, self.source, "operand #0", self.SOURCE_ELEMENTS)
        check_tile_of(self, self.result, "result #0", self.RESULT_ELEMENTS)
        check_same_rank(self, ("source", "result"), (self.source, self.result))
        src, res = self.source.type, self.result.type
        if len(shape_of(src)) != 1:
            raise self.op_error("expects source and result to be rank-1 tiles")
        if mlir_bit_width(element_type(src)) == mlir_bit_width(element_type(res)):
            raise self.op_error("expects source and result to have different element type widths")
        src_bits = (storage_bits(element_type(src)) or 0) * shape_of(src)[0]
        res_bits = (storage_bits(element_type(res)) or 0) * shape_of(res)[0]
        if src_bits % 8:
            raise self.op_error("expects source tile to be byte-aligned")
        if res_bits % 8:
            raise self.op_error("expects result tile to be byte-aligned")
        if src_bits != res_bits:
            raise self.op_error(
                "expects source and result to have the same size in bytes, but got source "
                f"tile size {src_bits // 8} bytes and result tile size {res_bits // 8} bytes"
            )


@irdl_op_definition
class PackOp(ByteViewOp):
    """`%source : tile<NxT> -> tile<Mxi8>` (13.3): the bytes of a tile."""

    name = "cuda_tile.pack"
    SYNTAX: ClassVar[str] = "%source [{attrs}] : T -> tile<Nxi8>"


@irdl_op_definition
class UnpackOp(ByteViewOp):
    """`%source : tile<Nxi8> -> tile<MxT>` (13.3): a tile read from bytes."""

    name = "cuda_tile.unpack"
    SYNTAX: ClassVar[str] = "%source [{attrs}] : tile<Nxi8> -> R"
    SOURCE_ELEMENTS: ClassVar = I8
    RESULT_ELEMENTS: ClassVar = NUMBER_OR_I4


SHAPE_OPS = [CatOp, ExtractOp, PermuteOp, PackOp, UnpackOp]
