"""Generates `docs/dialects/nv_tileas.md` from the dialect's definitions.

Types, attributes, the atom catalog, every op (syntax, operands, results, properties,
regions, traits, verifier rules), the rule table, the memory-consistency set, the
builders and the seed-disagreement choices all come from the code; a pytest compares
the checked-in page with `render()`, so the page cannot drift.  Canonicalization
patterns (a `PATTERNS` list in `tileir.dialects.nv_tileas.canonicalize`, when present)
and the `tileas-*` passes of the registry are documented from their docstrings too.

Regenerate with `python -m tileir.dialects.nv_tileas.docs docs/dialects/nv_tileas.md`.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace

from xdsl.dialects.builtin import (
    ArrayAttr,
    ArrayOfConstraint,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, TypeAttribute
from xdsl.irdl import (
    AllOf,
    AnyAttr,
    AnyOf,
    BaseAttr,
    EqAttrConstraint,
    OptOperandDef,
    OptPropertyDef,
    OptRegionDef,
    OptResultDef,
    ParamAttrConstraint,
    RangeLengthConstraint,
    RangeOf,
    VarConstraint,
    VarOperandDef,
    VarRegionDef,
    VarResultDef,
)

from tileir.dialects.nv_tileas import builders
from tileir.dialects.nv_tileas.attributes import ATOM_CATALOG, ATTRIBUTES
from tileir.dialects.nv_tileas.foreign import AsyncValueType, TmaDescriptorTiledType
from tileir.dialects.nv_tileas.interfaces import MemoryConsistencyOp
from tileir.dialects.nv_tileas.layouts import LAYOUTS
from tileir.dialects.nv_tileas.ops import FAMILIES, TileASOp
from tileir.dialects.nv_tileas.types import TYPES
from tileir.dialects.nv_tileas.verifiers import RULES


@dataclass(frozen=True)
class Disagreement:
    """Where two seeds (or a seed and xDSL) disagree, and what tileir does."""

    topic: str
    choice: str


DISAGREEMENTS: tuple[Disagreement, ...] = (
    Disagreement(
        "What `view` returns (seed 003 builders vs its layout family)",
        "The builders view storage for tiled loads and stores (a `tiled_view` result); the "
        "family table calls the layout ops 'value views'.  Both are `nv_tileas.view`: a "
        "`tiled_view` result views storage (sub-view indices allowed), a tensor result is a "
        "value view of a tensor with the same element type and element count, without "
        "indices (rule `view-value`), and so is the bare element of a one-element tensor "
        "(the carrier of a rank-0 tile: cuda_tile's reshape to rank 0).  Seed 000's swap "
        "with extract_slice applies to both when the view keeps its source's shape.",
    ),
    Disagreement(
        "Layout-chain removal and the atom catalog (seed 000)",
        "The catalog is `ATOM_CATALOG` (table above).  `tileas-remove-layout-conversions` "
        "treats two agreeing layouts of one storage class as identity (no atom needed) and "
        "asks the catalog for a register-to-shared (`sts_*`) or shared-to-register "
        "(`lds_*`) atom between classes.  `convert-tileas-to-llvm` lowers every "
        "`convert_layout` as a register -> shared -> register exchange (docs/codegen.md), "
        "with `st.shared`/`ld.shared` up to 16 bytes wide, the same instructions the "
        "catalog's `sts_*`/`lds_*` atoms name.",
    ),
    Disagreement(
        "TMA load result type (seed 003 worked example vs its table)",
        "The table's `!nv_tileas.async.token` is the primary result; the worked example's "
        "`!async.value<T>` is accepted too when `T` is the destination's tile (rule "
        "`tma-result`).",
    ),
    Disagreement(
        "Worked example's TMA load operands",
        "It writes three operands for four segments (no barrier), one coordinate for a 2-D "
        "box, and types the destination `!nv_tileaa.tiled_view` while the value is the "
        "region's `tile` argument.  The table wins: one index coordinate per box dimension, "
        "then the barrier.  The example's destination form is accepted where reasonable: a "
        "TMA destination may be an smem `!nv_tileas.tiled_view`, an `!nv_tileaa.tiled_view` "
        "(a stage view whose residency is not assigned yet) or a stage-buffer tile (an "
        "argument of a producer region).  The test writes the barrier, a second coordinate "
        "and the tile type.",
    ),
    Disagreement(
        "Descriptor type",
        "The table's `!nv_tileas.tma_desc` and the example's `!cute_nvgpu.tma_descriptor_tiled` "
        "are both accepted by the TMA transfers (the latter declared in `foreign.py`).",
    ),
    Disagreement(
        "producerGroupId / consumerGroupId: `u8` (table) vs `0 : i8` (example)",
        "Any 8-bit integer attribute in [0, 255] is accepted; builders write `i8`, as printed "
        "in the example.",
    ),
    Disagreement(
        'create_pipeline\'s "six named operands"',
        "Seed 003 calls them operands, its table and example make `numStages`, "
        "`producerGroupId`, `consumerGroupId`, `sharedMem`, `dynamic` attributes beside the "
        "one buffer operand.  They are properties printed in the attribute dictionary under "
        "those names.",
    ),
    Disagreement(
        '"Region result types match the operation result types" (seed 001) vs the example',
        "`produce_one` returns a producer token while its region yields the stage payload.  "
        "The region-op rules therefore compare region arguments (iterators unwrapped) and "
        "yields with the declared payload (`producer_types` / `consumer_types`), and, for "
        "`producer_write` / `consumer_read`, yields with the payload results after the token.",
    ),
    Disagreement(
        "consumer_wait's consumer_idx (enum table: scalar op; worked example: attribute)",
        "`consume_one`, `consume_one_async`, `consumer_wait` and `consumer_read` all carry "
        "`consumer_idx`.  The consumer group has `num_agents_per_group` consumers inside an "
        "`agent_switch`, one outside (rule `consumer-idx`).",
    ),
    Disagreement(
        'producer_write / consumer_read: "scalar op" (enum table) vs regions (seeds 001, 002)',
        "Both have a region (seed 002's producer interface returns `producer_write`'s region); "
        "their results are the token followed by what the region yields.",
    ),
    Disagreement(
        "Iterator fields (four in seed 002's propagation section, one in its uniquer table)",
        "All four are type parameters; the element-type-only spelling means count `?` (not "
        "fixed yet), stride 1, address space smem.  A fixed count must equal the pipeline's "
        "`numStages` (rule `iterator-count`).",
    ),
    Disagreement(
        "Producer-side and consumer-side iterators (seed 002) vs seed 003's worked example",
        "Seed 002 keeps the two sides distinct (its `PipelineIterator` has an `IteratorKind`; "
        "the sides take part in different handshakes) while its uniquer table keys the "
        "iterator on the element type alone, and seed 003's worked example passes one "
        "iterator, made from the producer token, to `produce_one`, `consume_one` and "
        "`consumer_wait`.  tileir follows seed 002: the side is a fifth type parameter, "
        "`kind = producer | consumer`; the seeds' spelling `iterator<T>` is the producer "
        "side, the default.  `create_iterator` of the consumer token gives the consumer side, "
        "and each handshake op takes only its own side (rule `iterator-side`); the worked "
        "example as written parses and is rejected at `consume_one`, and the seed test gives "
        "its consumer side an iterator of its own.  The builder `CreateIteratorOp(token, "
        "type)` takes the side from the token.",
    ),
    Disagreement(
        "Agent budgets: `quantize_agent_warps` and the launch budget (seed 002)",
        "`max_regs` entries are resolved with seed 002's function verbatim "
        "(`8 * ceil_div(r + 7, 8)`, -1 inherits).  Agents of each consecutive group of "
        "`num_agents_per_group` regions must agree on the resolved value; the sum is checked "
        "against the integer attribute `nv_tileas.launch_budget` of the nearest enclosing op "
        "that has one (no budget, no check).",
    ),
    Disagreement(
        '"Memory operations with acquire, release or stronger semantics are not reordered '
        'across their synchronization boundary" (seed 001 invariant 12)',
        "Enforced structurally: every op that carries a memory semantic has memory effects or "
        "the MemoryConsistencyOp trait, and the verifier rejects an acquire/release access "
        "nested in a region pure rewrites may move wholesale (`nv_tileas.generate`, Pure ops; "
        "rule `ordered-placement`).",
    ),
    Disagreement(
        "Special padding values (seed 001 invariant 11)",
        "`padding_value` is an element-typed scalar or `#nv_tileas<padding zero|neg_zero|nan|"
        "pos_inf|neg_inf>`; all but zero need floating-point elements.  TMA padding and "
        "`oob_mode nan` need floating-point elements whatever the value.",
    ),
    Disagreement(
        "Seed 000 examples and xDSL's scf syntax",
        "xDSL's `scf.for` and `scf.if` want result types in parentheses (`-> (tensor<...>)`); "
        "the decompose-loop output's `%out = scf.for ... iter_args()` binds a result the loop "
        "does not have and uses an empty `iter_args()` xDSL does not parse, so the test writes "
        "the loop without both.  The result-less `nv_tileas.insert_slice` of that output "
        "parses as written (the op still has its result, unnamed).  `%y = %x` (extract from "
        "insert) is not IR and is not parsed.",
    ),
    Disagreement(
        "Bare `tile<...>` in nv_tileas ops",
        "Accepted and printed as `!cuda_tile.tile<...>` inside nv_tileas ops (their types, "
        "attribute dictionaries, regions and block arguments), as the seeds write it; the "
        "generic form stays qualified.",
    ),
    Disagreement(
        "`operandSegmentSizes` in the custom form (printed in seed 003's example)",
        "Accepted when written and checked against the operands; the custom printer elides "
        "it, as MLIR's does.",
    ),
    Disagreement(
        "Tile shape vs atom box (seed 003 `verify_tiled_load`)",
        "Copy atoms have no box (any tile); fixed-box atoms (`ldmatrix_x*`, `stmatrix_x*`) "
        "require exactly their box and element width; TMA atoms require their box rank.",
    ),
)

HEADER = """\
# `nv_tileas` — the operational async dialect

