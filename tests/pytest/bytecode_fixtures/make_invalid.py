#!/usr/bin/env python3
"""Write the malformed bytecode fixtures under ``invalid/``.

Each file is assembled by hand here (a few helpers, no tileir code), so the fixtures
do not depend on the reader they test.  ``CASES`` maps a fixture name to its bytes
and to what the reader must say: a fragment of the message and the byte offset.
The first six are this project's equivalents of NVIDIA's test/Bytecode/invalid
fixtures (made from scratch, nothing copied); the rest cover every other way a file
can be broken that the issue lists.  ``test_bytecode_invalid.py`` checks that the
committed files equal what this script makes.

    python tests/pytest/bytecode_fixtures/make_invalid.py
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

OUT = Path(__file__).resolve().parent / "invalid"
MAGIC = b"\x7fTileIR\x00"


def varint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def le(v: int, n: int) -> bytes:
    return (v & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


def arr(values: list[int], size: int) -> bytes:
    return varint(len(values)) + b"".join(le(v, size) for v in values)


def pad(buf: bytes, alignment: int) -> bytes:
    return buf + b"\xcb" * (-len(buf) % alignment)


def table(items: list[bytes], offset_size: int) -> bytes:
    out = varint(len(items))
    if not items:
        return out
    out = pad(out, offset_size)
    offset = 0
    for item in items:
        out += le(offset, offset_size)
        offset += len(item)
    return out + b"".join(items)


def header(major: int = 13, minor: int = 1, tag: int = 0) -> bytes:
    return MAGIC + bytes([major, minor]) + le(tag, 2)


def section(out: bytes, ident: int, payload: bytes, alignment: int) -> bytes:
    out += bytes([ident | (0x80 if alignment > 1 else 0)]) + varint(len(payload))
    if alignment > 1:
        out += varint(alignment)
        out = pad(out, alignment)
    return out + payload


STRING, FUNC, DEBUG, CONSTANT, TYPE, GLOBAL = 1, 2, 3, 4, 5, 6

#: Types of the base module: 0 f32, 1 tile<f32>, 2 i32, 3 tile<i32>, 4 () -> ().
BASE_TYPES = [
    varint(7),
    varint(13) + varint(0) + arr([], 8),
    varint(3),
    varint(13) + varint(2) + arr([], 8),
    varint(16) + varint(0) + varint(0),
]
RETURN = bytes([0x5C, 0x00, 0x00])  # return: no results (counted), no operands (counted)


def function(
    body: bytes,
    *,
    name: int = 0,
    signature: int = 4,
    flags: int = 0x02,
    loc: int = 0,
    hints: bytes = b"",
) -> bytes:
    return (
        varint(name)
        + varint(signature)
        + bytes([flags])
        + varint(loc)
        + hints
        + varint(len(body))
        + body
    )


def module(
    body: bytes = RETURN,
    *,
    version: tuple[int, int] = (13, 1),
    types: list[bytes] | None = None,
    strings: list[bytes] | None = None,
    functions: list[bytes] | None = None,
    extra: Callable[[bytes], bytes] | None = None,
    string_alignment: int = 4,
) -> bytes:
    out = header(*version)
    funcs = functions if functions is not None else [function(body)]
    out = section(out, FUNC, varint(len(funcs)) + b"".join(funcs), 8)
    out = section(out, TYPE, table(types if types is not None else BASE_TYPES, 4), 4)
    if extra is not None:
        out = extra(out)
    out = section(
        out, STRING, table(strings if strings is not None else [b"k"], 4), string_alignment
    )
    return out + b"\x00"


@dataclass(frozen=True)
class Case:
    data: bytes
    message: str
    offset: int | None = None


def _cases() -> dict[str, Case]:
    valid = module()
    func_at = len(header())  # the function section's header: id, length, alignment
    func_payload = 16  # ... and its payload, after padding to 8
    body_at = func_payload + 1 + 5  # count, then name, signature, flags, loc, length
    cases: dict[str, Case] = {}

    # NVIDIA's invalid fixtures, remade.
    cases["invalid_magic_number"] = Case(b"\x7eTileIR\x00\x01", "invalid magic number", 0)
    cases["unsupported_version"] = Case(header(18, 0), "unsupported Tile version 18.0.0", 8)
    cases["invalid_section_id"] = Case(header() + b"\x7f\x01\x00", "unknown section ID: 127", 12)
    cases["excessive_section_length"] = Case(
        header() + b"\x00\xff\xff\xff\x7f\x01\x02\x03", "end section is not the last section", 12
    )
    dim_map = varint(15) + arr([4], 4) + varint(5) + arr([-(2**31)], 4) + b"\x00"
    tv = varint(14) + varint(0) + arr([64], 8) + arr([1], 8)
    signature = varint(16) + varint(1) + varint(6) + varint(0)  # (partition_view) -> ()
    cases["invalid_dense_map_value"] = Case(
        module(
            types=[*BASE_TYPES, tv, dim_map, signature], functions=[function(RETURN, signature=7)]
        ),
        "array contains unsupported value -2147483648",
    )
    hints = varint(11) + varint(1) + varint(1) + varint(10) + varint(0)  # {"" : {}}
    cases["invalid_attribute_name"] = Case(
        module(functions=[function(RETURN, flags=0x06, hints=hints)], strings=[b"k", b""]),
        "invalid empty attribute name for DictionaryAttr element 0",
    )

    # Truncations and lengths.
    cases["truncated_header"] = Case(
        valid[:10], "unexpected end of data reading the version tag", 10
    )
    cases["truncated_in_section"] = Case(valid[: func_at + 10], "exceeds the", func_at + 1)
    cases["truncated_no_end"] = Case(valid[:-1], "the end section is missing", len(valid) - 1)
    cases["section_length_too_long"] = Case(
        header() + bytes([0x81]) + varint(1000) + varint(4) + b"\xcb" * 3 + b"\x00" * 8 + b"\x00",
        "section length 1000 exceeds",
        13,
    )
    short = bytearray(valid)
    short[func_at + 1] -= 2  # the function section claims 2 bytes fewer than it has
    cases["section_length_too_short"] = Case(bytes(short), "")
    huge = section(header(), FUNC, varint(2**60), 8)
    huge = section(huge, TYPE, table(BASE_TYPES, 4), 4)
    cases["huge_function_count"] = Case(
        section(huge, STRING, table([b"k"], 4), 4) + b"\x00", "number of functions", func_payload
    )
    cases["overlong_varint"] = Case(
        header() + bytes([0x82]) + b"\xff" * 11, "a varint longer than 10 bytes", 13
    )

    # Sections.
    cases["duplicate_section"] = Case(
        module(extra=lambda out: section(out, TYPE, table(BASE_TYPES, 4), 4)),
        "duplicate type section",
    )
    cases["missing_function_section"] = Case(
        section(header(), STRING, table([b"k"], 4), 4) + b"\x00", "the func section is missing"
    )
    cases["unaligned_string_section"] = Case(
        module(string_alignment=1), "string section must have alignment that is a multiple of 4"
    )
    cases["bad_alignment"] = Case(
        header() + bytes([0x82, 0x00, 0x03, 0x00]), "invalid alignment value: 3", 14
    )

    # Versions.
    cases["version_too_old"] = Case(header(12, 9), "unsupported Tile version 12.9.0", 8)
    cases["version_too_new"] = Case(header(13, 5), "unsupported Tile version 13.5.0", 8)
    cases["preview_tag"] = Case(header(13, 4, 1), "unsupported Tile version 13.4.1", 8)

    consts = lambda out: section(out, CONSTANT, table([varint(4) + le(7, 4)], 8), 8)  # noqa: E731

    # An attribute whose encoding does not match its type (NVIDIA's reader: "failed to
    # read valid IntegerType for IntegerAttr" and its float and dense twins), given as
    # the entry's optimization hint {"k" = <attribute>}: tag, type index, value.
    def hint(attribute: bytes) -> bytes:
        return function(RETURN, flags=0x06, hints=varint(11) + varint(1) + varint(0) + attribute)

    hint_at = func_payload + 8  # count, name, signature, flags, loc, hints tag, size, key
    cases["integer_attribute_of_float_type"] = Case(
        module(functions=[hint(varint(1) + varint(0) + varint(5))]),
        "failed to read valid IntegerType for IntegerAttr: f32",
        hint_at,
    )
    cases["integer_attribute_of_tile_type"] = Case(
        module(functions=[hint(varint(1) + varint(3) + varint(5))]),
        "failed to read valid IntegerType for IntegerAttr: !cuda_tile.tile<i32>",
        hint_at,
    )
    cases["float_attribute_of_integer_type"] = Case(
        module(functions=[hint(varint(2) + varint(2) + le(0, 4))]),
        "failed to read valid FloatType for FloatAttr: i32",
        hint_at,
    )
    cases["dense_attribute_of_scalar_type"] = Case(
        module(functions=[hint(varint(7) + varint(0) + varint(0))], extra=consts),
        "failed to read valid MLIR Type for self-contained DenseElementsAttr: f32",
        hint_at,
    )

    # Held-out hostile bytecode of issue 18's re-check: shapes, constants and bodies
    # that a reader or verifier must reject, each at its bytes.
    def one_constant(tile: bytes, data: bytes) -> bytes:
        return module(
            types=[*BASE_TYPES, tile],
            body=bytes([0x10, 0x05, 0x00]) + RETURN,
            extra=lambda out: section(out, CONSTANT, table([data], 8), 8),
        )

    cases["tile_past_the_element_limit"] = Case(
        one_constant(varint(13) + varint(0) + arr([1 << 40], 8), varint(4) + le(0, 4)),
        "tile shape [1099511627776] has more than 2^24 elements",
    )
    cases["tile_negative_dimension"] = Case(
        one_constant(varint(13) + varint(2) + arr([-4], 8), varint(4) + le(0, 4)),
        "tile shape [-4] has a dimension that is not positive",
    )
    cases["constant_shorter_than_its_tile"] = Case(
        one_constant(varint(13) + varint(2) + arr([4], 8), varint(2) + le(7, 2)),
        "constant of 2 bytes does not fit",
    )
    cases["constant_size_past_the_data"] = Case(
        one_constant(varint(13) + varint(2) + arr([4], 8), varint(2**62)),
        "constant size 4611686018427387904 is larger than the data left",
    )
    cases["constant_of_a_scalar_type"] = Case(
        module(bytes([0x10, 0x02, 0x00]) + RETURN, extra=consts),
        "a dense constant of type i32",
        body_at + 2,
    )
    cases["return_of_a_value_from_a_void_entry"] = Case(
        module(bytes([0x10, 0x03, 0x00, 0x5C, 0x00, 0x01, 0x00]), extra=consts),
        "'cuda_tile.return' op has 1 operands, but enclosing function (@k) returns 0",
        body_at + 3,
    )
    cases["body_without_a_terminator"] = Case(
        module(bytes([0x10, 0x03, 0x00]), extra=consts),
        "terminates block in single-block region but is not a terminator",
    )
    cases["two_entries_of_one_name"] = Case(
        module(functions=[function(RETURN), function(RETURN)]), 'Redefinition of symbol "k"'
    )

    # Indices that point nowhere.
    negf = bytes([0x4F, 0x01, 0x05])  # negf: result tile<f32>, operand value 5
    cases["dangling_value_index"] = Case(
        module(negf + RETURN), "refers to value 5, which is not defined here", body_at + 2
    )
    bad_type = bytes([0x10, 0x09, 0x00])  # constant of type 9
    cases["dangling_type_index"] = Case(
        module(bad_type + RETURN), "result type index 9 is out of range", body_at + 1
    )
    cases["dangling_string_index"] = Case(
        module(functions=[function(RETURN, name=7)]),
        "function name string index 7 is out of range",
        func_payload + 1,
    )
    cases["dangling_constant_index"] = Case(
        module(bytes([0x10, 0x01, 0x03]) + RETURN), "constant index 3 is out of range", body_at + 2
    )
    cases["dangling_debug_index"] = Case(
        module(functions=[function(RETURN, loc=4)]),
        "function debug index 4 is out of range",
        func_payload + 4,
    )
    cases["self_referencing_type"] = Case(
        module(types=[varint(12) + varint(0), *BASE_TYPES[1:]], body=bytes([0x44, 0x00]) + RETURN),
        "",
    )

    # Opcodes.
    atan2 = bytes([0x6E, 0x01, 0x00, 0x00])
    cases["opcode_newer_than_version"] = Case(
        module(atan2 + RETURN),
        "opcode 0x6E (atan2) is not available in bytecode version 13.1",
        body_at,
    )
    cases["unknown_opcode"] = Case(module(bytes([0x19]) + RETURN), "unknown opcode 0x19", body_at)
    cases["entry_in_body"] = Case(
        module(bytes([0x16]) + RETURN), "'entry' cannot appear inside a function body", body_at
    )

    # Types and functions.
    f4 = [*BASE_TYPES, varint(19)]
    cases["type_newer_than_version"] = Case(
        module(types=f4, body=bytes([0x10, 0x05, 0x00]) + RETURN),
        "type 'Float4E2M1FN' requires bytecode version 13.3+, file version is 13.1",
    )
    odd_tile = [*BASE_TYPES, varint(13) + varint(0) + arr([3], 8)]
    cases["tile_not_power_of_two"] = Case(
        module(types=odd_tile, body=bytes([0x3A, 0x05]) + RETURN), "power"
    )
    cases["not_an_entry"] = Case(
        module(functions=[function(RETURN, flags=0)]), "is not an entry", func_payload + 3
    )
    cases["signature_not_a_function"] = Case(
        module(functions=[function(RETURN, signature=1)]), "has signature", func_payload + 2
    )
    # negf of an i32 tile: decodes, then fails the op's verifier.
    negf_i32 = bytes([0x10, 0x03, 0x00, 0x4F, 0x03, 0x00])
    cases["verifier_failure"] = Case(
        module(negf_i32 + RETURN, extra=consts), "invalid IR", body_at + 3
    )

    # Deeply nested regions: `for` inside `for` 100 times.
    def nested_for(depth: int) -> bytes:
        # for: result count 0, operand count 3 (values 0, 0, 0), 1 region, 1 block,
        # 1 block argument of tile<i32>, then one op (the next for, or continue).
        inner = nested_for(depth - 1) if depth else bytes([0x11, 0x00, 0x00])
        return bytes([0x29, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x01, 0x01, 0x03, 0x01]) + inner

    zero = bytes([0x10, 0x03, 0x00])
    cases["deep_nesting"] = Case(
        module(zero + nested_for(100) + RETURN, extra=consts), "regions nested deeper than 64"
    )
    return cases


CASES = _cases()


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*.tileirbc"):
        old.unlink()
    for name, case in CASES.items():
        (OUT / f"{name}.tileirbc").write_bytes(case.data)
    print(f"wrote {len(CASES)} fixtures to {OUT}")


if __name__ == "__main__":
    main()
