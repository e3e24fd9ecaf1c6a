"""cuda_tile `reshape` beyond unit-dimension insertions (a value `nv_tileas.view`,
`tileir/conversions/tileas_to_llvm/layout.py`): a register renaming where both
layouts agree on every linear index, otherwise an exchange through an unpadded
row-major shared-memory buffer.  Each kernel is checked against numpy in the PTX
simulator."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, parse_module_text
from tileir.conversions.tileas_to_llvm.layout import row_major_strides, same_registers
from tileir.diagnostics import CompileError
from tileir.dialects.nv_tileas.layouts import LinearLayout, default_blocked
from tileir.testing import simulate


def _ty(shape: tuple[int, ...]) -> str:
    return f"tile<{'x'.join(map(str, shape))}xf32>"


def _view(lines: list[str], i: int, rank: int, tile: tuple[int, ...], aligned: bool) -> str:
    """A rank-`rank` tensor view of parameter `i` and its partition into `tile`s;
    `aligned`: the base is 16-byte aligned and the strides multiples of 4 elements, so
    that f32 accesses move 16 bytes."""
    st = ",".join(["?"] * (rank - 1) + ["1"])
    tv = f"tensor_view<{'x'.join(['?'] * rank)}xf32, strides=[{st}]>"
    pv = f"partition_view<tile=({'x'.join(map(str, tile))}), {tv}>"
    shape = ", ".join(f"%n{i}_{d}" for d in range(rank))
    strides = ", ".join([f"%s{i}_{d}" for d in range(rank - 1)] + ["1"])
    base = f"%p{i}"
    if aligned:
        lines.append(f"  %a{i} = assume div_by<16>, %p{i} : tile<ptr<f32>>")
        base = f"%a{i}"
        for d in range(rank - 1):
            lines.append(f"  %as{i}_{d} = assume div_by<4>, %s{i}_{d} : tile<i32>")
        strides = ", ".join([f"%as{i}_{d}" for d in range(rank - 1)] + ["1"])
    lines.append(
        f"  %tv{i} = make_tensor_view {base}, shape = [{shape}], strides = [{strides}] "
        f": tile<i32> -> {tv}"
    )
    lines.append(f"  %pv{i} = make_partition_view %tv{i} : {pv}")
    return pv


def _kernel(
    src: tuple[int, ...],
    body: list[str],
    outs: list[tuple[str, tuple[int, ...]]],
    aligned: bool = False,
) -> str:
    """Loads tile `src` of parameter 0 as `%x` at block (bid, 0, ...), runs `body`,
    and stores each `(value, shape)` of `outs` to parameter 1, 2, ... likewise;
    `aligned`: the loaded tile's rows are 16-byte aligned (four f32 per access)."""
    lines = [
        "  %tok = make_token : token",
        "  %z = constant <i32: 0> : tile<i32>",
        "  %b, %by, %bz = get_tile_block_id : tile<i32>",
    ]
    params: list[str] = []
    shapes = [src, *(shape for _, shape in outs)]
    for i, shape in enumerate(shapes):
        params += [f"%p{i}: tile<ptr<f32>>"]
        params += [f"%n{i}_{d}: tile<i32>" for d in range(len(shape))]
        params += [f"%s{i}_{d}: tile<i32>" for d in range(len(shape))]
    pvs = [_view(lines, i, len(shape), shape, aligned and i == 0) for i, shape in enumerate(shapes)]
    idx = ", ".join(["%b"] + ["%z"] * (len(src) - 1))
    lines.append(
        f"  %x, %t0 = load_view_tko weak %pv0[{idx}] token = %tok "
        f": {pvs[0]}, tile<i32> -> {_ty(src)}, token"
    )
    lines += [f"  {line}" for line in body]
    for i, (value, shape) in enumerate(outs, start=1):
        idx = ", ".join(["%b"] + ["%z"] * (len(shape) - 1))
        lines.append(
            f"  %t{i} = store_view_tko weak {value}, %pv{i}[{idx}] token = %tok "
            f": {_ty(shape)}, {pvs[i]}, tile<i32> -> token"
        )
    lines.append("  return")
    return f"entry @k({', '.join(params)}) {{\n" + "\n".join(lines) + "\n}\n"


