"""How a dot is computed on a target: the one place tileir chooses between `wgmma`,
`mma.sync` and the CUDA cores (FMAs), and the MMA atom that records the choice.

`tileas-select-dot-atoms` (`select_dot_atoms.py`) calls `plan_dot` once per
`nv_tileaa.dot`, after `tileas-assign-layouts` has given the accumulator its layout
(the `wgmma` choice depends on the accumulator's warp grid), and writes the plan's atom
on the `nv_tileas.dot` that replaces it.  `tileas-assign-layouts` asks
`tensor_core_k_step` which dots get the `#nv_tileas.mma` accumulator layout
(`mma_layouts.py`); the `TensorCore` remarks report the recorded atom, with the reason
`wgmma_obstacle` gives; `convert-tileas-to-llvm` follows the atom.

The choice, per dot:

* The tensor cores take 16-bit floats (f16 or bf16 into f32, f16 into f16), tf32
  into f32, i8 of either signedness into i32, and 8-bit floats (e4m3/e5m2, any pair)
  into f32 or f16, on tiles whose M, N, K are multiples of 16, 8 and the K step (32
  bytes of K; i8 also takes a 16-byte K tail).  Everything else runs on FMAs (`fma`
  for floats, `fma_s8_u8_s32` ... for i8).
* On sm_90a a rank-2 dot whose accumulator's warp grid has whole warpgroups along M
  runs on `wgmma` (`wgmma_m64n{N}k{K}_...`, N the columns of one warpgroup, at most
  256), as `wgmma_obstacle` says.
* Otherwise `mma.sync`.  8-bit floats run on f16 `mma.sync` (m16n8k16) with the
  operands widened exactly (`mma_e4m3_e5m2_f32_via_f16` ...) where no 8-bit float
  instruction takes them, as `float8_widening_reason` says: before sm_89 (no 8-bit
  float tensor cores), and on every target for K 16 past a multiple of 32 (the 8-bit
  float instructions' K step is 32; cuTile's 16x16x16 fp8 tests).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatTF32Type,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation

from tileir.diagnostics import error_at
from tileir.dialects.cuda_tile.attributes import Signedness
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import (
    ATOM_CATALOG,
    AtomInfo,
    fma_atom,
    mma_sync_atom,
    tcgen05_atom,
    wgmma_atom,
)
from tileir.dialects.nv_tileas.layouts import DistributedLayout
from tileir.dialects.nv_tileas.mma_layout import MmaLayoutAttr, mma_linear, mma_warp_grid
from tileir.dialects.nv_tileas.mma_spec import (
    FLOAT8,
    K_STEP_BYTES,
    MAX_WGMMA_N,
    WARPGROUP,
    MmaSpec,
)
from tileir.targets import ARCHS, compute_capability
from tileir.transforms.tileas.tcgen05_plan import (
    PACKED_F4,
    SCALE_KINDS,
    TCGEN05_M,
    BlockScaledForm,
    block_scaled_form,
    instruction_m,
    scale_groups,
    tcgen05_kind,
    tcgen05_n,
    tcgen05_obstacle,
)
from tileir.utils.bits import mlir_bit_width

#: The first compute capability with `mma.sync.aligned.m16n8k32` on e4m3/e5m2 (Ada; also
#: sm_90a beside `wgmma`, sm_100a and sm_12x).
FLOAT8_MMA_SYNC_CC = 89

_FLOAT8 = (Float8E4M3FNType, Float8E5M2Type)
_FLOATS = (*_FLOAT8, Float16Type, BFloat16Type, FloatTF32Type, Float32Type, Float64Type)


@dataclass(frozen=True)
class DotTypes:
    """The operand and accumulator tiles of a dot, and whether each operand is
    signed (i8 dots; floating dots count as signed)."""

    a: TensorType
    b: TensorType
    acc: TensorType
    signed: tuple[bool, bool] = (True, True)
    #: e2m1 operands held two a byte in i8 tiles (a block-scaled dot of `kind::mxf4*`:
    #: `scaled_mma.PACKED_ATTR` on an `nv_tileaa.dot`, an e2m1 atom on an `nv_tileas.dot`).
    packed_f4: bool = False

    @staticmethod
    def of(op: aa.DotOp | tas.DotOp) -> DotTypes | None:
        """`op`'s types (None when one is not a tensor): an `nv_tileaa.dot` says its
        signedness, an `nv_tileas.dot`'s atom spells it (`s8`/`u8`)."""
        if isinstance(op, aa.DotOp):
            a, b = op.lhs.type, op.rhs.type
            signs = op.signedness() or (Signedness.SIGNED, Signedness.SIGNED)
            signed = (signs[0] == Signedness.SIGNED, signs[1] == Signedness.SIGNED)
            packed = aa.PACKED_F4_ATTR in op.attributes
        else:
            a, b = op.a.type, op.b.type
            kinds = op.atom.info.mma_kinds
            signed = (True, True) if kinds is None else (kinds[0] != "u8", kinds[1] != "u8")
            packed = kinds is not None and kinds[0] == PACKED_F4
        acc = op.acc.type
        if not (
            isinstance(a, TensorType) and isinstance(b, TensorType) and isinstance(acc, TensorType)
        ):
            return None
        return DotTypes(a, b, acc, signed, packed)

    @property
    def rank(self) -> int:
        return len(self.acc.get_shape())

    @property
    def mnk(self) -> tuple[int, int, int]:
        (m, k), n = self.a.get_shape()[-2:], self.b.get_shape()[-1]
        return m, n, k


