"""tf32 on a real GPU: what the PTX simulator models and tileir's lowering assumes.

* `ftof` to tf32 in every rounding mode (tileir's integer rounding, and `cvt.rna.tf32.f32`
  for `nearest_away`), compiled for the device and for sm_80 (JIT-assembled by the
  driver), equals the interpreter bit for bit;
* `mma.sync` m16n8k8 tf32 and `wgmma` m64nNk8 tf32 on operand words that are not tf32
  values read only their upper 19 bits (truncation), as `tileir/testing/ptx_mma.py` and
  `ptx_wgmma.py` model it: the hand-written kernels of `tests/pytest/test_ptx_mma.py`
  and `test_ptx_wgmma.py`;
* corpus kernel `gemm_tf32` compiled for sm_80 (`mma.sync`) runs there too
  (`test_corpus_gpu.py` runs it for the device's own target: `wgmma` on sm_90a).

Without CuPy or a CUDA device every test is skipped with the reason (CI has neither).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tileir.compiler import compile_module, load_module, parse_module_text
from tileir.interpreter import launch

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS / "corpus", TESTS / "pytest"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]
from elementwise_kernels import kernel_text  # noqa: E402  # pyright: ignore[reportMissingImports]
from test_corpus_gpu import _device, _kernel_entry, _launch_args, _read_back  # noqa: E402
from test_tf32_codegen import (  # noqa: E402  # pyright: ignore[reportMissingImports]
    MODES,
    inputs,
    oracle,
    same,
)


def _load(cupy: Any, ptx: str, tmp_path: Path, name: str) -> tuple[Any, tuple[int, int, int]]:
    entry, block = _kernel_entry(ptx)
    path = tmp_path / f"{name}.ptx"
    path.write_text(ptx)
    return cupy.RawModule(path=str(path)).get_function(entry), block


def _tf32(x: np.ndarray) -> np.ndarray:
    return (np.ascontiguousarray(x, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(
        np.float32
    )


@pytest.mark.parametrize("target", ["device", "sm_80"])
@pytest.mark.parametrize("mode", MODES)
def test_ftof_to_tf32_on_gpu(mode: str, target: str, tmp_path: Path) -> None:
    cupy, arch = _device()
    rounding = "" if mode == "nearest_even" else f" rounding<{mode}>"
    text = kernel_text([f"%t = ftof %x0{rounding} -> tf32", "%r = ftof %t -> f32"], ["f32"], "f32")
    text = text.replace("%r = ftof %t : tile<128xf32>", "%r = ftof %t : tile<128xtf32>")
    ptx = compile_module(parse_module_text(text, "k.mlir"), arch if target == "device" else target)
    assert ptx.ptx is not None
    kernel, block = _load(cupy, ptx.ptx, tmp_path, f"ftof_{mode}")
    x = inputs("f32")
    dx, dout = cupy.asarray(x), cupy.zeros(128, dtype=cupy.float32)
    kernel((1, 1, 1), block, (dx, dout, np.int32(128)))
    cupy.cuda.runtime.deviceSynchronize()
    got = dout.get()
    interpreted = np.zeros(128, np.float32)
    launch(parse_module_text(text, "k.mlir"), (1, 1, 1), x, interpreted, 128)
    same(got, interpreted)
    same(got, np.array([oracle(float(v), mode) for v in x], np.float32))


def test_mma_sync_tf32_reads_the_upper_19_bits_on_gpu(tmp_path: Path) -> None:
    cupy, _ = _device()
    from test_ptx_mma import (  # pyright: ignore[reportMissingImports]
        PTX,
        TF32_REPLACEMENTS,
    )

    ptx = PTX.replace("NTID", "32")
    for old, new in TF32_REPLACEMENTS:
        ptx = ptx.replace(old, new)
    path = tmp_path / "mma.ptx"
    path.write_text(ptx)
    kernel = cupy.RawModule(path=str(path)).get_function("mma")
    rng = np.random.default_rng(11)
    a = rng.uniform(-2, 2, (16, 8)).astype(np.float32)
    bt = rng.uniform(-2, 2, (8, 8)).astype(np.float32)
    c = rng.uniform(-2, 2, (16, 8)).astype(np.float32)
    d = cupy.zeros((16, 8), dtype=cupy.float32)
    kernel((1, 1, 1), (32, 1, 1), (cupy.asarray(a), cupy.asarray(bt), cupy.asarray(c), d))
    cupy.cuda.runtime.deviceSynchronize()
    got = d.get().astype(np.float64)
    truncated = _tf32(a).astype(np.float64) @ _tf32(bt).astype(np.float64).T + c
    np.testing.assert_allclose(got, truncated, rtol=1e-6, atol=1e-6)


def test_wgmma_tf32_reads_the_upper_19_bits_on_gpu(tmp_path: Path) -> None:
    cupy, arch = _device()
    if arch != "sm_90a":
        pytest.skip(f"wgmma is sm_90a's; the device is {arch}")
    from test_ptx_wgmma import (  # pyright: ignore[reportMissingImports]
        Case,
        _build,
        _expected,
    )

    cases = [
        Case(ta="tf32", tb="tf32", n=16, steps=3),
        Case(ta="tf32", tb="tf32", n=8, steps=2, a_regs=True),
    ]
    for i, case in enumerate(cases):
        ptx, (A, B, C, image) = _build(case)
        path = tmp_path / f"wg{i}.ptx"
        path.write_text(ptx)
        kernel = cupy.RawModule(path=str(path)).get_function("wg")
        d = cupy.zeros(C.shape, dtype=cupy.float32)
        args = (cupy.asarray(image), cupy.asarray(A), cupy.asarray(C), d, np.uint32(1))
        kernel((case.ctas, 1, 1), (128 * case.warpgroups, 1, 1), args)
        cupy.cuda.runtime.deviceSynchronize()
        want = _expected(case, A, B, C, True)
        np.testing.assert_allclose(d.get(), want, rtol=1e-6, atol=1e-6)


def test_gemm_tf32_for_sm80_on_gpu(tmp_path: Path) -> None:
    cupy, _ = _device()
    ptx = compile_module(load_module(TESTS / "corpus" / "gemm_tf32.mlir"), "sm_80").ptx
    assert ptx is not None and "mma.sync.aligned.m16n8k8" in ptx
    kernel, block = _load(cupy, ptx, tmp_path, "gemm_tf32")
    case = _common.load_case_module("gemm_tf32")
    data = case.make_inputs(np.random.default_rng(0))
    args, device = _launch_args(cupy, data)
    kernel(data["grid"], block, tuple(args))
    cupy.cuda.runtime.deviceSynchronize()
    got = _read_back(device["c"], data["arrays"]["c"])
    rtol, atol = case.TOLERANCE["c"]
    np.testing.assert_allclose(got, case.reference(data)["c"], rtol=rtol, atol=atol)
