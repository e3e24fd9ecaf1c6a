"""`cuda_tile.insert` (13.4): the destination tile with its block `(i, ...)` (the
destination cut into blocks of the source's shape) replaced by the source.

One exchange through shared memory (`shared_memory.py`): every thread writes the
destination elements it holds into a buffer laid out as the destination, waits at a
CTA barrier, writes the source elements it holds at the block's origin
`Σ i_k · source_k · stride_k` (indices are dynamic), waits again, reads back its
destination registers, and waits a last time so that the next exchange may reuse the
arena.  The barrier between the two writes orders a destination element written by
one thread before the source element another thread writes at the same address.
Block indices outside the destination are undefined, as in cuda_tile (the source
then lands outside the tile's part of the buffer)."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, i32
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import LoweringContext, linear_layout
from tileir.conversions.tileas_to_llvm.patterns import TilePattern
from tileir.conversions.tileas_to_llvm.shared_memory import (
    Exchange,
    check_exchangeable,
    element_kind,
    padded_strides,
)
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile.ops.newer import InsertOp


class LowerInsert(TilePattern):
    def __init__(self, ctx: LoweringContext, exchange: Exchange):
        super().__init__(ctx)
        self.exchange = exchange

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: InsertOp, rewriter: PatternRewriter) -> None:
        src_t, dst_t = op.source.type, op.destination.type
        if not isinstance(dst_t, TensorType):
            # A rank-0 destination is one block: the source itself.
            rewriter.replace(op, [], [op.source])
            return
        assert isinstance(src_t, TensorType)
        ex, ctx = self.exchange, self.ctx
        src, dst = linear_layout(op, src_t), linear_layout(op, dst_t)
        check_exchangeable(op, src)
        check_exchangeable(op, dst)
        kind = element_kind(op, dst_t)
        strides, size = padded_strides(dst_t.get_shape(), kind.bits)
        state = ctx.function_state(op)
        (smem,) = ex.allocator.allocate(op, state, rewriter, [size])
        b = LLBuilder(rewriter, InsertPoint.before(op))
        destination = ctx.registers_of(op, op.destination)
        ex.write(b, rewriter, state, destination, dst, strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        steps = [extent * stride for extent, stride in zip(src_t.get_shape(), strides, strict=True)]
        origin = smem
        for index, step in zip(op.indices, steps, strict=True):
            (i,) = ctx.registers_of(op, index)
            origin = b.add(origin, b.mul(i, b.const(step, i32)))
        source = ctx.registers_of(op, op.source)
        ex.write(b, rewriter, state, source, src, strides, origin, kind, aligned_to=steps)
        b.op(nvvm.Barrier0Op())
        results = ex.read(b, rewriter, state, dst, strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        rewriter.replace(op, [], [ctx.pack(rewriter, results, dst_t)])
