"""Accuracy of tileir's math routines, run in the PTX simulator against numpy float64.

Each op (`sin cos tan sinh cosh exp pow atan2 remf`) is compiled in a one-op kernel
(load, op, store) for sm_80 and run in ``tileir.testing.simulate`` with
``approx="bound"`` (every ``.approx``/``div.full`` result moved by its worst-case
error), on random bit patterns over the whole f32 range, op-specific samples and
hard cases (f32 values closest to multiples of pi/2, the overflow thresholds, pow
exponents that land anywhere in the f32 range, integer exponents of negative
bases, subnormals).  The error is measured in ulp of the float64 reference rounded
to the element type; special values must match C99 exactly (NaN, infinities and
the sign of zero).  remf must be exact.

Measured maximum error (ulp of f32; the contract is 2 ulp, the assertions below are
tighter to catch regressions).  "800k" is an offline run on 800,000 inputs of the
same kinds (0.8M random bit patterns and dense ranges; 300k for pow):

======  ============  ======  ===================================================
op      these inputs  800k    note
======  ============  ======  ===================================================
sin     0.54          0.55    exact reduction: no growth with |x|
cos     0.53          0.55
tan     0.54          0.55
sinh    0.56          0.58
cosh    0.56          0.58
exp     4.10                  ex2.approx moved by its modelled 2^-22.5; 1.10 with
                              ex2 exact; on an H200, every f32: 1.93 (= tileiras)
pow     0.50          0.50    f64 core: correctly rounded on every input tried
atan2   0.50          0.50    f64 core
remf    0             0       exact, as C fmodf (1.2M inputs offline)
======  ============  ======  ===================================================

f16 and bf16 (computed in f32, rounded once): at most 0.50 ulp of the half type,
also on all 65536 bit patterns of each for the unary ops (offline; the test samples).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from elementwise_kernels import compile_text, kernel_text, run_kernel

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.conversions.tileas_to_llvm.trig_functions import (
    PI,
    TWO_OVER_PI_WORDS,
    pi_fixed,
)

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": BF16}
#: (significand bits, minimum normal exponent, maximum exponent) of each type.
FORMATS = {"f32": (24, -126, 127), "f16": (11, -14, 15), "bf16": (8, -126, 127)}
ARCHES = ("sm_80", "sm_90a")
RNG_SEED = 20240601


#: op -> (number of operands, float64 reference, max ulp error allowed for f32).
OPS: dict[str, tuple[int, Callable[..., np.ndarray], float]] = {
    "sin": (1, np.sin, 0.6),
    "cos": (1, np.cos, 0.6),
    "tan": (1, np.tan, 0.6),
    "sinh": (1, np.sinh, 0.6),
    "cosh": (1, np.cosh, 0.6),
    # ex2.approx's result (in [1, 2)) rounded, moved by its modelled 2^-22.5 (up to
    # 2.83 ulp) and rounded again, plus the reduction's ln2 2^-24 (0.69 ulp): 4.52.
    "exp": (1, np.exp, 4.52),
    "pow": (2, np.power, 0.501),
    "atan2": (2, np.arctan2, 0.501),
    "remf": (2, np.fmod, 0.0),
}


# --------------------------------------------------------------------------- kernels


def one_op(op: str) -> list[str]:
    return [f"%r = {op} " + ", ".join(f"%x{i}" for i in range(OPS[op][0]))]


def all_ops() -> list[str]:
    """Every op once, chained (so that none is dead): unary ones on the previous
    result, binary ones with `%x1` as second operand."""
    body, previous = [], "%x0"
    for i, op in enumerate(OPS):
        result = "%r" if i == len(OPS) - 1 else f"%v{i}"
        second = ", %x1" if OPS[op][0] == 2 else ""
        body.append(f"{result} = {op} {previous}{second}")
        previous = result
    return body


@functools.cache
def compiled(op: str, t: str) -> str:
    return compile_text(kernel_text(one_op(op), [t] * OPS[op][0], t), "sm_80")


def run_op(op: str, t: str, *inputs: np.ndarray) -> np.ndarray:
    dtype = DTYPES[t]
    return run_kernel(compiled(op, t), [np.asarray(a, dtype=dtype) for a in inputs], dtype)


# --------------------------------------------------------------------------- errors


def ulp_error(got: np.ndarray, ref: np.ndarray, t: str) -> np.ndarray:
    """|got - ref| in units of the last place of `t` at ref (ref in float64, not
    rounded).  Beyond the largest finite value the ulp stays that of the top
    binade and infinity counts as 2^(emax + 1); NaN against NaN is 0, NaN against
    a number infinite."""
    precision, emin, emax = FORMATS[t]
    top = 2.0 ** (emax + 1)
    with np.errstate(invalid="ignore"):
        g = got.astype(np.float64)
    r = np.clip(ref, -top, top)
    g = np.where(np.isinf(g), np.sign(g) * top, g)
    _, e = np.frexp(np.where(np.isfinite(r), r, 1.0))
    ulp = np.ldexp(1.0, np.maximum(e - 1, emin) - (precision - 1))
    with np.errstate(invalid="ignore"):
        err = np.abs(g - r) / ulp
    g_nan, r_nan = np.isnan(g), np.isnan(ref)
    err = np.where(g_nan & r_nan, 0.0, err)
    return np.where(g_nan != r_nan, np.inf, err)


def reference(op: str, *inputs: np.ndarray) -> np.ndarray:
    """numpy's float64 result; NaN inputs made quiet (C's pow(sNaN, 0) may be NaN,
    tileir's is 1 as for any NaN)."""
    with np.errstate(all="ignore"):
        wide = [a.astype(np.float64) for a in inputs]
        return OPS[op][1](*(np.where(np.isnan(a), np.nan, a) for a in wide))


