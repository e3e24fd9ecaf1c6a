"""``setmaxnreg``'s per-CTA register pool in the PTX simulator (``ptx_warpctl.py``).

Each warp starts with the entry's ``.maxnreg`` registers per thread and the CTA's pool
starts empty; ``setmaxnreg.dec`` gives registers to the pool, ``setmaxnreg.inc`` waits
until the pool has what it asks for.  A CTA of 384 threads at ``.maxnreg 168`` holds
64,512 registers: a producer warpgroup at 40 gives back 128 x 128 = 16,384, exactly what
two consumer warpgroups going to 232 take (2 x 128 x 64); at 48 it gives 15,360 and the
second consumer waits forever, which hung gemm_bf16_two_warpgroups on an H200 while the
simulator, without the pool, passed it.  Each kernel but the last is checked with ptxas
for sm_90a.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_ptx_sim_scheduling import ORDERS, assembled

from tileir.testing import INVALID, SimulationError, simulate
from tileir.testing.ptx_errors import DEADLOCK

PRODUCER = """
$L_producer:
    setmaxnreg.dec.sync.aligned.u32 {dec};
    bra.uni $L_end;"""

CONSUMER = """
$L_consumer:
    setmaxnreg.inc.sync.aligned.u32 232;
    bra.uni $L_end;"""


def pool_kernel(dec: int, consumer_first: bool = False, maxnreg: int | None = 168) -> str:
    """Warpgroups 0 and 1 consume (``.inc`` to 232), warpgroup 2 produces (``.dec``);
    every thread then stores its ``%tid.x``.  ``consumer_first`` puts the consumer's
    code first, so lock-step runs its ``.inc`` before the producer's ``.dec``."""
    producer = PRODUCER.format(dec=dec)
    paths = CONSUMER + producer if consumer_first else producer + CONSUMER
    cap = "" if maxnreg is None else f".maxnreg {maxnreg}"
    return f""".version 8.0
.target sm_90a
.address_size 64

.visible .entry k(.param .u64 out)
.reqntid 384, 1, 1
{cap}
{{
    .reg .b32 %r<10>;
    .reg .b64 %rd<6>;
    .reg .pred %p<4>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mad.lo.u32 %r3, %r2, 384, %r1;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    setp.lt.u32 %p1, %r1, 256;
    @%p1 bra $L_consumer;
    bra.uni $L_producer;
{paths}
$L_end:
    st.global.u32 [%rd3], %r1;
    ret;
}}
"""


def run(ptx: str, order: str = "lockstep", seed: int | None = None, ctas: int = 1) -> None:
    out = np.zeros(384 * ctas, np.uint32)
    simulate(ptx, (ctas, 1, 1), [out], warp_order=order, seed=seed)
    np.testing.assert_array_equal(out, np.tile(np.arange(384), ctas))


@pytest.mark.parametrize("consumer_first", [False, True])
@pytest.mark.parametrize(("order", "seed"), ORDERS)
def test_a_producer_giving_back_exactly_what_two_consumers_take(
    consumer_first: bool, order: str, seed: int | None
) -> None:
    # 384 x 168 = 64,512 = 128 x (40 + 2 x 232).  With the consumer first, lock-step
    # blocks both consumers at their .inc until the producer's .dec fills the pool.
    run(assembled(pool_kernel(40, consumer_first)), order, seed, ctas=2)


@pytest.mark.parametrize("consumer_first", [False, True])
@pytest.mark.parametrize(("order", "seed"), ORDERS)
def test_a_producer_giving_back_too_little_is_a_deadlock(
    consumer_first: bool, order: str, seed: int | None
) -> None:
    # 128 x (168 - 48) = 15,360 in the pool: one consumer takes 8,192, the other waits
    # for 8,192 with 7,168 left.
    with pytest.raises(SimulationError) as err:
        run(assembled(pool_kernel(48, consumer_first)), order, seed)
    assert err.value.kind == DEADLOCK
    assert (
        "4 warps from thread ctaid=(0, 0, 0) tid=(" in str(err.value)
        and "waits in `setmaxnreg.inc.sync.aligned.u32 232` (PTX line " in str(err.value)
        and "for 8192 registers of its CTA's pool, which holds 7168" in str(err.value)
    ), err.value


def test_each_cta_has_its_own_pool() -> None:
    # CTA 0's producer would give 18,432 (at 24) and CTA 1's 15,360: 33,792 together,
    # more than the 32,768 the four consumers take, but CTA 1's second consumer cannot
    # use what CTA 0 gave back.
    ptx = pool_kernel(24).replace(
        "    setmaxnreg.dec.sync.aligned.u32 24;",
        "    setp.ne.u32 %p2, %r2, 0;\n"
        "    @%p2 bra $L_cta1;\n"
        "    setmaxnreg.dec.sync.aligned.u32 24;\n"
        "    bra.uni $L_end;\n"
        "$L_cta1:\n"
        "    setmaxnreg.dec.sync.aligned.u32 48;",
    )
    with pytest.raises(SimulationError, match=r"ctaid=\(1, 0, 0\).*which holds 7168") as err:
        run(assembled(ptx), ctas=2)
    assert err.value.kind == DEADLOCK


def test_maxnreg_is_rounded_up_to_the_allocation_granule() -> None:
    # .maxnreg 161 allocates 168 a thread, as .maxnreg 168 does: the producer's .dec
    # to 40 gives back enough.
    run(assembled(pool_kernel(40, maxnreg=161)))


def test_setmaxnreg_without_maxnreg() -> None:
    # ptxas accepts it but leaves setmaxnreg out of the SASS: the registers a warp
    # starts with are its choice, so the simulator cannot tell what the pool holds.
    with pytest.raises(
        SimulationError, match=re.escape("setmaxnreg in a kernel without .maxnreg")
    ) as err:
        run(assembled(pool_kernel(40, maxnreg=None)))
    assert err.value.kind == INVALID


def test_a_first_dec_above_maxnreg() -> None:
    # The warps start at .maxnreg, so the first setmaxnreg has a budget to compare with.
    ptx = pool_kernel(40).replace(".dec.sync.aligned.u32 40", ".dec.sync.aligned.u32 176")
    with pytest.raises(
        SimulationError, match=re.escape("setmaxnreg.dec to 176 registers from 168")
    ) as err:
        run(ptx)
    assert err.value.kind == INVALID
