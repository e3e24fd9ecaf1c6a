"""The GPU session kit on a machine without a GPU (docs/performance.md, "Running on a
GPU"): `gpu_prepare.py` builds a variant's cubins beside the default ones with the
options in its manifest, `gpu_side_by_side.py` joins two tables of the same rows, and
`gpu_session.sh` stops at once, saying why, where there is no GPU or nothing prepared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import gpu_prepare  # noqa: E402  # pyright: ignore[reportMissingImports]
import gpu_side_by_side  # noqa: E402  # pyright: ignore[reportMissingImports]


def test_prepare_builds_the_tma_variant_beside_the_default(tmp_path: Path) -> None:
    for folder, options in ((".gpu", []), (".gpu_tma", ["--option", "tma_feeds=true"])):
        args = [str(tmp_path / folder), "--only", "gemm_f16", "--no-tileiras", *options]
        assert gpu_prepare.main(args) == 0
    default, tma = (
        json.loads((tmp_path / f / "manifest.json").read_text()) for f in (".gpu", ".gpu_tma")
    )
    assert default["options"] == {} and tma["options"] == {"tma_feeds": True}
    assert "tma_feeds=True" in (tmp_path / ".gpu_tma" / "COMMIT").read_text()
    entry = tma["kernels"]["gemm_f16"]["tileir"]
    assert entry["spills"] == 0 and entry["block"] == [256, 1, 1]
    assert (tmp_path / ".gpu_tma" / "gemm_f16.tileir.cubin").stat().st_size > 0
    ptx = {f: (tmp_path / f / "gemm_f16.tileir.ptx").read_text() for f in (".gpu", ".gpu_tma")}
    assert "cp.async.bulk.tensor.2d" in ptx[".gpu_tma"]
    assert "cp.async.bulk.tensor" not in ptx[".gpu"]


def test_prepare_refuses_an_unknown_option() -> None:
    with pytest.raises(SystemExit, match="tma_feeds"):
        gpu_prepare.compile_options(["tma_feed=true"])
    with pytest.raises(SystemExit, match="takes a bool"):
        gpu_prepare.compile_options(["tma_feeds=4"])
    assert gpu_prepare.compile_options(["num_warps=8", "tma_feeds=False"]) == {
        "num_warps": 8,
        "tma_feeds": False,
    }


def test_side_by_side_joins_the_rows() -> None:
    header = "| kernel | tileir (us) | tileiras (us) | ratio | tileir check | tileiras check |\n"
    rule = "|---|---:|---:|---:|---:|---:|\n"
    first = (
        "stamp line\n"
        + header
        + rule
        + (
            "| `gemm_f16` | 1541.0 | 1183.0 | 1.30x | ok | ok |\n"
            "| `gemm_tf32` | 437.0 | 137.4 | 3.18x | ok | ok |\n"
        )
    )
    second = (
        header
        + rule
        + (
            "| `gemm_f16` | 1000.0 | 1180.0 | 0.85x | ok | ok |\n"
            "| `gemm_bf16_big_tile` | HANG: killed after 60 s |  |  |  |  |\n"
        )
    )
    table = gpu_side_by_side.side_by_side(first, second, ("cp.async", "TMA"))
    rows = {line.split(" | ")[0][2:]: line for line in table.splitlines()[2:]}
    assert rows["`gemm_f16`"] == (
        "| `gemm_f16` | 1541.0 | 1000.0 | 0.65x | 1183.0 | 1.30x | 0.85x | ok | ok |"
    )
    assert "| `gemm_tf32` | 437.0 | n/a | n/a | 137.4 | 3.18x | n/a | ok | n/a |" in table
    assert "HANG: killed after 60 s" in rows["`gemm_bf16_big_tile`"]


@pytest.mark.parametrize("gpu", [False, True])
def test_the_session_stops_at_once_without_a_gpu_or_cubins(tmp_path: Path, gpu: bool) -> None:
    """A fake `nvidia-smi` first on PATH: failing (no driver), or listing a GPU in a
    folder with no `.gpu` prepared."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text(
        "#!/bin/sh\necho 'GPU 0: Fake'\n" if gpu else "#!/bin/sh\necho 'no driver'\nexit 9\n"
    )
    smi.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "OUT": str(tmp_path / "out")}
    start = time.monotonic()
    proc = subprocess.run(
        ["bash", str(ROOT / "benchmarks" / "gpu_session.sh")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert time.monotonic() - start < 10
    assert proc.returncode == 2
    want = (
        "no .gpu/manifest.json" if gpu else "no usable GPU here (nvidia-smi -L failed: no driver)"
    )
    assert want in proc.stderr
    assert want in (tmp_path / "out" / "gpu.txt").read_text()
