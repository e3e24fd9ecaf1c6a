"""The PTX simulator's instructions other than floating point: moves, memory,
integer arithmetic, logic, comparisons and control flow (``ptx_float_ops`` has
the rest; both register their decoders in ``ptx_decode.DECODERS``).

Integers wrap as in PTX and shift amounts clamp; memory accesses are checked
for bounds, alignment and races (``ptx_races``); branches set the active threads'
program counters (see ``ptx_sched`` for how divergent paths are scheduled).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tileir.testing.ptx_decode import (
    DECODERS,
    Exec,
    Mods,
    decoder,
    invalid,
    lanes_of,
    operands,
    unsupported,
)
from tileir.testing.ptx_errors import INVALID, MISALIGNED, OUT_OF_BOUNDS
from tileir.testing.ptx_float_ops import (
    FLOAT_COMPARISONS,
    decode_float_arith,
    float_compare,
    float_format,
    float_in,
)
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_numeric import (
    SINT,
    TYPES,
    UINT,
    PtxType,
    bits_to_values,
    unique,
    values_to_bits,
)
from tileir.testing.ptx_parse import Imm, Instruction, Mem, Operand, Reg, Target, Vec
from tileir.testing.ptx_races import check_load, check_store


def decode(ins: Instruction) -> Exec:
    """The executable form of ``ins``; ``SimulationError`` if it is not supported."""
    fn = DECODERS.get(ins.opcode)
    if fn is None:
        raise unsupported(ins, f"opcode '{ins.opcode}'")
    return fn(ins)


# =========================================================================== moves


@decoder("mov")
def decode_mov(ins: Instruction) -> Exec:
    """``mov.T d, a`` (register, literal or special register) and the vector forms
    ``mov.bN {lo, ..., hi}, a`` (unpack) and ``mov.bN d, {lo, ..., hi}`` (pack)."""
    mods = Mods(ins)
    t = mods.type("busfp")
    mods.done()
    if t.bits == 8:
        raise invalid(ins, f"mov has no 8-bit form (.{t.name})")
    d, a = operands(ins, 2)
    if isinstance(d, Vec):
        return _unpack(ins, t, d.items, a)
    if isinstance(a, Vec):
        return _pack(ins, t, d, a.items)
    return lambda m, act: m.write_bits(d, m.read_bits(a, t, act), t, act)


def _part_type(ins: Instruction, t: PtxType, count: int) -> PtxType:
    """The type of each part of a packing ``mov``; parts need registers of exactly
    that size (ptxas rejects 8-bit parts in 16-bit registers, for instance)."""
    bits = t.bits // count if count else 0
    if t.kind != "b" or bits not in (8, 16, 32) or bits * count != t.bits:
        raise invalid(ins, f"mov.{t.name} with {count} parts")
    return TYPES[f"b{bits}"]


def _pack(ins: Instruction, t: PtxType, d: Operand, parts: Sequence[Operand]) -> Exec:
    pt = _part_type(ins, t, len(parts))

    def run(m: Machine, act: np.ndarray) -> None:
        word = np.zeros(m.count, dtype=UINT[t.bits])
        for i, p in enumerate(parts):
            bits = m.read_bits(p, pt, act).astype(UINT[t.bits])
            word |= bits << UINT[t.bits](i * pt.bits)
        m.write_bits(d, word, t, act)

    return run


def _unpack(ins: Instruction, t: PtxType, parts: Sequence[Operand], a: Operand) -> Exec:
    pt = _part_type(ins, t, len(parts))
    mask = UINT[t.bits]((1 << pt.bits) - 1)

    def run(m: Machine, act: np.ndarray) -> None:
        word = m.read_bits(a, t, act)
        for i, p in enumerate(parts):
            part = ((word >> UINT[t.bits](i * pt.bits)) & mask).astype(UINT[pt.bits])
            m.write_bits(p, part, pt, act)

    return run


@decoder("cvta")
def decode_cvta(ins: Instruction) -> Exec:
    """``cvta.to.global.u64`` / ``cvta.global.u64``: global and generic addresses coincide."""
    mods = Mods(ins)
    mods.flag("to")
    if mods.one_of(("global", "local")) is None:
        raise unsupported(ins, "cvta for a state space other than .global or .local")
    t = mods.type("bu")
    mods.done()
    if t.bits != 64:
        raise unsupported(ins, "32-bit addresses")
    d, a = operands(ins, 2)
    return lambda m, act: m.write_bits(d, m.read_bits(a, t, act), t, act)


# ========================================================================== memory

_SEMANTICS = ("weak", "relaxed", "acquire", "release", "volatile")
_SCOPES = ("cta", "cluster", "gpu", "sys")
_CACHE_OPS = ("ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc")


def _memory_form(ins: Instruction, store: bool) -> tuple[str, int, PtxType]:
    """``(state space, vector length, element type)`` of an ``ld``/``st``.

    Memory-ordering qualifiers (``.relaxed.gpu``, ``.release.sys``) and cache
    operators are accepted and have no effect: in the simulator every
    access is immediately visible, and tileir's CTAs do not communicate."""
    mods = Mods(ins)
    t = mods.type("busf")
    space = mods.one_of(("global", "param", "shared", "local", "const"))
    vec = mods.one_of(("v2", "v4"))
    semantic = mods.one_of(_SEMANTICS)
    scope = mods.one_of(_SCOPES)
    mods.one_of(_CACHE_OPS)
    mods.done()
    if space not in ("global", "param", "shared", "local"):
        raise unsupported(ins, f"{'st' if store else 'ld'} from the {space or 'generic'} space")
    if semantic in ("relaxed", "acquire", "release") and scope is None:
        raise invalid(ins, f".{semantic} without a scope")
    if semantic == ("acquire" if store else "release"):
        raise invalid(ins, f".{semantic} on {'st' if store else 'ld'}")
    if (t.bits == 64 and vec == "v4") or (space == "param" and vec):
        raise invalid(ins, f"{vec} of .{t.name} in .{space}")
    return space, {None: 1, "v2": 2, "v4": 4}[vec], t


