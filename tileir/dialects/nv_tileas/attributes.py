"""Attributes of nv_tileas: atoms, residency, memory semantics and scope, RMW modes,
TMA swizzle and out-of-bounds modes, special padding values.

The atom catalog is a real table: every atom tileir can emit, with the hardware
operation it stands for.  Passes choose atoms from it, verifiers check ops against it
(kind, box, memory spaces, MMA operand types) and the LLVM lowering reads back what to
emit.
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
    """Where a tiled view's storage lives (also an iterator's address space)."""

    RMEM = "rmem"
    SMEM = "smem"
    TMEM = "tmem"
    GMEM = "gmem"


@irdl_attr_definition
class ResidencyAttr(EnumAttribute[Residency], SpacedOpaqueSyntaxAttribute):
    """`#nv_tileas<residency smem>`: registers, shared, tensor or global memory."""

    name = "nv_tileas.residency"


class MemSemantic(StrEnum):
    WEAK = "weak"
    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQUIRE_RELEASE = "acquire_release"


@irdl_attr_definition
class MemSemanticAttr(EnumAttribute[MemSemantic], SpacedOpaqueSyntaxAttribute):
    """`#nv_tileas<mem_semantic acquire>`: the memory-ordering semantic of an access
    (weak, relaxed, acquire, release, acquire_release)."""

    name = "nv_tileas.mem_semantic"


class MemScope(StrEnum):
    TL_BLK = "tl_blk"
    CLUSTER = "cluster"
    GPU = "gpu"
    SYS = "sys"


@irdl_attr_definition
class MemScopeAttr(EnumAttribute[MemScope], SpacedOpaqueSyntaxAttribute):
    """`#nv_tileas<mem_scope gpu>`: the visibility scope of an ordered access
    (tl_blk, cluster, gpu, sys)."""

    name = "nv_tileas.mem_scope"


class RmwMode(StrEnum):
    ADD = "add"
    AND = "and"
    OR = "or"
    XOR = "xor"
    XCHG = "xchg"
    MIN = "min"
    MAX = "max"
    UMIN = "umin"
    UMAX = "umax"
    CMPXCHG = "cmpxchg"
    ADDF = "addf"


@irdl_attr_definition
class RmwModeAttr(EnumAttribute[RmwMode], SpacedOpaqueSyntaxAttribute):
    """`#nv_tileas<rmw_mode addf>`: the read-modify-write of `tiled_atomic_rmw`."""

    name = "nv_tileas.rmw_mode"


class SwizzleMode(StrEnum):
    NONE = "none"
    B32 = "32B"
    B64 = "64B"
    B128 = "128B"

    @property
    def bytes(self) -> int:
        """The swizzle span in bytes (0 for none)."""
        return 0 if self is SwizzleMode.NONE else int(self.value[:-1])


@irdl_attr_definition
class SwizzleModeAttr(Data[SwizzleMode], SpacedOpaqueSyntaxAttribute):
    """`#nv_tileas<swizzle_mode 128B>`: the shared-memory swizzle of a TMA box
    (none, 32B, 64B, 128B)."""

    name = "nv_tileas.swizzle_mode"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> SwizzleMode:
        return parse_swizzle(parser)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(self.data.value)


def parse_swizzle(parser: AttrParser) -> SwizzleMode:
    """`none` or `32B` / `64B` / `128B` (lexed as an integer and the keyword `B`)."""
    pos = parser.pos
    if parser.parse_optional_keyword("none") is not None:
        return SwizzleMode.NONE
    span = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
    if span is not None and parser.parse_optional_keyword("B") is not None:
        for mode in SwizzleMode:
            if mode.value == f"{span}B":
                return mode
    parser.raise_error("expected a swizzle mode: none, 32B, 64B or 128B", pos, parser.pos)


class OobMode(StrEnum):
    ZERO = "zero"
    NAN = "nan"
    CONSTANT = "constant"


@irdl_attr_definition
class OobModeAttr(EnumAttribute[OobMode], SpacedOpaqueSyntaxAttribute):
    """`#nv_tileas<oob_mode zero>`: what a TMA box reads outside the tensor
    (zero, nan, constant)."""

    name = "nv_tileas.oob_mode"


class PaddingKind(StrEnum):
    ZERO = "zero"
    NEG_ZERO = "neg_zero"
    NAN = "nan"
    POS_INF = "pos_inf"
    NEG_INF = "neg_inf"

    @property
    def is_special(self) -> bool:
        """Every value but zero exists only for floating-point elements."""
        return self is not PaddingKind.ZERO


@irdl_attr_definition
class PaddingAttr(EnumAttribute[PaddingKind], SpacedOpaqueSyntaxAttribute):
    """`#nv_tileas<padding nan>`: a special padding value.  A `padding_value` is either
    an element-typed scalar (`0.0 : f32`) or one of these (zero, neg_zero, nan, pos_inf,
    neg_inf); all but zero are floating-point only."""

    name = "nv_tileas.padding"


# ---------------------------------------------------------------------------
# Atoms.
# ---------------------------------------------------------------------------


class AtomKind(StrEnum):
    COPY = "copy"
    TMA_LOAD = "tma_load"
    TMA_STORE = "tma_store"
    MMA = "mma"
    REDUCE = "reduce"
    ATOMIC = "atomic"


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
    #: A fixed box (ldmatrix-like atoms): the tile an op with this atom moves.
    box: tuple[int, ...] | None = None
    #: Element width a fixed-box atom moves (0: any).
    element_bits: int = 0
    #: MMA operand element types (a, b, accumulator), as type names.
    operands: tuple[str, str, str] | None = None
    #: Completes asynchronously (cp.async, TMA, wgmma): needs a wait.
    is_async: bool = False
    #: Explicit memory pair for copies between two memories (e.g. cp.async).
    source_memory: str | None = None
    destination_memory: str | None = None
    #: TMA addressing mode: "tile" or "gather4"/"scatter4".
    tma_mode: str = "tile"

    @property
    def source(self) -> str | None:
        """Memory a copy reads from (rmem for stores)."""
        if self.source_memory is not None:
            return self.source_memory
        if self.direction == "load":
            return self.memory
        if self.direction == "store":
            return "rmem"
        return None

    @property
    def destination(self) -> str | None:
        """Memory a copy writes to (rmem for loads)."""
        if self.destination_memory is not None:
            return self.destination_memory
        if self.direction == "load":
            return "rmem"
        if self.direction == "store":
            return self.memory
        return None

    @property
    def is_tma(self) -> bool:
        return self.kind in (AtomKind.TMA_LOAD, AtomKind.TMA_STORE)


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


def _shared_copies() -> list[AtomInfo]:
    atoms: list[AtomInfo] = []
    for bits in (32, 64, 128):
        vec = {64: ".v2.b32", 128: ".v4.b32"}.get(bits, f".b{bits}")
        atoms.append(
            AtomInfo(f"lds_{bits}b", AtomKind.COPY, "smem", "load", bits, ptx=f"ld.shared{vec}")
        )
        atoms.append(
            AtomInfo(f"sts_{bits}b", AtomKind.COPY, "smem", "store", bits, ptx=f"st.shared{vec}")
        )
    for n, box in ((1, (8, 8)), (2, (16, 8)), (4, (16, 16))):
        atoms.append(
            AtomInfo(
                f"ldmatrix_x{n}",
                AtomKind.COPY,
                "smem",
                "load",
                32,
                box=box,
                element_bits=16,
                ptx=f"ldmatrix.sync.aligned.m8n8.x{n}.shared.b16",
            )
        )
        atoms.append(
            AtomInfo(
                f"stmatrix_x{n}",
                AtomKind.COPY,
                "smem",
                "store",
                32,
                box=box,
                element_bits=16,
                ptx=f"stmatrix.sync.aligned.m8n8.x{n}.shared.b16",
            )
        )
    for bits in (32, 64, 128):
        atoms.append(
            AtomInfo(
                f"cp_async_{bits}b",
                AtomKind.COPY,
                "gmem",
                "load",
                bits,
                is_async=True,
                source_memory="gmem",
                destination_memory="smem",
                ptx=f"cp.async.{'cg' if bits == 128 else 'ca'}.shared.global",
            )
        )
    atoms.append(
        AtomInfo("tmem_load", AtomKind.COPY, "tmem", "load", 32, ptx="tcgen05.ld.sync.aligned")
    )
    atoms.append(
        AtomInfo("tmem_store", AtomKind.COPY, "tmem", "store", 32, ptx="tcgen05.st.sync.aligned")
    )
    return atoms


def _tma() -> list[AtomInfo]:
    atoms = [
        *(
            AtomInfo(
                f"tma_load_{r}d",
                AtomKind.TMA_LOAD,
                "gmem",
                "load",
                box_rank=r,
                is_async=True,
                source_memory="gmem",
                destination_memory="smem",
                ptx=f"cp.async.bulk.tensor.{r}d.shared::cluster.global",
            )
            for r in range(1, 6)
        ),
        *(
            AtomInfo(
                f"tma_store_{r}d",
                AtomKind.TMA_STORE,
                "gmem",
                "store",
                box_rank=r,
                is_async=True,
                source_memory="smem",
                destination_memory="gmem",
                ptx=f"cp.async.bulk.tensor.{r}d.global.shared::cta",
            )
            for r in range(1, 6)
        ),
        AtomInfo(
            "tma_gather4_2d",
            AtomKind.TMA_LOAD,
            "gmem",
            "load",
            box_rank=2,
            is_async=True,
            source_memory="gmem",
            destination_memory="smem",
            tma_mode="gather4",
            ptx="cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4",
        ),
        AtomInfo(
            "tma_scatter4_2d",
            AtomKind.TMA_STORE,
            "gmem",
            "store",
            box_rank=2,
            is_async=True,
            source_memory="smem",
            destination_memory="gmem",
            tma_mode="scatter4",
            ptx="cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4",
        ),
    ]
    return atoms


def _mma() -> list[AtomInfo]:
    return [
        AtomInfo(
            "mma_f16_f16_f32",
            AtomKind.MMA,
            None,
            None,
            operands=("f16", "f16", "f32"),
            ptx="mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        ),
        AtomInfo(
            "mma_bf16_bf16_f32",
            AtomKind.MMA,
            None,
            None,
            operands=("bf16", "bf16", "f32"),
            ptx="mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        ),
        AtomInfo(
            "mma_f16_f16_f16",
            AtomKind.MMA,
            None,
            None,
            operands=("f16", "f16", "f16"),
            ptx="mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
        ),
        AtomInfo(
            "mma_tf32_tf32_f32",
            AtomKind.MMA,
            None,
            None,
            operands=("f32", "f32", "f32"),
            ptx="mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        ),
        AtomInfo(
            "mma_i8_i8_i32",
            AtomKind.MMA,
            None,
            None,
            operands=("i8", "i8", "i32"),
            ptx="mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
        ),
        AtomInfo(
            "wgmma_f16_f16_f32",
            AtomKind.MMA,
            None,
            None,
            operands=("f16", "f16", "f32"),
            is_async=True,
            ptx="wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16",
        ),
        AtomInfo(
            "wgmma_bf16_bf16_f32",
            AtomKind.MMA,
            None,
            None,
            operands=("bf16", "bf16", "f32"),
            is_async=True,
            ptx="wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
        ),
    ]


def _atomics() -> list[AtomInfo]:
    return [
        AtomInfo("atom_global", AtomKind.ATOMIC, "gmem", None, ptx="atom.global"),
        AtomInfo("atom_shared", AtomKind.ATOMIC, "smem", None, ptx="atom.shared"),
        AtomInfo("red_global", AtomKind.REDUCE, "gmem", None, ptx="red.global"),
    ]


ATOM_CATALOG: dict[str, AtomInfo] = {
    a.name: a for a in [*_global_copies(), *_shared_copies(), *_tma(), *_mma(), *_atomics()]
}


def copy_atom(direction: str, bits: int) -> str:
    """The name of the global-memory copy atom moving `bits` per thread."""
    return f"{'ldg' if direction == 'load' else 'stg'}_{bits}b"


def direct_copy_atoms(source: str, destination: str) -> list[AtomInfo]:
    """Catalog atoms that move data from `source` memory straight to `destination`."""
    return [a for a in ATOM_CATALOG.values() if a.source == source and a.destination == destination]


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
    RmwModeAttr,
    SwizzleModeAttr,
    OobModeAttr,
    PaddingAttr,
]
