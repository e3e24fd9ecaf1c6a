"""`split-dot-accumulators{arch=sm_90a num-warps=4}`: a K loop whose accumulator takes
more registers a thread than the target can give runs once per half of the output tile.

A 256x256 f32 accumulator is 256 KiB, the whole register file of an SM: at the most
warps a dot kernel gets (`MAX_DOT_WARPS`, 8: 256 registers a thread) no warp count
keeps it in registers, and ptxas spills (NVIDIA's cuTile 256x256x64 f16 matmul: 1,708
bytes of spill stores on sm_90a; tileiras spills 6-9 KB of stack on such kernels).
The only schedule without spills runs the K loop once per half of the tile, each half
accumulator 128 registers a thread, re-reading the shared operand (from L2) and storing
each half's epilogue before the next half starts:

    %acc = for %k ... iter_values(%c = %zero) { %a = load_view_tko %A[%m, %k]
               %b = load_view_tko %B[%k, %n]  %d = mmaf %a, %b, %c ; continue %d }
    %o = ftof %acc ; store_view_tko %o, %C[%m, %n]

becomes, for h = 0 then 1 (`%B2`, `%C2`: the same tensor_views tiled 64x128, 256x128),

    %acc_h = for %k ... iter_values(%c = %zero_half) { %a = load_view_tko %A[%m, %k]
               %b = load_view_tko %B2[%k, 2 * %n + h]  %d = mmaf %a, %b, %c ; ... }
    %o_h = ftof %acc_h ; store_view_tko %o_h, %C2[%m, 2 * %n + h]

A half is addressed through a partition_view whose tile is halved along the split
dimension, at index `2 i + h`: the view bound-checks it, so ragged edges stay exact (a
half wholly outside the tensor reads padding and stores nothing).  That is why the pass
runs on cuda_tile, before `convert-cuda-tile-to-tileaa`: there the loads and stores
still go through views; in nv_tileaa they are pointer tiles and masks built for the
whole tile.  Everything later (layouts, rings, groups in flight, warp specialization)
then sees ordinary 256x128 dots.  Operands reached through `reshape`, `permute`,
`broadcast` and elementwise ops are halved through them (the swizzled scale tiles of
the block-scaled GEMMs: a reshape halves with its source where the elements before the
split dimension are as many on both sides); any other value is cut with `extract`.

When (the threshold): the accumulator's 32-bit words spread over the warps the kernel
will get (`assign_layouts.dot_warps`: the requested warps doubled, up to
`MAX_DOT_WARPS`, while it needs more than `DOT_ACCUMULATOR_REGISTERS` a thread), plus a
reserve for everything else the loop keeps (addresses, indices, operand fragments),
exceed the registers a thread may have with that many threads and the kernel's
`occupancy` hint (`targets.register_budget`: 255 for 256 threads, 128 for two CTAs of
256).  256x256 f32: 256 + 64 > 255, split into two 256x128 (128 + 64 <= 255); with
`occupancy = 2`, into four.  The split is along N (the accumulator's last dimension:
B, its scale and the output's columns are halved, A re-read), and repeated on the
halves while they still do not fit (N halves measured better than M halves:
t_matmul_f16_256x256x64 on sm_90a 234 registers against 254; the block-scaled GEMMs,
whose spills come from dequantizing A in registers, no better either way; the fp8
batched GEMM spills none in two).

Not on `tcgen05` targets (sm_100a): the accumulator lives in tensor memory there
(256x256 f32 is exactly its 512 columns of 128 lanes), so its registers are not what
spills, and none of the kernels this pass splits elsewhere spills whole there (the f16
GEMMs take 88-92 registers, the fp8 batched one 72).  Split, the f16 GEMMs failed to
compile: `tcgen05` rings are the kernel's for its whole run, and two loops' rings (337
KB) exceed an SM's shared memory.

Block-scaled dots on tcgen05 targets: a chain of `mmaf_scaled` that no block-scaled
`tcgen05.mma` takes whole but one takes each N half of (`scaled_mma.native_form`: the
256x256 samples, whose accumulator takes all 512 tensor-memory columns and leaves none
for the scale factors) is split once along N, under the same legality; each 256x128
half is then native (256 columns and 12 a scale set), and the two loops, one after the
other, share their accumulator columns (`tmem_accumulators._Group.overlaps`).  The cost
is A: each half loads A's 256 x K tile and its scales again (B and its scales are
halved), where tileiras runs the tile on a CTA pair (`.cta_group::2`).  Where the split
is not legal, the dot keeps the bf16 dots (`scaled_mma`) with both reasons.

Where (legality): the loop carries no tile other than the accumulator (others are
0-d scalars or indices), so each pass computes the same scalars; every op of its body
is pure or a weak load, so running it twice reads the same values and writes nothing;
the accumulator's only uses in the loop are a chain of `mmaf`/`mmai`/`mmaf_scaled` it
flows through to `continue`; and after the loop it flows only through elementwise ops,
`reshape`, `permute` and `broadcast` into `store_view_tko` on partition views, in the
loop's block.  Pure ops between the loop and those stores that do not depend on them
move above the loop; anything else there keeps the loop whole.  The halves' stores are
chained by their tokens, and the loop carries no token, so no token orders a load of
the second pass after a store of the first (token-ordered operations are not
constrained by program order, cuda_tile's `load_view_tko`).

Each split dot records the decision (`ACCUMULATOR_SPLIT_ATTR`, carried to
`nv_tileas.dot`), and so does a dot left whole whose accumulator does not fit, with the
reason; `tileir-as --remarks` reports both (`AccumulatorSplit`, `AccumulatorNotSplit`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Pure

from tileir.analysis.axis_info import element_bytes
from tileir.conversions.scaled_mma import native_form
from tileir.dialects.cuda_tile.attributes import (
    MemoryOrderingSemantics,
    enum_of_i32_attr,
)
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.control_flow import ContinueOp, ForOp, IfOp, YieldOp
from tileir.dialects.cuda_tile.ops.core import (
    BroadcastOp,
    ConstantOp,
    EntryOp,
    ReshapeOp,
    ShapeOp,
)
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp
from tileir.dialects.cuda_tile.ops.integer import AddIOp, MulIOp
from tileir.dialects.cuda_tile.ops.mma import MmaFOp, MmaFScaledOp, MmaIOp
from tileir.dialects.cuda_tile.ops.shape import ExtractOp, PermuteOp
from tileir.dialects.cuda_tile.ops.views import (
    LoadViewTkoOp,
    MakePartitionViewOp,
    StoreViewTkoOp,
)
from tileir.dialects.cuda_tile.types import PartitionViewType, TileType
from tileir.dialects.nv_tileas.layouts import WARP_SIZE
from tileir.targets import ARCHS, register_budget, resolve_gpu_name
from tileir.transforms.tileas.assign_layouts import (
    DOT_ACCUMULATOR_REGISTERS,
    MAX_DOT_WARPS,
    doubled_warps,
)
from tileir.transforms.tileas.occupancy import hinted_occupancy

#: The discardable attribute a dot records the decision in (a sentence).
ACCUMULATOR_SPLIT_ATTR = "tileir.accumulator_split"
#: Registers a thread keeps beside the accumulator for everything else the K loop
#: holds (as `pipeline_dot_operands.REGISTER_A_RESERVE`).
ACCUMULATOR_RESERVE = 64

MMA_OPS = (MmaFOp, MmaIOp, MmaFScaledOp)
#: Operand positions of an mma op: A, B, the accumulator, A's scale, B's scale.
LHS, RHS, ACC, LHS_SCALE, RHS_SCALE = range(5)


def accumulator_words(t: Attribute) -> int:
    """32-bit words of a tile of `t` over the whole CTA."""
    return math.prod(shape_of(t)) * max(1, element_bytes(element_type(t)) // 4)


def dot_warps(words: int, requested: int) -> int:
    """The warps `assign_layouts.dot_warps` gives a kernel whose largest accumulator
    has `words` words."""
    return doubled_warps(words, requested, DOT_ACCUMULATOR_REGISTERS, MAX_DOT_WARPS)


def occupancy(fn: Operation | None, arch: str) -> int:
    """The CTAs per SM the kernel's `occupancy` hint asks for on `arch` (1 without)."""
    hints = fn.optimization_hints if isinstance(fn, EntryOp) else None
    return max(1, hinted_occupancy(hints, arch) or 1)


