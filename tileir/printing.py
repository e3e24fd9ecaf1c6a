"""tileir's printer: xDSL's, plus what NVIDIA's cuda_tile text needs.

1. *Prefix-free op names.*  Inside `cuda_tile.module` (and any other cuda_tile op with
   regions) nested cuda_tile ops print without the `cuda_tile.` prefix, as MLIR does
   for an op whose `getDefaultDialect()` is cuda_tile.  The generic form stays fully
   qualified.
2. *MLIR's SSA names.*  Inside a cuda_tile module, values get the names MLIR's
   `AsmState` would give them, computed before printing as MLIR does: a region's
   values are numbered before those of the regions nested in it, which continue the
   count; op-suggested names (`asm_result_names`: `%tview`, `%cst_1_i32`,
   `%blockId_x`) and block-argument names (`asm_block_arg_names`: `%loopIdx`) are
   made unique with a conflict counter (`%assume_0`, `%cst_1_i32_2`); unnamed entry
   block arguments are `%argN`; a named result starts a result group (`%reduce:2`,
   used as `%reduce#1`), and unnamed multi-result ops print as one group (`%0:3`).
   Outside, xDSL's naming (which keeps name hints) applies unchanged.
3. *Aliases.*  As MLIR, attributes that have an alias name are printed once, as
   `#name = ...` definitions, and referred to by name: the debug-info attributes
   (`#di_file`, `#di_compile_unit`, `#di_subprogram`, `#di_lexical_block`), the
   nv_tileas layouts in tensor types, as Triton prints its layouts (`#blocked`,
   `#blocked1`, `#slice`, `#mma`, `#shared`: a tensor reads `tensor<16x64xf32,
   #blocked>`), and, when locations are printed, every location (`#loc`, `#loc1`, ...;
   an op then ends in `loc(#loc3)`).  Aliases only used by locations are printed after
   the op, the others before it; they are numbered in order of nesting depth, then
   name.  The parser reads them back.  `local_scope=True` (tileir-opt's
   `--print-local-scope`, MLIR's `--mlir-print-local-scope`) prints every attribute in
   place instead.
4. *One name per value in every stage.*  `convert-cuda-tile-to-tileaa` pins each value's
   cuda_tile name (the one item 2 gives it: `%reduce_10`, `%tile`, `%blockId_x`) as its
   name hint (`pin_source_names`), the rewrites carry hints to the values that replace
   it, and outside cuda_tile modules this printer prints a pinned value under that very
   name (xDSL's own naming would keep only `reduce` and count again).  All pinned names
   of the module are reserved first, so a value named from an ordinary hint never takes
   one; where two values carry the same pinned name (one op became two), the second is
   suffixed.  A value followed from `cuda_tile` to `tileaa`, `tileas` and `llvm` keeps its
   name, in `tileir-as --emit`, `tileir-opt` and the Python API alike.
5. *cuTile Python's names.*  A value named after the Python variable it was assigned to
   (`tileir.source_names`, hint ending in `PYTHON_NAMED`) takes that name in item 2's
   numbering instead of its op's suggestion, made unique the same way (`%tx`, `%acc_24`),
   and item 4 pins it, still marked as Python's: `tx = ct.load(...)` is `%tx` in every
   stage (a loop's or an `if`'s block argument or result named after the variable it
   carries, `%acc_24` for `acc`, takes it instead of `%iterArg0`), its registers in the llvm stage are `%tx.0`, `%tx.1`, ...
   (`conversions/tileas_to_llvm/names.py`), and the PTX instructions that write them end
   in their names, `// tx.0` (`backend/ptx/target.py`).
6. *Signatures that fit the screen.*  With a `width` (`SIGNATURE_WIDTH` in the stages
   `tileir-as --emit`, the Python API and the pass traces print), a `func.func` whose
   parameters or attributes would pass it has them on lines of their own, packed, four
   columns in: a cuTile kernel has four to eight parameters per array, so its signature
   was the longest line of every stage after cuda_tile (up to 795 columns).  MLIR text
   does not care where lines break, so the text reads back the same.  `tileir-opt`
   prints one line per op, as mlir-opt does (FileCheck patterns match whole lines).
7. *Lines that fit the screen.*  With a `line_width` (`LINE_WIDTH`, 120, in the same
   places as item 6), every other line longer than that is wrapped where MLIR's syntax
   allows a break (`wrap_line`: after the `, ` of a list, before the ` : ` of the types,
   an ` -> ` or a symbol, `@name`), its continuations four columns deeper: an nv_tileas
   op with its attributes and layout-bearing types was up to 470 columns.  cuda_tile text is not
   wrapped: it is printed as NVIDIA's tileirdisasm prints it.  Strings are never
   broken, so what the IR records for the remarks is a list of short clauses
   (`nv_tileas.operand_feed`), not one sentence.
"""

