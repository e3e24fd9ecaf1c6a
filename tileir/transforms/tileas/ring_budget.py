"""How much shared memory the rings of one pipelined loop may take
(`tileas-pipeline-dot-operands`).

The LLVM lowering puts every buffer that lives across other uses of shared memory (the
rings, their mbarriers, tcgen05's bookkeeping) after the largest *transient* use: an
exchange between layouts, the operand buffers of a dot not fed by a ring, a reduction's
or scan's steps across warps, an atomic's broadcast (`shared_arena.py`).  The kernel's
static shared memory must hold both, so a loop's rings may take what is left of the
kernel's budget after

* an upper bound of the largest transient use, taken here from the tensor types of the
  ops that lower to one (`transient_bound`; computed before lowering, it must never be
  below what the lowering will take, or the lowering rejects the kernel);
* the rings of the kernel's loops already pipelined (all of them are live together);
* the operands of `tcgen05` dots staged once before their loop (`staged_once_bound`);
* `PERSISTENT_RESERVE` bytes for the small persistent buffers (mbarrier pool, pipeline
  barriers, tcgen05's commit words).

A `wgmma` or `tcgen05` dot's operand buffers, a ring's slots, the buffers written each
iteration (or two in turn), A's own and, for `wgmma`, those staged once alike, are
counted as the lowering lays them out, core matrices padded apart against bank
conflicts or K-major buffers swizzled, dense (`laid_out_operand_bytes`:
`core_matrices.padded_operand_buffers`, the function the lowering's
`wgmma.operand_buffers` calls), and a `tcgen05` operand it stages once as dense as the
lowering writes it (`_staged_bytes`): counted dense, a padded 128x128 16-bit slot was
32,768 bytes where the PTX declared 36,864, and 23 of the 55 sm_100a and 31 of the 55
sm_90a `wgmma` kernels declared more shared memory than the budget had counted.  A
kernel with a swizzled buffer keeps `ALIGNMENT_ALLOWANCE` more for aligning those
buffers to their atoms (`alignment_allowance`).

The kernel's budget is chosen, not accidental: the static shared memory ptxas accepts
for the target (`targets.GpuArch.static_shared`: 48 KiB before sm_90, whatever a launcher
that knows nothing of tileir can launch, 227 KiB on sm_90a and sm_100a), and no more than
one SM's shared memory divided by the CTAs per SM the kernel's `occupancy` hint asks for
(the remarks say how many CTAs per SM the result allows).  A GEMM without the hint may
take the whole 227 KiB for a deep ring and one CTA per SM, as tileiras's GEMMs do; an
attention kernel that asks for two CTAs per SM keeps its rings within half an SM.  But
where the kernel's shared memory without any ring (`unpipelined_bound`) already keeps
the SM to fewer CTAs than the hint asks for, the rings may take the share of those
fewer: they cost no CTA there (NVIDIA's 64x256 attention tests, `occupancy=2`, whose
64 KiB K and V tiles alone take more than half an SM, get a ring each in the one-CTA
share).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.core_matrices import (
    OperandBuffer,
    b_mn_swizzle,
    padded_operand_buffers,
)
from tileir.dialects.nv_tileas.layouts import WARP_SIZE, DistributedLayout, same_registers
from tileir.dialects.nv_tileas.mma_layout import MmaLayoutAttr
from tileir.dialects.nv_tileas.ops.tmem import (
    A_IN_REGISTERS_ATTR,
    A_OWN_BUFFER_ATTR,
    STAGED_ONCE_ATTR,
)
from tileir.targets import ARCHS, KIB, RESERVED_SHARED_PER_CTA, ctas_per_sm_by_shared
from tileir.transforms.tileas.assign_layouts import NUM_WARPS_ATTR
from tileir.transforms.tileas.materialize_schedule import defined_outside
from tileir.transforms.tileas.occupancy import kernel_occupancy
from tileir.transforms.tileas.specialize_agents import EXCHANGING_OPS
from tileir.transforms.tileas.tcgen05_plan import (
    a_goes_to_tmem,
    accumulator_run,
    dot_scale_buffers,
    fragment_blocks,
    may_stay_in_flight,
    tmem_register_layout,
)
from tileir.transforms.tileas.tf32_operands import operand_use
from tileir.utils.bits import storage_bits

#: Warps assumed of a kernel that does not say (the most a CTA has).
MAX_WARPS = 32

#: Bytes kept for the persistent buffers besides the rings: the mbarrier pool of the
#: kernel's asynchronous tokens, a pipeline's full/empty mbarriers (16 bytes a stage),
#: tcgen05's commit barriers and per-thread words (8 per slot and 4 per thread).
PERSISTENT_RESERVE = 4 * KIB

#: Bytes one row of an exchange buffer may be padded by against bank conflicts (the
#: lowering pads a row by one word, or aligns it to 16 bytes).
ROW_PAD = 16

#: Bytes a layout conversion may pad a row by (the lowering's
#: `exchange.MAX_ROW_PADDING`, which `test_ring_budget.py` checks this equals).
CONVERSION_ROW_PAD = 128

#: Bytes an element of a dot operand may take in its buffer at least: 8-bit floats are
#: widened to f16 where the tensor cores do not take them (before sm_89).
DOT_OPERAND_BYTES = 2

#: Ops whose lowering may go through the arena, with every tensor they read or write.
#: A dot, a view, a reduction and a layout conversion are judged apart.
_EXCHANGING = (
    *EXCHANGING_OPS,
    tas.AllocTensorOp,
    tas.AtomicRmwOp,
    tas.AtomicCasOp,
    tas.ReadTmemAccumulatorOp,
)


def _element_bytes(t: Attribute) -> int:
    """Bytes of one element of a tile of element type `t` in an exchange buffer (at
    least one; a pointer is 8; a bool may be widened to a word)."""
    if isinstance(t, PointerType):
        return 8
    bits = storage_bits(t)
    if bits is None or bits == 1:
        return 4
    return max(1, bits // 8)


def padded_bytes(value: SSAValue, least: int = 1) -> int:
    """An upper bound of the bytes of an exchange buffer holding the tile `value`, each
    element taking at least `least` bytes: row-major, each row padded by `ROW_PAD` bytes
    (0 for anything but a tile)."""
    t = value.type
    if not isinstance(t, TensorType):
        return 0
    shape = t.get_shape()
    size = max(least, _element_bytes(t.element_type))
    if not shape:
        return size + ROW_PAD
    rows = math.prod(shape[:-1])
    return rows * (shape[-1] * size + ROW_PAD)


def _accumulator_in_place(op: tas.DotOp, warps: int) -> bool:
    """Whether the lowering reads and writes `op`'s accumulator in the engine's own
    registers: the `mma` layout of `mma.sync` and `wgmma`, the registers `tcgen05.ld`
    fills for `tcgen05`, or a 64-row `tcgen05` accumulator's `mma.sync` fragments
    (`tcgen05_plan.fragment_blocks`); else it exchanges the accumulator and the result."""
    acc, result = op.acc.type, op.result.type
    if not (isinstance(acc, TensorType) and isinstance(result, TensorType)):
        return False
    if op.atom.info.engine != "tcgen05":
        return isinstance(acc.encoding, MmaLayoutAttr) and isinstance(
            result.encoding, MmaLayoutAttr
        )
    shape = acc.get_shape()
    if len(shape) != 2 or not all(isinstance(t.encoding, DistributedLayout) for t in (acc, result)):
        return False
    mn = (shape[0], shape[1])
    tmem = tmem_register_layout(mn, warps, accumulator_run(result, warps))
    # (A 64-row one in the `mma.sync` fragment layout moves with `.16x256b` accesses.)
    return all(
        isinstance(t.encoding, DistributedLayout)
        and (
            t.encoding.linear(shape) == tmem
            or fragment_blocks(t.encoding.linear(shape), mn) is not None
        )
        for t in (acc, result)
    )


def _dot_bound(op: tas.DotOp, fed: set[SSAValue], warps: int) -> int:
    """A dot's buffers: A and B unless a ring feeds them or, for A, `wgmma` takes it
    from registers (`A_IN_REGISTERS_ATTR`) or from a buffer of its own that is no
    transient use (`A_OWN_BUFFER_ATTR`; 8-bit floats may be widened to f16 on the
    way in, `DOT_OPERAND_BYTES`), or `tcgen05` from tensor memory (attention's P:
    `tcgen05_plan.a_goes_to_tmem`), and one buffer of the accumulator's shape when the
    accumulator or the result is not in the engine's own registers: the lowering
    exchanges both through that one buffer (`dot.py`, `tcgen05.py`: the accumulator's
    `c_size`), the accumulator in before the MMAs, the result out after them."""
    staged = staged_operands(op)
    direct = [i for i, v in enumerate((op.a, op.b)) if v not in fed and i not in staged]
    if 0 in direct and (
        A_IN_REGISTERS_ATTR in op.attributes
        or A_OWN_BUFFER_ATTR in op.attributes
        or a_goes_to_tmem(op)
    ):
        direct.remove(0)
    # (A `wgmma` or `tcgen05` dot's buffers as the lowering pads them.)
    total = sum(operand_buffer_bytes(op, i) for i in direct)
    if not _accumulator_in_place(op, warps):
        total += padded_bytes(op.acc)
    # A block-scaled dot's scale factors, staged for `tcgen05.cp` (`tcgen05.py`).
    total += sum(buf.bytes for buf in dot_scale_buffers(op) or ())
    return total


def laid_out_operand_bytes(dot: tas.DotOp, index: int) -> int | None:
    """Bytes of the shared-memory buffer of operand `index` (0: A, 1: B) of the
    `wgmma` or `tcgen05` dot `dot`, as the lowering lays it out (`dot.LowerDot.placement`),
    a ring's slot, a buffer written each iteration, one of two in turn, one of A's own
    or one staged once by a `wgmma` dot alike (`laid_out_operand_buffer`).  None for an
    `mma.sync` dot (or a batched one)."""
    buffer = laid_out_operand_buffer(dot, index)
    return None if buffer is None else buffer.bytes


def laid_out_operand_buffer(dot: tas.DotOp, index: int) -> OperandBuffer | None:
    """The shared-memory buffer of operand `index` of the `wgmma` or `tcgen05` dot `dot`
    as the lowering lays it out (`laid_out_operand_bytes`): core matrices padded apart
    against the bank conflicts of the operand's writes, or swizzled where that conflicts
    no more (`core_matrices.padded_operand_buffers`; the lowering's
    `wgmma.operand_buffers` takes them wherever both operands' fit, dense otherwise,
    never more), a padded 128x128 16-bit K-major tile 36,864 bytes, not 32,768.  None
    for an `mma.sync` dot (or a batched one)."""
    spec = dot.atom.info.mma_spec
    a_t, b_t = dot.a.type, dot.b.type
    if dot.atom.info.engine not in ("wgmma", "tcgen05") or spec is None:
        return None
    if not (isinstance(a_t, TensorType) and isinstance(b_t, TensorType)):
        return None
    if not (
        isinstance(a_t.encoding, DistributedLayout) and isinstance(b_t.encoding, DistributedLayout)
    ):
        return None
    if len(a_t.get_shape()) != 2 or len(b_t.get_shape()) != 2:
        return None
    (m, k), n = a_t.get_shape(), b_t.get_shape()[1]
    if index == 1 and (swizzle := b_mn_swizzle(dot)):
        return OperandBuffer(n, k, spec.element_bytes, True, swizzle=swizzle)
    layouts = (a_t.encoding.linear(a_t.get_shape()), b_t.encoding.linear(b_t.get_shape()))
    return padded_operand_buffers((m, n, k), spec.element_bytes, layouts)[index]


#: Bytes kept for aligning swizzled operand buffers to their atoms (1024 bytes at most)
#: in a kernel that has one (`alignment_allowance`): the lowering rounds the start of
#: the persistent buffers and of the loops' scoped rings up to it, and puts the most
#: aligned buffers first in each region (`shared_arena.finalize_persistent`).
ALIGNMENT_ALLOWANCE = 2 * KIB


def alignment_allowance(fn: func.FuncOp) -> int:
    """`ALIGNMENT_ALLOWANCE` where a `wgmma` or `tcgen05` dot of `fn` has a swizzled
    operand buffer; 0 elsewhere."""
    for op in fn.walk():
        if isinstance(op, tas.DotOp):
            for index in (0, 1):
                buffer = laid_out_operand_buffer(op, index)
                if buffer is not None and buffer.swizzle:
                    return ALIGNMENT_ALLOWANCE
    return 0


def operand_buffer_bytes(dot: tas.DotOp, index: int) -> int:
    """An upper bound of the bytes of a shared-memory buffer of operand `index` of
    `dot` that the lowering writes from registers: as it lays a `wgmma` or `tcgen05`
    operand out (`laid_out_operand_bytes`), else row-major with padded rows
    (`padded_bytes`; 8-bit floats may be widened to f16, `DOT_OPERAND_BYTES`)."""
    laid_out = laid_out_operand_bytes(dot, index)
    if laid_out is not None:
        return laid_out
    return padded_bytes((dot.a, dot.b)[index], DOT_OPERAND_BYTES)


def turn_buffer_bytes(dot: tas.DotOp, index: int) -> int:
    """Bytes of one of the two buffers in turn that operand `index` of `dot`, computed
    from ring slots, is written into each iteration while a group is in flight
    (`pipeline_dot_operands.turn_bytes`): a `wgmma` operand's as the lowering lays it
    out (`laid_out_operand_bytes`, `dot.LowerDot._buffer_in_turn`); other engines'
    bounded as an exchange's (`padded_bytes`: not measured against their PTX)."""
    laid_out = laid_out_operand_bytes(dot, index) if dot.atom.info.engine == "wgmma" else None
    return padded_bytes((dot.a, dot.b)[index]) if laid_out is None else laid_out


