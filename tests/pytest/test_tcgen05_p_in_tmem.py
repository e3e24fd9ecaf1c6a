"""sm_100a: attention's P in tensor memory (`tcgen05.mma ... [d], [a-tmem], b-desc`).

Where the A of a `tcgen05` dot is computed in registers in its loop (attention's P) as
128 rows of 16-bit elements, one row a thread in its warp's lane quarter
(`tcgen05_plan.a_in_tmem_obstacle`), `tileas-tmem-accumulators` gives it tensor-memory
columns (`nv_tileas.tmem_a_column`: S's, which the softmax has read) and the lowering
writes it there with `tcgen05.st.32x32b` (two elements a column, data-path layout D)
instead of through a shared-memory buffer; its MMAs read it from there.  The corpus's
`attention_occupancy_f16` (128x128 f16 tiles) so keeps its 256 columns and two CTAs.  The PTX
simulator models A in tensor memory from the ISA (`testing/ptx_tcgen05.py`) and reports
an MMA reading columns a `tcgen05.st` has not waited for, and a store or an MMA writing
columns an MMA not yet completed still reads as A (docs/codegen.md, "P in tensor
memory")."""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, load_module
from tileir.targets import ctas_per_sm_by_shared
from tileir.testing import SimulationError, simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

KERNEL = "attention_occupancy_f16"

#: A `tcgen05.mma` whose A is a tensor-memory address.
MMA_A_IN_TMEM = re.compile(r"tcgen05\.mma\.cta_group::1\.kind::f16 \[%r\d+\], \[%r\d+\],")


@functools.cache
def _ptx() -> str:
    ptx = compile_module(load_module(CORPUS / f"{KERNEL}.mlir"), "sm_100a").ptx
    assert ptx is not None
    return ptx


def test_p_goes_to_tensor_memory_and_the_kernel_keeps_two_ctas() -> None:
    ptx = _ptx()
    # P.V's 8 K steps read A from tensor memory; S's read Q from shared memory.
    assert len(MMA_A_IN_TMEM.findall(ptx)) == 8
    assert len(re.findall(r"tcgen05\.mma\.cta_group::1", ptx)) == 16
    report = run_ptxas(ptx, "sm_100a")
    assert report.ok and set(report.spills.values()) == {0}, report.output
    smem = re.search(r"(\d+) bytes smem", report.output)
    assert smem is not None and ctas_per_sm_by_shared("sm_100a", int(smem.group(1))) >= 2


def test_mma_before_the_stores_wait_fails() -> None:
    """test_tcgen05_one_slot_rings.py runs the kernel against numpy; without the
    `tcgen05.wait::st` after P's stores the MMA reads columns not yet written."""
    ptx = _ptx()
    first_a_mma = MMA_A_IN_TMEM.search(ptx)
    assert first_a_mma is not None
    head, tail = ptx[: first_a_mma.start()], ptx[first_a_mma.start() :]
    wait = head.rindex("tcgen05.wait::st.sync.aligned;")
    broken = head[:wait] + head[wait:].replace("tcgen05.wait::st.sync.aligned;", "", 1) + tail
    with pytest.raises(SimulationError, match="has not waited for"):
        _common.simulate_case(KERNEL, broken, 0)


