"""Calls into the CUDA device runtime in the PTX simulator: `vprintf` and
`__assertfail` (what tileir emits for `print_tko` and `assert`), with the per-thread
`.local` buffers and call-scoped `.param` variables their call sequences use.

* ``.local .align A .b8 name[N];`` gives every thread its own zeroed N-byte array;
  ``name`` reads as its address (local and generic addresses coincide, as global ones
  do, so ``cvta.local`` is a move and ``st.local`` an ordinary store).
* ``.param .bN name;`` inside a kernel body is a register: ``st.param`` writes it,
  ``ld.param`` reads it (``ld.param`` of a kernel parameter is unchanged).
* ``[@p] call (ret), vprintf, (format, args);`` formats, in each active thread, the
  NUL-terminated format at ``format`` with the arguments packed at ``args`` (each
  aligned to its size: 4 bytes for ``%d %i %u %x %X %o %c``, 8 with ``ll``/``l``/``j``/
  ``z``/``t`` and for ``%p``, an f64 for ``%e %f %g``), appends the text to the
  launch's output (threads in order: CTA, then thread index), and returns its length.
* ``call __assertfail, (message, file, line, function, size);`` stops the launch with
  a ``SimulationError`` of kind ``assertion`` carrying the message, file, line and
  function; ``trap`` stops it with kind ``trap``.
* ``.extern .func`` prototypes are accepted and ignored.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from tileir.testing.ptx_decode import Exec, decoder, invalid, lanes_of, unsupported
from tileir.testing.ptx_errors import UNSUPPORTED, SimulationError
from tileir.testing.ptx_globals import LocalDecl
from tileir.testing.ptx_parse import Instruction, Reg, Vec

ASSERTION = "assertion"
TRAP = "trap"

_SPEC = re.compile(r"%([-+ #0]*)(\d+)?(?:\.(\d+))?(hh|h|ll|l|j|z|t|L)?([diouxXeEfFgGaAcsp%])")


def place_locals(decls: list[LocalDecl], memory, threads: int) -> dict[str, np.ndarray]:
    """One array per thread for each declaration; per thread, its address.  Call
    before ``memory.materialize()``."""
    addresses: dict[str, np.ndarray] = {}
    for d in decls:
        per_thread = np.zeros(threads, dtype=np.uint64)
        for t in range(threads):
            buffer = np.zeros(d.size, dtype=np.uint8)
            address = memory.place(buffer, f"local array {d.name} of thread {t}")
            if address % max(d.align, 1):
                raise SimulationError(f"cannot place local array {d.name}", line=d.line)
            per_thread[t] = address
        addresses[d.name] = per_thread
    return addresses


def init_locals(machine, addresses: dict[str, np.ndarray]) -> None:
    from tileir.testing.ptx_numeric import TYPES

    everyone = np.ones(machine.count, dtype=bool)
    for name, per_thread in addresses.items():
        machine.write_bits(Reg(name), per_thread, TYPES["u64"], everyone)


# ---------------------------------------------------------------------------- runtime


def _bytes(m, address: int, count: int) -> bytes:
    data = m.memory.load(np.array([address], dtype=np.uint64), count)
    return bytes(np.asarray(data, dtype=np.uint8).reshape(-1))


def _c_string(m, address: int, limit: int = 1 << 16) -> str:
    out = bytearray()
    while len(out) < limit:
        b = _bytes(m, address + len(out), 1)[0]
        if b == 0:
            return out.decode(errors="replace")
        out.append(b)
    raise m.fail("a string without its terminating NUL")


def format_vprintf(fmt: str, read: Callable[[int, str], Any]) -> str:
    """C printf of `fmt`, `read(size, kind)` giving each packed argument."""

    def one(match: re.Match[str]) -> str:
        flags, width, precision, length, conv = match.groups()
        if conv == "%":
            return "%"
        spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
        if conv in "eEfFgGaA":
            value = read(8, "d")
            c = {"a": "e", "A": "E", "F": "f"}.get(conv, conv)
            return (spec + c) % value
        if conv == "s":
            raise SimulationError("vprintf '%s' is not simulated", kind=UNSUPPORTED)
        wide = conv == "p" or length in ("ll", "l", "j", "z", "t")
        size = 8 if wide else 4
        if conv in "di":
            return (spec + "d") % read(size, "q" if wide else "i")
        if conv == "c":
            return chr(read(4, "i") & 0xFF)
        if conv == "p":
            return f"{read(8, 'Q'):#x}"
        return (spec + conv) % read(size, "Q" if wide else "I")

    return _SPEC.sub(one, fmt)


def _vprintf(m, lane: int, fmt_address: int, args_address: int) -> str:
    fmt = _c_string(m, fmt_address)
    offset = 0

    def read(size: int, code: str) -> int | float:
        nonlocal offset
        offset = (offset + size - 1) // size * size
        if args_address == 0:
            raise m.fail("vprintf reads an argument, but the argument buffer is null", lane)
        raw = _bytes(m, args_address + offset, size)
        offset += size
        return struct.unpack("<" + code, raw)[0]

    return format_vprintf(fmt, read)


@decoder("call")
def decode_call(ins: Instruction) -> Exec:
    from tileir.testing.ptx_numeric import TYPES

    callee = ins.modifiers[-1]
    rets, args = ins.operands
    assert isinstance(rets, Vec) and isinstance(args, Vec)
    u64, b32 = TYPES["u64"], TYPES["b32"]
    if callee == "vprintf":
        if len(args.items) != 2 or len(rets.items) > 1:
            raise invalid(ins, "vprintf takes (format, arguments) and returns one value")

        def run_vprintf(m, act: np.ndarray) -> None:
            formats = m.read_bits(args.items[0], u64, act)
            buffers = m.read_bits(args.items[1], u64, act)
            lengths = np.zeros(m.count, dtype=np.uint32)
            for lane in lanes_of(act):
                text = _vprintf(m, int(lane), int(formats[lane]), int(buffers[lane]))
                m.printed.append(text)
                lengths[lane] = len(text)
            if rets.items:
                m.write_bits(rets.items[0], lengths, b32, act)

        return run_vprintf
    if callee == "__assertfail":
        if len(args.items) != 5:
            raise invalid(ins, "__assertfail takes five arguments")

        def run_assertfail(m, act: np.ndarray) -> None:
            lanes = lanes_of(act)
            if not len(lanes):
                return
            lane = int(lanes[0])
            message, file, line, function = (
                int(m.read_bits(a, t, act)[lane])
                for a, t in zip(args.items[:4], (u64, u64, b32, u64), strict=True)
            )
            text = (
                f"{_c_string(m, file)}:{line}: {_c_string(m, function)}: "
                f"Assertion `{_c_string(m, message)}` failed."
            )
            raise m.fail(text, lane, kind=ASSERTION)

        return run_assertfail
    raise unsupported(ins, f"a call of {callee}")


@decoder("trap")
def decode_trap(ins: Instruction) -> Exec:
    def run(m, act: np.ndarray) -> None:
        if act.any():
            raise m.fail("trap", act, kind=TRAP)

    return run