def check(op: str, t: str, inputs: tuple[np.ndarray, ...], bound: float) -> float:
    """Run `op` on `inputs`; assert the error bound and exact special values (NaN,
    infinities, signed zeros, as the reference rounded to `t` gives them)."""
    got = run_op(op, t, *inputs)
    ref = reference(op, *inputs)
    err = ulp_error(got, ref, t)
    worst = int(np.argmax(err))
    where = ", ".join(repr(a[worst]) for a in inputs)
    assert err[worst] <= bound, (
        f"{op}({where}) = {got[worst]!r}, want {ref[worst]!r}: {err[worst]:.3f} ulp"
    )
    with np.errstate(over="ignore"):
        want = ref.astype(DTYPES[t])
    special = (want == 0) | ~np.isfinite(want)
    same = (np.isnan(got) & np.isnan(want)) | (
        (got == want) & (np.signbit(got) == np.signbit(want))
    )
    bad = np.flatnonzero(special & ~same)
    assert bad.size == 0, [(tuple(a[i] for a in inputs), got[i], want[i]) for i in bad[:8]]
    return float(err[worst])


# --------------------------------------------------------------------------- inputs


def random_floats(rng: np.random.Generator, n: int, t: str = "f32") -> np.ndarray:
    """Uniform over bit patterns: every binade, both signs, subnormals, inf and NaN."""
    bits = DTYPES[t].itemsize * 8
    words = rng.integers(0, 1 << bits, n, dtype=np.uint64)
    return words.astype(np.uint32 if bits == 32 else np.uint16).view(DTYPES[t])


SPECIAL_F32 = np.array(
    [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        1e-45,
        -1e-45,
        1.1754942e-38,
        1.1754944e-38,
        3.4028235e38,
        -3.4028235e38,
        1.0,
        -1.0,
        0.5,
        2.0,
        0.78125,
        0.7853982,
        1.5707964,
        3.1415927,
        4.712389,
        6.2831855,
        1e5,
        105615.0,
        16367173 * 2.0**72,
    ],
    dtype=np.float32,
)


