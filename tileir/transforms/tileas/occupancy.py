"""The CTAs per SM a kernel is compiled for: its `occupancy` hint, unless the registers
its loops' tensor-core accumulators take cannot fit the share of the register file the
hint leaves a thread.

cuTile's `occupancy` (an entry's `optimization_hints`) is a performance hint: keep that
many CTAs resident on one SM.  tileir meets it with the kernel's `.maxnreg`, the share
of the 64 Ki registers of an SM that lets `occupancy` CTAs in (`targets.register_budget`:
256 threads and `occupancy = 2` give 128), and with the shared memory its rings may
take (`ring_budget.kernel_shared_budget`).  A loop of `wgmma` or `mma.sync` dots holds
their accumulators in registers for its whole run; flash attention holds two, the
scores S and the output O, and P, the second product's A computed from S.  Where these
exceed the hint's share, ptxas spills inside the loop, every trip:
`t_attention_bf16_d128_causal` (cuTile's attention test with head size 128: 128x128
tiles, 256 threads, `occupancy = 2`; S 64 registers a thread, O 64, P 32) stored 716
bytes at `.maxnreg 128` on sm_90a, and NVIDIA's FMHA sample (head size 64: S 64, O 32,
P 32) moved 164 bytes a thread through local memory in each trip of its K/V loop before
`tileas-overlap-attention-dots`, more than the 128 bytes of K and V the trip's copies
bring (docs/codegen.md, "The register budget").  A second CTA running such a loop gains
less than the first loses, so the kernel is compiled for the largest occupancy below the
hint whose share does hold them and records it (`OCCUPANCY_ATTR`) with why
(`OCCUPANCY_NOTE_ATTR`, which the `OccupancyHintNotHonoured` remark prints).  No reserve
is added for the loop's other values: S dies as P is made, and P's words stand for them.
With a 64-register reserve (the one split-dot-accumulators keeps) the FMHA sample's
128 registers were declined too, and since the overlap pass they hold its noncausal
kernel without a spill and its causal one with 12 bytes (three words reloaded a trip in
the masked loop).  Where not even one CTA's 255 registers would hold the loop (NVIDIA's
256x128 FMHA tiles in 8 warps: S alone is 128 registers a thread), the kernel gets more
warps first (`loop_dot_warps`, which `tileas-assign-layouts` asks before it lays
anything out), and this rule then applies to those.  Every reader of the hint
reads the recorded value (`ring_budget.occupancy_hint`): the `.maxnreg`, the shared
memory the rings may take, whether `wgmma` takes P from registers.

The estimate is made from the dots' types, the warps `tileas-assign-layouts` chose and
the accumulator layouts it gives (an MMA layout spreads a tile evenly over the
threads), not by trying ptxas.  Accumulators that stay in tensor memory (128-row
`tcgen05`, sm_100a) take no registers and do not count.  A GEMM's loop is not lowered
for: `split-dot-accumulators` runs first and splits an accumulator the hint's share
cannot hold.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr, StringAttr, i32
from xdsl.ir import Attribute, Operation, SSAValue

from tileir.dialects.cuda_tile.attributes import OptimizationHintsAttr
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.hints import HINTS_ATTR, OCCUPANCY
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import WARP_SIZE, DistributedLayout
from tileir.dialects.nv_tileas.mma_layout import MmaLayoutAttr
from tileir.targets import MAX_REGISTERS_PER_THREAD, hint_target, register_budget
from tileir.transforms.tileas.mma_layouts import runs_on_tensor_cores, tensor_core_dots
from tileir.utils.bits import storage_bits

#: The CTAs per SM the kernel is compiled for, where it is not its hint (an i32).
OCCUPANCY_ATTR = "nv_tileas.occupancy"
#: Why the hint was not honoured (a sentence, the remark).
OCCUPANCY_NOTE_ATTR = "nv_tileas.occupancy_note"
Dot = aa.DotOp | tas.DotOp


def hinted_occupancy(hints: Attribute | None, arch: str) -> int | None:
    """The `occupancy` that `hints` (a kernel's `optimization_hints`, on its cuda_tile
    entry or its func.func) gives for `arch`, or None."""
    if not isinstance(hints, OptimizationHintsAttr):
        return None
    chosen = hints.for_target(hint_target(arch))
    value = chosen.data.get(OCCUPANCY) if chosen is not None else None
    return value.value.data if isinstance(value, IntegerAttr) else None


def _recorded(fn: func.FuncOp) -> int | None:
    """The CTAs per SM recorded on `fn` (`OCCUPANCY_ATTR`: `fit_occupancy`'s, or
    `tileas-pipeline-dot-operands`'s for a GEMM of small accumulators), if any."""
    recorded = fn.attributes.get(OCCUPANCY_ATTR)
    return recorded.value.data if isinstance(recorded, IntegerAttr) else None


def recorded_occupancy(fn: func.FuncOp) -> int:
    """The CTAs per SM recorded on `fn` (`_recorded`), else 1."""
    return _recorded(fn) or 1


def kernel_occupancy(fn: func.FuncOp, arch: str) -> int | None:
    """The CTAs per SM `fn` is compiled for on `arch`: what was recorded (`_recorded`),
    else its hint; None without a hint."""
    recorded = _recorded(fn)
    if recorded is not None:
        return recorded
    return hinted_occupancy(fn.attributes.get(HINTS_ATTR), arch)


def _enclosing_loop(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, scf.ForOp | scf.WhileOp):
        if isinstance(parent, func.FuncOp):
            return None
        parent = parent.parent_op()
    return parent


def accumulator_in_registers(op: Dot, layout: DistributedLayout | None) -> bool:
    """Whether a thread holds the accumulator of the tensor-core dot `op`, of layout
    `layout` (None: not rank 2), in registers: an MMA layout (`wgmma`, `mma.sync`, and
    a 64-row `tcgen05` accumulator, read out of tensor memory through shared memory in
    that layout) or a batched dot's; not one in tensor memory that `tcgen05.ld` reads in
    runs (`tcgen05_plan.py`)."""
    return runs_on_tensor_cores(op) and (layout is None or isinstance(layout, MmaLayoutAttr))


def _computed_from(value: SSAValue, results: set[SSAValue], loop: Operation) -> bool:
    """Whether `value` is computed inside `loop` from one of `results` (attention's P
    from the scores S), not loaded."""
    seen: set[SSAValue] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if v in results:
            return True
        owner = v.owner
        if v in seen or not isinstance(owner, Operation) or not loop.is_ancestor(owner):
            continue
        seen.add(v)
        stack.extend(owner.operands)
    return False


def _words(value: SSAValue, threads: int) -> int:
    t = value.type
    bits = storage_bits(element_type(t)) or 32
    return -(-math.prod(shape_of(t)) * bits // (32 * threads))


def loop_dot_registers(
    fn: func.FuncOp,
    warps: int,
    layouts: Iterable[tuple[Dot, DistributedLayout]],
    chained_only: bool = False,
) -> int:
    """The most registers a thread of `warps` warps holds, in one iteration of one loop,
    of that loop's tensor-core dots (`layouts`: the rank-2 ones with their accumulator
    layouts, `mma_layouts.tensor_core_dots`):
    the accumulators held in registers (`accumulator_in_registers`), all live in each
    iteration (flash attention's S and O), and the A operands computed in the loop from
    them, which reach the dot from registers or pass through them on their way to
    shared memory (attention's P).  Dots outside loops do not count, nor, with
    `chained_only`, the loops where no dot's A is computed from another's result."""
    threads = warps * WARP_SIZE
    laid_out: dict[Operation, DistributedLayout] = dict(layouts)
    by_loop: dict[Operation, list[Dot]] = {}
    for op in fn.walk():
        if not isinstance(op, aa.DotOp | tas.DotOp):
            continue
        loop = _enclosing_loop(op)
        if loop is not None and accumulator_in_registers(op, laid_out.get(op)):
            by_loop.setdefault(loop, []).append(op)
    most = 0
    for loop, dots in by_loop.items():
        results: set[SSAValue] = {d.result for d in dots}
        words = sum(_words(d.acc, threads) for d in dots)
        # A (`lhs` of nv_tileaa.dot, `a` of nv_tileas.dot) is the first operand.
        chained = [d.operands[0] for d in dots if _computed_from(d.operands[0], results, loop)]
        if chained_only and not chained:
            continue
        words += sum(_words(a, threads) for a in chained)
        most = max(most, words)
    return most


#: Registers a thread keeps beside a loop's dot registers (`loop_dot_registers`) for
#: everything else the loop holds: addresses, row statistics, the copies in flight.
LOOP_REGISTER_RESERVE = 64

#: The most warps `loop_dot_warps` grows a kernel to (four warpgroups).
MAX_LOOP_DOT_WARPS = 16


def loop_dot_warps(fn: func.FuncOp, warps: int, arch: str) -> int:
    """`warps`, doubled (up to `MAX_LOOP_DOT_WARPS`) while the dot registers a loop
    holds (`loop_dot_registers`: flash attention's S, O and P) and
    `LOOP_REGISTER_RESERVE` exceed the registers one thread may have, and doubling
    spreads them thinner.  Not even one CTA's 255 registers then hold the loop, and
    ptxas spills in it every trip: NVIDIA's FMHA sample with 256x128 tiles holds S
    (128 registers a thread), O (64) and P (64) in 8 warps, and spilled 288 bytes on
    sm_90a; in 16 warps, 64, 32 and 32 (tileiras runs it in 8 warps, 224 registers,
    with thousands of local loads and stores).  Only loops where a dot's A is computed
    from another's result (attention's P from S) count: the block-scaled GEMMs, whose
    loop's partial products are live one at a time, spilled 348 bytes in 16 warps
    where 8 spilled none.  Accumulators in tensor memory (`tcgen05`) take no registers
    here, so sm_100a keeps its warps."""
    while warps < MAX_LOOP_DOT_WARPS:
        need = loop_dot_registers(fn, warps, tensor_core_dots(fn, warps, arch), True)
        if need + LOOP_REGISTER_RESERVE <= MAX_REGISTERS_PER_THREAD:
            break
        more = 2 * warps
        if loop_dot_registers(fn, more, tensor_core_dots(fn, more, arch), True) >= need:
            break
        warps = more
    return warps


def fit_occupancy(
    fn: func.FuncOp,
    warps: int,
    arch: str,
    layouts: Iterable[tuple[Dot, DistributedLayout]],
) -> None:
    """Record on `fn` the occupancy it is compiled for where its hint's register share
    cannot hold a loop's dot registers (`loop_dot_registers`; `layouts`: its dots'
    accumulator layouts; module doc); leave it alone otherwise."""
    hint = hinted_occupancy(fn.attributes.get(HINTS_ATTR), arch)
    if hint is None or hint <= 1:
        return
    threads = warps * WARP_SIZE
    need = loop_dot_registers(fn, warps, layouts)
    share = register_budget(threads, hint)
    fits = [o for o in range(1, hint) if need <= register_budget(threads, o)]
    if need <= share or not fits:
        # Where even one CTA's registers cannot hold the loop, a lower occupancy
        # removes no spill; it would only give the rings more shared memory.
        return
    fitted = max(fits)
    fn.attributes[OCCUPANCY_ATTR] = IntegerAttr(fitted, i32)
    fn.attributes[OCCUPANCY_NOTE_ATTR] = StringAttr(
        f"occupancy hint {hint} not honoured: a loop's tensor-core accumulators and the "
        f"operands it computes from them need {need} registers a thread, more than the "
        f"{share} that {hint} CTAs of {threads} threads leave; compiled for {fitted} CTA"
        f"{'s' if fitted != 1 else ''} per SM ({register_budget(threads, fitted)} registers "
        "a thread): a spill in the loop would cost more than another CTA gains"
    )
