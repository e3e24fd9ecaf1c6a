"""`tileir-as`'s entry point: the result cache, then the warm compile server, then the
compiler in this process.  docs/cli.md ("The compile server and the result cache").

Standard library only (checked by tests/pytest/test_compile_server.py): a cache hit or
a compilation handed to the server never imports the compiler, which is most of the
cost of a cold `tileir-as` process.

    tileir-as KERNEL.tileirbc -o kernel.cubin --gpu-name sm_90
      1. the result cache (tileir/driver/cache.py): the key is the input's bytes, the
         command line with its paths replaced by their roles, tileir's version and
         source digest, ptxas's version and the TILEIR_* settings; a hit writes the
         outputs, stdout and stderr of the run it recorded, and exits with its status;
      2. the server (tileir/driver/server.py), over a unix socket in a private
         directory: it forks a worker from a process that has the compiler imported
         and warmed up, which runs the command line in this process's directory and
         environment and sends back stdout, stderr, the exit status and the files it
         wrote; the first call starts the server (and compiles in-process meanwhile);
      3. else (no server, `TILEIR_SERVER=0`, the server died mid-compile, or any other
         failure to get a whole answer from it): `tileir.driver.assembler` in this
         process, as before there was a server.

The three give the same bytes: each runs `tileir.driver.assembler.run` on the same
command line; the cache keeps what one of them produced.

`tileir-opt` (tileir/driver/opt_entry.py) goes through `run_opt`: the server, else its
own process, never the cache; its worker reads the client's standard input.
"""

# No `from __future__ import annotations`: it imports the `__future__` module (0.25 ms of
# every cache hit); annotations that name what is not imported at run time are quoted.
import io
import marshal
import os
import stat
import sys
import time

from tileir.driver import cache as _cache

#: `typing.TYPE_CHECKING`, without importing `typing` on a cache hit.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket

#: `TILEIR_SERVER=0` (or `off`, `no`, `false`): no server, compile in this process.
SERVER_ENV = "TILEIR_SERVER"
#: `TILEIR_NO_CACHE=1`: neither read nor write the result cache (as `--no-cache`).
NO_CACHE_ENV = "TILEIR_NO_CACHE"
#: Seconds the server stays up with nothing to do (default 600).
IDLE_ENV = "TILEIR_SERVER_IDLE_TIMEOUT"
#: Seconds the client waits for the server's answer before compiling itself (default 900).
TIMEOUT_ENV = "TILEIR_SERVER_TIMEOUT"
#: Concurrent compilations in the server (default: the number of cores).
WORKERS_ENV = "TILEIR_SERVER_WORKERS"
#: `TILEIR_CLIENT_DEBUG=1`: say on stderr why the cache or server was not used.
DEBUG_ENV = "TILEIR_CLIENT_DEBUG"
#: For the tests: a worker waits this many seconds before it compiles (time to kill it).
TEST_DELAY_ENV = "TILEIR_SERVER_TEST_DELAY"
#: Settings of the client itself, not of the compilation: left out of the cache key.
CONTROL_ENV = frozenset(
    {
        SERVER_ENV,
        NO_CACHE_ENV,
        IDLE_ENV,
        TIMEOUT_ENV,
        WORKERS_ENV,
        DEBUG_ENV,
        TEST_DELAY_ENV,
        _cache.DIR_ENV,
        _cache.SIZE_ENV,
        "TILEIR_AS_LOG",  # the client writes the log line of a cached result itself
    }
)

#: 3: a request names its tool (`tileir-opt` sends its standard input after the worker
#: answers); 2: tileir-as requests only.
PROTOCOL = 3
#: The tools the server runs.  tileir-as's runs are cached; tileir-opt's are not (its
#: output is standard output and whatever files its flags name, which no key describes).
AS_TOOL = "tileir-as"
OPT_TOOL = "tileir-opt"
CONNECT_TIMEOUT = 2.0
DEFAULT_IDLE_TIMEOUT = 600.0
DEFAULT_RESULT_TIMEOUT = 900.0

