"""The warm compile server behind `tileir-as` (docs/cli.md, "The compile server").

    python -m tileir.driver.server --dir DIR      # what the client starts, detached

One per user and installation (tileir/driver/client.py names its socket, lock and log
in a private 0700 directory).  It imports the compiler and compiles a small kernel
once, freezes what that built for the garbage collector, and then, for each request
(a tool, a command line, a directory, an environment), forks a worker that runs
`tileir.driver.assembler` (tileir-as) or `tileir.driver.opt` (tileir-opt, reading the
client's standard input, passed over the socket) in the client's directory and
environment and sends back the exit status, stdout, stderr and the files it wrote: a
fresh process's run without the start-up.  Workers run in parallel, as many as there
are cores (`TILEIR_SERVER_WORKERS`); further requests wait their turn, except
tileir-opt's, which start at once and count against no limit (`Server.readers`).

While it has nothing to do, the server keeps one worker forked ahead (the *spare*,
`Spare`), which prepares itself and waits: the next request goes to it, and it
compiles in a process that has already paid for its own existence.  A forked worker
shares the server's heap copy-on-write, and a compilation writes (reference counts,
the collector's headers) to pages all over it: a worker forked at the request took
about 4,000 page faults and 10-15 ms more CPU to compile a small kernel than the same
compilation in a process that had run once before (49 ms against 40 ms for
`x_unary_log2_f32`).  The spare takes those faults before the request, by one
collection over the whole heap (`prepare_spare`; 35-40 ms of CPU while the machine
would otherwise wait), and the fork itself (1-2 ms) is off the request's path too.

It serves only its own user (SO_PEERCRED on every connection; a unix socket, never
TCP), refuses requests from a client whose tileir sources differ from its own (and
then exits, so that the next call starts a server of the new sources), and exits after
`TILEIR_SERVER_IDLE_TIMEOUT` seconds (600) without a request, or on
`tileir-as --server stop` or SIGTERM.  One server holds the lock file for its lifetime;
a second one started meanwhile exits at once, and a socket left by a killed server is
replaced.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import fcntl
import gc
import os
import select
import signal
import socket
import sys
import tempfile
import time
import traceback

from tileir.driver import client
from tileir.utils import cold_start, plain_isinstance

#: A small kernel compiled once at start-up: it imports what the compiler imports lazily
#: and fills its caches before the first request forks a worker.
WARM_UP_KERNEL = """\
entry @warm_up(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<ptr<f32>>) {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg2 : tile<ptr<f32>>
  %n = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %tview_1 = make_tensor_view %assume_0, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %x, %y, %z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(128), padding_value = zero, tensor_view<?xf32, strides=[1]>>
  %tile, %token = load_view_tko weak %pview[%x] token = %0 : partition_view<tile=(128), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
  %1 = addf %tile, %tile : tile<128xf32>
  %pview_2 = make_partition_view %tview_1 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %2 = store_view_tko weak %1, %pview_2[%x] token = %0 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
"""

#: Corpus kernels (tests/corpus, copied into `warm_up/`) the warm-up compiles, per
#: target: the common paths for Hopper (elementwise, a wgmma GEMM, reductions, a scan,
#: gathers and scatters, atomics, branches and loops, a transpose through shared
#: memory), and the engines that differ for Ampere (mma.sync) and Blackwell (tcgen05).
#: About 1 s of CPU at the server's start; 6-9% of a request's compilation after it.
WARM_UP_KERNELS: dict[str, tuple[str, ...]] = {
    "sm_90": (
        "vadd_f32",
        "gemm_f16",
        "softmax_f32_2d",
        "gather_scatter_f32",
        "control_flow_f32",
        "cumsum_f32",
        "histogram_atomics",
        "transpose_f32_2d",
    ),
    "sm_80": ("gemm_f16", "softmax_f32_2d"),
    "sm_100a": ("gemm_f16", "softmax_f32_2d"),
}
WARM_UP_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "warm_up")


class Server:
    def __init__(self, paths: client.ServerPaths, idle_timeout: float, workers: int) -> None:
        self.paths = paths
        self.idle_timeout = idle_timeout
        self.max_workers = max(1, workers)
        self.fingerprint = client.source_fingerprint(fresh=True)
        self.started = time.monotonic()
        self.last_activity = self.started
        self.children: dict[int, float] = {}
        #: Workers of tileir-opt requests: each reads its client's standard input, which
        #: may be the output of another request in the same shell pipeline
        #: (`tileir-opt a.mlir | tileir-opt -p ...`), so they wait for no free slot and
        #: hold none (a pipeline whose second half held the slots its first half waits
        #: for would never end), as many as the client processes themselves would be.
        self.readers: set[int] = set()
        self.queue: list[tuple[socket.socket, dict]] = []
        self.served = 0
        self.stopping = False
        self.listener: socket.socket | None = None
        self.lock_fd = -1
        self.wake_r, self.wake_w = -1, -1
        self.spare: Spare | None = None
        #: The last request handed to a worker: the next spare prelaunches its ptxas.
        self.last_request: dict | None = None

    # -- life ------------------------------------------------------------------------
    def acquire_lock(self) -> bool:
        self.lock_fd = os.open(self.paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self.lock_fd)
            return False
        os.ftruncate(self.lock_fd, 0)
        os.write(self.lock_fd, f"{os.getpid()}\n".encode())
        return True

    def warm_up(self) -> None:
        """Import the compiler and compile kernels to PTX (not to a cubin: no ptxas run),
        so that workers start warm: a small kernel written as MLIR text for two targets,
        then `WARM_UP_KERNELS`.  A worker inherits what the compilations left behind:
        the op shapes and verified signatures they remembered (`tileir/utils/op_shapes.py`,
        `verified_signatures.py`), and Python's specialization of the bytecode of every
        path they ran (the interpreter rewrites an instruction for the types it meets
        there): a request then runs warm code from its first op.  The fast paths of a
        compiling process are installed first, so that the code is specialized for
        them."""
        from tileir.backend.ptx import ptxas
        from tileir.driver import assembler
        from tileir.utils import fast_ir

        plain_isinstance.install()  # as a single run has it (tileir-as's importing_the_compiler)
        fast_ir.install()  # the same
        _memoize_ptxas_release(ptxas)
        with tempfile.TemporaryDirectory(prefix="tileir-server-") as tmp:
            source = os.path.join(tmp, "warm_up.mlir")
            with open(source, "w") as f:
                f.write(WARM_UP_KERNEL)
            runs = [(source, arch) for arch in ("sm_80", "sm_90")]
            for arch, names in WARM_UP_KERNELS.items():
                runs += [(os.path.join(WARM_UP_DIR, f"{name}.tileirbc"), arch) for name in names]
            for kernel, arch in runs:
                out = os.path.join(tmp, "warm_up.ptx")
                status = assembler.run([kernel, "--gpu-name", arch, "-o", out])
                if status != 0:
                    print(
                        f"warm-up compile of {kernel} for {arch} failed ({status})", file=sys.stderr
                    )
            # tileir-opt's driver (xDSL's option parsing, the pass registry), once.
            from tileir.driver import opt

            out = os.path.join(tmp, "warm_up.mlir.out")
            status = opt.run([source, "-p", "convert-cuda-tile-to-tileaa", "-o", out])
            if status != 0:
                print(f"warm-up tileir-opt run failed ({status})", file=sys.stderr)
        # The warm-up wrote PTX, so nothing asked ptxas's release yet: ask it here, or every
        # worker runs `ptxas --version` (10-30 ms) and forgets the answer when it exits.
        found = ptxas.find_ptxas()
        if found is not None:
            ptxas.ptxas_supports_tile_language(found)
        gc.collect()
        gc.freeze()  # the workers' collections leave the warm heap alone (and unshared pages)

    def listen(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.paths.socket)  # a socket left by a killed server
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            listener.bind(self.paths.socket)
        finally:
            os.umask(old)
        listener.listen(128)
        listener.setblocking(False)
        self.listener = listener
        self.socket_ino = os.stat(self.paths.socket).st_ino

    def close_listener(self) -> None:
        if self.listener is None:
            return
        self.listener.close()
        self.listener = None
        try:  # remove the socket if it is still ours
            if os.stat(self.paths.socket).st_ino == self.socket_ino:
                os.unlink(self.paths.socket)
        except OSError:
            pass

    def serve(self) -> int:
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, self._on_term)
        signal.signal(signal.SIGINT, self._on_term)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        print(f"serving on {self.paths.socket}, pid {os.getpid()}", file=sys.stderr, flush=True)
        self.last_activity = time.monotonic()  # idle from now, not from before the warm-up
        while True:
            self.reap()
            while self.queue and len(self.children) - len(self.readers) < self.max_workers:
                conn, request = self.queue.pop(0)
                self.dispatch(conn, request)
            busy = bool(self.children or self.queue)
            if not busy and not self.stopping and self.spare is None:
                self.fork_spare()  # while nothing else wants the cores
            if busy:
                self.last_activity = time.monotonic()
            if self.stopping and not busy:
                break
            idle = time.monotonic() - self.last_activity
            if not busy and idle >= self.idle_timeout:
                print("idle timeout: exiting", file=sys.stderr, flush=True)
                break
            readable = [self.wake_r]
            if self.listener is not None:
                readable.append(self.listener.fileno())
            wait = 1.0 if busy else max(0.01, min(5.0, self.idle_timeout - idle))
            try:
                ready, _, _ = select.select(readable, [], [], wait)
            except InterruptedError:
                continue
            if self.wake_r in ready:
                try:
                    while os.read(self.wake_r, 512):
                        pass
                except BlockingIOError:
                    pass
            if self.listener is not None and self.listener.fileno() in ready:
                self.accept()
        self.close_listener()
        self.retire_spare()
        return 0

    def _on_term(self, *_: object) -> None:
        self.stopping = True
        self.close_listener()

    def reap(self) -> None:
        while self.children:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            self.children.pop(pid, None)
            self.readers.discard(pid)
            if self.spare is not None and self.spare.pid == pid:  # it died waiting
                self.spare.channel.close()
                self.spare = None

    # -- requests --------------------------------------------------------------------
    def accept(self) -> None:
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            print(f"accept: {e}", file=sys.stderr, flush=True)
            return
        self.last_activity = time.monotonic()
        conn.setblocking(True)
        conn.settimeout(5.0)
        try:
            if client.peer_uid(conn) != os.getuid():
                print("refused a connection from another user", file=sys.stderr, flush=True)
                conn.close()
                return
            request = client.recv_message(conn, 16 << 20)
            op = request.get("op")
            if request.get("protocol") != client.PROTOCOL:
                self.reply(conn, {"error": "protocol"})
            elif op == "status":
                self.reply(conn, self.status())
            elif op == "stop":
                self.stopping = True
                self.reply(conn, {"stopping": True, "pid": os.getpid()})
                self.close_listener()
            elif op == "compile":
                if request.get("fingerprint") != self.fingerprint:
                    # tileir changed since this server started: make way for a new one.
                    print("sources changed: exiting", file=sys.stderr, flush=True)
                    self.reply(conn, {"error": "stale"})
                    self.stopping = True
                    self.close_listener()
                elif self.stopping:
                    self.reply(conn, {"error": "stopping"})
                elif request.get("tool") == client.OPT_TOOL:
                    self.dispatch(conn, request)  # at once: `readers`
                    return  # the worker answers
                else:
                    self.queue.append((conn, request))
                    return  # the worker answers
            else:
                self.reply(conn, {"error": f"unknown op {op!r}"})
        except (OSError, ValueError, EOFError, TypeError, ConnectionError) as e:
            print(f"bad request: {e}", file=sys.stderr, flush=True)
        conn.close()

    def reply(self, conn: socket.socket, message: dict) -> None:
        with contextlib.suppress(OSError):
            client.send_message(conn, message)

    def status(self) -> dict:
        return {
            "pid": os.getpid(),
            "uptime": time.monotonic() - self.started,
            "served": self.served,
            "busy": len(self.children),
            "queued": len(self.queue),
            "workers": self.max_workers,
            "idle_timeout": self.idle_timeout,
            "fingerprint": self.fingerprint,
            "worker_pids": sorted(self.children),
            "spare_pid": self.spare.pid if self.spare is not None else None,
        }

    def dispatch(self, conn: socket.socket, request: dict) -> None:
        """Hand a request to the spare worker, or (none, or it is gone) to a worker
        forked now."""
        spare, self.spare = self.spare, None
        if request.get("tool", client.AS_TOOL) == client.AS_TOOL:
            self.last_request = request  # the next spare starts its ptxas (tileir-opt runs none)
        if spare is not None:
            try:
                socket.send_fds(spare.channel, [b"R"], [conn.fileno()])
                client.send_message(spare.channel, request)
            except OSError as e:
                print(f"spare worker: {e}", file=sys.stderr, flush=True)
                with contextlib.suppress(OSError):
                    os.kill(spare.pid, signal.SIGKILL)  # reaped by `reap`
            else:
                self.served += 1
                self.started_worker(spare.pid, request)
                conn.close()
                return
            finally:
                spare.channel.close()
        self.fork_worker(conn, request)

    def started_worker(self, pid: int, request: dict) -> None:
        self.children[pid] = time.monotonic()
        if request.get("tool") == client.OPT_TOOL:
            self.readers.add(pid)

    def fork_spare(self) -> None:
        """Fork the worker the next request goes to (`Spare`)."""
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            pid = os.fork()
        except OSError as e:
            print(f"fork: {e}", file=sys.stderr, flush=True)
            parent_end.close()
            child_end.close()
            return
        if pid == 0:
            code = 1
            try:
                parent_end.close()
                self._become_worker()
                code = spare_worker(child_end, self.last_request)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        child_end.close()
        self.spare = Spare(pid, parent_end)

    def retire_spare(self) -> None:
        """Let the spare go: it reads the end of its channel and exits."""
        if self.spare is not None:
            self.spare.channel.close()
            self.spare = None

    def fork_worker(self, conn: socket.socket, request: dict) -> None:
        self.served += 1
        try:
            pid = os.fork()
        except OSError as e:
            print(f"fork: {e}", file=sys.stderr, flush=True)
            self.reply(conn, {"error": "fork failed"})
            conn.close()
            return
        if pid == 0:
            code = 1
            try:
                self._become_worker()
                code = worker(conn, request)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        self.started_worker(pid, request)
        conn.close()

    def _become_worker(self) -> None:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        for fd in (self.wake_r, self.wake_w, self.lock_fd):
            os.close(fd)  # the lock must go with the server, not outlive it in a worker
        if self.listener is not None:
            self.listener.close()
        for other, _ in self.queue:
            other.close()
        if self.spare is not None:
            self.spare.channel.close()  # the spare's channel is the server's alone


class Spare:
    """A worker forked before its request (the module's docstring): its pid, and the
    server's end of the channel the request comes through."""

    def __init__(self, pid: int, channel: socket.socket) -> None:
        self.pid = pid
        self.channel = channel


def prepare_spare() -> None:
    """Take the copy-on-write faults a compilation would take, before it: one
    collection over the whole heap writes to the header of every object the collector
    tracks (the server froze them, so that the workers' own collections leave them
    alone; they are frozen again after)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def spare_worker(channel: socket.socket, previous: dict | None = None) -> int:
    """Prepare, then wait for a request: the client's connection (passed as a file
    descriptor) and the request, or the end of the channel (the server is gone or
    let this spare go).  With the `previous` request's directory, environment and
    umask, the spare starts the ptxas that request ran (`assembler.prelaunch_ptxas`):
    the next request, if it would start the same, takes it with its start-up done."""
    prepare_spare()
    if previous is not None:
        _prelaunch_ptxas(previous)
    try:
        _, fds, _, _ = socket.recv_fds(channel, 16, 1)
    except OSError:
        fds = []
    if not fds:
        from tileir.driver import assembler

        assembler.drop_prelaunched()  # no request: ptxas and its temporary directory go
        return 0
    conn = socket.socket(fileno=fds[0])
    request = client.recv_message(channel, 16 << 20)
    channel.close()
    return worker(conn, request)


def worker(conn: socket.socket, request: dict) -> int:
    """Run one command line as the client's process would and send the answer."""
    conn.settimeout(60.0)
    tool = request.get("tool", client.AS_TOOL)
    if tool not in (client.AS_TOOL, client.OPT_TOOL):
        raise ValueError(f"unknown tool {tool!r}")
    client.send_message(conn, {"worker": os.getpid()})
    if tool == client.OPT_TOOL:
        _take_stdin(conn)
    _adopt(request)
    sys.argv = [tool, *request["argv"]]
    delay = os.environ.get(client.TEST_DELAY_ENV)
    if delay:
        time.sleep(float(delay))
    try:
        recorded = client.run_captured(list(request["argv"]), list(request["streams"]), tool)
    finally:
        from tileir.driver import assembler

        assembler.drop_prelaunched()  # one the request did not take (it wanted PTX)
    client.send_message(conn, {"irregular": recorded.irregular})
    client.send_frame(conn, recorded.result.encode())
    conn.close()
    return 0


def _take_stdin(conn: socket.socket) -> None:
    """The client's standard input as this worker's (`client._send_stdin`): its file
    descriptor becomes descriptor 0 and `sys.stdin` reads it; without one (the client's
    was closed) this worker has none either, as Python leaves `sys.stdin` then."""
    import io

    data, fds, _, _ = socket.recv_fds(conn, 4, 1)
    if len(data) < 4:
        data += client.recv_exact(conn, 4 - len(data))
    if int.from_bytes(data, "little") != 0:
        raise ValueError("expected the standard input frame")
    if fds:
        os.dup2(fds[0], 0)
        os.close(fds[0])
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)))
    else:
        os.close(0)
        sys.stdin = None  # pyright: ignore[reportAttributeAccessIssue]  (as Python does)


