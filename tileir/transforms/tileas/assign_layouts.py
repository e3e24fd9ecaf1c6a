"""`tileas-assign-layouts`: give every tile-valued SSA value a concrete distribution.

Tiled loads and stores anchor the choice: each wants a coalesced blocked layout whose
threads hold as many contiguous elements as its atom moves (`ldg_128b` on f32: four
per thread along the contiguous dimension).  One layout per tile rank is chosen from
its anchors (the widest vector wins), then propagated

* backward, from results to operands: elementwise ops and `addptr` want their
  operands in the result's layout, `broadcast` its source too, and `expand_dims`
  wants its source in the *slice* of the result's layout, so that expanding and
  broadcasting never move data between threads;
* forward, from operands to results, for values no anchor reaches.

Where two requirements disagree, a value that is cheap to recompute (an `iota`, a
constant, a splat, and shape or elementwise ops over those: index math, typically)
is *rematerialized* in the layout the use wants, as Triton does; anything else gets a
`nv_tileas.convert_layout` at the use.  (A square tile's row and column indices are
the same `iota` after CSE, but must be sliced along different dimensions.)  Values
nothing constrains get their rank's layout, and a tile (anchor or not) on which that
layout would make threads hold copies gets one fitted to its shape (`fitted_layout`).
The number of warps (`num-warps`, default 4) shrinks for small tiles so threads do not
hold copies; the choice is recorded on the kernel as `nv_tileas.num_warps`.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import (
    IntegerAttr,
    LocationAttr,
    ModuleOp,
    NoneAttr,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.analysis.axis_info import AxisInfoAnalysis, element_bytes
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import AtomAttr, copy_atom
from tileir.dialects.nv_tileas.layouts import (
    WARP_SIZE,
    BlockedLayoutAttr,
    DistributedLayout,
    LinearLayout,
    SliceLayoutAttr,
    default_blocked,
    reshaped_linear,
)
from tileir.transforms.tileas.gather_operands import gathered_operand
from tileir.transforms.tileas.mma_layouts import runs_on_tensor_cores, tensor_core_dots
from tileir.transforms.tileas.occupancy import fit_occupancy, loop_dot_warps

NUM_WARPS_ATTR = "nv_tileas.num_warps"


def is_tile(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType)


@dataclass
class Anchor:
    value: SSAValue
    pointers: SSAValue
    vector: int
    order: tuple[int, ...]


@dataclass
class LayoutAssignment:
    num_warps: int
    layouts: dict[SSAValue, DistributedLayout] = field(default_factory=dict)
    conversions: list[tuple[Operation, int, DistributedLayout]] = field(default_factory=list)
    #: Tiles cut only into `extract_slice`s, converted once, where they are made, into
    #: the layout of their slices (`gathered_slices`), instead of once for each slice.
    slice_conversions: list[tuple[list[tas.ExtractSliceOp], DistributedLayout]] = field(
        default_factory=list
    )
    worklist: deque[SSAValue] = field(default_factory=deque)

    def require(
        self, value: SSAValue, layout: DistributedLayout, use: tuple[Operation, int] | None
    ) -> None:
        if not is_tile(value):
            return
        current = self.layouts.get(value)
        if current is None:
            self.layouts[value] = layout
            self.worklist.append(value)
        elif current != layout and use is not None:
            self.conversions.append((use[0], use[1], layout))


def anchors_of(fn: func.FuncOp, analysis: AxisInfoAnalysis) -> list[Anchor]:
    """Tiled loads and stores, with the vector width their atom moves and the order
    of their dimensions (most contiguous first, from the axis analysis)."""
    out: list[Anchor] = []
    for op in fn.walk():
        if isinstance(op, tas.TiledLoadOp | tas.TiledStoreOp):
            view = op.view.owner
            if not isinstance(view, tas.ViewOp):
                continue
            pointers = view.src
            shape = shape_of(pointers.type)
            rank = len(shape)
            contiguity = analysis.get(pointers).contiguity
            order = tuple(sorted(range(rank), key=lambda d: (-contiguity[d], -d)))
            value = op.result if isinstance(op, tas.TiledLoadOp) else op.value
            bits = 8 * element_bytes(element_type(value.type))
            vector = max(1, op.atom.info.bits // bits)
            vector = min(vector, shape[order[0]]) if rank else 1
            out.append(Anchor(value, pointers, vector, order))
    return out


def operand_reshapes(value: SSAValue) -> list[Operation] | None:
    """The reshapes (value views) and permutes (`shuffle`s) through which `value`
    reaches its users, each after the op that produces its source, when every user at
    the end of them is the A or B operand of a dot, or a scale of a block-scaled one
    (None otherwise): a dot writes its operands into shared memory in its own
    arrangement, so the layout of the tile on the way there is free, and the load can
    take the coalesced one (`chain_layouts` relabels it along the way).  An `xori` on
    the way counts as a reshape (NVFP4's B, its scales' signs folded into its bytes:
    `scaled_mma._fold_scale_signs`): the mask follows the bytes' layout, not the bytes
    the mask's."""
    ops: list[Operation] = []
    uses = list(value.uses)
    if not uses:
        return None
    for use in uses:
        user = use.operation
        if (isinstance(user, tas.ViewOp) and user.is_value_view and not user.indices) or isinstance(
            user, tas.ShuffleOp | ct.XOrIOp
        ):
            more = operand_reshapes(user.result)
            if more is None:
                return None
            ops += [user, *more]
        elif not (isinstance(user, aa.DotOp | tas.DotOp) and use.index in (0, 1, 3, 4)):
            return None
    return ops


#: The highest rank `blocked_spelling` tries every dimension order of.
MAX_SPELLED_RANK = 6


