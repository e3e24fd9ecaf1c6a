"""The bytecode reader's varints at their edges (issue 18, item 4): each test fails
under one of the small mutations of `ByteReader` that no test caught before: an 11-byte
varint accepted, the 64-bit overflow check dropped, zigzag decoded as sign-magnitude
(which read `assume bounded<-3, 5>` back as `bounded<-2, 5>`)."""

from __future__ import annotations

import pytest

from tileir.bytecode.stream import BytecodeError, ByteReader, ByteWriter

U64 = (1 << 64) - 1


def reader(data: bytes) -> ByteReader:
    return ByteReader(data, 0, len(data))


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b"\x00", 0),
        (b"\x7f", 127),
        (b"\x80\x01", 128),
        (b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", U64),  # 10 bytes: the widest
        (b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 0),  # 10 bytes, non-minimal
    ],
)
def test_varints_up_to_ten_bytes_read(data: bytes, value: int) -> None:
    r = reader(data)
    assert r.varint("v") == value
    assert r.pos == len(data)


def test_an_eleven_byte_varint_is_rejected_at_its_first_byte() -> None:
    with pytest.raises(BytecodeError, match="longer than 10 bytes") as e:
        reader(b"\x80" * 10 + b"\x00").varint("v")
    assert "at byte 0" in str(e.value)


@pytest.mark.parametrize("last", [0x02, 0x7F])
def test_a_ten_byte_varint_past_64_bits_is_rejected(last: int) -> None:
    with pytest.raises(BytecodeError, match="does not fit in 64 bits"):
        reader(b"\xff" * 9 + bytes([last])).varint("v")


def test_a_varint_cut_short_is_rejected() -> None:
    with pytest.raises(BytecodeError, match="unexpected end of data"):
        reader(b"\x80\x80").varint("v")


@pytest.mark.parametrize(
    ("raw", "value"),
    [(0, 0), (1, -1), (2, 1), (3, -2), (4, 2), (5, -3), (6, 3), (U64 - 1, (1 << 63) - 1),
     (U64, -(1 << 63))],
)  # fmt: skip
def test_zigzag_decodes_alternating_signs(raw: int, value: int) -> None:
    w = ByteWriter()
    w.varint(raw)
    assert reader(bytes(w.buf)).svarint("v") == value


@pytest.mark.parametrize(
    "value", [0, 1, -1, -3, 5, -(1 << 63), (1 << 63) - 1, 123456789, -987654321]
)
def test_zigzag_round_trips(value: int) -> None:
    w = ByteWriter()
    w.svarint(value)
    assert reader(bytes(w.buf)).svarint("v") == value


def test_a_negative_assume_bound_reads_back_exactly() -> None:
    from tileir.bytecode import read_bytecode, write_bytecode
    from tileir.compiler import parse_module_text

    text = (
        "cuda_tile.module @m {\n  entry @k(%a: tile<i32>) {\n"
        "    %b = assume bounded<-3, 5>, %a : tile<i32>\n    return\n  }\n}\n"
    )
    module = read_bytecode(write_bytecode(parse_module_text(text, "k.mlir")), "k.tileirbc")
    assert "bounded<-3, 5>" in str(module)
