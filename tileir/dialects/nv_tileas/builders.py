"""IR builders for nv_tileas (seed 003 "Pipeline Builders", "Tiled Load and Store
Builders", "Dot and Mask Builders", "Arithmetic Helper Builders").

Every builder takes an xDSL `Builder` (a `PatternRewriter` is one) and inserts at its
insertion point, so passes and patterns use the same helpers:

* pipelines: `build_produce_one` / `build_consume_one` run a body callback on the new
  region's arguments and make sure the region ends with `async.pipeline.yield`
  (`ensure_pipeline_yield`); `build_agent_switch` keeps agent bodies, group size and
  register budgets together;
* memory: `build_view_then_tiled_load` / `build_view_then_tiled_store` emit a view and
  a tiled op, normalizing coordinates to `index` (ints become constants, other integer
  widths are cast, missing leading coordinates are 0) and attaching the memory-order
  attributes of a `TiledAccess`;
* dots: `build_zero_accumulator_dot` (alloc_tensor + zero + insert_slice + dot),
  `build_masked_dot` (a K-bound predicate mask, selects, optional layout conversions,
  dot), `build_guarded_dot` (dot under an scf.if predicate);
* index math: thin arith wrappers that add no overflow or fast-math flags unless asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.arith import FastMathFlagsAttr, IntegerOverflowAttr
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    TensorType,
    i1,
    i32,
)
from xdsl.ir import Attribute, Block, BlockArgument, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tileir.dialects.nv_tileas.attributes import (
    AtomAttr,
    MemScope,
    MemScopeAttr,
    MemSemantic,
    MemSemanticAttr,
)
from tileir.dialects.nv_tileas.ops import (
    AgentSwitchOp,
    AllocTensorOp,
    ConsumeOneAsyncOp,
    ConsumeOneOp,
    ConvertLayoutOp,
    DotOp,
    GenerateOp,
    InsertSliceOp,
    PipelineYieldOp,
    ProduceOneAsyncOp,
    ProduceOneOp,
    TiledLoadOp,
    TiledStoreOp,
    ViewOp,
    YieldOp,
    bool_array,
)
from tileir.dialects.nv_tileas.types import (
    AsyncTokenType,
    PipelineConsumerTokenType,
    PipelineProducerTokenType,
    TiledViewType,
)

#: A region body: given a builder at the end of the entry block and the block's
#: arguments, build the body; return the values to yield (None if it yielded itself).
RegionBody = Callable[[Builder, Sequence[BlockArgument]], Sequence[SSAValue] | None]


# ---------------------------------------------------------------------------
# Pipelines.
# ---------------------------------------------------------------------------


def ensure_pipeline_yield(block: Block, values: Sequence[SSAValue] = ()) -> PipelineYieldOp:
    """The block's `async.pipeline.yield`, appending one of `values` if it has none."""
    last = block.last_op
    if isinstance(last, PipelineYieldOp):
        return last
    op = PipelineYieldOp(values)
    block.add_op(op)
    return op


def _fill_region(block: Block, body: RegionBody | None) -> None:
    values: Sequence[SSAValue] | None = None
    if body is not None:
        values = body(Builder(InsertPoint.at_end(block)), block.args)
    ensure_pipeline_yield(block, values or ())


def build_produce_one(
    b: Builder,
    token: SSAValue,
    iterator: SSAValue,
    producer_types: Sequence[Attribute],
    body: RegionBody | None = None,
    *,
    is_async: bool = False,
) -> ProduceOneOp | ProduceOneAsyncOp:
    """`produce_one` (or `produce_one_async`) with one region argument per producer type;
    the region always ends with `async.pipeline.yield`."""
    block = Block(arg_types=list(producer_types))
    _fill_region(block, body)
    cls = ProduceOneAsyncOp if is_async else ProduceOneOp
    results: list[Attribute] = [PipelineProducerTokenType()]
    if is_async:
        results.append(AsyncTokenType())
    op = cls.build(
        operands=[token, iterator],
        result_types=results,
        properties={"producer_types": ArrayAttr(list(producer_types))},
        regions=[Region(block)],
    )
    return b.insert(op)


