"""The async pipeline family (seed 003 "PipelineOp Enum", entries 0-14).

A pipeline is a bounded ring of `numStages` stages shared by a producer group and a
consumer group.  `create_pipeline` returns the producer and consumer tokens;
`create_iterator` and `inc_iter` rotate through the stages; `produce_one` /
`consume_one` (and their `_async` variants) are the region forms that queue lowering
emits, `producer_acquire` / `producer_write` / `producer_commit` and `consumer_wait` /
`consumer_read` / `consumer_release` the explicit handshake; `agent_switch` holds one
region per warp-specialized agent; `async.pipeline.yield` terminates all of them.

Region ops are checked by one template (seed 003 `verify_pipeline_handshake`): the
region ends with `async.pipeline.yield` (invariant 1), its arguments, with iterators
unwrapped to their payload, match the declared payload types (invariants 2 and 3), and
what it yields matches the payload types (invariant 4).  Because `produce_one` returns a
producer token while its region yields the stage payload (seed 003's worked example),
"region result types" are the declared payload types (`producer_types`,
`consumer_types`) for the region forms, and the payload results for `producer_write` /
`consumer_read`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import scf
from xdsl.dialects.builtin import (
    I32,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    i8,
    i32,
)
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Operation,
    OpResult,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator

from tileir.dialects.nv_tileaa.types import TiledViewType as AATiledViewType
from tileir.dialects.nv_tileas.attributes import IteratorKind, Residency
from tileir.dialects.nv_tileas.interfaces import (
    INHERIT_REGISTER_BUDGET,
    AgentLikeOp,
    ConsumerOp,
    ProducerOp,
    quantize_agent_warps,
)
from tileir.dialects.nv_tileas.ops.base import TileASOp
from tileir.dialects.nv_tileas.syntax import (
    bare_tile_syntax,
    int_array_values,
    parse_optional_operands,
    parse_types,
    resolve,
)
from tileir.dialects.nv_tileas.types import (
    AsyncTokenType,
    PipelineConsumerTokenType,
    PipelineIteratorType,
    PipelineProducerTokenType,
    TiledViewType,
    unwrap_iterator,
)
from tileir.dialects.nv_tileas.verifiers import (
    AGENT_BUDGET,
    AGENT_GROUP_SIZE,
    AGENT_MAX_REGS,
    AGENT_REGION_ARGS,
    AGENT_WARPS_AGREE,
    CONSUMER_IDX,
    CONSUMER_REGION_ARGS,
    ITERATOR_BRANCH_AGREEMENT,
    ITERATOR_COUNT,
    ITERATOR_SIDE,
    PIPELINE_GROUP_IDS,
    PIPELINE_REGION_YIELD,
    PIPELINE_SHARED_MEM,
    PIPELINE_STAGES,
    PRODUCER_REGION_ARGS,
    REGION_YIELD_TYPES,
    fail,
)

#: The attribute an enclosing op (the kernel) may carry to bound agent warp counts.
LAUNCH_BUDGET_ATTR = "nv_tileas.launch_budget"

ViewConstraint = base(TiledViewType) | base(AATiledViewType)
PipelineTokenConstraint = base(PipelineProducerTokenType) | base(PipelineConsumerTokenType)


# ---------------------------------------------------------------------------
# Shared checks.
# ---------------------------------------------------------------------------


def check_iterator_operand(op: Operation, value: SSAValue) -> None:
    """ITERATOR_BRANCH_AGREEMENT: an iterator merged by `scf.if` has one type in both arms
    and as the result (seed 002: branches agree on all four fields).  xDSL's scf.if does not
    compare its yields with its results, so every iterator user checks it."""
    if not isinstance(value, OpResult) or not isinstance(value.op, scf.IfOp):
        return
    if_op = value.op
    arms: list[Attribute] = []
    for region in (if_op.true_region, if_op.false_region):
        block = region.blocks.first
        last = block.last_op if block is not None else None
        if isinstance(last, scf.YieldOp) and value.index < len(last.operands):
            arms.append(last.operands[value.index].type)
    for t in arms:
        if t != value.type:
            raise fail(
                op,
                f"takes a pipeline iterator merged by scf.if whose arms disagree: {value.type} "
                f"(result) vs {t} (yielded); both arms must yield the same iterator type",
            )


def token_side(token_type: Attribute) -> IteratorKind:
    """The side of a pipeline a token belongs to (and so the kind of its iterator)."""
    if isinstance(token_type, PipelineConsumerTokenType):
        return IteratorKind.CONSUMER
    return IteratorKind.PRODUCER


def check_iterator_side(op: Operation, iterator_type: Attribute, side: IteratorKind) -> None:
    """ITERATOR_SIDE: a producer-side op takes the producer-side iterator and a
    consumer-side op the consumer-side one (seed 002: distinct types, different
    handshakes)."""
    if not isinstance(iterator_type, PipelineIteratorType) or iterator_type.kind is side:
        return
    raise fail(
        op,
        f"takes a {iterator_type.kind.value}-side pipeline iterator {iterator_type} where its "
        f"{side.value} token needs a {side.value}-side one: producer and consumer iterators "
        f"are distinct types (create_iterator of the {side.value} token makes it)",
    )


def enclosing_agent_switch(op: Operation) -> AgentSwitchOp | None:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, AgentSwitchOp):
            return parent
        parent = parent.parent_op()
    return None


def check_consumer_idx(op: Operation, idx: int) -> None:
    """CONSUMER_IDX: the consumer group has `num_agents_per_group` consumers inside an
    agent_switch, one outside."""
    switch = enclosing_agent_switch(op)
    consumers = switch.group_size if switch is not None else 1
    if not 0 <= idx < consumers:
        where = (
            f"the enclosing agent_switch has {consumers} agents per group"
            if switch is not None
            else "outside an agent_switch the consumer group has one consumer"
        )
        raise fail(op, f"consumer_idx {idx} is not a valid consumer of the group ({where})")


def check_region_terminator(op: Operation, region: Region, what: str = "region") -> PipelineYieldOp:
    """PIPELINE_REGION_YIELD."""
    block = region.blocks.last
    last = block.last_op if block is not None else None
    if not isinstance(last, PipelineYieldOp):
        found = f"'{last.name}'" if last is not None else "nothing"
        raise fail(op, f"{what} must end with nv_tileas.async.pipeline.yield, found {found}")
    return last


def check_region_args(op: Operation, block: Block, payload: Sequence[Attribute], attr: str) -> None:
    """PRODUCER_REGION_ARGS / CONSUMER_REGION_ARGS: iterator arguments are unwrapped to
    their payload before comparing (seed 002), after ITERATOR_SIDE checked their side."""
    for a in block.args:
        check_iterator_side(op, a.type, token_side(op.operands[0].type))
    args = [unwrap_iterator(a.type) for a in block.args]
    if args != list(payload):
        shown = ", ".join(str(t) for t in payload)
        got = ", ".join(str(a.type) for a in block.args)
        raise fail(op, f"region arguments ({got}) do not match {attr} [{shown}]")


def check_yield_types(
    op: Operation, yield_op: PipelineYieldOp, expected: Sequence[Attribute], what: str
) -> None:
    """REGION_YIELD_TYPES."""
    got = [v.type for v in yield_op.values]
    if got != list(expected):
        raise fail(
            op,
            f"region yields ({', '.join(str(t) for t in got)}) but {what} are "
            f"({', '.join(str(t) for t in expected)})",
        )


def _payload_types(op: Operation, attr: ArrayAttr[Attribute], name: str) -> list[Attribute]:
    types = list(attr.data)
    for t in types:
        if not isinstance(t, TypeAttribute):
            raise fail(op, f"{name} must list types, got {t}")
    return types


# ---------------------------------------------------------------------------
# create_pipeline, create_iterator, inc_iter.
# ---------------------------------------------------------------------------


@bare_tile_syntax
@irdl_op_definition
class CreatePipelineOp(TileASOp):
    """`%p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true, dynamic = false} : !nv_tileaa.tiled_view<2x128x128xf16> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token`

    Creates a pipeline of `numStages` stages over the stage-local storage `bufferView`
    (an nv_tileaa or nv_tileas tiled view whose leading extent is the stage), between
    the agent groups `producerGroupId` and `consumerGroupId` (u8; written `: i8` as in
    the seed).  `sharedMem` pins the stages to shared memory, `dynamic` allows dynamic
    stage indexing.  The six named operands of seed 003's builder are the buffer operand
    and five named properties printed in the attribute dictionary."""

    name = "nv_tileas.async.pipeline.create_pipeline"
    buffer_view = operand_def(ViewConstraint)
    num_stages = prop_def(IntegerAttr[I32], prop_name="numStages")
    producer_group_id = prop_def(IntegerAttr, prop_name="producerGroupId")
    consumer_group_id = prop_def(IntegerAttr, prop_name="consumerGroupId")
    shared_mem = opt_prop_def(BoolAttr, prop_name="sharedMem")
    dynamic = opt_prop_def(BoolAttr)
    producer_token = result_def(PipelineProducerTokenType)
    consumer_token = result_def(PipelineConsumerTokenType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$buffer_view attr-dict `:` type($buffer_view) `->` type($producer_token) `,` type($consumer_token)"
    RULES: ClassVar[tuple[str, ...]] = (PIPELINE_STAGES, PIPELINE_GROUP_IDS, PIPELINE_SHARED_MEM)

    def __init__(
        self,
        buffer_view: SSAValue,
        num_stages: int,
        producer_group: int,
        consumer_group: int,
        *,
        shared_mem: bool | None = True,
        dynamic: bool | None = False,
    ):
        props: dict[str, Attribute] = {
            "numStages": IntegerAttr(num_stages, i32),
            "producerGroupId": IntegerAttr(producer_group, i8),
            "consumerGroupId": IntegerAttr(consumer_group, i8),
        }
        if shared_mem is not None:
            props["sharedMem"] = BoolAttr.from_bool(shared_mem)
        if dynamic is not None:
            props["dynamic"] = BoolAttr.from_bool(dynamic)
        super().__init__(
            operands=[buffer_view],
            result_types=[PipelineProducerTokenType(), PipelineConsumerTokenType()],
            properties=props,
        )

    @property
    def stages(self) -> int:
        return self.num_stages.value.data

    def verify_(self) -> None:
        if self.stages < 1:
            raise self.op_error(f"numStages must be at least 1, got {self.stages}")
        view = self.buffer_view.type
        assert isinstance(view, TiledViewType | AATiledViewType)
        if len(view.dims) >= 2 and view.dims[0] >= 0 and view.dims[0] != self.stages:
            raise self.op_error(
                f"buffer view {view} must have numStages ({self.stages}) as its leading extent"
            )
        for key, attr in (
            ("producerGroupId", self.producer_group_id),
            ("consumerGroupId", self.consumer_group_id),
        ):
            t = attr.type
            if (
                not isinstance(t, IntegerType)
                or t.width.data != 8
                or not 0 <= attr.value.data <= 255
            ):
                raise self.op_error(f"{key} must be an 8-bit group id in [0, 255], got {attr}")
        shared = self.shared_mem is not None and bool(self.shared_mem.value.data)
        if shared and isinstance(view, TiledViewType) and view.residency_kind is not Residency.SMEM:
            raise self.op_error(
                f"sharedMem = true requires the buffer view in smem, not {view.residency_kind.value}"
            )


@bare_tile_syntax
@irdl_op_definition
class CreateIteratorOp(TileASOp):
    """`%it = nv_tileas.async.pipeline.create_iterator %prod : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<128x128xf16>>`

    The stage iterator of one side of a pipeline, starting at stage 0: the producer
    token gives the producer-side iterator, the consumer token the consumer-side one
    (`kind = consumer`); the two are distinct types.  A fixed `count` must be the
    pipeline's `numStages`.  The builder takes the side from the token: the kind of the
    `iterator_type` it is given is replaced by the token's side."""

    name = "nv_tileas.async.pipeline.create_iterator"
    pipeline = operand_def(PipelineTokenConstraint)
    result = result_def(PipelineIteratorType)
    assembly_format = "$pipeline attr-dict `:` type($pipeline) `->` type($result)"
    RULES: ClassVar[tuple[str, ...]] = (ITERATOR_COUNT, ITERATOR_SIDE)

    def __init__(self, pipeline: SSAValue, iterator_type: PipelineIteratorType):
        side = token_side(pipeline.type)
        super().__init__(operands=[pipeline], result_types=[iterator_type.with_fields(kind=side)])

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, PipelineIteratorType)
        side = token_side(self.pipeline.type)
        if t.kind is not side:
            raise self.op_error(
                f"result {t} is a {t.kind.value}-side iterator, but the {side.value} token "
                f"makes the {side.value}-side one (kind = {side.value}): producer and consumer "
                "iterators are distinct types"
            )
        source = self.pipeline.owner
        if (
            t.stage_count is not None
            and isinstance(source, CreatePipelineOp)
            and t.stage_count != source.stages
        ):
            raise self.op_error(
                f"iterator count {t.stage_count} differs from the pipeline's numStages {source.stages}"
            )


