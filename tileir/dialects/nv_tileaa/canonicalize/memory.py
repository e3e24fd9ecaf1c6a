"""Pointer and masked-memory folds (seed 004 rows "Pointer arithmetic", "Masked load",
"Masked store").

Masked folds keep tokens valid: a load that reads nothing returns its input token, a
store that writes nothing hands its input token to the users of its result token.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, IntegerType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import MemoryOrderingSemantics, Signedness, SignednessAttr
from tileir.dialects.cuda_tile.carriers import element_type, with_element
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileaa.canonicalize.constants import constant_bool
from tileir.utils.bits import storage_bytes


def sign_extend(rewriter: PatternRewriter, v: SSAValue, to: IntegerType) -> SSAValue:
    """`v` widened to `to` (offsets are signed)."""
    el = element_type(v.type)
    assert isinstance(el, IntegerType)
    if el == to:
        return v
    ext = ct.ExtIOp.build_op(
        [v], with_element(v.type, to), signedness=SignednessAttr(Signedness.SIGNED)
    )
    rewriter.insert(ext)
    return ext.results[0]


def scale(rewriter: PatternRewriter, v: SSAValue, factor: int) -> SSAValue:
    if factor == 1:
        return v
    c = ct.ConstantOp.splat(factor, v.type)
    mul = ct.MulIOp.build_op([v, c.result])
    rewriter.insert([c, mul])
    return mul.results[0]


class FuseAddPtrChain(RewritePattern):
    """`fuse_addptr_chain`: `addptr(addptr(p, a), b)` -> `addptr(p, a + b)`, also across a
    `cuda_tile.ptr_to_ptr` that changes the element type: `addptr(ptr_to_ptr(addptr(p,
    a)), b)` -> `addptr(ptr_to_ptr(p), a * (size(inner) / size(outer)) + b)`.

    Safety: both offsets are normalized to the same element units and width before
    adding: each is sign-extended to i64 (the addresses' width, so the sum cannot wrap
    where the separate offsets would not) and the inner offset is scaled from its
    element size to the outer one; the fold is blocked when the outer element size does
    not divide the inner one (the inner offset is not a whole number of outer
    elements).  cuda_tile pointers are all global, so both share an address space."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.AddPtrOp, rewriter: PatternRewriter) -> None:
        base = op.ptr.owner
        cast: ct.PtrToPtrOp | None = None
        if isinstance(base, ct.PtrToPtrOp):
            cast = base
            base = base.args[0].owner
        if not isinstance(base, aa.AddPtrOp):
            return
        inner, outer = base, op
        factor = 1
        if cast is not None:
            inner_size = storage_bytes(inner.pointee)
            outer_size = storage_bytes(outer.pointee)
            if inner_size is None or outer_size is None or inner_size % outer_size:
                return
            factor = inner_size // outer_size
        ta, tb = element_type(inner.offset.type), element_type(outer.offset.type)
        if not isinstance(ta, IntegerType) or not isinstance(tb, IntegerType):
            return
        a = scale(rewriter, sign_extend(rewriter, inner.offset, i64), factor)
        b = sign_extend(rewriter, outer.offset, i64)
        total = ct.AddIOp.build_op([a, b])
        rewriter.insert(total)
        pointers = inner.ptr
        if cast is not None:
            retyped = ct.PtrToPtrOp.build_op(
                [inner.ptr], with_element(inner.ptr.type, element_type(op.ptr.type))
            )
            rewriter.insert(retyped)
            pointers = retyped.results[0]
        rewriter.replace(op, aa.AddPtrOp(pointers, total.results[0]))


def _orders_other_accesses(op: aa.MemoryOrderedOp) -> bool:
    """Acquire and release accesses order other accesses besides their own; keep them
    even when they touch no element."""
    return op.semantics() not in (MemoryOrderingSemantics.WEAK, MemoryOrderingSemantics.RELAXED)


def input_token_or_fresh(rewriter: PatternRewriter, token: SSAValue | None) -> SSAValue:
    if token is not None:
        return token
    return aa.CreateMemTokenOp.build_at(rewriter).result


def undefined_value(rewriter: PatternRewriter, t: Attribute) -> SSAValue | None:
    """A value for an undefined result: zeros (a refinement of undefined every later stage
    lowers); None where the element type has no zero constant (pointers)."""
    if not isinstance(element_type(t), IntegerType | AnyFloat):
        return None
    c = ct.ConstantOp.splat(0, t)
    rewriter.insert(c)
    return c.result


class CanonicalizeMaskedLoad(RewritePattern):
    """`canonicalize_masked_load`: a constant-true mask makes the load unmasked; a
    constant-false mask makes it read nothing, so its value is the fallback (`other`,
    or zeros for an undefined result) and its result token is the input token.

    Safety: the fallback has exactly the load's result type; an acquire load is kept
    (it orders later accesses even when it reads nothing)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.LoadOp, rewriter: PatternRewriter) -> None:
        if op.mask is None:
            return
        value = constant_bool(op.mask)
        if value is True:
            new = aa.LoadOp(op.ptr, None, None, op.token, op.result.type)
            new.properties.update(op.memory_properties())
            rewriter.replace(op, new)
            return
        if value is not False or _orders_other_accesses(op):
            return
        if op.other is not None:
            if op.other.type != op.result.type:
                return
            fallback: SSAValue | None = op.other
        else:
            fallback = undefined_value(rewriter, op.result.type)
        if fallback is None:
            return
        rewriter.replace(op, [], [fallback, input_token_or_fresh(rewriter, op.token)])


class CanonicalizeMaskedStore(RewritePattern):
    """`canonicalize_masked_store`: a constant-true mask makes the store unmasked; a
    constant-false mask erases it and the users of its token see the input token.

    Safety: the store has no required side effect besides the write: weak and relaxed
    stores; a release store is kept (it orders earlier accesses)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.StoreOp, rewriter: PatternRewriter) -> None:
        if op.mask is None:
            return
        value = constant_bool(op.mask)
        if value is True:
            new = aa.StoreOp(op.ptr, op.value, None, op.token)
            new.properties.update(op.memory_properties())
            rewriter.replace(op, new)
        elif value is False and not _orders_other_accesses(op):
            rewriter.replace(op, [], [input_token_or_fresh(rewriter, op.token)])


MEMORY_PATTERNS: tuple[type[RewritePattern], ...] = (
    FuseAddPtrChain,
    CanonicalizeMaskedLoad,
    CanonicalizeMaskedStore,
)
