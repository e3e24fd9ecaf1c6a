"""cuTile Python launching tileir's cubins on a GPU: the `tileiras` shim first on PATH, every
corpus kernel run with `ct.launch` on CuPy arrays, outputs against the numpy reference.

This is the check docs/cutile.md leaves open: cuTile launches with a block of (1, 1, 1)
and relies on the driver to take the block size from a Tile IR kernel's `.reqntid`; only
a GPU can say whether tileir's cubins (marked `.language "tile ir"`) launch that way.

Skips without CuPy, cuTile or a CUDA device.  Kernels with bfloat16 arrays are left out
(CuPy has no bfloat16).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tileir.driver.assembler import make_tileiras_shim

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus"

LAUNCH_SCRIPT = r"""
import json, sys
sys.path.insert(0, "tests/corpus")
import numpy as np
import cupy
import cuda.tile as ct
import cuda.tile._compile as cutile_compile
if sys.argv[1] == "hide-nvidia-tileiras":
    cutile_compile._find_pip_tileiras = lambda: None
import _common
from generate import load_module
results = []
for name in sys.argv[2].split(","):
    module = load_module(name)
    inputs = module.make_inputs(np.random.default_rng(0))
    # CuPy has no bfloat16 or 8-bit float arrays to hand to ct.launch.
    if any(a.dtype.name == "bfloat16" or a.dtype.name.startswith("float8")
           for a in inputs["arrays"].values()):
        results.append({"name": name, "status": "skipped", "detail": "bfloat16/float8 arrays"})
        continue
    expected = module.reference(_common.copy_inputs(inputs))
    device = {k: cupy.asarray(np.ascontiguousarray(a)) for k, a in inputs["arrays"].items()}
    values = {**device, **inputs["scalars"], **inputs["constants"]}
    try:
        stream = cupy.cuda.get_current_stream()
        ct.launch(stream, inputs["grid"], module.KERNEL, tuple(values[p] for p in inputs["params"]))
        stream.synchronize()
        for k, d in device.items():
            inputs["arrays"][k] = cupy.asnumpy(d)
        _common.check_outputs(module, inputs, expected)
        results.append({"name": name, "status": "passed", "detail": ""})
    except Exception as e:
        detail = getattr(e, "message", None) or repr(e)
        results.append({"name": name, "status": "failed", "detail": str(detail)[:2000]})
print(json.dumps(results))
"""


def _gpu_or_skip() -> None:
    try:
        import cupy  # type: ignore[import-not-found]
    except ImportError as e:
        pytest.skip(f"no GPU check: CuPy is not installed ({e})")
    pytest.importorskip("cuda.tile", reason="cuda-tile (cuTile Python) is not installed")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no GPU check: no CUDA device")
    except Exception as e:
        pytest.skip(f"no GPU check: CUDA is not usable ({e})")


def test_cutile_launches_tileir_cubins(tmp_path: Path) -> None:
    _gpu_or_skip()
    shim_dir = tmp_path / "bin"
    make_tileiras_shim(str(shim_dir))
    log = tmp_path / "tileir-as.log"
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(shim_dir), env.get("PATH", "")])
    env["TILEIR_AS_LOG"] = str(log)
    env["CUDA_TILE_CACHE_DIR"] = "off"
    try:
        importlib.metadata.version("nvidia-cuda-tileiras")
        mode = "hide-nvidia-tileiras"
    except importlib.metadata.PackageNotFoundError:
        mode = "as-installed"
    names = sorted(
        p.stem for p in CORPUS.glob("*.py") if not p.stem.startswith("_") and p.stem != "generate"
    )
    proc = subprocess.run(
        [sys.executable, "-c", LAUNCH_SCRIPT, mode, ",".join(names)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    launched = [r for r in results if r["status"] != "skipped"]
    assert launched, "no kernel was launched"
    compiled = log.read_text().splitlines() if log.exists() else []
    kernels_built = [line for line in compiled if "kernels=" in line and "kernels=-" not in line]
    assert len(kernels_built) >= len(launched), "not every kernel was compiled by tileir-as"
    failures = [f"{r['name']}: {r['detail']}" for r in results if r["status"] == "failed"]
    assert not failures, "\n".join(failures)
