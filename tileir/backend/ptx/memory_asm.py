"""PTX spellings of predicated, vectorized global loads and stores.

Each thread moves a *group* of `vec` consecutive elements of `bits` bits with one
instruction of up to 128 bits (`ld.global.v4.b32`).  When the group is masked, one
predicate says "all elements in bounds": then the vector instruction runs; otherwise
each element that is in bounds moves with its own scalar instruction.  Masked-off
load elements keep their padding value.  A group whose elements share one predicate
(`uniform`: a mask that only says whether the tile lies in the view's index space,
or a row mask across a row's vector) moves all or nothing: the vector instruction
under that predicate, without the per-element fallback.

The functions describe one group to a `PtxAsm` (`asm_builder.py`), its operands bound
to the group's first address, its predicates and its values, which `convert-tileas-to-llvm` turns
into one `llvm.inline_asm` (`LLBuilder.asm`).

i8 elements live sign-extended in 16-bit registers (PTX has no 8-bit arithmetic
registers worth using): a lone byte loads with `ld.s8` into its register and stores
with `st.b8` from it; bytes moved together travel in 16- or 32-bit words that are
unpacked with `bfe.s32` (sign-extending) and packed with `bfi.b32`.  A load may instead
leave its bytes packed (`load_group(packed_bytes=True)`: its results are the words) and
unpack each word with its own block (`unpack_word`), which `llvm-sink-tmem-loads` places
just before the first use of its bytes: a word holds four bytes in one register, where
unpacked they take four (an fp8 tile of 256x128 for 256 threads is 32 words a thread, or
128 registers unpacked).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

from tileir.backend.ptx.asm_builder import (
    Operand,
    PtxAsm,
    address,
    immediate,
    lanes,
    opcode,
    typed,
    vector,
)


@dataclass(frozen=True)
class Qualifiers:
    """`ld.global`, `ld.relaxed.gpu.global`, `st.release.sys.global`, ..."""

    semantic: str = "weak"  # weak | relaxed | acquire | release
    scope: str | None = None  # cta | gpu | sys

    def spell(self, op: str) -> str:
        if self.semantic == "weak":
            return opcode(op, "global")
        return opcode(op, self.semantic, self.scope or "gpu", "global")


def _word_layout(bits: int, vec: int) -> tuple[int, int]:
    """(number of words, bits per word) moved by one vector instruction."""
    total = bits * vec
    if total <= 32:
        return 1, total
    if bits == 64:
        return vec, 64
    return total // 32, 32


#: Constraint letter of an element's register by its width (the strings these blocks
#: replaced used the integer letters for floats too; the `ptx` target reads registers
#: from the values' types, not from the letters).
CONSTRAINT = {1: "b", 8: "h", 16: "h", 32: "r", 64: "l"}


def _vector_suffix(words: int, word_bits: int) -> str:
    return opcode(lanes(words), typed("b", max(word_bits, 8)))


def _scalar_suffix(bits: int, load: bool) -> str:
    """A lone element's type suffix; a loaded byte is sign-extended into its register."""
    if bits == 8:
        return typed("s" if load else "b", 8)
    return typed("b", bits)


def _byte_scratch(asm: PtxAsm) -> None:
    """Scratch registers of the byte (un)packing sequences: `t_x`, `t_y`."""
    asm.register("b32", "t_x", "t_y")


def _unpack_bytes(asm: PtxAsm, reg: Operand, word_bits: int, parts: Sequence[Operand]) -> None:
    """Sign-extend each byte of `reg` into its own 16-bit register (`_byte_scratch`)."""
    source = reg
    if word_bits == 16:
        asm.instr("cvt.u32.u16", "t_x", reg)
        source = "t_x"
    for j, part in enumerate(parts):
        asm.instr("bfe.s32", "t_y", source, immediate(8 * j), immediate(8))
        asm.instr("cvt.u16.u32", part, "t_y")


def _pack_bytes(asm: PtxAsm, reg: Operand, word_bits: int, parts: Sequence[Operand]) -> None:
    """The low byte of each 16-bit register, packed little-endian into `reg`."""
    asm.instr("mov.b32", "t_y", immediate(0))
    for j, part in enumerate(parts):
        asm.instr("cvt.u32.u16", "t_x", part)
        asm.instr("bfi.b32", "t_y", "t_x", "t_y", immediate(8 * j), immediate(8))
    asm.instr("cvt.u16.u32" if word_bits == 16 else "mov.b32", reg, "t_y")


