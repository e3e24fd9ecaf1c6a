"""Tests that kill the mutants `make mutate` found surviving (docs/testing.md "Mutation
testing"): each names the mutant it was written for.  They are in the fast subsets the
mutation tester runs (tileir/testing/mutate.py `TARGETS`), so a campaign kills them
too."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tileir.bytecode import read_bytecode, write_bytecode
from tileir.bytecode.version import V13_1, V13_2, V13_3, V13_4
from tileir.compiler import compile_module, parse_module_text
from tileir.interpreter import launch as interpret
from tileir.registry import make_context
from tileir.testing import simulate

MIN_MAX = """entry @k(%a: tile<{t}>, %b: tile<{t}>, %p: tile<ptr<{t}>>, %q: tile<ptr<{t}>>) {{
  %mx = maxf %a, %b : tile<{t}>
  %mn = minf %a, %b : tile<{t}>
  %s0 = store_ptr_tko weak %p, %mx : tile<ptr<{t}>>, tile<{t}> -> token
  %s1 = store_ptr_tko weak %q, %mn : tile<ptr<{t}>>, tile<{t}> -> token
  return
}}
"""


@pytest.mark.parametrize("t", ["f32", "f16"])
def test_scalar_maxf_and_minf_take_both_operands(t: str) -> None:
    """Kills `scalar.py` `_min_max`: `h.widen(args[0])` -> `args[1]` (max(b, b))."""
    text = MIN_MAX.format(t=t)
    ptx = compile_module(parse_module_text(text, "k.mlir"), "sm_80").ptx
    assert ptx is not None
    dtype = np.float32 if t == "f32" else np.float16
    for a, b in ((3.0, -2.0), (-2.0, 3.0)):
        got = [np.zeros(1, dtype), np.zeros(1, dtype)]
        simulate(ptx, (1, 1, 1), [dtype(a), dtype(b), *got])
        want = [np.zeros(1, dtype), np.zeros(1, dtype)]
        interpret(parse_module_text(text, "k.mlir"), 1, dtype(a), dtype(b), *want)
        assert [g[0] for g in got] == [w[0] for w in want] == [max(a, b), min(a, b)]


PADDED_VIEW = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>) {
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [100], strides = [1] : tensor_view<100xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(64), padding_value = neg_inf, tensor_view<100xf32, strides=[1]>>
    %t, %t1 = load_view_tko weak %pv[%c0] token = %tok : partition_view<tile=(64), padding_value = neg_inf, tensor_view<100xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    return
  }
}
"""


@pytest.mark.parametrize("version", [V13_1, V13_2, V13_3])
def test_a_padding_value_reads_back_from_every_version(version: object) -> None:
    """Kills `bytecode/types.py`: the presence byte of a partition view's padding (before
    13.3) written as 2 instead of 1 (the reader takes only 0 or 1)."""
    ctx = make_context()
    module = parse_module_text(PADDED_VIEW, "k.mlir")
    again = read_bytecode(write_bytecode(module, version), "k", ctx)  # pyright: ignore[reportArgumentType]
    views = [str(op.results[0].type) for op in again.walk() if op.name.endswith("partition_view")]
    assert views and all("padding_value = neg_inf" in v for v in views)


STRIDED_VIEW = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>) {
    %c10 = constant <i32: 10> : tile<i32>
    %fv = make_tensor_view %p, shape = [32], strides = [1] : tensor_view<32xf32, strides=[1]>
    %sv = make_strided_view %fv : strided_view<tile=(4), traversal_strides=[3], padding_value = neg_inf, tensor_view<32xf32, strides=[1]>>
    %w, %tok = load_view_tko weak %sv[%c10] : strided_view<tile=(4), traversal_strides=[3], padding_value = neg_inf, tensor_view<32xf32, strides=[1]>>, tile<i32> -> tile<4xf32>, token
    return
  }
}
"""


GATHER_VIEW = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %gs = make_gather_scatter_view %tv : gather_scatter_view<tile=(16x32), padding_value = neg_inf, tensor_view<64x64xf32, strides=[64,1]>, sparse_dim=0>
    return
  }
}
"""


