"""tf32 elements in registers, and `ftof` to tf32.

tf32 is an f32 with 10 fraction bits: the sign, the 8 exponent bits and the top 10
fraction bits of an f32 word (the upper 19 bits).  A tf32 element is held in an f32
register whose low 13 bits are zero (`context.llvm_scalar_type`), so a tf32 value
*is* its f32 value: converting from tf32 is converting from f32, and tf32 operands
go to `mma.sync` and `wgmma` as their 32-bit words (those instructions read only the
upper 19 bits).

`ftof` to tf32 rounds at the 10th fraction bit in the op's rounding mode.  The
source is first made an f32: f16 and bf16 widen exactly, f64 is rounded to odd in
f32 (`fp8.f64_to_f32_odd`, so the second rounding is the only one).  Then:

* `nearest_even` (cuda_tile's default, the only mode the 13.3 spec allows): integer
  operations on the f32 word: add `0xFFF` plus the lowest kept bit, clear the low 13
  bits.  A carry moves into the exponent, and values from halfway past the largest
  tf32 up become infinity.  PTX's `cvt.rna.tf32.f32` rounds ties away from zero,
  and `cvt.rn.tf32.f32` needs sm_90, so the integer form is used on every target:
  the same PTX on sm_80, sm_90a and sm_100a, bit for bit what `tileir.interpreter`
  computes.  A ring's stage rounded in place for the tensor cores alone
  (`round_for_tensor_cores`) takes `cvt.rn.tf32.f32` from sm_90: one instruction a
  word in the K loop, and no register reads the word back as an f32;
* `zero`: clear the low 13 bits; `negative_inf` / `positive_inf`: the same, or,
  where the value lies on the side the mode rounds away from zero (negative values
  for `negative_inf`, positive ones for `positive_inf`) and a dropped bit is set, add
  `0x1FFF` first (overflow gives infinity, as IEEE says);
* `nearest_away` (cuda_tile 13.4, cuTile's `RoundingMode.RA`): `cvt.rna.tf32.f32`,
  which rounds exactly so on every target tileir supports.

A NaN stays NaN: the integer forms give its quiet form with the low 13 bits cleared
(rounding its word would carry into the sign or leave an infinity).
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, Float64Type, FloatTF32Type, f32, i1, i32
from xdsl.ir import Attribute, SSAValue

from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.fp8 import f64_to_f32_odd
from tileir.dialects.cuda_tile.attributes import RoundingMode
from tileir.targets import compute_capability

#: The 13 fraction bits an f32 has beyond tf32's 10.
DROPPED = 0x1FFF
#: The f32 quiet bit, which keeps a NaN a NaN in tf32's upper 19 bits.
QUIET = 0x400000


def is_tf32(t: Attribute) -> bool:
    return isinstance(t, FloatTF32Type)


def _u32(b: LLBuilder, v: int) -> SSAValue:
    return b.const(v - (1 << 32) if v >= 1 << 31 else v, i32)


def to_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    """`x` as an f32 that rounds to the same tf32 as `x` in every mode."""
    if isinstance(x.type, Float64Type):
        return f64_to_f32_odd(b, x)
    if isinstance(x.type, Float32Type):
        return x
    return b.fpext(x, f32)


#: The first target with `cvt.rn.tf32.f32` and `cvt.rz.tf32.f32` (PTX ISA 7.8).
FIRST_ARCH_WITH_CVT_RN_TF32 = 90
#: The modes `cvt` rounds to tf32 in, by its rounding modifier.
CVT_TF32 = {
    RoundingMode.NEAREST_AWAY: "rna",
    RoundingMode.NEAREST_EVEN: "rn",
    RoundingMode.ZERO: "rz",
}


def _cvt_to_tf32(b: LLBuilder, value: SSAValue, rounding: str) -> SSAValue:
    cvt = ptx.PtxAsm(scoped=False)
    word_out, source = cvt.output(i32), cvt.input(value)
    cvt.instr(f"cvt.{rounding}.tf32.f32", word_out, source)
    (word,) = b.asm(cvt, side_effects=False)
    return b.bitcast(word, f32)


def round_for_tensor_cores(b: LLBuilder, x: SSAValue, mode: RoundingMode, arch: str) -> SSAValue:
    """`x` rounded to tf32 in `mode` for a tensor core to read and nothing else (a
    ring's stage rounded in place, `ring_rounding.py`): one `cvt` where the target
    has it in `mode` (sm_90 on: `cvt.rn`/`cvt.rz.tf32.f32`, one `F2FP.TF32` in SASS
    where the integer form of `round_to_tf32` is 8 instructions a word), else
    `round_to_tf32`.  The `cvt`'s word is the tf32 operand the MMAs take (PTX ISA:
    its `.b32` holds the tf32 value); it differs from `round_to_tf32`'s only in which
    NaN a NaN becomes, which no MMA result tells apart (any NaN operand gives NaN)."""
    rounding = CVT_TF32.get(mode)
    if rounding is None or compute_capability(arch) < FIRST_ARCH_WITH_CVT_RN_TF32:
        return round_to_tf32(b, x, mode)
    return _cvt_to_tf32(b, to_f32(b, x), rounding)


def round_to_tf32(b: LLBuilder, x: SSAValue, mode: RoundingMode) -> SSAValue:
    """`x` (any float register) rounded to tf32 in `mode`, as an f32 register with
    the low 13 bits zero (module docstring)."""
    value = to_f32(b, x)
    if mode is RoundingMode.NEAREST_AWAY:
        return _cvt_to_tf32(b, value, "rna")
    word = b.bitcast(value, i32)
    if mode is RoundingMode.NEAREST_EVEN:
        lowest_kept = b.and_(b.lshr(word, b.const(13, i32)), b.const(1, i32))
        word_up = b.add(word, b.add(b.const(DROPPED >> 1, i32), lowest_kept))
    elif mode in (RoundingMode.NEGATIVE_INF, RoundingMode.POSITIVE_INF):
        negative = b.icmp("lt", word, b.const(0, i32))
        away = negative if mode is RoundingMode.NEGATIVE_INF else b.xor(negative, b.const(1, i1))
        word_up = b.add(word, b.select(away, b.const(DROPPED, i32), b.const(0, i32)))
    else:
        word_up = word
    rounded = b.and_(word_up, _u32(b, ~DROPPED & 0xFFFFFFFF))
    magnitude = b.and_(word, b.const(0x7FFFFFFF, i32))
    nan = b.icmp("ugt", magnitude, b.const(0x7F800000, i32), signed=False)
    quiet = b.and_(b.or_(word, b.const(QUIET, i32)), _u32(b, ~DROPPED & 0xFFFFFFFF))
    return b.bitcast(b.select(nan, quiet, rounded), f32)
