"""tf32: `ftof` to tf32 in every rounding mode (`tileir/conversions/tileas_to_llvm/tf32.py`),
in the PTX simulator and in the interpreter, against an exact rational oracle; the
tolerance of the `gemm_tf32` corpus kernel; what is not supported.

A tf32 value is an f32 whose low 13 bits are zero (10 fraction bits, f32's exponent
range).  cuda_tile's `ftof` rounds to nearest even by default; 13.4 adds the directed
modes and `nearest_away` (cuTile's `astype(tfloat32, rounding_mode=RA)`).  The GEMMs
on tensor cores are in `test_mma_dot.py` and the corpus (`gemm_tf32`).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from elementwise_kernels import compile_text, kernel_text, run_kernel

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import parse_module_text
from tileir.diagnostics import CompileError
from tileir.interpreter import launch

MODES = ["nearest_even", "nearest_away", "zero", "negative_inf", "positive_inf"]
TF32_MAX = (2 - 2.0**-10) * 2.0**127
F32_MAX = float(np.finfo(np.float32).max)


def oracle(v: float, mode: str) -> float:
    """`v` rounded to tf32 in `mode`: 11 significant bits, exponents down to -126
    (subnormals below), IEEE overflow."""
    if math.isnan(v) or math.isinf(v) or v == 0:
        return v
    q = Fraction(v)
    exponent = max(math.floor(math.log2(abs(v))), -126)
    if Fraction(2) ** exponent > abs(q):  # log2 rounded up
        exponent = max(exponent - 1, -126)
    ulp = Fraction(2) ** (exponent - 10)
    n = q / ulp
    if mode == "nearest_even":
        k = round(n)
    elif mode == "nearest_away":
        k = math.floor(abs(n) + Fraction(1, 2)) * (1 if n > 0 else -1)
    elif mode == "zero":
        k = math.trunc(n)
    elif mode == "negative_inf":
        k = math.floor(n)
    else:
        k = math.ceil(n)
    r = k * ulp
    if abs(r) > Fraction(TF32_MAX):
        to_inf = mode in ("nearest_even", "nearest_away") or (
            mode == "negative_inf" if v < 0 else mode == "positive_inf"
        )
        big = math.inf if to_inf else TF32_MAX
        return math.copysign(big, v)
    return math.copysign(float(r), v) if r == 0 else float(r)


def inputs(src: str) -> np.ndarray:
    """Ties (to even down and up), just off ties, subnormals, the largest values,
    infinities, NaN and random values of `src`."""
    ulp1 = 2.0**-10  # tf32's last place at 1.0
    specials = [
        0.0,
        -0.0,
        1.0 + ulp1 / 2,  # tie, even below
        1.0 + 1.5 * ulp1,  # tie, even above
        -(1.0 + ulp1 / 2),
        -(1.0 + 1.5 * ulp1),
        1.0 + ulp1 / 2 + 2.0**-23,  # just above a tie
        1.0 + ulp1 / 2 - 2.0**-23,
        3.0 * 2.0**-140,  # f32 subnormals
        -(2.0**-137 + 2.0**-149),
        2.0**-126 - 2.0**-149,  # rounds up to the smallest normal
        TF32_MAX,
        -F32_MAX,  # halfway past the largest tf32 and more: overflows when nearest
        F32_MAX,
        math.inf,
        -math.inf,
        math.nan,
    ]
    if src == "f64":
        specials += [
            1.0 + ulp1 / 2 + 2.0**-40,  # f64 -> f32 -> tf32 would see a tie here
            -(1.0 + ulp1 / 2 - 2.0**-40),
            1e300,  # beyond f32
            -1e300,
        ]
    rng = np.random.default_rng(17)
    if src == "f16":
        specials = [
            0.0,
            -0.0,
            65504.0,
            -65504.0,
            2.0**-24,
            3 * 2.0**-24,
            -(2.0**-14),
            1.0 + 2.0**-10,
            math.inf,
            math.nan,
        ]
        random = rng.uniform(-100, 100, 100)
    else:
        random = rng.uniform(-4, 4, 100) * 2.0 ** rng.integers(-30, 30, 100)
    values = np.concatenate([np.array(specials), random])
    dtype = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[src]
    with np.errstate(over="ignore"):
        return np.resize(values, 128).astype(dtype)


def same(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit, any NaN matching any NaN."""
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))


