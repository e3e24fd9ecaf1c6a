"""`convert-cuda-tile-to-tileaa`: lift cuda_tile kernels to nv_tileaa.

What changes, pattern by pattern:

* tiles become builtin carriers (`tile<4x8xf32>` -> `tensor<4x8xf32>`, `tile<f32>` ->
  `f32`); `token` becomes `!nv_tileaa.mem_token`;
* `cuda_tile.module` + `entry` become a builtin module of `func.func`s marked
  `nv_tileaa.kernel`, with the same arguments in the same order;
* `make_token` / `join_tokens` become `nv_tileaa.create_mem_token` /
  `join_mem_token`, one for one (token hop one of seed 004);
* `load_view_tko` / `store_view_tko` through a partition view become pointer
  arithmetic: the tile's origin is folded into a scalar base pointer
  (`base + sum_k index_k * tile_k * stride_{dim_map[k]}`, in 64-bit arithmetic as
  cuTile specifies), each element adds `sum_k r_k * stride` to it, and a mask
  `r_k < shape - origin_k` keeps partial tiles in bounds.  Masked-off loads read the
  view's padding value; masked-off stores do nothing.  Dimensions statically known to
  be full (constant extent divisible by the tile, or `assume div_by`) get no
  per-element mask, only a scalar check that the tile index lies in the index space: a
  tile outside it is wholly out of bounds (padding loaded, nothing stored), which
  tileiras gives too; the check folds into another dimension's bound where one is
  masked;
* `reshape` / `broadcast` become `nv_tileaa.splat`, `expand_dims`, `view` and
  `broadcast` (a reshape to rank 0 is a `view` to the scalar carrier); `assume` becomes
  `nv_tileaa.assume` so its facts reach the analyses;
* `get_index_space_shape` / `get_tensor_shape` become arithmetic on the view's
  extents;
* the same through strided views (origin moves by the traversal stride) and
  gather/scatter views (rows at the offsets of the `sparse_dim` index tile);
* `load_ptr_tko` / `store_ptr_tko` / `atomic_rmw_tko` / `atomic_cas_tko` /
  `atomic_red_view_tko` become `nv_tileaa.load` / `store` / `atomic_rmw` /
  `atomic_cas`, tokens and memory semantics intact; `mmaf` / `mmai` become
  `nv_tileaa.dot`, `extract` becomes `nv_tileaa.extract`;
* `for`, `if`, `loop`, `break`, `continue` become `scf.for` / `scf.if` / `scf.while`
  (early exits, and a `return` inside an `if`, through structured flags,
  `structured_exits.py`);
* elementwise cuda_tile ops stay, now on builtin carriers, and so do the ops nv_tileaa
  has no counterpart for (`reduce`, `scan`, `permute`, `cat`, ...; docs/pipeline.md).

Any cuda_tile op this pass cannot lift is reported with its location.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    FunctionType,
    IntegerType,
    ModuleOp,
    TensorType,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
    TypeConversionPattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator

from tileir.conversions.f4_in_memory import reject_f4_in_memory
from tileir.conversions.scaled_mma import (
    BLOCK_SCALED_ATTR,
    decompose_scaled_mma,
    packed_dot_operands,
)
from tileir.conversions.structured_exits import exits_loop, lower_early_exits, owning_loop
from tileir.diagnostics import error_at, not_supported
from tileir.dialects import cuda_tile as _cuda_tile  # noqa: F401  (dialect registration)
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import (
    AtomicRMWMode,
    BoundedAttr,
    ComparisonPredicate,
    DivByAttr,
    PaddingValue,
    enum_of_i32_attr,
)
from tileir.dialects.cuda_tile.carriers import element_type, lowered_carrier, shape_of
from tileir.dialects.cuda_tile.hints import HINTS_ATTR
from tileir.dialects.cuda_tile.ops.newer import GdcLaunchDependentsTkoOp, GdcWaitTkoOp, InsertOp
from tileir.dialects.cuda_tile.types import (
    GatherScatterViewType,
    PartitionViewType,
    StridedViewType,
    TensorViewType,
    TileType,
    TokenType,
)
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileaa.types import MemTokenType
from tileir.printing import pin_source_names
from tileir.transforms.cuda_tile.split_accumulators import ACCUMULATOR_SPLIT_ATTR
from tileir.transforms.cuda_tile.split_k_steps import K_STEP_SPLIT_ATTR
from tileir.utils.rewriting import LocatedWalker, TypeDispatch
from tileir.utils.tile_builder import TileBuilder

KERNEL_ATTR = "nv_tileaa.kernel"


# ---------------------------------------------------------------------------
# Types.
# ---------------------------------------------------------------------------


class TileToCarrier(TypeConversionPattern):
    """`tile<S x E>` -> `tensor<S x E>` (or `E` at rank 0); `token` -> mem_token, inside
    parameters, arrays and dictionaries too.

    `convert_type` does the recursion itself (construct it non-`recursive`): xDSL's
    recursive mode asks a generic `isa` of every attribute and rebuilds every one, and
    `@attr_type_rewrite_pattern` formats each non-matching attribute (dense constants
    included) into a discarded exception; together a quarter of a kernel's compile
    time.  The results are the same: an attribute with nothing to convert is returned
    as it is instead of as an equal copy.

    Each attribute object is converted once (`_converted`, by identity, the object
    kept so that its id is not reused): a kernel's ops share their type objects, and
    the walker asks again for every result, attribute and block argument of every op
    (17,700 conversions over ten held-out kernels, 2% of their compilation)."""

    def __init__(self) -> None:
        super().__init__()
        self._converted: dict[int, tuple[Attribute, Attribute]] = {}

    def convert_type(self, typ: Attribute, /) -> Attribute:
        known = self._converted.get(id(typ))
        if known is not None and known[0] is typ:
            return known[1]
        converted = self._convert(typ)
        self._converted[id(typ)] = (typ, converted)
        return converted

    def _convert(self, typ: Attribute) -> Attribute:
        inp = typ
        if isinstance(typ, ParametrizedAttribute):
            params = [self.convert_type(p) for p in typ.parameters]
            if any(new is not old for new, old in zip(params, typ.parameters, strict=True)):
                inp = type(typ).new(params)
        elif isinstance(typ, ArrayAttr):
            items = tuple(self.convert_type(p) for p in typ.data)
            if any(new is not old for new, old in zip(items, typ.data, strict=True)):
                inp = type(typ).new(items)
        elif isinstance(typ, DictionaryAttr):
            entries = {k: self.convert_type(v) for k, v in typ.data.items()}
            if any(entries[k] is not v for k, v in typ.data.items()):
                inp = type(typ).new(entries)
        if isinstance(inp, TokenType):
            return MemTokenType()
        if isinstance(inp, TileType):
            return lowered_carrier(inp.dims, inp.element_type)
        return inp


# ---------------------------------------------------------------------------
# Structure: module, entry, return.
# ---------------------------------------------------------------------------


class LowerEntry(RewritePattern):
    """`entry @k(...)` -> `func.func @k(...) attributes {nv_tileaa.kernel}`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.EntryOp, rewriter: PatternRewriter) -> None:
        body = rewriter.move_region_contents_to_new_regions(op.body)
        arg_types = [a.type for a in body.block.args]
        fn = func.FuncOp(op.sym_name.data, FunctionType.from_lists(arg_types, []), body)
        fn.attributes[KERNEL_ATTR] = UnitAttr()
        if op.optimization_hints is not None:
            fn.attributes[HINTS_ATTR] = op.optimization_hints
        for name, value in op.attributes.items():
            fn.attributes[name] = value
        fn.location = op.location
        rewriter.replace(op, fn)


