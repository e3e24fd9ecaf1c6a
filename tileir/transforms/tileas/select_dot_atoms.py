"""`tileas-select-dot-atoms{arch=sm_90a}`: every `nv_tileaa.dot` becomes an
`nv_tileas.dot` whose atom names the engine and the instruction it runs on.

The engine of a dot is chosen here, once, by `dot_plan.plan_dot`: `wgmma` on sm_90a
when the accumulator's warp grid (`#nv_tileas.mma`, which `tileas-assign-layouts`
gives it) has whole warpgroups along M, `mma.sync` for the other tensor-core dots
(8-bit floats on f16 `mma.sync`, widened, where no 8-bit float instruction takes
them: before sm_89, and K = 16 everywhere), FMAs on the CUDA cores for the rest; a
dot with scales (an `mmaf_scaled` kept whole for sm_100a) its block-scaled `tcgen05.mma`,
the scales passed on.  It runs after `tileas-assign-layouts` in the `tileas` stage, because that
choice needs the layouts; `convert-tileas-to-llvm` then only follows the atom, and
`--emit=tileas` shows it.  The replacement keeps operands, result type, location and
discardable attributes (`fast_acc`); the integer signedness `nv_tileaa.dot` carries is
spelled by the atom (`mma_s8_u8_s32`, `fma_u8_s8_s32`, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from tileir.diagnostics import not_supported
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import AtomAttr
from tileir.targets import resolve_gpu_name
from tileir.transforms.tileas.dot_plan import plan_dot


def select_dot_atom(op: aa.DotOp, arch: str) -> tas.DotOp:
    """The `nv_tileas.dot` computing `op` on `arch`, in its place."""
    plan = plan_dot(op, arch)
    if plan is None:
        shapes = [
            "x".join(map(str, shape_of(v.type))) + f" {element_type(v.type)}"
            for v in (op.lhs, op.rhs, op.acc)
        ]
        raise not_supported(
            op,
            f"a dot of a {shapes[0]} by a {shapes[1]} tile into a {shapes[2]} accumulator",
            instead="use f16, bf16, tf32 or 8-bit float operands with an f32 accumulator, "
            "or i8 operands with an i32 one",
        )
    new = tas.DotOp(op.lhs, op.rhs, op.acc, AtomAttr(plan.atom), op.scales)
    new.attributes.update(op.attributes)
    Rewriter.replace_op(op, new)
    return new


@dataclass(frozen=True)
class SelectDotAtomsPass(ModulePass):
    """`nv_tileaa.dot` -> `nv_tileas.dot` with the atom of its engine (module docstring)."""

    name = "tileas-select-dot-atoms"

    arch: str = "sm_90a"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = resolve_gpu_name(self.arch, "tileas-select-dot-atoms target")
        for dot in [o for o in op.walk() if isinstance(o, aa.DotOp)]:
            select_dot_atom(dot, arch)