def _args(a: np.ndarray) -> list[object]:
    return [a, *a.shape, *(s // a.itemsize for s in a.strides)]


def _reshape_kernel(src: tuple[int, ...], dst: tuple[int, ...], aligned: bool = False) -> str:
    return _kernel(src, [f"%y = reshape %x : {_ty(src)} -> {_ty(dst)}"], [("%y", dst)], aligned)


def _compile(text: str, arch: str) -> str:
    ptx = compile_module(parse_module_text(text, "reshape.mlir"), arch).ptx
    assert ptx is not None
    return ptx


def _blocks(a: np.ndarray, rows: int) -> list[np.ndarray]:
    return [a[i : i + rows] for i in range(0, a.shape[0], rows)]


@pytest.mark.parametrize(
    ("src", "dst", "arch", "aligned", "exchanged"),
    [
        ((256,), (16, 16), "sm_80", False, False),
        ((16, 16), (256,), "sm_90a", False, False),
        # Each shape's own row-major layout (tileas-assign-layouts fits the rank's
        # layout to the shape): the same linear index in each register, lane and warp.
        ((8, 32), (16, 16), "sm_100a", False, False),
        ((16, 16), (1, 256), "sm_80", False, False),
        ((64, 4), (8, 32), "sm_90a", True, False),
        # Four f32 per thread in the source, two in the result (its rows are two wide).
        ((8, 32), (128, 2), "sm_100a", True, True),
        ((16, 16), (128, 2), "sm_80", True, True),
        ((64, 4), (64, 2, 2), "sm_90a", True, True),
    ],
)
def test_reshape_matches_numpy(
    src: tuple[int, ...], dst: tuple[int, ...], arch: str, aligned: bool, exchanged: bool
) -> None:
    ptx = _compile(_reshape_kernel(src, dst, aligned), arch)
    # Register renamings move nothing; the others are one exchange.
    assert ("st.shared" in ptx) == exchanged
    assert ("bar.sync 0;" in ptx) == exchanged
    x = np.random.default_rng(1).standard_normal((2 * src[0], *src[1:])).astype(np.float32)
    out = np.full((2 * dst[0], *dst[1:]), np.nan, np.float32)
    simulate(ptx, (2, 1, 1), _args(x) + _args(out))
    want = np.concatenate([t.reshape(dst) for t in _blocks(x, src[0])])
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize(("element", "dtype"), [("f16", np.float16), ("i8", np.int8)])
def test_narrow_elements_reshape_through_shared_memory(element: str, dtype: type) -> None:
    """Halves travel packed in pairs, bytes one at a time."""
    text = _reshape_kernel((8, 32), (128, 2), aligned=True).replace("f32", element)
    ptx = _compile(text, "sm_80")
    assert "st.shared" in ptx
    x = (np.random.default_rng(5).standard_normal((16, 32)) * 20).astype(dtype)
    out = np.zeros((256, 2), dtype)
    simulate(ptx, (2, 1, 1), _args(x) + _args(out))
    np.testing.assert_array_equal(out, np.concatenate([t.reshape(128, 2) for t in _blocks(x, 8)]))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_keepdims_reduce_then_reshape_drops_the_unit_dim(arch: str) -> None:
    """`ct.sum(t, axis=1, keepdims=True)` (reduce, reshape to 16x1), then the unit
    dimension dropped again (16x1 -> 16) and the column regrouped (16x1 -> 4x4)."""
    body = [
        "%r = reduce %x dim=1 identities=[0.000000e+00 : f32] : tile<16x32xf32> -> tile<16xf32>",
        "(%lhs: tile<f32>, %rhs: tile<f32>) {",
        "  %s = addf %lhs, %rhs : tile<f32>",
        "  yield %s : tile<f32>",
        "}",
        "%k = reshape %r : tile<16xf32> -> tile<16x1xf32>",
        "%d = reshape %k : tile<16x1xf32> -> tile<16xf32>",
        "%q = reshape %k : tile<16x1xf32> -> tile<4x4xf32>",
    ]
    ptx = _compile(_kernel((16, 32), body, [("%d", (16,)), ("%q", (4, 4))]), arch)
    x = np.random.default_rng(2).uniform(-1, 1, (32, 32)).astype(np.float32)
    out = np.full(32, np.nan, np.float32)
    out2 = np.full((8, 4), np.nan, np.float32)
    simulate(ptx, (2, 1, 1), _args(x) + _args(out) + _args(out2))
    sums = x.astype(np.float64).sum(axis=1)
    np.testing.assert_allclose(out, sums, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out2, sums.reshape(8, 4), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("arch", ["sm_80", "sm_100a"])
def test_ragged_reshape_keeps_the_padding_and_masks_the_store(arch: str) -> None:
    """300 elements in tiles of 256 -> 16x16 tiles of a 19x16 array: the second
    block's load pads with zeros past 300 and its store skips rows past 19."""
    ptx = _compile(_reshape_kernel((256,), (16, 16)), arch)
    x = np.random.default_rng(3).standard_normal(300).astype(np.float32)
    out = np.full((19, 16), np.nan, np.float32)
    simulate(ptx, (2, 1, 1), _args(x) + _args(out))
    np.testing.assert_array_equal(out, np.pad(x, (0, 4)).reshape(19, 16))
    ptx = _compile(_reshape_kernel((8, 32), (16, 16)), arch)
    x = np.random.default_rng(4).standard_normal((11, 32)).astype(np.float32)
    out = np.full((22, 16), np.nan, np.float32)
    simulate(ptx, (2, 1, 1), _args(x) + _args(out))
    want = np.pad(x, ((0, 5), (0, 0))).reshape(32, 16)[:22]
    np.testing.assert_array_equal(out, want)


def test_same_registers_compares_linear_indices_of_every_basis() -> None:
    def layout(shape: tuple[int, ...]) -> LinearLayout:
        return default_blocked(shape, 4, 1).linear(shape)

    assert same_registers(layout((256,)), layout((16, 16)))
    assert same_registers(layout((8, 32)), layout((16, 16)))
    wide = layout((16, 16))
    # Lanes 0-1 along columns 0-1 of rows 0-1 instead of columns 0-3 of row 0.
    other = replace(wide, lanes=((0, 1), (1, 0), (0, 2), (0, 4), (0, 8)))
    assert not same_registers(layout((256,)), other)
    assert row_major_strides([2, 4, 8], 4) == [128, 32, 4]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_ptxas_accepts_reshape_exchanges(arch: str) -> None:
    for src, dst in (((8, 32), (16, 16)), ((256,), (16, 16))):
        result = run_ptxas(_compile(_reshape_kernel(src, dst), arch), arch)
        assert result.ok, result.output


def test_a_reshape_over_the_shared_memory_budget_says_reshape() -> None:
    """A 64x1024 f32 reshape to 32768x2 (four f32 per thread in, two out) needs 256 KiB
    of buffer, more than any target's CTA may use: a located diagnostic naming the
    reshape, not the internal op."""
    with pytest.raises(CompileError, match=r"reshape of a 64x1024 tile to 32768x2") as e:
        _compile(_reshape_kernel((64, 1024), (32768, 2), aligned=True), "sm_80")
    assert "nv_tileaa" not in e.value.message
    assert (
        "an exchange (written as ct.reshape / ct.expand_dims in cuTile: cuda_tile.reshape) "
        "needs 262144 bytes"
    ) in e.value.message
    assert e.value.location is not None


@pytest.mark.parametrize("kernel", ["batched_matmul_2d_f16", "batched_matmul_e5m2"])
def test_batched_store_of_a_2d_result_needs_no_exchange(kernel: str) -> None:
    """cuTile's batched matmul stores its 2-D accumulator through a 1xMxN tile
    (`acc.reshape((1, M, N))`): `tileaa-drop-unit-dims` stores the accumulator at its own
    rank, so `tileas-assign-layouts` needs no `convert_layout` (it inserted one, a 16 KiB
    round trip through shared memory, before the pass existed). The same for the fp8
    (f8E5M2, `wgmma` on sm_90a) batched matmul, whose 1xMxK operand loads reshaped to
    2-D made `convert_layout` chains too (issue 13). The kernels' results are checked by
    the corpus tests."""
    from pathlib import Path

    from tileir.compiler import load_module, make_context
    from tileir.pipelines import run_stages

    corpus = Path(__file__).resolve().parents[1] / "corpus"
    module = load_module(corpus / f"{kernel}.tileirbc")
    run_stages(make_context(), module, "sm_90a", stop_after="tileas")
    converted = [op for op in module.walk() if op.name == "nv_tileas.convert_layout"]
    assert not converted, [str(op.operands[0].type) for op in converted]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_dropped_unit_dim_of_a_broadcast_reduce_result_holds_no_copies(arch: str) -> None:
    """cuTile's layer-norm pattern: a 1x1024 row minus its mean (a 1-element reduce
    result, also stored at rank 1), times a 1-D weight reshaped to 1x1024, stored as f16
    through the 1x1024 view.  `tileaa-drop-unit-dims` stores it at rank 1, where the mean
    is broadcast from 1 to 1024 elements; that broadcast took the mean's layout (a slice
    of the row's), which on 1024 elements put every element in every thread, and the
    weight's load and the product followed: 1024 registers a thread (NVIDIA's
    layer-norm test kernel took minutes to compile).  Now no tile holds more than its
    share, and the result equals numpy."""
    from tileir.compiler import make_context
    from tileir.dialects.nv_tileas.layouts import DistributedLayout
    from tileir.pipelines import run_stages
    from tileir.transforms.tileas.assign_layouts import holds_copies

    text = CENTER_ROWS_TEXT
    module = parse_module_text(text, "center.mlir")
    run_stages(make_context(), module, arch, stop_after="tileas")
    for op in module.walk():
        for r in op.results:
            t = r.type
            if isinstance(t, TensorType) and isinstance(t.encoding, DistributedLayout):
                # A 1-element tile keeps its slice layout's copies (one strip).
                assert not holds_copies(t.encoding, tuple(t.get_shape()), 8), (op.name, str(t))
    ptx = _compile(text, arch)
    # One store to shared memory: the reduce's, across warps.  The mean's conversion
    # from its slice layout (every thread holds the one element in both) is a renaming.
    assert ptx.count("st.shared") == 1
    rng = np.random.default_rng(3)
    rows = 2
    x = rng.integers(-8, 8, (rows, 1024)).astype(np.float32)
    w = rng.integers(-4, 4, 1024).astype(np.float32) / 4
    y = np.zeros((rows, 1024), np.float16)
    mean = np.zeros(rows, np.float32)
    simulate(ptx, (rows, 1, 1), [x, w, y, mean, rows])
    want_mean = x.mean(axis=1, dtype=np.float64)
    np.testing.assert_allclose(mean, want_mean, rtol=0, atol=1e-6)
    want = ((x - want_mean[:, None]) * w).astype(np.float16)
    np.testing.assert_allclose(y.astype(np.float32), want.astype(np.float32), rtol=1e-3, atol=1e-3)


CENTER_ROWS_TEXT = """entry @k(%x: tile<ptr<f32>>, %w: tile<ptr<f32>>, %y: tile<ptr<f16>>, %mo: tile<ptr<f32>>, %rows: tile<i32>) {
  %tok = make_token : token
  %z = constant <i32: 0> : tile<i32>
  %b, %by, %bz = get_tile_block_id : tile<i32>
  %xv = make_tensor_view %x, shape = [%rows, 1024], strides = [1024, 1] : tile<i32> -> tensor_view<?x1024xf32, strides=[1024,1]>
  %xp = make_partition_view %xv : partition_view<tile=(1x1024), tensor_view<?x1024xf32, strides=[1024,1]>>
  %wv = make_tensor_view %w, shape = [1024], strides = [1] : tensor_view<1024xf32, strides=[1]>
  %wp = make_partition_view %wv : partition_view<tile=(1024), tensor_view<1024xf32, strides=[1]>>
  %yv = make_tensor_view %y, shape = [%rows, 1024], strides = [1024, 1] : tile<i32> -> tensor_view<?x1024xf16, strides=[1024,1]>
  %yp = make_partition_view %yv : partition_view<tile=(1x1024), tensor_view<?x1024xf16, strides=[1024,1]>>
  %mv = make_tensor_view %mo, shape = [%rows], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %mp = make_partition_view %mv : partition_view<tile=(1), tensor_view<?xf32, strides=[1]>>
  %t, %t0 = load_view_tko weak %xp[%b, %z] token = %tok : partition_view<tile=(1x1024), tensor_view<?x1024xf32, strides=[1024,1]>>, tile<i32> -> tile<1x1024xf32>, token
  %s = reduce %t dim=1 identities=[0.000000e+00 : f32] : tile<1x1024xf32> -> tile<1xf32>
  (%l: tile<f32>, %r: tile<f32>) {
    %a = addf %l, %r : tile<f32>
    yield %a : tile<f32>
  }
  %n = constant <f32: 1.024000e+03> : tile<1xf32>
  %m = divf %s, %n : tile<1xf32>
  %t1 = store_view_tko weak %m, %mp[%b] token = %tok : tile<1xf32>, partition_view<tile=(1), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %m2 = reshape %m : tile<1xf32> -> tile<1x1xf32>
  %mb = broadcast %m2 : tile<1x1xf32> -> tile<1x1024xf32>
  %wt, %t2 = load_view_tko weak %wp[%z] token = %tok : partition_view<tile=(1024), tensor_view<1024xf32, strides=[1]>>, tile<i32> -> tile<1024xf32>, token
  %w2 = reshape %wt : tile<1024xf32> -> tile<1x1024xf32>
  %d = subf %t, %mb : tile<1x1024xf32>
  %e = mulf %d, %w2 : tile<1x1024xf32>
  %h = ftof %e : tile<1x1024xf32> -> tile<1x1024xf16>
  %t3 = store_view_tko weak %h, %yp[%b, %z] token = %tok : tile<1x1024xf16>, partition_view<tile=(1x1024), tensor_view<?x1024xf16, strides=[1024,1]>>, tile<i32> -> token
  return
}
"""