class LowerReturn(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.ReturnOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.parent_op(), func.FuncOp):
            return
        rewriter.replace(op, func.ReturnOp(*op.operands))


def _check_kernel_parameters(module: ModuleOp) -> None:
    """A kernel's parameters are scalar tiles (integers, floats, pointers: what a
    launcher passes by value).  cuda_tile's verifier also lets a parameter be a view or
    a token, which tileir cannot pass to a kernel: reported at the kernel, before any
    pattern changes the types, rather than where the LLVM function's verifier would
    trip over it."""
    for entry in module.walk():
        if not isinstance(entry, ct.EntryOp):
            continue
        for index, arg in enumerate(entry.body.block.args):
            if not isinstance(arg.type, TileType):
                raise not_supported(
                    entry,
                    f"kernel parameter #{index} has type {arg.type}; a kernel takes scalar "
                    "tiles (integers, floats and pointers)",
                    instead="pass views and arrays as their pointer, sizes and strides, as "
                    "cuTile passes an array",
                )


def inline_cuda_tile_modules(module: ModuleOp) -> None:
    """Move the kernels of every `cuda_tile.module` into the enclosing module."""
    for op in list(module.body.block.ops):
        if isinstance(op, ct.ModuleOp):
            for inner in list(op.body.block.ops):
                inner.detach()
                module.body.block.insert_op_before(inner, op)
            if "sym_name" not in module.properties and module.sym_name is None:
                module.sym_name = op.sym_name
            op.detach()
            op.erase()


# ---------------------------------------------------------------------------
# Control flow: cuda_tile.for -> scf.for.
# ---------------------------------------------------------------------------

UNSIGNED_CMP_ATTR = "unsignedCmp"


