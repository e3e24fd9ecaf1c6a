"""tileir-as's warm compile server (tileir/driver/server.py, docs/cli.md): its answers
are byte-identical to a compilation in the client's own process; a stale socket, a
worker or server killed mid-compile, and `TILEIR_SERVER=0` all still compile, in-process;
two clients compile at once; only its own user is served; and no test leaves a server
running (each has a private XDG_RUNTIME_DIR and stops its server in teardown).

The suite runs with TILEIR_SERVER=0 (tests/conftest.py); these tests turn it on for
their own subprocesses only.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import server_env

from tileir.driver import client, server

env = server_env.env  # the fixture: a private server, stopped in teardown
Env = server_env.Env
ROOT, CORPUS, BIN = server_env.ROOT, server_env.CORPUS, server_env.BIN
_wait_for_worker, _wait_for_spare = server_env.wait_for_worker, server_env.wait_for_spare


def in_process(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    environ = {**os.environ, "TILEIR_SERVER": "0", "TILEIR_NO_CACHE": "1"}
    return subprocess.run(
        [str(BIN / "tileir-as"), *args], capture_output=True, cwd=cwd, env=environ, timeout=300
    )


CASES = [
    # (name, args): every output of each is compared
    ("cubin", [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80", "-o", "{d}/k.cubin"]),
    ("ptx", [str(CORPUS / "saxpy_f32.tileirbc"), "--gpu-name", "sm_90", "-o", "{d}/k.ptx"]),
    ("stdout", [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_90", "--emit=tileaa"]),
    (
        "remarks",
        [
            str(CORPUS / "vadd_f32.tileirbc"),
            "--gpu-name",
            "sm_80",
            "-o",
            "{d}/k.cubin",
            "--remarks=all",
        ],
    ),
    (
        "error",
        [
            str(ROOT / "tests/pytest/bytecode_fixtures/invalid/truncated_in_section.tileirbc"),
            "-o",
            "{d}/k.ptx",
        ],
    ),
    ("bad flag", ["--no-such-flag"]),
    ("version", ["--version"]),
]


def outcome(proc: subprocess.CompletedProcess[bytes], out: Path) -> tuple:
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    return proc.returncode, proc.stdout, proc.stderr, files


def test_server_answers_are_byte_identical(env: Env) -> None:
    env.start()
    for name, template in CASES:
        results = []
        for how in ("server", "in-process"):
            out = env.work / f"{name}-{how}".replace(" ", "_")
            out.mkdir()
            args = [a.replace("{d}", str(out)) for a in template]
            proc = env.run(args) if how == "server" else in_process(args, env.work)
            results.append(outcome(proc, out))
        assert results[0] == results[1], name
    info = env.status()
    assert info is not None and info["served"] == len(CASES)


def test_two_clients_at_once(env: Env) -> None:
    env.start()
    kernels = ["gemm_f16", "vadd_f32"]
    procs = [
        env.popen([str(CORPUS / f"{k}.tileirbc"), "--gpu-name", "sm_90", "-o", f"{k}.cubin"])
        for k in kernels
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    for k in kernels:
        ref = env.work / f"{k}-ref.cubin"
        args = [str(CORPUS / f"{k}.tileirbc"), "--gpu-name", "sm_90", "-o", str(ref)]
        assert in_process(args, env.work).returncode == 0
        assert (env.work / f"{k}.cubin").read_bytes() == ref.read_bytes()
    info = env.status()
    assert info is not None and info["served"] == 2


def test_first_call_starts_the_server_and_compiles_meanwhile(env: Env) -> None:
    args = [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80", "-o", "k.ptx"]
    assert env.run(args).returncode == 0
    assert (env.work / "k.ptx").is_file()
    deadline = time.monotonic() + 120
    while env.status() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert env.status() is not None
    assert Path(env.paths().directory).stat().st_mode & 0o777 == 0o700
    assert Path(env.paths().socket).stat().st_mode & 0o077 == 0


def test_server_off(env: Env) -> None:
    args = [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80", "-o", "k.ptx"]
    proc = env.run(args, TILEIR_SERVER="0")
    assert proc.returncode == 0, proc.stderr
    time.sleep(0.5)
    assert not client.server_alive(env.paths())
    assert not Path(env.paths().socket).exists()
    assert env.run(["--server", "status"], TILEIR_SERVER="0").returncode == 1


def test_stale_socket(env: Env) -> None:
    """A socket file nobody listens on (a killed server's): the call compiles in-process
    and a new server replaces the socket."""
    paths = env.paths()
    Path(paths.directory).mkdir(mode=0o700, parents=True, exist_ok=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(paths.socket)
    stale.close()
    args = [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80", "-o", "k.ptx"]
    proc = env.run(args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    deadline = time.monotonic() + 120
    while env.status() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert env.status() is not None


def test_worker_killed_mid_compile(env: Env) -> None:
    """The worker dies before it answers: the client compiles in-process, and its
    output (rewritten) is the right one."""
    env.start()
    args = [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80", "-o", "k.cubin"]
    proc = env.popen(args, TILEIR_SERVER_TEST_DELAY="60")
    worker = _wait_for_worker(env)
    os.kill(worker, signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert err == b"" and out == b""
    ref = env.work / "ref.cubin"
    assert in_process([*args[:-1], str(ref)], env.work).returncode == 0
    assert (env.work / "k.cubin").read_bytes() == ref.read_bytes()


def test_server_killed_mid_compile(env: Env) -> None:
    """The server dies while its worker compiles: the worker still answers; the next
    call finds a dead socket and compiles in-process."""
    info = env.start()
    args = [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80", "-o", "k.cubin"]
    proc = env.popen(args, TILEIR_SERVER_TEST_DELAY="1")
    _wait_for_worker(env)
    os.kill(info["pid"], signal.SIGKILL)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    ref = env.work / "ref.cubin"
    assert in_process([*args[:-1], str(ref)], env.work).returncode == 0
    assert (env.work / "k.cubin").read_bytes() == ref.read_bytes()
    (env.work / "k.cubin").unlink()
    again = env.run(args)
    assert again.returncode == 0 and again.stderr == b""
    assert (env.work / "k.cubin").read_bytes() == ref.read_bytes()


def test_the_spare_worker_takes_the_next_request(env: Env) -> None:
    """The server forks a worker ahead, while idle; the next request goes to it, and a
    new spare is forked once the server is idle again."""
    env.start()
    spare = _wait_for_spare(env)
    args = [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80", "-o", "k.cubin"]
    proc = env.popen(args, TILEIR_SERVER_TEST_DELAY="1")
    assert _wait_for_worker(env) == spare
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    ref = env.work / "ref.cubin"
    assert in_process([*args[:-1], str(ref)], env.work).returncode == 0
    assert (env.work / "k.cubin").read_bytes() == ref.read_bytes()
    new_spare = _wait_for_spare(env)
    assert new_spare != spare
    # The new spare started the ptxas that request ran, for the next one to take
    # (assembler.prelaunch_ptxas; tests/pytest/test_ptxas_prelaunch.py).
    deadline = time.monotonic() + 60
    while not any("ptxas" in c[0] and "sm_80" in " ".join(c) for c in _children(new_spare)):
        assert time.monotonic() < deadline, "the spare prelaunched no ptxas"
        time.sleep(0.02)


def _children(pid: int) -> list[list[str]]:
    """The command lines of the processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(cmdline.decode(errors="replace").split("\0"))
    return found


def test_a_dead_spare_is_replaced(env: Env) -> None:
    """A spare that died while it waited costs nothing: the request is served by a
    worker forked for it, or by the next spare."""
    env.start()
    spare = _wait_for_spare(env)
    os.kill(spare, signal.SIGKILL)
    args = [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80", "-o", "k.cubin"]
    proc = env.run(args)
    assert proc.returncode == 0 and proc.stderr == b""
    ref = env.work / "ref.cubin"
    assert in_process([*args[:-1], str(ref)], env.work).returncode == 0
    assert (env.work / "k.cubin").read_bytes() == ref.read_bytes()
    assert _wait_for_spare(env) != spare
    assert not _running(spare)


def test_changed_sources_retire_the_server(env: Env) -> None:
    """A client whose tileir differs (another source fingerprint) is told the server is
    stale, and the server exits to make way for one of the new sources."""
    info = env.start()
    sock = client.connect(env.paths())
    assert sock is not None
    request = {"op": "compile", "protocol": client.PROTOCOL, "fingerprint": "changed"}
    client.send_message(sock, request)
    assert client.recv_message(sock) == {"error": "stale"}
    sock.close()
    deadline = time.monotonic() + 30
    while client.server_alive(env.paths()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not client.server_alive(env.paths())
    assert not _running(info["pid"])


def _running(pid: int) -> bool:
    """Whether `pid` runs (a zombie nobody reaped yet does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_idle_timeout(env: Env) -> None:
    env.environ["TILEIR_SERVER_IDLE_TIMEOUT"] = "1"
    env.start()
    deadline = time.monotonic() + 30
    while client.server_alive(env.paths()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not client.server_alive(env.paths())
    assert not Path(env.paths().socket).exists()


def test_status_and_stop(env: Env) -> None:
    proc = env.run(["--server", "status"])
    assert proc.returncode == 1 and b"not running" in proc.stdout
    env.start()
    proc = env.run(["--server", "status"])
    assert proc.returncode == 0 and b"running, pid" in proc.stdout
    proc = env.run(["--server", "stop"])
    assert proc.returncode == 0 and b"stopped" in proc.stdout
    assert not client.server_alive(env.paths())


def test_other_users_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SO_PEERCRED: the server drops a connection of another user unanswered, and the
    client uses no socket another user's process listens on."""
    runtime = Path(tempfile.mkdtemp(prefix="tsrv"))
    try:
        paths = client.ServerPaths(str(runtime))
        srv = server.Server(paths, idle_timeout=10, workers=1)
        srv.listen()
        peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        peer.settimeout(5)
        peer.connect(paths.socket)
        monkeypatch.setattr(client, "peer_uid", lambda sock: os.getuid() + 1)
        client.send_message(peer, {"op": "status", "protocol": client.PROTOCOL})
        srv.accept()
        try:
            answer = peer.recv(1)
        except ConnectionResetError:
            answer = b""
        assert answer == b""  # closed, no answer
        peer.close()
        assert client.connect(paths) is None
        srv.close_listener()
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def test_client_imports_only_the_standard_library() -> None:
    code = (
        "import sys; before = set(sys.modules); import tileir.driver.client; "
        "print(sorted(m for m in set(sys.modules) - before))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    loaded = eval(proc.stdout)
    ours = {m for m in loaded if m.split(".")[0] == "tileir"}
    assert ours == {"tileir", "tileir.driver", "tileir.driver.client", "tileir.driver.cache"}
    stdlib = set(sys.stdlib_module_names)
    foreign = [m for m in loaded if m.split(".")[0] not in stdlib and m not in ours]
    assert not foreign, foreign


def test_a_cache_hit_does_not_import_the_compiler(tmp_path: Path) -> None:
    args = [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80", "-o", "k.ptx"]
    code = (
        "import sys, atexit\n"
        "atexit.register(lambda: print('xdsl' in sys.modules))\n"
        "from tileir.driver.client import main\n"
        f"sys.argv = ['tileir-as', *{args!r}]\n"
        "main()\n"
    )
    environ = {**os.environ, "TILEIR_SERVER": "0", "TILEIR_CACHE_DIR": str(tmp_path / "c")}
    environ.pop("TILEIR_NO_CACHE", None)
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=environ
        )
        for _ in range(2)
    ]
    assert [r.stdout.strip() for r in runs] == ["True", "False"], [r.stderr for r in runs]


def test_the_tileiras_shim_goes_through_the_client(tmp_path: Path) -> None:
    from tileir.driver.assembler import make_tileiras_shim

    shim = make_tileiras_shim(str(tmp_path / "bin"))
    text = shim.read_text()
    # Python 3.11+ runs it without /bin/sh in front: `-SP` on its `#!` line.
    assert text.startswith(f"#!{sys.executable} -SP\n") or sys.version_info < (3, 11)
    # A compilation in the shim's process (a Python without `site`, which runs it before
    # the compiler is imported) and one through the console script give the same bytes;
    # the second shim run is a cache hit that imported neither `site` nor `re`.
    args = [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80"]
    environ = {**os.environ, "TILEIR_SERVER": "0", "TILEIR_CACHE_DIR": str(tmp_path / "c")}
    environ.pop("TILEIR_NO_CACHE", None)
    script = Path(sys.executable).parent / "tileir-as"
    runs = []
    tools = [[str(shim)], [str(shim)], [sys.executable, str(script), "--no-cache"]]
    for i, tool in enumerate(tools):
        extra = {"PYTHONPROFILEIMPORTTIME": "1"} if i == 1 else {}
        proc = subprocess.run(
            [*tool, *args, "-o", f"k{i}.ptx"],
            capture_output=True,
            cwd=tmp_path,
            env={**environ, **extra, "TILEIR_CLIENT_DEBUG": "1"},
        )
        assert proc.returncode == 0, proc.stderr
        runs.append(proc)
    assert b"cache hit" not in runs[0].stderr and b"cache hit" in runs[1].stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in runs[1].stderr.decode().splitlines()}
    assert "tileir.driver.client" in imported
    assert not {"site", "re", "json", "xdsl"} & imported, sorted(imported)
    # tileir moved since the shim was written: the client starts as with `site`.
    moved = tmp_path / "bin" / "moved"
    package_parent = str(Path(server.__file__).parents[2])
    assert f"{package_parent!r}" in text
    moved.write_text(text.replace(f"{package_parent!r}", repr(str(tmp_path / "gone"))))
    moved.chmod(0o755)
    proc = subprocess.run(
        [str(moved), *args, "-o", "k3.ptx", "--no-cache"],
        capture_output=True,
        cwd=tmp_path,
        env=environ,
    )
    assert proc.returncode == 0, proc.stderr
    ptx = [(tmp_path / f"k{i}.ptx").read_bytes() for i in range(4)]
    assert ptx[0] == ptx[1] == ptx[2] == ptx[3]


def test_a_shim_that_no_shebang_line_can_start_is_a_shell_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where `#!python -SP` cannot be the first line (a path too long for the kernel's
    `#!` buffer, or with spaces; Python before 3.11), the shim is a shell script that
    starts tileir/driver/launch.py, with the same result."""
    from tileir.driver import assembler

    monkeypatch.setattr(assembler, "SHEBANG_LIMIT", 10)
    shim = assembler.make_tileiras_shim(str(tmp_path / "bin"))
    text = shim.read_text()
    assert text.startswith("#!/bin/sh\n") and " -S " in text and "driver/launch.py" in text
    args = [str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_80", "-o", "k.ptx"]
    environ = {**os.environ, "TILEIR_SERVER": "0", "TILEIR_NO_CACHE": "1"}
    proc = subprocess.run([str(shim), *args], capture_output=True, cwd=tmp_path, env=environ)
    assert proc.returncode == 0, proc.stderr
    ref = tmp_path / "ref.ptx"
    assert in_process([*args[:-1], str(ref)], tmp_path).returncode == 0
    assert (tmp_path / "k.ptx").read_bytes() == ref.read_bytes()


def test_the_warm_server_knows_ptxas_release(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers inherit the answer of `ptxas --version` (does ptxas take `.language`?):
    the warm-up writes only PTX, so it asks explicitly; else every request ran ptxas
    once more, 10-30 ms, and the worker forgot the answer when it exited."""
    import gc

    from tileir.backend.ptx import ptxas

    monkeypatch.setattr(ptxas, "ptxas_release", ptxas.ptxas_release)  # undone after
    monkeypatch.setattr(server, "WARM_UP_KERNELS", {})  # the MLIR kernel is enough here
    srv = server.Server.__new__(server.Server)
    try:
        srv.warm_up()
    finally:
        gc.unfreeze()
    found = ptxas.find_ptxas()
    assert found is not None  # a test dependency (nvidia-cuda-nvcc)

    def no_subprocess(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"ran {args} after the warm-up")

    monkeypatch.setattr(ptxas.subprocess, "run", no_subprocess)
    assert ptxas.ptxas_supports_tile_language(found) in (True, False)


def test_the_warm_up_kernels_are_the_corpus_kernels() -> None:
    """`WARM_UP_KERNELS` are copies of corpus kernels, all of them there and nothing else
    (a corpus kernel that changes is copied again)."""
    bundled = sorted(os.listdir(server.WARM_UP_DIR))
    named = sorted({f"{n}.tileirbc" for names in server.WARM_UP_KERNELS.values() for n in names})
    assert bundled == named
    for name in bundled:
        copy = Path(server.WARM_UP_DIR, name).read_bytes()
        assert copy == (CORPUS / name).read_bytes(), name
