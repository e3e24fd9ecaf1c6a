"""Reductions, scans and control flow against the reference interpreter: tileir's PTX
(run in the PTX simulator) and ``tileir.interpreter`` agree bit for bit on the corpus
kernels whose results depend neither on the order of atomics nor on transcendental
functions (tileir's `exp` is within 2 ulp, not correctly rounded), including float
reductions, whose pairwise tree both follow across lanes and across warps.  Scans are
exact on integers; an f32 scan may associate differently from the interpreter's
sequential fold (tileir scans across threads as a tree, as tileiras does), so its sums
must be within the recursive-summation bound of the interpreter's."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tileir.compiler import compile_module, load_module
from tileir.interpreter import launch
from tileir.testing import simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402

KERNELS = [
    "row_reduce_2d",
    "row_sum_loop_f32",
    "control_flow_f32",
    "break_on_sum_f32",
    "scalar_tiles_f32",
    "early_return_f32",
    "spare_blocks_f32",
]


@pytest.mark.parametrize("name", KERNELS)
def test_simulated_ptx_equals_interpreter(name: str) -> None:
    check(name, one_block=False)


def test_reduction_across_warps_equals_interpreter() -> None:
    """One block of `sumsq_atomic_f32` (four warps): its sum reaches memory through a
    single atomic, so the tree over registers, lanes and warps is all that counts."""
    check("sumsq_atomic_f32", one_block=True)


def check(name: str, one_block: bool) -> None:
    path = CORPUS / f"{name}.mlir"
    ptx = compile_module(load_module(path), "sm_90a").ptx
    assert ptx is not None
    case = _common.load_case_module(name)
    inputs = case.make_inputs(np.random.default_rng(3))
    if one_block:  # the first block only: shrink the inputs to one tile
        tile = case.TILE
        for key, a in inputs["arrays"].items():
            if key not in inputs["outputs"]:
                inputs["arrays"][key] = a[:tile].copy()
        inputs["grid"] = (1, 1, 1)
    on_gpu = _common.copy_inputs(inputs)
    by_interpreter = _common.copy_inputs(inputs)
    simulate(ptx, inputs["grid"], _common.flatten_args(on_gpu))
    launch(path, inputs["grid"], *_common.flatten_args(by_interpreter))
    for out in inputs["outputs"]:
        got, want = on_gpu["arrays"][out], by_interpreter["arrays"][out]
        assert got.tobytes() == want.tobytes(), f"{out}: {got} != {want}"


def test_cumsum_matches_interpreter() -> None:
    """The corpus `cumsum_f32` (four blocks of 256): the i32 reverse scan exactly, the
    f32 sums within the case's tolerance (twice the bound for any association)."""
    name = "cumsum_f32"
    path = CORPUS / f"{name}.mlir"
    ptx = compile_module(load_module(path), "sm_90a").ptx
    assert ptx is not None
    case = _common.load_case_module(name)
    inputs = case.make_inputs(np.random.default_rng(3))
    on_gpu = _common.copy_inputs(inputs)
    by_interpreter = _common.copy_inputs(inputs)
    simulate(ptx, inputs["grid"], _common.flatten_args(on_gpu))
    launch(path, inputs["grid"], *_common.flatten_args(by_interpreter))
    got, want = on_gpu["arrays"], by_interpreter["arrays"]
    assert got["rev"].tobytes() == want["rev"].tobytes()
    _, atol = case.TOLERANCE["out"]
    np.testing.assert_allclose(got["out"], want["out"], rtol=0, atol=atol)


def test_scan_across_four_warps_matches_interpreter(tmp_path: Path) -> None:
    """`cumsum_f32` with 1024-element tiles: four warps, each thread holding two runs
    of four elements, so the scan crosses lanes, warps (through shared memory) and
    the thread's two runs.  Each f32 sum of k terms is within 2 (k - 1) 2^-24 sum |x|
    of the interpreter's (and of numpy's sequential cumsum); the i32 scan is exact."""
    text = (CORPUS / "cumsum_f32.mlir").read_text().replace("256", "1024")
    path = tmp_path / "cumsum_1024.mlir"
    path.write_text(text)
    ptx = compile_module(load_module(path), "sm_90a").ptx
    assert ptx is not None and ".reqntid 128, 1, 1" in ptx
    rng = np.random.default_rng(5)
    n = 2500
    x = rng.uniform(-1.0, 1.0, n).astype(np.float32)
    k = rng.integers(-50, 50, n).astype(np.int32)
    outs = [[np.full(n, np.nan, np.float32), np.zeros(n, np.int32)] for _ in range(2)]
    grid = (3, 1, 1)
    simulate(ptx, grid, [x, n, 1, k, n, 1, outs[0][0], n, 1, outs[0][1], n, 1])
    launch(path, grid, x, n, 1, k, n, 1, outs[1][0], n, 1, outs[1][1], n, 1)
    assert outs[0][1].tobytes() == outs[1][1].tobytes()
    tiles = range(0, n, 1024)
    want = np.concatenate([np.cumsum(x[s : s + 1024], dtype=np.float32) for s in tiles])
    np.testing.assert_array_equal(outs[1][0], want)  # the interpreter is sequential
    terms = np.concatenate([np.arange(min(1024, n - s)) for s in tiles])
    magnitude = np.concatenate(
        [np.cumsum(np.abs(x[s : s + 1024]), dtype=np.float64) for s in tiles]
    )
    error = np.abs(outs[0][0].astype(np.float64) - want)
    assert (error <= 2 * terms * 2.0**-24 * magnitude).all()
    assert (error > 0).any()  # tileir's order is not the sequential one
