"""Layouts: how the elements of a tile map to (register, lane, warp), and how a
shared-memory tile is arranged.

Two attribute forms print and parse (Triton's spellings):

    #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8],
                         warpsPerCTA = [4, 1], order = [1, 0]}>
    #nv_tileas.slice<{dim = 0, parent = #nv_tileas.blocked<{...}>}>

Every tile dimension is a power of two, so each layout is *linear* over GF(2): an
element's coordinates are the XOR of one basis vector per set bit of the register,
lane and warp indices (`LinearLayout`).  Bases that fall outside the tile are zero,
which is how a tile smaller than the CTA's coverage is replicated; registers wrap
around when the tile is larger.  Codegen reasons only about `LinearLayout`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, IntAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileir.dialects.nv_tileas.attributes import SwizzleMode, SwizzleModeAttr, parse_swizzle
from tileir.utils.bits import log2

WARP_SIZE = 32

Coord = tuple[int, ...]


@dataclass(frozen=True)
class LinearLayout:
    """Bases (one coordinate tuple per index bit) for registers, lanes and warps."""

    shape: tuple[int, ...]
    registers: tuple[Coord, ...]
    lanes: tuple[Coord, ...]
    warps: tuple[Coord, ...]

    @property
    def num_registers(self) -> int:
        return 1 << len(self.registers)

    @property
    def num_warps(self) -> int:
        return 1 << len(self.warps)

    def _apply(self, bases: tuple[Coord, ...], index: int) -> Coord:
        out = [0] * len(self.shape)
        i = 0
        while index:
            if index & 1:
                for d, v in enumerate(bases[i]):
                    out[d] ^= v
            index >>= 1
            i += 1
        return tuple(out)

    def register_coord(self, r: int) -> Coord:
        return self._apply(self.registers, r)

    def lane_coord(self, lane: int) -> Coord:
        return self._apply(self.lanes, lane)

    def warp_coord(self, warp: int) -> Coord:
        return self._apply(self.warps, warp)

    def coord(self, r: int, lane: int, warp: int) -> Coord:
        a, b, c = self.register_coord(r), self.lane_coord(lane), self.warp_coord(warp)
        return tuple(x ^ y ^ z for x, y, z in zip(a, b, c, strict=True))

    def map_coords(self, f: DimMap) -> LinearLayout:
        return LinearLayout(
            f.shape,
            tuple(f(b) for b in self.registers),
            tuple(f(b) for b in self.lanes),
            tuple(f(b) for b in self.warps),
        )

    def vector_elements(self, limit: int) -> int:
        """Elements a thread moves in one access of at most `limit` elements: its
        leading registers where they step along one dimension, else one."""
        first = self.registers[0] if self.registers else None
        if first is None or sum(1 for x in first if x) != 1:
            return 1
        dim = next(i for i, x in enumerate(first) if x)
        return min(limit, self.contiguous_registers(dim))

    def contiguous_registers(self, dim: int) -> int:
        """How many leading registers step by one element along `dim` (the widest
        vector a thread can move at once along that dimension)."""
        n = 1
        for i, basis in enumerate(self.registers):
            expected = tuple((1 << i) if d == dim else 0 for d in range(len(self.shape)))
            if basis != expected:
                break
            n <<= 1
        return n


@dataclass(frozen=True)
class DimMap:
    """A linear map between coordinate spaces, for layouts of derived values."""

    shape: tuple[int, ...]
    perm: tuple[int | None, ...]  # output dim -> input dim (None: constant 0)

    def __call__(self, c: Coord) -> Coord:
        return tuple(0 if p is None else c[p] for p in self.perm)


# ---------------------------------------------------------------------------
# Attributes.
# ---------------------------------------------------------------------------


def _ints(attr: ArrayAttr[IntAttr]) -> tuple[int, ...]:
    return tuple(a.data for a in attr)


def _int_array(values: Sequence[int]) -> ArrayAttr[IntAttr]:
    return ArrayAttr([IntAttr(v) for v in values])


def _parse_int_list(parser: AttrParser) -> list[int]:
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )


def _fmt(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


class DistributedLayout(ParametrizedAttribute):
    """A layout that can tell each thread which elements it holds."""

    def linear(self, shape: Sequence[int]) -> LinearLayout:
        raise NotImplementedError

    @property
    def rank(self) -> int:
        raise NotImplementedError

    @property
    def num_warps(self) -> int:
        raise NotImplementedError


@irdl_attr_definition
class BlockedLayoutAttr(DistributedLayout):
    """Each thread holds `sizePerThread` contiguous elements; `threadsPerWarp` and
    `warpsPerCTA` tile the threads over the tensor; `order` lists dimensions from the
    fastest-varying to the slowest."""

    name = "nv_tileas.blocked"

    size_per_thread: ArrayAttr[IntAttr]
    threads_per_warp: ArrayAttr[IntAttr]
    warps_per_cta: ArrayAttr[IntAttr]
    order: ArrayAttr[IntAttr]

    def __init__(
        self,
        size_per_thread: Sequence[int],
        threads_per_warp: Sequence[int],
        warps_per_cta: Sequence[int],
        order: Sequence[int],
    ):
        super().__init__(
            _int_array(size_per_thread),
            _int_array(threads_per_warp),
            _int_array(warps_per_cta),
            _int_array(order),
        )

    @property
    def spt(self) -> tuple[int, ...]:
        return _ints(self.size_per_thread)

    @property
    def tpw(self) -> tuple[int, ...]:
        return _ints(self.threads_per_warp)

    @property
    def wpc(self) -> tuple[int, ...]:
        return _ints(self.warps_per_cta)

    @property
    def dim_order(self) -> tuple[int, ...]:
        return _ints(self.order)

    @property
    def rank(self) -> int:
        return len(self.size_per_thread)

    @property
    def num_warps(self) -> int:
        n = 1
        for w in self.wpc:
            n *= w
        return n

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        fields: dict[str, list[int]] = {}
        parser.parse_punctuation("<")
        parser.parse_punctuation("{")
        while True:
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            fields[key] = _parse_int_list(parser)
            if not parser.parse_optional_punctuation(","):
                break
        parser.parse_punctuation("}")
        parser.parse_punctuation(">")
        expected = ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order")
        missing = [k for k in expected if k not in fields]
        if missing:
            parser.raise_error(f"blocked layout is missing {', '.join(missing)}")
        return tuple(_int_array(fields[k]) for k in expected)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<{{sizePerThread = {_fmt(self.spt)}, threadsPerWarp = {_fmt(self.tpw)}, "
            f"warpsPerCTA = {_fmt(self.wpc)}, order = {_fmt(self.dim_order)}}}>"
        )

    def verify(self) -> None:
        n = len(self.spt)
        if not (len(self.tpw) == len(self.wpc) == len(self.dim_order) == n):
            raise VerifyException("blocked layout fields must all have the tile's rank")
        if sorted(self.dim_order) != list(range(n)):
            raise VerifyException(
                f"order must be a permutation of [0, {n}), got {_fmt(self.dim_order)}"
            )
        lanes = 1
        for t in self.tpw:
            lanes *= t
        if lanes != WARP_SIZE:
            raise VerifyException(f"threadsPerWarp must multiply to {WARP_SIZE}, got {lanes}")
        for v in (*self.spt, *self.tpw, *self.wpc):
            if v <= 0 or v & (v - 1):
                raise VerifyException("blocked layout extents must be powers of two")

    def linear(self, shape: Sequence[int]) -> LinearLayout:
        shape = tuple(shape)
        rank = len(shape)
        assert rank == self.rank, (shape, self)

        def basis(d: int, step: int) -> Coord:
            return tuple((step if step < shape[d] else 0) if i == d else 0 for i in range(rank))

        regs: list[Coord] = []
        lanes: list[Coord] = []
        warps: list[Coord] = []
        covered = [1] * rank
        for d in self.dim_order:
            for _ in range(log2(self.spt[d])):
                regs.append(basis(d, covered[d]))
                covered[d] <<= 1
        for d in self.dim_order:
            for _ in range(log2(self.tpw[d])):
                lanes.append(basis(d, covered[d]))
                covered[d] <<= 1
        for d in self.dim_order:
            for _ in range(log2(self.wpc[d])):
                warps.append(basis(d, covered[d]))
                covered[d] <<= 1
        # Registers wrap around to cover the rest of the tile.
        for d in self.dim_order:
            while covered[d] < shape[d]:
                regs.append(basis(d, covered[d]))
                covered[d] <<= 1
        return LinearLayout(shape, tuple(regs), tuple(lanes), tuple(warps))


@irdl_attr_definition
class SliceLayoutAttr(DistributedLayout):
    """The layout of a tile that is `parent` with dimension `dim` removed: thread t
    holds the elements whose coordinates, with `dim` set to 0, it holds in `parent`.
    Expanding it at `dim` and broadcasting gives back `parent` without moving data."""

    name = "nv_tileas.slice"

    dim: IntAttr
    parent: DistributedLayout

    def __init__(self, dim: int, parent: DistributedLayout):
        super().__init__(IntAttr(dim), parent)

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    @property
    def num_warps(self) -> int:
        return self.parent.num_warps

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        parser.parse_punctuation("{")
        parser.parse_keyword("dim")
        parser.parse_punctuation("=")
        dim = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(",")
        parser.parse_keyword("parent")
        parser.parse_punctuation("=")
        pos = parser.pos
        parent = parser.parse_attribute()
        if not isinstance(parent, DistributedLayout):
            parser.raise_error("slice parent must be a distributed layout", pos, parser.pos)
        parser.parse_punctuation("}")
        parser.parse_punctuation(">")
        return (IntAttr(dim), parent)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{{dim = {self.dim.data}, parent = ")
        printer.print_attribute(self.parent)
        printer.print_string("}>")

    def verify(self) -> None:
        if not 0 <= self.dim.data < self.parent.rank:
            raise VerifyException(
                f"slice dim {self.dim.data} out of range for a parent of rank {self.parent.rank}"
            )

    def linear(self, shape: Sequence[int]) -> LinearLayout:
        d = self.dim.data
        parent_shape = list(shape)
        parent_shape.insert(d, 1)
        parent = self.parent.linear(parent_shape)
        drop = DimMap(tuple(shape), tuple(i if i < d else i + 1 for i in range(len(shape))))
        return parent.map_coords(drop)


@irdl_attr_definition
class SharedLayoutAttr(ParametrizedAttribute):
    """`#nv_tileas.shared<{swizzle = 128B, order = [1, 0]}>`: how a shared-memory tile
    is laid out.  `order` lists dimensions from the fastest-varying to the slowest;
    `swizzle` XORs 16-byte chunks within a span of that many bytes (none, 32B, 64B,
    128B), as TMA and wgmma expect.  A shared view without a layout is dense and
    row-major, without swizzle."""

    name = "nv_tileas.shared"

    swizzle: SwizzleModeAttr
    order: ArrayAttr[IntAttr]

    def __init__(self, swizzle: SwizzleMode, order: Sequence[int]):
        super().__init__(SwizzleModeAttr(swizzle), _int_array(order))

    @property
    def dim_order(self) -> tuple[int, ...]:
        return _ints(self.order)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        parser.parse_punctuation("{")
        parser.parse_keyword("swizzle")
        parser.parse_punctuation("=")
        swizzle = parse_swizzle(parser)
        parser.parse_punctuation(",")
        parser.parse_keyword("order")
        parser.parse_punctuation("=")
        order = _parse_int_list(parser)
        parser.parse_punctuation("}")
        parser.parse_punctuation(">")
        return (SwizzleModeAttr(swizzle), _int_array(order))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<{{swizzle = {self.swizzle.data.value}, order = {_fmt(self.dim_order)}}}>"
        )

    def verify(self) -> None:
        n = len(self.dim_order)
        if sorted(self.dim_order) != list(range(n)):
            raise VerifyException(
                f"order must be a permutation of [0, {n}), got {_fmt(self.dim_order)}"
            )


def tma_incompatibility(
    layout: Attribute | None, shape: Sequence[int], element_bits: int
) -> str | None:
    """Why a shared-memory tile of `shape` with `layout` cannot be a TMA box, or None.

    TMA writes (and reads) a box row-major, the innermost extent a whole number of
    16-byte chunks, and with a swizzle the innermost extent must fit in the swizzle
    span (cuTensorMapEncodeTiled's rules).  Register (distributed) layouts are never
    TMA-compatible."""
    rank = len(shape)
    swizzle = SwizzleMode.NONE
    if isinstance(layout, DistributedLayout):
        return "a distributed (register) layout"
    if isinstance(layout, SharedLayoutAttr):
        if layout.dim_order != tuple(reversed(range(rank))):
            return f"order {_fmt(layout.dim_order)} is not row-major"
        swizzle = layout.swizzle.data
    elif layout is not None:
        return f"layout {layout} is not a shared layout"
    if not shape or shape[-1] < 0:
        return None
    inner_bytes = shape[-1] * element_bits // 8
    if inner_bytes % 16:
        return f"the innermost extent is {inner_bytes} bytes, not a multiple of 16"
    if swizzle is not SwizzleMode.NONE and inner_bytes > swizzle.bytes:
        return (
            f"the innermost extent ({inner_bytes} bytes) exceeds the {swizzle.value} swizzle span"
        )
    return None


LAYOUTS: list[type[Attribute]] = [BlockedLayoutAttr, SliceLayoutAttr, SharedLayoutAttr]


def default_blocked(
    shape: Sequence[int],
    num_warps: int,
    vector: int,
    order: Sequence[int] | None = None,
    size_per_thread: Sequence[int] | None = None,
) -> BlockedLayoutAttr:
    """A coalesced blocked layout: `vector` contiguous elements per thread along the
    fastest dimension (or `size_per_thread` elements along each dimension), lanes then
    warps filling that dimension first."""
    rank = len(shape)
    order = tuple(order) if order is not None else tuple(reversed(range(rank)))
    spt = [1] * rank
    tpw = [1] * rank
    wpc = [1] * rank
    fastest = order[0]
    spt[fastest] = max(1, min(vector, shape[fastest]))
    if size_per_thread is not None:
        spt = [max(1, min(n, s)) for n, s in zip(size_per_thread, shape, strict=True)]
    lanes_left = WARP_SIZE
    for d in order:
        room = max(1, shape[d] // spt[d])
        take = min(lanes_left, room)
        tpw[d] = take
        lanes_left //= take
    tpw[order[-1]] *= lanes_left
    warps_left = num_warps
    for d in order:
        room = max(1, shape[d] // (spt[d] * tpw[d]))
        take = min(warps_left, room)
        wpc[d] = take
        warps_left //= take
    wpc[order[-1]] *= warps_left
    return BlockedLayoutAttr(spt, tpw, wpc, order)


def row_major_strides(shape: Sequence[int], size: int = 1) -> list[int]:
    """Strides (in units of `size`) of a dense row-major tile of `shape`."""
    strides = [0] * len(shape)
    stride = size
    for d in reversed(range(len(shape))):
        strides[d] = stride
        stride *= shape[d]
    return strides


def _linear(coord: Sequence[int], strides: Sequence[int]) -> int:
    return sum(x * s for x, s in zip(coord, strides, strict=True))


def reshaped_linear(layout: LinearLayout, shape: tuple[int, ...]) -> LinearLayout | None:
    """`layout` (of a tile of power-of-two extents) seen through a reshape to `shape`:
    each basis goes to the element of the same row-major linear index (the bits of the
    index are fields of the coordinates on both sides, so the map is linear).  None for
    other extents."""
    if any(n & (n - 1) for n in (*layout.shape, *shape)):
        return None
    src_strides = row_major_strides(layout.shape)
    dst_strides = row_major_strides(shape)

    def move(c: Coord) -> Coord:
        index = _linear(c, src_strides)
        return tuple((index // s) % n for s, n in zip(dst_strides, shape, strict=True))

    return LinearLayout(
        tuple(shape),
        tuple(move(c) for c in layout.registers),
        tuple(move(c) for c in layout.lanes),
        tuple(move(c) for c in layout.warps),
    )


def same_registers(src: LinearLayout, dst: LinearLayout) -> bool:
    """Whether every thread holds, in each register, the element of the same linear
    index under both layouts (a reshape is then a renaming of registers): `src` seen
    through the reshape is `dst`."""
    return reshaped_linear(src, dst.shape) == dst


def uniform_groups(layout: LinearLayout, vec: int, runs: tuple[int, ...] | None) -> bool:
    """Whether each group of `vec` contiguous registers of `layout` lies in one run of a
    mask constant in aligned `runs` (per dimension): the groups run along one dimension
    and start at multiples of `vec` there (every other register, lane and warp basis
    moves by a multiple of `vec` along it), and the mask's runs there are a multiple of
    `vec`.  A row of an extent `assume div_by<16>` promises, masked by `col < extent -
    start` in vectors of 8, is such a mask: each vector is wholly in bounds or out."""
    if runs is None or vec == 1 or not layout.registers:
        return False
    dim = next(i for i, x in enumerate(layout.registers[0]) if x)
    if runs[dim] % vec:
        return False
    k = vec.bit_length() - 1
    others = (*layout.registers[k:], *layout.lanes, *layout.warps)
    return all(basis[dim] % vec == 0 for basis in others)