#: tileir's package directory (its sources: the server's identity and the cache key).
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# -- the command line ----------------------------------------------------------------
#: tileir-as's options (tileir/driver/assembler.py make_parser; a test keeps them in
#: step).  An option not listed here makes a command line uncacheable, not wrong.
VALUE_OPTIONS = frozenset(
    {
        "--gpu-name",
        "--arch",
        "-o",
        "--output-file",
        "-O",
        "--opt-level",
        "--preview",
        "-l",
        "--remark-format",
        "--remarks",
        "--remarks-passed",
        "--remarks-missed",
        "--remarks-failed",
        "--remarks-analysis",
        "--remarks-output-file",
        "--emit",
        "--num-warps",
        "--make-tileiras-shim",
        "--server",
    }
)
FLAG_OPTIONS = frozenset(
    {
        "--version",
        "--list-versions",
        "--lineinfo",
        "--device-debug",
        "-g",
        "--verify-each",
        "--no-cache",
        "-h",
        "--help",
    }
)
#: Options whose run is not a compilation (or must not be cached).
UNCACHED_OPTIONS = frozenset(
    {
        "--version",
        "--list-versions",
        "--make-tileiras-shim",
        "--server",
        "--no-cache",
        "-h",
        "--help",
    }
)
#: Options naming a file the compilation writes, and the role the cache keys it by.
OUTPUT_ROLES = {"-o": "output", "--output-file": "output", "--remarks-output-file": "remarks"}
DEFAULT_REMARKS_FILE = "tileir_remarks.yaml"
BYTECODE_MAGIC = b"\x7fTileIR"


class Request:
    """A tileir-as command line as the client sees it: its input, the files it names as
    outputs (by role), whether its result may be cached, and its `--server` command."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.input: str | None = None
        self.outputs: dict[str, str] = {}  # role -> path as given
        #: `-o`'s value as argparse keeps it (the last one; "-" included).
        self.output_arg: str | None = None
        self.cacheable = True
        self.no_cache = False
        self.server: str | None = None
        #: `--help`: argparse fits it to the terminal, which a server's worker has not.
        self.local = False
        #: The command line for the cache key, the outputs already replaced by their
        #: roles; ("input", path) where the input goes (see `key_argv`).
        self._tokens: list[tuple[str, str]] = []
        self._parse()

    def _literal(self, text: str) -> None:
        self._tokens.append(("lit", text))

    def _parse(self) -> None:
        argv = self.argv
        positionals: list[str] = []
        i = 0
        only_positionals = False
        while i < len(argv):
            token = argv[i]
            i += 1
            if only_positionals or token == "-" or not token.startswith("-"):
                positionals.append(token)
                self._tokens.append(("input", token))
                continue
            if token == "--":
                only_positionals = True
                self._literal(token)
                continue
            name, value = token, None
            if token.startswith("--") and "=" in token:
                name, value = token.split("=", 1)
            elif not token.startswith("--") and len(token) > 2:
                name, value = token[:2], token[2:]  # -ofile, -O3, -lPATH
                if name not in VALUE_OPTIONS:  # clustered short flags (-gO3): not worth it
                    self.cacheable = False
                    self._literal(token)
                    continue
            if name in FLAG_OPTIONS:
                if value is not None or name in UNCACHED_OPTIONS:
                    self.cacheable = False
                self.no_cache = self.no_cache or name == "--no-cache"
                self.local = self.local or name in ("-h", "--help")
                self._literal(token)
                continue
            if name not in VALUE_OPTIONS:
                self.cacheable = False  # unknown here (or an error): run it, don't keep it
                self._literal(token)
                continue
            separator = "=" if token.startswith("--") else ""
            if value is None:
                if i >= len(argv):
                    self.cacheable = False
                    self._literal(token)
                    continue
                value = argv[i]
                i += 1
                separator = " "
                if value.startswith("-") and value != "-":
                    self.cacheable = False  # argparse would not take it as the value
            if name in UNCACHED_OPTIONS:
                self.cacheable = False
            if name == "--server":
                self.server = value
            if name in ("-o", "--output-file"):
                self.output_arg = value
            role = OUTPUT_ROLES.get(name)
            if role is not None and value != "-":
                self.outputs[role] = value
                # The path stands for its role; its suffix stays (.ptx: PTX, not a cubin).
                value = f"<{role}{os.path.splitext(value)[1]}>"
            self._literal(f"{name}{separator}{value}")
        if len(positionals) != 1:
            self.cacheable = False
        else:
            self.input = positionals[0]
        self.outputs.setdefault("remarks", DEFAULT_REMARKS_FILE)

    def key_argv(self, input_is_bytecode: bool) -> list[str]:
        """The command line for the cache key.  A bytecode input stands for its role
        (its suffix kept), as the outputs do: the compilation only quotes its path, and a
        result that quotes it is not cached; a text input keeps its absolute path (its
        locations name it)."""
        out: list[str] = []
        for kind, text in self._tokens:
            if kind == "lit":
                out.append(text)
            elif input_is_bytecode:
                out.append(f"<input{os.path.splitext(text)[1]}>")
            else:
                out.append(f"<input {os.path.abspath(text)}>")
        return out


# -- identities: tileir's sources, ptxas -----------------------------------------------
_fingerprint: str | None = None


def source_fingerprint(fresh: bool = False) -> str:
    """A digest of the names, sizes and modification times of tileir's sources (cheap:
    one stat per file, once per process); the server restarts when it changes."""
    global _fingerprint
    known = _fingerprint
    if known is None or fresh:
        # `_sources`, inlined and hashed once: a stat per file is most of it (1.1 ms of
        # a cache hit for ~260 files), the rest was Python's per-file work.
        lines: list[str] = []
        skip = len(PACKAGE_DIR) + 1
        stack = [PACKAGE_DIR]
        while stack:
            try:
                entries = list(os.scandir(stack.pop()))
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                try:
                    if name.endswith(".py") and not entry.is_dir(follow_symlinks=False):
                        st = entry.stat()
                        lines.append(f"{entry.path[skip:]}\0{st.st_size}\0{st.st_mtime_ns}\n")
                    elif name != "__pycache__" and entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                except OSError:
                    continue
        lines.sort()
        known = _fingerprint = _cache.digest("".join(lines).encode())[:32]
    return known


def _sources() -> list[tuple[str, os.stat_result]]:
    found: list[tuple[str, os.stat_result]] = []
    stack = [PACKAGE_DIR]
    skip = len(PACKAGE_DIR) + 1
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    stack.append(entry.path)
            elif entry.name.endswith(".py"):
                try:
                    found.append((entry.path[skip:], entry.stat()))
                except OSError:
                    continue
    found.sort()
    return found


def source_digest() -> str:
    """tileir's version and a digest of the contents of its sources."""
    h = _cache.sha256()
    for rel, _ in _sources():
        with open(os.path.join(PACKAGE_DIR, rel), "rb") as f:
            h.update(rel.encode() + b"\0" + f.read() + b"\0")
    return f"{_tileir_version()}+{h.hexdigest()}"


