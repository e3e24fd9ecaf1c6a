"""nv_tileas builders (seed 003): pipeline regions always end with the pipeline yield,
view + tiled memory ops normalize coordinates, dot builders, and index helpers that add
no overflow or fast-math flags unless asked."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from xdsl.builder import Builder
from xdsl.dialects import arith, func, scf
from xdsl.dialects.arith import FastMathFlagsAttr, IntegerOverflowAttr, IntegerOverflowFlag
from xdsl.dialects.builtin import IndexType, ModuleOp, TensorType, f16, f32, i1, i32
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileas import builders as B
from tileir.dialects.nv_tileas.attributes import (
    AtomAttr,
    IteratorKind,
    MemScope,
    MemSemantic,
    Residency,
)
from tileir.dialects.nv_tileas.layouts import BlockedLayoutAttr
from tileir.dialects.nv_tileas.ops import (
    AgentSwitchOp,
    AllocTensorOp,
    ConsumeOneOp,
    ConvertLayoutOp,
    CreateIteratorOp,
    CreatePipelineOp,
    DotOp,
    GenerateOp,
    InsertSliceOp,
    PipelineYieldOp,
    ProduceOneAsyncOp,
    ProduceOneOp,
    TiledLoadOp,
    TiledStoreOp,
    ViewOp,
)
from tileir.dialects.nv_tileas.types import (
    PipelineConsumerTokenType,
    PipelineIteratorType,
    PipelineProducerTokenType,
    TiledViewType,
)


def build(
    arg_types: Sequence[Attribute], body: Callable[[Builder, tuple[BlockArgument, ...]], None]
) -> ModuleOp:
    """A verified module holding one function built by `body`."""
    block = Block(arg_types=list(arg_types))
    b = Builder(InsertPoint.at_end(block))
    body(b, block.args)
    b.insert(func.ReturnOp())
    module = ModuleOp([func.FuncOp("f", (list(arg_types), []), Region(block))])
    module.verify()
    return module


def ops_of(module: ModuleOp, cls: type[Operation]) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, cls)]


ITER = PipelineIteratorType(f32)
CONSUMER_ITER = PipelineIteratorType(f32, kind=IteratorKind.CONSUMER)


def test_produce_one_gets_a_yield_when_the_body_returns_values() -> None:
    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        B.build_produce_one(b, args[0], args[1], [f32], lambda _, region_args: [region_args[0]])

    module = build([PipelineProducerTokenType(), ITER], body)
    (op,) = ops_of(module, ProduceOneOp)
    assert isinstance(op, ProduceOneOp)
    last = op.body.block.last_op
    assert isinstance(last, PipelineYieldOp) and list(last.values) == [op.body.block.args[0]]


def test_produce_one_keeps_a_yield_the_body_wrote() -> None:
    def region(b: Builder, args: Sequence[BlockArgument]) -> None:
        b.insert(PipelineYieldOp([args[0]]))

    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        B.build_produce_one(b, args[0], args[1], [f32], region, is_async=True)

    module = build([PipelineProducerTokenType(), ITER], body)
    (op,) = ops_of(module, ProduceOneAsyncOp)
    assert sum(isinstance(o, PipelineYieldOp) for o in op.walk()) == 1


def test_consume_one_without_a_body_still_yields() -> None:
    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        B.build_consume_one(b, args[0], args[1], 0, [])

    module = build([PipelineConsumerTokenType(), CONSUMER_ITER], body)
    (op,) = ops_of(module, ConsumeOneOp)
    assert isinstance(op, ConsumeOneOp)
    assert op.consumer_idx.value.data == 0
    assert isinstance(op.body.block.last_op, PipelineYieldOp)


def pipeline_sides(b: Builder, buffer: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
    """A two-stage pipeline and one iterator per side, both built from the same
    element-only iterator type: CreateIteratorOp takes the side from its token."""
    pipe = b.insert(CreatePipelineOp(buffer, 2, 0, 1))
    prod_it = b.insert(CreateIteratorOp(pipe.producer_token, ITER))
    cons_it = b.insert(CreateIteratorOp(pipe.consumer_token, ITER))
    return pipe.producer_token, prod_it.result, pipe.consumer_token, cons_it.result


STAGES = TiledViewType([2, 64], f32, Residency.SMEM)


def test_create_iterator_takes_its_side_from_the_token() -> None:
    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        p, p_it, c, c_it = pipeline_sides(b, args[0])
        assert p_it.type == ITER
        assert c_it.type == CONSUMER_ITER and c_it.type != p_it.type
        B.build_produce_one(b, p, p_it, [f32], lambda _, a: [a[0]])
        B.build_consume_one(b, c, c_it, 0, [f32], lambda _, a: [a[0]])

    build([STAGES], body)


@pytest.mark.parametrize("side", ["produce", "consume"])
def test_a_builder_given_the_other_sides_iterator_fails_verification(side: str) -> None:
    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        p, p_it, c, c_it = pipeline_sides(b, args[0])
        if side == "produce":
            B.build_produce_one(b, p, c_it, [])
        else:
            B.build_consume_one(b, c, p_it, 0, [])

    with pytest.raises(VerifyException, match="distinct types"):
        build([STAGES], body)


def test_agent_switch_keeps_bodies_and_budgets_together() -> None:
    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        B.build_agent_switch(b, [None, None, None], [24, 232, 228], num_agents_per_group=1)

    module = build([], body)
    (op,) = ops_of(module, AgentSwitchOp)
    assert isinstance(op, AgentSwitchOp)
    assert len(op.agents) == 3 and op.budgets == [24, 232, 228] and op.warp_counts == [32, 240, 240]
    assert all(isinstance(r.block.last_op, PipelineYieldOp) for r in op.agents)


def test_view_then_tiled_load_and_store() -> None:
    ptrs = TensorType(PointerType(f32), [64, 64])
    view_t = TiledViewType([64, 64], f32, Residency.GMEM)

    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        access = B.TiledAccess(
            AtomAttr("ldg_128b"),
            coords=[args[1]],  # one coordinate: the leading one is 0
            semantic=MemSemantic.ACQUIRE,
            scope=MemScope.GPU,
            in_bounds=[True, True],
        )
        _, load = B.build_view_then_tiled_load(
            b, args[0], B.TileViewSpec(view_t), TensorType(f32, [64, 64]), access
        )
        store_access = B.TiledAccess(AtomAttr("stg_128b"), coords=[0, 0])
        B.build_view_then_tiled_store(b, load.result, args[0], B.TileViewSpec(view_t), store_access)

    module = build([ptrs, i32], body)
    (load,) = ops_of(module, TiledLoadOp)
    (store,) = ops_of(module, TiledStoreOp)
    assert len(ops_of(module, ViewOp)) == 2
    assert isinstance(load, TiledLoadOp) and isinstance(store, TiledStoreOp)
    assert all(isinstance(c.type, IndexType) for c in load.coords)
    # The i32 coordinate was cast; the missing leading one is a constant 0.
    assert isinstance(load.coords[1].owner, arith.IndexCastOp)
    assert isinstance(load.coords[0].owner, arith.ConstantOp)
    assert "mem_semantic" in load.properties and "mem_scope" in load.properties
    assert "mem_semantic" not in store.properties


def test_zero_accumulator_dot() -> None:
    acc_t = TensorType(f32, [64, 16])

    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        B.build_zero_accumulator_dot(b, args[0], args[1], acc_t, AtomAttr("mma_f16_f16_f32"))

    module = build([TensorType(f16, [64, 32]), TensorType(f16, [32, 16])], body)
    (dot,) = ops_of(module, DotOp)
    assert isinstance(dot, DotOp)
    init = dot.acc.owner
    assert isinstance(init, InsertSliceOp)
    assert isinstance(init.dest.owner, AllocTensorOp)
    assert isinstance(init.source.owner, arith.ConstantOp)


def test_masked_dot_with_layout_conversion() -> None:
    a_t, b_t, c_t = TensorType(f16, [64, 32]), TensorType(f16, [32, 16]), TensorType(f32, [64, 16])
    layout = BlockedLayoutAttr([1, 2], [4, 8], [4, 1], [1, 0])

    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        B.build_masked_dot(
            b,
            args[0],
            args[1],
            args[2],
            AtomAttr("mma_f16_f16_f32"),
            k_bound=args[3],
            a_layout=layout,
        )

    module = build([a_t, b_t, c_t, IndexType()], body)
    (dot,) = ops_of(module, DotOp)
    assert isinstance(dot, DotOp)
    assert len(ops_of(module, GenerateOp)) == 2
    assert isinstance(dot.a.owner, ConvertLayoutOp)
    assert isinstance(dot.a.type, TensorType) and dot.a.type.encoding == layout
    assert dot.b.type == b_t


def test_guarded_dot() -> None:
    a_t, b_t, c_t = TensorType(f16, [16, 16]), TensorType(f16, [16, 16]), TensorType(f32, [16, 16])

    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        B.build_guarded_dot(b, args[3], args[0], args[1], args[2], AtomAttr("mma_f16_f16_f32"))

    module = build([a_t, b_t, c_t, i1], body)
    (if_op,) = ops_of(module, scf.IfOp)
    assert isinstance(if_op, scf.IfOp) and if_op.results[0].type == c_t
    assert len(ops_of(module, DotOp)) == 1


def _flags(op: Operation) -> list[Attribute]:
    return [v for k, v in op.properties.items() if k in ("overflowFlags", "fastmath")]


def test_index_helpers_add_no_flags_by_default() -> None:
    made: list[SSAValue] = []

    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        x, y = args[0], args[1]
        made.append(B.build_index_expr(b, x, y, x))
        made.append(B.sub(b, x, y))
        made.append(B.divsi(b, x, y))
        made.append(B.maxsi(b, x, y))
        made.append(B.select(b, args[2], x, y))
        made.append(B.addf(b, args[3], args[3]))
        made.append(B.const_index(b, 7))

    module = build([IndexType(), IndexType(), i1, f32], body)
    for op in module.walk():
        for flag in _flags(op):
            assert flag in (IntegerOverflowAttr("none"), FastMathFlagsAttr("none")), op


def test_index_helpers_pass_requested_flags() -> None:
    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        B.build_index_expr(
            b, args[0], args[1], args[0], overflow=IntegerOverflowAttr([IntegerOverflowFlag.NSW])
        )
        B.addf(b, args[2], args[2], fastmath=FastMathFlagsAttr("fast"))

    module = build([IndexType(), IndexType(), f32], body)
    muli = ops_of(module, arith.MuliOp)[0]
    addi = ops_of(module, arith.AddiOp)[0]
    addf = ops_of(module, arith.AddfOp)[0]
    assert muli.properties["overflowFlags"] == IntegerOverflowAttr([IntegerOverflowFlag.NSW])
    assert addi.properties["overflowFlags"] == IntegerOverflowAttr([IntegerOverflowFlag.NSW])
    assert addf.properties["fastmath"] == FastMathFlagsAttr("fast")


def test_builders_print_and_parse_back() -> None:
    from xdsl.parser import Parser

    from tileir.registry import make_context

    def body(b: Builder, args: tuple[BlockArgument, ...]) -> None:
        B.build_zero_accumulator_dot(
            b, args[0], args[1], TensorType(f32, [16, 16]), AtomAttr("mma_f16_f16_f32")
        )

    module = build([TensorType(f16, [16, 16]), TensorType(f16, [16, 16])], body)
    text = str(module)
    again = Parser(make_context(), text).parse_module()
    again.verify()
    assert str(again) == text
