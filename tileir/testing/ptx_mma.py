"""Warp-level tensor-core instructions in the PTX simulator: ``ldmatrix`` and
``mma.sync`` (f16/bf16, tf32, e4m3/e5m2 and s8/u8 operands).

Both are collective over a warp: the simulator requires all 32 lanes of every warp
that reaches them to execute them together (a partial warp is an error, as on the
hardware, where ``.sync.aligned`` demands it).

``ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 {d..}, [a]``: matrix ``i``
is 8 rows of 16 bytes whose addresses come from lanes ``8i .. 8i+7``; lane ``t``
receives in ``d_i`` the two 16-bit elements ``(t/4, 2(t%4))`` and ``(t/4, 2(t%4)+1)``
of matrix ``i`` (``.trans``: ``(2(t%4), t/4)`` and ``(2(t%4)+1, t/4)``), the first in
the low half.  Rows are checked for bounds and 16-byte alignment.

``mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 {d0..d3}, {a0..a3},
{b0, b1}, {c0..c3}``: with ``g = t/4`` and ``c = t%4`` lane ``t`` holds
``A[g][2c..2c+1]`` (``a0``), ``A[g+8][2c..]`` (``a1``), ``A[g][2c+8..]`` (``a2``),
``A[g+8][2c+8..]`` (``a3``); ``B[2c..2c+1][g]`` (``b0``), ``B[2c+8..][g]`` (``b1``);
``C``/``D[g][2c..2c+1]`` (``c0, c1``) and ``[g+8][2c..]`` (``c2, c3``).  ``D = A·B + C``
is computed exactly in float64 and rounded once to f32 (the hardware's internal
accumulation order and precision differ slightly: compare with a tolerance).

``mma.sync.aligned.m16n8k32.row.col.s32.{s8,u8}.{s8,u8}.s32`` (and
``.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}.{f32,f16}``, 8-bit floats, sm_89 on): the same positions
with four bytes per register (``A[g][4c..4c+3]``, ``A[g+8][..]``, ``A[g][16+4c..]``,
``A[g+8][16+4c..]``; ``B[4c..4c+3][g]``, ``B[16+4c..][g]``), computed exactly and
wrapped to 32 bits; ``m16n8k16`` on the same types takes the first two A registers and
the first B register of that list.

``mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {d0..d3}, {a0..a3}, {b0, b1},
{c0..c3}``: one tf32 element per register: ``A[g][c]`` (``a0``), ``A[g+8][c]`` (``a1``),
``A[g][c+4]`` (``a2``), ``A[g+8][c+4]`` (``a3``); ``B[c][g]`` (``b0``), ``B[c+4][g]``
(``b1``); C and D as for m16n8k16.  The hardware reads only the upper 19 bits of each
operand register (sign, exponent, 10 fraction bits), so the low 13 bits are dropped
(an f32 that is not a tf32 value is truncated toward zero); D is computed exactly from
those values and rounded once to f32.

``mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {d0, d1}, {a0..a3}, {b0, b1},
{c0, c1}``: the f16 accumulator packs two elements per register (``d0``: row ``g``,
``d1``: row ``g + 8``, columns ``2c``, ``2c + 1``, the first in the low half); the sum
is computed exactly and rounded once to f16.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tileir.testing.ptx_decode import Exec, Mods, decoder, invalid, operands, unsupported
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_numeric import TYPES, unique_counts
from tileir.testing.ptx_parse import Instruction, Mem, Operand, Reg, Vec
from tileir.testing.ptx_races import check_load

_LANE = np.arange(32)
#: 8-bit float operand kinds and their numpy types.
_FLOAT8 = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
_G = _LANE // 4
_C = _LANE % 4


def _warps(m: Machine, act: np.ndarray) -> np.ndarray:
    """Active thread indices as ``(warps, 32)``; every active warp must be whole."""
    lanes = np.flatnonzero(act)
    warp = m.threads.warp[lanes]
    ids, counts = unique_counts(warp)
    if (counts != 32).any():
        bad = ids[counts != 32][0]
        partial = act & (m.threads.warp == bad)
        raise m.fail("a warp-collective instruction executed by only part of a warp", partial)
    return lanes.reshape(-1, 32)


def _items(ins: Instruction, op: Operand, count: int) -> tuple[Operand, ...]:
    if not isinstance(op, Vec) or len(op.items) != count:
        raise invalid(ins, f"expected a vector of {count} registers, got {op}")
    return op.items


@decoder("ldmatrix")
def decode_ldmatrix(ins: Instruction) -> Exec:
    mods = Mods(ins)
    if not (mods.flag("sync") and mods.flag("aligned") and mods.flag("m8n8")):
        raise unsupported(ins, "ldmatrix other than .sync.aligned.m8n8")
    count = {"x1": 1, "x2": 2, "x4": 4}[mods.one_of(("x1", "x2", "x4")) or "x1"]
    trans = mods.flag("trans")
    if not mods.flag("shared"):
        raise unsupported(ins, "ldmatrix from a space other than .shared")
    t = mods.type("b")
    mods.done()
    if t.bits != 16:
        raise invalid(ins, f"ldmatrix.{t.name}")
    d, a = operands(ins, 2)
    dests = _items(ins, d, count) if isinstance(d, Vec) else (d,)
    if len(dests) != count:
        raise invalid(ins, f"{len(dests)} destinations for .x{count}")
    if not isinstance(a, Mem):
        raise invalid(ins, f"address operand {a}")
    addr = a

    def run(m: Machine, act: np.ndarray) -> None:
        from tileir.testing.ptx_ops import check_access

        warps = _warps(m, act)
        base = m.read(Reg(addr.base), TYPES["u32"], act).astype(np.uint64)
        rows = (base[warps] + np.uint64(addr.offset & 0xFFFFFFFF))[:, : 8 * count]
        flat_rows = rows.reshape(-1)
        row_lanes = warps[:, : 8 * count].reshape(-1)
        check_access(m, flat_rows, 16, row_lanes, "ldmatrix row read")
        if m.check_races:
            check_load(m, flat_rows, 16, row_lanes)
        data = m.memory.load(flat_rows, 16).view("<u2").reshape(len(warps), count, 8, 8)
        for i, dest in enumerate(dests):
            mat = data[:, i].astype(np.uint32)
            if trans:
                lo, hi = mat[:, 2 * _C, _G], mat[:, 2 * _C + 1, _G]
            else:
                lo, hi = mat[:, _G, 2 * _C], mat[:, _G, 2 * _C + 1]
            full = np.zeros(m.count, dtype=np.uint32)
            full[warps.reshape(-1)] = (lo | (hi << 16)).reshape(-1)
            m.write_bits(dest, full, TYPES["b32"], act)

    return run


def _halves(bits: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """The low and high 16-bit elements of 32-bit words, as float64."""
    lo = (bits & 0xFFFF).astype(np.uint16)
    hi = (bits >> 16).astype(np.uint16)
    if kind == "f16":
        return lo.view(np.float16).astype(np.float64), hi.view(np.float16).astype(np.float64)
    as_f32 = lambda h: (h.astype(np.uint32) << 16).view(np.float32).astype(np.float64)  # noqa: E731
    return as_f32(lo), as_f32(hi)


@decoder("mma")
def decode_mma(ins: Instruction) -> Exec:
    mods = Mods(ins)
    if not (mods.flag("sync") and mods.flag("aligned")):
        raise unsupported(ins, "mma without .sync.aligned")
    shape = mods.one_of(("m16n8k8", "m16n8k16", "m16n8k32"))
    if shape is None:
        raise unsupported(ins, "mma shapes other than m16n8k8, m16n8k16 and m16n8k32")
    if not (mods.flag("row") and mods.flag("col")):
        raise unsupported(ins, "mma layouts other than .row.col")
    rest = list(mods.rest)
    mods.rest.clear()
    if len(rest) != 4 or rest[0] != rest[3]:
        raise unsupported(ins, f"mma types .{'.'.join(rest)}")
    acc, ka, kb = rest[0], rest[1], rest[2]
    halves = ka == kb and ((ka in ("f16", "bf16") and acc == "f32") or ka == acc == "f16")
    integer = acc == "s32" and ka in ("s8", "u8") and kb in ("s8", "u8")
    tf32 = ka == kb == "tf32" and acc == "f32"
    float8 = ka in _FLOAT8 and kb in _FLOAT8 and acc in ("f32", "f16")
    if shape == "m16n8k16" and halves:
        per_reg = 2
    elif shape == "m16n8k8" and tf32:
        per_reg = 1
    elif (integer and shape != "m16n8k8") or (float8 and shape == "m16n8k32"):
        per_reg = 4
    else:
        raise unsupported(ins, f"mma.{shape} on .{'.'.join(rest)}")
    k = {"m16n8k8": 8, "m16n8k16": 16, "m16n8k32": 32}[shape]  # K per instruction
    # A (16 x K) and B (K x 8) spread over the warp's lanes, `per_reg` elements a register.
    a_regs, b_regs = 16 * k // (32 * per_reg), 8 * k // (32 * per_reg)
    d, a, b, c = operands(ins, 4)
    acc_regs = 2 if acc == "f16" else 4  # an f16 accumulator packs two per register
    ds, as_, bs = _items(ins, d, acc_regs), _items(ins, a, a_regs), _items(ins, b, b_regs)
    cs = _items(ins, c, acc_regs)
    acc_t, b32 = TYPES[acc], TYPES["b32"]
    half = k // 2

    def run(m: Machine, act: np.ndarray) -> None:
        warps = _warps(m, act)
        n = len(warps)
        A = np.zeros((n, 16, k))
        B = np.zeros((n, k, 8))
        C = np.zeros((n, 16, 8))
        for r, (row, col) in enumerate(((0, 0), (8, 0), (0, half), (8, half))[:a_regs]):
            words = m.read_bits(as_[r], b32, act)[warps].astype(np.uint32)
            for e, value in enumerate(_elements(words, ka, per_reg)):
                A[:, _G + row, per_reg * _C + col + e] = value
        for r in range(b_regs):
            words = m.read_bits(bs[r], b32, act)[warps].astype(np.uint32)
            for e, value in enumerate(_elements(words, kb, per_reg)):
                B[:, per_reg * _C + half * r + e, _G] = value
        if acc == "f16":
            for r in range(2):
                words = m.read_bits(cs[r], b32, act)[warps].astype(np.uint32)
                lo, hi = _halves(words, "f16")
                C[:, _G + 8 * r, 2 * _C] = lo
                C[:, _G + 8 * r, 2 * _C + 1] = hi
        else:
            for r in range(4):
                C[:, _G + 8 * (r // 2), 2 * _C + r % 2] = m.read(cs[r], acc_t, act)[warps]
        if acc == "f16":
            D16 = (np.einsum("wmk,wkn->wmn", A, B) + C).astype(np.float16).view(np.uint16)
            for r in range(2):
                lo = D16[:, _G + 8 * r, 2 * _C].astype(np.uint32)
                hi = D16[:, _G + 8 * r, 2 * _C + 1].astype(np.uint32)
                full = np.zeros(m.count, dtype=np.uint32)
                full[warps.reshape(-1)] = (lo | (hi << 16)).reshape(-1)
                m.write_bits(ds[r], full, b32, act)
            return
        if acc == "s32":
            exact = np.einsum("wmk,wkn->wmn", A.astype(np.int64), B.astype(np.int64))
            D = ((exact + C.astype(np.int64)) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
            dtype = np.int32
        else:
            D = (np.einsum("wmk,wkn->wmn", A, B) + C).astype(np.float32)
            dtype = np.float32
        for r in range(4):
            full = np.zeros(m.count, dtype=dtype)
            full[warps.reshape(-1)] = D[:, _G + 8 * (r // 2), 2 * _C + r % 2].reshape(-1)
            m.write(ds[r], full, acc_t, act)

    return run


def _elements(words: np.ndarray, kind: str, per_reg: int) -> list[np.ndarray]:
    """The elements packed in 32-bit words, lowest first, as float64."""
    if per_reg == 1:  # tf32: the upper 19 bits of the word
        return [(words & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)]
    if per_reg == 2:
        return list(_halves(words, kind))
    out = []
    for e in range(4):
        byte = ((words >> (8 * e)) & 0xFF).astype(np.uint8)
        if kind in _FLOAT8:
            out.append(byte.view(_FLOAT8[kind]).astype(np.float64))
        else:
            out.append((byte.view(np.int8) if kind == "s8" else byte).astype(np.float64))
    return out