def _tileir_version() -> str:
    try:
        from importlib.metadata import version

        return version("tileir")
    except Exception:
        return "unknown"


def find_ptxas() -> str | None:
    """tileir.backend.ptx.ptxas.find_ptxas, without its imports (a test keeps the two
    in step)."""
    try:
        import nvidia  # pyright: ignore[reportMissingImports]

        for root in getattr(nvidia, "__path__", []):
            for sub in ("cu13", "cu12", "cuda_nvcc"):
                candidate = os.path.join(root, sub, "bin", "ptxas")
                if os.path.isfile(candidate):
                    return candidate
    except ImportError:
        pass
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if cuda_home and os.path.isfile(os.path.join(cuda_home, "bin", "ptxas")):
        return os.path.join(cuda_home, "bin", "ptxas")
    import shutil

    return shutil.which("ptxas")


def ptxas_identity(store: _cache.ResultCache) -> str:
    """ptxas's path and `--version` (memoized per path, size and mtime)."""
    path = find_ptxas()
    if path is None:
        return "none"
    try:
        st = os.stat(path)
    except OSError:
        return "none"
    memo = "ptxas-" + _cache.digest(f"{path}\0{st.st_size}\0{st.st_mtime_ns}".encode())[:32]
    known = store.memo_get(memo)
    if known is not None:
        return known
    import subprocess

    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        release = proc.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return f"{path} (no version)"
    identity = f"{path}\n{release}"
    store.memo_put(memo, identity)
    return identity


def tileir_identity(store: _cache.ResultCache) -> str:
    fingerprint = source_fingerprint()
    memo = "source-" + fingerprint
    known = store.memo_get(memo)
    if known is None:
        known = source_digest()
        store.memo_put(memo, known)
    return known