<!-- Generated by `python -m tileir.dialects.nv_tileas.docs docs/dialects/nv_tileas.md`
     from the definitions in tileir/dialects/nv_tileas/; a pytest checks it is current. -->

nv_tileas (seeds 000-003) makes a warp-specialized kernel explicit enough to schedule:
queue edges become producer and consumer regions, stage movement an SSA iterator,
asynchronous copies token-producing memory operations, layout choices concrete tiled
loads, stores, TMA descriptors and conversions.  Code: `tileir/dialects/nv_tileas/`
(`types`, `attributes`, `layouts`, `ops/` by family, `interfaces`, `verifiers`,
`builders`, `foreign`); tests: `tests/filecheck/dialects/nv_tileas/`,
`tests/pytest/test_nv_tileas_*.py`.

## Syntax conventions

* Inside nv_tileas ops, cuda_tile tiles may be written and are printed bare,
  `tile<128x128xf16>`, as the seeds write them; `!cuda_tile.tile<...>` parses too and
  the generic form (`--print-op-generic`) is fully qualified.
* Attributes and properties print together in one dictionary before the `:`;
  `operandSegmentSizes` is elided (and accepted when written, if it agrees).
* A token operand's type is `!nv_tileaa.mem_token` unless the type list names another
  (`!nv_tileas.async.token`) after the other operand types.
