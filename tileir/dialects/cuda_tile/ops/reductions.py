"""Reductions and prefix scans (NVIDIA group Core): `reduce` and `scan`.

    %r:2 = reduce %a, %b dim=D identities=[0.0 : f32, 0 : i32]
        : tile<8x16xf32>, tile<8x16xi32> -> tile<16xf32>, tile<16xi32>
    (%a_cur: tile<f32>, %a_acc: tile<f32>, %b_cur: tile<i32>, %b_acc: tile<i32>) {
      ...
      yield %a_new, %b_new : tile<f32>, tile<i32>
    }

Both combine the elements of several same-shaped tiles along dimension `D` with the
body, a pure function of rank-0 tiles taking two arguments per operand (the current
element and the running value) and yielding one value per operand.  `reduce` drops
dimension `D`; `scan` keeps the shape and returns every prefix (`reverse=true` scans
from the end).  `identities` holds the neutral element of each operand's combinator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    BoolAttr,
    Float16Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    i32,
)
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl import (
    irdl_op_definition,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure, RecursiveMemoryEffect

from tileir.diagnostics import location_of
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.base import (
    CudaTileOp,
    VerifyDiagnostics,
    inside_cuda_tile_function,
    nested_ops_verify,
    op_diagnostic,
    region_block_count_error,
    types_text,
)
from tileir.dialects.cuda_tile.ops.control_flow import YieldOp
from tileir.dialects.cuda_tile.ops.core import print_function_signature
from tileir.dialects.cuda_tile.syntax import (
    AsmFormat,
    parse_cuda_tile_type,
    parse_cuda_tile_types,
    parse_integer_of,
    parse_operand_list,
    print_cuda_tile_type,
    resolve_operands,
)
from tileir.dialects.cuda_tile.types import TileType
from tileir.utils.numeric import format_element


def identity_text(attr: Attribute) -> str:
    """An identity as MLIR prints a typed attribute: `0.000000e+00 : f32`, `0 : i32`,
    `true`."""
    if isinstance(attr, IntegerAttr):
        t = attr.type
        if isinstance(t, IntegerType) and t.width.data == 1:
            return "true" if attr.value.data else "false"
        return f"{format_element(attr.value.data, t)} : {t}"
    if isinstance(attr, FloatAttr):
        return f"{format_element(attr.value.data, attr.type)} : {attr.type}"
    return str(attr)


def identity_type(attr: Attribute) -> Attribute | None:
    if isinstance(attr, IntegerAttr | FloatAttr):
        return attr.type  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return None


def parse_argument_region(parser: Parser) -> Region:
    """`custom<ArgumentRegion>`: `(%a: T, ...) { body }`.  Unlike regions in the
    declarative format, no terminator is implied, and `() {}` is a region without
    blocks."""

    def argument() -> Parser.Argument:
        name = parser.parse_argument(expect_type=False)
        parser.parse_punctuation(":")
        t = parse_cuda_tile_type(parser)
        parser.parse_optional_attr_dict()
        return Parser.Argument(name.name, t)

    args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, argument)
    region = parser.parse_region(args)
    if not args and len(region.blocks) == 1 and region.blocks[0].first_op is None:
        return Region()
    return region


class AggregateOp(CudaTileOp):
    """Shared by `reduce` and `scan`."""

    GROUP: ClassVar[str] = "Core"
    operands_ = var_operand_def()
    dim = prop_def(IntegerAttr)
    identities = prop_def(ArrayAttr)
    results_ = var_result_def()
    body = region_def()
    traits = traits_def(RecursiveMemoryEffect())

    @property
    def dimension(self) -> int:
        return self.dim.value.data

    def print_extra(self, f: AsmFormat) -> None:
        """Keywords between `dim=` and `identities=`."""

    @classmethod
    def parse_extra(cls, parser: Parser, props: dict[str, Attribute]) -> None:
        """Keywords between `dim=` and `identities=`."""

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.operands(self.operands_)
        f.attr_dict(self)
        printer.print_string(f" dim={self.dimension}")
        self.print_extra(f)
        printer.print_string(
            " identities=[" + ", ".join(identity_text(a) for a in self.identities.data) + "]"
        )
        printer.print_string(" : ")
        printer.print_list(self.operands_, lambda v: _type(printer, v.type))
        printer.print_string(" -> ")
        printer.print_list(self.results_, lambda v: _type(printer, v.type))
        # MLIR's printer ends the line after a space (tileirdisasm's text has it).
        printer.print_string(" ")
        printer._print_new_line()  # pyright: ignore[reportPrivateUsage]
        block = self.body.blocks[0] if self.body.blocks else Block()
        print_function_signature(printer, block, [])
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser):  # pyright: ignore[reportMissingParameterType]
        operands = parse_operand_list(parser)
        attrs = parser.parse_optional_attr_dict()
        props: dict[str, Attribute] = {}
        parser.parse_keyword("dim")
        parser.parse_punctuation("=")
        props["dim"] = IntegerAttr(parse_integer_of(parser, i32), i32)
        cls.parse_extra(parser, props)
        parser.parse_keyword("identities")
        parser.parse_punctuation("=")
        props["identities"] = parser.parse_attribute()
        parser.parse_punctuation(":")
        pos = parser.pos
        types = parse_cuda_tile_types(parser)
        parser.parse_punctuation("->")
        result_types = parse_cuda_tile_types(parser)
        values = resolve_operands(parser, operands, types, pos)
        body = parse_argument_region(parser)
        return cls.create(
            operands=values,
            result_types=result_types,
            properties=props,
            attributes=attrs,
            regions=[body],
        )

    # -- verification ---------------------------------------------------------
    def verify_(self) -> None:
        self.verify_invariants()
        self.verify_aggregate()
        self.verify_inferred_types()
        if nested_ops_verify(self):
            self.verify_region()

    def verify_invariants(self) -> None:
        """ODS constraints and traits."""
        if not isinstance(self.identities, ArrayAttr):
            raise self.op_error(
                "attribute 'identities' failed to satisfy constraint: array attribute"
            )
        if self.dimension < 0 or self.dim.type != i32:
            raise self.op_error(
                "attribute 'dim' failed to satisfy constraint: 32-bit signless integer "
                "attribute whose value is non-negative"
            )
        if inside_cuda_tile_function(self):
            for i, v in enumerate(self.operands_):
                if not isinstance(v.type, TileType):
                    raise self.op_error(
                        f"operand #{i} must be variadic of Tile type, but got '{v.type}'"
                    )
            for i, v in enumerate(self.results_):
                if not isinstance(v.type, TileType):
                    raise self.op_error(
                        f"result #{i} must be variadic of Tile type, but got '{v.type}'"
                    )
        region_block_count_error(self, 0, "body", 1)
        shapes = {shape_of(v.type) for v in self.operands_}
        if len(shapes) > 1:
            raise self.op_error("requires the same shape for all operands")

    def verify_aggregate(self) -> None:
        """NVIDIA's checks of operands, results and identities."""
        operands, results = list(self.operands_), list(self.results_)
        if not operands:
            raise self.op_error("expect at least 1 operand")
        if len(operands) != len(results):
            raise self.op_error("expect same number of operands and results")
        identities = self.identities.data
        if len(identities) != len(operands):
            raise self.op_error(
                "expect identities to match the number of operands but got: "
                f"{len(operands)} operands and {len(identities)} identities"
            )
        for i, (v, identity) in enumerate(zip(operands, identities, strict=True)):
            el = element_type(v.type)
            t = identity_type(identity)
            if {type(el), type(t)} == {BFloat16Type, Float16Type}:
                continue
            if el != t:
                raise self.op_error(
                    f"expect same type for operand at index: {i} and identity at index: {i} "
                    f"but got: '{el}' and '{t}'"
                )
        rank = len(shape_of(operands[0].type))
        if self.dimension >= rank:
            raise self.op_error(f"dimension ({self.dimension}) is out of bound [0, {rank})")
        self.verify_result_shapes()

    def verify_result_shapes(self) -> None:
        """scan: each result has its operand's type."""

    def inferred_types(self) -> list[Attribute]:
        raise NotImplementedError

    def verify_inferred_types(self) -> None:
        inferred = self.inferred_types()
        actual = [r.type for r in self.results_]
        if not inside_cuda_tile_function(self):
            # Lowered carriers (builtin tensors with any layout, scalars): the
            # shapes and element types must agree.
            def key(t: Attribute) -> tuple[object, Attribute]:
                return shape_of(t), element_type(t)

            if [key(t) for t in inferred] == [key(t) for t in actual]:
                return
        if inferred != actual:
            location = location_of(self)
            first = op_diagnostic(
                self,
                f"inferred type(s) {types_text(inferred)} are incompatible with return "
                f"type(s) of operation {types_text(actual)}",
            )
            second = op_diagnostic(self, "failed to infer returned types")
            first.location = second.location = location
            raise VerifyDiagnostics([first, second])

    def verify_region(self) -> None:
        """NVIDIA's checks of the body (after the ops inside verified)."""
        block = self.body.blocks[0]
        n = len(self.operands_)
        last = block.last_op
        if last is None:
            raise self.op_error("expects a non-empty block")
        if not isinstance(last, YieldOp):
            raise self.op_error(
                f"expects regions to end with 'cuda_tile.yield', found '{last.name}'"
            )
        args = [a.type for a in block.args]
        if len(args) != 2 * n:
            raise self.op_error(f"expect {2 * n} block arguments but got: {len(args)}")
        lowered = not inside_cuda_tile_function(self)
        for i, t in enumerate(args):
            if lowered and not isinstance(t, TileType) and not shape_of(t):
                continue  # a lowered 0-rank tile: the scalar carrier
            if not (isinstance(t, TileType) and t.rank == 0):
                raise self.op_error(f"expect 0-rank tile type at index: {i} but got: '{t}'")
        for i in range(0, 2 * n - 1, 2):
            a, b = element_type(args[i]), element_type(args[i + 1])
            if a != b:
                raise self.op_error(
                    f"expect same element type for block argument at index: {i} and {i + 1} "
                    f"but got: '{a}' and '{b}'"
                )
        operand_types = [v.type for v in self.operands_]
        for i, t in enumerate(operand_types):
            a, b = element_type(t), element_type(args[2 * i])
            if a != b:
                raise self.op_error(
                    f"expect same type for operand at index: {i} and block argument at index: "
                    f"{2 * i} but got: '{a}' and '{b}'"
                )
        terminator = block.last_op
        assert terminator is not None
        yielded = [v.type for v in terminator.operands]
        if len(yielded) != n:
            raise self.op_error(
                f"expect number of terminators operands ({len(yielded)}) to match number of "
                f"operands ({n})"
            )
        for i, (t, y) in enumerate(zip(operand_types, yielded, strict=True)):
            a, b = element_type(t), element_type(y)
            if a != b:
                raise self.op_error(
                    f"expect same type for operand at index: {i} and terminator argument at "
                    f"index: {i} but got: '{a}' and '{b}'"
                )
        for inner in block.ops:
            if inner is terminator:
                break
            if not inner.has_trait(Pure):
                raise VerifyDiagnostics(
                    [op_diagnostic(inner, f"only pure operations are allowed inside '{self.name}'")]
                )


