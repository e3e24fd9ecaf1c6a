"""`cuda_tile.scan` lowered to PTX and run in the PTX simulator, against the reference
interpreter (`tileir.interpreter`): 1-D and 2-D tiles scanned along either dimension,
forward and reversed, over layouts whose scanned dimension lives in registers only,
in registers and lanes, and in registers, lanes, warps and registers again; bodies
that add, take maxima, and compose affine maps (associative but not commutative, two
operands), on 16-, 32- and 64-bit values.

Integer and max scans must equal the interpreter exactly.  f32 sums may associate
differently from the interpreter's sequential fold (docs/interpreter.md): each result
must be within twice the recursive-summation bound, 2 (k - 1) 2^-24 sum |x_i| over its
k terms, of the interpreter's.  The PTX must use no more shuffles than the
work-efficient scan needs (a Kogge-Stone step per lane bit, one for the exclusive
carry, per run of elements a thread holds, and operand)."""

from __future__ import annotations

import re
from math import prod
from pathlib import Path

import numpy as np
import pytest
from elementwise_kernels import dot_kernel_text

from tileir.compiler import compile_module, parse_module_text
from tileir.conversions.tileas_to_llvm.reductions import ScanPlan
from tileir.interpreter import launch
from tileir.testing import simulate

DTYPES = {"f32": np.float32, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}

#: body name -> (operand types from the element type, identities, body lines).  The
#: arguments are %p0, %q0 (the element, the running value), %p1, %q1, ...
BODIES: dict[str, tuple[int, list[str], list[str]]] = {
    "add": (1, ["{zero}"], ["%s = {add} %p0, %q0 : tile<{t}>", "yield %s : tile<{t}>"]),
    "max": (1, ["{lowest}"], ["%s = {max} %p0, %q0 : tile<{t}>", "yield %s : tile<{t}>"]),
    "mul": (1, ["1 : {t}"], ["%s = muli %p0, %q0 : tile<{t}>", "yield %s : tile<{t}>"]),
    # (a, b) after (A, B) is (a A, a B + b): the recurrence r = a r + b.
    "affine": (
        2,
        ["1 : {t}", "0 : {t}"],
        [
            "%m = muli %p0, %q0 : tile<{t}>",
            "%n = muli %p0, %q1 : tile<{t}>",
            "%s = addi %n, %p1 : tile<{t}>",
            "yield %m, %s : tile<{t}>, tile<{t}>",
        ],
    ),
}


def _words(t: str) -> dict[str, str]:
    if t == "f32":
        return {"zero": "0.0 : f32", "lowest": "0xFF800000 : f32", "add": "addf", "max": "maxf"}
    return {"zero": f"0 : {t}", "lowest": f"-1000 : {t}", "add": "addi", "max": "maxi signed"}


def scan_kernel(
    shape: tuple[int, ...], t: str, dim: int, reverse: bool, body: str, aligned: bool = False
) -> str:
    """One block: load the operands (row-major arrays of `shape`), scan, store; with
    `aligned`, the pointers are 16-byte aligned (`assume div_by<16>`, as cuTile says of
    its arrays), so accesses may be vectors."""
    operands, identities, lines = BODIES[body]
    words = _words(t)
    tile = "x".join(map(str, shape)) + f"x{t}"
    strides = [prod(shape[i + 1 :]) for i in range(len(shape))]
    view = f"tensor_view<{'x'.join(map(str, shape))}x{t}, strides=[{', '.join(map(str, strides))}]>"
    part = f"partition_view<tile=({'x'.join(map(str, shape))}), {view}>"
    zeros = ", ".join(["%z"] * len(shape))
    args = [f"%in{k}" for k in range(operands)] + [f"%out{k}" for k in range(operands)]
    text = [
        "entry @k(" + ", ".join(f"{a}: tile<ptr<{t}>>" for a in args) + ") {",
        "  %z = constant <i32: 0> : tile<i32>",
    ]
    for a in args:
        dims = ", ".join(map(str, shape))
        base = a
        if aligned:
            base = f"%aligned_{a[1:]}"
            text.append(f"  {base} = assume div_by<16>, {a} : tile<ptr<{t}>>")
        text.append(
            f"  %tv_{a[1:]} = make_tensor_view {base}, shape = [{dims}], "
            f"strides = [{', '.join(map(str, strides))}] : {view}"
        )
        text.append(f"  %pv_{a[1:]} = make_partition_view %tv_{a[1:]} : {part}")
    for k in range(operands):
        text.append(
            f"  %x{k}, %tok{k} = load_view_tko weak %pv_in{k}[{zeros}] : {part}, tile<i32> "
            f"-> tile<{tile}>, token"
        )
    ids = ", ".join(i.format(t=t, **words) for i in identities)
    xs = ", ".join(f"%x{k}" for k in range(operands))
    tiles = ", ".join([f"tile<{tile}>"] * operands)
    results = "%r" if operands == 1 else f"%r:{operands}"
    text.append(
        f"  {results} = scan {xs} dim={dim} reverse={'true' if reverse else 'false'} "
        f"identities=[{ids}] : {tiles} -> {tiles}"
    )
    params = ", ".join(f"%p{k}: tile<{t}>, %q{k}: tile<{t}>" for k in range(operands))
    text.append(f"  ({params}) {{")
    text += ["    " + line.format(t=t, **words) for line in lines]
    text.append("  }")
    for k in range(operands):
        r = "%r" if operands == 1 else f"%r#{k}"
        text.append(
            f"  %st{k} = store_view_tko weak {r}, %pv_out{k}[{zeros}] : tile<{tile}>, {part}, "
            "tile<i32> -> token"
        )
    text += ["  return", "}"]
    return "\n".join(text)


