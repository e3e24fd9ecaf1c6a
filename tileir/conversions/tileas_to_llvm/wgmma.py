"""Hopper's warpgroup MMA (`wgmma.mma_async`) for `nv_tileaa.dot` on sm_90a.

On sm_90a a rank-2 tensor-core `dot` whose accumulator's warp grid has whole
warpgroups along M (`#nv_tileas.mma<{warpsPerCTA = [W, V]}>` with W a multiple of 4,
M a multiple of 16·W and N of 8·V) runs on `wgmma` instead of `mma.sync` (`mma.py`).
The accumulator layout is the same for both: warp `w` of the CTA holds rows
`16(w % W) ..` of each 16·W-row slab, and within a warp the `m16n8` fragment
repeats along N over the warp's 8-column blocks, which is exactly how a warpgroup's
four warps hold the `m64nN` accumulator of one `wgmma` (N: the warpgroup's columns,
blocks `j, j + V, ...` for N position `j`, which B's descriptor reaches with a
stride of V row groups).  So a loop-carried accumulator needs no conversion, and
the choice between the two instructions is made here, at the lowering, by target.

The form used is the synchronous one the issue allows (the asynchronous,
TMA-fed and warp-specialized form is later work):

* Both operands come from shared memory through *matrix descriptors*.  Each is
  written K-major (A as `M x K`, B transposed, `N x K`) in the no-swizzle canonical
  layout: *core matrices* of 8 rows by 16 bytes, each 128 contiguous bytes, those
  adjacent in K next to each other (the descriptor's leading-dimension byte offset,
  LBO = 128) and the 8-row groups one after another (stride-dimension byte offset,
  SBO = 8 · K · element bytes).  Row `r`, element `k` is at
  `(r % 8)·16 + (k % T)·s + (k / T)·LBO + (r / 8)·SBO` with `s` the element size and
  `T = 16 / s`: a linear function of the coordinate bits, which is how the writes
  are expressed (`core_matrix_view`).  K-major needs no transpose flag, which the
  8-bit types do not have.  Warpgroup `g` reads rows `64g ..` of A: its descriptor
  starts `8g` row groups in.
* The generic-proxy `st.shared` writes are made visible to `wgmma` (the async
  proxy) with `fence.proxy.async.shared::cta` before the CTA barrier.
* Per 64 x N block (N at most 256) one inline-asm block copies the accumulator into
  the output registers, issues `wgmma.fence`, one `wgmma.mma_async` per K step (16
  halves or 32 bytes), commits and waits for the group: nothing else touches the
  accumulator registers while the instructions are in flight.

Types: f16 and bf16 with an f32 accumulator, f16 with an f16 accumulator
(`m64nNk16`); s8/u8 with an s32 accumulator and f8E4M3FN/f8E5M2 (`e4m3`/`e5m2`, any
pair) with an f32 or f16 accumulator (`m64nNk32`).  Everything else, and any
dot whose warps do not form whole warpgroups along M, keeps `mma.sync`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from xdsl.dialects import llvm
from xdsl.dialects.builtin import StringAttr, i1, i32, i64
from xdsl.ir import Attribute, SSAValue

from tileir.backend.ptx.target import MIN_PTX_ISA_ATTR
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import FunctionState
from tileir.dialects.nv_tileas.layouts import Coord, LinearLayout

#: Packs accumulator elements into instruction words (f16 pairs) or back.
Packer = Callable[[list[SSAValue]], list[SSAValue]]

#: Warps of a warpgroup.
WARPGROUP = 4
#: Rows of A one warpgroup's `wgmma` covers.
WARPGROUP_ROWS = 64
#: The widest N one `wgmma` computes.
MAX_N = 256
#: Bytes of one core matrix (8 rows of 16 bytes).
CORE_MATRIX_BYTES = 128


def wgmma_applies(arch: str, integer: bool, m: int, n: int, wm: int, wn: int, rank: int) -> bool:
    """Whether a tensor-core dot of an `m x n` accumulator held by a `wm x wn` warp
    grid runs on `wgmma` (module docstring)."""
    if arch != "sm_90a" or rank != 2 or wm % WARPGROUP:
        return False
    if m % (16 * wm) or n % (8 * wn):
        return False
    columns = n // wn  # each warpgroup's
    chunk = min(columns, MAX_N)
    if columns % chunk or chunk % 8:
        return False
    # The 8-bit shapes: N = 8, 16, 24, then multiples of 16.
    return not (integer and chunk > 24 and chunk % 16)


def stride_bytes(k: int, size: int) -> int:
    """SBO: the bytes of one 8-row group of a K-major operand with `k` columns."""
    return 8 * k * size


def core_matrix_view(layout: LinearLayout, size: int, k_dim: int) -> tuple[LinearLayout, list[int]]:
    """`layout` of a rank-2 operand whose dimension `k_dim` is K, seen as
    `(K/T, T, R/8, 8)` (R the other dimension) with the byte strides of the K-major
    core-matrix buffer (module docstring), for `Exchange.write`."""
    k, rows = layout.shape[k_dim], layout.shape[1 - k_dim]
    t = 16 // size

    def split(c: Coord) -> Coord:
        kk, r = c[k_dim], c[1 - k_dim]
        return (kk // t, kk % t, r // 8, r % 8)

    view = LinearLayout(
        (k // t, t, rows // 8, 8),
        tuple(map(split, layout.registers)),
        tuple(map(split, layout.lanes)),
        tuple(map(split, layout.warps)),
    )
    return view, [CORE_MATRIX_BYTES, size, stride_bytes(k, size), 16]


def descriptor(p: LLBuilder, smem: SSAValue, sbo: int) -> SSAValue:
    """The 64-bit matrix descriptor of the buffer at `smem` (a `.shared` address):
    start address >> 4 in bits 0-13, LBO >> 4 in bits 16-29, SBO >> 4 in bits 32-45,
    no swizzle (bits 62-63 zero), base offset 0."""
    start = p.and_(p.lshr(smem, p.const(4, i32)), p.const(0x3FFF, i32))
    fixed = ((sbo >> 4) << 32) | ((CORE_MATRIX_BYTES >> 4) << 16)
    return p.or_(p.zext(start, i64), p.const(fixed, i64))


def operand_descriptors(
    p: LLBuilder,
    state: FunctionState,
    smem: tuple[SSAValue, SSAValue],
    k: int,
    size: int,
    grid: tuple[int, int],
) -> tuple[SSAValue, SSAValue]:
    """The descriptors of this thread's warpgroup's rows of A and columns of B.

    The warps of a `wm x wn` grid (`#nv_tileas.mma`) hold rows along M first: warp
    `w`'s M position is `w % wm`, so warpgroup `g` is at M position `g % (wm/4)` (64
    rows each) and N position `g / (wm/4)`.  Along N the grid interleaves 8-column
    blocks: warpgroup `j` of `wn` holds blocks `j, j + wn, j + 2wn, ...` of the tile,
    which is B's 8-row core-matrix groups `j, j + wn, ...`: its descriptor starts `j`
    groups in and steps `wn` groups (SBO = wn · 8 · K · size)."""
    assert state.warp is not None
    smem_a, smem_b = smem
    wm, wn = grid
    sbo = stride_bytes(k, size)
    group = p.lshr(state.warp, p.const(2, i32))
    groups_m = wm // WARPGROUP
    gm = p.and_(group, p.const(groups_m - 1, i32))
    a_start = p.add(smem_a, p.mul(gm, p.const(WARPGROUP_ROWS // 8 * sbo, i32)))
    b_start = smem_b
    if wn > 1:
        gn = p.lshr(group, p.const(groups_m.bit_length() - 1, i32))
        b_start = p.add(smem_b, p.mul(gn, p.const(sbo, i32)))
    return descriptor(p, a_start, sbo), descriptor(p, b_start, wn * sbo)


def _offset(b: LLBuilder, desc: SSAValue, offset: int) -> SSAValue:
    """A descriptor `offset` bytes further: its start-address field counts 16-byte
    units (a CTA's buffers stay within the field's 256 KiB)."""
    return b.add(desc, b.const(offset >> 4, i64)) if offset else desc


def instruction(n: int, k_step: int, acc: str, a: str, b: str) -> str:
    """The `wgmma.mma_async` of one `m64n{n}` block, A and B from shared memory."""
    return f"wgmma.mma_async.sync.aligned.m64n{n}k{k_step}.{acc}.{a}.{b}"


class WgmmaSpec(Protocol):
    """What `wgmma_dot` reads of `mma.MmaSpec`."""

    @property
    def a(self) -> str: ...
    @property
    def b(self) -> str: ...
    @property
    def acc(self) -> str: ...
    @property
    def integer(self) -> bool: ...
    @property
    def float8(self) -> bool: ...
    @property
    def k_step(self) -> int: ...
    @property
    def element_bytes(self) -> int: ...


def wgmma_dot(
    b: LLBuilder,
    spec: WgmmaSpec,
    c: list[SSAValue],
    descriptors: tuple[SSAValue, SSAValue],
    mnk: tuple[int, int, int],
    grid: tuple[int, int],
    registers: tuple[str, Attribute],
    packing: tuple[Packer, Packer],
) -> None:
    """`c += a · b` on `wgmma`, updating the accumulator registers `c` (in the MMA
    layout) in place: one synchronous chain per 64-row slab and chunk of (at most
    256 of) the warpgroup's columns."""
    m, n, k = mnk
    wm, wn = grid
    desc_a, desc_b = descriptors
    pack, unpack = packing
    size = spec.element_bytes
    columns = n // wn  # this warpgroup's: 8-column blocks j, j + wn, ...
    chunk = min(columns, MAX_N)
    op_name = instruction(chunk, spec.k_step, spec.acc, spec.a, spec.b)
    k_steps = k // spec.k_step
    # One K step spans k_step * size / 16 core matrices (2) along K.
    step = spec.k_step * size // 16 * CORE_MATRIX_BYTES
    slab = 16 * wm  # rows the CTA's warpgroups cover together
    sbo = stride_bytes(k, size)
    for mr in range(m // slab):
        for c0 in range(0, columns, chunk):
            # Registers 4i..4i+3 hold the warp's i-th 8-column block of the slab.
            r = 4 * (c0 // 8 + (columns // 8) * mr)
            a_descs = [
                _offset(b, desc_a, mr * slab // 8 * sbo + ks * step) for ks in range(k_steps)
            ]
            b_descs = [_offset(b, desc_b, c0 // 8 * wn * sbo + ks * step) for ks in range(k_steps)]
            words = _chain(
                b,
                op_name,
                pack(c[r : r + chunk // 2]),
                a_descs,
                b_descs,
                registers,
                spec.integer,
                spec.float8,
                spec.integer and spec.a != spec.b,
            )
            c[r : r + chunk // 2] = unpack(words)


def _chain(
    b: LLBuilder,
    op_name: str,
    acc: list[SSAValue],
    a_descs: Sequence[SSAValue],
    b_descs: Sequence[SSAValue],
    registers: tuple[str, Attribute],
    integer: bool,
    float8: bool,
    mixed_signs: bool,
) -> list[SSAValue]:
    """One inline-asm block: copy `acc` into the outputs, `wgmma.fence`, one
    `wgmma.mma_async` per K step, commit and wait.  The operand forms: 16-bit types
    take scale and transpose immediates for A and B, 8-bit floats scales only,
    integers neither."""
    word_reg, word_type = registers
    words = len(acc)
    steps = len(a_descs)
    desc_base = words
    pred = desc_base + 2 * steps
    acc_base = pred + 1
    outs = ", ".join(f"${i}" for i in range(words))
    lines = [f"mov.b32 ${i}, ${acc_base + i};" for i in range(words)]
    lines.append("wgmma.fence.sync.aligned;")
    for s in range(steps):
        operands = f"${desc_base + 2 * s}, ${desc_base + 2 * s + 1}, ${pred}"
        tail = "" if integer else ", 1, 1" if float8 else ", 1, 1, 0, 0"
        lines.append(f"{op_name} {{{outs}}}, {operands}{tail};")
    lines.append("wgmma.commit_group.sync.aligned;")
    lines.append("wgmma.wait_group.sync.aligned 0;")
    constraints = ",".join(
        [f"={word_reg}"] * words + ["l"] * (2 * steps) + ["b"] + [word_reg] * words
    )
    pairs = [d for a, bd in zip(a_descs, b_descs, strict=True) for d in (a, bd)]
    words_out = b.inline_asm(
        "\n".join(lines),
        constraints,
        [*pairs, b.const(1, i1), *acc],
        [word_type] * words,
        side_effects=True,
    )
    if mixed_signs:
        # s8 x u8 and u8 x s8 need PTX ISA 8.4 (ptxas rejects them at sm_90a's 8.0).
        extract = words_out[0].owner
        assert isinstance(extract, llvm.ExtractValueOp)
        asm = extract.container.owner
        assert isinstance(asm, llvm.InlineAsmOp)
        asm.attributes[MIN_PTX_ISA_ATTR] = StringAttr("8.4")
    return words_out
