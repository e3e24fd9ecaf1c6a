"""How flash attention's operands reach `wgmma` on sm_90a (`tileas-pipeline-dot-operands`,
`dot.py`, `wgmma.py`), run in the PTX simulator against numpy.

`flash_attention_causal_bf16` has two K/V loops (the tiles before the diagonal, then
the diagonal one, masked), each with both products on `wgmma`:

* K, read transposed (`order=`), is loaded K-contiguous and feeds the first product
  K-major (`imm-trans-b` 0), from a ring like V's;
* Q, which neither loop changes, is written to shared memory once, before the loops;
* P, computed from the scores' accumulator, is the second product's A in registers;
* the rings of each loop live only while it runs, so the two loops' rings share one
  region of shared memory.

Each of these is checked in the PTX, and the kernel must still match numpy; a
register-A operand with two words swapped must not.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tileir.compiler import compile_module, load_module

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402

NAME = "flash_attention_causal_bf16"
SEED = 20261126

#: A `wgmma.mma_async` whose A is 4 registers.
REGISTER_A = re.compile(
    r"wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.bf16\.bf16 \{[^}]*\}, "
    r"\{(%r\d+), (%r\d+), (%r\d+), (%r\d+)\}, %rd\d+, 1, 1, 1, (\d);"
)
#: One whose A and B are descriptors: the last immediate is imm-trans-b.
DESCRIPTOR_A = re.compile(
    r"wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.bf16\.bf16 \{[^}]*\}, "
    r"%rd\d+, %rd\d+, 1, 1, 1, 0, (\d);"
)


@pytest.fixture(scope="module")
def ptx() -> str:
    compiled = compile_module(load_module(CORPUS / f"{NAME}.mlir"), "sm_90a").ptx
    assert compiled is not None
    return compiled


def test_operands_reach_wgmma_as_planned(ptx: str) -> None:
    # The second product of each loop, 4 K steps: A in registers, V N-major (each
    # product twice a loop: in it and, rotated by tileas-overlap-attention-dots, before
    # or after it).
    register_a = REGISTER_A.findall(ptx)
    assert len(register_a) == 16 and {m[-1] for m in register_a} == {"1"}
    # The first product: Q and K by descriptor, K K-major.
    assert [m for m in DESCRIPTOR_A.findall(ptx)] == ["0"] * 16
    # K and V of both loops on rings.
    assert ptx.count("cp.async.cg.shared.global") >= 4


def test_two_loops_share_their_rings_memory(ptx: str) -> None:
    """Each loop's rings: 2 slots (3 stages) of a 64x64 bf16 K and V tile, 32 KiB; Q
    staged once, 8 KiB.  Both loops' rings apart would take 64 KiB."""
    (arena,) = (int(n) for n in re.findall(r"tileir_xchg_\d+\[(\d+)\]", ptx))
    assert 32 * 1024 + 8 * 1024 <= arena < 64 * 1024


def test_matches_numpy(ptx: str) -> None:
    _common.simulate_case(NAME, ptx, SEED)


def test_swapped_a_registers_are_caught(ptx: str) -> None:
    """Swap two words of the first register-A operand: the products of P and V then
    mix up probabilities of different keys, which numpy sees."""
    match = REGISTER_A.search(ptx)
    assert match is not None
    first, second = match.group(1), match.group(2)
    original = match.group(0)
    broken_instruction = original.replace(f"{{{first}, {second},", f"{{{second}, {first},")
    broken = ptx.replace(original, broken_instruction, 1)
    assert broken != ptx
    with pytest.raises(AssertionError):
        _common.simulate_case(NAME, broken, SEED)


def test_k_feeds_mma_sync_k_major_on_sm_80() -> None:
    """On `mma.sync` too, K loaded K-contiguous is stored N x K, one vector a run (a
    ring's `cp.async`), and read with plain `ldmatrix` (`MmaSpec.b_k_contiguous`), where
    V is read with `ldmatrix.trans`; the kernel still matches numpy."""
    ptx = compile_module(load_module(CORPUS / f"{NAME}.mlir"), "sm_80").ptx
    assert ptx is not None
    assert "ldmatrix.sync.aligned.m8n8.x2.shared.b16" in ptx
    assert "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16" in ptx
    assert ptx.count("cp.async.cg.shared.global") >= 4
    _common.simulate_case(NAME, ptx, SEED)


def test_only_the_rings_that_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where one slot of K's and V's rings does not fit (12,000 bytes left: one 8 KiB
    tile's slot, not two), each loop keeps V's ring, loads K synchronously and says why
    (`sized_plan`); the kernel still matches numpy."""
    from tileir.transforms.tileas.pipeline_dot_operands import NO_ROOM
    from tileir.transforms.tileas.ring_budget import RingBudget

    monkeypatch.setattr(RingBudget, "for_loop", lambda self, fed, scoped=False: 12000)
    compiled = compile_module(load_module(CORPUS / f"{NAME}.mlir"), "sm_90a", keep_stages=True)
    assert compiled.ptx is not None
    tileas = compiled.stages["tileas"]
    # K's dot (the first product of each loop) says its ring did not fit; V's has one.
    assert tileas.count(f"B: {NO_ROOM}") == 2
    assert tileas.count("nv_tileas.async.tiled_load") == 2 * 2  # V: a stage ahead, in the body
    _common.simulate_case(NAME, compiled.ptx, SEED)
