"""Warp-specialized producer/consumer rings in the PTX simulator (sm_90a): a producer
thread fills a ring of shared-memory stages with ``cp.async.bulk`` copies completing on
per-stage *full* mbarriers; consumer warps wait on the full barrier's phase parity, sum
their word of the stage and release it on the stage's *empty* mbarrier; the sums leave
through shared memory and a bulk store (``ptx_mbarrier.py``, ``ptx_async.py``).

The correct ring computes its sums in every warp order; the broken ones must fail: a
consumer that does not wait, one that waits on the wrong parity, a producer that runs
one stage too far ahead (a stage count off by one), a missing ``fence.proxy.async``
before the bulk store, a missing wait for the store's reads, a transaction count that
never completes (a deadlock), and ``setmaxnreg`` executed by part of a warpgroup.  Each
kernel is checked with ptxas for ``sm_90a``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest
from test_ptx_sim_scheduling import ORDERS, assembled
from test_ptx_wgmma import Case as WgmmaCase
from test_ptx_wgmma import _build as wgmma_build
from test_ptx_wgmma import _run as wgmma_run

from tileir.testing import INVALID, SimulationError, simulate
from tileir.testing.ptx_errors import ASYNC_RACE, DEADLOCK


@dataclass(frozen=True)
class Ring:
    """The kernel's shape and the bugs to put in it."""

    stages: int = 2
    consumers: int = 64  # consumer threads (two warps, or a warpgroup of 128)
    producers: int = 32  # threads before the consumers (one warp, or a warpgroup)
    consumer_waits: bool = True
    wrong_parity: bool = False
    ahead: int = 0  # tiles the producer runs ahead without waiting, beyond the ring
    tx_bytes: int | None = None  # expect_tx per stage (default: the stage's size)
    fence: bool = True
    store_wait: bool = True
    setmaxnreg: str = ""  # "", "all" or "partial"

    @property
    def threads(self) -> int:
        return self.producers + self.consumers

    @property
    def tile_bytes(self) -> int:
        return 4 * self.consumers


