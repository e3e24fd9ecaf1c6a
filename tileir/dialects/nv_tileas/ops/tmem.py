"""Tensor memory (sm_100a): the accumulator a `tcgen05` dot keeps in tensor memory
across the loop that carries it (tileir's addition to seed 003's roster).

`tileas-tmem-accumulators` (`transforms/tileas/tmem_accumulators.py`) marks a
`tcgen05` dot whose accumulator a `scf.for` carries and nothing else uses
(`nv_tileas.tmem_resident`): its accumulator stays in tensor memory from one
iteration to the next, and the registers the loop carries are the initial value's,
unchanged.  The loop's result is then read back once, after the loop, by
`nv_tileas.read_tmem_accumulator`, which the pass puts there: so the decision shows in
`--emit=tileas` and `convert-tileas-to-llvm` only carries it out
(`conversions/tileas_to_llvm/tcgen05.py`).

An accumulator that each iteration scales row by row before the dot accumulates into it
(flash attention's `O * alpha`, `alpha` one factor per row) stays there too
(`nv_tileas.tmem_stored`): `nv_tileas.write_tmem_accumulator` puts the loop's initial
value in tensor memory before the loop, `nv_tileas.scale_tmem_accumulator` replaces the
multiplication inside it (tensor memory read, scaled and written back a column slice at
a time), and the read after the loop always reads tensor memory.  What the loop still
carries for it, a zero the lowering passes back each iteration, nothing reads.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, IntegerType, i64
from xdsl.ir import SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.irdl.operations import ParsePropInAttrDict
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, SameOperandsAndResultType

from tileir.dialects.nv_tileas.ops.base import TileASOp

#: On a `tcgen05` dot: the first tensor-memory column of its accumulator (an i64).
TMEM_COLUMN_ATTR = "nv_tileas.tmem_column"
#: On a `tcgen05` dot: its accumulator stays in tensor memory across its loop.
TMEM_RESIDENT_ATTR = "nv_tileas.tmem_resident"
#: On a resident `tcgen05` dot whose operands both come from `cp.async` rings: its
#: MMAs stay in flight across iterations (each releases its ring slot through a
#: `tcgen05.commit` on that slot's mbarrier; no thread waits for them in the loop).
TMEM_IN_FLIGHT_ATTR = "nv_tileas.tmem_in_flight"
#: On the dots of a resident accumulator, and on its `read_tmem_accumulator`: tensor
#: memory holds the accumulation from before the loop on (`write_tmem_accumulator`), so
#: neither the dots nor the read consult the registers the loop carries.
TMEM_STORED_ATTR = "nv_tileas.tmem_stored"
#: On a `tcgen05` dot in a loop: the operands (0 for A, 1 for B) the loop does not
#: change, written to shared memory once, before the loop, instead of every iteration
#: (their registers are then not live across the loop).
STAGED_ONCE_ATTR = "nv_tileas.staged_once"

#: On a `wgmma` dot (unit): its A goes to the instruction from the registers that hold it,
#: in the accumulator layout of the product that computed it (attention's P), not
#: through shared memory (`tileas-pipeline-dot-operands` decides, `wgmma.register_a`).
A_IN_REGISTERS_ATTR = "nv_tileas.a_in_registers"
#: On a `wgmma` dot (unit) whose A is not in registers: A goes through a shared-memory
#: buffer of its own, written before each product and live for its loop's rings' scope,
#: not through the arena of the exchanges, so that exchanges while the product is in
#: flight leave it alone (attention's P, `tileas-overlap-attention-dots` decides).
A_OWN_BUFFER_ATTR = "nv_tileas.a_own_buffer"
#: On a `tcgen05` dot: the first tensor-memory column of its A (attention's P), which
#: the lowering writes there from the registers that hold it (`tcgen05.st`) and the MMAs
#: read from there (`[a-tmem]`), instead of a shared-memory buffer
#: (`tileas-tmem-accumulators` decides, `tcgen05_plan.a_in_tmem_obstacle`).
TMEM_A_COLUMN_ATTR = "nv_tileas.tmem_a_column"


@irdl_op_definition
class ReadTmemAccumulatorOp(TileASOp):
    """`%v = nv_tileas.read_tmem_accumulator %r {column = 0 : i64} : tensor<128x64xf32, #l> -> tensor<128x64xf32, #l>`

    The value of the accumulator that a `tcgen05` dot (`nv_tileas.tmem_resident`, at
    tensor-memory `column`) kept in tensor memory across the `scf.for` whose result is
    `%r`: read from tensor memory (`tcgen05.ld`) when the loop ran, `%r` (the initial
    value the loop carried unchanged) when it did not.  Reads and writes memory as far
    as passes can tell (the dot's state): never dropped or moved."""

    name = "nv_tileas.read_tmem_accumulator"
    loop_result = operand_def()
    column = prop_def(IntegerAttr[IntegerType])
    result = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), SameOperandsAndResultType())
    assembly_format = "$loop_result attr-dict `:` type($loop_result) `->` type($result)"
    RULES: ClassVar[tuple[str, ...]] = ()

    def __init__(self, loop_result: SSAValue, column: int):
        super().__init__(
            operands=[loop_result],
            result_types=[loop_result.type],
            properties={"column": IntegerAttr(column, i64)},
        )


@irdl_op_definition
class WriteTmemAccumulatorOp(TileASOp):
    """`nv_tileas.write_tmem_accumulator %init {column = 0 : i64} : tensor<128x64xf32, #l>`

    Before the `scf.for` of a resident accumulator marked `nv_tileas.tmem_stored`: its
    initial value `%init` (laid out as `tcgen05.ld` reads it) written to tensor memory at
    `column` (`tcgen05.st` of each warp's lane quarter), so that the loop's registers
    need not hold it."""

    name = "nv_tileas.write_tmem_accumulator"
    value = operand_def()
    column = prop_def(IntegerAttr[IntegerType])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$value attr-dict `:` type($value)"
    RULES: ClassVar[tuple[str, ...]] = ()

    def __init__(self, value: SSAValue, column: int):
        super().__init__(operands=[value], properties={"column": IntegerAttr(column, i64)})


@irdl_op_definition
class ScaleTmemAccumulatorOp(TileASOp):
    """`nv_tileas.scale_tmem_accumulator %acc, %factor {column = 0 : i64} : tensor<128x64xf32, #l>, tensor<128x1xf32, #l>`

    Inside the loop of a resident accumulator marked `nv_tileas.tmem_stored`, where the
    loop multiplied the accumulator (its iteration argument `%acc`, whose registers it
    does not read) by `%factor` broadcast along its rows (`mulf` with round-to-nearest,
    no flush): every row `i` of the accumulator at `column` multiplied by
    `%factor[i, 0]` in tensor memory (`tcgen05.ld`, `mul.rn.f32`, `tcgen05.st`, a column
    slice at a time).  `%factor` has the accumulator's layout, so each thread holds the
    factor of the rows it reads."""

    name = "nv_tileas.scale_tmem_accumulator"
    accumulator = operand_def()
    factor = operand_def()
    column = prop_def(IntegerAttr[IntegerType])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$accumulator `,` $factor attr-dict `:` type($accumulator) `,` type($factor)"
    RULES: ClassVar[tuple[str, ...]] = ()

    def __init__(self, accumulator: SSAValue, factor: SSAValue, column: int):
        super().__init__(
            operands=[accumulator, factor], properties={"column": IntegerAttr(column, i64)}
        )


TMEM_OPS: list[type[TileASOp]] = [
    ReadTmemAccumulatorOp,
    WriteTmemAccumulatorOp,
    ScaleTmemAccumulatorOp,
]
