"""Unit tests of the PTX simulator (``tileir.testing``) on small hand-written kernels.

Float results are checked bit for bit against an independent oracle: the exact
rational result (``fractions``) and the two representable neighbours that
bracket it, found by stepping through bit patterns.  Integer results are checked
against Python's unbounded integers reduced modulo 2^N.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from tileir.testing import (
    INVALID,
    MISALIGNED,
    OUT_OF_BOUNDS,
    RACE,
    UNINITIALIZED,
    UNSUPPORTED,
    SimulationError,
    simulate,
)

BF16 = np.dtype(ml_dtypes.bfloat16)

# ----------------------------------------------------------------------- helpers

HEADER = ".version 8.0\n.target sm_90a\n.address_size 64\n"

#: ``.reg`` type and load/store width for each element type an elementwise test uses.
REG_OF = {
    "f32": ("f32", 32),
    "f64": ("f64", 64),
    "f16": ("b16", 16),
    "bf16": ("b16", 16),
    "b16": ("b16", 16),
    "u16": ("b16", 16),
    "s16": ("b16", 16),
    "b32": ("b32", 32),
    "u32": ("b32", 32),
    "s32": ("b32", 32),
    "b64": ("b64", 64),
    "u64": ("b64", 64),
    "s64": ("b64", 64),
}


def kernel(body: str, params: Sequence[str], ntid: Sequence[int] = (32,), name: str = "k") -> str:
    """A PTX module with one kernel; ``params`` are ``.param`` declarations."""
    plist = ",\n".join(f"\t.param {p}" for p in params)
    dims = ", ".join(str(n) for n in ntid)
    return f"{HEADER}\n.visible .entry {name}(\n{plist}\n)\n.reqntid {dims}\n{{\n{body}\n}}\n"


def elementwise(
    body: str,
    inputs: Sequence[np.ndarray],
    in_type: str,
    out_type: str,
    ntid: int = 64,
) -> np.ndarray:
    """Run ``body`` once per element: thread i loads element i of each input into
    registers ``a``, ``b``, ``c``; the kernel stores register ``d``.  Scratch
    registers: ``x``, ``y`` (same type as ``d``), ``p``, ``q`` (pred), ``h`` (b16),
    ``w`` (b32), ``l`` (b64)."""
    n = len(inputs[0])
    in_reg, in_bits = REG_OF[in_type]
    out_reg, out_bits = REG_OF[out_type]
    out_dtype = {16: np.uint16, 32: np.uint32, 64: np.uint64}[out_bits]
    out = np.zeros(-(-n // ntid) * ntid, dtype=out_dtype)
    padded = []
    for a in inputs:
        p = np.zeros(len(out), dtype=a.dtype)
        p[:n] = a
        padded.append(p)
    lines = [
        ".reg .b32 %c, %nt, %t, %i;",
        ".reg .b64 %base, %addr, %off_in, %off_out;",
        f".reg .{in_reg} a, b, c;",
        f".reg .{out_reg} d, x, y;",
        ".reg .pred p, q;",
        ".reg .b16 h;",
        ".reg .b32 w;",
        ".reg .b64 l;",
        "mov.u32 %c, %ctaid.x;",
        "mov.u32 %nt, %ntid.x;",
        "mov.u32 %t, %tid.x;",
        "mad.lo.s32 %i, %c, %nt, %t;",
        f"mul.wide.u32 %off_in, %i, {in_bits // 8};",
        f"mul.wide.u32 %off_out, %i, {out_bits // 8};",
    ]
    for k, reg in zip(range(len(inputs)), "abc", strict=False):
        lines += [
            f"ld.param.u64 %base, [p{k}];",
            "cvta.to.global.u64 %base, %base;",
            "add.s64 %addr, %base, %off_in;",
            f"ld.global.b{in_bits} {reg}, [%addr];",
        ]
    lines += [
        body,
        f"ld.param.u64 %base, [p{len(inputs)}];",
        "add.s64 %addr, %base, %off_out;",
        f"st.global.b{out_bits} [%addr], d;",
        "ret;",
    ]
    params = [f".u64 p{k}" for k in range(len(inputs) + 1)]
    ptx = kernel("\n".join(lines), params, (ntid,))
    simulate(ptx, (len(out) // ntid, 1, 1), [*padded, out])
    return out[:n]


def as_bits(values: np.ndarray | Sequence[object], dtype: np.dtype | type) -> np.ndarray:
    """Float values of ``dtype`` as their bit patterns (unsigned ints)."""
    arr = np.asarray(values, dtype=dtype)
    return arr.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.itemsize])


def from_bits(bits: np.ndarray, dtype: np.dtype | type) -> np.ndarray:
    return bits.view(dtype)


def _step(x: float, dtype: np.dtype, up: bool) -> float:
    """The next representable ``dtype`` value above (or below) finite ``x``."""
    width = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
    bits = int(np.array(x, dtype=dtype).view(width))
    sign = 1 << (dtype.itemsize * 8 - 1)
    if x == 0:
        bits = 1 if up else sign | 1
    elif (x > 0) == up:
        bits += 1
    else:
        bits -= 1
    return float(np.array(bits, dtype=width).view(dtype))


def oracle(exact: Fraction, dtype: np.dtype | type, mode: str) -> float:
    """``exact`` correctly rounded to ``dtype`` in mode rn/rz/rm/rp (finite results only).

    Independent of the simulator: start near, then step through representable
    values until two neighbours bracket the exact value."""
    dt = np.dtype(dtype)
    x = float(np.array(float(exact), dtype=dt))
    while Fraction(x) > exact:
        x = _step(x, dt, up=False)
    while Fraction(_step(x, dt, up=True)) <= exact:
        x = _step(x, dt, up=True)
    lo = x
    if Fraction(lo) == exact:
        return lo
    hi = _step(lo, dt, up=True)
    if mode == "rm":
        return lo
    if mode == "rp":
        return hi
    if mode == "rz":
        return lo if exact > 0 else hi
    d_lo, d_hi = exact - Fraction(lo), Fraction(hi) - exact
    if d_lo != d_hi:
        return lo if d_lo < d_hi else hi
    width = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    return lo if int(np.array(lo, dtype=dt).view(width)) % 2 == 0 else hi


def random_floats(rng: np.random.Generator, n: int, dtype: np.dtype | type) -> np.ndarray:
    """Values of mixed sign and magnitude, with many close to each other (cancellation)."""
    base = rng.standard_normal(n) * np.exp2(rng.integers(-8, 8, n))
    near = base * (1 + rng.standard_normal(n) * 2.0**-20)
    return np.where(rng.random(n) < 0.5, base, -near).astype(dtype)


# -------------------------------------------------------------------- basics


def test_grid_of_ctas_adds_vectors() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    got = from_bits(elementwise("add.rn.f32 d, a, b;", [a, b], "f32", "f32"), np.float32)
    np.testing.assert_array_equal(got, a + b)


def test_special_registers_give_thread_coordinates() -> None:
    body = """
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ctaid.y;
    mov.u32 %r5, %ntid.x;
    mov.u32 %r6, %nctaid.x;
    mov.u32 %r7, %laneid;
    // linear = ((ctaid.y * nctaid.x + ctaid.x) * 8 + tid.y * ntid.x + tid.x)
    mad.lo.s32 %r8, %r4, %r6, %r3;
    mad.lo.s32 %r9, %r2, %r5, %r1;
    mad.lo.s32 %r10, %r8, 8, %r9;
    mad.lo.s32 %r11, %r3, 100, %r7;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r10, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r11;
    """
    out = np.zeros(3 * 2 * 8, dtype=np.uint32)
    simulate(kernel(body, [".u64 out"], (4, 2, 1)), (3, 2, 1), [out])
    linear = np.arange(out.size)
    cta, local = linear // 8, linear % 8
    np.testing.assert_array_equal(out, (cta % 3) * 100 + local % 32)


def test_scalar_parameters_of_every_kind() -> None:
    body = """
    .reg .b16 %rs<4>;
    .reg .b32 %r<4>;
    .reg .f32 %f1;
    .reg .b64 %rd<3>;
    ld.param.f32 %f1, [pf];
    ld.param.u32 %r1, [pu];
    ld.param.s8 %rs1, [pb];
    ld.param.b16 %rs2, [ph];
    ld.param.u64 %rd1, [out];
    st.global.f32 [%rd1], %f1;
    st.global.u32 [%rd1+4], %r1;
    st.global.b16 [%rd1+8], %rs1;
    st.global.b16 [%rd1+10], %rs2;
    """
    params = [".f32 pf", ".u32 pu", ".u8 pb", ".b16 ph", ".u64 out"]
    out = np.zeros(3, dtype=np.uint32)
    args = [0.1, 0xFFFFFFFF, 200, np.float16(1.5), out]
    simulate(kernel(body, params, (1,)), (1, 1, 1), args)
    assert out[0] == as_bits([0.1], np.float32)[0]  # rounded to nearest f32
    assert out[1] == 0xFFFFFFFF
    # ld.param.s8 sign-extends the byte 200 (= -56) into the 16-bit register.
    assert out[2] & 0xFFFF == (-56) & 0xFFFF
    assert out[2] >> 16 == as_bits([1.5], np.float16)[0]


def test_vector_loads_stores_and_register_packing() -> None:
    """v4.b32 load, unpack two f16 halves, swap them, pack, v2.b64 store."""
    body = """
    .reg .b32 %r<10>;
    .reg .b16 %rs<3>;
    .reg .b64 %rd<8>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd4];
    mov.b32 {%rs1, %rs2}, %r2;
    mov.b32 %r6, {%rs2, %rs1};
    mov.b64 %rd6, {%r6, %r3};
    mov.b64 %rd7, {%r4, %r5};
    st.global.v2.b64 [%rd5], {%rd6, %rd7};
    """
    src = np.arange(8 * 4, dtype=np.uint32) * 0x00010003 + 0x12345
    dst = np.zeros_like(src)
    simulate(kernel(body, [".u64 src", ".u64 dst"], (8,)), (1, 1, 1), [src, dst])
    expect = src.copy().reshape(8, 4)
    expect[:, 0] = (expect[:, 0] >> 16) | ((expect[:, 0] & 0xFFFF) << 16)
    np.testing.assert_array_equal(dst, expect.reshape(-1))


def test_labels_are_local_to_their_scope() -> None:
    """Two `{ }` blocks may each have a label of the same name (inline PTX blocks
    do: `tileas_to_llvm/async_copy.py` branches over its edge path to `tileir_copied`
    in every copy): a branch goes to its own block's label, as ptxas takes it; a
    second label of one name in one scope is still an error."""
    body = """
    .reg .pred %p1;
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [x];
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd3, %rd1, %rd2;
    setp.lt.u32 %p1, %r1, 16;
    {
    @%p1 bra done;
    st.global.b32 [%rd3], %r1;
    done:
    }
    {
    @!%p1 bra done;
    st.global.b32 [%rd3+4], %r1;
    done:
    }
    """
    x = np.zeros(64, dtype=np.int32)
    simulate(kernel(body, [".u64 x"], (32,)), (1, 1, 1), [x])
    tid = np.arange(32)
    np.testing.assert_array_equal(x[0::2], np.where(tid < 16, 0, tid))
    np.testing.assert_array_equal(x[1::2], np.where(tid < 16, tid, 0))
    twice = body.replace("    }\n    {\n", "")
    with pytest.raises(SimulationError, match="label done defined twice"):
        simulate(kernel(twice, [".u64 x"], (32,)), (1, 1, 1), [np.zeros(64, dtype=np.int32)])


def test_guards_mask_stores_and_scoped_registers() -> None:
    """The load and store only run where ``i < n``; inside ``{ }`` a scoped
    register shadows nothing outside and can be redeclared in the next block."""
    body = """
    .reg .pred %p1;
    .reg .b32 %r<4>;
    .reg .b64 %rd<5>;
    mov.u32 %r1, %tid.x;
    ld.param.u32 %r2, [n];
    setp.lt.s32 %p1, %r1, %r2;
    ld.param.u64 %rd1, [x];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    mov.b32 %r3, 7;
    {
    .reg .b32 t;
    @%p1 ld.global.b32 t, [%rd3];
    @!%p1 mov.b32 t, 0;
    add.s32 %r3, t, 1000;
    }
    {
    .reg .b32 t;
    mov.b32 t, %r3;
    @%p1 st.global.b32 [%rd3], t;
    }
    """
    x = np.arange(32, dtype=np.int32)
    simulate(kernel(body, [".u64 x", ".u32 n"], (32,)), (1, 1, 1), [x, 20])
    np.testing.assert_array_equal(x, np.where(np.arange(32) < 20, np.arange(32) + 1000, x))


def test_strided_view_uses_its_base_buffer() -> None:
    """A non-contiguous view is uploaded as its base; the pointer is the view's start."""
    body = """
    .reg .b32 %r<5>;
    .reg .f32 %f1;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    ld.param.u32 %r3, [ld];
    mad.lo.s32 %r4, %r2, %r3, %r1;
    ld.param.u64 %rd1, [x];
    mul.wide.s32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3];
    add.rn.f32 %f1, %f1, 0f3F800000;
    st.global.f32 [%rd3], %f1;
    """
    base = np.zeros((4, 10), dtype=np.float32)
    view = base[1:, 2:6]  # starts 12 elements into base
    simulate(kernel(body, [".u64 x", ".u32 ld"], (4, 3)), (1, 1, 1), [view, 10])
    expect = np.zeros((4, 10), dtype=np.float32)
    expect[1:, 2:6] = 1.0
    np.testing.assert_array_equal(base, expect)


