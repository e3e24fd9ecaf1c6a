"""`split-dot-k-steps{arch=sm_90a}`: a K loop whose operand stage does not fit twice in
the shared memory a kernel's rings may take runs twice (or 2^n times) as many
iterations, each a K step of half (a 2^n-th) the width, so that its operands get a ring.

`wgmma` (sm_90a) and `tcgen05` (sm_100a) keep MMAs in flight while the next stage
arrives only where every operand's ring has a slot for the stage the MMAs read and one
for the stage being loaded (`pipeline_dot_operands.ring_slots`: `stages` slots at the
least, two).  cuTile's AllGatherMatmul sample is a 128x128x128 tf32 GEMM read as f32:
one stage is 64 + 64 KiB, two do not fit the 227 KiB of sm_90a, so its `wgmma` waited
for each iteration, and on sm_100a A got no ring at all.  With a K step of 64 a stage
is 32 + 32 KiB, and the rings have room for several:

    %acc = for %k in (%lb to %ub, step 1) iter_values(%c = %zero) {
        %a = load_view_tko weak %A[%m, %k] -> tile<128x128xf32>   (A tiled 128x128)
        %b = load_view_tko weak %B[%k, %n] -> tile<128x128xf32>   (B tiled 128x128)
        %d = mmaf (ftof %a), (ftof %b), %c ; continue %d }

becomes (`%A2`, `%B2`: the same tensor_views tiled 128x64 and 64x128)

    %acc = for %k in (2 * %lb to 2 * %ub, step 1) iter_values(%c = %zero) {
        %a = load_view_tko weak %A2[%m, %k] -> tile<128x64xf32>
        %b = load_view_tko weak %B2[%k, %n] -> tile<64x128xf32>
        %d = mmaf (ftof %a), (ftof %b), %c ; continue %d }

Why it is the same computation: K block `k` of the old step holds the elements of the
new steps `2k` and `2k + 1`, in that order, and the views bound-check each new tile as
they did the old one, so a ragged K edge reads the same padding (a new step wholly
outside the tensor reads only padding, as the old tile's second half did).  On the
tensor cores the f32 accumulation is the same: they accumulate K in steps of 8 to 32
(the engine's K) in order either way.  The interpreter's `mmaf` sums one call exactly
and rounds once, so after the split it rounds once more per old K block (the last bit
of f32 may differ for inexact data; test_split_k_steps keeps its sums exact).  The pass
runs on cuda_tile, before `convert-cuda-tile-to-tileaa`, for the reason
`split-dot-accumulators` does: here the loads still go through partition views, which
address a narrower tile by its index alone; in nv_tileaa they are pointer tiles and
masks built for the whole tile.

When (the threshold): on a target whose MMAs stay in flight on rings (sm_90a, sm_100a,
sm_103a; `mma.sync` reads its fragments into registers and needs one slot), where two
stages of the loop's operand tiles, as loaded (the rings hold the raw tiles: f32 for
tf32 dots rounded in shared memory), exceed the shared memory the kernel may declare
(`ring_budget.kernel_shared_budget`'s share of the CTAs per SM the `occupancy` hint asks
for) less `ring_budget.PERSISTENT_RESERVE`.  The step is halved until two stages fit,
and never below the engine's K (`ENGINE_K_BYTES` of a row): a step is split only where
it is at least twice that.

Where (legality): the loop's step is the constant 1 and it carries nothing but the
accumulator; the accumulator flows through one `mmaf`/`mmai` to `continue`; its body
has no side effects (a weak load read twice as often changes nothing); A and B are each
a weak `load_view_tko` of a partition view in the body, reached through single-use
elementwise ops (their other operands splat constants), whose K index is the induction
variable itself, which nothing else uses.  Block-scaled dots (`mmaf_scaled`) keep their
step: their scale tiles are laid along K in swizzled groups (not yet).

Each split dot records the decision (`K_STEP_SPLIT_ATTR`, carried to `nv_tileas.dot`),
and so does a dot left whole whose stage is too big, with the reason; `tileir-as
--remarks` reports both (`KStepSplit`, `KStepNotSplit`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.dialects.cuda_tile.canonicalize import constant_integer
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.control_flow import ForOp
from tileir.dialects.cuda_tile.ops.core import ConstantOp, EntryOp, ShapeOp
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp
from tileir.dialects.cuda_tile.ops.integer import MulIOp
from tileir.dialects.cuda_tile.ops.mma import MmaFScaledOp
from tileir.dialects.cuda_tile.ops.views import LoadViewTkoOp, MakePartitionViewOp
from tileir.dialects.cuda_tile.types import TileType
from tileir.targets import ARCHS, KIB, resolve_gpu_name
from tileir.transforms.cuda_tile.split_accumulators import (
    ACC,
    LHS,
    RHS,
    Halver,
    accumulator_chain,
    body_effect,
    erase_dead,
    index_constant,
    occupancy,
    short_type,
    splat_constant,
    splat_half,
    weak_load,
)
from tileir.transforms.tileas.ring_budget import PERSISTENT_RESERVE, cta_shared_share
from tileir.utils.bits import storage_bits

#: The discardable attribute a dot records the decision in (a sentence).
K_STEP_SPLIT_ATTR = "tileir.k_step_split"

#: Bytes of an operand row one `wgmma` or `tcgen05.mma` takes along K (k8 for tf32,
#: k16 for f16 and bf16, k32 for 8-bit types): each narrower step keeps at least it, so
#: only K steps of at least twice it are split.
ENGINE_K_BYTES = 32

#: Ring slots a loop needs for its MMAs to stay in flight: the stage they read and the
#: one being loaded (`pipeline_dot_operands.ring_slots` with two stages).
SLOTS_IN_FLIGHT = 2


def keeps_mmas_in_flight(arch: str) -> bool:
    """Whether `arch`'s tensor cores run K loops asynchronously on rings (`wgmma`,
    `tcgen05`): the targets this pass splits for."""
    return arch == "sm_90a" or ARCHS[arch].tcgen05


def ring_shared_budget(arch: str, ctas_per_sm: int) -> int:
    """The shared memory the rings of one loop may take at most on `arch` with
    `ctas_per_sm` CTAs an SM: a CTA's share (`ring_budget.cta_shared_share`)
    less `ring_budget.PERSISTENT_RESERVE` (no exchange, no other loop counted)."""
    return cta_shared_share(arch, ctas_per_sm) - PERSISTENT_RESERVE


def element_bits(t: Attribute) -> int:
    """Bits one element of a tile of `t` takes in shared memory (tf32: 32)."""
    return storage_bits(element_type(t)) or 32


def tile_bytes(t: Attribute) -> int:
    return -(-math.prod(shape_of(t)) * element_bits(t) // 8)


def kib(size: int) -> str:
    return f"{size / KIB:g} KiB"


@dataclass
class Operand:
    """One operand of the dot, as loaded: the load, the ops between it and the dot in
    order, and the dimension of the tile that runs along K."""

    load: LoadViewTkoOp
    chain: list[Operation]
    dim: int


def traced_operand(value: SSAValue, loop: Operation, dim: int) -> Operand | str:
    """The load `value` (a dot operand) is computed from, or why it is not one whose
    K step can be narrowed (module doc)."""
    chain: list[Operation] = []
    while True:
        op = value.owner
        if not isinstance(op, Operation) or op.parent_op() is not loop:
            return "an operand is not loaded in the loop"
        if len(list(value.uses)) != 1:
            return "an operand tile has other uses than the dot"
        if isinstance(op, LoadViewTkoOp):
            break
        if not isinstance(op, ElementwiseOp) or isinstance(op, ShapeOp) or len(op.results) != 1:
            return f"an operand is computed by {op.name}"
        links = [v for v in op.operands if not is_splat_constant(v)]
        if len(links) != 1:
            return f"an operand is computed by {op.name} from other tiles"
        chain.insert(0, op)
        value = links[0]
    if not weak_load(op):
        return "an operand's load is not weak"
    if not isinstance(op.view.owner, MakePartitionViewOp):
        return "an operand is not loaded through a partition_view"
    if op.result_token.uses:
        return "an operand's load token is used"
    return Operand(op, chain, dim)


def is_splat_constant(value: SSAValue) -> bool:
    return isinstance(value.owner, ConstantOp) and splat_constant(value.owner)


def narrowed_type(t: Attribute, dim: int, factor: int) -> TileType:
    shape = list(shape_of(t))
    shape[dim] //= factor
    return TileType(shape, element_type(t))


@dataclass(frozen=True)
class Plan:
    """How a loop's K step is split: the operands, the factor, the stage before/after."""

    operands: tuple[Operand, Operand]
    factor: int
    stage: int
    #: Bytes the loop's rings may take at most (`ring_shared_budget`).
    budget: int


