"""sm_100a's block-scaled tensor-core MMA in the PTX simulator (issue 16, the step before
code generation): hand-written PTX that ptxas accepts (`ptxas -arch=sm_100a`) stages A
(e4m3), B (e5m2) and their e8m0 scale factors in shared memory, copies the scales to
tensor memory with `tcgen05.cp` (`.32x128b.warpx4` for A's, `.64x128b.warpx2::01_23` for
B's), issues two `tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X`
(K = 64: the scale-factor IDs 0 and 1 pick each K block's byte), commits, reads D back
with `tcgen05.ld` and stores it: equal to numpy's dequantized product, extreme scales
included.  Broken variants (scales read by an MMA of another thread before the copy's
commit was observed, a source stored without `fence.proxy.async`, a wrong scale-vector
size, scale columns one off (the copy's, the MMA's), a copy over scales the MMAs still
read, an M or N the kind does not take, scales not duplicated in every lane quarter) are
reported; each `tcgen05.cp` shape lands where the ISA says
(`tileir/testing/ptx_tcgen05_scaled.py`; docs/codegen.md, "Blackwell")."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.testing import SimulationError, simulate
from tileir.testing.ptx_tcgen05_scaled import decode_scaled_descriptor

N = 64
#: Shared-memory image: A (two K blocks of 128 x 32 bytes), B (two of N x 32), the
#: scales of A (32 rows of 16 bytes), those of B (64 rows of 16 bytes: two copies).
A_AT, B_AT, SFA_AT, SFB_AT = 0, 8192, 8192 + 2 * 32 * N, 8192 + 2 * 32 * N + 512
TOTAL = SFB_AT + 1024
#: Tensor-memory columns (one 128-column allocation): D, scale_B, scale_A.
D_COL, SFB_COL, SFA_COL, COLUMNS = 0, 116, 124, 128
# Core matrices: the two 16-byte halves of a row 128 bytes apart, 8-row groups 256 apart.
LBO, SBO = 128, 256


def _canonical(rows: np.ndarray) -> np.ndarray:
    """``(R, 32)`` bytes in the K-major canonical layout without swizzle (LBO, SBO)."""
    r = np.arange(rows.shape[0])[:, None]
    b = np.arange(32)[None, :]
    out = np.zeros(rows.shape[0] * 32, dtype=np.uint8)
    out[(r // 8) * SBO + (b // 16) * LBO + (r % 8) * 16 + b % 16] = rows
    return out


def _blocked(scales: np.ndarray, junk: np.ndarray) -> np.ndarray:
    """Scale bytes ``(R, J)`` (R <= 128, J <= 4) as 32 rows of 16 bytes: factor `j` of
    row `i` at byte ``16 (i % 32) + 4 (i / 32) + j`` (the other bytes: `junk`)."""
    out = junk.copy()
    i = np.arange(scales.shape[0])[:, None]
    out[16 * (i % 32) + 4 * (i // 32) + np.arange(scales.shape[1])[None, :]] = scales
    return out


def _head(entry: str, params: str, smem: int, columns: int) -> str:
    """A 128-thread sm_100a kernel's start: %r3 the thread, %r4 its warp, %r5 `smem`,
    %r8 / %r9 the mbarriers `bar` / `bar_cp` (thread 0 initializes them), %p1 warp 0
    (which allocates `columns`), %p2 thread 0, %p3 false, %p4 true."""
    return f"""