def build_consume_one(
    b: Builder,
    token: SSAValue,
    iterator: SSAValue,
    consumer_idx: int,
    consumer_types: Sequence[Attribute],
    body: RegionBody | None = None,
    *,
    is_async: bool = False,
) -> ConsumeOneOp | ConsumeOneAsyncOp:
    """`consume_one` (or `consume_one_async`) for consumer `consumer_idx`; the region
    always ends with `async.pipeline.yield`."""
    block = Block(arg_types=list(consumer_types))
    _fill_region(block, body)
    cls = ConsumeOneAsyncOp if is_async else ConsumeOneOp
    results: list[Attribute] = [PipelineConsumerTokenType()]
    if is_async:
        results.append(AsyncTokenType())
    op = cls.build(
        operands=[token, iterator],
        result_types=results,
        properties={
            "consumer_idx": IntegerAttr(consumer_idx, i32),
            "consumer_types": ArrayAttr(list(consumer_types)),
        },
        regions=[Region(block)],
    )
    return b.insert(op)


def build_agent_switch(
    b: Builder,
    bodies: Sequence[RegionBody | None],
    max_regs: Sequence[int],
    *,
    num_agents_per_group: int = 1,
    isolated: bool = False,
    args: Sequence[SSAValue] = (),
) -> AgentSwitchOp:
    """One agent region per body (each taking `args`), ending with the pipeline yield."""
    regions: list[Region] = []
    for body in bodies:
        block = Block(arg_types=[a.type for a in args])
        _fill_region(block, body)
        regions.append(Region(block))
    op = AgentSwitchOp(
        regions, max_regs, num_agents_per_group=num_agents_per_group, isolated=isolated, args=args
    )
    return b.insert(op)


# ---------------------------------------------------------------------------
# Index math (no flags unless asked).
# ---------------------------------------------------------------------------


def _overflow(flags: IntegerOverflowAttr | None) -> IntegerOverflowAttr:
    return flags if flags is not None else IntegerOverflowAttr("none")


def const_index(b: Builder, value: int) -> SSAValue:
    return b.insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).result


def as_index(b: Builder, value: int | SSAValue) -> SSAValue:
    """An index value: ints become constants, other integers are cast."""
    if isinstance(value, int):
        return const_index(b, value)
    if isinstance(value.type, IndexType):
        return value
    return b.insert(arith.IndexCastOp(value, IndexType())).result


def add(
    b: Builder, lhs: SSAValue, rhs: SSAValue, *, overflow: IntegerOverflowAttr | None = None
) -> SSAValue:
    return b.insert(arith.AddiOp(lhs, rhs, overflow=_overflow(overflow))).result


def sub(
    b: Builder, lhs: SSAValue, rhs: SSAValue, *, overflow: IntegerOverflowAttr | None = None
) -> SSAValue:
    return b.insert(arith.SubiOp(lhs, rhs, overflow=_overflow(overflow))).result


def mul(
    b: Builder, lhs: SSAValue, rhs: SSAValue, *, overflow: IntegerOverflowAttr | None = None
) -> SSAValue:
    return b.insert(arith.MuliOp(lhs, rhs, overflow=_overflow(overflow))).result


