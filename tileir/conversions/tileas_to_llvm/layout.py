"""Layout ops on distributed tiles: `nv_tileas.splat`, `broadcast`, `expand_dims`
(registers are reused, never moved between threads), `convert_layout` and `shuffle`
(cuda_tile's `permute`; an exchange through shared memory, `exchange.py`, unless every
thread holds in the result the elements it held in the source: a renaming of registers), and `view` (a reshape).

The value form of `nv_tileas.view` on distributed tiles: cuda_tile `reshape` (other
than a splat or inserting unit dimensions, which become `splat` and `expand_dims`).

A reshape keeps the row-major order of the elements: result element `d` is source
element `c` when both have the same linear index `Σ_k c_k · Π_{j>k} shape_j`.
Linear indices are linear in the coordinates of either shape, so the exchange
buffer is the tile in row-major order *without* padding: the source writes element
`c` at `linear(c) · size` with the source's row-major strides, and the result reads
element `d` at `linear(d) · size` with its own (`exchange.Exchange`).

When both layouts put the element of every linear index in the same thread and
register — the same linear index for each register, lane and warp basis, which for
power-of-two shapes (bit fields of the linear index) decides it for every
register of every thread — the reshape renames registers and moves nothing.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import (
    TensorType,
)
from xdsl.ir import Attribute, Operation
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
    replicated,
)
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.diagnostics import CompileError, error_at, location_of
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile.carriers import shape_of
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import LinearLayout, row_major_strides, same_registers

# ---------------------------------------------------------------------------
# Shape ops: registers are reused, never moved between threads.
# ---------------------------------------------------------------------------


def register_renaming(src: LinearLayout, res: LinearLayout, project) -> list[int] | None:
    """For each result register, the source register holding the same element, where
    `project` maps result coordinates to source coordinates: None unless the lane and
    warp parts of the two layouts agree under `project` (the same thread holds each
    element) and each result register's element is in one of the thread's registers."""
    if (
        tuple(project(b) for b in res.lanes) != src.lanes
        or tuple(project(b) for b in res.warps) != src.warps
    ):
        return None
    where: dict[tuple[int, ...], int] = {}
    for s in range(src.num_registers):
        where.setdefault(src.register_coord(s), s)
    out = []
    for r in range(res.num_registers):
        key = project(res.register_coord(r))
        if key not in where:
            return None
        out.append(where[key])
    return out


def register_map(op: Operation, src: LinearLayout, res: LinearLayout, project) -> list[int]:
    """`register_renaming`, which the shape ops' layouts guarantee (an error otherwise)."""
    out = register_renaming(src, res, project)
    if out is None:
        raise error_at(
            op, "source and result layouts distribute threads differently; insert a convert_layout"
        )
    return out


class LowerSplat(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.SplatOp, rewriter: PatternRewriter) -> None:
        (scalar,) = self.ctx.registers_of(op, op.src)
        n = linear_layout(op, op.result.type).num_registers
        rewriter.replace(op, [], [self.ctx.pack(rewriter, [scalar] * n, op.result.type)])


class LowerBroadcast(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.BroadcastOp, rewriter: PatternRewriter) -> None:
        src_shape = shape_of(op.src.type)
        src = linear_layout(op, op.src.type)
        res = linear_layout(op, op.result.type)

        def project(c: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(0 if s == 1 else x for x, s in zip(c, src_shape, strict=True))

        mapping = register_map(op, src, res, project)
        regs = self.ctx.registers_of(op, op.src)
        rewriter.replace(
            op, [], [self.ctx.pack(rewriter, [regs[m] for m in mapping], op.result.type)]
        )


class LowerExpandDims(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.ExpandDimsOp, rewriter: PatternRewriter) -> None:
        axis = op.axis.value.data
        if not shape_of(op.src.type):
            (scalar,) = self.ctx.registers_of(op, op.src)
            n = linear_layout(op, op.result.type).num_registers
            rewriter.replace(op, [], [self.ctx.pack(rewriter, [scalar] * n, op.result.type)])
            return
        src = linear_layout(op, op.src.type)
        res = linear_layout(op, op.result.type)

        def project(c: tuple[int, ...]) -> tuple[int, ...]:
            return c[:axis] + c[axis + 1 :]

        mapping = register_map(op, src, res, project)
        regs = self.ctx.registers_of(op, op.src)
        rewriter.replace(
            op, [], [self.ctx.pack(rewriter, [regs[m] for m in mapping], op.result.type)]
        )


class LowerConvertLayout(TilePattern):
    """`nv_tileas.convert_layout`: registers when both layouts place every element in
    the same thread and register, otherwise an exchange through shared memory."""

    def __init__(self, ctx: LoweringContext, exchange: Exchange):
        super().__init__(ctx)
        self.exchange = exchange

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.ConvertLayoutOp, rewriter: PatternRewriter) -> None:
        values = self.ctx.registers_of(op, op.src)
        src = linear_layout(op, op.src.type)
        dst = linear_layout(op, op.result.type)
        if src == dst:
            rewriter.replace(op, [], [self.ctx.pack(rewriter, values, op.result.type)])
            return
        if replicated(src) and replicated(dst):
            # Every thread holds the whole tile in both (a 1-element tile, typically):
            # each result register is a source register holding the same element.
            held = {src.register_coord(r): r for r in range(src.num_registers)}
            picked = [values[held[dst.register_coord(r)]] for r in range(dst.num_registers)]
            rewriter.replace(op, [], [self.ctx.pack(rewriter, picked, op.result.type)])
            return
        rank = len(src.shape)
        results = self.exchange.run(
            op, rewriter, values, op.src.type, op.result.type, tuple(range(rank))
        )
        rewriter.replace(op, [], [self.ctx.pack(rewriter, results, op.result.type)])


