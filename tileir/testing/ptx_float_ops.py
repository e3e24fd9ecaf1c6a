"""Floating-point and conversion instructions of the PTX simulator.

Float arithmetic rounds exactly in every IEEE mode (see ``ptx_numeric``);
``.ftz`` flushes subnormal inputs and results; ``.sat`` clamps to [0, 1]; NaN
results are PTX's canonical NaN.  ``.approx`` instructions (and ``div.full``)
return the correctly rounded value of the exact function, or, with
``approx="bound"``, that value moved by the error bound modelled for the
instruction (``APPROX_ERROR``), up in even threads and down in odd ones, so a
test sees the worst the GPU may do.  ``cvt`` follows PTX's rules on which
rounding modifier each pair of types needs, and saturates float-to-integer
conversions (NaN gives 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import ml_dtypes
import numpy as np

from tileir.testing.ptx_decode import Exec, Mods, decoder, invalid, operands
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_numeric import (
    FORMATS,
    ROUNDINGS,
    SINT,
    TF32,
    TYPES,
    UINT,
    FloatFormat,
    PtxType,
    canonicalize_nan,
    exact_elementwise,
    exact_zero_sign,
    flush_subnormals,
    fma_f64_nearest,
    round_integral,
    round_pair,
    round_to_format,
    sqrt_directed,
    two_sum,
)
from tileir.testing.ptx_parse import Instruction

#: Error bound modelled for each ``.approx`` (and ``div.full``) instruction in
#: ``approx="bound"`` mode: ``("rel", r)`` is a relative error, ``("ulp", n)`` n
#: units in the last place of the f32 result.  Taken from the PTX ISA's stated
#: maxima, rounded up: tanh about 2^-11 relative; rsqrt and sqrt about 2 ulp
#: (2^-22 relative); div.approx and div.full 2 ulp.  ex2: 2^-22.5 relative, above
#: what `ex2.approx.ftz.f32` does on an H200 over every f32 input (at most
#: 2^-22.88: 1.40 ulp on results in [1, 2), 2.06 ulp on results in [1/2, 1)).
APPROX_ERROR: dict[str, tuple[str, float]] = {
    "tanh": ("rel", 2.0**-11),
    "ex2": ("rel", 2.0**-22.5),
    "rsqrt": ("rel", 2.0**-22),
    "sqrt": ("rel", 2.0**-22),
    "div": ("ulp", 2),
}

_APPROX_FN: dict[str, Callable[..., np.ndarray]] = {
    "tanh": np.tanh,
    "ex2": np.exp2,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "sqrt": np.sqrt,
    "div": np.divide,
}


_ORDERED: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def float_compare(cmp: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """PTX float comparison: ordered ones are false on NaN, ``...u`` ones true."""
    unordered = np.isnan(a) | np.isnan(b)
    if cmp == "num":
        return ~unordered
    if cmp == "nan":
        return unordered
    if cmp.endswith("u"):
        return _ORDERED[cmp[:-1]](a, b) | unordered
    return _ORDERED[cmp](a, b) & ~unordered


#: The comparison operators of ``setp`` on floats.
FLOAT_COMPARISONS = frozenset([*_ORDERED, *(f"{c}u" for c in _ORDERED), "num", "nan"])


def float_format(ins: Instruction, t: PtxType, ftz: bool) -> FloatFormat:
    if ftz and t.name == "f64":
        raise invalid(ins, ".ftz on .f64")
    return FORMATS[t.name]


def float_in(values: np.ndarray, fmt: FloatFormat, ftz: bool) -> np.ndarray:
    """Operand values as float64 (exact), subnormals flushed under ``.ftz``."""
    x = values.astype(np.float64)
    return flush_subnormals(x, fmt) if ftz else x


def _float_out(x: np.ndarray, fmt: FloatFormat, ftz: bool, sat: bool) -> np.ndarray:
    """A rounded float64 result as ``fmt`` values: ``.sat`` clamps to [0, 1] (NaN to
    +0), ``.ftz`` flushes subnormal results, NaNs become the canonical NaN."""
    if sat:
        x = np.clip(np.where(np.isnan(x), 0.0, x), 0.0, 1.0)
    if ftz:
        x = flush_subnormals(x, fmt)
    return canonicalize_nan(x.astype(fmt.dtype), fmt)


def float_arith(op: str, fmt: FloatFormat, mode: str, *x: np.ndarray) -> np.ndarray:
    """The IEEE result of ``op`` on float64 operands rounded to ``fmt`` in ``mode``,
    as float64.  ``op``: add, sub, mul, div, fma, sqrt."""
    if fmt.name == "f64":
        return _f64_arith(op, mode, *x)
    if op in ("add", "sub", "fma"):
        p = x[0] * x[1] if op == "fma" else x[0]  # products of <= 24-bit values are exact
        c = x[2] if op == "fma" else (x[1] if op == "add" else -x[1])
        s, e = two_sum(p, c)
        return exact_zero_sign(round_pair(s, e, fmt, mode), s == 0, p, c, mode)
    if op == "mul":
        return round_to_format(x[0] * x[1], fmt, mode)
    if op == "div":
        return round_to_format(x[0] / x[1], fmt, mode)
    return round_to_format(np.sqrt(x[0]), fmt, mode)


_EXACT_F64: dict[str, Callable[..., Fraction | None]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b if b != 0 else None,
    "fma": lambda a, b, c: a * b + c,
}


def _f64_arith(op: str, mode: str, *x: np.ndarray) -> np.ndarray:
    """float64 results: numpy for round-to-nearest (``fma_f64_nearest`` for ``fma``,
    which numpy does not fuse), exact rationals for the directed roundings."""
    if op == "sqrt":
        return sqrt_directed(x[0], mode)
    nearest = {
        "add": lambda: x[0] + x[1],
        "sub": lambda: x[0] - x[1],
        "mul": lambda: x[0] * x[1],
        "div": lambda: x[0] / x[1],
        "fma": lambda: x[0] * x[1] + x[2],
    }[op]()
    if mode == "rn":
        return fma_f64_nearest(*x) if op == "fma" else nearest
    fmt = FORMATS["f64"]
    out, zero = exact_elementwise(_EXACT_F64[op], nearest, fmt, mode, *x)
    if op in ("add", "sub", "fma"):
        p = x[0] * x[1] if op == "fma" else x[0]
        c = x[2] if op == "fma" else (x[1] if op == "add" else -x[1])
        out = exact_zero_sign(out, zero | ((p == 0) & (c == 0)), p, c, mode)
    return out


def _float_op(
    ins: Instruction,
    t: PtxType,
    compute: Callable[..., np.ndarray],
    srcs: int,
    ftz: bool = False,
    sat: bool = False,
) -> Exec:
    """``op.T d, a, ...`` where ``compute(machine, active, *float64 operands)``
    returns the rounded float64 result."""
    fmt = float_format(ins, t, ftz)
    d, *src = operands(ins, srcs + 1)

    def run(m: Machine, act: np.ndarray) -> None:
        values = [float_in(m.read(s, t, act), fmt, ftz) for s in src]
        m.write(d, _float_out(compute(m, act, *values), fmt, ftz, sat), t, act)

    return run


def _rounded(ins: Instruction, mods: Mods, t: PtxType, op: str, srcs: int, default: str | None):
    """Decode ``op{.rnd}{.ftz}{.sat}.T`` into an exact IEEE operation."""
    mode = mods.one_of(ROUNDINGS) or default
    ftz, sat = mods.flag("ftz"), mods.flag("sat")
    mods.done()
    if mode is None:
        raise invalid(ins, f"{ins.opcode}.{t.name} without a rounding modifier")
    fmt = FORMATS[t.name]
    return _float_op(ins, t, lambda m, act, *x: float_arith(op, fmt, mode, *x), srcs, ftz, sat)


def _approx(ins: Instruction, mods: Mods, t: PtxType, name: str, srcs: int) -> Exec:
    """An ``.approx`` (or ``div.full``) instruction: see ``APPROX_ERROR``."""
    ftz = mods.flag("ftz")
    mods.done()
    fmt = FORMATS[t.name]
    fn = _APPROX_FN[name]

    def compute(m: Machine, act: np.ndarray, *x: np.ndarray) -> np.ndarray:
        r = round_to_format(fn(*x), fmt, "rn")
        if m.approx == "bound":
            r = _worst_case(m, ins, r, fmt, name)
        return r

    return _float_op(ins, t, compute, srcs, ftz)


def _worst_case(
    m: Machine, ins: Instruction, r: np.ndarray, fmt: FloatFormat, name: str
) -> np.ndarray:
    """Move ``r`` by the modelled error bound: up in even threads, down in odd ones
    (the parity also depends on the PTX line, so neighbouring results differ)."""
    up = (np.arange(m.count) + ins.line) % 2 == 0
    kind, size = APPROX_ERROR[name]
    finite = np.isfinite(r) & (r != 0)
    if kind == "rel":
        moved = round_to_format(r * np.where(up, 1.0 + size, 1.0 - size), fmt, "rn")
    else:
        moved = r.astype(fmt.dtype)
        toward = np.where(up, math.inf, -math.inf).astype(fmt.dtype)
        for _ in range(int(size)):
            moved = np.nextafter(moved, toward)
        moved = moved.astype(np.float64)
    if name == "tanh":
        moved = np.clip(moved, -1.0, 1.0)
    return np.where(finite, moved, r)


def decode_float_arith(ins: Instruction, mods: Mods, t: PtxType) -> Exec:
    """The float forms of ``add sub mul mad div min max neg abs`` (``t`` is a float type)."""
    op = ins.opcode
    if op in ("min", "max"):
        return _float_minmax(ins, mods, t)
    if op in ("neg", "abs"):
        return _float_sign_op(ins, mods, t)
    if op == "rem":
        raise invalid(ins, "rem on floats")
    if op == "div":
        return _float_div(ins, mods, t)
    if op == "mad":  # mad.rnd.f32 is fma
        return _rounded(ins, mods, t, "fma", 3, None)
    return _rounded(ins, mods, t, op, 2, "rn")


@decoder("fma")
def decode_fma(ins: Instruction) -> Exec:
    mods = Mods(ins)
    return _rounded(ins, mods, mods.type("f"), "fma", 3, None)


def _float_div(ins: Instruction, mods: Mods, t: PtxType) -> Exec:
    kind = mods.one_of(("approx", "full"))
    if kind is not None:
        if t.name != "f32":
            raise invalid(ins, f"div.{kind}.{t.name}")
        return _approx(ins, mods, t, "div", 2)
    return _rounded(ins, mods, t, "div", 2, None)


@decoder("sqrt")
def decode_sqrt(ins: Instruction) -> Exec:
    mods = Mods(ins)
    t = mods.type("f")
    if mods.flag("approx"):
        if t.name != "f32":
            raise invalid(ins, f"sqrt.approx.{t.name}")
        return _approx(ins, mods, t, "sqrt", 1)
    return _rounded(ins, mods, t, "sqrt", 1, None)


@decoder("rsqrt", "ex2", "tanh")
def decode_approx(ins: Instruction) -> Exec:
    """``rsqrt.approx{.ftz}.f32/.f64``, ``ex2.approx{.ftz}.f32``, ``tanh.approx.f32``."""
    mods = Mods(ins)
    t = mods.type("f")
    if not mods.flag("approx"):
        raise invalid(ins, f"{ins.opcode} without .approx")
    allowed = ("f32", "f64") if ins.opcode == "rsqrt" else ("f32",)
    if t.name not in allowed or (ins.opcode == "tanh" and "ftz" in mods.rest):
        raise invalid(ins, f"{ins.opcode}.approx form {'.'.join(ins.modifiers)}")
    return _approx(ins, mods, t, ins.opcode, 1)


def float_minmax(a: np.ndarray, b: np.ndarray, is_max: bool, propagate_nan: bool) -> np.ndarray:
    """PTX ``min``/``max`` on float values: a NaN operand yields the other operand
    (``.NaN``: yields NaN); -0 orders below +0."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if is_max:
        pick_a = (a64 > b64) | ((a64 == b64) & ~np.signbit(a64))
    else:
        pick_a = (a64 < b64) | ((a64 == b64) & np.signbit(a64))
    r = np.where(pick_a, a, b)
    an, bn = np.isnan(a64), np.isnan(b64)
    if propagate_nan:
        return np.where(an | bn, np.array(np.nan, dtype=a.dtype), r)
    r = np.where(an, b, np.where(bn, a, r))
    return np.where(an & bn, np.array(np.nan, dtype=a.dtype), r)


