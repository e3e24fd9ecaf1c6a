"""Writing a `cuda_tile.module` as `.tileirbc` of a chosen version (13.1 to 13.4).

Sections are written in NVIDIA's order (global, func, constant, debug, type, producer,
string, end); empty constant, debug, global and producer sections are left out.  The
module may hold only entries and globals, and every op must exist in the target
version with the fields it uses; otherwise `EncodeError` says what stands in the way
(`operation 'cuda_tile.atan2' is not available in bytecode version 13.1 (it needs
13.2)`), located at the op.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FunctionType, IntegerAttr, ModuleOp, UnitAttr, UnregisteredOp
from xdsl.ir import Attribute, Operation

from tileir.bytecode.attributes import WriteContext, write_self_contained
from tileir.bytecode.constants import ConstantTableWriter
from tileir.bytecode.container import (
    FLAG_ENTRY,
    FLAG_HINTS,
    Section,
    write_header,
    write_section,
    write_table,
)
from tileir.bytecode.debug_info import DebugInfoWriter, StringInterner
from tileir.bytecode.instructions import BodyWriter, _located
from tileir.bytecode.stream import ByteWriter, EncodeError
from tileir.bytecode.types import TypeTableWriter
from tileir.bytecode.version import NEWEST, V13_3, BytecodeVersion
from tileir.diagnostics import CompileError, location_of
from tileir.dialects.cuda_tile.attributes import (
    OptimizationHintsAttr,
    SymbolVisibility,
    SymbolVisibilityAttr,
)


def op_name(op: Operation) -> str:
    """The op's name (an unregistered op's own name, not `builtin.unregistered`)."""
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def find_kernels_module(module: Operation) -> Operation:
    """The `cuda_tile.module` to write: `module` itself, or the only one inside it."""
    if module.name == "cuda_tile.module":
        return module
    if isinstance(module, ModuleOp):
        found = [op for op in module.body.block.ops if op.name == "cuda_tile.module"]
        others = [op for op in module.body.block.ops if op.name != "cuda_tile.module"]
        if len(found) == 1 and not others:
            return found[0]
        if not found:
            raise EncodeError("bytecode holds a cuda_tile.module, and this module has none")
        raise EncodeError(
            "bytecode holds exactly one cuda_tile.module, and nothing else; this module has "
            f"{len(found)} cuda_tile.module op(s) and {len(others)} other op(s)"
        )
    raise EncodeError(f"'{module.name}' cannot be written as bytecode; give a cuda_tile.module")


#: The ops a `cuda_tile.module` may hold in bytecode (NVIDIA's writer: functions and
#: globals).
MODULE_BODY_OPS = ("cuda_tile.entry", "cuda_tile.global", "cuda_tile.testing$func")


def check_self_contained(kernels: Operation) -> None:
    """What NVIDIA's writer checks before it writes a byte, worded as it words it: the
    module holds only functions and globals, and every op inside is a cuda_tile op.
    The error is at the module, after a remark at the op in the way (`invalid op:`)."""
    for op in (op for region in kernels.regions for block in region.blocks for op in block.ops):
        if op_name(op) not in MODULE_BODY_OPS:
            raise _module_error(kernels, op, "only function and global ops are allowed in the body")
    pending = [op for region in kernels.regions for block in region.blocks for op in block.ops]
    while pending:
        op = pending.pop()
        if not op_name(op).startswith("cuda_tile."):
            raise _module_error(kernels, op, "only ops from the 'cuda_tile' dialect are allowed")
        pending.extend(
            inner for region in op.regions for block in region.blocks for inner in block.ops
        )


def _module_error(kernels: Operation, op: Operation, message: str) -> EncodeError:
    error = EncodeError(f"'{kernels.name}' op {message}", location_of(kernels))
    remark = CompileError(f"invalid op: {op_name(op)}", location_of(op))
    object.__setattr__(remark, "severity", "remark")
    # The diagnostics in MLIR's order (`--verify-diagnostics` reads `errors`).
    error.errors = [remark, EncodeError(error.message, error.location)]  # pyright: ignore[reportAttributeAccessIssue]
    return error


def write_bytecode(module: Operation, version: BytecodeVersion = NEWEST) -> bytes:
    """Encode `module` (a builtin module holding one `cuda_tile.module`, or that
    module itself)."""
    kernels = find_kernels_module(module)
    check_self_contained(kernels)
    strings = StringInterner()
    types = TypeTableWriter(version)
    constants = ConstantTableWriter()
    cx = WriteContext(strings, types, constants)
    debug = DebugInfoWriter(strings)

    globals_: list[Operation] = []
    functions: list[Operation] = []
    for op in (op for region in kernels.regions for block in region.blocks for op in block.ops):
        if op_name(op) == "cuda_tile.entry":
            functions.append(op)
        elif op_name(op) == "cuda_tile.global":
            globals_.append(op)
        else:
            raise _located(
                EncodeError(
                    f"'{op.name}' cannot be written to bytecode: a cuda_tile.module may only hold entries and globals"
                ),
                op,
            )

    global_section = _global_section(globals_, cx, version) if globals_ else None
    func_section = _func_section(functions, cx, debug, version)
    debug_section = debug.section()
    producer_section: bytes | None = None
    producer = kernels.properties.get("producer") or kernels.attributes.get("producer")
    if producer is not None and version >= V13_3:
        w = ByteWriter()
        w.varint(strings(str(getattr(producer, "data", ""))))
        producer_section = bytes(w.buf)

    type_w = ByteWriter()
    write_table(type_w, types.items, 4)
    constant_w = ByteWriter()
    write_table(constant_w, constants.items, 8)
    string_w = ByteWriter()
    write_table(string_w, strings.encoded(), 4)

    out = ByteWriter()
    write_header(out, version)
    payloads: dict[Section, tuple[bytes | bytearray | None, int]] = {
        Section.GLOBAL: (global_section, 1),
        Section.FUNC: (func_section, 8),
        Section.CONSTANT: (constant_w.buf if constants.items else None, 8),
        Section.DEBUG: (debug_section, 8),
        Section.TYPE: (type_w.buf, 4),
        Section.PRODUCER: (producer_section, 1),
        Section.STRING: (string_w.buf, 4),
    }
    for section, (payload, alignment) in payloads.items():
        if payload is not None:
            write_section(out, section, payload, alignment)
    out.u8(Section.END)
    return bytes(out.buf)


def _func_section(
    functions: list[Operation], cx: WriteContext, debug: DebugInfoWriter, version: BytecodeVersion
) -> bytes:
    w = ByteWriter()
    w.varint(len(functions))
    for fn in functions:
        try:
            _function(w, fn, cx, debug, version)
        except EncodeError as e:
            raise _located(e, fn) from None
    w.pad(8)
    return bytes(w.buf)


def _function(
    w: ByteWriter, fn: Operation, cx: WriteContext, debug: DebugInfoWriter, version: BytecodeVersion
) -> None:
    name = fn.properties.get("sym_name")
    signature = fn.properties.get("function_type")
    if not isinstance(signature, FunctionType) or name is None:
        raise EncodeError(f"'{fn.name}' lacks its name or function type")
    symbol = str(getattr(name, "data", name))
    hints = fn.properties.get("optimization_hints")
    if hints is not None and not isinstance(hints, OptimizationHintsAttr):
        raise EncodeError(f"unexpected optimization hints {hints}")
    body = fn.regions[0]
    if len(body.blocks) != 1:
        raise EncodeError(f"entry @{symbol} must have exactly one block to be written to bytecode")
    block = body.blocks.first
    assert block is not None

    w.varint(cx.strings(symbol))
    w.varint(cx.types(signature))
    w.u8(FLAG_ENTRY | (FLAG_HINTS if hints is not None else 0))
    w.varint(debug.begin_function(symbol, fn.location))
    if hints is not None:
        write_self_contained(w, hints, cx)
    writer = BodyWriter(cx, version, debug)
    writer.define(block.args)
    body_w = ByteWriter()
    writer.write_ops(body_w, list(block.ops))
    w.varint(len(body_w.buf))
    w.raw(body_w.buf)


def _global_section(globals_: list[Operation], cx: WriteContext, version: BytecodeVersion) -> bytes:
    w = ByteWriter()
    w.varint(len(globals_))
    for g in globals_:
        try:
            _global(w, g, cx, version)
        except EncodeError as e:
            raise _located(e, g) from None
    return bytes(w.buf)


def _prop(op: Operation, name: str) -> Attribute | None:
    return op.properties.get(name) or op.attributes.get(name)


def _global(w: ByteWriter, g: Operation, cx: WriteContext, version: BytecodeVersion) -> None:
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    from tileir.dialects.cuda_tile.types import TileType

    name = _prop(g, "sym_name")
    value = _prop(g, "value")
    if name is None or not isinstance(value, DenseIntOrFPElementsAttr):
        raise EncodeError("a global needs a name and a dense value")
    symbol = str(getattr(name, "data", name))
    alignment = _prop(g, "alignment")
    visibility = _prop(g, "symbol_visibility")
    private = (
        isinstance(visibility, SymbolVisibilityAttr) and visibility.data == SymbolVisibility.PRIVATE
    )
    constant = isinstance(_prop(g, "constant"), UnitAttr)
    if version < V13_3 and private:
        raise EncodeError(
            f"global `{symbol}` uses non-public symbol visibility, which cannot be encoded in "
            f"bytecode version {version} (requires bytecode 13.3+)"
        )
    if version < V13_3 and constant:
        raise EncodeError(
            f"constant global `{symbol}` cannot be encoded in bytecode version {version} "
            "(the `constant` attribute requires bytecode 13.3+)"
        )
    w.varint(cx.strings(symbol))
    w.varint(cx.types(TileType(value.get_shape(), value.get_element_type())))
    w.varint(cx.constants(value))
    w.varint(alignment.value.data if isinstance(alignment, IntegerAttr) else 0)
    if version >= V13_3:
        w.varint(1 if private else 0)
        w.varint(1 if constant else 0)