@bare_tile_syntax
@irdl_op_definition
class IncIterOp(TileASOp):
    """`%next = nv_tileas.async.pipeline.inc_iter %it : !nv_tileas.async.pipeline.iterator<...>`

    Advances an iterator by its stride (one stage), wrapping at its count."""

    name = "nv_tileas.async.pipeline.inc_iter"
    T: ClassVar = VarConstraint("T", base(PipelineIteratorType))
    iterator = operand_def(T)
    result = result_def(T)
    assembly_format = "$iterator attr-dict `:` type($iterator)"
    RULES: ClassVar[tuple[str, ...]] = (ITERATOR_BRANCH_AGREEMENT,)

    def __init__(self, iterator: SSAValue):
        super().__init__(operands=[iterator], result_types=[iterator.type])

    def verify_(self) -> None:
        check_iterator_operand(self, self.iterator)


# ---------------------------------------------------------------------------
# Region forms: produce_one / consume_one (+ async), producer_write / consumer_read.
# ---------------------------------------------------------------------------


class PipelineRegionOp(TileASOp):
    """Shared verification of the pipeline region ops (seed 003 region-op template)."""

    def body_region(self) -> Region:
        return self.regions[0]

    def expected_yield(self) -> tuple[list[Attribute], str]:
        raise NotImplementedError

    def declared_payload(self) -> tuple[list[Attribute], str, str] | None:
        """(payload types, attribute name, rule) when the op declares its payload."""
        return None

    def verify_region(self) -> None:
        check_iterator_side(self, self.operands[1].type, token_side(self.operands[0].type))
        check_iterator_operand(self, self.operands[1])
        yield_op = check_region_terminator(self, self.body_region())
        block = self.body_region().blocks.first
        assert block is not None
        declared = self.declared_payload()
        if declared is not None:
            types, attr, _ = declared
            check_region_args(self, block, types, attr)
        expected, what = self.expected_yield()
        check_yield_types(self, yield_op, expected, what)


