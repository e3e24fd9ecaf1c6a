"""Gathers and scatters at negative offsets, simulated PTX against the interpreter and
numpy, byte for byte, on sm_80 and sm_90a.

`offset` moves a pointer by a *signed* number of elements (i16, i32 or i64): from a
pointer into the middle of an array, a negative offset reaches the elements before it,
and the PTX must sign-extend it (`mad.wide.s32`, `cvt.s32.s16`) where zero-extension
would reach 2^32 elements past.  `load_ptr_tko` / `store_ptr_tko` with a mask touch no
masked-off element, however far outside the array its pointer lies (the simulator fails
any access outside an array), and a masked load gives the padding operand there.

A `gather_scatter_view` takes the rows of its sparse dimension as a tile of coordinates:
a negative one (or one past the shape) is out of bounds (docs/interpreter.md), so a
load gives the view's padding value in that row and a store writes nothing there.  The
lowering tests `0 <= row < shape` with one *unsigned* comparison of the sign-extended
row; a signed one would let negative rows through.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileir.compiler import compile_module, parse_module_text
from tileir.interpreter import launch
from tileir.testing import simulate

ARCHES = ("sm_80", "sm_90a")
TILE = 128
#: The pointer gathers' array: `base` elements before the middle pointer, as many after.
N = 256
BASE = 128
INTS = {"i16": np.int16, "i32": np.int32, "i64": np.int64}


def compiled(text: str, arch: str, path: Path) -> str:
    """The PTX of `text`, which is also written to `path` for the interpreter."""
    path.write_text(text)
    ptx = compile_module(parse_module_text(text, str(path)), arch).ptx
    assert ptx is not None
    return ptx


def pointer_kernel(it: str) -> str:
    """From `%x + %base`: an unmasked gather at offsets `%a` (in bounds), a gather at
    offsets `%b` masked to `0 <= base + b < n` (padding -1), an unmasked scatter of `%v`
    to `%y + base + a` and a masked one to `%w + base + b`."""
    ti = f"tile<{TILE}x{it}>"
    tp = f"tile<{TILE}xptr<f32>>"
    tf = f"tile<{TILE}xf32>"
    tb = f"tile<{TILE}xi1>"
    lines = [
        f"entry @k(%x: tile<ptr<f32>>, %a: tile<ptr<{it}>>, %b: tile<ptr<{it}>>, "
        "%v: tile<ptr<f32>>, %g: tile<ptr<f32>>, %h: tile<ptr<f32>>, %y: tile<ptr<f32>>, "
        f"%w: tile<ptr<f32>>, %base: tile<{it}>, %n: tile<{it}>) {{",
        "  %z = constant <i32: 0> : tile<i32>",
    ]
    for name, t in (("a", it), ("b", it), ("v", "f32"), ("g", "f32"), ("h", "f32")):
        view = f"tensor_view<{TILE}x{t}, strides=[1]>"
        part = f"partition_view<tile=({TILE}), {view}>"
        lines += [
            f"  %tv_{name} = make_tensor_view %{name}, shape = [{TILE}], strides = [1] : {view}",
            f"  %pv_{name} = make_partition_view %tv_{name} : {part}",
        ]
        if name in ("a", "b", "v"):
            lines.append(
                f"  %{name}s, %t{name} = load_view_tko weak %pv_{name}[%z] : {part}, tile<i32> "
                f"-> tile<{TILE}x{t}>, token"
            )

    def middle(array: str) -> str:
        lines.extend(
            [
                f"  %{array}0 = offset %{array}, %base : tile<ptr<f32>>, tile<{it}> -> tile<ptr<f32>>",
                f"  %{array}1 = reshape %{array}0 : tile<ptr<f32>> -> tile<1xptr<f32>>",
                f"  %{array}2 = broadcast %{array}1 : tile<1xptr<f32>> -> {tp}",
            ]
        )
        return f"%{array}2"

    def store(value: str, name: str) -> None:
        part = f"partition_view<tile=({TILE}), tensor_view<{TILE}xf32, strides=[1]>>"
        lines.append(
            f"  %s{name} = store_view_tko weak {value}, %pv_{name}[%z] : {tf}, {part}, "
            "tile<i32> -> token"
        )

    xm, ym, wm = middle("x"), middle("y"), middle("w")
    lines += [
        f"  %zero = constant <{it}: 0> : {ti}",
        f"  %br = reshape %base : tile<{it}> -> tile<1x{it}>",
        f"  %bb = broadcast %br : tile<1x{it}> -> {ti}",
        f"  %nr = reshape %n : tile<{it}> -> tile<1x{it}>",
        f"  %nb = broadcast %nr : tile<1x{it}> -> {ti}",
        f"  %at = addi %bb, %bs : {ti}",
        f"  %lo = cmpi greater_than_or_equal %at, %zero, signed : {ti} -> {tb}",
        f"  %hi = cmpi less_than %at, %nb, signed : {ti} -> {tb}",
        f"  %m = andi %lo, %hi : {tb}",
        f"  %pad = constant <f32: -1.0> : {tf}",
        f"  %pa = offset {xm}, %as : {tp}, {ti} -> {tp}",
        f"  %ga, %tga = load_ptr_tko weak %pa : {tp} -> {tf}, token",
        f"  %pb = offset {xm}, %bs : {tp}, {ti} -> {tp}",
        f"  %gb, %tgb = load_ptr_tko weak %pb, %m, %pad : {tp}, {tb}, {tf} -> {tf}, token",
        f"  %qa = offset {ym}, %as : {tp}, {ti} -> {tp}",
        f"  %sa = store_ptr_tko weak %qa, %vs : {tp}, {tf} -> token",
        f"  %qb = offset {wm}, %bs : {tp}, {ti} -> {tp}",
        f"  %sb = store_ptr_tko weak %qb, %vs, %m : {tp}, {tf}, {tb} -> token",
    ]
    store("%ga", "g")
    store("%gb", "h")
    lines += ["  return", "}"]
    return "\n".join(lines)


def pointer_inputs(it: str) -> list[object]:
    rng = np.random.default_rng(len(it))
    dt = INTS[it]
    x = rng.uniform(-10.0, 10.0, N).astype(np.float32)
    a = rng.permutation(np.arange(-BASE, N - BASE))[:TILE].astype(dt)  # in bounds, distinct
    assert (a < 0).sum() > TILE // 4
    b = rng.permutation(np.arange(-3 * BASE, 3 * BASE))[:TILE]  # distinct, both sides out
    b[:4] = [-BASE, -BASE - 1, N - BASE - 1, N - BASE]  # the edges
    b[4] = np.iinfo(dt).min  # as far below as the type reaches
    b = b.astype(dt)
    v = rng.uniform(100.0, 200.0, TILE).astype(np.float32)
    outs = [np.full(TILE, np.nan, np.float32) for _ in range(2)]
    outs += [np.full(N, -7.0, np.float32) for _ in range(2)]
    return [x, a, b, v, *outs, dt(BASE), dt(N)]


def pointer_reference(args: list[object]) -> list[np.ndarray]:
    x, a, b, v = (np.asarray(args[k]) for k in range(4))
    at_a, at_b = BASE + a.astype(np.int64), BASE + b.astype(np.int64)
    ok = (at_b >= 0) & (at_b < N)
    g = x[at_a]
    h = np.where(ok, x[np.where(ok, at_b, 0)], np.float32(-1.0))
    y = np.full(N, -7.0, np.float32)
    y[at_a] = v
    w = np.full(N, -7.0, np.float32)
    w[at_b[ok]] = v[ok]
    return [g, h, y, w]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("it", ["i16", "i32", "i64"])
def test_pointer_gather_scatter_at_negative_offsets(it: str, arch: str, tmp_path: Path) -> None:
    path = tmp_path / "gather.mlir"
    ptx = compiled(pointer_kernel(it), arch, path)
    by_ptx, by_interpreter = pointer_inputs(it), pointer_inputs(it)
    simulate(ptx, (1, 1, 1), by_ptx)
    launch(path, (1, 1, 1), *by_interpreter)
    want = pointer_reference(by_ptx)
    for k, expected in enumerate(want):
        got, interpreted = by_ptx[4 + k], by_interpreter[4 + k]
        assert isinstance(got, np.ndarray) and isinstance(interpreted, np.ndarray)
        assert got.tobytes() == interpreted.tobytes(), f"output {k}: PTX != interpreter"
        np.testing.assert_array_equal(got, expected, err_msg=f"output {k}")


ROWS, COLS, GATHERED = 64, 32, 16
#: The gathered rows: in range, negative (-1, far below, i32's least), past the shape.
ROW_INDEX = [5, -1, 0, 63, -64, 64, 17, -2147483648, 2, 1000, -5, 40, 2147483647, 9, -33, 31]


def view_kernel(rows: int = ROWS, cols: int = COLS, it: str = "i32", scatter: bool = True) -> str:
    """Gather rows `%r` (of type `it`) of a `rows`x`cols` `%x` (padding -inf) into
    `%o`; with `scatter`, also store the tile `%s` to the same rows of `%y`."""
    x = f"tensor_view<{rows}x{cols}xf32, strides=[{cols},1]>"
    gs = (
        f"gather_scatter_view<tile=({GATHERED}x{cols}), padding_value = neg_inf, {x}, sparse_dim=0>"
    )
    o = f"tensor_view<{GATHERED}x{cols}xf32, strides=[{cols},1]>"
    op = f"partition_view<tile=({GATHERED}x{cols}), {o}>"
    r = f"tensor_view<{GATHERED}x{it}, strides=[1]>"
    rp = f"partition_view<tile=({GATHERED}), {r}>"
    t = f"tile<{GATHERED}x{cols}xf32>"
    ri = f"tile<{GATHERED}x{it}>"
    lines = [
        f"entry @k(%x: tile<ptr<f32>>, %r: tile<ptr<{it}>>, %o: tile<ptr<f32>>"
        + (", %s: tile<ptr<f32>>, %y: tile<ptr<f32>>) {" if scatter else ") {"),
        "  %z = constant <i32: 0> : tile<i32>",
        f"  %tr = make_tensor_view %r, shape = [{GATHERED}], strides = [1] : {r}",
        f"  %pr = make_partition_view %tr : {rp}",
        f"  %rows, %t0 = load_view_tko weak %pr[%z] : {rp}, tile<i32> -> {ri}, token",
        f"  %tx = make_tensor_view %x, shape = [{rows}, {cols}], strides = [{cols}, 1] : {x}",
        f"  %gx = make_gather_scatter_view %tx : {gs}",
        f"  %g, %t1 = load_view_tko weak %gx[%rows, %z] : {gs}, {ri}, tile<i32> -> {t}, token",
        f"  %to = make_tensor_view %o, shape = [{GATHERED}, {cols}], strides = [{cols}, 1] : {o}",
        f"  %po = make_partition_view %to : {op}",
        f"  %t2 = store_view_tko weak %g, %po[%z, %z] : {t}, {op}, tile<i32> -> token",
    ]
    if scatter:
        lines += [
            f"  %ts = make_tensor_view %s, shape = [{GATHERED}, {cols}], strides = [{cols}, 1] : {o}",
            f"  %ps = make_partition_view %ts : {op}",
            f"  %v, %t3 = load_view_tko weak %ps[%z, %z] : {op}, tile<i32> -> {t}, token",
            f"  %ty = make_tensor_view %y, shape = [{rows}, {cols}], strides = [{cols}, 1] : {x}",
            f"  %gy = make_gather_scatter_view %ty : {gs}",
            f"  %t4 = store_view_tko weak %v, %gy[%rows, %z] : {t}, {gs}, {ri}, tile<i32> -> token",
        ]
    return "\n".join([*lines, "  return", "}"])


def view_inputs() -> list[np.ndarray]:
    x = np.arange(ROWS * COLS, dtype=np.float32).reshape(ROWS, COLS)
    rows = np.array(ROW_INDEX, np.int32)
    out = np.full((GATHERED, COLS), np.nan, np.float32)
    values = (1000 + np.arange(GATHERED * COLS, dtype=np.float32)).reshape(GATHERED, COLS)
    y = np.full((ROWS, COLS), -7.0, np.float32)
    return [x, rows, out, values, y]


@pytest.mark.parametrize("arch", ARCHES)
def test_gather_view_rows_out_of_bounds(arch: str, tmp_path: Path) -> None:
    path = tmp_path / "gather_view.mlir"
    ptx = compiled(view_kernel(), arch, path)
    by_ptx, by_interpreter = view_inputs(), view_inputs()
    simulate(ptx, (1, 1, 1), list(by_ptx))
    launch(path, (1, 1, 1), *by_interpreter)
    for k in (2, 4):
        assert by_ptx[k].tobytes() == by_interpreter[k].tobytes(), f"output {k}"
    x, rows, out, values, y = by_ptx
    inside = (rows >= 0) & (rows < ROWS)
    want = np.full((GATHERED, COLS), -np.inf, np.float32)
    want[inside] = x[rows[inside]]
    np.testing.assert_array_equal(out, want)
    want_y = np.full((ROWS, COLS), -7.0, np.float32)
    want_y[rows[inside]] = values[inside]
    np.testing.assert_array_equal(y, want_y)


#: More rows than an i16 counts: a negative i16 row zero-extended would land inside.
TALL = 2**16 + 4
TALL_ROWS = [-1, 0, 5, -32768, 32767, -2, 7, 1, -100, 3, 4, 2, 6, 8, 9, 10]


@pytest.mark.parametrize("arch", ARCHES)
def test_gather_view_negative_i16_rows_of_a_tall_tensor(arch: str, tmp_path: Path) -> None:
    """An i16 row -1 is row -1 (out of bounds), not row 65535 (inside this tensor)."""
    path = tmp_path / "tall.mlir"
    ptx = compiled(view_kernel(TALL, 2, "i16", scatter=False), arch, path)
    x = np.arange(TALL * 2, dtype=np.float32).reshape(TALL, 2)
    rows = np.array(TALL_ROWS, np.int16)
    got, interpreted = (np.full((GATHERED, 2), np.nan, np.float32) for _ in range(2))
    simulate(ptx, (1, 1, 1), [x, rows, got])
    launch(path, (1, 1, 1), x, rows, interpreted)
    assert got.tobytes() == interpreted.tobytes()
    want = np.where((rows >= 0)[:, None], x[np.maximum(rows, 0)], np.float32(-np.inf))
    np.testing.assert_array_equal(got, want)