def _vector_items(ins: Instruction, op: Operand, count: int) -> tuple[Operand, ...]:
    items = op.items if isinstance(op, Vec) else (op,)
    if len(items) != count:
        raise invalid(ins, f"{len(items)} vector elements for a .v{count} access")
    return items


def _address_operand(ins: Instruction, op: Operand) -> Mem:
    if not isinstance(op, Mem):
        raise invalid(ins, f"address operand {op}")
    return op


def _addresses(
    m: Machine, addr: Mem, act: np.ndarray, lanes: np.ndarray, space: str | None = "global"
) -> np.ndarray:
    """Addresses of an access; shared-memory addresses are 32-bit (``ptx_shared``)."""
    if space == "shared":
        base = m.read(Reg(addr.base), TYPES["u32"], act)[lanes].astype(np.uint64)
        return base + np.uint64(addr.offset & (2**32 - 1))
    base = m.read(Reg(addr.base), TYPES["u64"], act)[lanes]
    return base + np.uint64(addr.offset & (2**64 - 1))


def check_access(
    m: Machine,
    addresses: np.ndarray,
    nbytes: int,
    lanes: np.ndarray,
    kind: str,
    align: int | None = None,
) -> None:
    """Fail on the first access outside every array, or not aligned to `align` bytes
    (its size where `align` is None)."""
    in_bounds, aligned = m.memory.check(addresses, nbytes)
    if align is not None:
        aligned = addresses % align == 0
    else:
        align = nbytes
    if not in_bounds.all():
        k = int(np.argmin(in_bounds))
        address = int(addresses[k])
        raise m.fail(
            f"{nbytes}-byte {kind} outside every array: {m.memory.describe(address)}",
            int(lanes[k]),
            address,
            kind=OUT_OF_BOUNDS,
        )
    if not aligned.all():
        k = int(np.argmin(aligned))
        address = int(addresses[k])
        raise m.fail(
            f"{nbytes}-byte {kind} not {align}-byte aligned: {m.memory.describe(address)}",
            int(lanes[k]),
            address,
            kind=MISALIGNED,
        )


