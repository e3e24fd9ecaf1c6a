"""Tile carriers: the types a cuda_tile compute op may operate on.

In its public form (inside a `cuda_tile.entry`), every cuda_tile value is a
`!cuda_tile.tile`.  After `convert-cuda-tile-to-tileaa` lifts memory and views to
pointers, the same compute ops keep their semantics (rounding modes, flush-to-zero,
overflow flags) but run on builtin carriers: a ranked `tensor<...>` for a tile of rank
>= 1 and the bare element type for a rank-0 tile.  At nv_tileas the tensors also carry
a layout encoding.  One op set therefore describes the arithmetic at every level, and
the reference interpreter and the LLVM lowering each implement it once.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AnyFloat,
    IntegerType,
    NoneAttr,
    TensorType,
)
from xdsl.ir import Attribute

from tileir.dialects.cuda_tile.types import PointerType, TileType


def is_scalar_element(t: Attribute) -> bool:
    return isinstance(t, IntegerType | AnyFloat | PointerType)


def is_carrier(t: Attribute) -> bool:
    """A tile (public form) or a lowered carrier."""
    if isinstance(t, TileType):
        return True
    if isinstance(t, TensorType):
        return all(d >= 0 for d in t.get_shape()) and is_scalar_element(t.element_type)
    return is_scalar_element(t)


def element_type(t: Attribute) -> Attribute:
    if isinstance(t, TileType | TensorType):
        return t.element_type
    return t


def shape_of(t: Attribute) -> tuple[int, ...]:
    if isinstance(t, TileType):
        return t.dims
    if isinstance(t, TensorType):
        return tuple(t.get_shape())
    return ()


def encoding_of(t: Attribute) -> Attribute | None:
    if isinstance(t, TensorType) and not isinstance(t.encoding, NoneAttr):
        return t.encoding
    return None


def with_element(t: Attribute, element: Attribute) -> Attribute:
    """The carrier of the same kind and shape (and layout) holding `element`."""
    if isinstance(t, TileType):
        return TileType(t.dims, element)
    if isinstance(t, TensorType):
        return TensorType(element, t.get_shape(), t.encoding)
    return element


def with_shape(t: Attribute, shape: Sequence[int], encoding: Attribute | None = None) -> Attribute:
    """The carrier of the same kind holding `shape` elements of the same type."""
    el = element_type(t)
    if isinstance(t, TileType):
        return TileType(shape, el)
    if not shape:
        return el
    return TensorType(el, shape, encoding if encoding is not None else NoneAttr())


def lowered_carrier(shape: Sequence[int], element: Attribute) -> Attribute:
    """The builtin carrier of a tile: the element itself at rank 0, else a tensor."""
    if not shape:
        return element
    return TensorType(element, shape)
