"""The boundary rule (ARCHITECTURE.md, issue 14) as far as it holds today: after the
tileas stage a corpus kernel holds nv_tileas ops, scf/arith/func, the per-element
cuda_tile compute ops on builtin carriers (the stated exception: elementwise ops,
constants, `iota` and the grid queries), and nothing else but the ops the next slices of
issue 14 still have to convert (`KNOWN_REMAINING`).  An op that was converted coming
back, or a new structural op leaking past the boundary, fails here; so does an op of
`KNOWN_REMAINING` that no kernel holds any more (drop it from the list)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.ir import Operation

from tileir.compiler import compile_module, load_module
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
KERNELS = sorted(CORPUS.glob("*.tileirbc"))

#: Not converted yet (issue 14, item 1): pointer arithmetic, assumptions, reshapes and
#: permutes.  Everything else of nv_tileaa and the structural cuda_tile ops is.
KNOWN_REMAINING = {
    "nv_tileaa.addptr",
    "nv_tileaa.assume",
    "nv_tileaa.view",
    "cuda_tile.offset",
    "cuda_tile.permute",
}

_BOUNDARY_DIALECTS = ("nv_tileas.", "scf.", "arith.", "func.", "builtin.")
_PER_ELEMENT = (ElementwiseOp, ct.ConstantOp, ct.IotaOp, ct.GetTileBlockIdOp, ct.GetNumTileBlocksOp)


def _past_the_boundary(op: Operation) -> bool:
    return not op.name.startswith(_BOUNDARY_DIALECTS) and not isinstance(op, _PER_ELEMENT)


def _left(kernel: Path) -> set[str]:
    module = load_module(kernel)
    compile_module(module, "sm_90a", stop_after="tileas")
    return {op.name for op in module.walk() if _past_the_boundary(op)}


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.stem)
def test_only_known_ops_cross_the_boundary(kernel: Path) -> None:
    left = _left(kernel)
    assert left <= KNOWN_REMAINING, f"{kernel.stem}: {sorted(left - KNOWN_REMAINING)}"


def test_every_known_remaining_op_is_still_there() -> None:
    seen: set[str] = set()
    for kernel in KERNELS:
        seen |= _left(kernel)
    assert seen == KNOWN_REMAINING
