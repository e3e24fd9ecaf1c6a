"""Native block-scaled `tcgen05.mma` of 4-bit floats on sm_100a (issue 16): an
`mmaf_scaled` of e2m1 operands that cuTile unpacked from bytes (`unpack_from_bytes`) runs
on `kind::mxf4 ... scale_vec::2X` (one UE8M0 factor per 32 elements) or `kind::mxf4nvf4
... scale_vec::4X` (one UE8M0 or f8E4M3FN factor per 16) with the loaded bytes as its
operands, two elements a byte, K-major (B loaded through a transposed view), 64 elements
an MMA; f8E4M3FN factors as UE4M3, their signs flipped into the elements they scale.

The instruction descriptors decode (in the PTX simulator's decoder) to what they were
built from; the corpus kernels `block_scaled_mm_e2m1_m128` (MXFP4) and
`block_scaled_mm_nvf4_m128` (NVFP4, negative scales) and the first's 16-element-group
twin match numpy in the simulator with their ragged edges, the first also over six K
tiles (the scale sets go round the 3-slot rings twice); the MXFP4 PTX broken (the scale
vector 4X for 2X, the second K step's scale-factor IDs those of the first, a K step of 32
elements instead of 64) or its bytes read with the nibbles swapped, and the NVFP4 kernel
compiled without the sign folding, are reported or wrong."""

from __future__ import annotations

import itertools
import re
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, load_module, parse_module_text
from tileir.conversions import scaled_mma
from tileir.conversions.tileas_to_llvm.tcgen05 import block_scaled_descriptor
from tileir.dialects.nv_tileas.attributes import ATOM_CATALOG
from tileir.driver.remarks import tileas_remarks
from tileir.testing import SimulationError, simulate
from tileir.testing.ptx_tcgen05_scaled import ScaledIdesc, decode_scaled_descriptor
from tileir.transforms.tileas.tcgen05_plan import BlockScaledForm, block_scaled_form

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

KERNEL = "block_scaled_mm_e2m1_m128"
SEED = 20261128
MXF4 = "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X"
MXF4NVF4 = "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X"


def _form(
    group: int, mnk: tuple[int, int, int] = (128, 128, 256), scale: str = "e8m0"
) -> BlockScaledForm:
    form = block_scaled_form("sm_100a", "e2m1", "e2m1", scale, group, mnk, 2, 4)
    assert isinstance(form, BlockScaledForm), form
    return form


@pytest.mark.parametrize(
    "scale,group,kind,vector",
    [("e8m0", 32, "mxf4", 2), ("e8m0", 16, "mxf4nvf4", 4), ("e4m3", 16, "mxf4nvf4", 4)],
)
def test_descriptor_round_trips(scale: str, group: int, kind: str, vector: int) -> None:
    form = _form(group, scale=scale)
    ue = "u" + scale
    assert (form.kind, form.vector, form.scale, form.mma_k) == (kind, vector, ue, 64)
    assert ATOM_CATALOG[form.atom].block_scale == (kind, vector, ue)
    assert ATOM_CATALOG[form.atom].operands == ("i8", "i8", "f32")
    ids = (0, 2) if vector == 2 else (0,)
    for n, sfa, sfb in itertools.product(range(16, 257, 16), ids, ids):
        word = block_scaled_descriptor(form, n, sfa, sfb)
        assert decode_scaled_descriptor(word, kind, vector) == ScaledIdesc(
            kind, "e2m1", "e2m1", ue, sfa, sfb, False, False, n, 128
        )


@pytest.mark.parametrize(
    "scale,group,mnk,says",
    [
        ("e8m0", 64, (128, 128, 256), "kind::mxf4 takes one UE8M0 factor per 32"),
        ("e4m3", 32, (128, 128, 256), "e4m3 scales per 32 elements of e2m1"),
        ("e8m0", 32, (128, 128, 96), "K = 96: kind::mxf4 takes K in steps of 64"),
        ("e8m0", 32, (64, 128, 256), "M = 64"),
    ],
)
def test_form_says_why_not(scale: str, group: int, mnk: tuple[int, int, int], says: str) -> None:
    why = block_scaled_form("sm_100a", "e2m1", "e2m1", scale, group, mnk, 2, 4)
    assert isinstance(why, str) and says in why


