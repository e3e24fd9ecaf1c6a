"""`tileas-tma-feeds{arch=sm_90a}`: the operand copies of a warp-specialized GEMM's
producer that a TMA box can make instead of `cp.async`, made so, and why not where it
cannot (docs/codegen.md, "TMA feeds for the rings").

Why.  A warp-specialized producer (`tileas-specialize-agents`) feeds each stage with
`cp.async` from 128 threads; on an H200 that feed bounds the bf16 GEMMs at 2.8x
tileiras's time, whose producers issue one `cp.async.bulk.tensor` (`UTMALDG`) a box
from one thread.  cuTile passes arrays as pointer, shapes and strides, so the tensor
maps are built on the device (`tileas_to_llvm/tma.py`); this pass makes the decision,
per operand, where `--emit=tileas` shows it.

What.  For each `async.tiled_load` yielded by a `producer_write` on sm_90a, the load
is eligible when every one of these holds, each checked on the IR (the reason of the
first that fails is recorded instead):

* **The pointer tile is a box of a row-major matrix**: `splat(p) + i * S + j` (the
  tile's row and column coordinates; `tileir.analysis.affine_forms` finds the terms,
  `S` a runtime row stride in elements, the column step one element), `p = base +
  off`, `base` and `S` the same in every iteration of the producer's loop
  (`_invariant`: they are computed before it, `_hoisted`), a loop in no other (its map
  is built once per run of the agents).  A batched operand's `[1, .., rows, cols]`
  tile seen as `[rows, cols]` (a value view of unit dimensions, `_unit_view`) is one
  too: a unit dimension's step multiplies its one coordinate, 0.
* **The mask is cuTile's bounds form**: `i < clamp(R - r0, 0, M) & j < clamp(C - c0,
  0, N)` (`iota` compares, expanded and broadcast), with `R` and `C` 32-bit extents
  known non-negative (`assume bounded<0, ?>`), and `off == r0 * S + c0 + rest` as
  polynomials over the kernel's values (`_poly`), `rest` the same in every iteration:
  then the masked-off elements are exactly those a TMA box at coordinates `(c0, r0)`
  of a `C x R` tensor map at `base + rest` reads out of bounds, which it fills with
  zeros, as the load's zero padding asks.  (`rest` is a batched operand's batch
  offset, `b * S_b`; the map's base moves by it.)  A dimension's bound may be
  `guard ? clamp(..) : 0` (cuTile bounds a batch index so, on the rows): where the
  `i1` guard is false the tile is all off, and the box's coordinate along that
  dimension becomes `OUT_OF_BOUNDS` (all zeros).
* **The tensor map is legal**: `base` and `rest` 16-byte aligned and `S * element
  bytes` a multiple of 16, all proven by `assume div_by` on the kernel's arguments;
  f16, bf16 or f32 elements (the map copies bytes: a tf32 operand rounded in its slot,
  `ring_rounding.py`, is rounded by the consumer after its wait, once the bytes have
  landed).  8-bit floats: no warp-specialized kernel has them (their `[K, N]` B is
  transposed for `wgmma` from its slot, which keeps them in one agent).
* **The slot is what TMA writes**: one box per W-byte column of the slot, `W / 2`
  elements of the tile's last dimension by its rows, with the slot's swizzle.  A's
  slot is K-major and swizzled 32, 64 or 128 bytes wide (`core_matrices.OperandBuffer`,
  as `ring_budget.laid_out_operand_buffer` says the lowering lays it out).  A `[K, N]`
  row-major B's slot is MN-major and padded, which TMA cannot write: it becomes MN-major
  swizzled instead (the widest W dividing N's bytes; `B_MN_SWIZZLE_ATTR` on the dot,
  which the ring budget and the lowering then lay out).  A B whose slot is K-major
  (tf32, 8-bit: `wgmma` reads them K-major only) is its tile transposed, which a box
  cannot do.
* **Warpgroups that split N** (`wn > 1`, attention's P·V over 8 warps): warpgroup `j`
  takes 8-column blocks `j, j + wn, ..` of the tile, which a W-byte line of N does not
  hold together.  The map is then rank 4 instead, B's row seen as `(8 columns, wn,
  C / (8 wn))` (strides 16 and `16 wn` bytes) by its rows: a box `(8, 1, W / 16,
  rows)` at `(0, j, c0 / (8 wn) + l W / 16, r0)` lands line `l` of warpgroup `j`'s
  blocks as a W-byte MN-major swizzled column of a `[K, N / wn]` B (16-byte rows,
  dense, swizzled by their shared address), and warpgroup `j`'s slice starts `j`
  slices into the slot (`TmaFeed.split`; `wgmma.warpgroup_slices` reads it so: the
  slot's bytes and swizzle are the unsplit B's, W the widest dividing `N / wn`'s
  bytes).  Its column bounds are exact only where `C` is whole groups of `8 wn`
  columns: `C` and the tile's column origin must be proven multiples of `8 wn`
  (`assume div_by`; cuTile's attention samples assume 16 of the head dimension,
  attention_wide_kv_bf16 does not, and its V stays on `cp.async`), and a guarded
  column bound is not yet fed.

The pass then rewrites the load: before the producer's loop an
`nv_tileas.make_global_view` of the tensor and the `make_tiled_tma_desc` of its box
(swizzle, zero fill), and in the loop an `async.tiled_load` of the tile at its origin
through that view with the `tma_load_2d` atom, no mask (the view's extents bound it),
marked `nv_tileas.tma_feed` (`swizzle`, `box` innermost first, `boxes`, `mn_major`); a
load it leaves gets `nv_tileas.tma_feed_blocked` (the reason).  **One map per tensor
and box:** loads whose maps are equal (`Match.key`: the same base, extents, row stride
and batch offset as polynomials over the kernel's values, the same box and swizzle)
copy through one view and descriptor, the first's (a producer's, before the first
loop of its agent that loads it, gemm_f16_wide_acc's two K loops reading one; one
agent's, in its function).  The dot's operand-feed remark gets a clause per operand; a producer whose copies are all boxes gets
`TMA_PRODUCER_REGISTERS` (`setmaxnreg`).  `convert-tileas-to-llvm` builds the tensor
maps on the device and issues the boxes (`tileas_to_llvm/tma.py`).  The pass runs in
`cuda-tile-to-ptx{tma_feeds=true}` only: no GPU has run its PTX yet (the PTX
simulator has, against numpy).

**One-agent rings.**  The loads of a pipelined K loop in one agent under mbarriers
(`nv_tileas.ring_mbarriers`: the prologue's stages, a rotated loop's copy, the body's
refill; their future reaches a dot's `future_wait`, `ring_futures.py`) are decided by
the same rules (`decide_ring_load`), and are fed only where the dot is `wgmma` (the
async proxy reads the slot: no proxy fence is needed before a box rewrites it), the
slot is not read back by ordinary loads (`read_from_slot`) nor rounded to tf32 in
place, and an `async.wait` after the load (or its K loop) drains its ring.  A map is
built in the function's body, before the op there that holds its first load (that
load itself, its K loop, or the outer loop around it), so that every later load of
the same tensor and box, in this ring or another (the second, diagonal loop of causal
attention reads the first loop's K and V), copies through it:

* **Loops around the ring** (a persistent kernel's loop over its tiles): the map's
  values must be the same in every iteration of that outer loop (`_invariant`; they are
  computed anew before it, `_hoisted`), else the load stays on `cp.async` (not yet:
  grouped GEMM's per-group pointers) with the value that changes.
* **After a loop of dots:** a map is not built there (not yet: its build's registers
  on top of that loop's live accumulators spilled s_fmha_f16_causal); a later loop's
  load is fed only through a map an earlier load built.  A ring of a loop after a loop
  of dots whose dots' accumulators leave fewer than `LATER_LOOP_HEADROOM` of the
  registers allowed stays on `cp.async` (not yet: fed by TMA, NVIDIA's 128-row causal
  FMHA samples' second loops spilled at 96 of 128).

The map's pool slot goes back once, after the `async.wait` that first follows its last
load's op in the function's body (the last ring through it drained), or at the kernel's
end where none follows (a persistent kernel's loop: each tile's rings are drained in
it; `tileas_to_llvm/tma.py`, `release_point`).  The lowering issues the boxes from the
CTA's thread 0 (which built the map and acquired it) into the slot `_mbarrier_slot`
picks, and every thread arrives on the slot's *full* mbarrier as for `cp.async`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    IndexType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from tileir.analysis.affine_forms import AffineForms, Term
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import (
    BoundedAttr,
    ComparisonPredicate,
    DivByAttr,
    Signedness,
)
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import (
    AtomAttr,
    OobMode,
    OobModeAttr,
    SwizzleMode,
    SwizzleModeAttr,
)
from tileir.dialects.nv_tileas.canonicalize import constant_int
from tileir.dialects.nv_tileas.core_matrices import B_MN_SWIZZLE_ATTR, SWIZZLE_WIDTHS
from tileir.targets import register_budget, resolve_gpu_name
from tileir.transforms.tileas.dot_plan import dot_warp_grid
from tileir.transforms.tileas.overlap_attention_dots import resident_ctas
from tileir.transforms.tileas.pipeline_dot_operands import (
    READ_FROM_SLOT_ATTR,
    RING_MBARRIERS_ATTR,
    accumulator_registers,
    feed_clauses,
    set_feed_clauses,
)
from tileir.transforms.tileas.ring_budget import laid_out_operand_buffer
from tileir.transforms.tileas.ring_futures import consumer_of, rounded, wait_of
from tileir.transforms.tileas.specialize_agents import kernel_warps
from tileir.transforms.tileas.tf32_operands import ROUNDED_IN_SHARED_ATTR
from tileir.utils.bits import mlir_bit_width
from tileir.utils.numeric import dense_splat
from tileir.utils.walk import enclosing_function

#: On an eligible `async.tiled_load`: the box TMA would copy it in (module doc).
TMA_FEED_ATTR = "nv_tileas.tma_feed"
#: On a producer's `async.tiled_load` that stays on `cp.async`: why.
TMA_BLOCKED_ATTR = "nv_tileas.tma_feed_blocked"
#: On a `make_tiled_tma_desc` of a B whose dot's warpgroups split N: how many (its map
#: is rank 4, `TmaFeed.split`).
TMA_SPLIT_ATTR = "nv_tileas.tma_split"

#: TMA's global address and row stride alignment (bytes; PTX ISA, *Tensor*: tensor map).
TMA_ALIGN = 16
#: A coordinate past any 32-bit extent (TMA's are signed 32-bit): a box there is all
#: zeros (a guarded dimension's origin where its guard is false: `Match.guards`).
OUT_OF_BOUNDS = 2**31 - 1
#: TMA's largest box extent along one dimension.
MAX_BOX = 256

OPERAND_NAMES = ("A", "B")

#: The atom of a producer's TMA load (a 2-D tile box).
TMA_ATOM = "tma_load_2d"

#: The register budget of a producer whose copies are all TMA boxes (`setmaxnreg`):
#: its one issuing thread needs an address and coordinates a box, no registers a copy
#: (tileiras's TMA producers: 24-40).
TMA_PRODUCER_REGISTERS = 40


@dataclass(frozen=True)
class TmaFeed:
    """An eligible load's box: `swizzle` bytes wide, `box` (innermost first) elements,
    `boxes` of them side by side along K (one per swizzle-wide column of the slot)."""

    swizzle: int
    box: tuple[int, int]
    boxes: int
    #: The slot is MN-major (a `[K, N]` B: `B_MN_SWIZZLE_ATTR` on its dot).
    mn_major: bool = False
    #: The dot's warpgroups along N (`wn`): an MN-major slot of `split` > 1 holds each
    #: warpgroup's 8-column blocks contiguously, through a rank-4 map (module doc).
    split: int = 1

    def attribute(self) -> DictionaryAttr:
        fields: dict[str, Attribute] = {
            "swizzle": IntegerAttr(self.swizzle, i64),
            "box": DenseArrayBase.from_list(i64, self.box),
            "boxes": IntegerAttr(self.boxes, i64),
        }
        if self.mn_major:
            fields["mn_major"] = UnitAttr()
        if self.split > 1:
            fields["split"] = IntegerAttr(self.split, i64)
        return DictionaryAttr(fields)

    def describe(self) -> str:
        plural = "es" if self.boxes > 1 else ""
        major = " MN-major" if self.mn_major else ""
        split = f" ({self.split} warpgroups' slices, rank-4 map)" if self.split > 1 else ""
        return (
            f"{self.swizzle}B{major} swizzle, {self.boxes} box{plural} of "
            f"{self.box[1]}x{self.box[0]}{split}"
        )


def tma_feed(load: Operation) -> TmaFeed | None:
    """The box `tileas-tma-feeds` recorded on a TMA load (None: not one)."""
    attr = load.attributes.get(TMA_FEED_ATTR)
    if not isinstance(attr, DictionaryAttr):
        return None
    swizzle, box, boxes = (attr.data[k] for k in ("swizzle", "box", "boxes"))
    assert isinstance(swizzle, IntegerAttr) and isinstance(boxes, IntegerAttr)
    assert isinstance(box, DenseArrayBase)
    inner, outer = (int(v) for v in box.get_values())
    split = attr.data.get("split")
    return TmaFeed(
        swizzle.value.data,
        (inner, outer),
        boxes.value.data,
        "mn_major" in attr.data,
        split.value.data if isinstance(split, IntegerAttr) else 1,
    )


class NotEligible(Exception):
    """Why a load stays on `cp.async` (its message)."""


# ---------------------------------------------------------------------------
# Scalars as polynomials over the kernel's values.
# ---------------------------------------------------------------------------

#: A polynomial: monomial (the sorted ids of its leaf values) -> coefficient.
Poly = dict[tuple[int, ...], int]


def _strip(value: SSAValue) -> SSAValue:
    """`value` through `assume`s (which do not change it)."""
    while isinstance(value.owner, tas.AssumeOp | ct.AssumeOp):
        value = value.owner.operands[0]
    return value


def _int_constant(value: SSAValue) -> int | None:
    """An `arith.constant` (`constant_int`) or a scalar `cuda_tile.constant`."""
    found = constant_int(value)
    if found is not None:
        return found
    op = value.owner
    if isinstance(op, ct.ConstantOp) and not shape_of(value.type):
        splat = dense_splat(op.value)
        return None if splat is None else int(splat)
    return None


#: A polynomial's leaves: leaf id -> a 64-bit value equal to it (`_poly`).
Leaves = dict[int, SSAValue]


def _poly(value: SSAValue, depth: int = 0, leaves: Leaves | None = None) -> Poly | None:
    """The 64-bit scalar `value` as an integer polynomial: constants, `addi`, `subi`,
    `muli` of 64-bit values, and leaves (an `exti unsigned` of a narrower value is a
    leaf of that value, which it equals; anything else is a leaf of itself).  Equal
    polynomials are equal values modulo 2^64, as the 64-bit arithmetic computes them.
    `leaves`, where given, gets a 64-bit value of each leaf (to compute it anew)."""
    value = _strip(value)
    if depth > 32:
        return None
    constant = _int_constant(value)
    if constant is not None:
        return {(): constant} if constant else {}
    op = value.owner
    if isinstance(op, ct.ExtIOp) and op.signedness.data is Signedness.UNSIGNED:
        key = id(_strip(op.args[0]))
        if leaves is not None:
            leaves.setdefault(key, value)
        return {(key,): 1}
    if isinstance(op, ct.AddIOp | ct.SubIOp | ct.MulIOp) and mlir_bit_width(value.type) == 64:
        a, b = _poly(op.args[0], depth + 1, leaves), _poly(op.args[1], depth + 1, leaves)
        if a is None or b is None:
            return None
        if isinstance(op, ct.MulIOp):
            return _times(a, b)
        return _plus(a, _times(b, {(): -1}) if isinstance(op, ct.SubIOp) else b)
    if leaves is not None:
        leaves.setdefault(id(value), value)
    return {(id(value),): 1}


def _times(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            key = tuple(sorted(ma + mb))
            out[key] = out.get(key, 0) + ca * cb
    return {k: c for k, c in out.items() if c}


def _plus(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + c
    return {k: c for k, c in out.items() if c}


def _at_origin(value: SSAValue, depth: int = 0) -> Poly | None:
    """The element at coordinate 0 of the integer tile `value`, as a polynomial (`_poly`):
    an `iota`'s is 0, a `splat`'s its scalar; `expand_dims`, `broadcast`,
    `convert_layout`, `exti unsigned`, `addi`, `subi` and `muli` keep or combine them."""
    op = value.owner
    if depth > 32 or not isinstance(op, Operation):
        return None
    if isinstance(op, ct.IotaOp):
        return {}
    if isinstance(op, tas.SplatOp):
        return _poly(op.src)
    if isinstance(op, tas.ExpandDimsOp | tas.BroadcastOp | tas.ConvertLayoutOp | tas.AssumeOp):
        return _at_origin(op.operands[0], depth + 1)
    if isinstance(op, ct.ExtIOp) and op.signedness.data is Signedness.UNSIGNED:
        inner = _at_origin(op.args[0], depth + 1)
        return inner if inner == {} else None
    if isinstance(op, ct.AddIOp | ct.SubIOp | ct.MulIOp):
        a, b = _at_origin(op.args[0], depth + 1), _at_origin(op.args[1], depth + 1)
        if a is None or b is None:
            return None
        if isinstance(op, ct.MulIOp):
            return _times(a, b)
        return _plus(a, _times(b, {(): -1}) if isinstance(op, ct.SubIOp) else b)
    if isinstance(op, ct.ConstantOp):
        splat = dense_splat(op.value)
        return None if splat is None else ({(): int(splat)} if splat else {})
    return None


def _facts(value: SSAValue) -> Iterator[object]:
    """The `assume` predicates on `value` and on what it was extended or assumed from."""
    for _ in range(16):
        op = value.owner
        if isinstance(op, tas.AssumeOp | ct.AssumeOp):
            yield op.properties.get("predicate") or op.attributes.get("predicate")
            value = op.operands[0]
        elif isinstance(op, ct.ExtIOp) and op.signedness.data is Signedness.UNSIGNED:
            value = op.args[0]
        else:
            return


def _divisor(value: SSAValue) -> int:
    """The largest `div_by` an `assume` proves of `value` (1: none)."""
    found = [p.divisor.data for p in _facts(value) if isinstance(p, DivByAttr)]
    return max(found, default=1)


def _non_negative(value: SSAValue) -> bool:
    """Whether an `assume bounded<L, ?>` with `L >= 0` holds of `value`."""
    return any(
        isinstance(p, BoundedAttr) and isinstance(p.lower, IntAttr) and p.lower.data >= 0
        for p in _facts(value)
    )


# ---------------------------------------------------------------------------
# The mask: cuTile's bounds form.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Edge:
    """One dimension of a bounds mask: `iota < clamp(extent - origin, 0, size)`, or
    `iota < (guard ? clamp(extent - origin, 0, size) : 0)` (a batch index's bound:
    the tile is all off where `guard`, an `i1` scalar, is false)."""

    extent: SSAValue
    origin: SSAValue
    size: int
    guard: SSAValue | None = None


def _clamp(bound: SSAValue, size: int) -> tuple[SSAValue, SSAValue, SSAValue | None] | None:
    """(extent, origin, guard) of `trunci(maxi(mini(exti(extent) - origin, size), 0))`
    (min and max either way round), the extent a 32-bit value, or of
    `trunci(select(guard, <that>, 0))` (`guard` an `i1` scalar; else None)."""
    op = bound.owner
    if not isinstance(op, ct.TruncIOp):
        return None
    inner = op.args[0]
    guard = None
    select = inner.owner
    if isinstance(select, ct.SelectOp) and _int_constant(select.args[2]) == 0:
        if shape_of(select.args[0].type):
            return None
        guard, inner = select.args[0], select.args[1]
    seen: set[str] = set()
    for _ in range(2):
        o = inner.owner
        if isinstance(o, ct.MinIOp | ct.MaxIOp) and o.signedness.data is Signedness.SIGNED:
            kind = "min" if isinstance(o, ct.MinIOp) else "max"
            a, b = o.args[0], o.args[1]
            want = size if kind == "min" else 0
            if _int_constant(b) == want:
                seen.add(kind)
                inner = a
                continue
        return None
    if seen != {"min", "max"}:
        return None
    sub = inner.owner
    if not isinstance(sub, ct.SubIOp):
        return None
    extent = sub.args[0].owner
    if not isinstance(extent, ct.ExtIOp) or extent.signedness.data is not Signedness.UNSIGNED:
        return None
    if mlir_bit_width(extent.args[0].type) != 32:
        return None
    return extent.args[0], sub.args[1], guard


def _edges(mask: SSAValue, rank: int) -> dict[int, Edge]:
    """Per dimension, the bounds compare of `mask` (and-ed 1-D compares, each expanded
    and broadcast to the tile; a dimension may have none)."""
    edges: dict[int, Edge] = {}
    stack = [mask]
    while stack:
        value = stack.pop()
        op = value.owner
        if isinstance(op, ct.AndIOp):
            stack.extend(op.args)
            continue
        while isinstance(op, tas.BroadcastOp | tas.ConvertLayoutOp):
            value = op.operands[0]
            op = value.owner
        axes: list[int] = []
        while isinstance(op, tas.ExpandDimsOp):
            axes.append(op.axis.value.data)
            value = op.src
            op = value.owner
        # Where the 1-D compare's dimension ends up: each expand_dims (innermost first)
        # inserts a dimension at its axis, in front of it where the axis is not after it.
        dim = 0
        for axis in reversed(axes):
            dim += axis <= dim
        if len(axes) != rank - 1:
            raise NotEligible("its mask is not a bounds compare per dimension")
        if not isinstance(op, ct.CmpIOp) or op.predicate != ComparisonPredicate.LESS_THAN:
            raise NotEligible("its mask is not a bounds compare per dimension")
        iota, bound = op.args[0], op.args[1]
        splat = bound.owner
        if not isinstance(iota.owner, ct.IotaOp) or not isinstance(splat, tas.SplatOp):
            raise NotEligible("its mask is not a bounds compare per dimension")
        size = shape_of(iota.type)[0]
        found = _clamp(splat.src, size)
        if found is None:
            raise NotEligible("its mask's bound is not clamp(extent - origin, 0, size)")
        if dim in edges:
            raise NotEligible("its mask bounds one dimension twice")
        edges[dim] = Edge(*found[:2], size, found[2])
    return edges


# ---------------------------------------------------------------------------
# The decision.
# ---------------------------------------------------------------------------


def _consumer_dot(write: tas.ProducerWriteOp, position: int) -> tuple[tas.DotOp, int]:
    """The dot (and operand index) that reads payload `position` of `write`'s stages:
    through the one `consumer_read` of the function's one pipeline."""
    fn = write.parent_op()
    while fn is not None and not isinstance(fn.parent_op(), ModuleOp):
        fn = fn.parent_op()
    assert fn is not None
    pipelines = [op for op in fn.walk() if isinstance(op, tas.CreatePipelineOp)]
    reads = [op for op in fn.walk() if isinstance(op, tas.ConsumerReadOp)]
    if len(pipelines) != 1 or not reads:
        raise NotEligible("its kernel has other than one pipeline")
    value = reads[0].values[position]
    uses = list(value.uses)
    user = uses[0].operation if len(uses) == 1 else None
    if isinstance(user, ct.FToFOp) and ROUNDED_IN_SHARED_ATTR in user.attributes:
        # Rounded to tf32 in the slot by the consumer, after its wait on the *full*
        # mbarrier, which completes once the boxes' bytes landed (`ring_rounding.py`).
        uses = list(user.result.uses)
    if len(uses) != 1 or not isinstance(uses[0].operation, tas.DotOp) or uses[0].index > 1:
        raise NotEligible("its stage is read by other than a dot operand")
    return uses[0].operation, uses[0].index


