"""`tileas-remove-layout-conversions`: trim chains of `nv_tileas.convert_layout` (seed 000
"Layout Conversion Folding").

`convert_layout(convert_layout(x))` is not folded locally: whether the intermediate
layout can be skipped depends on where each layout lives (registers, shared memory) and on
what the target can move in one step, which only this pass looks at.  For an outer
conversion `z = convert_layout(y : B -> C)` whose source is an inner conversion
`y = convert_layout(x : A -> B)`, the chain is trimmed when both of seed 000's factors
hold:

1. **Compatible storage classes.**  The storage class of a tile is read from its layout
   encoding: a distributed layout (`#nv_tileas.blocked`, `#nv_tileas.slice`) lives in
   registers (`rmem`), a `#nv_tileas.shared` layout in shared memory (`smem`); a tile
   without a layout (or with one of no known class) has no storage class and blocks.
   `A` and `C` in the same class are compatible only when the two layouts agree: two
   register layouts must give every element the same (register, lane, warp) (so a
   register-to-shared-to-register round trip agrees on lane assignment and vector width),
   two shared layouts must be the same arrangement.
2. **A direct atom in the catalog** (`tileir.dialects.nv_tileas.attributes.ATOM_CATALOG`,
   the copy atoms tileir's layouts and lowering name).  Agreeing layouts of one class
   need no atom: no data moves.  Between classes, the catalog must hold a copy atom from
   `A`'s memory to `C`'s (`sts_*`/`stmatrix_*` from registers to shared memory,
   `lds_*`/`ldmatrix_*` back) that moves a whole number of the register layout's
   contiguous elements along the shared layout's fastest dimension: `direct_atom` below.
   Two different register layouts (or two different shared layouts) have no direct atom:
   the intermediate layout is what makes that conversion possible, so the chain stays.

When both hold, the outer conversion's result is replaced by the inner conversion's
source (identical types), or the outer conversion is rewritten to convert the inner
source directly (`A -> C`, one step).  The inner conversion is left in place: when nothing
else uses it, ordinary `dce` removes it.  Chains are trimmed to a fixed point, so longer
chains collapse step by step.

The pass also keeps a chain whose two conversions sit in different blocks (a loop body,
a branch, a pipeline region): the layout materialized outside a region is what the
region was scheduled against."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tileir.dialects.nv_tileas.attributes import AtomInfo, AtomKind, direct_copy_atoms
from tileir.dialects.nv_tileas.layouts import DistributedLayout, SharedLayoutAttr
from tileir.dialects.nv_tileas.ops import ConvertLayoutOp
from tileir.utils.bits import POINTER_BITS, mlir_bit_width
from tileir.utils.rewriting import LocatedWalker

RMEM = "rmem"
SMEM = "smem"


def storage_class(t: Attribute) -> str | None:
    """Where a tile of type `t` lives, read from its layout encoding (None: unknown)."""
    if not isinstance(t, TensorType):
        return None
    encoding = t.encoding
    if isinstance(encoding, DistributedLayout):
        return RMEM
    if isinstance(encoding, SharedLayoutAttr):
        return SMEM
    return None


def layouts_agree(a: TensorType, c: TensorType) -> bool:
    """Do two layouts of one storage class hold the tile the same way?  Register layouts:
    the same (register, lane, warp) for every element (compared as linear layouts, so two
    spellings of one distribution agree).  Shared layouts: the same arrangement."""
    ea, ec = a.encoding, c.encoding
    if isinstance(ea, DistributedLayout) and isinstance(ec, DistributedLayout):
        if ea.rank != len(a.get_shape()) or ec.rank != len(c.get_shape()):
            return False
        shape = list(a.get_shape())
        if any(d <= 0 or d & (d - 1) for d in shape):
            return ea == ec
        return ea.linear(shape) == ec.linear(shape)
    if isinstance(ea, SharedLayoutAttr) and isinstance(ec, SharedLayoutAttr):
        return ea == ec
    return False


def _contiguous_bits(registers: TensorType, shared: TensorType) -> int:
    """Bits one thread holds contiguously along the shared layout's fastest dimension."""
    reg_layout, smem_layout = registers.encoding, shared.encoding
    assert isinstance(reg_layout, DistributedLayout) and isinstance(smem_layout, SharedLayoutAttr)
    shape = list(registers.get_shape())
    if any(d <= 0 or d & (d - 1) for d in shape) or reg_layout.rank != len(shape):
        return 0
    if len(smem_layout.dim_order) != len(shape) or not shape:
        return 0
    fastest = smem_layout.dim_order[0]
    linear = reg_layout.linear(shape)
    return linear.contiguous_registers(fastest) * (
        mlir_bit_width(registers.element_type) or POINTER_BITS
    )


def direct_atom(a: TensorType, c: TensorType) -> AtomInfo | None:
    """The catalog atom that moves a tile from `a`'s storage straight into `c`'s layout,
    or None.  Only copies between registers and shared memory are direct: the widest
    `sts`/`lds`-style atom (fixed-box `ldmatrix`/`stmatrix` need their own box and are
    not chosen here) whose width divides what a thread holds contiguously along the
    shared layout's fastest dimension."""
    source, destination = storage_class(a), storage_class(c)
    if source is None or destination is None or source == destination:
        return None
    registers, shared = (a, c) if source == RMEM else (c, a)
    available = _contiguous_bits(registers, shared)
    best: AtomInfo | None = None
    for atom in direct_copy_atoms(source, destination):
        if atom.kind is not AtomKind.COPY or atom.box is not None or atom.is_async:
            continue
        if atom.bits <= 0 or available < atom.bits or available % atom.bits:
            continue
        if best is None or atom.bits > best.bits:
            best = atom
    return best


class TrimConvertLayoutChain(RewritePattern):
    """`convert_layout(convert_layout(x : A -> B) : B -> C)`: use `x` (A = C) or convert
    `x : A -> C` directly, when A and C are in compatible storage classes and the atom
    catalog has a direct atom from A to C (seed 000 "Layout Conversion Folding").  The
    inner conversion is left for DCE."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvertLayoutOp, rewriter: PatternRewriter) -> None:
        inner = op.src.owner
        if not isinstance(inner, ConvertLayoutOp) or inner.parent_block() is not op.parent_block():
            return
        a, c = inner.src.type, op.result.type
        assert isinstance(a, TensorType) and isinstance(c, TensorType)
        source, destination = storage_class(a), storage_class(c)
        if source is None or destination is None:
            return
        if source == destination:
            if not layouts_agree(a, c):
                return
        elif direct_atom(a, c) is None:
            return
        if a == c:
            rewriter.replace_all_uses_with(op.result, inner.src)
            rewriter.erase(op)
            return
        direct = ConvertLayoutOp(inner.src, c)
        direct.attributes.update(op.attributes)
        rewriter.replace(op, direct)
        direct.result.name_hint = op.result.name_hint


@dataclass(frozen=True)
class RemoveLayoutConversionsPass(ModulePass):
    """Trims `convert_layout` chains whose composition the atom catalog can perform
    directly (seed 000 "Layout Conversion Folding"); dead inner conversions are left for
    `dce`."""

    name = "tileas-remove-layout-conversions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        applier = GreedyRewritePatternApplier([TrimConvertLayoutChain()], dce_enabled=False)
        LocatedWalker(applier).rewrite_module(op)
