"""`convert-tileas-to-llvm{arch=sm_90a}`: nv_tileas kernels to the llvm and nvvm
dialects.

Every tile becomes the registers its layout gives each thread; elementwise ops apply
per register, shape ops reuse registers, tiled loads and stores become vectorized,
predicated global accesses.  Memory tokens disappear: a load or store whose input
token follows a write (or, for a store, any access) of the tile first waits at a CTA
barrier, because another thread may own the element; acquire loads are followed and
release stores preceded by one, so the whole tile observes the ordering.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ModuleOp,
    StringAttr,
    UnitAttr,
    UnrealizedConversionCastOp,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
)

from tileir.conversions.tileas_to_llvm.atomics import LowerAtomic
from tileir.conversions.tileas_to_llvm.context import LoweringContext
from tileir.conversions.tileas_to_llvm.control_flow import StructuredLowering
from tileir.conversions.tileas_to_llvm.globals import LowerGetGlobal, erase_globals
from tileir.conversions.tileas_to_llvm.grid_dependency import LowerGridDependency
from tileir.conversions.tileas_to_llvm.patterns import (
    BARRIER_AFTER,
    BARRIER_BEFORE,
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
from tileir.diagnostics import error_at, not_supported
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.ops.newer import GdcLaunchDependentsTkoOp, GdcWaitTkoOp
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import MemSemantic
from tileir.targets import ARCHS
from tileir.utils.rewriting import LocatedWalker

ARCH_ATTR = "tileir.arch"
SUPPORTED_ARCHS = tuple(ARCHS)  # the one list of targets, tileir/targets.py

#: Dialects allowed in the output.
OUTPUT_DIALECTS = ("llvm.", "nvvm.", "builtin.module")


@dataclass(frozen=True)
class TokenHistory:
    read: bool = False
    write: bool = False

    def __or__(self, other: TokenHistory) -> TokenHistory:
        return TokenHistory(self.read or other.read, self.write or other.write)


def token_history(value: SSAValue, cache: dict[SSAValue, TokenHistory]) -> TokenHistory:
    """Which kinds of memory access a token's chain has seen."""
    if value in cache:
        return cache[value]
    op = value.owner
    history = TokenHistory()
    if isinstance(op, aa.JoinMemTokenOp):
        for t in op.tokens:
            history = history | token_history(t, cache)
    elif isinstance(op, tas.TiledLoadOp) and op.token is not None:
        history = token_history(op.token, cache) | TokenHistory(read=True)
    elif isinstance(op, tas.TiledStoreOp) and op.token is not None:
        history = token_history(op.token, cache) | TokenHistory(write=True)
    elif (
        isinstance(op, GdcWaitTkoOp | GdcLaunchDependentsTkoOp | ct.PrintTkoOp)
        and op.token is not None
    ):
        history = token_history(op.token, cache)
    elif isinstance(op, aa.AtomicRmwOp | aa.AtomicCasOp):
        history = TokenHistory(read=True, write=True)
        if op.token is not None:
            history = token_history(op.token, cache) | history
    cache[value] = history
    return history


def mark_barriers(module: ModuleOp) -> None:
    cache: dict[SSAValue, TokenHistory] = {}
    for op in module.walk():
        if isinstance(op, aa.AtomicRmwOp | aa.AtomicCasOp):
            # A read-modify-write after accesses another thread may have made, and
            # the CTA-wide side of acquire/release orders.
            sem = op.semantics().value
            h = token_history(op.token, cache) if op.token is not None else TokenHistory()
            if h.write or h.read or sem in ("release", "acq_rel"):
                op.attributes[BARRIER_BEFORE] = UnitAttr()
            if sem in ("acquire", "acq_rel"):
                op.attributes[BARRIER_AFTER] = UnitAttr()
            continue
        if isinstance(op, tas.TiledLoadOp | tas.TiledStoreOp):
            need = False
            if op.token is not None:
                h = token_history(op.token, cache)
                need = h.write if isinstance(op, tas.TiledLoadOp) else (h.write or h.read)
            sem = op.semantic()
            if isinstance(op, tas.TiledStoreOp) and sem in (
                MemSemantic.RELEASE,
                MemSemantic.ACQUIRE_RELEASE,
            ):
                need = True
            if need:
                op.attributes[BARRIER_BEFORE] = UnitAttr()
            if isinstance(op, tas.TiledLoadOp) and sem in (
                MemSemantic.ACQUIRE,
                MemSemantic.ACQUIRE_RELEASE,
            ):
                op.attributes[BARRIER_AFTER] = UnitAttr()


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
        mark_barriers(op)
        LocatedWalker(
            GreedyRewritePatternApplier([LowerKernel(self.arch), LowerReturn()]), apply_recursively=False
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
