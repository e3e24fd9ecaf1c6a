"""Ring copies of groups cut by a tile's edge (`async_copy._counted_copy`): where a copy's
mask is the `and` of `iota < bound` compares (`tile_bounds.mask_bounds`) that read the
tile's coordinates, the elements of a 16-byte group in bounds are its first `min(bound -
start, 8)`, and one `cp.async` reads them (`src-size`, a count its column's groups share)
and zero-fills the rest, instead of a load and a store an element.

`flash_attention_f16` with a head dimension of 60 in rows of 64 (strides stay multiples
of 8, as its signature requires): every K and V tile is cut by the edge inside a group
(columns 56..63, four in bounds).  The columns past the edge hold large values, so a copy
that reads one of them, or that drops an element in bounds, changes the result.

`_prefix_copy`, the form kept for masks the counts do not read, takes a group's elements
in bounds for a prefix only where that is proven: the compares read the tile's
coordinates (no view between that regroups dimensions) and the group runs up one
dimension.  A GEMM whose A mask is built 64 x 16 x 2 and reshaped to 64 x 32 (every odd
column masked off where the last compare's bound is 1) is the counter-example: a prefix
copy of it reads the odd columns.  Sub-byte elements never reach a ring copy (f4E2M1FN
is refused in memory before the lift, `f4_in_memory.py`, and gets no `cp.async` atom,
`pipeline_dot_operands.async_atom`), so its byte counts stay whole.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tileir.backend.ptx import asm_builder as ptx
from tileir.compiler import compile_module, load_module, parse_module_text
from tileir.conversions.tileas_to_llvm import async_copy
from tileir.diagnostics import CompileError
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


def _ptx(arch: str = "sm_90a") -> str:
    module = load_module(CORPUS / "flash_attention_f16.mlir")
    out = compile_module(module, arch).ptx
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


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
def test_groups_cut_by_the_edge_copy_their_prefix(arch: str) -> None:
    """On sm_90a behind the producer's whole-tile test; on sm_100a (tcgen05) in the
    one-agent rings, whose groups are cut by the edge (`async_copy.py`)."""
    text = _ptx(arch)
    # K and V: a count of the bytes in bounds a column of groups, computed once on the
    # edge path, then one sized copy a group: no `selp` an element (`_prefix_copy`).
    assert "min.s32 t_c0, t_c0, 8;" in text
    assert "selp.b32 t_n, t_c0, 0, t_p;" in text
    assert "selp.b32 t_n, 16, t_n, t_p;" not in text
    assert "tileir_copied" not in text  # the element path's label (`_copy`)
    _run(text)


def shorten_prefix_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the edge path's counts one element short (at most 7 of 8 a group): the
    mutation both targets' prefix-copy tests must catch (test_tcgen05_edge_copies.py too)."""
    original = async_copy.PrefixCounts.emit

    def short(self: async_copy.PrefixCounts, asm: ptx.PtxAsm) -> None:
        bounds = [dataclasses.replace(b, vec=b.vec - 1) for b in self.bounds]
        original(async_copy.PrefixCounts(self.names, bounds), asm)

    monkeypatch.setattr(async_copy.PrefixCounts, "emit", short)


