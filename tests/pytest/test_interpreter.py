"""The reference interpreter (`tileir.interpreter.launch`) against numpy.

* every corpus kernel (tests/corpus), from its bytecode and from its text, matches
  the kernel's own numpy reference;
* the cuTile exports in tests/pytest/bytecode_fixtures/cutile (reductions, scans,
  atomics, MMA, gathers, shape ops, control flow, printing) match references
  computed here with numpy;
* small hand-written kernels pin down single semantics: padding values, masks,
  rounding modes, overflow flags, loops with break/continue, asserts, and the
  diagnostics for bad launches.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tileir.diagnostics import CompileError
from tileir.interpreter import KernelAssertionError, KernelError, Options, launch

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"
FIXTURES = Path(__file__).resolve().parent / "bytecode_fixtures" / "cutile"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 0


def array_args(*arrays: np.ndarray) -> list[object]:
    """cuTile's convention: each array as pointer, shape..., strides... (elements)."""
    out: list[object] = []
    for a in arrays:
        out.append(a)
        out.extend(int(n) for n in a.shape)
        out.extend(_common.element_strides(a))
    return out


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


# ---------------------------------------------------------------------------
# The corpus.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["tileirbc", "mlir"])
@pytest.mark.parametrize("name", _common.kernel_names())
def test_corpus_kernel_matches_reference(name: str, suffix: str) -> None:
    case = _common.load_case_module(name)
    inputs = case.make_inputs(np.random.default_rng(SEED))
    before = {k: a.copy() for k, a in inputs["arrays"].items() if k not in inputs["outputs"]}
    expected = case.reference(_common.copy_inputs(inputs))
    launch(CORPUS / f"{name}.{suffix}", inputs["grid"], *_common.flatten_args(inputs))
    for k, a in before.items():
        np.testing.assert_array_equal(inputs["arrays"][k], a, err_msg=f"input {k} changed")
    _common.check_outputs(case, inputs, expected)


# ---------------------------------------------------------------------------
# cuTile exports beyond the corpus.
# ---------------------------------------------------------------------------


def fixture(name: str, version: str = "13.3") -> Path:
    return FIXTURES / f"{name}.{version}.tileirbc"


def test_reductions_sum_max_cumsum_argmax() -> None:
    rng = np.random.default_rng(1)
    rows = 37  # not a multiple of the 16-row tile: the last tile is zero-padded
    x = rng.standard_normal((rows, 64)).astype(np.float32)
    x[3, 10] = x[3, 50] = 9.0  # a tie: argmax picks the first index
    out_sum = np.full(rows, np.nan, np.float32)
    out_max = np.full(rows, np.nan, np.float32)
    out_scan = np.full((rows, 64), np.nan, np.float32)
    out_arg = np.full(rows, -1, np.int32)
    launch(
        fixture("reductions"),
        (cdiv(rows, 16), 1, 1),
        *array_args(x, out_sum, out_max, out_scan, out_arg),
    )
    np.testing.assert_allclose(out_sum, x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out_max, x.max(axis=1))
    np.testing.assert_allclose(
        out_scan, np.cumsum(x, axis=1, dtype=np.float64), rtol=1e-5, atol=1e-5
    )
    np.testing.assert_array_equal(out_arg, x.argmax(axis=1))
    assert out_arg[3] == 10


def test_scan_is_sequential_with_float32_rounding() -> None:
    x = np.zeros((16, 64), np.float32)
    x[0, :] = np.float32(2.0**-24)
    x[0, 0] = 1.0  # 1 + 2^-24 rounds back to 1 at every step of a sequential f32 scan
    outs = [np.zeros(16, np.float32), np.zeros(16, np.float32)]
    scan = np.zeros((16, 64), np.float32)
    arg = np.zeros(16, np.int32)
    launch(fixture("reductions"), 1, *array_args(x, outs[0], outs[1], scan, arg))
    np.testing.assert_array_equal(scan[0], np.ones(64, np.float32))


def test_matmul_f16_loop_carried_accumulator() -> None:
    rng = np.random.default_rng(2)
    m, n, k = 100, 70, 80  # ragged in every dimension
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    launch(fixture("matmul_f16"), (cdiv(m, 64), cdiv(n, 64), 1), *array_args(a, b, c), cdiv(k, 32))
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float64), want.astype(np.float64), rtol=2e-3, atol=2e-3)


def test_matmul_i8_is_exact() -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (32, 32), dtype=np.int8)
    b = rng.integers(-128, 128, (32, 32), dtype=np.int8)
    c = np.zeros((32, 32), np.int32)
    launch(fixture("matmul_i8"), 1, *array_args(a, b, c))
    np.testing.assert_array_equal(c, a.astype(np.int64) @ b.astype(np.int64))