class LowerFor(RewritePattern):
    """`for` -> `scf.for` over the same integer type; `unsigned` is kept as the
    `unsignedCmp` attribute, which the LLVM lowering honours."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.ForOp, rewriter: PatternRewriter) -> None:
        body = rewriter.move_region_contents_to_new_regions(op.region)
        loop = scf.ForOp(op.lower_bound, op.upper_bound, op.step, list(op.init_values), body)
        if op.unsignedCmp is not None:
            loop.attributes[UNSIGNED_CMP_ATTR] = UnitAttr()
        loop.location = op.location
        rewriter.replace(op, loop)


class LowerContinue(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.ContinueOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.parent_op(), scf.ForOp | ct.ForOp):
            rewriter.replace(op, scf.YieldOp(*op.operands))


class LowerIf(RewritePattern):
    """`if` -> `scf.if`.  `if`s whose arms leave a loop were already restructured by
    `lower_early_exits` (tileir/conversions/structured_exits.py)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.IfOp, rewriter: PatternRewriter) -> None:
        # A `break`/`continue` of a loop nested in an arm (an inner `for`'s `continue`)
        # is that loop's business; only one leaving the loop around the `if` waits.
        loop = owning_loop(op)
        if loop is not None and exits_loop(op, loop):
            return
        then_region = rewriter.move_region_contents_to_new_regions(op.then_region)
        else_region = rewriter.move_region_contents_to_new_regions(op.else_region)
        branch = scf.IfOp(op.condition, [r.type for r in op.results], then_region, else_region)
        branch.location = op.location
        for region in (branch.true_region, branch.false_region):
            block = region.blocks.first
            if block is not None:
                last = block.last_op
                if isinstance(last, ct.YieldOp):
                    rewriter.replace(last, scf.YieldOp(*last.operands))
                elif last is None or not last.has_trait(IsTerminator):
                    block.add_op(scf.YieldOp())
        rewriter.replace(op, branch)


# ---------------------------------------------------------------------------
# Tokens (hop one).
# ---------------------------------------------------------------------------


class LowerMakeToken(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.MakeTokenOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, aa.CreateMemTokenOp())


class LowerJoinTokens(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.JoinTokensOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, aa.JoinMemTokenOp(list(op.tokens)))


# ---------------------------------------------------------------------------
# Shape ops and assume.
# ---------------------------------------------------------------------------


