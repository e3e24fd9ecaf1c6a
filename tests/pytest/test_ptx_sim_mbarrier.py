"""mbarrier objects in the PTX simulator (``ptx_mbarrier.py``): phases, parities, arrival
states, transaction counts, ordering, ``cp.async.mbarrier.arrive`` and the mistakes the
ISA leaves undefined.  The sm_90a kernels are checked with ptxas for ``sm_90a``, the
sm_80 one for ``sm_80``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_ptx_sim_scheduling import ORDERS, assembled

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.testing import INVALID, RACE, SimulationError, simulate
from tileir.testing.ptx_errors import DEADLOCK


def kernel(body: str, threads: int = 32, version: str = "8.0") -> str:
    return f""".version {version}
.target sm_90a
.address_size 64

.visible .entry k(.param .u64 out)
.reqntid {threads}, 1, 1
{{
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .reg .pred %p<20>;
    .shared .align 16 .b8 data[1024];
    .shared .align 8 .b8 bars[32];
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    mov.u32 %r3, bars;
    add.u32 %r4, %r3, 8;
    mov.u32 %r5, data;
    ld.param.u64 %rd1, [out];
{body}
    ret;
}}
"""


def record(index: int, pred: str) -> str:
    """Store ``pred`` (0/1) into ``out[index]``."""
    return f"""
    selp.u32 %r30, 1, 0, {pred};
    st.global.u32 [%rd1+{4 * index}], %r30;"""


PHASES = f"""
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $L_end;
    mbarrier.init.shared::cta.b64 [%r3], 2;
    mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r3], 0;
    {record(0, "%p2")}
    mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r3], 1;
    {record(1, "%p2")}
    mbarrier.arrive.shared::cta.b64 %rd2, [%r3];
    mbarrier.test_wait.shared::cta.b64 %p2, [%r3], %rd2;
    {record(2, "%p2")}
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], 64;
    mbarrier.arrive.shared::cta.b64 %rd3, [%r3];
    mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r3], 0;
    {record(3, "%p2")}
    mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r3], 64;
    mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r3], 0;
    {record(4, "%p2")}
    mbarrier.test_wait.shared::cta.b64 %p2, [%r3], %rd2;
    {record(5, "%p2")}
    mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r3], 1;
    {record(6, "%p2")}
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r3], 32;
    mbarrier.arrive.shared::cta.b64 %rd4, [%r3];
    mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r3], 1;
    {record(7, "%p2")}
    mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r3], 32;
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 1;
    {record(8, "%p2")}
    mbarrier.inval.shared::cta.b64 [%r3];
$L_end:"""


def test_phases_parities_states_and_transactions() -> None:
    out = np.full(9, 7, np.uint32)
    simulate(assembled(kernel(PHASES)), (1, 1, 1), [out])
    # phase 0 incomplete; "parity 1" is the phase before; an arrival's phase is not
    # complete; one more arrival still waits for 64 transaction bytes; complete_tx
    # ends phase 0 (parity 0 done, the state's phase done, parity 1 now current);
    # phase 1 waits for its 32 bytes, then completes.
    np.testing.assert_array_equal(out, [0, 1, 0, 0, 1, 1, 0, 0, 1])


def test_mistakes() -> None:
    cases = {
        "mbarrier.arrive.shared::cta.b64 %rd2, [%r3];": "no valid mbarrier object",
        "mbarrier.init.shared::cta.b64 [%r3], 1;\n"
        "mbarrier.arrive.shared::cta.b64 %rd2, [%r3], 2;": r"2 arrival\(s\) on an mbarrier "
        "phase with 1 pending",
        "mbarrier.init.shared::cta.b64 [%r3], 1;\n"
        "mbarrier.init.shared::cta.b64 [%r3], 1;": "init of a valid mbarrier",
        "mbarrier.init.shared::cta.b64 [%r3], 1;\n"
        "st.shared.u32 [%r3], %r1;": "bytes of a valid mbarrier object",
        "mbarrier.init.shared::cta.b64 [%r3], 1;\n"
        "mbarrier.init.shared::cta.b64 [%r4], 1;\n"
        "mbarrier.arrive.shared::cta.b64 %rd2, [%r3];\n"
        "mbarrier.test_wait.shared::cta.b64 %p2, [%r4], %rd2;": "another mbarrier's arrive",
    }
    for body, match in cases.items():
        guarded = f"setp.ne.u32 %p1, %r1, 0;\n@%p1 bra $L_end;\n{body}\n$L_end:"
        with pytest.raises(SimulationError, match=match) as err:
            simulate(assembled(kernel(guarded)), (1, 1, 1), [np.zeros(4, np.uint32)])
        assert err.value.kind == INVALID, err.value


def test_a_use_before_the_init_is_ordered() -> None:
    # Warp 1 arrives on a barrier warp 0 initialized, with no bar.sync between.
    body = """
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $L_skip;
    mbarrier.init.shared::cta.b64 [%r3], 1;
$L_skip:
    setp.ne.u32 %p1, %r1, 32;
    @%p1 bra $L_end;
    mbarrier.arrive.shared::cta.b64 %rd2, [%r3];
$L_end:"""
    with pytest.raises(SimulationError, match=r"before its mbarrier\.init") as err:
        simulate(assembled(kernel(body, 64)), (1, 1, 1), [np.zeros(1, np.uint32)])
    assert err.value.kind == RACE


def handoff(arrive: str, wait: str) -> str:
    """Thread 0 stores a word and arrives; thread 32 waits for the phase and reads it."""
    return f"""
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $L_not_init;
    mbarrier.init.shared::cta.b64 [%r3], 1;
