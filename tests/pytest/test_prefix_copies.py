"""Ring copies of groups cut by a tile's edge (`async_copy._counted_copy`): where a copy's
mask is the `and` of `iota < bound` compares (`tile_bounds.mask_bounds`) that read the
tile's coordinates, the elements of a 16-byte group in bounds are its first `min(bound -
start, 8)`, and one `cp.async` reads them (`src-size`, a count its column's groups share)
and zero-fills the rest, instead of a load and a store an element.

`flash_attention_f16` with a head dimension of 60 in rows of 64 (strides stay multiples
of 8, as its signature requires): every K and V tile is cut by the edge inside a group
(columns 56..63, four in bounds).  The columns past the edge hold large values, so a copy
that reads one of them, or that drops an element in bounds, changes the result.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tileir.backend.ptx import asm_builder as ptx
from tileir.compiler import compile_module, load_module
from tileir.conversions.tileas_to_llvm import async_copy
from tileir.testing import simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 20261128
#: The head dimension of the arrays (the kernel's tiles are 64 wide).
HEAD = 60
#: What the columns past the edge hold.
BEYOND = 8.0


def _ptx() -> str:
    module = load_module(CORPUS / "flash_attention_f16.mlir")
    out = compile_module(module, "sm_90a").ptx
    assert out is not None
    return out


def _inputs() -> tuple[ModuleType, _common.KernelInputs]:
    """The case's inputs with q, k, v and out `HEAD` columns wide in rows of 64."""
    case = _common.load_case_module("flash_attention_f16")
    inputs = case.make_inputs(np.random.default_rng(SEED))
    arrays = dict(inputs["arrays"])
    for name in ("q", "k", "v"):
        a = arrays[name]
        full = np.full(a.shape, BEYOND, dtype=a.dtype)
        full[..., :HEAD] = a[..., :HEAD]
        arrays[name] = _common.strided_view(full, (*a.shape[:-1], HEAD))
    out = arrays["out"]
    arrays["out"] = _common.strided_view(
        _common.empty_output(out.shape, out.dtype), (*out.shape[:-1], HEAD)
    )
    return case, _common.make_kernel_inputs(
        params=inputs["params"],
        arrays=arrays,
        scalars=inputs["scalars"],
        constants=inputs["constants"],
        outputs=inputs["outputs"],
        grid=inputs["grid"],
    )


def _run(ptx_text: str) -> None:
    case, inputs = _inputs()
    expected = case.reference(_common.copy_inputs(inputs))
    simulate(ptx_text, inputs["grid"], _common.flatten_args(inputs))
    _common.check_outputs(case, inputs, expected)


def test_groups_cut_by_the_edge_copy_their_prefix() -> None:
    text = _ptx()
    # K and V: a count of the bytes in bounds a column of groups, computed once on the
    # edge path, then one sized copy a group: no `selp` an element (`_prefix_copy`).
    assert "min.s32 t_c0, t_c0, 8;" in text
    assert "selp.b32 t_n, t_c0, 0, t_p;" in text
    assert "selp.b32 t_n, 16, t_n, t_p;" not in text
    assert "tileir_copied" not in text  # the element path's label (`_copy`)
    _run(text)


def test_a_prefix_one_element_short_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The counts one element short (at most 7 of 8): the elements in bounds at columns
    7, 15, ... read as zeros, which numpy sees."""

    original = async_copy.PrefixCounts.emit

    def short(self: async_copy.PrefixCounts, asm: ptx.PtxAsm) -> None:
        bounds = [dataclasses.replace(b, vec=b.vec - 1) for b in self.bounds]
        original(async_copy.PrefixCounts(self.names, bounds), asm)

    monkeypatch.setattr(async_copy.PrefixCounts, "emit", short)
    text = _ptx()
    assert "min.s32 t_c0, t_c0, 7;" in text
    with pytest.raises(AssertionError):
        _run(text)