def _float_minmax(ins: Instruction, mods: Mods, t: PtxType) -> Exec:
    ftz, nan = mods.flag("ftz"), mods.flag("NaN")
    mods.done()
    fmt = float_format(ins, t, ftz)
    if nan and t.name == "f64":
        raise invalid(ins, f"{ins.opcode}.NaN.f64")
    d, a, b = operands(ins, 3)
    is_max = ins.opcode == "max"

    def run(m: Machine, act: np.ndarray) -> None:
        x, y = (float_in(m.read(s, t, act), fmt, ftz).astype(fmt.dtype) for s in (a, b))
        r = float_minmax(x, y, is_max, nan)
        m.write(d, canonicalize_nan(r, fmt), t, act)

    return run


def _float_sign_op(ins: Instruction, mods: Mods, t: PtxType) -> Exec:
    """``neg``/``abs``: flip or clear the sign bit (after ``.ftz`` flushing)."""
    ftz = mods.flag("ftz")
    mods.done()
    fmt = float_format(ins, t, ftz)
    sign = UINT[t.bits](1 << (t.bits - 1))
    d, a = operands(ins, 2)
    negate = ins.opcode == "neg"

    def run(m: Machine, act: np.ndarray) -> None:
        x = m.read(a, t, act)
        if ftz:
            x = flush_subnormals(x.astype(np.float64), fmt).astype(fmt.dtype)
        bits = x.view(UINT[t.bits])
        m.write_bits(d, bits ^ sign if negate else bits & ~sign, t, act)

    return run


