"""cuda_tile's memory ops: pointer loads and stores (gather/scatter with masks),
atomics, views (`tensor_view`, `partition_view`, `strided_view`,
`gather_scatter_view`), globals and `alloca`.

Memory ordering and scopes order accesses between tile blocks; the interpreter runs
one tile block at a time and every op in program order, so each access is simply
performed when its op runs.  An atomic read-modify-write of a tile is performed
element by element in row-major order, so two lanes updating one address both land.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation, SSAValue

import tileir.dialects.cuda_tile.ops as ct
from tileir.dialects.cuda_tile.attributes import AtomicRMWMode, enum_of_i32_attr
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import (
    GatherScatterViewType,
    PartitionViewType,
    PointerType,
    StridedViewType,
    TensorViewType,
)
from tileir.interpreter.arith import result_dtype
from tileir.interpreter.memory import MemoryFault
from tileir.interpreter.numerics import (
    as_unsigned,
    dtype_of,
    exact_ints,
    float_op,
    from_unsigned,
)
from tileir.interpreter.state import KernelState, state_of
from tileir.interpreter.values import TOKEN, TensorView, TileView, padding_scalar

Values = tuple[Any, ...]


def operand(op: Operation, args: Values, value: SSAValue | None) -> Any:
    """The runtime value of one of `op`'s (possibly optional) operands."""
    if value is None:
        return None
    return args[list(op.operands).index(value)]


def pointee_dtype(t: object) -> np.dtype:
    el = element_type(t)  # pyright: ignore[reportArgumentType]
    assert isinstance(el, PointerType)
    return dtype_of(el.pointee)


def _load(state: KernelState, op: Operation, addresses: np.ndarray, dt: np.dtype) -> np.ndarray:
    try:
        return state.memory.load(addresses, dt)
    except MemoryFault as e:
        raise state.fault(op, e) from None


def _store(state: KernelState, op: Operation, addresses: np.ndarray, values: np.ndarray) -> None:
    try:
        state.memory.store(addresses, values)
    except MemoryFault as e:
        raise state.fault(op, e) from None


def gather(
    state: KernelState,
    op: Operation,
    addresses: np.ndarray,
    active: np.ndarray,
    dt: np.dtype,
    fill: np.ndarray,
) -> np.ndarray:
    """Load the active lanes; the others take `fill`."""
    addresses = np.asarray(addresses, dtype=np.int64)
    active = np.broadcast_to(active, addresses.shape)
    out = np.array(np.broadcast_to(np.asarray(fill).astype(dt), addresses.shape))
    out[active] = _load(state, op, addresses[active], dt)
    return out


def scatter(
    state: KernelState, op: Operation, addresses: np.ndarray, active: np.ndarray, values: Any
) -> None:
    addresses = np.asarray(addresses, dtype=np.int64)
    active = np.broadcast_to(active, addresses.shape)
    values = np.broadcast_to(np.asarray(values), addresses.shape)
    _store(state, op, addresses[active], values[active])


# ---------------------------------------------------------------------------
# Atomics.
# ---------------------------------------------------------------------------


_RMW: dict[AtomicRMWMode, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    AtomicRMWMode.AND: np.bitwise_and,
    AtomicRMWMode.OR: np.bitwise_or,
    AtomicRMWMode.XOR: np.bitwise_xor,
    AtomicRMWMode.ADD: lambda a, b: from_unsigned(
        np.asarray(as_unsigned(a) + as_unsigned(b)), a.dtype
    ),
    AtomicRMWMode.ADDF: lambda a, b: float_op(np.add, [a, b]),
    AtomicRMWMode.MAX: lambda a, b: np.where(a >= b, a, b).astype(a.dtype),
    AtomicRMWMode.MIN: lambda a, b: np.where(a <= b, a, b).astype(a.dtype),
    AtomicRMWMode.UMAX: lambda a, b: np.where(as_unsigned(a) >= as_unsigned(b), a, b).astype(
        a.dtype
    ),
    AtomicRMWMode.UMIN: lambda a, b: np.where(as_unsigned(a) <= as_unsigned(b), a, b).astype(
        a.dtype
    ),
    AtomicRMWMode.XCHG: lambda a, b: np.asarray(b).astype(a.dtype),
}


