"""The shared-memory buffers the tensor cores read their operands from, and the bank
conflicts of writing them: one piece that the LLVM lowering lays the buffers and ring
slots out with (`conversions/tileas_to_llvm/wgmma.py`, `dot.LowerDot.placement`) and
that the ring budget counts slots with (`transforms/tileas/ring_budget.py`), so that the
two agree on every byte.

`wgmma` (sm_90a) and `tcgen05.mma` (sm_100a) take A and B from shared memory through
matrix descriptors, in the ISA's canonical layouts (`OperandBuffer`): without a swizzle,
*core matrices* of 8 lines of 16 bytes, padded apart by the least (0-112 bytes) that
minimizes the bank conflicts of the writes from the operand's register layout; K-major
(A, and 16-bit B loaded K-contiguous) written in vectors also swizzled 128, 64 or 32
bytes wide where K fills the lines: dense, the 16-byte chunks of each line XORed with
its row (`swizzled`), and chosen wherever it conflicts no more than the best padding
(`choose_layout`), which for the usual blocked layouts is everywhere.  MN-major 16-bit
B and buffers written an element at a time keep the padding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation

from tileir.dialects.nv_tileas.layouts import Coord, LinearLayout


def shared_vector_width(
    layout: LinearLayout, strides: Sequence[int], bits: int, aligned_to: Sequence[int] = ()
) -> int:
    """How many consecutive registers one shared-memory access may move: registers
    that step by one element along the buffer's contiguous dimension, at most 16
    bytes, whose first element is aligned to the whole access for every thread and
    register group (every other basis, and every offset in `aligned_to`, moves the
    address by a multiple of it).  Bytes and `i1` move one at a time."""
    size = bits // 8
    if bits < 16 or size not in strides:
        return 1
    dim = list(strides).index(size)
    vec = min(layout.contiguous_registers(dim), 16 // size)
    while vec > 1:
        group_bits = vec.bit_length() - 1
        others = (*layout.registers[group_bits:], *layout.lanes, *layout.warps)
        offsets = [sum(x * s for x, s in zip(basis, strides, strict=True)) for basis in others]
        offsets += list(aligned_to)
        if vec * size >= 4 and all(o % (vec * size) == 0 for o in offsets):
            return vec
        vec //= 2
    return 1


def swizzle_mask(width: int) -> int:
    """The bits a `width`-byte swizzle (128, 64 or 32) flips: bits 4.. of the 16-byte
    chunk within a 128-byte span, one per bit of `width / 16` (CuTe's `Swizzle<b,4,3>`)."""
    return (width // 16 - 1) << 4


def swizzled(offset: int, width: int) -> int:
    """Byte `offset` (from an `8 * width`-aligned start) as a `width`-byte swizzle places
    it (PTX ISA, "Shared Memory Matrix Layout"): its 16-byte chunk XORed with bits 7..
    of the address; `width` 0 is no swizzle.  Linear over XOR, and it reads and writes
    only bits below `8 * width`."""
    return offset ^ ((offset >> 3) & swizzle_mask(width)) if width else offset


def swizzle_alignment(width: int) -> int:
    """Where a buffer swizzled `width` bytes wide starts: at its atom of 8 lines (the
    pattern runs from there); 16 bytes without a swizzle."""
    return 8 * width if width else 16


def vector_conflict_ways(
    layout: LinearLayout, strides: Sequence[int], size: int, swizzle: int = 0
) -> int:
    """Bank conflicts of the stores the lowering's `Exchange.write` makes for `layout` at byte
    `strides` (elements of `size` bytes, the buffer `swizzle`d, `swizzled`): the worst
    number of distinct 32-bit words one bank serves within one access phase of warp 0,
    with the vector width the write uses.  Accesses up to 4 bytes are served for the
    whole warp at once, 8-byte ones for half a warp, 16-byte ones for a quarter (8
    lanes), as the hardware splits wide shared-memory requests.

    Remembered per argument tuple: an exchange's padding search asks the same question
    again for each candidate and each use (128 calls for 64 distinct ones on a split-K
    GEMM, 564 for 154 on an FFT), and the answer depends on nothing else."""
    return _vector_conflict_ways(layout, tuple(strides), size, swizzle)


@lru_cache(maxsize=1024)
def _vector_conflict_ways(
    layout: LinearLayout, strides: tuple[int, ...], size: int, swizzle: int
) -> int:
    vec = shared_vector_width(layout, strides, 8 * size)
    access = vec * size
    lanes_per_phase = 32 if access <= 4 else 128 // access
    worst = 1
    # Coordinates combine by XOR: each lane's and each register's part once (a
    # padding search calls this for every candidate, 2,300 times over the corpus and
    # every third held-out kernel), and a register group's 32 addresses are one list
    # per dimension; a phase's distinct words are then counted by bank.
    columns = list(zip(*(layout.lane_coord(lane) for lane in range(32)), strict=True))
    for r in range(0, layout.num_registers, vec):
        reg = layout.register_coord(r)
        addresses = [0] * 32
        for x, column, s in zip(reg, columns, strides, strict=True):
            addresses = [a + (x ^ y) * s for a, y in zip(addresses, column, strict=True)]
        if swizzle:
            addresses = [swizzled(a, swizzle) for a in addresses]
        for phase in range(0, 32, lanes_per_phase):
            words: set[int] = set()
            for address in addresses[phase : phase + lanes_per_phase]:
                words.update(range(address // 4, (address + access + 3) // 4))
            per_bank = [0] * 32
            for word in words:
                per_bank[word % 32] += 1
            worst = max(worst, *per_bank)
    return worst


#: Bytes of one core matrix (8 rows of 16 bytes).
CORE_MATRIX_BYTES = 128

#: The swizzle widths a K-major operand buffer may take, widest first.
SWIZZLE_WIDTHS = (128, 64, 32)

#: Whether the lowering and the ring budget may lay K-major operand buffers out swizzled
#: (`choose_layout`).
SWIZZLE_OPERANDS = True

#: On a `wgmma` dot whose MN-major B a TMA box writes (`tileas-tma-feeds`): the swizzle
#: width of B's buffer (`OperandBuffer` MN-major swizzled), which the ring budget and
#: the lowering then lay out instead of the padded one.
B_MN_SWIZZLE_ATTR = "nv_tileas.b_mn_swizzle"


def b_mn_swizzle(dot: Operation) -> int:
    """The swizzle width `B_MN_SWIZZLE_ATTR` gives `dot`'s B (0: none)."""
    attr = dot.attributes.get(B_MN_SWIZZLE_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else 0


class BufferView(NamedTuple):
    """An operand's register layout as a buffer sees it: the layout, the buffer's byte
    strides by the layout's dimensions (what `Exchange.write` takes), and the buffer's
    swizzle width (0: none; `swizzled`)."""

    layout: LinearLayout
    strides: list[int]
    swizzle: int = 0

    @property
    def alignment(self) -> int:
        """The buffer's start alignment (`swizzle_alignment`)."""
        return swizzle_alignment(self.swizzle)


@dataclass(frozen=True)
class OperandBuffer:
    """One `wgmma` operand in shared memory: `rows` (M or N) by `k`, elements of `size`
    bytes, K-major or MN-major.  Without `swizzle`: core matrices `pad` bytes apart
    along the dimension they are adjacent in (K for K-major, M/N for MN-major).  With
    `swizzle` W, K-major: the ISA's W-byte swizzled layout, lines of W bytes of K
    (one row each), 8 lines an atom of 8W bytes, the atoms of a W-byte K column one
    below the other (`R·W` bytes), then the next column; `swizzled` permutes the 16-byte
    chunks of each line, and the buffer starts `align`ed.  MN-major with `swizzle` W
    (a B that TMA writes, `tileas-tma-feeds`: `choose_layout` never picks it): lines
    of W bytes of M/N (one K index each), 8 lines an atom, the K lines of a W-byte M/N
    column one below the other (`K·W` bytes: one TMA box), then the next column."""

    rows: int
    k: int
    size: int
    mn_major: bool
    pad: int = 0
    swizzle: int = 0

    @property
    def core_k(self) -> int:
        """K extent of one core matrix: 16 bytes of K (K-major) or 8 lines (MN-major)."""
        return 8 if self.mn_major else 16 // self.size

    @property
    def align(self) -> int:
        """The buffer's start alignment: a swizzled one's pattern starts at an atom."""
        return swizzle_alignment(self.swizzle)

    @property
    def lbo(self) -> int:
        """The descriptor's leading-dimension byte offset: bytes between core matrices
        adjacent along K (swizzled K-major: unused, 16 as the ISA assumes 1; swizzled
        MN-major: between W-byte M/N columns, whose roles swap, PTX ISA *Matrix
        Descriptor*)."""
        if self.swizzle and self.mn_major:
            return self.k * self.swizzle
        if self.swizzle:
            return 16
        if self.mn_major:
            return self.rows // 8 * self.sbo
        return CORE_MATRIX_BYTES + self.pad

    @property
    def sbo(self) -> int:
        """The descriptor's stride-dimension byte offset: bytes between 8-row (M or N)
        groups; swizzled MN-major: between 8-line atoms along K)."""
        if self.swizzle:
            return 8 * self.swizzle
        if self.mn_major:
            return CORE_MATRIX_BYTES + self.pad
        return self.k // self.core_k * self.lbo

    @property
    def bytes(self) -> int:
        if self.swizzle:
            return self.rows * self.k * self.size
        if self.mn_major:
            return self.k // 8 * self.lbo
        return self.rows // 8 * self.sbo

    def view(self, layout: LinearLayout, k_dim: int) -> BufferView:
        """`layout` of the operand (K along `k_dim`) seen as `(K/c, c, R/8, 8)` (`c` the K
        of a line: 16 bytes, or W swizzled), with the byte strides of this buffer before
        the swizzle, for `Exchange.write`."""
        if self.swizzle and self.mn_major:
            return self._mn_swizzled_view(layout, k_dim)
        c = self.swizzle // self.size if self.swizzle else self.core_k

        def split(coord: Coord) -> Coord:
            kk, r = coord[k_dim], coord[1 - k_dim]
            return (kk // c, kk % c, r // 8, r % 8)

        view = LinearLayout(
            (self.k // c, c, self.rows // 8, 8),
            tuple(map(split, layout.registers)),
            tuple(map(split, layout.lanes)),
            tuple(map(split, layout.warps)),
        )
        if self.swizzle:
            return BufferView(
                view, [self.rows * self.swizzle, self.size, self.sbo, self.swizzle], self.swizzle
            )
        # Within a core matrix, K-major lines are rows (16 B apart) of K elements;
        # MN-major lines are K indices (16 B apart) of 8 rows' elements.
        line, element = (self.size, 16) if self.mn_major else (16, self.size)
        return BufferView(view, [self.lbo, element, self.sbo, line])

    def _mn_swizzled_view(self, layout: LinearLayout, k_dim: int) -> BufferView:
        """`view` of a swizzled MN-major buffer: `(K/8, 8, R/c, c)` (`c` the M/N of a
        W-byte line) with the strides of its atoms, lines, columns and elements."""
        c = self.swizzle // self.size

        def split(coord: Coord) -> Coord:
            kk, r = coord[k_dim], coord[1 - k_dim]
            return (kk // 8, kk % 8, r // c, r % c)

        view = LinearLayout(
            (self.k // 8, 8, self.rows // c, c),
            tuple(map(split, layout.registers)),
            tuple(map(split, layout.lanes)),
            tuple(map(split, layout.warps)),
        )
        return BufferView(view, [self.sbo, self.swizzle, self.lbo, self.size], self.swizzle)

    def k_offset(self, k: int) -> int:
        """Bytes from the start to K index `k` (a multiple of the core matrix's K; of
        a K step's 32 bytes swizzled: into the first line of an atom)."""
        if self.swizzle and self.mn_major:
            return k * self.swizzle
        if self.swizzle:
            kb = k * self.size
            return kb // self.swizzle * self.rows * self.swizzle + kb % self.swizzle
        return k // self.core_k * self.lbo

    def row_offset(self, row: int) -> int:
        """Bytes from the start to row `row` (a multiple of 8; swizzled MN-major: into
        the first line of its column where not a multiple of the line's M/N)."""
        if self.swizzle and self.mn_major:
            line = self.swizzle // self.size
            return row // line * self.lbo + row % line * self.size
        return row // 8 * self.sbo


def choose_layout(
    rows: int, k: int, size: int, mn_major: bool, layout: LinearLayout, k_dim: int
) -> OperandBuffer:
    """The buffer whose writes from `layout` conflict least, then the smallest, then the
    widest swizzle: each padding of the core matrices (0-112 bytes) and, K-major with
    `SWIZZLE_OPERANDS`, each swizzle width whose lines the K extent fills (so a swizzle
    never costs more conflicts than the padded layout)."""
    candidates = [
        OperandBuffer(rows, k, size, mn_major, pad) for pad in range(0, CORE_MATRIX_BYTES, 16)
    ]
    if SWIZZLE_OPERANDS and not mn_major:
        swizzled_buffers = [
            OperandBuffer(rows, k, size, mn_major, swizzle=width)
            for width in SWIZZLE_WIDTHS
            if k * size % width == 0
        ]
        # Not where the writes go an element at a time (B of 8-bit and tf32 types written
        # transposed): an XOR each, and a tf32 ring's rounding reads and writes them all
        # again, which spilled at 128 registers (test_split_k_steps).
        candidates += [
            buffer
            for buffer in swizzled_buffers
            if shared_vector_width(*buffer.view(layout, k_dim)[:2], 8 * size) > 1
        ]
    best: tuple[int, int, int, OperandBuffer] | None = None
    for buffer in candidates:
        view, strides, swizzle = buffer.view(layout, k_dim)
        ways = vector_conflict_ways(view, strides, size, swizzle)
        key = (ways, buffer.bytes, -buffer.swizzle)
        if best is None or key < best[:3]:
            best = (*key, buffer)
    assert best is not None
    return best[3]


def b_mn_major(size: int, b_layout: LinearLayout) -> bool:
    """Whether B's buffer is MN-major: for 16-bit elements (the only ones with a
    transpose flag) unless the thread's first run of B's elements goes along K, as a
    tile loaded K-contiguous gives it (attention's K, read transposed with `order=`):
    then K-major keeps each run one vector write, or one `cp.async`."""
    if size != 2:
        return False
    first = next(iter((*b_layout.registers, *b_layout.lanes)), None)
    # (K, N), or (batch, K, N) for a batched dot.
    return first is None or not (first[-2] != 0 and first[-1] == 0)


# Remembered: a pure function of frozen values, asked for the same dot by the ring budget
# and the lowering (72 calls, 9 distinct, over 28 held-out kernels; issue 17).
@lru_cache(maxsize=256)
def padded_operand_buffers(
    mnk: tuple[int, int, int], size: int, layouts: tuple[LinearLayout, LinearLayout]
) -> tuple[OperandBuffer, OperandBuffer]:
    """A's (K-major) and B's (MN-major for 16-bit elements, `b_mn_major`) buffers, each
    padded against the bank conflicts of its writes (`choose_pad`): what the lowering
    lays out wherever both fit (`wgmma.operand_buffers`; dense otherwise, smaller)."""
    m, n, k = mnk
    a_layout, b_layout = layouts
    a = choose_layout(m, k, size, False, a_layout, 1)
    b = choose_layout(n, k, size, b_mn_major(size, b_layout), b_layout, 0)
    return a, b


#: Bytes of one block of scale factors that one `tcgen05.cp.32x128b.warpx4` moves: 32
#: rows of 16 bytes, the factors of 128 rows (of A; columns of B) for 4 scale groups.
SCALE_BLOCK_BYTES = 512
#: Rows (of A; columns of B) and scale groups (K / 32) of one such block.
SCALE_BLOCK_ROWS = 128
SCALE_BLOCK_GROUPS = 4
#: Tensor-memory columns one block fills (4 bytes a column: one byte a group).
SCALE_BLOCK_COLUMNS = 4


@dataclass(frozen=True)
class ScaleFactorBuffer:
    """The scale factors of one operand of a block-scaled `tcgen05.mma` (one byte per
    row of A, or column of B, and per group of K), staged in shared memory for
    `tcgen05.cp.cta_group::1.32x128b.warpx4`, in blocks of `SCALE_BLOCK_BYTES`: block
    `(rb, gb)` (rows `128 rb ..`, groups `4 gb ..`) at byte `512 (gb R + rb)` (`R` row
    blocks), factor `g` of row `i` at byte `16 (i % 32) + 4 (i / 32 % 4) + g % 4` of it
    (PTX ISA 9.7.16.10.7: row `i`'s factors are bytes of lane `i % 32`, column `i / 32`;
    the copy puts row `r` of the block into lanes `r + 32 q` of every lane quarter).
    Block `b` goes to tensor-memory columns `4 b ..` from the operand's first scale
    column, so that the MMA of K step `t` (32 wide: group `t`) reads, for the rows from
    `128 rb`, columns `4 (t / 4 R + rb) ..` with scale-factor ID `t % 4`, and an N chunk
    of 256 columns of B finds its two row blocks' columns adjacent."""

    rows: int
    groups: int

    @property
    def row_blocks(self) -> int:
        return -(-self.rows // SCALE_BLOCK_ROWS)

    @property
    def group_blocks(self) -> int:
        return -(-self.groups // SCALE_BLOCK_GROUPS)

    @property
    def blocks(self) -> int:
        return self.row_blocks * self.group_blocks

    @property
    def bytes(self) -> int:
        return SCALE_BLOCK_BYTES * self.blocks

    @property
    def columns(self) -> int:
        """Tensor-memory columns the factors take."""
        return SCALE_BLOCK_COLUMNS * self.blocks

    def block(self, rows_from: int, group: int) -> int:
        """The block holding the factors of rows `rows_from ..` (a multiple of 128) for
        scale group `group`."""
        return group // SCALE_BLOCK_GROUPS * self.row_blocks + rows_from // SCALE_BLOCK_ROWS

    def view(self, layout: LinearLayout, k_dim: int) -> tuple[LinearLayout, list[int]]:
        """`layout` of the scales (`[rows, groups]`, the groups along `k_dim`: 1 for A's
        `[M, K/32]`, 0 for B's `[K/32, N]`) seen as `(row block, group block, i / 32 % 4,
        i % 32, g % 4)`, with this buffer's byte strides, for `Exchange.write`."""
        quarters = min(4, max(1, self.rows // 32))

        def split(coord: Coord) -> Coord:
            g, i = coord[k_dim], coord[1 - k_dim]
            return (i // SCALE_BLOCK_ROWS, g // SCALE_BLOCK_GROUPS, i // 32 % 4, i % 32, g % 4)

        view = LinearLayout(
            (
                self.row_blocks,
                self.group_blocks,
                quarters,
                min(32, self.rows),
                min(SCALE_BLOCK_GROUPS, self.groups),
            ),
            tuple(map(split, layout.registers)),
            tuple(map(split, layout.lanes)),
            tuple(map(split, layout.warps)),
        )
        block = SCALE_BLOCK_BYTES
        return view, [block, block * self.row_blocks, 4, 16, 1]