def closest_to_quarter_turns() -> np.ndarray:
    """For each binade of f32 at or above 1/2, the 24-bit multiples m 2^E closest to
    multiples of pi/2: the denominators of the continued-fraction convergents of
    2^E 2/pi (best approximations), and their neighbours."""
    two_over_pi = Fraction(1 << 401, pi_fixed(400))
    values = []
    for e in range(-24, 105):
        alpha = two_over_pi * Fraction(2) ** e
        q_prev, q = 1, 0
        for _ in range(64):
            a = alpha.numerator // alpha.denominator
            q_prev, q = q, a * q + q_prev
            if q >= 1 << 24:
                break
            values.append(q * 2.0**e)
            if alpha == a:
                break
            alpha = 1 / (alpha - a)
    x = np.array(values, dtype=np.float32)
    up, down = np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(0))
    k = np.arange(1, 1 << 20, 509, dtype=np.float64)
    return np.concatenate([x, up, down, (k * np.pi / 2).astype(np.float32)])


def unary_inputs(op: str, rng: np.random.Generator) -> np.ndarray:
    parts = [random_floats(rng, 20_000), SPECIAL_F32, -SPECIAL_F32]
    if op in ("sin", "cos", "tan"):
        parts += [
            rng.uniform(-10, 10, 3_000).astype(np.float32),
            np.exp2(rng.uniform(-1, 40, 3_000)).astype(np.float32),
            closest_to_quarter_turns(),
        ]
    else:
        # Overflow of exp/sinh/cosh; exp's results leaving the normals (2^-126),
        # the last subnormal (2^-149) and the rounding to 0 (2^-150).
        overflow = [1.0, 88.72283, 88.7228394, 89.41598, 89.415985, 89.41599, 90.0]
        thresholds = np.array([*overflow, -87.33654, -103.27893, -103.97208])
        edges = np.concatenate(
            [np.nextafter(thresholds.astype(np.float32), np.float32(k)) for k in (0, 100)]
        )
        parts += [
            rng.uniform(-2, 2, 6_000).astype(np.float32),
            rng.uniform(-92, 92, 6_000).astype(np.float32),
            np.exp2(rng.uniform(-30, 0, 3_000)).astype(np.float32),
            edges,
            -edges,
        ]
    return np.concatenate(parts)


def pow_inputs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    n = 20_000
    # Bases over the whole range, exponents chosen so that x^y lands anywhere from
    # below the subnormals to beyond overflow.
    x = np.exp2(rng.uniform(-149, 128, n)) * rng.choice([-1.0, 1.0], n)
    z = rng.uniform(-160, 135, n)
    y = z / np.log2(np.abs(x))
    # Integer exponents on negative and positive bases, bases near 1 with large
    # exponents, and random bit patterns.
    xi = rng.uniform(-4, 4, 4_000)
    yi = rng.integers(-70, 70, 4_000).astype(np.float64)
    x1 = rng.uniform(0.9, 1.1, 3_000)
    y1 = rng.uniform(-3000, 3000, 3_000)
    special_x = [
        0,
        -0.0,
        0,
        -0.0,
        0,
        -0.0,
        0,
        -0.0,
        0,
        np.inf,
        -np.inf,
        np.inf,
        -np.inf,
        -np.inf,
        -np.inf,
        -np.inf,
        np.nan,
        np.nan,
        1,
        1,
        -1,
        -1,
        -1,
        0.5,
        2,
        0.5,
        2,
        -2,
        -2,
        -0.5,
        -8,
        -0.0,
        -0.0,
        3,
        np.nan,
        1e-45,
        3.4028235e38,
        -1e-45,
        2,
        2,
    ]
    special_y = [
        -3,
        -3,
        3,
        3,
        -2,
        -2,
        0.5,
        np.inf,
        -np.inf,
        -1,
        -1,
        2,
        3,
        -3,
        0.5,
        -0.5,
        0,
        -0.0,
        np.nan,
        np.inf,
        np.inf,
        -np.inf,
        np.nan,
        np.inf,
        np.inf,
        -np.inf,
        -np.inf,
        np.inf,
        0.5,
        3,
        1 / 3,
        -np.inf,
        0.5,
        np.nan,
        1,
        1.5,
        -0.5,
        0.5,
        128,
        -150,
    ]
    xs = np.concatenate([x, xi, x1, special_x]).astype(np.float32)
    ys = np.concatenate([y, yi, y1, special_y]).astype(np.float32)
    xr, yr = random_floats(rng, 10_000), random_floats(rng, 10_000)
    return np.concatenate([xs, xr]), np.concatenate([ys, yr])


