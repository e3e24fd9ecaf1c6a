"""Reductions and scans whose results depend on the order they combine in, run as
tileir's PTX in the simulator against the interpreter, bit for bit, on sm_80 and sm_90a.

cuda_tile's `reduce` fixes no order; tileir's reference (`tileir.interpreter`,
docs/interpreter.md) is a pairwise tree, element `j + n/2` combined into accumulator
`j` with the body called as `(element, accumulator)`, and the lowering promises that
tree in every layout (`tileas_to_llvm/reductions.py`).  Commutative bodies (sums,
maxima, cuTile's argmax, which breaks ties on the index) give the same result in any
order, so they cannot tell a butterfly that swaps its halves from a correct one.  The
bodies here can:

* `first`: an argmax that keeps the accumulator on ties (no index comparison): where
  a row's maximum appears twice, at indices that differ in one bit of the dimension,
  the combine along that bit decides, and the lower index must win;
* `last`: integer keys whose body keeps the *element* (the left operand) on ties, with
  an arbitrary payload: there the higher index's payload must win;
* `mix`: `element * c + accumulator` (wrapping), neither commutative nor associative,
  so every combine of the tree shows in the result.

(With more ties, the tree does not give the lowest index to such a body: of ties at 1
and 2 in four elements, 2 wins, as the last combine pairs 0 and 2 against 1 and 3; the
winner is the tie whose bit-reversed index is least.  Those rows are compared with the
interpreter only.)

Each bit of the reduced dimension decides the tie of one row, so a swap at a register,
a lane (`shfl.sync.bfly`) or a warp (through shared memory) step changes some row; the
other rows hold random ties.  cuTile's argmax body must give numpy's `argmax` (the
lowest index) exactly.

Scans are sequential folds in the reference, `r[j] = body(x[j], r[j-1])`; a running
first-wins argmax (keep the running value on ties) and a running last-wins one are
associative but not commutative, so the lowering's tree of Kogge-Stone steps, warp
totals and carries must put every earlier element on the accumulator's side.  Their
keys rise in plateaus that cross lanes and warps, with dips, so ties are everywhere;
the results must equal both the interpreter and numpy's running first/last argmax.
"""

from __future__ import annotations

import re
from math import prod
from pathlib import Path

import numpy as np
import pytest

from tileir.compiler import compile_module, parse_module_text
from tileir.interpreter import launch
from tileir.testing import simulate

ARCHES = ("sm_80", "sm_90a")

#: cuda_tile element type -> numpy dtype.
DTYPES = {"f32": np.float32, "i32": np.int32}

#: body name -> (key type, payload type, identities, body lines over the arguments
#: (%e0, %a0, %e1, %a1): element and accumulator of the key, then of the payload).
BODIES: dict[str, tuple[str, str, str, list[str]]] = {
    "first": (
        "f32",
        "i32",
        "0xFF800000 : f32, -1 : i32",
        [
            "%gt = cmpf greater_than ordered %e0, %a0 : tile<f32> -> tile<i1>",
            "%v = select %gt, %e0, %a0 : tile<i1>, tile<f32>",
            "%i = select %gt, %e1, %a1 : tile<i1>, tile<i32>",
            "yield %v, %i : tile<f32>, tile<i32>",
        ],
    ),
    "last": (
        "i32",
        "i32",
        "-2147483648 : i32, 0 : i32",
        [
            "%ge = cmpi greater_than_or_equal %e0, %a0, signed : tile<i32> -> tile<i1>",
            "%v = select %ge, %e0, %a0 : tile<i1>, tile<i32>",
            "%i = select %ge, %e1, %a1 : tile<i1>, tile<i32>",
            "yield %v, %i : tile<i32>, tile<i32>",
        ],
    ),
    # cuTile's `ct.argmax` body (tests/corpus/row_reduce_2d.mlir): ties go to the
    # lower index whatever the order.
    "cutile_argmax": (
        "f32",
        "i32",
        "0xFF800000 : f32, 0 : i32",
        [
            "%gt = cmpf greater_than ordered %e0, %a0 : tile<f32> -> tile<i1>",
            "%eq = cmpf equal ordered %e0, %a0 : tile<f32> -> tile<i1>",
            "%lt = cmpi less_than %e1, %a1, signed : tile<i32> -> tile<i1>",
            "%tie = andi %eq, %lt : tile<i1>",
            "%take = ori %gt, %tie : tile<i1>",
            "%v = select %take, %e0, %a0 : tile<i1>, tile<f32>",
            "%i = select %take, %e1, %a1 : tile<i1>, tile<i32>",
            "yield %v, %i : tile<f32>, tile<i32>",
        ],
    ),
    # One operand: the payload lines are dropped (see `kernel`).
    # `element * c + accumulator` (wrapping; c odd and large): neither commutative nor
    # associative, and unlike `element - accumulator` (whose swapped halves only flip
    # the sign, twice over two swapped steps) no symmetry hides a swapped step.
    "mix": (
        "i32",
        "",
        "0 : i32",
        [
            "%c = constant <i32: -1640531535> : tile<i32>",
            "%m = muli %e0, %c : tile<i32>",
            "%d = addi %m, %a0 : tile<i32>",
            "yield %d : tile<i32>",
        ],
    ),
}


