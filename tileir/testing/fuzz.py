"""A seeded, resumable fuzzer for the whole compiler: mutants of real kernels are read,
verified, compiled and, when the compile succeeds, assembled by ptxas.

The seeds are the corpus's kernels (`tests/corpus/*.tileirbc` and `*.mlir`).  A bytecode
mutant has one to four byte-level edits (bit flips, bytes replaced by boundary values,
truncation, chunks spliced from another seed, duplicated or deleted, varints of boundary
values written over the bytes); a text mutant has one to four token-level edits (a token
deleted, duplicated or swapped with another, a number replaced by a boundary value, an
identifier replaced by another of the same kind from the same file).

Each mutant runs in a forked worker process, so that a hang is a timeout and a crash
cannot take the campaign down.  What counts as a finding is what tileir promises never to
do (issue 18): an exception other than a `CompileError` escaping the compiler, an
"internal compiler error" diagnostic, an error without a location, a hang, or exit 0 with
PTX that ptxas rejects.  Findings are grouped by a signature (the exception type and the
innermost tileir frame, or the class of finding and its normalized message), so that a
thousand mutants that hit one bug count once.

Mutant `i` of a campaign seeded `s` depends on `(s, i)` alone: a campaign can stop and
resume (`Campaign.run` records its progress and the first input of every signature in a
directory), and any finding can be regenerated from its index.  `make test` runs a short
campaign (tests/pytest/test_fuzz_campaign.py), `make fuzz` a long one (`python -m
tileir.testing.fuzz`); docs/testing.md says how findings become regression inputs.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import multiprocessing
import multiprocessing.connection
import random
import re
import signal
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from multiprocessing.process import BaseProcess
from pathlib import Path

from tileir.bytecode.stream import ByteWriter

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
#: The architecture mutants compile for (the corpus's lowest; ptxas takes every kernel).
ARCH = "sm_80"
#: A mutant slower than this (read + compile + ptxas) is a hang.  Generous: the largest
#: corpus kernel takes under a second, and a shared machine stalls.
TIMEOUT_S = 20.0

OK = "ok"
DIAGNOSED = "diagnosed"
FINDING = "finding"


# ---------------------------------------------------------------------------
# Seeds and mutations.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Seed:
    name: str
    data: bytes
    #: A bytecode file's section payloads, `(start, end)`: edits aimed inside one reach
    #: the section's decoder, where uniformly placed edits mostly break the container.
    sections: tuple[tuple[int, int], ...] = ()

    @property
    def is_bytecode(self) -> bool:
        return self.name.endswith(".tileirbc")


def corpus_seeds(corpus: Path = CORPUS) -> list[Seed]:
    """Every bytecode and text kernel of the corpus, in a stable order."""
    from tileir.bytecode.container import read_container

    seeds: list[Seed] = []
    for p in sorted([*corpus.glob("*.tileirbc"), *corpus.glob("*.mlir")]):
        data = p.read_bytes()
        sections: tuple[tuple[int, int], ...] = ()
        if p.suffix == ".tileirbc":
            readers = read_container(data).sections.values()
            sections = tuple((r.pos, r.end) for r in readers if r.end > r.pos)
        seeds.append(Seed(p.name, data, sections))
    return seeds


def _varint(value: int) -> bytes:
    writer = ByteWriter()
    writer.varint(value)
    return bytes(writer.buf)


#: Values at the edges of varint encodings and of the integer widths the reader decodes
#: them into (a 1-byte and 2-byte varint's limits, i32, u32, i64, u64).
VARINT_VALUES = (0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, 2**31 - 1, 2**31, 2**32 - 1, 2**32)
VARINT_VALUES += (2**63 - 1, 2**63, 2**64 - 1)
#: Varints no writer produces: over-long (11 bytes, a 10th byte past 64 bits) and
#: unterminated at the end of a buffer.
ODD_VARINTS = (b"\x80" * 10 + b"\x01", b"\xff" * 9 + b"\x7f", b"\x80\x00", b"\xff" * 4)
BYTE_VALUES = (0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF)


def mutate_bytes(seed: Seed, seeds: Sequence[Seed], rng: random.Random) -> bytes:
    out = bytearray(seed.data)
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
        if not out:
            break
        at = rng.randrange(len(out))
        if seed.sections and rng.random() < 0.5:
            start, end = rng.choice(seed.sections)
            at = min(rng.randrange(start, end), len(out) - 1)
        # Edits in place (flips, bytes, varints, chunks copied over) keep the sections
        # where they were; insertions and deletions shift them, and mostly test the
        # container, so they are rarer.
        kind = rng.choices(range(9), weights=(3, 3, 1, 1, 1, 1, 2, 1, 2))[0]
        if kind == 0:
            out[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            out[at] = rng.choice(BYTE_VALUES) if rng.random() < 0.5 else rng.randrange(256)
        elif kind == 2:
            del out[at:]
        elif kind == 3:
            other = rng.choice(seeds).data
            start = rng.randrange(len(other))
            chunk = other[start : start + rng.randint(1, 64)]
            out[at : at + rng.randint(0, len(chunk))] = chunk
        elif kind == 4:
            size = rng.randint(1, 32)
            out[at:at] = out[at : at + size]
        elif kind == 5:
            del out[at : at + rng.randint(1, 16)]
        elif kind == 6:
            encoded = _varint(rng.choice(VARINT_VALUES))
            out[at : at + len(encoded)] = encoded
        elif kind == 7:
            odd = rng.choice(ODD_VARINTS)
            out[at : at + len(odd)] = odd
        else:
            start = rng.randrange(len(out))
            chunk = out[start : start + rng.randint(1, 16)][: len(out) - at]
            out[at : at + len(chunk)] = chunk
    return bytes(out)


#: Tokens of the cuda_tile text form: SSA values, symbols, strings, numbers (hex, float,
#: integer), the `x` between a shape's dimensions (so that `64x64xf32` is five tokens:
#: dimensions to change, and an element type), words, and single punctuation characters.
TOKEN = re.compile(
    r"%[\w.$#-]+|@[\w.$-]+|@\"[^\"\n]*\"|\"[^\"\n]*\"|0x[0-9A-Fa-f]+"
    r"|-?\d+\.\d*(?:[eE][+-]?\d+)?|-?\d+|(?<=\d)x|\^[\w.$-]+|#[\w.$-]+"
    r"|!?[A-Za-z_][\w.$]*|[^\s\w]"
)
#: Words that name types: replaced by one another, not by an op or keyword.
TYPE_WORD = re.compile(r"[iuf]\d+|bf16|tf32|f8E\w+|ptr|tile|token|index")
NUMBERS = ("0", "1", "-1", "2", "3", "7", "64", "65536", "2147483647", "2147483648")
NUMBERS += ("-2147483649", "4294967296", "9223372036854775808", "18446744073709551616")
NUMBERS += ("1.0e10", "-0.0", "1.5", "0x7FC00000", "0xFFFFFFFFFFFFFFFF", "99999999999999999999")


def _kind_of(token: str) -> str:
    if token[0] in "%@^#":
        return token[0]
    if token[0].isdigit() or (token[0] == "-" and len(token) > 1):
        return "number"
    if token[0] == '"':
        return "string"
    if token == "x":
        return "punct"
    if TYPE_WORD.fullmatch(token):
        return "type"
    if token[0].isalpha() or token[0] in "_!":
        return "word"
    return "punct"


def mutate_text(seed: Seed, seeds: Sequence[Seed], rng: random.Random) -> bytes:
    """Token edits, weighted towards those that keep the text parseable (a number for a
    number, a value or word for another of its kind), so that most mutants reach the
    verifiers and the lowering, not only the parser."""
    text = seed.data.decode("utf-8", errors="replace")
    for _ in range(rng.choice((1, 1, 1, 1, 2, 2, 3))):
        tokens = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
        if not tokens:
            break
        kind = rng.choices(range(6), weights=(1, 1, 1, 4, 4, 1))[0]
        if kind == 3:
            tokens = [t for t in tokens if _kind_of(text[t[0] : t[1]]) == "number"] or tokens
        elif kind >= 4:
            names = ("%", "@", "word", "type")
            tokens = [t for t in tokens if _kind_of(text[t[0] : t[1]]) in names] or tokens
        start, end = rng.choice(tokens)
        token = text[start:end]
        if kind == 0:
            replacement = ""
        elif kind == 1:
            replacement = token + " " + token
        elif kind == 2:
            o_start, o_end = rng.choice(tokens)
            if o_start < start:
                start, end, o_start, o_end = o_start, o_end, start, end
            if o_start < end:
                continue
            other = text[o_start:o_end]
            text = text[:start] + other + text[end:o_start] + text[start:end] + text[o_end:]
            continue
        elif kind == 3:
            replacement = rng.choice(NUMBERS)
        else:
            # An identifier of the same kind: from this file (kind 4) or any seed (5).
            source = text if kind == 4 else rng.choice(seeds).data.decode("utf-8", "replace")
            same = [t for t in TOKEN.findall(source) if _kind_of(t) == _kind_of(token)]
            replacement = rng.choice(same) if same else token
        text = text[:start] + replacement + text[end:]
    return text.encode("utf-8", errors="surrogateescape")


@dataclass(frozen=True)
class Mutant:
    index: int
    seed: str
    data: bytes

    @property
    def is_bytecode(self) -> bool:
        return self.seed.endswith(".tileirbc")

    @property
    def suffix(self) -> str:
        return ".tileirbc" if self.is_bytecode else ".mlir"


def make_mutant(campaign_seed: int, index: int, seeds: Sequence[Seed]) -> Mutant:
    """Mutant `index` of the campaign seeded `campaign_seed`: a function of the two
    numbers (and the seed list) alone."""
    rng = random.Random(f"{campaign_seed}:{index}")
    seed = rng.choice(seeds)
    mutate = mutate_bytes if seed.is_bytecode else mutate_text
    data = mutate(seed, seeds, rng)
    # An edit can undo itself (a chunk copied onto itself, a name replaced by itself):
    # mutate again rather than recompile the seed.
    for _ in range(8):
        if data != seed.data:
            break
        data = mutate(seed, seeds, rng)
    return Mutant(index, seed.name, data)


# ---------------------------------------------------------------------------
# Running one input.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How an input ended: `ok` (compiled, and ptxas took the PTX), `diagnosed` (a
    located error), or `finding`, with its `signature` and the `detail` to debug it."""

    kind: str
    signature: str = ""
    detail: str = ""