def test_views_keep_their_offset_and_alias() -> None:
    """A view 4 bytes into its base is only 4-byte aligned on the device too, and two
    views of one base are one buffer: a thread reads what another view's thread wrote."""
    body = """
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    ld.global.v2.b32 {%r1, %r2}, [%rd1];
    st.global.v2.b32 [%rd2], {%r2, %r1};
    """
    base = np.arange(16, dtype=np.uint32)
    simulate(kernel(body, [".u64 src", ".u64 dst"], (1,)), (1, 1, 1), [base[2:4], base[8:10]])
    np.testing.assert_array_equal(base[8:10], [3, 2])
    with pytest.raises(SimulationError, match="8-byte load not 8-byte aligned") as err:
        simulate(kernel(body, [".u64 src", ".u64 dst"], (1,)), (1, 1, 1), [base[1:3], base[8:10]])
    assert "4 bytes (element 1) into array argument 0" in str(err.value)


# ------------------------------------------------------------------ integers

I32 = np.array([0, 1, -1, 7, -7, 2**31 - 1, -(2**31), 123456789, -98765, 2**30], dtype=np.int32)


def _wrap(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


@pytest.mark.parametrize(
    ("op", "fn"),
    [
        ("add.s32 d, a, b", lambda a, b: a + b),
        ("sub.s32 d, a, b", lambda a, b: a - b),
        ("mul.lo.s32 d, a, b", lambda a, b: a * b),
        ("mul.hi.s32 d, a, b", lambda a, b: (a * b) >> 32),
        ("mul.hi.u32 d, a, b", lambda a, b: ((a % 2**32) * (b % 2**32)) >> 32),
        ("mad.lo.s32 d, a, b, a", lambda a, b: a * b + a),
        ("min.s32 d, a, b", min),
        ("max.u32 d, a, b", lambda a, b: max(a % 2**32, b % 2**32)),
        ("abs.s32 d, a", lambda a, b: abs(a)),
        ("neg.s32 d, b", lambda a, b: -b),
        ("xor.b32 d, a, b", lambda a, b: a ^ b),
        ("add.sat.s32 d, a, b", lambda a, b: max(-(2**31), min(2**31 - 1, a + b))),
    ],
)
def test_int32_arithmetic_wraps(op: str, fn: Callable[[int, int], int]) -> None:
    a = np.repeat(I32, len(I32))
    b = np.tile(I32, len(I32))
    got = elementwise(op + ";", [a, b], "s32", "s32").view(np.int32)
    want = [_wrap(fn(int(x), int(y)), 32, True) for x, y in zip(a, b, strict=True)]
    np.testing.assert_array_equal(got, want)


I64 = np.array([0, 3, -3, 2**63 - 1, -(2**63), 2**40 + 17, -(2**33) - 5, 987654321987], np.int64)


@pytest.mark.parametrize(
    ("op", "fn"),
    [
        ("mul.lo.s64 d, a, b", lambda a, b: a * b),
        ("mul.hi.s64 d, a, b", lambda a, b: (a * b) >> 64),
        ("mul.hi.u64 d, a, b", lambda a, b: ((a % 2**64) * (b % 2**64)) >> 64),
        ("mad.lo.s64 d, a, 4, b", lambda a, b: a * 4 + b),
        ("sub.s64 d, a, b", lambda a, b: a - b),
    ],
)
def test_int64_arithmetic_wraps(op: str, fn: Callable[[int, int], int]) -> None:
    a = np.repeat(I64, len(I64))
    b = np.tile(I64, len(I64))
    got = elementwise(op + ";", [a, b], "s64", "s64").view(np.int64)
    want = [_wrap(fn(int(x), int(y)), 64, True) for x, y in zip(a, b, strict=True)]
    np.testing.assert_array_equal(got, want)


def test_wide_multiply_add() -> None:
    a = np.repeat(I32, len(I32))
    b = np.tile(I32, len(I32))
    body = "cvt.s64.s32 x, b; mad.wide.s32 d, a, b, x;"
    got = elementwise(body.replace("; ", ";\n"), [a, b], "s32", "s64").view(np.int64)
    want = [_wrap(int(x) * int(y) + int(y), 64, True) for x, y in zip(a, b, strict=True)]
    np.testing.assert_array_equal(got, want)


def test_division_truncates_and_wraps() -> None:
    a = np.repeat(I32, len(I32))
    b = np.tile(I32, len(I32))
    nonzero = b != 0
    q = elementwise("div.s32 d, a, b;", [a, b], "s32", "s32").view(np.int32)
    r = elementwise("rem.s32 d, a, b;", [a, b], "s32", "s32").view(np.int32)
    for x, y, gq, gr in zip(a[nonzero], b[nonzero], q[nonzero], r[nonzero], strict=True):
        quotient = abs(int(x)) // abs(int(y)) * (1 if (x < 0) == (y < 0) else -1)
        assert gq == _wrap(quotient, 32, True), (x, y)
        assert gr == _wrap(int(x) - quotient * int(y), 32, True), (x, y)
    # PTX leaves x / 0 unspecified; the simulator documents all-ones and the dividend.
    np.testing.assert_array_equal(q[~nonzero], -1)
    np.testing.assert_array_equal(r[~nonzero], a[~nonzero])


@pytest.mark.parametrize(
    ("op", "fill"), [("shl.b32", "zero"), ("shr.u32", "zero"), ("shr.s32", "sign")]
)
def test_shift_amounts_clamp(op: str, fill: str) -> None:
    amounts = np.array([0, 1, 5, 31, 32, 33, 255, 2**31, 2**32 - 1], dtype=np.uint32)
    values = np.array([0x80000001, 0x7FFFFFFF, 0xF0F0F0F0], dtype=np.uint32)
    a = np.repeat(values, len(amounts))
    b = np.tile(amounts, len(values))
    got = elementwise(f"{op} d, a, b;", [a, b], "u32", "u32")
    for x, k, g in zip(a, b, got, strict=True):
        x, k = int(x), int(k)
        if op == "shl.b32":
            want = (x << k) & 0xFFFFFFFF if k < 32 else 0
        elif op == "shr.u32":
            want = x >> k if k < 32 else 0
        else:
            sx = _wrap(x, 32, True)
            want = (sx >> min(k, 31)) & 0xFFFFFFFF
        assert g == want, (op, hex(x), k, fill)


def _bfe_reference(x: int, pos: int, length: int, bits: int, signed: bool) -> int:
    pos, length, msb = pos & 0xFF, length & 0xFF, bits - 1
    sbit = (x >> min(pos + length - 1, msb)) & 1 if signed and length else 0
    d = 0
    for i in range(bits):
        bit = (x >> (pos + i)) & 1 if i < length and pos + i <= msb else sbit
        d |= bit << i
    return d


def _bfi_reference(a: int, b: int, pos: int, length: int, bits: int) -> int:
    pos, length = pos & 0xFF, length & 0xFF
    for i in range(length):
        if pos + i < bits:
            b = (b & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
    return b


@pytest.mark.parametrize("kind", ["u32", "s32"])
def test_bit_field_extract(kind: str) -> None:
    rng = np.random.default_rng(7)
    values = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    values[:4] = [0x80, 0xFF00, 0x80000000, 0x7FFFFFFF]
    pos = np.array([0, 8, 24, 31, 30, 32, 40, 0, 4, 260] * 7, dtype=np.uint32)[:64]
    length = np.array([8, 8, 8, 1, 8, 8, 4, 0, 32, 8, 255] * 6, dtype=np.uint32)[:64]
    got = elementwise(f"bfe.{kind} d, a, b, c;", [values, pos, length], "u32", "u32")
    want = [
        _bfe_reference(int(x), int(p), int(n), 32, kind == "s32")
        for x, p, n in zip(values, pos, length, strict=True)
    ]
    np.testing.assert_array_equal(got, np.array(want, dtype=np.uint32))


def test_bit_field_insert() -> None:
    rng = np.random.default_rng(8)
    a = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    pos = np.array([0, 8, 24, 31, 30, 32, 40, 0, 4, 264] * 7, dtype=np.uint32)[:64]
    length = np.array([8, 8, 8, 1, 8, 8, 4, 0, 32, 8, 255] * 6, dtype=np.uint32)[:64]
    body = "mov.b32 x, b;\nbfi.b32 d, a, x, c, w;"
    # bfi takes five operands; route pos and len through `c` and a scratch register.
    packed = (pos.astype(np.uint64) | (length.astype(np.uint64) << 16)).astype(np.uint32)
    body = "and.b32 w, c, 0xFFFF;\nshr.u32 c, c, 16;\n" + body.replace("c, w", "w, c")
    got = elementwise(body, [a, b, packed], "u32", "u32")
    want = [
        _bfi_reference(int(x), int(y), int(p), int(n), 32)
        for x, y, p, n in zip(a, b, pos, length, strict=True)
    ]
    np.testing.assert_array_equal(got, np.array(want, dtype=np.uint32))


def test_narrow_shift_and_integer_conversions() -> None:
    a = np.array([0x0080, 0x00FF, 0x7F01, 0x8000, 0xFFFF, 0x1234], dtype=np.uint16)
    # cvt.s16.s8 sign-extends the low byte of a 16-bit register.
    got = elementwise("cvt.s16.s8 d, a;", [a], "u16", "u16")
    want = [_wrap(_wrap(int(x), 8, True), 16, False) for x in a]
    np.testing.assert_array_equal(got, want)
    got = elementwise("cvt.u32.u16 w, a;\nshl.b16 d, a, w;", [a], "u16", "u16")
    want = [(int(x) << int(x)) & 0xFFFF if int(x) < 16 else 0 for x in a]
    np.testing.assert_array_equal(got, want)
    b = np.array([-1, 300, -300, 127, 70000, -(2**31)], dtype=np.int32)
    sat = elementwise("cvt.sat.s8.s32 x, a;\ncvt.s32.s8 d, x;", [b], "s32", "s32").view(np.int32)
    np.testing.assert_array_equal(sat, np.clip(b, -128, 127))
    trunc = elementwise("cvt.u16.u32 x, a;\ncvt.u32.u16 d, x;", [b], "s32", "u32")
    np.testing.assert_array_equal(trunc, b.view(np.uint32) & 0xFFFF)
    wide = elementwise("cvt.s64.s32 d, a;", [b], "s32", "s64").view(np.int64)
    np.testing.assert_array_equal(wide, b.astype(np.int64))


# ------------------------------------------------------------------ floats

F32_SPECIALS = np.array(
    [0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 1e-45, -3e-39, 3.4e38, 2.5], np.float32
)


def test_setp_ordered_and_unordered_comparisons() -> None:
    a = np.repeat(F32_SPECIALS, len(F32_SPECIALS))
    b = np.tile(F32_SPECIALS, len(F32_SPECIALS))
    nan = np.isnan(a) | np.isnan(b)
    with np.errstate(invalid="ignore"):
        cases = {
            "lt": (a < b) & ~nan,
            "ne": (a != b) & ~nan,
            "eq": a == b,
            "ltu": (a < b) | nan,
            "neu": (a != b) | nan,
            "geu": (a >= b) | nan,
            "num": ~nan,
            "nan": nan,
        }
    for cmp, want in cases.items():
        body = f"setp.{cmp}.f32 p, a, b;\nselp.u32 d, 1, 0, p;"
        got = elementwise(body, [a, b], "f32", "u32")
        np.testing.assert_array_equal(got, want.astype(np.uint32), err_msg=cmp)


def test_min_max_nan_and_signed_zero_rules() -> None:
    a = np.repeat(F32_SPECIALS, len(F32_SPECIALS))
    b = np.tile(F32_SPECIALS, len(F32_SPECIALS))
    got_max = from_bits(elementwise("max.f32 d, a, b;", [a, b], "f32", "f32"), np.float32)
    got_nan = elementwise("max.NaN.f32 d, a, b;", [a, b], "f32", "f32")
    got_min = from_bits(elementwise("min.f32 d, a, b;", [a, b], "f32", "f32"), np.float32)
    for x, y, mx, mn, mnan in zip(a, b, got_max, got_min, got_nan, strict=True):
        if np.isnan(x) and np.isnan(y):
            assert np.isnan(mx) and np.isnan(mn)
        elif np.isnan(x) or np.isnan(y):
            other = y if np.isnan(x) else x
            assert as_bits([mx], np.float32)[0] == as_bits([other], np.float32)[0]
        elif x == 0 and y == 0:
            assert np.signbit(mx) == (np.signbit(x) and np.signbit(y))
            assert np.signbit(mn) == (np.signbit(x) or np.signbit(y))
        else:
            assert mx == max(x, y) and mn == min(x, y)
        if np.isnan(x) or np.isnan(y):
            assert mnan == 0x7FFFFFFF  # canonical NaN
    # .ftz flushes the subnormal operand before comparing: max(-3e-39, -0.0) is -0.0.
    sub = np.array([-3e-39], np.float32)
    got = elementwise("max.ftz.f32 d, a, b;", [sub, np.array([-0.0], np.float32)], "f32", "f32")
    assert got[0] == 0x80000000


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "fma", "sqrt"])
def test_f32_arithmetic_rounds_exactly(op: str, mode: str) -> None:
    rng = np.random.default_rng(hash((op, mode)) % 2**32)
    n = 512
    a, b, c = (random_floats(rng, n, np.float32) for _ in range(3))
    a[:4] = [1.0, -1.0, 3.0, 1.0]
    b[:4] = [2.0**-30, -(2.0**-30), 7.0, 1.0 + 2.0**-23]
    if op == "sqrt":
        a = np.abs(a)
    exact = {
        "add": lambda x, y, z: x + y,
        "sub": lambda x, y, z: x - y,
        "mul": lambda x, y, z: x * y,
        "div": lambda x, y, z: x / y,
        "fma": lambda x, y, z: x * y + z,
    }
    if op == "sqrt":
        got = elementwise(f"sqrt.{mode}.f32 d, a;", [a], "f32", "f32")
    elif op == "fma":
        got = elementwise(f"fma.{mode}.f32 d, a, b, c;", [a, b, c], "f32", "f32")
    else:
        got = elementwise(f"{op}.{mode}.f32 d, a, b;", [a, b], "f32", "f32")
    for i in range(n):
        x, y, z = (Fraction(float(v[i])) for v in (a, b, c))
        if op == "sqrt":
            want = _sqrt_oracle(float(a[i]), mode)
        else:
            q = exact[op](x, y, z)
            if q == 0:
                continue  # signed-zero rules are tested separately
            want = oracle(q, np.float32, mode)
        assert got[i] == as_bits([want], np.float32)[0], (op, mode, a[i], b[i], c[i])


