"""tileir/utils/float_codec.py against numpy and ml_dtypes: decoding every 8- and
16-bit pattern, and encoding (rounding to nearest even, overflow, subnormals, NaN
payloads and signs) the values of every f16 and bf16 pattern, the midpoints between
neighbouring values of each format and a sample of f32 and f64 bit patterns; and
`numeric.dense_first`/`dense_splat` (a constant's value without numpy) against
`dense_to_numpy`."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatTF32Type,
    IntegerType,
    TensorType,
)

from tileir.utils import float_codec, numeric
from tileir.utils.numeric import dense_to_numpy

DTYPES: dict[str, object] = {
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
    "f8E4M3FN": ml_dtypes.float8_e4m3fn,
    "f8E5M2": ml_dtypes.float8_e5m2,
    "f8E8M0FNU": ml_dtypes.float8_e8m0fnu,
    "f4E2M1FN": ml_dtypes.float4_e2m1fn,
}
UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SMALL = [name for name in DTYPES if np.dtype(DTYPES[name]).itemsize <= 2]  # pyright: ignore[reportArgumentType, reportCallIssue]


def _dtype(name: str) -> np.dtype:
    return np.dtype(DTYPES[name])  # pyright: ignore[reportArgumentType, reportCallIssue]


def _patterns(name: str) -> np.ndarray:
    dt = _dtype(name)
    count = 1 << (8 * dt.itemsize)
    if name == "f4E2M1FN":
        count = 16
    return np.arange(count, dtype=UNSIGNED[dt.itemsize])


def _f64_bits(values: np.ndarray) -> list[int]:
    return np.asarray(values, dtype=np.float64).view(np.uint64).tolist()


@pytest.mark.parametrize("name", SMALL)
def test_decoding_every_pattern(name: str) -> None:
    bits = _patterns(name)
    elements = bits.view(_dtype(name))
    # float() of each element, as tileir read them; bit-compared so NaNs count.
    expected = [float_codec.f64_bits(float(e)) for e in elements]
    got = [float_codec.f64_bits(float_codec.decode(b, name)) for b in bits.tolist()]
    assert got == expected


def test_decoding_f32_tf32_f64_samples() -> None:
    rng = np.random.default_rng(17)
    b32 = rng.integers(0, 1 << 32, 20000, dtype=np.uint64).astype(np.uint32)
    b32[:8] = [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7F800001, 0xFFC12345, 1, 0x807FFFFF]
    expected = [float_codec.f64_bits(float(v)) for v in b32.view(np.float32)]
    assert [float_codec.f64_bits(float_codec.decode(b, "f32")) for b in b32.tolist()] == expected
    b19 = (b32 >> np.uint32(13)).tolist()
    widened = (np.asarray(b19, dtype=np.uint32) << np.uint32(13)).view(np.float32)
    assert [float_codec.f64_bits(float_codec.decode(b, "tf32")) for b in b19] == [
        float_codec.f64_bits(float(v)) for v in widened
    ]
    b64 = rng.integers(0, 1 << 63, 2000, dtype=np.uint64)
    assert [
        float_codec.f64_bits(float_codec.decode(b, "f64")) for b in b64.tolist()
    ] == b64.tolist()


def _inputs() -> np.ndarray:
    """float64 inputs: the values of each small format (every 16th of f16's and bf16's),
    the midpoints of neighbouring values and one ulp either side, samples of f32 and f64
    patterns (around the small formats' ranges and anywhere), NaNs with several payloads,
    each with both signs."""
    parts: list[np.ndarray] = []
    with np.errstate(all="ignore"):
        for name in SMALL:
            values = _patterns(name).view(_dtype(name)).astype(np.float64)
            values = np.unique(values[np.isfinite(values)])
            mid = (values[:-1] + values[1:]) / 2
            step = 16 if values.size > 256 else 1
            parts += [
                values[::step],
                mid[::step],
                np.nextafter(mid, np.inf)[::step],
                np.nextafter(mid, -np.inf)[::step],
            ]
        rng = np.random.default_rng(5)
        b32 = rng.integers(0, 1 << 32, 3000, dtype=np.uint64).astype(np.uint32)
        near = rng.integers(0x2E000000, 0x48000000, 3000, dtype=np.uint64).astype(np.uint32)
        subnormal = rng.integers(0, 0x800000, 500, dtype=np.uint64).astype(np.uint32)
        for b in (b32, near, subnormal):
            parts.append(b.view(np.float32).astype(np.float64))
        b64 = rng.integers(0, 1 << 64, 2000, dtype=np.uint64)
        near64 = rng.integers(0x3700000000000000, 0x4800000000000000, 3000, dtype=np.uint64)
        parts += [b64.view(np.float64), near64.view(np.float64)]
        nan_bits = [
            0x7FF8000000000000,
            0x7FF0000000000001,
            0x7FF4000000000000,
            0xFFF1234567890ABC,
            0x7FFFFFFFFFFFFFFF,
            0xFFF8000000000000,
            0x7FF0040000000000,
            0xFFF0000020000000,
            0x7FF0000000000000,
        ]
        parts.append(np.asarray(nan_bits, dtype=np.uint64).view(np.float64))
    values = np.concatenate(parts)
    return np.concatenate([values, -values])


INPUTS = _inputs()


@pytest.mark.parametrize("name", [*DTYPES, "tf32"])
def test_encoding_matches_astype(name: str) -> None:
    dt = np.dtype(np.float32) if name == "tf32" else _dtype(name)
    with np.errstate(all="ignore"):
        expected = INPUTS.astype(dt).view(UNSIGNED[dt.itemsize])
    if name == "tf32":
        expected = expected >> np.uint32(13)
    got = [float_codec.encode(v, name) for v in INPUTS.tolist()]
    mismatch = [i for i, (g, e) in enumerate(zip(got, expected.tolist(), strict=True)) if g != e]
    assert not mismatch, [
        (hex(float_codec.f64_bits(INPUTS[i])), hex(got[i]), hex(int(expected[i])))
        for i in mismatch[:10]
    ]


@pytest.mark.parametrize("name", [*DTYPES, "tf32"])
def test_rounding_matches_astype(name: str) -> None:
    dt = np.dtype(np.float32) if name == "tf32" else _dtype(name)
    sample = INPUTS[::5]
    with np.errstate(all="ignore"):
        expected = [float_codec.f64_bits(float(v)) for v in sample.astype(dt)]
    got = [float_codec.f64_bits(float_codec.round_to(v, name)) for v in sample.tolist()]
    assert got == expected


@pytest.mark.parametrize("name", ["f16", "bf16"])
def test_every_16_bit_pattern_round_trips(name: str) -> None:
    """Each 16-bit pattern's value encodes to the pattern astype gives it (itself, but
    for NaNs that astype makes canonical)."""
    bits = _patterns(name)
    with np.errstate(all="ignore"):
        values = bits.view(_dtype(name)).astype(np.float64)
        expected = values.astype(_dtype(name)).view(np.uint16).tolist()
    assert [float_codec.encode(v, name) for v in values.tolist()] == expected


def test_f32_helpers() -> None:
    assert float_codec.to_f32(1e300) == math.inf and float_codec.to_f32(-1e300) == -math.inf
    assert float_codec.to_f32(3.4028235e38) == float(np.float32(3.4028235e38))
    assert float_codec.f32_bits(0.1) == int(np.float32(0.1).view(np.uint32))


def _dense(el: AnyFloat, raw: bytes, count: int) -> DenseIntOrFPElementsAttr:
    return DenseIntOrFPElementsAttr(TensorType(el, [count]), BytesAttr(raw))


def _dense_cases() -> list[DenseIntOrFPElementsAttr]:
    """Splats and non-splats of each element type, NaNs of several payloads, -0.0."""
    cases: list[DenseIntOrFPElementsAttr] = []
    floats = {
        Float16Type(): [0x3C00, 0x8000, 0x7C01, 0x7E00, 0xFD55, 0x0001],
        BFloat16Type(): [0x3F80, 0x7F81, 0xFFC0, 0x0001],
        Float32Type(): [0x3F800000, 0x7F800001, 0xFFC12345, 0x80000000],
        Float64Type(): [0x3FF0000000000000, 0x7FF0000000000001, 0x8000000000000000],
        Float8E4M3FNType(): [0x38, 0x7F, 0xFF, 0x80, 0x01],
        Float8E5M2Type(): [0x3C, 0x7D, 0xFE, 0x01],
    }
    for el, patterns in floats.items():
        size = el.bitwidth // 8
        for p in patterns:
            cases.append(_dense(el, p.to_bytes(size, "little") * 3, 3))
        cases.append(_dense(el, b"".join(p.to_bytes(size, "little") for p in patterns[:2]), 2))
    for el in (FloatTF32Type(), Float8E8M0FNUType(), Float4E2M1FNType()):
        for values in ([1.5], [0.25, 0.25], [1.0, 2.0], [float("nan")] * 2):
            cases.append(DenseIntOrFPElementsAttr.from_list(TensorType(el, [len(values)]), values))
    for width, values in (
        (1, [1, 1]),
        (1, [0]),
        (8, [-3, -3]),
        (8, [200 - 256, 5]),
        (16, [-1] * 4),
        (32, [7, 7]),
        (64, [-(2**63)] * 2),
    ):
        el = IntegerType(width)
        cases.append(DenseIntOrFPElementsAttr.from_list(TensorType(el, [len(values)]), values))
    cases.append(DenseIntOrFPElementsAttr.from_list(TensorType(Float32Type(), [0]), []))
    return cases


@pytest.mark.parametrize("attr", _dense_cases(), ids=str)
def test_dense_first_and_splat_as_numpy_reads_them(attr: DenseIntOrFPElementsAttr) -> None:
    with np.errstate(invalid="ignore"):
        data = dense_to_numpy(attr).reshape(-1)
    first, splat = numeric.dense_first(attr), numeric.dense_splat(attr)
    if not data.size:
        assert first is None and splat is None
        return
    integer = isinstance(attr.get_element_type(), IntegerType)
    expected = int(data[0]) if integer else float(data[0])
    assert first is not None
    assert float_codec.f64_bits(float(first)) == float_codec.f64_bits(float(expected))
    assert type(first) is type(expected)
    raw = data.view(np.uint8).reshape(data.size, -1)
    if splat is not None:  # a splat found without numpy is one with it
        assert bool((raw == raw[0]).all())
        assert float_codec.f64_bits(float(splat)) == float_codec.f64_bits(float(first))
