"""The `ptx` target: prints PTX from a module of llvm + nvvm kernels.

`.version` is the lowest ISA the target accepts (7.0 for sm_80, 8.0 for sm_90a, 8.6
for sm_100a), so both CUDA 12 and CUDA 13 ptxas assemble the output.  Each
`llvm.func` marked `nvvm.kernel` becomes a `.visible .entry` whose parameters are its
arguments in order (pointers `.u64`, then `cvta.to.global`), with `.reqntid` from
`nvvm.reqntid` so a launcher can read the block size back.  An instruction that
defines a register of a value named after a cuTile Python variable (`tileir.compile`,
`tileir-as --python-names`) ends in the names of those registers as a comment
(`// tx.0, tx.1`), so the PTX can be searched for the variable; without Python names the
PTX is the same as before.

A kernel whose shared-memory arena is dynamic (`tileir.dynamic_shared_bytes`, see
`conversions/tileas_to_llvm/shared_arena.py`) gets the module's one `.extern .shared`
array, a `.visible .global` constant `__tileir_dynamic_smem_bytes_<kernel>` holding the
bytes every launch must give it (a launcher reads it with `cuModuleGetGlobal`), and a
check at entry that traps when `%dynamic_smem_size` is smaller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.target import Target

from tileir.backend.ptx.instructions import PtxContext, emit
from tileir.backend.ptx.registers import PRED, RegisterAllocator
from tileir.conversions.tileas_to_llvm.builder import MIN_PTX_ISA_ATTR
from tileir.conversions.tileas_to_llvm.shared_arena import (
    ARENA_ALIGNMENT,
    DYNAMIC_SHARED_ATTR,
    DYNAMIC_SHARED_SYMBOL,
)
from tileir.diagnostics import CompileError, SourceLocation, location_of
from tileir.printing import python_name
from tileir.targets import ARCHS, TILE_LANGUAGE_PTX_VERSION, ptx_version
from tileir.utils.walk import ops_of

#: Lowest `.version` each target accepts: the one list of targets, tileir/targets.py.
PTX_VERSION = {name: arch.ptx_version for name, arch in ARCHS.items()}

#: An op's attribute naming the PTX ISA its instruction needs (inline asm whose
#: instruction is newer than the target's lowest ISA).

ARCH_ATTR = "tileir.arch"


#: The most bytes of parameters a kernel takes (PTX ISA, "Kernel Function Parameters"):
#: 4352 before PTX 8.1, 32764 from PTX 8.1 on sm_70 and later (every target here).  A
#: kernel past the first gets PTX 8.1; past the second, ptxas would reject it, so it is
#: rejected at its location instead.
SMALL_PARAM_BYTES = 4352
LARGE_PARAMS_ISA = "8.1"
MAX_PARAM_BYTES = 32764


def param_bytes(fn: llvm.FuncOp) -> int:
    """Bytes of kernel `fn`'s `.param` space: each parameter aligned to its size."""
    total = 0
    block = fn.body.blocks.first
    assert block is not None
    for arg in block.args:
        size = int(param_type(arg.type)[1:]) // 8
        total = -(-total // size) * size + size
    return total


def param_type(t: Attribute) -> str:
    if isinstance(t, llvm.LLVMPointerType):
        return "u64"
    if isinstance(t, IntegerType):
        w = t.width.data
        return {1: "u8", 8: "u8", 16: "u16", 32: "u32", 64: "u64"}[w]
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    if isinstance(t, Float16Type | BFloat16Type):
        return "b16"
    raise CompileError(f"kernel parameter of type {t} is not supported")


class LineTable:
    """`.file`/`.loc` line information (`tileir-as --lineinfo`): each instruction is
    preceded by the source position of the op it came from, when that position changes,
    so that ptxas `-lineinfo` maps SASS back to the cuTile Python lines."""

    def __init__(self) -> None:
        self.files: dict[str, int] = {}
        self.last: tuple[int, int, int] | None = None

    def mark(self, ctx: PtxContext, op: Operation) -> None:
        where: SourceLocation | None = location_of(op)
        if where is None:
            return
        index = self.files.setdefault(where.file, len(self.files) + 1)
        position = (index, where.line, where.column)
        if position != self.last:
            ctx.line(f".loc {index} {where.line} {where.column}")
            self.last = position

    def file_directives(self) -> list[str]:
        return [f'.file {i} "{_ptx_string(name)}"' for name, i in self.files.items()]


class NameComments:
    """`// name` comments on the instructions that define the registers of values named
    after cuTile Python variables (module doc).  The registers of a tile are the values
    its lowering made for it (`conversions/tileas_to_llvm/names.py`).  An op that prints
    instructions marks its last one; an op that prints none (an `extractvalue` of an
    inline-asm result, a cast kept in its register) marks the first instruction of its
    operand's op that names its register: the one that wrote it (the `mov` out of a
    vector load's word, not the edge path's scalar load).  A branch marks the moves that
    write the registers of its target's named block arguments (a loop-carried `acc`'s
    `mov.b32 %f2, %f3;	// acc_24.0` on the loop's entry edge)."""

    def __init__(self) -> None:
        self.names: dict[int, list[str]] = {}
        #: The lines each op printed, [first, end).
        self.spans: dict[Operation, tuple[int, int]] = {}

    @staticmethod
    def wanted(fn: llvm.FuncOp) -> bool:
        """Whether kernel `fn` has a value with a Python name (else no comment at all)."""
        return any(
            python_name(v) is not None
            for op in ops_of(fn)
            for v in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args))
        )

    def mark(self, ctx: PtxContext, op: Operation, first_line: int) -> None:
        """Note the names of `op`'s results; `first_line` is the first line `op` printed."""
        self.spans[op] = (first_line, len(ctx.lines))
        for result in op.results:
            name = python_name(result)
            if name is None:
                continue
            line = self._writer(ctx, op, result, first_line)
            if line is not None:
                self._add(line, name)
        for block in op.successors:
            for arg in block.args:
                name = python_name(arg)
                line = None if name is None else self._move_into(ctx, arg, first_line)
                if name is not None and line is not None:
                    self._add(line, name)

    def _add(self, line: int, name: str) -> None:
        names = self.names.setdefault(line, [])
        if name not in names:
            names.append(name)

    @staticmethod
    def _move_into(ctx: PtxContext, arg: SSAValue, first: int) -> int | None:
        """The last line from `first` on that writes block argument `arg`'s register
        (an edge's move, `instructions._edge_moves`); None where none does (the value
        was already in it)."""
        register = ctx.regs.names.get(arg)
        if not isinstance(register, str):
            return None
        writes = re.compile(r"^\S+ " + re.escape(register) + ",")
        return next(
            (i for i in range(len(ctx.lines) - 1, first - 1, -1) if writes.match(ctx.lines[i])),
            None,
        )

    def _writer(self, ctx: PtxContext, op: Operation, result: SSAValue, first: int) -> int | None:
        if len(ctx.lines) > first:
            return len(ctx.lines) - 1
        register = ctx.regs.names.get(result)
        if not isinstance(register, str):
            return None
        mention = re.compile(re.escape(register) + r"(?![0-9])")
        for operand in op.operands:
            span = self.spans.get(operand.owner) if isinstance(operand.owner, Operation) else None
            if span is None:
                continue
            for i in range(*span):
                if mention.search(ctx.lines[i]):
                    return i
        return None

    def apply(self, lines: list[str]) -> None:
        for i, names in self.names.items():
            lines[i] += "\t// " + ", ".join(names)