@pytest.mark.parametrize("text", [STRIDED_VIEW, GATHER_VIEW], ids=["strided", "gather"])
@pytest.mark.parametrize("version", [V13_3, V13_4])
def test_views_of_13_3_read_back(text: str, version: object) -> None:
    """Kills `bytecode/types.py`: a strided view's tile shape written with 5-byte instead
    of 4-byte integers, its padding value not written, and a gather view's padding bit
    not known to the reader."""
    ctx = make_context()
    module = parse_module_text(text, "k.mlir")
    again = read_bytecode(write_bytecode(module, version), "k", ctx)  # pyright: ignore[reportArgumentType]
    view = next(op for op in module.walk() if op.name.endswith("_view") and "tensor" not in op.name)
    back = next(op for op in again.walk() if op.name == view.name)
    assert back.results[0].type == view.results[0].type
    assert "padding_value = neg_inf" in str(back.results[0].type)


RED_VIEW = """cuda_tile.module @m {{
  entry @k(%p: tile<ptr<i32>>, %v: tile<i32>) {{
    %r = reshape %v : tile<i32> -> tile<1xi32>
    %vs = broadcast %r : tile<1xi32> -> tile<2xi32>
    %tv = make_tensor_view %p, shape = [2], strides = [1] : tensor_view<2xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(2), tensor_view<2xi32, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %t = atomic_red_view_tko {order} {scope} %pv[%c0], add, %vs : tile<2xi32>, partition_view<tile=(2), tensor_view<2xi32, strides=[1]>>, tile<i32> -> token
    return
  }}
}}
"""


@pytest.mark.parametrize(
    ("order", "scope", "ptx"),
    [("relaxed", "device", "red.relaxed.gpu"), ("relaxed", "tl_blk", "red.relaxed.cta")],
)
def test_atomic_red_view_keeps_its_memory_scope(order: str, scope: str, ptx: str) -> None:
    """Kills `cuda_tile_to_tileaa.py` `LowerAtomicRedView`: the memory properties not
    copied to the nv_tileaa atomic (it would fall back to the default order and scope;
    no simulator run can see an ordering, so the PTX says it)."""
    text = RED_VIEW.format(order=order, scope=scope)
    out = compile_module(parse_module_text(text, "k.mlir"), "sm_90a").ptx
    assert out is not None
    reds = re.findall(r"\bred\.[\w.]+", out)
    assert reds and all(red.startswith(ptx + ".") for red in reds), reds


FTOF = """entry @k(%a: tile<{src}>, %p: tile<ptr<{dst}>>) {{
  %r = ftof %a : tile<{src}> -> tile<{dst}>
  %s = store_ptr_tko weak %p, %r : tile<ptr<{dst}>>, tile<{dst}> -> token
  return
}}
"""


@pytest.mark.parametrize(("src", "dst"), [("f32", "f16"), ("f16", "f32"), ("f64", "f32")])
def test_ftof_between_float_types(src: str, dst: str) -> None:
    """Kills `scalar.py` `_ftof`: the float-type union `Float16Type | BFloat16Type | ...`
    made `Float16Type & BFloat16Type` (every float conversion fails to compile)."""
    text = FTOF.format(src=src, dst=dst)
    ptx = compile_module(parse_module_text(text, "k.mlir"), "sm_80").ptx
    assert ptx is not None
    types = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
    a = types[src](1.0 / 3.0)
    got, want = np.zeros(1, types[dst]), np.zeros(1, types[dst])
    simulate(ptx, (1, 1, 1), [a, got])
    interpret(parse_module_text(text, "k.mlir"), 1, a, want)
    assert got[0] == want[0] == types[dst](a)


REDUCE_WITH_A_CONSTANT = """entry @k(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>) {
  %tok = make_token : token
  %c0 = constant <i32: 0> : tile<i32>
  %tv = make_tensor_view %x, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
  %pv = make_partition_view %tv : partition_view<tile=(64), tensor_view<64xf32, strides=[1]>>
  %t, %t1 = load_view_tko weak %pv[%c0] token = %tok : partition_view<tile=(64), tensor_view<64xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
  %r = reduce %t dim=0 identities=[0.0 : f32] : tile<64xf32> -> tile<f32>
  (%a: tile<f32>, %b: tile<f32>) {
    %two = constant <f32: 2.0> : tile<f32>
    %m = mulf %b, %two : tile<f32>
    %s = addf %a, %m : tile<f32>
    yield %s : tile<f32>
  }
  %st = store_ptr_tko weak %y, %r : tile<ptr<f32>>, tile<f32> -> token
  return
}
"""


