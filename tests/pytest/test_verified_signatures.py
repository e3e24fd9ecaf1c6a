"""Verification once per signature (tileir/utils/verified_signatures.py): an op whose
verdict can only depend on its types, properties and attributes is verified the first
time its signature is seen; an op that fails fails every time, with xDSL's message; an
op whose verdict depends on more (a trait that looks at its parent, its own verifier,
its place at the end of a block) is verified every time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    FunctionType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region

from tileir.diagnostics import CompileError, verify_module
from tileir.utils import verified_signatures as vs


@pytest.fixture(autouse=True)
def fresh_memory() -> Iterator[None]:
    saved = (set(vs._VERIFIED), dict(vs._BY_IDENTITY))
    vs._VERIFIED.clear()
    vs._BY_IDENTITY.clear()
    yield
    vs._VERIFIED.clear()
    vs._BY_IDENTITY.clear()
    vs._VERIFIED.update(saved[0])
    vs._BY_IDENTITY.update(saved[1])


def _function(arg_types: list[Attribute]) -> tuple[ModuleOp, Block]:
    """A module of one function `f` whose body is a `func.return`."""
    block = Block(arg_types=arg_types)
    block.add_op(func.ReturnOp())
    f = func.FuncOp("f", FunctionType.from_lists(arg_types, []), Region(block))
    return ModuleOp([f]), block


def _insert(block: Block, op: Operation) -> Operation:
    assert block.last_op is not None
    block.insert_op_before(op, block.last_op)
    return op


def _add(block: Block) -> llvm.AddOp:
    return llvm.AddOp(block.args[0], block.args[1])


def _count_verifications(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    counts: dict[str, int] = {}
    original = Operation.verify

    def counting(self: Operation, verify_nested_ops: bool = True) -> None:
        counts[self.name] = counts.get(self.name, 0) + 1
        original(self, verify_nested_ops)

    monkeypatch.setattr(Operation, "verify", counting)
    return counts


def test_a_repeated_signature_is_verified_once(monkeypatch: pytest.MonkeyPatch) -> None:
    module, block = _function([i32, i32])
    for _ in range(5):
        _insert(block, _add(block))
    counts = _count_verifications(monkeypatch)
    verify_module(module)
    assert counts["llvm.add"] == 1
    verify_module(module)  # and not again: the signature is remembered
    assert counts["llvm.add"] == 1
    assert counts["func.return"] == 2 and counts["func.func"] == 2


def test_an_equal_signature_from_other_objects_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The memory by identity misses (other type objects); the one by value finds it."""
    first, block = _function([i64, i64])
    _insert(block, _add(block))
    verify_module(first)
    second, block = _function([IntegerType(64), IntegerType(64)])
    add = _insert(block, _add(block))
    parts = vs.signature(add)
    assert parts is not None and tuple(map(id, parts)) not in vs._BY_IDENTITY
    counts = _count_verifications(monkeypatch)
    verify_module(second)
    assert "llvm.add" not in counts
    assert tuple(map(id, parts)) in vs._BY_IDENTITY


def test_a_failing_op_fails_every_time() -> None:
    """A signature is remembered only once it verified."""
    module, block = _function([i32, i32])
    # llvm.icmp's own verifier: a vector result for scalar operands is wrong.
    _insert(
        block,
        llvm.ICmpOp.create(
            operands=list(block.args),
            result_types=[VectorType(i1, [2])],
            properties={"predicate": IntegerAttr(0, i64)},
        ),
    )
    for _ in range(2):
        with pytest.raises(CompileError, match="Result must be scalar"):
            verify_module(module)
    assert not vs._VERIFIED


def test_ops_whose_verdict_depends_on_more_are_verified_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """func.return ends its block and has a parent rule; func.func has a region."""
    module, block = _function([i32, i32])
    assert vs.signature(block.last_op) is None  # type: ignore[arg-type]
    assert vs.signature(module.ops.first) is None  # type: ignore[arg-type]
    assert not vs._is_local(func.ReturnOp)  # HasParent looks at the parent
    counts = _count_verifications(monkeypatch)
    for _ in range(3):
        verify_module(module)
    assert counts["func.return"] == 3 and counts["func.func"] == 3


def test_an_op_with_a_verifier_of_its_own_is_not_memoized() -> None:
    """Only verifiers read and found local (LOCAL_VERIFIER_CLASSES) are trusted."""
    from tileir.dialects.cuda_tile.ops.integer import AddIOp

    assert vs._is_local(llvm.AddOp)
    assert vs._is_local(llvm.ICmpOp)
    assert not vs._is_local(AddIOp)


