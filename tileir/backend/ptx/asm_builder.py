"""`PtxAsm`: the one place where the PTX text of an `llvm.inline_asm` is written.

The llvm+nvvm stage is typed llvm and nvvm ops wherever one expresses the instruction
(docs/codegen.md, "The llvm+nvvm stage").  What is left needs PTX that neither dialect
has: predicated global vector accesses with their per-element fallbacks
(`memory_asm.py`), atomics and reductions in global memory, the shared-memory stores
only some threads make, `.shared` and `.global` declarations, conversions LLVM has no
intrinsic for, and the `vprintf` / `__assertfail` calls.  Each is described to a
`PtxAsm`, in the spirit of Triton's `PTXBuilder`: its operands bound to SSA values
(`input`, `output`; the LLVM NVPTX constraint follows from the type), the registers and
declarations local to its `{ }` scope (`register`, `declare`), and its instructions as
an opcode and operands with an optional guard predicate (`instr`).
`LLBuilder.asm` makes the one `llvm.inline_asm`; nothing else writes PTX text for it.

Operand helpers format the PTX operand forms (`vector`, `address`, `immediate`,
`array`, `parenthesized`, `byte_initializer`), so that callers name the parts of an
instruction and never join PTX text themselves.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
)
from xdsl.ir import Attribute, SSAValue

from tileir.backend.ptx.registers import is_shared_pointer

#: Operands are formatted PTX text (`$3`, `t_all`, `{$0, $1}`, `[$4+8]`, `0x0000`).
Operand = str


def constraint_of(t: Attribute) -> str:
    """LLVM's NVPTX inline-asm constraint letter of a register of type `t`: `b` a
    predicate, `h` 16 bits (and i8, which lives in a 16-bit register), `r` 32 bits (and
    a shared pointer), `f` f32, `l` 64 bits, `d` f64."""
    if isinstance(t, IntegerType):
        return {1: "b", 8: "h", 16: "h", 32: "r", 64: "l"}[t.width.data]
    if isinstance(t, Float16Type | BFloat16Type):
        return "h"
    if isinstance(t, Float32Type):
        return "f"
    if isinstance(t, Float64Type):
        return "d"
    if isinstance(t, llvm.LLVMPointerType):
        return "r" if is_shared_pointer(t) else "l"
    raise ValueError(f"no inline-asm constraint for {t}")


def opcode(*parts: str) -> str:
    """An instruction name from its parts: `opcode("ld", "global", "v4", "b32")` is
    `ld.global.v4.b32` (empty parts are skipped)."""
    return ".".join(part for part in parts if part)


def typed(kind: str, bits: int) -> str:
    """A type modifier: `typed("b", 32)` is `b32`, `typed("s", 8)` is `s8`."""
    return f"{kind}{bits}"


def lanes(count: int) -> str:
    """The vector modifier of `count` lanes, `v4` (none for one)."""
    return f"v{count}" if count > 1 else ""


def vector(items: Sequence[Operand]) -> Operand:
    """`{a, b, c, d}`; a single item stands alone."""
    return items[0] if len(items) == 1 else "{" + ", ".join(items) + "}"


def address(base: Operand, offset: int | None = None) -> Operand:
    """`[base]`, or `[base+offset]` when an offset is given (0 included)."""
    return f"[{base}]" if offset is None else f"[{base}+{offset}]"


def immediate(value: int, bits: int | None = None) -> Operand:
    """An integer immediate: decimal, or with `bits`, hexadecimal of that many bits
    (`0x0000FFFF`), the value reduced to them."""
    if bits is None:
        return str(value)
    return f"0x{value & ((1 << bits) - 1):0{max(1, bits // 4)}X}"


def array(name: str, size: int) -> Operand:
    """`name[size]`, an array in a declaration."""
    return f"{name}[{size}]"


def parenthesized(items: Sequence[Operand]) -> Operand:
    """`(a, b)`: the argument and return lists of `call`."""
    return "(" + ", ".join(items) + ")"


def byte_initializer(data: bytes) -> Operand:
    """`{104, 105, 0}`: the initializer of a `.b8` array."""
    return "{" + ", ".join(str(byte) for byte in data) + "}"


def param(ptx_type: str, name: str) -> str:
    """`.param .b64 name`: a call parameter, or one of a function's declaration."""
    return f".param .{ptx_type} {name}"


#: Marks the placeholders of operands until their numbers are known (outputs first).
_MARK = "\x00"