class LowerReshape(RewritePattern):
    """reshape of a scalar -> splat; inserting unit dims -> expand_dims; to rank 0 (a
    one-element tile to its scalar carrier) and every other reshape -> view."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.ReshapeOp, rewriter: PatternRewriter) -> None:
        src = op.args[0]
        src_shape = shape_of(src.type)
        res_shape = shape_of(op.result.type)
        b = TileBuilder(rewriter, InsertPoint.before(op))
        if not res_shape:
            if not src_shape:
                rewriter.replace(op, [], [src])
            else:
                rewriter.replace(op, aa.ViewOp(src, op.result.type))
            return
        if not src_shape:
            rewriter.replace(op, [], [b.splat(src, res_shape)])
            return
        value = src
        if _is_unit_insertion(src_shape, res_shape):
            shape = list(src_shape)
            j = 0
            for axis, extent in enumerate(res_shape):
                if j < len(shape) and shape[j] == extent:
                    j += 1
                    continue
                value = b.value(aa.ExpandDimsOp(value, axis))
                shape.insert(axis, 1)
                j += 1
            rewriter.replace(op, [], [value])
            return
        rewriter.replace(op, aa.ViewOp(src, op.result.type))


def _is_unit_insertion(src: tuple[int, ...], res: tuple[int, ...]) -> bool:
    """Whether `res` is `src` with unit dimensions inserted."""
    j = 0
    for extent in res:
        if j < len(src) and src[j] == extent:
            j += 1
        elif extent != 1:
            return False
    return j == len(src)


class LowerBroadcast(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.BroadcastOp, rewriter: PatternRewriter) -> None:
        src = op.args[0]
        if src.type == op.result.type:
            rewriter.replace(op, [], [src])
            return
        rewriter.replace(op, aa.BroadcastOp(src, op.result.type))


class LowerAssume(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.AssumeOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.value.type, TensorViewType | PartitionViewType):
            # Facts about views are consumed where the view is lowered.
            rewriter.replace(op, [], [op.value])
            return
        rewriter.replace(op, aa.AssumeOp(op.value, op.predicate))


# ---------------------------------------------------------------------------
# Views.
# ---------------------------------------------------------------------------


@dataclass
class ViewAccess:
    """A tile view traced back to its tensor_view operands.

    `origin_step[k]` is how far (in elements of tensor dimension `dim_map[k]`) the
    tile origin moves per unit of index `k`: the tile extent for a partition view,
    the traversal stride for a strided view.  `sparse_dim` names the index that a
    gather/scatter view takes as a 1-d tile of element offsets instead."""

    view_type: PartitionViewType | StridedViewType | GatherScatterViewType
    base: SSAValue
    shape: list[int | SSAValue]
    strides: list[int | SSAValue]

    @property
    def tile(self) -> tuple[int, ...]:
        return self.view_type.tile_dims

    @property
    def dim_map(self) -> tuple[int, ...]:
        if isinstance(self.view_type, GatherScatterViewType):
            return tuple(range(len(self.tile)))
        return self.view_type.dim_map_values

    @property
    def origin_step(self) -> tuple[int, ...]:
        if isinstance(self.view_type, StridedViewType):
            return self.view_type.stride_values
        return self.tile

    @property
    def sparse_dim(self) -> int | None:
        if isinstance(self.view_type, GatherScatterViewType):
            return self.view_type.sparse_dim.data
        return None

    @property
    def element(self) -> Attribute:
        return self.view_type.view_tensor.element_type


#: Kept for the callers that only know partition views.
PartitionAccess = ViewAccess

VIEW_MAKERS = (ct.MakePartitionViewOp, ct.MakeStridedViewOp, ct.MakeGatherScatterViewOp)


def _strip_assumes(value: SSAValue) -> SSAValue:
    while isinstance(value.owner, ct.AssumeOp | aa.AssumeOp):
        value = value.owner.operands[0]
    return value


def trace_partition_view(op: Operation, view: SSAValue) -> ViewAccess:
    """Find the `make_*_view` / `make_tensor_view` that define `view`."""
    pv = _strip_assumes(view).owner
    if not isinstance(pv, VIEW_MAKERS):
        raise error_at(
            op,
            "expects a view defined by make_partition_view, make_strided_view or "
            "make_gather_scatter_view in the same kernel",
        )
    tv = _strip_assumes(pv.tensor_view).owner
    if not isinstance(tv, ct.MakeTensorViewOp):
        raise error_at(op, "expects a tensor_view defined by make_tensor_view in the same kernel")
    view_type = pv.result.type
    assert isinstance(view_type, PartitionViewType | StridedViewType | GatherScatterViewType)
    return ViewAccess(view_type, tv.base, tv.shape_values(), tv.stride_values())


def known_divisor(value: int | SSAValue) -> int:
    """The largest power of two `value` is known to be divisible by."""
    if isinstance(value, int):
        return value & -value if value else 1 << 62
    best = 1
    while True:
        owner = value.owner
        if isinstance(owner, ct.AssumeOp | aa.AssumeOp):
            pred = owner.predicate
            if isinstance(pred, DivByAttr) and pred.every_value is None:
                best = max(best, pred.divisor.data)
            value = owner.operands[0]
            continue
        if isinstance(owner, ct.ConstantOp):
            v = int(owner.first_value())
            return max(best, v & -v if v else 1 << 62)
        return best


def known_non_negative(value: SSAValue) -> bool:
    while True:
        owner = value.owner
        if isinstance(owner, ct.AssumeOp | aa.AssumeOp):
            pred = owner.predicate
            if (
                isinstance(pred, BoundedAttr)
                and pred.lower_value is not None
                and pred.lower_value >= 0
            ):
                return True
            value = owner.operands[0]
            continue
        return False


@dataclass
class LoweredAccess:
    pointers: SSAValue
    mask: SSAValue | None


def lower_partition_access(
    op: Operation,
    access: ViewAccess,
    index: list[SSAValue],
    b: TileBuilder,
    inbounds: tuple[bool, ...] = (),
) -> LoweredAccess:
    """Pointers and bounds mask of the tile at `index` of a view.
    `inbounds[k]` (bytecode 13.4) promises index dimension k needs no check."""
    tile = access.tile
    dim_map = access.dim_map
    sparse = access.sparse_dim
    if len(index) != len(tile):
        raise error_at(
            op, f"expects {len(tile)} indices for a rank-{len(tile)} view, got {len(index)}"
        )

    # The tile origin, in 64-bit arithmetic: origin_k = index_k * step_k.  A gathered
    # dimension has no origin: its rows sit at the offsets the index lists.
    origins: list[SSAValue | None] = []
    base_offset: SSAValue | None = None
    for k, idx in enumerate(index):
        if k == sparse:
            origins.append(None)
            continue
        idx64 = b.to_i64(idx, signed=False)
        origin = b.muli(idx64, b.constant(access.origin_step[k], i64))
        origins.append(origin)
        stride = access.strides[dim_map[k]]
        term = origin if stride == 1 else b.muli(origin, _as_i64(b, stride))
        base_offset = term if base_offset is None else b.addi(base_offset, term)
    base = access.base
    if base_offset is not None:
        base = b.value(aa.AddPtrOp(base, base_offset))

    # Offsets of the elements within the tile.
    offsets: SSAValue | None = None
    gathered: SSAValue | None = None
    for k, extent in enumerate(tile):
        stride = access.strides[dim_map[k]]
        if k == sparse:
            rows = index[k]
            if shape_of(rows.type) != (extent,):
                raise error_at(
                    op, f"gather index {k} must be a 1-d tile of {extent} offsets, got {rows.type}"
                )
            gathered = b.to_i64(rows, signed=True)
            term = (
                gathered if stride == 1 else b.muli(gathered, b.splat(_as_i64(b, stride), [extent]))
            )
        elif isinstance(stride, int) and stride * extent < 2**31:
            r = b.iota(extent, i32)
            term = r if stride == 1 else b.muli(r, b.constant(stride, TensorType(i32, [extent])))
            term = b.to_i64(term, signed=False)
        else:
            r64 = b.to_i64(b.iota(extent, i32), signed=False)
            term = b.muli(r64, b.splat(_as_i64(b, stride), [extent]))
        full = b.expand_to(term, k, tile)
        offsets = full if offsets is None else b.addi(offsets, full)
    assert offsets is not None
    pointers = b.value(aa.AddPtrOp(b.splat(base, tile), offsets))

    # Bounds: element r_k is in bounds when r_k < shape_d - origin_k; a gathered row
    # when its offset lies in [0, shape_d) (one unsigned comparison).  A dimension the
    # tiles divide needs no per-element check, only one that the tile index lies in
    # the index space: a tile outside it (more tile blocks than tiles) has every
    # element out of bounds, so its loads read padding and its stores are dropped,
    # which the masked dimensions give by themselves (origin >= shape leaves no element
    # in bounds).  That scalar check folds into the bound of the first masked
    # dimension; only a tile no dimension of which is masked gets a mask for it alone.
    checked = [
        k for k in range(len(tile)) if not (k < len(inbounds) and inbounds[k]) and k != sparse
    ]
    divided = [k for k in checked if _tiles_divide(access, k)]
    inside: SSAValue | None = None
    for k in divided:
        shape = access.shape[dim_map[k]]
        origin = origins[k]
        assert origin is not None
        if _tile_known_inside(index[k], tile[k], shape):
            continue
        here = b.cmpi(ComparisonPredicate.LESS_THAN, origin, _as_i64(b, shape))
        inside = here if inside is None else b.andi(inside, here)

    def unless_outside(bound: SSAValue) -> SSAValue:
        """`bound`, or 0 (no element in bounds) when the tile lies outside the index
        space along a divided dimension; the check is used up."""
        nonlocal inside
        if inside is None:
            return bound
        zero = b.constant(0, bound.type)
        bound = b.value(ct.SelectOp.build_op([inside, bound, zero]))
        inside = None
        return bound

    mask: SSAValue | None = None
    for k, extent in enumerate(tile):
        shape = access.shape[dim_map[k]]
        if k == sparse and not (k < len(inbounds) and inbounds[k]):
            assert gathered is not None
            limit = b.splat(unless_outside(_as_i64(b, shape)), [extent])
            in_bounds = b.cmpi(ComparisonPredicate.LESS_THAN, gathered, limit, signed=False)
        elif k in checked and k not in divided:
            origin = origins[k]
            assert origin is not None
            remaining = b.subi(_as_i64(b, shape), origin)
            clamped = b.maxi(b.mini(remaining, b.constant(extent, i64)), b.constant(0, i64))
            limit = b.cast_int(unless_outside(clamped), i32)
            in_bounds = b.cmpi(
                ComparisonPredicate.LESS_THAN, b.iota(extent, i32), b.splat(limit, [extent])
            )
        else:
            continue
        full = b.expand_to(in_bounds, k, tile)
        mask = full if mask is None else b.andi(mask, full)
    if inside is not None:
        mask = b.splat(inside, tile)
    return LoweredAccess(pointers, mask)


def _tiles_divide(access: ViewAccess, k: int) -> bool:
    """Whether the tiles of index dimension `k` cover its tensor dimension exactly
    (partition-like steps and an extent known to be a multiple of the tile): an
    element is then in bounds exactly when its tile index is in the index space."""
    extent = access.tile[k]
    if access.origin_step[k] != extent:  # overlapping or spaced tiles
        return False
    shape = access.shape[access.dim_map[k]]
    if isinstance(shape, int):
        return shape % extent == 0
    return known_divisor(shape) % extent == 0


def _tile_known_inside(index: SSAValue, extent: int, shape: int | SSAValue) -> bool:
    """Whether the tile at a constant `index` (read as unsigned) lies within a constant
    `shape`: then its index-space check is known to pass."""
    if not isinstance(shape, int):
        return False
    owner = _strip_assumes(index).owner
    if not isinstance(owner, ct.ConstantOp):
        return False
    el = element_type(index.type)
    assert isinstance(el, IntegerType)
    value = int(owner.first_value()) & ((1 << el.width.data) - 1)
    return (value + 1) * extent <= shape


def _as_i64(b: TileBuilder, value: int | SSAValue) -> SSAValue:
    if isinstance(value, int):
        return b.constant(value, i64)
    return b.to_i64(value, signed=not known_non_negative(value))


PADDING_VALUES = {
    PaddingValue.ZERO: 0.0,
    PaddingValue.NEG_ZERO: -0.0,
    PaddingValue.NAN: float("nan"),
    PaddingValue.POS_INF: float("inf"),
    PaddingValue.NEG_INF: float("-inf"),
}


class LowerLoadView(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.LoadViewTkoOp, rewriter: PatternRewriter) -> None:
        access = trace_partition_view(op, op.view)
        b = TileBuilder(rewriter, InsertPoint.before(op))
        lowered = lower_partition_access(op, access, list(op.index), b, op.inbounds_flags())
        other = None
        if lowered.mask is not None:
            pad = access.view_type.padding or PaddingValue.ZERO
            el = element_type(op.tile.type)
            value = 0 if isinstance(el, IntegerType) else PADDING_VALUES[pad]
            other = b.constant(value, op.tile.type)
        load = aa.LoadOp(
            lowered.pointers,
            lowered.mask,
            other,
            op.token,
            op.tile.type,
        )
        load.properties.update(_memory_props(op))
        rewriter.replace(op, load)


class LowerStoreView(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.StoreViewTkoOp, rewriter: PatternRewriter) -> None:
        access = trace_partition_view(op, op.view)
        b = TileBuilder(rewriter, InsertPoint.before(op))
        lowered = lower_partition_access(op, access, list(op.index), b, op.inbounds_flags())
        store = aa.StoreOp(lowered.pointers, op.tile, lowered.mask, op.token)
        store.properties.update(_memory_props(op))
        rewriter.replace(op, store)


class LowerLoadPtr(RewritePattern):
    """`load_ptr_tko` -> `nv_tileaa.load` of the same pointers; its padding becomes the
    fallback of the masked-off elements (a padding without a mask reads nothing)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.LoadPtrTkoOp, rewriter: PatternRewriter) -> None:
        other = op.padding_value if op.mask is not None else None
        load = aa.LoadOp(op.source, op.mask, other, op.token, op.result.type)
        load.properties.update(_memory_props(op))
        rewriter.replace(op, load)