class ProduceOneBase(PipelineRegionOp):
    token = operand_def(PipelineProducerTokenType)
    iterator = operand_def(PipelineIteratorType)
    producer_types = prop_def(ArrayAttr[Attribute])
    body = region_def()
    result_token = result_def(PipelineProducerTokenType)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ProducerOp())
    RULES: ClassVar[tuple[str, ...]] = (
        PIPELINE_REGION_YIELD,
        PRODUCER_REGION_ARGS,
        REGION_YIELD_TYPES,
        ITERATOR_BRANCH_AGREEMENT,
        ITERATOR_SIDE,
    )

    def declared_payload(self) -> tuple[list[Attribute], str, str]:
        return (
            _payload_types(self, self.producer_types, "producer_types"),
            "producer_types",
            PRODUCER_REGION_ARGS,
        )

    def expected_yield(self) -> tuple[list[Attribute], str]:
        return _payload_types(self, self.producer_types, "producer_types"), "producer_types"

    def verify_(self) -> None:
        self.verify_region()


@bare_tile_syntax
@irdl_op_definition
class ProduceOneOp(ProduceOneBase):
    """`%t = nv_tileas.async.pipeline.produce_one %prod, %it {producer_types = [tile<128x128xf16>]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<...>) -> !nv_tileas.async.pipeline.producer_token { ^bb0(%buf : tile<128x128xf16>): ... nv_tileas.async.pipeline.yield %buf : tile<128x128xf16> }`

    One producer step of a queue put: acquire a stage, run the region on the stage's
    payload (`producer_types`, one region argument each), commit.  Returns the
    producer token for the next step."""

    name = "nv_tileas.async.pipeline.produce_one"
    assembly_format = "$token `,` $iterator attr-dict `:` functional-type(operands, results) $body"


