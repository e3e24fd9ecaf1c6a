"""The PTX simulator's `ldmatrix` and `mma.sync` (`tileir/testing/ptx_mma.py`),
on a hand-written one-warp kernel in the style of
`/work/shared/reference/ptx_kernels/mma_sync_sm80.ptx` (which ptxas accepts):
D[16x8] = A[16x16] · B[16x8] + C with A row-major and B row-major KxN (loaded
with `ldmatrix.trans`)."""

from __future__ import annotations

import numpy as np
import pytest

from tileir.testing import SimulationError, simulate

# Lane l: copies 16 bytes of A (row l/2, half l%2) and, for l < 16, of B (row l, 8 cols
# = 16 bytes) into shared; ldmatrix.x4 for A at row l%16, col 8*(l/16); ldmatrix.x2.trans
# for B at row l%16; C and D: rows g, g+8 and cols 2c, 2c+1 with g = l/4, c = l%4.
PTX = """
.version 7.8
.target sm_80
.address_size 64
.visible .entry mma(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
.reqntid NTID, 1, 1
{
.reg .pred %p<2>;
.reg .b32 %r<40>;
.reg .b64 %rd<20>;
.reg .f32 %f<12>;
.shared .align 16 .b8 sA[512];
.shared .align 16 .b8 sB[256];
ld.param.u64 %rd1, [pa];
ld.param.u64 %rd2, [pb];
ld.param.u64 %rd3, [pc];
ld.param.u64 %rd4, [pd];
cvta.to.global.u64 %rd1, %rd1;
cvta.to.global.u64 %rd2, %rd2;
cvta.to.global.u64 %rd3, %rd3;
cvta.to.global.u64 %rd4, %rd4;
mov.u32 %r1, %tid.x;
and.b32 %r1, %r1, 31;
mov.u32 %r2, sA;
mov.u32 %r3, sB;
shl.b32 %r4, %r1, 4;
cvt.u64.u32 %rd5, %r4;
add.s64 %rd6, %rd1, %rd5;
ld.global.v4.b32 {%r20, %r21, %r22, %r23}, [%rd6];
add.s32 %r5, %r2, %r4;
st.shared.v4.b32 [%r5], {%r20, %r21, %r22, %r23};
setp.lt.u32 %p1, %r1, 16;
add.s64 %rd7, %rd2, %rd5;
@%p1 ld.global.v4.b32 {%r24, %r25, %r26, %r27}, [%rd7];
add.s32 %r6, %r3, %r4;
@%p1 st.shared.v4.b32 [%r6], {%r24, %r25, %r26, %r27};
bar.sync 0;
and.b32 %r7, %r1, 15;
shr.u32 %r8, %r1, 4;
shl.b32 %r9, %r7, 5;
shl.b32 %r10, %r8, 4;
add.s32 %r11, %r9, %r10;
add.s32 %r12, %r2, %r11;
ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r20, %r21, %r22, %r23}, [%r12];
shl.b32 %r13, %r7, 4;
add.s32 %r14, %r3, %r13;
ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r24, %r25}, [%r14];
shr.u32 %r30, %r1, 2;
and.b32 %r31, %r1, 3;
shl.b32 %r32, %r30, 3;
shl.b32 %r33, %r31, 1;
add.s32 %r34, %r32, %r33;
mul.wide.u32 %rd10, %r34, 4;
add.s64 %rd11, %rd3, %rd10;
ld.global.v2.f32 {%f1, %f2}, [%rd11];
ld.global.v2.f32 {%f3, %f4}, [%rd11+256];
mma.sync.aligned.m16n8k16.row.col.f32.KIND.KIND.f32 {%f5, %f6, %f7, %f8}, {%r20, %r21, %r22, %r23}, {%r24, %r25}, {%f1, %f2, %f3, %f4};
add.s64 %rd12, %rd4, %rd10;
st.global.v2.f32 [%rd12], {%f5, %f6};
st.global.v2.f32 [%rd12+256], {%f7, %f8};
ret;
}
"""


def _run(kind: str, ntid: int = 32) -> tuple[np.ndarray, np.ndarray]:
    import ml_dtypes

    dtype = np.float16 if kind == "f16" else ml_dtypes.bfloat16
    rng = np.random.default_rng(7)
    a = rng.uniform(-2, 2, (16, 16)).astype(dtype)
    b = rng.uniform(-2, 2, (16, 8)).astype(dtype)
    c = rng.uniform(-2, 2, (16, 8)).astype(np.float32)
    d = np.zeros((16, 8), dtype=np.float32)
    ptx = PTX.replace("KIND", kind).replace("NTID", str(ntid))
    simulate(ptx, (1, 1, 1), [a, b, c, d])
    expected = a.astype(np.float64) @ b.astype(np.float64) + c
    return d, expected


@pytest.mark.parametrize("kind", ["f16", "bf16"])
def test_ldmatrix_and_mma_compute_a_16x8_tile(kind: str) -> None:
    d, expected = _run(kind)
    np.testing.assert_allclose(d, expected, rtol=1e-6, atol=1e-5)


# tf32 (m16n8k8): A is 16x8 words (rows of 32 bytes, the same ldmatrix.x4 addresses);
# B is stored N x K (8 rows of 8 words) and read with a plain ldmatrix.x2: lane l gives
# row l%8 at byte 16*((l/8)%2).
TF32_REPLACEMENTS = [
    (
        "shl.b32 %r13, %r7, 4;",
        "and.b32 %r13, %r1, 7;\nshl.b32 %r13, %r13, 5;\nshr.u32 %r15, %r1, 3;\n"
        "and.b32 %r15, %r15, 1;\nshl.b32 %r15, %r15, 4;\nadd.s32 %r13, %r13, %r15;",
    ),
    ("m8n8.x2.trans.shared", "m8n8.x2.shared"),
    ("m16n8k16.row.col.f32.KIND.KIND.f32", "m16n8k8.row.col.f32.tf32.tf32.f32"),
]


def _tf32(x: np.ndarray) -> np.ndarray:
    """The value a tensor core reads from a tf32 operand word: its upper 19 bits."""
    return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def test_mma_tf32_reads_the_upper_19_bits() -> None:
    from tileir.backend.ptx.ptxas import run_ptxas

    ptx = PTX.replace("NTID", "32")
    for old, new in TF32_REPLACEMENTS:
        assert old in ptx
        ptx = ptx.replace(old, new)
    result = run_ptxas(ptx, "sm_80")
    assert result.ok, result.output
    rng = np.random.default_rng(11)
    a = rng.uniform(-2, 2, (16, 8)).astype(np.float32)  # not tf32 values: 23 fraction bits
    bt = rng.uniform(-2, 2, (8, 8)).astype(np.float32)  # B^T: N x K
    c = rng.uniform(-2, 2, (16, 8)).astype(np.float32)
    d = np.zeros((16, 8), dtype=np.float32)
    simulate(ptx, (1, 1, 1), [a, bt, c, d])
    exact = _tf32(a).astype(np.float64) @ _tf32(bt).astype(np.float64).T + c
    np.testing.assert_allclose(d, exact, rtol=1e-6, atol=1e-6)
    # The dropped bits matter at this tolerance: the full f32 product is further off.
    full = a.astype(np.float64) @ bt.astype(np.float64).T + c
    assert np.abs(full - exact).max() > 1e-4


def test_part_of_a_warp_cannot_run_a_collective() -> None:
    with pytest.raises(SimulationError, match="only part of a warp"):
        _run("f16", ntid=16)
