"""A kernel body as a flat program: registers resolved by scope, labels by position.

PTX scopes (``{ .reg .b32 t; ... }``) and labels are static, so they are resolved
once, before running: every register operand is renamed to a key unique in the
kernel (a register declared in a nested scope gets ``name#scope``; the
kernel-level ones keep their names), and every branch target becomes the index
of the instruction it labels.  At run time the machine then holds one flat table
of registers and a program counter per thread, whatever the control flow.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tileir.testing.ptx_errors import SimulationError
from tileir.testing.ptx_globals import ExternDecl, GlobalDecl, LocalDecl
from tileir.testing.ptx_parse import (
    Instruction,
    Kernel,
    Label,
    Mem,
    Operand,
    Reg,
    RegDecl,
    ScopeClose,
    ScopeOpen,
    Target,
    Vec,
)
from tileir.testing.ptx_shared import SharedDecl

#: The sink operand ``_`` (``mbarrier.arrive _, [addr]``, ``elect.sync _|p, mask``).
SINK = "_"


@dataclass(frozen=True)
class RegisterSlot:
    """A declared register: its PTX name (for messages) and type name."""

    name: str
    type_name: str
    line: int


@dataclass
class Program:
    """Instructions in order, the kernel's registers by key, and label positions."""

    instructions: list[Instruction] = field(default_factory=list)
    registers: dict[str, RegisterSlot] = field(default_factory=dict)
    labels: dict[str, int] = field(default_factory=dict)
    #: Kernel-scope ``.shared`` arrays (``ptx_shared``); each name is also a u32 register.
    shared: list[SharedDecl] = field(default_factory=list)
    #: Kernel-scope ``.global`` variables (``ptx_globals``); each name is a u64 register.
    globals: list[GlobalDecl] = field(default_factory=list)
    #: ``.local`` arrays (``ptx_calls``): one per thread; each name is a u64 register.
    locals: list[LocalDecl] = field(default_factory=list)


def build_program(kernel: Kernel) -> Program:
    labels, scope_labels = _label_positions(kernel)
    program = Program(labels=labels)
    scopes: list[dict[str, str]] = [{}]
    # The labels visible in each open scope (a label is local to its `{ }` block, as
    # ptxas takes it: two inline blocks may each have their own `$done`).
    label_scopes: list[dict[str, str]] = [scope_labels.get(0, {})]
    serial = 0
    for s in kernel.body:
        if isinstance(s, ScopeOpen):
            scopes.append({})
            serial += 1
            label_scopes.append(scope_labels.get(serial, {}))
        elif isinstance(s, ScopeClose):
            if len(scopes) == 1:
                raise SimulationError("'}' without '{'", line=s.line)
            scopes.pop()
            label_scopes.pop()
        elif isinstance(s, RegDecl):
            _declare(program, scopes, s, serial)
        elif isinstance(s, SharedDecl):
            if len(scopes) != 1:
                raise SimulationError(f"{s.name}: .shared in a nested scope", line=s.line)
            _declare(program, scopes, RegDecl(s.line, "u32", (s.name,)), serial)
            program.shared.append(s)
        elif isinstance(s, GlobalDecl | LocalDecl):
            # The symbol is a u64 register holding the address (scoped like one).
            _declare(program, scopes, RegDecl(s.line, "u64", (s.name,)), serial)
            placed = replace(s, name=scopes[-1][s.name])
            if isinstance(placed, GlobalDecl):
                program.globals.append(placed)
            else:
                program.locals.append(placed)
        elif isinstance(s, ExternDecl):
            continue
        elif isinstance(s, Instruction):
            program.instructions.append(_resolve(s, scopes, label_scopes, program.labels))
    if len(scopes) != 1:
        raise SimulationError(f"{len(scopes) - 1} unclosed '{{' in kernel {kernel.name}")
    return program


def _label_positions(kernel: Kernel) -> tuple[dict[str, int], dict[int, dict[str, str]]]:
    """Each label's instruction index, under a key unique in the kernel, and the labels
    each scope (by its serial number, 0 the kernel's body) declares: name -> key."""
    labels: dict[str, int] = {}
    scope_labels: dict[int, dict[str, str]] = {}
    open_scopes = [0]
    serial = 0
    count = 0
    for s in kernel.body:
        if isinstance(s, ScopeOpen):
            serial += 1
            open_scopes.append(serial)
        elif isinstance(s, ScopeClose):
            if len(open_scopes) > 1:
                open_scopes.pop()
        elif isinstance(s, Label):
            here = scope_labels.setdefault(open_scopes[-1], {})
            if s.name in here:
                raise SimulationError(f"label {s.name} defined twice", line=s.line)
            key = s.name if open_scopes[-1] == 0 else f"{s.name}#{open_scopes[-1]}"
            here[s.name] = key
            labels[key] = count
        elif isinstance(s, Instruction):
            count += 1
    return labels, scope_labels


def _declare(program: Program, scopes: list[dict[str, str]], decl: RegDecl, serial: int) -> None:
    scope = scopes[-1]
    for name in decl.names:
        if name in scope:
            raise SimulationError(f"register {name} declared twice", line=decl.line)
        key = name if len(scopes) == 1 else f"{name}#{serial}"
        scope[name] = key
        program.registers[key] = RegisterSlot(name, decl.type_name, decl.line)


def _resolve(
    ins: Instruction,
    scopes: list[dict[str, str]],
    label_scopes: list[dict[str, str]],
    labels: dict[str, int],
) -> Instruction:
    """``ins`` with register names replaced by their keys and labels by targets (the
    innermost scope's label of that name).

    Built without ``dataclasses.replace`` and with the kernel scope looked up first
    when it is the only one (most instructions): this runs once per instruction of
    every simulated kernel."""

    def key_of(name: str) -> str | None:
        if len(scopes) == 1:
            return scopes[0].get(name)
        for scope in reversed(scopes):
            if name in scope:
                return scope[name]
        return None

    def label_of(name: str) -> str | None:
        for scope in reversed(label_scopes):
            if name in scope:
                return scope[name]
        return None

    def resolve(op: Operand) -> Operand:
        if isinstance(op, Reg):
            if op.name == SINK:
                return op  # the sink ``_``: a destination whose value is dropped
            key = key_of(op.name)
            if key is not None:
                return op if key == op.name else Reg(key, op.negated)
            label = label_of(op.name) if ins.opcode == "bra" else None
            if label is not None:
                return Target(op.name, labels[label])
            raise SimulationError(
                f"{op.name} is not a declared register"
                + (" or a label" if ins.opcode == "bra" else ""),
                line=ins.line,
                instruction=ins.text,
            )
        if isinstance(op, Vec):
            return Vec(tuple([resolve(o) for o in op.items]))
        if isinstance(op, Mem):  # a base that is no register names a parameter
            key = key_of(op.base)
            return op if key is None or key == op.base else Mem(key, op.offset)
        return op

    guard = ins.guard
    if guard is not None:
        resolved = resolve(guard)
        assert isinstance(resolved, Reg)
        guard = resolved
    return Instruction(
        ins.line,
        ins.text,
        ins.opcode,
        ins.modifiers,
        tuple([resolve(o) for o in ins.operands]),
        guard,
    )
