"""What the tile-to-LLVM patterns share: per-function thread ids, layouts and the
1:N mapping from a tile to the registers a thread holds.

A tile value with layout L becomes `L.num_registers` scalar LLVM values per thread.
While patterns run, each converted tile is represented by an
`builtin.unrealized_conversion_cast` from its registers to the tile type; a user
looks through the cast to find the registers (`registers_of`).  Scalars map 1:1
(pointers through a cast to `!llvm.ptr<1>`).  The casts die when the last user is
converted and are removed at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    FloatTF32Type,
    IntAttr,
    TensorType,
    UnrealizedConversionCastOp,
    f32,
    i8,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from tileir.analysis.affine_forms import AffineAccess
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.shared_arena import SharedArena, SharedBudget
from tileir.diagnostics import error_at, not_supported
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileas.layouts import WARP_SIZE, DistributedLayout, LinearLayout
from tileir.utils.bits import log2, register_bits
from tileir.utils.op_shapes import create, insert

if TYPE_CHECKING:
    from tileir.conversions.tileas_to_llvm.tile_bounds import TileBounds

GLOBAL_PTR = llvm.LLVMPointerType(IntAttr(1))


def llvm_scalar_type(t: Attribute) -> Attribute:
    """The LLVM type of one element; 8-bit floats are held as their bits in i8
    (PTX has no 8-bit float registers; `fp8.py` converts them), f4E2M1FN as its bits
    in the low half of an i8, tf32 as the f32 of the same value (`tf32.py`)."""
    if isinstance(t, Float8E4M3FNType | Float8E5M2Type | Float8E8M0FNUType | Float4E2M1FNType):
        return i8
    if isinstance(t, FloatTF32Type):
        return f32
    return GLOBAL_PTR if isinstance(t, PointerType) else t


#: `linear_layout`'s answers by the identity of the tile type (types are immutable and
#: a kernel's ops share a few dozen type objects; the entry holds the type, so its id is
#: not reused while it is remembered): 5,350 calls over 28 held-out kernels, 3% of their
#: warm compilation, for some hundreds of types.
_LINEAR: dict[int, tuple[Attribute, LinearLayout]] = {}


def linear_layout(op: Operation, t: Attribute) -> LinearLayout:
    known = _LINEAR.get(id(t))
    if known is not None and known[0] is t:
        return known[1]
    if not isinstance(t, TensorType) or not isinstance(t.encoding, DistributedLayout):
        raise error_at(
            op, f"expects tiles with a distributed layout, got {t} (run tileas-assign-layouts)"
        )
    layout = t.encoding.linear(t.get_shape())  # immutable (a frozen dataclass): shared
    if len(_LINEAR) >= 4096:
        _LINEAR.clear()
    _LINEAR[id(t)] = (t, layout)
    return layout


class PrologueBuilder(LLBuilder):
    """Appends ops to a kernel's prologue (after the thread ids), in order."""

    def __init__(self, rewriter: PatternRewriter, last: Operation):
        super().__init__(rewriter, InsertPoint.after(last))
        self.last = last

    def op(self, op: Operation) -> Operation:
        self.rewriter.insert(op, InsertPoint.after(self.last))
        self.last = op
        return op


