"""The GPU runtime's host side, which needs no GPU: targets, block sizes read from
PTX, the cubin tileir builds, and the diagnostic when no GPU can run it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileir.interpreter.launcher import find_entry, load
from tileir.runtime import GpuUnavailable, arch_for, block_size, compile_kernel, launch

VADD = Path(__file__).resolve().parents[1] / "corpus" / "vadd_f32.tileirbc"


def test_arch_for_capability() -> None:
    assert arch_for((8, 0)) == "sm_80"
    assert arch_for((8, 9)) == "sm_89"
    assert arch_for((9, 0)) == "sm_90a"
    assert arch_for((10, 0)) == "sm_100a"
    with pytest.raises(GpuUnavailable, match=r"compute capability 7\.5"):
        arch_for((7, 5))


def test_block_size_is_the_entrys_reqntid() -> None:
    ptx = (
        ".visible .entry a(\n\t.param .u64 a_param_0\n)\n.reqntid 64, 1, 1\n{\n}\n"
        ".visible .entry b(\n\t.param .u64 b_param_0\n)\n.reqntid 256\n{\n}\n"
    )
    assert block_size(ptx, "a") == (64, 1, 1)
    assert block_size(ptx, "b") == (256, 1, 1)
    with pytest.raises(Exception, match=r"no \.reqntid"):
        block_size(ptx, "c")


def test_compile_kernel_builds_a_cubin_once() -> None:
    module = load(VADD)
    name = find_entry(module, None).sym_name.data
    kernel = compile_kernel(module, name, "sm_90a")
    assert kernel.cubin.startswith(b"\x7fELF")
    assert kernel.block == block_size(kernel.ptx, name)
    assert compile_kernel(module, name, "sm_90a") is kernel


def test_launch_without_a_gpu_is_a_diagnostic() -> None:
    from tileir.runtime.launcher import backend

    try:
        backend()
    except GpuUnavailable:
        pass
    else:
        pytest.skip("a GPU is available: tests/gpu covers the launch")
    x = np.zeros(8, np.float32)
    with pytest.raises(GpuUnavailable, match="no usable CUDA GPU"):
        launch(VADD, 1, x, 8, 1, x.copy(), 8, 1, x.copy(), 8, 1)
