"""f32 tiles that reach a tensor-core dot as tf32: what `tileas-pipeline-dot-operands`
needs to put them on a ring like a plain load.

cuTile writes every f32 matmul as `ftof f32 -> tf32` of each loaded operand, then
`mmaf` on the results (`x.astype(ct.tfloat32)`).  The conversion is not a rearrangement:
the tile IR spec's `ftof` rounds (to nearest even, unless the op says otherwise), and
the PTX ISA leaves what the tensor cores do with the low 13 bits of a `.tf32` operand
to the implementation ("the internal layout of tf32 format is implementation
defined"; `cvt.rna.tf32.f32` / `cvt.rn.tf32.f32` produce it).  So the rounding has to be
done before the dot reads the operand; with a ring, it is done where the copies land:
each thread rounds the words it copied itself, in shared memory, once
`cp.async.wait_group` has made its own copies visible to it (PTX ISA, *cp.async.wait_group*),
before the CTA barrier (and, for `wgmma` and `tcgen05`, the async-proxy fence) that
the dot already places between the copies and the tensor cores
(`conversions/tileas_to_llvm/ring_rounding.py`; in a warp-specialized consumer, by the
consumer's threads after the stage's *full* mbarrier, with their own barrier before the
`wgmma`s).  A `tcgen05` MMA is issued by one thread: every thread's rounded words reach
it through the dot's `fence.proxy.async` (each writer fences its own generic stores)
and the CTA barrier between `tcgen05.fence::before_thread_sync` and `::after_thread_sync`
in front of the issue; MMAs left in flight commit to their slot's mbarrier, and the
slot's next refill waits for that commit (`async_copy.Ring.refill_guard`), so no copy or
rounding rewrites a slot they still read.

The `ftof` stays in the IR between the future's wait and the dot, marked
`nv_tileas.rounded_in_shared`:

    %a32 = nv_tileas.async.future_wait %fa : !async.value<tensor<64x32xf32, #blocked>> -> ...
    %a = cuda_tile.ftof %a32 {nv_tileas.rounded_in_shared} : tensor<64x32xf32, #blocked> -> tensor<64x32xtf32, #blocked>
    %d = nv_tileas.dot %a, %b, %acc ...

A tf32 B is stored N x K (K-major) by every engine (`MmaSpec`; `wgmma.b_mn_major` gives
only 16-bit B an MN-major buffer, and the `tcgen05` lowering shares that choice and its
descriptors: bit 16 of the instruction descriptor clear, the K-major canonical layout of
16-byte core-matrix rows); an f32 B loaded with N contiguous (a row-major K x N matrix,
as every cuTile GEMM writes it) reaches that buffer with one 4-byte `cp.async` per
element (`element_copies`), as the synchronous path stores it one element at a time.
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, FloatTF32Type, TensorType
from xdsl.ir import SSAValue, Use

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import BlockedLayoutAttr, DistributedLayout

#: On a `cuda_tile.ftof` f32 -> tf32 between a ring's future and its dot (unit): the
#: lowering rounds the stage in shared memory, each thread the words it copied, instead
#: of in registers (module doc).
ROUNDED_IN_SHARED_ATTR = "nv_tileas.rounded_in_shared"

#: What the remark says of such an operand (after its name).
ROUNDED_IN_SHARED = "f32 through the ring, rounded to tf32 in shared memory"

#: ... and of a B copied one element at a time into its N x K buffer.
ELEMENT_COPIES = "one 4-byte cp.async an element into its N x K buffer"


def tf32_rounding(value: SSAValue) -> ct.FToFOp | None:
    """The `ftof` f32 -> tf32 that computes `value`, when it converts a tile loaded in
    its own block and used by nothing else, and `value` has one use (the dot operand it
    is): cuTile's `astype(ct.tfloat32)` of a loaded operand."""
    op = value.owner
    if not isinstance(op, ct.FToFOp) or not value.has_one_use():
        return None
    source = op.args[0]
    load = source.owner
    if (
        not isinstance(element_type(source.type), Float32Type)
        or not isinstance(element_type(value.type), FloatTF32Type)
        or not isinstance(load, tas.TiledLoadOp)
        or not source.has_one_use()
        or load.parent_block() is not op.parent_block()
    ):
        return None
    return op


def fed_value(load: tas.TiledLoadOp) -> SSAValue:
    """The value a ring filled by `load` stands for at its dot: the load's tile, or the
    tf32 tile its only user rounds it to."""
    uses = list(load.result.uses)
    if len(uses) == 1:
        user = uses[0].operation
        if isinstance(user, ct.FToFOp) and tf32_rounding(user.result) is not None:
            return user.result
    return load.result


def operand_use(load: tas.TiledLoadOp) -> Use | None:
    """The one use of `load`'s tile (through its tf32 rounding, `fed_value`), or None."""
    uses = list(fed_value(load).uses)
    return uses[0] if len(uses) == 1 else None


def rounded(load: tas.TiledLoadOp) -> ct.FToFOp | None:
    """The tf32 rounding between `load` and its dot, if there is one."""
    value = fed_value(load)
    return value.owner if isinstance(value.owner, ct.FToFOp) else None


def element_copies(load: tas.TiledLoadOp, dot: tas.DotOp, index: int) -> bool:
    """Whether `load` feeds operand `index` of `dot` as a 32-bit B loaded with N
    contiguous, which the dot stores N x K (tf32): each element is then its own 4-byte
    `cp.async` into its place (module doc)."""
    spec = dot.atom.info.mma_spec
    t = load.result.type
    if index != 1 or spec is None or spec.element_bytes != 4 or not isinstance(t, TensorType):
        return False
    layout = t.encoding
    rank = len(t.get_shape())
    return isinstance(layout, BlockedLayoutAttr) and layout.dim_order[0] == rank - 1


def replicated(load: tas.TiledLoadOp) -> bool:
    """Whether threads or warps hold copies of `load`'s elements (a zero lane or warp
    basis of its layout): only the owner of an element copies it, so only it could
    round it."""
    t = load.result.type
    if not isinstance(t, TensorType) or not isinstance(t.encoding, DistributedLayout):
        return True
    layout = t.encoding.linear(t.get_shape())
    return any(not any(basis) for basis in (*layout.lanes, *layout.warps))
