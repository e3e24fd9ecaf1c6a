"""Directed rounding (`rounding<zero|negative_inf|positive_inf>`, PTX `rz`/`rm`/`rp`)
and `nearest_even` (`rn`): tileir's PTX in the simulator against the interpreter, bit
for bit, on sm_80 and sm_90a.

Every kernel applies one op in all four modes to the same operands and stores the four
results, so a lowering that confuses two modes shows wherever they differ, and the
operands are built so that they differ often: full-mantissa values of both signs (an
inexact result rounds up or down by sign and mode), `x + (-x)` (-0 under `rm`, +0
otherwise), results beyond the largest finite value (infinity or the largest finite
value by mode and sign), results among the subnormals, and exact results (all four
modes agree).  Besides the interpreter, the results are checked against the modes'
definitions: `rm <= rn <= rp`, `rm` and `rp` equal or neighbours, `rz` is `rm` for
positive results and `rp` for negative ones, and the two sides of the exact value
(computed in exact rational arithmetic for the f32 ops) are where they must be.

Ops: `addf`, `subf`, `mulf`, `divf`, `fma`, `sqrt` on f32 and f64, and the narrowing
`ftof` f32 -> f16, f32 -> bf16, f64 -> f32, f64 -> f16 and f64 -> bf16 (through f32:
two roundings the same way are one).  `itof` takes only `nearest_even` (its verifier
rejects the others), so it has no directed case.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tileir.compiler import compile_module, parse_module_text
from tileir.interpreter import launch
from tileir.testing import simulate

ARCHES = ("sm_80", "sm_90a")
MODES = ("nearest_even", "zero", "negative_inf", "positive_inf")
TILE = 128
DTYPES = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}

#: op -> (operand count, the op's line with {a}, {m} (rounding) and {t} (types)).
OPS = {
    "addf": (2, "addf %x0, %x1 rounding<{m}> : tile<{n}x{a}>"),
    "subf": (2, "subf %x0, %x1 rounding<{m}> : tile<{n}x{a}>"),
    "mulf": (2, "mulf %x0, %x1 rounding<{m}> : tile<{n}x{a}>"),
    "divf": (2, "divf %x0, %x1 rounding<{m}> : tile<{n}x{a}>"),
    "fma": (3, "fma %x0, %x1, %x2 rounding<{m}> : tile<{n}x{a}>"),
    "sqrt": (1, "sqrt %x0 rounding<{m}> : tile<{n}x{a}>"),
    "ftof": (1, "ftof %x0 rounding<{m}> : tile<{n}x{a}> -> tile<{n}x{r}>"),
}


def kernel(op: str, arg: str, res: str) -> str:
    """Block `b` loads tile `b` of each operand (`%n` elements), applies `op` in every
    mode and stores the results to `%o0 .. %o3`, in the order of `MODES`."""
    count, line = OPS[op]
    params = [f"%a{i}: tile<ptr<{arg}>>" for i in range(count)]
    params += [f"%o{k}: tile<ptr<{res}>>" for k in range(len(MODES))]
    text = [f"entry @k({', '.join(params)}, %n: tile<i32>) {{"]
    text.append("  %bx, %by, %bz = get_tile_block_id : tile<i32>")
    names = [(f"a{i}", arg) for i in range(count)] + [(f"o{k}", res) for k in range(len(MODES))]
    for name, t in names:
        view = f"tensor_view<?x{t}, strides=[1]>"
        text.append(
            f"  %tv_{name} = make_tensor_view %{name}, shape = [%n], strides = [1] : "
            f"tile<i32> -> {view}"
        )
        text.append(
            f"  %pv_{name} = make_partition_view %tv_{name} : partition_view<tile=({TILE}), {view}>"
        )
    for i in range(count):
        part = f"partition_view<tile=({TILE}), tensor_view<?x{arg}, strides=[1]>>"
        text.append(
            f"  %x{i}, %t{i} = load_view_tko weak %pv_a{i}[%bx] : {part}, tile<i32> -> "
            f"tile<{TILE}x{arg}>, token"
        )
    for k, mode in enumerate(MODES):
        rounding = line.format(m=mode, n=TILE, a=arg, r=res)
        if op == "ftof" and mode == "nearest_even":
            rounding = rounding.replace(" rounding<nearest_even>", "")
        part = f"partition_view<tile=({TILE}), tensor_view<?x{res}, strides=[1]>>"
        text.append(f"  %r{k} = {rounding}")
        text.append(
            f"  %s{k} = store_view_tko weak %r{k}, %pv_o{k}[%bx] : tile<{TILE}x{res}>, {part}, "
            "tile<i32> -> token"
        )
    text += ["  return", "}"]
    return "\n".join(text)


def full_mantissas(dtype: np.dtype, n: int, rng: np.random.Generator, scale: float) -> np.ndarray:
    """Values of both signs with random low bits, magnitudes spread over 2^-scale .. 2^scale."""
    x = rng.uniform(1.0, 2.0, n) * 2.0 ** rng.integers(-int(scale), int(scale) + 1, n)
    x *= rng.choice([-1.0, 1.0], n)
    if dtype == np.float32:
        bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32) & np.uint32(0x7FFFFF)
        base = x.astype(np.float32).view(np.uint32) & np.uint32(0xFF800000)
        return (base | bits).view(np.float32)
    bits = rng.integers(0, 2**52, n, dtype=np.uint64)
    return (x.view(np.uint64) & np.uint64(0xFFF0000000000000) | bits).view(np.float64)


def operands(op: str, arg: str, res: str, rng: np.random.Generator) -> list[np.ndarray]:
    """Four tiles' worth of operands: random full mantissas, then the edge cases."""
    dt = DTYPES[arg]
    n = 4 * TILE
    fmax = float(np.finfo(dt).max)
    tiny = float(np.finfo(dt).tiny)
    if op == "ftof":
        out = DTYPES[res]
        rmax, rtiny = float(ml_dtypes.finfo(out).max), float(ml_dtypes.finfo(out).tiny)
        x = full_mantissas(dt, n, rng, 10)
        # Beyond the target's largest finite value, in its subnormals, exact values.
        # (Up to f32's largest value: bf16's is 0.4 % below it.)
        x[:32] = (rmax * rng.uniform(1.0, 1.003, 32)).astype(dt) * rng.choice([-1, 1], 32)
        x[32:64] = (rtiny * rng.uniform(0.0, 1.0, 32)).astype(dt) * rng.choice([-1, 1], 32)
        x[64:80] = np.array(
            [1.5, -2.25, 0.0, -0.0, 65504.0 if res == "f16" else 3.0] * 3 + [1.0], dt
        )
        return [x.astype(dt)]
    if op == "sqrt":
        x = np.abs(full_mantissas(dt, n, rng, 20))
        x[:16] = np.array([4.0, 2.25, 0.0, -0.0, 1.0, 9.0, 16.0, 0.25] * 2, dt)
        x[16:48] = tiny * rng.uniform(0.0, 1.0, 32)  # subnormal operands
        return [x.astype(dt)]
    count = OPS[op][0]
    xs = [full_mantissas(dt, n, rng, 8) for _ in range(count)]
    a = xs[0]
    if op in ("addf", "subf", "fma"):
        b = xs[-1]
        # Near cancellation (exact zeros: `test_exact_zero_sum_is_negative_under_rm`);
        # fma's product nearly cancelled by its addend: only its single rounding is left.
        near = a[:32] * (1 + rng.uniform(-1e-5, 1e-5, 32))
        b[:32] = -near if op == "addf" else near
        if op == "fma":
            b[:32] = -(a[:32].astype(np.float64) * xs[1][:32])
        # Sums beyond the largest finite value.
        a[32:48] = fmax * rng.uniform(0.6, 1.0, 16) * np.sign(a[32:48])
        b[32:48] = (fmax * rng.uniform(0.6, 1.0, 16) * np.sign(a[32:48])) * (
            1 if op != "subf" else -1
        )
        if op == "fma":
            xs[1][32:48] = 1.0
        # Results among the subnormals.
        a[48:64] = tiny * rng.uniform(-1.5, 1.5, 16)
        b[48:64] = tiny * rng.uniform(-1.5, 1.5, 16)
        if op == "fma":
            xs[1][48:64] = rng.uniform(0.5, 1.5, 16)
    elif op in ("mulf", "divf"):
        b = xs[1]
        # Products and quotients beyond the largest finite value and below the smallest.
        a[32:48] = np.sqrt(fmax) * rng.uniform(1.0, 2.0, 16) * np.sign(a[32:48])
        b[32:48] = np.sqrt(fmax) * rng.uniform(1.0, 2.0, 16) * rng.choice([-1, 1], 16)
        if op == "divf":
            b[32:48] = 1.0 / b[32:48]
        a[48:64] = np.sqrt(tiny) * rng.uniform(0.1, 1.0, 16) * rng.choice([-1, 1], 16)
        b[48:64] = np.sqrt(tiny) * rng.uniform(0.1, 1.0, 16) * rng.choice([-1, 1], 16)
        if op == "divf":
            b[48:64] = 1.0 / b[48:64]
        # Exact results.
        a[64:72] = [1.5, -3.0, 0.25, 6.0, -0.5, 2.0, 1.0, -1.0]
        b[64:72] = [2.0, 0.5, -4.0, 1.5, 2.0, -0.25, 1.0, 8.0]
    with np.errstate(all="ignore"):
        return [x.astype(dt) for x in xs]