def _loop_of(op: Operation) -> scf.ForOp:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, scf.ForOp):
        parent = parent.parent_op()
    if parent is None:
        raise NotEligible("its producer runs in no loop")
    return parent


def _defined_outside(value: SSAValue, loop: Operation) -> bool:
    owner = value.owner
    block = owner.parent_block() if isinstance(owner, Operation) else owner
    while block is not None:
        if block.parent_op() is loop:
            return False
        parent = block.parent_op()
        block = parent.parent_block() if parent is not None else None
    return True


def _invariant(value: SSAValue, loop: Operation | None, depth: int = 0) -> bool:
    """Whether `value` is the same in every iteration of `loop` (or every run of the
    region op a map is built before): defined outside it, or computed in it from such
    values by constants, `assume`, `exti` and integer `addi`, `subi`, `muli` (what
    cuTile recomputes in the body).  (No loop: always.)"""
    if loop is None or _defined_outside(value, loop):
        return True
    op = value.owner
    if depth > 32 or not isinstance(op, Operation):
        return False
    if _int_constant(value) is not None:
        return True
    if isinstance(op, tas.AssumeOp | ct.AssumeOp | ct.ExtIOp | ct.AddIOp | ct.SubIOp | ct.MulIOp):
        return all(_invariant(v, loop, depth + 1) for v in op.operands)
    return False


