"""The result cache of `tileir-as`: a compilation's outputs kept under a digest of
everything that decides them, so that compiling the same kernel again (cuTile's
version probe, an autotuner revisiting a configuration, a test suite run twice) costs a
file read instead of a compilation.  docs/cli.md ("The result cache") describes it.

Standard library only: the client (tileir/driver/client.py) consults it before it
imports the compiler.

Layout, under `$TILEIR_CACHE_DIR`, else `$XDG_CACHE_HOME/tileir`, else
`~/.cache/tileir` (a 0700 directory):

    entries/ab/abcdef...   one file per result (the key's hex digest names it)
    meta/                  memos: tileir's source digest, ptxas's version
    tmp/                   files being written (renamed into place when whole)

An entry is `MAGIC`, the body's length, the body (a header: its length, then the
`marshal`led status, lengths, output roles and log line; then stdout, stderr and each
output file's bytes) and the body's SHA-256.  (`marshal`, not JSON: importing `json`
imports `re`, a few ms of every cache hit; an entry is read only after its digest
matched, and the key names the Python version, whose `marshal` wrote it.)
A reader that finds anything else (a truncated, corrupted or foreign file) treats it as
a miss and deletes it: the compilation runs again and rewrites it.  Writers write a
private temporary file and `os.replace` it into place, so that a reader sees a whole
entry or none, whichever of several concurrent writers wins.  A hit touches the entry's
mtime; when the entries outgrow the size bound, the least recently used go first.
Every failure to write (a full disk, a read-only directory) is ignored: the cache
only ever saves time.
"""

# No `from __future__ import annotations` (tileir/driver/client.py says why).
import marshal
import os
import sys
import time

# hashlib's OpenSSL start-up is a few ms of every cache hit; the built-in SHA-256 is not.
# The module this Python has is tried first (a failed import is 0.1 ms of every hit).
try:
    if sys.version_info >= (3, 12):
        from _sha2 import sha256  # type: ignore[import-not-found]
    else:
        from _sha256 import sha256  # type: ignore[import-not-found,no-redef]
except ImportError:  # pragma: no cover
    from hashlib import sha256  # type: ignore[assignment]

MAGIC = b"TILEIR-CACHE-2\n"
#: `TILEIR_CACHE_DIR`: where the cache lives (default: `$XDG_CACHE_HOME/tileir`).
DIR_ENV = "TILEIR_CACHE_DIR"
#: `TILEIR_CACHE_SIZE`: the bound on the entries' total size (bytes, or with K/M/G).
SIZE_ENV = "TILEIR_CACHE_SIZE"
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
#: Eviction brings the total down to this fraction of the bound (so that it does not
#: run again on the next store).
EVICT_TO = 0.8
#: Stores between two scans of the entries at most.  A scan stats every entry (5,000
#: entries: ~30 ms, on the way out of every compilation that missed); between scans a
#: store adds its bytes to the total the last scan counted, kept in the memo `LEDGER`,
#: and scans again only when that passes the bound.  Concurrent clients may lose each
#: other's updates of the memo: rescanning every so many stores keeps what they
#: stored from going unseen for long.
RESCAN_EVERY = 64
#: The memo of the entries' total at the last scan plus the bytes stored since, and how
#: many stores that was (`"<bytes> <stores>"`).
LEDGER = "ledger"


def cache_dir() -> str:
    explicit = os.environ.get(DIR_ENV)
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tileir")


def max_bytes() -> int:
    text = os.environ.get(SIZE_ENV, "").strip().upper()
    if not text:
        return DEFAULT_MAX_BYTES
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    try:
        return int(float(text.rstrip("KMGB") or "0") * scale)
    except ValueError:
        return DEFAULT_MAX_BYTES


def digest(data: bytes) -> str:
    return sha256(data).hexdigest()


class Result:
    """What a `tileir-as` run produced: its exit status, standard output and error, the
    files it wrote, by role (`output`, `remarks`: tileir/driver/client.py), and the tail
    of its `TILEIR_AS_LOG` line (`arch=... kernels=...`) if it logged one.  (Not a
    dataclass: importing dataclasses is 5 ms of every cache hit.)"""

    def __init__(
        self,
        status: int,
        stdout: bytes = b"",
        stderr: bytes = b"",
        outputs: dict[str, bytes] | None = None,
        log: str | None = None,
    ) -> None:
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.outputs: dict[str, bytes] = outputs if outputs is not None else {}
        self.log = log

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return f"Result({vars(self)!r})"

    def encode(self) -> bytes:
        roles = sorted(self.outputs)
        header = marshal.dumps(
            (
                self.status,
                len(self.stdout),
                len(self.stderr),
                tuple((role, len(self.outputs[role])) for role in roles),
                self.log,
            )
        )
        body = b"".join(
            [
                len(header).to_bytes(4, "little"),
                header,
                self.stdout,
                self.stderr,
                *(self.outputs[role] for role in roles),
            ]
        )
        return MAGIC + len(body).to_bytes(8, "little") + body + sha256(body).digest()

    @staticmethod
    def decode(data: bytes) -> "Result | None":
        """The result `data` holds, or None if it is not a whole, intact entry."""
        start = len(MAGIC) + 8
        if not data.startswith(MAGIC) or len(data) < start + 32:
            return None
        size = int.from_bytes(data[len(MAGIC) : start], "little")
        if len(data) != start + size + 32 or size < 4:
            return None
        body = data[start : start + size]
        if sha256(body).digest() != data[start + size :]:
            return None
        try:
            n = int.from_bytes(body[:4], "little")
            status, n_out, n_err, roles, log = marshal.loads(body[4 : 4 + n])
            pos = 4 + n
            sizes = [int(n_out), int(n_err), *(int(k) for _, k in roles)]
            chunks: list[bytes] = []
            for k in sizes:
                if k < 0:
                    return None
                chunks.append(body[pos : pos + k])
                pos += k
            if pos != len(body) or (log is not None and not isinstance(log, str)):
                return None
            result = Result(int(status), chunks[0], chunks[1], log=log)
            for (role, _), chunk in zip(roles, chunks[2:], strict=True):
                result.outputs[str(role)] = chunk
        except (ValueError, TypeError, EOFError):
            return None
        return result


