"""A gathered GEMM operand through a `cp.async` ring (`gather_operands.py`,
`tileas-pipeline-dot-operands`), run in the PTX simulator.

The corpus kernel `moe_gather_gemm_bf16` gathers the rows of A through a token list,
as NVIDIA's fused MoE kernel does (rows out of range, the sentinel and negative ones,
gather zeros; K and N are ragged), and scatters the accumulator to the same rows.  Its
A used to be loaded in the accumulator's layout and given to `wgmma` from registers,
waited for each iteration; now each thread copies its row's K runs with `cp.async`
into A's ring, zero-filled where the row or the run is out of bounds, and the loop
keeps a `wgmma` group in flight (sm_90a) or its `tcgen05` MMAs in flight (sm_100a).
The simulator rejects the copies without their zero fill and with two rows' sources
swapped.
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

import pytest
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.compiler import compile_module, load_module
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.nv_tileas import ops as tas
from tileir.pipelines import stage_passes
from tileir.registry import make_context
from tileir.testing import OUT_OF_BOUNDS, SimulationError
from tileir.transforms.tileas.gather_operands import positive_zero
from tileir.transforms.tileas.pipeline_dot_operands import PipelineDotOperandsPass

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402

NAME = "moe_gather_gemm_bf16"
SEED = 20261127

#: One 16-byte copy of a ring's slot, zero-filled (source size 0) where its predicate is off.
COPY = re.compile(
    r"selp\.b32 t_n, 16, 0, (%p\d+);\n\tcp\.async\.cg\.shared\.global \[(%r\d+)\], "
    r"\[(%rd\d+)\], 16, t_n;"
)


@functools.cache
def _compiled(arch: str) -> tuple[str, str]:
    """The kernel's nv_tileas text and PTX on `arch`."""
    result = compile_module(load_module(CORPUS / f"{NAME}.mlir"), arch, keep_stages=True)
    assert result.ptx is not None
    return result.stages["tileas"], result.ptx


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
def test_gathered_a_rides_a_ring(arch: str) -> None:
    tileas, ptx = _compiled(arch)
    feed = tileas[tileas.index("nv_tileas.operand_feed") :]
    feed = feed[: feed.index("]")]
    assert "operands through a 3-stage ring of cp.async copies" in feed
    assert "A: from registers" not in feed
    if arch == "sm_90a":
        assert "1 wgmma group in flight" in feed
        assert "wgmma.wait_group.sync.aligned 1;" in ptx
    else:
        assert "tcgen05.mma" in ptx
    # A's tile (64x32 bf16) and B's (32x16) are both copied asynchronously.
    assert tileas.count("nv_tileas.async.tiled_load") >= 2
    assert "-> !async.value<tensor<64x32xbf16" in tileas
    assert "cuda_tile.select" not in tileas[tileas.index("scf.for") :]
    _common.simulate_case(NAME, ptx, SEED)


def _swap_rows(ptx: str) -> str:
    """The first two gathered copies of A (two rows of a thread) exchange their sources
    and zero-fill predicates: each row lands in the other's place."""
    first, second = list(COPY.finditer(ptx))[:2]

    def copy(into: re.Match[str], source: re.Match[str]) -> str:
        return (
            f"selp.b32 t_n, 16, 0, {source[1]};\n\tcp.async.cg.shared.global [{into[2]}], "
            f"[{source[3]}], 16, t_n;"
        )

    return (
        ptx[: first.start()]
        + copy(first, second)
        + ptx[first.end() : second.start()]
        + copy(second, first)
        + ptx[second.end() :]
    )


def test_broken_gather_copies_are_caught() -> None:
    _, ptx = _compiled("sm_90a")
    no_fill = COPY.sub(
        lambda m: f"mov.b32 t_n, 16;\n\tcp.async.cg.shared.global [{m[2]}], [{m[3]}], 16, t_n;",
        ptx,
    )
    assert no_fill != ptx
    with pytest.raises(SimulationError) as caught:
        _common.simulate_case(NAME, no_fill, SEED)
    # The sentinel and negative rows' addresses are outside A.
    assert caught.value.kind == OUT_OF_BOUNDS, caught.value
    swapped = _swap_rows(ptx)
    assert swapped != ptx
    with pytest.raises(AssertionError, match="Mismatched elements"):
        _common.simulate_case(NAME, swapped, SEED)


def test_a_nonzero_fill_is_computed_from_the_slot() -> None:
    """Only a select of +0 where the load's own mask is off is the load itself (a
    masked-off `tiled_load` element reads zero): with the gather's fill changed to 7.0
    before `tileas-pipeline-dot-operands`, the select stays, and A is computed from the
    slot its raw tile lands in instead of being read by `wgmma` from the slot."""
    module = load_module(CORPUS / f"{NAME}.mlir")
    ctx = make_context()
    for _, passes in stage_passes("sm_90a", 4):
        for p in passes:
            if isinstance(p, PipelineDotOperandsPass):
                dot = next(op for op in module.walk() if isinstance(op, tas.DotOp))
                select = dot.a.owner
                assert isinstance(select, ct.SelectOp)
                fill = select.operands[2]
                assert positive_zero(fill)
                seven = ct.ConstantOp.splat(7.0, element_type(fill.type))
                splat = tas.SplatOp(seven.result, fill.type)
                Rewriter.insert_op([seven, splat], InsertPoint.before(select))
                select.operands[2] = splat.result
                assert not positive_zero(splat.result)
                assert not positive_zero(ct.ConstantOp.splat(-0.0, element_type(fill.type)).result)
                p.apply(ctx, module)
                module.verify()
                assert dot.a.owner is select
                feed = str(dot.attributes["nv_tileas.operand_feed"])
                # The raw gathered tile still rides a ring, read back into registers for
                # the select (`READ_FROM_SLOT_ATTR`), not fed to the dot from its slot.
                assert "A: computed from the slot after the wait" in feed
                return
            p.apply(ctx, module)
    raise AssertionError("no tileas-pipeline-dot-operands in the sm_90a pipeline")
