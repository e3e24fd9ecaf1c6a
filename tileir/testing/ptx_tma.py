"""Tensor maps and tensor copies (TMA) in the PTX simulator.

Written from the PTX ISA's *Tensors* section (5.5: dimensions, tiled mode, bounding
box, traversal stride, out-of-bounds access, swizzling modes), *tensormap.replace*,
*tensormap.cp_fenceproxy*, *membar/fence* (``fence.proxy.tensormap::generic``),
*cp.async.bulk.tensor*, *prefetch* and *mbarrier* (expect-tx / complete-tx).

The tensor-map object is 1024 opaque bits: the ISA does not say where a field lives,
so the simulator does not invent a bit layout.  It keeps the fields that
``tensormap.replace`` wrote in a side table keyed by the object's address (a
128-byte object in shared or global memory), and ``tensormap.cp_fenceproxy`` copies
both the bytes and the entry.  So a kernel that builds a map on the device is checked
for what it asks the hardware to do, never for the encoding, which only a GPU can
check.

* ``tensormap.replace.tile.FIELD{.global,.shared::cta}.b1024.{b32,b64} [map], {ord,}
  value``: one field (``global_address``, ``rank`` (rank - 1), ``box_dim``,
  ``global_dim``, ``global_stride`` (ord ``i``: the byte stride of dimension ``i +
  1``), ``element_stride``, ``elemtype``, ``interleave_layout``, ``swizzle_mode``,
  ``swizzle_atomicity``, ``fill_mode``).  A weak write of the whole object (in shared
  memory race-checked like a store of its 128 bytes; global maps, whose pool slots pass
  between CTAs through atomics the race checks do not order, are not race-checked).
* A generic-proxy write into a map's bytes (``st``, an atomic, a copy landing there:
  the zeroing before the fields are replaced) makes every field unknown: the map must
  be replaced field by field again before it is used.
* ``tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.{cta,cluster,
  gpu,sys}.sync.aligned [dst], [src], 128``: the whole warp, converged, with the same
  operands; the shared map's bytes and fields are copied to global ``dst`` and released
  to the tensormap proxy.  It orders the warp's earlier accesses before the copy (a
  warp barrier).
* ``fence.proxy.tensormap::generic.release.SCOPE``: releases the global maps the thread
  modified with ``tensormap.replace.global`` or generic stores;
  ``fence.proxy.tensormap::generic.acquire.SCOPE [map], 128``: the thread acquires the
  map as last released, if that release happens before the fence.
* ``cp.async.bulk.tensor.Nd.{shared::cluster,shared::cta}.global{.tile}
  .mbarrier::complete_tx::bytes{.L2::cache_hint} [dst], [map, {c0, .., cN-1}], [mbar]
  {, policy}``, 1-D to 5-D: the box at the signed coordinates lands in shared memory
  (128-byte aligned) asynchronously, completing its bytes (the whole box, out-of-bounds
  elements included) on the mbarrier's tx-count (``ptx_mbarrier``: landed when the phase
  completes, an ``async-race`` if read before).  The map must be a global map whose
  required fields are all known, that the issuing thread acquired after its last
  release.  Elements outside ``[0, global_dim)`` read nothing and are zero (fill mode 0)
  or a NaN (fill mode 1, floating types; all ones).  Box layout in shared memory:
  dimension 0 fastest, ``ceil(box_dim / element_stride)`` elements a dimension; with a
  W-byte swizzle (32, 64, 128) the 16-byte chunk index within each 128-byte line is
  XORed with bits 7.. of the shared address (``W / 16`` values), the ISA's patterns
  that repeat every 256, 512 and 1024 bytes (``core_matrices.swizzled``).  Checked: box
  dims 1..256, box rows a multiple of 16 bytes and at most W bytes when swizzled (a
  narrower row is swizzled by its address as any other: CuTe's model, unconfirmed here),
  element strides 1..8 (1 in dimension 0), global address 16-byte aligned, strides
  multiples of 16 below 2^40, dims 1..2^32, a NaN fill only for floating types.
  Not modelled (``unsupported``): ``.multicast::cluster``, ``im2col``,
  ``tile::gather4``, interleaved layouts, swizzle atomicities other than 16 bytes, the
  96-byte swizzle, element types that round or flush (``.f32.ftz``, ``.tf32``,
  sub-byte types), tensor reductions, ``cp.async.bulk.prefetch.tensor``.
  A map modified (replaced, stored to, overwritten) while a copy through it is in
  flight is an error.
* ``cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group{.L2::cache_hint} [map, {c0,
  ..}], [src]{, policy}``: the reverse, a bulk store (``ptx_async``: read from shared
  memory through the async proxy, so a thread's ``st.shared`` needs its
  ``fence.proxy.async`` first; completed by ``cp.async.bulk.commit_group`` /
  ``wait_group{.read}``); only the elements inside the tensor are written.
* ``prefetch{.global,.const,.param}.tensormap [map]``: no effect;
  ``createpolicy.fractional`` gives an opaque policy (0) for ``.L2::cache_hint``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tileir.testing.ptx_async import Copy, issue, shared_destination
from tileir.testing.ptx_decode import Exec, Mods, decoder, invalid, lanes_of, operands, unsupported
from tileir.testing.ptx_errors import ASYNC_RACE, INVALID, MISALIGNED, RACE
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_mbarrier import changed, lookup, mbarrier_addresses, settle
from tileir.testing.ptx_numeric import TYPES
from tileir.testing.ptx_ops import check_access
from tileir.testing.ptx_parse import Imm, Instruction, Mem, Operand, Vec
from tileir.testing.ptx_races import check_async_read, check_load, check_store

#: The tensor-map object's size in bytes (``.b1024``).
MAP_BYTES = 128
_MAP_ALIGN = 64

_FIELDS1 = ("global_address", "rank")
_FIELDS2 = ("box_dim", "global_dim", "global_stride", "element_stride")
_FIELDS3 = ("elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode")
#: ``.field3`` values the ISA's table defines (``tensormap.replace``).
_FIELD3_VALUES = {
    "elemtype": 16,
    "interleave_layout": 3,
    "swizzle_mode": 5,
    "swizzle_atomicity": 4,
    "fill_mode": 2,
}
#: ``.elemtype`` values copied bit for bit: (name, bytes, floating).
_ELEMTYPES = {
    0: ("u8", 1, False),
    1: ("u16", 2, False),
    2: ("u32", 4, False),
    3: ("s32", 4, False),
    4: ("u64", 8, False),
    5: ("s64", 8, False),
    6: ("f16", 2, True),
    7: ("f32", 4, True),
    9: ("f64", 8, True),
    10: ("bf16", 2, True),
}
#: ``.swizzle_mode`` values: the swizzle width in bytes (0: none).
_SWIZZLES = {0: 0, 1: 32, 2: 64, 3: 128}
_SCOPES = ("cta", "cluster", "gpu", "sys")


@dataclass
class TensorMap:
    """What the simulator knows of one tensor-map object (at ``address``)."""

    address: int
    shared: bool
    #: Fields written by ``tensormap.replace`` since the last generic write:
    #: ``(name, ord)`` -> value (ord 0 for the fields without one).
    fields: dict[tuple[str, int], int] = field(default_factory=dict)
    #: Global maps: bumped at every modification; released to the tensormap proxy
    #: (by thread ``released_by`` at its time ``released_at``) or not.
    version: int = 0
    released: bool = False
    released_by: int = -1
    released_at: int = 0
    modified_by: int = -1
    #: Copies issued through it that have not landed.
    copies: list[Copy] = field(default_factory=list)


@dataclass
class _Tma:
    maps: dict[int, TensorMap] = field(default_factory=dict)
    #: Per flat byte: whether it belongs to a tracked map.
    watched: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    #: ``(thread, map address)`` -> the version the thread acquired.
    acquired: dict[tuple[int, int], int] = field(default_factory=dict)
    #: Set while the simulator itself writes a map's bytes.
    quiet: bool = False


def _state(m: Machine) -> _Tma:
    state = m.extensions.get(__name__)
    if isinstance(state, _Tma):
        return state
    state = _Tma(watched=np.zeros(len(m.memory.data), dtype=bool))
    m.extensions[__name__] = state

    def written(offsets: np.ndarray, writers: np.ndarray) -> None:
        if state.quiet:
            return
        hit = state.watched[offsets]
        if hit.any():
            _written(m, state, offsets, writers, hit)

    m.memory.watch = written
    return state


def _map(m: Machine, state: _Tma, address: int) -> TensorMap:
    found = state.maps.get(address)
    if found is None:
        shared = bool(m.memory.shared_cta(np.array([address]), MAP_BYTES)[0] >= 0)
        found = TensorMap(address, shared)
        state.maps[address] = found
        start = address - m.memory.BASE
        state.watched[start : start + MAP_BYTES] = True
    return found


def _written(
    m: Machine, state: _Tma, offsets: np.ndarray, writers: np.ndarray, hit: np.ndarray
) -> None:
    """A write outside ``tensormap.replace`` into tracked maps: their fields are unknown."""
    base = m.memory.BASE
    touched: dict[int, int] = {}  # map address -> a thread that wrote it (-1: none)
    for r in np.flatnonzero(hit.any(axis=1)).tolist():
        first = int(offsets[r][hit[r]].min()) + base
        last = int(offsets[r][hit[r]].max()) + base
        writer = int(writers[r])
        for address in state.maps:
            if address <= last and first < address + MAP_BYTES:
                touched[address] = writer if 0 <= writer < m.count else -1
    for address, writer in touched.items():
        _modified(m, state, state.maps[address], writer)
        state.maps[address].fields.clear()


def _modified(m: Machine, state: _Tma, tmap: TensorMap, by: int) -> None:
    """``tmap`` changes: no copy through it may be in flight; a global one needs a new
    release and acquire."""
    tmap.copies = [c for c in tmap.copies if c.pending.any()]
    if tmap.copies:
        copy = tmap.copies[0]
        raise m.fail(
            f"a tensor map is modified while `{copy.text}` "
            f"({m.threads.describe(int(copy.issuer[0]))}) still copies through it (wait for "
            "the copy's mbarrier phase first)",
            by if by >= 0 else None,
            tmap.address,
            kind=ASYNC_RACE,
        )
    if not tmap.shared:
        tmap.version += 1
        tmap.released = False
        tmap.modified_by = by


# ------------------------------------------------------------------ tensormap.replace


@decoder("tensormap")
def decode_tensormap(ins: Instruction) -> Exec:
    mods = Mods(ins)
    if mods.flag("replace"):
        return _decode_replace(ins, mods)
    if mods.flag("cp_fenceproxy"):
        return _decode_cp_fenceproxy(ins, mods)
    raise unsupported(ins, f"tensormap.{'.'.join(ins.modifiers)}")


def _decode_replace(ins: Instruction, mods: Mods) -> Exec:
    if not mods.flag("tile"):
        raise invalid(ins, "tensormap.replace needs the .tile mode")
    name = mods.one_of(_FIELDS1 + _FIELDS2 + _FIELDS3)
    if name is None:
        raise invalid(ins, "tensormap.replace names no field")
    space = mods.one_of(("global", "shared::cta"))
    if not mods.flag("b1024"):
        raise invalid(ins, "tensormap.replace needs .b1024")
    t = mods.type("b")
    mods.done()
    wide = name in ("global_address", "global_stride")
    if t != TYPES["b64" if wide else "b32"]:
        raise invalid(ins, f"tensormap.replace .{name} takes .{'b64' if wide else 'b32'}")
    ops = list(ins.operands)
    if len(ops) != (3 if name in _FIELDS2 else 2):
        raise invalid(ins, f"tensormap.replace .{name} operands")
    addr = ops[0]
    if not isinstance(addr, Mem):
        raise invalid(ins, f"a tensor-map address operand, got {addr}")
    ordinal = 0
    if name in _FIELDS2:
        o = ops[1]
        if not isinstance(o, Imm) or not isinstance(o.value, int) or not 0 <= o.value < 5:
            raise invalid(ins, f"tensormap.replace .{name} ord must be an immediate 0..4, got {o}")
        ordinal = int(o.value)
    value = ops[-1]
    if name in _FIELDS3:
        if not isinstance(value, Imm) or not isinstance(value.value, int):
            raise invalid(ins, f"tensormap.replace .{name} takes an immediate value")
        if not 0 <= value.value < _FIELD3_VALUES[name]:
            raise invalid(ins, f"tensormap.replace .{name} value {value.value} is not defined")

    def run(m: Machine, act: np.ndarray) -> None:
        state = _state(m)
        lanes = lanes_of(act)
        addresses = _map_addresses(m, addr, act, lanes, space, "tensormap.replace")
        values = m.read_bits(value, t, act)[lanes].astype(np.uint64)
        for k, address in enumerate(addresses.tolist()):
            lane = int(lanes[k])
            tmap = _map(m, state, address)
            _write_object(m, state, tmap, lane)
            _modified(m, state, tmap, lane)
            tmap.fields[(name, ordinal)] = int(values[k])

    return run


def _map_addresses(
    m: Machine, addr: Mem, act: np.ndarray, lanes: np.ndarray, space: str | None, what: str
) -> np.ndarray:
    """The addresses of a tensor-map operand: 64-byte aligned objects in the thread's
    CTA's shared memory (``.shared::cta``), or in global memory."""
    from tileir.testing.ptx_ops import _addresses  # pyright: ignore[reportPrivateUsage]

    shared = space == "shared::cta"
    addresses = _addresses(m, addr, act, lanes, "shared" if shared else "global")
    addresses = addresses.astype(np.int64)
    if shared:
        shared_destination(m, addresses, MAP_BYTES, lanes, _MAP_ALIGN, what)
    else:
        check_access(m, addresses, MAP_BYTES, lanes, f"{what} tensor map", _MAP_ALIGN)
        if space == "global":
            inside = m.memory.shared_cta(addresses, MAP_BYTES) >= 0
            if inside.any():
                k = int(np.argmax(inside))
                raise m.fail(
                    f"{what} .global with a shared-memory address", int(lanes[k]), int(addresses[k])
                )
    return addresses


