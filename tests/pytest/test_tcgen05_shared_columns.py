"""sm_100a: accumulators of loops that run one after the other share tensor-memory
columns (`tileas-tmem-accumulators`, `_assign_columns`).  A causal attention split at
the diagonal (an unmasked loop, then the masked one) continues the first loop's O in
the second: both O chains take columns 0 .. 127 and the second loop starts from what the
first left there (no `tcgen05.ld` after the first loop, no `tcgen05.st` before the
second), so S and P take 128 .. 255 and the kernel allocates 256 columns instead of 512:
two CTAs fit an SM's tensor memory.  The corpus's `flash_attention_causal_bf16` with its
64-row tiles and head dimension made 128 (the tiles of cuTile's `t_attention_*_d128_causal`
tests) matches numpy in the PTX simulator, the first query block's first loop running no
iteration; with the second loop's O moved onto S's and P's columns, which are live in it,
the simulator reports P·V's MMA writing the columns it reads P from (docs/codegen.md,
"Blackwell")."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import IntegerAttr

import tileir.transforms.tileas.tmem_accumulators as tmem
from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import PassEvent, compile_module, load_module
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.ops.tmem import (
    TMEM_A_COLUMN_ATTR,
    TMEM_COLUMN_ATTR,
    ReadTmemAccumulatorOp,
    WriteTmemAccumulatorOp,
)
from tileir.testing import SimulationError, simulate
from tileir.transforms.tileas.pipeline_dot_operands import feed_clauses

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]
from cases._attention import AttentionCase  # noqa: E402  # pyright: ignore[reportMissingImports]

BASE = "flash_attention_causal_bf16"
TILE = 128
#: Two query blocks of one head: block 0's unmasked loop runs no iteration, block 1's one.
CASE = AttentionCase(
    (1, 1, 2 * TILE),
    TILE,
    TILE,
    kv_tiles=2,
    d=TILE,
    scale=0.125,
    dtype=ml_dtypes.bfloat16,
    causal=True,
)
#: What the remark of a dot that continues the earlier loop's accumulator says.
CONTINUED = "as the loop before left them (no read back between the loops)"
#: The allocation's column count, moved into the register `tcgen05.alloc` takes.
ALLOC = r"tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32 \[%r\d+\], (%r\d+);"


def _kernel(tmp_path: Path) -> Path:
    """The corpus kernel with 128 query rows, keys a tile and head dimension (every
    64 of a shape)."""
    text = (CORPUS / f"{BASE}.mlir").read_text()
    text, count = re.subn(r"(?<=[<x(])64(?=[x>)])", str(TILE), text)
    assert count > 100
    path = tmp_path / "flash_attention_causal_d128.mlir"
    path.write_text(text)
    return path


@dataclass
class _Placed:
    """What `tileas-tmem-accumulators` decided, read from the IR right after it."""

    columns: list[int] = field(default_factory=list[int])
    a_columns: list[int] = field(default_factory=list[int])
    writes: int = 0
    reads: int = 0
    continued: int = 0


def _compile(tmp_path: Path) -> tuple[str, _Placed]:
    placed = _Placed()

    def record(event: PassEvent) -> None:
        if event.name != tmem.TmemAccumulatorsPass.name:
            return
        for op in event.module.walk():
            if isinstance(op, tas.DotOp):
                placed.columns.append(_attribute(op, TMEM_COLUMN_ATTR))
                if TMEM_A_COLUMN_ATTR in op.attributes:
                    placed.a_columns.append(_attribute(op, TMEM_A_COLUMN_ATTR))
                placed.continued += any(CONTINUED in c for c in feed_clauses(op) or [])
            placed.writes += isinstance(op, WriteTmemAccumulatorOp)
            placed.reads += isinstance(op, ReadTmemAccumulatorOp)

    result = compile_module(load_module(_kernel(tmp_path)), "sm_100a", on_pass=record)
    assert result.ptx is not None
    return result.ptx, placed


def _attribute(op: tas.DotOp, name: str) -> int:
    attr = op.attributes[name]
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def _allocated(ptx: str) -> int:
    register = re.search(ALLOC, ptx)
    assert register is not None
    count = re.search(rf"mov\.b32 {re.escape(register.group(1))}, (\d+);", ptx)
    assert count is not None
    return int(count.group(1))


def _simulate(ptx: str) -> None:
    inputs = CASE.make_inputs(np.random.default_rng(0))
    expected = CASE.reference(_common.copy_inputs(inputs))
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    np.testing.assert_allclose(
        inputs["arrays"]["out"].astype(np.float64),
        expected["out"].astype(np.float64),
        2e-2,
        2e-2,
    )


def test_second_loop_continues_the_first_loops_accumulator_in_place(tmp_path: Path) -> None:
    ptx, placed = _compile(tmp_path)
    # Both O chains at column 0, S at 128 with P in its columns; O written once before
    # the first loop and read once after the second, whose P·V dot says so.
    assert placed == _Placed([128, 0, 128, 0], [128, 128], writes=1, reads=1, continued=1)
    assert _allocated(ptx) == 256
    report = run_ptxas(ptx, "sm_100a")
    assert report.ok and set(report.spills.values()) == {0}, report.output
    _simulate(ptx)


def test_second_loops_accumulator_over_live_columns_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assign = tmem._assign_columns

    def onto_scores(chains: list[tmem.Chain], continued: dict[int, tmem.Chain]) -> int:
        end = assign(chains, continued)
        chains[-1].column = end  # the second loop's O where its S and P live
        return end

    monkeypatch.setattr(tmem, "_assign_columns", onto_scores)
    ptx, placed = _compile(tmp_path)
    assert placed.columns == [128, 0, 128, 128]
    with pytest.raises(SimulationError, match=r"writes tensor memory columns 128 \.\. 135 that a"):
        _simulate(ptx)
