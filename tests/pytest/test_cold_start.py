"""A fresh tileir-as process's start-up (tileir/utils/cold_start.py, docs/performance.md):
the dataclasses' generated methods come from a table of compiled code kept between
processes, and the ops' assembly formats are parsed on first use.  Neither may change
a class, a method, a printed op or an output byte; a broken table is ignored; and a
compilation imports neither the format parser nor the interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tileir.utils import cold_start

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"

#: Defines dataclasses of each kind that `dataclasses` generates code for, and prints
#: the code of their methods and what they do.
DATACLASSES = """
import dataclasses, sys
from tileir.utils import cold_start
if sys.argv[1] == "cached":
    cache = cold_start.install_code_cache(sys.argv[2])
    assert cache is not None
from dataclasses import dataclass, field

@dataclass(frozen=True)
class Frozen:
    a: int
    b: "list[int]" = field(default_factory=list)

@dataclass(order=True, kw_only=True)
class Ordered:
    x: float = 1.5
    y: str = "y"

out = []
for cls in (Frozen, Ordered):
    for name in sorted(vars(cls)):
        fn = vars(cls)[name]
        code = getattr(fn, "__code__", None)
        if code is not None:
            out.append((cls.__name__, name, code.co_code, code.co_consts, code.co_names,
                        code.co_varnames, code.co_filename, code.co_flags,
                        repr(fn.__annotations__)))
out.append(repr(Frozen(1, [2])) + repr(Ordered(x=2.0) < Ordered(x=3.0)))
out.append(repr(hash(Frozen(1, ())) == hash(Frozen(1, ()))))
try:
    Frozen(1).a = 2
except dataclasses.FrozenInstanceError as e:
    out.append("frozen: " + str(e))