@decoder("ld")
def decode_ld(ins: Instruction) -> Exec:
    """``ld.param.T d, [name]`` and ``ld.global{.qualifiers}{.v2,.v4}.T d, [a+off]``."""
    space, count, t = _memory_form(ins, store=False)
    d, a = operands(ins, 2)
    addr = _address_operand(ins, a)
    dests = _vector_items(ins, d, count)
    if space == "param":

        def run_param(m: Machine, act: np.ndarray) -> None:
            if addr.base in m.registers:  # a call's .param (ptx_calls)
                m.write_bits(d, m.read_bits(Reg(addr.base), t, act), t, act, widen=True)
            else:
                m.write_bits(d, m.constant(m.param_bits(addr.base, t), t), t, act, widen=True)

        return run_param
    nbytes = count * t.nbytes
    shared = space == "shared"

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        addresses = _addresses(m, addr, act, lanes, space)
        check_access(m, addresses, nbytes, lanes, "load")
        if shared and m.check_races:
            check_load(m, addresses, nbytes, lanes)
        words = m.memory.load(addresses, nbytes).view(f"<u{t.nbytes}")
        for i, dest in enumerate(dests):
            full = np.zeros(m.count, dtype=UINT[t.bits])
            full[lanes] = words[:, i]
            m.write_bits(dest, full, t, act, widen=True)

    return run


@decoder("st")
def decode_st(ins: Instruction) -> Exec:
    """``st.global{.qualifiers}{.v2,.v4}.T [a+off], s``; checks bounds, alignment and races."""
    space, count, t = _memory_form(ins, store=True)
    a, s = operands(ins, 2)
    addr = _address_operand(ins, a)
    sources = _vector_items(ins, s, count)
    nbytes = count * t.nbytes
    if space == "param":  # a call's .param, declared as a register (ptx_calls)
        if count != 1:
            raise invalid(ins, "a vector store to a .param")
        return lambda m, act: m.write_bits(Reg(addr.base), m.read_bits(s, t, act), t, act)
    shared = space == "shared"

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        addresses = _addresses(m, addr, act, lanes, space)
        check_access(m, addresses, nbytes, lanes, "store")
        words = np.stack(
            [m.read_bits(src, t, act, widen=True)[lanes] for src in sources], axis=1
        ).astype(f"<u{t.nbytes}")
        data = words.view(np.uint8).reshape(len(lanes), nbytes)
        if m.check_races:
            check_store(m, addresses, nbytes, lanes, shared)
        m.memory.store(addresses, data, lanes)

    return run


# ============================================================== integer arithmetic


def _signed(t: PtxType) -> PtxType:
    return TYPES[f"s{t.bits}"]


def _unsigned(t: PtxType) -> PtxType:
    return TYPES[f"u{t.bits}"]


def mul_hi(a: np.ndarray, b: np.ndarray, t: PtxType) -> np.ndarray:
    """High half of the double-width product, in ``t``'s dtype."""
    if t.bits <= 32:
        wide = SINT[64] if t.kind == "s" else UINT[64]
        return ((a.astype(wide) * b.astype(wide)) >> t.bits).astype(a.dtype)
    ua, ub = a.view(np.uint64), b.view(np.uint64)
    m32, s32 = np.uint64(0xFFFFFFFF), np.uint64(32)
    al, ah, bl, bh = ua & m32, ua >> s32, ub & m32, ub >> s32
    ll, lh, hl, hh = al * bl, al * bh, ah * bl, ah * bh
    mid = (ll >> s32) + (lh & m32) + (hl & m32)
    hi = hh + (lh >> s32) + (hl >> s32) + (mid >> s32)
    if t.kind == "s":  # two's complement correction of the unsigned product
        hi = (
            hi - np.where(a < 0, ub, 0).astype(np.uint64) - np.where(b < 0, ua, 0).astype(np.uint64)
        )
    return hi.view(a.dtype)


def mul_wide(a: np.ndarray, b: np.ndarray, t: PtxType) -> np.ndarray:
    wide = (SINT if t.kind == "s" else UINT)[2 * t.bits]
    return a.astype(wide) * b.astype(wide)


def int_divide(a: np.ndarray, b: np.ndarray, t: PtxType) -> tuple[np.ndarray, np.ndarray]:
    """PTX ``div``/``rem``: quotient truncated toward zero, remainder with the
    dividend's sign, wrapping for ``MIN / -1``.  Division by zero is unspecified in
    PTX; like the hardware's unsigned divide we give all-ones and the dividend."""
    u = UINT[t.bits]
    zero = b == 0
    safe_b = np.where(zero, 1, b).astype(b.dtype)
    if t.kind == "s":  # divide magnitudes as unsigned, so |MIN| does not overflow
        ma = np.where(a < 0, -a.view(u), a.view(u))
        mb = np.where(safe_b < 0, -safe_b.view(u), safe_b.view(u))
        uq = ma // mb
        q = np.where((a < 0) != (safe_b < 0), -uq, uq).view(a.dtype)
    else:
        q = a // safe_b
    r = a - q * safe_b
    all_ones = np.full_like(a, -1 if t.kind == "s" else (1 << t.bits) - 1)
    return np.where(zero, all_ones, q), np.where(zero, a, r)