def _adopt(request: dict) -> None:
    """Take a request's directory, umask and environment, as the client's process has
    them."""
    os.chdir(request["cwd"])
    os.umask(int(request["umask"]))
    os.environ.clear()
    os.environ.update(request["env"])


def _prelaunch_ptxas(previous: dict) -> None:
    """`assembler.prelaunch_ptxas` for the previous request's command line, in its
    directory and environment (nothing if that directory is gone)."""
    from tileir.driver import assembler

    try:
        _adopt(previous)
    except (OSError, KeyError, TypeError, ValueError):
        return
    assembler.prelaunch_ptxas(list(previous["argv"]))


def _memoize_ptxas_release(ptxas: object) -> None:
    """`ptxas --version` runs in every compilation (does this ptxas take `.language`?);
    the server asks once per ptxas binary (path, size and modification time)."""
    original = ptxas.ptxas_release  # type: ignore[attr-defined]
    known: dict[tuple[str, int, int], str | None] = {}

    def ptxas_release(path: str) -> str | None:
        try:
            st = os.stat(path)
        except OSError:
            return original(path)
        key = (path, st.st_size, st.st_mtime_ns)
        if key not in known:
            known[key] = original(path)
        return known[key]

    ptxas.ptxas_release = ptxas_release  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tileir.driver.server")
    parser.add_argument("--dir", required=True, help="the private directory of the socket")
    args = parser.parse_args(argv)
    paths = client.ServerPaths(args.dir)
    try:
        idle = float(os.environ.get(client.IDLE_ENV, client.DEFAULT_IDLE_TIMEOUT))
    except ValueError:
        idle = client.DEFAULT_IDLE_TIMEOUT
    try:
        workers = int(os.environ.get(client.WORKERS_ENV, "0")) or (os.cpu_count() or 1)
    except ValueError:
        workers = os.cpu_count() or 1
    server = Server(paths, idle, workers)
    if not server.acquire_lock():
        return 0  # another server runs (or is starting)
    # stderr (and stdout) to the log: the client started this with both on /dev/null.
    try:
        log = os.open(paths.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
    except OSError:
        pass
    # Its imports take the dataclasses' code from the start-up table, as a cold
    # tileir-as does (tileir/utils/cold_start.py), and write it if it learned a text
    # before the first worker forks (the workers end with os._exit).
    table = cold_start.install_code_cache()
    try:
        server.warm_up()
        if table is not None:
            table.save()
        server.listen()
    except OSError as e:
        if e.errno != errno.EADDRINUSE:
            raise
        return 1
    return server.serve()


if __name__ == "__main__":
    sys.exit(main())
