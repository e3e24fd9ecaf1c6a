"""Hopper's warpgroup tensor-core instructions in the PTX simulator: ``wgmma`` (sm_90a).

A *warpgroup* is four consecutive warps of a CTA (warps ``4g .. 4g+3``, warp =
``tid / 32`` in the CTA's linear thread order, 128 threads).  Every ``wgmma``
instruction is collective over whole warpgroups: the simulator requires all 128
threads of every warpgroup that reaches one to execute it together (a partial
warpgroup is an error, as ``.sync.aligned`` demands).

Supported (written from the PTX ISA's *asynchronous warpgroup level matrix*
sections; the operand forms and the valid shapes were also checked against ptxas 13
for ``-arch=sm_90a``):

* ``wgmma.fence.sync.aligned``, ``wgmma.commit_group.sync.aligned``,
  ``wgmma.wait_group.sync.aligned N``;
* ``wgmma.mma_async.sync.aligned.m64nNkK.D.A.B`` with, for ``N`` a multiple of 8 from
  8 to 256: ``.f32.f16.f16``, ``.f16.f16.f16``, ``.f32.bf16.bf16`` (K = 16) and
  ``.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}`` (K = 32), ``.f32.tf32.tf32`` (K = 8); and
  ``.s32.{s8,u8}.{s8,u8}`` (K = 32, ``.satfinite`` optional) for N = 8, 16, 24 and
  multiples of 16 up to 256 (ptxas rejects N = 40, 56, ... for the integer types;
  mixed ``s8``/``u8`` operands need ``.version 8.4``, which ptxas checks and the
  simulator does not).  ``b1`` operands are not supported.  As with ``mma.sync``, a
  tf32 operand is the upper 19 bits of its 32-bit word (the low 13 bits are dropped).

Operands (the ISA's forms; ``scale-d`` is a ``.pred`` register, ``!p`` allowed, or the
literal 0 or 1; ``imm-scale-a/b`` are 1 or -1 and negate the operand; ``imm-trans-a/b``
are 0 (K-major) or 1 (MN-major: A stored KxM, B stored KxN, M or N contiguous)):

* 16-bit: ``d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a,
  imm-trans-b`` or, A in registers, ``d, {a0..a3}, b-desc, scale-d, imm-scale-a,
  imm-scale-b, imm-trans-b``;
* 8-bit float and tf32: ``d, a, b-desc, scale-d, imm-scale-a, imm-scale-b`` (no
  transposes: both operands K-major);
* integer: ``d, a, b-desc, scale-d``.

``D = A·B`` when ``scale-d`` is false (the old D is not read) and ``D = A·B + D`` when
it is true.  Floats are computed exactly in float64 and rounded once to the
accumulator type (the hardware's internal order and precision differ slightly:
compare with a tolerance); integers exactly, wrapped to 32 bits or, with
``.satfinite``, clamped to the s32 range.  ``scale-d`` and the descriptors must be the
same in all threads of a warpgroup.

Register fragments (the ISA's figures for the m64nNk16 / m64nNk32 fragments): warp
``w`` of the warpgroup (``w = warp % 4``) owns rows ``16w .. 16w+15`` of the 64-row
tile; in it, lane ``t`` with ``g = t/4`` and ``c = t%4`` holds

* D, f32/s32 accumulators (N/2 registers): register ``4j+0``, ``4j+1`` = row
  ``16w+g``, columns ``8j+2c``, ``8j+2c+1``; ``4j+2``, ``4j+3`` = row ``16w+g+8``,
  the same columns;
* D, f16 accumulators (N/4 ``.b32`` registers, the first element in the low half):
  register ``2j`` = row ``16w+g``, columns ``8j+2c .. +1``; ``2j+1`` = row ``16w+g+8``;
* A in registers, 16-bit (two per register, K = 16): ``a0`` = row ``16w+g``, columns
  ``2c .. 2c+1``; ``a1`` = row ``+8``; ``a2`` = row ``16w+g``, columns ``2c+8 ..``;
  ``a3`` = row ``+8``, columns ``2c+8 ..`` (the ``mma.sync`` m16n8k16 A layout);
  8-bit (four per register, K = 32): columns ``4c .. 4c+3`` and ``16+4c ..``; tf32
  (one per register, K = 8): columns ``c`` and ``c+4``.

Matrix descriptors (a 64-bit value; the ISA's *matrix descriptor* section): bits 0-13
start address, 16-29 leading-dimension byte offset (LBO), 32-45 stride-dimension byte
offset (SBO), each stored shifted right by 4; bits 49-51 base offset; bits 62-63 the
swizzle mode (0 none, 1 128-byte, 2 64-byte, 3 32-byte).  What the ISA's layout
section says, as read here: an operand in shared memory is made of *core matrices*
of 8 rows, each row 16 bytes of consecutive K elements; A is MxK and B is stored
NxK (each of B's columns is a row), so one instruction reads 64 (A) or N (B) rows of
32 bytes (K = 16 two-byte or K = 32 one-byte elements).  The ISA also gives each layout
in CuTe notation (its *canonical layouts* table, with ``T`` elements per 16 bytes); the
offsets below are those, in bytes.  For K-major operands (``imm-trans`` 0):

* no swizzle: a core matrix is 128 contiguous bytes (row ``r`` at ``+16r``); the one
  holding rows ``8i ..`` and K bytes ``16j ..`` starts at ``start + i·SBO + j·LBO``
  (LBO steps along K, SBO along M or N);
* 128/64/32-byte swizzle (``W`` = 128, 64, 32): 8 rows of ``W`` bytes form an atom;
  row ``r`` is at ``start + (r/8)·SBO + (r%8)·W`` with its 16-byte chunk ``j`` at
  ``+16j`` (LBO is not used: one instruction's 32 bytes of K lie in one ``W``-byte
  row), and then the 16-byte chunks are permuted by XOR-ing address bits [4, 4+b)
  with bits [7, 7+b) (b = 3, 2, 1) — the same pattern TMA's swizzled copies write.
  The ISA says the pattern repeats every ``8·W`` bytes and the base offset field
  corrects for an atom that is not so aligned; the simulator takes the pattern from
  the address bits and supports only base offset 0 with a start address that lies
  in the first row of an ``8·W``-aligned atom (``start % 8W < W``: K steps within a
  row are fine); anything else is ``unsupported``.

For MN-major operands (``imm-trans`` 1, 16-bit types only, as the ISA allows): each K
index is a line of consecutive M (or N) elements, 8 K lines make a core matrix or atom:

* no swizzle: 8 K lines of 16 bytes (8 elements) form a 128-byte core matrix; the one
  holding MN elements ``8i ..`` and K ``8j ..`` is at ``start + i·SBO + j·LBO`` (here
  LBO steps along K and SBO along M or N, as the ISA's MN-major definitions say);
* swizzled: a K line is ``W`` bytes (``W/2`` MN elements); 8 lines make an atom; the
  atom holding MN elements ``(W/2)·i ..`` and K ``8j ..`` is at ``start + i·LBO +
  j·SBO`` (the roles swap), with the same address-bit XOR and the same restrictions.

The ISA's worked examples (K-major tf32 with and without 32-byte swizzle, MN-major
bf16 without swizzle and with 32/64-byte swizzle) agree with these formulas, and the
register fragments agree with CuTe's SM90 GMMA accumulator and A-operand layouts.

The start address is the thread's 18-bit ``.shared`` window address; the simulator's
shared arrays live at larger flat addresses (``ptx_shared``), so the 14-bit field is
matched, modulo 2^18, against the executing CTA's own shared arrays (an ambiguous
or unmatched address is an error).  Every 16-byte chunk read is checked for bounds
like ``ld.shared`` and must lie in the CTA's shared arrays.

Completion and the rules a program must follow: ``wgmma.mma_async`` is modelled as
completing at issue (D is written at once), and the simulator checks, as errors,
what makes the real asynchronous instruction's results undefined:

* a ``wgmma.mma_async`` in a warpgroup that has executed no ``wgmma.fence``, or whose
  accumulator or A registers were read or written by another instruction since the
  thread's last ``wgmma.fence`` ("wgmma.fence required": the ISA asks for the fence
  between any access to those registers and the ``mma_async``);
  ``wgmma.mma_async`` instructions on the same accumulator registers one after the
  other need no fence between them;
* reading or writing an accumulator register of a ``wgmma.mma_async`` that has not
  completed (its group not yet committed with ``wgmma.commit_group`` and waited for
  with a ``wgmma.wait_group`` whose pending count leaves it out), or writing its A
  registers, by any instruction except a ``wgmma.mma_async`` with the same
  accumulator list;
* a ``wgmma.mma_async`` reading shared-memory bytes that a thread stored (``st.shared``,
  the generic proxy) unless that thread executed ``fence.proxy.async`` (``ptx_async``)
  after the store and the fence happens before the ``wgmma`` (a ``bar.sync`` or other
  synchronization after it; ``ptx_order``): the ISA's proxy rule, the async proxy sees
  generic writes only through the fence, and other threads only through a
  synchronization after it; likewise bytes an asynchronous copy has not yet written,
  or wrote with no wait ordering its completion before the ``wgmma`` (``async-race``);
* a store to shared memory that an unfinished ``wgmma.mma_async`` reads (the
  operands must stay unchanged until the ``wgmma.wait_group`` that completes it), and
  an asynchronous copy *issued* into such bytes (``async-race``: it may land at any
  time after it is issued, ``check_copy_unread``);
* the same after the wait, by a thread not ordered after it: the reads are the issuing
  warpgroup's and end at the ``wgmma.wait_group`` that retires them (``_retire``).  Each
  warpgroup has an agent of the happens-before clocks (``ptx_order``, an object like an
  mbarrier's); a wait that retires reads stamps their bytes with the agent's time, the
  warpgroup's threads learn it, and the agent's clock ticks.  A later ``st.shared``, or
  a ``cp.async`` / ``cp.async.bulk`` issued into those bytes (checked at the issue, with
  the issuing thread's clock; the copy lands after it), by a thread whose clock has not
  caught up with that time (no ``bar.sync``, named barrier or mbarrier phase after the
  warpgroup's wait) is an ``async-race`` naming the ``wgmma``, the warpgroup and the
  bytes (``_check_retired``).  The simulator runs a CTA in lockstep, so by the time one
  warpgroup refills a ring slot after its ``wgmma.wait_group 1`` every other warpgroup
  has passed its own wait too: "unfinished at the store" alone would miss a refill that
  races another warpgroup's ``wgmma`` on the hardware.  One record a byte per warpgroup
  index (two consumer warpgroups reading one B slot are both checked); a store that
  passes clears it (a later write ordered after the store is ordered after the wait,
  and one that is not races with the store).

To see these events, the first ``wgmma`` instruction a machine executes wraps that
machine's ``read_bits`` / ``write_bits`` and its memory's ``store`` (on the instances,
so nothing changes for kernels without them).  What happened before needs no record:
an ``mma_async`` with no ``wgmma.fence`` before it fails anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np

from tileir.testing.ptx_decode import Exec, Mods, decoder, invalid, operands, unsupported
from tileir.testing.ptx_errors import ASYNC_RACE, INVALID, OUT_OF_BOUNDS, UNSUPPORTED
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_numeric import TYPES, unique, unique_counts, unique_inverse
from tileir.testing.ptx_parse import Imm, Instruction, Operand, Reg, Vec
from tileir.testing.ptx_races import check_async_read

_LANE = np.arange(128)
_WARP = _LANE // 32  # warp rank in the warpgroup
_G = (_LANE % 32) // 4
_C = _LANE % 4

#: Operand type -> K (elements per instruction: 32 bytes of each row).
_K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}
_FLOAT8 = ("e4m3", "e5m2")
_INT8 = ("s8", "u8")
_INT_N = (8, 16, 24, *range(32, 257, 16))
#: Swizzle mode field -> atom row width in bytes (0: none).
_SWIZZLE_WIDTH = {0: 0, 1: 128, 2: 64, 3: 32}
_SHARED_WINDOW = 1 << 18
_SHARED_LABEL = re.compile(r"shared array \S+ of CTA (\d+) \(")


# ------------------------------------------------------------------ warpgroups


def _warpgroups(m: Machine, act: np.ndarray) -> np.ndarray:
    """Active thread indices as ``(groups, 128)``; every active warpgroup must be whole."""
    lanes = np.flatnonzero(act)
    per_cta = m.threads.per_cta
    key = m.threads.cta[lanes] * 64 + (lanes % per_cta) // 128
    ids, counts = unique_counts(key)
    if (counts != 128).any():
        bad = ids[counts != 128][0]
        partial = np.zeros(m.count, dtype=bool)
        partial[lanes[key == bad]] = True
        raise m.fail(
            "a warpgroup-collective wgmma instruction executed by only part of a warpgroup "
            f"({int(counts[counts != 128][0])} of the 128 threads of warps 4g .. 4g+3)",
            partial,
        )
    return lanes.reshape(-1, 128)


def _uniform(m: Machine, values: np.ndarray, groups: np.ndarray, what: str) -> np.ndarray:
    """One value per warpgroup; fail if the threads of a warpgroup disagree."""
    per = values[groups]
    differs = (per != per[:, :1]).any(axis=1)
    if differs.any():
        g = int(np.argmax(differs))
        raise m.fail(f"{what} differs between the threads of a warpgroup", int(groups[g, 0]))
    return per[:, 0]


# ------------------------------------------------------------ per-machine state


#: An unfinished mma_async's shared-memory read: (warpgroup key, group, the sorted
#: unique addresses, the instruction's index in ``_State.names``).
_Read = tuple[int, int, np.ndarray, int]


@dataclass
class _State:
    """The machine's asynchronous-wgmma bookkeeping (see the module docstring)."""

    read_bits: Any
    write_bits: Any
    count: int
    #: ``wgmma.fence`` instructions each thread has executed.
    fences: np.ndarray
    #: Per register: each thread's fence count when an instruction other than
    #: ``wgmma.mma_async`` last read or wrote it (-1: not since the state was made).
    touched_at: dict[str, np.ndarray] = field(default_factory=dict)
    #: Per warpgroup key: the number of its open (uncommitted) wgmma group.
    open_group: dict[int, int] = field(default_factory=dict)
    #: Per register: per thread, the group of the unfinished mma_async that owns it
    #: as an accumulator (-1: none), and for A registers the same.
    pending_d: dict[str, np.ndarray] = field(default_factory=dict)
    pending_a: dict[str, np.ndarray] = field(default_factory=dict)
    #: The accumulator list each pending accumulator register belongs to.
    owner: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Shared bytes each unfinished mma_async reads: (warpgroup key, group, addresses,
    #: the instruction's index in ``names``).
    pending_reads: list[_Read] = field(default_factory=list)
    #: Per warpgroup key: the ``ptx_order`` agent whose clock ticks at each
    #: ``wgmma.wait_group`` of the warpgroup that retires reads (``_retire``).
    agents: dict[int, int] = field(default_factory=dict)
    #: Per warpgroup index in the CTA (``tid / 128``), per memory byte: the time of
    #: that warpgroup's agent (in the byte's CTA) when it last retired a
    #: ``wgmma.mma_async`` that read the byte (0: none since the byte was last stored),
    #: and that instruction's index in ``names``.
    retired: dict[int, np.ndarray] = field(default_factory=dict)
    retired_by: dict[int, np.ndarray] = field(default_factory=dict)
    #: The ``wgmma.mma_async`` instructions that read shared memory, for messages.
    names: list[str] = field(default_factory=list)

    def pending(self, table: dict[str, np.ndarray], name: str) -> np.ndarray:
        arr = table.get(name)
        if arr is None:
            arr = table[name] = np.full(self.count, -1, dtype=np.int64)
        return arr


def _existing_state(m: Machine) -> _State | None:
    """The machine's `wgmma` state, if it has executed a `wgmma` instruction."""
    state = vars(m).get("_wgmma_state")
    return state if isinstance(state, _State) else None


def _state(m: Machine) -> _State:
    state = _existing_state(m)
    if state is not None:
        return state
    state = _State(m.read_bits, m.write_bits, m.count, np.zeros(m.count, dtype=np.int64))
    read_bits, write_bits = m.read_bits, m.write_bits
    memory = m.memory
    store = memory.store

    def checked_store(addresses: np.ndarray, data: np.ndarray, writers: np.ndarray) -> None:
        if state.pending_reads:
            _check_no_pending_read(m, state, addresses, data.shape[1], writers)
        if state.retired:
            nbytes = data.shape[1]
            written = (addresses.astype(np.int64)[:, None] + np.arange(nbytes)).reshape(-1)
            _check_retired(
                m, state, written, np.repeat(writers, nbytes), "a store to shared memory"
            )
            # A store ordered after the retirement replaces the record: a later access
            # ordered after this store is ordered after the retirement too, and one that
            # is not races with the store (``ptx_races``).
            flat = written - m.memory.BASE
            for times in state.retired.values():
                times[flat] = 0
        store(addresses, data, writers)

    vars(memory)["store"] = checked_store

    def touch(name: str, active: np.ndarray) -> None:
        at = state.touched_at.get(name)
        if at is None:
            at = state.touched_at[name] = np.full(m.count, -1, dtype=np.int64)
        at[active] = state.fences[active]

    def checked_read(op: Operand, t: Any, active: np.ndarray, widen: bool = False) -> np.ndarray:
        if isinstance(op, Reg):
            if op.name in state.pending_d:
                _check_not_pending(m, state, op.name, active, "read")
            touch(op.name, active)
        return read_bits(op, t, active, widen)

    def checked_write(
        op: Operand, bits: np.ndarray, t: Any, active: np.ndarray, widen: bool = False
    ) -> None:
        if isinstance(op, Reg):
            name = op.name
            if name in state.pending_d or name in state.pending_a:
                _check_not_pending(m, state, name, active, "written")
            touch(name, active)
        write_bits(op, bits, t, active, widen)

    attrs = vars(m)
    attrs["read_bits"] = checked_read
    attrs["write_bits"] = checked_write
    attrs["_wgmma_state"] = state
    return state


def _check_not_pending(m: Machine, state: _State, name: str, active: np.ndarray, how: str) -> None:
    d = state.pending_d.get(name)
    busy = active & (d >= 0) if d is not None else np.zeros(m.count, dtype=bool)
    role = "accumulator"
    if how == "written" and not busy.any():
        a = state.pending_a.get(name)
        if a is not None:
            busy = active & (a >= 0)
            role = "A operand"
    if busy.any():
        raise m.fail(
            f"register {name} is {how} while it is the {role} of a wgmma.mma_async that has "
            "not completed (commit it with wgmma.commit_group and wait for it with "
            "wgmma.wait_group first)",
            busy,
        )


def _group_key(m: Machine, groups: np.ndarray) -> np.ndarray:
    first = groups[:, 0]
    return m.threads.cta[first] * 64 + (first % m.threads.per_cta) // 128


# ------------------------------------------------------------------- decoders


@decoder("wgmma")
def decode_wgmma(ins: Instruction) -> Exec:
    mods = Mods(ins)
    kind = mods.one_of(("fence", "commit_group", "wait_group", "mma_async"))
    if kind is None:
        raise invalid(ins, "wgmma needs .fence, .commit_group, .wait_group or .mma_async")
    if not (mods.flag("sync") and mods.flag("aligned")):
        raise invalid(ins, f"wgmma.{kind} without .sync.aligned")
    if kind == "mma_async":
        return _decode_mma_async(ins, mods)
    mods.done()
    if kind == "wait_group":
        (n,) = operands(ins, 1)
        if not isinstance(n, Imm) or not isinstance(n.value, int) or n.value < 0:
            raise invalid(ins, f"wgmma.wait_group takes a non-negative integer literal, got {n}")
        return _wait_group(n.value)
    operands(ins, 0)
    return _fence if kind == "fence" else _commit_group


def _fence(m: Machine, act: np.ndarray) -> None:
    _warpgroups(m, act)
    state = _state(m)
    state.fences[act] += 1


def _commit_group(m: Machine, act: np.ndarray) -> None:
    groups = _warpgroups(m, act)
    state = _state(m)
    for key in _group_key(m, groups).tolist():
        state.open_group[key] = state.open_group.get(key, 0) + 1


def _wait_group(n: int) -> Exec:
    def run(m: Machine, act: np.ndarray) -> None:
        groups = _warpgroups(m, act)
        state = _state(m)
        limit = np.full(m.count, -1, dtype=np.int64)
        keys = _group_key(m, groups).tolist()

        def limit_of(key: int) -> int:
            # Groups numbered below the open one are committed; all but the newest n end.
            return state.open_group.get(key, 0) - n

        for key, g in zip(keys, groups, strict=True):
            limit[g] = limit_of(key)
        done = [r for r in state.pending_reads if r[0] in keys and r[1] < limit_of(r[0])]
        if done:
            ended = {id(r) for r in done}
            state.pending_reads = [r for r in state.pending_reads if id(r) not in ended]
            if m.check_races:
                _retire(m, state, groups, keys, done)
        for table in (state.pending_d, state.pending_a):
            for arr in table.values():
                done = act & (arr >= 0) & (arr < limit)
                arr[done] = -1

    return run


# ------------------------------------------------------------------ mma_async


@dataclass(frozen=True)
class _Form:
    n: int
    k: int
    acc: str
    a_type: str
    b_type: str
    satfinite: bool
    d: tuple[Reg, ...]
    a_regs: tuple[Reg, ...] | None  # None: A from a descriptor
    a_desc: Operand | None
    b_desc: Operand
    scale_d: Operand
    neg_a: bool
    neg_b: bool
    mn_major_a: bool  # imm-trans-a = 1
    mn_major_b: bool  # imm-trans-b = 1


def _decode_mma_async(ins: Instruction, mods: Mods) -> Exec:
    shapes = [r for r in mods.rest if re.fullmatch(r"m\d+n\d+k\d+", r)]
    if len(shapes) != 1:
        raise invalid(ins, "wgmma.mma_async needs one .m64nNkK shape")
    shape = shapes[0]
    mods.rest.remove(shape)
    satfinite = mods.flag("satfinite")
    if mods.flag("sp"):
        raise unsupported(ins, "sparse wgmma.mma_async.sp")
    rest = list(mods.rest)
    mods.rest.clear()
    if len(rest) != 3:
        raise invalid(ins, f"wgmma.mma_async types .{'.'.join(rest)} (expected .dtype.atype.btype)")
    acc, ta, tb = rest
    types = f".{acc}.{ta}.{tb}"
    if ta == "b1" or tb == "b1":
        raise unsupported(ins, f"wgmma.mma_async on {types}")
    if ta in ("f16", "bf16"):
        ok = tb == ta and (acc == "f32" or (acc == "f16" and ta == "f16"))
    elif ta == "tf32":
        ok = tb == ta and acc == "f32"
    elif ta in _FLOAT8:
        ok = tb in _FLOAT8 and acc in ("f32", "f16")
    elif ta in _INT8:
        ok = tb in _INT8 and acc == "s32"
    else:
        ok = False
    if not ok:
        raise invalid(ins, f"wgmma.mma_async types {types}")
    if satfinite and acc != "s32":
        raise invalid(ins, ".satfinite on a floating-point wgmma.mma_async")
    k = _K[ta]
    m_ = re.fullmatch(r"m(\d+)n(\d+)k(\d+)", shape)
    assert m_ is not None
    mm, n, kk = (int(x) for x in m_.groups())
    valid_n = _INT_N if acc == "s32" else range(8, 257, 8)
    if mm != 64 or kk != k or n not in valid_n:
        raise invalid(ins, f"shape .{shape} for {types}")
    ops: list[Operand] = list(ins.operands)
    a_in_regs = len(ops) > 1 and isinstance(ops[1], Vec)
    if ta in ("f16", "bf16"):
        count = 7 if a_in_regs else 8
    elif ta in _FLOAT8 or ta == "tf32":
        count = 6
    else:
        count = 4
    operands(ins, count)
    d_count = n // 4 if acc == "f16" else n // 2
    d = _regs(ins, ops[0], d_count, "accumulator")
    if len(set(d)) != len(d):
        raise invalid(ins, "an accumulator register appears twice")
    a_regs = _regs(ins, ops[1], 4, "A") if a_in_regs else None
    neg_a = neg_b = False
    if count >= 6:
        neg_a = _literal(ins, ops[4], (1, -1), "imm-scale-a") == -1
        neg_b = _literal(ins, ops[5], (1, -1), "imm-scale-b") == -1
    transposes = ops[6:]
    trans = {"a": False, "b": False}
    for i, op in enumerate(transposes):
        which = "b" if i == len(transposes) - 1 else "a"
        trans[which] = _literal(ins, op, (0, 1), f"imm-trans-{which}") == 1
    scale_d = ops[3]
    if isinstance(scale_d, Imm):
        _literal(ins, scale_d, (0, 1), "scale-d")
    elif not isinstance(scale_d, Reg):
        raise invalid(ins, f"scale-d must be a predicate or 0/1, got {scale_d}")
    form = _Form(
        n=n,
        k=k,
        acc=acc,
        a_type=ta,
        b_type=tb,
        satfinite=satfinite,
        d=d,
        a_regs=a_regs,
        a_desc=None if a_in_regs else ops[1],
        b_desc=ops[2],
        scale_d=scale_d,
        neg_a=neg_a,
        neg_b=neg_b,
        mn_major_a=trans["a"],
        mn_major_b=trans["b"],
    )
    if isinstance(ops[2], Vec) or isinstance(form.a_desc, Vec):
        raise invalid(ins, "a matrix descriptor must be a .b64 register")
    return _mma_async(form, _name(ins))


def _name(ins: Instruction) -> str:
    """The ``wgmma.mma_async`` for messages: its line, mnemonic and operand registers
    after the accumulator list."""

    def show(op: Operand) -> str:
        if isinstance(op, Reg):
            return op.name
        if isinstance(op, Vec):
            return "{" + ", ".join(show(item) for item in op.items) + "}"
        return str(op)

    rest = ", ".join(show(op) for op in ins.operands[1:3])
    mnemonic = ".".join((ins.opcode, *ins.modifiers))
    return f"`{mnemonic} {{..}}, {rest}` (line {ins.line})"


def _regs(ins: Instruction, op: Operand, count: int, what: str) -> tuple[Reg, ...]:
    if not isinstance(op, Vec) or len(op.items) != count:
        raise invalid(ins, f"the {what} operand must be a vector of {count} registers, got {op}")
    regs = []
    for item in op.items:
        if not isinstance(item, Reg) or item.negated:
            raise invalid(ins, f"{item} in the {what} vector is not a register")
        regs.append(item)
    return tuple(regs)


def _literal(ins: Instruction, op: Operand, allowed: tuple[int, ...], what: str) -> int:
    if not isinstance(op, Imm) or op.value not in allowed or isinstance(op.value, float):
        raise invalid(ins, f"{what} must be one of {allowed}, got {op}")
    return int(op.value)


def _d_positions(n: int, f16: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)`` of shape ``(128, elements)``: thread ``p``'s accumulator elements
    in register order (f16: two per register, low half first)."""
    count = n // 2  # elements per thread
    e = np.arange(count)
    if f16:  # register 2j+h holds row g+8h, cols 8j+2c, +1
        reg, sub = e // 2, e % 2
        j, h = reg // 2, reg % 2
    else:  # register 4j+r: row g+8(r/2), col 8j+2c+r%2
        j, h, sub = e // 4, (e % 4) // 2, e % 2
    rows = 16 * _WARP[:, None] + _G[:, None] + 8 * h[None, :]
    cols = 8 * j[None, :] + 2 * _C[:, None] + sub[None, :]
    return rows, cols


def _a_positions(k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)`` of shape ``(128, k/2)``: thread ``p``'s A elements in register
    order (register r, then the elements of r from the low bits up)."""
    per_reg = k // 8
    e = np.arange(4 * per_reg)
    r, sub = e // per_reg, e % per_reg
    rows = 16 * _WARP[:, None] + _G[:, None] + 8 * (r % 2)[None, :]
    cols = per_reg * _C[:, None] + (k // 2) * (r // 2)[None, :] + sub[None, :]
    return rows, cols


def _decode_elements(raw: np.ndarray, kind: str) -> np.ndarray:
    """Little-endian element bytes (last axis) as float64 (or int64 for integers)."""
    if kind == "f16":
        return raw.view("<f2").astype(np.float64)
    if kind == "bf16":
        return raw.view("<u2").view(ml_dtypes.bfloat16).astype(np.float64)
    if kind == "e4m3":
        return raw.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    if kind == "e5m2":
        return raw.view(ml_dtypes.float8_e5m2).astype(np.float64)
    if kind == "tf32":  # the upper 19 bits of each little-endian word
        words = np.ascontiguousarray(raw).view("<u4") & np.uint32(0xFFFFE000)
        return words.view(np.float32).astype(np.float64)
    if kind == "s8":
        return raw.view(np.int8).astype(np.int64)
    return raw.astype(np.int64)


def _mma_async(f: _Form, label: str) -> Exec:
    """``label``: how messages call the instruction (``_name``)."""
    d_rows, d_cols = _d_positions(f.n, f.acc == "f16")
    a_rows, a_cols = _a_positions(f.k)
    d_names = tuple(r.name for r in f.d)
    a_names = tuple(r.name for r in f.a_regs) if f.a_regs is not None else ()
    b32, b64 = TYPES["b32"], TYPES["b64"]
    acc_t = TYPES["b32"] if f.acc == "f16" else TYPES[f.acc]
    integer = f.acc == "s32"

    def run(m: Machine, act: np.ndarray) -> None:
        groups = _warpgroups(m, act)
        state = _state(m)
        _check_order(m, state, act, d_names, a_names)
        count = len(groups)
        read: list[list[np.ndarray]] = [[] for _ in range(count)]  # shared bytes per group
        # -- A and B
        if f.a_regs is not None:
            words = np.stack([state.read_bits(r, b32, act)[groups] for r in f.a_regs], axis=-1)
            raw = words.astype("<u4").view(np.uint8).reshape(count, 128, 4 * 4)
            values = _decode_elements(raw, f.a_type).reshape(count, 128, -1)
            A = np.zeros((count, 64, f.k), dtype=values.dtype)
            A[:, a_rows, a_cols] = values
        else:
            assert f.a_desc is not None
            desc = _uniform(m, state.read_bits(f.a_desc, b64, act), groups, "the A descriptor")
            raw = _operand_bytes(m, desc, groups, 64, "A", f.mn_major_a, read)
            A = _decode_elements(raw, f.a_type).reshape(count, 64, f.k)
        desc = _uniform(m, state.read_bits(f.b_desc, b64, act), groups, "the B descriptor")
        raw = _operand_bytes(m, desc, groups, f.n, "B", f.mn_major_b, read)
        Bt = _decode_elements(raw, f.b_type).reshape(count, f.n, f.k)
        if f.neg_a:
            A = -A
        if f.neg_b:
            Bt = -Bt
        product = np.einsum("gmk,gnk->gmn", A, Bt)
        # -- the old accumulator, where scale-d is true
        if isinstance(f.scale_d, Imm):
            keep = np.full(count, bool(f.scale_d.value))
        else:
            assert isinstance(f.scale_d, Reg)
            p = state.read_bits(Reg(f.scale_d.name), TYPES["pred"], act).astype(bool)
            keep = _uniform(m, ~p if f.scale_d.negated else p, groups, "scale-d")
        if keep.any():
            old = _read_accumulator(m, state, f, act, groups[keep], d_rows, d_cols)
            product[keep] = product[keep] + old
        # -- round and write
        if integer:
            exact = product.astype(np.int64)
            if f.satfinite:
                exact = np.clip(exact, -(2**31), 2**31 - 1)
            bits = (exact & 0xFFFFFFFF).astype(np.uint32)
        elif f.acc == "f32":
            bits = product.astype(np.float32).view(np.uint32)
        else:
            bits = product.astype(np.float16).view(np.uint16).astype(np.uint32)
        per_thread = bits[:, d_rows, d_cols]  # (groups, 128, elements)
        if f.acc == "f16":
            per_thread = per_thread[..., 0::2] | (per_thread[..., 1::2] << 16)
        flat = groups.reshape(-1)
        for i, reg in enumerate(f.d):
            full = np.zeros(m.count, dtype=np.uint32)
            full[flat] = per_thread[:, :, i].reshape(-1)
            state.write_bits(reg, full, acc_t, act)
        # -- the instruction is in flight until its group is committed and waited for
        seq = np.zeros(m.count, dtype=np.int64)
        for key, g in zip(_group_key(m, groups).tolist(), groups, strict=True):
            seq[g] = state.open_group.get(key, 0)
        for name in d_names:
            state.pending(state.pending_d, name)[act] = seq[act]
            state.owner[name] = d_names
        for name in a_names:
            state.pending(state.pending_a, name)[act] = seq[act]
        if label not in state.names:
            state.names.append(label)
        which = state.names.index(label)
        for key, g, chunks in zip(_group_key(m, groups).tolist(), groups, read, strict=True):
            addresses = unique(np.concatenate(chunks)).astype(np.int64)
            state.pending_reads.append((key, int(seq[g[0]]), addresses, which))

    return run


def _check_order(
    m: Machine, state: _State, act: np.ndarray, d_names: tuple[str, ...], a_names: tuple[str, ...]
) -> None:
    """The fence and in-flight rules of the module docstring, before an mma_async."""
    unfenced = act & (state.fences == 0)
    if unfenced.any():
        raise m.fail(
            "wgmma.mma_async with no wgmma.fence before it (wgmma.fence required)", unfenced
        )
    for name in (*d_names, *a_names):
        at = state.touched_at.get(name)
        if at is not None:
            dirty = act & (at >= state.fences)
            if dirty.any():
                raise m.fail(
                    f"register {name} was accessed by another instruction since the last "
                    "wgmma.fence: a wgmma.fence is required between reading or writing a "
                    "wgmma.mma_async's accumulator or A registers and the wgmma.mma_async",
                    dirty,
                )
    for name in d_names:
        d = state.pending_d.get(name)
        if d is not None and (act & (d >= 0)).any() and state.owner.get(name) != d_names:
            raise m.fail(
                f"register {name} is the accumulator of an unfinished wgmma.mma_async with a "
                "different accumulator list",
                act & (d >= 0),
            )
    for name in a_names:
        d = state.pending_d.get(name)
        if d is not None and (act & (d >= 0)).any():
            raise m.fail(
                f"A register {name} is the accumulator of an unfinished wgmma.mma_async",
                act & (d >= 0),
            )


def _read_accumulator(
    m: Machine,
    state: _State,
    f: _Form,
    act: np.ndarray,
    groups: np.ndarray,
    d_rows: np.ndarray,
    d_cols: np.ndarray,
) -> np.ndarray:
    """The current D of ``groups`` as ``(groups, 64, N)`` float64 (int64 for s32)."""
    t = TYPES["b32"] if f.acc == "f16" else TYPES[f.acc]
    sub = np.zeros(m.count, dtype=bool)
    sub[groups.reshape(-1)] = True
    sub &= act
    words = np.stack([state.read_bits(r, t, sub)[groups] for r in f.d], axis=-1)
    words = words.astype(np.uint32)
    if f.acc == "f16":
        lo = (words & 0xFFFF).astype(np.uint16)
        hi = (words >> 16).astype(np.uint16)
        halves = np.stack([lo, hi], axis=-1).reshape(*words.shape[:2], -1)
        values = halves.view(np.float16).astype(np.float64)
    elif f.acc == "s32":
        values = words.view(np.int32).astype(np.int64)
    else:
        values = words.view(np.float32).astype(np.float64)
    out = np.zeros((len(groups), 64, f.n), dtype=values.dtype)
    out[:, d_rows, d_cols] = values
    return out


# --------------------------------------------------------------- descriptors


def _operand_bytes(
    m: Machine,
    desc: np.ndarray,
    groups: np.ndarray,
    rows: int,
    which: str,
    mn_major: bool,
    read: list[list[np.ndarray]],
) -> np.ndarray:
    """``(groups, rows, 32)`` bytes of the operand described by ``desc``: row ``r`` (of M
    for A, of N for B) holds its 32 bytes of K in order, whatever the layout.  The
    addresses read are appended to ``read[group]``."""
    from tileir.testing.ptx_ops import check_access

    desc = desc.astype(np.uint64)
    start = ((desc & np.uint64(0x3FFF)) << np.uint64(4)).astype(np.int64)
    lbo = (((desc >> np.uint64(16)) & np.uint64(0x3FFF)) << np.uint64(4)).astype(np.int64)
    sbo = (((desc >> np.uint64(32)) & np.uint64(0x3FFF)) << np.uint64(4)).astype(np.int64)
    base_offset = ((desc >> np.uint64(49)) & np.uint64(7)).astype(np.int64)
    mode = ((desc >> np.uint64(62)) & np.uint64(3)).astype(np.int64)
    out = np.zeros((len(groups), rows, 32), dtype=np.uint8)
    for gi, g in enumerate(groups):
        lead = int(g[0])
        width = _SWIZZLE_WIDTH[int(mode[gi])]
        s = int(start[gi])
        if width and (int(base_offset[gi]) != 0 or s % (8 * width) >= width):
            raise m.fail(
                f"{which} descriptor: a {width}-byte swizzled operand with base offset "
                f"{int(base_offset[gi])} starting at shared address 0x{s:x} (the simulator "
                f"supports base offset 0 and a start in the first row of a "
                f"{8 * width}-byte aligned atom)",
                lead,
                kind=UNSUPPORTED,
            )
        layout = _mn_major_offsets if mn_major else _k_major_offsets
        linear = s + layout(rows, width, int(lbo[gi]), int(sbo[gi]))  # (rows, 32) bytes
        if width:
            mask = width // 16 - 1
            linear = linear ^ (((linear >> 7) & mask) << 4)
        base = _resolve_shared(m, s, int(m.threads.cta[lead]), lead, which)
        addresses = (base - s + linear).reshape(-1)
        chunks = unique(addresses & ~15).astype(np.uint64)
        lanes = np.full(len(chunks), lead)
        check_access(m, chunks, 16, lanes, f"wgmma {which} operand read")
        _check_cta_shared(m, chunks, int(m.threads.cta[lead]), lead, which)
        _check_proxy_visible(m, addresses, lead, which)
        read[gi].append(addresses)
        out[gi] = m.memory.data[addresses - m.memory.BASE].reshape(rows, 32)
    return out


def _check_no_pending_read(
    m: Machine, state: _State, addresses: np.ndarray, nbytes: int, writers: np.ndarray
) -> None:
    """A store must not change shared bytes that an unfinished mma_async reads."""
    written = (addresses.astype(np.int64)[:, None] + np.arange(nbytes)).reshape(-1)
    _check_unread(
        m, state, written, np.repeat(writers, nbytes), "a store to shared memory", INVALID
    )


def check_copy_unread(m: Machine, addresses: np.ndarray, writers: np.ndarray) -> None:
    """An asynchronous copy must not be issued into shared bytes (``addresses``, one
    issuing thread each) that an unfinished mma_async reads: the copy may land at any
    time after it is issued (``ptx_async``)."""
    state = _existing_state(m)
    if state is None:
        return
    what = "an asynchronous copy into shared memory"
    if state.pending_reads:
        _check_unread(m, state, addresses, writers, what, ASYNC_RACE)
    if state.retired:
        _check_retired(m, state, addresses.astype(np.int64), writers, f"{what} issued")


def _retire(
    m: Machine, state: _State, groups: np.ndarray, keys: list[int], done: list[_Read]
) -> None:
    """The shared-memory reads of the retired ``done`` end at this ``wgmma.wait_group``:
    each retiring warpgroup's agent (``ptx_order``) stamps them, and the warpgroup's
    threads learn that time, so a write into those bytes is ordered after the reads
    only for a thread synchronized with the warpgroup after its wait
    (``_check_retired``)."""
    size = len(m.memory.data)
    for key, g in zip(keys, groups, strict=True):
        mine = [r for r in done if r[0] == key]
        if not mine:
            continue
        agent = state.agents.get(key)
        if agent is None:
            agent = state.agents[key] = m.order.new_object(key // 64)
        time = m.order.observe_object(agent, g)
        w = key % 64
        if w not in state.retired:
            state.retired[w] = np.zeros(size, dtype=np.int32)
            state.retired_by[w] = np.zeros(size, dtype=np.int32)
        for _, _, addresses, which in mine:
            flat = addresses - m.memory.BASE
            state.retired[w][flat] = time
            state.retired_by[w][flat] = which


def _check_retired(
    m: Machine, state: _State, written: np.ndarray, writers: np.ndarray, what: str
) -> None:
    """Fail if threads ``writers`` write bytes ``written`` (absolute addresses) that a
    retired ``wgmma.mma_async`` read, unless its retirement (the warpgroup's
    ``wgmma.wait_group``) happens before the writer (a ``bar.sync``, named barrier or
    mbarrier phase after the wait).  Writers that are not threads (a landing copy's
    agent) were checked when the copy was issued (``check_copy_unread``)."""
    threads = (writers >= 0) & (writers < m.count)
    if not threads.any():
        return
    flat = written - m.memory.BASE
    for w, times in state.retired.items():
        stamped = times[flat]
        hit = np.flatnonzero((stamped > 0) & threads)
        if not len(hit):
            continue
        ctas, inverse = unique_inverse(m.memory.shared_cta(written[hit], 1))
        keyed = np.array([state.agents.get(int(c) * 64 + w, -1) for c in ctas.tolist()])
        agents = keyed[inverse.reshape(-1)]
        ok = m.order.ordered(agents, stamped[hit], writers[hit])
        if ok.all():
            continue
        bad = hit[~ok]
        k = int(bad[0])
        writer = int(writers[k])
        mine = bad[writers[bad] == writer]
        first, last = int(written[mine].min()), int(written[mine].max())
        reader = state.names[int(state.retired_by[w][flat[k]])]
        raise m.fail(
            f"{what} by {m.threads.describe(writer)} overwrites bytes that {reader} of "
            f"warpgroup {w} (tid {128 * w} .. {128 * w + 127}) read, and the "
            "wgmma.wait_group that retired it is not ordered before this write: no "
            "bar.sync, named barrier or mbarrier phase after that warpgroup's wait_group "
            "orders them (a ring slot refilled before all its readers released it) "
            f"({len(mine)} such bytes from 0x{first:x} to 0x{last:x}; the first is "
            f"{m.memory.describe(int(written[k]))})",
            writer,
            int(written[k]),
            kind=ASYNC_RACE,
        )


def _check_unread(
    m: Machine,
    state: _State,
    written: np.ndarray,
    writers: np.ndarray,
    what: str,
    kind: str,
) -> None:
    for _, _, reading, _ in state.pending_reads:
        if not len(reading):
            continue
        # `reading` is sorted and unique (`np.unique` at the issue): a binary search
        # for each written byte, not `np.isin`'s sort or hash of both arrays, which cost
        # milliseconds a store once every thread's copies land one by one (an mbarrier
        # phase's deferred arrivals, `ptx_mbarrier.settle`).
        at = np.minimum(np.searchsorted(reading, written), len(reading) - 1)
        hit = reading[at] == written
        if hit.any():
            k = int(np.argmax(hit))
            message = (
                f"{what} that an unfinished wgmma.mma_async reads (wait for it with "
                "wgmma.commit_group and wgmma.wait_group before overwriting its operands)"
            )
            writer = int(writers[k]) if writers[k] >= 0 else None
            raise m.fail(message, writer, int(written[k]), kind=kind)


def _check_proxy_visible(m: Machine, addresses: np.ndarray, lead: int, which: str) -> None:
    """The operand bytes reach ``wgmma`` (the async proxy) only if no copy still writes
    them, bytes a thread stored with ``st.shared`` were fenced by that thread with
    ``fence.proxy.async`` and the fence happens before the ``wgmma`` (a ``bar.sync`` or
    other synchronization after it), and copies that wrote them completed before it
    (``ptx_races.check_async_read``); checked for the warpgroup's first thread."""
    check_async_read(m, unique(addresses), lead, f"wgmma ({which} operand)")


def _k_major_offsets(rows: int, width: int, lbo: int, sbo: int) -> np.ndarray:
    """Byte offsets, before any swizzle, of the operand's ``(row, K byte)`` in the ISA's
    K-major canonical layouts: rows of 16-byte core-matrix rows (no swizzle: core matrices
    at ``(r/8)·SBO + (kb/16)·LBO``; swizzled: ``width``-byte rows, ``(r/8)·SBO``)."""
    r = np.arange(rows)[:, None]
    kb = np.arange(32)[None, :]
    if width == 0:
        return (r // 8) * sbo + (kb // 16) * lbo + (r % 8) * 16 + kb % 16
    return (r // 8) * sbo + (r % 8) * width + kb


def _mn_major_offsets(rows: int, width: int, lbo: int, sbo: int) -> np.ndarray:
    """Byte offsets, before any swizzle, of the operand's ``(row, K byte)`` in the ISA's
    MN-major canonical layouts for 16-bit elements (T = 8 per 16 bytes): each K index
    is a 16-byte (no swizzle) or ``width``-byte line of consecutive rows.  No swizzle:
    ``((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))``; swizzled with ``c = width/16``:
    ``((T,c,m),(8,k)):((1,T,LBO),(cT,SBO))`` (in elements)."""
    r = np.arange(rows)[:, None]
    kb = np.arange(32)[None, :]
    k, byte = kb // 2, kb % 2
    if width == 0:
        offsets = (r // 8) * sbo + (r % 8) * 2 + (k % 8) * 16 + (k // 8) * lbo
    else:
        c = width // 16
        offsets = ((r % 8) * 2 + ((r // 8) % c) * 16 + (r // (8 * c)) * lbo + (k % 8) * width) + (
            k // 8
        ) * sbo
    return offsets + byte


def _cta_shared_regions(m: Machine, cta: int) -> list[tuple[int, int]]:
    regions = []
    for region in m.memory.regions:
        match = _SHARED_LABEL.match(region.label)
        if match and int(match.group(1)) == cta:
            regions.append((region.start, region.end))
    return regions


def _resolve_shared(m: Machine, window: int, cta: int, lead: int, which: str) -> int:
    """The simulator address of the 18-bit shared-window address ``window`` of ``cta``."""
    found = [
        start + (window - start) % _SHARED_WINDOW
        for start, end in _cta_shared_regions(m, cta)
        if start + (window - start) % _SHARED_WINDOW < end
    ]
    if len(found) != 1:
        what = "no" if not found else "more than one"
        raise m.fail(
            f"{which} descriptor: start address 0x{window:x} matches {what} shared array of "
            "the CTA",
            lead,
            kind=OUT_OF_BOUNDS if not found else UNSUPPORTED,
        )
    return found[0]


def _check_cta_shared(m: Machine, addresses: np.ndarray, cta: int, lead: int, which: str) -> None:
    inside = np.zeros(len(addresses), dtype=bool)
    a = addresses.astype(np.int64)
    for start, end in _cta_shared_regions(m, cta):
        inside |= (a >= start) & (a + 16 <= end)
    if not inside.all():
        address = int(a[int(np.argmin(inside))])
        raise m.fail(
            f"wgmma {which} operand read outside the CTA's shared memory: "
            f"{m.memory.describe(address)}",
            lead,
            address,
            kind=OUT_OF_BOUNDS,
        )
