"""Attention whose tiles are large for one CTA, on sm_90a (issue 15).

* `attention_wide_kv_bf16` (64x256 scores, 256-key K and V tiles of 64 KiB each,
  `occupancy=2`): without rings it already takes more than half an SM's shared memory,
  so the hint's two CTAs per SM are out of reach and its rings may take the one-CTA
  share (`ring_budget.kernel_shared_budget`): K and V through 2-stage rings under
  mbarriers, where the half-SM budget fed neither.  (The corpus simulation checks it
  against numpy.)
* 256 query rows a block (NVIDIA's FMHA sample with 256x128 tiles, head size 64): S,
  O and P take 256 registers a thread in 8 warps, so ptxas spilled in the loop every
  trip; the kernel runs 16 warps instead (`occupancy.loop_dot_warps`), without a spill
  and with its rings.  The kernel is `attention_wide_kv_bf16`'s text with its tile sizes
  changed, run in the PTX simulator against numpy.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
from xdsl.dialects import func

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, load_module, parse_module_text
from tileir.targets import ARCHS, RESERVED_SHARED_PER_CTA
from tileir.testing import simulate
from tileir.transforms.tileas.pipeline_dot_operands import FEED_ATTR
from tileir.transforms.tileas.ring_budget import kernel_shared_budget, unpipelined_bound

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
_common = importlib.import_module("_common")
AttentionCase = importlib.import_module("cases._attention").AttentionCase

WIDE = CORPUS / "attention_wide_kv_bf16.mlir"


def test_rings_take_the_share_the_kernel_gets_anyway() -> None:
    tileas = compile_module(load_module(WIDE), "sm_90a", stop_after="tileas").module
    assert tileas is not None
    fn = next(op for op in tileas.walk() if isinstance(op, func.FuncOp))
    sm = ARCHS["sm_90a"]
    assert unpipelined_bound(fn) > sm.shared_per_sm // 2 - RESERVED_SHARED_PER_CTA
    assert kernel_shared_budget(fn, "sm_90a") == sm.static_shared
    feeds = [op.attributes[FEED_ATTR] for op in fn.walk() if FEED_ATTR in op.attributes]
    assert len(feeds) == 2
    for feed in feeds:
        first = feed.data[0].data  # pyright: ignore[reportAttributeAccessIssue]
        assert first.startswith("operands through a 2-stage ring of cp.async copies under"), first


#: `attention_wide_kv_bf16`'s tile sizes (64 query rows, 128 head columns, 256 keys) and
#: those of the 256-row variant (256 rows, head size 64, 128 keys).
ROWS_256 = {"64": "256", "128": "64", "256": "128"}


def _resized(text: str, sizes: dict[str, str]) -> str:
    """`text` with every dimension of its tile and partition shapes mapped by `sizes`."""

    def dims(m: re.Match[str]) -> str:
        return "x".join(sizes.get(d, d) for d in m.group(0).split("x"))

    def shapes(m: re.Match[str]) -> str:
        return re.sub(r"\d+(?:x\d+)*", dims, m.group(0))

    return re.sub(r"tile<[\dx]+x[a-z]|tile=\([\dx]+\)", shapes, text)


def test_256_query_rows_run_in_16_warps_without_spilling() -> None:
    module = parse_module_text(_resized(WIDE.read_text(), ROWS_256), "attention_rows256.mlir")
    ptx = compile_module(module, "sm_90a").ptx
    assert ptx is not None
    # 8 warps: 255 registers and 180 bytes of spill stores, no ring.
    assert ".reqntid 512, 1, 1" in ptx
    assert "cp.async.mbarrier.arrive" in ptx
    report = run_ptxas(ptx, "sm_90a")
    assert report.ok and set(report.spills.values()) == {0}, report.output
    case = AttentionCase(
        (1, 1, 256), 256, 128, kv_tiles=2, d=64, scale=0.125, dtype=ml_dtypes.bfloat16
    )
    inputs = case.make_inputs(np.random.default_rng(20261127))
    expected = case.reference(_common.copy_inputs(inputs))
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    got = inputs["arrays"]["out"].astype(np.float32)
    np.testing.assert_allclose(got, expected["out"].astype(np.float32), rtol=2e-2, atol=2e-2)
