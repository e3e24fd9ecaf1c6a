"""sm_80's ``cp.async`` in the PTX simulator (``ptx_async.py``): a multistage pipeline.

Every thread copies its 16-byte chunk of each tile into a ring of shared-memory stages
with ``cp.async.cg`` (``src-size`` zero-filling the ragged end, whose source addresses
lie past the array), commits a group per tile, waits with ``cp.async.wait_group`` for
the tile it needs, meets the others at a ``bar.sync`` and sums its neighbour's chunk.
Broken versions must fail: waiting for one group too few (the chunk is still in
flight), no barrier after the wait (the neighbour's chunk landed for the neighbour
only), and a ``src-size`` larger than the copy.  Each kernel is checked with ptxas for
``sm_80``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_ptx_sim_scheduling import ORDERS

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.testing import INVALID, SimulationError, simulate
from tileir.testing.ptx_errors import ASYNC_RACE

#: A read racing a copy: in flight, landed but not waited for, or overwritten.
RACING_A_COPY = "has not written yet|no wait this thread observed|overwrites a byte"
THREADS = 64
TILE = 16 * THREADS  # bytes per tile: a 16-byte chunk per thread
_ASSEMBLED: set[str] = set()


def assembled(ptx: str) -> str:
    if ptx not in _ASSEMBLED:
        result = run_ptxas(ptx, "sm_80")
        assert result.ok, result.output + "\n" + ptx
        _ASSEMBLED.add(ptx)
    return ptx


def pipeline(
    stages: int = 3,
    lag: int | None = None,
    barrier: bool = True,
    src_size: str = "%r31",
    wait_all: bool = False,
) -> str:
    """``lag``: the pending groups ``cp.async.wait_group`` may leave (``stages - 2``)."""
    lag = stages - 2 if lag is None else lag
    wait = "cp.async.wait_all;" if wait_all else f"cp.async.wait_group {lag};"
    sync = "bar.sync 0;" if barrier else ""

    def issue(tag: str) -> str:
        # Copy chunk c of tile %r10 (if it exists) into stage %r10 % stages; commit.
        return f"""
    setp.ge.u32 %p2, %r10, %r5;
    @%p2 bra $L_skip_{tag};
    rem.u32 %r11, %r10, {stages};
    mad.lo.u32 %r12, %r11, {TILE}, %r6;
    mad.lo.u32 %r13, %r10, {TILE}, %r7;
    sub.u32 %r30, %r4, %r13;
    min.s32 %r31, %r30, 16;
    max.s32 %r31, %r31, 0;
    cvt.u64.u32 %rd2, %r13;
    add.s64 %rd3, %rd1, %rd2;
    cp.async.cg.shared.global [%r12], [%rd3], 16, {src_size};
$L_skip_{tag}:
    cp.async.commit_group;"""

    return f""".version 8.0
.target sm_80
.address_size 64

.visible .entry pipe(.param .u64 x, .param .u64 out, .param .u32 n, .param .u32 tiles)
.reqntid {THREADS}, 1, 1
{{
    .reg .b32 %r<40>;
    .reg .b64 %rd<10>;
    .reg .pred %p<6>;
    .shared .align 16 .b8 stages[{stages * TILE}];
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [x];
    ld.param.u32 %r4, [n];
    shl.b32 %r4, %r4, 2;
    ld.param.u32 %r5, [tiles];
    mov.u32 %r6, stages;
    shl.b32 %r7, %r1, 4;
    add.u32 %r6, %r6, %r7;
    // the neighbour's chunk, relative to a stage
    add.u32 %r8, %r1, 1;
    rem.u32 %r8, %r8, {THREADS};
    shl.b32 %r8, %r8, 4;
    mov.u32 %r9, stages;
    add.u32 %r9, %r9, %r8;
    // prologue: tiles 0 .. {stages - 2}
    mov.u32 %r10, 0;
$L_prologue:
    {issue("prologue")}
    add.u32 %r10, %r10, 1;
    setp.lt.u32 %p1, %r10, {stages - 1};
    @%p1 bra $L_prologue;
    mov.u32 %r20, 0;
    mov.u32 %r21, 0;
$L_loop:
    {wait}
    {sync}
    rem.u32 %r11, %r20, {stages};
    mad.lo.u32 %r22, %r11, {TILE}, %r9;
    ld.shared.v4.u32 {{%r23, %r24, %r25, %r26}}, [%r22];
    add.u32 %r21, %r21, %r23;
    add.u32 %r21, %r21, %r24;
    add.u32 %r21, %r21, %r25;
    add.u32 %r21, %r21, %r26;
    add.u32 %r10, %r20, {stages - 1};
    {issue("loop")}
    add.u32 %r20, %r20, 1;
    setp.lt.u32 %p3, %r20, %r5;
    @%p3 bra $L_loop;
    ld.param.u64 %rd4, [out];
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r21;
    ret;
}}
"""


def run(ptx: str, n: int = 5 * TILE // 4 - 42, order: str = "lockstep", seed: int | None = None):
    tiles = -(-n * 4 // TILE)
    x = np.random.default_rng(n).integers(0, 1000, n, dtype=np.uint32)
    out = np.zeros(THREADS, np.uint32)
    simulate(assembled(ptx), (1, 1, 1), [x, out, n, tiles], warp_order=order, seed=seed)
    padded = np.zeros(tiles * TILE // 4, np.uint32)
    padded[:n] = x
    chunks = padded.reshape(tiles, THREADS, 4).sum(axis=(0, 2), dtype=np.uint32)
    np.testing.assert_array_equal(out, np.roll(chunks, -1))


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize(("order", "seed"), ORDERS)
def test_a_multistage_pipeline(stages: int, order: str, seed: int | None) -> None:
    run(pipeline(stages), order=order, seed=seed)


@pytest.mark.parametrize("n", [TILE // 4, 3 * TILE // 4 - 1, 2 * TILE // 4 + 3, 1])
def test_ragged_ends_are_zero_filled_and_read_nothing_past_the_array(n: int) -> None:
    run(pipeline(), n=n)


def test_wait_all() -> None:
    run(pipeline(wait_all=True))


def test_waiting_for_one_group_too_few_reads_a_chunk_in_flight() -> None:
    for order, seed in ORDERS:
        with pytest.raises(SimulationError, match="has not written yet") as err:
            run(pipeline(3, lag=2), order=order, seed=seed)
        assert err.value.kind == ASYNC_RACE


def test_no_barrier_after_the_wait() -> None:
    # Each thread waited for its own copies; the neighbour's landed for the neighbour
    # (in lock-step), or are still in flight, or land over what a warp running ahead
    # already read.
    for order, seed in ORDERS:
        with pytest.raises(SimulationError, match=RACING_A_COPY) as err:
            run(pipeline(barrier=False), order=order, seed=seed)
        assert err.value.kind == ASYNC_RACE
        if order == "lockstep":
            assert "no wait this thread observed" in str(err.value)


def test_src_size_larger_than_the_copy() -> None:
    ptx = pipeline(src_size="20")
    with pytest.raises(SimulationError, match="src-size 20 exceeds cp-size 16") as err:
        simulate(ptx, (1, 1, 1), [np.zeros(4096, np.uint32), np.zeros(THREADS, np.uint32), 4096, 4])
    assert err.value.kind == INVALID