def _tileir_frame(tb: traceback.StackSummary) -> str:
    """The innermost frame in tileir's own code (`path:function`), the stable part of a
    crash's stack: line numbers move with every edit."""
    for frame in reversed(tb):
        path = Path(frame.filename)
        if "tileir" in path.parts and "site-packages" not in path.parts:
            # The package's directory: the last `tileir` (a checkout may be one too).
            parts = path.parts[len(path.parts) - path.parts[::-1].index("tileir") - 1 :]
            return f"{'/'.join(parts)}:{frame.name}"
    return "?"


def _normalize(message: str) -> str:
    """A message with its particulars (numbers, names, quoted text) blanked out."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    first = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'_'", first)
    first = re.sub(r"[%@][\w.$-]+", "%_", first)
    return re.sub(r"\d+", "N", first)[:120]


def _ptxas_signature(report: str) -> str:
    lines = [line for line in report.splitlines() if "error" in line.lower()]
    line = lines[0] if lines else report.strip()[:200]
    line = re.sub(r"^ptxas\s+\S+,\s*line\s+\d+;\s*", "", line)
    return _normalize(line)


@functools.cache
def _ptxas() -> tuple[str | None, bool]:
    """ptxas, and whether it takes Tile IR kernel marking (as `tileir-as` asks it)."""
    from tileir.backend.ptx.ptxas import find_ptxas, ptxas_supports_tile_language

    ptxas = find_ptxas()
    return ptxas, ptxas is not None and ptxas_supports_tile_language(ptxas)


def run_input(data: bytes, is_bytecode: bool, name: str = "fuzz", arch: str = ARCH) -> Outcome:
    """Read, verify and compile `data` as `tileir-as` does (tileir/driver/assembler.py's
    `compile_file`), and assemble the PTX (at -O0: what ptxas rejects, it rejects at any
    level, and -O3 would triple the cost of a mutant)."""
    from tileir.backend.ptx.ptxas import run_ptxas
    from tileir.bytecode.reader import read_bytecode
    from tileir.compiler import compile_module, parse_module_text
    from tileir.diagnostics import CompileError
    from tileir.pipelines import check_num_warps
    from tileir.registry import make_context

    try:
        with warnings.catch_warnings():
            # tileir's own warnings (an f16 constant rounded to inf) are not findings.
            warnings.simplefilter("ignore")
            ctx = make_context()
            if is_bytecode:
                module = read_bytecode(data, name, ctx)
            else:
                module = parse_module_text(data, name, ctx)
            check_num_warps(4, module)
            result = compile_module(
                module, arch, ctx=ctx, allow_empty=True, tile_kernels=_ptxas()[1]
            )
    except CompileError as e:
        tb = traceback.extract_tb(e.__traceback__)
        if "internal compiler error" in e.message or type(e).__name__ == "BytecodeInternalError":
            return Outcome(FINDING, f"internal error: {_normalize(e.message)}", str(e))
        offset = getattr(e, "offset", None)
        if e.location is None and offset is None and not getattr(e, "errors", None):
            return Outcome(
                FINDING,
                f"unlocated error from {_tileir_frame(tb)}: {_normalize(e.message)}",
                str(e),
            )
        return Outcome(DIAGNOSED)
    except (Exception, RecursionError) as e:
        tb = traceback.extract_tb(e.__traceback__)
        detail = "".join(traceback.format_exception(e))[-4000:]
        return Outcome(FINDING, f"{type(e).__name__} in {_tileir_frame(tb)}", detail)
    if result.ptx is None or _ptxas()[0] is None:
        return Outcome(OK)
    report = run_ptxas(result.ptx, arch, opt_level=0)
    if report.ok:
        return Outcome(OK)
    if report.could_not_write:
        return Outcome(OK)
    return Outcome(
        FINDING, f"ptxas rejects: {_ptxas_signature(report.output)}", report.output[-4000:]
    )


# ---------------------------------------------------------------------------
# Workers: one forked process per worker, killed and restarted on a hang.
# ---------------------------------------------------------------------------


def _serve(conn: multiprocessing.connection.Connection) -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        data, is_bytecode, name = request
        conn.send(run_input(data, is_bytecode, name))


class Worker:
    """A forked process that runs inputs one at a time (`submit`, then `result`)."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.process: BaseProcess = ctx.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.started = 0.0
        self.mutant: Mutant | None = None

    def submit(self, mutant: Mutant) -> None:
        self.mutant = mutant
        self.started = time.monotonic()
        self.conn.send((mutant.data, mutant.is_bytecode, f"{mutant.index}{mutant.suffix}"))

    def result(self) -> Outcome:
        try:
            return self.conn.recv()
        except EOFError:
            code = self.process.exitcode
            return Outcome(FINDING, f"worker died (exit {code})", "the process running it died")

    def overdue(self, timeout: float) -> bool:
        return self.mutant is not None and time.monotonic() - self.started > timeout

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def run_isolated(data: bytes, is_bytecode: bool, timeout: float = TIMEOUT_S) -> Outcome:
    """`run_input` in a fresh worker, a hang reported as a finding."""
    worker = Worker()
    try:
        worker.submit(Mutant(0, "input.tileirbc" if is_bytecode else "input.mlir", data))
        if worker.conn.poll(timeout):
            return worker.result()
        return Outcome(FINDING, "hang", f"no result in {timeout:.0f} s")
    finally:
        worker.stop()