@dataclass
class PtxAsm:
    """One inline-asm block under construction.  `scoped` wraps it in `{ }`, so that
    its registers and declarations are its own and blocks never clash."""

    scoped: bool = True
    _outputs: list[tuple[str, Attribute]] = field(default_factory=list)
    _inputs: list[tuple[str, SSAValue]] = field(default_factory=list)
    _lines: list[str] = field(default_factory=list)

    # -- operands ---------------------------------------------------------------------
    def output(self, t: Attribute, constraint: str | None = None) -> Operand:
        """A result of type `t`."""
        self._outputs.append(("=" + (constraint or constraint_of(t)), t))
        return f"{_MARK}o{len(self._outputs) - 1}{_MARK}"

    def input(self, value: SSAValue, constraint: str | None = None) -> Operand:
        """An operand bound to `value`."""
        self._inputs.append((constraint or constraint_of(value.type), value))
        return f"{_MARK}i{len(self._inputs) - 1}{_MARK}"

    # -- the block's own names ----------------------------------------------------------
    def register(self, ptx_type: str, *names: str) -> list[Operand]:
        """Declares `.reg .<ptx_type> <names>;` here (scratch registers of the block)."""
        self.declare(f".reg .{ptx_type}", ", ".join(names))
        return list(names)

    def declare(self, *tokens: str) -> None:
        """A directive here, its tokens joined by spaces: `.param .b64 param0`."""
        self._lines.append(" ".join(tokens) + ";")

    def declare_bytes(
        self, space: str, name: str, size: int, alignment: int, data: bytes | None = None
    ) -> Operand:
        """`.<space> .align <alignment> .b8 <name>[<size>][ = {...}];`: a byte array in
        `shared`, `global` or `local` memory, initialized with `data` if given."""
        tokens = [f".{space}", f".align {alignment}", ".b8", array(name, size)]
        if data is not None:
            tokens += ["=", byte_initializer(data)]
        self.declare(*tokens)
        return name

    def declare_function(self, name: str, params: Sequence[str], result: str | None = None) -> None:
        """`.extern .func [(<result>)] <name> (<params>);`, a function the block calls."""
        tokens = [".extern .func"]
        if result is not None:
            tokens.append(parenthesized([result]))
        self.declare(*tokens, name, parenthesized(params))

    # -- instructions -----------------------------------------------------------------
    def instr(
        self, name: str, *operands: Operand, guard: Operand | None = None, negate: bool = False
    ) -> None:
        """`[@[!]guard] name operand, ...;`."""
        prefix = "" if guard is None else f"@{'!' if negate else ''}{guard} "
        body = f"{name} {', '.join(operands)}" if operands else name
        self._lines.append(f"{prefix}{body};")

    def label(self, name: str) -> str:
        """`name:` here, for a branch within the block (a scoped block's labels are its
        own, as ptxas takes them: every copy of the block may use the same name)."""
        assert self.scoped, "a label outside a scoped block would clash with its copies"
        self._lines.append(f"{name}:")
        return name

    def nest(self, inner: PtxAsm) -> None:
        """`inner`'s lines here, in a scope of their own (`{ }`: its registers and labels
        stay its own, so copies of one block can sit side by side), its operands bound to
        this block's (one operand per value and constraint).  `inner` has no outputs."""
        assert not inner._outputs, "a nested block cannot have results"
        bound: dict[tuple[int, str], Operand] = {
            (id(value), c): f"{_MARK}i{i}{_MARK}" for i, (c, value) in enumerate(self._inputs)
        }
        names = [
            bound.get((id(value), c)) or bound.setdefault((id(value), c), self.input(value, c))
            for c, value in inner._inputs
        ]
        pattern = re.compile(f"{_MARK}i(\\d+){_MARK}")
        self._lines.append("{")
        self._lines.extend(
            pattern.sub(lambda m: names[int(m.group(1))], line) for line in inner._lines
        )
        self._lines.append("}")

    # -- the inline asm ---------------------------------------------------------------------
    @property
    def arguments(self) -> list[SSAValue]:
        return [value for _, value in self._inputs]

    @property
    def result_types(self) -> list[Attribute]:
        return [t for _, t in self._outputs]

    @property
    def constraints(self) -> str:
        return ",".join([c for c, _ in self._outputs] + [c for c, _ in self._inputs])

    @property
    def template(self) -> str:
        """The PTX, operands numbered as LLVM numbers them: outputs, then inputs."""
        lines = ["{", *self._lines, "}"] if self.scoped else list(self._lines)
        text = "\n".join(lines)
        outputs = len(self._outputs)
        for i in range(outputs):
            text = text.replace(f"{_MARK}o{i}{_MARK}", f"${i}")
        for i in range(len(self._inputs)):
            text = text.replace(f"{_MARK}i{i}{_MARK}", f"${outputs + i}")
        return text
