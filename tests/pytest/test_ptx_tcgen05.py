"""sm_100a's tensor-memory MMA (`tcgen05`), end to end: the corpus dots tileir puts on
`tcgen05.mma` assemble with `ptxas -arch=sm_100a`, and run in the PTX simulator
(`tileir/testing/ptx_tcgen05.py`, written from the PTX ISA's tcgen05 sections) against
numpy; the same PTX, each time with one thing broken (a descriptor's fixed bits, the
wait for the commit before the read, the wait before a ring slot the in-flight MMAs read
is refilled, the lane quarter a warp reads, the dealloc before exit, the instruction
descriptor), fails in the simulator with the misuse named.  (i8 dots on
`kind::i8`: test_mma_dot.py's `test_mmai_is_exact`.)  No Blackwell GPU
was at hand: ptxas and the simulator are the judges (docs/codegen.md, "Blackwell")."""

from __future__ import annotations

import functools
import itertools
import re
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tileir.conversions.tileas_to_llvm.tcgen05 as lowering
from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, load_module
from tileir.testing import SimulationError, simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

#: The corpus kernels whose dot runs on tcgen05 on sm_100a (M 64 or a multiple of 128).
TCGEN05_KERNELS = (
    "gemm_bf16_big_tile",
    "gemm_bf16_two_warpgroups",
    "gemm_e4m3_scaled",
    "gemm_f16",  # M = 64: data-path layout F
    "gemm_tf32",  # M = 64, kind::tf32
    "gemm_bf16_deep_k",
    "batched_matmul_2d_f16",
    "batched_matmul_e5m2",  # kind::f8f6f4, e5m2
    "block_scaled_mm_e4m3",
    "flash_attention_f16",  # M = 64: O rescaled in tensor memory, S read each iteration
)
#: Those with a 64-row accumulator (data-path layout F).
HALF_DATAPATH = (
    "gemm_f16",
    "gemm_tf32",
    "gemm_bf16_deep_k",
    "batched_matmul_2d_f16",
    "batched_matmul_e5m2",
    "block_scaled_mm_e4m3",
    "flash_attention_f16",
)
#: Those whose K loop loads feed cp.async rings (gemm_tf32's operands are converted
#: to tf32 first, so they go through registers).
RING_FED = ("gemm_bf16_big_tile", "gemm_bf16_two_warpgroups", "gemm_e4m3_scaled", "gemm_f16")
#: The kernel the broken variants start from.
BROKEN_BASE = "gemm_bf16_two_warpgroups"


@functools.cache
def _ptx(name: str, warp_specialize: bool = True) -> str:
    ptx = compile_module(
        load_module(CORPUS / f"{name}.mlir"), "sm_100a", warp_specialize=warp_specialize
    ).ptx
    assert ptx is not None
    return ptx


def _one_agent_ptx() -> str:
    """`BROKEN_BASE` in one agent of 8 warps, its MMAs in flight across iterations: what
    the broken variants break (since the ring budget counts its slots as laid out, three
    CTAs fit an SM where four were assumed, and by default it is warp-specialized:
    test_tcgen05_agents.py breaks that form)."""
    return _ptx(BROKEN_BASE, warp_specialize=False)


def _run(name: str, ptx: str) -> None:
    _common.simulate_case(name, ptx, 0)


@pytest.mark.parametrize("name", TCGEN05_KERNELS)
def test_corpus_dot_on_tcgen05_matches_numpy(name: str) -> None:
    ptx = _ptx(name)
    assert "tcgen05.mma.cta_group::1" in ptx
    # A 64-row accumulator (data-path layout F) moves between tensor memory and its MMA
    # fragment registers with .16x256b accesses, without an exchange through shared
    # memory; the others with .32x32b, each warp its lane quarter.
    shapes = set(re.findall(r"tcgen05\.(?:ld|st)\.sync\.aligned\.(\w+)", ptx))
    assert shapes == {"16x256b" if name in HALF_DATAPATH else "32x32b"}
    # One elected lane of warp 0 issues (elect.sync), not a comparison of the thread index.
    assert re.search(r"elect\.sync %r\d+\|%tc_elected, -1;", ptx)
    # The K loop's operands arrive through cp.async rings (tileas-pipeline-dot-operands).
    assert ("cp.async.cg.shared.global" in ptx) >= (name in RING_FED)
    run_ptxas(ptx, "sm_100a")
    _run(name, ptx)


