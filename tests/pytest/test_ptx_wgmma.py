"""The PTX simulator's sm_90a warpgroup MMA (`tileir/testing/ptx_wgmma.py`), on
hand-written kernels that ptxas accepts for `-arch=sm_90a`.

Each kernel is one warpgroup per CTA: it copies a prepared shared-memory image from
global memory into `.shared` (1024-byte aligned at run time), builds the matrix
descriptors, loads C into the accumulator registers (the ISA's fragment layout),
runs one `wgmma.mma_async` per K step, commits, waits and stores D.  The images
are built here from the ISA's description of the core-matrix layouts (no swizzle
with two different LBO/SBO choices, and the 128/64/32-byte swizzles), so the
simulator's descriptor decoding is checked against an independent reading; the
results are compared with numpy."""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.testing import SimulationError, simulate

_NP = {
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "e4m3": ml_dtypes.float8_e4m3fn,
    "e5m2": ml_dtypes.float8_e5m2,
    "s8": np.int8,
    "u8": np.uint8,
    "tf32": np.float32,  # any f32: the instruction reads the upper 19 bits
}
_ACC_NP = {"f32": np.float32, "f16": np.float16, "s32": np.int32}


@dataclass
class Case:
    acc: str = "f32"
    ta: str = "f16"
    tb: str = "f16"
    n: int = 16
    steps: int = 1
    a_regs: bool = False
    first_scale: str = "pred"  # "pred": %p from a parameter; "0"/"1": a literal
    swizzle: int = 0  # 0 none, 128, 64, 32
    satfinite: bool = False
    ctas: int = 1
    version: str = "8.0"
    scale_a: int = 1
    scale_b: int = 1
    warpgroups: int = 1  # per CTA; each computes the same product into its own tile
    trans_a: int = 0  # imm-trans-a: 1 = A stored M-major (K x M, M contiguous)
    trans_b: int = 0  # imm-trans-b: 1 = B stored N-major (K x N, N contiguous)

    @property
    def k(self) -> int:
        """K of one instruction: 32 bytes of each row."""
        return {"f16": 16, "bf16": 16, "tf32": 8}.get(self.ta, 32)


# ---------------------------------------------------------------- shared images


