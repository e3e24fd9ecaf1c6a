"""Structured regions: execute (agents of a warp-specialized kernel), pragma (optimizer
directives around a region) and their terminator, yield.

`execute` is seed 004's plugin operation: one region per agent, each agent in an agent
group, with the resources the scheduler must honour ("Plugin and Queue Contract"):
register budgets, shared- and tensor-memory scratch, named barriers, and the layouts
of its inputs and outputs.  `convert-tileaa-to-tileas` checks the resources against
the target and turns it into `nv_tileas.async.pipeline.agent_switch`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar, cast

from xdsl.dialects.builtin import (
    I32,
    I64,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, RecursiveMemoryEffect

from tileir.dialects.nv_tileaa.ops.base import (
    TileAAOp,
    canonicalized_by,
    defined_inside,
    parse_type_list,
    split_props,
    terminator,
    types_text,
)

#: A register budget that inherits the enclosing one (seed 002's sentinel).
INHERIT_REGISTERS = -1


def _int_values(attr: DenseArrayBase) -> list[int]:
    values = cast(DenseArrayBase[IntegerType], attr).get_values()
    return [int(v) for v in values]


@irdl_op_definition
class ExecuteOp(TileAAOp):
    """`nv_tileaa.execute (%x : T) attributes {agent_groups = array<i32: 0, 1>, max_registers = array<i32: 40, 232>, shared_memory_bytes = 0 : i64, tensor_memory_bytes = 0 : i64, named_barriers = 0 : i32} { ^bb0(%a : T): ... nv_tileaa.yield }, { ... }`

    Warp-specialized execution: one region per agent, each taking the operands as
    arguments.  `agent_groups` gives each region its agent group id (a group's regions
    are consecutive, every group has as many agents, and its agents agree on their
    budget); `max_registers` each agent's register budget (-1 inherits).  The scratch
    resources (`shared_memory_bytes`, `tensor_memory_bytes`, `named_barriers`, default
    0), `input_layouts` (one layout per operand) and `output_layouts` (one per agent) are
    the plugin contract; `isolated` agents see no value from outside."""

    name = "nv_tileaa.execute"
    inputs = var_operand_def()
    agent_groups = prop_def(DenseArrayBase)
    max_registers = prop_def(DenseArrayBase)
    shared_memory_bytes = opt_prop_def(IntegerAttr[I64])
    tensor_memory_bytes = opt_prop_def(IntegerAttr[I64])
    named_barriers = opt_prop_def(IntegerAttr[I32])
    input_layouts = opt_prop_def(ArrayAttr)
    output_layouts = opt_prop_def(ArrayAttr)
    isolated = opt_prop_def(BoolAttr)
    agents = var_region_def()

    PROPERTY_NAMES: ClassVar[tuple[str, ...]] = (
        "agent_groups",
        "max_registers",
        "shared_memory_bytes",
        "tensor_memory_bytes",
        "named_barriers",
        "input_layouts",
        "output_layouts",
        "isolated",
    )

    def __init__(
        self,
        agents: Sequence[Region],
        agent_groups: Sequence[int],
        max_registers: Sequence[int],
        *,
        inputs: Sequence[SSAValue] = (),
        shared_memory_bytes: int = 0,
        tensor_memory_bytes: int = 0,
        named_barriers: int = 0,
        input_layouts: Sequence[Attribute] | None = None,
        output_layouts: Sequence[Attribute] | None = None,
        isolated: bool = False,
    ):
        props: dict[str, Attribute] = {
            "agent_groups": DenseArrayBase.from_list(i32, list(agent_groups)),
            "max_registers": DenseArrayBase.from_list(i32, list(max_registers)),
        }
        if shared_memory_bytes:
            props["shared_memory_bytes"] = IntegerAttr(shared_memory_bytes, i64)
        if tensor_memory_bytes:
            props["tensor_memory_bytes"] = IntegerAttr(tensor_memory_bytes, i64)
        if named_barriers:
            props["named_barriers"] = IntegerAttr(named_barriers, i32)
        if input_layouts is not None:
            props["input_layouts"] = ArrayAttr(list(input_layouts))
        if output_layouts is not None:
            props["output_layouts"] = ArrayAttr(list(output_layouts))
        if isolated:
            props["isolated"] = BoolAttr.from_bool(True)
        super().__init__(operands=[list(inputs)], regions=[list(agents)], properties=props)

    @property
    def groups(self) -> list[int]:
        return _int_values(self.agent_groups)

    @property
    def budgets(self) -> list[int]:
        return _int_values(self.max_registers)

    @property
    def group_size(self) -> int:
        groups = self.groups
        return groups.count(groups[0]) if groups else 1

    def resource(self, name: str) -> int:
        attr = self.properties.get(name)
        return attr.value.data if isinstance(attr, IntegerAttr) else 0

    @property
    def is_isolated(self) -> bool:
        return self.isolated is not None and bool(self.isolated.value.data)

    def print(self, printer: Printer) -> None:
        if self.inputs:
            printer.print_string(" (")
            printer.print_list(self.inputs, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.inputs], printer.print_attribute)
            printer.print_string(")")
        printer.print_op_attributes({**self.properties, **self.attributes}, print_keyword=True)
        for i, region in enumerate(self.agents):
            printer.print_string(", " if i else " ")
            printer.print_region(region, print_entry_block_args=True, print_empty_block=True)

    @classmethod
    def parse(cls, parser: Parser) -> ExecuteOp:
        inputs: list[SSAValue] = []
        if parser.parse_optional_punctuation("(") is not None:
            names = [parser.parse_unresolved_operand()]
            while parser.parse_optional_punctuation(",") is not None:
                names.append(parser.parse_unresolved_operand())
            parser.parse_punctuation(":")
            types = parse_type_list(parser)
            parser.parse_punctuation(")")
            if len(types) != len(names):
                parser.raise_error(f"{len(names)} inputs with {len(types)} types")
            inputs = [parser.resolve_operand(n, t) for n, t in zip(names, types, strict=True)]
        attrs = parser.parse_optional_attr_dict_with_keyword()
        entries = dict(attrs.data) if attrs is not None else {}
        props, rest = split_props(entries, cls.PROPERTY_NAMES)
        regions = [parser.parse_region()]
        while parser.parse_optional_punctuation(",") is not None:
            regions.append(parser.parse_region())
        return cls.build(operands=[inputs], regions=[regions], properties=props, attributes=rest)

    def verify_(self) -> None:
        for key, attr in (
            ("agent_groups", self.agent_groups),
            ("max_registers", self.max_registers),
        ):
            if attr.elt_type != i32:
                raise self.op_error(f"{key} must be an array<i32: ...>")
        n = len(self.agents)
        groups, budgets = self.groups, self.budgets
        if n < 1:
            raise self.op_error("needs at least one agent region")
        if len(groups) != n or len(budgets) != n:
            raise self.op_error(
                f"agent_groups ({len(groups)}) and max_registers ({len(budgets)}) need one entry per "
                f"agent region ({n})"
            )
        for g in groups:
            if not 0 <= g <= 255:
                raise self.op_error(f"agent group ids are in [0, 255], got {g}")
        runs: list[tuple[int, int]] = []  # (group, count) of consecutive regions
        for g in groups:
            if runs and runs[-1][0] == g:
                runs[-1] = (g, runs[-1][1] + 1)
            else:
                runs.append((g, 1))
        if len({g for g, _ in runs}) != len(runs):
            raise self.op_error(
                f"the regions of an agent group must be consecutive, got groups {groups}"
            )
        if len({c for _, c in runs}) != 1:
            raise self.op_error(f"every agent group needs as many agents, got groups {groups}")
        for b in budgets:
            if b != INHERIT_REGISTERS and b <= 0:
                raise self.op_error(f"max_registers entries are positive or -1 (inherit), got {b}")
        start = 0
        for g, count in runs:
            if len(set(budgets[start : start + count])) != 1:
                raise self.op_error(
                    f"the agents of group {g} disagree on their register budget "
                    f"{budgets[start : start + count]}"
                )
            start += count
        for key in ("shared_memory_bytes", "tensor_memory_bytes", "named_barriers"):
            if self.resource(key) < 0:
                raise self.op_error(f"{key} must be non-negative, got {self.resource(key)}")
        if self.input_layouts is not None and len(self.input_layouts.data) != len(self.inputs):
            raise self.op_error(
                f"input_layouts has {len(self.input_layouts.data)} entries for {len(self.inputs)} inputs"
            )
        if self.output_layouts is not None and len(self.output_layouts.data) != n:
            raise self.op_error(
                f"output_layouts has {len(self.output_layouts.data)} entries for {n} agents"
            )
        input_types = [v.type for v in self.inputs]
        for i, region in enumerate(self.agents):
            block = region.blocks.first
            if block is None:
                raise self.op_error(f"agent region {i} is empty")
            if [a.type for a in block.args] != input_types:
                raise self.op_error(
                    f"agent region {i} arguments must match the inputs ({types_text(input_types)})"
                )
            last = terminator(region)
            if not isinstance(last, YieldOp) or last.values:
                raise self.op_error(f"agent region {i} must end with an empty nv_tileaa.yield")
            if self.is_isolated:
                for op in region.walk():
                    for v in op.operands:
                        if not defined_inside(v, region):
                            raise self.op_error(
                                f"isolated agent region {i} uses a value defined outside it (pass it as an input)"
                            )


#: `$N` in a directive names the pragma's result N (its payload depends on it).
RESULT_REFERENCE = re.compile(r"\$(\d+)")


def directive_results(directive: str) -> list[int]:
    return [int(m) for m in RESULT_REFERENCE.findall(directive)]


@irdl_op_definition
class PragmaOp(TileAAOp):
    """`%r = nv_tileaa.pragma -> (tensor<128xf32>) attributes {ocgEnterDirectives = ["maxnreg=128"], ocgLeaveDirectives = ["maxnreg=default"]} { ... nv_tileaa.yield %v : tensor<128xf32> }`

    Runs its region with optimizer-control directives (`ocgEnterDirectives` active on
    entry, `ocgLeaveDirectives` on exit) and carries the values its yield gives out as
    results.  A directive that names a result as `$N` is about that result (for example
    `"keep_in_registers=$0"`); its payload depends on it."""

    name = "nv_tileaa.pragma"
    ocg_enter = opt_prop_def(ArrayAttr[StringAttr], prop_name="ocgEnterDirectives")
    ocg_leave = opt_prop_def(ArrayAttr[StringAttr], prop_name="ocgLeaveDirectives")
    outputs = var_result_def()
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), canonicalized_by("PrunePragmaResults"))

    def __init__(
        self,
        body: Region,
        result_types: Sequence[Attribute] = (),
        *,
        enter: Sequence[str] = (),
        leave: Sequence[str] = (),
    ):
        props: dict[str, Attribute] = {}
        if enter:
            props["ocgEnterDirectives"] = ArrayAttr([StringAttr(d) for d in enter])
        if leave:
            props["ocgLeaveDirectives"] = ArrayAttr([StringAttr(d) for d in leave])
        super().__init__(result_types=[list(result_types)], regions=[body], properties=props)

    def directives(self) -> list[str]:
        out: list[str] = []
        for attr in (self.ocg_enter, self.ocg_leave):
            if attr is not None:
                out += [d.data for d in attr.data]
        return out

    def referenced_results(self) -> set[int]:
        return {i for d in self.directives() for i in directive_results(d)}

    def print(self, printer: Printer) -> None:
        if self.outputs:
            printer.print_string(" -> (")
            printer.print_list([r.type for r in self.outputs], printer.print_attribute)
            printer.print_string(")")
        printer.print_op_attributes({**self.properties, **self.attributes}, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body)

    @classmethod
    def parse(cls, parser: Parser) -> PragmaOp:
        types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            parser.parse_punctuation("(")
            if parser.parse_optional_punctuation(")") is None:
                types = parse_type_list(parser)
                parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        entries = dict(attrs.data) if attrs is not None else {}
        props, rest = split_props(entries, ("ocgEnterDirectives", "ocgLeaveDirectives"))
        body = parser.parse_region()
        return cls.build(result_types=[types], regions=[body], properties=props, attributes=rest)

    def verify_(self) -> None:
        if self.ocg_enter is None and self.ocg_leave is None:
            raise self.op_error("needs ocgEnterDirectives or ocgLeaveDirectives")
        last = terminator(self.body)
        if not isinstance(last, YieldOp):
            raise self.op_error("region must end with nv_tileaa.yield")
        got = [v.type for v in last.values]
        want = [r.type for r in self.outputs]
        if got != want:
            raise self.op_error(
                f"region yields ({types_text(got)}) but the results are ({types_text(want)})"
            )
        for i in sorted(self.referenced_results()):
            if i >= len(self.outputs):
                raise self.op_error(f"a directive names result ${i} of {len(self.outputs)}")


@irdl_op_definition
class YieldOp(TileAAOp):
    """`nv_tileaa.yield %v : tensor<128xf32>`

    Terminates a pragma region (its results) or an agent region of execute (nothing)."""

    name = "nv_tileaa.yield"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(PragmaOp, ExecuteOp)))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(values)])


REGION_OPS: list[type[TileAAOp]] = [ExecuteOp, PragmaOp, YieldOp]
