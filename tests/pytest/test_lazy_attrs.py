"""Parametrized attribute definitions on first use (tileir/utils/lazy_attrs.py,
docs/performance.md): a cold tileir-as process defines an xDSL attribute when the first
attribute of its class is made or its class is asked for its definition.  Every
attribute so defined must be what `@irdl_attr_definition` makes at the class statement,
final from the start, and a compilation must leave some undefined (or the saving has
quietly gone)."""

from __future__ import annotations

from pathlib import Path

from test_cold_start import _python  # pyright: ignore[reportPrivateUsage]

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"

#: Imports every dialect a compilation can load (defining their attributes lazily or
#: not), checks that each is final before its definition, then prints, per attribute
#: class, its definition and what the class itself holds.
DEFINITIONS = """
import re, sys
if sys.argv[1] == "lazy":
    from tileir.utils import lazy_attrs
    assert lazy_attrs.install()
import tileir.compiler, tileir.pipelines, tileir.conversions.tileas_to_llvm
from tileir.registry import DIALECTS
for factory in DIALECTS.values():
    factory()
from xdsl.ir import ParametrizedAttribute
from xdsl.utils.runtime_final import is_runtime_final
if sys.argv[1] == "lazy":
    assert len(lazy_attrs.pending()) > 40, len(lazy_attrs.pending())
    assert all(is_runtime_final(cls) for cls in lazy_attrs.pending())
    lazy_attrs.define_all()

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

lines = []
for cls in set(subclasses(ParametrizedAttribute)):
    if "get_irdl_definition" not in vars(cls):
        continue  # not an attribute definition (a base class)
    own = sorted(
        (name, type(value).__qualname__, getattr(value, "__qualname__", ""), repr(value)
         if name in ("__final__", "__match_args__", "__dataclass_params__") else "")
        for name, value in vars(cls).items()
        if name != "__doc__"
    )
    fields = sorted(cls.__dataclass_fields__)
    typed = cls.get_type_index() if "get_type_index" in vars(cls) else None
    line = f"{cls.__module__}.{cls.__qualname__} {cls.get_irdl_definition()!r} {fields} {typed} {own}"
    lines.append(re.sub(" at 0x[0-9a-f]+", "", line))  # objects without a repr of their own
print(len(lines))
print("\\n".join(sorted(lines)))
"""

#: Compiles a kernel as a cold tileir-as does, then prints how many attributes are
#: still undefined and whether a few that the kernel does not use are.
COMPILE = """
import sys
from tileir.utils import cold_start, lazy_attrs
cold_start.install()
assert lazy_attrs.installed()
from tileir.driver import assembler
assert assembler.run([sys.argv[1], "--gpu-name", "sm_90a", "-o", sys.argv[2]]) == 0
from xdsl.dialects import builtin, llvm
from tileir.dialects.nv_tileas import types
pending = lazy_attrs.pending()
print(len(pending), all(c in pending for c in (builtin.ComplexType, llvm.LLVMArrayType,
                                               types.TmaDescType)))
"""


def test_lazy_definitions_are_the_eager_ones(tmp_path: Path) -> None:
    eager = _python(DEFINITIONS, "eager", cache_dir=tmp_path).splitlines()
    lazy = _python(DEFINITIONS, "lazy", cache_dir=tmp_path).splitlines()
    assert int(eager[0]) > 80
    assert lazy == eager


def test_a_compilation_defines_only_the_attributes_it_uses(tmp_path: Path) -> None:
    # The same PTX as a process that defines every attribute at import:
    # test_cold_start.py's cold process, whose `cold_start.install` makes them lazy.
    kernel = str(CORPUS / "vadd_f32.tileirbc")
    count, unused_pending = _python(
        COMPILE, kernel, str(tmp_path / "vadd.ptx"), cache_dir=tmp_path
    ).split()
    assert int(count) > 20 and unused_pending == "True"
