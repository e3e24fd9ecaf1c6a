"""The PTX simulator's warp shuffles (``shfl.sync``), which tileir's reductions and
scans use, on a hand-written kernel checked against the PTX ISA's lane formula,
and the errors for shuffles the hardware leaves undefined."""

from __future__ import annotations

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.testing import SimulationError, simulate

HEADER = ".version 8.0\n.target sm_90a\n.address_size 64\n"


def shuffle_kernel(mode: str, b: str, c: str, guard: str = "") -> str:
    """out[tid] = shfl.sync.<mode>(tid * 3 + 1, b, c) over 64 threads."""
    return f"""{HEADER}
.visible .entry k(.param .u64 out)
.reqntid 64, 1, 1
{{
.reg .b32 %r<6>;
.reg .b64 %rd<4>;
.reg .pred %p<2>;
mov.u32 %r1, %tid.x;
mad.lo.s32 %r2, %r1, 3, 1;
and.b32 %r4, %r1, 7;
{guard}
shfl.sync.{mode}.b32 %r3, %r2, {b}, {c}, 0xffffffff;
ld.param.u64 %rd1, [out];
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.b32 [%rd3], %r3;
ret;
}}
"""


def expected(mode: str, b: np.ndarray, c: int) -> np.ndarray:
    tid = np.arange(64)
    lane = tid % 32
    clamp, seg = c & 0x1F, (c >> 8) & 0x1F
    lo = lane & seg
    hi = lo | (clamp & ~seg)
    if mode == "up":
        j = lane - b
        ok = j >= lo
    elif mode == "down":
        j = lane + b
        ok = j <= hi
    elif mode == "bfly":
        j = lane ^ b
        ok = j <= hi
    else:
        j = lo | (b & ~seg)
        ok = j <= hi
    j = np.where(ok, j, lane)
    return ((tid - lane + j) * 3 + 1).astype(np.int32)


CASES = [
    ("bfly", "1", 0x1F),
    ("bfly", "16", 0x1F),
    ("idx", "%r4", 0x1F),
    ("idx", "5", 0x1F),
    ("up", "3", 0x0),
    ("down", "2", 0x1F),
    ("down", "2", 0x0707),  # segments of 8 lanes
]


@pytest.mark.parametrize(("mode", "b", "c"), CASES, ids=lambda x: str(x))
def test_shuffle_matches_the_lane_formula(mode: str, b: str, c: int) -> None:
    out = np.zeros(64, np.int32)
    ptx = shuffle_kernel(mode, b, hex(c))
    simulate(ptx, (1, 1, 1), [out])
    b_value = np.arange(64) % 32 & 7 if b == "%r4" else np.full(64, int(b))
    np.testing.assert_array_equal(out, expected(mode, b_value, c))


def test_shuffle_kernel_is_valid_ptx() -> None:
    report = run_ptxas(shuffle_kernel("bfly", "1", "0x1f"), "sm_90a")
    assert report.ok, report.output


def test_shuffle_with_inactive_lanes_fails() -> None:
    # Half of the lanes skip the shuffle: with a full member mask that is undefined.
    guard = "setp.lt.u32 %p1, %r1, 16;\n@%p1 bra SKIP;"
    ptx = shuffle_kernel("bfly", "1", "0x1f", guard).replace("ld.param", "SKIP:\nld.param")
    with pytest.raises(SimulationError, match="membermask"):
        simulate(ptx, (1, 1, 1), [np.zeros(64, np.int32)])
