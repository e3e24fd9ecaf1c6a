"""Gathered tensor-core operands: a dot operand whose rows are loaded at gathered
addresses (cuTile's `ct.gather(A, (rows[:, None], k * TILE_K + ct.arange(TILE_K)[None, :]))`,
the token rows of a mixture-of-experts GEMM) rides the same `cp.async` ring as a tiled
load's (`tileas-pipeline-dot-operands`).

`convert-tileaa-to-tileas` lowers cuTile's gather (a `load_ptr_tko` of a pointer tile
whose fallback is a broadcast tile, not one constant) to a masked `nv_tileas.tiled_load`
without a `padding_value` and a `select` of the fallback where the mask is off:

    %a = nv_tileas.tiled_load %view[...] mask %m {atom = ldg_128b}
    %z = nv_tileas.splat %zero : bf16 -> tensor<128x64xbf16>
    %g = cuda_tile.select %m, %a, %z
    %d = nv_tileas.dot %g, %b, %acc

Two things kept it off the rings: the `select` (the dot's operand is computed, not
loaded) and its layout.  The gather's row indices are the kernel's token ids, which the
epilogue's `ct.scatter` stores the accumulator at: `tileas-assign-layouts` propagated the
accumulator's MMA layout from the scatter back to the token ids and forward to every
address of the gather, so A was loaded in the accumulator layout (4-byte runs a thread,
no coalescing) and `wgmma` took it from registers, waited for each iteration.

Here:

- `gathered_operand`: the load of such a gather, whose tile (through its zero `select`)
  only feeds the A or B operands of tensor-core dots in the same loop body.
  `tileas-assign-layouts` gives it its own coalesced layout before anything else
  propagates, so its addresses, mask and row indices follow it (the row indices are
  converted once, before the loop, where the epilogue wants them in the accumulator's).
- `drop_zero_fill`: the `select` of zeros where the load's own mask is off is the load
  itself (a `tiled_load` reads zero where its mask is off and it has no `padding_value`),
  so the dot takes the load; `tileas-pipeline-dot-operands` then qualifies it as any load
  (`why_not_fed`: it moves when its addresses come from the induction variable and
  values defined before the loop, such as gathered row indices; its atom is the widest the
  addresses' contiguity and alignment prove), and the lowering copies each thread's run
  of the row with one `cp.async` from the row's own address, zero-filled (source size 0)
  where the row or the K run is masked off.  A ragged last K tile is exact only where its
  mask is constant over each run: the atom is as wide as the axis analysis proves the
  mask's constancy (`tileaa_to_tileas.MemoryLowering.atom`, `narrow_atoms`).
"""

from __future__ import annotations

import math

from xdsl.dialects import scf
from xdsl.ir import SSAValue
from xdsl.rewriter import Rewriter

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.canonicalize import constant_scalar
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.transforms.tileas.mma_layouts import runs_on_tensor_cores


def zero_fill_select(load: tas.TiledLoadOp) -> ct.SelectOp | None:
    """The one user of `load`'s tile where it is `select(mask, tile, +0 splat)` on the
    load's own mask and the load has no `padding_value` (so the select changes nothing)."""
    if load.mask is None or load.padding_value is not None:
        return None
    uses = list(load.result.uses)
    if len(uses) != 1 or uses[0].index != 1:
        return None
    select = uses[0].operation
    if not isinstance(select, ct.SelectOp) or select.operands[0] is not load.mask:
        return None
    return select if positive_zero(select.operands[2]) else None


def positive_zero(value: SSAValue) -> bool:
    """Whether `value` is a splat (or constant) of +0 (integer 0, or +0.0: a -0.0 fill
    differs from what a masked-off load reads in its sign bit)."""
    owner = value.owner
    if isinstance(owner, tas.SplatOp):
        owner = owner.src.owner
    if not isinstance(owner, ct.ConstantOp):
        return False
    scalar = constant_scalar(owner.results[0])
    if scalar is None or scalar != 0:
        return False
    return all(
        math.copysign(1.0, v) > 0 for v in owner.value.get_values() if isinstance(v, int | float)
    )


def gathered_operand(value: SSAValue) -> bool:
    """Whether `value` is the tile of a masked load in a loop body that a zero `select`
    turns into tensor-core dot operands of that body, and nothing else (module doc)."""
    load = value.owner
    if not isinstance(load, tas.TiledLoadOp) or not isinstance(load.parent_op(), scf.ForOp):
        return False
    select = zero_fill_select(load)
    if select is None:
        return False
    uses = list(select.results[0].uses)
    return bool(uses) and all(
        isinstance(u.operation, aa.DotOp | tas.DotOp)
        and u.index in (0, 1)
        and u.operation.parent_block() is load.parent_block()
        and runs_on_tensor_cores(u.operation)
        for u in uses
    )


def drop_zero_fill(value: SSAValue) -> SSAValue:
    """Where `value` (a dot operand) is a zero `select` of a gathered load's tile, the
    tile itself, the select erased; else `value`."""
    select = value.owner
    if not isinstance(select, ct.SelectOp):
        return value
    load = select.operands[1].owner
    if not isinstance(load, tas.TiledLoadOp) or not gathered_operand(load.result):
        return value
    select.results[0].replace_all_uses_with(load.result)
    Rewriter.erase_op(select)
    return load.result
