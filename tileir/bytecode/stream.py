"""Bytes in and out: LEB128 varints, zigzag varints, little-endian fields, padding.

`ByteReader` reads a window `[start, end)` of the whole file, so every offset it
reports is a file offset; each read checks the bytes it needs against the end of its
window first, and every count it returns is bounded by the bytes left (a count of N
items of at least k bytes each needs N * k bytes), so a hostile length can never make
the reader allocate or loop more than the file itself allows.  Failures raise
`BytecodeError`, which names the byte offset and what was expected there.
"""

from __future__ import annotations

from dataclasses import dataclass

from tileir.diagnostics import CompileError

#: The byte NVIDIA's writer (and ours) pads with.  Readers accept any padding byte.
PADDING_BYTE = 0xCB

U64_MASK = (1 << 64) - 1


class BytecodeError(CompileError):
    """Malformed or unsupported bytecode, located by byte offset."""

    def __init__(
        self,
        offset: int,
        message: str,
        expected: str | None = None,
        filename: str | None = None,
    ):
        self.offset = offset
        self.detail = message
        self.expected = expected
        self.filename = filename
        text = f"at byte {offset}: {message}"
        if expected:
            text += f"; expected {expected}"
        super().__init__(text)

    def with_filename(self, filename: str) -> BytecodeError:
        self.filename = filename
        return self

    def format(self, style: str = "mlir") -> str:
        where = f"{self.filename}: " if self.filename else ""
        return f"{where}error: {self.message}"


class EncodeError(CompileError):
    """IR that cannot be written as bytecode (of the requested version)."""


class BytecodeInternalError(BytecodeError):
    """An unexpected failure inside the reader: reported as a diagnostic, but a bug."""


@dataclass
class ByteReader:
    """Reads `data[start:end]`; `pos` is an absolute file offset.  `origin` is where
    alignment is measured from (the start of the enclosing section payload)."""

    data: bytes
    pos: int
    end: int
    origin: int = 0

    @classmethod
    def over(cls, data: bytes, start: int = 0, end: int | None = None) -> ByteReader:
        end = len(data) if end is None else end
        return cls(data, start, end, start)

    def sub(self, length: int, what: str) -> ByteReader:
        """A reader over the next `length` bytes (alignment measured from its start);
        this reader skips past them."""
        self.need(length, what)
        start = self.pos
        self.pos += length
        return ByteReader(self.data, start, start + length, start)

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def at_end(self) -> bool:
        return self.pos >= self.end

    def error(
        self, message: str, expected: str | None = None, at: int | None = None
    ) -> BytecodeError:
        return BytecodeError(self.pos if at is None else at, message, expected)

    def need(self, n: int, what: str) -> None:
        if n > self.end - self.pos:
            left = max(0, self.end - self.pos)
            raise BytecodeError(
                self.pos,
                f"unexpected end of data reading {what}",
                f"{n} byte{'s' if n != 1 else ''}, {left} left",
            )

    def u8(self, what: str) -> int:
        if self.pos >= self.end:
            raise BytecodeError(
                self.pos, f"unexpected end of data reading {what}", "1 byte, 0 left"
            )
        b = self.data[self.pos]
        self.pos += 1
        return b

    def le(self, size: int, what: str) -> int:
        self.need(size, what)
        value = int.from_bytes(self.data[self.pos : self.pos + size], "little")
        self.pos += size
        return value

    def take(self, n: int, what: str) -> bytes:
        self.need(n, what)
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def varint(self, what: str) -> int:
        """An unsigned LEB128 value of at most 64 bits (10 bytes)."""
        start = self.pos
        data, end = self.data, self.end
        result = 0
        shift = 0
        pos = self.pos
        while True:
            if pos >= end:
                raise BytecodeError(start, f"unexpected end of data reading {what}", "a varint")
            byte = data[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                break
            shift += 7
            if shift >= 70:
                raise BytecodeError(
                    start, f"{what} is a varint longer than 10 bytes", "a 64-bit varint"
                )
        if result > U64_MASK:
            raise BytecodeError(
                start, f"{what} is a varint that does not fit in 64 bits", "a 64-bit varint"
            )
        self.pos = pos
        return result

    def svarint(self, what: str) -> int:
        """A zigzag-encoded signed 64-bit value."""
        raw = self.varint(what)
        return (raw >> 1) ^ -(raw & 1)

    def count(self, what: str, min_item_bytes: int = 1) -> int:
        """A varint count of items, each at least `min_item_bytes` long: it cannot
        exceed what the rest of the window could hold."""
        at = self.pos
        n = self.varint(what)
        if min_item_bytes and n * min_item_bytes > self.end - self.pos:
            raise BytecodeError(
                at,
                f"{what} {n} is larger than the data left",
                f"at most {(self.end - self.pos) // min_item_bytes}",
            )
        return n

    def index(self, what: str, limit: int) -> int:
        """A varint that must index a table of `limit` entries."""
        at = self.pos
        i = self.varint(what)
        if i >= limit:
            raise BytecodeError(
                at,
                f"{what} {i} is out of range",
                f"an index below {limit}" if limit else "no index (the table is empty)",
            )
        return i

    def pad(self, alignment: int, what: str) -> None:
        """Skip padding up to the next multiple of `alignment` from `origin`."""
        if alignment < 2:
            return
        skip = -(self.pos - self.origin) % alignment
        self.need(skip, f"padding before {what}")
        self.pos += skip

    def le_array(self, size: int, what: str) -> list[int]:
        """`arr<iN>`: a varint count, then count signed little-endian values."""
        n = self.count(f"{what} length", size)
        start = self.pos
        self.pos += n * size
        chunk = self.data[start : self.pos]
        return [
            int.from_bytes(chunk[i : i + size], "little", signed=True)
            for i in range(0, n * size, size)
        ]


class ByteWriter:
    """Appends to a bytearray; `tell()` is relative to its own start."""

    __slots__ = ("buf",)

    def __init__(self) -> None:
        self.buf = bytearray()

    def tell(self) -> int:
        return len(self.buf)

    def u8(self, value: int) -> None:
        self.buf.append(value & 0xFF)

    def le(self, value: int, size: int) -> None:
        self.buf += (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")

    def raw(self, data: bytes | bytearray) -> None:
        self.buf += data

    def varint(self, value: int) -> None:
        value &= U64_MASK
        buf = self.buf
        while value >= 0x80:
            buf.append((value & 0x7F) | 0x80)
            value >>= 7
        buf.append(value)

    def svarint(self, value: int) -> None:
        value &= U64_MASK
        signed = value - (1 << 64) if value >> 63 else value
        self.varint((signed << 1) ^ (signed >> 63))

    def pad(self, alignment: int) -> None:
        if alignment > 1:
            self.buf += bytes([PADDING_BYTE]) * (-len(self.buf) % alignment)

    def le_array(self, values: list[int] | tuple[int, ...], size: int) -> None:
        self.varint(len(values))
        for v in values:
            self.le(v, size)
