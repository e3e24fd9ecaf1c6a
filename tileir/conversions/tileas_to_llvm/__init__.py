"""`convert-tileas-to-llvm{arch=sm_90a}`: nv_tileas kernels to the llvm and nvvm
dialects.

Every tile becomes the registers its layout gives each thread; elementwise ops apply
per register, shape ops reuse registers, tiled loads and stores become vectorized,
predicated global accesses.  Memory order is already explicit: each
`nv_tileas.cta_barrier` that `tileas-insert-barriers` placed becomes one
`nvvm.barrier0`, and no memory token is left (`legality.py` rejects one).

One file per op family (docs/pipeline.md, "Adding a lowering for a new nv_tileas op"):

| op (family)                                            | file               | pattern                    |
|--------------------------------------------------------|--------------------|----------------------------|
| `func.func`/`func.return` (kernels)                    | `kernel.py`        | `LowerKernel`, `LowerReturn` |
| per-element cuda_tile compute (the stated exception)   | `elementwise.py`   | `LowerElementwise`         |
| `cuda_tile.constant`, `iota`, grid queries             | `elementwise.py`   | `LowerConstant`, `LowerIota`, `LowerGridQuery` |
| scalar integer `arith.constant`, `addi`, `subi`, `muli` | `arith.py`        | `LowerArithConstant`, `LowerArithInteger` |
| `nv_tileas.addptr`, `assume` (pointer)                 | `pointer.py`       | `LowerAddPtr`, `LowerAssume` |
| `nv_tileas.tiled_load`, `tiled_store` (tiled memops)   | `tiled_memory.py`  | `LowerTiledLoad`, `LowerTiledStore` |
| `nv_tileas.splat`, `broadcast`, `expand_dims` (layout) | `layout.py`        | `LowerSplat`, `LowerBroadcast`, `LowerExpandDims` |
| `nv_tileas.convert_layout`, `shuffle`, `view` (layout) | `layout.py`        | `LowerConvertLayout`, `LowerPermute`, `LowerReshape` |
| `nv_tileas.extract_slice`, `insert_slice` (slices)     | `slices.py`        | `LowerExtract`, `LowerInsert` |
| `alloc_tensor` + `insert_slice`s, `reinterpret` (slices) | `slices.py`      | `LowerCat`, `LowerByteView` |
| `nv_tileas.dot` (compute)                              | `dot.py` (engines `mma.py`, `wgmma.py`, `fma_dot.py`) | `LowerDot` |
| `nv_tileas.async.tiled_load`, `future_wait`, `wait` (async) | `async_copy.py` | `LowerAsyncTiledLoad`, `LowerFutureWait`, `LowerAsyncWait` |
| `cuda_tile.ftof` to tf32 `nv_tileas.rounded_in_shared` (a ring's stage) | `ring_rounding.py` | `LowerRoundInRing` |
| `nv_tileas.make_global_view`, `make_tiled_tma_desc`, TMA `async.tiled_load` (a producer's) | `tma.py` | `LowerMakeGlobalView`, `LowerMakeTiledTmaDesc`, `LowerTmaLoad` |
| `nv_tileas.reduce`, `scan` (compute)                   | `reductions.py`    | `LowerReduce`, `LowerScan` |
| `nv_tileas.atomic_rmw`, `atomic_cas` (atomics)         | `atomics.py`       | `LowerAtomic`              |
| `nv_tileas.cta_barrier` (synchronization)              | `synchronization.py` | `LowerCtaBarrier`        |
| `nv_tileas.gdc_wait`, `gdc_launch_dependents` (synchronization) | `grid_dependency.py` | `LowerGridDependency` |
| `nv_tileas.print`, `assert` (debug)                    | `printing.py`      | `LowerPrint`, `LowerAssert` |
| `nv_tileas.get_global`, `global` (globals)             | `globals.py`       | `LowerGetGlobal`, `erase_globals` |
| `scf.for`/`if`/`while` and their terminators           | `control_flow.py`  | `StructuredLowering.patterns()` |
| dead views, index arithmetic and casts left behind     | `cleanup.py`       | `cleanup` (no pattern)     |

What the patterns share: `pattern.py` (`TilePattern`, the base), `context.py` (registers
of each value, per-kernel state), `builder.py` (`LLBuilder`, the one place llvm/nvvm ops
and inline PTX are made), `exchange.py` (moving values between threads through shared
memory), `affine_addresses.py` (a thread's tiled-access addresses from its first one),
`shared_arena.py` (the kernel's one shared-memory arena), `scalar.py` and the
`math_*`/`trig_*`/`remainder_functions.py`, `fp8.py`, `tf32.py` routines (one element);
`legality.py` checks what comes in and what goes out; `names.py` gives a named tile's
registers its name.  No module of the package imports
this one, and the package has no import cycle (tests/pytest/test_tileas_to_llvm_structure.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    ModuleOp,
    StringAttr,
)
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
)

from tileir.conversions.tileas_to_llvm.affine_addresses import plan_affine_addresses
from tileir.conversions.tileas_to_llvm.agents import Agents, agent_patterns
from tileir.conversions.tileas_to_llvm.arith import LowerArithConstant, LowerArithInteger
from tileir.conversions.tileas_to_llvm.async_copy import AsyncFeeds, feed_patterns
from tileir.conversions.tileas_to_llvm.atomics import LowerAtomic
from tileir.conversions.tileas_to_llvm.cleanup import cleanup
from tileir.conversions.tileas_to_llvm.context import LoweringContext
from tileir.conversions.tileas_to_llvm.control_flow import StructuredLowering
from tileir.conversions.tileas_to_llvm.dot import (
    LowerDot,
    LowerReadTmemAccumulator,
    LowerScaleTmemAccumulator,
    LowerWriteTmemAccumulator,
)
from tileir.conversions.tileas_to_llvm.elementwise import (
    LowerConstant,
    LowerElementwise,
    LowerGridQuery,
    LowerIota,
)
from tileir.conversions.tileas_to_llvm.exchange import Exchange, SharedAllocator
from tileir.conversions.tileas_to_llvm.globals import LowerGetGlobal, erase_globals
from tileir.conversions.tileas_to_llvm.grid_dependency import LowerGridDependency
from tileir.conversions.tileas_to_llvm.kernel import (
    LowerKernel,
    LowerReturn,
    relax_occupancy_cap,
)
from tileir.conversions.tileas_to_llvm.layout import (
    LowerBroadcast,
    LowerConvertLayout,
    LowerExpandDims,
    LowerPermute,
    LowerReshape,
    LowerSplat,
)
from tileir.conversions.tileas_to_llvm.legality import check_legal, check_lowered
from tileir.conversions.tileas_to_llvm.names import name_registers
from tileir.conversions.tileas_to_llvm.pointer import LowerAddPtr, LowerAssume
from tileir.conversions.tileas_to_llvm.printing import LowerAssert, LowerPrint
from tileir.conversions.tileas_to_llvm.reductions import LowerReduce, LowerScan
from tileir.conversions.tileas_to_llvm.ring_rounding import LowerRoundInRing
from tileir.conversions.tileas_to_llvm.shared_arena import (
    declared_bytes,
    finalize_persistent,
)
from tileir.conversions.tileas_to_llvm.slices import (
    LowerByteView,
    LowerCat,
    LowerExtract,
    LowerInsert,
)
from tileir.conversions.tileas_to_llvm.synchronization import LowerCtaBarrier
from tileir.conversions.tileas_to_llvm.tcgen05 import finalize_tensor_memory
from tileir.conversions.tileas_to_llvm.tcgen05_agents import Tcgen05Agents, tcgen05_agent_patterns
from tileir.conversions.tileas_to_llvm.tile_bounds import plan_tile_bounds
from tileir.conversions.tileas_to_llvm.tiled_memory import (
    LowerTiledLoad,
    LowerTiledStore,
    mask_runs,
    stores_beside_dots,
)
from tileir.conversions.tileas_to_llvm.tma import TmaMaps, tma_patterns
from tileir.diagnostics import CompileError
from tileir.targets import ARCHS
from tileir.utils.rewriting import LocatedWalker, TypeDispatch

ARCH_ATTR = "tileir.arch"
SUPPORTED_ARCHS = tuple(ARCHS)  # the one list of targets, tileir/targets.py


@dataclass(frozen=True)
class ConvertTileASToLLVMPass(ModulePass):
    """nv_tileas kernels -> llvm + nvvm, register by register."""

    name = "convert-tileas-to-llvm"

    arch: str = "sm_90a"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.arch not in SUPPORTED_ARCHS:
            # A target, not an op: no op's name in front of it.
            raise CompileError(
                f"target {self.arch} is not supported by tileir: compile for one of "
                f"{', '.join(SUPPORTED_ARCHS)} (tileir-as --gpu-name sm_90 selects sm_90a)"
            )
        check_legal(op)
        kernels = LowerKernel(self.arch)
        LocatedWalker(
            GreedyRewritePatternApplier([kernels, LowerReturn()]),
            apply_recursively=False,
        ).rewrite_module(op)
        lowering = LoweringContext(self.arch)
        lowering.mask_runs = mask_runs(op)
        lowering.stores_beside_dots = stores_beside_dots(op)
        structured = StructuredLowering(lowering)
        # One exchange (and allocator) per run, shared by every lowering that moves
        # values between threads through shared memory.
        exchange = Exchange(lowering, SharedAllocator())
        # The rings of pipelined loops, planned while the loops and dots are there.
        feeds = AsyncFeeds()
        feeds.plan(op)
        # Warp-specialized agents and the pipelines between them (their rings are feeds).
        agents = Agents(feeds)
        agents.plan(op)
        # The tensor maps of producers fed by TMA (`tileas-tma-feeds`).
        agents.tma = TmaMaps()
        agents.tma.plan(op)
        blackwell = Tcgen05Agents(agents)
        blackwell.plan(op)
        # Strength-reduced addresses of tiled accesses, read before their pointer tiles
        # are lowered (its anchors go in last, after every plan that walks the IR).
        lowering.affine_addresses = plan_affine_addresses(
            op, ring_unit_views=not ARCHS[self.arch].tcgen05
        )
        # Whole-tile tests of masked ring copies (anchored likewise): sm_90a, and
        # sm_100a where groups are cut by the edge (`async_copy.py`); not sm_80.
        if ARCHS[self.arch].warp_specialization or ARCHS[self.arch].tcgen05:
            lowering.tile_bounds = plan_tile_bounds(op)
        LocatedWalker(
            TypeDispatch(
                [
                    *tcgen05_agent_patterns(lowering, blackwell),
                    *agent_patterns(lowering, agents),
                    LowerRoundInRing(lowering, exchange, feeds),
                    LowerElementwise(lowering),
                    LowerArithConstant(lowering),
                    LowerArithInteger(lowering),
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
                    LowerConvertLayout(lowering, exchange),
                    LowerPermute(lowering, exchange),
                    LowerCat(lowering, exchange),
                    LowerExtract(lowering, exchange),
                    LowerByteView(lowering, exchange),
                    LowerInsert(lowering, exchange),
                    LowerReshape(lowering, exchange),
                    LowerDot(lowering, exchange, feeds),
                    LowerReadTmemAccumulator(lowering),
                    LowerWriteTmemAccumulator(lowering),
                    LowerScaleTmemAccumulator(lowering),
                    *tma_patterns(lowering, agents.tma, feeds),
                    *feed_patterns(lowering, exchange, feeds),
                    *structured.patterns(),
                ],
            ),
            apply_recursively=False,
            on_replace=name_registers,  # a named tile's registers carry its name
        ).rewrite_module(op)
        agents.name_barriers()
        for state in lowering.functions.values():
            finalize_persistent(state)
            finalize_tensor_memory(state)
            fn = state.entry.parent_op()
            if isinstance(fn, llvm.FuncOp) and fn.sym_name.data in kernels.caps:
                cap = kernels.caps[fn.sym_name.data]
                relax_occupancy_cap(fn, cap, declared_bytes(state), self.arch)
        erase_globals(op)
        cleanup(op)
        op.attributes[ARCH_ATTR] = StringAttr(self.arch)
        check_lowered(op)