def blocked_spelling(target: LinearLayout) -> BlockedLayoutAttr | None:
    """A blocked layout whose linear form is `target`, if one is: for each order of the
    dimensions, the leading registers, then the lanes and the warps, taken dimension by
    dimension as `BlockedLayoutAttr.linear` lays them out, and the result checked (the
    order in which the dimensions first step tried first)."""
    shape = target.shape
    rank = len(shape)
    if not rank or rank > MAX_SPELLED_RANK:
        return None

    def basis(d: int, step: int) -> tuple[int, ...]:
        return tuple((step if step < shape[d] else 0) if i == d else 0 for i in range(rank))

    every = (*target.registers, *target.lanes, *target.warps)
    first = {
        d: min((i for i, b in enumerate(every) if b[d]), default=len(every)) for d in range(rank)
    }
    natural = tuple(sorted(range(rank), key=lambda d: (first[d], -d)))
    for order in (natural, *itertools.permutations(range(rank))):
        covered = [1] * rank
        counts: list[list[int]] = []
        for bases in (target.registers, target.lanes, target.warps):
            count = [1] * rank
            i = 0
            for d in order:
                while i < len(bases) and bases[i] == basis(d, covered[d]):
                    count[d] *= 2
                    covered[d] <<= 1
                    i += 1
            if bases is not target.registers and i != len(bases):
                break
            counts.append(count)
        if len(counts) != 3 or math.prod(counts[1]) != WARP_SIZE:
            continue
        candidate = BlockedLayoutAttr(counts[0], counts[1], counts[2], list(order))
        if candidate.linear(list(shape)) == target:
            return candidate
    return None


def permuted_layout(layout: BlockedLayoutAttr, perm: tuple[int, ...]) -> BlockedLayoutAttr:
    """`layout` with its dimensions relabelled as a permute's result (result dimension
    `i` is source dimension `perm[i]`): every thread holds the elements it held, in the
    same registers."""
    where = {d: i for i, d in enumerate(perm)}
    return BlockedLayoutAttr(
        [layout.spt[d] for d in perm],
        [layout.tpw[d] for d in perm],
        [layout.wpc[d] for d in perm],
        [where[d] for d in layout.dim_order],
    )


def chain_layouts(
    value: SSAValue, layout: BlockedLayoutAttr, ops: list[Operation]
) -> list[tuple[SSAValue, BlockedLayoutAttr]]:
    """Layouts for the results of `operand_reshapes(value)` (`ops`) in which each
    reshape and permute is a renaming of registers, given `value`'s `layout`: a
    permute's result is the source's layout relabelled, a reshape's the source's seen
    through it, where a blocked layout spells it (the dot takes any).  An `xori` keeps
    its operand's layout (its result gets it by propagation); a result no blocked layout
    spells is left to propagation, and the ops after it with it."""
    known: dict[SSAValue, BlockedLayoutAttr] = {value: layout}
    out: list[tuple[SSAValue, BlockedLayoutAttr]] = []
    for op in ops:
        if isinstance(op, ct.XOrIOp):
            held = next((known[o] for o in op.operands if o in known), None)
            if held is not None:
                known[op.result] = held
            continue
        assert isinstance(op, tas.ViewOp | tas.ShuffleOp)
        src = known.get(op.src)
        if src is None:
            continue
        if isinstance(op, tas.ShuffleOp):
            result = permuted_layout(src, op.perm)
        else:
            result = renamed_layout(src, op)
            if result is None:
                shape = tuple(shape_of(op.src.type))
                seen = reshaped_linear(src.linear(list(shape)), tuple(shape_of(op.result.type)))
                result = blocked_spelling(seen) if seen is not None else None
        if result is not None:
            known[op.result] = result
            out.append((op.result, result))
    return out


def renamed_reshape_results(
    fn: func.FuncOp,
    state: LayoutAssignment,
    propagate: Callable[[func.FuncOp, LayoutAssignment], None],
) -> None:
    """A reshape (value view) of a source laid out blocked whose result nothing has
    constrained and is only reduced (by reduces not laid out yet: a reduce takes its
    operands in any layout, and an `iota` beside is recomputed in it) gives its result
    the source's layout seen through it, where a blocked layout spells that: the
    reshape is then a renaming of registers, where the default layout of the result's
    rank would exchange the whole tile through shared memory.
    cuTile's `argmax(x, axis=None)` reshapes a 512x128 f32 tile to 65536 and reduces it
    with an `iota` (which then takes that layout too): exchanged, 256 KiB, more shared
    memory than any CTA has.  Repeated while a result gained a layout (chains)."""
    changed = True
    while changed:
        changed = False
        for op in fn.walk():
            if not (isinstance(op, tas.ViewOp) and op.is_value_view and not op.indices):
                continue
            src = state.layouts.get(op.src)
            if op.result in state.layouts or not isinstance(src, BlockedLayoutAttr):
                continue
            users = [u.operation for u in op.result.uses]
            if not users or any(
                not isinstance(u, tas.ReduceOp) or any(r in state.layouts for r in u.results)
                for u in users
            ):
                continue
            renamed = chain_layouts(op.src, src, [op])
            if renamed:
                for result, layout in renamed:
                    state.require(result, layout, None)
                propagate(fn, state)
                changed = True


def slice_users(value: SSAValue) -> tuple[list[tas.ExtractSliceOp], tuple[int, ...]] | None:
    """The `extract_slice`s of `value` and their one shape, when they are all its users
    and cut it into blocks of one shape smaller than it (None otherwise): `mmaf_scaled`'s
    K groups of a loaded fp8 tile (`scaled_mma.py`)."""
    slices: list[tas.ExtractSliceOp] = []
    shapes: set[tuple[int, ...]] = set()
    for use in value.uses:
        user = use.operation
        if not isinstance(user, tas.ExtractSliceOp) or use.index != 0:
            return None
        slices.append(user)
        shapes.add(tuple(shape_of(user.result.type)))
    if len(shapes) != 1:
        return None
    (shape,) = shapes
    if shape == tuple(shape_of(value.type)):
        return None
    return slices, shape


def sliced_reshapes(
    value: SSAValue,
) -> tuple[list[Operation], list[tas.ExtractSliceOp]] | None:
    """The reshapes and permutes through which `value` (each the one user of the last)
    reaches a tile that is only cut into `extract_slice`s of one shape, with those
    slices (None otherwise, or without a reshape or permute on the way): sm_90a's
    block-scaled dots cut the swizzled samples' scale chains into one column of scales
    for each K group (`scaled_mma.py`)."""
    ops: list[Operation] = []
    end = value
    while (sliced := slice_users(end)) is None:
        uses = list(end.uses)
        if len(uses) != 1:
            return None
        user = uses[0].operation
        if not (
            (isinstance(user, tas.ViewOp) and user.is_value_view and not user.indices)
            or isinstance(user, tas.ShuffleOp)
        ):
            return None
        ops.append(user)
        end = user.result
    return (ops, sliced[0]) if ops else None


