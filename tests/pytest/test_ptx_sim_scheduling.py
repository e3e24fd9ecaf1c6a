"""Warps progress independently in the PTX simulator (``tileir/testing/ptx_sched.py``).

Warps run in lock-step by default, one at a time in warp order (``round-robin``) or in
a seeded random order (``random``); corpus kernels give the same bytes in every order.
Named barriers (``bar.sync a, b`` / ``bar.arrive a, b``, ``ptx_barriers.py``) block only
the warps that take part, so a producer warp and a consumer warp can hand slots of a
ring to each other; a barrier nobody can complete is a ``deadlock``.  The hand-written
kernels are checked with ptxas for ``sm_90a``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, load_module
from tileir.testing import INVALID, UNSUPPORTED, SimulationError, simulate
from tileir.testing.ptx_errors import DEADLOCK

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402

HEADER = ".version 8.0\n.target sm_90a\n.address_size 64\n"
ORDERS = [("lockstep", None), ("round-robin", None), ("random", 0), ("random", 1)]
_ASSEMBLED: set[str] = set()


def assembled(ptx: str) -> str:
    """``ptx``, after checking that ptxas accepts it for sm_90a."""
    if ptx not in _ASSEMBLED:
        result = run_ptxas(ptx, "sm_90a")
        assert result.ok, result.output + "\n" + ptx
        _ASSEMBLED.add(ptx)
    return ptx


# ------------------------------------------------------------------ warp orders

TICKETS = (
    HEADER
    + """
.visible .entry tickets(.param .u64 counter, .param .u64 out)
.reqntid 256, 1, 1
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    .reg .pred %p1;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra $L_done;
    ld.param.u64 %rd1, [counter];
    ld.param.u64 %rd2, [out];
    atom.global.add.u32 %r3, [%rd1], 1;
    shr.u32 %r4, %r1, 5;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r3;
