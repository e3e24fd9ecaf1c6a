"""8-bit float `ftof` (`tileir/conversions/tileas_to_llvm/fp8.py`) in the PTX
simulator, bit for bit against the interpreter's conversion rules (ml_dtypes rounding,
overflow saturating like tileiras's `F2FP.SATFINITE`):
every f8 bit pattern widened to f16/bf16/f32/f64, values around every rounding
boundary (ties, subnormals, overflow, inf, NaN) narrowed from f32/f16/bf16/f64,
f8E8M0FNU both ways, and ptxas on three targets.  f4E2M1FN the same way, through
`unpack`/`pack` of bytes, and `mmaf_scaled` on f4 operands (cuTile's f4 shapes)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from elementwise_kernels import compile_text, dot_kernel_text, kernel_text, run_kernel

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.dialects.cuda_tile.attributes import RoundingMode
from tileir.interpreter.arith import float_to_e8m0, saturate_fp8
from tileir.interpreter.numerics import to_float

F8 = {
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "f8E8M0FNU": np.dtype(ml_dtypes.float8_e8m0fnu),
}
WIDE = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
ALL_BITS = np.arange(256, dtype=np.uint8)


def _bits_equal(got: np.ndarray, want: np.ndarray) -> None:
    """Equal bits, except that any NaN matches any NaN for the wide types."""
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    nan = np.isnan(w)
    np.testing.assert_array_equal(np.isnan(g), nan)
    np.testing.assert_array_equal(g[~nan], w[~nan])
    np.testing.assert_array_equal(np.signbit(g[~nan]), np.signbit(w[~nan]))


@pytest.mark.parametrize("src", list(F8))
@pytest.mark.parametrize("to", ["f32", "f16", "bf16", "f64"])
def test_widen_every_bit_pattern(src: str, to: str) -> None:
    x = ALL_BITS.view(F8[src])
    ptx = compile_text(kernel_text([f"%r = ftof %x0 -> {to}"], [src], to), "sm_80")
    got = run_kernel(ptx, [x], WIDE[to])
    with np.errstate(over="ignore"):  # f8E8M0FNU's 2^16.. are inf in f16
        want = x.astype(np.float64).astype(WIDE[to])
    _bits_equal(got, want)


def _narrowing_inputs() -> np.ndarray:
    """Every f8E4M3FN/f8E5M2 value, the midpoints between neighbours, one f32 ulp
    either side of those, overflow, subnormal and special values."""
    vals = []
    for dt in (F8["f8E4M3FN"], F8["f8E5M2"]):
        v = ALL_BITS.view(dt).astype(np.float64)
        v = np.unique(v[np.isfinite(v) & (v >= 0)])
        mids = (v[1:] + v[:-1]) / 2
        vals += [v, mids, v[-1] + (v[-1] - v[-2]) / 2, v[-1] * 2]
    base = np.concatenate([np.atleast_1d(np.asarray(a, np.float32)) for a in vals])
    up = np.nextafter(base, np.float32(np.inf))
    down = np.nextafter(base, np.float32(0))
    extra = np.array([np.inf, np.nan, 1e-30, 1e-45, 3e38, 2.0**-127], np.float32)
    mag = np.concatenate([base, up, down, extra])
    return np.concatenate([mag, -mag]).astype(np.float32)


@pytest.mark.parametrize("to", ["f8E4M3FN", "f8E5M2"])
@pytest.mark.parametrize("src", ["f32", "f16", "bf16", "f64"])
def test_narrow_rounds_to_nearest_even(src: str, to: str) -> None:
    with np.errstate(over="ignore"):
        x = _narrowing_inputs().astype(WIDE[src])
    if src == "f64":
        # Values between f32 neighbours: the single rounding must be kept.
        x = np.concatenate([x, x * (1 + 2.0**-30), x * (1 - 2.0**-30)])
    ptx = compile_text(kernel_text([f"%r = ftof %x0 -> {to}"], [src], to), "sm_80")
    got = run_kernel(ptx, [x], np.dtype(np.uint8))
    wide = x.astype(np.float64)
    want = saturate_fp8(to_float(wide if src == "f64" else x.astype(np.float32), F8[to]), wide)
    np.testing.assert_array_equal(got, want.view(np.uint8))


@pytest.mark.parametrize("mode", ["zero", "positive_inf"])
def test_to_e8m0_rounds_to_a_power_of_two(mode: str) -> None:
    x = np.concatenate([_narrowing_inputs(), 2.0 ** np.arange(-149, 128, dtype=np.float32)])
    with np.errstate(over="ignore"):
        x = np.concatenate([x, x * np.float32(1.5), np.array([0.0, -0.0, 2.0**-127 * 1.25])])
    ptx = compile_text(
        kernel_text([f"%r = ftof %x0 rounding<{mode}> -> f8E8M0FNU"], ["f32"], "f8E8M0FNU"),
        "sm_80",
    )
    got = run_kernel(ptx, [x.astype(np.float32)], np.dtype(np.uint8))
    want = float_to_e8m0(x.astype(np.float32), RoundingMode(mode))
    np.testing.assert_array_equal(got, want.view(np.uint8))


def test_f8_to_f8_is_one_rounding() -> None:
    x = ALL_BITS.view(F8["f8E5M2"])
    ptx = compile_text(kernel_text(["%r = ftof %x0 -> f8E4M3FN"], ["f8E5M2"], "f8E4M3FN"))
    got = run_kernel(ptx, [x], np.dtype(np.uint8))
    want = saturate_fp8(to_float(x.astype(np.float32), F8["f8E4M3FN"]), x.astype(np.float64))
    assert (want.view(np.uint8)[[0x7C, 0xFC]] == [0x7E, 0xFE]).all()  # +-inf -> +-448
    np.testing.assert_array_equal(got, want.view(np.uint8))


def test_directed_rounding_to_fp8_is_reported() -> None:
    from tileir.diagnostics import CompileError

    with pytest.raises(CompileError, match="rounding<zero> to f8E4M3FN"):
        compile_text(kernel_text(["%r = ftof %x0 rounding<zero> -> f8E4M3FN"], ["f32"], "f8E4M3FN"))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_ptxas_accepts_fp8_conversions(arch: str, tmp_path: Path) -> None:
    text = kernel_text([], ["f8E4M3FN"], "f8E4M3FN")
    src = "\n".join(
        [
            "  %w = ftof %x0 : tile<128xf8E4M3FN> -> tile<128xf32>",
            "  %h = ftof %w : tile<128xf32> -> tile<128xf8E5M2>",
            "  %hw = ftof %h : tile<128xf8E5M2> -> tile<128xf32>",
            "  %e = ftof %w rounding<positive_inf> : tile<128xf32> -> tile<128xf8E8M0FNU>",
            "  %f = ftof %e : tile<128xf8E8M0FNU> -> tile<128xf32>",
            "  %s = addf %hw, %f rounding<nearest_even> : tile<128xf32>",
            "  %r = ftof %s : tile<128xf32> -> tile<128xf8E4M3FN>",
        ]
    )
    text = text.replace("  %st = store_view_tko", src + "\n  %st = store_view_tko", 1)
    report = run_ptxas(compile_text(text, arch), arch, str(tmp_path / "k.cubin"))
    assert report.ok, report.output


MMA_SCALED = Path(__file__).parent / "bytecode_fixtures/cutile/mma_scaled.13.3.mlir"


def _mma_scaled_inputs() -> list[np.ndarray]:
    """64x64 f8E4M3FN operands (integers -8..8) and f8E8M0FNU scales 2^-2..2^2 per
    32-wide K group (one NaN scale): every partial sum is exact in f32."""
    rng = np.random.default_rng(0)
    e4m3 = F8["f8E4M3FN"]
    a = rng.integers(-8, 9, (64, 64)).astype(np.float32).astype(e4m3)
    b = rng.integers(-8, 9, (64, 64)).astype(np.float32).astype(e4m3)
    sa = (127 + rng.integers(-2, 3, (64, 2))).astype(np.uint8)
    sa[5, 1] = 0xFF
    sb = (127 + rng.integers(-2, 3, (2, 64))).astype(np.uint8)
    return [a, sa.view(F8["f8E8M0FNU"]), b, sb.view(F8["f8E8M0FNU"])]


def _mma_scaled_args(arrays: list[np.ndarray]) -> list[object]:
    out: list[object] = []
    for x in arrays:
        out += [x, x.shape[0], x.shape[1], x.shape[1], 1]
    return out


@pytest.mark.parametrize(
    ("arch", "instruction"),
    [
        ("sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
        ("sm_90a", "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"),
        ("sm_100a", "tcgen05.mma.cta_group::1.kind::f16"),
    ],
)
def test_mmaf_scaled_matches_interpreter_and_numpy(arch: str, instruction: str) -> None:
    """`mmaf_scaled` runs on bf16 tensor cores over the dequantized operands (no FMA
    dot) and equals numpy and the interpreter (every partial sum exact)."""
    from tileir.compiler import compile_module, parse_module_text
    from tileir.interpreter import launch
    from tileir.testing import simulate

    a, sa, b, sb = _mma_scaled_inputs()
    ptx = compile_module(parse_module_text(MMA_SCALED.read_text(), str(MMA_SCALED)), arch).ptx
    assert ptx is not None
    assert instruction in ptx
    assert "fma.rn.f32" not in ptx
    got = np.zeros((64, 64), np.float32)
    simulate(ptx, (1, 1, 1), _mma_scaled_args([a, sa, b, sb, got]))
    by_interpreter = np.zeros((64, 64), np.float32)
    launch(MMA_SCALED, (1, 1, 1), *_mma_scaled_args([a, sa, b, sb, by_interpreter]))
    af = a.astype(np.float64) * np.repeat(sa.astype(np.float64), 32, axis=1)
    bf = b.astype(np.float64) * np.repeat(sb.astype(np.float64), 32, axis=0)
    want = (af @ bf).astype(np.float32)
    assert np.isnan(want[5]).all() and not np.isnan(np.delete(want, 5, axis=0)).any()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(by_interpreter, want)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_ptxas_accepts_mmaf_scaled(arch: str, tmp_path: Path) -> None:
    from tileir.compiler import compile_module, parse_module_text

    ptx = compile_module(parse_module_text(MMA_SCALED.read_text(), str(MMA_SCALED)), arch).ptx
    assert ptx is not None
    report = run_ptxas(ptx, arch, str(tmp_path / "k.cubin"))
    assert report.ok, report.output


@pytest.mark.parametrize("value", [-2.5, 448.0, 0.015625])
def test_fp8_constants_are_their_bits(value: float) -> None:
    body = [f"%c = constant <f8E4M3FN: {value}>", "%r = ftof %c -> f8E5M2"]
    ptx = compile_text(kernel_text(body, ["f8E4M3FN"], "f8E5M2"))
    x = np.zeros(128, F8["f8E4M3FN"])
    got = run_kernel(ptx, [x], np.dtype(np.uint8))
    want = np.float32(value).astype(F8["f8E4M3FN"]).astype(np.float32).astype(F8["f8E5M2"])
    np.testing.assert_array_equal(got, np.full(128, want).view(np.uint8))


F4 = np.dtype(ml_dtypes.float4_e2m1fn)


def _f4_kernel(in_t: str, n_in: int, body: list[str], out_t: str, n_out: int) -> str:
    """One block loads `n_in` elements of `in_t` as `%x`, runs `body` (full lines,
    the last defining `%r`) and stores `n_out` elements of `out_t`."""
    lines = ["entry @k(%a: tile<ptr<" + in_t + ">>, %c: tile<ptr<" + out_t + ">>) {"]
    lines.append("  %z = constant <i32: 0> : tile<i32>")
    for arg, t, n in (("a", in_t, n_in), ("c", out_t, n_out)):
        tv = f"tensor_view<{n}x{t}, strides=[1]>"
        lines += [
            f"  %tv{arg} = make_tensor_view %{arg}, shape = [{n}], strides = [1] : {tv}",
            f"  %pv{arg} = make_partition_view %tv{arg} : partition_view<tile=({n}), {tv}>",
        ]
    pv = f"partition_view<tile=({n_in}), tensor_view<{n_in}x{in_t}, strides=[1]>>"
    lines.append(
        f"  %x, %t = load_view_tko weak %pva[%z] : {pv}, tile<i32> -> tile<{n_in}x{in_t}>, token"
    )
    lines += [f"  {line}" for line in body]
    pv = f"partition_view<tile=({n_out}), tensor_view<{n_out}x{out_t}, strides=[1]>>"
    lines += [
        f"  %s = store_view_tko weak %r, %pvc[%z] : tile<{n_out}x{out_t}>, {pv}, tile<i32> -> token",
        "  return",
        "}",
    ]
    return "\n".join(lines)


def _run_f4_kernel(text: str, x: np.ndarray, out: np.ndarray, arch: str) -> np.ndarray:
    """`out` as the PTX computes it in the simulator; the interpreter must agree."""
    from tileir.compiler import parse_module_text
    from tileir.interpreter import launch
    from tileir.testing import simulate

    got = np.zeros_like(out)
    simulate(compile_text(text, arch), (1, 1, 1), [x, got])
    launch(parse_module_text(text, "k.mlir"), (1, 1, 1), x, out)
    np.testing.assert_array_equal(got.view(np.uint8), out.view(np.uint8))
    return got


@pytest.mark.parametrize("to", ["f32", "f16", "bf16", "f64"])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_unpack_and_widen_every_f4_pair(to: str, arch: str) -> None:
    """Every byte unpacked to two f4E2M1FN (element 2i the low nibble of byte i) and
    widened exactly: all 16 values and both positions of each, in the simulator and
    the interpreter."""
    body = [
        "%u = unpack %x : tile<256xi8> -> tile<512xf4E2M1FN>",
        f"%r = ftof %u : tile<512xf4E2M1FN> -> tile<512x{to}>",
    ]
    got = _run_f4_kernel(
        _f4_kernel("i8", 256, body, to, 512), ALL_BITS.view(np.int8), np.zeros(512, WIDE[to]), arch
    )
    codes = np.stack([ALL_BITS & 0xF, ALL_BITS >> 4], axis=-1).reshape(-1)
    want = codes.view(F4).astype(np.float64).astype(WIDE[to])
    _bits_equal(got, want)
    assert sorted(set(np.abs(want.astype(np.float64)))) == [0, 0.5, 1, 1.5, 2, 3, 4, 6]


def _f4_narrowing_inputs() -> np.ndarray:
    """Every f4E2M1FN value, the midpoints between neighbours (ties), one f32 ulp
    either side of those, values past 6 (7 is the tie toward 8), infinities, NaN."""
    v = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)
    base = np.concatenate([v, (v[1:] + v[:-1]) / 2, [0.25, 7.0, 6.5, 8.0, 1e30, 1e-30]])
    base = base.astype(np.float32)
    up = np.nextafter(base, np.float32(np.inf))
    down = np.nextafter(base, np.float32(0))
    mag = np.concatenate([base, up, down, np.array([np.inf, np.nan], np.float32)])
    x = np.concatenate([mag, -mag])
    return np.resize(x, 512).astype(np.float32)


@pytest.mark.parametrize("src", ["f32", "f16", "bf16", "f64"])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_narrow_to_f4_and_pack(src: str, arch: str) -> None:
    """`ftof` to f4E2M1FN rounds to nearest-even once and saturates to +-6 (infinities
    too; NaN gives +6), then `pack` puts element 2i in the low nibble of byte i."""
    with np.errstate(over="ignore"):
        x = _f4_narrowing_inputs().astype(WIDE[src])
    body = [
        f"%f = ftof %x : tile<512x{src}> -> tile<512xf4E2M1FN>",
        "%r = pack %f : tile<512xf4E2M1FN> -> tile<256xi8>",
    ]
    got = _run_f4_kernel(_f4_kernel(src, 512, body, "i8", 256), x, np.zeros(256, np.int8), arch)
    wide = x.astype(np.float64)
    nearest = np.clip(wide, -6, 6).astype(np.float32).astype(F4)  # ml_dtypes: RNE
    nearest[np.isnan(wide)] = 6.0
    codes = nearest.view(np.uint8) & 0xF
    want = (codes[0::2] | codes[1::2] << 4).astype(np.uint8)
    np.testing.assert_array_equal(got.view(np.uint8), want)
    assert set(codes[np.abs(wide) >= 7]) <= {0x7, 0xF}  # saturated
    assert (codes[wide == 0.25] == 0).all() and (codes[wide == 0.75] == 2).all()  # ties to even


def test_directed_rounding_to_f4_is_reported() -> None:
    from tileir.diagnostics import CompileError

    body = [
        "%f = ftof %x rounding<zero> : tile<512xf32> -> tile<512xf4E2M1FN>",
        "%r = pack %f : tile<512xf4E2M1FN> -> tile<256xi8>",
    ]
    with pytest.raises(CompileError, match="rounding<zero> to f4E2M1FN"):
        compile_text(_f4_kernel("f32", 512, body, "i8", 256))


def test_odd_f4_tiles_are_located_errors() -> None:
    """An f4E2M1FN tile needs an even element count: a one-element tile is a located
    verifier error, not a traceback."""
    from tileir.diagnostics import CompileError

    body = [
        "%f = ftof %x : tile<1xf32> -> tile<1xf4E2M1FN>",
        "%r = ftof %f : tile<1xf4E2M1FN> -> tile<1xf32>",
    ]
    with pytest.raises(CompileError, match="even") as e:
        compile_text(_f4_kernel("f32", 1, body, "f32", 1))
    assert "kernel.mlir:" in e.value.format()


def test_unpack_to_i4_is_reported() -> None:
    """i4 tiles would need the nibble exchange f4 tiles take; until then `unpack` to
    i4 is a located error, not bytes moved as whole elements (what it compiled to)."""
    from tileir.diagnostics import CompileError

    body = [
        "%u = unpack %x : tile<256xi8> -> tile<512xi4>",
        "%r = exti %u signed : tile<512xi4> -> tile<512xi32>",
    ]
    with pytest.raises(CompileError, match="reinterpret of i4 tiles") as e:
        compile_text(_f4_kernel("i8", 256, body, "i32", 512))
    assert "kernel.mlir:" in e.value.format()


@pytest.mark.parametrize("direction", ["load", "store"])
def test_f4_in_memory_is_reported(direction: str) -> None:
    """tileiras packs f4E2M1FN elements in memory two to a byte; tileir's memory ops
    address one byte an element, so a view of f4 elements is a located error (bytes
    and `unpack` are the way in)."""
    from tileir.diagnostics import CompileError

    if direction == "load":
        text = kernel_text(["%r = ftof %x0 -> f32"], ["f4E2M1FN"], "f32")
    else:
        text = kernel_text(["%r = ftof %x0 -> f4E2M1FN"], ["f32"], "f4E2M1FN")
    with pytest.raises(CompileError, match="f4E2M1FN elements in memory") as e:
        compile_text(text)
    assert "kernel.mlir:" in e.value.format() and "make_tensor_view" in e.value.format()


CORPUS_F4 = Path(__file__).resolve().parents[1] / "corpus" / "mma_scaled_f4.mlir"


def _f4_scaled_text(scale: str, block: int) -> str:
    """The `mma_scaled_f4` corpus kernel with `scale` scales, one per `block` K elements."""
    text = CORPUS_F4.read_text()
    if scale == "f8E4M3FN" and block == 16:
        return text
    groups = 64 // block
    return (
        text.replace("f8E4M3FN", scale)
        .replace("f8m3fn", "f8m0fnu")
        .replace("tile=(16x4)", f"tile=(16x{groups})")
        .replace("tile=(4x16)", f"tile=({groups}x16)")
        .replace("tile<16x4x", f"tile<16x{groups}x")
        .replace("tile<4x16x", f"tile<{groups}x16x")
    )


@pytest.mark.parametrize(
    ("scale", "block"), [("f8E4M3FN", 16), ("f8E8M0FNU", 16), ("f8E8M0FNU", 32)]
)
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_mmaf_scaled_on_f4_matches_interpreter_and_numpy(scale: str, block: int, arch: str) -> None:
    """cuTile's `test_mma_scaled_general_f4` shapes (16x64 by 64x16 f4E2M1FN, unpacked
    from bytes; f8E4M3FN scales per 16, f8E8M0FNU per 16 or 32) through the corpus
    kernel's loop over two K tiles: bf16 tensor cores on the dequantized operands,
    equal to numpy (exact sums) and the interpreter; ptxas accepts the PTX."""
    from tileir.compiler import compile_module, parse_module_text
    from tileir.interpreter import launch
    from tileir.testing import simulate

    text = _f4_scaled_text(scale, block)
    rng = np.random.default_rng(1)
    m, n, k = 40, 48, 128
    a = rng.integers(0, 256, (m, k // 2)).astype(np.uint8)
    b = rng.integers(0, 256, (k, n // 2)).astype(np.uint8)
    if scale == "f8E4M3FN":
        values = np.array([0.5, 1.0, 1.5, 2.0, -0.5, -1.0, -1.5, -2.0])
        sa = rng.choice(values, (m, k // block)).astype(F8[scale])
        sb = rng.choice(values, (k // block, n)).astype(F8[scale])
    else:
        sa = (127 + rng.integers(-1, 2, (m, k // block))).astype(np.uint8).view(F8[scale])
        sb = (127 + rng.integers(-1, 2, (k // block, n))).astype(np.uint8).view(F8[scale])

    def args(c: np.ndarray) -> list[object]:
        out: list[object] = []
        for x in (a, sa, b, sb, c):
            out += [x, x.shape[0], x.shape[1], x.shape[1], 1]
        return [*out, 2]

    ptx = compile_module(parse_module_text(text, "k.mlir"), arch).ptx
    assert ptx is not None and "fma.rn.f32" not in ptx
    assert run_ptxas(ptx, arch).ok
    got = np.zeros((m, n), np.float32)
    simulate(ptx, (3, 3, 1), args(got))
    by_interpreter = np.zeros((m, n), np.float32)
    launch(parse_module_text(text, "k.mlir"), (3, 3, 1), *args(by_interpreter))

    def dequantized(x: np.ndarray, s: np.ndarray, axis: int) -> np.ndarray:
        codes = np.stack([x & 0xF, x >> 4], axis=-1).reshape(x.shape[0], 2 * x.shape[1])
        scale_f = np.repeat(s.astype(np.float64), block, axis=axis)
        return codes.view(F4).astype(np.float64) * scale_f

    want = (dequantized(a, sa, 1) @ dequantized(b, sb, 0)).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(by_interpreter, want)


@pytest.mark.parametrize(
    ("f8", "acc_t", "m", "arch"),
    [
        ("f8E4M3FN", "f32", 32, "sm_80"),
        ("f8E4M3FN", "f16", 32, "sm_80"),
        ("f8E5M2", "f32", 32, "sm_80"),
        ("f8E4M3FN", "f32", 64, "sm_80"),
        ("f8E4M3FN", "f32", 64, "sm_90a"),
        ("f8E5M2", "f32", 64, "sm_90a"),
        ("f8E4M3FN", "f16", 64, "sm_90a"),
        ("f8E4M3FN", "f32", 32, "sm_90a"),
        ("f8E5M2", "f16", 32, "sm_90a"),
        ("f8E4M3FN", "f32", 64, "sm_100a"),
        ("f8E5M2", "f16", 32, "sm_100a"),
        ("f8E4M3FN", "f32", 32, "sm_89"),
    ],
)
def test_fp8_mmaf_matches_interpreter_and_numpy(f8: str, acc_t: str, m: int, arch: str) -> None:
    """An fp8 dot runs on `wgmma ... m64nNk32.{f32|f16}.{e4m3|e5m2}.{e4m3|e5m2}` on
    sm_90a when its warps form a warpgroup along M (64 rows), on `tcgen05.mma
    .kind::f8f6f4` on sm_100a for 64 rows and an f32 accumulator, on `mma.sync ...
    m16n8k32` on 8-bit floats otherwise from sm_89 on, and on f16 `mma.sync` over the
    operands widened exactly before (sm_80 has no 8-bit float MMA); all equal numpy and
    the interpreter (small integers: every sum is exact), and ptxas accepts them."""
    from tileir.compiler import parse_module_text
    from tileir.interpreter import launch
    from tileir.testing import simulate

    n, k = 32, 64
    text = dot_kernel_text(f8, f8, acc_t, m, n, k)
    ptx = compile_text(text, arch)
    name = {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}[f8]
    if arch == "sm_90a" and m == 64:
        instruction = f"wgmma.mma_async.sync.aligned.m64n32k32.{acc_t}.{name}.{name}"
    elif arch == "sm_100a" and m == 64 and acc_t == "f32":
        instruction = "tcgen05.mma.cta_group::1.kind::f8f6f4"
    elif arch == "sm_80":
        instruction = f"mma.sync.aligned.m16n8k16.row.col.{acc_t}.f16.f16.{acc_t}"
    else:
        instruction = f"mma.sync.aligned.m16n8k32.row.col.{acc_t}.{name}.{name}.{acc_t}"
    assert instruction in ptx
    assert "fma.rn" not in ptx
    assert run_ptxas(ptx, arch).ok
    rng = np.random.default_rng(1)
    a = rng.integers(-6, 7, (m, k)).astype(np.float32).astype(F8[f8])
    b = rng.integers(-6, 7, (k, n)).astype(np.float32).astype(F8[f8])
    acc_dt = WIDE[acc_t]
    c0 = rng.integers(-100, 100, (m, n)).astype(acc_dt)
    got = c0.copy()
    simulate(ptx, (1, 1, 1), [a, b, got])
    by_interpreter = c0.copy()
    launch(parse_module_text(text, "k.mlir"), (1, 1, 1), a, b, by_interpreter)
    want = (a.astype(np.float64) @ b.astype(np.float64) + c0.astype(np.float64)).astype(acc_dt)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(by_interpreter, want)


@pytest.mark.parametrize(
    ("f8", "acc_t", "arch"),
    [
        ("f8E4M3FN", "f32", "sm_90a"),
        ("f8E4M3FN", "f16", "sm_90a"),
        ("f8E5M2", "f32", "sm_90a"),
        ("f8E5M2", "f16", "sm_90a"),
        ("f8E5M2", "f16", "sm_100a"),
        ("f8E4M3FN", "f32", "sm_100a"),
        ("f8E5M2", "f32", "sm_89"),
        ("f8E4M3FN", "f16", "sm_80"),
    ],
)
def test_small_fp8_mmaf_runs_on_f16_tensor_cores(f8: str, acc_t: str, arch: str) -> None:
    """A 16x16x16 fp8 dot (cuTile's fp8 `mma` tests, one warp) has no 8-bit float
    instruction (their K step is 32; tiles are powers of two, so K = 16 is the one
    K not a multiple of 32): on every target it runs
    on f16 `mma.sync` m16n8k16 over the operands widened exactly, as sm_80 runs every
    fp8 dot, not on FMAs.  Equal to numpy and the interpreter for small integers (every
    sum exact) and, through a signed permutation, for every finite 8-bit code (the
    widening is exact: `cvt.rn.f16x2.e4m3x2`/`.e5m2x2` from sm_89 on, integer
    operations on sm_80); ptxas accepts it."""
    from tileir.compiler import parse_module_text
    from tileir.interpreter import launch
    from tileir.testing import simulate

    m = n = k = 16
    text = dot_kernel_text(f8, f8, acc_t, m, n, k)
    ptx = compile_text(text, arch)
    assert f"mma.sync.aligned.m16n8k16.row.col.{acc_t}.f16.f16.{acc_t}" in ptx
    assert "m16n8k32" not in ptx and "fma.rn" not in ptx
    # Widened by the hardware from sm_89 on, two at a time; with integer operations before.
    kind = {"f8E4M3FN": "e4m3x2", "f8E5M2": "e5m2x2"}[f8]
    assert (f"cvt.rn.f16x2.{kind}" in ptx) == (arch != "sm_80")
    assert run_ptxas(ptx, arch).ok
    rng = np.random.default_rng(2)
    acc_dt = WIDE[acc_t]
    small_a = rng.integers(-6, 7, (m, k)).astype(np.float32).astype(F8[f8])
    small_b = rng.integers(-6, 7, (k, n)).astype(np.float32).astype(F8[f8])
    codes = ALL_BITS.view(F8[f8])
    every_a = np.where(np.isfinite(codes), codes, 0).reshape(m, k)
    signed_permutation = np.zeros((k, n), np.float32)
    signed_permutation[rng.permutation(k), np.arange(n)] = rng.choice([-1.0, 1.0], n)
    cases = [
        (small_a, small_b, rng.integers(-100, 100, (m, n)).astype(acc_dt)),
        (every_a, signed_permutation.astype(F8[f8]), np.zeros((m, n), acc_dt)),
    ]
    for a, b, c0 in cases:
        got = c0.copy()
        simulate(ptx, (1, 1, 1), [a, b, got])
        by_interpreter = c0.copy()
        launch(parse_module_text(text, "k.mlir"), (1, 1, 1), a, b, by_interpreter)
        want = a.astype(np.float64) @ b.astype(np.float64) + c0.astype(np.float64)
        np.testing.assert_array_equal(got, want.astype(acc_dt))
        np.testing.assert_array_equal(by_interpreter, want.astype(acc_dt))


@pytest.mark.parametrize("to", ["f8E4M3FN", "f8E5M2"])
def test_overflow_saturates_in_compiled_code_and_interpreter(to: str) -> None:
    """tileiras's SASS is `F2FP.SATFINITE`: +-448 / +-57344, not NaN or inf."""
    from tileir.compiler import parse_module_text
    from tileir.interpreter import launch

    text = kernel_text([f"%r = ftof %x0 -> {to}"], ["f32"], to)
    x = np.array([7e4, 1e9, np.inf, -np.inf, -70000.0, np.nan, 448.0, -464.0], np.float32)
    got = run_kernel(compile_text(text), [x], np.dtype(np.uint8))
    by_interpreter = np.zeros(len(x), F8[to])
    launch(parse_module_text(text, "k.mlir"), (1, 1, 1), x, by_interpreter, len(x))
    big = float(ml_dtypes.finfo(F8[to]).max)
    want = np.array([big, big, big, -big, -big, np.nan, 448.0, -448.0]).astype(F8[to])
    np.testing.assert_array_equal(got, want.view(np.uint8))
    np.testing.assert_array_equal(by_interpreter.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("arch", ["sm_80", "sm_100a"])
def test_packed_bytes_with_ragged_groups(arch: str) -> None:
    """A load of bytes returns its words, unpacked where the bytes are first
    used (`memory_asm.unpack_word`); a group only partly in bounds loads its bytes one by
    one into their places in the words (`bfi.b32`).  Every f8E4M3FN bit pattern, 2,298
    of them (16 a thread: the last group has 10 bytes in bounds), widened to f32 in
    the simulator, bit for bit."""
    tile = 2048
    x = np.resize(ALL_BITS, tile + 250).view(F8["f8E4M3FN"])
    text = kernel_text(["%r = ftof %x0 -> f32"], ["f8E4M3FN"], "f32", tile)
    # 16-byte aligned arrays (as the simulator places them), so 16 bytes move at once.
    aligned = (
        "  %al0 = assume div_by<16>, %a0 : tile<ptr<f8E4M3FN>>\n  %tv0 = make_tensor_view %al0,"
    )
    text = text.replace("  %tv0 = make_tensor_view %a0,", aligned)
    ptx = compile_text(text, arch)
    assert "ld.global.u8" in ptx and "bfi.b32" in ptx  # the packed per-element fallback
    assert "ld.global.s8" not in ptx  # no byte loaded into a register of its own
    run_ptxas(ptx, arch)
    got = run_kernel(ptx, [x], WIDE["f32"], tile=tile)
    _bits_equal(got, x.astype(np.float64).astype(WIDE["f32"]))