def _sqrt_oracle(x: float, mode: str) -> float:
    """Correctly rounded f32 square root, by exact squaring of the neighbours."""
    r = float(np.float32(math.sqrt(x)))
    dt = np.dtype(np.float32)
    while Fraction(r) ** 2 > Fraction(x):
        r = _step(r, dt, up=False)
    while Fraction(_step(r, dt, up=True)) ** 2 <= Fraction(x):
        r = _step(r, dt, up=True)
    if Fraction(r) ** 2 == Fraction(x) or mode in ("rz", "rm"):
        return r
    hi = _step(r, dt, up=True)
    if mode == "rp":
        return hi
    mid = (Fraction(r) + Fraction(hi)) / 2  # never a tie: sqrt of an f32 is not a midpoint
    return r if mid**2 > Fraction(x) else hi


def test_directed_rounding_examples() -> None:
    one, tiny = np.array([1.0], np.float32), np.array([2.0**-30], np.float32)
    up = from_bits(elementwise("add.rp.f32 d, a, b;", [one, tiny], "f32", "f32"), np.float32)
    near = from_bits(elementwise("add.rn.f32 d, a, b;", [one, tiny], "f32", "f32"), np.float32)
    assert up[0] == np.nextafter(np.float32(1), np.float32(2)) and near[0] == 1.0
    # An exact zero sum is -0 when rounding toward -inf, +0 otherwise.
    minus = np.array([-1.0], np.float32)
    for mode, sign in (("rm", 0x80000000), ("rn", 0), ("rz", 0), ("rp", 0)):
        got = elementwise(f"add.{mode}.f32 d, a, b;", [one, minus], "f32", "f32")
        assert got[0] == sign, mode