from __future__ import annotations

import functools
import io
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    DictionaryAttr,
    FileLineColLoc,
    FusedLoc,
    NameLoc,
    UnknownLoc,
)
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Operation,
    OpResult,
    ParametrizedAttribute,
    Region,
    SSAValue,
)
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove

CUDA_TILE = "cuda_tile"

#: The width beyond which a function's signature is wrapped (item 6).
SIGNATURE_WIDTH = 100

#: The width beyond which any other line of a stage's text is wrapped (item 7).
LINE_WIDTH = 120

_BUILTIN_LOCATIONS = (UnknownLoc, FileLineColLoc, NameLoc, FusedLoc, CallSiteLoc)


def _is_cuda_tile(op: Operation) -> bool:
    return op.name.startswith("cuda_tile.")


def in_cuda_tile_scope(op: Operation) -> bool:
    """True when some ancestor of `op` is a cuda_tile op (so `op` inherits cuda_tile as
    its default dialect)."""
    parent = op.parent_op()
    return parent is not None and _is_cuda_tile(parent)


def in_cuda_tile_module(op: Operation) -> bool:
    """True for a `cuda_tile.module` and everything nested in one: the text NVIDIA's
    tools print, named as MLIR's AsmState names it.  cuda_tile ops with regions that
    the lowering left inside a `func.func` (reduce, scan) are not: their values share
    the function's xDSL names, so a region body cannot restart the numbering at `%0`
    and redefine a name of the enclosing function."""
    current: Operation | None = op
    while current is not None:
        if current.name == "cuda_tile.module":
            return True
        current = current.parent_op()
    return False


def suggested_names(op: Operation) -> tuple[str | None, ...]:
    """The names an op suggests for its results (MLIR's getAsmResultNames)."""
    hook = getattr(op, "asm_result_names", None)
    if hook is None:
        return ()
    return tuple(hook())


def source_base_name(value: SSAValue) -> str | None:
    """The name `value`'s defining op suggests for it, before uniquing."""
    if not isinstance(value, OpResult):
        return None
    names = suggested_names(value.op)
    if value.index < len(names):
        return names[value.index]
    return None


#: Ends the name hint of a value pinned to its cuda_tile name: xDSL strips a trailing
#: `_N` from hints (`reduce_10` would become `reduce`), and keeps one that ends so.
PINNED = "$"

#: Ends the name hint of a value named after the cuTile Python variable it was assigned
#: to (`tileir.source_names`): the cuda_tile printer gives it that name (made unique)
#: instead of its op's suggestion, and the later stages the same.
PYTHON_NAMED = PINNED + PINNED


def python_name(value: SSAValue) -> str | None:
    """The cuTile Python variable `value` was assigned to, if known."""
    hint = value.name_hint
    return hint[: -len(PYTHON_NAMED)] if hint is not None and hint.endswith(PYTHON_NAMED) else None


