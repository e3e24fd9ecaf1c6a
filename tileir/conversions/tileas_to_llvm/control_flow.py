"""Structured loops to branches.

    scf.for %iv = %lb to %ub step %s iter_args(%x = %init) { body; yield %next }

becomes, with every carried tile flattened into its registers,

    br ^header(%lb, init registers...)
  ^header(%iv, %x registers...):            // the loop-carried state
    %c = icmp slt %iv, %ub                  // ult with `unsignedCmp`
    cond_br %c, ^body, ^exit
  ^body:                                     // the old body, using ^header's args
    ...
    br ^header(%iv + %s, next registers...)  // from the yield, lowered in place
  ^exit:                                     // the loop results are ^header's args
    ...

The yield is lowered when the walk reaches it, after the body's ops: by then the
yielded tiles have registers.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import llvm, scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import (
    LoweringContext,
    linear_layout,
    llvm_scalar_type,
)
from tileir.diagnostics import error_at
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.types import PointerType

UNSIGNED_CMP_ATTR = "unsignedCmp"


@dataclass
class LoopInfo:
    header: Block
    step: SSAValue


def register_types(t) -> list:
    """The LLVM types of the registers a value of type `t` occupies."""
    if isinstance(t, TensorType):
        layout = linear_layout(None, t)  # pyright: ignore[reportArgumentType]
        return [llvm_scalar_type(element_type(t))] * layout.num_registers
    return [llvm_scalar_type(t)]


class LowerScfFor(RewritePattern):
    def __init__(self, ctx: LoweringContext):
        self.ctx = ctx
        self.loops: dict[scf.YieldOp, LoopInfo] = {}

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        parent = op.parent_block()
        assert parent is not None
        lb = self.ctx.registers_of(op, op.lb)[0]
        ub = self.ctx.registers_of(op, op.ub)[0]
        step = self.ctx.registers_of(op, op.step)[0]
        init_regs = [self.ctx.registers_of(op, v) for v in op.iter_args]

        # Split: everything after the loop continues in the exit block.
        after = op.next_op
        assert after is not None, "scf.for cannot be a terminator"
        exit_block = parent.split_before(after)
        header_types = [lb.type] + [t for v in op.iter_args for t in register_types(v.type)]
        header = Block(arg_types=header_types)
        body_block = op.body.block
        yield_op = body_block.last_op
        if not isinstance(yield_op, scf.YieldOp):
            raise error_at(op, "loop body must end with scf.yield")
        region = parent.parent
        assert region is not None
        region.insert_block_after(header, parent)

        # Body: a fresh block whose ops are the old body's, reading ^header's args.
        body = Block()
        region.insert_block_after(body, header)
        for inner in list(body_block.ops):
            inner.detach()
            body.add_op(inner)
        iv = header.args[0]
        body_block.args[0].replace_all_uses_with(iv)
        offset = 1
        for arg in body_block.args[1:]:
            n = len(register_types(arg.type))
            regs = list(header.args[offset : offset + n])
            offset += n
            first = body.first_op
            value = self.ctx.result_value(rewriter, regs, arg.type)
            if value is not regs[0]:
                cast = value.owner
                assert not isinstance(cast, Block)
                cast.detach()
                if first is None:
                    body.add_op(cast)
                else:
                    body.insert_op_before(cast, first)
            arg.replace_all_uses_with(value)

        # Loop results: the header's arguments, seen from the exit block.
        offset = 1
        for res in op.res:
            n = len(register_types(res.type))
            regs = list(header.args[offset : offset + n])
            offset += n
            value = self.ctx.result_value(rewriter, regs, res.type)
            if value is not regs[0]:
                cast = value.owner
                assert not isinstance(cast, Block)
                cast.detach()
                exit_block.insert_op_before(cast, exit_block.first_op)  # pyright: ignore[reportArgumentType]
            res.replace_all_uses_with(value)

        # Entry edge, then the header's test.
        entry_args = [lb] + [r for regs in init_regs for r in regs]
        rewriter.insert(llvm.BrOp(header, *entry_args), InsertPoint.at_end(parent))
        b = LLBuilder(rewriter, InsertPoint.at_end(header))
        unsigned = UNSIGNED_CMP_ATTR in op.attributes
        cond = b.icmp("lt", iv, ub, signed=not unsigned)
        b.op(llvm.CondBrOp(cond, body, (), exit_block, ()))
        self.loops[yield_op] = LoopInfo(header, step)
        rewriter.erase(op)


class LowerScfYield(RewritePattern):
    """The latch: step the induction variable and branch back with the registers of
    the yielded values."""

    def __init__(self, ctx: LoweringContext, loops: LowerScfFor):
        self.ctx = ctx
        self.loops = loops

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.YieldOp, rewriter: PatternRewriter) -> None:
        info = self.loops.loops.get(op)
        if info is None:
            return
        b = LLBuilder(rewriter, InsertPoint.before(op))
        iv_next = b.add(info.header.args[0], info.step)
        regs = [r for v in op.operands for r in self.ctx.registers_of(op, v)]
        rewriter.replace(op, llvm.BrOp(info.header, iv_next, *regs))


_ = PointerType