def _view(name: str, shape: tuple[int, ...], t: str) -> tuple[list[str], str]:
    """A tensor view of a row-major array of `shape` and its partition view into
    tiles of `shape` with the blocked dimension divided by the grid."""
    dims = ", ".join(map(str, shape))
    strides = ", ".join(str(prod(shape[i + 1 :])) for i in range(len(shape)))
    tv = f"tensor_view<{'x'.join(map(str, shape))}x{t}, strides=[{strides}]>"
    return [
        f"  %tv_{name} = make_tensor_view %{name}, shape = [{dims}], strides = [{strides}] : {tv}",
    ], tv


def kernel(
    op: str, body: str, shape: tuple[int, ...], dim: int, reverse: bool = False, blocks: int = 1
) -> str:
    """Block `b` loads tile `b` of keys `%x` (and payloads `%p`), tiles of `shape`
    stacked along the dimension other than `dim` (`blocks` of them), reduces (`op` =
    "reduce") or scans (`op` = "scan") it along `dim` with `body`, and stores the
    results to tile `b` of `%ox` (and `%op`)."""
    key, payload, ids, lines = BODIES[body]
    out_shape = tuple(s for i, s in enumerate(shape) if i != dim) if op == "reduce" else shape
    arrays = [("x", shape, key), ("ox", out_shape, key)]
    if payload:
        arrays[1:1] = [("p", shape, payload)]
        arrays.append(("op", out_shape, payload))
    text = [
        "entry @k(" + ", ".join(f"%{n}: tile<ptr<{t}>>" for n, _, t in arrays) + ") {",
        "  %z = constant <i32: 0> : tile<i32>",
        "  %bx, %by, %bz = get_tile_block_id : tile<i32>",
    ]
    views = {}
    for name, shp, t in arrays:
        stacked = shp
        if blocks > 1:
            other = 1 - dim if name in ("x", "p") or op == "scan" else 0
            stacked = tuple(s * blocks if i == other else s for i, s in enumerate(shp))
        more, tv = _view(name, stacked, t)
        views[name] = f"partition_view<tile=({'x'.join(map(str, shp))}), {tv}>"
        text += [*more, f"  %pv_{name} = make_partition_view %tv_{name} : {views[name]}"]

    def where(shp: tuple[int, ...], blocked: int | None) -> str:
        return ", ".join("%bx" if i == blocked else "%z" for i in range(len(shp)))

    ins = [(n, t) for n, _, t in arrays if n in ("x", "p")]
    tiles = [f"tile<{'x'.join(map(str, shape))}x{t}>" for _, t in ins]
    outs = [f"tile<{'x'.join(map(str, out_shape))}x{t}>" for _, t in ins]
    at = where(shape, 1 - dim if len(shape) == 2 else None)
    out_at = where(out_shape, (0 if op == "reduce" else 1 - dim) if len(shape) == 2 else None)
    for (name, _), tile in zip(ins, tiles, strict=True):
        text.append(
            f"  %{name}s, %t{name} = load_view_tko weak %pv_{name}[{at}] : {views[name]}, "
            f"tile<i32> -> {tile}, token"
        )
    operands = ", ".join(f"%{n}s" for n, _ in ins)
    results = "%r" if len(ins) == 1 else f"%r:{len(ins)}"
    order = f" reverse={'true' if reverse else 'false'}" if op == "scan" else ""
    text.append(
        f"  {results} = {op} {operands} dim={dim}{order} identities=[{ids}] : "
        f"{', '.join(tiles)} -> {', '.join(outs)}"
    )
    params = ", ".join(f"%e{k}: tile<{t}>, %a{k}: tile<{t}>" for k, (_, t) in enumerate(ins))
    text += [f"  ({params}) {{", *(f"    {line}" for line in lines), "  }"]
    for k, ((name, _), tile) in enumerate(zip(ins, outs, strict=True)):
        r = "%r" if len(ins) == 1 else f"%r#{k}"
        text.append(
            f"  %s{k} = store_view_tko weak {r}, %pv_o{name}[{out_at}] : {tile}, "
            f"{views['o' + name]}, tile<i32> -> token"
        )
    text += ["  return", "}"]
    return "\n".join(text)


