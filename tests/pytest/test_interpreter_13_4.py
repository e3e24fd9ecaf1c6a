"""The reference interpreter on cuda_tile 13.4's new ops, against numpy: the cuTile
exports `grid_dependency`, `insert_tile` and `int_power` (from their bytecode, which the
reader must accept, and from their text), `fpowf`, `fpowi` edge cases, and `ftof` with
directed rounding on narrowing conversions."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tileir.interpreter import KernelError, launch

FIXTURES = Path(__file__).resolve().parent / "bytecode_fixtures" / "cutile"
SUFFIXES = ["tileirbc", "mlir"]


def fixture(name: str, suffix: str) -> Path:
    return FIXTURES / f"{name}.13.4.{suffix}"


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_grid_dependency_copies(suffix: str) -> None:
    a = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    b = np.zeros(64, np.float32)
    launch(fixture("grid_dependency", suffix), 1, a, 64, 1, b, 64, 1)
    np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_insert_tile(suffix: str) -> None:
    a = np.random.default_rng(1).standard_normal(64).astype(np.float32)
    b = np.zeros(64, np.float32)
    launch(fixture("insert_tile", suffix), 1, a, 64, 1, b, 64, 1)
    expected = a.copy()
    expected[16:32] = a[:16]
    np.testing.assert_array_equal(b, expected)


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("n", [0, 1, 3, -2, 7])
def test_int_power(suffix: str, n: int) -> None:
    a = np.random.default_rng(2).uniform(-2, 2, 64).astype(np.float32)
    a[:4] = [0.0, -0.0, np.inf, np.nan]
    b = np.zeros(64, np.float32)
    launch(fixture("int_power", suffix), 1, a, 64, 1, b, 64, 1, n)
    with np.errstate(all="ignore"):
        expected = np.power(a.astype(np.float64), float(n)).astype(np.float32)
    np.testing.assert_array_equal(b, expected)


ELEMENTWISE = """
entry @k(%x: tile<ptr<SRC>>, %y: tile<ptr<EXP>>, %o: tile<ptr<DST>>) {
  %t = make_token : token
  %i = iota : tile<8xi32>
  %xb = reshape %x : tile<ptr<SRC>> -> tile<1xptr<SRC>>
  %xs = broadcast %xb : tile<1xptr<SRC>> -> tile<8xptr<SRC>>
  %xp = offset %xs, %i : tile<8xptr<SRC>>, tile<8xi32> -> tile<8xptr<SRC>>
  %yb = reshape %y : tile<ptr<EXP>> -> tile<1xptr<EXP>>
  %ys = broadcast %yb : tile<1xptr<EXP>> -> tile<8xptr<EXP>>
  %yp = offset %ys, %i : tile<8xptr<EXP>>, tile<8xi32> -> tile<8xptr<EXP>>
  %ob = reshape %o : tile<ptr<DST>> -> tile<1xptr<DST>>
  %os = broadcast %ob : tile<1xptr<DST>> -> tile<8xptr<DST>>
  %op = offset %os, %i : tile<8xptr<DST>>, tile<8xi32> -> tile<8xptr<DST>>
  %a, %t1 = load_ptr_tko weak %xp token=%t : tile<8xptr<SRC>> -> tile<8xSRC>, token
  %b, %t2 = load_ptr_tko weak %yp token=%t : tile<8xptr<EXP>> -> tile<8xEXP>, token
  BODY
  %t3 = store_ptr_tko weak %op, %r token=%t : tile<8xptr<DST>>, tile<8xDST> -> token
  return
}
"""


def run(
    tmp_path: Path,
    body: str,
    src: np.ndarray,
    exp: np.ndarray,
    dst: np.ndarray,
    types: tuple[str, str, str],
) -> np.ndarray:
    text = ELEMENTWISE.replace("BODY", body)
    for key, t in zip(("SRC", "EXP", "DST"), types, strict=True):
        text = text.replace(key, t)
    path = tmp_path / "k.mlir"
    path.write_text(text)
    launch(path, 1, src, exp, dst)
    return dst


def test_fpowf_matches_numpy(tmp_path: Path) -> None:
    x = np.array([2.0, -2.0, 0.5, 0.0, -1.0, 3.0, np.inf, 1.5], np.float32)
    y = np.array([0.5, 3.0, -2.0, -1.0, 0.5, 2.5, -1.0, 10.0], np.float32)
    out = run(
        tmp_path,
        "%r = fpowf %a, %b : tile<8xf32>",
        x,
        y,
        np.zeros(8, np.float32),
        ("f32", "f32", "f32"),
    )
    with np.errstate(all="ignore"):
        expected = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize(("src", "dtype"), [("f16", np.float16), ("f64", np.float64)])
def test_fpowi_signs_and_zeros(tmp_path: Path, src: str, dtype: type) -> None:
    x = np.array([-2.0, -2.0, -0.0, 0.0, -1.0, np.nan, -3.0, 1.5], dtype)
    n = np.array([3, 2, -1, -2, 2**31 - 1, 0, -3, 5], np.int32)
    out = run(
        tmp_path,
        f"%r = fpowi %a, %b : tile<8x{src}>, tile<8xi32>",
        x,
        n,
        np.zeros(8, dtype),
        (src, "i32", src),
    )
    expected = np.array([-8.0, 4.0, -np.inf, np.inf, -1.0, 1.0, -1 / 27, 1.5**5])
    np.testing.assert_array_equal(out, expected.astype(dtype))


def _directed_reference(x: np.ndarray, dtype: type, mode: str) -> np.ndarray:
    """Round each f64 value to `dtype` by stepping from nearest (numpy's nextafter)."""
    with np.errstate(over="ignore"):
        out = x.astype(dtype)
    finite_max = ml_dtypes.finfo(dtype).max
    for i, (v, r) in enumerate(zip(x, out, strict=True)):
        if np.isnan(v):
            continue
        if np.isinf(r) and not np.isinf(v):
            toward_zero = mode == "zero" or (mode == "negative_inf") == (v > 0)
            out[i] = np.copysign(finite_max, v) if toward_zero else r
            continue
        down = mode == "negative_inf" or (mode == "zero" and v > 0)
        up = mode == "positive_inf" or (mode == "zero" and v < 0)
        if down and float(r) > v:
            out[i] = np.nextafter(r, dtype(-np.inf))
        elif up and float(r) < v:
            out[i] = np.nextafter(r, dtype(np.inf))
    return out


@pytest.mark.parametrize("mode", ["zero", "negative_inf", "positive_inf", "nearest_even"])
@pytest.mark.parametrize(
    ("src", "dst", "src_dtype", "dst_dtype"),
    [
        ("f32", "f16", np.float32, np.float16),
        ("f32", "bf16", np.float32, ml_dtypes.bfloat16),
        ("f64", "f32", np.float64, np.float32),
    ],
)
def test_ftof_directed_rounding(
    tmp_path: Path, mode: str, src: str, dst: str, src_dtype: type, dst_dtype: type
) -> None:
    x = np.array([1.0 + 2**-12, -(1.0 + 2**-12), 1e30, -1e30, 3.0, np.nan, 1e-30, -7.7], np.float64)
    x = x.astype(src_dtype)
    rounding = "" if mode == "nearest_even" else f" rounding<{mode}>"
    body = f"%r = ftof %a{rounding} : tile<8x{src}> -> tile<8x{dst}>"
    out = run(tmp_path, body, x, np.zeros(8, np.int32), np.zeros(8, dst_dtype), (src, "i32", dst))
    with np.errstate(over="ignore"):
        nearest = x.astype(dst_dtype)
    expected = (
        nearest
        if mode == "nearest_even"
        else _directed_reference(x.astype(np.float64), dst_dtype, mode)
    )
    np.testing.assert_array_equal(out.astype(np.float64), expected.astype(np.float64))


def test_insert_outside_destination_is_an_error(tmp_path: Path) -> None:
    text = (
        (FIXTURES / "insert_tile.13.4.mlir")
        .read_text()
        .replace("%tile[%cst_1_i32_10]", "%tile[%arg2]")
    )
    path = tmp_path / "k.mlir"
    path.write_text(text)
    a = np.zeros(64, np.float32)
    with pytest.raises(KernelError, match="outside the destination"):
        launch(path, 1, a, 64, 4, np.zeros(64, np.float32), 64, 1)
