"""The switches NVIDIA's test build has (tileir/bytecode/version.py): the test-only
bytecode versions 250.0/250.1 and their `testing$` ops with `TILEIR_INCLUDE_TESTS=1`,
and a reader and writer that behave as an older release with `TILEIR_BYTECODE_NEWEST`.
Both are read when tileir starts, so each case runs tileir-opt in a process of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent

EVOLUTION = """cuda_tile.module @m {
  entry @k() {
    %input = constant <f32: [1.0, 2.0]> : !cuda_tile.tile<2xf32>
    %token_in = make_token : !cuda_tile.token
    %a = testing$bytecode_test_evolution (%input : !cuda_tile.tile<2xf32>) -> !cuda_tile.token
    %b = testing$bytecode_test_evolution (%input : !cuda_tile.tile<2xf32>) %FIELDS% -> !cuda_tile.token
    %USE%
    testing$bytecode_test_new_attribute %ATTRS%
    return
  }
}
"""


def opt(
    tmp_path: Path, text: str, *args: str, tests: bool = True, newest: str | None = None
) -> subprocess.CompletedProcess[str]:
    src = tmp_path / "in.mlir"
    src.write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILEIR_BYTECODE_NEWEST")}
    env["TILEIR_INCLUDE_TESTS"] = "1" if tests else "0"
    if newest is not None:
        env["TILEIR_BYTECODE_NEWEST"] = newest
    return subprocess.run(
        [str(BIN / "tileir-opt"), str(src), *args], capture_output=True, text=True, env=env
    )


def module(fields: str = "", use: str = "", attrs: str = "") -> str:
    return EVOLUTION.replace("%FIELDS%", fields).replace("%USE%", use).replace("%ATTRS%", attrs)


def test_250_1_fields_survive_a_250_1_round_trip(tmp_path: Path) -> None:
    text = module(
        "new_attr = 7 token = %token_in : !cuda_tile.token",
        "%j = join_tokens %a, %b : !cuda_tile.token",
        "new_flag new_param = 123",
    )
    proc = opt(tmp_path, text, "--bytecode-roundtrip", "--bytecode-version=250.1")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "testing$bytecode_test_evolution(%cst_f32 : !cuda_tile.tile<2xf32>) -> token" in out
    assert "new_attr = 7 token = %0 : token -> token" in out
    assert "join_tokens %1, %2 : token" in out
    assert "testing$bytecode_test_new_attribute new_flag new_param = 123" in out


def test_base_fields_round_trip_in_250_0(tmp_path: Path) -> None:
    """`new_param = 42` is the default: absent from 250.0 (and printed in no version);
    an unused 250.1 result is implied when 250.0 does not store it."""
    proc = opt(
        tmp_path, module(attrs="new_param = 42"), "--bytecode-roundtrip", "--bytecode-version=250.0"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("-> token") == 2
    assert "testing$bytecode_test_new_attribute\n" in proc.stdout


#: (fields, use, attrs, NVIDIA's message) for each 250.1 field written in 250.0.
TOO_NEW = [
    ("", "", "new_param = 123", "attribute 'new_param' requires bytecode version 250.1+, but targeting 250.0"),
    ("", "", "new_flag", "optional attribute 'new_flag' is provided but requires bytecode version 250.1, targeting 250.0"),
    ("new_attr = 1", "", "", "optional attribute 'new_attr' is provided but requires bytecode version 250.1, targeting 250.0"),
    ("token = %token_in : !cuda_tile.token", "", "", "optional operand 'optional_token' is provided but requires bytecode version 250.1, targeting 250.0"),
    ("", "%j = join_tokens %a, %a : !cuda_tile.token", "", "result 'result_token' requires bytecode version 250.1 but is being used and targeting 250.0"),
]  # fmt: skip


def test_250_1_fields_cannot_be_written_in_250_0(tmp_path: Path) -> None:
    text = "\n// -----\n".join(module(f, u, a) for f, u, a, _ in TOO_NEW)
    proc = opt(tmp_path, text, "-t", "tileirbc", "--bytecode-version=250.0", "--split-input-file")
    assert proc.returncode == 1
    for line, (_, _, _, message) in zip(
        (e for e in proc.stderr.splitlines() if ": error: " in e), TOO_NEW, strict=True
    ):
        assert "in.mlir:" in line and message in line, line  # located at the op


def test_testing_ops_are_not_in_release_versions(tmp_path: Path) -> None:
    proc = opt(tmp_path, module(), "-t", "tileirbc", "--bytecode-version=13.1")
    assert proc.returncode == 1
    assert (
        "operation 'cuda_tile.testing$bytecode_test_evolution' is not available in bytecode "
        "version 13.1" in proc.stderr
    )


def test_testing_versions_need_the_switch(tmp_path: Path) -> None:
    proc = opt(tmp_path, module(), "--bytecode-roundtrip", "--bytecode-version=250.0", tests=False)
    assert proc.returncode == 2
    assert "Invalid argument '250.0': the supported versions are [13.1 - 13.4]" in proc.stderr
    listed = subprocess.run(
        [str(BIN / "tileir-opt"), "--list-bytecode-versions"],
        capture_output=True,
        text=True,
        env={**os.environ, "TILEIR_INCLUDE_TESTS": "1"},
    )
    assert listed.stdout.split() == ["13.1", "13.2", "13.3", "13.4", "250.0", "250.1"]


POW = """cuda_tile.module @m {
  entry @k() {
    %c = constant <f32: 2.0> : !cuda_tile.tile<f32>
    %p = pow %c, %c : !cuda_tile.tile<f32>
    return
  }
}
"""


def test_an_older_release_reads_pow_under_its_own_name(tmp_path: Path) -> None:
    """Opcode 0x54 is `pow` in 13.3 and `fpowf` from 13.4; a reader configured as the
    13.3 release reads it as `pow`, and quotes its own range."""
    old = opt(tmp_path, POW, "--bytecode-roundtrip", newest="13.3", tests=False)
    new = opt(tmp_path, POW, "--bytecode-roundtrip", tests=False)
    assert old.returncode == new.returncode == 0, old.stderr + new.stderr
    assert " pow %" in old.stdout and "fpowf" not in old.stdout
    assert " fpowf %" in new.stdout
    bad = opt(tmp_path, POW, "-t", "tileirbc", "--bytecode-version=13.4", newest="13.3")
    assert "Invalid argument '13.4': the supported versions are [13.1 - 13.3]" in bad.stderr