def _write_object(m: Machine, state: _Tma, tmap: TensorMap, lane: int) -> None:
    """``lane`` writes the map's 128 bytes (a weak write of the whole object; in global
    memory, where slots pass between CTAs through atomics that the race checks do not
    order, the bytes record no writer)."""
    here = np.array([tmap.address], dtype=np.int64)
    who = np.array([lane])
    if m.check_races and tmap.shared:
        check_store(m, here, MAP_BYTES, who, True)
    state.quiet = True
    try:
        writer = who if tmap.shared else np.array([-1])
        m.memory.store(here, m.memory.load(here, MAP_BYTES), writer)
    finally:
        state.quiet = False


# ------------------------------------------------------------ tensormap.cp_fenceproxy


def _decode_cp_fenceproxy(ins: Instruction, mods: Mods) -> Exec:
    if not (mods.flag("global") and mods.flag("shared::cta")):
        raise invalid(ins, "tensormap.cp_fenceproxy copies .global from .shared::cta")
    if not (mods.flag("tensormap::generic") and mods.flag("release")):
        raise invalid(ins, "tensormap.cp_fenceproxy needs .tensormap::generic.release")
    if mods.one_of(_SCOPES) is None:
        raise invalid(ins, "tensormap.cp_fenceproxy needs a scope (.cta .cluster .gpu .sys)")
    if not (mods.flag("sync") and mods.flag("aligned")):
        raise invalid(ins, "tensormap.cp_fenceproxy is .sync.aligned")
    mods.done()
    d, s, n = operands(ins, 3)
    if not isinstance(d, Mem) or not isinstance(s, Mem):
        raise invalid(ins, "tensormap.cp_fenceproxy takes [dst], [src], size")
    if not isinstance(n, Imm) or n.value != MAP_BYTES:
        raise invalid(ins, f"tensormap.cp_fenceproxy size must be {MAP_BYTES}, got {n}")

    def run(m: Machine, act: np.ndarray) -> None:
        state = _state(m)
        lanes = lanes_of(act)
        dst = _map_addresses(m, d, act, lanes, "global", "tensormap.cp_fenceproxy")
        src = _map_addresses(m, s, act, lanes, "shared::cta", "tensormap.cp_fenceproxy")
        warps = m.threads.warp[lanes]
        for w in np.unique(warps).tolist():
            mine = warps == w
            group = lanes[mine]
            members = np.flatnonzero((m.threads.warp == w) & m.alive)
            if len(group) != len(members):
                raise m.fail(
                    "tensormap.cp_fenceproxy.sync.aligned executed by only some threads of a "
                    "warp (every thread of the warp executes it, converged)",
                    int(np.setdiff1d(members, group)[0]),
                )
            for what, where in (("destination", dst[mine]), ("source", src[mine])):
                if (where != where[0]).any():
                    raise m.fail(
                        f"tensormap.cp_fenceproxy.sync.aligned with a {what} address that "
                        "differs between the threads of the warp",
                        int(group[int(np.argmax(where != where[0]))]),
                    )
            # .sync.aligned: the warp meets there (its earlier accesses are ordered), and
            # the release is every participant's: stamped before the meeting's tick.
            at = int(m.order.now(group[:1])[0])
            m.order.acquire(group, m.order.release(group))
            _copy_map(m, state, int(group[0]), int(src[mine][0]), int(dst[mine][0]), at)

    return run


