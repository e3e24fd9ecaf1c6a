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

from tileir.dialects.nv_tileas.mma_spec import FLOAT8, WARPGROUP_ROWS, MmaSpec

#: The unit attribute that marks a `func.func` as a kernel (a cuda_tile `entry`) at
#: nv_tileas: `convert-tileaa-to-tileas` sets it where nv_tileaa had `nv_tileaa.kernel`,
#: and `convert-tileas-to-llvm` lowers only such functions (to `nvvm.kernel` entries).
KERNEL_ATTR = "nv_tileas.kernel"


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


class IteratorKind(StrEnum):
    """Which side of a pipeline an iterator walks (seed 002 `IteratorKind`)."""

    PRODUCER = "producer"
    CONSUMER = "consumer"


@irdl_attr_definition
class IteratorKindAttr(EnumAttribute[IteratorKind], SpacedOpaqueSyntaxAttribute):
    """`#nv_tileas<iterator_kind consumer>`: the side of a pipeline iterator (producer or
    consumer); a parameter of `!nv_tileas.async.pipeline.iterator`, printed there as
    `kind = consumer`."""

    name = "nv_tileas.iterator_kind"


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
    #: Dots: the engine ("mma.sync", "wgmma", "tcgen05" or "fma": the CUDA cores).
    engine: str = ""
    #: Tensor-core dots: the instruction's A, B and accumulator kinds as PTX spells
    #: them (`s8`/`u8` carry the signedness an i8 type does not), and its M x N x K.
    #: CUDA-core dots on i8: the kinds, no shape.
    mma_kinds: tuple[str, str, str] | None = None
    mma_shape: tuple[int, int, int] | None = None
    #: Block-scaled `tcgen05.mma` dots (`nv_tileas.dot` with scale operands): the
    #: `.kind` (`mxf8f6f4`, `mxf4`, `mxf4nvf4`), the scale vector (factors per 32 bytes
    #: of K: 1X, 2X, 4X) and the scale type (`ue8m0`, `ue4m3`); None for every other atom.
    block_scale: tuple[str, int, str] | None = None

    @property
    def mma_spec(self) -> MmaSpec | None:
        """The instruction family of a dot atom (None for floating FMA dots)."""
        return MmaSpec(*self.mma_kinds) if self.mma_kinds is not None else None

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


#: PTX operand kind -> the element type name an op carries for it.
_KIND_TYPES = {
    "f16": "f16",
    "bf16": "bf16",
    "tf32": "tf32",
    "f32": "f32",
    "e4m3": "f8E4M3FN",
    "e5m2": "f8E5M2",
    "e2m1": "i8",  # two a byte (`MmaSpec.packed_f4`)
    "s8": "i8",
    "u8": "i8",
    "s32": "i32",
}

#: The tensor-core instruction families tileir lowers (`mma.sync` and `wgmma` alike):
#: 16-bit floats, tf32, 8-bit integers of either signedness, 8-bit floats (any pair)
#: into f32 or f16.
MMA_FAMILIES: tuple[MmaSpec, ...] = (
    MmaSpec("f16", "f16", "f32"),
    MmaSpec("bf16", "bf16", "f32"),
    MmaSpec("f16", "f16", "f16"),
    MmaSpec("tf32", "tf32", "f32"),
    *(MmaSpec(a, b, "s32") for a in ("s8", "u8") for b in ("s8", "u8")),
    *(MmaSpec(a, b, acc) for acc in ("f32", "f16") for a in FLOAT8 for b in FLOAT8),
)
#: The seed's name for `s8 x s8 -> s32` `mma.sync` (seed 003 spells it by type).
_SEED_MMA_NAMES = {"mma_s8_s8_s32": "mma_i8_i8_i32"}


def _operand_types(spec: MmaSpec) -> tuple[str, str, str]:
    return (_KIND_TYPES[spec.a], _KIND_TYPES[spec.b], _KIND_TYPES[spec.acc])


def mma_sync_atom(spec: MmaSpec, widened: bool = False) -> str:
    """The name of the `mma.sync` atom of `spec`; `widened`: 8-bit float operands
    computed on f16 tensor cores (sm_80, no 8-bit float `mma.sync`)."""
    name = f"mma_{spec.a}_{spec.b}_{spec.acc}"
    return f"{name}_via_f16" if widened else _SEED_MMA_NAMES.get(name, name)


def wgmma_atom(spec: MmaSpec, n: int) -> str:
    """The name of the `wgmma` atom of `spec` with N = `n` (one warpgroup's columns)."""
    return f"wgmma_m64n{n}k{spec.k_step}_{spec.a}_{spec.b}_{spec.acc}"


def tcgen05_atom(spec: MmaSpec) -> str:
    """The name of the `tcgen05.mma` atom of `spec` (sm_100a; N and the number of
    instructions are the dot's, `transforms/tileas/tcgen05_plan.py`)."""
    return f"tcgen05_mma_{spec.a}_{spec.b}_{spec.acc}"


def block_scaled_atom(a: str, b: str, kind: str = "mxf8f6f4", scale: str = "ue8m0") -> str:
    """The name of the block-scaled `tcgen05.mma` atom of `a` x `b` operands (sm_100a;
    `tcgen05_plan.block_scaled_form` says which dots take it)."""
    return f"tcgen05_mma_{kind}_{a}_{b}_f32_{scale}"


