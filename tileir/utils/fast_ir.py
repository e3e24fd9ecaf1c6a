"""xDSL's most used IR primitives at a lower price, for a compiler process.

A warm compilation spends most of its time in xDSL's IR itself, in a few small methods
that every pass calls hundreds of thousands of times, each a chain of Python calls:

- **walks**: `op.walk()` is a generator per level of nesting (the op, each region, each
  block, the block's op iterator, and again for each nested op), so every op a walk
  yields passes through four or more generator frames and a Python `__next__`.  About
  fifty whole-module walks a compilation (the passes' scans, xDSL's pattern walker
  filling its worklist).
- **named operands and results** (`op.lhs`, `op.res`): a descriptor that builds an
  `OpOperands` view of the op, matches the construct kind, then indexes the view, which
  indexes `SSAValues`, whose `__getitem__` is Python too: five calls for `op.lhs`.
- **`op.results[0]`**: `SSAValues.__getitem__` is a Python override (it keeps a slice an
  `SSAValues`), an `isinstance` and a `super()` call for an index.
- **erasing a result nobody uses** (every erased op): xDSL builds an `ErasedSSAValue`
  to put in place of uses that do not exist.
- **attaching an op to a block** (every op inserted through xDSL's rewriter or
  builder): a walk from the block up to the top of the IR, to check that the op does
  not contain the block; an op without regions contains no block.
- **hashing an op, block, region or value** (every set and dict of them: dce's live
  set, the PTX printer's registers, the rewriter's worklist, ...): xDSL's `__hash__`
  is a Python method returning `id(self)`, 1.5 million calls over 28 held-out kernels;
  `object.__hash__` is the same identity hash in C (the value differs: `id` shifted,
  so a set of IR objects iterates in another order; equality stays identity).
- **a block's ops** (`for op in block.ops`, `reversed(block.ops)`): a Python `__next__`
  per op that reads the `next_op` property, another call: 1.8 million calls.
- **properties that return a field** (`next_op`, `prev_op`, `first_op`, `last_op`,
  `first_block`, `type`, `owner`, `name_hint`, a use's `operation`, an integer type's
  `bitwidth`) and **views** (`op.operands`, `value.uses`): a Python call each, about 3
  million over those kernels; the same properties with their getter in C
  (`operator.attrgetter`, or the view's class), setters kept.
- **`IsolatedFromAbove`'s check** (every function and module a verification meets):
  for each operand of each op inside, an `is_ancestor` walk from the value's owner up
  to the function, a Python call per level, and a trait lookup per op.  Here the
  owners inside are gathered first and each operand's owner is looked up among them;
  an operand found outside (an invalid module, or a value defined inside a nested
  isolated op) hands the op to xDSL's check, which raises its own error or passes.

`install` replaces these with versions that give the same answers in the same order
(the hashes aside: same equality, other values): the walks are one generator per nested
op with regions, reading xDSL's own links at the moments its iterators read them (an
op's successor when the op is yielded, its regions after the caller resumes), so a
caller that changes the IR while it walks sees what it saw, and so does a block's op
iteration (its first op read when the iteration starts); the accessors index the op's
operand and result tuples directly (what the view and `SSAValues` index); `SSAValues`
answers an `int` index with `tuple`'s own `__getitem__` (anything else as before); an
unused result's erasure returns at once (xDSL's would replace no use and throw its
`ErasedSSAValue` away).  Tests compare each with xDSL's original, including walks and
block iterations that erase and insert ops as they go.  With the other hash values (so
other orders of any set of IR objects), the PTX of the 117 tensor-core kernels on sm_90a
and sm_100a and of the corpus on sm_80, sm_90a and sm_100a is byte-identical.

Only the driver installs it, in the processes that compile (as
`tileir/utils/plain_isinstance.py`: `tileir-as` and the compile server before it forks
its workers); a Python session that imports tileir as a library keeps xDSL as it is.
"""

# pyright: reportPrivateUsage=false

from __future__ import annotations

from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects.builtin import IntegerType, UnregisteredOp
from xdsl.ir.core import (
    Block,
    BlockArgument,
    BlockOps,
    IRUses,
    IRWithName,
    IRWithUses,
    Operation,
    OpOperands,
    OpResult,
    Region,
    SSAValue,
    SSAValues,
    Use,
    _IRNode,
)
from xdsl.irdl import operations as irdl
from xdsl.traits import IsolatedFromAbove

_OPERAND = irdl.VarIRConstruct.OPERAND
_RESULT = irdl.VarIRConstruct.RESULT
_tuple_item = tuple.__getitem__


# -- walks -----------------------------------------------------------------------