def test_a_prefix_one_element_short_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The counts one element short (at most 7 of 8): the elements in bounds at columns
    7, 15, ... read as zeros, which numpy sees."""
    shorten_prefix_counts(monkeypatch)
    text = _ptx()
    assert "min.s32 t_c0, t_c0, 7;" in text
    with pytest.raises(AssertionError):
        _run(text)


#: The A load of `gemm_f16.mlir` as a pointer load whose mask is regrouped: `rows < m -
#: row0` over 64 x 1 x 1, `iota(16) < (k - k0) / 2` over 1 x 16 x 1 and `iota(2) < h`
#: over 1 x 1 x 2, and-ed at 64 x 16 x 2 and reshaped to the tile's 64 x 32.  Column `c`
#: of a K tile is in bounds where `c // 2 < (k - k0) / 2` and `c % 2 < h`.
_REGROUPED_PROLOGUE = """\
  %c64 = constant <i32: 64> : tile<i32>
  %c32 = constant <i32: 32> : tile<i32>
  %c2 = constant <i32: 2> : tile<i32>
  %row0 = muli %blockId_x, %c64 : tile<i32>
  %rb = subi %arg1, %row0 : tile<i32>
  %iota64 = iota : tile<64xi32>
  %iota16 = iota : tile<16xi32>
  %iota2 = iota : tile<2xi32>
  %iota32 = iota : tile<32xi32>
  %rbs = reshape %rb : tile<i32> -> tile<1xi32>
  %rbb = broadcast %rbs : tile<1xi32> -> tile<64xi32>
  %rmask = cmpi less_than %iota64, %rbb, signed : tile<64xi32> -> tile<64xi1>
  %rm3 = reshape %rmask : tile<64xi1> -> tile<64x1x1xi1>
  %rm3b = broadcast %rm3 : tile<64x1x1xi1> -> tile<64x16x2xi1>
  %hs = reshape %arg16 : tile<i32> -> tile<1xi32>
  %hb = broadcast %hs : tile<1xi32> -> tile<2xi32>
  %hmask = cmpi less_than %iota2, %hb, signed : tile<2xi32> -> tile<2xi1>
  %hm3 = reshape %hmask : tile<2xi1> -> tile<1x1x2xi1>
  %hm3b = broadcast %hm3 : tile<1x1x2xi1> -> tile<64x16x2xi1>
  %r0s = reshape %row0 : tile<i32> -> tile<1xi32>
  %r0b = broadcast %r0s : tile<1xi32> -> tile<64xi32>
  %rows = addi %iota64, %r0b : tile<64xi32>
  %strs = reshape %assume_assume_assume : tile<i32> -> tile<1xi32>
  %strb = broadcast %strs : tile<1xi32> -> tile<64xi32>
  %rowoff = muli %rows, %strb : tile<64xi32>
  %rowoff2 = reshape %rowoff : tile<64xi32> -> tile<64x1xi32>
  %rowoffb = broadcast %rowoff2 : tile<64x1xi32> -> tile<64x32xi32>
  %col2 = reshape %iota32 : tile<32xi32> -> tile<1x32xi32>
  %colb = broadcast %col2 : tile<1x32xi32> -> tile<64x32xi32>
  %as = reshape %assume : tile<ptr<f16>> -> tile<1x1xptr<f16>>
  %abase = broadcast %as : tile<1x1xptr<f16>> -> tile<64x32xptr<f16>>
  %z = constant <f16: 0.000000e+00> : tile<f16>
  %zs = reshape %z : tile<f16> -> tile<1x1xf16>
  %zeros = broadcast %zs : tile<1x1xf16> -> tile<64x32xf16>
"""

_REGROUPED_LOAD = """\
    %k0 = muli %loopIdx, %c32 : tile<i32>
    %kb = subi %arg2, %k0 : tile<i32>
    %kh = divi %kb, %c2 signed rounding<zero> : tile<i32>
    %khs = reshape %kh : tile<i32> -> tile<1xi32>
    %khb = broadcast %khs : tile<1xi32> -> tile<16xi32>
    %cmask = cmpi less_than %iota16, %khb, signed : tile<16xi32> -> tile<16xi1>
    %cm3 = reshape %cmask : tile<16xi1> -> tile<1x16x1xi1>
    %cm3b = broadcast %cm3 : tile<1x16x1xi1> -> tile<64x16x2xi1>
    %m3 = andi %rm3b, %cm3b : tile<64x16x2xi1>
    %m3h = andi %m3, %hm3b : tile<64x16x2xi1>
    %mask = reshape %m3h : tile<64x16x2xi1> -> tile<64x32xi1>
    %k0s = reshape %k0 : tile<i32> -> tile<1x1xi32>
    %k0b = broadcast %k0s : tile<1x1xi32> -> tile<64x32xi32>
    %offs = addi %rowoffb, %colb : tile<64x32xi32>
    %offs2 = addi %offs, %k0b : tile<64x32xi32>
    %ptrs = offset %abase, %offs2 : tile<64x32xptr<f16>>, tile<64x32xi32> -> tile<64x32xptr<f16>>
    %tile, %result_token = load_ptr_tko weak %ptrs, %mask, %zeros token=%0 \
