"""Queues (seed 001 "Queue-to-Pipeline Lowering", seed 004 "Queue Result Pruning").

nv_tileaa is declarative: a producer puts values into a queue and a consumer later gets
them.  A queue is a ring of `num_stages` stages over stage storage, between a producer
agent group and a consumer agent group.  `queue.put` and `queue.get` hold the producer
and consumer bodies as regions over the stage payload; `convert-tileaa-to-tileas` turns
them into `produce_one` / `consume_one` pipeline regions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import I32, IntegerAttr, IntegerType, TensorType, i32
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator

from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileaa.ops.base import (
    TileAAOp,
    canonicalized_by,
    parse_paren_type_list,
    print_paren_types,
    split_props,
    terminator,
    types_text,
)
from tileir.dialects.nv_tileaa.types import QueueType, TiledViewType


def _group_ok(attr: IntegerAttr) -> bool:
    return isinstance(attr.type, IntegerType) and 0 <= attr.value.data <= 255


@irdl_op_definition
class QueueCreateOp(TileAAOp):
    """`%q = nv_tileaa.queue.create %buf {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<2x128x64xf16> -> !nv_tileaa.queue<tensor<128x64xf16>>`

    A queue of `num_stages` stages over the stage storage `%buf` (leading extent: the
    stage), from the agent group `producer_group` to `consumer_group` (ids in [0, 255]).
    Each stage holds one payload (the queue type's values), which must fit in a stage
    of the storage and have its element type."""

    name = "nv_tileaa.queue.create"
    buffer = operand_def(TiledViewType)
    num_stages = prop_def(IntegerAttr[I32])
    producer_group = prop_def(IntegerAttr)
    consumer_group = prop_def(IntegerAttr)
    queue = result_def(QueueType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$buffer attr-dict `:` type($buffer) `->` type($queue)"

    def __init__(
        self,
        buffer: SSAValue,
        payload: Sequence[Attribute],
        num_stages: int,
        producer_group: int,
        consumer_group: int,
    ):
        super().__init__(
            operands=[buffer],
            result_types=[QueueType(payload)],
            properties={
                "num_stages": IntegerAttr(num_stages, i32),
                "producer_group": IntegerAttr(producer_group, i32),
                "consumer_group": IntegerAttr(consumer_group, i32),
            },
        )

    @property
    def stages(self) -> int:
        return self.num_stages.value.data

    @property
    def producer(self) -> int:
        return self.producer_group.value.data

    @property
    def consumer(self) -> int:
        return self.consumer_group.value.data

    @property
    def payload(self) -> list[Attribute]:
        t = self.queue.type
        assert isinstance(t, QueueType)
        return t.payload_types

    def verify_(self) -> None:
        if self.stages < 1:
            raise self.op_error(f"num_stages must be at least 1, got {self.stages}")
        for key, attr in (
            ("producer_group", self.producer_group),
            ("consumer_group", self.consumer_group),
        ):
            if not _group_ok(attr):
                raise self.op_error(
                    f"{key} must be an agent group id in [0, 255], got {attr.value.data}"
                )
        view = self.buffer.type
        assert isinstance(view, TiledViewType)
        if len(view.dims) < 2 or view.dims[0] != self.stages:
            raise self.op_error(
                f"stage storage {view} must have num_stages ({self.stages}) as its leading extent"
            )
        stage_elements = math.prod(view.dims[1:])
        used = 0
        for t in self.payload:
            if element_type(t) != view.element_type:
                raise self.op_error(
                    f"payload {t} does not have the stage storage's element type {view.element_type}"
                )
            used += math.prod(shape_of(t))
        if used > stage_elements:
            raise self.op_error(
                f"payload ({types_text(self.payload)}) needs {used} elements per stage, the storage "
                f"has {stage_elements}"
            )


def _payload(op: TileAAOp, queue: SSAValue) -> list[Attribute]:
    t = queue.type
    assert isinstance(t, QueueType)
    return t.payload_types


def _check_body(
    op: TileAAOp,
    body: Region,
    payload: Sequence[Attribute],
    yielded: Sequence[Attribute],
    what: str,
) -> None:
    block = body.blocks.first
    if block is None or len(body.blocks) != 1:
        raise op.op_error("body must have exactly one block")
    args = [a.type for a in block.args]
    if args != list(payload):
        raise op.op_error(
            f"body arguments ({types_text(args)}) must be the queue payload ({types_text(payload)})"
        )
    last = terminator(body)
    if not isinstance(last, QueueYieldOp):
        raise op.op_error("body must end with nv_tileaa.queue.yield")
    got = [v.type for v in last.values]
    if got != list(yielded):
        raise op.op_error(f"body yields ({types_text(got)}) but {what} are ({types_text(yielded)})")


@irdl_op_definition
class QueuePutOp(TileAAOp):
    """`nv_tileaa.queue.put %q : !nv_tileaa.queue<tensor<128x64xf16>> { ^bb0(%slot : tensor<128x64xf16>): ... nv_tileaa.queue.yield %v : tensor<128x64xf16> }`

    Produces one stage: the body runs on the stage's current payload and yields the
    values written into it (the payload types)."""

    name = "nv_tileaa.queue.put"
    queue = operand_def(QueueType)
    body = region_def()
    assembly_format = "$queue attr-dict `:` type($queue) $body"

    def __init__(self, queue: SSAValue, body: Region):
        super().__init__(operands=[queue], regions=[body])

    def verify_(self) -> None:
        payload = _payload(self, self.queue)
        _check_body(self, self.body, payload, payload, "the queue payload types")


@irdl_op_definition
class QueueGetOp(TileAAOp):
    """`%a = nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<128x64xf16>> -> (tensor<128x64xf32>) { ^bb0(%slot : tensor<128x64xf16>): ... nv_tileaa.queue.yield %x : tensor<128x64xf32> }`

    Consumes one stage as consumer `consumer_idx` of the consumer group: the body runs
    on the stage's payload and yields the results (values that outlive the stage, which
    is released after the body)."""

    name = "nv_tileaa.queue.get"
    queue = operand_def(QueueType)
    consumer_idx = prop_def(IntegerAttr[I32])
    outputs = var_result_def()
    body = region_def()
    traits = traits_def(canonicalized_by("PruneQueueGetResults"))

    def __init__(
        self,
        queue: SSAValue,
        body: Region,
        result_types: Sequence[Attribute],
        consumer_idx: int = 0,
    ):
        super().__init__(
            operands=[queue],
            regions=[body],
            result_types=[list(result_types)],
            properties={"consumer_idx": IntegerAttr(consumer_idx, i32)},
        )

    @property
    def index(self) -> int:
        return self.consumer_idx.value.data

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.queue)
        printer.print_op_attributes({**self.properties, **self.attributes})
        printer.print_string(" : ")
        printer.print_attribute(self.queue.type)
        printer.print_string(" -> ")
        print_paren_types(printer, [r.type for r in self.outputs])
        printer.print_string(" ")
        printer.print_region(self.body)

    @classmethod
    def parse(cls, parser: Parser) -> QueueGetOp:
        queue = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        props, rest = split_props(attrs, ("consumer_idx",))
        parser.parse_punctuation(":")
        queue_type = parser.parse_type()
        parser.parse_punctuation("->")
        types = parse_paren_type_list(parser)
        body = parser.parse_region()
        return cls.build(
            operands=[parser.resolve_operand(queue, queue_type)],
            result_types=[types],
            regions=[body],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        if self.index < 0:
            raise self.op_error(f"consumer_idx must be non-negative, got {self.index}")
        _check_body(
            self,
            self.body,
            _payload(self, self.queue),
            [r.type for r in self.outputs],
            "its results",
        )


@irdl_op_definition
class QueueYieldOp(TileAAOp):
    """`nv_tileaa.queue.yield %v : tensor<128x64xf16>`

    Terminates a put body (the values written) or a get body (the results)."""

    name = "nv_tileaa.queue.yield"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(QueuePutOp, QueueGetOp)))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(values)])


def queue_body_block(op: QueuePutOp | QueueGetOp) -> Block:
    block = op.body.blocks.first
    assert block is not None
    return block


def is_tensor_payload(t: Attribute) -> bool:
    return isinstance(t, TensorType)


QUEUE_OPS: list[type[TileAAOp]] = [QueueCreateOp, QueuePutOp, QueueGetOp, QueueYieldOp]