def cache_key(request: Request, data: bytes, store: _cache.ResultCache) -> str:
    is_bytecode = data.startswith(BYTECODE_MAGIC) or os.path.splitext(request.input or "")[1] in (
        ".tileirbc",
        ".bc",
    )
    settings = {
        k: v for k, v in os.environ.items() if k.startswith("TILEIR_") and k not in CONTROL_ENV
    }
    material = {
        "cache": 1,
        "tileir": tileir_identity(store),
        "python": sys.version,
        "ptxas": ptxas_identity(store),
        "argv": request.key_argv(is_bytecode),
        "input": _cache.digest(data),
        "env": sorted(settings.items()),
        "streams": _stream_encodings(),
        # `-X importtime` and the like write to stderr, which the entry keeps.
        "xoptions": sorted(f"{k}={v}" for k, v in sys._xoptions.items()),
    }
    # repr, not JSON: `json` imports `re` (a few ms of every hit); the values are
    # strings, numbers and lists of them, whose repr is deterministic.
    return _cache.digest(repr(sorted(material.items())).encode(errors="surrogateescape"))


def _stream_encodings() -> list[str | None]:
    out: list[str | None] = []
    for stream in (sys.stdout, sys.stderr):
        out.extend([getattr(stream, "encoding", None), getattr(stream, "errors", None)])
    return out


# -- running the compiler and recording what it did ------------------------------------
class Recorded:
    """A run's result (`cache.Result`, its outputs keyed by the path written) and the
    paths it wrote that were not regular files."""

    def __init__(self, result: _cache.Result, irregular: list[str]) -> None:
        self.result = result
        self.irregular = irregular


def run_captured(
    argv: list[str], streams: list[str | None] | None = None, tool: str = AS_TOOL
) -> Recorded:
    """Run `tool` (`tileir.driver.assembler`, or `tileir.driver.opt` for tileir-opt) on
    `argv` as its `main()` would, with file descriptors 1 and 2 going to temporary
    files; the result holds what it wrote (and, for tileir-as, the files it wrote).
    `streams` (encoding, errors of stdout, then of stderr) builds fresh sys.stdout and
    sys.stderr on them (the server's worker), else this process's own are used."""
    import tempfile

    ensure_site()
    from tileir.utils import cold_start

    cold_start.install()
    if tool == OPT_TOOL:
        from tileir.driver import opt
        from tileir.driver.errors import guarded

        def run_tool() -> int:
            return guarded(OPT_TOOL, lambda: opt.run(argv))

        assembler = None
    else:
        from tileir.driver import assembler

        assembler._SINGLE_RUN = True
        assembler.RECORD = {"outputs": {}, "log": None}

        def run_tool() -> int:
            return assembler.run(argv)

    captured = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]  # noqa: SIM115 (closed by _read_all)
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    saved_fds = [os.dup(1), os.dup(2)]
    saved_streams = (sys.stdout, sys.stderr)
    os.dup2(captured[0].fileno(), 1)
    os.dup2(captured[1].fileno(), 2)
    if streams is not None:
        sys.stdout = io.TextIOWrapper(
            io.FileIO(1, "w", closefd=False), encoding=streams[0], errors=streams[1]
        )
        sys.stderr = io.TextIOWrapper(
            io.FileIO(2, "w", closefd=False),
            encoding=streams[2],
            errors=streams[3],
            line_buffering=True,
        )
    try:
        try:
            status = run_tool()
        except SystemExit as e:  # --help, an argparse error
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    finally:
        sys.stdout, sys.stderr = saved_streams
        os.dup2(saved_fds[0], 1)
        os.dup2(saved_fds[1], 2)
        for fd in saved_fds:
            os.close(fd)
        record: dict = {"outputs": {}, "log": None}
        if assembler is not None:
            record = assembler.RECORD or record
            assembler.RECORD = None
    out, err = (_read_all(f) for f in captured)
    outputs = {path: data for path, data in record["outputs"].items() if data is not None}
    irregular = [path for path, data in record["outputs"].items() if data is None]
    return Recorded(_cache.Result(status, out, err, outputs, record["log"]), irregular)


def _read_all(f: io.BufferedRandom) -> bytes:
    f.seek(0)
    data = f.read()
    f.close()
    return data