@decoder("copysign")
def decode_copysign(ins: Instruction) -> Exec:
    """``copysign.T d, a, b``: ``b`` with the sign of ``a``."""
    mods = Mods(ins)
    t = mods.type("f")
    mods.done()
    if t.name not in ("f32", "f64"):
        raise invalid(ins, f"copysign.{t.name}")
    sign = UINT[t.bits](1 << (t.bits - 1))
    d, a, b = operands(ins, 3)

    def run(m: Machine, act: np.ndarray) -> None:
        sa, mb = m.read_bits(a, t, act) & sign, m.read_bits(b, t, act) & ~sign
        m.write_bits(d, sa | mb, t, act)

    return run


# ===================================================================== conversions

_INT_ROUNDINGS = {"rni": "rn", "rzi": "rz", "rmi": "rm", "rpi": "rp"}


@decoder("cvt")
def decode_cvt(ins: Instruction) -> Exec:
    """``cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a`` between any two of the integer and
    float types, with PTX's rules on which rounding modifier each pair needs."""
    mods = Mods(ins)
    if "tf32" in mods.rest:
        return _cvt_tf32(ins, mods)
    if mods.rest[-1:] in (["e4m3x2"], ["e5m2x2"]):
        return _cvt_f16x2_from_f8x2(ins, mods)
    src = mods.type()
    dst = mods.type()
    rnd = mods.one_of((*ROUNDINGS, *_INT_ROUNDINGS))
    ftz, sat = mods.flag("ftz"), mods.flag("sat")
    mods.done()
    d, a = operands(ins, 2)
    if ftz and "f32" not in (src.name, dst.name):
        raise invalid(ins, ".ftz on a conversion without .f32")
    if not src.is_float and not dst.is_float:
        if rnd is not None or ftz:
            raise invalid(ins, "rounding or .ftz on an integer conversion")
        convert = _int_to_int(src, dst, sat)
    elif src.is_float and dst.is_float:
        convert = _float_to_float(ins, src, dst, rnd, ftz, sat)
    elif src.is_float:
        if rnd not in _INT_ROUNDINGS:
            raise invalid(ins, "float-to-integer cvt needs .rni/.rzi/.rmi/.rpi")
        convert = _float_to_int(src, dst, _INT_ROUNDINGS[rnd], ftz)
    else:
        if rnd not in ROUNDINGS:
            raise invalid(ins, "integer-to-float cvt needs .rn/.rz/.rm/.rp")
        convert = _int_to_float(src, dst, rnd, sat)

    def run(m: Machine, act: np.ndarray) -> None:
        m.write(d, convert(m.read(a, src, act, widen=True)), dst, act, widen=True)

    return run