@dataclass(frozen=True)
class Match:
    """The values an eligible load's tensor map and coordinates are made of: the
    tensor's `base` pointer, its `rows` and `cols` (32-bit extents), its `stride`
    between rows (64-bit, elements), and the tile's origin (`r0`, `c0`, 64-bit)."""

    base: SSAValue
    rows: SSAValue
    cols: SSAValue
    stride: SSAValue
    r0: SSAValue
    c0: SSAValue
    #: What moves the map's base by a batch's offset (elements): (coefficient, leaves)
    #: per monomial, the same in every iteration.
    moved: tuple[tuple[int, tuple[SSAValue, ...]], ...] = ()
    #: Per coordinate (row, column), the `i1` under which the mask bounds it, else
    #: the whole tile is off (the coordinate becomes `OUT_OF_BOUNDS`).
    guards: tuple[SSAValue | None, SSAValue | None] = (None, None)
    #: What the tensor map is (`map_key`): equal for two loads whose maps are equal.
    key: tuple[object, ...] = ()
    #: The leaves `key`'s polynomials name by id (kept alive, so that no other value
    #: takes one of their ids while the key is in use).
    leaves: tuple[SSAValue, ...] = ()


def decide(
    load: tas.AsyncTiledLoadOp, write: tas.ProducerWriteOp, position: int
) -> tuple[TmaFeed, Match]:
    """The box TMA copies `load` (payload `position` of `write`) in and what its map is
    made of, or `NotEligible` with the reason (module doc)."""
    dot, index = _consumer_dot(write, position)

    def producer_loop() -> scf.ForOp:
        loop = _loop_of(write)
        if not isinstance(loop.parent_op(), tas.AgentSwitchOp):
            # Its map is built once per run of the agent and its slot given back at the
            # agent's end: built in an outer loop, it would take a slot each time.
            raise NotEligible("its producer loop is nested in another loop")
        return loop

    return _decide(load, dot, index, producer_loop)


