"""`LocatedWalker`'s own worklist loop (issue 17) rewrites what xDSL's loop rewrites: a
`GreedyRewritePatternApplier` run as a `TypeDispatch` (its dead-code erasure kept), ops
no pattern can take popped without a try, the worklist keyed by `id`.  Compared with the
same walker driven by xDSL's `_populate_worklist`/`_process_worklist`/`Worklist` and the
applier as given: on a small function with rewrites that feed the worklist, and at the
tileaa canonicalization step of corpus kernels."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_fast_rewriting import _parse  # pyright: ignore[reportPrivateUsage]
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.worklist import Worklist

from tileir.compiler import load_module, print_ir
from tileir.dialects.nv_tileaa.canonicalize import TILEAA_CANONICALIZATION_PATTERNS
from tileir.pipelines import stage_passes
from tileir.registry import make_context
from tileir.transforms.tileaa.canonicalize import TileAACanonicalizePass
from tileir.utils.rewriting import LocatedWalker, TypeDispatch, _OpWorklist

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


class _XdslDriven(LocatedWalker):
    """The walker as it was: xDSL's loop, worklist and applier."""

    def __init__(self, pattern: RewritePattern, *, apply_recursively: bool = True) -> None:
        super().__init__(pattern, apply_recursively=apply_recursively)
        self._tracking.inner = pattern
        self._dispatch = None
        self._worklist = Worklist()

    _populate_worklist = PatternRewriteWalker._populate_worklist  # pyright: ignore[reportPrivateUsage, reportAssignmentType]
    _process_worklist = PatternRewriteWalker._process_worklist  # pyright: ignore[reportPrivateUsage, reportAssignmentType]


class MulToShift(RewritePattern):
    """`x * 2` -> `x + x` (a new op, the old one replaced: users go on the worklist)."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MuliOp, rewriter: PatternRewriter) -> None:
        rhs = op.rhs.owner
        if isinstance(rhs, arith.ConstantOp) and rhs.value == IntegerAttr(2, i32):
            self.log.append(f"mul:{len(self.log)}")
            rewriter.replace(op, arith.AddiOp(op.lhs, op.lhs))


class TagConstants(RewritePattern):
    """Untyped: tags each constant once (a modification)."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, arith.ConstantOp) and "seen" not in op.attributes:
            self.log.append(f"const:{len(self.log)}")
            op.attributes["seen"] = IntegerAttr(len(self.log), i32)
            rewriter.notify_op_modified(op)


PROGRAM = """
func.func @f(%a: i32) -> i32 {
  %c = arith.constant 2 : i32
  %unused = arith.constant 7 : i32
  %m = arith.muli %a, %c : i32
  %d = arith.subi %m, %a : i32
  %dead = arith.muli %d, %d : i32
  %t = arith.muli %d, %c : i32
  func.return %t : i32
}
"""


def _run(walker: type[LocatedWalker], dce: bool, recursive: bool) -> tuple[str, list[str]]:
    module = _parse(PROGRAM)
    log: list[str] = []
    applier = GreedyRewritePatternApplier([TagConstants(log), MulToShift(log)], dce_enabled=dce)
    walker(applier, apply_recursively=recursive).rewrite_module(module)
    return str(module), log


@pytest.mark.parametrize("dce", [True, False])
@pytest.mark.parametrize("recursive", [True, False])
def test_the_loop_rewrites_what_xdsls_loop_rewrites(dce: bool, recursive: bool) -> None:
    ours = _run(LocatedWalker, dce, recursive)
    assert ours == _run(_XdslDriven, dce, recursive)
    assert ("%dead" in ours[0]) is not dce and "arith.addi" in ours[0]


def test_a_greedy_applier_without_folding_becomes_a_dispatch() -> None:
    walker = LocatedWalker(GreedyRewritePatternApplier([], dce_enabled=True))
    assert isinstance(walker._tracking.inner, TypeDispatch)  # pyright: ignore[reportPrivateUsage]
    assert walker._tracking.inner.dce_enabled  # pyright: ignore[reportPrivateUsage]
    folding = GreedyRewritePatternApplier([], Context(), folding_enabled=True)
    assert LocatedWalker(folding)._tracking.inner is folding  # pyright: ignore[reportPrivateUsage]


def test_the_worklist_by_id_keeps_xdsls_order() -> None:
    ops: list[Operation] = [arith.ConstantOp(IntegerAttr(i, i32)) for i in range(6)]
    theirs, ours = Worklist[Operation](), _OpWorklist()
    for w in (theirs, ours):
        for i in (0, 1, 2, 1, 3):
            w.push(ops[i])
        w.remove(ops[2])
        w.remove(ops[5])
        w.push(ops[4])
    popped: list[list[int]] = [[], []]
    for w, out in ((theirs, popped[0]), (ours, popped[1])):
        while w:
            out.append(ops.index(w.pop()))
    assert popped[0] == popped[1] == [4, 3, 1, 0]
    with pytest.raises(IndexError):
        ours.pop()


@pytest.mark.parametrize("kernel", ["layernorm_f32_2d", "gemm_bf16_ragged"])
def test_tileaa_canonicalization_is_xdsls(kernel: str) -> None:
    ctx = make_context()
    module = load_module(CORPUS / f"{kernel}.tileirbc", ctx)
    for _, passes in stage_passes("sm_90a", 4):
        for p in passes:
            if isinstance(p, TileAACanonicalizePass):
                reference = module.clone()
                _XdslDriven(
                    GreedyRewritePatternApplier(list(TILEAA_CANONICALIZATION_PATTERNS))
                ).rewrite_module(reference)
                before = print_ir(module)
                p.apply(ctx, module)
                assert print_ir(module) == print_ir(reference) != before
                return
            p.apply(ctx, module)
    raise AssertionError("no tileaa-canonicalize step")
