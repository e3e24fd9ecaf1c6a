"""Where a tensor-core `nv_tileas.dot` reads its operands in shared memory: computed once
per dot (`dot.LowerDot.placement`), used by the dot and by the asynchronous copies that
fill its ring buffers (`async_copy.py`), so that both agree on every byte."""

from __future__ import annotations

from dataclasses import dataclass

from tileir.conversions.tileas_to_llvm.wgmma import OperandBuffer
from tileir.dialects.nv_tileas.layouts import LinearLayout
from tileir.dialects.nv_tileas.mma_spec import MmaSpec


@dataclass(frozen=True)
class OperandPlacement:
    """The shared-memory form of one dot's A and B (and its accumulator exchange)."""

    spec: MmaSpec
    mnk: tuple[int, int, int]
    #: Matrices of a batched (rank-3) dot; 1 otherwise.
    batch: int
    #: The dot's warp grid (`#nv_tileas.mma` warpsPerCTA).
    grid: tuple[int, int]
    #: The accumulator's register layout (the MMA fragment).
    fragment: LinearLayout
    #: Row pitches of the `ldmatrix` buffers (bytes).
    pitches: tuple[int, int]
    #: Bytes of one matrix of A and of B.
    batch_bytes: tuple[int, int]
    #: Per operand: its register layout as the buffer sees it, and the buffer's byte
    #: strides (what `Exchange.write` takes).
    views: list[tuple[LinearLayout, list[int]]]
    #: The `wgmma` core-matrix buffers; None for `mma.sync`.
    operand_buffers: tuple[OperandBuffer, OperandBuffer] | None
    #: The N of the `wgmma` atom (0 for `mma.sync`).
    wgmma_n: int
    #: The accumulator exchange's strides and size, when it goes through memory.
    accumulator: tuple[list[int], int]

    def view_of(self, index: int, layout: LinearLayout) -> tuple[LinearLayout, list[int]]:
        """Operand `index`'s buffer as a tile of `layout` sees it (`views` is the dot's
        own layout's view): a warp-specialized producer of fewer warps than the dot's
        copies the operand in a layout of its own (`specialize_agents.fewer_warps`)."""
        if self.operand_buffers is not None:
            return self.operand_buffers[index].view(layout, 1 - index)
        return layout, self.views[index][1]

    def operand_bytes(self, index: int) -> int:
        """Bytes of operand `index` (0: A, 1: B), every matrix of a batch."""
        return self.batch * self.batch_bytes[index]
