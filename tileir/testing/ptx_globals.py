"""`.global` variables in the PTX simulator.

A declaration ``.global .align A .b8 name[N] = {b0, b1, ...};`` (tileir declares a
cuda_tile `global` in the kernel that uses it; elements may also be ``.b16``/``.b32``/
``.b64`` (or ``.u``/``.s``), little-endian, and a scalar has no ``[N]``; the module
scope declares them too, for every kernel) is one array for
the whole launch, shared by every CTA and initialized with its bytes (zeros where the
initializer stops or is absent).  It is placed in the flat memory like an array
argument (bounds, alignment and race checks included), and the symbol ``name`` reads
as its 64-bit global address (``mov.u64 %rd, name;``).  Declarations in nested scopes
(the format strings of ``vprintf`` calls) are scoped like registers.

The declarations of per-thread ``.local`` arrays (``ptx_calls``), of ``.param``
variables inside a body and of ``.extern`` prototypes are parsed here too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tileir.testing.ptx_errors import UNSUPPORTED, SimulationError

_GLOBAL_RE = re.compile(
    r"(?:\.visible\s+)?\.global\s+(?:\.align\s+(\d+)\s+)?\.([bus](?:8|16|32|64))\s+"
    r"([A-Za-z_$][\w$]*)\s*(?:\[\s*(\d+)\s*\])?\s*(?:=\s*\{?([^};]*)\}?)?"
)


@dataclass(frozen=True)
class GlobalDecl:
    """``.global .align A .b8 name[size] = {...};`` in a kernel body."""

    line: int
    name: str
    size: int
    align: int
    data: bytes


def parse_global_decl(text: str, line: int) -> GlobalDecl:
    m = _GLOBAL_RE.fullmatch(text.strip())
    if not m:
        raise SimulationError(
            f"unsupported global declaration '{text.strip()}' (expected "
            "'.global .align A .b8 name[N] = {...}')",
            kind=UNSUPPORTED,
            line=line,
        )
    width = int(m.group(2)[1:]) // 8
    count = int(m.group(4)) if m.group(4) else 1
    values = [int(v, 0) for v in m.group(5).split(",")] if m.group(5) else []
    low = -(1 << (8 * width - 1)) if m.group(2)[0] == "s" else 0
    if len(values) > count or any(not low <= v < 1 << (8 * width) for v in values):
        raise SimulationError(f"bad initializer of .global {m.group(3)}", line=line)
    align = int(m.group(1)) if m.group(1) else width
    data = b"".join((v % (1 << (8 * width))).to_bytes(width, "little") for v in values)
    return GlobalDecl(line, m.group(3), count * width, align, data)


_LOCAL_RE = re.compile(
    r"\.local\s+(?:\.align\s+(\d+)\s+)?\.(b8|u8|s8)\s+([A-Za-z_$][\w$]*)\s*\[\s*(\d+)\s*\]"
)
_PARAM_RE = re.compile(r"\.param\s+\.(b32|b64|u32|u64|s32|s64)\s+([A-Za-z_$][\w$]*)")


@dataclass(frozen=True)
class LocalDecl:
    """``.local .align A .b8 name[size];`` in a kernel body."""

    line: int
    name: str
    size: int
    align: int


@dataclass(frozen=True)
class ExternDecl:
    """``.extern .func ...;``: a prototype, nothing to run."""

    line: int


def parse_local_decl(text: str, line: int) -> LocalDecl:
    m = _LOCAL_RE.fullmatch(text.strip())
    if not m:
        raise SimulationError(
            f"unsupported local declaration '{text.strip()}' (expected "
            "'.local .align A .b8 name[N]')",
            kind=UNSUPPORTED,
            line=line,
        )
    align = int(m.group(1)) if m.group(1) else 1
    return LocalDecl(line, m.group(3), int(m.group(4)), align)


def parse_param_decl(text: str, line: int) -> tuple[str, str]:
    """``.param .b64 name`` in a body: (register type, name)."""
    m = _PARAM_RE.fullmatch(text.strip())
    if not m:
        raise SimulationError(
            f"unsupported .param declaration '{text.strip()}' in a kernel body",
            kind=UNSUPPORTED,
            line=line,
        )
    return m.group(1), m.group(2)


def place_globals(decls: list[GlobalDecl], memory) -> dict[str, int]:
    """The address of each variable (call before ``memory.materialize()``)."""
    addresses: dict[str, int] = {}
    for d in decls:
        buffer = np.zeros(d.size, dtype=np.uint8)
        buffer[: len(d.data)] = np.frombuffer(d.data, dtype=np.uint8)
        address = memory.place(buffer, f"global variable {d.name} ({d.size} bytes)")
        if address % max(d.align, 1):
            raise SimulationError(f"cannot place global variable {d.name}", line=d.line)
        addresses[d.name] = address
    return addresses


def init_globals(machine, addresses: dict[str, int]) -> None:
    """Write each symbol's register: the variable's address, in every thread."""
    from tileir.testing.ptx_numeric import TYPES
    from tileir.testing.ptx_parse import Reg

    everyone = np.ones(machine.count, dtype=bool)
    for name, address in addresses.items():
        bits = np.full(machine.count, address, dtype=np.uint64)
        machine.write_bits(Reg(name), bits, TYPES["u64"], everyone)
