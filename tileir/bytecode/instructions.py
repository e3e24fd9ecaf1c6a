"""Instructions: function bodies as op streams, decoded and encoded from the op table.

    instruction = opcode:varint fields(row)      (see `optable.py` for the field rules)

Values are numbered per function: the arguments first, then block arguments as their
block is entered, then each op's results after its regions; everything numbered inside
a block is forgotten when the block ends.  An operand is the varint number of a value.

Ops are built generically from their IRDL definitions: operands go in flat (with
`operandSegmentSizes` where the class declares segment sizes), attributes become the
properties (or attributes) of the same name, and properties the file does not store
take the class's default.  So an op the dialect gains later only needs a table row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, UnitAttr, UnregisteredOp, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation, OptPropertyDef
from xdsl.utils.exceptions import VerifyException

from tileir.bytecode.attributes import ReadContext, WriteContext
from tileir.bytecode.debug_info import DebugInfoWriter, LocationCursor
from tileir.bytecode.optable import (
    BY_NAME,
    BY_OPCODE,
    OPTIONAL,
    SINGLE,
    VARIADIC,
    FalsePerOperand,
    OpRow,
)
from tileir.bytecode.stream import BytecodeError, ByteReader, ByteWriter, EncodeError
from tileir.bytecode.types import SCALARS
from tileir.bytecode.version import (
    MAX_OPCODE,
    NEWEST,
    TESTING_OPCODES,
    TESTING_VERSIONS,
    BytecodeVersion,
)
from tileir.diagnostics import location_of
from tileir.dialects.cuda_tile.ops.base import MAX_REGION_DEPTH

PREFIX = "cuda_tile."

_IMPLIED_TYPES = {"token": SCALARS[17][2]}


def op_class(ctx: Context, row: OpRow, *, allow_unregistered: bool) -> type[Operation] | None:
    """The class of the op a row describes (under its name or an alias; under the name
    the configured release uses when the op was renamed later)."""
    names = (row.name, *row.aliases)
    if row.renamed_in is not None and row.renamed_in > NEWEST:
        names = (*row.aliases, row.name)
    for name in names:
        cls = ctx.get_optional_op(PREFIX + name)
        if cls is not None and not issubclass(cls, UnregisteredOp):
            return cls
    if allow_unregistered:
        cls = _UNREGISTERED.get(row.name)
        if cls is None:
            cls = _UNREGISTERED[row.name] = UnregisteredOp.with_name(PREFIX + row.name)
        return cls
    return None


_UNREGISTERED: dict[str, type[Operation]] = {}
_UNKNOWN: type[Operation] = Operation


def _segment_option(cls: type[Operation]) -> AttrSizedOperandSegments | None:
    if not issubclass(cls, IRDLOperation):
        return None
    for option in cls.get_irdl_definition().options:
        if isinstance(option, AttrSizedOperandSegments):
            return option
    return None


class BodyReader:
    """Decodes the instructions of one function."""

    def __init__(
        self,
        cx: ReadContext,
        ctx: Context,
        version: BytecodeVersion,
        locations: LocationCursor,
        offsets: dict[Operation, int],
        *,
        allow_unregistered: bool = False,
    ):
        self.cx = cx
        self.ctx = ctx
        self.version = version
        self.locations = locations
        self.offsets = offsets
        self.allow_unregistered = allow_unregistered
        self.values: list[SSAValue] = []
        self.max_opcode = MAX_OPCODE[version]
        self.classes: dict[int, type[Operation] | None] = {}

    def read_ops(self, r: ByteReader, block: Block, count: int | None, depth: int) -> None:
        """`count` ops into `block` (None: until the reader's end)."""
        if count is None:
            while not r.at_end():
                block.add_op(self.read_op(r, depth))
        else:
            for _ in range(count):
                block.add_op(self.read_op(r, depth))

    def value(self, r: ByteReader, what: str) -> SSAValue:
        at = r.pos
        i = r.varint(f"{what} value index")
        if i >= len(self.values):
            raise BytecodeError(
                at,
                f"{what} refers to value {i}, which is not defined here",
                f"a value index below {len(self.values)}",
            )
        return self.values[i]

    def row_for(self, r: ByteReader) -> tuple[OpRow, int]:
        at = r.pos
        opcode = r.varint("an opcode")
        row = BY_OPCODE.get(opcode)
        testing = opcode >= TESTING_OPCODES and self.version in TESTING_VERSIONS
        if (opcode > self.max_opcode and not testing) or (
            row is not None and row.since > self.version
        ):
            name = f" ({row.name})" if row is not None else ""
            raise BytecodeError(
                at,
                f"opcode 0x{opcode:X}{name} is not available in bytecode version {self.version}",
                f"an opcode up to 0x{self.max_opcode:X}",
            )
        if row is None:
            raise BytecodeError(at, f"unknown opcode 0x{opcode:X}", "an opcode of a cuda_tile op")
        if row.structural:
            raise BytecodeError(at, f"'{row.name}' cannot appear inside a function body", "an op")
        return row, at

    def read_op(self, r: ByteReader, depth: int) -> Operation:
        row, at = self.row_for(r)
        cls = self.classes.get(row.opcode, _UNKNOWN)
        if cls is _UNKNOWN:
            cls = self.classes[row.opcode] = op_class(
                self.ctx, row, allow_unregistered=self.allow_unregistered
            )
        if cls is None:
            raise BytecodeError(
                at, f"op '{row.name}' is not supported by tileir yet", "an op tileir implements"
            )
        location = self.locations.next(at)
        version = self.version

        # 1. Result types.
        present = [res for res in row.results if res.since <= version]
        if row.sized_results:
            count_at = r.pos
            n = r.count("result count")
            variadic = any(res.variadic for res in present)
            if not variadic and n != len(present):
                raise BytecodeError(
                    count_at, f"'{row.name}' with {n} results", f"{len(present)} results"
                )
        else:
            n = len(present)
        result_types = [self.cx.types.read(r, f"'{row.name}' result") for _ in range(n)]

        # 2. Flags.
        flags = 0
        if row.flags_since is not None and version >= row.flags_since:
            flags_at = r.pos
            flags = r.varint(f"'{row.name}' flags")
            known = row.known_flag_bits(version)
            if flags & ~known:
                raise BytecodeError(
                    flags_at,
                    f"unknown flag bits 0x{flags & ~known:x} for '{row.name}'",
                    f"bits within 0x{known:x}",
                )

        def flag(name: str) -> bool:
            return bool(flags >> row.flag_bit[name] & 1)

        # 3. Attributes.
        attrs: dict[str, Attribute] = {}
        defaulted: set[str] = set()
        for spec in row.attrs:
            if spec.since > version:
                if spec.kind is not None and not spec.optional:
                    # Absent from older files: the version's default is implied.
                    defaulted.add(spec.name)
                    if spec.kind.from_raw is not None and spec.default is not None:
                        attrs[spec.name] = spec.kind.from_raw(spec.default)
                continue
            if spec.kind is None:
                if flag(spec.name):
                    attrs[spec.name] = UnitAttr()
                continue
            if spec.optional and not flag(spec.name):
                continue
            value = spec.kind.read(
                r, self.cx, result_types, f"'{row.name}' attribute '{spec.name}'"
            )
            if spec.default is not None and _is_default(spec.kind.raw(value), spec.default):
                defaulted.add(spec.name)
            attrs[spec.name] = value

        # 4. Operands.
        sizes: list[int] = []
        operands: list[SSAValue] = []
        if row.attr_sized:
            for spec in row.operands:
                if spec.since > version:
                    sizes.append(0)
                elif spec.kind == SINGLE:
                    operands.append(self.value(r, f"'{row.name}' operand '{spec.name}'"))
                    sizes.append(1)
                elif spec.kind == VARIADIC:
                    k = r.count(f"'{row.name}' operand '{spec.name}' count")
                    operands += [
                        self.value(r, f"'{row.name}' operand '{spec.name}'") for _ in range(k)
                    ]
                    sizes.append(k)
                elif flag(spec.name):
                    operands.append(self.value(r, f"'{row.name}' operand '{spec.name}'"))
                    sizes.append(1)
                else:
                    sizes.append(0)
        else:
            singles = sum(1 for o in row.operands if o.kind == SINGLE)
            if row.counts_operands:
                count_at = r.pos
                n_operands = r.count(f"'{row.name}' operand count")
                most = None if any(o.kind == VARIADIC for o in row.operands) else len(row.operands)
                if n_operands < singles or (most is not None and n_operands > most):
                    expected = f"at least {singles}" if most is None else f"{singles} to {most}"
                    raise BytecodeError(
                        count_at, f"'{row.name}' with {n_operands} operands", f"{expected} operands"
                    )
            else:
                n_operands = singles
            operands = [self.value(r, f"'{row.name}' operand #{i}") for i in range(n_operands)]
            sizes = _split_sizes(row, n_operands)

        # 5. Regions.
        regions: list[Region] = []
        if row.regions:
            region_at = r.pos
            n_regions = r.varint(f"'{row.name}' region count")
            if n_regions != row.regions:
                raise BytecodeError(
                    region_at, f"'{row.name}' with {n_regions} regions", f"{row.regions}"
                )
            if depth >= MAX_REGION_DEPTH:
                raise BytecodeError(
                    region_at, f"regions nested deeper than {MAX_REGION_DEPTH}", "shallower nesting"
                )
            regions = [self.read_region(r, row, depth + 1) for _ in range(n_regions)]

        op = build_op(
            cls, row, self.version, at, operands, sizes, result_types, attrs, defaulted, regions
        )
        op.location = location
        self.offsets[op] = at
        if any(res.variadic for res in row.results):
            self.values.extend(op.results)
        else:
            self.values.extend(
                op.results[i] for i, res in enumerate(row.results) if res.since <= version
            )
        return op

    def read_region(self, r: ByteReader, row: OpRow, depth: int) -> Region:
        region = Region()
        n_blocks = r.count(f"'{row.name}' block count", 2)
        for _ in range(n_blocks):
            saved = len(self.values)
            n_args = r.count("block argument count")
            block = Block(
                arg_types=[self.cx.types.read(r, "block argument") for _ in range(n_args)]
            )
            self.values.extend(block.args)
            n_ops = r.count("block op count")
            self.read_ops(r, block, n_ops, depth)
            del self.values[saved:]
            region.add_block(block)
        return region


def build_op(
    cls: type[Operation],
    row: OpRow,
    version: BytecodeVersion,
    at: int,
    operands: list[SSAValue],
    sizes: list[int],
    result_types: list[Attribute],
    attrs: dict[str, Attribute],
    defaulted: set[str],
    regions: list[Region],
) -> Operation:
    """Build the op of `row` from decoded fields, by its IRDL definition (or as an
    unregistered op).  `defaulted` names attributes that hold their version default;
    optional properties holding it are left out, as the text form leaves them out."""
    # Results newer than the file are implied.
    if not any(res.variadic for res in row.results):
        full: list[Attribute] = []
        it = iter(result_types)
        for res in row.results:
            if res.since <= version:
                full.append(next(it))
            else:
                assert res.implied_type is not None
                full.append(_IMPLIED_TYPES[res.implied_type]())
        result_types = full

    if issubclass(cls, UnregisteredOp):
        attributes = dict(attrs)
        if row.attr_sized:
            attributes["operandSegmentSizes"] = _segments(tuple(sizes))
        return cls.create(
            operands=operands, result_types=result_types, attributes=attributes, regions=regions
        )

    props: dict[str, Attribute] = {}
    attributes: dict[str, Attribute] = {}
    definition = cast(type[IRDLOperation], cls).get_irdl_definition()
    for name, value in attrs.items():
        prop = definition.properties.get(name)
        if (
            name in defaulted
            and (prop is None or isinstance(prop, OptPropertyDef))
            and name not in definition.attributes
        ):
            continue  # an optional field holding its default: leave it out, as the text form does
        if prop is not None:
            props[name] = value
        elif name in definition.attributes:
            attributes[name] = value
        else:
            raise BytecodeError(
                at,
                f"tileir's '{row.name}' has no field '{name}' (the op table and the dialect disagree)",
            )
    for name, prop in definition.properties.items():
        if name not in props and prop.default_value is not None:
            props[name] = prop.default_value
    option = _segment_option(cls)
    if option is not None:
        if len(definition.operands) != len(sizes):
            raise BytecodeError(
                at,
                f"tileir's '{row.name}' has {len(definition.operands)} operand groups, the bytecode {len(sizes)}",
            )
        segments = _segments(tuple(sizes))
        if option.as_property:
            props["operandSegmentSizes"] = segments
        else:
            attributes["operandSegmentSizes"] = segments
    try:
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=props,
            attributes=attributes,
            regions=regions,
        )
    except (VerifyException, ValueError) as e:
        raise BytecodeError(at, f"cannot build '{row.name}': {str(e).splitlines()[0]}") from None


