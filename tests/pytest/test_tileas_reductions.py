"""After the tileas stage no corpus kernel holds a cuda_tile.reduce or cuda_tile.scan (or
their cuda_tile.yield): `convert-tileaa-to-tileas` turned each into an nv_tileas.reduce /
scan with one identity per operand, and `tileas-assign-layouts` gave a reduce's results the
slice of its operand's layout along the axis and a scan's results its operand's layout
(issue 14, "The boundary rule" in ARCHITECTURE.md).  Compiled from bytecode, as cuTile
writes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from tileir.compiler import compile_module, load_module
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import SliceLayoutAttr

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
KERNELS = sorted(CORPUS.glob("*.tileirbc"))


def _count(ops: list[Operation], kind: type[Operation]) -> int:
    return sum(isinstance(o, kind) for o in ops)


def _check_layouts(op: tas.ReduceOp | tas.ScanOp) -> None:
    source = op.inputs[0].type
    if not isinstance(source, TensorType):
        return
    for result in op.outputs:
        t = result.type
        if isinstance(op, tas.ScanOp):
            assert isinstance(t, TensorType) and t.encoding == source.encoding
        elif isinstance(t, TensorType):  # a rank-1 reduce gives a scalar
            want = SliceLayoutAttr(op.dimension, source.encoding)  # pyright: ignore[reportArgumentType]
            assert t.encoding == want, f"{op.name} result {t}, expected the slice {want}"


def test_the_corpus_reduces_and_scans() -> None:
    assert any("reduce" in k.stem for k in KERNELS) and any("cumsum" in k.stem for k in KERNELS)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.stem)
def test_no_cuda_tile_reduce_or_scan_after_tileas(kernel: Path) -> None:
    module = load_module(kernel)
    before = list(module.walk())
    reduces, scans = _count(before, ct.ReduceOp), _count(before, ct.ScanOp)
    compile_module(module, "sm_90a", stop_after="tileas")
    after = list(module.walk())
    left = [o.name for o in after if isinstance(o, ct.ReduceOp | ct.ScanOp | ct.YieldOp)]
    assert not left, f"{kernel.stem}: {left} after the tileas stage"
    # Each kind survives as its nv_tileas form (CSE may merge equal ones).
    assert (_count(after, tas.ReduceOp) > 0) == (reduces > 0)
    assert (_count(after, tas.ScanOp) > 0) == (scans > 0)
    for op in after:
        if isinstance(op, tas.ReduceOp | tas.ScanOp):
            assert op.identities is not None and len(op.identities.data) == len(op.inputs)
            assert isinstance(op.body.block.last_op, tas.YieldOp)
            _check_layouts(op)
