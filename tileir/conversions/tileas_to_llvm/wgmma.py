"""Hopper's warpgroup MMA (`wgmma.mma_async`) for `nv_tileas.dot` on sm_90a.

An `nv_tileas.dot` with a `wgmma_m64n{N}k{K}_...` atom runs on `wgmma` instead of
`mma.sync` (`mma.py`).  `tileas-select-dot-atoms` gives that atom (on sm_90a) to a
rank-2 tensor-core dot whose accumulator's warp grid has whole warpgroups along M
(`#nv_tileas.mma<{warpsPerCTA = [W, V]}>` with W a multiple of 4, M a multiple of
16·W and N of 8·V; `transforms/tileas/dot_plan.py`), with N the columns of one
warpgroup (at most 256).
The accumulator layout is the same for both: warp `w` of the CTA holds rows
`16(w % W) ..` of each 16·W-row slab, and within a warp the `m16n8` fragment
repeats along N over the warp's 8-column blocks, which is exactly how a warpgroup's
four warps hold the `m64nN` accumulator of one `wgmma` (N: the warpgroup's columns,
blocks `j, j + V, ...` for N position `j`, which B's descriptor reaches with a
stride of V row groups).  So a loop-carried accumulator needs no conversion, and
the choice between the two instructions is only the atom's.

Each chain is waited for before the dot ends, except where
`tileas-pipeline-dot-operands` left the dot's groups in flight (`wgmma_dot`'s
`in_flight`; docs/codegen.md, "`wgmma` groups in flight"); TMA feeds and warp
specialization are later work:

* Both operands come from shared memory through *matrix descriptors*, in the
  ISA's canonical layouts (`OperandBuffer`): without a swizzle, *core matrices* of 8
  lines of 16 bytes, each 128 contiguous bytes; the descriptor's leading-dimension
  byte offset (LBO) steps between core matrices along K, the stride-dimension byte
  offset (SBO) along M or N.
  - A (`M x K`, K contiguous in global memory) is K-major: a line holds 16 bytes of
    K of one row (`(r % 8)·16 + (k % T)·s + (k / T)·LBO + (r / 8)·SBO`, `s` the
    element size, `T = 16 / s`), so a thread's run of K elements is one vector store.
  - B (`K x N`, N contiguous) is MN-major for 16-bit types (`imm-trans-b` 1): a line
    holds 8 N elements of one K (`(n % 8)·s + (k % 8)·16 + (k / 8)·LBO +
    (n / 8)·SBO`), again one vector store per run of N.  A 16-bit B whose threads hold
    runs along K (a tile loaded K-contiguous: attention's K read with `order=`) is
    K-major instead, like A (`b_mn_major`).  8-bit types and tf32 have no transpose
    flag: their B is K-major, written transposed (N x K) an element at a time unless
    it was loaded K-contiguous.
  - The core matrices adjacent along the dimension they are adjacent in are padded
    apart (0-112 bytes, the least that minimizes the bank conflicts of the writes),
    as the 16-byte lines of a warp's stores otherwise fall into the same banks; or a
    K-major buffer is swizzled W = 128, 64 or 32 bytes wide (`choose_layout`: where K
    fills the W-byte lines and the writes conflict no more than padded): a line is W
    bytes of K of one row, 8 lines an atom of 8W bytes (SBO 8W, LBO unused), the
    atoms of a W-byte column of K one below the other, and each line's 16-byte chunks
    XORed with its row (`core_matrices.swizzled`); the descriptor's mode (bits 62-63,
    `SWIZZLE_MODE`) says W, a K step starts inside the first line of an atom, and
    the buffer starts at an atom (`shared_arena`).
  The writes are expressed by a `(K/c, c, R/8, 8)` view of each operand's layout
  with byte strides (`OperandBuffer.view`; `c` the K of a line) and the swizzle,
  which the writer applies (`exchange.ThreadBase`).  Warpgroup `g` reads rows `64g ..`
  of A: its descriptor starts `8g` row groups in.
* The generic-proxy `st.shared` writes of the dot's own operands are made visible to
  `wgmma` (the async proxy) with `fence.proxy.async.shared::cta` before the CTA
  barrier; ring slots need none of the reader's (`agents.LowerConsumer`).
* Per 64 x N block (N the atom's) one chain of typed nvvm ops, as upstream MLIR's
  NVGPU-to-NVVM lowering writes it: the accumulator words into a struct
  (`llvm.insertvalue`), `nvvm.wgmma.fence.aligned`, one `nvvm.wgmma.mma_async` per K
  step (16 halves, 32 bytes or 8 tf32) taking the previous step's struct,
  `nvvm.wgmma.commit.group.sync.aligned` and `nvvm.wgmma.wait.group.sync.aligned 0`,
  then the words back out (`llvm.extractvalue`): nothing else touches the accumulator
  registers while the instructions are in flight (the `ptx` target keeps the chain in
  one set of registers, `emit_wgmma_mma_async`).

Types: f16 and bf16 with an f32 accumulator, f16 with an f16 accumulator
(`m64nNk16`); tf32 with an f32 accumulator (`m64nNk8`, both operands K-major, scale
immediates only); s8/u8 with an s32 accumulator and f8E4M3FN/f8E5M2 (`e4m3`/`e5m2`,
any pair) with an f32 or f16 accumulator (`m64nNk32`).  Everything else, and any
dot whose warps do not form whole warpgroups along M, keeps `mma.sync`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, UnitAttr, i32, i64
from xdsl.ir import Attribute, SSAValue

from tileir.backend.ptx.instructions import IN_PLACE_ATTR
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import FunctionState
from tileir.dialects import nvvm
from tileir.dialects.nv_tileas.core_matrices import (
    OperandBuffer,
    b_mn_major,
    padded_operand_buffers,
)
from tileir.dialects.nv_tileas.layouts import LinearLayout
from tileir.dialects.nv_tileas.mma_spec import WARPGROUP, WARPGROUP_ROWS, MmaSpec

#: Packs accumulator elements into instruction words (f16 pairs) or back.
Packer = Callable[[list[SSAValue]], list[SSAValue]]


def operand_buffers(
    mnk: tuple[int, int, int],
    size: int,
    layouts: tuple[LinearLayout, LinearLayout],
    limit: int,
    b_swizzle: int = 0,
) -> tuple[OperandBuffer, OperandBuffer]:
    """A's (K-major) and B's (MN-major for 16-bit elements, `b_mn_major`) buffers:
    padded against bank conflicts (or swizzled) when both fit in `limit` bytes, dense
    otherwise (a swizzled buffer already is, and stays swizzled).  `b_swizzle`: B is
    MN-major and swizzled that wide (a TMA box writes it, `core_matrices.b_mn_swizzle`)."""
    m, n, k = mnk
    mn_major = b_mn_major(size, layouts[1])
    a, b = padded_operand_buffers(mnk, size, layouts)
    if b_swizzle:
        b = OperandBuffer(n, k, size, True, swizzle=b_swizzle)
    if a.bytes + b.bytes > limit:
        a = a if a.swizzle else OperandBuffer(m, k, size, False)
        b = b if b.swizzle else OperandBuffer(n, k, size, mn_major)
    return a, b


#: The descriptor's swizzle mode (bits 62-63) per swizzle width (PTX ISA, "Matrix
#: Descriptor Format"); sm_100's bits 61-63 read the same bits as 2, 4 and 6.
SWIZZLE_MODE = {0: 0, 128: 1, 64: 2, 32: 3}


def descriptor(p: LLBuilder, smem: SSAValue, lbo: int, sbo: int, swizzle: int = 0) -> SSAValue:
    """The 64-bit matrix descriptor of the buffer at `smem` (a `.shared` address):
    start address >> 4 in bits 0-13, LBO >> 4 in bits 16-29, SBO >> 4 in bits 32-45,
    the `swizzle` width's mode in bits 62-63 (`SWIZZLE_MODE`), base offset 0 (a
    swizzled buffer starts at an atom, `OperandBuffer.align`)."""
    start = p.and_(p.lshr(smem, p.const(4, i32)), p.const(0x3FFF, i32))
    fixed = (SWIZZLE_MODE[swizzle] << 62) | ((sbo >> 4) << 32) | ((lbo >> 4) << 16)
    if fixed >= 1 << 63:
        fixed -= 1 << 64  # the i64 constant's two's complement
    return p.or_(p.zext(start, i64), p.const(fixed, i64))


#: The rows and K columns (within 16 of K) of a thread's 8 A elements of one K step,
#: relative to its first (lane 0 of warp 0 holds rows 0 and 8): pairs along K, then
#: 8 rows down, then 8 columns on (PTX ISA, wgmma's register fragment of A, as
#: `mma.sync`'s m16n8k16 A fragment gives a warp its 16 rows).
A_FRAGMENT = ((0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9))

#: What A is in registers: per 64-row block of a warpgroup (the slab index) and K
#: step, the 4 words of the thread's fragment.
RegisterA = Callable[[int, int], list[SSAValue]]


def register_a(
    b: LLBuilder, values: Sequence[SSAValue], layout: LinearLayout, k_step: int, slab: int
) -> RegisterA:
    """A's fragment words (16-bit pairs) for `wgmma_dot`, from A's registers in
    `layout` (`dot_plan.a_is_wgmma_fragment` checked it is the fragment's): the
    thread's elements of slab `mr` (rows `mr * slab ..`) and K step `ks` are its
    registers at A_FRAGMENT's offsets, packed two to a word as they are issued."""
    where = {layout.register_coord(r): r for r in range(layout.num_registers)}

    def words(mr: int, ks: int) -> list[SSAValue]:
        regs = [where[(mr * slab + dr, ks * k_step + dk)] for dr, dk in A_FRAGMENT]
        return [b.pack_halves(values[regs[i]], values[regs[i + 1]]) for i in range(0, 8, 2)]

    return words


def operand_descriptors(
    p: LLBuilder,
    state: FunctionState,
    smem: tuple[SSAValue, SSAValue],
    buffers: tuple[OperandBuffer, OperandBuffer],
    grid: tuple[int, int],
) -> tuple[SSAValue, SSAValue]:
    """The descriptors of this thread's warpgroup's rows of A and columns of B.

    The warps of a `wm x wn` grid (`#nv_tileas.mma`) hold rows along M first: warp
    `w`'s M position is `w % wm`, so warpgroup `g` is at M position `g % (wm/4)` (64
    rows each) and N position `g / (wm/4)`.  Along N the grid interleaves 8-column
    blocks: warpgroup `j` of `wn` holds blocks `j, j + wn, j + 2wn, ...` of the tile,
    which is B's 8-row core-matrix groups `j, j + wn, ...`: its descriptor starts `j`
    groups in and steps `wn` groups (`wn` times B's SBO).  A swizzled MN-major B (which
    TMA boxes write, `tileas-tma-feeds`) holds warpgroup `j`'s blocks contiguously
    instead, its slice `j` slices in (`warpgroup_slices`)."""
    assert state.warp is not None
    smem_a, smem_b = smem
    a, b = buffers
    wm, wn = grid
    group = p.lshr(state.warp, p.const(2, i32))
    groups_m = wm // WARPGROUP
    gm = p.and_(group, p.const(groups_m - 1, i32))
    a_start = p.add(smem_a, p.mul(gm, p.const(a.row_offset(WARPGROUP_ROWS), i32)))
    b_start = smem_b
    sliced = warpgroup_slices(b, wn)
    if wn > 1:
        gn = p.lshr(group, p.const(groups_m.bit_length() - 1, i32))
        step = b.bytes // wn if sliced else b.row_offset(8)
        b_start = p.add(smem_b, p.mul(gn, p.const(step, i32)))
    return (
        descriptor(p, a_start, a.lbo, a.sbo, a.swizzle),
        descriptor(p, b_start, b.lbo, b.sbo if sliced else wn * b.sbo, b.swizzle),
    )


def warpgroup_slices(b: OperandBuffer, wn: int) -> bool:
    """Whether B's buffer holds each of `wn` warpgroups' 8-column blocks contiguously, a
    `[K, N / wn]` slice each: a swizzled MN-major one (TMA boxes of a rank-4 map write
    it so, `tileas-tma-feeds`; no other B is laid out so)."""
    return wn > 1 and b.mn_major and bool(b.swizzle)


def _offset(b: LLBuilder, desc: SSAValue, offset: int) -> SSAValue:
    """A descriptor `offset` bytes further: its start-address field counts 16-byte
    units (a CTA's buffers stay within the field's 256 KiB)."""
    return b.add(desc, b.const(offset >> 4, i64)) if offset else desc


def wgmma_dot(
    b: LLBuilder,
    spec: MmaSpec,
    chunk: int,
    c: list[SSAValue],
    descriptors: tuple[SSAValue, SSAValue],
    buffers: tuple[OperandBuffer, OperandBuffer],
    mn: tuple[int, int],
    grid: tuple[int, int],
    word_type: Attribute,
    packing: tuple[Packer, Packer],
    in_flight: int = 0,
    a_registers: RegisterA | None = None,
    in_place: bool = True,
    commit: bool = True,
) -> None:
    """`c += a · b` on `wgmma`, updating the accumulator registers `c` (in the MMA
    layout) in place: one chain per 64-row slab and `chunk` (the atom's N) of the
    warpgroup's columns, each waited for; or, with `in_flight` groups left in flight,
    all chains committed as one group and only the groups older than the last
    `in_flight` waited for (docs/codegen.md, "`wgmma` groups in flight"); those
    chains accumulate in the accumulator's own registers unless not `in_place` (an
    accumulator that is not loop-carried: attention's products overlapped across
    iterations, `overlap_attention_dots.py`, copy it first).  With
    `a_registers`, A comes from the thread's registers (`register_a`), not through
    its descriptor.  Not `commit`: the chains are left uncommitted, for a later dot
    on the same accumulator to commit with its own."""
    m, n = mn
    a_buf, b_buf = buffers
    wm, wn = grid
    desc_a, desc_b = descriptors
    pack, unpack = packing
    columns = n // wn  # this warpgroup's: 8-column blocks j, j + wn, ...
    k_steps = a_buf.k // spec.k_step
    slab = 16 * wm  # rows the CTA's warpgroups cover together
    # A is K-major ("row"); B is MN-major ("row", `imm-trans-b` 1) or K-major ("col").
    layouts = ("row", "row" if b_buf.mn_major else "col")
    for mr in range(m // slab):
        for c0 in range(0, columns, chunk):
            # Registers 4i..4i+3 hold the warp's i-th 8-column block of the slab.
            r = 4 * (c0 // 8 + (columns // 8) * mr)
            a_descs: list[SSAValue | list[SSAValue]] = [
                a_registers(mr, ks)
                if a_registers is not None
                else _offset(
                    b, desc_a, a_buf.row_offset(mr * slab) + a_buf.k_offset(ks * spec.k_step)
                )
                for ks in range(k_steps)
            ]
            b_descs = [
                _offset(
                    b,
                    desc_b,
                    b_buf.row_offset(c0 if warpgroup_slices(b_buf, wn) else c0 * wn)
                    + b_buf.k_offset(ks * spec.k_step),
                )
                for ks in range(k_steps)
            ]
            words = _chain(
                b,
                (64, chunk, spec.k_step),
                (spec.a, spec.b, spec.acc),
                layouts,
                pack(c[r : r + chunk // 2]),
                (a_descs, b_descs),
                word_type,
                in_flight > 0,
                in_place,
            )
            c[r : r + chunk // 2] = unpack(words)
    if in_flight and commit:
        b.op(nvvm.WgmmaGroupSyncAlignedOp())
        b.op(nvvm.WgmmaWaitGroupSyncOp(in_flight))


def _chain(
    b: LLBuilder,
    shape: tuple[int, int, int],
    types: tuple[str, str, str],
    layouts: tuple[str, str],
    acc: list[SSAValue],
    descs: tuple[Sequence[SSAValue | list[SSAValue]], Sequence[SSAValue]],
    word_type: Attribute,
    asynchronous: bool = False,
    in_place: bool = True,
) -> list[SSAValue]:
    """One chain: the accumulator words as a struct, `wgmma.fence`, one
    `wgmma.mma_async` per K step, commit and wait for the group; then its words.  The
    struct is built before the fence, so that the `ptx` target's moves into its
    registers precede it, and the K steps accumulate in those registers.  An A given
    as words (in registers) becomes one struct per K step, also before the fence: the
    fence orders the writes of the registers a `wgmma` reads (PTX ISA, wgmma.fence).

    An `asynchronous` chain is neither committed nor waited for here, and its struct
    takes the accumulator's own registers (`IN_PLACE_ATTR` on the inserts): the
    accumulator is carried by a loop, and the words the chain returns go back to the
    loop in the same registers, so no instruction touches them while the chain runs
    on (docs/codegen.md, "`wgmma` groups in flight")."""
    a_descs, b_descs = descs
    struct = llvm.LLVMStructType.from_type_list([word_type] * len(acc))
    d = b.v(llvm.UndefOp(struct))
    for i, word in enumerate(acc):
        insert = llvm.InsertValueOp(DenseArrayBase.from_list(i64, [i]), d, word)
        if asynchronous and in_place:
            insert.attributes[IN_PLACE_ATTR] = UnitAttr()
        d = b.v(insert)
    a_operands = [a if isinstance(a, SSAValue) else _words_struct(b, a) for a in a_descs]
    b.op(nvvm.WgmmaFenceAlignedOp())
    for a_operand, b_desc in zip(a_operands, b_descs, strict=True):
        d = b.v(nvvm.WgmmaMmaAsyncOp(a_operand, b_desc, d, shape, types, layouts))
    if not asynchronous:
        b.op(nvvm.WgmmaGroupSyncAlignedOp())
        b.op(nvvm.WgmmaWaitGroupSyncOp(0))
    return [b.extract(d, i, word_type) for i in range(len(acc))]


def _words_struct(b: LLBuilder, words: Sequence[SSAValue]) -> SSAValue:
    """A's words of one K step as the struct `nvvm.wgmma.mma_async` takes."""
    struct = llvm.LLVMStructType.from_type_list([i32] * len(words))
    value = b.v(llvm.UndefOp(struct))
    for i, word in enumerate(words):
        value = b.v(llvm.InsertValueOp(DenseArrayBase.from_list(i64, [i]), value, word))
    return value
