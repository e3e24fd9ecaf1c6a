"""The shared memory the rings of a pipelined loop may take (`ring_budget.py`).

The budget is computed before the LLVM lowering places anything, from an upper bound of
the kernel's largest exchange: a bound below what the lowering takes would make a
pipelined kernel fail to compile ("ring buffers ... beside ... bytes of exchanges").  So
the bound is checked against the lowering itself: each kernel here is compiled without
rings (one stage), where its arena is exactly its largest exchange, and the arena must be
within the bound.  The budget follows the `occupancy` hint, and a GEMM without one gets
a ring deep enough for a `wgmma` group in flight.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, i32

from tileir.backend.ptx.target import module_to_ptx
from tileir.compiler import compile_module, load_module
from tileir.conversions.tileas_to_llvm.exchange import MAX_ROW_PADDING
from tileir.dialects.cuda_tile.attributes import OptimizationHintsAttr
from tileir.dialects.cuda_tile.hints import HINTS_ATTR, OCCUPANCY
from tileir.pipelines import stage_passes
from tileir.registry import make_context
from tileir.targets import ARCHS, RESERVED_SHARED_PER_CTA
from tileir.transforms.tileas.pipeline_dot_operands import PipelineDotOperandsPass
from tileir.transforms.tileas.ring_budget import (
    CONVERSION_ROW_PAD,
    kernel_shared_budget,
    transient_bound,
    unpipelined_bound,
)

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

#: Kernels whose exchanges are large or of every kind: transposes and permutes, reductions
#: and scans across warps, atomics, dots whose operands pass through shared memory
#: (attention, batched, tf32, fp8, block-scaled).
EXCHANGING = (
    "attention_f16",
    "flash_attention_f16",
    "batched_matmul_e5m2",
    "gemm_tf32",
    "block_scaled_mm_e4m3",
    "transpose_f16_ragged",
    "permute_3d_f32",
    "softmax_wide_f32",
    "cumsum_f32",
    "histogram_atomics",
)


def _arena_without_rings(
    name: str, arch: str, bound_of: Callable[[func.FuncOp], int] | None = None
) -> tuple[int, int]:
    """The bound of `name`'s largest exchange before the rings are chosen (or
    `bound_of` its kernel once the pass has marked what it stages once), and its arena
    compiled with one stage (no ring: the arena is its largest exchange, and the buffers
    that outlive exchanges)."""
    module = load_module(CORPUS / f"{name}.mlir")
    ctx = make_context()
    bound = -1
    for _, passes in stage_passes(arch, 4):
        for p in passes:
            fns = [f for f in module.walk() if isinstance(f, func.FuncOp)]
            if isinstance(p, PipelineDotOperandsPass):
                bound = max(transient_bound(f, set()) for f in fns)
                p = PipelineDotOperandsPass(arch=arch, num_stages=1, specialized_stages=1)
            p.apply(ctx, module)
            if isinstance(p, PipelineDotOperandsPass) and bound_of is not None:
                bound = max(bound_of(f) for f in fns)
    ptx = module_to_ptx(module, arch)
    sizes = [int(s) for s in re.findall(r"tileir_xchg_\d+\[(\d+)\]", ptx)]
    return bound, max(sizes, default=0)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", EXCHANGING)
def test_the_exchange_bound_covers_the_lowering(name: str, arch: str) -> None:
    bound, arena = _arena_without_rings(name, arch)
    assert arena <= bound, f"{name} on {arch}: arena {arena} above the bound {bound}"


@pytest.mark.parametrize(
    ("name", "arch"), [("attention_wide_kv_bf16", "sm_90a"), ("flash_attention_f16", "sm_100a")]
)
def test_the_unpipelined_bound_covers_attention(name: str, arch: str) -> None:
    """What a kernel takes without rings (`unpipelined_bound`, which decides whether its
    hint's CTAs are within reach): a reduction across two warpgroups, the staged Q, a
    64-row `tcgen05` accumulator exchanged in and out through one buffer."""
    bound, arena = _arena_without_rings(name, arch, unpipelined_bound)
    assert arena <= bound, f"{name} on {arch}: arena {arena} above the bound {bound}"


def test_a_conversion_pads_rows_as_the_lowering_may() -> None:
    assert CONVERSION_ROW_PAD == MAX_ROW_PADDING


def _kernel(occupancy: int | None) -> func.FuncOp:
    fn = func.FuncOp("k", ((), ()))
    if occupancy is not None:
        hints = DictionaryAttr({OCCUPANCY: IntegerAttr(occupancy, i32)})
        fn.attributes[HINTS_ATTR] = OptimizationHintsAttr(DictionaryAttr({"default": hints}))
    return fn


def test_the_occupancy_hint_divides_an_sm() -> None:
    """No hint: the whole static shared memory (one CTA per SM on sm_90a); two CTAs per
    SM: half an SM each, less the CTA's reserved KiB; before sm_90 ptxas's 48 KiB."""
    sm90 = ARCHS["sm_90a"]
    assert kernel_shared_budget(_kernel(None), "sm_90a") == sm90.static_shared
    assert (
        kernel_shared_budget(_kernel(2), "sm_90a")
        == sm90.shared_per_sm // 2 - RESERVED_SHARED_PER_CTA
    )
    assert kernel_shared_budget(_kernel(None), "sm_80") == ARCHS["sm_80"].static_shared


def test_a_wide_gemm_keeps_a_group_in_flight() -> None:
    """`gemm_bf16_big_tile` (48 KiB a stage) used to have no room for the slots of a
    `wgmma` group in flight within half the static shared memory; within the kernel's
    budget it runs warp-specialized with one group in flight."""
    ptx = compile_module(load_module(CORPUS / "gemm_bf16_big_tile.mlir"), "sm_90a").ptx
    assert ptx is not None
    assert "setmaxnreg.dec" in ptx and "wgmma.wait_group.sync.aligned 1;" in ptx
