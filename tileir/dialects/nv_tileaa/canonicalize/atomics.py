"""Atomic identities (seed 004 row "Atomic identities", "Atomic Folds").

Strength reductions, not permission to erase memory ordering: an atomic whose write
cannot change memory becomes an atomic load with the same ordering and scope, whose
result token follows the input token and the read (`sequence_after`); an atomic that
touches no element hands its input token on.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import AtomicRMWMode, MemoryOrderingSemantics
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileaa.canonicalize.constants import (
    constant_bool,
    uniform_constant,
)
from tileir.dialects.nv_tileaa.canonicalize.memory import input_token_or_fresh, undefined_value
from tileir.utils.numeric import numpy_bits

#: The ordering a load keeps for an atomic's: a load cannot release, so atomics with
#: release semantics are not reduced (their write orders earlier accesses).
LOAD_ORDERING = {
    MemoryOrderingSemantics.RELAXED: MemoryOrderingSemantics.RELAXED,
    MemoryOrderingSemantics.ACQUIRE: MemoryOrderingSemantics.ACQUIRE,
}


def is_rmw_identity(mode: AtomicRMWMode, el: object, value: int | float) -> bool:
    """Whether `old MODE value == old` for every `old` of element type `el` (a true
    algebraic identity): 0 for add, or, xor and umax; all bits set for and and umin; the
    signed minimum for max and maximum for min; -0.0 for addf (+0.0 is not one:
    -0.0 + +0.0 = +0.0).  xchg has none."""
    if isinstance(el, IntegerType):
        w = el.width.data
        u = int(value) & ((1 << w) - 1)
        identities = {
            AtomicRMWMode.ADD: 0,
            AtomicRMWMode.OR: 0,
            AtomicRMWMode.XOR: 0,
            AtomicRMWMode.UMAX: 0,
            AtomicRMWMode.AND: (1 << w) - 1,
            AtomicRMWMode.UMIN: (1 << w) - 1,
            AtomicRMWMode.MAX: 1 << (w - 1),
            AtomicRMWMode.MIN: (1 << (w - 1)) - 1,
        }
        return mode in identities and u == identities[mode]
    if isinstance(el, AnyFloat) and mode is AtomicRMWMode.ADDF:
        return value == 0.0 and math.copysign(1.0, value) < 0
    return False


def exchange_value_proven_present(op: aa.AtomicRmwOp) -> bool:
    """The proof an `xchg` fold needs: that the value exchanged is already in memory.
    A constant, even one equal to a compare operand elsewhere, is no proof unless that
    compare takes part in the same atomic contract; nv_tileaa has no analysis that
    establishes it, so nothing proves it and `xchg` is never reduced."""
    return False


def atomic_load(
    rewriter: PatternRewriter,
    op: aa.AtomicRmwOp | aa.AtomicCasOp,
    ordering: MemoryOrderingSemantics,
) -> aa.LoadOp:
    """`atomic_load(op.address, op.ordering, op.scope)`: the same pointers, mask and
    input token; its result token is the ordering edge after the read."""
    return aa.LoadOp(op.ptr, op.mask, None, op.token, op.result.type, ordering, op.scope())


def _reduce_no_op(rewriter: PatternRewriter, op: aa.AtomicRmwOp | aa.AtomicCasOp) -> bool:
    """An atomic whose mask is off everywhere touches nothing: its old values are
    undefined and its token is its input token.  Only relaxed atomics (stronger ones
    order other accesses)."""
    if op.mask is None or constant_bool(op.mask) is not False:
        return False
    if op.semantics() is not MemoryOrderingSemantics.RELAXED:
        return False
    value = undefined_value(rewriter, op.result.type)
    if value is None:
        return False
    rewriter.replace(op, [], [value, input_token_or_fresh(rewriter, op.token)])
    return True


class FoldAtomicRmw(RewritePattern):
    """`fold_atomic_rmw`: an `atomic_rmw` whose operand is the mode's identity (add, or,
    xor with 0; and with all ones; umax 0, umin all ones, max/min the signed extremes;
    addf -0.0) becomes an atomic load with the same ordering, scope, mask and input
    token; an atomic that touches no element (constant-false mask) disappears.

    Safety: the selected mode has a true algebraic identity for the operand type;
    `xchg` only with a proof that the value is already present (none exists); release
    and acq_rel atomics are kept (a load cannot release), and so are non-relaxed
    atomics with an all-false mask."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.AtomicRmwOp, rewriter: PatternRewriter) -> None:
        if _reduce_no_op(rewriter, op):
            return
        ordering = LOAD_ORDERING.get(op.semantics())
        if ordering is None:
            return
        mode = op.rmw_mode()
        if mode is AtomicRMWMode.XCHG:
            if not exchange_value_proven_present(op):
                return
        else:
            value = uniform_constant(op.value)
            if value is None or not is_rmw_identity(mode, element_type(op.value.type), value):
                return
        load = atomic_load(rewriter, op, ordering)
        rewriter.replace(op, load)


def _bitwise_equal(a: int | float, b: int | float, el: Attribute) -> bool:
    """Two `uniform_constant`s of element type `el` with the same bits."""
    if isinstance(el, IntegerType):
        return a == b
    return numpy_bits(a, el) == numpy_bits(b, el)


class FoldAtomicCas(RewritePattern):
    """`fold_atomic_cas`: a compare-and-swap with constant compare and replacement that
    are bitwise equal cannot change memory, so it becomes an atomic load with the same
    ordering, scope, mask and input token.  Other constant operands that are splats of
    a scalar constant are rebuilt as `cuda_tile.constant` tiles (the canonical constant
    form); a relaxed atomic that touches no element (constant-false mask) disappears.

    Safety: both operands are compile-time constants and compare equal bit for bit
    (floats compare bitwise); release and acq_rel atomics are kept (a load cannot
    release), and so are non-relaxed atomics with an all-false mask."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.AtomicCasOp, rewriter: PatternRewriter) -> None:
        if _reduce_no_op(rewriter, op):
            return
        compare, value = uniform_constant(op.compare), uniform_constant(op.value)
        if compare is None or value is None:
            return
        same_type = element_type(op.compare.type) == element_type(op.value.type)
        if same_type and _bitwise_equal(compare, value, element_type(op.value.type)):
            ordering = LOAD_ORDERING.get(op.semantics())
            if ordering is not None:
                rewriter.replace(op, atomic_load(rewriter, op, ordering))
            return
        self.rebuild_with_constants(op, rewriter)

    @staticmethod
    def rebuild_with_constants(op: aa.AtomicCasOp, rewriter: PatternRewriter) -> None:
        operands = list(op.operands)
        changed = False
        for operand in (op.compare, op.value):
            if not isinstance(operand.owner, aa.SplatOp):
                continue
            scalar = uniform_constant(operand)
            assert scalar is not None
            if isinstance(element_type(operand.type), AnyFloat) and math.isnan(scalar):
                continue  # a NaN payload would not survive the rebuild
            const = ct.ConstantOp.splat(scalar, operand.type)
            rewriter.insert(const)
            operands[operands.index(operand)] = const.result
            changed = True
        if changed:
            op.operands = operands
            rewriter.notify_op_modified(op)


ATOMIC_PATTERNS: tuple[type[RewritePattern], ...] = (FoldAtomicCas, FoldAtomicRmw)

_ = SSAValue
