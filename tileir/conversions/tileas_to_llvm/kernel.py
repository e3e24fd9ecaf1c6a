"""Kernels: `func.func` with the nv_tileas kernel attribute -> `llvm.func` with
`nvvm.kernel`, its parameters split into the LLVM scalars PTX passes, and the
occupancy hint as `nvvm.minctasm`/`maxnreg`; `func.return` -> `llvm.return`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i32,
)
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.conversions.tileas_to_llvm.context import (
    LoweringContext,
    llvm_scalar_type,
)
from tileir.diagnostics import error_at
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import KERNEL_ATTR
from tileir.dialects.nv_tileas.layouts import WARP_SIZE
from tileir.targets import MAX_REGISTERS_PER_THREAD, ctas_per_sm_by_shared, register_budget
from tileir.transforms.tileas.assign_layouts import tile_words
from tileir.transforms.tileas.ring_budget import occupancy_hint
from tileir.transforms.tileas.specialize_agents import agent_warps
from tileir.utils.walk import enclosing_op

#: 32-bit words of its largest tile a thread may hold for ptxas to choose the kernel's
#: registers itself (`wants_register_budget`).
SMALL_TILE_WORDS = 32


def wants_register_budget(fn: func.FuncOp, threads: int) -> bool:
    """Whether the kernel gets an explicit `.maxnreg` whatever its hint.  A kernel with
    a tile of more than `SMALL_TILE_WORDS` words a thread does: there ptxas's own choice
    can be far too small (a 128x256 f16 GEMM on sm_80: 32 registers and 13 KB of spill
    stores; NVIDIA's LayerNorm backward sample: 64 registers and 1.3 KB where 128 spill
    0.8 KB).  A kernel of small tiles does not, dot or no dot: told it may use 255
    registers, ptxas uses them to schedule every address and load early (`relu_bf16_2d`
    on sm_90a: 68 registers with `.maxnreg 255`, 40 without, neither spilling; tileiras's
    cubin: 52; cuTile's small attention tests, 8x32 by 32x16 f32 dots on the CUDA cores,
    244 registers with it, 70 without), and more registers than the tiles need only cost
    occupancy.  Its occupancy hint still caps it where the cap is below 255
    (`lower_kernel_signature`)."""
    words = max(
        (
            tile_words(r.type)
            for o in fn.walk()
            for r in o.results
            if isinstance(r.type, TensorType)
        ),
        default=0,
    )
    return words > SMALL_TILE_WORDS * threads


@dataclass(frozen=True)
class OccupancyCap:
    """A kernel's `.maxnreg` taken from its `occupancy` hint: `threads` a CTA, `hint`
    CTAs per SM asked for.  Revisited once the kernel's shared memory is known
    (`relax_occupancy_cap`)."""

    threads: int
    hint: int


def relax_occupancy_cap(fn: llvm.FuncOp, cap: OccupancyCap, shared_bytes: int, arch: str) -> None:
    """Raise the `.maxnreg` of `fn` to the share of the register file of the CTAs per
    SM its `shared_bytes` of shared memory allow, where that is fewer than its hint asked
    for.  The hint's cap only buys occupancy: when shared memory already keeps the SM to
    fewer CTAs, the registers it withholds are never used by another CTA, and ptxas
    spills for nothing (NVIDIA's 64x256 attention test with `occupancy=2`: 125 KB of
    shared memory, one CTA per SM; at `.maxnreg 128` 308 bytes of spill stores, at 255
    none).  tileiras does the same: its cubin of that kernel records
    `EIATTR_MAXREG_COUNT` 255 beside 148 KB of shared memory.  `shared_bytes` is a lower
    bound of the kernel's shared memory, so the CTAs it allows are an upper bound: the
    cap is never raised where the hint could still be met."""
    resident = ctas_per_sm_by_shared(arch, shared_bytes)
    if resident >= cap.hint:
        return
    budget = register_budget(cap.threads, max(resident, 1))
    fn.attributes["nvvm.maxnreg"] = IntegerAttr(budget, i32)


def register_cap(op: Operation) -> int | None:
    """The `nvvm.maxnreg` of the `llvm.func` holding `op` (an occupancy hint's share of
    the register file, `relax_occupancy_cap`), or None when the kernel has none."""
    fn = enclosing_op(op, llvm.FuncOp)
    cap = None if fn is None else fn.attributes.get("nvvm.maxnreg")
    return cap.value.data if isinstance(cap, IntegerAttr) else None


def lower_kernel_signature(
    fn: func.FuncOp,
    rewriter: PatternRewriter,
    arch: str,
    caps: dict[str, OccupancyCap] | None = None,
) -> llvm.FuncOp:
    """func.func @k(...) {nv_tileas.kernel} -> llvm.func @k(...) {nvvm.kernel}.

    The kernel's register budget is `nvvm.maxnreg` (PTX `.maxnreg`): the share of the
    register file that keeps `occupancy` CTAs resident (the hint, default 1), as
    tileiras's cubins record it (`EIATTR_MAXREG_COUNT` 168 for 384 threads).  Without
    it ptxas picks a budget by its own heuristics, and for some large kernels picks 32
    registers and spills tens of KiB (a 128x256 f16 GEMM on sm_80: 32 registers,
    13 KB of spill stores; with `.maxnreg 255`: 255 registers, 2.6 KB).  A kernel of
    small tiles is left to ptxas (`wants_register_budget`) unless its hint's share is
    below 255.  A cap that comes from the hint alone is recorded in `caps` (by kernel
    name) for `relax_occupancy_cap`."""
    switch = next((o for o in fn.walk() if isinstance(o, tas.AgentSwitchOp)), None)
    warps = fn.attributes.get("nv_tileas.num_warps")
    num_warps = warps.value.data if warps is not None else 4  # pyright: ignore[reportAttributeAccessIssue]
    budgeted = wants_register_budget(fn, num_warps * WARP_SIZE)
    body = rewriter.move_region_contents_to_new_regions(fn.body)
    block = body.block
    arg_types: list[Attribute] = []
    for arg in list(block.args):
        t = llvm_scalar_type(arg.type)
        arg_types.append(t)
        if t != arg.type:
            new_arg = rewriter.insert_block_argument(block, arg.index, t)
            cast = LoweringContext.pack(rewriter, [new_arg], arg.type)
            cast_op = cast.owner
            assert isinstance(cast_op, Operation)
            cast_op.detach()
            first = block.first_op
            if first is None:
                block.add_op(cast_op)
            else:
                block.insert_op_before(cast_op, first)
            arg.replace_all_uses_with(cast)
            rewriter.erase_block_argument(arg)
    ll = llvm.FuncOp(
        fn.sym_name.data,
        llvm.LLVMFunctionType(arg_types, llvm.LLVMVoidType()),
        linkage=llvm.LinkageAttr("external"),
        body=body,
    )
    ll.attributes["nvvm.kernel"] = UnitAttr()
    threads = num_warps * WARP_SIZE
    hint = occupancy_hint(fn, arch)
    budget = register_budget(threads, hint or 1)
    if switch is not None:
        # Warp-specialized: every agent's warps, starting at the largest budget of an
        # agent the launch allows (`setmaxnreg` moves each agent from there, `agents.py`).
        threads = sum(agent_warps(switch)) * WARP_SIZE
        budget = min(register_budget(threads, hint or 1), max(switch.budgets))
    ll.attributes["nvvm.reqntid"] = DenseArrayBase.from_list(i32, [threads, 1, 1])
    # A hint whose share is the whole 255 caps nothing: a kernel of small tiles is then
    # left to ptxas, which meets the hint with the registers it chooses.
    capped = hint is not None and budget < MAX_REGISTERS_PER_THREAD
    if capped or switch is not None or budgeted:
        ll.attributes["nvvm.maxnreg"] = IntegerAttr(budget, i32)
    if capped and switch is None and hint is not None and caps is not None:
        caps[fn.sym_name.data] = OccupancyCap(threads, hint)
    ll.attributes["nv_tileas.num_warps"] = fn.attributes.get(
        "nv_tileas.num_warps"
    ) or DenseArrayBase.from_list(i32, [4])
    ll.location = fn.location
    _ = (ArrayAttr, DictionaryAttr, StringAttr)
    return ll


class LowerKernel(RewritePattern):
    def __init__(self, arch: str):
        self.arch = arch
        #: The kernels whose `.maxnreg` their occupancy hint set (`OccupancyCap`).
        self.caps: dict[str, OccupancyCap] = {}

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        if KERNEL_ATTR not in op.attributes:
            raise error_at(op, "only kernels (functions from cuda_tile entries) can be lowered")
        rewriter.replace(op, lower_kernel_signature(op, rewriter, self.arch, self.caps))


class LowerReturn(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        if op.arguments:
            raise error_at(op, "kernels return nothing")
        rewriter.replace(op, llvm.ReturnOp())