def exact(op: str, xs: list[np.ndarray], i: int) -> Fraction | None:
    """The exact result of element `i` (None: not a finite rational)."""
    vals = [float(x[i]) for x in xs]
    if not all(np.isfinite(v) for v in vals):
        return None
    f = [Fraction(v) for v in vals]
    if op == "addf":
        return f[0] + f[1]
    if op == "subf":
        return f[0] - f[1]
    if op == "mulf":
        return f[0] * f[1]
    if op == "divf":
        return f[0] / f[1] if f[1] else None
    if op == "fma":
        return f[0] * f[1] + f[2]
    if op == "ftof":
        return f[0]
    return None  # sqrt: checked by squaring (`check_definitions`)


def check_definitions(op: str, xs: list[np.ndarray], results: list[np.ndarray]) -> None:
    """The four results against the modes' definitions (independent of the interpreter)."""
    rn, rz, rm, rp = (r.astype(np.float64) for r in results)
    finite = np.isfinite(rn) | np.isinf(rn)
    ok = ~np.isnan(rn)
    assert (rm[ok] <= rn[ok]).all() and (rn[ok] <= rp[ok]).all()
    dt = results[0].dtype
    with np.errstate(over="ignore"):
        step = np.nextafter(results[2], np.array(np.inf, dt)).astype(np.float64)
    assert ((rm == rp) | (step == rp) | ~ok).all(), "rm and rp are neighbours"
    positive = ok & ((rm > 0) | ((rm == 0) & ~np.signbit(results[2])))
    negative = ok & ((rp < 0) | ((rp == 0) & np.signbit(results[3]) & np.signbit(results[2])))
    assert (rz[positive & finite] == rm[positive & finite]).all()
    assert (rz[negative & finite] == rp[negative & finite]).all()
    for i in range(len(rn)):
        if not (np.isfinite(rm[i]) and np.isfinite(rp[i])):
            continue
        low, high = Fraction(float(rm[i])), Fraction(float(rp[i]))
        if op == "sqrt":
            x = Fraction(float(xs[0][i]))
            assert low >= 0 and low * low <= x <= high * high, i
            continue
        e = exact(op, xs, i)
        if e is not None:
            assert low <= e <= high, (i, e)