def binary_inputs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """atan2 and remf: random bit patterns, numbers of similar size, and the C99
    special cases (signed zeros, infinities, NaN)."""
    n = 20_000
    x2 = (rng.standard_normal(n) * 100).astype(np.float32)
    y2 = rng.standard_normal(n).astype(np.float32)
    values = np.array(
        [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 1e-45, -1e-45, 3.4028235e38, np.inf, -np.inf, np.nan],
        dtype=np.float32,
    )
    sx, sy = (a.ravel() for a in np.meshgrid(values, values))
    return (
        np.concatenate([random_floats(rng, n), x2, sx]),
        np.concatenate([random_floats(rng, n), y2, sy]),
    )


def op_inputs(op: str) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng([RNG_SEED, sorted(OPS).index(op)])
    if op == "pow":
        return pow_inputs(rng)
    if OPS[op][0] == 2:
        return binary_inputs(rng)
    return (unary_inputs(op, rng),)


# --------------------------------------------------------------------------- tests


def test_constants_are_derived_correctly() -> None:
    """pi from the integer Machin formula, and the 2/pi table the reduction uses."""
    assert float(PI) == np.pi
    assert abs(PI - Fraction(355, 113)) < Fraction(1, 10**6)
    table = sum(w << (32 * i) for i, w in enumerate(TWO_OVER_PI_WORDS))
    assert float(Fraction(table, 1 << 224)) == 2 / np.pi


@pytest.mark.parametrize("op", sorted(OPS))
def test_f32_accuracy(op: str) -> None:
    check(op, "f32", op_inputs(op), OPS[op][2])


def test_exp_reduction_adds_little() -> None:
    """With ex2.approx exact (the simulator's default rounding of the exact 2^f),
    what is left is tileir's own error: f off by at most 2^-24 (two FMA roundings),
    ln2 2^-24 relative or 0.69 ulp of a result in [1, 2), plus the rounding of 2^f:
    1.19 ulp at most."""
    (x,) = op_inputs("exp")
    got = run_kernel(compiled("exp", "f32"), [x], DTYPES["f32"], approx="nearest")
    err = ulp_error(got, reference("exp", x), "f32")
    assert err.max() <= 1.19, (x[np.argmax(err)], err.max())


def test_remf_is_exact_fmod() -> None:
    x, y = binary_inputs(np.random.default_rng(RNG_SEED))
    got = run_op("remf", "f32", x, y)
    with np.errstate(invalid="ignore"):
        want = np.fmod(x, y)  # exact in float32, as C fmodf
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), list(
        zip(x[~same][:5], y[~same][:5], got[~same][:5], want[~same][:5], strict=True)
    )


@pytest.mark.parametrize("t", ["f16", "bf16"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_half_accuracy(op: str, t: str) -> None:
    """Halves are computed in f32 and rounded once: within about half an ulp of the
    half type (random bit patterns, plus for pow exponents that reach every binade)."""
    rng = np.random.default_rng([RNG_SEED, 1, sorted(OPS).index(op)])
    dtype = DTYPES[t]
    with np.errstate(all="ignore"):  # f32 beyond the half range becomes inf
        if OPS[op][0] == 1:
            specials = SPECIAL_F32.astype(dtype)
            inputs: tuple[np.ndarray, ...] = (
                np.concatenate([random_floats(rng, 8_000, t), specials]),
            )
        elif op == "pow":
            x, y = pow_inputs(rng)
            inputs = (x[::8].astype(dtype), y[::8].astype(dtype))
        else:
            inputs = (random_floats(rng, 8_000, t), random_floats(rng, 8_000, t))
    check(op, t, inputs, 0.0 if op == "remf" else 0.51)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("t", sorted(DTYPES))
def test_ptx_assembles(t: str, arch: str) -> None:
    """All eight ops in one kernel, compiled for `arch`, assemble with ptxas."""
    report = run_ptxas(compile_text(kernel_text(all_ops(), [t, t], t), arch), arch)
    assert report.ok, report.output


# f64 operands have their own routines: tests/pytest/test_math_functions_f64.py.
