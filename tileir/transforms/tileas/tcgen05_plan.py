"""Which dots run on Blackwell's `tcgen05.mma` (sm_100a, sm_103a), and the register
layout their accumulators are read back into.

`dot_plan.plan_dot` asks `tcgen05_obstacle` first on a `GpuArch.tcgen05` target; a
dot it accepts gets a `tcgen05_mma_{a}_{b}_{acc}` atom
(`attributes.tcgen05_atom`), which `convert-tileas-to-llvm` carries out in
`conversions/tileas_to_llvm/tcgen05.py`.  `tileas-assign-layouts` (given the target)
gives the accumulator of such a dot `tcgen05_accumulator_layout`, so that the
epilogue works on the registers `tcgen05.ld` fills.

What tileir generates (PTX ISA 8.6+, "TensorCore 5th Generation Family Instructions",
section 9.7.16): one CTA (`.cta_group::1`), `M = 128` per instruction (the data-path
layout D of section 9.7.16.10.5, "Data path layout organization": accumulator row `i`
is tensor-memory lane `i`, column `j` is column `j`, one 32-bit column per element),
(or 64 for a 64-row tile), `N` a multiple of 16 from 16 to 256 per instruction (section 9.7.16.10.1, "Matrix
shape"), the kinds `kind::f16` (f16/bf16 into f32), `kind::tf32`, `kind::i8` (s8/u8
into s32) and `kind::f8f6f4` (e4m3/e5m2 into f32).  Everything else keeps `mma.sync`,
with the reason this module gives (the `Tcgen05NotUsed` remark):

* tiles of fewer than 64 rows (the ISA's M is 64 or 128 with one CTA; 32 only in the
  weight-stationary `.ws` form, not generated; tileiras keeps these on `mma.sync`
  too), or of a multiple of 64 that is not one of 128 (a 64-row
  tile runs on one `M = 64` instruction, data-path layout F: rows `16q ..` in lanes
  `32q ..` of each lane quarter; in the `mma.sync` fragment layout of 4 or 8 warps it
  moves with `tcgen05.ld`/`st` `.16x256b`, whose registers are that fragment
  (`fragment_blocks`), in any other layout through shared memory);
* 16-bit accumulators (f16 into f16, 8-bit floats into f16) pack two elements per
  column, not generated yet;
* batched (rank-3) dots, and i8 dots with a 16-byte K tail, are not generated yet;
* an accumulator wider than the 512 columns of tensor memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.dialects.builtin import Float8E4M3FNType, Float8E8M0FNUType, IntegerAttr, TensorType
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from tileir.dialects.cuda_tile.carriers import shape_of
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import block_scaled_atom
from tileir.dialects.nv_tileas.core_matrices import ScaleFactorBuffer
from tileir.dialects.nv_tileas.layouts import (
    WARP_SIZE,
    BlockedLayoutAttr,
    DistributedLayout,
    LinearLayout,
)
from tileir.dialects.nv_tileas.mma_spec import FLOAT8, K_STEP_BYTES, MmaSpec
from tileir.dialects.nv_tileas.ops.compute import COPIED_SCALES_ATTR
from tileir.targets import ARCHS
from tileir.utils.bits import log2
from tileir.utils.walk import enclosing_function

#: Rows of one `tcgen05.mma` with `.cta_group::1` that tileir issues (layout D).
TCGEN05_M = 128
#: The widest N of one `tcgen05.mma` (`.cta_group::1`, M = 128).
TCGEN05_MAX_N = 256
#: Columns of a CTA's tensor memory (each 128 lanes of 32 bits).
TMEM_COLUMNS = 512
#: The fewest columns `tcgen05.alloc` takes (a power of two from 32 to 512).
TMEM_MIN_ALLOC = 32
#: Warps that together reach all 128 lanes: warp `w` reads lanes `32 (w % 4) ..`.
LANE_QUARTERS = 4
#: The most consecutive columns of a row one thread holds where groups of four warps
#: split the columns (`column_run`).
COLUMN_RUN = 8
#: The same for an accumulator whose rows a reduction combines (`rows_reduced`).
REDUCED_ROW_RUN = 2


def tcgen05_kind(spec: MmaSpec) -> str | None:
    """The `.kind` of `tcgen05.mma` for `spec`'s operands, or None."""
    if spec.a in ("f16", "bf16"):
        return "f16"
    if spec.tf32:
        return "tf32"
    if spec.integer:
        return "i8"
    if spec.float8:
        return "f8f6f4"
    if spec.packed_f4:
        return "mxf4"  # block-scaled only (`block_scaled_form`)
    return None


