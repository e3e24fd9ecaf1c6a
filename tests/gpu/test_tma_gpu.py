"""The TMA feeds (`compile_module(..., tma_feeds=True)`, sm_90a) on a real GPU: what the
PTX simulator cannot judge (docs/codegen.md, "TMA feeds for the rings").

* the tensor maps' field encodings (`elemtype` 10 for bf16 and 6 for f16, `rank` as
  rank - 1, dimensions innermost first, `global_stride` in bytes) and the boxes' landing
  in the swizzled layouts `wgmma` reads (A K-major, B MN-major): the TMA-fed GEMMs equal
  numpy at ragged shapes (M, N and K not multiples of the tile), a batched one too (each
  batch's map based at its batch);
* the pool of map slots: 100 launches in a row of a grid of thousands of CTAs (a slot
  that is never given back exhausts its SM's word within a launch, and the kernel waits
  forever), then launches of the same module on four streams at once with different
  shapes and inputs (a slot shared by two CTAs gives one of them the other's map);
  every launch's output is checked.

Each GPU check runs in a child process under a deadline (`TIMEOUT`, inside the session's
60 s a test): a launch that never completes is a `HANG` failure with the check's name,
and the child's death frees the GPU context for the next test, which a hung kernel in
this process would not.  The PTX is compiled here and JIT-assembled by the driver
(CuPy), as `test_corpus_gpu.py` does.  Without CuPy, a CUDA device or an sm_90a one
those checks skip.  On any machine: the compile step (the encodings the PTX writes), the
child's checks themselves with the PTX simulator as the GPU behind a fake CuPy (the
same argument lists, fills and device-side counts; they pass, and fail on one wrong
element), and the watchdog.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tileir.compiler import compile_module, load_module

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
for folder in (Path(__file__).resolve().parent, CORPUS.parents[1] / "benchmarks"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

#: Seconds a child may take (import, JIT, inputs, launches, checks) before it is a HANG.
TIMEOUT = 45
#: Ragged shapes (M, N, K): no dimension a multiple of its tile, N and K multiples of 8
#: (TMA's 16-byte strides, as the kernels' signatures declare), K past the ring's stages.
RAGGED = {
    "gemm_bf16_two_warpgroups": (328, 264, 200),  # 128x128x32 tiles: B two 128 B boxes
    "gemm_f16": (200, 136, 296),  # 64x32x32
    "gemm_bf16_deep_k": (136, 104, 1000),  # 64x64x32: 32 K steps
    # B, M, N, K on 64x64x64 tiles: each batch's map base moved by the batch's offset.
    "batched_matmul_2d_f16": (3, 136, 200, 264),
}
#: Launches in a row, and a shape whose grid is thousands of CTAs, per kernel.
LAUNCHES = 100
BIG_GRID = {
    "gemm_bf16_two_warpgroups": (6000, 5992, 72),  # 47 x 47 = 2209 CTAs of 384 threads
    "gemm_f16": (4040, 2056, 72),  # 64 x 65 = 4160 CTAs of 256 threads
}
#: One shape per stream (different dimensions, so different maps), rounds of launches.
STREAM_SHAPES = [(2000, 1992, 136), (1736, 2504, 200), (2504, 1000, 72), (1200, 3000, 104)]
ROUNDS = 8
#: f32 sums of up to 1000 products of values in [-1, 1] (a wrong map is off by O(1)).
TOLERANCE = (1e-4, 1e-3)


@functools.cache
def tma_ptx(name: str) -> str:
    """tileir's sm_90a PTX of corpus kernel `name` with its rings fed by TMA."""
    ptx = compile_module(load_module(CORPUS / f"{name}.mlir"), "sm_90a", tma_feeds=True).ptx
    assert ptx is not None
    return ptx


def gemm_case(name: str, shape: tuple[int, int, int]) -> Any:
    """Corpus GEMM `name`'s case (its tiles and operand type) at `shape`."""
    case = _common.load_case_module(name)
    return dataclasses.replace(case._CASE, shape=shape)


def case_at(name: str, shape: tuple[int, ...]) -> tuple[Any, tuple[float, float]]:
    """Corpus kernel `name`'s case at `shape` (a `GemmCase`'s M, N, K, or a batched
    case's B, M, N, K module constants, set on a private copy of its module) and the
    tolerance of its `c`: the case's own, no tighter than `TOLERANCE`."""
    if len(shape) == 3:
        m, n, k = shape
        case, own = gemm_case(name, (m, n, k)), (0.0, 0.0)
    else:
        from bench_gpu import _fresh_case_module  # pyright: ignore[reportMissingImports]

        case = _fresh_case_module(name)
        case.B, case.M, case.N, case.K = shape
        own = case.TOLERANCE["c"]
    return case, (max(own[0], TOLERANCE[0]), max(own[1], TOLERANCE[1]))


