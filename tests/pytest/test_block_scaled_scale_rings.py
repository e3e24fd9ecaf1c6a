"""sm_100a block-scaled `tcgen05.mma` (issue 16): the scales and NVFP4's B from ring slots.

`tileas-pipeline-dot-operands` lets the raw tile of each scale load of a block-scaled dot
ride a ring that its wait reads back into registers (`_scale_slot_read`, as operands
computed from their loads do), where `cp.async` copies its accesses: the MXFP4 corpus
kernel's 128x4 and 4x32 UE8M0 tiles (4-byte runs) do, the 8-bit float kernel's 128x2 and
2x32 ones (2-byte runs, rows known aligned to 2 bytes) stay synchronous loads and the
remark says why.  The threads that waited then write them into the `tcgen05.cp` source
layout as before.  NVFP4's B (`block_scaled_mm_nvf4_m128`), whose bytes the signs of its
scales are folded into with an `xori`, takes its own coalesced K-contiguous layout
(`assign_layouts.operand_reshapes`), so its 64x32 byte tile is copied 16 bytes at a
time into a ring and folded after the wait, where it was loaded a byte at a time.

In the simulator the kernels match numpy (`test_block_scaled_f4.py`: the MXFP4 kernel
over two and six K tiles, the NVFP4 one); here each slot wait of the loop body removed
is reported (`async-race`: a slot read before the copy that writes it is ordered before
the read), and the MXFP4 kernel with every iteration on scale set 0 too (its scale sets
go round the 3-slot ring while the MMAs of the two iterations before are in flight)."""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from test_block_scaled_native import one_scale_set

from tileir.compiler import compile_module, load_module
from tileir.testing import SimulationError, simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 20261128
MXFP4 = "block_scaled_mm_e2m1_m128"
NVFP4 = "block_scaled_mm_nvf4_m128"
E4M3 = "block_scaled_mm_e4m3_m128"

#: A slot-read ring's wait for the mbarrier of the slot it reads (`async_copy.py`).
SLOT_WAIT = re.compile(
    r"\{\n\t\.reg \.pred t_done;\ntileir_wait:\n\tmbarrier\.try_wait[^\n]*\n[^\n]*\n\}\n"
)


@cache
def _compiled(kernel: str) -> tuple[str, str]:
    result = compile_module(load_module(CORPUS / f"{kernel}.mlir"), "sm_100a", keep_stages=True)
    assert result.ptx is not None
    return result.ptx, result.stages["tileas"]


def _body_waits(ptx: str) -> list[re.Match[str]]:
    """The slot waits of the K loop's body (from its first label to its first MMA)."""
    label = re.search(r"^\$L__\S+:$", ptx, re.M)
    assert label is not None
    end = ptx.index("tcgen05.mma", label.end())
    return [w for w in SLOT_WAIT.finditer(ptx, label.end()) if w.end() < end]


def _run(kernel: str, ptx: str, k_tiles: int = 2) -> None:
    """`kernel`'s case with `k_tiles` K tiles against numpy, exactly (scales of powers of
    two and 4-bit products)."""
    case = _common.load_case_module(kernel)
    rng = np.random.default_rng(SEED)
    inputs = case.make_inputs(rng)
    if k_tiles != 2:
        arrays = inputs["arrays"]
        k = case.TILE_K * k_tiles
        m, n = arrays["a"].shape[0], arrays["bt"].shape[0]
        arrays["a"] = rng.integers(0, 256, (m, k // 2)).astype(np.uint8)
        arrays["bt"] = rng.integers(0, 256, (n, k // 2)).astype(np.uint8)
        arrays["a_scale"] = case.e8m0_scales(rng, (m, k // case.SCALE_BLOCK))
        arrays["b_scale"] = case.e8m0_scales(rng, (k // case.SCALE_BLOCK, n))
        inputs["scalars"]["k_tiles"] = k_tiles
    expected = case.reference(_common.copy_inputs(inputs))["c"]
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    rtol, atol = case.TOLERANCE["c"]
    np.testing.assert_allclose(inputs["arrays"]["c"], expected, rtol=rtol, atol=atol)


def test_scales_ride_rings_where_cp_async_copies_them() -> None:
    _, mxfp4 = _compiled(MXFP4)
    for scales in ("A's scales", "B's scales"):
        assert f"{scales}: read from the slot after the wait" in mxfp4
    assert len(re.findall(r"future_wait %\S+ \{nv_tileas\.read_from_slot\}", mxfp4)) == 2
    assert "nv_tileas.tmem_in_flight" in mxfp4 and "nv_tileas.tmem_scale_sets = 3" in mxfp4
    # One agent still (docs/codegen.md, Blackwell agents: what staging by an agent needs).
    # (Its 128x4 scale tiles are not the tcgen05.cp layout: `tcgen05_agents.copied_scale`.)
    assert "not warp-specialized: A's scales are not laid out in their raw tile" in mxfp4
    _, e4m3 = _compiled(E4M3)
    assert "A's scales: its 128x2xf8E8M0FNU load stays synchronous: no cp.async copies " in e4m3
    assert "(its addresses are contiguous for only 2 bytes)" in e4m3
    assert "read_from_slot" not in e4m3


def test_nvfp4_b_rides_a_ring_of_16_byte_copies() -> None:
    _, tileas = _compiled(NVFP4)
    assert "B: computed from the slot after the wait (the raw 64x32xi8, 8x32xf8E4M3FN" in tileas
    assert "stays synchronous" not in tileas
    b = r"async\.tiled_load [^\n]*\{atom = #nv_tileas<atom (\w+)>,(?:\n[^\n]*){0,2}tiled_view<64x32xi8"
    assert set(re.findall(b, tileas)) == {"cp_async_128b"}
    assert "ldg_8b" not in tileas


@pytest.mark.parametrize("kernel,waits", [(MXFP4, 2), (NVFP4, 4)])
def test_each_slot_wait_removed_is_a_race(kernel: str, waits: int) -> None:
    """The MXFP4 body waits for its two scale slots, the NVFP4 body for A's bytes and
    scales and B's bytes and scales; without any one of them a thread reads its slot
    before the copies that write it are ordered before the read."""
    ptx, _ = _compiled(kernel)
    found = _body_waits(ptx)
    assert len(found) == waits
    for wait in found:
        broken = ptx[: wait.start()] + ptx[wait.end() :]
        with pytest.raises(SimulationError, match="async-race"):
            _run(kernel, broken)


def test_one_scale_set_is_a_race() -> None:
    """Six K tiles over 3 slots with every iteration on scale set 0 (the set's offsets,
    slot number times the set's bytes and columns, replaced by 0): set 0 is rewritten
    while the MMAs of the iterations before, in flight, still read it."""
    ptx, _ = _compiled(MXFP4)
    _run(MXFP4, ptx, k_tiles=6)
    with pytest.raises(SimulationError, match="async-race"):
        _run(MXFP4, one_scale_set(ptx), k_tiles=6)
