"""``elect.sync`` and ``setmaxnreg`` in the PTX simulator (``ptx_warpctl.py``), on
kernels ptxas accepts for sm_90a."""

from __future__ import annotations

import numpy as np
import pytest
from test_ptx_sim_scheduling import ORDERS, assembled

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.testing import INVALID, SimulationError, simulate


def kernel(body: str, threads: int = 64) -> str:
    return f""".version 8.0
.target sm_90a
.address_size 64

.visible .entry k(.param .u64 out)
.reqntid {threads}, 1, 1
.maxnreg 128
{{
    .reg .b32 %r<10>;
    .reg .b64 %rd<6>;
    .reg .pred %p<4>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
{body}
    ret;
}}
"""


@pytest.mark.parametrize(("order", "seed"), ORDERS)
def test_elect_sync_picks_one_leader_per_warp(order: str, seed: int | None) -> None:
    body = """
    elect.sync %r2|%p1, 0xffffffff;
    selp.u32 %r3, 100, 0, %p1;
    add.u32 %r3, %r3, %r2;
    st.global.u32 [%rd3], %r3;"""
    out = np.zeros(64, np.uint32)
    simulate(assembled(kernel(body)), (1, 1, 1), [out], warp_order=order, seed=seed)
    np.testing.assert_array_equal(out, [100] + [0] * 31 + [100] + [0] * 31)


def test_elect_sync_with_lanes_missing_from_the_mask() -> None:
    body = """
    and.b32 %r4, %r1, 31;
    setp.eq.u32 %p2, %r4, 0;
    @%p2 bra $L_end;
    elect.sync _|%p1, 0xffffffff;
$L_end:"""
    with pytest.raises(SimulationError, match="not every lane of the member mask"):
        simulate(assembled(kernel(body)), (1, 1, 1), [np.zeros(64, np.uint32)])


SETMAXNREG = """
    setmaxnreg.dec.sync.aligned.u32 64;
    {between}
    setmaxnreg.{second}.sync.aligned.u32 {count};
    st.global.u32 [%rd3], %r1;"""


def test_setmaxnreg_twice_with_a_barrier_between() -> None:
    body = SETMAXNREG.format(between="bar.sync 0;", second="inc", count=128)
    out = np.zeros(128, np.uint32)
    simulate(assembled(kernel(body, 128)), (1, 1, 1), [out])
    np.testing.assert_array_equal(out, np.arange(128))


def test_setmaxnreg_twice_without_a_barrier_between() -> None:
    body = SETMAXNREG.format(between="", second="inc", count=128)
    with pytest.raises(SimulationError, match="without the warps of the warpgroup synchron") as err:
        simulate(assembled(kernel(body, 128)), (1, 1, 1), [np.zeros(128, np.uint32)])
    assert err.value.kind == INVALID


@pytest.mark.parametrize(
    ("second", "count", "ptxas_accepts"), [("inc", 40, False), ("dec", 96, True)]
)
def test_setmaxnreg_in_the_wrong_direction(second: str, count: int, ptxas_accepts: bool) -> None:
    # The ISA leaves both undefined; ptxas rejects the first (it follows the budgets
    # through straight-line code) but accepts the second.
    ptx = kernel(SETMAXNREG.format(between="bar.sync 0;", second=second, count=count), 128)
    assert run_ptxas(ptx, "sm_90a").ok == ptxas_accepts
    with pytest.raises(SimulationError, match=f"setmaxnreg.{second} to {count} registers from 64"):
        simulate(ptx, (1, 1, 1), [np.zeros(128, np.uint32)])


def test_setmaxnreg_by_warps_that_exit_first() -> None:
    # Warps 1 to 3 of the warpgroup exit; warp 0 cannot execute it alone.
    body = """
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra $L_end;
    setmaxnreg.dec.sync.aligned.u32 64;
$L_end:"""
    with pytest.raises(SimulationError, match="executed by 32 of the 128 threads"):
        simulate(assembled(kernel(body, 128)), (1, 1, 1), [np.zeros(128, np.uint32)])
