"""`benchmarks/bench_gpu.py` (the GPU kernel-time table of `make bench`) on a machine
without a GPU: it says so and succeeds, and its accounting (bytes per kernel, GEMM
FLOPs, the tensor-core peak of a device) is what the table divides by."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_gpu  # noqa: E402  # pyright: ignore[reportMissingImports]


def test_without_a_gpu_it_reports_and_succeeds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import tileir.runtime.launcher as runtime
    from tileir.runtime import GpuUnavailable

    def no_gpu(ordinal: int = 0) -> None:
        raise GpuUnavailable("no usable CUDA GPU: none here")

    monkeypatch.setattr(runtime, "_BACKEND", None)
    monkeypatch.setattr(runtime, "open_backend", no_gpu)
    assert bench_gpu.main([]) == 0
    assert (
        "GPU kernel times: not measured (no usable CUDA GPU: none here)" in capsys.readouterr().out
    )


def test_accounting_of_the_gemm_cases() -> None:
    case = bench_gpu._common.load_case_module("gemm_e4m3_scaled")
    inputs = case.make_inputs(np.random.default_rng(0))
    assert case.flops(inputs) == 2 * 200 * 112 * 192
    # a and b in f8 (one byte each), c in bf16.
    assert bench_gpu.array_bytes(inputs) == 200 * 192 + 192 * 112 + 2 * 200 * 112
    assert bench_gpu.operand_type(inputs) == "f8"
    batched = bench_gpu._common.load_case_module("batched_matmul_f16")
    assert batched.flops(batched.make_inputs(np.random.default_rng(0))) == 2 * 4 * 64 * 96 * 64


def test_tensor_peak_prefers_the_longest_name() -> None:
    assert bench_gpu.tensor_peak("NVIDIA H100 PCIe", "f16") == 756.0
    assert bench_gpu.tensor_peak("NVIDIA H100 80GB HBM3", "bf16") == 989.4
    assert bench_gpu.tensor_peak("NVIDIA H200", "f8") == 1978.9
    assert bench_gpu.tensor_peak("NVIDIA A100-SXM4-80GB", "f8") is None  # no fp8 MMA
    assert bench_gpu.tensor_peak("Some Future GPU", "f16") is None


@pytest.mark.parametrize("name", sorted(bench_gpu.LARGE))
def test_large_shapes_reach_the_inputs(name: str) -> None:
    """Each `--large` row runs at its own shape: a case built from a `GemmCase` or
    `AttentionCase` took its shape at import, so setting module constants alone left the
    GEMMs at their corpus shapes (a 2026-11-27 finding: the 4096^3 rows would have timed
    a 128x96x96 product).  Checked on the grid and the first array's shape, without
    making the arrays (a 8192^2 operand is 128 MiB)."""
    case, inputs = _large_inputs_shapes(name)
    want = bench_gpu.LARGE[name]
    arrays = inputs["arrays"]
    first = next(iter(arrays.values()))
    if "shape" in want and len(want["shape"]) == 3 and "kv_tiles" not in want:
        m, _, k = want["shape"]
        assert first.shape == (m, k)
    elif "kv_tiles" in want:
        b, h, m = want["shape"]
        assert first.shape[:3] == (b, h, m)
        # The kernel splits bid(1) by its own head count: only batches may grow (on an
        # H200, 16 heads where the kernel has 2 left 7/8 of the output unwritten).
        assert h == case.CASE.shape[1]
        assert arrays["k"].shape[2] == want["kv_tiles"] * case.CASE.seq
        assert case.flops(inputs) > 0
    else:
        for constant, value in want.items():
            assert getattr(case, constant) == value
        assert max(first.shape) >= 2048 or first.size >= 1 << 20


def _large_inputs_shapes(name: str) -> tuple[Any, dict[str, Any]]:
    """`case_inputs(name, large=True)` with numpy's generator replaced by one that only
    shapes its draws."""

    class Shapes:
        """Every draw (`uniform(low, high, size)`, `integers(low, high, size, dtype=)`,
        ...) is zeros of its size: calloc'd, so 8192^2 operands cost no time."""

        def __getattr__(self, method: str) -> object:
            def draw(*args: object, size: object = None, dtype: object = np.float32) -> object:
                return np.zeros(size if size is not None else args[-1], dtype)  # type: ignore[call-overload]

            return draw

    original = np.random.default_rng
    try:
        np.random.default_rng = lambda seed=None: Shapes()  # type: ignore[assignment]
        return bench_gpu.case_inputs(name, large=True)
    finally:
        np.random.default_rng = original


def test_attention_flops_count_the_two_products() -> None:
    case = bench_gpu._common.load_case_module("flash_attention_f16")
    inputs = case.make_inputs(np.random.default_rng(0))
    # (1 batch, 2 heads, 80 queries), 3 tiles of 64 keys, d = 64: q @ k^T and p @ v.
    assert case.CASE.flops(inputs) == 2 * 2 * (1 * 2 * 80 * 192 * 64)
    causal = bench_gpu._common.load_case_module("flash_attention_causal_bf16")
    pairs = sum(r + 1 for r in range(192))
    assert causal.CASE.flops(causal.make_inputs(np.random.default_rng(0))) == 4 * 2 * 64 * pairs