.version 8.7
.target sm_100a
.address_size 64
.visible .entry {entry}({params}.param .u64 out) .reqntid 128, 1, 1 {{
  .reg .b32 %r<100>;
  .reg .b64 %rd<20>;
  .reg .pred %p<8>;
  .shared .align 128 .b8 smem[{smem}];
  .shared .align 8 .b8 slot[8];
  .shared .align 8 .b8 bar[8];
  .shared .align 8 .b8 bar_cp[8];
  mov.u32 %r3, %tid.x;
  shr.u32 %r4, %r3, 5;
  mov.u32 %r1, slot;
  mov.u32 %r8, bar;
  mov.u32 %r9, bar_cp;
  mov.u32 %r5, smem;
  setp.eq.u32 %p1, %r4, 0;
  setp.eq.u32 %p2, %r3, 0;
  setp.ne.u32 %p3, %r3, %r3;
  setp.eq.u32 %p4, %r3, %r3;
  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], {columns};
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  @%p2 mbarrier.init.shared::cta.b64 [%r8], 1;
  @%p2 mbarrier.init.shared::cta.b64 [%r9], 1;
"""


def _tail(columns: int) -> str:
    """Every warp done with tensor memory, warp 0 frees the `columns` it allocated."""
    return f"""  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, {columns};
  ret;
}}
"""


def _descriptor(reg: str, at: int, lbo: int, sbo: int) -> str:
    high = (lbo >> 4) << 16 | (sbo >> 4) << 32 | 1 << 46
    return (
        f"  add.u32 %r60, %r5, {at};\n"
        f"  cvt.u64.u32 {reg}, %r60;\n"
        f"  shr.u64 {reg}, {reg}, 4;\n"
        f"  and.b64 {reg}, {reg}, 16383;\n"
        f"  or.b64 {reg}, {reg}, {high};\n"
    )


#: Per kind and scale vector: the A and B type codes, UE8M0 (bit 23), the scale-factor
#: ID of the first and the second MMA.
FORMS = {
    ("mxf8f6f4", 1): (0, 1, 1, 0, 1),  # e4m3 x e5m2, one factor per K block: bytes 0, 1
    ("mxf4", 2): (1, 1, 1, 0, 2),  # e2m1, two factors per K block: bytes 0-1, 2-3
    ("mxf4nvf4", 4): (1, 1, 0, 0, 0),  # e2m1, four UE4M3 factors: bytes 0-3 (both MMAs)
}


def idesc(step: int, kind: str = "mxf8f6f4", vector: int = 1) -> int:
    """The instruction descriptor of MMA `step` (N, M = 128, the scale-factor IDs of
    ``FORMS``)."""
    a, b, e8m0, *ids = FORMS[kind, vector]
    sf = ids[step]
    return a << 7 | b << 10 | (N >> 3) << 17 | e8m0 << 23 | 1 << 27 | sf << 29 | sf << 4


def _kernel(
    *,
    kind: str = "mxf8f6f4",
    vector: str = ".scale_vec::1X",
    sfa_shift: int = 0,
    fence: bool = True,
    cp_thread: int = 0,
    wait_cp: bool = True,
    sfb_multicast: str = "warpx2::01_23",
    cp_shift: int = 0,
    idesc_or: int = 0,
    after_mma: str = "",
) -> str:
    """The kernel described in the module docstring; the keywords break it (`cp_shift`
    moves A's scale copy, `idesc_or` sets descriptor bits, `after_mma` runs right after
    the MMAs, before their commit)."""
    cp_sync = ""
    if cp_thread:
        cp_sync = (
            "  @%p6 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r9];\n"
        )
        if wait_cp:
            cp_sync += (
                "$L_cp:\n"
                "  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r9], 0;\n"
                "  @!%p5 bra.uni $L_cp;\n"
                "  tcgen05.fence::after_thread_sync;\n"
            )
    loads = []
    for i in range(N // 16):
        row = ", ".join(f"%r{70 + c}" for c in range(16))
        loads.append(
            f"  tcgen05.ld.sync.aligned.32x32b.x16.b32 {{{row}}}, [%r10+{16 * i}];\n"
            "  tcgen05.wait::ld.sync.aligned;\n"
            + "".join(
                f"  st.global.v4.b32 [%rd9+{64 * i + 16 * q}], "
                f"{{%r{70 + 4 * q}, %r{71 + 4 * q}, %r{72 + 4 * q}, %r{73 + 4 * q}}};\n"
                for q in range(4)
            )
        )
    mma = f"tcgen05.mma.cta_group::1.kind::{kind}.block_scale{vector}"
    count = int(vector[-2]) if vector.startswith(".scale_vec") else 1
    return f"""{_head("block_scaled", ".param .u64 src, ", TOTAL, COLUMNS)}\
  setp.eq.u32 %p6, %r3, {cp_thread};
  ld.param.u64 %rd1, [src];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r30, %r3;