def _decide(
    load: tas.AsyncTiledLoadOp,
    dot: tas.DotOp,
    index: int,
    loop_of: Callable[[], Operation | None],
) -> tuple[TmaFeed, Match]:
    """`decide` of `load`, operand `index` of `dot`, whose map is built before the loop
    `loop_of` gives (None: right before the load, whose values all precede it)."""
    t = load.loaded_type()
    shape = shape_of(t)
    bits = mlir_bit_width(element_type(t)) or 0
    if len(shape) != 2:
        raise NotEligible(f"its tile is of rank {len(shape)}, not 2")
    if not isinstance(element_type(t), Float16Type | BFloat16Type | Float32Type):
        # (8-bit floats: no warp-specialized kernel has them yet, their B being
        # transposed from its slot for `wgmma`.)
        raise NotEligible(f"its {element_type(t)} elements are not f16, bf16 or f32")
    size = bits // 8
    # The destination: a swizzled slot, the tile's last dimension its lines (module doc).
    buffer = laid_out_operand_buffer(dot, index)
    if buffer is None:
        raise NotEligible("its dot reads no core-matrix buffer")
    rows, cols = shape
    # A 16-bit `[K, N]` B read K-major from memory (K's elements contiguous, N a stride
    # apart: attention's K^T, `order` transposed): its K-major slot is a box of the
    # `[N, K]` matrix it is, rows and columns swapped (`transposed`).
    transposed = index == 1 and not buffer.mn_major and size == 2 and bool(buffer.swizzle)
    if transposed:
        rows, cols = cols, rows
    split = 1
    if buffer.mn_major:
        # A [K, N] row-major B: its slot becomes MN-major swizzled, as the box writes it;
        # where the dot's warpgroups split N, each warpgroup's slice of it (`split`).
        acc = dot.acc.type
        assert isinstance(acc, TensorType)
        split = dot_warp_grid(dot, acc)[1]
        if cols % (8 * split):
            raise NotEligible(f"its N of {cols} is not {split} warpgroups' 8-column blocks")
        line = cols // split * size
        swizzle = next((w for w in SWIZZLE_WIDTHS if line % w == 0), 0)
        if not swizzle:
            raise NotEligible(f"its N of {line} bytes a warpgroup is no whole swizzle width")
    elif index != 0 and not transposed:
        # (tf32 and 8-bit `wgmma` read B K-major only: its [K, N] tile is transposed
        # into the slot, element by element.)
        raise NotEligible(
            "its [K, N] tile is transposed into a K-major slot, which a TMA box cannot do"
        )
    elif not buffer.swizzle:
        raise NotEligible(
            "its slot is K-major with padded core matrices, which TMA cannot write "
            "(a swizzled slot it can)"
        )
    else:
        swizzle = buffer.swizzle
        if swizzle not in SWIZZLE_WIDTHS or cols * size % swizzle:
            raise NotEligible(f"its K of {cols * size} bytes is not whole {swizzle}-byte columns")
    if rows > MAX_BOX:
        raise NotEligible(f"its {rows} rows exceed a box's {MAX_BOX}")
    # The padding: zero, as TMA fills.
    pad = load.properties.get("padding_value")
    if pad is not None and not _zero(pad):
        raise NotEligible("its padding is not zero (TMA fills zeros)")
    # The pointers: splat(base + off) + i * S + j.
    view = load.view.owner
    if not isinstance(view, tas.ViewOp):
        raise NotEligible("it loads through no pointer tile")
    # (A batched operand's tile: `[1, .., rows, cols]` seen as `[rows, cols]`.)
    ptr_tile, unit = _unit_view(view.src, shape)
    mask = None if load.mask is None else _unit_view(load.mask, shape)[0]
    ptrs = ptr_tile.owner
    if not isinstance(ptrs, tas.AddPtrOp) or not isinstance(ptrs.ptr.owner, tas.SplatOp):
        raise NotEligible("its pointers are not a splat pointer plus offsets")
    # (Offsets in elements; `AffineForms` finds the steps, `_at_origin` the first; a
    # unit dimension's step multiplies its one coordinate, 0.)
    form = AffineForms(unit_views=False).get(ptrs.offset)
    if form is None or len(form.terms) != 2 + unit or _at_origin(ptrs.offset) != {}:
        raise NotEligible("its offsets are not affine in the tile's coordinates from 0")
    row_terms, col_terms = form.terms[unit:]
    if transposed:
        row_terms, col_terms = col_terms, row_terms
    offset_bits = mlir_bit_width(element_type(ptrs.offset.type)) or 0
    if tuple(col_terms) != (Term(1, None),):
        if transposed:
            raise NotEligible(
                "its [K, N] tile is transposed into a K-major slot, which a TMA box cannot do"
            )
        raise NotEligible("its columns are not contiguous elements")
    if len(row_terms) != 1 or row_terms[0].factor != 1 or row_terms[0].scale is None:
        raise NotEligible("its rows are not a runtime stride apart")
    stride_splat = row_terms[0].scale.owner
    if not isinstance(stride_splat, tas.SplatOp) or offset_bits != 64:
        raise NotEligible("its row stride is not one 64-bit value")
    stride = stride_splat.src
    scalar = ptrs.ptr.owner.src
    based = scalar.owner
    if not isinstance(based, tas.AddPtrOp):
        raise NotEligible("its tile's first pointer is not a base plus an offset")
    loop = loop_of()
    base = based.ptr
    if not _invariant(base, loop):
        raise NotEligible("its base pointer changes in the loop its map is built before")
    if not _invariant(stride, loop):
        raise NotEligible("its row stride changes in the loop its map is built before")
    # The mask: the bounds of the same origins (a unit dimension's in a guard, if any).
    if mask is None:
        raise NotEligible("it has no bounds mask (the tensor's extent is unknown)")
    found = _edges(mask, 2 + unit)
    if any(d < unit for d in found) or len(found) != 2:
        raise NotEligible("its mask does not bound the tile's two dimensions alone")
    edges = [found[unit], found[unit + 1]]
    if transposed:
        edges.reverse()
    for dim, name in ((0, "rows"), (1, "columns")):
        if not _non_negative(edges[dim].extent):
            raise NotEligible(f"its {name}' extent is not known non-negative")
        if edges[dim].size != (rows, cols)[dim]:
            raise NotEligible(f"its {name}' bound is not the tile's extent")
    leaves: Leaves = {}
    polys = [_poly(v, 0, leaves) for v in (based.offset, edges[0].origin, stride, edges[1].origin)]
    off, r0, s, c0 = polys
    if off is None or r0 is None or s is None or c0 is None:
        raise NotEligible("its offset is not a polynomial of the kernel's values")
    # What the offset adds to row origin x stride + column origin (a batch's offset)
    # moves the map's base, where it is the same in every iteration.
    rest = _plus(off, _times(_plus(_times(r0, s), c0), {(): -1}))
    if any(not _invariant(leaves[k], loop) for m in rest for k in m):
        raise NotEligible("its offset is not row origin x stride + column origin of its mask")
    # The tensor map's alignment.
    if _divisor(base) % TMA_ALIGN:
        raise NotEligible(f"its base is not proven {TMA_ALIGN}-byte aligned (assume div_by)")
    if any(_monomial_divisor(c, m, leaves) * size % TMA_ALIGN for m, c in rest.items()):
        raise NotEligible(f"its batch offset is not proven a multiple of {TMA_ALIGN} bytes")
    if (_divisor(stride) * size) % TMA_ALIGN:
        raise NotEligible(f"its row stride is not proven a multiple of {TMA_ALIGN} bytes")
    if split > 1:
        # The rank-4 map (8 columns, `split`, N / (8 split), rows) bounds the columns
        # exactly where the tensor's extent is whole groups of `split` blocks, and the
        # tile's origin must be one.
        group = 8 * split
        if edges[1].guard is not None:
            raise NotEligible("not yet: its columns' bound is guarded (a rank-4 map's)")
        if _divisor(edges[1].extent) % group:
            raise NotEligible(
                f"its columns' extent is not proven a multiple of {group} (assume div_by), "
                f"which its rank-4 map of {split} warpgroups' 8-column blocks needs"
            )
        if any(_monomial_divisor(c, m, leaves) % group for m, c in c0.items()):
            raise NotEligible(f"its column origin is not proven a multiple of {group}")
    columns = cols * size // swizzle
    feed = TmaFeed(swizzle, (swizzle // size, rows), columns, buffer.mn_major, split)
    # Monomials are keyed by the leaves' ids, which follow memory addresses: order the
    # terms (and each term's factors) by when `_poly` met their leaves instead, so that
    # the PTX does not depend on where the IR happens to lie in memory.
    rank = {key: index for index, key in enumerate(leaves)}
    terms = sorted(rest.items(), key=lambda term: [rank[k] for k in term[0]])
    moved = tuple((c, tuple(leaves[k] for k in sorted(m, key=rank.__getitem__))) for m, c in terms)
    # The map: the tensor (base, extents, row stride, batch offset) and the box.
    key = (
        _strip(base),
        _strip(edges[0].extent),
        _strip(edges[1].extent),
        tuple(sorted(s.items())),
        tuple(sorted(rest.items())),
        feed.swizzle,
        feed.box,
        feed.split,
    )
    match = Match(
        base,
        edges[0].extent,
        edges[1].extent,
        stride,
        edges[0].origin,
        edges[1].origin,
        moved,
        (edges[0].guard, edges[1].guard),
        key,
        tuple(leaves.values()),
    )
    return feed, match


def _unit_view(value: SSAValue, shape: tuple[int, ...]) -> tuple[SSAValue, int]:
    """`value`, or the `[1, .., *shape]` tensor a value view of it sees as `shape`, and
    the count of those leading unit dimensions."""
    op = value.owner
    if not isinstance(op, tas.ViewOp) or not op.is_value_view or op.indices:
        return value, 0
    outer = tuple(shape_of(op.src.type))
    unit = len(outer) - len(shape)
    if unit <= 0 or outer[unit:] != tuple(shape) or any(d != 1 for d in outer[:unit]):
        raise NotEligible("its tile is seen through a view of other than unit dimensions")
    return op.src, unit


def _monomial_divisor(coefficient: int, monomial: tuple[int, ...], leaves: Leaves) -> int:
    """What `assume div_by` proves divides the monomial's value."""
    out = abs(coefficient)
    for k in monomial:
        out *= _divisor(leaves[k])
    return out


def _hoisted(value: SSAValue, loop: Operation | None, done: dict[int, SSAValue]) -> SSAValue:
    """`value` computed before `loop` (`_invariant`: it is the same in every
    iteration): itself where defined outside (or there is no loop), else a clone of
    its computation."""
    if loop is None or _defined_outside(value, loop):
        return value
    found = done.get(id(value))
    if found is not None:
        return found
    op = value.owner
    assert isinstance(op, Operation)
    operands = [_hoisted(v, loop, done) for v in op.operands]
    clone = op.clone()
    for i, v in enumerate(operands):
        clone.operands[i] = v
    Rewriter.insert_op(clone, InsertPoint.before(loop))
    for old, new in zip(op.results, clone.results, strict=True):
        done[id(old)] = new
    return done[id(value)]


def rewrite(load: tas.AsyncTiledLoadOp, feed: TmaFeed, match: Match) -> tas.AsyncTiledLoadOp:
    """`load` as a TMA load: the global view of its tensor and the descriptor of its box
    before the producer's loop, and in the loop an `async.tiled_load` of the tile at its
    origin through that view with the `tma_load_2d` atom (its edges read as zeros: the
    view's extents bound it, no mask), marked with its box (module doc)."""
    return _rewrite(load, feed, match, _loop_of(load))


def _rewrite(
    load: tas.AsyncTiledLoadOp, feed: TmaFeed, match: Match, loop: Operation | None
) -> tas.AsyncTiledLoadOp:
    """`rewrite`, the view and descriptor before `loop` (None: right before `load`)."""
    return _load_through(load, feed, match, _build_map(load, feed, match, loop))


def _build_map(
    load: tas.AsyncTiledLoadOp, feed: TmaFeed, match: Match, loop: Operation | None
) -> SSAValue:
    """The global view of `load`'s tensor and the descriptor of its box, before `loop`
    (None: right before `load`; its values computed anew there where `loop` computes
    them, `_hoisted`); the view, which the TMA loads through the map read."""
    anchor: Operation = load if loop is None else loop
    done: dict[int, SSAValue] = {}
    base, rows, cols, stride = (
        _hoisted(v, loop, done) for v in (match.base, match.rows, match.cols, match.stride)
    )
    if match.moved:
        base = _moved_base(base, match, loop, done, load)
    view = tas.MakeGlobalViewOp(base, [rows, cols], [stride])
    box = [arith.ConstantOp(IntegerAttr(n, IndexType())) for n in (feed.box[1], feed.box[0])]
    swizzle = SwizzleModeAttr(SwizzleMode(f"{feed.swizzle}B"))
    desc = tas.MakeTiledTmaDescOp(
        view.result,
        [c.result for c in box],
        AtomAttr(TMA_ATOM),
        swizzle_mode=swizzle,
        oob_mode=OobModeAttr(OobMode.ZERO),
    )
    if feed.split > 1:
        desc.attributes[TMA_SPLIT_ATTR] = IntegerAttr(feed.split, i64)
    for op in (view, *box, desc):
        op.location = load.location
        Rewriter.insert_op(op, InsertPoint.before(anchor))
    return view.result


def _load_through(
    load: tas.AsyncTiledLoadOp, feed: TmaFeed, match: Match, view: SSAValue
) -> tas.AsyncTiledLoadOp:
    """`load` replaced by an `async.tiled_load` of its tile at its origin through
    `view` (whose descriptor `_build_map` made) with the `tma_load_2d` atom."""
    guarded: list[Operation] = []
    origins = []
    for origin, guard in zip((match.r0, match.c0), match.guards, strict=True):
        if guard is not None:
            limit = ct.ConstantOp.splat(OUT_OF_BOUNDS, origin.type)
            select = ct.SelectOp.build_op([guard, origin, limit.result])
            guarded += [limit, select]
            origin = select.results[0]
        origins.append(origin)
    coords = [arith.IndexCastOp(v, IndexType()) for v in origins]
    props: dict[str, Attribute] = {"atom": AtomAttr(TMA_ATOM)}
    pad = load.properties.get("padding_value")
    if pad is not None:
        props["padding_value"] = pad
    new = tas.AsyncTiledLoadOp.build(
        operands=[view, [c.result for c in coords], [], [], []],
        result_types=[load.result.type, []],
        properties=props,
        attributes={TMA_FEED_ATTR: feed.attribute()},
    )
    for op in (*guarded, *coords, new):
        op.location = load.location
        Rewriter.insert_op(op, InsertPoint.before(load))
    load.result.replace_all_uses_with(new.result)
    block = load.parent_block()
    Rewriter.erase_op(load)
    if block is not None:
        _erase_dead(block)
    return new


def _moved_base(
    base: SSAValue,
    match: Match,
    loop: Operation | None,
    done: dict[int, SSAValue],
    load: Operation,
) -> SSAValue:
    """`base` plus the batch offset `match.moved` (its monomials computed anew before
    `loop`, from their leaves)."""
    ops: list[Operation] = []
    total: SSAValue | None = None
    for coefficient, leaves in match.moved:
        factors = [_hoisted(leaf, loop, done) for leaf in leaves]
        if coefficient != 1 or not factors:
            constant = ct.ConstantOp.splat(coefficient, i64)
            ops.append(constant)
            factors.insert(0, constant.result)
        term = factors[0]
        for factor in factors[1:]:
            product = ct.MulIOp.build_op([term, factor])
            ops.append(product)
            term = product.results[0]
        if total is not None:
            add = ct.AddIOp.build_op([total, term])
            ops.append(add)
            term = add.results[0]
        total = term
    assert total is not None
    moved = tas.AddPtrOp(base, total)
    for op in (*ops, moved):
        op.location = load.location
        Rewriter.insert_op(op, InsertPoint.before(load if loop is None else loop))
    return moved.result


def _erase_dead(block: Block) -> None:
    """Drop the ops of `block` nothing uses any more and that have no effect (the old
    load's pointer and mask tiles)."""
    changed = True
    while changed:
        changed = False
        for op in reversed(list(block.ops)):
            if op.results and not any(r.uses for r in op.results) and is_side_effect_free(op):
                Rewriter.erase_op(op)
                changed = True


def _zero(pad: object) -> bool:
    value = getattr(pad, "value", None)
    data = getattr(value, "data", value)
    return data == 0


def _remark(write: tas.ProducerWriteOp, position: int, clause: str) -> None:
    try:
        dot, index = _consumer_dot(write, position)
    except NotEligible:
        return
    _add_clause(dot, f"{OPERAND_NAMES[index]}: {clause}")


#: How `tileas-pipeline-dot-operands`'s first clause names the feed, and what it
#: becomes where some or all of the stage's copies are TMA boxes.
COPIES = "of cp.async copies"
MIXED = "of cp.async copies and TMA boxes"
BOXES = "of TMA boxes"


def _narrow_producer(switch: tas.AgentSwitchOp) -> None:
    """A producer (the switch's first agent) whose every copy is a TMA box gets
    `TMA_PRODUCER_REGISTERS` (where it had more); its dots' remarks name the feed."""
    budgets = switch.budgets
    loads = [o for o in switch.agents[0].walk() if isinstance(o, tas.AsyncTiledLoadOp)]
    fed = [TMA_FEED_ATTR in o.attributes for o in loads] if len(budgets) == 2 else []
    if not any(fed):
        return
    narrowed = all(fed) and 0 < TMA_PRODUCER_REGISTERS < budgets[0]
    if narrowed:
        switch.properties["max_regs"] = DenseArrayBase.from_list(
            i32, [TMA_PRODUCER_REGISTERS, *budgets[1:]]
        )
    for dot in [o for o in switch.agents[1].walk() if isinstance(o, tas.DotOp)]:
        clauses = feed_clauses(dot)
        if not clauses:
            continue
        clauses[0] = clauses[0].replace(COPIES, BOXES if all(fed) else MIXED)
        if narrowed:
            clauses.append(f"the producer takes {TMA_PRODUCER_REGISTERS} registers (all TMA)")
        set_feed_clauses(dot, clauses)


@dataclass(frozen=True)
class TmaFeedsPass(ModulePass):
    """Feeds a warp-specialized producer's operand copies by TMA where the IR allows it,
    and says why not elsewhere (module doc); sm_90a only, in `cuda-tile-to-ptx` with
    `tma_feeds=true`."""

    name = "tileas-tma-feeds"

    arch: str = "sm_90a"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if resolve_gpu_name(self.arch, "tileas-tma-feeds target") != "sm_90a":
            return
        maps: dict[tuple[object, ...], SSAValue] = {}
        for write in [w for w in op.walk() if isinstance(w, tas.ProducerWriteOp)]:
            last = write.body.block.last_op
            if not isinstance(last, tas.PipelineYieldOp):
                continue
            for position, value in enumerate(last.values):
                load = value.owner
                if not isinstance(load, tas.AsyncTiledLoadOp):
                    continue
                try:
                    feed, match = decide(load, write, position)
                except NotEligible as why:
                    load.attributes[TMA_BLOCKED_ATTR] = StringAttr(str(why))
                    _remark(write, position, f"stays on cp.async: {why}")
                    continue
                # One map per tensor and box in the producer agent, before its first
                # loop that loads through it (a later loop of the agent reads it too).
                loop = _loop_of(load)
                key = (loop.parent_block(), match.key)
                view = maps.get(key)
                if view is None:
                    view = maps[key] = _build_map(load, feed, match, loop)
                _load_through(load, feed, match, view)
                if feed.mn_major:
                    dot, _ = _consumer_dot(write, position)
                    dot.attributes[B_MN_SWIZZLE_ATTR] = IntegerAttr(feed.swizzle, i64)
                _remark(write, position, f"fed by TMA: {feed.describe()}")
        for switch in [w for w in op.walk() if isinstance(w, tas.AgentSwitchOp)]:
            _narrow_producer(switch)
        _feed_one_agent_rings(op)


def _in_switch(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, tas.AgentSwitchOp):
        parent = parent.parent_op()
    return parent is not None


def _top_level(op: Operation) -> Operation:
    """The op of its function's body that is `op` or holds it."""
    while True:
        parent = op.parent_op()
        if parent is None or isinstance(parent.parent_op(), ModuleOp):
            return op
        op = parent


def _drain_after(op: Operation) -> tas.AsyncWaitOp | None:
    """The first `async.wait` after `op` in its block."""
    after = op.next_op
    while after is not None and not isinstance(after, tas.AsyncWaitOp):
        after = after.next_op
    return after


def decide_ring_load(
    load: tas.AsyncTiledLoadOp, dot: tas.DotOp, index: int
) -> tuple[TmaFeed, Match, Operation]:
    """The box of a one-agent ring's load under mbarriers (`load` feeds operand `index`
    of `dot`), what its map is made of, and the op of the function's body its map is
    built before where no earlier load made it (the load itself, its K loop or the
    outer loop holding it), or `NotEligible` (module doc, *One-agent rings*)."""
    if RING_MBARRIERS_ATTR not in dot.attributes:
        raise NotEligible("its ring is not under mbarriers (cp.async groups)")
    if READ_FROM_SLOT_ATTR in load.attributes:
        raise NotEligible(
            "not yet: its slot is read back by ordinary loads (a box over it would need "
            "a proxy fence after those reads)"
        )
    if dot.atom.info.engine != "wgmma":
        raise NotEligible(
            "not yet: its dot reads the slot with ordinary loads (a box over it would "
            "need a proxy fence after those reads)"
        )
    wait = wait_of(load.result, set())
    if wait is None or rounded(wait):
        raise NotEligible("not yet: its slot is rounded to tf32 in place (st.shared) between boxes")
    parent = load.parent_op()
    refill = (
        isinstance(parent, scf.ForOp)
        and any(isinstance(u.operation, scf.YieldOp) for u in load.result.uses)
        and parent is _loop_of(wait)
    )
    local: Operation = parent if refill and parent is not None else load
    crowded = _crowded_later_loop(_ring_loop(load, local))
    if crowded:
        raise NotEligible(crowded)
    # Every box of its ring has landed after the `async.wait` that drains the ring (the
    # first after the load or its K loop): the map's slot goes back after the last
    # such wait of its loads (`tileas_to_llvm/tma.py`).
    if _drain_after(local) is None:
        raise NotEligible("no async.wait after it in its block (its ring is never drained)")
    # The values the map is made of, the same in every iteration of its K loop ...
    feed, match = _decide(load, dot, index, lambda: None if local is load else local)
    anchor = _top_level(local)
    if anchor is not local:
        # ... and of the loops around it (a persistent kernel's tiles): the map is
        # built once before them.
        try:
            feed, match = _decide(load, dot, index, lambda: anchor)
        except NotEligible as why:
            raise NotEligible(
                "not yet: its map would be built (a pool slot taken, the map written) in "
                f"every iteration of an outer loop (a persistent kernel's tiles): {why}"
            ) from None
        if _drain_after(anchor) is None and _returns_early(anchor):
            raise NotEligible(
                "its map's slot would go back at the kernel's end, which an early return skips"
            )
    return feed, match, anchor


#: Registers a thread keeps free of its dots' accumulators, within those allowed, for
#: a loop after a loop of dots to be fed by TMA.  Measured (ptxas 13, sm_90a; the
#: accumulators of the later loop's dots, then the registers allowed): the second
#: (diagonal) loops of NVIDIA's causal FMHA samples spilled fed by TMA with 96 of 128
#: (`s_fmha_f16_causal`, `_m128_n128_ctas2`, `_m256_n128`: 204 bytes each; on
#: `cp.async`, none), and fit with 64 of 128 (`s_fmha_f16_causal_m64_n64`: 127
#: registers), 128 of 255 (the 128-wide causal attention tests) and 64 of 255
#: (`flash_attention_causal_bf16`); 32 to 64 free separates them.
LATER_LOOP_HEADROOM = 48


def _ring_loop(load: tas.AsyncTiledLoadOp, local: Operation) -> scf.ForOp | None:
    """The loop whose ring `load` fills: the loop it refills in (`local`), or the one
    its future enters (a prologue's load)."""
    if isinstance(local, scf.ForOp):
        return local
    return next((u.operation for u in load.result.uses if isinstance(u.operation, scf.ForOp)), None)


def _crowded_later_loop(loop: scf.ForOp | None) -> str | None:
    """Why a ring of `loop`, a loop after a loop of dots, stays on `cp.async` where
    its dots' accumulators leave fewer than `LATER_LOOP_HEADROOM` of the registers
    allowed (None: not so)."""
    if loop is None or not _dots_before(_top_level(loop)):
        return None
    fn = enclosing_function(loop)
    if fn is None:
        return None
    budget = register_budget(kernel_warps(loop) * 32, resident_ctas(fn, "sm_90a"))
    held = sum(accumulator_registers(d) for d in loop.walk() if isinstance(d, tas.DotOp))
    if budget - held >= LATER_LOOP_HEADROOM:
        return None
    return (
        "not yet: its loop follows a loop of dots, and its dots' accumulators take "
        f"{held} of the {budget} registers allowed (fed by TMA, s_fmha_f16_causal's "
        "second loop spilled 204 bytes at 96 of 128)"
    )


def _returns_early(op: Operation) -> bool:
    """Whether the function holding `op` (of its body) returns from a nested region."""
    fn = op.parent_op()
    assert fn is not None
    return any(
        o.name in ("func.return", "cuda_tile.return") and o.parent_op() is not fn for o in fn.walk()
    )


def _dots_before(anchor: Operation) -> bool:
    """Whether a loop of dots comes before `anchor` in its block."""
    before = anchor.prev_op
    while before is not None:
        if isinstance(before, scf.ForOp) and any(isinstance(o, tas.DotOp) for o in before.walk()):
            return True
        before = before.prev_op
    return False


def _feed_one_agent_rings(module: ModuleOp) -> None:
    """The loads of one-agent rings under mbarriers (a pipelined K loop's prologue and
    refills, outside any agent switch): fed by TMA where `decide_ring_load` allows, one
    map per tensor and box in a function, built before its first load's op of the
    function's body; the dot's operand-feed remark says so, or why not."""
    fed: dict[int, list[bool]] = {}
    dots: dict[int, tas.DotOp] = {}
    maps: dict[tuple[object, ...], SSAValue] = {}
    for load in [o for o in module.walk() if isinstance(o, tas.AsyncTiledLoadOp)]:
        if load.atom.info.is_tma or _in_switch(load):
            continue
        consumer = consumer_of(load.result)
        if consumer is None:
            continue
        dot, index = consumer
        dots[id(dot)] = dot
        try:
            feed, match, anchor = decide_ring_load(load, dot, index)
            key = (anchor.parent_block(), match.key)
            view = maps.get(key)
            if view is None and _dots_before(anchor):
                raise NotEligible(
                    "not yet: its map would be built after an earlier loop of dots, where "
                    "the build's registers come on top of the live accumulators "
                    "(s_fmha_f16_causal spilled 196 bytes at its 128)"
                )
        except NotEligible as why:
            load.attributes[TMA_BLOCKED_ATTR] = StringAttr(str(why))
            _add_clause(dot, f"{OPERAND_NAMES[index]}: stays on cp.async: {why}")
            fed.setdefault(id(dot), []).append(False)
            continue
        if view is None:
            view = maps[key] = _build_map(load, feed, match, None if anchor is load else anchor)
        kept = dict(load.attributes)  # (its stage, which places it in the ring)
        _load_through(load, feed, match, view).attributes.update(kept)
        if feed.mn_major:
            dot.attributes[B_MN_SWIZZLE_ATTR] = IntegerAttr(feed.swizzle, i64)
        _add_clause(dot, f"{OPERAND_NAMES[index]}: fed by TMA: {feed.describe()}")
        fed.setdefault(id(dot), []).append(True)
    for key, flags in fed.items():
        clauses = feed_clauses(dots[key])
        if clauses and any(flags):
            clauses[0] = clauses[0].replace(COPIES, BOXES if all(flags) else MIXED)
            set_feed_clauses(dots[key], clauses)


def _add_clause(dot: tas.DotOp, text: str) -> None:
    clauses = feed_clauses(dot) or []
    if text not in clauses:
        set_feed_clauses(dot, [*clauses, text])


__all__ = [
    "TMA_ATOM",
    "TMA_BLOCKED_ATTR",
    "TMA_FEED_ATTR",
    "Match",
    "TmaFeed",
    "TmaFeedsPass",
    "decide",
    "decide_ring_load",
    "rewrite",
    "tma_feed",
]
