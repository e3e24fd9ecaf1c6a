"""A private compile server for a test (test_compile_server*.py): `Env` runs tileir-as
and tileir-opt with the server on, its socket in a fresh private runtime directory
(tests/private_server.py), and the `env` fixture stops it in teardown, so that no test
leaves a server behind."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import private_server
import pytest

from tileir.driver import client

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
BIN = Path(sys.executable).parent


class Env:
    """A private runtime directory (short: a socket path holds 108 bytes) and cache."""

    def __init__(self, work: Path) -> None:
        self.runtime = private_server.new_runtime_dir()
        self.work = work
        self.environ = private_server.server_environ(dict(os.environ), self.runtime)
        self.environ.update(
            {
                "TILEIR_NO_CACHE": "1",
                "TILEIR_CACHE_DIR": str(work / "cache"),
                "TILEIR_SERVER_IDLE_TIMEOUT": "120",
                "TILEIR_SERVER_TIMEOUT": "120",  # a hung worker fails a test, not hangs it
            }
        )

    def paths(self) -> client.ServerPaths:
        return client.ServerPaths(str(self.runtime / "tileir"))

    def run(
        self,
        args: list[str],
        timeout: float = 300,
        tool: str = "tileir-as",
        stdin: int | IO[bytes] | None = None,
        **env: str,
    ) -> subprocess.CompletedProcess[bytes]:
        environ = {**self.environ, **env}
        return subprocess.run(
            [str(BIN / tool), *args],
            stdin=stdin,
            capture_output=True,
            cwd=self.work,
            env=environ,
            timeout=timeout,
        )

    def popen(
        self,
        args: list[str],
        tool: str = "tileir-as",
        stdin: int | IO[bytes] | None = None,
        **env: str,
    ) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [str(BIN / tool), *args],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.work,
            env={**self.environ, **env},
        )

    def server_pid(self) -> int | None:
        try:
            text = Path(self.paths().lock).read_text().strip()
        except OSError:
            return None
        return int(text) if text else None

    def status(self) -> dict | None:
        return client.server_request(self.paths(), "status")

    def start(self) -> dict:
        proc = self.run(["--server", "start"], timeout=120)
        assert proc.returncode == 0, proc.stderr
        info = self.status()
        assert info is not None
        return info

    def stop(self) -> None:
        """Stop the server, and make sure of it: no test leaves one behind."""
        assert private_server.stop(self.environ)


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    e = Env(tmp_path)
    try:
        yield e
    finally:
        e.stop()


def wait_for_worker(env: Env) -> int:
    """The pid of the worker compiling a request (the server's status lists them; the
    spare waiting for the next request is not one)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        info = env.status()
        if info is not None and info["worker_pids"]:
            return info["worker_pids"][0]
        time.sleep(0.02)
    raise AssertionError("no worker appeared")


def wait_for_spare(env: Env) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        info = env.status()
        if info is not None and info["spare_pid"] is not None:
            return info["spare_pid"]
        time.sleep(0.02)
    raise AssertionError("no spare worker appeared")