def tensor_core_k_step(t: DotTypes) -> int | None:
    """The K of the MMA shape that computes a dot of types `t` (`mma.sync`, or `wgmma`
    on sm_90a; 8-bit floats: `wgmma`, 8-bit `mma.sync` from sm_89, f16 `mma.sync` on
    widened operands before; 16 where K is 16 past a multiple of 32: i8 ends in an
    m16n8k16 step, 8-bit floats run on f16 `mma.sync` widened), or None when tileir has
    no tensor-core lowering for its types and shapes."""
    a, b, acc = element_type(t.a), element_type(t.b), element_type(t.acc)
    if t.packed_f4:  # 32 bytes, 64 e2m1 elements (`kind::mxf4*`)
        k_step = K_STEP_BYTES
    elif isinstance(a, Float16Type | BFloat16Type) and type(a) is type(b):
        f16_acc = isinstance(a, Float16Type) and isinstance(acc, Float16Type)
        k_step = 16 if isinstance(acc, Float32Type) or f16_acc else None
    elif isinstance(a, FloatTF32Type) and isinstance(b, FloatTF32Type):
        k_step = 8 if isinstance(acc, Float32Type) else None  # m16n8k8, m64nNk8
    elif isinstance(a, _FLOAT8) and isinstance(b, _FLOAT8):
        # 8-bit floats: K 32 (wgmma m64nNk32, mma.sync m16n8k32; sm_80 widens to f16).
        k_step = 32 if isinstance(acc, Float32Type | Float16Type) else None
    elif isinstance(a, IntegerType) and isinstance(b, IntegerType) and a.width.data == 8:
        wide = isinstance(acc, IntegerType) and acc.width.data == 32 and b.width.data == 8
        k_step = 32 if wide else None
    else:
        k_step = None
    if k_step == 32 and t.a.get_shape()[-1] % 32 == 16:
        # i8: a last m16n8k16 step on the 16-byte tail; 8-bit floats: f16 m16n8k16 on
        # the operands widened exactly (`float8_widening_reason`).
        k_step = 16
    if k_step is None or t.rank not in (2, 3):
        return None
    m, n, k = t.mnk
    if m % 16 or n % 8 or k % k_step:
        return None
    return k_step


def fma_dot_supported(t: DotTypes) -> bool:
    """Dots the tensor-core path does not take (f32 and f64 operands, tiles that are not
    multiples of the `mma.sync` shape, i8 tiles like cuTile's 2x1 by 1x2 `mmai`):
    computed on the CUDA cores, with FMAs for floats and 32-bit multiply-adds for
    integers."""
    types = [element_type(x) for x in (t.a, t.b, t.acc)]
    if t.rank not in (2, 3):
        return False
    if all(isinstance(x, _FLOATS) for x in types):
        return True
    a, b, acc = types
    return (
        isinstance(a, IntegerType)
        and isinstance(b, IntegerType)
        and a.width.data == b.width.data == 8
        and isinstance(acc, IntegerType)
        and acc.width.data == 32
    )


def _operand_kind(t: Attribute, signed: bool) -> str | None:
    el = element_type(t)
    if isinstance(el, FloatTF32Type):
        return "tf32"
    if isinstance(el, Float8E4M3FNType):
        return "e4m3"
    if isinstance(el, Float8E5M2Type):
        return "e5m2"
    if isinstance(el, Float16Type):
        return "f16"
    if isinstance(el, BFloat16Type):
        return "bf16"
    if isinstance(el, IntegerType) and el.width.data == 8:
        return "s8" if signed else "u8"
    return None


