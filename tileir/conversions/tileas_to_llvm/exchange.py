"""Data movement between threads through shared memory, for the lowerings that need it:
`nv_tileas.convert_layout`, `shuffle` and `view` (`layout.py`), `extract_slice`,
`insert_slice` and insertion chains, `reinterpret` (`slices.py`), and the operand buffers of
`nv_tileas.dot` (`dot.py`, `mma.py`, `wgmma.py`, `fma_dot.py`).

Each is one *exchange*: every thread writes the elements it holds (source layout)
into a CTA-wide shared-memory buffer laid out as the result tile, waits at a CTA
barrier, reads back the elements the result layout gives it, and waits again (so a
later exchange, in a loop or not, cannot overwrite elements other threads have yet
to read).  A permutation only changes where an element is written: source element
`c` lands at result coordinate `d` with `d[k] = c[perm[k]]`.

The buffer is the result tile in row-major order with each row (the last dimension)
padded by one 32-bit word (8 bytes for 64-bit elements; a `convert_layout` pads by what
costs the fewest access cycles, `conversion_strides`, so that an MMA accumulator staged
for 16-byte global stores moves in `.v2`/`.v4` shared accesses without bank conflicts).
A transpose writes the columns of the source into rows of the buffer: consecutive
threads of a warp then hit addresses one padded row apart, which fall into different
banks (a row of 32 words plus one word of padding shifts each row by one bank): at most
two-way conflicts where each thread holds four consecutive elements, conflict-free
reads.

Registers adjacent in the buffer move together, up to 16 bytes per access, when the
access is aligned for every thread (`vector_width`); copies of an element held by
several threads (a tile smaller than the CTA) are written by one of them only.
Exchanges never overlap in time, so they share one `.shared` arena per kernel
(`SharedAllocator`, `tileir_xchg_<n>`) with the reductions, scans and atomics that
cross warps, within the kernel's static shared memory (`shared_arena.py`); an
exchange needing more is reported at its op.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerType, TensorType, i8, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import (
    FunctionState,
    LoweringContext,
    disjoint_bits,
    element_bits,
    element_llvm_type,
    is_representative,
    linear_layout,
)
from tileir.conversions.tileas_to_llvm.shared_arena import (
    allocate_shared,
    available_bytes,
    becomes_dynamic,
)
from tileir.diagnostics import not_supported
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.core_matrices import (
    shared_vector_width,
    swizzle_mask,
    swizzled,
    vector_conflict_ways,
)
from tileir.dialects.nv_tileas.layouts import LinearLayout

_CONSTRAINT = {8: "h", 16: "h", 32: "r", 64: "l"}

#: What to do instead of moving elements of a width the exchange has no registers for.
_WORDS = "convert the tile to an 8-, 16-, 32- or 64-bit type first (ct.astype)"


class SharedAllocator:
    """Buffers for the exchanges, from the kernel's one `.shared` arena.

    An exchange is self-contained: it starts after, and ends with, a CTA barrier,
    and threads run the same exchanges in the same order (branch conditions are
    uniform across the CTA), so no two exchanges (nor the cross-warp steps of the
    reductions, scans and atomics, which are bracketed the same way) are ever live
    at once and each lays its buffers out from the arena's start.  The arena is as
    large as the largest use; all of them share the kernel's static shared memory
    (`shared_arena.py`).  The arena lives in the kernel's `FunctionState`, so every
    allocator of a run hands out the same one."""

    def allocate(
        self,
        op: Operation,
        state: FunctionState,
        rewriter: PatternRewriter,
        sizes: Sequence[int],
        alignments: Sequence[int] = (),
    ) -> list[SSAValue]:
        """32-bit shared addresses of buffers of `sizes` bytes (16-byte aligned, or as
        `alignments` says), live together for one exchange at `op` (computed in the
        kernel's prologue)."""
        return allocate_shared(op, state, rewriter, sizes, "an exchange", alignments)


def padded_strides(
    shape: Sequence[int], bits: int, row_alignment: int = 1
) -> tuple[list[int], int]:
    """Byte strides of a row-major buffer whose rows are padded against bank
    conflicts (by one 32-bit word or element, then up to a multiple of
    `row_alignment` bytes, so that vector accesses may start at any row), and its size
    in bytes."""
    size = max(bits, 8) // 8
    strides = [0] * len(shape)
    stride = size
    for d in reversed(range(len(shape))):
        strides[d] = stride
        stride *= shape[d]
        if d == len(shape) - 1 and len(shape) > 1:
            stride += max(size, 4)
            stride = -(-stride // row_alignment) * row_alignment
    return strides, stride


#: The most bytes `conversion_strides` pads a row by.
MAX_ROW_PADDING = 128


def conversion_strides(
    src: LinearLayout, dst: LinearLayout, kind: ElementKind, fits: Callable[[int], bool]
) -> tuple[list[int], int]:
    """Byte strides and size of the buffer a conversion from `src` to `dst` goes
    through: the result tile row-major, each row padded by the multiple of a word (of an
    element, if wider), up to `MAX_ROW_PADDING` bytes, that costs the fewest
    shared-memory access cycles (each thread's accesses, `vector_width` wide, times their
    bank conflicts, `vector_conflict_ways`), writes and reads together; the smallest
    padding of the cheapest, and only sizes `fits` accepts.  One word is the default of
    every exchange (`padded_strides`); a wider padding lets both sides move whole vectors
    where rows of one word more than the tile's would misalign them: an MMA accumulator
    (two f32 a thread, rows four lanes wide) converted to 16-byte vectors of a 32-column
    f32 tile costs 16 scalar writes (4-way conflicts) and 16 scalar reads with one word,
    8 conflict-free `.v2` writes and 4 `.v4` reads with 32 bytes."""
    shape = list(dst.shape)
    strides, size = padded_strides(shape, kind.bits)
    if len(shape) < 2 or kind.bits < 16:
        return strides, size
    element = kind.bits // 8
    word = max(element, 4)
    row = shape[-1] * element

    def cycles(layout: LinearLayout, at: list[int]) -> int:
        vec = vector_width(layout, at, kind)
        return layout.num_registers // vec * vector_conflict_ways(layout, at, element)

    best = (cycles(src, strides) + cycles(dst, strides), size, strides)
    for padding in range(2 * word, MAX_ROW_PADDING + 1, word):
        candidate = padded_strides(shape, kind.bits)[0]
        candidate[-2] = row + padding
        for d in reversed(range(len(shape) - 2)):
            candidate[d] = candidate[d + 1] * shape[d + 1]
        total = candidate[0] * shape[0]
        if not fits(total):
            continue
        cost = cycles(src, candidate) + cycles(dst, candidate)
        if cost < best[0]:
            best = (cost, total, candidate)
    return best[2], best[1]


@dataclass(frozen=True)
class ThreadBase:
    """A thread's address in a buffer (`Exchange.thread_base`), from which `at` gives
    the address of each of its register offsets.  In a `swizzle`d buffer (an operand
    buffer, `core_matrices.OperandBuffer`, aligned to its atom of `8 · swizzle` bytes)
    `value` is the buffer's start plus the swizzled thread offset; a register offset
    `r` splits into `r_lo` (within the atom) and `r_hi` (whole atoms), and its address
    is `(value ^ swizzled(r_lo)) + r_hi`: exact, as the swizzle is linear over XOR and
    reads only bits below the atom, and the thread's and the register's offsets
    within the atom never share a bit (`disjoint_bits`, power-of-two strides).  The
    XOR is an add where `swizzled(r_lo)` sets no bit the thread's part may set
    (`thread_bits`)."""

    value: SSAValue
    swizzle: int = 0
    #: The bits the thread's swizzled offset within the atom may set.
    thread_bits: int = 0
    #: The bits the thread's offset within the atom may set, before the swizzle.
    thread_lo: int = 0

    def at(self, b: LLBuilder, offset: int) -> SSAValue:
        """The address of register offset `offset` (bytes, before any swizzle)."""
        if not self.swizzle:
            return b.add(self.value, b.const(offset, i32)) if offset else self.value
        atom = 8 * self.swizzle
        lo, hi = offset % atom, offset - offset % atom
        assert lo & self.thread_lo == 0, "a register offset shares bits with the thread's"
        lo = swizzled(lo, self.swizzle)
        if lo & self.thread_bits:
            address = b.xor(self.value, b.const(lo, i32))
            return b.add(address, b.const(hi, i32)) if hi else address
        return b.add(self.value, b.const(lo + hi, i32)) if lo + hi else self.value


class Exchange:
    """Moves a tile between layouts (and permutes its dimensions) through shared
    memory."""

    def __init__(self, ctx: LoweringContext, allocator: SharedAllocator):
        self.ctx = ctx
        self.allocator = allocator

    def thread_offset(
        self,
        b: LLBuilder,
        state: FunctionState,
        rewriter: PatternRewriter,
        layout: LinearLayout,
        strides: Sequence[int],
        base: SSAValue,
    ) -> SSAValue:
        """`base + Σ_d thread_coord_d · strides[d]` (strides indexed by `layout`'s dims)."""
        offset = base
        for term in self._thread_terms(b, state, rewriter, layout, strides):
            offset = b.add(offset, term)
        return offset

    @staticmethod
    def _thread_terms(
        b: LLBuilder,
        state: FunctionState,
        rewriter: PatternRewriter,
        layout: LinearLayout,
        strides: Sequence[int],
    ) -> Iterator[SSAValue]:
        """`thread_coord_d · strides[d]` for each dimension the thread's part moves (built
        as they are taken)."""
        for d, stride in enumerate(strides):
            if stride == 0 or not any(basis[d] for basis in (*layout.lanes, *layout.warps)):
                continue
            coord = state.thread_coord(rewriter, layout, d)
            if stride & (stride - 1) == 0:
                term = b.shl(coord, b.const(stride.bit_length() - 1, i32)) if stride > 1 else coord
            else:
                term = b.mul(coord, b.const(stride, i32))
            yield term

    def thread_base(
        self,
        b: LLBuilder,
        state: FunctionState,
        rewriter: PatternRewriter,
        layout: LinearLayout,
        strides: Sequence[int],
        base: SSAValue,
        swizzle: int = 0,
    ) -> ThreadBase:
        """The thread's address in the buffer at `base` (`thread_offset`), for a buffer
        swizzled `swizzle` bytes wide (0: none): `base + swizzled(t)` for the thread's
        offset `t` (`ThreadBase`)."""
        if not swizzle:
            return ThreadBase(self.thread_offset(b, state, rewriter, layout, strides, base))
        assert disjoint_bits(layout), "a swizzled buffer's writes mix register and thread bits"
        atom = 8 * swizzle
        thread_lo = thread_bits = 0
        for basis in (*layout.lanes, *layout.warps):
            lo = sum(x * s for x, s in zip(basis, strides, strict=True)) % atom
            thread_lo |= lo
            thread_bits |= swizzled(lo, swizzle)
        offset: SSAValue | None = None
        for term in self._thread_terms(b, state, rewriter, layout, strides):
            offset = term if offset is None else b.add(offset, term)
        if offset is not None:
            # swizzled(t) = t ^ ((t >> 3) & mask)
            flip = b.and_(b.lshr(offset, b.const(3, i32)), b.const(swizzle_mask(swizzle), i32))
            base = b.add(base, b.xor(offset, flip))
        return ThreadBase(base, swizzle, thread_bits, thread_lo)

    def write(
        self,
        b: LLBuilder,
        rewriter: PatternRewriter,
        state: FunctionState,
        values: Sequence[SSAValue],
        layout: LinearLayout,
        strides: Sequence[int],
        smem: SSAValue,
        kind: ElementKind,
        guard: SSAValue | None = None,
        aligned_to: Sequence[int] = (),
        swizzle: int = 0,
    ) -> None:
        """Store a thread's registers of `layout` at `smem + Σ coord_d · strides[d]`
        (`swizzled` `swizzle` bytes wide, `ThreadBase`); one copy of each element (its
        owner, and `guard` when given) writes it.  Registers adjacent in the buffer go
        together, up to 16 bytes per `st.shared` (`vector_width`)."""
        owner = state.owner_predicate(rewriter, layout)
        if guard is not None:
            owner = guard if owner is None else b.and_(owner, guard)
        base = self.thread_base(b, state, rewriter, layout, strides, smem, swizzle)
        vec = vector_width(layout, strides, kind, aligned_to)
        for r in range(0, layout.num_registers, vec):
            if not is_representative(layout, r):
                continue
            coord = layout.register_coord(r)
            address = base.at(b, sum(x * s for x, s in zip(coord, strides, strict=True)))
            group = list(values[r : r + vec])
            if kind.is_bool:
                group = [b.zext(v, i8) for v in group]
            words, word_bits, c = _pack(b, group, kind)
            if owner is None:
                b.store_words(words, b.shared_pointer(address))
                continue
            # Only the owner of an element stores it: a predicated st.shared.
            store = ptx.PtxAsm(scoped=False)
            at = store.input(address, "r")
            data = [store.input(w, c) for w in words]
            opcode = ptx.opcode("st", "shared", ptx.lanes(len(words)), ptx.typed("b", word_bits))
            store.instr(opcode, ptx.address(at), ptx.vector(data), guard=store.input(owner))
            b.asm(store)

    def read(
        self,
        b: LLBuilder,
        rewriter: PatternRewriter,
        state: FunctionState,
        layout: LinearLayout,
        strides: Sequence[int],
        smem: SSAValue,
        kind: ElementKind,
        aligned_to: Sequence[int] = (),
        swizzle: int = 0,
    ) -> list[SSAValue]:
        """Load a thread's registers of `layout` from `smem + Σ coord_d · strides[d]`
        (`swizzled` `swizzle` bytes wide), up to 16 bytes per `ld.shared`."""
        base = self.thread_base(b, state, rewriter, layout, strides, smem, swizzle)
        results: list[SSAValue] = []
        vec = vector_width(layout, strides, kind, aligned_to)
        for r in range(0, layout.num_registers, vec):
            coord = layout.register_coord(r)
            address = base.at(b, sum(x * s for x, s in zip(coord, strides, strict=True)))
            if vec == 1:
                value = b.load(b.shared_pointer(address), kind.register_type)
                if kind.is_bool:
                    value = b.icmp("ne", value, b.const(0, i8))
                results.append(value)
                continue
            results.extend(load_vector(b, address, vec, kind))
        return results

    def run(
        self,
        op: Operation,
        rewriter: PatternRewriter,
        values: list[SSAValue],
        src_type: Attribute,
        dst_type: Attribute,
        perm: Sequence[int],
    ) -> list[SSAValue]:
        src = linear_layout(op, src_type)
        dst = linear_layout(op, dst_type)
        check_exchangeable(op, src)
        check_exchangeable(op, dst)
        kind = element_kind(op, src_type)
        assert isinstance(dst_type, TensorType)
        state = self.ctx.function_state(op)
        if isinstance(op, tas.ConvertLayoutOp):
            base = padded_strides(dst_type.get_shape(), kind.bits)[1]

            def fits(total: int) -> bool:
                return total <= available_bytes(state) and (
                    total <= base or not becomes_dynamic(state, total)
                )

            strides, size = conversion_strides(src, dst, kind, fits)
        else:
            strides, size = padded_strides(dst_type.get_shape(), kind.bits)
        (smem,) = self.allocator.allocate(op, state, rewriter, [size])
        b = LLBuilder(rewriter, InsertPoint.before(op))
        # Source coordinate d_src lands at result dim k with perm[k] == d_src.
        src_strides = [0] * len(perm)
        for k, p in enumerate(perm):
            src_strides[p] = strides[k]
        self.write(b, rewriter, state, values, src, src_strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        results = self.read(b, rewriter, state, dst, strides, smem, kind)
        b.op(nvvm.Barrier0Op())
        return results


@dataclass(frozen=True)
class ElementKind:
    """How an element travels through shared memory."""

    bits: int  # 8, 16, 32 or 64 (i1 travels as a byte)
    is_bool: bool
    register_type: Attribute  # the LLVM type a load produces


def element_kind(op: Operation, t: Attribute) -> ElementKind:
    el = element_type(t)
    is_bool = isinstance(el, IntegerType) and el.width.data == 1
    if isinstance(el, PointerType):
        bits = 64  # a global address
    else:
        try:
            bits = 8 if is_bool else element_bits(t)
        except ValueError:
            raise not_supported(
                op, f"exchanging {el} elements through shared memory", instead=_WORDS
            ) from None
    if bits not in _CONSTRAINT:
        raise not_supported(
            op, f"exchanging {bits}-bit elements through shared memory", instead=_WORDS
        )
    return ElementKind(bits, is_bool, i8 if is_bool else element_llvm_type(t))


def check_exchangeable(op: Operation, layout: LinearLayout) -> None:
    if not disjoint_bits(layout):
        raise not_supported(op, "exchanging tiles whose layouts mix register and thread bits")


def vector_width(
    layout: LinearLayout, strides: Sequence[int], kind: ElementKind, aligned_to: Sequence[int] = ()
) -> int:
    """How many consecutive registers one shared-memory access may move
    (`core_matrices.shared_vector_width`, for `kind`'s elements)."""
    return shared_vector_width(layout, strides, kind.bits, aligned_to)


def load_vector(b: LLBuilder, address: SSAValue, vec: int, kind: ElementKind) -> list[SSAValue]:
    """`vec` consecutive elements at `address` in one `ld.shared` (`vec · bits` of 32
    to 128, `address` aligned to all of it): whole 32-bit words (or 64-bit elements),
    halves unpacked from their words, low element first."""
    word_bits = 64 if kind.bits == 64 else 32
    count = vec * kind.bits // word_bits
    assert count >= 1 and vec * kind.bits <= 128, (vec, kind.bits)
    word_type = kind.register_type if kind.bits >= 32 else i32
    words = b.load_words(b.shared_pointer(address), count, word_type)
    if kind.bits != 16:
        return list(words)
    return [h for w in words for h in b.unpack_halves(w, kind.register_type)]


def _pack(
    b: LLBuilder, group: list[SSAValue], kind: ElementKind
) -> tuple[list[SSAValue], int, str]:
    """The words one store moves: `(words, bits per word, constraint)`; pairs of
    16-bit elements are packed into 32-bit words (low element first)."""
    if len(group) == 1:
        return group, kind.bits, _CONSTRAINT[kind.bits]
    if kind.bits == 16:
        words = [b.pack_halves(group[i], group[i + 1]) for i in range(0, len(group), 2)]
        return words, 32, "r"
    return group, kind.bits, _CONSTRAINT[kind.bits]


def replicated(layout: LinearLayout) -> bool:
    """Whether every thread holds every element (no lane or warp basis moves)."""
    return not any(any(c) for c in (*layout.lanes, *layout.warps))


def bank_conflict_ways(layout: LinearLayout, strides: Sequence[int]) -> int:
    """The worst number of distinct 32-bit words one warp touches in one bank, over
    the per-register accesses of warp 0 (`strides` in bytes, by `layout`'s dims):
    1 means conflict-free, n means an n-way serialized access."""
    worst = 1
    for r in range(layout.num_registers):
        banks: dict[int, set[int]] = {}
        for lane in range(32):
            coord = layout.coord(r, lane, 0)
            address = sum(x * s for x, s in zip(coord, strides, strict=True))
            word = address // 4
            banks.setdefault(word % 32, set()).add(word)
        worst = max(worst, *(len(words) for words in banks.values()))
    return worst
