"""The tensor-core instruction families of a dot: operand and accumulator kinds, as
`mma.sync` and `wgmma` spell them.  The MMA atoms of the catalog
(`attributes.ATOM_CATALOG`) are built from these, `tileas-select-dot-atoms` picks one
per `nv_tileas.dot`, and `convert-tileas-to-llvm` reads the instruction back from the
atom (`conversions/tileas_to_llvm/mma.py`, `wgmma.py`)."""

from __future__ import annotations

from dataclasses import dataclass

#: The 8-bit float operand kinds (`wgmma`'s spelling).
FLOAT8 = ("e4m3", "e5m2")
#: Bytes of K one `mma.sync` or `wgmma` step reads from each row of A (and column
#: of B): 16 halves, 32 bytes or 8 tf32 words.
K_STEP_BYTES = 32
#: Warps of a warpgroup (`wgmma`).
WARPGROUP = 4
#: Rows of A one warpgroup's `wgmma` covers.
WARPGROUP_ROWS = 64
#: The widest N one `wgmma` computes.
MAX_WGMMA_N = 256


@dataclass(frozen=True)
class MmaSpec:
    """One `mma.sync` shape: `m16n8k{k_step}` on `{a}` x `{b}` into `{acc}`."""

    a: str  # f16 | bf16 | tf32 | s8 | u8 | e4m3 | e5m2 | e2m1 (packed, block-scaled)
    b: str
    acc: str  # f32 | f16 | s32
    #: A 16-bit B stored N x K as well, because its tile came K-contiguous (attention's
    #: K read transposed): `mma.sync`'s placement sets it (`dot.LowerDot.placement`).
    b_k_contiguous: bool = False

    @property
    def integer(self) -> bool:
        return self.acc == "s32"

    @property
    def float8(self) -> bool:
        """8-bit float operands: `wgmma` on sm_90a, `mma.sync` m16n8k32 from sm_89 on."""
        return self.a in FLOAT8

    @property
    def packed_f4(self) -> bool:
        """e2m1 operands held two a byte (i8 tiles of K / 2 bytes; sm_100a's block-scaled
        `kind::mxf4*` only): K counts bytes, as for 8-bit operands."""
        return self.a == "e2m1"

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
        if self.integer or self.float8 or self.packed_f4:
            return 1
        return 4 if self.tf32 else 2

    @property
    def k_major_b(self) -> bool:
        """B is stored N x K (K contiguous) for the tensor cores: `ldmatrix` and
        `wgmma` transpose only 16-bit elements, so the others are transposed as they
        are written to shared memory; a 16-bit B that came K-contiguous is stored so
        too (`b_k_contiguous`), and read with a plain `ldmatrix`."""
        return self.element_bytes != 2 or self.b_k_contiguous

    @property
    def instruction(self) -> str:
        return self.shaped(self.k_step)

    def shaped(self, k: int) -> str:
        """The `mma.sync` of this spec with K = `k` (i8: 32, or 16 for a K tail)."""
        return f"mma.sync.aligned.m16n8k{k}.row.col.{self.acc}.{self.a}.{self.b}.{self.acc}"

    def wgmma(self, n: int) -> str:
        """The `wgmma.mma_async` of one `m64n{n}` block, A and B from shared memory."""
        return f"wgmma.mma_async.sync.aligned.m64n{n}k{self.k_step}.{self.acc}.{self.a}.{self.b}"

    def wgmma_n(self) -> tuple[int, ...]:
        """The N `wgmma` takes for these types: multiples of 8 up to 256; for 8-bit
        integers 8, 16, 24, then multiples of 16."""
        return tuple(
            n for n in range(8, MAX_WGMMA_N + 1, 8) if not (self.integer and n > 24 and n % 16)
        )
