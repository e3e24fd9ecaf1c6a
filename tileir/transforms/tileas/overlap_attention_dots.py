"""`tileas-overlap-attention-dots`: the K/V loop of attention on `wgmma` with the second
product of one iteration in flight during the next iteration's scores and softmax
(FlashAttention-3's intra-warpgroup overlap), after `tileas-pipeline-dot-operands`.

The loop `tileas-pipeline-dot-operands` leaves (K and V through rings, both products on
`wgmma`, each waited for) runs, in iteration j,

    S_j = Q·K_j;  softmax(S_j) -> P_j, alpha_j, m_j, l_j;  O_j = P_j·V_j + O_{j-1}·alpha_j

and the tensor cores idle during the softmax.  Here the loop is rotated by half an
iteration: a prologue computes S_0 and its softmax (and O_{-1}·alpha_0), the loop's
iteration j issues S_{j+1} = Q·K_{j+1}, then O_j = P_j·V_j + Os_j, waits until only the
newest `wgmma` group is pending (`wgmma.wait_group 1`: S_{j+1} is done, P_j·V_j runs
on), computes the softmax of S_{j+1}, waits for every group and passes a CTA barrier
(`wgmma.wait_group 0`, `bar.sync`), and only then rescales O_j by alpha_{j+1}; an
epilogue issues the last P·V.  Groups complete in order, so `wait_group 1` after the
second product leaves exactly that product in flight.  Each op computes what it computed
before, from the same values (nothing is reassociated), so results are bit-identical to
the unrotated loop; a loop of no iterations yields its initial values (the epilogue sits
in an `scf.if` on the trip count; the prologue's softmax of a tile no iteration asked
for is discarded).

    %f0, %f1 (K), %g0, %g1 (V): stages 0 and 1, issued before the loop as before
    %k0 = future_wait %f0;  %s0 = dot %q, %k0, %z;  softmax ... -> %p0, %os0, %m0, %l0
    %f2 = async.tiled_load K[lb + 2·step]                      // K runs one tile ahead
    %r = scf.for %j = lb to ub - step iter_args(%os, %p, %m, %l, %fa = %f1, %fb = %f2, %ga = %g0, %gb = %g1) {
      %k = future_wait %fa;  %s = dot %q, %k, %z {nv_tileas.wgmma_pending = 1}      // S_{j+1}
      %v = future_wait %ga;  %o = dot %p, %v, %os {nv_tileas.wgmma_pending = 1}     // P_j·V_j
      softmax of %s (iteration j + step) -> %p', %m', %l', alpha'
      nv_tileas.cta_barrier {nv_tileas.wgmma_pending = 0}     // P_j·V_j done in every warp
      %os' = %o · alpha'
      %f = async.tiled_load K[j + 3·step];  %g = async.tiled_load V[j + 2·step]
      scf.yield %os', %p', %m', %l', %fb, %f, %gb, %g
    }
    %o_last, %m, %l = scf.if lb < ub { %v = future_wait %r#ga; dot %r#p, %v, %r#os } else { init }
    nv_tileas.async.wait %r#...

The rings need no slot more: every group the iteration issues completes before its
barrier, after which the body's copies refill the slots of K_{j+1} and V_j; the copies'
`cp.async.wait_group` counts stay those of the later stages (K's loads run one
iteration ahead of the prologue's, V's as before).  A 2-stage ring, whose loop carries
one future and loads the next, works the same way: the prologue loads K_1, and
iteration j refills, after its barrier, the slots of K_j and V_{j-1}.  The dots outside the loop read the
same rings (`nv_tileas.ring_key` names the dots that share one, `async_copy.py`).

Where it applies: an unspecialized loop with exactly two `wgmma` dots, both B operands
from rings; the first (S) has its A and accumulator defined outside the loop and its
result used in the loop; the second (P·V) has an accumulator computed in the body from
the loop-carried value that it alone yields, in the layout `wgmma` writes; the body
writes no memory.  P·V takes A in registers (`a_in_registers`: its words stay in the
instruction while it runs) or from shared memory, where the lowering writes P_j right
before the product: from the exchanges' arena (`shared_arena.py`) where the softmax of
S_{j+1}, which runs while the product reads P_j, exchanges nothing there
(`exchanges_through_shared_memory`: no layout conversion, no reduction across warps),
else from a buffer of its own (`nv_tileas.a_own_buffer` on the product and its copy
after the loop: live while the loop's rings are, `dot.py`), where the kernel's shared
memory holds it beside the rings by `ring_budget.py`'s accounting
(`why_not_own_buffer`; NVIDIA's 64x256 attention tests, whose row maximum and sum cross
two warpgroups through the arena: 32 KiB of P beside 128 KiB of K and V slots).  Either
way P_{j+1} is written after the iteration's `wgmma.wait_group 0` and barrier.  The
registers must allow it: both accumulators, P_j where it is in registers, the tiles the
softmax takes from before the loop (`live_in_registers`) and `OVERLAP_RESERVE` within
the kernel's budget (its warps and the CTAs per SM it gets, `resident_ctas`), so that
no kernel starts to spill or spills more.  The remark of the P·V dot says "wgmma group
in flight across the next iteration's first product and softmax" (and where P has a
buffer of its own, so), or why not.

Where the softmax cannot run beside P_j·V_j (registers, or no room for P's buffer), the
loop may still keep the next scores in flight behind it: iteration j issues P_j·V_j,
then S_{j+1}, waits until only S_{j+1} is pending, then for both and a CTA barrier,
refills the rings, and only then computes the softmax of S_{j+1} and rescales O_j, with
no group in flight.  The tensor cores run the two products back to back instead of
draining between them, and the registers are those of the unrotated loop
(`SCORES_AHEAD_RESERVE`: NVIDIA's 128x128 FMHA samples at `occupancy = 2`, 128
registers; `ELEMENT_MASK_RESERVE` more where the rings' copies are masked element by
element).  Its remark: "wgmma group in flight across the next iteration's first
product, not its softmax (why not)".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, UnitAttr, i64
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.analysis.axis_info import AxisInfoAnalysis
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import (
    ComparisonPredicate,
    ComparisonPredicateAttr,
    Signedness,
    SignednessAttr,
)
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.foreign import AsyncValueType
from tileir.dialects.nv_tileas.layouts import DistributedLayout, uniform_groups
from tileir.dialects.nv_tileas.ops.compute import AxisRegionOp
from tileir.dialects.nv_tileas.ops.tmem import A_IN_REGISTERS_ATTR, A_OWN_BUFFER_ATTR
from tileir.targets import ctas_per_sm_by_shared, register_budget
from tileir.transforms.tileas.materialize_schedule import defined_outside, may_write_memory
from tileir.transforms.tileas.pipeline_dot_operands import (
    FEED_ATTR,
    NOT_PIPELINED,
    accumulator_registers,
    feed_clauses,
    groups_in_flight,
    set_feed_clauses,
)
from tileir.transforms.tileas.ring_budget import (
    PERSISTENT_RESERVE,
    kernel_shared_budget,
    occupancy_hint,
    op_bound,
    own_buffer_bytes,
    staged_once_bound,
    transient_bound,
    waited_slot_bytes,
)
from tileir.transforms.tileas.specialize_agents import SPECIALIZE_ATTR, kernel_warps
from tileir.utils.bits import mlir_bit_width
from tileir.utils.walk import enclosing_function

#: On a `wgmma` dot: its chains are committed as one group and left running, and the
#: lowering then waits until at most this many groups are pending (`wgmma.wait_group N`);
#: on an `nv_tileas.cta_barrier`: `wgmma.wait_group N` before the barrier.  The dot's
#: result must not be read before a wait that completes its group.
WGMMA_PENDING_ATTR = "nv_tileas.wgmma_pending"

#: On the dots of a rotated loop and their copies in its prologue or epilogue: the dots
#: with the same key read the same rings (`async_copy.AsyncFeeds`).
RING_KEY_ATTR = "nv_tileas.ring_key"

#: On the copies of a rotated loop's dots before and after it: the loop's own dot
#: carries the remark (`tileir/driver/remarks.py` skips the copies).
ROTATED_COPY_ATTR = "nv_tileas.rotated_copy"

#: What the remark of the P·V dot says where the loop was rotated (ASCII: remarks and
#: attributes print it as is).
OVERLAPPED = "wgmma group in flight across the next iteration's first product and softmax"

#: What the remark of the first product says there.
AHEAD = "issued an iteration ahead of the second product"

#: Why a loop is left alone without a remark: it is no attention loop.
NOT_ATTENTION = "not two wgmma products"

#: The clause `tileas-pipeline-dot-operands` records for a dot it waits for.
WAITED_PREFIX = "wgmma waited for each iteration"


def wgmma_pending(op: Operation) -> int | None:
    """The `wgmma.wait_group` count `op` carries (`WGMMA_PENDING_ATTR`), if any."""
    attr = op.attributes.get(WGMMA_PENDING_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


@dataclass
class AttentionLoop:
    """The parts of an attention loop body (module doc)."""

    loop: scf.ForOp
    #: The first product (Q·K) and the wait for its B.
    scores: tas.DotOp
    wait_k: tas.FutureWaitOp
    #: The second product (P·V) and the wait for its B.
    pv: tas.DotOp
    wait_v: tas.FutureWaitOp
    #: The body's ops between the products that do not depend on the loop-carried
    #: accumulator (the softmax), and those that do (its rescaling), in body order.
    softmax: list[Operation]
    rescale: list[Operation]
    #: The body's asynchronous loads of K and of V, each with the ops only it needs.
    load_k: list[Operation]
    load_v: list[Operation]
    #: The loop-carried index of the accumulator P·V yields.
    acc_index: int
    #: The iteration arguments of K's and V's futures: the one waited for, the next
    #: (the same one for a 2-stage ring, `_future_arg`).
    k_args: tuple[int, int]
    v_args: tuple[int, int]
    #: P goes through shared memory and the softmax exchanges through the arena: P needs
    #: a buffer of its own (`why_not_own_buffer`).
    exchanging: bool = False


def body_slice(roots: Sequence[Operation], body: Block) -> list[Operation]:
    """The ops of `body` that `roots` depend on, `roots` included, in body order."""
    seen: set[int] = set()
    work = list(roots)
    while work:
        op = work.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        for operand in op.operands:
            owner = operand.owner
            if isinstance(owner, Operation) and owner.parent is body:
                work.append(owner)
    return [op for op in body.ops if id(op) in seen]


def _depends_on(op: Operation, values: set[int], body: Block, memo: dict[int, bool]) -> bool:
    if id(op) in memo:
        return memo[id(op)]
    result = False
    for operand in op.operands:
        owner = operand.owner
        if id(operand) in values or (
            isinstance(owner, Operation)
            and owner.parent is body
            and _depends_on(owner, values, body, memo)
        ):
            result = True
            break
    memo[id(op)] = result
    return result


def _future_arg(wait: tas.FutureWaitOp, loop: scf.ForOp) -> tuple[int, int] | None:
    """The iteration-argument indices (of `loop.body.block.args`) of the future `wait`
    waits for and of the one the loop passes to it next: two where the ring has three
    stages (two futures in flight across the loop's back edge), the same one twice where
    it has two (the body's copy is the next)."""
    body = loop.body.block
    future = wait.future
    if not (isinstance(future, BlockArgument) and future.block is body and future.index >= 1):
        return None
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    nxt = yielded.operands[future.index - 1]
    if isinstance(nxt.owner, tas.AsyncTiledLoadOp) and nxt.owner.parent is body:
        return future.index, future.index  # (a 2-stage ring: the body loads the next)
    if not (isinstance(nxt, BlockArgument) and nxt.block is body and nxt.index >= 1):
        return None
    after = yielded.operands[nxt.index - 1]
    if not isinstance(after.owner, tas.AsyncTiledLoadOp) or after.owner.parent is not body:
        return None
    return future.index, nxt.index


def _in_fragment_layout(dot: tas.DotOp) -> bool:
    """Whether `dot`'s accumulator and result are 2-D tiles of 32-bit elements in
    registers as `wgmma` writes them (a word each)."""
    from tileir.dialects.nv_tileas.mma_layout import mma_linear
    from tileir.transforms.tileas.dot_plan import dot_warp_grid

    t = dot.acc.type
    assert isinstance(t, TensorType)
    if len(t.get_shape()) != 2 or t.element_type.name != "f32":
        return False
    fragment = mma_linear(t.get_shape(), *dot_warp_grid(dot, t))
    for v in (dot.acc, dot.result):
        vt = v.type
        if not isinstance(vt, TensorType) or not isinstance(vt.encoding, DistributedLayout):
            return False
        if vt.encoding.linear(vt.get_shape()) != fragment:
            return False
    return True


def exchanges_through_shared_memory(op: Operation, warps: int) -> bool:
    """Whether the lowering of `op` (or of an op nested in it) in a kernel of `warps`
    warps uses the shared-memory arena of the exchanges (`shared_arena.py`), where a
    `wgmma` A that is not in registers waits for its product: a reduction only where its
    axis crosses warps (shuffles within a warp otherwise, `reductions.py`), every other
    op where `ring_budget.op_bound` gives it bytes."""
    for sub in op.walk():
        if isinstance(sub, tas.ReduceOp):
            t = sub.operands[0].type
            if not (isinstance(t, TensorType) and isinstance(t.encoding, DistributedLayout)):
                return True
            layout = t.encoding.linear(t.get_shape())
            if any(basis[sub.dimension] for basis in layout.warps):
                return True
        elif op_bound(sub, set(), warps):
            return True
    return False


def analyze(loop: scf.ForOp) -> AttentionLoop | str:
    """The parts of `loop` when it is an attention loop this pass rotates, else why not
    (the remark's words)."""
    body = loop.body.block
    dots = [op for op in body.ops if isinstance(op, tas.DotOp)]
    if len(dots) != 2 or any(d.atom.info.engine != "wgmma" for d in dots):
        return NOT_ATTENTION
    scores, pv = dots
    if any(groups_in_flight(d) for d in dots):
        return "its products already leave groups in flight"
    waits = []
    for dot in dots:
        wait = dot.b.owner
        if not (isinstance(wait, tas.FutureWaitOp) and wait.parent is body):
            return "a B operand does not come from a ring"
        if not wait.result.has_one_use():
            return "a ring's tile has other users"
        waits.append(wait)
    wait_k, wait_v = waits
    if not (defined_outside(scores.a, loop) and defined_outside(scores.acc, loop)):
        return "the first product's A or accumulator changes in the loop"
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    pv_uses = list(pv.result.uses)
    if len(pv_uses) != 1 or pv_uses[0].operation is not yielded:
        return "the accumulator has other users than the loop's yield"
    acc_index = pv_uses[0].index + 1
    acc_arg = body.args[acc_index]
    if not all(_in_fragment_layout(d) for d in dots):
        return "an accumulator is not in the layout wgmma writes"
    k_args, v_args = _future_arg(wait_k, loop), _future_arg(wait_v, loop)
    if k_args is None or v_args is None:
        return "its rings' futures are not carried by the loop"
    if any(
        may_write_memory(op)
        for op in body.ops
        if not isinstance(op, tas.AsyncTiledLoadOp | tas.FutureWaitOp | AxisRegionOp)
    ):
        return "the loop body writes memory"
    loads = [op for op in body.ops if isinstance(op, tas.AsyncTiledLoadOp)]
    load_of = {id(yielded.operands[i - 1].owner): i for i in (k_args[1], v_args[1])}
    if len(loads) != 2 or any(id(op) not in load_of for op in loads):
        return "its loop loads other tiles asynchronously"
    k_load = yielded.operands[k_args[1] - 1].owner
    v_load = yielded.operands[v_args[1] - 1].owner
    assert isinstance(k_load, Operation) and isinstance(v_load, Operation)
    load_k, load_v = body_slice([k_load], body), body_slice([v_load], body)
    special = {id(op) for op in (scores, pv, wait_k, wait_v, yielded)}
    if any(id(op) in special for op in load_k + load_v):
        return "its loads depend on the products"
    in_loads = {id(op) for op in load_k + load_v}
    rest = [op for op in body.ops if id(op) not in special and id(op) not in in_loads]
    # Ops both the loads and the compute need (a constant, an index) are cloned for each.
    computing = {id(op) for op in rest}
    shared = [
        op
        for op in load_k + load_v
        if any(id(u.operation) in computing for r in op.results for u in r.uses)
    ]
    memo: dict[int, bool] = {}
    rescale = [op for op in rest if _depends_on(op, {id(acc_arg)}, body, memo)]
    rescaled = {id(op) for op in rescale}
    softmax = [op for op in rest if id(op) not in rescaled]
    softmax = [op for op in body.ops if id(op) in {id(o) for o in softmax + shared}]
    if any(isinstance(op, tas.DotOp | tas.FutureWaitOp) for op in softmax + rescale):
        return "its body has other waits"
    for op in rescale:
        for r in op.results:
            if any(u.operation is not pv and id(u.operation) not in rescaled for u in r.uses):
                return "the rescaled accumulator has other users than the second product"
    for op in (wait_k, wait_v, scores):
        if _depends_on(op, {id(acc_arg)}, body, {}):
            return "the first product depends on the accumulator"
    if _depends_on(scores, {id(r) for op in softmax for r in op.results}, body, {}):
        return "the first product depends on the softmax"
    exchanging = A_IN_REGISTERS_ATTR not in pv.attributes and any(
        exchanges_through_shared_memory(op, kernel_warps(loop)) for op in softmax
    )
    return AttentionLoop(
        loop,
        scores,
        wait_k,
        pv,
        wait_v,
        softmax,
        rescale,
        load_k,
        load_v,
        acc_index,
        k_args,
        v_args,
        exchanging,
    )


def distinct_registers(value: SSAValue) -> int:
    """Registers a thread needs for the tile `value`: one per distinct element it holds
    (a splat or a constant is one; a broadcast holds its source's)."""
    owner = value.owner
    while isinstance(owner, tas.BroadcastOp):
        value = owner.src
        owner = value.owner
    t = value.type
    if isinstance(owner, tas.SplatOp | ct.ConstantOp) or not (
        isinstance(t, TensorType) and isinstance(t.encoding, DistributedLayout)
    ):
        return 1
    layout = t.encoding.linear(t.get_shape())
    return 1 << sum(1 for basis in layout.registers if any(basis))


def live_in_registers(parts: AttentionLoop) -> int:
    """Registers a thread keeps across the loop for the tiles the softmax takes from
    before it (a causal mask's row and column indices, a scale)."""
    seen: set[SSAValue] = set()
    for op in parts.softmax:
        for sub in op.walk():
            for v in sub.operands:
                if isinstance(v.type, TensorType) and defined_outside(v, parts.loop):
                    seen.add(v)
    return sum(distinct_registers(v) for v in seen)


#: Registers a thread keeps in a rotated loop besides the two accumulators, P_j where it
#: is in registers, and the tiles the softmax takes from before the loop
#: (`live_in_registers`): addresses of both rings' copies, the row statistics, the
#: softmax's temporaries.  Measured (ptxas 13, sm_90a; the sum of those counts, then
#: the registers allowed): fit rotated without spills NVIDIA's 64x128 decode attention
#: and the unmasked loop of its 128x128 causal attention with a 128-wide head (64 + 64
#: + 32 + 2 = 162, 255 allowed; 236 and 251 registers used), and the unmasked loop of
#: its 64x64 causal sample with P through shared memory (32 + 32 + 2 = 66, 128
#: allowed); spill rotated the masked loop of the former (162 + 34 for the mask's column
#: indices = 196: 60 bytes) and that of the latter (32 + 32 + 20 = 84: 44 bytes).  Only
#: 60 to 62 separates both; P_{j+1} takes the registers of S_{j+1} as the softmax makes
#: it, and counts for nothing more.
OVERLAP_RESERVE = 61


#: What the remark of the P·V dot says where only the next iteration's first product
#: runs behind it (`rotate` without `softmax_in_flight`), then why not the softmax.
SCORES_AHEAD = "wgmma group in flight across the next iteration's first product, not its softmax"

#: `OVERLAP_RESERVE` of the loop that keeps only S_{j+1} in flight behind P_j·V_j
#: (`rotate` without `softmax_in_flight`): the softmax runs with no group in flight, as
#: in the unrotated loop, and the rings are refilled before it; the tiles the softmax
#: takes from before the loop count twice there.  Measured (ptxas 13, sm_90a; both
#: accumulators + P_j where it is in registers + twice those tiles, then the registers
#: allowed): NVIDIA's 128x128 FMHA samples at `occupancy = 2` fit with their unmasked
#: loops so rotated (64 + 32 + 2 x 2 = 100, 128 allowed: 128 registers, no spill), and
#: spill with the masked loops of its 64x64 causal sample (32 + 32 + 2 x 20 = 104, 128
#: allowed: 20 bytes) and of the 128-wide causal attention tests (64 + 64 + 32 + 2 x 36
#: = 232, 255 allowed: 8 bytes); 25 to 28 separates them (counted once, no reserve
#: does: 98 fits where 84 spills).
SCORES_AHEAD_RESERVE = 26

#: What ring copies masked element by element add to `SCORES_AHEAD_RESERVE`: where a
#: copy's mask does not move in whole 16-byte groups (`layouts.uniform_groups`: a
#: dynamic extent of the contiguous dimension without `assume div_by`), each group
#: takes a predicate an element and a fallback path through registers, which costs
#: registers in the loop.  Measured (ptxas 13, sm_90a, 128 registers
#: allowed, 512 threads, 3-stage rings): the 256-row variant of `attention_wide_kv_bf16`
#: (64 + 32 + 2 x 1 + 26 = 124; K and V copies masked element by element) spills 12
#: bytes rotated (0 waited), 4 with its exponentials made `exp2 flush_to_zero`, 12 in
#: f16, and none with the extents of its views `assume div_by<16>` (its copies then
#: masked a group at a time, `exp` as it is); NVIDIA's `s_fmha_f16_causal_m256_n128`, the
#: same loop with groups masked whole (126), fits rotated with 128 registers and no
#: spill.  From 5 on it separates them.
ELEMENT_MASK_RESERVE = 8


def masked_by_element(parts: AttentionLoop) -> bool:
    """Whether a copy of the loop's rings is masked element by element
    (`ELEMENT_MASK_RESERVE`): its mask's runs along the contiguous dimension are not
    whole groups of the elements one copy moves."""
    analysis = AxisInfoAnalysis()
    for op in parts.load_k + parts.load_v:
        if not isinstance(op, tas.AsyncTiledLoadOp) or op.mask is None:
            continue
        t = op.loaded_type()
        if not (isinstance(t, TensorType) and isinstance(t.encoding, DistributedLayout)):
            continue
        layout = t.encoding.linear(t.get_shape())
        bits = max(8, mlir_bit_width(t.element_type) or 8)
        vec = layout.vector_elements(max(1, op.atom.info.bits // bits))
        if vec > 1 and not uniform_groups(layout, vec, analysis.get(op.mask).constancy):
            return True
    return False


def why_not_registers(
    parts: AttentionLoop, arch: str, softmax_in_flight: bool = True
) -> str | None:
    """Why the registers do not allow the overlap (None when they do): during the
    softmax of S_{j+1} a thread holds both accumulators, P_j in the instruction in
    flight where P is in registers (through shared memory, P_j is in its buffer), the
    tiles the softmax takes from before the loop, and `OVERLAP_RESERVE`, within the
    share of the register file of the CTAs per SM the kernel gets (`resident_ctas`).
    Without `softmax_in_flight`, those of the loop that keeps only S_{j+1} in flight
    behind P_j·V_j (`SCORES_AHEAD_RESERVE`, and `ELEMENT_MASK_RESERVE` where its rings'
    copies are masked element by element)."""
    fn = enclosing_function(parts.loop)
    if fn is None:
        return "it is not in a function"
    budget = register_budget(kernel_warps(parts.loop) * 32, resident_ctas(fn, arch))
    need = (
        accumulator_registers(parts.scores)
        + accumulator_registers(parts.pv)
        + live_in_registers(parts) * (1 if softmax_in_flight else 2)
        + (OVERLAP_RESERVE if softmax_in_flight else SCORES_AHEAD_RESERVE)
    )
    if not softmax_in_flight and masked_by_element(parts):
        need += ELEMENT_MASK_RESERVE
    if A_IN_REGISTERS_ATTR in parts.pv.attributes:
        a = parts.pv.a.type
        assert isinstance(a, TensorType) and isinstance(a.encoding, DistributedLayout)
        need += (a.encoding.linear(a.get_shape()).num_registers + 1) // 2
    if need > budget:
        return f"{need} registers a thread needed, {budget} allowed"
    return None


def resident_ctas(fn: func.FuncOp, arch: str) -> int:
    """The CTAs per SM whose share of the register file the kernel `fn` gets: its
    `occupancy` hint (`ring_budget.occupancy_hint`), or fewer where the slots of one
    loop's rings alone keep the SM to fewer.  The lowering raises the `.maxnreg` of the
    hint to their share there (`kernel.relax_occupancy_cap`: NVIDIA's 64x256 attention
    tests, 128 KiB of K and V a CTA, `occupancy=2`, get 255 registers, not 128); the
    rings' raw tiles are a lower bound of the shared memory it counts, so the registers
    allowed here are never more than the lowering's."""
    hint = occupancy_hint(fn, arch) or 1
    if hint == 1:
        return 1
    loops = [op for op in fn.walk() if isinstance(op, scf.ForOp)]
    rings = max((carried_ring_bytes(loop) for loop in loops), default=0)
    return max(1, min(hint, ctas_per_sm_by_shared(arch, rings)))


#: Why a loop whose softmax exchanges through shared memory is waited for where P has
#: no buffer of its own (the remark's words, then the bytes: `why_not_own_buffer`).
EXCHANGES_REUSE = "P goes through shared memory, which the softmax's exchanges reuse"

#: What the remark of the P·V dot adds where P has a buffer of its own.
OWN_BUFFER = "P through a shared-memory buffer of its own, apart from the softmax's exchanges"


def carried_ring_bytes(loop: scf.ForOp) -> int:
    """Bytes of the slots of `loop`'s rings as `ring_budget.py` counts them: a tile for
    each future the loop carries (the copies in flight across its back edge, `stages -
    1` a ring whose products are waited for each iteration), its elements at their
    width, or the operand buffer the lowering lays the slot out as (`waited_slot_bytes`)."""
    total = 0
    for arg in loop.body.block.args[1:]:
        t = arg.type
        if isinstance(t, AsyncValueType) and isinstance(t.value_type, TensorType):
            tile = t.value_type
            bits = mlir_bit_width(tile.element_type) or 8
            total += waited_slot_bytes(arg, math.prod(tile.get_shape()) * max(8, bits) // 8)
    return total


def shared_need(fn: func.FuncOp) -> int:
    """The shared memory the kernel `fn` takes by `ring_budget.py`'s accounting: its
    largest transient use (the dot operands rings feed, and the A of each dot marked
    `A_OWN_BUFFER_ATTR`, not counted), the operands staged once, the persistent reserve,
    and the rings with the buffers of A of their own: those of one unspecialized loop
    live while it runs (the loops share one region, as large as the largest loop's),
    the others' for the whole kernel."""
    fed: set[SSAValue] = set()
    scoped = whole = 0
    for op in fn.walk():
        if isinstance(op, tas.DotOp):
            fed.update(v for v in (op.a, op.b) if isinstance(v.owner, tas.FutureWaitOp))
        if not isinstance(op, scf.ForOp) or any(
            isinstance(x, scf.ForOp) for x in op.body.walk() if x is not op
        ):
            continue
        rings = carried_ring_bytes(op) + sum(
            own_buffer_bytes(d)
            for d in op.body.block.ops
            if isinstance(d, tas.DotOp) and A_OWN_BUFFER_ATTR in d.attributes
        )
        if SPECIALIZE_ATTR in op.attributes:
            whole += rings
        else:
            scoped = max(scoped, rings)
    return transient_bound(fn, fed) + staged_once_bound(fn) + PERSISTENT_RESERVE + scoped + whole


def why_not_own_buffer(parts: AttentionLoop, arch: str) -> str | None:
    """Why P cannot have a buffer of its own (None when it can, and then the P·V dot is
    marked `A_OWN_BUFFER_ATTR`): where the softmax exchanges through the arena, which
    the transient P of the lowering shares, P goes to a buffer live while the loop's
    rings are, which must fit the kernel's shared-memory budget beside them
    (`ring_budget.kernel_shared_budget`).  Its cost is less than its bytes: P leaves
    the transient uses, whose largest is often P itself."""
    fn = enclosing_function(parts.loop)
    if fn is None:
        return "it is not in a function"
    # (The budget before P leaves the transient uses: the kernel's shared memory without
    # rings, which decides how many CTAs the budget is shared among, holds P either way.)
    budget = kernel_shared_budget(fn, arch)
    parts.pv.attributes[A_OWN_BUFFER_ATTR] = UnitAttr()
    need = shared_need(fn)
    if need <= budget:
        return None
    del parts.pv.attributes[A_OWN_BUFFER_ATTR]
    return (
        f"{EXCHANGES_REUSE}, and a buffer of its own ({own_buffer_bytes(parts.pv)} bytes) "
        f"does not fit: {need} bytes of shared memory needed, {budget} allowed"
    )


def _clone_all(
    ops: Sequence[Operation], mapping: dict[SSAValue, SSAValue], at: InsertPoint
) -> list[Operation]:
    clones = []
    for op in ops:
        clone = op.clone(value_mapper=mapping)
        Rewriter.insert_op(clone, at)
        for old, new in zip(op.results, clone.results, strict=True):
            mapping[old] = new
        clones.append(clone)
    return clones


def rotate(parts: AttentionLoop, key: int, softmax_in_flight: bool = True) -> scf.ForOp:
    """Rotate the loop as the module doc shows; returns the new loop.  Without
    `softmax_in_flight` the iteration issues P_j·V_j, then S_{j+1}, waits until only
    S_{j+1} is pending (P_j·V_j done), then for both and a CTA barrier, and only then
    refills the rings and computes the softmax of S_{j+1} (`SCORES_AHEAD`)."""
    loop = parts.loop
    body = loop.body.block
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    inits = list(loop.iter_args)
    n_args = len(body.args) - 1
    drain = next(
        (
            u.operation
            for r in loop.results
            for u in r.uses
            if isinstance(u.operation, tas.AsyncWaitOp)
        ),
        None,
    )
    for dot in (parts.scores, parts.pv):
        dot.attributes[RING_KEY_ATTR] = IntegerAttr(key + (dot is parts.pv), i64)

    # The prologue: iteration lb's scores, softmax and rescaling, and K's next load.
    before = InsertPoint.before(loop)
    first: dict[SSAValue, SSAValue] = {body.args[0]: loop.lb}
    for i in range(n_args):
        first[body.args[i + 1]] = inits[i]
    for clone in _clone_all(
        [parts.wait_k, parts.scores, *parts.softmax, *parts.rescale], first, before
    ):
        _mark_copy(clone)
    k_ahead: dict[SSAValue, SSAValue] = {body.args[0]: loop.lb}
    _clone_all(parts.load_k, k_ahead, before)

    # The carried values: the second product's A and accumulator, then every original
    # iteration argument but the accumulator.
    kept = [i for i in range(n_args) if i + 1 != parts.acc_index]
    carried_pv = [parts.pv.a, parts.pv.acc]
    ka, kb = parts.k_args
    k_load = yielded.operands[kb - 1]
    new_inits = [first.get(v, v) for v in carried_pv]
    for i in kept:
        if i + 1 == ka and ka != kb:
            new_inits.append(inits[kb - 1])
        elif i + 1 == kb:
            new_inits.append(k_ahead[k_load])
        elif i + 1 in parts.v_args:
            new_inits.append(inits[i])
        else:
            new_inits.append(first.get(yielded.operands[i], yielded.operands[i]))
    sub = arith.SubiOp(loop.ub, loop.step)
    Rewriter.insert_op(sub, before)
    new_body = Block(arg_types=[body.args[0].type, *(v.type for v in new_inits)])
    iv = new_body.args[0]
    new_loop = scf.ForOp(loop.lb, sub.result, loop.step, new_inits, new_body)
    new_loop.attributes.update(loop.attributes)
    Rewriter.insert_op(new_loop, before)
    args = {i: new_body.args[3 + kept.index(i)] for i in kept}
    at = InsertPoint.at_end(new_body)

    # This iteration's P·V and the next one's scores, softmax and rescaling.
    nxt: dict[SSAValue, SSAValue] = {}
    next_iv = arith.AddiOp(iv, loop.step)
    Rewriter.insert_op(next_iv, at)
    step_iv = next_iv.result
    nxt[body.args[0]] = step_iv
    for i in kept:
        nxt[body.args[i + 1]] = args[i]
    this: dict[SSAValue, SSAValue] = {body.args[i + 1]: args[i] for i in kept}
    this[parts.pv.a] = new_body.args[1]
    this[parts.pv.acc] = new_body.args[2]
    barrier = tas.CtaBarrierOp()
    barrier.attributes[WGMMA_PENDING_ATTR] = IntegerAttr(0, i64)
    # K's copy one iteration ahead of V's (the prologue issued one more of K).
    k_map: dict[SSAValue, SSAValue] = {body.args[0]: step_iv}
    v_map: dict[SSAValue, SSAValue] = {body.args[0]: iv}
    if softmax_in_flight:
        s = _clone_all([parts.wait_k, parts.scores], nxt, at)[1]
        pv = _clone_all([parts.wait_v, parts.pv], this, at)[1]
        _clone_all(parts.softmax, nxt, at)
        Rewriter.insert_op(barrier, at)
    else:
        # P_j·V_j, then S_{j+1} behind it; the rings are refilled before the softmax,
        # whose values then need no room beside the copies' addresses.
        pv = _clone_all([parts.wait_v, parts.pv], this, at)[1]
        s = _clone_all([parts.wait_k, parts.scores], nxt, at)[1]
        Rewriter.insert_op(barrier, at)
        _clone_all(parts.load_k, k_map, at)
        _clone_all(parts.load_v, v_map, at)
        _clone_all(parts.softmax, nxt, at)
    for dot in (s, pv):
        dot.attributes[WGMMA_PENDING_ATTR] = IntegerAttr(1, i64)
    nxt[body.args[parts.acc_index]] = pv.results[0]
    _clone_all(parts.rescale, nxt, at)
    if softmax_in_flight:
        _clone_all(parts.load_k, k_map, at)
        _clone_all(parts.load_v, v_map, at)
    outs: list[SSAValue] = [nxt.get(v, v) for v in carried_pv]
    k_result = k_map[k_load]
    v_result = v_map[yielded.operands[parts.v_args[1] - 1]]
    for i in kept:
        if i + 1 == ka and ka != kb:
            outs.append(args[kb - 1])
        elif i + 1 == kb:
            outs.append(k_result)
        elif i + 1 == parts.v_args[0] and parts.v_args[0] != parts.v_args[1]:
            outs.append(args[parts.v_args[1] - 1])
        elif i + 1 == parts.v_args[1]:
            outs.append(v_result)
        else:
            v = yielded.operands[i]
            outs.append(nxt.get(v, v))
    Rewriter.insert_op(scf.YieldOp(*outs), at)

    # The epilogue: the last P·V, and the initial values where the loop never ran.
    results = {i: new_loop.results[2 + kept.index(i)] for i in kept}
    futures = {ka, kb, *parts.v_args}
    computed = [i for i in kept if i + 1 not in futures]
    last = Block()
    last_map: dict[SSAValue, SSAValue] = {body.args[i + 1]: results[i] for i in kept}
    last_map[parts.pv.a] = new_loop.results[0]
    last_map[parts.pv.acc] = new_loop.results[1]
    for clone in _clone_all([parts.wait_v, parts.pv], last_map, InsertPoint.at_end(last)):
        _mark_copy(clone)
    then_values = [last_map[parts.pv.result], *(results[i] for i in computed)]
    Rewriter.insert_op(scf.YieldOp(*then_values), InsertPoint.at_end(last))
    empty = Block()
    else_values = [inits[parts.acc_index - 1], *(inits[i] for i in computed)]
    Rewriter.insert_op(scf.YieldOp(*else_values), InsertPoint.at_end(empty))
    ran = ct.CmpIOp.build_op(
        [loop.lb, loop.ub],
        comparison_predicate=ComparisonPredicateAttr(ComparisonPredicate.LESS_THAN),
        signedness=SignednessAttr(Signedness.SIGNED),
    )
    Rewriter.insert_op(ran, InsertPoint.after(new_loop))
    guard = scf.IfOp(ran, [v.type for v in then_values], [last], [empty])
    Rewriter.insert_op(guard, InsertPoint.after(ran))
    final = {parts.acc_index - 1: guard.results[0]}
    final.update({i: guard.results[1 + n] for n, i in enumerate(computed)})
    for i, r in enumerate(loop.results):
        r.replace_all_uses_with(results[i] if i + 1 in futures else final[i])
    if drain is not None:
        drain.detach()
        Rewriter.insert_op(drain, InsertPoint.after(guard))
    loop.detach()
    loop.erase()
    return new_loop


def _mark_copy(op: Operation) -> None:
    """A dot copied out of the loop: no remark of its own (the loop's dot has it)."""
    if isinstance(op, tas.DotOp):
        op.attributes.pop(FEED_ATTR, None)
        op.attributes[ROTATED_COPY_ATTR] = UnitAttr()


def _record(dot: tas.DotOp, clause: str) -> None:
    """Put `clause` second in `dot`'s remark (after its ring's), in place of the clause
    that says its group is waited for; nothing on a dot without a ring."""
    clauses = feed_clauses(dot)
    if not clauses or clauses[0] == NOT_PIPELINED:
        return
    clauses = [c for c in clauses if not c.startswith(WAITED_PREFIX)]
    set_feed_clauses(dot, [*clauses[:1], clause, *clauses[1:]])


@dataclass(frozen=True)
class OverlapAttentionDotsPass(ModulePass):
    """Rotate attention's K/V loops on `wgmma` by half an iteration: iteration j issues
    S_{j+1} = Q·K_{j+1}, then P_j·V_j, waits until only that product is pending
    (`wgmma.wait_group 1`), computes the softmax of S_{j+1} while it runs, and waits for
    it (`wgmma.wait_group 0`, a CTA barrier) before rescaling its result; a prologue
    computes S_0 and its softmax, an epilogue the last P·V.  Where P stays untouched while
    the product reads it (in registers, in shared memory the softmax does not exchange
    through, or in a buffer of its own that the kernel's shared memory holds) and the
    kernel's registers allow it; else, where the registers of the unrotated loop allow
    it, with only S_{j+1} in flight behind P_j·V_j and the softmax after both; the remark
    says why not otherwise."""

    name = "tileas-overlap-attention-dots"

    #: The target, whose registers bound where the overlap applies.
    arch: str = "sm_90a"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        key = 0
        for loop in [o for o in op.walk() if isinstance(o, scf.ForOp)]:
            if SPECIALIZE_ATTR in loop.attributes:
                continue
            if any(isinstance(x, scf.ForOp) for x in loop.body.walk() if x is not loop):
                continue
            parts = analyze(loop)
            if parts == NOT_ATTENTION:
                continue
            second = [o for o in loop.body.block.ops if isinstance(o, tas.DotOp)][1]
            if isinstance(parts, str):
                _record(second, f"{WAITED_PREFIX}, not across the next softmax ({parts})")
                continue
            why = why_not_registers(parts, self.arch)
            if why is None and parts.exchanging:
                why = why_not_own_buffer(parts, self.arch)
            if why is None:
                own = f" ({OWN_BUFFER})" if parts.exchanging else ""
                _record(parts.scores, AHEAD)
                _record(parts.pv, OVERLAPPED + own)
                rotate(parts, key)
                key += 2
                continue
            # Not the softmax: S_{j+1} behind P_j·V_j only, where the registers allow.
            behind = why_not_registers(parts, self.arch, softmax_in_flight=False)
            if behind is not None:
                _record(
                    second,
                    f"{WAITED_PREFIX}, not across the next softmax ({why}) nor the next "
                    f"first product ({behind})",
                )
                continue
            _record(parts.scores, AHEAD)
            _record(parts.pv, f"{SCORES_AHEAD} ({why})")
            rotate(parts, key, softmax_in_flight=False)
            key += 2
