"""Bytecode versions tileir reads and writes: 13.1, 13.2, 13.3 and 13.4.

The header stores a version as fixed fields (major `u8`, minor `u8`, tag `u16`).  Each
version admits opcodes up to a maximum; types, attributes, enum values and op fields
carry the version that introduced them (see `optable.py` and `types.py`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class BytecodeVersion:
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


V13_1 = BytecodeVersion(13, 1)
V13_2 = BytecodeVersion(13, 2)
V13_3 = BytecodeVersion(13, 3)
V13_4 = BytecodeVersion(13, 4)

SUPPORTED_VERSIONS: tuple[BytecodeVersion, ...] = (V13_1, V13_2, V13_3, V13_4)
NEWEST = SUPPORTED_VERSIONS[-1]
OLDEST = SUPPORTED_VERSIONS[0]

#: The highest opcode each version defines (opcodes are never reused or removed).
MAX_OPCODE: dict[BytecodeVersion, int] = {V13_1: 0x6D, V13_2: 0x6E, V13_3: 0x75, V13_4: 0x7A}

#: From this version on, a type's optional parameters are announced by one bitfield
#: varint written right after the type tag; before it, each optional parameter has
#: its own presence byte.
UNIFIED_BITFIELD = V13_3


def supported_text() -> str:
    return f"[{OLDEST} - {NEWEST}]"


def parse_version(text: str) -> BytecodeVersion:
    """`"13.2"` -> 13.2; raises ValueError naming the supported versions otherwise."""
    parts = text.strip().split(".")
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        v = BytecodeVersion(int(parts[0]), int(parts[1]))
        if v in SUPPORTED_VERSIONS:
            return v
    raise ValueError(
        f"unsupported bytecode version '{text}': the supported versions are "
        + ", ".join(str(v) for v in SUPPORTED_VERSIONS)
    )
