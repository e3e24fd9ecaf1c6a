"""Memory ops (NVIDIA group Memory): tokens, `alloca`, the pointer loads and stores
(`load_ptr_tko`, `store_ptr_tko`), and the memory-model keywords every token-ordered
(`_tko`) memory op shares.

A token orders memory operations: an op that takes a token happens after the ops
that produced it.  `make_token` starts a chain, `join_tokens` merges chains.  Each
access names its ordering (`weak`, `relaxed`, `acquire`, `release`, `acq_rel`) and,
for all but `weak`, the scope it synchronizes with (`tl_blk`, `device`, `sys`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import AnyFloat, IntegerAttr, IntegerType, UnitAttr, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.str_enum import StrEnum

from tileir.dialects.cuda_tile.attributes import (
    MemoryOrderingSemantics,
    MemoryScope,
    OptimizationHintsAttr,
    enum_of_i32_attr,
    i32_enum_attr,
    parse_optimization_hints_body,
    print_optimization_hints_body,
)
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.base import (
    ANY_ELEMENT,
    BOOL,
    NUMBER,
    POINTER,
    CudaTileOp,
    check_tile_of,
    check_type,
    inside_cuda_tile_function,
)
from tileir.dialects.cuda_tile.syntax import (
    AsmFormat,
    parse_cuda_tile_type,
    parse_integer_of,
    parse_operand_list,
)
from tileir.dialects.cuda_tile.types import PointerType, TileType, TokenType


@irdl_op_definition
class MakeTokenOp(CudaTileOp):
    """`make_token : token`: a fresh token with no predecessor."""

    name = "cuda_tile.make_token"
    SYNTAX: ClassVar[str] = "[{attrs}] : token"
    GROUP: ClassVar[str] = "Memory"
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self):
        super().__init__(result_types=[TokenType()])

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.attr_dict(self)
        f.literal(":")
        f.type(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> MakeTokenOp:
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parse_cuda_tile_type(parser)
        return cls.create(result_types=[t], attributes=attrs)

    def verify_(self) -> None:
        check_type(
            self, self.result, "result #0", TOKEN_TYPE, isinstance(self.result.type, TokenType)
        )


@irdl_op_definition
class JoinTokensOp(CudaTileOp):
    """`join_tokens %a, %b, ... : token`: a token that follows all its inputs."""

    name = "cuda_tile.join_tokens"
    SYNTAX: ClassVar[str] = "%t0, %t1, ... [{attrs}] : token"
    GROUP: ClassVar[str] = "Memory"
    tokens = var_operand_def(TokenType)
    result = result_def(TokenType)
    traits = traits_def(Pure())

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.operands(self.tokens)
        f.attr_dict(self)
        f.literal(":")
        f.type(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> JoinTokensOp:
        operands = parse_operand_list(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parse_cuda_tile_type(parser)
        return cls.create(
            operands=[parser.resolve_operand(o, TokenType()) for o in operands],
            result_types=[t],
            attributes=attrs,
        )

    def verify_(self) -> None:
        if len(self.tokens) < 2:
            raise self.op_error("expect two or more tokens")


# ---------------------------------------------------------------------------
# Memory ordering semantics and scope, shared by the token-ordered memory ops.
# ---------------------------------------------------------------------------

SEMANTICS = tuple(m.value for m in MemoryOrderingSemantics)
SCOPES = tuple(s.value for s in MemoryScope)


def parse_memory_attributes(parser: Parser, props: dict[str, Attribute]) -> None:
    """`SEM [SCOPE]`; `weak` takes no scope."""
    pos = parser.pos
    word = parser.parse_optional_identifier()
    if word not in SEMANTICS:
        parser.raise_error(
            f'invalid memory_ordering_semantics attribute specification. Got "{word}" but '
            "expect one of: weak, relaxed, acquire, release, acq_rel",
            pos,
            max(parser.pos, pos + 1),
        )
    sem = MemoryOrderingSemantics(word)
    props["memory_ordering_semantics"] = i32_enum_attr(sem)
    pos = parser.pos
    scope = parser.parse_optional_identifier()
    if scope is not None:
        if sem is MemoryOrderingSemantics.WEAK:
            parser.raise_error(
                f'operation specifies weak memory ordering semantics, but then provides "{scope}" '
                "scope, expected no memory scope.",
                pos,
                parser.pos,
            )
        if scope not in SCOPES:
            parser.raise_error(
                f'invalid memory_scope attribute specification. Got "{scope}" but expect one '
                "of: tl_blk, device, sys",
                pos,
                parser.pos,
            )
        props["memory_scope"] = i32_enum_attr(MemoryScope(scope))


def print_memory_attributes(printer: Printer, props: dict[str, Attribute]) -> None:
    printer.print_string(" " + memory_semantics(props).value)
    if (scope := memory_scope(props)) is not None:
        printer.print_string(" " + scope.value)


def memory_semantics(props: dict[str, Attribute]) -> MemoryOrderingSemantics:
    return enum_of_i32_attr(MemoryOrderingSemantics, props["memory_ordering_semantics"])


def memory_scope(props: dict[str, Attribute]) -> MemoryScope | None:
    attr = props.get("memory_scope")
    return None if attr is None else enum_of_i32_attr(MemoryScope, attr)


def check_memory_model(
    op: CudaTileOp, allowed: Sequence[MemoryOrderingSemantics], kind: str
) -> None:
    """NVIDIA's memory-model rules for a load or store (`kind`): the ordering is one it
    allows; `weak` has no scope, the others need one."""
    sem = memory_semantics(op.properties)
    scope = memory_scope(op.properties)
    if sem not in allowed:
        names = ", ".join(s.value for s in allowed[:-1]) + f", or {allowed[-1].value}"
        raise op.op_error(f"expect one of: {names}, but got: {sem.value}")
    if sem is MemoryOrderingSemantics.WEAK and scope is not None:
        raise op.op_error(f"weak {kind} must not have memory scope")
    if sem is not MemoryOrderingSemantics.WEAK and scope is None:
        raise op.op_error(f"memory scope is required for {sem.value} {kind}")


LOAD_ORDERINGS = (
    MemoryOrderingSemantics.WEAK,
    MemoryOrderingSemantics.RELAXED,
    MemoryOrderingSemantics.ACQUIRE,
)
STORE_ORDERINGS = (
    MemoryOrderingSemantics.WEAK,
    MemoryOrderingSemantics.RELAXED,
    MemoryOrderingSemantics.RELEASE,
)

TOKEN_TYPE = "cuda tile token type"


def check_ordering_tokens(
    op: CudaTileOp, token: SSAValue | None, result: SSAValue, token_position: str
) -> None:
    """The token operand and result of an op that only orders (print_tko, the
    grid-dependency ops): cuda_tile tokens in a cuda_tile function; lifted into nv_tileaa
    IR, where the op survives on carriers, it orders through the lowering's token type
    (`!nv_tileaa.mem_token`), the same for its operand and result."""
    if inside_cuda_tile_function(op):
        if token is not None:
            check_type(op, token, token_position, TOKEN_TYPE, isinstance(token.type, TokenType))
        check_type(op, result, "result #0", TOKEN_TYPE, isinstance(result.type, TokenType))
    elif token is not None and token.type != result.type:
        raise op.op_error(
            f"token operand of type '{token.type}' and result of type '{result.type}' must agree"
        )


def parse_i32_enum(parser: Parser, enum: type[StrEnum], attribute: str) -> IntegerAttr[IntegerType]:
    """A plain-i32 enum attribute spelled as a keyword, with the message MLIR's
    generated enum parser gives."""
    word = parser.parse_optional_identifier_or_str_literal()
    choices = [m.value for m in enum]
    if word not in choices:
        parser.raise_error(
            "expected string or keyword containing one of the following enum values for "
            f"attribute '{attribute}' [{', '.join(choices)}]"
        )
    return i32_enum_attr(enum(word))


def parse_optional_scope(parser: Parser) -> IntegerAttr[IntegerType] | None:
    """`($memory_scope^)?`: a scope keyword, if one comes next."""
    word = parser.parse_optional_keyword_in(SCOPES)  # pyright: ignore[reportArgumentType]
    return None if word is None else i32_enum_attr(MemoryScope(word))


def print_token_operand(f: AsmFormat, token: SSAValue | None, spaced: bool = False) -> None:
    """`token=%t` (declarative formats) or ` token = %t` (custom printers)."""
    if token is None:
        return
    f.literal("token")
    f.printer.print_string(" = " if spaced else "=")
    f.printer.print_operand(token)
    f.after_variable()


def parse_token_operand(parser: Parser) -> UnresolvedOperand | None:
    if parser.parse_optional_keyword("token") is None:
        return None
    parser.parse_punctuation("=")
    return parser.parse_unresolved_operand()


def print_hints(f: AsmFormat, op: Operation) -> None:
    hints = op.properties.get("optimization_hints")
    if isinstance(hints, OptimizationHintsAttr):
        f.literal("optimization_hints")
        f.literal("=")
        f.custom(lambda: print_optimization_hints_body(f.printer, hints))


def parse_hints(parser: Parser, props: dict[str, Attribute]) -> None:
    if parser.parse_optional_keyword("optimization_hints") is not None:
        parser.parse_punctuation("=")
        props["optimization_hints"] = OptimizationHintsAttr(parse_optimization_hints_body(parser))


def verify_hints(op: CudaTileOp) -> None:
    from tileir.dialects.cuda_tile.hints import verify_optimization_hints

    hints = op.properties.get("optimization_hints")
    if isinstance(hints, OptimizationHintsAttr) and hints.hints.data:
        error = verify_optimization_hints(op, hints.hints)
        if error is not None:
            raise op.op_error(error)


def natural_size_in_bytes(element: Attribute) -> int:
    """Bytes an element occupies, as NVIDIA counts for `alloca` (i1 is a byte)."""
    if isinstance(element, IntegerType):
        return 1 if element.width.data == 1 else element.width.data // 8
    if isinstance(element, AnyFloat):
        return element.bitwidth // 8
    return 0


# ---------------------------------------------------------------------------
# alloca
# ---------------------------------------------------------------------------

_NON_NEGATIVE_I64 = "64-bit signless integer attribute whose minimum value is 0"


@irdl_op_definition
class AllocaOp(CudaTileOp):
    """`alloca num_elem = N, alignment = A [global] : tile<ptr<E>>` (13.3): a scratch
    buffer of N elements aligned to A bytes, private to the tile block unless
    `global`, alive until the kernel returns."""

    name = "cuda_tile.alloca"
    SYNTAX: ClassVar[str] = "num_elem = N, alignment = N [global] [{attrs}] : tile<ptr<ET>>"
    SINCE: ClassVar[str] = "13.3"
    GROUP: ClassVar[str] = "Memory"
    num_elem = prop_def(IntegerAttr)
    alignment = prop_def(IntegerAttr)
    global_ = opt_prop_def(UnitAttr, prop_name="global")
    result = result_def()

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.literal("num_elem")
        f.literal("=")
        f.custom(lambda: printer.print_string(str(self.num_elem.value.data)))
        f.literal(",")
        f.literal("alignment")
        f.literal("=")
        f.custom(lambda: printer.print_string(str(self.alignment.value.data)))
        if self.global_ is not None:
            f.literal("global")
        f.attr_dict(self)
        f.literal(":")
        f.type(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> AllocaOp:
        props: dict[str, Attribute] = {}
        parser.parse_keyword("num_elem")
        parser.parse_punctuation("=")
        props["num_elem"] = IntegerAttr(parse_integer_of(parser, i64), i64)
        parser.parse_punctuation(",")
        parser.parse_keyword("alignment")
        parser.parse_punctuation("=")
        props["alignment"] = IntegerAttr(parse_integer_of(parser, i64), i64)
        if parser.parse_optional_keyword("global") is not None:
            props["global"] = UnitAttr()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parse_cuda_tile_type(parser)
        return cls.create(result_types=[t], properties=props, attributes=attrs)

    def verify_(self) -> None:
        for name in ("num_elem", "alignment"):
            attr = self.properties[name]
            if not isinstance(attr, IntegerAttr) or attr.value.data < 0:
                raise self.op_error(
                    f"attribute '{name}' failed to satisfy constraint: {_NON_NEGATIVE_I64}"
                )
        check_tile_of(self, self.result, "result #0", POINTER, rank=0)
        alignment = self.alignment.value.data
        if alignment <= 0 or alignment & (alignment - 1):
            raise self.op_error("'alignment' must be power of two")
        pointer = element_type(self.result.type)
        assert isinstance(pointer, PointerType)
        size = natural_size_in_bytes(pointer.pointee)
        if alignment < size:
            raise self.op_error(
                f"'alignment' ({alignment}) must be at least the natural size ({size} bytes) "
                f"for element type '{pointer.pointee}'"
            )


# ---------------------------------------------------------------------------
# load_ptr_tko / store_ptr_tko
# ---------------------------------------------------------------------------


def pointers_to(values: Attribute) -> Attribute | None:
    """The pointer tile that addresses a tile of type `values`."""
    if not isinstance(values, TileType):
        return None
    return TileType(values.dims, PointerType(values.element_type))


class PointerAccessOp(CudaTileOp):
    """Shared by the pointer loads and stores: the ordering keywords, `token=`,
    `optimization_hints = <...>`."""

    GROUP: ClassVar[str] = "Memory"
    memory_ordering_semantics = prop_def(IntegerAttr)
    memory_scope = opt_prop_def(IntegerAttr)
    optimization_hints = opt_prop_def(OptimizationHintsAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def print_memory_model(self, f: AsmFormat) -> None:
        f.keyword(memory_semantics(self.properties).value)
        if (scope := memory_scope(self.properties)) is not None:
            f.keyword(scope.value)

    @staticmethod
    def parse_memory_model(parser: Parser, props: dict[str, Attribute]) -> None:
        props["memory_ordering_semantics"] = parse_i32_enum(
            parser, MemoryOrderingSemantics, "memory_ordering_semantics"
        )
        if (scope := parse_optional_scope(parser)) is not None:
            props["memory_scope"] = scope


@irdl_op_definition
class LoadPtrTkoOp(PointerAccessOp):
    """`SEM [SCOPE] %ptrs [, %mask [, %padding]] [token=%t] : P [, M] [, T] -> T, token`.

    Gathers one element per pointer.  Where `mask` is false the element is
    `padding` (undefined without one) and memory is not touched."""

    name = "cuda_tile.load_ptr_tko"
    SYNTAX: ClassVar[str] = (
        "SEM [SCOPE] %source [, %mask [, %padding]] [token=%t] [optimization_hints = <...>] [{attrs}] : P [, M] [, T] -> T, token"
    )
    source = operand_def()
    mask = opt_operand_def()
    padding_value = opt_operand_def()
    token = opt_operand_def()
    result = result_def()
    result_token = result_def()

    def asm_result_names(self) -> Sequence[str | None]:
        return ("result", "result_token")

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        self.print_memory_model(f)
        f.operand(self.source)
        for v in (self.mask, self.padding_value):
            if v is not None:
                f.literal(",")
                f.operand(v)
        print_token_operand(f, self.token)
        print_hints(f, self)
        f.attr_dict(self)
        f.literal(":")
        f.type(self.source.type)
        for v in (self.mask, self.padding_value):
            if v is not None:
                f.literal(",")
                f.type(v.type)
        f.literal("->")
        f.type(self.result.type)
        f.literal(",")
        f.type(self.result_token.type)

    @classmethod
    def parse(cls, parser: Parser) -> LoadPtrTkoOp:
        props: dict[str, Attribute] = {}
        cls.parse_memory_model(parser, props)
        source = parser.parse_unresolved_operand()
        optional: list[UnresolvedOperand] = []
        while len(optional) < 2 and parser.parse_optional_punctuation(",") is not None:
            optional.append(parser.parse_unresolved_operand())
        token = parse_token_operand(parser)
        parse_hints(parser, props)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_t = parse_cuda_tile_type(parser)
        optional_types = [
            parse_cuda_tile_type(parser)
            for _ in optional
            if parser.parse_punctuation(",") is not None
        ]
        parser.parse_punctuation("->")
        result_t = parse_cuda_tile_type(parser)
        parser.parse_punctuation(",")
        token_t = parse_cuda_tile_type(parser)
        values = [
            parser.resolve_operand(o, t) for o, t in zip(optional, optional_types, strict=True)
        ]
        return cls.build(
            operands=[
                parser.resolve_operand(source, source_t),
                values[:1],
                values[1:],
                [] if token is None else [parser.resolve_operand(token, TokenType())],
            ],
            result_types=[result_t, token_t],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_tile_of(self, self.source, "operand #0", POINTER)
        index = 1
        if self.mask is not None:
            check_tile_of(self, self.mask, f"operand #{index}", BOOL)
            index += 1
        if self.padding_value is not None:
            check_tile_of(self, self.padding_value, f"operand #{index}", NUMBER)
            index += 1
        if self.token is not None:
            check_type(
                self,
                self.token,
                f"operand #{index}",
                TOKEN_TYPE,
                isinstance(self.token.type, TokenType),
            )
        check_tile_of(self, self.result, "result #0", ANY_ELEMENT)
        check_type(
            self,
            self.result_token,
            "result #1",
            TOKEN_TYPE,
            isinstance(self.result_token.type, TokenType),
        )
        if self.source.type != pointers_to(self.result.type):
            raise self.op_error(
                "failed to verify that `source` type is expected a pointer type of `result` type"
            )
        if self.mask is not None and shape_of(self.mask.type) != shape_of(self.source.type):
            raise self.op_error(
                "failed to verify that shape of 'mask' must match the shape of 'source'"
            )
        if self.padding_value is not None and self.padding_value.type != self.result.type:
            raise self.op_error(
                "failed to verify that type of 'paddingValue' must match the type of 'result'"
            )
        verify_hints(self)
        check_memory_model(self, LOAD_ORDERINGS, "load")


@irdl_op_definition
class StorePtrTkoOp(PointerAccessOp):
    """`SEM [SCOPE] %ptrs, %value [, %mask] [token=%t] : P, T [, M] -> token`.

    Scatters one element per pointer, skipping those where `mask` is false."""

    name = "cuda_tile.store_ptr_tko"
    SYNTAX: ClassVar[str] = (
        "SEM [SCOPE] %destination, %value [, %mask] [token=%t] [optimization_hints = <...>] [{attrs}] : P, T [, M] -> token"
    )
    destination = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def()
    result_token = result_def()

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        self.print_memory_model(f)
        f.operand(self.destination)
        f.literal(",")
        f.operand(self.value)
        if self.mask is not None:
            f.literal(",")
            f.operand(self.mask)
        print_token_operand(f, self.token)
        print_hints(f, self)
        f.attr_dict(self)
        f.literal(":")
        f.type(self.destination.type)
        f.literal(",")
        f.type(self.value.type)
        if self.mask is not None:
            f.literal(",")
            f.type(self.mask.type)
        f.literal("->")
        f.type(self.result_token.type)

    @classmethod
    def parse(cls, parser: Parser) -> StorePtrTkoOp:
        props: dict[str, Attribute] = {}
        cls.parse_memory_model(parser, props)
        destination = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        mask = None
        if parser.parse_optional_punctuation(",") is not None:
            mask = parser.parse_unresolved_operand()
        token = parse_token_operand(parser)
        parse_hints(parser, props)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        destination_t = parse_cuda_tile_type(parser)
        parser.parse_punctuation(",")
        value_t = parse_cuda_tile_type(parser)
        mask_values: list[SSAValue] = []
        if mask is not None:
            parser.parse_punctuation(",")
            mask_values = [parser.resolve_operand(mask, parse_cuda_tile_type(parser))]
        parser.parse_punctuation("->")
        token_t = parse_cuda_tile_type(parser)
        return cls.build(
            operands=[
                parser.resolve_operand(destination, destination_t),
                parser.resolve_operand(value, value_t),
                mask_values,
                [] if token is None else [parser.resolve_operand(token, TokenType())],
            ],
            result_types=[token_t],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_tile_of(self, self.destination, "operand #0", POINTER)
        check_tile_of(self, self.value, "operand #1", ANY_ELEMENT)
        if self.mask is not None:
            check_tile_of(self, self.mask, "operand #2", BOOL)
        check_type(
            self,
            self.result_token,
            "result #0",
            TOKEN_TYPE,
            isinstance(self.result_token.type, TokenType),
        )
        if self.destination.type != pointers_to(self.value.type):
            raise self.op_error(
                "failed to verify that `destination` type is expected a pointer type of "
                "`value` type"
            )
        if self.mask is not None and shape_of(self.mask.type) != shape_of(self.destination.type):
            raise self.op_error(
                "failed to verify that shape of 'destination' must match the shape of 'mask'"
            )
        verify_hints(self)
        check_memory_model(self, STORE_ORDERINGS, "store")


I32_ENUM = IntegerAttr[IntegerType]

MEMORY_OPS = [MakeTokenOp, JoinTokensOp, AllocaOp, LoadPtrTkoOp, StorePtrTkoOp]
