"""One-op cuda_tile kernels for semantic tests: load 1-D tiles, apply a body, store.

``kernel_text`` writes the entry as cuTile would (a tensor view and a partition view
per array, one tile per block); ``run_kernel`` compiles it with tileir and runs the
PTX in the simulator.  Shared by the numerics tests so that each states only the
op and its reference.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tileir.compiler import compile_module, parse_module_text
from tileir.testing import simulate

TILE = 128


def kernel_text(
    body: Sequence[str], in_types: Sequence[str], out_type: str, tile: int = TILE
) -> str:
    """An entry loading arrays ``%x0 ..`` of ``in_types``, applying ``body`` (lines
    ``%v = op ...`` whose tile types are appended; the last defines ``%r`` of
    ``out_type``) and storing ``%r``.  A body line ending in ``-> T`` gets
    ``tile<N x in> -> tile<N x T>`` (conversions); others get ``tile<N x in0>``."""
    types = [*in_types, out_type]
    params = ", ".join(f"%a{i}: tile<ptr<{t}>>" for i, t in enumerate(types))
    lines = [
        f"entry @k({params}, %n: tile<i32>) {{",
        "  %bx, %by, %bz = get_tile_block_id : tile<i32>",
    ]
    for i, t in enumerate(types):
        view = f"tensor_view<?x{t}, strides=[1]>"
        lines.append(
            f"  %tv{i} = make_tensor_view %a{i}, shape = [%n], strides = [1] : tile<i32> -> {view}"
        )
        lines.append(
            f"  %pv{i} = make_partition_view %tv{i} : partition_view<tile=({tile}), {view}>"
        )
    for i, t in enumerate(in_types):
        part = f"partition_view<tile=({tile}), tensor_view<?x{t}, strides=[1]>>"
        lines.append(
            f"  %x{i}, %tok{i} = load_view_tko weak %pv{i}[%bx] : {part}, tile<i32> -> tile<{tile}x{t}>, token"
        )
    for line in body:
        if " -> " in line:
            code, to = line.rsplit(" -> ", 1)
            lines.append(f"  {code} : tile<{tile}x{in_types[0]}> -> tile<{tile}x{to}>")
        else:
            lines.append(f"  {line} : tile<{tile}x{in_types[0]}>")
    out_part = f"partition_view<tile=({tile}), tensor_view<?x{out_type}, strides=[1]>>"
    lines.append(
        f"  %st = store_view_tko weak %r, %pv{len(in_types)}[%bx] : tile<{tile}x{out_type}>, {out_part}, tile<i32> -> token"
    )
    lines.append("  return\n}")
    return "\n".join(lines)


def _view(arg: str, t: str, rows: int, cols: int) -> tuple[list[str], str]:
    tv = f"tensor_view<{rows}x{cols}x{t}, strides=[{cols},1]>"
    pv = f"partition_view<tile=({rows}x{cols}), {tv}>"
    lines = [
        f"  %tv{arg} = make_tensor_view %{arg}, shape = [{rows}, {cols}], strides = [{cols}, 1] : {tv}",
        f"  %pv{arg} = make_partition_view %tv{arg} : {pv}",
    ]
    return lines, pv


def dot_kernel_text(
    a_t: str, b_t: str, acc_t: str, m: int, n: int, k: int, dot: str = "mmaf"
) -> str:
    """One block loads an `m x k` A, a `k x n` B and an `m x n` accumulator (row-major,
    at the entry's three pointers), computes `dot` (`mmaf`, or `mmai signed
    unsigned` and the like) and stores the result over the accumulator."""
    name, *words = dot.split()
    signs = "".join(f" {w}" for w in words)
    lines = [
        f"entry @k(%a: tile<ptr<{a_t}>>, %b: tile<ptr<{b_t}>>, %c: tile<ptr<{acc_t}>>) {{",
        "  %z = constant <i32: 0> : tile<i32>",
    ]
    views = {}
    for arg, t, r, c in (("a", a_t, m, k), ("b", b_t, k, n), ("c", acc_t, m, n)):
        more, views[arg] = _view(arg, t, r, c)
        lines += more
    for arg, t, r, c in (("a", a_t, m, k), ("b", b_t, k, n), ("c", acc_t, m, n)):
        lines.append(
            f"  %x{arg}, %t{arg} = load_view_tko weak %pv{arg}[%z, %z] : {views[arg]}, "
            f"tile<i32> -> tile<{r}x{c}x{t}>, token"
        )
    lines += [
        f"  %r = {name} %xa, %xb, %xc{signs} : tile<{m}x{k}x{a_t}>, tile<{k}x{n}x{b_t}>, "
        f"tile<{m}x{n}x{acc_t}>",
        f"  %s = store_view_tko weak %r, %pvc[%z, %z] : tile<{m}x{n}x{acc_t}>, {views['c']}, "
        "tile<i32> -> token",
        "  return",
        "}",
    ]
    return "\n".join(lines)


def compile_text(text: str, arch: str = "sm_80") -> str:
    ptx = compile_module(parse_module_text(text, "kernel.mlir"), arch).ptx
    assert ptx is not None
    return ptx


def run_kernel(
    ptx: str,
    inputs: Sequence[np.ndarray],
    out_dtype: np.dtype,
    approx: str = "bound",
    tile: int = TILE,
) -> np.ndarray:
    """Launch ``ptx`` (from ``kernel_text``) over the inputs in the simulator."""
    n = len(inputs[0])
    out = np.zeros(n, out_dtype)
    arrays = [np.ascontiguousarray(a) for a in inputs]
    simulate(ptx, (-(-n // tile), 1, 1), [*arrays, out, n], approx=approx)
    return out
