"""Tensor slices: `nv_tileas.extract_slice`, `insert_slice` (cuda_tile's `insert`), an
insertion chain into an `alloc_tensor` (cuda_tile's `cat`), and `reinterpret`
(cuda_tile's `pack`/`unpack`).  Each is an exchange through shared memory
(`exchange.py`), or registers only where the layouts allow it (`insert_slice`, and
`extract_slice` at static offsets: `extract_plan`).

`insert_slice` as cuda_tile's `insert` (13.4): the destination tile with its block
`(i, ...)` (the destination cut into blocks of the source's shape) replaced by the
source.

In registers when the layouts allow it: when every thread holds, for each destination
element, the source element at the same coordinate relative to the block that element
lies in (the two layouts share their lane and warp bases, and a block is at least as
large as the part of the tile one register index spans over the CTA), each destination
register picks, with one `select`, the source register at its relative coordinate if
its (static) block is the one indexed, and keeps its value otherwise.  This is checked
for every register of every thread at compile time.

Otherwise one exchange through shared memory (`exchange.py`): every thread writes the
destination elements it holds into a buffer laid out as the destination, waits at a
CTA barrier, writes the source elements it holds at the block's origin
`Σ i_k · source_k · stride_k` (indices are dynamic), waits again, reads back its
destination registers, and waits a last time so that the next exchange may reuse the
arena.  The barrier between the two writes orders a destination element written by
one thread before the source element another thread writes at the same address.
Block indices outside the destination are undefined, as in cuda_tile (the source
then lands outside the tile's part of the buffer)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float4E2M1FNType, IndexType, IntegerAttr, TensorType, i8, i32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import (
    LoweringContext,
    linear_layout,
)
from tileir.conversions.tileas_to_llvm.exchange import (
    Exchange,
    check_exchangeable,
    element_kind,
    padded_strides,
)
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.diagnostics import not_supported
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import WARP_SIZE, LinearLayout
from tileir.utils.bits import storage_bits


def insertion_chain(op: tas.InsertSliceOp) -> list[tas.InsertSliceOp] | None:
    """The `insert_slice`s from an `alloc_tensor` to `op`, first to last, each the only
    user of the one before (as `convert-tileaa-to-tileas` makes a `cuda_tile.cat`); None
    when `op`'s destination does not come from an `alloc_tensor` that way."""
    chain = [op]
    while not isinstance(chain[-1].dest.owner, tas.AllocTensorOp):
        previous = chain[-1].dest.owner
        if not isinstance(previous, tas.InsertSliceOp) or len(list(previous.result.uses)) != 1:
            return None
        chain.append(previous)
    return chain[::-1]


def continues_chain(op: tas.InsertSliceOp) -> bool:
    """Whether `op`'s result is only the destination of another `insert_slice`."""
    uses = list(op.result.uses)
    return (
        len(uses) == 1 and isinstance(uses[0].operation, tas.InsertSliceOp) and uses[0].index == 1
    )


def _disjoint(boxes: Sequence[tuple[Sequence[int], Sequence[int]]]) -> bool:
    """Whether no two (offsets, sizes) boxes share an element."""
    for i, (o1, s1) in enumerate(boxes):
        for o2, s2 in boxes[i + 1 :]:
            if all(a < b + m and b < a + n for a, n, b, m in zip(o1, s1, o2, s2, strict=True)):
                return False
    return True


