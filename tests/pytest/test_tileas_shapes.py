"""After the tileas stage no corpus kernel holds an nv_tileaa.expand_dims,
nv_tileaa.extract, nv_tileaa.splat or nv_tileaa.broadcast: `convert-tileaa-to-tileas`
turned each into nv_tileas.expand_dims / nv_tileas.extract_slice / nv_tileas.splat /
nv_tileas.broadcast (tileir/conversions/tileaa_shapes.py), and
`tileas-assign-layouts` put an expand_dims' source in the slice of its result's layout
along the axis (issue 14, "The boundary rule" in ARCHITECTURE.md).  Compiled from
bytecode, as cuTile writes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from tileir.compiler import PassEvent, compile_module, load_module
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import SliceLayoutAttr

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
KERNELS = sorted(CORPUS.glob("*.tileirbc"))


def _count(ops: list[Operation], kind: type[Operation]) -> int:
    return sum(isinstance(o, kind) for o in ops)


def test_the_corpus_expands_and_extracts() -> None:
    # gemm_f16 expands index rows and columns; scalar_tiles_f32 and block_scaled_mm_e4m3
    # extract (checked at the nv_tileas stage in conversions/tileaa_to_tileas_shapes_corpus.test).
    names = {k.stem for k in KERNELS}
    assert {"gemm_f16", "scalar_tiles_f32", "block_scaled_mm_e4m3"} <= names


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.stem)
def test_no_nv_tileaa_expand_dims_or_extract_after_tileas(kernel: Path) -> None:
    module = load_module(kernel)
    counts: dict[str, int] = {}

    def count_tileaa(event: PassEvent) -> None:
        if event.stage == "tileaa" and event.ends_stage:
            ops = list(event.module.walk())
            counts.update(expand=_count(ops, aa.ExpandDimsOp), extract=_count(ops, aa.ExtractOp))

    compile_module(module, "sm_90a", stop_after="tileas", on_pass=count_tileaa)
    after = list(module.walk())
    left = [
        o.name
        for o in after
        if isinstance(o, aa.ExpandDimsOp | aa.ExtractOp | aa.SplatOp | aa.BroadcastOp)
    ]
    assert not left, f"{kernel.stem}: {left} after the tileas stage"
    assert _count(after, tas.ExtractSliceOp) == counts["extract"]
    assert (_count(after, tas.ExpandDimsOp) > 0) == (counts["expand"] > 0)
    for op in after:
        if isinstance(op, tas.ExpandDimsOp) and isinstance(op.src.type, TensorType):
            result = op.result.type
            assert isinstance(result, TensorType)
            want = SliceLayoutAttr(op.axis.value.data, result.encoding)  # pyright: ignore[reportArgumentType]
            assert op.src.type.encoding == want, f"{op.name} source {op.src.type}, expected {want}"


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.stem)
def test_no_nv_tileaa_splat_or_broadcast_after_tileas(kernel: Path) -> None:
    module = load_module(kernel)
    compile_module(module, "sm_90a", stop_after="tileas")
    after = list(module.walk())
    left = [o.name for o in after if isinstance(o, aa.SplatOp | aa.BroadcastOp)]
    assert not left, f"{kernel.stem}: {left} after the tileas stage"
    # A broadcast moves no data between threads: its source is in its result's layout.
    for op in after:
        if isinstance(op, tas.BroadcastOp):
            src, result = op.src.type, op.result.type
            assert isinstance(src, TensorType) and isinstance(result, TensorType)
            assert src.encoding == result.encoding, f"{op.name}: {src} -> {result}"


def test_the_corpus_splats_and_broadcasts() -> None:
    module = load_module(CORPUS / "gemm_f16.tileirbc")
    compile_module(module, "sm_90a", stop_after="tileas")
    ops = list(module.walk())
    assert _count(ops, tas.SplatOp) > 0 and _count(ops, tas.BroadcastOp) > 0
