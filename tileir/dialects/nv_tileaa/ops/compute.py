"""Tile compute: dot (matrix multiply-accumulate)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatTF32Type,
    IntegerType,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from tileir.dialects.cuda_tile.attributes import Signedness, SignednessAttr
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileaa.ops.base import TileAAOp, canonicalized_by, split_props

#: Input element type -> accumulator element types a dot accepts (cuda_tile mmaf/mmai).
DOT_ELEMENTS: dict[type[Attribute], tuple[type[Attribute], ...]] = {
    Float16Type: (Float16Type, Float32Type),
    BFloat16Type: (Float32Type,),
    Float32Type: (Float32Type,),
    FloatTF32Type: (Float32Type,),
    Float64Type: (Float64Type,),
    Float8E4M3FNType: (Float16Type, Float32Type),
    Float8E5M2Type: (Float16Type, Float32Type),
}


#: On a block-scaled dot: its operands are e2m1 values held two a byte, the even element
#: of a row of K in the low nibble (cuda_tile `unpack`'s order), in i8 tiles `[M, K/2]`
#: and `[K/2, N]` (`conversions/scaled_mma.py`, sm_100a's `kind::mxf4*`); its scales
#: are f8E8M0FNU or f8E4M3FN, one per `G` elements (`K/G` groups).
PACKED_F4_ATTR = "tileir.packed_f4"


def _signedness_word(attr: SignednessAttr | None) -> str:
    return attr.data.value if attr is not None else ""


@irdl_op_definition
class DotOp(TileAAOp):
    """`%d = nv_tileaa.dot %a, %b, %acc : tensor<16x32xf16>, tensor<32x8xf16>, tensor<16x8xf32>`

    `acc + a @ b` (rank 2, or rank 3 with a leading batch dimension), the products and
    sums computed in the accumulator type.  Floating inputs: f16 (f16 or f32
    accumulator), bf16, tf32 and f32 (f32), f64 (f64), f8 (f16 or f32).  Integer inputs are i8
    with an i32 accumulator and carry the signedness of each operand:
    `%d = nv_tileaa.dot %a, %b, %acc signed unsigned : ...` (cuda_tile `mmai`).  A
    floating dot may carry `fast_acc` (cuda_tile `mmaf ... fast_acc`): FP8 partial sums
    may stay in the hardware's reduced precision.

    A block-scaled dot (cuda_tile `mmaf_scaled` that sm_100a runs natively,
    `decompose-scaled-dots`) carries the scale factors of both operands:
    `%d = nv_tileaa.dot %a, %b, %acc scales %sa, %sb : ta, tb, tacc, tsa, tsb`, `acc +
    (a * sa') @ (b * sb')` where `sa` (`[M, K/G]`, f8E8M0FNU) repeats over each group of
    `G` columns of K of `a` and `sb` (`[K/G, N]`) over `G` rows of `b`; `a` and `b` are
    8-bit floats, the accumulator f32.  With `tileir.packed_f4` (`PACKED_F4_ATTR`) `a` and
    `b` are i8 tiles `[M, K/2]` and `[K/2, N]` of e2m1 pairs, the even element of K in
    the low nibble, and the scales f8E8M0FNU or f8E4M3FN, `G` elements of K a factor."""

    name = "nv_tileaa.dot"
    T: ClassVar = VarConstraint("T", base(TensorType))
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    acc = operand_def(T)
    lhs_scale = opt_operand_def(TensorType)
    rhs_scale = opt_operand_def(TensorType)
    signedness_lhs = opt_prop_def(SignednessAttr)
    signedness_rhs = opt_prop_def(SignednessAttr)
    fast_acc = opt_prop_def(UnitAttr)
    result = result_def(T)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure(), canonicalized_by("FoldConstantDot"))

    def __init__(
        self,
        lhs: SSAValue,
        rhs: SSAValue,
        acc: SSAValue,
        signedness: tuple[Signedness, Signedness] | None = None,
        fast_acc: bool = False,
        scales: tuple[SSAValue, SSAValue] | None = None,
    ):
        props: dict[str, Attribute] = {}
        if signedness is not None:
            props["signedness_lhs"] = SignednessAttr(signedness[0])
            props["signedness_rhs"] = SignednessAttr(signedness[1])
        if fast_acc:
            props["fast_acc"] = UnitAttr()
        sa, sb = ([scales[0]], [scales[1]]) if scales is not None else ([], [])
        super().__init__(
            operands=[lhs, rhs, acc, sa, sb], result_types=[acc.type], properties=props
        )

    @property
    def scales(self) -> tuple[SSAValue, SSAValue] | None:
        """The scale factors of a block-scaled dot (A's, B's), else None."""
        if self.lhs_scale is None or self.rhs_scale is None:
            return None
        return self.lhs_scale, self.rhs_scale

    def signedness(self) -> tuple[Signedness, Signedness] | None:
        if self.signedness_lhs is None or self.signedness_rhs is None:
            return None
        return self.signedness_lhs.data, self.signedness_rhs.data

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.lhs, self.rhs, self.acc], printer.print_operand)
        scales = self.scales
        if scales is not None:
            printer.print_string(" scales ")
            printer.print_list(scales, printer.print_operand)
        for attr in (self.signedness_lhs, self.signedness_rhs):
            if attr is not None:
                printer.print_string(" " + _signedness_word(attr))
        if self.fast_acc is not None:
            printer.print_string(" fast_acc")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list(
            [v.type for v in (self.lhs, self.rhs, self.acc, *(scales or ()))],
            printer.print_attribute,
        )

    @classmethod
    def parse(cls, parser: Parser) -> DotOp:
        operands = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        if parser.parse_optional_keyword("scales") is not None:
            operands.append(parser.parse_unresolved_operand())
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        props: dict[str, Attribute] = {}
        for key in ("signedness_lhs", "signedness_rhs"):
            word = parser.parse_optional_keyword("signed") or parser.parse_optional_keyword(
                "unsigned"
            )
            if word is None:
                break
            props[key] = SignednessAttr(Signedness(word))
        if len(props) == 1:
            parser.raise_error("expected the signedness of both operands (`signed unsigned`)")
        if parser.parse_optional_keyword("fast_acc") is not None:
            props["fast_acc"] = UnitAttr()
        attrs = parser.parse_optional_attr_dict()
        more, attrs = split_props(attrs, ("signedness_lhs", "signedness_rhs", "fast_acc"))
        props.update(more)
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        for _ in range(len(operands) - 1):
            parser.parse_punctuation(",")
            types.append(parser.parse_type())
        values = [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]
        scales = ([values[3]], [values[4]]) if len(values) == 5 else ([], [])
        return cls.build(
            operands=[*values[:3], *scales],
            result_types=[types[2]],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        a, b, c = (shape_of(v.type) for v in (self.lhs, self.rhs, self.acc))
        if not (len(a) == len(b) == len(c) and len(a) in (2, 3)):
            raise self.op_error(
                f"operands must all be rank 2 (or 3, batched), got {len(a)}, {len(b)}, {len(c)}"
            )
        if len(a) == 3 and not a[0] == b[0] == c[0]:
            raise self.op_error(f"batch extents differ: {a[0]}, {b[0]}, {c[0]}")
        m, k = a[-2:]
        k2, n = b[-2:]
        if k != k2 or tuple(c[-2:]) != (m, n):
            raise self.op_error(
                f"shapes {list(a)} x {list(b)} -> {list(c)} do not form (M x K) x (K x N) -> (M x N)"
            )
        ea, eb, ec = (element_type(v.type) for v in (self.lhs, self.rhs, self.acc))
        if (self.lhs_scale is None) != (self.rhs_scale is None):
            raise self.op_error("a block-scaled dot needs the scales of both operands")
        if self.scales is not None:
            self._verify_scales(a, b)
            if PACKED_F4_ATTR in self.attributes:
                if self.signedness_lhs is not None or self.fast_acc is not None:
                    raise self.op_error("a packed e2m1 dot takes no signedness and no fast_acc")
                return
        signed = self.signedness()
        has_signedness = self.signedness_lhs is not None or self.signedness_rhs is not None
        if isinstance(ea, IntegerType) or isinstance(eb, IntegerType):
            if ea != IntegerType(8) or eb != IntegerType(8) or ec != IntegerType(32):
                raise self.op_error(f"integer dot is i8 x i8 -> i32, got {ea} x {eb} -> {ec}")
            if signed is None:
                raise self.op_error("integer dot needs the signedness of both operands")
            if self.fast_acc is not None:
                raise self.op_error("fast_acc applies to floating-point dots only")
            return
        if has_signedness:
            raise self.op_error("signedness applies to integer dots only")
        accepted = DOT_ELEMENTS.get(type(ea))
        f8 = (Float8E4M3FNType, Float8E5M2Type)
        same_kind = type(eb) is type(ea) or (isinstance(ea, f8) and isinstance(eb, f8))
        if accepted is None or not same_kind:
            raise self.op_error(f"unsupported operand element types {ea} x {eb}")
        if type(ec) not in accepted:
            raise self.op_error(
                f"{ea} operands accumulate in {', '.join(t.name for t in accepted)}, not {ec}"
            )

    def _verify_scales(self, a: tuple[int, ...], b: tuple[int, ...]) -> None:
        scales = self.scales
        assert scales is not None
        sa, sb = (shape_of(v.type) for v in scales)
        (m, k), n = a[-2:], b[-1]
        groups = sa[-1] if sa else 0
        if (
            len(sa) != len(a)
            or len(sb) != len(b)
            or not groups
            or k % groups
            or tuple(sa[:-1]) != (*a[:-2], m)
            or tuple(sb) != (*b[:-2], groups, n)
        ):
            raise self.op_error(
                f"scales {list(sa)}, {list(sb)} do not fit {list(a)} x {list(b)}: "
                "expected [.., M, K/G] and [.., K/G, N]"
            )
        packed = PACKED_F4_ATTR in self.attributes
        scale_types = (Float8E8M0FNUType, Float8E4M3FNType) if packed else (Float8E8M0FNUType,)
        for v in scales:
            if not isinstance(element_type(v.type), scale_types):
                raise self.op_error(f"block scales are f8E8M0FNU, not {element_type(v.type)}")
        ea, eb, ec = (element_type(v.type) for v in (self.lhs, self.rhs, self.acc))
        if packed:
            if ea != IntegerType(8) or eb != IntegerType(8) or not isinstance(ec, Float32Type):
                raise self.op_error(
                    f"a block-scaled dot of packed e2m1 is i8 x i8 -> f32, got {ea} x {eb} -> {ec}"
                )
            return
        f8 = (Float8E4M3FNType, Float8E5M2Type)
        if not isinstance(ea, f8) or not isinstance(eb, f8) or not isinstance(ec, Float32Type):
            raise self.op_error(f"a block-scaled dot is f8 x f8 -> f32, got {ea} x {eb} -> {ec}")


COMPUTE_OPS: list[type[TileAAOp]] = [DotOp]
