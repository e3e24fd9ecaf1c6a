"""Accuracy of tileir's f64 math routines, run in the PTX simulator against long double.

Each op is compiled in a one-op f64 kernel (load, op, store) for sm_80 and run in
``tileir.testing.simulate`` (f64 arithmetic is exact IEEE there; no ``.approx``
instruction is involved) on random bit patterns over the whole f64 range,
op-specific ranges and hard cases (the f64 values closest to multiples of pi/2 in
binades up to 2^1023, overflow and underflow thresholds, subnormals, pow exponents
that land anywhere in the f64 range, integer exponents of negative bases).  The
reference is numpy's long double (x87 80-bit: 11 more bits than f64, so it is
exact to about 1/2000 ulp; the test skips where long double is f64).  Error is in
ulp of f64 at the reference; special values must match C99 exactly (NaN,
infinities, the sign of zero); remf must be exact.

Measured maximum error (ulp): these inputs (about 16k per op), and an offline run
of the same generators with twenty seeds (about 320k inputs per op):

======  ============  ======
op      these inputs  320k
======  ============  ======
exp     0.52          0.52
exp2    0.52          0.52
log     0.50          0.50
log2    0.50          0.50
tanh    0.51          0.53
sinh    0.51          0.52
cosh    0.54          0.56
sin     0.54          0.57
cos     0.54          0.56
tan     0.54          0.58
atan2   0.50          0.50
pow     0.51          0.52
remf    0             0
======  ============  ======

The assertions allow 0.6 ulp to catch regressions; the contract is 1 ulp.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
from elementwise_kernels import TILE, compile_text, kernel_text, run_kernel

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import parse_module_text
from tileir.conversions.tileas_to_llvm.trig_functions import pi_fixed
from tileir.conversions.tileas_to_llvm.trig_functions_f64 import TWO_OVER_PI_WORDS64
from tileir.interpreter import launch

LONG = np.longdouble
pytestmark = pytest.mark.skipif(
    np.finfo(LONG).nmant < 63, reason="needs a long double wider than f64 as reference"
)
F64 = np.dtype(np.float64)
RNG_SEED = 20250611
BOUND = 0.6

#: op -> (number of operands, long double reference).
OPS: dict[str, tuple[int, Callable[..., np.ndarray]]] = {
    "exp": (1, np.exp),
    "exp2": (1, np.exp2),
    "log": (1, np.log),
    "log2": (1, np.log2),
    "tanh": (1, np.tanh),
    "sinh": (1, np.sinh),
    "cosh": (1, np.cosh),
    "sin": (1, np.sin),
    "cos": (1, np.cos),
    "tan": (1, np.tan),
    "atan2": (2, np.arctan2),
    "pow": (2, np.power),
    "remf": (2, np.fmod),
}


@functools.cache
def compiled(op: str, arch: str = "sm_80") -> str:
    n = OPS[op][0]
    body = [f"%r = {op} " + ", ".join(f"%x{i}" for i in range(n))]
    return compile_text(kernel_text(body, ["f64"] * n, "f64"), arch)


def ulp_error(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in ulp of f64 at ref (long double, not rounded); beyond the largest
    finite value infinity counts as 2^1024; NaN against NaN is 0, against a number
    infinite."""
    top = LONG(2.0) ** 1024
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.clip(ref.astype(LONG), -top, top)
        g = got.astype(LONG)
        g = np.where(np.isinf(g), np.sign(g) * top, g)
        _, e = np.frexp(np.where(np.isfinite(r) & (r != 0), r, LONG(1)))
        ulp = np.ldexp(LONG(1), np.maximum(e - 1, -1022) - 52)
        err = (np.abs(g - r) / ulp).astype(np.float64)
    g_nan, r_nan = np.isnan(got), np.isnan(ref)
    err = np.where(g_nan & r_nan, 0.0, err)
    return np.where(g_nan != r_nan, np.inf, err)