def ring_slot_bytes(load: tas.TiledLoadOp, dense: int) -> int:
    """Bytes one slot of the ring of `load` (a tile of `dense` bytes) takes: where it
    feeds an operand of a `wgmma` or `tcgen05` dot, that operand's buffer as the
    lowering lays the slot out (`laid_out_operand_bytes`); `dense` elsewhere (a ring
    read back from its slot is dense, `operand_placement.SlotPlacement`; the
    `mma.sync` rings are counted so as before, not measured against their PTX)."""
    use = operand_use(load)
    dot = use.operation if use is not None else None
    if use is None or use.index > 1 or not isinstance(dot, tas.DotOp):
        return dense
    laid_out = laid_out_operand_bytes(dot, use.index)
    return (dense if laid_out is None else max(dense, laid_out)) + _scale_set_bytes(dot, use.index)


def _scale_set_bytes(dot: tas.DotOp, index: int) -> int:
    """With A's slot (`index` 0) of a block-scaled dot whose MMAs may stay in flight,
    the set of scale factors staged for that slot (`tcgen05_plan.TMEM_SCALE_SETS_ATTR`:
    one set a slot, beside the rings)."""
    if index != 0 or not may_stay_in_flight(dot):
        return 0
    return sum(buf.bytes for buf in dot_scale_buffers(dot) or ())