* Static/dynamic index lists mix integers and SSA values: `%src[%i, 0][64, %n][1, 1]`.

## Function attributes

* `nv_tileas.kernel` (unit): the function is a kernel, a cuda_tile `entry`.
  `convert-tileaa-to-tileas` sets it where nv_tileaa had `nv_tileaa.kernel`;
  `convert-tileas-to-llvm` lowers only such functions, each to an `llvm.func` with
  `nvvm.kernel` (a PTX `.entry`).
* `nv_tileas.num_warps` (i32): the warps per CTA `tileas-assign-layouts` chose (PTX
  `.reqntid`).
"""


# ---------------------------------------------------------------------------
# Pieces.
# ---------------------------------------------------------------------------


def _doc(obj: object) -> str:
    return inspect.cleandoc(obj.__doc__ or "")


def _paragraphs(obj: object) -> list[str]:
    return [p.strip() for p in _doc(obj).split("\n\n") if p.strip()]


def _one_line(text: str) -> str:
    """A paragraph on one line; bullet lists and tables keep one line per item."""
    lines = text.splitlines()
    if not any(line.startswith(("* ", "| ")) for line in lines):
        return " ".join(text.split())
    items: list[str] = []
    for line in lines:
        if line.startswith(("* ", "| ")) or not items:
            items.append(line.strip())
        else:
            items[-1] += " " + line.strip()
    return "\n".join(items)


def _syntax_and_description(op: type[Operation]) -> tuple[str, str]:
    """The op docstring's first paragraph is its syntax in backticks."""
    paragraphs = _paragraphs(op)
    first = _one_line(paragraphs[0]) if paragraphs else ""
    syntax = first.strip("`") if first.startswith("`") and first.endswith("`") else ""
    rest = paragraphs[1:] if syntax else paragraphs
    return syntax, "\n\n".join(_one_line(p) for p in rest)


