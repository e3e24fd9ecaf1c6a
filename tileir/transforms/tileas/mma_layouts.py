"""MMA accumulator layouts for `tileas-assign-layouts`.

A tensor-core `dot` (`nv_tileaa.dot` that `convert-tileas-to-llvm` lowers to
`mma.sync`, see `tileir/conversions/tileas_to_llvm/mma.py`) reads and writes its
accumulator in the MMA accumulator layout (`#nv_tileas.mma`).  Giving that layout to
the accumulator operand and the result *before* the loads and stores choose theirs
lets it spread to what is tied to them (the `scf.for` that carries the accumulator,
its init constant, elementwise users such as a cast) so that the accumulator stays
in the registers `mma.sync` uses across iterations, and only the final store (or a
consumer that needs another layout) converts it.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    FloatTF32Type,
    IntegerType,
    TensorType,
)

from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas.layouts import DistributedLayout
from tileir.dialects.nv_tileas.mma_layout import MmaLayoutAttr, mma_warp_grid

_FLOAT8 = (Float8E4M3FNType, Float8E5M2Type)


def tensor_core_k_step(op: aa.DotOp) -> int | None:
    """The K of the MMA shape that computes `op` (`mma.sync`, or `wgmma` on sm_90a;
    8-bit floats: `wgmma`, 8-bit `mma.sync` from sm_89, f16 `mma.sync` on widened
    operands before), or None when tileir has no tensor-core lowering for its types
    and shapes."""
    a_t, b_t, acc_t = op.lhs.type, op.rhs.type, op.acc.type
    if not all(isinstance(t, TensorType) for t in (a_t, b_t, acc_t)):
        return None
    assert isinstance(a_t, TensorType) and isinstance(b_t, TensorType)
    assert isinstance(acc_t, TensorType)
    a, b, acc = element_type(a_t), element_type(b_t), element_type(acc_t)
    if isinstance(a, Float16Type | BFloat16Type) and type(a) is type(b):
        f16_acc = isinstance(a, Float16Type) and isinstance(acc, Float16Type)
        k_step = 16 if isinstance(acc, Float32Type) or f16_acc else None
    elif isinstance(a, FloatTF32Type) and isinstance(b, FloatTF32Type):
        k_step = 8 if isinstance(acc, Float32Type) else None  # m16n8k8, m64nNk8
    elif isinstance(a, _FLOAT8) and isinstance(b, _FLOAT8):
        # 8-bit floats: K 32 (wgmma m64nNk32, mma.sync m16n8k32; sm_80 widens to f16).
        k_step = 32 if isinstance(acc, Float32Type | Float16Type) else None
    elif isinstance(a, IntegerType) and isinstance(b, IntegerType) and a.width.data == 8:
        wide = isinstance(acc, IntegerType) and acc.width.data == 32 and b.width.data == 8
        k_step = 32 if wide else None
        if k_step is not None and a_t.get_shape()[-1] % 32 == 16:
            k_step = 16  # a last m16n8k16 step on the 16-byte tail
    else:
        k_step = None
    if k_step is None or len(a_t.get_shape()) not in (2, 3):
        return None
    (m, k), (_, n) = a_t.get_shape()[-2:], b_t.get_shape()[-2:]
    if m % 16 or n % 8 or k % k_step:
        return None
    return k_step


def mma_layout_for(op: aa.DotOp, num_warps: int) -> DistributedLayout | None:
    """The MMA layout of a rank-2 tensor-core dot's accumulator (batched dots keep a
    blocked one: `#nv_tileas.mma` is rank 2)."""
    acc_t = op.acc.type
    if tensor_core_k_step(op) is None or not isinstance(acc_t, TensorType):
        return None
    if len(acc_t.get_shape()) != 2:
        return None
    m, n = acc_t.get_shape()
    return MmaLayoutAttr(*mma_warp_grid(m, n, num_warps))


def tensor_core_dots(fn: func.FuncOp, num_warps: int) -> list[tuple[aa.DotOp, DistributedLayout]]:
    """The dots of `fn` that run on tensor cores, with their accumulator layout."""
    out: list[tuple[aa.DotOp, DistributedLayout]] = []
    for op in fn.walk():
        if isinstance(op, aa.DotOp):
            layout = mma_layout_for(op, num_warps)
            if layout is not None:
                out.append((op, layout))
    return out
