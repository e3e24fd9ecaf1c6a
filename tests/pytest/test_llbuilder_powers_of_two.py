"""`LLBuilder.udiv` and `urem` by a constant power of two: a shift and a mask, which
ptxas 13 does not make of `div.u32` / `rem.u32` by a register it knows holds 8192 (a
ring's slot number under mbarriers: 14 SASS instructions a copy, `I2F.U32.RP`,
`MUFU.RCP`, ...).  Other divisors keep the division, except in `udiv_exact` of a known
multiple (a slot's offset): a shift and a multiply by the odd part's inverse."""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Block, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.builder import LLBuilder


def _builder() -> tuple[LLBuilder, SSAValue]:
    block = Block(arg_types=[i32])
    anchor = llvm.UnreachableOp()
    block.add_op(anchor)
    return LLBuilder(PatternRewriter(anchor), InsertPoint.before(anchor)), block.args[0]


def _constant(value: SSAValue) -> int:
    op = value.owner
    assert isinstance(op, llvm.ConstantOp) and isinstance(op.value, IntegerAttr)
    return op.value.value.data


def test_powers_of_two_shift_and_mask() -> None:
    ll, x = _builder()
    q = ll.udiv(x, ll.const(8192, i32))
    assert isinstance(q.owner, llvm.LShrOp) and _constant(q.owner.operands[1]) == 13
    r = ll.urem(x, ll.const(64, i32))
    assert isinstance(r.owner, llvm.AndOp) and _constant(r.owner.operands[1]) == 63
    one = ll.udiv(x, ll.const(1, i32))
    assert isinstance(one.owner, llvm.LShrOp) and _constant(one.owner.operands[1]) == 0


def test_other_divisors_divide() -> None:
    ll, x = _builder()
    assert isinstance(ll.udiv(x, ll.const(3, i32)).owner, llvm.UDivOp)
    assert isinstance(ll.urem(x, ll.const(3, i32)).owner, llvm.URemOp)
    # 2**31 is negative as an i32 constant: not taken for a power of two.
    assert isinstance(ll.udiv(x, ll.const(1 << 31, i32)).owner, llvm.UDivOp)
    assert isinstance(ll.udiv(x, x).owner, llvm.UDivOp)


def _exact(divisor: int, multiple: int) -> int:
    """`udiv_exact(multiple, divisor)` evaluated as its ops compute it (32 bits)."""
    ll, x = _builder()
    q = ll.udiv_exact(x, divisor)
    value = multiple
    ops: list[llvm.LShrOp | llvm.MulOp] = []
    v = q
    while v is not x:
        owner = v.owner
        assert isinstance(owner, llvm.LShrOp | llvm.MulOp), owner
        ops.append(owner)
        v = owner.operands[0]
    for op in reversed(ops):
        k = _constant(op.operands[1]) & 0xFFFFFFFF
        value = value >> k if isinstance(op, llvm.LShrOp) else (value * k) & 0xFFFFFFFF
    return value


def test_exact_division_of_slot_offsets() -> None:
    """A ring's slot number (`Ring.slot_number`): `slot - base` is a multiple of the
    slot's bytes, divided by a shift and a multiply by the odd part's inverse, no
    division; each multiple gives its quotient, and a non-multiple would not (the
    rule is only for multiples)."""
    ll, x = _builder()
    q = ll.udiv_exact(x, 5120)  # 2 x 32 x 40 f16: 5 * 2^10
    assert isinstance(q.owner, llvm.MulOp) and isinstance(q.owner.operands[0].owner, llvm.LShrOp)
    assert isinstance(ll.udiv_exact(x, 8192).owner, llvm.LShrOp)
    for divisor in (5120, 3, 24576, 8192, 1, 6144 * 7):
        for n in (0, 1, 2, 3, 7, 100):
            assert _exact(divisor, n * divisor) == n
    assert _exact(5120, 6144) != 1  # 1.2 slots: not 1 (nor a small number)
