"""`cse`: xDSL's common subexpression elimination, with each op's key hashed once and
its class's traits asked once.

xDSL's `CommonSubexpressionElimination` keys its table of known ops by an
`OperationInfo` made afresh at every lookup: each `get`, each store and each check of
whether a user was visited hashes the op's name, attributes, properties, result types
and operands again, and every key comparison hashes both sides twice more.  It also asks
each op for its traits (`IsTerminator`, `IsolatedFromAbove`) and its memory effects by
walking the class's trait list.  On the llvm stage of a small kernel that was a tenth of
a compilation, as much as the lowering's own largest patterns.

This pass takes the same decisions in the same order, so that the IR it leaves is
xDSL's (tests/pytest/test_fast_rewriting.py compares them at both of the pipeline's
`cse` steps):

* a key (`_Key`) hashes the fields xDSL's `OperationInfo` hashes once, when it is made,
  and compares the fields xDSL compares.  A key is stored only for an op already
  visited, whose operands the pass no longer changes (it replaces uses only where no
  user was visited), so the stored hash stays the op's;
* the trait questions (`IsTerminator`, `IsolatedFromAbove`) are a class's, asked once
  per class;
* an op's memory effects are asked once per class where the class's effect traits give
  one set for every op (`dce._constant_effects`, as `dce` does), and every time where an
  op-level trait computes them (`scf.for` has the effects of its body).
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.ir import Block, Operation, Region, Use
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import (
    EffectInstance,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffectKind,
    get_effects,
)

from tileir.transforms.dce import _constant_effects, _would_be_trivially_dead


class _Key:
    """An op as a key of the table of known ops: xDSL's `OperationInfo`, hashed once.
    The part of the hash that the pass cannot change (name, attributes, properties,
    result types: it only replaces operands) is computed once per op and run, in
    `statics`: an op is keyed again when a value it uses is replaced (`unvisited`)."""

    __slots__ = ("hash", "name", "op")

    def __init__(self, op: Operation, statics: dict[Operation, tuple[str, int]]) -> None:
        self.op = op
        static = statics.get(op)
        if static is None:
            name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
            attributes, properties = op.attributes, op.properties
            static = statics[op] = (
                name,
                hash(
                    (
                        name,
                        sum(map(hash, attributes.items())) if attributes else 0,
                        sum(map(hash, properties.items())) if properties else 0,
                        hash(op.result_types),
                    )
                ),
            )
        self.name = static[0]
        self.hash = hash((static[1], hash(op.operands)))

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Key):
            return False
        a, b = self.op, other.op
        return (
            self.hash == other.hash
            and self.name == other.name
            and a.attributes == b.attributes
            and a.properties == b.properties
            and a.operands == b.operands
            and a.result_types == b.result_types
            and all(
                s.is_structurally_equivalent(o) for s, o in zip(a.regions, b.regions, strict=True)
            )
        )


@dataclass(frozen=True)
class _ClassFacts:
    """What CSE asks of an op that its class alone answers."""

    terminator: bool
    isolated: bool  # may be isolated from above (xDSL assumes so where it cannot tell)
    #: The class's memory effects, the same for every op; None where an op-level trait
    #: computes them (then `effects_constant` is False).
    effects: Set[EffectInstance] | None
    effects_constant: bool


_FACTS: dict[type[Operation], _ClassFacts] = {}


def _facts(op: Operation) -> _ClassFacts:
    cls = type(op)
    facts = _FACTS.get(cls)
    if facts is None:
        constant = _constant_effects(cls)
        facts = _FACTS[cls] = _ClassFacts(
            terminator=op.has_trait(IsTerminator),
            isolated=op.has_trait(IsolatedFromAbove, value_if_unregistered=True),
            effects=frozenset(e) if constant and (e := get_effects(op)) is not None else None,
            effects_constant=constant,
        )
    return facts


def _effects(op: Operation) -> Set[EffectInstance] | None:
    """xDSL's `get_effects(op)`, from the class where the class decides it."""
    facts = _facts(op)
    return facts.effects if facts.effects_constant else get_effects(op)


def side_effect_free(op: Operation) -> bool:
    """xDSL's `is_side_effect_free(op)`, from the class where the class decides it."""
    effects = _effects(op)
    return effects is not None and len(effects) == 0


def _writes_between(from_op: Operation, to_op: Operation) -> bool:
    """xDSL's `has_other_side_effecting_op_in_between`: whether an op from `from_op` up to
    (not including) `to_op` may write."""
    op: Operation | None = from_op
    while op is not to_op:
        assert op is not None, "Incorrect order of ops in side-effect search"
        effects = _effects(op)
        if effects is None or any(e.kind is MemoryEffectKind.WRITE for e in effects):
            return True
        op = op.next_op
    return False


@dataclass
class _Driver:
    """xDSL's `CSEDriver` with `_Key`s and class facts (the module's docstring)."""

    rewriter: Rewriter = field(default_factory=Rewriter)
    to_erase: set[Operation] = field(default_factory=set[Operation])
    known: dict[_Key, Operation] = field(default_factory=dict[_Key, Operation])
    #: `_Key`'s per-op part of the hash.
    statics: dict[Operation, tuple[str, int]] = field(
        default_factory=dict[Operation, tuple[str, int]]
    )

    def replace_and_delete(self, op: Operation, existing: Operation) -> None:
        def unvisited(use: Use) -> bool:
            return _Key(use.operation, self.statics) not in self.known

        for o, n in zip(op.results, existing.results, strict=True):
            if all(unvisited(u) for u in o.uses):
                o.replace_all_uses_with(n)
        if all(not r.uses for r in op.results):
            self.to_erase.add(op)

    def simplify_operation(self, op: Operation) -> None:
        facts = _facts(op)
        if facts.terminator:
            return
        if not any(r.first_use is not None for r in op.results) and _would_be_trivially_dead(op):
            self.to_erase.add(op)
            return
        if any(len(region.blocks) > 1 for region in op.regions):
            return
        effects = facts.effects if facts.effects_constant else get_effects(op)
        if effects is None or len(effects) != 0:
            if effects is None or not all(e.kind == MemoryEffectKind.READ for e in effects):
                return
            key = _Key(op, self.statics)
            existing = self.known.get(key)
            if (
                existing
                and op.parent_block() is existing.parent_block()
                and not _writes_between(existing, op)
            ):
                self.replace_and_delete(op, existing)
                return
            self.known[key] = op
            return
        key = _Key(op, self.statics)
        if existing := self.known.get(key):
            self.replace_and_delete(op, existing)
            return
        self.known[key] = op

    def simplify_block(self, block: Block) -> None:
        for op in block.ops:
            if op.regions:
                if _facts(op).isolated:
                    outer = self.known
                    self.known = {}
                    for region in op.regions:
                        self.simplify_region(region)
                    self.known = outer
                else:
                    for region in op.regions:
                        self.simplify_region(region)
            self.simplify_operation(op)

    def simplify_region(self, region: Region) -> None:
        if len(region.blocks) == 1:
            outer = self.known
            self.known = dict(outer)
            self.simplify_block(region.block)
            self.known = outer

    def simplify(self, op: Operation) -> None:
        for region in op.regions:
            self.simplify_region(region)
        for o in self.to_erase:
            if o.parent is not None:
                self.rewriter.erase_op(o)


@dataclass(frozen=True)
class CommonSubexpressionElimination(ModulePass):
    """Replace an op by an identical one that dominates it, where neither has effects
    (or both only read and nothing writes between them); erase trivially dead ops."""

    name = "cse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _Driver().simplify(op)