def test_fma_rounds_once() -> None:
    a = np.array([1.0 + 2.0**-12], np.float32)
    c = np.array([-(1.0 + 2.0**-11)], np.float32)
    fused = from_bits(elementwise("fma.rn.f32 d, a, a, b;", [a, c], "f32", "f32"), np.float32)
    split = from_bits(
        elementwise("mul.rn.f32 x, a, a;\nadd.rn.f32 d, x, b;", [a, c], "f32", "f32"), np.float32
    )
    assert fused[0] == 2.0**-24 and split[0] == 0.0


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_f64_directed_rounding_and_fma(mode: str) -> None:
    rng = np.random.default_rng(7)
    n = 64
    a, b, c = (random_floats(rng, n, np.float64) for _ in range(3))
    for op, fn in (
        ("add", lambda x, y, z: x + y),
        ("mul", lambda x, y, z: x * y),
        ("div", lambda x, y, z: x / y),
        ("fma", lambda x, y, z: x * y + z),
    ):
        operands = "a, b, c" if op == "fma" else "a, b"
        got = elementwise(f"{op}.{mode}.f64 d, {operands};", [a, b, c], "f64", "f64")
        for i in range(n):
            q = fn(*(Fraction(float(v[i])) for v in (a, b, c)))
            want = oracle(q, np.float64, mode)
            assert got[i] == as_bits([want], np.float64)[0], (op, mode, i)


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["f16", "bf16"])
@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_cvt_f32_to_half_types(dtype: np.dtype, mode: str) -> None:
    rng = np.random.default_rng(3)
    x = random_floats(rng, 400, np.float32)
    name = "f16" if np.dtype(dtype) == np.float16 else "bf16"
    got = elementwise(f"cvt.{mode}.{name}.f32 d, a;", [x], "f32", "b16")
    for v, g in zip(x, got, strict=True):
        want = oracle(Fraction(float(v)), dtype, mode)
        assert g == as_bits([want], dtype)[0], (v, mode)
    if mode == "rn":  # numpy's own round-to-nearest conversion agrees
        np.testing.assert_array_equal(got, as_bits(x.astype(dtype), dtype))