@bare_tile_syntax
@irdl_op_definition
class ProduceOneAsyncOp(ProduceOneBase):
    """`%t, %done = nv_tileas.async.pipeline.produce_one_async %prod, %it {producer_types = [...]} : (...) -> (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.token) { ... }`

    `produce_one` whose producer work completes asynchronously; the second result
    signals its completion."""

    name = "nv_tileas.async.pipeline.produce_one_async"
    # Redeclared so that the results keep their order (IRDL collects subclass fields first).
    result_token = result_def(PipelineProducerTokenType)
    done = result_def(AsyncTokenType)
    assembly_format = "$token `,` $iterator attr-dict `:` functional-type(operands, results) $body"


class ConsumeOneBase(PipelineRegionOp):
    token = operand_def(PipelineConsumerTokenType)
    iterator = operand_def(PipelineIteratorType)
    consumer_idx = prop_def(IntegerAttr[I32])
    consumer_types = prop_def(ArrayAttr[Attribute])
    body = region_def()
    result_token = result_def(PipelineConsumerTokenType)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ConsumerOp())
    RULES: ClassVar[tuple[str, ...]] = (
        PIPELINE_REGION_YIELD,
        CONSUMER_REGION_ARGS,
        REGION_YIELD_TYPES,
        CONSUMER_IDX,
        ITERATOR_BRANCH_AGREEMENT,
        ITERATOR_SIDE,
    )

    def declared_payload(self) -> tuple[list[Attribute], str, str]:
        return (
            _payload_types(self, self.consumer_types, "consumer_types"),
            "consumer_types",
            CONSUMER_REGION_ARGS,
        )

    def expected_yield(self) -> tuple[list[Attribute], str]:
        return _payload_types(self, self.consumer_types, "consumer_types"), "consumer_types"

    def verify_(self) -> None:
        check_consumer_idx(self, self.consumer_idx.value.data)
        self.verify_region()


