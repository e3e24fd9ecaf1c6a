"""The MMA accumulator layout: how `mma.sync` m16n8 results sit in registers.

    #nv_tileas.mma<{warpsPerCTA = [4, 1]}>

The warps of the CTA form a `warpsPerCTA[0] x warpsPerCTA[1]` grid of 16x8 blocks;
within a block, lane `l` holds rows `l/4` and `l/4 + 8`, columns `2(l%4)` and
`2(l%4) + 1` (registers `f = 0..3`: bit 0 steps one column, bit 1 eight rows).  The
grid repeats over the tile, along N first: register `f + 4·(nrep + NR·mrep)` is element
`f` of block `(mrep, nrep)`.  A batched (rank-3) dot's accumulator spells its
warps `[1, wm, wn]`: each thread holds the 2-D layout of every matrix of the batch,
the batch index in the highest register bits (register `r + R·i` of matrix `i` is
register `r` of the 2-D fragment of `R` registers), as the `mma.sync` lowering steps
through the batch.  As for every layout, bases that fall outside the
tile are zero (a tile smaller than the CTA's 16·wm x 8·wn coverage is held by several
warps, and a 1-wide tile, like a row reduction's, by several lanes).

`tileas-assign-layouts` gives this layout to the accumulator and result of a
tensor-core `dot` (`tileir/transforms/tileas/mma_layouts.py`), so that a loop carrying
the accumulator keeps it in the registers `mma.sync` reads and writes.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr
from xdsl.ir import Attribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileir.dialects.nv_tileas.layouts import WARP_SIZE, Coord, DistributedLayout, LinearLayout
from tileir.utils.bits import log2

#: Lanes of one 16x8 accumulator block: bits 0-1 step columns by 2, bits 2-4 rows.
_LANES: tuple[Coord, ...] = ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0))


def mma_warp_grid(m: int, n: int, num_warps: int) -> tuple[int, int]:
    """`(wm, wn)` with `wm · wn = num_warps`: the grid of the most warps (then the
    most along M) whose 16x8 blocks tile an M x N accumulator; warps left over go
    along M, where they hold copies."""
    best = (1, 1)
    wm = num_warps
    while wm >= 1:
        wn = num_warps // wm
        while wn >= 1:
            if m % (16 * wm) == 0 and n % (8 * wn) == 0 and wm * wn > best[0] * best[1]:
                best = (wm, wn)
            wn //= 2
        wm //= 2
    wm, wn = best
    return wm * (num_warps // (wm * wn)), wn


def effective_warps(shape: Sequence[int], wm: int, wn: int) -> tuple[int, int]:
    """How many warps along M and N hold distinct blocks of a tile of `shape`."""
    return max(1, min(wm, shape[0] // 16)), max(1, min(wn, shape[1] // 8))


def mma_linear(shape: Sequence[int], wm: int, wn: int) -> LinearLayout:
    m, n = shape
    em, en = effective_warps(shape, wm, wn)

    def clamp(c: Coord) -> Coord:
        return tuple(x if x < s else 0 for x, s in zip(c, shape, strict=True))

    registers: list[Coord] = [(0, 1), (8, 0)]
    step = 8 * en
    while step < n:
        registers.append((0, step))
        step *= 2
    step = 16 * em
    while step < m:
        registers.append((step, 0))
        step *= 2
    warps = [(16 << i, 0) if i < log2(em) else (0, 0) for i in range(log2(wm))]
    warps += [(0, 8 << j) if j < log2(en) else (0, 0) for j in range(log2(wn))]
    return LinearLayout(
        tuple(shape),
        tuple(clamp(r) for r in registers),
        tuple(clamp(lane) for lane in _LANES),
        tuple(clamp(w) for w in warps),
    )


def batched_fragment(frag: LinearLayout, batch: int) -> LinearLayout:
    """A 2-D fragment layout with a leading batch dimension held in registers."""

    def lift(c: Coord) -> Coord:
        return (0, *c)

    batch_bases = tuple((1 << i, 0, 0) for i in range(log2(batch)))
    return LinearLayout(
        (batch, *frag.shape),
        (*map(lift, frag.registers), *batch_bases),
        tuple(map(lift, frag.lanes)),
        tuple(map(lift, frag.warps)),
    )


@irdl_attr_definition
class MmaLayoutAttr(DistributedLayout):
    """`#nv_tileas.mma<{warpsPerCTA = [wm, wn]}>`: the `mma.sync` accumulator layout."""

    name = "nv_tileas.mma"

    warps_per_cta: ArrayAttr[IntAttr]

    def __init__(self, wm: int, wn: int, batched: bool = False):
        warps = [1, wm, wn] if batched else [wm, wn]
        super().__init__(ArrayAttr([IntAttr(w) for w in warps]))

    @property
    def wm(self) -> int:
        return self.warps_per_cta.data[-2].data

    @property
    def wn(self) -> int:
        return self.warps_per_cta.data[-1].data

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta.data)

    @property
    def num_warps(self) -> int:
        return self.wm * self.wn

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        parser.parse_punctuation("{")
        parser.parse_keyword("warpsPerCTA")
        parser.parse_punctuation("=")
        values = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
        )
        parser.parse_punctuation("}")
        parser.parse_punctuation(">")
        return (ArrayAttr([IntAttr(v) for v in values]),)

    def print_parameters(self, printer: Printer) -> None:
        values = ", ".join(str(v.data) for v in self.warps_per_cta.data)
        printer.print_string(f"<{{warpsPerCTA = [{values}]}}>")

    def verify(self) -> None:
        values = [v.data for v in self.warps_per_cta.data]
        if len(values) not in (2, 3) or (len(values) == 3 and values[0] != 1):
            raise VerifyException(
                f"warpsPerCTA must be [M, N], or [1, M, N] for a batch, got {values}"
            )
        for v in values:
            if v < 1 or v & (v - 1):
                raise VerifyException(f"warpsPerCTA entries must be powers of two, got {values}")
        if values[0] * values[1] * WARP_SIZE > 1024:
            raise VerifyException(f"warpsPerCTA {values} exceeds 32 warps")

    def linear(self, shape: Sequence[int]) -> LinearLayout:
        if len(shape) != self.rank:
            raise ValueError(
                f"the MMA layout is rank {self.rank}, got a tile of shape {list(shape)}"
            )
        if self.rank == 3:
            return batched_fragment(mma_linear(shape[1:], self.wm, self.wn), shape[0])
        return mma_linear(shape, self.wm, self.wn)
