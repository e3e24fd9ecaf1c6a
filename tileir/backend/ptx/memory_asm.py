"""PTX spellings of predicated, vectorized global loads and stores.

Each thread moves a *group* of `vec` consecutive elements of `bits` bits with one
instruction of up to 128 bits (`ld.global.v4.b32`).  When the group is masked, one
predicate says "all elements in bounds": then the vector instruction runs; otherwise
each element that is in bounds moves with its own scalar instruction.  Masked-off
load elements keep their padding value.  A group whose elements share one predicate
(`uniform`: a mask that only says whether the tile lies in the view's index space,
or a row mask across a row's vector) moves all or nothing: the vector instruction
under that predicate, without the per-element fallback.

The functions return an inline-asm template and its constraint string, in LLVM's
NVPTX conventions (`$N` operands; `=r`/`=h`/`=l` outputs for 32/16/64-bit registers;
`b` for predicates), which `convert-tileas-to-llvm` wraps in `llvm.inline_asm`.

i8 elements live sign-extended in 16-bit registers (PTX has no 8-bit arithmetic
registers worth using): a lone byte loads with `ld.s8` into its register and stores
with `st.b8` from it; bytes moved together travel in 16- or 32-bit words that are
unpacked with `bfe.s32` (sign-extending) and packed with `bfi.b32`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Constraint letter of a register of each width.
CONSTRAINT = {1: "b", 8: "h", 16: "h", 32: "r", 64: "l"}


@dataclass(frozen=True)
class Qualifiers:
    """`ld.global`, `ld.relaxed.gpu.global`, `st.release.sys.global`, ..."""

    semantic: str = "weak"  # weak | relaxed | acquire | release
    scope: str | None = None  # cta | gpu | sys

    def spell(self, op: str) -> str:
        if self.semantic == "weak":
            return f"{op}.global"
        return f"{op}.{self.semantic}.{self.scope or 'gpu'}.global"


def _word_layout(bits: int, vec: int) -> tuple[int, int]:
    """(number of words, bits per word) moved by one vector instruction."""
    total = bits * vec
    if total <= 32:
        return 1, total
    if bits == 64:
        return vec, 64
    return total // 32, 32


def _vector_suffix(words: int, word_bits: int) -> str:
    kind = f".b{word_bits}" if word_bits >= 16 else ".b8"
    return kind if words == 1 else f".v{words}{kind}"


def _scalar_suffix(bits: int, load: bool) -> str:
    """A lone element's type suffix; a loaded byte is sign-extended into its register."""
    if bits == 8:
        return ".s8" if load else ".b8"
    return f".b{bits}"


#: Scratch registers of the byte (un)packing sequences, declared once per template.
BYTE_SCRATCH = ".reg .b32 t_x, t_y;"


def _unpack_bytes(reg: str, word_bits: int, parts: list[str]) -> list[str]:
    """Sign-extend each byte of `reg` into its own 16-bit register (uses the scratch
    registers `BYTE_SCRATCH` declares)."""
    lines: list[str] = []
    source = reg
    if word_bits == 16:
        lines.append(f"cvt.u32.u16 t_x, {reg};")
        source = "t_x"
    for j, part in enumerate(parts):
        lines.append(f"bfe.s32 t_y, {source}, {8 * j}, 8;")
        lines.append(f"cvt.u16.u32 {part}, t_y;")
    return lines


def _pack_bytes(reg: str, word_bits: int, parts: list[str]) -> list[str]:
    """The low byte of each 16-bit register, packed little-endian into `reg`."""
    lines = ["mov.b32 t_y, 0;"]
    for j, part in enumerate(parts):
        lines.append(f"cvt.u32.u16 t_x, {part};")
        lines.append(f"bfi.b32 t_y, t_x, t_y, {8 * j}, 8;")
    lines.append(f"cvt.u16.u32 {reg}, t_y;" if word_bits == 16 else f"mov.b32 {reg}, t_y;")
    return lines


def _all_in_bounds(preds: list[str]) -> list[str]:
    """`t_all`: every element of the group is in bounds; `t_none`: its negation."""
    lines = [".reg .pred t_all, t_none, t_p;"]
    lines.append(f"and.pred t_all, {preds[0]}, {preds[1] if len(preds) > 1 else preds[0]};")
    for p in preds[2:]:
        lines.append(f"and.pred t_all, t_all, {p};")
    lines.append("not.pred t_none, t_all;")
    return lines


