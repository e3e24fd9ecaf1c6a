"""The PTX simulator's atomics (``atom``, ``red``), which tileir's atomic ops use:
hand-written kernels where every thread of two CTAs hits a few addresses, checked
against the sequential result, and the forms ptxas rejects."""

from __future__ import annotations

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.testing import SimulationError, simulate

HEADER = ".version 8.0\n.target sm_90a\n.address_size 64\n"


def atomic_kernel(instruction: str) -> str:
    """Thread t applies ``instruction`` with %r1 = t, %r2 = t + 1 at a[t % 4] and
    writes the returned value (``%r3``) to old[t]."""
    return f"""{HEADER}
.visible .entry k(.param .u64 a, .param .u64 old)
.reqntid 64, 1, 1
{{
.reg .b32 %r<8>;
.reg .b64 %rd<8>;
mov.u32 %r5, %tid.x;
mov.u32 %r6, %ctaid.x;
mad.lo.s32 %r1, %r6, 64, %r5;
add.s32 %r2, %r1, 1;
mov.b32 %r3, 0;
ld.param.u64 %rd1, [a];
and.b32 %r4, %r1, 3;
mul.wide.u32 %rd2, %r4, 4;
add.s64 %rd3, %rd1, %rd2;
{instruction}
ld.param.u64 %rd4, [old];
mul.wide.u32 %rd5, %r1, 4;
add.s64 %rd6, %rd4, %rd5;
st.global.b32 [%rd6], %r3;
ret;
}}
"""


def run(instruction: str, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    old = np.zeros(128, np.int32)
    simulate(atomic_kernel(instruction), (2, 1, 1), [a, old])
    return a, old


def test_atom_add_counts_every_thread_and_returns_distinct_olds() -> None:
    a, old = run("atom.relaxed.gpu.global.add.u32 %r3, [%rd3], 1;", np.zeros(4, np.int32))
    np.testing.assert_array_equal(a, [32, 32, 32, 32])
    for slot in range(4):
        assert sorted(old[slot::4]) == list(range(32))


def test_red_max_and_xor() -> None:
    a, _ = run("red.relaxed.gpu.global.max.s32 [%rd3], %r1;", np.full(4, -5, np.int32))
    np.testing.assert_array_equal(a, [124, 125, 126, 127])
    a, _ = run("red.release.cta.global.xor.b32 [%rd3], %r2;", np.zeros(4, np.int32))
    t = np.arange(128) + 1
    np.testing.assert_array_equal(a, [np.bitwise_xor.reduce(t[s::4]) for s in range(4)])


def test_atom_cas_and_exch() -> None:
    # Only the thread that finds 0 swaps in its id + 1; the others see a non-zero.
    a, old = run("atom.acq_rel.gpu.global.cas.b32 %r3, [%rd3], 0, %r2;", np.zeros(4, np.int32))
    for slot in range(4):
        winners = [t for t in range(slot, 128, 4) if old[t] == 0]
        assert len(winners) == 1 and a[slot] == winners[0] + 1
    a, old = run("atom.relaxed.sys.global.exch.b32 %r3, [%rd3], %r2;", np.full(4, 7, np.int32))
    for slot in range(4):
        values = sorted([*old[slot::4], a[slot]])
        assert values == sorted([7, *range(slot + 1, 129, 4)])


def test_atom_add_f32_rounds_each_addition() -> None:
    a = np.zeros(4, np.float32)
    old = np.zeros(128, np.int32)
    ptx = atomic_kernel(
        "cvt.rn.f32.u32 %r7, %r2;\natom.relaxed.gpu.global.add.f32 %r3, [%rd3], %r7;"
    )
    simulate(ptx, (2, 1, 1), [a, old])
    expected = [np.float32(sum(range(s + 1, 129, 4))) for s in range(4)]
    np.testing.assert_array_equal(a, expected)


def test_atomic_kernels_are_valid_ptx() -> None:
    for ins in (
        "atom.relaxed.gpu.global.add.u32 %r3, [%rd3], 1;",
        "red.release.cta.global.xor.b32 [%rd3], %r2;",
        "atom.acq_rel.gpu.global.cas.b32 %r3, [%rd3], 0, %r2;",
    ):
        report = run_ptxas(atomic_kernel(ins), "sm_90a")
        assert report.ok, report.output


@pytest.mark.parametrize(
    "instruction",
    [
        "red.acq_rel.gpu.global.add.u32 [%rd3], 1;",  # red has no acquire side
        "atom.relaxed.global.add.u32 %r3, [%rd3], 1;",  # an order needs a scope
        "atom.relaxed.gpu.global.xor.u32 %r3, [%rd3], 1;",  # bitwise ops take .b types
    ],
)
def test_invalid_atomics_are_rejected(instruction: str) -> None:
    with pytest.raises(SimulationError, match="invalid PTX"):
        run(instruction, np.zeros(4, np.int32))
