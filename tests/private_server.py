"""A compile server private to one test run: started in a fresh 0700 runtime directory,
stopped (killed if it will not stop) and its directory removed when the run ends, so
that nothing outlives the run and nothing from another run's environment serves it.

    python tests/private_server.py COMMAND [ARG...]   # COMMAND with the server on

`make filecheck` runs lit so: lit's ~380 `tileir-opt` and ~140 `tileir-as` runs each
get a worker forked from the warm server (~0.1-0.2 s) instead of a cold process
(~0.5-0.7 s), which is what a user's second call gets (docs/testing.md).  The server
serves every command with that command's own directory and environment; tileir-as and
tileir-opt without it (`TILEIR_SERVER=0`) give the same bytes (test_compile_server.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

BIN = Path(sys.executable).parent


def server_environ(base: dict[str, str], runtime: Path) -> dict[str, str]:
    """`base` with the server on, its socket in `runtime`."""
    environ = dict(base)
    environ.update({"XDG_RUNTIME_DIR": str(runtime), "TILEIR_SERVER": "1"})
    environ.pop("TILEIR_CLIENT_DEBUG", None)
    return environ


def new_runtime_dir() -> Path:
    """A fresh private directory, short (a socket's path holds 108 bytes: under /tmp
    when the temporary directory's own path is long)."""
    base = tempfile.gettempdir()
    if len(base) > 40 and os.access("/tmp", os.W_OK):
        base = "/tmp"
    runtime = Path(tempfile.mkdtemp(prefix="tsrv", dir=base))
    runtime.chmod(0o700)
    return runtime


def start(environ: dict[str, str]) -> None:
    proc = subprocess.run(
        [str(BIN / "tileir-as"), "--server", "start"],
        capture_output=True,
        text=True,
        env=environ,
        timeout=120,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the compile server did not start: {proc.stderr.strip()}")


def stop(environ: dict[str, str]) -> bool:
    """Stop the server of `environ`'s runtime directory, killing it if it does not stop;
    True once none holds its lock (then the directory is removed)."""
    from tileir.driver import client

    runtime = Path(environ["XDG_RUNTIME_DIR"])
    paths = client.ServerPaths(str(runtime / "tileir"))
    subprocess.run(
        [str(BIN / "tileir-as"), "--server", "stop"], capture_output=True, env=environ, timeout=60
    )
    if client.server_alive(paths):
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(Path(paths.lock).read_text().strip()), signal.SIGKILL)
    deadline = time.monotonic() + 10
    while client.server_alive(paths) and time.monotonic() < deadline:
        time.sleep(0.05)
    gone = not client.server_alive(paths)
    shutil.rmtree(runtime, ignore_errors=True)
    return gone


@contextlib.contextmanager
def private_server(base: dict[str, str]) -> Iterator[dict[str, str]]:
    """The environment of a running private server, stopped on leaving."""
    environ = server_environ(base, new_runtime_dir())
    try:
        start(environ)
        yield environ
    finally:
        if not stop(environ):
            raise RuntimeError("the private compile server did not stop")


def main(argv: list[str]) -> int:
    """COMMAND with a private server; if none can start (a socket path too long under
    a deep TMPDIR, no fork), COMMAND without one, as it would run anyway, and say so."""
    if not argv:
        print("usage: python tests/private_server.py COMMAND [ARG...]", file=sys.stderr)
        return 2
    environ = server_environ(dict(os.environ), new_runtime_dir())
    try:
        start(environ)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        stop(environ)
        print(f"private_server.py: {e}; running without a server", file=sys.stderr)
        return subprocess.run(argv, env={**os.environ, "TILEIR_SERVER": "0"}).returncode
    try:
        return subprocess.run(argv, env=environ).returncode
    finally:
        if not stop(environ):
            print("private_server.py: the compile server did not stop", file=sys.stderr)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main(sys.argv[1:]))
