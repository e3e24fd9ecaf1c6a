"""Ops built from a remembered shape instead of through xDSL's constructors.

An llvm-stage kernel is tens of thousands of ops, most of them of a few hundred shapes
(an `llvm.add` of two `i32`, a `getelementptr` of an `f16` pointer by an `i32`, an
`llvm.fma.f32`).  xDSL's constructors handle their arguments generically
(`irdl_op_init` matches every operand and result against the op's definition, converts
Python values to attributes and fills in defaults): 10-15 times the cost of laying out
the op itself for a `getelementptr` or an intrinsic call.  `shaped` builds an op with
its constructor the first time its key is seen, and after that lays out a new op with
the same class, result types, properties and attributes (attributes are immutable and
shared, as xDSL shares them) around the given operands.  `create` is
`Operation.create` for an op without regions or successors, without the generic
keyword handling, and `insert` is the rewriter's insertion of such a new op without the
check that it does not contain the block it goes into (a walk up the block's parents).
"""

from collections.abc import Callable, Hashable, Sequence

from xdsl.builder import _current_builder  # pyright: ignore[reportPrivateUsage]
from xdsl.dialects.builtin import UNKNOWN_LOC
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.core import OpResult, SSAValues, Use
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

#: Per key: the class, result types, properties and attributes of the op its
#: constructor built (`shaped`).
_SHAPES: dict[
    Hashable,
    tuple[type[Operation], tuple[Attribute, ...], dict[str, Attribute], dict[str, Attribute]],
] = {}


def create(
    cls: type[Operation],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: dict[str, Attribute],
    attributes: dict[str, Attribute],
) -> Operation:
    """`cls.create(operands=..., result_types=..., properties=..., attributes=...)`,
    the same op (fields, use lists, the unknown location) for a class whose definition
    gives no default to a property or attribute missing here: the caller's dicts are
    complete (a shape taken after xDSL's `__post_init__`, or a class without any)."""
    op = cls.__new__(cls)
    values = SSAValues(operands)
    uses = tuple([Use(op, i) for i in range(len(values))])
    for value, use in zip(values, uses, strict=True):
        value.add_use(use)
    op._operands = values  # pyright: ignore[reportPrivateUsage]
    op._operand_uses = uses  # pyright: ignore[reportPrivateUsage]
    op.results = SSAValues([OpResult(t, op, i) for i, t in enumerate(result_types)])
    op.properties = dict(properties)
    op.attributes = dict(attributes)
    op.location = UNKNOWN_LOC
    op._successors = ()  # pyright: ignore[reportPrivateUsage]
    op._successor_uses = ()  # pyright: ignore[reportPrivateUsage]
    op.regions = ()
    return op


def shaped(key: Hashable, operands: Sequence[SSAValue], make: Callable[[], Operation]) -> Operation:
    """`make()`, whose operands are `operands` and whose result types, properties and
    attributes are fixed by `key` (with the operands' types where they matter: they
    belong in the key): built by `make` the first time `key` is seen, after that laid
    out by `create` as a copy of that op's shape."""
    shape = _SHAPES.get(key)
    if shape is None:
        op = make()
        assert not op.regions and not op.successors and list(op.operands) == list(operands)
        _SHAPES[key] = (type(op), tuple(op.result_types), dict(op.properties), dict(op.attributes))
        return op
    cls, results, properties, attributes = shape
    return create(cls, operands, results, properties, attributes)


def insert(rewriter: PatternRewriter, op: Operation, ip: InsertPoint) -> None:
    """`rewriter.insert(op, ip)`: the same links, name hint, action flag and listeners.
    An op without regions cannot contain the block it goes into, so xDSL's check of
    that (`Block._attach_op` walks up from the block to the top of the IR) is left out;
    anything else (an op with regions or in a block, the end of a block, an implicit
    builder) goes through the rewriter."""
    anchor = ip.insert_before
    block = ip.block
    if (
        op.regions
        or op.parent is not None
        or anchor is None
        or anchor.parent is not block
        or _current_builder.builder is not None
    ):
        rewriter.insert(op, ip)
        return
    rewriter.has_done_action = True
    op.parent = block
    if anchor.prev_op is None:
        block._first_op = op  # pyright: ignore[reportPrivateUsage]
    anchor._insert_prev_op(op)  # pyright: ignore[reportPrivateUsage]
    name = rewriter.name_hint
    if name is not None:
        for result in op.results:
            if result.name_hint is None:
                result._name = name  # pyright: ignore[reportPrivateUsage]
    for handler in rewriter.operation_insertion_handler:
        handler(op)
