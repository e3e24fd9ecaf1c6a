"""`nv_tileas.dot` with an `mma.sync` atom on tensor cores with `ldmatrix` + `mma.sync`.

The atom (`tileas-select-dot-atoms` chose it, `transforms/tileas/dot_plan.py`) says
which instruction runs the dot; `dot.py` (`LowerDot`) does the steps below that every
engine shares and calls this file's `mma_sync_dot` (or `wgmma.py`, `fma_dot.py`).

`acc + a · b` with f16 or bf16 operands and an f32 accumulator, or f16 operands and
an f16 accumulator (`mma.sync.aligned.m16n8k16`), tf32 operands and an f32
accumulator (`m16n8k8`), or i8 operands of either signedness and an i32 accumulator
(`m16n8k32`, exact), for every target tileir supports: `mma.sync` is sm_80's instruction and is valid unchanged on sm_90a and
sm_100a.  8-bit float operands (e4m3, e5m2) use `m16n8k32` from sm_89 on; before
that, and on every target where K is 16 past a multiple of 32 (`m16n8k32` steps K
by 32), f16 `m16n8k16` on the operands widened exactly (atoms `mma_*_via_f16`,
`widened_to_f16`; `dot_plan.float8_widening_reason` says why).  A `wgmma` atom (sm_90a, a dot whose warps form whole warpgroups
along M) runs the same steps with `wgmma` in place of `ldmatrix` + `mma.sync`
(`wgmma.py`: the same accumulator layout, both operands from core-matrix buffers
through matrix descriptors); sm_100a's `tcgen05` is not used yet.

The operands arrive in whatever distributed layouts `tileas-assign-layouts` gave
them.  The lowering, per `dot`:

1. Every thread writes its elements of `a` (MxK) and `b` (KxN) into shared memory,
   row-major with rows padded by 16 bytes (row addresses stay 16-byte aligned, as
   `ldmatrix` needs, and the 8 rows one `ldmatrix` matrix reads fall into different
   banks), and its elements of `acc` into a padded 32-bit buffer (`exchange.py`).
2. After a barrier, each thread reads `acc` back in the *MMA accumulator layout*
   (`accumulator_layout`): the CTA's warps form a `wm x wn` grid over the tile, and
   within each 16x8 block lane `l` holds rows `l/4`, `l/4 + 8` and columns `2(l%4)`,
   `2(l%4) + 1`.
3. Each warp loads its fragments of `a` with `ldmatrix.x4` (a 16x16 block of halves,
   16x32 of bytes, 16x8 of tf32 words: 32 bytes of K per row either way) and of `b`
   with `ldmatrix.x2.trans` (a 16x8 block of the row-major KxN buffer; i8 and tf32
   `b` is written transposed, NxK, and read with a plain `ldmatrix.x2`, as `ldmatrix`
   transposes only 16-bit elements), and accumulates with one `mma.sync` per 16x8
   output block and K step (16 halves, 32 bytes, 8 tf32).  A tf32 element is its f32
   register (`tf32.py`), so the 8x8 `b16` matrices `ldmatrix` moves are 8x4 words,
   which is the m16n8k8 tf32 fragment.
4. After a barrier the fragments go back through that buffer into `acc`'s layout.

Steps 2 and 4 are skipped when `acc` and the result already are in that layout
(`#nv_tileas.mma`, which `tileas-assign-layouts` gives them: `mma_layouts.py`).

When the tile has fewer 16x8 blocks than the CTA has warps, the spare warps repeat
another warp's work and do not write.  A batched (rank-3) dot runs the 2-D steps
once per matrix of the batch, with the batch index in the highest register bits of
the fragments and a per-matrix offset in every buffer; its accumulator takes the
batched MMA layout (`#nv_tileas.mma<{warpsPerCTA = [1, wm, wn]}>`), so steps 2 and 4
are skipped there too.  Floating dots the tensor cores do not take (f32 or f64
operands, tiles that are not multiples of the `mma.sync` shape) carry an `fma` atom
and are computed with FMAs instead (`fma_dot.py`): the operands go through shared
memory and each thread computes the accumulator elements it holds, one FMA per K
step in the accumulator's type.
"""

from __future__ import annotations

from xdsl.dialects.builtin import f16, i32
from xdsl.ir import Attribute, SSAValue

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import FunctionState
from tileir.conversions.tileas_to_llvm.fp8 import FLOAT8_CVT_CC, decode_to_f32, widen_pair_to_f16
from tileir.conversions.tileas_to_llvm.wgmma import Packer
from tileir.dialects import nvvm
from tileir.dialects.nv_tileas.layouts import LinearLayout
from tileir.dialects.nv_tileas.mma_layout import mma_linear, mma_warp_grid
from tileir.dialects.nv_tileas.mma_spec import K_STEP_BYTES, MmaSpec
from tileir.targets import compute_capability
from tileir.utils.bits import log2