class LowerPermute(TilePattern):
    """`nv_tileas.shuffle` (cuda_tile's `permute`) on distributed tiles: a renaming of
    registers where every thread holds in the result the elements it held in the source
    (the result's layout is the source's, its dimensions relabelled), otherwise an
    exchange that writes each element at its permuted coordinate."""

    def __init__(self, ctx: LoweringContext, exchange: Exchange):
        super().__init__(ctx)
        self.exchange = exchange

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.ShuffleOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.src.type, TensorType):
            return
        values = self.ctx.registers_of(op, op.src)
        perm = op.perm
        src = linear_layout(op, op.src.type)
        res = linear_layout(op, op.result.type)
        inverse = [perm.index(d) for d in range(len(perm))]

        def project(c: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(c[i] for i in inverse)

        renaming = register_renaming(src, res, project)
        if renaming is not None:
            # The result's layout is the source's relabelled (a tile on its way to a
            # dot: `assign_layouts.chain_layouts`): every thread holds its elements.
            picked = [values[r] for r in renaming]
            rewriter.replace(op, [], [self.ctx.pack(rewriter, picked, op.result.type)])
            return
        results = self.exchange.run(op, rewriter, values, op.src.type, op.result.type, perm)
        rewriter.replace(op, [], [self.ctx.pack(rewriter, results, op.result.type)])


#: How `shared_arena` words a buffer over the CTA's shared memory (a limit, not a gap).
SHARED_LIMIT = "exceeds the shared memory limit: "


def reshape_error(
    op: Operation, src_t: Attribute, dst_t: Attribute, error: CompileError
) -> CompileError:
    """`error` (from the exchange a reshape needs) reworded to name the reshape: a
    shared-memory limit as a limit, anything else as what tileir does not do yet."""

    def shape(t: Attribute) -> str:
        assert isinstance(t, TensorType)
        return "x".join(str(n) for n in t.get_shape()) or "scalar"

    what = f"reshape of a {shape(src_t)} tile to {shape(dst_t)}"
    message = error.message
    if SHARED_LIMIT in message:
        text = f"{what} {SHARED_LIMIT}{message.split(SHARED_LIMIT, 1)[1]}"
    else:
        text = f"{what} is not supported by tileir yet: {message.split(': ', 1)[-1]}"
    return CompileError(text, location_of(op))


class LowerReshape(TilePattern):
    """A value `nv_tileas.view` of a tensor: a register renaming, or an exchange through
    an unpadded row-major shared-memory buffer.  (A view of pointers is storage, for the
    tiled loads and stores that read it.)"""

    def __init__(self, ctx: LoweringContext, exchange: Exchange):
        super().__init__(ctx)
        self.exchange = exchange

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.ViewOp, rewriter: PatternRewriter) -> None:
        src_t, dst_t = op.src.type, op.result.type
        if not op.is_value_view or not isinstance(src_t, TensorType):
            return
        ctx, ex = self.ctx, self.exchange
        if not isinstance(dst_t, TensorType):
            # To rank 0: a layout of a one-element tile maps every register of every
            # thread to that element, so each thread's first register is the scalar.
            first = ctx.registers_of(op, op.src)[:1]
            rewriter.replace(op, [], [ctx.result_value(rewriter, first, dst_t)])
            return
        values = ctx.registers_of(op, op.src)
        src, dst = linear_layout(op, src_t), linear_layout(op, dst_t)
        if same_registers(src, dst):
            rewriter.replace(op, [], [ctx.pack(rewriter, values, dst_t)])
            return
        try:
            check_exchangeable(op, src)
            check_exchangeable(op, dst)
            kind = element_kind(op, src_t)
            size = max(kind.bits, 8) // 8
            state = ctx.function_state(op)
            (smem,) = ex.allocator.allocate(
                op, state, rewriter, [math.prod(src_t.get_shape()) * size]
            )
        except CompileError as e:
            raise reshape_error(op, src_t, dst_t, e) from None
        b = LLBuilder(rewriter, InsertPoint.before(op))
        src_strides = row_major_strides(src_t.get_shape(), size)
        dst_strides = row_major_strides(dst_t.get_shape(), size)
        ex.write(b, rewriter, state, values, src, src_strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        results = ex.read(b, rewriter, state, dst, dst_strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        rewriter.replace(op, [], [ctx.pack(rewriter, results, dst_t)])