CASES = [
    *((op, t, t) for op in ("addf", "subf", "mulf", "divf", "fma", "sqrt") for t in ("f32", "f64")),
    ("ftof", "f32", "f16"),
    ("ftof", "f32", "bf16"),
    ("ftof", "f64", "f32"),
    ("ftof", "f64", "f16"),
    ("ftof", "f64", "bf16"),
]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize(("op", "arg", "res"), CASES)
def test_directed_rounding_matches_interpreter(
    op: str, arg: str, res: str, arch: str, tmp_path: Path
) -> None:
    text = kernel(op, arg, res)
    path = tmp_path / "rounding.mlir"
    path.write_text(text)
    ptx = compile_module(parse_module_text(text, str(path)), arch).ptx
    assert ptx is not None
    xs = operands(op, arg, res, np.random.default_rng([len(op), len(arg), len(res)]))
    n = len(xs[0])
    got = [np.zeros(n, DTYPES[res]) for _ in MODES]
    want = [np.zeros(n, DTYPES[res]) for _ in MODES]
    simulate(ptx, (n // TILE, 1, 1), [*(x.copy() for x in xs), *got, n])
    launch(path, (n // TILE, 1, 1), *(x.copy() for x in xs), *want, n)
    for mode, g, w in zip(MODES, got, want, strict=True):
        bad = np.flatnonzero(
            (g.view(np.uint8).reshape(n, -1) != w.view(np.uint8).reshape(n, -1)).any(axis=1)
        )
        assert g.tobytes() == w.tobytes(), (
            f"{mode}: PTX != interpreter at {bad[:8]}: {g[bad[:4]]} vs {w[bad[:4]]}, operands "
            f"{[x[bad[:4]] for x in xs]}"
        )
    # The operands do tell the modes apart: every two modes differ somewhere (but
    # a square root is never negative: there `zero` is `negative_inf`).
    bits = [w.view(np.uint8).reshape(n, -1) for w in want]
    for i in range(len(MODES)):
        for j in range(i + 1, len(MODES)):
            differ = (bits[i] != bits[j]).any(axis=1).sum()
            if op == "sqrt" and (MODES[i], MODES[j]) == ("zero", "negative_inf"):
                assert differ == 0
            else:
                assert differ >= 4, (MODES[i], MODES[j])
    check_definitions(op, xs, want)


def run_modes(
    op: str, t: str, xs: list[np.ndarray], arch: str, tmp_path: Path, interpret: bool
) -> list[np.ndarray]:
    """The four modes' results of `op` on `xs` (one tile) from the simulated PTX or the
    interpreter."""
    text = kernel(op, t, t)
    path = tmp_path / "zeros.mlir"
    path.write_text(text)
    out = [np.full(TILE, np.nan, DTYPES[t]) for _ in MODES]
    if interpret:
        launch(path, (1, 1, 1), *xs, *out, TILE)
    else:
        ptx = compile_module(parse_module_text(text, str(path)), arch).ptx
        assert ptx is not None
        simulate(ptx, (1, 1, 1), [*xs, *out, TILE])
    return out


def exact_zeros(op: str, t: str) -> list[np.ndarray]:
    """Operands whose exact result is zero, from operands of opposite signs (a sum)
    or like signs (a difference): `x + (-x)`, `x - x`, `x * y + (-(x * y))` with an
    exact product."""
    x = np.random.default_rng(11).uniform(-100.0, 100.0, TILE).astype(DTYPES[t])
    if op == "addf":
        return [x, -x]
    if op == "subf":
        return [x, x.copy()]
    y = np.arange(1, TILE + 1).astype(DTYPES[t]) * 0.25
    x = np.round(x)  # x * y exact in f32 and f64
    return [x, y, -(x * y)]


ZERO_CASES = [(op, t) for op in ("addf", "subf", "fma") for t in ("f32", "f64")]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize(("op", "t"), ZERO_CASES)
def test_exact_zero_sum_is_negative_under_rm_in_ptx(
    op: str, t: str, arch: str, tmp_path: Path
) -> None:
    """IEEE 754 (6.3): an exact zero sum of operands of opposite signs (or difference of
    like signs) is +0 in every rounding direction but toward -inf, where it is -0.
    PTX's `add.rm`/`fma.rm` (and the simulator) do so."""
    out = run_modes(op, t, exact_zeros(op, t), arch, tmp_path, interpret=False)
    for mode, r in zip(MODES, out, strict=True):
        assert (r == 0).all()
        assert (np.signbit(r) == (mode == "negative_inf")).all(), mode


@pytest.mark.parametrize(("op", "t"), ZERO_CASES)
def test_exact_zero_sum_is_negative_under_rm_in_interpreter(
    op: str, t: str, tmp_path: Path
) -> None:
    out = run_modes(op, t, exact_zeros(op, t), "sm_80", tmp_path, interpret=True)
    for mode, r in zip(MODES, out, strict=True):
        assert (r == 0).all()
        assert (np.signbit(r) == (mode == "negative_inf")).all(), mode