def test_half_precision_fma_and_sign_ops() -> None:
    rng = np.random.default_rng(5)
    for dtype, name in ((np.float16, "f16"), (BF16, "bf16")):
        a, b, c = (random_floats(rng, 200, np.float32).astype(dtype) for _ in range(3))
        got = elementwise(f"fma.rn.{name} d, a, b, c;", [a, b, c], name, name)
        for i in range(len(a)):
            q = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
            if q != 0:
                assert got[i] == as_bits([oracle(q, dtype, "rn")], dtype)[0], (name, i)
        neg = elementwise(f"neg.{name} d, a;", [a], name, name)
        np.testing.assert_array_equal(neg, as_bits(a, dtype) ^ 0x8000)


def test_cvt_float_to_int_rounds_and_saturates() -> None:
    x = np.array([2.5, -2.5, 3.5, -0.7, 0.7, 1e10, -1e10, np.nan, np.inf, 1e-40], np.float32)
    expect = {
        "rni": [2, -2, 4, -1, 1, 2**31 - 1, -(2**31), 0, 2**31 - 1, 0],
        "rzi": [2, -2, 3, 0, 0, 2**31 - 1, -(2**31), 0, 2**31 - 1, 0],
        "rmi": [2, -3, 3, -1, 0, 2**31 - 1, -(2**31), 0, 2**31 - 1, 0],
        "rpi": [3, -2, 4, 0, 1, 2**31 - 1, -(2**31), 0, 2**31 - 1, 1],
    }
    for rnd, want in expect.items():
        got = elementwise(f"cvt.{rnd}.s32.f32 d, a;", [x], "f32", "s32").view(np.int32)
        np.testing.assert_array_equal(got, want, err_msg=rnd)
    unsigned = elementwise("cvt.rzi.u32.f32 d, a;", [x], "f32", "u32")
    np.testing.assert_array_equal(unsigned, [2, 0, 3, 0, 0, 2**32 - 1, 0, 0, 2**32 - 1, 0])
    ftz = elementwise("cvt.rpi.ftz.s32.f32 d, a;", [x[-1:]], "f32", "s32")
    assert ftz[0] == 0  # the subnormal input is flushed to +0 first
    big = np.array([2.0**70, -(2.0**70), 2.0**62], np.float64)
    got = elementwise("cvt.rzi.s64.f64 d, a;", [big], "f64", "s64").view(np.int64)
    np.testing.assert_array_equal(got, [2**63 - 1, -(2**63), 2**62])


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_cvt_int_to_float_is_exact(mode: str) -> None:
    v = np.array([2**63 - 1, -(2**63), 2**53 + 1, -(2**40) - 3, 16777217, -16777219, 0], np.int64)
    got32 = elementwise(f"cvt.{mode}.f32.s64 d, a;", [v], "s64", "f32")
    got64 = elementwise(f"cvt.{mode}.f64.s64 d, a;", [v], "s64", "f64")
    for x, g32, g64 in zip(v, got32, got64, strict=True):
        assert g32 == as_bits([oracle(Fraction(int(x)), np.float32, mode)], np.float32)[0]
        assert g64 == as_bits([oracle(Fraction(int(x)), np.float64, mode)], np.float64)[0]


