"""Memory-ordering ops (NVIDIA group Mem): tokens, and the memory-model keywords the
token-ordered (`_tko`) loads and stores share.

A token orders memory operations: an op that takes a token happens after the ops
that produced it.  `make_token` starts a chain, `join_tokens` merges chains.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, result_def, traits_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from tileir.dialects.cuda_tile.attributes import (
    MemoryOrderingSemantics,
    MemoryScope,
    enum_of_i32_attr,
    i32_enum_attr,
)
from tileir.dialects.cuda_tile.ops.base import CudaTileOp
from tileir.dialects.cuda_tile.syntax import (
    AsmFormat,
    parse_cuda_tile_type,
    parse_operand_list,
)
from tileir.dialects.cuda_tile.types import TokenType


@irdl_op_definition
class MakeTokenOp(CudaTileOp):
    """`make_token : token`: a fresh token with no predecessor."""

    name = "cuda_tile.make_token"
    result = result_def(TokenType)
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


@irdl_op_definition
class JoinTokensOp(CudaTileOp):
    """`join_tokens %a, %b, ... : token`: a token that follows all its inputs."""

    name = "cuda_tile.join_tokens"
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
            raise self.op_error(f"expect at least 2 tokens, got {len(self.tokens)}")


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
    sem = memory_semantics(op.properties)
    scope = memory_scope(op.properties)
    if sem not in allowed:
        names = ", ".join(s.value for s in allowed)
        raise op.op_error(f"memory ordering semantics '{sem.value}' is not allowed for a {kind}; expected one of: {names}")
    if sem is MemoryOrderingSemantics.WEAK and scope is not None:
        raise op.op_error("weak memory ordering semantics must not have a memory scope")
    if sem is not MemoryOrderingSemantics.WEAK and scope is None:
        raise op.op_error(f"memory ordering semantics '{sem.value}' requires a memory scope")


I32_ENUM = IntegerAttr[IntegerType]

MEMORY_OPS = [MakeTokenOp, JoinTokensOp]
