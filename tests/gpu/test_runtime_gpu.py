"""`tileir.runtime.launch` (tileir's cubin on the GPU) against
`tileir.interpreter.launch` (the numpy reference semantics) on every corpus kernel.

Both run on copies of the same inputs; every output must agree within the kernel's
tolerance, and inputs must come back untouched from the device.  Without a CUDA
device (or without cuda-python and CuPy) every test is skipped with the reason.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tileir.diagnostics import CompileError
from tileir.interpreter import launch as interpret
from tileir.interpreter.launcher import find_entry, load
from tileir.runtime import arch_for, compile_kernel

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 0


def _runtime():
    """`tileir.runtime.launch`, or skip saying why no GPU can run it."""
    from tileir.runtime import GpuUnavailable, launch
    from tileir.runtime.launcher import backend

    try:
        backend()
    except GpuUnavailable as e:
        pytest.skip(f"no GPU check: {e.message}")
    return launch


def arch() -> str:
    from tileir.runtime.launcher import backend

    return arch_for(backend().capability())


@pytest.mark.parametrize("name", _common.kernel_names())
def test_runtime_matches_interpreter(name: str) -> None:
    run_on_gpu = _runtime()
    case = _common.load_case_module(name)
    inputs = case.make_inputs(np.random.default_rng(SEED))
    on_gpu, reference = _common.launch_copy(inputs), _common.launch_copy(inputs)
    path = CORPUS / f"{name}.tileirbc"
    try:
        compile_kernel(load(path), find_entry(load(path), None).sym_name.data, arch())
    except CompileError as e:  # what tileir cannot compile yet (test_corpus_compile's job)
        pytest.xfail(f"tileir cannot compile {name}: {e.format()}")
    run_on_gpu(path, inputs["grid"], *_common.flatten_args(on_gpu))
    interpret(path, inputs["grid"], *_common.flatten_args(reference))
    for n, a in inputs["arrays"].items():
        got, want = on_gpu["arrays"][n], reference["arrays"][n]
        if n not in inputs["outputs"]:
            np.testing.assert_array_equal(got, a, err_msg=f"the GPU changed input {n}")
            continue
        rtol, atol = case.TOLERANCE[n]
        floating = want.dtype.kind in "fV"
        np.testing.assert_allclose(
            got.astype(np.float64) if floating else got,
            want.astype(np.float64) if floating else want,
            rtol=rtol,
            atol=atol,
            equal_nan=True,
            err_msg=f"{name}: output {n}, GPU vs interpreter",
        )
