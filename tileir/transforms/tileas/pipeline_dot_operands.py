"""`tileas-pipeline-dot-operands{arch=sm_90a num-stages=3}`: the K loop of a GEMM as an
N-stage asynchronous pipeline (seed 003's schedule materialization, the unspecialized
pipeline, on the loads that feed tensor cores).

A tensor-core `nv_tileas.dot` reads its operands from shared memory, so a K loop that
loads each operand tile into registers waits twice per step: for global memory, then
for the copy into shared memory, with no overlap between loads and tensor cores.  Here
each such load becomes an `nv_tileas.async.tiled_load` of the `cp.async` atom of its
width, stage-expanded as `tileas-materialize-schedule` expands pending loads: stages
`0 .. N-2` are issued before the loop, the body issues the load of the iteration
`N - 1` ahead, and the loop carries the `N - 1` futures in flight.  The dot waits for
the oldest future (`nv_tileas.async.future_wait`) and the futures still in flight when
the loop ends are waited for after it (`nv_tileas.async.wait`), so no copy outlives the
loop.

    scf.for %k ... iter_args(%acc = %z) {
      %a = nv_tileas.tiled_load %va[...] mask %ma {atom = ldg_128b, padding_value = 0}
      %b = nv_tileas.tiled_load %vb[...] mask %mb {atom = ldg_128b, padding_value = 0}
      %d = nv_tileas.dot %a, %b, %acc
      scf.yield %d
    }

becomes (N = 3)

    %fa0 = nv_tileas.async.tiled_load ... {atom = cp_async_128b, nv_tileas.stage = 0}
    %fa1 = nv_tileas.async.tiled_load ... {atom = cp_async_128b, nv_tileas.stage = 1}
    (the same for b)
    %r:5 = scf.for %k ... iter_args(%acc = %z, %fa = %fa0, %fa' = %fa1, %fb = ..., %fb' = ...) {
      %a = nv_tileas.async.future_wait %fa
      %b = nv_tileas.async.future_wait %fb
      %d = nv_tileas.dot %a, %b, %acc
      %fa2 = nv_tileas.async.tiled_load ... (iteration %k + 2 * step, stage 2)
      %fb2 = ...
      scf.yield %d, %fa', %fa2, %fb', %fb2
    }
    nv_tileas.async.wait %r#1, %r#2, %r#3, %r#4

`convert-tileas-to-llvm` places each future in a ring of N shared-memory buffers laid
out as its dot reads the operand (`cp.async` writes straight into them, the masked-off
elements zero-filled), waits with `cp.async.wait_group` and a CTA barrier, and the dot
reads the buffer of the oldest stage instead of writing its operand first
(docs/codegen.md, "The K loop as a pipeline").

An operand that is an f32 load rounded to tf32 (`ftof`, cuTile's `astype(ct.tfloat32)`
before every f32 `ct.mma`) is fed as the load would be: the f32 tile goes through the
ring (or the stages of a warp-specialized pipeline) and the `ftof`, marked
`nv_tileas.rounded_in_shared`, stays between the wait and the dot; the lowering rounds
the stage where it landed (`tf32_operands.py`; on every engine that reads shared
memory, `tcgen05` included, but not for a tile replicated across threads).

An operand that is a unit-dimension reshape of a load (`1 x M x K -> M x K`, as batched
matmuls write it) is first loaded in the dot's shape, its pointers and mask reshaped
instead, where every reshape is a register renaming (`load_in_dot_shape`).

An operand computed from loads of the body (cuTile's `mma_scaled`: each fp8 tile
widened, multiplied by its broadcast scales and narrowed to bf16; a unit reshape that
changes the layout) or a load the dot stores otherwise than it was loaded (an fp8 B
loaded N-contiguous) gets no ring of its own: the raw tiles of its loads ride rings
instead, marked `nv_tileas.read_from_slot` (with their waits), where each load could
move and `cp.async` copies its accesses (any padding: the copies write it).  The wait
reads the thread's elements of the slot back into registers in the load's layout, and
the conversion runs on them (`async_copy.py`).  A `wgmma` dot so fed may leave its
group in flight: the operand is written each iteration into one of two buffers in turn
(the group of the iteration before reads the other), beside the rings (`turn_bytes`);
the links of a chain of such dots on one accumulator share their two buffers, each
link committing its own group (`turn_chain`).
Not where the loop's accumulators take more than
`SLOT_READ_ACCUMULATOR_LIMIT` registers a thread (the tile read back and the
conversion's registers come on top: spills); a `tcgen05` accumulator that stays in
tensor memory takes none (`tcgen05_plan.accumulator_in_tmem`).

A load qualifies when `tileas-materialize-schedule` could move it (weak, no token, no
`in_bounds` dimension, nothing in the body writes memory, its operands computed from
the induction variable by pure ops), it reads global memory with a 4-, 8- or 16-byte
atom (a `cp.async` size), its padding is zero (`cp.async` fills with zeros), and its
only users are the A or B operands of tensor-core dots (`mma.sync`, `wgmma`,
`tcgen05`) of the same loop body that keep its rows contiguous in shared memory (not
B of 8-bit dots, stored transposed; a tf32 B loaded N-contiguous is copied one 4-byte
element at a time into its N x K buffer; not 8-bit floats widened to f16 before
sm_89), and those dots run on
`wgmma` or hold at most `ACCUMULATOR_REGISTER_LIMIT` accumulator registers per thread
(`mma.sync`).  A loop whose dots all run on `wgmma` with both operands on rings and a
loop-carried accumulator they alone use leaves one `wgmma` group in flight
(`nv_tileas.groups_in_flight`; its rings take `N + 1` slots instead of `N - 1`, within
the same budget; where those do not fit, `N` slots, each refilled only after every
warp's `wgmma.wait_group 1` has retired the group that read it,
`nv_tileas.refill_after_wait`).  N is the option, lowered until the ring of every qualifying load fits
the shared memory left for the loop's rings (`ring_budget.py`: the kernel's static shared
memory, within one SM's shared memory divided by the CTAs per SM its `occupancy` hint asks
for, less an upper bound of its largest exchange and the rings of its loops already
pipelined); a loop whose rings do not fit one slot each (two stages) is left as it is.

A reduction or scan in the loop body (the online softmax between the two products of
flash attention) does not keep the loads from moving (`materialize_schedule`): its
shared memory is its own scratch.

The loops of a kernel are planned together (`plan_function`): the rings of an
unspecialized loop of `wgmma` or `mma.sync` dots live only while it runs and share one
region with the other such loops' (`ring_budget.ring_scoped`); where one slot of every
ring does not fit, the rings of fewer operands may (`sized_plan`).  Operands that need no
ring are marked too: a `wgmma` dot's operand the loop does not change (attention's Q)
`nv_tileas.staged_once`, written to shared memory once, before the loop
(`mark_staged_once`), and an A already in the instruction's register fragment
(attention's P, in the accumulator layout of the product that computed it)
`nv_tileas.a_in_registers`, where the kernel's registers allow it (`mark_register_a`):

    %o = nv_tileas.dot %p, %v, %acc {nv_tileas.a_in_registers, ...}
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    Float8E4M3FNType,
    Float8E5M2Type,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    NoneAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from tileir.analysis.axis_info import AxisInfoAnalysis, element_bytes
from tileir.diagnostics import CompileError
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import ATOM_CATALOG, AtomAttr, Residency
from tileir.dialects.nv_tileas.foreign import AsyncValueType
from tileir.dialects.nv_tileas.layouts import (
    WARP_SIZE,
    BlockedLayoutAttr,
    DistributedLayout,
    same_registers,
)
from tileir.dialects.nv_tileas.mma_layout import mma_linear
from tileir.dialects.nv_tileas.ops.tmem import A_IN_REGISTERS_ATTR, STAGED_ONCE_ATTR
from tileir.dialects.nv_tileas.types import TiledViewType
from tileir.targets import ARCHS, compute_capability, register_budget
from tileir.transforms.tileas.assign_layouts import NUM_WARPS_ATTR
from tileir.transforms.tileas.dot_plan import a_is_wgmma_fragment, dot_warp_grid
from tileir.transforms.tileas.gather_operands import drop_zero_fill
from tileir.transforms.tileas.materialize_schedule import (
    STAGE_ATTR,
    ScheduleAnalysis,
    analyze_loop,
    defined_outside,
    expand_pending_load,
    movable_load,
    operand_sources,
)
from tileir.transforms.tileas.occupancy import (
    OCCUPANCY_ATTR,
    kernel_occupancy,
    recorded_occupancy,
)
from tileir.transforms.tileas.ring_budget import (
    RingBudget,
    marked_staged_once,
    occupancy_hint,
    padded_bytes,
    ring_scoped,
    ring_slot_bytes,
    turn_buffer_bytes,
)
from tileir.transforms.tileas.specialize_agents import (
    PRODUCER_WARPS,
    SPECIALIZE_ATTR,
    consumer_registers,
    kernel_warps,
    producer_registers,
    too_many_for_two_warpgroups,
    why_not_specialized,
)
from tileir.transforms.tileas.tcgen05_agents import (
    SCALES_STAGED,
    copied_scales_clauses,
    mark_tcgen05_agents,
    too_few_registers,
    why_not_tcgen05_agents,
)
from tileir.transforms.tileas.tcgen05_plan import accumulator_in_tmem, may_stay_in_flight
from tileir.transforms.tileas.tf32_operands import (
    ELEMENT_COPIES,
    ROUNDED_IN_SHARED,
    ROUNDED_IN_SHARED_ATTR,
    element_copies,
    fed_value,
    operand_use,
    replicated,
    rounded,
    tf32_rounding,
)
from tileir.utils.bits import mlir_bit_width
from tileir.utils.walk import enclosing_function

#: What feeds a tensor-core dot of a loop, or why not a ring (read by the remarks): an
#: array of short clauses, not one sentence, so that the nv_tileas text prints one per
#: line instead of a string of 500 columns (`feed_clauses`).
FEED_ATTR = "nv_tileas.operand_feed"

#: The first clause of a dot whose operands stay synchronous (the reasons follow).
NOT_PIPELINED = "operands not pipelined"

#: How an operand the loop does not change reaches the dot instead of a ring
#: (`mark_staged_once`; the remark names the operand before it).
STAGED_ONCE = "written to shared memory once, before the loop (which does not change it)"

#: How an A that `wgmma` takes from registers reaches the dot (`mark_register_a`).
A_IN_REGISTERS = "from registers, in the accumulator layout it has"

#: The ways an operand reaches a dot without a ring that are not shortcomings.
NO_RING_NEEDED = (STAGED_ONCE, A_IN_REGISTERS)


def feed_clauses(dot: Operation) -> list[str] | None:
    """The clauses `tileas-pipeline-dot-operands` recorded on `dot` (None: none); the
    remarks join them with `; `."""
    feed = dot.attributes.get(FEED_ATTR)
    if not isinstance(feed, ArrayAttr):
        return None
    return [c.data for c in feed.data if isinstance(c, StringAttr)]


def set_feed_clauses(dot: Operation, clauses: Sequence[str]) -> None:
    dot.attributes[FEED_ATTR] = ArrayAttr([StringAttr(c) for c in clauses])


#: On a `wgmma` dot whose operands come from rings: how many of its `wgmma` groups stay
#: in flight while the loop goes on (`IN_FLIGHT`; module doc).
GROUPS_IN_FLIGHT_ATTR = "nv_tileas.groups_in_flight"

#: The `wgmma` groups a loop keeps in flight: one, as tileiras's sm_90 GEMMs do
#: (`WARPGROUP.DEPBAR.LE gsb0, 0x1`).
IN_FLIGHT = 1

#: On a `wgmma` dot that leaves groups in flight (unit): its rings have only the
#: `stages` slots the loop reads (not `stages + IN_FLIGHT`), because the body refills
#: the slot the group before this iteration's read only after every warp's
#: `wgmma.wait_group` has retired that group: the dot ends with `wgmma.wait_group 1` and
#: a CTA barrier, and the body's copies come after it, as the K-stage pipelines of
#: tileiras and CUTLASS release a stage (`sized_plan` chooses it where the deeper form's
#: extra slot does not fit; docs/codegen.md, "`wgmma` groups in flight").
REFILL_AFTER_WAIT_ATTR = "nv_tileas.refill_after_wait"

#: What the remark adds to the ring clause of such a dot.
REFILLED_AFTER_WAIT = "each slot refilled once its group has retired"

#: On a dot whose rings stay in one agent (not warp-specialized): each slot of its rings
#: has a *full* mbarrier that the copies into it arrive on (`cp.async.mbarrier.arrive`),
#: and the dot's `future_wait` waits on it with the round's parity instead of
#: `cp.async.wait_group` and a CTA barrier (`async_copy.py`).  Not for `tcgen05` dots,
#: whose slots are refilled after their MMAs' commits (`tcgen05.py`).
RING_MBARRIERS_ATTR = "nv_tileas.ring_mbarriers"

#: What the remark adds to the ring clause of such a dot.
UNDER_MBARRIERS = "under mbarriers"

#: The `cp.async` copy sizes, in bits.
CP_ASYNC_BITS = (32, 64, 128)

#: 8-bit float element types (widened to f16 for the tensor cores before sm_89).
FLOAT8_TYPES = (Float8E4M3FNType, Float8E5M2Type)

#: The most accumulator registers per thread of an `mma.sync` dot whose loop is
#: pipelined.  `mma.sync` loads its operand fragments into registers anyway, so a ring
#: saves it no registers, and the copies in flight need some for their addresses and
#: predicates: with 64 (`gemm_bf16_big_tile`, `gemm_e4m3_scaled`, NVIDIA's 128x128
#: matmul samples on sm_100a) the kernel spills.  A `wgmma` dot reads both operands from
#: shared memory, and without a ring its operand tiles pass through registers on the way
#: there, so the ring only frees registers: no limit (sm_90a, ptxas 13: NVIDIA's
#: 128x64 by 64x256 f16 matmul sample goes from 152 bytes of spills to none, a 128x128
#: bf16 one from 188 registers to 132).
ACCUMULATOR_REGISTER_LIMIT = 32

#: Engines whose dots read their operands from shared memory.
SHARED_OPERAND_ENGINES = ("mma.sync", "wgmma", "tcgen05")


def feeds_only_dots(op: tas.TiledLoadOp) -> bool:
    """Whether `op`'s tile has one use, the A or B operand of a tensor-core dot that
    keeps the operand's rows contiguous in shared memory as they are in the load.  (A
    ring belongs to one dot's operand, laid out as that dot reads it: a tile two dots
    read, as after CSE merges two loads of it, stays a synchronous load.)  An f32 tile
    the use rounds to tf32 first counts as that use's (`tf32_operands.fed_value`)."""
    uses = list(fed_value(op).uses)
    return len(uses) == 1 and all(
        isinstance(u.operation, tas.DotOp)
        and u.index in (0, 1)
        and u.operation.atom.info.engine in SHARED_OPERAND_ENGINES
        and u.operation.parent_block() is op.parent_block()
        and copies_rows(op, u.operation, u.index)
        for u in uses
    )