def pin_source_names(root: Operation) -> None:
    """Pin every value of the cuda_tile modules under `root` to the name the cuda_tile
    text shows for it.  Numbered values and members of a result group keep none, and
    so does a value whose text gave it a name of its own (`%src` where the cuda_tile
    printer, as MLIR's, says `%arg0`): later stages show the name the user wrote."""
    names: dict[SSAValue, str] = {}
    for op in root.walk():
        if op.name == "cuda_tile.module":
            _MlirNumbering(names, {}).number_root(op)
    for value, name in names.items():
        if "#" in name or name[0].isdigit():
            continue
        hint = value.name_hint
        if python_name(value) is not None:
            # Still marked as Python's (the PTX printer comments on these only).
            value.name_hint = name + PYTHON_NAMED
        elif hint is None or hint == type(value).extract_valid_name(name):
            value.name_hint = name + PINNED


def pinned_name(value: SSAValue) -> str | None:
    """The cuda_tile name `value` was pinned to (or its Python variable), if any."""
    hint = value.name_hint
    if hint is None or not hint.endswith(PINNED):
        return None
    return python_name(value) or hint[: -len(PINNED)]


def _is_location(attr: Attribute) -> bool:
    from tileir.dialects.cuda_tile.debug_info import DILocAttr

    return isinstance(attr, (*_BUILTIN_LOCATIONS, DILocAttr))


def alias_name(attr: Attribute) -> str | None:
    """The alias MLIR's printer gives `attr` (None: printed in place)."""
    from tileir.dialects.cuda_tile.debug_info import ALIAS_NAMES

    if _is_location(attr):
        return "loc"
    return ALIAS_NAMES.get(type(attr)) or _layout_alias_names().get(type(attr))


@functools.cache
def _layout_alias_names() -> dict[type[Attribute], str]:
    """nv_tileas's layouts, aliased by kind as Triton's printer aliases its own."""
    from tileir.dialects.nv_tileas.layouts import (
        BlockedLayoutAttr,
        SharedLayoutAttr,
        SliceLayoutAttr,
    )
    from tileir.dialects.nv_tileas.mma_layout import MmaLayoutAttr

    return {
        BlockedLayoutAttr: "blocked",
        SliceLayoutAttr: "slice",
        MmaLayoutAttr: "mma",
        SharedLayoutAttr: "shared",
    }


def _sub_attributes(attr: Attribute) -> Iterator[Attribute]:
    if isinstance(attr, ArrayAttr):
        yield from attr.data  # pyright: ignore[reportUnknownMemberType]
    elif isinstance(attr, DictionaryAttr):
        yield from attr.data.values()
    elif isinstance(attr, ParametrizedAttribute):
        for p in attr.parameters:
            if isinstance(p, Attribute):
                yield p


@dataclass
class _AliasInfo:
    name: str | None
    depth: int = 0
    deferred: bool = True
    order: int = 0


class _NameScope:
    """Names visible in one region: its own and those of the enclosing regions."""

    def __init__(self, parent: _NameScope | None):
        self.parent = parent
        self.names: set[str] = set()

    def __contains__(self, name: str) -> bool:
        scope: _NameScope | None = self
        while scope is not None:
            if name in scope.names:
                return True
            scope = scope.parent
        return False


