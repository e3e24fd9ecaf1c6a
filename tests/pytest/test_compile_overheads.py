"""The compile-time savings of `tileir-as` (docs/performance.md) change no output:
a single run freezes the compiler's imports for the garbage collector, callers of
`run` keep their collector, and every stage ends verified."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from tileir import compiler
from tileir.compiler import PassEvent, compile_module, load_module
from tileir.driver import assembler

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
KERNEL = CORPUS / "vadd_f32.tileirbc"

SINGLE_RUN = """
import atexit, gc, sys
atexit.register(lambda: print("collector", gc.get_freeze_count() > 0, gc.isenabled()))
from tileir.driver.assembler import main
sys.argv = ["tileir-as", *sys.argv[1:]]
main()
"""


def test_single_run_freezes_imports_and_output_is_unchanged(tmp_path: Path) -> None:
    """`main()` (one process, one kernel) freezes the imports and re-enables the
    collector; its PTX is the PTX of an in-process `run`, which freezes nothing."""
    frozen_before = gc.get_freeze_count()
    in_process = tmp_path / "in_process.ptx"
    assert assembler.run([str(KERNEL), "-o", str(in_process), "--gpu-name", "sm_80"]) == 0
    assert gc.get_freeze_count() == frozen_before and gc.isenabled()

    single = tmp_path / "single.ptx"
    proc = subprocess.run(
        [sys.executable, "-c", SINGLE_RUN, str(KERNEL), "-o", str(single), "--gpu-name", "sm_80"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "collector True True"
    assert single.read_text() == in_process.read_text()


def test_every_stage_ends_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    """`compile_module` verifies once per stage, after the stage's last pass, and
    after no other pass."""
    verified = [0]

    def verify(module: object) -> None:
        verified[0] += 1

    monkeypatch.setattr(compiler, "verify_module", verify)
    seen: list[tuple[str, str, bool, int]] = []

    def on_pass(event: PassEvent) -> None:
        seen.append((event.stage, event.name, event.ends_stage, verified[0]))
        verified[0] = 0

    compile_module(load_module(KERNEL), "sm_90a", stop_after="llvm", on_pass=on_pass)
    assert len(seen) >= 9
    assert [stage for stage, _, ends_stage, _ in seen if ends_stage] == ["tileaa", "tileas", "llvm"]
    for _, name, ends_stage, count in seen:
        assert count == (1 if ends_stage else 0), name
    assert seen[-1][2]