@dataclass
class FunctionState:
    """What is computed once per kernel: thread ids (at its entry), and its
    shared-memory arena."""

    entry: Block
    num_warps: int
    #: The target (its shared-memory limits size the arena).
    arch: str = "sm_90a"
    prologue: PrologueBuilder | None = None
    #: The thread's id in the CTA (`%tid.x`).
    tid: SSAValue | None = None
    lane: SSAValue | None = None
    warp: SSAValue | None = None
    coord_cache: dict[tuple[LinearLayout, int], SSAValue] = field(default_factory=dict)
    owner_cache: dict[LinearLayout, SSAValue | None] = field(default_factory=dict)
    #: The kernel's number in this run of the pass (names its `.shared` arena).
    index: int = 0
    #: The kernel's shared-memory arena and its budget (`shared_arena.py`).
    shared_arena: SharedArena | None = None
    shared_budget: SharedBudget | None = None
    #: The kernel's tensor memory (sm_100a `tcgen05` dots: `tcgen05.TensorMemory`).
    tensor_memory: object | None = None
    #: The buffers of dot operands written once before their loop, by their registers
    #: and buffer layout (`staged_operands.stage_once`).
    staged_operands: dict[tuple[object, ...], SSAValue] = field(default_factory=dict)

    def prologue_builder(self, rewriter: PatternRewriter) -> PrologueBuilder:
        if self.prologue is None:
            tid_op = nvvm.TidXOp()
            first = self.entry.first_op
            if first is None:
                rewriter.insert(tid_op, InsertPoint.at_end(self.entry))
            else:
                rewriter.insert(tid_op, InsertPoint.before(first))
            b = PrologueBuilder(rewriter, tid_op)
            self.tid = tid_op.res
            self.lane = b.and_(tid_op.res, b.const(WARP_SIZE - 1, i32))
            self.warp = b.lshr(tid_op.res, b.const(5, i32))
            self.prologue = b
        self.prologue.rewriter = rewriter
        return self.prologue

    def thread_coord(self, rewriter: PatternRewriter, layout: LinearLayout, dim: int) -> SSAValue:
        """The thread's own part of coordinate `dim`: XOR of the lane and warp bases
        selected by its lane and warp ids (bit fields, for the usual layouts)."""
        key = (layout, dim)
        cached = self.coord_cache.get(key)
        if cached is not None:
            return cached
        b = self.prologue_builder(rewriter)
        assert self.lane is not None and self.warp is not None
        result: SSAValue | None = None
        for source, bases in ((self.lane, layout.lanes), (self.warp, layout.warps)):
            for start, length, shift in _bit_fields([basis[dim] for basis in bases]):
                v = b.lshr(source, b.const(start, i32)) if start else source
                v = b.and_(v, b.const((1 << length) - 1, i32))
                if shift:
                    v = b.shl(v, b.const(shift, i32))
                result = v if result is None else b.xor(result, v)
        if result is None:
            result = b.const(0, i32)
        self.coord_cache[key] = result
        return result

    def owner_predicate_all(self, rewriter: PatternRewriter) -> SSAValue:
        """`i1` true in thread 0 only: the owner of a scalar every thread holds."""
        b = self.prologue_builder(rewriter)
        assert self.lane is not None and self.warp is not None
        return b.icmp("eq", b.or_(self.lane, self.warp), b.const(0, i32))

    def owner_predicate(self, rewriter: PatternRewriter, layout: LinearLayout) -> SSAValue | None:
        """`i1` true in the one thread of each group that holds the same elements, or
        None when no two threads share an element.

        A tile smaller than the CTA is replicated: lanes and warps whose layout basis
        is zero hold copies.  Loads may read through every copy, but only one copy
        may write, or copies race with each other (and, for a tile updated in place,
        a copy that loads after another stored would store a twice-updated value)."""
        if layout in self.owner_cache:
            return self.owner_cache[layout]
        lane_mask = sum(1 << i for i, basis in enumerate(layout.lanes) if not any(basis))
        warp_mask = sum(1 << i for i, basis in enumerate(layout.warps) if not any(basis))
        result: SSAValue | None = None
        if lane_mask or warp_mask:
            b = self.prologue_builder(rewriter)
            assert self.lane is not None and self.warp is not None
            bits = b.or_(
                b.and_(self.lane, b.const(lane_mask, i32)),
                b.shl(b.and_(self.warp, b.const(warp_mask, i32)), b.const(5, i32)),
            )
            result = b.icmp("eq", bits, b.const(0, i32))
        self.owner_cache[layout] = result
        return result


def _bit_fields(values: Sequence[int]) -> list[tuple[int, int, int]]:
    """Group input bits whose images are consecutive powers of two into fields
    (input start bit, length, output shift); other non-zero images become fields of
    length one at the image's bit, which is exact for power-of-two images."""
    fields: list[tuple[int, int, int]] = []
    i = 0
    while i < len(values):
        v = values[i]
        if v == 0:
            i += 1
            continue
        if v & (v - 1):
            raise ValueError("layout basis is not a power of two")
        shift = log2(v)
        length = 1
        while i + length < len(values) and values[i + length] == v << length:
            length += 1
        fields.append((i, length, shift))
        i += length
    return fields