def test_a_reduce_body_with_a_constant() -> None:
    """Kills `reductions.py` (the body's constants): `hasattr(data[0], "item")` made
    `data[1]` (an IndexError for the one-element constant of a body)."""
    ptx = compile_module(parse_module_text(REDUCE_WITH_A_CONSTANT, "k.mlir"), "sm_80").ptx
    assert ptx is not None
    x = np.arange(64, dtype=np.float32)
    got, want = np.zeros(1, np.float32), np.zeros(1, np.float32)
    simulate(ptx, (1, 1, 1), [x, got])
    interpret(parse_module_text(REDUCE_WITH_A_CONSTANT, "k.mlir"), 1, x, want)
    assert got[0] == want[0]


#: NVIDIA's self-contained attribute tags (`BytecodeAttrTag` in cuda-tile's
#: include/cuda_tile/Dialect/CudaTile/IR/BytecodeAttrOpcodes.td, frozen for compatibility).
NVIDIA_ATTRIBUTE_TAGS = {
    "INTEGER": 1,
    "FLOAT": 2,
    "BOOL": 3,
    "TYPE": 4,
    "STRING": 5,
    "ARRAY": 6,
    "DENSE": 7,
    "DIV_BY": 8,
    "SAME_ELEMENTS": 9,
    "DICTIONARY": 10,
    "OPTIMIZATION_HINTS": 11,
    "BOUNDED": 12,
}


def test_attribute_tags_are_nvidias() -> None:
    """Kills `bytecode/attributes.py` `TAG_STRING = 5` -> 6 (and its siblings): a reader
    and writer that agree with each other but not with the files cuTile and NVIDIA's
    tools write."""
    from tileir.bytecode import attributes

    ours = {name: getattr(attributes, f"TAG_{name}") for name in NVIDIA_ATTRIBUTE_TAGS}
    assert ours == NVIDIA_ATTRIBUTE_TAGS


ITOF_UNSIGNED = """entry @k(%a: tile<{src}>, %p: tile<ptr<{dst}>>) {{
  %r = itof %a unsigned : tile<{src}> -> tile<{dst}>
  %s = store_ptr_tko weak %p, %r : tile<ptr<{dst}>>, tile<{dst}> -> token
  return
}}
"""


@pytest.mark.parametrize(("src", "dst"), [("i32", "f32"), ("i64", "f64")])
def test_unsigned_itof_of_the_largest_value(src: str, dst: str) -> None:
    """Kills `scalar.py` `_itof`: the (32, 32) key of the unsigned conversions' table made
    (33, 32) (unsigned i32 -> f32 no longer compiles)."""
    text = ITOF_UNSIGNED.format(src=src, dst=dst)
    ptx = compile_module(parse_module_text(text, "k.mlir"), "sm_80").ptx
    assert ptx is not None
    ints = {"i32": np.int32, "i64": np.int64}
    floats = {"f32": np.float32, "f64": np.float64}
    a = ints[src](-1)  # all ones: the largest unsigned value
    got, want = np.zeros(1, floats[dst]), np.zeros(1, floats[dst])
    simulate(ptx, (1, 1, 1), [a, got])
    interpret(parse_module_text(text, "k.mlir"), 1, a, want)
    bits = 32 if src == "i32" else 64
    assert got[0] == want[0] == floats[dst](2**bits - 1)


ORDERED_STORE = """entry @k(%p: tile<ptr<i32>>, %v: tile<i32>) {
  %s = store_ptr_tko release device %p, %v : tile<ptr<i32>>, tile<i32> -> token
  return
}
"""


def test_a_release_store_keeps_its_order_and_scope() -> None:
    """Kills `tileaa_to_tileas.py` `LowerStore`: the memory properties not copied to the
    tiled store (a release store would become a weak one; the PTX says it)."""
    ptx = compile_module(parse_module_text(ORDERED_STORE, "k.mlir"), "sm_90a").ptx
    assert ptx is not None
    stores = re.findall(r"\bst\.[\w.]+", ptx)
    assert stores and all(s.startswith("st.release.gpu.") for s in stores), stores