def _image(rows_bytes: np.ndarray, swizzle: int, layout: str) -> tuple[np.ndarray, int, int, int]:
    """Lay out ``(rows, 32)`` operand bytes (one K step) as the ISA describes; return
    ``(image, LBO, SBO, mode)``.  ``layout``: ``"pairs"`` puts a row group's two core
    matrices next to each other (LBO 128, SBO 256), ``"columns"`` puts all row groups'
    first core matrices first (LBO = rows*16, SBO 128)."""
    rows = rows_bytes.shape[0]
    if swizzle == 0:
        if layout == "pairs":
            lbo, sbo = 128, 256
        else:
            lbo, sbo = rows * 16, 128
        image = np.zeros(rows * 32, dtype=np.uint8)
        for r in range(rows):
            for j in range(2):
                at = (r // 8) * sbo + j * lbo + (r % 8) * 16
                image[at : at + 16] = rows_bytes[r, 16 * j : 16 * j + 16]
        return image, lbo, sbo, 0
    raise AssertionError("swizzled images are built by _swizzled_image")


def _swizzled_image(steps_bytes: list[np.ndarray], width: int) -> tuple[np.ndarray, int]:
    """K steps of ``(rows, 32)`` bytes side by side in ``width``-byte rows of 8-row atoms,
    16-byte chunks permuted: 128 B: chunk ^ (row % 8); 64 B: chunk ^ ((row % 8) / 2);
    32 B: chunk ^ ((row % 8) / 4).  Returns the image and SBO (one atom)."""
    rows = steps_bytes[0].shape[0]
    full = np.concatenate(steps_bytes, axis=1)  # (rows, 32 * steps)
    assert full.shape[1] == width
    shift = {128: 0, 64: 1, 32: 2}[width]
    image = np.zeros(rows * width, dtype=np.uint8)
    for r in range(rows):
        for chunk in range(width // 16):
            phys = chunk ^ ((r % 8) >> shift)
            at = (r // 8) * 8 * width + (r % 8) * width + phys * 16
            image[at : at + 16] = full[r, 16 * chunk : 16 * chunk + 16]
    return image, 8 * width


def _mn_image(X: np.ndarray, swizzle: int, layout: str) -> tuple[np.ndarray, list[int], int, int]:
    """An ``(rows, K)`` 16-bit operand stored MN-major (the ISA's MN-major canonical
    layouts): each K index is a line of consecutive rows.  No swizzle: 8 K lines of 16
    bytes (8 rows) form a core matrix, the one for rows ``8i ..`` and K ``8j ..`` at
    ``i*SBO + j*LBO`` (``layout`` "pairs": K blocks adjacent, LBO 128; "columns": row
    blocks adjacent, SBO 128).  Swizzled (``W`` bytes = ``W/2`` rows per line): 8 K
    lines form an atom, 16-byte chunk ``c`` of line ``k`` stored at chunk ``c ^ f(k%8)``
    as in ``_swizzled_image``; atoms for row blocks at LBO = 8W, K blocks at SBO.
    Returns the image, each K step's start offset, LBO and SBO."""
    rows, ktot = X.shape
    bits = X.view(np.uint16)
    if swizzle == 0:
        kblocks, rblocks = ktot // 8, rows // 8
        lbo, sbo = (128, kblocks * 128) if layout == "pairs" else (rblocks * 128, 128)
        image = np.zeros(rows * ktot, dtype=np.uint16)
        for r in range(rows):
            for k in range(ktot):
                at = (r // 8) * sbo + (k // 8) * lbo + (k % 8) * 16 + (r % 8) * 2
                image[at // 2] = bits[r, k]
        return image.view(np.uint8), [2 * s * lbo for s in range(ktot // 16)], lbo, sbo
    per_line = swizzle // 2
    assert rows % per_line == 0
    shift = {128: 0, 64: 1, 32: 2}[swizzle]
    lbo = 8 * swizzle
    sbo = lbo * (rows // per_line)
    image = np.zeros(rows * ktot, dtype=np.uint16)
    for r in range(rows):
        for k in range(ktot):
            chunk = ((r % per_line) // 8) ^ ((k % 8) >> shift)
            at = (r // per_line) * lbo + (k // 8) * sbo + (k % 8) * swizzle + chunk * 16
            image[(at + (r % 8) * 2) // 2] = bits[r, k]
    return image.view(np.uint8), [2 * s * sbo for s in range(ktot // 16)], lbo, sbo


def _desc_bits(lbo: int, sbo: int, mode: int) -> int:
    """The descriptor's fields other than the start address, as a signed 64-bit literal."""
    value = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (mode << 62)
    return value - (1 << 64) if value >= 1 << 63 else value


# ----------------------------------------------------------------------- kernel


def _kernel(case: Case, image_size: int, offsets, desc_a: int, desc_b: int, extra: dict) -> str:
    n, k = case.n, case.k
    esize = 32 // k
    acc_bytes = 2 if case.acc == "f16" else 4
    d_count = n // 4 if case.acc == "f16" else n // 2
    dreg = {"f32": ".f32", "f16": ".b32", "s32": ".s32"}[case.acc]
    lines = [
        f".version {case.version}",
        ".target sm_90a",
        ".address_size 64",
        ".visible .entry wg(.param .u64 pimg, .param .u64 pa, .param .u64 pc, .param .u64 pd,"
        " .param .u32 pacc)",
        f".reqntid {128 * case.warpgroups}, 1, 1",
        "{",
        ".reg .pred %p<8>;",
        ".reg .b32 %r<64>;",
        ".reg .b64 %rd<64>;",
        f".reg {dreg} %d<{d_count}>;",
        f".reg .b32 %a<{4 * case.steps}>;",
        f".shared .align 256 .b8 smem[{image_size + 1024}];",
        "ld.param.u64 %rd1, [pimg];",
        "ld.param.u64 %rd2, [pa];",
        "ld.param.u64 %rd3, [pc];",
        "ld.param.u64 %rd4, [pd];",
        "ld.param.u32 %r20, [pacc];",
        "cvta.to.global.u64 %rd1, %rd1;",
        "cvta.to.global.u64 %rd2, %rd2;",
        "cvta.to.global.u64 %rd3, %rd3;",
        "cvta.to.global.u64 %rd4, %rd4;",
        "mov.u32 %r1, %tid.x;",
        "mov.u32 %r2, smem;",
        "add.u32 %r2, %r2, 1023;",
        "and.b32 %r2, %r2, -1024;",
        "shl.b32 %r3, %r1, 4;",
        "$copy:",
        f"setp.ge.u32 %p1, %r3, {image_size};",
        "@%p1 bra $copied;",
        "cvt.u64.u32 %rd5, %r3;",
        "add.s64 %rd6, %rd1, %rd5;",
        "ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd6];",
        "add.u32 %r4, %r2, %r3;",
        "st.shared.v4.b32 [%r4], {%r10, %r11, %r12, %r13};",
        f"add.u32 %r3, %r3, {2048 * case.warpgroups};",
        "bra $copy;",
        "$copied:",
        "fence.proxy.async.shared::cta;",
        "bar.sync 0;",
        # fragment coordinates: w = warp % 4, g = lane / 4, c = lane % 4, row = 16w + g
        "shr.u32 %r5, %r1, 5;",
        "and.b32 %r5, %r5, 3;",
        "and.b32 %r6, %r1, 31;",
        "shr.u32 %r7, %r6, 2;",
        "and.b32 %r8, %r6, 3;",
        "shl.b32 %r9, %r5, 4;",
        "add.u32 %r9, %r9, %r7;",
        # D element base: (row * N + 2c) * acc_bytes, plus this CTA's tile
        f"mul.lo.u32 %r21, %r9, {n};",
        "shl.b32 %r22, %r8, 1;",
        "add.u32 %r21, %r21, %r22;",
        "mov.u32 %r23, %ctaid.x;",
        f"mul.lo.u32 %r23, %r23, {case.warpgroups};",
        "shr.u32 %r26, %r1, 7;",
        "add.u32 %r23, %r23, %r26;",
        f"mul.lo.u32 %r23, %r23, {64 * n};",
        "add.u32 %r21, %r21, %r23;",
        f"mul.wide.u32 %rd7, %r21, {acc_bytes};",
        "add.s64 %rd8, %rd3, %rd7;",
        "add.s64 %rd9, %rd4, %rd7;",
        "setp.ne.u32 %p2, %r20, 0;",
    ]
    # A element base: (row * K_total + per_reg * c) * esize
    per_reg = 4 // esize
    k_total = k * case.steps
    lines += [
        f"mul.lo.u32 %r24, %r9, {k_total};",
        f"mul.lo.u32 %r25, %r8, {per_reg};",
        "add.u32 %r24, %r24, %r25;",
        f"mul.wide.u32 %rd10, %r24, {esize};",
        "add.s64 %rd11, %rd2, %rd10;",
    ]
    d_offsets = _d_offsets(case)
    load_c = [
        f"ld.global.{'b32' if case.acc == 'f16' else case.acc} %d{i}, [%rd8+{off}];"
        for i, off in enumerate(d_offsets)
    ]
    load_a = []
    if case.a_regs:
        for s in range(case.steps):
            for r in range(4):
                off = (8 * (r % 2) * k_total + (k // 2) * (r // 2) + s * k) * esize
                load_a.append(f"ld.global.b32 %a{4 * s + r}, [%rd11+{off}];")
    body = extra.get("before_fence", load_c + load_a)
    lines += body
    lines += [] if extra.get("no_fence") else [extra.get("fence", "wgmma.fence.sync.aligned;")]
    lines += extra.get("after_fence", [])
    dlist = "{" + ", ".join(f"%d{i}" for i in range(d_count)) + "}"
    types = f"{case.acc}.{case.ta}.{case.tb}"
    sat = ".satfinite" if case.satfinite else ""
    for s in range(case.steps):
        off_a, off_b = offsets[s]
        lines += [
            f"add.u32 %r30, %r2, {off_b};",
            "shr.u32 %r30, %r30, 4;",
            "and.b32 %r30, %r30, 16383;",
            "cvt.u64.u32 %rd30, %r30;",
            f"or.b64 %rd31, %rd30, {desc_b};",
        ]
        if case.a_regs:
            a = "{" + ", ".join(f"%a{4 * s + r}" for r in range(4)) + "}"
        else:
            lines += [
                f"add.u32 %r31, %r2, {off_a};",
                "shr.u32 %r31, %r31, 4;",
                "and.b32 %r31, %r31, 16383;",
                "cvt.u64.u32 %rd32, %r31;",
                f"or.b64 %rd33, %rd32, {desc_a};",
            ]
            a = "%rd33"
        scale = ("%p2" if case.first_scale == "pred" else case.first_scale) if s == 0 else "1"
        if case.ta in ("f16", "bf16"):
            trans = f"{case.trans_b}" if case.a_regs else f"{case.trans_a}, {case.trans_b}"
            tail = f"{scale}, {case.scale_a}, {case.scale_b}, {trans}"
        elif case.ta in ("e4m3", "e5m2", "tf32"):
            tail = f"{scale}, {case.scale_a}, {case.scale_b}"
        else:
            tail = scale
        shape = extra.get("shape", f"m64n{n}k{case.k}")
        lines.append(
            f"wgmma.mma_async.sync.aligned.{shape}.{types}{sat} {dlist}, {a}, %rd31, {tail};"
        )
    lines += extra.get(
        "finish", ["wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;"]
    )
    lines += [
        f"st.global.{'b32' if case.acc == 'f16' else case.acc} [%rd9+{off}], %d{i};"
        for i, off in enumerate(d_offsets)
    ]
    lines += extra.get("tail", [])
    lines += ["ret;", "}"]
    text = "\n".join(lines) + "\n"
    for old, new in extra.get("replace", []):
        assert old in text, old
        text = text.replace(old, new)
    return text


def _d_offsets(case: Case) -> list[int]:
    """Byte offsets, from the thread's (row 16w+g, col 2c) element, of each D register."""
    n = case.n
    if case.acc == "f16":  # register 2j+h: row +8h, cols 8j + 2c .. +1 (one b32)
        return [(8 * (i % 2) * n + 8 * (i // 2)) * 2 for i in range(n // 4)]
    return [(8 * ((i % 4) // 2) * n + 8 * (i // 4) + i % 2) * 4 for i in range(n // 2)]


# ------------------------------------------------------------------ running one


def _random(kind: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    if kind in ("s8", "u8"):
        lo, hi = (-128, 128) if kind == "s8" else (0, 256)
        return rng.integers(lo, hi, size=shape).astype(_NP[kind])
    if kind in ("e4m3", "e5m2"):
        return rng.uniform(-4, 4, size=shape).astype(_NP[kind])
    return rng.uniform(-2, 2, size=shape).astype(_NP[kind])


def _prepare(case: Case, seed: int = 0, a_layout: str = "pairs", b_layout: str = "columns"):
    rng = np.random.default_rng(seed)
    k, n, steps = case.k, case.n, case.steps
    A = _random(case.ta, (64, k * steps), rng)
    B = _random(case.tb, (n, k * steps), rng)  # stored N x K (K-major)
    if case.acc == "s32":
        C = rng.integers(-1000, 1000, size=(case.ctas * case.warpgroups, 64, n)).astype(np.int32)
    else:
        C = rng.uniform(-4, 4, size=(case.ctas * case.warpgroups, 64, n)).astype(_ACC_NP[case.acc])
    a_bytes = A.view(np.uint8).reshape(64, steps, 32)
    b_bytes = B.view(np.uint8).reshape(n, steps, 32)
    parts: list[np.ndarray] = []
    offsets = []

    def add(img: np.ndarray) -> int:
        at = sum(len(p) for p in parts)
        parts.append(np.concatenate([img, np.zeros(-len(img) % 1024, dtype=np.uint8)]))
        return at

    if case.trans_a or case.trans_b:
        # MN-major operands (16-bit only) in their own images; the K-major ones as below.
        pieces = []
        for X, trans, layout in ((A, case.trans_a, a_layout), (B, case.trans_b, b_layout)):
            if trans:
                img, starts, lbo, sbo = _mn_image(X, case.swizzle, layout)
            elif case.swizzle:
                img, sbo = _swizzled_image(
                    [X.view(np.uint8).reshape(len(X), steps, 32)[:, s] for s in range(steps)],
                    case.swizzle,
                )
                starts, lbo = [32 * s for s in range(steps)], 16
            else:
                rows_bytes = X.view(np.uint8).reshape(len(X), steps, 32)
                imgs = [_image(rows_bytes[:, s], 0, layout) for s in range(steps)]
                img = np.concatenate([i[0] for i in imgs])
                starts = [s * len(imgs[0][0]) for s in range(steps)]
                lbo, sbo = imgs[0][1], imgs[0][2]
            mode = {0: 0, 128: 1, 64: 2, 32: 3}[case.swizzle]
            pieces.append((add(img), starts, _desc_bits(lbo, sbo, mode)))
        (base_a, starts_a, desc_a), (base_b, starts_b, desc_b) = pieces
        offsets = [(base_a + starts_a[s], base_b + starts_b[s]) for s in range(steps)]
    elif case.swizzle:
        width = case.swizzle
        assert width == 32 * steps
        img_a, sbo_a = _swizzled_image([a_bytes[:, s] for s in range(steps)], width)
        img_b, sbo_b = _swizzled_image([b_bytes[:, s] for s in range(steps)], width)
        base_a, base_b = add(img_a), add(img_b)
        offsets = [(base_a + 32 * s, base_b + 32 * s) for s in range(steps)]
        mode = {128: 1, 64: 2, 32: 3}[width]
        desc_a, desc_b = _desc_bits(16, sbo_a, mode), _desc_bits(16, sbo_b, mode)
    else:
        lbo_a = sbo_a = lbo_b = sbo_b = 0
        for s in range(steps):
            img_a, lbo_a, sbo_a, _ = _image(a_bytes[:, s], 0, a_layout)
            img_b, lbo_b, sbo_b, _ = _image(b_bytes[:, s], 0, b_layout)
            offsets.append((add(img_a), add(img_b)))
        desc_a, desc_b = _desc_bits(lbo_a, sbo_a, 0), _desc_bits(lbo_b, sbo_b, 0)
    image = np.concatenate(parts)
    image = np.concatenate([image, np.zeros(-len(image) % 16, dtype=np.uint8)])
    return A, B, C, image, offsets, desc_a, desc_b


def _tf32(x: np.ndarray) -> np.ndarray:
    """The value a tensor core reads from a tf32 operand word: its upper 19 bits."""
    return (np.ascontiguousarray(x, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(
        np.float32
    )


def _expected(case: Case, A, B, C, accumulate: bool) -> np.ndarray:
    """D after each K step's instruction, rounded to the accumulator type per step."""
    k = case.k
    keep = case.first_scale == "1" or (case.first_scale == "pred" and accumulate)
    if case.acc == "s32":
        D = C.astype(np.int64) if keep else np.zeros(C.shape, dtype=np.int64)
        for s in range(case.steps):
            a = A[:, s * k : (s + 1) * k].astype(np.int64)
            b = B[:, s * k : (s + 1) * k].astype(np.int64)
            D = D + (a @ b.T)[None]
            if case.satfinite:
                D = np.clip(D, -(2**31), 2**31 - 1)
            D = (D + 2**31) % 2**32 - 2**31
        return D.astype(np.int32)
    D = C if keep else np.zeros_like(C)
    if case.ta == "tf32":
        A, B = _tf32(A), _tf32(B)
    for s in range(case.steps):
        a = case.scale_a * A[:, s * k : (s + 1) * k].astype(np.float64)
        b = case.scale_b * B[:, s * k : (s + 1) * k].astype(np.float64)
        D = (D.astype(np.float64) + (a @ b.T)[None]).astype(_ACC_NP[case.acc])
    return D


def _build(case: Case, extra: dict | None = None, **prep):
    A, B, C, image, offsets, desc_a, desc_b = _prepare(case, **prep)
    ptx = _kernel(case, len(image), offsets, desc_a, desc_b, extra or {})
    return ptx, (A, B, C, image)


def _run(case: Case, accumulate: bool = True, extra: dict | None = None, **prep) -> None:
    ptx, (A, B, C, image) = _build(case, extra, **prep)
    _assemble(ptx)
    D = np.zeros_like(C)
    simulate(ptx, (case.ctas, 1, 1), [image, A, C, D, int(accumulate)])
    want = _expected(case, A, B, C, accumulate)
    if case.acc == "s32":
        np.testing.assert_array_equal(D, want)
    elif case.acc == "f16":
        np.testing.assert_allclose(
            D.astype(np.float64), want.astype(np.float64), rtol=1e-3, atol=1e-3
        )
    else:
        np.testing.assert_allclose(D, want, rtol=1e-6, atol=1e-6)


_PTXAS_OK: set[str] = set()


def _assemble(ptx: str) -> None:
    if ptx in _PTXAS_OK:
        return
    result = run_ptxas(ptx, "sm_90a")
    assert result.ok, result.output + "\n" + ptx
    _PTXAS_OK.add(ptx)


def _fails(case: Case, extra: dict, match: str, kind: str | None = None, ptxas: bool = True):
    ptx, (A, _, C, image) = _build(case, extra)
    if ptxas:
        _assemble(ptx)
    D = np.zeros_like(C)
    with pytest.raises(SimulationError, match=match) as info:
        simulate(ptx, (case.ctas, 1, 1), [image, A, C, D, 1])
    if kind is not None:
        assert info.value.kind == kind, info.value


# ------------------------------------------------------------------------ tests


@pytest.mark.parametrize("accumulate", [True, False])
def test_f16_to_f32_a_from_descriptor(accumulate: bool) -> None:
    _run(Case(n=16, steps=3), accumulate)


def test_f16_to_f32_a_from_registers() -> None:
    _run(Case(n=24, steps=2, a_regs=True))


def test_other_descriptor_layouts() -> None:
    # A with all first core matrices first, B with each row group's pair adjacent.
    _run(Case(n=32, steps=2), a_layout="columns", b_layout="pairs")


def test_bf16_n8_two_ctas() -> None:
    # Two CTAs: each resolves the descriptor's 18-bit address to its own shared array.
    _run(Case(ta="bf16", tb="bf16", n=8, steps=2, ctas=2))


def test_two_warpgroups_per_cta() -> None:
    _run(Case(n=16, steps=2, warpgroups=2, ctas=2))


def test_n256_literal_scale_d() -> None:
    _run(Case(n=256, steps=1, first_scale="0"))
    _run(Case(n=256, steps=2, first_scale="1", a_regs=True))


def test_f16_accumulator() -> None:
    _run(Case(acc="f16", n=48, steps=2))
    _run(Case(acc="f16", n=8, steps=1, a_regs=True))


def test_float8() -> None:
    _run(Case(ta="e4m3", tb="e4m3", n=16, steps=2))
    _run(Case(ta="e4m3", tb="e5m2", n=8, steps=1, a_regs=True))
    _run(Case(acc="f16", ta="e5m2", tb="e4m3", n=16, steps=1))


def test_tf32() -> None:
    # Operands are arbitrary f32 words: the instruction uses their upper 19 bits.
    _run(Case(ta="tf32", tb="tf32", n=16, steps=3))
    _run(Case(ta="tf32", tb="tf32", n=8, steps=2, a_regs=True, first_scale="0"))
    _run(Case(ta="tf32", tb="tf32", n=24, steps=1, scale_a=-1), a_layout="columns")


def test_swizzled_tf32() -> None:
    _run(Case(ta="tf32", tb="tf32", n=8, steps=2, swizzle=64))


def test_negated_operands() -> None:
    # imm-scale-a/b = -1 negate A or B (both: the product is unchanged).
    _run(Case(n=16, steps=2, scale_a=-1))
    _run(Case(n=8, steps=1, a_regs=True, scale_b=-1))
    _run(Case(ta="e4m3", tb="e5m2", n=8, steps=1, scale_a=-1, scale_b=-1))
    _run(Case(ta="e4m3", tb="e4m3", n=8, steps=1, scale_b=-1))


def test_integer() -> None:
    _run(Case(acc="s32", ta="s8", tb="s8", n=24, steps=2))
    _run(Case(acc="s32", ta="u8", tb="u8", n=16, steps=1, a_regs=True))
    # Mixed signedness needs PTX ISA 8.4.
    _run(Case(acc="s32", ta="s8", tb="u8", n=32, steps=2, version="8.4"))
    _run(Case(acc="s32", ta="u8", tb="s8", n=8, steps=1, a_regs=True, version="8.4"))


def test_integer_satfinite() -> None:
    # Large inputs and C near the limits: the sum leaves the s32 range.
    case = Case(acc="s32", ta="s8", tb="s8", n=8, steps=2, satfinite=True)
    ptx, (A, B, C, _) = _build(case)
    _assemble(ptx)
    A[:] = -128
    B[:] = -128
    C[0, :32] = 2**31 - 1000
    C[0, 32:] = -(2**31) + 5
    D = np.zeros_like(C)
    simulate(ptx, (1, 1, 1), [image_for(case, A, B), A, C, D, 1])
    np.testing.assert_array_equal(D, _expected(case, A, B, C, True))
    assert D[0, 0, 0] == 2**31 - 1


def image_for(case: Case, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """The shared image of ``_prepare``'s default layouts for given A and B."""
    steps = case.steps
    parts = []
    for s in range(steps):
        parts.append(_image(A.view(np.uint8).reshape(64, steps, 32)[:, s], 0, "pairs")[0])
        parts.append(_image(B.view(np.uint8).reshape(case.n, steps, 32)[:, s], 0, "columns")[0])
    parts = [np.concatenate([p, np.zeros(-len(p) % 1024, dtype=np.uint8)]) for p in parts]
    return np.concatenate(parts)


@pytest.mark.parametrize("width", [128, 64, 32])
def test_swizzled_k_major(width: int) -> None:
    _run(Case(n=16, steps=width // 32, swizzle=width))


def test_swizzled_float8() -> None:
    _run(Case(ta="e4m3", tb="e4m3", n=8, steps=4, swizzle=128))


# ------------------------------------------------------------------------- errors


def test_partial_warpgroup() -> None:
    extra = {
        "fence": "setp.lt.u32 %p3, %r1, 64;\n@%p3 wgmma.fence.sync.aligned;",
    }
    _fails(Case(), extra, "only part of a warpgroup")


def test_missing_fence() -> None:
    _fails(Case(), {"no_fence": True}, "wgmma.fence required")


def test_accumulator_written_after_fence() -> None:
    case = Case(n=8)
    body = [f"ld.global.f32 %d{i}, [%rd8+{off}];" for i, off in enumerate(_d_offsets(case))]
    _fails(
        case,
        {"before_fence": [], "after_fence": body},
        "accessed by another instruction since the last wgmma.fence",
    )


def test_a_registers_written_after_fence() -> None:
    case = Case(n=8, a_regs=True)
    loads = [
        f"ld.global.b32 %a{r}, [%rd11+{(8 * (r % 2) * 16 + 8 * (r // 2)) * 2}];" for r in range(4)
    ]
    c = [f"ld.global.f32 %d{i}, [%rd8+{off}];" for i, off in enumerate(_d_offsets(case))]
    _fails(
        case,
        {"before_fence": c, "after_fence": loads},
        "register %a0 was accessed by another instruction since",
    )


def test_reading_accumulator_before_wait() -> None:
    # The stores run before the wait.
    _fails(
        Case(n=8),
        {
            "finish": ["wgmma.commit_group.sync.aligned;"],
            "tail": ["wgmma.wait_group.sync.aligned 0;"],
        },
        "is read while it is the accumulator of a wgmma.mma_async that has not completed",
    )


def test_wait_group_count_and_commit() -> None:
    # wait_group 1 leaves the only committed group pending; without a commit, wait 0
    # waits for nothing.
    for finish in (
        ["wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 1;"],
        ["wgmma.wait_group.sync.aligned 0;"],
    ):
        _fails(Case(n=8), {"finish": finish}, "has not completed")
    # Two groups, wait 1 ends the first: its accumulators can be read.
    case = Case(n=8, steps=1)
    finish = [
        "wgmma.commit_group.sync.aligned;",
        "wgmma.fence.sync.aligned;",
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r40, %r41, %r42, %r43}, %rd33, "
        "%rd31, 0, 1, 1, 0, 0;",
        "wgmma.commit_group.sync.aligned;",
        "wgmma.wait_group.sync.aligned 1;",
    ]
    ptx, (A, B, C, image) = _build(case, {"finish": finish})
    _assemble(ptx)
    D = np.zeros_like(C)
    simulate(ptx, (1, 1, 1), [image, A, C, D, 1])
    np.testing.assert_allclose(D, _expected(case, A, B, C, True), rtol=1e-6, atol=1e-6)
    # ... but not the second's.
    tail = ["mov.b32 %r50, %r40;"]
    _fails(case, {"finish": finish, "tail": tail}, "register %r40 is read while")


def test_fence_needed_after_reading_the_accumulator() -> None:
    # The stores read D after the wait; a later mma_async on D needs a fence first.
    again = [
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, %rd33, "
        "%rd31, 1, 1, 1, 0, 0;",
        "wgmma.commit_group.sync.aligned;",
        "wgmma.wait_group.sync.aligned 0;",
    ]
    _fails(Case(n=8), {"tail": again}, "register %d0 was accessed by another instruction")
    ptx, (A, _, C, image) = _build(Case(n=8), {"tail": ["wgmma.fence.sync.aligned;", *again]})
    _assemble(ptx)
    simulate(ptx, (1, 1, 1), [image, A, C, np.zeros_like(C), 1])


def test_writing_accumulator_before_wait() -> None:
    _fails(
        Case(n=8),
        {"finish": ["wgmma.commit_group.sync.aligned;", "mov.f32 %d0, 0f00000000;"]},
        "register %d0 is written while",
    )


@pytest.mark.parametrize(
    "shape, case",
    [
        ("m64n12k16", Case()),
        ("m64n264k16", Case()),
        ("m64n40k32", Case(acc="s32", ta="s8", tb="s8", n=40)),
        ("m64n16k32", Case()),
    ],
)
def test_bad_shapes_are_invalid(shape: str, case: Case) -> None:
    ptx, (A, _, C, image) = _build(case, {"shape": shape})
    assert not run_ptxas(ptx, "sm_90a").ok
    with pytest.raises(SimulationError, match="shape") as info:
        simulate(ptx, (1, 1, 1), [image, A, C, np.zeros_like(C), 1])
    assert info.value.kind == "invalid"


def test_descriptor_out_of_bounds() -> None:
    # SBO of 16 KiB walks B's row groups past the end of the shared array.
    case = Case(n=16)
    ptx, (A, _, C, image) = _build(case)
    bad = _desc_bits(16 * 16, 16384, 0)
    good = _desc_bits(16 * 16, 128, 0)
    ptx = ptx.replace(f"or.b64 %rd31, %rd30, {good};", f"or.b64 %rd31, %rd30, {bad};")
    assert str(bad) in ptx
    _assemble(ptx)
    with pytest.raises(SimulationError, match="wgmma B operand read") as info:
        simulate(ptx, (1, 1, 1), [image, A, C, np.zeros_like(C), 1])
    assert info.value.kind == "out-of-bounds"


@pytest.mark.parametrize("layout", ["pairs", "columns"])
def test_mn_major_b(layout: str) -> None:
    _run(Case(n=24, steps=2, trans_b=1), b_layout=layout)


def test_mn_major_a_and_b_bf16() -> None:
    _run(Case(ta="bf16", tb="bf16", n=16, steps=2, trans_a=1, trans_b=1), a_layout="columns")


def test_mn_major_b_with_a_in_registers() -> None:
    _run(Case(n=8, steps=1, a_regs=True, trans_b=1))


@pytest.mark.parametrize(
    "case",
    [
        Case(n=64, steps=4, swizzle=128, trans_b=1),  # A K-major, B N-major, 128 B
        Case(n=32, steps=2, swizzle=64, trans_a=1, trans_b=1),
        Case(acc="f16", n=16, steps=1, swizzle=32, trans_a=1, trans_b=1),
    ],
)
def test_mn_major_swizzled(case: Case) -> None:
    _run(case)


def test_swizzle_with_unaligned_start_is_unsupported() -> None:
    # Start the 128-byte swizzled operands one row (128 bytes) into the atom.
    case = Case(n=8, steps=4, swizzle=128)
    _fails(
        case,
        {"replace": [("add.u32 %r31, %r2, 0;", "add.u32 %r31, %r2, 128;")]},
        "base offset 0",
        kind="unsupported",
    )


def test_descriptor_must_be_uniform() -> None:
    # Warp 1 of the warpgroup points its B descriptor 16 bytes further.
    extra = {
        "replace": [
            (
                "or.b64 %rd31, %rd30,",
                "setp.eq.u32 %p4, %r5, 1;\nselp.b32 %r32, 1, 0, %p4;\nadd.u32 %r30, %r30, %r32;\n"
                "cvt.u64.u32 %rd30, %r30;\nor.b64 %rd31, %rd30,",
            )
        ]
    }
    _fails(Case(n=8), extra, "the B descriptor differs between the threads of a warpgroup")


def test_descriptor_outside_shared_memory() -> None:
    # A start address that lies in no shared array of the CTA (past its end).
    extra = {"replace": [("add.u32 %r31, %r2, 0;", "add.u32 %r31, %r2, 65536;")]}
    _fails(Case(n=8), extra, "matches no shared array", kind="out-of-bounds")


def test_b1_is_unsupported() -> None:
    extra = {"replace": [(".f32.f16.f16", ".s32.b1.b1")], "shape": "m64n8k256"}
    ptx, (A, _, C, image) = _build(Case(n=8), extra)
    with pytest.raises(SimulationError, match="b1") as info:
        simulate(ptx, (1, 1, 1), [image, A, C, np.zeros_like(C), 1])
    assert info.value.kind == "unsupported"


def test_proxy_fence_required() -> None:
    # st.shared reaches wgmma only through fence.proxy.async, then a bar.sync.
    fenced = "fence.proxy.async.shared::cta;\nbar.sync 0;"
    for order in ("bar.sync 0;", "bar.sync 0;\nfence.proxy.async.shared::cta;"):
        _fails(Case(n=8), {"replace": [(fenced, order)]}, "not yet made visible to the async proxy")


_OVERWRITE = ["shl.b32 %r41, %r1, 2;", "add.u32 %r40, %r2, %r41;", "st.shared.b32 [%r40], %r1;"]


def test_overwriting_operands_before_wait() -> None:
    finish = ["wgmma.commit_group.sync.aligned;", *_OVERWRITE, "wgmma.wait_group.sync.aligned 0;"]
    _fails(Case(n=8), {"finish": finish}, "a store to shared memory that an unfinished wgmma")
    # After the wait the operands are free again.
    ptx, (A, B, C, image) = _build(Case(n=8), {"tail": _OVERWRITE})
    _assemble(ptx)
    D = np.zeros_like(C)
    simulate(ptx, (1, 1, 1), [image, A, C, D, 1])
    np.testing.assert_allclose(D, _expected(Case(n=8), A, B, C, True), rtol=1e-6, atol=1e-6)


# A two-slot ring read by two warpgroups: both issue a wgmma on slot 0 (group 0) and one
# on slot 1 (group 1), wait_group 1 (group 0 retires), then warpgroup 0 refills slot 0
# (step 0's A image, 2048 bytes: 16 per thread).  Warpgroup 1's wait_group retired its
# own read of slot 0, but only a barrier after it tells warpgroup 0 so: without one the
# refill races with warpgroup 1's wgmma on the hardware, whatever order the simulator
# ran the two warpgroups' waits in.
_REFILL = {
    "store": ["@%p5 st.shared.v4.b32 [%r40], {%r1, %r1, %r1, %r1};"],
    "cp.async": [
        "@%p5 cp.async.cg.shared.global [%r40], [%rd1], 16;",
        "cp.async.wait_all;",
    ],
}


#: Warpgroup 1 releases the slot on an mbarrier after its wait; all threads wait for
#: the phase (the ring's *empty* barrier).
_RELEASE = [
    "setp.ge.u32 %p6, %r1, 128;",
    "@%p6 mbarrier.arrive.shared::cta.b64 _, [%r42];",
    "$release:",
    "mbarrier.try_wait.parity.shared::cta.b64 %p7, [%r42], 0;",
    "@!%p7 bra $release;",
]
_MBARRIER_INIT = (
    "fence.proxy.async.shared::cta;\nbar.sync 0;",
    "mov.u32 %r42, mbar;\nsetp.eq.u32 %p6, %r1, 0;\n"
    "@%p6 mbarrier.init.shared::cta.b64 [%r42], 128;\n"
    "fence.proxy.async.shared::cta;\nbar.sync 0;",
)
_MBARRIER_DECL = (".shared .align 256", ".shared .align 8 .b8 mbar[8];\n.shared .align 256")


def _ring_of_two(refill: str, barrier: str) -> dict:
    """``barrier``: what orders warpgroup 1's wait before the refill ("bar.sync",
    "mbarrier" or "" for nothing)."""
    case = Case(n=8, steps=2, warpgroups=2)
    assert _prepare(case)[4][0][0] == 0  # step 0's A image starts the shared image
    between = {"bar.sync": ["bar.sync 0;"], "mbarrier": _RELEASE, "": []}[barrier]
    finish = [
        "wgmma.commit_group.sync.aligned;",
        "wgmma.wait_group.sync.aligned 1;",
        *between,
        "setp.lt.u32 %p5, %r1, 128;",
        "shl.b32 %r41, %r1, 4;",
        "add.u32 %r40, %r2, %r41;",
        *_REFILL[refill],
        "wgmma.wait_group.sync.aligned 0;",
    ]
    replace = [_MBARRIER_DECL, _MBARRIER_INIT] if barrier == "mbarrier" else []
    return {"finish": finish, "replace": replace}


def _ring_ptx(case: Case, extra: dict) -> tuple[str, tuple]:
    ptx, arrays = _build(case, extra)
    # Group 0 is the first wgmma alone.
    first = ptx.index("\n", ptx.index("wgmma.mma_async"))
    return ptx[:first] + "\nwgmma.commit_group.sync.aligned;" + ptx[first:], arrays


@pytest.mark.parametrize("refill", sorted(_REFILL))
def test_refilling_a_slot_another_warpgroup_read_needs_a_barrier(refill: str) -> None:
    case = Case(n=8, steps=2, warpgroups=2)
    for barrier in ("bar.sync", "mbarrier"):
        ptx, (A, B, C, image) = _ring_ptx(case, _ring_of_two(refill, barrier))
        _assemble(ptx)
        D = np.zeros_like(C)
        simulate(ptx, (1, 1, 1), [image, A, C, D, 1])
        np.testing.assert_allclose(D, _expected(case, A, B, C, True), rtol=1e-6, atol=1e-6)
    ptx, (A, _, C, image) = _ring_ptx(case, _ring_of_two(refill, ""))
    _assemble(ptx)
    with pytest.raises(SimulationError, match=r"warpgroup 1 \(tid 128 \.\. 255\) read") as info:
        simulate(ptx, (1, 1, 1), [image, A, C, np.zeros_like(C), 1])
    assert info.value.kind == "async-race", info.value
    assert "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16" in info.value.message
