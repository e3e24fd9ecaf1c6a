"""The constant table: dense tile values, stored as MLIR's raw dense buffers.

    constant = size:varint bytes[size]

The bytes are `DenseElementsAttr::getRawData()`: little-endian elements of
ceil(width / 8) bytes (tf32 takes 3), row-major; a splat is stored as one element;
`i1` is bit-packed (element k in bit k % 8 of byte k / 8), and an `i1` splat is the
single byte 0x00 or 0xFF.  The constant carries no type: the op (or global) that uses
it supplies the tile type it is read as, so one constant can serve several types.
"""

from __future__ import annotations

from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, IntegerType, TensorType
from xdsl.ir import Attribute

from tileir.bytecode.stream import BytecodeError, ByteReader, ByteWriter, EncodeError
from tileir.dialects.cuda_tile.types import TileType
from tileir.utils.bits import bytes_for, mlir_bit_width

#: Splat constants are expanded to full tiles in the IR (as the text parser does); the
#: bytes a whole file may expand to are bounded so a tiny file cannot ask for gigabytes.
MAX_EXPANDED_BYTES = 64 << 20


def element_bytes(el: Attribute) -> int:
    """Bytes of one element in MLIR's raw dense buffer: MLIR's width rounded up (tf32 3)."""
    bits = mlir_bit_width(el)
    if bits is None:
        raise EncodeError(f"constants of element type {el} cannot be written to bytecode")
    return bytes_for(bits)


def _is_i1(el: Attribute) -> bool:
    return isinstance(el, IntegerType) and el.width.data == 1


class ConstantTableReader:
    def __init__(self, data: bytes, items: list[tuple[int, int]]):
        self.data = data
        self.items = items
        self.cache: dict[tuple[int, Attribute], DenseIntOrFPElementsAttr] = {}
        self.expanded = 0

    def __len__(self) -> int:
        return len(self.items)

    def read(self, r: ByteReader, tile: Attribute, what: str) -> DenseIntOrFPElementsAttr:
        at = r.pos
        index = r.index(f"{what} constant index", len(self.items))
        return self.get(index, tile, at)

    def get(self, index: int, tile: Attribute, at: int) -> DenseIntOrFPElementsAttr:
        key = (index, tile)
        found = self.cache.get(key)
        if found is not None:
            return found
        if not isinstance(tile, TileType):
            raise BytecodeError(at, f"a dense constant of type {tile}", "a tile type")
        start, end = self.items[index]
        r = ByteReader.over(self.data, start, end)
        raw = r.take(r.count("constant size"), "constant data")
        attr = self._decode(raw, tile, start)
        self.cache[key] = attr
        return attr

    def _decode(self, raw: bytes, tile: TileType, at: int) -> DenseIntOrFPElementsAttr:
        el = tile.element_type
        n = tile.num_elements
        if _is_i1(el):
            if len(raw) == 1 and raw[0] in (0x00, 0xFF):
                data = raw * n
            elif len(raw) == (n + 7) // 8:
                data = bytes(0xFF if raw[k >> 3] >> (k & 7) & 1 else 0 for k in range(n))
            else:
                raise BytecodeError(
                    at,
                    f"constant of {len(raw)} bytes does not fit {tile}",
                    f"1 byte (0x00 or 0xFF) or {(n + 7) // 8} bit-packed bytes",
                )
        else:
            if mlir_bit_width(el) is None:
                raise BytecodeError(
                    at, f"a dense constant of element type {el}", "an integer or float element"
                )
            width = element_bytes(el)
            if len(raw) == n * width:
                data = raw
            elif len(raw) == width:
                data = raw * n
            else:
                raise BytecodeError(
                    at,
                    f"constant of {len(raw)} bytes does not fit {tile}",
                    f"{width} bytes (a splat) or {n * width}",
                )
        if len(data) != len(raw):
            self.expanded += len(data)
            if self.expanded > MAX_EXPANDED_BYTES:
                raise BytecodeError(
                    at,
                    f"splat constants expand to more than {MAX_EXPANDED_BYTES >> 20} MiB",
                    "smaller constant tiles",
                )
        return DenseIntOrFPElementsAttr(TensorType(el, tile.dims), BytesAttr(data))  # pyright: ignore[reportArgumentType]


def raw_dense_bytes(attr: DenseIntOrFPElementsAttr) -> bytes:
    """MLIR's raw buffer for `attr` (one element when all elements are equal)."""
    el = attr.get_element_type()
    data = attr.data.data
    if _is_i1(el):
        bits = [b != 0 for b in data]
        if not bits:
            return b""
        if all(bits) or not any(bits):
            return b"\xff" if bits[0] else b"\x00"
        out = bytearray((len(bits) + 7) // 8)
        for k, bit in enumerate(bits):
            if bit:
                out[k >> 3] |= 1 << (k & 7)
        return bytes(out)
    width = element_bytes(el)
    if len(data) > width and data == data[:width] * (len(data) // width):
        return data[:width]
    return data


class ConstantTableWriter:
    def __init__(self) -> None:
        self.index: dict[bytes, int] = {}
        self.items: list[bytes] = []

    def __call__(self, attr: DenseIntOrFPElementsAttr) -> int:
        raw = raw_dense_bytes(attr)
        w = ByteWriter()
        w.varint(len(raw))
        w.raw(raw)
        item = bytes(w.buf)
        found = self.index.get(item)
        if found is not None:
            return found
        self.index[item] = len(self.items)
        self.items.append(item)
        return len(self.items) - 1
