"""`LLBuilder`: creates llvm-dialect ops at one insertion point.

The LLVM-level IR tileir produces is real LLVM: standard llvm ops where they exist,
`llvm.call_intrinsic` with LLVM's own NVVM intrinsic names (`llvm.nvvm.ex2.approx.f`)
where PTX has an instruction LLVM models as an intrinsic, and `llvm.inline_asm` only
for PTX with no LLVM counterpart (predicated vector memory accesses).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
    VectorType,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from tileir.backend.ptx.asm_builder import PtxAsm
from tileir.dialects import nvvm
from tileir.utils.op_shapes import insert, shaped

#: The PTX ISA an op needs beyond the target's lowest (`backend/ptx/target.py` prints the
#: newest any op of the module carries as `.version`).
MIN_PTX_ISA_ATTR = "tileir.min_ptx_isa"

#: Marks the constants `LLBuilder.immediate` makes, so that common-subexpression
#: elimination keeps them apart from equal constants that feed registers.
IMMEDIATE_ATTR = "tileir.immediate"

ICMP = {
    ("eq", True): "eq",
    ("eq", False): "eq",
    ("ne", True): "ne",
    ("ne", False): "ne",
    ("lt", True): "slt",
    ("lt", False): "ult",
    ("le", True): "sle",
    ("le", False): "ule",
    ("gt", True): "sgt",
    ("gt", False): "ugt",
    ("ge", True): "sge",
    ("ge", False): "uge",
}


def _built(cls: type[Operation], operands: Sequence[SSAValue], *args: object) -> Operation:
    """`cls(*operands, *args)`, built from its shape (`tileir/utils/op_shapes.py`) after
    the first time its class, operand types and other arguments are seen: the
    constructors of the classes this serves look only at their operands' types."""
    return shaped(
        (cls, *[o.type for o in operands], *args), operands, lambda: cls(*operands, *args)
    )


#: The `icmp` predicate attribute of each predicate name.
_PREDICATES: dict[str, IntegerAttr] = {}

#: The `[index]` position attribute of `extractvalue` and `insertvalue`.
_POSITIONS: dict[int, DenseArrayBase] = {}


def position(index: int) -> DenseArrayBase:
    """`DenseArrayBase.from_list(i64, [index])`, one object per index."""
    attr = _POSITIONS.get(index)
    if attr is None:
        attr = _POSITIONS[index] = DenseArrayBase.from_list(i64, [index])
    return attr


