"""cuda_tile's debugging ops on the GPU: `print_tko` (printf) and `assert`.

`print_tko` becomes what CUDA's `printf` compiles to: a call of the CUDA runtime's
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

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import linear_layout
from tileir.conversions.tileas_to_llvm.patterns import (
    TilePattern,
    _token_placeholder,  # pyright: ignore[reportPrivateUsage]
)
from tileir.diagnostics import location_of, not_supported
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.nv_tileas.layouts import LinearLayout

#: The conversions the interpreter understands (tileir/interpreter/control.py).
_SPEC = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfFgGaAcsp%])")

VPRINTF = (
    ".extern .func (.param .b32 func_retval0) vprintf "
    "(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);"
)
ASSERTFAIL = (
    ".extern .func __assertfail (.param .b64 __assertfail_param_0, "
    ".param .b64 __assertfail_param_1, .param .b32 __assertfail_param_2, "
    ".param .b64 __assertfail_param_3, .param .b64 __assertfail_param_4);"
)


def ptx_bytes(text: str) -> tuple[int, str]:
    """(size, initializer) of a NUL-terminated UTF-8 `.b8` array."""
    data = text.encode() + b"\0"
    return len(data), "{" + ", ".join(str(b) for b in data) + "}"


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
            raise not_supported(op, "'*' widths and precisions in a print format")
        if conv == "s":
            raise not_supported(op, "'%s' in a print format (there are no strings to print)")
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
            raise not_supported(op, f"'%{conv}' of a floating-point argument in a print format")
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


def vprintf_asm(fmt: str, values: Sequence[SSAValue], predicated: bool) -> tuple[str, str]:
    """(template, constraints) of one vprintf call; operand 0 is the predicate when
    `predicated`, the values follow."""
    first = 1 if predicated else 0
    size, init = ptx_bytes(fmt)
    lines = ["{", f".global .align 1 .b8 __tileir_format[{size}] = {init};"]
    lines += [".reg .b64 %tileir_fmt, %tileir_args;"]
    constraints = ["b"] if predicated else []
    offset = 0
    stores: list[str] = []
    for i, v in enumerate(values):
        constraint, kind, nbytes = _register_class(v)
        constraints.append(constraint)
        offset = (offset + nbytes - 1) // nbytes * nbytes
        stores.append(f"st.local.{kind} [__tileir_buffer+{offset}], ${first + i};")
        offset += nbytes
    if values:
        lines.append(f".local .align 8 .b8 __tileir_buffer[{offset}];")
        lines += stores
        lines += [
            "mov.u64 %tileir_args, __tileir_buffer;",
            "cvta.local.u64 %tileir_args, %tileir_args;",
        ]
    else:
        lines.append("mov.u64 %tileir_args, 0;")
    lines += ["mov.u64 %tileir_fmt, __tileir_format;", "cvta.global.u64 %tileir_fmt, %tileir_fmt;"]
    lines += [VPRINTF, ".param .b64 param0;", "st.param.b64 [param0], %tileir_fmt;"]
    lines += [".param .b64 param1;", "st.param.b64 [param1], %tileir_args;"]
    lines += [".param .b32 retval0;"]
    guard = "@$0 " if predicated else ""
    # Not `call.uni`: the print may sit in divergent control flow.
    lines.append(f"{guard}call (retval0), vprintf, (param0, param1);")
    lines.append("}")  # vprintf's result (the length printed) is not read
    return "\n".join(lines), ",".join(constraints)


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
            raise not_supported(op, "tile arguments of one print with different shapes or layouts")
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
    def match_and_rewrite(self, op: ct.PrintTkoOp, rewriter: PatternRewriter) -> None:
        args = list(op.args)
        fmt, kinds = rewrite_format(op, op.format, args)
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
            template, constraints = vprintf_asm(fmt, values, owner is not None)
            operands = ([owner] if owner is not None else []) + values
            b.inline_asm(template, constraints, operands, [], side_effects=True)
        rewriter.replace(op, [], [_token_placeholder(rewriter, op)])


def assertfail_asm(message: str, file: str, line: int, function: str) -> str:
    """`__assertfail` then `trap` where operand 0 (the condition) is false."""
    lines = ["{"]
    for name, text in (("message", message), ("file", file), ("function", function)):
        size, init = ptx_bytes(text)
        lines.append(f".global .align 1 .b8 __tileir_{name}[{size}] = {init};")
    lines.append(".reg .b64 %tileir_message, %tileir_file, %tileir_function;")
    for name in ("message", "file", "function"):
        lines.append(f"mov.u64 %tileir_{name}, __tileir_{name};")
        lines.append(f"cvta.global.u64 %tileir_{name}, %tileir_{name};")
    lines.append(ASSERTFAIL)
    params = [
        ("b64", "%tileir_message"),
        ("b64", "%tileir_file"),
        ("b32", str(line)),
        ("b64", "%tileir_function"),
        ("b64", "1"),
    ]
    for i, (kind, value) in enumerate(params):
        lines.append(f".param .{kind} param{i};")
        lines.append(f"st.param.{kind} [param{i}], {value};")
    lines.append("@!$0 call __assertfail, (param0, param1, param2, param3, param4);")
    lines += ["@!$0 trap;", "}"]
    return "\n".join(lines)


class LowerAssert(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.AssertOp, rewriter: PatternRewriter) -> None:
        where = location_of(op)
        fn = op.parent_op()
        while fn is not None and not isinstance(fn, llvm.FuncOp):
            fn = fn.parent_op()
        function = fn.sym_name.data if isinstance(fn, llvm.FuncOp) else "<kernel>"
        template = assertfail_asm(
            op.message.data,
            where.file if where is not None else "<unknown>",
            where.line if where is not None else 0,
            function,
        )
        t = op.condition.type
        conditions = self.ctx.registers_of(op, op.condition)
        if isinstance(t, TensorType):
            conditions = [conditions[r] for r in _distinct_registers(linear_layout(op, t))]
        b = self.builder(rewriter, op)
        for c in conditions:
            b.inline_asm(template, "b", [c], [], side_effects=True)
        rewriter.erase(op)
