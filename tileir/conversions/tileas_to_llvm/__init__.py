"""`convert-tileas-to-llvm{arch=sm_90a}`: nv_tileas kernels to the llvm and nvvm
dialects.

Every tile becomes the registers its layout gives each thread; elementwise ops apply
per register, shape ops reuse registers, tiled loads and stores become vectorized,
predicated global accesses.  Memory order is already explicit: each
`nv_tileas.cta_barrier` that `tileas-insert-barriers` placed becomes one
`nvvm.barrier0`; tokens left in the IR (the unused results of ordering-only ops) only
order and disappear.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ModuleOp,
    StringAttr,
    UnrealizedConversionCastOp,
)
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
)

from tileir.conversions.tileas_to_llvm.atomics import LowerAtomic
from tileir.conversions.tileas_to_llvm.context import LoweringContext
from tileir.conversions.tileas_to_llvm.control_flow import StructuredLowering
from tileir.conversions.tileas_to_llvm.globals import LowerGetGlobal, erase_globals
from tileir.conversions.tileas_to_llvm.grid_dependency import LowerGridDependency
from tileir.conversions.tileas_to_llvm.legality import check_legal
from tileir.conversions.tileas_to_llvm.patterns import (
    EraseDead,
    EraseTokens,
    LowerAddPtr,
    LowerAssume,
    LowerBroadcast,
    LowerConstant,
    LowerElementwise,
    LowerExpandDims,
    LowerGridQuery,
    LowerIota,
    LowerKernel,
    LowerReturn,
    LowerSplat,
    LowerTiledLoad,
    LowerTiledStore,
)
from tileir.conversions.tileas_to_llvm.printing import LowerAssert, LowerPrint
from tileir.conversions.tileas_to_llvm.reductions import LowerReduce, LowerScan
from tileir.conversions.tileas_to_llvm.shared_memory import shared_memory_patterns
from tileir.conversions.tileas_to_llvm.synchronization import LowerCtaBarrier
from tileir.diagnostics import error_at, not_supported
from tileir.targets import ARCHS
from tileir.utils.rewriting import LocatedWalker

ARCH_ATTR = "tileir.arch"
SUPPORTED_ARCHS = tuple(ARCHS)  # the one list of targets, tileir/targets.py

#: Dialects allowed in the output.
OUTPUT_DIALECTS = ("llvm.", "nvvm.", "builtin.module")


@dataclass(frozen=True)
class ConvertTileASToLLVMPass(ModulePass):
    """nv_tileas kernels -> llvm + nvvm, register by register."""

    name = "convert-tileas-to-llvm"

    arch: str = "sm_90a"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.arch not in SUPPORTED_ARCHS:
            raise not_supported(
                op, f"target {self.arch} (expected one of {', '.join(SUPPORTED_ARCHS)})"
            )
        check_legal(op)
        LocatedWalker(
            GreedyRewritePatternApplier([LowerKernel(self.arch), LowerReturn()]),
            apply_recursively=False,
        ).rewrite_module(op)
        lowering = LoweringContext(self.arch)
        structured = StructuredLowering(lowering)
        LocatedWalker(
            GreedyRewritePatternApplier(
                [
                    LowerElementwise(lowering),
                    LowerConstant(lowering),
                    LowerIota(lowering),
                    LowerGridQuery(lowering),
                    LowerAssume(lowering),
                    LowerSplat(lowering),
                    LowerBroadcast(lowering),
                    LowerExpandDims(lowering),
                    LowerAddPtr(lowering),
                    LowerTiledLoad(lowering),
                    LowerTiledStore(lowering),
                    LowerReduce(lowering),
                    LowerAtomic(lowering),
                    LowerScan(lowering),
                    LowerGridDependency(lowering),
                    LowerPrint(lowering),
                    LowerAssert(lowering),
                    LowerGetGlobal(lowering),
                    LowerCtaBarrier(),
                    *shared_memory_patterns(lowering),
                    *structured.patterns(),
                ],
                dce_enabled=False,
            ),
            apply_recursively=False,
        ).rewrite_module(op)
        erase_globals(op)
        cleanup(op)
        op.attributes[ARCH_ATTR] = StringAttr(self.arch)
        check_lowered(op)


def cleanup(module: ModuleOp) -> None:
    """Remove what the patterns left without users: casts, views, tokens."""
    LocatedWalker(
        GreedyRewritePatternApplier([EraseTokens(), EraseDead()]),
        walk_reverse=True,
    ).rewrite_module(module)
    changed = True
    while changed:
        changed = False
        for o in list(module.walk(reverse=True)):
            if isinstance(o, UnrealizedConversionCastOp) and not o.results[0].uses:
                o.detach()
                o.erase()
                changed = True


def check_lowered(module: ModuleOp) -> None:
    for o in module.walk():
        if o is module:
            continue
        if isinstance(o, UnrealizedConversionCastOp):
            user = next(iter(o.results[0].uses)).operation
            raise not_supported(user, "no code generation for this op")
        if not o.name.startswith(OUTPUT_DIALECTS):
            raise not_supported(o, "convert-tileas-to-llvm cannot lower it")


_ = (Operation, error_at)