def _int_op(ins: Instruction, t: PtxType, fn: Callable[..., np.ndarray], srcs: int) -> Exec:
    """``op.T d, a[, b[, c]]`` on integer values of type ``t``."""
    d, *src = operands(ins, srcs + 1)

    def run(m: Machine, act: np.ndarray) -> None:
        values = [m.read(s, t, act) for s in src]
        m.write(d, fn(*values), t, act)

    return run


def _saturate_s32(x: np.ndarray) -> np.ndarray:
    return np.clip(x, -(2**31), 2**31 - 1).astype(np.int32)


_INT_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "min": np.minimum,
    "max": np.maximum,
}


def _int_arith(ins: Instruction, mods: Mods, t: PtxType) -> Exec:
    op = ins.opcode
    if op in ("add", "sub") and mods.flag("sat"):
        if t.name != "s32":
            raise invalid(ins, f"{op}.sat.{t.name}")
        mods.done()
        fn = _INT_BINARY[op]
        return _int_op(ins, t, lambda a, b: _saturate_s32(fn(a.astype(np.int64), b)), 2)
    if op == "mul":
        return _int_mul(ins, mods, t)
    if op == "mad":
        return _int_mad(ins, mods, t)
    mods.done()
    if op in ("div", "rem"):
        index = 0 if op == "div" else 1
        return _int_op(ins, t, lambda a, b: int_divide(a, b, t)[index], 2)
    if op in ("neg", "abs"):
        if t.kind != "s":
            raise invalid(ins, f"{op}.{t.name}")
        return _int_op(ins, t, np.negative if op == "neg" else np.abs, 1)
    return _int_op(ins, t, _INT_BINARY[op], 2)


def _int_mul(ins: Instruction, mods: Mods, t: PtxType) -> Exec:
    mode = mods.one_of(("lo", "hi", "wide"))
    mods.done()
    if mode is None:
        raise invalid(ins, "integer mul without .lo/.hi/.wide")
    if mode == "lo":
        return _int_op(ins, t, lambda a, b: a * b, 2)
    if mode == "hi":
        return _int_op(ins, t, lambda a, b: mul_hi(a, b, t), 2)
    return _wide_op(ins, t, lambda a, b: mul_wide(a, b, t), 2)


def _int_mad(ins: Instruction, mods: Mods, t: PtxType) -> Exec:
    mode = mods.one_of(("lo", "hi", "wide"))
    mods.done()
    if mode == "lo":
        return _int_op(ins, t, lambda a, b, c: a * b + c, 3)
    if mode == "hi":
        return _int_op(ins, t, lambda a, b, c: mul_hi(a, b, t) + c, 3)
    if mode == "wide":
        return _wide_op(ins, t, lambda a, b, c: mul_wide(a, b, t) + c, 3)
    raise invalid(ins, "integer mad without .lo/.hi/.wide")


def _wide_op(ins: Instruction, t: PtxType, fn: Callable[..., np.ndarray], srcs: int) -> Exec:
    """``mul.wide``/``mad.wide``: sources of ``t``, result (and addend) twice as wide."""
    if t.bits not in (16, 32):
        raise invalid(ins, f".wide.{t.name}")
    wide = TYPES[f"{t.kind}{2 * t.bits}"]
    d, *src = operands(ins, srcs + 1)

    def run(m: Machine, act: np.ndarray) -> None:
        values = [m.read(s, t if i < 2 else wide, act) for i, s in enumerate(src)]
        m.write(d, fn(*values), wide, act)

    return run


_ARITH = ("add", "sub", "mul", "mad", "div", "rem", "min", "max", "neg", "abs")


@decoder(*_ARITH)
def decode_arith(ins: Instruction) -> Exec:
    """Integer and float arithmetic, chosen by the instruction's type."""
    mods = Mods(ins)
    t = mods.type("usf")
    if t.is_float:
        return decode_float_arith(ins, mods, t)
    return _int_arith(ins, mods, t)


# ========================================================================= logic


