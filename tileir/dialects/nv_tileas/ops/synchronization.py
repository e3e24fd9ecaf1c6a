"""Synchronization: the CTA barrier that makes memory order explicit, and the grid
dependency points of programmatic dependent launch (tileir's additions to seed 003's
roster).

A tile is spread over the threads of a CTA, so two accesses ordered by a memory token
(seed 004) may touch the same element from different threads: a load after a store, a
store after a load or store, an atomic after either.  Seed 004 gives asynchronous tokens
their hardware form (an mbarrier each, token hop two), but synchronous tokens, all that
cuTile's `make_token` gives, have no runtime value, and seed 003 has no op that waits
for the other threads of the CTA.  `tileas-insert-barriers` decides where one is needed
and places an `nv_tileas.cta_barrier` there, so the decision is made in nv_tileas and
shows in `--emit=tileas`; `convert-tileas-to-llvm` turns each into one `nvvm.barrier0`
(`bar.sync 0`, which also orders the memory accesses of the threads it joins) and decides
nothing.

cuda_tile's `gdc_wait_tko` and `gdc_launch_dependents_tko` (13.4) order the grid against
the grids it depends on and those that depend on it.  Their tokens only order (they add
no memory access of the kernel's own), so `convert-tileaa-to-tileas` makes them
`nv_tileas.gdc_wait` and `nv_tileas.gdc_launch_dependents` without tokens, in program
order, and passes their input token on to whatever followed them.  Like the CTA barrier
they read and write memory as far as effects go, so no access moves across them.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure

from tileir.dialects.nv_tileas.interfaces import (
    AgentLikeOp,
    ConsumerOp,
    MemoryConsistencyOp,
    ProducerOp,
    PureRegionOp,
)
from tileir.dialects.nv_tileas.ops.base import TileASOp
from tileir.dialects.nv_tileas.verifiers import (
    AGENT_BARRIER_PLACEMENT,
    CTA_BARRIER_PLACEMENT,
    GDC_PLACEMENT,
    pure_region_around,
)


@irdl_op_definition
class CtaBarrierOp(TileASOp):
    """`nv_tileas.cta_barrier`

    Every thread of the CTA waits here until all have arrived; the memory accesses each
    thread made before it are then visible to every thread after it (PTX `bar.sync 0`).
    It orders memory like a fence (it reads and writes memory as far as effects go), so
    nothing moves across it, CSE never merges two and DCE never erases one."""

    name = "nv_tileas.cta_barrier"
    traits = traits_def(MemoryConsistencyOp(), MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "attr-dict"
    RULES: ClassVar[tuple[str, ...]] = (CTA_BARRIER_PLACEMENT,)

    def __init__(self):
        super().__init__()

    def verify_(self) -> None:
        parent = self.parent_op()
        while parent is not None:
            if (
                parent.has_trait(AgentLikeOp)
                or parent.has_trait(ProducerOp)
                or parent.has_trait(ConsumerOp)
            ):
                raise self.op_error(
                    f"must not sit inside '{parent.name}': only some warps run its region, "
                    "and the barrier waits for every thread of the CTA"
                )
            if parent.has_trait(PureRegionOp) or parent.has_trait(Pure):
                raise self.op_error(
                    f"must not sit inside '{parent.name}', whose region pure rewrites may "
                    "move, duplicate or erase"
                )
            parent = parent.parent_op()


@irdl_op_definition
class AgentBarrierOp(TileASOp):
    """`nv_tileas.agent_barrier`

    Every thread of the agent that runs it waits here until all of that agent's threads
    have arrived; their memory accesses before it are then visible to each of them after
    it (PTX `bar.sync` on the agent's named barrier, with the agent's thread count).
    `tileas-specialize-agents` writes it for a `cta_barrier` the consumer agent takes
    over, where every access it orders is the consumer's (the stores between the K
    loops of a warp-specialized kernel).  It orders memory like the CTA barrier:
    nothing moves across it, CSE never merges two and DCE never erases one."""

    name = "nv_tileas.agent_barrier"
    traits = traits_def(MemoryConsistencyOp(), MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "attr-dict"
    RULES: ClassVar[tuple[str, ...]] = (AGENT_BARRIER_PLACEMENT,)

    def __init__(self):
        super().__init__()

    def verify_(self) -> None:
        parent = self.parent_op()
        while parent is not None:
            if parent.has_trait(AgentLikeOp):
                return
            if parent.has_trait(ProducerOp) or parent.has_trait(ConsumerOp):
                raise self.op_error(
                    f"must not sit inside '{parent.name}': an agent barrier is for the "
                    "agent's code, not a pipeline stage's region"
                )
            if parent.has_trait(PureRegionOp) or parent.has_trait(Pure):
                raise self.op_error(
                    f"must not sit inside '{parent.name}', whose region pure rewrites may "
                    "move, duplicate or erase"
                )
            parent = parent.parent_op()
        raise self.op_error(
            "must sit inside an agent of an 'agent_switch': it waits for one agent's threads"
        )


class GridDependencyOp(TileASOp):
    """A grid-dependency control point: an effect on the whole grid's schedule, so
    it stays where program order put it."""

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "attr-dict"
    RULES: ClassVar[tuple[str, ...]] = (GDC_PLACEMENT,)

    def __init__(self):
        super().__init__()

    def verify_(self) -> None:
        if (parent := pure_region_around(self)) is not None:
            raise self.op_error(
                f"must not sit inside '{parent.name}', whose region pure rewrites may "
                "move, duplicate or erase"
            )


@irdl_op_definition
class GdcWaitOp(GridDependencyOp):
    """`nv_tileas.gdc_wait`

    Waits until the grids this grid depends on have completed and their memory is
    visible (PTX `griddepcontrol.wait`, sm_90 on; nothing to wait for before): a
    memory-consistency op, like the CTA barrier."""

    name = "nv_tileas.gdc_wait"
    traits = traits_def(MemoryConsistencyOp(), MemoryReadEffect(), MemoryWriteEffect())


@irdl_op_definition
class GdcLaunchDependentsOp(GridDependencyOp):
    """`nv_tileas.gdc_launch_dependents`

    Lets the grids that depend on this one be launched before it ends (PTX
    `griddepcontrol.launch_dependents`, sm_90 on; no early launch before)."""

    name = "nv_tileas.gdc_launch_dependents"


SYNCHRONIZATION_OPS: list[type[TileASOp]] = [
    CtaBarrierOp,
    AgentBarrierOp,
    GdcWaitOp,
    GdcLaunchDependentsOp,
]
