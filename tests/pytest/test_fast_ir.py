"""tileir/utils/fast_ir.py: xDSL's walks, named operands and results, result indexing and
erasure, replaced in a compiler process, give xDSL's answers in xDSL's order, also while
the IR changes under a walk."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from enum import IntEnum
from pathlib import Path

import pytest
from xdsl.dialects import arith, builtin
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.core import ErasedSSAValue, SSAValues
from xdsl.irdl import IRDLOperation

from tileir.compiler import load_module
from tileir.pipelines import stage_passes
from tileir.registry import make_context
from tileir.utils import fast_ir

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
ORDERS = [(False, False), (True, False), (False, True), (True, True)]


@pytest.fixture
def xdsl_as_is() -> Iterator[None]:
    """xDSL's own methods for the test's body (whatever the process had, back after)."""
    was = fast_ir.installed()
    fast_ir.uninstall()
    try:
        yield
    finally:
        if was:
            fast_ir.install()


def _both(compute: Callable[[], object]) -> tuple[object, object]:
    """`compute()` with xDSL's methods, then with fast_ir's."""
    theirs = compute()
    fast_ir.install()
    try:
        ours = compute()
    finally:
        fast_ir.uninstall()
    return theirs, ours


def _stages() -> Iterator[builtin.ModuleOp]:
    """A kernel with loops and branches after each stage (cuda_tile read, tileaa,
    tileas, llvm)."""
    ctx = make_context()
    module = load_module(CORPUS / "control_flow_f32.tileirbc", ctx)
    yield module
    for _, passes in stage_passes("sm_90a", 4):
        for p in passes:
            p.apply(ctx, module)
        yield module


def _walks(module: builtin.ModuleOp) -> list[list[Operation]]:
    walks: list[list[Operation]] = []
    for reverse, region_first in ORDERS:
        walks.append(list(module.walk(reverse=reverse, region_first=region_first)))
        for op in module.walk():
            for region in op.regions:
                walks.append(list(region.walk(reverse=reverse, region_first=region_first)))
                for block in region.blocks:
                    walks.append(list(block.walk(reverse=reverse, region_first=region_first)))
    return walks


def test_walks_are_xdsls_at_every_stage(xdsl_as_is: None) -> None:
    seen = 0
    for module in _stages():
        theirs, ours = _both(lambda module=module: _walks(module))
        assert isinstance(theirs, list) and isinstance(ours, list)
        assert len(ours) == len(theirs)
        for a, b in zip(theirs, ours, strict=True):
            assert [id(op) for op in a] == [id(op) for op in b]
            seen += len(a)
    assert seen > 1000


CHANGING = """
builtin.module {
  func.func @f(%a: i32, %c: i1) -> i32 {
    %0 = arith.constant 1 : i32
    %1 = arith.addi %a, %0 : i32
    %2 = scf.if %c -> (i32) {
      %3 = arith.constant 2 : i32
      %4 = arith.addi %1, %3 : i32
      scf.yield %4 : i32
    } else {
      %5 = arith.muli %1, %1 : i32
      scf.yield %5 : i32
    }
    %6 = arith.constant 3 : i32
    %7 = arith.addi %2, %6 : i32
    func.return %7 : i32
  }
}
"""


def _changing_walk(reverse: bool, region_first: bool) -> tuple[list[str], str]:
    """Walk a module while erasing every unused constant met, putting a new constant
    right after (or before) every `addi` met and one at the end of its block, and giving
    the `muli` met a region (with an op) of its own: the names walked and the IR after."""
    from xdsl.parser import Parser

    module = Parser(make_context(), CHANGING).parse_module()
    names: list[str] = []
    for op in module.walk(reverse=reverse, region_first=region_first):
        names.append(op.name)
        if isinstance(op, arith.ConstantOp) and not op.result.uses:
            op.detach()
            op.erase()
        elif isinstance(op, arith.AddiOp):
            block = op.parent
            assert block is not None
            block.insert_op_after(arith.ConstantOp.from_int_and_width(7, 32), op)
            block.insert_op_before(arith.ConstantOp.from_int_and_width(8, 32), op)
            last = block.last_op
            assert last is not None
            block.insert_op_before(arith.ConstantOp.from_int_and_width(9, 32), last)
        elif isinstance(op, arith.MuliOp) and not op.regions:
            op.add_region(Region(Block([arith.ConstantOp.from_int_and_width(5, 32)])))
    return names, str(module)


@pytest.mark.parametrize("reverse,region_first", ORDERS)
def test_walks_that_change_the_ir_see_what_xdsls_see(
    xdsl_as_is: None, reverse: bool, region_first: bool
) -> None:
    theirs, ours = _both(lambda: _changing_walk(reverse, region_first))
    assert ours == theirs


def _accessed(module: builtin.ModuleOp) -> list[tuple[str, str, object]]:
    """Every named operand, result, region and successor of every op, as identities
    (a sequence: its type and its elements')."""
    out: list[tuple[str, str, object]] = []
    for op in module.walk():
        if not isinstance(op, IRDLOperation):
            continue
        definition = type(op).get_irdl_definition()
        for name, _ in [
            *definition.operands,
            *definition.results,
            *definition.regions,
            *definition.successors,
        ]:
            value = getattr(op, name)
            if isinstance(value, tuple | list) or type(value).__name__.endswith("s"):
                shown: object = (type(value).__name__, [id(v) for v in value])
            else:
                shown = id(value)
            out.append((op.name, name, shown))
    return out


def test_named_operands_and_results_are_xdsls_at_every_stage(xdsl_as_is: None) -> None:
    count = 0
    for module in _stages():
        theirs, ours = _both(lambda module=module: _accessed(module))
        assert ours == theirs
        assert isinstance(ours, list)
        count += len(ours)
    assert count > 500


class Index(IntEnum):
    SECOND = 1


def test_ssa_values_index_as_xdsls(xdsl_as_is: None) -> None:
    op = arith.ConstantOp.from_int_and_width(1, 32)
    values = SSAValues([op.result, op.result, op.result])

    def index() -> list[object]:
        out: list[object] = []
        for idx in (0, 2, -1, True, Index.SECOND, slice(1, None), slice(None, None, -1)):
            got = values[idx]
            out.append((type(got).__name__, got if isinstance(got, SSAValue) else list(got)))
        with pytest.raises(IndexError):
            values[3]
        return out

    theirs, ours = _both(index)
    assert ours == theirs


def test_erasing_results_is_xdsls(xdsl_as_is: None) -> None:
    def erase() -> list[object]:
        used = arith.ConstantOp.from_int_and_width(1, 32)
        user = arith.AddiOp(used.result, used.result)
        unused = arith.ConstantOp.from_int_and_width(2, 32)
        unused.erase()
        with pytest.raises(ValueError, match="still has uses"):
            used.result.erase()
        used.result.erase(safe_erase=False)
        return [
            unused.result.first_use,
            [type(o).__name__ for o in user.operands],
            all(
                isinstance(o, ErasedSSAValue) and o.old_value is used.result for o in user.operands
            ),
        ]

    theirs, ours = _both(erase)
    assert ours == theirs


def test_install_and_uninstall_put_methods_back(xdsl_as_is: None) -> None:
    originals = (Operation.walk, SSAValues.__getitem__, SSAValue.erase)
    fast_ir.install()
    fast_ir.install()  # once
    assert Operation.walk is not originals[0]
    fast_ir.uninstall()
    assert (Operation.walk, SSAValues.__getitem__, SSAValue.erase) == originals
    assert not fast_ir.installed()


def test_isolated_from_above_verifies_as_xdsls(xdsl_as_is: None) -> None:
    """The check passes where xDSL's passes (every stage of a kernel; a use, at module
    level, of a value defined inside a function, which only dominance rejects) and fails
    with xDSL's message where it fails (a function using another function's value)."""
    from xdsl.dialects import func
    from xdsl.traits import IsolatedFromAbove
    from xdsl.utils.exceptions import VerifyException

    def verdicts() -> list[str]:
        out: list[str] = []
        for module in _stages():
            for op in module.walk():
                if op.has_trait(IsolatedFromAbove):
                    op.verify(verify_nested_ops=False)
                    out.append(op.name)
        i32 = builtin.i32
        f, g = (func.FuncOp(n, ((), (i32,))) for n in ("f", "g"))
        module = builtin.ModuleOp([f, g])
        inner = arith.ConstantOp.from_int_and_width(1, 32)
        f.body.block.add_ops([inner, func.ReturnOp(inner.result)])
        outside = arith.AddiOp(inner.result, inner.result)  # at module level
        module.body.block.add_op(outside)
        for op in (module, f):
            op.verify(verify_nested_ops=False)
            out.append(f"{op.name} ok")
        stolen = arith.AddiOp(inner.result, inner.result)  # in g, from f
        g.body.block.add_ops([stolen, func.ReturnOp(stolen.result)])
        with pytest.raises(VerifyException) as error:
            g.verify(verify_nested_ops=False)
        out.append(str(error.value))
        return out

    theirs, ours = _both(verdicts)
    assert ours == theirs
    assert isinstance(ours, list) and "IsolatedFromAbove parent" in ours[-1]
    assert {"builtin.module", "builtin.module ok", "func.func ok"} <= set(ours)


def test_attaching_ops_is_xdsls(xdsl_as_is: None) -> None:
    """An op goes into a block as xDSL puts it; one already in a block, or one that
    contains the block, is refused with xDSL's message."""
    from xdsl.dialects import scf

    def attach() -> list[str]:
        out: list[str] = []
        block = Block()
        first = arith.ConstantOp.from_int_and_width(1, 32)
        block.add_op(first)
        out.append(str(first.parent is block))
        loop = scf.ForOp(first.result, first.result, first.result, [], Block())
        for target, op in ((block, first), (loop.body.block, loop)):
            # already attached; contains the block
            try:
                target.add_op(op)
            except ValueError as e:
                out.append(str(e))
        return out

    theirs, ours = _both(attach)
    assert ours == theirs
    assert isinstance(ours, list) and len(ours) == 3 and "contained in" in ours[2]


def _links(module: builtin.ModuleOp) -> list[object]:
    """Every block's ops forward and backward, and what the properties fast_ir computes
    in C give (next/previous op and block, first/last op and block, each op's operands,
    each value's type, owner, name and uses, each use's op, an integer's width), as
    identities."""
    out: list[object] = []
    for op in module.walk():
        out.append((id(op.next_op), id(op.prev_op)))
        out.append((type(op.operands).__name__, [id(v) for v in op.operands]))
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            out.append((id(value.type), id(value.owner), value.name_hint))
            out.append((type(value.uses).__name__, [id(u.operation) for u in value.uses]))
            if isinstance(value.type, builtin.IntegerType):
                out.append(value.type.bitwidth)
        for region in op.regions:
            out.append((id(region.first_block), id(region.last_block)))
            for block in region.blocks:
                out.append((id(block.first_op), id(block.last_op)))
                out.append((id(block.next_block), id(block.prev_block)))
                out.append([id(o) for o in block.ops])
                out.append([id(o) for o in reversed(block.ops)])
    return out


def test_block_ops_and_links_are_xdsls_at_every_stage(xdsl_as_is: None) -> None:
    count = 0
    for module in _stages():
        theirs, ours = _both(lambda module=module: _links(module))
        assert ours == theirs
        assert isinstance(ours, list)
        count += len(ours)
    assert count > 1000


def _changing_block_iteration(reverse: bool) -> tuple[list[str], str]:
    """Iterate a block's ops (`block.ops` or reversed) while erasing the next one where
    it is an unused constant, inserting ops after and before each `addi` and renaming its
    result (the setter the property keeps): the names met and the IR after."""
    from xdsl.parser import Parser

    module = Parser(make_context(), CHANGING).parse_module()
    fn = module.body.block.first_op
    assert fn is not None
    block = fn.regions[0].blocks.first
    assert block is not None
    names: list[str] = []
    iterator = reversed(block.ops) if reverse else iter(block.ops)
    for n, op in enumerate(iterator):
        names.append(op.name)
        neighbour = op.prev_op if reverse else op.next_op
        if isinstance(neighbour, arith.ConstantOp) and not neighbour.result.uses:
            neighbour.detach()  # the op the iteration read as the next one
            neighbour.erase()
        if isinstance(op, arith.AddiOp):
            block.insert_op_after(arith.ConstantOp.from_int_and_width(7, 32), op)
            block.insert_op_before(arith.ConstantOp.from_int_and_width(8, 32), op)
            op.result.name_hint = f"sum{n}"
    return names, str(module)


@pytest.mark.parametrize("reverse", [False, True])
def test_iterating_a_changing_block_sees_what_xdsls_sees(xdsl_as_is: None, reverse: bool) -> None:
    theirs, ours = _both(lambda: _changing_block_iteration(reverse))
    assert ours == theirs


def test_ir_identity_hashes_are_objects(xdsl_as_is: None) -> None:
    """Installed, an op's, block's, region's and value's hash is `object`'s (in C; not
    `id`: sets of them iterate in another order) and equality stays identity."""
    op = arith.ConstantOp.from_int_and_width(1, 32)
    other = arith.ConstantOp.from_int_and_width(1, 32)
    block = Block([op])
    region = Region(Block())
    things = (op, op.result, block, block.args, region)
    fast_ir.install()
    try:
        for thing in (op, op.result, block, region):
            assert hash(thing) == object.__hash__(thing)
        assert op != other and op.result != other.result and op == op
        assert len({op, other, op, op.result, op.result}) == 3
    finally:
        fast_ir.uninstall()
    assert hash(op) == id(op) and things