$L_copy:
  setp.ge.u32 %p7, %r30, {TOTAL // 16};
  @%p7 bra.uni $L_copied;
  mul.wide.u32 %rd2, %r30, 16;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.v4.b32 {{%r40, %r41, %r42, %r43}}, [%rd3];
  shl.b32 %r31, %r30, 4;
  add.u32 %r32, %r5, %r31;
  st.shared.v4.b32 [%r32], {{%r40, %r41, %r42, %r43}};
  add.u32 %r30, %r30, 128;
  bra.uni $L_copy;
$L_copied:
  {"fence.proxy.async.shared::cta;" if fence else ""}
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.b32 %r2, [%r1];
{_descriptor("%rd10", A_AT, LBO, SBO)}{_descriptor("%rd11", A_AT + 4096, LBO, SBO)}\
{_descriptor("%rd12", B_AT, LBO, SBO)}{_descriptor("%rd13", B_AT + 32 * N, LBO, SBO)}\
{_descriptor("%rd14", SFA_AT, LBO, 128)}{_descriptor("%rd15", SFB_AT, LBO, 128)}\
  add.u32 %r11, %r2, {SFA_COL};
  add.u32 %r12, %r2, {SFB_COL};
  add.u32 %r13, %r11, {sfa_shift};
  add.u32 %r17, %r11, {cp_shift};
  @%p6 tcgen05.cp.cta_group::1.32x128b.warpx4 [%r17], %rd14;
  @%p6 tcgen05.cp.cta_group::1.64x128b.{sfb_multicast} [%r12], %rd15;
{cp_sync}\
  mov.b32 %r14, {(idesc(0, kind, count) if (kind, count) in FORMS else idesc(0)) | idesc_or};
  mov.b32 %r15, {(idesc(1, kind, count) if (kind, count) in FORMS else idesc(1)) | idesc_or};
  @%p2 {mma} [%r2], %rd10, %rd12, %r14, [%r13], [%r12], %p3;
  @%p2 {mma} [%r2], %rd11, %rd13, %r15, [%r13], [%r12], %p4;
  {after_mma}
  @%p2 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r8];
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r8], 0;
  @!%p5 bra.uni $L_wait;
  tcgen05.fence::after_thread_sync;
  shl.b32 %r16, %r4, 21;
  add.u32 %r10, %r2, %r16;
  ld.param.u64 %rd4, [out];
  cvta.to.global.u64 %rd4, %rd4;
  mul.wide.u32 %rd5, %r3, {4 * N};
  add.u64 %rd9, %rd4, %rd5;
{"".join(loads)}{_tail(COLUMNS)}"""


def _finite_bytes(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    raw = rng.integers(0, 256, shape, dtype=np.uint8)
    values = raw.view(dtype).astype(np.float64)
    return np.where(np.isfinite(values), raw, 0).astype(np.uint8)


def _case(rng: np.random.Generator, sfb_second_half_differs: bool = False):
    """The shared-memory image and the expected D (128 x N f32)."""
    a = _finite_bytes(rng, (128, 64), ml_dtypes.float8_e4m3fn)
    b = _finite_bytes(rng, (N, 64), ml_dtypes.float8_e5m2)
    # e8m0 exponents: 2^-40 .. 2^40, and the extremes 2^-127 (row 0, K block 0, whose K
    # block 1 is zero) and 2^127 (row 1, K block 1, with B's block-1 scales below 2^-40).
    sa = rng.integers(127 - 40, 127 + 41, (128, 2)).astype(np.uint8)
    sb = rng.integers(127 - 40, 127 + 41, (N, 2)).astype(np.uint8)
    sa[0, 0], sa[1, 1] = 0, 254
    a[0, 32:] = 0
    sb[:, 1] = rng.integers(127 - 60, 127 - 40, N)
    junk = rng.integers(0, 256, 512).astype(np.uint8)
    sfb = _blocked(sb, junk)
    second = _blocked(sb[::-1].copy(), junk) if sfb_second_half_differs else sfb
    image = np.concatenate(
        [
            _canonical(a[:, :32]),
            _canonical(a[:, 32:]),
            _canonical(b[:, :32]),
            _canonical(b[:, 32:]),
            _blocked(sa, junk),
            sfb,
            second,
        ]
    )
    assert image.size == TOTAL
    av = a.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    bv = b.view(ml_dtypes.float8_e5m2).astype(np.float64)
    fa = sa.view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    fb = sb.view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    blocks = [
        (av[:, 32 * s : 32 * s + 32] * fa[:, s : s + 1])
        @ (bv[:, 32 * s : 32 * s + 32] * fb[:, s : s + 1]).T
        for s in range(2)
    ]
    # Each MMA rounds its D once to f32 (the second adds to the first's).
    d = (blocks[0].astype(np.float32).astype(np.float64) + blocks[1]).astype(np.float32)
    return image, d


def _simulate(ptx: str, image: np.ndarray) -> np.ndarray:
    out = np.zeros((128, N), dtype=np.float32)
    simulate(ptx, (1, 1, 1), [image.copy(), out])
    return out


def test_block_scaled_mma_matches_numpy() -> None:
    """ptxas accepts the kernel; in the simulator D equals the dequantized product, the
    copies issued by the MMAs' own thread or (committed and waited for) by another."""
    ptx = _kernel()
    result = run_ptxas(ptx, "sm_100a")
    assert result.ok, result
    image, expected = _case(np.random.default_rng(0))
    assert np.isfinite(expected).all() and np.abs(expected).max() > 2.0**100
    assert 0 < np.abs(expected[0]).max() < 2.0**-40
    np.testing.assert_allclose(_simulate(ptx, image), expected, rtol=1e-6, atol=0)
    other = _kernel(cp_thread=32)
    assert run_ptxas(other, "sm_100a").ok
    np.testing.assert_allclose(_simulate(other, image), expected, rtol=1e-6, atol=0)