class LoweringContext:
    """State shared by the patterns of one run of the pass."""

    def __init__(self, arch: str = "sm_90a") -> None:
        self.arch = arch
        self.functions: dict[Block, FunctionState] = {}
        #: Per masked tiled load (by id): its mask's constant runs per
        #: dimension, from before the lowering (`tiled_memory.mask_runs`).
        self.mask_runs: dict[int, tuple[int, ...]] = {}
        #: The tiled stores (by id) of kernels with a dot (`tiled_memory.stores_beside_dots`).
        self.stores_beside_dots: set[int] = set()
        #: Per tiled load and store with an affine pointer tile (by id): its form and
        #: anchored scales (`affine_addresses.plan_affine_addresses`).
        self.affine_addresses: dict[int, AffineAccess] = {}
        #: Per masked ring copy whose mask has a whole-tile test (by id): the test's
        #: bounds and anchored scalars (`tile_bounds.plan_tile_bounds`).
        self.tile_bounds: dict[int, TileBounds] = {}

    def function_state(self, op: Operation) -> FunctionState:
        fn = op.parent_op()
        while fn is not None and not isinstance(fn, llvm.FuncOp):
            fn = fn.parent_op()
        if fn is None:
            raise error_at(op, "must be inside a kernel")
        entry = fn.body.blocks.first
        assert entry is not None
        state = self.functions.get(entry)
        if state is None:
            warps = fn.attributes.get("nv_tileas.num_warps")
            n = warps.value.data if warps is not None else 4  # pyright: ignore[reportAttributeAccessIssue]
            state = FunctionState(entry, n, self.arch, index=len(self.functions))
            self.functions[entry] = state
        return state

    # -- tiles as registers -----------------------------------------------------
    @staticmethod
    def registers_of(op: Operation, value: SSAValue) -> list[SSAValue]:
        owner = value.owner
        if isinstance(owner, UnrealizedConversionCastOp) and len(owner.results) == 1:
            return list(owner.inputs)
        if isinstance(value.type, TensorType | PointerType):
            if isinstance(owner, Operation) and not owner.name.startswith(("llvm.", "nvvm.")):
                # Its pattern did not match: the producer is what lacks code generation.
                raise not_supported(owner, "no code generation for this op")
            raise error_at(op, f"operand of type {value.type} was not lowered before its use")
        return [value]

    @staticmethod
    def pack(rewriter: PatternRewriter, values: Sequence[SSAValue], t: Attribute) -> SSAValue:
        # `UnrealizedConversionCastOp.get(values, [t])`, without its generic argument
        # handling (a tenth of the time of one with tens of registers).
        cast = create(UnrealizedConversionCastOp, values, (t,), {}, {})
        insert(rewriter, cast, rewriter.insertion_point)
        return cast.results[0]

    def result_value(
        self, rewriter: PatternRewriter, values: Sequence[SSAValue], t: Attribute
    ) -> SSAValue:
        """What replaces a result of type `t`: the scalar itself or a packed tile."""
        if isinstance(t, TensorType | PointerType):
            return self.pack(rewriter, values, t)
        assert len(values) == 1
        return values[0]


def element_llvm_type(t: Attribute) -> Attribute:
    return llvm_scalar_type(element_type(t))


def element_bits(t: Attribute) -> int:
    """Bits of one element of a tile (or of a scalar) in its register."""
    return register_bits(element_type(t))


def is_representative(layout: LinearLayout, r: int) -> bool:
    """False for registers that only repeat another (a set bit along a zero basis)."""
    return not any(r >> i & 1 and not any(basis) for i, basis in enumerate(layout.registers))


def representative(layout: LinearLayout, r: int) -> int:
    """The register that register `r` repeats (itself when it repeats none)."""
    for i, basis in enumerate(layout.registers):
        if r >> i & 1 and not any(basis):
            r &= ~(1 << i)
    return r


def disjoint_bits(layout: LinearLayout) -> bool:
    """Whether register bits never overlap thread bits in any coordinate, so that a
    coordinate is the register part *plus* the thread part (no carries, no XOR): an
    exchange's addresses and a tiled access's (`affine_addresses.py`) rely on it."""
    for d in range(len(layout.shape)):
        reg = 0
        for basis in layout.registers:
            reg |= basis[d]
        thread = 0
        for basis in (*layout.lanes, *layout.warps):
            thread |= basis[d]
        if reg & thread:
            return False
    return True