def _ptx_string(text: str) -> str:
    """`text` as the inside of a PTX string literal.  ptxas takes printable ASCII, `\\\\`
    and octal escapes, but neither `\\"` nor any byte outside ASCII: a quote, a control
    character and every byte of a non-ASCII character (a file name's UTF-8) are octal."""
    out: list[str] = []
    for byte in text.encode("utf-8", errors="surrogateescape"):
        if byte == 0x5C:
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F and byte != 0x22:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out)


#: `.language` of a Tile IR kernel: ptxas records it as `EIATTR_LANGUAGE: TILEIR`.
TILE_LANGUAGE = "tile ir"


#: A PTX identifier (PTX ISA, "Identifiers"): a letter then letters, digits, `_` and
#: `$`; or `_` or `$` then at least one of those.  (`%` starts the names PTX reserves.)
PTX_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_$]*|[_$][A-Za-z0-9_$]+")

#: Identifiers PTX predefines, which ptxas does not take as a kernel's name.
PTX_PREDEFINED_IDENTIFIERS = frozenset({"WARP_SZ"})


def _unspellable(name: str) -> str | None:
    """Why PTX cannot spell kernel name `name`, or None when it can."""
    if PTX_IDENTIFIER.fullmatch(name) is None or name in PTX_PREDEFINED_IDENTIFIERS:
        return (
            f"kernel name {name!r} is not a valid PTX identifier: a kernel name must be a "
            "letter followed by letters, digits, '_' or '$' (or start with '_' or '$' "
            "followed by at least one of them), and not a name PTX predefines"
        )
    return None


def kernel_name(fn: llvm.FuncOp) -> str:
    """The `.entry` name of kernel `fn`: its symbol, which must be a PTX identifier.

    A launcher finds a kernel in the cubin by the name it was given (cuTile looks up the
    name it wrote into the bytecode), so tileir does not rename one that PTX cannot
    spell (`k?x`, `my-kernel`, a name from a corrupted string table): it rejects it at
    the kernel, as tileiras does, rather than print PTX that ptxas refuses.
    `check_kernel_names` rejects such a name before the lowering, where the entry can
    still be found in a bytecode file; this is the check for modules built otherwise."""
    name = fn.sym_name.data
    problem = _unspellable(name)
    if problem is not None:
        raise CompileError(problem, location_of(fn))
    return name


