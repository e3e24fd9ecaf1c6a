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


TMEM_OPS: list[type[TileASOp]] = [ReadTmemAccumulatorOp]
