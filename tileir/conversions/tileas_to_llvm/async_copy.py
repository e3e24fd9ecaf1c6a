"""Asynchronous tiled loads into the rings of a pipelined K loop:
`nv_tileas.async.tiled_load`, `nv_tileas.async.future_wait` and `nv_tileas.async.wait`
as `tileas-pipeline-dot-operands` writes them (docs/codegen.md, "The K loop as a
pipeline").

A future of a tile is the 32-bit shared-memory address of the buffer the tile lands in:
one register, carried through the loop like any other.  The buffers of one operand of
one dot form a ring of `N - 1` slots (N the pipeline's stages; `N + 1` when the dot
leaves a `wgmma` group in flight, `ring_slots`), laid out exactly as the dot reads that
operand (`operand_placement.py`: `ldmatrix` rows or `wgmma` core matrices), persistent
across the kernel's other shared-memory uses (`shared_arena.allocate_persistent`).

* **Copies.**  The replica of stage `k < N - 1`, issued before the loop, fills slot `k`.
  The replica issued in the body (stage `N - 1`) fills the slot the dot has just read:
  the one whose address the body's `future_wait` of the same operand returned (the
  dot ends with a CTA barrier, so every warp is done with it); with a group in flight,
  the slot of the iteration two back (`_slot_ahead`: this iteration's barrier came
  after every warp's `wgmma.wait_group 1` of the last one); in a ring of only the `N`
  slots the loop reads (`nv_tileas.refill_after_wait`), the slot of the iteration
  before, which the dot's `wgmma.wait_group 1` and the CTA barrier after it have just
  freed in every warp (the refill must follow the dot in the body: checked).  Each group of
  contiguous elements a thread loads becomes one `cp.async` of 4, 8 or 16 bytes
  (`.cg` for 16) straight into its place in the buffer; a masked group is copied when
  every element is in bounds, and otherwise element by element through registers with
  zeros for the masked-off ones (synchronous `ld.global` + `st.shared`: `cp.async`
  cannot copy fewer than 4 bytes), which a thread with nothing to do there branches
  over; where the mask is the `and` of `iota < bound` compares (the whole-tile
  tests of sm_90a and sm_100a, `tile_bounds.py`) reading the tile's coordinates and a 16-byte group runs up
  one dimension of them, its elements in bounds are a prefix of it, and one `cp.async`
  with a `src-size` reads them and zero-fills the rest: the count is `min(bound -
  start, vec)`, computed once for the groups of a column on the edge path
  (`_counted_copy`; `_prefix_copy`, a `selp` an element, where the elements' masks are
  not of the counts' form; a view that regroups dimensions, the element path).  Of a replicated tile
  only the owner of each element writes it.  Where the pointer tile is affine
  (`affine_addresses.py`, the same plan as a synchronous load's), each group's global
  address is the thread's first plus a constant or a `mul.wide` of a stride: one
  address chain a copy, not one a group (`gemm_f16` on sm_80: 79 -> 70 registers).  Each load ends its copies with
  `cp.async.commit_group`.
* **Waits.**  A `future_wait` in the loop body is `cp.async.wait_group (N - 2) · L` (L:
  the asynchronous loads of the body, one group each, issued after the waits): only
  the groups of the later stages stay in flight.  The CTA barrier the dot places before
  its tensor-core instructions makes every thread's copies visible (to `wgmma` too,
  through the async proxy: `cp.async`'s bytes need no proxy fence, and a thread's
  element stores on the edge path end with its own `fence.proxy.async`).  `async.wait` after the loop is `cp.async.wait_all` and a CTA
  barrier (after `wgmma.wait_group 0` where a group is in flight): no copy, and no
  `wgmma`, outlives the pipeline.
* **Under mbarriers** (a dot marked `nv_tileas.ring_mbarriers`: sm_90a and later, not
  `tcgen05`).  Each slot has a *full* mbarrier, kernel-lived (no other loop's ring may
  write over a valid one), initialized by thread 0 for every thread of the CTA before a
  CTA barrier where the prologue's first load is.  After its copies into a slot each
  thread arrives on the slot's mbarrier with `cp.async.mbarrier.arrive` (without
  `.noinc`: no net arrival, the phase waits until the thread's copies land) and
  `mbarrier.arrive` (its arrival, which releases its element path's `st.shared`): one
  arrival a thread, copies or not; no commit groups.  Fill `f` of the loop goes to
  slot `f mod slots` and completes that mbarrier's phase `f / slots`; a future carries
  the slot's address with that phase's parity in bit 0 (slots are 16-byte aligned),
  which flips exactly where the slot index wraps (`_mbarrier_slot`).  A `future_wait`
  strips the bit and spins on `mbarrier.try_wait.parity` of the slot's mbarrier with it
  (acquiring every thread's copies); `async.wait` waits so for every future still in
  flight, passes a CTA barrier and has thread 0 invalidate the mbarriers, so that a
  loop run again (a persistent kernel's) initializes them afresh.  What still orders
  the other direction, a slot refilled while another warp reads it, is the CTA barrier
  as before: the one after a synchronous dot, or with `wgmma` groups in flight the one
  before the next iteration's `wgmma` (after every warp's `wgmma.wait_group 1`).  So
  the dot drops only the barrier before its tensor cores, and only where both operands
  come from such rings, neither rounded to tf32 in its slot (that rounding's stores,
  each thread's own words after its wait, must reach the other warps' reads) and
  nothing else is written for it, with no group in flight (`ordered_by_mbarriers`).
  `wgmma` fences the async proxy only for what the dot itself writes to shared memory
  (`dot.py`) and a tf32 rounding for its stores (`ring_rounding.py`).
* **Read back from the slot** (`nv_tileas.read_from_slot` on the loads and the wait:
  a dot operand computed from loads, such as block-scaled fp8 tiles dequantized with
  their scales, or an fp8 B the dot stores transposed).  The ring holds the loaded
  tile as it lies in memory, dense, the thread's vectors contiguous
  (`operand_placement.SlotPlacement`), copied in the load's own layout (masked-off
  elements hold the load's padding: zero-filled, or `st.shared` of its bits where it is
  not zero, as a scale's 0xff).  After the wait each thread loads its elements of the
  slot into registers (`ld.shared` of whole words, bytes taken apart), in the same
  layout (each `ld.shared` where the ops that compute the operand first need its
  words, `llvm-sink-tmem-loads`: a slice at a time), and those ops run on them as on a
  synchronous load's;
  the dot writes its operand as it does for one.  The wait under mbarriers acquired
  every thread's copies; under `cp.async.wait_group` a thread reads only what it copied
  itself, except in a replicated tile, which a CTA barrier precedes.  The slot is
  refilled (by the body's load at the end of the iteration, into the slot just read)
  only after every thread has read it: a dot's CTA barrier lies between, or the refill
  gets one of its own (`AsyncFeeds.refill_barriers`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import llvm, scf
from xdsl.dialects.builtin import (
    IntegerAttr,
    ModuleOp,
    TensorType,
    UnrealizedConversionCastOp,
    i1,
    i32,
)
from xdsl.ir import BlockArgument, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from tileir.backend.ptx import asm_builder as ptx
from tileir.backend.ptx.memory_asm import all_in_bounds, unpack_word
from tileir.conversions.tileas_to_llvm.affine_addresses import group_addresses
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import (
    FunctionState,
    LoweringContext,
    disjoint_bits,
    element_bits,
    linear_layout,
)
from tileir.conversions.tileas_to_llvm.exchange import Exchange, element_kind
from tileir.conversions.tileas_to_llvm.kernel import register_cap
from tileir.conversions.tileas_to_llvm.mbarriers import (
    MBARRIER_BYTES,
    arrive_after_copies,
    cta_thread_zero,
    init_mbarrier,
    invalidate_mbarrier,
    wait_parity,
)
from tileir.conversions.tileas_to_llvm.operand_placement import OperandPlacement, SlotPlacement
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.conversions.tileas_to_llvm.shared_arena import allocate_persistent
from tileir.conversions.tileas_to_llvm.tile_bounds import whole_tile_test
from tileir.conversions.tileas_to_llvm.tiled_memory import (
    padding_bits,
    pointer_view,
    vector_groups,
)
from tileir.diagnostics import not_supported
from tileir.dialects import nvvm
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import WARP_SIZE, LinearLayout, uniform_groups
from tileir.dialects.nv_tileas.ops.tmem import TMEM_IN_FLIGHT_ATTR
from tileir.targets import ARCHS, MAX_REGISTERS_PER_THREAD
from tileir.transforms.llvm.sink_tmem_loads import mark_slot_read
from tileir.transforms.tileas.materialize_schedule import STAGE_ATTR
from tileir.transforms.tileas.overlap_attention_dots import RING_KEY_ATTR
from tileir.transforms.tileas.pipeline_dot_operands import (
    READ_FROM_SLOT_ATTR,
    RING_MBARRIERS_ATTR,
    groups_in_flight,
    refills_after_wait,
    ring_slots,
)
from tileir.transforms.tileas.ring_futures import consumer_of as _consumer
from tileir.transforms.tileas.ring_futures import dot_of as _dot_of
from tileir.transforms.tileas.ring_futures import rounded as _rounded
from tileir.transforms.tileas.ring_futures import wait_of as _wait_of

#: Engines whose tensor cores read shared memory through the async proxy.
ASYNC_PROXY_ENGINES = ("wgmma", "tcgen05")


@dataclass
class Ring:
    """The slots of one operand of one dot, and what the lowering knows of them."""

    dot: tas.DotOp
    #: 0: A, 1: B.
    index: int
    #: The stage of the loads in the loop body: the pipeline's stages less one.
    last_stage: int = 0
    #: `wgmma` groups of the dot left in flight (`tileas-pipeline-dot-operands`).
    in_flight: int = 0
    #: The ring has only the slots its loop reads: the body refills the slot of the
    #: group the dot's `wgmma.wait_group` and CTA barrier have just retired
    #: (`nv_tileas.refill_after_wait`; module doc).
    refill_after_wait: bool = False
    #: The dot's `tcgen05` MMAs stay in flight across iterations
    #: (`nv_tileas.tmem_in_flight`): one slot more, and each refill waits for the MMAs
    #: that read the slot (`refill_guard`, which the dot's lowering sets).
    mma_in_flight: bool = False
    refill_guard: Callable[[LLBuilder, SSAValue], None] | None = None
    placement: OperandPlacement | SlotPlacement | None = None
    #: The address of slot 0 (computed in the kernel's prologue).
    base: SSAValue | None = None
    #: The slot the body's `future_wait` returned in the iteration being lowered.
    current: SSAValue | None = None
    #: The stages of the mbarrier pipeline whose payload the ring is (0: none; then
    #: `producer_write` sets the slot its copies fill in `write_slot`, `agents.py`).
    stages: int = 0
    write_slot: SSAValue | None = None
    #: The *full* mbarrier of that stage (a TMA load's `expect_tx` and boxes, `tma.py`).
    write_barrier: SSAValue | None = None
    #: The loop whose lifetime bounds the ring's (`allocate_persistent`'s scope, set by
    #: `AsyncFeeds.plan` while the loops are there: `ring_scope`).
    scope: int | None = None
    #: Each slot has a *full* mbarrier (`nv_tileas.ring_mbarriers` on the dot): the
    #: address of slot 0's (the others follow), and, in the iteration being lowered,
    #: the future the body's `future_wait` waited for (the slot's address plus the
    #: parity of its round) and the mbarrier it waited on (module doc).
    mbarriers: bool = False
    barriers: SSAValue | None = None
    current_future: SSAValue | None = None
    current_barrier: SSAValue | None = None
    #: The tile is rounded to tf32 in its slot before the dot (`ring_rounding.py`).
    rounded: bool = False
    #: The ring holds a loaded tile as it is in memory (`SlotPlacement`), which its
    #: wait reads back into registers for the ops that compute an operand of `dot`
    #: from it (`nv_tileas.read_from_slot`; module doc).  `dot` is then the first dot
    #: after the wait, whose loop bounds the ring's life.
    read_from_slot: bool = False

    @property
    def slots(self) -> int:
        if self.stages:
            return self.stages
        if self.mma_in_flight:
            return self.last_stage + 1
        return ring_slots(self.last_stage + 1, self.in_flight, self.refill_after_wait)

    def slot_number(self, b: LLBuilder, slot: SSAValue, size: int) -> SSAValue:
        """Which of the ring's slots (0 ..) the address `slot` is, slots `size` bytes:
        a slot's address (never a future's, whose bit 0 holds a parity), so `slot -
        base` is a multiple of `size` and divides exactly (`udiv_exact`: a shift and a
        multiply where `size` is no power of two, a 2 x 32 x 40 f16 slot's 5,120)."""
        assert self.base is not None
        return b.udiv_exact(b.sub(slot, self.base), size)

    def full(self, b: LLBuilder, slot: SSAValue, size: int) -> SSAValue:
        """The *full* mbarrier of the slot at address `slot`."""
        assert self.barriers is not None
        number = self.slot_number(b, slot, size)
        return b.add(self.barriers, b.mul(number, b.const(MBARRIER_BYTES, i32)))


@dataclass
class AsyncFeeds:
    """Which ring each asynchronous load and future wait of a run belongs to (planned
    before anything is rewritten, while the loops and dots are still there)."""

    #: Where a dot reads its operands; `LowerDot` sets it (`dot.LowerDot.placement`).
    placement: Callable[[tas.DotOp], OperandPlacement] | None = None
    rings: dict[int, Ring] = field(default_factory=dict)
    by_dot: dict[tuple[object, int], Ring] = field(default_factory=dict)
    #: `cp.async.wait_group` count of each `future_wait`.
    pending: dict[int, int] = field(default_factory=dict)
    #: The `async.wait`s after loops whose dots leave `wgmma` groups in flight.
    drains_wgmma: set[int] = field(default_factory=set)
    #: The ring of each future an `async.wait` waits for (None: not a ring's).
    drained: dict[int, list[Ring | None]] = field(default_factory=dict)
    #: The rings read back from their slots, by the id of their future's wait.
    slot_rings: dict[int, Ring] = field(default_factory=dict)
    #: The refills of such rings that a CTA barrier must precede: no dot (whose
    #: barrier would) lies between the wait that read the slot and the refill.
    refill_barriers: set[int] = field(default_factory=set)
    #: The loop (`ring_scope`) of each dot in one, by the dot's id: the lowering moves
    #: a loop's body out of it before the body's ops are lowered.
    loop_of: dict[int, int] = field(default_factory=dict)
    #: What an `async.wait` does last, by its id (a one-agent ring's TMA maps give
    #: their pool slots back: `tma.py`).
    on_drain: dict[int, Callable[[LLBuilder, FunctionState, PatternRewriter], None]] = field(
        default_factory=dict
    )

    def plan(self, module: ModuleOp) -> None:
        for op in module.walk():
            if isinstance(op, tas.DotOp) and (scope := ring_scope(op)) is not None:
                self.loop_of[id(op)] = scope
            if (
                isinstance(op, tas.AsyncTiledLoadOp | tas.FutureWaitOp)
                and READ_FROM_SLOT_ATTR in op.attributes
            ):
                self._plan_slot_read(op)
                continue
            if isinstance(op, tas.AsyncTiledLoadOp):
                consumer = _consumer(op.result, set())
            elif isinstance(op, tas.FutureWaitOp):
                consumer = _dot_of(op)
            else:
                continue
            if consumer is None:
                continue
            dot, index = consumer
            ring = self.by_dot.get((ring_key(dot), index))
            if ring is None:
                ring = Ring(dot, index, in_flight=groups_in_flight(dot))
                ring.refill_after_wait = refills_after_wait(dot)
                ring.mma_in_flight = TMEM_IN_FLIGHT_ATTR in dot.attributes
                ring.mbarriers = RING_MBARRIERS_ATTR in dot.attributes
                self.by_dot[(ring_key(dot), index)] = ring
            if ring.scope is None:
                # (The copies of a rotated loop's dots before and after it share its rings.)
                ring.scope = ring_scope(dot)
            if isinstance(op, tas.FutureWaitOp) and _rounded(op):
                ring.rounded = True
            self.rings[id(op)] = ring
            stage = op.attributes.get(STAGE_ATTR)
            if isinstance(stage, IntegerAttr):
                ring.last_stage = max(ring.last_stage, stage.value.data)
        for op in module.walk():
            if isinstance(op, tas.FutureWaitOp) and id(op) in self.rings:
                self.pending[id(op)] = _copies_in_flight(op, self.rings[id(op)], self.rings)
            elif isinstance(op, tas.AsyncTiledLoadOp) and id(op) in self.rings:
                _check_refill_after_dot(op, self.rings[id(op)])
            elif isinstance(op, tas.AsyncWaitOp):
                if _drains_wgmma(op):
                    self.drains_wgmma.add(id(op))
                self.drained[id(op)] = [self._ring_of_result(v) for v in op.operands]
        self._plan_refill_barriers(module)

    def _plan_slot_read(self, op: tas.AsyncTiledLoadOp | tas.FutureWaitOp) -> None:
        """The ring of a load, or of a wait, marked `nv_tileas.read_from_slot`."""
        wait = op if isinstance(op, tas.FutureWaitOp) else _wait_of(op.result, set())
        if wait is None:
            raise not_supported(op, "an asynchronous load read from its slot by no wait")
        ring = self.slot_rings.get(id(wait))
        if ring is None:
            dot = wait.next_op
            while dot is not None and not isinstance(dot, tas.DotOp):
                dot = dot.next_op
            if dot is None:
                raise not_supported(op, "a tile read back from its ring slot before no dot")
            t = wait.result.type
            assert isinstance(t, TensorType)
            ring = Ring(dot, 0, read_from_slot=True, scope=ring_scope(dot))
            ring.mbarriers = RING_MBARRIERS_ATTR in op.attributes
            layout = linear_layout(wait, t)
            ring.placement = SlotPlacement.of(tuple(t.get_shape()), element_bits(t) // 8, layout)
            self.slot_rings[id(wait)] = ring
        if isinstance(op, tas.AsyncTiledLoadOp) and RING_MBARRIERS_ATTR in op.attributes:
            ring.mbarriers = True
        self.rings[id(op)] = ring
        stage = op.attributes.get(STAGE_ATTR)
        if isinstance(stage, IntegerAttr):
            ring.last_stage = max(ring.last_stage, stage.value.data)

    def _plan_refill_barriers(self, module: ModuleOp) -> None:
        """The first refill in a loop body of a ring read back from its slots gets a CTA
        barrier before it unless a dot (which passes one) lies before it in the body:
        every thread must have read the slot before any copies into it again."""
        for op in module.walk():
            if not isinstance(op, tas.AsyncTiledLoadOp) or id(op) not in self.rings:
                continue
            ring = self.rings[id(op)]
            block = op.parent_block()
            if not ring.read_from_slot or block is None:
                continue
            if not isinstance(block.parent_op(), scf.ForOp):
                continue
            earlier = list(block.ops)[: block.get_operation_index(op)]
            if any(isinstance(o, tas.DotOp) for o in earlier):
                continue
            if not any(id(o) in self.refill_barriers for o in earlier):
                self.refill_barriers.add(id(op))

    def _ring_of_result(self, future: SSAValue) -> Ring | None:
        """The ring of a loop's result that is a future: that of the load before the
        loop that gave its initial value."""
        loop = future.owner
        if not isinstance(loop, scf.ForOp) or not isinstance(future, OpResult):
            return None
        return self.rings.get(id(loop.iter_args[future.index].owner))

    def placement_of(self, dot: tas.DotOp) -> OperandPlacement | None:
        """The placement the rings of `dot` were laid out for, if it has any."""
        for index in (0, 1):
            ring = self.by_dot.get((ring_key(dot), index))
            if ring is not None and isinstance(ring.placement, OperandPlacement):
                return ring.placement
        return None

    def ring_address(self, dot: tas.DotOp, index: int) -> SSAValue | None:
        """The slot operand `index` of `dot` reads in this iteration, when a ring feeds it."""
        ring = self.by_dot.get((ring_key(dot), index))
        return None if ring is None else ring.current

    def pipelined(self, dot: tas.DotOp) -> bool:
        """Whether both operands of `dot` come from the stages of an mbarrier pipeline
        (whose waits order the copies before the dot: no CTA barrier is needed)."""
        rings = [self.by_dot.get((ring_key(dot), i)) for i in (0, 1)]
        return all(r is not None and r.stages for r in rings)

    def ordered_by_mbarriers(self, dot: tas.DotOp) -> bool:
        """Whether both operands of `dot` come from rings whose *full* mbarriers order
        every thread's copies before each thread's reads of the slot (its
        `mbarrier.try_wait` acquires them), rounded in place by no one: then the dot
        needs no CTA barrier before it for its operands."""
        rings = [self.by_dot.get((ring_key(dot), i)) for i in (0, 1)]
        return all(r is not None and r.mbarriers and not r.rounded for r in rings)

    def iteration_parity(self, b: LLBuilder, dot: tas.DotOp) -> SSAValue | None:
        """The parity (0 or 1) of the loop iteration being lowered, from the future that
        the wait of a ring of raw tiles of `dot`'s loop read back under mbarriers took
        in it (None where no such wait did).  Such a ring's `S = last_stage` slots are filled
        in turn, the wait of iteration `i` taking fill `i`: slot `s = i mod S`, the
        parity of its round `p = (i div S) mod 2` in the future's bit 0
        (`_mbarrier_slot`), so `i mod 2 = (s + (S mod 2) p) mod 2`."""
        for ring in self.slot_rings.values():
            if ring.scope is None or ring.scope != self.loop_of.get(id(dot)):
                continue
            if not ring.mbarriers or ring.current_future is None:
                continue
            assert ring.current is not None and ring.slots == ring.last_stage
            size = self.ring_placement(ring).operand_bytes(ring.index)
            one = b.const(1, i32)
            parity = b.and_(ring.slot_number(b, ring.current, size), one)
            if ring.slots % 2:
                parity = b.xor(parity, b.and_(ring.current_future, one))
            return parity
        return None

    def ring_placement(self, ring: Ring) -> OperandPlacement | SlotPlacement:
        if ring.placement is None:
            assert self.placement is not None
            ring.placement = self.placement(ring.dot)
        return ring.placement


def ring_key(dot: tas.DotOp) -> object:
    """What identifies the rings of `dot`: the dot, or the key it shares with its
    copies before and after a loop that `tileas-overlap-attention-dots` rotated."""
    key = dot.attributes.get(RING_KEY_ATTR)
    return ("ring_key", key.value.data) if isinstance(key, IntegerAttr) else id(dot)


def ring_scope(dot: tas.DotOp) -> int | None:
    """The scope of the rings of `dot`'s unspecialized pipeline: its loop.  A ring of
    `cp.async` copies into the slots of a `wgmma` or `mma.sync` dot is done with when
    the loop's `async.wait` has waited for every copy and every group and passed a CTA
    barrier, so the rings of other loops may reuse its memory (`ring_budget.py`); so is
    that of a `tcgen05` dot that waits for its own commit every iteration.  None, live
    for the whole kernel, for the slots of `tcgen05` MMAs in flight
    (`nv_tileas.tmem_in_flight`), which may outlive the loop.  (The payload of an
    mbarrier pipeline is allocated by `agents.py`, for the whole kernel.)"""
    loop = dot.parent_op()
    if TMEM_IN_FLIGHT_ATTR in dot.attributes or not isinstance(loop, scf.ForOp):
        return None
    return id(loop)


def _drains_wgmma(wait: tas.AsyncWaitOp) -> bool:
    """Whether `wait` follows a loop with a dot that leaves `wgmma` groups in flight:
    a loop whose futures it waits for, or (a warp-specialized consumer's) the loop
    right before it."""
    loops = {id(v.owner): v.owner for v in wait.operands if isinstance(v.owner, scf.ForOp)}
    if not wait.operands and isinstance(wait.prev_op, scf.ForOp):
        loops[id(wait.prev_op)] = wait.prev_op
    return any(
        isinstance(op, tas.DotOp) and groups_in_flight(op)
        for loop in loops.values()
        for op in loop.body.block.ops
    )


def _copies_in_flight(wait: tas.FutureWaitOp, ring: Ring, rings: dict[int, Ring]) -> int:
    """How many committed groups may still be in flight once `wait`'s tile has landed:
    those of the later stages (module doc).  In a loop whose every ring feeds a
    synchronous `tcgen05` dot (each load one group), also the loads the body issues
    after its ring's, in the same iteration and in the prologue's stage (which issues
    them in the body's order): with two stages, attention's K waits only for K, and V's
    copy stays in flight while S is computed and the softmax runs.  (Other engines keep
    the count of the later stages, which waits for those loads too.)"""
    future = wait.future
    if not isinstance(future, BlockArgument) or not isinstance(future.block.parent_op(), scf.ForOp):
        return 0
    body = future.block
    loads = [op for op in body.ops if isinstance(op, tas.AsyncTiledLoadOp)]
    index = body.get_operation_index
    if any(index(load) < index(wait) for load in loads):
        raise not_supported(wait, "a future wait after an asynchronous load of the same iteration")
    later_stages = max(ring.last_stage - 1, 0) * len(loads)
    own = [i for i, load in enumerate(loads) if rings.get(id(load)) is ring]
    of_loads = [rings.get(id(load)) for load in loads]
    if len(own) != 1 or not all(r is not None and _groups_for_tcgen05(r) for r in of_loads):
        return later_stages
    return later_stages + len(loads) - 1 - own[0]


def _groups_for_tcgen05(ring: Ring) -> bool:
    """Whether `ring`'s copies commit `cp.async` groups (no mbarriers) into the slots
    of a `tcgen05` dot that waits for its own commit (no MMA in flight)."""
    return ring.dot.atom.info.engine == "tcgen05" and not (
        ring.mbarriers or ring.read_from_slot or ring.mma_in_flight or ring.stages
    )


class RingPattern(TilePattern):
    """A pattern that works on the slots of rings: it knows the run's rings (`feeds`)
    and addresses a thread's elements of a slot as an exchange does (`exchange`)."""

    def __init__(self, ctx: LoweringContext, exchange: Exchange, feeds: AsyncFeeds):
        super().__init__(ctx)
        self.exchange = exchange
        self.feeds = feeds


class LowerAsyncTiledLoad(RingPattern):
    """`cp.async` copies of a tile into its ring slot (module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.AsyncTiledLoadOp, rewriter: PatternRewriter) -> None:
        ring = self.feeds.rings.get(id(op))
        if ring is None:
            raise not_supported(op, "an asynchronous tiled load that feeds no tensor-core dot")
        place = self.feeds.ring_placement(ring)
        state = self.ctx.function_state(op)
        size = place.operand_bytes(ring.index)
        allocate_ring(ring, place, state, rewriter)
        assert ring.base is not None
        stage = op.attributes.get(STAGE_ATTR)
        k = stage.value.data if isinstance(stage, IntegerAttr) else 0
        b = self.builder(rewriter, op)
        future: SSAValue | None = None
        if ring.mbarriers:
            slot, future = mbarrier_stage(b, state, op, ring, size)
        elif ring.stages:
            if ring.write_slot is None:
                raise not_supported(
                    op, "an asynchronous load into a pipeline outside producer_write"
                )
            slot = ring.write_slot
        elif k < ring.last_stage:
            slot = b.add(ring.base, b.const(k * size, i32)) if k else ring.base
        elif ring.current is None:
            raise not_supported(op, "an asynchronous load ahead of a loop without its wait")
        elif ring.in_flight or ring.mma_in_flight:
            slot = _slot_ahead(b, ring, size)
        else:
            slot = ring.current
        if ring.mma_in_flight and k == ring.last_stage:
            if ring.refill_guard is None:
                raise not_supported(op, "a refill of a tcgen05 ring before its dot")
            ring.refill_guard(b, ring.slot_number(b, slot, size))
        view = pointer_view(op, "loads from")
        t = op.loaded_type()
        layout = linear_layout(op, t)
        bits = element_bits(t)
        buffer_layout, strides, swizzle = place.view_of(ring.index, layout)
        thread = self.exchange.thread_base(
            b, state, rewriter, buffer_layout, strides, slot, swizzle
        )
        ptrs = self.ctx.registers_of(op, view.src)
        masks = self.ctx.registers_of(op, op.mask) if op.mask is not None else None
        vec, groups = vector_groups(layout, op.atom.info.bits, bits, True)
        # Each group's global address from the thread's first (`affine_addresses.py`).
        ptrs = group_addresses(self.ctx, op, b, view.src, ptrs, groups)
        async_reader = ring.dot.atom.info.engine in ASYNC_PROXY_ENGINES and not ring.read_from_slot
        # A raw tile's masked-off elements hold its padding (a dot's ring: zero).
        fill = padding_bits(op) if ring.read_from_slot else 0
        if id(op) in self.feeds.refill_barriers:
            b.op(nvvm.Barrier0Op())
        # A replicated tile: only the owner of an element writes it into the slot.
        owner = state.owner_predicate(rewriter, layout)
        nbytes = bits // 8
        # Groups inside one run of the mask move all or nothing (`uniform_groups`).
        aligned = uniform_groups(layout, vec, self.ctx.mask_runs.get(id(op)))
        # A tile with a whole-tile test (`tile_bounds.py`) copies unpredicated when it
        # holds and takes the element predicates only on the edge path: where its
        # groups are 16-byte copies the ring stores whole.  Tiles of 4-byte copies
        # (an f32 operand rounded to tf32 in its slot, a B stored N x K: `_scatter`)
        # keep their predicates: ptxas computed every copy's address for both paths up
        # front, and the `split-dot-k-steps` test's tf32 producer (56 registers, 64
        # copies a thread a stage) spilled 104-428 bytes.  On sm_100a (no GPU to time
        # it: static counts decide) only where groups are cut by the edge, whose
        # per-element edge path the test takes out of the whole tiles (groups that move
        # all or nothing are one predicated copy either way, and both paths cost
        # `s_bmm_f16` a 128-byte spill), and not in the prologue of a kernel whose
        # register budget an occupancy hint caps (`attention_occupancy_f16` at
        # `.maxnreg 128`: 8 bytes spilled across its loop).
        offsets = {g: _offsets(buffer_layout, strides, g, vec) for g in groups}
        plan = self.ctx.tile_bounds.pop(id(op), None)
        whole_tile: SSAValue | None = None
        prologue = k < ring.last_stage and not ring.stages
        cap = register_cap(op) or MAX_REGISTERS_PER_THREAD
        if plan is not None:
            scalars = [self.ctx.registers_of(op, v)[0] for v in plan.anchor.operands]
            plan.release()
            if (
                vec * nbytes == 16
                and not any(_apart(offsets[g], nbytes) for g in groups)
                and (
                    ARCHS[self.ctx.arch].warp_specialization
                    or (not aligned and not (prologue and cap < MAX_REGISTERS_PER_THREAD))
                )
            ):
                whole_tile = whole_tile_test(b, plan, scalars)
        quick: list[ptx.PtxAsm] = []
        edge: list[ptx.PtxAsm] = []
        # The edge path's groups cut by the edge, counted (`_prefix_bound`): where the
        # compares read the tile's coordinates and a coordinate is the thread's part
        # plus the register's.
        counted = (
            whole_tile is not None
            and plan is not None
            and plan.coordinates
            and masks is not None
            and not aligned
            and not fill
            and bits % 8 == 0
            and disjoint_bits(layout)
        )
        counts = PrefixCounts()
        # `_prefix_copy`'s form only where it is proven: the compares read the tile's
        # coordinates and the group runs up one dimension of them (`_run_dimension`);
        # else a group cut by the edge takes the element path.
        prefix = plan is not None and plan.coordinates and disjoint_bits(layout)
        # (One element a group, or every group in one run: its own mask is the predicate.)
        wholes = (
            _group_conjunctions(b, masks, groups, vec)
            if masks and not aligned and vec > 1 and whole_tile is None
            else {}
        )
        for index, g in enumerate(groups):
            preds = [] if masks is None else [masks[r] for r in range(g, g + vec)]
            if aligned:
                preds = preds[:1]
            if _apart(offsets[g], nbytes):
                if nbytes < 4:
                    raise not_supported(
                        op, "an asynchronous copy whose elements are not contiguous in the ring"
                    )
                # A group the ring stores apart (a 32-bit B stored N x K): one copy an
                # element, each addressed from the group's first in global memory.
                dsts = [thread.at(b, o) for o in offsets[g]]
                edge.append(_scatter(dsts, ptrs[g], preds, owner, bits))
                quick.append(_scatter(dsts, ptrs[g], [], owner, bits))
            else:
                dst = thread.at(b, offsets[g][0])
                bound = _prefix_bound(layout, g, vec, bits, preds) if counted else None
                if bound is not None:
                    edge.append(_counted_copy(dst, ptrs[g], owner, bound, counts))
                else:
                    edge.append(
                        _copy(
                            dst,
                            ptrs[g],
                            preds,
                            owner,
                            vec,
                            bits,
                            async_reader,
                            fill,
                            wholes.get(g),
                            from_leaves=whole_tile is not None,
                            prefix=prefix and _run_dimension(layout, g, vec) is not None,
                        )
                    )
                quick.append(_copy(dst, ptrs[g], [], owner, vec, bits))
            # Each block goes out as soon as its groups are addressed, so that no more
            # destination addresses are live at once than one block takes.
            if whole_tile is None:
                b.asm(edge.pop())
                quick.clear()
            elif len(edge) == WHOLE_TILE_GROUPS or index == len(groups) - 1:
                b.asm(_whole_or_edge(whole_tile, quick, edge, counts))
                quick, edge, counts = [], [], PrefixCounts()
        if future is not None:
            # Every thread arrives, copies or not: the slot's mbarrier expects them all.
            arrive_after_copies(b, ring.full(b, slot, size))
        else:
            b.op(nvvm.CpAsyncCommitGroupOp())
            future = slot
        rewriter.replace(op, [], [self.ctx.pack(rewriter, [future], op.result.type)])


def allocate_ring(
    ring: Ring,
    place: OperandPlacement | SlotPlacement,
    state: FunctionState,
    rewriter: PatternRewriter,
) -> None:
    """The ring's slots (and its mbarriers), at its first load."""
    size = place.operand_bytes(ring.index)
    if ring.base is None:
        scope = None if ring.stages else ring.scope
        ring.base = allocate_persistent(
            state, rewriter, ring.slots * size, scope, place.alignment(ring.index)
        )
    if ring.mbarriers and ring.barriers is None:
        # The mbarriers live for the whole kernel: no other scope's ring may write
        # over a valid mbarrier object.
        ring.barriers = allocate_persistent(state, rewriter, ring.slots * MBARRIER_BYTES)


def mbarrier_stage(
    b: LLBuilder, state: FunctionState, op: tas.AsyncTiledLoadOp, ring: Ring, size: int
) -> tuple[SSAValue, SSAValue]:
    """The slot a one-agent ring's load under mbarriers fills, and its future
    (`_mbarrier_slot`)."""
    stage = op.attributes.get(STAGE_ATTR)
    k = stage.value.data if isinstance(stage, IntegerAttr) else 0
    if k >= ring.last_stage and ring.current_future is None:
        raise not_supported(op, "an asynchronous load ahead of a loop without its wait")
    return _mbarrier_slot(b, state, ring, k, size)


def _offsets(layout: LinearLayout, strides: Sequence[int], g: int, vec: int) -> list[int]:
    """The ring offsets of the `vec` elements of the group starting at register `g`."""
    return [
        sum(x * s for x, s in zip(layout.register_coord(r), strides, strict=True))
        for r in range(g, g + vec)
    ]


def _apart(offsets: Sequence[int], nbytes: int) -> bool:
    """Whether the ring stores a group's elements (at `offsets`, `nbytes` each) apart:
    one copy an element (`_scatter`)."""
    return any(o != offsets[0] + i * nbytes for i, o in enumerate(offsets))


#: The groups one block behind a whole-tile test copies at most (each test is one
#: branch): the block takes every group's addresses at once, and a producer copying a
#: 64x128 and a 128x64 f32 tile (32 16-byte and 64 4-byte copies a thread a stage, the
#: `split-dot-k-steps` test's kernel at two CTAs an SM) spilled 428 bytes with all of
#: them in one block whose addresses were all computed before it.
WHOLE_TILE_GROUPS = 8


def _whole_or_edge(
    whole_tile: SSAValue,
    quick: Sequence[ptx.PtxAsm],
    edge: Sequence[ptx.PtxAsm],
    counts: PrefixCounts | None = None,
) -> ptx.PtxAsm:
    """One block for a tile's copies: where `whole_tile` holds (every element in bounds,
    the same in every thread of the CTA), the `quick` copies, unpredicated; else the
    `edge` ones, with their element predicates (`tile_bounds.py`), after the `counts`
    their groups share (`_counted_copy`).  Each group keeps its own scope, labels and
    scratch registers."""
    asm = ptx.PtxAsm()
    if counts is not None and counts.names:
        asm.register("b32", *counts.names.values())
    asm.instr("bra", "tileir_edge", guard=asm.input(whole_tile, "b"), negate=True)
    for block in quick:
        asm.nest(block)
    asm.instr("bra.uni", "tileir_whole")
    asm.label("tileir_edge")
    if counts is not None:
        counts.emit(asm)
    for block in edge:
        asm.nest(block)
    asm.label("tileir_whole")
    return asm


def _mbarrier_slot(
    b: LLBuilder, state: FunctionState, ring: Ring, k: int, size: int
) -> tuple[SSAValue, SSAValue]:
    """The slot the load of stage `k` fills in a ring under mbarriers, and its future:
    the slot's address plus the parity of the round the fill completes on the slot's
    *full* mbarrier (bit 0: slots are 16-byte aligned).  Fill `f` of a loop (the
    prologue's stage `k` is fill `k`, the body's of iteration `i` fill `i + last_stage`)
    goes to slot `f mod slots` and completes that mbarrier's phase `f / slots`, so its
    parity flips exactly where the slot index wraps around the ring.  The prologue's
    first load initializes the mbarriers (thread 0, one arrival expected per thread of
    the CTA: `arrive_after_copies`) before a CTA barrier; the loop's `async.wait`
    invalidates them again once every fill has landed (`LowerAsyncWait`)."""
    assert ring.base is not None and ring.barriers is not None
    if k < ring.last_stage:
        if k == 0:
            first = cta_thread_zero(b, state)
            for number in range(ring.slots):
                full = b.add(ring.barriers, b.const(number * MBARRIER_BYTES, i32))
                init_mbarrier(b, full, WARP_SIZE * state.num_warps, first)
            b.op(nvvm.Barrier0Op())
        slot = b.add(ring.base, b.const(k * size, i32)) if k else ring.base
        return slot, slot
    current = ring.current_future
    assert current is not None and ring.current is not None
    if not (ring.in_flight or ring.mma_in_flight):
        # The slot just read (`last_stage == slots`): always around the ring.
        return ring.current, b.xor(current, b.const(1, i32))
    ahead = b.add(current, b.const(ring.last_stage * size, i32))
    end = b.add(ring.base, b.const(ring.slots * size, i32))
    wrapped = b.xor(b.sub(ahead, b.const(ring.slots * size, i32)), b.const(1, i32))
    future = b.select(b.icmp("uge", ahead, end, signed=False), wrapped, ahead)
    return b.and_(future, b.const(-2, i32)), future


def _check_refill_after_dot(op: tas.AsyncTiledLoadOp, ring: Ring) -> None:
    """A refill of a ring with only the slots its loop reads (`Ring.refill_after_wait`:
    the load of its last stage) writes the slot of the group the dot retired: it must
    come after that dot in the same body, whose `wgmma.wait_group` and CTA barrier
    retire the group in every warp."""
    stage = op.attributes.get(STAGE_ATTR)
    if not ring.refill_after_wait or not isinstance(stage, IntegerAttr):
        return
    if stage.value.data < ring.last_stage:
        return
    block = op.parent_block()
    if block is None or ring.dot.parent_block() is not block:
        raise not_supported(op, "a refill of a ring outside its dot's loop body")
    if block.get_operation_index(op) < block.get_operation_index(ring.dot):
        raise not_supported(
            op, "a refill before the dot whose wgmma group still reads the slot it fills"
        )


def _slot_ahead(b: LLBuilder, ring: Ring, size: int) -> SSAValue:
    """The slot of the tile `last_stage` iterations after the current one, around the
    ring: with `wgmma` groups in flight the slot just read is still being read, and the
    body's load takes the oldest free one (the slot of the iteration `in_flight + 1`
    back, which every warp's `wgmma.wait_group` before the loop's barrier freed); with
    `tcgen05` MMAs in flight (`last_stage + 1` slots) the slot of the iteration before,
    once the commit of its MMAs has arrived (`Ring.refill_guard`)."""
    assert ring.current is not None and ring.base is not None
    ahead = b.add(ring.current, b.const(ring.last_stage * size, i32))
    end = b.add(ring.base, b.const(ring.slots * size, i32))
    wrapped = b.sub(ahead, b.const(ring.slots * size, i32))
    return b.select(b.icmp("uge", ahead, end, signed=False), wrapped, ahead)


def mask_leaves(value: SSAValue) -> list[SSAValue]:
    """The predicates whose conjunction `value` is: the operands of the tree of 1-bit
    `llvm.and`s that computes it (`value` itself where it is no such `and`), each once,
    in order."""
    leaves: list[SSAValue] = []
    seen: set[int] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        owner = v.owner
        if isinstance(owner, llvm.AndOp) and v.type == i1:
            stack.extend(reversed(owner.operands))
        elif id(v) not in seen:
            seen.add(id(v))
            leaves.append(v)
    return leaves


def _group_conjunctions(
    b: LLBuilder, masks: Sequence[SSAValue], groups: Sequence[int], vec: int
) -> dict[int, SSAValue]:
    """Per group (its first register), whether every element of it is in bounds, as
    one 1-bit value built from the leaves of the elements' masks (`mask_leaves`) and
    shared between groups: a tile's mask is the `and` of a row's and a column's bound,
    so the groups of one thread have a few leaves in common (the 8 column bounds of a
    16-byte group along K, in every row it copies).  The leaves are conjoined most
    shared first and every prefix is built once, so a group costs one `and` beyond what
    the others share instead of the and of its `vec` element masks in its own `cp.async`
    block (ptxas reassociated none of it: `gemm_bf16_big_tile`'s producer spent about 30
    SASS instructions on each 16-byte copy, 24 a thread a stage, and was the kernel's
    bottleneck on an H200 at 6x tileiras's time)."""
    leaves = {
        g: [leaf for r in range(g, g + vec) for leaf in mask_leaves(masks[r])] for g in groups
    }
    count: dict[int, int] = {}
    first: dict[int, int] = {}
    for group in leaves.values():
        for leaf in dict.fromkeys(group):
            count[id(leaf)] = count.get(id(leaf), 0) + 1
            first.setdefault(id(leaf), len(first))
    built: dict[tuple[int, ...], SSAValue] = {}
    wholes: dict[int, SSAValue] = {}
    for g, group in leaves.items():
        ordered = sorted(dict.fromkeys(group), key=lambda v: (-count[id(v)], first[id(v)]))
        acc = ordered[0]
        key: tuple[int, ...] = (id(acc),)
        for leaf in ordered[1:]:
            key += (id(leaf),)
            done = built.get(key)
            if done is None:
                done = built[key] = b.and_(acc, leaf)
            acc = done
        wholes[g] = acc
    return wholes


def _scatter(
    dsts: list[SSAValue],
    address: SSAValue,
    preds: list[SSAValue],
    owner: SSAValue | None,
    bits: int,
) -> ptx.PtxAsm:
    """A group of `len(dsts)` elements contiguous in global memory from `address`, each
    copied by its own `cp.async` (of 4 or 8 bytes) to its own place in the slot, and
    zero-filled where its predicate is false (`src-size` 0; one predicate for the whole
    group where its mask moves in runs of the group, `uniform_groups`); only in the
    thread that owns the group (`owner`)."""
    asm = ptx.PtxAsm()
    nbytes = bits // 8
    src = asm.input(address, "l")
    mine = asm.input(owner, "b") if owner is not None else None
    copy = ptx.opcode("cp.async", "ca", "shared", "global")
    (size,) = asm.register("b32", "t_n")
    for i, dst in enumerate(dsts):
        d = asm.input(dst, "r")
        at = ptx.address(src, i * nbytes)
        if not preds:
            asm.instr(copy, ptx.address(d), at, ptx.immediate(nbytes), guard=mine)
            continue
        if i < len(preds):
            pred = asm.input(preds[i], "b")
            asm.instr("selp.b32", size, ptx.immediate(nbytes), ptx.immediate(0), pred)
        asm.instr(copy, ptx.address(d), at, ptx.immediate(nbytes), size, guard=mine)
    return asm


def _copy(
    dst: SSAValue,
    address: SSAValue,
    preds: list[SSAValue],
    owner: SSAValue | None,
    vec: int,
    bits: int,
    async_reader: bool = False,
    fill: int = 0,
    whole: SSAValue | None = None,
    from_leaves: bool = False,
    prefix: bool = False,
) -> ptx.PtxAsm:
    """One group: a `cp.async` of `vec` elements when every predicate holds (or there
    are none; with one predicate for the group, a zero-filling `cp.async` when it does
    not), else element by element through registers, zeros where masked off; only
    in the thread that owns the elements (`owner`, when copies of them are replicated).
    `fill`: the bits of a masked-off element where they are not zero (a raw tile's
    padding, `Ring.read_from_slot`), stored with `st.shared` instead of zero-filled.
    The group's elements are contiguous in global memory (its atom was chosen so), so
    each is addressed from the first: one address register per group, not one per
    element, which matters at the register limit.  `async_reader`: the slot is read
    through the async proxy (`wgmma`, `tcgen05`), so the element path ends with the
    thread's `fence.proxy.async`.  `whole`: whether every element of the group is in
    bounds, computed outside (`_group_conjunctions`), instead of the `and` of `preds`;
    `from_leaves`: without `whole`, the group's bound is the `and` of its elements' mask
    leaves, in the block (an edge path behind a whole-tile test, `_whole_or_edge`).
    `prefix`: the elements in bounds are a prefix of the group (a mask of `iota <
    bound` compares reading the tile's coordinates, `TileBounds.coordinates`, and a
    group that runs up one dimension of them, `_run_dimension`; the caller checks):
    with zeros for padding, one `cp.async` reads that prefix (`src-size`, the bytes of
    the last element in bounds) and zero-fills the rest (PTX ISA, cp.async), in place
    of the element path."""
    asm = ptx.PtxAsm()
    nbytes = vec * bits // 8
    d = asm.input(dst, "r")
    src = asm.input(address, "l")
    mine = asm.input(owner, "b") if owner is not None else None
    kind = "cg" if nbytes == 16 else "ca"
    copy = ptx.opcode("cp.async", kind, "shared", "global")
    if not preds:
        asm.instr(copy, ptx.address(d), ptx.address(src), ptx.immediate(nbytes), guard=mine)
        return asm
    if len(preds) == 1 and nbytes >= 4 and fill:
        # One predicate for the whole group: in bounds, copy it; out of bounds, store
        # the padding's words.
        all_in_bounds(asm, [asm.input(preds[0], "b")])
        if mine is not None:
            asm.instr("and.pred", "t_all", "t_all", mine)
            asm.instr("and.pred", "t_none", "t_none", mine)
        asm.instr(copy, ptx.address(d), ptx.address(src), ptx.immediate(nbytes), guard="t_all")
        word = _fill_word(fill, bits)
        for i in range(nbytes // 4):
            asm.instr("st.shared.b32", ptx.address(d, 4 * i), ptx.immediate(word), guard="t_none")
        return asm
    if len(preds) == 1 and nbytes >= 4:
        # One predicate for the whole group: in bounds, copy it; out of bounds, the
        # copy reads nothing (`src-size` 0) and zero-fills the slot (PTX ISA, cp.async).
        (size,) = asm.register("b32", "t_n")
        asm.instr(
            "selp.b32", size, ptx.immediate(nbytes), ptx.immediate(0), asm.input(preds[0], "b")
        )
        asm.instr(copy, ptx.address(d), ptx.address(src), ptx.immediate(nbytes), size, guard=mine)
        return asm
    if prefix and not fill and nbytes == 16:
        return _prefix_copy(asm, copy, d, src, preds, mine, bits, from_leaves)
    pred: list[list[str]]
    if whole is None and not from_leaves:
        pred = [[asm.input(p, "b")] for p in preds]
        all_in_bounds(asm, [leaves[0] for leaves in pred])
    else:
        # Each element's bound from the leaves of its mask, computed on the edge path
        # only: the elements' own `and`s, left unused, are dead code for ptxas.
        inputs: dict[int, str] = {}
        pred = [
            [inputs.setdefault(id(v), asm.input(v, "b")) for v in mask_leaves(p)] for p in preds
        ]
        all_in_bounds(asm, [asm.input(whole, "b")] if whole is not None else list(inputs.values()))
    if mine is not None:
        asm.instr("and.pred", "t_all", "t_all", mine)
        asm.instr("and.pred", "t_none", "t_none", mine)
    asm.instr(copy, ptx.address(d), ptx.address(src), ptx.immediate(nbytes), guard="t_all")
    # Inside the tile (and in the threads that do not own the group) the element path
    # has nothing to do: jump over it rather than issue it predicated off.
    asm.instr("bra", "tileir_copied", guard="t_none", negate=True)
    reg_bits = max(bits, 16)
    (value,) = asm.register(ptx.typed("b", reg_bits), "t_v")
    for i in range(vec):
        asm.instr(ptx.opcode("mov", ptx.typed("b", reg_bits)), value, ptx.immediate(fill, reg_bits))
        leaves = pred[i]
        asm.instr("and.pred", "t_p", leaves[0], "t_none")
        for leaf in leaves[1:]:
            asm.instr("and.pred", "t_p", "t_p", leaf)
        asm.instr(
            ptx.opcode("ld", "global", ptx.typed("b", bits)),
            value,
            ptx.address(src, i * bits // 8),
            guard="t_p",
        )
        asm.instr(
            ptx.opcode("st", "shared", ptx.typed("b", bits)),
            ptx.address(d, i * bits // 8),
            value,
            guard="t_none",
        )
    if async_reader:
        # wgmma (tcgen05) reads the slot through the async proxy: the thread's generic
        # stores are made visible to it here, on the edge path only (a warp-specialized
        # producer then arrives on the stage's mbarrier, `agents.py`).
        asm.instr("fence.proxy.async.shared::cta")
    asm.label("tileir_copied")
    return asm


def _prefix_copy(
    asm: ptx.PtxAsm,
    copy: str,
    d: str,
    src: str,
    preds: list[SSAValue],
    mine: str | None,
    bits: int,
    from_leaves: bool,
) -> ptx.PtxAsm:
    """`_copy`'s group whose elements in bounds are a prefix: `t_n`, the bytes up to
    and including the last element in bounds (later elements' `selp`s win, and an
    element is in bounds only if every earlier one is), then one `cp.async` of the
    16-byte group that reads `t_n` bytes and zero-fills the others.  Where the mask
    has leaves (the edge path behind a whole-tile test), each element's bound is the
    `and` of its leaves, as the element path computes it.  Whole bytes an element, so
    the count of `i + 1` elements is exact: no ring copies sub-byte elements
    (`pipeline_dot_operands.async_atom` gives them no `cp.async` atom, and the front end
    refuses f4E2M1FN in memory, `f4_in_memory.py`)."""
    assert bits % 8 == 0, "a prefix of sub-byte elements would end inside a byte"
    (size,) = asm.register("b32", "t_n")
    asm.register("pred", "t_p")
    inputs: dict[int, str] = {}
    asm.instr("mov.b32", size, ptx.immediate(0))
    for i, p in enumerate(preds):
        leaves = (
            [inputs.setdefault(id(v), asm.input(v, "b")) for v in mask_leaves(p)]
            if from_leaves
            else [inputs.setdefault(id(p), asm.input(p, "b"))]
        )
        guard = leaves[0]
        if len(leaves) > 1:
            asm.instr("and.pred", "t_p", leaves[0], leaves[1])
            for leaf in leaves[2:]:
                asm.instr("and.pred", "t_p", "t_p", leaf)
            guard = "t_p"
        asm.instr("selp.b32", size, ptx.immediate((i + 1) * bits // 8), size, guard)
    asm.instr(copy, ptx.address(d), ptx.address(src), ptx.immediate(16), size, guard=mine)
    return asm


#: `a PRED b` read as `b PRED' a`.
_MIRRORED = {"sgt": "slt", "sge": "sle", "ugt": "ult", "uge": "ule"}


@dataclass(frozen=True)
class PrefixBound:
    """A 16-byte group of `vec` elements of `bits` whose elements in bounds are
    counted: element `i` is in bounds exactly where each of `leaves` holds (the
    bounds its elements share, and the first element's own) and `start + i < bound`
    (`<=` where `inclusive`; signed or not), `start` the first element's coordinate in
    the dimension the group runs up.  The elements in bounds are then the first
    `min(bound - start, vec)` (`+ 1` where inclusive) where `leaves` hold, and none
    where they do not: a copy's `src-size` without a `selp` an element."""

    leaves: tuple[SSAValue, ...]
    start: SSAValue | None
    bound: SSAValue | None
    inclusive: bool
    signed: bool
    vec: int
    bits: int


def _run_dimension(layout: LinearLayout, g: int, vec: int) -> int | None:
    """The dimension the layout's registers `g .. g + vec - 1` run up a coordinate at a
    time (every other coordinate the first's), or None.  With `disjoint_bits` the
    elements' coordinates in the tile are then the first's plus `i` there: where a mask's
    compares read them (`TileBounds.coordinates`), `x_i < bound` holds for a prefix of
    the group and every other compare for all of it or none."""
    if vec < 2:
        return None
    base = layout.register_coord(g)
    coords = [layout.register_coord(g + i) for i in range(vec)]
    runs = [d for d in range(len(base)) if coords[1][d] == base[d] + 1]
    if len(runs) != 1:
        return None
    d = runs[0]
    for i, c in enumerate(coords):
        if any(c[k] != base[k] + (i if k == d else 0) for k in range(len(base))):
            return None
    return d


def _prefix_bound(
    layout: LinearLayout, g: int, vec: int, bits: int, preds: Sequence[SSAValue]
) -> PrefixBound | None:
    """The count of the group at register `g` (`PrefixBound`), or None where its
    masks are not of that form.  The layout's registers `g .. g + vec - 1` must run up
    one dimension a coordinate at a time (with `disjoint_bits`, checked by the caller,
    the elements' coordinates are then the first's plus `i`), and the elements' masks
    (`mask_leaves`) share every leaf but one compare each, `x_i PRED bound` with the
    same `bound`: a mask of `iota < bound` compares reaching the tile at its
    coordinates (`TileBounds.coordinates`), where `x_i` is the element's coordinate."""
    if _run_dimension(layout, g, vec) is None:
        return None
    leaves = [mask_leaves(p) for p in preds]
    shared = set.intersection(*({id(v) for v in ls} for ls in leaves))
    common = tuple(v for v in leaves[0] if id(v) in shared)
    varying = [[v for v in ls if id(v) not in shared] for ls in leaves]
    if not any(varying):
        # Every element has the same mask: all of the group or nothing.
        return PrefixBound(common, None, None, False, False, vec, bits)
    if any(len(v) != 1 for v in varying):
        return None
    compares = [v[0].owner for v in varying]
    if not all(isinstance(c, llvm.ICmpOp) for c in compares):
        return None
    compares = [c for c in compares if isinstance(c, llvm.ICmpOp)]
    predicates = {llvm.ICmpPredicateFlag.from_int(c.predicate.value.data).value for c in compares}
    if len(predicates) != 1:
        return None
    (predicate,) = predicates
    lhs = [c.lhs for c in compares]
    rhs = [c.rhs for c in compares]
    # Each element compares its own coordinate with the same bound.
    if all(r is rhs[0] for r in rhs) and len({id(x) for x in lhs}) == vec:
        start, bound = lhs[0], rhs[0]
    elif (
        all(x is lhs[0] for x in lhs)
        and len({id(r) for r in rhs}) == vec
        and predicate in _MIRRORED
    ):
        start, bound, predicate = rhs[0], lhs[0], _MIRRORED[predicate]
    else:
        return None
    if predicate not in ("slt", "sle", "ult", "ule") or start.type != i32 or bound.type != i32:
        return None
    return PrefixBound(
        (*common, varying[0][0]),
        start,
        bound,
        predicate in ("sle", "ule"),
        predicate in ("slt", "sle"),
        vec,
        bits,
    )


@dataclass
class PrefixCounts:
    """The byte counts the counted groups of one `_whole_or_edge` block share (the
    groups of a tile's column in different rows have the same), each computed once
    on the edge path: `t_c<k>`, the bytes of `min(bound - start, vec)` elements (`vec
    - 1` and one more where the compare is inclusive).  Where `start` is not below
    (at most) `bound` the value is not used: the group's `selp` gives 0."""

    names: dict[tuple[int, int, bool, bool, int, int], str] = field(default_factory=dict)
    bounds: list[PrefixBound] = field(default_factory=list)

    def name(self, bound: PrefixBound) -> str:
        assert bound.start is not None and bound.bound is not None
        key = (
            id(bound.start),
            id(bound.bound),
            bound.inclusive,
            bound.signed,
            bound.vec,
            bound.bits,
        )
        if key not in self.names:
            self.names[key] = f"t_c{len(self.names)}"
            self.bounds.append(bound)
        return self.names[key]

    def emit(self, asm: ptx.PtxAsm) -> None:
        for bound, name in zip(self.bounds, self.names.values(), strict=True):
            assert bound.start is not None and bound.bound is not None
            kind = "s32" if bound.signed else "u32"
            # Where `start` is in bounds, `bound - start` is at least 1 (0 where
            # inclusive) and at most 2^31 - 1 signed, 2^32 - 1 unsigned: no wrap
            # (`start` is a coordinate, at least 0).
            asm.instr("sub.s32", name, asm.input(bound.bound, "r"), asm.input(bound.start, "r"))
            most = bound.vec - 1 if bound.inclusive else bound.vec
            asm.instr(f"min.{kind}", name, name, ptx.immediate(most))
            if bound.inclusive:
                asm.instr("add.s32", name, name, ptx.immediate(1))
            shift = (bound.bits // 8).bit_length() - 1
            if shift:
                asm.instr("shl.b32", name, name, ptx.immediate(shift))


def _counted_copy(
    dst: SSAValue,
    address: SSAValue,
    owner: SSAValue | None,
    bound: PrefixBound,
    counts: PrefixCounts,
) -> ptx.PtxAsm:
    """A 16-byte group cut by the edge (`PrefixBound`): one `cp.async` that reads its
    elements in bounds, `t_n` bytes (the shared count where the group's leaves hold,
    else 0), and zero-fills the rest (PTX ISA, cp.async `src-size`), as
    `_prefix_copy` does with a `selp` an element."""
    asm = ptx.PtxAsm()
    d = asm.input(dst, "r")
    src = asm.input(address, "l")
    mine = asm.input(owner, "b") if owner is not None else None
    (size,) = asm.register("b32", "t_n")
    guard = "t_p"
    leaves = [asm.input(v, "b") for v in bound.leaves]
    if not leaves:
        guard = ""
    elif len(leaves) == 1:
        guard = leaves[0]
    else:
        asm.register("pred", "t_p")
        asm.instr("and.pred", "t_p", leaves[0], leaves[1])
        for leaf in leaves[2:]:
            asm.instr("and.pred", "t_p", "t_p", leaf)
    count = ptx.immediate(16) if bound.start is None else counts.name(bound)
    if guard:
        asm.instr("selp.b32", size, count, ptx.immediate(0), guard)
    else:
        asm.instr("mov.b32", size, count)
    copy = ptx.opcode("cp.async", "cg", "shared", "global")
    asm.instr(copy, ptx.address(d), ptx.address(src), ptx.immediate(16), size, guard=mine)
    return asm


def _fill_word(fill: int, bits: int) -> int:
    """A 32-bit word of elements of `bits` (8, 16 or 32) bits that each hold `fill`."""
    word = 0
    for i in range(32 // bits):
        word |= (fill & ((1 << bits) - 1)) << (i * bits)
    return word


class LowerFutureWait(RingPattern):
    """`cp.async.wait_group`, or under mbarriers `mbarrier.try_wait.parity` on the
    slot's *full* mbarrier: the tile of the oldest stage has landed (module doc); a
    tile read back from its slot is then loaded into the thread's registers."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.FutureWaitOp, rewriter: PatternRewriter) -> None:
        ring = self.feeds.rings.get(id(op))
        if ring is None:
            raise not_supported(op, "a future wait whose tile feeds no tensor-core dot operand")
        (slot,) = self.ctx.registers_of(op, op.future)
        b = self.builder(rewriter, op)
        if ring.mbarriers:
            # The future is the slot's address plus its round's parity (`_mbarrier_slot`).
            ring.current_future = slot
            slot = b.and_(slot, b.const(-2, i32))
            size = self.feeds.ring_placement(ring).operand_bytes(ring.index)
            ring.current_barrier = ring.full(b, slot, size)
            wait_parity(b, ring.current_barrier, b.and_(ring.current_future, b.const(1, i32)))
        else:
            b.op(nvvm.CpAsyncWaitGroupOp(self.feeds.pending[id(op)]))
        ring.current = slot
        if ring.read_from_slot:
            rewriter.replace(op, [], [self._read_back(op, rewriter, b, ring, slot)])
            return
        # The dot reads the tile from its slot: no registers stand for it.
        cast = UnrealizedConversionCastOp.get([], [op.result.type])
        rewriter.replace(op, cast)

    def _read_back(
        self,
        op: tas.FutureWaitOp,
        rewriter: PatternRewriter,
        b: LLBuilder,
        ring: Ring,
        slot: SSAValue,
    ) -> SSAValue:
        """The thread's elements of the tile in `slot`, in the tile's layout.  Under
        mbarriers the wait acquired every thread's copies; otherwise a thread has seen
        only its own, which are all it reads unless the tile is replicated (only the
        owner of an element copied it): then a CTA barrier first."""
        state = self.ctx.function_state(op)
        t = op.result.type
        layout = linear_layout(op, t)
        if not ring.mbarriers and state.owner_predicate(rewriter, layout) is not None:
            b.op(nvvm.Barrier0Op())
        buffer_layout, strides, swizzle = self.feeds.ring_placement(ring).view_of(
            ring.index, layout
        )
        kind = element_kind(op, t)
        vec = _byte_vector(buffer_layout, strides) if kind.bits == 8 and not kind.is_bool else 1
        if vec == 1:
            values = self.exchange.read(
                b, rewriter, state, buffer_layout, strides, slot, kind, swizzle=swizzle
            )
            return self.ctx.pack(rewriter, values, t)
        # Bytes (which `Exchange.read` moves one at a time): whole words.
        base = self.exchange.thread_base(b, state, rewriter, buffer_layout, strides, slot, swizzle)
        values = []
        for r in range(0, buffer_layout.num_registers, vec):
            coord = buffer_layout.register_coord(r)
            address = base.at(b, sum(x * s for x, s in zip(coord, strides, strict=True)))
            # Each word is unpacked where its bytes are first used (`llvm-sink-tmem-loads`
            # sinks `memory_asm.unpack_word`), as a synchronous load's bytes are.
            words = b.load_words(b.shared_pointer(address), vec // 4, i32)
            # Read where the conversion first needs them, a slice at a time
            # (`llvm-sink-tmem-loads`).
            mark_slot_read(words[0])
            for word in words:
                values += b.asm(unpack_word(word, kind.register_type), False)
        return self.ctx.pack(rewriter, values, t)


def _byte_vector(layout: LinearLayout, strides: Sequence[int]) -> int:
    """How many consecutive byte registers of `layout` one `ld.shared` of whole words
    may read from a buffer of `strides`: 4, 8 or 16 contiguous bytes whose first is
    aligned to all of them for every thread and register group; 1 where none."""
    if 1 not in strides:
        return 1
    dim = list(strides).index(1)
    vec = min(layout.contiguous_registers(dim), 16)
    while vec >= 4:
        group_bits = vec.bit_length() - 1
        others = (*layout.registers[group_bits:], *layout.lanes, *layout.warps)
        offsets = [sum(x * s for x, s in zip(basis, strides, strict=True)) for basis in others]
        if all(o % vec == 0 for o in offsets):
            return vec
        vec //= 2
    return 1


class LowerAsyncWait(TilePattern):
    """`cp.async.wait_all` (under mbarriers: a parity wait for each future) and a CTA
    barrier: every copy has landed everywhere; and `wgmma.wait_group 0` first where
    the loop left `wgmma` groups in flight, before anything reads their accumulators;
    then the rings' mbarriers are invalidated (module doc)."""

    def __init__(self, ctx: LoweringContext, feeds: AsyncFeeds):
        super().__init__(ctx)
        self.feeds = feeds

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.AsyncWaitOp, rewriter: PatternRewriter) -> None:
        b = self.builder(rewriter, op)
        if id(op) in self.feeds.drains_wgmma:
            b.op(nvvm.WgmmaWaitGroupSyncOp(0))
        rings = self.feeds.drained.get(id(op), [])
        under = [
            (ring, future)
            for ring, future in zip(rings, op.operands, strict=True)
            if ring and ring.mbarriers
        ]
        # A future of a ring under mbarriers: its fill's round on the slot's mbarrier.
        for ring, future in under:
            (raw,) = self.ctx.registers_of(op, future)
            size = self.feeds.ring_placement(ring).operand_bytes(ring.index)
            slot = b.and_(raw, b.const(-2, i32))
            wait_parity(b, ring.full(b, slot, size), b.and_(raw, b.const(1, i32)))
        if len(under) < len(op.operands) or not op.operands:
            b.op(nvvm.CpAsyncWaitGroupOp(0))
        b.op(nvvm.Barrier0Op())
        # Every phase has completed and every thread is past its last wait: the
        # mbarriers end here, to be initialized again if the loop runs again.
        state = self.ctx.function_state(op)
        first = cta_thread_zero(b, state) if under else None
        for ring in {id(r): r for r, _ in under}.values():
            assert ring.barriers is not None and first is not None
            for number in range(ring.slots):
                full = b.add(ring.barriers, b.const(number * MBARRIER_BYTES, i32))
                invalidate_mbarrier(b, full, first)
        last = self.feeds.on_drain.get(id(op))
        if last is not None:
            last(b, state, rewriter)
        rewriter.erase(op)


def feed_patterns(ctx: LoweringContext, exchange: Exchange, feeds: AsyncFeeds) -> list[TilePattern]:
    return [
        LowerAsyncTiledLoad(ctx, exchange, feeds),
        LowerFutureWait(ctx, exchange, feeds),
        LowerAsyncWait(ctx, feeds),
    ]
