"""The value form of `nv_tileas.view` on distributed tiles: cuda_tile `reshape` (other
than a splat or inserting unit dimensions, which become `splat` and `expand_dims`).

A reshape keeps the row-major order of the elements: result element `d` is source
element `c` when both have the same linear index `Σ_k c_k · Π_{j>k} shape_j`.
Linear indices are linear in the coordinates of either shape, so the exchange
buffer is the tile in row-major order *without* padding: the source writes element
`c` at `linear(c) · size` with the source's row-major strides, and the result reads
element `d` at `linear(d) · size` with its own (`shared_memory.Exchange`).

When both layouts put the element of every linear index in the same thread and
register — the same linear index for each register, lane and warp basis, which for
power-of-two shapes (bit fields of the linear index) decides it for every
register of every thread — the reshape renames registers and moves nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import LoweringContext, linear_layout
from tileir.conversions.tileas_to_llvm.patterns import TilePattern
from tileir.conversions.tileas_to_llvm.shared_memory import (
    Exchange,
    check_exchangeable,
    element_kind,
)
from tileir.diagnostics import CompileError, location_of
from tileir.dialects import nvvm
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import LinearLayout


def row_major_strides(shape: Sequence[int], size: int = 1) -> list[int]:
    """Strides (in units of `size`) of a dense row-major tile of `shape`."""
    strides = [0] * len(shape)
    stride = size
    for d in reversed(range(len(shape))):
        strides[d] = stride
        stride *= shape[d]
    return strides


def _linear(coord: Sequence[int], strides: Sequence[int]) -> int:
    return sum(x * s for x, s in zip(coord, strides, strict=True))


def same_registers(src: LinearLayout, dst: LinearLayout) -> bool:
    """Whether every thread holds, in each register, the element of the same linear
    index under both layouts (a reshape is then a renaming of registers)."""
    if not all(n & (n - 1) == 0 for n in (*src.shape, *dst.shape)):
        return False
    if (len(src.registers), len(src.lanes), len(src.warps)) != (
        len(dst.registers),
        len(dst.lanes),
        len(dst.warps),
    ):
        return False
    s, d = row_major_strides(src.shape), row_major_strides(dst.shape)
    pairs = (
        (src.registers, dst.registers),
        (src.lanes, dst.lanes),
        (src.warps, dst.warps),
    )
    return all(
        _linear(a, s) == _linear(b, d)
        for bases_src, bases_dst in pairs
        for a, b in zip(bases_src, bases_dst, strict=True)
    )


def reshape_error(op: Operation, src_t: Attribute, dst_t: Attribute, why: str) -> CompileError:
    def shape(t: Attribute) -> str:
        assert isinstance(t, TensorType)
        return "x".join(str(n) for n in t.get_shape()) or "scalar"

    return CompileError(
        f"reshape of a {shape(src_t)} tile to {shape(dst_t)} is not supported by tileir yet: {why}",
        location_of(op),
    )


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
            raise reshape_error(op, src_t, dst_t, e.message.split(": ", 1)[-1]) from None
        b = LLBuilder(rewriter, InsertPoint.before(op))
        src_strides = row_major_strides(src_t.get_shape(), size)
        dst_strides = row_major_strides(dst_t.get_shape(), size)
        ex.write(b, rewriter, state, values, src, src_strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        results = ex.read(b, rewriter, state, dst, dst_strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        rewriter.replace(op, [], [ctx.pack(rewriter, results, dst_t)])
