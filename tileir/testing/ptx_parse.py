"""Parse the PTX that tileir prints into kernels of statements, for the PTX simulator.

The grammar is the subset ``tileir.backend.ptx`` emits: a module header
(``.version``, ``.target``, ``.address_size``), then ``.entry`` kernels with
``.param`` parameters, performance directives (``.reqntid``, ``.maxnreg``) and a body of
``.reg`` declarations, ``{ ... }`` scopes, labels and instructions with optional
``@p`` / ``@!p`` guards.  Anything else (device functions, module-level
variables, other directives) is rejected here with a ``SimulationError`` naming
the line, so the simulator never silently skips what it does not understand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tileir.testing.ptx_errors import UNSUPPORTED, SimulationError
from tileir.testing.ptx_globals import (
    ExternDecl,
    GlobalDecl,
    LocalDecl,
    parse_global_decl,
    parse_local_decl,
    parse_param_decl,
)
from tileir.testing.ptx_shared import SharedDecl, parse_shared_decl

# ------------------------------------------------------------------------ operands


@dataclass(frozen=True)
class Reg:
    """A register operand (``%r1``, ``t_all``); ``negated`` for ``!%p`` predicate sources."""

    name: str
    negated: bool = False


@dataclass(frozen=True)
class Special:
    """A special register such as ``%tid.x``."""

    name: str


@dataclass(frozen=True)
class Imm:
    """A literal: ``value`` is an int, or a float for decimal float literals.

    PTX's hexadecimal float spellings ``0fXXXXXXXX`` / ``0dXXXXXXXXXXXXXXXX`` are raw
    bit patterns: ``float_bits`` with ``float_width`` 32 or 64."""

    value: int | float
    float_bits: int | None = None
    float_width: int | None = None


@dataclass(frozen=True)
class Target:
    """A branch target: label ``name``, which is instruction ``index`` of the program
    (filled in when the program is built; the parser leaves labels as ``Reg``)."""

    name: str
    index: int


@dataclass(frozen=True)
class Vec:
    """A brace-enclosed operand list ``{a, b, c, d}``."""

    items: tuple[Operand, ...]


@dataclass(frozen=True)
class Mem:
    """An address ``[base+offset]``; ``base`` is a register or a parameter name."""

    base: str
    offset: int = 0


Operand = Reg | Special | Imm | Vec | Mem | Target

# ---------------------------------------------------------------------- statements


@dataclass(frozen=True)
class Instruction:
    """One instruction: ``opcode`` is the mnemonic's first word (``ld``), ``modifiers``
    the rest (``global``, ``v4``, ``b32``)."""

    line: int
    text: str
    opcode: str
    modifiers: tuple[str, ...]
    operands: tuple[Operand, ...]
    guard: Reg | None = None


@dataclass(frozen=True)
class RegDecl:
    """``.reg .b32 %r<33>;`` (expanded to ``%r0`` .. ``%r32``) or ``.reg .pred a, b;``."""

    line: int
    type_name: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class Label:
    """``name:``, marking the instruction that follows."""

    line: int
    name: str


@dataclass(frozen=True)
class ScopeOpen:
    line: int


@dataclass(frozen=True)
class ScopeClose:
    line: int


Statement = (
    Instruction
    | RegDecl
    | SharedDecl
    | GlobalDecl
    | LocalDecl
    | ExternDecl
    | Label
    | ScopeOpen
    | ScopeClose
)


@dataclass(frozen=True)
class Param:
    type_name: str
    name: str


@dataclass
class Kernel:
    name: str
    params: list[Param]
    reqntid: tuple[int, int, int] | None
    body: list[Statement] = field(default_factory=list)
    #: The entry's ``.maxnreg`` (registers per thread), if it has one.
    maxnreg: int | None = None


@dataclass
class Module:
    version: str | None
    target: str | None
    address_size: int | None
    kernels: dict[str, Kernel]
    #: The module's ``.extern .shared`` array (dynamic shared memory): name, alignment.
    dynamic_shared: tuple[str, int] | None = None
    #: Module-scope ``.global .u32 NAME = N;`` constants, by name.
    constants: dict[str, int] = field(default_factory=dict)
    #: Module-scope ``.global`` variables (arrays, ``ptx_globals``), seen by every kernel.
    globals: list[GlobalDecl] = field(default_factory=list)


# ------------------------------------------------------------------------- lexing

_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_SPECIAL_RE = re.compile(
    r"%(tid|ntid|ctaid|nctaid)\.[xyz]|%laneid|%warpid|%nwarpid|%dynamic_smem_size|%n?smid"
)
_IDENT = r"[%A-Za-z_$][\w$]*"
_REG_RE = re.compile(rf"!?{_IDENT}")
_HEX_FLOAT_RE = re.compile(r"0([fFdD])([0-9a-fA-F]+)")
_INT_RE = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uU]?")
_FLOAT_RE = re.compile(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?")
_MEM_RE = re.compile(rf"\[\s*({_IDENT})\s*(?:\+\s*(-?(?:0[xX][0-9a-fA-F]+|\d+)))?\s*\]")
_RANGE_RE = re.compile(rf"({_IDENT})<(\d+)>")
_LABEL_RE = re.compile(rf"({_IDENT})\s*:(?!:)")


def strip_comments(text: str) -> str:
    """Drop comments but keep line breaks, so line numbers stay right."""
    return _COMMENT_RE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside braces and brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail or parts:
        parts.append(tail)
    return parts


def parse_int(text: str) -> int:
    """A PTX integer literal (decimal, hex, octal or binary, optional ``U`` suffix)."""
    t = text.rstrip("uU")
    sign = -1 if t.startswith("-") else 1
    t = t.lstrip("+-")
    if t[:2] in ("0x", "0X"):
        v = int(t[2:], 16)
    elif t[:2] in ("0b", "0B"):
        v = int(t[2:], 2)
    elif len(t) > 1 and t.startswith("0"):
        v = int(t[1:], 8)
    else:
        v = int(t)
    return sign * v


#: Operands and instructions already parsed, by their text (they are immutable): a
#: kernel names each register many times, and tests simulate variants of one PTX.
_PARSED_OPERANDS: dict[str, Operand] = {}
_PARSED_INSTRUCTIONS: dict[str, tuple[str, tuple[str, ...], tuple[Operand, ...], Reg | None]] = {}
_PARSED_LIMIT = 200_000


def parse_operand(text: str, line: int) -> Operand:
    """One operand in PTX syntax."""
    op = _PARSED_OPERANDS.get(text)
    if op is None:
        op = _parse_operand(text, line)
        if len(_PARSED_OPERANDS) >= _PARSED_LIMIT:
            _PARSED_OPERANDS.clear()
        _PARSED_OPERANDS[text] = op
    return op


def _parse_operand(text: str, line: int) -> Operand:
    text = text.strip()
    if "|" in text and not text.startswith(("{", "[")):
        # ``d|p``: two destinations (elect.sync), as a vector of both.
        return Vec(tuple(parse_operand(t, line) for t in text.split("|")))
    if text.startswith("{") and text.endswith("}"):
        inner = split_top_level(text[1:-1])
        return Vec(tuple(parse_operand(t, line) for t in inner))
    if text.startswith("[") and text.endswith("}]"):
        # ``[tensorMap, {c0, c1}]`` (cp.async.bulk.tensor): the map's address and the
        # coordinates, as a vector of both.
        parts = split_top_level(text[1:-1])
        if len(parts) == 2:
            return Vec((parse_operand(f"[{parts[0]}]", line), parse_operand(parts[1], line)))
    if text.startswith("["):
        m = _MEM_RE.fullmatch(text)
        if not m:
            raise SimulationError(
                f"unsupported address operand '{text}'", kind=UNSUPPORTED, line=line
            )
        return Mem(m.group(1), parse_int(m.group(2)) if m.group(2) else 0)
    if _SPECIAL_RE.fullmatch(text):
        return Special(text)
    m = _HEX_FLOAT_RE.fullmatch(text)
    if m:
        digits = 8 if m.group(1) in "fF" else 16
        if len(m.group(2)) != digits:
            raise SimulationError(f"bad floating-point literal '{text}'", line=line)
        return Imm(0, float_bits=int(m.group(2), 16), float_width=digits * 4)
    if _INT_RE.fullmatch(text):
        return Imm(parse_int(text))
    if _FLOAT_RE.fullmatch(text):
        return Imm(float(text))
    if _REG_RE.fullmatch(text):
        negated = text.startswith("!")
        return Reg(text.lstrip("!"), negated)
    raise SimulationError(f"cannot parse operand '{text}'", line=line)


def _split_word(text: str) -> tuple[str, str]:
    """The first whitespace-separated word of ``text`` and the rest."""
    parts = text.split(maxsplit=1)
    return (parts[0], parts[1]) if len(parts) == 2 else (text.strip(), "")


def parse_instruction(text: str, line: int) -> Instruction:
    """``[@[!]p] opcode.mod.mod operand, operand, ...``."""
    parsed = _PARSED_INSTRUCTIONS.get(text)
    if parsed is None:
        ins = _parse_instruction(text, line)
        if len(_PARSED_INSTRUCTIONS) >= _PARSED_LIMIT:
            _PARSED_INSTRUCTIONS.clear()
        _PARSED_INSTRUCTIONS[text] = (ins.opcode, ins.modifiers, ins.operands, ins.guard)
        return ins
    return Instruction(line, text.strip(), *parsed)


def _parse_instruction(text: str, line: int) -> Instruction:
    body = text.strip()
    guard = None
    if body.startswith("@"):
        guard_text, body = _split_word(body[1:])
        guard = Reg(guard_text.lstrip("!"), guard_text.startswith("!"))
    mnemonic, rest = _split_word(body)
    words = mnemonic.split(".")
    if words[0] == "call":
        return parse_call(guard, mnemonic, rest, text, line)
    operands = tuple(parse_operand(t, line) for t in split_top_level(rest)) if rest.strip() else ()
    return Instruction(line, text.strip(), words[0], tuple(words[1:]), operands, guard)


_CALL_RE = re.compile(
    r"(?:\(\s*(?P<rets>[^)]*)\)\s*,\s*)?(?P<callee>[A-Za-z_$][\w$]*)\s*"
    r"(?:,\s*\((?P<args>[^)]*)\))?"
)


def parse_call(guard: Reg | None, mnemonic: str, rest: str, text: str, line: int) -> Instruction:
    """``call{.uni} (ret), callee, (a, b)``: modifiers end with the callee's name, the
    operands are the return and argument lists as vectors."""
    m = _CALL_RE.fullmatch(rest.strip())
    if not m:
        raise SimulationError(f"unsupported call '{text.strip()}'", kind=UNSUPPORTED, line=line)

    def names(group: str | None) -> Vec:
        items = [s.strip() for s in group.split(",")] if group and group.strip() else []
        return Vec(tuple(Reg(s) for s in items))

    words = mnemonic.split(".")
    return Instruction(
        line,
        text.strip(),
        words[0],
        (*words[1:], m.group("callee")),
        (names(m.group("rets")), names(m.group("args"))),
        guard,
    )


def parse_reg_decl(text: str, line: int) -> RegDecl:
    """``.reg .type name, name<N>, ...``."""
    m = re.fullmatch(r"\.reg\s+\.(\w+)\s+(.+)", text.strip(), re.S)
    if not m:
        raise SimulationError(
            f"unsupported register declaration '{text.strip()}'", kind=UNSUPPORTED, line=line
        )
    names: list[str] = []
    for item in split_top_level(m.group(2)):
        r = _RANGE_RE.fullmatch(item)
        if r:
            names.extend(f"{r.group(1)}{i}" for i in range(int(r.group(2))))
        elif re.fullmatch(_IDENT, item):
            names.append(item)
        else:
            raise SimulationError(
                f"unsupported register name '{item}'", kind=UNSUPPORTED, line=line
            )
    return RegDecl(line, m.group(1), tuple(names))


# ------------------------------------------------------------------- kernel bodies


def parse_body(text: str, first_line: int) -> list[Statement]:
    """Statements of a kernel body (between its outer braces).

    A ``{`` or ``}`` where a statement starts opens or closes a scope; inside a
    statement braces delimit vector operands.  ``name:`` there is a label.
    Statements end at ``;``.
    """
    out: list[Statement] = []
    i, line, n = 0, first_line, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch.isspace():
            i += 1
        elif ch == "{":
            out.append(ScopeOpen(line))
            i += 1
        elif ch == "}":
            out.append(ScopeClose(line))
            i += 1
        elif m := _LABEL_RE.match(text, i):
            out.append(Label(line, m.group(1)))
            i = m.end()
        else:
            end = text.find(";", i)
            if end < 0:
                raise SimulationError(f"statement without ';': '{text[i:].strip()}'", line=line)
            stmt = text[i:end]
            out.append(parse_statement(stmt, line))
            line += stmt.count("\n")
            i = end + 1
    return out


def parse_statement(stmt: str, line: int) -> Statement:
    s = stmt.strip()
    if s.startswith(".reg"):
        return parse_reg_decl(s, line)
    if s.startswith(".shared"):
        return parse_shared_decl(s, line)
    if s.startswith(".global"):
        return parse_global_decl(s, line)
    if s.startswith(".local"):
        return parse_local_decl(s, line)
    if s.startswith(".param"):
        type_name, name = parse_param_decl(s, line)
        return RegDecl(line, type_name, (name,))
    if s.startswith(".extern"):
        return ExternDecl(line)
    if s.startswith("."):
        raise SimulationError(
            f"unsupported directive in a kernel body: '{s}'", kind=UNSUPPORTED, line=line
        )
    return parse_instruction(s, line)


# ------------------------------------------------------------------------- modules

_ENTRY_RE = re.compile(r"(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)\s*\(([^)]*)\)")
_PARAM_RE = re.compile(r"\.param\s+\.(\w+)\s+([\w$]+)")
_DIRECTIVE_RE = re.compile(r"\.(version|target|address_size)\s+([^\n;]+)")
_EXTERN_SHARED_RE = re.compile(
    r"\.extern\s+\.shared\s+(?:\.align\s+(\d+)\s+)?\.b8\s+([A-Za-z_$][\w$]*)\s*\[\s*\]\s*;"
)
_CONSTANT_RE = re.compile(
    r"\.visible\s+\.global\s+(?:\.align\s+\d+\s+)?\.u32\s+([A-Za-z_$][\w$]*)\s*=\s*(\d+)\s*;"
)
_PERF_RE = re.compile(r"\.(reqntid|maxntid|minnctapersm|maxnreg)\s+([\d,\s]+)")


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _matching_brace(text: str, open_pos: int) -> int:
    depth = 0
    for i in range(open_pos, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    raise SimulationError("unbalanced braces", line=_line_of(text, open_pos))


def _parse_params(text: str, line: int) -> list[Param]:
    params = []
    for item in split_top_level(text):
        m = _PARAM_RE.fullmatch(item.strip())
        if not m:
            raise SimulationError(
                f"unsupported kernel parameter '{item.strip()}'", kind=UNSUPPORTED, line=line
            )
        params.append(Param(m.group(1), m.group(2)))
    return params


def _parse_performance(text: str, line: int) -> tuple[tuple[int, int, int] | None, int | None]:
    """Performance directives between the parameter list and the body: the
    ``.reqntid`` and the ``.maxnreg``, each ``None`` when absent."""
    reqntid = maxnreg = None
    rest = text
    for m in _PERF_RE.finditer(text):
        if m.group(1) == "reqntid":
            dims = [int(v) for v in m.group(2).replace(",", " ").split()]
            reqntid = (*dims, 1, 1)[:3]
        elif m.group(1) == "maxnreg":
            maxnreg = int(m.group(2).strip())
        rest = rest.replace(m.group(0), "", 1)
    if rest.strip():
        raise SimulationError(
            f"unsupported kernel directive '{rest.strip()}'", kind=UNSUPPORTED, line=line
        )
    return reqntid, maxnreg  # type: ignore[return-value]


@dataclass
class _Header:
    version: str | None = None
    target: str | None = None
    address_size: int | None = None
    dynamic_shared: tuple[str, int] | None = None
    constants: dict[str, int] = field(default_factory=dict)
    globals: list[GlobalDecl] = field(default_factory=list)


_MODULE_GLOBAL_RE = re.compile(r"(?:\.visible\s+|\.weak\s+)?\.global\s[^;]*;")


def _parse_header(text: str) -> _Header:
    header = _Header()
    leftover = text
    for m in _DIRECTIVE_RE.finditer(text):
        value = m.group(2).strip()
        if m.group(1) == "version":
            header.version = value
        elif m.group(1) == "target":
            header.target = value
        else:
            header.address_size = int(value)
        leftover = leftover.replace(m.group(0), "", 1)
    for m in _EXTERN_SHARED_RE.finditer(text):
        header.dynamic_shared = (m.group(2), int(m.group(1) or 1))
        leftover = leftover.replace(m.group(0), "", 1)
    for m in _CONSTANT_RE.finditer(text):
        header.constants[m.group(1)] = int(m.group(2))
        leftover = leftover.replace(m.group(0), "", 1)
    for m in _MODULE_GLOBAL_RE.finditer(leftover):
        header.globals.append(
            parse_global_decl(m.group(0)[:-1], _line_of(text, text.find(m.group(0))))
        )
    leftover = _MODULE_GLOBAL_RE.sub("", leftover)
    if leftover.strip():
        pos = text.find(leftover.strip()[:20])
        raise SimulationError(
            f"unsupported module-level PTX: '{leftover.strip().splitlines()[0]}'",
            kind=UNSUPPORTED,
            line=_line_of(text, max(pos, 0)),
        )
    return header


def parse_module(ptx: str) -> Module:
    """All kernels of a PTX module; everything outside them must be header directives."""
    text = strip_comments(ptx)
    kernels: dict[str, Kernel] = {}
    outside: list[str] = []
    pos = 0
    for m in _ENTRY_RE.finditer(text):
        if m.start() < pos:
            continue
        outside.append(text[pos : m.start()])
        open_pos = text.find("{", m.end())
        if open_pos < 0:
            raise SimulationError("kernel without a body", line=_line_of(text, m.start()))
        close_pos = _matching_brace(text, open_pos)
        line = _line_of(text, m.start())
        reqntid, maxnreg = _parse_performance(text[m.end() : open_pos], line)
        kernel = Kernel(m.group(1), _parse_params(m.group(2), line), reqntid, maxnreg=maxnreg)
        kernel.body = parse_body(text[open_pos + 1 : close_pos], _line_of(text, open_pos))
        kernels[kernel.name] = kernel
        # Blank the kernel out of the header but keep its line breaks, so errors in
        # the header report the right line.
        outside.append("\n" * text.count("\n", m.start(), close_pos + 1))
        pos = close_pos + 1
    outside.append(text[pos:])
    h = _parse_header("".join(outside))
    return Module(
        h.version, h.target, h.address_size, kernels, h.dynamic_shared, h.constants, h.globals
    )