def inputs(shape: tuple[int, ...], t: str, body: str, rng: np.random.Generator) -> list[np.ndarray]:
    if t == "f32":
        return [rng.uniform(-1.0, 1.0, shape).astype(np.float32)]
    dtype = DTYPES[t]
    if body == "affine":
        return [rng.integers(-3, 4, shape).astype(dtype), rng.integers(-9, 10, shape).astype(dtype)]
    if body == "mul":
        # Odd factors: a product never wraps to zero, so every prefix is distinct.
        return [rng.choice(np.array([-3, -1, 1, 3, 5], dtype=dtype), shape)]
    return [rng.integers(-50, 50, shape).astype(dtype)]


def sum_bound(x: np.ndarray, dim: int, reverse: bool) -> np.ndarray:
    """2 (k - 1) 2^-24 sum |x_i| for each prefix of k terms along `dim`."""
    a = np.abs(x.astype(np.float64))
    if reverse:
        a = np.flip(a, dim)
    total = np.cumsum(a, axis=dim)
    k = np.arange(1, x.shape[dim] + 1).reshape([-1 if i == dim else 1 for i in range(x.ndim)])
    bound = 2 * (k - 1) * 2.0**-24 * total
    return np.flip(bound, dim) if reverse else bound


CASES = [
    # (shape, type, dim, reverse, body)
    ((1024,), "f32", 0, False, "add"),  # registers, lanes, 4 warps, registers again
    ((1024,), "f32", 0, True, "add"),
    ((256,), "i32", 0, True, "add"),
    ((16,), "i32", 0, False, "add"),  # fewer elements than lanes
    ((512,), "i64", 0, False, "add"),  # 64-bit words
    ((256,), "i16", 0, True, "add"),  # narrow words
    ((16, 64), "i32", 1, False, "add"),
    ((16, 64), "i32", 0, True, "add"),
    ((32, 32), "f32", 0, False, "max"),
    ((32, 32), "f32", 1, True, "max"),
    ((64, 16), "f32", 0, True, "add"),
    ((1, 64), "i32", 0, False, "add"),  # a dimension of one element
    ((512,), "i32", 0, False, "affine"),  # not commutative, two operands
    ((512,), "i32", 0, True, "affine"),
    ((8, 128), "i32", 1, False, "affine"),
    ((64, 8), "i32", 0, True, "affine"),
    ((16, 32), "i8", 0, True, "mul"),  # unaligned: one element a vector, dim 0 in registers
]


@pytest.mark.parametrize(("shape", "t", "dim", "reverse", "body"), CASES)
def test_scan_matches_interpreter(
    shape: tuple[int, ...], t: str, dim: int, reverse: bool, body: str, tmp_path: Path
) -> None:
    check_scan(shape, t, dim, reverse, body, tmp_path)