def waited_slot_bytes(future: SSAValue, dense: int) -> int:
    """Bytes one slot of the ring behind `future` (a future a pipelined loop carries, of
    a tile of `dense` bytes) takes: where its wait feeds an operand of a `wgmma` or
    `tcgen05` dot, that operand's buffer as the lowering lays the slot out
    (`laid_out_operand_bytes`, as `ring_slot_bytes` counts it before pipelining);
    `dense` elsewhere."""
    for use in future.uses:
        if isinstance(use.operation, tas.FutureWaitOp):
            for dot_use in use.operation.result.uses:
                dot = dot_use.operation
                if isinstance(dot, tas.DotOp) and dot_use.index <= 1:
                    laid_out = laid_out_operand_bytes(dot, dot_use.index)
                    scales = _scale_set_bytes(dot, dot_use.index)
                    return (dense if laid_out is None else max(dense, laid_out)) + scales
    return dense


def transient_bound(fn: func.FuncOp, fed: set[SSAValue]) -> int:
    """An upper bound of the largest transient use of shared memory in `fn`, the dot
    operands in `fed` (those rings will feed) not counted."""
    attr = fn.attributes.get(NUM_WARPS_ATTR)
    warps = attr.value.data if isinstance(attr, IntegerAttr) else MAX_WARPS
    return max((op_bound(op, fed, warps) for op in fn.walk()), default=0)


