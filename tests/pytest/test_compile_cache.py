"""tileir-as's result cache (tileir/driver/cache.py, docs/cli.md): a hit gives the bytes a
compilation gives, a damaged entry is recompiled, concurrent writers leave whole
entries, the size bound evicts the least recently used, a cache that cannot be written
costs nothing but time, and what must not be cached is not."""

from __future__ import annotations

import errno
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tileir.driver import assembler, cache, client

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
KERNEL = CORPUS / "vadd_f32.tileirbc"
HIT = "tileir-as: cache hit"


def tileir_as(
    args: list[str], cache_dir: Path, cwd: Path, **env: str
) -> subprocess.CompletedProcess[bytes]:
    environ = dict(os.environ)
    environ.update(
        {"TILEIR_SERVER": "0", "TILEIR_CACHE_DIR": str(cache_dir), "TILEIR_CLIENT_DEBUG": "1"}
    )
    environ.pop("TILEIR_NO_CACHE", None)
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-m", "tileir.driver.client", *args],
        capture_output=True,
        cwd=cwd,
        env=environ,
        timeout=300,
    )


def without_debug(stderr: bytes) -> bytes:
    """stderr without the client's TILEIR_CLIENT_DEBUG lines."""
    lines = stderr.splitlines(keepends=True)
    return b"".join(
        line
        for line in lines
        if not (
            line.startswith(b"tileir-as: ") and b" error" not in line and b"warning" not in line
        )
    )


def in_process(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """The compiler in its own process, without client, cache or server."""
    return subprocess.run(
        [sys.executable, "-m", "tileir.driver.assembler", *args],
        capture_output=True,
        cwd=cwd,
        timeout=300,
    )


def entries(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / "entries").glob("*/*"))


def test_a_hit_is_byte_identical(tmp_path: Path) -> None:
    store = tmp_path / "cache"
    args = [str(KERNEL), "--gpu-name", "sm_80"]
    first = tileir_as([*args, "-o", "a.cubin"], store, tmp_path)
    assert first.returncode == 0, first.stderr
    assert HIT.encode() not in first.stderr
    assert len(entries(store)) == 1
    # Another output path, another directory: the same entry.
    other = tmp_path / "elsewhere"
    other.mkdir()
    second = tileir_as([*args, "-o", str(other / "b.cubin")], store, tmp_path)
    assert second.returncode == 0 and HIT.encode() in second.stderr, second.stderr
    reference = in_process([*args, "-o", "ref.cubin"], tmp_path)
    assert reference.returncode == 0
    cubin = (tmp_path / "ref.cubin").read_bytes()
    assert (tmp_path / "a.cubin").read_bytes() == cubin
    assert (other / "b.cubin").read_bytes() == cubin
    for run in (first, second):
        assert run.stdout == reference.stdout
        assert without_debug(run.stderr) == reference.stderr


def test_ptx_stdout_and_remarks_are_cached(tmp_path: Path) -> None:
    store = tmp_path / "cache"
    remarks = ["--remark-format=yaml", "--remarks=all", "--remarks-output-file", "r.yaml"]
    cases = [
        [str(KERNEL), "--gpu-name", "sm_90", "-o", "k.ptx"],
        [str(KERNEL), "--gpu-name", "sm_90", "--emit=tileas"],
        [str(KERNEL), "--gpu-name", "sm_90", "-o", "-"],
        [str(KERNEL), "--gpu-name", "sm_90", "-o", "k.cubin", *remarks],
    ]
    for args in cases:
        reference = in_process(args, tmp_path)
        produced = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
        for p in tmp_path.iterdir():
            if p.is_file():
                p.unlink()
        for expect_hit in (False, True):
            run = tileir_as(args, store, tmp_path)
            assert (HIT.encode() in run.stderr) == expect_hit, (args, run.stderr)
            assert run.returncode == reference.returncode
            assert run.stdout == reference.stdout, args
            assert without_debug(run.stderr) == reference.stderr, args
            for name, data in produced.items():
                assert (tmp_path / name).read_bytes() == data, (args, name)
                (tmp_path / name).unlink()


