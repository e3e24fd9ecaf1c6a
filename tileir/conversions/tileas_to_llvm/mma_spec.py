"""The tensor-core instruction family of a dot: operand and accumulator kinds, as
`mma.sync` and `wgmma` spell them (`mma.py`, `wgmma.py`)."""

from __future__ import annotations

from dataclasses import dataclass

#: The 8-bit float operand kinds (`wgmma`'s spelling).
FLOAT8 = ("e4m3", "e5m2")


@dataclass(frozen=True)
class MmaSpec:
    """One `mma.sync` shape: `m16n8k{k_step}` on `{a}` x `{b}` into `{acc}`."""

    a: str  # f16 | bf16 | s8 | u8 | e4m3 | e5m2
    b: str
    acc: str  # f32 | f16 | s32

    @property
    def integer(self) -> bool:
        return self.acc == "s32"

    @property
    def float8(self) -> bool:
        """8-bit float operands: `wgmma` only (sm_90a); the FMA path elsewhere."""
        return self.a in FLOAT8

    @property
    def k_step(self) -> int:
        return 32 if self.element_bytes == 1 else 16

    @property
    def element_bytes(self) -> int:
        return 1 if self.integer or self.float8 else 2

    @property
    def instruction(self) -> str:
        return self.shaped(self.k_step)

    def shaped(self, k: int) -> str:
        """The `mma.sync` of this spec with K = `k` (i8: 32, or 16 for a K tail)."""
        return f"mma.sync.aligned.m16n8k{k}.row.col.{self.acc}.{self.a}.{self.b}.{self.acc}"