class LowerStorePtr(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.StorePtrTkoOp, rewriter: PatternRewriter) -> None:
        store = aa.StoreOp(op.destination, op.value, op.mask, op.token)
        store.properties.update(_memory_props(op))
        rewriter.replace(op, store)


class LowerAtomicRmw(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.AtomicRMWTkoOp, rewriter: PatternRewriter) -> None:
        mode = enum_of_i32_attr(AtomicRMWMode, op.mode)
        rmw = aa.AtomicRmwOp(op.pointers, mode, op.arg, op.mask, op.token)
        rmw.properties.update(_memory_props(op))
        rewriter.replace(op, rmw)


class LowerAtomicCas(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.AtomicCASTkoOp, rewriter: PatternRewriter) -> None:
        cas = aa.AtomicCasOp(op.pointers, op.cmp, op.val, op.mask, op.token)
        cas.properties.update(_memory_props(op))
        rewriter.replace(op, cas)


class LowerAtomicRedView(RewritePattern):
    """`atomic_red_view_tko` -> the view's pointers and bounds mask, then an
    `nv_tileaa.atomic_rmw` whose old values nobody reads."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.AtomicRedViewTkoOp, rewriter: PatternRewriter) -> None:
        access = trace_partition_view(op, op.view)
        b = TileBuilder(rewriter, InsertPoint.before(op))
        lowered = lower_partition_access(op, access, list(op.index), b)
        mode = enum_of_i32_attr(AtomicRMWMode, op.mode)
        rmw = aa.AtomicRmwOp(lowered.pointers, mode, op.value, lowered.mask, op.token)
        rmw.properties.update(_memory_props(op))
        rewriter.replace(op, [rmw], [rmw.result_token])


class LowerMma(RewritePattern):
    """`mmaf` / `mmai` -> `nv_tileaa.dot` (integer signedness carried over; `fast_acc`
    and the decisions of split-dot-accumulators and split-dot-k-steps kept as
    discardable attributes).  Element types `nv_tileaa.dot` does not take keep the
    `cuda_tile.mmaf` on carriers (it takes every type `mmaf` verifies with, tf32
    included)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: ct.MmaFOp | ct.MmaIOp | ct.MmaFScaledOp, rewriter: PatternRewriter
    ) -> None:
        signedness = None
        scales = None
        if isinstance(op, ct.MmaIOp):
            signedness = (op.signedness_lhs.data, op.signedness_rhs.data)
        elif isinstance(op, ct.MmaFScaledOp):
            # Kept whole for a block-scaled tcgen05.mma (`decompose_scaled_mma`).
            scales = (op.lhs_scale, op.rhs_scale)
        elif not dot_accepts(op.lhs.type, op.rhs.type, op.acc.type):
            return
        lhs, rhs = op.lhs, op.rhs
        if isinstance(op, ct.MmaFScaledOp) and aa.PACKED_F4_ATTR in op.attributes:
            # e2m1 read packed: the bytes they were unpacked from, B's K-major.
            lhs, rhs = packed_dot_operands(op)
        dot = aa.DotOp(lhs, rhs, op.acc, signedness, scales=scales)
        if isinstance(op, ct.MmaFOp) and op.fast_acc is not None:
            dot.attributes["fast_acc"] = UnitAttr()
        for name in (
            ACCUMULATOR_SPLIT_ATTR,
            K_STEP_SPLIT_ATTR,
            BLOCK_SCALED_ATTR,
            aa.PACKED_F4_ATTR,
        ):
            decision = op.attributes.get(name)
            if decision is not None:
                dot.attributes[name] = decision
        rewriter.replace(op, dot)


