"""`testing$func`: the test-only function op of NVIDIA's dialect tests.

NVIDIA builds it only with `TILE_IR_INCLUDE_TESTS` (bytecode opcode 0x3001, testing
version 250.0).  It is an `entry` that may take any cuda_tile values and return
results: `testing$func @f(%a: tile<4xf32>) -> tile<4xf32> { ... return %v : ... }`.
tileir parses, prints and verifies it so that NVIDIA's tests run; nothing lowers it.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import irdl_op_definition, lazy_traits_def
from xdsl.traits import IsolatedFromAbove, SymbolOpInterface

from tileir.dialects.cuda_tile.ops.core import FunctionOp


@irdl_op_definition
class TestingFuncOp(FunctionOp):
    """`testing$func @name(%a: T, ...) [-> R | -> (R, ...)] { body }`."""

    name = "cuda_tile.testing$func"
    SYNTAX: ClassVar[str] = "@name(%a: T, ...) [-> R | -> (R, ...)] { body } [{attrs}]"
    SINCE: ClassVar[str] = "250.0"
    GROUP: ClassVar[str] = "Testing"

    traits = lazy_traits_def(lambda: (IsolatedFromAbove(), SymbolOpInterface()))


TESTING_OPS = [TestingFuncOp]