def emit(result: _cache.Result) -> int:
    """Write a result's stdout and stderr to this process's; the exit status: the
    result's, or 1 when its standard output cannot be written (a full disk, a closed
    pipe), reported as the compiler in this process reports it (`tileir/utils/output.py`),
    so that exit 0 always means the output is there."""
    status = result.status
    for fd, data in ((1, result.stdout), (2, result.stderr)):
        stream = sys.stdout if fd == 1 else sys.stderr
        if stream is not None:
            try:  # noqa: SIM105 (no contextlib: it imports collections, ms of a cache hit)
                stream.flush()
            except (OSError, ValueError):
                pass
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view) :]
        except OSError as e:
            if fd == 1 and status == 0:
                status = 1
                message = f"error: cannot write to standard output: {e.strerror or e}\n"
                try:  # noqa: SIM105 (no contextlib: it imports collections, ms of a cache hit)
                    os.write(2, message.encode())
                except OSError:
                    pass
    return status


def cacheable_result(request: Request, recorded: Recorded) -> _cache.Result | None:
    """The result as the cache keeps it (outputs by role), or None when it must not be
    kept: an internal error or crash, a file written that the command line does not
    name as an output (or not a regular file), or a path of this command line quoted
    in what it produced (then another command line would be served the wrong text)."""
    result = recorded.result
    if result.status not in (0, 1) or recorded.irregular:
        return None
    if b"internal compiler error" in result.stderr or b"Traceback" in result.stderr:
        return None
    roles = {os.path.abspath(path): role for role, path in request.outputs.items()}
    by_role: dict[str, bytes] = {}
    for path, data in result.outputs.items():
        role = roles.get(os.path.abspath(path))
        if role is None or role in by_role:
            return None
        by_role[role] = data
    needles = {request.input or ""}
    for path in (request.input, *request.outputs.values()):
        if path:
            needles.update({path, os.path.abspath(path)})
    needles = {n.encode(errors="surrogateescape") for n in needles if len(n) >= 3}
    blobs = [result.stdout, result.stderr, *by_role.values()]
    if any(needle in blob for needle in needles for blob in blobs):
        return None
    return _cache.Result(result.status, result.stdout, result.stderr, by_role, result.log)


def materialize(request: Request, result: _cache.Result) -> bool:
    """Write a cached result's files where this command line wants them; False if it
    could not (then the compilation runs and reports whatever the problem is).  Its
    stdout and stderr are the caller's to `emit`."""
    if not set(result.outputs) <= set(request.outputs):
        return False
    try:
        for role, data in result.outputs.items():
            with open(request.outputs[role], "wb") as f:
                f.write(data)
    except OSError:
        return False
    log = os.environ.get("TILEIR_AS_LOG")
    if log and result.log:
        try:
            with open(log, "a") as f:
                f.write(f"tileir-as {request.input} -> {request.output_arg} {result.log}\n")
        except OSError:
            pass
    return True


# -- the server: where it lives, talking to it ---------------------------------------
def server_enabled() -> bool:
    return os.environ.get(SERVER_ENV, "1").strip().lower() not in ("0", "off", "no", "false")


def cache_enabled() -> bool:
    return os.environ.get(NO_CACHE_ENV, "").strip().lower() in ("", "0", "off", "no", "false")


def install_id() -> str:
    """Which tileir, run by which Python, a server is: one server per installation."""
    ident = f"{PACKAGE_DIR}\0{os.path.abspath(sys.executable)}\0{sys.version}"
    return _cache.digest(ident.encode())[:16]


class ServerPaths:
    """The socket, lock and log of this installation's server.  Their names carry the
    protocol: a server of an older protocol (a tileir upgraded under it) keeps its own
    socket until its idle timeout, and a server of this one starts beside it; sharing
    the name, the old server would close every request it cannot read, and stay up."""

    def __init__(self, directory: str) -> None:
        ident = f"{install_id()}-{PROTOCOL}"
        self.directory = directory
        self.socket = os.path.join(directory, f"server-{ident}.sock")
        self.lock = os.path.join(directory, f"server-{ident}.lock")
        self.log = os.path.join(directory, f"server-{ident}.log")