def test_256_row_tile_splits_row_blocks_over_warps(tmp_path: Path) -> None:
    """A 256x64 accumulator with 8 warps: the second group of four warps takes the second
    128-row block (rows stay in one thread, so a row reduction needs no other warp)."""
    from cases._gemm import GemmCase  # pyright: ignore[reportMissingImports]

    text = (CORPUS / f"{BROKEN_BASE}.mlir").read_text()
    for old, new in (("128x32", "256x32"), ("32x128", "32x64"), ("128x128", "256x64")):
        text = text.replace(old, new)
    (tmp_path / "gemm_256x64.mlir").write_text(text)
    # One agent of 8 warps (the three agents' epilogue has the same layouts:
    # test_tcgen05_agents.py runs gemm_f16_wide_acc's 8 epilogue warps).
    module = load_module(tmp_path / "gemm_256x64.mlir")
    ptx = compile_module(module, "sm_100a", warp_specialize=False).ptx
    assert ptx is not None and ".reqntid 256, 1, 1" in ptx
    assert "tcgen05.ld.sync.aligned.32x32b.x32.b32" in ptx
    case = GemmCase((300, 72, 112), (256, 64, 32), ml_dtypes.bfloat16)
    inputs = case.make_inputs(np.random.default_rng(0))
    expected = case.reference(_common.copy_inputs(inputs))
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    np.testing.assert_allclose(inputs["arrays"]["c"], expected["c"], 1e-5, 1e-4)


def _with_row_reductions(text: str) -> str:
    """A kernel text whose stored result `%for` becomes x + (sum(x, 1) - max(x, 1))[:, None],
    x = %for * 0.1: its rows reduced twice, as attention's softmax reduces S."""
    store = "  %1 = store_view_tko weak %for,"
    assert store in text
    f32 = "tile<128x128xf32>"

    def reduce(name: str, combine: str, identity: str) -> str:
        return (
            f"  %{name} = reduce %g16_x dim=1 identities=[{identity} : f32] : {f32} -> "
            "tile<128xf32>\n"
            "  (%lhs: tile<f32>, %rhs: tile<f32>) {\n"
            f"    %{name}_c = {combine} %lhs, %rhs : tile<f32>\n"
            f"    yield %{name}_c : tile<f32>\n"
            "  }\n"
        )

    epilogue = (
        f"  %g16_tenth = constant <f32: 0.1> : {f32}\n"
        f"  %g16_x = mulf %for, %g16_tenth : {f32}\n"
        + reduce("g16_sum", "addf", "0.000000e+00")
        + reduce("g16_max", "maxf", "0xFF800000")
        + "  %g16_d = subf %g16_sum, %g16_max : tile<128xf32>\n"
        "  %g16_dcol = reshape %g16_d : tile<128xf32> -> tile<128x1xf32>\n"
        f"  %g16_db = broadcast %g16_dcol : tile<128x1xf32> -> {f32}\n"
        f"  %g16_out = addf %g16_x, %g16_db : {f32}\n"
    )
    return text.replace(store, epilogue + store.replace("%for,", "%g16_out,"))


