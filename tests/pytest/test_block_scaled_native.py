"""Native block-scaled `tcgen05.mma` for `mmaf_scaled` on sm_100a (issue 16): the pieces
the code generator builds it from.  The instruction descriptor of every form decodes (in
the PTX simulator's decoder) to what it was built from, and is tileiras's for its 128x128
e4m3 kernel; `ScaleFactorBuffer` puts factor `g` of row `i` where one
`tcgen05.cp.32x128b.warpx4` per 512-byte block lands it as the MMA reads it
(`test_tcgen05_block_scaled._blocked`'s bytes); `block_scaled_form` takes the tiles the
instruction takes and says why not for the others.

A thread's 4 factors of one row and 4 groups go as one 32-bit store where its layout
allows, at the bytes the byte stores took.

The corpus kernel `block_scaled_mm_e4m3_m128` (128x64 by 64x32 tiles) compiles for
sm_100a to one `tcgen05.cp.32x128b.warpx4` per scale block and two `tcgen05.mma ...
.kind::mxf8f6f4.block_scale.scale_vec::1X` per K tile, no bf16 dequantization, its MMAs
in flight over the 3 slots of its rings with a scale set per slot, and matches numpy in
the PTX simulator with two K tiles and with six (the sets go round twice); its PTX broken
(no `fence.proxy.async` before the copy, the scale-factor IDs of a K step swapped, A's
scales copied one column off, the refills' waits for the MMAs' commits removed, every
iteration on scale set 0) is reported or wrong; with scales of 2^-62 .. 2^62 it equals
the sums of the MMAs' products, each added to the f32 accumulator in K order.  The 64x64 corpus kernel
keeps the bf16 dots, with the reason."""

from __future__ import annotations

import itertools
import re
import sys
from functools import cache
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tileir.compiler import compile_module, load_module
from tileir.conversions.tileas_to_llvm.tcgen05 import _packed_scales, block_scaled_descriptor
from tileir.dialects.nv_tileas.attributes import ATOM_CATALOG
from tileir.dialects.nv_tileas.core_matrices import ScaleFactorBuffer
from tileir.dialects.nv_tileas.layouts import BlockedLayoutAttr, LinearLayout
from tileir.testing import SimulationError, simulate
from tileir.testing.ptx_tcgen05_scaled import ScaledIdesc, decode_scaled_descriptor
from tileir.transforms.tileas.tcgen05_plan import BlockScaledForm, block_scaled_form

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

KERNEL = "block_scaled_mm_e4m3_m128"
SEED = 20261127
#: Every thread's wait for a synchronous tcgen05 dot's commit.
COMMIT_WAIT = re.compile(
    r"\s*mbarrier\.try_wait\.parity\.shared::cta\.b64 %tc_done[^;]*;\s*@!%tc_done[^;]*;"
)
FENCE = "fence.proxy.async.shared::cta;"
#: A refill's wait for the commit of the MMAs that read its slot (`tcgen05._wait_slot`).
SLOT_WAIT = re.compile(
    r"\$L_tc_slot:\s*mbarrier\.try_wait\.parity\.shared::cta\.b64 %tc_ok[^;]*;"
    r"\s*@!%tc_ok bra\.uni \$L_tc_slot;"
)


def _form(a: str = "e4m3", b: str = "e4m3", mnk: tuple[int, int, int] = (128, 128, 128)):
    form = block_scaled_form("sm_100a", a, b, "e8m0", 32, mnk, 2, 8)
    assert isinstance(form, BlockScaledForm), form
    return form


@pytest.mark.parametrize("a,b", list(itertools.product(("e4m3", "e5m2"), repeat=2)))
def test_descriptor_round_trips(a: str, b: str) -> None:
    form = _form(a, b)
    assert form.atom in ATOM_CATALOG
    assert ATOM_CATALOG[form.atom].block_scale == ("mxf8f6f4", 1, "ue8m0")
    for n, sfa, sfb in itertools.product(range(16, 257, 16), range(4), range(4)):
        word = block_scaled_descriptor(form, n, sfa, sfb)
        assert decode_scaled_descriptor(word, "mxf8f6f4", 1) == ScaledIdesc(
            "mxf8f6f4", a, b, "ue8m0", sfa, sfb, False, False, n, 128
        )


