"""cuTile Python compiles through tileir: `tileir-as --make-tileiras-shim` on PATH, then
`cuda.tile.compilation.export_kernel(..., output_format="cubin")` for every kernel of
the corpus (tests/corpus/*.py).  No GPU is needed: cuTile and ptxas run on the CPU.

Checked for each kernel: the cubin came from tileir (tileir-as logs every compilation
to `TILEIR_AS_LOG`), cuobjdump lists the kernel under cuTile's mangled symbol, and
ptxas recorded it as a Tile IR kernel with a `.reqntid`, which is how cuTile's launcher
gets its block size.  Also: cuTile reads tileir's errors back with file and line.

`make test` compiles for sm_80; `make cutile-shim` for sm_80 and sm_90
(TILEIR_CUTILE_ARCHS=sm_80,sm_90).  A kernel whose module sets `MIN_GPU` (cuTile accepts
fp8 only from sm_90 on) is exported for that GPU in place of an older one.  Nothing is installed at test time: the test runs
where `cuda-tile` is installed (the `cutile` extra) and skips elsewhere.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import private_server
import pytest

from tileir.backend.ptx.ptxas import find_ptxas, ptxas_supports_tile_language
from tileir.driver.assembler import make_tileiras_shim

pytest.importorskip("cuda.tile", reason="cuda-tile (cuTile Python) is not installed")

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus"
ARCHS = [a for a in os.environ.get("TILEIR_CUTILE_ARCHS", "sm_80").split(",") if a]

# Runs in a fresh interpreter, from the repository root (the corpus records its source
# paths relative to it).  If NVIDIA's nvidia-cuda-tileiras wheel is installed too, cuTile
# would prefer it to anything on PATH; the script then turns off that one lookup, so that
# cuTile finds `tileiras` on PATH (the shim) as it does in an environment without the wheel.
EXPORT_SCRIPT = r"""
import json, sys
sys.path.insert(0, "tests/corpus")
import cuda.tile._compile as cutile_compile
if sys.argv[1] == "hide-nvidia-tileiras":
    cutile_compile._find_pip_tileiras = lambda: None
from cuda.tile.compilation import export_kernel
import _common
from generate import load_module
out_dir, archs, names = sys.argv[2], sys.argv[3].split(","), sys.argv[4].split(",")

def sm(gpu):
    return int(gpu[3:].rstrip("a"))

results = []
for name in names:
    module = load_module(name)
    for requested in archs:
        # A kernel cuTile accepts only from some GPU on (MIN_GPU: fp8 needs sm_89) is
        # exported for that GPU instead of an older one.
        least = getattr(module, "MIN_GPU", requested)
        arch = least if sm(requested) < sm(least) else requested
        cubin = f"{out_dir}/{name}.{arch}.cubin"
        try:
            export_kernel(module.KERNEL, module.signatures(), cubin,
                          output_format="cubin", gpu_code=arch)
            results.append({"name": name, "arch": arch, "cubin": cubin,
                            "symbol": _common.entry_symbol(module), "error": None})
        except Exception as e:
            results.append({"name": name, "arch": arch, "cubin": cubin,
                            "symbol": None, "error": f"{type(e).__name__}: {e}"})