$L_done:
    ret;
}
"""
)


def tickets(order: str, seed: int | None) -> list[int]:
    """The order in which the eight warps took a ticket from an atomic counter."""
    counter = np.zeros(1, np.uint32)
    out = np.full(8, 99, np.uint32)
    simulate(assembled(TICKETS), (1, 1, 1), [counter, out], warp_order=order, seed=seed)
    return np.argsort(out).tolist()


def test_warp_orders() -> None:
    assert tickets("lockstep", None) == list(range(8))
    assert tickets("round-robin", None) == list(range(8))
    shuffled = [tickets("random", seed) for seed in range(4)]
    assert all(sorted(t) == list(range(8)) for t in shuffled)
    assert any(t != list(range(8)) for t in shuffled), shuffled
    assert tickets("random", 3) == shuffled[3]  # a seed gives its order again


def test_unknown_warp_order() -> None:
    with pytest.raises(ValueError, match="warp_order"):
        simulate(TICKETS, (1, 1, 1), [np.zeros(1, np.uint32)] * 2, warp_order="fastest")


@pytest.mark.parametrize(
    ("name", "arch"),
    [
        ("softmax_wide_f32", "sm_80"),
        ("cumsum_f32", "sm_80"),
        ("last_block_sum_i32", "sm_90a"),
        ("transpose_f32_2d", "sm_80"),
        ("gemm_f16", "sm_90a"),
    ],
)
def test_corpus_kernels_give_the_same_bytes_in_every_order(name: str, arch: str) -> None:
    ptx = compile_module(load_module(CORPUS / f"{name}.mlir"), arch).ptx
    assert ptx is not None
    case = _common.load_case_module(name)
    results = []
    for order, seed in ORDERS:
        inputs = case.make_inputs(np.random.default_rng(0))
        simulate(ptx, inputs["grid"], _common.flatten_args(inputs), warp_order=order, seed=seed)
        results.append({k: inputs["arrays"][k].copy() for k in inputs["outputs"]})
    for other in results[1:]:
        for k, v in results[0].items():
            np.testing.assert_array_equal(other[k].view(np.uint8), v.view(np.uint8), err_msg=k)


# ---------------------------------------------------------------- named barriers


def ring(producer_waits: bool = True, trips: int = 6) -> str:
    """Warp 1 produces ``trips`` rows of 32 words into a two-slot ring in shared
    memory; warp 0 consumes them: full barriers 0/1 (the producer's ``bar.arrive``, the
    consumer's ``bar.sync``) and empty barriers 2/3 the other way round, 64 threads
    each.  The consumer sums its column and stores it."""
    wait = "bar.sync %r7, 64;" if producer_waits else ""
    return (
        HEADER
        + f"""
.visible .entry ring(.param .u64 out)
.reqntid 64, 1, 1
{{
    .reg .b32 %r<16>;
    .reg .b64 %rd<4>;
    .reg .pred %p<4>;
    .shared .align 16 .b8 slots[256];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    shl.b32 %r3, %r2, 2;
    mov.u32 %r4, slots;
    add.u32 %r4, %r4, %r3;
    mov.u32 %r5, 0;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra $L_produce;
    mov.u32 %r10, 0;
$L_consume:
    and.b32 %r6, %r5, 1;
    bar.sync %r6, 64;
    shl.b32 %r8, %r6, 7;
    add.u32 %r9, %r4, %r8;
    ld.shared.u32 %r11, [%r9];
    add.u32 %r10, %r10, %r11;
    add.u32 %r7, %r6, 2;
    bar.arrive %r7, 64;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p2, %r5, {trips};
    @%p2 bra $L_consume;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r10;
    ret;
$L_produce:
    and.b32 %r6, %r5, 1;
    add.u32 %r7, %r6, 2;
    setp.lt.u32 %p3, %r5, 2;
    @%p3 bra $L_fill;
    {wait}
$L_fill:
    shl.b32 %r8, %r6, 7;
    add.u32 %r9, %r4, %r8;
    mad.lo.u32 %r12, %r5, 32, %r2;
    st.shared.u32 [%r9], %r12;
    bar.arrive %r6, 64;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p2, %r5, {trips};
    @%p2 bra $L_produce;
    ret;
}}
"""
    )


@pytest.mark.parametrize(("order", "seed"), ORDERS)
def test_named_barriers_hand_a_ring_between_warps(order: str, seed: int | None) -> None:
    out = np.zeros(32, np.uint32)
    simulate(assembled(ring()), (1, 1, 1), [out], warp_order=order, seed=seed)
    np.testing.assert_array_equal(out, [sum(32 * i + lane for i in range(6)) for lane in range(32)])


def barrier_kernel(body: str, threads: int = 64) -> str:
    return (
        HEADER
        + f"""
.visible .entry k(.param .u64 out)
.reqntid {threads}, 1, 1
{{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<3>;
    .shared .align 4 .b8 buf[512];
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    ld.param.u64 %rd1, [out];
{body}
    ret;
}}
"""
    )


def test_a_barrier_waiting_for_more_threads_than_come_is_a_deadlock() -> None:
    # Warps 2 and 3 exit; warps 0 and 1 wait for a third warp.
    body = "setp.ge.u32 %p1, %r2, 2;\n@%p1 bra $L_end;\nbar.sync 1, 96;\n$L_end:"
    for order, seed in ORDERS:
        with pytest.raises(SimulationError, match=r"barrier 1 \(96 threads\)") as err:
            simulate(
                assembled(barrier_kernel(body, 128)),
                (1, 1, 1),
                [np.zeros(1)],
                warp_order=order,
                seed=seed,
            )
        assert err.value.kind == DEADLOCK
    with pytest.raises(SimulationError, match="a thread count of 96 in a CTA of 64 threads"):
        simulate(assembled(barrier_kernel("bar.sync 1, 96;")), (1, 1, 1), [np.zeros(1)])


def test_a_warp_arriving_twice_is_an_error() -> None:
    body = (
        "setp.ne.u32 %p1, %r2, 0;\n@%p1 bra $L_end;\nbar.arrive 1, 64;\nbar.arrive 1, 64;\n$L_end:"
    )
    with pytest.raises(SimulationError, match="arrives at barrier 1 twice") as err:
        simulate(assembled(barrier_kernel(body)), (1, 1, 1), [np.zeros(1)])
    assert err.value.kind == INVALID


def test_exited_warps_release_a_barrier_for_all_threads() -> None:
    # Warp 1 exits; warp 0's bar.sync (all threads) completes without it.
    body = """
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra $L_end;
    bar.sync 0;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], 7;
$L_end:"""
    out = np.zeros(64, np.uint32)
    simulate(assembled(barrier_kernel(body)), (1, 1, 1), [out])
    np.testing.assert_array_equal(out, [7] * 32 + [0] * 32)


def test_a_barrier_reached_by_part_of_a_warp_is_divergent() -> None:
    body = "setp.lt.u32 %p1, %r1, 3;\n@%p1 bra $L_end;\nbar.sync 0;\n$L_end:"
    with pytest.raises(SimulationError, match="divergent barrier") as err:
        simulate(assembled(barrier_kernel(body, 32)), (1, 1, 1), [np.zeros(1)])
    assert err.value.kind == UNSUPPORTED


PAIRS = """
    shl.b32 %r3, %r1, 2;
    mov.u32 %r4, buf;
    add.u32 %r5, %r4, %r3;
    st.shared.u32 [%r5], %r1;
    shr.u32 %r6, %r2, 1;
    add.u32 %r6, %r6, 1;
    bar.sync %r6, 64;
    xor.b32 %r7, %r1, {partner};
    shl.b32 %r7, %r7, 2;
    add.u32 %r7, %r4, %r7;
    ld.shared.u32 %r7, [%r7];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
"""


@pytest.mark.parametrize(("order", "seed"), ORDERS)
def test_barriers_over_pairs_of_warps(order: str, seed: int | None) -> None:
    # Warps 0 and 1 meet at barrier 1, warps 2 and 3 at barrier 2 (64 threads each);
    # each thread reads the word its partner in the other warp of its pair stored.
    out = np.zeros(128, np.uint32)
    ptx = assembled(barrier_kernel(PAIRS.format(partner=32), 128))
    simulate(ptx, (1, 1, 1), [out], warp_order=order, seed=seed)
    np.testing.assert_array_equal(out, np.arange(128) ^ 32)
