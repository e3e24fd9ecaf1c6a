"""The Python front door (issue 19, item 5): `tileir.compile(ct_kernel, signature,
arch=...)` from a cuTile `@ct.kernel`, `Compilation.asm` (stage -> text, as Triton's
`kernel.asm`) and `Compilation.remarks` (the compiler's decisions, also in the HTML)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tileir
from tileir.pipelines import STAGES

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


@pytest.fixture(scope="module")
def kernel_and_params() -> tuple[Any, list[Any]]:
    ct = pytest.importorskip("cuda.tile")
    from cuda.tile.compilation import ArrayConstraint

    @ct.kernel
    def double(x, out):  # pyright: ignore[reportUnknownParameterType, reportMissingParameterType]
        i = ct.bid(0)
        t = ct.load(x, (i,), (1024,))
        ct.store(out, (i,), t * 2.0)

    f32 = ArrayConstraint(
        ct.float32,
        1,
        index_dtype=ct.int32,
        stride_lower_bound_incl=0,
        alias_groups=[],
        may_alias_internally=False,
        stride_constant=[1],
        base_addr_divisible_by=16,
    )
    return double, [f32, f32]


def test_compile_takes_a_cutile_kernel_and_its_signature(
    kernel_and_params: tuple[Any, list[Any]],
) -> None:
    from cuda.tile.compilation import CallingConvention, KernelSignature

    kernel, params = kernel_and_params
    result = tileir.compile(kernel, params, arch="sm_90")
    assert result.arch == "sm_90a" and list(result.stages) == list(STAGES)
    assert "entry @double" in result.cuda_tile.text
    assert ".visible .entry double" in result.ptx.text
    # A KernelSignature (or a list of them) is taken as cuTile takes it.
    signature = KernelSignature(params, CallingConvention.cutile_python_v1())
    again = tileir.compile(kernel, signature, arch="sm_80", stop_after="tileas")
    assert list(again.stages) == ["cuda_tile", "tileaa", "tileas"] and again.arch == "sm_80"
    # The kernel's Python lines are the locations: remarks point into this file.
    load = next(r for r in result.remarks if r.name == "GlobalLoadVectorized")
    assert load.location is not None and load.location.file == __file__
    assert "ldg_128b" in load.message


def test_a_cutile_kernel_needs_its_signature(kernel_and_params: tuple[Any, list[Any]]) -> None:
    kernel, _ = kernel_and_params
    with pytest.raises(TypeError, match="needs its signature"):
        tileir.compile(kernel, arch="sm_90")
    with pytest.raises(TypeError, match="arch must be a string"):
        tileir.compile(CORPUS / "vadd_f32.mlir", ["not", "an", "arch"])


def test_mistakes_in_the_call_say_what_to_give(kernel_and_params: tuple[Any, list[Any]]) -> None:
    """A signature of the wrong length names the kernel's parameters (cuTile's own error
    is a `zip()` deep in its export); an unknown arch is an arch, not a `--gpu-name`; a
    warp count the layouts cannot use lists the ones they can (it was a layout's
    'blocked layout extents must be powers of two')."""
    kernel, params = kernel_and_params
    with pytest.raises(
        tileir.CompileError,
        match=r"the signature gives 1 parameter\(s\), but kernel 'double' takes 2 \(x, out\)",
    ):
        tileir.compile(kernel, params[:1])
    with pytest.raises(tileir.CompileError, match="unknown arch 'sm_75'; tileir supports sm_80"):
        tileir.compile(kernel, params, arch="sm_75")
    with pytest.raises(tileir.CompileError, match="num-warps must be one of 1, 2, 4, 8, 16, 32"):
        tileir.compile(CORPUS / "vadd_f32.mlir", num_warps=3)


def test_asm_maps_each_stage_to_its_text() -> None:
    result = tileir.compile(CORPUS / "vadd_f32.mlir", "sm_90a", stop_after="tileas")
    assert list(result.asm) == ["cuda_tile", "tileaa", "tileas"]
    assert result.asm["tileas"] == result.tileas.text
    with pytest.raises(KeyError, match="no stage 'ptx'"):
        result.asm["ptx"]


def test_remarks_are_structured_and_shown() -> None:
    result = tileir.compile(CORPUS / "gemm_f16.tileirbc", arch="sm_90a")
    names = {r.name for r in result.remarks}
    assert {"WarpsPerCTA", "GlobalStoreVectorized", "TensorCoreMma"} <= names
    assert any(r.category == "TensorCore" and "wgmma" in r.message for r in result.remarks)
    assert all(r.kind in ("passed", "missed", "failed", "analysis") for r in result.remarks)
    html = result._repr_html_()  # pyright: ignore[reportPrivateUsage]
    assert "<b>remarks</b>" in html and "WarpsPerCTA" in html
    assert "**remarks**" in result._repr_markdown_()  # pyright: ignore[reportPrivateUsage]
    # stopped before nv_tileas: nothing decided yet
    assert tileir.compile(CORPUS / "gemm_f16.tileirbc", stop_after="tileaa").remarks == []


def test_without_a_gpu_the_launch_says_what_to_install() -> None:
    """Without a GPU the message says what to install and where else to run; with one,
    the launch ran, and its sum is checked instead (vadd_f32: one 1024-element tile)."""
    import numpy as np

    a = np.arange(1024, dtype=np.float32)
    b = np.ones(1024, np.float32)
    c = np.zeros(1024, np.float32)
    args = (a, 1024, 1, b, 1024, 1, c, 1024, 1)
    try:
        tileir.launch(CORPUS / "vadd_f32.mlir", (1, 1, 1), *args, backend="gpu")
    except tileir.LaunchUnavailable as e:
        assert "pip install -e '.[gpu]'" in str(e) and 'backend="interpreter"' in str(e)
    else:
        np.testing.assert_array_equal(c, a + b)