def all_in_bounds(asm: PtxAsm, preds: Sequence[Operand]) -> None:
    """`t_all`: every element of the group is in bounds; `t_none`: its negation."""
    asm.register("pred", "t_all", "t_none", "t_p")
    asm.instr("and.pred", "t_all", preds[0], preds[1] if len(preds) > 1 else preds[0])
    for p in preds[2:]:
        asm.instr("and.pred", "t_all", "t_all", p)
    asm.instr("not.pred", "t_none", "t_all")


def _scratch_words(asm: PtxAsm, words: int, word_bits: int, bits: int) -> list[Operand]:
    """The words of a group whose elements are narrower than its words."""
    regs = asm.register(typed("b", word_bits), *(f"t_w{i}" for i in range(words)))
    if bits == 8:
        _byte_scratch(asm)
    return regs


def load_group(
    element: Attribute,
    bits: int,
    vec: int,
    first: SSAValue,
    preds: Sequence[SSAValue],
    padding_bits: int,
    quals: Qualifiers,
    packed_bytes: bool = False,
) -> PtxAsm:
    """Loads `vec` elements of `bits` bits into `vec` values of type `element`.

    `first`: the address of the group's first element (its elements are consecutive, so the
    per-element fallback addresses element `i` as `[first+i*bytes]`: one 64-bit address
    live per group, not one per element); `preds`: one per element, one for the whole
    group (uniform), or none (unmasked).  Masked-off elements keep `padding_bits`.
    `packed_bytes` (where `packs_bytes` holds): the results are the group's words instead,
    each to be unpacked by `unpack_word`."""
    asm = PtxAsm()
    words, word_bits = _word_layout(bits, vec)
    masked = bool(preds)
    per_element = masked and len(preds) > 1
    same_regs = word_bits == bits  # elements are the words themselves
    if packed_bytes:
        assert packs_bytes(bits, vec, len(preds)), "only whole byte groups stay packed"
        out = [asm.output(IntegerType(word_bits), CONSTRAINT[word_bits]) for _ in range(words)]
    else:
        out = [asm.output(element, CONSTRAINT[bits]) for _ in range(vec)]
    addr = asm.input(first)
    pred = [asm.input(p) for p in preds]
    if same_regs or packed_bytes:
        regs = out
        if packed_bytes and per_element:
            asm.register("b32", "t_x")  # a byte of the per-element fallback
    else:
        regs = _scratch_words(asm, words, word_bits, bits)
    if masked:
        pad = padding_bits & ((1 << bits) - 1)
        if same_regs:
            # One element in its own register (a byte sign-extended to 16 bits).
            reg_bits = max(bits, 16)
            word_pad = _sign_extend(pad, bits) if bits == 8 else pad
        else:
            reg_bits = word_bits
            word_pad = 0
            for i in range(word_bits // bits):
                word_pad |= pad << (i * bits)
        for r in regs:
            asm.instr(opcode("mov", typed("b", reg_bits)), r, immediate(word_pad, reg_bits))
        if per_element:
            all_in_bounds(asm, pred)
    op = quals.spell("ld")
    guard = ("t_all" if per_element else pred[0]) if masked else None
    lone_byte = bits == 8 and vec == 1
    suffix = _scalar_suffix(8, load=True) if lone_byte else _vector_suffix(words, word_bits)
    asm.instr(opcode(op, suffix), vector(regs), address(addr), guard=guard)
    if not same_regs and not packed_bytes:
        per_word = word_bits // bits
        for w, reg in enumerate(regs):
            parts = out[w * per_word : (w + 1) * per_word]
            if bits == 8:
                _unpack_bytes(asm, reg, word_bits, parts)
            else:
                asm.instr(opcode("mov", typed("b", word_bits)), vector(parts), reg)
    if per_element and packed_bytes:
        # Each byte in bounds goes into its place in its word (`bfi`), the others keep
        # the padding the word was set to.
        for i in range(vec):
            asm.instr("and.pred", "t_p", pred[i], "t_none")
            asm.instr(opcode(op, "u8"), "t_x", _element_address(addr, i, bits), guard="t_p")
            word = regs[i // 4]
            asm.instr(
                "bfi.b32", word, "t_x", word, immediate(8 * (i % 4)), immediate(8), guard="t_p"
            )
    elif per_element:
        for i in range(vec):
            asm.instr("and.pred", "t_p", pred[i], "t_none")
            asm.instr(
                opcode(op, _scalar_suffix(bits, load=True)),
                out[i],
                _element_address(addr, i, bits),
                guard="t_p",
            )
    return asm


def packs_bytes(bits: int, vec: int, predicates: int) -> bool:
    """Whether a load group of `vec` elements of `bits` bits under `predicates` predicates
    can leave its bytes packed in words (`load_group(packed_bytes=True)`): bytes moved
    together, 16 or 32 bits a word, all or nothing (at most one predicate), or in 32-bit
    words whose per-element fallback puts each byte in its place (`bfi.b32`)."""
    return bits == 8 and vec > 1 and (predicates <= 1 or vec % 4 == 0)


def unpack_word(word: SSAValue, element: Attribute) -> PtxAsm:
    """The bytes of `word` (an i16 or i32 a packed load returned), little-endian, each
    sign-extended into its own 16-bit register of type `element`: the unpacking
    `load_group` does in its own block, as a block of its own that has no side effects
    (`is_unpack_word` recognizes it)."""
    word_bits = word.type.width.data if isinstance(word.type, IntegerType) else 0
    assert word_bits in (16, 32), "a packed load's words are 16 or 32 bits"
    asm = PtxAsm()
    parts = [asm.output(element, CONSTRAINT[8]) for _ in range(word_bits // 8)]
    reg = asm.input(word, CONSTRAINT[word_bits])
    _byte_scratch(asm)
    _unpack_bytes(asm, reg, word_bits, parts)
    return asm


def is_unpack_word(op: Operation) -> bool:
    """Whether `op` is a block `unpack_word` wrote: side-effect free, its one operand a
    word, its text the one `unpack_word` gives for that word."""
    if not isinstance(op, llvm.InlineAsmOp) or op.has_side_effects is not None:
        return False
    if len(op.operands) != 1 or op.res is None:
        return False
    word = op.operands[0]
    if not (isinstance(word.type, IntegerType) and word.type.width.data in (16, 32)):
        return False
    result = op.res.type
    if not isinstance(result, llvm.LLVMStructType):
        return False
    element = result.types.data[0]
    return op.asm_string.data == unpack_word(word, element).template


def store_group(
    bits: int,
    values: Sequence[SSAValue],
    first: SSAValue,
    preds: Sequence[SSAValue],
    quals: Qualifiers,
) -> PtxAsm:
    """Stores `values`, consecutive elements of `bits` bits.

    `first` and `preds` as for `load_group`."""
    asm = PtxAsm()
    vec = len(values)
    words, word_bits = _word_layout(bits, vec)
    vals = [asm.input(v, CONSTRAINT[bits]) for v in values]
    addr = asm.input(first)
    pred = [asm.input(p) for p in preds]
    masked = bool(pred)
    per_element = masked and len(pred) > 1
    same_regs = word_bits == bits
    if same_regs:
        regs = vals
    else:
        regs = _scratch_words(asm, words, word_bits, bits)
        per_word = word_bits // bits
        for w, reg in enumerate(regs):
            parts = vals[w * per_word : (w + 1) * per_word]
            if bits == 8:
                _pack_bytes(asm, reg, word_bits, parts)
            else:
                asm.instr(opcode("mov", typed("b", word_bits)), reg, vector(parts))
    if per_element:
        all_in_bounds(asm, pred)
    op = quals.spell("st")
    guard = ("t_all" if per_element else pred[0]) if masked else None
    asm.instr(
        opcode(op, _vector_suffix(words, word_bits)), address(addr), vector(regs), guard=guard
    )
    if per_element:
        for i in range(vec):
            asm.instr("and.pred", "t_p", pred[i], "t_none")
            asm.instr(
                opcode(op, _scalar_suffix(bits, load=False)),
                _element_address(addr, i, bits),
                vals[i],
                guard="t_p",
            )
    return asm


def _element_address(first: Operand, i: int, bits: int) -> Operand:
    """Element `i` of a group that starts at `first`: `[first]`, then `[first+2]`, ..."""
    return address(first, i * bits // 8 if i else None)


def _sign_extend(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value