def test_two_values_scanned_through_threads_cross_warps_apart() -> None:
    """Kills `reductions.py` `_pass_across_warps`: the shared-memory offset of the second
    carried value `k * threads * 8` made `k * threads // 8` (the load reads another
    row's first value).  A 32x16 mma accumulator scanned along its rows carries through
    the threads (`_scan_sequentially`) and crosses warps; two operands (a running sum and
    a running maximum, both exact on small integers) make two carried values."""
    from elementwise_kernels import dot_kernel_text

    text = dot_kernel_text("f16", "f16", "f32", 32, 16, 16).replace(
        "  %s = store_view_tko weak %r,",
        "  %q:2 = scan %r, %r dim=0 reverse=false identities=[0.0 : f32, 0xFF800000 : f32] "
        ": tile<32x16xf32>, tile<32x16xf32> -> tile<32x16xf32>, tile<32x16xf32>\n"
        "  (%e0: tile<f32>, %a0: tile<f32>, %e1: tile<f32>, %a1: tile<f32>) {\n"
        "    %u = addf %e0, %a0 : tile<f32>\n    %v = maxf %e1, %a1 : tile<f32>\n"
        "    yield %u, %v : tile<f32>, tile<f32>\n  }\n"
        "  %o = addf %q#0, %q#1 : tile<32x16xf32>\n"
        "  %s = store_view_tko weak %o,",
    )
    ptx = compile_module(parse_module_text(text, "k.mlir"), "sm_90a").ptx
    assert ptx is not None
    assert "bar.sync" in ptx  # the carry does cross warps through shared memory
    rng = np.random.default_rng(18)
    a = rng.integers(-3, 4, (32, 16)).astype(np.float16)
    b = rng.integers(-3, 4, (16, 16)).astype(np.float16)
    c = rng.integers(-9, 10, (32, 16)).astype(np.float32)
    got, want = c.copy(), c.copy()
    simulate(ptx, (1, 1, 1), [a, b, got])
    interpret(parse_module_text(text, "k.mlir"), 1, a, b, want)
    d = a.astype(np.float64) @ b + c
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want, np.cumsum(d, axis=0) + np.maximum.accumulate(d, axis=0))


RESHAPE_TO_RANK_0 = """entry @k(%p: tile<ptr<f32>>, %q: tile<ptr<f32>>) {
  %x, %t = load_ptr_tko weak %p : tile<ptr<f32>> -> tile<f32>, token
  %r = reshape %x : tile<f32> -> tile<f32>
  %one = reshape %x : tile<f32> -> tile<1x1xf32>
  %back = reshape %one : tile<1x1xf32> -> tile<f32>
  %y = addf %r, %back : tile<f32>
  %s = store_ptr_tko weak %q, %y : tile<ptr<f32>>, tile<f32> -> token
  return
}
"""


def test_reshapes_to_rank_0() -> None:
    """Kills `cuda_tile_to_tileaa.py` `LowerReshape`: a rank-0 to rank-0 reshape left
    unconverted (its replacement by the source dropped), and its sibling from a
    one-element tile."""
    ptx = compile_module(parse_module_text(RESHAPE_TO_RANK_0, "k.mlir"), "sm_80").ptx
    assert ptx is not None
    x = np.array([1.5], np.float32)
    got, want = np.zeros(1, np.float32), np.zeros(1, np.float32)
    simulate(ptx, (1, 1, 1), [x, got])
    interpret(parse_module_text(RESHAPE_TO_RANK_0, "k.mlir"), 1, x, want)
    assert got[0] == want[0] == 3.0


OUTSIDE_THE_INDEX_SPACE = """entry @k(%p: tile<ptr<f32>>, %q: tile<ptr<f32>>, %i: tile<i32>) {{
  %z = constant <i32: 0> : tile<i32>
  %tv = make_tensor_view %p, shape = [{n}], strides = [1] : tensor_view<{n}xf32, strides=[1]>
  %pv = make_partition_view %tv : partition_view<tile=(16), padding_value = neg_inf, tensor_view<{n}xf32, strides=[1]>>
  %x, %t = load_view_tko weak %pv[%i] : partition_view<tile=(16), padding_value = neg_inf, tensor_view<{n}xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
  %ov = make_tensor_view %q, shape = [16], strides = [1] : tensor_view<16xf32, strides=[1]>
  %opv = make_partition_view %ov : partition_view<tile=(16), tensor_view<16xf32, strides=[1]>>
  %s = store_view_tko weak %x, %opv[%z] : tile<16xf32>, partition_view<tile=(16), tensor_view<16xf32, strides=[1]>>, tile<i32> -> token
  return
}}
"""