def _copy_map(m: Machine, state: _Tma, lane: int, src: int, dst: int, at: int) -> None:
    who = np.array([lane])
    source = np.array([src], dtype=np.int64)
    if m.check_races:
        check_load(m, source, MAP_BYTES, who)
    data = m.memory.load(source, MAP_BYTES)
    target = _map(m, state, dst)
    _modified(m, state, target, lane)
    state.quiet = True
    try:
        # Global slots are handed between CTAs by atomics, which the race checks do not
        # order: the copy's bytes record no writer.
        m.memory.store(np.array([dst], dtype=np.int64), data, np.array([-1]))
    finally:
        state.quiet = False
    origin = state.maps.get(src)
    target.fields = dict(origin.fields) if origin is not None else {}
    target.released = True
    target.released_by = lane
    target.released_at = at


# -------------------------------------------------------------------------- fences


def decode_fence(ins: Instruction, mods: Mods) -> Exec:
    """``fence.proxy.tensormap::generic.{release,acquire}.SCOPE`` (``ptx_async``'s fence
    decoder hands these here, ``proxy`` consumed)."""
    if not mods.flag("tensormap::generic"):
        raise unsupported(ins, "this proxy fence")
    semantic = mods.one_of(("release", "acquire"))
    if semantic is None or mods.one_of(_SCOPES) is None:
        raise invalid(ins, "fence.proxy.tensormap::generic needs .release or .acquire and a scope")
    if semantic == "release":
        mods.done()
        operands(ins, 0)
        return _release_fence
    space = mods.one_of(("global", "const", "param"))
    mods.done()
    a, n = operands(ins, 2)
    if not isinstance(a, Mem):
        raise invalid(ins, f"a tensor-map address operand, got {a}")
    if not isinstance(n, Imm) or n.value != MAP_BYTES:
        raise invalid(ins, f"fence.proxy.tensormap::generic.acquire size must be 128, got {n}")
    if space in ("const", "param"):
        raise unsupported(ins, "tensor maps in .const or .param space (kernel parameters)")

    def run(m: Machine, act: np.ndarray) -> None:
        state = _state(m)
        lanes = lanes_of(act)
        addresses = _map_addresses(m, a, act, lanes, "global", "fence.proxy.tensormap")
        for k, address in enumerate(addresses.tolist()):
            lane = int(lanes[k])
            tmap = state.maps.get(address)
            version = -1
            if tmap is not None and tmap.released:
                seen = m.order.ordered(
                    np.array([tmap.released_by]), np.array([tmap.released_at]), np.array([lane])
                )
                if seen[0]:
                    version = tmap.version
            state.acquired[(lane, address)] = version

    return run


