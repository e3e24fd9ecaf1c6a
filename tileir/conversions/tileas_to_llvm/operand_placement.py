"""Where a tensor-core `nv_tileas.dot` reads its operands in shared memory: computed once
per dot (`dot.LowerDot.placement`), used by the dot and by the asynchronous copies that
fill its ring buffers (`async_copy.py`), so that both agree on every byte."""

from __future__ import annotations

from dataclasses import dataclass

from tileir.conversions.tileas_to_llvm.wgmma import OperandBuffer
from tileir.dialects.nv_tileas.core_matrices import BufferView
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
    #: Per operand: its register layout as the buffer sees it, the buffer's byte
    #: strides and swizzle (what `Exchange.write` takes).
    views: list[BufferView]
    #: The `wgmma` core-matrix buffers; None for `mma.sync`.
    operand_buffers: tuple[OperandBuffer, OperandBuffer] | None
    #: The N of the `wgmma` atom (0 for `mma.sync`).
    wgmma_n: int
    #: The accumulator exchange's strides and size, when it goes through memory.
    accumulator: tuple[list[int], int]

    def view_of(self, index: int, layout: LinearLayout) -> BufferView:
        """Operand `index`'s buffer as a tile of `layout` sees it (`views` is the dot's
        own layout's view): a warp-specialized producer of fewer warps than the dot's
        copies the operand in a layout of its own (`specialize_agents.fewer_warps`)."""
        if self.operand_buffers is not None:
            return self.operand_buffers[index].view(layout, 1 - index)
        return BufferView(layout, self.views[index].strides)

    def operand_bytes(self, index: int) -> int:
        """Bytes of operand `index` (0: A, 1: B), every matrix of a batch."""
        return self.batch * self.batch_bytes[index]

    def alignment(self, index: int) -> int:
        """The start alignment of operand `index`'s buffer (a swizzled one's atom)."""
        if self.operand_buffers is None:
            return SLOT_ALIGN
        return self.operand_buffers[index].align


#: Slots are 16-byte aligned: a future under mbarriers carries its round's parity in
#: bit 0 of the slot's address (`async_copy._mbarrier_slot`), and `cp.async` copies 16.
SLOT_ALIGN = 16


@dataclass(frozen=True)
class SlotPlacement:
    """A ring slot that holds a loaded tile as it lies in memory, for a future wait that
    reads it back into registers (`nv_tileas.read_from_slot`: the operand of a dot is
    computed from it, `tileas-pipeline-dot-operands`): dense, the tile's vectors
    contiguous (`of`), written by the copies and read by the wait in its own layout.  It answers what an `OperandPlacement`
    answers of a ring (`view_of`, `operand_bytes`)."""

    shape: tuple[int, ...]
    element_bytes: int
    #: Byte strides of the slot's dimensions.
    strides: tuple[int, ...]

    @staticmethod
    def of(shape: tuple[int, ...], element_bytes: int, layout: LinearLayout) -> SlotPlacement:
        """The slot of a tile of `shape` loaded in `layout`: dense, the dimension along
        which a thread's registers step first (its vectors) contiguous, then the
        others, the last fastest (row-major where that is the last)."""
        rank = len(shape)
        first = next((d for basis in layout.registers for d in range(rank) if basis[d]), rank - 1)
        order = [first, *(d for d in reversed(range(rank)) if d != first)]
        strides = [0] * rank
        step = element_bytes
        for d in order:
            strides[d] = step
            step *= shape[d]
        return SlotPlacement(shape, element_bytes, tuple(strides))

    def view_of(self, index: int, layout: LinearLayout) -> BufferView:
        """The slot as a tile of `layout` sees it (`index` is the ring's, unused: the
        slot is not a dot's operand buffer), unswizzled."""
        del index
        return BufferView(layout, list(self.strides))

    def alignment(self, index: int) -> int:
        """A slot's alignment (`SLOT_ALIGN`: never swizzled)."""
        del index
        return SLOT_ALIGN

    def operand_bytes(self, index: int) -> int:
        """Bytes of one slot, rounded up to `SLOT_ALIGN`."""
        del index
        size = self.element_bytes
        for extent in self.shape:
            size *= extent
        return -(-size // SLOT_ALIGN) * SLOT_ALIGN