$L_not_init:
    bar.sync 0;
    setp.eq.u32 %p1, %r1, 0;
    @!%p1 bra $L_consumer;
    st.shared.u32 [%r5], 42;
    {arrive}
    bra.uni $L_end;
$L_consumer:
    setp.ne.u32 %p1, %r1, 32;
    @%p1 bra $L_end;
$L_wait:
    {wait}
    @!%p2 bra $L_wait;
    ld.shared.u32 %r6, [%r5];
    st.global.u32 [%rd1], %r6;
$L_end:"""


RELEASE = "mbarrier.arrive.release.cta.shared::cta.b64 %rd2, [%r3];"
ACQUIRE = "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p2, [%r3], 0;"


@pytest.mark.parametrize(("order", "seed"), ORDERS)
def test_an_arrival_orders_the_waiters_reads(order: str, seed: int | None) -> None:
    out = np.zeros(1, np.uint32)
    ptx = assembled(kernel(handoff(RELEASE, ACQUIRE), 64))
    simulate(ptx, (1, 1, 1), [out], warp_order=order, seed=seed)
    assert out[0] == 42


@pytest.mark.parametrize(
    ("arrive", "wait"),
    [
        (RELEASE.replace("release", "relaxed"), ACQUIRE),
        (RELEASE, ACQUIRE.replace("acquire", "relaxed")),
    ],
)
def test_relaxed_arrivals_and_waits_order_nothing(arrive: str, wait: str) -> None:
    ptx = assembled(kernel(handoff(arrive, wait), 64, version="8.6"))
    with pytest.raises(SimulationError, match="wrote this byte, unordered") as err:
        simulate(ptx, (1, 1, 1), [np.zeros(1, np.uint32)])
    assert err.value.kind == RACE


def test_a_wait_nobody_completes_is_a_deadlock() -> None:
    body = """
    mbarrier.init.shared::cta.b64 [%r3], 64;
$L_wait:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
    @!%p2 bra $L_wait;"""
    guarded = f"setp.ne.u32 %p1, %r1, 0;\n@%p1 bra $L_end;\n{body}\n$L_end:"
    with pytest.raises(SimulationError, match="64 of 64 arrivals pending") as err:
        simulate(assembled(kernel(guarded)), (1, 1, 1), [np.zeros(1, np.uint32)])
    assert err.value.kind == DEADLOCK


# ------------------------------------------------- cp.async.mbarrier.arrive (sm_80)


def copy_then_arrive(noinc: bool) -> str:
    """Every thread copies 16 bytes of ``x`` into shared memory with ``cp.async``,
    arrives on the mbarrier when they land (``cp.async.mbarrier.arrive``), waits for the
    phase and sums its neighbour's chunk.  Without ``.noinc`` each thread also arrives
    itself (the async arrival does not count towards the 64 expected)."""
    arrive = "cp.async.mbarrier.arrive.noinc.shared.b64 [%r3];"
    if not noinc:
        arrive = (
            "cp.async.mbarrier.arrive.shared.b64 [%r3];\nmbarrier.arrive.shared.b64 %rd5, [%r3];"
        )
    return f""".version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 x, .param .u64 out)
.reqntid 64, 1, 1
{{
    .reg .b32 %r<20>;
    .reg .b64 %rd<10>;
    .reg .pred %p<4>;
    .shared .align 16 .b8 data[1024];
    .shared .align 8 .b8 bar[8];
    mov.u32 %r1, %tid.x;
    mov.u32 %r3, bar;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $L_init_done;
    mbarrier.init.shared.b64 [%r3], 64;
$L_init_done:
    bar.sync 0;
    ld.param.u64 %rd1, [x];
    mul.wide.u32 %rd2, %r1, 16;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r5, data;
    shl.b32 %r6, %r1, 4;
    add.u32 %r7, %r5, %r6;
    cp.async.ca.shared.global [%r7], [%rd3], 16;
    {arrive}
$L_wait:
    mbarrier.test_wait.parity.shared.b64 %p2, [%r3], 0;
    @!%p2 bra $L_wait;
    add.u32 %r8, %r1, 1;
    and.b32 %r8, %r8, 63;
    shl.b32 %r8, %r8, 4;
    add.u32 %r8, %r5, %r8;
    ld.shared.v4.u32 {{%r10, %r11, %r12, %r13}}, [%r8];
    add.u32 %r10, %r10, %r11;
    add.u32 %r10, %r10, %r12;
    add.u32 %r10, %r10, %r13;
    ld.param.u64 %rd4, [out];
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r10;
    ret;
}}
"""


@pytest.mark.parametrize("noinc", [True, False])
@pytest.mark.parametrize(("order", "seed"), ORDERS)
def test_cp_async_arrives_on_an_mbarrier(noinc: bool, order: str, seed: int | None) -> None:
    ptx = copy_then_arrive(noinc)
    result = run_ptxas(ptx, "sm_80")
    assert result.ok, result.output
    x = np.arange(256, dtype=np.uint32) * 3
    out = np.zeros(64, np.uint32)
    simulate(ptx, (1, 1, 1), [x, out], warp_order=order, seed=seed)
    np.testing.assert_array_equal(out, np.roll(x.reshape(64, 4).sum(axis=1), -1))
