"""Shared helpers for the cuTile kernel corpus.

Every kernel module in this folder (``tests/corpus/<name>.py``) exposes the same
interface (see ``README.md``):

* ``KERNEL``: the ``@ct.kernel`` function;
* ``TILE``-style constants (powers of two) used for its tile shapes;
* ``signatures() -> list[KernelSignature]``: what ``generate.py`` exports;
* ``make_inputs(rng) -> KernelInputs``: deterministic test inputs and launch grid;
* ``reference(inputs) -> dict[str, np.ndarray]``: expected outputs, by output name;
* ``TOLERANCE: dict[str, tuple[float, float]]``: ``(rtol, atol)`` per output name;
* ``flatten_args`` (re-exported from here): the flat entry-argument list.

This module needs only numpy; the constraint helpers import ``cuda.tile`` lazily,
so ``flatten_args`` and friends work without cuTile installed.  The kernel
modules themselves import ``cuda.tile`` (they define ``@ct.kernel`` functions);
everything else about a kernel (its constants, ``TOLERANCE``, ``make_inputs``,
``reference``) lives in ``cases/<name>.py``, which needs only numpy and which the
kernel module re-exports.  ``load_case_module`` imports that part alone.

Kernel modules import this file as a top-level module (``import _common``), so
``tests/corpus`` must be on ``sys.path``; ``load_kernel_module`` takes care of that.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

if TYPE_CHECKING:
    from cuda.tile.compilation import ArrayConstraint, KernelSignature, ScalarConstraint

CORPUS_DIR = Path(__file__).resolve().parent

ScalarValue = int | float
FlatArg = np.ndarray | int | float


class KernelInputs(TypedDict):
    """Inputs for one launch of a corpus kernel.

    ``params`` lists *every* parameter of the Python kernel function in
    declaration order; each name appears in exactly one of ``arrays``,
    ``scalars`` or ``constants``.
    """

    params: tuple[str, ...]
    """All kernel parameter names, in declaration order."""
    arrays: dict[str, np.ndarray]
    """Array parameters (inputs and outputs), by name. Outputs are pre-filled with a sentinel."""
    scalars: dict[str, ScalarValue]
    """Runtime scalar parameters (Python ``float`` -> f32, ``int`` -> i32), by name."""
    constants: dict[str, int]
    """``ct.Constant`` parameters, by name: compiled in, not entry parameters."""
    outputs: tuple[str, ...]
    """Names of the arrays the kernel writes."""
    grid: tuple[int, int, int]
    """Launch grid (number of tile blocks along x, y, z)."""


# --------------------------------------------------------------------------- inputs


def cdiv(a: int, b: int) -> int:
    """Ceiling division for non-negative ints."""
    return -(-a // b)


def make_kernel_inputs(
    *,
    params: Sequence[str],
    arrays: dict[str, np.ndarray],
    scalars: dict[str, ScalarValue] | None = None,
    constants: dict[str, int] | None = None,
    outputs: Sequence[str],
    grid: Sequence[int],
) -> KernelInputs:
    """Build and validate a ``KernelInputs`` dict."""
    scalars = dict(scalars or {})
    constants = dict(constants or {})
    params = tuple(params)
    named = [*arrays, *scalars, *constants]
    if sorted(named) != sorted(params) or len(set(named)) != len(named):
        raise ValueError(f"params {params} do not match arrays/scalars/constants {named}")
    # Keep the dicts in parameter order, so iteration order is the kernel's order.
    arrays = {p: arrays[p] for p in params if p in arrays}
    scalars = {p: scalars[p] for p in params if p in scalars}
    constants = {p: constants[p] for p in params if p in constants}
    for name, value in scalars.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"scalar {name!r} must be a Python int or float, got {value!r}")
    outputs = tuple(outputs)
    if not set(outputs) <= set(arrays):
        raise ValueError(f"outputs {outputs} must name arrays")
    grid3 = (*tuple(int(g) for g in grid), 1, 1)[:3]
    if any(g < 1 for g in grid3):
        raise ValueError(f"bad grid {grid3}")
    return KernelInputs(
        params=params,
        arrays=arrays,
        scalars=scalars,
        constants=constants,
        outputs=outputs,
        grid=grid3,
    )


def copy_inputs(inputs: KernelInputs) -> KernelInputs:
    """``inputs`` with every array copied (contiguously): the values as they are now,
    for references of kernels that update arrays in place."""
    arrays = {name: a.copy() for name, a in inputs["arrays"].items()}
    return KernelInputs(
        params=inputs["params"],
        arrays=arrays,
        scalars=dict(inputs["scalars"]),
        constants=dict(inputs["constants"]),
        outputs=inputs["outputs"],
        grid=inputs["grid"],
    )


def launch_copy(inputs: KernelInputs) -> KernelInputs:
    """A deep copy of ``inputs`` for one more launch: every array's backing buffer is
    copied and strided views stay strided (same shape and strides), so that two
    launchers (the interpreter, a GPU, another compiler's cubin) can each run on
    their own copy of the same arguments."""
    arrays = {}
    for name, a in inputs["arrays"].items():
        buffer = backing_buffer(a).copy()
        arrays[name] = buffer if a.flags.c_contiguous else strided_view(buffer, a.shape)
    return make_kernel_inputs(
        params=inputs["params"],
        arrays=arrays,
        scalars=inputs["scalars"],
        constants=inputs["constants"],
        outputs=inputs["outputs"],
        grid=inputs["grid"],
    )


def empty_output(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """An output array pre-filled with a sentinel (NaN for floats, INT_MIN for ints).

    Any element the kernel fails to write then differs from the reference.
    """
    dt = np.dtype(dtype)
    if np.issubdtype(dt, np.integer):
        return np.full(shape, np.iinfo(dt).min, dtype=dt)
    return np.full(shape, np.nan, dtype=dt)


def strided_view(full: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The leading ``shape`` corner of ``full``: a view whose strides are ``full``'s.

    Used to build arrays whose row stride is larger than their row length.  The
    view starts at element 0 of ``full``, so ``backing_buffer(view) is full``.
    """
    view = full[tuple(slice(0, n) for n in shape)]
    assert view.__array_interface__["data"][0] == full.__array_interface__["data"][0]
    return view


def backing_buffer(a: np.ndarray) -> np.ndarray:
    """The contiguous buffer that a launcher must upload for array ``a``.

    For a contiguous array this is ``a`` itself; for a view made by
    ``strided_view`` it is the full allocation (which starts at the same address),
    so a device copy of it can be passed as the array's base pointer together
    with ``a``'s own shape and strides.
    """
    if a.flags.c_contiguous:
        return a
    base = a.base
    if not isinstance(base, np.ndarray) or not base.flags.c_contiguous:
        raise ValueError("array is neither contiguous nor a strided_view of a contiguous buffer")
    if base.__array_interface__["data"][0] != a.__array_interface__["data"][0]:
        raise ValueError("view does not start at the beginning of its buffer")
    return base


# ------------------------------------------------------------------ calling convention


def element_strides(a: np.ndarray) -> tuple[int, ...]:
    """Strides of ``a`` in elements (numpy reports them in bytes)."""
    item = a.dtype.itemsize
    if any(s % item for s in a.strides):
        raise ValueError(f"strides {a.strides} are not multiples of the item size {item}")
    return tuple(s // item for s in a.strides)


def flatten_args(inputs: KernelInputs) -> list[FlatArg]:
    """The flat launch-argument list, in entry-parameter order.

    cuTile Python's ``cutile_python_v1`` calling convention (``index_dtype=int32``):

    * an array parameter of rank ``n`` becomes ``1 + 2n`` entry parameters:
      the base pointer (``tile<ptr<T>>``; here: the numpy array itself), then its
      ``n`` shape values, then its ``n`` strides in elements (all ``tile<i32>``;
      here: Python ints).  Strides are passed even where the signature declares
      them constant;
    * a runtime scalar becomes one parameter (``tile<f32>`` for ``float``,
      ``tile<i32>`` for ``int``; here: the Python value);
    * ``ct.Constant`` parameters are compiled in and are not entry parameters.
    """
    flat: list[FlatArg] = []
    for name in inputs["params"]:
        if name in inputs["arrays"]:
            a = inputs["arrays"][name]
            flat.append(a)
            flat.extend(int(n) for n in a.shape)
            flat.extend(element_strides(a))
        elif name in inputs["scalars"]:
            flat.append(inputs["scalars"][name])
        elif name not in inputs["constants"]:
            raise KeyError(f"parameter {name!r} has no value")
    return flat


def launch_args(inputs: KernelInputs) -> tuple[Any, ...]:
    """All kernel arguments in Python parameter order (as ``ct.launch`` takes them).

    Arrays are returned as numpy arrays; a real ``ct.launch`` needs device arrays.
    """
    values: dict[str, Any] = {**inputs["arrays"], **inputs["scalars"], **inputs["constants"]}
    return tuple(values[name] for name in inputs["params"])


def tile_dtype_name(dtype: Any) -> str:
    """The cuda_tile element-type spelling of a numpy dtype (``float32`` -> ``f32``)."""
    import ml_dtypes

    dt = np.dtype(dtype)
    table = {
        np.dtype(np.float32): "f32",
        np.dtype(np.float16): "f16",
        np.dtype(ml_dtypes.bfloat16): "bf16",
        np.dtype(ml_dtypes.float8_e4m3fn): "f8E4M3FN",
        np.dtype(ml_dtypes.float8_e5m2): "f8E5M2",
        np.dtype(ml_dtypes.float8_e8m0fnu): "f8E8M0FNU",
        np.dtype(np.float64): "f64",
        np.dtype(np.int32): "i32",
        np.dtype(np.int64): "i64",
        np.dtype(np.int16): "i16",
        np.dtype(np.int8): "i8",
        np.dtype(np.uint8): "i8",  # cuda_tile integers are signless
        np.dtype(np.bool_): "i1",
    }
    return table[dt]


def entry_parameter_types(inputs: KernelInputs) -> list[str]:
    """The expected ``tile<...>`` type of each entry parameter, in order."""
    types: list[str] = []
    for arg in flatten_args(inputs):
        if isinstance(arg, np.ndarray):
            types.append(f"tile<ptr<{tile_dtype_name(arg.dtype)}>>")
        elif isinstance(arg, float):
            types.append("tile<f32>")
        else:
            types.append("tile<i32>")
    return types


# ------------------------------------------------------------------- signatures


def array_constraint(
    dtype: Any,
    ndim: int,
    *,
    base_addr_divisible_by: int = 16,
    stride_divisible_by: Sequence[int] | int = 1,
    shape_divisible_by: Sequence[int] | int = 1,
) -> ArrayConstraint:
    """An ``ArrayConstraint`` for a row-major array with unit innermost stride.

    int32 indices, non-negative strides, no aliasing with any other parameter.
    """
    import cuda.tile as ct
    from cuda.tile.compilation import ArrayConstraint

    return ArrayConstraint(
        dtype,
        ndim,
        index_dtype=ct.int32,
        stride_lower_bound_incl=0,
        alias_groups=[],
        may_alias_internally=False,
        stride_constant=[None] * (ndim - 1) + [1],
        stride_divisible_by=stride_divisible_by,
        shape_divisible_by=shape_divisible_by,
        base_addr_divisible_by=base_addr_divisible_by,
    )


def scalar_constraint(dtype: Any) -> ScalarConstraint:
    """A ``ScalarConstraint`` for a runtime scalar parameter."""
    from cuda.tile.compilation import ScalarConstraint

    return ScalarConstraint(dtype)


def kernel_signature(parameters: Sequence[Any]) -> KernelSignature:
    """A ``KernelSignature`` in the ``cutile_python_v1`` calling convention.

    ``parameters`` follows the kernel's parameter order; plain ints stand for
    ``ct.Constant[int]`` values.  The symbol is left to cuTile's name mangling.
    """
    from cuda.tile.compilation import CallingConvention, KernelSignature

    return KernelSignature(list(parameters), CallingConvention.cutile_python_v1())


def entry_symbol(module: ModuleType, signature_index: int = 0) -> str:
    """The (mangled) entry symbol a module's exported signature gets."""
    from cuda.tile.compilation import mangle_kernel_name

    sig = module.signatures()[signature_index]
    if sig.symbol is not None:
        return sig.symbol
    return mangle_kernel_name(module.KERNEL._pyfunc.__name__, sig)


# ---------------------------------------------------------------------- discovery


def kernel_names() -> list[str]:
    """Names of all kernel modules in the corpus (``tests/corpus/<name>.py``)."""
    return sorted(
        p.stem
        for p in CORPUS_DIR.glob("*.py")
        if not p.stem.startswith("_") and p.stem != "generate"
    )


def load_kernel_module(name: str) -> ModuleType:
    """Import ``tests/corpus/<name>.py`` (puts ``tests/corpus`` on ``sys.path``)."""
    if str(CORPUS_DIR) not in sys.path:
        sys.path.insert(0, str(CORPUS_DIR))
    return importlib.import_module(name)


def load_case_module(name: str) -> ModuleType:
    """Import ``tests/corpus/cases/<name>.py``: kernel ``name``'s inputs, reference and
    tolerances, without cuTile (puts ``tests/corpus`` on ``sys.path``)."""
    if str(CORPUS_DIR) not in sys.path:
        sys.path.insert(0, str(CORPUS_DIR))
    return importlib.import_module(f"cases.{name}")


def check_outputs(
    module: ModuleType, inputs: KernelInputs, expected: dict[str, np.ndarray] | None = None
) -> None:
    """Compare ``inputs``' output arrays (after a launch) with the reference.

    Raises ``AssertionError`` with the first mismatch.  Low-precision outputs are
    compared in float64.
    """
    if expected is None:
        expected = module.reference(inputs)
    for name in inputs["outputs"]:
        got = inputs["arrays"][name]
        want = expected[name]
        rtol, atol = module.TOLERANCE[name]
        if np.issubdtype(want.dtype, np.integer):
            np.testing.assert_allclose(
                got.astype(np.int64), want.astype(np.int64), rtol=rtol, atol=atol, err_msg=name
            )
        else:
            np.testing.assert_allclose(
                got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, err_msg=name
            )


def simulate_case(name: str, ptx: str, seed: int = 0) -> None:
    """Run ``ptx`` (tileir's PTX of corpus kernel ``name``) in tileir's PTX simulator on
    the case's inputs drawn with ``seed``, and check every output against the case's
    reference (``check_outputs``).  A ``SimulationError`` says what the PTX got wrong."""
    from tileir.testing import simulate

    case = load_case_module(name)
    inputs = case.make_inputs(np.random.default_rng(seed))
    expected = case.reference(copy_inputs(inputs))
    simulate(ptx, inputs["grid"], flatten_args(inputs))
    check_outputs(case, inputs, expected)
