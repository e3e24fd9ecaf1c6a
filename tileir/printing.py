"""tileir's printer: xDSL's, plus the two things NVIDIA's cuda_tile text needs.

1. *Prefix-free op names.*  Inside `cuda_tile.module` (and any other cuda_tile op with
   regions) nested cuda_tile ops print without the `cuda_tile.` prefix, as MLIR does
   for an op whose `getDefaultDialect()` is cuda_tile.  The generic form stays fully
   qualified.
2. *MLIR's SSA names.*  Inside a cuda_tile module, values get the names MLIR's
   `AsmState` would give them: op-suggested names (`%tview`, `%cst_1_i32`,
   `%blockId_x`) uniqued with one global conflict counter (`%assume_0`,
   `%cst_1_i32_2`), numbers (`%0`) for the rest, `%argN` for function arguments and
   `%0:3` packs for unnamed multi-result ops.  Outside, xDSL's naming (which keeps
   name hints) applies unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove

CUDA_TILE = "cuda_tile"


def _is_cuda_tile(op: Operation) -> bool:
    return op.name.startswith("cuda_tile.")


def in_cuda_tile_scope(op: Operation) -> bool:
    """True when some ancestor of `op` is a cuda_tile op (so `op` inherits cuda_tile as
    its default dialect)."""
    parent = op.parent_op()
    return parent is not None and _is_cuda_tile(parent)


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


@dataclass(eq=False, repr=False)
class TileirPrinter(Printer):
    _mlir_names: dict[SSAValue, str] = field(default_factory=dict, init=False)
    _mlir_used: list[set[str]] = field(default_factory=lambda: [set()], init=False)
    _mlir_value_ids: list[int] = field(default_factory=lambda: [0], init=False)
    _mlir_conflict_id: int = field(default=0, init=False)

    # -- ops --------------------------------------------------------------
    def print_op(self, op: Operation) -> None:
        mlir_scope = op.name == "cuda_tile.module" or in_cuda_tile_scope(op)
        if not mlir_scope:
            return super().print_op(op)
        isolated = bool(op.get_traits_of_type(IsolatedFromAbove))
        self._assign_result_names(op)
        self._print_mlir_results(op)
        if isolated:
            self.enter_scope()
            self._mlir_value_ids.append(0)
        has_regions = bool(op.regions)
        if has_regions:
            # Block arguments are named before the op prints its signature, in a
            # scope that ends with the op (sibling regions may reuse names).
            self._mlir_used.append(set(self._mlir_used[-1]))
            for region in op.regions:
                for block in region.blocks:
                    self._assign_block_arg_names(block, op)
        try:
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
        finally:
            if has_regions:
                self._mlir_used.pop()
            if isolated:
                self._mlir_value_ids.pop()
                self.exit_scope()

    def print_region(
        self,
        region: Region,
        print_entry_block_args: bool = True,
        print_empty_block: bool = True,
        print_block_terminators: bool = True,
    ) -> None:
        parent = region.parent_op()
        mlir_scope = parent is not None and (
            parent.name == "cuda_tile.module" or in_cuda_tile_scope(parent)
        )
        if mlir_scope:
            self._mlir_used.append(set(self._mlir_used[-1]))
        try:
            super().print_region(
                region, print_entry_block_args, print_empty_block, print_block_terminators
            )
        finally:
            if mlir_scope:
                self._mlir_used.pop()

    # -- values -------------------------------------------------------------
    def print_ssa_value(self, value: SSAValue) -> str:
        name = self._mlir_names.get(value)
        if name is None:
            return super().print_ssa_value(value)
        self.print_string(f"%{name}")
        return name

    # -- MLIR naming --------------------------------------------------------
    def _unique(self, base: str) -> str:
        used = self._mlir_used[-1]
        if base not in used:
            used.add(base)
            return base
        while True:
            candidate = f"{base}_{self._mlir_conflict_id}"
            self._mlir_conflict_id += 1
            if candidate not in used:
                used.add(candidate)
                return candidate

    def _next_number(self) -> str:
        n = self._mlir_value_ids[-1]
        self._mlir_value_ids[-1] += 1
        return str(n)

    def _assign_result_names(self, op: Operation) -> None:
        if not op.results or op.results[0] in self._mlir_names:
            return
        names = suggested_names(op)
        if not any(names):
            if len(op.results) == 1:
                self._mlir_names[op.results[0]] = self._next_number()
            else:
                pack = self._next_number()
                for i, r in enumerate(op.results):
                    self._mlir_names[r] = f"{pack}#{i}"
            return
        for i, r in enumerate(op.results):
            base = names[i] if i < len(names) else None
            self._mlir_names[r] = self._unique(base) if base else self._next_number()

    def _print_mlir_results(self, op: Operation) -> None:
        if not op.results:
            return
        first = self._mlir_names[op.results[0]]
        if "#" in first:
            self.print_string(f"%{first.split('#')[0]}:{len(op.results)} = ")
            return
        self.print_list(op.results, self.print_ssa_value)
        self.print_string(" = ")

    def _assign_block_arg_names(self, block: Block, parent: Operation) -> None:
        hook = getattr(parent, "asm_block_arg_names", None)
        names: tuple[str | None, ...] = tuple(hook(block)) if hook is not None else ()
        for arg in block.args:
            if arg in self._mlir_names:
                continue
            base = names[arg.index] if arg.index < len(names) else None
            if base is not None:
                self._mlir_names[arg] = self._unique(base)
            elif block is (block.parent.first_block if block.parent else None):
                self._mlir_names[arg] = self._unique(f"arg{arg.index}")
            else:
                self._mlir_names[arg] = self._next_number()


def is_block_argument(value: SSAValue) -> bool:
    return isinstance(value, BlockArgument)
