"""Kernels: `func.func` with the nv_tileas kernel attribute -> `llvm.func` with
`nvvm.kernel`, its parameters split into the LLVM scalars PTX passes, and the
occupancy hint as `nvvm.minctasm`/`maxnreg`; `func.return` -> `llvm.return`.
"""

from __future__ import annotations

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    UnitAttr,
    i32,
)
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.conversions.cuda_tile_to_tileaa import HINTS_ATTR
from tileir.conversions.tileas_to_llvm.context import (
    LoweringContext,
    llvm_scalar_type,
)
from tileir.diagnostics import error_at
from tileir.dialects.cuda_tile.attributes import OptimizationHintsAttr
from tileir.dialects.cuda_tile.hints import OCCUPANCY
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import KERNEL_ATTR
from tileir.dialects.nv_tileas.layouts import WARP_SIZE
from tileir.targets import hint_target, register_budget
from tileir.transforms.tileas.specialize_agents import agent_warps


def occupancy_hint(fn: func.FuncOp, arch: str) -> int:
    """The CTAs per SM the kernel's `occupancy` hint asks for on `arch` (its
    `sm_NN` entry, else `default`), or 1."""
    hints = fn.attributes.get(HINTS_ATTR)
    if not isinstance(hints, OptimizationHintsAttr):
        return 1
    chosen = hints.for_target(hint_target(arch))
    value = chosen.data.get(OCCUPANCY) if chosen is not None else None
    return value.value.data if isinstance(value, IntegerAttr) else 1


def lower_kernel_signature(fn: func.FuncOp, rewriter: PatternRewriter, arch: str) -> llvm.FuncOp:
    """func.func @k(...) {nv_tileas.kernel} -> llvm.func @k(...) {nvvm.kernel}.

    The kernel's register budget is `nvvm.maxnreg` (PTX `.maxnreg`): the share of the
    register file that keeps `occupancy` CTAs resident (the hint, default 1), as
    tileiras's cubins record it (`EIATTR_MAXREG_COUNT` 168 for 384 threads).  Without
    it ptxas picks a budget by its own heuristics, and for some large kernels picks 32
    registers and spills tens of KiB (a 128x256 f16 GEMM on sm_80: 32 registers,
    13 KB of spill stores; with `.maxnreg 255`: 255 registers, 2.6 KB)."""
    switch = next((o for o in fn.walk() if isinstance(o, tas.AgentSwitchOp)), None)
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
    warps = fn.attributes.get("nv_tileas.num_warps")
    num_warps = warps.value.data if warps is not None else 4  # pyright: ignore[reportAttributeAccessIssue]
    ll = llvm.FuncOp(
        fn.sym_name.data,
        llvm.LLVMFunctionType(arg_types, llvm.LLVMVoidType()),
        linkage=llvm.LinkageAttr("external"),
        body=body,
    )
    ll.attributes["nvvm.kernel"] = UnitAttr()
    threads = num_warps * WARP_SIZE
    budget = register_budget(threads, occupancy_hint(fn, arch))
    if switch is not None:
        # Warp-specialized: every agent's warps, starting at the largest budget of an
        # agent the launch allows (`setmaxnreg` moves each agent from there, `agents.py`).
        threads = sum(agent_warps(switch)) * WARP_SIZE
        budget = min(register_budget(threads, occupancy_hint(fn, arch)), max(switch.budgets))
    ll.attributes["nvvm.reqntid"] = DenseArrayBase.from_list(i32, [threads, 1, 1])
    ll.attributes["nvvm.maxnreg"] = IntegerAttr(budget, i32)
    ll.attributes["nv_tileas.num_warps"] = fn.attributes.get(
        "nv_tileas.num_warps"
    ) or DenseArrayBase.from_list(i32, [4])
    ll.location = fn.location
    _ = (ArrayAttr, DictionaryAttr, StringAttr)
    return ll


class LowerKernel(RewritePattern):
    def __init__(self, arch: str):
        self.arch = arch

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        if KERNEL_ATTR not in op.attributes:
            raise error_at(op, "only kernels (functions from cuda_tile entries) can be lowered")
        rewriter.replace(op, lower_kernel_signature(op, rewriter, self.arch))


class LowerReturn(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        if op.arguments:
            raise error_at(op, "kernels return nothing")
        rewriter.replace(op, llvm.ReturnOp())