def server_paths() -> ServerPaths | None:
    """The server's socket, lock and log, in a directory only this user can enter
    (`$XDG_RUNTIME_DIR/tileir`, else the cache directory's `run/`); None if there is
    no such directory (then there is no server)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        directory = os.path.join(runtime, "tileir")
    else:
        directory = os.path.join(_cache.cache_dir(), "run")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        st = os.lstat(directory)
    except OSError as e:
        _debug(f"no server: cannot make {directory}: {e}")
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        _debug(f"no server: {directory} is not a private directory of this user")
        return None
    paths = ServerPaths(directory)
    if len(paths.socket.encode()) > 100:  # sun_path holds 108 bytes
        _debug(f"no server: the socket path {paths.socket} is too long")
        return None
    return paths


def peer_uid(sock: "_socket.socket") -> int | None:
    """The user id of the process at the other end of a unix socket (SO_PEERCRED: a
    `struct ucred`, three native 32-bit integers: pid, uid, gid)."""
    import _socket

    try:
        creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    except (OSError, AttributeError):
        return None
    return int.from_bytes(creds[4:8], sys.byteorder)


def send_frame(sock: "_socket.socket", payload: bytes) -> None:
    sock.sendall(len(payload).to_bytes(4, "little") + payload)


def recv_exact(sock: "_socket.socket", n: int) -> bytes:
    chunks: list[bytes] = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("the server closed the connection")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def recv_frame(sock: "_socket.socket", limit: int = 1 << 31) -> bytes:
    n = int.from_bytes(recv_exact(sock, 4), "little")
    if n > limit:
        raise ConnectionError("oversized frame")
    return recv_exact(sock, n)


def send_message(sock: "_socket.socket", message: dict) -> None:
    """A request or reply: a dict of strings, numbers, lists and dicts of them, as a
    `marshal` frame (client and server are the same Python: the socket's name says
    which; `json` would cost the client the import of `re`)."""
    send_frame(sock, marshal.dumps(message))


def recv_message(sock: "_socket.socket", limit: int = 1 << 20) -> dict:
    """The next message; ValueError (or EOFError, TypeError) if it is not one."""
    message = marshal.loads(recv_frame(sock, limit))
    if not isinstance(message, dict):
        raise ValueError("not a message")
    return message


def connect(paths: ServerPaths, timeout: float = CONNECT_TIMEOUT) -> "_socket.socket | None":
    """A connection to this user's server, or None (none listening, or not ours).  The
    `_socket` type itself: the `socket` module imports `enum` and `selectors`, 5 ms of
    every request's start."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(paths.socket)
    except OSError as e:
        sock.close()
        _debug(f"no server at {paths.socket}: {e}")
        return None
    if peer_uid(sock) != os.getuid():
        sock.close()
        _debug("the server's socket belongs to another user: not used")
        return None
    return sock


def server_alive(paths: ServerPaths) -> bool:
    """Whether a server holds the lock (running, or starting)."""
    import fcntl

    try:
        fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def spawn_server(paths: ServerPaths) -> bool:
    """Start a server in the background unless one runs (or is starting)."""
    if server_alive(paths):
        return False
    import subprocess

    try:
        subprocess.Popen(
            [sys.executable, "-m", "tileir.driver.server", "--dir", paths.directory],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            close_fds=True,
            start_new_session=True,
        )
    except OSError as e:
        _debug(f"cannot start the server: {e}")
        return False
    _debug("started the server")
    return True


def result_timeout() -> float:
    try:
        return float(os.environ.get(TIMEOUT_ENV, DEFAULT_RESULT_TIMEOUT))
    except ValueError:
        return DEFAULT_RESULT_TIMEOUT


