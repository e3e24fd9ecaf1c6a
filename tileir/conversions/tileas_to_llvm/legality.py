"""What `convert-tileas-to-llvm` accepts: the tileas stage, nothing earlier.

The boundary rule (docs/pipeline.md): after `convert-tileaa-to-tileas` a kernel holds
nv_tileas ops, scf/arith/func, and per-element cuda_tile compute ops on builtin
carriers (elementwise arithmetic, math, comparisons, conversions, select, constants,
`iota` and the grid queries).  As an MLIR conversion marks its source dialects illegal,
the LLVM lowering checks this before it rewrites anything, so that an op of an earlier
dialect (an nv_tileaa op from a pipeline that skipped the tileas conversion, a
structural cuda_tile op) is reported at its source location, by name, with the pass
that should have converted it, rather than surfacing later as "cannot lower".
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Operation

from tileir.diagnostics import error_at, not_supported
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp
from tileir.dialects.nv_tileaa.types import MemTokenType
from tileir.utils.walk import ops_of

#: Dialects whose every op the lowering takes: the tileas stage's, and its own output
#: dialects (already lowered ops pass through, as in a partial MLIR conversion).
LEGAL_DIALECTS = ("nv_tileas", "scf", "arith", "func", "builtin", "llvm", "nvvm")

#: Dialects allowed in the output.
OUTPUT_DIALECTS = ("llvm.", "nvvm.", "builtin.module")

#: The one stated exception: cuda_tile ops that compute per element on builtin
#: carriers (laid-out `tensor`s and scalars).
PER_ELEMENT_CUDA_TILE = (
    ElementwiseOp,
    ct.ConstantOp,
    ct.IotaOp,
    ct.GetTileBlockIdOp,
    ct.GetNumTileBlocksOp,
)

#: The pass that makes each earlier dialect's ops legal here.
_CONVERTED_BY = {
    "cuda_tile": "convert-cuda-tile-to-tileaa and convert-tileaa-to-tileas",
    "nv_tileaa": "convert-tileaa-to-tileas",
}


def is_legal(op: Operation) -> bool:
    """Whether `op` may reach `convert-tileas-to-llvm`."""
    dialect = op.name.split(".", 1)[0]
    return dialect in LEGAL_DIALECTS or isinstance(op, PER_ELEMENT_CUDA_TILE)


def carries_token(op: Operation) -> bool:
    """Whether `op` defines a memory token (a result or a block argument)."""
    return any(isinstance(r.type, MemTokenType) for r in op.results) or any(
        isinstance(a.type, MemTokenType)
        for region in op.regions
        for block in region.blocks
        for a in block.args
    )


def check_legal(module: ModuleOp) -> None:
    """Raise a located `CompileError` at the first op the lowering does not take: one of
    an earlier dialect, or one that still carries a memory token."""
    for op in module.walk():
        if op is module:
            continue
        if carries_token(op):
            raise error_at(
                op,
                "still carries a memory token; convert-tileas-to-llvm takes the tileas "
                "stage after tileas-insert-barriers, which makes memory order explicit and "
                "drops synchronous tokens (ordering through async.token_to_async is not "
                "supported yet)",
            )
        if is_legal(op):
            continue
        dialect = op.name.split(".", 1)[0]
        converter = _CONVERTED_BY.get(dialect)
        hint = (
            f"; run {converter} first (or the cuda-tile-to-ptx pipeline)"
            if converter is not None
            else ""
        )
        raise error_at(
            op,
            "is not legal in convert-tileas-to-llvm, which lowers only "
            f"nv_tileas, scf, arith and func ops and per-element cuda_tile ops{hint}",
        )


def check_lowered(module: ModuleOp) -> None:
    """Raise at the first op the lowering left behind: one still behind an unrealized
    cast (its user has no code generation) or outside llvm/nvvm."""
    for o in ops_of(module):
        if o is module:
            continue
        if isinstance(o, UnrealizedConversionCastOp):
            user = next(iter(o.results[0].uses)).operation
            raise not_supported(user, "no code generation for this op")
        if not o.name.startswith(OUTPUT_DIALECTS):
            raise not_supported(o, "convert-tileas-to-llvm cannot lower it")