def plan_split(loop: ForOp, dot: Operation, budget: int) -> Plan | str | None:
    """The split of `loop` (module doc); None where its stage fits twice in `budget`,
    a reason where it does not and the step stays."""
    lhs, rhs = dot.operands[LHS], dot.operands[RHS]
    rank = len(shape_of(lhs.type))
    traced = (traced_operand(lhs, loop, rank - 1), traced_operand(rhs, loop, rank - 2))
    # The rings hold the tiles as loaded (or, not loaded, the operands themselves).
    stage = sum(
        tile_bytes((t.load.tile if isinstance(t, Operand) else v).type)
        for t, v in zip(traced, (lhs, rhs), strict=True)
    )
    if SLOTS_IN_FLIGHT * stage <= budget:
        return None
    why = next((t for t in traced if isinstance(t, str)), None)
    if why is not None:
        return why
    if isinstance(dot, MmaFScaledOp):
        return "block-scaled dots keep their step (their scales are not split yet)"
    if not constant_integer(loop.step, 1):
        return "the loop's step is not the constant 1"
    if len(loop.iter_args) != 1:
        other = next(a for a in loop.iter_args if a.uses and a is not dot.operands[ACC])
        return f"the loop also carries {short_type(other.type)}"
    effect = body_effect(loop)
    if effect is not None:
        return effect
    a, b = traced
    assert isinstance(a, Operand) and isinstance(b, Operand)
    iv = loop.induction_var
    if any(o.load.index[o.dim] is not iv for o in (a, b)):
        return "an operand's K index is not the loop's induction variable"
    if len(list(iv.uses)) != 2:
        return "the induction variable has other uses than the operands' K indices"
    k = shape_of(lhs.type)[rank - 1]
    k_bytes = k * element_bits(lhs.type) // 8
    factor = 1
    while SLOTS_IN_FLIGHT * stage > budget * factor:
        if k % (2 * factor) or k_bytes // (2 * factor) < ENGINE_K_BYTES:
            return (
                f"a stage of {kib(stage // factor)} does not fit twice in the "
                f"{kib(budget)} its rings may take even at a K step of {k // factor}, "
                f"and a narrower one would be under the tensor cores' K "
                f"({ENGINE_K_BYTES} bytes of a row)"
            )
        factor *= 2
    return Plan((a, b), factor, stage, budget)