def test_integral_rounding_and_ftz_and_sat() -> None:
    x = np.array([2.5, -2.5, -0.5, 1.5, 1e-40, -1e-40, 0.3, 7.0, np.nan], np.float32)
    got = from_bits(elementwise("cvt.rni.f32.f32 d, a;", [x], "f32", "f32"), np.float32)
    np.testing.assert_array_equal(got[:8], np.rint(x[:8]))
    # add.ftz treats subnormal inputs as zero and flushes subnormal results.
    got = elementwise("add.rn.ftz.f32 d, a, a;", [x], "f32", "f32")
    assert got[4] == 0 and got[5] == 0x80000000
    sat = from_bits(elementwise("add.rn.sat.f32 d, a, a;", [x], "f32", "f32"), np.float32)
    np.testing.assert_array_equal(sat, np.clip(np.nan_to_num(x + x, nan=0.0), 0, 1))


def test_copysign_abs_and_canonical_nan() -> None:
    a = np.array([-1.0, 2.0, -0.0, np.nan], np.float32)
    b = np.array([3.0, -4.0, 5.0, -6.0], np.float32)
    got = from_bits(elementwise("copysign.f32 d, a, b;", [a, b], "f32", "f32"), np.float32)
    np.testing.assert_array_equal(got[:3], [-3.0, 4.0, -5.0])
    assert got[3] == -6.0 or got[3] == 6.0  # sign of a NaN's bit
    neg_nan = np.array([np.float32(-np.nan)], np.float32)
    got = elementwise("abs.f32 d, a;", [neg_nan], "f32", "f32")
    assert got[0] & 0x80000000 == 0
    got = elementwise("mul.rn.f32 d, a, a;", [np.array([np.nan], np.float32)], "f32", "f32")
    assert got[0] == 0x7FFFFFFF


def test_approx_instructions_nearest_and_bound() -> None:
    x = np.linspace(-3, 3, 256).astype(np.float32)
    body = "tanh.approx.f32 d, a;"
    nearest = from_bits(elementwise(body, [x], "f32", "f32"), np.float32)
    np.testing.assert_array_equal(nearest, np.tanh(x.astype(np.float64)).astype(np.float32))
    out = np.zeros(256, dtype=np.float32)
    ptx = kernel(
        """
    .reg .b32 %r1;
    .reg .f32 %f<3>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [x];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3];
    tanh.approx.f32 %f2, %f1;
    st.global.f32 [%rd3], %f2;
    """,
        [".u64 x"],
        (256,),
    )
    out[:] = x
    simulate(ptx, (1, 1, 1), [out], approx="bound")
    rel = (out.astype(np.float64) - nearest) / np.where(nearest == 0, 1, nearest)
    moved = nearest != 0
    assert np.all(np.abs(rel[moved]) <= 2.0**-11 * 1.01)
    assert np.all(np.abs(rel[moved][np.abs(nearest[moved]) < 0.99]) >= 2.0**-11 * 0.9)
    assert (rel > 0).any() and (rel < 0).any()


# --------------------------------------------------------------- control flow

LOOP_BODY = """
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    mov.b32 %r2, 0;              // i
    mov.b32 %r3, 0;              // sum
    bra.uni $L_head;
$L_head:
    setp.lt.s32 %p1, %r2, %r1;   // loop while i < tid: a different trip count per thread
    @!%p1 bra $L_exit;
    and.b32 %r4, %r2, 1;
    setp.eq.s32 %p2, %r4, 0;
    @%p2 bra $L_even;
    mul.lo.s32 %r5, %r2, 100;    // odd i: add 100 * i
    bra $L_join;
$L_even:
    mov.b32 %r5, %r2;            // even i: add i
$L_join:
    add.s32 %r3, %r3, %r5;
    add.s32 %r2, %r2, 1;
    bra $L_head;
$L_exit:
    mov.u32 %r6, %ctaid.x;
    mad.lo.s32 %r7, %r6, 32, %r1;
    ld.param.u64 %rd1, [x];
    mul.wide.u32 %rd2, %r7, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
"""


def test_divergent_loops_and_branches() -> None:
    """Each thread runs its own trip count, with an if/else inside the loop."""
    x = np.zeros(64, dtype=np.int32)
    simulate(kernel(LOOP_BODY, [".u64 x"], (32,)), (2, 1, 1), [x])
    tid = np.arange(64) % 32
    want = [sum(i if i % 2 == 0 else 100 * i for i in range(t)) for t in tid]
    np.testing.assert_array_equal(x, want)


def test_endless_loop_is_stopped() -> None:
    body = ".reg .b32 %r1;\nmov.b32 %r1, 0;\n$L:\nadd.s32 %r1, %r1, 1;\nbra.uni $L;"
    with pytest.raises(SimulationError, match="more than 1000 instructions"):
        simulate(kernel(body, [], (4,)), (1, 1, 1), [], max_steps=1000)


def test_divergent_bra_uni_and_barrier_are_errors() -> None:
    split = """
    .reg .pred %p1;
    .reg .b32 %r1;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 3;
    @%p1 bra{uni} $L_skip;
    {barrier}
$L_skip:
    ret;
    """
    with pytest.raises(SimulationError, match=r"bra\.uni diverges") as err:
        simulate(kernel(split.format(uni=".uni", barrier=""), [], (32,)), (1, 1, 1), [])
    assert err.value.kind == INVALID and "tid=(0, 0, 0)" in str(err.value)
    simulate(kernel(split.format(uni="", barrier=""), [], (32,)), (1, 1, 1), [])
    with pytest.raises(SimulationError, match="divergent barrier") as err:
        simulate(kernel(split.format(uni="", barrier="bar.sync 0;"), [], (32,)), (1, 1, 1), [])
    assert err.value.kind == UNSUPPORTED and "tid=(0, 0, 0)" in str(err.value)


