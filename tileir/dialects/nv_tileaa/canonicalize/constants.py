"""Compile-time constants as the nv_tileaa folds see them.

A constant tile is a `cuda_tile.constant` (on a builtin carrier) or an
`nv_tileaa.splat` of a scalar one.  The folds ask for the whole array, for the one
value a uniform constant holds, or whether a tile is zero everywhere.  A splat's
questions are answered from one element without numpy (`constant_splat`); an array's
with numpy, imported then.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import Attribute, SSAValue

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.canonicalize import constant_bool as cuda_tile_constant_bool
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileaa import ops as aa
from tileir.utils.numeric import dense_splat, numpy_to_dense

if TYPE_CHECKING:
    import numpy as np


def constant_splat(value: SSAValue) -> int | float | None:
    """The value every element of a compile-time constant tile of at least one element
    holds, when they are stored bit-identical (`numeric.dense_splat`); None otherwise
    (not a constant, empty, or not known to be uniform: ask `constant_array`)."""
    while isinstance(value.owner, aa.SplatOp):
        if not math.prod(shape_of(value.type)):
            return None
        value = value.owner.src
    if not isinstance(value.owner, ct.ConstantOp):
        return None
    return dense_splat(value.owner.value)


def constant_array(value: SSAValue) -> np.ndarray | None:
    """The value as a numpy array of its shape, if it is a compile-time constant."""
    import numpy as np

    owner = value.owner
    if isinstance(owner, ct.ConstantOp):
        return owner.values().reshape(shape_of(value.type))
    if isinstance(owner, aa.SplatOp):
        scalar = constant_array(owner.src)
        if scalar is None:
            return None
        return np.broadcast_to(scalar.reshape(()), shape_of(value.type))
    return None


def uniform_constant(value: SSAValue) -> int | float | None:
    """The single value (an int, or a float keeping -0.0 and NaN payloads) of a constant
    whose elements are all bit-identical as `constant_array` holds them."""
    splat = constant_splat(value)
    if splat is not None or not is_constant(value):
        return splat
    import numpy as np

    data = constant_array(value)
    if data is None or data.size == 0:
        return None
    flat = np.ascontiguousarray(data).reshape(-1)
    rows = np.frombuffer(flat.tobytes(), dtype=np.uint8).reshape(flat.size, flat.dtype.itemsize)
    if not bool((rows == rows[0]).all()):
        return None
    return int(flat[0]) if isinstance(element_type(value.type), IntegerType) else float(flat[0])


def is_constant(value: SSAValue) -> bool:
    """Whether `constant_array(value)` is an array (without making it)."""
    while isinstance(value.owner, aa.SplatOp):
        value = value.owner.src
    return isinstance(value.owner, ct.ConstantOp)


def constant_bool(value: SSAValue) -> bool | None:
    """cuda_tile's `constant_bool`, seeing through `nv_tileaa.splat`s: True / False when
    `value` is an i1 tile that is constant everywhere."""
    while isinstance(value.owner, aa.SplatOp):
        value = value.owner.src
    return cuda_tile_constant_bool(value)


def is_zero_tile(value: SSAValue) -> bool:
    """Every element is zero (+0.0 or -0.0 for floats)."""
    splat = constant_splat(value)
    if splat is not None:
        return splat == 0
    if not is_constant(value):
        return False
    data = constant_array(value)
    return data is not None and data.size > 0 and bool((as_float64_or_int(data) == 0).all())


def as_float64_or_int(data: np.ndarray) -> np.ndarray:
    """Integers as they are, every float kind (numpy's and ml_dtypes') as float64."""
    import numpy as np

    return data if data.dtype.kind in "iub" else data.astype(np.float64)


def is_finite_tile(value: SSAValue) -> bool:
    """A constant without infinities or NaNs (integers always are)."""
    if not is_constant(value):
        return False
    if isinstance(element_type(value.type), IntegerType):
        return True
    splat = constant_splat(value)
    if splat is not None:
        return math.isfinite(splat)
    import numpy as np

    data = constant_array(value)
    assert data is not None
    return bool(np.isfinite(data.astype(np.float64)).all())


def materialize(values: np.ndarray, result_type: Attribute) -> ct.ConstantOp:
    """A `cuda_tile.constant` of `result_type` holding `values`."""
    import numpy as np

    el = element_type(result_type)
    shape = shape_of(result_type)
    flat = np.asarray(values).reshape(max(1, math.prod(shape)) if shape else 1)
    if isinstance(el, AnyFloat):
        data: list[object] = [float(v) for v in flat.astype(np.float64)]
    else:
        data = [int(v) for v in flat]
    return ct.ConstantOp(numpy_to_dense(data, shape, el), result_type)
