"""The layout of `tileir/conversions/tileas_to_llvm/` (issue 14, items 3 and 6): one file
per nv_tileas op family, no import cycles inside the package, nothing in it importing the
package `__init__` (the pass, which assembles the pattern list), and only the later stage
(pipelines, the pass registry, the `ptx` target) importing it from outside.

The import graph is read with `ast`, so imports under `TYPE_CHECKING` and inside
functions count too: a cycle hidden behind a lazy import is still a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "tileir.conversions.tileas_to_llvm"
PACKAGE_DIR = ROOT / PACKAGE.replace(".", "/")
INIT = "__init__"

#: Modules outside the package that may import it: the stage after it.
LATER_STAGE = ("tileir/pipelines.py", "tileir/registry.py", "tileir/backend/ptx/")

#: Stages before the LLVM lowering: none of them may reach forward into it.
EARLIER_STAGES = (
    "tileir/conversions/",
    "tileir/transforms/",
    "tileir/dialects/",
    "tileir/analysis/",
)


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, absolute dotted names; `from package import name`
    counts as an import of the package itself (its `__init__` runs and binds `name`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def package_graph() -> dict[str, set[str]]:
    """Module of the package -> the modules of the package it imports (`__init__` for
    the package itself)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        edges: set[str] = set()
        for name in imported_modules(path):
            if name == PACKAGE:
                edges.add(INIT)
            elif name.startswith(PACKAGE + "."):
                edges.add(name[len(PACKAGE) + 1 :].split(".")[0])
        graph[path.stem] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` as a path of modules, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for succ in sorted(graph.get(node, ())):
            if state.get(succ) == 1:
                return [*path[path.index(succ) :], succ]
            if succ not in state and (cycle := visit(succ)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def outside_importers() -> list[str]:
    """Modules of `tileir/` outside the package that import it or any of its modules."""
    importers: list[str] = []
    for path in sorted((ROOT / "tileir").rglob("*.py")):
        if PACKAGE_DIR in path.parents:
            continue
        names = imported_modules(path)
        if any(n == PACKAGE or n.startswith(PACKAGE + ".") for n in names):
            importers.append(path.relative_to(ROOT).as_posix())
    return importers


def test_package_has_no_import_cycle() -> None:
    graph = package_graph()
    assert len(graph) > 10, sorted(graph)
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_no_module_imports_the_package_init() -> None:
    offenders = sorted(m for m, edges in package_graph().items() if INIT in edges)
    assert offenders == [], offenders


def test_only_the_later_stage_imports_the_lowering() -> None:
    importers = outside_importers()
    assert "tileir/pipelines.py" in importers
    assert [m for m in importers if not m.startswith(LATER_STAGE)] == []


def test_no_earlier_stage_imports_the_lowering() -> None:
    assert [m for m in outside_importers() if m.startswith(EARLIER_STAGES)] == []


def test_cycle_finder_sees_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
