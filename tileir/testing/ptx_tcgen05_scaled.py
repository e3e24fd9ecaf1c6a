"""sm_100a's block-scaled `tcgen05` in the PTX simulator: `tcgen05.cp` (shared memory ->
tensor memory) and `tcgen05.mma ... .kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale`.

Written from the PTX ISA's tcgen05 sections (9.7.16; no Blackwell GPU was at hand) and
checked against ptxas; where the ISA gives a layout only as a figure, CUTLASS's CuTe
(`copy_traits_sm100.hpp`'s UTCCP atoms, `mma_traits_sm100_frag.hpp`'s `tmem_sf_frg`)
was read to confirm it.  The rest of the tcgen05 model (allocation, commit, ld/st, the
regions an asynchronous writer leaves for `tcgen05.ld`) is ``ptx_tcgen05``'s.

* `tcgen05.cp.cta_group::1.shape{.multicast} [taddr], s-desc` (9.7.16.9.2), issued by
  each thread that executes it.  The source is a matrix of `rows` rows of 16 (`.128b`) or
  32 (`.256b`) bytes described by an sm_100 shared-memory descriptor (9.7.16.4.1, checked
  as the MMA's), read in the K-major canonical layout without swizzle: byte `b` of row
  `r` at `(r / 8) SBO + (b / 16) LBO + (r % 8) 16 + b % 16` (a swizzled source is
  `unsupported`, and so is the optional decompression `.b8x16.b6x16_p32/.b4x16_p64`).
  Row `r` lands in lane(s), from the address's lane, with the row's bytes in the columns
  from the address's (4 bytes a column, little-endian):

  - `.128x256b`, `.128x128b`: lane `r`;
  - `.4x256b`: lane `32 r` (one row in each lane quarter);
  - `.32x128b.warpx4`: lanes `r + 32 q`, q = 0 .. 3 (every warp's quarter);
  - `.64x128b.warpx2::02_13`: lanes `r` and `r + 64` (warps 0 and 2 get rows 0 .. 31,
    warps 1 and 3 rows 32 .. 63);
  - `.64x128b.warpx2::01_23`: rows 0 .. 31 to lanes `r`, `r + 32` (warps 0 and 1), rows
    32 .. 63 to lanes `r + 32`, `r + 64` (warps 2 and 3).

  `.64x128b` without a `.warpx2` or `.32x128b` without `.warpx4` is invalid PTX.  The
  copy is asynchronous: the source is read through the async proxy (a thread's stores to
  it need `fence.proxy.async` and a synchronization before the copy, as a `wgmma`
  operand's), must stay unchanged until a `tcgen05.commit` of the issuer after the copy
  completes (a store or an asynchronous copy into it before a writer observed that
  commit's phase is an `async-race`), and the destination columns must be allocated.
  The data lands at issue here, but the columns are readable by `tcgen05.ld` only after
  the commit's phase, as an MMA's D; a `tcgen05.mma` of the same thread may read them
  right away (9.7.16.6.2: `tcgen05.cp` -> `tcgen05.mma` of one thread is implicitly
  pipelined), an MMA of another thread only after it observed the commit.

* `tcgen05.mma.cta_group::1.kind::K.block_scale{.scale_vec::NX, .block16, .block32}
  [d], a-desc | [a-tmem], b-desc, idesc, [scale-A], [scale-B], enable-input-d`
  (9.7.16.10.9.1, 9.7.16.10.7): D (+)= (A * scale_A) (B * scale_B).  The scale vector
  (Table 54/55): `kind::mxf8f6f4` 1X (one scale per 32 K elements; `.block32`, or
  nothing), `kind::mxf4` 2X (`.block32`, or nothing), `kind::mxf4nvf4` 2X (`.block32`) or
  4X (`.block16`, 16 K elements a scale); another is invalid PTX.  The instruction
  descriptor (Tables 43/44) is decoded bit by bit: reserved bits 0-1, 3, 6, 24-26 (and
  31 for mxf8f6f4, 12 for mxf4*) zero, dense only (bit 2), the B / A scale-factor IDs in
  bits 4-5 / 29-30, A/B types in 7-9 / 10-12 (mxf8f6f4: E4M3 0, E5M2 1 -- the 6- and
  4-bit types in 8-bit containers are `unsupported`; mxf4*: E2M1 1, two elements a byte,
  the even one in the low nibble), negations 13-14, transposes 15-16 (MN-major is
  `unsupported`; mxf4* only K-major), N >> 3 in 17-22, the scale type in 23 (UE8M0 1;
  UE4M3 0 only for mxf4nvf4 with 4X), M >> 7 in 27-28, K (bit 31 of mxf4*: 0 for K = 64;
  1, K = 96, is for CTA pairs).  With `.cta_group::1` M is 128 and N 8 .. 256 in steps of
  8 (Table 39).  K is 32 (mxf8f6f4) or 64 (mxf4*): 32 bytes of each row of A and B, as
  the dense kinds read.  A scale-factor ID must fit the vector (1X: 0-3, 2X: 0 or 2, 4X:
  0).

  Scale factors in tensor memory (9.7.16.10.7.2/3; the figures, and CuTe's
  `tmem_sf_frg`): the factor `j` of row `i` of A (of column `i` of B) is byte `id + j`
  (`id` the descriptor's scale-factor ID) of the cell in lane `i % 32` and column `c + i
  / 32`, `c` the scale address's column (its lane field must be 0); "scale factors ...
  need to be duplicated to all 32 lane partitions": the same byte must be in lanes `i % 32
  + 32 q` of all four lane quarters, else it is reported (what `.32x128b.warpx4` and the
  `.64x128b` forms produce).  So scale_A takes 4 columns, scale_B `ceil(N / 32)`; every
  one must be allocated.  Scales read before they are ready are reported: columns an
  asynchronous writer (a `tcgen05.cp`, an MMA) of another thread has not been observed
  to complete (a commit's phase), and columns a `tcgen05.st` has not waited for.  UE8M0
  is `2^(e - 127)` (0xFF NaN), UE4M3 an E4M3 without sign.  The product is exact
  (float64) and rounded once to f32, as the dense kinds'.  While the MMA is in flight its
  scale columns must not be written (a `tcgen05.st`, `tcgen05.cp` or MMA D over them
  before the writer observed the MMA's commit is an `async-race`, as A's columns).

Not modelled: `.cta_group::2`, `.ws`, sparsity, `.collector_usage`, K = 96, M = 64 /
256, the 4- and 6-bit types of `kind::mxf8f6f4`, `tcgen05.shift`.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from tileir.testing.ptx_decode import Exec, Mods, invalid, lanes_of, unsupported
from tileir.testing.ptx_errors import UNSUPPORTED
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_numeric import unique
from tileir.testing.ptx_parse import Instruction, Mem, Vec
from tileir.testing.ptx_tcgen05 import (
    _check_a_unread,  # pyright: ignore[reportPrivateUsage]
    _check_columns,  # pyright: ignore[reportPrivateUsage]
    _record_reads,  # pyright: ignore[reportPrivateUsage]
    _sm100_to_hopper,  # pyright: ignore[reportPrivateUsage]
    _State,  # pyright: ignore[reportPrivateUsage]
    _state,  # pyright: ignore[reportPrivateUsage]
    _value,  # pyright: ignore[reportPrivateUsage]
    add_region,
    mma_d_columns,
    mma_operands,
    tmem_a,
    tmem_address,
    write_d,
)
from tileir.testing.ptx_wgmma import (
    _check_cta_shared,  # pyright: ignore[reportPrivateUsage]
    _decode_elements,  # pyright: ignore[reportPrivateUsage]
    _operand_bytes,  # pyright: ignore[reportPrivateUsage]
    _resolve_shared,  # pyright: ignore[reportPrivateUsage]
)

# ------------------------------------------------------------------ tcgen05.cp

#: Shape -> (rows, bytes a row).
CP_SHAPES = {
    "128x256b": (128, 32),
    "4x256b": (4, 32),
    "128x128b": (128, 16),
    "64x128b": (64, 16),
    "32x128b": (32, 16),
}
#: The multicast each shape requires (None: none allowed).
_CP_MULTICAST = {
    "64x128b": ("warpx2::02_13", "warpx2::01_23"),
    "32x128b": ("warpx4",),
}


def cp_lanes(shape: str, multicast: str | None) -> np.ndarray:
    """``(rows, copies)``: the lanes (from the address's) that row ``r`` of a
    `tcgen05.cp` of `shape` lands in (9.7.16.9.2; CuTe's UTCCP atoms)."""
    r = np.arange(CP_SHAPES[shape][0])[:, None]
    if shape == "4x256b":
        return 32 * r
    if multicast == "warpx4":
        return r + 32 * np.arange(4)[None, :]
    if multicast == "warpx2::02_13":
        return r + 64 * np.arange(2)[None, :]
    if multicast == "warpx2::01_23":
        return r + 32 * (r // 32) + 32 * np.arange(2)[None, :]
    return r


def _source_offsets(rows: int, width: int, lbo: int, sbo: int) -> np.ndarray:
    """``(rows, width)`` byte offsets of a K-major canonical matrix without swizzle."""
    r = np.arange(rows)[:, None]
    b = np.arange(width)[None, :]
    return (r // 8) * sbo + (b // 16) * lbo + (r % 8) * 16 + b % 16


def decode_cp(ins: Instruction, mods: Mods) -> Exec:
    shape = mods.one_of(tuple(CP_SHAPES))
    if shape is None:
        raise invalid(ins, f"tcgen05.cp needs one of the shapes .{', .'.join(CP_SHAPES)}")
    multicast = mods.one_of(("warpx2::02_13", "warpx2::01_23", "warpx4"))
    allowed = _CP_MULTICAST.get(shape, ())
    if (multicast is None and allowed) or (multicast is not None and multicast not in allowed):
        need = " or .".join(allowed) if allowed else "no multicast"
        raise invalid(ins, f"tcgen05.cp.{shape} takes .{need}, got {multicast}")
    if any(f in mods.rest for f in ("b8x16", "b6x16_p32", "b4x16_p64")):
        raise unsupported(ins, "tcgen05.cp with decompression (.b8x16.b6x16_p32/.b4x16_p64)")
    mods.done()
    ops = list(ins.operands)
    if len(ops) != 2:
        raise invalid(ins, "tcgen05.cp takes [taddr], s-desc")
    taddr_op, desc_op = ops
    if not isinstance(taddr_op, Mem) or isinstance(desc_op, Mem | Vec):
        raise invalid(ins, "tcgen05.cp takes [taddr], s-desc")
    rows, width = CP_SHAPES[shape]
    lanes_of_row = cp_lanes(shape, multicast)
    cols = width // 4

    def run(m: Machine, act: np.ndarray) -> None:
        from tileir.testing.ptx_ops import check_access
        from tileir.testing.ptx_races import check_async_read

        state = _state(m)
        taddr = tmem_address(m, taddr_op, act)
        descs = _value(m, desc_op, "b64", act)
        for lane in lanes_of(act).tolist():
            cta = int(m.threads.cta[lane])
            t, desc = int(taddr[lane]), int(descs[lane])
            lane0, lo = t >> 16, t & 0xFFFF
            dest = lane0 + lanes_of_row
            if dest.max() >= 128:
                raise m.fail(
                    f"tcgen05.cp.{shape} at lane {lane0} writes lanes up to {int(dest.max())} "
                    "(tensor memory has 128)",
                    lane,
                )
            _sm100_to_hopper(m, desc, lane, "tcgen05.cp source")
            if (desc >> 61) & 7:
                raise m.fail(
                    f"tcgen05.cp from a swizzled source (swizzle mode {(desc >> 61) & 7})",
                    lane,
                    kind=UNSUPPORTED,
                )
            start = (desc & 0x3FFF) << 4
            lbo, sbo = ((desc >> 16) & 0x3FFF) << 4, ((desc >> 32) & 0x3FFF) << 4
            base = _resolve_shared(m, start, cta, lane, "tcgen05.cp source")
            addresses = (base + _source_offsets(rows, width, lbo, sbo)).reshape(-1)
            chunks = unique(addresses & ~15).astype(np.uint64)
            check_access(m, chunks, 16, np.full(len(chunks), lane), "tcgen05.cp source read")
            _check_cta_shared(m, chunks, cta, lane, "tcgen05.cp source")
            check_async_read(m, unique(addresses), lane, "tcgen05.cp (source)")
            _check_columns(m, state, cta, lo, lo + cols, lane, "tcgen05.cp writes")
            _check_a_unread(m, state, cta, lo, lo + cols, np.array([lane]), "a tcgen05.cp writes")
            data = m.memory.data[addresses.astype(np.int64) - m.memory.BASE]
            words = np.ascontiguousarray(data.reshape(rows, width)).view("<u4")
            cells = state.memory(cta)
            for copy in range(dest.shape[1]):
                cells[dest[:, copy], lo : lo + cols] = words
            add_region(state, cta, lo, lo + cols, lane)
            _record_reads(m, state, lane, addresses)

    return run


# ------------------------------------------------------------------ block-scaled mma

#: Kind -> scale-vector modifier -> scale factors per row of K (None: no modifier).
_VECTORS: dict[str, dict[str | None, int]] = {
    "mxf8f6f4": {None: 1, "scale_vec::1X": 1, "block32": 1},
    "mxf4": {None: 2, "scale_vec::2X": 2, "block32": 2},
    "mxf4nvf4": {"scale_vec::2X": 2, "block32": 2, "scale_vec::4X": 4, "block16": 4},
}
_ALL_VECTORS = ("scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "block16", "block32")
#: Scale-factor IDs allowed per scale vector (9.7.16.10.7.2).
_IDS = {1: (0, 1, 2, 3), 2: (0, 2), 4: (0,)}
_E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], dtype=np.float64)


@dataclass(frozen=True)
class ScaledIdesc:
    kind: str
    a: str
    b: str
    scale: str
    sfa_id: int
    sfb_id: int
    neg_a: bool
    neg_b: bool
    n: int
    m: int


def decode_scaled_descriptor(word: int, kind: str, vector: int) -> ScaledIdesc | str:
    """The fields of a block-scaled instruction descriptor (Tables 43, 44), or what is
    wrong with it (an `unsupported` form starts with "unsupported: ")."""
    bits = lambda lo, n: (word >> lo) & ((1 << n) - 1)  # noqa: E731
    four = kind != "mxf8f6f4"
    reserved = [(0, 2), (3, 1), (6, 1), (24, 3)] + ([(12, 1)] if four else [(31, 1)])
    for lo, n in reserved:
        if bits(lo, n):
            return f"reserved bit(s) {lo}..{lo + n - 1} are set"
    if bits(2, 1):
        return "unsupported: sparse block-scaled MMAs (bit 2)"
    if four:
        if bits(31, 1):
            return "K = 96 (bit 31) is for .cta_group::2"
        codes = {1: "e2m1"}
        a, b = codes.get(bits(7, 3)), codes.get(bits(10, 2))
    else:
        if bits(7, 3) in (3, 4, 5) or bits(10, 3) in (3, 4, 5):
            return "unsupported: the 6- and 4-bit types of kind::mxf8f6f4"
        codes = {0: "e4m3", 1: "e5m2"}
        a, b = codes.get(bits(7, 3)), codes.get(bits(10, 3))
    if a is None or b is None:
        return f"A/B type codes {bits(7, 3)}/{bits(10, 3)} are not valid for kind::{kind}"
    if bits(15, 1) or bits(16, 1):
        if four:
            return f"kind::{kind} takes A and B K-major (transpose bits 15-16 clear)"
        return "unsupported: MN-major operands of a block-scaled MMA"
    scale = "ue8m0" if bits(23, 1) else "ue4m3"
    if scale == "ue4m3" and not (kind == "mxf4nvf4" and vector == 4):
        return (
            f"scale type UE4M3 (bit 23 clear) with kind::{kind} and scale_vec::{vector}X "
            "(UE4M3 is for kind::mxf4nvf4 with scale_vec::4X; UE8M0 is bit 23 set)"
        )
    sfa, sfb = bits(29, 2), bits(4, 2)
    for name, value in (("A", sfa), ("B", sfb)):
        if value not in _IDS[vector]:
            return (
                f"scale factor {name} ID {value} with scale_vec::{vector}X "
                f"(one of {list(_IDS[vector])})"
            )
    return ScaledIdesc(kind, a, b, scale, sfa, sfb, bool(bits(13, 1)), bool(bits(14, 1)),
                       bits(17, 6) << 3, bits(27, 2) << 7)  # fmt: skip


def _elements(raw: np.ndarray, kind: str) -> np.ndarray:
    """``(rows, 32)`` bytes as float64 elements: 32 of e4m3/e5m2, or 64 of e2m1 (the
    even element in the low nibble)."""
    if kind != "e2m1":
        return _decode_elements(raw, kind)
    nibbles = np.stack([raw & 15, raw >> 4], axis=-1).reshape(raw.shape[0], -1)
    values = _E2M1[nibbles & 7]
    return np.where(nibbles & 8, -values, values)


def _scale_values(raw: np.ndarray, scale: str) -> np.ndarray:
    if scale == "ue8m0":
        return raw.view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    return (raw & 0x7F).view(ml_dtypes.float8_e4m3fn).astype(np.float64)


def _read_scales(
    m: Machine,
    state: _State,
    cta: int,
    taddr: int,
    count: int,
    first: int,
    vector: int,
    lane: int,
    which: str,
) -> np.ndarray:
    """``(count, vector)`` scale bytes of `count` rows of A (columns of B) from the scale
    address `taddr` (9.7.16.10.7): factor `j` of row `i` is byte `first + j` of lane `i %
    32`, column `c + i / 32`, duplicated in all four lane quarters."""
    if taddr >> 16:
        raise m.fail(
            f"tcgen05.mma's scale {which} at lane {taddr >> 16} (scale factors start at lane 0)",
            lane,
        )
    lo = taddr & 0xFFFF
    hi = lo + -(-count // 32)
    _check_columns(m, state, cta, lo, hi, lane, f"tcgen05.mma reads scale {which} from")
    for region in state.regions:
        if region.cta != cta or region.hi <= lo or hi <= region.lo or region.issuer == lane:
            continue
        ready = region.agent >= 0
        if ready and m.check_races:
            ready = any(
                m.order.ordered(np.array([agent]), np.array([time]), np.array([lane]))[0]
                for agent, time in [(region.agent, region.time), *region.later]
            )
        if not ready:
            raise m.fail(
                f"tcgen05.mma reads scale {which} from tensor memory columns {lo} .. {hi - 1} "
                f"that thread {region.issuer} writes asynchronously (tcgen05.cp or "
                "tcgen05.mma) before the mbarrier phase of its tcgen05.commit was observed "
                "(commit, wait on the mbarrier, tcgen05.fence::after_thread_sync)",
                lane,
            )
    pending = state.unwaited.get(cta)
    if pending is not None and (pending[:, lo:hi] >= 0).any():
        raise m.fail(
            f"tcgen05.mma reads scale {which} from tensor memory columns {lo} .. {hi - 1} that "
            "a tcgen05.st has not waited for (tcgen05.wait::st)",
            lane,
        )
    i = np.arange(count)
    cells = state.memory(cta)[:, lo:hi]
    quarters = np.stack([cells[i % 32 + 32 * q, i // 32] for q in range(4)])  # (4, count)
    as_bytes = quarters.astype("<u4").view(np.uint8).reshape(4, count, 4)
    wanted = as_bytes[:, :, first : first + vector]
    differs = (wanted != wanted[:1]).any(axis=(0, 2))
    if differs.any():
        row = int(np.argmax(differs))
        raise m.fail(
            f"scale factors of {which} (row {row}: lane {row % 32} + 32 q, column "
            f"{lo + row // 32}, bytes {first} .. {first + vector - 1}) differ between the "
            "lane quarters: they must be duplicated in all four (9.7.16.10.7; tcgen05.cp's "
            ".32x128b.warpx4 or .64x128b.warpx2 forms do that)",
            lane,
        )
    return wanted[0]


def decode_scaled_mma(ins: Instruction, mods: Mods, kind: str) -> Exec:
    if not mods.flag("block_scale"):
        raise invalid(ins, f"tcgen05.mma.kind::{kind} needs .block_scale")
    given = mods.one_of(_ALL_VECTORS)
    vector = _VECTORS[kind].get(given)
    if vector is None:
        raise invalid(
            ins,
            f"kind::{kind} with {'.' + given if given else 'no scale vector'} (valid: "
            + ", ".join("." + str(v) if v else "none" for v in _VECTORS[kind])
            + ")",
        )
    mods.done()
    ops = list(ins.operands)
    if len(ops) != 7:
        raise unsupported(
            ins,
            "block-scaled tcgen05.mma forms other than [d], a, b-desc, idesc, [sfa], "
            "[sfb], enable-input-d",
        )
    d, a_op, b_op, idesc, sfa_op, sfb_op, enable = ops
    if (
        not isinstance(d, Mem)
        or not isinstance(sfa_op, Mem)
        or not isinstance(sfb_op, Mem)
        or isinstance(a_op, Vec)
        or isinstance(b_op, Mem | Vec)
    ):
        raise invalid(ins, "tcgen05.mma.block_scale takes [d], [a-tmem] or a-desc, b-desc, "
                      "idesc, [scale-A], [scale-B], enable-input-d")  # fmt: skip

    def run(m: Machine, act: np.ndarray) -> None:
        state = _state(m)
        taddr, adesc, bdesc, words, keep = mma_operands(m, act, d, a_op, b_op, idesc, enable)
        a_tmem = isinstance(a_op, Mem)
        sfa, sfb = tmem_address(m, sfa_op, act), tmem_address(m, sfb_op, act)
        for lane in lanes_of(act).tolist():
            form = decode_scaled_descriptor(int(words[lane]), kind, vector)
            if isinstance(form, str):
                if form.startswith("unsupported: "):
                    raise m.fail(form.removeprefix("unsupported: "), lane, kind=UNSUPPORTED)
                raise m.fail(f"bad block-scaled tcgen05.mma instruction descriptor: {form}", lane)
            if form.m != 128:
                raise m.fail(
                    f"block-scaled tcgen05.mma.cta_group::1 with M = {form.m} (M = 128)", lane
                )
            if form.n % 8 or not 8 <= form.n <= 256:
                raise m.fail(f"block-scaled tcgen05.mma with N = {form.n} (8 .. 256, steps of 8)",
                             lane)  # fmt: skip
            cta, lo = mma_d_columns(m, state, int(taddr[lane]), form.n, lane)
            scale_a = _read_scales(m, state, cta, int(sfa[lane]), 128, form.sfa_id, vector,
                                   lane, "A")  # fmt: skip
            scale_b = _read_scales(m, state, cta, int(sfb[lane]), form.n, form.sfb_id, vector,
                                   lane, "B")  # fmt: skip
            group = np.array([[lane]])
            read: list[list[np.ndarray]] = [[]]
            if a_tmem:
                raw_a = tmem_a(m, state, cta, int(adesc[lane]), 128, False, lane)
            else:
                hop_a = _sm100_to_hopper(m, int(adesc[lane]), lane, "A")
                raw_a = _operand_bytes(
                    m, np.array([hop_a], dtype=np.uint64), group, 128, "A", False, read
                )[0]
            hop_b = _sm100_to_hopper(m, int(bdesc[lane]), lane, "B")
            raw_b = _operand_bytes(
                m, np.array([hop_b], dtype=np.uint64), group, form.n, "B", False, read
            )[0]
            A, Bt = _elements(raw_a, form.a), _elements(raw_b, form.b)
            k = A.shape[1]
            A = A * np.repeat(_scale_values(scale_a, form.scale), k // vector, axis=1)
            Bt = Bt * np.repeat(_scale_values(scale_b, form.scale), k // vector, axis=1)
            if form.neg_a:
                A = -A
            if form.neg_b:
                Bt = -Bt
            write_d(state, cta, lo, 128, "f32", A @ Bt.T, bool(keep[lane]), lane)
            seq = state.issued.get(lane, 0)
            for taddr_sf, count in ((int(sfa[lane]), 128), (int(sfb[lane]), form.n)):
                c = taddr_sf & 0xFFFF
                state.scale_reads[(cta, c, c + -(-count // 32), lane)] = seq
            if a_tmem:
                a_lo = int(adesc[lane]) & 0xFFFF
                state.a_reads[(cta, a_lo, a_lo + 8, lane)] = seq
            _record_reads(m, state, lane, np.concatenate([np.ravel(x) for x in read[0]]))

    return run
