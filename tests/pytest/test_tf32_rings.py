"""f32 operands of tf32 dots fed through `cp.async` rings and rounded to tf32 in shared
memory (`tileas-pipeline-dot-operands`, `tf32_operands.py`, `ring_rounding.py`), run in
the PTX simulator against numpy.

`gemm_tf32` (ragged 200x100x120, 64x32 by 32x64 tiles) converts each loaded f32 tile
with `ftof` to tf32 before `mmaf`, as every cuTile f32 matmul does.  Its A and B now
reach the tensor cores as a plain load's would: a ring in front of `mma.sync` (sm_80),
a ring with a `wgmma` group in flight (sm_90a in one agent), or the stages of a
warp-specialized pipeline (sm_90a by default).  In a ring each thread rounds the words
it copied once its own copies have landed, before the barrier the dot already has; in
a pipeline the consumer's threads round the stage after its *full* mbarrier, then
fence the async proxy and meet at their named barrier.  Broken variants must fail: the
rounded words never stored (the tensor cores then see unrounded f32, which numpy's
rounded reference tells apart), the rounding reading its words before the wait that
lands them, and a consumer whose threads do not wait for each other's rounding (each an
`async-race`).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tileir.compiler import compile_module, load_module
from tileir.testing import ASYNC_RACE, SimulationError

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402

NAME = "gemm_tf32"
SEED = 20261126

#: (target, warp-specialized): the three ways the operands reach the tensor cores.
FEEDS = (("sm_80", False), ("sm_90a", False), ("sm_90a", True))

#: What makes the stage visible before the rounding reads it: the ring's wait, or the
#: consumer's wait for *full*.
STAGE_WAIT = re.compile(r"^\s*(cp\.async\.wait_(group \d+|all)|mbarrier\.try_wait\.parity)")


@pytest.fixture(scope="module", params=FEEDS, ids=lambda f: f"{f[0]}{'-agents' * f[1]}")
def compiled(request: pytest.FixtureRequest) -> tuple[str, bool, str]:
    arch, agents = request.param
    module = load_module(CORPUS / f"{NAME}.mlir")
    ptx = compile_module(module, arch, warp_specialize=agents).ptx
    assert ptx is not None
    return arch, agents, ptx


def _rounding(lines: list[str]) -> tuple[int, int]:
    """Lines [first, last) of the loop body's rounding: from its first `ld.shared`
    shortly after a wait for the stage to the first CTA or named barrier after it."""
    first = next(
        i
        for i, line in enumerate(lines)
        if "ld.shared" in line and any(STAGE_WAIT.match(x) for x in lines[max(i - 24, 0) : i])
    )
    last = next(i for i in range(first, len(lines)) if "bar.sync" in lines[i])
    return first, last


def test_operands_go_through_rings_and_are_rounded_there(compiled: tuple[str, bool, str]) -> None:
    arch, agents, ptx = compiled
    # A: 16-byte copies; B (K x N in memory, N x K in its buffer): one 4-byte copy an
    # element, four from each 16-byte group's address.
    assert "cp.async.cg.shared.global" in ptx
    assert re.search(r"cp\.async\.ca\.shared\.global \[%r\d+\], \[%rd\d+\+12\], 4, t_n;", ptx)
    assert ("setmaxnreg" in ptx) == agents
    lines = ptx.splitlines()
    first, last = _rounding(lines)
    body = "\n".join(lines[first:last])
    # A's words in 16-byte vectors, B's one at a time (16 each); to nearest even: add
    # 0xfff and the lowest kept bit, clear the 13 low bits (0xffffe000).
    assert body.count("ld.shared.v4.b32") == 4 and body.count("st.shared.v4.b32") == 4
    assert body.count("ld.shared.b32") == 16 and body.count("st.shared.b32") == 16
    assert ", 4095;" in body and ", 4294959104;" in body
    # A consumer's threads round words the producer copied: a fence and their barrier.
    assert lines[last].strip() == ("bar.sync 2, 128;" if agents else "bar.sync 0;")
    assert lines[last - 1].strip() == "fence.proxy.async.shared::cta;" or arch == "sm_80"
    # Then the tensor cores read the slot.
    reader = "wgmma.mma_async" if arch == "sm_90a" else "ldmatrix"
    assert reader in "\n".join(lines[last : last + 40])


def test_matches_numpy(compiled: tuple[str, bool, str]) -> None:
    _common.simulate_case(NAME, compiled[2], SEED)


def test_skipped_rounding_is_caught(compiled: tuple[str, bool, str]) -> None:
    """Without the rounded stores the tensor cores read the f32 words as they landed."""
    lines = compiled[2].splitlines()
    first, last = _rounding(lines)
    for i in range(first, last):
        if lines[i].strip().startswith("st.shared"):
            lines[i] = "// " + lines[i]
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        _common.simulate_case(NAME, "\n".join(lines), SEED)


def test_rounding_out_of_order_is_caught(compiled: tuple[str, bool, str]) -> None:
    """A ring's waits dropped: the rounding reads bytes its copies have not written.  A
    consumer's barrier dropped: `wgmma` reads words other consumer threads are still
    rounding (generic-proxy stores it is not ordered after)."""
    _, agents, ptx = compiled
    lines = ptx.splitlines()
    first, last = _rounding(lines)
    if agents:
        lines[last] = "// " + lines[last]
    else:
        waits = [i for i in range(max(first - 24, 0), first) if STAGE_WAIT.match(lines[i])]
        assert waits
        for i in waits:
            lines[i] = "// " + lines[i]
    with pytest.raises(SimulationError, match=ASYNC_RACE):
        _common.simulate_case(NAME, "\n".join(lines), SEED)
