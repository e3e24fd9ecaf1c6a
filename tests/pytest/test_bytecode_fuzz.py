"""Fuzzing the bytecode reader with mutations of real files.

Hypothesis takes a corpus or fixture file and mutates it (bit flips, truncations,
splices from another file, section length fields, bytes and varints overwritten).
Every input must either read, or fail with a located `BytecodeError`; never with any
other exception, a reader bug (`BytecodeInternalError`) or a slow read.  An input that
reads must also survive bytecode -> IR -> bytecode -> IR unchanged.

`make test` runs a bounded number of examples (TILEIR_FUZZ_EXAMPLES, default 500, about
20 s); `make fuzz` runs many more (the record is in docs/bytecode.md).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from bytecode_support import ALL_FILES, CTX, printed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tileir.bytecode import BytecodeError, EncodeError, read_bytecode, write_bytecode
from tileir.bytecode.container import read_container
from tileir.bytecode.stream import BytecodeInternalError

EXAMPLES = int(os.environ.get("TILEIR_FUZZ_EXAMPLES", "500"))
#: Any single read slower than this counts as a hang (generous: shared CI machines stall;
#: a real blow-up is far slower).
MAX_SECONDS = 30.0


@dataclass(frozen=True)
class Seed:
    name: str
    data: bytes
    #: Offsets of the section length fields.
    lengths: tuple[int, ...]


SEEDS = tuple(
    Seed(
        p.name,
        p.read_bytes(),
        tuple(h + 1 for h in read_container(p.read_bytes()).headers.values()),
    )
    for p in ALL_FILES
)


@dataclass
class Tally:
    inputs: int = 0
    accepted: int = 0
    diagnosed: int = 0


TALLY = Tally()


def _varint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


position = st.integers(min_value=0, max_value=1 << 20)
mutation = st.one_of(
    st.tuples(st.just("flip"), position, st.integers(0, 7)),
    st.tuples(st.just("truncate"), position),
    st.tuples(
        st.just("splice"),
        position,
        st.integers(0, len(SEEDS) - 1),
        position,
        st.integers(1, 256),
        st.integers(0, 64),
    ),
    st.tuples(st.just("length"), position, st.integers(-300, 300)),
    st.tuples(
        st.just("byte"),
        position,
        st.sampled_from([0x00, 0x01, 0x7F, 0x80, 0xFF]) | st.integers(0, 255),
    ),
    st.tuples(st.just("varint"), position, st.integers(0, 2**64 - 1) | st.integers(0, 300)),
)


def mutate(seed: Seed, steps: list[tuple]) -> bytes:
    data = bytearray(seed.data)
    for step in steps:
        if not data:
            break
        kind, at = step[0], step[1] % len(data)
        if kind == "flip":
            data[at] ^= 1 << step[2]
        elif kind == "truncate":
            del data[at:]
        elif kind == "splice":
            other = SEEDS[step[2]].data
            start = step[3] % len(other)
            data[at : at + step[5]] = other[start : start + step[4]]
        elif kind == "length":
            field = seed.lengths[step[1] % len(seed.lengths)]
            if field < len(data):
                data[field] = (data[field] + step[2]) % 256
        elif kind == "byte":
            data[at] = step[2]
        else:
            encoded = _varint(step[2])
            data[at : at + len(encoded)] = encoded
    return bytes(data)


def check(data: bytes, unregistered: bool) -> None:
    TALLY.inputs += 1
    start = time.perf_counter()
    try:
        module = read_bytecode(
            data, "fuzz", CTX, allow_unregistered=unregistered, verify=not unregistered
        )
    except BytecodeInternalError as e:
        raise AssertionError(f"reader bug: {e.message}") from e
    except BytecodeError as e:
        TALLY.diagnosed += 1
        assert e.message.startswith("at byte ")
        return
    finally:
        assert time.perf_counter() - start < MAX_SECONDS
    TALLY.accepted += 1
    if unregistered:
        return
    version = f"{data[8]}.{data[9]}"
    from tileir.bytecode import parse_version

    try:
        written = write_bytecode(module, parse_version(version))
    except EncodeError as e:
        raise AssertionError(f"an accepted input cannot be written back: {e.message}") from e
    again = read_bytecode(written, "fuzz-written", CTX)
    assert printed(again, generic=True, debuginfo=True) == printed(
        module, generic=True, debuginfo=True
    )


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.sampled_from(SEEDS),
    steps=st.lists(mutation, min_size=1, max_size=4),
    unregistered=st.booleans(),
)
def test_mutated_bytecode_is_read_or_diagnosed(
    seed: Seed, steps: list[tuple], unregistered: bool
) -> None:
    check(mutate(seed, steps), unregistered)


def test_report_fuzz_tally() -> None:
    """Printed with `-s` (make fuzz): how many inputs ran and how they ended (an input
    that is neither read nor diagnosed failed the test above)."""
    failed = TALLY.inputs - TALLY.accepted - TALLY.diagnosed
    print(
        f"\nbytecode fuzz: {TALLY.inputs} inputs, {TALLY.accepted} read, "
        f"{TALLY.diagnosed} diagnosed, {failed} failed"
    )
