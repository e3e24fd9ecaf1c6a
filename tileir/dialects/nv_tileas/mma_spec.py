"""The tensor-core instruction family of a dot: operand and accumulator kinds, as
`mma.sync` and `wgmma` spell them (`mma.py`, `wgmma.py`)."""

from __future__ import annotations

from dataclasses import dataclass

#: The 8-bit float operand kinds (`wgmma`'s spelling).
FLOAT8 = ("e4m3", "e5m2")
#: Bytes of K one `mma.sync` or `wgmma` step reads from each row of A (and column
#: of B): 16 halves, 32 bytes or 8 tf32 words.
K_STEP_BYTES = 32


@dataclass(frozen=True)
class MmaSpec:
    """One `mma.sync` shape: `m16n8k{k_step}` on `{a}` x `{b}` into `{acc}`."""

    a: str  # f16 | bf16 | tf32 | s8 | u8 | e4m3 | e5m2
    b: str
    acc: str  # f32 | f16 | s32

    @property
    def integer(self) -> bool:
        return self.acc == "s32"

    @property
    def float8(self) -> bool:
        """8-bit float operands: `wgmma` on sm_90a, `mma.sync` m16n8k32 from sm_89 on."""
        return self.a in FLOAT8

    @property
    def min_ptx_isa(self) -> str | None:
        """The PTX ISA `mma.sync` on these types needs beyond the target's lowest: 8-bit
        floats 8.4, with an f16 accumulator 8.7 (ptxas 13)."""
        if not self.float8:
            return None
        return "8.7" if self.acc == "f16" else "8.4"

    @property
    def tf32(self) -> bool:
        return self.a == "tf32"

    @property
    def k_step(self) -> int:
        """K of one instruction: 32 bytes of K (i8 and 8-bit floats 32, halves 16,
        tf32 8)."""
        return K_STEP_BYTES // self.element_bytes

    @property
    def element_bytes(self) -> int:
        if self.integer or self.float8:
            return 1
        return 4 if self.tf32 else 2

    @property
    def k_major_b(self) -> bool:
        """B is stored N x K (K contiguous) for the tensor cores: `ldmatrix` and
        `wgmma` transpose only 16-bit elements, so the others are transposed as they
        are written to shared memory."""
        return self.element_bytes != 2

    @property
    def instruction(self) -> str:
        return self.shaped(self.k_step)

    def shaped(self, k: int) -> str:
        """The `mma.sync` of this spec with K = `k` (i8: 32, or 16 for a K tail)."""
        return f"mma.sync.aligned.m16n8k{k}.row.col.{self.acc}.{self.a}.{self.b}.{self.acc}"
