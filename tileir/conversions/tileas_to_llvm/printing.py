"""The debugging ops on the GPU: `nv_tileas.print` (printf) and `nv_tileas.assert`
(cuda_tile's `print_tko` and `assert`).

`print` becomes what CUDA's `printf` compiles to: a call of the CUDA runtime's
device function `vprintf(format, arguments)`.  The format is a NUL-terminated byte
array in `.global` memory; the arguments are packed into a `.local` buffer, each at an
offset aligned to its own size (C's variadic promotions: integers of 32 bits or fewer
as 32-bit values, every float as an f64).  The format is rewritten so that each
conversion reads exactly what was stored: an integer argument of 64 bits gets the
`ll` length modifier, a narrower one none (`h`/`hh` are dropped: the interpreter prints
the argument's full value), `%a`/`%A`/`%F` become `%e`/`%E`/`%f` as in
`tileir.interpreter`, and a conversion left without an argument is printed literally.

A tile argument prints once per element, like the interpreter (which prints the
elements in row-major order; on the GPU each thread prints the elements it holds, so
lines from different threads interleave in no fixed order).  Copies of a replicated
tile print only from the thread that owns the element; a print of scalars prints from
thread 0 of the block.  Tile arguments of one print must share their shape and layout.

`assert` calls `__assertfail(message, file, line, function, 1)` in each thread that
holds a false element, then `trap`s: the CUDA runtime prints
`file:line: function: block: [...], thread: [...] Assertion `message` failed.` and the
launch fails with `cudaErrorAssert`, as a CUDA C++ `assert` does.

Both are inline PTX blocks whose declarations (`.global` string, `.local` buffer,
`.extern .func`) are scoped to the block, so several prints in one kernel never clash.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    TensorType,
    f32,
    f64,
    i32,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import linear_layout
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.diagnostics import location_of, not_supported
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import LinearLayout

#: The conversions the interpreter understands (tileir/interpreter/control.py).
_SPEC = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfFgGaAcsp%])")

#: The CUDA runtime's device functions a print or an assert calls:
#: `vprintf(format, arguments)` and `__assertfail(message, file, line, function, size)`.
VPRINTF_PARAMS = ("b64", "b64")
ASSERTFAIL_PARAMS = ("b64", "b64", "b32", "b64", "b64")


def _declare_function(asm: ptx.PtxAsm, name: str, params: Sequence[str], returns: bool) -> None:
    asm.declare_function(
        name,
        [ptx.param(t, f"{name}_param_{i}") for i, t in enumerate(params)],
        ptx.param("b32", "func_retval0") if returns else None,
    )


def c_string(text: str) -> bytes:
    """The bytes of a NUL-terminated UTF-8 string."""
    return text.encode() + b"\0"


def rewrite_format(op: Operation, fmt: str, args: Sequence[SSAValue]) -> tuple[str, list[str]]:
    """The format vprintf should see and, per argument used, how to pass it:
    `s32`/`u32` (an int widened to 32 bits), `s64`/`u64`, `f64`, `char`, `ptr`."""
    kinds: list[str] = []
    out: list[str] = []
    pos = 0
    used = 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        flags, width, precision, _, conv = m.groups()
        if conv == "%":
            out.append("%%")
            continue
        if used >= len(args):
            out.append(m.group(0).replace("%", "%%"))
            continue
        if width == "*" or precision == "*":
            raise not_supported(
                op,
                "'*' widths and precisions in a print format",
                instead="write the width and precision into the format ('%8.3f')",
            )
        if conv == "s":
            raise not_supported(
                op,
                "'%s' in a print format (there are no strings to print)",
                instead="write the text into the format itself",
            )
        arg = args[used]
        used += 1
        el = element(arg.type)
        is_float = isinstance(el, Float16Type | BFloat16Type | Float32Type | Float64Type)
        spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
        if conv in "eEfFgGaA":
            kinds.append("f64")
            out.append(spec + {"a": "e", "A": "E", "F": "f"}.get(conv, conv))
            continue
        if is_float:
            raise not_supported(
                op,
                f"'%{conv}' of a floating-point argument in a print format",
                instead="print a float with %f, %e or %g, or convert it to an integer first",
            )
        bits = 64 if isinstance(el, llvm.LLVMPointerType) else int_width(el)
        if conv == "c":
            kinds.append("char")
            out.append(spec + "c")
        elif conv == "p":
            kinds.append("ptr")
            out.append(spec + "p")
        else:
            signed = conv in "di"
            wide = bits > 32
            kinds.append(("s" if signed else "u") + ("64" if wide else "32"))
            out.append(spec + ("ll" if wide else "") + conv)
    out.append(fmt[pos:])
    return "".join(out), kinds


def element(t: object) -> object:
    return t.element_type if isinstance(t, TensorType) else t  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType]


def int_width(t: object) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    return 64


def convert(b: LLBuilder, value: SSAValue, kind: str) -> SSAValue:
    """One print argument in the form vprintf reads it."""
    t = value.type
    if kind == "f64":
        if isinstance(t, IntegerType):
            return b.sitofp(value, f64)
        if isinstance(t, Float16Type | BFloat16Type):
            value = b.fpext(value, f32)
        return value if isinstance(value.type, Float64Type) else b.fpext(value, f64)
    if isinstance(t, llvm.LLVMPointerType):
        return b.v(llvm.PtrToIntOp(value, i64)) if kind != "ptr" else value
    assert isinstance(t, IntegerType)
    if kind in ("s64", "u64", "ptr"):
        return b.int_cast(value, i64, signed=kind == "s64")
    return b.int_cast(value, i32, signed=kind != "u32")


def _register_class(value: SSAValue) -> tuple[str, str, int]:
    """(constraint, st.local type, size) of a converted argument."""
    t = value.type
    if isinstance(t, Float64Type):
        return "d", "f64", 8
    if isinstance(t, llvm.LLVMPointerType) or (isinstance(t, IntegerType) and t.width.data == 64):
        return "l", "u64", 8
    return "r", "u32", 4


def vprintf_asm(fmt: str, values: Sequence[SSAValue], predicate: SSAValue | None) -> ptx.PtxAsm:
    """One vprintf call of `values` (only where `predicate` holds, if given): the format
    as a `.global` string, the values in a `.local` buffer (each at its alignment)."""
    asm = ptx.PtxAsm()
    guard = asm.input(predicate) if predicate is not None else None
    text = c_string(fmt)
    asm.declare_bytes("global", "__tileir_format", len(text), 1, text)
    fmt_reg, args_reg = asm.register("b64", "%tileir_fmt", "%tileir_args")
    offset = 0
    stores: list[tuple[str, int, ptx.Operand]] = []
    for v in values:
        constraint, kind, nbytes = _register_class(v)
        offset = (offset + nbytes - 1) // nbytes * nbytes
        stores.append((kind, offset, asm.input(v, constraint)))
        offset += nbytes
    if values:
        buffer = asm.declare_bytes("local", "__tileir_buffer", offset, 8)
        for kind, at, operand in stores:
            asm.instr(ptx.opcode("st", "local", kind), ptx.address(buffer, at), operand)
        asm.instr("mov.u64", args_reg, buffer)
        asm.instr("cvta.local.u64", args_reg, args_reg)
    else:
        asm.instr("mov.u64", args_reg, ptx.immediate(0))
    asm.instr("mov.u64", fmt_reg, "__tileir_format")
    asm.instr("cvta.global.u64", fmt_reg, fmt_reg)
    _declare_function(asm, "vprintf", VPRINTF_PARAMS, returns=True)
    for i, value in enumerate((fmt_reg, args_reg)):
        asm.declare(ptx.param("b64", f"param{i}"))
        asm.instr("st.param.b64", ptx.address(f"param{i}"), value)
    asm.declare(ptx.param("b32", "retval0"))
    # Not `call.uni`: the print may sit in divergent control flow.  Its result (the
    # length printed) is not read.
    asm.instr(
        "call",
        ptx.parenthesized(["retval0"]),
        "vprintf",
        ptx.parenthesized(["param0", "param1"]),
        guard=guard,
    )
    return asm


def _layout_of(op: Operation, values: Sequence[SSAValue]) -> LinearLayout | None:
    layout: LinearLayout | None = None
    shape = None
    for v in values:
        if not isinstance(v.type, TensorType):
            continue
        this = linear_layout(op, v.type)
        if layout is None:
            layout, shape = this, v.type.get_shape()
        elif this != layout or v.type.get_shape() != shape:
            raise not_supported(
                op,
                "tile arguments of one print with different shapes or layouts",
                instead="print tiles of different shapes with one ct.printf each",
            )
    return layout


def _distinct_registers(layout: LinearLayout) -> list[int]:
    """Register indices holding distinct elements (a zero register basis copies)."""
    seen: set[tuple[int, ...]] = set()
    out: list[int] = []
    for r in range(layout.num_registers):
        c = layout.register_coord(r)
        if c not in seen:
            seen.add(c)
            out.append(r)
    return out


class LowerPrint(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.PrintOp, rewriter: PatternRewriter) -> None:
        args = list(op.args)
        fmt, kinds = rewrite_format(op, op.format.data, args)
        layout = _layout_of(op, args)
        state = self.ctx.function_state(op)
        if layout is None:
            owner: SSAValue | None = state.owner_predicate_all(rewriter)
            registers = [0]
        else:
            owner = state.owner_predicate(rewriter, layout)
            registers = _distinct_registers(layout)
        regs = [self.ctx.registers_of(op, a) for a in args]
        b = self.builder(rewriter, op)
        for r in registers:
            values = [
                convert(b, (rs[r] if isinstance(a.type, TensorType) else rs[0]), kind)
                for a, rs, kind in zip(args, regs, kinds, strict=False)
            ]
            b.asm(vprintf_asm(fmt, values, owner))
        rewriter.erase(op)


def assertfail_asm(
    condition: SSAValue, message: str, file: str, line: int, function: str
) -> ptx.PtxAsm:
    """`__assertfail` then `trap` where `condition` is false."""
    asm = ptx.PtxAsm()
    guard = asm.input(condition)
    strings = {"message": message, "file": file, "function": function}
    for name, text in strings.items():
        data = c_string(text)
        asm.declare_bytes("global", f"__tileir_{name}", len(data), 1, data)
    registers = asm.register("b64", *(f"%tileir_{name}" for name in strings))
    for name, register in zip(strings, registers, strict=True):
        asm.instr("mov.u64", register, f"__tileir_{name}")
        asm.instr("cvta.global.u64", register, register)
    _declare_function(asm, "__assertfail", ASSERTFAIL_PARAMS, returns=False)
    message_reg, file_reg, function_reg = registers
    arguments = [message_reg, file_reg, ptx.immediate(line), function_reg, ptx.immediate(1)]
    for i, (kind, value) in enumerate(zip(ASSERTFAIL_PARAMS, arguments, strict=True)):
        asm.declare(ptx.param(kind, f"param{i}"))
        asm.instr(ptx.opcode("st", "param", kind), ptx.address(f"param{i}"), value)
    params = ptx.parenthesized([f"param{i}" for i in range(len(arguments))])
    asm.instr("call", "__assertfail", params, guard=guard, negate=True)
    asm.instr("trap", guard=guard, negate=True)
    return asm


class LowerAssert(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.AssertOp, rewriter: PatternRewriter) -> None:
        where = location_of(op)
        fn = op.parent_op()
        while fn is not None and not isinstance(fn, llvm.FuncOp):
            fn = fn.parent_op()
        function = fn.sym_name.data if isinstance(fn, llvm.FuncOp) else "<kernel>"
        t = op.condition.type
        conditions = self.ctx.registers_of(op, op.condition)
        if isinstance(t, TensorType):
            conditions = [conditions[r] for r in _distinct_registers(linear_layout(op, t))]
        b = self.builder(rewriter, op)
        for c in conditions:
            file = where.file if where is not None else "<unknown>"
            line = where.line if where is not None else 0
            b.asm(assertfail_asm(c, op.message.data, file, line, function))
        rewriter.erase(op)