@decoder("and", "or", "xor", "not")
def decode_logic(ins: Instruction) -> Exec:
    """Bitwise ops on ``.bN`` values and boolean ops on predicates."""
    mods = Mods(ins)
    t = mods.type("bp")
    mods.done()
    fn = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor, "not": np.invert}[
        ins.opcode
    ]
    srcs = 1 if ins.opcode == "not" else 2
    d, *src = operands(ins, srcs + 1)
    if t.kind == "pred":
        return lambda m, act: m.write_pred(d, fn(*(m.read_pred(s, act) for s in src)), act)
    return lambda m, act: m.write_bits(d, fn(*(m.read_bits(s, t, act) for s in src)), t, act)


@decoder("shl", "shr")
def decode_shift(ins: Instruction) -> Exec:
    """Shifts by a ``.u32`` amount; amounts past the width clamp (``shl`` and
    ``shr.u`` give 0, ``shr.s`` fills with the sign bit)."""
    mods = Mods(ins)
    t = mods.type("b" if ins.opcode == "shl" else "bus")
    mods.done()
    if t.bits < 16:
        raise invalid(ins, f"{ins.opcode}.{t.name}")
    d, a, b = operands(ins, 3)
    left = ins.opcode == "shl"
    arithmetic = t.kind == "s"

    def run(m: Machine, act: np.ndarray) -> None:
        amount = m.read(b, TYPES["u32"], act)
        x = m.read(a, _signed(t) if arithmetic else _unsigned(t), act)
        k = np.minimum(amount, t.bits - 1).astype(x.dtype)
        if left:
            r = np.where(amount >= t.bits, 0, x << k).astype(x.dtype)
        elif arithmetic:
            r = x >> k
        else:
            r = np.where(amount >= t.bits, 0, x >> k).astype(x.dtype)
        m.write_bits(d, r.view(UINT[t.bits]), t, act)

    return run


@decoder("bfind")
def decode_bfind(ins: Instruction) -> Exec:
    """``bfind{.shiftamt}.T d, a``: the bit position of ``a``'s most significant
    non-sign bit (``.s``: of the first bit differing from the sign), or its shift
    amount from the top with ``.shiftamt``; all ones (0xffffffff) where there is none."""
    mods = Mods(ins)
    shiftamt = mods.flag("shiftamt")
    t = mods.type("us")
    mods.done()
    if t.bits not in (32, 64):
        raise invalid(ins, f"bfind.{t.name}")
    d, a = operands(ins, 2)

    def run(m: Machine, act: np.ndarray) -> None:
        x = m.read_bits(a, t, act).astype(np.uint64)
        if t.kind == "s":  # the sign bits do not count: look at x, or ~x if negative
            negative = (x >> np.uint64(t.bits - 1)) & np.uint64(1) == 1
            x = np.where(negative, ~x & np.uint64((1 << t.bits) - 1), x)
        position = np.full(len(x), -1, dtype=np.int64)
        for i in range(t.bits):
            position = np.where((x >> np.uint64(i)) & np.uint64(1) == 1, i, position)
        if shiftamt:
            position = np.where(position >= 0, t.bits - 1 - position, -1)
        m.write_bits(d, position.astype(np.int64).astype(np.uint32), TYPES["u32"], act)

    return run


@decoder("nanosleep")
def decode_nanosleep(ins: Instruction) -> Exec:
    """``nanosleep.u32 t``: a hint to suspend the thread; no effect here."""
    mods = Mods(ins)
    if mods.type("u") != TYPES["u32"]:
        raise invalid(ins, "nanosleep is .u32")
    mods.done()
    operands(ins, 1)
    return lambda m, act: None


@decoder("bfe")
def decode_bfe(ins: Instruction) -> Exec:
    """``bfe.T d, a, pos, len``: extract ``len`` bits of ``a`` from ``pos``; ``.s``
    types fill the rest with the field's top bit (the input's top bit past the msb),
    ``.u`` types with 0.  ``pos`` and ``len`` use their low 8 bits; ``len`` 0 gives 0."""
    mods = Mods(ins)
    t = mods.type("us")
    mods.done()
    if t.bits not in (32, 64):
        raise invalid(ins, f"bfe.{t.name}")
    d, a, b, c = operands(ins, 4)
    signed = t.kind == "s"

    def run(m: Machine, act: np.ndarray) -> None:
        x = m.read_bits(a, t, act).astype(np.uint64)
        pos = (m.read(b, TYPES["u32"], act) & 0xFF).astype(np.uint64)
        length = (m.read(c, TYPES["u32"], act) & 0xFF).astype(np.uint64)
        msb = np.uint64(t.bits - 1)
        top = np.minimum(pos + length - np.uint64(1), msb)
        sbit = ((x >> top) & np.uint64(1)) if signed else np.zeros_like(x)
        sbit = np.where(length == 0, np.uint64(0), sbit)
        result = np.zeros_like(x)
        for i in range(t.bits):
            at = pos + np.uint64(i)
            inside = (np.uint64(i) < length) & (at <= msb)
            bit = np.where(inside, (x >> np.minimum(at, msb)) & np.uint64(1), sbit)
            result |= bit << np.uint64(i)
        m.write_bits(d, result.astype(UINT[t.bits]), t, act)

    return run