def _assert_equals_interpreter(path: Path, ptx: str) -> None:
    """`ptx` (compiled from `path`, a variant of the base GEMM) in the simulator and
    `path` in the interpreter give the same bits, on integer inputs."""
    from tileir.interpreter import launch

    run_ptxas(ptx, "sm_100a")
    case = _common.load_case_module(BROKEN_BASE)
    inputs = case.make_inputs(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for key in ("a", "b"):
        shape = inputs["arrays"][key].shape
        inputs["arrays"][key][...] = rng.integers(-3, 4, shape).astype(ml_dtypes.bfloat16)
    simulated, interpreted = _common.copy_inputs(inputs), _common.copy_inputs(inputs)
    simulate(ptx, inputs["grid"], _common.flatten_args(simulated))
    launch(path, inputs["grid"], *_common.flatten_args(interpreted))
    got, want = simulated["arrays"]["c"], interpreted["arrays"]["c"]
    assert np.isfinite(want).all() and np.abs(want).max() > 1
    assert got.tobytes() == want.tobytes()


def test_row_reductions_of_a_column_split_accumulator_equal_the_interpreter(
    tmp_path: Path,
) -> None:
    """gemm_bf16_two_warpgroups (128x128 f32, 8 warps: two groups of four split the
    columns) whose epilogue reduces each row twice, as attention's softmax does
    (`_with_row_reductions`).  In a kernel that reduces an accumulator's rows the groups
    hold runs of 2 columns in turn (`tcgen05_plan.column_run`; 8 in the plain GEMM), so
    the row trees combine each thread's registers first and cross warps with 2 values;
    the PTX in the simulator equals the interpreter bit for bit (integer inputs: the
    products and the accumulation are exact, so only the reductions' order could
    differ)."""
    text = _with_row_reductions((CORPUS / f"{BROKEN_BASE}.mlir").read_text())
    path = tmp_path / "gemm_row_reductions.mlir"
    path.write_text(text)
    ptx = compile_module(load_module(path), "sm_100a").ptx
    assert ptx is not None
    assert ptx.count("tcgen05.ld.sync.aligned.32x32b.x2.b32") == 32
    _assert_equals_interpreter(path, ptx)


def test_chain_of_dots_keeps_one_accumulator_in_tensor_memory(tmp_path: Path) -> None:
    """Two dots per K step, the second accumulating into the first's result (as a
    block-scaled K step does, one dot per scale block): one resident accumulator for
    both, no tcgen05.ld in the loop, and c = 2 a b."""
    text = (CORPUS / f"{BROKEN_BASE}.mlir").read_text()
    types = "tile<128x32xbf16>, tile<32x128xbf16>, tile<128x128xf32>"
    one = f"%2 = mmaf %tile, %tile_25, %iterArg0 : {types}\n"
    assert one in text
    # Both dots read -a and -b (computed operands: no ring, the dots wait for their
    # commits), the second accumulating into the first's result: c = 2 a b.
    chain = (
        "%na = negf %tile : tile<128x32xbf16>\n"
        "    %nb = negf %tile_25 : tile<32x128xbf16>\n"
        f"    %2 = mmaf %na, %nb, %iterArg0 : {types}\n"
        f"    %3 = mmaf %na, %nb, %2 : {types}\n"
    )
    text = text.replace(one, chain).replace("continue %2 :", "continue %3 :")
    (tmp_path / "gemm_chain.mlir").write_text(text)
    module = load_module(tmp_path / "gemm_chain.mlir")
    ptx = compile_module(module, "sm_100a").ptx
    assert ptx is not None
    loop = ptx[: ptx.index("tcgen05.ld.sync")]
    assert loop.count("tcgen05.mma.cta_group::1") == 4 and "tcgen05.st.sync" in loop
    case = _common.load_case_module(BROKEN_BASE)
    inputs = case.make_inputs(np.random.default_rng(0))
    expected = case.reference(_common.copy_inputs(inputs))
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    np.testing.assert_allclose(inputs["arrays"]["c"], 2 * expected["c"], 1e-5, 1e-4)


def _rescaled_gemm(
    tmp_path: Path, invariant_a: bool = False, negated_b: bool = False, reduce_rows: bool = False
) -> str:
    """gemm_bf16_two_warpgroups whose K loop scales its accumulator row by row before
    each dot, as flash attention rescales O: acc = acc * f[:, None] + a_k b_k, with
    f[i] = 0.25 + i / 128 for row i of the tile (each row a different factor).  With
    `invariant_a`, A is the first K tile for every step, loaded before the loop (as
    attention's Q): acc = acc * f[:, None] + a_0 b_k.  With `negated_b`, the dot reads
    -b_k, computed in registers (no ring feeds it).  With `reduce_rows`, the result's rows
    are reduced as well (`_with_row_reductions`)."""
    text = (CORPUS / f"{BROKEN_BASE}.mlir").read_text()
    if invariant_a:
        load = "    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %loopIdx] "
        line = next(x for x in text.splitlines(keepends=True) if x.startswith(load))
        text = text.replace(line, "")
        before = line.replace("%loopIdx]", "%cst_0_i32]").replace("    ", "  ", 1)
        text = text.replace("  %for = for %loopIdx", before + "  %for = for %loopIdx", 1)
    loop = "  %for = for %loopIdx"
    factor = (
        "  %g16_row = iota : tile<128xi32>\n"
        "  %g16_rowf = itof %g16_row signed : tile<128xi32> -> tile<128xf32>\n"
        "  %g16_step = constant <f32: 0.0078125> : tile<128xf32>\n"
        "  %g16_base = constant <f32: 0.25> : tile<128xf32>\n"
        "  %g16_f = fma %g16_rowf, %g16_step, %g16_base : tile<128xf32>\n"
        "  %g16_col = reshape %g16_f : tile<128xf32> -> tile<128x1xf32>\n"
        "  %g16_fb = broadcast %g16_col : tile<128x1xf32> -> tile<128x128xf32>\n"
    )
    types = "tile<128x32xbf16>, tile<32x128xbf16>, tile<128x128xf32>"
    one = f"%2 = mmaf %tile, %tile_25, %iterArg0 : {types}\n"
    scaled = (
        "%g16_s = mulf %iterArg0, %g16_fb : tile<128x128xf32>\n"
        f"    %2 = mmaf %tile, %tile_25, %g16_s : {types}\n"
    )
    assert loop in text and one in text
    if negated_b:
        scaled = scaled.replace(
            "%2 = mmaf %tile, %tile_25,",
            "%g16_nb = negf %tile_25 : tile<32x128xbf16>\n    %2 = mmaf %tile, %g16_nb,",
        )
    text = text.replace(loop, factor + loop, 1).replace(one, scaled)
    if reduce_rows:
        text = _with_row_reductions(text)
    (tmp_path / "gemm_rescaled.mlir").write_text(text)
    ptx = compile_module(load_module(tmp_path / "gemm_rescaled.mlir"), "sm_100a").ptx
    assert ptx is not None
    return ptx


@pytest.mark.parametrize(
    ("invariant_a", "negated_b"), [(False, False), (True, False), (True, True)]
)
def test_rescaled_accumulator_stays_in_tensor_memory(
    tmp_path: Path, invariant_a: bool, negated_b: bool
) -> None:
    """tileas-tmem-accumulators keeps an accumulator the loop scales row by row in
    tensor memory: written there before the loop, scaled there (tcgen05.ld, mul,
    tcgen05.st in the loop), read once after it; an A the loop does not change is
    written to shared memory once, before the loop (nv_tileas.staged_once).  The result
    equals numpy's in the simulator, for a loop of several K steps and for one that does
    not run."""
    ptx = _rescaled_gemm(tmp_path, invariant_a, negated_b)
    run_ptxas(ptx, "sm_100a")
    head = ptx.split("tcgen05.mma.cta_group::1", 1)[0]
    assert "tcgen05.st.sync" in head  # the initial value, before the loop
    assert "mul.rn.f32" in head  # the scaling in tensor memory, in the loop
    case = _common.load_case_module(BROKEN_BASE)
    for k_tiles in (None, 0):
        inputs = case.make_inputs(np.random.default_rng(0))
        if k_tiles is not None:
            inputs["scalars"]["k_tiles"] = k_tiles
        a = inputs["arrays"]["a"].astype(np.float32)
        b = inputs["arrays"]["b"].astype(np.float32) * (-1 if negated_b else 1)
        steps = inputs["scalars"]["k_tiles"]
        rows = (0.25 + np.arange(128, dtype=np.float32) / 128).astype(np.float32)
        factor = np.tile(rows, -(-a.shape[0] // 128))[: a.shape[0], None]
        expected = np.zeros((a.shape[0], b.shape[1]), np.float32)
        for k in range(steps):
            a_k = a[:, 0:32] if invariant_a else a[:, 32 * k : 32 * k + 32]
            b_k = b[32 * k : 32 * k + 32]
            expected = expected * factor + a_k[:, : b_k.shape[0]] @ b_k
        simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
        np.testing.assert_allclose(inputs["arrays"]["c"], expected, 1e-4, 1e-3)


def test_rescaled_accumulator_in_runs_of_two_equals_the_interpreter(tmp_path: Path) -> None:
    """The rescaled accumulator of a kernel that also reduces its result's rows: runs
    of 2 columns (`tcgen05_plan.column_run`), so `scale_tmem_accumulator` scales
    2-column slices, each register by its row's factor (`_row_factors`); simulator and
    interpreter agree bit for bit (integer inputs, dyadic row factors)."""
    ptx = _rescaled_gemm(tmp_path, reduce_rows=True)
    head = ptx.split("tcgen05.mma.cta_group::1", 1)[0]
    assert "tcgen05.ld.sync.aligned.32x32b.x2.b32" in head and "mul.rn.f32" in head
    _assert_equals_interpreter(tmp_path / "gemm_rescaled.mlir", ptx)


def test_scaling_before_the_commit_fails_in_the_simulator(tmp_path: Path) -> None:
    """A rescaled accumulator's dot is not in flight: each iteration waits for its MMAs'
    commit, since the next iteration's scaling reads what they wrote.  Without that wait
    (operands in registers, so no ring's refill comes first) the simulator reports the
    scaling's tcgen05.ld as a read before the commit's phase completed."""
    ptx = _rescaled_gemm(tmp_path, invariant_a=True, negated_b=True)
    broken, count = re.subn(
        r"\s*mbarrier\.try_wait\.parity\.shared::cta\.b64 %tc_done[^;]*;\s*@!%tc_done[^;]*;",
        "",
        ptx,
    )
    assert count == 1
    case = _common.load_case_module(BROKEN_BASE)
    inputs = case.make_inputs(np.random.default_rng(0))
    with pytest.raises(SimulationError, match=r"tcgen05\.ld reads tensor memory .* before"):
        simulate(broken, inputs["grid"], _common.flatten_args(inputs))


def test_loop_that_does_not_run_gives_the_initial_accumulator() -> None:
    """With no K step the resident accumulator is never written: the read after the
    loop gives the loop's initial value (zeros), not tensor memory."""
    ptx = _one_agent_ptx()
    case = _common.load_case_module(BROKEN_BASE)
    inputs = case.make_inputs(np.random.default_rng(0))
    inputs["scalars"]["k_tiles"] = 0
    inputs["arrays"]["c"][...] = np.nan
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    np.testing.assert_array_equal(inputs["arrays"]["c"], 0.0)


def test_epilogue_reads_tensor_memory_a_slice_at_a_time() -> None:
    """`llvm-sink-tmem-loads`: each `tcgen05.ld` of the accumulator, with its own
    `tcgen05.wait::ld`, comes just before the stores of those columns, not all loads
    before the first store (64 registers a thread at once here, 256 for a 256x256 tile
    with 8 warps, which spilled).  The two groups of four warps split the 128 columns in
    runs of 8 (`tcgen05_plan.column_run`): eight 8-column loads a thread."""
    ptx = _one_agent_ptx()
    loads = [m.start() for m in re.finditer(r"tcgen05\.ld\.sync\.aligned\.32x32b\.x8\b", ptx)]
    assert len(loads) == 8 and ptx.count("tcgen05.ld.sync") == 8
    for first, second in itertools.pairwise(loads):
        between = ptx[first:second]
        assert "tcgen05.wait::ld" in between and "st.global" in between


def test_one_column_runs_assemble_and_match_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """`tcgen05.ld`/`st` of one column (`.x1`) still write their register as a vector
    expression, `{%f1}` (ptxas rejects a bare register): the base GEMM with column runs
    of 1 (no kernel gets them today: `column_run` gives at least 2) assembles and matches
    numpy in the simulator."""
    from tileir.transforms.tileas import tcgen05_plan

    monkeypatch.setattr(tcgen05_plan, "COLUMN_RUN", 1)
    ptx = compile_module(load_module(CORPUS / f"{BROKEN_BASE}.mlir"), "sm_100a").ptx
    assert ptx is not None
    assert re.search(r"tcgen05\.ld\.sync\.aligned\.32x32b\.x1\.b32 \{%f\d+\}", ptx)
    run_ptxas(ptx, "sm_100a")
    _run(BROKEN_BASE, ptx)


def _broken(pattern: str, replacement: str) -> str:
    ptx = _one_agent_ptx()
    broken, count = re.subn(pattern, replacement, ptx)
    assert count, f"{pattern!r} is not in the PTX"
    return broken


@pytest.mark.parametrize(
    ("what", "pattern", "replacement", "says"),
    [
        # The sm_100 descriptor's fixed value 0b001 in bits 46-48, moved to bit 47.
        (
            "descriptor",
            r"\b70368744177664\b",
            "140737488355328",
            "bits 46-48 are 0b010, the sm_100 descriptor's fixed value is 0b001",
        ),
        # No wait for the last commit's mbarrier phase before tcgen05.ld (the MMAs are
        # in flight across iterations: the read after the loop waits for them).
        (
            "wait",
            r"\s*mbarrier\.try_wait\.parity\.shared::cta\.b64 %tc_drained[^;]*;"
            r"\s*@!%tc_drained[^;]*;",
            "",
            "before the tcgen05.commit's mbarrier phase completed",
        ),
        # A ring slot refilled without waiting for the commit of the MMAs that read it.
        (
            "slot",
            r"\s*mbarrier\.try_wait\.parity\.shared::cta\.b64 %tc_ok[^;]*;\s*@!%tc_ok[^;]*;",
            "",
            "an asynchronous copy to shared memory that a tcgen05.mma still reads",
        ),
        # Warp w reads lanes 64 (w % 4) .. instead of its quarter 32 (w % 4) ...
        ("lane quarter", r"mov\.b32 (%r\d+), 21;", r"mov.b32 \1, 22;", "its lane quarter"),
        # No tcgen05.dealloc before exit.
        ("dealloc", r"@%p\d+ tcgen05\.dealloc[^;]*;", "", "a leaked allocation"),
    ],
)
def test_broken_tcgen05_fails_in_the_simulator(
    what: str, pattern: str, replacement: str, says: str
) -> None:
    with pytest.raises(SimulationError, match=re.escape(says)):
        _run(BROKEN_BASE, _broken(pattern, replacement))


def test_bad_instruction_descriptor_fails() -> None:
    """A reserved bit (23) set in the instruction descriptor is reported."""
    ptx = _one_agent_ptx()
    words = re.findall(r"tcgen05\.mma\S* \[[^\]]+\], %rd\d+, %rd\d+, (%r\d+)", ptx)
    assert words
    setup = re.search(rf"mov\.b32 {re.escape(words[0])}, (\d+);", ptx)
    assert setup is not None
    bad = int(setup.group(1)) | 1 << 23
    broken = ptx.replace(setup.group(0), f"mov.b32 {words[0]}, {bad};")
    with pytest.raises(SimulationError, match="reserved bit"):
        _run(BROKEN_BASE, broken)


def _fragment_kernel(lane: int) -> str:
    """One warp writes cell value `256 lane + column` into columns 0 .. 7 of its 32
    lanes (`.32x32b`), reads them back with `.16x256b.x1` at lanes `lane` and `lane +
    16`, and stores each thread's 8 registers."""
    words = ", ".join(f"%r{10 + c}" for c in range(8))
    sets = "\n".join(f"  add.u32 %r{10 + c}, %r4, {c};" for c in range(8))
    return f"""
.version 8.6
.target sm_100a
.address_size 64
.visible .entry fragments(.param .u64 out) .reqntid 32, 1, 1 {{
  .reg .b32 %r<40>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b8 slot[8];
  mov.u32 %r1, slot;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  bar.sync 0;
  ld.shared.b32 %r2, [%r1];
  mov.u32 %r3, %tid.x;
  shl.b32 %r4, %r3, 8;
{sets}
  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r2], {{{words}}};
  tcgen05.wait::st.sync.aligned;
  add.u32 %r5, %r2, {lane << 16};
  tcgen05.ld.sync.aligned.16x256b.x1.b32 {{%r20, %r21, %r22, %r23}}, [%r5];
  add.u32 %r6, %r5, {16 << 16};
  tcgen05.ld.sync.aligned.16x256b.x1.b32 {{%r24, %r25, %r26, %r27}}, [%r6];
  tcgen05.wait::ld.sync.aligned;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r3, 32;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v4.b32 [%rd3], {{%r20, %r21, %r22, %r23}};
  st.global.v4.b32 [%rd3+16], {{%r24, %r25, %r26, %r27}};
  bar.sync 0;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
  ret;
}}
"""


def test_16x256b_moves_the_mma_fragment() -> None:
    """`tcgen05.ld.16x256b` (PTX ISA 9.7.16.2.3.1, "Matrix fragments for shape .16x256b"):
    register `r` of thread `l` is lane `base + l / 4 + 8 (r / 2 % 2)`, column
    `r % 2 + 2 (l % 4)`, the m16n8 accumulator fragment that 64-row accumulators are
    read and written in; a base that is not in either half of the warp's lane quarter
    fails."""
    ptx = _fragment_kernel(0)
    run_ptxas(ptx, "sm_100a")
    out = np.zeros((32, 8), dtype=np.uint32)
    simulate(ptx, (1, 1, 1), [out])
    thread, reg = np.arange(32)[:, None], np.arange(8)[None, :]
    lane = thread // 4 + 8 * (reg // 2 % 2) + 16 * (reg // 4)
    column = reg % 2 + 2 * (thread % 4)
    np.testing.assert_array_equal(out, 256 * lane + column)
    with pytest.raises(SimulationError, match="its lane quarter"):
        simulate(_fragment_kernel(8), (1, 1, 1), [out])


def test_64_row_accumulator_over_eight_warps(monkeypatch: pytest.MonkeyPatch) -> None:
    """With 8 warps a 64-row accumulator's fragment layout splits its columns between the
    two groups of four warps (`#nv_tileas.mma<{warpsPerCTA = [4, 2]}>`): each warp reads
    and writes its 8-column blocks at its group's offset with `.16x256b`, and the result
    matches numpy; without that offset (every group on the first blocks) it does not."""
    ptx = compile_module(load_module(CORPUS / "gemm_f16.mlir"), "sm_100a", num_warps=8).ptx
    assert ptx is not None and ".reqntid 256" in ptx
    shapes = set(re.findall(r"tcgen05\.(?:ld|st)\.sync\.aligned\.(\w+)", ptx))
    assert shapes == {"16x256b"}
    run_ptxas(ptx, "sm_100a")
    _run("gemm_f16", ptx)
    monkeypatch.setattr(lowering, "fragment_warp_columns", lambda layout: [0] * 8)
    broken = compile_module(load_module(CORPUS / "gemm_f16.mlir"), "sm_100a", num_warps=8).ptx
    assert broken is not None
    with pytest.raises(AssertionError):
        _run("gemm_f16", broken)


@pytest.mark.parametrize(("width", "sm100_field"), [(128, 2), (64, 4), (32, 6)])
def test_swizzled_smem_descriptor_decodes_to_hopper_mode(width: int, sm100_field: int) -> None:
    """The lowering's swizzle bits (Hopper's mode in bits 62-63, `wgmma.SWIZZLE_MODE`, with
    sm_100's version bits) read as sm_100's field 2/4/6 in bits 61-63 (128, 64, 32 bytes;
    never 1, "128 bytes with 32-byte atoms"), and the simulator maps them back to the
    Hopper mode its swizzled operand reader decodes."""
    from typing import cast

    from tileir.conversions.tileas_to_llvm.wgmma import SWIZZLE_MODE
    from tileir.testing import ptx_tcgen05, ptx_wgmma

    mode = SWIZZLE_MODE[width]
    desc = (mode << 62) | (ptx_tcgen05.DESCRIPTOR_VERSION << 46) | (64 << 32) | (1 << 16) | 0x40
    assert (desc >> 61) & 7 == sm100_field
    machine = cast("ptx_wgmma.Machine", None)  # consulted only to report a failure
    hopper = ptx_tcgen05._sm100_to_hopper(machine, desc, 0, "A")  # pyright: ignore[reportPrivateUsage]
    assert ptx_wgmma._SWIZZLE_WIDTH[(hopper >> 62) & 3] == width  # pyright: ignore[reportPrivateUsage]
    assert hopper & ((1 << 46) - 1) == desc & ((1 << 46) - 1)