class _MlirNumbering:
    """MLIR's SSANameState: names for every value under a root op."""

    def __init__(self, names: dict[SSAValue, str], groups: dict[Operation, list[int]]):
        self.names = names
        self.groups = groups
        self.next_value = 0
        self.next_argument = 0
        self.next_conflict = 0
        self.scope = _NameScope(None)
        #: Values numbered (rather than named); their number, for groups.
        self.numbers: dict[SSAValue, str] = {}

    def unique(self, name: str) -> str:
        if name not in self.scope:
            self.scope.names.add(name)
            return name
        while True:
            candidate = f"{name}_{self.next_conflict}"
            self.next_conflict += 1
            if candidate not in self.scope:
                self.scope.names.add(candidate)
                return candidate

    def set_name(self, value: SSAValue, name: str | None) -> None:
        if name:
            self.numbers[value] = self.unique(name)
        else:
            self.numbers[value] = str(self.next_value)
            self.next_value += 1

    def number_root(self, root: Operation) -> None:
        self.number_op(root)
        stack: list[tuple[Region, int, int, int, _NameScope]] = [
            (r, self.next_value, self.next_argument, self.next_conflict, self.scope)
            for r in root.regions
        ]
        while stack:
            region, self.next_value, self.next_argument, self.next_conflict, parent = stack.pop()
            self.scope = _NameScope(parent)
            self.number_region(region)
            for block in region.blocks:
                for op in block.ops:
                    stack.extend(
                        (r, self.next_value, self.next_argument, self.next_conflict, self.scope)
                        for r in op.regions
                    )
        self.finish()

    def number_region(self, region: Region) -> None:
        parent = region.parent_op()
        hook = getattr(parent, "asm_block_arg_names", None)
        for block in region.blocks:
            if hook is not None:
                for arg, name in zip(block.args, hook(block), strict=False):
                    name = python_name(arg) or name
                    if name:
                        self.set_name(arg, name)
        for block in region.blocks:
            self.number_block(block, block is region.blocks[0])

    def number_block(self, block: Block, entry: bool) -> None:
        for arg in block.args:
            if arg in self.numbers:
                continue
            if (name := python_name(arg)) is not None:
                self.set_name(arg, name)
            elif entry:
                self.set_name(arg, f"arg{self.next_argument}")
                self.next_argument += 1
            else:
                self.set_name(arg, None)
        for op in block.ops:
            self.number_op(op)

    def number_op(self, op: Operation) -> None:
        if not op.results:
            return
        starts = [0]
        suggested = suggested_names(op)
        for i, result in enumerate(op.results):
            name = python_name(result) or (suggested[i] if i < len(suggested) else None)
            if name:
                self.set_name(op.results[i], name)
                if i:
                    starts.append(i)
        if op.results[0] not in self.numbers:
            self.set_name(op.results[0], None)
        self.groups[op] = sorted(starts)

    def finish(self) -> None:
        """Turn group heads into the printed name of every result (`%g#k`)."""
        for value, name in self.numbers.items():
            if not isinstance(value, OpResult):
                self.names[value] = name
        for op, starts in self.groups.items():
            if op.results and op.results[0] not in self.numbers:
                continue
            n = len(op.results)
            bounds = [*starts, n]
            for start, end in itertools.pairwise(bounds):
                head = self.numbers[op.results[start]]
                for i in range(start, end):
                    self.names[op.results[i]] = head if end - start == 1 else f"{head}#{i - start}"