#: Row padding of the operand buffers: keeps `ldmatrix` rows 16-byte aligned.
OPERAND_ROW_PAD = 16


def warp_grid(m: int, n: int, num_warps: int) -> tuple[int, int]:
    """The warp grid a `dot` uses when its accumulator's layout does not say
    (`mma_warp_grid`)."""
    return mma_warp_grid(m, n, num_warps)


def accumulator_layout(m: int, n: int, num_warps: int) -> LinearLayout:
    """The `mma.sync` accumulator layout of an M x N tile over `num_warps` warps
    (`#nv_tileas.mma`, `tileir/dialects/nv_tileas/mma_layout.py`)."""
    wm, wn = warp_grid(m, n, num_warps)
    return mma_linear((m, n), wm, wn)


def ldmatrix_bases(
    p: LLBuilder,
    state: FunctionState,
    spec: MmaSpec,
    smem_a: SSAValue,
    smem_b: SSAValue,
    a_pitch: int,
    b_pitch: int,
    wm: int,
    em: int,
    en: int,
) -> tuple[SSAValue, SSAValue]:
    """Each thread's `ldmatrix` row addresses in the A and B buffers (computed once
    per kernel, in its prologue)."""
    assert state.lane is not None and state.warp is not None
    lane16 = p.and_(state.lane, p.const(15, i32))
    wi = p.and_(state.warp, p.const(em - 1, i32))
    wj = p.and_(p.lshr(state.warp, p.const(log2(wm), i32)), p.const(en - 1, i32))
    # A: lane l gives row 16*wi + l%16 at byte 16*(l/16) of the 16-row block.
    row_a = p.add(p.shl(wi, p.const(4, i32)), lane16)
    col_a = p.shl(p.lshr(state.lane, p.const(4, i32)), p.const(4, i32))
    base_a = p.add(smem_a, p.add(p.mul(row_a, p.const(a_pitch, i32)), col_a))
    if spec.k_major_b:
        # B^T: lane l gives row (n) 8*wj + l%8 at byte 16*((l/8)%2).
        row_b = p.add(p.shl(wj, p.const(3, i32)), p.and_(state.lane, p.const(7, i32)))
        col_b = p.shl(p.and_(p.lshr(state.lane, p.const(3, i32)), p.const(1, i32)), p.const(4, i32))
        return base_a, p.add(smem_b, p.add(p.mul(row_b, p.const(b_pitch, i32)), col_b))
    # B: lane l gives row (k) l%16 at column 8*wj.
    return base_a, p.add(
        smem_b, p.add(p.mul(lane16, p.const(b_pitch, i32)), p.shl(wj, p.const(4, i32)))
    )


def _b_fragments(
    b: LLBuilder,
    spec: MmaSpec,
    base_b: SSAValue,
    batch: int,
    b_batch: int,
    b_pitch: int,
    n_reps: int,
    en: int,
    steps: tuple[int, int],
) -> dict[tuple[int, int, int], list[SSAValue]]:
    """The `mma.sync` B fragments of every (batch, N block, K step): `steps` is the
    number of full K steps and of 16-byte i8 tails (0 or 1, a `.x1` load).  A
    K-major B (bytes, tf32) gives each step's fragment with one plain `.x2`: its
    two 8x16-byte matrices are the step's two 16-byte halves of K."""
    k_bytes = K_STEP_BYTES
    k_steps, tail = steps
    if spec.k_major_b:
        return {
            (bt, nr, ks): _ldmatrix(
                b,
                base_b,
                bt * b_batch + nr * 8 * en * b_pitch + ks * k_bytes,
                2 if ks < k_steps else 1,
                trans=False,
            )
            for bt in range(batch)
            for nr in range(n_reps)
            for ks in range(k_steps + tail)
        }
    return {
        (bt, nr, ks): _ldmatrix(
            b, base_b, bt * b_batch + ks * 16 * b_pitch + nr * 16 * en, 2, trans=True
        )
        for bt in range(batch)
        for nr in range(n_reps)
        for ks in range(k_steps)
    }