def compile_on_server(argv: list[str], paths: ServerPaths, tool: str = AS_TOOL) -> Recorded | None:
    """Have the server run `tool` on `argv` here, or None if it could not give a whole
    answer (then nothing it did counts: the caller compiles, rewriting any output).
    tileir-opt's worker reads this process's standard input itself (`_send_stdin`); if
    the worker then dies, the input it may have read cannot be read again unless it is
    a regular file (rewound here), and the answer is an error that says so."""
    sock = connect(paths)
    if sock is None:
        spawn_server(paths)
        return None
    worker: int | None = None
    stdin_at: int | None = None  # where a regular file's standard input was handed over
    stdin_sent = False
    try:
        umask = os.umask(0o022)
        os.umask(umask)
        request = {
            "op": "compile",
            "protocol": PROTOCOL,
            "tool": tool,
            "fingerprint": source_fingerprint(),
            "argv": argv,
            "cwd": os.getcwd(),
            "env": dict(os.environ),
            "umask": umask,
            "streams": _stream_encodings(),
        }
        send_message(sock, request)
        sock.settimeout(result_timeout())
        reply = recv_message(sock)
        if "worker" not in reply:
            _debug(f"the server declined: {reply.get('error')}")
            if reply.get("error") == "stale":
                spawn_server(paths)  # after the old one has gone (else the next call)
            return None
        worker = int(reply["worker"])
        if tool == OPT_TOOL:
            stdin_at = _stdin_offset()
            stdin_sent = _send_stdin(sock)
        meta = recv_message(sock)
        result = _cache.Result.decode(recv_frame(sock))
        if result is None:
            raise ConnectionError("a damaged result")
        return Recorded(result, list(meta.get("irregular", [])))
    except KeyboardInterrupt:
        _kill(worker)
        raise
    except (OSError, ValueError, EOFError, KeyError, TypeError, ConnectionError) as e:
        # The server (or its worker) died, hung or garbled the answer: compile here.
        _kill(worker)
        _debug(f"no answer from the server ({type(e).__name__}: {e}): compiling in-process")
        if stdin_sent and not _rewind_stdin(stdin_at):
            message = (
                f"{tool}: error: the compile server's worker ended before it answered, "
                "after it was given standard input, which cannot be read again; run the "
                f"command again (TILEIR_SERVER=0: {tool} without the server)\n"
            )
            return Recorded(_cache.Result(1, b"", message.encode(), {}, None), [])
        return None
    finally:
        sock.close()


def _stdin_offset() -> int | None:
    """The offset of standard input if it is a regular file (which a failed request can
    rewind to), else None."""
    try:
        if stat.S_ISREG(os.fstat(0).st_mode):
            return os.lseek(0, 0, os.SEEK_CUR)
    except OSError:
        pass
    return None


def _rewind_stdin(offset: int | None) -> bool:
    if offset is None:
        return False
    try:
        os.lseek(0, offset, os.SEEK_SET)
    except OSError:
        return False
    return True