FAKE_WORKER = """
import json, sys, time
names = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--only"]
print("@info " + json.dumps({"device": "Fake", "major": 9, "minor": 0, "arch": "sm_90a",
                             "hbm": 1.0}), flush=True)
for n in names:
    print("@start " + n, flush=True)
    if n == "hangs":
        time.sleep(60)
    if n == "crashes":
        sys.exit(3)
    print("@row " + json.dumps(["`%s`" % n, "1.0"] + [""] * 9), flush=True)
"""


def test_watchdog_turns_a_hung_kernel_into_a_row_and_goes_on(tmp_path: Path) -> None:
    """A launch that never completes (a deadlocked mbarrier wait) cannot be interrupted
    inside its process: the supervisor kills the worker, records HANG, and runs the
    kernels after it in a new worker; a worker that dies inside a kernel is a row too."""
    worker = tmp_path / "worker.py"
    worker.write_text(FAKE_WORKER)
    args = bench_gpu.argparse.Namespace(watchdog=1.0, check=True)
    names = ["first", "hangs", "second", "crashes", "third"]
    info, rows = bench_gpu.supervise(args, [], names, worker=[sys.executable, str(worker)])
    assert info is not None and info["device"] == "Fake"
    assert [r[0] for r in rows] == [f"`{n}`" for n in names]
    assert rows[1][1].startswith("HANG")
    assert rows[3][1] == "crashes".replace("crashes", "crashed: exit 3")
    assert [rows[i][1] for i in (0, 2, 4)] == ["1.0"] * 3
    assert all(len(r) == len(bench_gpu.table_header(args)) for r in rows)


def test_large_shapes_leave_the_shared_case_modules_alone() -> None:
    """`--large` works on private copies of the case modules: the corpus tests in the
    same process keep their shapes."""
    shared = bench_gpu._common.load_case_module("gemm_e4m3_scaled")
    _large_inputs_shapes("gemm_e4m3_scaled")
    _large_inputs_shapes("gemm_f16")
    assert shared.M == 200
    gemm = bench_gpu._common.load_case_module("gemm_f16")
    assert gemm.make_inputs(np.random.default_rng(0))["arrays"]["a"].shape == (128, 96)


def test_a_session_cut_short_keeps_its_rows(tmp_path: Path) -> None:
    """SIGTERM (what `timeout` sends a GPU session's table) kills the worker and returns
    the rows measured so far, the rest marked: the 2026-11-27 H200 session lost its large
    table's markdown to `timeout` and kept only the stderr lines."""
    import os
    import signal
    import threading

    worker = tmp_path / "worker.py"
    worker.write_text(FAKE_WORKER)
    args = bench_gpu.argparse.Namespace(watchdog=30.0, check=False)
    names = ["first", "hangs", "third"]
    timer = threading.Timer(3.0, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    try:
        info, rows = bench_gpu.supervise(args, [], names, worker=[sys.executable, str(worker)])
    finally:
        timer.cancel()
    assert info is not None
    assert rows[0][:2] == ["`first`", "1.0"]
    assert [r[:2] for r in rows[1:]] == [
        ["`hangs`", "not run: interrupted"],
        ["`third`", "not run: interrupted"],
    ]


def test_launch_one_names_what_it_cannot_launch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gpu_launch_one.py` (a kernel alone, for ncu or compute-sanitizer) says which cubin
    is missing and why, and fails, rather than launching something else."""
    import json

    import gpu_launch_one  # pyright: ignore[reportMissingImports]

    manifest = {
        "kernels": {"gemm_f16": {"tileir": {"block": [256, 1, 1]}, "tileiras": {"error": "no"}}}
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert gpu_launch_one.main([str(tmp_path), "gemm_f16", "tileiras"]) == 1
    assert "gemm_f16: no tileiras cubin (no)" in capsys.readouterr().err
    assert gpu_launch_one.main([str(tmp_path), "vadd_f32", "tileir", "--large"]) == 1
    assert "vadd_f32: no tileir cubin (not in the manifest)" in capsys.readouterr().err


def test_a_prebuilt_cubin_comes_with_its_launch_block(tmp_path: Path) -> None:
    """tileir's cubin launches with its `.reqntid` block, tileiras's with (1, 1, 1) as
    cuTile launches Tile IR cubins; a compiler's error is the reason there is none."""
    (tmp_path / "k.tileir.cubin").write_bytes(b"ours")
    (tmp_path / "k.tileiras.cubin").write_bytes(b"theirs")
    entries: dict[str, Any] = {
        "k": {"tileir": {"block": [384, 1, 1]}, "tileiras": {"block": [256, 1, 1]}}
    }
    assert bench_gpu.prebuilt_cubin(tmp_path, entries, "k", "tileir") == (b"ours", (384, 1, 1))
    assert bench_gpu.prebuilt_cubin(tmp_path, entries, "k", "tileiras") == (b"theirs", (1, 1, 1))
    entries["k"]["tileiras"] = {"error": "unsupported type 'f8E8M0FNU'\nmore"}
    assert bench_gpu.prebuilt_cubin(tmp_path, entries, "k", "tileiras") == (
        "unsupported type 'f8E8M0FNU'"
    )
