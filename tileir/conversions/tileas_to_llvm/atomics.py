"""`nv_tileas.atomic_rmw` and `nv_tileas.atomic_cas` over pointer tiles.

Each thread performs one PTX atomic per element it owns, predicated by the mask:

    @%p atom.acq_rel.gpu.global.add.u32 %r, [%rd], %v;     // result used
    @%p red.relaxed.gpu.global.add.u32 [%rd], %v;          // result unused
    @%p atom.release.gpu.global.exch.b32 %r, [%rd], %v;    // unused: `red` has no exch

The memory order and scope the op records are spelled on the instruction (`relaxed`,
`acquire`, `release`, `acquire_release` -> `acq_rel`; `tl_blk` -> `cta`, `gpu`, `sys`).  A
reduction (`red`) is used when nothing reads the old values and PTX's `red` has both
the operation and the order (`RED_OPERATIONS`, `RED_ORDERS`); otherwise an `atom`
whose result register nobody reads.  Masked-off elements have no old value; their
result registers read 0.

The one combination cuda_tile allows that a target lacks is a bf16 `addf` before
sm_90 (`atom`/`red` `.add.noftz.bf16` need sm_90, PTX ISA 7.8): a located error, as
tileiras gives.

A tile replicated over threads (a tile smaller than the CTA) is updated once: only
the owning copy performs the atomic; copies in other lanes of its warp receive the
old values with `shfl.sync.idx`, copies in other warps through the kernel's
shared-memory arena (`shared_arena.py`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    IntegerType,
    i1,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import linear_layout, representative
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.conversions.tileas_to_llvm.reductions import (
    WARP_SIZE,
    load_shared_word,
    shuffle,
    store_shared_word,
)
from tileir.conversions.tileas_to_llvm.shared_arena import allocate_shared
from tileir.diagnostics import error_at, not_supported
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import MemScope, MemSemantic, RmwMode
from tileir.targets import compute_capability

PTX_SCOPE = {MemScope.TL_BLK: "cta", MemScope.GPU: "gpu", MemScope.SYS: "sys"}
PTX_ORDER = {
    MemSemantic.RELAXED: "relaxed",
    MemSemantic.ACQUIRE: "acquire",
    MemSemantic.RELEASE: "release",
    MemSemantic.ACQUIRE_RELEASE: "acq_rel",
}

#: nv_tileas mode -> (PTX operation, type class: "u" unsigned/untyped add, "s" signed,
#: "b" bits, "f" float).
MODES = {
    RmwMode.ADD: ("add", "u"),
    RmwMode.ADDF: ("add", "f"),
    RmwMode.AND: ("and", "b"),
    RmwMode.OR: ("or", "b"),
    RmwMode.XOR: ("xor", "b"),
    RmwMode.MAX: ("max", "s"),
    RmwMode.MIN: ("min", "s"),
    RmwMode.UMAX: ("max", "u"),
    RmwMode.UMIN: ("min", "u"),
    RmwMode.XCHG: ("exch", "b"),
}

#: The operations PTX's `red` has (PTX ISA, "red"): no `exch` and no `cas`, which
#: exist only as `atom`.
RED_OPERATIONS = frozenset({"add", "min", "max", "inc", "dec", "and", "or", "xor"})
#: The orders `red` takes (`.relaxed`, `.release`): a reduction returns nothing, so it
#: has nothing to acquire with.
RED_ORDERS = frozenset({"relaxed", "release"})
#: The first compute capability with bf16 `atom`/`red` `.add.noftz.bf16` (PTX ISA 7.8).
FIRST_ARCH_WITH_BF16_ATOMIC_ADD = 90


def ptx_type(op: Operation, el: Attribute, kind: str) -> str:
    if isinstance(el, Float16Type | BFloat16Type):
        if kind != "f":
            raise not_supported(
                op,
                f"{el} atomics other than addf",
                instead="use ct.atomic_add on f16 and bf16, or an f32 array for other atomics",
            )
        return "noftz.f16" if isinstance(el, Float16Type) else "noftz.bf16"
    if isinstance(el, AnyFloat):
        bits = el.bitwidth
        return f"f{bits}" if kind == "f" else f"b{bits}"
    assert isinstance(el, IntegerType)
    return f"{kind}{el.width.data}"


def register_constraint(el: Attribute) -> tuple[str, int]:
    bits = el.bitwidth if isinstance(el, AnyFloat) else el.width.data  # pyright: ignore[reportAttributeAccessIssue]
    return {16: "h", 32: "r", 64: "l"}[bits], bits


def uses_reduction(operation: str, order: str, result_used: bool) -> bool:
    """Whether an atomic is printed as `red`: its old values unused, and `red` has
    both its operation and its order."""
    return not result_used and operation in RED_OPERATIONS and order in RED_ORDERS


def order_qualifiers(op: tas.AtomicRmwOp | tas.AtomicCasOp) -> tuple[str, str]:
    """The PTX order and scope the op records (`convert-tileaa-to-tileas` gives every
    atomic both)."""
    sem = op.semantic()
    scope = op.mem_scope
    if sem not in PTX_ORDER or scope is None or scope.data not in PTX_SCOPE:
        raise not_supported(
            op,
            f"an atomic with {sem.value} semantic and scope {scope}",
            instead="use memory order relaxed, acquire, release or acq_rel with a block, "
            "device or system scope (ct.MemoryOrder, ct.MemoryScope)",
        )
    return PTX_ORDER[sem], PTX_SCOPE[scope.data]


class LowerAtomic(TilePattern):
    """One predicated `atom` (or `red`) per element a thread owns."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: tas.AtomicRmwOp | tas.AtomicCasOp, rewriter: PatternRewriter
    ) -> None:
        arch = self.ctx.arch
        t = op.result.type
        el = element_type(t)
        is_cas = isinstance(op, tas.AtomicCasOp)
        if is_cas:
            name, kind = "cas", "b"
            if isinstance(el, Float16Type | BFloat16Type) or (
                isinstance(el, IntegerType) and el.width.data not in (32, 64)
            ):
                raise not_supported(
                    op,
                    f"compare-and-swap on {el}",
                    instead="use ct.atomic_cas on 32- or 64-bit elements",
                )
        else:
            assert isinstance(op, tas.AtomicRmwOp)
            name, kind = MODES[op.rmw_mode.data]
        if (
            isinstance(el, BFloat16Type)
            and compute_capability(arch) < FIRST_ARCH_WITH_BF16_ATOMIC_ADD
        ):
            raise error_at(
                op,
                f"is incompatible with architecture '{arch}': atomic addf on bf16 needs "
                f"sm_{FIRST_ARCH_WITH_BF16_ATOMIC_ADD} or newer (PTX atom.add.noftz.bf16): "
                "compile for sm_90a or later, or add into an f32 array",
            )
        type_suffix = ptx_type(op, el, kind)
        sem, scope = order_qualifiers(op)
        used = bool(op.result.uses)
        use_red = uses_reduction(name, sem, used)

        ptrs = self.ctx.registers_of(op, op.pointers)
        values = self.ctx.registers_of(op, op.value)
        compares = (
            self.ctx.registers_of(op, op.compare) if isinstance(op, tas.AtomicCasOp) else None
        )
        masks = self.ctx.registers_of(op, op.mask) if op.mask is not None else None
        if shape_of(t):
            layout = linear_layout(op, t)
            n = layout.num_registers
            owner = self.ctx.function_state(op).owner_predicate(rewriter, layout)
            reps = [representative(layout, r) for r in range(n)]
        else:
            layout = None
            n = 1
            owner = self.ctx.function_state(op).owner_predicate_all(rewriter)
            reps = [0]
        copy_lanes = copy_warps = 0
        if owner is not None and used:
            # Copies get the owner's old values: by a shuffle within a warp, through
            # shared memory across warps.
            if layout is None:
                # A scalar: thread 0 performs it, every thread is a copy.
                state = self.ctx.function_state(op)
                copy_lanes = WARP_SIZE - 1
                copy_warps = state.num_warps - 1
            else:
                copy_lanes = sum(1 << i for i, b in enumerate(layout.lanes) if not any(b))
                copy_warps = sum(1 << i for i, b in enumerate(layout.warps) if not any(b))
        b = self.builder(rewriter, op)
        letter, bits = register_constraint(el)
        results: dict[int, SSAValue] = {}

        def pick(regs: list[SSAValue], r: int) -> SSAValue:
            return regs[r] if len(regs) > 1 else regs[0]

        for r in range(n):
            if reps[r] != r:
                continue
            pred: SSAValue | None = pick(masks, r) if masks is not None else None
            if owner is not None:
                pred = owner if pred is None else b.and_(pred, owner)
            if pred is None:
                pred = b.const(1, i1)
            operands = [pick(ptrs, r)]
            if compares is not None:
                operands.append(pick(compares, r))
            operands.append(pick(values, r))
            if use_red:
                # Nobody reads the old value: a reduction, no result.
                red = ptx.PtxAsm(scoped=False)
                guard = red.input(pred)
                at, value = red.input(operands[0]), red.input(operands[1], letter)
                opcode = ptx.opcode("red", sem, scope, "global", name, type_suffix)
                red.instr(opcode, ptx.address(at), value, guard=guard)
                b.asm(red)
                continue
            # Where the predicate is false, the result is 0.
            atom = ptx.PtxAsm()
            old = atom.output(el, letter)
            guard = atom.input(pred)
            at = atom.input(operands[0])
            args = [atom.input(v, letter) for v in operands[1:]]
            atom.instr(ptx.opcode("mov", ptx.typed("b", bits)), old, ptx.immediate(0))
            opcode = ptx.opcode("atom", sem, scope, "global", name, type_suffix)
            atom.instr(opcode, old, ptx.address(at), *args, guard=guard)
            (results[r],) = b.asm(atom)
        if copy_warps or (copy_lanes and layout is None):
            results = self._broadcast_through_shared(
                op, b, rewriter, results, copy_lanes, copy_warps
            )
        elif copy_lanes:
            state = self.ctx.function_state(op)
            prologue = state.prologue_builder(rewriter)
            assert state.lane is not None
            source = prologue.and_(state.lane, prologue.const(31 & ~copy_lanes, i32))
            for r, old in results.items():
                results[r] = shuffle(op, b, old, "idx", source)
        replacement: list[SSAValue] = []
        if used:
            regs = [results[reps[r]] for r in range(n)]
            replacement.append(self.ctx.result_value(rewriter, regs, t))
        else:
            replacement.append(self.ctx.result_value(rewriter, [b.const(0, el)] * n, t))
        rewriter.replace(op, [], replacement)

    def _broadcast_through_shared(
        self,
        op: Operation,
        b: LLBuilder,
        rewriter: PatternRewriter,
        results: dict[int, SSAValue],
        copy_lanes: int,
        copy_warps: int,
    ) -> dict[int, SSAValue]:
        """Owners write their old values, every thread reads its owner's: one word per
        register and thread, between two CTA barriers."""
        state = self.ctx.function_state(op)
        threads = state.num_warps * WARP_SIZE
        slots = sorted(results)
        (scratch,) = allocate_shared(
            op, state, rewriter, [len(slots) * threads * 8], "an atomic's old values across warps"
        )
        prologue = state.prologue_builder(rewriter)
        assert state.lane is not None and state.warp is not None
        tid = prologue.or_(prologue.shl(state.warp, prologue.const(5, i32)), state.lane)
        owner_tid = prologue.and_(
            tid, prologue.const((threads - 1) & ~(copy_lanes | copy_warps << 5), i32)
        )
        mine = prologue.add(scratch, prologue.shl(tid, prologue.const(3, i32)))
        theirs = prologue.add(scratch, prologue.shl(owner_tid, prologue.const(3, i32)))
        for u, r in enumerate(slots):
            store_shared_word(op, b, mine, u * threads * 8, results[r])
        b.op(nvvm.Barrier0Op())
        out = {
            r: load_shared_word(b, theirs, u * threads * 8, results[r].type)
            for u, r in enumerate(slots)
        }
        b.op(nvvm.Barrier0Op())
        return out
