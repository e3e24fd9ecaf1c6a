"""MMA accumulator layouts for `tileas-assign-layouts`.

A tensor-core `dot` (one `dot_plan.tensor_core_k_step` accepts, which
`tileas-select-dot-atoms` then gives an `mma.sync` or `wgmma` atom) reads and writes
its accumulator in the MMA accumulator layout (`#nv_tileas.mma`).  Giving that layout
to the accumulator operand and the result *before* the loads and stores choose theirs
lets it spread to what is tied to them (the `scf.for` that carries the accumulator,
its init constant, elementwise users such as a cast) so that the accumulator stays
in the registers `mma.sync` uses across iterations, and only the final store (or a
consumer that needs another layout) converts it.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import DistributedLayout
from tileir.dialects.nv_tileas.mma_layout import MmaLayoutAttr, mma_warp_grid
from tileir.transforms.tileas.dot_plan import DotTypes, mma_spec, tensor_core_k_step
from tileir.transforms.tileas.tcgen05_plan import (
    TCGEN05_M,
    column_run,
    rows_reduced,
    tcgen05_accumulator_layout,
    tcgen05_obstacle,
)


def runs_on_tensor_cores(op: aa.DotOp | tas.DotOp) -> bool:
    """Does `op` run on tensor cores: an `nv_tileas.dot` whose atom is not `fma`, or an
    `nv_tileaa.dot` whose types and shapes the tensor cores take?"""
    if isinstance(op, tas.DotOp):
        return op.atom.info.engine != "fma"
    types = DotTypes.of(op)
    return types is not None and tensor_core_k_step(types) is not None


def mma_layout_for(
    op: aa.DotOp | tas.DotOp, num_warps: int, arch: str = "", reduced: bool = False
) -> DistributedLayout | None:
    """The MMA layout of a tensor-core dot's accumulator (a batched dot's, `mma.sync`
    on every target, holds each matrix of a power-of-two batch in that 2-D layout: the
    `[1, wm, wn]` spelling); on a tcgen05 target, for a dot that runs on `tcgen05.mma`,
    the layout `tcgen05.ld` reads it into (`tcgen05_plan.py`)."""
    acc_t = op.acc.type
    if not isinstance(acc_t, TensorType) or not runs_on_tensor_cores(op):
        return None
    shape = acc_t.get_shape()
    if len(shape) == 3 and shape[0] & (shape[0] - 1) == 0:
        return MmaLayoutAttr(*mma_warp_grid(shape[1], shape[2], num_warps), batched=True)
    if len(shape) != 2:
        return None
    m, n = acc_t.get_shape()
    types = DotTypes.of(op)
    spec = mma_spec(types) if types is not None and arch else None
    obstacle = "no tensor-core spec"
    if types is not None and spec is not None:
        obstacle = tcgen05_obstacle(arch, spec, types.mnk, 2, num_warps)
    # A 64-row tcgen05 accumulator keeps the MMA layout (it is read out through shared
    # memory, `tcgen05.tmem_register_layout`).
    if obstacle is None and m % TCGEN05_M == 0:
        # `reduced`: the kernel reduces the rows of a tcgen05 accumulator (attention's
        # S), and all of them take the short column runs (`tcgen05_plan.column_run`).
        run = column_run((m, n), num_warps, reduced)
        return tcgen05_accumulator_layout((m, n), num_warps, run)
    return MmaLayoutAttr(*mma_warp_grid(m, n, num_warps))


def tensor_core_dots(
    fn: func.FuncOp, num_warps: int, arch: str = ""
) -> list[tuple[aa.DotOp | tas.DotOp, DistributedLayout]]:
    """The dots of `fn` that run on tensor cores, with their accumulator layout."""
    out: list[tuple[aa.DotOp | tas.DotOp, DistributedLayout]] = []
    dots = [op for op in fn.walk() if isinstance(op, aa.DotOp | tas.DotOp)]
    # One column run for every tcgen05 accumulator of the kernel, so that attention's S
    # and O (whose rows S's maximum and sum scale) share a layout and their row values
    # need no conversion.
    reduced = any(rows_reduced(op.result) for op in dots)
    for op in dots:
        layout = mma_layout_for(op, num_warps, arch, reduced)
        if layout is not None:
            out.append((op, layout))
    return out
