"""Constant dot folding (seed 004 row "Dot folding", "Constant Dot Folding")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import IntegerType
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.dialects.cuda_tile.attributes import Signedness
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileaa.canonicalize.constants import (
    constant_array,
    is_constant,
    is_finite_tile,
    is_zero_tile,
    materialize,
)
from tileir.utils.numeric import numpy_dtype

if TYPE_CHECKING:
    import numpy as np

#: Largest M*N*K (times the batch) folded at compile time.
MAX_FOLDED_PRODUCTS = 1 << 22


def _integer_operand(data: np.ndarray, signedness: Signedness, width: int) -> np.ndarray:
    """Integer elements as the operation's signedness reads them (i8 bits as -128..127
    or 0..255)."""
    import numpy as np

    bits = data.astype(np.int64) & ((1 << width) - 1)
    if signedness is Signedness.UNSIGNED:
        return bits
    return _wrap(bits, width)


def _wrap(values: np.ndarray, width: int) -> np.ndarray:
    """Two's-complement wrap to `width` bits."""
    m = 1 << width
    return ((values + (m >> 1)) % m) - (m >> 1)


def fold_dot_values(op: aa.DotOp, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray | None:
    """`c + a @ b`, each product and sum rounded in the accumulator type (for floats) or
    wrapped to it (for integers, operands read with their signedness), k in order."""
    import numpy as np

    acc_el = element_type(op.acc.type)
    if isinstance(acc_el, IntegerType):
        signedness = op.signedness()
        if signedness is None:
            return None
        in_el = element_type(op.lhs.type)
        assert isinstance(in_el, IntegerType)
        w = in_el.width.data
        lhs = _integer_operand(a, signedness[0], w)
        rhs = _integer_operand(b, signedness[1], w)
        result = c.astype(np.int64)
        for k in range(lhs.shape[-1]):
            result = _wrap(
                result + lhs[..., :, k : k + 1] * rhs[..., k : k + 1, :], acc_el.width.data
            )
        return result
    try:
        acc_dtype = numpy_dtype(acc_el)
    except ValueError:
        return None
    lhs = a.astype(np.float64).astype(acc_dtype)
    rhs = b.astype(np.float64).astype(acc_dtype)
    result = c.astype(acc_dtype)
    with np.errstate(all="ignore"):
        for k in range(lhs.shape[-1]):
            product = (lhs[..., :, k : k + 1] * rhs[..., k : k + 1, :]).astype(acc_dtype)
            result = (result + product).astype(acc_dtype)
    return result


class FoldConstantDot(RewritePattern):
    """`fold_constant_dot`: a dot of constant operands becomes a constant, computed as the
    seed's loop does: `result[m, n] += convert(a[m, k]) * convert(b[k, n])`, converting to
    and rounding in the accumulator type (never the narrow input format), integers
    read with the operation's signedness and wrapped to the accumulator.  A zero
    multiplicand makes the result the accumulator unchanged.

    Safety: both multiplicands and the accumulator are compile-time constants (and the
    product count is at most 2^22), or a multiplicand is zero and the other is a
    constant without infinities or NaNs (0 * inf is NaN), or the dot is on integers
    (where 0 * x is 0)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.DotOp, rewriter: PatternRewriter) -> None:
        if op.scales is not None:  # a block-scaled dot: its scales are not folded in
            return
        integer = isinstance(element_type(op.lhs.type), IntegerType)
        for zero, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if is_zero_tile(zero) and (integer or is_finite_tile(other)):
                rewriter.replace(op, [], [op.acc])
                return
        if not all(map(is_constant, (op.lhs, op.rhs, op.acc))):
            return  # (without making a constant accumulator's array: numpy)
        import numpy as np

        a, b, c = (constant_array(v) for v in (op.lhs, op.rhs, op.acc))
        if a is None or b is None or c is None:
            return
        sa, sb = shape_of(op.lhs.type), shape_of(op.rhs.type)
        if math.prod(sa) * sb[-1] > MAX_FOLDED_PRODUCTS:
            return
        values = fold_dot_values(op, np.asarray(a), np.asarray(b), np.asarray(c))
        if values is None:
            return
        rewriter.replace(op, materialize(values, op.result.type))


DOT_PATTERNS: tuple[type[RewritePattern], ...] = (FoldConstantDot,)