@dataclass(eq=False, repr=False)
class TileirPrinter(Printer):
    #: Print every attribute in place, without alias definitions.
    local_scope: bool = field(default=False, kw_only=True)
    #: Wrap a `func.func` signature longer than this many columns (item 6; None: never).
    width: int | None = field(default=None, kw_only=True)
    #: Wrap every other line longer than this many columns (item 7; None: never).
    line_width: int | None = field(default=None, kw_only=True)
    _mlir_names: dict[SSAValue, str] = field(default_factory=dict, init=False)
    _mlir_groups: dict[Operation, list[int]] = field(default_factory=dict, init=False)
    _op_depth: int = field(default=0, init=False)
    _attr_depth: int = field(default=0, init=False)
    _aliases: dict[Attribute, str] = field(default_factory=dict, init=False)
    _alias_order: list[tuple[Attribute, bool]] = field(default_factory=list, init=False)
    _defining: Attribute | None = field(default=None, init=False)
    #: Outside cuda_tile modules, per scope (an op isolated from above, as xDSL's
    #: naming): the pinned names of the scope (never given to another value), the names
    #: given so far, and the next suffix of each base name.
    _name_scopes: list[_StableNames] = field(default_factory=list, init=False)

    # -- ops --------------------------------------------------------------
    def print_op(self, op: Operation) -> None:
        if self._op_depth == 0 and self.line_width is not None and not _holds_cuda_tile(op):
            stream, self.stream = self.stream, io.StringIO()
            try:
                self._print_root(op)
                text = self.stream.getvalue()
            finally:
                self.stream = stream
            self.print_string(wrap_lines(text, self.line_width))
            return
        self._print_root(op)

    def _print_root(self, op: Operation) -> None:
        root = self._op_depth == 0
        if root:
            self._collect_aliases(op)
            self._print_alias_definitions(deferred=False)
        scoped = root or bool(op.get_traits_of_type(IsolatedFromAbove))
        if scoped:
            outer = self._name_scopes[-1] if self._name_scopes else _StableNames()
            self._name_scopes.append(outer.nested(op))
        self._op_depth += 1
        try:
            self._print_op(op)
        finally:
            self._op_depth -= 1
            if scoped:
                self._name_scopes.pop()
        if root:
            self._print_alias_definitions(deferred=True)

    def _print_op(self, op: Operation) -> None:
        mlir_scope = in_cuda_tile_module(op)
        if not mlir_scope:
            return super().print_op(op)
        if (op.results and op.results[0] not in self._mlir_names) or (
            any(op.regions) and not self._numbered(op)
        ):
            self._number(op)
        self._print_mlir_results(op)
        custom = not self.print_generic_format and type(op).print is not Operation.print
        if custom and in_cuda_tile_scope(op) and _is_cuda_tile(op):
            self.print_string(op.name.split(".", 1)[1])
        elif custom:
            self.print_string(op.name)
        else:
            self.print_string(f'"{op.name}"')
        if custom:
            op.print(self)
            if self.print_debuginfo:
                self.print_string(" ")
                self.print_attribute(op.location)
        else:
            self.print_op_with_default_format(op)

    def _numbered(self, op: Operation) -> bool:
        for region in op.regions:
            for block in region.blocks:
                if block.args and block.args[0] not in self._mlir_names:
                    return False
                for inner in block.ops:
                    if inner.results and inner.results[0] not in self._mlir_names:
                        return False
        return True

    def _number(self, root: Operation) -> None:
        """Name every value under `root` as MLIR's AsmState does (in the generic form
        MLIR does not ask ops for names)."""
        kind = _GenericNumbering if self.print_generic_format else _MlirNumbering
        kind(self._mlir_names, self._mlir_groups).number_root(root)

    def _print_mlir_results(self, op: Operation) -> None:
        if not op.results:
            return
        starts = self._mlir_groups.get(op, [0])
        bounds = [*starts, len(op.results)]
        for k, (start, end) in enumerate(itertools.pairwise(bounds)):
            if k:
                self.print_string(", ")
            name = self._mlir_names.get(op.results[start])
            if name is None:
                super().print_ssa_value(op.results[start])
            else:
                self.print_string("%" + name.split("#")[0])
            if end - start > 1:
                self.print_string(f":{end - start}")
        self.print_string(" = ")

    # -- long signatures ------------------------------------------------------
    def print_list(
        self, elems: Iterable[Any], print_fn: Callable[[Any], Any], delimiter: str = ", "
    ) -> None:
        items = list(elems)
        if self.width is None or delimiter != ", " or not _is_signature(items):
            return super().print_list(items, print_fn, delimiter)
        pieces = [self._rendered(print_fn, item) for item in items]
        if self._current_column + len(", ".join(pieces)) + 1 > self.width:  # and `)`
            self._print_new_line(indent=self._indent + 2)
        self._print_packed(pieces, self._indent + 2)

    def print_op_attributes(
        self,
        attributes: Mapping[str, Attribute],
        *,
        reserved_attr_names: Iterable[str] = (),
        print_keyword: bool = False,
    ) -> bool:
        reserved = set(reserved_attr_names)
        shown = {k: v for k, v in attributes.items() if k not in reserved}
        if self.width is None or not print_keyword or not shown:
            return super().print_op_attributes(
                attributes, reserved_attr_names=reserved, print_keyword=print_keyword
            )
        pieces = [self._rendered(self._print_attr_string, item) for item in shown.items()]
        if self._current_column + len(" attributes {" + ", ".join(pieces)) + 3 <= self.width:
            self.print_string(" attributes {" + ", ".join(pieces) + "}")
            return True
        self._print_new_line(indent=self._indent + 2)
        self.print_string("attributes {")
        self._print_packed(pieces, self._indent + 3)
        self.print_string("}")
        return True

    def _rendered(self, print_fn: Callable[[Any], Any], item: Any) -> str:
        """What `print_fn(item)` prints, taken instead of printed."""
        stream, column = self.stream, self._current_column
        self.stream = io.StringIO()
        try:
            print_fn(item)
            return self.stream.getvalue()
        finally:
            self.stream, self._current_column = stream, column

    def _print_packed(self, pieces: list[str], indent: int) -> None:
        """`pieces` joined by `, `, a new line (at `indent`) before one that would pass
        the width."""
        assert self.width is not None
        for i, piece in enumerate(pieces):
            if i:
                self.print_string(",")
                if self._current_column + 1 + len(piece) + 1 > self.width:
                    self._print_new_line(indent=indent)
                else:
                    self.print_string(" ")
            self.print_string(piece)

    # -- values -------------------------------------------------------------
    def print_ssa_value(self, value: SSAValue) -> str:
        name = self._mlir_names.get(value)
        if name is None:
            if value not in self._ssa_values and value.name_hint:
                self._ssa_values[value] = self._stable_name(value)
            return super().print_ssa_value(value)
        self.print_string(f"%{name}")
        return name

    def _stable_name(self, value: SSAValue) -> str:
        return self._name_scopes[-1].name(value)

    # -- attributes and aliases ---------------------------------------------
    def print_attribute(self, attribute: Attribute) -> None:
        top = self._attr_depth == 0
        self._attr_depth += 1
        try:
            alias = self._alias_of(attribute)
            if alias is not None:
                if top and not self.printing_location and _is_location(attribute):
                    self.print_string(f"loc({alias})")
                else:
                    self.print_string(alias)
                return
            if (
                top
                and not self.printing_location
                and _is_location(attribute)
                and not isinstance(attribute, _BUILTIN_LOCATIONS)
                and self._defining is None
            ):
                # A dialect location (di_loc) at an op: `loc(#cuda_tile.di_loc<...>)`.
                self.print_string("loc(")
                super().print_attribute(attribute)
                self.print_string(")")
                return
            super().print_attribute(attribute)
        finally:
            self._attr_depth -= 1

    def _alias_of(self, attribute: Attribute) -> str | None:
        if not self._aliases or attribute is self._defining:
            return None
        try:
            return self._aliases.get(attribute)
        except TypeError:  # an attribute holding unhashable data has no alias
            return None

    def _collect_aliases(self, root: Operation) -> None:
        infos: dict[Attribute, _AliasInfo] = {}

        def visit(attr: Attribute, deferred: bool) -> int:
            try:
                info = infos.get(attr)
            except TypeError:  # an attribute holding unhashable data has no alias
                return 0
            if info is not None:
                if not deferred:
                    info.deferred = False
                return info.depth
            info = _AliasInfo(alias_name(attr), deferred=deferred, order=len(infos))
            infos[attr] = info
            depth = 0
            for child in _sub_attributes(attr):
                child_depth = visit(child, deferred)
                child_info = infos[child]
                depth = max(depth, child_depth + 1 if child_info.name else child_depth)
            info.depth = depth
            return depth

        if self.local_scope:
            return
        for op in root.walk():
            if self.print_debuginfo:
                visit(op.location, True)
            for attr in (*op.attributes.values(), *op.properties.values()):
                visit(attr, False)
            # Types hold the layouts (`tensor<128xf32, #blocked>`); operands are the
            # results and block arguments visited here.
            for result in op.results:
                visit(result.type, False)
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        visit(arg.type, False)
        named = [(a, i) for a, i in infos.items() if i.name is not None]
        # Locations only get aliases when they are printed.
        named = [(a, i) for a, i in named if self.print_debuginfo or not _is_location(a)]
        named.sort(key=lambda item: (item[1].depth, item[1].name or "", item[1].order))
        counts: dict[str, int] = {}
        for attr, info in named:
            assert info.name is not None
            index = counts.get(info.name, 0)
            counts[info.name] = index + 1
            suffix = ""
            if index:
                suffix = ("_" if info.name[-1].isdigit() else "") + str(index)
            self._aliases[attr] = f"#{info.name}{suffix}"
            self._alias_order.append((attr, info.deferred))

    def _print_alias_definitions(self, *, deferred: bool) -> None:
        for attr, is_deferred in self._alias_order:
            if is_deferred != deferred:
                continue
            if deferred:
                self._print_new_line(indent=0)
            self.print_string(f"{self._aliases[attr]} = ")
            self._defining = attr
            try:
                self.print_attribute(attr)
            finally:
                self._defining = None
            if not deferred:
                self._print_new_line(indent=0)


