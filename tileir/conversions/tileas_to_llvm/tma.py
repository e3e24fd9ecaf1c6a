"""TMA feeds of a warp-specialized producer, as `tileas-tma-feeds` writes them:
`nv_tileas.make_global_view`, `make_tiled_tma_desc` and an `async.tiled_load` with the
`tma_load_2d` atom inside a `producer_write` (docs/codegen.md, "TMA feeds for the
rings").  PTX ISA sections: *Tensor* (tensor maps), *tensormap.replace*,
*tensormap.cp_fenceproxy*, *membar/fence* (`fence.proxy.tensormap`),
*cp.async.bulk.tensor*, *mbarrier* (`expect_tx`, `complete_tx`), *atom*, *%smid*.

* **Where a tensor map lives.**  cuTile passes an array as a pointer, extents and
  strides and launches the cubin with no host-side setup, so the 128-byte map is
  built on the device, in global memory no other CTA uses while this one does: each
  descriptor has a pool of `.global` slots declared in the kernel (`SM_LIMIT` SMs x
  `Q` slots x 128 bytes) and a busy word per SM (zero-initialized).  `Q` bounds the
  CTAs of this kernel resident on one SM (`2048 / threads per CTA`, at most 32: one
  bit each).  A CTA takes a free bit of the word of the SM it runs on (`%smid`) with
  `atom.or` (spinning with `nanosleep` while none is free: a CTA that migrated under
  preemption may find its old SM's word full, and then only waits), and gives it
  back at the end of the kernel with `atom.and`, after a CTA barrier that follows the
  consumers' last wait on a *full* mbarrier (every box has landed by then).  At most
  `Q` CTAs of this kernel are resident on an SM at once, so a free bit always exists
  for a running CTA, and no launch, nor any number of concurrent launches, can take
  a slot another CTA still reads.  An `%smid` beyond `SM_LIMIT` traps.
* **Building it.**  The producer's first warp zeroes a 128-byte scratch in shared
  memory, its first thread writes every field with `tensormap.replace` (address,
  rank - 1, box and global extents innermost first, the row stride in bytes, element
  strides 1, element type, no interleave, the slot's swizzle, zero fill), the warp
  copies it to its slot with `tensormap.cp_fenceproxy ... release.gpu`, and the first
  thread, which issues every box, acquires it with `fence.proxy.tensormap ...
  acquire.gpu` and keeps the slot's address in the map's shared record (`MAP_RECORD`),
  which it reads again before each box: no register holds it across the loops
  between the build and the boxes (one map serves every loop of its tensor).
* **A stage.**  The first producer thread raises the stage's *full* mbarrier's
  transaction count by the bytes of the boxes (`mbarrier.expect_tx`, no arrival: the
  barrier still expects every producer thread, which `producer_commit` arrives with)
  and issues one `cp.async.bulk.tensor.2d ... mbarrier::complete_tx::bytes` per box
  into the slot (`boxes` columns of the swizzled operand buffer, K-major or
  MN-major, `W`-byte swizzle, each `rows x W` bytes).  The phase completes once
  every producer thread has arrived and every byte has landed; out-of-bounds
  elements land as zeros.
  Coordinates are clamped to `2^31 - 1` (past any 32-bit extent: all zeros, as the
  mask the pass dropped said).
* **Warpgroups that split N** (`TMA_SPLIT_ATTR` on the descriptor: `wn`).  The map is
  rank 4, `(8, wn, C / (8 wn), R)` with strides 16, `16 wn` and the row stride in
  bytes, and box `(8, 1, W / 16, rows)`; warpgroup `j`'s `boxes / wn` boxes go to
  `(0, j, c0 / (8 wn) + l W / 16, r0)` with `cp.async.bulk.tensor.4d`, box `j boxes /
  wn + l` of the slot (tma_feeds.py).
* **One agent** (a ring under mbarriers outside any agent switch).  The CTA's first
  warp builds the map (not the first warp of each warpgroup), its thread 0 issues the
  boxes into the slot `async_copy._mbarrier_slot` picks (whose first load initializes
  the mbarriers) after that slot's `expect_tx` (the other threads branch past them);
  every thread then arrives with a plain `mbarrier.arrive` (the barrier expects the
  CTA); the load's future is the slot and its round's parity, as a `cp.async` fill's.
  A map serves every load of its tensor and box in the kernel (`tileas-tma-feeds`
  builds it once, in the function's body); its pool slot goes back once
  (`release_point`): after the `async.wait` that first follows the op of the body
  holding its last load (`AsyncFeeds.on_drain`: the last ring through it drained,
  the earlier ones before), or, where none follows (a persistent kernel's loop over
  its tiles, whose rings are drained in each iteration), before each `ret`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnrealizedConversionCastOp,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.async_copy import (
    AsyncFeeds,
    Ring,
    allocate_ring,
    mbarrier_stage,
)
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import FunctionState, LoweringContext
from tileir.conversions.tileas_to_llvm.mbarriers import arrive
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.conversions.tileas_to_llvm.shared_arena import allocate_persistent
from tileir.diagnostics import not_supported
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import SwizzleMode
from tileir.dialects.nv_tileas.types import TiledViewType
from tileir.transforms.tileas.tma_feeds import TMA_SPLIT_ATTR, tma_feed

#: Bytes of a tensor map (and its alignment in the pool and the scratch).
MAP_BYTES = 128
#: The scratch of a map, then the record of its pool word's address and bit, then
#: the map's global address (`MAP_RECORD`), which the issuing thread reads before each
#: box: no register holds it across the loops between the build and the boxes.
SCRATCH_BYTES = MAP_BYTES + 24
#: Where the record keeps the map's global address (bytes from the scratch).
MAP_RECORD = MAP_BYTES + 16
#: The largest `%smid` + 1 the pools have a word for.
SM_LIMIT = 256
#: Threads of an SM (sm_90): `2048 / threads` CTAs of a kernel fit at most.
SM_THREADS = 2048
#: Coordinates are clamped to this (a TMA coordinate is a signed 32-bit integer).
COORD_LIMIT = (1 << 31) - 1
#: Threads of the producer agent (one warpgroup); its first thread issues the boxes.
PRODUCER_THREADS = 128

#: `tensormap.replace.tile.elemtype` of each element type (PTX ISA, *tensormap.replace*:
#: `.f16` 6, `.f32` 7, `.bf16` 10; not the driver's `CUtensorMapDataType`, where bf16
#: is 9).  Triton's device-built bf16 maps write 10 (its generated LLVM IR).
ELEMENT_TYPES: dict[type[Attribute], int] = {Float16Type: 6, Float32Type: 7, BFloat16Type: 10}
#: `.swizzle_mode` of each swizzle.
SWIZZLE_CODES = {SwizzleMode.NONE: 0, SwizzleMode.B32: 1, SwizzleMode.B64: 2, SwizzleMode.B128: 3}


@dataclass
class TmaMaps:
    """The tensor maps of one run: each descriptor's scratch, pool and slot register,
    and the descriptor each TMA load copies through (planned before the rewrite)."""

    #: The descriptor (`make_tiled_tma_desc`) of each TMA load, by the load's id.
    desc_of: dict[int, tas.MakeTiledTmaDescOp] = field(default_factory=dict)
    #: The descriptors inside each `agent_switch`, by the switch's id.
    in_switch: dict[int, list[tas.MakeTiledTmaDescOp]] = field(default_factory=dict)
    #: The shared address of each descriptor's scratch, by the descriptor's id.
    scratch: dict[int, SSAValue] = field(default_factory=dict)
    #: Each lowered descriptor's slot address (the first producer warp's registers).
    slot: dict[int, SSAValue] = field(default_factory=dict)
    count: int = 0
    #: The descriptors of one-agent rings (outside any switch), by the id of the
    #: `async.wait` after which their slots go back (`release_point`).
    drained_by: dict[int, list[tas.MakeTiledTmaDescOp]] = field(default_factory=dict)
    #: Those whose slots go back at the kernel's end (no `async.wait` after their last
    #: load's op in their block: a persistent kernel's loop), by their function's id.
    at_return: dict[int, list[tas.MakeTiledTmaDescOp]] = field(default_factory=dict)
    #: The ids of those descriptors: every thread of the CTA runs their code.
    one_agent: set[int] = field(default_factory=set)

    def plan(self, module: ModuleOp) -> None:
        switched: set[int] = set()
        loads: dict[int, list[tas.AsyncTiledLoadOp]] = {}
        one_agent: list[tas.MakeTiledTmaDescOp] = []
        for op in module.walk():
            if isinstance(op, tas.AgentSwitchOp):
                descs = [d for d in op.walk() if isinstance(d, tas.MakeTiledTmaDescOp)]
                if descs:
                    self.in_switch[id(op)] = descs
                    switched.update(id(d) for d in descs)
            elif isinstance(op, tas.MakeTiledTmaDescOp) and id(op) not in switched:
                one_agent.append(op)
                self.one_agent.add(id(op))
            elif isinstance(op, tas.AsyncTiledLoadOp) and op.atom.info.is_tma:
                desc = next(
                    (
                        u.operation
                        for u in op.view.uses
                        if isinstance(u.operation, tas.MakeTiledTmaDescOp)
                    ),
                    None,
                )
                if desc is None or tma_feed(op) is None:
                    raise not_supported(op, "a TMA load without its tileas-tma-feeds descriptor")
                self.desc_of[id(op)] = desc
                loads.setdefault(id(desc), []).append(op)
        for desc in one_agent:
            users = loads.get(id(desc), [])
            if not users:
                raise not_supported(desc, "a TMA descriptor no load reads")
            wait = release_point(desc, users)
            if wait is not None:
                self.drained_by.setdefault(id(wait), []).append(desc)
            else:
                self.at_return.setdefault(id(desc.parent_op()), []).append(desc)

    def scratch_of(
        self, state: FunctionState, rewriter: PatternRewriter, desc: tas.MakeTiledTmaDescOp
    ) -> SSAValue:
        found = self.scratch.get(id(desc))
        if found is None:
            found = allocate_persistent(state, rewriter, SCRATCH_BYTES, alignment=MAP_BYTES)
            self.scratch[id(desc)] = found
        return found

    def release(
        self,
        b: LLBuilder,
        state: FunctionState,
        rewriter: PatternRewriter,
        switch: tas.AgentSwitchOp,
    ) -> None:
        """At the end of `switch` (every agent done: the consumers waited for every
        box), a CTA barrier and thread 0's `atom.and` giving back each map's slot."""
        self.give_back(b, state, rewriter, self.in_switch.get(id(switch), []))

    def give_back(
        self,
        b: LLBuilder,
        state: FunctionState,
        rewriter: PatternRewriter,
        descs: list[tas.MakeTiledTmaDescOp],
    ) -> None:
        """A CTA barrier and thread 0's `atom.and` giving back each of `descs`'s pool
        slots (every box through them has landed)."""
        if not descs:
            return
        assert state.tid is not None
        asm = ptx.PtxAsm()
        tid = asm.input(state.tid, "r")
        asm.register("pred", "t_first")
        asm.register("b64", "t_word")
        asm.register("b32", "t_bit")
        asm.instr("barrier.sync.aligned", ptx.immediate(0))
        asm.instr("setp.eq.u32", "t_first", tid, ptx.immediate(0))
        for desc in descs:
            record = asm.input(self.scratch_of(state, rewriter, desc), "r")
            asm.instr("ld.shared.b64", "t_word", ptx.address(record, MAP_BYTES), guard="t_first")
            asm.instr("ld.shared.b32", "t_bit", ptx.address(record, MAP_BYTES + 8), guard="t_first")
            asm.instr("not.b32", "t_bit", "t_bit", guard="t_first")
            asm.instr(
                "red.release.gpu.global.and.b32", ptx.address("t_word"), "t_bit", guard="t_first"
            )
        b.asm(asm)


def release_point(
    desc: tas.MakeTiledTmaDescOp, loads: list[tas.AsyncTiledLoadOp]
) -> tas.AsyncWaitOp | None:
    """Where a one-agent map's pool slot goes back: after the first `async.wait` that
    follows the op of `desc`'s block holding the last of `loads` (the map's loads in
    program order; that wait drains its ring, and the rings of every earlier load
    through the map came before); None: at the kernel's end, the op being a loop
    around the rings (a persistent kernel's), whose waits all come before it.  `desc`'s
    block is its function's body, which every thread of the CTA runs."""
    block = desc.parent_block()
    fn = desc.parent_op()
    if block is None or fn is None or not isinstance(fn.parent_op(), ModuleOp):
        raise not_supported(desc, "a one-agent TMA descriptor outside its function's body")
    op: Operation = loads[-1]
    while op.parent_block() is not block:
        parent = op.parent_op()
        if parent is None:
            raise not_supported(desc, "a TMA load outside the block of its descriptor")
        op = parent
    after = op.next_op
    while after is not None and not isinstance(after, tas.AsyncWaitOp):
        after = after.next_op
    if after is None and any(
        isinstance(o, func.ReturnOp | llvm.ReturnOp) and o.parent_block() is not block
        for o in fn.walk()
    ):
        raise not_supported(desc, "a TMA map given back at the kernel's end with early returns")
    return after


def _split(op: tas.MakeTiledTmaDescOp) -> int:
    """The warpgroups whose slices a map's boxes fill (`TMA_SPLIT_ATTR`; 1: a rank-2
    map)."""
    attr = op.attributes.get(TMA_SPLIT_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else 1


def _static(value: SSAValue) -> int:
    """The integer a box size is (an `arith.constant`, or its lowered `llvm.constant`)."""
    op = value.owner
    if isinstance(op, UnrealizedConversionCastOp) and len(op.inputs) == 1:
        op = op.inputs[0].owner
    if isinstance(op, arith.ConstantOp | llvm.ConstantOp):
        attr = op.value
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    raise AssertionError("a TMA box size is a constant (tileas-tma-feeds)")


def _resident_limit(op: tas.MakeTiledTmaDescOp) -> int:
    """`Q`: the CTAs of this kernel that fit one SM at most (module doc)."""
    fn = op.parent_op()
    while fn is not None and not isinstance(fn, llvm.FuncOp):
        fn = fn.parent_op()
    reqntid = fn.attributes.get("nvvm.reqntid") if fn is not None else None
    if not isinstance(reqntid, DenseArrayBase):
        return 32
    threads = int(reqntid.get_values()[0])
    return max(1, min(32, SM_THREADS // threads))


class TmaPattern(TilePattern):
    def __init__(self, ctx: LoweringContext, maps: TmaMaps, feeds: AsyncFeeds):
        super().__init__(ctx)
        self.maps = maps
        self.feeds = feeds


class LowerMakeGlobalView(TmaPattern):
    """The view is its registers: pointer, extents and row stride, for the descriptor."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.MakeGlobalViewOp, rewriter: PatternRewriter) -> None:
        if len(op.extents) != 2:
            raise not_supported(op, "a global view of other than two dimensions")
        regs = [self.ctx.registers_of(op, v)[0] for v in (op.ptr, *op.extents, *op.strides)]
        rewriter.replace(op, [], [self.ctx.pack(rewriter, regs, op.result.type)])


class LowerMakeTiledTmaDesc(TmaPattern):
    """The tensor map, built by the producer's first warp (one agent: the CTA's) in its
    pool slot (module doc); the descriptor's register is the slot's global address in
    that warp, which the boxes read from the map's record instead."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.MakeTiledTmaDescOp, rewriter: PatternRewriter) -> None:
        view_t = op.view.type
        assert isinstance(view_t, TiledViewType)
        code = ELEMENT_TYPES.get(type(view_t.element_type))
        if code is None:
            raise not_supported(op, f"a TMA descriptor of {view_t.element_type} elements")
        size = 4 if isinstance(view_t.element_type, Float32Type) else 2
        swizzle = op.swizzle_mode.data if op.swizzle_mode is not None else SwizzleMode.NONE
        rows, inner = (_static(v) for v in op.box)
        state = self.ctx.function_state(op)
        scratch = self.maps.scratch_of(state, rewriter, op)
        w = _resident_limit(op)
        index = self.maps.count
        self.maps.count += 1
        prologue = state.prologue_builder(rewriter)
        pool, busy = self._declare(prologue, state, index, w)
        ptr, extent_rows, extent_cols, stride = self.ctx.registers_of(op, op.view)
        assert state.tid is not None
        asm = ptx.PtxAsm()
        slot = asm.output(i64)
        tid = asm.input(state.tid, "r")
        base = asm.input(scratch, "r")
        asm.register("pred", "t_warp", "t_lead", "t_full", "t_taken", "t_far")
        asm.register("b32", "t_wid", "t_lane", "t_smid", "t_word", "t_free", "t_bit", "t_mask")
        asm.register("b32", "t_old", "t_n", "t_lo", "t_hi", "t_at")
        asm.register("b64", "t_waddr", "t_off", "t_slot", "t_stride")
        asm.instr("shr.u32", "t_wid", tid, ptx.immediate(5))
        if id(op) not in self.maps.one_agent:
            # (The producer's first warp; one agent: the CTA's.)
            asm.instr("and.b32", "t_wid", "t_wid", ptx.immediate(3))
        asm.instr("and.b32", "t_lane", tid, ptx.immediate(31))
        asm.instr("setp.eq.u32", "t_warp", "t_wid", ptx.immediate(0))
        asm.instr("setp.eq.u32", "t_lead", "t_lane", ptx.immediate(0))
        asm.instr("and.pred", "t_lead", "t_lead", "t_warp")
        asm.instr("mov.u64", "t_slot", ptx.immediate(0))
        asm.instr("bra", "tileir_tma_done", guard="t_warp", negate=True)
        asm.instr("bra", "tileir_tma_share", guard="t_lead", negate=True)
        # The first thread takes a free slot of its SM's word.
        asm.instr("mov.u32", "t_smid", "%smid")
        asm.instr("setp.ge.u32", "t_far", "t_smid", ptx.immediate(SM_LIMIT))
        asm.instr("trap", guard="t_far")
        asm.instr("mul.wide.u32", "t_off", "t_smid", ptx.immediate(4))
        asm.instr("add.u64", "t_waddr", asm.input(busy, "l"), "t_off")
        asm.label("tileir_tma_retry")
        asm.instr("ld.relaxed.gpu.global.b32", "t_word", ptx.address("t_waddr"))
        asm.instr("not.b32", "t_free", "t_word")
        asm.instr("and.b32", "t_free", "t_free", ptx.immediate((1 << w) - 1, 32))
        asm.instr("setp.eq.u32", "t_full", "t_free", ptx.immediate(0))
        asm.instr("nanosleep.u32", ptx.immediate(512), guard="t_full")
        asm.instr("bra", "tileir_tma_retry", guard="t_full")
        asm.instr("bfind.u32", "t_bit", "t_free")
        asm.instr("shl.b32", "t_mask", ptx.immediate(1), "t_bit")
        asm.instr("atom.acquire.gpu.global.or.b32", "t_old", ptx.address("t_waddr"), "t_mask")
        asm.instr("and.b32", "t_old", "t_old", "t_mask")
        asm.instr("setp.ne.u32", "t_taken", "t_old", ptx.immediate(0))
        asm.instr("bra", "tileir_tma_retry", guard="t_taken")
        asm.instr("mad.lo.u32", "t_n", "t_smid", ptx.immediate(w), "t_bit")
        asm.instr("mul.wide.u32", "t_off", "t_n", ptx.immediate(MAP_BYTES))
        asm.instr("add.u64", "t_slot", asm.input(pool, "l"), "t_off")
        # The record the release reads (`TmaMaps.release`).
        asm.instr("st.shared.b64", ptx.address(base, MAP_BYTES), "t_waddr")
        asm.instr("st.shared.b32", ptx.address(base, MAP_BYTES + 8), "t_mask")
        asm.instr("st.shared.b64", ptx.address(base, MAP_RECORD), "t_slot")
        asm.label("tileir_tma_share")
        asm.instr("mov.b64", ptx.vector(["t_lo", "t_hi"]), "t_slot")
        asm.instr(
            "shfl.sync.idx.b32",
            "t_lo",
            "t_lo",
            ptx.immediate(0),
            ptx.immediate(31),
            ptx.immediate(-1),
        )
        asm.instr(
            "shfl.sync.idx.b32",
            "t_hi",
            "t_hi",
            ptx.immediate(0),
            ptx.immediate(31),
            ptx.immediate(-1),
        )
        asm.instr("mov.b64", "t_slot", ptx.vector(["t_lo", "t_hi"]))
        # Zero the scratch, then every field.
        asm.instr("shl.b32", "t_at", "t_lane", ptx.immediate(2))
        asm.instr("add.u32", "t_at", "t_at", base)
        asm.instr("st.shared.b32", ptx.address("t_at"), ptx.immediate(0))
        asm.instr("bar.warp.sync", ptx.immediate(-1))
        field = "tensormap.replace.tile.{}.shared::cta.b1024.{}"
        at = ptx.address(base)
        asm.instr(field.format("global_address", "b64"), at, asm.input(ptr, "l"), guard="t_lead")
        split = _split(op)
        # Rank 2: (columns, rows).  Split among `split` warpgroups (tma_feeds.py): rank 4,
        # (8 columns, split, columns / (8 split), rows), 16 and 16 split bytes apart.
        boxes: tuple[int, ...] = (inner, rows) if split == 1 else (8, 1, inner // 8, rows)
        asm.instr(field.format("rank", "b32"), at, ptx.immediate(len(boxes) - 1), guard="t_lead")
        for ordinal, extent in enumerate(boxes):
            asm.instr(
                field.format("box_dim", "b32"),
                at,
                ptx.immediate(ordinal),
                ptx.immediate(extent),
                guard="t_lead",
            )
        dims: list[str] = [asm.input(extent_cols, "r"), asm.input(extent_rows, "r")]
        strides: list[str] = ["t_stride"]
        if split > 1:
            asm.register("b32", "t_groups")
            asm.register("b64", "t_block", "t_group")
            group = (8 * split).bit_length() - 1
            asm.instr("shr.u32", "t_groups", dims[0], ptx.immediate(group))
            dims = [ptx.immediate(8), ptx.immediate(split), "t_groups", dims[1]]
            asm.instr("mov.u64", "t_block", ptx.immediate(16))
            asm.instr("mov.u64", "t_group", ptx.immediate(16 * split))
            strides = ["t_block", "t_group", "t_stride"]
        for ordinal, extent in enumerate(dims):
            asm.instr(
                field.format("global_dim", "b32"),
                at,
                ptx.immediate(ordinal),
                extent,
                guard="t_lead",
            )
        asm.instr("mul.lo.u64", "t_stride", asm.input(stride, "l"), ptx.immediate(size))
        for ordinal, step in enumerate(strides):
            asm.instr(
                field.format("global_stride", "b64"),
                at,
                ptx.immediate(ordinal),
                step,
                guard="t_lead",
            )
        for ordinal in range(len(boxes)):
            asm.instr(
                field.format("element_stride", "b32"),
                at,
                ptx.immediate(ordinal),
                ptx.immediate(1),
                guard="t_lead",
            )
        for name, value in (
            ("elemtype", code),
            ("interleave_layout", 0),
            ("swizzle_mode", SWIZZLE_CODES[swizzle]),
            ("fill_mode", 0),
        ):
            asm.instr(field.format(name, "b32"), at, ptx.immediate(value), guard="t_lead")
        asm.instr("bar.warp.sync", ptx.immediate(-1))
        asm.instr(
            "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned",
            ptx.address("t_slot"),
            at,
            ptx.immediate(MAP_BYTES),
        )
        asm.instr(
            "fence.proxy.tensormap::generic.acquire.gpu",
            ptx.address("t_slot"),
            ptx.immediate(MAP_BYTES),
            guard="t_lead",
        )
        # ptxas 13 lowers the acquire to an invalidation of the TMA unit's copy of the
        # map (`UTMACCTL.IV`) that nothing waits for: the first box could still read a
        # map another CTA left in this slot.  An empty bulk group waited for with
        # `.read` makes it wait (`DEPBAR.LE SB0, 0x0` after the invalidation in SASS);
        # Triton's device-side maps carry the same two instructions for that reason.
        asm.instr("cp.async.bulk.commit_group", guard="t_lead")
        asm.instr("cp.async.bulk.wait_group.read", ptx.immediate(0), guard="t_lead")
        asm.label("tileir_tma_done")
        asm.instr("mov.u64", slot, "t_slot")
        b = self.builder(rewriter, op)
        (value,) = b.asm(asm, min_ptx_isa="8.3")
        self.maps.slot[id(op)] = value
        rewriter.replace(op, [], [self.ctx.pack(rewriter, [value], op.result.type)])
        fn = state.entry.parent_op()
        assert fn is not None
        ending = self.maps.at_return.get(id(fn), [])
        if any(d is op for d in ending) and all(id(d) in self.maps.slot for d in ending):
            # (Once, as the last of them is built: one CTA barrier before each `ret`.)
            for ret in [o for o in fn.walk() if isinstance(o, llvm.ReturnOp)]:
                at_ret = LLBuilder(PatternRewriter(ret), InsertPoint.before(ret))
                self.maps.give_back(at_ret, state, rewriter, ending)

    def _declare(
        self, b: LLBuilder, state: FunctionState, index: int, w: int
    ) -> tuple[SSAValue, SSAValue]:
        """The pool (`SM_LIMIT x w` maps, `w` the module doc's `Q`) and busy words
        (`SM_LIMIT`, zero) of map `index` of the kernel, at function scope (as
        `globals.py` declares globals)."""
        asm = ptx.PtxAsm(scoped=False)
        pool = asm.output(i64)
        busy = asm.output(i64)
        names = [f"tileir_tma_{kind}_{state.index}_{index}" for kind in ("pool", "busy")]
        asm.declare_bytes("global", names[0], SM_LIMIT * w * MAP_BYTES, MAP_BYTES)
        asm.declare_bytes("global", names[1], SM_LIMIT * 4, 4, bytes(SM_LIMIT * 4))
        asm.instr("mov.u64", pool, names[0])
        asm.instr("mov.u64", busy, names[1])
        return tuple(b.asm(asm))  # pyright: ignore[reportReturnType]


class LowerTmaLoad(TmaPattern):
    """A producer's TMA load: the stage's `expect_tx` and its boxes, from the first
    producer thread (module doc); its future is the slot, as a `cp.async` copy's."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.AsyncTiledLoadOp, rewriter: PatternRewriter) -> None:
        if not op.atom.info.is_tma:
            return
        feed = tma_feed(op)
        desc = self.maps.desc_of.get(id(op))
        ring = self.feeds.rings.get(id(op))
        if feed is None or desc is None or ring is None:
            raise not_supported(op, "a TMA load outside a tileas-tma-feeds producer")
        b = self.builder(rewriter, op)
        one_agent = not ring.stages
        slot, full, future = self._stage(b, rewriter, op, ring)
        place = self.feeds.ring_placement(ring)
        buffers = getattr(place, "operand_buffers", None)
        buffer = buffers[ring.index] if buffers is not None else None
        if buffer is None or (buffer.swizzle, buffer.mn_major) != (feed.swizzle, feed.mn_major):
            raise not_supported(
                op, "a TMA load whose ring slot is not the swizzled buffer its box writes"
            )
        if id(desc) not in self.maps.slot:
            raise not_supported(op, "a TMA load before its descriptor")
        state = self.ctx.function_state(op)
        assert state.tid is not None
        inner, rows = feed.box
        box_bytes = rows * feed.swizzle
        asm = ptx.PtxAsm()
        asm.register("pred", "t_lead")
        asm.register("b32", "t_x", "t_y", "t_first")
        asm.register("b64", "t_c")
        # The issuing thread: the producer's first, or (one agent) the CTA's.
        lanes = ptx.immediate(-1, 32) if one_agent else ptx.immediate(PRODUCER_THREADS - 1)
        asm.instr("and.b32", "t_first", asm.input(state.tid, "r"), lanes)
        asm.instr("setp.eq.u32", "t_lead", "t_first", ptx.immediate(0))
        r0, c0 = (self._coordinate(b, op, v) for v in op.coords)
        # (The other threads branch past the boxes: guarded alone, the boxes took more
        # registers, flash_attention_causal_bf16 137 and s_persistent_matmul_f16 172
        # where they take 132 and 160, ptxas 13.)
        asm.instr("bra", "tileir_tma_issued", guard="t_lead", negate=True)
        asm.instr("min.u64", "t_c", asm.input(r0, "l"), ptx.immediate(COORD_LIMIT))
        asm.instr("cvt.u32.u64", "t_y", "t_c")
        barrier = ptx.address(asm.input(full, "r"))
        asm.instr(
            "mbarrier.expect_tx.relaxed.cta.shared::cta.b64",
            barrier,
            ptx.immediate(feed.boxes * box_bytes),
            guard="t_lead",
        )
        dst = asm.input(slot, "r")
        # (The map's address from its record: the issuing thread built it.)
        asm.register("b64", "t_map")
        record = asm.input(self.maps.scratch_of(state, rewriter, desc), "r")
        asm.instr("ld.shared.b64", "t_map", ptx.address(record, MAP_RECORD), guard="t_lead")
        tensor_map = "t_map"
        column = asm.input(c0, "l")
        split = feed.split
        if split > 1:
            # Warpgroup j's slice (its 8-column blocks j, j + split, ..: box (8, 1, ..)
            # at (0, j, ..) of the rank-4 map) at j slices in (tma_feeds.py).
            asm.instr("shr.u64", "t_c", column, ptx.immediate((8 * split).bit_length() - 1))
            column = "t_c"
            asm.register("b64", "t_g")
            asm.register("b32", "t_z", "t_j")
            asm.instr("mov.b32", "t_z", ptx.immediate(0))
        lines = feed.boxes // split
        for index in range(feed.boxes):
            line = index % lines
            if split > 1:
                asm.instr("add.u64", "t_g", column, ptx.immediate(line * inner // 8))
                asm.instr("min.u64", "t_g", "t_g", ptx.immediate(COORD_LIMIT))
                asm.instr("cvt.u32.u64", "t_x", "t_g")
                asm.instr("mov.b32", "t_j", ptx.immediate(index // lines))
                coords = ["t_z", "t_j", "t_x", "t_y"]
            else:
                asm.instr("add.u64", "t_c", column, ptx.immediate(index * inner))
                asm.instr("min.u64", "t_c", "t_c", ptx.immediate(COORD_LIMIT))
                asm.instr("cvt.u32.u64", "t_x", "t_c")
                coords = ["t_x", "t_y"]
            asm.instr(
                f"cp.async.bulk.tensor.{len(coords)}d.shared::cluster.global.tile"
                ".mbarrier::complete_tx::bytes",
                ptx.address(dst, index * box_bytes) if index else ptx.address(dst),
                f"[{tensor_map}, {ptx.vector(coords)}]",
                barrier,
                guard="t_lead",
            )
        asm.label("tileir_tma_issued")
        b.asm(asm, min_ptx_isa="8.0")
        if one_agent:
            # Every thread arrives: the slot's mbarrier expects the whole CTA, as for
            # `cp.async` copies; the issuing thread's `expect_tx` came before its own.
            arrive(b, full)
        rewriter.replace(op, [], [self.ctx.pack(rewriter, [future], op.result.type)])

    def _stage(
        self, b: LLBuilder, rewriter: PatternRewriter, op: tas.AsyncTiledLoadOp, ring: Ring
    ) -> tuple[SSAValue, SSAValue, SSAValue]:
        """The slot the boxes fill, its *full* mbarrier and the load's future."""
        if ring.stages:
            if ring.write_slot is None or ring.write_barrier is None:
                raise not_supported(op, "a TMA load outside a producer_write")
            return ring.write_slot, ring.write_barrier, ring.write_slot
        if not ring.mbarriers or ring.read_from_slot or ring.rounded:
            raise not_supported(op, "a TMA load into a ring not under mbarriers alone")
        place = self.feeds.ring_placement(ring)
        state = self.ctx.function_state(op)
        size = place.operand_bytes(ring.index)
        allocate_ring(ring, place, state, rewriter)
        slot, future = mbarrier_stage(b, state, op, ring, size)
        return slot, ring.full(b, slot, size), future

    def _coordinate(self, b: LLBuilder, op: tas.AsyncTiledLoadOp, value: SSAValue) -> SSAValue:
        """The 64-bit register of a coordinate (`arith.index_cast` of a 64-bit value,
        the origin `tileas-tma-feeds` found: index arithmetic is not lowered)."""
        cast = value.owner
        if isinstance(cast, arith.IndexCastOp):
            value = cast.input
        (reg,) = self.ctx.registers_of(op, value)
        if not isinstance(reg.type, IntegerType) or reg.type.width.data > 64:
            raise not_supported(op, "a TMA coordinate that is not an integer of up to 64 bits")
        return reg if reg.type.width.data == 64 else b.zext(reg, i64)


def tma_patterns(ctx: LoweringContext, maps: TmaMaps, feeds: AsyncFeeds) -> list[TilePattern]:
    for wait, descs in maps.drained_by.items():
        feeds.on_drain[wait] = lambda b, state, rewriter, descs=descs: maps.give_back(
            b, state, rewriter, descs
        )
    return [
        LowerMakeGlobalView(ctx, maps, feeds),
        LowerMakeTiledTmaDesc(ctx, maps, feeds),
        LowerTmaLoad(ctx, maps, feeds),
    ]


__all__ = ["TmaMaps", "tma_patterns"]