def test_an_erased_operand_is_still_reported() -> None:
    """xDSL's check for an operand that was erased runs on every op."""
    module, block = _function([i32, i32])
    producer = _insert(block, _add(block))
    add = _insert(block, _add(block))
    verify_module(module)
    add.operands = [producer.results[0], block.args[1]]
    producer.detach()
    producer.erase(safe_erase=False)
    with pytest.raises(ValueError, match="Erased SSA value"):
        vs.verify_op(add)


def test_the_tile_ops_read_and_found_local_are_memoized() -> None:
    """nv_tileaa/nv_tileas assume, addptr, splat, broadcast and expand_dims look only at
    their types and properties; an op of theirs with a verifier not read (extract) is
    verified every time."""
    from tileir.dialects.nv_tileaa.ops.shape import ExtractOp

    for cls in vs._tile_verifier_classes():
        assert vs._is_local(cls), cls.name
    assert not vs._is_local(ExtractOp)


def test_a_failing_assume_fails_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A good nv_tileaa.assume is verified once per signature; one with a divisor that
    is not a power of two fails each time with its own message."""
    from tileir.dialects.cuda_tile.attributes import DivByAttr
    from tileir.dialects.nv_tileaa.ops.pointer import AssumeOp

    module, block = _function([i32, i32])
    for _ in range(2):
        _insert(block, AssumeOp(block.args[0], DivByAttr(16)))
    counts = _count_verifications(monkeypatch)
    verify_module(module)
    assert counts["nv_tileaa.assume"] == 1
    _insert(block, AssumeOp(block.args[1], DivByAttr(3)))
    for _ in range(2):
        with pytest.raises(CompileError, match="power of 2, got 3"):
            verify_module(module)
    assert counts["nv_tileaa.assume"] == 3


def test_a_cuda_tile_op_is_memoized_with_its_place() -> None:
    """cuda_tile's elementwise ops take builtin carriers once lifted out of a cuda_tile
    function and only tiles inside one: an addi of i32 that verified in a lifted
    function still fails inside a cuda_tile entry, where its signature differs only by
    its place."""
    from pathlib import Path

    from xdsl.utils.exceptions import VerifyException

    from tileir.compiler import load_module
    from tileir.dialects.cuda_tile.ops.core import EntryOp
    from tileir.dialects.cuda_tile.ops.integer import AddIOp
    from tileir.pipelines import stage_passes
    from tileir.registry import make_context
    from tileir.utils.walk import ops_of

    kernel = Path(__file__).resolve().parents[1] / "corpus" / "control_flow_f32.tileirbc"
    ctx = make_context()
    lifted = load_module(kernel, ctx)
    for p in stage_passes("sm_90a", 4)[0][1]:
        p.apply(ctx, lifted)
    add = next(o for o in ops_of(lifted) if isinstance(o, AddIOp))
    assert vs._is_placed(AddIOp) and not vs._is_local(AddIOp)
    verify_module(lifted)
    assert add.result.type == i32 and tuple(map(id, vs.signature(add) or ())) in vs._BY_IDENTITY

    original = load_module(kernel, make_context())
    entry = next(o for o in ops_of(original) if isinstance(o, EntryOp))
    body = entry.regions[0].blocks.first
    assert body is not None and body.last_op is not None
    inside = add.clone()
    body.insert_op_before(inside, body.last_op)
    here, there = vs.signature(inside), vs.signature(add)
    assert here is not None and there is not None
    assert here[:-1] == there[:-1] and (here[-1], there[-1]) == (True, False)
    for _ in range(2):
        with pytest.raises(VerifyException, match="must be"):
            vs.verify_op(inside)


def test_a_cuda_tile_constant_is_memoized_and_a_wrong_one_fails_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """cuda_tile.constant looks only at its value and result type: two equal constants
    are verified once; one whose value does not have the result's shape fails each
    time with its own message."""
    from tileir.dialects.cuda_tile.ops.core import ConstantOp
    from tileir.dialects.cuda_tile.types import TileType

    module, block = _function([])
    for _ in range(2):
        _insert(block, ConstantOp.splat(0, TileType([4], i32)))
    counts = _count_verifications(monkeypatch)
    verify_module(module)
    assert counts["cuda_tile.constant"] == 1
    wrong = ConstantOp.splat(0, TileType([2], i32))
    _insert(block, ConstantOp(wrong.value, TileType([4], i32)))
    for _ in range(2):
        with pytest.raises(CompileError, match="does not match the result type"):
            verify_module(module)
    assert counts["cuda_tile.constant"] == 3
