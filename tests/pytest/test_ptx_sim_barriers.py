"""CTAs synchronize independently in the PTX simulator: a CTA may wait at a barrier
that another CTA, on another path, never reaches (a loop that exits after a different
number of trips in each block), and a barrier orders writes only within its CTA."""

from __future__ import annotations

import numpy as np
import pytest

from tileir.testing import SimulationError, simulate

HEADER = ".version 8.0\n.target sm_90a\n.address_size 64\n"


def kernel(body: str) -> str:
    return f"""{HEADER}
.visible .entry k(.param .u64 out)
.reqntid 64, 1, 1
{{
.reg .b32 %r<8>;
.reg .b64 %rd<8>;
.reg .pred %p<3>;
mov.u32 %r1, %tid.x;
mov.u32 %r2, %ctaid.x;
ld.param.u64 %rd1, [out];
{body}
ret;
}}
"""


def test_a_barrier_only_some_ctas_reach_is_fine() -> None:
    # CTA c loops c times, with a barrier in each trip; then thread 0 stores the count.
    body = """
mov.u32 %r3, 0;
LOOP:
setp.ge.u32 %p1, %r3, %r2;
@%p1 bra DONE;
bar.sync 0;
add.u32 %r3, %r3, 1;
bra.uni LOOP;
DONE:
setp.ne.u32 %p2, %r1, 0;
@%p2 bra END;
mul.wide.u32 %rd2, %r2, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.b32 [%rd3], %r3;
END:
"""
    out = np.full(3, -1, np.int32)
    simulate(kernel(body), (3, 1, 1), [out])
    np.testing.assert_array_equal(out, [0, 1, 2])


def test_a_barrier_does_not_order_another_ctas_writes() -> None:
    # Thread 0 of every CTA writes out[0], with a barrier in between: still a race
    # between CTAs.
    body = """
setp.ne.u32 %p2, %r1, 0;
bar.sync 0;
@%p2 bra END;
st.global.b32 [%rd1], %r2;
END:
"""
    with pytest.raises(SimulationError, match="race"):
        simulate(kernel(body), (2, 1, 1), [np.zeros(1, np.int32)])
