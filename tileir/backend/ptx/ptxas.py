"""Finding and running ptxas, the judge of our PTX.

ptxas comes from the `nvidia-cuda-nvcc` wheel (`nvidia/cu13/bin/ptxas`), else from
`$CUDA_HOME/bin` or `PATH`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path


def find_ptxas() -> str | None:
    try:
        import nvidia  # pyright: ignore[reportMissingImports]

        for root in getattr(nvidia, "__path__", []):
            for sub in ("cu13", "cu12", "cuda_nvcc"):
                candidate = Path(root) / sub / "bin" / "ptxas"
                if candidate.is_file():
                    return str(candidate)
    except ImportError:
        pass
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if cuda_home and (Path(cuda_home) / "bin" / "ptxas").is_file():
        return str(Path(cuda_home) / "bin" / "ptxas")
    return shutil.which("ptxas")


#: ptxas's words when it cannot write its output (a full disk, an unwritable path).
_WRITE_FAILURES = re.compile(
    r"Failed to write|Could not open output file|cannot open output|error: writing file"
)


@dataclass
class PtxasResult:
    ok: bool
    output: str
    registers: dict[str, int]
    spills: dict[str, int]
    #: The cubin's bytes, when `run_ptxas` was not given an output path.
    cubin: bytes | None = None

    @property
    def could_not_write(self) -> bool:
        """ptxas failed writing the cubin, not reading the PTX."""
        return not self.ok and _WRITE_FAILURES.search(self.output) is not None

    def failure(self) -> str:
        """What went wrong, for a diagnostic: a cubin ptxas could not write is an I/O
        error of the machine; PTX it rejected is a tileir bug."""
        report = self.output.strip()
        if self.could_not_write:
            return f"ptxas could not write the cubin:\n{report}"
        return (
            f"internal compiler error: ptxas rejected the generated PTX (a tileir bug):\n{report}"
        )


def required_ptxas() -> str:
    """`find_ptxas`'s path, or FileNotFoundError saying how to get one."""
    ptxas = find_ptxas()
    if ptxas is None:
        raise FileNotFoundError(
            "ptxas not found: install the nvidia-cuda-nvcc wheel or set CUDA_HOME"
        )
    return ptxas


def run_ptxas(
    ptx: str,
    arch: str,
    output: str | None = None,
    opt_level: int = 3,
    extra: list[str] | None = None,
) -> PtxasResult:
    """Assemble `ptx` for `arch` with `-v`: to `output` if given, else into a temporary
    file whose bytes the result carries (`cubin`, so that the caller writes its output
    itself and reports its own write errors); the result also carries ptxas's report
    and the register count of each kernel."""
    return start_ptxas(ptx, arch, output, opt_level, extra).result()


def start_ptxas(
    ptx: str,
    arch: str,
    output: str | None = None,
    opt_level: int = 3,
    extra: list[str] | None = None,
) -> PtxasRun:
    """`run_ptxas`, started: ptxas runs while the caller does something else (tileir-as
    verifies the llvm stage meanwhile), and `result()` waits for it."""
    ptxas = required_ptxas()
    tmp = tempfile.TemporaryDirectory()
    try:
        src = Path(tmp.name) / "kernel.ptx"
        src.write_text(ptx)
        out = output or str(Path(tmp.name) / "kernel.cubin")
        cmd = [ptxas, f"-arch={arch}", f"-O{opt_level}", "-v", str(src), "-o", out, *(extra or [])]
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    except BaseException:
        tmp.cleanup()
        raise
    return PtxasRun(proc, tmp, out if output is None else None)


