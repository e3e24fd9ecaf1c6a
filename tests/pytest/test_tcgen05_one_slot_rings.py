"""sm_100a: the rings of `tcgen05` dots that wait for their own commit every iteration
take one slot less than those of MMAs in flight (`tcgen05_plan.may_stay_in_flight`):
at two stages one slot a ring, refilled once the dot's commit has arrived, and scoped
to their loop (`ring_budget.ring_scoped`).  The corpus's `attention_occupancy_f16`
(128x128 Q, K, V, P in f16, `occupancy = 2`: about 113 KiB a CTA) had no room for
two slots of V beside Q and P; its V now rides a one-slot ring, and so does K since P
went to tensor memory (111,632 bytes), its loop loads no
longer keep their bounds paths in registers, and the kernel spills nothing at the
hint's 128 registers.  In the PTX simulator it matches numpy, and with the wait for
the P·V MMAs' commit removed the refill of V's slot is reported as a copy into shared
memory that a `tcgen05.mma` still reads.  In a loop whose rings all feed such dots, a
wait lets the copies the body issued after its tile's stay in flight (`cp.async.wait_group`
counts them: `async_copy._copies_in_flight`), so V's copy runs while S is computed; one
group more and the simulator reports the MMA reading bytes not yet copied
(docs/codegen.md, "Blackwell")."""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, load_module
from tileir.targets import ctas_per_sm_by_shared
from tileir.testing import SimulationError

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

KERNEL = "attention_occupancy_f16"

#: The wait of a thread for a synchronous `tcgen05` dot's commit (its mbarrier's phase).
COMMIT_WAIT = r"\s*mbarrier\.try_wait\.parity\.shared::cta\.b64 %tc_done[^;]*;\s*@!%tc_done[^;]*;"


@functools.cache
def _ptx(name: str = KERNEL) -> str:
    ptx = compile_module(load_module(CORPUS / f"{name}.mlir"), "sm_100a").ptx
    assert ptx is not None
    return ptx


def test_v_rides_a_one_slot_ring_within_two_ctas_and_spills_nothing() -> None:
    ptx = _ptx()
    assert ".maxnreg 128\n" in ptx
    # V's copies in the loop: a 2-stage ring, so its wait lets no group stay in flight.
    loop = ptx.split("tcgen05.mma.cta_group::1", 1)[1]
    assert "cp.async.cg.shared.global" in loop and "cp.async.wait_all;" in loop
    # K rides a one-slot ring too, now that P goes to tensor memory and the ring budget
    # counts no shared-memory buffer for it (`tcgen05_plan.a_goes_to_tmem`): the PTX
    # copies K's tiles as well as V's (16 copy instructions with V's alone), the loop's
    # twice: unpredicated behind the whole-tile test and counted on the edge path (the
    # prologue's keep their predicates: the kernel's registers are capped, async_copy.py).
    assert ptx.count("cp.async.cg.shared.global") == 48
    assert ptx.count("bra tileir_edge;") == 2
    report = run_ptxas(ptx, "sm_100a")
    assert report.ok and set(report.spills.values()) == {0}, report.output
    smem = re.search(r"(\d+) bytes smem", report.output)
    assert smem is not None and ctas_per_sm_by_shared("sm_100a", int(smem.group(1))) >= 2


def test_one_slot_ring_matches_numpy_and_its_early_refill_fails() -> None:
    ptx = _ptx()
    _common.simulate_case(KERNEL, ptx, 0)
    # The second dot (P·V, the reader of V's slot) without its commit wait: the body's
    # refill of the slot then overwrites V while the MMAs may still read it.
    waits = list(re.finditer(COMMIT_WAIT, ptx))
    assert len(waits) == 2
    broken = ptx[: waits[1].start()] + ptx[waits[1].end() :]
    with pytest.raises(SimulationError, match="an asynchronous copy to shared memory that a"):
        _common.simulate_case(KERNEL, broken, 0)


def test_waits_leave_the_later_copies_of_the_iteration_in_flight() -> None:
    """flash_attention_f16 (64-row tiles, 3 stages: two slots a ring): K's wait lets the
    later stage's K and V and this stage's V stay in flight (3 groups), V's the later
    stage's (2).  test_ptx_tcgen05.py runs the kernel against numpy; here one group more
    at K's wait lets S's MMAs read K before its copy lands."""
    ptx = _ptx("flash_attention_f16")
    loop = ptx.split("tcgen05.mma.cta_group::1", 1)[0].rsplit("cp.async.commit_group;", 1)[1]
    assert "cp.async.wait_group 3;" in loop
    waits = re.findall(r"cp\.async\.wait_(?:group \d+|all);", ptx)
    assert waits == ["cp.async.wait_group 3;", "cp.async.wait_group 2;", "cp.async.wait_all;"]
    broken = ptx.replace("cp.async.wait_group 3;", "cp.async.wait_group 4;", 1)
    with pytest.raises(SimulationError, match="a read of shared bytes that an asynchronous copy"):
        _common.simulate_case("flash_attention_f16", broken, 0)