def _type(printer: Printer, t: Attribute) -> None:
    print_cuda_tile_type(printer, t)


@irdl_op_definition
class ReduceOp(AggregateOp):
    """`%x, ... dim=D identities=[...] : T, ... -> R, ... (args) { body }`: combines
    the elements along dimension D; the results drop that dimension."""

    name = "cuda_tile.reduce"
    SYNTAX: ClassVar[str] = (
        "%x, ... [{attrs}] dim=N identities=[V : ET, ...] : T, ... -> R, ... (%a: tile<ET>, %b: tile<ET>, ...) { body }"
    )

    def asm_result_names(self) -> Sequence[str | None]:
        return ("reduce",) if self.results_ else ()

    def asm_block_arg_names(self, block: Block) -> Sequence[str | None]:
        many = len(block.args) > 2
        names: list[str | None] = []
        for i in range(len(block.args)):
            name = "reduce_lhs" if i % 2 == 0 else "reduce_rhs"
            names.append(f"{name}{i // 2}" if many else name)
        return names

    def inferred_types(self) -> list[Attribute]:
        out: list[Attribute] = []
        for v in self.operands_:
            dims = [d for i, d in enumerate(shape_of(v.type)) if i != self.dimension]
            out.append(TileType(dims, element_type(v.type)))
        return out


