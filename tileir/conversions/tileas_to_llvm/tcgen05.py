"""Blackwell's tensor-memory MMA (`tcgen05.mma`) for `nv_tileas.dot` on sm_100a.

`tileas-select-dot-atoms` gives a `tcgen05_mma_{a}_{b}_{acc}` atom to the dots
`transforms/tileas/tcgen05_plan.py` accepts, and `tileas-assign-layouts` gives their
accumulators the layout `tcgen05.ld` reads them into (`tcgen05_accumulator_layout`).
This file only carries that out (PTX ISA 8.6, section 9.7.16, "TensorCore 5th
Generation Family Instructions"); the instructions are written by the one PTX builder
(`backend/ptx/asm_builder.py`):

* Tensor memory, once per kernel (section 9.7.16.7.1, "Tensor Memory Allocation and
  Management"): warp 0 runs `tcgen05.alloc.cta_group::1` into a shared-memory slot
  (columns a power of two from 32 to 512, the most any of the kernel's dots needs,
  known when the kernel is lowered: `finalize_tensor_memory`) and
  `tcgen05.relinquish_alloc_permit`; thread 0 initializes the mbarrier the commits
  arrive on; every thread clears its own phase word; then `tcgen05.fence` around a
  CTA barrier (section 9.7.16.6.4, "tcgen05.fence") and every thread reads the base
  address.  Before each `ret`, after a CTA barrier, warp 0 runs `tcgen05.dealloc`.
* Per dot: A and B are written to shared memory in the canonical layouts of `wgmma`
  (`wgmma.OperandBuffer`: A K-major, B MN-major for 16-bit types, K-major otherwise;
  K-major ones swizzled, the descriptor's swizzle field in bits 61-63),
  made visible to the tensor cores (`fence.proxy.async`); an accumulator that is not
  the integer constant zero is written to tensor memory by each warp's lane quarter
  (`tcgen05.st.32x32b`, `tcgen05.wait::st`); after `tcgen05.fence::before_thread_sync`,
  a CTA barrier and `tcgen05.fence::after_thread_sync`, one thread (the lane of warp 0
  that `elect.sync` elects once in the prologue, `issuer`) issues one
  `tcgen05.mma` per 128-row block, N chunk (at most 256) and K step (32 bytes of K),
  A and B given by sm_100 shared-memory descriptors (section 9.7.16.4.1, "Shared
  Memory Descriptor": the Hopper fields plus the fixed value 1 in bits 46-48) and the
  instruction descriptor (section 9.7.16.4.2, "Instruction descriptor"), the first
  step without the old D where the accumulator is zero; then
  `tcgen05.commit.mbarrier::arrive::one` (section 9.7.16.6.3).  Every thread waits for
  the mbarrier's phase (its parity kept in the thread's phase word), fences, and reads
  its lane quarter of D with `tcgen05.ld.32x32b` and `tcgen05.wait::ld` (section
  9.7.16.8.3, "Access restrictions": warp `w` reaches lanes `32 (w % 4) ..`).  A
  64-row accumulator (data-path layout F: rows `16q ..` in lanes `32q ..`) in the
  `mma.sync` fragment layout is read and written with `.16x256b` accesses of the
  warp's 16 lanes instead (section 9.7.16.2.3.1, "Matrix fragments for shape
  .16x256b": register `r` of lane `l` is row `l / 4 + 8 (r / 2 % 2)`, column
  `r % 2 + 2 (l % 4) + 8 (r / 4)`, the m16n8 fragment), with no exchange through
  shared memory (`tcgen05_plan.fragment_blocks`).

A resident accumulator (`nv_tileas.tmem_resident`, `tileas-tmem-accumulators`) stays
in tensor memory across its K loop: a per-thread flag word says whether it holds the
accumulation, and `nv_tileas.read_tmem_accumulator` reads it back after the loop.
Where its operands come from `cp.async` rings (`nv_tileas.tmem_in_flight`), its MMAs
stay in flight across iterations: the issuer commits them to the "empty" mbarrier of
the ring slot they read (`SlotBarriers`, one per slot) and nobody waits; the ring's
next copy into that slot (one iteration later, `async_copy.Ring.refill_guard`) first
waits for that commit's phase, and the read after the loop waits for every commit not
waited for yet (section 9.7.16.6.3: the commit's arrival comes when all earlier
`tcgen05.mma` of the thread have completed, their shared-memory reads included).

The links of a chain on a resident accumulator whose operands are computed in registers
(the K groups of a block-scaled tile) take two buffers in turn where
`tileas-pipeline-dot-operands` says so (`nv_tileas.turn_by_dot = [j, n]`,
`tcgen05_turn_chain`): link `j` writes its operands into buffer `j mod 2`, shared by the
links and live while the loop runs, once every thread has seen the commit of the link
that read that buffer last (two `SlotBarriers` at the accumulator's column, as for MMAs
in flight), and commits its MMAs to that buffer's mbarrier; nobody waits for them
there, so one link's MMAs run while the next converts, and the read after the loop
drains both mbarriers.

A dot whose A has tensor-memory columns (`nv_tileas.tmem_a_column`, attention's P) writes
A's registers there, two 16-bit elements a column (`tcgen05.st.32x32b`, layout D), waits
(`tcgen05.wait::st`), and its MMAs take A as a tensor-memory address (`[a]`, 8 columns a
K step) instead of a descriptor: no shared-memory buffer for A.

A dot of the MMA agent of a warp-specialized kernel (`nv_tileas.tmem_mma_agent`,
`tileas-tcgen05-agents`) only issues its MMAs, from the lane `elect.sync` elected in
that warp (`agent_issuer`): no CTA barrier, no commit, no wait; its pipelines' handshakes
order the rest (`tcgen05_agents.py`).  The per-thread words above are sized to the CTA's
threads (`cta_threads`), every agent's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, f32, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

import tileir.conversions.tileas_to_llvm.wgmma as wgmma
from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.async_copy import AsyncFeeds
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import (
    FunctionState,
    LoweringContext,
    linear_layout,
)
from tileir.conversions.tileas_to_llvm.exchange import (
    ElementKind,
    Exchange,
    check_exchangeable,
    element_kind,
    padded_strides,
)
from tileir.conversions.tileas_to_llvm.shared_arena import allocate_persistent, available_bytes
from tileir.conversions.tileas_to_llvm.staged_operands import stage_once
from tileir.diagnostics import not_supported
from tileir.dialects import nvvm
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.core_matrices import (
    CORE_MATRIX_BYTES,
    SCALE_BLOCK_BYTES,
    SCALE_BLOCK_COLUMNS,
    SCALE_BLOCK_GROUPS,
    ScaleFactorBuffer,
)
from tileir.dialects.nv_tileas.layouts import WARP_SIZE, LinearLayout
from tileir.dialects.nv_tileas.mma_spec import MmaSpec
from tileir.dialects.nv_tileas.ops.compute import COPIED_SCALES_ATTR
from tileir.dialects.nv_tileas.ops.tmem import (
    TMEM_A_COLUMN_ATTR,
    TMEM_COLUMN_ATTR,
    TMEM_IN_FLIGHT_ATTR,
    TMEM_RESIDENT_ATTR,
    TMEM_STORED_ATTR,
    ReadTmemAccumulatorOp,
    ScaleTmemAccumulatorOp,
    WriteTmemAccumulatorOp,
)
from tileir.transforms.tileas.pipeline_dot_operands import turn_by_dot
from tileir.transforms.tileas.ring_budget import marked_staged_once
from tileir.transforms.tileas.tcgen05_agents import MMA_AGENT_ATTR
from tileir.transforms.tileas.tcgen05_plan import (
    FRAGMENT_REGISTERS,
    LANE_QUARTERS,
    TCGEN05_M,
    TMEM_SCALE_COLUMN_ATTR,
    TMEM_SCALE_SETS_ATTR,
    BlockScaledForm,
    accumulator_run,
    block_scaled_form,
    dot_scale_buffers,
    fragment_accesses,
    fragment_blocks,
    fragment_warp_columns,
    instruction_m,
    power_of_two_runs,
    scale_groups,
    tcgen05_accumulator_layout,
    tcgen05_kind,
    tcgen05_n,
    tcgen05_obstacle,
    tmem_allocation,
    tmem_columns,
    tmem_register_layout,
    warp_split,
)

#: The PTX ISA of every `tcgen05` instruction (sm_100a).
TCGEN05_PTX_ISA = "8.6"
#: ... but `kind::mxf4nvf4` and `.scale_vec::4X`, which ptxas 13 takes from PTX ISA 8.7.
MXF4NVF4_PTX_ISA = "8.7"
#: Bits 46-48 of an sm_100 shared-memory descriptor: the fixed value 0b001.
SM100_DESCRIPTOR_VERSION = 1 << 46
#: Columns one `tcgen05.ld`/`st` `32x32b` moves here (up to `.x128` exist; 32 registers
#: at a time leave ptxas room under a kernel's `.maxnreg`, as CUTLASS's epilogues do).
MAX_COLUMNS_PER_ACCESS = 32
#: Columns `nv_tileas.scale_tmem_accumulator` reads, scales and writes back at a time:
#: it runs in the middle of a softmax, whose registers are the kernel's peak.
SCALE_COLUMNS = 8
#: Instruction-descriptor codes of D's type (bits 4-5) and of A's and B's (bits 7-9,
#: 10-12), per kind (section 9.7.16.4.2).
D_TYPE = {"f16": 0, "f32": 1, "s32": 2}
AB_TYPE = {
    "f16": {"f16": 0, "bf16": 1},
    "tf32": {"tf32": 2},
    "f8f6f4": {"e4m3": 0, "e5m2": 1},
    "i8": {"u8": 0, "s8": 1},
    # Block-scaled (Table 44): kind::mxf8f6f4's 8-bit floats; kind::mxf4 and
    # kind::mxf4nvf4 take E2M1 two a byte (A in bits 7-9, B in 10-11, bit 12 reserved).
    "mxf8f6f4": {"e4m3": 0, "e5m2": 1},
    "mxf4": {"e2m1": 1},
    "mxf4nvf4": {"e2m1": 1},
}
#: Bytes of the kernel's tensor-memory bookkeeping before the phase words: the
#: mbarrier (8 bytes) and the slot `tcgen05.alloc` writes the base address to.
_MBARRIER_OFFSET = 0
_SLOT_OFFSET = 8
_PHASES_OFFSET = 16


def instruction_descriptor(spec: MmaSpec, n: int, b_mn_major: bool, m: int = TCGEN05_M) -> int:
    """The 32-bit instruction descriptor of a dense `tcgen05.mma` (kinds f16, tf32,
    f8f6f4, i8) of M = `m` (128 or 64) and N = `n`: D's type in bits 4-5, A's in 7-9, B's in 10-12,
    A K-major (bit 15 clear), B MN-major in bit 16, N >> 3 in bits 17-22, M >> 4 in
    bits 24-28."""
    kind = tcgen05_kind(spec)
    assert kind is not None
    types = AB_TYPE[kind]
    return (
        (D_TYPE[spec.acc] << 4)
        | (types[spec.a] << 7)
        | (types[spec.b] << 10)
        | (int(b_mn_major) << 16)
        | ((n >> 3) << 17)
        | ((m >> 4) << 24)
    )


#: Scale-type bit (23) of a block-scaled instruction descriptor, per scale type.
SCALE_TYPE = {"ue8m0": 1, "ue4m3": 0}


def block_scaled_descriptor(form: BlockScaledForm, n: int, sfa_id: int, sfb_id: int) -> int:
    """The 32-bit instruction descriptor of a block-scaled `tcgen05.mma` (PTX ISA
    9.7.16.4.2, Tables 43/44) of `form`, M = 128 and N = `n`: B's scale-factor ID in bits
    4-5, A's and B's types in 7-9 / 10-12, both K-major, N >> 3 in 17-22, the scale type
    in 23, M >> 7 in 27-28, A's scale-factor ID in 29-30 (tileiras's 128x128 e4m3 one is
    `0x8a00000 | sfa_id << 29 | sfb_id << 4`); bit 31 (kind::mxf4*'s K = 96) clear: K =
    64."""
    types = AB_TYPE[form.kind]
    return (
        (sfb_id << 4)
        | (types[form.a] << 7)
        | (types[form.b] << 10)
        | ((n >> 3) << 17)
        | (SCALE_TYPE[form.scale] << 23)
        | ((TCGEN05_M >> 7) << 27)
        | (sfa_id << 29)
    )


def _block_scaled(op: tas.DotOp, arch: str, num_warps: int) -> BlockScaledForm | None:
    """The block-scaled form of `op` (a dot with scales), re-checked as
    `decompose_scaled_mma` checked it before the lift; None for a dot without scales."""
    info = op.atom.info
    if op.scales is None or info.block_scale is None or info.mma_spec is None:
        return None
    a_t, b_t = op.a.type, op.b.type
    assert isinstance(a_t, TensorType) and isinstance(b_t, TensorType)
    (m, k), n = a_t.get_shape()[-2:], b_t.get_shape()[-1]
    spec = info.mma_spec
    k = 2 * k if spec.packed_f4 else k  # in elements
    group = k // scale_groups(op)
    scale = info.block_scale[2].removeprefix("u")  # ue8m0 -> e8m0
    form = block_scaled_form(
        arch, spec.a, spec.b, scale, group, (m, n, k), len(a_t.get_shape()), num_warps
    )
    if isinstance(form, str):
        raise not_supported(op, f"a dot on atom '{info.name}': {form}")
    return form


def _scale_column(op: tas.DotOp) -> int:
    """The first tensor-memory column of a block-scaled dot's scale factors."""
    attr = op.attributes.get(TMEM_SCALE_COLUMN_ATTR)
    if not isinstance(attr, IntegerAttr):
        raise not_supported(
            op, "a block-scaled dot without scale columns (tileas-tmem-accumulators gives them)"
        )
    return attr.value.data


#: Four scale factors packed into one 32-bit store (`_packed_scales`).
_WORD = ElementKind(32, False, i32)


def _packed_scales(view: LinearLayout) -> LinearLayout | None:
    """`view` (`ScaleFactorBuffer.view`) with each thread's 4 factors of one row and 4
    consecutive groups as one 32-bit register, where its first two register bits step
    the group within its 4 (`g % 4`, the buffer's bytes 1 apart) and nothing else does:
    one `st.shared.b32` for 4 `st.shared.b8`, at a 4-aligned byte.  None otherwise."""
    bits = (*view.registers[2:], *view.lanes, *view.warps)
    first = tuple(view.registers[:2])
    step = tuple(
        tuple(1 << i if d == len(view.shape) - 1 else 0 for d in range(len(view.shape)))
        for i in range(2)
    )
    if view.shape[-1] != SCALE_BLOCK_GROUPS or first != step or any(c[-1] for c in bits):
        return None
    return LinearLayout(
        (*view.shape[:-1], 1), tuple(view.registers[2:]), tuple(view.lanes), tuple(view.warps)
    )


def _pack_bytes(b: LLBuilder, values: Sequence[SSAValue]) -> SSAValue:
    """Four 8-bit registers as one 32-bit word, the first in the low byte."""
    word: SSAValue | None = None
    for i, v in enumerate(values):
        byte = b.zext(v, i32)
        byte = b.shl(byte, b.const(8 * i, i32)) if i else byte
        word = byte if word is None else b.or_(word, byte)
    assert word is not None
    return word


@dataclass(frozen=True)
class ScaleRegisters:
    """One operand's scale factors as registers: `values` laid out by `layout`, each
    element of `kind` (a block-scaled dot's `scales[i]`)."""

    values: Sequence[SSAValue]
    layout: LinearLayout
    kind: ElementKind


def write_scale_factors(
    b: LLBuilder,
    rewriter: PatternRewriter,
    state: FunctionState,
    ex: Exchange,
    scales: Sequence[ScaleRegisters],
    buffers: Sequence[ScaleFactorBuffer],
    smem: Sequence[SSAValue],
) -> None:
    """A's and B's scale factors (`scales`, in that order) from registers into their
    staging buffers at `smem`, laid out as `tcgen05.cp` copies them (`ScaleFactorBuffer`:
    A's K groups along its dimension 1, B's along 0), four factors a 32-bit store where
    the layout allows (`_packed_scales`).  The step of the dot's lowering that the
    threads holding the registers run; the caller fences (`fence.proxy.async`) and
    synchronizes before the `tcgen05.cp` of these buffers."""
    for scale, buf, base, k_dim in zip(scales, buffers, smem, (1, 0)[: len(buffers)], strict=True):
        view, strides = buf.view(scale.layout, k_dim)
        packed = _packed_scales(view)
        if packed is None:
            ex.write(b, rewriter, state, scale.values, view, strides, base, scale.kind)
            continue
        vals = scale.values
        words = [_pack_bytes(b, vals[r : r + 4]) for r in range(0, len(vals), 4)]
        ex.write(b, rewriter, state, words, packed, strides, base, _WORD)


def _scale_sets(op: tas.DotOp) -> int:
    """The sets of scale factors of a block-scaled dot (`TMEM_SCALE_SETS_ATTR`): one a
    slot of A's ring where its MMAs stay in flight, else 1."""
    attr = op.attributes.get(TMEM_SCALE_SETS_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else 1


def _copy_scales(
    asm: ptx.PtxAsm,
    b: LLBuilder,
    tmem: SSAValue,
    buffers: Sequence[ScaleFactorBuffer],
    smem: Sequence[SSAValue],
    column: int,
    guard: ptx.Operand,
) -> None:
    """`tcgen05.cp.cta_group::1.32x128b.warpx4` of every 512-byte block of the scale
    factors (A's, then B's) from shared memory to their columns (`ScaleFactorBuffer`:
    block `i` at 4 columns a block; every lane quarter gets the 32 rows), described as a
    K-major canonical matrix of 16-byte rows without swizzle (8-row groups 128 bytes
    apart).  The MMAs of the same thread that follow read them without a wait (PTX ISA
    9.7.16.6.2: tcgen05.cp -> tcgen05.mma is pipelined); their commit covers the copies.
    `tmem + column` is the tensor-memory address of the set's first column."""
    at = column
    for buf, base in zip(buffers, smem, strict=True):
        for block in range(buf.blocks):
            taddr = asm.input(b.add(tmem, b.const(at + SCALE_BLOCK_COLUMNS * block, i32)))
            source = b.add(base, b.const(SCALE_BLOCK_BYTES * block, i32))
            desc = asm.input(smem_descriptor(b, source, CORE_MATRIX_BYTES, CORE_MATRIX_BYTES))
            asm.instr(
                "tcgen05.cp.cta_group::1.32x128b.warpx4", ptx.address(taddr), desc, guard=guard
            )
        at += buf.columns


def _block_scaled_mma(
    asm: ptx.PtxAsm,
    b: LLBuilder,
    tmem: SSAValue,
    form: BlockScaledForm,
    buffers: Sequence[ScaleFactorBuffer],
    column: int,
    where: tuple[int, int, int, int],
    operands: tuple[ptx.Operand, ptx.Operand, ptx.Operand, ptx.Operand],
    guard: ptx.Operand,
) -> None:
    """One block-scaled `tcgen05.mma` of row block `block`, N chunk `c0` (`chunk` wide)
    and K step `step` (`where`): the scales of its K group from the columns of its row
    block (A) and of its chunk's first rows (B), the group's byte picked by the
    descriptor's scale-factor IDs."""
    block, c0, step, chunk = where
    d, a_in, b_in, enable = operands
    sf_a, sf_b = buffers
    group = step * form.mma_k // form.group
    sfa = column + SCALE_BLOCK_COLUMNS * sf_a.block(block * TCGEN05_M, group)
    sfb = column + sf_a.columns + SCALE_BLOCK_COLUMNS * sf_b.block(c0, group)
    word = block_scaled_descriptor(form, chunk, group % 4, group % 4)
    asm.instr(
        f"tcgen05.mma.cta_group::1.kind::{form.kind}.block_scale.scale_vec::{form.vector}X",
        ptx.address(d),
        a_in,
        b_in,
        asm.input(b.const(word, i32)),
        ptx.address(asm.input(b.add(tmem, b.const(sfa, i32)))),
        ptx.address(asm.input(b.add(tmem, b.const(sfb, i32)))),
        enable,
        guard=guard,
    )


def smem_descriptor(b: LLBuilder, smem: SSAValue, lbo: int, sbo: int, swizzle: int = 0) -> SSAValue:
    """The sm_100 shared-memory descriptor of a canonical buffer at `smem`: Hopper's
    fields (`wgmma.descriptor`) with the version bits 46-48 set to 1, base offset 0, the
    absolute LBO mode (bit 52 clear); Hopper's swizzle modes 1-3 in bits 62-63 are
    sm_100's 2, 4 and 6 in bits 61-63 (128, 64 and 32 bytes; bit 61 clear: never 128
    bytes with 32-byte atoms)."""
    return b.or_(
        wgmma.descriptor(b, smem, lbo, sbo, swizzle), b.const(SM100_DESCRIPTOR_VERSION, i64)
    )


@dataclass
class TensorMemory:
    """A kernel's tensor memory: its base address, the columns its dots need, and the
    mbarrier their commits arrive on."""

    #: The base address `tcgen05.alloc` wrote (lane 0, first column).
    base: SSAValue
    #: The column count `tcgen05.alloc` and `tcgen05.dealloc` take (set at the end).
    columns: llvm.ConstantOp
    mbarrier: SSAValue
    #: This thread's word holding the parity of the mbarrier phase it waits for next.
    phase: SSAValue
    #: Warp 0's threads (which allocate and deallocate).
    first_warp: SSAValue
    needed: int = 0
    dots: list[Operation] = field(default_factory=list)
    #: This thread's flag word of each resident accumulator, by its first column.
    flags: dict[int, SSAValue] = field(default_factory=dict)
    #: The slot mbarriers of each accumulator whose MMAs stay in flight, by column.
    in_flight: dict[int, SlotBarriers] = field(default_factory=dict)
    #: The two buffers in turn of each operand of a chain whose links share them
    #: (`TURN_BY_DOT_ATTR`), by (loop scope, operand, bytes of one buffer); and the
    #: scale sets of a block-scaled dot in flight (`_scale_set`: operand `_SCALE_SETS`).
    turns: dict[tuple[int | None, int, int], SSAValue] = field(default_factory=dict)
    #: The one thread that issues every `tcgen05.mma` and `tcgen05.commit` (`issuer`).
    issuer: SSAValue | None = None
    #: The lane of each warp that `elect.sync` elects (`issuer`): in the MMA agent of a
    #: warp-specialized kernel, which is one warp, the thread that issues.
    elected: SSAValue | None = None


def cta_threads(state: FunctionState) -> int:
    """The threads of the kernel's CTA (`.reqntid`): the warps of its layouts, and in a
    warp-specialized kernel those of its other agents too, each of which has a word in
    the per-thread areas below."""
    fn = state.entry.parent_op()
    reqntid = fn.attributes.get("nvvm.reqntid") if fn is not None else None
    if isinstance(reqntid, DenseArrayBase):
        return int(reqntid.get_values()[0])
    return state.num_warps * WARP_SIZE


def issuer(state: FunctionState, rewriter: PatternRewriter, memory: TensorMemory) -> SSAValue:
    """`i1` true in the thread that issues the kernel's MMAs and commits: the lane of
    warp 0 that `elect.sync` elects (PTX ISA 9.7.13, "elect.sync"), computed once in the
    prologue, as CUTLASS and Triton pick it: the choice stays inside one warp, which
    ptxas sees as such, instead of a comparison of the thread index.  The same thread
    issues the MMAs and commits them (a commit tracks its own thread's MMAs)."""
    if memory.issuer is not None:
        return memory.issuer
    b = state.prologue_builder(rewriter)
    assert state.lane is not None
    asm = ptx.PtxAsm()
    leader = asm.output(i32)
    (elected,) = asm.register("pred", "%tc_elected")
    asm.instr("elect.sync", f"{leader}|{elected}", "-1")
    (lane,) = b.asm(asm, min_ptx_isa="8.0")
    memory.elected = b.icmp("eq", lane, state.lane)
    memory.issuer = b.and_(memory.first_warp, memory.elected)
    return memory.issuer


def agent_issuer(state: FunctionState, rewriter: PatternRewriter, memory: TensorMemory) -> SSAValue:
    """`i1` true in the thread of the MMA agent (one warp, `tileas-tcgen05-agents`) that
    issues its MMAs and commits: the lane `elect.sync` elected in the prologue, which the
    MMA warp ran too."""
    issuer(state, rewriter, memory)
    assert memory.elected is not None
    return memory.elected


#: Bit of a slot's "commit not waited for yet" flag in a `SlotBarriers` word, above the
#: slot's phase parity (bit `slot`): at most 16 slots.
_PENDING_SHIFT = 16


@dataclass
class SlotBarriers:
    """The "empty" mbarriers of the ring slots that the in-flight MMAs of one resident
    accumulator read (`nv_tileas.tmem_in_flight`): slot `j`'s at `bars + 8 j`, each
    completing a phase when the MMAs committed to it have read the slot; and this
    thread's shared word holding, per slot, the parity of the phase it waits for next
    (bit `j`) and whether a commit to it is not waited for yet (bit `16 + j`)."""

    bars: SSAValue
    word: SSAValue
    slots: int


def slot_barriers(
    state: FunctionState, rewriter: PatternRewriter, memory: TensorMemory, column: int, slots: int
) -> SlotBarriers:
    """The slot mbarriers of the resident accumulator at `column`, initialized (count 1:
    the commit's one arrival) by thread 0 in the kernel's prologue, the thread's word
    cleared there; nothing waits on them before a dot's CTA barrier has followed."""
    known = memory.in_flight.get(column)
    if known is not None:
        return known
    threads = cta_threads(state)
    area = allocate_persistent(state, rewriter, 8 * slots + 4 * threads)
    b = state.prologue_builder(rewriter)
    assert state.lane is not None and state.warp is not None
    thread = b.add(b.shl(state.warp, b.const(5, i32)), state.lane)
    word = b.add(b.add(area, b.const(8 * slots, i32)), b.shl(thread, b.const(2, i32)))
    asm = ptx.PtxAsm()
    thread0 = asm.input(state.owner_predicate_all(rewriter))
    bars = asm.input(area)
    for j in range(slots):
        asm.instr("mbarrier.init.shared::cta.b64", ptx.address(bars, 8 * j), "1", guard=thread0)
    asm.instr("fence.mbarrier_init.release.cluster", guard=thread0)
    asm.instr("st.shared.b32", ptx.address(asm.input(word)), "0")
    b.asm(asm)
    known = SlotBarriers(area, word, slots)
    memory.in_flight[column] = known
    return known


def _wait_slot(b: LLBuilder, barriers: SlotBarriers, slot: SSAValue, drain: bool = False) -> None:
    """Where a commit to `slot`'s mbarrier is not waited for yet: wait for its phase
    (the MMAs that read the slot are done with it), flip the parity, clear the flag.
    (`drain`: the wait after the loop, its predicate named apart from a refill's.)"""
    asm = ptx.PtxAsm()
    word = asm.input(barriers.word)
    j = asm.input(slot)
    bar = asm.input(b.add(barriers.bars, b.shl(slot, b.const(3, i32))))
    w, bits, mask = asm.register("b32", "%tc_w", "%tc_bits", "%tc_mask")
    idle, done = asm.register("pred", "%tc_idle", "%tc_drained" if drain else "%tc_ok")
    asm.instr("ld.shared.b32", w, ptx.address(word))
    asm.instr("shr.b32", bits, w, j)
    asm.instr("and.b32", mask, bits, str(1 << _PENDING_SHIFT))
    asm.instr("setp.eq.b32", idle, mask, "0")
    asm.instr("bra.uni", "$L_tc_free", guard=idle)
    asm.instr("and.b32", bits, bits, "1")
    asm.label("$L_tc_slot")
    asm.instr("mbarrier.try_wait.parity.shared::cta.b64", done, ptx.address(bar), bits)
    asm.instr("bra.uni", "$L_tc_slot", guard=done, negate=True)
    asm.instr("mov.b32", mask, str(1 | 1 << _PENDING_SHIFT))
    asm.instr("shl.b32", mask, mask, j)
    asm.instr("xor.b32", w, w, mask)
    asm.instr("st.shared.b32", ptx.address(word), w)
    asm.label("$L_tc_free")
    b.asm(asm)


def _mark_committed(b: LLBuilder, barriers: SlotBarriers, slot: SSAValue) -> None:
    """This thread's flag that a commit to `slot`'s mbarrier is not waited for yet."""
    asm = ptx.PtxAsm()
    word, j = asm.input(barriers.word), asm.input(slot)
    w, flag = asm.register("b32", "%tc_w", "%tc_flag")
    asm.instr("ld.shared.b32", w, ptx.address(word))
    asm.instr("mov.b32", flag, str(1 << _PENDING_SHIFT))
    asm.instr("shl.b32", flag, flag, j)
    asm.instr("or.b32", w, w, flag)
    asm.instr("st.shared.b32", ptx.address(word), w)
    b.asm(asm)


def tensor_memory(state: FunctionState, rewriter: PatternRewriter) -> TensorMemory:
    """The kernel's tensor memory, allocated in its prologue on first use."""
    if isinstance(state.tensor_memory, TensorMemory):
        return state.tensor_memory
    threads = cta_threads(state)
    area = allocate_persistent(state, rewriter, _PHASES_OFFSET + 4 * threads)
    b = state.prologue_builder(rewriter)
    assert state.lane is not None and state.warp is not None
    columns = llvm.ConstantOp(IntegerAttr(0, i32), i32)
    b.op(columns)
    first_warp = b.icmp("eq", state.warp, b.const(0, i32))
    first_thread = state.owner_predicate_all(rewriter)
    thread = b.add(b.shl(state.warp, b.const(5, i32)), state.lane)
    mbarrier = b.add(area, b.const(_MBARRIER_OFFSET, i32))
    slot = b.add(area, b.const(_SLOT_OFFSET, i32))
    phase = b.add(b.add(area, b.const(_PHASES_OFFSET, i32)), b.shl(thread, b.const(2, i32)))
    asm = ptx.PtxAsm()
    base = asm.output(i32)
    warp0, thread0 = asm.input(first_warp), asm.input(first_thread)
    slot_in, ncols, bar, word = (asm.input(v) for v in (slot, columns.result, mbarrier, phase))
    asm.instr(
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
        ptx.address(slot_in),
        ncols,
        guard=warp0,
    )
    asm.instr("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned", guard=warp0)
    asm.instr("mbarrier.init.shared::cta.b64", ptx.address(bar), "1", guard=thread0)
    asm.instr("fence.mbarrier_init.release.cluster", guard=thread0)
    asm.instr("st.shared.b32", ptx.address(word), "0")
    _thread_sync(asm)
    asm.instr("ld.shared.b32", base, ptx.address(slot_in))
    (base_value,) = b.asm(asm, min_ptx_isa=TCGEN05_PTX_ISA)
    memory = TensorMemory(base_value, columns, mbarrier, phase, first_warp)
    state.tensor_memory = memory
    return memory


def commit(asm: ptx.PtxAsm, mbarrier: ptx.Operand, guard: ptx.Operand) -> None:
    """`tcgen05.commit` of the `guard` thread's earlier MMAs to `mbarrier` (one arrival
    once they have completed, PTX ISA 9.7.16.6.3)."""
    asm.instr(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",
        ptx.address(mbarrier),
        guard=guard,
    )


def _thread_sync(asm: ptx.PtxAsm) -> None:
    """A CTA barrier that orders `tcgen05` operations across threads (section
    9.7.16.6.4: `tcgen05.fence::before_thread_sync` before it,
    `tcgen05.fence::after_thread_sync` after it)."""
    asm.instr("tcgen05.fence::before_thread_sync")
    asm.instr("bar.sync", "0")
    asm.instr("tcgen05.fence::after_thread_sync")


def finalize_tensor_memory(state: FunctionState) -> None:
    """Size the tensor memory of a lowered kernel to its dots, and free it before
    every `ret`: a CTA barrier after every warp's last access, then warp 0's
    `tcgen05.dealloc`."""
    memory = state.tensor_memory
    fn = state.entry.parent_op()
    if not isinstance(memory, TensorMemory) or fn is None:
        return
    memory.columns.value = IntegerAttr(tmem_allocation(memory.needed), i32)
    for ret in [op for op in fn.walk() if isinstance(op, llvm.ReturnOp)]:
        asm = ptx.PtxAsm()
        warp0 = asm.input(memory.first_warp)
        base, ncols = asm.input(memory.base), asm.input(memory.columns.result)
        _thread_sync(asm)
        asm.instr("tcgen05.dealloc.cta_group::1.sync.aligned.b32", base, ncols, guard=warp0)
        LLBuilder(PatternRewriter(ret), InsertPoint.before(ret)).asm(
            asm, min_ptx_isa=TCGEN05_PTX_ISA
        )


def _is_zero(values: Sequence[SSAValue]) -> bool:
    """Whether every register is the integer constant 0, so that the first MMA may
    ignore the old D (`enable-input-d` false) instead of it being stored: exact for an
    s32 accumulator only.  A float accumulator of +0 is stored: `+0 + a·b` is +0 where
    every product of a row and column is -0, and the MMA without D would give -0."""
    for v in values:
        owner = v.owner
        if not isinstance(owner, llvm.ConstantOp):
            return False
        attr = owner.value
        if not (isinstance(attr, IntegerAttr) and attr.value.data == 0):
            return False
    return True


def _tmem_address(
    b: LLBuilder, memory: TensorMemory, state: FunctionState, column: int
) -> SSAValue:
    """The tensor-memory address of this warp's lane quarter at `column`: lane in bits
    16-31 (`32 (warp % 4)`), column in bits 0-15."""
    assert state.warp is not None
    quarter = b.and_(state.warp, b.const(LANE_QUARTERS - 1, i32))
    lanes = b.shl(quarter, b.const(16 + 5, i32))
    return b.add(b.add(memory.base, lanes), b.const(column, i32))


def _column_runs(mn: tuple[int, int], num_warps: int, run: int) -> list[tuple[int, int, int]]:
    """`(first register, column offset, count)` of each `tcgen05.ld`/`st` of a thread,
    the offset from its first block's first column (`_thread_column`): per 128-row
    block it holds (`Gm` apart), each of its runs of `run` consecutive columns (`Gc`
    runs apart: `column_run`), in pieces of at most `MAX_COLUMNS_PER_ACCESS` (the
    registers of `tcgen05_accumulator_layout` in order)."""
    m, n = mn
    rows, columns = warp_split(mn, num_warps)
    per_thread = n // columns
    step = min(run, MAX_COLUMNS_PER_ACCESS)
    return [
        (i * per_thread + r * run + j, rows * i * n + r * run * columns + j, step)
        for i in range(max(1, m // TCGEN05_M) // rows)
        for r in range(per_thread // run)
        for j in range(0, run, step)
    ]


def _thread_column(
    b: LLBuilder, state: FunctionState, mn: tuple[int, int], num_warps: int, run: int
) -> SSAValue:
    """The first tensor-memory column of this warp's accumulator part: block
    `w / 4 % Gm` (`n` columns each), column group `w / 4 / Gm` (whose first run starts
    `run` columns after the previous group's)."""
    assert state.warp is not None
    _, n = mn
    rows, _ = warp_split(mn, num_warps)
    group = b.lshr(state.warp, b.const(2, i32))
    block = b.and_(group, b.const(rows - 1, i32))
    part = b.lshr(group, b.const(rows.bit_length() - 1, i32))
    return b.add(b.mul(block, b.const(n, i32)), b.mul(part, b.const(run, i32)))


def lower_tcgen05_dot(
    op: tas.DotOp,
    rewriter: PatternRewriter,
    ctx: LoweringContext,
    ex: Exchange,
    feeds: AsyncFeeds | None = None,
) -> None:
    """`op` on `tcgen05.mma` (module docstring); operands that a ring of `feeds` holds
    (`tileas-pipeline-dot-operands`) are read in its slot, laid out as its placement
    says."""
    info = op.atom.info
    spec = info.mma_spec
    a_t, b_t, acc_t = op.a.type, op.b.type, op.acc.type
    assert isinstance(a_t, TensorType) and isinstance(b_t, TensorType)
    assert isinstance(acc_t, TensorType) and spec is not None
    (m, k), n = a_t.get_shape()[-2:], b_t.get_shape()[-1]
    state = ctx.function_state(op)
    why = tcgen05_obstacle(ctx.arch, spec, (m, n, k), len(acc_t.get_shape()), state.num_warps)
    if why is not None:
        raise not_supported(op, f"a dot on atom '{info.name}': {why}")
    form = _block_scaled(op, ctx.arch, state.num_warps)
    scale_buffers = dot_scale_buffers(op) or ()
    # One set of scale factors a slot of A's ring where the MMAs stay in flight, which
    # live while the loop runs (below); else one set, transient, the dot waits.
    scale_sets = _scale_sets(op) if form is not None else 1
    # Raw scale tiles the MMA warp copies from its stage's slots (`COPIED_SCALES_ATTR`):
    # no staging buffers, no registers.
    copied = COPIED_SCALES_ATTR in op.attributes
    transient_scales = scale_buffers if scale_sets == 1 and not copied else ()
    a_layout, b_layout = linear_layout(op, a_t), linear_layout(op, b_t)
    acc_layout = linear_layout(op, acc_t)
    result_layout = linear_layout(op, op.result.type)
    for layout in (a_layout, b_layout, acc_layout):
        check_exchangeable(op, layout)
    run = accumulator_run(op.result.type, state.num_warps)
    tmem_layout = tmem_register_layout((m, n), state.num_warps, run)
    a_vals = ctx.registers_of(op, op.a)
    b_vals = ctx.registers_of(op, op.b)
    acc_vals = ctx.registers_of(op, op.acc)
    operand = element_kind(op, a_t)
    accumulator = element_kind(op, acc_t)
    c_strides, c_size = padded_strides([m, n], accumulator.bits)
    # A 64-row accumulator in the `mma.sync` fragment layout moves between registers and
    # tensor memory with `.16x256b` accesses, without an exchange (`fragment_blocks`).
    acc_blocks = fragment_blocks(acc_layout, (m, n))
    result_blocks = fragment_blocks(result_layout, (m, n))
    exchange_c = (acc_layout != tmem_layout and acc_blocks is None) or (
        result_layout != tmem_layout and result_blocks is None
    )
    limit = available_bytes(state, [c_size] if exchange_c else [])
    size = spec.element_bytes
    place = feeds.placement_of(op) if feeds is not None else None
    if place is not None and place.operand_buffers is not None:
        buffers = place.operand_buffers
    else:
        buffers = wgmma.operand_buffers((m, n, k), size, (a_layout, b_layout), limit)
    fed = [feeds.ring_address(op, i) if feeds is not None else None for i in (0, 1)]
    # An operand staged once before its loop (attention's Q) is written once: dense, as
    # the padding against bank conflicts would only spare that one write, and its 4 KiB
    # a 128x128 16-bit tile lets 128-row attention keep K's and V's rings within two
    # CTAs' share of an SM.
    staged_once = set(marked_staged_once(op))
    buffers = tuple(
        replace(buf, pad=0) if index in staged_once and fed[index] is None else buf
        for index, buf in enumerate(buffers)
    )
    a_buf, b_buf = buffers
    views = [a_buf.view(a_layout, 1), b_buf.view(b_layout, 0)]
    # Operands the loop does not change (`nv_tileas.staged_once`), written once before it.
    staged: list[SSAValue | None] = [None, None]
    for index in marked_staged_once(op):
        if fed[index] is None:
            vals = (a_vals, b_vals)[index]
            staged[index] = stage_once(
                state, rewriter, ex, vals, views[index], buffers[index].bytes, operand
            )
    # A computed in registers into tensor memory (`nv_tileas.tmem_a_column`): no buffer.
    a_column = _a_column(op) if fed[0] is None and staged[0] is None else None
    written = [
        index
        for index, (f, once) in enumerate(zip(fed, staged, strict=True))
        if f is None and once is None and not (index == 0 and a_column is not None)
    ]
    # The operands written into two buffers in turn (`_turn_buffers`) take no transient one.
    link = _turn_link(op)
    turning = written if link is not None else []
    sizes = [buffers[index].bytes for index in written if index not in turning]
    alignments = [buffers[index].align for index in written if index not in turning]
    sizes += [c_size] if exchange_c else []
    sizes += [buf.bytes for buf in transient_scales]
    allocated = iter(ex.allocator.allocate(op, state, rewriter, sizes, alignments) if sizes else [])
    operand_smem: list[SSAValue | None] = [fed[0] or staged[0], fed[1] or staged[1]]
    for index in written:
        if index not in turning:
            operand_smem[index] = next(allocated)
    smem_c = next(allocated) if exchange_c else None
    scale_smem = [next(allocated) for _ in transient_scales]

    memory = tensor_memory(state, rewriter)
    base_column = _column_of(op)
    memory.needed = max(memory.needed, base_column + tmem_columns((m, n)))
    if a_column is not None:
        memory.needed = max(memory.needed, a_column + k // 2)
    scale_column = _scale_column(op) if form is not None else 0
    if form is not None:
        needed = scale_column + scale_sets * form.scale_columns((m, n, form.elements(k)))
        memory.needed = max(memory.needed, needed)
    memory.dots.append(op)
    resident = TMEM_RESIDENT_ATTR in op.attributes
    # Tensor memory holds the accumulation from before the loop on
    # (`nv_tileas.tmem_stored`): no flag, no store, every MMA accumulates.
    stored = TMEM_STORED_ATTR in op.attributes
    b = LLBuilder(rewriter, InsertPoint.before(op))
    turn: tuple[SlotBarriers, SSAValue] | None = None
    if link is not None:
        turn = _turn_buffers(
            op, state, b, rewriter, memory, feeds, buffers, turning, link, operand_smem
        )
    smem_a, smem_b = operand_smem
    assert smem_b is not None
    zero_acc = _is_zero(acc_vals) and not stored
    # A resident accumulator (`tileas-tmem-accumulators`): the loop carries the initial
    # registers unchanged; this thread's flag says whether tensor memory already holds
    # the accumulation (set after the first iteration, cleared by the read after the
    # loop).
    started: SSAValue | None = None
    flag: SSAValue | None = None
    if resident and not stored:
        flag = _flag(state, rewriter, memory, base_column)
        started = b.icmp("ne", _load_word(b, flag), b.const(0, i32))
    # MMAs in flight (`nv_tileas.tmem_in_flight`): they commit to the mbarrier of the
    # ring slot they read, and the ring's next refill of that slot waits for it.
    slot: tuple[SlotBarriers, SSAValue] | None = None
    if TMEM_IN_FLIGHT_ATTR in op.attributes and feeds is not None:
        rings = [feeds.by_dot.get((id(op), i)) for i in (0, 1)]
        if not all(r is not None and r.mma_in_flight and r.current for r in rings):
            raise not_supported(op, "tcgen05 MMAs in flight without both operands in rings")
        ring_a = rings[0]
        assert ring_a is not None and ring_a.current is not None
        if ring_a.slots > _PENDING_SHIFT:
            raise not_supported(op, f"tcgen05 MMAs in flight over {ring_a.slots} ring slots")
        barriers = slot_barriers(state, rewriter, memory, base_column, ring_a.slots)
        for ring in rings:
            assert ring is not None
            ring.refill_guard = lambda b, j, barriers=barriers: _wait_slot(b, barriers, j)
        size = feeds.ring_placement(ring_a).operand_bytes(0)  # as the ring's slots
        slot = (barriers, ring_a.slot_number(b, ring_a.current, size))
        if scale_sets != 1 and ring_a.slots != scale_sets:
            raise not_supported(
                op, f"{scale_sets} scale sets for block-scaled MMAs over {ring_a.slots} slots"
            )
    scale_tmem = memory.base
    if copied:
        # -- the MMA warp's scales: set `s` is the stage `s` it read, whose slots are
        # already the `tcgen05.cp` source layout (`copied_scale_slots`).
        scale_smem, scale_tmem, scale_column = copied_scale_slots(
            op, b, feeds, memory, scale_buffers, scale_sets, scale_column
        )
    elif scale_sets != 1:
        if slot is None:
            raise not_supported(op, "block-scaled scale sets without MMAs in flight")
        # -- iteration `i` takes the scale set of its A slot `s` (`TMEM_SCALE_SETS_ATTR`):
        # staging buffers and tensor-memory columns that the MMAs of iteration `i - S`
        # read, whose commit the ring's refill of slot `s` waited for.
        scope = feeds.loop_of.get(id(op)) if feeds is not None else None
        sets = (scale_sets, scope, scale_column)
        scale_smem, scale_tmem, scale_column = _scale_set(
            b, state, rewriter, memory, scale_buffers, sets, slot[1]
        )

    # A chain whose links take two buffers in turn (`TURN_BY_DOT_ATTR`, on a resident
    # accumulator): link `j` writes its operands into buffer `j mod 2` once the commit
    # of link `j - 2` has arrived on the mbarrier of that buffer, and commits to it;
    # nobody waits for its MMAs here (`_turn_buffers`).
    if turn is not None:
        barriers, j = turn
        _wait_slot(b, barriers, j)
    # -- A and B into shared memory, visible to the tensor cores (the async proxy).
    for vals, (layout, strides, swizzle), smem, ring, once in zip(
        (a_vals, b_vals), views, (smem_a, smem_b), fed, staged, strict=True
    ):
        if ring is None and once is None and smem is not None:
            ex.write(b, rewriter, state, vals, layout, strides, smem, operand, swizzle=swizzle)
    if a_column is not None:
        # -- A into tensor memory by each warp's lane quarter; the `tcgen05.fence` around
        # the CTA barrier below orders the stores (and their `tcgen05.wait::st`) before
        # the issuing thread's MMAs.
        words, part = _a_part(b, memory, state, a_layout, a_vals, a_column)
        _write_part(b, part, words)
    # -- a block-scaled dot's scale factors into shared memory, as `tcgen05.cp` copies
    # them (`ScaleFactorBuffer`); the proxy fence and the CTA barrier below cover them.
    if op.scales is not None and not copied:
        scales = [
            ScaleRegisters(
                ctx.registers_of(op, v), linear_layout(op, v.type), element_kind(op, v.type)
            )
            for v in op.scales
        ]
        write_scale_factors(b, rewriter, state, ex, scales, scale_buffers, scale_smem)
    # In the MMA agent (`nv_tileas.tmem_mma_agent`) its pipelines order everything: the
    # stage's and the accumulator's waits came before (with the proxy fence: both
    # operands are the stage's), the commits to them follow.
    agent = MMA_AGENT_ATTR in op.attributes
    if not agent:
        b.op(nvvm.FenceProxyOp())
    runs = _column_runs((m, n), state.num_warps, run)
    group = b.add(_thread_column(b, state, (m, n), state.num_warps, run), b.const(base_column, i32))
    # -- the accumulator into tensor memory, unless it is zero (a resident one only in
    # the loop's first iteration) or already there.
    if not zero_acc and not stored and acc_blocks is not None and acc_layout != tmem_layout:
        part = _fragment_part(b, memory, state, acc_layout, acc_blocks, base_column)
        _write_part(b, part, acc_vals, unless=started)
    elif not zero_acc and not stored:
        c = acc_vals
        if acc_layout != tmem_layout:
            assert smem_c is not None
            ex.write(b, rewriter, state, acc_vals, acc_layout, c_strides, smem_c, accumulator)
            b.op(nvvm.Barrier0Op())
            c = ex.read(b, rewriter, state, tmem_layout, c_strides, smem_c, accumulator)
        _write_part(b, _lane_quarter_part(memory, state, runs, group), c, unless=started)

    # -- the elected thread of warp 0 issues the MMAs and commits them to the mbarrier.
    a_desc = (
        smem_descriptor(b, smem_a, a_buf.lbo, a_buf.sbo, a_buf.swizzle)
        if smem_a is not None
        else None
    )
    b_desc = smem_descriptor(b, smem_b, b_buf.lbo, b_buf.sbo, b_buf.swizzle)
    chunk = tcgen05_n(n)
    mma_m = instruction_m(m)
    idesc = instruction_descriptor(spec, chunk, b_buf.mn_major, mma_m)
    asm = ptx.PtxAsm()
    thread0 = asm.input(
        agent_issuer(state, rewriter, memory) if agent else issuer(state, rewriter, memory)
    )
    committed = slot or turn  # the mbarrier of the slot or buffer its MMAs read
    if committed is not None:
        barriers, j = committed
        bar = asm.input(b.add(barriers.bars, b.shl(j, b.const(3, i32))))
    else:
        bar = asm.input(memory.mbarrier)
    descriptor = asm.input(b.const(idesc, i32))
    kept, fresh = asm.register("pred", "%tc_keep", "%tc_fresh")
    asm.instr("setp.ne.b32", kept, "1", "0")
    if started is not None:  # accumulate from the second iteration on
        fresh = asm.input(started)
    else:
        asm.instr("setp.ne.b32", fresh, "0", "0")
    if not agent:
        _thread_sync(asm)
    kind = tcgen05_kind(spec)
    if form is not None:
        _copy_scales(asm, b, scale_tmem, scale_buffers, scale_smem, scale_column, thread0)
    for block in range(m // mma_m):
        for c0 in range(0, n, chunk):
            d = asm.input(b.add(memory.base, b.const(base_column + block * n + c0, i32)))
            for step in range(k // spec.k_step):
                b_off = b_buf.row_offset(c0) + b_buf.k_offset(step * spec.k_step)
                if a_desc is None:
                    # A in tensor memory: K step `step` is `k_step / 2` columns further.
                    assert a_column is not None
                    a_at = a_column + step * spec.k_step // 2
                    a_in = ptx.address(asm.input(b.add(memory.base, b.const(a_at, i32))))
                else:
                    a_off = a_buf.row_offset(block * mma_m) + a_buf.k_offset(step * spec.k_step)
                    a_in = asm.input(_offset(b, a_desc, a_off))
                b_in = asm.input(_offset(b, b_desc, b_off))
                enable = fresh if step == 0 and zero_acc else kept
                if form is not None:
                    where = (block, c0, step, chunk)
                    mma = (d, a_in, b_in, enable)
                    _block_scaled_mma(
                        asm, b, scale_tmem, form, scale_buffers, scale_column, where, mma, thread0
                    )
                    continue
                asm.instr(
                    f"tcgen05.mma.cta_group::1.kind::{kind}",
                    ptx.address(d),
                    a_in,
                    b_in,
                    descriptor,
                    enable,
                    guard=thread0,
                )
    isa = MXF4NVF4_PTX_ISA if form is not None and form.kind == "mxf4nvf4" else TCGEN05_PTX_ISA
    if agent:
        # The stage's `consumer_release` commits them (`tcgen05_agents.py`).
        b.asm(asm, min_ptx_isa=isa)
        carried = [b.const(0, accumulator.register_type)] * len(acc_vals)
        rewriter.replace(op, [], [ctx.pack(rewriter, carried, op.result.type)])
        return
    commit(asm, bar, thread0)
    b.asm(asm, min_ptx_isa=isa)

    # What the loop carries for a resident accumulator: the initial registers, or (where
    # tensor memory holds the accumulation from before the loop on) a zero that nothing
    # reads, so that ptxas keeps no register live across the loop for it (the initial
    # registers, passed back to themselves, would stay live through the loop).
    carried = list(acc_vals)
    if stored:
        carried = [b.const(0, accumulator.register_type)] * len(acc_vals)
    if committed is not None:
        # -- the MMAs stay in flight: no thread waits for them here, and nothing
        # rewrites what they read (their slots, or their buffers in turn) or write (the
        # resident accumulator) before waiting for their commit (`_wait_slot`).
        _mark_committed(b, *committed)
        if flag is not None:
            _store_word(b, flag, 1)
        rewriter.replace(op, [], [ctx.pack(rewriter, carried, op.result.type)])
        return
    # -- every thread waits for the commit's phase, then reads its lane quarter (a
    # resident accumulator stays where it is, and the loop carries its registers on).
    _wait_phase(b, memory)
    if resident:
        if flag is not None:
            _store_word(b, flag, 1)
        result = carried
    elif result_blocks is not None and result_layout != tmem_layout:
        part = _fragment_part(b, memory, state, result_layout, result_blocks, base_column)
        result = _read_part(b, part, accumulator.register_type)
    else:
        part = _lane_quarter_part(memory, state, runs, group)
        result = _read_part(b, part, accumulator.register_type)
    # Every warp is done with the operand buffers (the commit's phase covers the
    # MMAs' reads) and with tensor memory before anything rewrites either.
    end = ptx.PtxAsm()
    _thread_sync(end)
    b.asm(end, min_ptx_isa=TCGEN05_PTX_ISA)
    if result_layout != tmem_layout and result_blocks is None and not resident:
        assert smem_c is not None
        ex.write(b, rewriter, state, result, tmem_layout, c_strides, smem_c, accumulator)
        b.op(nvvm.Barrier0Op())
        result = ex.read(b, rewriter, state, result_layout, c_strides, smem_c, accumulator)
        b.op(nvvm.Barrier0Op())
    rewriter.replace(op, [], [ctx.pack(rewriter, result, op.result.type)])


def copied_scale_slots(
    op: tas.DotOp,
    b: LLBuilder,
    feeds: AsyncFeeds | None,
    memory: TensorMemory,
    buffers: Sequence[ScaleFactorBuffer],
    sets: int,
    column: int,
) -> tuple[list[SSAValue], SSAValue, int]:
    """The MMA warp's block-scaled `op` (`COPIED_SCALES_ATTR`): the slots of A's and
    B's raw scale tiles in the stage it read (rings 2 and 3 of its pipeline,
    `agents.Agents._scale_ring`), which hold the bytes `tcgen05.cp` copies, and the
    tensor-memory address of scale set `s` (`column + s * (A's + B's columns)`), `s`
    that stage, with 0 as the column to copy to relative to it.  Set `s` is free: its
    last reader, the MMAs of iteration `i - S`, completed before the MMA warp's commit
    of that iteration arrived on stage `s`'s *empty* mbarrier (PTX ISA 9.7.16.6.3), which
    the producer waited for before refilling the stage that this iteration waited for
    as full; the copies then need no wait before the MMAs (9.7.16.6.2)."""
    rings = [feeds.by_dot.get((id(op), i)) if feeds is not None else None for i in (2, 3)]
    if feeds is None or not all(r is not None and r.stages and r.current for r in rings):
        raise not_supported(op, "copied scales outside the stages of an MMA warp's pipeline")
    ring_a, ring_b = rings
    assert ring_a is not None and ring_b is not None
    assert ring_a.current is not None and ring_b.current is not None
    if ring_a.stages != sets:
        raise not_supported(op, f"{sets} scale sets over a pipeline of {ring_a.stages} stages")
    for ring, buf in zip(rings, buffers, strict=True):
        assert ring is not None
        if feeds.ring_placement(ring).operand_bytes(ring.index) < buf.bytes:
            raise not_supported(op, "a scale slot smaller than the factors it holds")
    size = feeds.ring_placement(ring_a).operand_bytes(ring_a.index)
    stage = ring_a.slot_number(b, ring_a.current, size)
    width = sum(buf.columns for buf in buffers)
    tmem = b.add(memory.base, b.add(b.const(column, i32), b.mul(stage, b.const(width, i32))))
    return [ring_a.current, ring_b.current], tmem, 0


def _scale_set(
    b: LLBuilder,
    state: FunctionState,
    rewriter: PatternRewriter,
    memory: TensorMemory,
    buffers: Sequence[ScaleFactorBuffer],
    sets: tuple[int, int | None, int],
    number: SSAValue,
) -> tuple[list[SSAValue], SSAValue, int]:
    """Set `number` of the `sets[0]` sets of scale factors of a block-scaled dot whose
    MMAs stay in flight (`TMEM_SCALE_SETS_ATTR`), in the loop `sets[1]` (the rings'
    scope), from column `sets[2]`: the staging buffers of A's and B's scales (every
    set's live while the loop runs, beside its rings, `set * (A's + B's bytes)` on), and
    the tensor-memory address of the set's first column (`column + set * (A's + B's
    columns)`), with 0 as the column to copy to relative to it."""
    count, scope, column = sets
    size = sum(buf.bytes for buf in buffers)
    key = (scope, _SCALE_SETS, count * size)  # shared with the dot's copies around the loop
    if key not in memory.turns:
        memory.turns[key] = allocate_persistent(state, rewriter, count * size, scope)
    first = b.add(memory.turns[key], b.mul(number, b.const(size, i32)))
    smem = [first, b.add(first, b.const(buffers[0].bytes, i32))]
    width = sum(buf.columns for buf in buffers)
    tmem = b.add(memory.base, b.add(b.const(column, i32), b.mul(number, b.const(width, i32))))
    return smem, tmem, 0


#: `TensorMemory.turns`' operand index of a block-scaled dot's scale sets (0, 1: A, B).
_SCALE_SETS = 2


def _turn_link(op: tas.DotOp) -> tuple[int, int] | None:
    """`op`'s place in its chain and the chain's links where its operands take two
    buffers in turn (`TURN_BY_DOT_ATTR` on a resident accumulator whose MMAs are not
    otherwise in flight, outside an MMA agent); else None: the dot waits for its own
    commit."""
    link = turn_by_dot(op)
    if (
        link is None
        or TMEM_RESIDENT_ATTR not in op.attributes
        or TMEM_IN_FLIGHT_ATTR in op.attributes
        or MMA_AGENT_ATTR in op.attributes
    ):
        return None
    if link[1] % 2:
        raise not_supported(op, "tcgen05 buffers in turn over an odd chain")
    return link


def _turn_buffers(
    op: tas.DotOp,
    state: FunctionState,
    b: LLBuilder,
    rewriter: PatternRewriter,
    memory: TensorMemory,
    feeds: AsyncFeeds | None,
    buffers: Sequence[wgmma.OperandBuffer],
    turning: Sequence[int],
    link: tuple[int, int],
    smem: list[SSAValue | None],
) -> tuple[SlotBarriers, SSAValue]:
    """For link `j` of a chain whose links take two buffers in turn (`_turn_link`): each
    operand in `turning` goes to its buffer `j mod 2` of two (into `smem`), which live
    while the loop runs, beside its rings, and which every link shares; and the
    mbarrier of that buffer (`SlotBarriers` of two slots at the accumulator's column,
    which the read after the loop drains) with the slot number `j mod 2`."""
    place = link[0] % 2
    scope = feeds.loop_of.get(id(op)) if feeds is not None else None
    for index in turning:
        size = buffers[index].bytes
        key = (scope, index, size)
        if key not in memory.turns:
            memory.turns[key] = allocate_persistent(
                state, rewriter, 2 * size, scope, buffers[index].align
            )
        smem[index] = b.add(memory.turns[key], b.const(place * size, i32))
    barriers = slot_barriers(state, rewriter, memory, _column_of(op), 2)
    return barriers, b.const(place, i32)


def _a_column(op: Operation) -> int | None:
    """The first tensor-memory column of the dot `op`'s A (`nv_tileas.tmem_a_column`)."""
    attr = op.attributes.get(TMEM_A_COLUMN_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _a_part(
    b: LLBuilder,
    memory: TensorMemory,
    state: FunctionState,
    layout: LinearLayout,
    values: Sequence[SSAValue],
    column: int,
) -> tuple[list[SSAValue], _Part]:
    """A 128-row 16-bit A (`tcgen05_plan.a_in_tmem_obstacle`: row `32 (w % 4) + lane` a
    thread, register bit 0 the next column) as the words `tcgen05.st.32x32b` writes to
    data-path layout D (PTX ISA 9.7.16.10.5): elements `2c, 2c + 1` of a row packed in
    column `column + c`, the even one in the low half.  Returns the packed words in
    access order and this thread's part: runs of consecutive columns, each one access of
    a power of two of at most `MAX_COLUMNS_PER_ACCESS` columns."""
    assert state.warp is not None
    by_column: dict[int, SSAValue] = {}
    for r in range(0, len(values), 2):
        _, c = layout.register_coord(r)
        by_column[c // 2] = b.pack_halves(values[r], values[r + 1])
    origin = _tmem_address(b, memory, state, column)
    for j, (_, c) in enumerate(layout.warps[2:]):
        if c:
            bit = b.and_(b.lshr(state.warp, b.const(2 + j, i32)), b.const(1, i32))
            origin = b.add(origin, b.mul(bit, b.const(c // 2, i32)))
    columns = sorted(by_column)
    words = [by_column[c] for c in columns]
    accesses = [
        _Access(i, count, columns[i], f"32x32b.x{count}")
        for i, count in power_of_two_runs(columns, 1, MAX_COLUMNS_PER_ACCESS)
    ]
    return words, _Part(accesses, lambda b, offset: b.add(origin, b.const(offset, i32)))


def _column_of(op: Operation) -> int:
    """The first tensor-memory column `tileas-tmem-accumulators` gave `op` (0 without)."""
    attr = op.attributes.get(TMEM_COLUMN_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else 0


def _flag(
    state: FunctionState, rewriter: PatternRewriter, memory: TensorMemory, column: int
) -> SSAValue:
    """This thread's word saying whether the resident accumulator at `column` holds an
    accumulation (a shared word per thread, cleared in the kernel's prologue)."""
    known = memory.flags.get(column)
    if known is not None:
        return known
    threads = cta_threads(state)
    area = allocate_persistent(state, rewriter, 4 * threads)
    p = state.prologue_builder(rewriter)
    assert state.lane is not None and state.warp is not None
    thread = p.add(p.shl(state.warp, p.const(5, i32)), state.lane)
    word = p.add(area, p.shl(thread, p.const(2, i32)))
    _store_word(p, word, 0)
    memory.flags[column] = word
    return word


def _load_word(b: LLBuilder, address: SSAValue) -> SSAValue:
    asm = ptx.PtxAsm()
    out = asm.output(i32)
    asm.instr("ld.shared.b32", out, ptx.address(asm.input(address)))
    (value,) = b.asm(asm)
    return value


def _store_word(b: LLBuilder, address: SSAValue, value: int) -> None:
    asm = ptx.PtxAsm()
    asm.instr("st.shared.b32", ptx.address(asm.input(address)), str(value))
    b.asm(asm)


def _tmem_vector(items: Sequence[str]) -> str:
    """The registers of a `tcgen05.ld`/`st`: always a vector expression in braces, one
    register included (PTX ISA 9.7.16.8.3, "tcgen05.ld": `r` is a vector expression of
    `.num` registers; ptxas rejects a bare register for `.x1`)."""
    return "{" + ", ".join(items) + "}"


@dataclass(frozen=True)
class _Access:
    """One `tcgen05.ld`/`st` of a thread's part of an accumulator: registers `first ..
    first + count`, at `column` from the part's origin, `tcgen05.{ld,st}.sync.aligned.
    {shape}.b32`."""

    first: int
    count: int
    column: int
    shape: str


@dataclass
class _Part:
    """This thread's part of an accumulator in tensor memory: its accesses, in register
    order, and the address of a column offset (`at`)."""

    accesses: list[_Access]
    at: Callable[[LLBuilder, int], SSAValue]

    @property
    def first(self) -> int:
        """The register the part's values start at (a slice's registers are its own)."""
        return self.accesses[0].first if self.accesses else 0

    def slices(self, columns: int) -> list[_Part]:
        """Single accesses of at most `columns` columns each, in register order (the
        scaling of `lower_scale_tmem_accumulator`)."""
        out: list[_Part] = []
        for a in self.accesses:
            if a.shape.startswith("32x32b"):
                for j in range(0, a.count, columns):
                    w = min(columns, a.count - j)
                    out.append(
                        _Part([_Access(a.first + j, w, a.column + j, f"32x32b.x{w}")], self.at)
                    )
            else:  # .16x256b: 8 columns and FRAGMENT_REGISTERS registers a block
                blocks = a.count // FRAGMENT_REGISTERS
                per = max(1, columns // 8)
                for j in range(0, blocks, per):
                    w = min(per, blocks - j)
                    first = a.first + FRAGMENT_REGISTERS * j
                    access = _Access(
                        first, FRAGMENT_REGISTERS * w, a.column + 8 * j, f"16x256b.x{w}"
                    )
                    out.append(_Part([access], self.at))
        return out


def _lane_quarter_part(
    memory: TensorMemory, state: FunctionState, runs: list[tuple[int, int, int]], group: SSAValue
) -> _Part:
    """The `.32x32b` accesses of `runs` (`_column_runs`): warp `w`'s lane quarter, the
    thread's columns from `group` on."""
    return _Part(
        [_Access(first, count, column, f"32x32b.x{count}") for first, column, count in runs],
        lambda b, column: b.add(_tmem_address(b, memory, state, column), group),
    )


def _fragment_part(
    b: LLBuilder,
    memory: TensorMemory,
    state: FunctionState,
    layout: LinearLayout,
    blocks: list[int],
    column: int,
) -> _Part:
    """The `.16x256b` accesses of a 64-row accumulator at `column` in a `fragment_blocks`
    layout (`blocks`): warp `w`'s 16 lanes `32 (w % 4) ..` (layout F's rows
    `16 (w % 4) ..`), the column of the warp bits above the lane quarter added."""
    assert state.warp is not None
    origin = _tmem_address(b, memory, state, column)
    for j, c in enumerate(fragment_warp_columns(layout)):
        if c:
            bit = b.and_(b.lshr(state.warp, b.const(2 + j, i32)), b.const(1, i32))
            origin = b.add(origin, b.mul(bit, b.const(c, i32)))
    return _Part(
        [
            _Access(first, FRAGMENT_REGISTERS * count, offset, f"16x256b.x{count}")
            for first, offset, count in fragment_accesses(blocks)
        ],
        lambda b, offset: b.add(origin, b.const(offset, i32)),
    )


def _read_part(
    b: LLBuilder,
    part: _Part,
    register_type: Attribute,
    keep: tuple[SSAValue, list[SSAValue]] | None = None,
) -> list[SSAValue]:
    """This thread's part of an accumulator in tensor memory (one `tcgen05.ld` per
    access, at most 32 registers, each followed by its own `tcgen05.wait::ld` in the same
    block, so that `llvm-sink-tmem-loads` can move each slice to its first use); with
    `keep = (started, values)`, the loads run only where `started` holds and `values`
    stand otherwise."""
    out: list[SSAValue] = []
    for access in part.accesses:
        first, count = access.first - part.first, access.count
        asm = ptx.PtxAsm()
        outs = [asm.output(register_type) for _ in range(count)]
        address = asm.input(part.at(b, access.column))
        guard = None
        if keep is not None:
            guard = asm.input(keep[0])
            for o, v in zip(outs, keep[1][first : first + count], strict=True):
                asm.instr("mov.b32", o, asm.input(v))
        asm.instr(
            f"tcgen05.ld.sync.aligned.{access.shape}.b32",
            _tmem_vector(outs),
            ptx.address(address),
            guard=guard,
        )
        asm.instr("tcgen05.wait::ld.sync.aligned")
        out += b.asm(asm, min_ptx_isa=TCGEN05_PTX_ISA)
    return out


def _write_part(
    b: LLBuilder, part: _Part, values: Sequence[SSAValue], unless: SSAValue | None = None
) -> None:
    """This thread's part of an accumulator into tensor memory (one `tcgen05.st` per
    access, then `tcgen05.wait::st`; `values` are its registers from `part.first` on);
    with `unless`, only where `unless` does not hold."""
    for access in part.accesses:
        asm = ptx.PtxAsm()
        address = asm.input(part.at(b, access.column))
        first = access.first - part.first
        words = [asm.input(v) for v in values[first : first + access.count]]
        guard = asm.input(unless) if unless is not None else None
        asm.instr(
            f"tcgen05.st.sync.aligned.{access.shape}.b32",
            ptx.address(address),
            _tmem_vector(words),
            guard=guard,
            negate=True,
        )
        b.asm(asm, min_ptx_isa=TCGEN05_PTX_ISA)
    wait = ptx.PtxAsm()
    wait.instr("tcgen05.wait::st.sync.aligned")
    b.asm(wait, min_ptx_isa=TCGEN05_PTX_ISA)


def lower_read_tmem_accumulator(
    op: ReadTmemAccumulatorOp, rewriter: PatternRewriter, ctx: LoweringContext
) -> None:
    """`nv_tileas.read_tmem_accumulator`: the resident accumulator at `column` from
    tensor memory where the loop ran (this thread's flag is set), the registers the
    loop carried where it did not; the flag is cleared for the loop's next run."""
    t = op.result.type
    assert isinstance(t, TensorType)
    m, n = t.get_shape()
    state = ctx.function_state(op)
    layout = linear_layout(op, t)
    run = accumulator_run(t, state.num_warps)
    blocks = fragment_blocks(layout, (m, n))
    expected = tcgen05_accumulator_layout((m, n), state.num_warps, run).linear((m, n))
    if layout != expected and blocks is None:
        raise not_supported(op, "a tensor-memory accumulator read into another layout")
    column = op.column.value.data
    memory = tensor_memory(state, rewriter)
    b = LLBuilder(rewriter, InsertPoint.before(op))
    carried = ctx.registers_of(op, op.loop_result)
    barriers = memory.in_flight.get(column)
    if barriers is not None:
        # The loop's MMAs are still in flight: wait for every commit not waited for
        # yet (the last iteration's), which also frees the ring for the next run.
        for j in range(barriers.slots):
            _wait_slot(b, barriers, b.const(j, i32), drain=True)
        fence = ptx.PtxAsm()
        fence.instr("tcgen05.fence::after_thread_sync")
        b.asm(fence, min_ptx_isa=TCGEN05_PTX_ISA)
    if blocks is not None:
        part = _fragment_part(b, memory, state, layout, blocks, column)
    else:
        runs = _column_runs((m, n), state.num_warps, run)
        c0 = _thread_column(b, state, (m, n), state.num_warps, run)
        part = _lane_quarter_part(memory, state, runs, b.add(c0, b.const(column, i32)))
    register_type = element_kind(op, t).register_type
    if TMEM_STORED_ATTR in op.attributes:
        # Tensor memory holds it whether the loop ran or not.
        values = _read_part(b, part, register_type)
    else:
        flag = _flag(state, rewriter, memory, column)
        started = b.icmp("ne", _load_word(b, flag), b.const(0, i32))
        values = _read_part(b, part, register_type, keep=(started, list(carried)))
        _store_word(b, flag, 0)
    rewriter.replace(op, [], [ctx.pack(rewriter, values, t)])


def _accumulator_place(
    op: Operation,
    t: Attribute,
    column: int,
    b: LLBuilder,
    ctx: LoweringContext,
    rewriter: PatternRewriter,
) -> tuple[TensorMemory, _Part]:
    """For an op on the `m x n` accumulator of type `t` at `column`, laid out as
    `tcgen05.ld` reads it (`.32x32b` runs, or a 64-row one's `.16x256b` fragments): the
    kernel's tensor memory (sized to include it) and this thread's part."""
    assert isinstance(t, TensorType)
    m, n = t.get_shape()
    state = ctx.function_state(op)
    run = accumulator_run(t, state.num_warps)
    expected = tcgen05_accumulator_layout((m, n), state.num_warps, run)
    layout = linear_layout(op, t)
    blocks = fragment_blocks(layout, (m, n))
    if layout != expected.linear((m, n)) and blocks is None:
        raise not_supported(op, "a tensor-memory accumulator in another layout")
    memory = tensor_memory(state, rewriter)
    memory.needed = max(memory.needed, column + tmem_columns((m, n)))
    if blocks is not None:
        return memory, _fragment_part(b, memory, state, layout, blocks, column)
    runs = _column_runs((m, n), state.num_warps, run)
    group = b.add(_thread_column(b, state, (m, n), state.num_warps, run), b.const(column, i32))
    return memory, _lane_quarter_part(memory, state, runs, group)


def lower_write_tmem_accumulator(
    op: WriteTmemAccumulatorOp, rewriter: PatternRewriter, ctx: LoweringContext
) -> None:
    """`nv_tileas.write_tmem_accumulator`: the initial value into tensor memory."""
    b = LLBuilder(rewriter, InsertPoint.before(op))
    column = op.column.value.data
    _, part = _accumulator_place(op, op.value.type, column, b, ctx, rewriter)
    _write_part(b, part, ctx.registers_of(op, op.value))
    rewriter.erase(op)


def lower_scale_tmem_accumulator(
    op: ScaleTmemAccumulatorOp, rewriter: PatternRewriter, ctx: LoweringContext
) -> None:
    """`nv_tileas.scale_tmem_accumulator`: per slice of columns, `tcgen05.ld` (with its
    wait), each value times its row's factor (`mul.rn.f32`: the `M x 1` factor tensor
    has the accumulator's layout, so its lanes and warps hold the same rows, and each
    register of the accumulator takes the factor's register of the same row,
    `_row_factors`), `tcgen05.st`; then `tcgen05.wait::st`.  The dot after it orders
    the stores before its MMAs (`tcgen05.fence` around a CTA barrier)."""
    b = LLBuilder(rewriter, InsertPoint.before(op))
    column = op.column.value.data
    t = op.accumulator.type
    _, part = _accumulator_place(op, t, column, b, ctx, rewriter)
    assert isinstance(t, TensorType)
    if element_kind(op, t).register_type != f32:
        raise not_supported(op, "scaling a tensor-memory accumulator that is not f32")
    factors = _row_factors(op, t, ctx.registers_of(op, op.factor))
    if factors is None:
        raise not_supported(op, "a row factor in another layout than its accumulator")
    for piece in part.slices(SCALE_COLUMNS):
        first = piece.accesses[0].first
        loaded = _read_part(b, piece, f32)
        scaled = [b.fmul(v, factors[first + k]) for k, v in enumerate(loaded)]
        _write_part(b, piece, scaled)
    rewriter.erase(op)


def _row_factors(
    op: ScaleTmemAccumulatorOp, t: TensorType, registers: Sequence[SSAValue]
) -> list[SSAValue] | None:
    """For each register of the accumulator of type `t`, the register of `op`'s `M x 1`
    factor in the same row; None where the factor's lanes and warps do not hold the
    accumulator's rows or a row has no register."""
    acc = linear_layout(op, t)
    factor_t = op.factor.type
    assert isinstance(factor_t, TensorType)
    factor = linear_layout(op, factor_t)
    for mine, theirs in ((acc.lanes, factor.lanes), (acc.warps, factor.warps)):
        if [c[0] for c in mine] != [c[0] for c in theirs]:
            return None
    by_row = {factor.register_coord(q)[0]: v for q, v in enumerate(registers)}
    rows = [acc.register_coord(r)[0] for r in range(acc.num_registers)]
    if any(row not in by_row for row in rows):
        return None
    return [by_row[row] for row in rows]


def _offset(b: LLBuilder, desc: SSAValue, offset: int) -> SSAValue:
    """A descriptor `offset` bytes further (the start address counts 16-byte units)."""
    return b.add(desc, b.const(offset >> 4, i64)) if offset else desc


def _wait_phase(b: LLBuilder, memory: TensorMemory) -> None:
    """Wait for the mbarrier phase whose parity is in this thread's phase word, flip
    the word, and fence (`tcgen05.fence::after_thread_sync`) before reading D."""
    asm = ptx.PtxAsm()
    bar, word = asm.input(memory.mbarrier), asm.input(memory.phase)
    (parity,) = asm.register("b32", "%tc_parity")
    (done,) = asm.register("pred", "%tc_done")
    asm.instr("ld.shared.b32", parity, ptx.address(word))
    asm.label("$L_tc_wait")
    asm.instr("mbarrier.try_wait.parity.shared::cta.b64", done, ptx.address(bar), parity)
    asm.instr("bra.uni", "$L_tc_wait", guard=done, negate=True)
    asm.instr("xor.b32", parity, parity, "1")
    asm.instr("st.shared.b32", ptx.address(word), parity)
    asm.instr("tcgen05.fence::after_thread_sync")
    b.asm(asm, min_ptx_isa=TCGEN05_PTX_ISA)


__all__ = [
    "ScaleRegisters",
    "TensorMemory",
    "finalize_tensor_memory",
    "instruction_descriptor",
    "lower_scale_tmem_accumulator",
    "lower_tcgen05_dot",
    "lower_write_tmem_accumulator",
    "smem_descriptor",
    "tensor_memory",
    "write_scale_factors",
]