@bare_tile_syntax
@irdl_op_definition
class ConsumeOneOp(ConsumeOneBase):
    """`%t = nv_tileas.async.pipeline.consume_one %cons, %it {consumer_idx = 0 : i32, consumer_types = [tile<128x128xf16>]} : (...) -> !nv_tileas.async.pipeline.consumer_token { ^bb0(%a : tile<128x128xf16>): ... nv_tileas.async.pipeline.yield %a : tile<128x128xf16> }`

    One consumer step of a queue get: wait for a stage, run the region on its payload,
    release it.  `consumer_idx` selects the consumer inside the consumer group."""

    name = "nv_tileas.async.pipeline.consume_one"
    assembly_format = "$token `,` $iterator attr-dict `:` functional-type(operands, results) $body"


@bare_tile_syntax
@irdl_op_definition
class ConsumeOneAsyncOp(ConsumeOneBase):
    """`%t, %done = nv_tileas.async.pipeline.consume_one_async %cons, %it {consumer_idx = 0 : i32, consumer_types = [...]} : (...) -> (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.token) { ... }`

    `consume_one` whose consumer work completes asynchronously."""

    name = "nv_tileas.async.pipeline.consume_one_async"
    # Redeclared so that the results keep their order (IRDL collects subclass fields first).
    result_token = result_def(PipelineConsumerTokenType)
    done = result_def(AsyncTokenType)
    assembly_format = "$token `,` $iterator attr-dict `:` functional-type(operands, results) $body"


@bare_tile_syntax
@irdl_op_definition
class ProducerWriteOp(PipelineRegionOp):
    """`%t, %v = nv_tileas.async.pipeline.producer_write %acquired, %it : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<...>) -> (!nv_tileas.async.pipeline.producer_token, tile<...>) { ... nv_tileas.async.pipeline.yield %x : tile<...> }`

    Fills the acquired stage: the region writes the stage storage and yields the
    produced values, which become the results after the token."""

    name = "nv_tileas.async.pipeline.producer_write"
    token = operand_def(PipelineProducerTokenType)
    iterator = operand_def(PipelineIteratorType)
    body = region_def()
    result_token = result_def(PipelineProducerTokenType)
    values = var_result_def()
    traits = traits_def(ProducerOp())
    assembly_format = "$token `,` $iterator attr-dict `:` functional-type(operands, results) $body"
    RULES: ClassVar[tuple[str, ...]] = (
        PIPELINE_REGION_YIELD,
        REGION_YIELD_TYPES,
        ITERATOR_BRANCH_AGREEMENT,
        ITERATOR_SIDE,
    )

    def expected_yield(self) -> tuple[list[Attribute], str]:
        return [v.type for v in self.values], "its payload results"

    def verify_(self) -> None:
        self.verify_region()