def _cvt_tf32(ins: Instruction, mods: Mods) -> Exec:
    """``cvt.rna{.satfinite}.tf32.f32 d, a`` and ``cvt.{rn,rz}{.satfinite}{.relu}.tf32.f32
    d, a`` (ptxas: sm_90 and later): ``a`` rounded to tf32 (10 fraction bits, f32's
    exponent range, subnormals kept), written as its f32 bits to the ``.b32`` ``d``.
    ``.satfinite`` clamps overflow to the largest finite tf32, ``.relu`` negative
    results to +0; a NaN gives the canonical NaN."""
    src = mods.type("f")
    if mods.rest[-1:] != ["tf32"]:
        raise invalid(ins, "cvt to .tf32 must name .tf32 then .f32")
    mods.rest.pop()
    rnd = mods.one_of(("rna", "rn", "rz"))
    satfinite, relu = mods.flag("satfinite"), mods.flag("relu")
    mods.done()
    if src.name != "f32" or rnd is None or (relu and rnd == "rna"):
        raise invalid(
            ins, "cvt to .tf32 is .rna{.satfinite} or .rn/.rz{.satfinite}{.relu}, from .f32"
        )
    d, a = operands(ins, 2)
    f32, b32 = TYPES["f32"], TYPES["b32"]

    def run(m: Machine, act: np.ndarray) -> None:
        x = float_in(m.read(a, f32, act, widen=True), FORMATS["f32"], False)
        r = round_to_format(x, TF32, rnd)
        if satfinite:
            r = np.clip(r, -TF32.max_finite, TF32.max_finite)
        if relu:
            r = np.where(r < 0, 0.0, r)
        bits = canonicalize_nan(r.astype(np.float32), TF32).view(np.uint32)
        m.write_bits(d, bits, b32, act)

    return run