@dataclass
class _StableNames:
    """Names of hinted values in one scope outside cuda_tile modules (`TileirPrinter`)."""

    reserved: set[str] = field(default_factory=set[str])
    taken: set[str] = field(default_factory=set[str])
    next_suffix: dict[str, int] = field(default_factory=dict[str, int])

    def nested(self, op: Operation) -> _StableNames:
        """The scope of `op`'s regions: this one's names, and the pinned names of `op`."""
        reserved = set(self.reserved)
        for inner in op.walk():
            values: list[SSAValue] = [*inner.results]
            for region in inner.regions:
                for block in region.blocks:
                    values += block.args
            reserved.update(name for v in values if (name := pinned_name(v)) is not None)
        return _StableNames(reserved, set(self.taken), dict(self.next_suffix))

    def name(self, value: SSAValue) -> str:
        """A hinted value's name: its pinned name when no value took it yet, else its
        hint (or pinned name) with the next suffix that neither a given name nor a
        pinned one has."""
        pinned = pinned_name(value)
        if pinned is not None and pinned not in self.taken:
            self.taken.add(pinned)
            return pinned
        base = pinned or value.name_hint or ""
        index = self.next_suffix.get(base, 0)
        while True:
            candidate = f"{base}_{index}" if index or pinned else base
            index += 1
            if candidate not in self.taken and candidate not in self.reserved:
                break
        self.next_suffix[base] = index
        self.taken.add(candidate)
        return candidate