@decoder("bfi")
def decode_bfi(ins: Instruction) -> Exec:
    """``bfi.bN f, a, b, pos, len``: ``b`` with its bits ``pos..pos+len-1`` replaced by
    the low bits of ``a`` (bits past the msb are dropped)."""
    mods = Mods(ins)
    t = mods.type("b")
    mods.done()
    if t.bits not in (32, 64):
        raise invalid(ins, f"bfi.{t.name}")
    f, a, b, c, e = operands(ins, 5)

    def run(m: Machine, act: np.ndarray) -> None:
        x = m.read_bits(a, t, act).astype(np.uint64)
        y = m.read_bits(b, t, act).astype(np.uint64)
        pos = (m.read(c, TYPES["u32"], act) & 0xFF).astype(np.uint64)
        length = (m.read(e, TYPES["u32"], act) & 0xFF).astype(np.uint64)
        result = y.copy()
        for i in range(t.bits):
            at = pos + np.uint64(i)
            inside = (np.uint64(i) < length) & (at < np.uint64(t.bits))
            shift = np.minimum(at, np.uint64(t.bits - 1))
            bit = (x >> np.uint64(i)) & np.uint64(1)
            cleared = result & ~(np.uint64(1) << shift)
            result = np.where(inside, cleared | (bit << shift), result)
        m.write_bits(f, result.astype(UINT[t.bits]), t, act)

    return run


# ================================================================ compare and select

_INT_CMP: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "lo": np.less,
    "ls": np.less_equal,
    "hi": np.greater,
    "hs": np.greater_equal,
}


@decoder("setp")
def decode_setp(ins: Instruction) -> Exec:
    """``setp.cmp{.ftz}.T p, a, b`` (the two-destination and ``.and``-combining
    forms are not supported)."""
    mods = Mods(ins)
    t = mods.type()
    ftz = mods.flag("ftz")
    cmp = ins.modifiers[0] if ins.modifiers else ""
    mods.flag(cmp)
    mods.done()
    d, a, b = operands(ins, 3)
    if t.is_float:
        if cmp not in FLOAT_COMPARISONS:
            raise invalid(ins, f"float comparison .{cmp}")
        fmt = float_format(ins, t, ftz)

        def run_float(m: Machine, act: np.ndarray) -> None:
            x, y = (float_in(m.read(s, t, act), fmt, ftz) for s in (a, b))
            m.write_pred(d, float_compare(cmp, x, y), act)

        return run_float
    valid = {"b": ("eq", "ne"), "s": ("eq", "ne", "lt", "le", "gt", "ge")}.get(t.kind, _INT_CMP)
    if cmp not in valid or ftz:
        raise invalid(ins, f"setp.{cmp}{'.ftz' if ftz else ''}.{t.name}")
    fn = _INT_CMP[cmp]
    return lambda m, act: m.write_pred(d, fn(m.read(a, t, act), m.read(b, t, act)), act)


@decoder("selp")
def decode_selp(ins: Instruction) -> Exec:
    """``selp.T d, a, b, c``: ``d = c ? a : b``."""
    mods = Mods(ins)
    t = mods.type()
    mods.done()
    d, a, b, c = operands(ins, 4)

    def run(m: Machine, act: np.ndarray) -> None:
        chosen = np.where(m.read_pred(c, act), m.read_bits(a, t, act), m.read_bits(b, t, act))
        m.write_bits(d, chosen.astype(UINT[t.bits]), t, act)

    return run


# ========================================================================= control