: tile<64x32xptr<f16>>, tile<64x32xi1>, tile<64x32xf16> -> tile<64x32xf16>, token
"""


def _regrouped_ptx(arch: str = "sm_90a") -> str:
    """`gemm_f16.mlir` with `_REGROUPED_LOAD` for its A tile and `h` a last argument."""
    text = (CORPUS / "gemm_f16.mlir").read_text()
    lines = text.splitlines(keepends=True)
    (a_load,) = [line for line in lines if "load_view_tko weak %pview[" in line]
    (loop,) = [line for line in lines if line.startswith("  %for = for")]
    for old, new in (
        ("%arg15: tile<i32>)", "%arg15: tile<i32>, %arg16: tile<i32>)"),
        (a_load, _REGROUPED_LOAD),
        (loop, _REGROUPED_PROLOGUE + loop),
    ):
        assert text.count(old) == 1
        text = text.replace(old, new)
    out = compile_module(parse_module_text(text, "regrouped.mlir"), arch).ptx
    assert out is not None
    return out


@pytest.mark.parametrize(
    ("m", "h", "arch"),
    [(64, 1, "sm_90a"), (48, 1, "sm_90a"), (48, 2, "sm_90a"), (48, 1, "sm_100a")],
)
def test_a_regrouped_mask_copies_no_prefix(m: int, h: int, arch: str) -> None:
    """With `h` = 1 the elements in bounds of a group are its even ones, no prefix: a
    prefix copy read columns 1, 3, 5 (14 bytes, the last element in bounds's end) and
    the product was off by up to 6.4 at 64 x 32 x 64.  The group takes the element path
    (its mask's view regroups dimensions: `TileBounds.coordinates` is false); on
    sm_100a too, whose tcgen05 rings take the whole-tile test where groups are cut."""
    text = _regrouped_ptx(arch)
    assert "cp.async.cg.shared.global" in text  # 16-byte ring copies
    assert "selp.b32 t_n, 16, t_n" not in text  # no `_prefix_copy`
    assert "tileir_copied" in text  # the element path (only A's ring has one)
    n, k = 32, 64
    rng = np.random.default_rng(SEED)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.zeros((m, n), dtype=np.float32)
    simulate(text, (1, 1, 1), [a, m, k, k, 1, b, k, n, n, 1, c, m, n, n, 1, k // 32, h])
    kept = np.where((np.arange(k) % 2 < h)[None, :], a.astype(np.float64), 0.0)
    np.testing.assert_allclose(c, kept @ b.astype(np.float64), rtol=1e-5, atol=1e-4)


def _f4_view_text() -> str:
    """`block_scaled_mm_e2m1_m128.mlir` with its A tile loaded straight from an
    f4E2M1FN tensor view (128 x 128 elements) instead of bytes unpacked."""
    text = (CORPUS / "block_scaled_mm_e2m1_m128.mlir").read_text()
    lines = text.splitlines(keepends=True)
    (a_load,) = [line for line in lines if "load_view_tko weak %pview[" in line]
    unpacked = [
        line
        for line in lines
        if line.lstrip().startswith(("%reshape = ", "%2 = unpack %reshape ", "%reshape_43 = "))
    ]
    assert len(unpacked) == 3
    a_view = "tensor_view<?x?xf4E2M1FN, strides=[?,1]>"
    for old, new in (
        ("%arg0: tile<ptr<i8>>", "%arg0: tile<ptr<f4E2M1FN>>"),
        ("div_by<16>, %arg0 : tile<ptr<i8>>", "div_by<16>, %arg0 : tile<ptr<f4E2M1FN>>"),
        (
            "strides = [%assume_assume_assume, 1] : tile<i32> -> "
            "tensor_view<?x?xi8, strides=[?,1]>",
            f"strides = [%assume_assume_assume, 1] : tile<i32> -> {a_view}",
        ),
        (
            "%pview = make_partition_view %tview : partition_view<tile=(128x64), "
            "padding_value = zero, tensor_view<?x?xi8, strides=[?,1]>>",
            "%pview = make_partition_view %tview : partition_view<tile=(128x128), "
            f"padding_value = zero, {a_view}>",
        ),
        (
            a_load,
            "    %reshape_43, %result_token = load_view_tko weak %pview[%blockId_x, %loopIdx] "
            "token = %0 : partition_view<tile=(128x128), padding_value = zero, "
            f"{a_view}>, tile<i32> -> tile<128x128xf4E2M1FN>, token\n",
        ),
        *((line, "") for line in unpacked),
    ):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def test_f4_tiles_reach_no_ring(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_prefix_copy`'s count `(i + 1) * bits // 8` would cut a 4-bit element's half
    byte, but no ring copies sub-byte elements: the front end refuses f4E2M1FN in memory
    (`f4_in_memory.py`), and with that check taken out the f4E2M1FN A tile still gets no
    `cp.async` atom (`pipeline_dot_operands.async_atom`: whole-byte elements only) and is
    loaded synchronously, while its byte-sized scales and B ride rings."""
    from tileir.conversions import cuda_tile_to_tileaa

    text = _f4_view_text()
    with pytest.raises(CompileError, match="f4E2M1FN elements in memory"):
        compile_module(parse_module_text(text, "f4_view.mlir"), "sm_90a")
    monkeypatch.setattr(cuda_tile_to_tileaa, "reject_f4_in_memory", lambda module: None)
    module = parse_module_text(text, "f4_view.mlir")
    tileas = str(compile_module(module, "sm_90a", stop_after="tileas").module)
    loads = [line for line in tileas.splitlines() if "tiled_load" in line]
    f4 = [line for line in loads if "tiled_view<128x128xf4E2M1FN" in line]
    assert f4 and all("async.tiled_load" not in line for line in f4)
    assert any("async.tiled_load" in line for line in loads)