def ring_kernel(r: Ring) -> str:
    s, tile = r.stages, r.tile_bytes
    full_wait_parity = "xor.b32 %r30, %r12, 1;" if r.wrong_parity else "mov.u32 %r30, %r12;"
    full_wait = (
        f"""
    {full_wait_parity}
$L_full_wait:
    mbarrier.try_wait.parity.shared::cta.b64 %p7, [%r14], %r30;
    @!%p7 bra $L_full_wait;"""
        if r.consumer_waits
        else ""
    )
    fence = "fence.proxy.async.shared::cta;" if r.fence else ""
    store_wait = "cp.async.bulk.wait_group.read 0;" if r.store_wait else ""
    regs_producer = regs_consumer = ""
    if r.setmaxnreg == "all":
        # The CTA's pool gets 128 x (128 - 40) registers, what the consumer's .inc
        # to 216 takes (ptx_warpctl); 232 would wait for them forever.
        regs_producer = "setmaxnreg.dec.sync.aligned.u32 40;"
        regs_consumer = "setmaxnreg.inc.sync.aligned.u32 216;"
    elif r.setmaxnreg == "partial":
        regs_producer = (
            "setp.ne.u32 %p9, %r2, 0;\n    @%p9 bra $L_regs;\n"
            "    setmaxnreg.dec.sync.aligned.u32 40;\n$L_regs:"
        )
    return f""".version 8.0
.target sm_90a
.address_size 64

.visible .entry ring(.param .u64 x, .param .u64 out, .param .u32 tiles)
.reqntid {r.threads}, 1, 1
.maxnreg 128
{{
    .reg .b32 %r<40>;
    .reg .b64 %rd<10>;
    .reg .pred %p<10>;
    .shared .align 128 .b8 stages[{s * tile}];
    .shared .align 128 .b8 obuf[{tile}];
    .shared .align 8 .b8 bars[{16 * s}];
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    mov.u32 %r3, stages;
    mov.u32 %r4, bars;
    ld.param.u32 %r5, [tiles];
    // Thread 0 initializes full[i] (one arrival: the producer's expect_tx) and
    // empty[i] (an arrival per consumer thread).
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $L_init_done;
    mov.u32 %r6, 0;
$L_init:
    shl.b32 %r7, %r6, 3;
    add.u32 %r8, %r4, %r7;
    mbarrier.init.shared::cta.b64 [%r8], 1;
    add.u32 %r9, %r8, {8 * s};
    mbarrier.init.shared::cta.b64 [%r9], {r.consumers};
    add.u32 %r6, %r6, 1;
    setp.lt.u32 %p2, %r6, {s};
    @%p2 bra $L_init;
$L_init_done:
    bar.sync 0;
    mov.u32 %r10, 0;
    mov.u32 %r11, 0;
    mov.u32 %r12, 0;
    setp.lt.u32 %p3, %r1, {r.producers};
    @%p3 bra $L_producer;

    // ---- consumers: thread c sums word c of every tile
    {regs_consumer}
    sub.u32 %r20, %r1, {r.producers};
    shl.b32 %r21, %r20, 2;
    mov.u32 %r22, 0;
$L_consume:
    shl.b32 %r13, %r11, 3;
    add.u32 %r14, %r4, %r13;
    add.u32 %r15, %r14, {8 * s};
    {full_wait}
    mul.lo.u32 %r16, %r11, {tile};
    add.u32 %r17, %r3, %r16;
    add.u32 %r17, %r17, %r21;
    ld.shared.u32 %r23, [%r17];
    add.u32 %r22, %r22, %r23;
    mbarrier.arrive.shared::cta.b64 %rd5, [%r15];
    add.u32 %r10, %r10, 1;
    add.u32 %r11, %r11, 1;
    setp.eq.u32 %p5, %r11, {s};
    @%p5 mov.u32 %r11, 0;
    @%p5 xor.b32 %r12, %r12, 1;
    setp.lt.u32 %p6, %r10, %r5;
    @%p6 bra $L_consume;
    // The sums leave through shared memory and one bulk store.
    mov.u32 %r24, obuf;
    add.u32 %r25, %r24, %r21;
    st.shared.u32 [%r25], %r22;
    {fence}
    bar.sync 1, {r.consumers};
    setp.ne.u32 %p8, %r20, 0;
    @%p8 bra $L_exit;
    ld.param.u64 %rd6, [out];
    cp.async.bulk.global.shared::cta.bulk_group [%rd6], [%r24], {tile};
    cp.async.bulk.commit_group;
    {store_wait}
    bra.uni $L_exit;

    // ---- the producer: thread 0 copies tile t into stage t % {s}
$L_producer:
    {regs_producer}
    setp.ne.u32 %p4, %r1, 0;
    @%p4 bra $L_exit;
    ld.param.u64 %rd1, [x];
$L_produce:
    shl.b32 %r13, %r11, 3;
    add.u32 %r14, %r4, %r13;
    add.u32 %r15, %r14, {8 * s};
    // The first tiles fill empty stages; later ones wait for the consumers to
    // release the stage: the empty barrier's previous phase.
    setp.lt.u32 %p8, %r10, {s + r.ahead};
    @%p8 bra $L_fill;
    xor.b32 %r18, %r12, 1;
$L_empty_wait:
    mbarrier.try_wait.parity.shared::cta.b64 %p7, [%r15], %r18;
    @!%p7 bra $L_empty_wait;
$L_fill:
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r14], {r.tx_bytes or tile};
    mul.lo.u32 %r16, %r11, {tile};
    add.u32 %r17, %r3, %r16;
    mul.wide.u32 %rd2, %r10, {tile};
    add.s64 %rd3, %rd1, %rd2;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r17], [%rd3], {tile}, [%r14];
    add.u32 %r10, %r10, 1;
    add.u32 %r11, %r11, 1;
    setp.eq.u32 %p5, %r11, {s};
    @%p5 mov.u32 %r11, 0;
    @%p5 xor.b32 %r12, %r12, 1;
    setp.lt.u32 %p6, %r10, %r5;
    @%p6 bra $L_produce;
$L_exit:
    ret;
}}
"""


