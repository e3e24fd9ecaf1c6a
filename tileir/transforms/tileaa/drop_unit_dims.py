"""`tileaa-drop-unit-dims`: store a tile that only gained a unit dimension at its own rank.

cuTile's batched kernels load one batch entry as a `1xMxK` tile, reshape it to `MxK` for
a 2-D `ct.mma`, and store the `MxN` result back through a `1xMxN` tile:

    %e = nv_tileaa.expand_dims %acc {axis = 0} : tensor<64x64xf32> -> tensor<1x64x64xf32>
    nv_tileaa.store weak %ptrs, %e, %mask : tensor<1x64x64x!ptr<f32>>, ...

Nothing moves between threads there, but layouts are chosen per rank: the 3-D pointer
and mask tiles take a 3-D blocked layout, the accumulator keeps the tensor cores'
(`#nv_tileas.mma`, 2-D only), and `expand_dims` wants its source in a slice of its
result's layout, so `tileas-assign-layouts` had to insert a `convert_layout` that sends
the whole accumulator through shared memory (64x64 f32: 16 KiB each way).

This pass stores `%acc` itself instead, through pointer and mask tiles with the unit
dimension dropped. The dropped tiles are rebuilt from their definitions, which for
pointer and mask arithmetic are shape ops and elementwise ops over `iota`s and
splats: `expand_dims` of that very axis gives its source back, a splat or broadcast
is made at the smaller shape, `expand_dims` of another axis and elementwise ops
(`addptr`, cuda_tile arithmetic and comparisons) are rebuilt over dropped operands.
Anything else is reshaped with `nv_tileaa.view`, which keeps the element order
(`reshape.py` lowers a view that keeps every element in its thread as a renaming).
The old chains lose their last user and are removed by the pipeline's DCE.

Legal because a unit dimension carries no index: element `(0, i, j)` of the 3-D tiles is
element `(i, j)` of the 2-D ones, for pointers, mask and value alike, so the same
addresses receive the same values under the same mask; the store's ordering, scope and
token are kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from tileir.dialects.cuda_tile.carriers import shape_of
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp
from tileir.dialects.nv_tileaa import ops as aa
from tileir.utils.rewriting import LocatedWalker


def _dropped_type(t: Attribute, axis: int) -> TensorType[Attribute]:
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    assert shape[axis] == 1, f"dimension {axis} of {t} is not a unit dimension"
    del shape[axis]
    return TensorType(t.element_type, shape)


@dataclass
class _Dropper:
    """Rebuilds tiles without one unit dimension, in front of `anchor`, sharing what was
    rebuilt already (a pointer tile and its mask often share index arithmetic)."""

    rewriter: PatternRewriter
    anchor: Operation
    done: dict[tuple[SSAValue, int], SSAValue]

    def _insert(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op, InsertPoint.before(self.anchor))
        return op.results[0]

    def drop(self, value: SSAValue, axis: int) -> SSAValue:
        key = (value, axis)
        if key not in self.done:
            self.done[key] = self._rebuild(value, axis)
        return self.done[key]

    def _rebuild(self, value: SSAValue, axis: int) -> SSAValue:
        new_type = _dropped_type(value.type, axis)
        op = value.owner
        if isinstance(op, aa.ExpandDimsOp):
            inserted = op.axis_value
            if inserted == axis or shape_of(new_type) == shape_of(op.src.type):
                # Unit dimensions do not change the row-major order of the elements: a
                # tile of the source's shape holding the same elements is the source.
                return op.src
            # The source lacks the inserted axis: the unit axis sits one lower in it
            # when it comes after the inserted one, and vice versa.
            source_axis = axis if axis < inserted else axis - 1
            src = self.drop(op.src, source_axis)
            return self._insert(aa.ExpandDimsOp(src, inserted if inserted < axis else inserted - 1))
        if isinstance(op, aa.SplatOp):
            return self._insert(aa.SplatOp(op.src, new_type))
        if isinstance(op, aa.BroadcastOp):
            return self._insert(aa.BroadcastOp(self.drop(op.operands[0], axis), new_type))
        if isinstance(op, aa.AddPtrOp):
            return self._insert(aa.AddPtrOp(self.drop(op.ptr, axis), self.drop(op.offset, axis)))
        if (
            isinstance(op, ElementwiseOp)
            and len(op.results) == 1
            and all(o.type == value.type or _same_shape(o.type, value.type) for o in op.operands)
        ):
            operands = [self.drop(o, axis) for o in op.operands]
            return self._insert(
                type(op).create(
                    operands=operands,
                    result_types=[new_type],
                    properties=dict(op.properties),
                    attributes=dict(op.attributes),
                )
            )
        return self._insert(aa.ViewOp(value, new_type))


def droppable(value: SSAValue, axis: int) -> bool:
    """Whether `_Dropper` rebuilds `value` without `axis` without ever making a rank-0
    tile (scalars are not tiles here): every tile it would rebuild keeps a dimension.

    A walk with a worklist and a seen set, not a recursion: a chain of thousands of
    elementwise ops overflowed Python's stack, and operands shared along the chain
    (`x = x * x`) made the recursion exponential."""
    seen: set[tuple[SSAValue, int]] = set()
    work = [(value, axis)]
    while work:
        key = work.pop()
        if key in seen:
            continue
        seen.add(key)
        value, axis = key
        if len(shape_of(value.type)) < 2:
            return False
        op = value.owner
        if isinstance(op, aa.ExpandDimsOp):
            inserted = op.axis_value
            shape = list(shape_of(value.type))
            del shape[axis]
            if not (inserted == axis or tuple(shape) == shape_of(op.src.type)):
                work.append((op.src, axis if axis < inserted else axis - 1))
        elif isinstance(op, aa.BroadcastOp):
            work.append((op.operands[0], axis))
        elif isinstance(op, aa.AddPtrOp):
            work += [(op.ptr, axis), (op.offset, axis)]
        elif isinstance(op, ElementwiseOp) and len(op.results) == 1:
            work += [(o, axis) for o in op.operands]
    return True


def _same_shape(a: Attribute, b: Attribute) -> bool:
    return isinstance(a, TensorType) and isinstance(b, TensorType) and (shape_of(a) == shape_of(b))


def expanded_axis(value: SSAValue) -> int | None:
    """The unit dimension an `expand_dims` inserted into `value`, directly or under
    elementwise ops (cuTile's `acc.reshape((1, M, N)).astype(ct.float16)`), if any: the
    first found depth first, operands in order.  A worklist, not a recursion (a long
    elementwise chain overflowed the stack); a value seen before found nothing then
    and is not searched again (the recursion searched shared operands once per path)."""
    seen: set[SSAValue] = set()
    work = [value]
    while work:
        value = work.pop()
        if value in seen:
            continue
        seen.add(value)
        op = value.owner
        if isinstance(op, aa.ExpandDimsOp):
            return op.axis_value
        if isinstance(op, ElementwiseOp) and len(op.results) == 1:
            same = [o for o in op.operands if _same_shape(o.type, value.type)]
            work += reversed(same)
    return None


class StoreWithoutUnitDim(RewritePattern):
    """`store(ptrs, expand_dims(v, axis), mask)` -> `store(ptrs', v, mask')`, where `'`
    drops the unit dimension `axis` (the module docstring says why this is legal); with
    elementwise ops between the `expand_dims` and the store, they are rebuilt at `v`'s
    rank too."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.StoreOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.ptr.type, TensorType):
            return
        axis = expanded_axis(op.value)
        if axis is None:
            return
        tiles = [op.ptr, op.value, *([op.mask] if op.mask is not None else [])]
        if not all(droppable(t, axis) for t in tiles):
            return
        dropper = _Dropper(rewriter, op, {})
        ptr, value, *mask = (dropper.drop(t, axis) for t in tiles)
        store = aa.StoreOp.create(
            operands=[ptr, value, *mask, *([op.token] if op.token else [])],
            result_types=[r.type for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        store.location = op.location
        rewriter.replace(op, store)


@dataclass(frozen=True)
class TileAADropUnitDimsPass(ModulePass):
    """Stores of tiles that only gained a unit dimension happen at the tile's own rank,
    so no layout conversion is needed between the value and the store."""

    name = "tileaa-drop-unit-dims"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        LocatedWalker(GreedyRewritePatternApplier([StoreWithoutUnitDim()])).rewrite_module(op)