@pytest.mark.parametrize(("n", "index"), [(64, 2), (64, 4), (64, -1), (100, 6), (100, 7)])
def test_a_tile_outside_a_view_is_padding(n: int, index: int) -> None:
    """Kills two mutants of `cuda_tile_to_tileaa.py` `lower_partition_access`: the mask
    of a view whose tiles divide it exactly (`if inside is not None: mask =
    splat(inside)`) dropped, and the bound of a view they do not divide clamped at 1
    instead of 0 (`max(min(remaining, extent), 0)`): either way a tile index outside
    the index space read memory past the tensor instead of the padding value."""
    text = OUTSIDE_THE_INDEX_SPACE.format(n=n)
    ptx = compile_module(parse_module_text(text, "k.mlir"), "sm_80").ptx
    assert ptx is not None
    x = np.arange(n + 32, dtype=np.float32)  # 32 readable elements past the tensor
    got, want = np.zeros(16, np.float32), np.zeros(16, np.float32)
    simulate(ptx, (1, 1, 1), [x, got, np.int32(index)])
    interpret(parse_module_text(text, "k.mlir"), 1, x, want, np.int32(index))
    expect = np.full(16, -np.inf, np.float32)
    if index >= 0:
        inside = x[16 * index : min(16 * index + 16, n)]
        expect[: len(inside)] = inside
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want, expect)


INTEGER_DIVISION = """entry @k(%x: tile<ptr<{t}>>, %y: tile<ptr<{t}>>, {outs}) {{
  %a, %ta = load_ptr_tko weak %x : tile<ptr<{t}>> -> tile<{t}>, token
  %b, %tb = load_ptr_tko weak %y : tile<ptr<{t}>> -> tile<{t}>, token
{lines}
  return
}}
"""
DIVISIONS = [
    "divi %a, %b signed",
    "divi %a, %b signed rounding<negative_inf>",
    "divi %a, %b signed rounding<positive_inf>",
    "divi %a, %b unsigned",
    "divi %a, %b unsigned rounding<positive_inf>",
    "mulhii %a, %b",
]


@pytest.mark.parametrize("t", ["i16", "i32", "i64"])
def test_integer_division_modes_and_high_products(t: str) -> None:
    """Kills `scalar.py` `lower_divi`: `if mode is ZERO: return q` dropped (a truncating
    division rounded up like `positive_inf`), and `lower_mulhii`: the i64 entry of its
    intrinsic table made 65 (mulhii on i64 no longer compiles).  Every division mode
    and the high product, on operands of both signs whose quotients are inexact."""
    outs = ", ".join(f"%o{k}: tile<ptr<{t}>>" for k in range(len(DIVISIONS)))
    lines = []
    for k, op in enumerate(DIVISIONS):
        lines.append(f"  %r{k} = {op} : tile<{t}>")
        lines.append(
            f"  %s{k} = store_ptr_tko weak %o{k}, %r{k} : tile<ptr<{t}>>, tile<{t}> -> token"
        )
    text = INTEGER_DIVISION.format(t=t, outs=outs, lines="\n".join(lines))
    ptx = compile_module(parse_module_text(text, "k.mlir"), "sm_80").ptx
    assert ptx is not None
    dtype = {"i16": np.int16, "i32": np.int32, "i64": np.int64}[t]
    big = np.iinfo(dtype).max // 3
    for a, b in ((7, 2), (-7, 2), (7, -2), (-7, -2), (big, -5)):
        got = [np.zeros(1, dtype) for _ in DIVISIONS]
        want = [np.zeros(1, dtype) for _ in DIVISIONS]
        xs = [np.array([a], dtype), np.array([b], dtype)]
        simulate(ptx, (1, 1, 1), [*(x.copy() for x in xs), *got])
        interpret(parse_module_text(text, "k.mlir"), 1, *xs, *want)
        assert [g[0] for g in got] == [w[0] for w in want], (a, b)
        truncated = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        assert want[0][0] == truncated  # -7 / 2 is -3


