"""The file container: header, sections, and the offset-indexed tables inside them.

    file    = magic[8] version section* end
    magic   = 7F 'T' 'i' 'l' 'e' 'I' 'R' 00
    version = major:u8 minor:u8 tag:u16le
    section = id:u8 (bit 7 = aligned) length:varint [alignment:varint padding] payload
    end     = 00, the last byte of the file

Section payloads aligned by their header are aligned relative to the start of the
file.  The string, type, constant and debug-attribute tables share one layout: a
varint count, padding to the offset width, one little-endian start offset per item,
then the items' bytes back to back (item i ends where item i+1 starts, the last one
at the end of the payload).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from tileir.bytecode.stream import BytecodeError, ByteReader, ByteWriter
from tileir.bytecode.version import SUPPORTED_VERSIONS, BytecodeVersion, supported_text

MAGIC = b"\x7fTileIR\x00"
HEADER_SIZE = len(MAGIC) + 4


class Section(IntEnum):
    END = 0
    STRING = 1
    FUNC = 2
    DEBUG = 3
    CONSTANT = 4
    TYPE = 5
    GLOBAL = 6
    PRODUCER = 7


#: Function flags (the byte after a function's signature).
FLAG_PRIVATE = 0x01
FLAG_ENTRY = 0x02
FLAG_HINTS = 0x04

#: The alignment each section's header must declare a multiple of (NVIDIA's reader
#: rejects anything else).
REQUIRED_ALIGNMENT = {
    Section.STRING: 4,
    Section.TYPE: 4,
    Section.CONSTANT: 8,
    Section.DEBUG: 8,
    Section.FUNC: 8,
}

#: The order our writer emits sections in (NVIDIA's order; readers accept any order).
WRITE_ORDER = (
    Section.GLOBAL,
    Section.FUNC,
    Section.CONSTANT,
    Section.DEBUG,
    Section.TYPE,
    Section.PRODUCER,
    Section.STRING,
)

#: A section's alignment can be at most this (a larger one is surely corrupt).
MAX_ALIGNMENT = 1 << 16


def is_bytecode(data: bytes) -> bool:
    return data.startswith(MAGIC)


@dataclass
class Container:
    version: BytecodeVersion
    #: Section id -> reader over its payload.
    sections: dict[Section, ByteReader]
    #: Section id -> offset of its header byte.
    headers: dict[Section, int]


def read_container(data: bytes) -> Container:
    r = ByteReader.over(data)
    for i, want in enumerate(MAGIC):
        got = r.u8("the magic number")
        if got != want:
            raise BytecodeError(
                i,
                f"invalid magic number (byte {i} is 0x{got:02X})",
                f"0x{want:02X}; a .tileirbc file starts with 7F 'TileIR' 00",
            )
    major = r.u8("the major version")
    minor = r.u8("the minor version")
    tag = r.le(2, "the version tag")
    version = BytecodeVersion(major, minor)
    if version not in SUPPORTED_VERSIONS or tag != 0:
        shown = f"{major}.{minor}.{tag}"
        raise BytecodeError(
            len(MAGIC),
            f"unsupported Tile version {shown}, this reader supports versions {supported_text()}",
            "one of " + ", ".join(f"{v}.0" for v in SUPPORTED_VERSIONS),
        )

    sections: dict[Section, ByteReader] = {}
    headers: dict[Section, int] = {}
    while True:
        at = r.pos
        if r.at_end():
            raise BytecodeError(
                at, "unexpected end of data: the end section is missing", "a section header"
            )
        id_byte = r.u8("a section id")
        ident, aligned = id_byte & 0x7F, bool(id_byte & 0x80)
        if ident == Section.END:
            if aligned:
                raise BytecodeError(
                    at, "the end section must not have the alignment flag set", "0x00"
                )
            if not r.at_end():
                raise BytecodeError(
                    at,
                    f"end section is not the last section ({r.remaining} more bytes follow)",
                    "the end of the file",
                )
            break
        if ident > max(Section):
            raise BytecodeError(
                at, f"unknown section ID: {ident}", f"a section id from 0 to {int(max(Section))}"
            )
        section = Section(ident)
        if section in sections:
            raise BytecodeError(
                at, f"duplicate {section.name.lower()} section", "each section at most once"
            )
        length_at = r.pos
        length = r.varint("the section length")
        alignment = 1
        if aligned:
            align_at = r.pos
            alignment = r.varint("the section alignment")
            if alignment == 0 or alignment & (alignment - 1) or alignment > MAX_ALIGNMENT:
                raise BytecodeError(
                    align_at,
                    f"invalid alignment value: {alignment}",
                    f"a power of two up to {MAX_ALIGNMENT}",
                )
            skip = -r.pos % alignment
            r.need(skip, "section padding")
            r.pos += skip
        required = REQUIRED_ALIGNMENT.get(section)
        if required is not None and alignment % required:
            raise BytecodeError(
                at,
                f"{section.name.lower()} section must have alignment that is a multiple of "
                f"{required} bytes, but "
                + (f"has alignment of {alignment}" if aligned else "has no alignment flag set"),
                f"an alignment that is a multiple of {required}",
            )
        if length > r.remaining:
            raise BytecodeError(
                length_at,
                f"section length {length} exceeds the {r.remaining} bytes left in the file",
                f"at most {r.remaining}",
            )
        sections[section] = r.sub(length, f"the {section.name.lower()} section")
        headers[section] = at
    for mandatory in (Section.STRING, Section.FUNC):
        if mandatory not in sections:
            raise BytecodeError(
                len(data) - 1,
                f"the {mandatory.name.lower()} section is missing",
                "a mandatory section",
            )
    return Container(version, sections, headers)


def read_table(
    r: ByteReader, offset_size: int, item: str, *, clamp: bool = False
) -> list[tuple[int, int]]:
    """The (start, end) file offsets of each `item` of an offset-indexed table.

    An offset outside the table is an error, except with `clamp` (the string table): then
    an entry is read as NVIDIA's reader reads it, with LLVM's `StringRef::substr(start,
    next - start)` (the start clamped to the table, the length taken modulo 2^32 and
    clamped), so an entry that starts past the table is the empty string and the error,
    if any, comes where the string is used (`invalid empty attribute name ...`)."""
    n = r.count(f"number of {item}s", offset_size)
    if n == 0:
        return []
    r.pad(offset_size, f"the {item} offsets")
    r.need(n * offset_size, f"the {item} offsets")
    table_at = r.pos
    offsets = [r.le(offset_size, f"a {item} offset") for _ in range(n)]
    data_start = r.pos
    size = r.end - data_start
    items: list[tuple[int, int]] = []
    for i, start in enumerate(offsets):
        end = offsets[i + 1] if i + 1 < n else size
        if clamp:
            first = min(start, size)
            items.append(
                (data_start + first, data_start + min(first + ((end - start) & 0xFFFFFFFF), size))
            )
            continue
        if not 0 <= start <= end <= size:
            raise BytecodeError(
                table_at + i * offset_size,
                f"{item} {i} has offset {start} (next {end}) outside its {size}-byte table",
                "offsets that increase and stay inside the table",
            )
        items.append((data_start + start, data_start + end))
    r.pos = r.end
    return items


def write_table(w: ByteWriter, items: list[bytes], offset_size: int) -> None:
    w.varint(len(items))
    if not items:
        return
    w.pad(offset_size)
    offset = 0
    for item in items:
        w.le(offset, offset_size)
        offset += len(item)
    for item in items:
        w.raw(item)


def write_header(out: ByteWriter, version: BytecodeVersion) -> None:
    out.raw(MAGIC)
    out.u8(version.major)
    out.u8(version.minor)
    out.le(0, 2)


def write_section(
    out: ByteWriter, section: Section, payload: bytes | bytearray, alignment: int
) -> None:
    """A section header (aligned relative to the file start) and its payload."""
    out.u8(int(section) | (0x80 if alignment > 1 else 0))
    out.varint(len(payload))
    if alignment > 1:
        out.varint(alignment)
        out.pad(alignment)
    out.raw(payload)