def copies_rows(op: tas.TiledLoadOp, dot: tas.DotOp, index: int) -> bool:
    """Whether the dot keeps operand `index` in shared memory with the load's
    contiguous dimension contiguous, so that each thread's vector lands in one piece:
    K for A; for B, K (8-bit and tf32 elements are stored N x K), except for 16-bit
    elements, whose buffer follows the load on every engine (`wgmma.b_mn_major`,
    `MmaSpec.b_k_contiguous`), and for 32-bit ones, copied an element at a time
    (`tf32_operands.element_copies`).  Not for 8-bit floats widened to f16 on the way
    in (no 8-bit float tensor cores before sm_89)."""
    spec = dot.atom.info.mma_spec
    t = op.result.type
    if spec is None or not isinstance(t, TensorType):
        return False
    if spec.a == "f16" and isinstance(t.element_type, FLOAT8_TYPES):
        return False
    layout = t.encoding
    if not isinstance(layout, BlockedLayoutAttr):
        return False
    rank = len(t.get_shape())
    contiguous = layout.dim_order[0]
    if index == 0:
        return contiguous == rank - 1
    k_dim, n_dim = rank - 2, rank - 1
    if spec.element_bytes == 2 or element_copies(op, dot, index):
        return contiguous in (k_dim, n_dim)
    return contiguous == k_dim


def zero_padding(op: tas.TiledLoadOp) -> bool:
    pad = op.padding_value
    if pad is None:
        return True
    if isinstance(pad, FloatAttr):
        # cp.async fills with +0.0: a -0.0 padding differs in its sign bit.
        return pad.value.data == 0.0 and math.copysign(1.0, pad.value.data) > 0
    return isinstance(pad, IntegerAttr) and pad.value.data == 0


def async_atom(op: tas.TiledLoadOp) -> AtomAttr | None:
    """The `cp.async` atom that moves what `op`'s atom moves per access, if any."""
    view = op.view.type
    if not isinstance(view, TiledViewType) or view.residency_kind is not Residency.GMEM:
        return None
    bits = op.atom.info.bits
    name = f"cp_async_{bits}b"
    if bits not in CP_ASYNC_BITS or name not in ATOM_CATALOG:
        return None
    if element_bits(op) is None:
        return None
    return AtomAttr(name)


def element_bits(op: tas.TiledLoadOp) -> int | None:
    """Bits of one element of `op`'s tile in memory, for the whole-byte types `cp.async`
    copies (not bools, sub-byte or tf32 elements)."""
    bits = mlir_bit_width(element_type(op.result.type))
    return bits if bits in (8, 16, 32, 64) else None


def tile_bytes(op: tas.TiledLoadOp) -> int:
    t = op.result.type
    assert isinstance(t, TensorType)
    bits = element_bits(op)
    assert bits is not None
    return math.prod(t.get_shape()) * bits // 8


