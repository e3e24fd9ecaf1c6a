"""GEMMs of small accumulators compiled for several CTAs an SM
(`pipeline_dot_operands.small_accumulator_occupancy`): a kernel whose K loops are each
one `wgmma` dot with groups in flight and at most `SMALL_ACCUMULATOR_REGISTERS` a thread
gets `SMALL_ACCUMULATOR_OCCUPANCY` recorded, hence a `.maxnreg` of that share of the
register file, rings in that share of shared memory, and agent budgets that fit the
launch (the remarks say them).  A kernel with its own occupancy hint, a larger
accumulator, or attention's two dots keeps what it had.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr

from tileir.compiler import compile_module, load_module, parse_module_text
from tileir.transforms.tileas.occupancy import OCCUPANCY_ATTR
from tileir.transforms.tileas.pipeline_dot_operands import (
    SMALL_ACCUMULATOR_OCCUPANCY,
    SMALL_ACCUMULATOR_REGISTERS,
)

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))


def _occupancy(name: str, text: str | None = None) -> tuple[int | None, str]:
    """The occupancy recorded on the kernel after the tileas stage, and its PTX."""
    module = (
        load_module(CORPUS / f"{name}.mlir")
        if text is None
        else parse_module_text(text, f"{name}.mlir")
    )
    compile_module(module, "sm_90a", stop_after="tileas")
    fn = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    recorded = fn.attributes.get(OCCUPANCY_ATTR)
    source = CORPUS / f"{name}.mlir"
    ptx_module = load_module(source) if text is None else parse_module_text(text, source.name)
    ptx = compile_module(ptx_module, "sm_90a").ptx
    assert ptx is not None
    return (recorded.value.data if isinstance(recorded, IntegerAttr) else None), ptx


def test_a_small_warp_specialized_gemm_runs_three_ctas_an_sm() -> None:
    """`gemm_f16` (64x32 f32 accumulator: 16 registers a thread, two agents)."""
    assert SMALL_ACCUMULATOR_REGISTERS >= 16
    occupancy, ptx = _occupancy("gemm_f16")
    assert occupancy == SMALL_ACCUMULATOR_OCCUPANCY == 3
    assert ".maxnreg 80" in ptx  # 65,536 / (3 x 256) in granules of 8
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 120;" in ptx  # (8 x 80 - 4 x 40) / 4


def test_the_remark_gives_the_budgets_the_launch_grants() -> None:
    module = load_module(CORPUS / "gemm_f16.mlir")
    compile_module(module, "sm_90a", stop_after="tileas")
    text = str(module)
    assert "a consumer (120 registers)" in text
    assert "248 registers" not in text


def test_an_occupancy_hint_is_kept() -> None:
    text = (CORPUS / "gemm_f16.mlir").read_text()
    hinted = text.replace(
        "optimization_hints=<default = {}>", "optimization_hints=<default = {occupancy = 1}>", 1
    )
    assert hinted != text
    occupancy, ptx = _occupancy("gemm_f16", hinted)
    assert occupancy is None
    assert ".maxnreg 248" in ptx


def test_larger_accumulators_and_attention_keep_one_cta() -> None:
    for name in ("gemm_bf16_big_tile", "gemm_bf16_two_warpgroups", "flash_attention_f16"):
        occupancy, ptx = _occupancy(name)
        assert occupancy is None, name
        budget = re.search(r"\.maxnreg (\d+)", ptx)
        assert budget is None or int(budget.group(1)) >= 168, name