print(repr(out))
"""


def _python(code: str, *args: str, cache_dir: Path, **env: str) -> str:
    environ = {**os.environ, "TILEIR_CACHE_DIR": str(cache_dir), **env}
    environ.pop("TILEIR_CODE_CACHE", None)
    environ.update(env)
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=environ,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_cached_code_makes_the_same_dataclasses(tmp_path: Path) -> None:
    table = tmp_path / "code.bin"
    plain = _python(DATACLASSES, "plain", cache_dir=tmp_path).splitlines()[-1]
    first = _python(DATACLASSES, "cached", str(table), cache_dir=tmp_path).splitlines()[-1]
    assert table.is_file()
    second = _python(DATACLASSES, "cached", str(table), cache_dir=tmp_path).splitlines()[-1]
    assert plain == first == second


def test_code_table_round_trip_and_corruption(tmp_path: Path) -> None:
    path = str(tmp_path / "code" / "t.bin")
    cache = cold_start.CodeCache(path)
    text = "def __create_fn__():\n def f(self):\n  return 1\n return f"
    code = cache.compiled(text)
    assert cache.misses == 1
    cache.save()
    again = cold_start.CodeCache(path)
    assert again.codes == {text: code}
    assert again.compiled(text) == code and again.misses == 0
    Path(path).chmod(0o664)  # a table others could have written is not read
    assert cold_start.CodeCache(path).codes == {}
    Path(path).chmod(0o600)
    data = Path(path).read_bytes()
    for broken in (data[: len(data) // 2], data[:10], b"", b"garbage" * 10):
        Path(path).write_bytes(broken)
        damaged = cold_start.CodeCache(path)
        assert damaged.codes == {}
        assert damaged.compiled(text) == code  # compiled again, the same code
        damaged.save()
        assert cold_start.CodeCache(path).codes == {text: code}  # and rewritten whole


def test_a_table_of_stale_texts_is_rewritten_with_the_used_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cold_start, "MAX_ENTRIES", 4)
    path = str(tmp_path / "t.bin")
    old = cold_start.CodeCache(path)
    for i in range(5):
        old.compiled(f"x = {i}")
    old.save()
    new = cold_start.CodeCache(path)
    assert len(new.codes) == 5
    new.compiled("x = 0")
    new.compiled("y = 1")  # a miss: the table is written again, with what was used
    new.save()
    assert sorted(cold_start.CodeCache(path).codes) == ["x = 0", "y = 1"]


def test_every_assembly_format_a_compilation_loads_parses() -> None:
    """Formats are parsed on first use in a cold process, so a malformed one would no
    longer fail at import: parse those of tileir's dialects and of the xDSL dialects a
    compilation loads here."""
    from xdsl.dialects import get_all_dialects
    from xdsl.irdl import IRDLOperation
    from xdsl.irdl.declarative_assembly_format import FormatProgram

    from tileir.registry import DIALECTS

    xdsl_dialects = get_all_dialects()
    factories = [*DIALECTS.values()]
    factories += [xdsl_dialects[name] for name in ("builtin", "llvm", "arith", "scf", "func")]
    checked = 0
    for factory in factories:
        for op in factory().operations:
            if not issubclass(op, IRDLOperation):
                continue  # builtin's UnregisteredOp
            op_def = op.get_irdl_definition()
            if op_def.assembly_format is not None:
                FormatProgram.from_str(op_def.assembly_format, op_def)
                checked += 1
    assert checked > 100


#: The PTX and the llvm stage's text (every op in its custom form) from a process that
#: starts as a cold tileir-as does, and what it imported besides.
COMPILE = """
import sys
from tileir.utils import cold_start
cold_start.install()
assert cold_start._code_cache is not None
from tileir.driver import assembler
assert assembler.run([sys.argv[1], "--gpu-name", "sm_90a", "-o", sys.argv[2]]) == 0
print(sorted(m for m in sys.modules if m.startswith(PREFIXES)))
assert assembler.run([sys.argv[1], "--gpu-name", "sm_90a", "-o", sys.argv[3], "--emit=llvm"]) == 0
print(sorted(m for m in sys.modules if m.startswith(PREFIXES)))
""".replace(
    "PREFIXES", repr(("tileir.interpreter", "xdsl.irdl.declarative_assembly_format_parser"))
)


def test_cold_start_compiles_the_same_bytes_and_imports_less(tmp_path: Path) -> None:
    from tileir.driver import assembler

    kernel = str(CORPUS / "vadd_f32.tileirbc")
    expected = []
    for emit, name in (([], "vadd.ptx"), (["--emit=llvm"], "vadd.llvm")):
        assert (
            assembler.run([kernel, "--gpu-name", "sm_90a", "-o", str(tmp_path / name), *emit]) == 0
        )
        expected.append((tmp_path / name).read_bytes())
    # `python -m tileir.driver.assembler` installs both and writes the table...
    command = [sys.executable, "-X", "importtime", "-m", "tileir.driver.assembler", kernel]
    done = subprocess.run(
        [*command, "-o", str(tmp_path / "first.ptx"), "--gpu-name", "sm_90a"],
        capture_output=True,
        text=True,
        env={**os.environ, "TILEIR_CACHE_DIR": str(tmp_path), "TILEIR_NO_CACHE": "1"},
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "first.ptx").read_bytes() == expected[0]
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "tileir.compiler" in imported
    assert not imported & {"xdsl.irdl.declarative_assembly_format_parser", "tileir.interpreter"}
    assert len(list((tmp_path / "code").iterdir())) == 1
    # ...which the next process reads.  The PTX needed no format; printing the llvm
    # stage builds those it prints.
    ptx, llvm = tmp_path / "second.ptx", tmp_path / "second.llvm"
    imported = _python(COMPILE, kernel, str(ptx), str(llvm), cache_dir=tmp_path).splitlines()
    assert [ptx.read_bytes(), llvm.read_bytes()] == expected
    assert imported == ["[]", str(["xdsl.irdl.declarative_assembly_format_parser"])]


def test_code_cache_off(tmp_path: Path) -> None:
    code = "from tileir.utils import cold_start\nprint(cold_start.install_code_cache() is None)\n"
    assert _python(code, cache_dir=tmp_path, TILEIR_CODE_CACHE="0").strip() == "True"


#: `tileir-opt` commands whose output (stdout and stderr) the console entry point
#: (tileir/driver/opt_entry.py: definitions on first use, frozen imports, plain
#: `isinstance`) must give byte for byte as `python -m tileir.driver.opt` does: the
#: custom forms printed and parsed, every stage's IR after a pass, an error located.
OPT_COMMANDS = [
    ["%corpus/gemm_f16.mlir"],
    ["%corpus/gemm_f16.mlir", "-p", "cuda-tile-to-ptx{arch=sm_90a}", "--print-ir-after-all"],
    [
        "%corpus/flash_attention_f16.mlir",
        "-p",
        "cuda-tile-to-ptx{arch=sm_100a}",
        "-t",
        "ptx{arch=sm_100a}",
    ],
    ["%corpus/vadd_f32.mlir", "-p", "no-such-pass"],
]


@pytest.mark.parametrize("command", OPT_COMMANDS, ids=lambda c: " ".join(c[1:]) or "print")
def test_tileir_opt_entry_point_gives_the_module_runs_output(command: list[str]) -> None:
    argv = [a.replace("%corpus", str(CORPUS)) for a in command]
    env = {**os.environ, "TILEIR_SERVER": "0"}
    entry = "from tileir.driver.opt_entry import main; main()"
    plain = subprocess.run(
        [sys.executable, "-m", "tileir.driver.opt", *argv], capture_output=True, env=env
    )
    cold = subprocess.run([sys.executable, "-c", entry, *argv], capture_output=True, env=env)
    assert (cold.returncode, cold.stdout, cold.stderr) == (
        plain.returncode,
        plain.stdout,
        plain.stderr,
    )
    assert plain.stdout or plain.returncode == 1