BROKEN = [
    (
        "A's scales copied one column past the allocation",
        {"cp_shift": 1},
        "tcgen05.cp writes columns 125 .. 128 of tensor memory that CTA 0 has not allocated",
    ),
    (
        "A's scales copied again while the MMAs still read them",
        {"after_mma": "@%p2 tcgen05.cp.cta_group::1.32x128b.warpx4 [%r11], %rd14;"},
        "a tcgen05.cp writes tensor memory columns 124 .. 127 that a tcgen05.mma still "
        "reads as scale factors",
    ),
    (
        "M = 384 in the instruction descriptor",
        {"idesc_or": 1 << 28},
        "block-scaled tcgen05.mma.cta_group::1 with M = 384 (M = 128)",
    ),
    (
        "N = 320 in the instruction descriptor",
        {"idesc_or": 1 << 22},
        "block-scaled tcgen05.mma with N = 320",
    ),
    (
        "scales copied by another thread, its commit not waited for",
        {"cp_thread": 32, "wait_cp": False},
        "before the mbarrier phase of its tcgen05.commit was observed",
    ),
    (
        "the source's stores not fenced for the async proxy",
        {"fence": False},
        "tcgen05.cp (source) reads bytes that",
    ),
    (
        "A's scale columns one off (past the allocation)",
        {"sfa_shift": 1},
        "tcgen05.mma reads scale A from columns 125 .. 128 of tensor memory that CTA 0 has "
        "not allocated",
    ),
    (
        "B's scales multicast to warps 0 and 2 / 1 and 3 from two different halves",
        {"sfb_multicast": "warpx2::02_13"},
        "scale factors of B (row 0: lane 0 + 32 q, column 116, bytes 0 .. 0) differ",
    ),
]


