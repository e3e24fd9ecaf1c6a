"""nv_tileaa (seed 004): the op roster, the canonicalization surface as the seed lists
it, mem-token type inference, the numeric core of constant dot folding, and docs that
match the definitions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.builder import Builder
from xdsl.dialects.builtin import ModuleOp, TensorType, i8, i32
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint

from tileir.dialects.cuda_tile.attributes import Signedness
from tileir.dialects.nv_tileaa import NvTileAA
from tileir.dialects.nv_tileaa.canonicalize import (
    TILEAA_CANONICALIZATION_PATTERNS,
    patterns_named,
    populate_tileaa_canonicalizers,
)
from tileir.dialects.nv_tileaa.canonicalize.dot import fold_dot_values
from tileir.dialects.nv_tileaa.docs import ROWS, render
from tileir.dialects.nv_tileaa.ops import (
    FAMILIES,
    OPS,
    CreateMemTokenOp,
    DotOp,
    JoinMemTokenOp,
)
from tileir.dialects.nv_tileaa.ops.base import CanonicalizedBy
from tileir.dialects.nv_tileaa.types import MEM_TOKEN, MemTokenType

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "dialects" / "nv_tileaa.md"
TESTS = ROOT / "tests" / "filecheck" / "dialects" / "nv_tileaa"

#: The issue's roster of nv_tileaa ops (seed 004 and its cross-references).
ROSTER = {
    "addptr", "splat", "broadcast", "expand_dims", "view", "extract", "select", "assume",
    "load", "store", "dot", "atomic_cas", "atomic_rmw", "queue.create", "queue.put",
    "queue.get", "queue.yield", "execute", "pragma", "yield", "create_mem_token",
    "join_mem_token",
}  # fmt: skip

#: Seed 004's populate list, in order.
POPULATE = [
    "fold_constant_dot", "fuse_addptr_chain", "push_assume_through_splat",
    "push_select_through_splat", "canonicalize_masked_load", "canonicalize_masked_store",
    "fold_expand_dims_of_splat", "fold_view_chain", "fold_broadcast_of_splat",
    "hoist_extract_through_elementwise", "prune_queue_get_results", "prune_pragma_results",
    "fold_atomic_cas", "fold_atomic_rmw",
]  # fmt: skip


def test_roster_and_dialect() -> None:
    assert {op.name.removeprefix("nv_tileaa.") for op in OPS} == ROSTER
    assert {op.name for op in NvTileAA.operations} == {op.name for op in OPS}
    assert [op for f in FAMILIES for op in f.ops] == OPS


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_every_op_has_a_verifier(op: type) -> None:
    # Terminators are checked by their HasParent trait and their parent's verifier.
    if op.name in ("nv_tileaa.queue.yield", "nv_tileaa.yield"):
        return
    assert any("verify_" in vars(cls) for cls in op.__mro__ if cls.__module__.startswith("tileir"))


def test_populate_list_is_the_seeds() -> None:
    patterns = populate_tileaa_canonicalizers()
    assert len(patterns) == 14
    names = [(p.__doc__ or "").strip().split(":", 1)[0].strip("`") for p in patterns]
    assert names == POPULATE
    assert [type(p) for p in TILEAA_CANONICALIZATION_PATTERNS] == [type(p) for p in patterns]
    assert len(ROWS) == 11
    assert sorted(c.__name__ for _, cs in ROWS for c in cs) == sorted(
        type(p).__name__ for p in patterns
    )


def test_every_pattern_is_attached_once() -> None:
    attached = [
        name
        for op in OPS
        for trait in op.traits
        if isinstance(trait, CanonicalizedBy)
        for name in trait.names
    ]
    assert sorted(attached) == sorted(type(p).__name__ for p in TILEAA_CANONICALIZATION_PATTERNS)
    assert patterns_named(("FoldViewChain",))[0] is TILEAA_CANONICALIZATION_PATTERNS[7]
    with pytest.raises(KeyError):
        patterns_named(("NoSuchPattern",))


def test_mem_token_types_are_inferred_and_shared_per_function() -> None:
    f = FuncOp("k", ((), ()))
    g = FuncOp("l", ((), ()))
    ModuleOp([f, g])
    types: list[MemTokenType] = []
    for func in (f, g):
        block = func.body.block
        builder = Builder(InsertPoint.at_end(block))
        a = CreateMemTokenOp.build_at(builder)
        b = CreateMemTokenOp.build_at(builder, num_producers=2)
        j = JoinMemTokenOp.build_at(builder, [a.result, b.result])
        types += [a.result.type, b.result.type, j.result.type]  # pyright: ignore[reportArgumentType]
        assert b.is_async and not a.is_async
    assert all(t is MEM_TOKEN for t in types)


def _dot(signedness: tuple[Signedness, Signedness]) -> DotOp:
    block = Block(
        arg_types=[TensorType(i8, [2, 3]), TensorType(i8, [3, 2]), TensorType(i32, [2, 2])]
    )
    return DotOp(*block.args, signedness=signedness)


@pytest.mark.parametrize(
    "signedness",
    [(Signedness.SIGNED, Signedness.SIGNED), (Signedness.UNSIGNED, Signedness.SIGNED)],
)
def test_integer_dot_folding_reads_operands_with_their_signedness(
    signedness: tuple[Signedness, Signedness],
) -> None:
    rng = np.random.default_rng(4)
    a = rng.integers(-128, 128, (2, 3)).astype(np.int8)
    b = rng.integers(-128, 128, (3, 2)).astype(np.int8)
    c = rng.integers(-1000, 1000, (2, 2)).astype(np.int32)
    read = {Signedness.SIGNED: np.int8, Signedness.UNSIGNED: np.uint8}
    lhs = a.view(read[signedness[0]]).astype(np.int64)
    rhs = b.view(read[signedness[1]]).astype(np.int64)
    expected = c.astype(np.int64) + lhs @ rhs
    got = fold_dot_values(_dot(signedness), a, b, c)
    assert got is not None
    assert np.array_equal(got, expected)


def test_invalid_files_use_verify_diagnostics() -> None:
    files = sorted(TESTS.glob("*_invalid.mlir"))
    assert files
    for path in files:
        run_lines = [line for line in path.read_text().splitlines() if line.startswith("// RUN:")]
        assert run_lines and all("--verify-diagnostics" in r for r in run_lines), path.name


def test_docs_match_the_definitions() -> None:
    assert DOCS.read_text() == render(), (
        "docs/dialects/nv_tileaa.md is stale: run "
        "`python -m tileir.dialects.nv_tileaa.docs docs/dialects/nv_tileaa.md`"
    )
