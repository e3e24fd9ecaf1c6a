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


#: A cold single run as tileir-as's in-process path starts one (client._in_process),
#: counting the collections from `cold_start.install` on.
COLD_SINGLE_RUN = """
import gc, sys
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(1))
from tileir.utils import cold_start
collections.clear()
cold_start.install()
from tileir.driver import assembler
print("paused", not gc.isenabled(), len(collections))
assembler._SINGLE_RUN = True
status = assembler.run(sys.argv[1:])
print("after", gc.isenabled(), gc.get_threshold()[0] == cold_start.COMPILE_GC_THRESHOLD, status)
"""

#: A caller of `run` after `cold_start.install` (not a single run) gets its collector back.
COLD_CALLER = """
import gc, sys
from tileir.utils import cold_start
cold_start.install()
from tileir.driver import assembler
print("before", gc.isenabled(), "after", assembler.run(sys.argv[1:]), gc.isenabled())
"""


def test_cold_start_pauses_the_collector_until_the_compiler_is_imported(tmp_path: Path) -> None:
    """`cold_start.install` pauses the collector over the driver's imports (xDSL's IR
    classes: no collection before the compiler's import); a single run turns it on for
    the compilation, a caller of `run` gets it back as it had it."""
    args = [str(KERNEL), "-o", str(tmp_path / "k.ptx"), "--gpu-name", "sm_80"]
    for script, expected in (
        (COLD_SINGLE_RUN, "paused True 0\nafter True True 0"),
        (COLD_CALLER, "before False after 0 True"),
    ):
        proc = subprocess.run(
            [sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=tmp_path
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == expected


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