# ---------------------------------------------------------------------------
# Campaigns.
# ---------------------------------------------------------------------------


@dataclass
class Signature:
    count: int
    first_index: int
    first_seed: str
    file: str
    detail: str


@dataclass
class State:
    """A campaign's progress: the next mutant to run and every outcome so far."""

    seed: int
    next_index: int = 0
    seconds: float = 0.0
    outcomes: dict[str, int] = field(default_factory=dict[str, int])
    signatures: dict[str, Signature] = field(default_factory=dict[str, Signature])

    @classmethod
    def load(cls, path: Path, seed: int) -> State:
        if not path.is_file():
            return cls(seed)
        raw = json.loads(path.read_text())
        signatures = {k: Signature(**v) for k, v in raw.pop("signatures").items()}
        return cls(**raw, signatures=signatures)

    def save(self, path: Path) -> None:
        raw = asdict(self)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(raw, indent=1, sort_keys=True) + "\n")
        tmp.replace(path)


@dataclass
class Campaign:
    """Runs mutants `state.next_index` onwards on `jobs` workers; with a `directory`,
    resumes from and records into it (`state.json`, `findings/<hash><suffix>`)."""

    seed: int
    seeds: list[Seed]
    directory: Path | None = None
    jobs: int = 1
    timeout: float = TIMEOUT_S
    state: State = field(init=False)

    def __post_init__(self) -> None:
        if self.directory is not None:
            (self.directory / "findings").mkdir(parents=True, exist_ok=True)
            self.state = State.load(self.directory / "state.json", self.seed)
            if self.state.seed != self.seed:
                raise SystemExit(
                    f"{self.directory} holds a campaign seeded {self.state.seed}, not "
                    f"{self.seed}: give --seed {self.state.seed} or another directory"
                )
        else:
            self.state = State(self.seed)

    def run(
        self,
        count: int | None = None,
        seconds: float | None = None,
        progress: Callable[[State], None] | None = None,
    ) -> State:
        """Run `count` more mutants (or until `seconds` have passed, whichever is first)."""
        stop_index = self.state.next_index + count if count is not None else None
        deadline = time.monotonic() + seconds if seconds is not None else None
        started = time.monotonic()
        last_save = started
        workers = [Worker() for _ in range(self.jobs)]
        issued = self.state.next_index
        pending: dict[int, Outcome] = {}

        def more() -> bool:
            in_time = deadline is None or time.monotonic() < deadline
            return in_time and (stop_index is None or issued < stop_index)

        try:
            for w in workers:
                if more():
                    w.submit(make_mutant(self.seed, issued, self.seeds))
                    issued += 1
            while any(w.mutant is not None for w in workers):
                busy = [w for w in workers if w.mutant is not None]
                multiprocessing.connection.wait([w.conn for w in busy], timeout=1.0)
                for i, w in enumerate(workers):
                    mutant = w.mutant
                    if mutant is None:
                        continue
                    if w.conn.poll():
                        outcome = w.result()
                    elif w.overdue(self.timeout):
                        outcome = Outcome(FINDING, "hang", f"no result in {self.timeout:.0f} s")
                    else:
                        continue
                    if outcome.signature.startswith(("hang", "worker died")):
                        w.stop()
                        workers[i] = w = Worker()
                    w.mutant = None
                    self._record(mutant, outcome)
                    pending[mutant.index] = outcome
                    if more():
                        w.submit(make_mutant(self.seed, issued, self.seeds))
                        issued += 1
                # Progress only advances over a contiguous prefix of finished mutants,
                # so a campaign interrupted mid-batch reruns what had not finished.
                while self.state.next_index in pending:
                    del pending[self.state.next_index]
                    self.state.next_index += 1
                now = time.monotonic()
                if now - last_save > 10:
                    self._save(now - last_save)
                    last_save = now
                    if progress is not None:
                        progress(self.state)
        finally:
            for w in workers:
                w.stop()
            self._save(time.monotonic() - last_save)
        return self.state

    def _record(self, mutant: Mutant, outcome: Outcome) -> None:
        outcomes = self.state.outcomes
        outcomes[outcome.kind] = outcomes.get(outcome.kind, 0) + 1
        if outcome.kind != FINDING:
            return
        known = self.state.signatures.get(outcome.signature)
        if known is not None:
            known.count += 1
            return
        digest = hashlib.sha1(outcome.signature.encode()).hexdigest()[:12]
        file = f"{digest}{mutant.suffix}"
        if self.directory is not None:
            (self.directory / "findings" / file).write_bytes(mutant.data)
            (self.directory / "findings" / f"{digest}.txt").write_text(
                f"{outcome.signature}\nmutant {mutant.index} of seed {self.seed}, from "
                f"{mutant.seed}\n\n{outcome.detail}\n"
            )
        self.state.signatures[outcome.signature] = Signature(
            1, mutant.index, mutant.seed, file, outcome.detail[-2000:]
        )

    def _save(self, seconds: float) -> None:
        self.state.seconds += seconds
        if self.directory is not None:
            self.state.save(self.directory / "state.json")