def mma_spec(t: DotTypes) -> MmaSpec | None:
    """The tensor-core instruction family for types `t`, or None."""
    if t.packed_f4:
        return MmaSpec(PACKED_F4, PACKED_F4, "f32")
    kind, b_kind = _operand_kind(t.a, t.signed[0]), _operand_kind(t.b, t.signed[1])
    acc_el = element_type(t.acc)
    if kind in ("f16", "bf16", "tf32") and b_kind == kind and isinstance(acc_el, Float32Type):
        return MmaSpec(kind, kind, "f32")
    if kind == "f16" and b_kind == kind and isinstance(acc_el, Float16Type):
        return MmaSpec(kind, kind, "f16")
    if kind in FLOAT8 and b_kind in FLOAT8 and isinstance(acc_el, Float32Type | Float16Type):
        assert b_kind is not None
        return MmaSpec(kind, b_kind, "f16" if isinstance(acc_el, Float16Type) else "f32")
    if (
        kind in ("s8", "u8")
        and b_kind in ("s8", "u8")
        and isinstance(acc_el, IntegerType)
        and acc_el.width.data == 32
    ):
        assert kind is not None and b_kind is not None
        return MmaSpec(kind, b_kind, "s32")
    return None


def dot_warp_grid(op: Operation, acc: TensorType) -> tuple[int, int]:
    """The `wm x wn` warp grid of a dot: its accumulator's `#nv_tileas.mma` layout's,
    or the one `mma_warp_grid` picks for the warps of its (blocked) layout."""
    if isinstance(acc.encoding, MmaLayoutAttr):
        return acc.encoding.wm, acc.encoding.wn
    if not isinstance(acc.encoding, DistributedLayout):
        raise error_at(
            op, f"expects tiles with a distributed layout, got {acc} (run tileas-assign-layouts)"
        )
    m, n = acc.get_shape()[-2:]
    return mma_warp_grid(m, n, acc.encoding.linear(acc.get_shape()).num_warps)


def wgmma_obstacle(
    arch: str,
    integer: bool,
    mnk: tuple[int, int, int],
    k_step: int,
    grid: tuple[int, int],
    rank: int,
) -> str | None:
    """Why a tensor-core dot of an `m x n` accumulator over `k`, held by a `wm x wn`
    warp grid, with K steps of `k_step`, does not run on `wgmma`; None when it does
    (`conversions/tileas_to_llvm/wgmma.py`)."""
    m, n, k = mnk
    wm, wn = grid
    if arch != "sm_90a":
        return f"wgmma is sm_90a's, not {arch}'s"
    if rank != 2:
        return "a batched dot"
    if k % k_step:
        return f"K = {k}, and wgmma's K for these operands is {k_step}"
    if wm % WARPGROUP or m % (16 * wm):
        return (
            f"its {wm}x{wn} warp grid has no whole warpgroup (4 warps) along M over 64 rows "
            "(M too small, or fewer than 4 warps)"
        )
    columns = n // wn  # each warpgroup's
    chunk = min(columns, MAX_WGMMA_N)
    # N: multiples of 8 up to 256; for 8-bit integers 8, 16, 24, then multiples of 16.
    if n % (8 * wn) or columns % chunk or chunk % 8 or (integer and chunk > 24 and chunk % 16):
        return f"its {columns} columns per warpgroup are no wgmma N"
    return None


def a_is_wgmma_fragment(op: tas.DotOp) -> bool:
    """Whether a `wgmma` dot could take A from registers instead of shared memory: a 2-D A
    of 16-bit elements (f16, bf16) whose layout is the A fragment of the dot's warps
    (`mma_linear` of A's shape over the accumulator's `wm x 1` warp grid: the
    accumulator layout of a previous product, as the probabilities P of attention,
    computed from the scores' accumulator, have it).  A could then go to the
    instruction as it is, with no trip through shared memory (PTX ISA, wgmma's register
    fragments; `tileas-pipeline-dot-operands` decides, `A_IN_REGISTERS_ATTR`)."""
    if op.atom.info.engine != "wgmma":
        return False
    spec = op.atom.info.mma_spec
    a, acc = op.a.type, op.acc.type
    if (
        spec is None
        or spec.element_bytes != 2
        or not isinstance(a, TensorType)
        or not isinstance(acc, TensorType)
        or len(a.get_shape()) != 2
        or not isinstance(a.encoding, DistributedLayout)
        or mlir_bit_width(a.element_type) != 16
    ):
        return False
    wm, wn = dot_warp_grid(op, acc)
    m, k = a.get_shape()
    return wn == 1 and a.encoding.linear([m, k]) == mma_linear((m, k), wm, 1)