#: Registers (32-bit) a thread may hold of a tile that `gathered_slices` converts whole:
#: the whole tile's registers are live across the exchange's barriers, where slices
#: exchanged one by one hold one slice's.  cuTile's FFT (`t_fft_f32`, 16 warps, 128
#: registers) cuts a 2x4096x2 f32 tile, 32 words a thread, into two halves: converted
#: whole it spilled 16 bytes on sm_100a.  The swizzled samples' scale tiles are 2 or 4.
GATHERED_SLICE_REGISTERS = 16


def gathered_slices(
    state: LayoutAssignment, chains: list[tuple[list[tas.ExtractSliceOp], bool]]
) -> None:
    """For each group of `extract_slice`s of one tile whose results took one layout (from
    their uses), the tile in that layout: each slice is then registers of the threads
    that hold it (`slices.extract_plan`: the slices' layout over the whole tile repeats a
    slice's lane and warp bases), where a slice of another layout is an exchange each.
    A tile whose chain of reshapes and permutes renames registers all the way
    (`sliced_reshapes`, `chain_layouts`) is converted once where it is made; one that
    the last reshape or permute exchanges anyway is exchanged into that layout."""
    for slices, renamed in chains:
        wanted = {state.layouts.get(e.result) for e in slices}
        tile = slices[0].source
        source = state.layouts.get(tile)
        if len(wanted) != 1 or source is None:
            continue
        (layout,) = wanted
        if layout is None or layout == source or layout.rank != source.rank:
            continue
        if renamed:
            state.slice_conversions.append((slices, layout))
        else:
            state.layouts[tile] = layout


def renamed_layout(layout: BlockedLayoutAttr, view: tas.ViewOp) -> BlockedLayoutAttr | None:
    """`layout` with the unit dimensions `view` drops taken out, when that is all the
    reshape does and `layout` spreads nothing over them: the reshape is then a renaming
    of registers (None otherwise)."""
    src, dst = shape_of(view.src.type), shape_of(view.result.type)
    kept = [d for d, n in enumerate(src) if n != 1]
    if [src[d] for d in kept] != list(dst) or len(src) != len(layout.spt):
        return None
    dropped = [d for d in range(len(src)) if d not in kept]
    if any(layout.spt[d] * layout.tpw[d] * layout.wpc[d] != 1 for d in dropped):
        return None
    order = [kept.index(d) for d in layout.dim_order if d in kept]
    return BlockedLayoutAttr(
        [layout.spt[d] for d in kept],
        [layout.tpw[d] for d in kept],
        [layout.wpc[d] for d in kept],
        order,
    )


