"""Memory tokens (seed 004, "Mem-Token Lifecycle").

A `!nv_tileaa.mem_token` is a pure ordering edge: an op that consumes one happens after
every memory effect that contributed to it.  `create_mem_token` starts a chain (hop one
of `cuda_tile.make_token`), `join_mem_token` merges chains (of `cuda_tile.join_tokens`).

`num_producers` counts the asynchronous producers (TMA transfers, bulk copies, MMA
commits) that complete the token by arriving on its barrier.  Zero, the default, is a
synchronous chain: program order and CTA barriers order it, as they always have.  A
positive count makes the token an mbarrier at hop two (`convert-tileaa-to-tileas`):
`mbarrier.init` with that count, one slot of the CTA's pool of 32.

Result types are inferred and cached per function scope (the seed's five steps,
`infer_mem_token_type`): every token type a function's builders ask for is the same
object, the process-wide anchor `MEM_TOKEN`.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.dialects.builtin import I32, IntegerAttr, ModuleOp, i32
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    opt_prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import NoMemoryEffect

from tileir.dialects.nv_tileaa.ops.base import TileAAOp
from tileir.dialects.nv_tileaa.types import MEM_TOKEN, MemTokenType

# ---------------------------------------------------------------------------
# Result-type inference, cached per function scope (seed 004's five steps).
# ---------------------------------------------------------------------------


@dataclass
class MemTokenTypeCache:
    """The token types of one scope (the function's "local TypeConverter" of the seed):
    the inferred `!nv_tileaa.mem_token` and, after hop two, what it lowers to."""

    scope: Operation
    token_type: MemTokenType | None = None
    lowered: dict[MemTokenType, Attribute] = field(default_factory=dict[MemTokenType, Attribute])


_CACHES: weakref.WeakKeyDictionary[Operation, MemTokenTypeCache] = weakref.WeakKeyDictionary()


def token_scope(anchor: Operation | Block, operands: Sequence[SSAValue] = ()) -> Operation:
    """Step 1: the op whose alias set defines a new token's scope.  The operands' tokens
    decide first (a join stays in its inputs' scope); otherwise the function (or, outside
    functions, the module) around the insertion point."""
    for value in operands:
        if isinstance(value.type, MemTokenType):
            owner = value.owner
            block = owner.block if isinstance(value, BlockArgument) else owner.parent_block()  # pyright: ignore[reportAttributeAccessIssue]
            if block is not None:
                return _function_of(block)
    block = anchor if isinstance(anchor, Block) else anchor.parent_block()
    if block is None:
        assert isinstance(anchor, Operation)
        return anchor
    return _function_of(block)


def _function_of(block: Block) -> Operation:
    from xdsl.traits import IsolatedFromAbove

    op = block.parent_op()
    last = op
    while op is not None:
        if op.has_trait(IsolatedFromAbove) and not isinstance(op, ModuleOp):
            return op
        last = op
        op = op.parent_op()
    assert last is not None
    return last


def cache_for(scope: Operation) -> MemTokenTypeCache:
    """Step 2: the scope's cache (created empty on first use)."""
    cache = _CACHES.get(scope)
    if cache is None:
        cache = _CACHES[scope] = MemTokenTypeCache(scope)
    return cache


def infer_mem_token_type(
    anchor: Operation | Block, operands: Sequence[SSAValue] = ()
) -> MemTokenType:
    """The result type of a token op built at `anchor` (seed 004, `inferReturnTypes`):
    (1) find the scope from the operands or the enclosing function, (2) look its type up,
    (3) create it when the scope has none, (4) stash it so later builders share it,
    (5) return it.  The type created is the process-wide anchor, so every token of every
    scope is the same object and identity dispatch works across passes."""
    cache = cache_for(token_scope(anchor, operands))
    if cache.token_type is None:
        cache.token_type = MEM_TOKEN
    return cache.token_type


def _anchor_of(builder: Builder) -> Block:
    point: InsertPoint = builder.insertion_point
    return point.block


# ---------------------------------------------------------------------------
# Ops.
# ---------------------------------------------------------------------------


@irdl_op_definition
class CreateMemTokenOp(TileAAOp):
    """`%t = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token`

    Starts an ordering chain (hop one of `cuda_tile.make_token`).  `num_producers`
    (default 0, not printed) is the number of asynchronous producers that complete the
    token by arriving on its barrier; a positive count becomes an `mbarrier.init` with
    that count at hop two."""

    name = "nv_tileaa.create_mem_token"
    num_producers = opt_prop_def(IntegerAttr[I32])
    result = result_def(MemTokenType)
    assembly_format = "attr-dict `:` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(NoMemoryEffect())

    def __init__(self, num_producers: int = 0, result_type: MemTokenType | None = None):
        props: dict[str, Attribute] = {}
        if num_producers:
            props["num_producers"] = IntegerAttr(num_producers, i32)
        super().__init__(result_types=[result_type or MEM_TOKEN], properties=props)

    @staticmethod
    def build_at(builder: Builder, num_producers: int = 0) -> CreateMemTokenOp:
        """Insert a token whose type is inferred at the builder's insertion point."""
        op = CreateMemTokenOp(num_producers, infer_mem_token_type(_anchor_of(builder)))
        return builder.insert(op)

    @property
    def producers(self) -> int:
        return self.num_producers.value.data if self.num_producers is not None else 0

    @property
    def is_async(self) -> bool:
        return self.producers > 0

    def verify_(self) -> None:
        if self.producers < 0:
            raise self.op_error(f"num_producers must be non-negative, got {self.producers}")


@irdl_op_definition
class JoinMemTokenOp(TileAAOp):
    """`%t = nv_tileaa.join_mem_token %a, %b : !nv_tileaa.mem_token`

    A token complete only when every input token is (hop one of
    `cuda_tile.join_tokens`).  At hop two each input that is an asynchronous barrier
    becomes one `mbarrier.try_wait.parity` of a chain."""

    name = "nv_tileaa.join_mem_token"
    tokens = var_operand_def(MemTokenType)
    result = result_def(MemTokenType)
    assembly_format = "$tokens attr-dict `:` type($result)"
    traits = traits_def(NoMemoryEffect())

    def __init__(self, tokens: Sequence[SSAValue], result_type: MemTokenType | None = None):
        super().__init__(operands=[list(tokens)], result_types=[result_type or MEM_TOKEN])

    @staticmethod
    def build_at(builder: Builder, tokens: Sequence[SSAValue]) -> JoinMemTokenOp:
        """Insert a join whose type is inferred from its inputs' scope."""
        op = JoinMemTokenOp(tokens, infer_mem_token_type(_anchor_of(builder), tokens))
        return builder.insert(op)

    def verify_(self) -> None:
        if len(self.tokens) < 2:
            raise self.op_error(f"expects at least 2 tokens, got {len(self.tokens)}")


TOKEN_OPS: list[type[TileAAOp]] = [CreateMemTokenOp, JoinMemTokenOp]