_SEGMENTS: dict[tuple[int, ...], DenseArrayBase] = {}


def _segments(sizes: tuple[int, ...]) -> DenseArrayBase:
    found = _SEGMENTS.get(sizes)
    if found is None:
        found = DenseArrayBase.from_list(i32, sizes)
        if len(_SEGMENTS) < 4096:
            _SEGMENTS[sizes] = found
    return found


def _is_default(raw: object, default: object) -> bool:
    if isinstance(default, FalsePerOperand):
        return isinstance(raw, tuple) and not any(cast(tuple[object, ...], raw))
    return raw == default


def _split_sizes(row: OpRow, n: int) -> list[int]:
    """Group sizes of a flat operand list of an op without segment sizes (at most one
    group is variadic or optional; it takes what the single operands leave)."""
    singles = sum(1 for o in row.operands if o.kind == SINGLE)
    return [1 if o.kind == SINGLE else n - singles for o in row.operands]


# ---------------------------------------------------------------------------
# Writing.
# ---------------------------------------------------------------------------


def row_of(op: Operation) -> OpRow | None:
    name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
    if not name.startswith(PREFIX):
        return None
    return BY_NAME.get(name[len(PREFIX) :])


def _field(op: Operation, name: str) -> Attribute | None:
    found = op.properties.get(name)
    if found is None:
        found = op.attributes.get(name)
    return found


