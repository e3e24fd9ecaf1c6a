"""Widths of element types, and powers of two.

An element type has more than one width, and each caller needs a particular one:

- `mlir_bit_width`: MLIR's `Type::getIntOrFloatBitWidth` (tf32 counts 19 bits), and 64
  for `index` (`IndexType::kInternalStorageBitWidth`). Verifiers that restate NVIDIA's
  C++ compare these.
- `storage_bits`: the bits one element takes in memory. As above, except that tf32 is
  stored as a 32-bit float. Sub-byte types keep their width (i1 1, i4 and f4 4).
- `storage_bytes` / `register_bits`: the same, rounded up to whole bytes: what one
  element takes when it is addressed or held in a register on its own (i1, i4 and f4
  take a byte).

The width functions return None for a type that has none of these widths (pointers,
tokens). Each caller says what such a type means to it, most often `POINTER_BITS`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, FloatTF32Type, IndexType, IntegerType
from xdsl.ir import Attribute

#: Pointers, and `index` on every NVIDIA target, are 64-bit values.
POINTER_BITS = 64


def mlir_bit_width(t: Attribute) -> int | None:
    """MLIR's width of an integer, float or index type (tf32 19, f4 4, index 64)."""
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, AnyFloat):
        return t.bitwidth
    if isinstance(t, IndexType):
        return POINTER_BITS
    return None


def storage_bits(t: Attribute) -> int | None:
    """Bits one element of type `t` takes in memory: `mlir_bit_width`, but tf32 takes 32."""
    if isinstance(t, FloatTF32Type):
        return 32
    return mlir_bit_width(t)


def bytes_for(bits: int) -> int:
    """Whole bytes that hold `bits` bits (a sub-byte value takes one byte)."""
    return (bits + 7) // 8


def storage_bytes(t: Attribute) -> int | None:
    """Bytes one element of type `t` takes addressed on its own (i1, i4, f4: one)."""
    bits = storage_bits(t)
    return None if bits is None else bytes_for(bits)


def register_bits(t: Attribute) -> int:
    """Bits one element of type `t` takes in registers: `storage_bytes` in bits.

    Raises ValueError for a type without a width (a pointer's register width is the
    caller's to choose)."""
    size = storage_bytes(t)
    if size is None:
        raise ValueError(f"no register width for element type {t}")
    return 8 * size


def is_pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


def log2(n: int) -> int:
    """The exponent of a power of two (layout sizes, warp counts, strides)."""
    assert is_pow2(n), n
    return n.bit_length() - 1