def test_compile_errors_are_cached_and_paths_are_not(tmp_path: Path) -> None:
    store = tmp_path / "cache"
    bad = ROOT / "tests/pytest/bytecode_fixtures/invalid/truncated_in_section.tileirbc"
    args = [str(bad), "--gpu-name", "sm_90", "-o", "x.ptx"]
    reference = in_process(args, tmp_path)
    assert reference.returncode == 1
    runs = [tileir_as(args, store, tmp_path) for _ in range(2)]
    for run in runs:
        assert run.returncode == 1
        assert without_debug(run.stderr) == reference.stderr
    # The error quotes the input's path: kept only if it does not.
    quoted = str(bad).encode() in reference.stderr
    assert (HIT.encode() in runs[1].stderr) == (not quoted)
    # A missing output directory is a property of this call, never cached.
    missing = [str(KERNEL), "--gpu-name", "sm_90", "-o", "no/such/dir/k.ptx"]
    for _ in range(2):
        run = tileir_as(missing, store, tmp_path)
        assert run.returncode == 1 and HIT.encode() not in run.stderr
        assert b"does not exist" in run.stderr


def test_a_truncated_entry_is_recompiled(tmp_path: Path) -> None:
    store = tmp_path / "cache"
    args = [str(KERNEL), "--gpu-name", "sm_80", "-o", "k.cubin"]
    assert tileir_as(args, store, tmp_path).returncode == 0
    good = (tmp_path / "k.cubin").read_bytes()
    [entry] = entries(store)
    whole = entry.read_bytes()
    for damaged in (whole[: len(whole) // 2], whole[:-1], whole[:-40] + b"x" * 40, b""):
        entry.write_bytes(damaged)
        (tmp_path / "k.cubin").unlink()
        run = tileir_as(args, store, tmp_path)
        assert run.returncode == 0, run.stderr
        assert HIT.encode() not in run.stderr
        assert (tmp_path / "k.cubin").read_bytes() == good
        assert entry.read_bytes() == whole  # rewritten whole
    assert HIT.encode() in tileir_as(args, store, tmp_path).stderr


def test_no_cache_flag_and_environment(tmp_path: Path) -> None:
    store = tmp_path / "cache"
    args = [str(KERNEL), "--gpu-name", "sm_80", "-o", "k.ptx"]
    assert tileir_as([*args, "--no-cache"], store, tmp_path).returncode == 0
    assert tileir_as(args, store, tmp_path, TILEIR_NO_CACHE="1").returncode == 0
    assert entries(store) == []
    assert tileir_as(args, store, tmp_path).returncode == 0
    assert len(entries(store)) == 1
    # Read neither: a hit would say so.
    for extra, env in (([], {"TILEIR_NO_CACHE": "1"}), (["--no-cache"], {})):
        run = tileir_as([*args, *extra], store, tmp_path, **env)
        assert run.returncode == 0 and HIT.encode() not in run.stderr


def test_the_key_follows_what_decides_the_output(tmp_path: Path) -> None:
    store = tmp_path / "cache"
    base = [str(KERNEL), "--gpu-name", "sm_80", "-o", "k.ptx"]
    assert tileir_as(base, store, tmp_path).returncode == 0
    misses = [
        ([str(KERNEL), "--gpu-name", "sm_90", "-o", "k.ptx"], {}),
        ([str(KERNEL), "--gpu-name", "sm_80", "-o", "k.cubin"], {}),
        ([str(KERNEL), "--gpu-name", "sm_80", "--lineinfo", "-o", "k.ptx"], {}),
        (base, {"TILEIR_ERROR_FORMAT": "mlir"}),
        ([str(CORPUS / "saxpy_f32.tileirbc"), "--gpu-name", "sm_80", "-o", "k.ptx"], {}),
    ]
    for args, env in misses:
        run = tileir_as(args, store, tmp_path, **env)
        assert run.returncode == 0 and HIT.encode() not in run.stderr, (args, env)
    copy = tmp_path / "copy.tileirbc"
    copy.write_bytes(KERNEL.read_bytes())
    hits = [
        [str(copy), "--gpu-name", "sm_80", "-o", "other.ptx"],
        [str(KERNEL), "--gpu-name", "sm_80", "--output-file", "k.ptx"],  # -o's long name ...
    ]
    run = tileir_as(hits[0], store, tmp_path)
    assert HIT.encode() in run.stderr, run.stderr
    # ... is another spelling, so another key (a miss, not a wrong answer).
    assert HIT.encode() not in tileir_as(hits[1], store, tmp_path).stderr


def test_a_non_file_output_is_not_cached(tmp_path: Path) -> None:
    """`-o /dev/null` wrote no bytes the cache could keep for `-o k.cubin`."""
    store = tmp_path / "cache"
    args = [str(KERNEL), "--gpu-name", "sm_80"]
    assert tileir_as([*args, "-o", "/dev/null"], store, tmp_path).returncode == 0
    assert entries(store) == []
    run = tileir_as([*args, "-o", "k.cubin"], store, tmp_path)
    assert run.returncode == 0 and HIT.encode() not in run.stderr
    assert len((tmp_path / "k.cubin").read_bytes()) > 1000


def test_the_log_line_of_a_hit(tmp_path: Path) -> None:
    store = tmp_path / "cache"
    log = tmp_path / "log"
    args = [str(KERNEL), "--gpu-name", "sm_80", "-o", "k.cubin"]
    for _ in range(2):
        assert tileir_as(args, store, tmp_path, TILEIR_AS_LOG=str(log)).returncode == 0
    first, second = log.read_text().splitlines()
    assert first == second and first.endswith(
        "kernels=vadd_f32_Kt1_A1f32_1t1_p16_A1f32_1t1_p16_A1f32_1t1_p16"
    )


def test_an_unwritable_cache_costs_nothing_but_time(tmp_path: Path) -> None:
    """A full disk or a read-only cache directory: the compilation still succeeds."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    args = [str(KERNEL), "--gpu-name", "sm_80", "-o", "k.cubin"]
    run = tileir_as(args, blocker / "cache", tmp_path)
    assert run.returncode == 0, run.stderr
    assert in_process([*args[:-1], "ref.cubin"], tmp_path).returncode == 0
    assert (tmp_path / "k.cubin").read_bytes() == (tmp_path / "ref.cubin").read_bytes()


def test_a_full_disk_leaves_no_partial_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = cache.ResultCache(str(tmp_path), limit=1 << 30)
    real_write = os.write

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache.os, "write", full)
    assert not store.put("ab" * 32, cache.Result(0, b"out", b"err", {"output": b"x" * 1000}))
    monkeypatch.setattr(cache.os, "write", real_write)
    assert store.get("ab" * 32) is None
    assert list((tmp_path / "tmp").iterdir()) == []


def _writer(root: str, key: str, n: int, payload: bytes) -> None:
    store = cache.ResultCache(root, limit=1 << 30)
    for _ in range(n):
        assert store.put(key, cache.Result(0, b"", b"", {"output": payload}))
        got = store.get(key)
        assert got is not None and got.outputs["output"] == payload


def test_concurrent_writers_leave_whole_entries(tmp_path: Path) -> None:
    key = "cd" * 32
    payload = os.urandom(1 << 20)
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), key, 20, payload)) for _ in range(4)]
    for p in procs:
        p.start()
    store = cache.ResultCache(str(tmp_path), limit=1 << 30)
    seen = 0
    while any(p.is_alive() for p in procs):
        got = store.get(key)
        if got is not None:
            assert got.outputs["output"] == payload
            seen += 1
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert store.get(key) is not None
    assert list((tmp_path / "tmp").iterdir()) == []


def test_eviction_drops_the_least_recently_used(tmp_path: Path) -> None:
    store = cache.ResultCache(str(tmp_path), limit=10_000)
    keys = [f"{i:02x}" * 32 for i in range(6)]  # entries of ~2.1 kB: 4 fit
    for i, key in enumerate(keys[:4]):
        assert store.put(key, cache.Result(0, b"", b"", {"output": bytes(2000)}))
        os.utime(store.entry_path(key), (1000 + i, 1000 + i))
    assert store.get(keys[0]) is not None  # used: now the most recent
    for key in keys[4:]:  # the fifth overflows: down to 80%, the two least recently used go
        store.put(key, cache.Result(0, b"", b"", {"output": bytes(2000)}))
    total = sum(size for _, size, _ in store.entries())
    assert total <= 10_000
    present = [key for key in keys if os.path.exists(store.entry_path(key))]
    assert present == [keys[0], keys[3], keys[4], keys[5]]


def test_a_store_scans_the_entries_only_when_the_bound_may_be_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store (each by a new client process, here a new `ResultCache`) adds its bytes to
    the ledger memo and scans the entries (a stat of each) only where there is no
    ledger, where the ledger passes the bound, and every `RESCAN_EVERY` stores (for
    what concurrent clients stored); a damaged ledger is scanned again."""
    scans: list[int] = []
    entries = cache.ResultCache.entries
    monkeypatch.setattr(cache.ResultCache, "entries", lambda self: scans.append(1) or entries(self))

    def put(key: str, output: bytes, limit: int = 10_000) -> None:
        cache.ResultCache(str(tmp_path), limit=limit).put(
            key, cache.Result(0, b"", b"", {"output": output})
        )

    keys = [f"{i:02x}" * 32 for i in range(cache.RESCAN_EVERY + 8)]
    for key in keys[:4]:  # ~2.1 kB each: 4 fit
        put(key, bytes(2000))
    assert len(scans) == 1  # no ledger yet
    put(keys[4], bytes(2000))  # past the bound: a scan, which evicts
    assert len(scans) == 2
    assert sum(size for _, size, _ in entries(cache.ResultCache(str(tmp_path)))) <= 10_000
    for key in keys[5:]:
        put(key, b"x", limit=1 << 30)
    assert len(scans) == 3  # the RESCAN_EVERY-th store since the last scan
    (tmp_path / "meta" / cache.LEDGER).write_text("damaged")
    put(keys[0], b"x", limit=1 << 30)
    assert len(scans) == 4


def test_result_encoding_rejects_damage() -> None:
    result = cache.Result(1, b"out", b"err\n", {"output": b"\x00\x01", "remarks": b"r"}, "arch=x")
    data = result.encode()
    assert cache.Result.decode(data) == result
    for damaged in (data[:-1], data + b"x", data[:10], data.replace(b"err", b"ERR")):
        assert cache.Result.decode(damaged) is None


def test_client_options_match_the_parser() -> None:
    """The client's option table (which options take a value, which name outputs) agrees
    with tileir-as's parser, so that it never mistakes a path for a flag."""
    parser = assembler.make_parser()
    for action in parser._actions:
        for option in action.option_strings:
            takes_value = action.nargs != 0
            if option in client.VALUE_OPTIONS:
                assert takes_value, option
            elif option in client.FLAG_OPTIONS:
                assert not takes_value, option
    defaults = {a.dest: a.default for a in parser._actions}
    assert defaults["remarks_output_file"] == client.DEFAULT_REMARKS_FILE
    request = client.Request(["k.tileirbc", "-o", "a/b.cubin", "--gpu-name=sm_80", "-O2"])
    assert request.cacheable and request.input == "k.tileirbc"
    assert request.outputs == {"output": "a/b.cubin", "remarks": "tileir_remarks.yaml"}
    assert request.key_argv(True) == [
        "<input.tileirbc>",
        "-o <output.cubin>",
        "--gpu-name=sm_80",
        "-O2",
    ]
    for argv in (
        ["k.tileirbc", "--version"],
        ["k.tileirbc", "-o", "-x"],
        ["a", "b", "-o", "k.ptx"],
        ["k.tileirbc", "--unknown", "-o", "k.ptx"],
        ["k.tileirbc", "-gO3", "-o", "k.ptx"],
    ):
        assert not client.Request(argv).cacheable, argv


def test_client_finds_the_ptxas_the_compiler_uses() -> None:
    from tileir.backend.ptx.ptxas import find_ptxas

    assert client.find_ptxas() == find_ptxas()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_full_standard_output_fails_with_or_without_a_hit(tmp_path: Path) -> None:
    """Exit 0 means the output is there: a PTX on standard output that cannot be written
    (a full disk) is exit 1 with the compiler's own message, whether the client compiled
    it or replayed it from the cache."""
    store = tmp_path / "cache"
    args = [str(KERNEL), "--gpu-name", "sm_90", "--emit=ptx"]
    for expect_hit in (False, True):
        with open("/dev/full", "wb") as full:
            environ = dict(os.environ, TILEIR_SERVER="0", TILEIR_CACHE_DIR=str(store))
            environ.pop("TILEIR_NO_CACHE", None)
            environ["TILEIR_CLIENT_DEBUG"] = "1"
            run = subprocess.run(
                [sys.executable, "-m", "tileir.driver.client", *args],
                stdout=full,
                stderr=subprocess.PIPE,
                cwd=tmp_path,
                env=environ,
                timeout=300,
            )
        assert (HIT.encode() in run.stderr) == expect_hit, run.stderr
        assert run.returncode == 1
        assert b"cannot write to standard output: No space left on device" in run.stderr


@pytest.mark.parametrize(
    ("setup", "status", "stdout"),
    [
        ("", 3, "buffered "),
        ("import atexit; atexit.register(print, 'at exit')", 3, "buffered at exit\n"),
        ("import tileir.compiler", 3, "buffered "),
        (  # another thread runs: Python waits for it, so the client returns
            "import threading, time; threading.Thread(target=time.sleep, args=(0.5,)).start()",
            4,
            "buffered returned\n",
        ),
    ],
)
def test_the_client_ends_without_finalization_once_it_is_done(
    setup: str, status: int, stdout: str
) -> None:
    """`client.exit_at_once`: tileir-as ends without the interpreter's finalization,
    its buffered output written and its `atexit` handlers run, unless another thread
    runs (then it returns and Python exits as usual)."""
    code = (
        f"{setup}\n"
        "import sys\n"
        "from tileir.driver.client import exit_at_once\n"
        "sys.stdout.write('buffered ')\n"
        "exit_at_once(3)\n"
        "print('returned')\n"
        "sys.exit(4)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert (run.returncode, run.stdout) == (status, stdout), run.stderr
