"""Whole-tile cuda_tile ops: constants, shape ops, `assume`, reductions, scans,
MMA, grid queries and tokens."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import Float4E2M1FNType, IntAttr
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation, Region

import tileir.dialects.cuda_tile.ops as ct
from tileir.dialects.cuda_tile.attributes import BoundedAttr, DivByAttr, SameElementsAttr
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp
from tileir.dialects.cuda_tile.ops.newer import InsertOp
from tileir.interpreter.arith import result_dtype
from tileir.interpreter.numerics import (
    F32,
    F64,
    as_unsigned,
    dtype_of,
    exact_ints,
    to_float,
    wrap,
)
from tileir.interpreter.state import run_region, state_of
from tileir.interpreter.values import TOKEN
from tileir.utils.bits import storage_bits, storage_bytes
from tileir.utils.numeric import dense_to_numpy

Values = tuple[Any, ...]


def _unsigned_index(x: Any) -> int:
    return int(as_unsigned(np.asarray(x)).astype(np.uint64))


# ---------------------------------------------------------------------------
# assume
# ---------------------------------------------------------------------------


def assumption_violation(pred: object, value: np.ndarray) -> str | None:
    """Why `value` breaks the `assume` predicate (None when it holds)."""
    v = np.asarray(value)
    if v.dtype == np.bool_:
        v = v.astype(np.int64)
    if isinstance(pred, DivByAttr):
        n = pred.divisor.data
        every, along = pred.every_value, pred.along_value
        checked = v
        if every is not None and along is not None and v.ndim > along and every > 0:
            positions = np.arange(v.shape[along]) % every == 0
            checked = np.compress(positions, v, axis=along)
        ints = exact_ints(checked, True) if checked.dtype.kind in "iu" else checked
        bad = [int(x) for x in np.asarray(ints).reshape(-1) if int(x) % n != 0]
        if bad:
            return f"div_by<{n}> does not hold: {bad[0]} is not a multiple of {n}"
    elif isinstance(pred, BoundedAttr):
        lo = pred.lower.data if isinstance(pred.lower, IntAttr) else None
        hi = pred.upper.data if isinstance(pred.upper, IntAttr) else None
        for x in exact_ints(v, True).reshape(-1):
            if (lo is not None and x < lo) or (hi is not None and x > hi):
                text = f"{'?' if lo is None else lo}, {'?' if hi is None else hi}"
                return f"bounded<{text}> does not hold: {x}"
    elif isinstance(pred, SameElementsAttr):
        groups = [g.data for g in pred.values]
        if v.ndim == len(groups) and all(g > 0 for g in groups):
            shape: list[int] = []
            for extent, g in zip(v.shape, groups, strict=True):
                shape += [extent // g, g]
            blocks = v.reshape(shape)
            axes = tuple(range(1, 2 * v.ndim, 2))
            first = blocks
            for ax in axes:
                first = np.take(first, [0], axis=ax)
            if not np.array_equal(blocks, np.broadcast_to(first, blocks.shape)):
                return f"same_elements<{groups}> does not hold"
    return None


# ---------------------------------------------------------------------------
# Reductions and scans: the body runs on whole batches of elements at once when
# it holds only elementwise ops and constants.
# ---------------------------------------------------------------------------


def _batchable(region: Region) -> bool:
    for op in region.block.ops:
        if isinstance(op, ct.BroadcastOp | ct.ReshapeOp):
            return False
        if not isinstance(op, ElementwiseOp | ct.ConstantOp | ct.YieldOp):
            return False
    return True


def call_body(
    interpreter: Interpreter, op: Operation, region: Region, args: list[np.ndarray]
) -> list[np.ndarray]:
    """Run a reduce/scan body on (batches of) element pairs."""
    state = state_of(interpreter)
    if _batchable(region) or all(np.ndim(a) == 0 for a in args):
        kind, values = run_region(interpreter, region, tuple(args), "body")
        if kind != "yield":
            raise state.error(op, f"the body ended with `{kind}` instead of `yield`")
        shape = np.broadcast_shapes(*(np.shape(a) for a in args))
        return [np.broadcast_to(np.asarray(v), shape).copy() for v in values]
    # One element at a time.
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    flats = [np.broadcast_to(a, shape).reshape(-1) for a in args]
    outs: list[list[np.ndarray]] = []
    for i in range(int(np.prod(shape))):
        _, values = run_region(interpreter, region, tuple(f[i] for f in flats), "body")
        outs.append([np.asarray(v) for v in values])
    return [np.array([o[k] for o in outs]).reshape(shape) for k in range(len(outs[0]))]


def _identities(op: ct.ReduceOp | ct.ScanOp) -> list[np.ndarray]:
    out = []
    for attr, operand in zip(op.identities.data, op.operands_, strict=True):
        el_dt = dtype_of(element_type(operand.type))
        value = attr.value.data  # pyright: ignore[reportAttributeAccessIssue]
        if el_dt == np.bool_:
            out.append(np.asarray(bool(value)))
        elif el_dt.kind in "iu":
            out.append(wrap(np.asarray([int(value)], dtype=object), el_dt).reshape(()))
        else:
            out.append(np.asarray(float(value)).astype(el_dt))
    return out


def reduce_values(
    interpreter: Interpreter, op: ct.ReduceOp, inputs: list[np.ndarray]
) -> list[np.ndarray]:
    """Pairwise tree along `dim`: element j+half is combined into accumulator j
    (body arguments: element, accumulator) until one remains."""
    dim = op.dimension
    values = [np.moveaxis(np.asarray(x), dim, -1) for x in inputs]
    n = values[0].shape[-1]
    if n == 1:
        identity = _identities(op)
        args: list[np.ndarray] = []
        for v, ident in zip(values, identity, strict=True):
            args += [v[..., 0], np.broadcast_to(ident, v.shape[:-1])]
        return call_body(interpreter, op, op.body, args)
    while n > 1:
        half = n // 2
        args = []
        for v in values:
            args += [v[..., half : 2 * half], v[..., :half]]
        combined = call_body(interpreter, op, op.body, args)
        if n % 2:
            combined = [
                np.concatenate([c, v[..., 2 * half :]], axis=-1)
                for c, v in zip(combined, values, strict=True)
            ]
        values = combined
        n = values[0].shape[-1]
    return [v[..., 0] for v in values]


def scan_values(
    interpreter: Interpreter, op: ct.ScanOp, inputs: list[np.ndarray]
) -> list[np.ndarray]:
    """result[j] = f(X[j], result[j-1]), result[-1] = identity; reversed if asked."""
    dim = op.dimension
    values = [np.moveaxis(np.asarray(x), dim, -1) for x in inputs]
    if op.is_reverse:
        values = [v[..., ::-1] for v in values]
    acc = [np.broadcast_to(i, v.shape[:-1]) for i, v in zip(_identities(op), values, strict=True)]
    outs = [np.empty_like(v) for v in values]
    for j in range(values[0].shape[-1]):
        args: list[np.ndarray] = []
        for v, a in zip(values, acc, strict=True):
            args += [v[..., j], a]
        acc = call_body(interpreter, op, op.body, args)
        for o, a in zip(outs, acc, strict=True):
            o[..., j] = a
    if op.is_reverse:
        outs = [o[..., ::-1] for o in outs]
    return [np.moveaxis(o, -1, dim).copy() for o in outs]


# ---------------------------------------------------------------------------
# MMA
# ---------------------------------------------------------------------------


def matmul_exact(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A @ B for 2-D or batched 3-D operands, products and sums in f64."""
    return np.matmul(a.astype(F64), b.astype(F64))