@dataclass(frozen=True)
class DotPlan:
    """How a dot is computed on a target: the atom `tileas-select-dot-atoms` records
    (the lowering follows it; the `TensorCore` remarks report it)."""

    #: "tcgen05", "wgmma", "mma.sync" or "fma".
    engine: str
    #: The instruction, or why the dot runs on FMAs.
    detail: str
    #: The `nv_tileas.dot` atom.
    atom: str
    #: Why a tensor-core dot does not run on `wgmma` (None when it does, or on FMAs).
    why_not_wgmma: str | None = None
    #: On a tcgen05 target: why a tensor-core dot does not run on `tcgen05.mma`.
    why_not_tcgen05: str | None = None


def tcgen05_detail(spec: MmaSpec, mn: tuple[int, int]) -> str:
    """The `tcgen05.mma` a dot with an `m x n` accumulator reports."""
    m, n = mn
    return (
        f"tcgen05.mma.cta_group::1.kind::{tcgen05_kind(spec)} (M = {instruction_m(m)}, "
        f"N = {tcgen05_n(n)}, "
        f"K = {spec.k_step}; {spec.a} x {spec.b} -> {spec.acc} in tensor memory)"
    )


def _num_warps(op: Operation, acc: TensorType) -> int:
    wm, wn = dot_warp_grid(op, acc)
    return wm * wn


def fma_reason(t: DotTypes) -> str:
    """Why a dot of types `t` runs on FMAs."""
    types = " x ".join(str(element_type(x)) for x in (t.a, t.b))
    return f"{types} operands of these shapes have no tensor-core instruction"


def float8_widening_reason(spec: MmaSpec, arch: str, k: int) -> str | None:
    """Why a tensor-core dot of `spec` over `k` on `arch` runs on f16 `mma.sync` with
    its 8-bit float operands widened exactly (an `mma_*_via_f16` atom), or None when
    an 8-bit float instruction takes it (or its operands are no 8-bit floats).  Exact:
    every f8E4M3FN and f8E5M2 value is an f16 value (`mma.widened_to_f16`), so the
    products are those of the 8-bit instruction."""
    if not spec.float8:
        return None
    if compute_capability(arch) < FLOAT8_MMA_SYNC_CC:
        return f"{arch} has no 8-bit float tensor cores"
    if k % spec.k_step:
        return (
            f"K = {k}, and the 8-bit float instructions step K by {spec.k_step} "
            f"(mma.sync m16n8k{spec.k_step})"
        )
    return None


def mma_sync_detail(info: AtomInfo, k: int, widened: str | None = None) -> str:
    """The `mma.sync` a dot over `k` on atom `info` reports: i8 K that is 16 past a
    multiple of 32 ends in an m16n8k16 step, named instead; a widened 8-bit float dot
    (`widened`, its `float8_widening_reason`) says so, and why."""
    spec = info.mma_spec
    assert spec is not None
    ptx = spec.shaped(16) if k % spec.k_step else info.ptx
    if widened is None:
        return ptx
    return f"{ptx}, its 8-bit float operands widened exactly to f16: {widened}"


def _fma_plan(t: DotTypes) -> DotPlan | None:
    if not fma_dot_supported(t):
        return None
    if isinstance(element_type(t.acc), IntegerType):
        a, b = ("s8" if signed else "u8" for signed in t.signed)
        atom = fma_atom((a, b))
    else:
        atom = fma_atom()
    return DotPlan("fma", fma_reason(t), atom)