def check_kernel_names(module: Operation) -> None:
    """Reject each `cuda_tile.entry` whose name PTX cannot spell, at the entry: its
    location, or for bytecode without debug info its first byte (the name came from a
    string table, and an error at the lowered kernel would say nowhere)."""
    for op in module.walk():
        if op.name != "cuda_tile.entry":
            continue
        name = op.properties["sym_name"]
        assert isinstance(name, StringAttr)
        problem = _unspellable(name.data)
        if problem is None:
            continue
        location = location_of(op)
        if location is None:
            from tileir.bytecode.reader import entry_origin
            from tileir.bytecode.stream import BytecodeError

            origin = entry_origin(op)
            if origin is not None:
                raise BytecodeError(origin[1], problem, filename=origin[0])
        raise CompileError(problem, location)


def kernel_to_ptx(
    fn: llvm.FuncOp,
    lines: LineTable | None = None,
    language: str | None = None,
    arch: str = "sm_90a",
) -> list[str]:
    name = kernel_name(fn)
    regs = RegisterAllocator()
    ctx = PtxContext(regs, arch=arch)
    block = fn.body.blocks.first
    assert block is not None
    dynamic = dynamic_shared_bytes(fn)
    if dynamic:
        given = regs.new_for(IntegerType(32))
        short = regs.new(PRED)
        ctx.line(f"mov.u32 {given}, %dynamic_smem_size;")
        ctx.line(f"setp.lt.u32 {short}, {given}, {dynamic};")
        ctx.line(f"@{short} trap;")
    params: list[str] = []
    for i, arg in enumerate(block.args):
        pname = f"{name}_param_{i}"
        ptype = param_type(arg.type)
        params.append(f"\t.param .{ptype} {pname}")
        if not arg.uses:
            continue
        if isinstance(arg.type, llvm.LLVMPointerType):
            raw = regs.new_for(arg.type)
            ctx.line(f"ld.param.u64 {raw}, [{pname}];")
            ctx.line(f"cvta.to.global.u64 {regs.of(arg)}, {raw};")
        elif isinstance(arg.type, IntegerType) and arg.type.width.data == 1:
            byte = regs.new_for(IntegerType(16))
            ctx.line(f"ld.param.u8 {byte}, [{pname}];")
            ctx.line(f"setp.ne.b16 {regs.of(arg)}, {byte}, 0;")
        elif isinstance(arg.type, IntegerType) and arg.type.width.data == 8:
            ctx.line(f"ld.param.s8 {regs.of(arg)}, [{pname}];")
        else:
            ctx.line(f"ld.param.{ptype} {regs.of(arg)}, [{pname}];")
    total = param_bytes(fn)
    if total > MAX_PARAM_BYTES:
        raise CompileError(
            f"kernel '{name}' takes {len(block.args)} parameters of {total} bytes in all; "
            f"PTX allows a kernel at most {MAX_PARAM_BYTES} bytes of parameters: pass fewer "
            "(each array is its pointer, shape and strides: fewer or lower-rank arrays), or "
            "pass a pointer to the data instead",
            location_of(fn),
        )
    labels = {b: f"$L__{name_id(name)}_{i}" for i, b in enumerate(fn.body.blocks)}
    ctx.labels = labels
    comments = NameComments() if NameComments.wanted(fn) else None
    for b in fn.body.blocks:
        if b is not block:
            ctx.line(f"{labels[b]}:")
        for op in b.ops:
            if lines is not None:
                lines.mark(ctx, op)
            first_line = len(ctx.lines)
            emit(ctx, op)
            if comments is not None:
                comments.mark(ctx, op, first_line)
    if comments is not None:
        comments.apply(ctx.lines)
    out = []
    if dynamic:
        out.append(f".visible .global .align 4 .u32 {dynamic_shared_symbol(name)} = {dynamic};")
    out += [f".visible .entry {name}(", ",\n".join(params), ")"]
    reqntid = fn.attributes.get("nvvm.reqntid")
    if isinstance(reqntid, DenseArrayBase):
        dims = ", ".join(str(v) for v in reqntid.get_values())
        out.append(f".reqntid {dims}")
    maxnreg = fn.attributes.get("nvvm.maxnreg")
    if isinstance(maxnreg, IntegerAttr):
        out.append(f".maxnreg {maxnreg.value.data}")
    if language is not None:
        out.append(f'.language "{language}"')
    out.append("{")
    out.extend("\t" + d for d in regs.declarations())
    out.extend("\t" + d for d in ctx.shared.values())
    out.append("")
    for line in ctx.lines:
        out.append(line if line.startswith(("$", "{", "}")) or line.endswith(":") else "\t" + line)
    out.append("}")
    return out