@pytest.mark.parametrize(
    ("src", "mode"),
    [*((src, mode) for src in ("f32", "f64") for mode in MODES), ("f16", "nearest_even")],
)
def test_ftof_to_tf32_rounds_as_the_mode_says(src: str, mode: str) -> None:
    """f32/f64 -> tf32 -> f32 on sm_80 (ptxas checks the PTX): the simulated PTX, the
    interpreter and the oracle agree bit for bit (NaN stays NaN).  f16 -> tf32 widens
    (every f16 is a tf32), so it keeps `nearest_even`, as the verifier requires."""
    rounding = "" if mode == "nearest_even" else f" rounding<{mode}>"
    text = kernel_text([f"%t = ftof %x0{rounding} -> tf32", "%r = ftof %t -> f32"], [src], "f32")
    text = text.replace(f"%r = ftof %t : tile<128x{src}>", "%r = ftof %t : tile<128xtf32>")
    x = inputs(src)
    ptx = compile_text(text, "sm_80")
    assert ("cvt.rna.tf32.f32" in ptx) == (mode == "nearest_away")
    assert run_ptxas(ptx, "sm_80").ok
    simulated = run_kernel(ptx, [x], np.dtype(np.float32))
    interpreted = np.zeros(128, np.float32)
    launch(parse_module_text(text, "k.mlir"), (1, 1, 1), x, interpreted, 128)
    same(simulated, interpreted)
    want = np.array([oracle(float(v), mode) for v in x], np.float32)
    same(interpreted, want)
    # Every result is a tf32 value (NaN included): the low 13 bits are zero.
    assert not (interpreted.view(np.uint32) & 0x1FFF).any()


def test_sm90a_rounds_alike() -> None:
    """The integer rounding is the same code on every target."""
    text = kernel_text(["%t = ftof %x0 -> tf32", "%r = ftof %t -> f32"], ["f32"], "f32")
    text = text.replace("%r = ftof %t : tile<128xf32>", "%r = ftof %t : tile<128xtf32>")
    x = inputs("f32")
    got = run_kernel(compile_text(text, "sm_90a"), [x], np.dtype(np.float32))
    same(got, np.array([oracle(float(v), "nearest_even") for v in x], np.float32))


def test_nearest_away_to_other_types_is_not_supported_yet() -> None:
    text = kernel_text(["%r = ftof %x0 rounding<nearest_away> -> f16"], ["f32"], "f16")
    with pytest.raises(CompileError, match=r"rounding<nearest_away> to f16"):
        compile_text(text)
    with pytest.raises(CompileError, match=r"rounding<nearest_away> to f16 is not supported"):
        x, out = np.zeros(128, np.float32), np.zeros(128, np.float16)
        launch(parse_module_text(text, "k.mlir"), (1, 1, 1), x, out, 128)


def test_gemm_tf32_tolerance_tells_the_roundings_apart() -> None:
    """The corpus kernel's tolerance (`cases/gemm_tf32.py`) is far below what a wrong
    rounding of the operands costs: ties away from zero, or no rounding at all."""
    corpus = Path(__file__).resolve().parents[1] / "corpus"
    if str(corpus) not in sys.path:
        sys.path.insert(0, str(corpus))
    import _common  # pyright: ignore[reportMissingImports]

    case = _common.load_case_module("gemm_tf32")
    data = case.make_inputs(np.random.default_rng(0))
    a, b = data["arrays"]["a"], data["arrays"]["b"]
    want = case.reference(data)["c"].astype(np.float64)
    rtol, atol = case.TOLERANCE["c"]

    def away(x: np.ndarray) -> np.ndarray:
        return np.array([oracle(float(v), "nearest_away") for v in x.reshape(-1)]).reshape(x.shape)

    assert np.array_equal(
        case.round_to_tf32(a), np.vectorize(lambda v: oracle(float(v), "nearest_even"))(a)
    )
    for wrong in (away(a) @ away(b), a.astype(np.float64) @ b.astype(np.float64)):
        assert (np.abs(wrong - want) > 10 * (atol + rtol * np.abs(want))).any()