def test_a_copy_group_straddling_the_edge_of_a_padded_operand() -> None:
    """Kills `async_copy.py` `_copy`: the element path's global offset `i * bits // 8`
    made `i * bits // 7` or `i * bits * 8`.  The element path runs where a group of
    `cp.async` elements straddles the edge of the tensor; with A's rows padded to 64
    elements (16-byte aligned, so the copy is vectorized) and K = 39, the group of
    columns 32..39 has seven elements in and one out."""
    from test_mma_dot import _gemm_text

    tm, tn, tk = 32, 64, 16
    m, n, k, lda = 70, 136, 39, 64
    ptx = compile_module(parse_module_text(_gemm_text("f16", tm, tn, tk), "gemm.mlir"), "sm_80").ptx
    assert ptx is not None and "cp.async" in ptx
    rng = np.random.default_rng(36)
    a = rng.integers(-3, 4, (m, lda)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    c = np.zeros((m, n), dtype=np.float32)
    grid = (-(-m // tm), -(-n // tn), 1)
    simulate(ptx, grid, [a, m, k, lda, 1, b, k, n, n, 1, c, m, n, n, 1, -(-k // tk)])
    np.testing.assert_array_equal(c, a[:, :k].astype(np.float64) @ b)


FAST_ACC = """entry @k(%a: tile<ptr<f8E4M3FN>>, %b: tile<ptr<f8E4M3FN>>, %c: tile<ptr<f32>>) {
  %x, %tx = load_ptr_tko weak %a : tile<ptr<f8E4M3FN>> -> tile<f8E4M3FN>, token
  %x1 = reshape %x : tile<f8E4M3FN> -> tile<1x1xf8E4M3FN>
  %fa = broadcast %x1 : tile<1x1xf8E4M3FN> -> tile<16x64xf8E4M3FN>
  %y, %ty = load_ptr_tko weak %b : tile<ptr<f8E4M3FN>> -> tile<f8E4M3FN>, token
  %y1 = reshape %y : tile<f8E4M3FN> -> tile<1x1xf8E4M3FN>
  %fb = broadcast %y1 : tile<1x1xf8E4M3FN> -> tile<64x8xf8E4M3FN>
  %z = constant <f32: 0.0> : tile<16x8xf32>
  %r = mmaf %fa, %fb, %z fast_acc : tile<16x64xf8E4M3FN>, tile<64x8xf8E4M3FN>, tile<16x8xf32>
  %c0 = constant <i32: 0> : tile<i32>
  %tv = make_tensor_view %c, shape = [16, 8], strides = [8, 1] : tensor_view<16x8xf32, strides=[8,1]>
  %pv = make_partition_view %tv : partition_view<tile=(16x8), tensor_view<16x8xf32, strides=[8,1]>>
  %s = store_view_tko weak %r, %pv[%c0, %c0] : tile<16x8xf32>, partition_view<tile=(16x8), tensor_view<16x8xf32, strides=[8,1]>>, tile<i32> -> token
  return
}
"""


def test_fast_acc_reaches_nv_tileaa() -> None:
    """Kills `cuda_tile_to_tileaa.py` `LowerDot`: `fast_acc` not carried onto
    `nv_tileaa.dot` (the lowering may then use no faster accumulation than the exact
    one; the stage must still say what the kernel allowed)."""
    module = parse_module_text(FAST_ACC, "k.mlir")
    stages = compile_module(module, "sm_90a", stop_after="tileaa", keep_stages=True).stages
    dots = [line for line in stages["tileaa"].splitlines() if "nv_tileaa.dot" in line]
    assert dots and all("fast_acc" in line for line in dots), dots


F64_REDUCE = """entry @k(%p: tile<ptr<f64>>, %q: tile<ptr<f64>>) {
  %z = constant <i32: 0> : tile<i32>
  %tv = make_tensor_view %p, shape = [512], strides = [1] : tensor_view<512xf64, strides=[1]>
  %pv = make_partition_view %tv : partition_view<tile=(512), tensor_view<512xf64, strides=[1]>>
  %x, %t = load_view_tko weak %pv[%z] : partition_view<tile=(512), tensor_view<512xf64, strides=[1]>>, tile<i32> -> tile<512xf64>, token
  %r = reduce %x dim=0 identities=[0xFFF0000000000000 : f64] : tile<512xf64> -> tile<f64>
  (%e: tile<f64>, %a: tile<f64>) {
    %m = maxf %e, %a : tile<f64>
    yield %m : tile<f64>
  }
  %s = store_ptr_tko weak %q, %r : tile<ptr<f64>>, tile<f64> -> token
  return
}
"""


def test_an_f64_maximum_across_lanes_and_warps() -> None:
    """Kills `reductions.py` `shuffle`: the integer type an f64 is shuffled as made i65
    (a 64-bit float exchanged between lanes as a word it does not fit)."""
    ptx = compile_module(parse_module_text(F64_REDUCE, "k.mlir"), "sm_80").ptx
    assert ptx is not None and "shfl.sync" in ptx
    x = np.random.default_rng(64).normal(size=512)
    got, want = np.zeros(1), np.zeros(1)
    simulate(ptx, (1, 1, 1), [x, got])
    interpret(parse_module_text(F64_REDUCE, "k.mlir"), 1, x, want)
    assert got[0] == want[0] == x.max()
