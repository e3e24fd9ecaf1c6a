"""f32 operands of tf32 dots fed through `cp.async` rings and rounded to tf32 in shared
memory (`tileas-pipeline-dot-operands`, `tf32_operands.py`, `ring_rounding.py`), run in
the PTX simulator against numpy.

`gemm_tf32` (ragged 200x100x120, 64x32 by 32x64 tiles) converts each loaded f32 tile
with `ftof` to tf32 before `mmaf`, as every cuTile f32 matmul does.  Its A and B now
reach the tensor cores as a plain load's would: a ring in front of `mma.sync` (sm_80),
a ring under mbarriers with a `wgmma` group in flight (sm_90a in one agent), the stages
of a warp-specialized pipeline (sm_90a by default), or a ring in front of `tcgen05.mma`
(sm_100a).  In a ring each thread rounds the words it copied once they have landed
(`cp.async.wait_group`, or on sm_90a the wait on the slot's *full* mbarrier), before
the fence and barrier the dot already has; in a pipeline the consumer's threads round
the stage after its *full* mbarrier, then fence the async proxy and meet at their named
barrier.  A 32-row tile on sm_90a (`mma.sync`, as `t_matmul_split_k_f32`) is rounded
under mbarriers too.  Broken variants must fail: the rounded words never stored (the
tensor cores then see unrounded f32, which numpy's rounded reference tells apart), the
rounding before the wait that lands its words, a consumer whose threads do not wait for
each other's rounding, and a `tcgen05` ring whose rounding threads do not fence the
async proxy before the MMA (each an `async-race`).

(The sm_90a ring under mbarriers once took the simulator more than nine minutes, with
no hang: it landed each thread's copies of a phase one thread at a time, each checked
with `np.isin` against every pending `wgmma`'s operand bytes.  It lands them together
now, `ptx_mbarrier.settle`, and checks by binary search: seconds.)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from tileir.compiler import compile_module, load_module, parse_module_text
from tileir.testing import ASYNC_RACE, SimulationError, simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402
from cases.gemm_tf32 import round_to_tf32  # noqa: E402

NAME = "gemm_tf32"
SEED = 20261126

#: (target, warp-specialized): the four ways the operands reach the tensor cores.
FEEDS = (("sm_80", False), ("sm_90a", False), ("sm_90a", True), ("sm_100a", False))

#: The tensor-core instruction that reads the rounded slot, by target.
READER = {"sm_80": "ldmatrix", "sm_90a": "wgmma.mma_async", "sm_100a": "tcgen05.mma"}

#: What makes the stage visible before the rounding reads it: the ring's wait, or the
#: consumer's wait for *full*.
STAGE_WAIT = re.compile(r"^\s*(cp\.async\.wait_(group \d+|all)|mbarrier\.try_wait\.parity)")


@pytest.fixture(scope="module", params=FEEDS, ids=lambda f: f"{f[0]}{'-agents' * f[1]}")
def compiled(request: pytest.FixtureRequest) -> tuple[str, bool, str]:
    arch, agents = request.param
    # At one CTA an SM, as the kernel's hint asks: without it, its 32-register
    # accumulator has it compiled for three (`small_accumulator_occupancy`), and on
    # sm_90a its stages then fit a 2-slot ring in one agent, never two agents.
    text = (CORPUS / f"{NAME}.mlir").read_text()
    hinted = text.replace(
        "optimization_hints=<default = {}>", "optimization_hints=<default = {occupancy = 1}>", 1
    )
    assert hinted != text
    module = parse_module_text(hinted, f"{NAME}.mlir")
    ptx = compile_module(module, arch, warp_specialize=agents).ptx
    assert ptx is not None
    return arch, agents, ptx


def _rounding(lines: list[str]) -> tuple[int, int]:
    """Lines [first, last) of the loop body's rounding: from its first `ld.shared`
    shortly after a wait for the stage (within 48 lines: a swizzled slot's addresses,
    `exchange.ThreadBase`, come between) to the first async-proxy fence or CTA or named
    barrier after it."""
    first = next(
        i
        for i, line in enumerate(lines)
        if "ld.shared" in line and any(STAGE_WAIT.match(x) for x in lines[max(i - 48, 0) : i])
    )
    last = next(
        i for i in range(first, len(lines)) if re.match(r"\s*(bar\.sync|fence\.proxy)", lines[i])
    )
    return first, last


def test_operands_go_through_rings_and_are_rounded_there(compiled: tuple[str, bool, str]) -> None:
    arch, agents, ptx = compiled
    # A: 16-byte copies; B (K x N in memory, N x K in its buffer): one 4-byte copy an
    # element, four from each 16-byte group's address.
    assert "cp.async.cg.shared.global" in ptx
    assert re.search(r"cp\.async\.ca\.shared\.global \[%r\d+\], \[%rd\d+\+12\], 4, t_n;", ptx)
    assert ("setmaxnreg" in ptx) == agents
    # sm_90a in one agent: the ring waits on its slots' full mbarriers, no copy group;
    # sm_80 and sm_100a (tcgen05) on copy groups.
    if (arch, agents) == ("sm_90a", False):
        assert "cp.async.mbarrier.arrive.shared::cta.b64" in ptx
        assert "cp.async.wait_group" not in ptx and "cp.async.commit_group" not in ptx
    elif not agents:
        assert "cp.async.mbarrier.arrive" not in ptx and "cp.async.commit_group" in ptx
    lines = ptx.splitlines()
    first, last = _rounding(lines)
    body = "\n".join(lines[first:last])
    # A's words in 16-byte vectors, B's one at a time (16 each); to nearest even: on
    # sm_80 add 0xfff and the lowest kept bit, clear the 13 low bits (0xffffe000); from
    # sm_90 one `cvt.rn.tf32.f32` a word (`tf32.round_for_tensor_cores`).
    # (The words loaded into float registers: on sm_100a the dot's lowering reads a
    # word of its own, `ld.shared.b32 %r`, between the rounding and the fence.)
    assert body.count("ld.shared.v4.b32 {%f") == 4 and body.count("st.shared.v4.b32") == 4
    assert body.count("ld.shared.b32 %f") == 16 and body.count("st.shared.b32") == 16
    if arch == "sm_80":
        assert ", 4095;" in body and ", 4294959104;" in body and "cvt." not in body
    else:
        assert body.count("cvt.rn.tf32.f32") == 32 and ", 4095;" not in body
    # The async proxy's readers (wgmma, tcgen05) see the generic stores after each
    # writer's fence; then a barrier (a consumer's own, its threads rounded words the
    # producer copied) before the tensor cores read the slot.  (In one agent on sm_90a
    # the rounding's own fence follows its stores and the dot's barrier comes after the
    # dot's index arithmetic.)
    fence = lines[last].strip() == "fence.proxy.async.shared::cta;"
    assert fence == (arch != "sm_80")
    barrier = next(i for i in range(last, len(lines)) if "bar.sync" in lines[i])
    assert lines[barrier].strip() == ("bar.sync 2, 128;" if agents else "bar.sync 0;")
    assert barrier == last + int(fence) or arch == "sm_100a" or (arch, agents) == ("sm_90a", False)
    assert not any("fence.proxy.async" in line for line in lines[last + 1 : barrier])
    # (tcgen05: the accumulator's way into tensor memory comes between; the MMA's issuer
    # passes the CTA barrier between the tcgen05 fences.)
    reader = next(i for i in range(barrier, len(lines)) if READER[arch] in lines[i])
    syncs = [line.strip() for line in lines[barrier:reader] if "bar.sync" in line]
    assert syncs[-1] == lines[barrier].strip()


def test_matches_numpy(compiled: tuple[str, bool, str]) -> None:
    _common.simulate_case(NAME, compiled[2], SEED)


@pytest.mark.parametrize(
    "compiled", (*FEEDS[:2], FEEDS[3]), indirect=True, ids=("sm_80", "sm_90a", "sm_100a")
)
def test_skipped_rounding_is_caught(compiled: tuple[str, bool, str]) -> None:
    """Without the rounded stores the tensor cores read the f32 words as they landed.
    (The agents' rounding is the same code, after another wait: not simulated twice.)"""
    lines = compiled[2].splitlines()
    first, last = _rounding(lines)
    for i in range(first, last):
        if lines[i].strip().startswith("st.shared"):
            lines[i] = "// " + lines[i]
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        _common.simulate_case(NAME, "\n".join(lines), SEED)


def test_rounding_out_of_order_is_caught(compiled: tuple[str, bool, str]) -> None:
    """A ring's rounding moved before its waits: it reads bytes its copies have not
    written.  A consumer's barrier dropped: `wgmma` reads words other consumer threads
    are still rounding (generic-proxy stores it is not ordered after)."""
    _, agents, ptx = compiled
    lines = ptx.splitlines()
    if agents:
        _, last = _rounding(lines)
        lines[last] = "// " + lines[last]
    else:
        lines = _round_before_the_waits(lines)
    with pytest.raises(SimulationError, match=ASYNC_RACE):
        _common.simulate_case(NAME, "\n".join(lines), SEED)


def _round_before_the_waits(lines: list[str]) -> list[str]:
    """The loop body's waits for its stage (a `cp.async.wait_group`, or the `{ ... }` of
    an mbarrier parity wait) moved to after the rounding, before the dot's fence or
    barrier: the waits still happen, the rounding comes first."""
    first, last = _rounding(lines)
    moved: list[int] = []
    for i in range(max(first - 48, 0), first):
        if STAGE_WAIT.match(lines[i]):
            if lines[i - 3].strip() == "{":  # {, .reg .pred t_done;, tileir_wait:, the wait
                moved += range(i - 3, i + 3)
            else:
                moved.append(i)
    assert moved
    waits = [lines[i] for i in moved]
    kept = [line for i, line in enumerate(lines[:last]) if i not in set(moved)]
    return kept + waits + lines[last:]


@pytest.mark.parametrize("compiled", FEEDS[3:], indirect=True, ids=("sm_100a",))
def test_tcgen05_without_the_proxy_fence_is_caught(compiled: tuple[str, bool, str]) -> None:
    """`tcgen05.mma` reads the slot through the async proxy: the rounding's generic
    stores reach it only after each writer's `fence.proxy.async`, which the dot's
    lowering places before its barrier.  Without it the simulator reports the race."""
    lines = compiled[2].splitlines()
    _, last = _rounding(lines)
    assert lines[last].strip() == "fence.proxy.async.shared::cta;"
    lines[last] = "// " + lines[last]
    with pytest.raises(SimulationError, match=ASYNC_RACE):
        _common.simulate_case(NAME, "\n".join(lines), SEED)


#: One 64x64 tile of `c = tf32(a) @ tf32(b)`, K = 128 in 32-wide steps, with M and N
#: given at launch and N a multiple of 4 (`assume div_by<4>`): each 16-byte group of B
#: is then wholly in bounds or wholly out, and its four 4-byte copies share one
#: predicate (`uniform_groups`).
ALIGNED_N = """
cuda_tile.module @aligned_n {
  entry @tf32_gemm(%a0: tile<ptr<f32>>, %b0: tile<ptr<f32>>, %c0: tile<ptr<f32>>, %m: tile<i32>, %n0: tile<i32>) {
    %n = assume div_by<4>, %n0 : tile<i32>
    %a = assume div_by<16>, %a0 : tile<ptr<f32>>
    %b = assume div_by<16>, %b0 : tile<ptr<f32>>
    %c = assume div_by<16>, %c0 : tile<ptr<f32>>
    %av = make_tensor_view %a, shape = [%m, 128], strides = [128, 1] : tile<i32> -> tensor_view<?x128xf32, strides=[128,1]>
    %bv = make_tensor_view %b, shape = [128, %n], strides = [%n, 1] : tile<i32> -> tensor_view<128x?xf32, strides=[?,1]>
    %cv = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %ap = make_partition_view %av : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x128xf32, strides=[128,1]>>
    %bp = make_partition_view %bv : partition_view<tile=(32x64), padding_value = zero, tensor_view<128x?xf32, strides=[?,1]>>
    %cp = make_partition_view %cv : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %steps = constant <i32: 4> : tile<i32>
    %init = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %acc = for %k in (%zero to %steps, step %one) : tile<i32> iter_values(%sum = %init) -> (tile<64x64xf32>) {
      %x, %t0 = load_view_tko weak %ap[%zero, %k] : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x128xf32, strides=[128,1]>>, tile<i32> -> tile<64x32xf32>, token
      %y, %t1 = load_view_tko weak %bp[%k, %zero] : partition_view<tile=(32x64), padding_value = zero, tensor_view<128x?xf32, strides=[?,1]>>, tile<i32> -> tile<32x64xf32>, token
      %xt = ftof %x : tile<64x32xf32> -> tile<64x32xtf32>
      %yt = ftof %y : tile<32x64xf32> -> tile<32x64xtf32>
      %next = mmaf %xt, %yt, %sum : tile<64x32xtf32>, tile<32x64xtf32>, tile<64x64xf32>
      continue %next : tile<64x64xf32>
    }
    %t2 = store_view_tko weak %acc, %cp[%zero, %zero] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
"""


def test_b_groups_under_one_predicate_match_numpy(tmp_path: Path) -> None:
    """M = 50 and N = 44 (ragged within the tile, N a multiple of 4), on sm_80: B's
    element copies take one predicate a group, and the zero-filled groups past N still
    add nothing."""
    source = tmp_path / "aligned_n.mlir"
    source.write_text(ALIGNED_N)
    ptx = compile_module(load_module(source), "sm_80").ptx
    assert ptx is not None
    copy = r"\s*cp\.async\.ca\.shared\.global \[%r\d+\], \[%rd\d+\+{}\], 4, t_n;\n"
    whole = re.compile(
        r"selp\.b32 t_n, 4, 0, %p\d+;\n" + "".join(copy.format(4 * i) for i in range(4))
    )
    assert whole.findall(ptx)
    assert not re.search(r"selp\.b32 t_n, 4, 0, %p\d+;\n" + copy.format(4), ptx)
    _matches_numpy(ptx, 50, 44)


def test_tcgen05_mmas_in_flight_match_numpy(tmp_path: Path) -> None:
    """128-row tiles on sm_100a: the accumulator stays in tensor memory and the MMAs
    stay in flight across iterations, each committed to its ring slot's mbarrier, which
    the slot's next refill waits for (`Ring.refill_guard`); the rounding of a slot
    happens after that refill landed, before the MMAs that read it.  M = 100 and
    N = 44 are ragged within the tile."""
    source = tmp_path / "in_flight.mlir"
    source.write_text(ALIGNED_N.replace("64x32", "128x32").replace("64x64", "128x64"))
    module = load_module(source)
    ptx = compile_module(module, "sm_100a").ptx
    assert ptx is not None
    # One commit an iteration, to the slot's mbarrier; each refill first waits for it
    # (`%tc_ok`), and the loop's end for the last ones (`%tc_drained`).
    assert ptx.count("tcgen05.commit") == 1 and "tcgen05.mma.cta_group::1.kind::tf32" in ptx
    assert "try_wait.parity.shared::cta.b64 %tc_ok" in ptx and "%tc_drained" in ptx
    body = ptx[ptx.index("cp.async.wait_group") :]
    assert (
        body.index("cvt.rn.tf32.f32") < body.index("fence.proxy.async") < body.index("tcgen05.mma")
    )
    _matches_numpy(ptx, 100, 44)


#: ALIGNED_N with 32-row tiles of A and C: on sm_90a an `mma.sync` dot in one agent (as
#: `t_matmul_split_k_f32`'s), whose rings wait on mbarriers.
SMALL_M = (
    ALIGNED_N.replace("64x32", "32x32").replace("(64x64)", "(32x64)").replace("64x64x", "32x64x")
)


@pytest.fixture(scope="module")
def mma_sync_ptx(tmp_path_factory: pytest.TempPathFactory) -> str:
    source = tmp_path_factory.mktemp("small_m") / "small_m.mlir"
    source.write_text(SMALL_M)
    ptx = compile_module(load_module(source), "sm_90a").ptx
    assert ptx is not None
    return ptx


def test_mma_sync_ring_under_mbarriers_matches_numpy(mma_sync_ptx: str) -> None:
    """sm_90a, `mma.sync`, M = 20 and N = 44 (ragged within the 32x64 tile): each thread
    waits on the slot's full mbarrier (every thread's copies acquired), rounds its own
    words, and the dot's CTA barrier orders the rounded words before any `ldmatrix`."""
    ptx = mma_sync_ptx
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in ptx
    assert "cp.async.wait_group" not in ptx and "setmaxnreg" not in ptx
    lines = ptx.splitlines()
    first, last = _rounding(lines)
    assert "mbarrier.try_wait.parity" in "\n".join(lines[first - 24 : first])
    assert lines[last].strip() == "bar.sync 0;" and "ldmatrix" in lines[last + 1]
    _matches_numpy(ptx, 20, 44)


def test_mma_sync_rounding_before_the_wait_is_caught(mma_sync_ptx: str) -> None:
    """The same kernel with the rounding before the slot's mbarrier waits: it reads
    bytes still in flight."""
    moved = "\n".join(_round_before_the_waits(mma_sync_ptx.splitlines()))
    with pytest.raises(SimulationError, match=ASYNC_RACE):
        _matches_numpy(moved, 20, 44)


def _matches_numpy(ptx: str, m: int, n: int) -> None:
    """One CTA of `ptx` (a module like ALIGNED_N) on an M x 128 by 128 x N product of
    random f32 matrices equals numpy's product of the tf32-rounded ones."""
    rng = np.random.default_rng(SEED)
    a = rng.uniform(-1, 1, (m, 128)).astype(np.float32)
    b = rng.uniform(-1, 1, (128, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    simulate(ptx, (1, 1, 1), [a, b, c, m, n])
    expected = round_to_tf32(a).astype(np.float64) @ round_to_tf32(b).astype(np.float64)
    np.testing.assert_allclose(c, expected.astype(np.float32), rtol=1e-5, atol=1e-4)