def _release_fence(m: Machine, act: np.ndarray) -> None:
    state = _state(m)
    lanes = lanes_of(act)
    mine = set(lanes.tolist())
    for tmap in state.maps.values():
        if not tmap.shared and not tmap.released and tmap.modified_by in mine:
            tmap.released = True
            tmap.released_by = tmap.modified_by
            tmap.released_at = int(m.order.now(np.array([tmap.modified_by]))[0])
    m.order.tick(lanes)


# ------------------------------------------------------------------------ prefetch


@decoder("prefetch")
def decode_prefetch(ins: Instruction) -> Exec:
    mods = Mods(ins)
    mods.one_of(("global", "const", "param"))
    if not mods.flag("tensormap"):
        raise unsupported(ins, "prefetch other than prefetch.tensormap")
    mods.done()
    (a,) = operands(ins, 1)
    if not isinstance(a, Mem):
        raise invalid(ins, f"a tensor-map address operand, got {a}")
    return lambda m, act: None


@decoder("createpolicy")
def decode_createpolicy(ins: Instruction) -> Exec:
    """``createpolicy.fractional.L2::primary{.L2::secondary}.b64 policy{, fraction}``: an
    opaque cache policy for ``.L2::cache_hint`` operands, which have no effect here
    (the simulator writes 0)."""
    mods = Mods(ins)
    if not mods.flag("fractional"):
        raise unsupported(ins, "createpolicy other than .fractional")
    evictions = [x for x in mods.rest if x.startswith("L2::evict_")]
    if not 1 <= len(evictions) <= 2:
        raise invalid(ins, "createpolicy.fractional needs an L2 eviction priority")
    for x in evictions:
        mods.flag(x)
    if mods.type("b") != TYPES["b64"]:
        raise invalid(ins, "createpolicy is .b64")
    mods.done()
    if not 1 <= len(ins.operands) <= 2:
        raise invalid(ins, "createpolicy.fractional takes a destination and a fraction")
    d = ins.operands[0]
    return lambda m, act: m.write_bits(d, np.zeros(m.count, dtype=np.uint64), TYPES["b64"], act)


