"""The op table: one row per cuda_tile op, naming its opcode and its fields in NVIDIA's
declaration (ODS) order.  `instructions.py` derives each op's encoding from its row;
an op added to the dialect later needs only its row here.

Row syntax (see `op`):

* results: `name` (one), `name*` (variadic), `name:token@13.2` (added in 13.2; the
  type is implied for older files, which neither store nor number the result);
* operands: `name`, `name*` (variadic), `name?` (optional), with `@version` when the
  operand is newer than the op;
* attributes: `name:kind` (required), `name:kind?` (optional), `name:unit` (a unit
  attribute, present or not), with `@version` when newer than the op; a required
  attribute newer than the op has a default, implied for older files.  Kinds are in
  `attributes.KINDS`; short aliases below (`sem`, `scope`, ...).

Encoding rules (NVIDIA's generator, restated):

1. results: a varint count first if the op has a variadic operand or result; then one
   type index per result present in the file's version;
2. flags: one varint bitfield if the op has optional attributes (unit ones included),
   or optional operands in an `AttrSizedOperandSegments` op.  Bits go in version order,
   within one version attributes first, then operands, in declaration order.  If every
   optional field is newer than the op, the varint exists only from that version on;
3. attributes in declaration order: unit ones live in the flags only; optional ones
   only when their bit is set; a required one newer than the file is absent;
4. operands: with segment sizes, per group: one index, or a count and indices
   (variadic), or one index if its flag bit is set (optional); otherwise a count first
   when any group is variadic or optional, then the indices;
5. regions: a varint count, then per region a varint block count, and per block the
   argument count, argument types, op count and ops.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from tileir.bytecode.attributes import KINDS, AttrKind
from tileir.bytecode.version import (
    V13_1,
    V13_2,
    V13_3,
    V13_4,
    V250_0,
    V250_1,
    BytecodeVersion,
)

VERSIONS = {
    "13.1": V13_1,
    "13.2": V13_2,
    "13.3": V13_3,
    "13.4": V13_4,
    "250.0": V250_0,
    "250.1": V250_1,
}

#: Short names for the attribute kinds rows use most.
KIND_ALIASES = {
    "rounding": "enum:rounding",
    "signedness": "enum:signedness",
    "overflow": "enum:overflow",
    "predicate": "enum:comparison_predicate",
    "ordering": "enum:comparison_ordering",
    "sem": "i32enum:memory_ordering_semantics",
    "scope": "i32enum:memory_scope",
    "rmw_mode": "i32enum:atomic_rmw_mode",
}

SINGLE, OPTIONAL, VARIADIC = "single", "optional", "variadic"


@dataclass(frozen=True)
class FalsePerOperand:
    """The default of a bool array with one `false` per operand of a group (13.4's
    `inbounds`: one flag per index)."""

    group: str


@dataclass(frozen=True)
class ResultSpec:
    name: str
    variadic: bool
    since: BytecodeVersion
    #: The type of a result newer than the op, for files that do not store it.
    implied_type: str | None = None


@dataclass(frozen=True)
class OperandSpec:
    name: str
    kind: str
    since: BytecodeVersion


@dataclass(frozen=True)
class AttrSpec:
    name: str
    kind: AttrKind | None  # None: a unit attribute
    optional: bool
    since: BytecodeVersion
    #: The value (in the kind's raw form) implied when the file is older than `since`.
    default: object = None

    @property
    def unit(self) -> bool:
        return self.kind is None


@dataclass(frozen=True)
class OpRow:
    name: str
    opcode: int
    since: BytecodeVersion
    results: tuple[ResultSpec, ...] = ()
    operands: tuple[OperandSpec, ...] = ()
    attrs: tuple[AttrSpec, ...] = ()
    regions: int = 0
    attr_sized: bool = False
    #: Other names of the op: `pow` is 13.3's name of opcode 0x54, which the reader reads
    #: as `fpowf` (cuTile's `encode_FPowFOp`; tileirdisasm prints `fpowf` in every version).
    aliases: tuple[str, ...] = ()
    #: The version from which `name` is the op's name: a reader configured as an older
    #: release (`version.NEWEST` before it) reads the op as its first alias (`pow`).
    renamed_in: BytecodeVersion | None = None
    #: Ops encoded outside the instruction stream (functions, globals, the module).
    structural: bool = False
    #: Which rows have been checked against real bytecode (see docs/bytecode.md).
    notes: str = ""

    @cached_property
    def sized_results(self) -> bool:
        return any(r.variadic for r in self.results) or any(
            o.kind == VARIADIC for o in self.operands
        )

    @cached_property
    def flag_fields(self) -> tuple[tuple[str, int, BytecodeVersion], ...]:
        """(field name, bit, since) for every field announced in the flags varint."""
        entries: list[tuple[tuple[BytecodeVersion, int, int], str, BytecodeVersion]] = []
        for i, a in enumerate(self.attrs):
            if a.optional or a.unit:
                entries.append(((a.since, 0, i), a.name, a.since))
        if self.attr_sized:
            for i, o in enumerate(self.operands):
                if o.kind == OPTIONAL:
                    entries.append(((o.since, 1, i), o.name, o.since))
        entries.sort(key=lambda e: e[0])
        return tuple((name, bit, since) for bit, (_, name, since) in enumerate(entries))

    @cached_property
    def flag_bit(self) -> dict[str, int]:
        return {name: bit for name, bit, _ in self.flag_fields}

    @cached_property
    def flags_since(self) -> BytecodeVersion | None:
        """The version from which the flags varint is written (None: never)."""
        if not self.flag_fields:
            return None
        first = min(since for _, _, since in self.flag_fields)
        return first if first > self.since else self.since

    def known_flag_bits(self, version: BytecodeVersion) -> int:
        return sum(1 << bit for _, bit, since in self.flag_fields if since <= version)

    @cached_property
    def counts_operands(self) -> bool:
        """Without segment sizes, is the operand count written?"""
        return not self.attr_sized and any(o.kind != SINGLE for o in self.operands)


def _version(text: str) -> BytecodeVersion:
    return VERSIONS[text]


def _split(spec: str) -> list[str]:
    return [s.strip() for s in spec.split(",") if s.strip()]


def op(
    opcode: int,
    name: str,
    results: str = "",
    operands: str = "",
    attrs: str = "",
    *,
    since: str = "13.1",
    regions: int = 0,
    attr_sized: bool = False,
    defaults: dict[str, object] | None = None,
    aliases: tuple[str, ...] = (),
    renamed_in: str | None = None,
    structural: bool = False,
    notes: str = "",
) -> OpRow:
    op_since = _version(since)
    defaults = defaults or {}

    def parse_version(text: str) -> tuple[str, BytecodeVersion]:
        if "@" in text:
            body, ver = text.split("@")
            return body, _version(ver)
        return text, op_since

    result_specs: list[ResultSpec] = []
    for item in _split(results):
        body, ver = parse_version(item)
        implied = None
        if ":" in body:
            body, implied = body.split(":")
        variadic = body.endswith("*")
        result_specs.append(ResultSpec(body.rstrip("*"), variadic, ver, implied))
        if ver > op_since and implied is None:
            raise ValueError(f"{name}: result {body} newer than the op needs an implied type")

    operand_specs: list[OperandSpec] = []
    for item in _split(operands):
        body, ver = parse_version(item)
        kind = VARIADIC if body.endswith("*") else OPTIONAL if body.endswith("?") else SINGLE
        operand_specs.append(OperandSpec(body.rstrip("*?"), kind, ver))

    attr_specs: list[AttrSpec] = []
    for item in _split(attrs):
        body, ver = parse_version(item)
        attr_name, kind_name = body.split(":", 1)
        optional = kind_name.endswith("?")
        kind_name = kind_name.rstrip("?")
        if kind_name == "unit":
            attr_specs.append(AttrSpec(attr_name, None, False, ver))
            continue
        kind = KINDS[KIND_ALIASES.get(kind_name, kind_name)]
        default = defaults.get(attr_name)
        if ver > op_since and not optional and default is None:
            raise ValueError(f"{name}: attribute {attr_name} newer than the op needs a default")
        attr_specs.append(AttrSpec(attr_name, kind, optional, ver, default))

    return OpRow(
        name,
        opcode,
        op_since,
        tuple(result_specs),
        tuple(operand_specs),
        tuple(attr_specs),
        regions,
        attr_sized,
        aliases,
        _version(renamed_in) if renamed_in is not None else None,
        structural,
        notes,
    )


def _unary(opcode: int, name: str, since: str = "13.1") -> OpRow:
    return op(opcode, name, "result", "source", since=since)


def _binary(opcode: int, name: str, attrs: str = "", since: str = "13.1") -> OpRow:
    return op(opcode, name, "result", "lhs, rhs", attrs, since=since)


#: Enum defaults are member indices (rounding: 5 = full; overflow: 0 = none).
ROUNDING_FULL = 5
OVERFLOW_NONE = 0

ROWS: tuple[OpRow, ...] = (
    _unary(0x00, "absf"),
    _unary(0x01, "absi"),
    _binary(0x02, "addf", "rounding_mode:rounding, flush_to_zero:unit"),
    _binary(0x03, "addi", "overflow:overflow"),
    _binary(0x04, "andi"),
    op(0x05, "assert", "", "condition", "message:str"),
    op(0x06, "assume", "result", "value", "predicate:any"),
    op(
        0x07,
        "atomic_cas_tko",
        "result, result_token",
        "pointers, cmp, val, mask?, token?",
        "memory_ordering_semantics:sem, memory_scope:scope",
        attr_sized=True,
    ),
    op(
        0x08,
        "atomic_rmw_tko",
        "result, result_token",
        "pointers, arg, mask?, token?",
        "memory_ordering_semantics:sem, memory_scope:scope, mode:rmw_mode",
        attr_sized=True,
    ),
    _unary(0x09, "bitcast"),
    op(0x0A, "break", "", "operands*"),
    _unary(0x0B, "broadcast"),
    op(0x0C, "cat", "result", "lhs, rhs", "dim:i64"),
    _unary(0x0D, "ceil"),
    _binary(0x0E, "cmpf", "comparison_predicate:predicate, comparison_ordering:ordering"),
    _binary(0x0F, "cmpi", "comparison_predicate:predicate, signedness:signedness"),
    op(0x10, "constant", "result", "", "value:dense"),
    op(0x11, "continue", "", "operands*"),
    _unary(0x12, "cos"),
    _unary(0x13, "cosh"),
    _binary(0x14, "divf", "rounding_mode:rounding, flush_to_zero:unit"),
    _binary(0x15, "divi", "signedness:signedness, rounding:rounding"),
    op(0x16, "entry", structural=True),
    op(
        0x17,
        "exp",
        "result",
        "source",
        "rounding_mode:rounding@13.3",
        defaults={"rounding_mode": ROUNDING_FULL},
    ),
    op(0x18, "exp2", "result", "source", "flush_to_zero:unit"),
    op(0x25, "exti", "to", "from", "signedness:signedness"),
    op(0x26, "extract", "result", "source, indices*"),
    _unary(0x27, "floor"),
    op(0x28, "fma", "result", "lhs, rhs, acc", "rounding_mode:rounding, flush_to_zero:unit"),
    op(
        0x29,
        "for",
        "resultValues*",
        "lowerBound, upperBound, step, initValues*",
        "unsignedCmp:unit@13.2",
        regions=1,
    ),
    op(0x2A, "ftof", "to", "from", "rounding_mode:rounding"),
    op(
        0x2B,
        "ftoi",
        "to",
        "from",
        "signedness:signedness, rounding_mode:rounding, saturating:unit@13.4",
    ),
    op(0x2C, "get_global", "result", "", "name:symbol"),
    op(0x2D, "get_index_space_shape", "result*", "src"),
    op(0x2E, "get_num_tile_blocks", "gridSize_x, gridSize_y, gridSize_z"),
    op(0x2F, "get_tensor_shape", "result*", "src"),
    op(0x30, "get_tile_block_id", "blockId_x, blockId_y, blockId_z"),
    op(0x31, "global", structural=True),
    op(0x32, "if", "results*", "condition", regions=2),
    _unary(0x33, "int_to_ptr"),
    op(0x3A, "iota", "result"),
    op(0x3B, "itof", "to", "from", "signedness:signedness, rounding_mode:rounding"),
    op(0x3C, "join_tokens", "result", "tokens*"),
    op(
        0x3D,
        "load_ptr_tko",
        "result, result_token",
        "source, mask?, paddingValue?, token?",
        "memory_ordering_semantics:sem, memory_scope:scope?, optimization_hints:hints?",
        attr_sized=True,
    ),
    op(
        0x3E,
        "load_view_tko",
        "tile, result_token",
        "view, index*, token?",
        "memory_ordering_semantics:sem, memory_scope:scope?, optimization_hints:hints?, "
        "inbounds:boolarray@13.4",
        attr_sized=True,
        defaults={"inbounds": FalsePerOperand("index")},
    ),
    _unary(0x3F, "log"),
    _unary(0x40, "log2"),
    op(0x41, "loop", "resultValues*", "initValues*", regions=1),
    op(0x42, "make_partition_view", "result", "tensor_view"),
    op(0x43, "make_tensor_view", "result", "base, dynamicShape*, dynamicStrides*", attr_sized=True),
    op(0x44, "make_token", "result"),
    _binary(0x45, "maxf", "propagate_nan:unit, flush_to_zero:unit"),
    _binary(0x46, "maxi", "signedness:signedness"),
    _binary(0x47, "minf", "propagate_nan:unit, flush_to_zero:unit"),
    _binary(0x48, "mini", "signedness:signedness"),
    op(0x49, "mmaf", "result", "lhs, rhs, acc", "fast_acc:unit@13.3"),
    op(
        0x4A,
        "mmai",
        "result",
        "lhs, rhs, acc",
        "signedness_lhs:signedness, signedness_rhs:signedness",
    ),
    op(0x4B, "module", structural=True),
    _binary(0x4C, "mulf", "rounding_mode:rounding, flush_to_zero:unit"),
    op(0x4D, "mulhii", "result", "x, y"),
    _binary(0x4E, "muli", "overflow:overflow"),
    _unary(0x4F, "negf"),
    op(
        0x50,
        "negi",
        "result",
        "source",
        "overflow:overflow@13.2",
        defaults={"overflow": OVERFLOW_NONE},
    ),
    op(0x51, "offset", "result", "ptr, offset"),
    _binary(0x52, "ori"),
    op(0x53, "permute", "result", "source", "permutation:i32array"),
    op(0x54, "fpowf", "result", "source, exponent", aliases=("pow",), renamed_in="13.4"),
    op(
        0x55,
        "print_tko",
        "result_token:token@13.2",
        "args*, token?@13.2",
        "str:str",
        attr_sized=True,
    ),
    _unary(0x56, "ptr_to_int"),
    _unary(0x57, "ptr_to_ptr"),
    op(0x58, "reduce", "results*", "operands*", "dim:i32, identities:array", regions=1),
    _binary(0x59, "remf"),
    _binary(0x5A, "remi", "signedness:signedness"),
    _unary(0x5B, "reshape"),
    op(0x5C, "return", "", "operands*"),
    op(0x5D, "rsqrt", "result", "source", "flush_to_zero:unit"),
    op(0x5E, "scan", "results*", "operands*", "dim:i32, reverse:bool, identities:array", regions=1),
    op(0x5F, "select", "result", "cond, val_if_true, val_if_false"),
    _binary(0x60, "shli", "overflow:overflow"),
    _binary(0x61, "shri", "signedness:signedness"),
    _unary(0x62, "sin"),
    _unary(0x63, "sinh"),
    op(0x64, "sqrt", "result", "source", "rounding_mode:rounding, flush_to_zero:unit"),
    op(
        0x65,
        "store_ptr_tko",
        "result_token",
        "destination, value, mask?, token?",
        "memory_ordering_semantics:sem, memory_scope:scope?, optimization_hints:hints?",
        attr_sized=True,
    ),
    op(
        0x66,
        "store_view_tko",
        "result_token",
        "tile, view, index*, token?",
        "memory_ordering_semantics:sem, memory_scope:scope?, optimization_hints:hints?, "
        "inbounds:boolarray@13.4",
        attr_sized=True,
        defaults={"inbounds": FalsePerOperand("index")},
    ),
    _binary(0x67, "subf", "rounding_mode:rounding, flush_to_zero:unit"),
    _binary(0x68, "subi", "overflow:overflow"),
    _unary(0x69, "tan"),
    op(
        0x6A,
        "tanh",
        "result",
        "source",
        "rounding_mode:rounding@13.2",
        defaults={"rounding_mode": ROUNDING_FULL},
    ),
    op(0x6B, "trunci", "to", "from", "overflow:overflow"),
    _binary(0x6C, "xori"),
    op(0x6D, "yield", "", "operands*"),
    op(0x6E, "atan2", "result", "x, y", since="13.2"),
    _unary(0x6F, "pack", since="13.3"),
    _unary(0x70, "unpack", since="13.3"),
    op(0x71, "alloca", "result", "", "num_elem:i64, alignment:i64, global:unit", since="13.3"),
    op(
        0x72,
        "mmaf_scaled",
        "result",
        "lhs, rhs, acc, lhs_scale, rhs_scale",
        since="13.3",
    ),
    op(0x73, "make_gather_scatter_view", "result", "tensor_view", since="13.3"),
    op(0x74, "make_strided_view", "result", "tensor_view", since="13.3"),
    op(
        0x75,
        "atomic_red_view_tko",
        "result_token",
        "view, index*, value, token?",
        "memory_ordering_semantics:sem, memory_scope:scope, mode:rmw_mode",
        since="13.3",
        attr_sized=True,
    ),
    op(0x76, "insert", "result", "source, destination, indices*", since="13.4"),
    op(0x77, "gdc_launch_dependents_tko", "result_token", "token?", since="13.4"),
    op(0x78, "gdc_wait_tko", "result_token", "token?", since="13.4"),
    op(0x79, "fpowi", "result", "source, exponent", since="13.4"),
    op(0x7A, "memory_fence_alias_tko", "result_token", "token", since="13.4"),
    # The testing ops (NVIDIA's TestingOpcodeRange, TILE_IR_INCLUDE_TESTS): fields of
    # 250.1 on ops of 250.0 (tileir/dialects/cuda_tile/ops/testing.py).
    op(
        0x3000,
        "testing$bytecode_test_new_attribute",
        "",
        "",
        "new_flag:unit@250.1, new_param:i32@250.1",
        since="250.0",
        defaults={"new_param": 42},
    ),
    op(
        0x3002,
        "testing$bytecode_test_evolution",
        "result_token:token@250.1",
        "inputs*, optional_token?@250.1",
        "new_attr:i32?@250.1",
        since="250.0",
        attr_sized=True,
    ),
)

BY_OPCODE: dict[int, OpRow] = {row.opcode: row for row in ROWS}
BY_NAME: dict[str, OpRow] = {
    **{alias: row for row in ROWS for alias in row.aliases},
    **{row.name: row for row in ROWS},
}
