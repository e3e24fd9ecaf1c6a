"""`synthesize-debug-info-scopes`: give every op of a `cuda_tile.module` a debug-info
scope, for frontends that only emit file locations (NVIDIA's
SynthesizeDebugInfoScopes).

The module gets a `di_compile_unit` for the file of its own location (`"<unknown>"` in
`""` without one).  Each function whose location carries no `di_loc` yet gets a
`di_subprogram` named after it, in the file and at the line of its location (line 1
without one, `scopeLine` the same); then each op of the function, the function
included, is located at `#cuda_tile.di_loc<FILE:LINE:COL in #subprogram>`, with the
file position found in its own location (looking through name, fused and call-site
locations, the caller side) or else the function's.  Functions that already have a
scope are left as they are.  The result is line-table information only; it does not
replace a frontend's real debug info.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
)
from xdsl.ir import Attribute
from xdsl.passes import ModulePass

from tileir.dialects.cuda_tile.debug_info import (
    DICompileUnitAttr,
    DIFileAttr,
    DILocAttr,
    DISubprogramAttr,
)
from tileir.dialects.cuda_tile.ops.core import FunctionOp
from tileir.dialects.cuda_tile.ops.core import ModuleOp as CudaTileModuleOp


def file_location(loc: Attribute) -> FileLineColLoc | None:
    """The file position a location names: itself, a name location's child, the first
    file position of a fused location, a call site's caller."""
    if isinstance(loc, FileLineColLoc):
        return loc
    if isinstance(loc, NameLoc):
        return file_location(loc.location)
    if isinstance(loc, FusedLoc):
        locations = loc.locations
        if isinstance(locations, ArrayAttr):
            for sub in locations.data:  # pyright: ignore[reportUnknownVariableType]
                if isinstance(sub, FileLineColLoc):
                    return sub
        return None
    if isinstance(loc, CallSiteLoc):
        return file_location(loc.caller)
    return None


def has_scope(loc: Attribute) -> bool:
    """Some part of `loc` is a `di_loc`."""
    if isinstance(loc, DILocAttr):
        return True
    if isinstance(loc, NameLoc):
        return has_scope(loc.location)
    if isinstance(loc, FusedLoc):
        locations = loc.locations
        return isinstance(locations, ArrayAttr) and any(
            has_scope(sub)  # pyright: ignore[reportUnknownArgumentType]
            for sub in locations.data  # pyright: ignore[reportUnknownVariableType]
        )
    if isinstance(loc, CallSiteLoc):
        return has_scope(loc.callee) or has_scope(loc.caller)
    return False


def file_of(loc: FileLineColLoc) -> DIFileAttr:
    path = loc.filename.data
    return DIFileAttr(posixpath.basename(path), posixpath.dirname(path))


def compile_unit_for(module: CudaTileModuleOp) -> DICompileUnitAttr:
    where = file_location(module.location)
    file = file_of(where) if where is not None else DIFileAttr("<unknown>", "")
    return DICompileUnitAttr(file)


def synthesize_function_scope(function: FunctionOp, unit: DICompileUnitAttr) -> None:
    if has_scope(function.location):
        return
    where = file_location(function.location)
    if where is not None:
        file, line = file_of(where), where.line.data
    else:
        file, line = unit.file, 1
        where = FileLineColLoc(file.file_name, IntAttr(1), IntAttr(1))
    name = function.sym_name
    subprogram = DISubprogramAttr(file, IntAttr(line), name, name, unit, IntAttr(line))
    for op in function.walk():
        position = file_location(op.location) or where
        op.location = DILocAttr(position, subprogram)  # pyright: ignore[reportAttributeAccessIssue]


@dataclass(frozen=True)
class SynthesizeDebugInfoScopesPass(ModulePass):
    """Give the functions of every `cuda_tile.module` a debug-info scope."""

    name = "synthesize-debug-info-scopes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for module in (m for m in op.walk() if isinstance(m, CudaTileModuleOp)):
            unit = compile_unit_for(module)
            for function in module.body.block.ops:
                if isinstance(function, FunctionOp):
                    synthesize_function_scope(function, unit)
