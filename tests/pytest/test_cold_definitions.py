"""tileir/utils/cold_definitions.py: dataclasses' generated docstrings on first read and
xDSL's rewrite-pattern decorators reading signatures without `inspect.signature`; a
compile-once process must define the same classes, docstrings and patterns as one
without them."""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from pathlib import Path
from types import FunctionType
from typing import ClassVar

import pytest
from xdsl.pattern_rewriter import RewritePattern

from tests.pytest.test_cold_start import _python
from tileir.utils import cold_definitions

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "tests" / "corpus" / "gemm_f16.tileirbc"

#: Compiles a kernel (cold start installed or not) and prints every dataclass's
#: `__doc__` and every `@op_type_rewrite_pattern` method's matched type.
DEFINITIONS = """
import dataclasses, gc, json, sys
if sys.argv[1] == "cold":
    from tileir.utils import cold_start, cold_definitions
    cold_start.install()
    import dataclasses
    assert dataclasses.inspect.signature is cold_definitions._doc_signature
from tileir.driver import assembler
assert assembler.run([sys.argv[2], "--gpu-name", "sm_90a", "-o", sys.argv[3]]) == 0
docs, patterns = {}, {}
for obj in gc.get_objects():
    if not isinstance(obj, type):
        continue
    name = f"{obj.__module__}.{obj.__qualname__}"
    if dataclasses.is_dataclass(obj):
        docs[name] = obj.__doc__
    method = obj.__dict__.get("match_and_rewrite")
    code = getattr(method, "__code__", None)
    if code is not None and code.co_name == "impl" and "expected_type" in code.co_freevars:
        cell = method.__closure__[code.co_freevars.index("expected_type")]
        patterns[name] = repr(cell.cell_contents)
print(json.dumps([docs, patterns], sort_keys=True))
"""


def _definitions(mode: str, tmp_path: Path) -> tuple[dict[str, str], dict[str, str]]:
    ptx = str(tmp_path / f"{mode}.ptx")
    out = _python(DEFINITIONS, mode, str(KERNEL), ptx, cache_dir=tmp_path, TILEIR_NO_CACHE="1")
    docs, patterns = json.loads(out.splitlines()[-1])
    return docs, patterns


def test_a_cold_compilation_defines_the_same_docstrings_and_patterns(tmp_path: Path) -> None:
    eager_docs, eager_patterns = _definitions("eager", tmp_path)
    cold_docs, cold_patterns = _definitions("cold", tmp_path)
    assert (tmp_path / "eager.ptx").read_bytes() == (tmp_path / "cold.ptx").read_bytes()
    # The cold process does not import the assembly-format parser (its classes only).
    assert len(cold_docs) > 900
    assert {n: d for n, d in eager_docs.items() if n in cold_docs} == cold_docs
    assert all(".declarative_assembly_format_parser." in n for n in eager_docs.keys() - cold_docs)
    assert len(cold_patterns) > 100
    assert cold_patterns == eager_patterns


def _lazily(cls: type) -> type:
    import dataclasses

    saved = dataclasses.inspect  # pyright: ignore[reportAttributeAccessIssue]
    dataclasses.inspect = cold_definitions._with_signature(  # pyright: ignore[reportAttributeAccessIssue]
        cold_definitions._doc_signature, "inspect"
    )
    try:
        return dataclass(cls)
    finally:
        dataclasses.inspect = saved  # pyright: ignore[reportAttributeAccessIssue]


def _point() -> type:
    class Point:
        x: int
        y: list[int] | None = None
        tag: ClassVar[str] = "p"

    return Point


def test_lazy_docstrings_read_as_eager_ones() -> None:
    class Documented:
        """Kept."""

        a: int

    lazy, eager = _lazily(_point()), dataclass(_point())
    assert isinstance(vars(lazy)["__doc__"], cold_definitions._LazyDoc)
    assert lazy.__doc__ == eager.__doc__ == "Point(x: 'int', y: 'list[int] | None' = None)"
    assert lazy(1).__doc__ == lazy.__doc__
    assert inspect.getdoc(lazy) == inspect.getdoc(eager)
    assert _lazily(Documented).__doc__ == "Kept."

    class Child(lazy):
        z: float = 0.0

    class EagerChild(eager):
        z: float = 0.0

    assert _lazily(Child).__doc__ == str(dataclass(EagerChild).__doc__).replace(
        "EagerChild", "Child"
    )
    assert Child.__doc__ == "Child(x: 'int', y: 'list[int] | None' = None, z: 'float' = 0.0)"


def _positional(self, op: FunctionType, rewriter: int, /, extra=3) -> None: ...


def _keywords(self, op: FunctionType, *, rewriter: int) -> None: ...


def test_pattern_signature_is_inspect_signature_for_plain_functions() -> None:
    def plain(self, op: FunctionType, rewriter: int) -> None: ...

    for func in (plain, _positional):
        fast = cold_definitions.pattern_signature(func, eval_str=True)
        slow = inspect.signature(func, eval_str=True)
        assert isinstance(fast, cold_definitions._Signature)
        assert [(p.name, p.annotation) for p in fast.parameters.values()] == [
            (p.name, p.annotation) for p in slow.parameters.values()
        ]
    # Keyword-only parameters, no eval_str: inspect's own.
    assert isinstance(
        cold_definitions.pattern_signature(_keywords, eval_str=True), inspect.Signature
    )
    assert isinstance(cold_definitions.pattern_signature(plain), inspect.Signature)

    def unknown(self, op: NoSuchOp, rewriter: int) -> None: ...  # noqa: F821  # pyright: ignore[reportUndefinedVariable]

    with pytest.raises(NameError):
        _ = cold_definitions.pattern_signature(unknown, eval_str=True).parameters["op"].annotation


def _subclasses(cls: type) -> set[type]:
    """Every class below `cls` (found from the class, not from `gc.get_objects()`, which
    leaves out what the suite's conftest froze)."""
    found: set[type] = set()
    stack = [cls]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                stack.append(sub)
    return found


def test_every_pattern_signature_equals_inspects() -> None:
    """In this process (no cold start): the fast signature of every pattern method the
    compiler defines equals inspect's, every annotation evaluated."""
    import tileir.compiler  # noqa: F401  (defines the passes' patterns)

    checked = 0
    for obj in _subclasses(RewritePattern):
        method = obj.__dict__.get("match_and_rewrite")
        code = getattr(method, "__code__", None)
        if code is None or code.co_name != "impl" or "func" not in code.co_freevars:
            continue
        cells = getattr(method, "__closure__")  # noqa: B009
        func = cells[code.co_freevars.index("func")].cell_contents
        fast = cold_definitions.pattern_signature(func, eval_str=True)
        slow = inspect.signature(func, eval_str=True)
        assert [(p.name, p.annotation) for p in fast.parameters.values()] == [
            (p.name, p.annotation) for p in slow.parameters.values()
        ], obj
        checked += 1
    assert checked > 100
