"""Shared memory past 48 KiB on a GPU: the static arena of sm_90a/sm_100a and the dynamic
arena tileir gives Ampere (docs/codegen.md), each launched through `tileir.runtime` and
compared with the interpreter.

`gemm_bf16_big_tile` needs 52-55 KiB.  For the device's own target its cubin declares
that statically; its sm_80 PTX, which the driver can JIT for any newer GPU, puts it in
dynamic shared memory, which the runtime must read from the module and opt the kernel
in to.  Skips without a CUDA device.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from tileir.compiler import compile_module, load_module
from tileir.interpreter import launch as interpret

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

NAME = "gemm_bf16_big_tile"


def _backend():
    from tileir.runtime import GpuUnavailable
    from tileir.runtime.launcher import backend

    try:
        return backend()
    except GpuUnavailable as e:
        pytest.skip(f"no GPU check: {e.message}")


def _check_against_interpreter(cubin: bytes | None, block: tuple[int, int, int]) -> None:
    from tileir.runtime import launch

    case = _common.load_case_module(NAME)
    inputs = case.make_inputs(np.random.default_rng(0))
    on_gpu, reference = _common.launch_copy(inputs), _common.launch_copy(inputs)
    path = CORPUS / f"{NAME}.tileirbc"
    launch(path, on_gpu["grid"], *_common.flatten_args(on_gpu), cubin=cubin, block=block)
    interpret(path, reference["grid"], *_common.flatten_args(reference))
    rtol, atol = case.TOLERANCE["c"]
    np.testing.assert_allclose(
        on_gpu["arrays"]["c"], reference["arrays"]["c"], rtol=rtol, atol=atol
    )


def test_static_arena_over_48_kib_launches() -> None:
    """tileir's own cubin for the device (static `.shared` on sm_90a and sm_100a)."""
    from tileir.interpreter.launcher import find_entry, load
    from tileir.runtime import arch_for, compile_kernel

    arch = arch_for(_backend().capability())
    module = load(CORPUS / f"{NAME}.tileirbc")
    kernel = compile_kernel(module, find_entry(module, None).sym_name.data, arch)
    smem = re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]", kernel.ptx)
    dynamic = "__tileir_dynamic_smem[]" in kernel.ptx
    assert dynamic or (smem and int(smem[0]) > 48 * 1024), "the kernel no longer needs > 48 KiB"
    _check_against_interpreter(kernel.cubin, kernel.block)


def test_dynamic_arena_over_48_kib_launches() -> None:
    """The sm_80 PTX (dynamic shared memory), JIT-compiled by the driver for the device."""
    _backend()
    ptx = compile_module(load_module(CORPUS / f"{NAME}.tileirbc"), "sm_80").ptx
    assert ptx is not None and "__tileir_dynamic_smem[]" in ptx
    block = re.search(r"\.reqntid (\d+), (\d+), (\d+)", ptx)
    assert block is not None
    dims = (int(block.group(1)), int(block.group(2)), int(block.group(3)))
    _check_against_interpreter(ptx.encode() + b"\0", dims)