def _sixteen(text: str) -> str:
    """The corpus kernel with one UE8M0 factor per 16 elements (128x8 and 8x32 scale
    tiles): `kind::mxf4nvf4 ... scale_vec::4X`."""
    for old, new in (
        ("128x4", "128x8"),
        ("4x32xf8E8M0FNU", "8x32xf8E8M0FNU"),
        ("(4x32)", "(8x32)"),
    ):
        text = text.replace(old, new)
    return text


@cache
def _compiled(variant: str = "") -> tuple[str, str]:
    path = CORPUS / f"{KERNEL}.mlir"
    module = (
        parse_module_text(_sixteen(path.read_text()), str(path)) if variant else load_module(path)
    )
    result = compile_module(module, "sm_100a", keep_stages=True)
    assert result.ptx is not None
    return result.ptx, result.stages["tileas"]


def _inputs(group: int = 32, k_tiles: int = 2, seed: int = SEED) -> dict:
    """The case's inputs (any bytes, scales 2^-1 .. 2^1: exact) with `k_tiles` K tiles
    and one factor per `group` elements."""
    case = _common.load_case_module(KERNEL)
    rng = np.random.default_rng(seed)
    inputs = case.make_inputs(rng)
    arrays = inputs["arrays"]
    k = case.TILE_K * k_tiles
    m, n = arrays["a"].shape[0], arrays["bt"].shape[0]
    arrays["a"] = rng.integers(0, 256, (m, k // 2)).astype(np.uint8)
    arrays["bt"] = rng.integers(0, 256, (n, k // 2)).astype(np.uint8)
    arrays["a_scale"] = case.e8m0_scales(rng, (m, k // group))
    arrays["b_scale"] = case.e8m0_scales(rng, (k // group, n))
    inputs["scalars"]["k_tiles"] = k_tiles
    return inputs


def _run(ptx: str, inputs: dict) -> None:
    case = _common.load_case_module(KERNEL)
    expected = case.reference(_common.copy_inputs(inputs))["c"]
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    np.testing.assert_array_equal(inputs["arrays"]["c"], expected)


def test_corpus_kernel_runs_natively_and_matches_numpy() -> None:
    """Two MMAs a K tile of 128 elements (64 bytes of each row), one copy of A's and one
    of B's 4 groups of factors; no unpacking, no bf16."""
    ptx, tileas = _compiled()
    assert ptx.count(MXF4) == 2 and MXF4NVF4 not in ptx
    assert ptx.count("tcgen05.cp.cta_group::1.32x128b.warpx4") == 2
    assert "cvt.rn.bf16" not in ptx
    assert "tileir.packed_f4" in tileas and "tcgen05_mma_mxf4_e2m1_e2m1_f32_ue8m0" in tileas
    assert "cuda_tile.unpack" not in tileas
    # Both operands ride the cp.async rings as the loaded bytes, the MMAs in flight.
    assert "nv_tileas.tmem_in_flight" in tileas and "nv_tileas.tmem_scale_sets = 3" in tileas
    _common.simulate_case(KERNEL, ptx, SEED)


def test_remark_names_the_kind_and_the_scale_vector() -> None:
    tileas = compile_module(load_module(CORPUS / f"{KERNEL}.mlir"), "sm_100a", stop_after="tileas")
    assert tileas.module is not None
    said = [r.message for r in tileas_remarks(tileas.module, "sm_100a")]
    assert any(
        m.startswith("dot of 128x64 by 64x32 i8 (e2m1 pairs) -> f32 on " + MXF4)
        and "one UE8M0 scale per 32 of K" in m
        for m in said
    ), said


def test_scale_sets_go_round_the_ring() -> None:
    ptx, _ = _compiled()
    _run(ptx, _inputs(k_tiles=6))


def test_sixteen_element_groups_run_on_mxf4nvf4() -> None:
    ptx, _ = _compiled("16")
    assert ptx.count(MXF4NVF4) == 2 and MXF4 not in ptx
    assert ptx.count("tcgen05.cp.cta_group::1.32x128b.warpx4") == 4
    _run(ptx, _inputs(group=16))


def test_sixteen_element_groups_assemble() -> None:
    """`kind::mxf4nvf4` and `.scale_vec::4X` need PTX ISA 8.7 (ptxas 13 refuses them
    under 8.6): the kernel says so, and ptxas takes it without spills."""
    ptx, _ = _compiled("16")
    assert "\n.version 8.7\n" in ptx
    report = run_ptxas(ptx, "sm_100a")
    assert report.ok and not any(report.spills.values()), report.output


def test_nvf4_kernel_folds_the_scale_signs_into_the_operands() -> None:
    """NVFP4 (`block_scaled_mm_nvf4_m128`: f8E4M3FN scales +-0.5 .. +-2 per 16): on
    UE4M3 factors (no sign), each factor's sign flipped into the e2m1 elements it scales;
    equal to numpy, negative scales included."""
    nvf4 = "block_scaled_mm_nvf4_m128"
    result = compile_module(load_module(CORPUS / f"{nvf4}.mlir"), "sm_100a")
    assert result.ptx is not None and result.ptx.count(MXF4NVF4) == 2
    assert "cvt.rn.bf16" not in result.ptx
    inputs = _common.load_case_module(nvf4).make_inputs(np.random.default_rng(SEED))
    assert (inputs["arrays"]["a_scale"].astype(np.float32) < 0).any()
    _common.simulate_case(nvf4, result.ptx, SEED)


def test_nvf4_without_the_sign_folding_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scales' signs left to the MMA, which reads UE4M3 (bit 7 ignored): wrong."""
    monkeypatch.setattr(scaled_mma, "_fold_scale_signs", lambda *args: None)
    nvf4 = "block_scaled_mm_nvf4_m128"
    result = compile_module(load_module(CORPUS / f"{nvf4}.mlir"), "sm_100a")
    assert result.ptx is not None and result.ptx.count(MXF4NVF4) == 2
    with pytest.raises(AssertionError):
        _common.simulate_case(nvf4, result.ptx, SEED)


def _vector_4x(ptx: str) -> str:
    """scale_vec::4X where the kernel's factors are 2X."""
    return ptx.replace(MXF4, MXF4.replace("kind::mxf4.", "kind::mxf4nvf4.").replace("2X", "4X"))


def _same_ids(ptx: str) -> str:
    """K step 1's descriptor replaced by step 0's: factors 0 and 1 for groups 2 and 3."""
    form = _form(32)
    zero, two = (block_scaled_descriptor(form, 32, t, t) for t in (0, 2))
    return re.sub(rf"(mov\.b32 %r\d+, ){two};", rf"\g<1>{zero};", ptx)


def _k_step_32(ptx: str) -> str:
    """The second MMA's A and B 16 bytes (32 elements) into K instead of 32 bytes: the
    descriptors' start address 8 units of 16 bytes on, not 16."""
    mma = ptx.index(MXF4, ptx.index(MXF4) + 1)
    at = ptx.rindex("mov.b64", 0, mma)
    step = re.match(r"mov\.b64 (%rd\d+), 16;", ptx[at:])
    assert step is not None
    return ptx[:at] + f"mov.b64 {step[1]}, 8;" + ptx[at + step.end() :]


@pytest.mark.parametrize(
    "breaks,caught",
    [
        (_vector_4x, "scale factor A ID 2 with scale_vec::4X"),
        (_same_ids, "are not equal"),
        (_k_step_32, "are not equal"),
    ],
)
def test_broken_native_kernel_is_reported_or_wrong(breaks, caught: str) -> None:
    ptx, _ = _compiled()
    broken = breaks(ptx)
    assert broken != ptx
    with pytest.raises((SimulationError, AssertionError), match=caught):
        _run(broken, _inputs())


def test_nibble_order_matters() -> None:
    """The MMA reads element 2j of a row from the low nibble of byte j, as cuda_tile's
    `unpack` stores it: the kernel run on A's bytes with their nibbles swapped (what
    reading the high nibble first would compute) is not numpy's result."""
    ptx, _ = _compiled()
    inputs = _inputs()
    case = _common.load_case_module(KERNEL)
    expected = case.reference(_common.copy_inputs(inputs))["c"]
    a = inputs["arrays"]["a"]
    inputs["arrays"]["a"] = (a >> 4) | (a << 4)
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    assert not np.array_equal(inputs["arrays"]["c"], expected)
