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
from typing import Protocol

from xdsl.dialects.builtin import (
    AnyFloat,
    IntegerType,
    NoneAttr,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from tileir.dialects.cuda_tile.attributes import BoundedAttr, DivByAttr, SameElementsAttr
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


class ReportsErrors(Protocol):
    """An op whose verifier reports a broken rule as `'<op name>' op <message>`."""

    def op_error(self, message: str) -> VerifyException: ...


def check_pointer_offsets(op: ReportsErrors, pointers: Attribute, offsets: Attribute) -> None:
    """The operands of pointer arithmetic on carriers (`nv_tileaa.addptr`,
    `nv_tileas.addptr`): a pointer or a tile of pointers, advanced by integer offsets of
    the same shape."""
    if not isinstance(element_type(pointers), PointerType):
        raise op.op_error(f"expected a pointer or tensor of pointers, got {pointers}")
    if not isinstance(element_type(offsets), IntegerType):
        raise op.op_error(f"expected integer offsets, got {offsets}")
    if shape_of(pointers) != shape_of(offsets):
        raise op.op_error("pointer and offset shapes differ")


def check_assumption(op: ReportsErrors, predicate: Attribute, value: Attribute) -> None:
    """A cuda_tile assume predicate on a carrier of type `value` (`nv_tileaa.assume`,
    `nv_tileas.assume`): `div_by` takes a positive power of two on integers or pointers
    (`along` a dimension of the value), `bounded` integers, and `same_elements` one
    extent per dimension."""
    el = element_type(value)
    rank = len(shape_of(value))
    if isinstance(predicate, DivByAttr):
        d = predicate.divisor.data
        if d < 1 or d & (d - 1):
            raise op.op_error(f"div_by divisor must be a positive power of 2, got {d}")
        if not isinstance(el, IntegerType | PointerType):
            raise op.op_error(f"div_by needs integers or pointers, got {value}")
        along = predicate.along_value
        if along is not None and not 0 <= along < rank:
            raise op.op_error(f"div_by along {along} is not a dimension of {value}")
    elif isinstance(predicate, BoundedAttr) and not isinstance(el, IntegerType):
        raise op.op_error(f"bounded needs integers, got {value}")
    elif isinstance(predicate, SameElementsAttr) and len(predicate.values) != rank:
        raise op.op_error(f"same_elements lists {len(predicate.values)} extents for rank {rank}")