print(json.dumps(results))
"""


def _corpus_kernels() -> list[str]:
    return sorted(
        p.stem for p in CORPUS.glob("*.py") if not p.stem.startswith("_") and p.stem != "generate"
    )


def _nvidia_tileiras_installed() -> bool:
    try:
        importlib.metadata.version("nvidia-cuda-tileiras")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _cuobjdump() -> str:
    """cuobjdump: beside ptxas, else in the nvidia-cuda-cuobjdump wheel, else on PATH."""
    import shutil

    candidates: list[Path] = []
    ptxas = find_ptxas()
    if ptxas is not None:
        candidates.append(Path(ptxas).parent / "cuobjdump")
    try:
        import nvidia  # pyright: ignore[reportMissingImports]

        for root in getattr(nvidia, "__path__", []):
            candidates.append(Path(root) / "cu13" / "bin" / "cuobjdump")
    except ImportError:
        pass
    for candidate in candidates:
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("cuobjdump")
    if found is None:
        pytest.skip("cuobjdump not found (the nvidia-cuda-cuobjdump wheel, or CUDA on PATH)")
    return found


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, str]], str]:
    assert find_ptxas() is not None, "ptxas comes with the test extra (nvidia-cuda-nvcc)"
    work = tmp_path_factory.mktemp("cutile")
    shim_dir = work / "bin"
    make_tileiras_shim(str(shim_dir))
    log = work / "tileir-as.log"
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(shim_dir), env.get("PATH", "")])
    env["TILEIR_AS_LOG"] = str(log)
    env["CUDA_TILE_CACHE_DIR"] = str(work / "cache")  # fresh: no cached cubins
    env["CUDA_TILE_TEMP_DIR"] = str(work / "tmp")
    mode = "hide-nvidia-tileiras" if _nvidia_tileiras_installed() else "as-installed"
    # cuTile's compilations go to a compile server of this test's own, as a user's do
    # after their first (the shim's default): a warm worker each instead of a cold
    # tileir-as process, ~75 s less of the suite.  It is stopped when the export ends.
    with private_server.private_server(env) as served:
        proc = _export(served, mode, work)
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    return results, log.read_text() if log.exists() else ""


def _export(env: dict[str, str], mode: str, work: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-c",
            EXPORT_SCRIPT,
            mode,
            str(work),
            ",".join(ARCHS),
            ",".join(_corpus_kernels()),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_every_corpus_kernel_exports_a_cubin(exported: tuple[list[dict[str, str]], str]) -> None:
    results, _ = exported
    assert len(results) == len(_corpus_kernels()) * len(ARCHS)
    failures = [f"{r['name']} ({r['arch']}): {r['error']}" for r in results if r["error"]]
    assert not failures, "\n".join(failures)


def test_tileir_built_each_cubin(exported: tuple[list[dict[str, str]], str]) -> None:
    """Every cubin cuTile wrote was compiled by tileir-as (not NVIDIA's assembler), and
    cuTile's version probe went through tileir too."""
    results, log = exported
    assert "arch=sm_120 kernels=-" in log, "cuTile's bytecode-version probe did not run tileir"
    for r in results:
        produced = [
            line
            for line in log.splitlines()
            if line.endswith(f"kernels={r['symbol']}") and f"arch={_arch(r['arch'])}" in line
        ]
        assert produced, f"{r['name']} ({r['arch']}) was not compiled by tileir-as:\n{log}"


def _arch(gpu_name: str) -> str:
    from tileir.targets import resolve_gpu_name

    return resolve_gpu_name(gpu_name)


def test_cuobjdump_lists_each_kernel(exported: tuple[list[dict[str, str]], str]) -> None:
    results, _ = exported
    cuobjdump = _cuobjdump()
    tile_language = ptxas_supports_tile_language(find_ptxas() or "")
    for r in results:
        elf = subprocess.run(
            [cuobjdump, "-elf", r["cubin"]], capture_output=True, text=True, check=True
        ).stdout
        assert f".text.{r['symbol']}" in elf, f"{r['name']}: kernel missing from the cubin"
        assert f"arch = {r['arch']}" in elf or f"sm={r['arch'][3:]}" in elf
        assert "EIATTR_REQNTID" in elf, f"{r['name']}: no .reqntid"
        if tile_language:
            assert "Language:\t TILEIR" in elf, f"{r['name']}: not marked as a Tile IR kernel"


def test_cutile_reads_tileir_errors_with_file_and_line(tmp_path: Path) -> None:
    """cuTile parses tileiras's `loc("file":line:col): error:` lines; tileir's errors
    (here a verifier's) come back through that parser with the file and line."""
    from cuda.tile._compile import _parse_tileir_stderr

    source = tmp_path / "kernel.mlir"
    source.write_text(
        "cuda_tile.module @m {\n"
        "  entry @k(%x: tile<i32>) {\n"
        "    %y = exti %x signed : tile<i32> -> tile<i16>\n"
        "    return\n"
        "  }\n"
        "}\n"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tileir.driver.assembler",
            str(source),
            "-o",
            str(tmp_path / "k.cubin"),
            "--gpu-name",
            "sm_80",
            "-O3",
            "--lineinfo",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    message, loc = _parse_tileir_stderr(proc.stderr)
    assert loc.filename == str(source) and loc.line == 3, (message, proc.stderr)
    assert "'cuda_tile.exti' op extending to smaller or identical integer" in message


# A kernel tileir reports (a 128x128 f32 transpose needs 66 KB of shared memory, more
# than a kernel's static 48 KiB), compiled through cuTile with the shim on PATH; prints
# what a user sees: str() of the exception, or why str() failed, and its parsed loc.
ERROR_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[2])
import cuda.tile as ct
import cuda.tile._compile as cutile_compile
if sys.argv[1] == "hide-nvidia-tileiras":
    cutile_compile._find_pip_tileiras = lambda: None
sys.path.insert(0, "tests/corpus")
from cuda.tile.compilation import export_kernel
from _common import array_constraint, kernel_signature
import big_transpose
f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
sig = kernel_signature([f32, f32])
try:
    export_kernel(big_transpose.big_transpose, [sig], sys.argv[3], output_format="cubin",
                  gpu_code="sm_80")
    print(json.dumps({"raised": False}))
except Exception as e:
    try:
        text = str(e)
    except Exception as failure:
        text = f"<str() failed: {type(failure).__name__}>"
    loc = getattr(e, "loc", None)
    print(json.dumps({"raised": True, "type": type(e).__name__, "str": text,
                      "file": getattr(loc, "filename", None), "line": getattr(loc, "line", None)}))
"""

BIG_TRANSPOSE = """import cuda.tile as ct


@ct.kernel
def big_transpose(x, y):
    t = ct.load(x, (ct.bid(0), 0), (256, 256))
    ct.store(y, (0, ct.bid(0)), ct.transpose(t))
"""


@pytest.mark.parametrize("error_format", ["", "tileiras"])
def test_tileir_errors_reach_the_cutile_user_with_file_and_line(
    tmp_path: Path, error_format: str
) -> None:
    """Through the shim (default `TILEIR_ERROR_FORMAT=mlir`), `str()` of cuTile's
    exception shows tileir's message with the kernel's file and line; with tileiras's
    `loc(...)` form cuTile 1.7 parses the location into `e.loc` instead (and its
    `str()` fails: docs/cutile.md)."""
    source = tmp_path / "big_transpose.py"
    source.write_text(BIG_TRANSPOSE)
    shim_dir = tmp_path / "bin"
    make_tileiras_shim(str(shim_dir))
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(shim_dir), env.get("PATH", "")])
    env["CUDA_TILE_CACHE_DIR"] = str(tmp_path / "cache")
    env["CUDA_TILE_TEMP_DIR"] = str(tmp_path / "tmp")
    env.pop("TILEIR_ERROR_FORMAT", None)
    if error_format:
        env["TILEIR_ERROR_FORMAT"] = error_format
    mode = "hide-nvidia-tileiras" if _nvidia_tileiras_installed() else "as-installed"
    proc = subprocess.run(
        [sys.executable, "-c", ERROR_SCRIPT, mode, str(tmp_path), str(tmp_path / "k.cubin")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["raised"] and seen["type"] == "CompilerExecutionError", seen
    where = f"{source}:7:"
    if error_format == "tileiras":
        assert seen["file"] == str(source) and seen["line"] == 7, seen
    else:
        assert where in seen["str"], seen
        assert "'nv_tileas.shuffle' op exceeds the shared memory limit" in seen["str"], seen
        assert "make the tile smaller" in seen["str"], seen