@decoder("shfl")
def decode_shfl(ins: Instruction) -> Exec:
    """``shfl.sync.{bfly,idx,up,down}.b32 d, a, b, c, membermask``: each active thread
    reads ``a`` from the lane the mode selects (PTX's formula with the clamp and
    segment mask packed in ``c``; a lane out of range reads its own value).  Every
    lane of ``membermask`` must execute the shuffle together."""
    mods = Mods(ins)
    if not mods.flag("sync"):
        raise unsupported(ins, "shfl without .sync")
    mode = mods.one_of(("bfly", "idx", "up", "down"))
    if mode is None:
        raise invalid(ins, "shfl without a mode")
    t = mods.type("b")
    mods.done()
    if t.bits != 32:
        raise invalid(ins, f"shfl.{t.name}")
    d, a, b, c, member = operands(ins, 5)
    if not isinstance(c, Imm) or not isinstance(member, Imm):
        raise unsupported(ins, "shfl with a register clamp or member mask")
    if isinstance(d, Vec):
        raise unsupported(ins, "shfl with a predicate destination")
    clamp = int(c.value) & 0x1F
    segmask = (int(c.value) >> 8) & 0x1F
    membermask = int(member.value) & 0xFFFFFFFF
    u32 = TYPES["u32"]

    def run(m: Machine, act: np.ndarray) -> None:
        lane = m.threads.special("%laneid").astype(np.int64)
        index = np.arange(m.count, dtype=np.int64)
        group = index - lane
        in_mask = (membermask >> lane) & 1 == 1
        if (act & ~in_mask).any():
            raise m.fail("shfl.sync executed by a lane outside its membermask", act & ~in_mask)
        for w in unique(group[act]):
            lanes = np.flatnonzero(in_mask[w : w + 32] if w + 32 <= m.count else in_mask[w:])
            present = w + lanes
            present = present[present < m.count]
            missing = ~act[present] | (m.threads.warp[present] != m.threads.warp[w])
            if missing.any() or len(present) != bin(membermask).count("1"):
                raise m.fail(
                    "shfl.sync: not every lane of the membermask executes it together",
                    act & (group == w),
                )
        bval = m.read(b, u32, act).astype(np.int64) & 0x1F
        min_lane = lane & segmask
        max_lane = min_lane | (clamp & ~segmask)
        if mode == "up":
            j = lane - bval
            ok = j >= min_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~segmask)
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        source = np.clip(group + j, 0, m.count - 1)
        values = m.read_bits(a, t, act)
        m.write_bits(d, values[source], t, act)

    return run


@decoder("bra")
def decode_bra(ins: Instruction) -> Exec:
    """``[@p] bra{.uni} label``: the active threads continue at the label.  With
    ``.uni`` the threads of a warp must agree (PTX leaves disagreement undefined)."""
    mods = Mods(ins)
    uniform = mods.flag("uni")
    mods.done()
    (target,) = operands(ins, 1)
    if not isinstance(target, Target):
        raise invalid(ins, f"branch target {target}")

    def run(m: Machine, act: np.ndarray) -> None:
        if uniform:
            _check_warp_uniform(m, act)
        m.pc[act] = target.index

    return run


def _check_warp_uniform(m: Machine, act: np.ndarray) -> None:
    warps = m.threads.warp[m.group]
    taken = np.bincount(warps, weights=act[m.group])
    present = np.bincount(warps)
    split = (taken > 0) & (taken < present)
    if split.any():
        lanes = m.group & act & np.isin(m.threads.warp, np.flatnonzero(split))
        raise m.fail("bra.uni diverges: threads of one warp disagree", lanes, kind=INVALID)


@decoder("ret", "exit")
def decode_ret(ins: Instruction) -> Exec:
    """``ret`` / ``exit`` from the kernel: the active threads stop."""
    Mods(ins).done()
    operands(ins, 0)

    def run(m: Machine, act: np.ndarray) -> None:
        m.exited(act)

    return run


# ========================================================================= atomics

_ATOMIC_OPS = ("add", "and", "or", "xor", "max", "min", "exch", "cas")


