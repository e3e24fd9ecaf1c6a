"""`llvm-remat-after-loops`: recompute after a loop the cheap index arithmetic computed
before it, instead of keeping it live across the loop.

`split-dot-accumulators` turns one K loop into one loop per half of the accumulator, each
followed by its half's store. The stores' masks and addresses are the same per-thread
arithmetic of the same layout (the columns a thread holds, `lane_base ^ c` for each
fragment, compared with the half's bound; the rows it holds, compared with the row
bound), so `cse` after the lowering keeps the first epilogue's values and the second
epilogue reuses them: 30-odd registers live across the second K loop, whose
accumulator takes 128 and the dequantized block-scaled operands most of the rest.
ptxas 13 does not recompute them; it spilled them (s_block_scaled_mm_swizzled, sm_90a:
116 bytes, stored after the first loop and loaded after the second). The same holds for
what a kernel computes before its (first) K loop for its epilogue only.

In a function's blocks, in order (the lowering emits a loop's header, body and exit in
that order, so a branch to an earlier block is a back edge and the blocks between are
the loop), an op is recomputed in a later block when

* it is cheap pure integer arithmetic (`CHEAP`, `CHEAP_INTRINSICS`) or a thread or
  block index (`CONSTANT_SREGS`);
* a loop lies wholly between its block and the user's block (or the header of the
  loop the user is in, below), and nothing in that loop uses it (a value the loop reads
  stays live anyway);
* the user's block is in at most one loop that the op's block is outside of, a later
  loop than the one between, which issues `tcgen05.mma` (accumulators in tensor memory): the
  copy then runs once an iteration of that loop, just before its user in the loop's
  body, instead of the value living across both loops;
* each operand is a constant, a kernel parameter, is live across that loop anyway (used
  in it or after it by something not being recomputed; across the later loop where the
  copy goes into one), or is itself recomputed by these rules, so that the copy adds no
  live range across the loop where it removes one.

Into a later loop: causal attention's two loops (`loop-split`: the unmasked tiles, then
the diagonal ones) on sm_100a.  What the kernel computes before its first loop for the
second one only (the masked loop's column indices `lane_base ^ c`, the offsets of its
copies into the ring slots) lived across both loops; at the 128 registers of two CTAs
an SM ptxas 13 stored them before the first loop and loaded them in the second
(`t_attention_*_d128_causal` with K's and V's rings: 40 bytes).  Recomputed only in the
second loop's preheader they live across that loop still (64 bytes); in its body, a
`xor` or `add` an iteration each, nothing is spilled.  Only into loops of `tcgen05` MMAs,
whose accumulators are in tensor memory: where a loop's `wgmma` accumulators take its
registers, the copies made ptxas spill (sm_90a `s_fmha_f16_causal`, 128 registers: 0 ->
312 bytes).

Only in functions with two loops or more (split accumulators, warp-specialized and
persistent kernels): in one-loop kernels it moved ptxas 13 the wrong way as often as the
right one (sm_80 attention_wide_kv_bf16 spilled 60 bytes instead of 52, gemm_f16 took 80
registers instead of 70).

The copy goes just before its first user in that block and takes that block's uses;
other blocks get their own. The result is the same arithmetic on the same values.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tileir.utils.walk import ops_of

#: Ops that are one or two integer instructions and read nothing but their operands.
CHEAP = frozenset(
    {
        "llvm.add",
        "llvm.sub",
        "llvm.mul",
        "llvm.xor",
        "llvm.or",
        "llvm.and",
        "llvm.shl",
        "llvm.lshr",
        "llvm.ashr",
        "llvm.icmp",
        "llvm.zext",
        "llvm.sext",
        "llvm.trunc",
        "llvm.select",
    }
)


def loops_of(blocks: list[Block]) -> list[tuple[int, int]]:
    """The loops of a region whose blocks are `blocks`, as (header, latch) indices: a
    branch from a block to itself or an earlier one."""
    index = {b: i for i, b in enumerate(blocks)}
    loops: list[tuple[int, int]] = []
    for i, b in enumerate(blocks):
        last = b.last_op
        if last is None:
            continue
        for succ in last.successors:
            h = index.get(succ)
            if h is not None and h <= i:
                loops.append((h, i))
    return loops


class _Region:
    """One region's blocks, their loops, and the copies made in each later block."""

    def __init__(self, blocks: list[Block]) -> None:
        self.blocks = blocks
        self.index = {b: i for i, b in enumerate(blocks)}
        self.loops = loops_of(blocks)
        #: Per block, the copy of each value made there.
        self.copies: dict[Block, dict[SSAValue, SSAValue]] = {}
        self.copied = 0
        #: `tcgen05_loop`'s answers: the copies this pass inserts are cheap integer ops,
        #: never a `tcgen05.mma`, so a loop's answer holds for the whole run.
        self.tcgen05_loops: dict[tuple[int, int], bool] = {}

    def block_of(self, op: Operation) -> int:
        b = op.parent_block()
        return -1 if b is None else self.index.get(b, -1)

    def between(self, d: int, u: int) -> tuple[int, int] | None:
        """A loop wholly after block `d` and before block `u`."""
        for h, latch in self.loops:
            if d < h and latch < u:
                return h, latch
        return None

    def tcgen05_loop(self, loop: tuple[int, int]) -> bool:
        """Whether `loop` issues `tcgen05.mma` (its accumulators are in tensor memory,
        not in registers: module docstring)."""
        known = self.tcgen05_loops.get(loop)
        if known is None:
            h, t = loop
            known = self.tcgen05_loops[loop] = any(
                isinstance(op, llvm.InlineAsmOp) and "tcgen05.mma" in op.asm_string.data
                for b in self.blocks[h : t + 1]
                for op in b.ops
            )
        return known

    def live_across(self, value: SSAValue, loop: tuple[int, int], skip: set[Operation]) -> bool:
        """Whether something not in `skip` uses `value` in `loop` or after it."""
        return any(
            self.block_of(use.operation) >= loop[0]
            for use in value.uses
            if use.operation not in skip
        )

    def run(self) -> int:
        if len(self.loops) < 2:
            return 0  # one loop: not measured better (module docstring)
        first_exit = min(latch for _, latch in self.loops)
        for block in self.blocks[first_exit + 1 :]:
            for user in list(block.ops):
                for i, operand in enumerate(user.operands):
                    copy = self.remat(operand, block, user)
                    if copy is not None:
                        user.operands[i] = copy
        return self.copied

    def remat(self, value: SSAValue, block: Block, before: Operation) -> SSAValue | None:
        """A copy of `value` in `block` (made before `before` if new), or None where the
        rules say no."""
        made = self.copies.setdefault(block, {})
        if value in made:
            return made[value]
        owner = value.owner
        if not cheap(owner):
            return None
        assert isinstance(owner, Operation)
        d, u = self.block_of(owner), self.index[block]
        if d < 0 or d >= u:
            return None
        entered = [(h, t) for h, t in self.loops if h <= u <= t and not h <= d <= t]
        if len(entered) > 1 or (entered and not self.tcgen05_loop(entered[0])):
            return None  # not into a nest, nor into a loop of register accumulators
        loop = self.between(d, min(h for h, _ in entered) if entered else u)
        if loop is None:
            return None
        h, latch = loop
        if any(h <= self.block_of(use.operation) <= latch for use in value.uses):
            return None
        # Into a later loop: the operands must be live across that loop anyway too.
        across = entered[0] if entered else loop
        plan: list[Operation] = []
        if not self.plan(owner, (loop, across), plan, set(), made):
            return None
        for op in plan:
            new = op.clone(value_mapper=made)
            block.insert_op_before(new, before)
            for old_r, new_r in zip(op.results, new.results, strict=True):
                made[old_r] = new_r
        self.copied += len(plan)
        return made[value]

    def plan(
        self,
        op: Operation,
        loops: tuple[tuple[int, int], tuple[int, int]],
        plan: list[Operation],
        seen: set[Operation],
        made: dict[SSAValue, SSAValue],
    ) -> bool:
        """Append to `plan` (operands first) the ops a copy of `op` after the first of
        `loops` needs (those not copied into the block yet); False where an operand
        would become live across the second (the same loop, or the later loop the copy
        goes into)."""
        if op in seen:
            return True
        seen.add(op)
        between, across = loops
        for operand in op.operands:
            src = operand.owner
            if operand in made or isinstance(src, llvm.ConstantOp):
                continue
            if isinstance(src, Block) and src is self.blocks[0]:
                continue  # a kernel parameter: ptxas reloads it where it is used
            if self.live_across(operand, across, seen):
                continue
            if not isinstance(src, Operation) or not cheap(src) or self.block_of(src) >= between[0]:
                return False
            if not self.plan(src, loops, plan, seen, made):
                return False
        plan.append(op)
        return True


#: Intrinsics that are one integer instruction.
CHEAP_INTRINSICS = ("llvm.smax.", "llvm.smin.", "llvm.umax.", "llvm.umin.")


#: Special registers that read the same value wherever they are read.
CONSTANT_SREGS = tuple(
    f"nvvm.read.ptx.sreg.{r}" for r in ("tid.", "ctaid.", "ntid.", "nctaid.", "laneid")
)


def cheap(op: object) -> bool:
    if isinstance(op, Operation) and op.name.startswith(CONSTANT_SREGS):
        return True
    if isinstance(op, llvm.CallIntrinsicOp):
        return op.intrin.data.startswith(CHEAP_INTRINSICS)
    return isinstance(op, Operation) and op.name in CHEAP and not op.regions


def rematerialize_region_blocks(blocks: list[Block]) -> int:
    """Apply the module docstring's rules to one region's `blocks`; how many ops it
    copied."""
    return _Region(blocks).run()


@dataclass(frozen=True)
class RematAfterLoopsPass(ModulePass):
    """Index arithmetic recomputed after a later loop, or in it (module docstring)."""

    name = "llvm-remat-after-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in ops_of(op):
            if isinstance(func, llvm.FuncOp):
                rematerialize_region_blocks(list(func.body.blocks))