def _view_bound(op: tas.ViewOp) -> int:
    """A view of a tile: nothing when it is a register renaming (or a view of pointers
    as storage for the tiled loads), else one buffer of the source tile."""
    src, dst = op.src.type, op.result.type
    if not (isinstance(src, TensorType) and isinstance(dst, TensorType)):
        return 0
    if (
        isinstance(src.encoding, DistributedLayout)
        and isinstance(dst.encoding, DistributedLayout)
        and same_registers(
            src.encoding.linear(src.get_shape()), dst.encoding.linear(dst.get_shape())
        )
    ):
        return 0
    return padded_bytes(op.src)


def _reduce_bound(op: tas.ReduceOp, warps: int) -> int:
    """A reduction's steps across warps (`reductions.py`): nothing where the warps of
    the source's layout do not split the reduced dimension (the tree then stays in
    registers and lanes: attention's row maximum and sum of S in the `wgmma` layout
    of one warpgroup), else one 8-byte word per thread, operand and register the
    thread still holds at the first step across warps.  The tree takes the
    dimension's bits highest first, so the registers of the bits above the highest
    warp bit are merged by then (S of attention with 64x256 tiles over two
    warpgroups: 4 of its 64 registers)."""
    t = op.operands[0].type
    if not isinstance(t, TensorType):
        return 0
    shape = t.get_shape()
    if not isinstance(t.encoding, DistributedLayout):
        return len(op.operands) * math.prod(shape) * warps * WARP_SIZE * 8
    layout = t.encoding.linear(shape)
    dim = op.dimension
    kinds: list[str] = []  # what holds each bit of the dimension, lowest first
    for bit in range(max(shape[dim], 1).bit_length() - 1):
        unit = tuple((1 << bit) if d == dim else 0 for d in range(len(shape)))
        kinds.append(
            next(
                (
                    kind
                    for kind, bases in (
                        ("register", layout.registers),
                        ("lane", layout.lanes),
                        ("warp", layout.warps),
                    )
                    if unit in bases
                ),
                "warp",  # not found: the lowering rejects it; count the worst
            )
        )
    if "warp" not in kinds:
        return 0
    highest_warp = max(i for i, kind in enumerate(kinds) if kind == "warp")
    merged = sum(1 for kind in kinds[highest_warp + 1 :] if kind == "register")
    return len(op.operands) * (layout.num_registers >> merged) * warps * WARP_SIZE * 8