@irdl_op_definition
class ScanOp(AggregateOp):
    """`%x, ... dim=D reverse=B identities=[...] : T, ... -> T, ... (args) { body }`:
    every prefix (or suffix, with `reverse=true`) combination along dimension D."""

    name = "cuda_tile.scan"
    SYNTAX: ClassVar[str] = (
        "%x, ... [{attrs}] dim=N reverse=true|false identities=[V : ET, ...] : T, ... -> T, ... (%a: tile<ET>, %b: tile<ET>, ...) { body }"
    )
    reverse = prop_def(IntegerAttr)

    @property
    def is_reverse(self) -> bool:
        return bool(self.reverse.value.data)

    def print_extra(self, f: AsmFormat) -> None:
        f.printer.print_string(f" reverse={'true' if self.is_reverse else 'false'}")

    @classmethod
    def parse_extra(cls, parser: Parser, props: dict[str, Attribute]) -> None:
        parser.parse_keyword("reverse")
        parser.parse_punctuation("=")
        props["reverse"] = BoolAttr.from_bool(parser.parse_boolean())

    def verify_result_shapes(self) -> None:
        for i, (v, r) in enumerate(zip(self.operands_, self.results_, strict=True)):
            if v.type != r.type:
                raise self.op_error(
                    f"expect same type for operand at index: {i} and result at index: {i}"
                )

    def inferred_types(self) -> list[Attribute]:
        return [v.type for v in self.operands_]


REDUCTION_OPS = [ReduceOp, ScanOp]
