"""The async token family: completion, futures, token bridging, placeholders (seed 003).

Asynchronous work that produces data returns a future (`!async.value<T>`); work that
only has an effect returns `!nv_tileas.async.token`.  `async.wait` observes completion
(a memory-consistency op), `async.future_wait` unwraps a future (ordering rides on the
future itself, seed 000, so it is not one), `to_async` and `token_to_async` bridge
synchronous values and nv_tileaa memory tokens into the async world, `create_none`
makes a placeholder (an already-complete token or an empty future).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    base,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from tileir.dialects.nv_tileaa.types import MemTokenType
from tileir.dialects.nv_tileas.foreign import AsyncValueType
from tileir.dialects.nv_tileas.interfaces import MemoryConsistencyOp
from tileir.dialects.nv_tileas.ops.base import TileASOp
from tileir.dialects.nv_tileas.syntax import (
    bare_tile_syntax,
    parse_optional_operands,
    parse_types,
    print_operands,
    print_types,
    resolve,
)
from tileir.dialects.nv_tileas.types import (
    AsyncTokenType,
    PipelineConsumerTokenType,
    PipelineProducerTokenType,
)
from tileir.dialects.nv_tileas.verifiers import FUTURE_TYPES

AsyncConstraint = base(AsyncTokenType) | base(AsyncValueType)


@bare_tile_syntax
@irdl_op_definition
class AsyncWaitOp(TileASOp):
    """`nv_tileas.async.wait %t0, %f1 : !nv_tileas.async.token, !async.value<tile<...>>`

    Blocks until the given async tokens and futures completed."""

    name = "nv_tileas.async.wait"
    tokens = var_operand_def(AsyncConstraint)
    traits = traits_def(MemoryConsistencyOp())

    def __init__(self, tokens: Sequence[SSAValue]):
        super().__init__(operands=[list(tokens)])

    # Custom, not `attr-dict ($tokens^ : type($tokens))?`: a wait with no operand (the
    # drain after a warp-specialized loop) is followed by the next op, whose results
    # (`%119 = ...`) that format would read as this op's operands.
    @classmethod
    def parse(cls, parser: Parser) -> AsyncWaitOp:
        attributes = parser.parse_optional_attr_dict()
        operands: list[SSAValue] = []
        if not _defines_values(parser):
            unresolved = parse_optional_operands(parser)
            if unresolved:
                parser.parse_punctuation(":")
                operands = resolve(parser, unresolved, parse_types(parser))
        op = cls(operands)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        if self.tokens:
            printer.print_string(" ")
            print_operands(printer, self.tokens)
            printer.print_string(" : ")
            print_types(printer, [t.type for t in self.tokens])


#: `%a, %b:2 =`: the results of the next op, not operands (`AsyncWaitOp.parse`).
_RESULTS = re.compile(r"%[\w$.-]+(?:\s*,\s*%[\w$.-]+)*\s*(?::\d+\s*)?=(?!=)")


def _defines_values(parser: Parser) -> bool:
    """Whether the text at hand names the results of the next op."""
    return _RESULTS.match(parser.lexer.input.content, parser.pos) is not None


@bare_tile_syntax
@irdl_op_definition
class FutureWaitOp(TileASOp):
    """`%v = nv_tileas.async.future_wait %f : !async.value<tile<128x128xf16>> -> tile<128x128xf16>`

    Waits for a future and returns its value."""

    name = "nv_tileas.async.future_wait"
    future = operand_def(AsyncValueType)
    result = result_def()
    assembly_format = "$future attr-dict `:` type($future) `->` type($result)"
    RULES: ClassVar[tuple[str, ...]] = (FUTURE_TYPES,)

    def __init__(self, future: SSAValue):
        t = future.type
        assert isinstance(t, AsyncValueType)
        super().__init__(operands=[future], result_types=[t.value_type])

    def verify_(self) -> None:
        t = self.future.type
        assert isinstance(t, AsyncValueType)
        if self.result.type != t.value_type:
            raise self.op_error(
                f"result type {self.result.type} must be the future's value type {t.value_type}"
            )


@bare_tile_syntax
@irdl_op_definition
class ToAsyncOp(TileASOp):
    """`%f = nv_tileas.async.to_async %v : tile<128x128xf16> -> !async.value<tile<128x128xf16>>`

    A future that is already complete with `%v`."""

    name = "nv_tileas.async.to_async"
    value = operand_def()
    result = result_def(AsyncValueType)
    traits = traits_def(Pure())
    assembly_format = "$value attr-dict `:` type($value) `->` type($result)"
    RULES: ClassVar[tuple[str, ...]] = (FUTURE_TYPES,)

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value], result_types=[AsyncValueType(value.type)])

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, AsyncValueType)
        if t.value_type != self.value.type:
            raise self.op_error(f"result {t} must wrap the operand type {self.value.type}")


@bare_tile_syntax
@irdl_op_definition
class TokenToAsyncOp(TileASOp):
    """`%t = nv_tileas.async.token_to_async %mem : !nv_tileaa.mem_token -> !nv_tileas.async.token`

    Bridges an nv_tileaa memory token (an ordering edge) into an async token that is
    complete once every effect behind the memory token is."""

    name = "nv_tileas.async.token_to_async"
    token = operand_def(MemTokenType)
    result = result_def(AsyncTokenType)
    traits = traits_def(Pure())
    assembly_format = "$token attr-dict `:` type($token) `->` type($result)"

    def __init__(self, token: SSAValue):
        super().__init__(operands=[token], result_types=[AsyncTokenType()])


@bare_tile_syntax
@irdl_op_definition
class CreateNoneOp(TileASOp):
    """`%t = nv_tileas.create_none : !nv_tileas.async.token`

    A placeholder: an already-complete async token or memory token, an empty future,
    or an unused pipeline token (loop-carried slots before the first real value)."""

    name = "nv_tileas.create_none"
    result = result_def(
        base(AsyncTokenType)
        | base(MemTokenType)
        | base(AsyncValueType)
        | base(PipelineProducerTokenType)
        | base(PipelineConsumerTokenType)
    )
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: Attribute):
        super().__init__(result_types=[result_type])


TOKEN_OPS: list[type[TileASOp]] = [
    AsyncWaitOp,
    FutureWaitOp,
    ToAsyncOp,
    TokenToAsyncOp,
    CreateNoneOp,
]

_ = AnyAttr