def _conversion_bound(op: tas.ConvertLayoutOp) -> int:
    """A layout conversion's one buffer: the result tile row-major, each row padded by
    up to `CONVERSION_ROW_PAD` bytes (the lowering pads where that saves bank conflicts)."""
    t = op.result.type
    if not isinstance(t, TensorType) or not t.get_shape():
        return padded_bytes(op.result)
    shape = t.get_shape()
    row = shape[-1] * _element_bytes(t.element_type)
    return math.prod(shape[:-1]) * (row + CONVERSION_ROW_PAD)


def op_bound(op: Operation, fed: set[SSAValue], warps: int) -> int:
    """An upper bound of the shared memory `op`'s lowering takes for one use, in a
    kernel of `warps` warps."""
    if isinstance(op, tas.DotOp):
        return _dot_bound(op, fed, warps)
    if isinstance(op, tas.ViewOp):
        return _view_bound(op)
    if isinstance(op, tas.ReduceOp):
        return _reduce_bound(op, warps)
    if isinstance(op, tas.ConvertLayoutOp):
        return _conversion_bound(op)
    if isinstance(op, _EXCHANGING):
        return sum(padded_bytes(v) for v in (*op.operands, *op.results))
    return 0


def staged_once_bound(fn: func.FuncOp) -> int:
    """Bytes of the persistent buffers of dot operands a loop does not change
    (attention's Q), which the lowering writes once, before the loop, into a buffer
    that lives across it (`staged_operands.py`): those `tileas-pipeline-dot-operands`
    marked `nv_tileas.staged_once` on `wgmma` dots, and every such operand of a
    `tcgen05` dot (`tileas-tmem-accumulators` marks them later); once per value, as
    the lowering writes a tile two dots read once.  (Their buffers are not among the
    transient uses: `_dot_bound`.)"""
    staged: dict[SSAValue, int] = {}  # a value two dots read is written once
    for op in fn.walk():
        if isinstance(op, tas.DotOp):
            for i in staged_operands(op):
                v = (op.a, op.b)[i]
                staged[v] = _staged_bytes(op, v)
    return sum(staged.values())


