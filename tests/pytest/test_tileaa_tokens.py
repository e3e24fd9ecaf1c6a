"""Token hop two and seed 004's five steps of mem_token type inference: the types every
builder of a function gets are one cached object, hop two builds its replacement tokens
with it and records what the function's asynchronous tokens lowered to."""

from __future__ import annotations

import pytest
from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, i32
from xdsl.rewriter import InsertPoint

from tileir.compiler import parse_module_text
from tileir.conversions.tileaa_tokens import lower_mem_tokens
from tileir.diagnostics import CompileError
from tileir.dialects import nvvm
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileaa.ops.tokens import cache_for, infer_mem_token_type
from tileir.dialects.nv_tileaa.types import MEM_TOKEN

KERNELS = """
func.func @asynchronous(%p: !cuda_tile.ptr<f32>) attributes {nv_tileaa.kernel} {
  %a = nv_tileaa.create_mem_token {num_producers = 2 : i32} : !nv_tileaa.mem_token
  %s = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %j = nv_tileaa.join_mem_token %a, %a : !nv_tileaa.mem_token
  %k = nv_tileaa.join_mem_token %s, %j : !nv_tileaa.mem_token
  func.return
}
func.func @synchronous() attributes {nv_tileaa.kernel} {
  %s = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %t = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %j = nv_tileaa.join_mem_token %s, %t : !nv_tileaa.mem_token
  func.return
}
"""


def functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {op.sym_name.data: op for op in module.walk() if isinstance(op, func.FuncOp)}


def test_builders_of_a_function_share_one_cached_type() -> None:
    module = parse_module_text(KERNELS, "tokens.mlir")
    fns = functions(module)
    body = fns["synchronous"].body.block
    builder = Builder(InsertPoint.at_start(body))
    made = aa.CreateMemTokenOp.build_at(builder, 0)
    joined = aa.JoinMemTokenOp.build_at(builder, [made.result, made.result])
    # Steps 1-5: scope found (the function), looked up, created once, cached, returned.
    assert made.result.type is MEM_TOKEN and joined.result.type is MEM_TOKEN
    cache = cache_for(fns["synchronous"])
    assert cache.token_type is MEM_TOKEN
    assert infer_mem_token_type(body) is cache.token_type
    # Each function has its own scope and cache; the type object is still the anchor.
    other = cache_for(fns["asynchronous"])
    assert other is not cache
    assert infer_mem_token_type(fns["asynchronous"].body.block) is MEM_TOKEN


def test_hop_two_builds_cached_types_and_records_the_lowering() -> None:
    module = parse_module_text(KERNELS, "tokens.mlir")
    parsed = {id(op) for op in module.walk()}
    lower_mem_tokens(module)
    module.verify()
    fns = functions(module)
    asynchronous = fns["asynchronous"]
    ops = list(asynchronous.walk())
    # The join of %a with itself became two waits and a fresh token; the outer join of
    # the synchronous %s with that token stays a join.
    waits = [op for op in ops if isinstance(op, nvvm.MBarrierTryWaitParitySharedOp)]
    inits = [op for op in ops if isinstance(op, nvvm.MBarrierInitSharedOp)]
    assert len(waits) == 2 and len(inits) == 1
    assert not any(isinstance(op, aa.CreateMemTokenOp) and op.is_async for op in ops)
    built = [r for op in ops if id(op) not in parsed for r in op.results if r.type == MEM_TOKEN]
    assert len(built) == 1 and built[0].type is MEM_TOKEN
    assert cache_for(asynchronous).lowered == {MEM_TOKEN: i32}
    # A function without asynchronous tokens is left exactly as it was.
    synchronous = fns["synchronous"]
    assert not any(op.name.startswith("nvvm.") for op in synchronous.walk())
    assert cache_for(synchronous).lowered == {}


def test_the_33rd_barrier_is_a_diagnostic() -> None:
    tokens = "\n".join(
        f"  %t{i} = nv_tileaa.create_mem_token {{num_producers = 1 : i32}} : !nv_tileaa.mem_token"
        for i in range(33)
    )
    module = parse_module_text(f"func.func @k() {{\n{tokens}\n  func.return\n}}", "pool.mlir")
    with pytest.raises(CompileError, match="the CTA's pool of 32 is exhausted"):
        lower_mem_tokens(module)
