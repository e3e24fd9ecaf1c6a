"""Proxy fences around ring slots that `wgmma` reads (sm_90a): the consumer's wait on a
stage's *full* mbarrier is not followed by a `fence.proxy.async` of its own (`cp.async`'s
bytes need none; `agents.LowerConsumer`), and neither is a one-agent ring's wait, unless
the thread itself stored something the `wgmma` reads (a tf32 rounding of its words, an
operand it writes).  What the async proxy then relies on for an edge tile is the fence
of the producer thread that stored the masked elements with `st.shared`: removing it
must fail in the simulator.  (Where the mask is cuTile's bounds form, sm_90a copies a
group cut by the edge as its in-bounds prefix instead, `async_copy._counted_copy` or
`_prefix_copy`; the element path stays for other masks, and the test below takes it by
turning the prefix copies off.)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tileir.compiler import compile_module, load_module
from tileir.conversions.tileas_to_llvm import async_copy
from tileir.testing import SimulationError

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 20261127

#: The consumer's wait on a stage, and what follows it up to its first `wgmma`.
CONSUMER_WAIT = re.compile(r"setmaxnreg\.inc[^\n]*\n(?P<body>.*?)wgmma\.mma_async", re.S)
#: The end of an element path of a partly masked group: its fence, then its label.
EDGE_FENCE = re.compile(r"fence\.proxy\.async\.shared::cta;\n(tileir_copied:)")


def _ptx(name: str) -> str:
    ptx = compile_module(load_module(CORPUS / f"{name}.mlir"), "sm_90a").ptx
    assert ptx is not None
    return ptx


@pytest.mark.parametrize("name", ["gemm_f16", "gemm_bf16_two_warpgroups", "gemm_f16_wide_acc"])
def test_the_consumer_does_not_fence_after_its_wait(name: str) -> None:
    ptx = _ptx(name)
    consumer = CONSUMER_WAIT.search(ptx)
    assert consumer is not None
    assert "mbarrier.try_wait.parity" in consumer.group("body")
    assert "fence.proxy.async" not in consumer.group("body")
    _common.simulate_case(name, ptx, SEED)


def test_a_tf32_ring_in_one_agent_fences_its_rounded_words() -> None:
    """`gemm_tf32` (one agent, each thread rounds its words of the slot in place) fences
    after its last rounding; without that fence the simulator reports the `wgmma`
    reading generic-proxy stores."""
    ptx = _ptx("gemm_tf32")
    assert "setmaxnreg" not in ptx and "fence.proxy.async.shared::cta;" in ptx
    _common.simulate_case("gemm_tf32", ptx, SEED)
    broken = ptx.replace("fence.proxy.async.shared::cta;", "")
    with pytest.raises(SimulationError, match="generic-proxy store"):
        _common.simulate_case("gemm_tf32", broken, SEED)


def test_the_producers_edge_path_fence_is_what_the_consumer_relies_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`gemm_f16_wide_acc` (200x48 by 48x296: tiles across both edges) copied by the
    element path (its prefix copies off, as for a mask that is not cuTile's bounds
    form), with the fences at the end of the producer's element paths removed: its
    `st.shared` of the masked elements reach the consumer's `wgmma` unfenced, which the
    simulator reports."""
    copy = async_copy._copy

    def without_prefix(*args: Any, **kwargs: Any) -> Any:
        return copy(*args, **{**kwargs, "prefix": False})

    monkeypatch.setattr(async_copy, "_copy", without_prefix)
    monkeypatch.setattr(async_copy, "_prefix_bound", lambda *args: None)  # pyright: ignore
    ptx = _ptx("gemm_f16_wide_acc")
    assert "16, t_n;" not in ptx
    broken, count = EDGE_FENCE.subn(r"\1", ptx)
    assert count > 0
    with pytest.raises(SimulationError, match="generic-proxy store"):
        _common.simulate_case("gemm_f16_wide_acc", broken, SEED)
