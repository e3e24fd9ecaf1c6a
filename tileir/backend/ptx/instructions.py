"""The PTX each llvm / nvvm op becomes.

`emit(ctx, op)` looks the op up in `EMITTERS` (by class) and, for
`llvm.call_intrinsic`, in `INTRINSICS` (by intrinsic name); each entry appends the
instruction lines for one op.  Arithmetic rounds explicitly (`add.rn.f32`), which
also keeps ptxas from contracting a separate multiply and add into an fma: cuTile
fuses only where the program says `fma`.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tileir.backend.ptx.registers import (
    B32,
    PRED,
    RegisterAllocator,
    is_shared_pointer,
    register_class,
)
from tileir.diagnostics import not_supported
from tileir.dialects import nvvm
from tileir.utils.numeric import element_bytes, numpy_bits


@dataclass
class PtxContext:
    regs: RegisterAllocator
    lines: list[str] = field(default_factory=list)
    labels: dict[Block, str] = field(default_factory=dict)
    #: The target the kernel is printed for (instructions that differ per target).
    arch: str = "sm_90a"
    #: Kernel-scope `.shared` declarations, by symbol (the mbarrier pool).
    shared: dict[str, str] = field(default_factory=dict)
    #: The 16-bit halves of 32-bit words already split in a block (`emit_trunc_half`).
    halves: dict[tuple[SSAValue, Block], tuple[str, str]] = field(default_factory=dict)
    #: `folded_constant` of the values asked so far (`folded`).
    folded_constants: dict[SSAValue, int | None] = field(default_factory=dict)

    def line(self, text: str) -> None:
        self.lines.append(text)

    def folded(self, value: SSAValue) -> int | None:
        """`folded_constant(value)`, worked out once per value: it looks at every use,
        and each use asks (a kernel's `shfl.sync`s share one member-mask constant, so
        asking at each of them was quadratic: 3% of a reduction kernel's compilation)."""
        known = self.folded_constants
        if value in known:
            return known[value]
        folded = known[value] = folded_constant(value)
        return folded

    def r(self, value: SSAValue) -> str:
        return self.regs.of(value)


Emitter = Callable[[PtxContext, Operation], None]


def width(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, llvm.LLVMPointerType):
        return 32 if is_shared_pointer(t) else 64
    if isinstance(t, Float16Type | BFloat16Type):
        return 16
    if isinstance(t, Float32Type):
        return 32
    if isinstance(t, Float64Type):
        return 64
    raise ValueError(f"unsized type {t}")


def int_width(t: Attribute) -> int:
    """PTX operand width of an integer: i8 lives in 16-bit registers."""
    w = width(t)
    return 16 if w == 8 else w


def float_suffix(t: Attribute) -> str:
    if isinstance(t, Float64Type):
        return "f64"
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, BFloat16Type):
        return "bf16"
    return "f32"


# ---------------------------------------------------------------------------
# Constants.
# ---------------------------------------------------------------------------


def float_immediate(value: float, t: Attribute) -> str:
    if isinstance(t, Float64Type):
        return "0d" + struct.pack(">d", value).hex().upper()
    if isinstance(t, Float32Type):
        return "0f" + struct.pack(">f", value).hex().upper()
    return f"0x{numpy_bits(value, t):04X}"


#: The operands (by index) each op prints as a PTX immediate when an
#: `llvm.mlir.constant` defines them: `shfl.sync`'s lane offset, clamp and member mask,
#: and the lane index of `llvm.insertelement` (which prints nothing).
IMMEDIATE_OPERANDS: dict[type[Operation], frozenset[int]] = {
    nvvm.ShflSyncOp: frozenset({0, 2, 3}),
    nvvm.BarrierOp: frozenset({0, 1}),
    llvm.InsertElementOp: frozenset({2}),
}