def accumulator_registers(dot: tas.DotOp) -> int:
    """32-bit registers a thread holds of `dot`'s accumulator (its layout says how many
    elements)."""
    t = dot.acc.type
    assert isinstance(t, TensorType) and isinstance(t.encoding, DistributedLayout)
    elements = t.encoding.linear(t.get_shape()).num_registers
    return max(1, elements * (mlir_bit_width(t.element_type) or 32) // 32)


def ring_slots(stages: int, in_flight: int, refill_after_wait: bool = False) -> int:
    """Slots of the ring of one operand: the `stages - 1` tiles the loop loads ahead
    less the one a synchronous dot has just read (refilled once it is done: `stages -
    1` in all), or, with `in_flight` groups of `wgmma` still reading theirs, those tiles,
    the one being read and the `in_flight` still read (`stages + in_flight`); or, where
    the body refills a slot only once every warp has retired the group that read it
    (`REFILL_AFTER_WAIT_ATTR`), the `stages` the loop reads: the `stages - 1` ahead and
    the one being read, the slot of the group just retired refilled with the tile
    `stages - 1` ahead."""
    if in_flight and refill_after_wait:
        return stages
    return stages + in_flight if in_flight else stages - 1


def refills_after_wait(dot: tas.DotOp) -> bool:
    """Whether `dot`'s rings keep only the slots its loop reads (`REFILL_AFTER_WAIT_ATTR`)."""
    return REFILL_AFTER_WAIT_ATTR in dot.attributes


def groups_in_flight(dot: tas.DotOp) -> int:
    """The `wgmma` groups `dot` leaves in flight (0: it waits for its own)."""
    attr = dot.attributes.get(GROUPS_IN_FLIGHT_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else 0


def chained_dot(value: SSAValue) -> tas.DotOp | None:
    """The dot whose accumulator `value` (a dot's result) is, where that is its only use:
    the next link of a chain of dots on one accumulator (the K groups of a block-scaled
    tile)."""
    uses = list(value.uses)
    if len(uses) != 1:
        return None
    user = uses[0].operation
    return user if isinstance(user, tas.DotOp) and user.acc is value else None


def why_not_in_flight(dot: tas.DotOp, loop: scf.ForOp) -> str | None:
    """Why `dot` cannot leave its `wgmma` groups in flight across iterations of `loop`
    (None when it can): its accumulator must be a loop-carried value that only it uses
    and whose next value it alone yields, or a link of a chain of such dots (each the
    only user of the one before: the chain's `wgmma`s then form one group), in 32-bit
    registers laid out as the instruction writes them, so that the asynchronous
    instructions are the only thing that touches those registers until the loop ends."""
    if dot.atom.info.engine != "wgmma":
        return "it does not run on wgmma"
    acc, result = dot.acc, dot.result
    body = loop.body.block
    head = acc
    while isinstance(head.owner, tas.DotOp) and head.owner.parent_block() is body:
        if not head.has_one_use() or head.owner.atom.info.engine != "wgmma":
            return "its accumulator has other users than the dot and the loop's yield"
        head = head.owner.acc
    if not (isinstance(head, BlockArgument) and head.block is body and head.index >= 1):
        return "its accumulator is not carried by the loop"
    tail = result
    while (link := chained_dot(tail)) is not None and link.parent_block() is body:
        tail = link.result
    uses = list(tail.uses)
    if (
        not head.has_one_use()
        or len(uses) != 1
        or not isinstance(uses[0].operation, scf.YieldOp)
        or uses[0].index != head.index - 1
    ):
        return "its accumulator has other users than the dot and the loop's yield"
    t = acc.type
    assert isinstance(t, TensorType)
    if len(t.get_shape()) != 2 or mlir_bit_width(t.element_type) != 32:
        return "its accumulator is not a 2-D tile of 32-bit elements"
    fragment = mma_linear(t.get_shape(), *dot_warp_grid(dot, t))
    for v in (acc, result):
        vt = v.type
        assert isinstance(vt, TensorType) and isinstance(vt.encoding, DistributedLayout)
        if vt.encoding.linear(vt.get_shape()) != fragment:
            return "its accumulator is not in the layout wgmma writes"
    return None


def _squeezed(shape: Sequence[int]) -> list[int]:
    return [d for d in shape if d != 1]


def _zero_index(value: SSAValue) -> bool:
    owner = value.owner
    return (
        isinstance(owner, arith.ConstantOp)
        and isinstance(owner.value, IntegerAttr)
        and owner.value.value.data == 0
    )


def load_in_dot_shape(view: tas.ViewOp, loop: scf.ForOp) -> tas.TiledLoadOp | None:
    """A load of the shape its dot reads, for an operand that is a unit-dimension
    reshape (`nv_tileas.view`, a register renaming) of a load from a view of pointers,
    as batched matmuls write it (`1 x M x K -> M x K`): the pointers and the mask are
    viewed in the dot's shape instead, and the load is of that shape (what
    `tileas-pipeline-dot-operands` can turn into a ring).  None, and nothing changed,
    when the operand is anything else.  Every view is a renaming: the pointers and the
    mask have the load's layout, and the reshape keeps each element in its register."""
    load = view.src.owner
    result = view.result.type
    if (
        view.indices
        or not isinstance(load, tas.TiledLoadOp)
        or load.parent_block() is not loop.body.block
        or not load.result.has_one_use()
        or load.token is not None
        or load.offsets
        or not all(_zero_index(c) for c in load.coords)
        or not isinstance(result, TensorType)
    ):
        return None
    loaded = load.result.type
    pointers = load.view.owner
    storage = load.view.type
    if (
        not isinstance(loaded, TensorType)
        or not isinstance(pointers, tas.ViewOp)
        or pointers.indices
        or not load.view.has_one_use()
        or not isinstance(storage, TiledViewType)
        or storage.strides.data
        or not isinstance(storage.layout, NoneAttr)
        or _squeezed(loaded.get_shape()) != _squeezed(result.get_shape())
        or loaded.get_shape() == result.get_shape()
    ):
        return None
    sources = [pointers.src] + ([load.mask] if load.mask is not None else [])
    if any(
        not isinstance(v.type, TensorType) or v.type.encoding != loaded.encoding for v in sources
    ):
        return None
    if not (
        isinstance(loaded.encoding, DistributedLayout)
        and isinstance(result.encoding, DistributedLayout)
        and same_registers(
            loaded.encoding.linear(loaded.get_shape()), result.encoding.linear(result.get_shape())
        )
    ):
        return None
    shape = result.get_shape()

    def reshaped(value: SSAValue) -> SSAValue:
        t = value.type
        assert isinstance(t, TensorType)
        new = tas.ViewOp(value, TensorType(t.element_type, shape, result.encoding))
        Rewriter.insert_op(new, InsertPoint.before(load))
        return new.result

    addresses = tas.ViewOp(
        reshaped(pointers.src), TiledViewType(shape, storage.element_type, storage.residency_kind)
    )
    Rewriter.insert_op(addresses, InsertPoint.before(load))
    mask = reshaped(load.mask) if load.mask is not None else None
    props = dict(load.properties)
    props.pop("operandSegmentSizes", None)
    flags = load.in_bounds_flags()
    if flags:
        kept = [int(f) for f, d in zip(flags, loaded.get_shape(), strict=True) if d != 1]
        props["in_bounds"] = DenseArrayBase.from_list(i1, kept)
    new = tas.TiledLoadOp.build(
        operands=[addresses.result, [load.coords[0]] * len(shape), [], [], [mask] if mask else []],
        result_types=[result, []],
        properties=props,
        attributes=dict(load.attributes),
    )
    new.location = load.location
    Rewriter.insert_op(new, InsertPoint.before(load))
    view.result.replace_all_uses_with(new.result)
    for old in (view, load, pointers):
        Rewriter.erase_op(old)
    return new


def _to_async(op: tas.TiledLoadOp, atom: AtomAttr) -> tas.AsyncTiledLoadOp:
    """`op` as an `async.tiled_load` of `atom` whose future a `future_wait` unwraps for
    `op`'s users."""
    props = dict(op.properties)
    props["atom"] = atom
    props.pop("operandSegmentSizes", None)
    new = tas.AsyncTiledLoadOp.build(
        operands=[op.view, list(op.coords), list(op.offsets), [], [op.mask] if op.mask else []],
        result_types=[AsyncValueType(op.result.type), []],
        properties=props,
        attributes=dict(op.attributes),
    )
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    wait = tas.FutureWaitOp(new.result)
    wait.location = op.location
    if READ_FROM_SLOT_ATTR in op.attributes:
        wait.attributes[READ_FROM_SLOT_ATTR] = UnitAttr()
    Rewriter.insert_op(wait, InsertPoint.after(new))
    op.result.replace_all_uses_with(wait.result)
    Rewriter.erase_op(op)
    return new


#: Why an operand computed from loads gets no ring of its own (`why_not_fed`); where
#: its loads qualify, their raw tiles ride rings instead (`slot_read_loads`).
COMPUTED = "it is computed (a conversion or rearrangement of a load), not loaded"

#: Why a load stays synchronous for `why_not_fed` where its raw tile may still ride a
#: ring read back into registers (`slot_read_loads`).
NOT_ONLY_DOTS = "its tile has users besides one tensor-core dot, or a dot stores it transposed"


def why_not_fed(
    value: SSAValue, analysis: ScheduleAnalysis, loop: scf.ForOp
) -> tuple[tas.TiledLoadOp, AtomAttr, list[Operation]] | str:
    """The load that feeds a dot operand and its `cp.async` atom and operand sources
    when it qualifies (module doc), else why not."""
    rounding = tf32_rounding(value)
    op = rounding.args[0].owner if rounding is not None else value.owner
    if not isinstance(op, tas.TiledLoadOp):
        return COMPUTED
    if op.parent_block() is not loop.body.block:
        return "it is not loaded in the loop body"
    if op not in analysis.pending_loads:
        return "it is loaded once for the whole loop"
    if movable_load(op, analysis) is None:
        return (
            "its load cannot move to an earlier iteration (ordered, tokened or in-bounds, "
            "or the loop writes memory)"
        )
    if not feeds_only_dots(op):
        return NOT_ONLY_DOTS
    if not zero_padding(op):
        return "its padding value is not zero (cp.async fills with zeros)"
    if rounding is not None and replicated(op):
        return (
            "its tile is replicated across threads, and rounding a replicated tile to "
            "tf32 in shared memory is not supported yet"
        )
    atom = async_atom(op)
    if atom is None:
        return f"no cp.async copies its {op.atom.info.bits}-bit accesses of global memory"
    sources = operand_sources(op, loop)
    if sources is None:
        return "its coordinates depend on more than the induction variable"
    return op, atom, sources


#: On a load whose raw tile a ring holds for the ops that compute a dot operand from it
#: (a dequantization with its scales, a cast, a transposed store), and on its future's
#: wait: the wait reads the thread's elements of the tile from the slot into registers,
#: laid out as loaded, and those ops compute from them (`async_copy.py`).
READ_FROM_SLOT_ATTR = "nv_tileas.read_from_slot"

#: What the remark says of an operand computed from the slots of its loads' rings.
CONVERTED_FROM_SLOT = "computed from the slot after the wait"


def computed_from(value: SSAValue, loop: scf.ForOp) -> list[tas.TiledLoadOp]:
    """The tiled loads of `loop`'s body that the dot operand `value` is computed from
    through pure, region-free ops of the body, in body order (none where anything else
    of the body, an iter-arg or a memory op that is not such a load, goes into it)."""
    block = loop.body.block
    loads: list[tas.TiledLoadOp] = []
    seen: set[int] = set()

    def visit(v: SSAValue) -> bool:
        if defined_outside(v, loop) or v is block.args[0]:
            return True
        owner = v.owner
        if not isinstance(owner, Operation) or owner.parent_block() is not block:
            return False
        if id(owner) in seen:
            return True
        seen.add(id(owner))
        if isinstance(owner, tas.TiledLoadOp):
            loads.append(owner)
            return True
        if owner.regions or not is_side_effect_free(owner):
            return False
        return all(visit(o) for o in owner.operands)

    if not visit(value):
        return []
    return sorted(loads, key=block.get_operation_index)


def why_not_slot_read(
    op: tas.TiledLoadOp, analysis: ScheduleAnalysis, loop: scf.ForOp
) -> tuple[tas.TiledLoadOp, AtomAttr, list[Operation]] | str:
    """`op` with its `cp.async` atom and operand sources where its raw tile can ride a
    ring that its future's wait reads back into registers (`READ_FROM_SLOT_ATTR`), else
    why not: what `why_not_fed` asks of a load but its users, its padding (the copies
    write any padding value) and the tf32 rounding (it has none)."""
    if op not in analysis.pending_loads:
        return "it is loaded once for the whole loop"
    if movable_load(op, analysis) is None:
        return "it cannot move to an earlier iteration"
    atom = async_atom(op)
    if atom is None:
        return f"no cp.async copies its {op.atom.info.bits}-bit accesses{narrow_because(op)}"
    # The raw tile keeps its own layout in the slot: a thread copies the elements it
    # holds contiguously, which must make at least one 4-byte cp.async.
    bits = element_bits(op)
    t = op.result.type
    assert bits is not None and isinstance(t, TensorType)
    assert isinstance(t.encoding, DistributedLayout)
    vec = t.encoding.linear(t.get_shape()).vector_elements(op.atom.info.bits // bits)
    if vec * bits not in CP_ASYNC_BITS:
        return f"its layout gives a thread {vec * bits}-bit runs, and no cp.async copies those"
    sources = operand_sources(op, loop)
    if sources is None:
        return "its coordinates depend on more than the induction variable"
    return op, atom, sources


def narrow_because(op: tas.TiledLoadOp) -> str:
    """Why the pointers of `op` allow no access as wide as a `cp.async` (4 bytes), as the
    remark adds it (empty where that is not why): the access atom is the widest run the
    axis analysis proves contiguous and aligned (`tileaa_to_tileas.best_vector`), so say
    how long and how aligned the runs along their most contiguous dimension are (the
    block-scaled kernels' 2-D scales: rows of 4 contiguous bytes, but a row stride not
    known to be a multiple of 4)."""
    view = op.view.owner
    if not isinstance(view, tas.ViewOp) or not isinstance(view.src.type, TensorType):
        return ""
    pointer = element_type(view.src.type)
    if not isinstance(pointer, PointerType):
        return ""
    size = element_bytes(pointer.pointee)
    info = AxisInfoAnalysis().get(view.src)
    dim = max(range(info.rank), key=lambda d: (info.contiguity[d], d))
    run = info.contiguity[dim] * size
    aligned = min(info.divisibility[dim], run)
    least = CP_ASYNC_BITS[0] // 8
    if run < least:
        return f" (its addresses are contiguous for only {run} bytes)"
    if aligned < least:
        unit = "byte" if aligned == 1 else "bytes"
        return f" (its addresses run {run} contiguous bytes, known aligned to {aligned} {unit})"
    return ""


def describe_tile(load: tas.TiledLoadOp) -> str:
    t = load.result.type
    assert isinstance(t, TensorType)
    return "x".join(str(d) for d in t.get_shape()) + f"x{t.element_type}"


#: The last clause of a recorded feed: the accumulator registers a thread holds
#: (`tileas-tmem-accumulators` says tensor memory instead where the accumulator stays there).
ACCUMULATOR_REGISTERS = re.compile(r"\d+ accumulator registers a thread")


def _record(dot: tas.DotOp, clauses: Sequence[str], agents: str) -> None:
    """Record what feeds `dot`, with the agents that run it and the accumulator
    registers each of their threads holds (for the remarks)."""
    registers = accumulator_registers(dot)
    set_feed_clauses(dot, [*clauses, agents, f"{registers} accumulator registers a thread"])


def agents_of(fn: func.FuncOp) -> str:
    """The agents that run `fn`'s dots, as the remarks say it: one, of the warps
    `tileas-assign-layouts` chose (`_specialize` says two where the loop is
    warp-specialized, and a dot of a loop that could be says why not)."""
    warps = fn.attributes.get(NUM_WARPS_ATTR)
    if isinstance(warps, IntegerAttr):
        return f"one agent of {warps.value.data} warps"
    return "one agent"


@dataclass
class LoopPlan:
    """What `tileas-pipeline-dot-operands` does with one loop, decided before anything
    is rewritten (`sized_plan`), so that the loops of a kernel can be planned together
    (`plan_function`) and then carried out (`apply_plan`)."""

    loop: scf.ForOp
    #: The loop's dots that read their operands from shared memory.
    dots: list[tas.DotOp]
    #: The loads that qualify for a ring, with their `cp.async` atom and sources.
    chosen: dict[int, tuple[tas.TiledLoadOp, AtomAttr, list[Operation]]]
    #: Per dot, the operands that stay synchronous and why.
    direct: dict[int, list[str]]
    #: Why the loop is not pipelined at all (empty: it is, where anything qualifies).
    blockers: list[str]
    #: Bytes of one stage of all the loop's rings.
    per_stage: int = 0
    stages: int = 0
    #: Per dot, why its `wgmma` groups are not left in flight (None: they are).
    in_flight: dict[int, str | None] = field(default_factory=dict)
    #: Whether the loop becomes a producer and a consumer agent, or why not (None
    #: where it could not be: its dots wait for their groups).
    specialize: bool = False
    why_not_specialized: str | None = None
    #: Per dot, its operands computed from loads whose raw tiles ride rings
    #: (`READ_FROM_SLOT_ATTR`): the operand's index and those loads, and what the
    #: remark says of the others it is computed from.
    converted: dict[int, list[tuple[int, list[tas.TiledLoadOp], list[str]]]] = field(
        default_factory=dict
    )
    #: The ids (as in `chosen`) of the loads whose rings their waits read back.
    slot_read: set[int] = field(default_factory=set)
    #: Per block-scaled dot, its scale operands' loads (`_scale_slot_read`): the
    #: operand's name, the loads whose raw tiles may ride rings read back from their
    #: slots, and what the remark says of the others.
    scale_loads: dict[int, list[tuple[str, list[tas.TiledLoadOp], list[str]]]] = field(
        default_factory=dict
    )
    #: Its `wgmma` groups stay in flight with rings of only `stages` slots, each
    #: refilled once its group has retired (`REFILL_AFTER_WAIT_ATTR`, `_sized`).
    refill_after_wait: bool = False
    #: Its `tcgen05` dots are the links of a chain whose accumulator stays in tensor
    #: memory and whose written operands take two buffers in turn (`tcgen05_turn_chain`).
    tcgen05_turns: bool = False
    #: Why such a chain's links wait for their own commits instead (None: not such a chain).
    why_not_tcgen05_turns: str | None = None

    @property
    def scoped(self) -> bool:
        """Whether its rings live only while the loop runs (`ring_budget.ring_scoped`);
        while `specialize` is still a possibility the answer is the cautious one."""
        return ring_scoped(self.dots, self.specialize)

    @property
    def pipelined(self) -> bool:
        return bool(self.chosen) and not self.blockers

    @property
    def fed(self) -> set[SSAValue]:
        """The dot operands the loop's rings feed (none when it is not pipelined)."""
        if not self.pipelined:
            return set()
        return {
            fed_value(load) for k, (load, _, _) in self.chosen.items() if k not in self.slot_read
        }

    @property
    def all_in_flight(self) -> bool:
        return all(why is None for why in self.in_flight.values())

    @property
    def tcgen05(self) -> bool:
        """Whether its dots are `tcgen05` MMAs.  Where `tileas-tmem-accumulators`
        (which runs after this pass) may leave the MMAs in flight (`tcgen05_slots`),
        their rings are counted as `stages` slots, one more than a synchronous dot's
        (`ring_slots`): the slot they read is refilled only once their commit has
        arrived, and the lowering gives the ring `stages` slots (`async_copy.Ring.slots`).
        Counting `stages - 1` there made NVIDIA's batched matmul plan 192 KiB of rings
        on sm_100a and allocate 288."""
        return any(dot.atom.info.engine == "tcgen05" for dot in self.dots)

    @property
    def tcgen05_slots(self) -> bool:
        """Whether its rings take `stages` slots for `tcgen05` MMAs (`tcgen05`): those
        of a warp-specialized loop, or of a dot whose MMAs may stay in flight
        (`tcgen05_plan.may_stay_in_flight`).  Every other `tcgen05` dot waits for its
        own commit, and the lowering gives its rings `stages - 1` slots, as a
        synchronous dot's (`async_copy.Ring.slots`)."""
        return (self.tcgen05 and self.specialize) or any(may_stay_in_flight(d) for d in self.dots)

    @property
    def slots(self) -> int:
        """Slots of each of the loop's rings (`ring_slots`; `stages` for `tcgen05_slots`)."""
        if self.tcgen05_slots:
            return self.stages
        in_flight = IN_FLIGHT if self.all_in_flight else 0
        return ring_slots(self.stages, in_flight, self.refill_after_wait)


def shared_operand_dots(loop: scf.ForOp) -> list[tas.DotOp]:
    return [
        op
        for op in loop.body.block.ops
        if isinstance(op, tas.DotOp) and op.atom.info.engine in SHARED_OPERAND_ENGINES
    ]


#: Registers a thread keeps beside a loop's accumulators and a register A for everything
#: else the loop holds (addresses, indices, row statistics, temporaries).
REGISTER_A_RESERVE = 64


def mark_register_a(loop: scf.ForOp, arch: str) -> None:
    """Mark the `wgmma` dots of `loop` whose A is in the fragment layout
    (`a_is_wgmma_fragment`: attention's P) `nv_tileas.a_in_registers`, where the
    registers allow it: the A registers stay live until the instruction completes,
    beside every accumulator of the loop, where through shared memory they die at the
    store.  With the kernel's register budget (its warps and `occupancy` hint) below the
    loop's accumulators, A's registers and `REGISTER_A_RESERVE`, A keeps going through
    shared memory: NVIDIA's attention sample with 128x128 tiles at `occupancy = 2`
    (128 registers) spills 1,552 bytes that way and 1,888 with P in registers."""
    dots = [d for d in shared_operand_dots(loop) if a_is_wgmma_fragment(d)]
    if not dots:
        return
    fn = enclosing_function(loop)
    if fn is None:
        return
    budget = register_budget(kernel_warps(loop) * WARP_SIZE, occupancy_hint(fn, arch) or 1)
    held = sum(accumulator_registers(d) for d in shared_operand_dots(loop))
    for dot in dots:
        a = dot.a.type
        assert isinstance(a, TensorType) and isinstance(a.encoding, DistributedLayout)
        words = (a.encoding.linear(a.get_shape()).num_registers + 1) // 2  # 16-bit pairs
        if held + words + REGISTER_A_RESERVE <= budget:
            dot.attributes[A_IN_REGISTERS_ATTR] = UnitAttr()
            held += words


def mark_staged_once(loop: scf.ForOp) -> None:
    """Mark the operands of `loop`'s `wgmma` dots that the loop does not change
    (attention's Q) `nv_tileas.staged_once`: the lowering writes them to shared memory
    once, before the loop, and their registers are not live across it
    (`staged_operands.py`).  Not an A that `wgmma` takes from registers."""
    for dot in shared_operand_dots(loop):
        if dot.atom.info.engine != "wgmma":
            continue
        staged = [
            i
            for i, v in enumerate((dot.a, dot.b))
            if defined_outside(v, loop) and not (i == 0 and A_IN_REGISTERS_ATTR in dot.attributes)
        ]
        if staged:
            dot.attributes[STAGED_ONCE_ATTR] = ArrayAttr([IntegerAttr(i, i64) for i in staged])


def loop_candidates(loop: scf.ForOp, num_stages: int, warp_specialize: bool) -> LoopPlan:
    """What of `loop` could be pipelined whatever the budget (module doc): the loads that
    qualify for rings, the operands that stay synchronous and why, what keeps the loop
    from being pipelined at all, whether its `wgmma` groups could stay in flight and
    it could be warp-specialized; nothing is rewritten."""
    dots = shared_operand_dots(loop)
    analysis = analyze_loop(loop, num_stages)
    plan = LoopPlan(loop, dots, {}, {}, [])
    for dot in dots:
        staged = marked_staged_once(dot)
        for index, (name, value) in enumerate((("A", dot.a), ("B", dot.b))):
            if index in staged:
                plan.direct.setdefault(id(dot), []).append(f"{name}: {STAGED_ONCE}")
                continue
            if index == 0 and A_IN_REGISTERS_ATTR in dot.attributes:
                plan.direct.setdefault(id(dot), []).append(f"{name}: {A_IN_REGISTERS}")
                continue
            fed = why_not_fed(value, analysis, loop)
            if not isinstance(fed, str):
                plan.chosen[id(fed[0])] = fed
                continue
            why = _slot_read(plan, dot, index, value, analysis, fed)
            if why is not None:
                plan.direct.setdefault(id(dot), []).append(f"{name}: {why or fed}")
        _scale_slot_read(plan, dot, analysis)
        registers = accumulator_registers(dot)
        if dot.atom.info.engine == "mma.sync" and registers > ACCUMULATOR_REGISTER_LIMIT:
            plan.blockers.append(
                f"its accumulator takes {registers} registers a thread (mma.sync: at most "
                f"{ACCUMULATOR_REGISTER_LIMIT} leave room for the copies in flight)"
            )
    if not plan.pipelined:
        return plan
    # wgmma groups in flight need both operands in rings, and slots for what they read:
    # for every dot of the loop, or for none (the loop's rings share one stage count).
    in_flight: dict[int, str | None] = {
        id(dot): why_not_in_flight(dot, loop)
        or ("an operand is not fed by a ring" if id(dot) in plan.direct else None)
        for dot in dots
    }
    if any(why is not None for why in in_flight.values()):
        in_flight = {k: why or "another dot of the loop waits" for k, why in in_flight.items()}
    plan.in_flight = in_flight
    loads = [load for load, _, _ in plan.chosen.values()]
    if warp_specialize and plan.tcgen05:
        plan.why_not_specialized = why_not_tcgen05_agents(
            loop, loads, dots, bool(plan.direct) or bool(plan.converted)
        )
        plan.specialize = plan.why_not_specialized is None
    elif warp_specialize and plan.all_in_flight and plan.converted:
        plan.why_not_specialized = CONVERTED_NOT_SPECIALIZED
    elif warp_specialize and plan.all_in_flight:
        plan.why_not_specialized = why_not_specialized(loop, loads)
        if plan.why_not_specialized is None and kernel_warps(loop) != PRODUCER_WARPS:
            registers = max(accumulator_registers(dot) for dot in dots)
            plan.why_not_specialized = too_many_for_two_warpgroups(registers)
        plan.specialize = plan.why_not_specialized is None
    plan.per_stage = sum(ring_slot_bytes(load, tile_bytes(load)) for load in loads)
    return plan


#: The most accumulator registers a thread of the dots of a loop whose operands are
#: computed from ring slots (`_slot_read`): the tile read back, and the conversion's
#: registers (fp8 widened to f32, scaled, narrowed to bf16), come on top of the
#: ring's.  sm_90a, ptxas 13: at 64, with the raw tile read back whole at the wait,
#: NVIDIA's 256x128 scaled matmul (128 accumulator registers) went from 0 to 16 bytes of
#: spills, its swizzled variant and s_block_scaled_mm_swizzled from 0 to 12.  Read back
#: a slice at a time where the conversion needs it (`llvm-sink-tmem-loads`,
#: `SLOT_READ_ATTR`), all seven kernels of 128 have none: the block-scaled ones 231 and
#: 244 registers (254 and 255 synchronous), the fp8 batched matmuls' transposed B 190
#: and 192 (196 and 204).  Above 128 not measured.  A `tcgen05` accumulator kept in
#: tensor memory counts none (sm_100a, ptxas 13: NVIDIA's 256x256 block-scaled kernels,
#: 512 columns, ride their rings with 157 to 182 registers and no spills).
SLOT_READ_ACCUMULATOR_LIMIT = 128


def _slot_read(
    plan: LoopPlan,
    dot: tas.DotOp,
    index: int,
    value: SSAValue,
    analysis: ScheduleAnalysis,
    fed: str,
) -> str | None:
    """Where operand `index` of `dot` (`value`, which no ring feeds as the dot reads it)
    is computed from loads of the loop body (or is a load the dot stores otherwise),
    choose the raw tiles of those that qualify (`why_not_slot_read`) for rings their
    waits read back, and record the operand in `plan.converted` (None); else why not
    (empty: `why_not_fed` said it)."""
    loads = computed_from(value, plan.loop)
    if not loads or tf32_rounding(value) is not None:
        return ""
    riding: list[tuple[tas.TiledLoadOp, AtomAttr, list[Operation]]] = []
    others: list[str] = []
    for load in loads:
        ride = why_not_slot_read(load, analysis, plan.loop)
        if isinstance(ride, str):
            others.append(f"its {describe_tile(load)} load stays synchronous: {ride}")
        else:
            riding.append(ride)
    if not riding:
        return ""
    # (Dots that chain one accumulator, as the halves of a block-scaled K tile, hold it
    # once; a `tcgen05` accumulator that stays in tensor memory holds no register.)
    registers = sum(
        accumulator_registers(d)
        for d in plan.dots
        if not isinstance(d.acc.owner, tas.DotOp) and not accumulator_in_tmem(d)
    )
    if registers > SLOT_READ_ACCUMULATOR_LIMIT:
        return (
            f"{fed}; its loads do not ride rings read back from their slots: the loop's "
            f"accumulators take {registers} registers a thread (at most "
            f"{SLOT_READ_ACCUMULATOR_LIMIT} leave room for the tiles read back)"
        )
    for ride in riding:
        plan.chosen[id(ride[0])] = ride
        plan.slot_read.add(id(ride[0]))
    plan.converted.setdefault(id(dot), []).append((index, [r[0] for r in riding], others))
    return None


def _scale_slot_read(plan: LoopPlan, dot: tas.DotOp, analysis: ScheduleAnalysis) -> None:
    """The scales of a block-scaled `dot` (`nv_tileas.dot ... scales %sa, %sb`) from ring
    slots: the raw tiles of the loads each is computed from (the load itself, or
    reshapes and permutes of it, as the swizzled samples' 32x16 blocks) ride rings that
    their waits read back (`READ_FROM_SLOT_ATTR`, as `_slot_read` chooses them for
    operands), where `why_not_slot_read` lets them; the threads that waited then write
    them into the `tcgen05.cp` source layout as before (`ScaleFactorBuffer`).  A load
    that already rides for an operand (NVFP4's scales, whose signs fold into A and B)
    is read back once.  Recorded in `plan.scale_loads` for the remark."""
    if dot.scales is None:
        return
    for name, scale in (("A's scales", dot.scales[0]), ("B's scales", dot.scales[1])):
        loads = computed_from(scale, plan.loop)
        riding: list[tas.TiledLoadOp] = []
        others: list[str] = []
        for load in loads:
            if id(load) in plan.chosen:
                riding.append(load)
                continue
            ride = why_not_slot_read(load, analysis, plan.loop)
            if isinstance(ride, str):
                others.append(f"its {describe_tile(load)} load stays synchronous: {ride}")
                continue
            plan.chosen[id(load)] = ride
            plan.slot_read.add(id(load))
            riding.append(load)
        if not loads:
            others.append("not computed from loads of the loop body")
        plan.scale_loads.setdefault(id(dot), []).append((name, riding, others))


#: What the remark says of scales whose raw tiles ride rings (`_scale_slot_read`).
SCALES_FROM_SLOT = "read from the slot after the wait, then written into the tcgen05.cp layout"


def scale_clauses(plan: LoopPlan, dot: tas.DotOp) -> list[str]:
    """What the remark says of the scales of `dot` (`_scale_slot_read`)."""
    clauses: list[str] = []
    for name, loads, others in plan.scale_loads.get(id(dot), []):
        riding = [load for load in loads if id(load) in plan.chosen]
        if riding:
            tiles = ", ".join(describe_tile(load) for load in riding)
            rides = "load rides a ring" if len(riding) == 1 else "loads ride rings"
            clauses.append(f"{name}: {SCALES_FROM_SLOT} (the raw {tiles} {rides})")
        elif loads:
            clauses.append(f"{name}: {NO_ROOM}")
        clauses += [f"{name}: {other}" for other in others]
    return clauses


def scales_from_slots(plan: LoopPlan, dot: tas.DotOp) -> bool:
    """Whether every scale load of the block-scaled `dot` rides a ring (`_scale_slot_read`)."""
    entries = plan.scale_loads.get(id(dot), [])
    return bool(entries) and all(
        loads and not others and all(id(load) in plan.chosen for load in loads)
        for _, loads, others in entries
    )


#: What the remark adds of an operand computed from its slots under a group in flight.
TWO_BUFFERS = "written into two buffers in turn"

#: On each link of a chain of `wgmma` dots on one accumulator that leave a group in
#: flight with operands computed from their slots (`turn_chain`): its place in the chain
#: and the chain's links, `[j, n]` (`n` even).  Each link commits its own group and
#: waits for all but it (`wgmma.wait_group 1`), and the links share two buffers per such
#: operand, in turn dot by dot: link `j` writes buffer `j mod 2` (`(n i + j) mod 2` in
#: iteration `i`), which the group of the link two before it read, retired by the
#: previous link's wait (docs/codegen.md, "Converted operands").  With two buffers of
#: each link's own, the 256x128 block-scaled kernels' four links took 192 KiB.
TURN_BY_DOT_ATTR = "nv_tileas.turn_by_dot"

#: What the remark adds of an operand written into its chain's shared buffers.
TWO_BUFFERS_BY_DOT = "written into two buffers that the chain's {n} dots share in turn"


def turn_chain(plan: LoopPlan) -> list[tas.DotOp]:
    """The dots of `plan`'s loop, in body order, where they are the links of one chain
    on one accumulator (`chained_dot`), an even number of them, each with the same
    operands computed from its slots, of the same types: those links share two buffers
    in turn dot by dot, link `j` always buffer `j mod 2` (`TURN_BY_DOT_ATTR`); else
    none.  (An odd chain would take its buffers by the iteration's parity, not yet
    done: its links keep two buffers each.)"""
    dots = plan.dots
    if len(dots) % 2 or any(chained_dot(a.result) is not b for a, b in pairwise(dots)):
        return []
    converted = {
        tuple(sorted((i, str((d.a, d.b)[i].type)) for i, _, _ in plan.converted.get(id(d), [])))
        for d in dots
    }
    return dots if len(converted) == 1 and () not in converted else []


def turn_by_dot(dot: tas.DotOp) -> tuple[int, int] | None:
    """`dot`'s place in its chain and the chain's links where the links share their
    buffers in turn (`TURN_BY_DOT_ATTR`), else None."""
    attr = dot.attributes.get(TURN_BY_DOT_ATTR)
    if not isinstance(attr, ArrayAttr):
        return None
    place, links = (a.value.data for a in attr.data if isinstance(a, IntegerAttr))
    return place, links


def tcgen05_turn_chain(plan: LoopPlan) -> list[tas.DotOp]:
    """The links of `plan`'s `tcgen05` chain whose MMAs may stay in flight while the next
    link's operands are written (`TURN_BY_DOT_ATTR` on `tcgen05` dots): a `turn_chain`
    (an even number of links, the same operands computed from their slots) of one agent
    whose accumulator stays in tensor memory (`tcgen05_plan.accumulator_in_tmem`: the
    links then only issue MMAs and commit).  Link `j` writes its operands into buffer
    `j mod 2` once the commit of link `j - 2` (in this or the previous iteration) has
    arrived on mbarrier `j mod 2`, and commits to it (`tcgen05.py`); else none."""
    if not plan.tcgen05 or plan.specialize:
        return []
    chain = turn_chain(plan)
    if not chain or any(d.atom.info.engine != "tcgen05" for d in chain):
        return []
    return chain if accumulator_in_tmem(chain[0]) else []


def tcgen05_turned(plan: LoopPlan, chain: Sequence[tas.DotOp]) -> list[int]:
    """The operands (0: A, 1: B) that `chain`'s links write each iteration (no ring of
    `plan` feeds them), which take two buffers in turn."""
    fed = plan.fed
    return [i for i in (0, 1) if not any((d.a, d.b)[i] in fed for d in chain)]


def tcgen05_turn_bytes(chain: Sequence[tas.DotOp], turned: Sequence[int]) -> int:
    """Shared memory the two buffers in turn of `chain`'s `turned` operands take beside
    the rings (persistent while the loop runs): two buffers an operand, each as large as
    the largest link's (bounded as an exchange's)."""
    return 2 * sum(max(padded_bytes((d.a, d.b)[i]) for d in chain) for i in turned)


#: What the remark adds of a `tcgen05` chain whose links' buffers take turns.
TCGEN05_TURNS = (
    "its MMAs in flight while the next dot's operands are written (two buffers in turn, "
    "each freed by the commit of the MMAs that read it)"
)


#: Why a loop whose dot operands are computed from their slots stays in one agent: the
#: producer would copy raw tiles that the consumer converts and writes again.
CONVERTED_NOT_SPECIALIZED = "an operand is computed from its slots"


def turn_bytes(plan: LoopPlan) -> int:
    """Shared memory the operands of `plan`'s dots computed from ring slots need beyond
    their rings, where its `wgmma` groups stay in flight: each is written each iteration
    into one of two buffers in turn (`dot.py`), so that the group still in flight keeps
    the one it reads.  The raw tiles' rings keep no slot for the group (their slots are
    read back before it: `stages - 1` of them, where `ring_slots` counts `stages + 1`),
    so the two buffers take the room of those two slots first; `_sized` keeps the rest
    beside the rings (less, where the buffers are smaller than those slots).  The links
    of a `turn_chain` share their two buffers, each as large as the largest link's."""
    # (Each buffer as the lowering lays a `wgmma` operand out: `turn_buffer_bytes`.)
    chain = turn_chain(plan)
    if chain:
        converted = sum(
            max(turn_buffer_bytes(dot, index) for dot in chain)
            for index, _, _ in plan.converted[id(chain[0])]
        )
    else:
        converted = sum(
            turn_buffer_bytes(dot, index)
            for dot in plan.dots
            for index, _, _ in plan.converted.get(id(dot), [])
        )
    raw = sum(tile_bytes(plan.chosen[k][0]) for k in plan.slot_read if k in plan.chosen)
    return 2 * converted - 2 * raw


def converted_clauses(plan: LoopPlan, dot: tas.DotOp) -> list[str]:
    """What the remark says of `dot`'s operands computed from their loads' slots (A
    first): which loads' rings hold their raw tiles, and which stay synchronous."""
    clauses: list[str] = []
    chain = turn_chain(plan)
    for index, loads, others in sorted(plan.converted.get(id(dot), []), key=lambda c: c[0]):
        riding = [load for load in loads if id(load) in plan.chosen]
        name = "AB"[index]
        if not riding:
            clauses.append(f"not {name}: {NO_ROOM}")
            continue
        tiles = ", ".join(describe_tile(load) for load in riding)
        rides = "load rides a ring" if len(riding) == 1 else "loads ride rings"
        clauses.append(f"{name}: {CONVERTED_FROM_SLOT} (the raw {tiles} {rides})")
        if plan.in_flight.get(id(dot), "") is None:
            turns = TWO_BUFFERS_BY_DOT.format(n=len(chain)) if chain else TWO_BUFFERS
            clauses.append(f"{name}: {turns}")
        clauses += [f"{name}: {other}" for other in others]
    return clauses


#: The most stages a warp-specialized pipeline gets where its slots fit: its producer
#: runs ahead by all of them, and a consumer warpgroup of one CTA per SM (what those
#: kernels' registers allow anyway) hides the copies' latency only with enough of them.
#: On an H200 (2026-11-27, docs/performance.md) tileir's 128x128x32 bf16 GEMM ran 4
#: stages of 16 KB (`num-stages` 3 and the `wgmma` group in flight) at 4.7x tileiras's
#: time, whose cubin keeps about 11 (188 KB of shared memory); ncu found its SMs idle
#: (64 % of cycles with no eligible warp) at 7 % of the DRAM bandwidth.  8 as CUTLASS's
#: Hopper GEMMs take what fits; not yet timed on a GPU.  `wgmma` agents only: those
#: kernels' registers keep them to one CTA per SM anyway (256 threads at 248, 384 at
#: 168), while a `tcgen05` kernel's agents may share an SM with other CTAs, whose
#: number deeper rings would lower (`tcgen05_agents.too_few_registers`).
SPECIALIZED_STAGES = 8


#: Why an operand that qualified for a ring stays synchronous (`sized_plan`).
NO_ROOM = "its ring does not fit beside the other operands' rings"


def sized_plan(
    candidates: LoopPlan, num_stages: int, budget: RingBudget, shallow: int | None = None
) -> LoopPlan:
    """`candidates` (`loop_candidates`) with the stages its rings get within what
    `budget` leaves them: fewer than the option where they do not fit, no `wgmma` group
    in flight (nor warp specialization) where its slots do not.  Where one slot of every
    ring does not fit, the rings of fewer operands, the first loaded dropped first (a
    synchronous operand's buffer then counts among the exchanges): attention's V alone
    where K and V do not fit; not pipelined where no single ring fits.  Scale rings
    (`_scale_slot_read`) only where they cost the operands' rings neither a ring nor a
    stage, and never alone: NVIDIA's 256x256 block-scaled kernels' first N half keeps 3
    stages that way, where its scales' rings took it to 2, and its second half stays
    synchronous rather than take rings for its scales only."""
    plan = _sized_plan(candidates, num_stages, budget, shallow)
    scales = _scale_rings(candidates)
    if not scales:
        return plan
    bare = _sized_plan(_without_scale_rings(candidates, scales), num_stages, budget, shallow)
    if _operand_depth(plan, scales) < max(_operand_depth(bare, scales), (1, 0)):
        return bare  # (and scale rings alone never: no operand of the dot in flight)
    return plan


def _sized_plan(
    candidates: LoopPlan, num_stages: int, budget: RingBudget, shallow: int | None = None
) -> LoopPlan:
    plan = _sized(candidates, num_stages, budget, shallow)
    if plan.pipelined or candidates.blockers or len(candidates.chosen) < 2:
        return plan
    for dropped in candidates.chosen:
        fewer = _without(candidates, dropped)
        sized = _sized_plan(fewer, num_stages if shallow is None else shallow, budget)
        if sized.pipelined:
            return sized
    return plan


def _scale_rings(plan: LoopPlan) -> set[int]:
    """The ids (as in `chosen`) of the loads that ride rings only for scales."""
    operands = {id(load) for entries in plan.converted.values() for _, loads, _ in entries
                for load in loads}  # fmt: skip
    return {
        id(load)
        for entries in plan.scale_loads.values()
        for _, loads, _ in entries
        for load in loads
        if id(load) in plan.chosen and id(load) not in operands
    }


#: Why a scale load that could ride a ring stays synchronous (`sized_plan`).
SCALE_COSTS_A_STAGE = "its ring would cost the operands' rings a stage"


def _without_scale_rings(plan: LoopPlan, scales: set[int]) -> LoopPlan:
    """`plan` with the scale loads `scales` (`_scale_rings`) left synchronous."""
    chosen = {k: v for k, v in plan.chosen.items() if k not in scales}
    scale_loads = {
        dot: [
            (
                name,
                [load for load in loads if id(load) not in scales],
                others
                + [
                    f"its {describe_tile(load)} load stays synchronous: {SCALE_COSTS_A_STAGE}"
                    for load in loads
                    if id(load) in scales
                ],
            )
            for name, loads, others in entries
        ]
        for dot, entries in plan.scale_loads.items()
    }
    return replace(
        plan,
        chosen=chosen,
        slot_read=plan.slot_read - scales,
        scale_loads=scale_loads,
        blockers=list(plan.blockers),
        per_stage=sum(ring_slot_bytes(load, tile_bytes(load)) for load, _, _ in chosen.values()),
    )


def _operand_depth(plan: LoopPlan, scales: set[int]) -> tuple[int, int]:
    """How well `plan` feeds its dots' operands: the rings of loads other than `scales`,
    then their stages."""
    if not plan.pipelined:
        return (0, 0)
    return (len(plan.chosen.keys() - scales), plan.stages)


def _without(plan: LoopPlan, dropped: int) -> LoopPlan:
    """`plan` with the load `dropped` (an id of `chosen`) left synchronous."""
    load = plan.chosen[dropped][0]
    direct = {k: list(v) for k, v in plan.direct.items()}
    if dropped not in plan.slot_read:
        # (A dropped slot-read ring: `converted_clauses` says so.)
        use = operand_use(load)
        assert use is not None
        direct.setdefault(id(use.operation), []).append(f"{'AB'[use.index]}: {NO_ROOM}")
    chosen = {k: v for k, v in plan.chosen.items() if k != dropped}
    return replace(
        plan,
        chosen=chosen,
        direct=direct,
        blockers=list(plan.blockers),
        per_stage=sum(ring_slot_bytes(load, tile_bytes(load)) for load, _, _ in chosen.values()),
        in_flight=dict.fromkeys(plan.in_flight, "an operand is not fed by a ring"),
        specialize=False,
        why_not_specialized=None,
    )


def _sized(
    candidates: LoopPlan, num_stages: int, budget: RingBudget, shallow: int | None = None
) -> LoopPlan:
    """`candidates` with the stages its rings get (`sized_plan`), every operand that
    qualified on a ring or the loop not pipelined.  `num_stages`: the most stages;
    `shallow`: the most where the loop stays in one agent after all (`num_stages` when
    None; a warp-specialized loop is planned deeper, `plan_function`)."""
    shallow = num_stages if shallow is None else shallow
    plan = replace(candidates, blockers=list(candidates.blockers))
    if not plan.pipelined:
        return plan
    ring_budget = budget.for_loop(plan.fed, plan.scoped)
    # Without groups in flight a ring takes `stages - 1` slots (`ring_slots`); feeding
    # `tcgen05` MMAs that may stay in flight, `stages` (`LoopPlan.tcgen05_slots`).
    spare = 0 if plan.tcgen05_slots else 1
    fit = ring_budget // plan.per_stage
    plan.stages = min(num_stages, fit + spare)
    if plan.all_in_flight:
        # The deeper form: `stages + IN_FLIGHT` slots, the group in flight keeping its
        # own, where the option's stages fit so (and for a warp-specialized consumer,
        # which releases a stage after its `wgmma.wait_group` anyway: its pipeline takes
        # all `stages + IN_FLIGHT` slots).  Where they do not, one agent refills each
        # slot only once every warp has retired the group that read it
        # (`REFILL_AFTER_WAIT_ATTR`): the same slots then hold one stage more.
        flight_stages = min(
            num_stages, (ring_budget - turn_bytes(plan)) // plan.per_stage - IN_FLIGHT
        )
        deeper = plan.specialize or bool(plan.converted) or fit > num_stages
        if flight_stages >= 2 and deeper:
            plan.stages = flight_stages
        elif min(shallow, fit) >= 2 and not plan.converted:
            plan.stages = min(shallow, fit)
            plan.refill_after_wait = True
            plan.specialize = False
            plan.why_not_specialized = None
        else:
            plan.in_flight = dict.fromkeys(
                plan.in_flight, "its ring has no room for the slots they read"
            )
            plan.specialize = False
            plan.why_not_specialized = None
    if plan.slots < (2 if plan.tcgen05_slots else 1):
        # Two stages: one slot a ring, two feeding `tcgen05` MMAs in flight (the slot
        # they read and the one being filled).
        least = "two slots" if plan.tcgen05_slots else "one slot"
        plan.blockers.append(
            f"{least} of its operands' rings ({(2 - spare) * plan.per_stage} bytes) does "
            f"not fit the shared memory left for rings ({max(ring_budget, 0)} bytes)"
        )
    chain = tcgen05_turn_chain(plan) if not plan.blockers else []
    if chain:
        # Only where the buffers in turn leave the rings their stages.
        # The links then take no transient buffers for those operands.
        turned = tcgen05_turned(plan, chain)
        written = {(d.a, d.b)[i] for d in chain for i in turned}
        turns = tcgen05_turn_bytes(chain, turned)
        room = budget.for_loop(plan.fed | written, plan.scoped) - turns
        with_turns = min(num_stages, room // plan.per_stage + spare)
        plan.tcgen05_turns = with_turns >= plan.stages
        if not plan.tcgen05_turns:
            plan.why_not_tcgen05_turns = (
                f"its MMAs waited for after each dot (not yet in flight: two buffers in turn, "
                f"{turns} bytes, would leave its rings {max(with_turns, 0)} stages, not "
                f"{plan.stages})"
            )
    return plan


def plan_function(
    loops: Sequence[scf.ForOp],
    num_stages: int,
    budget: RingBudget,
    warp_specialize: bool,
    specialized_stages: int = 0,
) -> list[LoopPlan]:
    """Plan `loops` (the innermost loops of one kernel, in order) together.  Each loop's
    rings fit beside the kernel's largest exchange, which depends on which dot operands
    the other loops' rings feed: planned first assuming every operand that qualifies is
    fed, then again assuming only those both rounds fed, until a round feeds at least
    what it assumed (then its exchanges are no larger than assumed; the assumption
    only shrinks, so this ends).  The loops of the function's body are warp-specialized
    all or none, through one pipeline (`joint_specialization`), whose depth may reach
    `specialized_stages` (where more than `num_stages`; `wgmma` agents,
    `SPECIALIZED_STAGES`)."""
    candidates = [loop_candidates(loop, num_stages, warp_specialize) for loop in loops]
    deep = max(num_stages, specialized_stages)
    joint_specialization(candidates)
    assumed = {v for plan in candidates for v in plan.fed}
    while True:
        trial = budget.assuming(assumed)
        plans = []
        # Bytes of the one pipeline the specialized loops share so far: each is sized as
        # if alone with it, and only what it adds is placed.
        pipeline = 0
        for plan in candidates:
            if plan.specialize:
                trial.placed -= pipeline
            if plan.specialize and not plan.tcgen05:
                sized = sized_plan(plan, deep, trial, shallow=num_stages)
            else:
                sized = sized_plan(plan, num_stages, trial)
            size = sized.slots * sized.per_stage if sized.pipelined else 0
            if sized.pipelined and sized.all_in_flight:
                size += turn_bytes(sized)
            if plan.specialize:
                trial.placed += pipeline
            if sized.specialize:
                trial.place(max(0, size - pipeline))
                pipeline = max(pipeline, size)
            else:
                trial.place(size, sized.scoped)
            plans.append(sized)
        fed = {v for plan in plans for v in plan.fed}
        if fed >= assumed:
            specialized = [plan for plan in plans if plan.specialize]
            if len(specialized) == len([p for p in candidates if p.specialize]):
                stages = min((plan.stages for plan in specialized), default=0)
                for plan in specialized:
                    plan.stages = stages
                return plans
            # A loop's slots for its groups in flight did not fit: the others stay in one
            # agent too.
            for plan, sized in zip(candidates, plans, strict=True):
                if plan.specialize and not sized.specialize:
                    plan.specialize = False
            joint_specialization(candidates)
            continue
        assumed &= fed


#: Why a loop of the function's body is not warp-specialized when another is not.
ANOTHER_LOOP_IN_ONE_AGENT = "another K loop of the kernel stays in one agent"


def _payloads(plan: LoopPlan) -> list[Attribute]:
    """What each stage of `plan`'s pipeline would hold: its loads' tiles, in body order."""
    block = plan.loop.body.block
    loads = sorted((load for load, _, _ in plan.chosen.values()), key=block.get_operation_index)
    return [load.result.type for load in loads]


def joint_specialization(plans: Sequence[LoopPlan]) -> None:
    """The K loops of a function's body (`why_not_specialized` lets no other loop be
    there) are warp-specialized together or not at all: the producer runs each loop's
    copies in turn through one pipeline, and the consumer the loops and what lies
    between and after them (`specialize_agents.specialize_loops`).  So every one must
    qualify, and their stages hold the same tiles; otherwise none is, and the remark
    says why."""
    top = [plan for plan in plans if isinstance(plan.loop.parent_op(), func.FuncOp)]
    if len(top) < 2 or not any(plan.specialize for plan in top):
        return
    why: str | None = None
    if not all(plan.specialize for plan in top):
        why = ANOTHER_LOOP_IN_ONE_AGENT
    elif any(_payloads(plan) != _payloads(top[0]) for plan in top):
        why = "the kernel's K loops copy different tiles (one pipeline's stages serve them all)"
    if why is None:
        return
    for plan in top:
        if plan.specialize:
            plan.specialize = False
            plan.why_not_specialized = why


def ring_mbarriers(arch: str) -> bool:
    """Whether the one-agent rings of `arch` wait on mbarriers (`RING_MBARRIERS_ATTR`):
    from sm_90, whose `mbarrier.try_wait` suspends the thread in hardware.  sm_80 has
    the mbarrier and `cp.async.mbarrier.arrive` but only `mbarrier.test_wait` to poll
    with; not yet measured against `cp.async.wait_group` there, so it keeps that."""
    return compute_capability(arch) >= 90


def apply_plan(plan: LoopPlan, agents: str, mbarriers: bool = False) -> scf.ForOp:
    """Carry out `plan` (`sized_plan`): rewrite the loop's loads into a pipeline and
    record on each tensor-core dot what feeds it, or why not a ring; `mbarriers`: the
    target's rings wait on mbarriers (`ring_mbarriers`)."""
    loop, dots, chosen, direct = plan.loop, plan.dots, plan.chosen, plan.direct
    if not dots:
        return loop
    if plan.blockers or not chosen:
        for dot in dots:
            _record(dot, [NOT_PIPELINED, *(plan.blockers or direct[id(dot)])], agents)
        return loop
    stages = plan.stages
    for key, (load, _, _) in chosen.items():
        rounding = rounded(load)
        if rounding is not None and key not in plan.slot_read:
            rounding.attributes[ROUNDED_IN_SHARED_ATTR] = UnitAttr()
    for dot in dots:
        converted = converted_clauses(plan, dot)
        unfed = [c for c in converted if c.startswith("not ")]
        if len(direct.get(id(dot), [])) + len(unfed) == 2:
            # Both operands direct: the loop's rings feed its other dots, not this one.
            _record(dot, [NOT_PIPELINED, *direct.get(id(dot), []), *unfed], agents)
            continue
        clauses = [f"operands through a {stages}-stage ring of cp.async copies"]
        clauses += converted
        clauses += scale_clauses(plan, dot)
        clauses += _rounding_clauses(dot, chosen)
        clauses += [
            operand if operand.endswith(NO_RING_NEEDED) else f"not {operand}"
            for operand in direct.get(id(dot), [])
        ]
        # (An operand rounded to tf32 in its slot too: each thread rounds its words once
        # the slot's full mbarrier has completed, and the dot keeps its CTA barrier,
        # `ring_rounding.py`.)
        if mbarriers and not plan.specialize and dot.atom.info.engine != "tcgen05":
            dot.attributes[RING_MBARRIERS_ATTR] = UnitAttr()
            clauses[0] += f" {UNDER_MBARRIERS}"
        why = plan.in_flight[id(dot)]
        if why is None:
            dot.attributes[GROUPS_IN_FLIGHT_ATTR] = IntegerAttr(IN_FLIGHT, i32)
            clauses[0] += f", {IN_FLIGHT} wgmma group in flight"
            if plan.refill_after_wait:
                dot.attributes[REFILL_AFTER_WAIT_ATTR] = UnitAttr()
                clauses[0] += f" ({stages} slots, {REFILLED_AFTER_WAIT})"
            chain = turn_chain(plan)
            if dot in chain:
                place = [IntegerAttr(chain.index(dot), i64), IntegerAttr(len(chain), i64)]
                dot.attributes[TURN_BY_DOT_ATTR] = ArrayAttr(place)
                clauses[0] += ", each dot a group of its own"
        elif dot.atom.info.engine == "wgmma":
            clauses.append(f"wgmma waited for each iteration ({why})")
        elif plan.tcgen05_turns and dot in (chain := tcgen05_turn_chain(plan)):
            place = [IntegerAttr(chain.index(dot), i64), IntegerAttr(len(chain), i64)]
            dot.attributes[TURN_BY_DOT_ATTR] = ArrayAttr(place)
            clauses.append(TCGEN05_TURNS)
        elif plan.why_not_tcgen05_turns is not None:
            clauses.append(plan.why_not_tcgen05_turns)
        _record(dot, clauses, agents)
    if plan.specialize and plan.tcgen05:
        for load, atom, _ in chosen.values():
            _to_async(load, atom)
        three = mark_tcgen05_agents(loop, stages)
        for dot in dots:
            clauses = [f"operands through a {stages}-stage mbarrier pipeline of cp.async copies"]
            clauses += copied_scales_clauses(dot, stages)
            _record(dot, clauses, three)
        return loop
    if plan.specialize:
        return _specialize(loop, dots, chosen, stages + IN_FLIGHT)
    if (plan.all_in_flight or plan.tcgen05) and plan.why_not_specialized is not None:
        for dot in dots:
            clauses = feed_clauses(dot) or []
            set_feed_clauses(dot, [*clauses, f"not warp-specialized: {plan.why_not_specialized}"])
    rewriter = Rewriter()
    for key in plan.slot_read & chosen.keys():
        load = chosen[key][0]
        load.attributes[READ_FROM_SLOT_ATTR] = UnitAttr()
        if mbarriers and not plan.specialize:
            load.attributes[RING_MBARRIERS_ATTR] = UnitAttr()
    loads = [(_to_async(load, atom), sources) for load, atom, sources in chosen.values()]
    old_count = len(loop.results)
    for load, sources in loads:
        loop = expand_pending_load(rewriter, loop, load, sources, stages)
    _stage_major(loop)
    drain = tas.AsyncWaitOp(list(loop.results[old_count:]))
    drain.location = loop.location
    Rewriter.insert_op(drain, InsertPoint.after(loop))
    return loop


def _rounding_clauses(
    dot: tas.DotOp, chosen: dict[int, tuple[tas.TiledLoadOp, AtomAttr, list[Operation]]]
) -> list[str]:
    """What the remark says of `dot`'s operands that rings feed as f32 and that are
    rounded to tf32 where they land (`tf32_operands.py`), A first."""
    clauses: list[tuple[int, str]] = []
    for load, _, _ in chosen.values():
        use = operand_use(load)
        if use is None or use.operation is not dot or rounded(load) is None:
            continue
        clause = f"{'AB'[use.index]}: {ROUNDED_IN_SHARED}"
        if element_copies(load, dot, use.index):
            clause += f", {ELEMENT_COPIES}"
        clauses.append((use.index, clause))
    return [c for _, c in sorted(clauses)]


def _specialize(
    loop: scf.ForOp,
    dots: Sequence[tas.DotOp],
    chosen: dict[int, tuple[tas.TiledLoadOp, AtomAttr, list[Operation]]],
    stages: int,
) -> scf.ForOp:
    """Leave `loop`'s operand loads asynchronous in the iteration that reads them and
    mark the loop for `tileas-specialize-agents` with the stages of its pipeline (the
    slots the rings of an unspecialized loop would take); the remarks say so."""
    rounding = {id(dot): _rounding_clauses(dot, chosen) for dot in dots}
    stage_bytes = sum(tile_bytes(load) for load, _, _ in chosen.values())
    for load, atom, _ in chosen.values():
        _to_async(load, atom)
    loop.attributes[SPECIALIZE_ATTR] = IntegerAttr(stages, i32)
    w = kernel_warps(loop)
    producer = producer_registers(w, stage_bytes)
    fn = enclosing_function(loop)
    consumer = consumer_registers(w, stage_bytes, recorded_occupancy(fn) if fn else 1)
    if w == PRODUCER_WARPS:
        agents = (
            f"two agents of {w} warps: a producer ({producer} registers) and a "
            f"consumer ({consumer} registers)"
        )
    else:
        agents = (
            f"two agents: a producer of {PRODUCER_WARPS} warps ({producer} registers) and "
            f"a consumer of {w} warps ({consumer} registers)"
        )
    for dot in dots:
        _record(
            dot,
            [
                f"operands through a {stages}-stage mbarrier pipeline of cp.async copies, "
                f"{IN_FLIGHT} wgmma group in flight",
                *rounding[id(dot)],
            ],
            agents,
        )
    return loop


def _stage_major(loop: scf.ForOp) -> None:
    """Issue the prologue's loads stage by stage (A0, B0, A1, B1, ...), as the body
    issues them: a wait then only has to count the groups of the later stages.  (Each
    expansion put its own stages together; moving a load later keeps its operands,
    all defined before it, in front of it.)"""
    prologue = [
        op
        for op in loop.parent_block().ops  # pyright: ignore[reportOptionalMemberAccess]
        if isinstance(op, tas.AsyncTiledLoadOp) and any(u.operation is loop for u in op.result.uses)
    ]

    def stage(op: tas.AsyncTiledLoadOp) -> int:
        attr = op.attributes.get(STAGE_ATTR)
        return attr.value.data if isinstance(attr, IntegerAttr) else 0

    for op in sorted(prologue, key=stage):
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(loop))


#: The accumulator registers a thread holds at most for a GEMM's `wgmma` K loop to be
#: compiled for `SMALL_ACCUMULATOR_OCCUPANCY` CTAs an SM (a kernel without an occupancy
#: hint of its own).
SMALL_ACCUMULATOR_REGISTERS = 32
#: The CTAs an SM such a kernel is compiled for.  At one (a warp-specialized kernel's
#: agents then take the register file: 256 threads at 248) a 64x32 or 64x64 tile leaves
#: the SM's tensor cores idle between the few `wgmma`s of each stage; at two or three
#: the CTAs' stages interleave.  On an H200 (2026-11-27, docs/performance.md), at 4096^3
#: (tf32: 2048^3), occupancy 1 / 2 / 3 / 4: `gemm_f16` (64x32x32, two agents) 2,049 /
#: 1,558 / 1,548 / 1,538 us, `gemm_f16_aligned_edges` 1,714 / 1,563 / 1,513 / 1,504,
#: `gemm_bf16_deep_k` (64x64x32, two agents) 1,302 / 1,264 / 1,262 / -, `gemm_tf32`
#: (64x64x32, one agent) 546 / 476 / 456 / -, `batched_matmul_2d_f16` (16 x 2048^3,
#: 64x64x64, two agents) 2,371 / 2,319 / 2,331 / -.
SMALL_ACCUMULATOR_OCCUPANCY = 3


def small_accumulator_occupancy(
    fn: func.FuncOp, plans: Sequence[LoopPlan], arch: str
) -> int | None:
    """The CTAs an SM a GEMM is compiled for when each of its K loops is one dot on
    `wgmma` with groups in flight whose accumulator is small
    (`SMALL_ACCUMULATOR_REGISTERS`) and the kernel has no occupancy of its own (a hint,
    or one `tileas-assign-layouts` recorded), else None.  The kernel's `.maxnreg` is
    then the register file's share of that many CTAs, its rings fit that share of
    shared memory, and warp-specialized agents' `setmaxnreg` budgets fit the
    `.maxnreg` (`agents.fit_to_register_pool`: `gemm_f16` launches at 80 registers, its
    producer 40, its consumer 120).  Only kernels of one warpgroup (what was measured);
    attention's loops (two dots, and the softmax's registers beside their accumulators)
    and kernels of two warpgroups (384 threads at 3 CTAs an SM would launch at 56
    registers) keep theirs: not measured so."""
    loops = [plan for plan in plans if plan.pipelined and plan.dots]
    if not loops or kernel_occupancy(fn, arch) is not None:
        return None
    for plan in loops:
        if plan.tcgen05 or not plan.all_in_flight or len(plan.dots) != 1:
            return None
        if kernel_warps(plan.loop) != PRODUCER_WARPS:
            return None  # a consumer of two warpgroups: not measured so
        if accumulator_registers(plan.dots[0]) > SMALL_ACCUMULATOR_REGISTERS:
            return None
    return SMALL_ACCUMULATOR_OCCUPANCY


@dataclass(frozen=True)
class PipelineDotOperandsPass(ModulePass):
    """The loads that feed tensor-core dots in a loop become an `num-stages`-deep ring
    of asynchronous copies (`cp.async`), issued `num-stages - 1` iterations ahead."""

    name = "tileas-pipeline-dot-operands"

    #: The target, whose static shared memory bounds the rings.
    arch: str = "sm_90a"
    num_stages: int = 3
    #: The most stages of a warp-specialized pipeline (`SPECIALIZED_STAGES`); never
    #: fewer than `num-stages`.
    specialized_stages: int = SPECIALIZED_STAGES
    #: Whether a loop that qualifies is left for `tileas-specialize-agents` (on the
    #: targets that warp-specialize, `GpuArch.warp_specialization`).
    warp_specialize: bool = True

    def _plans(
        self, fn: func.FuncOp, loops: Sequence[scf.ForOp], specialize: bool
    ) -> list[LoopPlan]:
        """The plans of `fn`'s K loops, their rings in the shared memory its occupancy
        leaves a CTA (`RingBudget`)."""
        return plan_function(
            loops, self.num_stages, RingBudget(fn, self.arch), specialize, self.specialized_stages
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.num_stages < 1:
            raise CompileError(
                f"{self.name}: option num-stages must be at least 1, got {self.num_stages}"
            )
        if self.specialized_stages < 0:
            raise CompileError(
                f"{self.name}: option specialized-stages must not be negative, got "
                f"{self.specialized_stages}"
            )
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            loops = [
                o
                for o in fn.walk(region_first=True)
                if isinstance(o, scf.ForOp)
                and not any(isinstance(x, scf.ForOp) for x in o.body.walk())
                and shared_operand_dots(o)
            ]
            for loop in loops:
                for dot in shared_operand_dots(loop):
                    for value in (dot.a, dot.b):
                        value = drop_zero_fill(value)
                        if isinstance(value.owner, tas.ViewOp):
                            load_in_dot_shape(value.owner, loop)
            for loop in loops:
                mark_register_a(loop, self.arch)
                mark_staged_once(loop)
            target = ARCHS[self.arch]
            specialize = self.warp_specialize and (target.warp_specialization or target.tcgen05)
            plans = self._plans(fn, loops, specialize)
            occupancy = small_accumulator_occupancy(fn, plans, self.arch)
            if occupancy is not None:
                # The rings are sized again for the CTAs an SM now shares.
                fn.attributes[OCCUPANCY_ATTR] = IntegerAttr(occupancy, i32)
                plans = self._plans(fn, loops, specialize)
            for plan in plans:
                if plan.specialize and plan.tcgen05 and plan.pipelined:
                    rings = plan.slots * plan.per_stage
                    plan.why_not_specialized = too_few_registers(plan, self.arch, rings)
                    plan.specialize = plan.why_not_specialized is None
                elif (
                    plan.tcgen05
                    and plan.pipelined
                    and SCALES_STAGED in (plan.why_not_specialized or "")
                ):
                    # The register gate too, as if an agent staged the scales.
                    rings = plan.slots * plan.per_stage
                    also = too_few_registers(plan, self.arch, rings, record=False)
                    if also is not None:
                        plan.why_not_specialized = (
                            f"{plan.why_not_specialized}; nor would the agents' registers "
                            f"fit if one did: {also}"
                        )
            agents = agents_of(fn)
            for plan in plans:
                apply_plan(plan, agents, ring_mbarriers(self.arch))
