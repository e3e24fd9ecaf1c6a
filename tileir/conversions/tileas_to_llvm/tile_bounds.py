"""Whole-tile bounds of a masked ring copy: one warp-uniform test instead of a predicate
per element.

cuTile bounds a tile it loads with a mask built from 1-D compares of an `iota` against a
scalar (`iota(M) < splat(min(max(rows - m0, 0), M))`), expanded, broadcast and `andi`-ed
over the dimensions.  Every element of such a tile is in bounds exactly when each
compare holds for the whole of its `iota`: `bound >= M` for `iota < bound` (`M - 1`
for `<=`), a test of scalars that every thread of the CTA computes alike.  A ring copy
of 16-byte groups (`async_copy.py`) issues its copies unpredicated under that test, and
takes the edge path, with its per-element predicates, only in the tiles that cross an
edge: a producer warp of a 4096^3 GEMM then spends on each 16-byte copy the `cp.async`
and its address, instead of the predicate arithmetic and the branch around the element
path (`gemm_bf16_two_warpgroups`'s producer: 231 -> 115 SASS instructions a warp a
stage; docs/codegen.md, "The cost of a stage").

Planned on sm_90a, where it was measured (an H200), and on sm_100a, where no GPU was at
hand and the static counts decide: there `async_copy.py` takes the test only for tiles
whose 16-byte groups are cut by the edge (their edge path copies element by element, or
counted: `gemm_f16` 1,576 -> 864 SASS instructions); a tile whose groups move all or
nothing keeps one predicated copy a group (both paths grew every such held-out kernel,
and spilled 128 bytes in `s_bmm_f16`'s one-agent ring at its 152 registers).  Not on
sm_80 (no GPU to time its rings either way).

The compares are read from the nv_tileas ops before they are lowered (`plan_tile_bounds`);
their scalar bounds are held by an operand-only `unrealized_conversion_cast` placed
before the copy, whose operands follow the lowering's replacements and which the copy's
lowering erases (as `affine_addresses.py` holds its scales).  A mask of any other form
(a gather's, a compare of a computed tile) has no whole-tile test, and its copy keeps
its predicates alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    ModuleOp,
    TensorType,
    UnrealizedConversionCastOp,
    i1,
    i32,
)
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import ComparisonPredicate, Signedness
from tileir.dialects.nv_tileas import ops as tas


@dataclass(frozen=True)
class Bound:
    """One 1-D compare of a mask: every element holds when the scalar (the anchor's
    operand `index`) is at least `least` (signed or unsigned, as the compare)."""

    index: int
    least: int
    signed: bool


@dataclass
class TileBounds:
    """A copy's whole-tile test: the conjunction of its `bounds`, their scalars held by
    `anchor` until the copy is lowered."""

    bounds: tuple[Bound, ...]
    anchor: UnrealizedConversionCastOp
    #: Every compare's `iota` runs along one dimension of the copied tile at its
    #: coordinates (the mask reaches the tile through `expand_dims`, `broadcast`,
    #: `convert_layout` and views that only drop or add unit dimensions): an element's
    #: compare then reads its coordinate in that dimension, which `async_copy.py`'s
    #: prefix counts rely on.  A view that regroups dimensions keeps the whole-tile
    #: test (every element in bounds is every compare holding) but not that.
    coordinates: bool = False

    def release(self) -> None:
        """Erase the anchor (once the copy's lowering has read its operands)."""
        self.anchor.detach()
        self.anchor.erase()


def _scalar_of_splat(value: SSAValue) -> SSAValue | None:
    owner = value.owner
    return owner.src if isinstance(owner, tas.SplatOp) else None


def _iota_extent(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, ct.IotaOp) and isinstance(value.type, TensorType):
        shape = value.type.get_shape()
        return shape[0] if len(shape) == 1 else None
    return None


def _compare_bound(cmp: ct.CmpIOp) -> tuple[SSAValue, int, bool] | None:
    """(scalar, least, signed) of `iota PRED splat(scalar)` (or its mirror) when every
    element of it holds exactly if `scalar >= least`, else None."""
    lhs, rhs = cmp.operands[0], cmp.operands[1]
    predicate = cmp.predicate
    mirrored = {
        ComparisonPredicate.GREATER_THAN: ComparisonPredicate.LESS_THAN,
        ComparisonPredicate.GREATER_THAN_OR_EQUAL: ComparisonPredicate.LESS_THAN_OR_EQUAL,
    }
    if _iota_extent(lhs) is None:
        if predicate not in mirrored:
            return None
        lhs, rhs, predicate = rhs, lhs, mirrored[predicate]
    extent = _iota_extent(lhs)
    scalar = _scalar_of_splat(rhs)
    if extent is None or scalar is None or scalar.type != i32:
        return None
    signed = cmp.signedness.data == Signedness.SIGNED
    if predicate == ComparisonPredicate.LESS_THAN:
        return scalar, extent, signed
    if predicate == ComparisonPredicate.LESS_THAN_OR_EQUAL:
        return scalar, extent - 1, signed
    return None


def mask_bounds(mask: SSAValue) -> list[tuple[SSAValue, int, bool]] | None:
    """The 1-D compares whose conjunction `mask` is, seen through `expand_dims`,
    `broadcast`, `convert_layout` and reshaping `view`s (each as (scalar, least,
    signed)), or None where it is built otherwise.  Each of those keeps "every element
    holds" as it is, so the mask holds everywhere exactly when every compare does."""
    found: list[tuple[SSAValue, int, bool]] = []
    stack = [mask]
    while stack:
        owner = stack.pop().owner
        if isinstance(owner, ct.AndIOp):
            stack.extend(owner.operands)
        elif isinstance(owner, tas.BroadcastOp | tas.ExpandDimsOp | tas.ConvertLayoutOp):
            stack.append(owner.operands[0])
        elif isinstance(owner, tas.ViewOp) and isinstance(owner.src.type, TensorType):
            # A tile seen in another shape (unit dimensions dropped): the same elements.
            stack.append(owner.src)
        elif isinstance(owner, ct.CmpIOp):
            bound = _compare_bound(owner)
            if bound is None:
                return None
            found.append(bound)
        else:
            return None
    return found


def _unit_dims_only(view: tas.ViewOp) -> bool:
    """Whether `view` only drops or adds unit dimensions: each element keeps its
    coordinates in the dimensions larger than 1."""
    src, dst = view.src.type, view.result.type
    if view.indices or not isinstance(src, TensorType) or not isinstance(dst, TensorType):
        return False
    return [n for n in src.get_shape() if n != 1] == [n for n in dst.get_shape() if n != 1]


def keeps_coordinates(mask: SSAValue) -> bool:
    """Whether the views between `mask` and its compares (`mask_bounds`) all keep the
    tile's coordinates (`TileBounds.coordinates`)."""
    stack = [mask]
    while stack:
        owner = stack.pop().owner
        if isinstance(owner, tas.ViewOp):
            if not _unit_dims_only(owner):
                return False
            stack.append(owner.src)
        elif isinstance(
            owner, ct.AndIOp | tas.BroadcastOp | tas.ExpandDimsOp | tas.ConvertLayoutOp
        ):
            stack.extend(owner.operands)
    return True


def plan_tile_bounds(module: ModuleOp) -> dict[int, TileBounds]:
    """Per masked `async.tiled_load` whose mask has a whole-tile test (by id): the test,
    its scalars anchored before the copy (see the module's docstring)."""
    plans: dict[int, TileBounds] = {}
    for op in list(module.walk()):
        if not isinstance(op, tas.AsyncTiledLoadOp) or op.mask is None:
            continue
        found = mask_bounds(op.mask)
        if not found:
            continue
        scalars: list[SSAValue] = []
        bounds: list[Bound] = []
        for scalar, least, signed in found:
            index = next((i for i, s in enumerate(scalars) if s is scalar), len(scalars))
            if index == len(scalars):
                scalars.append(scalar)
            bounds.append(Bound(index, least, signed))
        anchor = UnrealizedConversionCastOp.get(scalars, [])
        Rewriter.insert_op(anchor, InsertPoint.before(op))
        plans[id(op)] = TileBounds(tuple(dict.fromkeys(bounds)), anchor, keeps_coordinates(op.mask))
    return plans


def whole_tile_test(b: LLBuilder, plan: TileBounds, scalars: Sequence[SSAValue]) -> SSAValue:
    """`i1`: every element of the copy's tile is in bounds: the conjunction of the plan's
    bounds over `scalars`, its anchor's operands as lowered (`release`)."""
    test: SSAValue | None = None
    for bound in plan.bounds:
        least = b.const(bound.least, i32)
        holds = b.icmp("ge", scalars[bound.index], least, signed=bound.signed)
        test = holds if test is None else b.and_(test, holds)
    assert test is not None and test.type == i1
    return test


__all__ = [
    "Bound",
    "TileBounds",
    "keeps_coordinates",
    "mask_bounds",
    "plan_tile_bounds",
    "whole_tile_test",
]