@bare_tile_syntax
@irdl_op_definition
class ConsumerReadOp(PipelineRegionOp):
    """`%t, %v = nv_tileas.async.pipeline.consumer_read %waited, %it {consumer_idx = 0 : i32} : (...) -> (!nv_tileas.async.pipeline.consumer_token, ...) { ... }`

    Reads the stage a wait observed: the region consumes the stage and yields values,
    which become the results after the token."""

    name = "nv_tileas.async.pipeline.consumer_read"
    token = operand_def(PipelineConsumerTokenType)
    iterator = operand_def(PipelineIteratorType)
    consumer_idx = prop_def(IntegerAttr[I32])
    body = region_def()
    result_token = result_def(PipelineConsumerTokenType)
    values = var_result_def()
    traits = traits_def(ConsumerOp())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$token `,` $iterator attr-dict `:` functional-type(operands, results) $body"
    RULES: ClassVar[tuple[str, ...]] = (
        PIPELINE_REGION_YIELD,
        REGION_YIELD_TYPES,
        CONSUMER_IDX,
        ITERATOR_BRANCH_AGREEMENT,
        ITERATOR_SIDE,
    )

    def expected_yield(self) -> tuple[list[Attribute], str]:
        return [v.type for v in self.values], "its payload results"

    def verify_(self) -> None:
        check_consumer_idx(self, self.consumer_idx.value.data)
        self.verify_region()


# ---------------------------------------------------------------------------
# Handshake scalars.
# ---------------------------------------------------------------------------


@bare_tile_syntax
@irdl_op_definition
class ProducerAcquireOp(TileASOp):
    """`%t = nv_tileas.async.pipeline.producer_acquire %prod, %it : !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<...> -> !nv_tileas.async.pipeline.producer_token`

    Grants the producer ownership of the iterator's stage (waits until consumers
    released it)."""

    name = "nv_tileas.async.pipeline.producer_acquire"
    token = operand_def(PipelineProducerTokenType)
    iterator = operand_def(PipelineIteratorType)
    result = result_def(PipelineProducerTokenType)
    assembly_format = (
        "$token `,` $iterator attr-dict `:` type($token) `,` type($iterator) `->` type($result)"
    )
    RULES: ClassVar[tuple[str, ...]] = (ITERATOR_BRANCH_AGREEMENT, ITERATOR_SIDE)

    def __init__(self, token: SSAValue, iterator: SSAValue):
        super().__init__(operands=[token, iterator], result_types=[PipelineProducerTokenType()])

    def verify_(self) -> None:
        check_iterator_side(self, self.iterator.type, IteratorKind.PRODUCER)
        check_iterator_operand(self, self.iterator)


@bare_tile_syntax
@irdl_op_definition
class ProducerCommitOp(TileASOp):
    """`%t = nv_tileas.async.pipeline.producer_commit %written : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.producer_token`

    Publishes the written stage to the consumers."""

    name = "nv_tileas.async.pipeline.producer_commit"
    token = operand_def(PipelineProducerTokenType)
    result = result_def(PipelineProducerTokenType)
    assembly_format = "$token attr-dict `:` type($token) `->` type($result)"

    def __init__(self, token: SSAValue):
        super().__init__(operands=[token], result_types=[PipelineProducerTokenType()])


@bare_tile_syntax
@irdl_op_definition
class ConsumerWaitOp(TileASOp):
    """`%t = nv_tileas.async.pipeline.consumer_wait %cons, %it {consumer_idx = 0 : i32} : !nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<...> -> !nv_tileas.async.pipeline.consumer_token`

    Waits until the iterator's stage was committed; `consumer_idx` maps the wait to a
    consumer of the group."""

    name = "nv_tileas.async.pipeline.consumer_wait"
    token = operand_def(PipelineConsumerTokenType)
    iterator = operand_def(PipelineIteratorType)
    consumer_idx = prop_def(IntegerAttr[I32])
    result = result_def(PipelineConsumerTokenType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$token `,` $iterator attr-dict `:` type($token) `,` type($iterator) `->` type($result)"
    )
    RULES: ClassVar[tuple[str, ...]] = (CONSUMER_IDX, ITERATOR_BRANCH_AGREEMENT, ITERATOR_SIDE)

    def __init__(self, token: SSAValue, iterator: SSAValue, consumer_idx: int):
        super().__init__(
            operands=[token, iterator],
            result_types=[PipelineConsumerTokenType()],
            properties={"consumer_idx": IntegerAttr(consumer_idx, i32)},
        )

    def verify_(self) -> None:
        check_consumer_idx(self, self.consumer_idx.value.data)
        check_iterator_side(self, self.iterator.type, IteratorKind.CONSUMER)
        check_iterator_operand(self, self.iterator)