# ------------------------------------------------------------- cp.async.bulk.tensor


@dataclass(frozen=True)
class _Box:
    """A tensor map's fields, checked, for one copy."""

    rank: int
    address: int
    dims: tuple[int, ...]
    strides: tuple[int, ...]  # bytes, dimension 1..rank-1
    box: tuple[int, ...]
    traversal: tuple[int, ...]
    size: int
    floating: bool
    swizzle: int
    nan_fill: bool

    @property
    def counts(self) -> tuple[int, ...]:
        """Elements of the box in shared memory, per dimension."""
        return tuple(-(-b // e) for b, e in zip(self.box, self.traversal, strict=True))

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.counts)) * self.size


def decode_bulk_tensor(ins: Instruction, mods: Mods) -> Exec:
    """``cp.async.bulk.tensor`` (``ptx_async``'s decoder hands it here, ``async``,
    ``bulk`` and ``tensor`` consumed)."""
    dims = [d for d in mods.rest if d in ("1d", "2d", "3d", "4d", "5d")]
    if len(dims) != 1:
        raise invalid(ins, "cp.async.bulk.tensor needs one of .1d .. .5d")
    mods.flag(dims[0])
    rank = int(dims[0][0])
    if mods.flag("multicast::cluster"):
        raise unsupported(ins, "multicast tensor copies (clusters)")
    mode = mods.one_of(("tile", "im2col", "im2col::w", "im2col::w::128", "tile::gather4"))
    if mode not in (None, "tile"):
        raise unsupported(ins, f"the .{mode} load mode")
    spaces = [x for x in ins.modifiers if x in ("global", "shared::cluster", "shared::cta")]
    for space in spaces:
        mods.flag(space)
    store = spaces == ["global", "shared::cta"]
    if store:
        if not mods.flag("bulk_group"):
            raise invalid(ins, "a tensor store (.global.shared::cta) completes in a bulk group")
    elif len(spaces) == 2 and spaces[1] == "global":
        if not mods.flag("mbarrier::complete_tx::bytes"):
            raise invalid(ins, "cp.async.bulk.tensor to shared memory completes on an mbarrier")
    else:
        raise invalid(
            ins, "cp.async.bulk.tensor copies .global to .shared, .shared::cta to .global"
        )
    hint = mods.flag("L2::cache_hint")
    cta_group = mods.one_of(("cta_group::1", "cta_group::2"))
    if cta_group == "cta_group::2":
        raise unsupported(ins, "cta_group::2 (CTA pairs)")
    mods.done()
    ops = list(ins.operands)
    if hint:
        ops = ops[:-1]
    if store:
        if len(ops) != 2:
            raise invalid(ins, "a tensor store takes [map, {coordinates}], [src]")
        ops = [ops[1], ops[0], ops[1]]  # the shared operand first, as a load's
    if len(ops) != 3:
        raise invalid(ins, "cp.async.bulk.tensor takes [dst], [map, {coordinates}], [mbar]")
    d, ref, b = ops
    if not isinstance(d, Mem) or not isinstance(b, Mem):
        raise invalid(ins, "cp.async.bulk.tensor's shared and mbarrier operands are addresses")
    if (
        not isinstance(ref, Vec)
        or len(ref.items) != 2
        or not isinstance(ref.items[0], Mem)
        or not isinstance(ref.items[1], Vec)
    ):
        raise invalid(ins, f"cp.async.bulk.tensor's tensor is [map, {{coordinates}}], got {ref}")
    tensor = ref.items[0]
    coordinates = ref.items[1].items
    if len(coordinates) != rank:
        raise invalid(ins, f"{len(coordinates)} coordinates for a .{rank}d copy")
    if store:
        return _decode_store(ins.text, d, tensor, coordinates, rank)
    text = ins.text

    def run(m: Machine, act: np.ndarray) -> None:
        from tileir.testing.ptx_ops import _addresses  # pyright: ignore[reportPrivateUsage]

        state = _state(m)
        lanes = lanes_of(act)
        dst = _addresses(m, d, act, lanes, "shared").astype(np.int64)
        maps = _addresses(m, tensor, act, lanes).astype(np.int64)
        coords = np.stack([_s32(m, c, act, lanes) for c in coordinates], axis=1)
        bars = mbarrier_addresses(m, b, act, lanes)
        for k in range(len(lanes)):
            lane = int(lanes[k])
            tmap = _usable_map(m, state, int(maps[k]), lane, rank)
            box = _check_box(m, tmap, lane)
            shared_destination(m, dst[k : k + 1], box.nbytes, lanes[k : k + 1], 128, text)
            data = _gather(m, box, coords[k], lane, int(dst[k]))
            bar = lookup(m, int(bars[k]), lane)
            copy = issue(m, text, lanes[k : k + 1], dst[k : k + 1], data[None, :])
            tmap.copies.append(copy)
            bar.transfers.append(copy)
            settle(m, bar)
        changed(m)

    return run