def constraint_text(c: object) -> str:
    """A short human form of an IRDL constraint."""
    if isinstance(c, RangeLengthConstraint):
        return constraint_text(c.constraint)
    if isinstance(c, RangeOf):
        return constraint_text(c.constr)
    if isinstance(c, VarConstraint):
        return constraint_text(c.constraint)
    if isinstance(c, AnyAttr):
        return "any"
    if isinstance(c, ArrayOfConstraint):
        inner = constraint_text(c.elem_range_constraint)
        return "array" if inner == "any" else f"array of {inner}"
    if isinstance(c, AnyOf):
        return " or ".join(constraint_text(x) for x in c.attr_constrs)
    if isinstance(c, AllOf):
        return constraint_text(c.attr_constrs[-1])
    if isinstance(c, EqAttrConstraint):
        return f"`{c.attr}`"
    if isinstance(c, BaseAttr):
        return _attr_class_text(c.attr)
    if isinstance(c, ParamAttrConstraint):
        inner = [constraint_text(p) for p in c.param_constrs]
        if c.base_attr is IntegerAttr and inner:
            width = inner[-1]
            return "bool" if width == "`i1`" else f"{width} integer"
        return _attr_class_text(c.base_attr)
    return type(c).__name__


def _attr_class_text(cls: type[Attribute]) -> str:
    names: dict[type[Attribute], str] = {
        IntegerAttr: "integer",
        DenseArrayBase: "dense array",
        TensorType: "tensor",
        IndexType: "`index`",
        ArrayAttr: "array",
        StringAttr: "string",
        IntegerType: "integer type",
    }
    if cls in names:
        return names[cls]
    prefix = "!" if issubclass(cls, TypeAttribute) else "#"
    return f"`{prefix}{cls.name}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _op_table(op: type[Operation]) -> list[str]:
    d = op.get_irdl_definition()  # pyright: ignore[reportAttributeAccessIssue]
    rows: list[tuple[str, str, str, str]] = []
    for name, o in d.operands:
        kind = (
            "variadic"
            if isinstance(o, VarOperandDef) and not isinstance(o, OptOperandDef)
            else ("optional" if isinstance(o, OptOperandDef) else "single")
        )
        rows.append(("operand", name, constraint_text(o.constr), kind))
    for name, r in d.results:
        kind = (
            "variadic"
            if isinstance(r, VarResultDef) and not isinstance(r, OptResultDef)
            else ("optional" if isinstance(r, OptResultDef) else "single")
        )
        rows.append(("result", name, constraint_text(r.constr), kind))
    for name, p in d.properties.items():
        if name == "operandSegmentSizes":
            rows.append(("property", name, "dense array", "derived (elided in the custom form)"))
            continue
        rows.append(
            (
                "property",
                name,
                constraint_text(p.constr),
                "optional" if isinstance(p, OptPropertyDef) else "required",
            )
        )
    for name, r in d.regions:
        kind = (
            "one per agent"
            if isinstance(r, VarRegionDef) and not isinstance(r, OptRegionDef)
            else "single"
        )
        rows.append(("region", name, "region", kind))
    if not rows:
        return []
    lines = ["| slot | name | type | kind |", "|---|---|---|---|"]
    lines += [f"| {a} | `{b}` | {_cell(c)} | {d_} |" for a, b, c, d_ in rows]
    return lines


def _traits(op: type[Operation]) -> str:
    names = sorted({type(t).__name__ for t in op.traits})  # pyright: ignore[reportAttributeAccessIssue]
    return ", ".join(f"`{n}`" for n in names) if names else "none"


def _op_section(op: type[Operation]) -> list[str]:
    syntax, description = _syntax_and_description(op)
    lines = [f"### `{op.name}`", ""]
    if syntax:
        lines += ["```mlir", syntax, "```", ""]
    if description:
        lines += [description, ""]
    lines += _op_table(op)
    lines += ["", f"Traits: {_traits(op)}."]
    rules = op.RULES if issubclass(op, TileASOp) else ()
    if rules:
        lines += ["", "Verifier rules:", ""]
        lines += [f"* `{r}`: {RULES[r].summary}" for r in rules]
    return [*lines, ""]


