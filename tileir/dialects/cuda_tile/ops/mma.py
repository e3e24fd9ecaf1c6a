"""Matrix multiply-accumulate ops: `mmaf` (floats), `mmai` (i8) and `mmaf_scaled`
(block-scaled 8- and 4-bit floats, 13.3).

All compute `acc + lhs x rhs` on 2-d tiles `MxK`, `KxN`, `MxN`, or on 3-d tiles with
a leading batch dimension.  Which element types combine is fixed per op:

| op | lhs, rhs | acc, result |
|---|---|---|
| mmaf | f16 | f16, f32 |
| mmaf | bf16, tf32, f32 | f32 |
| mmaf | f64 | f64 |
| mmaf | f8E4M3FN, f8E5M2, f4E2M1FN | f16, f32 |
| mmai | i8 (signed or unsigned each) | i32 |
| mmaf_scaled | f8E4M3FN, f8E5M2, f4E2M1FN | f32 |

`mmaf_scaled` multiplies each block of K elements of `lhs` (and of `rhs`) by one
scale factor (`lhs_scale` is `MxK/B`, `rhs_scale` is `K/BxN`): blocks of 32 for f8
operands; for f4E2M1FN, 16 with f8E4M3FN scales and 16 or 32 with f8E8M0FNU scales.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatTF32Type,
    UnitAttr,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from tileir.dialects.cuda_tile.attributes import Signedness, SignednessAttr
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.base import (
    I8,
    I32,
    CudaTileOp,
    ElementSet,
    SignednessDirective,
    check_same_element_type,
    check_same_rank,
    check_tile_of,
)
from tileir.dialects.cuda_tile.syntax import AsmFormat, parse_cuda_tile_type
from tileir.dialects.cuda_tile.types import shape_text

MMAF_OPERAND = ElementSet(
    "f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2",
    lambda t: isinstance(
        t,
        Float16Type
        | BFloat16Type
        | Float32Type
        | Float64Type
        | FloatTF32Type
        | Float8E4M3FNType
        | Float8E5M2Type,
    ),
)
MMAF_RESULT = ElementSet(
    "f16 or f32 or f64", lambda t: isinstance(t, Float16Type | Float32Type | Float64Type)
)
SCALED_OPERAND = ElementSet(
    "f8E4M3FN or f8E5M2 or f4E2M1FN",
    lambda t: isinstance(t, Float8E4M3FNType | Float8E5M2Type | Float4E2M1FNType),
)
SCALED_SCALE = ElementSet(
    "f8E4M3FN or f8E8M0FNU", lambda t: isinstance(t, Float8E4M3FNType | Float8E8M0FNUType)
)
SCALED_RESULT = ElementSet("f32", lambda t: isinstance(t, Float32Type))

#: mmaf: for each input element type, the accumulator types it allows.
MMAF_COMBINATIONS: tuple[tuple[type[Attribute], tuple[str, ...]], ...] = (
    (Float4E2M1FNType, ("f16", "f32")),
    (Float8E4M3FNType, ("f16", "f32")),
    (Float8E5M2Type, ("f16", "f32")),
    (Float16Type, ("f16", "f32")),
    (BFloat16Type, ("f32",)),
    (FloatTF32Type, ("f32",)),
    (Float32Type, ("f32",)),
    (Float64Type, ("f64",)),
)


def _dims(t: Attribute) -> tuple[int, ...]:
    return shape_of(t)


Dims = tuple[int, ...]


def _first(*checks: Callable[[], str | None]) -> str | None:
    """The first error of `checks`, run in order (a later check may index dims an
    earlier one validates)."""
    for check in checks:
        error = check()
        if error is not None:
            return error
    return None


def _dim_mismatch(
    x_name: str, x: Dims, i: int, y_name: str, y: Dims, j: int, lead: str = ""
) -> str | None:
    """NVIDIA's message when dim `i` of `x` and dim `j` of `y` differ (`lead`: the space
    some of its messages start with)."""
    if x[i] == y[j]:
        return None
    return (
        f"{lead}shape error: dim {i} of {x_name} ({x[i]}) and dim {j} of {y_name} ({y[j]}) must "
        f"match, but got {x_name} shape ({shape_text(x)}) and {y_name} shape ({shape_text(y)})"
    )


def mma_shape_error(lhs: Attribute, rhs: Attribute, acc: Attribute) -> str | None:
    """NVIDIA's shape rules shared by the mma ops (`MxK @ KxN + MxN`, optionally
    batched)."""
    a, b, c = _dims(lhs), _dims(rhs), _dims(acc)
    if len(a) not in (2, 3):
        return "operands must be 2D or 3D tiles"
    batched = int(len(a) == 3)
    row, col = batched, batched + 1
    batch = (
        (
            lambda: _dim_mismatch("lhs", a, 0, "rhs", b, 0),
            lambda: _dim_mismatch("lhs", a, 0, "acc", c, 0),
        )
        if batched
        else ()
    )
    return _first(
        *batch,
        lambda: _dim_mismatch("lhs", a, col, "rhs", b, row, " "),
        lambda: _dim_mismatch("lhs", a, row, "acc", c, row, " "),
        lambda: _dim_mismatch("rhs", b, col, "acc", c, col, " "),
    )


class MmaOp(CudaTileOp):
    """`%lhs, %rhs, %acc [modifiers] : L, R, A`; the result has the accumulator's type."""

    GROUP: ClassVar[str] = "Floating Point"
    lhs = operand_def()
    rhs = operand_def()
    acc = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def print_operands(self, f: AsmFormat) -> None:
        f.operand(self.lhs)
        f.literal(",")
        f.operand(self.rhs)
        f.literal(",")
        f.operand(self.acc)

    def print_types(self, f: AsmFormat) -> None:
        f.literal(":")
        f.type(self.lhs.type)
        f.literal(",")
        f.type(self.rhs.type)
        f.literal(",")
        f.type(self.acc.type)

    @classmethod
    def parse_operands(cls, parser: Parser):  # pyright: ignore[reportMissingParameterType]
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        acc = parser.parse_unresolved_operand()
        return lhs, rhs, acc

    @classmethod
    def finish_parse(cls, parser: Parser, operands, props: dict[str, Attribute]):  # pyright: ignore[reportMissingParameterType]
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [parse_cuda_tile_type(parser)]
        for _ in operands[1:]:
            parser.parse_punctuation(",")
            types.append(parse_cuda_tile_type(parser))
        return cls.create(
            operands=[parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)],
            result_types=[types[2]],
            properties=props,
            attributes=attrs,
        )