def atomic_update(
    state: KernelState,
    op: Operation,
    addresses: np.ndarray,
    active: np.ndarray,
    dt: np.dtype,
    update: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> np.ndarray:
    """Read-modify-write each active lane; returns the old values (inactive lanes: 0).

    `update(old, index)` gives the new values of the lanes at `index` (flat)."""
    addresses = np.asarray(addresses, dtype=np.int64)
    shape = addresses.shape
    flat_addr = addresses.reshape(-1)
    flat_active = np.broadcast_to(active, shape).reshape(-1)
    old = np.zeros(flat_addr.size, dtype=dt)
    lanes = np.nonzero(flat_active)[0]
    if lanes.size == 0:
        return old.reshape(shape)
    if np.unique(flat_addr[lanes]).size == lanes.size:
        current = _load(state, op, flat_addr[lanes], dt)
        old[lanes] = current
        _store(state, op, flat_addr[lanes], update(current, lanes))
    else:
        for lane in lanes:
            current = _load(state, op, flat_addr[lane : lane + 1], dt)
            old[lane] = current[0]
            _store(state, op, flat_addr[lane : lane + 1], update(current, np.array([lane])))
    return old.reshape(shape)


def rmw(
    state: KernelState,
    op: Operation,
    mode: AtomicRMWMode,
    addresses: np.ndarray,
    active: np.ndarray,
    arg: np.ndarray,
    dt: np.dtype,
) -> np.ndarray:
    flat_arg = np.broadcast_to(np.asarray(arg).astype(dt), np.shape(addresses)).reshape(-1)
    fn = _RMW[mode]
    return atomic_update(state, op, addresses, active, dt, lambda old, idx: fn(old, flat_arg[idx]))


# ---------------------------------------------------------------------------
# Views.
# ---------------------------------------------------------------------------


def make_view(source: TensorView, t: object) -> TileView:
    if isinstance(t, PartitionViewType):
        return TileView("partition", source, t.tile_dims, t.tile_dims, t.dim_map_values, t.padding)
    if isinstance(t, StridedViewType):
        return TileView(
            "strided", source, t.tile_dims, t.stride_values, t.dim_map_values, t.padding
        )
    assert isinstance(t, GatherScatterViewType)
    rank = len(t.tile_dims)
    return TileView(
        "gather_scatter",
        source,
        t.tile_dims,
        t.tile_dims,
        tuple(range(rank)),
        t.padding,
        t.sparse_dim.data,
    )


def view_indices(view: TileView, index: Sequence[Any]) -> list[np.ndarray]:
    """Index operands read as unsigned integers (the gather tile at `sparse_dim`
    as signed, so a negative row is out of bounds)."""
    out: list[np.ndarray] = []
    for k, i in enumerate(index):
        x = np.asarray(i)
        if k == view.sparse_dim:
            out.append(exact_ints(x, True).astype(np.int64))
        else:
            out.append(as_unsigned(x).astype(np.uint64).astype(np.int64))
    return out


def locate(
    state: KernelState, op: Operation, view: TileView, index: Sequence[Any]
) -> tuple[np.ndarray, np.ndarray]:
    """The byte address of each element of the tile at `index` and which elements are
    in bounds.

    A tile index outside the view's index space (more tile blocks than tiles) puts
    every element of the tile out of bounds: a load gives the padding value
    everywhere, a store or reduction writes nothing.  The specification leaves such an
    index undefined; bounds-checked accesses as tileiras compiles them (and tileir's
    lowering) test the index against the index space and give exactly this.  Only an
    access whose `inbounds` promise says no check is needed makes it an error."""
    idx = view_indices(view, index)
    flags = op.inbounds_flags() if isinstance(op, ct.ViewAccessOp) else ()
    problem = view.check_indices(idx)
    if problem is not None:
        if any(flags) and state.options.check_assumptions:
            raise state.error(
                op, f"{problem}, where `inbounds` promises a tile in bounds (undefined behaviour)"
            )
        return view.outside_tile()
    addresses, inside = view.element_addresses(idx)
    if any(flags) and state.options.check_assumptions and not inside.all():
        raise state.error(
            op,
            "the tile runs out of the tensor along a dimension `inbounds` promises it stays "
            "within (undefined behaviour)",
        )
    return addresses, inside


@register_impls
class CudaTileMemoryFunctions(InterpreterFunctions):
    """cuda_tile's memory, atomic and view ops over the interpreter's memory."""

    @impl(ct.LoadPtrTkoOp)
    def run_load_ptr_tko(
        self, interpreter: Interpreter, op: ct.LoadPtrTkoOp, args: Values
    ) -> Values:
        state = state_of(interpreter)
        addresses = np.asarray(args[0])
        mask = operand(op, args, op.mask)
        pad = operand(op, args, op.padding_value)
        dt = result_dtype(op)
        active = np.ones(addresses.shape, np.bool_) if mask is None else np.asarray(mask)
        fill = np.zeros((), dt) if pad is None else np.asarray(pad)
        return gather(state, op, addresses, active, dt, fill), TOKEN

    @impl(ct.StorePtrTkoOp)
    def run_store_ptr_tko(
        self, interpreter: Interpreter, op: ct.StorePtrTkoOp, args: Values
    ) -> Values:
        state = state_of(interpreter)
        addresses = np.asarray(args[0])
        mask = operand(op, args, op.mask)
        active = np.ones(addresses.shape, np.bool_) if mask is None else np.asarray(mask)
        scatter(state, op, addresses, active, args[1])
        return (TOKEN,)

    @impl(ct.AtomicRMWTkoOp)
    def run_atomic_rmw_tko(
        self, interpreter: Interpreter, op: ct.AtomicRMWTkoOp, args: Values
    ) -> Values:
        state = state_of(interpreter)
        addresses = np.asarray(args[0])
        mask = operand(op, args, op.mask)
        active = np.ones(addresses.shape, np.bool_) if mask is None else np.asarray(mask)
        mode = enum_of_i32_attr(AtomicRMWMode, op.mode)
        dt = pointee_dtype(op.pointers.type)
        return rmw(state, op, mode, addresses, active, np.asarray(args[1]), dt), TOKEN

    @impl(ct.AtomicCASTkoOp)
    def run_atomic_cas_tko(
        self, interpreter: Interpreter, op: ct.AtomicCASTkoOp, args: Values
    ) -> Values:
        state = state_of(interpreter)
        addresses = np.asarray(args[0])
        mask = operand(op, args, op.mask)
        active = np.ones(addresses.shape, np.bool_) if mask is None else np.asarray(mask)
        dt = pointee_dtype(op.pointers.type)
        shape = addresses.shape
        cmp = np.broadcast_to(np.asarray(args[1]).astype(dt), shape).reshape(-1)
        val = np.broadcast_to(np.asarray(args[2]).astype(dt), shape).reshape(-1)

        def update(old: np.ndarray, idx: np.ndarray) -> np.ndarray:
            same = as_unsigned(np.ascontiguousarray(old)) == as_unsigned(
                np.ascontiguousarray(cmp[idx])
            )
            return np.where(same, val[idx], old).astype(dt)

        return atomic_update(state, op, addresses, active, dt, update), TOKEN

    @impl(ct.AtomicRedViewTkoOp)
    def run_atomic_red_view_tko(
        self, interpreter: Interpreter, op: ct.AtomicRedViewTkoOp, args: Values
    ) -> Values:
        state = state_of(interpreter)
        view: TileView = args[0]
        index = [operand(op, args, i) for i in op.index]
        value = np.asarray(operand(op, args, op.value))
        addresses, inside = locate(state, op, view, index)
        mode = enum_of_i32_attr(AtomicRMWMode, op.mode)
        rmw(state, op, mode, addresses, inside, value, view.tensor.dtype)
        return (TOKEN,)

    # -- views --------------------------------------------------------------
    @impl(ct.MakeTensorViewOp)
    def run_make_tensor_view(
        self, interpreter: Interpreter, op: ct.MakeTensorViewOp, args: Values
    ) -> Values:
        state = state_of(interpreter)
        t = op.result.type
        assert isinstance(t, TensorViewType)

        def resolve(values: list[int | SSAValue], what: str) -> tuple[int, ...]:
            out = []
            for v in values:
                n = v if isinstance(v, int) else int(exact_ints(operand(op, args, v), True))
                if what == "shape" and n < 0:
                    raise state.error(op, f"negative {what} extent {n}")
                out.append(n)
            return tuple(out)

        shape = resolve(op.shape_values(), "shape")
        strides = resolve(op.stride_values(), "strides")
        base = int(np.asarray(args[0]))
        return (TensorView(base, dtype_of(t.element_type), shape, strides),)

    @impl(ct.MakePartitionViewOp)
    def run_make_partition_view(
        self, interpreter: Interpreter, op: ct.MakePartitionViewOp, args: Values
    ) -> Values:
        return (make_view(args[0], op.result.type),)

    @impl(ct.MakeStridedViewOp)
    def run_make_strided_view(
        self, interpreter: Interpreter, op: ct.MakeStridedViewOp, args: Values
    ) -> Values:
        return (make_view(args[0], op.result.type),)

    @impl(ct.MakeGatherScatterViewOp)
    def run_make_gather_scatter_view(
        self, interpreter: Interpreter, op: ct.MakeGatherScatterViewOp, args: Values
    ) -> Values:
        return (make_view(args[0], op.result.type),)

    @impl(ct.LoadViewTkoOp)
    def run_load_view_tko(
        self, interpreter: Interpreter, op: ct.LoadViewTkoOp, args: Values
    ) -> Values:
        state = state_of(interpreter)
        view: TileView = args[0]
        index = [operand(op, args, i) for i in op.index]
        addresses, inside = locate(state, op, view, index)
        dt = view.tensor.dtype
        tile = gather(state, op, addresses, inside, dt, padding_scalar(view.padding, dt))
        return tile, TOKEN

    @impl(ct.StoreViewTkoOp)
    def run_store_view_tko(
        self, interpreter: Interpreter, op: ct.StoreViewTkoOp, args: Values
    ) -> Values:
        state = state_of(interpreter)
        view: TileView = operand(op, args, op.view)
        index = [operand(op, args, i) for i in op.index]
        addresses, inside = locate(state, op, view, index)
        scatter(state, op, addresses, inside, np.asarray(args[0]))
        return (TOKEN,)

    @impl(ct.GetIndexSpaceShapeOp)
    def run_get_index_space_shape(
        self, interpreter: Interpreter, op: ct.GetIndexSpaceShapeOp, args: Values
    ) -> Values:
        view: TileView = args[0]
        return tuple(
            np.asarray(n).astype(result_dtype(op, i)) for i, n in enumerate(view.index_space())
        )

    @impl(ct.GetTensorShapeOp)
    def run_get_tensor_shape(
        self, interpreter: Interpreter, op: ct.GetTensorShapeOp, args: Values
    ) -> Values:
        view: TensorView = args[0]
        return tuple(np.asarray(n).astype(result_dtype(op, i)) for i, n in enumerate(view.shape))

    # -- globals and alloca -------------------------------------------------
    @impl(ct.GetGlobalOp)
    def run_get_global(self, interpreter: Interpreter, op: ct.GetGlobalOp, args: Values) -> Values:
        state = state_of(interpreter)
        name = op.name_.root_reference.data
        if name not in state.globals:
            raise state.error(op, f"no global named @{name}")
        return (np.asarray(state.globals[name], dtype=np.int64),)

    @impl(ct.AllocaOp)
    def run_alloca(self, interpreter: Interpreter, op: ct.AllocaOp, args: Values) -> Values:
        state = state_of(interpreter)
        dt = pointee_dtype(op.result.type)
        count = op.num_elem.value.data
        alignment = op.alignment.value.data
        address = state.memory.allocate(count * dt.itemsize, alignment, f"alloca@{state.block}")
        return (np.broadcast_to(np.asarray(address, np.int64), shape_of(op.result.type)).copy(),)