def _nested(op: Operation, reverse: bool, region_first: bool) -> Iterator[Operation]:
    """The ops inside `op`'s regions, in xDSL's walk order."""
    regions = reversed(op.regions) if reverse else op.regions
    for region in regions:
        yield from _in_region(region, reverse, region_first)


def _in_region(region: Region, reverse: bool, region_first: bool) -> Iterator[Operation]:
    block = region._last_block if reverse else region._first_block
    while block is not None:
        following = block._prev_block if reverse else block._next_block
        yield from _in_block(block, reverse, region_first)
        block = following


def _in_block(block: Block, reverse: bool, region_first: bool) -> Iterator[Operation]:
    op = block._last_op if reverse else block._first_op
    while op is not None:
        following = op._prev_op if reverse else op._next_op
        if region_first:
            if op.regions:
                yield from _nested(op, reverse, True)
            yield op
        else:
            yield op
            if op.regions:
                yield from _nested(op, reverse, False)
        op = following


def _op_walk(
    self: Operation, *, reverse: bool = False, region_first: bool = False
) -> Iterator[Operation]:
    if not region_first:
        yield self
    yield from _nested(self, reverse, region_first)
    if region_first:
        yield self


def _block_walk(
    self: Block, *, reverse: bool = False, region_first: bool = False
) -> Iterator[Operation]:
    return _in_block(self, reverse, region_first)


def _region_walk(
    self: Region, *, reverse: bool = False, region_first: bool = False
) -> Iterator[Operation]:
    return _in_region(self, reverse, region_first)


# -- a block's ops -----------------------------------------------------------------


def _ops_from(op: Operation | None, forward: bool) -> Iterator[Operation]:
    while op is not None:
        following = op._next_op if forward else op._prev_op
        yield op
        op = following


def _block_ops_iter(self: BlockOps) -> Iterator[Operation]:
    return _ops_from(self.block._first_op, True)  # the first op read now, as xDSL's


def _block_ops_reversed(self: BlockOps) -> Iterator[Operation]:
    return _ops_from(self.block._last_op, False)


# -- fields behind properties --------------------------------------------------------


def _in_c(owner: type, name: str, getter: Callable[[Any], object]) -> property:
    """`owner`'s property `name` with the same setter and deleter, its getter `getter`,
    which computes in C what the original's Python code returns: a field
    (`operator.attrgetter`), or a view class called on the object."""
    original = owner.__dict__[name]
    assert isinstance(original, property), (owner, name)
    return property(getter, original.fset, original.fdel, original.__doc__)


# -- named operands and results ----------------------------------------------------


def _constructs(obj: Operation, construct: irdl.VarIRConstruct) -> Any:
    """What `irdl.get_op_constructs` gives the accessors to index, with the operands as
    the op's tuple of them (the view xDSL makes indexes that same tuple)."""
    if construct is _OPERAND:
        return obj._operands
    if construct is _RESULT:
        return obj.results
    return irdl.get_op_constructs(obj, construct)


def _single_get(self: irdl.BeforeVariadicSingleAccessor, obj: Operation, objtype: object = None):
    construct = self.construct
    if construct is _OPERAND:
        return _tuple_item(obj._operands, self.idx)
    if construct is _RESULT:
        return _tuple_item(obj.results, self.idx)
    return self.index(irdl.get_op_constructs(obj, construct))


def _base_get(self: irdl.BaseAccessor, obj: Operation, objtype: object = None):
    return self.index(_constructs(obj, self.construct))


def _segments_get(self: irdl.BaseAttrAccessor, obj: Operation, objtype: object = None):
    sizes = self.option.container(obj)[self.option.attribute_name]
    return self.index(sizes.get_values(), _constructs(obj, self.construct))  # pyright: ignore[reportAttributeAccessIssue,reportUnknownMemberType,reportUnknownArgumentType]


# -- values ------------------------------------------------------------------------

_original_getitem = SSAValues.__getitem__
_original_erase = SSAValue.erase


def _ssa_values_getitem(self: SSAValues[Any], idx: Any) -> Any:
    if idx.__class__ is int:
        return _tuple_item(self, idx)
    return _original_getitem(self, idx)


def _erase(self: SSAValue, safe_erase: bool = True) -> None:
    if self.first_use is None:
        return  # no use to replace: xDSL's ErasedSSAValue would go unused
    _original_erase(self, safe_erase)


# -- attaching ops -----------------------------------------------------------------


def _attach_op(self: Block, operation: Operation) -> None:
    """`Block._attach_op`: the same checks and errors, the walk up from the block (is
    `operation` an ancestor of it?) only for an op with regions."""
    if operation.parent:
        raise ValueError("Can't add to a block an operation already attached to a block.")
    if operation.regions and operation.is_ancestor(self):
        raise ValueError("Can't add an operation to a block contained in the operation.")
    operation.parent = self