def _types_section() -> list[str]:
    lines = ["## Types", "", "| type | class | description |", "|---|---|---|"]
    for t in [*TYPES, AsyncValueType, TmaDescriptorTiledType]:
        first = _one_line(_paragraphs(t)[0]) if _paragraphs(t) else ""
        lines.append(f"| `!{t.name}` | `{t.__name__}` | {_cell(first)} |")
    lines += [
        "",
        "The three tokens and `tma_desc` are parameterless: one instance each, all distinct.",
        "`!async.value` and `!cute_nvgpu.tma_descriptor_tiled` are the foreign types the seeds",
        "write (declared in `foreign.py`, each in a dialect of its own).",
        "",
    ]
    for t in TYPES:
        paragraphs = _paragraphs(t)
        if len(paragraphs) > 1:
            lines += [f"**`{t.name}`**:", "", *(f"{_one_line(p)}\n" for p in paragraphs[1:])]
    return lines


def _attributes_section() -> list[str]:
    lines = ["## Attributes", "", "| attribute | class | description |", "|---|---|---|"]
    for a in [*ATTRIBUTES, *LAYOUTS]:
        first = " ".join(_one_line(p) for p in _paragraphs(a))
        lines.append(f"| `#{a.name}` | `{a.__name__}` | {_cell(first)} |")
    return [*lines, ""]


def _atoms_section() -> list[str]:
    lines = [
        "## Atom catalog",
        "",
        "`#nv_tileas<atom NAME>` names one of these (`attributes.ATOM_CATALOG`).",
        "",
        "| atom | kind | moves | box | MMA operands | async | PTX |",
        "|---|---|---|---|---|---|---|",
    ]
    wgmma_families: set[str] = set()
    for a in ATOM_CATALOG.values():
        if a.engine == "wgmma" and a.mma_shape is not None and a.name.startswith("wgmma_m64n"):
            # One row per wgmma family, `{N}` for its N (one atom each).
            n = f"n{a.mma_shape[1]}k"
            family = a.name.replace(n, "n{N}k", 1)
            if family in wgmma_families:
                continue
            wgmma_families.add(family)
            a = replace(a, name=family, ptx=a.ptx.replace(n, "n{N}k", 1))
        moves = f"{a.source} → {a.destination}" if a.source and a.destination else (a.memory or "")
        box = (
            "x".join(str(d) for d in a.box)
            if a.box
            else (f"rank {a.box_rank}" if a.box_rank else "")
        )
        if a.tma_mode != "tile":
            box += f" ({a.tma_mode})"
        operands = " x ".join(a.operands[:2]) + f" → {a.operands[2]}" if a.operands else ""
        if a.engine == "fma" and a.operands is None:
            operands = "floats"
        lines.append(
            f"| `{a.name}` | {a.kind.value} | {moves} | {box} | {operands} | {'yes' if a.is_async else ''} | `{a.ptx}` |"
        )
    lines += [
        "",
        "`{N}` in a `wgmma` row stands for each N the instruction takes, one atom each "
        "(`MmaSpec.wgmma_n`): multiples of 8 up to 256; for the 8-bit integer families 8, "
        "16, 24 and the multiples of 16 up to 256.",
    ]
    return [*lines, ""]


def _ops_section() -> list[str]:
    lines = ["## Ops", ""]
    total = sum(len(ops) for ops in FAMILIES.values())
    lines.append(
        f"{total} ops in {len(FAMILIES)} families (seed 003's roster, then tileir's "
        "synchronization, shape and pointer), one module each under `ops/`."
    )
    lines.append("")
    for family, ops in FAMILIES.items():
        lines += [f"## Family: {family}", ""]
        module = ops[0].__module__
        intro = _paragraphs(sys.modules[module])
        lines += [f"{_one_line(p)}\n" for p in intro]
        for op in ops:
            lines += _op_section(op)
    return lines


def _rules_section() -> list[str]:
    enforced: dict[str, list[str]] = {r: [] for r in RULES}
    for ops in FAMILIES.values():
        for op in ops:
            for r in op.RULES if issubclass(op, TileASOp) else ():
                enforced[r].append(op.name.removeprefix("nv_tileas."))
    lines = [
        "## Verifier rules",
        "",
        "Each rule has an `expected-error` case in `tests/filecheck/dialects/nv_tileas/*_invalid.mlir`",
        "and a valid case in the round-trip files, both tagged `// RULE: <id>`.",
        "",
        "| rule | statement | source | ops |",
        "|---|---|---|---|",
    ]
    for r in RULES.values():
        ops = ", ".join(enforced[r.id])
        lines.append(f"| `{r.id}` | {_cell(r.summary)} | {r.source} | {ops} |")
    return [*lines, ""]