class ResultCache:
    def __init__(self, root: str | None = None, limit: int | None = None) -> None:
        self.root = root or cache_dir()
        self.limit = max_bytes() if limit is None else limit

    # -- paths ---------------------------------------------------------------------
    def entry_path(self, key: str) -> str:
        return os.path.join(self.root, "entries", key[:2], key)

    def _ensure(self, *parts: str) -> str:
        path = os.path.join(self.root, *parts)
        os.makedirs(path, mode=0o700, exist_ok=True)
        return path

    # -- entries -------------------------------------------------------------------
    def get(self, key: str) -> Result | None:
        path = self.entry_path(key)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        result = Result.decode(data)
        if result is None:
            # Truncated or corrupted: drop it, the compilation rewrites it.
            _debug(f"corrupt cache entry {path}: removed")
            try:  # noqa: SIM105 (no contextlib: it imports collections, ms of a cache hit)
                os.unlink(path)
            except OSError:
                pass
            return None
        try:  # noqa: SIM105 (no contextlib: it imports collections, ms of a cache hit)
            os.utime(path)  # least recently used goes first
        except OSError:
            pass
        return result

    def put(self, key: str, result: Result) -> bool:
        """Store `result` under `key`; False (and nothing half-written) if it could not."""
        data = result.encode()
        try:
            self._ensure("entries", key[:2])
            self.write_atomic(self.entry_path(key), data)
        except OSError as e:
            _debug(f"cache store failed: {e}")
            return False
        try:  # noqa: SIM105 (no contextlib: it imports collections, ms of a cache hit)
            self._evict_if_over(len(data))
        except OSError:
            pass
        return True

    def _evict_if_over(self, stored: int) -> None:
        """After a store of `stored` bytes: evict (scanning the entries) when the
        ledger's total passes the bound, every `RESCAN_EVERY` stores, and without a
        ledger; otherwise only count the store in the ledger."""
        ledger = self._ledger()
        if ledger is None or ledger[0] + stored > self.limit or ledger[1] + 1 >= RESCAN_EVERY:
            self.evict()
            return
        self.memo_put(LEDGER, f"{ledger[0] + stored} {ledger[1] + 1}")

    def _ledger(self) -> tuple[int, int] | None:
        """(bytes, stores) of the `LEDGER` memo; None when missing or unreadable."""
        text = self.memo_get(LEDGER)
        fields = text.split() if text else []
        if len(fields) != 2 or not all(f.isdigit() for f in fields):
            return None
        return int(fields[0]), int(fields[1])

    def write_atomic(self, path: str, data: bytes) -> None:
        tmp_dir = self._ensure("tmp")
        tmp = os.path.join(tmp_dir, f"{os.getpid()}-{time.monotonic_ns()}-{os.urandom(4).hex()}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except BaseException:
            try:  # noqa: SIM105 (no contextlib: it imports collections, ms of a cache hit)
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def entries(self) -> list[tuple[float, int, str]]:
        """(mtime, size, path) of every entry."""
        found: list[tuple[float, int, str]] = []
        top = os.path.join(self.root, "entries")
        try:
            shards = list(os.scandir(top))
        except OSError:
            return found
        for shard in shards:
            try:
                for entry in os.scandir(shard.path):
                    try:
                        st = entry.stat()
                    except OSError:
                        continue
                    found.append((st.st_mtime, st.st_size, entry.path))
            except OSError:
                continue
        return found

    def evict(self) -> int:
        """Delete least recently used entries while the total exceeds the bound; returns
        how many went.  Also clears temporary files a killed writer left (an hour old)."""
        entries = self.entries()
        total = sum(size for _, size, _ in entries)
        removed = 0
        if total > self.limit:
            target = self.limit * EVICT_TO
            for _, size, path in sorted(entries):
                if total <= target:
                    break
                try:
                    os.unlink(path)
                    removed += 1
                except FileNotFoundError:
                    pass  # a concurrent evictor took it
                total -= size
            self._sweep_tmp()
        self.memo_put(LEDGER, f"{total} 0")
        return removed

    def _sweep_tmp(self) -> None:
        cutoff = time.time() - 3600
        try:
            for entry in os.scandir(os.path.join(self.root, "tmp")):
                try:
                    if entry.stat().st_mtime < cutoff:
                        os.unlink(entry.path)
                except OSError:
                    pass
        except OSError:
            pass

    # -- memos (small text values, e.g. tileir's source digest per stat fingerprint) --
    def memo_get(self, name: str) -> str | None:
        try:
            with open(os.path.join(self.root, "meta", name)) as f:
                return f.read().strip() or None
        except OSError:
            return None

    def memo_put(self, name: str, value: str) -> None:
        try:
            self._ensure("meta")
            self.write_atomic(os.path.join(self.root, "meta", name), value.encode())
        except OSError:
            pass

    def clear(self) -> None:
        import shutil

        shutil.rmtree(os.path.join(self.root, "entries"), ignore_errors=True)


def _debug(message: str) -> None:
    if os.environ.get("TILEIR_CLIENT_DEBUG", "") not in ("", "0"):
        print(f"tileir-as: {message}", file=sys.stderr)