@bare_tile_syntax
@irdl_op_definition
class ConsumerReleaseOp(TileASOp):
    """`%t = nv_tileas.async.pipeline.consumer_release %waited : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.consumer_token`

    Returns the consumed stage to the producers."""

    name = "nv_tileas.async.pipeline.consumer_release"
    token = operand_def(PipelineConsumerTokenType)
    result = result_def(PipelineConsumerTokenType)
    assembly_format = "$token attr-dict `:` type($token) `->` type($result)"

    def __init__(self, token: SSAValue):
        super().__init__(operands=[token], result_types=[PipelineConsumerTokenType()])


# ---------------------------------------------------------------------------
# agent_switch and the pipeline yield.
# ---------------------------------------------------------------------------


def _defined_inside(value: SSAValue, region: Region) -> bool:
    block = value.block if isinstance(value, BlockArgument) else value.owner.parent_block()  # pyright: ignore[reportAttributeAccessIssue]
    while block is not None:
        parent_region = block.parent
        if parent_region is region:
            return True
        parent_op = parent_region.parent if parent_region is not None else None
        block = parent_op.parent_block() if parent_op is not None else None
    return False


@bare_tile_syntax
@irdl_op_definition
class AgentSwitchOp(TileASOp):
    """`nv_tileas.async.pipeline.agent_switch (%x : T) attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 24, 232>, isolated = false} { ^bb0(%a : T): ... nv_tileas.async.pipeline.yield }, { ... }`

    Warp-specialized execution: one region per agent, each running on its own warps.
    Regions are grouped `num_agents_per_group` at a time (consecutive regions); each
    takes the operands as arguments.  `max_regs` holds one register budget per agent
    (-1 inherits the enclosing budget), quantized with seed 002's
    `quantize_agent_warps`; agents of a group agree on it, and their sum fits the
    enclosing launch budget (the integer attribute `nv_tileas.launch_budget` of an
    enclosing op, when there is one).  `isolated` agents see no value from outside."""

    name = "nv_tileas.async.pipeline.agent_switch"
    args = var_operand_def()
    num_agents_per_group = prop_def(IntegerAttr[I32])
    max_regs = prop_def(DenseArrayBase)
    isolated = prop_def(BoolAttr)
    agents = var_region_def()
    traits = traits_def(AgentLikeOp())
    RULES: ClassVar[tuple[str, ...]] = (
        PIPELINE_REGION_YIELD,
        AGENT_MAX_REGS,
        AGENT_GROUP_SIZE,
        AGENT_WARPS_AGREE,
        AGENT_BUDGET,
        AGENT_REGION_ARGS,
    )

    def __init__(
        self,
        agents: Sequence[Region],
        max_regs: Sequence[int],
        *,
        num_agents_per_group: int = 1,
        isolated: bool = False,
        args: Sequence[SSAValue] = (),
    ):
        super().__init__(
            operands=[list(args)],
            regions=[list(agents)],
            properties={
                "num_agents_per_group": IntegerAttr(num_agents_per_group, i32),
                "max_regs": DenseArrayBase.from_list(i32, list(max_regs)),
                "isolated": BoolAttr.from_bool(isolated),
            },
        )

    @property
    def group_size(self) -> int:
        return self.num_agents_per_group.value.data

    @property
    def budgets(self) -> list[int]:
        return list(int_array_values(self.max_regs))

    @property
    def warp_counts(self) -> list[int]:
        """Resolved per-agent counts (seed 002 `get_agent_warp_counts`)."""
        return [quantize_agent_warps(b) for b in self.budgets]

    def print(self, printer: Printer) -> None:
        if self.args:
            printer.print_string(" (")
            printer.print_list(self.args, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.args], printer.print_attribute)
            printer.print_string(")")
        printer.print_op_attributes(
            dict(self.properties) | dict(self.attributes), print_keyword=True
        )
        for i, region in enumerate(self.agents):
            printer.print_string(", " if i else " ")
            printer.print_region(region, print_entry_block_args=True, print_empty_block=True)

    @classmethod
    def parse(cls, parser: Parser) -> AgentSwitchOp:
        args: list[SSAValue] = []
        if parser.parse_optional_punctuation("(") is not None:
            names = parse_optional_operands(parser)
            parser.parse_punctuation(":")
            types = parse_types(parser) if names else []
            parser.parse_punctuation(")")
            args = resolve(parser, names, types)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        entries = dict(attrs.data) if attrs is not None else {}
        regions = [parser.parse_region()]
        while parser.parse_optional_punctuation(",") is not None:
            regions.append(parser.parse_region())
        names_ = ("num_agents_per_group", "max_regs", "isolated")
        props = {k: v for k, v in entries.items() if k in names_}
        rest = {k: v for k, v in entries.items() if k not in names_}
        return cls.build(operands=[args], regions=[regions], properties=props, attributes=rest)

    def launch_budget(self) -> int | None:
        parent = self.parent_op()
        while parent is not None:
            attr = parent.attributes.get(LAUNCH_BUDGET_ATTR)
            if isinstance(attr, IntegerAttr):
                return attr.value.data
            parent = parent.parent_op()
        return None

    def verify_(self) -> None:
        n_agents = len(self.agents)
        budgets = self.budgets
        if self.max_regs.elt_type != i32:
            raise self.op_error("max_regs must be an array<i32: ...>")
        if len(budgets) != n_agents:
            raise self.op_error(f"max_regs has {len(budgets)} entries for {n_agents} agent regions")
        for b in budgets:
            if b != INHERIT_REGISTER_BUDGET and b <= 0:
                raise self.op_error(
                    f"max_regs entries must be positive or {INHERIT_REGISTER_BUDGET} (inherit), got {b}"
                )
        group = self.group_size
        if group < 1 or n_agents % group:
            raise self.op_error(
                f"num_agents_per_group ({group}) must be at least 1 and divide the {n_agents} agent regions"
            )
        counts = self.warp_counts
        for start in range(0, n_agents, group):
            resolved = {c for c in counts[start : start + group] if c != INHERIT_REGISTER_BUDGET}
            if len(resolved) > 1:
                raise self.op_error(
                    f"agents {start}..{start + group - 1} of one group disagree on their warp count "
                    f"{sorted(resolved)} (quantized from max_regs {budgets[start : start + group]}); "
                    "they must agree or inherit"
                )
        limit = self.launch_budget()
        total = sum(c for c in counts if c != INHERIT_REGISTER_BUDGET)
        if limit is not None and total > limit:
            raise self.op_error(
                f"agent warp counts {counts} sum to {total}, over the launch budget {limit}"
            )
        arg_types = [a.type for a in self.args]
        for i, region in enumerate(self.agents):
            check_region_terminator(self, region, f"agent region {i}")
            block = region.blocks.first
            assert block is not None
            if [a.type for a in block.args] != arg_types:
                raise self.op_error(
                    f"agent region {i} arguments must match the agent_switch operands"
                )
            if self.isolated.value.data:
                for op in region.walk():
                    for v in op.operands:
                        if not _defined_inside(v, region):
                            raise self.op_error(
                                f"isolated agent region {i} uses a value defined outside it (pass it as an operand)"
                            )