def _staged_bytes(op: tas.DotOp, value: SSAValue) -> int:
    """Bytes of the persistent buffer of the operand `value` of `op` staged once: a
    `tcgen05` dot's is written dense (`tcgen05.py`: no padding against bank conflicts
    for its one write), 2 KiB less than a padded 128x128 16-bit tile; a `wgmma` dot's
    as its operand buffers are laid out (`staged_operands.stage_once`,
    `operand_buffer_bytes`)."""
    spec = op.atom.info.mma_spec
    t = value.type
    if op.atom.info.engine == "tcgen05" and spec is not None and isinstance(t, TensorType):
        return math.prod(t.get_shape()) * spec.element_bytes
    return operand_buffer_bytes(op, 0 if value is op.a else 1)


def staged_operands(op: tas.DotOp) -> list[int]:
    """The operands (0: A, 1: B) of the dot `op` that the lowering writes to shared
    memory once, before its loop (`staged_once_bound`): those marked
    `nv_tileas.staged_once` on a `wgmma` dot, every operand of a `tcgen05` dot that its
    `scf.for` does not change (`tileas-tmem-accumulators` marks them after this)."""
    loop = op.parent_op()
    if not isinstance(loop, scf.ForOp):
        return []
    if op.atom.info.engine == "tcgen05":
        return [i for i, v in enumerate((op.a, op.b)) if defined_outside(v, loop)]
    return marked_staged_once(op)


def marked_staged_once(op: Operation) -> list[int]:
    """The operands (0: A, 1: B) marked `nv_tileas.staged_once` on the dot `op`."""
    attr = op.attributes.get(STAGED_ONCE_ATTR)
    if not isinstance(attr, ArrayAttr):
        return []
    return [a.value.data for a in attr.data if isinstance(a, IntegerAttr)]


def occupancy_hint(fn: func.FuncOp, arch: str) -> int | None:
    """The CTAs per SM the kernel is compiled for on `arch`: its `occupancy` hint (its
    `sm_NN` entry, else `default`), or the lower occupancy `tileas-assign-layouts`
    recorded where the hint's register share cannot hold a loop's accumulators
    (`occupancy.fit_occupancy`); None without a hint."""
    return kernel_occupancy(fn, arch)


def own_buffer_bytes(dot: tas.DotOp) -> int:
    """The bytes of the buffer of its own that `dot`'s A takes where it is marked
    `A_OWN_BUFFER_ATTR` (no transient use: `_dot_bound` leaves it out), as the
    lowering lays it out (`operand_buffer_bytes`)."""
    return operand_buffer_bytes(dot, 0)