@irdl_op_definition
class MmaFOp(MmaOp):
    """`%lhs, %rhs, %acc [fast_acc] : L, R, A`: float matrix multiply-accumulate.
    `fast_acc` (13.3) lets Hopper keep FP8 partial sums in its native reduced
    precision instead of promoting them to f32 periodically."""

    name = "cuda_tile.mmaf"
    SYNTAX: ClassVar[str] = "%lhs, %rhs, %acc [fast_acc] [{attrs}] : L, R, A"
    FIELD_SINCE: ClassVar[dict[str, str]] = {"fast_acc": "13.3"}
    fast_acc = opt_prop_def(UnitAttr)

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        self.print_operands(f)
        if self.fast_acc is not None:
            f.literal("fast_acc")
        f.attr_dict(self)
        self.print_types(f)

    @classmethod
    def parse(cls, parser: Parser) -> MmaFOp:
        operands = cls.parse_operands(parser)
        props: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("fast_acc") is not None:
            props["fast_acc"] = UnitAttr()
        return cls.finish_parse(parser, operands, props)

    def verify_(self) -> None:
        check_tile_of(self, self.lhs, "operand #0", MMAF_OPERAND, summary="mmaf operand tile type")
        check_tile_of(self, self.rhs, "operand #1", MMAF_OPERAND, summary="mmaf operand tile type")
        check_tile_of(
            self, self.acc, "operand #2", MMAF_RESULT, summary="mmaf acc/result tile type"
        )
        check_tile_of(
            self, self.result, "result #0", MMAF_RESULT, summary="mmaf acc/result tile type"
        )
        if self.acc.type != self.result.type:
            raise self.op_error("failed to verify that all of {acc, result} have same type")
        check_same_element_type(self, ("lhs", "rhs"), (self.lhs, self.rhs))
        check_same_rank(self, ("lhs", "rhs", "acc"), (self.lhs, self.rhs, self.acc))
        error = mma_shape_error(self.lhs.type, self.rhs.type, self.acc.type)
        if error is not None:
            raise self.op_error(error)
        lhs_el, acc_el = element_type(self.lhs.type), element_type(self.acc.type)
        for input_type, outputs in MMAF_COMBINATIONS:
            if isinstance(lhs_el, input_type):
                if str(acc_el) not in outputs:
                    allowed = ", ".join(f"'{o}'" for o in outputs)
                    raise self.op_error(
                        f"unsupported combination of element types. Input type '{lhs_el}' "
                        f"expects accumulator/result type to be one of {{{allowed}}}, but got "
                        f"'{acc_el}'"
                    )
                return
        raise self.op_error(f"unsupported input element type: '{lhs_el}'")