def divsi(b: Builder, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return b.insert(arith.DivSIOp(lhs, rhs)).result


def maxsi(b: Builder, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return b.insert(arith.MaxSIOp(lhs, rhs)).result


def select(b: Builder, cond: SSAValue, if_true: SSAValue, if_false: SSAValue) -> SSAValue:
    """`arith.select` on a scalar condition; elementwise `cuda_tile.select` on tiles (the
    compute ops of cuda_tile run on nv_tileas's tensor carriers)."""
    if cond.type == i1:
        return b.insert(arith.SelectOp(cond, if_true, if_false)).result
    from tileir.dialects.cuda_tile.ops import SelectOp as TileSelectOp

    return b.insert(TileSelectOp.build_op([cond, if_true, if_false])).results[0]


def addf(
    b: Builder, lhs: SSAValue, rhs: SSAValue, *, fastmath: FastMathFlagsAttr | None = None
) -> SSAValue:
    """Float add; fast-math flags only when the caller passes them."""
    if fastmath is None:
        return b.insert(arith.AddfOp(lhs, rhs)).result
    return b.insert(arith.AddfOp(lhs, rhs, flags=fastmath)).result


def build_index_expr(
    b: Builder,
    base: SSAValue,
    lane: SSAValue,
    stride: SSAValue,
    *,
    overflow: IntegerOverflowAttr | None = None,
) -> SSAValue:
    """`base + lane * stride`, with the arith defaults (no overflow flags) unless asked."""
    return add(b, base, mul(b, lane, stride, overflow=overflow), overflow=overflow)


# ---------------------------------------------------------------------------
# View then tiled load / store.
# ---------------------------------------------------------------------------


@dataclass
class TileViewSpec:
    """The view to create: its type and the index operands selecting it."""

    type: TiledViewType
    indices: Sequence[SSAValue] = ()


@dataclass
class TiledAccess:
    """Coordinates and memory-order attributes of a tiled load or store."""

    atom: AtomAttr
    coords: Sequence[int | SSAValue] = ()
    offsets: Sequence[int | SSAValue] = ()
    token: SSAValue | None = None
    mask: SSAValue | None = None
    semantic: MemSemantic | None = None
    scope: MemScope | None = None
    in_bounds: Sequence[bool] | None = None
    padding_value: Attribute | None = None

    def properties(self) -> dict[str, Attribute]:
        props: dict[str, Attribute] = {"atom": self.atom}
        if self.semantic is not None and self.semantic is not MemSemantic.WEAK:
            props["mem_semantic"] = MemSemanticAttr(self.semantic)
        if self.scope is not None:
            props["mem_scope"] = MemScopeAttr(self.scope)
        if self.in_bounds is not None:
            props["in_bounds"] = bool_array(self.in_bounds)
        if self.padding_value is not None:
            props["padding_value"] = self.padding_value
        return props


def _coords(b: Builder, values: Sequence[int | SSAValue], rank: int) -> list[SSAValue]:
    """`rank` index coordinates; missing leading ones are 0."""
    padded: list[int | SSAValue] = [0] * (rank - len(values)) + list(values)
    return [as_index(b, v) for v in padded]


def build_view_then_tiled_load(
    b: Builder, source: SSAValue, view: TileViewSpec, result_type: Attribute, access: TiledAccess
) -> tuple[ViewOp, TiledLoadOp]:
    """`nv_tileas.view` of `source`, then a `tiled_load` of it."""
    view_op = b.insert(ViewOp(source, view.type, view.indices))
    rank = view.type.rank
    coords = _coords(b, access.coords, rank)
    offsets = _coords(b, access.offsets, rank) if access.offsets else []
    token = [access.token] if access.token is not None else []
    load = TiledLoadOp.build(
        operands=[
            view_op.result,
            coords,
            offsets,
            token,
            [access.mask] if access.mask is not None else [],
        ],
        result_types=[result_type, [access.token.type] if access.token is not None else []],
        properties=access.properties(),
    )
    return view_op, b.insert(load)


def build_view_then_tiled_store(
    b: Builder, value: SSAValue, destination: SSAValue, view: TileViewSpec, access: TiledAccess
) -> tuple[ViewOp, TiledStoreOp]:
    """`nv_tileas.view` of `destination`, then a `tiled_store` of `value` into it."""
    view_op = b.insert(ViewOp(destination, view.type, view.indices))
    rank = view.type.rank
    coords = _coords(b, access.coords, rank)
    offsets = _coords(b, access.offsets, rank) if access.offsets else []
    token = [access.token] if access.token is not None else []
    store = TiledStoreOp.build(
        operands=[
            view_op.result,
            value,
            coords,
            offsets,
            token,
            [access.mask] if access.mask is not None else [],
        ],
        result_types=[[access.token.type] if access.token is not None else []],
        properties=access.properties(),
    )
    return view_op, b.insert(store)


# ---------------------------------------------------------------------------
# Dots.
# ---------------------------------------------------------------------------


def zero_constant(b: Builder, t: TensorType[Attribute]) -> SSAValue:
    """A splat zero of tensor type `t`."""
    el = t.element_type
    if isinstance(el, AnyFloat):
        attr = DenseIntOrFPElementsAttr.from_list(cast("TensorType[AnyFloat]", t), [0.0])
    else:
        assert isinstance(el, IntegerType | IndexType)
        attr = DenseIntOrFPElementsAttr.from_list(cast("TensorType[IntegerType]", t), [0])
    return b.insert(arith.ConstantOp(attr, t)).result


def build_zero_accumulator_dot(
    b: Builder, a: SSAValue, rhs: SSAValue, acc_type: TensorType[Attribute], atom: AtomAttr
) -> DotOp:
    """Seed 003's `build_zero_accumulator_dot`: allocate the accumulator, initialize it
    with zeros (an insert_slice of a zero tile over the whole of it), then dot."""
    acc = b.insert(AllocTensorOp(acc_type)).result
    zero = zero_constant(b, acc_type)
    shape = list(acc_type.get_shape())
    init = b.insert(InsertSliceOp(zero, acc, [0] * len(shape), shape, [1] * len(shape))).result
    return b.insert(DotOp(a, rhs, init, atom))


def build_k_mask(
    b: Builder,
    shape: Sequence[int],
    axis: int,
    bound: SSAValue,
    *,
    encoding: Attribute | None = None,
) -> SSAValue:
    """A predicate tile (in layout `encoding`): element (..., k, ...) is `k < bound`
    along `axis`."""
    block = Block(arg_types=[IndexType()] * len(shape))
    inner = Builder(InsertPoint.at_end(block))
    bound_index = as_index(inner, bound)
    cmp = inner.insert(arith.CmpiOp(block.args[axis], bound_index, "slt")).result
    inner.insert(YieldOp([cmp]))
    mask_type = TensorType(i1, list(shape), encoding if encoding is not None else NoneAttr())
    op = GenerateOp.build(result_types=[mask_type], regions=[Region(block)])
    return b.insert(op).result


def _masked(
    b: Builder, value: SSAValue, axis: int, bound: SSAValue, layout: Attribute | None
) -> SSAValue:
    t = value.type
    assert isinstance(t, TensorType)
    mask = build_k_mask(b, t.get_shape(), axis, bound, encoding=t.encoding)
    result = select(b, mask, value, zero_constant(b, t))
    if layout is not None:
        target = TensorType(t.element_type, t.get_shape(), layout)
        if result.type != target:
            result = b.insert(ConvertLayoutOp(result, target)).result
    return result


def build_masked_dot(
    b: Builder,
    a: SSAValue,
    rhs: SSAValue,
    acc: SSAValue,
    atom: AtomAttr,
    *,
    k_bound: SSAValue,
    a_layout: Attribute | None = None,
    b_layout: Attribute | None = None,
) -> DotOp:
    """Seed 003's mask + convert + dot: zero the K elements at or past `k_bound` (a
    predicate mask built with `generate`), convert the operands to their MMA layouts
    when given, and emit the dot."""
    a_masked = _masked(b, a, 1, k_bound, a_layout)
    b_masked = _masked(b, rhs, 0, k_bound, b_layout)
    return b.insert(DotOp(a_masked, b_masked, acc, atom))


def build_guarded_dot(
    b: Builder, pred: SSAValue, a: SSAValue, rhs: SSAValue, acc: SSAValue, atom: AtomAttr
) -> scf.IfOp:
    """The dot under a predicate (a stage guard): `scf.if %pred` yields the dot, else the
    accumulator unchanged."""
    then_block = Block()
    dot = DotOp(a, rhs, acc, atom)
    then_block.add_ops([dot, scf.YieldOp(dot.result)])
    else_block = Block()
    else_block.add_op(scf.YieldOp(acc))
    op = scf.IfOp(pred, [acc.type], Region(then_block), Region(else_block))
    return b.insert(op)


__all__ = [
    "RegionBody",
    "TileViewSpec",
    "TiledAccess",
    "add",
    "addf",
    "as_index",
    "build_agent_switch",
    "build_consume_one",
    "build_guarded_dot",
    "build_index_expr",
    "build_k_mask",
    "build_masked_dot",
    "build_produce_one",
    "build_view_then_tiled_load",
    "build_view_then_tiled_store",
    "build_zero_accumulator_dot",
    "const_index",
    "divsi",
    "ensure_pipeline_yield",
    "maxsi",
    "mul",
    "select",
    "sub",
    "zero_constant",
]