def dynamic_shared_bytes(fn: llvm.FuncOp) -> int:
    """The dynamic shared memory kernel `fn` needs at every launch (0: none)."""
    attr = fn.attributes.get(DYNAMIC_SHARED_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else 0


#: Prefix of the `.global` constant holding a kernel's dynamic shared memory in bytes.
DYNAMIC_SHARED_BYTES_PREFIX = "__tileir_dynamic_smem_bytes_"


def dynamic_shared_symbol(kernel: str) -> str:
    """The `.global` constant that holds `kernel`'s dynamic shared memory in bytes."""
    return DYNAMIC_SHARED_BYTES_PREFIX + kernel


def name_id(name: str) -> str:
    """A short, label-safe tag for a kernel's labels."""
    import zlib

    return f"{zlib.crc32(name.encode()):08x}"


def module_to_ptx(
    module: ModuleOp,
    arch: str | None = None,
    *,
    line_info: bool = False,
    tile_kernels: bool = False,
    allow_empty: bool = False,
) -> str:
    """PTX text of every kernel in `module`.  `line_info` adds `.file`/`.loc`;
    `tile_kernels` marks each kernel as a Tile IR kernel (`.language "tile ir"`, PTX
    ISA 9.2), as tileiras does for the kernels cuTile launches; `allow_empty` gives a
    module without kernels (tileiras compiles an empty module) instead of an error."""
    if arch is None:
        attr = module.attributes.get(ARCH_ATTR)
        arch = attr.data if isinstance(attr, StringAttr) else "sm_90a"
    if arch not in PTX_VERSION:
        raise CompileError(f"unknown target '{arch}'; expected one of {', '.join(PTX_VERSION)}")
    tile_isa = TILE_LANGUAGE_PTX_VERSION if tile_kernels else None
    kernels = [op for op in ops_of(module) if isinstance(op, llvm.FuncOp)]
    isa = _newest_isa(module, tile_isa)
    if any(param_bytes(fn) > SMALL_PARAM_BYTES for fn in kernels if "nvvm.kernel" in fn.attributes):
        isa = isa if isa is not None and _isa(isa) > _isa(LARGE_PARAMS_ISA) else LARGE_PARAMS_ISA
    lines = [
        "//",
        "// Generated by tileir",
        "//",
        "",
        f".version {ptx_version(arch, isa)}",
        f".target {arch}",
        ".address_size 64",
        "",
    ]
    table = LineTable() if line_info else None
    if any(dynamic_shared_bytes(fn) for fn in kernels):
        lines += [f".extern .shared .align {ARENA_ALIGNMENT} .b8 {DYNAMIC_SHARED_SYMBOL}[];", ""]
    if not kernels and not allow_empty:
        if module.body.block.first_op is None:
            raise CompileError("the module has no kernel to print as PTX (it is empty)")
        raise CompileError("the module has no kernel to print as PTX (lower it to llvm first)")
    for fn in kernels:
        if "nvvm.kernel" not in fn.attributes:
            raise CompileError(
                f"function @{fn.sym_name.data} is not a kernel; device functions are not supported yet"
            )
        lines.extend(kernel_to_ptx(fn, table, TILE_LANGUAGE if tile_kernels else None, arch))
        lines.append("")
    for op in module.body.block.ops:
        if not isinstance(op, llvm.FuncOp):
            raise CompileError(f"'{op.name}' at module level cannot be printed as PTX")
    if table is not None and table.files:
        header_end = lines.index(".address_size 64") + 1
        lines[header_end:header_end] = ["", *table.file_directives()]
    return "\n".join(lines)


def _newest_isa(module: ModuleOp, at_least: str | None) -> str | None:
    """The newest PTX ISA that an instruction of `module` needs (`MIN_PTX_ISA` of the
    nvvm mbarrier ops: `test_wait.parity` is PTX 7.1, newer than sm_80's 7.0; the
    `MIN_PTX_ISA_ATTR` an inline-asm op carries: a mixed-sign `wgmma` is PTX 8.4)."""
    newest = at_least
    for op in ops_of(module):
        need = getattr(op, "MIN_PTX_ISA", None)
        carried = op.attributes.get(MIN_PTX_ISA_ATTR)
        if isinstance(carried, StringAttr):
            need = carried.data
        if isinstance(need, str) and (newest is None or _isa(need) > _isa(newest)):
            newest = need
    return newest


def _isa(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@dataclass(frozen=True)
class PtxTarget(Target):
    """`-t ptx` (option `arch`, default: the module's `tileir.arch`, else sm_90a)."""

    name = "ptx"

    arch: str | None = None

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(module_to_ptx(module, self.arch))


_ = Operation