class _GenericNumbering(_MlirNumbering):
    """The generic form: no op-suggested names."""

    def number_region(self, region: Region) -> None:
        for block in region.blocks:
            self.number_block(block, block is region.blocks[0])

    def number_op(self, op: Operation) -> None:
        if not op.results:
            return
        self.set_name(op.results[0], None)
        self.groups[op] = [0]


def _is_signature(items: list[Any]) -> bool:
    """Whether `items` are the parameters of a `func.func` being printed (its entry
    block's arguments, alone or with their attributes)."""
    if not items:
        return False
    first = items[0][0] if isinstance(items[0], tuple) else items[0]
    if not isinstance(first, BlockArgument):
        return False
    region = first.block.parent
    owner = region.parent if region is not None else None
    return owner is not None and owner.name == "func.func" and first.block is region.blocks[0]  # pyright: ignore[reportOptionalMemberAccess]


def is_block_argument(value: SSAValue) -> bool:
    return isinstance(value, BlockArgument)


# -- long lines ---------------------------------------------------------------


def _holds_cuda_tile(root: Operation) -> bool:
    """Whether `root` is or holds a `cuda_tile.module`: text printed as NVIDIA's
    tileirdisasm prints it, one line per op, and never wrapped (item 7)."""
    if root.name == "cuda_tile.module":
        return True
    return any(
        op.name == "cuda_tile.module"
        for region in root.regions
        for block in region.blocks
        for op in block.ops
    )


_OPENERS = "([{<"
_CLOSERS = ")]}>"