@dataclass(frozen=True)
class Budget:
    """What decides whether an accumulator fits (module doc)."""

    requested_warps: int
    ctas_per_sm: int
    reserve: int = ACCUMULATOR_RESERVE

    def registers(self, t: Attribute) -> int:
        """Accumulator registers a thread at the warps the kernel will get."""
        words = accumulator_words(t)
        return -(-words // (dot_warps(words, self.requested_warps) * WARP_SIZE))

    def fits(self, t: Attribute) -> bool:
        words = accumulator_words(t)
        threads = dot_warps(words, self.requested_warps) * WARP_SIZE
        return self.registers(t) + self.reserve <= register_budget(threads, self.ctas_per_sm)


def half_type(t: Attribute, dim: int) -> TileType:
    shape = list(shape_of(t))
    shape[dim] //= 2
    return TileType(shape, element_type(t))


def reshape_dim(src: Sequence[int], dst: Sequence[int], d: int) -> int | None:
    """The dimension of `dst` whose halves hold the same elements (row-major) as the
    halves of `src`'s dimension `d`: one with as many elements before it, and even."""
    if src[d] % 2:
        return None
    before = math.prod(src[:d])
    for e in range(len(dst)):
        if math.prod(dst[:e]) == before and dst[e] % 2 == 0:
            return e
    return None


def accumulator_chain(loop: ForOp, index: int) -> list[Operation] | None:
    """The mma ops iteration argument `index` of `loop` flows through, in order, to the
    loop's `continue`; None where it is not only such a chain."""
    value: SSAValue = loop.iter_args[index]
    chain: list[Operation] = []
    while True:
        uses = list(value.uses)
        if len(uses) != 1:
            return None
        user, at = uses[0].operation, uses[0].index
        if isinstance(user, ContinueOp) and user.parent_block() is loop.body:
            return chain if chain and at == index else None
        if not isinstance(user, MMA_OPS) or at != ACC or user.parent_block() is not loop.body:
            return None
        chain.append(user)
        value = user.results[0]


def weak_load(op: Operation) -> bool:
    """Whether `op` is a weak `load_view_tko`/`load_ptr_tko` (no ordering: reading
    again, or not at all, changes nothing)."""
    if not isinstance(op, LoadViewTkoOp) and op.name != "cuda_tile.load_ptr_tko":
        return False
    semantics = op.properties.get("memory_ordering_semantics")
    return (
        semantics is not None
        and enum_of_i32_attr(MemoryOrderingSemantics, semantics) is MemoryOrderingSemantics.WEAK
    )


def body_effect(loop: ForOp) -> str | None:
    """Why running the body of `loop` twice could differ from running it once, or None."""
    for op in loop.body.walk():
        if op.has_trait(Pure) or isinstance(op, ContinueOp | YieldOp | IfOp | ForOp):
            continue
        if isinstance(op, LoadViewTkoOp) or op.name == "cuda_tile.load_ptr_tko":
            semantics = enum_of_i32_attr(
                MemoryOrderingSemantics, op.properties["memory_ordering_semantics"]
            )
            if semantics is MemoryOrderingSemantics.WEAK:
                continue
            return f"its {op.name} is {semantics.value}, not weak"
        return f"its body has side effects ({op.name})"
    return None


@dataclass
class Epilogue:
    """What the loop's accumulator result flows through after the loop: the ops in
    block order, the split dimension of each value, and the ops to move above the loop."""

    ops: list[Operation] = field(default_factory=list[Operation])
    dims: dict[SSAValue, int] = field(default_factory=dict[SSAValue, int])
    hoisted: list[Operation] = field(default_factory=list[Operation])


def result_dim(op: Operation, operand: SSAValue, dim: int) -> int | str:
    """The split dimension of `op`'s result given `operand`'s, or why it has none."""
    if isinstance(op, ReshapeOp):
        e = reshape_dim(shape_of(operand.type), shape_of(op.results[0].type), dim)
        return e if e is not None else "a reshape that mixes the split dimension"
    if isinstance(op, BroadcastOp):
        return dim
    if isinstance(op, PermuteOp):
        return op.perm.index(dim)
    if isinstance(op, ElementwiseOp) and not isinstance(op, ShapeOp):
        if shape_of(op.results[0].type) != shape_of(operand.type):
            return f"{op.name} changes the shape"
        return dim
    return f"the accumulator feeds {op.name}"


def epilogue_of(loop: ForOp, index: int, dim: int) -> Epilogue | str:
    """The epilogue of iteration argument `index` (module doc), or why there is none
    that can run per half."""
    block = loop.parent_block()
    assert block is not None
    out = Epilogue()
    out.dims[loop.results[index]] = dim
    work = [loop.results[index]]
    seen: set[Operation] = set()
    while work:
        value = work.pop()
        for use in list(value.uses):
            op = use.operation
            if op.parent_block() is not block:
                return "the accumulator is used in another block"
            if isinstance(op, StoreViewTkoOp):
                if use.index != 0 or not isinstance(op.view.owner, MakePartitionViewOp):
                    return "the accumulator is stored through a view other than a partition_view"
                seen.add(op)
                continue
            d = result_dim(op, value, out.dims[value])
            if isinstance(d, str):
                return d
            result = op.results[0]
            if result in out.dims and out.dims[result] != d:
                return f"{op.name} mixes halves of the accumulator"
            if op not in seen:
                seen.add(op)
                out.dims[result] = d
                work.append(result)
    ordered = [op for op in block.ops if op in seen]
    if not ordered:
        return "the accumulator is not stored"
    # Ops between the loop and the last store: pure ones that do not depend on the
    # loop or the epilogue move above the loop.
    between: list[Operation] = []
    op = loop.next_op
    last = ordered[-1]
    moved: set[Operation] = set()
    while op is not None and op is not last:
        if op not in seen:
            depends = any(
                isinstance(v.owner, Operation)
                and (v.owner is loop or v.owner in seen)
                and v.owner not in moved
                for v in op.operands
            )
            if depends or not op.has_trait(Pure) or op.regions:
                return f"{op.name} runs between the loop and the accumulator's stores"
            between.append(op)
            moved.add(op)
        op = op.next_op
    out.ops, out.hoisted = ordered, between
    return out


def index_constant(value: int, at: InsertPoint) -> SSAValue:
    c = ConstantOp.splat(value, TileType([], i32))
    Rewriter.insert_op(c, at)
    return c.result


def splat_half(value: DenseIntOrFPElementsAttr, half_t: TileType) -> DenseIntOrFPElementsAttr:
    """The splat `value` over `half_t`'s shape (its first element's bytes repeated)."""
    data = value.data.data
    size = len(data) // math.prod(value.get_shape() or (1,))
    count = math.prod(half_t.dims)
    return DenseIntOrFPElementsAttr(
        TensorType(value.get_element_type(), list(half_t.dims)),
        BytesAttr(data[:size] * count),
    )


def splat_constant(op: ConstantOp) -> bool:
    data = op.value.data.data
    n = math.prod(shape_of(op.result.type))
    size = len(data) // n if n else 0
    return size > 0 and data == data[:size] * n


class Halver:
    """Builds half `h` of values along a dimension, sharing half views."""

    def __init__(self) -> None:
        self.views: dict[tuple[SSAValue, int], SSAValue] = {}
        self.indices: dict[tuple[SSAValue, int], SSAValue] = {}

    def index(self, index: SSAValue, h: int) -> SSAValue:
        """`2 * index + h` (the index of half `h` of tile `index`), computed once, right
        where `index` is defined (outside the loop when it is loop-invariant)."""
        if (index, h) in self.indices:
            return self.indices[(index, h)]
        if h == 0:
            owner = index.owner
            at = (
                InsertPoint.after(owner)
                if isinstance(owner, Operation)
                else InsertPoint.at_start(owner)
            )
            twice = MulIOp.build_op([index, index_constant(2, at)])
            Rewriter.insert_op(twice, at)
            result = twice.results[0]
        else:
            twice = self.index(index, 0)
            assert isinstance(twice.owner, Operation)
            at = InsertPoint.after(twice.owner)
            plus = AddIOp.build_op([twice, index_constant(h, at)])
            Rewriter.insert_op(plus, at)
            result = plus.results[0]
        self.indices[(index, h)] = result
        return result

    def view(self, view: SSAValue, dim: int) -> SSAValue:
        """`view` (a partition view) with its tile halved along tile dimension `dim`."""
        key = (view, dim)
        if key not in self.views:
            owner = view.owner
            t = view.type
            assert isinstance(owner, MakePartitionViewOp) and isinstance(t, PartitionViewType)
            tile = list(t.tile_dims)
            tile[dim] //= 2
            half_t = PartitionViewType.new(
                [ArrayAttr([IntAttr(d) for d in tile]), t.tensor_view, t.dim_map, t.padding_value]
            )
            made = MakePartitionViewOp.create(
                operands=[owner.tensor_view],
                result_types=[half_t],
                attributes=dict(owner.attributes),
            )
            Rewriter.insert_op(made, InsertPoint.after(owner))
            self.views[key] = made.result
        return self.views[key]

    def half(self, value: SSAValue, dim: int, h: int, at: Operation) -> SSAValue:
        """Half `h` of `value` along `dim`, built before its definition (or, cut with
        `extract`, before `at`)."""
        op = value.owner
        half_t = half_type(value.type, dim)
        if (
            isinstance(op, LoadViewTkoOp)
            and isinstance(op.view.type, PartitionViewType)
            and shape_of(op.tile.type)[dim] % 2 == 0
        ):
            index = list(op.index)
            index[dim] = self.index(index[dim], h)
            token = [op.token] if op.token is not None else []
            load = LoadViewTkoOp.create(
                operands=[self.view(op.view, dim), *index, *token],
                result_types=[half_t, op.result_token.type],
                properties=dict(op.properties),
                attributes=dict(op.attributes),
            )
            Rewriter.insert_op(load, InsertPoint.before(op))
            return load.tile
        if isinstance(op, ConstantOp) and splat_constant(op):
            c = ConstantOp(splat_half(op.value, half_t), half_t)
            Rewriter.insert_op(c, InsertPoint.before(op))
            return c.result
        if isinstance(op, Operation) and len(op.results) == 1 and not op.regions:
            source_dims = operand_dims(op, dim)
            if source_dims is not None:
                operands = [
                    self.half(v, d, h, op) if d is not None else v
                    for v, d in zip(op.operands, source_dims, strict=True)
                ]
                new = type(op).create(
                    operands=operands,
                    result_types=[half_t],
                    properties=dict(op.properties),
                    attributes=dict(op.attributes),
                )
                Rewriter.insert_op(new, InsertPoint.before(op))
                return new.results[0]
        before = InsertPoint.before(at)
        index = [index_constant(h if d == dim else 0, before) for d in range(len(half_t.dims))]
        cut = ExtractOp.create(operands=[value, *index], result_types=[half_t])
        Rewriter.insert_op(cut, before)
        return cut.results[0]


def operand_dims(op: Operation, dim: int) -> list[int | None] | None:
    """For an op whose result's halves along `dim` are computed from halves of its
    operands: the dimension of each operand to halve (None: taken whole); else None."""
    shape = shape_of(op.results[0].type)
    if isinstance(op, ReshapeOp):
        d = reshape_dim(shape, shape_of(op.operands[0].type), dim)
        return [d] if d is not None else None
    if isinstance(op, PermuteOp):
        return [op.perm[dim]]
    if isinstance(op, BroadcastOp):
        return [dim if shape_of(op.operands[0].type)[dim] > 1 else None]
    if isinstance(op, ElementwiseOp) and not isinstance(op, ShapeOp):
        if any(shape_of(v.type) not in (shape, ()) for v in op.operands):
            return None
        return [dim if shape_of(v.type) == shape else None for v in op.operands]
    return None


def split_operands(op: Operation, dim: int, rank: int) -> list[tuple[int, int]]:
    """The operands of an mma op to halve, each with its dimension, when its
    accumulator (of `rank`) is split along `dim`."""
    if dim == rank - 1:
        positions = [RHS, RHS_SCALE] if isinstance(op, MmaFScaledOp) else [RHS]
    else:
        positions = [LHS, LHS_SCALE] if isinstance(op, MmaFScaledOp) else [LHS]
    return [(p, dim) for p in positions]


def erase_dead(ops: Sequence[Operation]) -> None:
    """Erase `ops` that no longer have uses, and then what only they used, if that is
    pure or a weak load."""
    work = list(ops)
    while work:
        op = work.pop()
        if op.parent is None or any(r.uses for r in op.results):
            continue
        if not (op.has_trait(Pure) or weak_load(op)):
            continue
        owners = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        Rewriter.erase_op(op)
        work.extend(owners)


def split_loop(
    loop: ForOp, index: int, dim: int, epilogue: Epilogue, passes: int = 2
) -> list[ForOp]:
    """Run `loop` and its epilogue once per half of iteration argument `index` along
    `dim` (module doc); the new loops, in order."""
    halver = Halver()
    for op in epilogue.hoisted:
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(loop))
    chain = accumulator_chain(loop, index)
    assert chain is not None
    rank = len(shape_of(loop.iter_args[index].type))
    outside = [
        v.owner
        for op in loop.walk()
        for v in op.operands
        if isinstance(v.owner, Operation) and not loop.is_ancestor(v.owner)
    ] + [v.owner for op in epilogue.ops for v in op.operands if isinstance(v.owner, Operation)]
    loops: list[ForOp] = []
    stores: dict[Operation, SSAValue] = {}
    for h in range(passes):
        init = halver.half(loop.init_values[index], dim, h, loop)
        inits = list(loop.init_values)
        inits[index] = init
        arg_types = [a.type for a in loop.body.args]
        arg_types[index + 1] = init.type
        body = Block(arg_types=arg_types)
        mapping: dict[SSAValue, SSAValue] = dict(zip(loop.body.args, body.args, strict=True))
        for op in loop.body.ops:
            body.add_op(op.clone(value_mapper=mapping))
        acc: SSAValue = body.args[index + 1]
        for dot in chain:
            copy = mapping[dot.results[0]].owner
            assert isinstance(copy, Operation)
            operands = list(copy.operands)
            operands[ACC] = acc
            new = type(copy).create(
                operands=operands,
                result_types=[acc.type],
                properties=dict(copy.properties),
                attributes=dict(copy.attributes),
            )
            Rewriter.insert_op(new, InsertPoint.before(copy))
            copy.results[0].replace_all_uses_with(new.results[0])
            Rewriter.erase_op(copy)
            for position, d in split_operands(new, dim, rank):
                full = new.operands[position]
                new.operands[position] = halver.half(full, d, h, new)
                if isinstance(full.owner, Operation):
                    erase_dead([full.owner])
            acc = new.results[0]
        result_types = [r.type for r in loop.results]
        result_types[index] = init.type
        copy_loop = ForOp.create(
            operands=[loop.lower_bound, loop.upper_bound, loop.step, *inits],
            result_types=result_types,
            properties=dict(loop.properties),
            attributes=dict(loop.attributes),
            regions=[Region(body)],
        )
        Rewriter.insert_op(copy_loop, InsertPoint.before(loop))
        loops.append(copy_loop)
        values: dict[SSAValue, SSAValue] = dict(zip(loop.results, copy_loop.results, strict=True))
        for op in epilogue.ops:
            values.update(epilogue_copy(op, epilogue, values, stores, halver, h, loop))
    for op in epilogue.ops:
        if isinstance(op, StoreViewTkoOp):
            op.result_token.replace_all_uses_with(stores[op])
    for op in reversed(epilogue.ops):
        Rewriter.erase_op(op)
    for old, new in zip(loop.results, loops[-1].results, strict=True):
        if old.uses:
            old.replace_all_uses_with(new)
    Rewriter.erase_op(loop)
    erase_dead(outside)
    return loops