def run_child(cmd: list[str], timeout: float) -> tuple[str, str]:
    """Run `cmd`: ("ok" | "failed" | "HANG", its output); a child past `timeout` is
    killed (and with it its GPU context)."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return "HANG", out
    return ("ok" if proc.returncode == 0 else "failed"), proc.stdout + proc.stderr


def on_gpu(check: str, name: str, spec: dict[str, Any], tmp_path: Path) -> str:
    """Run `check` of this file's child part on kernel `name`'s TMA-fed PTX; fail with
    its output (or as a HANG) unless it succeeds."""
    _sm90a_device()
    path = tmp_path / f"{name}.ptx"
    path.write_text(tma_ptx(name))
    cmd = [sys.executable, __file__, check, name, str(path), json.dumps(spec)]
    status, output = run_child(cmd, TIMEOUT)
    if status == "HANG":
        pytest.fail(
            f"HANG: {check} of {name} did not finish in {TIMEOUT} s (a pool slot never "
            f"given back, or a box whose bytes never arrive): killed\n{output[-3000:]}"
        )
    assert status == "ok", f"{check} of {name}:\n{output[-3000:]}"
    return output


def _sm90a_device() -> None:
    from test_corpus_gpu import _device  # pyright: ignore[reportMissingImports]

    _, arch = _device()
    if arch != "sm_90a":
        pytest.skip(f"the TMA feeds are sm_90a's; the device is {arch}")


# --- on any machine -------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(RAGGED))
def test_the_tma_builds_compile(name: str) -> None:
    """What the GPU tests launch: every operand by TMA boxes through device-built maps,
    one entry with its block, the shapes' strides TMA can map."""
    from test_corpus_gpu import _kernel_entry  # pyright: ignore[reportMissingImports]

    ptx = tma_ptx(name)
    assert "cp.async.bulk.tensor.2d" in ptx and "cp.async.mbarrier.arrive" not in ptx, name
    # The ISA's elemtype codes (the driver's enum has bf16 at 9), the rank less one.
    code = 10 if "bf16" in name else 6
    assert re.findall(r"replace\.tile\.elemtype\S* \[%r\d+\], (\d+);", ptx) == [str(code)] * 2
    assert set(re.findall(r"replace\.tile\.rank\S* \[%r\d+\], (\d+);", ptx)) == {"1"}
    assert _kernel_entry(ptx)[1][0] in (256, 384)
    for shape in [RAGGED[name], BIG_GRID.get(name, RAGGED[name]), *STREAM_SHAPES]:
        assert shape[-2] % 8 == 0 and shape[-1] % 8 == 0, shape
    case = _common.load_case_module(name)
    tiles = (case.TILE_M, case.TILE_N, case.TILE_K)
    assert all(d % t for d, t in zip(RAGGED[name][-3:], tiles, strict=True)), "a ragged shape"


def test_a_hang_is_a_failure_not_a_stuck_session() -> None:
    status, _ = run_child([sys.executable, "-c", "import time; time.sleep(30)"], 1)
    assert status == "HANG"
    assert run_child([sys.executable, "-c", "raise SystemExit(3)"], 10)[0] == "failed"


def test_the_child_checks_what_it_is_given() -> None:
    """The child part's inputs and references, without a GPU: a shape per stream, each
    with its own values."""
    sets = [_inputs("gemm_f16", list(s), seed) for seed, s in enumerate(STREAM_SHAPES[:2])]
    assert [d["arrays"]["a"].shape for d, _ in sets] == [(2000, 136), (1736, 200)]
    (first, want), _ = sets
    assert want.shape == (2000, 1992) and want.dtype == np.float32
    np.testing.assert_allclose(
        want[:3, :3],
        first["arrays"]["a"][:3].astype(np.float64) @ first["arrays"]["b"][:, :3],
        rtol=1e-6,
    )


class _HostArray(np.ndarray):
    """A numpy array as `_FakeCupy` hands it out: `.get()` copies it to the host."""

    def get(self) -> np.ndarray:
        return np.array(self)


