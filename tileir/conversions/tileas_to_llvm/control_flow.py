"""Structured control flow to branches, with every carried tile flattened into the
registers its layout gives each thread (a loop-carried tile stays in registers; the
layout of a carried value is the same at entry, yield and result, which
`tileas-assign-layouts` guarantees).

    scf.for %iv = %lb to %ub step %s iter_args(%x = %init) { body; yield %next }

        br ^header(%lb, init registers...)
      ^header(%iv, %x registers...):           // the loop-carried state
        %c = icmp slt %iv, %ub                 // ult with `unsignedCmp`
        cond_br %c, ^body, ^exit
      ^body:                                   // the old body, using ^header's args
        ...
        br ^header(%iv + %s, next registers...)
      ^exit:                                   // the loop results are ^header's args

    scf.if %c -> (T) { then; yield %a } else { else; yield %b }

        cond_br %c, ^then, ^else
      ^then: ...; br ^merge(%a registers...)
      ^else: ...; br ^merge(%b registers...)
      ^merge(result registers...): the ops after the if

    scf.while (%x = %init) { before; condition(%c) %v } do { ^bb(%y): after; yield %n }

        br ^before(init registers...)
      ^before(%x registers...): before; cond_br %c, ^after(%v regs), ^exit(%v regs)
      ^after(%y registers...): after; br ^before(%n registers...)
      ^exit(result registers...): the ops after the loop

Terminators (`scf.yield`, `scf.condition`) are lowered when the walk reaches them,
after the ops before them: by then the values they pass have registers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import llvm, scf
from xdsl.dialects.builtin import TensorType, UnrealizedConversionCastOp, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import (
    LoweringContext,
    linear_layout,
    llvm_scalar_type,
)
from tileir.conversions.tileas_to_llvm.names import name_block_registers
from tileir.diagnostics import error_at
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileas.foreign import AsyncValueType
from tileir.dialects.nv_tileas.types import (
    PipelineConsumerTokenType,
    PipelineIteratorType,
    PipelineProducerTokenType,
)

UNSIGNED_CMP_ATTR = "unsignedCmp"


#: Pipeline tokens and iterators: one 32-bit register each (`agents.py`).
PIPELINE_HANDLE_TYPES = PipelineProducerTokenType | PipelineConsumerTokenType | PipelineIteratorType


def register_types(t: Attribute, op: Operation | None = None) -> list[Attribute]:
    """The LLVM types of the registers a value of type `t` occupies (a future of a tile:
    the 32-bit shared-memory address of the buffer it lands in, `async_copy.py`; a
    pipeline token or iterator: a word, `agents.py`)."""
    if isinstance(t, AsyncValueType | PIPELINE_HANDLE_TYPES):
        return [i32]
    if isinstance(t, TensorType):
        layout = linear_layout(op, t)  # pyright: ignore[reportArgumentType]
        return [llvm_scalar_type(element_type(t))] * layout.num_registers
    return [llvm_scalar_type(t)]


def register_block(types: Sequence[Attribute], op: Operation) -> Block:
    """A block whose arguments are the registers of values of `types`, in order."""
    return Block(arg_types=[r for t in types for r in register_types(t, op)])


def values_from_registers(
    ctx: LoweringContext, regs: Sequence[SSAValue], types: Sequence[Attribute], op: Operation
) -> tuple[list[SSAValue], list[Operation]]:
    """Regroup registers into values of `types`: tiles through a cast (returned, to be
    inserted by the caller), scalars as themselves."""
    values: list[SSAValue] = []
    casts: list[Operation] = []
    offset = 0
    for t in types:
        n = len(register_types(t, op))
        group = list(regs[offset : offset + n])
        offset += n
        if isinstance(t, TensorType | PointerType | AsyncValueType):
            cast = UnrealizedConversionCastOp.get(group, [t])
            casts.append(cast)
            values.append(cast.results[0])
        else:
            values.append(group[0])
    return values, casts


def insert_at_start(block: Block, ops: Sequence[Operation]) -> None:
    first = block.first_op
    for o in ops:
        if first is None:
            block.add_op(o)
        else:
            block.insert_op_before(o, first)


def move_ops(src: Block, dst: Block) -> None:
    for inner in list(src.ops):
        inner.detach()
        dst.add_op(inner)


def rebind_args(ctx: LoweringContext, old: Block, new: Block, op: Operation) -> None:
    """Uses of `old`'s arguments now read `new`'s register arguments, regrouped into
    tiles at the top of `new`."""
    values, casts = values_from_registers(ctx, new.args, [a.type for a in old.args], op)
    insert_at_start(new, casts)
    for arg, value in zip(old.args, values, strict=True):
        name_block_registers(arg, value)
        arg.replace_all_uses_with(value)


def rebind_results(ctx: LoweringContext, op: Operation, block: Block) -> None:
    """The results of `op` are the register arguments of `block`."""
    values, casts = values_from_registers(ctx, block.args, [r.type for r in op.results], op)
    insert_at_start(block, casts)
    for res, value in zip(op.results, values, strict=True):
        name_block_registers(res, value)
        res.replace_all_uses_with(value)


def registers(ctx: LoweringContext, op: Operation, values: Sequence[SSAValue]) -> list[SSAValue]:
    return [r for v in values for r in ctx.registers_of(op, v)]


def split_after(op: Operation, arg_types: Sequence[Attribute] = ()) -> tuple[Block, Block, Region]:
    """(the block of `op`, a new block holding everything after `op` whose arguments
    are the registers of values of `arg_types`, their region)."""
    parent = op.parent_block()
    assert parent is not None
    after = op.next_op
    if after is None:
        raise error_at(op, "a structured control-flow op cannot end its block")
    exit_block = parent.split_before(after)
    for i, reg in enumerate(r for t in arg_types for r in register_types(t, op)):
        exit_block.insert_arg(reg, i)
    region = parent.parent
    assert region is not None
    return parent, exit_block, region


@dataclass
class Edge:
    """What a terminator becomes: a branch to `target` (for loops, stepping the
    induction variable first), or for `scf.condition` a conditional branch."""

    target: Block
    step: SSAValue | None = None
    exit: Block | None = None


class StructuredLowering:
    """The patterns share the terminators waiting to be lowered."""

    def __init__(self, ctx: LoweringContext):
        self.ctx = ctx
        self.edges: dict[Operation, Edge] = {}

    def patterns(self) -> list[RewritePattern]:
        return [LowerScfFor(self), LowerScfIf(self), LowerScfWhile(self), LowerScfTerminator(self)]


class _Pattern(RewritePattern):
    def __init__(self, lowering: StructuredLowering):
        self.lowering = lowering
        self.ctx = lowering.ctx


class LowerScfFor(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        lb = self.ctx.registers_of(op, op.lb)[0]
        ub = self.ctx.registers_of(op, op.ub)[0]
        step = self.ctx.registers_of(op, op.step)[0]
        init = registers(self.ctx, op, op.iter_args)
        body_block = op.body.block
        yield_op = body_block.last_op
        if not isinstance(yield_op, scf.YieldOp):
            raise error_at(op, "loop body must end with scf.yield")

        parent, exit_block, region = split_after(op)
        header = register_block([lb.type, *(v.type for v in op.iter_args)], op)
        body = Block()
        region.insert_block_after(header, parent)
        region.insert_block_after(body, header)
        move_ops(body_block, body)
        body_block.args[0].replace_all_uses_with(header.args[0])
        # The body reads the header's arguments (it is dominated by the header).
        types = [a.type for a in body_block.args[1:]]
        values, casts = values_from_registers(self.ctx, header.args[1:], types, op)
        insert_at_start(body, casts)
        for arg, value in zip(body_block.args[1:], values, strict=True):
            name_block_registers(arg, value)
            arg.replace_all_uses_with(value)
        # The results are the header's arguments, seen from the exit block.
        values, casts = values_from_registers(
            self.ctx, header.args[1:], [r.type for r in op.res], op
        )
        insert_at_start(exit_block, casts)
        for res, value in zip(op.res, values, strict=True):
            res.replace_all_uses_with(value)

        rewriter.insert(llvm.BrOp(header, lb, *init), InsertPoint.at_end(parent))
        b = LLBuilder(rewriter, InsertPoint.at_end(header))
        unsigned = UNSIGNED_CMP_ATTR in op.attributes
        cond = b.icmp("lt", header.args[0], ub, signed=not unsigned)
        b.op(llvm.CondBrOp(cond, body, (), exit_block, ()))
        self.lowering.edges[yield_op] = Edge(header, step=step)
        rewriter.erase(op)


class LowerScfIf(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        (cond,) = self.ctx.registers_of(op, op.cond)
        parent, merge, region = split_after(op, [r.type for r in op.results])
        rebind_results(self.ctx, op, merge)

        targets: list[Block] = []
        last = parent
        for branch in (op.true_region, op.false_region):
            if not branch.blocks:
                targets.append(merge)
                continue
            src = branch.block
            terminator = src.last_op
            if not isinstance(terminator, scf.YieldOp):
                raise error_at(op, "each branch must end with scf.yield")
            block = Block()
            region.insert_block_after(block, last)
            last = block
            move_ops(src, block)
            self.lowering.edges[terminator] = Edge(merge)
            targets.append(block)
        if targets[1] is merge and op.results:
            raise error_at(op, "an scf.if with results needs an else branch")
        rewriter.insert(
            llvm.CondBrOp(cond, targets[0], (), targets[1], ()), InsertPoint.at_end(parent)
        )
        rewriter.erase(op)


class LowerScfWhile(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter) -> None:
        init = registers(self.ctx, op, op.arguments)
        before_old = op.before_region.block
        after_old = op.after_region.block
        condition = before_old.last_op
        latch = after_old.last_op
        if not isinstance(condition, scf.ConditionOp) or not isinstance(latch, scf.YieldOp):
            raise error_at(op, "scf.while needs scf.condition and scf.yield terminators")
        parent, exit_block, region = split_after(op, [r.type for r in op.results])
        before = register_block([a.type for a in before_old.args], op)
        after = register_block([a.type for a in after_old.args], op)
        region.insert_block_after(before, parent)
        region.insert_block_after(after, before)
        move_ops(before_old, before)
        move_ops(after_old, after)
        rebind_args(self.ctx, before_old, before, op)
        rebind_args(self.ctx, after_old, after, op)
        rebind_results(self.ctx, op, exit_block)
        self.lowering.edges[condition] = Edge(after, exit=exit_block)
        self.lowering.edges[latch] = Edge(before)
        rewriter.insert(llvm.BrOp(before, *init), InsertPoint.at_end(parent))
        rewriter.erase(op)


class LowerScfTerminator(_Pattern):
    """Yields and conditions of lowered structured ops become branches."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: scf.YieldOp | scf.ConditionOp, rewriter: PatternRewriter
    ) -> None:
        edge = self.lowering.edges.pop(op, None)
        if edge is None:
            return
        if isinstance(op, scf.ConditionOp):
            assert edge.exit is not None
            (cond,) = self.ctx.registers_of(op, op.condition)
            regs = registers(self.ctx, op, op.args)
            rewriter.replace(op, llvm.CondBrOp(cond, edge.target, regs, edge.exit, regs))
            return
        regs = registers(self.ctx, op, op.operands)
        if edge.step is not None:
            b = LLBuilder(rewriter, InsertPoint.before(op))
            iv_next = b.add(edge.target.args[0], edge.step)
            regs = [iv_next, *regs]
        rewriter.replace(op, llvm.BrOp(edge.target, *regs))
