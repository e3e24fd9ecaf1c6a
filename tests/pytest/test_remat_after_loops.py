"""llvm-remat-after-loops: the second epilogue of a split accumulator recomputes the
first epilogue's index arithmetic (the columns and rows a thread stores, their masks)
after the second K loop instead of keeping it live across that loop, where ptxas spilled
it (s_block_scaled_mm_swizzled, sm_90a: 116 bytes).  The kernel is
test_split_accumulators's (two K loops, ragged halves); the simulator's result must stay
numpy's, and with the pass turned off the values live across the loop come back."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from tests.pytest.test_split_accumulators import GRID, KERNEL, M, N, _arguments, _expected
from tileir.compiler import compile_module, parse_module_text
from tileir.testing import simulate
from tileir.transforms.llvm import remat_after_loops
from tileir.transforms.llvm.remat_after_loops import CHEAP, RematAfterLoopsPass, loops_of
from tileir.utils.walk import ops_of


def _llvm(arch: str) -> ModuleOp:
    module = compile_module(
        parse_module_text(KERNEL, "matmul.mlir"), arch, stop_after="llvm"
    ).module
    assert isinstance(module, ModuleOp)
    return module


def _kept_across_second_loop(module: ModuleOp) -> list[Operation]:
    """Cheap ops between the first loop's exit and the second loop that nothing in the
    second loop uses but something after it does."""
    (func,) = [f for f in ops_of(module) if isinstance(f, llvm.FuncOp)]
    blocks = list(func.body.blocks)
    loops = sorted(loops_of(blocks))
    assert len(loops) == 2
    (_, latch0), (h1, latch1) = loops
    index = {b: i for i, b in enumerate(blocks)}
    kept: list[Operation] = []
    for block in blocks[latch0 + 1 : h1]:
        for op in block.ops:
            if op.name not in CHEAP:
                continue
            where = [index[u.operation.parent_block()] for r in op.results for u in r.uses]  # pyright: ignore[reportArgumentType]
            if any(w > latch1 for w in where) and not any(h1 <= w <= latch1 for w in where):
                kept.append(op)
    return kept


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_epilogue_values_not_live_across_second_loop(arch: str) -> None:
    assert _kept_across_second_loop(_llvm(arch)) == []


def test_without_the_pass_they_are(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RematAfterLoopsPass, "apply", lambda self, ctx, op: None)
    kept = _kept_across_second_loop(_llvm("sm_90a"))
    assert len(kept) >= 8, kept


def test_copies_match_numpy() -> None:
    ptx = compile_module(parse_module_text(KERNEL, "matmul.mlir"), "sm_90a").ptx
    assert ptx is not None
    got = np.zeros((M, N), np.float16)
    simulate(ptx, GRID, _arguments(got))
    np.testing.assert_array_equal(got, _expected())


def test_second_run_copies_nothing() -> None:
    # The copies took every use after the loop: nothing is left to copy.
    module = _llvm("sm_90a")
    (func,) = [f for f in ops_of(module) if isinstance(f, llvm.FuncOp)]
    assert remat_after_loops.rematerialize_region_blocks(list(func.body.blocks)) == 0
