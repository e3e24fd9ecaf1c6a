"""Bytecode versions tileir reads and writes: 13.1, 13.2, 13.3 and 13.4.

The header stores a version as fixed fields (major `u8`, minor `u8`, tag `u16`).  Each
version admits opcodes up to a maximum; types, attributes, enum values and op fields
carry the version that introduced them (see `optable.py` and `types.py`).

Two switches, read once from the environment, serve NVIDIA's own tests
(tools/conformance.py sets them):

* `TILEIR_INCLUDE_TESTS=1` is NVIDIA's `TILE_IR_INCLUDE_TESTS` build: the test-only
  versions 250.0 and 250.1 and the `testing$` ops, types and attributes (opcodes from
  0x3000) exist, which test a reader's and writer's versioning machinery;
* `TILEIR_BYTECODE_NEWEST=13.3` makes tileir read and write as the release whose newest
  version that is: the versions after it are unknown, its range is what messages quote,
  and opcode 0x54 reads back under that release's name (`pow` before 13.4).
"""

from __future__ import annotations

import os
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
#: NVIDIA's test-only versions (`TILE_IR_INCLUDE_TESTS`): 250.0 has every public op,
#: 250.1 adds fields to the testing ops.
V250_0 = BytecodeVersion(250, 0)
V250_1 = BytecodeVersion(250, 1)

#: Every release version tileir knows, oldest first.
RELEASE_VERSIONS: tuple[BytecodeVersion, ...] = (V13_1, V13_2, V13_3, V13_4)
TESTING_VERSIONS: tuple[BytecodeVersion, ...] = (V250_0, V250_1)
#: The first opcode of the testing ops (NVIDIA's `TestingOpcodeRange`).
TESTING_OPCODES = 0x3000


def _newest_release() -> BytecodeVersion:
    text = os.environ.get("TILEIR_BYTECODE_NEWEST", "")
    for v in RELEASE_VERSIONS:
        if str(v) == text.strip():
            return v
    return RELEASE_VERSIONS[-1]


#: Whether the testing versions and ops exist (NVIDIA's `TILE_IR_INCLUDE_TESTS`).
INCLUDE_TESTS = os.environ.get("TILEIR_INCLUDE_TESTS", "") == "1"
#: The newest release version: what is written by default and what messages quote.
NEWEST = _newest_release()
OLDEST = RELEASE_VERSIONS[0]
SUPPORTED_VERSIONS: tuple[BytecodeVersion, ...] = tuple(
    v for v in RELEASE_VERSIONS if v <= NEWEST
) + (TESTING_VERSIONS if INCLUDE_TESTS else ())

#: The highest public opcode each version defines (opcodes are never reused or
#: removed); the testing versions add the testing opcodes.
MAX_OPCODE: dict[BytecodeVersion, int] = {
    V13_1: 0x6D,
    V13_2: 0x6E,
    V13_3: 0x75,
    V13_4: 0x7A,
    V250_0: 0x7A,
    V250_1: 0x7A,
}

#: From this version on, a type's optional parameters are announced by one bitfield
#: varint written right after the type tag; before it, each optional parameter has
#: its own presence byte.
UNIFIED_BITFIELD = V13_3


def supported_text() -> str:
    return f"[{OLDEST} - {NEWEST}]"


def parse_version(text: str) -> BytecodeVersion:
    """`"13.2"` -> 13.2; raises ValueError in NVIDIA's words (`Invalid argument '12.0':
    the supported versions are [13.1 - 13.4]`) otherwise.  A `.0` tag is accepted."""
    parts = text.strip().split(".")
    if len(parts) == 3 and parts[2] == "0":
        parts = parts[:2]
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        v = BytecodeVersion(int(parts[0]), int(parts[1]))
        if v in SUPPORTED_VERSIONS:
            return v
        raise ValueError(
            f"Invalid argument '{text}': the supported versions are {supported_text()}"
        )
    raise ValueError(f"Invalid argument '{text}'")