def check_scan(
    shape: tuple[int, ...],
    t: str,
    dim: int,
    reverse: bool,
    body: str,
    tmp_path: Path,
    aligned: bool = False,
) -> str:
    """Compile the scan for sm_90a, run it in the PTX simulator and in the interpreter,
    compare; the PTX."""
    text = scan_kernel(shape, t, dim, reverse, body, aligned)
    path = tmp_path / "scan.mlir"
    path.write_text(text)
    ptx = compile_module(parse_module_text(text, str(path)), "sm_90a").ptx
    assert ptx is not None
    xs = inputs(shape, t, body, np.random.default_rng([len(shape), *shape, dim, reverse]))
    got = [np.zeros_like(x) for x in xs]
    want = [np.zeros_like(x) for x in xs]
    simulate(ptx, (1, 1, 1), [*(x.copy() for x in xs), *got])
    launch(path, (1, 1, 1), *(x.copy() for x in xs), *want)
    for g, w in zip(got, want, strict=True):
        if t == "f32" and body == "add":
            error = np.abs(g.astype(np.float64) - w)
            bound = sum_bound(xs[0], dim, reverse)
            assert (error <= bound).all(), (error - bound).max()
            assert (error > 0).any() or shape[dim] <= 32  # the order does differ
        else:
            np.testing.assert_array_equal(g, w)
    # At most five Kogge-Stone steps and one exclusive carry per run of elements a
    # thread holds, operand and 32-bit word: never a shuffle per element of the row.
    m = re.search(r"\.reqntid (\d+)", ptx)
    assert m is not None
    runs = max(1, prod(shape) // int(m.group(1)))
    words = 2 if t == "i64" else 1
    shuffles = len(re.findall(r"shfl\.sync", ptx))
    assert shuffles <= 6 * runs * len(xs) * words, shuffles
    return ptx


#: Scans of 16-byte aligned arrays, whose layouts give the scanned dimension a thread's
#: registers first (`assign_layouts.scan_size_per_thread`), with the shuffles the
#: work-efficient scan then needs:
#: - the held-out x_cumprod_rev_i8_axis0's shape, one warp: dim 0 over 4 registers and 4
#:   lanes, 4 runs a thread of 2 lane steps and the exclusive carry each: 12 (16-byte
#:   vectors along the rows put dim 0 over 16 lanes: 64; tileiras 16);
#: - x_cumsum_bool_i32's: one run of 8 over 4 lanes: 3 (runs of 4 over 8 lanes: 8;
#:   tileiras 3);
#: - dim 0 over 8 registers, 2 lanes and 4 warps (16-byte f32 vectors kept): 4 runs of
#:   one lane step and the carry: 8 (the vector alone along the rows: 8 runs of 2: 16).
LAYOUT_SHUFFLES = [
    (((16, 32), "i8", 0, True, "mul"), 12),
    (((32, 32), "i32", 1, False, "add"), 3),
    (((64, 64), "f32", 0, False, "max"), 8),
]


@pytest.mark.parametrize(("case", "shuffles"), LAYOUT_SHUFFLES)
def test_scan_layout_keeps_shuffles_few(
    case: tuple[tuple[int, ...], str, int, bool, str], shuffles: int, tmp_path: Path
) -> None:
    ptx = check_scan(*case, tmp_path, aligned=True)
    assert len(re.findall(r"shfl\.sync", ptx)) == shuffles


def test_scan_plan_needs_blocked_order() -> None:
    """Registers, lanes, warps, registers: the work-efficient plan; any other order
    (a lane bit above a warp bit, registers between lanes) has none."""
    plan = ScanPlan.of([("register", 0), ("lane", 0), ("lane", 1), ("warp", 0), ("register", 1)])
    assert plan == ScanPlan(low=(0,), lanes=(0, 1), warps=(0,), high=(1,))
    assert ScanPlan.of([("lane", 2), ("lane", 3)]) == ScanPlan((), (2, 3), (), ())
    assert ScanPlan.of([("warp", 0), ("lane", 0)]) is None
    assert ScanPlan.of([("lane", 0), ("register", 0), ("lane", 1)]) is None


def test_scan_of_mma_rows_carries_through_threads(tmp_path: Path) -> None:
    """A 32x16 mma accumulator scanned along its rows: rows live in lane bits, then a
    register bit, then a warp bit, an order with no work-efficient plan, so the
    carry walks through the threads (`_scan_sequentially`).  Small integer operands
    keep every sum exact, so the results must equal the interpreter's."""
    text = dot_kernel_text("f16", "f16", "f32", 32, 16, 16)
    text = text.replace(
        "  %s = store_view_tko weak %r,",
        "  %q = scan %r dim=0 reverse=false identities=[0.0 : f32] : tile<32x16xf32> -> "
        "tile<32x16xf32>\n  (%u: tile<f32>, %v: tile<f32>) {\n"
        "    %w = addf %u, %v : tile<f32>\n    yield %w : tile<f32>\n  }\n"
        "  %s = store_view_tko weak %q,",
    )
    path = tmp_path / "mma_scan.mlir"
    path.write_text(text)
    ptx = compile_module(parse_module_text(text, str(path)), "sm_90a").ptx
    assert ptx is not None
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 4, (32, 16)).astype(np.float16)
    b = rng.integers(-3, 4, (16, 16)).astype(np.float16)
    c = rng.integers(-9, 10, (32, 16)).astype(np.float32)
    got, want = c.copy(), c.copy()
    simulate(ptx, (1, 1, 1), [a, b, got])
    launch(path, (1, 1, 1), a, b, want)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want, np.cumsum(a.astype(np.float64) @ b + c, axis=0))
