"""The shape shared by cuda_tile's ~50 elementwise ops.

Their custom form is always

    [prefix modifiers] %a, %b, ... [modifiers] {attrs} : <types>

where <types> is one of three signatures: `T` (operands and result share one type),
`T -> R` (a conversion, or a comparison's i1 result), or `C, T` (select).  A concrete
op is then a few lines: name, operand names, the element set it accepts, its modifiers
and, where it has one, its extra verification.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import ClassVar

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import traits_def, var_operand_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from tileir.dialects.cuda_tile.carriers import shape_of, with_element
from tileir.dialects.cuda_tile.ops.base import (
    ANY_ELEMENT,
    BOOL,
    CudaTileOp,
    ElementSet,
    Modifier,
    check_tile_of,
    parse_modifiers,
    print_modifiers,
)
from tileir.dialects.cuda_tile.syntax import AsmFormat, parse_cuda_tile_type


class Signature(Enum):
    SAME = "T"  # : T           operands and result all of type T
    COMPARE = "T -> i1"  # : T -> R  operands of type T, result R (i1 of T's shape)
    CONVERT = "T -> R"  # : T -> R  one operand of type T, result R
    SELECT = "C, T"  # : C, T   condition C, both values and result T


class ElementwiseOp(CudaTileOp):
    """Base of the elementwise families.  Operands and the result are stored as
    variadic lists so that one base serves unary, binary and ternary ops; the number
    of operands is fixed per op by `operand_names` and checked by the verifier."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    #: ODS's name of the result (`to` for most conversions).
    RESULT_NAME: ClassVar[str] = "result"
    SIGNATURE: ClassVar[Signature] = Signature.SAME
    PREFIX_MODIFIERS: ClassVar[tuple[Modifier, ...]] = ()
    MODIFIERS: ClassVar[tuple[Modifier, ...]] = ()
    #: Element types the operands accept (and the result, for SAME).
    OPERAND_ELEMENTS: ClassVar[ElementSet] = ANY_ELEMENT
    RESULT_ELEMENTS: ClassVar[ElementSet | None] = None

    args = var_operand_def()
    res = var_result_def()

    traits = traits_def(Pure())

    @property
    def result(self) -> SSAValue:
        return self.res[0]

    @classmethod
    def syntax(cls) -> str:
        """The custom form, as the reference documentation writes it."""
        if cls.SYNTAX:
            return cls.SYNTAX
        pieces = [m.syntax() for m in cls.PREFIX_MODIFIERS]
        pieces.append(", ".join(f"%{name}" for name in cls.OPERANDS))
        pieces += [m.syntax() for m in cls.MODIFIERS]
        signature = {
            Signature.SAME: "T",
            Signature.COMPARE: "T -> R",
            Signature.CONVERT: "T -> R",
            Signature.SELECT: "C, T",
        }[cls.SIGNATURE]
        return " ".join(pieces) + f" [{{attrs}}] : {signature}"

    def operand(self, name: str) -> SSAValue:
        return self.args[self.OPERANDS.index(name)]

    # -- printing -----------------------------------------------------------
    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        print_modifiers(f, self, self.PREFIX_MODIFIERS)
        for i, v in enumerate(self.args):
            if i:
                f.literal(",")
            f.operand(v)
        print_modifiers(f, self, self.MODIFIERS)
        f.attr_dict(self)
        f.literal(":")
        if self.SIGNATURE is Signature.SAME:
            f.type(self.result.type)
        elif self.SIGNATURE in (Signature.COMPARE, Signature.CONVERT):
            f.type(self.args[0].type)
            f.literal("->")
            f.type(self.result.type)
        else:
            f.type(self.args[0].type)
            f.literal(",")
            f.type(self.result.type)

    # -- parsing ------------------------------------------------------------
    @classmethod
    def parse(cls, parser: Parser) -> ElementwiseOp:
        props: dict[str, Attribute] = {}
        parse_modifiers(parser, cls.PREFIX_MODIFIERS, props)
        operands = [parser.parse_unresolved_operand()]
        for _ in cls.OPERANDS[1:]:
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        parse_modifiers(parser, cls.MODIFIERS, props)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        first = parse_cuda_tile_type(parser)
        if cls.SIGNATURE is Signature.SAME:
            operand_types = [first] * len(operands)
            result_type = first
        elif cls.SIGNATURE is Signature.SELECT:
            parser.parse_punctuation(",")
            result_type = parse_cuda_tile_type(parser)
            operand_types = [first, result_type, result_type]
        else:
            parser.parse_punctuation("->")
            result_type = parse_cuda_tile_type(parser)
            operand_types = [first] * len(operands)
        values = [
            parser.resolve_operand(o, t) for o, t in zip(operands, operand_types, strict=True)
        ]
        return cls.create(
            operands=values,
            result_types=[result_type],
            properties=props,
            attributes=attributes,
        )

    @classmethod
    def build_op(
        cls,
        operands: Sequence[SSAValue],
        result_type: Attribute | None = None,
        **props: Attribute,
    ) -> ElementwiseOp:
        """Build the op; the result type defaults to the first operand's type (and to
        its i1 counterpart for comparisons)."""
        if result_type is None:
            t = operands[0].type if cls.SIGNATURE is not Signature.SELECT else operands[1].type
            if cls.SIGNATURE is Signature.COMPARE:
                t = with_element(t, IntegerType(1))
            result_type = t
        defaults = cls.default_properties()
        defaults.update(props)
        return cls.create(operands=list(operands), result_types=[result_type], properties=defaults)

    @classmethod
    def default_properties(cls) -> dict[str, Attribute]:
        """The property values the custom syntax implies when a modifier is absent."""
        return {}

    # -- verification -------------------------------------------------------
    def verify_(self) -> None:
        if len(self.args) != len(self.OPERANDS):
            raise self.op_error(f"expected {len(self.OPERANDS)} operands, got {len(self.args)}")
        if len(self.res) != 1:
            raise self.op_error(f"expected 1 result, got {len(self.res)}")
        self.verify_types()
        self.verify_modifiers()

    def verify_types(self) -> None:
        """ODS's order: operand constraints, result constraint, then the type-matching
        traits."""
        sig = self.SIGNATURE
        if sig is Signature.SELECT:
            return
        for i, v in enumerate(self.args):
            check_tile_of(self, v, f"operand #{i}", self.OPERAND_ELEMENTS)
        if sig is Signature.SAME:
            check_tile_of(
                self, self.result, "result #0", self.RESULT_ELEMENTS or self.OPERAND_ELEMENTS
            )
            first = self.args[0].type
            if any(v.type != first for v in (*self.args, self.result)):
                names = ", ".join((*self.OPERANDS, "result"))
                raise self.op_error(f"failed to verify that all of {{{names}}} have same type")
        elif sig is Signature.COMPARE:
            check_tile_of(self, self.result, "result #0", BOOL)
            first = self.args[0].type
            if any(v.type != first for v in self.args):
                names = ", ".join(self.OPERANDS)
                raise self.op_error(f"failed to verify that all of {{{names}}} have same type")
            if self.result.type != with_element(first, IntegerType(1)):
                raise self.op_error(
                    "failed to verify that Result type has i1 element type and same shape "
                    "as operands"
                )
        elif sig is Signature.CONVERT:
            if self.RESULT_ELEMENTS is not None:
                check_tile_of(self, self.result, "result #0", self.RESULT_ELEMENTS)
            if shape_of(self.args[0].type) != shape_of(self.result.type):
                raise self.op_error(
                    f"failed to verify that all of {{{self.OPERANDS[0]}, {self.RESULT_NAME}}} "
                    "have same shape"
                )

    def verify_modifiers(self) -> None:
        """Per-op rules on modifiers (rounding modes, flush_to_zero, ...)."""


def unit_flag(op: CudaTileOp, prop: str) -> bool:
    return prop in op.properties


def require(condition: bool, op: CudaTileOp, message: str) -> None:
    if not condition:
        raise op.op_error(message)