class _FakeCupy:
    """The part of CuPy the child uses, on the host, with tileir's PTX simulator as the
    GPU: a launch runs the PTX on the arrays in place (the TMA boxes, maps and mbarriers
    as `tileir.testing.ptx_tma` models them, not the maps' bit encoding); from launch
    `wrong_at` on one element of the output is made wrong, to show the checks fail."""

    float32, int64, nan = np.float32, np.int64, np.nan
    count_nonzero, isclose = staticmethod(np.count_nonzero), staticmethod(np.isclose)

    def __init__(self, ptx: str, wrong_at: int | None = None) -> None:
        self.ptx, self.wrong_at, self.launches = ptx, wrong_at, 0
        stream = type("Stream", (), {"__enter__": lambda s: s, "__exit__": lambda s, *a: None})
        sync = type("Runtime", (), {"deviceSynchronize": staticmethod(lambda: None)})
        self.cuda = type("Cuda", (), {"Stream": lambda _, **k: stream(), "runtime": sync})()

    def asarray(self, a: Any) -> _HostArray:
        return np.array(a).view(_HostArray)

    def zeros(self, shape: Any, dtype: Any) -> _HostArray:
        return np.zeros(shape, dtype).view(_HostArray)

    def RawModule(self, path: str) -> Any:  # CuPy's name
        return type("Module", (), {"get_function": lambda _, entry: self.launch})()

    def launch(self, grid: Any, block: Any, args: Any, stream: Any = None) -> None:
        from tileir.testing import simulate

        flat = [
            np.asarray(x) if isinstance(x, np.ndarray) else int(x)  # np.int32 -> int
            for x in args
        ]
        simulate(self.ptx, grid, flat)
        if self.wrong_at is not None and self.launches >= self.wrong_at:
            c = [x for x in flat if isinstance(x, np.ndarray)][-1]  # after a and b
            c[..., -1, -1] += 1
        self.launches += 1


#: Small ragged shapes for the simulator (a second or less a launch).
SIMULATED = {
    "gemm_bf16_two_warpgroups": [136, 136, 72],
    "gemm_f16": [72, 40, 104],
    "gemm_bf16_deep_k": [72, 40, 104],
    "batched_matmul_2d_f16": [2, 72, 72, 72],
}


@pytest.mark.parametrize("name", sorted(SIMULATED))
def test_the_checks_with_the_simulator_as_the_gpu(name: str, tmp_path: Path) -> None:
    """The child's checks, through the same argument lists and device-side comparisons,
    on the TMA-fed PTX run by the simulator behind a fake CuPy: the PTX reads the
    arguments as the checks pass them and equals numpy; a wrong element fails them."""
    path = tmp_path / "k.ptx"
    path.write_text(tma_ptx(name))
    plans = [("ragged", {"shape": SIMULATED[name]})]
    if name == "gemm_f16":
        small = {"shapes": [SIMULATED[name], [136, 64, 40]], "rounds": 2}
        plans += [("loop", {"shape": SIMULATED[name], "launches": 3}), ("streams", small)]
    for check, spec in plans:
        assert CHECKS[check](_Launcher(str(path), _FakeCupy(tma_ptx(name))), name, spec)
    check, spec = plans[-1]
    with pytest.raises(AssertionError):
        wrong = _FakeCupy(tma_ptx(name), wrong_at=0 if check == "ragged" else 1)
        CHECKS[check](_Launcher(str(path), wrong), name, spec)


# --- on an sm_90a GPU (each check in a child process) ---------------------------------


@pytest.mark.parametrize("name", sorted(RAGGED))
def test_tma_fed_gemm_at_a_ragged_shape_equals_numpy(name: str, tmp_path: Path) -> None:
    on_gpu("ragged", name, {"shape": RAGGED[name]}, tmp_path)


@pytest.mark.parametrize("name", sorted(BIG_GRID))
def test_pool_slots_are_free_again_after_each_launch(name: str, tmp_path: Path) -> None:
    on_gpu("loop", name, {"shape": BIG_GRID[name], "launches": LAUNCHES}, tmp_path)


@pytest.mark.parametrize("name", sorted(BIG_GRID))
def test_concurrent_launches_on_four_streams(name: str, tmp_path: Path) -> None:
    on_gpu("streams", name, {"shapes": STREAM_SHAPES, "rounds": ROUNDS}, tmp_path)


# --- the child part: python test_tma_gpu.py CHECK NAME PTX SPEC -----------------------


def _inputs(name: str, shape: list[int], seed: int) -> tuple[Any, np.ndarray]:
    case, _ = case_at(name, tuple(shape))
    inputs = case.make_inputs(np.random.default_rng(seed))
    return inputs, case.reference(inputs)["c"]