def launch_ptxas(arch: str, opt_level: int = 3, extra: list[str] | None = None) -> PtxasRun:
    """`start_ptxas` before the PTX exists: ptxas starts now and reads its PTX from a
    pipe (`/dev/stdin`) that `PtxasRun.feed` fills, so that its own start-up (loading a
    50 MB executable: about 15 ms of CPU, half of a small kernel's ptxas run) overlaps
    the compilation that makes the PTX.  The same cubin and report come out as from
    `start_ptxas`'s file (its name is in neither)."""
    ptxas = required_ptxas()
    tmp = tempfile.TemporaryDirectory()
    try:
        out = str(Path(tmp.name) / "kernel.cubin")
        cmd = [ptxas, f"-arch={arch}", f"-O{opt_level}", "-v", "/dev/stdin", "-o", out]
        proc = subprocess.Popen(
            [*cmd, *(extra or [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    except BaseException:
        tmp.cleanup()
        raise
    return PtxasRun(proc, tmp, out)


class PtxasRun:
    """A ptxas process `start_ptxas` (or `launch_ptxas`) started, and the temporary
    directory of its input and output."""

    def __init__(
        self, proc: subprocess.Popen[str], tmp: tempfile.TemporaryDirectory[str], cubin: str | None
    ) -> None:
        self.proc = proc
        self.tmp = tmp
        self.cubin_path = cubin
        self.writer: threading.Thread | None = None
        self.finished = False

    def feed(self, ptx: str) -> None:
        """Give a `launch_ptxas` run its PTX: written into its pipe by a thread, so that
        the caller goes on (a module larger than the pipe's buffer waits for ptxas to
        read it) and ptxas's reports are read meanwhile by `result`."""
        stdin, self.proc.stdin = self.proc.stdin, None  # `communicate` leaves it alone
        assert stdin is not None, "feed: not a launch_ptxas run, or fed twice"

        def write() -> None:
            try:
                stdin.write(ptx)
                stdin.close()
            except (BrokenPipeError, OSError, ValueError):  # ptxas died: `result` says why
                pass

        self.writer = threading.Thread(target=write, daemon=True)
        self.writer.start()

    def _finish(self) -> None:
        self.finished = True
        if self.writer is not None:
            self.writer.join()
        self.tmp.cleanup()

    def result(self) -> PtxasResult:
        """Wait for ptxas; what it said and made."""
        try:
            try:
                stdout, stderr = self.proc.communicate()
            except BaseException:  # interrupted: ptxas goes too, as under subprocess.run
                self.proc.kill()
                self.proc.wait()
                raise
            ok = self.proc.returncode == 0
            cubin = Path(self.cubin_path).read_bytes() if self.cubin_path and ok else None
        finally:
            self._finish()
        return parse_report(ok, stdout + stderr, cubin)

    def cancel(self) -> None:
        """Stop ptxas (its work is not wanted: the compilation failed meanwhile); nothing
        once `result` has been taken."""
        if self.finished:
            return
        try:
            self.proc.kill()
            self.proc.communicate()
        finally:
            self._finish()


def parse_report(ok: bool, text: str, cubin: bytes | None) -> PtxasResult:
    """ptxas's `-v` report: the registers and spill stores of each kernel."""
    registers: dict[str, int] = {}
    spills: dict[str, int] = {}
    current = None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            registers[current] = int(m.group(1))
        m = re.search(r"(\d+) bytes spill stores", line)
        if m and current:
            spills[current] = int(m.group(1))
    return PtxasResult(ok, text, registers, spills, cubin)


def ptxas_release(ptxas: str) -> str | None:
    """The release line of `ptxas --version` ("Cuda compilation tools, release 13.5, ...")."""
    try:
        proc = subprocess.run([ptxas, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in proc.stdout.splitlines():
        if "release" in line:
            return line.strip()
    return None


def ptxas_supports_tile_language(ptxas: str) -> bool:
    """Whether `ptxas` takes PTX ISA 9.2 (CUDA 13.2 and later), which has `.language`."""
    release = ptxas_release(ptxas)
    m = re.search(r"release (\d+)\.(\d+)", release or "")
    return m is not None and (int(m.group(1)), int(m.group(2))) >= (13, 2)