def _cvt_f16x2_from_f8x2(ins: Instruction, mods: Mods) -> Exec:
    """``cvt.rn.f16x2.{e4m3x2|e5m2x2} d, a`` (sm_89 and later, PTX ISA 8.1): the two
    8-bit floats of the ``.b16`` ``a`` widened exactly to f16, the upper byte's into
    the upper half of the ``.b32`` ``d``.  A NaN gives the canonical f16 NaN
    (``0x7fff``): which NaN the GPU writes is not modelled."""
    f8 = {"e4m3x2": ml_dtypes.float8_e4m3fn, "e5m2x2": ml_dtypes.float8_e5m2}[mods.rest.pop()]
    if mods.rest != ["rn", "f16x2"]:
        raise invalid(ins, "cvt from .e4m3x2/.e5m2x2 is cvt.rn.f16x2 (.relu is not modelled)")
    d, a = operands(ins, 2)

    def run(m: Machine, act: np.ndarray) -> None:
        word = m.read_bits(a, TYPES["b16"], act).astype(np.uint16)
        halves = []
        for byte in (word & 0xFF, word >> 8):
            h = byte.astype(np.uint8).view(f8).astype(np.float16)
            halves.append(np.where(np.isnan(h), np.uint16(0x7FFF), h.view(np.uint16)))
        bits = halves[0].astype(np.uint32) | (halves[1].astype(np.uint32) << 16)
        m.write_bits(d, bits, TYPES["b32"], act)

    return run