@irdl_op_definition
class MmaIOp(MmaOp):
    """`%lhs, %rhs, %acc signed|unsigned signed|unsigned : L, R, A`: i8 x i8 + i32;
    each keyword says how `lhs` and `rhs` are read."""

    name = "cuda_tile.mmai"
    SYNTAX: ClassVar[str] = "%lhs, %rhs, %acc signed|unsigned signed|unsigned [{attrs}] : L, R, A"
    GROUP: ClassVar[str] = "Integer"
    signedness_lhs = prop_def(SignednessAttr)
    signedness_rhs = prop_def(SignednessAttr)

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        self.print_operands(f)
        SignednessDirective("signedness_lhs").print(f, self)
        SignednessDirective("signedness_rhs").print(f, self)
        f.attr_dict(self)
        self.print_types(f)

    @classmethod
    def parse(cls, parser: Parser) -> MmaIOp:
        operands = cls.parse_operands(parser)
        props: dict[str, Attribute] = {}
        SignednessDirective("signedness_lhs").parse(parser, props)
        SignednessDirective("signedness_rhs").parse(parser, props)
        return cls.finish_parse(parser, operands, props)

    @property
    def lhs_signed(self) -> bool:
        return self.signedness_lhs.data is Signedness.SIGNED

    @property
    def rhs_signed(self) -> bool:
        return self.signedness_rhs.data is Signedness.SIGNED

    def verify_(self) -> None:
        check_tile_of(self, self.lhs, "operand #0", I8, summary="mmai operand tile type")
        check_tile_of(self, self.rhs, "operand #1", I8, summary="mmai operand tile type")
        check_tile_of(self, self.acc, "operand #2", I32, summary="mmai acc tile type")
        check_tile_of(self, self.result, "result #0", I32, summary="mmai result tile type")
        if self.acc.type != self.result.type:
            raise self.op_error("failed to verify that all of {acc, result} have same type")
        check_same_element_type(self, ("lhs", "rhs"), (self.lhs, self.rhs))
        check_same_rank(self, ("lhs", "rhs", "acc"), (self.lhs, self.rhs, self.acc))
        error = mma_shape_error(self.lhs.type, self.rhs.type, self.acc.type)
        if error is not None:
            raise self.op_error(error)