def epilogue_copy(
    op: Operation,
    epilogue: Epilogue,
    values: dict[SSAValue, SSAValue],
    stores: dict[Operation, SSAValue],
    halver: Halver,
    h: int,
    loop: ForOp,
) -> dict[SSAValue, SSAValue]:
    """Half `h` of epilogue op `op`, inserted before `loop`; its results' halves."""
    at = InsertPoint.before(loop)
    if isinstance(op, StoreViewTkoOp):
        dim = epilogue.dims[op.tile]
        index = list(op.index)
        index[dim] = halver.index(index[dim], h)
        token = stores.get(op, op.token)
        new = StoreViewTkoOp.create(
            operands=[values[op.tile], halver.view(op.view, dim), *index]
            + ([token] if token is not None else []),
            result_types=[op.result_token.type],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        Rewriter.insert_op(new, at)
        stores[op] = new.result_token
        return {}
    result = op.results[0]
    dim = epilogue.dims[result]
    dims = operand_dims(op, dim)
    assert dims is not None
    operands = [
        values[v] if v in values else (halver.half(v, d, h, loop) if d is not None else v)
        for v, d in zip(op.operands, dims, strict=True)
    ]
    new = type(op).create(
        operands=operands,
        result_types=[half_type(result.type, dim)],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    Rewriter.insert_op(new, at)
    return {result: new.results[0]}


@dataclass(frozen=True)
class SplitAccumulatorsPass(ModulePass):
    """Split K loops whose accumulators do not fit in registers, or on tcgen05 targets
    whose block-scaled accumulators and scales do not fit in tensor memory (module doc)."""

    name = "split-dot-accumulators"

    arch: str = "sm_90a"
    num_warps: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = resolve_gpu_name(self.arch, "split-dot-accumulators target")
        if ARCHS[arch].tcgen05:
            # The accumulators are in tensor memory (module doc): only a block-scaled
            # dot whose scales do not fit beside it there is split.
            for loop in [o for o in op.walk() if isinstance(o, ForOp)]:
                self.split_block_scaled(loop, arch)
            return
        for fn in [f for f in op.walk() if isinstance(f, EntryOp)]:
            budget = Budget(self.num_warps, occupancy(fn, arch), ACCUMULATOR_RESERVE)
            for loop in [o for o in fn.walk() if isinstance(o, ForOp)]:
                self.split(loop, budget)

    def split(self, loop: ForOp, budget: Budget) -> None:
        for index, arg in enumerate(loop.iter_args):
            chain = accumulator_chain(loop, index)
            if chain is None:
                continue
            if budget.fits(arg.type):
                continue
            registers = budget.registers(arg.type)
            final = split_until_fits(loop, index, budget)
            if isinstance(final, str):
                message = f"accumulator of {registers} registers a thread not split: {final}"
                for dot in chain:
                    dot.attributes[ACCUMULATOR_SPLIT_ATTR] = StringAttr(message)
                continue
            each = budget.registers(final[0].iter_args[index].type)
            message = (
                f"accumulator of {registers} registers a thread split into {len(final)} "
                f"passes of {each}"
            )
            for piece in final:
                for dot in accumulator_chain(piece, index) or []:
                    dot.attributes[ACCUMULATOR_SPLIT_ATTR] = StringAttr(message)
            return  # the loop is gone; its pieces carry only this accumulator

    def split_block_scaled(self, loop: ForOp, arch: str) -> None:
        """Split `loop` in two along N where its accumulator is a chain of
        `mmaf_scaled` that no block-scaled `tcgen05.mma` takes whole (the tensor-memory
        columns of a 256x256 accumulator and its scales) but one takes each half of
        (module doc, "Block-scaled dots on tcgen05 targets")."""
        for index in range(len(loop.iter_args)):
            chain = accumulator_chain(loop, index)
            if not chain or not all(isinstance(d, MmaFScaledOp) for d in chain):
                continue
            scaled = [d for d in chain if isinstance(d, MmaFScaledOp)]
            whole = native_form(scaled[0], arch, self.num_warps)
            if not isinstance(whole, str):
                continue
            if any(isinstance(native_form(d, arch, self.num_warps, 2), str) for d in scaled):
                continue
            rank = len(shape_of(loop.iter_args[index].type))
            epilogue = why_not(loop, index, rank - 1)
            if isinstance(epilogue, str):
                message = f"block-scaled accumulator not split in two along N: {epilogue}"
                for dot in chain:
                    dot.attributes[ACCUMULATOR_SPLIT_ATTR] = StringAttr(message)
                continue
            message = (
                f"block-scaled accumulator split into 2 passes along N ({whole}; "
                "each half is one block-scaled tcgen05.mma)"
            )
            for piece in split_loop(loop, index, rank - 1, epilogue):
                for dot in accumulator_chain(piece, index) or []:
                    dot.attributes[ACCUMULATOR_SPLIT_ATTR] = StringAttr(message)
            return


def short_type(t: Attribute) -> str:
    """`tile<256xf32>`, as the IR prints a tile type (other types in their long form)."""
    if isinstance(t, TileType):
        return "tile<" + "x".join([*map(str, t.dims), str(t.element_type)]) + ">"
    return str(t)


def why_not(loop: ForOp, index: int, dim: int) -> Epilogue | str:
    """The epilogue of a legal split of `loop` along `dim`, or why there is none."""
    for i, arg in enumerate(loop.iter_args):
        if (i != index and shape_of(arg.type)) or not isinstance(arg.type, TileType):
            return f"the loop also carries {short_type(arg.type)}"
    if shape_of(loop.iter_args[index].type)[dim] % 2:
        return "the split dimension is odd"
    effect = body_effect(loop)
    if effect is not None:
        return effect
    return epilogue_of(loop, index, dim)


def split_until_fits(loop: ForOp, index: int, budget: Budget) -> list[ForOp] | str:
    """Split `loop` in halves, and the halves again, until the accumulator fits; the
    loops, or why `loop` cannot be split."""
    rank = len(shape_of(loop.iter_args[index].type))
    epilogue = why_not(loop, index, rank - 1)
    if isinstance(epilogue, str):
        return epilogue
    done: list[ForOp] = []
    for piece in split_loop(loop, index, rank - 1, epilogue):
        if budget.fits(piece.iter_args[index].type):
            done.append(piece)
            continue
        more = split_until_fits(piece, index, budget)
        if isinstance(more, str):
            done.append(piece)
        else:
            done.extend(more)
    return done
