"""cuTile kernels that exercise the bytecode op table beyond the corpus.

The corpus (tests/corpus) is elementwise; these kernels reach reductions, scans, MMA,
control flow, atomics, gathers and scatters, printing and the view and conversion ops.
They exist to be exported (``generate.py``); the files they produce are committed under
``cutile/`` so tests need no cuTile.  They need not compute anything useful.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import cuda.tile as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "corpus"))

from _common import array_constraint, kernel_signature, scalar_constraint

T = 64


@ct.kernel
def reductions(x, out_sum, out_max, out_scan, out_arg):
    """reduce (addf, maxf, two-operand argmax) and scan."""
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(16, T), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out_sum, index=(pid,), tile=ct.sum(t, axis=1))
    ct.store(out_max, index=(pid,), tile=ct.max(t, axis=1))
    ct.store(out_scan, index=(pid, 0), tile=ct.cumsum(t, axis=1))
    ct.store(out_arg, index=(pid,), tile=ct.argmax(t, axis=1))


@ct.kernel
def matmul_f16(a, b, c, k_tiles: int):
    """mmaf in a for loop with a loop-carried accumulator."""
    pm, pn = ct.bid(0), ct.bid(1)
    acc = ct.full((64, 64), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ta = ct.load(a, index=(pm, k), shape=(64, 32), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, pn), shape=(32, 64), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(pm, pn), tile=acc.astype(ct.float16))


@ct.kernel
def matmul_i8(a, b, c):
    """mmai."""
    ta = ct.load(a, index=(0, 0), shape=(32, 32))
    tb = ct.load(b, index=(0, 0), shape=(32, 32))
    acc = ct.full((32, 32), 0, dtype=ct.int32)
    ct.store(c, index=(0, 0), tile=ct.mma(ta, tb, acc))


@ct.kernel
def control_flow(x, out, n: int, limit: float):
    """if/else with results, a while loop (loop/break/continue)."""
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    if n > 3:
        t = t * 2.0
    else:
        t = t - 1.0
    i = 0
    while i < n:
        t = ct.minimum(t, limit)
        i += 1
    ct.store(out, index=(pid,), tile=t)


@ct.kernel
def atomics(counter, x, out):
    """atomic_rmw_tko, atomic_cas_tko, gather (load_ptr_tko), scatter (store_ptr_tko)."""
    idx = ct.arange(T, dtype=ct.int32)
    old = ct.atomic_add(counter, idx, 1)
    ct.atomic_cas(counter, idx, old, old + 1)
    v = ct.gather(x, idx * 2, padding_value=0.0)
    ct.scatter(out, idx, v + 1.0)


@ct.kernel
def shapes(x, out, out2):
    """cat, permute, extract, reshape, broadcast, bitcast, iota, select."""
    t = ct.load(x, index=(0, 0), shape=(16, 32))
    u = ct.cat((t, t), axis=0)
    p = ct.permute(u, (1, 0))
    e = ct.extract(p, index=(0, 0), shape=(16, 16))
    bits = ct.bitcast(e, ct.int32)
    ct.store(out, index=(0, 0), tile=ct.where(bits > 0, e, -e))
    ct.store(out2, index=(0,), tile=ct.arange(32, dtype=ct.int32))


@ct.kernel
def math_ops(x, y, out, out_i):
    """Transcendental, pow, remf, ftoi/itof, exti/trunci, mulhii-like integer ops."""
    pid = ct.bid(0)
    a = ct.load(x, index=(pid,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(y, index=(pid,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    r = ct.sin(a) + ct.cos(b) + ct.tan(a) + ct.sinh(b) + ct.cosh(a) + ct.log2(ct.abs(b) + 1.0)
    r = r + ct.pow(ct.abs(a), b) + ct.ceil(a) + ct.sqrt(ct.abs(b)) + a % b
    ct.store(out, index=(pid,), tile=r)
    i = a.astype(ct.int32)
    j = (i.astype(ct.int64) * 3).astype(ct.int16).astype(ct.int32)
    ct.store(out_i, index=(pid,), tile=i // 3 + j)


@ct.kernel
def atan2_op(x, y, out):
    """atan2 (13.2)."""
    pid = ct.bid(0)
    a = ct.load(x, index=(pid,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(y, index=(pid,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(pid,), tile=ct.atan2(a, b))


@ct.kernel
def printing(x):
    """print_tko (a token result from 13.2 on) and assert."""
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    ct.printf("block %d sum %f\n", pid, ct.sum(t))
    ct.assert_(pid >= 0, "negative block id")


@ct.kernel
def hints(x, out):
    """load/store hints (latency, allow_tma) and memory ordering."""
    pid = ct.bid(0)
    t = ct.load(
        x, index=(pid,), shape=(T,), padding_mode=ct.PaddingMode.ZERO, latency=3, allow_tma=False
    )
    ct.store(out, index=(pid,), tile=t, latency=2)


@ct.kernel
def packing(x, out, out2):
    """pack and unpack (13.3)."""
    t = ct.load(x, index=(0,), shape=(T,))
    b = ct.pack_to_bytes(t)
    ct.store(out, index=(0,), tile=b)
    ct.store(out2, index=(0,), tile=ct.unpack_from_bytes(b, ct.float32))


@ct.kernel
def gather_view(x, idx, out):
    """make_gather_scatter_view and the gather_scatter_view type (13.3)."""
    i = ct.load(idx, index=(0,), shape=(16,))
    t = ct.load_advanced_indexing(x, (i, ct.Slice(0, 32)))
    ct.store(out, index=(0, 0), tile=t)


@ct.kernel
def mma_scaled(a, a_scale, b, b_scale, c):
    """mmaf_scaled (13.3)."""
    ta = ct.load(a, index=(0, 0), shape=(64, 64))
    tb = ct.load(b, index=(0, 0), shape=(64, 64))
    sa = ct.load(a_scale, index=(0, 0), shape=(64, 2))
    sb = ct.load(b_scale, index=(0, 0), shape=(2, 64))
    acc = ct.full((64, 64), 0.0, dtype=ct.float32)
    ct.store(c, index=(0, 0), tile=ct.mma_scaled(ta, sa, tb, sb, acc))


@ct.kernel
def insert_tile(x, out):
    """insert (13.4)."""
    t = ct.load(x, index=(0,), shape=(T,))
    s = ct.load(x, index=(0,), shape=(16,))
    ct.store(out, index=(0,), tile=ct.insert(t, (1,), s))


@ct.kernel
def grid_dependency(x, out):
    """gdc_wait_tko and gdc_launch_dependents_tko (13.4)."""
    ct.grid_dependency_control_wait()
    t = ct.load(x, index=(0,), shape=(T,))
    ct.grid_dependency_control_launch_dependents()
    ct.store(out, index=(0,), tile=t)


@ct.kernel
def int_power(x, out, n: int):
    """pow with an integer exponent: fpowi from 13.4 on."""
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(out, index=(0,), tile=ct.pow(t, n))


def _f32(n: int) -> Any:
    return array_constraint(ct.float32, n)


def _i32(n: int) -> Any:
    return array_constraint(ct.int32, n)


#: name -> (kernel, parameter constraints, first bytecode version it needs[, gpu])
KERNELS: dict[str, tuple[Any, ...]] = {
    "reductions": (reductions, [_f32(2), _f32(1), _f32(1), _f32(2), _i32(1)], "13.1"),
    "matmul_f16": (
        matmul_f16,
        [
            array_constraint(ct.float16, 2),
            array_constraint(ct.float16, 2),
            array_constraint(ct.float16, 2),
            scalar_constraint(ct.int32),
        ],
        "13.1",
    ),
    "matmul_i8": (
        matmul_i8,
        [array_constraint(ct.int8, 2), array_constraint(ct.int8, 2), _i32(2)],
        "13.1",
    ),
    "control_flow": (
        control_flow,
        [_f32(1), _f32(1), scalar_constraint(ct.int32), scalar_constraint(ct.float32)],
        "13.1",
    ),
    "atomics": (atomics, [_i32(1), _f32(1), _f32(1)], "13.1"),
    "shapes": (shapes, [_f32(2), _f32(2), _i32(1)], "13.1"),
    "math_ops": (math_ops, [_f32(1), _f32(1), _f32(1), _i32(1)], "13.1"),
    "atan2_op": (atan2_op, [_f32(1), _f32(1), _f32(1)], "13.2"),
    "printing": (printing, [_f32(1)], "13.1"),
    "hints": (hints, [_f32(1), _f32(1)], "13.1"),
    "packing": (packing, [_f32(1), array_constraint(ct.uint8, 1), _f32(1)], "13.3"),
    "gather_view": (gather_view, [_f32(2), _i32(1), _f32(2)], "13.3"),
    "mma_scaled": (
        mma_scaled,
        [
            array_constraint(ct.float8_e4m3fn, 2),
            array_constraint(ct.float8_e8m0fnu, 2),
            array_constraint(ct.float8_e4m3fn, 2),
            array_constraint(ct.float8_e8m0fnu, 2),
            _f32(2),
        ],
        "13.3",
        "sm_100",
    ),
    "insert_tile": (insert_tile, [_f32(1), _f32(1)], "13.4"),
    "grid_dependency": (grid_dependency, [_f32(1), _f32(1)], "13.4"),
    "int_power": (int_power, [_f32(1), _f32(1), scalar_constraint(ct.int32)], "13.3"),
}


def signature(name: str) -> Any:
    params = KERNELS[name][1]
    return kernel_signature(params)


def gpu(name: str) -> str:
    """The architecture a kernel is exported for (sm_90 unless it needs a newer one)."""
    entry = KERNELS[name]
    return entry[3] if len(entry) > 3 else "sm_90"