def int_range(t: PtxType) -> tuple[int, int]:
    if t.kind == "s":
        return -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
    return 0, (1 << t.bits) - 1


def _int_to_int(src: PtxType, dst: PtxType, sat: bool) -> Callable[[np.ndarray], np.ndarray]:
    """Sign- or zero-extend by the source type, then truncate (or clamp with ``.sat``)."""
    out = SINT[dst.bits] if dst.kind == "s" else UINT[dst.bits]

    def convert(v: np.ndarray) -> np.ndarray:
        wide = v.astype(np.int64 if src.kind == "s" else np.uint64)
        if sat:
            lo, hi = int_range(dst)
            if src.kind == "s":
                wide = np.clip(wide, max(lo, -(2**63)), min(hi, 2**63 - 1))
            else:
                wide = np.minimum(wide, np.uint64(hi))
        return wide.astype(out)

    return convert


def _float_to_float(
    ins: Instruction, src: PtxType, dst: PtxType, rnd: str | None, ftz: bool, sat: bool
) -> Callable[[np.ndarray], np.ndarray]:
    sf, df = FORMATS[src.name], FORMATS[dst.name]
    widening = df.precision >= sf.precision and df.emax >= sf.emax and df.emin <= sf.emin
    if src == dst:
        if rnd is not None and rnd not in _INT_ROUNDINGS:
            raise invalid(ins, f"cvt.{rnd} between equal float types")
        mode = _INT_ROUNDINGS.get(rnd or "")

        def same(v: np.ndarray) -> np.ndarray:
            x = float_in(v, sf, ftz)
            return _float_out(round_integral(x, mode) if mode else x, df, ftz, sat)

        return same
    if widening and rnd is not None:
        raise invalid(ins, f"cvt.{rnd} on a widening float conversion")
    if not widening and rnd not in ROUNDINGS:
        raise invalid(ins, "narrowing float cvt needs .rn/.rz/.rm/.rp")
    mode = rnd or "rn"

    def convert(v: np.ndarray) -> np.ndarray:
        x = round_to_format(float_in(v, sf, ftz), df, mode)
        return _float_out(x, df, ftz, sat)

    return convert


def _float_to_int(
    src: PtxType, dst: PtxType, mode: str, ftz: bool
) -> Callable[[np.ndarray], np.ndarray]:
    """Round to an integer, saturate to the destination's range, NaN to 0."""
    fmt = FORMATS[src.name]
    lo, hi = int_range(dst)
    out = SINT[dst.bits] if dst.kind == "s" else UINT[dst.bits]

    def convert(v: np.ndarray) -> np.ndarray:
        r = round_integral(float_in(v, fmt, ftz), mode)
        r = np.where(np.isnan(r), 0.0, r)
        too_high = r >= float(hi + 1)  # exact: hi + 1 is a power of two
        r = np.where(too_high, 0.0, np.maximum(r, float(lo)))
        if dst.bits == 64 and dst.kind == "u":  # float -> uint64 above 2^63 in two steps
            big = r >= 2.0**63
            res = np.where(big, r - 2.0**63, r).astype(np.uint64)
            res = np.where(big, res + np.uint64(2**63), res)
        else:
            res = r.astype(out)
        return np.where(too_high, np.array(hi).astype(out), res.astype(out))

    return convert


def _int_to_float(
    src: PtxType, dst: PtxType, mode: str, sat: bool
) -> Callable[[np.ndarray], np.ndarray]:
    """Exact: 64-bit integers are split into two exactly representable halves."""
    fmt = FORMATS[dst.name]

    def convert(v: np.ndarray) -> np.ndarray:
        if src.bits <= 32:
            x = round_to_format(v.astype(np.float64), fmt, mode)
        else:
            shift = v.dtype.type(32)
            hi = (v >> shift).astype(np.float64) * 2.0**32  # arithmetic shift when signed
            lo = (v & v.dtype.type(0xFFFFFFFF)).astype(np.float64)
            s, e = two_sum(hi, lo)
            x = round_pair(s, e, fmt, mode)
        return _float_out(x, fmt, False, sat)

    return convert
