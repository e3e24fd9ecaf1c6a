"""What a fresh `tileir-as` process pays before it compiles: two costs of defining xDSL's
classes that a bytecode -> cubin compilation does not need to pay at import.

- **The dataclasses' generated methods** (`code_cache`).  `dataclasses` writes the
  source of each class's `__init__`, `__eq__`, `__hash__`, `__repr__`, frozen
  `__setattr__`... and `exec`s it: about 2,000 compilations of Python source for the
  ~420 dataclasses that tileir and xDSL define (each xDSL attribute is one), 0.13-0.2 s of
  CPU of every cold process, a third of its imports.  Installed, `dataclasses`' `exec`
  looks the source text up in a table of compiled code objects, kept between processes
  in the cache directory (`<cache>/code/`, beside the result cache of
  tileir/driver/cache.py), and compiles only a text it has not seen.  The same code
  object the text compiles to (same file name `<string>`, no inherited `__future__`
  flags: dataclasses.py has none), executed in the same namespaces, so every class and
  method is what it was; the table is keyed by the source text itself, so it cannot go
  stale, and by the interpreter's bytecode magic.  A table that is missing, truncated or
  corrupted is ignored (and rewritten); `TILEIR_CODE_CACHE=0` turns it off.  Like
  Python's own `__pycache__`, it is state on disk that makes a later start faster and
  never changes an output.
- **The ops' declarative assembly formats** (`lazy_assembly_formats`).  xDSL parses
  each op's `assembly_format` into a program when the op class is defined: ~180 formats,
  about 10% of the imports (and the import of the format parser).  Only printing or
  parsing an op in its custom form uses the program, which a bytecode -> cubin run never
  does; installed, an op's program is parsed on first use instead, into the same
  program, and the op's `parse` and `print` behave as before.  (A malformed format
  raises its error on first use rather than at import: tests/pytest/test_cold_start.py
  builds every registered op's program.)

`install()` sets both up, and those of tileir/utils/lazy_ops.py and
tileir/utils/cold_definitions.py; tileir-as calls it before it imports the compiler in a
process that compiles once (`python -m tileir.driver.assembler`, the client's
in-process fallback), not in callers of the Python API.  The compile server installs
only the table (its start-up to warm, 1.36 -> 1.19 s of CPU), and keeps parsing formats
at definition: its workers fork from it and would each parse again the formats they
print.  Standard library only at import.
"""

# No `from __future__ import annotations` here: this module calls `compile`, and the
# dataclasses' source must compile without any `__future__` flag (`dont_inherit` makes
# sure of it anyway).
import builtins
import gc
import marshal
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import CodeType

#: `TILEIR_CODE_CACHE=0`: compile the dataclasses' methods as Python does, every time.
CODE_CACHE_ENV = "TILEIR_CODE_CACHE"
#: The table's file starts with this, then the interpreter's bytecode magic number and
#: optimization level.
MAGIC = b"TILEIR-CODE-1\n"
#: A table that grew past this many texts, and past twice what the current process
#: used (texts of older tileir or xDSL versions), is rewritten with only what the
#: current process used: a compilation uses ~1,250 (1.1 MB, read in 7 ms).
MAX_ENTRIES = 4_000


def _bytecode_magic() -> bytes:
    import _frozen_importlib_external  # built in: no import cost

    return _frozen_importlib_external.MAGIC_NUMBER