def dot_accepts(lhs: Attribute, rhs: Attribute, acc: Attribute) -> bool:
    a, b, c = (element_type(t) for t in (lhs, rhs, acc))
    accepted = aa.DOT_ELEMENTS.get(type(a))
    if accepted is None or type(c) not in accepted:
        return False
    return type(a) is type(b) or all(type(t) in FP8_TYPES for t in (a, b))


FP8_TYPES = (Float8E4M3FNType, Float8E5M2Type)


def _memory_props(op: Operation) -> dict[str, Attribute]:
    return {
        k: v for k, v in op.properties.items() if k in ("memory_ordering_semantics", "memory_scope")
    }


class LowerExtract(RewritePattern):
    """`extract` -> `nv_tileaa.extract` (the same sub-tile semantics); the one sub-tile
    of a rank-0 tile is the tile itself."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.ExtractOp, rewriter: PatternRewriter) -> None:
        result_type = op.result.type
        if not isinstance(result_type, TensorType):
            rewriter.replace(op, [], [op.source])
            return
        rewriter.replace(op, aa.ExtractOp(op.source, list(op.indices), result_type))


class LowerIndexSpaceShape(RewritePattern):
    """Number of tiles along each index dimension of a partition view:
    ceil(extent / tile)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.GetIndexSpaceShapeOp, rewriter: PatternRewriter) -> None:
        access = trace_partition_view(op, op.src)
        if not isinstance(access.view_type, PartitionViewType):
            raise not_supported(
                op,
                "get_index_space_shape of a strided or gather/scatter view",
                instead="count the tiles of a partition view (make_partition_view, what "
                "ct.num_tiles reads), or compute the count from the shape with ct.cdiv",
            )
        b = TileBuilder(rewriter, InsertPoint.before(op))
        results: list[SSAValue] = []
        for k, extent in enumerate(access.tile):
            result_type = op.res[k].type
            assert isinstance(result_type, IntegerType)
            shape = access.shape[access.dim_map[k]]
            if isinstance(shape, int):
                results.append(b.constant(-(-shape // extent), result_type))
            else:
                s = b.cast_int(shape, result_type, signed=False)
                results.append(b.divi_ceil(s, b.constant(extent, result_type)))
        rewriter.replace(op, [], results)


class LowerTensorShape(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.GetTensorShapeOp, rewriter: PatternRewriter) -> None:
        tv = op.src.owner
        if not isinstance(tv, ct.MakeTensorViewOp):
            raise error_at(op, "expects a tensor_view defined by make_tensor_view")
        b = TileBuilder(rewriter, InsertPoint.before(op))
        results: list[SSAValue] = []
        for extent, res in zip(tv.shape_values(), op.res, strict=True):
            rt = res.type
            assert isinstance(rt, IntegerType)
            results.append(
                b.constant(extent, rt) if isinstance(extent, int) else b.cast_int(extent, rt)
            )
        rewriter.replace(op, [], results)


# ---------------------------------------------------------------------------
# The pass.
# ---------------------------------------------------------------------------

#: cuda_tile ops that survive lifting: they compute on builtin carriers.  nv_tileaa
#: (seed 004) has no op of its own for them, so they keep their cuda_tile semantics
#: inside nv_tileaa IR and `convert-tileaa-to-tileas` maps them further (reduce and scan
#: to nv_tileas.reduce/scan, ...).  See docs/pipeline.md.
CARRIER_OPS: tuple[type[Operation], ...] = (
    *(
        cls
        for cls in ct.ALL_OPS
        # The MRO test, not issubclass: an op class's ABCMeta makes every failed
        # issubclass walk all of ElementwiseOp's subclasses (3.4 ms at import for
        # 108 classes); no class registers as a virtual ElementwiseOp.
        if ct.ElementwiseOp in cls.__mro__ and cls not in (ct.ReshapeOp, ct.BroadcastOp)
    ),
    ct.ConstantOp,
    ct.IotaOp,
    ct.GetTileBlockIdOp,
    ct.GetNumTileBlocksOp,
    ct.OffsetOp,
    # Tile compute without an nv_tileaa counterpart.
    ct.ReduceOp,
    ct.ScanOp,
    ct.PermuteOp,
    ct.CatOp,
    ct.PackOp,
    ct.UnpackOp,
    ct.MmaFOp,
    ct.MmaFScaledOp,
    InsertOp,
    # The terminator of reduce and scan bodies.
    ct.YieldOp,
    # Ordering-only ops: they keep their place in the token chain (now mem tokens).
    GdcWaitTkoOp,
    GdcLaunchDependentsTkoOp,
    # Debugging, globals.
    ct.PrintTkoOp,
    ct.AssertOp,
    ct.GlobalOp,
    ct.GetGlobalOp,
)

#: View ops erased once their users are lowered.
VIEW_DEFINITIONS = (ct.MakeTensorViewOp, *VIEW_MAKERS)


@dataclass(frozen=True)
class ConvertCudaTileToTileAAPass(ModulePass):
    """Lift cuda_tile kernels to nv_tileaa: carriers, pointers, masks and mem tokens."""

    name = "convert-cuda-tile-to-tileaa"

    #: The target, where it keeps `mmaf_scaled`s whole for its block-scaled MMAs
    #: (sm_100a, sm_103a); "" decomposes every one (`scaled_mma.py`).
    arch: str = ""
    #: The warps per CTA those MMAs would run with.
    num_warps: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pin_source_names(op)  # every later stage prints a value under its cuda_tile name
        _check_kernel_parameters(op)
        reject_f4_in_memory(op)  # not yet: tileiras packs them (f4_in_memory.py)
        # mmaf_scaled -> dequantize + bf16 mmaf, but where `arch` runs it natively.
        decompose_scaled_mma(op, self.arch, self.num_warps)
        LocatedWalker(TileToCarrier()).rewrite_module(op)
        lower_early_exits(op)
        LocatedWalker(
            TypeDispatch(
                [
                    LowerEntry(),
                    LowerReturn(),
                    LowerFor(),
                    LowerContinue(),
                    LowerIf(),
                    LowerMakeToken(),
                    LowerJoinTokens(),
                    LowerReshape(),
                    LowerBroadcast(),
                    LowerLoadView(),
                    LowerStoreView(),
                    LowerLoadPtr(),
                    LowerStorePtr(),
                    LowerAtomicRmw(),
                    LowerAtomicCas(),
                    LowerAtomicRedView(),
                    LowerMma(),
                    LowerExtract(),
                    LowerIndexSpaceShape(),
                    LowerTensorShape(),
                ],
            ),
            apply_recursively=False,
        ).rewrite_module(op)
        # Assumes on views were needed above; the rest become nv_tileaa facts.
        LocatedWalker(
            GreedyRewritePatternApplier([LowerAssume()], dce_enabled=False), apply_recursively=False
        ).rewrite_module(op)
        _erase_dead_views(op)
        inline_cuda_tile_modules(op)
        _check_fully_lifted(op)


def _erase_dead_views(module: ModuleOp) -> None:
    changed = True
    while changed:
        changed = False
        for o in list(module.walk()):
            if isinstance(o, VIEW_DEFINITIONS) and not o.results[0].uses:
                o.detach()
                o.erase()
                changed = True


def _check_fully_lifted(module: ModuleOp) -> None:
    for o in module.walk():
        if o.name.startswith("cuda_tile.") and not isinstance(o, CARRIER_OPS):
            raise not_supported(
                o,
                "convert-cuda-tile-to-tileaa cannot lift it",
                instead="write it with other ops (docs/cutile.md lists what tileir "
                "compiles, docs/dialects/cuda_tile.md every op)",
            )
