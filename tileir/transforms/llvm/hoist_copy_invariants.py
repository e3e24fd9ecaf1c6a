"""`llvm-hoist-copy-invariants`: the index arithmetic of a copy loop that is the same in
every iteration, computed once before the loop.

The lowering emits each op of a loop body in the body, and a ring's producer (a
warp-specialized kernel's copy agent, `agents.py`) recomputes every iteration what only
its thread and its CTA's tile decide: the row bound of its operand tile
(`min(max(M - m0, 0), 128)` in 64 bits), the tile's first row times the row stride,
the swizzled offset of the thread's 16 bytes in a ring slot.  ptxas 13 leaves that
arithmetic in the loop (`gemm_bf16_two_warpgroups` on sm_90a: about 40 of the 115
instructions a producer warp issues a stage, the ring's copies behind their
whole-tile test), and a producer warp issues them one after another, since each of
its warps runs alone on its sub-partition while the consumers wait on the stage.

Here, in each loop that issues `cp.async` and no tensor-core instruction (the
producer's loop; a single-agent pipeline, whose loop also holds the accumulators, is
left alone: the registers of what moves out would be live beside them), an op moves to
the end of the loop's preheader when it is cheap pure integer arithmetic or a thread
or block index (`remat_after_loops.cheap`: nothing that can trap, so moving it out of
a branch of the body is safe) and each operand is defined outside the loop or is a
constant (cloned into the preheader), repeatedly, so that chains move whole.  Loops
are found as `llvm-remat-after-loops` finds them (the lowering emits a loop's header,
body and exit in order: a branch back is a loop's latch), inner loops first; a loop
moves ops only where its header has one predecessor outside it, ending in `llvm.br`.
The arithmetic is the same; it runs once instead of once an iteration.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tileir.transforms.llvm.remat_after_loops import cheap, loops_of
from tileir.utils.walk import ops_of

#: The copies a loop must issue, and the tensor-core instructions it must not (a loop
#: that holds accumulators keeps its invariants where they are), as they appear in
#: inline asm or in the names of typed nvvm ops (`nvvm.wgmma.mma_async`, `nvvm.mma.sync`).
COPY = "cp.async"
TENSOR_CORES = ("wgmma", "mma.sync", "mma_sync", "tcgen05.mma")


def _instructions(blocks: list[Block]) -> str:
    """What the ops of `blocks` issue, as text to search: each inline asm's PTX and each
    other op's name (the typed `nvvm.wgmma.mma_async`, `nvvm.mma.sync`, ...)."""
    return "\n".join(
        op.asm_string.data if isinstance(op, llvm.InlineAsmOp) else op.name
        for b in blocks
        for op in b.ops
    )


def _preheader(blocks: list[Block], header: int, latch: int) -> Block | None:
    """The one block outside the loop that branches to its header, if it ends in an
    unconditional branch."""
    outside = [
        b
        for i, b in enumerate(blocks)
        if not header <= i <= latch
        and b.last_op is not None
        and blocks[header] in b.last_op.successors
    ]
    if len(outside) != 1 or not isinstance(outside[0].last_op, llvm.BrOp):
        return None
    return outside[0]


#: Special registers that differ between the threads of a CTA.
THREAD_SREGS = ("nvvm.read.ptx.sreg.tid.", "nvvm.read.ptx.sreg.laneid")


def thread_varying(blocks: list[Block]) -> set[SSAValue]:
    """The values of a region (`blocks`) that may differ between the threads of a CTA:
    thread and lane indices, the arguments of blocks after the entry, results of ops other than cheap integer
    arithmetic and constants (a load, an inline asm), and whatever is computed from
    them.  The rest is the same in every thread (the CTA's tile coordinates, the bounds
    computed from its parameters): ptxas keeps it in uniform registers, which a
    producer's small register budget does not pay for."""
    varying: set[SSAValue] = set()
    for block in blocks:
        if block is not blocks[0]:  # the entry block's: the kernel's parameters
            varying.update(block.args)
        for op in block.ops:
            if (
                op.name.startswith(THREAD_SREGS)
                or not (cheap(op) or isinstance(op, llvm.ConstantOp))
                or any(v in varying for v in op.operands)
            ):
                varying.update(op.results)
    return varying


def hoist_loop(blocks: list[Block], header: int, latch: int, varying: set[SSAValue]) -> int:
    """Move the loop's invariant cheap ops to its preheader (module docstring), none of
    `varying` (`thread_varying`); how many it moved (constants cloned not counted)."""
    body = blocks[header : latch + 1]
    text = _instructions(body)
    if COPY not in text or any(t in text for t in TENSOR_CORES):
        return 0
    pre = _preheader(blocks, header, latch)
    if pre is None or pre.last_op is None:
        return 0
    end = pre.last_op
    inside = set(body)
    cloned: dict[SSAValue, SSAValue] = {}

    def invariant(value: SSAValue) -> bool:
        owner = value.owner
        if isinstance(owner, Block):
            return owner not in inside
        return owner.parent_block() not in inside or isinstance(owner, llvm.ConstantOp)

    moved = 0
    changed = True
    while changed:
        changed = False
        for block in body:
            for op in list(block.ops):
                if (
                    not cheap(op)
                    or any(r in varying for r in op.results)
                    or not all(invariant(v) for v in op.operands)
                ):
                    continue
                for i, v in enumerate(op.operands):
                    owner = v.owner
                    if isinstance(owner, llvm.ConstantOp) and owner.parent_block() in inside:
                        if v not in cloned:
                            copy = owner.clone()
                            pre.insert_op_before(copy, end)
                            cloned[v] = copy.results[0]
                        op.operands[i] = cloned[v]
                op.detach()
                pre.insert_op_before(op, end)
                moved += 1
                changed = True
    return moved


def hoist_region_blocks(blocks: list[Block]) -> int:
    """Every copy loop of one region's `blocks`, inner loops first; how many ops moved."""
    moved = 0
    loops = sorted(loops_of(blocks), key=lambda loop: loop[1] - loop[0])
    # Moving an op does not change which values vary between threads.
    varying = thread_varying(blocks) if loops else set()
    for header, latch in loops:
        moved += hoist_loop(blocks, header, latch, varying)
    return moved


def _functions(module: ModuleOp) -> list[Operation]:
    return [f for f in ops_of(module) if isinstance(f, llvm.FuncOp)]


@dataclass(frozen=True)
class HoistCopyInvariantsPass(ModulePass):
    """A copy loop's invariant index arithmetic, computed before it (module docstring)."""

    name = "llvm-hoist-copy-invariants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in _functions(op):
            assert isinstance(func, llvm.FuncOp)
            hoist_region_blocks(list(func.body.blocks))
