"""`pip install tileir` is enough for cuTile (issue 17, item 5): ptxas, which turns
tileir-as's PTX into a cubin, is a dependency of tileir itself (the nvidia-cuda-nvcc
wheel), not of the `test` extra, and tileir finds it in that wheel with nothing on
PATH and no CUDA_HOME, so that cuTile's bytecode-version probe, run through the shim,
gets a cubin.

A real bare install (a fresh venv, `pip install cuda-tile tileir`) needs the network;
these tests check the two things it depends on, offline."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "tests" / "corpus" / "vadd_f32.tileirbc"


def _requirement(name: str, requirements: list[str]) -> str | None:
    for req in requirements:
        if re.match(rf"{re.escape(name)}\b", req, re.I):
            return req
    return None


def test_ptxas_is_a_dependency_not_an_extra() -> None:
    req = _requirement("nvidia-cuda-nvcc", requires("tileir") or [])
    assert req is not None, "tileir must depend on nvidia-cuda-nvcc (ptxas)"
    assert "extra ==" not in req, req


def test_pyproject_lists_ptxas_in_dependencies() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert _requirement("nvidia-cuda-nvcc", project["dependencies"])
    for extra, reqs in project["optional-dependencies"].items():
        assert not _requirement("nvidia-cuda-nvcc", reqs), f"also in the {extra!r} extra"


def _bare_environment(tmp_path: Path) -> dict[str, str]:
    """What a new user's shell might have: no CUDA, nothing of CUDA on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_HOME", "CUDA_PATH")}
    env["PATH"] = os.pathsep.join([str(tmp_path / "bin"), "/usr/bin", "/bin"])
    env["TILEIR_CACHE_DIR"] = str(tmp_path / "cache")
    return env


def test_ptxas_is_found_in_the_wheel(tmp_path: Path) -> None:
    code = (
        "import nvidia\n"
        "from tileir.backend.ptx.ptxas import find_ptxas\n"
        "from tileir.driver.client import find_ptxas as client_find\n"
        "p = find_ptxas()\n"
        "assert p == client_find(), (p, client_find())\n"
        "roots = list(nvidia.__path__)\n"
        "assert p and any(p.startswith(r) for r in roots), (p, roots)\n"
        "print(p)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=_bare_environment(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("bin/ptxas")


def test_cutile_probe_through_the_shim_with_a_bare_path(tmp_path: Path) -> None:
    """cuTile 1.7's probe, `tileiras probe.bc -o probe.cubin --gpu-name sm_120`, through
    the shim alone on PATH: a cubin, from the wheel's ptxas."""
    from tileir.driver.assembler import make_tileiras_shim

    shim = make_tileiras_shim(str(tmp_path / "bin"))
    out = tmp_path / "probe.cubin"
    proc = subprocess.run(
        ["tileiras", str(KERNEL), "-o", str(out), "--gpu-name", "sm_120"],
        capture_output=True,
        text=True,
        env=_bare_environment(tmp_path),
        cwd=tmp_path,
        timeout=300,
    )
    assert shim.parent == tmp_path / "bin"
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"
