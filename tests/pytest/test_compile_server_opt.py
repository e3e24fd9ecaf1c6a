"""`tileir-opt` through the warm compile server (tileir/driver/opt_entry.py,
`client.run_opt`, docs/cli.md): the worker's run is byte-identical to the command in
its own process (stdout, stderr, exit status, files written), reading the client's
standard input where the command reads it; a pipeline of tileir-opt runs ends even
with one worker slot; a worker killed mid-run falls back to the command in-process
where its standard input can be read again, and says why not where it cannot.

The tests share one private server with a single worker slot (server_env.Env; the
`served` counts are differences), started once and stopped after the last: a server's
start (its warm-up compilations) is most of what each test would otherwise take.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from server_env import BIN, CORPUS, ROOT, Env, wait_for_worker


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    """One server for the module, one worker slot (for the pipeline test)."""
    e = Env(tmp_path_factory.mktemp("opt-server"))
    e.environ["TILEIR_SERVER_WORKERS"] = "1"
    try:
        e.start()
        yield e
    finally:
        e.stop()


def _served(env: Env) -> int:
    info = env.status()
    assert info is not None
    return info["served"]


KERNEL = CORPUS / "vadd_f32.mlir"
INVALID = ROOT / "tests/filecheck/dialects/cuda_tile/core_invalid.mlir"

CASES = [
    # (name, args, standard input: None (/dev/null), a path, or "closed")
    ("print", [str(KERNEL)], None),
    ("generic", [str(KERNEL), "--print-op-generic"], None),
    (
        "pipeline after all",
        [
            str(KERNEL),
            "-p",
            "convert-cuda-tile-to-tileaa,tileaa-canonicalize",
            "--print-ir-after-all",
        ],
        None,
    ),
    ("output file", [str(KERNEL), "-p", "convert-cuda-tile-to-tileaa", "-o", "{d}/out.mlir"], None),
    ("stdin", ["-p", "convert-cuda-tile-to-tileaa"], KERNEL),
    ("split and verify", [str(INVALID), "--split-input-file", "--verify-diagnostics"], None),
    ("parse error", ["--split-input-file"], INVALID),
    ("unknown pass", [str(KERNEL), "-p", "no-such-pass"], None),
    ("bad flag", ["--no-such-flag"], None),
    ("closed stdin", [], "closed"),
    ("version", ["--version"], None),
]


def _run(
    env: Env, args: list[str], source: Path | str | None, **environ: str
) -> subprocess.CompletedProcess[bytes]:
    """tileir-opt `args` with standard input `source`: a file, "closed", or /dev/null."""
    command = [str(BIN / "tileir-opt"), *args]
    if source == "closed":  # a shell closes it for the command: Python has no stdin then
        command = ["sh", "-c", 'exec "$0" "$@" <&-', *command]
    with open(source if isinstance(source, Path) else os.devnull, "rb") as f:
        return subprocess.run(
            command,
            stdin=f,
            capture_output=True,
            cwd=env.work,
            env={**env.environ, **environ},
            timeout=300,
        )


def test_tileir_opt_answers_are_byte_identical(env: Env) -> None:
    before = _served(env)
    for name, template, source in CASES:
        results = []
        for how, setting in (("server", "1"), ("in-process", "0")):
            out = env.work / f"{name}-{how}".replace(" ", "_")
            out.mkdir()
            args = [a.replace("{d}", str(out)) for a in template]
            proc = _run(env, args, source, TILEIR_SERVER=setting)
            files = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
            results.append((proc.returncode, proc.stdout, proc.stderr, files))
        assert results[0] == results[1], name
        assert results[0][0] in (0, 1, 2), (name, results[0])
    assert _served(env) - before == len(CASES)


def test_a_pipeline_ends_with_one_worker_slot(env: Env) -> None:
    """`tileir-opt a.mlir | tileir-opt -p ...`: the second worker waits on the first
    one's output; with one slot, the first must not wait for the second's slot."""
    before = _served(env)
    script = (
        f'"{BIN}/tileir-opt" "{KERNEL}" --print-op-generic'
        f' | "{BIN}/tileir-opt" -p convert-cuda-tile-to-tileaa'
        f' | "{BIN}/tileir-opt" -p tileaa-canonicalize'
    )
    piped = subprocess.run(
        ["sh", "-c", script], capture_output=True, cwd=env.work, env=env.environ, timeout=120
    )
    assert piped.returncode == 0, piped.stderr
    alone = _run(
        env,
        [str(KERNEL), "-p", "convert-cuda-tile-to-tileaa,tileaa-canonicalize"],
        None,
        TILEIR_SERVER="0",
    )
    assert piped.stdout == alone.stdout and piped.stdout
    assert _served(env) - before == 3


def _killed_mid_run(env: Env, stdin: int | IO[bytes]) -> subprocess.Popen[bytes]:
    proc = env.popen(
        ["-p", "convert-cuda-tile-to-tileaa"],
        tool="tileir-opt",
        stdin=stdin,
        TILEIR_SERVER_TEST_DELAY="60",
    )
    worker = wait_for_worker(env)
    _wait_for_stdin(worker, proc.pid)
    os.kill(worker, signal.SIGKILL)
    return proc


def _wait_for_stdin(worker: int, client: int) -> None:
    """Until the worker's descriptor 0 is the client's standard input (it was handed
    over: killed before that, the client could not tell, and would rightly run the
    command itself)."""
    want = os.readlink(f"/proc/{client}/fd/0")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{worker}/fd/0") == want:
                return
        time.sleep(0.02)
    raise AssertionError("the worker never took the client's standard input")


def test_worker_killed_with_a_file_on_stdin_falls_back(env: Env) -> None:
    """A regular file on standard input is rewound: the command runs in-process."""
    with open(KERNEL, "rb") as f:
        proc = _killed_mid_run(env, f)
        out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and err == b"", err
    alone = _run(env, ["-p", "convert-cuda-tile-to-tileaa"], KERNEL, TILEIR_SERVER="0")
    assert out == alone.stdout and out


def test_worker_killed_with_a_pipe_on_stdin_says_so(env: Env) -> None:
    """A pipe the worker may have read from cannot be read again: exit 1 and say why,
    never a run on what is left of the input."""
    proc = _killed_mid_run(env, subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(Path(KERNEL).read_bytes())
    proc.stdin.close()
    proc.stdin = None  # written and closed: communicate() only reads
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1 and out == b""
    assert b"tileir-opt: error: the compile server's worker ended before it answered" in err
    assert b"TILEIR_SERVER=0" in err


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_runs_in_the_client(env: Env, flag: str) -> None:
    """Help is fitted to the client's terminal: it never goes to the server."""
    before = _served(env)
    proc = env.run([flag], tool="tileir-opt", stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and b"usage: tileir-opt" in proc.stdout
    assert _served(env) == before