#: The block-scaled `tcgen05.mma` forms tileir generates: `kind::mxf8f6f4` on 8-bit
#: floats, one UE8M0 factor per 32 elements of K (`.scale_vec::1X`), K = 32 an MMA.
BLOCK_SCALED_FAMILIES = tuple(
    MmaSpec(a, b, "f32") for a in ("e4m3", "e5m2") for b in ("e4m3", "e5m2")
)
#: And on e2m1 x e2m1 held two a byte (i8 tiles, `MmaSpec.packed_f4`), K = 64 an MMA:
#: `kind::mxf4` with a UE8M0 factor per 32 (2X), `kind::mxf4nvf4` with a UE8M0 or UE4M3
#: factor per 16 (4X): (kind, vector, scale type).
PACKED_F4_FORMS = (("mxf4", 2, "ue8m0"), ("mxf4nvf4", 4, "ue8m0"), ("mxf4nvf4", 4, "ue4m3"))


#: The instruction families `tcgen05.mma` takes in tileir: 32-bit accumulators
#: (`kind::f16`, `kind::tf32`, `kind::i8`, `kind::f8f6f4`).
TCGEN05_FAMILIES = tuple(spec for spec in MMA_FAMILIES if spec.acc != "f16")


def fma_atom(kinds: tuple[str, str] | None = None) -> str:
    """The name of the CUDA-core dot atom: floats (`kinds` None) or i8 operands of the
    signedness `kinds` (`s8`/`u8`)."""
    return "fma" if kinds is None else f"fma_{kinds[0]}_{kinds[1]}_s32"


def _mma() -> list[AtomInfo]:
    atoms: list[AtomInfo] = []
    for spec in MMA_FAMILIES:
        atoms.append(
            AtomInfo(
                mma_sync_atom(spec),
                AtomKind.MMA,
                None,
                None,
                operands=_operand_types(spec),
                ptx=spec.instruction,
                engine="mma.sync",
                mma_kinds=(spec.a, spec.b, spec.acc),
                mma_shape=(16, 8, spec.k_step),
            )
        )
    # The seed's wgmma entries (seed 003 builders), at N = 128.
    for spec in (MmaSpec("f16", "f16", "f32"), MmaSpec("bf16", "bf16", "f32")):
        atoms.append(
            AtomInfo(
                f"wgmma_{spec.a}_{spec.b}_{spec.acc}",
                AtomKind.MMA,
                None,
                None,
                operands=_operand_types(spec),
                is_async=True,
                ptx=spec.wgmma(128),
                engine="wgmma",
                mma_kinds=(spec.a, spec.b, spec.acc),
                mma_shape=(WARPGROUP_ROWS, 128, spec.k_step),
            )
        )
    for spec in MMA_FAMILIES:
        if spec.float8:
            f16 = MmaSpec("f16", "f16", spec.acc)
            atoms.append(
                AtomInfo(
                    mma_sync_atom(spec, widened=True),
                    AtomKind.MMA,
                    None,
                    None,
                    operands=_operand_types(spec),
                    ptx=f16.instruction,
                    engine="mma.sync",
                    mma_kinds=(f16.a, f16.b, f16.acc),
                    mma_shape=(16, 8, f16.k_step),
                )
            )
    for spec in MMA_FAMILIES:
        for n in spec.wgmma_n():
            atoms.append(
                AtomInfo(
                    wgmma_atom(spec, n),
                    AtomKind.MMA,
                    None,
                    None,
                    operands=_operand_types(spec),
                    is_async=True,
                    ptx=spec.wgmma(n),
                    engine="wgmma",
                    mma_kinds=(spec.a, spec.b, spec.acc),
                    mma_shape=(WARPGROUP_ROWS, n, spec.k_step),
                )
            )
    for spec in TCGEN05_FAMILIES:
        atoms.append(
            AtomInfo(
                tcgen05_atom(spec),
                AtomKind.MMA,
                None,
                None,
                operands=_operand_types(spec),
                is_async=True,
                ptx="tcgen05.mma.cta_group::1",
                engine="tcgen05",
                mma_kinds=(spec.a, spec.b, spec.acc),
            )
        )
    for spec in BLOCK_SCALED_FAMILIES:
        atoms.append(
            AtomInfo(
                block_scaled_atom(spec.a, spec.b),
                AtomKind.MMA,
                None,
                None,
                operands=_operand_types(spec),
                is_async=True,
                ptx="tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X",
                engine="tcgen05",
                mma_kinds=(spec.a, spec.b, spec.acc),
                block_scale=("mxf8f6f4", 1, "ue8m0"),
            )
        )
    f4 = MmaSpec("e2m1", "e2m1", "f32")
    for kind, vector, scale in PACKED_F4_FORMS:
        atoms.append(
            AtomInfo(
                block_scaled_atom(f4.a, f4.b, kind, scale),
                AtomKind.MMA,
                None,
                None,
                operands=_operand_types(f4),
                is_async=True,
                ptx=f"tcgen05.mma.cta_group::1.kind::{kind}.block_scale.scale_vec::{vector}X",
                engine="tcgen05",
                mma_kinds=(f4.a, f4.b, f4.acc),
                block_scale=(kind, vector, scale),
            )
        )
    atoms.append(AtomInfo(fma_atom(), AtomKind.MMA, None, None, ptx="fma.rn", engine="fma"))
    for a in ("s8", "u8"):
        for b in ("s8", "u8"):
            atoms.append(
                AtomInfo(
                    fma_atom((a, b)),
                    AtomKind.MMA,
                    None,
                    None,
                    operands=("i8", "i8", "i32"),
                    ptx="mad.lo.s32",
                    engine="fma",
                    mma_kinds=(a, b, "s32"),
                )
            )
    return atoms


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
    IteratorKindAttr,
    MemSemanticAttr,
    MemScopeAttr,
    AtomAttr,
    RmwModeAttr,
    SwizzleModeAttr,
    OobModeAttr,
    PaddingAttr,
]