def _break_points(line: str, start: int) -> list[tuple[int, int, int]]:
    """Where `line` may break, from `start` on: (end of the text kept on the line, start
    of the continuation, bracket depth).  After the `, ` of any list (outside strings),
    before a top-level ` : ` (the types) or ` -> `, before the first string of a list,
    and before a top-level symbol (`@name`: a function whose mangled cuTile name passes
    the width starts its header `func.func` and has the name on the next line, where a
    name of up to 112 characters fits)."""
    points: list[tuple[int, int, int]] = []
    depth = 0
    i = start
    in_string = False
    while i < len(line):
        c = line[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "-" and line.startswith("->", i):
            if depth == 0 and i > 0 and line[i - 1] == " ":
                points.append((i - 1, i, depth))
            i += 1
        elif c in _OPENERS:
            depth += 1
            if c == "[" and line.startswith('["', i):  # a list of strings: its first one
                points.append((i + 1, i + 1, depth))
        elif c in _CLOSERS:
            depth = max(depth - 1, 0)
        elif c == "," and line.startswith(", ", i):
            points.append((i + 1, i + 2, depth))
        elif depth == 0 and (
            (c == ":" and line.startswith(" : ", i - 1))
            or (c == "@" and line[i - 1] == " ")  # a symbol: `func.func @k(`
        ):
            points.append((i - 1, i, depth))
        i += 1
    return points


def _spaces(line: str, start: int) -> list[tuple[int, int, int]]:
    """The top-level spaces of `line` from `start` on, outside strings and past an op's
    results, as break points: MLIR's text may break between any two tokens, which
    `wrap_line` does where none of `_break_points` fits (`scf.for %k = %lb to %ub step
    %s` before a long `iter_args(`)."""
    if line.startswith("%", start):
        start = line.find(" = ", start) + 3
    points: list[tuple[int, int, int]] = []
    depth = 0
    in_string = False
    for i in range(start, len(line)):
        c = line[i]
        if in_string:
            in_string = c != '"' or line[i - 1] == "\\"
        elif c == '"':
            in_string = True
        elif c in _OPENERS:
            depth += 1
        elif c in _CLOSERS:
            depth = max(depth - 1, 0)
        elif c == " " and depth == 0 and line[i - 1] != " ":
            points.append((i, i + 1, 0))
    return points


def wrap_line(line: str, width: int) -> list[str]:
    """`line` in lines of at most `width` columns where it can break (`_break_points`),
    each continuation four columns deeper than the line.  MLIR's text does not care
    where lines break, so the text reads back the same.  A break is taken as late as it
    fits, at the shallowest bracket depth among the breaks in the line's second half
    (a list ends on a line of its own before its elements are split), never among an
    op's results (`%for, %107,` then `%108 = scf.for ...` hid the op); text without a
    break point (one long string) stays as it is."""
    if len(line) <= width:
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    pad = " " * (indent + 4)
    points = _break_points(line, indent)
    if line.startswith("%", indent):  # an op's results stay together: `%a, %b = ...`
        results = line.find(" = ", indent)
        points = [p for p in points if p[0] > results]
    out: list[str] = []
    begin, prefix = indent, line[:indent]
    while len(prefix) + len(line) - begin > width:
        room = width - len(prefix)
        fitting = [p for p in points if begin < p[0] <= begin + room]
        if not fitting:  # any space between two tokens, rather than a line too long
            fitting = [p for p in _spaces(line, indent) if begin < p[0] <= begin + room][-1:]
        if not fitting:
            later = [p for p in points if p[0] > begin]
            if not later:
                break
            fitting = [later[0]]
        half = [p for p in fitting if p[0] > begin + room // 2] or fitting
        shallowest = min(p[2] for p in half)
        end, resume, _ = max(p for p in half if p[2] == shallowest)
        out.append(prefix + line[begin:end])
        begin, prefix = resume, pad
    out.append(prefix + line[begin:])
    return out


def wrap_lines(text: str, width: int) -> str:
    """Every line of `text` wrapped at `width` columns (`wrap_line`)."""
    return "\n".join(piece for line in text.split("\n") for piece in wrap_line(line, width))
