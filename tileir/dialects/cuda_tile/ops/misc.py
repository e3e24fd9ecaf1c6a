"""`print_tko` (NVIDIA group Miscellaneous): printf from device code, ordered by
tokens.

    [%t =] print_tko "fmt %i %f" [, %a, %b] [token=%in] [: A, B] -> token

The format string follows C's printf; one tile argument per conversion (`%%` is a
literal percent sign).  The token operand and result appeared in 13.2.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    opt_operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from tileir.dialects.cuda_tile.ops.base import CudaTileOp, inside_cuda_tile_function
from tileir.dialects.cuda_tile.ops.memory import (
    check_ordering_tokens,
    parse_token_operand,
    print_token_operand,
)
from tileir.dialects.cuda_tile.syntax import (
    AsmFormat,
    parse_cuda_tile_type,
    parse_cuda_tile_types,
    parse_operand_list,
    resolve_operands,
)
from tileir.dialects.cuda_tile.types import TileType

#: The characters that end a printf conversion.
CONVERSION_ENDS = "diuoxXeEfFgGaAcsSpn%"


def format_expression(text: str) -> str:
    """The conversion at the start of `text` (which starts with `%`), or "" when it
    never ends."""
    for i in range(1, len(text)):
        if text[i] in CONVERSION_ENDS:
            return text[: i + 1]
    return ""


def count_format_arguments(text: str) -> int | None:
    """How many arguments `text` consumes; None for an unterminated conversion."""
    count = 0
    pos = 0
    while pos < len(text):
        if text[pos] == "%":
            expression = format_expression(text[pos:])
            if not expression:
                return None
            if expression == "%%":
                pos += 1
            else:
                count += 1
        pos += 1
    return count


@irdl_op_definition
class PrintTkoOp(CudaTileOp):
    """`"fmt" [, %args] [token=%t] {attrs} [: types] -> token`."""

    name = "cuda_tile.print_tko"
    SYNTAX: ClassVar[str] = '"format" [, %args...] [token=%t] [{attrs}] [: T, ...] -> token'
    GROUP: ClassVar[str] = "Miscellaneous"
    FIELD_SINCE: ClassVar[dict[str, str]] = {"token": "13.2", "result_token": "13.2"}

    str_ = prop_def(StringAttr, prop_name="str")
    args = var_operand_def()
    token = opt_operand_def()
    result_token = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @property
    def format(self) -> str:
        return self.str_.data

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.custom(lambda: printer.print_string_literal(self.format))
        if self.args:
            f.literal(",")
            f.operands(self.args)
        print_token_operand(f, self.token)
        f.attr_dict(self)
        if self.args:
            f.literal(":")
            f.types([a.type for a in self.args])
        f.literal("->")
        f.type(self.result_token.type)

    @classmethod
    def parse(cls, parser: Parser) -> PrintTkoOp:
        text = parser.parse_optional_str_literal()
        if text is None:
            parser.raise_error("expected attribute value")
        args = []
        if parser.parse_optional_punctuation(",") is not None:
            args = parse_operand_list(parser)
        token = parse_token_operand(parser)
        attrs = parser.parse_optional_attr_dict()
        pos = parser.pos
        types: Sequence[Attribute] = []
        if parser.parse_optional_punctuation(":") is not None:
            types = parse_cuda_tile_types(parser)
        parser.parse_punctuation("->")
        result = parse_cuda_tile_type(parser)
        values = resolve_operands(parser, args, types, pos)
        return cls.build(
            operands=[
                values,
                [] if token is None else [parser.resolve_operand(token, result)],
            ],
            result_types=[result],
            properties={"str": StringAttr(text)},
            attributes=attrs,
        )

    def verify_(self) -> None:
        public = inside_cuda_tile_function(self)
        for i, a in enumerate(self.args):
            if public and not isinstance(a.type, TileType):
                raise self.op_error(
                    f"operand #{i} must be variadic of Tile type, but got '{a.type}'"
                )
        check_ordering_tokens(self, self.token, self.result_token, f"operand #{len(self.args)}")
        expected = count_format_arguments(self.format)
        if expected is None:
            raise self.op_error("found unterminated format expression")
        if expected != len(self.args):
            raise self.op_error(
                f"incorrect number of operands: expected {expected}, found {len(self.args)}"
            )


MISC_OPS = [PrintTkoOp]
