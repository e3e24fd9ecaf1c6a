"""The seven nv_tileas canonicalization patterns (seed 000 "Canonicalization Patterns").

| pattern | root | rewrite |
|---|---|---|
| `SimplifyExtractSlice` | `nv_tileas.extract_slice` | constant offsets/sizes/strides become static; static result type |
| `DecomposeLoopIterArgs` | `scf.for` | an iter-arg carrying an allocation chain becomes a fresh allocation in the body |
| `DecomposeIfByInsertSlice` | `scf.if` | a shared allocation/insertion chain is duplicated into each branch |
| `DecomposeIfByExtractSlice` | `scf.if` | a shared extraction (with the chain it reads) is sunk into each branch |
| `SwapViewAndExtractSlice` | `nv_tileas.extract_slice` | `extract_slice(view(x))` becomes `view(extract_slice(x))` |
| `CoalescePerfectlyNestedLoops` | `scf.for` | a perfect band of loops becomes one loop (`divsi`/`remsi` recover the ivs) |
| `SimplifyExtractFromInsert` | `nv_tileas.extract_slice` | `extract_slice(insert_slice(x, ...))` at the same place is `x` |

Every pattern checks its seed-given legality first, through the one shared predicate of
`interfaces.py`: `walk_tile_chain` for the SSA chains it matches (aborting at a
memory-consistency op or at anything that is neither pure tile structure nor a constant)
and `is_safe_to_rewrite` for the ops it moves, duplicates or erases.  No pattern moves,
duplicates or erases a memory-consistency op, none moves a pure op across one, and none
touches memory semantic, scope, in-bounds, padding or RMW attributes (the slice ops carry
none; discardable attributes of a rewritten op are copied to its replacement).

`tileas-canonicalize` runs all seven to a fixed point over the whole module.  The three
patterns rooted on `extract_slice` also run under xDSL's `canonicalize`, attached with
`HasCanonicalizationPatternsTrait`; the four rooted on `scf.for` / `scf.if` cannot be
attached to xDSL's own scf ops, so only `tileas-canonicalize` runs them.

What a rewrite leaves unused: each pattern's output is the seed's output.  The ops a
pattern *moves* (the allocation chain sunk into a loop or duplicated into branches, the
view swapped below a slice, the constants folded into a slice, the insert an extract
bypasses) are erased when nothing else uses them; ops inside a rewritten body are left
as the seed shows them (the decompose-loop output keeps its now-unused `insert_slice`),
for `dce` to remove.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, cast

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX as DYNAMIC_EXTENT
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.nv_tileas.interfaces import (
    ChainStop,
    TileChain,
    is_memory_consistency_op,
    is_safe_to_rewrite,
    walk_tile_chain,
)
from tileir.dialects.nv_tileas.ops import (
    AllocTensorOp,
    AsyncExtractSliceOp,
    AsyncInsertSliceOp,
    ExtractSliceOp,
    InsertSliceOp,
    ViewOp,
)
from tileir.dialects.nv_tileas.syntax import split_mixed
from tileir.dialects.nv_tileas.types import PipelineIteratorType, TiledViewType

Mixed = int | SSAValue

# ---------------------------------------------------------------------------
# Shared helpers.
# ---------------------------------------------------------------------------


def constant_int(value: SSAValue) -> int | None:
    """The integer an `arith.constant` defines (fold-aware constant indexing)."""
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def resolve(entry: Mixed) -> int | None:
    """A slice offset, size or stride as an integer, where it is one: static, an
    `arith.constant`, or folded through the index arithmetic `convert-tileaa-to-tileas`
    makes of cuda_tile's tile coordinates (`arith.index_cast` of a scalar
    `cuda_tile.constant`, times an `arith.muli` constant)."""
    if isinstance(entry, int):
        return entry
    op = entry.owner
    if isinstance(op, arith.IndexCastOp):
        return resolve(op.input)
    if isinstance(op, arith.MuliOp):
        lhs, rhs = resolve(op.lhs), resolve(op.rhs)
        return None if lhs is None or rhs is None else lhs * rhs
    if isinstance(op, ct.ConstantOp) and isinstance(entry.type, IntegerType):
        return int(op.first_value())
    return constant_int(entry)


def same_index(a: Mixed, b: Mixed) -> bool:
    """Equal as SSA values, or as constants after fold-aware comparison."""
    if isinstance(a, SSAValue) and a is b:
        return True
    ra, rb = resolve(a), resolve(b)
    return ra is not None and ra == rb


def is_alloc(op: Operation) -> bool:
    return isinstance(op, AllocTensorOp)


def is_insert(op: Operation) -> bool:
    return isinstance(op, InsertSliceOp)


def is_inside(op: Operation, region: Region) -> bool:
    """Is `op` (transitively) inside `region`?"""
    parent: Region | None = op.parent_region()
    while parent is not None:
        if parent is region:
            return True
        owner = parent.parent_op()
        parent = owner.parent_region() if owner is not None else None
    return False


def with_shape(t: Attribute, shape: Sequence[int]) -> Attribute:
    """`t` with another shape (a tensor keeps its encoding, a view its residency, strides
    and layout)."""
    if isinstance(t, TensorType):
        return TensorType(t.element_type, list(shape), t.encoding)
    assert isinstance(t, TiledViewType)
    return TiledViewType(
        shape,
        t.element_type,
        t.residency_kind,
        [s.data for s in t.strides],
        t.layout_attr,
    )


def cast_to(
    rewriter: PatternRewriter, value: SSAValue, target: Attribute, before: Operation
) -> SSAValue | None:
    """`value` as `target` (a `tensor.cast` between compatible tensor types, as MLIR's
    canonicalizers insert when a result type becomes more static), or None."""
    if value.type == target:
        return value
    source = value.type
    if not isinstance(source, TensorType) or not isinstance(target, TensorType):
        return None
    if source.element_type != target.element_type or source.get_num_dims() != len(
        target.get_shape()
    ):
        return None
    for a, b in zip(source.get_shape(), target.get_shape(), strict=True):
        if a != DYNAMIC_EXTENT and b != DYNAMIC_EXTENT and a != b:
            return None
    # Imported here: xdsl.dialects.tensor costs 4 ms at startup, for this one op.
    from xdsl.dialects.tensor import CastOp

    cast = rewriter.insert(CastOp(value, target), InsertPoint.before(before))
    cast.dest.name_hint = value.name_hint
    return cast.dest


def erase_if_unused(rewriter: PatternRewriter, ops: Sequence[Operation]) -> None:
    """Erase `ops`, in order, when they have no uses left and are safe to erase."""
    for op in ops:
        if (
            op.parent is not None
            and all(not r.uses for r in op.results)
            and is_safe_to_rewrite([op])
        ):
            rewriter.erase(op)


def storage_root(value: SSAValue) -> SSAValue:
    """The storage a tile value lives in: where its pure tile-structure chain starts (an
    allocation, a block argument, or the first op that is not a chain op)."""
    chain = walk_tile_chain(value)
    if chain.stop is ChainStop.ORIGIN:
        return chain.ops[-1].results[0]
    return chain.end


def memory_consistency_between(first: Operation, last: Operation) -> Operation | None:
    """A memory-consistency op strictly between `first` and `last` (same block), looking
    into nested regions, or None."""
    op = first.next_op
    while op is not None and op is not last:
        for nested in op.walk():
            if is_memory_consistency_op(nested):
                return nested
        op = op.next_op
    return None


def index_constant(
    rewriter: PatternRewriter, value: int, t: Attribute, at: InsertPoint
) -> SSAValue:
    return rewriter.insert(
        arith.ConstantOp(IntegerAttr(value, cast(IntegerType | IndexType, t))), at
    ).result


# ---------------------------------------------------------------------------
# Simplify extract slice.
# ---------------------------------------------------------------------------


class SimplifyExtractSlice(RewritePattern):
    """Seed 000 "Simplify Extract Slice": an `extract_slice` whose offset, size and stride
    operands are all `arith.constant` values becomes the same slice with static offsets,
    sizes and strides, and a result type that bakes those sizes into its static shape
    (`%src[%c0, %c0][%c64, %c64][%c1, %c1] : tensor<128x128xf32> to tensor<?x?xf32>` →
    `%src[0, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>`).

    Legality: every offset, size, and stride operand must resolve to a non-negative integer
    constant (strides at least 1, the static slice inside a static extent).  A non-constant
    operand blocks the rewrite.  The slice op carries no memory-ordering attributes; its
    discardable attributes are kept.

    Users that need the old, less static type get a `tensor.cast` of the new result (as
    MLIR's canonicalizers do); a sub-view keeps its type.  Constants left unused are
    erased."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ExtractSliceOp, rewriter: PatternRewriter) -> None:
        dynamic = [*op.offsets, *op.sizes, *op.strides]
        if not is_safe_to_rewrite([op]):
            return
        lists: list[list[int]] = []
        for entries, least in (
            (op.mixed_offsets(), 0),
            (op.mixed_sizes(), 0),
            (op.mixed_strides(), 1),
        ):
            values = [resolve(e) for e in entries]
            if any(v is None or v < least for v in values):
                return
            lists.append([v for v in values if v is not None])
        offsets, sizes, strides = lists
        source_shape = _shape(op.source.type)
        for off, size, stride, extent in zip(offsets, sizes, strides, source_shape, strict=True):
            if extent != DYNAMIC_EXTENT and size > 0 and off + (size - 1) * stride >= extent:
                return
        old_type = op.result.type
        new_type = with_shape(old_type, sizes) if isinstance(old_type, TensorType) else old_type
        if not dynamic and new_type == old_type:
            return
        new = ExtractSliceOp(op.source, offsets, sizes, strides, result_type=new_type)
        new.attributes.update(op.attributes)
        rewriter.insert(new, InsertPoint.before(op))
        new.result.name_hint = op.result.name_hint
        replacement = cast_to(rewriter, new.result, old_type, op)
        assert replacement is not None
        rewriter.replace(op, [], [replacement])
        erase_if_unused(rewriter, [v.owner for v in dynamic if isinstance(v.owner, Operation)])


def _shape(t: Attribute) -> tuple[int, ...]:
    if isinstance(t, TensorType):
        return tuple(t.get_shape())
    assert isinstance(t, TiledViewType)
    return t.dims


# ---------------------------------------------------------------------------
# Decompose loop iter args.
# ---------------------------------------------------------------------------


class DecomposeLoopIterArgs(RewritePattern):
    """Seed 000 "Decompose Loop Iter Args": an `scf.for` iter-arg whose init traces back
    to `alloc_tensor` through a chain of `insert_slice` ops, and whose yielded value traces
    back to the same allocation through a parallel chain (through the iter-arg itself),
    loses that iter-arg: the allocation is sunk into the loop body (a fresh `alloc_tensor`
    at the top of the body replaces the iter-arg, so the body's insertion chain is
    re-emitted on it), the yield drops the value and the loop's signature contracts by
    exactly one iter-arg.  The init chain, moved into the loop, is erased when nothing
    else uses it.

    Legality (all must hold): the iter-arg init traces through a chain of pure
    tile-structure ops to a single `alloc_tensor` of the iter-arg's type; the yielded
    value traces through a parallel chain, inside the body, to the iter-arg (and so to the
    same allocation); no operation in either chain implements MemoryConsistencyOp (the
    chain walk aborts there, and at any op that is neither pure tile structure nor a
    constant); the loop result of that iter-arg has no use (the rewrite eliminates it).

    Legal because `alloc_tensor` is a pure tile constructor: re-emitting it inside the
    body gives a value with the same SSA semantics on every iteration."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        terminator = block.last_op
        if not isinstance(terminator, scf.YieldOp):
            return
        for k, init in enumerate(op.iter_args):
            match = self._match(op, block, terminator, k, init)
            if match is not None:
                self._rewrite(op, block, terminator, k, match, rewriter)
                return

    @staticmethod
    def _match(
        op: scf.ForOp, block: Block, terminator: scf.YieldOp, k: int, init: SSAValue
    ) -> tuple[AllocTensorOp, TileChain] | None:
        if op.results[k].uses:
            return None
        carried = block.args[k + 1]
        init_chain = walk_tile_chain(init, is_alloc)
        alloc = init_chain.sink
        if not isinstance(alloc, AllocTensorOp) or alloc.result.type != carried.type:
            return None
        yield_chain = walk_tile_chain(terminator.arguments[k], is_alloc, limit=block)
        if yield_chain.stop is not ChainStop.BLOCK_BOUNDARY or yield_chain.end is not carried:
            return None
        if not is_safe_to_rewrite([*init_chain.ops, *yield_chain.ops]):
            return None
        return alloc, init_chain

    @staticmethod
    def _rewrite(
        op: scf.ForOp,
        block: Block,
        terminator: scf.YieldOp,
        k: int,
        match: tuple[AllocTensorOp, TileChain],
        rewriter: PatternRewriter,
    ) -> None:
        alloc, init_chain = match
        carried = block.args[k + 1]
        fresh = AllocTensorOp(alloc.result.type, list(alloc.dynamic_sizes))
        fresh.attributes.update(alloc.attributes)
        rewriter.insert(fresh, InsertPoint.at_start(block))
        fresh.result.name_hint = carried.name_hint or alloc.result.name_hint
        rewriter.replace_all_uses_with(carried, fresh.result)
        rewriter.erase_block_argument(carried)
        kept = [v for i, v in enumerate(terminator.arguments) if i != k]
        rewriter.replace(terminator, scf.YieldOp(*kept))
        inits = [v for i, v in enumerate(op.iter_args) if i != k]
        body = rewriter.move_region_contents_to_new_regions(op.body)
        loop = scf.ForOp(op.lb, op.ub, op.step, inits, body)
        loop.attributes.update(op.attributes)
        results: list[SSAValue | None] = []
        new_results = iter(loop.results)
        for i in range(len(op.results)):
            results.append(None if i == k else next(new_results))
        rewriter.replace(op, loop, results)
        erase_if_unused(rewriter, init_chain.ops)


# ---------------------------------------------------------------------------
# Decompose if by insert / extract slice.
# ---------------------------------------------------------------------------


class DecomposeIfBase(RewritePattern):
    """Shared matching of the two branch decompositions."""

    #: Does this pattern take chains that enter the branches through an extract_slice
    #: (True) or through an insert_slice / the allocation itself (False)?
    BY_EXTRACT: ClassVar[bool] = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        if not op.results or not op.false_region.blocks:
            return
        then_yield = op.true_region.block.last_op
        else_yield = op.false_region.block.last_op
        if not isinstance(then_yield, scf.YieldOp) or not isinstance(else_yield, scf.YieldOp):
            return
        for k in range(len(op.results)):
            outer = self._match(op, then_yield.arguments[k], else_yield.arguments[k])
            if outer is not None:
                self._rewrite(op, outer, rewriter)
                return

    def _match(
        self, op: scf.IfOp, then_value: SSAValue, else_value: SSAValue
    ) -> list[Operation] | None:
        chains = [walk_tile_chain(v, is_alloc) for v in (then_value, else_value)]
        sinks = {id(c.sink) for c in chains}
        if any(c.sink is None for c in chains) or len(sinks) != 1:
            return None
        block = op.parent_block()
        if block is None:
            return None
        outer: list[Operation] = []
        for chain in chains:
            if not is_safe_to_rewrite(chain.ops):
                return None
            for chain_op in chain.ops:
                if op.is_ancestor(chain_op) or chain_op in outer:
                    continue
                if chain_op.parent_block() is not block:
                    return None
                outer.append(chain_op)
        outer.sort(key=block.get_operation_index)
        # The allocation has no live use outside the scf.if: every use of the moved
        # chain is another op of it or sits inside a branch.
        entries: list[Operation] = []
        for chain_op in outer:
            for result in chain_op.results:
                for use in result.uses:
                    if op.is_ancestor(use.operation):
                        if chain_op not in entries:
                            entries.append(chain_op)
                    elif use.operation not in outer:
                        return None
        if any(isinstance(e, ExtractSliceOp) for e in entries) != self.BY_EXTRACT:
            return None
        if memory_consistency_between(outer[0], op) is not None:
            return None
        return outer

    @staticmethod
    def _rewrite(op: scf.IfOp, outer: list[Operation], rewriter: PatternRewriter) -> None:
        for region in (op.true_region, op.false_region):
            block = region.block
            mapping: dict[SSAValue, SSAValue] = {}
            anchor = InsertPoint.at_start(block)
            clones: list[Operation] = []
            for original in outer:
                clone = original.clone()
                for i, operand in enumerate(clone.operands):
                    if operand in mapping:
                        clone.operands[i] = mapping[operand]
                rewriter.insert(clone, anchor)
                anchor = InsertPoint.after(clone)
                clones.append(clone)
                for old, new in zip(original.results, clone.results, strict=True):
                    mapping[old] = new
                    new.name_hint = old.name_hint
            for original, clone in zip(outer, clones, strict=True):
                for old, new in zip(original.results, clone.results, strict=True):
                    rewriter.replace_uses_with_if(
                        old, new, lambda use, r=region: is_inside(use.operation, r)
                    )
        erase_if_unused(rewriter, list(reversed(outer)))


class DecomposeIfByInsertSlice(DecomposeIfBase):
    """Seed 000 "Decompose If by Insert Slice": when both branches of an `scf.if` yield a
    tile that traces back, through pure tile-structure chains, to one `alloc_tensor` whose
    chain (the allocation and its insertions) is shared from before the `scf.if`, each
    branch gets its own copy of that allocation/insertion chain at its start and works on
    it; the shared chain is erased.  The chain enters the branches through an
    `insert_slice` (or the allocation itself).

    Legality: both branches' yielded values trace back to the same allocation through
    pure tile-structure chains; no chain crosses a memory-consistency op; the allocation
    (and every value of the shared chain) has no live use outside the `scf.if`; the shared
    chain sits in the `scf.if`'s block and no memory-consistency op lies between it and
    the `scf.if` (the copies would move across it).

    Duplicating the allocation per branch is what makes the rewrite safe: it never creates
    a shared mutable tile across the two branches.  (`alloc_tensor` has an allocation
    effect, so CSE cannot merge the copies back.)"""

    BY_EXTRACT = False


class DecomposeIfByExtractSlice(DecomposeIfBase):
    """Seed 000 "Decompose If by Extract Slice": when both branches of an `scf.if` yield
    values that trace back to one shared allocation through a chain that enters the
    branches through an `extract_slice` defined before the `scf.if`, the extraction is
    sunk into each branch, together with the allocation/insertion chain it reads, so that
    each branch performs its own allocation and slice work; the shared chain is erased.

    Legality: as for the insert-slice decomposition: both branches' yielded values trace
    back to the same allocation through pure tile-structure chains; no chain crosses a
    memory-consistency op; the allocation and the extraction have no live use outside the
    `scf.if`; no memory-consistency op lies between the shared chain and the `scf.if`."""

    BY_EXTRACT = True


# ---------------------------------------------------------------------------
# Swap view and extract slice.
# ---------------------------------------------------------------------------


def view_commutes_with_slices(view: ViewOp) -> bool:
    """Does slicing commute with `view`?  True for a view that maps each tile coordinate
    to the same coordinate of its source tile (a view of a tensor of global pointers, one
    element per pointer, of a register tile, or of a dense view of the same shape and
    residency), with no sub-view indices, no explicit strides and no layout, or a value
    view (tensor result) that keeps its source's shape: slicing the source and viewing
    the slice then gives the same value as viewing the source and slicing the view."""
    t = view.result.type
    source = view.src.type
    if view.indices:
        return False
    if isinstance(t, TensorType):
        # A value view that keeps the shape only relabels the layout of the same values.
        return isinstance(source, TensorType) and source.get_shape() == t.get_shape()
    if not isinstance(t, TiledViewType):
        return False
    if t.strides.data or t.layout_attr is not None:
        return False
    if isinstance(source, TiledViewType):
        # A view of a dense view (no strides, no layout) of the same shape and residency
        # relabels nothing: slicing commutes with it.
        return (
            not source.strides.data
            and source.layout_attr is None
            and source.dims == t.dims
            and source.residency_kind == t.residency_kind
        )
    if not isinstance(source, TensorType):
        return False
    return tuple(source.get_shape()) == t.dims


class SwapViewAndExtractSlice(RewritePattern):
    """Seed 000 "Swap View and Extract Slice": `extract_slice(view(x))` becomes
    `view(extract_slice(x))`: the slice is taken of the underlying storage at the same
    offsets, sizes and strides, and the slice is re-viewed (the sub-view's type is kept).
    The view, left unused, is erased.

    Legality: the view's layout transformation commutes with the slice: the view has no
    sub-view indices and its shape is its source tile's shape (one view element per
    source element); a tiled view has no explicit strides and no layout (and a view
    source has none either, and the same residency); a value view (tensor result) may
    change only the layout encoding.  Slicing then viewing and viewing then slicing give
    the same value.  The chain from the slice to the view
    crosses no memory-consistency op (both are pure tile structure)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ExtractSliceOp, rewriter: PatternRewriter) -> None:
        chain = walk_tile_chain(op.source, lambda o: isinstance(o, ViewOp))
        view = chain.sink
        if not isinstance(view, ViewOp) or chain.ops != [view]:
            return
        if not view_commutes_with_slices(view) or not is_safe_to_rewrite([op, view]):
            return
        result_type = op.result.type
        sliced_type = with_shape(view.src.type, _shape(result_type))
        sliced = ExtractSliceOp(
            view.src,
            op.mixed_offsets(),
            op.mixed_sizes(),
            op.mixed_strides(),
            result_type=sliced_type,
        )
        sliced.attributes.update(op.attributes)
        assert isinstance(result_type, TiledViewType | TensorType)
        new_view = ViewOp(sliced.result, result_type)
        new_view.attributes.update(view.attributes)
        rewriter.replace(op, [sliced, new_view])
        erase_if_unused(rewriter, [view])


