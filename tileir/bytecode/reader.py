"""Reading a `.tileirbc` file into a builtin module holding `cuda_tile.module @kernels`.

    func section   = count:varint function*
    function       = name:string signature:type flags:u8 location:varint
                     [hints: self-contained optimization_hints] (flags bit 2)
                     body_length:varint body (instructions)
                     flags: bit 1 = entry (kernel), bit 2 = has optimization hints
    global section = count:varint global*
    global         = name:string type constant alignment:varint
                     [visibility:varint constant:varint]  (13.3+)
    producer       = string index (13.3+)

The module name is not stored; like NVIDIA's reader we call it `kernels`.  Globals come
first, then the entries in file order.  Every malformed input raises `BytecodeError`
with the byte offset; the module is verified before it is returned, and a verifier
failure names the offset of the offending op.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
    UnknownLoc,
    UnregisteredOp,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.utils.exceptions import VerifyException

from tileir.bytecode.attributes import ReadContext, read_self_contained
from tileir.bytecode.constants import ConstantTableReader
from tileir.bytecode.container import (
    FLAG_ENTRY,
    FLAG_HINTS,
    FLAG_PRIVATE,
    Section,
    read_container,
    read_table,
)
from tileir.bytecode.debug_info import DebugInfoReader
from tileir.bytecode.instructions import BodyReader, build_op
from tileir.bytecode.optable import BY_NAME
from tileir.bytecode.stream import BytecodeError, BytecodeInternalError, ByteReader
from tileir.bytecode.types import TypeTableReader
from tileir.bytecode.version import V13_3
from tileir.diagnostics import CompileError
from tileir.dialects.cuda_tile.attributes import (
    OptimizationHintsAttr,
    SymbolVisibility,
    SymbolVisibilityAttr,
)


def read_bytecode(
    data: bytes,
    filename: str = "<bytecode>",
    ctx: Context | None = None,
    *,
    allow_unregistered: bool = False,
    verify: bool = True,
) -> ModuleOp:
    """Decode `data`; errors are `BytecodeError`s naming `filename` and the byte offset.

    `allow_unregistered` (tileir-opt's `--allow-unregistered-dialect`) builds ops tileir
    has no class for yet as unregistered ops, which the writer writes back unchanged,
    instead of failing at them.  `verify=False` skips verifying the module."""
    reader = _Reader(bytes(data), ctx, allow_unregistered)
    try:
        module = reader.read(verify)
    except BytecodeError as e:
        raise e.with_filename(filename) from None
    except RecursionError:
        raise BytecodeError(0, "input nested too deeply", filename=filename) from None
    except Exception as e:  # a reader bug: still a diagnostic, never a traceback
        raise BytecodeInternalError(
            0,
            f"internal error while reading bytecode (a tileir bug): {type(e).__name__}: {e}",
            filename=filename,
        ) from e
    for op, at in reader.offsets.items():
        if op.name == "cuda_tile.entry":
            _ENTRY_ORIGINS[op] = (filename, at)
    return module


#: Where each entry read from bytecode starts (file name, byte offset), while the entry
#: lives: a later check that rejects a kernel (a name PTX cannot spell) points at its
#: bytes with it where the file gives the entry no debug location.
_ENTRY_ORIGINS: WeakKeyDictionary[Operation, tuple[str, int]] = WeakKeyDictionary()


def entry_origin(op: Operation) -> tuple[str, int] | None:
    """(file name, byte offset) of an entry read from bytecode; None for others."""
    return _ENTRY_ORIGINS.get(op)


#: The global section's fields, as a row (the section stores them, not an instruction).
GLOBAL_ROW = BY_NAME["global"]


class _Reader:
    def __init__(self, data: bytes, ctx: Context | None, allow_unregistered: bool):
        if ctx is None:
            from tileir.registry import make_context

            ctx = make_context()
        self.data = data
        self.ctx = ctx
        self.allow_unregistered = allow_unregistered
        self.offsets: dict[Operation, int] = {}

    def read(self, verify: bool) -> ModuleOp:
        container = read_container(self.data)
        self.version = container.version
        sections = container.sections
        data = self.data

        self.strings = self._strings(sections[Section.STRING])
        type_items = (
            read_table(sections[Section.TYPE], 4, "type") if Section.TYPE in sections else []
        )
        types = TypeTableReader(data, type_items, self.version, self.ctx)
        constant_items = (
            read_table(sections[Section.CONSTANT], 8, "constant")
            if Section.CONSTANT in sections
            else []
        )
        constants = ConstantTableReader(data, constant_items)
        self.cx = ReadContext(self.strings, types, constants)
        self.debug = DebugInfoReader(data, sections.get(Section.DEBUG), self.strings)

        producer: str | None = None
        if Section.PRODUCER in sections:
            r = sections[Section.PRODUCER]
            producer = self.cx.string(r, "producer")
            self._expect_end(r, "the producer section")

        ops: list[Operation] = []
        if Section.GLOBAL in sections:
            ops += self._globals(sections[Section.GLOBAL])
        ops += self._functions(sections[Section.FUNC])

        module_cls = self.ctx.get_op("cuda_tile.module")
        props: dict[str, Attribute] = {"sym_name": StringAttr("kernels")}
        if producer is not None:
            props["producer"] = StringAttr(producer)
        kernels = module_cls.create(properties=props, regions=[Region(Block(ops))])
        kernels.location = UnknownLoc()
        module = ModuleOp([kernels])
        if verify:
            self._verify(module)
        return module

    def _strings(self, r: ByteReader) -> list[str]:
        strings: list[str] = []
        for start, end in read_table(r, 4, "string", clamp=True):
            try:
                strings.append(self.data[start:end].decode("utf-8"))
            except UnicodeDecodeError as e:
                raise BytecodeError(
                    start + e.start, f"string {len(strings)} is not valid UTF-8", "UTF-8 text"
                ) from None
        return strings

    def _expect_end(self, r: ByteReader, what: str) -> None:
        if not r.at_end():
            raise r.error(
                f"{r.remaining} unexpected bytes at the end of {what}", "the end of the section"
            )

    def _globals(self, r: ByteReader) -> list[Operation]:
        cls = self.ctx.get_optional_op("cuda_tile.global")
        if cls is not None and issubclass(cls, UnregisteredOp):
            cls = None
        if cls is None and self.allow_unregistered:
            cls = UnregisteredOp.with_name("cuda_tile.global")
        n = r.count("number of globals", 4)
        ops: list[Operation] = []
        for _ in range(n):
            at = r.pos
            name = self.cx.string(r, "global name")
            if not name:
                raise BytecodeError(at, "a global with an empty name", "a symbol name")
            type_at = r.pos
            t = self.cx.types.read(r, "global value")
            value = self.cx.constants.read(r, t, "global value")
            alignment = r.varint("global alignment")
            visibility, constant = 0, 0
            if self.version >= V13_3:
                vis_at = r.pos
                visibility = r.varint("global symbol visibility")
                if visibility > 1:
                    raise BytecodeError(
                        vis_at,
                        f"invalid symbol visibility value: {visibility}",
                        "0 (public) or 1 (private)",
                    )
                constant = r.varint("global constant flag")
            if cls is None:
                raise BytecodeError(at, "op 'global' is not supported by tileir yet", "no globals")
            attrs: dict[str, Attribute] = {
                "sym_name": StringAttr(name),
                "value": value,
                "alignment": IntegerAttr(
                    alignment if alignment < 2**63 else alignment - 2**64, i64
                ),
            }
            if self.version >= V13_3:
                # Older bytecode has no visibility: the global keeps none (tileirdisasm
                # then prints `global  @name`, and so does tileir).
                attrs["symbol_visibility"] = SymbolVisibilityAttr(
                    list(SymbolVisibility)[visibility]
                )
            if constant:
                attrs["constant"] = UnitAttr()
            op = build_op(
                cls,
                GLOBAL_ROW,
                self.version,
                type_at,
                [],
                [],
                [],
                attrs,
                set() if alignment else {"alignment"},
                [],
            )
            op.location = UnknownLoc()
            self.offsets[op] = at
            ops.append(op)
        return ops

    def _functions(self, r: ByteReader) -> list[Operation]:
        n = r.count("number of functions", 4)
        ops: list[Operation] = []
        for _ in range(n):
            ops.append(self._function(r))
        return ops

    def _function(self, r: ByteReader) -> Operation:
        at = r.pos
        name = self.cx.string(r, "function name")
        sig_at = r.pos
        signature = self.cx.types.read(r, "function signature")
        if not isinstance(signature, FunctionType):
            raise BytecodeError(
                sig_at, f"function '{name}' has signature {signature}", "a function type"
            )
        flags_at = r.pos
        flags = r.u8("function flags")
        if flags & ~(FLAG_PRIVATE | FLAG_ENTRY | FLAG_HINTS):
            raise BytecodeError(
                flags_at, f"unknown function flags 0x{flags:02x}", "bits 0 to 2 only"
            )
        if not flags & FLAG_ENTRY:
            raise BytecodeError(
                flags_at,
                f"function '{name}' is not an entry (kernel)",
                "entry functions only (flag bit 1)",
            )
        loc_at = r.pos
        cursor = self.debug.cursor(r.varint("function location index"), loc_at)
        hints: Attribute | None = None
        if flags & FLAG_HINTS:
            hints_at = r.pos
            hints = read_self_contained(r, self.cx)
            if not isinstance(hints, OptimizationHintsAttr):
                raise BytecodeError(
                    hints_at,
                    f"function '{name}' has hints {hints}",
                    "an optimization_hints attribute",
                )
        # Checked after the header, as NVIDIA's reader fails first on a bad hints entry
        # (an empty string from a clamped string-table entry: invalid_structure.mlir).
        if not name:
            raise BytecodeError(at, "a function with an empty name", "a symbol name")
        body = r.sub(r.count("function body length"), f"the body of '{name}'")

        location = cursor.next(at, function=True)
        block = Block(arg_types=signature.inputs.data)
        reader = BodyReader(
            self.cx,
            self.ctx,
            self.version,
            cursor,
            self.offsets,
            allow_unregistered=self.allow_unregistered,
        )
        reader.values.extend(block.args)
        reader.read_ops(body, block, None, 0)

        entry_cls = self.ctx.get_op("cuda_tile.entry")
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": signature,
            "arg_attrs": ArrayAttr([DictionaryAttr({}) for _ in signature.inputs.data]),
        }
        if hints is not None:
            props["optimization_hints"] = hints
        entry = entry_cls.create(properties=props, regions=[Region(block)])
        entry.location = location
        self.offsets[entry] = at
        return entry

    def _verify(self, module: ModuleOp) -> None:
        # Once per signature where the verdict can only depend on it (the input's
        # elementwise ops repeat theirs; tileir/utils/verified_signatures.py).
        from tileir.utils.verified_signatures import verify_op
        from tileir.utils.walk import ops_of

        for op in ops_of(module):
            try:
                verify_op(op)
            except VerifyException as e:
                message = str(e).split("\n")[0].removeprefix("Operation does not verify: ")
                raise BytecodeError(self.offsets.get(op, 0), f"invalid IR: {message}") from None
            except CompileError as e:  # a verifier's diagnostics (VerifyDiagnostics), not a bug
                raise BytecodeError(self.offsets.get(op, 0), f"invalid IR: {e.message}") from None
            except Exception as e:  # a verifier bug
                raise BytecodeInternalError(
                    self.offsets.get(op, 0),
                    f"internal error: the verifier of '{op.name}' failed (a tileir bug): "
                    f"{type(e).__name__}: {e}",
                ) from e