def test_descriptor_is_tileirass() -> None:
    """tileiras's 128x128x128 e4m3 kernel (t_scaled_matmul_swizzled_e4m3_128)."""
    for t in range(4):
        assert block_scaled_descriptor(_form(), 128, t, t) == 0x8A00000 | t << 29 | t << 4


def _addresses(layout: LinearLayout, buf: ScaleFactorBuffer, k_dim: int) -> dict:
    """Byte of every (row, group) of `layout` in `buf`, through `buf.view`'s bases and
    strides, as `Exchange.write` computes them."""
    view, strides = buf.view(layout, k_dim)
    out = {}
    for w, lane, r in itertools.product(
        range(view.num_warps), range(32), range(view.num_registers)
    ):
        coord, vcoord = layout.coord(r, lane, w), view.coord(r, lane, w)
        i, g = coord[1 - k_dim], coord[k_dim]
        out[i, g] = sum(c * s for c, s in zip(vcoord, strides, strict=True))
    return out


@pytest.mark.parametrize(
    "rows,groups,k_dim",
    [(128, 4, 1), (256, 8, 1), (64, 4, 0), (256, 4, 0), (128, 2, 1), (16, 4, 0)],
)
def test_scale_factor_buffer_is_the_copy_layout(rows: int, groups: int, k_dim: int) -> None:
    buf = ScaleFactorBuffer(rows, groups)
    shape = (rows, groups) if k_dim == 1 else (groups, rows)
    if k_dim == 1:  # A's [M, K/32]: a thread per row, its groups in registers
        layout = BlockedLayoutAttr([1, groups], [32, 1], [4, 1], [1, 0]).linear(shape)
    else:  # B's [K/32, N]: a thread per column
        layout = BlockedLayoutAttr([groups, 1], [1, 32], [1, 4], [0, 1]).linear(shape)
    got = _addresses(layout, buf, k_dim)
    assert len(got) == rows * groups
    for (i, g), at in got.items():
        block = 512 * (g // 4 * buf.row_blocks + i // 128)
        assert at == block + 16 * (i % 32) + 4 * (i // 32 % 4) + g % 4
        assert buf.block(i // 128 * 128, g) * 512 == block
        assert at < buf.bytes
    assert buf.columns == 4 * buf.blocks


@pytest.mark.parametrize("rows,groups,k_dim", [(128, 4, 1), (256, 8, 1), (128, 4, 0), (128, 2, 1)])
def test_packed_scale_stores_land_where_the_bytes_did(rows: int, groups: int, k_dim: int) -> None:
    """A thread's 4 factors of one row and 4 groups go as one 32-bit store, at the byte
    of the first (4-aligned), the others after it, for A's rows and B's columns alike;
    2 groups stay byte stores."""
    buf = ScaleFactorBuffer(rows, groups)
    if k_dim == 1:
        layout = BlockedLayoutAttr([1, groups], [32, 1], [4, 1], [1, 0]).linear((rows, groups))
    else:
        layout = BlockedLayoutAttr([groups, 1], [1, 32], [1, 4], [0, 1]).linear((groups, rows))
    view, strides = buf.view(layout, k_dim)
    packed = _packed_scales(view)
    if groups < 4:
        assert packed is None
        return
    assert packed is not None and packed.num_registers * 4 == view.num_registers
    for w, lane, r in itertools.product(
        range(view.num_warps), range(32), range(packed.num_registers)
    ):
        word = sum(c * s for c, s in zip(packed.coord(r, lane, w), strides, strict=True))
        assert word % 4 == 0
        for j in range(4):
            byte = view.coord(4 * r + j, lane, w)
            assert sum(c * s for c, s in zip(byte, strides, strict=True)) == word + j


@pytest.mark.parametrize(
    "a,scale,group,mnk,says",
    [
        ("e2m1", "e8m0", 32, (128, 128, 128), "kind::mxf4"),
        ("e4m3", "e4m3", 16, (128, 128, 128), "one UE8M0 factor per 32"),
        ("e4m3", "e8m0", 32, (64, 64, 128), "M = 64"),
        ("e4m3", "e8m0", 32, (256, 256, 128), "528 tensor-memory columns"),
        ("e4m3", "e8m0", 32, (128, 24, 128), "N = 24"),
    ],
)
def test_block_scaled_form_says_why_not(
    a: str, scale: str, group: int, mnk: tuple[int, int, int], says: str
) -> None:
    why = block_scaled_form("sm_100a", a, "e4m3", scale, group, mnk, 2, 8)
    assert isinstance(why, str) and says in why
    assert "sm_90a" in str(block_scaled_form("sm_90a", "e4m3", "e4m3", "e8m0", 32, mnk, 2, 8))


@cache
def _compiled(kernel: str = KERNEL) -> tuple[str, str]:
    result = compile_module(load_module(CORPUS / f"{kernel}.mlir"), "sm_100a", keep_stages=True)
    assert result.ptx is not None
    return result.ptx, result.stages["tileas"]


def test_corpus_kernel_runs_natively_and_matches_numpy() -> None:
    ptx, tileas = _compiled()
    assert ptx.count(".kind::mxf8f6f4.block_scale.scale_vec::1X") == 2
    assert ptx.count("tcgen05.cp.cta_group::1.32x128b.warpx4") == 2
    assert "cvt.rn.bf16" not in ptx
    assert "scales %" in tileas
    _common.simulate_case(KERNEL, ptx, SEED)


def _swap_ids(ptx: str) -> str:
    """K step 1's instruction descriptor replaced by step 0's (scale-factor IDs 0)."""
    form = _form(mnk=(128, 32, 64))
    zero, one = (block_scaled_descriptor(form, 32, t, t) for t in (0, 1))
    return re.sub(rf"(mov\.b32 %r\d+, ){one};", rf"\g<1>{zero};", ptx)


def _copy_off(ptx: str) -> str:
    """A's scales copied one column further than the MMAs read them."""
    return re.sub(
        r"(@%p\d+) (tcgen05\.cp\S* )\[(%r\d+)\]",
        r"add.s32 \3, \3, 1;\n\t\1 \2[\3]",
        ptx,
        count=1,
    )


def _no_fence(ptx: str) -> str:
    """No proxy fence between the threads' scale stores and the copy."""
    at = ptx.rindex(FENCE, 0, ptx.index("tcgen05.cp."))
    return ptx[:at] + ptx[at + len(FENCE) :]


def _no_slot_wait(ptx: str) -> str:
    """The loop body's refills without their waits for the commits of the MMAs that read
    the slots: slot `s` and its scale set are rewritten while those MMAs may read them."""
    broken = SLOT_WAIT.sub("", ptx)
    assert broken.count("$L_tc_slot:") == ptx.count("$L_tc_slot:") - 2
    return broken


def one_scale_set(ptx: str) -> str:
    """Every iteration on scale set 0 (the set's offsets, slot number times the set's
    bytes and columns, replaced by 0): set 0 is rewritten while the MMAs of the
    iterations before, in flight, still read it.  The slot's number is the last quotient
    before the first copy (`div.u32`, or `shr.u32` by a power of two) that two `mul`s
    take."""
    quotients = re.findall(
        r"(?:div|shr)\.u32 (%r\d+), %r\d+, %r\d+;", ptx[: ptx.index("tcgen05.cp.")]
    )
    for slot in reversed(quotients):
        per_set = re.compile(rf"mul\.lo\.s32 (%r\d+), {slot}, %r\d+;")
        broken, count = per_set.subn(r"mov.b32 \1, 0;", ptx)
        if count == 2:
            return broken
    raise AssertionError("no slot number with a scale set's two offsets")


def _long_inputs(k_tiles: int = 6) -> dict:
    """The corpus kernel's inputs with `k_tiles` K tiles, so that the 3-slot rings and
    their scale sets go round twice (integers and scales as the case's: exact)."""
    case = _common.load_case_module(KERNEL)
    rng = np.random.default_rng(SEED)
    k, groups = case.TILE_K * k_tiles, case.TILE_K * k_tiles // case.SCALE_BLOCK
    inputs = case.make_inputs(rng)
    arrays = inputs["arrays"]
    e4m3, e8m0 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu
    arrays["a"] = rng.integers(-8, 9, (case.M, k)).astype(np.float32).astype(e4m3)
    arrays["bt"] = rng.integers(-8, 9, (case.N, k)).astype(np.float32).astype(e4m3)
    for name, shape in (("a_scale", (case.M, groups)), ("b_scale", (groups, case.N))):
        arrays[name] = (127 + rng.integers(-2, 3, shape)).astype(np.uint8).view(e8m0)
    inputs["scalars"]["k_tiles"] = k_tiles
    return inputs


def _run_long(ptx: str) -> None:
    inputs = _long_inputs()
    case = _common.load_case_module(KERNEL)
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    np.testing.assert_array_equal(inputs["arrays"]["c"], case.reference(inputs)["c"])


def test_scale_sets_go_round_the_ring() -> None:
    """Six K tiles over 3 slots: iteration `i` copies its scales into set `i mod 3`
    (staging buffers and tensor-memory columns) while the MMAs of the two before are in
    flight; the result is numpy's, exactly."""
    ptx, tileas = _compiled()
    assert "nv_tileas.tmem_scale_sets = 3" in tileas and "nv_tileas.tmem_in_flight" in tileas
    assert not COMMIT_WAIT.search(ptx)  # nobody waits for the dot's own commit
    _run_long(ptx)


@pytest.mark.parametrize(
    "breaks,caught",
    [
        (_no_fence, r"async-race: tcgen05\.cp \(source\)"),
        (_swap_ids, "are not equal"),
        (_copy_off, "are not equal|tcgen05"),
        (_no_slot_wait, "async-race"),
        (one_scale_set, "async-race"),
    ],
)
def test_broken_native_kernel_is_reported_or_wrong(breaks, caught: str) -> None:
    ptx, _ = _compiled()
    broken = breaks(ptx)
    assert broken != ptx
    with pytest.raises((SimulationError, AssertionError), match=caught):
        _run_long(broken)


def test_64_row_kernel_keeps_the_bf16_dots_and_says_why() -> None:
    ptx, tileas = _compiled("block_scaled_mm_e4m3")
    assert ".block_scale." not in ptx and "cvt.rn.bf16" in ptx
    assert "M = 64: block-scaled tcgen05.mma with one CTA takes M = 128" in tileas


def test_extreme_scales_match_the_mmas_sums_in_k_order() -> None:
    """A's scales 2^(+-60 +- 2), B's 2^(-60 or 20, +- 2): each MMA's 32 products share
    one power of two (exact), and the accumulator adds the MMAs' sums (2^-124 .. 2^93)
    in K order, rounding to f32 each time."""
    ptx, _ = _compiled()
    case = _common.load_case_module(KERNEL)
    rng = np.random.default_rng(SEED)
    inputs = case.make_inputs(rng)
    arrays = inputs["arrays"]
    for name, choices in (("a_scale", [-60, 60]), ("b_scale", [-60, 20])):
        shape = arrays[name].shape
        exponents = 127 + rng.choice(choices, shape) + rng.integers(-2, 3, shape)
        arrays[name] = exponents.astype(np.uint8).view(ml_dtypes.float8_e8m0fnu)
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    a, bt = arrays["a"].astype(np.float64), arrays["bt"].astype(np.float64)
    sa, sb = arrays["a_scale"].astype(np.float64), arrays["b_scale"].astype(np.float64)
    acc = np.zeros((a.shape[0], bt.shape[0]), np.float32)
    for g in range(sa.shape[1]):
        k = slice(32 * g, 32 * g + 32)
        step = (a[:, k] @ bt[:, k].T) * sa[:, g : g + 1] * sb[g : g + 1, :]
        acc = (acc.astype(np.float64) + step).astype(np.float32)
    assert np.isfinite(acc).all() and (np.abs(acc) > 2.0**40).any()
    np.testing.assert_allclose(arrays["c"], acc, rtol=2.0**-22, atol=0)