# ---------------------------------------------------------------------------
# Coalesce perfectly nested loops.
# ---------------------------------------------------------------------------


def constant_bounds(loop: scf.ForOp) -> tuple[int, int, int] | None:
    bounds = (constant_int(loop.lb), constant_int(loop.ub), constant_int(loop.step))
    if any(b is None for b in bounds):
        return None
    lb, ub, step = bounds
    assert lb is not None and ub is not None and step is not None
    return (lb, ub, step) if step > 0 else None


def trip_count(lb: int, ub: int, step: int) -> int:
    return max(0, -(-(ub - lb) // step))


def _only_loop(loop: scf.ForOp) -> scf.ForOp | None:
    """The loop nested perfectly in `loop` (its body holds that loop and the yield)."""
    ops = list(loop.body.block.ops)
    if len(ops) == 2 and isinstance(ops[0], scf.ForOp) and isinstance(ops[1], scf.YieldOp):
        return ops[0]
    return None


def _coalescible_inner(outer: scf.ForOp, inner: scf.ForOp) -> bool:
    """Can `inner` join a band under `outer`: no live iter-args (in particular no
    pipeline iterator), constant bounds and step, the same induction variable type."""
    if inner.iter_args or constant_bounds(inner) is None:
        return False
    return inner.body.block.args[0].type == outer.body.block.args[0].type


def perfect_band(outer: scf.ForOp) -> list[scf.ForOp]:
    """`outer` and the loops nested perfectly in it that can be coalesced with it."""
    band = [outer]
    while (inner := _only_loop(band[-1])) is not None and _coalescible_inner(band[-1], inner):
        band.append(inner)
    return band


def carries_iterator(loop: scf.ForOp) -> bool:
    return any(isinstance(v.type, PipelineIteratorType) for v in loop.iter_args)


class CoalescePerfectlyNestedLoops(RewritePattern):
    """Seed 000 "Coalesce Perfectly Nested Loops": an outer `scf.for` whose body holds only
    an inner `scf.for` (and the terminator) is flattened with it: the merged loop runs from
    0 to the product of the two iteration counts with step 1, and re-derives the original
    induction variables inside the body with `arith.divsi` / `arith.remsi` (then scaled by
    each loop's step and offset by its lower bound).  A band of several perfectly nested
    loops is flattened at once, from its outermost loop.

    Legality: the outer body must contain only the inner loop plus a terminator (any other
    operation would run a different number of times after the merge); neither loop has
    live iter-args (any iter-arg blocks, in particular a pipeline iterator: the merged
    loop's iteration count would no longer match the iterator's `count`, seed 002); the
    inner loop's bounds and step are constants (step positive); both induction variables
    have the same type.  The outer loop's bounds may be dynamic (its trip count is then
    computed as `(ub - lb + step - 1) / step`).

    Iterations run in the same order as before, so the body's ops, memory-consistency ops
    included, keep their dynamic order: nothing moves relative to anything else."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        if op.iter_args:
            return
        parent = op.parent_op()
        if (
            isinstance(parent, scf.ForOp)
            and not parent.iter_args
            and _only_loop(parent) is op
            and _coalescible_inner(parent, op)
        ):
            return  # The band starts further out: coalesce it from there.
        band = perfect_band(op)
        if len(band) < 2:
            return
        inner_counts: list[int] = []
        for loop in band[1:]:
            bounds = constant_bounds(loop)
            assert bounds is not None
            inner_counts.append(trip_count(*bounds))
        if any(n == 0 for n in inner_counts):
            return
        self._rewrite(op, band, inner_counts, rewriter)

    @staticmethod
    def _rewrite(
        op: scf.ForOp, band: list[scf.ForOp], inner_counts: list[int], rewriter: PatternRewriter
    ) -> None:
        iv_type = op.body.block.args[0].type
        before = InsertPoint.before(op)
        inner_total = 1
        for n in inner_counts:
            inner_total *= n

        def const(value: int, at: InsertPoint) -> SSAValue:
            return index_constant(rewriter, value, iv_type, at)

        outer_bounds = constant_bounds(op)
        if outer_bounds is not None:
            total = const(trip_count(*outer_bounds) * inner_total, before)
        else:
            span = op.ub
            if constant_int(op.lb) != 0:
                span = rewriter.insert(arith.SubiOp(op.ub, op.lb), before).result
            count = span
            if constant_int(op.step) != 1:
                one = const(1, before)
                bias = rewriter.insert(arith.SubiOp(op.step, one), before).result
                padded = rewriter.insert(arith.AddiOp(span, bias), before).result
                count = rewriter.insert(arith.DivSIOp(padded, op.step), before).result
            total = count
            if inner_total != 1:
                factor = const(inner_total, before)
                total = rewriter.insert(arith.MuliOp(count, factor), before).result
        zero = op.lb if constant_int(op.lb) == 0 else const(0, before)
        one = op.step if constant_int(op.step) == 1 else const(1, before)
        body = Block(arg_types=[iv_type])
        merged_iv = body.args[0]
        loop = scf.ForOp(zero, total, one, [], Region(body))
        loop.attributes.update(op.attributes)
        rewriter.insert(loop, before)

        at = InsertPoint.at_start(body)
        pending: list[Operation] = []

        def emit(new: Operation) -> SSAValue:
            pending.append(new)
            return new.results[0]

        def local_const(value: int) -> SSAValue:
            return emit(
                arith.ConstantOp(IntegerAttr(value, cast(IntegerType | IndexType, iv_type)))
            )

        def scale(norm: SSAValue, loop_: scf.ForOp) -> SSAValue:
            step_c, lb_c = constant_int(loop_.step), constant_int(loop_.lb)
            value = norm
            if step_c != 1:
                value = emit(
                    arith.MuliOp(value, loop_.step if step_c is None else local_const(step_c))
                )
            if lb_c != 0:
                value = emit(arith.AddiOp(value, loop_.lb if lb_c is None else local_const(lb_c)))
            return value

        ivs: list[SSAValue] = [merged_iv] * len(band)
        rest = merged_iv
        for position in range(len(band) - 1, 0, -1):
            n = inner_counts[position - 1]
            inner = band[position]
            if n == 1:
                norm = local_const(0)
            else:
                # The inner loop's upper bound is its trip count when it counts from 0 by 1.
                plain = constant_int(inner.lb) == 0 and constant_int(inner.step) == 1
                n_value = inner.ub if plain else local_const(n)
                norm = emit(arith.RemSIOp(rest, n_value))
                rest = emit(arith.DivSIOp(rest, n_value))
            ivs[position] = scale(norm, band[position])
        ivs[0] = scale(rest, band[0])
        for new in pending:
            rewriter.insert(new, at)
            at = InsertPoint.after(new)
        for original, iv in zip(band, ivs, strict=True):
            old_iv = original.body.block.args[0]
            if iv is not merged_iv and not iv.name_hint:
                iv.name_hint = old_iv.name_hint
            rewriter.replace_all_uses_with(old_iv, iv)
        innermost = band[-1].body.block
        for nested in list(innermost.ops):
            nested.detach()
            body.add_op(nested)
        rewriter.erase(op)


# ---------------------------------------------------------------------------
# Simplify extract from insert.
# ---------------------------------------------------------------------------


def _slice_parts(op: ExtractSliceOp | InsertSliceOp) -> list[list[Mixed]]:
    return [op.mixed_offsets(), op.mixed_sizes(), op.mixed_strides()]


def _touches_storage(op: Operation, root: SSAValue) -> bool:
    """Does `op` insert or extract a slice of the storage `root`?"""
    if isinstance(op, InsertSliceOp | AsyncInsertSliceOp):
        return storage_root(op.dest) is root
    if isinstance(op, ExtractSliceOp | AsyncExtractSliceOp):
        return storage_root(op.source) is root
    return False


class SimplifyExtractFromInsert(RewritePattern):
    """Seed 000 "Simplify Extract from Insert": `extract_slice(insert_slice(x, dst, o, s,
    t), o, s, t)` is `x`: when the extract reads exactly the region the insert wrote (the
    same offsets, sizes and strides) the inserted source is used directly, bypassing the
    storage round-trip.  (A `tensor.cast` bridges a difference in static extents.)  The
    insert, left unused, is erased.

    Legality: the offsets, sizes, and strides must be equal as SSA values (or as constants
    after fold-aware comparison: `%c0` equals a static `0`); no other operation may insert
    or extract a slice into the same storage region between the matched pair (the pair
    must sit in one block, and no slice op strictly between them, nested ones included,
    addresses the storage the insert writes into); the extract's source is the insert's
    result (the chain walk's fixed-point sink)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ExtractSliceOp, rewriter: PatternRewriter) -> None:
        chain = walk_tile_chain(op.source, is_insert)
        insert = chain.sink
        if not isinstance(insert, InsertSliceOp) or chain.ops != [insert]:
            return
        if not is_safe_to_rewrite([op, insert]):
            return
        for mine, theirs in zip(_slice_parts(op), _slice_parts(insert), strict=True):
            if not all(same_index(a, b) for a, b in zip(mine, theirs, strict=True)):
                return
        if insert.parent_block() is not op.parent_block():
            return
        root = storage_root(insert.dest)
        between = insert.next_op
        while between is not None and between is not op:
            if any(_touches_storage(nested, root) for nested in between.walk()):
                return
            between = between.next_op
        replacement = cast_to(rewriter, insert.source, op.result.type, op)
        if replacement is None:
            return
        rewriter.replace(op, [], [replacement])
        erase_if_unused(rewriter, [insert])


# ---------------------------------------------------------------------------
# The list the pass, the trait and the docs read.
# ---------------------------------------------------------------------------

#: The seven patterns, in seed 000's order.
PATTERNS: list[type[RewritePattern]] = [
    SimplifyExtractSlice,
    DecomposeLoopIterArgs,
    DecomposeIfByInsertSlice,
    DecomposeIfByExtractSlice,
    SwapViewAndExtractSlice,
    CoalescePerfectlyNestedLoops,
    SimplifyExtractFromInsert,
]

#: The patterns rooted on `extract_slice` (attached to it for xDSL's `canonicalize`).
EXTRACT_SLICE_PATTERNS: tuple[RewritePattern, ...] = (
    SimplifyExtractFromInsert(),
    SwapViewAndExtractSlice(),
    SimplifyExtractSlice(),
)


def tileas_canonicalization_patterns() -> list[RewritePattern]:
    """One instance of each pattern, in seed order."""
    return [p() for p in PATTERNS]


_ = (Callable, IndexType, IntegerType, split_mixed)