class LLBuilder:
    def __init__(self, rewriter: PatternRewriter, insertion_point: InsertPoint):
        self.rewriter = rewriter
        self.ip = insertion_point
        self._constants: dict[tuple[Attribute, object], SSAValue] = {}
        self._immediates: dict[tuple[Attribute, int], SSAValue] = {}

    def op(self, op: Operation) -> Operation:
        insert(self.rewriter, op, self.ip)
        return op

    def v(self, op: Operation) -> SSAValue:
        return self.op(op).results[0]

    # -- constants ------------------------------------------------------------
    def const(self, value: int | float, t: Attribute) -> SSAValue:
        key = (t, value if not isinstance(value, float) else ("f", repr(value)))
        cached = self._constants.get(key)
        if cached is not None:
            return cached
        shape = (llvm.ConstantOp, t, type(value), repr(value))  # 0 and -0.0 apart
        result = self.v(shaped(shape, (), lambda: _constant(value, t)))
        self._constants[key] = result
        return result

    def immediate(self, value: int, t: IntegerType) -> SSAValue:
        """An integer constant meant only for the operands of nvvm ops that the `ptx`
        target prints as immediates (`IMMEDIATE_OPERANDS` in backend/ptx/instructions.py):
        kept apart from `const`'s constants, which feed registers (`IMMEDIATE_ATTR` keeps
        CSE from merging them), so that it takes no register of its own."""
        key = (t, value)
        cached = self._immediates.get(key)
        if cached is None:
            cached = self.v(shaped((IMMEDIATE_ATTR, key), (), lambda: _immediate(value, t)))
            self._immediates[key] = cached
        return cached

    # -- integer ----------------------------------------------------------------
    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.AddOp, [a, b]))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.SubOp, [a, b]))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.MulOp, [a, b]))

    def and_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.AndOp, [a, b]))

    def or_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.OrOp, [a, b]))

    def xor(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.XOrOp, [a, b]))

    def shl(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.ShlOp, [a, b]))

    def lshr(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.LShrOp, [a, b]))

    def ashr(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.AShrOp, [a, b]))

    def sdiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.SDivOp, [a, b]))

    def udiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """`a / b` unsigned; by a constant power of two a shift (`shr.u32`), as ptxas 13
        does not make one of `div.u32` by a register it knows is 8192: a ring's slot
        number cost 14 SASS instructions (`I2F.U32.RP`, `MUFU.RCP`, ...) a copy."""
        shift = _power_of_two(b)
        if shift is not None:
            return self.lshr(a, self.const(shift, a.type))
        return self.v(_built(llvm.UDivOp, [a, b]))

    def udiv_exact(self, a: SSAValue, divisor: int) -> SSAValue:
        """`a / divisor` where `a` is known to be a multiple of `divisor` (a constant,
        `odd * 2^k`): a shift by `k` and a multiply by the inverse of `odd` modulo
        2^width, exact for every multiple (Granlund and Montgomery's exact division),
        where `udiv` by a constant that is no power of two is a generic division in
        SASS (`I2F.U32.RP`, `MUFU.RCP`, `IMAD.HI`, fix-ups: ~14 instructions)."""
        t = a.type
        assert isinstance(t, IntegerType) and divisor > 0
        width = t.width.data
        shift = (divisor & -divisor).bit_length() - 1
        odd = divisor >> shift
        q = self.lshr(a, self.const(shift, t)) if shift else a
        if odd == 1:
            return q
        inverse = pow(odd, -1, 1 << width)
        if inverse >= 1 << (width - 1):
            inverse -= 1 << width
        return self.mul(q, self.const(inverse, t))

    def srem(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.SRemOp, [a, b]))

    def urem(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """`a % b` unsigned; by a constant power of two a mask (`and.b32`), as `udiv`."""
        shift = _power_of_two(b)
        if shift is not None:
            return self.and_(a, self.const((1 << shift) - 1, a.type))
        return self.v(_built(llvm.URemOp, [a, b]))

    def icmp(self, predicate: str, a: SSAValue, b: SSAValue, signed: bool = True) -> SSAValue:
        name = ICMP.get((predicate, signed), predicate)
        attr = _PREDICATES.get(name)
        if attr is None:
            attr = _PREDICATES[name] = IntegerAttr(llvm.ICmpPredicateFlag(name).to_int(), i64)
        return self.v(_built(llvm.ICmpOp, [a, b], attr))

    def select(self, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.SelectOp, [c, a, b]))

    def sext(self, a: SSAValue, t: Attribute) -> SSAValue:
        return self.v(_built(llvm.SExtOp, [a], t))

    def zext(self, a: SSAValue, t: Attribute) -> SSAValue:
        return self.v(_built(llvm.ZExtOp, [a], t))

    def trunc(self, a: SSAValue, t: Attribute) -> SSAValue:
        return self.v(_built(llvm.TruncOp, [a], t))

    def int_cast(self, a: SSAValue, t: IntegerType, signed: bool = True) -> SSAValue:
        src = a.type
        assert isinstance(src, IntegerType)
        if src == t:
            return a
        if src.width.data < t.width.data:
            return self.sext(a, t) if signed else self.zext(a, t)
        return self.trunc(a, t)

    # -- floating point -----------------------------------------------------------
    def fadd(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.FAddOp, [a, b]))

    def fsub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.FSubOp, [a, b]))

    def fmul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.FMulOp, [a, b]))

    def fdiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.FDivOp, [a, b]))

    def fneg(self, a: SSAValue) -> SSAValue:
        return self.v(_built(llvm.FNegOp, [a]))

    def fcmp(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(_built(llvm.FCmpOp, [a, b], predicate))

    def fpext(self, a: SSAValue, t: Attribute) -> SSAValue:
        return self.v(_built(llvm.FPExtOp, [a], t))

    def fptrunc(self, a: SSAValue, t: Attribute) -> SSAValue:
        return self.v(_built(llvm.FPTruncOp, [a], t))

    def bitcast(self, a: SSAValue, t: Attribute) -> SSAValue:
        return self.v(_built(llvm.BitcastOp, [a], t))

    # -- 16-bit pairs in 32-bit words ----------------------------------------------
    def pack_halves(self, lo: SSAValue, hi: SSAValue) -> SSAValue:
        """Two 16-bit values (f16, bf16, i16) as one i32 word, `lo` in the low half: the
        vector `<lo, hi>` bitcast to i32, which the `ptx` target prints as
        `mov.b32 %r, {%lo, %hi}` (the operand form of `mma.sync`, `wgmma` and
        `st.shared.v4.b32`)."""
        pair = self.undef_vector(lo.type, 2)
        for lane, value in enumerate((lo, hi)):
            pair = self.v(_built(llvm.InsertElementOp, [pair, value, self.immediate(lane, i32)]))
        return self.bitcast(pair, i32)

    def unpack_halves(self, word: SSAValue, t: Attribute) -> list[SSAValue]:
        """The two 16-bit halves of an i32 word as values of `t`, the low half first, in
        LLVM's canonical form of the `extractelement`s of `bitcast %word to vector<2 x t>`:
        `trunc`, and `trunc` of `lshr` by 16 (then `bitcast` to `t`).  The `ptx` target
        prints the pair as one `mov.b32 {%lo, %hi}, %r`."""
        low = self.trunc(word, i16)
        high = self.trunc(self.lshr(word, self.immediate(16, i32)), i16)
        return [half if t == i16 else self.bitcast(half, t) for half in (low, high)]

    def sitofp(self, a: SSAValue, t: Attribute) -> SSAValue:
        return self.v(_built(llvm.SIToFPOp, [a], t))

    def intrinsic(self, name: str, args: Sequence[SSAValue], result: Attribute) -> SSAValue:
        key = (llvm.CallIntrinsicOp, name, result, *[a.type for a in args])
        return self.v(shaped(key, args, lambda: llvm.CallIntrinsicOp(name, list(args), [result])))

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        return self.intrinsic(f"llvm.fma.{_suffix(a.type)}", [a, b, c], a.type)

    # -- pointers -------------------------------------------------------------------
    def gep(self, ptr: SSAValue, index: SSAValue, element: Attribute) -> SSAValue:
        return self.v(
            shaped(
                (llvm.GEPOp, ptr.type, index.type, element),
                (ptr, index),
                lambda: llvm.GEPOp.from_mixed_indices(ptr, [index], element, result_type=ptr.type),  # pyright: ignore[reportArgumentType]
            )
        )

    # -- shared memory ---------------------------------------------------------------
    def shared_pointer(self, address: SSAValue, offset: int = 0) -> SSAValue:
        """The `!llvm.ptr<3>` of a 32-bit shared-window address (the arena's `i32`
        addresses), `offset` bytes on: a constant `llvm.getelementptr`, which the `ptx`
        target folds into the access (`[%r+offset]`)."""
        pointer = self.v(
            shaped(
                (llvm.IntToPtrOp, address.type, "shared"),
                (address,),
                lambda: llvm.IntToPtrOp.create(
                    operands=[address], result_types=[nvvm.shared_pointer()]
                ),
            )
        )
        if offset:
            base = pointer
            pointer = self.v(
                shaped(
                    (llvm.GEPOp, base.type, offset, i8),
                    (base,),
                    lambda: llvm.GEPOp.from_mixed_indices(
                        base,
                        [offset],
                        i8,
                        result_type=base.type,  # pyright: ignore[reportArgumentType]
                    ),
                )
            )
        return pointer

    def load(self, pointer: SSAValue, t: Attribute, alignment: int | None = None) -> SSAValue:
        return self.v(_built(llvm.LoadOp, [pointer], t, alignment))

    def store(self, value: SSAValue, pointer: SSAValue, alignment: int | None = None) -> None:
        self.op(_built(llvm.StoreOp, [value, pointer], alignment))

    def load_words(self, pointer: SSAValue, count: int, t: Attribute) -> list[SSAValue]:
        """`count` consecutive 32- or 64-bit values of `t` in one access, aligned to all
        of it: a load of a struct of them, which the `ptx` target prints as one
        `ld.shared.v{count}` (xDSL 0.74 has no `llvm.extractelement` to take a vector's
        lanes apart)."""
        if count == 1:
            return [self.load(pointer, t)]
        struct = llvm.LLVMStructType.from_type_list([t] * count)
        value = self.load(pointer, struct, count * _bytes(t))
        return [self.extract(value, i, t) for i in range(count)]

    def store_words(self, words: Sequence[SSAValue], pointer: SSAValue) -> None:
        """Consecutive 32- or 64-bit values in one access, aligned to all of it: a store
        of the vector of them (`st.shared.v{n}`)."""
        if len(words) == 1:
            self.store(words[0], pointer)
            return
        t = words[0].type
        vector = self.undef_vector(t, len(words))
        for lane, word in enumerate(words):
            lane_index = self.immediate(lane, i32)
            vector = self.v(_built(llvm.InsertElementOp, [vector, word, lane_index]))
        self.store(vector, pointer, len(words) * _bytes(t))

    # -- aggregates -------------------------------------------------------------------
    def extract(self, aggregate: SSAValue, index: int, t: Attribute) -> SSAValue:
        return self.v(
            shaped(
                (llvm.ExtractValueOp, aggregate.type, index, t),
                (aggregate,),
                lambda: llvm.ExtractValueOp(position(index), aggregate, t),
            )
        )

    def undef_vector(self, t: Attribute, lanes: int) -> SSAValue:
        """`llvm.mlir.undef` of `vector<lanes x t>`."""
        return self.v(
            shaped((llvm.UndefOp, t, lanes), (), lambda: llvm.UndefOp(VectorType(t, [lanes])))
        )

    def asm(
        self, block: PtxAsm, side_effects: bool = True, min_ptx_isa: str | None = None
    ) -> list[SSAValue]:
        """The one `llvm.inline_asm` of a PTX block (`backend/ptx/asm_builder.py`, the
        only writer of its text), its results.  `min_ptx_isa`: the PTX ISA the text
        needs when newer than the target's lowest (`MIN_PTX_ISA_ATTR`, which raises the
        module's `.version`)."""
        return self._inline_asm(
            block.template,
            block.constraints,
            block.arguments,
            block.result_types,
            side_effects,
            min_ptx_isa,
        )

    def _inline_asm(
        self,
        template: str,
        constraints: str,
        args: Sequence[SSAValue],
        results: Sequence[Attribute],
        side_effects: bool,
        min_ptx_isa: str | None = None,
    ) -> list[SSAValue]:
        """Inline PTX; multiple results come back through a struct."""

        def make() -> Operation:
            types = (
                list(results)
                if len(results) <= 1
                else [llvm.LLVMStructType.from_type_list(list(results))]
            )
            return llvm.InlineAsmOp(
                template, constraints, list(args), types, has_side_effects=side_effects
            )

        key = (llvm.InlineAsmOp, template, constraints, side_effects, tuple(results))
        asm = shaped((*key, *[a.type for a in args]), args, make)
        if min_ptx_isa is not None:
            asm.attributes[MIN_PTX_ISA_ATTR] = StringAttr(min_ptx_isa)
        if not results:
            self.op(asm)
            return []
        value = self.v(asm)
        if len(results) == 1:
            return [value]
        return [self.extract(value, i, t) for i, t in enumerate(results)]


def _power_of_two(value: SSAValue) -> int | None:
    """k where `value` is the integer constant 2**k (k >= 0, below the sign bit of its
    type), else None."""
    op = value.owner
    if not isinstance(op, llvm.ConstantOp) or not isinstance(op.value, IntegerAttr):
        return None
    v = op.value.value.data
    t = value.type
    if v <= 0 or v & (v - 1) or not isinstance(t, IntegerType) or v.bit_length() >= t.width.data:
        return None
    return v.bit_length() - 1


def _constant(value: int | float, t: Attribute) -> Operation:
    """`llvm.mlir.constant` of `value` as a `t` (integers wrapped to its width)."""
    if isinstance(t, IntegerType):
        width = t.width.data
        v = int(value)
        if width == 1:
            v = 1 if v else 0
            attr: Attribute = IntegerAttr(v, t)
        else:
            v &= (1 << width) - 1
            if v >= 1 << (width - 1):
                v -= 1 << width
            attr = IntegerAttr(v, t)
    else:
        assert isinstance(t, AnyFloat)
        attr = FloatAttr(float(value), t)
    return llvm.ConstantOp(attr, t)


def _immediate(value: int, t: IntegerType) -> Operation:
    """`LLBuilder.immediate`'s constant: `value` wrapped to the width of `t`, marked."""
    width = t.width.data
    v = value & ((1 << width) - 1)
    if v >= 1 << (width - 1):
        v -= 1 << width
    constant = llvm.ConstantOp(IntegerAttr(v, t), t)
    constant.attributes[IMMEDIATE_ATTR] = UnitAttr()
    return constant


def _bytes(t: Attribute) -> int:
    """The size of a 32- or 64-bit register value (integers, floats, global pointers)."""
    if isinstance(t, llvm.LLVMPointerType):
        return 8
    if isinstance(t, IntegerType):
        return t.width.data // 8
    assert isinstance(t, AnyFloat)
    return t.bitwidth // 8


def _suffix(t: Attribute) -> str:
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    return str(t)


_ = i1
