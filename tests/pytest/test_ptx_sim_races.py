"""Read-after-write and write-after-read races in shared memory (``ptx_races.py``).

A thread reading shared bytes that another thread stored, or storing over bytes that
another thread read, with no barrier (or other synchronization) ordering the two
accesses, is a ``race``, whatever order the simulator ran them in.  The real case: a
cross-warp reduction of a corpus kernel with the ``bar.sync`` between its shared
store and load deleted (the mutation issue 18 says only a barrier count caught).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from test_ptx_sim_scheduling import ORDERS, PAIRS, assembled, barrier_kernel, ring

from tileir.compiler import compile_module, load_module
from tileir.testing import RACE, SimulationError, simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

# ------------------------------------------------------------- a corpus kernel


def exchange_barriers(ptx: str) -> tuple[int, int]:
    """The line indices of the first cross-warp exchange's two barriers: the
    ``bar.sync`` between its ``st.shared`` and ``ld.shared``, and the one after the
    loads (before the shared words are stored again)."""
    lines = ptx.splitlines()
    store = next(i for i, line in enumerate(lines) if "st.shared" in line)
    first = next(i for i in range(store, len(lines)) if "bar.sync" in lines[i])
    load = next(i for i in range(first, len(lines)) if "ld.shared" in lines[i])
    assert not any("bar.sync" in line for line in lines[first + 1 : load])
    second = next(i for i in range(load, len(lines)) if "bar.sync" in lines[i])
    return first, second


def without_line(ptx: str, index: int) -> str:
    lines = ptx.splitlines()
    return "\n".join(lines[:index] + lines[index + 1 :]) + "\n"


def softmax_wide() -> tuple[str, list[object], tuple[int, int, int]]:
    """``softmax_wide_f32`` for sm_80 (a row per CTA of four warps: the row maximum and
    the sum cross the warps through shared memory), and its arguments."""
    import sys

    if str(CORPUS) not in sys.path:
        sys.path.insert(0, str(CORPUS))
    import _common

    ptx = compile_module(load_module(CORPUS / "softmax_wide_f32.mlir"), "sm_80").ptx
    assert ptx is not None
    case = _common.load_case_module("softmax_wide_f32")
    inputs = case.make_inputs(np.random.default_rng(0))
    return ptx, _common.flatten_args(inputs), inputs["grid"]


def test_the_corpus_kernel_is_race_free() -> None:
    ptx, args, grid = softmax_wide()
    for order, seed in ORDERS[:3]:
        simulate(ptx, grid, args, warp_order=order, seed=seed)


def test_a_membar_in_place_of_the_barrier_orders_no_other_thread() -> None:
    """``membar.cta`` orders only its own thread's accesses (the consumer's drains of a
    warp-specialized kernel with several K loops end with one): put where the exchange's
    ``bar.sync`` was, the other warps' stores are still unordered before the loads."""
    ptx, args, grid = softmax_wide()
    first, _ = exchange_barriers(ptx)
    lines = ptx.splitlines()
    lines[first] = "\tmembar.cta;"
    with pytest.raises(SimulationError, match=r"(wrote|reads) this byte, unordered") as err:
        simulate("\n".join(lines) + "\n", grid, args)
    assert err.value.kind == RACE


@pytest.mark.parametrize(("order", "seed"), ORDERS)
def test_a_deleted_barrier_before_the_load_is_a_read_after_write_race(
    order: str, seed: int | None
) -> None:
    # In lock-step the loads find the stores unordered; a warp running ahead alone
    # reads the words before the others store them, and their stores find that.
    ptx, args, grid = softmax_wide()
    first, _ = exchange_barriers(ptx)
    assert re.fullmatch(r"\s*bar\.sync 0;", ptx.splitlines()[first])
    with pytest.raises(SimulationError, match=r"(wrote|reads) this byte, unordered") as err:
        simulate(without_line(ptx, first), grid, args, warp_order=order, seed=seed)
    assert err.value.kind == RACE
    if order == "lockstep":
        assert "ld.shared" in str(err.value) and "wrote this byte" in str(err.value)


def test_a_deleted_barrier_after_the_load_is_a_write_after_read_race() -> None:
    # The next exchange stores over the words before the other warps are done reading.
    ptx, args, grid = softmax_wide()
    _, second = exchange_barriers(ptx)
    with pytest.raises(SimulationError, match="reads this byte, unordered") as err:
        simulate(without_line(ptx, second), grid, args)
    assert err.value.kind == RACE
    assert "st.shared" in str(err.value)


# ------------------------------------------------------------ hand-written kernels

NEIGHBOUR = """
    shl.b32 %r3, %r1, 2;
    mov.u32 %r4, buf;
    add.u32 %r5, %r4, %r3;
    st.shared.u32 [%r5], %r1;
    {barrier}
    add.u32 %r6, %r1, {step};
    and.b32 %r6, %r6, 127;
    shl.b32 %r6, %r6, 2;
    add.u32 %r6, %r4, %r6;
    ld.shared.u32 %r7, [%r6];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
"""


@pytest.mark.parametrize("step", [1, 32])
def test_reading_a_neighbours_word(step: int) -> None:
    ptx = assembled(barrier_kernel(NEIGHBOUR.format(barrier="bar.sync 0;", step=step), 128))
    out = np.zeros(128, np.uint32)
    simulate(ptx, (1, 1, 1), [out])
    np.testing.assert_array_equal(out, (np.arange(128) + step) % 128)
    unordered = assembled(barrier_kernel(NEIGHBOUR.format(barrier="", step=step), 128))
    for order, seed in ORDERS:
        with pytest.raises(SimulationError, match=r"(wrote|reads) this byte, unordered") as err:
            simulate(unordered, (1, 1, 1), [out], warp_order=order, seed=seed)
        assert err.value.kind == RACE


def test_reading_ones_own_word_needs_no_barrier() -> None:
    ptx = assembled(barrier_kernel(NEIGHBOUR.format(barrier="", step=0), 128))
    out = np.zeros(128, np.uint32)
    simulate(ptx, (1, 1, 1), [out])
    np.testing.assert_array_equal(out, np.arange(128))


def test_a_producer_that_does_not_wait_for_its_slot_races() -> None:
    # The named-barrier ring of test_ptx_sim_scheduling with the producer's wait on
    # the empty barrier deleted: it stores over a row the consumer read, unordered.
    with pytest.raises(SimulationError, match="reads this byte, unordered") as err:
        simulate(assembled(ring(producer_waits=False)), (1, 1, 1), [np.zeros(32, np.uint32)])
    assert err.value.kind == RACE


def test_a_pair_barrier_does_not_order_the_other_pair() -> None:
    ptx = assembled(barrier_kernel(PAIRS.format(partner=64), 128))
    with pytest.raises(SimulationError, match="wrote this byte, unordered") as err:
        simulate(ptx, (1, 1, 1), [np.zeros(128, np.uint32)])
    assert err.value.kind == RACE