def run_ring(r: Ring, tiles: int = 7, order: str = "lockstep", seed: int | None = None):
    x = np.random.default_rng(tiles).integers(0, 1000, (tiles, r.consumers), dtype=np.uint32)
    out = np.zeros(r.consumers, np.uint32)
    ptx = assembled(ring_kernel(r))
    simulate(ptx, (1, 1, 1), [x, out, tiles], warp_order=order, seed=seed)
    np.testing.assert_array_equal(out, x.sum(axis=0, dtype=np.uint32))


@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize(("order", "seed"), ORDERS)
def test_a_ring_of_stages(stages: int, order: str, seed: int | None) -> None:
    run_ring(Ring(stages=stages), order=order, seed=seed)


@pytest.mark.parametrize("tiles", [1, 2, 3, 8])
def test_rings_of_any_length(tiles: int) -> None:
    run_ring(Ring(stages=3), tiles=tiles)


@pytest.mark.parametrize(("order", "seed"), ORDERS[:3])
def test_warpgroups_with_register_budgets(order: str, seed: int | None) -> None:
    # A producer warpgroup that gives registers back, a consumer warpgroup that
    # takes them (setmaxnreg), as tileiras's warp-specialized GEMMs do.
    run_ring(Ring(producers=128, consumers=128, setmaxnreg="all"), order=order, seed=seed)


def fails(r: Ring, match: str, kinds: tuple[str, ...], orders=ORDERS) -> None:
    for order, seed in orders:
        with pytest.raises(SimulationError, match=match) as err:
            run_ring(r, order=order, seed=seed)
        assert err.value.kind in kinds, err.value


#: The three faces of a read racing a copy: the copy is in flight, or it landed but
#: the reader did not wait for it, or the reader came first and the copy lands over it.
RACING_A_COPY = "has not written yet|no wait this thread observed|overwrites a byte"


def test_a_consumer_that_does_not_wait_reads_a_stage_in_flight() -> None:
    fails(Ring(consumer_waits=False), RACING_A_COPY, (ASYNC_RACE,))


def test_a_consumer_waiting_on_the_wrong_parity() -> None:
    # It waits for the phase before the one that fills the stage: the wait returns at
    # once and the read finds the stage in flight (or its bytes unordered).
    fails(Ring(wrong_parity=True), RACING_A_COPY, (ASYNC_RACE,))


def test_a_producer_one_stage_ahead_overwrites_a_stage_being_read() -> None:
    # The producer refills the first stage without waiting for it to be released.
    # In lock-step it is caught as the copy lands over words the consumers read;
    # running warps alone, the consumers may also find the stage's phase lapped and
    # wait for it forever.
    fails(
        Ring(ahead=1),
        "overwrites a byte that thread .* read",
        (ASYNC_RACE,),
        ORDERS[:1],
    )
    fails(Ring(ahead=1), "overwrites|has not written|spins", (ASYNC_RACE, DEADLOCK), ORDERS[1:])


def test_a_bulk_store_of_unfenced_shared_stores() -> None:
    fails(Ring(fence=False), "not yet made visible to the async proxy", (ASYNC_RACE,))


def test_exiting_while_a_bulk_store_reads_shared_memory() -> None:
    fails(Ring(store_wait=False), "still reads its shared memory", (ASYNC_RACE,))


def test_a_transaction_count_that_never_completes_is_a_deadlock() -> None:
    with pytest.raises(SimulationError, match="tx-count") as err:
        run_ring(Ring(tx_bytes=512))
    assert err.value.kind == DEADLOCK