def tcgen05_n(n: int) -> int:
    """The N of each `tcgen05.mma` covering `n` accumulator columns."""
    return min(n, TCGEN05_MAX_N)


#: The M of the half-datapath `tcgen05.mma` (data-path layout F).
TCGEN05_HALF_M = 64


def instruction_m(m: int) -> int:
    """The M of each `tcgen05.mma` of an `m`-row accumulator: 64 for a 64-row one, 128
    otherwise."""
    return TCGEN05_HALF_M if m == TCGEN05_HALF_M else TCGEN05_M


def tmem_columns(mn: tuple[int, int]) -> int:
    """Tensor-memory columns an `m x n` 32-bit accumulator takes: one block of `n`
    columns per 128 rows (a 64-row one: `n`)."""
    m, n = mn
    return max(1, m // TCGEN05_M) * n


def tmem_allocation(columns: int) -> int:
    """The columns `tcgen05.alloc` allocates for `columns`: a power of two, at least 32."""
    alloc = TMEM_MIN_ALLOC
    while alloc < columns:
        alloc *= 2
    return alloc


def tcgen05_obstacle(
    arch: str, spec: MmaSpec, mnk: tuple[int, int, int], rank: int, num_warps: int
) -> str | None:
    """Why a tensor-core dot of `spec` over `mnk` does not run on `tcgen05.mma` on
    `arch` with `num_warps` warps; None when it does."""
    target = ARCHS.get(arch)
    if target is None or not target.tcgen05:
        return f"tcgen05 is sm_100a's and sm_103a's, not {arch}'s"
    m, n, k = mnk
    if tcgen05_kind(spec) is None:
        return f"{spec.a} operands have no tcgen05 kind"
    # What the ISA rules out first, then what tileir does not generate yet.
    if m < TCGEN05_HALF_M:
        return (
            f"M = {m}: tcgen05.mma with one CTA takes M = 64 or 128 (PTX ISA 9.7.16.10.1; "
            "only the weight-stationary tcgen05.mma.ws takes M = 32, and tileir does not "
            "generate it)"
        )
    if m % TCGEN05_M and m != TCGEN05_HALF_M:
        return f"M = {m}: tcgen05.mma with one CTA takes M = 64 or 128 (row blocks of 128)"
    if spec.acc == "f16":
        return "f16 accumulators (two per tensor-memory column) are not generated yet"
    if rank != 2:
        return "batched dots on tcgen05 are not generated yet"
    chunk = tcgen05_n(n)
    if n % 16 or n % chunk:
        return f"N = {n} is no multiple of tcgen05's N (multiples of 16 up to 256)"
    if k % spec.k_step:
        return f"K = {k}, and tcgen05's K for these operands is {spec.k_step}"
    if tmem_columns((m, n)) > TMEM_COLUMNS:
        return (
            f"its {m}x{n} accumulator takes {tmem_columns((m, n))} tensor-memory columns "
            f"(at most {TMEM_COLUMNS})"
        )
    if num_warps % LANE_QUARTERS or n % warp_split((m, n), num_warps)[1]:
        return f"{num_warps} warps do not split its {n} columns over the four lane quarters"
    return None


#: Elements of K per scale factor of the block-scaled forms tileir generates (1X).
SCALE_GROUP = 32


@dataclass(frozen=True)
class BlockScaledForm:
    """The block-scaled `tcgen05.mma` of a `mmaf_scaled` (PTX ISA 9.7.16.10.7): its
    `.kind`, scale vector (factors per 32 bytes of K) and scale type, A's and B's
    element kinds, the K one factor covers (`group`) and the K of one MMA."""

    kind: str
    vector: int
    scale: str
    a: str
    b: str
    group: int
    mma_k: int

    @property
    def atom(self) -> str:
        return block_scaled_atom(self.a, self.b, self.kind, self.scale)

    @property
    def packed(self) -> bool:
        """e2m1 operands two a byte: the dot's tiles are K / 2 bytes wide."""
        return self.a == PACKED_F4

    def elements(self, k: int) -> int:
        """The K in elements of a dot whose operand tiles are `k` wide."""
        return 2 * k if self.packed else k

    def scale_buffers(
        self, mnk: tuple[int, int, int]
    ) -> tuple[ScaleFactorBuffer, ScaleFactorBuffer]:
        """A's (`M` rows) and B's (`N` columns) scale factors of an `M x N x K` dot."""
        m, n, k = mnk
        groups = k // self.group
        return ScaleFactorBuffer(m, groups), ScaleFactorBuffer(n, groups)

    def scale_columns(self, mnk: tuple[int, int, int]) -> int:
        """Tensor-memory columns one set of the dot's scale factors takes."""
        a, b = self.scale_buffers(mnk)
        return a.columns + b.columns


#: A block-scaled `tcgen05` dot's first tensor-memory column of its scale factors (A's,
#: then B's: `ScaleFactorBuffer.columns` each), after every accumulator
#: (`tileas-tmem-accumulators`).
TMEM_SCALE_COLUMN_ATTR = "nv_tileas.tmem_scale_column"

#: The sets of scale factors of a block-scaled `tcgen05` dot whose MMAs stay in flight
#: (`nv_tileas.tmem_in_flight`): one a slot of its A's ring, `ScaleFactorBuffer.columns`
#: of A's and B's each, set `s` at `TMEM_SCALE_COLUMN_ATTR + s * (A's + B's columns)`
#: (its staging buffers alike, `s * (A's + B's bytes)` on).  Iteration `i` uses the set
#: of the slot it reads; the set's last reader, iteration `i - S`, committed to that
#: slot's mbarrier, which every thread waited for when the ring refilled the slot (in
#: iteration `i - S + 1 <= i - 1`): no new barrier.  Absent: one set, the dot waits for
#: its own commit.
TMEM_SCALE_SETS_ATTR = "nv_tileas.tmem_scale_sets"


def dot_scale_buffers(dot: tas.DotOp) -> tuple[ScaleFactorBuffer, ScaleFactorBuffer] | None:
    """The scale factors of the block-scaled dot `dot` as staged for `tcgen05.cp` (A's
    `M` rows, B's `N` columns, `K / G` groups each); None for a dot without scales."""
    if dot.scales is None:
        return None
    groups = scale_groups(dot)
    m, n = shape_of(dot.a.type)[-2], shape_of(dot.b.type)[-1]
    return ScaleFactorBuffer(m, groups), ScaleFactorBuffer(n, groups)


def scale_groups(dot: tas.DotOp) -> int:
    """The scale groups along K of the block-scaled `dot` (`K / G`): its A scales'
    last extent, or what `COPIED_SCALES_ATTR` says where they are raw slot tiles."""
    assert dot.scales is not None
    copied = dot.attributes.get(COPIED_SCALES_ATTR)
    if isinstance(copied, IntegerAttr):
        return copied.value.data
    return shape_of(dot.scales[0].type)[-1]


#: The 4-bit float kind of the packed block-scaled forms: two E2M1 elements a byte, the
#: even one in the low nibble (cuda_tile `unpack`'s order and the MMA's, PTX ISA
#: 9.7.16.10.7), K-major only; one MMA reads 32 bytes, 64 elements, of each row.
PACKED_F4 = "e2m1"
#: The scale factors' element types, as `block_scaled_form` spells them.
SCALE_KINDS: dict[type[Attribute], str] = {Float8E8M0FNUType: "e8m0", Float8E4M3FNType: "e4m3"}
#: Elements of K one packed 4-bit MMA takes (`kind::mxf4`, `kind::mxf4nvf4`).
PACKED_F4_MMA_K = 2 * K_STEP_BYTES


def packed_f4_form(scale: str, group: int) -> BlockScaledForm | str:
    """The block-scaled `tcgen05.mma` of packed e2m1 x e2m1 operands with one `scale`
    factor (`e8m0`, `e4m3`) per `group` elements of K (PTX ISA 9.7.16.10.7, Table 55):
    UE8M0 per 32 is `kind::mxf4` 2X, per 16 `kind::mxf4nvf4` 4X; f8E4M3FN per 16 is
    `kind::mxf4nvf4` 4X on UE4M3 (no sign: the operands take it); or why none takes it."""
    vector = PACKED_F4_MMA_K // group if group in (16, 32) else 0
    if scale == "e8m0" and vector:
        kind = "mxf4" if vector == 2 else "mxf4nvf4"
        return BlockScaledForm(kind, vector, "ue8m0", PACKED_F4, PACKED_F4, group, PACKED_F4_MMA_K)
    if scale == "e4m3" and vector == 4:
        # UE4M3 has no sign: `scaled_mma._fold_scale_signs` moves it into the operands.
        return BlockScaledForm("mxf4nvf4", 4, "ue4m3", PACKED_F4, PACKED_F4, group, PACKED_F4_MMA_K)
    return (
        f"{scale} scales per {group} elements of e2m1: kind::mxf4 takes one UE8M0 factor per "
        "32 (scale_vec::2X), kind::mxf4nvf4 one per 16 (scale_vec::4X)"
    )


def block_scaled_form(
    arch: str,
    a: str,
    b: str,
    scale: str,
    group: int,
    mnk: tuple[int, int, int],
    rank: int,
    num_warps: int,
) -> BlockScaledForm | str:
    """The block-scaled `tcgen05.mma` computing a `mmaf_scaled` of `a` x `b` elements
    (`wgmma`'s spelling: e4m3, e5m2, e2m1), one `scale` factor (`e8m0`, `e4m3`) per
    `group` elements of K, over `mnk` (K in elements), rank `rank`, on `arch` with
    `num_warps` warps; or why it does not run on one (then it runs on bf16 dots,
    `decompose-scaled-dots`).  e2m1 operands are read packed, two a byte (`PACKED_F4`):
    their dot's K is `mnk`'s K over 2 bytes."""
    target = ARCHS.get(arch)
    if target is None or not target.tcgen05:
        return f"block-scaled tcgen05.mma is sm_100a's and sm_103a's, not {arch}'s"
    m, n, k = mnk
    packed = a == b == PACKED_F4
    if packed:
        form = packed_f4_form(scale, group)
        if isinstance(form, str):
            return form
        if k % PACKED_F4_MMA_K:
            return f"K = {k}: kind::{form.kind} takes K in steps of {PACKED_F4_MMA_K}"
    elif a not in FLOAT8 or b not in FLOAT8:
        return (
            f"{a} x {b} operands: block-scaled tcgen05.mma takes 8-bit floats "
            "(kind::mxf8f6f4) or e2m1 x e2m1 (kind::mxf4, kind::mxf4nvf4)"
        )
    elif scale != "e8m0" or group != SCALE_GROUP:
        return (
            f"{scale} scales per {group} elements: kind::mxf8f6f4 takes one UE8M0 factor per "
            f"{SCALE_GROUP} (scale_vec::1X)"
        )
    else:
        form = BlockScaledForm("mxf8f6f4", 1, "ue8m0", a, b, group, K_STEP_BYTES)
    if m % TCGEN05_M:
        return (
            f"M = {m}: block-scaled tcgen05.mma with one CTA takes M = 128 "
            "(PTX ISA 9.7.16.10.1; row blocks of 128)"
        )
    operand_k = k // 2 if packed else k
    why = tcgen05_obstacle(arch, MmaSpec(a, b, "f32"), (m, n, operand_k), rank, num_warps)
    if why is not None:
        return why
    columns = tmem_columns((m, n)) + form.scale_columns(mnk)
    if columns > TMEM_COLUMNS:
        return (
            f"its {m}x{n} accumulator and its scale factors take {columns} tensor-memory "
            f"columns (at most {TMEM_COLUMNS}; tileiras runs such tiles on a CTA pair, "
            ".cta_group::2, which tileir does not generate)"
        )
    return form


def warp_split(mn: tuple[int, int], num_warps: int) -> tuple[int, int]:
    """How the `num_warps / 4` groups of four warps split an `m x n` accumulator: over
    its 128-row blocks first (a row stays in one thread, so row reductions such as
    attention's softmax need no other warp), then over its columns."""
    m, _ = mn
    groups = num_warps // LANE_QUARTERS
    rows = min(groups, max(1, m // TCGEN05_M))
    return rows, groups // rows


def tmem_register_layout(
    mn: tuple[int, int], num_warps: int, run: int | None = None
) -> LinearLayout:
    """The registers `tcgen05.ld.32x32b` fills from an `m x n` accumulator: for a
    multiple of 128 rows, `tcgen05_accumulator_layout`'s; for 64 rows (layout F, rows
    `16q .. 16q+15` in lanes `32q ..` of quarter `q`), lane `l < 16` of warp `w` holds
    row `16 (w % 4) + l` and lanes `16 ..` read lanes that hold no row (a replica in the
    layout: an exchange writes only lanes below 16)."""
    m, n = mn
    if m != TCGEN05_HALF_M:
        return tcgen05_accumulator_layout(mn, num_warps, run).linear(mn)
    groups = num_warps // LANE_QUARTERS
    per_thread = n // groups
    registers = tuple((0, 1 << i) for i in range(log2(per_thread)))
    lanes = ((1, 0), (2, 0), (4, 0), (8, 0), (0, 0))
    warps = ((16, 0), (32, 0), *((0, per_thread << i) for i in range(log2(groups))))
    return LinearLayout((m, n), registers, lanes, warps)


#: Lane bases of `tcgen05.ld`/`st` `.16x256b` (PTX ISA 9.7.16.2.3.1, "Matrix fragments
#: for shape .16x256b"): lane `l` holds row `l / 4` and columns `2 (l % 4)`, `+1` of each
#: 16x8 block (rows `+8` in its second register pair), the `mma.sync` m16n8 accumulator
#: fragment (`mma_layout._LANES`).
FRAGMENT_LANES = ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0))
#: Registers a thread holds per 16x8 block of a `.16x256b` access (`.x1`).
FRAGMENT_REGISTERS = 4
#: The most 8-column blocks one `.16x256b` access moves here (32 registers, as
#: `MAX_COLUMNS_PER_ACCESS` of the `.32x32b` ones).
FRAGMENT_BLOCKS = 8


def fragment_blocks(layout: LinearLayout, mn: tuple[int, int]) -> list[int] | None:
    """For a 64-row accumulator (data-path layout F: rows `16q .. 16q+15` in lanes
    `32q .. 32q+15`) held in `layout`: the column of each 16x8 block of a thread's
    registers (registers `4i .. 4i+3` are block `i`), before the column of its warp's
    part (`fragment_warp_columns`), where `layout` is the one `tcgen05.ld.16x256b` of
    the lanes `32 (w % 4) ..` fills, so that warp `w` reads and writes its 16 rows
    `16 (w % 4) ..` directly: register bit 0 one column, bit 1 eight rows, the others
    and the warps above the lane quarter distinct powers of two of at least 8 columns
    (the `#nv_tileas.mma` layout of 4 or 8 warps).  None otherwise."""
    m, n = mn
    if m != TCGEN05_HALF_M or layout.shape != (m, n) or len(layout.warps) < 2:
        return None
    if layout.registers[:2] != ((0, 1), (8, 0)) or layout.lanes != FRAGMENT_LANES:
        return None
    if layout.warps[:2] != ((16, 0), (32, 0)):
        return None
    steps = [c for _, c in layout.registers[2:]]
    warp_steps = [c for _, c in layout.warps[2:] if c]
    if any(r for r, _ in (*layout.registers[2:], *layout.warps[2:])):
        return None
    bases = steps + warp_steps
    if any(c < 8 or c & (c - 1) for c in bases) or len(set(bases)) != len(bases):
        return None
    return [sum(c for j, c in enumerate(steps) if i >> j & 1) for i in range(1 << len(steps))]


def fragment_type(t: Attribute) -> bool:
    """Whether `t` is a 64-row accumulator tensor in a `fragment_blocks` layout, which
    `.16x256b` accesses move as it is (so it may stay in tensor memory across a loop
    like a 128-row one: `tileas-tmem-accumulators`)."""
    if not isinstance(t, TensorType) or len(t.get_shape()) != 2:
        return False
    layout = t.encoding
    if not isinstance(layout, DistributedLayout):
        return False
    m, n = t.get_shape()
    return fragment_blocks(layout.linear((m, n)), (m, n)) is not None


def fragment_warp_columns(layout: LinearLayout) -> list[int]:
    """The column each warp bit above the lane quarter adds to a `fragment_blocks`
    layout's blocks (0 for a warp bit that holds a replica)."""
    return [c for _, c in layout.warps[2:]]


def power_of_two_runs(columns: Sequence[int], step: int, most: int) -> list[tuple[int, int]]:
    """`(first index, count)` of each access over `columns` in order: a power of two of
    them, at most `most`, each `step` columns after the last (the `.xN` of one
    `tcgen05.ld`/`st`)."""
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(columns):
        count = 1
        while (
            count * 2 <= most
            and i + count * 2 <= len(columns)
            and all(columns[i + j] == columns[i] + step * j for j in range(count * 2))
        ):
            count *= 2
        runs.append((i, count))
        i += count
    return runs


def fragment_accesses(blocks: list[int]) -> list[tuple[int, int, int]]:
    """`(first register, column, blocks)` of each `tcgen05.ld`/`st` `.16x256b.x{blocks}`
    over a thread's `fragment_blocks`: consecutive blocks 8 columns apart, a power of two
    of them, at most `FRAGMENT_BLOCKS`."""
    return [
        (FRAGMENT_REGISTERS * i, blocks[i], count)
        for i, count in power_of_two_runs(blocks, 8, FRAGMENT_BLOCKS)
    ]


def column_run(mn: tuple[int, int], num_warps: int, reduced: bool = False) -> int:
    """How many consecutive columns of a row a thread holds before the next run of the
    row goes to the next group of four warps (`Gc` groups split the columns).  With one
    group, the whole row.  With several, runs of `COLUMN_RUN` columns (fewer where
    `n / Gc` is not a multiple of it) dealt out to the groups in turn: a row reduction's
    tree (`reductions.py`, the highest coordinate bit first) then combines a thread's
    own registers before it crosses warps, and only as many values a thread as a run
    holds go through shared memory there instead of all `n / Gc` (attention's softmax
    on a 128x128 S with 8 warps exchanged 64 KB for each of its two row reductions).
    In a kernel that reduces the rows of an accumulator (`reduced`, `rows_reduced`:
    attention's S), every accumulator takes runs of `REDUCED_ROW_RUN` (S and O share a
    layout, so the row values that scale O need no conversion): 2 values a thread cross
    warps, and the registers the softmax holds across its exchanges drop further
    (sm_100a, ptxas 13, spill stores with runs of 8 -> 2 at `2bba914`:
    `t_attention_bf16_d128_causal` 52 -> 4, `s_fmha_f16_causal` 60 -> 0; runs of 2 for S
    alone made O's row factors convert through shared memory).  Other kernels keep
    `COLUMN_RUN`, the 8-column `tcgen05.ld`s and stores their epilogues want (runs of 2
    took `t_matmul_bf16_128x128x64` from 64 to 169 registers).  A 64-row accumulator
    (layout F) keeps whole runs: its `mma.sync` fragment layout is read with `.16x256b`
    (`fragment_blocks`), any other through shared memory."""
    m, n = mn
    _, columns = warp_split(mn, num_warps)
    per_thread = n // columns
    if columns == 1 or m < TCGEN05_M:
        return per_thread
    return math.gcd(per_thread, REDUCED_ROW_RUN if reduced else COLUMN_RUN)


def rows_reduced(value: SSAValue) -> bool:
    """Whether the `m x n` tile `value` reaches a reduction along its rows (axis 1)
    through ops that keep its shape (attention's scaling, masking and `exp2` between S
    and its row maximum and sum) and the loops or branches that yield it (an
    accumulator reduced after its K loop)."""
    t = value.type
    if not isinstance(t, TensorType) or len(t.get_shape()) != 2:
        return False
    shape = t.get_shape()
    seen: set[Operation] = set()
    work = [value]
    while work:
        for use in work.pop().uses:
            user = use.operation
            if isinstance(user, tas.ReduceOp):
                if user.axis.value.data == 1:
                    return True
                continue
            if isinstance(user, scf.YieldOp):
                parent = user.parent_op()
                if isinstance(parent, scf.ForOp | scf.IfOp):
                    work.append(parent.results[use.index])
                continue
            if user.regions or user in seen:
                continue
            seen.add(user)
            for result in user.results:
                r = result.type
                if isinstance(r, TensorType) and r.get_shape() == shape:
                    work.append(result)
    return False


def accumulator_run(t: Attribute, num_warps: int) -> int:
    """The column run of the `tcgen05` accumulator type `t`: its blocked layout's when
    that is `tcgen05_accumulator_layout` with that run, else `column_run`'s default."""
    assert isinstance(t, TensorType)
    m, n = t.get_shape()
    layout = t.encoding
    if isinstance(layout, BlockedLayoutAttr) and len(layout.spt) == 2:
        run = layout.spt[1]
        if layout == tcgen05_accumulator_layout((m, n), num_warps, run):
            return run
    return column_run((m, n), num_warps)


def tcgen05_accumulator_layout(
    mn: tuple[int, int], num_warps: int, run: int | None = None
) -> BlockedLayoutAttr:
    """The registers `tcgen05.ld.32x32b` fills from an `m x n` accumulator in layout D:
    warp `w` may read only lanes `32 (w % 4) .. +31` (its lane quarter), so its lane `l`
    holds row `32 (w % 4) + l` of 128-row blocks; the groups of four warps `w / 4` split
    the blocks (`Gm` of them) and then the columns (`Gc`: `warp_split`), in runs of
    `run` consecutive columns (`column_run`'s by default) dealt out to the `Gc` groups in
    turn (one run of all `n` columns where `Gc` is 1), of the blocks `w / 4 % Gm + Gm i`.
    A blocked layout (repeated along the columns): every pass already handles it."""
    rows, columns = warp_split(mn, num_warps)
    if run is None:
        run = column_run(mn, num_warps)
    return BlockedLayoutAttr([1, run], [WARP_SIZE, 1], [LANE_QUARTERS * rows, columns], [0, 1])


def resident_chain(dot: tas.DotOp) -> tuple[int, list[tas.DotOp]] | None:
    """The `scf.for` iteration argument whose accumulator can stay in tensor memory, and
    the `tcgen05` dots that accumulate into it in turn, when `dot` is the first of them:
    its accumulator is the argument, which only it uses; each dot's result is only the
    next one's accumulator (a block-scaled K step is one dot per scale block), and the
    last one's is only yielded back to the argument.  None otherwise."""
    acc = dot.acc
    loop = dot.parent_op()
    if not isinstance(acc, BlockArgument) or not isinstance(loop, scf.ForOp):
        return None
    if acc.block is not loop.body.block or acc.index == 0:
        return None
    position = acc.index - 1  # the first block argument is the induction variable
    if acc.uses.get_length() != 1:
        return None
    return chain_from(dot, position)


def chain_from(dot: tas.DotOp, position: int) -> tuple[int, list[tas.DotOp]] | None:
    """The `tcgen05` dots from `dot` on, each accumulating into the last one's result,
    the last one's only yielded back to the loop's argument at `position`."""
    loop = dot.parent_op()
    assert isinstance(loop, scf.ForOp)
    chain = [dot]
    while chain[-1].result.uses.get_length() == 1:
        use = next(iter(chain[-1].result.uses))
        user = use.operation
        if isinstance(user, scf.YieldOp):
            return (position, chain) if use.index == position else None
        if (
            not isinstance(user, tas.DotOp)
            or user.acc is not chain[-1].result
            or user.atom.info.engine != "tcgen05"
            or user.parent_op() is not loop
        ):
            return None
        chain.append(user)
    return None


def chain_head(dot: tas.DotOp) -> tas.DotOp:
    """The first dot of the chain `dot` belongs to: `dot`, or the dot of its block whose
    result its accumulator is, and so on (a block-scaled K step's dots)."""
    head = dot
    while isinstance(head.acc.owner, tas.DotOp) and head.acc.owner.parent_block() is (
        dot.parent_block()
    ):
        head = head.acc.owner
    return head


def accumulator_in_tmem(dot: tas.DotOp) -> bool:
    """Whether the accumulator of the `tcgen05` dot `dot` stays in tensor memory across
    its loop, so that no thread holds it in registers while the loop runs, as
    `tileas-tmem-accumulators` (which runs after the rings are planned) will decide: the
    first dot of its chain (`chain_head`) is a `resident_chain` of a 128-row accumulator
    (or a 64-row one in a `fragment_type` layout), and the accumulators of every chain of
    `tcgen05` dots of the function take at most `TMEM_COLUMNS` together (an upper bound
    of what that pass allocates: past it, it keeps every accumulator in registers)."""
    head = chain_head(dot)
    if head.atom.info.engine != "tcgen05" or resident_chain(head) is None:
        return False
    acc = head.acc.type
    assert isinstance(acc, TensorType)
    if acc.get_shape()[0] % TCGEN05_M and not (
        fragment_type(acc) and fragment_type(head.result.type)
    ):
        return False
    fn = enclosing_function(dot)
    if fn is None:
        return False
    heads = {
        id(h): h
        for d in fn.walk()
        if isinstance(d, tas.DotOp) and d.atom.info.engine == "tcgen05"
        for h in (chain_head(d),)
    }
    columns = 0
    for h in heads.values():
        t = h.acc.type
        assert isinstance(t, TensorType)
        m, n = t.get_shape()
        columns += tmem_columns((m, n))
    return columns <= TMEM_COLUMNS


def may_stay_in_flight(dot: tas.DotOp) -> bool:
    """Whether `tileas-tmem-accumulators` (which runs after the rings are planned) may
    leave the MMAs of the `tcgen05` dot `dot` in flight across iterations: only a dot
    whose accumulator stays in tensor memory on its own (`resident_chain`, one dot, not
    rescaled).  Such a dot's rings take `stages` slots (the slot its MMAs still read,
    refilled once their commit arrives); every other `tcgen05` dot waits for its own
    commit each iteration, so, as for a synchronous `mma.sync` or `wgmma` dot, the slot
    it read is refilled after that wait and its rings take `stages - 1` slots: one slot
    a ring at two stages (attention's K and V beside Q and P at `occupancy = 2`), and
    nothing of them outlives the loop (`ring_budget.ring_scoped`).  A block-scaled dot
    in flight takes one set of scale factors a slot (`TMEM_SCALE_SETS_ATTR`)."""
    if dot.atom.info.engine != "tcgen05":
        return False
    chain = resident_chain(dot)
    return chain is not None and len(chain[1]) == 1


#: Lane bases of an `m x k` tile whose row `i` is in tensor-memory lane `i` with one
#: warp's 32 lanes (`tcgen05.st.32x32b`), and the row bases of the first two warp bits
#: (the lane quarters, PTX ISA "Access restrictions").
_ROW_LANES = ((1, 0), (2, 0), (4, 0), (8, 0), (16, 0))
_QUARTER_WARPS = ((32, 0), (64, 0))


def a_in_tmem_obstacle(dot: tas.DotOp) -> str | None:
    """Why the `tcgen05` dot `dot` takes A through shared memory rather than from tensor
    memory (`tcgen05.mma ... [d], [a], b-desc, ...`, PTX ISA "tcgen05.mma": "the matrix A
    in Tensor Memory"); None when A may go there: attention's P, computed in registers
    in the loop (not a ring's tile, not staged once before it), 128 rows of 16-bit
    elements (`kind::f16`, two elements a 32-bit column, A K-major: data-path layout D
    of 9.7.16.10.5, row `i` in lane `i`, element pair `2c, 2c + 1` in column `c`), held
    as `tcgen05.st.32x32b` writes it: each thread one row (`32 (w % 4) + lane`), its
    elements in pairs of adjacent columns (register bit 0 is column 1), and a dot that
    waits for its own commit (its MMAs never outlive the iteration, so the next
    iteration's P may overwrite the columns)."""
    if dot.atom.info.engine != "tcgen05":
        return "not a tcgen05 dot"
    loop = dot.parent_op()
    if not isinstance(loop, scf.ForOp):
        return "not in a loop"
    owner = dot.a.owner
    if not isinstance(owner, Operation) or not loop.is_ancestor(owner):
        return "A is not computed in the loop"
    if isinstance(owner, tas.FutureWaitOp):
        return "A comes from a ring"
    t = dot.a.type
    if not isinstance(t, TensorType) or not isinstance(t.encoding, DistributedLayout):
        return "A has no distributed layout"
    shape = t.get_shape()
    if len(shape) != 2 or shape[0] != TCGEN05_M:
        return f"A has {shape[0]} rows (tileir puts only 128-row A in tensor memory)"
    spec = dot.atom.info.mma_spec
    if spec is None or tcgen05_kind(spec) != "f16":
        return "A is not 16-bit (kind::f16): not yet"
    layout = t.encoding.linear((shape[0], shape[1]))
    if tuple(layout.lanes) != _ROW_LANES or tuple(layout.warps[:2]) != _QUARTER_WARPS:
        return "A's registers do not hold one row a thread in its warp's lane quarter"
    if any(row for row, _ in (*layout.registers, *layout.warps[2:])):
        return "A's registers do not hold one row a thread in its warp's lane quarter"
    if not layout.registers or layout.registers[0] != (0, 1):
        return "A's registers do not pair adjacent columns"
    if may_stay_in_flight(dot):
        return "its MMAs may stay in flight"
    return None


def a_goes_to_tmem(dot: tas.DotOp) -> bool:
    """Whether `tileas-tmem-accumulators` (which runs after the rings are planned) will
    give the `tcgen05` dot `dot`'s A tensor-memory columns, so that A takes no
    shared-memory buffer (`ring_budget`): A may go there (`a_in_tmem_obstacle`) and
    another `tcgen05` dot of its loop whose accumulator is fresh each iteration (defined
    outside the loop: attention's S, never a resident or rescaled chain's) has at least
    A's columns, which A then shares, so the kernel's allocation does not grow.  (A may
    also go there in other cases; the budget then counts its buffer, more than needed.)"""
    if a_in_tmem_obstacle(dot) is not None:
        return False
    loop = dot.parent_op()
    assert isinstance(loop, scf.ForOp)
    width = tmem_a_columns(dot)
    for other in loop.body.block.ops:
        if other is dot or not isinstance(other, tas.DotOp):
            continue
        acc = other.acc.type
        if (
            other.atom.info.engine == "tcgen05"
            and isinstance(other.acc.owner, Operation)
            and not loop.is_ancestor(other.acc.owner)
            and isinstance(acc, TensorType)
            and len(acc.get_shape()) == 2
            and tmem_columns((acc.get_shape()[0], acc.get_shape()[1])) >= width
        ):
            return True
    return False


def tmem_a_columns(dot: tas.DotOp) -> int:
    """Tensor-memory columns `dot`'s A takes there: `K` 16-bit elements, two a column."""
    t = dot.a.type
    assert isinstance(t, TensorType)
    return t.get_shape()[-1] // 2
