"""`nv_tileas.reduce` and `nv_tileas.scan` on distributed tiles.

`convert-tileaa-to-tileas` made them from cuda_tile's `reduce`/`scan`
(`tileaa_reductions.py`), keeping the `identities` and the body.  The combiner is the op's
region, evaluated on scalars with the same scalar lowerings as the elementwise ops
(`scalar.py`), so any body of elementwise ops and constants works (add/max/min/mul/
and/or/xor, argmax with its tie-break, ...).  Below, `body(x, acc)` applies it to the
next elements `x` and the running values `acc` (the region takes them as `(acc, x)`).

**Order.** A reduce gives the results of the reference semantics
(`tileir.interpreter`), bit for bit, in any layout: a pairwise tree along the
dimension, the upper half combined into the lower half (`body(upper, lower)`) until
one element remains; a dimension of one element is combined with the identity.  The
tree follows the coordinate bits from the highest down; each bit belongs to a
register, lane or warp basis of the layout, so a register bit is an in-thread
combination and a lane bit a butterfly shuffle (`shfl.sync.bfly`) after which both
partners hold the combination (each picks which operand is the upper half by its lane
bit).

A scan's reference is sequential, `r[j] = body(x[j], r[j-1])` from the identity
(reversed with `reverse = true`); its body is associative, and `LowerScan` associates
it as a work-efficient tree across threads (each thread's run sequentially, a
Kogge-Stone scan over lanes, warp totals through shared memory), as tileiras does:
exact bodies give the reference's results, float sums differ within rounding.

The warp bits of a reduce are combined through shared memory, a run of consecutive
ones in one exchange: each thread writes its values, waits at a CTA barrier, reads
those of the same lane in the warps that differ from its own in those bits, waits
again, and combines them in the tree's order.  A scan's warp totals cross the same way, written by the last lane of
each warp.  Both are bracketed by barriers like an exchange, so their buffers come
from the kernel's one shared-memory arena (`shared_arena.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnrealizedConversionCastOp,
    i1,
    i16,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import FunctionState, LoweringContext, linear_layout
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.conversions.tileas_to_llvm.scalar import SCALAR_LOWERINGS
from tileir.conversions.tileas_to_llvm.shared_arena import allocate_shared
from tileir.diagnostics import error_at, not_supported
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import WARP_SIZE, LinearLayout

#: `shfl.sync`'s member mask: every lane of the warp takes part.
FULL_MASK = 0xFFFFFFFF


# ---------------------------------------------------------------------------
# The combiner.
# ---------------------------------------------------------------------------


def combine(
    b: LLBuilder,
    op: tas.ReduceOp | tas.ScanOp,
    lhs: Sequence[SSAValue],
    rhs: Sequence[SSAValue],
) -> list[SSAValue]:
    """The op's body applied to the next elements `lhs` (the upper half of a reduce's
    tree, a scan's later elements) and the running values `rhs`: its arguments are
    (rhs_0, rhs_1, ..., lhs_0, lhs_1, ...).  A value the body captures from outside
    (cuTile's `lambda a, b: (a + b) % modulo`, or a constant that CSE hoisted out of it)
    is the scalar it was lowered to there."""
    block = op.body.block
    env: dict[SSAValue, SSAValue] = {}

    def lowered(v: SSAValue) -> SSAValue:
        if v in env:
            return env[v]
        owner = v.owner
        if isinstance(owner, UnrealizedConversionCastOp) and len(owner.inputs) == 1:
            return owner.inputs[0]
        return v

    n = len(lhs)
    for i, (left, right) in enumerate(zip(lhs, rhs, strict=True)):
        env[block.args[n + i]] = left
        env[block.args[i]] = right
    for inner in block.ops:
        if isinstance(inner, tas.YieldOp):
            return [lowered(v) for v in inner.operands]
        if isinstance(inner, ct.ConstantOp):
            t = element_type(inner.result.type)
            value = inner.first_value()
            env[inner.result] = b.const(
                int(value) if isinstance(t, IntegerType) else float(value), t
            )
            continue
        lowering = SCALAR_LOWERINGS.get(type(inner))
        if lowering is None or len(inner.results) != 1:
            raise not_supported(
                inner,
                f"in the body of {op.name}",
                instead="combine with arithmetic (+, *, max, min, bitwise ops, comparisons and "
                "select), or use ct.sum / ct.max / ct.min / ct.prod",
            )
        env[inner.results[0]] = lowering(b, inner, [lowered(v) for v in inner.operands])
    raise error_at(op, "the body must end with yield")


#: Ops whose result is the same bits for (x, y) as for (y, x) in PTX: sums and products
#: (IEEE; a NaN result is the one canonical NaN), `min`/`max` (-0 orders below +0; a NaN
#: yields the other operand or the canonical NaN) and the integer ops.
SYMMETRIC_OPS = (
    ct.AddFOp,
    ct.MulFOp,
    ct.MaxFOp,
    ct.MinFOp,
    ct.AddIOp,
    ct.MulIOp,
    ct.MaxIOp,
    ct.MinIOp,
    ct.AndIOp,
    ct.OrIOp,
    ct.XOrIOp,
)


def symmetric_body(op: tas.ReduceOp) -> bool:
    """Whether each result of `op`'s body is one `SYMMETRIC_OPS` op of its operand's two
    arguments (`ct.sum`, `ct.max`, ...): the two sides of a butterfly may then each
    combine (their own, the other's) and still agree bit for bit, without selects that
    first put the pair in the tree's order."""
    block = op.body.block
    n = len(op.operands)
    *body, last = block.ops
    if not isinstance(last, tas.YieldOp) or len(body) != n or len(last.operands) != n:
        return False
    for i, v in enumerate(last.operands):
        inner = v.owner
        if not isinstance(inner, SYMMETRIC_OPS) or inner not in body:
            return False
        if set(inner.operands) != {block.args[i], block.args[n + i]}:
            return False
    return True


def in_tree_order(
    b: LLBuilder,
    op: tas.ReduceOp,
    upper: SSAValue | None,
    mine: list[SSAValue],
    theirs: list[SSAValue],
) -> list[SSAValue]:
    """The body applied to a butterfly's pair: the half of the lane (or warp) with the
    bit set as `lhs` where `upper` says whether that is this side; with `upper` None
    (a `symmetric_body`) in either order."""
    if upper is None:
        return combine(b, op, theirs, mine)
    hi = [b.select(upper, m, t) for m, t in zip(mine, theirs, strict=True)]
    lo = [b.select(upper, t, m) for m, t in zip(mine, theirs, strict=True)]
    return combine(b, op, hi, lo)


def identities(b: LLBuilder, op: tas.ReduceOp | tas.ScanOp) -> list[SSAValue]:
    if op.identities is None:
        raise error_at(op, "needs `identities` (a neutral element per operand)")
    out = []
    for attr, v in zip(op.identities.data, op.operands, strict=True):
        t = element_type(v.type)
        if isinstance(attr, IntegerAttr):
            out.append(b.const(attr.value.data, t))
        elif isinstance(attr, FloatAttr):
            out.append(b.const(float(attr.value.data), t))
        else:
            raise not_supported(op, f"identity {attr}")
    return out


# ---------------------------------------------------------------------------
# Shuffles of any scalar type, as 32-bit words.
# ---------------------------------------------------------------------------


def _shfl_word(b: LLBuilder, word: SSAValue, mode: str, lane: SSAValue | int) -> SSAValue:
    # The clamp: `up` reads lane - n down to lane 0, the others up to lane 31.
    clamp = b.immediate(0 if mode == "up" else WARP_SIZE - 1, i32)
    offset = b.immediate(lane, i32) if isinstance(lane, int) else lane
    return b.v(nvvm.ShflSyncOp(mode, b.immediate(FULL_MASK, i32), word, offset, clamp))


def shuffle(
    op: Operation, b: LLBuilder, value: SSAValue, mode: str, lane: SSAValue | int
) -> SSAValue:
    """`value` from another lane of the warp (`bfly`: lane ^ `lane`; `idx`: lane `lane`;
    `up`/`down`: lane -/+ `lane`, where that lane exists)."""
    t = value.type
    if isinstance(t, IntegerType):
        width = t.width.data
        if width == 32:
            return _shfl_word(b, value, mode, lane)
        if width < 32:
            out = _shfl_word(b, b.zext(value, i32), mode, lane)
            return b.icmp("ne", out, b.const(0, i32)) if t == i1 else b.trunc(out, t)
        if width == 64:
            lo = _shfl_word(b, b.trunc(value, i32), mode, lane)
            hi = _shfl_word(b, b.trunc(b.lshr(value, b.const(32, t)), i32), mode, lane)
            return b.or_(b.zext(lo, t), b.shl(b.zext(hi, t), b.const(32, t)))
    elif isinstance(t, AnyFloat):
        bits = {16: i16, 32: i32, 64: IntegerType(64)}[t.bitwidth]
        return b.bitcast(shuffle(op, b, b.bitcast(value, bits), mode, lane), t)
    raise not_supported(
        op,
        f"exchanging {t} values between lanes",
        instead="reduce or move integer or float tiles (a pointer tile as integers: ptr_to_int)",
    )


# ---------------------------------------------------------------------------
# Where the dimension lives in a layout.
# ---------------------------------------------------------------------------


def _dimension_bits(
    op: Operation, layout: LinearLayout, dim: int, size: int, warps_ok: bool = False
) -> list[tuple[str, int]]:
    """For each bit of coordinate `dim`, lowest first: ("register"|"lane"|"warp", index)."""
    if size & (size - 1):
        raise not_supported(
            op,
            f"{op.name} along a dimension of {size} elements (not a power of two)",
            instead="make the tile's size along that dimension a power of two",
        )
    out: list[tuple[str, int]] = []
    for bit in range(size.bit_length() - 1):
        found = None
        for kind, bases in (
            ("register", layout.registers),
            ("lane", layout.lanes),
            ("warp", layout.warps),
        ):
            for i, basis in enumerate(bases):
                if basis[dim] == 1 << bit:
                    if any(x for k, x in enumerate(basis) if k != dim):
                        raise not_supported(op, f"{op.name} over a layout that mixes dimensions")
                    found = (kind, i)
                    break
            if found is not None:
                break
        if found is None:
            raise error_at(op, f"the layout does not cover bit {bit} of dimension {dim}")
        if found[0] == "warp" and not warps_ok:
            raise not_supported(op, f"{op.name} across warps (through shared memory)")
        out.append(found)
    return out


class LowerReduce(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.ReduceOp, rewriter: PatternRewriter) -> None:
        dim = op.dimension
        src_t = op.operands[0].type
        layout = linear_layout(op, src_t)
        size = shape_of(src_t)[dim]
        bits = _dimension_bits(op, layout, dim, size, warps_ok=True)
        b = self.builder(rewriter, op)
        state = self.ctx.function_state(op)
        vals = [list(self.ctx.registers_of(op, v)) for v in op.operands]
        scratch: SSAValue | None = None
        n_regs = layout.num_registers
        if size == 1:
            ids = identities(b, op)
            for r in range(n_regs):
                out = combine(b, op, [v[r] for v in vals], ids)
                for k, v in enumerate(vals):
                    v[r] = out[k]
        steps = _grouped_warp_bits(list(reversed(bits)))
        symmetric = symmetric_body(op)
        for kind, index in steps:
            if kind == "warps":
                assert isinstance(index, tuple)
                if scratch is None:
                    scratch = self._scratch(op, rewriter, state, vals)
                self._warp_step(op, b, rewriter, state, vals, index, scratch)
                continue
            assert isinstance(index, int)
            if kind == "register":
                # Registers that already hold the same values (the halves an earlier
                # register bit merged) are combined once, so that later steps see one
                # value, not copies: a warp step stores and loads each distinct value.
                mask = 1 << index
                merged: dict[tuple[SSAValue, ...], list[SSAValue]] = {}
                for r in range(n_regs):
                    if r & mask:
                        continue
                    key = tuple(v[r | mask] for v in vals) + tuple(v[r] for v in vals)
                    if key not in merged:
                        merged[key] = combine(
                            b, op, [v[r | mask] for v in vals], [v[r] for v in vals]
                        )
                    for k, v in enumerate(vals):
                        v[r] = v[r | mask] = merged[key][k]
                continue
            # A lane bit: butterfly exchange; the partner with the bit set holds the
            # upper half.
            upper_lane = None if symmetric else self._upper_lane(state, rewriter, index)
            done: dict[tuple[SSAValue, ...], list[SSAValue]] = {}
            for r in range(n_regs):
                key = tuple(v[r] for v in vals)
                if key not in done:
                    mine = list(key)
                    theirs = [shuffle(op, b, x, "bfly", 1 << index) for x in mine]
                    done[key] = in_tree_order(b, op, upper_lane, mine, theirs)
                for k, v in enumerate(vals):
                    v[r] = done[key][k]
        results = []
        for k, res in enumerate(op.results):
            res_t = res.type
            assert isinstance(res_t, TensorType) or not shape_of(res_t)
            if not shape_of(res_t):
                results.append(vals[k][0])
                continue
            res_layout = linear_layout(op, res_t)
            mapping = _slice_map(op, layout, res_layout, dim)
            results.append(self.ctx.pack(rewriter, [vals[k][m] for m in mapping], res_t))
        rewriter.replace(op, [], results)

    # -- across warps, through shared memory -------------------------------------
    def _slots(self, vals: list[list[SSAValue]]) -> list[int]:
        """The registers holding distinct values (the same for every thread)."""
        seen: dict[tuple[SSAValue, ...], int] = {}
        for r in range(len(vals[0])):
            seen.setdefault(tuple(v[r] for v in vals), r)
        return list(seen.values())

    @staticmethod
    def _upper_lane(state: FunctionState, rewriter: PatternRewriter, index: int) -> SSAValue:
        """Whether this lane holds the upper half of a butterfly over lane bit `index`."""
        prologue = state.prologue_builder(rewriter)
        assert state.lane is not None
        return prologue.icmp(
            "ne",
            prologue.and_(state.lane, prologue.const(1 << index, i32)),
            prologue.const(0, i32),
        )

    def _scratch(
        self,
        op: tas.ReduceOp,
        rewriter: PatternRewriter,
        state: FunctionState,
        vals: list[list[SSAValue]],
    ) -> SSAValue:
        """A `.shared` buffer of one 8-byte word per thread, operand and register."""
        threads = state.num_warps * WARP_SIZE
        size = len(self._slots(vals)) * len(vals) * threads * 8
        (scratch,) = allocate_shared(op, state, rewriter, [size], "a reduction across warps")
        return scratch

    def _warp_step(
        self,
        op: tas.ReduceOp,
        b: LLBuilder,
        rewriter: PatternRewriter,
        state: FunctionState,
        vals: list[list[SSAValue]],
        indices: tuple[int, ...],
        scratch: SSAValue,
    ) -> None:
        """Combine across the warp bits `indices` (consecutive steps of the tree, the
        highest first) in one exchange: every thread writes its values, waits, reads
        those of the same lane in each warp that differs from its own only in those
        bits, and waits again (so a later step, or the next trip of a loop, cannot
        overwrite words still being read); then it combines them locally in the
        tree's order, pairing `warp ^ x` with `warp ^ x ^ bit` for each bit in turn.
        One store, 2^g - 1 loads and two barriers, where a step per bit took g of
        each and 2g barriers."""
        prologue = state.prologue_builder(rewriter)
        assert state.lane is not None and state.warp is not None
        threads = state.num_warps * WARP_SIZE
        tid = prologue.or_(prologue.shl(state.warp, prologue.const(5, i32)), state.lane)
        mine_at = prologue.add(scratch, prologue.shl(tid, prologue.const(3, i32)))
        masks = [1 << index for index in indices]
        partners: dict[int, SSAValue] = {}
        for x in range(1, 1 << len(masks)):
            flip = sum(m for i, m in enumerate(masks) if x >> i & 1)
            partner = prologue.xor(tid, prologue.const(flip * WARP_SIZE, i32))
            partners[x] = prologue.add(scratch, prologue.shl(partner, prologue.const(3, i32)))
        upper_warp = (
            None
            if symmetric_body(op)
            else [
                prologue.icmp(
                    "ne", prologue.and_(state.warp, prologue.const(m, i32)), prologue.const(0, i32)
                )
                for m in masks
            ]
        )
        slots = self._slots(vals)
        offsets: dict[tuple[int, int], int] = {}
        for u, r in enumerate(slots):
            for k, v in enumerate(vals):
                offsets[(u, k)] = (u * len(vals) + k) * threads * 8
                store_shared_word(op, b, mine_at, offsets[(u, k)], v[r])
        b.op(nvvm.Barrier0Op())
        # values[u][x]: slot u's operands as the warp `warp ^ x` holds them.
        values: list[dict[int, list[SSAValue]]] = []
        for u, r in enumerate(slots):
            row = {0: [v[r] for v in vals]}
            for x, at in partners.items():
                row[x] = [
                    load_shared_word(b, at, offsets[(u, k)], v[r].type) for k, v in enumerate(vals)
                ]
            values.append(row)
        b.op(nvvm.Barrier0Op())
        for u, r in enumerate(slots):
            row = values[u]
            for i in range(len(masks)):
                bit = 1 << i
                for x in [x for x in row if not x & bit]:
                    # `warp ^ x` holds the upper half when this warp has the bit set.
                    upper = upper_warp[i] if upper_warp is not None else None
                    row[x] = in_tree_order(b, op, upper, row[x], row[x | bit])
                    del row[x | bit]
            out = row[0]
            key = tuple(v[r] for v in vals)
            for rr in range(len(vals[0])):
                if tuple(v[rr] for v in vals) == key:
                    for k, v in enumerate(vals):
                        v[rr] = out[k]


def _grouped_warp_bits(
    steps: list[tuple[str, int]],
) -> list[tuple[str, int | tuple[int, ...]]]:
    """The tree's steps with each run of consecutive warp bits as one ("warps", bits)
    step, which `LowerReduce._warp_step` does in a single exchange."""
    out: list[tuple[str, int | tuple[int, ...]]] = []
    for kind, index in steps:
        if kind != "warp":
            out.append((kind, index))
        elif out and out[-1][0] == "warps":
            previous = out[-1][1]
            assert isinstance(previous, tuple)
            out[-1] = ("warps", (*previous, index))
        else:
            out.append(("warps", (index,)))
    return out


def _word_bits(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, AnyFloat):
        return t.bitwidth
    return 64  # pointers


def _to_word(op: Operation, b: LLBuilder, value: SSAValue) -> tuple[SSAValue, int]:
    """`value` as a 32- or 64-bit integer word."""
    t = value.type
    bits = _word_bits(t)
    if isinstance(t, AnyFloat):
        value = b.bitcast(value, IntegerType(bits))
    elif not isinstance(t, IntegerType):
        raise not_supported(
            op,
            f"a reduction of {t} values across warps",
            instead="reduce integer or float tiles (a pointer tile as integers: ptr_to_int)",
        )
    if bits == 64:
        return value, 64
    if bits < 32:
        value = b.zext(value, i32)
    return value, 32


def _from_word(b: LLBuilder, word: SSAValue, t: Attribute) -> SSAValue:
    bits = _word_bits(t)
    if bits < 32:
        narrow = IntegerType(bits)
        word = b.icmp("ne", word, b.const(0, i32)) if bits == 1 else b.trunc(word, narrow)
    if isinstance(t, AnyFloat):
        return b.bitcast(word, t)
    return word


def store_shared_word(
    op: Operation,
    b: LLBuilder,
    address: SSAValue,
    offset: int,
    value: SSAValue,
    guard: SSAValue | None = None,
) -> None:
    """`st.shared` of `value` as a 32- or 64-bit word at `address + offset` (only
    where `guard` holds, if given)."""
    word, bits = _to_word(op, b, value)
    if guard is None:
        b.store(word, b.shared_pointer(address, offset))
        return
    # Only where `guard` holds: a predicated st.shared.
    store = ptx.PtxAsm(scoped=False)
    at, data = store.input(address, "r"), store.input(word)
    store.instr(
        ptx.opcode("st", "shared", ptx.typed("b", bits)),
        ptx.address(at, offset),
        data,
        guard=store.input(guard),
    )
    b.asm(store)


def load_shared_word(b: LLBuilder, address: SSAValue, offset: int, t: Attribute) -> SSAValue:
    """The value of type `t` that `store_shared_word` left at `address + offset`."""
    bits = 64 if _word_bits(t) == 64 else 32
    word = b.load(b.shared_pointer(address, offset), IntegerType(bits))
    return _from_word(b, word, t)


def _drop(c: Sequence[int], dim: int) -> tuple[int, ...]:
    return tuple(c[:dim]) + tuple(c[dim + 1 :])


def _slice_map(op: Operation, src: LinearLayout, res: LinearLayout, dim: int) -> list[int]:
    """For each result register, a source register of the same (reduced) row."""
    if (
        tuple(_drop(x, dim) for x in src.lanes) != res.lanes
        or tuple(_drop(x, dim) for x in src.warps) != res.warps
    ):
        raise not_supported(op, "a result layout other than the slice of the operand's layout")
    where: dict[tuple[int, ...], int] = {}
    for s in range(src.num_registers):
        where.setdefault(_drop(src.register_coord(s), dim), s)
    out = []
    for r in range(res.num_registers):
        key = res.register_coord(r)
        if key not in where:
            raise not_supported(op, "a result layout other than the slice of the operand's layout")
        out.append(where[key])
    return out


@dataclass(frozen=True)
class ScanPlan:
    """Where a scanned dimension lives, for the work-efficient scan: its coordinate
    bits from the lowest are register bits (`low`, register indices), then lane bits
    (`lanes`, lane-id bits), then warp bits (`warps`, warp-id bits), then register
    bits again (`high`): the shape of every blocked layout (`sizePerThread`, then
    `threadsPerWarp`, `warpsPerCTA`, then repetitions)."""

    low: tuple[int, ...]
    lanes: tuple[int, ...]
    warps: tuple[int, ...]
    high: tuple[int, ...]

    @staticmethod
    def of(bits: Sequence[tuple[str, int]]) -> ScanPlan | None:
        """The plan for `_dimension_bits`' answer, or None for another order of
        bits (an MMA fragment scanned along its rows, say)."""
        groups: dict[str, list[int]] = {"low": [], "lane": [], "warp": [], "high": []}
        order = ("low", "lane", "warp", "high")
        at = 0
        for kind, index in bits:
            want = "low" if kind == "register" and at == 0 else kind
            if kind == "register" and at > 0:
                want = "high"
            if order.index(want) < at:
                return None
            at = order.index(want)
            groups[want].append(index)
        return ScanPlan(*(tuple(groups[k]) for k in order))


class LowerScan(TilePattern):
    """`nv_tileas.scan`, work-efficient where the dimension's bits are ordered as
    in a blocked layout (`ScanPlan`): each thread scans its own run of elements
    sequentially, a warp scans the runs' totals with `shfl.sync.up` (Kogge-Stone,
    log2 of the lanes steps, one more for the exclusive prefix), warps exchange
    their totals through shared memory, and each element is combined once with the
    carry of everything before its run.  Other orders of bits take the carry through
    every thread in turn (`_scan_sequentially`).

    The body is the only combiner, applied as `body(later, earlier)` (r[j] =
    body(x[j], r[j-1])), so any associative body with its identity works; only the
    association differs from the sequential reference, which a compiler may choose
    for an associative body (docs/interpreter.md)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.ScanOp, rewriter: PatternRewriter) -> None:
        dim = op.dimension
        src_t = op.operands[0].type
        layout = linear_layout(op, src_t)
        for res in op.results:
            if linear_layout(op, res.type) != layout:
                raise not_supported(op, "a result layout other than the operand's")
        size = shape_of(src_t)[dim]
        bits = _dimension_bits(op, layout, dim, size, warps_ok=True)
        vals = [self.ctx.registers_of(op, v) for v in op.operands]
        plan = ScanPlan.of(bits)
        if plan is None:
            out = self._scan_sequentially(op, rewriter, layout, bits, size, vals)
        else:
            out = self._scan_work_efficient(op, rewriter, layout, plan, vals)
        results = [
            self.ctx.pack(rewriter, regs, res.type)
            for regs, res in zip(out, op.results, strict=True)
        ]
        rewriter.replace(op, [], results)

    # -- the work-efficient scan ---------------------------------------------------
    def _scan_work_efficient(
        self,
        op: tas.ScanOp,
        rewriter: PatternRewriter,
        layout: LinearLayout,
        plan: ScanPlan,
        vals: list[list[SSAValue]],
    ) -> list[list[SSAValue]]:
        b = self.builder(rewriter, op)
        state = self.ctx.function_state(op)
        reverse = op.is_reverse
        ids = identities(b, op)
        along = sum(1 << i for i in (*plan.low, *plan.high))
        rows = sorted({r & ~along for r in range(layout.num_registers)})

        def register(row: int, high_rank: int, low_rank: int) -> int:
            """The register at scan-order ranks (`reverse` counts down)."""
            r = row
            for ranks, indices in ((low_rank, plan.low), (high_rank, plan.high)):
                for k, index in enumerate(indices):
                    if (ranks >> k & 1) != reverse:
                        r |= 1 << index
            return r

        # 1. Each thread scans its runs of consecutive elements (one per row and
        #    value of the high register bits), in order, from the identity.
        groups: list[tuple[int, int]] = [
            (row, h) for row in rows for h in range(1 << len(plan.high))
        ]
        partial: dict[int, list[SSAValue]] = {}
        totals: list[list[SSAValue]] = []
        for row, h in groups:
            acc = ids
            for q in range(1 << len(plan.low)):
                r = register(row, h, q)
                acc = combine(b, op, [v[r] for v in vals], acc)
                partial[r] = acc
            totals.append(acc)
        # 2. Across the lanes: inclusive Kogge-Stone scan of the runs' totals, then
        #    the exclusive carry from the previous lane.
        #    A run of one element needs no exclusive carry: the inclusive scan is its
        #    result so far.
        lane_carry: list[list[SSAValue]] | None = None
        if plan.lanes:
            totals, lane_carry = self._scan_lanes(
                op, b, rewriter, state, plan, reverse, totals, exclusive=bool(plan.low)
            )
            if not plan.low:
                for (row, h), t in zip(groups, totals, strict=True):
                    partial[register(row, h, 0)] = t
        # 3. Across the warps: each warp's total through shared memory.
        warp_carry: list[list[SSAValue]] | None = None
        block_totals = totals
        if plan.warps:
            warp_carry, block_totals = self._scan_warps(
                op, b, rewriter, state, plan, reverse, totals, ids
            )
        elif plan.high:
            # The high register bits need each group's total over the whole
            # dimension: held by the last lane in scan order.
            last = self._last_lane(rewriter, state, plan, reverse)
            block_totals = [[shuffle(op, b, x, "idx", last) for x in t] for t in totals]
        # 4. Every element combined once with the carry of what precedes its run.
        out: list[list[SSAValue | None]] = [[None] * layout.num_registers for _ in vals]
        high_carry: list[SSAValue] | None = None
        for g, (row, h) in enumerate(groups):
            if h == 0:
                high_carry = None
            carry: list[SSAValue] | None = None
            for part in (
                lane_carry[g] if lane_carry is not None else None,
                warp_carry[g] if warp_carry is not None else None,
                high_carry,
            ):
                if part is not None:
                    carry = part if carry is None else combine(b, op, carry, part)
            for q in range(1 << len(plan.low)):
                r = register(row, h, q)
                value = partial[r] if carry is None else combine(b, op, partial[r], carry)
                for k in range(len(vals)):
                    out[k][r] = value[k]
            if plan.high:
                total = block_totals[g]
                high_carry = total if high_carry is None else combine(b, op, total, high_carry)
        return [[x for x in regs if x is not None] for regs in out]

    def _scan_lanes(
        self,
        op: tas.ScanOp,
        b: LLBuilder,
        rewriter: PatternRewriter,
        state: FunctionState,
        plan: ScanPlan,
        reverse: bool,
        totals: list[list[SSAValue]],
        exclusive: bool,
    ) -> tuple[list[list[SSAValue]], list[list[SSAValue]] | None]:
        """(inclusive, exclusive) scans over the lanes of each group's totals; the
        exclusive one (if asked for) is the identity in the first lane."""
        prologue = state.prologue_builder(rewriter)
        lane_id = state.lane
        assert lane_id is not None
        n = len(plan.lanes)
        rank = _gather(prologue, lane_id, plan.lanes)  # in coordinate order
        if reverse:
            rank = prologue.xor(rank, prologue.const((1 << n) - 1, i32))
        contiguous = list(plan.lanes) == list(range(plan.lanes[0], plan.lanes[0] + n))

        def earlier(value: SSAValue, distance: int) -> SSAValue:
            """`value` from the lane `distance` before in scan order."""
            if contiguous:
                mode = "down" if reverse else "up"
                return shuffle(op, b, value, mode, distance << plan.lanes[0])
            source = prologue.sub(rank, prologue.const(distance, i32))
            if reverse:
                source = prologue.xor(source, prologue.const((1 << n) - 1, i32))
            lane = _scatter(prologue, source, plan.lanes)
            others = prologue.and_(lane_id, prologue.const(~_mask(plan.lanes) & 31, i32))
            return shuffle(op, b, value, "idx", prologue.or_(others, lane))

        inclusive = [list(t) for t in totals]
        for step in range(n):
            distance = 1 << step
            has = prologue.icmp("uge", rank, prologue.const(distance, i32), signed=False)
            for g, t in enumerate(inclusive):
                theirs = [earlier(x, distance) for x in t]
                both = combine(b, op, t, theirs)
                inclusive[g] = [b.select(has, c, x) for c, x in zip(both, t, strict=True)]
        if not exclusive:
            return inclusive, None
        first = prologue.icmp("eq", rank, prologue.const(0, i32))
        ids = identities(b, op)
        carries = [
            [b.select(first, i, earlier(x, 1)) for x, i in zip(t, ids, strict=True)]
            for t in inclusive
        ]
        return inclusive, carries

    def _last_lane(
        self, rewriter: PatternRewriter, state: FunctionState, plan: ScanPlan, reverse: bool
    ) -> SSAValue:
        """The lane of this thread's row that holds the last element in scan order."""
        prologue = state.prologue_builder(rewriter)
        assert state.lane is not None
        lanes = _mask(plan.lanes)
        row = prologue.and_(state.lane, prologue.const(~lanes & 31, i32))
        return row if reverse else prologue.or_(row, prologue.const(lanes, i32))

    def _scan_warps(
        self,
        op: tas.ScanOp,
        b: LLBuilder,
        rewriter: PatternRewriter,
        state: FunctionState,
        plan: ScanPlan,
        reverse: bool,
        totals: list[list[SSAValue]],
        ids: list[SSAValue],
    ) -> tuple[list[list[SSAValue]], list[list[SSAValue]]]:
        """(carry from earlier warps, total over all warps) of each group: the last
        lane of each warp in scan order writes its inclusive total, a barrier, every
        thread reads its row's totals of all warps and combines them in order, a
        barrier (the words are reused by the next exchange)."""
        prologue = state.prologue_builder(rewriter)
        assert state.lane is not None and state.warp is not None
        threads = state.num_warps * WARP_SIZE
        n_warps = 1 << len(plan.warps)
        lane_mask = _mask(plan.lanes)
        warp_mask = _mask(plan.warps) << 5
        tid = prologue.or_(prologue.shl(state.warp, prologue.const(5, i32)), state.lane)
        size = len(totals) * len(ids) * threads * 8
        (scratch,) = allocate_shared(op, state, rewriter, [size], "a scan across warps")
        mine = prologue.add(scratch, prologue.shl(tid, prologue.const(3, i32)))
        row = prologue.and_(tid, prologue.const((threads - 1) & ~(lane_mask | warp_mask), i32))
        row_at = prologue.add(scratch, prologue.shl(row, prologue.const(3, i32)))
        last_lane = 0 if reverse else lane_mask
        lane_rank = prologue.and_(state.lane, prologue.const(lane_mask, i32))
        writer = prologue.icmp("eq", lane_rank, prologue.const(last_lane, i32))
        warp_rank = _gather(prologue, state.warp, plan.warps)
        if reverse:
            warp_rank = prologue.xor(warp_rank, prologue.const(n_warps - 1, i32))

        def slot(g: int, k: int) -> int:
            return (g * len(ids) + k) * threads * 8

        for g, t in enumerate(totals):
            for k, value in enumerate(t):
                store_shared_word(op, b, mine, slot(g, k), value, writer)
        b.op(nvvm.Barrier0Op())
        carries: list[list[SSAValue]] = []
        block_totals: list[list[SSAValue]] = []
        for g, t in enumerate(totals):
            acc: list[SSAValue] | None = None
            carry = ids
            # The last warp's total only matters to the high register bits.
            for w in range(n_warps if plan.high else n_warps - 1):
                warp = _scatter_const(w ^ (n_warps - 1) if reverse else w, plan.warps)
                thread = (warp << 5) | last_lane
                theirs = [
                    load_shared_word(b, row_at, slot(g, k) + thread * 8, value.type)
                    for k, value in enumerate(t)
                ]
                acc = theirs if acc is None else combine(b, op, theirs, acc)
                if w + 1 < n_warps:
                    after = prologue.icmp("eq", warp_rank, prologue.const(w + 1, i32))
                    carry = [b.select(after, a, c) for a, c in zip(acc, carry, strict=True)]
            assert acc is not None
            carries.append(carry)
            block_totals.append(acc)
        b.op(nvvm.Barrier0Op())
        return carries, block_totals

    # -- any other order of bits: the carry through every thread in turn ----------
    def _scan_sequentially(
        self,
        op: tas.ScanOp,
        rewriter: PatternRewriter,
        layout: LinearLayout,
        bits: list[tuple[str, int]],
        size: int,
        vals: list[list[SSAValue]],
    ) -> list[list[SSAValue]]:
        """Each thread scans its own registers along the dimension starting from a
        carry; the carry walks through the threads that hold the dimension in order,
        one `shfl.sync.idx` per segment (shared memory between warps)."""
        reverse = op.is_reverse
        b = self.builder(rewriter, op)
        state = self.ctx.function_state(op)
        n_regs = layout.num_registers
        # Coordinate c along `dim`, in scan order, lives in register bits and thread
        # bits (lane bits, and warp bits at 5 + i of the thread id); consecutive
        # coordinates in one thread form a segment.
        order = range(size - 1, -1, -1) if reverse else range(size)
        segments: list[tuple[int, list[int]]] = []
        for c in order:
            reg_part = thread_part = 0
            for bit, (kind, i) in enumerate(bits):
                if c >> bit & 1:
                    if kind == "register":
                        reg_part |= 1 << i
                    elif kind == "lane":
                        thread_part |= 1 << i
                    else:
                        thread_part |= WARP_SIZE << i
            if segments and segments[-1][0] == thread_part:
                segments[-1][1].append(reg_part)
            else:
                segments.append((thread_part, [reg_part]))
        along = sum(1 << i for kind, i in bits if kind == "register")
        thread_field = sum(1 << i for kind, i in bits if kind == "lane") | sum(
            WARP_SIZE << i for kind, i in bits if kind == "warp"
        )
        rows = sorted({r & ~along for r in range(n_regs)})
        out: list[list[SSAValue | None]] = [[None] * n_regs for _ in vals]
        ids = identities(b, op)
        mine_field: SSAValue | None = None
        others: SSAValue | None = None
        tid: SSAValue | None = None
        if thread_field:
            prologue = state.prologue_builder(rewriter)
            assert state.lane is not None and state.warp is not None
            tid = prologue.or_(prologue.shl(state.warp, prologue.const(5, i32)), state.lane)
            mine_field = prologue.and_(tid, prologue.const(thread_field, i32))
            others = prologue.and_(state.lane, prologue.const((WARP_SIZE - 1) & ~thread_field, i32))
        scratch: SSAValue | None = None
        for row in rows:
            carry = ids
            for n, (thread_part, parts) in enumerate(segments):
                keep = None
                if mine_field is not None:
                    keep = b.icmp("eq", mine_field, b.const(thread_part, i32))
                for part in parts:
                    r = row | part
                    carry = combine(b, op, [v[r] for v in vals], carry)
                    for k in range(len(vals)):
                        prev = out[k][r]
                        out[k][r] = (
                            carry[k]
                            if keep is None or prev is None
                            else b.select(keep, carry[k], prev)
                        )
                if others is None or n + 1 == len(segments):
                    continue
                next_part = segments[n + 1][0]
                if (next_part ^ thread_part) < WARP_SIZE:
                    # The same warp: the segment's lane passes the carry on.
                    source = b.or_(others, b.const(thread_part % WARP_SIZE, i32))
                    carry = [shuffle(op, b, x, "idx", source) for x in carry]
                    continue
                # Another warp: the segment's threads publish the carry in shared
                # memory, one word per row of threads (the thread id without its bits
                # along `dim`).
                assert tid is not None and keep is not None
                if scratch is None:
                    size_bytes = len(vals) * state.num_warps * WARP_SIZE * 8
                    (scratch,) = allocate_shared(
                        op, state, rewriter, [size_bytes], "a scan across warps"
                    )
                carry = self._pass_across_warps(
                    op, b, rewriter, state, tid, thread_field, keep, carry, scratch
                )
        return [[x for x in regs if x is not None] for regs in out]

    def _pass_across_warps(
        self,
        op: tas.ScanOp,
        b: LLBuilder,
        rewriter: PatternRewriter,
        state: FunctionState,
        tid: SSAValue,
        thread_field: int,
        writer: SSAValue,
        carry: list[SSAValue],
        scratch: SSAValue,
    ) -> list[SSAValue]:
        """The carry of the threads where `writer` holds, to every thread of their row:
        write, barrier, read, barrier (the words are reused by the next crossing)."""
        threads = state.num_warps * WARP_SIZE
        prologue = state.prologue_builder(rewriter)
        row = prologue.and_(tid, prologue.const((threads - 1) & ~thread_field, i32))
        at = prologue.add(scratch, prologue.shl(row, prologue.const(3, i32)))
        for k, value in enumerate(carry):
            store_shared_word(op, b, at, k * threads * 8, value, writer)
        b.op(nvvm.Barrier0Op())
        out = [load_shared_word(b, at, k * threads * 8, v.type) for k, v in enumerate(carry)]
        b.op(nvvm.Barrier0Op())
        return out


def _mask(indices: Sequence[int]) -> int:
    return sum(1 << i for i in indices)


def _gather(b: LLBuilder, word: SSAValue, indices: Sequence[int]) -> SSAValue:
    """The bits `indices` of `word`, packed from bit 0 in that order."""
    n = len(indices)
    if list(indices) == list(range(indices[0], indices[0] + n)):
        shifted = b.lshr(word, b.const(indices[0], i32)) if indices[0] else word
        return b.and_(shifted, b.const((1 << n) - 1, i32))
    out = b.const(0, i32)
    for k, index in enumerate(indices):
        bit = b.and_(b.lshr(word, b.const(index, i32)), b.const(1, i32))
        out = b.or_(out, b.shl(bit, b.const(k, i32)))
    return out


def _scatter(b: LLBuilder, packed: SSAValue, indices: Sequence[int]) -> SSAValue:
    """The inverse of `_gather`: bit k of `packed` at bit `indices[k]`."""
    out = b.const(0, i32)
    for k, index in enumerate(indices):
        bit = b.and_(b.lshr(packed, b.const(k, i32)), b.const(1, i32))
        out = b.or_(out, b.shl(bit, b.const(index, i32)))
    return out


def _scatter_const(packed: int, indices: Sequence[int]) -> int:
    return sum(1 << index for k, index in enumerate(indices) if packed >> k & 1)


_ = (Attribute, LoweringContext)