class CodeCache:
    """Compiled code objects of source texts, loaded from and saved to `path`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.codes: dict[str, CodeType] = {}
        self.used: set[str] = set()
        self.misses = 0
        self.load()

    def header(self) -> bytes:
        # `python -O` compiles differently: its table is its own.
        return MAGIC + _bytecode_magic() + bytes([sys.flags.optimize & 0xFF])

    def load(self) -> None:
        try:
            with open(self.path, "rb") as f:
                st = os.fstat(f.fileno())
                if st.st_uid != os.getuid() or st.st_mode & 0o022:
                    return  # code only from a file that no one else could have written
                data = f.read()
        except OSError:
            return
        header = self.header()
        if not data.startswith(header):
            return
        try:
            table = marshal.loads(data[len(header) :])
        except (ValueError, EOFError, TypeError):
            return  # truncated or corrupted: recompiled, and rewritten on save
        if not isinstance(table, dict):
            return
        self.codes = {
            text: code
            for text, code in table.items()
            if isinstance(text, str) and isinstance(code, CodeType)
        }

    def compiled(self, text: str) -> CodeType:
        code = self.codes.get(text)
        if code is None:
            code = builtins.compile(text, "<string>", "exec", dont_inherit=True)
            self.codes[text] = code
            self.misses += 1
        self.used.add(text)
        return code

    def save(self) -> None:
        """Write the table if this process compiled a text it did not have (atomically:
        concurrent writers each replace the whole file); every failure is ignored."""
        if not self.misses:
            return
        codes = self.codes
        if len(codes) > max(MAX_ENTRIES, 2 * len(self.used)):
            codes = {text: codes[text] for text in self.used}
        try:
            data = self.header() + marshal.dumps(codes)
        except ValueError:
            return
        from tileir.driver.cache import ResultCache

        root = os.path.dirname(os.path.dirname(self.path))
        try:
            cache = ResultCache(root)
            os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
            cache.write_atomic(self.path, data)
        except OSError:
            return
        self.misses = 0


_code_cache: CodeCache | None = None


def code_cache_path() -> str:
    from tileir.driver.cache import cache_dir

    tag = sys.implementation.cache_tag or "python"
    return os.path.join(cache_dir(), "code", f"dataclasses-{tag}.bin")


def install_code_cache(path: str | None = None) -> CodeCache | None:
    """Make `dataclasses` compile its generated methods through a `CodeCache` (saved at
    exit when it learned a text).  Returns it; None when turned off or already
    installed."""
    global _code_cache
    if os.environ.get(CODE_CACHE_ENV, "") == "0" or _code_cache is not None:
        return None
    import atexit
    import dataclasses

    cache = CodeCache(path or code_cache_path())

    def exec_cached(source, globals=None, locals=None, /):
        if isinstance(source, str):
            source = cache.compiled(source)
        return builtins.exec(source, globals, locals)

    dataclasses.exec = exec_cached  # pyright: ignore[reportAttributeAccessIssue]
    _code_cache = cache
    atexit.register(cache.save)
    return cache


def lazy_assembly_formats() -> bool:
    """Make xDSL parse an op's declarative assembly format on its first print or parse
    instead of at the op's definition.  False if xDSL's definition code is not the one
    this was written against (then nothing changes)."""
    from xdsl.irdl import operations

    eager = operations.get_accessors_from_op_def
    if getattr(eager, "tileir_lazy", False):
        return True
    if not hasattr(operations.OpDef, "__dataclass_fields__") or (
        "assembly_format" not in operations.OpDef.__dataclass_fields__
    ):
        return False

    def get_accessors_from_op_def(op_def, custom_verify):
        text = op_def.assembly_format
        if text is None:
            return eager(op_def, custom_verify)
        op_def.assembly_format = None
        try:
            new_attrs = eager(op_def, custom_verify)
        finally:
            op_def.assembly_format = text
        programs = []

        def program():
            if not programs:
                from xdsl.irdl.declarative_assembly_format import FormatProgram
                from xdsl.utils.exceptions import ParseError, PyRDLOpDefinitionError

                try:
                    programs.append(FormatProgram.from_str(text, op_def))
                except ParseError as e:
                    raise PyRDLOpDefinitionError(
                        "Error during the parsing of the assembly format: ", e.args
                    ) from e
            return programs[0]

        def parse_with_format(cls, parser):
            return program().parse(parser, cls)

        def print_with_format(self, printer):
            return program().print(printer, self)

        new_attrs["parse"] = classmethod(parse_with_format)
        new_attrs["print"] = print_with_format
        return new_attrs

    get_accessors_from_op_def.tileir_lazy = True  # pyright: ignore[reportFunctionMemberAccess]
    operations.get_accessors_from_op_def = get_accessors_from_op_def
    return True


#: Whether `install` paused the cyclic garbage collector (`resume_collector`).
_collector_paused = False


def resume_collector() -> bool:
    """The collector back on if `install` paused it (and nothing turned it on since);
    whether it had.  `single_run_imports` calls it."""
    global _collector_paused
    paused, _collector_paused = _collector_paused, False
    if paused:
        gc.enable()
    return paused


#: Allocations between two collections of the youngest generation while a single run
#: compiles (Python's default: 700).
COMPILE_GC_THRESHOLD = 100_000


@contextmanager
def single_run_imports() -> Iterator[None]:
    """Import the compiler, in a process that runs it once (tileir-as's single run or a
    server's worker, tileir-opt), with the cyclic garbage collector paused, and then
    freeze what was imported.  The imports build a great many long-lived objects (xDSL's
    op and attribute definitions) and almost no garbage, yet set off about 200
    collections that rescan them all: 50-150 ms of a one-kernel run.  Frozen, they are
    left out of the later collections.

    What follows is one compilation (or one `tileir-opt` pipeline), which makes hundreds
    of thousands of short-lived objects and little cyclic garbage: the youngest
    generation is collected every `COMPILE_GC_THRESHOLD` allocations instead of every
    700, which was 12-17% of the compile time of the held-out kernels (peak memory of
    the largest, an FFT, 116 MiB before and after).  And its `isinstance` checks against
    xDSL's classes are answered in C (tileir/utils/plain_isinstance.py): 8% of a
    compilation; and xDSL's walks, named operands and results, result indexing and
    erasure take fewer Python calls (tileir/utils/fast_ir.py): 6-8%."""
    enabled = resume_collector() or gc.isenabled()  # paused since `install`
    gc.disable()
    try:
        yield
        from tileir.utils import fast_ir, plain_isinstance

        if not plain_isinstance.installed():
            plain_isinstance.install()
        fast_ir.install()
    finally:
        gc.freeze()
        gc.set_threshold(COMPILE_GC_THRESHOLD, *gc.get_threshold()[1:])
        if enabled:
            gc.enable()


def install() -> None:
    """All of them (the table, lazy formats, lazy op definitions: tileir/utils/lazy_ops.py,
    dataclasses' docstrings on first read and cheaper pattern signatures:
    tileir/utils/cold_definitions.py), in a process that imports the compiler to compile
    once (before it does; nothing if xDSL's dialects are imported already, as in the
    server's workers).

    It also pauses the cyclic garbage collector until
    `single_run_imports` (which pauses it over the compiler's imports and freezes
    them) turns it back on, `resume_collector`: what is imported before, xDSL's IR
    classes, their definitions and the driver (~100 modules), makes long-lived objects
    and hardly any garbage, yet set off ~50 collections of the youngest generation and
    ~5 of the middle one, 10-20 ms of a cold run."""
    if "xdsl.dialects.builtin" in sys.modules:
        return
    global _collector_paused
    if gc.isenabled():
        gc.disable()
        _collector_paused = True
    install_code_cache()
    from tileir.utils import cold_definitions, lazy_attrs, lazy_ops

    cold_definitions.lazy_dataclass_docs()
    lazy_assembly_formats()
    lazy_ops.install()
    lazy_attrs.install()
    cold_definitions.cheap_pattern_signatures()