@irdl_op_definition
class MmaFScaledOp(CudaTileOp):
    """`%lhs, %rhs, %acc, %lhs_scale, %rhs_scale : L, R, A, LS, RS` (13.3):
    block-scaled matrix multiply-accumulate (MX and NV FP4/FP8 formats)."""

    name = "cuda_tile.mmaf_scaled"
    SYNTAX: ClassVar[str] = "%lhs, %rhs, %acc, %lhs_scale, %rhs_scale [{attrs}] : L, R, A, LS, RS"
    SINCE: ClassVar[str] = "13.3"
    GROUP: ClassVar[str] = "Floating Point"
    lhs = operand_def()
    rhs = operand_def()
    acc = operand_def()
    lhs_scale = operand_def()
    rhs_scale = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        for i, v in enumerate(self.operands):
            if i:
                f.literal(",")
            f.operand(v)
        f.attr_dict(self)
        f.literal(":")
        for i, v in enumerate(self.operands):
            if i:
                f.literal(",")
            f.type(v.type)

    @classmethod
    def parse(cls, parser: Parser) -> MmaFScaledOp:
        operands = [parser.parse_unresolved_operand()]
        for _ in range(4):
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [parse_cuda_tile_type(parser)]
        for _ in range(4):
            parser.parse_punctuation(",")
            types.append(parse_cuda_tile_type(parser))
        return cls.create(
            operands=[parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)],
            result_types=[types[2]],
            attributes=attrs,
        )

    def verify_(self) -> None:
        summaries = (
            (SCALED_OPERAND, "mmaf_scaled operand tile type"),
            (SCALED_OPERAND, "mmaf_scaled operand tile type"),
            (SCALED_RESULT, "mmaf_scaled result tile type"),
            (SCALED_SCALE, "mmaf_scaled scale tile type"),
            (SCALED_SCALE, "mmaf_scaled scale tile type"),
        )
        for i, (v, (elements, summary)) in enumerate(zip(self.operands, summaries, strict=True)):
            check_tile_of(self, v, f"operand #{i}", elements, summary=summary)
        check_tile_of(
            self, self.result, "result #0", SCALED_RESULT, summary="mmaf_scaled result tile type"
        )
        if self.acc.type != self.result.type:
            raise self.op_error("failed to verify that all of {acc, result} have same type")
        check_same_element_type(self, ("lhs", "rhs"), (self.lhs, self.rhs))
        check_same_element_type(self, ("lhs_scale", "rhs_scale"), (self.lhs_scale, self.rhs_scale))
        check_same_rank(
            self,
            ("lhs", "rhs", "acc", "lhs_scale", "rhs_scale"),
            (self.lhs, self.rhs, self.acc, self.lhs_scale, self.rhs_scale),
        )
        error = mma_shape_error(self.lhs.type, self.rhs.type, self.acc.type) or self.scale_error()
        if error is not None:
            raise self.op_error(error)

    def scale_error(self) -> str | None:
        lhs, rhs = _dims(self.lhs.type), _dims(self.rhs.type)
        ls, rs = _dims(self.lhs_scale.type), _dims(self.rhs_scale.type)
        batched = int(len(lhs) == 3)
        row, col = batched, batched + 1
        batch = (
            (
                lambda: _dim_mismatch("lhs", lhs, 0, "lhs_scale", ls, 0),
                lambda: _dim_mismatch("rhs", rhs, 0, "rhs_scale", rs, 0),
            )
            if batched
            else ()
        )
        error = _first(
            *batch,
            lambda: _dim_mismatch("lhs", lhs, row, "lhs_scale", ls, row),
            lambda: _dim_mismatch("rhs", rhs, col, "rhs_scale", rs, col),
            lambda: _dim_mismatch("lhs_scale", ls, col, "rhs_scale", rs, row),
        )
        if error is not None:
            return error
        el = element_type(self.lhs.type)
        scale_el = element_type(self.lhs_scale.type)
        if isinstance(scale_el, Float8E4M3FNType) and not isinstance(el, Float4E2M1FNType):
            return (
                f"unsupported combination of element types. Scale type '{scale_el}' expects lhs "
                f"and rhs element types to be 'f4E2M1FN', but got '{el}'"
            )
        if isinstance(scale_el, Float8E8M0FNUType) and not isinstance(
            el, Float8E4M3FNType | Float8E5M2Type | Float4E2M1FNType
        ):
            return (
                f"unsupported combination of element types. Scale type '{scale_el}' expects lhs "
                f"and rhs element types to be one of {{'f8E4M3FN', 'f8E5M2', 'f4E2M1FN'}}, but "
                f"got '{el}'"
            )
        k, scale_k = lhs[col], ls[col]
        if k % scale_k:
            return (
                f"shape error: dim {col} of lhs_scale ({scale_k}) must be a divisor of dim {col} "
                f"of lhs ({k}), but got lhs_scale shape ({shape_text(ls)}) and lhs shape "
                f"({shape_text(lhs)})"
            )
        block = k // scale_k
        if isinstance(el, Float8E4M3FNType | Float8E5M2Type) and block != 32:
            return (
                "shape error: f8 element type requires block scale factor of lhs_scale and "
                f"rhs_scale to be 32, but got {block}"
            )
        if isinstance(el, Float4E2M1FNType):
            if isinstance(scale_el, Float8E4M3FNType) and block != 16:
                return (
                    "shape error: f4E2M1FN element type with f8E4M3FN scales requires block "
                    f"scale factor of lhs_scale and rhs_scale to be 16, but got {block}"
                )
            if isinstance(scale_el, Float8E8M0FNUType) and block not in (16, 32):
                return (
                    "shape error: f4E2M1FN element type with f8E8M0FNU scales requires block "
                    f"scale factor of lhs_scale and rhs_scale to be 16 or 32, but got {block}"
                )
        return None


MMA_OPS = [MmaFOp, MmaIOp, MmaFScaledOp]