def _send_stdin(sock: "_socket.socket") -> bool:
    """Hand this process's standard input to the worker (its file descriptor, over the
    unix socket), so that it reads what this process would, as it comes; or say there
    is none (closed).  True if it was handed over."""
    import _socket

    if sys.stdin is None:  # descriptor 0 was closed when Python started (now maybe reused)
        send_frame(sock, b"")  # no standard input: the worker runs without one too
        return False
    fds = (0).to_bytes(4, sys.byteorder)  # one C int: SCM_RIGHTS's array of descriptors
    payload = (0).to_bytes(4, "little")  # an empty frame, carrying the descriptor
    sock.sendmsg([payload], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    return True


def _kill(pid: int | None) -> None:
    if pid:
        import signal

        try:  # noqa: SIM105 (no contextlib: it imports collections, ms of a cache hit)
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def server_request(paths: ServerPaths, op: str) -> dict | None:
    sock = connect(paths)
    if sock is None:
        return None
    try:
        send_message(sock, {"op": op, "protocol": PROTOCOL})
        sock.settimeout(10)
        return recv_message(sock)
    except (OSError, ValueError, EOFError, TypeError, ConnectionError):
        return None
    finally:
        sock.close()


def server_command(command: str) -> int:
    """`tileir-as --server status|stop|start`."""
    paths = server_paths()
    if paths is None:
        print("tileir-as: no private directory for the server's socket", file=sys.stderr)
        return 1
    if command == "status":
        info = server_request(paths, "status")
        if info is None:
            print(f"tileir-as server: not running (socket {paths.socket})")
            return 1
        print(
            f"tileir-as server: running, pid {info['pid']}, up {info['uptime']:.0f} s, "
            f"{info['served']} compilations, {info['busy']} running, "
            f"{info['workers']} workers at most, idle timeout {info['idle_timeout']:.0f} s\n"
            f"socket {paths.socket}\nlog {paths.log}"
        )
        return 0
    if command == "stop":
        # A server still warming up holds its lock but does not listen yet: ask again
        # until it answers, or has gone.
        was_running = server_alive(paths)
        asked = False
        deadline = time.monotonic() + 30
        while server_alive(paths) and time.monotonic() < deadline:
            if not asked:
                asked = server_request(paths, "stop") is not None
            time.sleep(0.02)
        if server_alive(paths):
            print("tileir-as server: did not stop within 30 s", file=sys.stderr)
            return 1
        print("tileir-as server: stopped" if was_running else "tileir-as server: not running")
        return 0
    if command == "start":
        spawn_server(paths)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            info = server_request(paths, "status")
            if info is not None:
                print(f"tileir-as server: running, pid {info['pid']}")
                return 0
            time.sleep(0.05)
        print(f"tileir-as server: did not start (see {paths.log})", file=sys.stderr)
        return 1
    print(f"tileir-as: error: unknown server command '{command}'", file=sys.stderr)
    return 1


#: The tool this process runs as (the prefix of `_debug`'s lines).
_tool = AS_TOOL


def _debug(message: str) -> None:
    if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
        print(f"{_tool}: {message}", file=sys.stderr)


# -- the entry point -------------------------------------------------------------------
def run(argv: list[str]) -> int:
    request = Request(argv)
    if request.server is not None:
        return server_command(request.server)
    use_server = server_enabled() and not request.local
    store = key = None
    if request.cacheable and not request.no_cache and cache_enabled():
        data = _read_input(request.input)
        if data is not None:
            store = _cache.ResultCache()
            try:
                key = cache_key(request, data, store)
            except OSError as e:
                _debug(f"no cache key: {e}")
                key = None
            if key is not None:
                hit = store.get(key)
                if hit is not None and materialize(request, hit):
                    _debug("cache hit")
                    return emit(hit)
    paths = server_paths() if use_server else None
    recorded = compile_on_server(argv, paths) if paths is not None else None
    if recorded is not None:
        status = emit(recorded.result)
    elif key is None:
        return _in_process(argv)  # exactly tileir-as without client, server or cache
    else:
        recorded = run_captured(argv)
        status = emit(recorded.result)
    if store is not None and key is not None:
        kept = cacheable_result(request, recorded)
        if kept is not None:
            store.put(key, kept)
    return status


def run_opt(argv: list[str]) -> int | None:
    """`tileir-opt`'s client (tileir/driver/opt_entry.py): the command run by the
    server's worker, which answers with its stdout, stderr and exit status (the files
    its flags name it writes itself, in this directory); None when there is no server
    to run it (then the caller runs tileir-opt in this process, and the first call
    starts the server meanwhile, as tileir-as's does).  No result cache: a tileir-opt
    command line does not say which files it reads and writes."""
    global _tool
    _tool = OPT_TOOL
    if not server_enabled() or any(arg in ("-h", "--help") for arg in argv):
        return None  # --help is fitted to this terminal, which a worker has not
    paths = server_paths()
    if paths is None:
        return None
    recorded = compile_on_server(argv, paths, OPT_TOOL)
    if recorded is None:
        return None
    return emit(recorded.result)


def _read_input(path: str | None) -> bytes | None:
    """The input's bytes, if it is a non-empty regular file (else the compilation
    reports the problem, uncached)."""
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            data = f.read()
    except OSError:
        return None
    return data or None


def _in_process(argv: list[str]) -> int:
    ensure_site()
    from tileir.utils import cold_start

    cold_start.install()
    from tileir.driver import assembler

    assembler._SINGLE_RUN = True
    return assembler.run(argv)


def ensure_site() -> None:
    """Run `site` if this Python started without it (the tileiras shim starts the client
    with `-S`, tileir/driver/launch.py) before the compiler is imported here: its
    imports, and so its output, are those of a Python that ran `site`."""
    if sys.flags.no_site and "site" not in sys.modules:
        import site

        site.main()


def main() -> None:
    try:
        status = run(sys.argv[1:])
    except KeyboardInterrupt:
        print("tileir-as: interrupted", file=sys.stderr)
        status = 130
    exit_at_once(status)
    sys.exit(status)


def exit_at_once(status: int) -> None:
    """End this process now, without the interpreter's finalization (tearing down every
    module, a last collection: 1-1.5 ms of a cache hit, a tenth of it, and 30 ms of a
    compilation in this process, whose heap holds xDSL and the compiler), once what it
    would do that matters is done here: the standard streams flushed and the `atexit`
    handlers run.  Returns instead (and the caller exits as Python does) while another
    thread runs, which Python would wait for, or when a stream cannot be flushed, which
    Python reports its own way."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return
    if not _flush_streams():
        return
    import atexit  # built in: no import cost

    atexit._run_exitfuncs()  # pyright: ignore[reportAttributeAccessIssue]  (and forgets them)
    if _flush_streams():
        os._exit(status)


def _flush_streams() -> bool:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError):
                return False
    return True


if __name__ == "__main__":
    main()
