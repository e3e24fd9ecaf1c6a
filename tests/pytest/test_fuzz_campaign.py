"""The compiler fuzzer in the suite (issue 18, item 5): a short seeded campaign over
mutants of the corpus's kernels, bytecode and text (tileir/testing/fuzz.py).  Each
mutant is read, verified, compiled and, when that succeeds, assembled by ptxas; the
campaign fails with the list of finding signatures (an exception escaping, an internal
error, an unlocated error, a hang, PTX ptxas rejects).  `make fuzz` runs the long,
resumable campaign; every signature it finds becomes an input in fuzz_regressions/
(test_fuzz_regressions.py).

TILEIR_FUZZ_SEED and TILEIR_FUZZ_MUTANTS change the campaign `make test` runs.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import tileir.compiler
from tileir.compiler import CompileResult
from tileir.diagnostics import CompileError
from tileir.testing import fuzz
from tileir.testing.fuzz import DIAGNOSED, FINDING, OK, Campaign, corpus_seeds

SEED = int(os.environ.get("TILEIR_FUZZ_SEED", "18"))
#: About 15 s on two idle cores, 25 s on two busy ones.
MUTANTS = int(os.environ.get("TILEIR_FUZZ_MUTANTS", "1000"))
SEEDS = corpus_seeds()
BYTECODE_SEED = next(s for s in SEEDS if s.name == "vadd_f32.tileirbc")
#: Signatures of findings not fixed yet: each has an input in fuzz_regressions/ whose
#: `.xfail` names it on its first line (a strict xfail there, so the fix shows).
KNOWN = {
    p.read_text().splitlines()[0]
    for p in (Path(__file__).parent / "fuzz_regressions").glob("*.xfail")
}


def test_short_campaign_finds_nothing() -> None:
    start = time.monotonic()
    state = Campaign(SEED, SEEDS, jobs=2).run(MUTANTS)
    seconds = time.monotonic() - start
    assert state.next_index == MUTANTS
    print(f"\n{fuzz.report(state)}\n({seconds:.1f} s)")
    new = {sig: s for sig, s in state.signatures.items() if sig not in KNOWN}
    found = "\n".join(
        f"{s.count} x {sig} (mutant {s.first_index} of seed {SEED}, from {s.first_seed}):\n"
        f"{s.detail}"
        for sig, s in new.items()
    )
    assert not new, f"the fuzzer found (add each to fuzz_regressions/):\n{found}"
    # Not vacuous: mutants reach the compiler and ptxas, and mutants are rejected.
    assert state.outcomes.get(OK, 0) > MUTANTS // 100
    assert state.outcomes.get(DIAGNOSED, 0) > MUTANTS // 2


def test_mutants_depend_on_the_seed_and_index_alone() -> None:
    a = [fuzz.make_mutant(SEED, i, SEEDS) for i in range(50)]
    b = [fuzz.make_mutant(SEED, i, SEEDS) for i in reversed(range(50))][::-1]
    assert a == b
    assert {m.seed for m in a} & {s.name for s in SEEDS if s.is_bytecode}
    assert {m.seed for m in a} & {s.name for s in SEEDS if not s.is_bytecode}
    assert all(m.data != next(s.data for s in SEEDS if s.name == m.seed) for m in a)


def test_a_campaign_resumes_where_it_stopped(tmp_path: Path) -> None:
    first = Campaign(SEED, SEEDS, tmp_path, jobs=2).run(20)
    assert first.next_index == 20
    resumed = Campaign(SEED, SEEDS, tmp_path, jobs=2)
    assert resumed.state.next_index == 20
    assert resumed.run(20).next_index == 40
    once = Campaign(SEED, SEEDS, jobs=2).run(40)
    assert once.outcomes == resumed.state.outcomes
    with pytest.raises(SystemExit, match="seeded"):
        Campaign(SEED + 1, SEEDS, tmp_path)


# The oracle: each kind of finding is reported, with a signature that names it.


def _compile_raising(error: BaseException):
    def compile_module(*args: object, **kwargs: object) -> CompileResult:
        raise error

    return compile_module


def test_an_escaping_exception_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tileir.compiler, "compile_module", _compile_raising(KeyError("x")))
    outcome = fuzz.run_input(BYTECODE_SEED.data, True)
    assert outcome.kind == FINDING
    assert outcome.signature == "KeyError in tileir/testing/fuzz.py:run_input"


@pytest.mark.parametrize(
    ("error", "signature"),
    [
        (CompileError("bad thing 42"), "unlocated error from"),
        (CompileError("internal compiler error: oops"), "internal error: internal compiler"),
    ],
)
def test_unlocated_and_internal_errors_are_findings(
    monkeypatch: pytest.MonkeyPatch, error: CompileError, signature: str
) -> None:
    monkeypatch.setattr(tileir.compiler, "compile_module", _compile_raising(error))
    outcome = fuzz.run_input(BYTECODE_SEED.data, True)
    assert (outcome.kind, outcome.signature[: len(signature)]) == (FINDING, signature)


def test_ptx_that_ptxas_rejects_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:

    def compile_module(module: object, arch: str, **kwargs: object) -> CompileResult:
        ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k?x() { ret; }\n"
        return CompileResult(module, arch, ptx=ptx)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(tileir.compiler, "compile_module", compile_module)
    outcome = fuzz.run_input(BYTECODE_SEED.data, True)
    assert outcome.kind == FINDING and outcome.signature.startswith("ptxas rejects: ")


def test_a_hang_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    def compile_module(*args: object, **kwargs: object) -> CompileResult:
        time.sleep(60)
        raise AssertionError("unreachable")

    # The worker is forked, so it runs the patched compiler.
    monkeypatch.setattr(tileir.compiler, "compile_module", compile_module)
    assert fuzz.run_isolated(BYTECODE_SEED.data, True, timeout=1).signature == "hang"


def test_an_unmutated_kernel_compiles_and_assembles() -> None:
    assert fuzz.run_input(BYTECODE_SEED.data, True).kind == OK
