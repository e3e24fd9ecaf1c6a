"""Every documented command runs as documented (issue 19, item 6): each shell code block
(```sh, ```shell, ```bash) of README.md and docs/*.md runs as one bash script, `set -e`,
in a scratch directory that holds the files the examples name (`kernel.mlir`, `k.mlir`,
`k.tileirbc`, `as.mlir`, `bad.mlir`, `module.mlir`) and links to the repository's
`tests/`, `benchmarks/` and `tools/`; every command must succeed.  README.md's Python
blocks (```python: what a newcomer pastes first) run the same way, each as a script file
there (cuTile reads a kernel's source, so not through `python -c`); the Python blocks of
docs/*.md are fragments of the API's description and are not run.

A block that cannot run here says so in an HTML comment on the line before its fence,
which the rendered page hides:

    <!-- docs-test: gpu -->     needs a GPU: skipped without one
    <!-- docs-test: slow -->    takes more than a few seconds (the whole pipeline, cuTile):
                                run with TILEIR_DOCS_SLOW=1 (`make docs-test`)
    <!-- docs-test: skip REASON -->   never run here (REASON: what it needs)

A plain block (no language) marked `<!-- docs-test: output -->` is what the shell block
before it prints, and the block's standard output must be that text, line for line
(trailing spaces aside): the page shows what the command really prints.

Blocks run with `HOME` in the scratch directory (the shim example writes into
`~/.tileir/bin`) and without the compile server (`TILEIR_SERVER=0`: no process outlives
the test).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^```(sh|shell|bash)\s*$")
#: README.md's Python blocks run too.
PYTHON_FENCE = re.compile(r"^```python\s*$")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(gpu|slow|skip)\b\s*(.*?)\s*-->\s*$")
#: Marks a plain block as the output of the shell block before it.
OUTPUT_MARKER = re.compile(r"^<!--\s*docs-test:\s*output\s*-->\s*$")

#: Set to run the blocks marked slow too.
SLOW_ENV = "TILEIR_DOCS_SLOW"

#: A file with one expected error, for `tileir-opt bad.mlir --verify-diagnostics`.
BAD = """\
cuda_tile.module @m {
  entry @k() {
    %c = constant <i32: 1> : tile<i32>
    // expected-error @below {{extending to smaller or identical integer}}
    %e = exti %c signed : tile<i32> -> tile<i16>
    return
  }
}
"""


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    script: str
    marker: str | None
    reason: str
    python: bool = False
    #: What the block prints, where the page shows it (`OUTPUT_MARKER`).
    expected: str | None = None

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def shell_blocks() -> list[Block]:
    blocks: list[Block] = []
    for page in PAGES:
        lines = page.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i] == "```" and i and OUTPUT_MARKER.match(lines[i - 1]):
                end = lines.index("```", i + 1)
                assert blocks and blocks[-1].page == page, f"{page}:{i}: output of no block"
                blocks[-1] = replace(blocks[-1], expected="\n".join(lines[i + 1 : end]))
                i = end + 1
                continue
            python = page.name == "README.md" and PYTHON_FENCE.match(lines[i]) is not None
            if FENCE.match(lines[i]) or python:
                start = i
                body: list[str] = []
                i += 1
                while i < len(lines) and not lines[i].startswith("```"):
                    body.append(lines[i])
                    i += 1
                marker = MARKER.match(lines[start - 1]) if start else None
                blocks.append(
                    Block(
                        page,
                        start + 1,
                        "\n".join(body),
                        marker.group(1) if marker else None,
                        marker.group(2) if marker else "",
                        python,
                    )
                )
            i += 1
    return blocks


BLOCKS = shell_blocks()


def has_gpu() -> bool:
    return shutil.which("nvidia-smi") is not None and (
        subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
    )


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files the documented commands name, and links to the repository's folders."""
    import tileir

    where = tmp_path_factory.mktemp("docs")
    bare = (CORPUS / "vadd_f32.mlir").read_text()
    (where / "kernel.mlir").write_text(bare)
    (where / "k.mlir").write_text(bare)
    (where / "module.mlir").write_text(tileir.print_ir(tileir.load(bare)))
    shutil.copy(CORPUS / "vadd_f32.tileirbc", where / "k.tileirbc")
    shutil.copy(CORPUS / "vadd_f32.tileirbc", where / "kernel.tileirbc")
    result = tileir.compile(bare, "sm_90a", stop_after="tileas")
    (where / "as.mlir").write_text(result.tileas.text)
    (where / "bad.mlir").write_text(BAD)
    for folder in ("tests", "benchmarks", "tools"):
        (where / folder).symlink_to(ROOT / folder)
    return where


def test_the_pages_have_shell_blocks() -> None:
    assert len(BLOCKS) >= 10
    assert all(b.marker != "skip" or b.reason for b in BLOCKS), "a skip says why"
    assert any(b.expected for b in BLOCKS), "the pages show some command's output"
    # The README's Python: a cuTile kernel compiled from Python, run unmarked.
    readme_python = [b for b in BLOCKS if b.python]
    assert readme_python and all(b.marker is None for b in readme_python)
    assert any("tileir.compile(" in b.script and "@ct.kernel" in b.script for b in readme_python)


def why_not_run(block: Block) -> str | None:
    if block.marker == "skip":
        return f"{block.id}: {block.reason}"
    if block.marker == "gpu" and not has_gpu():
        return f"{block.id}: needs a GPU"
    if block.marker == "slow" and os.environ.get(SLOW_ENV, "") in ("", "0"):
        return f"{block.id}: slow (run with {SLOW_ENV}=1)"
    return None


def run_block(block: Block, scratch: Path) -> subprocess.CompletedProcess[str]:
    """Run `block` in a copy of `scratch` of its own: the blocks run side by side, and
    some write the files others read (`tileir-opt k.mlir -t tileirbc -o k.tileirbc`
    beside `tileir-as k.tileirbc ...`)."""
    own = scratch.parent / f"{scratch.name}-{block.page.stem}-{block.line}"
    shutil.copytree(scratch, own, symlinks=True)
    scratch = own
    env = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    env.update(
        HOME=str(scratch),
        PATH=os.pathsep.join([bin_dir, env.get("PATH", "")]),
        TILEIR_SERVER="0",
        TILEIR_NO_CACHE="1",
    )
    command = ["bash", "-e", "-c", block.script]
    if block.python:
        script = scratch / f"{block.page.stem}_{block.line}.py"
        script.write_text(block.script + "\n")
        command = [sys.executable, str(script)]
    return subprocess.run(
        command,
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def results(scratch: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    """Every block that runs here, run side by side (each is mostly Python starting up)."""
    from concurrent.futures import ThreadPoolExecutor

    runnable = [b for b in BLOCKS if why_not_run(b) is None]
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        done = pool.map(lambda b: run_block(b, scratch), runnable)
        return {b.id: proc for b, proc in zip(runnable, done, strict=True)}


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_documented_commands_run(
    block: Block, results: dict[str, subprocess.CompletedProcess[str]]
) -> None:
    if (reason := why_not_run(block)) is not None:
        pytest.skip(reason)
    proc = results[block.id]
    assert proc.returncode == 0, (
        f"{block.id}: a documented command failed (exit {proc.returncode})\n"
        f"{block.script}\n--- stderr ---\n{proc.stderr[-3000:]}"
    )
    if block.expected is not None:
        printed = [line.rstrip() for line in proc.stdout.rstrip("\n").splitlines()]
        assert printed == [line.rstrip() for line in block.expected.splitlines()], (
            f"{block.id}: the page shows other output than the command prints:\n{proc.stdout}"
        )
