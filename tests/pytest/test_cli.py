"""The command-line tools as a user meets them: exit codes, no tracebacks, and stock
xdsl-opt seeing tileir through the xdsl.universe plugin."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
BIN = Path(sys.executable).parent


def run(tool: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / tool), *args], capture_output=True, text=True, input=stdin)


@pytest.mark.parametrize(
    "args",
    [
        ["missing.mlir", "--gpu-name", "sm_90", "-o", "x.ptx"],
        [str(CORPUS / "vadd_f32.mlir"), "--gpu-name", "sm_61", "-o", "x.ptx"],
        [str(CORPUS / "vadd_f32.mlir"), "--gpu-name", "sm_90", "-o", "x.cubin", "--preview=simt"],
        [str(CORPUS / "vadd_f32.mlir"), "-o", "/nonexistent/dir/x.cubin"],
        [str(CORPUS / "vadd_f32.mlir"), "--gpu-name", "sm_90", "--emit", "nonsense"],
        [
            str(ROOT / "tests/pytest/bytecode_fixtures/invalid/truncated_in_section.tileirbc"),
            "--gpu-name",
            "sm_90",
            "-o",
            "x.ptx",
        ],
        ["--no-such-flag"],
        [],
    ],
)
def test_tileir_as_rejects_bad_input_without_traceback(args: list[str], tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(BIN / "tileir-as"), *args], capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode == 1, proc
    assert "Traceback" not in proc.stderr
    assert "error" in proc.stderr


def test_tileir_as_emits_each_stage(tmp_path: Path) -> None:
    for stage, marker in [
        ("cuda_tile", "cuda_tile.module"),
        ("tileaa", "nv_tileaa.load"),
        ("tileas", "nv_tileas.tiled_load"),
        ("llvm", "llvm.func"),
        ("ptx", ".visible .entry"),
    ]:
        proc = run(
            "tileir-as", str(CORPUS / "saxpy_f32.mlir"), "--gpu-name", "sm_80", f"--emit={stage}"
        )
        assert proc.returncode == 0, proc.stderr
        assert marker in proc.stdout


def test_tileir_as_writes_cubin(tmp_path: Path) -> None:
    out = tmp_path / "k.cubin"
    proc = run(
        "tileir-as",
        str(CORPUS / "saxpy_f32.mlir"),
        "--gpu-name",
        "sm_90",
        "-O",
        "3",
        "-o",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"


def test_tileir_opt_reads_stdin_and_prints_nvidia_form() -> None:
    text = (CORPUS / "vadd_f32.mlir").read_text()
    proc = run("tileir-opt", stdin=text)
    assert proc.returncode == 0, proc.stderr
    assert "cuda_tile.module @kernels {" in proc.stdout
    assert "%tile, %result_token = load_view_tko weak %pview[%blockId_x]" in proc.stdout


def test_stock_xdsl_opt_sees_tileir(tmp_path: Path) -> None:
    module_form = tmp_path / "k.mlir"
    proc = run("tileir-opt", str(CORPUS / "saxpy_f32.mlir"))
    module_form.write_text(proc.stdout)
    proc = run("xdsl-opt", str(module_form), "-p", "cuda-tile-to-ptx{arch=sm_80}", "-t", "ptx")
    assert proc.returncode == 0, proc.stderr
    assert ".target sm_80" in proc.stdout


def test_tileir_as_writes_a_cubin_whatever_the_name(tmp_path: Path) -> None:
    """As tileiras: any output name but `.ptx` gets a cubin (cuTile picks the names)."""
    out = tmp_path / "kernel.bin"
    proc = run(
        "tileir-as", str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80", "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"


def test_tileir_as_version_and_shim(tmp_path: Path) -> None:
    proc = run("tileir-as", "--version")
    assert proc.returncode == 0 and "Tile IR bytecode 13.1, 13.2, 13.3, 13.4" in proc.stdout
    proc = run("tileir-as", "--make-tileiras-shim", str(tmp_path / "bin"))
    assert proc.returncode == 0, proc.stderr
    shim = tmp_path / "bin" / "tileiras"
    assert shim.stat().st_mode & 0o111
    again = subprocess.run([str(shim), "--version"], capture_output=True, text=True)
    assert again.returncode == 0 and again.stdout == proc_version_stdout()
    disasm = subprocess.run(
        [str(tmp_path / "bin" / "tileirdisasm"), str(CORPUS / "vadd_f32.tileirbc")],
        capture_output=True,
        text=True,
    )
    assert disasm.returncode == 0, disasm.stderr
    assert "entry @vadd_f32_" in disasm.stdout


def proc_version_stdout() -> str:
    return run("tileir-as", "--version").stdout


def test_internal_errors_are_diagnostics(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unexpected exception is an internal compiler error with exit code 1; the
    traceback only with TILEIR_TRACEBACK=1."""
    from tileir.driver import assembler

    def broken(args: object) -> int:
        raise KeyError("no such layout")

    monkeypatch.setattr(assembler, "compile_file", broken)
    monkeypatch.delenv("TILEIR_TRACEBACK", raising=False)
    assert assembler.run([str(CORPUS / "vadd_f32.mlir"), "-o", "x.cubin"]) == 1
    err = capsys.readouterr().err
    assert "error: internal compiler error in tileir-as: KeyError: 'no such layout'" in err
    assert "Traceback" not in err
    monkeypatch.setenv("TILEIR_TRACEBACK", "1")
    assert assembler.run([str(CORPUS / "vadd_f32.mlir"), "-o", "x.cubin"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_tileir_opt_internal_errors_are_diagnostics(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tileir.driver import opt

    def broken(argv: object = None) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(opt, "run", broken)
    monkeypatch.delenv("TILEIR_TRACEBACK", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        opt.main()
    assert exit_info.value.code == 1
    assert (
        "error: internal compiler error in tileir-opt: RuntimeError: boom"
        in capsys.readouterr().err
    )
