"""ptxas started before its PTX exists (tileir/backend/ptx/ptxas.py `launch_ptxas`,
tileir/driver/assembler.py `prelaunch_ptxas`, docs/cli.md "The compile server"): a
ptxas fed its PTX through a pipe makes the cubin one made from a file makes; a
compilation takes the ptxas the server's spare started only if it would start that very
one (command line, environment, directory), and stops it otherwise, temporary directory
and all."""

from __future__ import annotations

from pathlib import Path

import pytest

from tileir.backend.ptx.ptxas import find_ptxas, launch_ptxas, run_ptxas
from tileir.compiler import compile_module, load_module
from tileir.driver import assembler

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
KERNEL = CORPUS / "vadd_f32.tileirbc"

pytestmark = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """vadd_f32's cubin per target, by ptxas from a file (`run_ptxas`)."""
    out: dict[str, bytes] = {}
    for arch in ("sm_80", "sm_90a"):
        ptx = compile_module(load_module(KERNEL), arch, tile_kernels=True).ptx
        assert ptx is not None
        report = run_ptxas(ptx, arch)
        assert report.ok and report.cubin is not None
        out[arch] = report.cubin
        out[arch + ".ptx"] = ptx.encode()
    return out


@pytest.fixture(autouse=True)
def no_prelaunched() -> object:
    yield
    assembler.drop_prelaunched()


def test_a_ptxas_fed_through_a_pipe_makes_the_same_cubin(reference: dict[str, bytes]) -> None:
    run = launch_ptxas("sm_90a", 3, [])
    run.feed(reference["sm_90a.ptx"].decode())
    report = run.result()
    assert report.ok and report.cubin == reference["sm_90a"]
    assert report.registers and not Path(run.tmp.name).exists()
    run.cancel()  # nothing, once the result is taken
    assert run.proc.returncode == 0


def test_the_same_command_line_takes_the_prelaunched_ptxas(
    reference: dict[str, bytes], tmp_path: Path
) -> None:
    argv = [str(KERNEL), "--gpu-name", "sm_90", "-o", str(tmp_path / "k.cubin")]
    assembler.prelaunch_ptxas(argv)
    assert assembler._PRELAUNCHED is not None
    _, prelaunched = assembler._PRELAUNCHED
    assert assembler.run(argv) == 0
    assert assembler._PRELAUNCHED is None
    assert prelaunched.proc.returncode == 0  # it was fed, not stopped
    assert (tmp_path / "k.cubin").read_bytes() == reference["sm_90a"]


def test_another_command_line_or_environment_stops_it(
    reference: dict[str, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = str(tmp_path / "k.cubin")
    stopped = []
    for prelaunch, changed_env in (("sm_80", False), ("sm_90", True)):
        assembler.prelaunch_ptxas([str(KERNEL), "--gpu-name", prelaunch, "-o", out])
        assert assembler._PRELAUNCHED is not None
        stopped.append(assembler._PRELAUNCHED[1])
        if changed_env:
            monkeypatch.setenv("TILEIR_TEST_UNRELATED", "1")
        assert assembler.run([str(KERNEL), "--gpu-name", "sm_90", "-o", out]) == 0
        assert Path(out).read_bytes() == reference["sm_90a"]
    for run in stopped:
        assert run.proc.returncode is not None and run.proc.returncode < 0  # killed
        assert not Path(run.tmp.name).exists()


def test_a_command_line_without_a_cubin_prelaunches_nothing(tmp_path: Path) -> None:
    for argv in (
        [str(KERNEL), "--gpu-name", "sm_90", "-o", str(tmp_path / "k.ptx")],
        [str(KERNEL), "--emit=tileas"],
        ["--no-such-flag"],
    ):
        assembler.prelaunch_ptxas(argv)
        assert assembler._PRELAUNCHED is None


def test_a_ptxas_that_cannot_start_early_starts_after_the_compilation(
    reference: dict[str, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tileir.backend.ptx import ptxas

    def cannot_start(*args: object, **kwargs: object) -> None:
        raise OSError("no processes left")

    monkeypatch.setattr(ptxas, "launch_ptxas", cannot_start)
    out = tmp_path / "k.cubin"
    assert assembler.run([str(KERNEL), "--gpu-name", "sm_80", "-o", str(out)]) == 0
    assert out.read_bytes() == reference["sm_80"]