def test_predicate_moves_across_a_branch() -> None:
    """tileir's block-argument copies: ``mov.pred`` through a temporary, then branch."""
    body = """
    .reg .pred %p<4>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 10;
    mov.pred %p2, %p1;
    mov.pred %p3, %p2;
    bra.uni $L_next;
$L_next:
    selp.b32 %r2, 1, 2, %p3;
    ld.param.u64 %rd1, [x];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    """
    x = np.zeros(32, dtype=np.uint32)
    simulate(kernel(body, [".u64 x"], (32,)), (1, 1, 1), [x])
    np.testing.assert_array_equal(x, np.where(np.arange(32) < 10, 1, 2))


def test_ret_stops_only_the_active_threads() -> None:
    body = """
    .reg .pred %p1;
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 5;
    @%p1 ret;
    ld.param.u64 %rd1, [x];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], 9;
    ret;
    """
    x = np.zeros(32, dtype=np.uint32)
    simulate(kernel(body, [".u64 x"], (32,)), (1, 1, 1), [x])
    np.testing.assert_array_equal(x, np.where(np.arange(32) < 5, 9, 0))


RACE_BODY = """
    .reg .b32 %r<3>;
    .reg .b64 %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    ld.param.u64 %rd1, [x];
    {first}
    {barrier}
    {second}
"""


def test_bar_sync_orders_writes_within_a_cta_only() -> None:
    guarded = "{{ .reg .pred p; setp.eq.u32 p, %r1, {t}; @p st.global.u32 [%rd1], %r1; }}"
    body = RACE_BODY.format(
        first=guarded.format(t=0), barrier="bar.sync 0;", second=guarded.format(t=1)
    )
    x = np.zeros(4, dtype=np.uint32)
    simulate(kernel(body, [".u64 x"], (32,)), (1, 1, 1), [x])
    assert x[0] == 1
    unordered = RACE_BODY.format(first=guarded.format(t=0), barrier="", second=guarded.format(t=1))
    with pytest.raises(SimulationError) as err:
        simulate(kernel(unordered, [".u64 x"], (32,)), (1, 1, 1), [np.zeros(4, np.uint32)])
    assert err.value.kind == RACE
    # Across CTAs a barrier orders nothing.
    with pytest.raises(SimulationError) as err:
        simulate(kernel(body, [".u64 x"], (32,)), (2, 1, 1), [np.zeros(4, np.uint32)])
    assert err.value.kind == RACE and "ctaid=(1, 0, 0)" in str(err.value)


def test_threads_storing_to_one_address_is_a_race() -> None:
    body = RACE_BODY.format(first="st.global.u32 [%rd1], %r1;", barrier="", second="")
    with pytest.raises(SimulationError, match="also writes this byte") as err:
        simulate(kernel(body, [".u64 x"], (32,)), (1, 1, 1), [np.zeros(4, np.uint32)])
    assert err.value.kind == RACE


# --------------------------------------------------------------------- errors

OOB_BODY = """
    .reg .pred %p1;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    ld.param.u32 %r2, [n];
    setp.lt.u32 %p1, %r1, %r2;
    ld.param.u64 %rd1, [x];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    {guard}ld.global.b32 %r3, [%rd3+{offset}];
    {guard}st.global.b32 [%rd3], %r3;
"""


def test_out_of_bounds_load_is_reported_with_thread_and_array() -> None:
    x = np.arange(20, dtype=np.int32)
    before = x.copy()
    ptx = kernel(OOB_BODY.format(guard="", offset=0), [".u64 x", ".u32 n"], (32,))
    with pytest.raises(SimulationError) as err:
        simulate(ptx, (1, 1, 1), [x, 20])
    e = err.value
    assert e.kind == OUT_OF_BOUNDS
    assert "ld.global.b32 %r3, [%rd3+0]" in str(e)
    assert "tid=(20, 0, 0)" in str(e)  # the first thread past the end
    assert "0 bytes past the end of array argument 0" in str(e)
    assert e.address is not None and e.line is not None
    np.testing.assert_array_equal(x, before)  # nothing is written back after a fault


def test_masked_accesses_near_the_end_are_fine() -> None:
    x = np.arange(20, dtype=np.int32)
    ptx = kernel(OOB_BODY.format(guard="@%p1 ", offset=0), [".u64 x", ".u32 n"], (32,))
    simulate(ptx, (1, 1, 1), [x, 20])
    np.testing.assert_array_equal(x, np.arange(20))


def test_access_before_the_start_is_out_of_bounds() -> None:
    ptx = kernel(OOB_BODY.format(guard="@%p1 ", offset=-4), [".u64 x", ".u32 n"], (32,))
    with pytest.raises(SimulationError, match="4 bytes before the start of array argument 0"):
        simulate(ptx, (1, 1, 1), [np.arange(20, dtype=np.int32), 20])


def test_misaligned_vector_access_is_reported() -> None:
    body = """
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [x];
    mul.wide.u32 %rd2, %r1, 20;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd3];
    """
    x = np.zeros(64, dtype=np.uint32)
    with pytest.raises(SimulationError) as err:
        simulate(kernel(body, [".u64 x"], (4,)), (1, 1, 1), [x])
    e = err.value
    assert e.kind == MISALIGNED
    assert "16-byte load not 16-byte aligned" in str(e)
    assert "tid=(1, 0, 0)" in str(e) and "20 bytes (element 5) into array argument 0" in str(e)


def test_reading_an_unwritten_register_is_an_error() -> None:
    body = """
    .reg .pred %p1;
    .reg .b32 %r<4>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 3;
    @%p1 mov.b32 %r2, 5;
    add.s32 %r3, %r2, 1;
    """
    with pytest.raises(SimulationError) as err:
        simulate(kernel(body, [], (8,)), (1, 1, 1), [])
    assert err.value.kind == UNINITIALIZED
    assert "register %r2 is read before it is written" in str(err.value)
    assert "tid=(3, 0, 0)" in str(err.value)
    # Reading it only where it was written is fine.
    fine = body.replace("add.s32 %r3", "@%p1 add.s32 %r3")
    simulate(kernel(fine, [], (8,)), (1, 1, 1), [])


