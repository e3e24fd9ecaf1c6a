"""`tileir-as --verify-each` (`compile_module(verify_each=True)`): the IR is verified
after every pass, not only at the end of each stage, and the output does not change."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tileir import compiler
from tileir.compiler import PassEvent, compile_module, load_module

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
KERNEL = CORPUS / "vadd_f32.tileirbc"


def test_verify_each_verifies_after_every_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    verified = [0]
    real = compiler.verify_module

    def verify(module: object) -> None:
        verified[0] += 1
        real(module)  # type: ignore[arg-type]

    monkeypatch.setattr(compiler, "verify_module", verify)
    seen: list[int] = []

    def on_pass(event: PassEvent) -> None:
        seen.append(verified[0])
        verified[0] = 0

    compile_module(
        load_module(KERNEL), "sm_90a", stop_after="llvm", on_pass=on_pass, verify_each=True
    )
    assert len(seen) >= 9 and seen == [1] * len(seen)


def test_verify_each_flag_changes_no_output(tmp_path: Path) -> None:
    outputs = []
    for extra in ([], ["--verify-each"]):
        out = tmp_path / f"k{len(extra)}.ptx"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "tileir.driver.assembler",
                str(KERNEL),
                "--gpu-name",
                "sm_90",
                "-o",
                str(out),
                *extra,
            ],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1]