def reference(op: str, *inputs: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return OPS[op][1](*(a.astype(LONG) for a in inputs))


def check(op: str, inputs: tuple[np.ndarray, ...], got: np.ndarray, bound: float) -> float:
    """The error bound, and exact special values (NaN, infinities and signed zeros as
    the reference rounded to f64 gives them)."""
    ref = reference(op, *inputs)
    err = ulp_error(got, ref)
    worst = int(np.argmax(err))
    where = ", ".join(repr(a[worst]) for a in inputs)
    assert err[worst] <= bound, (
        f"{op}({where}) = {got[worst]!r}, want {ref[worst]!r}: {err[worst]:.3f} ulp"
    )
    with np.errstate(over="ignore", invalid="ignore"):
        want = ref.astype(F64)
    special = (want == 0) | ~np.isfinite(want)
    same = (np.isnan(got) & np.isnan(want)) | (
        (got == want) & (np.signbit(got) == np.signbit(want))
    )
    bad = np.flatnonzero(special & ~same)
    assert bad.size == 0, [(tuple(a[i] for a in inputs), got[i], want[i]) for i in bad[:8]]
    return float(err[worst])


# --------------------------------------------------------------------------- inputs


def random_doubles(rng: np.random.Generator, n: int) -> np.ndarray:
    """Uniform over bit patterns: every binade, both signs, subnormals, inf and NaN."""
    return rng.integers(0, 1 << 64, n, dtype=np.uint64).view(F64)


SPECIAL = np.array(
    [
        0.0,
        np.inf,
        np.nan,
        5e-324,
        2.2250738585072009e-308,
        2.2250738585072014e-308,
        1.7976931348623157e308,
        1.0,
        0.5,
        2.0,
        np.pi / 4,
        np.pi / 2,
        np.pi,
        1e22,
        6381956970095103 * 2.0**797,  # the f64 closest to a multiple of pi/2
        # exp/exp2 overflow, last normal, last subnormal, rounding to 0.
        709.782712893384,
        709.7827128933841,
        -708.3964185322641,
        -745.1332191019411,
        -745.1332191019412,
        1024.0,
        1023.9999999999999,
        -1022.0,
        -1074.0,
        -1075.0,
        -1075.0000000000002,
        # sinh/cosh overflow, tanh rounding to 1.
        710.4758600739439,
        710.475860073944,
        19.061547465398498,
        19.0615474653985,
    ]
)


def closest_to_quarter_turns(binades: range) -> np.ndarray:
    """For the given binades, the 53-bit multiples m 2^E closest to multiples of pi/2:
    the denominators of the continued-fraction convergents of 2^E 2/pi, and their
    neighbours."""
    two_over_pi = Fraction(1 << 1601, pi_fixed(1600))
    values = []
    for e in binades:
        alpha = two_over_pi * Fraction(2) ** e
        q_prev, q = 1, 0
        for _ in range(80):
            a = alpha.numerator // alpha.denominator
            q_prev, q = q, a * q + q_prev
            if q >= 1 << 53:
                break
            if q >= 1 << 52:
                values.append(q * 2.0**e)
            if alpha == a:
                break
            alpha = 1 / (alpha - a)
    x = np.array(values)
    return np.concatenate([x, np.nextafter(x, np.inf), np.nextafter(x, 0)])


def unary_inputs(op: str, rng: np.random.Generator) -> np.ndarray:
    n = 4_000
    parts = [random_doubles(rng, n), SPECIAL, -SPECIAL]
    if op in ("sin", "cos", "tan"):
        parts += [
            rng.uniform(-10, 10, n),
            np.exp2(rng.uniform(-1, 1023, n)),
            closest_to_quarter_turns(range(-53, 972, 8)),
            np.arange(1, 4000) * (np.pi / 2),
        ]
    elif op in ("log", "log2"):
        parts += [
            rng.uniform(0.5, 2, n),
            1 + rng.uniform(-(2.0**-20), 2.0**-20, n),
            np.exp2(rng.uniform(-1074, 1024, n)),
        ]
    else:
        parts += [
            rng.uniform(-2, 2, n),
            rng.uniform(-1080, 1080, n),
            np.exp2(rng.uniform(-60, 0, n)),
        ]
    return np.concatenate(parts)


def pow_inputs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    n = 6_000
    # Bases over the whole range, exponents such that x^y lands anywhere from below
    # the subnormals to beyond overflow.
    x = np.exp2(rng.uniform(-1074, 1024, n)) * rng.choice([-1.0, 1.0], n)
    y = rng.uniform(-1100, 1050, n) / np.log2(np.abs(x))
    xi, yi = rng.uniform(-4, 4, 3_000), rng.integers(-300, 300, 3_000).astype(np.float64)
    x1, y1 = 1 + rng.uniform(-1e-6, 1e-6, 2_000), rng.uniform(-1e8, 1e8, 2_000)
    values = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.0, 3.0, -3.0, np.inf, -np.inf, np.nan])
    sx, sy = (a.ravel() for a in np.meshgrid(values, np.append(values, [0.5, -0.5, 2.0**53])))
    xr, yr = random_doubles(rng, 4_000), random_doubles(rng, 4_000)
    return np.concatenate([x, xi, x1, sx, xr]), np.concatenate([y, yi, y1, sy, yr])