def _mma_sync(
    b: LLBuilder,
    spec: MmaSpec,
    c: list[SSAValue],
    a_frags: dict[tuple[int, int, int], list[SSAValue]],
    b_frags: dict[tuple[int, int, int], list[SSAValue]],
    counts: tuple[int, int, int, int, int],
    word_type: Attribute,
    packing: tuple[Packer, Packer],
) -> None:
    """One `mma.sync` per 16x8 block of `c` and K step, updating `c` in place."""
    batch, per_batch, m_reps, n_reps, k_steps = counts
    pack, unpack = packing
    words = 2 if spec.acc == "f16" else 4

    for bt in range(batch):
        for mr in range(m_reps):
            for nr in range(n_reps):
                r = per_batch * bt + 4 * (nr + n_reps * mr)
                block = pack(c[r : r + 4])
                for ks in range(k_steps):
                    a_regs, b_regs = a_frags[bt, mr, ks], b_frags[bt, nr, ks]
                    # An i8 K tail's m16n8k16 takes 2 A and 1 B registers.
                    k = spec.k_step if len(a_regs) == 4 else 16
                    mma = b.op(
                        nvvm.MmaSyncOp(
                            a_regs, b_regs, block, (16, 8, k), (spec.a, spec.b, spec.acc)
                        )
                    )
                    block = [b.extract(mma.results[0], i, word_type) for i in range(words)]
                c[r : r + 4] = unpack(block)


def mma_sync_dot(
    b: LLBuilder,
    spec: MmaSpec,
    c: list[SSAValue],
    bases: tuple[SSAValue, SSAValue],
    batch_bytes: tuple[int, int],
    pitches: tuple[int, int],
    batches: tuple[int, int],
    counts: tuple[int, int, int, int],
    warps: tuple[int, int],
    word_type: Attribute,
    packing: tuple[Packer, Packer],
) -> None:
    """The `mma.sync` engine of a `dot` whose operands are in their row-major buffers
    (step 3 of the module docstring): `ldmatrix` fragments of A and B from each
    thread's `bases`, then one `mma.sync` per 16x8 block of `c` and K step, updating
    the accumulator registers `c` in place.  `batch_bytes` and `pitches` are the A and
    B buffers' bytes per batch matrix and per row, `batches` the batch count and the
    accumulator registers per matrix, `counts` the 16x8 blocks along M and N per warp,
    the full K steps and the i8 tail (0 or 1), `warps` the effective warp grid."""
    base_a, base_b = bases
    a_batch, b_batch = batch_bytes
    a_pitch, b_pitch = pitches
    batch, per_batch = batches
    m_reps, n_reps, k_steps, tail = counts
    em, en = warps
    k_bytes = K_STEP_BYTES  # one K step of a row: 16 halves, 32 bytes, 8 tf32
    # A: 16 x 32 bytes per step (.x4); the tail's 16 x 16 bytes (.x2).
    a_frags = {
        (bt, mr, ks): _ldmatrix(
            b,
            base_a,
            bt * a_batch + mr * 16 * em * a_pitch + ks * k_bytes,
            4 if ks < k_steps else 2,
            trans=False,
        )
        for bt in range(batch)
        for mr in range(m_reps)
        for ks in range(k_steps + tail)
    }
    b_frags = _b_fragments(b, spec, base_b, batch, b_batch, b_pitch, n_reps, en, (k_steps, tail))
    _mma_sync(
        b,
        spec,
        c,
        a_frags,
        b_frags,
        (batch, per_batch, m_reps, n_reps, k_steps + tail),
        word_type,
        packing,
    )


def widened_to_f16(
    b: LLBuilder, values: list[SSAValue], el: Attribute, arch: str
) -> list[SSAValue]:
    """8-bit float registers as f16 registers.  Exact: every f8E4M3FN value (at most 4
    significant bits, 2^-9 to 448) and every f8E5M2 value (f16 with its low 8 bits
    dropped) is an f16 value, so the f16 tensor cores form the same exact products.
    From sm_89 on two at a time with the hardware's `cvt.rn.f16x2.e4m3x2` (`.e5m2x2`;
    `fp8.widen_pair_to_f16`), before with integer operations (`fp8.decode_to_f32`)."""
    out: list[SSAValue] = []
    if compute_capability(arch) >= FLOAT8_CVT_CC:
        for i in range(0, len(values) - 1, 2):
            out += widen_pair_to_f16(b, values[i], values[i + 1], el)
    return out + [b.fptrunc(decode_to_f32(b, v, el), f16) for v in values[len(out) :]]


def _ldmatrix(b: LLBuilder, base: SSAValue, offset: int, count: int, trans: bool) -> list[SSAValue]:
    address = b.add(base, b.const(offset, i32)) if offset else base
    words = b.v(nvvm.LdMatrixOp(address, count, "col" if trans else "row"))
    if count == 1:
        return [words]
    return [b.extract(words, i, i32) for i in range(count)]
