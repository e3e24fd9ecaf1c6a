"""The test-only ops of NVIDIA's dialect and bytecode tests (`TILE_IR_INCLUDE_TESTS`).

NVIDIA builds them only into its test build, with the testing bytecode versions 250.0
and 250.1 (opcodes from 0x3000); they exist to exercise a reader's and writer's
versioning machinery: fields added in 250.1 to ops of 250.0.  tileir parses, prints and
verifies them and reads and writes them in bytecode (the versions 250.x exist when
`TILEIR_INCLUDE_TESTS=1`, `tileir/bytecode/version.py`); nothing lowers them.

* `testing$func` (0x3001): an `entry` that may take any cuda_tile values and return
  results: `testing$func @f(%a: tile<4xf32>) -> tile<4xf32> { ... return %v : ... }`.
* `testing$bytecode_test_new_attribute` (0x3000): `[new_flag] [new_param = N]`, two
  attributes of 250.1 (a unit flag, an i32 defaulting to 42) on an op of 250.0.
* `testing$bytecode_test_evolution` (0x3002): `(%inputs : types) [new_attr = N]
  [token = %t : token] -> token`, whose optional attribute, optional token operand and
  token result are of 250.1.  NVIDIA's op also takes an optional `priority` enum
  (250.0) and a `test_attr` standalone attribute (250.1), which NVIDIA's tests never
  write; tileir does not support those two yet (a parse error at them).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I32, IntegerAttr, UnitAttr, i32
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    lazy_traits_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, SymbolOpInterface

from tileir.dialects.cuda_tile.ops.base import CudaTileOp
from tileir.dialects.cuda_tile.ops.core import FunctionOp
from tileir.dialects.cuda_tile.syntax import AsmFormat, parse_cuda_tile_type
from tileir.dialects.cuda_tile.types import TileType, TokenType


@irdl_op_definition
class TestingFuncOp(FunctionOp):
    """`testing$func @name(%a: T, ...) [-> R | -> (R, ...)] { body }`."""

    name = "cuda_tile.testing$func"
    SYNTAX: ClassVar[str] = "@name(%a: T, ...) [-> R | -> (R, ...)] { body } [{attrs}]"
    SINCE: ClassVar[str] = "250.0"
    GROUP: ClassVar[str] = "Testing"

    traits = lazy_traits_def(lambda: (IsolatedFromAbove(), SymbolOpInterface()))


#: `new_param`'s default (NVIDIA's `DefaultValuedAttr<I32Attr, "42">`).
NEW_PARAM_DEFAULT = IntegerAttr(42, i32)


@irdl_op_definition
class BytecodeTestNewAttributeOp(CudaTileOp):
    """`testing$bytecode_test_new_attribute [new_flag] [new_param = N] [{attrs}]`: an op of
    250.0 that gained two attributes in 250.1; `new_param` at its default (42) is not
    printed."""

    name = "cuda_tile.testing$bytecode_test_new_attribute"
    SYNTAX: ClassVar[str] = "[new_flag] [new_param = N] [{attrs}]"
    SINCE: ClassVar[str] = "250.0"
    GROUP: ClassVar[str] = "Testing"
    FIELD_SINCE: ClassVar[dict[str, str]] = {"new_flag": "250.1", "new_param": "250.1"}
    new_flag = opt_prop_def(UnitAttr)
    new_param = opt_prop_def(IntegerAttr[I32], default_value=NEW_PARAM_DEFAULT)

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        if self.new_flag is not None:
            f.keyword("new_flag")
        if self.new_param != NEW_PARAM_DEFAULT:
            f.keyword("new_param")
            f.literal("=")
            f.keyword(str(self.new_param.value.data))
        f.attr_dict(self)

    @classmethod
    def parse(cls, parser: Parser) -> BytecodeTestNewAttributeOp:
        props: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("new_flag") is not None:
            props["new_flag"] = UnitAttr()
        if parser.parse_optional_keyword("new_param") is not None:
            parser.parse_punctuation("=")
            props["new_param"] = IntegerAttr(parser.parse_integer(allow_boolean=False), i32)
        attrs = parser.parse_optional_attr_dict()
        return cls.create(properties=props, attributes=attrs)


@irdl_op_definition
class BytecodeTestEvolutionOp(CudaTileOp):
    """`testing$bytecode_test_evolution(%a : T, ...) [new_attr = N] [token = %t : token]
    -> token [{attrs}]`: an op of 250.0 whose optional attribute, optional token operand
    and token result came in 250.1."""

    name = "cuda_tile.testing$bytecode_test_evolution"
    SYNTAX: ClassVar[str] = "(%a : T, ...) [new_attr = N] [token = %t : token] -> token [{attrs}]"
    SINCE: ClassVar[str] = "250.0"
    GROUP: ClassVar[str] = "Testing"
    FIELD_SINCE: ClassVar[dict[str, str]] = {
        "new_attr": "250.1",
        "optional_token": "250.1",
        "result_token": "250.1",
    }
    inputs = var_operand_def(TileType)
    optional_token = opt_operand_def(TokenType)
    new_attr = opt_prop_def(IntegerAttr[I32])
    result_token = result_def(TokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.literal("(")
        if self.inputs:
            f.operands(self.inputs)
            f.literal(":")
            f._space()  # pyright: ignore[reportPrivateUsage]
            printer.print_list([v.type for v in self.inputs], printer.print_attribute)
            f.after_variable()
        f.literal(")")
        if self.new_attr is not None:
            f.keyword("new_attr")
            f.literal("=")
            f.keyword(str(self.new_attr.value.data))
        if self.optional_token is not None:
            f.keyword("token")
            f.literal("=")
            f.operand(self.optional_token)
            f.literal(":")
            f.type(self.optional_token.type)
        f.literal("->")
        f.type(self.result_token.type)
        f.attr_dict(self)

    @classmethod
    def parse(cls, parser: Parser) -> BytecodeTestEvolutionOp:
        parser.parse_punctuation("(")
        names = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
        )
        names = names or []
        types: list[Attribute] = []
        if names:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        pos = parser.pos
        if len(types) != len(names):
            parser.raise_error(f"{len(names)} inputs and {len(types)} types", pos, parser.pos)
        inputs = [parser.resolve_operand(n, t) for n, t in zip(names, types, strict=True)]
        props: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("new_attr") is not None:
            parser.parse_punctuation("=")
            props["new_attr"] = IntegerAttr(parser.parse_integer(allow_boolean=False), i32)
        token: list = []
        if parser.parse_optional_keyword("token") is not None:
            parser.parse_punctuation("=")
            name = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            token = [parser.resolve_operand(name, parse_cuda_tile_type(parser))]
        parser.parse_punctuation("->")
        result = parse_cuda_tile_type(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.create(
            operands=[*inputs, *token],
            result_types=[result],
            properties={**props, "operandSegmentSizes": _segments(len(inputs), len(token))},
            attributes=attrs,
        )


def _segments(inputs: int, token: int) -> Attribute:
    from xdsl.dialects.builtin import DenseArrayBase

    return DenseArrayBase.from_list(i32, [inputs, token])


TESTING_OPS = [TestingFuncOp, BytecodeTestNewAttributeOp, BytecodeTestEvolutionOp]