@pytest.mark.parametrize(("what", "change", "says"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_block_scaled_kernel_is_reported(
    what: str, change: dict[str, object], says: str
) -> None:
    del what
    image, _ = _case(np.random.default_rng(0), sfb_second_half_differs=True)
    if "sfb_multicast" not in change:
        image, _ = _case(np.random.default_rng(0))
    with pytest.raises(SimulationError, match=re.escape(says)):
        _simulate(_kernel(**change), image)  # pyright: ignore[reportArgumentType]


def test_wrong_scale_vector_is_invalid() -> None:
    """`.scale_vec::2X` is not a scale vector of kind::mxf8f6f4: ptxas rejects it, and so
    does the simulator."""
    ptx = _kernel(vector=".scale_vec::2X")
    assert not run_ptxas(ptx, "sm_100a").ok
    image, _ = _case(np.random.default_rng(0))
    with pytest.raises(SimulationError, match=r"kind::mxf8f6f4 with \.scale_vec::2X"):
        _simulate(ptx, image)


@pytest.mark.parametrize(
    ("word", "says"),
    [
        (idesc(0) & ~(1 << 23), "scale type UE4M3"),
        (idesc(0) | 1 << 31, "reserved bit(s) 31..31"),
        (idesc(0) & ~(1 << 27) | 1 << 28, "M = 256"),
        (idesc(0) | 1 << 24, "reserved bit(s) 24..26"),
    ],
)
def test_bad_block_scaled_descriptors(word: int, says: str) -> None:
    form = decode_scaled_descriptor(word, "mxf8f6f4", 1)
    if isinstance(form, str):
        assert says in form
    else:
        assert says == f"M = {form.m}"
    good = decode_scaled_descriptor(idesc(1), "mxf8f6f4", 1)
    assert not isinstance(good, str)
    assert (good.a, good.b, good.scale, good.n, good.m, good.sfa_id) == (
        "e4m3", "e5m2", "ue8m0", N, 128, 1
    )  # fmt: skip
    four = decode_scaled_descriptor(idesc(1, "mxf4", 2) | 1 << 29, "mxf4nvf4", 4)
    assert "scale factor A ID 3 with scale_vec::4X (one of [0])" in str(four)


def _e2m1(raw: np.ndarray) -> np.ndarray:
    """Packed e2m1 bytes ``(R, 32)`` as ``(R, 64)`` float64 (the even element low)."""
    nibbles = np.stack([raw & 15, raw >> 4], axis=-1).reshape(raw.shape[0], -1)
    return nibbles.astype(np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float64)


def _case_fp4(rng: np.random.Generator, vector: int) -> tuple[np.ndarray, np.ndarray]:
    """As ``_case`` for e2m1 A and B: two MMAs of K = 64, `vector` factors per row each
    (UE8M0 for 2X, UE4M3 for 4X)."""
    a = rng.integers(0, 256, (128, 64)).astype(np.uint8)
    b = rng.integers(0, 256, (N, 64)).astype(np.uint8)
    if vector == 2:
        sa = rng.integers(127 - 30, 127 + 31, (128, 4)).astype(np.uint8)
        sb = rng.integers(127 - 30, 127 + 31, (N, 4)).astype(np.uint8)
        fa = sa.view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
        fb = sb.view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    else:
        sa = rng.integers(1, 0x7F, (128, 4)).astype(np.uint8)
        sb = rng.integers(1, 0x7F, (N, 4)).astype(np.uint8)
        fa = sa.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
        fb = sb.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    junk = rng.integers(0, 256, 512).astype(np.uint8)
    sfb = _blocked(sb, junk)
    image = np.concatenate(
        [_canonical(a[:, :32]), _canonical(a[:, 32:]), _canonical(b[:, :32]),
         _canonical(b[:, 32:]), _blocked(sa, junk), sfb, sfb]
    )  # fmt: skip
    ids = FORMS[("mxf4", 2) if vector == 2 else ("mxf4nvf4", 4)][3:]
    blocks = []
    for s, first in enumerate(ids):
        av, bv = _e2m1(a[:, 32 * s : 32 * s + 32]), _e2m1(b[:, 32 * s : 32 * s + 32])
        ga = np.repeat(fa[:, first : first + vector], 64 // vector, axis=1)
        gb = np.repeat(fb[:, first : first + vector], 64 // vector, axis=1)
        blocks.append((av * ga) @ (bv * gb).T)
    d = (blocks[0].astype(np.float32).astype(np.float64) + blocks[1]).astype(np.float32)
    return image, d


@pytest.mark.parametrize(
    ("kind", "vector"), [("mxf4", ".scale_vec::2X"), ("mxf4nvf4", ".scale_vec::4X")]
)
def test_fp4_block_scaled_mma_matches_numpy(kind: str, vector: str) -> None:
    """kind::mxf4 (two UE8M0 factors per 64 K elements, scale-factor IDs 0 and 2) and
    kind::mxf4nvf4 with scale_vec::4X (four UE4M3 factors, 16 K elements each): e2m1
    operands two a byte; ptxas accepts both and D equals numpy's."""
    ptx = _kernel(kind=kind, vector=vector)
    assert run_ptxas(ptx, "sm_100a").ok
    image, expected = _case_fp4(np.random.default_rng(1), int(vector[-2]))
    assert np.abs(expected).max() > 1
    np.testing.assert_allclose(_simulate(ptx, image), expected, rtol=1e-6, atol=0)


#: tcgen05.cp forms -> (rows, bytes a row, the lanes row `r` lands in) as 9.7.16.9.2 and
#: CuTe's UTCCP atoms say.
CP_FORMS = {
    "128x256b": (128, 32, lambda r: [r]),
    "4x256b": (4, 32, lambda r: [32 * r]),
    "128x128b": (128, 16, lambda r: [r]),
    "32x128b.warpx4": (32, 16, lambda r: [r, r + 32, r + 64, r + 96]),
    "64x128b.warpx2::02_13": (64, 16, lambda r: [r, r + 64]),
    "64x128b.warpx2::01_23": (64, 16, lambda r: [r, r + 32] if r < 32 else [r + 32, r + 64]),
}


def _cp_kernel(form: str, wait: bool = True) -> str:
    """Thread 0 copies a `form` matrix (source word `k` = k, K-major canonical, LBO 128,
    SBO 256) to columns 0 .. 7; after its commit every warp stores its lane quarter's
    8 columns."""
    words = ", ".join(f"%r{20 + c}" for c in range(8))
    wait_text = (
        "$L_wait:\n  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r8], 0;\n"
        "  @!%p5 bra.uni $L_wait;\n"
        if wait
        else ""
    )
    return f"""{_head("cp", "", 4096, 32)}\
  mov.u32 %r30, %r3;
$L_fill:
  shl.b32 %r31, %r30, 2;
  add.u32 %r32, %r5, %r31;
  st.shared.b32 [%r32], %r30;
  add.u32 %r30, %r30, 128;
  setp.lt.u32 %p3, %r30, 1024;
  @%p3 bra.uni $L_fill;
  fence.proxy.async.shared::cta;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.b32 %r2, [%r1];
{_descriptor("%rd1", 0, LBO, SBO)}\
  @%p2 tcgen05.cp.cta_group::1.{form} [%r2], %rd1;
  @%p2 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r8];
{wait_text}\
  tcgen05.fence::after_thread_sync;
  shl.b32 %r6, %r4, 21;
  add.u32 %r7, %r2, %r6;
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {{{words}}}, [%r7];
  tcgen05.wait::ld.sync.aligned;
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd2, %rd2;
  mul.wide.u32 %rd3, %r3, 32;
  add.u64 %rd4, %rd2, %rd3;
  st.global.v4.b32 [%rd4], {{%r20, %r21, %r22, %r23}};
  st.global.v4.b32 [%rd4+16], {{%r24, %r25, %r26, %r27}};
{_tail(32)}"""


@pytest.mark.parametrize("form", list(CP_FORMS))
def test_cp_shapes_land_where_the_isa_says(form: str) -> None:
    """Each `tcgen05.cp` shape and multicast puts row `r` of its source (bytes `(r / 8)
    SBO + (b / 16) LBO + (r % 8) 16 + b % 16`) in its lanes, 4 bytes a column; the other
    cells stay zero.  ptxas accepts each form."""
    ptx = _cp_kernel(form)
    assert run_ptxas(ptx, "sm_100a").ok
    out = np.zeros((128, 8), dtype=np.uint32)
    simulate(ptx, (1, 1, 1), [out])
    rows, width, lanes = CP_FORMS[form]
    expected = np.zeros((128, 8), dtype=np.uint32)
    for r in range(rows):
        byte = (r // 8) * SBO + (r % 8) * 16 + np.arange(0, width, 4)
        byte = byte + (np.arange(0, width, 4) // 16) * (LBO - 16)
        for lane in lanes(r):
            expected[lane, : width // 4] = byte // 4
    np.testing.assert_array_equal(out, expected)


def test_cp_misuse_is_reported() -> None:
    """Reading a copy's columns before its commit's phase fails; `.64x128b` without a
    `.warpx2` multicast is invalid PTX (ptxas says so too)."""
    out = np.zeros((128, 8), dtype=np.uint32)
    with pytest.raises(SimulationError, match=r"before the tcgen05\.commit's mbarrier phase"):
        simulate(_cp_kernel("128x256b", wait=False), (1, 1, 1), [out])
    bad = _cp_kernel("64x128b")
    assert not run_ptxas(bad, "sm_100a").ok
    with pytest.raises(SimulationError, match=r"tcgen05\.cp\.64x128b takes \.warpx2::02_13"):
        simulate(bad, (1, 1, 1), [out])