def binary_inputs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """atan2 and remf: random bit patterns, numbers of similar size, and the C99
    special cases (signed zeros, infinities, NaN)."""
    n = 8_000
    big = 1.7976931348623157e308
    values = np.array(
        [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 5e-324, -5e-324, big, np.inf, -np.inf, np.nan]
    )
    sx, sy = (a.ravel() for a in np.meshgrid(values, values))
    return (
        np.concatenate([random_doubles(rng, n), rng.standard_normal(n) * 100, sx]),
        np.concatenate([random_doubles(rng, n), rng.standard_normal(n), sy]),
    )


def op_inputs(op: str) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng([RNG_SEED, sorted(OPS).index(op)])
    if op == "pow":
        return pow_inputs(rng)
    if OPS[op][0] == 2:
        return binary_inputs(rng)
    return (unary_inputs(op, rng),)


def run_op(op: str, inputs: tuple[np.ndarray, ...]) -> np.ndarray:
    return run_kernel(compiled(op), [np.ascontiguousarray(a) for a in inputs], F64)


# --------------------------------------------------------------------------- tests


def test_two_over_pi_table() -> None:
    table = sum(w << (64 * i) for i, w in enumerate(TWO_OVER_PI_WORDS64))
    assert float(Fraction(table, 1 << 1184)) == 2 / np.pi


@pytest.mark.parametrize("op", sorted(OPS))
def test_f64_accuracy(op: str) -> None:
    inputs = op_inputs(op)
    check(op, inputs, run_op(op, inputs), 0.0 if op == "remf" else BOUND)


def test_remf_is_exact_fmod() -> None:
    x, y = op_inputs("remf")
    got = run_op("remf", (x, y))
    with np.errstate(invalid="ignore"):
        want = np.fmod(x, y)  # exact in float64, as C fmod
    same = (got.view(np.uint64) == want.view(np.uint64)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), list(zip(x[~same][:5], y[~same][:5], got[~same][:5], strict=True))


def test_fpowi_f64() -> None:
    """`x ** n` with an i32 exponent: the magnitude as pow, the sign from the
    integer's parity; x^0 = 1 even for NaN."""
    rng = np.random.default_rng([RNG_SEED, 99])
    x = np.concatenate([rng.uniform(-3, 3, 3_000), [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0]])
    n = np.concatenate([rng.integers(-700, 700, 3_000), [-3, -3, 3, -3, 0, 2**31 - 1]])
    n = n.astype(np.int32)
    text = kernel_text(["%r = fpowi %x0, %x1"], ["f64", "i32"], "f64").replace(
        "%r = fpowi %x0, %x1 : tile<128xf64>", "%r = fpowi %x0, %x1 : tile<128xf64>, tile<128xi32>"
    )
    got = run_kernel(compile_text(text), [x, n], F64)
    with np.errstate(all="ignore"):
        ref = np.power(x.astype(LONG), n.astype(LONG))
    ref = np.where(n == 0, LONG(1), ref)
    assert ulp_error(got, ref).max() <= BOUND


def test_interpreter_computes_f64_math_in_f64() -> None:
    """The interpreter's f64 math is numpy's f64 (within an ulp of the simulated PTX,
    so not rounded through f32)."""
    x = np.linspace(-3, 3, 2 * TILE)
    module = parse_module_text(kernel_text(["%r = cosh %x0"], ["f64"], "f64"), "cosh.mlir")
    out = np.zeros_like(x)
    launch(module, (2, 1, 1), x, out, len(x))
    np.testing.assert_array_equal(out, np.cosh(x))
    assert ulp_error(run_op("cosh", (x,)), reference("cosh", x)).max() <= BOUND


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_ptx_assembles(arch: str) -> None:
    """Every f64 op in one kernel (chained so that none is dead) assembles."""
    body, previous = [], "%x0"
    for i, op in enumerate(OPS):
        result = "%r" if i == len(OPS) - 1 else f"%v{i}"
        second = ", %x1" if OPS[op][0] == 2 else ""
        body.append(f"{result} = {op} {previous}{second}")
        previous = result
    report = run_ptxas(compile_text(kernel_text(body, ["f64", "f64"], "f64"), arch), arch)
    assert report.ok, report.output
