"""Issue 17's outlier shortcuts take xDSL's answers: `cse.side_effect_free` (which
`llvm-sink-tmem-loads` and `llvm-defer-read-barriers` ask, from an op's class where the
class decides it) says what xDSL's `is_side_effect_free` says, for every op of a
kernel's llvm stage and for an op whose effects an op-level trait computes."""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import i32
from xdsl.ir import Block
from xdsl.traits import is_side_effect_free

from tileir.compiler import load_module
from tileir.pipelines import stage_passes
from tileir.registry import make_context
from tileir.transforms.cse import side_effect_free
from tileir.utils.walk import ops_of

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def test_side_effect_free_is_xdsls_answer_on_a_kernels_llvm_ops() -> None:
    ctx = make_context()
    module = load_module(CORPUS / "batched_matmul_e5m2.tileirbc", ctx)
    for _, passes in stage_passes("sm_90a", 4):
        for p in passes:
            p.apply(ctx, module)
    ops = list(ops_of(module))
    answers = {side_effect_free(op) for op in ops}
    assert answers == {True, False}  # both kinds are there
    for op in ops:
        assert side_effect_free(op) == is_side_effect_free(op), op.name


def test_side_effect_free_asks_the_op_where_its_trait_computes_the_effects() -> None:
    """`scf.for` has the effects of its body (`RecursiveMemoryEffect`): a loop of
    constants is side-effect free, a loop with a store is not, whichever is asked first."""
    zero = arith.ConstantOp.from_int_and_width(0, 32)
    pointer = llvm.IntToPtrOp(zero.result)

    def loop(with_store: bool) -> scf.ForOp:
        body = Block(arg_types=[i32])
        if with_store:
            body.add_op(llvm.StoreOp(body.args[0], pointer.results[0]))
        body.add_op(scf.YieldOp())
        return scf.ForOp(zero.result, zero.result, zero.result, [], body)

    for first in (True, False):
        for op in (loop(first), loop(not first)):
            assert side_effect_free(op) == is_side_effect_free(op)
    assert side_effect_free(loop(False)) and not side_effect_free(loop(True))
