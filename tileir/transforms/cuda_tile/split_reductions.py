"""`split-large-reductions{arch=sm_90a num-warps=4}`: a tile loaded only to be reduced,
too large for a thread's registers, is loaded in pieces, combined element by element.

cuTile's reduction tests load a 512x128 f32 tile whole and reduce it along its rows:

    %t, %tok = load_view_tko weak %pview[%i, %j] : ... -> tile<512x128xf32>, token
    %r = reduce %t dim=0 identities=[-inf : f32] : tile<512x128xf32> -> tile<128xf32>
        (%a: tile<f32>, %b: tile<f32>) { %m = maxf %a, %b ; yield %m }

With 4 warps each thread holds 512 of the tile's words, twice the registers it may
have: ptxas spilled 356 bytes on sm_90a (255 registers, a 328-byte stack; tileiras
stages the tile through 232 KB of shared memory with TMA instead).  The pass loads it
in `n` pieces along the reduced dimension (`%pview16`: the same tensor_view tiled
32x128, `n = 16`) and combines each piece into a running piece-shaped tile, element by
element, with the reduce's own body, from its identity; the reduce then runs once, on
that tile:

    %acc = for %k in (0 to 16, step 1) iter_values(%a = %identity) {   // tile<32x128xf32>
        %p, %pt = load_view_tko weak %pview16[16 * %i + %k, %j] : ... -> tile<32x128xf32>, token
        %c = maxf %a, %p : tile<32x128xf32>
        continue %c }
    %r = reduce %acc dim=0 ... { maxf } : tile<32x128xf32> -> tile<128xf32>

A piece is addressed through a partition_view whose tile is `n` times shorter along the
reduced dimension, at index `n * i + k`: the view bound-checks it, so a ragged edge
reads the same padding as before (a piece wholly outside the tensor reads only
padding), and the running tile combines exactly the elements the whole tile held.
That is why the pass runs on cuda_tile, before `convert-cuda-tile-to-tileaa`, like
`split-dot-accumulators`.

Measured (t_reduce_max_f32_all, sm_90a, ptxas -O3): every variant below is spill-free;
pieces of 32 rows (`PIECE_REGISTERS` 32) take 93 registers and 296 SASS instructions,
64 rows 165 and 440, 128 rows 254 and 752.  Reducing each piece in the loop and
combining the 128-element partial results instead (64 rows: 106 registers, 320
instructions) crosses warps through shared memory with two CTA barriers on every trip;
the running tile's loop has no barrier and no shuffle.  Halves (no loop) would still
hold 256 words a thread each.  A loop is left rolled by ptxas (16 trips of 8 LDG.128).

When: the tile's 32-bit words spread over the kernel's threads (the requested warps, or
what `dot_warps` gives a kernel with dots), plus `REDUCTION_RESERVE` registers for
everything else, exceed `targets.register_budget` (255 with 128 threads, 128 with two
CTAs of 256 under an `occupancy = 2` hint).  The pieces are halved until each takes at
most `PIECE_REGISTERS` (`TREE_PIECE_REGISTERS`) registers a thread, or the reduced
dimension has no more halves; a tile whose pieces, two at a time plus the reserve,
would still not fit (a reduced dimension of 4 rows) is left whole.

Where (legality): the load is weak (reading in pieces is reading the same elements),
its tile's only use is the reduce and its token is unused, its view is a partition_view
(index `i_k` selects tile dimension `k`, whatever the `dim_map`), and the reduce is in
the load's block and has one operand.  The loop is for a body that is one op of its two
arguments whose result cannot depend on the order the elements are combined in:
`maxf`/`minf` (with or without `propagate_nan` and `flush_to_zero`: in PTX -0 orders
below +0 and a NaN yields the other operand or the canonical NaN, as
`reductions.symmetric_body` relies on, so the result is the largest or smallest element
whatever the grouping) and the integer `addi`, `muli`, `andi`, `ori`, `xori`, `maxi`,
`mini` (wrap-around arithmetic is associative and commutative).

In tree order (float sums and products, any body of elementwise ops of its arguments):
tileir's `reduce` is not a sequential chain but a pairwise tree along the dimension,
the upper half combined into the lower half from the highest coordinate bit down (the
interpreter's `reduce_values`, and `LowerReduce` bit for bit in any layout): a 512-row
sum first adds row r + 256 to row r.  The loop's chain from the identity would round
differently (and `0.0 + -0.0` is `+0.0`).  The pieces of consecutive rows are the
high bits of the row index, which the tree combines first, element by element, the
lowest of them last: the whole is `body(T(odd pieces), T(even pieces))`, each half
alike.  So the pieces are combined by nested loops of two trips, one a bit of the
piece index, the outermost over bit 0: each loop runs its inner loop (or, innermost,
loads the piece at `n * i` plus the bits chosen so far) and keeps the result of its
first trip, then combines the second trip's into it (`if` on the trip: the second's
result is the body's first argument, the element); the reduce then runs on that
piece-shaped tile and combines the low bits as before.  The result is the unsplit
reduce's, bit for bit.  t_reduce_sum_f32_all in 16 pieces of 32 rows
(`TREE_PIECE_REGISTERS`, four loops): 198 registers on sm_80 and sm_90a, 192 on
sm_100a, no spills, 609 SASS instructions on sm_90a (1,585 unsplit).  Pieces of 16 rows
took 128 registers and spilled 16-24 bytes on sm_80 and sm_100a (under 32 words a
thread the kernel carries no `.maxnreg` and ptxas picks its budget), of 64 rows 255
registers and 72-96 bytes.  Unrolled (the pieces one after the other in bit-reversed
order, merged as a binary counter merges) the result was the same, but every piece was
a load of its own through every pass: compilation took 1.5x the unsplit kernel's, where
the loops take 0.4x.

Not multi-operand reduces (argmax/argmin): their index operand is a separate tile
(an `iota`) whose pieces the pass does not build, and cuTile reshapes the loaded tile
before reducing it.  Nor bodies with anything but elementwise ops of their two
arguments (a constant, cuTile's `lambda a, b: (a + b) % modulo`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.dialects.cuda_tile.attributes import (
    ComparisonPredicate,
    ComparisonPredicateAttr,
    Signedness,
    SignednessAttr,
)
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.control_flow import ContinueOp, ForOp, IfOp, YieldOp
from tileir.dialects.cuda_tile.ops.core import ConstantOp, EntryOp, ShapeOp
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp
from tileir.dialects.cuda_tile.ops.floating_point import MaxFOp, MinFOp
from tileir.dialects.cuda_tile.ops.integer import (
    AddIOp,
    AndIOp,
    CmpIOp,
    MaxIOp,
    MinIOp,
    MulIOp,
    OrIOp,
    XOrIOp,
)
from tileir.dialects.cuda_tile.ops.reductions import ReduceOp
from tileir.dialects.cuda_tile.ops.views import LoadViewTkoOp, MakePartitionViewOp
from tileir.dialects.cuda_tile.types import PartitionViewType, TileType
from tileir.dialects.nv_tileas.layouts import WARP_SIZE
from tileir.targets import register_budget, resolve_gpu_name
from tileir.transforms.cuda_tile.split_accumulators import (
    MMA_OPS,
    accumulator_words,
    dot_warps,
    occupancy,
    weak_load,
)

#: Registers a thread keeps beside the loaded tile (addresses, indices, the partial
#: results): a tile whose share plus this exceeds the register budget is split.
REDUCTION_RESERVE = 64
#: The most registers a thread a piece may take (measured: see the module doc and
#: docs/codegen.md).
PIECE_REGISTERS = 32
#: The same for a body combined in the reduce's tree order (`split_in_tree_order`;
#: module doc, "In tree order").
TREE_PIECE_REGISTERS = 32

#: Body ops whose reduction does not depend on the order of combination (module doc).
ORDER_FREE_OPS = (MaxFOp, MinFOp, AddIOp, MulIOp, AndIOp, OrIOp, XOrIOp, MaxIOp, MinIOp)


def kernel_warps(fn: Operation, requested: int) -> int:
    """The warps the kernel will get: `requested`, or what `dot_warps` gives its
    largest dot accumulator."""
    warps = requested
    for op in fn.walk():
        if isinstance(op, MMA_OPS):
            warps = max(warps, dot_warps(accumulator_words(op.results[0].type), requested))
    return warps


def order_free_body(reduce: ReduceOp) -> Operation | None:
    """The body's one op if it combines its two arguments with an `ORDER_FREE_OPS` op
    (module doc), else None."""
    block = reduce.body.block
    ops = list(block.ops)
    if len(ops) != 2 or not isinstance(ops[1], YieldOp) or len(block.args) != 2:
        return None
    op, last = ops
    if not isinstance(op, ORDER_FREE_OPS) or list(last.operands) != [op.results[0]]:
        return None
    if set(op.operands) != set(block.args) or len(op.operands) != 2:
        return None
    return op


def elementwise_body(reduce: ReduceOp) -> list[Operation] | None:
    """The body's ops before its `yield` where each is an elementwise op of the body's
    arguments and earlier results (so that it applies to whole tiles) and the body
    yields one value; else None."""
    block = reduce.body.block
    *ops, last = block.ops
    if not ops or not isinstance(last, YieldOp) or len(last.operands) != 1:
        return None
    known: set[SSAValue] = set(block.args)
    for op in ops:
        if not isinstance(op, ElementwiseOp) or isinstance(op, ShapeOp) or op.regions:
            return None
        if len(op.results) != 1 or any(v not in known for v in op.operands):
            return None
        known.add(op.results[0])
    return ops if last.operands[0] in known else None


def why_not(load: LoadViewTkoOp) -> tuple[ReduceOp, Operation | list[Operation]] | str:
    """The reduce of `load`'s tile and its body (the op of an order-free body, else the
    ops of an elementwise one), or why the pair cannot be split."""
    uses = list(load.tile.uses)
    if len(uses) != 1 or not isinstance(uses[0].operation, ReduceOp):
        return "the tile has uses other than one reduce"
    reduce = uses[0].operation
    if len(reduce.operands) != 1:
        return "the reduce has several operands"
    if reduce.parent_block() is not load.parent_block():
        return "the reduce is in another block"
    if not weak_load(load):
        return "the load is not weak"
    if load.result_token.uses:
        return "the load's token is used"
    view = load.view.owner
    t = load.view.type
    if not isinstance(view, MakePartitionViewOp) or not isinstance(t, PartitionViewType):
        return "the tile is loaded through a view other than a partition_view"
    body = order_free_body(reduce)
    if body is not None:
        return reduce, body
    ops = elementwise_body(reduce)
    if ops is None:
        return "the reduce's body is not elementwise ops of its arguments"
    return reduce, ops


def pieces(t: Attribute, dim: int, threads: int, most: int = PIECE_REGISTERS) -> int:
    """How many pieces along `dim` a tile of `t` is cut into so that each takes at most
    `most` registers a thread (1: it cannot be cut)."""
    n = 1
    size = shape_of(t)[dim]
    words = accumulator_words(t)
    while -(-words // (n * threads)) > most and size % (2 * n) == 0:
        n *= 2
    return n


def constant(value: float, t: Attribute, at: InsertPoint) -> SSAValue:
    c = ConstantOp.splat(value, t)
    Rewriter.insert_op(c, at)
    return c.result


def identity_value(attr: Attribute) -> int | float:
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    assert isinstance(attr, FloatAttr)
    return float(attr.value.data)


def piece_index(first: SSAValue, k: SSAValue) -> Operation:
    """`first + k`: the index of piece `k` of the tile whose first piece is `first`."""
    return AddIOp.build_op([first, k])


def piece_view(load: LoadViewTkoOp, dim: int, n: int) -> SSAValue:
    """A partition_view of `load`'s tensor_view whose tile is `n` times shorter along
    `dim`, right after `load`'s view."""
    view = load.view.owner
    t = load.view.type
    assert isinstance(view, MakePartitionViewOp) and isinstance(t, PartitionViewType)
    tile = list(t.tile_dims)
    tile[dim] //= n
    piece_view_t = PartitionViewType.new(
        [ArrayAttr([IntAttr(d) for d in tile]), t.tensor_view, t.dim_map, t.padding_value]
    )
    made = MakePartitionViewOp.create(
        operands=[view.tensor_view], result_types=[piece_view_t], attributes=dict(view.attributes)
    )
    Rewriter.insert_op(made, InsertPoint.after(view))
    return made.result