def _consistency_section() -> list[str]:
    ops = [
        op.name
        for family in FAMILIES.values()
        for op in family
        if MemoryConsistencyOp() in op.traits
    ]  # pyright: ignore[reportAttributeAccessIssue]
    from tileir.dialects.nv_tileas import interfaces

    return [
        "## Memory consistency and the safe-rewrite predicate",
        "",
        "\n\n".join(_one_line(p) for p in _paragraphs(interfaces)[:4]),
        "",
        "Ops with `MemoryConsistencyOp`: " + ", ".join(f"`{n}`" for n in ops) + ".",
        "",
        "API: `is_memory_consistency_op(op)`, `is_pure_tile_structure(op)`, "
        "`walk_tile_chain(value, is_sink)` → `TileChain` (`stop`, `ops`, `end`, `ok`, `sink`, "
        "`blocker`), `is_safe_to_rewrite(ops)`, `get_producer_region(op)`, "
        "`get_agent_warp_counts(op)`, `quantize_agent_warps(max_regs)`.",
        "",
    ]


def _builders_section() -> list[str]:
    lines = ["## Builders", "", " ".join(_one_line(p) for p in _paragraphs(builders)[:1]), ""]
    for name in builders.__all__:
        obj = getattr(builders, name)
        first = _one_line(_paragraphs(obj)[0]) if _paragraphs(obj) else ""
        if callable(obj) and not isinstance(obj, type):
            lines.append(f"* `{name}`: {first}" if first else f"* `{name}`")
        elif isinstance(obj, type):
            lines.append(f"* `{name}` (class): {first}")
    return [*lines, ""]


def _patterns_and_passes() -> list[str]:
    lines = ["## Canonicalization patterns", ""]
    try:
        canonicalize = importlib.import_module("tileir.dialects.nv_tileas.canonicalize")
        patterns: Iterable[type] = getattr(canonicalize, "PATTERNS", ())
    except ImportError:
        patterns = ()
    for p in patterns:
        lines.append(f"* `{p.__name__}`: " + " ".join(_one_line(x) for x in _paragraphs(p)))
    if len(lines) == 2:
        lines.append("None yet.")
    lines.append("")
    return [*lines, *_passes_section()]


def _pass_options(cls: type) -> list[tuple[str, str, str]]:
    """(option, type, default) of a pass's dataclass fields, options spelled kebab-case."""
    options: list[tuple[str, str, str]] = []
    for f in dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ():
        if f.name == "name" or not f.init:
            continue
        kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
        default = "" if f.default is dataclasses.MISSING else repr(f.default)
        options.append((f.name.replace("_", "-"), kind, default))
    return options


def _passes_section() -> list[str]:
    """Every `tileas-*` pass of the registry: its options and its module's docstring."""
    from tileir.registry import PASSES

    lines = ["## Passes", ""]
    for name in sorted(n for n in PASSES if n.startswith("tileas-")):
        cls = PASSES[name]()
        options = _pass_options(cls)
        spelled = ", ".join(f"{o}={d}" for o, _, d in options if d)
        lines += [f"### `{name}{{{spelled}}}`" if spelled else f"### `{name}`", ""]
        module = inspect.getmodule(cls)
        if module is not None and module.__file__:
            path = module.__name__.replace(".", "/") + ".py"
            lines += [f"File: `{path}`.", ""]
        if options:
            lines += ["| option | type | default |", "|---|---|---|"]
            lines += [f"| `{o}` | `{k}` | `{d}` |" for o, k, d in options]
            lines.append("")
        doc = inspect.cleandoc(module.__doc__ or "") if module is not None else ""
        lines += [doc or " ".join(_one_line(x) for x in _paragraphs(cls)), ""]
    return lines


def _disagreements_section() -> list[str]:
    lines = ["## Seed disagreements and choices", ""]
    lines += [f"* **{d.topic}.** {d.choice}" for d in DISAGREEMENTS]
    return [*lines, ""]


def render() -> str:
    parts = [
        HEADER,
        *_types_section(),
        *_attributes_section(),
        *_atoms_section(),
        *_ops_section(),
        *_rules_section(),
        *_consistency_section(),
        *_builders_section(),
        *_patterns_and_passes(),
        *_disagreements_section(),
    ]
    text = "\n".join(parts)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip("\n") + "\n"


def main(argv: list[str]) -> None:
    text = render()
    if len(argv) > 1:
        with open(argv[1], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv)
