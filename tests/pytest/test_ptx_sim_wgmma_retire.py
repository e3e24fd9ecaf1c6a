"""Compiled sm_90a pipelines in the PTX simulator, with the synchronization between a
warpgroup's ``wgmma.wait_group`` and another thread's refill of the slot it read
removed (a text mutation of tileir's PTX): the refill then races with that warpgroup's
``wgmma`` on the hardware, and the simulator must say so whatever order it runs the
warps in (``ptx_wgmma``: a wgmma's shared-memory reads end at the ``wait_group`` that
retires them, and a write must be ordered after that wait).

* ``gemm_f16`` (warp-specialized: a producer warpgroup refills a ring of 9 slots once
  the consumer warpgroup arrives on the slot's *empty* mbarrier after its
  ``wgmma.wait_group 1``): the arrival moved before the wait.  Small instance: one
  CTA, 20 K tiles, so the ring wraps (with 8, once the ring had 9 slots, it never did
  and the broken kernel passed).
* ``attention_wide_kv_bf16`` (two warpgroups, no specialization: after the second dot
  ``wgmma.wait_group 0`` and a CTA barrier, then every thread refills the ring): the
  barrier deleted, so warpgroup 1 refills bytes warpgroup 0's wgmma read.

The intact kernels pass (``test_corpus_simulated`` runs them at their case sizes).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import numpy as np
import pytest
from corpus_ptx import CORPUS, corpus_ptx

from tileir.diagnostics import CompileError
from tileir.testing import SimulationError, simulate

if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # pyright: ignore[reportMissingImports]

GemmCase = importlib.import_module("cases._gemm").GemmCase

_MATCH = r"of warpgroup \d \(tid \d+ \.\. \d+\) read, and the wgmma.wait_group that retired it"


def _ptx(name: str) -> str:
    ptx = corpus_ptx(name, "sm_90a")
    assert not isinstance(ptx, CompileError), ptx
    return ptx


def _arrive_before_wait(ptx: str) -> str:
    """The consumer's ``wgmma.wait_group 1`` moved after its release of the slot the
    retired group read (the guarded ``mbarrier.arrive`` block that follows it)."""
    lines = ptx.split("\n")
    wait = lines.index("\twgmma.wait_group.sync.aligned 1;")
    arrive = next(i for i in range(wait, len(lines)) if "mbarrier.arrive" in lines[i])
    assert lines[arrive + 1] == "}", lines[arrive + 1]
    moved = lines[:wait] + lines[wait + 1 : arrive + 2] + [lines[wait]] + lines[arrive + 2 :]
    return "\n".join(moved)


def _small_gemm_f16() -> tuple[Any, Any]:
    case = _common.load_case_module("gemm_f16")
    tm, tn, tk = case.TILE_M, case.TILE_N, case.TILE_K
    small = GemmCase((tm, tn, 20 * tk), (tm, tn, tk), np.float16)
    return small, small.make_inputs(np.random.default_rng(0))


def test_gemm_f16_small_instance_passes() -> None:
    small, inputs = _small_gemm_f16()
    expected = small.reference(_common.copy_inputs(inputs))
    simulate(_ptx("gemm_f16"), inputs["grid"], _common.flatten_args(inputs))
    np.testing.assert_allclose(inputs["arrays"]["c"], expected["c"], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(("order", "seed"), [("lockstep", None), ("round-robin", None)])
def test_releasing_a_slot_before_the_wait_that_retires_its_reads(
    order: str, seed: int | None
) -> None:
    # In lockstep the producer refills before the consumer's wait (an unfinished wgmma
    # still reads the slot); round-robin runs the wait first, and only its retirement,
    # not ordered before the refill, shows the race.
    _, inputs = _small_gemm_f16()
    ptx = _arrive_before_wait(_ptx("gemm_f16"))
    with pytest.raises(SimulationError, match="wgmma") as info:
        simulate(ptx, inputs["grid"], _common.flatten_args(inputs), warp_order=order, seed=seed)
    assert info.value.kind == "async-race", info.value


def _no_barrier_before_refill(ptx: str) -> str:
    """The CTA barrier after the last ``wgmma.wait_group 0`` of the loop body (the one
    followed by the ring's refill) deleted."""
    lines = ptx.split("\n")
    waits = [i for i, line in enumerate(lines) if line == "\twgmma.wait_group.sync.aligned 0;"]
    body = [i for i in waits if "cp.async.cg" in "\n".join(lines[i : i + 400])]
    assert body, "no wgmma.wait_group 0 followed by a refill"
    at = body[0]
    assert lines[at + 1] == "\tbar.sync 0;", lines[at + 1]
    return "\n".join(lines[: at + 1] + lines[at + 2 :])


def test_refilling_after_wait_group_without_the_barrier() -> None:
    case = _common.load_case_module("attention_wide_kv_bf16")
    inputs = case.make_inputs(np.random.default_rng(0))
    ptx = _no_barrier_before_refill(_ptx("attention_wide_kv_bf16"))
    with pytest.raises(SimulationError, match=_MATCH) as info:
        simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    assert info.value.kind == "async-race", info.value
    assert "cp.async" in (info.value.instruction or "")