@pytest.mark.parametrize(
    ("body", "message", "kind"),
    [
        ("popc.b32 %r1, %r1;", "opcode 'popc'", UNSUPPORTED),
        ("add.cc.s32 %r1, %r1, %r1;", "modifier(s) .cc", UNSUPPORTED),
        ("vote.sync.all.pred %p1, %p1, -1;", "opcode 'vote'", UNSUPPORTED),
        ("bra.uni L_nowhere;", "L_nowhere is not a declared register or a label", INVALID),
        ("ld.const.b32 %r1, [%rd1];", "from the const space", UNSUPPORTED),
        ("setp.lt.and.s32 %p1, %r1, %r1, %p1;", "modifier(s) .and", UNSUPPORTED),
        # Invalid PTX (ptxas rejects these too):
        ("div.f32 %f1, %f1, %f1;", "without a rounding modifier", INVALID),
        ("cvt.rn.s32.f32 %r1, %f1;", "needs .rni/.rzi/.rmi/.rpi", INVALID),
        ("mov.b8 %r1, 0;", "mov has no 8-bit form", INVALID),
        ("setp.lt.b32 %p1, %r1, %r1;", "setp.lt.b32", INVALID),
    ],
)
def test_unsupported_ptx_fails_before_running(body: str, message: str, kind: str) -> None:
    decls = ".reg .pred %p1;\n.reg .b32 %r1;\n.reg .f32 %f1;\n.reg .b64 %rd1;\n"
    x = np.zeros(4, dtype=np.uint32)
    prologue = "ld.param.u64 %rd1, [x];\nst.global.u32 [%rd1], 1;\n"
    with pytest.raises(SimulationError, match=re.escape(message)) as err:
        simulate(kernel(decls + prologue + body, [".u64 x"], (1,)), (1, 1, 1), [x])
    assert err.value.kind == kind
    assert x[0] == 0  # decoding failed before the store ran


def test_operand_types_are_checked() -> None:
    body = ".reg .f32 %f1;\n.reg .b32 %r1;\nmov.b32 %r1, 1;\nadd.s32 %f1, %r1, %r1;"
    with pytest.raises(SimulationError, match=r"%f1 \(.f32\) cannot be a .s32 operand"):
        simulate(kernel(body, [], (1,)), (1, 1, 1), [])


def test_kernel_without_reqntid_and_bad_arguments() -> None:
    ptx = HEADER + ".visible .entry k(.param .u64 x)\n{\nret;\n}\n"
    with pytest.raises(SimulationError, match=r"no \.reqntid"):
        simulate(ptx, (1, 1, 1), [np.zeros(1)])
    ok = kernel("ret;", [".u64 x", ".u32 n"], (1,))
    with pytest.raises(SimulationError, match="2 parameters, got 1"):
        simulate(ok, (1, 1, 1), [np.zeros(1)])
    with pytest.raises(SimulationError, match="does not fit in 32 bits"):
        simulate(ok, (1, 1, 1), [np.zeros(1), 2**32])
    with pytest.raises(SimulationError, match=r"is an array but n is \.u32"):
        simulate(ok, (1, 1, 1), [np.zeros(1), np.zeros(1)])


# ------------------------------------------- tileir's own load/store templates


def _instantiate(template: str, operands: Sequence[str]) -> str:
    """Substitute ``$N`` operands as ``emit_inline_asm`` does (highest index first)."""
    for i in sorted(range(len(operands)), reverse=True):
        template = template.replace(f"${i}", operands[i])
    return template


@pytest.mark.parametrize(
    ("bits", "vec"),
    [
        *((8, v) for v in (1, 2, 4, 16)),
        (16, 8),
        (16, 2),
        (32, 4),
        (32, 2),
        (64, 2),
    ],
)
@pytest.mark.parametrize(
    ("ld_quals", "st_quals"),
    [(("weak", None), ("weak", None)), (("relaxed", "gpu"), ("release", "sys"))],
    ids=["weak", "relaxed-release"],
)
def test_tileir_memory_templates(
    bits: int, vec: int, ld_quals: tuple[str, str | None], st_quals: tuple[str, str | None]
) -> None:
    """``memory_asm.load_group``/``store_group`` exactly as tileir emits them: each
    thread moves ``vec`` elements; the masked load pads past ``n`` and the masked
    store must not touch anything past ``n`` (the output has exactly ``n``).
    Where ptxas is installed, it must accept the kernel exactly when the simulator does."""
    from xdsl.dialects import test
    from xdsl.dialects.builtin import IntAttr, IntegerType, i1
    from xdsl.dialects.llvm import LLVMPointerType

    from tileir.backend.ptx.memory_asm import Qualifiers, load_group, store_group
    from tileir.backend.ptx.ptxas import find_ptxas, run_ptxas

    threads, size = 8, bits // 8
    n = threads * vec - 3 if vec > 1 else threads - 3
    pad = 0x5A5A5A5A5A5A5A5A & ((1 << bits) - 1)
    reg = {8: "b16", 16: "b16", 32: "b32", 64: "b64"}[bits]
    # Stand-ins for the SSA values the blocks bind ($N in the order load_group and
    # store_group take them: results, then values, the group's first address, predicates).
    # The per-element fallback addresses element i as [first+i*size]: the group's
    # elements are consecutive, and only its first address is an operand.
    element = IntegerType(bits)
    ssa = test.TestOp(result_types=[element] * vec + [LLVMPointerType(IntAttr(1))] + [i1] * vec)
    data, first, masks = ssa.results[:vec], ssa.results[vec], ssa.results[vec + 1 :]
    load = load_group(element, bits, vec, first, masks, pad, Qualifiers(*ld_quals)).template
    store = store_group(bits, data, first, masks, Qualifiers(*st_quals)).template
    copy = store_group(bits, data, first, [], Qualifiers(*st_quals)).template
    values = [f"%v{i}" for i in range(vec)]
    preds = [f"%q{i}" for i in range(vec)]
    body = [
        f".reg .{reg} %v<{vec}>;",
        ".reg .b64 %a, %b, %c, %x, %y, %z;",
        f".reg .pred %q<{vec}>;",
        ".reg .b32 %t, %e, %n;",
        "mov.u32 %t, %tid.x;",
        "ld.param.u32 %n, [n];",
        "ld.param.u64 %x, [x];",
        "ld.param.u64 %y, [out];",
        "ld.param.u64 %z, [padded];",
        f"mul.lo.s32 %e, %t, {vec};",
        f"mad.wide.s32 %a, %e, {size}, %x;",
        f"mad.wide.s32 %b, %e, {size}, %y;",
        f"mad.wide.s32 %c, %e, {size}, %z;",
    ]
    for i in range(vec):
        body += [f"add.s32 %e, %e, {int(i > 0)};", f"setp.lt.s32 %q{i}, %e, %n;"]
    body.append(_instantiate(load, [*values, "%a", *preds]))
    body.append(_instantiate(store, [*values, "%b", *preds]))
    body.append(_instantiate(copy, [*values, "%c"]))
    dtype = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    rng = np.random.default_rng(bits * 100 + vec)
    x = rng.integers(0, 2**bits - 1, n, dtype=dtype, endpoint=True)
    out = np.zeros(n, dtype=dtype)
    padded = np.zeros(threads * vec, dtype=dtype)
    ptx = kernel("\n".join(body), [".u64 x", ".u64 out", ".u64 padded", ".u32 n"], (threads,))
    error = None
    try:
        simulate(ptx, (1, 1, 1), [x, out, padded, n])
    except SimulationError as e:
        error = e
    if find_ptxas() is not None:
        assert run_ptxas(ptx, "sm_90a").ok == (error is None), error
    if error is not None:
        raise error
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(padded[:n], x)
    np.testing.assert_array_equal(padded[n:], pad)
