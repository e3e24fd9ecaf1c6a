"""`benchmarks/bench_gpu.py` (the GPU kernel-time table of `make bench`) on a machine
without a GPU: it says so and succeeds, and its accounting (bytes per kernel, GEMM
FLOPs, the tensor-core peak of a device) is what the table divides by."""

from __future__ import annotations

import sys
from pathlib import Path

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