def mma_float(lhs: np.ndarray, rhs: np.ndarray, acc: np.ndarray) -> np.ndarray:
    """The products are exact in f64 for every supported input type; the sum is
    accumulated in f64 and rounded once to the accumulator type (tensor cores add
    in an unspecified order with at least the accumulator's precision)."""
    with np.errstate(all="ignore"):
        total = matmul_exact(lhs, rhs) + acc.astype(F64)
    return to_float(total, acc.dtype)


def mma_int(
    lhs: np.ndarray, rhs: np.ndarray, acc: np.ndarray, lhs_signed: bool, rhs_signed: bool
) -> np.ndarray:
    a = (lhs if lhs_signed else as_unsigned(lhs)).astype(np.int64)
    b = (rhs if rhs_signed else as_unsigned(rhs)).astype(np.int64)
    total = np.matmul(a, b) + acc.astype(np.int64)
    return (total & 0xFFFFFFFF).astype(np.uint32).view(np.int32)


def scaled_operand(x: np.ndarray, scale: np.ndarray, k_axis: int) -> np.ndarray:
    """x * scale, each scale element covering a block of K along `k_axis`."""
    k = x.shape[k_axis]
    blocks = scale.shape[k_axis]
    factor = np.repeat(scale.astype(F64), k // blocks, axis=k_axis)
    return x.astype(F64) * factor


# ---------------------------------------------------------------------------
# The interpreter functions.
# ---------------------------------------------------------------------------


@register_impls
class CudaTileTileFunctions(InterpreterFunctions):
    """cuda_tile's whole-tile ops over numpy."""

    @impl(ct.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: ct.ConstantOp, args: Values) -> Values:
        value = dense_to_numpy(op.value)
        return (np.broadcast_to(value, shape_of(op.result.type)).copy(),)

    @impl(ct.IotaOp)
    def run_iota(self, interpreter: Interpreter, op: ct.IotaOp, args: Values) -> Values:
        (n,) = shape_of(op.result.type)
        dt = result_dtype(op)
        return (wrap(np.arange(n, dtype=np.int64).astype(object), dt),)

    @impl(ct.BroadcastOp)
    def run_broadcast(self, interpreter: Interpreter, op: ct.BroadcastOp, args: Values) -> Values:
        x = np.asarray(args[0])
        return (np.broadcast_to(x, shape_of(op.result.type)).copy(),)

    @impl(ct.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: ct.ReshapeOp, args: Values) -> Values:
        return (np.asarray(args[0]).reshape(shape_of(op.result.type)).copy(),)

    @impl(ct.PermuteOp)
    def run_permute(self, interpreter: Interpreter, op: ct.PermuteOp, args: Values) -> Values:
        return (np.transpose(np.asarray(args[0]), op.perm).copy(),)

    @impl(ct.CatOp)
    def run_cat(self, interpreter: Interpreter, op: ct.CatOp, args: Values) -> Values:
        return (np.concatenate([np.asarray(args[0]), np.asarray(args[1])], axis=op.dimension),)

    @impl(ct.ExtractOp)
    def run_extract(self, interpreter: Interpreter, op: ct.ExtractOp, args: Values) -> Values:
        source = np.asarray(args[0])
        shape = shape_of(op.result.type)
        slices = []
        for d, (i, extent) in enumerate(zip(args[1:], shape, strict=True)):
            k = _unsigned_index(i)
            if (k + 1) * extent > source.shape[d]:
                state = state_of(interpreter)
                raise state.error(
                    op,
                    f"slice {k} of size {extent} along dimension {d} is outside the "
                    f"source ({source.shape[d]} elements)",
                )
            slices.append(slice(k * extent, (k + 1) * extent))
        return (source[tuple(slices)].copy(),)

    @impl(InsertOp)
    def run_insert(self, interpreter: Interpreter, op: InsertOp, args: Values) -> Values:
        source, destination = np.asarray(args[0]), np.asarray(args[1])
        slices = []
        for d, (i, extent) in enumerate(zip(args[2:], source.shape, strict=True)):
            k = _unsigned_index(i)
            if (k + 1) * extent > destination.shape[d]:
                raise state_of(interpreter).error(
                    op,
                    f"block {k} of size {extent} along dimension {d} is outside the "
                    f"destination ({destination.shape[d]} elements)",
                )
            slices.append(slice(k * extent, (k + 1) * extent))
        result = destination.copy()
        result[tuple(slices)] = source
        return (result,)

    @impl(ct.PackOp)
    def run_pack(self, interpreter: Interpreter, op: ct.PackOp, args: Values) -> Values:
        x = np.ascontiguousarray(args[0])
        if isinstance(element_type(op.source.type), Float4E2M1FNType):
            # Two elements a byte, element 2i in the low nibble of byte i.
            codes = x.view(np.uint8).reshape(-1, 2) & 0xF
            return ((codes[:, 0] | codes[:, 1] << 4).view(np.int8),)
        if x.dtype.itemsize * 8 != storage_bits(element_type(op.source.type)):
            raise state_of(interpreter).error(op, "packing sub-byte elements is not supported yet")
        return (x.view(np.int8).reshape(-1).copy(),)

    @impl(ct.UnpackOp)
    def run_unpack(self, interpreter: Interpreter, op: ct.UnpackOp, args: Values) -> Values:
        x = np.ascontiguousarray(args[0])
        dt = result_dtype(op)
        if isinstance(element_type(op.result.type), Float4E2M1FNType):
            # ml_dtypes holds one float4_e2m1fn a byte, in its low nibble.
            b = x.view(np.uint8).reshape(-1)
            codes = np.stack([b & 0xF, b >> 4], axis=-1).reshape(shape_of(op.result.type))
            return (codes.view(dt),)
        if dt.itemsize * 8 != storage_bits(element_type(op.result.type)):
            raise state_of(interpreter).error(
                op, "unpacking to sub-byte elements is not supported yet"
            )
        return (x.view(dt).reshape(shape_of(op.result.type)).copy(),)

    @impl(ct.OffsetOp)
    def run_offset(self, interpreter: Interpreter, op: ct.OffsetOp, args: Values) -> Values:
        from tileir.dialects.cuda_tile.types import PointerType

        pointee = element_type(op.ptr.type)
        assert isinstance(pointee, PointerType)
        size = storage_bytes(pointee.pointee) or 1
        offset = np.asarray(args[1])
        if offset.dtype == np.bool_:
            offset = -offset.astype(np.int64)
        result = np.asarray(args[0]).astype(np.int64) + offset.astype(np.int64) * size
        return (np.broadcast_to(result, shape_of(op.result.type)).copy(),)

    @impl(ct.AssumeOp)
    def run_assume(self, interpreter: Interpreter, op: ct.AssumeOp, args: Values) -> Values:
        state = state_of(interpreter)
        if state.options.check_assumptions:
            problem = assumption_violation(op.predicate, np.asarray(args[0]))
            if problem is not None:
                raise state.error(op, f"assumption violated (undefined behaviour): {problem}")
        return (args[0],)

    @impl(ct.ReduceOp)
    def run_reduce(self, interpreter: Interpreter, op: ct.ReduceOp, args: Values) -> Values:
        return tuple(reduce_values(interpreter, op, [np.asarray(a) for a in args]))

    @impl(ct.ScanOp)
    def run_scan(self, interpreter: Interpreter, op: ct.ScanOp, args: Values) -> Values:
        return tuple(scan_values(interpreter, op, [np.asarray(a) for a in args]))

    @impl(ct.MmaFOp)
    def run_mmaf(self, interpreter: Interpreter, op: ct.MmaFOp, args: Values) -> Values:
        lhs, rhs, acc = (np.asarray(a) for a in args)
        return (mma_float(lhs, rhs, acc),)

    @impl(ct.MmaIOp)
    def run_mmai(self, interpreter: Interpreter, op: ct.MmaIOp, args: Values) -> Values:
        lhs, rhs, acc = (np.asarray(a) for a in args)
        return (mma_int(lhs, rhs, acc, op.lhs_signed, op.rhs_signed),)

    @impl(ct.MmaFScaledOp)
    def run_mmaf_scaled(
        self, interpreter: Interpreter, op: ct.MmaFScaledOp, args: Values
    ) -> Values:
        lhs, rhs, acc, lhs_scale, rhs_scale = (np.asarray(a) for a in args)
        with np.errstate(all="ignore"):
            a = scaled_operand(lhs, lhs_scale, lhs.ndim - 1)
            b = scaled_operand(rhs, rhs_scale, rhs.ndim - 2)
            total = np.matmul(a, b) + acc.astype(F64)
        return (to_float(total, F32),)

    @impl(ct.GetTileBlockIdOp)
    def run_get_tile_block_id(
        self, interpreter: Interpreter, op: ct.GetTileBlockIdOp, args: Values
    ) -> Values:
        return tuple(np.asarray(b, dtype=np.int32) for b in state_of(interpreter).block)

    @impl(ct.GetNumTileBlocksOp)
    def run_get_num_tile_blocks(
        self, interpreter: Interpreter, op: ct.GetNumTileBlocksOp, args: Values
    ) -> Values:
        return tuple(np.asarray(g, dtype=np.int32) for g in state_of(interpreter).grid)

    @impl(ct.MakeTokenOp)
    def run_make_token(self, interpreter: Interpreter, op: ct.MakeTokenOp, args: Values) -> Values:
        return (TOKEN,)

    @impl(ct.JoinTokensOp)
    def run_join_tokens(
        self, interpreter: Interpreter, op: ct.JoinTokensOp, args: Values
    ) -> Values:
        return (TOKEN,)
