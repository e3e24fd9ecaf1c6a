"""The one stated exception to "nv_tileas only": per-element cuda_tile compute ops on
builtin carriers (arithmetic, math, comparisons, conversions, select), constants, `iota`
and grid queries.  Each tile is the registers its layout gives the thread; an
elementwise op applies its scalar lowering (`scalar.py`) register by register.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    IntegerType,
    TensorType,
    i8,
    i32,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from tileir.conversions.tileas_to_llvm.context import (
    linear_layout,
)
from tileir.conversions.tileas_to_llvm.fp8 import is_fp8
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.conversions.tileas_to_llvm.scalar import SCALAR_LOWERINGS
from tileir.diagnostics import not_supported
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.types import PointerType
from tileir.utils.numeric import dense_splat, numpy_bits, to_signed

#: What to do instead of a constant tile of different values.
_NOT_DENSE = "build the tile from ct.arange, ct.full and arithmetic"


class LowerElementwise(TilePattern):
    """Each register of the result is the scalar op applied to the same registers of
    the operands (operands and result share one layout)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.ElementwiseOp, rewriter: PatternRewriter) -> None:
        lowering = SCALAR_LOWERINGS.get(type(op))
        if lowering is None:
            raise not_supported(op, "no code generation for this op")
        b = self.builder(rewriter, op)
        operand_regs = [self.ctx.registers_of(op, v) for v in op.args]
        n = max(len(r) for r in operand_regs)
        results = []
        # Registers that hold the same operand values (a broadcast operand, a splat)
        # share one result, so that equal values stay recognizably equal (a uniform
        # mask guards a whole vector access, LowerTiledLoad).
        computed: dict[tuple[SSAValue, ...], SSAValue] = {}
        for i in range(n):
            args = tuple(regs[i] if len(regs) > 1 else regs[0] for regs in operand_regs)
            if args not in computed:
                computed[args] = lowering(b, op, args)
            results.append(computed[args])
        rewriter.replace(op, [], [self.ctx.result_value(rewriter, results, op.result.type)])


class LowerConstant(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.ConstantOp, rewriter: PatternRewriter) -> None:
        el = element_type(op.result.type)
        splat = dense_splat(op.value)  # the common case: one element, without numpy
        if splat is not None and not isinstance(el, PointerType):
            self.lower(op, el, splat, rewriter)
            return
        data = op.values().reshape(-1)
        if isinstance(el, PointerType):
            raise not_supported(op, "pointer constants")
        if not bool((data == data[0]).all()) and data.dtype.kind != "f":
            raise not_supported(op, "non-splat dense constants", instead=_NOT_DENSE)
        if data.dtype.kind == "f" and not (
            bool((data == data[0]).all()) or bool(np_isnan_all(data))
        ):
            raise not_supported(op, "non-splat dense constants", instead=_NOT_DENSE)
        value = data[0].item() if hasattr(data[0], "item") else data[0]
        self.lower(op, el, value, rewriter)

    def lower(
        self, op: ct.ConstantOp, el: Attribute, value: float | int, rewriter: PatternRewriter
    ) -> None:
        """`op` as `value` in each register of its result."""
        b = self.builder(rewriter, op)
        if is_fp8(el):  # held as its bits in an i8 register
            scalar = b.const(to_signed(numpy_bits(float(value), el), 8), i8)
        elif isinstance(el, IntegerType):
            scalar = b.const(int(value), el)
        else:
            scalar = b.const(float(value), el)
        t = op.result.type
        count = linear_layout(op, t).num_registers if isinstance(t, TensorType) else 1
        rewriter.replace(op, [], [self.ctx.result_value(rewriter, [scalar] * count, t)])


def np_isnan_all(data: object) -> bool:
    import numpy as np

    return bool(np.isnan(np.asarray(data, dtype=np.float64)).all())


class LowerIota(TilePattern):
    """Register r holds coordinate R(r) XOR T(lane, warp) along the only dimension."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.IotaOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        layout = linear_layout(op, t)
        state = self.ctx.function_state(op)
        base = state.thread_coord(rewriter, layout, 0)
        b = self.builder(rewriter, op)
        el = element_type(t)
        assert isinstance(el, IntegerType)
        values = []
        for r in range(layout.num_registers):
            offset = layout.register_coord(r)[0]
            v = b.xor(base, b.const(offset, i32)) if offset else base
            values.append(b.int_cast(v, el, signed=False) if el != i32 else v)
        rewriter.replace(op, [], [self.ctx.pack(rewriter, values, t)])


class LowerGridQuery(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: ct.GetTileBlockIdOp | ct.GetNumTileBlocksOp, rewriter: PatternRewriter
    ) -> None:
        table = nvvm.CTAID if isinstance(op, ct.GetTileBlockIdOp) else nvvm.NCTAID
        b = self.builder(rewriter, op)
        values = [b.v(table[axis]()) for axis in "xyz"]
        rewriter.replace(op, [], values)