def _located(e: EncodeError, op: Operation) -> EncodeError:
    """`e`, located at `op` unless it is located already or meant to be unlocated."""
    if e.location is None and not getattr(e, "unlocated", False):
        e.location = location_of(op)
    return e


class BodyWriter:
    """Encodes the ops of one function."""

    def __init__(self, cx: WriteContext, version: BytecodeVersion, debug: DebugInfoWriter):
        self.cx = cx
        self.version = version
        self.debug = debug
        self.index: dict[SSAValue, int] = {}
        self.order: list[SSAValue] = []
        #: Regions around the op being written, from the function's body in.
        self.depth = 0

    def define(self, values: Sequence[SSAValue]) -> None:
        for v in values:
            self.index[v] = len(self.order)
            self.order.append(v)

    def forget_after(self, count: int) -> None:
        for v in self.order[count:]:
            del self.index[v]
        del self.order[count:]

    def value(self, op: Operation, v: SSAValue, position: int) -> int:
        found = self.index.get(v)
        if found is None:
            raise _located(
                EncodeError(f"'{op.name}' operand #{position} is not defined before its use"), op
            )
        return found

    def write_ops(self, w: ByteWriter, ops: Sequence[Operation]) -> None:
        for op in ops:
            try:
                self.write_op(w, op)
            except EncodeError as e:
                raise _located(e, op) from None

    def write_op(self, w: ByteWriter, op: Operation) -> None:
        row = row_of(op)
        if row is None:
            raise EncodeError(
                f"'{op.name}' cannot be written to cuda_tile bytecode (only cuda_tile ops can)"
            )
        version = self.version
        if row.structural:
            raise EncodeError(f"'{op.name}' cannot appear inside a function")
        if row.since > version:
            raise EncodeError(
                f"operation '{op.name}' is not available in bytecode version {version} (it needs {row.since})"
            )
        w.varint(row.opcode)
        self.debug.add(op.location)

        groups = self.operand_groups(op, row)

        # 1. Results.
        variadic_results = any(res.variadic for res in row.results)
        if variadic_results:
            written = list(op.results)
        else:
            if len(op.results) != len(row.results):
                raise EncodeError(
                    f"'{op.name}' has {len(op.results)} results, bytecode expects {len(row.results)}"
                )
            written = []
            for res, result in zip(row.results, op.results, strict=True):
                if res.since <= version:
                    written.append(result)
                elif result.uses:
                    raise EncodeError(
                        f"result '{res.name}' requires bytecode version {res.since} but is being "
                        f"used and targeting {version}"
                    )
        if row.sized_results:
            w.varint(len(written))
        for result in written:
            w.varint(self.cx.types(result.type))

        # 2. Flags.
        flags = 0
        for name, bit, since in row.flag_fields:
            present = (
                _field(op, name) is not None
                if any(a.name == name for a in row.attrs)
                else bool(groups.get(name))
            )
            if present:
                if since > version:
                    what = "attribute" if any(a.name == name for a in row.attrs) else "operand"
                    raise EncodeError(
                        f"optional {what} '{name}' is provided but requires bytecode version "
                        f"{since}, targeting {version}"
                    )
                flags |= 1 << bit
        if row.flags_since is not None and version >= row.flags_since:
            w.varint(flags)

        # 3. Attributes.
        for spec in row.attrs:
            value = _field(op, spec.name)
            if spec.kind is None or (spec.optional and value is None):
                continue
            if value is None:
                value = self.default_value(op, spec.name)
            if spec.since > version:
                if value is not None and not _is_default(spec.kind.raw(value), spec.default):
                    raise EncodeError(
                        f"attribute '{spec.name}' requires bytecode version {spec.since}+, but targeting {version}"
                    )
                continue
            if value is None:
                if isinstance(spec.default, FalsePerOperand):
                    count = len(groups[spec.default.group])
                    w.varint(count)
                    w.raw(bytes(count))
                    continue
                raise EncodeError(f"'{op.name}' lacks its attribute '{spec.name}'")
            spec.kind.write(w, value, self.cx)

        # 4. Operands.
        if row.attr_sized:
            position = 0
            for spec in row.operands:
                values = groups[spec.name]
                if spec.since > version:
                    if values:
                        raise EncodeError(
                            f"operand '{spec.name}' of '{op.name}' requires bytecode version {spec.since}+, "
                            f"but targeting {version}"
                        )
                    continue
                if spec.kind == VARIADIC:
                    w.varint(len(values))
                for v in values:
                    w.varint(self.value(op, v, position))
                    position += 1
        else:
            if row.counts_operands:
                w.varint(len(op.operands))
            for i, v in enumerate(op.operands):
                w.varint(self.value(op, v, i))

        # 5. Regions.
        if row.regions:
            if self.depth >= MAX_REGION_DEPTH:
                raise EncodeError(
                    f"regions nested deeper than {MAX_REGION_DEPTH} inside a function "
                    "(tileir's limit: a reader would reject the file)"
                )
            self.depth += 1
            w.varint(len(op.regions))
            for region in op.regions:
                w.varint(len(region.blocks))
                for block in region.blocks:
                    saved = len(self.order)
                    w.varint(len(block.args))
                    for arg in block.args:
                        w.varint(self.cx.types(arg.type))
                    self.define(block.args)
                    ops = list(block.ops)
                    w.varint(len(ops))
                    self.write_ops(w, ops)
                    self.forget_after(saved)
            self.depth -= 1
        self.define(written)

    def default_value(self, op: Operation, name: str) -> Attribute | None:
        if isinstance(op, IRDLOperation):
            prop = type(op).get_irdl_definition().properties.get(name)
            if prop is not None:
                return prop.default_value
        return None

    def operand_groups(self, op: Operation, row: OpRow) -> dict[str, list[SSAValue]]:
        """The op's operands split into the row's groups."""
        operands = list(op.operands)
        sizes: list[int] | None = None
        if row.attr_sized:
            segments = _field(op, "operandSegmentSizes")
            if isinstance(segments, DenseArrayBase) and len(segments.get_values()) == len(
                row.operands
            ):
                sizes = [int(v) for v in segments.get_values()]
            elif sum(1 for o in row.operands if o.kind != SINGLE) <= 1:
                sizes = _split_sizes(row, len(operands))
            else:
                raise EncodeError(
                    f"'{op.name}' has no operand segment sizes matching the bytecode's operand groups"
                )
        else:
            sizes = _split_sizes(row, len(operands))
        if sum(sizes) != len(operands) or any(s < 0 for s in sizes):
            raise EncodeError(
                f"'{op.name}' has {len(operands)} operands, which do not fit its operand groups"
            )
        groups: dict[str, list[SSAValue]] = {}
        start = 0
        for spec, size in zip(row.operands, sizes, strict=True):
            if (spec.kind == SINGLE and size != 1) or (spec.kind == OPTIONAL and size > 1):
                raise EncodeError(f"'{op.name}' operand group '{spec.name}' has {size} values")
            groups[spec.name] = operands[start : start + size]
            start += size
        return groups
