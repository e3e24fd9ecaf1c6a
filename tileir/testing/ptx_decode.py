"""Decoding PTX instructions: the opcode table and the helpers every decoder uses.

``DECODERS[opcode](instruction)`` checks the instruction's modifiers and
operands once, before the kernel runs, and returns an ``Exec``: a function of the
machine and the mask of active threads that performs the instruction for all of
them at once.  An opcode missing from the table, or a modifier a decoder does
not consume, fails the simulation up front: ``unsupported`` for valid PTX the
simulator does not implement, ``invalid`` for PTX that ptxas would reject.

The decoders live in ``ptx_ops`` (moves, memory, integers, logic, comparisons,
control flow) and ``ptx_float_ops`` (floating point and conversions); they
register themselves here with ``@decoder``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tileir.testing.ptx_errors import UNSUPPORTED, SimulationError
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_numeric import TYPES, PtxType
from tileir.testing.ptx_parse import Instruction, Operand

Exec = Callable[[Machine, np.ndarray], None]
Decoder = Callable[[Instruction], Exec]

DECODERS: dict[str, Decoder] = {}


def decoder(*opcodes: str) -> Callable[[Decoder], Decoder]:
    """Register a decoder for ``opcodes`` in ``DECODERS``."""

    def register(fn: Decoder) -> Decoder:
        for op in opcodes:
            DECODERS[op] = fn
        return fn

    return register


def unsupported(ins: Instruction, what: str) -> SimulationError:
    """Valid PTX that the simulator does not implement."""
    return SimulationError(
        f"not in the simulator's PTX subset: {what}",
        kind=UNSUPPORTED,
        line=ins.line,
        instruction=ins.text,
    )


def invalid(ins: Instruction, what: str) -> SimulationError:
    """PTX that ptxas would reject (a missing rounding modifier, wrong operands...)."""
    return SimulationError(f"invalid PTX: {what}", line=ins.line, instruction=ins.text)


class Mods:
    """An instruction's modifiers, consumed by the decoder; leftovers are unsupported."""

    def __init__(self, ins: Instruction) -> None:
        self.ins = ins
        self.rest = list(ins.modifiers)

    def flag(self, name: str) -> bool:
        if name in self.rest:
            self.rest.remove(name)
            return True
        return False

    def one_of(self, options: Sequence[str]) -> str | None:
        found = [m for m in self.rest if m in options]
        if len(found) > 1:
            raise invalid(self.ins, f"conflicting modifiers {found}")
        if found:
            self.rest.remove(found[0])
            return found[0]
        return None

    def type(self, kinds: str = "busf") -> PtxType:
        """The last modifier as a type whose kind is in ``kinds`` (``p`` for pred)."""
        if not self.rest or self.rest[-1] not in TYPES:
            raise unsupported(self.ins, "missing or unknown type")
        t = TYPES[self.rest.pop()]
        if (t.kind == "pred" and "p" not in kinds) or (t.kind != "pred" and t.kind not in kinds):
            raise unsupported(self.ins, f"type .{t.name}")
        return t

    def done(self) -> None:
        if self.rest:
            raise unsupported(self.ins, "modifier(s) ." + " .".join(self.rest))


def operands(ins: Instruction, count: int) -> tuple[Operand, ...]:
    if len(ins.operands) != count:
        raise invalid(ins, f"{len(ins.operands)} operands (expected {count})")
    return ins.operands


def lanes_of(active: np.ndarray) -> np.ndarray:
    return np.flatnonzero(active)
