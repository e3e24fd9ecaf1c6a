"""Canonicalization patterns of nv_tileaa (seed 004, "Canonicalization Surface").

Each pattern states the seed's safety condition it checks before rewriting.  Shape
folds and memory folds are registered together: a shape fold often exposes a memory
fold on the next iteration (a mask that becomes a splat constant).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileaa import ops as aa


def splat_source(value: SSAValue) -> SSAValue | None:
    """The scalar a value is a splat of, if it is one."""
    if isinstance(value.owner, aa.SplatOp):
        return value.owner.src
    return None


def constant_bool(value: SSAValue) -> bool | None:
    """True/False when `value` is an i1 tile (or splat) that is constant everywhere."""
    owner = value.owner
    if isinstance(owner, aa.SplatOp):
        return constant_bool(owner.src)
    if isinstance(owner, ct.ConstantOp) and element_type(value.type) == IntegerType(1):
        data = owner.values().reshape(-1)
        if data.size and bool((data == data[0]).all()):
            return bool(data[0])
    return None


class FoldBroadcastOfSplat(RewritePattern):
    """`broadcast(splat(x))` -> `splat(x)`.  Safety: the new splat has exactly the
    broadcast's result type (element count and shape unchanged)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.BroadcastOp, rewriter: PatternRewriter) -> None:
        if (x := splat_source(op.src)) is not None and isinstance(op.result.type, TensorType):
            rewriter.replace(op, aa.SplatOp(x, op.result.type))


class FoldExpandDimsOfSplat(RewritePattern):
    """`expand_dims(splat(x))` -> `splat(x)` of the expanded type."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.ExpandDimsOp, rewriter: PatternRewriter) -> None:
        if (x := splat_source(op.src)) is not None:
            rewriter.replace(op, aa.SplatOp(x, op.result.type))


class FoldViewChain(RewritePattern):
    """`view(view(x))` -> `view(x)`; `view(splat(x))` -> `splat(x)`; a view to its
    own type disappears.  Safety: element count and final result type unchanged."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.ViewOp, rewriter: PatternRewriter) -> None:
        if op.src.type == op.result.type:
            rewriter.replace(op, [], [op.src])
            return
        inner = op.src.owner
        if isinstance(inner, aa.ViewOp):
            rewriter.replace(op, aa.ViewOp(inner.src, op.result.type))
            return
        if (x := splat_source(op.src)) is not None:
            t = op.result.type
            assert isinstance(t, TensorType)
            rewriter.replace(op, aa.SplatOp(x, t))


class FuseAddPtrChain(RewritePattern):
    """`addptr(addptr(p, a), b)` -> `addptr(p, a + b)`.  Safety: both offsets count
    elements of the same pointee (same pointer type) and have one integer type; a
    narrower offset is sign-extended first (the normalization the seed asks for)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.AddPtrOp, rewriter: PatternRewriter) -> None:
        inner = op.ptr.owner
        if not isinstance(inner, aa.AddPtrOp) or inner.ptr.type != op.ptr.type:
            return
        a, b = inner.offset, op.offset
        ta, tb = element_type(a.type), element_type(b.type)
        if not isinstance(ta, IntegerType) or not isinstance(tb, IntegerType):
            return
        wide = ta if ta.width.data >= tb.width.data else tb
        a = _extend(rewriter, op, a, wide)
        b = _extend(rewriter, op, b, wide)
        if shape_of(a.type) != shape_of(b.type):
            return
        total = ct.AddIOp.build_op([a, b])
        rewriter.insert(total)
        rewriter.replace(op, aa.AddPtrOp(inner.ptr, total.results[0]))


def _extend(rewriter: PatternRewriter, at: Operation, v: SSAValue, to: IntegerType) -> SSAValue:
    if element_type(v.type) == to:
        return v
    from tileir.dialects.cuda_tile.attributes import Signedness, SignednessAttr
    from tileir.dialects.cuda_tile.carriers import with_element

    ext = ct.ExtIOp.build_op(
        [v], with_element(v.type, to), signedness=SignednessAttr(Signedness.SIGNED)
    )
    rewriter.insert(ext)
    return ext.results[0]


class CanonicalizeMaskedLoad(RewritePattern):
    """A constant-true mask makes the load unmasked; a constant-false mask makes it
    read nothing: the result is the fallback (`other`) and the result token is the
    input token.  Safety: the fallback has exactly the load's result type (else the
    load is kept)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.LoadOp, rewriter: PatternRewriter) -> None:
        if op.mask is None:
            return
        value = constant_bool(op.mask)
        if value is True:
            new = aa.LoadOp(op.ptr, None, None, op.token, op.result.type)
            new.properties.update(
                {k: v for k, v in op.properties.items() if k.startswith("memory_")}
            )
            rewriter.replace(op, new)
        elif value is False and op.other is not None and op.other.type == op.result.type:
            token = op.token if op.token is not None else _fresh_token(rewriter)
            rewriter.replace(op, [], [op.other, token])


class CanonicalizeMaskedStore(RewritePattern):
    """A constant-true mask makes the store unmasked; a constant-false mask erases it
    and its token users see the input token.  Safety: a plain store has no effect
    besides the write."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.StoreOp, rewriter: PatternRewriter) -> None:
        if op.mask is None:
            return
        value = constant_bool(op.mask)
        if value is True:
            new = aa.StoreOp(op.ptr, op.value, None, op.token)
            new.properties.update(
                {k: v for k, v in op.properties.items() if k.startswith("memory_")}
            )
            rewriter.replace(op, new)
        elif value is False:
            token = op.token if op.token is not None else _fresh_token(rewriter)
            rewriter.replace(op, [], [token])


def _fresh_token(rewriter: PatternRewriter) -> SSAValue:
    t = aa.CreateMemTokenOp()
    rewriter.insert(t)
    return t.result


TILEAA_CANONICALIZATION_PATTERNS: tuple[RewritePattern, ...] = (
    FuseAddPtrChain(),
    CanonicalizeMaskedLoad(),
    CanonicalizeMaskedStore(),
    FoldExpandDimsOfSplat(),
    FoldViewChain(),
    FoldBroadcastOfSplat(),
)


def patterns_named(names: tuple[str, ...]) -> tuple[RewritePattern, ...]:
    """The registered pattern objects with these class names (the op traits' view)."""
    by_name = {type(p).__name__: p for p in TILEAA_CANONICALIZATION_PATTERNS}
    return tuple(by_name[n] for n in names if n in by_name)