class _Launcher:
    """The PTX's kernel, loaded once (one module: one slot pool for every launch)."""

    def __init__(self, ptx_path: str, cupy: Any = None) -> None:
        from test_corpus_gpu import _kernel_entry  # pyright: ignore[reportMissingImports]

        if cupy is None:
            import cupy
        self.cupy = cupy
        entry, self.block = _kernel_entry(Path(ptx_path).read_text())
        self.kernel = cupy.RawModule(path=ptx_path).get_function(entry)

    def upload(self, inputs: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        from test_corpus_gpu import _launch_args  # pyright: ignore[reportMissingImports]

        args, device = _launch_args(self.cupy, inputs)
        return tuple(args), device

    def bad(self, c: Any, want: Any) -> Any:
        """How many of `c`'s elements are off `want` (NaN counts), on the device."""
        rtol, atol = TOLERANCE
        return self.cupy.count_nonzero(~self.cupy.isclose(c, want, rtol=rtol, atol=atol))


def _check_ragged(launcher: _Launcher, name: str, spec: dict[str, Any]) -> str:
    from test_corpus_gpu import _read_back  # pyright: ignore[reportMissingImports]

    inputs, want = _inputs(name, spec["shape"], 0)
    args, device = launcher.upload(inputs)
    launcher.kernel(inputs["grid"], launcher.block, args)
    launcher.cupy.cuda.runtime.deviceSynchronize()
    for n in ("a", "b"):
        got = _read_back(device[n], inputs["arrays"][n])
        np.testing.assert_array_equal(got, inputs["arrays"][n], err_msg=f"input {n} changed")
    got = _read_back(device["c"], inputs["arrays"]["c"]).astype(np.float64)
    rtol, atol = case_at(name, tuple(spec["shape"]))[1]
    np.testing.assert_allclose(got, want, rtol, atol, err_msg=f"{name} at {spec['shape']}")
    return f"{name} {spec['shape']}: equals numpy"


def _check_loop(launcher: _Launcher, name: str, spec: dict[str, Any]) -> str:
    cupy = launcher.cupy
    inputs, want = _inputs(name, spec["shape"], 1)
    args, device = launcher.upload(inputs)
    c, reference = device["c"].view(cupy.float32), cupy.asarray(want)
    bad = cupy.zeros((spec["launches"],), dtype=cupy.int64)
    for i in range(spec["launches"]):
        c.fill(cupy.nan)
        launcher.kernel(inputs["grid"], launcher.block, args)
        bad[i] = launcher.bad(c.reshape(want.shape), reference)
    cupy.cuda.runtime.deviceSynchronize()
    counts = bad.get()
    wrong = {i: int(n) for i, n in enumerate(counts) if n}
    assert not wrong, f"wrong elements by launch: {wrong}"
    return f"{name} {spec['shape']}: {spec['launches']} launches of {inputs['grid']} CTAs, all ok"


def _check_streams(launcher: _Launcher, name: str, spec: dict[str, Any]) -> str:
    cupy = launcher.cupy
    runs = []
    for seed, shape in enumerate(spec["shapes"]):
        inputs, want = _inputs(name, shape, 100 + seed)
        args, device = launcher.upload(inputs)
        c = device["c"].view(cupy.float32).reshape(want.shape)
        runs.append(
            (cupy.cuda.Stream(non_blocking=True), inputs, args, c, want, cupy.asarray(want))
        )
    bad = cupy.zeros((len(runs), spec["rounds"]), dtype=cupy.int64)
    cupy.cuda.runtime.deviceSynchronize()  # the streams do not wait for the null stream
    for r in range(spec["rounds"]):
        for s, (stream, inputs, args, c, _, reference) in enumerate(runs):
            with stream:
                c.fill(cupy.nan)
                launcher.kernel(inputs["grid"], launcher.block, args, stream=stream)
                bad[s, r] = launcher.bad(c, reference)
    cupy.cuda.runtime.deviceSynchronize()
    counts = bad.get()
    assert not counts.any(), f"wrong elements per stream and round:\n{counts}"
    for _, _, _, c, want, _ in runs:  # the device-side comparison, judged once on the host
        np.testing.assert_allclose(c.get(), want, *TOLERANCE)
    return f"{name}: {len(runs)} streams x {spec['rounds']} rounds, all ok"


CHECKS = {"ragged": _check_ragged, "loop": _check_loop, "streams": _check_streams}


def main(argv: list[str]) -> int:
    check, name, ptx_path, spec = argv
    print(CHECKS[check](_Launcher(ptx_path), name, json.loads(spec)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
