"""Token hop two's barrier resources (seed 004 "Memory Token Lowering", "Mem-Token
Lifecycle"): every asynchronous `nv_tileaa.create_mem_token` (`num_producers` > 0)
claims one mbarrier slot from its CTA's pool of 32, in program order per kernel.
Exhausting the pool is a hard diagnostic, never a fallback to software ordering.

Synchronous tokens (`num_producers` = 0, everything cuTile's `make_token` produces
today) need no barrier: program order and CTA barriers order them, and they keep their
nv_tileaa form down to `convert-tileas-to-llvm`.

The mbarrier emission itself (`mbarrier.init` with the producer count, a chain of
`mbarrier.try_wait.parity` per joined asynchronous input) needs NVVM mbarrier ops that
`tileir/dialects/nvvm.py` does not define yet; until it does, an asynchronous token is
reported as not supported yet, after its slot has been checked.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32
from xdsl.ir import Operation

from tileir.diagnostics import error_at, not_supported
from tileir.dialects.nv_tileaa import ops as aa

#: mbarriers per CTA available to mem tokens (seed 004, "Buffer Assignment and
#: Mbarriers — Phase 2").
MBARRIER_POOL = 32
SLOT_ATTR = "nv_tileaa.mbarrier_slot"


def kernel_of(op: Operation) -> Operation:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent.parent_op(), ModuleOp | None):
        parent = parent.parent_op()
    return parent if parent is not None else op


def assign_mbarrier_slots(module: ModuleOp) -> dict[Operation, list[aa.CreateMemTokenOp]]:
    """Give every asynchronous token its slot; returns them per kernel."""
    per_kernel: dict[Operation, list[aa.CreateMemTokenOp]] = {}
    for op in module.walk():
        if isinstance(op, aa.CreateMemTokenOp) and op.is_async:
            claimed = per_kernel.setdefault(kernel_of(op), [])
            if len(claimed) == MBARRIER_POOL:
                raise error_at(
                    op,
                    f"needs an mbarrier, but the CTA's pool of {MBARRIER_POOL} is exhausted by "
                    f"the asynchronous tokens before it in this kernel",
                )
            op.attributes[SLOT_ATTR] = IntegerAttr(len(claimed), i32)
            claimed.append(op)
    return per_kernel


def lower_mem_tokens(module: ModuleOp) -> None:
    """Hop two: allocate the slots, then lower (see the module docstring)."""
    for tokens in assign_mbarrier_slots(module).values():
        for op in tokens:
            raise not_supported(
                op,
                f"an asynchronous mem token ({op.producers} producers): the mbarrier lowering "
                "(mbarrier.init, parity waits) needs NVVM mbarrier ops",
            )