class LowerCat(TilePattern):
    """An insertion chain into a fresh tile, `alloc_tensor` then `insert_slice`s at
    static, disjoint offsets (`convert-tileaa-to-tileas`'s form of `cuda_tile.cat`),
    lowered at its last insert: every source writes into the result's buffer at its
    offset, then, after one barrier, each thread reads its result registers.  Elements
    no insert writes are undefined, as the fresh tile's are.  The inserts before the
    last and the `alloc_tensor` are left unused and erased."""

    def __init__(self, ctx: LoweringContext, exchange: Exchange):
        super().__init__(ctx)
        self.exchange = exchange

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.InsertSliceOp, rewriter: PatternRewriter) -> None:
        chain = insertion_chain(op)
        if chain is None or continues_chain(op):
            return
        res_t = op.result.type
        assert isinstance(res_t, TensorType)
        boxes: list[tuple[list[int], list[int]]] = []
        for insert in chain:
            offsets, sizes = insert.mixed_offsets(), insert.mixed_sizes()
            source_t = insert.source.type
            assert isinstance(source_t, TensorType)
            if (
                not all(isinstance(o, int) for o in offsets)
                or sizes != list(source_t.get_shape())
                or any(s != 1 for s in insert.mixed_strides())
            ):
                raise not_supported(
                    insert,
                    "insertion chain into alloc_tensor at dynamic offsets, or with sizes "
                    "other than its sources' or strides",
                )
            boxes.append(([o for o in offsets if isinstance(o, int)], list(source_t.get_shape())))
        if not _disjoint(boxes):
            raise not_supported(op, "insertion chain into alloc_tensor at overlapping slices")
        ex, ctx = self.exchange, self.ctx
        sources = [linear_layout(op, insert.source.type) for insert in chain]
        result = linear_layout(op, res_t)
        for layout in [*sources, result]:
            check_exchangeable(op, layout)
        kind = element_kind(op, res_t)
        strides, size = padded_strides(res_t.get_shape(), kind.bits)
        state = ctx.function_state(op)
        (smem,) = ex.allocator.allocate(op, state, rewriter, [size])
        b = LLBuilder(rewriter, InsertPoint.before(op))
        shifts = [
            sum(o * stride for o, stride in zip(offsets, strides, strict=True))
            for offsets, _ in boxes
        ]
        bases = [smem if shift == 0 else b.add(smem, b.const(shift, i32)) for shift in shifts]
        for insert, layout, base, shift in zip(chain, sources, bases, shifts, strict=True):
            registers = ctx.registers_of(op, insert.source)
            aligned_to = [shift] if shift else []
            ex.write(
                b, rewriter, state, registers, layout, strides, base, kind, aligned_to=aligned_to
            )
        b.op(nvvm.Barrier0Op())
        results = ex.read(b, rewriter, state, result, strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        rewriter.replace(op, [], [ctx.pack(rewriter, results, res_t)])
        for insert in reversed(chain[:-1]):
            rewriter.erase(insert)
        alloc = chain[0].dest.owner
        assert isinstance(alloc, tas.AllocTensorOp)
        rewriter.erase(alloc)


class LowerExtract(TilePattern):
    """`nv_tileas.extract_slice` of a tile: where the offsets are static and every thread
    holds the slice's elements in its own source registers (`extract_plan`), the result
    is those registers; otherwise the source goes into a buffer, and each thread
    reads its result registers from the sub-tile at the offsets.  An offset is a multiple
    of the slice's size (as `convert-tileaa-to-tileas` makes them from cuda_tile's tile
    coordinates): static, or `index_cast(%i) * size`, and the buffer address adds the
    tile coordinate (`offset / size`, or `%i`) times the sub-tile's step in the buffer.
    Coordinates outside the source are undefined, as in cuda_tile."""

    def __init__(self, ctx: LoweringContext, exchange: Exchange):
        super().__init__(ctx)
        self.exchange = exchange

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.ExtractSliceOp, rewriter: PatternRewriter) -> None:
        src_t, res_t = op.source.type, op.result.type
        if not isinstance(src_t, TensorType) or not isinstance(res_t, TensorType):
            raise not_supported(op, "extract_slice of a tiled view")
        shape = res_t.get_shape()
        if op.mixed_sizes() != list(shape) or any(s != 1 for s in op.mixed_strides()):
            raise not_supported(op, "extract_slice with sizes other than its result's, or strides")
        ex, ctx = self.exchange, self.ctx
        src, res = linear_layout(op, src_t), linear_layout(op, res_t)
        offsets = op.mixed_offsets()
        if all(isinstance(o, int) for o in offsets):
            plan = extract_plan(src, res, [o for o in offsets if isinstance(o, int)], shape)
            if plan is not None:
                sources = ctx.registers_of(op, op.source)
                results = [sources[s] for s in plan]
                rewriter.replace(op, [], [ctx.pack(rewriter, results, res_t)])
                return
        check_exchangeable(op, src)
        check_exchangeable(op, res)
        kind = element_kind(op, src_t)
        strides, size = padded_strides(src_t.get_shape(), kind.bits)
        state = ctx.function_state(op)
        (smem,) = ex.allocator.allocate(op, state, rewriter, [size])
        b = LLBuilder(rewriter, InsertPoint.before(op))
        ex.write(b, rewriter, state, ctx.registers_of(op, op.source), src, strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        steps = [extent * stride for extent, stride in zip(shape, strides, strict=True)]
        origin = smem
        for offset, extent, step in zip(op.mixed_offsets(), shape, steps, strict=True):
            coordinate = tile_coordinate(self.ctx, op, b, offset, extent)
            origin = b.add(origin, b.mul(coordinate, b.const(step, i32)))
        results = ex.read(b, rewriter, state, res, strides, origin, kind, aligned_to=steps)
        b.op(nvvm.Barrier0Op())
        rewriter.replace(op, [], [ctx.pack(rewriter, results, res_t)])


def tile_coordinate(
    ctx: LoweringContext, op: Operation, b: LLBuilder, offset: int | SSAValue, extent: int
) -> SSAValue:
    """The i32 register of a slice's `offset / extent`: a static offset (a multiple of
    the extent) as a constant, a dynamic one in the form `convert-tileaa-to-tileas` makes
    from a cuda_tile tile coordinate, `index_cast(%i) * extent`, as `%i`'s own register."""
    if isinstance(offset, int):
        if offset % extent:
            raise not_supported(
                op,
                f"{op.name} at offset {offset}, not a multiple of {extent}",
                instead=f"extract at a multiple of the result's size ({extent})",
            )
        return b.const(offset // extent, i32)
    mul = offset.owner
    if isinstance(mul, arith.MuliOp) and isinstance(cast := mul.lhs.owner, arith.IndexCastOp):
        step = mul.rhs.owner
        if isinstance(step, arith.ConstantOp) and step.value == IntegerAttr(extent, IndexType()):
            (coordinate,) = ctx.registers_of(op, cast.input)
            return coordinate
    raise not_supported(op, f"{op.name} at a dynamic offset other than index_cast(i32) * size")


class LowerByteView(TilePattern):
    """`nv_tileas.reinterpret` of a rank-1 tile (cuda_tile's `pack` / `unpack`): the
    tile's elements go into a buffer back to back and come out as elements of the
    other type (little-endian, as the GPU stores them).

    f4E2M1FN elements (one to a register byte, `fp8.py`) take one byte each in the
    buffer: `unpack` of bytes writes each byte's low nibble at twice its index and
    its high nibble after it (element 2i is byte i's low nibble, as cuTile and numpy
    pack them); `pack` reads the two bytes of each result byte and joins them."""

    def __init__(self, ctx: LoweringContext, exchange: Exchange):
        super().__init__(ctx)
        self.exchange = exchange

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.ReinterpretOp, rewriter: PatternRewriter) -> None:
        src_t, res_t = op.src.type, op.result.type
        if not isinstance(src_t, TensorType) or not isinstance(res_t, TensorType):
            raise not_supported(op, "reinterpret of a tiled view")
        if len(src_t.get_shape()) != 1 or len(res_t.get_shape()) != 1:
            raise not_supported(
                op,
                "reinterpret of tiles of rank other than 1",
                instead="bitcast 1-D tiles (ct.reshape before and after)",
            )
        ex, ctx = self.exchange, self.ctx
        src, res = linear_layout(op, src_t), linear_layout(op, res_t)
        check_exchangeable(op, src)
        check_exchangeable(op, res)
        src_kind, res_kind = element_kind(op, src_t), element_kind(op, res_t)
        if src_kind.is_bool or res_kind.is_bool:
            raise not_supported(
                op, f"{op.name} of i1 tiles", instead="convert the tile to i8 first (ct.astype)"
            )
        for t in (src_t, res_t):
            if storage_bits(element_type(t)) == 4 and not isinstance(
                element_type(t), Float4E2M1FNType
            ):
                raise not_supported(op, f"{op.name} of {element_type(t)} tiles")
        nibbles = [isinstance(element_type(t), Float4E2M1FNType) for t in (src_t, res_t)]
        if any(nibbles) and (all(nibbles) or src_kind.bits != 8 or res_kind.bits != 8):
            raise not_supported(
                op,
                f"{op.name} between {element_type(src_t)} and {element_type(res_t)}",
                instead="pack f4E2M1FN tiles to i8 and unpack i8 tiles to f4E2M1FN",
            )
        size = src_t.get_shape()[0] * src_kind.bits // 8
        state = ctx.function_state(op)
        b = LLBuilder(rewriter, InsertPoint.before(op))
        values = ctx.registers_of(op, op.src)
        if nibbles[1]:  # bytes -> nibbles
            (smem,) = ex.allocator.allocate(op, state, rewriter, [2 * size])
            low = [b.and_(v, b.const(0xF, i8)) for v in values]
            high = [b.lshr(v, b.const(4, i8)) for v in values]
            ex.write(b, rewriter, state, low, src, [2], smem, src_kind)
            ex.write(b, rewriter, state, high, src, [2], b.add(smem, b.const(1, i32)), src_kind)
            b.op(nvvm.Barrier0Op())
            results = ex.read(b, rewriter, state, res, [1], smem, res_kind)
        elif nibbles[0]:  # nibbles -> bytes
            (smem,) = ex.allocator.allocate(op, state, rewriter, [size])
            ex.write(b, rewriter, state, values, src, [1], smem, src_kind)
            b.op(nvvm.Barrier0Op())
            low = ex.read(b, rewriter, state, res, [2], smem, res_kind)
            high = ex.read(b, rewriter, state, res, [2], b.add(smem, b.const(1, i32)), res_kind)
            mask, four = b.const(0xF, i8), b.const(4, i8)
            results = [
                b.or_(b.and_(lo, mask), b.shl(hi, four)) for lo, hi in zip(low, high, strict=True)
            ]
        else:
            (smem,) = ex.allocator.allocate(op, state, rewriter, [size])
            ex.write(b, rewriter, state, values, src, [src_kind.bits // 8], smem, src_kind)
            b.op(nvvm.Barrier0Op())
            results = ex.read(b, rewriter, state, res, [res_kind.bits // 8], smem, res_kind)
        b.op(nvvm.Barrier0Op())
        rewriter.replace(op, [], [ctx.pack(rewriter, results, res_t)])


def register_plan(
    src: LinearLayout, dst: LinearLayout, block_shape: Sequence[int]
) -> list[tuple[tuple[int, ...], int]] | None:
    """For each destination register, (its block, the source register at its relative
    coordinate), when that holds in every thread; None when the tile must move between
    threads."""
    if src.lanes != dst.lanes or src.warps != dst.warps:
        return None
    by_coord: dict[tuple[int, ...], int] = {}
    for r in range(src.num_registers):
        by_coord.setdefault(src.register_coord(r), r)
    plan: list[tuple[tuple[int, ...], int]] = []
    for r in range(dst.num_registers):
        d = dst.register_coord(r)
        block = tuple(x // e for x, e in zip(d, block_shape, strict=True))
        relative = tuple(x - k * e for x, k, e in zip(d, block, block_shape, strict=True))
        s = by_coord.get(relative)
        if s is None:
            return None
        plan.append((block, s))
    for warp in range(dst.num_warps):
        for lane in range(WARP_SIZE):
            for r, (block, s) in enumerate(plan):
                d = dst.coord(r, lane, warp)
                c = src.coord(s, lane, warp)
                if any(x - k * e != y for x, k, e, y in zip(d, block, block_shape, c, strict=True)):
                    return None
    return plan


def extract_plan(
    src: LinearLayout, res: LinearLayout, offsets: Sequence[int], shape: Sequence[int]
) -> list[int] | None:
    """For each register of a slice of `shape` at static `offsets` (multiples of `shape`),
    the source register that holds the same element in every thread; None when the
    slice must move between threads: as a 32-row slice of a tile whose layout covers 32
    rows per register block.

    Checked on the layouts' bases, not thread by thread: where both layouts have the same
    lane and warp bases and the slice's extents are powers of two (tile extents are),
    the lane and warp part `t` of a coordinate lies inside the slice, so element
    `r_res ^ t` of the slice is element `(r_res + offsets) ^ t` of the source (the
    offsets only set bits above the slice's), which the source holds in the same thread
    exactly where a source register's coordinate is `r_res + offsets`."""
    if src.lanes != res.lanes or src.warps != res.warps:
        return None
    if any(e & (e - 1) or o % e for o, e in zip(offsets, shape, strict=True)):
        return None
    held: dict[tuple[int, ...], int] = {}
    for s in range(src.num_registers):
        held.setdefault(src.register_coord(s), s)
    plan: list[int] = []
    for r in range(res.num_registers):
        at = tuple(x + o for x, o in zip(res.register_coord(r), offsets, strict=True))
        s = held.get(at)
        if s is None:
            return None
        plan.append(s)
    return plan


class LowerInsert(TilePattern):
    """`nv_tileas.insert_slice` of a tile (cuda_tile's `insert`, 13.4): sizes the
    source's shape, strides 1, offsets multiples of the sizes (static, or
    `index_cast(%i) * size` as `convert-tileaa-to-tileas` makes them from cuda_tile's
    block indices).  In registers when the layouts allow it, otherwise one exchange
    (the module docstring)."""

    def __init__(self, ctx: LoweringContext, exchange: Exchange):
        super().__init__(ctx)
        self.exchange = exchange

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.InsertSliceOp, rewriter: PatternRewriter) -> None:
        if insertion_chain(op) is not None:
            return  # `LowerCat`'s
        src_t, dst_t = op.source.type, op.dest.type
        assert isinstance(src_t, TensorType) and isinstance(dst_t, TensorType)
        shape = src_t.get_shape()
        if op.mixed_sizes() != list(shape) or any(s != 1 for s in op.mixed_strides()):
            raise not_supported(op, "insert_slice with sizes other than its source's, or strides")
        ex, ctx = self.exchange, self.ctx
        b = LLBuilder(rewriter, InsertPoint.before(op))
        indices = [
            tile_coordinate(ctx, op, b, offset, extent)
            for offset, extent in zip(op.mixed_offsets(), shape, strict=True)
        ]
        src, dst = linear_layout(op, src_t), linear_layout(op, dst_t)
        plan = register_plan(src, dst, src_t.get_shape())
        if plan is not None:
            sources = ctx.registers_of(op, op.source)
            results = list(ctx.registers_of(op, op.dest))
            taken: dict[tuple[int, ...], SSAValue] = {}
            for r, (block, s) in enumerate(plan):
                here = taken.get(block)
                if here is None:
                    conditions = [
                        b.icmp("eq", i, b.const(k, i32))
                        for i, k in zip(indices, block, strict=True)
                    ]
                    here = conditions[0]
                    for c in conditions[1:]:
                        here = b.and_(here, c)
                    taken[block] = here
                results[r] = b.select(here, sources[s], results[r])
            rewriter.replace(op, [], [ctx.pack(rewriter, results, dst_t)])
            return
        check_exchangeable(op, src)
        check_exchangeable(op, dst)
        kind = element_kind(op, dst_t)
        strides, size = padded_strides(dst_t.get_shape(), kind.bits)
        state = ctx.function_state(op)
        (smem,) = ex.allocator.allocate(op, state, rewriter, [size])
        destination = ctx.registers_of(op, op.dest)
        ex.write(b, rewriter, state, destination, dst, strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        steps = [extent * stride for extent, stride in zip(src_t.get_shape(), strides, strict=True)]
        origin = smem
        for i, step in zip(indices, steps, strict=True):
            origin = b.add(origin, b.mul(i, b.const(step, i32)))
        source = ctx.registers_of(op, op.source)
        ex.write(b, rewriter, state, source, src, strides, origin, kind, aligned_to=steps)
        b.op(nvvm.Barrier0Op())
        results = ex.read(b, rewriter, state, dst, strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        rewriter.replace(op, [], [ctx.pack(rewriter, results, dst_t)])
