"""Module-level variables: `nv_tileas.global` and `get_global` (cuda_tile's `global`
and `get_global`).

A `global @name dense<...> : tensor<NxT>` becomes a PTX `.global` byte array holding the
initializer's bytes (little-endian, as the GPU stores them), aligned to the global's
`alignment` (at least its element size).  `get_global @name` is the array's address in
the global state space, which is what every pointer holds at this stage (kernel
pointer parameters go through `cvta.to.global`), so loads, stores and atomics through
it work as through any other pointer.

The array is declared in the kernel's prologue, at function scope
(`tileir_global_<name>`): a PTX `.global` variable declared inside a function is still
one statically allocated variable that keeps its value across launches, like a
module-scope one.  A global used by two kernels of one module would then be two
variables, so that is reported as not supported yet; a global no kernel reads is left
out.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.context import GLOBAL_PTR, LoweringContext
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.diagnostics import error_at, not_supported
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.ops.globals import referenced_global
from tileir.utils.numeric import dense_to_numpy


def ptx_name(symbol: str) -> str:
    """A PTX identifier for a cuda_tile symbol."""
    return "tileir_global_" + re.sub(r"[^A-Za-z0-9_]", "_", symbol)


def declaration(op: tas.GlobalOp) -> ptx.PtxAsm:
    """The `.global` array of `op` (at function scope) and the `mov` of its address
    into the block's result."""
    import numpy as np  # an array of values: numpy's bytes (imported when one is used)

    data = np.ascontiguousarray(dense_to_numpy(op.value))
    raw = data.tobytes()
    align = max(op.alignment_bytes, data.dtype.itemsize, 1)
    asm = ptx.PtxAsm(scoped=False)
    address = asm.output(GLOBAL_PTR)
    name = asm.declare_bytes("global", ptx_name(op.sym_name.data), len(raw), align, raw)
    asm.instr("mov.u64", address, name)
    return asm


class LowerGetGlobal(TilePattern):
    def __init__(self, ctx: LoweringContext):
        super().__init__(ctx)
        #: (kernel entry block, symbol) -> the address, computed once per kernel.
        self.addresses: dict[tuple[Block, str], SSAValue] = {}
        #: symbol -> the kernel entry block that declared it.
        self.owners: dict[str, Block] = {}

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.GetGlobalOp, rewriter: PatternRewriter) -> None:
        symbol = op.global_name.root_reference.data
        target = referenced_global(op, op.global_name)
        if target is None:
            raise error_at(op, f"'@{symbol}' does not name a global")
        state = self.ctx.function_state(op)
        key = (state.entry, symbol)
        address = self.addresses.get(key)
        if address is None:
            owner = self.owners.setdefault(symbol, state.entry)
            if owner is not state.entry:
                raise not_supported(
                    op,
                    f"global '@{symbol}' used by more than one kernel",
                    instead="give each kernel a global of its own",
                )
            b = state.prologue_builder(rewriter)
            (address,) = b.asm(declaration(target))
            self.addresses[key] = address
        rewriter.replace(op, [], [LoweringContext.pack(rewriter, [address], op.result.type)])


def erase_globals(module: ModuleOp) -> None:
    """Drop the `global`s once every `get_global` has its address."""
    for op in list(module.body.block.ops):
        if isinstance(op, tas.GlobalOp):
            op.detach()
            op.erase()