def _s32(m: Machine, op: Operand, act: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    return m.read(op, TYPES["s32"], act)[lanes].astype(np.int64)


def _usable_map(m: Machine, state: _Tma, address: int, lane: int, rank: int) -> TensorMap:
    tmap = state.maps.get(address)
    if tmap is None or tmap.shared:
        raise m.fail(
            "cp.async.bulk.tensor through an address that holds no tensor map built on the "
            "device (tensormap.replace in shared memory, tensormap.cp_fenceproxy to global "
            "memory; maps in .param/.const are not modelled)",
            lane,
            address,
        )
    if not tmap.released:
        raise m.fail(
            "cp.async.bulk.tensor through a tensor map modified with the generic proxy and not "
            "released to the tensormap proxy since (tensormap.cp_fenceproxy, or "
            "fence.proxy.tensormap::generic.release after tensormap.replace.global / stores)",
            lane,
            address,
            kind=RACE,
        )
    if state.acquired.get((lane, address)) != tmap.version:
        raise m.fail(
            "cp.async.bulk.tensor through a tensor map this thread has not acquired since its "
            f"last release by {m.threads.describe(tmap.released_by)} "
            "(fence.proxy.tensormap::generic.acquire [map], 128, ordered after the release)",
            lane,
            address,
            kind=RACE,
        )
    missing = _missing(tmap, rank)
    if missing:
        raise m.fail(
            f"cp.async.bulk.tensor through a tensor map whose {missing} was never written by "
            "tensormap.replace (since the map's bytes were last written otherwise)",
            lane,
            address,
        )
    if tmap.fields[("rank", 0)] + 1 != rank:
        raise m.fail(
            f"a .{rank}d copy through a tensor map of rank {tmap.fields[('rank', 0)] + 1}",
            lane,
            address,
        )
    return tmap


def _missing(tmap: TensorMap, rank: int) -> str | None:
    fields = tmap.fields
    if ("rank", 0) not in fields:
        return "rank"
    rank = min(rank, fields[("rank", 0)] + 1)
    need = [("global_address", 0), ("elemtype", 0), ("interleave_layout", 0)]
    need += [("swizzle_mode", 0), ("fill_mode", 0)]
    for name in ("box_dim", "global_dim", "element_stride"):
        need += [(name, i) for i in range(rank)]
    need += [("global_stride", i) for i in range(rank - 1)]
    for key in need:
        if key not in fields:
            return f"{key[0]}" + (f" (ord {key[1]})" if key[0] in _FIELDS2 else "")
    return None


def _check_box(m: Machine, tmap: TensorMap, lane: int) -> _Box:
    f = tmap.fields
    rank = f[("rank", 0)] + 1

    def bad(what: str, kind: str = INVALID):
        return m.fail(f"tensor map: {what}", lane, tmap.address, kind=kind)

    kind = f[("elemtype", 0)]
    if kind not in _ELEMTYPES:
        raise bad(
            f"elemtype {kind} (a type that rounds, flushes or packs) is not modelled",
            kind="unsupported",
        )
    _, size, floating = _ELEMTYPES[kind]
    if f[("interleave_layout", 0)] != 0:
        raise bad("interleaved layouts are not modelled", kind="unsupported")
    if f.get(("swizzle_atomicity", 0), 0) != 0:
        raise bad("swizzle atomicities other than 16 bytes are not modelled", kind="unsupported")
    mode = f[("swizzle_mode", 0)]
    if mode not in _SWIZZLES:
        raise bad("the 96-byte swizzle is not modelled", kind="unsupported")
    swizzle = _SWIZZLES[mode]
    nan_fill = f[("fill_mode", 0)] == 1
    if nan_fill and not floating:
        raise bad("the OOB-NaN fill mode needs a floating-point element type")
    address = f[("global_address", 0)]
    if address % 16:
        raise bad(f"global_address 0x{address:x} is not 16-byte aligned", kind=MISALIGNED)
    if not 1 <= rank <= 5:
        raise bad(f"rank {rank} (1 .. 5)")
    dims = tuple(f[("global_dim", i)] for i in range(rank))
    strides = tuple(f[("global_stride", i)] for i in range(rank - 1))
    box = tuple(f[("box_dim", i)] for i in range(rank))
    traversal = tuple(f[("element_stride", i)] for i in range(rank))
    for i, n in enumerate(dims):
        if not 1 <= n <= 1 << 32:
            raise bad(f"global_dim ord {i} = {n} (1 .. 2^32)")
    for i, s in enumerate(strides):
        if s % 16 or not 0 < s < 1 << 40:
            raise bad(f"global_stride ord {i} = {s} (a positive multiple of 16 below 2^40)")
    for i, n in enumerate(box):
        if not 1 <= n <= 256:
            raise bad(f"box_dim ord {i} = {n} (1 .. 256)")
    for i, e in enumerate(traversal):
        if not 1 <= e <= 8:
            raise bad(f"element_stride ord {i} = {e} (1 .. 8)")
    if traversal[0] != 1:
        raise bad("element_stride ord 0 must be 1 without an interleaved layout")
    row = box[0] * size
    if row % 16:
        raise bad(f"the box's inner dimension is {row} bytes, not a multiple of 16")
    if swizzle and row > swizzle:
        raise bad(f"the box's inner dimension is {row} bytes, more than the {swizzle}-byte swizzle")
    # (A row narrower than the swizzle lands as any other: the box dense, its 16-byte
    # chunks swizzled by their shared address, as CuTe models TMA; no GPU has confirmed
    # it here, docs/performance.md, "The TMA feeds' checklist".)
    return _Box(rank, address, dims, strides, box, traversal, size, floating, swizzle, nan_fill)


def _elements(box: _Box, origin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per element of the box, in shared-memory order (dimension 0 fastest): whether it
    lies inside the tensor, and its global address."""
    counts = box.counts
    grid = np.indices(counts[::-1]).reshape(len(counts), -1)[::-1]
    coords = origin[:, None] + grid * np.array(box.traversal)[:, None]
    inside = np.ones(grid.shape[1], dtype=bool)
    for i, n in enumerate(box.dims):
        inside &= (coords[i] >= 0) & (coords[i] < n)
    offsets = coords[0] * box.size
    for i, s in enumerate(box.strides):
        offsets = offsets + coords[i + 1] * s
    return inside, (box.address + offsets).astype(np.int64)


def _swizzled(positions: np.ndarray, swizzle: int) -> np.ndarray:
    """Shared addresses as a ``swizzle``-byte swizzle moves them: the 16-byte chunk
    within a 128-byte line XORed with address bits 7.. (an involution)."""
    if not swizzle:
        return positions
    return positions ^ ((positions >> 3) & ((swizzle // 16 - 1) << 4))


def _gather(m: Machine, box: _Box, origin: np.ndarray, lane: int, dst: int) -> np.ndarray:
    """The box's bytes as they land in shared memory at ``dst`` (swizzled)."""
    inside, addresses = _elements(box, origin)
    elements = np.zeros((len(inside), box.size), dtype=np.uint8)
    if box.nan_fill:
        elements[:] = 0xFF
    if inside.any():
        where = addresses[inside]
        check_access(m, where, box.size, np.full(len(where), lane), "cp.async.bulk.tensor element")
        elements[inside] = m.memory.load(where, box.size)
    linear = elements.reshape(-1)
    position = dst + np.arange(len(linear), dtype=np.int64)
    out = np.empty_like(linear)
    out[_swizzled(position, box.swizzle) - dst] = linear
    return out


def _decode_store(
    text: str, s: Mem, tensor: Mem, coordinates: tuple[Operand, ...], rank: int
) -> Exec:
    """``cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group [map, {..}], [src]``: the
    box's in-bounds elements are written from shared memory (read through the async
    proxy, unswizzled), completing in the thread's bulk group (``ptx_async``)."""

    def run(m: Machine, act: np.ndarray) -> None:
        from tileir.testing import ptx_async
        from tileir.testing.ptx_ops import _addresses  # pyright: ignore[reportPrivateUsage]

        state = _state(m)
        groups = ptx_async._state(m)  # pyright: ignore[reportPrivateUsage]
        memory = m.memory
        assert memory.async_reads is not None
        lanes = lanes_of(act)
        src = _addresses(m, s, act, lanes, "shared").astype(np.int64)
        maps = _addresses(m, tensor, act, lanes).astype(np.int64)
        coords = np.stack([_s32(m, c, act, lanes) for c in coordinates], axis=1)
        for k, lane in enumerate(lanes.tolist()):
            tmap = _usable_map(m, state, int(maps[k]), lane, rank)
            box = _check_box(m, tmap, lane)
            shared_destination(m, src[k : k + 1], box.nbytes, lanes[k : k + 1], 128, text)
            inside, addresses = _elements(box, coords[k])
            starts = src[k] + np.arange(len(inside), dtype=np.int64) * box.size
            positions = _swizzled(starts, box.swizzle)
            source = (positions[:, None] + np.arange(box.size)).reshape(-1)
            if m.check_races:
                check_async_read(m, source, lane, "cp.async.bulk.tensor source")
            rows = np.flatnonzero(inside)
            if not len(rows):
                continue
            issuer = np.full(len(rows), lane, dtype=np.int64)
            check_access(m, addresses[rows], box.size, issuer, "cp.async.bulk.tensor element")
            groups.idents += 1
            store = Copy(
                text,
                groups.idents,
                issuer,
                addresses[rows],
                memory.load(positions[rows], box.size),
                m.order.clock[issuer].copy(),
                groups.bulk_committed[issuer].copy(),
                np.ones(len(rows), dtype=bool),
                shared=False,
                reading=[source - memory.BASE],
            )
            memory.async_reads[source - memory.BASE] += 1
            groups.stores.append(store)
            tmap.copies.append(store)

    return run
