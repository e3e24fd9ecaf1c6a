"""After the tileas stage no corpus kernel holds an `nv_tileaa.dot`: each became an
`nv_tileas.dot` whose atom records the engine `tileas-select-dot-atoms` chose for the
target (`transforms/tileas/dot_plan.py`; issue 14, "The boundary rule" in
ARCHITECTURE.md).  Compiled from bytecode, as cuTile writes it, for each target."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from tileir.compiler import compile_module, load_module
from tileir.dialects.cuda_tile.ops.mma import MmaFScaledOp, MmaOp
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import AtomAttr
from tileir.driver.remarks import tileas_remarks

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
KERNELS = sorted(CORPUS.glob("*.tileirbc"))
ARCHS = ("sm_80", "sm_90a", "sm_100a")


@functools.cache
def _atoms_after_tileas(kernel: Path, arch: str) -> tuple[int, tuple[AtomAttr, ...]]:
    """How many mma ops the kernel has, and the atom of each `nv_tileas.dot` after the
    tileas stage (once per kernel and target: the engines test reads them again)."""
    module = load_module(kernel)
    mmas = [o for o in module.walk() if isinstance(o, MmaOp | MmaFScaledOp)]
    compile_module(module, arch, stop_after="tileas")
    left = [o for o in module.walk() if isinstance(o, aa.DotOp)]
    assert not left, f"{kernel.stem} on {arch}: {len(left)} nv_tileaa.dot after the tileas stage"
    return len(mmas), tuple(o.atom for o in module.walk() if isinstance(o, tas.DotOp))


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.stem)
def test_no_nv_tileaa_dot_after_tileas(kernel: Path, arch: str) -> None:
    mmas, atoms = _atoms_after_tileas(kernel, arch)
    assert bool(mmas) == bool(atoms), f"{kernel.stem}: {mmas} mma ops, {len(atoms)} dots"
    for atom in atoms:
        info = atom.info
        assert info.engine in ("mma.sync", "wgmma", "tcgen05", "fma"), info.name
        # wgmma is sm_90a's, tcgen05 sm_100a's; nothing else gets them.
        assert (info.engine == "wgmma") <= (arch == "sm_90a"), info.name
        assert (info.engine == "tcgen05") <= (arch == "sm_100a"), info.name
        # Only sm_80 lacks 8-bit float mma.sync and widens to f16.
        assert info.name.endswith("_via_f16") <= (arch == "sm_80"), info.name


def test_the_corpus_uses_every_engine() -> None:
    """The corpus reaches wgmma (sm_90a), tcgen05 (sm_100a: bf16 and e4m3), mma.sync, the
    widened fp8 mma.sync (sm_80) and the CUDA cores."""
    atoms: dict[str, set[str]] = {arch: set() for arch in ARCHS}
    for kernel in KERNELS:
        if not any(w in kernel.stem for w in ("gemm", "matmul", "attention", "mm_")):
            continue
        for arch in ARCHS:
            atoms[arch] |= {a.data for a in _atoms_after_tileas(kernel, arch)[1]}
    assert any(a.startswith("wgmma_m64n") for a in atoms["sm_90a"])
    assert any(a.endswith("_via_f16") for a in atoms["sm_80"])
    assert "mma_f16_f16_f32" in atoms["sm_80"] and "mma_f16_f16_f32" in atoms["sm_100a"]
    # sm_100a: 8-bit floats natively on tcgen05 (kind::f8f6f4), not widened.
    assert {
        "tcgen05_mma_bf16_bf16_f32",
        "tcgen05_mma_e4m3_e4m3_f32",
        "tcgen05_mma_e5m2_e5m2_f32",
        "tcgen05_mma_tf32_tf32_f32",
    } <= atoms["sm_100a"]
    assert not any(a.endswith("_via_f16") for a in atoms["sm_100a"])


@pytest.mark.parametrize(
    ("arch", "instruction"),
    [
        ("sm_90a", "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16"),
        ("sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    ],
)
def test_tensor_core_remark_reads_the_atom(arch: str, instruction: str) -> None:
    module = load_module(CORPUS / "gemm_f16.tileirbc")
    compile_module(module, arch, stop_after="tileas")
    passed = [r for r in tileas_remarks(module, arch) if r.name == "TensorCoreMma"]
    assert passed and all(r.message.endswith(f"on {instruction}") for r in passed)


@pytest.mark.parametrize(
    ("kernel", "arch", "name", "says"),
    [
        (
            # A warp-specialized pipeline takes up to SPECIALIZED_STAGES stages where they
            # fit, plus the slot of the group in flight; a 16-register accumulator has the
            # kernel compiled for 3 CTAs an SM (small_accumulator_occupancy): a third of
            # the shared memory (8 stages), and the consumer's budget at that launch.
            "gemm_f16",
            "sm_90a",
            "DotPipelined",
            "operands through a 8-stage mbarrier pipeline of cp.async copies, 1 wgmma group "
            "in flight; two agents of 4 warps: a producer (40 registers) and a consumer (120 "
            "registers); 16 accumulator registers a thread",
        ),
        (
            "gemm_bf16_two_warpgroups",
            "sm_90a",
            "DotPipelined",
            "operands through a 9-stage mbarrier pipeline of cp.async copies, 1 wgmma group "
            "in flight; two agents: a producer of 4 warps (56 registers) and a consumer of 8 "
            "warps (224 registers); 64 accumulator registers a thread",
        ),
        (
            # 48 KiB a stage: four slots fit the kernel's budget (ring_budget.py), and the
            # producer's 24 copies a thread a stage raise its budget (BASE_COPIES).
            "gemm_bf16_big_tile",
            "sm_90a",
            "DotPipelined",
            "operands through a 4-stage mbarrier pipeline of cp.async copies, 1 wgmma group "
            "in flight; two agents of 4 warps: a producer (72 registers) and a consumer (248 "
            "registers)",
        ),
        (
            "gemm_e4m3_scaled",
            "sm_90a",
            "DotPipelined",
            # B, stored transposed for the dot, rides a ring as loaded and is read back
            # from its slot (read_from_slot), then written into two buffers in turn for
            # the group in flight.
            "copies under mbarriers, 1 wgmma group in flight; B: computed from the slot after "
            "the wait (the raw 64x64xf8E4M3FN load rides a ring); B: written into two buffers "
            "in turn; one agent of 4 warps; 64 accumulator registers a thread; not "
            "warp-specialized: an operand is computed from its slots",
        ),
        (
            "gemm_bf16_big_tile",
            "sm_80",
            "DotNotPipelined",
            "operands not pipelined; its accumulator takes 64 registers a thread (mma.sync: at "
            "most 32",
        ),
        (
            # f32 tiles rounded to tf32 (ftof) before the dot: through the ring, rounded
            # where they land (tf32_operands.py).  At the 3 CTAs an SM its 32-register
            # accumulator gets, the 16 KiB stages fit a 2-slot ring in one agent.
            "gemm_tf32",
            "sm_90a",
            "DotPipelined",
            "operands through a 2-stage ring of cp.async copies under mbarriers, 1 wgmma "
            "group in flight (2 slots, each slot refilled once its group has retired); A: "
            "f32 through the ring, rounded to tf32 in shared memory; B: f32 through the ring, "
            "rounded to tf32 in shared memory, one 4-byte cp.async an element into its N x K "
            "buffer; one agent of 4 warps",
        ),
        (
            # The same on tcgen05: rounded in the slot before the one thread's MMAs.
            "gemm_tf32",
            "sm_100a",
            "DotPipelined",
            "operands through a 3-stage ring of cp.async copies; A: f32 through the ring, "
            "rounded to tf32 in shared memory; B: f32 through the ring, rounded to tf32 in "
            "shared memory, one 4-byte cp.async an element into its N x K buffer; one agent "
            "of 4 warps",
        ),
        (
            # tileas-tcgen05-agents: one CTA an SM anyway (167 KiB of shared memory), so
            # the agents' 9 warps get the launch's share of registers.
            "gemm_bf16_big_tile",
            "sm_100a",
            "DotPipelined",
            "operands through a 3-stage mbarrier pipeline of cp.async copies; three agents: "
            "a producer of 4 warps (72 registers), an MMA warp and an epilogue of 4 warps "
            "(224 registers); the accumulator in tensor memory (64 columns)",
        ),
        (
            # A 64-row accumulator stays in tensor memory across the loop (c8629a4), its
            # MMAs in flight; the three-agent form does not take it yet: one agent.
            "gemm_f16",
            "sm_100a",
            "DotPipelined",
            "one agent of 4 warps; the accumulator in tensor memory (32 columns); not "
            "warp-specialized: its 64-row accumulator (data-path layout F: half the lanes, "
            "read in .16x256b fragments) is not generated for agents yet; its MMAs in flight "
            "across iterations (tcgen05.commit frees each slot)",
        ),
    ],
)
def test_pipeline_remark_says_what_feeds_the_dot(
    kernel: str, arch: str, name: str, says: str
) -> None:
    """tileas-pipeline-dot-operands records its decision on each tensor-core dot of a
    loop; the TensorCore remarks report it, with the stages or the reason."""
    module = load_module(CORPUS / f"{kernel}.tileirbc")
    compile_module(module, arch, stop_after="tileas")
    remarks = [r for r in tileas_remarks(module, arch) if r.category == "TensorCore"]
    found = [r for r in remarks if r.name == name]
    assert found and all(says in r.message for r in found), [r.message for r in remarks]
    kind = "passed" if name == "DotPipelined" else "missed"
    assert all(r.kind == kind for r in found)


@pytest.mark.parametrize(
    ("arch", "missed"), [("sm_100a", True), ("sm_103a", True), ("sm_120", False), ("sm_90a", False)]
)
def test_blackwell_remarks_say_why_tcgen05_is_not_used(arch: str, missed: bool) -> None:
    """On data-center Blackwell a 32-row dot keeps mma.sync, and the remark says why
    (one CTA's tcgen05.mma takes M = 64 or 128); consumer Blackwell has no tcgen05."""
    module = load_module(CORPUS / "gemm_bf16_ragged.tileirbc")
    compile_module(module, arch, stop_after="tileas")
    found = [r for r in tileas_remarks(module, arch) if r.name == "Tcgen05NotUsed"]
    assert bool(found) == missed
    assert all("uses mma.sync, not tcgen05: M = 32" in r.message for r in found)


@pytest.mark.parametrize(
    ("spec", "mnk", "rank", "says"),
    [
        # t_fft_4096_f16's batched 16-row dot into f16: the ISA's M rules it out first.
        (("f16", "f16", "f16"), (16, 256, 16), 3, "M = 16: tcgen05.mma with one CTA takes"),
        # t_matmul_split_k_*'s 32-row dots: only the .ws form has M = 32.
        (("f16", "f16", "f32"), (32, 64, 256), 2, "only the weight-stationary tcgen05.mma.ws"),
        # A 128-row dot into f16 is possible, but not generated yet.
        (("f16", "f16", "f16"), (128, 64, 32), 2, "f16 accumulators"),
    ],
)
def test_tcgen05_obstacle_names_what_the_isa_rules_out_first(
    spec: tuple[str, str, str], mnk: tuple[int, int, int], rank: int, says: str
) -> None:
    from tileir.dialects.nv_tileas.mma_spec import MmaSpec
    from tileir.transforms.tileas.tcgen05_plan import tcgen05_obstacle

    why = tcgen05_obstacle("sm_100a", MmaSpec(*spec), mnk, rank, 4)
    assert why is not None and says in why


@pytest.mark.parametrize("arch", ["sm_100a", "sm_103a"])
@pytest.mark.parametrize(("kernel", "m"), [("gemm_bf16_big_tile", 128), ("gemm_f16", 64)])
def test_blackwell_remarks_say_tcgen05_is_used(arch: str, kernel: str, m: int) -> None:
    """A 128-row (or 64-row) dot on data-center Blackwell runs on tcgen05, and says so."""
    module = load_module(CORPUS / f"{kernel}.tileirbc")
    compile_module(module, arch, stop_after="tileas")
    remarks = tileas_remarks(module, arch)
    used = [r for r in remarks if r.name == "Tcgen05Used"]
    mma = [r for r in remarks if r.name == "TensorCoreMma"]
    assert used and all(r.kind == "passed" for r in used)
    assert mma and all(f"tcgen05.mma.cta_group::1.kind::f16 (M = {m}," in r.message for r in mma)
    assert not [r for r in remarks if r.name == "Tcgen05NotUsed"]