def unpipelined_bound(fn: func.FuncOp) -> int:
    """An upper bound of the shared memory `fn` declares with no ring: its largest
    transient use with every dot operand in its own buffer, the buffers of A of their
    own (`A_OWN_BUFFER_ATTR`: not transient, so not in that use), the operands staged
    once and the persistent reserve (so marking a dot's A does not lower it)."""
    own = sum(
        own_buffer_bytes(op)
        for op in fn.walk()
        if isinstance(op, tas.DotOp) and A_OWN_BUFFER_ATTR in op.attributes
    )
    return (
        transient_bound(fn, set())
        + own
        + staged_once_bound(fn)
        + PERSISTENT_RESERVE
        + alignment_allowance(fn)
    )


def kernel_shared_budget(fn: func.FuncOp, arch: str) -> int:
    """The shared memory the kernel `fn` may declare on `arch` (module doc): the share
    of the CTAs per SM its hint asks for, or of the fewer that its shared memory
    without rings already leaves (`unpipelined_bound`), where rings cost no CTA."""
    ctas = max(1, occupancy_hint(fn, arch) or 1)
    if ctas > 1:
        ctas = max(1, min(ctas, ctas_per_sm_by_shared(arch, unpipelined_bound(fn))))
    return cta_shared_share(arch, ctas)


def cta_shared_share(arch: str, ctas_per_sm: int) -> int:
    """The shared memory one of `ctas_per_sm` CTAs on an SM of `arch` may declare: its
    share of the SM less what the driver reserves a CTA, within the static and
    per-block limits."""
    target = ARCHS[arch]
    per_cta = target.shared_per_sm // max(1, ctas_per_sm) - RESERVED_SHARED_PER_CTA
    return min(target.static_shared, target.shared_per_block, per_cta)


def ring_scoped(dots: Sequence[tas.DotOp], specialized: bool) -> bool:
    """Whether the rings of a loop whose dots are `dots` live only while the loop runs,
    so that the rings of the kernel's other loops reuse their memory: the `cp.async`
    rings of an unspecialized loop of `wgmma` or `mma.sync` dots, which the loop's
    `async.wait` drains (`async_copy.ring_scope`, the lowering's side of this rule), and
    of `tcgen05` dots that wait for their own commit every iteration (no MMA reads a
    slot once the loop is done).  Not the payload of an mbarrier pipeline, nor the slots
    of `tcgen05` MMAs that may stay in flight (`tcgen05_plan.may_stay_in_flight`), which
    may outlive the loop: those are the kernel's for its whole run."""
    return not specialized and not any(may_stay_in_flight(dot) for dot in dots)


@dataclass
class RingBudget:
    """The rings of one kernel: what each loop's may take, as loops are pipelined in
    turn (module doc).  Rings live for the whole kernel (and add up) or only while their
    loop runs (`ring_scoped`: the lowering places those of all loops in one region, as
    large as the largest loop's)."""

    fn: func.FuncOp
    arch: str
    #: Bytes the whole-kernel rings of the loops pipelined so far take.
    placed: int = 0
    #: Bytes the largest loop's scoped rings take.
    scoped: int = 0
    #: Dot operands the rings of the kernel's other loops are assumed to feed (their
    #: operand buffers are not counted among the exchanges).
    others_fed: frozenset[SSAValue] = frozenset()

    def assuming(self, fed: set[SSAValue]) -> RingBudget:
        """A fresh budget of the same kernel, assuming the rings feed `fed`."""
        return RingBudget(self.fn, self.arch, others_fed=frozenset(fed))

    def for_loop(self, fed: set[SSAValue], scoped: bool = False) -> int:
        """Bytes the rings of one more loop may take, the dot operands in `fed` fed by
        them: the kernel's budget less the largest transient use, the rings already
        placed (those of other loops too, unless both are `scoped`), the operands
        staged once and the persistent reserve."""
        return (
            kernel_shared_budget(self.fn, self.arch)
            - transient_bound(self.fn, fed | self.others_fed)
            - self.placed
            - (0 if scoped else self.scoped)
            - staged_once_bound(self.fn)
            - PERSISTENT_RESERVE
            - alignment_allowance(self.fn)
        )

    def place(self, size: int, scoped: bool = False) -> None:
        """Record a loop's rings of `size` bytes."""
        if scoped:
            self.scoped = max(self.scoped, size)
        else:
            self.placed += size
