"""`PtxAsm` (tileir/backend/ptx/asm_builder.py): the one writer of inline PTX.

Its operands are numbered as LLVM numbers inline-asm operands (outputs, then inputs),
whatever the order they were made in; constraints follow the types; instructions,
guards, declarations and the `{ }` scope print as PTX.  And no other module of the
compiler writes an `llvm.inline_asm`: `LLBuilder.asm` is the only way to one."""

from __future__ import annotations

import re
from pathlib import Path

from xdsl.dialects import test
from xdsl.dialects.builtin import IntAttr, f32, f64, i1, i8, i16, i32, i64
from xdsl.dialects.llvm import LLVMPointerType

from tileir.backend.ptx import asm_builder as ptx

ROOT = Path(__file__).resolve().parents[2] / "tileir"


def values(*types):
    return test.TestOp(result_types=list(types)).results


def test_operands_number_outputs_first_and_take_their_constraints() -> None:
    pred, word, addr = values(i1, i32, LLVMPointerType(IntAttr(1)))
    asm = ptx.PtxAsm()
    guard = asm.input(pred)
    old = asm.output(f32)
    at = asm.input(addr)
    asm.instr(ptx.opcode("mov", "b32"), old, ptx.immediate(0))
    asm.instr(
        ptx.opcode("atom", "global", "add", "f32"),
        old,
        ptx.address(at),
        asm.input(word),
        guard=guard,
    )
    assert asm.template == "{\nmov.b32 $0, 0;\n@$1 atom.global.add.f32 $0, [$2], $3;\n}"
    assert asm.constraints == "=f,b,l,r"
    assert asm.arguments == [pred, addr, word]
    assert asm.result_types == [f32]


def test_constraints_by_type() -> None:
    shared = LLVMPointerType(IntAttr(3))
    letters = [ptx.constraint_of(t) for t in (i1, i8, i16, i32, i64, f32, f64, shared)]
    assert letters == ["b", "h", "h", "r", "l", "f", "d", "r"]


def test_scope_registers_declarations_and_guards() -> None:
    (cond,) = values(i1)
    asm = ptx.PtxAsm(scoped=False)
    c = asm.input(cond)
    asm.declare_bytes("global", "msg", 3, 1, b"hi\0")
    (reg,) = asm.register("b64", "%m")
    asm.declare_function("f", [ptx.param("b64", "f_param_0")], ptx.param("b32", "func_retval0"))
    asm.instr(ptx.opcode("st", "local", "u32"), ptx.address("buf", 0), reg)
    asm.instr("call", "f", ptx.parenthesized(["param0"]), guard=c, negate=True)
    asm.instr("trap", guard=c, negate=True)
    assert asm.template.split("\n") == [
        ".global .align 1 .b8 msg[3] = {104, 105, 0};",
        ".reg .b64 %m;",
        ".extern .func (.param .b32 func_retval0) f (.param .b64 f_param_0);",
        "st.local.u32 [buf+0], %m;",
        "@!$0 call f, (param0);",
        "@!$0 trap;",
    ]


def test_operand_helpers() -> None:
    assert ptx.vector(["a"]) == "a"
    assert ptx.vector(["a", "b"]) == "{a, b}"
    assert ptx.address("r") == "[r]" and ptx.address("r", 8) == "[r+8]"
    assert ptx.immediate(-1, 16) == "0xFFFF" and ptx.immediate(5) == "5"
    assert ptx.opcode("ld", "global", ptx.lanes(1), ptx.typed("b", 32)) == "ld.global.b32"
    assert ptx.opcode("ld", "global", ptx.lanes(4), ptx.typed("b", 32)) == "ld.global.v4.b32"


def test_inline_asm_comes_only_from_the_builder() -> None:
    """Only `LLBuilder` (conversions/tileas_to_llvm/builder.py) creates
    `llvm.InlineAsmOp`, through `LLBuilder.asm`; the `ptx` target reads them."""
    makers = []
    for path in ROOT.rglob("*.py"):
        text = path.read_text()
        if re.search(r"InlineAsmOp\(|\W_inline_asm\(|\.inline_asm\(", text):
            makers.append(path.relative_to(ROOT).as_posix())
    assert sorted(makers) == ["conversions/tileas_to_llvm/builder.py"], makers