def load_group(
    bits: int,
    vec: int,
    masked: bool,
    padding_bits: int,
    quals: Qualifiers,
    uniform: bool = False,
) -> tuple[str, str]:
    """Template loading `vec` elements of `bits` bits.

    Operands: $0..$vec-1 the elements (outputs); then the address of each element
    ($vec..$2vec-1, only the first when unmasked or uniform); then, when masked, one
    predicate per element (one for the whole group when uniform)."""
    words, word_bits = _word_layout(bits, vec)
    out = [f"${i}" for i in range(vec)]
    per_element = masked and not uniform
    addr = [f"${vec + i}" for i in range(vec if per_element else 1)]
    preds = [f"${vec + len(addr) + i}" for i in range(vec if per_element else 1)] if masked else []
    lines: list[str] = ["{"]
    same_regs = word_bits == bits  # elements are the words themselves
    if same_regs:
        regs = out
    else:
        regs = [f"t_w{i}" for i in range(words)]
        lines.append(f".reg .b{word_bits} " + ", ".join(regs) + ";")
        if bits == 8:
            lines.append(BYTE_SCRATCH)
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
            lines.append(f"mov.b{reg_bits} {r}, {_imm(word_pad, reg_bits)};")
        if per_element:
            lines.extend(_all_in_bounds(preds))
    op = quals.spell("ld")
    target = regs[0] if words == 1 else "{" + ", ".join(regs) + "}"
    guard = ("@t_all " if per_element else f"@{preds[0]} ") if masked else ""
    lone_byte = bits == 8 and vec == 1
    suffix = _scalar_suffix(8, load=True) if lone_byte else _vector_suffix(words, word_bits)
    lines.append(f"{guard}{op}{suffix} {target}, [{addr[0]}];")
    if not same_regs:
        per_word = word_bits // bits
        for w, reg in enumerate(regs):
            parts = out[w * per_word : (w + 1) * per_word]
            if bits == 8:
                lines.extend(_unpack_bytes(reg, word_bits, parts))
            else:
                lines.append(f"mov.b{word_bits} {{{', '.join(parts)}}}, {reg};")
    if per_element:
        for i in range(vec):
            lines.append(f"and.pred t_p, {preds[i]}, t_none;")
            lines.append(f"@t_p {op}{_scalar_suffix(bits, load=True)} {out[i]}, [{addr[i]}];")
    lines.append("}")
    outputs = ",".join(f"={CONSTRAINT[bits]}" for _ in range(vec))
    inputs = ",".join(["l"] * len(addr) + ["b"] * len(preds))
    constraints = outputs + ("," + inputs if inputs else "")
    return "\n".join(lines), constraints


def store_group(
    bits: int, vec: int, masked: bool, quals: Qualifiers, uniform: bool = False
) -> tuple[str, str]:
    """Template storing `vec` elements of `bits` bits.

    Operands: $0..$vec-1 the elements; then the addresses (one when unmasked or
    uniform, one per element when masked); then, when masked, one predicate per
    element (one for the whole group when uniform)."""
    words, word_bits = _word_layout(bits, vec)
    vals = [f"${i}" for i in range(vec)]
    per_element = masked and not uniform
    addr = [f"${vec + i}" for i in range(vec if per_element else 1)]
    preds = [f"${vec + len(addr) + i}" for i in range(vec if per_element else 1)] if masked else []
    lines: list[str] = ["{"]
    same_regs = word_bits == bits
    if same_regs:
        regs = vals
    else:
        regs = [f"t_w{i}" for i in range(words)]
        lines.append(f".reg .b{word_bits} " + ", ".join(regs) + ";")
        if bits == 8:
            lines.append(BYTE_SCRATCH)
        per_word = word_bits // bits
        for w, reg in enumerate(regs):
            parts = vals[w * per_word : (w + 1) * per_word]
            if bits == 8:
                lines.extend(_pack_bytes(reg, word_bits, parts))
            else:
                lines.append(f"mov.b{word_bits} {reg}, {{{', '.join(parts)}}};")
    if per_element:
        lines.extend(_all_in_bounds(preds))
    op = quals.spell("st")
    source = regs[0] if words == 1 else "{" + ", ".join(regs) + "}"
    guard = ("@t_all " if per_element else f"@{preds[0]} ") if masked else ""
    lines.append(f"{guard}{op}{_vector_suffix(words, word_bits)} [{addr[0]}], {source};")
    if per_element:
        for i in range(vec):
            lines.append(f"and.pred t_p, {preds[i]}, t_none;")
            lines.append(f"@t_p {op}{_scalar_suffix(bits, load=False)} [{addr[i]}], {vals[i]};")
    lines.append("}")
    inputs = [CONSTRAINT[bits]] * vec + ["l"] * len(addr) + ["b"] * len(preds)
    return "\n".join(lines), ",".join(inputs)


def _sign_extend(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def _imm(value: int, bits: int) -> str:
    return f"0x{value & ((1 << bits) - 1):0{max(1, bits // 4)}X}"
