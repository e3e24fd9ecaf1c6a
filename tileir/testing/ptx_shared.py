"""Shared memory in the PTX simulator: `.shared` arrays, `ld.shared` and `st.shared`.

A kernel-body declaration ``.shared .align A .b8 name[N];`` gives every CTA its own
``N``-byte array.  The simulator places one zeroed array per CTA in its flat memory
(as a region, with the same guard gaps, bounds and alignment checks as array
arguments, and the race checks of ``ptx_races``: a thread writing a byte that another
thread wrote or read, or reading one another wrote, with no synchronization ordering
the two, is a race),
and the symbol ``name`` reads, in each thread, as the 32-bit address of its own CTA's
copy (``mov.u32 %r, name;``).  Shared addresses are then ordinary addresses below
4 GiB, so address arithmetic in 32-bit registers works unchanged.  Reading shared
memory before any thread wrote it reads zeros (the hardware leaves it undefined; no
tileir kernel reads an element it did not write).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tileir.testing.ptx_errors import UNSUPPORTED, SimulationError

_SHARED_RE = re.compile(
    r"\.shared\s+(?:\.align\s+(\d+)\s+)?\.(b8|u8|s8)\s+([A-Za-z_$][\w$]*)\s*\[\s*(\d+)\s*\]"
)


@dataclass(frozen=True)
class SharedDecl:
    """``.shared .align 16 .b8 name[size];`` in a kernel body."""

    line: int
    name: str
    size: int
    align: int


def parse_shared_decl(text: str, line: int) -> SharedDecl:
    m = _SHARED_RE.fullmatch(text.strip())
    if not m:
        raise SimulationError(
            f"unsupported shared-memory declaration '{text.strip()}' (expected "
            "'.shared .align A .b8 name[N]')",
            kind=UNSUPPORTED,
            line=line,
        )
    align = int(m.group(1)) if m.group(1) else 1
    return SharedDecl(line, m.group(3), int(m.group(4)), align)


def place_shared(decls: list[SharedDecl], memory, grid: tuple[int, ...]) -> dict[str, np.ndarray]:
    """One array per CTA for each declaration; per CTA (linear index), the address
    of its copy.  Call before ``memory.materialize()``."""
    ctas = int(np.prod(grid))
    addresses: dict[str, np.ndarray] = {}
    for d in decls:
        per_cta = np.zeros(ctas, dtype=np.uint64)
        for c in range(ctas):
            buffer = np.zeros(d.size, dtype=np.uint8)
            address = memory.place(
                buffer, f"shared array {d.name} of CTA {c} ({d.size} bytes)", cta=c, align=d.align
            )
            if address % max(d.align, 1) or address >= 1 << 32:
                raise SimulationError(f"cannot place shared array {d.name}", line=d.line)
            per_cta[c] = address
        addresses[d.name] = per_cta
    return addresses


def init_shared(machine, addresses: dict[str, np.ndarray]) -> None:
    """Write each symbol's register: its CTA's address, in every thread."""
    from tileir.testing.ptx_numeric import TYPES
    from tileir.testing.ptx_parse import Reg

    cta = machine.threads.cta
    everyone = np.ones(machine.count, dtype=bool)
    for name, per_cta in addresses.items():
        bits = per_cta[cta].astype(np.uint32)
        machine.write_bits(Reg(name), bits, TYPES["u32"], everyone)