def narrow_atoms(fn: func.FuncOp, state: LayoutAssignment, analysis: AxisInfoAnalysis) -> None:
    """Give each tiled load and store an atom no wider than its layout allows.

    The LLVM lowering moves a vector along the dimension of the layout's first register
    basis (`vector_groups`); the atom was chosen for the pointers' most contiguous
    dimension. When the two differ, as for a tile loaded transposed (`order=` in cuTile:
    one layout per rank comes from the widest anchor, here another load's), a vector
    along the layout's dimension would read elements that are not adjacent in memory:
    the atom narrows to what the pointers allow along that dimension (the axis analysis:
    contiguity and alignment), down to one element."""
    for op in fn.walk():
        if not isinstance(op, tas.TiledLoadOp | tas.TiledStoreOp):
            continue
        view = op.view.owner
        value = op.result if isinstance(op, tas.TiledLoadOp) else op.value
        layout = state.layouts.get(value)
        shape = shape_of(value.type)
        if not isinstance(view, tas.ViewOp) or layout is None or not shape:
            continue
        bits = 8 * element_bytes(element_type(value.type))
        elements = op.atom.info.bits // bits
        if elements <= 1:
            continue
        registers = layout.linear(list(shape)).registers
        first = registers[0] if registers else ()
        if sum(1 for x in first if x) != 1:
            continue  # the lowering moves one element at a time
        dim = next(i for i, x in enumerate(first) if x)
        contiguity = analysis.get(view.src).contiguity
        if dim == max(range(len(shape)), key=lambda d: (contiguity[d], d)):
            continue  # the dimension the atom was chosen for (`anchors_of`'s order)
        safe = min(elements, analysis.vector_elements(view.src, dim, op.atom.info.bits // 8))
        if safe < elements:
            direction = "load" if isinstance(op, tas.TiledLoadOp) else "store"
            op.properties["atom"] = AtomAttr(copy_atom(direction, bits * safe))


def reduced_dims(
    fn: func.FuncOp, kinds: tuple[type[Operation], ...] | None = None
) -> dict[int, set[int]]:
    """For each tile rank, the dimensions a `reduce` or `scan` (only the ops of
    `kinds`, if given) combines along."""
    out: dict[int, set[int]] = {}
    for op in fn.walk():
        if isinstance(op, tas.ReduceOp | tas.ScanOp) and op.operands:
            if kinds is not None and not isinstance(op, kinds):
                continue
            rank = len(shape_of(op.operands[0].type))
            out.setdefault(rank, set()).add(op.dimension)
    return out


#: Lanes of a warp a scanned dimension may span where the thread's registers can take
#: it instead.  Every lane bit along the scanned dimension is a Kogge-Stone step, a
#: shuffle, a combine and a select in one dependent chain, for each run of elements a
#: thread holds: `x_cumprod_rev_i8_axis0` (16x32 i8, one warp of 16-byte vectors along
#: the rows) spread dim 0 over 16 lanes and shuffled each of its 16 registers 4 times
#: (64 SHFL, tileiras 16).  Two steps are where tileiras's own layouts for these scans
#: stop (`x_cumprod_f32_axis0`: dim 0 over 4 lanes and 4 warps, 16-byte f32 vectors).
SCAN_LANES = 4
#: The narrowest access (bytes) a vector across a scanned dimension narrows to, so
#: that the thread's registers can go along the scanned dimension: one 32-bit word, the
#: width tileiras loads `x_cumprod_rev_i8_axis0` with.
SCAN_MIN_ACCESS_BYTES = 4


def scan_size_per_thread(
    shape: tuple[int, ...],
    num_warps: int,
    vector: int,
    order: tuple[int, ...],
    scanned: set[int],
    min_vector: int,
) -> list[int] | None:
    """The elements a thread holds along each dimension when the tile is scanned along
    `scanned`: the scan is work-efficient in any blocked layout (`LowerScan`:
    sequential over a thread's run, Kogge-Stone over lanes, shared memory over warps),
    and cheapest when a thread's elements run along the scanned dimension.

    * Registers a thread holds beyond its `vector` go along the scanned dimension
      first, not to repetitions of the tile: a register bit along it is a combine,
      a lane bit a shuffle step for every run.  Along the contiguous dimension itself
      (`order[0]`) the run grows beyond the vector only while the dimension spans more
      than `SCAN_LANES` lanes: the accesses stay as wide, but the lanes of a warp
      cover fewer bytes of a row at once.
    * Across the contiguous dimension, where a thread has no registers to spare and
      the scanned dimension still spans more than `SCAN_LANES` lanes, the vector
      narrows (not below `min_vector` elements) and the registers it frees go along
      the scanned dimension: a warp's accesses stay coalesced, each thread makes more
      of them, and a lane step fewer costs each remaining run its shuffle.

    None where nothing is scanned (the vector decides alone)."""
    scanned = {d for d in scanned if shape[d] > 1}
    if not scanned or not shape:
        return None
    fastest = order[0]
    spt = [1] * len(shape)
    spt[fastest] = max(1, min(vector, shape[fastest]))
    per_thread = max(1, math.prod(shape) // (num_warps * WARP_SIZE))

    def lanes(d: int) -> int:
        return default_blocked(shape, num_warps, 1, order, spt).tpw[d]

    for d in sorted(scanned, key=order.index):
        while True:
            spare = math.prod(spt) < per_thread and spt[d] < shape[d]
            if spare and (d != fastest or lanes(d) > SCAN_LANES):
                spt[d] *= 2
            elif d != fastest and lanes(d) > SCAN_LANES and spt[fastest] > min_vector:
                spt[fastest] //= 2
            else:
                break
    return spt


def blocked_avoiding(
    shape: tuple[int, ...],
    num_warps: int,
    vector: int,
    order: tuple[int, ...],
    avoid: set[int],
    scanned: set[int] | None = None,
    min_vector: int = 1,
) -> BlockedLayoutAttr:
    """`default_blocked`, but warps go first along dimensions not in `avoid` (the
    dimensions a reduce or scan combines along), so the combination stays inside a
    warp; warps beyond what those dimensions hold go along the combined dimensions
    (combined across warps through shared memory) and only then replicate the tile.
    The dimensions in `scanned` take the thread's registers first
    (`scan_size_per_thread`)."""
    spt_of_scan = scan_size_per_thread(
        shape, num_warps, vector, order, scanned or set(), min_vector
    )
    base = default_blocked(shape, num_warps, vector, order, spt_of_scan)
    keep = [d for d in order if d not in avoid]
    if not keep or not avoid:
        return base
    spt = [x.data for x in base.size_per_thread]
    tpw = [x.data for x in base.threads_per_warp]
    wpc = [1] * len(shape)
    left = num_warps
    for d in keep:
        room = max(1, shape[d] // (spt[d] * tpw[d]))
        take = min(left, room)
        wpc[d] = take
        left //= take
    for d in order:
        if d in avoid and left > 1:
            room = max(1, shape[d] // (spt[d] * tpw[d]))
            take = min(left, room)
            wpc[d] = take
            left //= take
    wpc[keep[-1]] *= left
    return BlockedLayoutAttr(spt, tpw, wpc, list(order))


def fitted_layout(
    rank_layout: BlockedLayoutAttr,
    shape: tuple[int, ...],
    num_warps: int,
    avoid: set[int],
    scanned: set[int] | None = None,
    min_vector: int = 1,
) -> BlockedLayoutAttr:
    """The rank's layout for a tile of `shape`, unless it makes threads hold copies that
    a layout fitted to the shape would not: then the fitted one (the rank's vector and
    order, unit dimensions last so the vector goes along a dimension with elements).

    One layout per rank keeps values of one rank from being exchanged between layouts,
    but a rank's layout is chosen for its widest anchor's shape: on another shape of the
    rank it may cover a dimension many times over (cuTile's FFT reshapes 2x128x64 tiles
    into 2x4096x1 ones: the anchor's last dimension, 4 registers by 16 lanes, left each
    thread 4096 registers for its 64 elements), and every op on the tile, and every
    exchange of it, is repeated for each copy."""
    registers = rank_layout.linear(list(shape)).num_registers
    order = rank_layout.dim_order
    order = tuple(d for d in order if shape[d] > 1) + tuple(d for d in order if shape[d] <= 1)
    vector = rank_layout.spt[rank_layout.dim_order[0]]
    fitted = blocked_avoiding(shape, num_warps, vector, order, avoid, scanned, min_vector)
    if fitted.linear(list(shape)).num_registers < registers:
        return fitted
    return rank_layout


#: The access width (bytes) a thread keeps for the widest element type when vectors
#: narrow to keep warps: 16, one `ld.global.v4.b32`.
KEPT_ACCESS_BYTES = 16


#: Accumulator registers (32-bit) per thread above which a dot's kernel gets more warps.
DOT_ACCUMULATOR_REGISTERS = 64
#: The most warps `dot_warps` grows a kernel to.
MAX_DOT_WARPS = 8
#: The same for a dot on the CUDA cores (`fma_dot.py`): beside its accumulator a thread
#: reads, for every K step, the A value of each accumulator row it holds and the B value
#: of each column, and ptxas loads the whole K loop's worth early.  cuTile's FFT test
#: (12 batched 2x16x16 by 2x16x256 f32 dots, K = 16) on sm_90a: 64 accumulator words a
#: thread (4 warps) 255 registers and 1,232 bytes of spill stores, 32 (8 warps) 255 and
#: 384, 16 (16 warps) 128 and 8; tileiras runs it with 12 warps.
FMA_DOT_ACCUMULATOR_REGISTERS = 16
#: The most warps `dot_warps` grows a kernel with a dot on the CUDA cores to.
MAX_FMA_DOT_WARPS = 16


def doubled_warps(words: int, warps: int, limit: int, most: int) -> int:
    """`warps`, doubled (up to `most`) while `words` 32-bit words spread over them take
    more than `limit` registers a thread."""
    while warps < most and words > limit * warps * WARP_SIZE:
        warps *= 2
    return warps


def dot_warps(fn: func.FuncOp, requested: int) -> int:
    """Warps per CTA for `fn`'s dots and loops: `requested`, doubled (up to
    `MAX_DOT_WARPS`) while the largest dot accumulator needs more than
    `DOT_ACCUMULATOR_REGISTERS` registers per thread, then (up to `MAX_CARRIED_WARPS`)
    while the tiles a loop carries need more than `CARRIED_REGISTERS` (`carried_words`).
    Each thread holds its share of the accumulator for the whole K loop, beside the
    operand tiles on their way to shared memory; with 4 warps a 128x256 f32
    accumulator alone takes 256 registers, so ptxas spills (NVIDIA's cuTile 128x256x64
    f16 matmul: 2.6 KB of spill stores on sm_80 and 2.1 KB on sm_90a with 4 warps,
    72 B and 152 B with 8).  tileiras runs such kernels with 256 threads too.  A dot on
    the CUDA cores counts its accumulator against `FMA_DOT_ACCUMULATOR_REGISTERS` (up to
    `MAX_FMA_DOT_WARPS`): its operand values are in registers too."""
    accumulators: list[tuple[TensorType[Attribute], bool]] = [
        (op.acc.type, runs_on_tensor_cores(op))
        for op in fn.walk()
        if isinstance(op, aa.DotOp | tas.DotOp) and isinstance(op.acc.type, TensorType)
    ]
    warps = requested
    for limit, most, fma_only in (
        (DOT_ACCUMULATOR_REGISTERS, MAX_DOT_WARPS, False),
        (FMA_DOT_ACCUMULATOR_REGISTERS, MAX_FMA_DOT_WARPS, True),
    ):
        registers = max(
            (tile_words(t) for t, tensor_cores in accumulators if not (fma_only and tensor_cores)),
            default=0,
        )
        warps = doubled_warps(registers, warps, limit, most)
    warps = doubled_warps(carried_words(fn), warps, CARRIED_REGISTERS, MAX_CARRIED_WARPS)
    return warps


#: Registers per thread that the tiles a loop carries (other than dot accumulators) may
#: take before the kernel gets more warps.
CARRIED_REGISTERS = 128
#: The most warps `dot_warps` grows a kernel to for its loop-carried tiles.
MAX_CARRIED_WARPS = 16


def tile_words(t: TensorType[Attribute]) -> int:
    """The 32-bit registers a tile of `t` takes over the whole CTA (a word per element
    of at most 4 bytes, two for 8-byte elements)."""
    return math.prod(t.get_shape()) * max(1, element_bytes(element_type(t)) // 4)


def carried_words(fn: func.FuncOp) -> int:
    """The most 32-bit words of tiles one loop of `fn` carries from trip to trip, not
    counting dot accumulators (`dot_warps` sizes those).  They are live for the whole
    loop: NVIDIA's LayerNorm backward sample carries two 32x1024 f32 sums, 512
    registers a thread with 4 warps (8 KB of spill stores; tileiras runs it with 384
    threads)."""
    accumulators = {op.acc for op in fn.walk() if isinstance(op, aa.DotOp | tas.DotOp)}
    most = 0
    for op in fn.walk():
        if not isinstance(op, scf.ForOp | scf.WhileOp):
            continue
        words = 0
        for arg in op.regions[0].block.args:
            if not isinstance(arg.type, TensorType):
                continue
            if any(use.operation.operands[use.index] in accumulators for use in arg.uses):
                continue
            words += tile_words(arg.type)
        most = max(most, words)
    return most


def choose_num_warps(
    fn: func.FuncOp, requested: int, vector: int, min_vector: int = 1
) -> tuple[int, int]:
    """The warps per CTA and the widest vector (elements per thread along the
    contiguous dimension) for `fn`, such that no thread holds a copy of another's
    elements of the largest tile.  Vectors narrow first, but not below `min_vector`
    (what keeps the widest element type at `KEPT_ACCESS_BYTES` per access); then warps
    shrink.

    Vectors wider than `min_vector` only widen the accesses of the narrower types, and
    they cost warps and registers: `int8_mix` (i8 in, i32 out, 1024-element tiles) with
    16 elements a thread took 2 warps and 116 registers (16 i32 words of its widened
    tile each, and the bytes of two 16-byte loads); with 8, 4 warps (as tileiras runs
    it) and half the words per thread.

    Measured on an H200 (docs/performance.md): `residual_cast_f16` (f32 in, f16 out,
    256-element tiles) ran 1-warp CTAs with 8 elements per thread at 52 % of the copy
    bandwidth; 2 warps with 4 elements (f32 still 16 bytes per access) ran at 92 %.
    `control_flow_f32` (f32, 128-element tiles) ran 15 % slower when its f32 accesses
    narrowed from 16 to 8 bytes to get a second warp, hence `min_vector`."""
    largest = 1
    for op in fn.walk():
        for r in op.results:
            if isinstance(r.type, TensorType):
                largest = max(largest, math.prod(r.type.get_shape()))
    warps = requested
    while warps > 1 and warps * WARP_SIZE * vector > largest:
        if vector > min_vector:
            vector //= 2
        else:
            warps //= 2
    return warps, vector


def required_operand_layouts(
    op: Operation, result_layout: DistributedLayout, result_index: int
) -> list[tuple[int, DistributedLayout]]:
    """Layouts an op wants for its tensor operands, given its result's layout."""
    if isinstance(op, tas.ExpandDimsOp):
        return [(0, SliceLayoutAttr(op.axis.value.data, result_layout))]
    if isinstance(op, tas.ReduceOp):
        # The result is the operand's layout with the reduced dimension sliced away.
        if isinstance(result_layout, SliceLayoutAttr) and result_layout.dim.data == op.dimension:
            return [(i, result_layout.parent) for i in range(len(op.operands))]
        return []
    if isinstance(op, tas.ScanOp):
        return [(i, result_layout) for i in range(len(op.operands))]
    if isinstance(op, ct.ElementwiseOp | tas.AddPtrOp | tas.BroadcastOp):
        return [(i, result_layout) for i in range(len(op.operands))]
    if isinstance(op, aa.DotOp | tas.DotOp):
        # The accumulator and the result are one tile (the verifier wants one type):
        # a dot the tensor cores do not take (FMAs) follows its result's layout.
        return [(2, result_layout)]
    if isinstance(op, tas.AtomicRmwOp | tas.AtomicCasOp) and result_index == 0:
        # Pointers, compare, value, mask and old values: element r of each is in
        # register r of the same thread (the atomic lowering pairs them by register).
        return [(i, result_layout) for i, v in enumerate(op.operands) if is_tile(v)]
    if isinstance(op, tas.TiledLoadOp) and result_index == 0:
        out = []
        if op.mask is not None:
            out.append((len(op.operands) - 1, result_layout))
        return out
    return []


def holds_copies(layout: DistributedLayout, shape: tuple[int, ...], allowed: int = 1) -> bool:
    """Whether `layout` on a tile of `shape` gives each thread more registers than its
    share of the elements, or than `allowed` where that is more (what a tile that small
    forces anyway)."""
    linear = layout.linear(list(shape))
    threads = 1 << (len(linear.lanes) + len(linear.warps))
    return linear.num_registers > max(allowed, math.prod(shape) // threads)


def inferred_result_layout(
    op: Operation, layouts: dict[SSAValue, DistributedLayout]
) -> DistributedLayout | None:
    """A result layout from operand layouts, for values no anchor reaches."""
    operand_layouts = [layouts[v] for v in op.operands if v in layouts]
    if not operand_layouts:
        return None
    first = operand_layouts[0]
    if isinstance(op, tas.ExpandDimsOp):
        if isinstance(first, SliceLayoutAttr) and first.dim.data == op.axis.value.data:
            return first.parent
        return None
    if isinstance(op, tas.BroadcastOp):
        # A layout chosen for the (smaller) source may replicate the result: a 1-element
        # reduce result's slice layout on 4096 elements puts all of them in every
        # thread.  The result is then left to the rank's layout, and the source follows.
        source = first.linear(list(shape_of(op.operands[0].type))).num_registers
        return None if holds_copies(first, shape_of(op.result.type), source) else first
    if isinstance(
        op,
        ct.ElementwiseOp | tas.AddPtrOp | tas.ScanOp | tas.AtomicRmwOp | tas.AtomicCasOp,
    ):
        return first
    if isinstance(op, tas.ReduceOp):
        return SliceLayoutAttr(op.dimension, first)
    if isinstance(op, aa.DotOp | tas.DotOp) and op.acc in layouts:
        return layouts[op.acc]
    return None


Tied = list[tuple[SSAValue, tuple[Operation, int] | None]]


def _yields(region: Region) -> list[Operation]:
    return [b.last_op for b in region.blocks if b.last_op is not None]


def tie_groups(op: Operation) -> list[Tied]:
    """The groups of values a structured op forces into one layout (a carried tile
    stays in the registers of the same threads): for each group, the values, with the
    (user, operand index) where a conversion goes when one is needed, None for results
    and block arguments."""
    groups: list[Tied] = []
    if isinstance(op, scf.ForOp):
        yield_op = op.body.block.last_op
        for i in range(len(op.res)):
            g: Tied = [
                (op.res[i], None),
                (op.body.block.args[i + 1], None),
                (op.iter_args[i], (op, 3 + i)),
            ]
            if isinstance(yield_op, scf.YieldOp):
                g.append((yield_op.operands[i], (yield_op, i)))
            groups.append(g)
    elif isinstance(op, scf.IfOp):
        terminators = _yields(op.true_region) + _yields(op.false_region)
        for i in range(len(op.output)):
            g = [(op.output[i], None)]
            g += [(t.operands[i], (t, i)) for t in terminators if isinstance(t, scf.YieldOp)]
            groups.append(g)
    elif isinstance(op, scf.WhileOp):
        before = op.before_region.block
        after = op.after_region.block
        condition = before.last_op
        latch = after.last_op
        for i in range(len(op.arguments)):
            g = [(before.args[i], None), (op.arguments[i], (op, i))]
            if isinstance(latch, scf.YieldOp):
                g.append((latch.operands[i], (latch, i)))
            groups.append(g)
        for j in range(len(op.res)):
            g = [(op.res[j], None), (after.args[j], None)]
            if isinstance(condition, scf.ConditionOp):
                g.append((condition.args[j], (condition, j + 1)))
            groups.append(g)
    return groups


STRUCTURED = (scf.ForOp, scf.IfOp, scf.WhileOp)


def loop_tied_values(value: SSAValue) -> Tied:
    """Values an scf.for, scf.if or scf.while forces into one layout with `value`:
    inits, region arguments, yielded values and results (conversions, where
    needed, go on the inits and the terminators' operands)."""
    related: list[Operation] = []
    owner = value.owner
    if isinstance(owner, STRUCTURED):
        related.append(owner)
    if isinstance(value, BlockArgument):
        parent = value.block.parent_op()
        if isinstance(parent, STRUCTURED):
            related.append(parent)
    for use in value.uses:
        user = use.operation
        if isinstance(user, STRUCTURED):
            related.append(user)
        elif isinstance(user, scf.YieldOp | scf.ConditionOp):
            parent = user.parent_op()
            if isinstance(parent, STRUCTURED):
                related.append(parent)
    tied: Tied = []
    for op in dict.fromkeys(related):
        for group in tie_groups(op):
            if any(v is value for v, _ in group):
                tied += [(v, u) for v, u in group if v is not value]
    return tied


@dataclass(frozen=True)
class AssignLayoutsPass(ModulePass):
    """Every tensor gets a distributed layout encoding; conversions where needed."""

    name = "tileas-assign-layouts"

    num_warps: int = 4
    #: The target; on a tcgen05 one (sm_100a) the accumulators of `tcgen05.mma` dots
    #: take the layout `tcgen05.ld` reads them into.  Empty: the MMA layout.
    arch: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.walk():
            if isinstance(fn, func.FuncOp):
                self.assign(fn)

    def assign(self, fn: func.FuncOp) -> None:
        analysis = AxisInfoAnalysis()
        anchors = anchors_of(fn, analysis)
        max_vector = max((a.vector for a in anchors), default=1)
        reduced = reduced_dims(fn)
        scanned = reduced_dims(fn, (tas.ScanOp,))
        widest_type = max((element_bytes(element_type(a.value.type)) for a in anchors), default=4)
        narrowest_type = min(
            (element_bytes(element_type(a.value.type)) for a in anchors), default=4
        )
        scan_vector = max(1, SCAN_MIN_ACCESS_BYTES // narrowest_type)
        kept = max(1, KEPT_ACCESS_BYTES // widest_type)
        warps = loop_dot_warps(fn, dot_warps(fn, self.num_warps), self.arch)
        warps, widest = choose_num_warps(fn, warps, max_vector, kept)
        state = LayoutAssignment(warps)
        # A gathered tensor-core operand first, before anything propagates, in its own
        # coalesced layout, so that its addresses and mask follow it rather than the
        # accumulator's (through the row indices an epilogue scatter shares:
        # gather_operands.py).
        for a in anchors:
            if gathered_operand(a.value):
                shape = shape_of(a.value.type)
                avoid = reduced.get(len(shape), set())
                layout = blocked_avoiding(shape, warps, min(a.vector, widest), a.order, avoid)
                state.require(a.value, layout, None)
                state.require(a.pointers, layout, None)
        # Then tensor-core dots: their accumulators take the MMA layout, and so
        # does what is tied to them (see mma_layouts.py).
        core_dots = tensor_core_dots(fn, warps, self.arch)
        for dot, layout in core_dots:
            state.require(dot.result, layout, None)
            state.require(dot.acc, layout, (dot, 2))
        if self.arch:
            fit_occupancy(fn, warps, self.arch, core_dots)
        self.propagate(fn, state)

        # One blocked layout per rank, from its widest-vector anchor.
        by_rank: dict[int, list[Anchor]] = {}
        for a in anchors:
            rank = len(shape_of(a.value.type))
            if rank:  # a scalar access (rank 0) is done by one thread: no layout
                by_rank.setdefault(rank, []).append(a)
        rank_layouts: dict[int, BlockedLayoutAttr] = {}
        sliced_chains: list[tuple[list[tas.ExtractSliceOp], bool]] = []
        for rank, group in by_rank.items():
            best = max(group, key=lambda a: a.vector)
            rank_layouts[rank] = blocked_avoiding(
                shape_of(best.value.type),
                warps,
                min(best.vector, widest),
                best.order,
                reduced.get(rank, set()),
                scanned.get(rank),
                scan_vector,
            )
        # Anchors of the highest rank seed first: lower ranks usually feed them
        # through expand_dims and should become slices of their layout, or come out
        # of a reduce in the slice of its operand's layout.  An anchor whose value
        # already has a layout keeps it, and its pointers follow it.
        for rank in sorted(by_rank, reverse=True):
            for a in by_rank[rank]:
                layout = state.layouts.get(a.value)
                if layout is None:
                    shape = shape_of(a.value.type)
                    avoid = reduced.get(rank, set())
                    base = rank_layouts[rank]
                    sliced = slice_users(a.value)
                    if sliced is not None:
                        # A tile only cut into blocks (`extract_slice`s of one shape):
                        # the coalesced layout of one block, repeated over the tile, so
                        # that each slice is registers of the threads that loaded it
                        # (`slices.extract_plan`), not an exchange of the whole tile.
                        slices, block = sliced
                        base = blocked_avoiding(block, warps, min(a.vector, widest), a.order, avoid)
                        for extract in slices:
                            state.require(extract.result, base, None)
                    elif (reshapes := operand_reshapes(a.value)) is not None and (
                        any(not isinstance(o, ct.XOrIOp) for o in reshapes)
                        or (shape[a.order[0]] > 1 and a.order[0] != base.dim_order[0])
                    ):
                        # A tensor-core operand loaded along another dimension than
                        # the rank's anchor (attention's K, `order=`), or reshaped
                        # before its dot (batched matmul's 1xKxN tiles, whose rank
                        # layout was fitted to another shape: its 1x128x256 B took
                        # two rows a warp, the 128x256 operand one): its own
                        # coalesced layout, renamed through its reshapes, so that
                        # each reshape is a renaming of registers and the load can
                        # feed the dot's ring (`pipeline_dot_operands`).  Permutes
                        # on the way take the source's layout relabelled (NVIDIA's
                        # swizzled block-scaled samples reshape and permute their
                        # raw scale blocks), so that no exchange moves them.
                        base = blocked_avoiding(shape, warps, min(a.vector, widest), a.order, avoid)
                        for result, renamed in chain_layouts(a.value, base, reshapes):
                            state.require(result, renamed, None)
                    elif (
                        (chain := sliced_reshapes(a.value)) is not None
                        and isinstance(loaded := a.value.type, TensorType)
                        and tile_words(loaded) <= GATHERED_SLICE_REGISTERS * warps * WARP_SIZE
                    ):
                        # Reshaped and permuted, then cut into slices whose layout
                        # their uses decide (sm_90a's block-scaled dots, the swizzled
                        # samples' scales): the chain relabelled from the load's own
                        # coalesced layout, then one conversion into the slices'
                        # layout (`gathered_slices`) rather than an exchange for each
                        # reshape, permute and slice.
                        ops, slices = chain
                        base = blocked_avoiding(shape, warps, min(a.vector, widest), a.order, avoid)
                        relabelled = chain_layouts(a.value, base, ops)
                        for result, renamed in relabelled:
                            state.require(result, renamed, None)
                        sliced_chains.append((slices, len(relabelled) == len(ops)))
                    layout = fitted_layout(
                        base, shape, warps, avoid, scanned.get(rank), scan_vector
                    )
                state.require(a.value, layout, None)
                view = next(
                    (
                        u.operation
                        for u in a.pointers.uses
                        if isinstance(u.operation, tas.ViewOp) and not u.operation.is_value_view
                    ),
                    None,
                )
                state.require(a.pointers, layout, (view, 0) if view is not None else None)
            self.propagate(fn, state)
        renamed_reshape_results(fn, state, self.propagate)
        # Whatever is still unconstrained gets a default layout for its shape.
        for o in fn.walk():
            values = list(o.results) + [
                a for region in o.regions for b in region.blocks for a in b.args
            ]
            for r in values:
                if is_tile(r) and r not in state.layouts:
                    shape = shape_of(r.type)
                    avoid = reduced.get(len(shape), set())
                    along = scanned.get(len(shape))
                    rank_layout = rank_layouts.get(len(shape))
                    layout = (
                        fitted_layout(rank_layout, shape, warps, avoid, along, scan_vector)
                        if rank_layout is not None
                        else blocked_avoiding(
                            shape,
                            warps,
                            1,
                            tuple(reversed(range(len(shape)))),
                            avoid,
                            along,
                            scan_vector,
                        )
                    )
                    state.require(r, layout, None)
                    self.propagate(fn, state)
        gathered_slices(state, sliced_chains)
        narrow_atoms(fn, state, analysis)
        self.rewrite(fn, state)
        fn.attributes[NUM_WARPS_ATTR] = IntegerAttr(warps, i32)

    def propagate(self, fn: func.FuncOp, state: LayoutAssignment) -> None:
        while state.worklist:
            value = state.worklist.popleft()
            layout = state.layouts[value]
            for tied, use in loop_tied_values(value):
                state.require(tied, layout, use)
            owner = value.owner
            if isinstance(owner, Operation):
                index = value.index if hasattr(value, "index") else 0  # pyright: ignore[reportAttributeAccessIssue]
                for i, req in required_operand_layouts(owner, layout, index):
                    state.require(owner.operands[i], req, (owner, i))
            for use in list(value.uses):
                user = use.operation
                if isinstance(user, tas.TiledStoreOp) and use.index == 1 and user.mask is not None:
                    state.require(user.mask, layout, (user, len(user.operands) - 1))
                if isinstance(user, tas.ViewOp):
                    # A view of pointers is storage, not a tile; a value view (a
                    # reshape) takes its result's layout from that result's own uses.
                    continue
                if any(r in state.layouts for r in user.results if is_tile(r)):
                    # The user's layout is already decided (and its operand
                    # requirements with it, by the backward step).
                    continue
                inferred = inferred_result_layout(user, state.layouts)
                if inferred is not None:
                    for r in user.results:
                        if is_tile(r):
                            state.require(r, inferred, None)
                    # Operands of the user that have no layout yet follow the result.
                    for idx, req in required_operand_layouts(user, inferred, 0):
                        state.require(user.operands[idx], req, (user, idx))

    def rewrite(self, fn: func.FuncOp, state: LayoutAssignment) -> None:
        for value, layout in list(state.layouts.items()):
            t = value.type
            assert isinstance(t, TensorType)
            if t.encoding == layout:
                continue
            new_type = TensorType(t.element_type, t.get_shape(), layout)
            new_value = Rewriter.replace_value_with_new_type(value, new_type)
            if new_value is not value:
                state.layouts[new_value] = layout
                # Pending conversions referring to the old value keep working: they
                # are located by (user, operand index).
        for slices, layout in state.slice_conversions:
            src = slices[0].source
            t = src.type
            assert isinstance(t, TensorType)
            convert = tas.ConvertLayoutOp(src, TensorType(t.element_type, t.get_shape(), layout))
            convert.location = slices[0].location
            owner = src.owner
            at = (
                InsertPoint.after(owner)
                if isinstance(owner, Operation)
                else InsertPoint.at_start(owner)
            )
            Rewriter.insert_op(convert, at)
            for extract in slices:
                extract.operands[0] = convert.result
        remat = Rematerializer()
        for user, index, layout in state.conversions:
            src = user.operands[index]
            t = src.type
            assert isinstance(t, TensorType)
            if t.encoding == layout:
                continue
            # A conversion (or clone) is located at the op that needed it, so that an
            # error about it (an exchange too large for shared memory) names that line.
            user.operands[index] = remat.value_in(
                src, layout, InsertPoint.before(user), user.location
            )


#: How many ops one rematerialization may clone before a conversion is cheaper.
MAX_REMATERIALIZED_OPS = 16


def _rematerializable(op: Operation) -> bool:
    """Pure ops whose results only depend on their operands: recomputing them in
    another layout is always correct."""
    if isinstance(
        op,
        ct.IotaOp | ct.ConstantOp | tas.SplatOp | tas.BroadcastOp | tas.ExpandDimsOp | tas.AddPtrOp,
    ):
        # Pointer arithmetic too: a pointer tile shared by accesses in different
        # layouts is recomputed in each, never exchanged through shared memory.
        return True
    return isinstance(op, ct.ElementwiseOp) and not op.regions


class Rematerializer:
    """Produces a value in a wanted layout: the value itself, a clone of its cheap
    producer chain computed in that layout, or a `convert_layout`."""

    def __init__(self) -> None:
        self.clones: dict[tuple[SSAValue, DistributedLayout], SSAValue] = {}

    def value_in(
        self,
        value: SSAValue,
        layout: DistributedLayout,
        at: InsertPoint,
        location: LocationAttr | None = None,
    ) -> SSAValue:
        t = value.type
        assert isinstance(t, TensorType)
        if t.encoding == layout:
            return value
        if self._chain_size(value, layout, 0) is not None:
            return self._clone(value, layout)
        convert = tas.ConvertLayoutOp(value, TensorType(t.element_type, t.get_shape(), layout))
        if location is not None:
            convert.location = location
        Rewriter.insert_op(convert, at)
        return convert.result

    def recomputes(self, value: SSAValue, layout: DistributedLayout) -> bool:
        """Whether `value_in` gives `value` in `layout` without a `convert_layout`: it
        has that layout, or its producer chain is cheap enough to clone."""
        return self._chain_size(value, layout, 0) is not None

    def _chain_size(self, value: SSAValue, layout: DistributedLayout, budget: int) -> int | None:
        """Ops to clone to recompute `value` in `layout`, or None past the budget or at
        an op that cannot be recomputed."""
        t = value.type
        if not isinstance(t, TensorType) or t.encoding == layout or (value, layout) in self.clones:
            return budget
        op = value.owner
        if not isinstance(op, Operation) or not _rematerializable(op) or len(op.results) != 1:
            return None
        budget += 1
        if budget > MAX_REMATERIALIZED_OPS:
            return None
        for i, want in required_operand_layouts(op, layout, 0):
            result = self._chain_size(op.operands[i], want, budget)
            if result is None:
                return None
            budget = result
        return budget

    def _clone(self, value: SSAValue, layout: DistributedLayout) -> SSAValue:
        """The clone goes right after the original, so that it dominates every use
        the memo hands it to (its operands are originals or earlier clones)."""
        t = value.type
        assert isinstance(t, TensorType)
        if t.encoding == layout:
            return value
        known = self.clones.get((value, layout))
        if known is not None:
            return known
        op = value.owner
        assert isinstance(op, Operation)
        operands = list(op.operands)
        for i, want in required_operand_layouts(op, layout, 0):
            operands[i] = self._clone(operands[i], want)
        clone = type(op).create(
            operands=operands,
            result_types=[TensorType(t.element_type, t.get_shape(), layout)],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        clone.location = op.location
        Rewriter.insert_op(clone, InsertPoint.after(op))
        self.clones[(value, layout)] = clone.results[0]
        return clone.results[0]


_ = NoneAttr
