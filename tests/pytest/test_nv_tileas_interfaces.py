"""MemoryConsistencyOp, the pure tile-structure chain walk and the safe-rewrite
predicate (seed 000), producer/agent interfaces (seed 002)."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.parser import Parser

from tileir.dialects.nv_tileas.interfaces import (
    INHERIT_REGISTER_BUDGET,
    ChainStop,
    MemoryConsistencyOp,
    get_agent_warp_counts,
    get_consumer_region,
    get_producer_region,
    is_memory_consistency_op,
    is_pure_tile_structure,
    is_safe_to_rewrite,
    quantize_agent_warps,
    walk_tile_chain,
)
from tileir.dialects.nv_tileas.ops import OPS, AllocTensorOp, InsertSliceOp
from tileir.registry import make_context

#: Seed 000 "Memory Consistency Interface": exactly these carry the trait.
MEMORY_CONSISTENCY = {
    # async load/store/copy/dot
    "nv_tileas.async.tiled_load",
    "nv_tileas.async.load",
    "nv_tileas.async.store",
    "nv_tileas.async.copy",
    "nv_tileas.async.dot",
    # async waits
    "nv_tileas.async.wait",
    # async TMA load/store/gather/scatter
    "nv_tileas.async.tiled_tma_load",
    "nv_tileas.async.tiled_tma_store",
    "nv_tileas.async.gather_tma_load",
    "nv_tileas.async.scatter_tma_store",
    # synchronous copy, descriptor builder, reduce and scan
    "nv_tileas.copy",
    "nv_tileas.make_tiled_tma_desc",
    "nv_tileas.reduce",
    "nv_tileas.scan",
}

#: Seed 000: the pure tile-shaping ops, future_wait and pipeline plumbing are excluded.
EXCLUDED = {
    "nv_tileas.alloc_tensor",
    "nv_tileas.insert_slice",
    "nv_tileas.extract_slice",
    "nv_tileas.view",
    "nv_tileas.async.future_wait",
}


#: tileir's own ops that carry the trait (not in the seed): the CTA barrier that
#: `tileas-insert-barriers` places, the agent's barrier `tileas-specialize-agents` makes
#: of one, and the wait for the grids a grid depends on (docs/dialects/nv_tileas.md,
#: "synchronization").
TILEIR_MEMORY_CONSISTENCY = {
    "nv_tileas.cta_barrier",
    "nv_tileas.agent_barrier",
    "nv_tileas.gdc_wait",
}


def test_trait_is_on_exactly_the_seed_table() -> None:
    carrying = {op.name for op in OPS if MemoryConsistencyOp() in op.traits}
    assert carrying == MEMORY_CONSISTENCY | TILEIR_MEMORY_CONSISTENCY
    assert not carrying & EXCLUDED
    assert not {n for n in carrying if n.startswith("nv_tileas.async.pipeline.")}


def test_pure_tile_structure_is_the_four_chain_ops() -> None:
    pure = {
        op.name for op in OPS if any(type(t).__name__ == "PureTileStructure" for t in op.traits)
    }
    assert pure == {
        "nv_tileas.alloc_tensor",
        "nv_tileas.insert_slice",
        "nv_tileas.extract_slice",
        "nv_tileas.view",
    }


def test_every_op_with_a_memory_semantic_is_ordered_somewhere() -> None:
    """Ops that can carry acquire/release are either memory-consistency ops or have
    memory effects, so no pure rewrite treats them as freely movable."""
    for op in OPS:
        props = op.get_irdl_definition().properties
        if "mem_semantic" in props:
            names = {type(t).__name__ for t in op.traits}
            assert names & {"MemoryConsistencyOp", "MemoryReadEffect", "MemoryWriteEffect"}, op.name


CHAINS = """
func.func @chains(%seed: tensor<?x?xf32>, %m: index, %n: index, %arg: tensor<64x64xf32>,
                  %g: !nv_tileas.tiled_view<64x64xf32, gmem>, %i: index) {
  %init = nv_tileas.alloc_tensor : tensor<64x64xf32>
  %ins = nv_tileas.insert_slice %seed into %init[0, 0][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
  %ext = nv_tileas.extract_slice %ins[0, 0][64, 64][1, 1] : tensor<64x64xf32> to tensor<64x64xf32>
  %on_arg = nv_tileas.insert_slice %seed into %arg[0, 0][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
  %loaded = nv_tileas.tiled_load %g[%i, %i] {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<64x64xf32, gmem> -> tensor<64x64xf32>
  %on_load = nv_tileas.insert_slice %seed into %loaded[0, 0][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
  %reduced = nv_tileas.scan %arg {axis = 0 : i32} : tensor<64x64xf32> -> tensor<64x64xf32> {
  ^bb0(%a: f32, %b: f32):
    nv_tileas.yield %a : f32
  }
  %on_scan = nv_tileas.insert_slice %seed into %reduced[0, 0][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
  %cst = arith.constant dense<0.0> : tensor<64x64xf32>
  %on_cst = nv_tileas.insert_slice %seed into %cst[0, 0][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
  func.return
}
"""


def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def values(module: ModuleOp) -> dict[str, SSAValue]:
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    named: dict[str, SSAValue] = {a.name_hint or "": a for a in fn.body.block.args}
    for op in fn.walk():
        for r in op.results:
            if r.name_hint:
                named[r.name_hint] = r
    return named


def test_chain_reaches_alloc_through_pure_structure() -> None:
    v = values(parse(CHAINS))
    chain = walk_tile_chain(v["ext"], lambda op: isinstance(op, AllocTensorOp))
    assert chain.stop is ChainStop.SINK and chain.ok
    assert [op.name for op in chain.ops] == [
        "nv_tileas.extract_slice",
        "nv_tileas.insert_slice",
        "nv_tileas.alloc_tensor",
    ]
    assert isinstance(chain.sink, AllocTensorOp)


def test_chain_stops_at_the_insert_slice_sink() -> None:
    v = values(parse(CHAINS))
    chain = walk_tile_chain(v["ext"], lambda op: isinstance(op, InsertSliceOp))
    assert chain.stop is ChainStop.SINK
    assert [op.name for op in chain.ops] == ["nv_tileas.extract_slice", "nv_tileas.insert_slice"]
    # Without a sink, the walk ends at the start of the chain.
    assert walk_tile_chain(v["ext"]).stop is ChainStop.ORIGIN


def test_chain_stops_at_block_boundaries_and_constants() -> None:
    v = values(parse(CHAINS))
    boundary = walk_tile_chain(v["on_arg"], lambda op: isinstance(op, AllocTensorOp))
    assert boundary.stop is ChainStop.BLOCK_BOUNDARY and boundary.ok
    assert boundary.block_argument is v["arg"]
    constant = walk_tile_chain(v["on_cst"], lambda op: isinstance(op, AllocTensorOp))
    assert constant.stop is ChainStop.CONSTANT and constant.ok


def test_chain_aborts_at_memory_consistency_and_impure_ops() -> None:
    v = values(parse(CHAINS))
    scan = walk_tile_chain(v["on_scan"], lambda op: isinstance(op, AllocTensorOp))
    assert scan.stop is ChainStop.MEMORY_CONSISTENCY and not scan.ok
    assert scan.blocker is not None and scan.blocker.name == "nv_tileas.scan"
    load = walk_tile_chain(v["on_load"], lambda op: isinstance(op, AllocTensorOp))
    assert load.stop is ChainStop.NOT_PURE and not load.ok
    assert load.blocker is not None and load.blocker.name == "nv_tileas.tiled_load"


def test_chain_limited_to_a_block() -> None:
    v = values(parse(CHAINS))
    other_block = parse(CHAINS).body.block
    chain = walk_tile_chain(v["ext"], limit=other_block)
    assert chain.stop is ChainStop.BLOCK_BOUNDARY and chain.ops == []


def test_safe_to_rewrite() -> None:
    v = values(parse(CHAINS))
    ops: dict[str, Operation] = {}
    for name in ("init", "ins", "ext", "loaded", "reduced", "cst"):
        owner = v[name].owner
        assert isinstance(owner, Operation)
        ops[name] = owner
    assert is_safe_to_rewrite([ops["init"], ops["ins"], ops["ext"], ops["cst"]])
    assert not is_safe_to_rewrite([ops["ins"], ops["reduced"]])
    assert not is_safe_to_rewrite([ops["loaded"]])
    assert is_memory_consistency_op(ops["reduced"])
    assert not is_memory_consistency_op(ops["ins"])
    assert is_pure_tile_structure(ops["ext"]) and not is_pure_tile_structure(ops["loaded"])


def test_quantize_agent_warps_is_seed_002() -> None:
    assert quantize_agent_warps(INHERIT_REGISTER_BUDGET) == INHERIT_REGISTER_BUDGET
    for r in range(1, 300):
        assert quantize_agent_warps(r) == 8 * ((r + 7 + 7) // 8)
    assert quantize_agent_warps(232) == 240 and quantize_agent_warps(225) == 232


PIPELINE = """
func.func @p(%p: !nv_tileas.async.pipeline.producer_token, %c: !nv_tileas.async.pipeline.consumer_token,
             %it: !nv_tileas.async.pipeline.iterator<i32>,
             %cit: !nv_tileas.async.pipeline.iterator<i32, kind = consumer>, %v: i32) {
  %p1 = nv_tileas.async.pipeline.produce_one %p, %it {producer_types = []} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<i32>) -> !nv_tileas.async.pipeline.producer_token {
    nv_tileas.async.pipeline.yield
  }
  %c1 = nv_tileas.async.pipeline.consume_one %c, %cit {consumer_idx = 0 : i32, consumer_types = []} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<i32, kind = consumer>) -> !nv_tileas.async.pipeline.consumer_token {
    nv_tileas.async.pipeline.yield
  }
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 40, -1>, isolated = false} {
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }
  func.return
}
"""


def test_producer_consumer_and_agent_interfaces() -> None:
    module = parse(PIPELINE)
    ops = {op.name: op for op in module.walk()}
    produce = ops["nv_tileas.async.pipeline.produce_one"]
    consume = ops["nv_tileas.async.pipeline.consume_one"]
    switch = ops["nv_tileas.async.pipeline.agent_switch"]
    assert get_producer_region(produce) is produce.regions[0]
    assert get_producer_region(consume) is None
    assert get_consumer_region(consume) is consume.regions[0]
    assert get_agent_warp_counts(switch) == [48, INHERIT_REGISTER_BUDGET]
    assert get_agent_warp_counts(produce) == []
