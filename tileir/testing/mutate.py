"""A seeded mutation tester for the compiler (`make mutate`; docs/testing.md).

It asks whether the tests would notice a bug: one small change at a time is made to a
copy of the package (an operator swapped, an integer constant off by one, a condition or
a statement dropped), a fast subset of the tests that cover the changed module runs
against the copy, and a mutant the tests still pass on *survives*.  A surviving mutant
is either equivalent (no input can tell it from the original: a message's wording, a
cache size) or a hole in the tests, which a new test should close.

The mutation sites are the nodes of each target module's syntax tree, found in a fixed
walk order; a campaign seeded `s` runs them in the order of `random.Random(s)`'s shuffle,
so `(seed, position)` names a mutant and `--site PATH:INDEX:VARIANT` reruns one.  The
mutated module is written with `ast.unparse` (comments dropped, meaning unchanged); the
baseline run of each target uses the unparsed, unmutated modules, so the unparse itself
cannot be what a test notices.

Each worker holds its own copy of `tileir/` and `tests/` beside links to the repository's
`docs/` and `tools/`, and runs pytest there with `PYTHONPATH` at the copy, so the tests
and every `tileir-opt`/`tileir-as` they start import the mutant; the working tree is
never written.  Results go to `--dir` (default `.mutate/`) as one JSON line per mutant.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

KILLED = "killed"
SURVIVED = "survived"
TIMEOUT = "timeout"


@dataclass(frozen=True)
class Target:
    """Modules to mutate and the tests that should catch their mutants (fastest first:
    pytest stops at the first failure)."""

    name: str
    modules: tuple[str, ...]
    tests: tuple[str, ...]


_LOWERING = "tileir/conversions/tileas_to_llvm/"
TARGETS: tuple[Target, ...] = (
    Target(
        "bytecode-reader",
        (
            "tileir/bytecode/stream.py",
            "tileir/bytecode/reader.py",
            "tileir/bytecode/types.py",
            "tileir/bytecode/attributes.py",
        ),
        (
            "tests/pytest/test_bytecode_varints.py",
            "tests/pytest/test_bytecode_read.py",
            "tests/pytest/test_bytecode_invalid.py",
            "tests/pytest/test_mutant_regressions.py",
        ),
    ),
    Target(
        "conversions",
        (
            "tileir/conversions/cuda_tile_to_tileaa.py",
            "tileir/conversions/tileaa_shapes.py",
            "tileir/conversions/tileaa_reductions.py",
            "tileir/conversions/tileaa_pointers.py",
            "tileir/conversions/tileaa_to_tileas.py",
        ),
        (
            "tests/pytest/test_scalar_kernels.py",
            "tests/pytest/test_conversion_semantics.py",
            "tests/pytest/test_negative_gathers.py",
            "tests/pytest/test_tileas_shapes.py",
            "tests/pytest/test_insert_codegen.py",
            "tests/pytest/test_mutant_regressions.py",
        ),
    ),
    Target(
        "llvm-lowering",
        tuple(
            _LOWERING + m
            for m in (
                "arith.py",
                "elementwise.py",
                "scalar.py",
                "reductions.py",
                "pointer.py",
                "tiled_memory.py",
            )
        ),
        (
            "tests/pytest/test_scalar_kernels.py",
            "tests/pytest/test_conversion_semantics.py",
            "tests/pytest/test_negative_gathers.py",
            "tests/pytest/test_order_sensitive_reductions.py",
            "tests/pytest/test_scan_codegen.py",
            "tests/pytest/test_mutant_regressions.py",
            # Directed rounding of scalar float ops, and the `arith` index arithmetic
            # that only pipelined loops reach (survivors of seed 2611 they kill).
            *(
                f"tests/pytest/test_directed_rounding.py::"
                f"test_directed_rounding_matches_interpreter[{case}-sm_80]"
                for case in ("addf-f32-f32", "fma-f32-f32")
            ),
            "tests/pytest/test_pipeline_dot_operands.py",
        ),
    ),
    Target(
        "tileas-transforms",
        tuple(
            "tileir/transforms/tileas/" + m
            for m in (
                "pipeline_dot_operands.py",
                "specialize_agents.py",
                "materialize_schedule.py",
                "select_dot_atoms.py",
            )
        ),
        (
            "tests/pytest/test_nv_tileas_passes.py",
            "tests/pytest/test_specialize_agents.py",
            "tests/pytest/test_pipeline_dot_operands.py",
            "tests/pytest/test_mma_dot.py",
            "tests/pytest/test_mutant_regressions.py",
        ),
    ),
    Target(
        "llvm-async-mma",
        tuple(_LOWERING + m for m in ("agents.py", "async_copy.py", "wgmma.py", "tcgen05.py")),
        (
            "tests/pytest/test_specialize_agents.py",
            "tests/pytest/test_pipeline_dot_operands.py",
            "tests/pytest/test_ptx_tcgen05.py",
            "tests/pytest/test_mma_dot.py",
            "tests/pytest/test_mutant_regressions.py",
        ),
    ),
)


# ---------------------------------------------------------------------------
# Mutation sites.
# ---------------------------------------------------------------------------

#: Operator swaps: each operator's mutants.
_BINOPS: dict[type[ast.operator], tuple[type[ast.operator], ...]] = {
    ast.Add: (ast.Sub,),
    ast.Sub: (ast.Add,),
    ast.Mult: (ast.FloorDiv,),
    ast.FloorDiv: (ast.Mult,),
    ast.Mod: (ast.FloorDiv,),
    ast.LShift: (ast.RShift,),
    ast.RShift: (ast.LShift,),
    ast.BitAnd: (ast.BitOr,),
    ast.BitOr: (ast.BitAnd,),
    ast.BitXor: (ast.BitOr,),
}
_CMPOPS: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Lt: (ast.LtE,),
    ast.LtE: (ast.Lt,),
    ast.Gt: (ast.GtE,),
    ast.GtE: (ast.Gt,),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
}
#: Statements whose removal is a plausible bug (not a NameError waiting to happen).
_DROPPABLE = (ast.Expr, ast.AugAssign, ast.Raise, ast.If, ast.Continue, ast.Break)

Apply = Callable[[ast.AST], None]


def _variants(node: ast.AST) -> list[tuple[str, Apply]]:
    """(description, in-place edit) for each mutant of `node`."""
    out: list[tuple[str, Apply]] = []
    if isinstance(node, ast.BinOp | ast.AugAssign):
        for new in _BINOPS.get(type(node.op), ()):
            out.append((f"{type(node.op).__name__} -> {new.__name__}", _set_attr("op", new())))
    elif isinstance(node, ast.Compare) and len(node.ops) == 1:
        for new in _CMPOPS.get(type(node.ops[0]), ()):
            desc = f"{type(node.ops[0]).__name__} -> {new.__name__}"
            out.append((desc, _set_attr("ops", [new()])))
    elif isinstance(node, ast.BoolOp):
        kind = "and" if isinstance(node.op, ast.And) else "or"
        out.append((f"{kind} -> {'or' if kind == 'and' else 'and'}", _flip_boolop))
        for i in range(len(node.values)):
            out.append((f"{kind}: operand {i} dropped", _drop_operand(i)))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        out.append(("not dropped", _drop_not))
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        out.append((f"{node.value} -> {not node.value}", _set_attr("value", not node.value)))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        value = node.value
        out.append((f"{value} -> {value + 1}", _set_attr("value", value + 1)))
        out.append((f"{value} -> {value - 1}", _set_attr("value", value - 1)))
    elif isinstance(node, ast.If | ast.While):
        out.append(("condition dropped (always taken)", _set_attr("test", ast.Constant(True))))
    for field in ("body", "orelse", "finalbody"):
        body = getattr(node, field, None)
        if not isinstance(body, list):
            continue
        for i, stmt in enumerate(body):  # pyright: ignore[reportUnknownVariableType]
            if isinstance(stmt, _DROPPABLE) and not _is_docstring(stmt):
                line = getattr(stmt, "lineno", 0)
                what = type(stmt).__name__.lower()
                out.append((f"{what} at line {line} dropped", _drop_statement(field, i)))
    return out


def _set_attr(name: str, value: object) -> Apply:
    def apply(node: ast.AST) -> None:
        setattr(node, name, value)

    return apply


def _flip_boolop(node: ast.AST) -> None:
    assert isinstance(node, ast.BoolOp)
    node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()


def _drop_operand(i: int) -> Apply:
    def apply(node: ast.AST) -> None:
        assert isinstance(node, ast.BoolOp)
        del node.values[i]
        if len(node.values) == 1:  # `a and b` minus b is `a`: keep a BoolOp-free tree
            node.values.append(ast.Constant(isinstance(node.op, ast.And)))

    return apply


def _drop_not(node: ast.AST) -> None:
    assert isinstance(node, ast.UnaryOp)
    node.op = ast.UAdd()  # `+x` of a bool is its int: the same truth value as `x`


def _drop_statement(field: str, i: int) -> Apply:
    def apply(node: ast.AST) -> None:
        body: list[ast.stmt] = getattr(node, field)
        body[i] = ast.Pass()

    return apply


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _skipped_subtrees(tree: ast.AST) -> set[int]:
    """ids of nodes not to mutate: annotations (types only), f-strings (messages),
    docstrings and `assert`s (internal checks, not behaviour)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        roots: list[ast.AST] = []
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            roots.append(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            roots.append(node.returns)
        if isinstance(node, ast.JoinedStr | ast.Assert):
            roots.append(node)
        for root in roots:
            skip.update(id(n) for n in ast.walk(root))
    return skip


def _nodes(tree: ast.AST) -> list[ast.AST]:
    """The mutable nodes of `tree` in walk order (the index a site names)."""
    skip = _skipped_subtrees(tree)
    return [n for n in ast.walk(tree) if id(n) not in skip]


@dataclass(frozen=True)
class Site:
    """One mutant: variant `variant` of node `index` of module `path`."""

    path: str
    index: int
    variant: int
    line: int
    description: str

    @property
    def key(self) -> str:
        return f"{self.path}:{self.index}:{self.variant}"


#: The target modules' text when the campaign started: sites index into it, mutants are
#: made from it and the sandbox is restored to it, whatever the working tree does since.
_SNAPSHOT: dict[str, str] = {}


def source(path: str) -> str:
    if path not in _SNAPSHOT:
        _SNAPSHOT[path] = (ROOT / path).read_text()
    return _SNAPSHOT[path]


def sites(path: str) -> list[Site]:
    tree = ast.parse(source(path))
    out: list[Site] = []
    for index, node in enumerate(_nodes(tree)):
        for variant, (description, _) in enumerate(_variants(node)):
            out.append(Site(path, index, variant, getattr(node, "lineno", 0), description))
    return out


def mutated_source(site: Site) -> str:
    tree = ast.parse(source(site.path))
    node = _nodes(tree)[site.index]
    _, apply = _variants(node)[site.variant]
    apply(node)
    return ast.unparse(ast.fix_missing_locations(tree))


def unparsed_source(path: str) -> str:
    return ast.unparse(ast.parse(source(path)))


# ---------------------------------------------------------------------------
# Running mutants.
# ---------------------------------------------------------------------------


@dataclass
class Result:
    key: str
    target: str
    line: int
    description: str
    status: str
    seconds: float
    failed: str = ""


class Sandbox:
    """A copy of `tileir/` and `tests/` beside links to the rest of the repository.

    The tests are copied, not linked, for the same reason the modules are: a campaign
    runs for tens of minutes in a tree others edit, and a test changed for code the
    copy does not have would kill every mutant after it."""

    COPIED = ("tileir", "tests")
    LINKED = ("docs", "tools", "pyproject.toml", "Makefile", "build")

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tileir-mutate-"))
        for name in self.COPIED:
            shutil.copytree(
                ROOT / name, self.dir / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        for name in self.LINKED:
            if (ROOT / name).exists():
                (self.dir / name).symlink_to(ROOT / name)
        for path, text in _SNAPSHOT.items():
            (self.dir / path).write_text(text)

    def write(self, path: str, text: str) -> None:
        (self.dir / path).write_text(text)

    def restore(self, path: str) -> None:
        (self.dir / path).write_text(source(path))

    def run_tests(self, tests: Sequence[str], timeout: float) -> tuple[str, str]:
        env = dict(os.environ)
        env.update(PYTHONPATH=str(self.dir), TILEIR_SERVER="0", TILEIR_NO_CACHE="1")
        env.update(PYTHONDONTWRITEBYTECODE="1")
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]
        try:
            proc = subprocess.run(
                cmd, cwd=self.dir, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return TIMEOUT, ""
        if proc.returncode == 0:
            return SURVIVED, ""
        failed = [ln for ln in proc.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
        return KILLED, failed[0] if failed else proc.stdout[-300:]

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def baseline(sandbox: Sandbox, target: Target) -> float:
    """Seconds the target's tests take on the unparsed, unmutated modules (they must
    pass: a mutant is judged against them)."""
    for path in target.modules:
        sandbox.write(path, unparsed_source(path))
    start = time.monotonic()
    status, failed = sandbox.run_tests(target.tests, timeout=1800)
    for path in target.modules:
        sandbox.restore(path)
    if status != SURVIVED:
        raise SystemExit(f"baseline of {target.name} fails without a mutant: {failed}")
    return time.monotonic() - start


def run_site(sandbox: Sandbox, target: Target, site: Site, timeout: float) -> Result:
    start = time.monotonic()
    sandbox.write(site.path, mutated_source(site))
    try:
        status, failed = sandbox.run_tests(target.tests, timeout)
    finally:
        sandbox.restore(site.path)
    return Result(
        site.key, target.name, site.line, site.description, status, time.monotonic() - start, failed
    )


def plan(seed: int, targets: Sequence[Target]) -> Iterator[tuple[Target, Site]]:
    """Every site of the targets in the seed's order."""
    pairs = [(t, s) for t in targets for path in t.modules for s in sites(path)]
    random.Random(seed).shuffle(pairs)
    yield from pairs


def campaign(
    seed: int,
    targets: Sequence[Target],
    out: Path,
    *,
    count: int | None,
    seconds: float | None,
    jobs: int,
    only: Sequence[str] = (),
) -> list[Result]:
    out.parent.mkdir(parents=True, exist_ok=True)
    todo = list(plan(seed, targets))  # snapshots the target modules first
    sandboxes = [Sandbox() for _ in range(jobs)]
    try:
        timeouts = {t.name: 3 * baseline(sandboxes[0], t) + 30 for t in targets}
        print(
            "baselines (s): " + ", ".join(f"{k} {(v - 30) / 3:.1f}" for k, v in timeouts.items()),
            flush=True,
        )
        if only:
            todo = [(t, s) for t, s in todo if s.key in only]
        if count is not None:
            todo = todo[:count]
        deadline = time.monotonic() + seconds if seconds else None
        results: list[Result] = []
        free = list(sandboxes)

        def one(item: tuple[Target, Site]) -> Result | None:
            if deadline is not None and time.monotonic() > deadline:
                return None
            sandbox = free.pop()
            try:
                target, site = item
                return run_site(sandbox, target, site, timeouts[target.name])
            finally:
                free.append(sandbox)

        with ThreadPoolExecutor(jobs) as pool, out.open("a") as log:
            for result in pool.map(one, todo):
                if result is None:
                    continue
                results.append(result)
                log.write(json.dumps(asdict(result)) + "\n")
                log.flush()
                print(
                    f"{result.status:8} {result.key} line {result.line}: {result.description}",
                    flush=True,
                )
        return results
    finally:
        for sandbox in sandboxes:
            sandbox.remove()


def summary(results: Sequence[Result]) -> str:
    counts = {s: sum(r.status == s for r in results) for s in (KILLED, TIMEOUT, SURVIVED)}
    lines = [
        f"{len(results)} mutants: {counts[KILLED]} killed, {counts[TIMEOUT]} timed out (killed), "
        f"{counts[SURVIVED]} survived"
    ]
    lines += [
        f"  survived: {r.key} line {r.line}: {r.description}"
        for r in results
        if r.status == SURVIVED
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tileir.testing.mutate",
        description="Seeded mutation testing of the conversions, the LLVM lowering and the "
        "bytecode reader (docs/testing.md).",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, help="mutants to run (default: all)")
    parser.add_argument("--seconds", type=float, help="start no mutant after this long")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--target", action="append", choices=[t.name for t in TARGETS])
    parser.add_argument("--site", action="append", default=[], help="PATH:INDEX:VARIANT")
    parser.add_argument("--list", action="store_true", help="print the sites and stop")
    parser.add_argument("--dir", type=Path, default=ROOT / ".mutate")
    args = parser.parse_args(argv)
    targets = [t for t in TARGETS if not args.target or t.name in args.target]
    if args.list:
        for target, site in plan(args.seed, targets):
            print(f"{target.name} {site.key} line {site.line}: {site.description}")
        return 0
    out = args.dir / f"seed{args.seed}.jsonl"
    results = campaign(
        args.seed,
        targets,
        out,
        count=args.count,
        seconds=args.seconds,
        jobs=args.jobs,
        only=args.site,
    )
    print(summary(results))
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
