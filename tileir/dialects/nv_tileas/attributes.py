"""Attributes of nv_tileas: atoms, residency, memory semantics and scope.

The atom catalog is a real table: every atom tileir can emit, with the hardware
operation it stands for.  Passes choose atoms from it and the LLVM lowering reads
back what to emit.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Data, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class Residency(StrEnum):
    """Where a tiled view's storage lives."""

    RMEM = "rmem"
    SMEM = "smem"
    TMEM = "tmem"
    GMEM = "gmem"


@irdl_attr_definition
class ResidencyAttr(EnumAttribute[Residency], SpacedOpaqueSyntaxAttribute):
    name = "nv_tileas.residency"


class MemSemantic(StrEnum):
    WEAK = "weak"
    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQUIRE_RELEASE = "acquire_release"


@irdl_attr_definition
class MemSemanticAttr(EnumAttribute[MemSemantic], SpacedOpaqueSyntaxAttribute):
    name = "nv_tileas.mem_semantic"


class MemScope(StrEnum):
    TL_BLK = "tl_blk"
    CLUSTER = "cluster"
    GPU = "gpu"
    SYS = "sys"


@irdl_attr_definition
class MemScopeAttr(EnumAttribute[MemScope], SpacedOpaqueSyntaxAttribute):
    name = "nv_tileas.mem_scope"


# ---------------------------------------------------------------------------
# Atoms.
# ---------------------------------------------------------------------------


class AtomKind(StrEnum):
    COPY = "copy"
    TMA_LOAD = "tma_load"
    TMA_STORE = "tma_store"
    MMA = "mma"
    REDUCE = "reduce"


@dataclass(frozen=True)
class AtomInfo:
    """One catalog entry."""

    name: str
    kind: AtomKind
    #: Memory the atom moves data to or from (copies), else None.
    memory: str | None
    #: Direction of a copy: "load" or "store".
    direction: str | None
    #: Bits one thread moves per instruction (copies).
    bits: int = 0
    #: Rank of the TMA box (TMA atoms).
    box_rank: int = 0
    #: What it becomes.
    ptx: str = ""


def _global_copies() -> list[AtomInfo]:
    atoms: list[AtomInfo] = []
    for bits in (8, 16, 32, 64, 128):
        vec = {64: ".v2.b32", 128: ".v4.b32"}.get(bits, f".b{bits}")
        atoms.append(
            AtomInfo(f"ldg_{bits}b", AtomKind.COPY, "gmem", "load", bits, ptx=f"ld.global{vec}")
        )
        atoms.append(
            AtomInfo(f"stg_{bits}b", AtomKind.COPY, "gmem", "store", bits, ptx=f"st.global{vec}")
        )
    return atoms


ATOM_CATALOG: dict[str, AtomInfo] = {
    a.name: a
    for a in [
        *_global_copies(),
        *(
            AtomInfo(f"tma_load_{r}d", AtomKind.TMA_LOAD, "gmem", "load", box_rank=r,
                     ptx=f"cp.async.bulk.tensor.{r}d.shared::cluster.global")
            for r in range(1, 6)
        ),
        *(
            AtomInfo(f"tma_store_{r}d", AtomKind.TMA_STORE, "gmem", "store", box_rank=r,
                     ptx=f"cp.async.bulk.tensor.{r}d.global.shared::cta")
            for r in range(1, 6)
        ),
        AtomInfo("mma_f16_f16_f32", AtomKind.MMA, None, None,
                 ptx="mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
        AtomInfo("mma_bf16_bf16_f32", AtomKind.MMA, None, None,
                 ptx="mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
    ]
}


def copy_atom(direction: str, bits: int) -> str:
    """The name of the global-memory copy atom moving `bits` per thread."""
    return f"{'ldg' if direction == 'load' else 'stg'}_{bits}b"


@irdl_attr_definition
class AtomAttr(Data[str], SpacedOpaqueSyntaxAttribute):
    """`#nv_tileas<atom ldg_128b>`: the hardware atom a tiled op maps to."""

    name = "nv_tileas.atom"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> str:
        return parser.parse_identifier()

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(self.data)

    def verify(self) -> None:
        if self.data not in ATOM_CATALOG:
            raise VerifyException(f"unknown atom '{self.data}'")

    @property
    def info(self) -> AtomInfo:
        return ATOM_CATALOG[self.data]


ATTRIBUTES: list[type[Attribute]] = [
    ResidencyAttr,
    MemSemanticAttr,
    MemScopeAttr,
    AtomAttr,
]