def test_mma_scaled_block_scales() -> None:
    rng = np.random.default_rng(4)
    a = rng.uniform(-2, 2, (64, 64)).astype(ml_dtypes.float8_e4m3fn)
    b = rng.uniform(-2, 2, (64, 64)).astype(ml_dtypes.float8_e4m3fn)
    sa = (2.0 ** rng.integers(-3, 4, (64, 2))).astype(ml_dtypes.float8_e8m0fnu)
    sb = (2.0 ** rng.integers(-3, 4, (2, 64))).astype(ml_dtypes.float8_e8m0fnu)
    c = np.zeros((64, 64), np.float32)
    launch(fixture("mma_scaled"), 1, *array_args(a, sa, b, sb, c))
    lhs = a.astype(np.float64) * np.repeat(sa.astype(np.float64), 32, axis=1)
    rhs = b.astype(np.float64) * np.repeat(sb.astype(np.float64), 32, axis=0)
    np.testing.assert_allclose(c, lhs @ rhs, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("n", [0, 2, 5])
def test_control_flow_if_and_while_loop(n: int) -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal(100).astype(np.float32)
    out = np.full(100, np.nan, np.float32)
    limit = 0.25
    launch(fixture("control_flow"), (cdiv(100, 64), 1, 1), *array_args(x, out), n, limit)
    t = x * np.float32(2.0) if n > 3 else x - np.float32(1.0)
    if n > 0:
        t = np.minimum(t, np.float32(limit))
    np.testing.assert_array_equal(out, t)


def test_atomics_rmw_cas_gather_scatter() -> None:
    rng = np.random.default_rng(6)
    counter = np.arange(64, dtype=np.int32) * 10
    x = rng.standard_normal(100).astype(np.float32)  # gather x[2i]: the last 14 lanes masked
    out = np.full(64, np.nan, np.float32)
    launch(fixture("atomics"), (3, 1, 1), *array_args(counter, x, out))
    # Three blocks each add 1; the compare-and-swap expects the value before the
    # add, so it never swaps.
    np.testing.assert_array_equal(counter, np.arange(64) * 10 + 3)
    want = np.where(np.arange(64) * 2 < 100, x[np.minimum(np.arange(64) * 2, 99)], 0.0) + 1
    np.testing.assert_array_equal(out, want.astype(np.float32))


def test_shapes_cat_permute_extract_bitcast_iota() -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    x[0, 0] = 0.0
    out = np.full((16, 16), np.nan, np.float32)
    out2 = np.zeros(32, np.int32)
    launch(fixture("shapes"), 1, *array_args(x, out, out2))
    e = np.concatenate([x, x], axis=0).T[:16, :16]
    want = np.where(e.view(np.int32) > 0, e, -e)
    np.testing.assert_array_equal(out.view(np.int32), want.view(np.int32))  # -0.0 included
    np.testing.assert_array_equal(out2, np.arange(32))


def test_math_ops() -> None:
    rng = np.random.default_rng(8)
    a = rng.uniform(-6, 6, 128).astype(np.float32)
    b = rng.uniform(0.25, 3, 128).astype(np.float32) * rng.choice([-1, 1], 128).astype(np.float32)
    out = np.full(128, np.nan, np.float32)
    out_i = np.zeros(128, np.int32)
    launch(fixture("math_ops"), (2, 1, 1), *array_args(a, b, out, out_i))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    r = np.sin(a64) + np.cos(b64) + np.tan(a64) + np.sinh(b64) + np.cosh(a64)
    r = r + np.log2(np.abs(b64) + 1) + np.abs(a64) ** b64 + np.ceil(a64) + np.sqrt(np.abs(b64))
    r = r + np.mod(a64, b64)  # Python's % (floored) on floats
    np.testing.assert_allclose(out, r, rtol=1e-5, atol=1e-4)
    i = np.trunc(a).astype(np.int64)
    j = (i * 3).astype(np.int16).astype(np.int64)
    np.testing.assert_array_equal(out_i, i // 3 + j)


def test_atan2() -> None:
    rng = np.random.default_rng(9)
    y = rng.standard_normal(64).astype(np.float32)
    x = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    launch(fixture("atan2_op"), 1, *array_args(y, x, out))
    np.testing.assert_allclose(out, np.arctan2(y.astype(np.float64), x), rtol=1e-6, atol=1e-7)


def test_print_and_assert() -> None:
    x = np.arange(100, dtype=np.float32)
    sink = io.StringIO()
    result = launch(fixture("printing"), (2, 1, 1), *array_args(x), out=sink)
    lines = [f"block {b} sum {x[b * 64 : (b + 1) * 64].sum():f}" for b in range(2)]
    assert sink.getvalue() == "".join(f"{line}\n" for line in lines)
    assert result.printed == sink.getvalue()


def test_hints_and_memory_ordering_do_not_change_values() -> None:
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    launch(fixture("hints"), 1, *array_args(x, out))
    np.testing.assert_array_equal(out, x)


def test_pack_and_unpack() -> None:
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    raw = np.zeros(256, np.uint8)  # cuTile passes uint8 arrays as ptr<i8>
    back = np.zeros(64, np.float32)
    launch(fixture("packing"), 1, *array_args(x, raw, back))
    np.testing.assert_array_equal(raw, x.view(np.uint8))
    np.testing.assert_array_equal(back, x)


def test_gather_view_rows() -> None:
    rng = np.random.default_rng(10)
    x = rng.standard_normal((50, 40)).astype(np.float32)
    idx = rng.permutation(50)[:16].astype(np.int32)
    out = np.zeros((16, 32), np.float32)
    launch(fixture("gather_view"), 1, *array_args(x, idx, out))
    np.testing.assert_array_equal(out, x[idx, :32])


def test_strided_array_arguments() -> None:
    """An array whose rows are longer than the tile (row stride 80 elements) is read
    through its strides; the rest of its buffer is never touched."""
    rng = np.random.default_rng(11)
    full = rng.standard_normal((16, 80)).astype(np.float32)
    x = full[:, :64]
    assert not x.flags.c_contiguous
    out_sum, out_max, out_arg = (
        np.zeros(16, np.float32),
        np.zeros(16, np.float32),
        np.zeros(16, np.int32),
    )
    scan_full = np.full((16, 80), 7.0, np.float32)
    scan = scan_full[:, :64]
    launch(fixture("reductions"), 1, *array_args(x, out_sum, out_max, scan, out_arg))
    np.testing.assert_array_equal(out_max, x.max(axis=1))
    np.testing.assert_allclose(scan, np.cumsum(x, axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(scan_full[:, 64:], 7.0)


# ---------------------------------------------------------------------------
# Hand-written kernels for single semantics.
# ---------------------------------------------------------------------------


def kernel(body: str, params: str) -> str:
    return f"cuda_tile.module @m {{\n  entry @k({params}) {{\n{body}\n    return\n  }}\n}}\n"


def run_text(tmp_path: Path, text: str, grid: object, *args: object, **kw: object) -> object:
    path = tmp_path / "k.mlir"
    path.write_text(text)
    return launch(path, grid, *args, **kw)  # pyright: ignore[reportArgumentType]


PADDED = kernel(
    """
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(8), padding_value = nan, tensor_view<?xf32, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %t, %tok = load_view_tko weak %pv[%c0] : partition_view<tile=(8), padding_value = nan, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<8xf32>, token
    %ov = make_tensor_view %o, shape = [8], strides = [1] : tensor_view<8xf32, strides=[1]>
    %opv = make_partition_view %ov : partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>
    %s = store_view_tko weak %t, %opv[%c0] : tile<8xf32>, partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>, tile<i32> -> token""",
    "%p: tile<ptr<f32>>, %n: tile<i32>, %o: tile<ptr<f32>>",
)


def test_padding_value_nan(tmp_path: Path) -> None:
    x = np.arange(5, dtype=np.float32)
    out = np.zeros(8, np.float32)
    run_text(tmp_path, PADDED, 1, x, 5, out)
    np.testing.assert_array_equal(out, [0, 1, 2, 3, 4, np.nan, np.nan, np.nan])


def test_index_outside_the_view_pads_and_drops(tmp_path: Path) -> None:
    """Tile 1 of a 5-element view (index space 1) is wholly out of bounds: the load
    gives the padding everywhere, and tile 1 of the 8-element output is not stored
    (tests/pytest/test_view_index_space.py has the rest)."""
    text = PADDED.replace("%c0 = constant <i32: 0>", "%c0 = constant <i32: 1>")
    x = np.arange(5, dtype=np.float32)
    out = np.zeros(8, np.float32)
    run_text(tmp_path, text, 1, x, 5, out)
    np.testing.assert_array_equal(out, np.zeros(8, np.float32))
    text = text.replace("%opv[%c0]", "%opv[%c00]").replace(
        "%ov = make_tensor_view", "%c00 = constant <i32: 0> : tile<i32>\n    %ov = make_tensor_view"
    )
    run_text(tmp_path, text, 1, x, 5, out)
    assert np.isnan(out).all()


ROUNDED = kernel(
    """
    %a, %ta = load_ptr_tko weak %pa : tile<ptr<f32>> -> tile<f32>, token
    %b, %tb = load_ptr_tko weak %pb : tile<ptr<f32>> -> tile<f32>, token
    %r = addf %a, %b rounding<MODE> : tile<f32>
    %s = store_ptr_tko weak %po, %r : tile<ptr<f32>>, tile<f32> -> token""",
    "%pa: tile<ptr<f32>>, %pb: tile<ptr<f32>>, %po: tile<ptr<f32>>",
)


@pytest.mark.parametrize(
    ("mode", "direction"),
    [("nearest_even", 0), ("zero", -1), ("negative_inf", -1), ("positive_inf", 1)],
)
def test_addf_rounding_modes(tmp_path: Path, mode: str, direction: int) -> None:
    a = np.array([1.0], np.float32)
    b = np.array([2.0**-30], np.float32)  # 1 + 2^-30 lies strictly between two f32s
    out = np.zeros(1, np.float32)
    run_text(tmp_path, ROUNDED.replace("MODE", mode), 1, a, b, out)
    want = np.float32(1.0) if direction <= 0 else np.nextafter(np.float32(1), np.float32(2))
    assert out[0] == want
    neg = np.zeros(1, np.float32)
    run_text(tmp_path, ROUNDED.replace("MODE", mode), 1, -a, -b, neg)
    want_neg = np.float32(-1.0)
    if mode == "negative_inf":
        want_neg = np.nextafter(np.float32(-1), np.float32(-2))
    assert neg[0] == want_neg


GATHER = kernel(
    """
    %i = iota : tile<8xi32>
    %lim = reshape %n : tile<i32> -> tile<1xi32>
    %limb = broadcast %lim : tile<1xi32> -> tile<8xi32>
    %m = cmpi less_than %i, %limb, signed : tile<8xi32> -> tile<8xi1>
    %pr = reshape %p : tile<ptr<f32>> -> tile<1xptr<f32>>
    %pb = broadcast %pr : tile<1xptr<f32>> -> tile<8xptr<f32>>
    %ptrs = offset %pb, %i : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    %pad = constant <f32: -7.0> : tile<8xf32>
    %v, %t = load_ptr_tko weak %ptrs, %m, %pad : tile<8xptr<f32>>, tile<8xi1>, tile<8xf32> -> tile<8xf32>, token
    %qr = reshape %q : tile<ptr<f32>> -> tile<1xptr<f32>>
    %qb = broadcast %qr : tile<1xptr<f32>> -> tile<8xptr<f32>>
    %qs = offset %qb, %i : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    %s = store_ptr_tko weak %qs, %v, %m : tile<8xptr<f32>>, tile<8xf32>, tile<8xi1> -> token""",
    "%p: tile<ptr<f32>>, %q: tile<ptr<f32>>, %n: tile<i32>",
)


def test_masked_gather_and_scatter(tmp_path: Path) -> None:
    x = np.arange(1, 6, dtype=np.float32)
    out = np.full(8, 99.0, np.float32)
    run_text(tmp_path, GATHER, 1, x, out, 5)
    np.testing.assert_array_equal(out, [1, 2, 3, 4, 5, 99, 99, 99])


def test_unmasked_out_of_bounds_access_is_diagnosed(tmp_path: Path) -> None:
    with pytest.raises(KernelError, match=r"out-of-bounds access .* past the end of 'argument 0'"):
        run_text(tmp_path, GATHER, 1, np.arange(5, dtype=np.float32), np.zeros(8, np.float32), 8)


OVERFLOW = kernel(
    """
    %a, %ta = load_ptr_tko weak %p : tile<ptr<i32>> -> tile<i32>, token
    %r = addi %a, %a overflow<no_signed_wrap> : tile<i32>
    %s = store_ptr_tko weak %p, %r : tile<ptr<i32>>, tile<i32> -> token""",
    "%p: tile<ptr<i32>>",
)


def test_overflow_flags(tmp_path: Path) -> None:
    x = np.array([2**30], np.int32)
    result = run_text(tmp_path, OVERFLOW, 1, x)
    assert x[0] == -(2**31)  # wraps, as the hardware does
    assert "promised no signed wrap" in result.warnings[0]  # pyright: ignore[reportAttributeAccessIssue]
    with pytest.raises(KernelError, match="promised no signed wrap"):
        run_text(tmp_path, OVERFLOW, 1, np.array([2**30], np.int32), options=Options("error"))
    fine = np.array([5], np.int32)
    assert not run_text(tmp_path, OVERFLOW, 1, fine).warnings  # pyright: ignore[reportAttributeAccessIssue]
    assert fine[0] == 10


LOOPS = kernel(
    """
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c3 = constant <i32: 3> : tile<i32>
    %c100 = constant <i32: 100> : tile<i32>
    %sum = for %i in (%c0 to %n, step %c1) : tile<i32> iter_values(%acc = %c0) -> (tile<i32>) {
      %odd = andi %i, %c1 : tile<i32>
      %is_odd = cmpi equal %odd, %c1, signed : tile<i32> -> tile<i1>
      if %is_odd {
        continue %acc : tile<i32>
      }
      %next = addi %acc, %i : tile<i32>
      continue %next : tile<i32>
    }
    %w:2 = loop iter_values(%j = %c0, %k = %c0) : tile<i32>, tile<i32> -> tile<i32>, tile<i32> {
      %done = cmpi greater_than_or_equal %j, %c100, signed : tile<i32> -> tile<i1>
      if %done {
        break %j, %k : tile<i32>, tile<i32>
      }
      %j2 = addi %j, %c3 : tile<i32>
      %k2 = addi %k, %c1 : tile<i32>
      continue %j2, %k2 : tile<i32>, tile<i32>
    }
    %both = addi %sum, %w#1 : tile<i32>
    %s = store_ptr_tko weak %p, %both : tile<ptr<i32>>, tile<i32> -> token""",
    "%p: tile<ptr<i32>>, %n: tile<i32>",
)


def test_for_with_continue_and_loop_with_break(tmp_path: Path) -> None:
    out = np.zeros(1, np.int32)
    run_text(tmp_path, LOOPS, 1, out, 10)
    assert out[0] == sum(range(0, 10, 2)) + 34  # 34 steps of 3 reach 102 >= 100


ASSERT = kernel(
    """
    %b:3 = get_tile_block_id : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %ok = cmpi less_than %b#0, %c2, signed : tile<i32> -> tile<i1>
    assert %ok, "block too far" : tile<i1>""",
    "",
)


def test_failed_assert_names_the_block(tmp_path: Path) -> None:
    run_text(tmp_path, ASSERT, (2, 1, 1))
    with pytest.raises(KernelAssertionError, match=r'"block too far" \(tile block \(2, 0, 0\)\)'):
        run_text(tmp_path, ASSERT, (3, 1, 1))


def test_launch_argument_diagnostics(tmp_path: Path) -> None:
    x = np.zeros(5, np.float32)
    with pytest.raises(CompileError, match=r"entry @k takes 3 argument\(s\)"):
        run_text(tmp_path, PADDED, 1, x)
    with pytest.raises(CompileError, match=r"argument 0 .*expected an array of float32, got int32"):
        run_text(tmp_path, PADDED, 1, np.zeros(5, np.int32), 5, x)
    with pytest.raises(CompileError, match=r"argument 1 .*expected an int, got float"):
        run_text(tmp_path, PADDED, 1, x, 5.0, x)
    with pytest.raises(CompileError, match="grid dimensions are positive integers"):
        run_text(tmp_path, PADDED, (0, 1), x, 5, x)
    with pytest.raises(CompileError, match="no entry named 'nope'"):
        run_text(tmp_path, PADDED, 1, x, 5, x, entry="nope")
    with pytest.raises(CompileError, match="no such file"):
        launch(tmp_path / "missing.mlir", 1)


def test_violated_assumption_is_diagnosed() -> None:
    base = np.zeros(65, np.float32)[1:]  # 4 bytes past a 16-byte boundary at best
    if base.__array_interface__["data"][0] % 16 == 0:
        base = np.zeros(66, np.float32)[2:]
    with pytest.raises(KernelError, match=r"assumption violated .*div_by<16>"):
        launch(fixture("hints"), 1, *array_args(base, np.zeros(64, np.float32)))


HISTOGRAM = kernel(
    """
    %v, %t = load_ptr_tko weak %pv : tile<ptr<i32>> -> tile<i32>, token
    %bins = iota : tile<16xi32>
    %c4 = constant <i32: 4> : tile<16xi32>
    %bucket = remi %bins, %c4 signed : tile<16xi32>
    %hr = reshape %h : tile<ptr<i32>> -> tile<1xptr<i32>>
    %hb = broadcast %hr : tile<1xptr<i32>> -> tile<16xptr<i32>>
    %ptrs = offset %hb, %bucket : tile<16xptr<i32>>, tile<16xi32> -> tile<16xptr<i32>>
    %one = constant <i32: 1> : tile<16xi32>
    %old, %t2 = atomic_rmw_tko relaxed device %ptrs, add, %one : tile<16xptr<i32>>, tile<16xi32> -> tile<16xi32>, token
    %fr = reshape %f : tile<ptr<f32>> -> tile<1xptr<f32>>
    %fb = broadcast %fr : tile<1xptr<f32>> -> tile<16xptr<f32>>
    %fp = offset %fb, %bucket : tile<16xptr<f32>>, tile<16xi32> -> tile<16xptr<f32>>
    %x = constant <f32: 0.5> : tile<16xf32>
    %m = constant <i1: [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false]> : tile<16xi1>
    %oldf, %t3 = atomic_rmw_tko relaxed device %fp, addf, %x, %m : tile<16xptr<f32>>, tile<16xf32>, tile<16xi1> -> tile<16xf32>, token
    %or = reshape %o : tile<ptr<i32>> -> tile<1xptr<i32>>
    %ob = broadcast %or : tile<1xptr<i32>> -> tile<16xptr<i32>>
    %op = offset %ob, %bins : tile<16xptr<i32>>, tile<16xi32> -> tile<16xptr<i32>>
    %s = store_ptr_tko weak %op, %old : tile<16xptr<i32>>, tile<16xi32> -> token""",
    "%pv: tile<ptr<i32>>, %h: tile<ptr<i32>>, %f: tile<ptr<f32>>, %o: tile<ptr<i32>>",
)


def test_atomics_on_one_address_all_land(tmp_path: Path) -> None:
    hist = np.zeros(4, np.int32)
    fsum = np.zeros(4, np.float32)
    old = np.full(16, -1, np.int32)
    run_text(tmp_path, HISTOGRAM, (2, 1, 1), np.zeros(1, np.int32), hist, fsum, old)
    np.testing.assert_array_equal(hist, [8, 8, 8, 8])  # two blocks of 16 lanes, 4 per bin
    np.testing.assert_array_equal(fsum, [2.0, 2.0, 2.0, 2.0])  # masked lanes skipped
    # Old values of the second block, lane by lane in row-major order.
    np.testing.assert_array_equal(old, [4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7])


def pointers8(name: str, elem: str) -> str:
    """Kernel lines making `%{name}8`, 8 consecutive pointers from `%{name}`."""
    return (
        f"    %{name}r = reshape %{name} : tile<ptr<{elem}>> -> tile<1xptr<{elem}>>\n"
        f"    %{name}b = broadcast %{name}r : tile<1xptr<{elem}>> -> tile<8xptr<{elem}>>\n"
        f"    %{name}i = iota : tile<8xi32>\n"
        f"    %{name}8 = offset %{name}b, %{name}i : tile<8xptr<{elem}>>, tile<8xi32> "
        f"-> tile<8xptr<{elem}>>"
    )


ELEMENTWISE = kernel(
    "\n".join(pointers8(n, "f32") for n in ("pa", "pb", "pmx", "pmxn", "ptf"))
    + "\n"
    + "\n".join(pointers8(n, "i32") for n in ("pq", "psh"))
    + """
    %a, %t1 = load_ptr_tko weak %pa8 : tile<8xptr<f32>> -> tile<8xf32>, token
    %b, %t2 = load_ptr_tko weak %pb8 : tile<8xptr<f32>> -> tile<8xf32>, token
    %mx = maxf %a, %b : tile<8xf32>
    %mxn = maxf %a, %b propagate_nan : tile<8xf32>
    %i = ftoi %a signed : tile<8xf32> -> tile<8xi16>
    %i32 = exti %i signed : tile<8xi16> -> tile<8xi32>
    %c3 = constant <i32: -3> : tile<8xi32>
    %q = divi %i32, %c3 signed rounding<negative_inf> : tile<8xi32>
    %sh = shri %i32, %c3 unsigned : tile<8xi32>
    %tf = ftof %a : tile<8xf32> -> tile<8xtf32>
    %back = ftof %tf : tile<8xtf32> -> tile<8xf32>
    %o1 = store_ptr_tko weak %pmx8, %mx : tile<8xptr<f32>>, tile<8xf32> -> token
    %o2 = store_ptr_tko weak %pmxn8, %mxn : tile<8xptr<f32>>, tile<8xf32> -> token
    %o3 = store_ptr_tko weak %pq8, %q : tile<8xptr<i32>>, tile<8xi32> -> token
    %o4 = store_ptr_tko weak %psh8, %sh : tile<8xptr<i32>>, tile<8xi32> -> token
    %o5 = store_ptr_tko weak %ptf8, %back : tile<8xptr<f32>>, tile<8xf32> -> token""",
    "%pa: tile<ptr<f32>>, %pb: tile<ptr<f32>>, %pmx: tile<ptr<f32>>, %pmxn: tile<ptr<f32>>, "
    "%ptf: tile<ptr<f32>>, %pq: tile<ptr<i32>>, %psh: tile<ptr<i32>>",
)


def test_elementwise_semantics(tmp_path: Path) -> None:
    a = np.array([1.5, np.nan, -0.0, 7.9, -7.9, 1e6, np.nan, 1 + 2**-11], np.float32)
    b = np.array([2.0, 3.0, 0.0, np.nan, -8.0, 1.0, np.nan, 0.0], np.float32)
    mx, mxn, back = (np.zeros(8, np.float32) for _ in range(3))
    q, sh = np.zeros(8, np.int32), np.ones(8, np.int32)
    run_text(tmp_path, ELEMENTWISE, 1, a, b, mx, mxn, back, q, sh)
    nan = np.nan
    f32 = np.float32
    np.testing.assert_array_equal(
        mx, np.array([2.0, 3.0, 0.0, 7.9, -7.9, 1e6, nan, 1 + 2**-11], f32)
    )
    assert not np.signbit(mx[2])  # +0 > -0
    np.testing.assert_array_equal(
        mxn, np.array([2.0, nan, 0.0, nan, -7.9, 1e6, nan, 1 + 2**-11], f32)
    )
    ints = np.array([1, 0, 0, 7, -7, 32767, 0, 1])  # toward zero, NaN -> 0, i16 saturates
    np.testing.assert_array_equal(q, np.floor_divide(ints, -3))
    np.testing.assert_array_equal(sh, np.zeros(8))  # -3 read unsigned: shifted past the width
    np.testing.assert_array_equal(back[:2], np.array([1.5, nan], f32))
    assert back[7] == 1.0  # tf32 keeps 10 fraction bits, ties to even


FUNCS = """
cuda_tile.module @m {
  testing$func @rowsum(%a: tile<4x8xf32>) -> tile<4xf32> {
    %r = reduce %a dim=1 identities=[0.000000e+00 : f32] : tile<4x8xf32> -> tile<4xf32>
    (%x: tile<f32>, %y: tile<f32>) {
      %s = addf %x, %y : tile<f32>
      yield %s : tile<f32>
    }
    return %r : tile<4xf32>
  }
  testing$func @single(%a: tile<4x1xi32>) -> tile<4xi32> {
    %r = reduce %a dim=1 identities=[100 : i32] : tile<4x1xi32> -> tile<4xi32>
    (%x: tile<i32>, %y: tile<i32>) {
      %s = addi %x, %y : tile<i32>
      yield %s : tile<i32>
    }
    return %r : tile<4xi32>
  }
  testing$func @rcumprod(%a: tile<8xi32>) -> tile<8xi32> {
    %r = scan %a dim=0 reverse=true identities=[1 : i32] : tile<8xi32> -> tile<8xi32>
    (%x: tile<i32>, %y: tile<i32>) {
      %s = muli %x, %y : tile<i32>
      yield %s : tile<i32>
    }
    return %r : tile<8xi32>
  }
  testing$func @ints(%a: tile<8xi32>, %b: tile<8xi32>) -> (tile<8xi32>, tile<8xi32>, tile<8xi32>, tile<8xi32>) {
    %hi = mulhii %a, %b : tile<8xi32>
    %rem = remi %a, %b signed : tile<8xi32>
    %sra = shri %a, %b signed : tile<8xi32>
    %ceil = divi %a, %b unsigned rounding<positive_inf> : tile<8xi32>
    return %hi, %rem, %sra, %ceil : tile<8xi32>, tile<8xi32>, tile<8xi32>, tile<8xi32>
  }
  testing$func @shapes(%a: tile<2x4xf32>) -> (tile<4x4xf32>, tile<4x2xf32>, tile<2x2xf32>) {
    %c = cat %a, %a dim = 0 : tile<2x4xf32>, tile<2x4xf32> -> tile<4x4xf32>
    %p = permute %a [1, 0] : tile<2x4xf32> -> tile<4x2xf32>
    %one = constant <i32: 1> : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %e = extract %a[%zero, %one] : tile<2x4xf32> -> tile<2x2xf32>
    return %c, %p, %e : tile<4x4xf32>, tile<4x2xf32>, tile<2x2xf32>
  }
  testing$func @unordered(%a: tile<4xf32>, %b: tile<4xf32>) -> (tile<4xi1>, tile<4xi1>) {
    %o = cmpf less_than ordered %a, %b : tile<4xf32> -> tile<4xi1>
    %u = cmpf less_than unordered %a, %b : tile<4xf32> -> tile<4xi1>
    return %o, %u : tile<4xi1>, tile<4xi1>
  }
}
"""


@pytest.fixture(scope="module")
def funcs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("funcs") / "funcs.mlir"
    path.write_text(FUNCS)
    return path


def test_call_reduce_and_scan(funcs: Path) -> None:
    from tileir.interpreter import call

    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    np.testing.assert_array_equal(call(funcs, "rowsum", a)[0], a.sum(axis=1))
    # A dimension of one element is combined with the identity.
    np.testing.assert_array_equal(
        call(funcs, "single", np.arange(4, dtype=np.int32)[:, None])[0], np.arange(4) + 100
    )
    x = np.arange(1, 9, dtype=np.int32)
    np.testing.assert_array_equal(call(funcs, "rcumprod", x)[0], np.cumprod(x[::-1])[::-1])


def test_call_integer_ops(funcs: Path) -> None:
    from tileir.interpreter import call

    a = np.array([-7, 7, -7, 2**31 - 1, -(2**31), 100, 5, -1], np.int32)
    b = np.array([3, -3, -3, 2, 7, 33, 1, 31], np.int32)
    hi, rem, sra, ceil = call(funcs, "ints", a, b)
    ua, ub = a.astype(np.uint32).astype(np.uint64), b.astype(np.uint32).astype(np.uint64)
    np.testing.assert_array_equal(hi, ((ua * ub) >> 32).astype(np.uint32).view(np.int32))
    np.testing.assert_array_equal(rem, np.fmod(a, b))
    np.testing.assert_array_equal(sra, a >> np.minimum(b.astype(np.uint32), 31).astype(np.int32))
    ceil_want = [-(-int(x) // int(y)) for x, y in zip(ua, ub, strict=True)]
    np.testing.assert_array_equal(ceil, np.array(ceil_want, np.uint32).view(np.int32))


def test_call_shape_ops_and_comparisons(funcs: Path) -> None:
    from tileir.interpreter import call

    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    c, p, e = call(funcs, "shapes", a)
    np.testing.assert_array_equal(c, np.concatenate([a, a]))
    np.testing.assert_array_equal(p, a.T)
    np.testing.assert_array_equal(e, a[:, 2:4])  # slice number 1 of size 2
    x = np.array([1, np.nan, 3, 0], np.float32)
    y = np.array([2, 1, np.nan, 0], np.float32)
    ordered, unordered = call(funcs, "unordered", x, y)
    np.testing.assert_array_equal(ordered, [True, False, False, False])
    np.testing.assert_array_equal(unordered, [True, True, True, False])


VIEWS = """
cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>, %o: tile<ptr<f32>>, %s: tile<ptr<f32>>, %q: tile<ptr<i32>>) {
    %tv = make_tensor_view %p, shape = [8, 4], strides = [4, 1] : tensor_view<8x4xf32, strides=[4,1]>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<8x4xf32, strides=[4,1]>, dim_map=[1, 0]>
    %c1 = constant <i32: 1> : tile<i32>
    %t, %tok = load_view_tko weak %pv[%c1, %c1] : partition_view<tile=(2x4), tensor_view<8x4xf32, strides=[4,1]>, dim_map=[1, 0]>, tile<i32> -> tile<2x4xf32>, token
    %ov = make_tensor_view %o, shape = [2, 4], strides = [4, 1] : tensor_view<2x4xf32, strides=[4,1]>
    %opv = make_partition_view %ov : partition_view<tile=(2x4), tensor_view<2x4xf32, strides=[4,1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %st = store_view_tko weak %t, %opv[%c0, %c0] : tile<2x4xf32>, partition_view<tile=(2x4), tensor_view<2x4xf32, strides=[4,1]>>, tile<i32> -> token
    %fv = make_tensor_view %p, shape = [32], strides = [1] : tensor_view<32xf32, strides=[1]>
    %sv = make_strided_view %fv : strided_view<tile=(4), traversal_strides=[3], padding_value = neg_inf, tensor_view<32xf32, strides=[1]>>
    %c10 = constant <i32: 10> : tile<i32>
    %w, %tok2 = load_view_tko weak %sv[%c10] : strided_view<tile=(4), traversal_strides=[3], padding_value = neg_inf, tensor_view<32xf32, strides=[1]>>, tile<i32> -> tile<4xf32>, token
    %sv2 = make_tensor_view %s, shape = [4], strides = [1] : tensor_view<4xf32, strides=[1]>
    %spv = make_partition_view %sv2 : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>
    %st2 = store_view_tko weak %w, %spv[%c0] : tile<4xf32>, partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>, tile<i32> -> token
    %n:2 = get_index_space_shape %pv : partition_view<tile=(2x4), tensor_view<8x4xf32, strides=[4,1]>, dim_map=[1, 0]> -> tile<i32>
    %m:1 = get_index_space_shape %sv : strided_view<tile=(4), traversal_strides=[3], padding_value = neg_inf, tensor_view<32xf32, strides=[1]>> -> tile<i32>
    %q1 = offset %q, %c1 : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %c2 = constant <i32: 2> : tile<i32>
    %q2 = offset %q, %c2 : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %a1 = store_ptr_tko weak %q, %n#0 : tile<ptr<i32>>, tile<i32> -> token
    %a2 = store_ptr_tko weak %q1, %n#1 : tile<ptr<i32>>, tile<i32> -> token
    %a3 = store_ptr_tko weak %q2, %m#0 : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"""


def test_dim_map_strided_view_and_index_space(tmp_path: Path) -> None:
    """A partition view with dim_map=[1, 0] loads a transposed tile; a strided view
    steps by its traversal stride and pads past the end; get_index_space_shape counts
    tiles (ceil) per view dimension."""
    p = np.arange(32, dtype=np.float32)
    o, s, q = np.zeros((2, 4), np.float32), np.zeros(4, np.float32), np.zeros(3, np.int32)
    run_text(tmp_path, VIEWS, 1, p, o, s, q)
    np.testing.assert_array_equal(o, p.reshape(8, 4)[4:8, 2:4].T)
    np.testing.assert_array_equal(s, [30.0, 31.0, -np.inf, -np.inf])
    np.testing.assert_array_equal(q, [2, 2, 11])


GLOBALS = """
cuda_tile.module @m {
  global @g <f32: [1.0, 2.0, 3.0, 4.0]> : tile<4xf32>
  entry @k(%o: tile<ptr<f32>>) {
    %gp = get_global @g : tile<ptr<f32>>
    %i = iota : tile<4xi32>
    %gr = reshape %gp : tile<ptr<f32>> -> tile<1xptr<f32>>
    %gb = broadcast %gr : tile<1xptr<f32>> -> tile<4xptr<f32>>
    %gps = offset %gb, %i : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    %v, %t = load_ptr_tko weak %gps : tile<4xptr<f32>> -> tile<4xf32>, token
    %w = addf %v, %v : tile<4xf32>
    %s0 = store_ptr_tko weak %gps, %w : tile<4xptr<f32>>, tile<4xf32> -> token
    %a = alloca num_elem = 4, alignment = 16 : tile<ptr<f32>>
    %ar = reshape %a : tile<ptr<f32>> -> tile<1xptr<f32>>
    %ab = broadcast %ar : tile<1xptr<f32>> -> tile<4xptr<f32>>
    %aps = offset %ab, %i : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    %s1 = store_ptr_tko weak %aps, %w : tile<4xptr<f32>>, tile<4xf32> -> token
    %x, %t2 = load_ptr_tko weak %aps : tile<4xptr<f32>> -> tile<4xf32>, token
    %or = reshape %o : tile<ptr<f32>> -> tile<1xptr<f32>>
    %ob = broadcast %or : tile<1xptr<f32>> -> tile<4xptr<f32>>
    %ops = offset %ob, %i : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    %s2 = store_ptr_tko weak %ops, %x : tile<4xptr<f32>>, tile<4xf32> -> token
    return
  }
}
"""


def test_globals_live_for_the_launch_and_alloca_is_private_memory(tmp_path: Path) -> None:
    """Each of the two blocks doubles the global in place, through an alloca'd copy."""
    out = np.zeros(4, np.float32)
    run_text(tmp_path, GLOBALS, (2, 1, 1), out)
    np.testing.assert_array_equal(out, [4.0, 8.0, 12.0, 16.0])
    out = np.zeros(4, np.float32)
    run_text(tmp_path, GLOBALS, (1, 1, 1), out)  # a new launch starts from the initializer
    np.testing.assert_array_equal(out, [2.0, 4.0, 6.0, 8.0])