def report(state: State) -> str:
    ran = sum(state.outcomes.values())
    lines = [
        f"fuzz campaign seeded {state.seed}: {state.next_index} mutants run "
        f"({ran} in this directory's record), {state.seconds:.0f} s; "
        + ", ".join(f"{n} {k}" for k, n in sorted(state.outcomes.items())),
        f"{len(state.signatures)} distinct finding signature(s)",
    ]
    for sig, s in sorted(state.signatures.items(), key=lambda kv: -kv[1].count):
        lines.append(f"  {s.count:6d}  {sig}  [findings/{s.file}, mutant {s.first_index}]")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tileir.testing.fuzz",
        description="Mutate the corpus's kernels; read, verify, compile and ptxas each mutant.",
    )
    parser.add_argument("--dir", type=Path, default=ROOT / ".fuzz", help="state directory")
    parser.add_argument("--seed", type=int, default=1, help="campaign seed")
    parser.add_argument("--count", type=int, help="mutants to run in this session")
    parser.add_argument(
        "--until", type=int, help="run until the campaign has run this many mutants"
    )
    parser.add_argument("--seconds", type=float, help="stop after this long")
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S, help="per mutant, seconds")
    args = parser.parse_args(argv)
    campaign = Campaign(args.seed, corpus_seeds(), args.dir, args.jobs, args.timeout)
    count = args.count
    if args.until is not None:
        count = max(0, args.until - campaign.state.next_index)
    print(f"resuming at mutant {campaign.state.next_index}", flush=True)

    def progress(state: State) -> None:
        print(
            f"  {state.next_index} mutants, {len(state.signatures)} signature(s), "
            f"{state.seconds:.0f} s",
            flush=True,
        )

    # Ctrl-C or a TERM stops the campaign where it is, its progress saved (a shell
    # starting it in the background may have set SIGINT to be ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        state = campaign.run(count, args.seconds, progress)
    except KeyboardInterrupt:
        state = campaign.state
    print(report(state))
    return 1 if state.signatures else 0


if __name__ == "__main__":
    sys.exit(main())