# -- IsolatedFromAbove ---------------------------------------------------------------

#: Per op class (IRDL or unregistered: their traits are the class's): whether it is
#: isolated from above, as `has_trait(IsolatedFromAbove)` answers.
_ISOLATED: dict[type[Operation], bool] = {}


def _isolated(op: Operation) -> bool:
    cls = type(op)
    known = _ISOLATED.get(cls)
    if known is None:
        known = op.has_trait(IsolatedFromAbove)
        if issubclass(cls, irdl.IRDLOperation | UnregisteredOp):
            _ISOLATED[cls] = known
    return known


def _isolated_verify(self: IsolatedFromAbove, op: Operation) -> None:
    """`IsolatedFromAbove.verify`: the ops and blocks inside `op` (not looking into a
    nested isolated op, as xDSL's check does not) are gathered, then each operand of
    each of those ops must be owned by one of them, that is by a descendant of `op`
    (never `op`): then xDSL's check passes.  Otherwise xDSL's check runs."""
    inside: set[int] = set()
    users: list[Operation] = []
    regions = list(op.regions)
    while regions:
        region = regions.pop()
        block = region._first_block
        while block is not None:
            inside.add(id(block))
            child = block._first_op
            while child is not None:
                inside.add(id(child))
                users.append(child)
                if child.regions and not _isolated(child):
                    regions += child.regions
                child = child._next_op
            block = block._next_block
    for child in users:
        for operand in child._operands:
            if id(operand.owner) not in inside:
                original = _originals[IsolatedFromAbove, "verify"]
                original(self, op)  # pyright: ignore[reportCallIssue]
                return


#: (owner, name, replacement) of each method `install` replaces.
_REPLACEMENTS: tuple[tuple[type, str, Callable[..., Any] | property], ...] = (
    (Operation, "walk", _op_walk),
    (Block, "walk", _block_walk),
    (Region, "walk", _region_walk),
    (irdl.BaseAccessor, "__get__", _base_get),
    (irdl.BeforeVariadicSingleAccessor, "__get__", _single_get),
    (irdl.BaseAttrAccessor, "__get__", _segments_get),
    (SSAValues, "__getitem__", _ssa_values_getitem),
    (SSAValue, "erase", _erase),
    (IsolatedFromAbove, "verify", _isolated_verify),
    (Block, "_attach_op", _attach_op),
    # Identity hashes in C (module docstring: "hashes").
    (SSAValue, "__hash__", object.__hash__),
    (_IRNode, "__hash__", object.__hash__),
    (irdl.IRDLOperation, "__hash__", object.__hash__),
    (BlockOps, "__iter__", _block_ops_iter),
    (BlockOps, "__reversed__", _block_ops_reversed),
    *(
        (owner, name, _in_c(owner, name, getter))
        for owner, name, getter in (
            (Operation, "next_op", attrgetter("_next_op")),
            (Operation, "prev_op", attrgetter("_prev_op")),
            (Block, "first_op", attrgetter("_first_op")),
            (Block, "last_op", attrgetter("_last_op")),
            (Block, "next_block", attrgetter("_next_block")),
            (Block, "prev_block", attrgetter("_prev_block")),
            (Region, "first_block", attrgetter("_first_block")),
            (Region, "last_block", attrgetter("_last_block")),
            (SSAValue, "type", attrgetter("_type")),
            (OpResult, "owner", attrgetter("op")),
            (BlockArgument, "owner", attrgetter("block")),
            (IRWithName, "name_hint", attrgetter("_name")),
            (Use, "operation", attrgetter("_operation")),
            (Builder, "name_hint", attrgetter("_name_hint")),
            (IntegerType, "bitwidth", attrgetter("width.data")),
            (Operation, "operands", OpOperands),  # `OpOperands(self)`
            (IRWithUses, "uses", IRUses),  # `IRUses(self)`
        )
    ),
)

#: The originals, by (owner, name), while installed.
_originals: dict[tuple[type, str], object] = {}


def install() -> None:
    """Replace xDSL's methods with this module's (once)."""
    if _originals:
        return
    for owner, name, replacement in _REPLACEMENTS:
        _originals[owner, name] = owner.__dict__.get(name)
        setattr(owner, name, replacement)


def uninstall() -> None:
    """Put xDSL's methods back."""
    for (owner, name), original in _originals.items():
        if original is None:
            delattr(owner, name)
        else:
            setattr(owner, name, original)
    _originals.clear()


def installed() -> bool:
    return bool(_originals)
