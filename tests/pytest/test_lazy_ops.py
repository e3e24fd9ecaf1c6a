"""Op definitions on first use (tileir/utils/lazy_ops.py, docs/performance.md): a cold
tileir-as process defines an xDSL op when its first op is made or its class is asked
for what the definition sets.  Every op so defined must be what `@irdl_op_definition`
makes at the class statement, and a compilation must leave most ops undefined (or the
saving has quietly gone)."""

from __future__ import annotations

from pathlib import Path

from test_cold_start import _python  # pyright: ignore[reportPrivateUsage]

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"

#: Imports every dialect a compilation can load (defining their ops lazily or not) and
#: prints, per op class, its definition and what the class itself holds.
DEFINITIONS = """
import dataclasses, re, sys
if sys.argv[1] == "lazy":
    from tileir.utils import lazy_ops
    assert lazy_ops.install()
import tileir.compiler, tileir.pipelines, tileir.conversions.tileas_to_llvm
from tileir.registry import DIALECTS
for factory in DIALECTS.values():
    factory()
from xdsl.irdl import IRDLOperation
if sys.argv[1] == "lazy":
    assert len(lazy_ops.pending()) > 300, len(lazy_ops.pending())
    lazy_ops.define_all()

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

def describe(trait):
    kind = f"{type(trait).__module__}.{type(trait).__qualname__}"
    return repr(trait) if dataclasses.is_dataclass(trait) else kind

lines = []
for cls in set(subclasses(IRDLOperation)):
    if "get_irdl_definition" not in vars(cls):
        continue  # not an op definition (a base class)
    own = sorted(
        (name, type(value).__qualname__, getattr(value, "__qualname__", ""))
        for name, value in vars(cls).items()
        if name not in ("__new__", "__doc__")
    )
    definition = cls.get_irdl_definition()
    traits = sorted(map(describe, definition.traits))
    definition = dataclasses.replace(definition, traits=None)
    line = f"{cls.__module__}.{cls.__qualname__} {definition!r} {traits} {own}"
    lines.append(re.sub(" at 0x[0-9a-f]+", "", line))  # objects without a repr of their own
print(len(lines))
print("\\n".join(sorted(lines)))
"""

#: Compiles a kernel as a cold tileir-as does, then prints how many ops are defined
#: and whether a few that the kernel does not use are.
COMPILE = """
import sys
from tileir.utils import cold_start, lazy_ops
cold_start.install()
assert lazy_ops.installed()
from tileir.driver import assembler
assert assembler.run([sys.argv[1], "--gpu-name", "sm_90a", "-o", sys.argv[2]]) == 0
from xdsl.dialects import arith, llvm
from tileir.dialects.nv_tileas.ops import tmem
pending = lazy_ops.pending()
print(len(pending), all(c in pending for c in (arith.FloorDivSIOp, llvm.StackSaveOp,
                                               tmem.ReadTmemAccumulatorOp)))
"""


def test_lazy_definitions_are_the_eager_ones(tmp_path: Path) -> None:
    eager = _python(DEFINITIONS, "eager", cache_dir=tmp_path).splitlines()
    lazy = _python(DEFINITIONS, "lazy", cache_dir=tmp_path).splitlines()
    assert int(eager[0]) > 350
    assert lazy == eager


def test_a_compilation_defines_only_the_ops_it_makes(tmp_path: Path) -> None:
    # The same PTX as a process that defines every op at import: test_cold_start.py's
    # cold process, whose `cold_start.install` makes them lazy.
    kernel = str(CORPUS / "vadd_f32.tileirbc")
    count, unused_pending = _python(
        COMPILE, kernel, str(tmp_path / "vadd.ptx"), cache_dir=tmp_path
    ).split()
    assert int(count) > 250 and unused_pending == "True"