def load_piece(
    load: LoadViewTkoOp,
    view: SSAValue,
    dim: int,
    index: SSAValue,
    piece_t: TileType,
    at: InsertPoint,
) -> SSAValue:
    """`load` of the piece at `index` along `dim` through `view`, inserted at `at`."""
    indices = list(load.index)
    indices[dim] = index
    token = [load.token] if load.token is not None else []
    piece = LoadViewTkoOp.create(
        operands=[view, *indices, *token],
        result_types=[piece_t, load.result_token.type],
        properties=dict(load.properties),
        attributes=dict(load.attributes),
    )
    Rewriter.insert_op(piece, at)
    return piece.tile


def erase_load(load: LoadViewTkoOp) -> None:
    view = load.view.owner
    Rewriter.erase_op(load)
    if isinstance(view, Operation) and not view.results[0].uses:
        Rewriter.erase_op(view)


def piece_type(load: LoadViewTkoOp, dim: int, n: int) -> TileType:
    return TileType(
        [d // n if i == dim else d for i, d in enumerate(shape_of(load.tile.type))],
        element_type(load.tile.type),
    )


@dataclass(frozen=True)
class Pieces:
    """What both splits start from: the reduced dimension, the insertion point before
    the load, the pieces' view, the first piece's index (`n * i`) and their type."""

    dim: int
    at: InsertPoint
    view: SSAValue
    first: SSAValue
    piece_t: TileType


def pieces_of(load: LoadViewTkoOp, reduce: ReduceOp, n: int) -> Pieces:
    dim = reduce.dimension
    at = InsertPoint.before(load)
    view = piece_view(load, dim, n)
    index = load.index[dim]
    first = MulIOp.build_op([index, constant(n, index.type, at)])
    Rewriter.insert_op(first, at)
    return Pieces(dim, at, view, first.results[0], piece_type(load, dim, n))


def split(load: LoadViewTkoOp, reduce: ReduceOp, body: Operation, n: int) -> ForOp:
    """Replace `load` by a loop over `n` pieces combined into a running tile, which
    `reduce` then reduces (module doc)."""
    p = pieces_of(load, reduce, n)
    dim, at, view, first, piece_t = p.dim, p.at, p.view, p.first, p.piece_t
    init = constant(identity_value(reduce.identities.data[0]), piece_t, at)
    scalar = TileType([], i32)
    lower = constant(0, scalar, at)
    upper = constant(n, scalar, at)
    step = constant(1, scalar, at)
    loop_body = Block(arg_types=[scalar, init.type])
    k, acc = loop_body.args
    inside = InsertPoint.at_end(loop_body)
    at_k = piece_index(first, k)
    Rewriter.insert_op(at_k, inside)
    piece = load_piece(load, view, dim, at_k.results[0], piece_t, inside)
    # The piece combined into the running tile, element by element, with the body (the
    # piece as the element, the running tile as the accumulator).
    combined = apply_body(reduce, [body], acc, piece, inside)
    Rewriter.insert_op(ContinueOp.create(operands=[combined]), inside)
    loop = ForOp.create(
        operands=[lower, upper, step, init],
        result_types=[init.type],
        regions=[Region(loop_body)],
    )
    Rewriter.insert_op(loop, at)
    reduce.operands[0] = loop.results[0]
    erase_load(load)
    return loop


def apply_body(
    reduce: ReduceOp, ops: list[Operation], lower: SSAValue, upper: SSAValue, at: InsertPoint
) -> SSAValue:
    """The reduce's body applied element by element to tiles `upper` (the tree's upper
    half: cuda_tile's first argument, the element) and `lower` (its second, the
    accumulator; `tileaa_reductions` says so of the argument order)."""
    block = reduce.body.block
    shape = list(shape_of(lower.type))
    values: dict[SSAValue, SSAValue] = {block.args[0]: upper, block.args[1]: lower}
    for op in ops:
        new = type(op).create(
            operands=[values[v] for v in op.operands],
            result_types=[TileType(shape, element_type(op.results[0].type))],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        Rewriter.insert_op(new, at)
        values[op.results[0]] = new.results[0]
    last = block.last_op
    assert last is not None
    return values[last.operands[0]]


def split_in_tree_order(
    load: LoadViewTkoOp, reduce: ReduceOp, ops: list[Operation], n: int
) -> None:
    """Replace `load` by its `n` pieces combined element by element in the order of the
    reduce's tree, into one piece that `reduce` then reduces (module doc, "In tree
    order"): nested loops of two trips, one a bit of the piece index from the lowest,
    each combining the result of its inner loop on its second trip with the first's."""
    p = pieces_of(load, reduce, n)
    dim, at, view, first, piece_t = p.dim, p.at, p.view, p.first, p.piece_t
    bits = n.bit_length() - 1
    scalar = TileType([], i32)
    zero = constant(0, scalar, at)
    two = constant(2, scalar, at)
    one = constant(1, scalar, at)
    # The loop-carried tile's start, replaced on the first trip.
    start = constant(identity_value(reduce.identities.data[0]), piece_t, at)

    def level(bit: int, offset: SSAValue | None, where: InsertPoint) -> SSAValue:
        """The combination of the pieces whose index is `offset` plus any multiple of
        2^bit (all of them from bit 0)."""
        if bit == bits:
            at_k = piece_index(first, offset) if offset is not None else None
            if at_k is not None:
                Rewriter.insert_op(at_k, where)
            k = at_k.results[0] if at_k is not None else first
            return load_piece(load, view, dim, k, piece_t, where)
        body = Block(arg_types=[scalar, piece_t])
        h, acc = body.args
        inside = InsertPoint.at_end(body)
        here: SSAValue = h
        if bit:
            scaled = MulIOp.build_op([h, constant(1 << bit, scalar, inside)])
            Rewriter.insert_op(scaled, inside)
            here = scaled.results[0]
        if offset is not None:
            added = AddIOp.build_op([offset, here])
            Rewriter.insert_op(added, inside)
            here = added.results[0]
        part = level(bit + 1, here, inside)
        is_first = CmpIOp.build_op(
            [h, zero],
            comparison_predicate=ComparisonPredicateAttr(ComparisonPredicate.EQUAL),
            signedness=SignednessAttr(Signedness.SIGNED),
        )
        Rewriter.insert_op(is_first, inside)
        taken, combined = Block(), Block()
        Rewriter.insert_op(YieldOp.create(operands=[part]), InsertPoint.at_end(taken))
        value = apply_body(reduce, ops, acc, part, InsertPoint.at_end(combined))
        Rewriter.insert_op(YieldOp.create(operands=[value]), InsertPoint.at_end(combined))
        choice = IfOp.create(
            operands=[is_first.results[0]],
            result_types=[piece_t],
            regions=[Region(taken), Region(combined)],
        )
        Rewriter.insert_op(choice, inside)
        Rewriter.insert_op(ContinueOp.create(operands=[choice.results[0]]), inside)
        loop = ForOp.create(
            operands=[zero, two, one, start],
            result_types=[piece_t],
            regions=[Region(body)],
        )
        Rewriter.insert_op(loop, where)
        return loop.results[0]

    reduce.operands[0] = level(0, None, at)
    erase_load(load)


@dataclass(frozen=True)
class SplitReductionsPass(ModulePass):
    """Load in pieces, combined element by element, the tiles loaded only to be reduced
    that do not fit in a thread's registers (module doc)."""

    name = "split-large-reductions"

    arch: str = "sm_90a"
    num_warps: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = resolve_gpu_name(self.arch, "split-large-reductions target")
        for fn in [f for f in op.walk() if isinstance(f, EntryOp)]:
            warps = kernel_warps(fn, self.num_warps)
            threads = warps * WARP_SIZE
            budget = register_budget(threads, occupancy(fn, arch))
            for load in [o for o in fn.walk() if isinstance(o, LoadViewTkoOp)]:
                words = -(-accumulator_words(load.tile.type) // threads)
                if words + REDUCTION_RESERVE <= budget:
                    continue
                found = why_not(load)
                if isinstance(found, str):
                    continue
                reduce, body = found
                tree = isinstance(body, list)
                most = TREE_PIECE_REGISTERS if tree else PIECE_REGISTERS
                n = pieces(load.tile.type, reduce.dimension, threads, most)
                # Two pieces (the running tile and the next) must fit where the whole
                # tile did not: a short reduced dimension cannot be cut fine enough.
                if n == 1 or 2 * -(-words // n) + REDUCTION_RESERVE > budget:
                    continue
                if isinstance(body, list):
                    split_in_tree_order(load, reduce, body, n)
                else:
                    split(load, reduce, body, n)