def _atomic_form(ins: Instruction, reduction: bool) -> tuple[str, PtxType, bool]:
    """``(operation, type, noftz)`` of ``atom``/``red``{.sem}{.scope}.global.op.type."""
    mods = Mods(ins)
    semantic = mods.one_of(("relaxed", "acquire", "release", "acq_rel"))
    scope = mods.one_of(_SCOPES)
    space = mods.one_of(("global", "shared"))
    t = mods.type("busf")
    noftz = mods.flag("noftz")
    op = mods.one_of(_ATOMIC_OPS)
    mods.done()
    if op is None:
        raise invalid(ins, f"{ins.opcode} without an operation")
    if space != "global":
        raise unsupported(ins, f"{ins.opcode} outside the global space")
    if semantic is not None and scope is None:
        raise invalid(ins, f".{semantic} without a scope")
    if reduction and (op in ("exch", "cas") or semantic in ("acquire", "acq_rel")):
        raise invalid(ins, f"red.{semantic or ''}.{op}")
    if t.kind == "f" and op != "add" and op not in ("exch", "cas"):
        raise invalid(ins, f"{ins.opcode}.{op}.{t.name}")
    if t.bits == 16 and not (t.kind == "f" and noftz):
        raise invalid(ins, f"16-bit {ins.opcode} without .noftz.f16/.bf16")
    if op in ("and", "or", "xor", "exch", "cas") and t.kind not in "b":
        raise invalid(ins, f"{ins.opcode}.{op} needs a .b type")
    return op, t, noftz


def _atomic_apply(
    op: str, t: PtxType, old: np.ndarray, b: np.ndarray, c: np.ndarray | None
) -> np.ndarray | int:
    """The new value (raw bits) of one atomic on raw bits ``old``."""
    if op == "exch":
        return b
    if op == "cas":
        assert c is not None
        return c if old == b else old
    if t.kind == "f":
        x = bits_to_values(np.asarray([old]), t)
        y = bits_to_values(np.asarray([b]), t)
        tiny = np.float32(2.0**-126)
        if t.bits == 32:  # atom.add.f32 flushes subnormal inputs and results
            x = np.where(np.abs(x) < tiny, np.copysign(np.float32(0.0), x), x)
            y = np.where(np.abs(y) < tiny, np.copysign(np.float32(0.0), y), y)
        r = (x + y).astype(x.dtype)
        if t.bits == 32:
            r = np.where(np.abs(r) < tiny, np.copysign(np.float32(0.0), r), r)
        return values_to_bits(r, t)[0]
    signed = TYPES[f"s{t.bits}"]
    unsigned = TYPES[f"u{t.bits}"]
    mask = (1 << t.bits) - 1
    if op in ("and", "or", "xor"):
        return {"and": old & b, "or": old | b, "xor": old ^ b}[op]
    if op == "add":
        return (int(old) + int(b)) & mask
    view = signed if t.kind == "s" else unsigned
    x = int(bits_to_values(np.asarray([old]), view)[0])
    y = int(bits_to_values(np.asarray([b]), view)[0])
    return (max(x, y) if op == "max" else min(x, y)) & mask


@decoder("atom", "red")
def decode_atomic(ins: Instruction) -> Exec:
    """``atom{.sem}{.scope}.global.op.T d, [a], b{, c}`` and ``red ... [a], b``: the
    active threads' read-modify-writes run one at a time, in thread order (any order
    is a valid execution).  Atomic writes are not race-checked against each other."""
    reduction = ins.opcode == "red"
    op, t, _ = _atomic_form(ins, reduction)
    count = (2 if reduction else 3) + (1 if op == "cas" else 0)
    ops = operands(ins, count)
    d = None if reduction else ops[0]
    addr = _address_operand(ins, ops[0 if reduction else 1])
    b = ops[1 if reduction else 2]
    c = ops[3] if op == "cas" else None
    nbytes = t.nbytes

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        addresses = _addresses(m, addr, act, lanes)
        check_access(m, addresses, nbytes, lanes, "atomic")
        bs = m.read_bits(b, t, act)[lanes]
        cs = m.read_bits(c, t, act)[lanes] if c is not None else None
        olds = np.zeros(len(lanes), dtype=bs.dtype)
        for k in range(len(lanes)):
            address = addresses[k : k + 1]
            raw = m.memory.load(address, nbytes)[0]
            old = raw.view(f"<u{nbytes}")[0].astype(bs.dtype)
            new = _atomic_apply(op, t, old, bs[k], None if cs is None else cs[k])
            olds[k] = old
            data = np.asarray([new], dtype=f"<u{nbytes}").view(np.uint8).reshape(1, nbytes)
            m.memory.store(address, data, np.asarray([-1]))
        if d is not None:
            out = np.zeros(m.count, bs.dtype)
            out[lanes] = olds
            m.write_bits(d, out, t, act)

    return run