def _a_kernel(after_commit: str = "", wait_st: bool = True) -> str:
    """128 threads: thread `t` writes row `t` of a 128x16 f16 A, every element `t % 8`,
    into tensor-memory columns 32 .. 39 (`.32x32b.x8`, its warp's lane quarter); B, 16x16
    f16 ones, in shared memory; one `tcgen05.mma` M = 128, N = 16 with A from tensor
    memory into columns 0 .. 15; `after_commit` runs (uniformly) between the commit and
    the wait for it; each thread stores its row of D."""
    words = ", ".join(["%r20"] * 8)
    row = ", ".join(f"%r{30 + c}" for c in range(16))
    return f"""
.version 8.6
.target sm_100a
.address_size 64
.visible .entry a_in_tmem(.param .u64 out) .reqntid 128, 1, 1 {{
  .reg .b32 %r<60>;
  .reg .b64 %rd<8>;
  .reg .b16 %h<2>;
  .reg .pred %p<6>;
  .shared .align 16 .b8 bmat[512];
  .shared .align 8 .b8 slot[8];
  .shared .align 8 .b8 bar[8];
  mov.u32 %r3, %tid.x;
  shr.u32 %r4, %r3, 5;
  mov.u32 %r1, slot;
  mov.u32 %r8, bar;
  setp.eq.u32 %p1, %r4, 0;
  setp.eq.u32 %p2, %r3, 0;
  setp.ne.u32 %p3, %r3, %r3;
  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 64;
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  @%p2 mbarrier.init.shared::cta.b64 [%r8], 1;
  mov.u32 %r5, bmat;
  shl.b32 %r6, %r3, 2;
  add.u32 %r7, %r5, %r6;
  mov.b32 %r9, 0x3C003C00;
  st.shared.b32 [%r7], %r9;
  fence.proxy.async.shared::cta;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.b32 %r2, [%r1];
  and.b32 %r13, %r3, 7;
  cvt.rn.f16.u32 %h0, %r13;
  mov.b32 %r20, {{%h0, %h0}};
  shl.b32 %r14, %r4, 21;
  add.u32 %r10, %r2, %r14;
  add.u32 %r11, %r10, 32;
  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r11], {{{words}}};
  {"tcgen05.wait::st.sync.aligned;" if wait_st else ""}
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  add.u32 %r12, %r2, 32;
  cvt.u64.u32 %rd1, %r5;
  shr.u64 %rd1, %rd1, 4;
  and.b64 %rd1, %rd1, 16383;
  or.b64 %rd2, %rd1, 70437464178688;
  mov.b32 %r15, 134479888;
  @%p2 tcgen05.mma.cta_group::1.kind::f16 [%r2], [%r12], %rd2, %r15, %p3;
  @%p2 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r8];
  {after_commit}
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r8], 0;
  @!%p4 bra.uni $L_wait;
  tcgen05.fence::after_thread_sync;
  tcgen05.ld.sync.aligned.32x32b.x16.b32 {{{row}}}, [%r10];
  tcgen05.wait::ld.sync.aligned;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd3, %rd3;
  mul.wide.u32 %rd4, %r3, 64;
  add.u64 %rd5, %rd3, %rd4;
  st.global.v4.b32 [%rd5], {{%r30, %r31, %r32, %r33}};
  st.global.v4.b32 [%rd5+16], {{%r34, %r35, %r36, %r37}};
  st.global.v4.b32 [%rd5+32], {{%r38, %r39, %r40, %r41}};
  st.global.v4.b32 [%rd5+48], {{%r42, %r43, %r44, %r45}};
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 64;
  ret;
}}
"""


def test_a_from_tensor_memory_in_the_simulator() -> None:
    """The ISA's A in tensor memory (M = 128: row `i` in lane `i`, two 16-bit elements a
    column): D = A B with B all ones is each row's sum, `16 (i % 8)`.  Without the
    stores' wait, with a store into A's columns or an MMA writing D over them before the
    commit's phase is observed, the simulator fails."""
    ptx = _a_kernel()
    assert run_ptxas(ptx, "sm_100a").ok
    out = np.zeros((128, 16), dtype=np.float32)
    simulate(ptx, (1, 1, 1), [out])
    expected = np.repeat((16.0 * (np.arange(128) % 8))[:, None], 16, axis=1)
    np.testing.assert_array_equal(out, expected)
    with pytest.raises(SimulationError, match="has not waited for"):
        simulate(_a_kernel(wait_st=False), (1, 1, 1), [out])
    overwrite = "tcgen05.st.sync.aligned.32x32b.x8.b32 [%r11], {" + ", ".join(["%r9"] * 8) + "};"
    with pytest.raises(SimulationError, match="still reads as A"):
        simulate(_a_kernel(overwrite), (1, 1, 1), [out])
    second = "@%p2 tcgen05.mma.cta_group::1.kind::f16 [%r12], [%r12], %rd2, %r15, %p3;"
    with pytest.raises(SimulationError, match="still reads as A"):
        simulate(_a_kernel(second), (1, 1, 1), [out])