def plan_dot(op: aa.DotOp, arch: str) -> DotPlan | None:
    """`op`'s plan on `arch`, or None when tileir cannot compute it (the caller reports
    it at the op).  The accumulator must have its layout (`tileas-assign-layouts`)."""
    t = DotTypes.of(op)
    if t is None:
        return None
    if tensor_core_k_step(t) is None:
        return _fma_plan(t)
    spec = mma_spec(t)
    if spec is None:
        return None
    m, n, k = t.mnk
    grid = dot_warp_grid(op, t.acc)
    if op.scales is not None:
        return _block_scaled_plan(op, t, arch, grid[0] * grid[1])
    not_tcgen05 = None
    if arch in ARCHS and ARCHS[arch].tcgen05:
        not_tcgen05 = tcgen05_obstacle(arch, spec, (m, n, k), t.rank, grid[0] * grid[1])
        if not_tcgen05 is None:
            return DotPlan("tcgen05", tcgen05_detail(spec, (m, n)), tcgen05_atom(spec))
    obstacle = wgmma_obstacle(arch, spec.integer, (m, n, k), spec.k_step, grid, t.rank)
    if obstacle is None:
        chunk = min(n // grid[1], MAX_WGMMA_N)
        return DotPlan("wgmma", spec.wgmma(chunk), wgmma_atom(spec, chunk))
    # 8-bit floats no 8-bit float instruction takes: f16 ones, operands widened exactly.
    widened = float8_widening_reason(spec, arch, k)
    atom = mma_sync_atom(spec, widened is not None)
    detail = mma_sync_detail(ATOM_CATALOG[atom], k, widened)
    return DotPlan("mma.sync", detail, atom, obstacle, not_tcgen05)


def block_scaled_detail(form: BlockScaledForm, mn: tuple[int, int]) -> str:
    """The block-scaled `tcgen05.mma` a dot with an `m x n` accumulator reports."""
    _, n = mn
    return (
        f"tcgen05.mma.cta_group::1.kind::{form.kind}.block_scale.scale_vec::{form.vector}X "
        f"(M = {TCGEN05_M}, N = {tcgen05_n(n)}, K = {form.mma_k}; {form.a} x {form.b} -> f32 "
        f"in tensor memory, one {form.scale.upper()} scale per {form.group} of K)"
    )


def _block_scaled_plan(op: aa.DotOp, t: DotTypes, arch: str, num_warps: int) -> DotPlan:
    """The plan of a dot with scales (an `mmaf_scaled` kept whole for sm_100a): its
    block-scaled `tcgen05.mma`, which `decompose_scaled_mma` found before the lift."""
    spec = mma_spec(t)
    assert op.scales is not None and spec is not None
    m, n, k = t.mnk
    k = 2 * k if t.packed_f4 else k  # in elements
    groups = op.scales[0].type
    assert isinstance(groups, TensorType)
    group = k // groups.get_shape()[-1]
    scale = SCALE_KINDS.get(type(groups.element_type), str(groups.element_type))
    form = block_scaled_form(arch, spec.a, spec.b, scale, group, (m, n, k), t.rank, num_warps)
    if isinstance(form, str):
        raise error_at(op, f"a block-scaled dot that tcgen05 does not take: {form}")
    return DotPlan("tcgen05", block_scaled_detail(form, (m, n)), form.atom)


def recorded_plan(op: tas.DotOp, arch: str) -> DotPlan | None:
    """The plan `op`'s atom records, with the reasons `plan_dot` gives (`wgmma_obstacle`
    for a tensor-core dot on `mma.sync`, the types for an FMA dot)."""
    t = DotTypes.of(op)
    if t is None:
        return None
    info = op.atom.info
    if info.engine == "fma":
        return DotPlan("fma", fma_reason(t), info.name)
    if info.engine == "wgmma":
        return DotPlan("wgmma", info.ptx, info.name)
    spec = mma_spec(t)
    m, n, k = t.mnk
    if info.engine == "tcgen05" and spec is not None and info.block_scale is not None:
        k = 2 * k if t.packed_f4 else k  # in elements
        group = k // scale_groups(op) if op.scales is not None else 0
        mma_k = 2 * spec.k_step if t.packed_f4 else spec.k_step
        form = BlockScaledForm(*info.block_scale, spec.a, spec.b, group, mma_k)
        return DotPlan("tcgen05", block_scaled_detail(form, (m, n)), info.name)
    if info.engine == "tcgen05" and spec is not None:
        return DotPlan("tcgen05", tcgen05_detail(spec, (m, n)), info.name)
    obstacle = not_tcgen05 = widened = None
    if spec is not None:
        grid = dot_warp_grid(op, t.acc)
        obstacle = wgmma_obstacle(arch, spec.integer, (m, n, k), spec.k_step, grid, t.rank)
        if arch in ARCHS and ARCHS[arch].tcgen05:
            not_tcgen05 = tcgen05_obstacle(arch, spec, (m, n, k), t.rank, _num_warps(op, t.acc))
        if info.mma_spec is not None and info.mma_spec.a != spec.a:  # an `_via_f16` atom
            widened = float8_widening_reason(spec, arch, k) or "its atom says so"
    detail = mma_sync_detail(info, k, widened)
    return DotPlan("mma.sync", detail, info.name, obstacle, not_tcgen05)
