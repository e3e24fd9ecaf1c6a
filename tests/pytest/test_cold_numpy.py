"""A cold bytecode -> cubin compilation whose constants are scalars or splats (the
common case) imports neither numpy nor ml_dtypes (~70 ms of a process's start): the
constants' values are read and rounded with `float_codec` (docs/performance.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tileir.backend.ptx.ptxas import find_ptxas

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"


@pytest.mark.parametrize("kernel", ["vadd_f32", "gemm_f16"])
def test_a_compilation_of_splat_constants_imports_no_numpy(kernel: str, tmp_path: Path) -> None:
    out = tmp_path / (kernel + (".cubin" if find_ptxas() else ".ptx"))
    command = [sys.executable, "-X", "importtime", "-m", "tileir.driver.assembler"]
    done = subprocess.run(
        [*command, str(CORPUS / f"{kernel}.tileirbc"), "--gpu-name", "sm_90a", "-o", str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "TILEIR_SERVER": "0", "TILEIR_NO_CACHE": "1"},
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 0
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "tileir.compiler" in imported  # (the import times were read)
    assert not {m for m in imported if m.split(".")[0] in ("numpy", "ml_dtypes")}