def constant_int(value: SSAValue) -> int | None:
    """The integer of the `llvm.mlir.constant` defining `value`, if one does."""
    owner = value.owner
    if isinstance(owner, llvm.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def folded_constant(value: SSAValue) -> int | None:
    """The integer of the `llvm.mlir.constant` defining `value` when every use of it is
    an operand printed as an immediate (`IMMEDIATE_OPERANDS`); such a constant takes no
    register and prints nothing itself.  None otherwise."""
    constant = constant_int(value)
    uses = list(value.uses)
    if constant is None or not uses:
        return None
    if any(
        use.index not in IMMEDIATE_OPERANDS.get(type(use.operation), frozenset())
        and not is_half_shift(use.operation)
        for use in uses
    ):
        return None
    return constant


def emit_constant(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, llvm.ConstantOp)
    if ctx.folded(op.result) is not None:
        return
    t = op.result.type
    d = ctx.r(op.result)
    value = op.value
    if isinstance(value, FloatAttr):
        imm = float_immediate(value.value.data, t)
        kind = "b16" if width(t) == 16 else ("f64" if isinstance(t, Float64Type) else "f32")
        ctx.line(f"mov.{kind} {d}, {imm};")
        return
    assert isinstance(value, IntegerAttr)
    v = value.value.data
    if register_class(t) is PRED:
        ctx.line(f"setp.ne.u32 {d}, {1 if v & 1 else 0}, 0;")
        return
    w = int_width(t)
    ctx.line(f"mov.b{w} {d}, {v & ((1 << w) - 1)};" if v < 0 else f"mov.b{w} {d}, {v};")


# ---------------------------------------------------------------------------
# Integer arithmetic.
# ---------------------------------------------------------------------------


def _normalize_i8(ctx: PtxContext, reg: str, t: Attribute) -> None:
    """i8 values live sign-extended in 16-bit registers."""
    if width(t) == 8:
        ctx.line(f"cvt.s16.s8 {reg}, {reg};")


def _pred_binary(op_name: str) -> Emitter:
    def emit(ctx: PtxContext, op: Operation) -> None:
        a, b = op.operands
        ctx.line(f"{op_name}.pred {ctx.r(op.results[0])}, {ctx.r(a)}, {ctx.r(b)};")

    return emit


def _int_binary(mnemonic: str, pred_op: str | None = None, normalize: bool = True) -> Emitter:
    """`add.s32`-style ops; `mnemonic` may contain `{w}`."""

    def emit(ctx: PtxContext, op: Operation) -> None:
        a, b = op.operands
        t = op.results[0].type
        if register_class(t) is PRED:
            if pred_op is None:
                raise not_supported(op, "on i1")
            ctx.line(f"{pred_op}.pred {ctx.r(op.results[0])}, {ctx.r(a)}, {ctx.r(b)};")
            return
        d = ctx.r(op.results[0])
        ctx.line(f"{mnemonic.format(w=int_width(t))} {d}, {ctx.r(a)}, {ctx.r(b)};")
        if normalize:
            _normalize_i8(ctx, d, t)

    return emit


def _wide_operand(value: SSAValue, signed: bool) -> SSAValue | int | None:
    """`value` as a 32-bit operand of `mul.wide`: the source of its 32-bit `zext`
    (`sext` when `signed`), or a constant of the 32-bit range; None otherwise."""
    owner = value.owner
    kind = llvm.SExtOp if signed else llvm.ZExtOp
    if isinstance(owner, kind) and width(owner.operands[0].type) == 32:
        return owner.operands[0]
    constant = constant_int(value)
    lo, hi = (-(1 << 31), 1 << 31) if signed else (0, 1 << 32)
    if constant is not None and lo <= constant < hi:
        return constant
    return None


_mul_lo = _int_binary("mul.lo.s{w}", "and")


def emit_mul(ctx: PtxContext, op: Operation) -> None:
    """`mul.lo`, or `mul.wide.u32` / `.s32` for a 64-bit product of a 32-bit value,
    extended, and a constant of the same 32-bit range (LLVM's NVPTX backend selects
    it so): ptxas makes one `IMAD.WIDE.U32` of it where a 64-bit multiply of the
    extended value costs more instructions and registers (the strength-reduced
    addresses of tiled accesses, `tileas_to_llvm/affine_addresses.py`: x_permute_2d_f32
    on sm_90a 80 registers with it, 96 with `mul.lo.s64`).  Two extended values keep
    `mul.lo.s64`: measured over the corpus, `mul.wide` there moved registers both
    ways (gemm_bf16_big_tile on sm_80 began to spill)."""
    a, b = op.operands
    if width(op.results[0].type) == 64:
        for signed in (False, True):
            x, y = _wide_operand(a, signed), _wide_operand(b, signed)
            if isinstance(x, int):
                x, y = y, x
            if isinstance(x, SSAValue) and isinstance(y, int):
                sign = "s" if signed else "u"
                ctx.line(f"mul.wide.{sign}32 {ctx.r(op.results[0])}, {ctx.r(x)}, {y};")
                return
    _mul_lo(ctx, op)


def _unsigned_operand(ctx: PtxContext, value: SSAValue) -> str:
    """An i8 operand zero-extended (its register holds it sign-extended)."""
    if width(value.type) != 8:
        return ctx.r(value)
    tmp = ctx.regs.new(register_class(value.type))
    ctx.line(f"and.b16 {tmp}, {ctx.r(value)}, 255;")
    return tmp


def _unsigned_binary(mnemonic: str) -> Emitter:
    def emit(ctx: PtxContext, op: Operation) -> None:
        a, b = op.operands
        t = op.results[0].type
        d = ctx.r(op.results[0])
        ctx.line(
            f"{mnemonic.format(w=int_width(t))} {d}, {_unsigned_operand(ctx, a)}, {_unsigned_operand(ctx, b)};"
        )
        _normalize_i8(ctx, d, t)

    return emit


def _shift(mnemonic: str, unsigned_source: bool = False) -> Emitter:
    """Shift amounts are .u32 operands in PTX whatever the value width; amounts past
    the width clamp (shl gives 0, shr fills with the sign or 0)."""

    def emit(ctx: PtxContext, op: Operation) -> None:
        a, b = op.operands
        t = op.results[0].type
        w = int_width(t)
        if is_half_shift(op):
            return
        amount = ctx.r(b)
        if w != 32:
            tmp = ctx.regs.new(register_class(IntegerType(32)))
            ctx.line(f"cvt.u32.u{w} {tmp}, {amount};")
            amount = tmp
        src = _unsigned_operand(ctx, a) if unsigned_source else ctx.r(a)
        d = ctx.r(op.results[0])
        ctx.line(f"{mnemonic.format(w=w)} {d}, {src}, {amount};")
        _normalize_i8(ctx, d, t)

    return emit


ICMP_PTX = {
    "eq": ("eq", "s"),
    "ne": ("ne", "s"),
    "slt": ("lt", "s"),
    "sle": ("le", "s"),
    "sgt": ("gt", "s"),
    "sge": ("ge", "s"),
    "ult": ("lt", "u"),
    "ule": ("le", "u"),
    "ugt": ("gt", "u"),
    "uge": ("ge", "u"),
}


def emit_icmp(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, llvm.ICmpOp)
    pred = llvm.ICmpPredicateFlag.from_int(op.predicate.value.data).value
    cmp, sign = ICMP_PTX[pred]
    t = op.lhs.type
    d = ctx.r(op.res)
    if register_class(t) is PRED:
        if cmp == "eq":
            ctx.line(f"xor.pred {d}, {ctx.r(op.lhs)}, {ctx.r(op.rhs)};")
            ctx.line(f"not.pred {d}, {d};")
        elif cmp == "ne":
            ctx.line(f"xor.pred {d}, {ctx.r(op.lhs)}, {ctx.r(op.rhs)};")
        else:
            _emit_i1_order(ctx, d, ctx.r(op.lhs), ctx.r(op.rhs), cmp, sign)
        return
    if sign == "u":
        a, b = _unsigned_operand(ctx, op.lhs), _unsigned_operand(ctx, op.rhs)
    else:
        a, b = ctx.r(op.lhs), ctx.r(op.rhs)
    ctx.line(f"setp.{cmp}.{sign}{int_width(t)} {d}, {a}, {b};")


def _emit_i1_order(ctx: PtxContext, d: str, a: str, b: str, cmp: str, sign: str) -> None:
    """An ordered comparison of two i1 values: unsigned, true (1) is above false;
    signed, true is -1, below false, so `slt` is `ugt` and so on.  `a > b` is
    `a & !b`, `a >= b` is `a | !b`; `<` and `<=` swap the operands."""
    above = (cmp in ("gt", "ge")) == (sign == "u")  # whether `a` must be the true one
    hi, lo = (a, b) if above else (b, a)
    inverted = ctx.regs.new(PRED)
    ctx.line(f"not.pred {inverted}, {lo};")
    strict = cmp in ("gt", "lt")
    ctx.line(f"{'and' if strict else 'or'}.pred {d}, {hi}, {inverted};")


def emit_select(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, llvm.SelectOp)
    t = op.res.type
    d, c, a, b = ctx.r(op.res), ctx.r(op.cond), ctx.r(op.lhs), ctx.r(op.rhs)
    if register_class(t) is PRED:
        tmp = ctx.regs.new(PRED)
        ctx.line(f"and.pred {tmp}, {c}, {a};")
        ctx.line(f"not.pred {d}, {c};")
        ctx.line(f"and.pred {d}, {d}, {b};")
        ctx.line(f"or.pred {d}, {d}, {tmp};")
        return
    kind = f"f{width(t)}" if isinstance(t, Float32Type | Float64Type) else f"b{int_width(t)}"
    ctx.line(f"selp.{kind} {d}, {a}, {b}, {c};")


# ---------------------------------------------------------------------------
# 16-bit halves of 32-bit words (f16/bf16 pairs).
# ---------------------------------------------------------------------------


def is_half_shift(op: Operation) -> bool:
    """`lshr %w, 16` on an i32 whose every use truncates to 16 bits: the high half of
    `%w`, which those truncations take with a vector `mov` (`emit_trunc_half`), so the
    shift prints nothing, nor does its constant when nothing else uses it."""
    return (
        isinstance(op, llvm.LShrOp)
        and width(op.lhs.type) == 32
        and constant_int(op.rhs) == 16
        and bool(list(op.res.uses))
        and all(_is_half_trunc(use.operation) for use in op.res.uses)
    )


def _is_half_trunc(op: Operation) -> bool:
    return (
        isinstance(op, llvm.TruncOp) and width(op.arg.type) == 32 and int_width(op.res.type) == 16
    )


def _half_of(op: llvm.TruncOp) -> tuple[SSAValue, int] | None:
    """`(word, 0)` for `trunc %word` and `(word, 1)` for `trunc (lshr %word, 16)` to 16
    bits, when the word's other half is taken too (LLVM's canonical form of the two
    `extractelement`s of `bitcast %word to vector<2 x half>`); None otherwise."""
    if not _is_half_trunc(op):
        return None
    source = op.arg.owner
    if isinstance(source, Operation) and is_half_shift(source):
        return source.operands[0], 1
    word = op.arg
    for use in word.uses:
        if is_half_shift(use.operation) and any(
            u.operation.parent is op.parent for u in use.operation.results[0].uses
        ):
            return word, 0
    return None


def emit_trunc_half(ctx: PtxContext, op: llvm.TruncOp, word: SSAValue, half: int) -> None:
    """Both halves of `word` in one `mov.b32 {%lo, %hi}, %w`, printed at the first of the
    two truncations of a block; the second takes its register."""
    block = op.parent_block()
    assert block is not None
    key = (word, block)
    pair = ctx.halves.get(key)
    if pair is None or op.res in ctx.regs.names:
        registers = ["", ""]
        registers[half] = ctx.r(op.res)
        registers[1 - half] = ctx.regs.new_for(op.res.type)
        ctx.line(f"mov.b32 {_vector(registers)}, {ctx.r(word)};")
        ctx.halves[key] = (registers[0], registers[1])
        return
    ctx.regs.alias(op.res, pair[half])


def emit_int_cast(kind: str) -> Emitter:
    def emit(ctx: PtxContext, op: Operation) -> None:
        (src,) = op.operands
        if isinstance(op, llvm.TruncOp) and (half := _half_of(op)) is not None:
            emit_trunc_half(ctx, op, *half)
            return
        s, d_t = src.type, op.results[0].type
        d = ctx.r(op.results[0])
        ws = width(s)
        if register_class(s) is PRED:
            one = "-1" if kind == "sext" else "1"
            ctx.line(f"selp.b{int_width(d_t)} {d}, {one}, 0, {ctx.r(src)};")
            return
        if register_class(d_t) is PRED:
            tmp = ctx.regs.new(register_class(s))
            ctx.line(f"and.b{int_width(s)} {tmp}, {ctx.r(src)}, 1;")
            ctx.line(f"setp.ne.b{int_width(s)} {d}, {tmp}, 0;")
            return
        sign = "s" if kind == "sext" else "u"
        if kind == "trunc":
            if int_width(s) == int_width(d_t):
                ctx.line(f"mov.b{int_width(d_t)} {d}, {ctx.r(src)};")
            else:
                ctx.line(f"cvt.u{int_width(d_t)}.u{int_width(s)} {d}, {ctx.r(src)};")
            _normalize_i8(ctx, d, d_t)
            return
        source_type = f"{sign}{ws}" if ws == 8 else f"{sign}{int_width(s)}"
        if ws == 8 and kind == "zext":
            ctx.line(f"cvt.u{int_width(d_t)}.u8 {d}, {ctx.r(src)};")
        else:
            ctx.line(f"cvt.{sign}{int_width(d_t)}.{source_type} {d}, {ctx.r(src)};")
        _normalize_i8(ctx, d, d_t)

    return emit


# ---------------------------------------------------------------------------
# Floating point.
# ---------------------------------------------------------------------------


def _float_binary(mnemonic: str) -> Emitter:
    def emit(ctx: PtxContext, op: Operation) -> None:
        a, b = op.operands
        t = op.results[0].type
        if not isinstance(t, Float32Type | Float64Type):
            raise not_supported(op, f"native {t} arithmetic (widen to f32 first)")
        ctx.line(f"{mnemonic}.{float_suffix(t)} {ctx.r(op.results[0])}, {ctx.r(a)}, {ctx.r(b)};")

    return emit


def emit_fneg(ctx: PtxContext, op: Operation) -> None:
    t = op.results[0].type
    ctx.line(f"neg.{float_suffix(t)} {ctx.r(op.results[0])}, {ctx.r(op.operands[0])};")


FCMP_PTX = {
    "oeq": "eq",
    "one": "ne",
    "olt": "lt",
    "ole": "le",
    "ogt": "gt",
    "oge": "ge",
    "ueq": "equ",
    "une": "neu",
    "ult": "ltu",
    "ule": "leu",
    "ugt": "gtu",
    "uge": "geu",
    "ord": "num",
    "uno": "nan",
}


def emit_fcmp(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, llvm.FCmpOp)
    pred = llvm.FCmpPredicateFlag.from_int(op.predicate.value.data).value
    t = op.lhs.type
    if not isinstance(t, Float32Type | Float64Type):
        raise not_supported(op, f"comparison of {t} values (widen to f32 first)")
    ctx.line(
        f"setp.{FCMP_PTX[pred]}.{float_suffix(t)} {ctx.r(op.res)}, {ctx.r(op.lhs)}, {ctx.r(op.rhs)};"
    )


def emit_fpext(ctx: PtxContext, op: Operation) -> None:
    (src,) = op.operands
    s, t = src.type, op.results[0].type
    d = ctx.r(op.results[0])
    if isinstance(s, BFloat16Type) and isinstance(t, Float32Type):
        # bf16 is the top half of an f32: exact on every target.
        wide = ctx.regs.new(register_class(IntegerType(32)))
        ctx.line(f"cvt.u32.u16 {wide}, {ctx.r(src)};")
        ctx.line(f"shl.b32 {wide}, {wide}, 16;")
        ctx.line(f"mov.b32 {d}, {wide};")
        return
    ctx.line(f"cvt.{float_suffix(t)}.{float_suffix(s)} {d}, {ctx.r(src)};")


def emit_fptrunc(ctx: PtxContext, op: Operation) -> None:
    (src,) = op.operands
    s, t = src.type, op.results[0].type
    ctx.line(f"cvt.rn.{float_suffix(t)}.{float_suffix(s)} {ctx.r(op.results[0])}, {ctx.r(src)};")


def emit_sitofp(ctx: PtxContext, op: Operation) -> None:
    (src,) = op.operands
    t = op.results[0].type
    ctx.line(
        f"cvt.rn.{float_suffix(t)}.s{int_width(src.type)} {ctx.r(op.results[0])}, {ctx.r(src)};"
    )


def emit_bitcast(ctx: PtxContext, op: Operation) -> None:
    """A vector of two 16-bit values into a 32-bit word packs them (`mov.b32 %r, {%lo,
    %hi}`); a value whose register class does not change (f16 <-> i16) keeps its register;
    anything else moves the bits."""
    (src,) = op.operands
    result = op.results[0]
    if isinstance(src.type, VectorType):
        ctx.line(
            f"mov.b{width(result.type)} {ctx.r(result)}, {_vector(vector_registers(ctx, src))};"
        )
        return
    if register_class(src.type) == register_class(result.type) and result not in ctx.regs.names:
        ctx.regs.alias(result, ctx.r(src))
        return
    ctx.line(f"mov.b{width(result.type)} {ctx.r(result)}, {ctx.r(src)};")


def _lanes(ctx: PtxContext, value: SSAValue) -> list[str]:
    """The registers of a vector's lanes as `emit_insertelement` recorded them, with ""
    for a lane never written (an `llvm.mlir.undef`'s)."""
    known = ctx.regs.names.get(value)
    if isinstance(known, list):
        return list(known)
    t = value.type
    owner = value.owner
    assert isinstance(t, VectorType)
    if not isinstance(owner, llvm.UndefOp):
        where = owner if isinstance(owner, Operation) else owner.parent_op()
        assert where is not None
        raise not_supported(where, "a vector value that llvm.insertelement did not build")
    return [""] * t.get_shape()[0]


def vector_registers(ctx: PtxContext, value: SSAValue) -> list[str]:
    """The registers of a vector's lanes; a lane never written gets a fresh one."""
    t = value.type
    assert isinstance(t, VectorType)
    return [r or ctx.regs.new_for(t.get_element_type()) for r in _lanes(ctx, value)]


def emit_insertelement(ctx: PtxContext, op: Operation) -> None:
    """No code: a vector's lanes are registers, and the result's lanes are the
    vector's with one of them replaced (nothing writes a lane's register later)."""
    assert isinstance(op, llvm.InsertElementOp)
    index = constant_int(op.index)
    if index is None:
        raise not_supported(op, "a lane index that is not a constant")
    lanes = _lanes(ctx, op.vector)
    lanes[index] = ctx.r(op.value)
    ctx.regs.assign_struct(op.res, lanes)


def _element_size(op: llvm.GEPOp) -> int:
    t = op.elem_type
    return element_bytes(t) if not isinstance(t, IntegerType) or t.width.data >= 8 else 1


def constant_offset(op: Operation) -> int | None:
    """The byte offset of a `getelementptr` with one constant index, else None."""
    if not isinstance(op, llvm.GEPOp) or op.ssa_indices:
        return None
    indices = op.rawConstantIndices.get_values()
    if len(indices) != 1:
        return None
    return int(indices[0]) * _element_size(op)


def is_folded_address(op: Operation) -> bool:
    """A shared pointer `getelementptr %p[c]` used only as the address of loads and
    stores: they print it as `[%p+c]`, and it prints nothing."""
    if constant_offset(op) is None or not is_shared_pointer(op.results[0].type):
        return False
    base = op.operands[0].owner
    if isinstance(base, Operation) and is_folded_address(base):
        return False
    uses = list(op.results[0].uses)
    return bool(uses) and all(
        (isinstance(u.operation, llvm.LoadOp) and u.index == 0)
        or (isinstance(u.operation, llvm.StoreOp) and u.index == 1)
        for u in uses
    )


def emit_gep(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, llvm.GEPOp)
    if is_folded_address(op):
        return
    base, d = ctx.r(op.ptr), ctx.r(op.result)
    offset = constant_offset(op)
    if offset is not None:
        kind = "s32" if width(op.result.type) == 32 else "s64"
        ctx.line(f"add.{kind} {d}, {base}, {offset};")
        return
    if len(op.ssa_indices) != 1 or len(op.rawConstantIndices.get_values()) != 1:
        raise not_supported(op, "multi-index getelementptr")
    (idx,) = op.ssa_indices
    size = _element_size(op)
    if width(op.result.type) == 32:
        # A shared pointer: 32-bit address arithmetic (the index is i32).
        ctx.line(f"mad.lo.s32 {d}, {ctx.r(idx)}, {size}, {base};")
        return
    if width(idx.type) == 64 and size == 1:
        # A byte offset: ptxas folds `mul.wide` + `add` into one IMAD.WIDE, not a `mad`.
        ctx.line(f"add.s64 {d}, {base}, {ctx.r(idx)};")
    elif width(idx.type) == 64:
        ctx.line(f"mad.lo.s64 {d}, {ctx.r(idx)}, {size}, {base};")
    elif width(idx.type) == 32:
        ctx.line(f"mad.wide.s32 {d}, {ctx.r(idx)}, {size}, {base};")
    else:
        wide = ctx.regs.new(register_class(IntegerType(32)))
        ctx.line(f"cvt.s32.s16 {wide}, {ctx.r(idx)};")
        ctx.line(f"mad.wide.s32 {d}, {wide}, {size}, {base};")


def emit_pointer_cast(ctx: PtxContext, op: Operation) -> None:
    """`inttoptr` / `ptrtoint`: a shared pointer is its 32-bit address (same register);
    a global one moves its 64 bits."""
    (src,) = op.operands
    result = op.results[0]
    if width(src.type) == 32 and width(result.type) == 32 and result not in ctx.regs.names:
        ctx.regs.alias(result, ctx.r(src))
        return
    ctx.line(f"mov.b64 {ctx.r(result)}, {ctx.r(src)};")


# ---------------------------------------------------------------------------
# Loads and stores (shared memory).
# ---------------------------------------------------------------------------


def _state_space(op: Operation, ptr: SSAValue) -> str:
    if not is_shared_pointer(ptr.type):
        raise not_supported(
            op, f"{op.name} through {ptr.type} (global accesses are predicated inline PTX)"
        )
    return "shared"


def _address(ctx: PtxContext, ptr: SSAValue) -> str:
    """`[%r]`, or `[%r+c]` for a folded constant `getelementptr` (`is_folded_address`)."""
    owner = ptr.owner
    if isinstance(owner, Operation) and is_folded_address(owner):
        return f"[{ctx.r(owner.operands[0])}+{constant_offset(owner)}]"
    return f"[{ctx.r(ptr)}]"


def _access_type(t: Attribute, load: bool) -> str:
    """A scalar's type suffix; an i8 loads sign-extended into its 16-bit register."""
    bits = width(t)
    return ("s8" if load else "b8") if bits == 8 else f"b{bits}"


def _vector_access(op: Operation, types: list[Attribute], alignment: int | None) -> str:
    """`.v2.b32`-style suffix of a vector access of equal 32- or 64-bit members, which
    needs the whole access aligned (`alignment`)."""
    bits = width(types[0])
    total = bits * len(types) // 8
    if (
        len(types) not in (2, 4)
        or any(t != types[0] for t in types)
        or bits not in (32, 64)
        or total > 16
    ):
        raise not_supported(op, f"a vector access of {len(types)} x {types[0]}")
    if alignment is None or alignment % total:
        raise not_supported(op, f"a {total}-byte vector access aligned to {alignment} bytes")
    return f"v{len(types)}.b{bits}"


def emit_load(ctx: PtxContext, op: Operation) -> None:
    """`ld.shared`: a scalar, or the members of a struct in one vector access
    (`ld.shared.v4.b32 {%r1, %r2, %r3, %r4}, [%r5]`, the struct's `llvm.extractvalue`s
    taking its registers)."""
    assert isinstance(op, llvm.LoadOp)
    space = _state_space(op, op.ptr)
    t = op.dereferenced_value.type
    alignment = op.alignment.value.data if op.alignment is not None else None
    if isinstance(t, llvm.LLVMStructType):
        kind = _vector_access(op, list(t.types), alignment)
        target = _vector(ctx.regs.struct_of(op.dereferenced_value))
    else:
        kind, target = _access_type(t, load=True), ctx.r(op.dereferenced_value)
    ctx.line(f"ld.{space}.{kind} {target}, {_address(ctx, op.ptr)};")


def emit_store(ctx: PtxContext, op: Operation) -> None:
    """`st.shared`: a scalar, or the lanes of a vector in one vector access."""
    assert isinstance(op, llvm.StoreOp)
    space = _state_space(op, op.ptr)
    t = op.value.type
    alignment = op.alignment.value.data if op.alignment is not None else None
    if isinstance(t, VectorType):
        lanes = [t.get_element_type()] * t.get_shape()[0]
        kind = _vector_access(op, lanes, alignment)
        source = _vector(vector_registers(ctx, op.value))
    else:
        kind, source = _access_type(t, load=False), ctx.r(op.value)
    ctx.line(f"st.{space}.{kind} {_address(ctx, op.ptr)}, {source};")


# ---------------------------------------------------------------------------
# Intrinsics.
# ---------------------------------------------------------------------------


def _simple(template: str) -> Emitter:
    """`template` formatted with d (result) and a, b, c (operands)."""

    def emit(ctx: PtxContext, op: Operation) -> None:
        regs = [ctx.r(v) for v in op.operands]
        names = dict(zip("abc", regs, strict=False))
        ctx.line(template.format(d=ctx.r(op.results[0]), **names) + ";")

    return emit


def _typed(template: str) -> Callable[[Attribute], Emitter]:
    return lambda t: _simple(template.replace("{T}", float_suffix(t)))


INTRINSICS: dict[str, Emitter] = {}


def _register_float_intrinsics() -> None:
    for t, name in (
        (Float32Type(), "f32"),
        (Float64Type(), "f64"),
        (Float16Type(), "f16"),
        (BFloat16Type(), "bf16"),
    ):
        INTRINSICS[f"llvm.fma.{name}"] = _simple(
            f"fma.rn.{float_suffix(t)} {{d}}, {{a}}, {{b}}, {{c}}"
        )
    for name in ("f32", "f64"):
        INTRINSICS[f"llvm.fabs.{name}"] = _simple(f"abs.{name} {{d}}, {{a}}")
        INTRINSICS[f"llvm.sqrt.{name}"] = _simple(f"sqrt.rn.{name} {{d}}, {{a}}")
        INTRINSICS[f"llvm.floor.{name}"] = _simple(f"cvt.rmi.{name}.{name} {{d}}, {{a}}")
        INTRINSICS[f"llvm.ceil.{name}"] = _simple(f"cvt.rpi.{name}.{name} {{d}}, {{a}}")
        INTRINSICS[f"llvm.rint.{name}"] = _simple(f"cvt.rni.{name}.{name} {{d}}, {{a}}")
        INTRINSICS[f"llvm.trunc.{name}"] = _simple(f"cvt.rzi.{name}.{name} {{d}}, {{a}}")
        INTRINSICS[f"llvm.maxnum.{name}"] = _simple(f"max.{name} {{d}}, {{a}}, {{b}}")
        INTRINSICS[f"llvm.minnum.{name}"] = _simple(f"min.{name} {{d}}, {{a}}, {{b}}")
        # PTX copysign copies the sign of its first source onto its second.
        INTRINSICS[f"llvm.copysign.{name}"] = _simple(f"copysign.{name} {{d}}, {{b}}, {{a}}")
    INTRINSICS["llvm.maximum.f32"] = _simple("max.NaN.f32 {d}, {a}, {b}")
    INTRINSICS["llvm.minimum.f32"] = _simple("min.NaN.f32 {d}, {a}, {b}")
    for ftz in ("", ".ftz"):
        INTRINSICS[f"llvm.nvvm.ex2.approx{ftz}.f"] = _simple(f"ex2.approx{ftz}.f32 {{d}}, {{a}}")
        INTRINSICS[f"llvm.nvvm.rsqrt.approx{ftz}.f"] = _simple(
            f"rsqrt.approx{ftz}.f32 {{d}}, {{a}}"
        )
        INTRINSICS[f"llvm.nvvm.sqrt.approx{ftz}.f"] = _simple(f"sqrt.approx{ftz}.f32 {{d}}, {{a}}")
        INTRINSICS[f"llvm.nvvm.div.approx{ftz}.f"] = _simple(
            f"div.approx{ftz}.f32 {{d}}, {{a}}, {{b}}"
        )
        INTRINSICS[f"llvm.nvvm.div.full{ftz}"] = _simple(f"div.full{ftz}.f32 {{d}}, {{a}}, {{b}}")
        for nan in ("", ".nan"):
            ptx_nan = ".NaN" if nan else ""
            INTRINSICS[f"llvm.nvvm.fmax{ftz}{nan}.f"] = _simple(
                f"max{ftz}{ptx_nan}.f32 {{d}}, {{a}}, {{b}}"
            )
            INTRINSICS[f"llvm.nvvm.fmin{ftz}{nan}.f"] = _simple(
                f"min{ftz}{ptx_nan}.f32 {{d}}, {{a}}, {{b}}"
            )
        for rnd in ("rn", "rz", "rm", "rp"):
            for suffix, ptx in (("f", "f32"), ("d", "f64")):
                if ftz and suffix == "d":
                    continue
                INTRINSICS[f"llvm.nvvm.add.{rnd}{ftz}.{suffix}"] = _simple(
                    f"add.{rnd}{ftz}.{ptx} {{d}}, {{a}}, {{b}}"
                )
                INTRINSICS[f"llvm.nvvm.mul.{rnd}{ftz}.{suffix}"] = _simple(
                    f"mul.{rnd}{ftz}.{ptx} {{d}}, {{a}}, {{b}}"
                )
                INTRINSICS[f"llvm.nvvm.div.{rnd}{ftz}.{suffix}"] = _simple(
                    f"div.{rnd}{ftz}.{ptx} {{d}}, {{a}}, {{b}}"
                )
                INTRINSICS[f"llvm.nvvm.fma.{rnd}{ftz}.{suffix}"] = _simple(
                    f"fma.{rnd}{ftz}.{ptx} {{d}}, {{a}}, {{b}}, {{c}}"
                )
                INTRINSICS[f"llvm.nvvm.sqrt.{rnd}{ftz}.{suffix}"] = _simple(
                    f"sqrt.{rnd}{ftz}.{ptx} {{d}}, {{a}}"
                )
    INTRINSICS["llvm.nvvm.rsqrt.approx.d"] = _simple("rsqrt.approx.f64 {d}, {a}")
    INTRINSICS["llvm.nvvm.tanh.approx.f32"] = _simple("tanh.approx.f32 {d}, {a}")
    # Float <-> integer conversions (rz: toward zero; PTX saturates out-of-range).
    for src, ptx_src in (("f", "f32"), ("d", "f64")):
        for dst, ptx_dst in (("i", "s32"), ("ui", "u32"), ("ll", "s64"), ("ull", "u64")):
            INTRINSICS[f"llvm.nvvm.{src}2{dst}.rz"] = _simple(
                f"cvt.rzi.{ptx_dst}.{ptx_src} {{d}}, {{a}}"
            )
    for name, ptx in (
        ("ui2f", "f32.u32"),
        ("ull2f", "f32.u64"),
        ("ui2d", "f64.u32"),
        ("ull2d", "f64.u64"),
    ):
        INTRINSICS[f"llvm.nvvm.{name}.rn"] = _simple(f"cvt.rn.{ptx} {{d}}, {{a}}")
    for name, ptx in (("us", "u16"), ("ui", "u32"), ("ull", "u64")):
        INTRINSICS[f"llvm.nvvm.mulhi.{name}"] = _simple(f"mul.hi.{ptx} {{d}}, {{a}}, {{b}}")


def _register_int_intrinsics() -> None:
    for w in (8, 16, 32, 64):
        pw = 16 if w == 8 else w
        for kind, sign in (("smax", "s"), ("smin", "s"), ("umax", "u"), ("umin", "u")):
            op = "max" if "max" in kind else "min"
            INTRINSICS[f"llvm.{kind}.i{w}"] = (
                _int_binary(f"{op}.{sign}{pw}") if sign == "s" else _unsigned_binary(f"{op}.u{pw}")
            )
        INTRINSICS[f"llvm.abs.i{w}"] = _simple(f"abs.s{pw} {{d}}, {{a}}")


_register_float_intrinsics()
_register_int_intrinsics()


def emit_intrinsic(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, llvm.CallIntrinsicOp)
    name = op.intrin.data
    emitter = INTRINSICS.get(name)
    if emitter is None:
        raise not_supported(op, f"intrinsic {name} has no PTX spelling in tileir")
    emitter(ctx, op)


# ---------------------------------------------------------------------------
# Inline asm, aggregates, control.
# ---------------------------------------------------------------------------


def emit_inline_asm(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, llvm.InlineAsmOp)
    outputs: list[str] = []
    if op.res is not None:
        if isinstance(op.res.type, llvm.LLVMStructType):
            outputs = ctx.regs.struct_of(op.res)
        else:
            outputs = [ctx.r(op.res)]
    operands = outputs + [ctx.r(v) for v in op.operands_]
    text = op.asm_string.data
    # Replace $N from the highest index down so that $1 does not eat $10.
    for i in sorted(range(len(operands)), reverse=True):
        text = text.replace(f"${i}", operands[i])
    for line in text.split("\n"):
        ctx.line(line)


def emit_extractvalue(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, llvm.ExtractValueOp)
    members = ctx.regs.struct_of(op.container)
    (index,) = op.position.get_values()
    ctx.regs.alias(op.res, members[index])


def move(ctx: PtxContext, dst: str, src: str, t: Attribute) -> None:
    """`dst = src` between two registers of `t`'s class."""
    cls = register_class(t)
    ctx.line(f"mov.{'pred' if cls is PRED else f'b{cls.bits}'} {dst}, {src};")


def writes_in_place(value: SSAValue, op: Operation) -> bool:
    """Whether `op` may write its result into the registers of its operand `value`:
    `op` is the only use of `value`, which is defined in the same block (so that `op`
    runs once per definition: a use inside a loop of a value defined before it reads
    the same registers on every iteration)."""
    owner = value.owner
    return value.has_one_use() and isinstance(owner, Operation) and owner.parent is op.parent


def struct_result_registers(ctx: PtxContext, op: Operation, source: SSAValue) -> list[str]:
    """The registers of `op`'s struct result, which starts as a copy of `source`: the
    registers of `source` when `op` may write them in place (`writes_in_place`), fresh
    ones holding a copy otherwise (none for an `llvm.mlir.undef`)."""
    members = ctx.regs.struct_of(source)
    if writes_in_place(source, op):
        registers = members
    else:
        struct = source.type
        assert isinstance(struct, llvm.LLVMStructType)
        registers = [ctx.regs.new_for(t) for t in struct.types]
        if not isinstance(source.owner, llvm.UndefOp):
            for dst, src, t in zip(registers, members, struct.types, strict=True):
                move(ctx, dst, src, t)
    ctx.regs.assign_struct(op.results[0], registers)
    return registers


def emit_undef(ctx: PtxContext, op: Operation) -> None:
    """Nothing: an undefined value takes whatever its registers hold."""


#: On an `llvm.insertvalue`: the member takes the inserted value's register instead of
#: a copy of it.  The lowering that sets it promises that the value's register is not
#: read again before it is written anew: a loop-carried `wgmma` accumulator, whose
#: asynchronous chain then accumulates in the loop's own registers, and whose words go
#: back to the loop in them, with no move that would touch them while it is in flight
#: (`conversions/tileas_to_llvm/wgmma.py`).
IN_PLACE_ATTR = "tileir.in_place"


def emit_insertvalue(ctx: PtxContext, op: Operation) -> None:
    """A move into the member's register of the struct, which reuses the container's
    registers when it dies here (a chain of inserts that builds a struct moves each
    member once); or, with `IN_PLACE_ATTR`, the value's register as the member's."""
    assert isinstance(op, llvm.InsertValueOp)
    (index,) = op.position.get_values()
    registers = struct_result_registers(ctx, op, op.container)
    if IN_PLACE_ATTR in op.attributes:
        registers[index] = ctx.r(op.value)
        return
    move(ctx, registers[index], ctx.r(op.value), op.value.type)


def _edge_moves(ctx: PtxContext, target: Block, values: list[SSAValue]) -> None:
    """Block arguments are registers; an edge copies its values into them.  The copy
    goes through fresh registers so that a permutation of the arguments is safe.  A
    value already in its argument's register (a loop-carried value passed on
    unchanged, or accumulated in place, `IN_PLACE_ATTR`) is not copied: no other
    argument's copy writes that register."""
    temps = []
    for arg, v in zip(target.args, values, strict=True):
        if ctx.r(v) == ctx.r(arg):
            continue
        tmp = ctx.regs.new(register_class(v.type))
        kind = "pred" if register_class(v.type) is PRED else f"b{register_class(v.type).bits}"
        ctx.line(f"mov.{kind} {tmp}, {ctx.r(v)};")
        temps.append((arg, tmp, kind))
    for arg, tmp, kind in temps:
        ctx.line(f"mov.{kind} {ctx.r(arg)}, {tmp};")


def emit_br(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, llvm.BrOp)
    target = op.successor
    _edge_moves(ctx, target, list(op.operands))
    ctx.line(f"bra.uni {ctx.labels[target]};")


def emit_cond_br(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, llvm.CondBrOp)
    if not op.then_arguments and not op.else_arguments:
        ctx.line(f"@{ctx.r(op.cond)} bra {ctx.labels[op.then_block]};")
        ctx.line(f"bra.uni {ctx.labels[op.else_block]};")
        return
    false_label = ctx.labels[op.else_block] + f"_from{len(ctx.lines)}"
    ctx.line(f"@!{ctx.r(op.cond)} bra {false_label};")
    _edge_moves(ctx, op.then_block, list(op.then_arguments))
    ctx.line(f"bra {ctx.labels[op.then_block]};")
    ctx.line(f"{false_label}:")
    _edge_moves(ctx, op.else_block, list(op.else_arguments))
    ctx.line(f"bra {ctx.labels[op.else_block]};")


def emit_return(ctx: PtxContext, op: Operation) -> None:
    ctx.line("ret;")


def emit_special_register(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.SpecialRegisterOp)
    ctx.line(f"mov.u32 {ctx.r(op.res)}, %{op.REGISTER};")


def emit_barrier(ctx: PtxContext, op: Operation) -> None:
    ctx.line("bar.sync 0;")


def emit_named_barrier(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.BarrierOp)
    operands = [
        ctx.r(v) if (c := ctx.folded(v)) is None else str(c)
        for v in (op.barrier_id, op.number_of_threads)
    ]
    ctx.line(f"bar.sync {', '.join(operands)};")


# ---------------------------------------------------------------------------
# mbarriers.
# ---------------------------------------------------------------------------

#: The kernel-scope array of the CTA's mbarrier pool.
MBARRIER_POOL_SYMBOL = "__tileir_mbarriers"


def sm_number(arch: str) -> int:
    """`sm_100a` -> 100."""
    return int(arch.removeprefix("sm_").rstrip("abcdefghijklmnopqrstuvwxyz"))


def emit_mbarrier_pool_address(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.MBarrierPoolAddressOp)
    size = op.size
    declared = ctx.shared.get(MBARRIER_POOL_SYMBOL)
    if declared is not None:
        size = max(size, int(declared.rsplit("[", 1)[1].rstrip("];")))
    ctx.shared[MBARRIER_POOL_SYMBOL] = f".shared .align 8 .b64 {MBARRIER_POOL_SYMBOL}[{size}];"
    # A shared pointer is a 32-bit address (`registers.is_shared_pointer`).
    base = ctx.regs.new(B32)
    ctx.line(f"mov.u32 {base}, {MBARRIER_POOL_SYMBOL};")
    ctx.line(f"mad.lo.s32 {ctx.r(op.res)}, {ctx.r(op.slot)}, 8, {base};")


def emit_mbarrier_init(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.MBarrierInitSharedOp)
    guard = f"@{ctx.r(op.predicate)} " if op.predicate is not None else ""
    ctx.line(f"{guard}mbarrier.init.shared.b64 [{ctx.r(op.addr)}], {ctx.r(op.count)};")


def emit_mbarrier_arrive(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.MBarrierArriveSharedOp)
    ctx.line(f"mbarrier.arrive.shared.b64 {ctx.r(op.res)}, [{ctx.r(op.addr)}];")


def emit_mbarrier_test_wait_parity(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.MBarrierTestWaitParitySharedOp)
    done, addr, phase = ctx.r(op.res), ctx.r(op.addr), ctx.r(op.phase)
    ctx.line(f"mbarrier.test_wait.parity.shared.b64 {done}, [{addr}], {phase};")


def emit_mbarrier_try_wait_parity(ctx: PtxContext, op: Operation) -> None:
    """A spin loop in its own scope, so its labels may repeat in a kernel.  sm_80 has
    no `try_wait`; it polls with `test_wait`."""
    assert isinstance(op, nvvm.MBarrierTryWaitParitySharedOp)
    wait = "try_wait" if sm_number(ctx.arch) >= 90 else "test_wait"
    ctx.line("{")
    ctx.line(".reg .pred %p_done;")
    ctx.line("$L_mbarrier_wait:")
    ctx.line(f"mbarrier.{wait}.parity.shared.b64 %p_done, [{ctx.r(op.addr)}], {ctx.r(op.phase)};")
    ctx.line("@%p_done bra.uni $L_mbarrier_done;")
    ctx.line("bra.uni $L_mbarrier_wait;")
    ctx.line("$L_mbarrier_done:")
    ctx.line("}")


# ---------------------------------------------------------------------------
# Warp shuffles.
# ---------------------------------------------------------------------------


def _bits_immediate(value: int) -> str:
    """A 32-bit mask operand as PTX writes it: `0`, `0x1f`, `0xffffffff`."""
    value &= 0xFFFFFFFF
    return hex(value) if value else "0"


def emit_shfl_sync(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.ShflSyncOp)
    offset = ctx.folded(op.offset)
    clamp = ctx.folded(op.mask_and_clamp)
    mask = ctx.folded(op.thread_mask)
    ctx.line(
        f"shfl.sync.{op.kind.data}.b32 {ctx.r(op.res)}, {ctx.r(op.val)}, "
        f"{ctx.r(op.offset) if offset is None else offset}, "
        f"{ctx.r(op.mask_and_clamp) if clamp is None else _bits_immediate(clamp)}, "
        f"{ctx.r(op.thread_mask) if mask is None else _bits_immediate(mask)};"
    )


# ---------------------------------------------------------------------------
# Warp-level matrix multiply.
# ---------------------------------------------------------------------------


def _result_registers(ctx: PtxContext, value: SSAValue) -> list[str]:
    """The registers of a result: one, or one per member of a struct."""
    if isinstance(value.type, llvm.LLVMStructType):
        return ctx.regs.struct_of(value)
    return [ctx.r(value)]


def _vector(registers: list[str]) -> str:
    return "{" + ", ".join(registers) + "}"


def emit_ldmatrix(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.LdMatrixOp)
    outs = _result_registers(ctx, op.res)
    trans = ".trans" if op.layout.data == "col" else ""
    ctx.line(
        f"ldmatrix.sync.aligned.m8n8.x{op.count}{trans}.shared.b16 "
        f"{_vector(outs)}, [{ctx.r(op.ptr)}];"
    )


def emit_mma_sync(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.MmaSyncOp)
    outs = _result_registers(ctx, op.res)
    m, n, k = op.mnk
    acc = op.accumulatorPtxType.data
    a_type, b_type = op.multiplicandAPtxType.data, op.multiplicandBPtxType.data
    groups = [[ctx.r(v) for v in group] for group in (op.operandA, op.operandB, op.operandC)]
    ctx.line(
        f"mma.sync.aligned.m{m}n{n}k{k}.{op.layoutA.data}.{op.layoutB.data}"
        f".{acc}.{a_type}.{b_type}.{acc} "
        + ", ".join(_vector(group) for group in [outs, *groups])
        + ";"
    )


def emit_fence_proxy(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.FenceProxyOp)
    ctx.line(f"fence.proxy.{op.kind.data}::{op.space.data};")


# ---------------------------------------------------------------------------
# Warpgroup matrix multiply.
# ---------------------------------------------------------------------------


def emit_wgmma_mma_async(ctx: PtxContext, op: Operation) -> None:
    """D's registers are C's when C dies here, so that a chain of K steps (and the
    moves that built C before `wgmma.fence`) accumulate in the same registers, as the
    instruction does; the operands after the descriptors are immediates: scale-d, then
    (floats) the operand scales and (16-bit) the transposes."""
    assert isinstance(op, nvvm.WgmmaMmaAsyncOp)
    outs = struct_result_registers(ctx, op, op.inouts)
    m, n, k = op.mnk
    a, b, d = op.typeA.data, op.typeB.data, op.typeD.data
    immediates = [int(op.scaleD.data == "one")]
    if d != "s32":
        immediates += [-1 if op.scaleA.data == "neg" else 1, -1 if op.scaleB.data == "neg" else 1]
    in_registers = isinstance(op.descriptorA.type, llvm.LLVMStructType)
    if k == 16:
        # A in registers has no transpose flag, only B's.
        immediates += [] if in_registers else [int(op.layoutA.data == "col")]
        immediates += [int(op.layoutB.data == "row")]
    a = _vector(ctx.regs.struct_of(op.descriptorA)) if in_registers else ctx.r(op.descriptorA)
    ctx.line(
        f"wgmma.mma_async.sync.aligned.m{m}n{n}k{k}.{d}.{op.typeA.data}.{b} {_vector(outs)}, "
        f"{a}, {ctx.r(op.descriptorB)}, " + ", ".join(str(i) for i in immediates) + ";"
    )


def emit_wgmma_fence(ctx: PtxContext, op: Operation) -> None:
    ctx.line("wgmma.fence.sync.aligned;")


def emit_wgmma_commit_group(ctx: PtxContext, op: Operation) -> None:
    ctx.line("wgmma.commit_group.sync.aligned;")


def emit_wgmma_wait_group(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.WgmmaWaitGroupSyncOp)
    ctx.line(f"wgmma.wait_group.sync.aligned {op.group.value.data};")


def emit_cp_async_commit_group(ctx: PtxContext, op: Operation) -> None:
    ctx.line("cp.async.commit_group;")


def emit_cp_async_wait_group(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.CpAsyncWaitGroupOp)
    n = op.n.value.data
    ctx.line("cp.async.wait_all;" if n == 0 else f"cp.async.wait_group {n};")


def emit_griddepcontrol(ctx: PtxContext, op: Operation) -> None:
    assert isinstance(op, nvvm.GriddepcontrolOp)
    ctx.line(f"griddepcontrol.{op.kind.data};")


EMITTERS: dict[type[Operation], Emitter] = {
    llvm.ConstantOp: emit_constant,
    llvm.AddOp: _int_binary("add.s{w}", "xor"),
    llvm.SubOp: _int_binary("sub.s{w}", "xor"),
    llvm.MulOp: emit_mul,
    llvm.AndOp: _int_binary("and.b{w}", "and", normalize=False),
    llvm.OrOp: _int_binary("or.b{w}", "or", normalize=False),
    llvm.XOrOp: _int_binary("xor.b{w}", "xor", normalize=False),
    llvm.SDivOp: _int_binary("div.s{w}"),
    llvm.SRemOp: _int_binary("rem.s{w}"),
    llvm.UDivOp: _unsigned_binary("div.u{w}"),
    llvm.URemOp: _unsigned_binary("rem.u{w}"),
    llvm.ShlOp: _shift("shl.b{w}"),
    llvm.AShrOp: _shift("shr.s{w}"),
    llvm.LShrOp: _shift("shr.u{w}", unsigned_source=True),
    llvm.ICmpOp: emit_icmp,
    llvm.SelectOp: emit_select,
    llvm.SExtOp: emit_int_cast("sext"),
    llvm.ZExtOp: emit_int_cast("zext"),
    llvm.TruncOp: emit_int_cast("trunc"),
    llvm.FAddOp: _float_binary("add.rn"),
    llvm.FSubOp: _float_binary("sub.rn"),
    llvm.FMulOp: _float_binary("mul.rn"),
    llvm.FDivOp: _float_binary("div.rn"),
    llvm.FNegOp: emit_fneg,
    llvm.FCmpOp: emit_fcmp,
    llvm.FPExtOp: emit_fpext,
    llvm.FPTruncOp: emit_fptrunc,
    llvm.SIToFPOp: emit_sitofp,
    llvm.BitcastOp: emit_bitcast,
    llvm.GEPOp: emit_gep,
    llvm.IntToPtrOp: emit_pointer_cast,
    llvm.PtrToIntOp: emit_pointer_cast,
    llvm.LoadOp: emit_load,
    llvm.StoreOp: emit_store,
    llvm.CallIntrinsicOp: emit_intrinsic,
    llvm.InlineAsmOp: emit_inline_asm,
    llvm.ExtractValueOp: emit_extractvalue,
    llvm.InsertValueOp: emit_insertvalue,
    llvm.InsertElementOp: emit_insertelement,
    llvm.UndefOp: emit_undef,
    llvm.ReturnOp: emit_return,
    llvm.BrOp: emit_br,
    llvm.CondBrOp: emit_cond_br,
    nvvm.Barrier0Op: emit_barrier,
    nvvm.BarrierOp: emit_named_barrier,
    nvvm.MBarrierPoolAddressOp: emit_mbarrier_pool_address,
    nvvm.MBarrierInitSharedOp: emit_mbarrier_init,
    nvvm.MBarrierArriveSharedOp: emit_mbarrier_arrive,
    nvvm.MBarrierTestWaitParitySharedOp: emit_mbarrier_test_wait_parity,
    nvvm.MBarrierTryWaitParitySharedOp: emit_mbarrier_try_wait_parity,
    nvvm.ShflSyncOp: emit_shfl_sync,
    nvvm.LdMatrixOp: emit_ldmatrix,
    nvvm.MmaSyncOp: emit_mma_sync,
    nvvm.FenceProxyOp: emit_fence_proxy,
    nvvm.WgmmaFenceAlignedOp: emit_wgmma_fence,
    nvvm.WgmmaMmaAsyncOp: emit_wgmma_mma_async,
    nvvm.WgmmaGroupSyncAlignedOp: emit_wgmma_commit_group,
    nvvm.WgmmaWaitGroupSyncOp: emit_wgmma_wait_group,
    nvvm.GriddepcontrolOp: emit_griddepcontrol,
    nvvm.CpAsyncCommitGroupOp: emit_cp_async_commit_group,
    nvvm.CpAsyncWaitGroupOp: emit_cp_async_wait_group,
    **{cls: emit_special_register for cls in nvvm.SPECIAL_REGISTERS},
}


def emit(ctx: PtxContext, op: Operation) -> None:
    emitter = EMITTERS.get(type(op))
    if emitter is None:
        raise not_supported(op, "the ptx target cannot print it")
    emitter(ctx, op)


_ = _typed