def test_setmaxnreg_by_part_of_a_warpgroup() -> None:
    r = Ring(producers=128, consumers=128, setmaxnreg="partial")
    with pytest.raises(SimulationError, match="setmaxnreg") as err:
        run_ring(r)
    assert err.value.kind in (INVALID, DEADLOCK)
    # The correct kernel differs only there.
    run_ring(replace(r, setmaxnreg="all"))


# ------------------------------------------------- wgmma operands from a bulk copy


def bulk_fed_wgmma(wait: bool) -> dict:
    """``test_ptx_wgmma``'s kernel with its operand image brought into shared memory by
    one ``cp.async.bulk`` completing on an mbarrier instead of by ``st.shared`` (so no
    proxy fence is needed), the warpgroup waiting for the phase (or not) before its
    ``wgmma``."""
    ptx, (_, _, _, image) = wgmma_build(WgmmaCase())
    size = len(image)
    start = ptx.index("shl.b32 %r3, %r1, 4;")
    end = ptx.index("bar.sync 0;") + len("bar.sync 0;")
    spin = (
        """
$wait:
mbarrier.try_wait.parity.shared::cta.b64 %p7, [%r40], 0;
@!%p7 bra $wait;"""
        if wait
        else ""
    )
    bulk = f"""add.u32 %r40, %r2, {size};
setp.ne.u32 %p7, %r1, 0;
@%p7 bra $issued;
mbarrier.init.shared::cta.b64 [%r40], 1;
mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r40], {size};
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], {size}, [%r40];
$issued:
bar.sync 0;{spin}"""
    return {"replace": [(ptx[start:end], bulk)]}


def test_wgmma_reads_a_stage_a_bulk_copy_filled() -> None:
    wgmma_run(WgmmaCase(), extra=bulk_fed_wgmma(wait=True))


def test_wgmma_before_the_stage_is_full() -> None:
    ptx, (A, _, C, image) = wgmma_build(WgmmaCase(), bulk_fed_wgmma(wait=False))
    with pytest.raises(SimulationError, match=RACING_A_COPY) as err:
        simulate(assembled(ptx), (1, 1, 1), [image, A, C, np.zeros_like(C), 1])
    assert err.value.kind == ASYNC_RACE


BULK = """.version 8.0
.target sm_90a
.address_size 64

.visible .entry bulk(.param .u64 x, .param .u32 size, .param .u32 offset)
.reqntid 32, 1, 1
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    .shared .align 128 .b8 buf[256];
    .shared .align 8 .b8 bar[8];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $L_end;
    mov.u32 %r2, bar;
    mov.u32 %r3, buf;
    ld.param.u64 %rd1, [x];
    ld.param.u32 %r4, [size];
    ld.param.u32 %r5, [offset];
    cvt.u64.u32 %rd2, %r5;
    add.s64 %rd1, %rd1, %rd2;
    mbarrier.init.shared::cta.b64 [%r2], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], %r4;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], %r4, [%r2];
$L_wait:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;
    @!%p1 bra $L_wait;
$L_end:
    ret;
}
"""


@pytest.mark.parametrize(
    ("size", "offset", "match", "kind"),
    [
        (256, 0, None, None),
        (24, 0, "a positive multiple of 16", INVALID),
        (256, 8, "not 16-byte aligned", "misaligned"),
        (256, 320, "outside every array", "out-of-bounds"),
        (512, 0, "outside the thread's CTA's shared memory", "out-of-bounds"),
    ],
)
def test_bulk_copy_sizes_and_addresses(size: int, offset: int, match: str | None, kind) -> None:
    x = np.zeros(128, np.uint32)
    if match is None:
        simulate(assembled(BULK), (1, 1, 1), [x, size, offset])
        return
    with pytest.raises(SimulationError, match=match) as err:
        simulate(assembled(BULK), (1, 1, 1), [x, size, offset])
    assert err.value.kind == kind