def run_both(
    text: str,
    arch: str,
    inputs: list[np.ndarray],
    outputs: list[np.ndarray],
    tmp_path: Path,
    blocks: int = 1,
) -> tuple[list[np.ndarray], list[np.ndarray], str]:
    """(simulated PTX's outputs, interpreter's outputs, the PTX)."""
    path = tmp_path / "kernel.mlir"
    path.write_text(text)
    ptx = compile_module(parse_module_text(text, str(path)), arch).ptx
    assert ptx is not None
    got = [o.copy() for o in outputs]
    want = [o.copy() for o in outputs]
    simulate(ptx, (blocks, 1, 1), [*(x.copy() for x in inputs), *got])
    launch(path, (blocks, 1, 1), *(x.copy() for x in inputs), *want)
    return got, want, ptx


def assert_bit_exact(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        mismatch = np.argwhere(g != w)
        assert g.tobytes() == w.tobytes(), f"PTX != interpreter at {mismatch[:8].tolist()}"


def _along(shape: tuple[int, ...], dim: int, values: np.ndarray) -> np.ndarray:
    """`values` (one per coordinate along `dim`) broadcast to `shape`."""
    return np.broadcast_to(
        values.reshape([-1 if i == dim else 1 for i in range(len(shape))]), shape
    ).copy()


def tie_keys(
    shape: tuple[int, ...], dim: int, key: str, rng: np.random.Generator
) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """Keys whose rows (the lines along `dim`) have their maximum at exactly two
    indices that differ in one bit, a different bit for each of the first rows (every
    bit of the dimension, highest first); the rest of the rows hold random small keys,
    so ties of all kinds.  Returns the keys and (row, lower, upper) of the pairs."""
    n = shape[dim]
    lines = np.moveaxis(rng.integers(0, 3, shape), dim, -1).reshape(-1, n)
    bits = n.bit_length() - 1
    assert lines.shape[0] > bits, "a row per bit of the dimension"
    pairs = []
    for row in range(bits):
        bit = 1 << (bits - 1 - row)
        lower = int(rng.integers(0, n)) & ~bit
        lines[row, [lower, lower | bit]] = 5
        pairs.append((row, lower, lower | bit))
    line_shape = (*(s for i, s in enumerate(shape) if i != dim), n)
    keys = np.moveaxis(lines.reshape(line_shape), -1, dim)
    return np.ascontiguousarray(keys).astype(DTYPES[key]), pairs


def stacked(shape: tuple[int, ...], dim: int, blocks: int) -> tuple[int, ...]:
    """The arrays' shape: `blocks` tiles of `shape` along the other dimension."""
    return tuple(s if i == dim else s * blocks for i, s in enumerate(shape))


#: (tile shape, dim, blocks): the reduced dimension over registers, lanes and warps (4
#: warps; `shfl.sync.bfly`, then shared memory) along either dimension, or over
#: registers and lanes only; enough blocks for a row per bit of the dimension.
REDUCE_CASES = [((2, 512), 1, 5), ((512, 2), 0, 5), ((128, 8), 0, 1), ((8, 128), 1, 1)]
#: Which of them cross warps (checked on the PTX: a `bar.sync` around the exchange).
ACROSS_WARPS = {((2, 512), 1), ((512, 2), 0), ((128, 8), 0)}


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize(("tile", "dim", "blocks"), REDUCE_CASES)
@pytest.mark.parametrize("body", ["first", "last"])
def test_tie_breaking_reduce_matches_interpreter(
    body: str, tile: tuple[int, int], dim: int, blocks: int, arch: str, tmp_path: Path
) -> None:
    key, payload, _, _ = BODIES[body]
    shape = stacked(tile, dim, blocks)
    rng = np.random.default_rng([len(body), *shape, dim])
    keys, pairs = tie_keys(shape, dim, key, rng)
    if body == "first":
        payloads = _along(shape, dim, np.arange(shape[dim], dtype=np.int32))
    else:
        payloads = rng.integers(-(2**31), 2**31, shape, dtype=np.int64).astype(np.int32)
    out_shape = tuple(s for i, s in enumerate(shape) if i != dim)
    outputs = [np.zeros(out_shape, DTYPES[key]), np.zeros(out_shape, DTYPES[payload])]
    text = kernel("reduce", body, tile, dim, blocks=blocks)
    got, want, ptx = run_both(text, arch, [keys, payloads], outputs, tmp_path, blocks)
    assert_bit_exact(got, want)
    assert "shfl.sync.bfly" in ptx
    assert ("bar.sync" in ptx) == ((tile, dim) in ACROSS_WARPS)
    # Where one bit decides the tie, the lower index wins keeping the accumulator
    # ("first"), the upper one keeping the element ("last").
    lines = np.moveaxis(payloads, dim, -1).reshape(-1, shape[dim])
    index = got[1].reshape(-1)
    for row, lower, upper in pairs:
        assert index[row] == lines[row, lower if body == "first" else upper], (row, lower, upper)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize(("tile", "dim", "blocks"), REDUCE_CASES[:2])
def test_cutile_argmax_takes_the_lowest_index(
    tile: tuple[int, int], dim: int, blocks: int, arch: str, tmp_path: Path
) -> None:
    """cuTile's argmax compares indices on ties: numpy's `argmax`, across lanes and
    warps, whatever the order."""
    shape = stacked(tile, dim, blocks)
    keys, _ = tie_keys(shape, dim, "f32", np.random.default_rng([7, *shape, dim]))
    index = _along(shape, dim, np.arange(shape[dim], dtype=np.int32))
    out_shape = tuple(s for i, s in enumerate(shape) if i != dim)
    outputs = [np.zeros(out_shape, np.float32), np.zeros(out_shape, np.int32)]
    text = kernel("reduce", "cutile_argmax", tile, dim, blocks=blocks)
    got, want, _ = run_both(text, arch, [keys, index], outputs, tmp_path, blocks)
    assert_bit_exact(got, want)
    np.testing.assert_array_equal(got[1], np.argmax(keys, axis=dim))
    np.testing.assert_array_equal(got[0], np.max(keys, axis=dim))


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize(("tile", "dim", "blocks"), REDUCE_CASES)
def test_non_associative_reduce_follows_the_tree(
    tile: tuple[int, int], dim: int, blocks: int, arch: str, tmp_path: Path
) -> None:
    """`element * c + accumulator` at every node of the tree: each node's order shows."""
    shape = stacked(tile, dim, blocks)
    rng = np.random.default_rng([3, *shape, dim])
    x = rng.integers(-(2**31), 2**31, shape, dtype=np.int64).astype(np.int32)
    out = np.zeros(tuple(s for i, s in enumerate(shape) if i != dim), np.int32)
    text = kernel("reduce", "mix", tile, dim, blocks=blocks)
    got, want, _ = run_both(text, arch, [x], [out], tmp_path, blocks)
    assert_bit_exact(got, want)


def plateau_keys(n: int, rng: np.random.Generator) -> np.ndarray:
    """Keys that rise a step every ~40 elements and dip one below between: every
    running maximum is tied many times, across lanes and warps."""
    level = np.cumsum(rng.random(n) < 0.025)
    return level - (rng.random(n) < 0.5)


def running_argmax(keys: np.ndarray, first: bool) -> np.ndarray:
    """The index of the running maximum along the last axis: its first or its last
    occurrence so far."""
    out = np.empty(keys.shape, np.int64)
    for j in range(keys.shape[-1]):
        seen = keys[..., : j + 1]
        at = seen.shape[-1] - 1 - np.argmax(seen[..., ::-1], axis=-1)
        out[..., j] = np.argmax(seen, axis=-1) if first else at
    return out


#: (shape, dim, reverse): 1024 elements over registers, lanes, 4 warps and registers
#: again (the work-efficient plan); rows scanned along lanes only; reversed.
SCAN_CASES = [((1024,), 0, False), ((1024,), 0, True), ((16, 64), 1, False), ((64, 16), 0, False)]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize(("shape", "dim", "reverse"), SCAN_CASES)
@pytest.mark.parametrize("body", ["first", "last"])
def test_tie_breaking_scan_matches_interpreter(
    body: str, shape: tuple[int, ...], dim: int, reverse: bool, arch: str, tmp_path: Path
) -> None:
    key, payload, _, _ = BODIES[body]
    rng = np.random.default_rng([len(body), *shape, dim, reverse])
    n = shape[dim]
    rows = [plateau_keys(n, rng) for _ in range(prod(shape) // n)]
    lines = np.stack(rows)  # (rows, n) in scan order
    if reverse:
        lines = lines[:, ::-1]
    line_shape = (*(s for i, s in enumerate(shape) if i != dim), n)
    keys = np.ascontiguousarray(np.moveaxis(lines.reshape(line_shape), -1, dim)).astype(DTYPES[key])
    index = _along(shape, dim, np.arange(n, dtype=np.int32))
    outputs = [np.zeros(shape, DTYPES[key]), np.zeros(shape, DTYPES[payload])]
    text = kernel("scan", body, shape, dim, reverse)
    got, want, ptx = run_both(text, arch, [keys, index], outputs, tmp_path)
    assert_bit_exact(got, want)
    # Independently of the interpreter: the running first or last argmax, in scan order.
    order = np.moveaxis(got[1], dim, -1).reshape(-1, n)
    expect = running_argmax(np.stack(rows), body == "first")
    if reverse:
        expect = n - 1 - expect[:, ::-1]
    np.testing.assert_array_equal(order, expect)
    assert re.search(r"shfl\.sync\.(up|down|idx)", ptx)