def split_step(loop: Operation, dot: Operation, plan: Plan) -> None:
    """Run `loop` with a K step `plan.factor` times narrower (module doc)."""
    before = InsertPoint.before(loop)
    for bound in (0, 1):  # lower_bound, upper_bound
        scaled = MulIOp.build_op([loop.operands[bound], index_constant(plan.factor, before)])
        Rewriter.insert_op(scaled, before)
        loop.operands[bound] = scaled.results[0]
    halver = Halver()
    for position, operand in zip((LHS, RHS), plan.operands, strict=True):
        load = operand.load
        view = load.view
        for _ in range(plan.factor.bit_length() - 1):
            view = halver.view(view, operand.dim)
        narrow = LoadViewTkoOp.create(
            operands=[view, *load.index, *([load.token] if load.token is not None else [])],
            result_types=[
                narrowed_type(load.tile.type, operand.dim, plan.factor),
                load.result_token.type,
            ],
            properties=dict(load.properties),
            attributes=dict(load.attributes),
        )
        Rewriter.insert_op(narrow, InsertPoint.before(load))
        old: SSAValue = load.tile
        value: SSAValue = narrow.tile
        for op in operand.chain:
            operands: list[SSAValue] = []
            for v in op.operands:
                if v is old:
                    operands.append(value)
                    continue
                owner = v.owner
                assert isinstance(owner, ConstantOp)
                narrowed_t = narrowed_type(v.type, operand.dim, plan.factor)
                c = ConstantOp(splat_half(owner.value, narrowed_t), narrowed_t)
                Rewriter.insert_op(c, InsertPoint.before(op))
                operands.append(c.result)
            new = type(op).create(
                operands=operands,
                result_types=[narrowed_type(op.results[0].type, operand.dim, plan.factor)],
                properties=dict(op.properties),
                attributes=dict(op.attributes),
            )
            Rewriter.insert_op(new, InsertPoint.before(op))
            old, value = op.results[0], new.results[0]
        dot.operands[position] = value
        for op in [*reversed(operand.chain), load]:
            Rewriter.erase_op(op)
    # The whole-step views, and the views between them and the narrowest, if unused.
    views = [*(view for view, _ in halver.views), *halver.views.values()]
    erase_dead([v.owner for v in views if isinstance(v.owner, Operation)])
    dot.attributes[K_STEP_SPLIT_ATTR] = StringAttr(split_message(dot, plan))


def split_message(dot: Operation, plan: Plan) -> str:
    k = shape_of(dot.operands[LHS].type)[-1]
    return (
        f"K step of {k * plan.factor} split into {plan.factor} steps of {k}: a stage of "
        f"{kib(plan.stage)} does not fit twice in the {kib(plan.budget)} its rings may "
        f"take, one of {kib(plan.stage // plan.factor)} does"
    )


@dataclass(frozen=True)
class SplitKStepsPass(ModulePass):
    """Narrow the K step of loops whose operand stage does not fit twice (module doc)."""

    name = "split-dot-k-steps"

    arch: str = "sm_90a"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = resolve_gpu_name(self.arch, "split-dot-k-steps target")
        if not keeps_mmas_in_flight(arch):
            return
        for fn in [f for f in op.walk() if isinstance(f, EntryOp)]:
            budget = ring_shared_budget(arch, occupancy(fn, arch))
            for loop in [o for o in fn.walk() if isinstance(o, ForOp)]:
                chains = [accumulator_chain(loop, i) for i in range(len(loop.iter_args))]
                dots = [c[0] for c in chains if c is not None]
                if len(dots) != 1 or any(c is not None and len(c) != 1 for c in chains):
                    continue
                dot = dots[0]
                plan = plan_split(loop, dot, budget)
                if isinstance(plan, str):
                    k = shape_of(dot.operands[LHS].type)[-1]
                    message = f"K step of {k} not split: {plan}"
                    dot.attributes[K_STEP_SPLIT_ATTR] = StringAttr(message)
                elif plan is not None:
                    split_step(loop, dot, plan)