@bare_tile_syntax
@irdl_op_definition
class PipelineYieldOp(TileASOp):
    """`nv_tileas.async.pipeline.yield %v : tile<128x128xf16>`

    Terminates pipeline regions and agent bodies; its operands are what the region
    produces (seed 002 "Yield Terminator Interface")."""

    name = "nv_tileas.async.pipeline.yield"
    values = var_operand_def()
    traits = lazy_traits_def(
        lambda: (
            IsTerminator(),
            HasParent(
                ProduceOneOp,
                ProduceOneAsyncOp,
                ConsumeOneOp,
                ConsumeOneAsyncOp,
                ProducerWriteOp,
                ConsumerReadOp,
                AgentSwitchOp,
            ),
        )
    )
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(values)])


PIPELINE_OPS: list[type[TileASOp]] = [
    CreatePipelineOp,
    ProduceOneOp,
    ProduceOneAsyncOp,
    ConsumeOneOp,
    ConsumeOneAsyncOp,
    ConsumerReadOp,
    ProducerWriteOp,
    ProducerAcquireOp,
    ProducerCommitOp,
    ConsumerWaitOp,
    ConsumerReleaseOp,
    PipelineYieldOp,
    IncIterOp,
    CreateIteratorOp,
    AgentSwitchOp,
]
"""The 15 active PipelineOp entries, in seed 003's enum order."""
