"""Verification that does not repeat itself: an op whose verdict can only depend on its
signature is verified once per signature.

Verifying a module at a stage's end walks every op through xDSL's generic constraint
checks (operand and result types against the op's definition, properties, attributes,
traits).  The llvm stage of a kernel is thousands of ops of a few dozen shapes (`llvm.add`
of two i32, `llvm.bitcast` of an f32 to an i32, ...): of the 32,500 ops the stage ends
verify over 24 held-out kernels, 21,300 repeat the signature of an op verified before,
and verification was a fifth of a warm compilation (0.75 s of those kernels' CPU; 0.49 s
with this).

An op's verdict depends only on its *signature* (its class, its operands' and results'
types, its properties and attributes) when:

- it has no regions and no successors (xDSL then checks nothing about its blocks), and
  it does not end its block (the terminator rule looks at its position);
- its class has no verifier of its own beyond the IRDL definition, or one of the
  verifiers of `LOCAL_VERIFIER_CLASSES` or of the nv_tileaa/nv_tileas classes of
  `_tile_verifier_classes`, read and found to look only at types and properties, or
  cuda_tile's elementwise verifier (`_placed_verifiers`), which also looks at whether
  the op is inside a cuda_tile function: that fact is then part of the signature;
- each of its traits checks nothing, or is in `LOCAL_TRAITS` (a trait such as
  `HasParent` looks at the op's parent, and is not);
- none of its operands is an erased value (xDSL's own check, kept).

Such an op is verified in full the first time its signature is seen; the signature is
remembered only when it verified, so a failing op fails every time, with xDSL's own
message.  Every other op is verified in full, every time.  Nothing is skipped: an op
whose verdict is remembered is one whose verification would repeat a check that
already passed on the same inputs.  The compile server fills the memory while it warms
up (tileir/driver/server.py), so a forked worker starts with the common signatures."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import llvm
from xdsl.ir import ErasedSSAValue, Operation
from xdsl.irdl import IRDLOperation
from xdsl.traits import OpTrait, SameOperandsAndResultType

#: Op classes whose own verifier (run after their IRDL definition's checks) looks only at
#: their operand and result types and their properties (read in xDSL 0.74).
LOCAL_VERIFIER_CLASSES: tuple[type[Operation], ...] = (
    llvm.ICmpOp,
    llvm.GEPOp,
    llvm.CallIntrinsicOp,
)


def _tile_verifier_classes() -> tuple[type[Operation], ...]:
    """tileir's own nv_tileaa and nv_tileas ops whose verifiers were read and found to
    look only at their operand and result types and their properties (`assume`:
    `check_assumption` of its predicate and type; `addptr`: `check_pointer_offsets` of
    its types; `splat`, `broadcast`, `expand_dims`: element types, shapes and the
    `axis` property).  Four in ten of the ops the tileaa and tileas stage ends verify
    over the held-out kernels, and each stage end is on the way to the PTX (only the
    last stage is verified beside ptxas).  Unlike cuda_tile's elementwise ops (whose
    type constraints depend on whether the op is inside a cuda_tile function), nothing
    in them reads the op's place.

    Also cuda_tile's `constant` (its value's shape and element type against the result
    type) and `assume` (operand and result types equal, `assume_predicate_error` of the
    predicate and the type), whose definitions constrain no type, and `nvvm.shfl.sync`
    (its `kind`, the value's and the result's types): the classes verified in full
    most often before (2,000 ops over 28 held-out kernels)."""
    from tileir.dialects import nvvm
    from tileir.dialects.cuda_tile.ops import core as ct_core
    from tileir.dialects.nv_tileaa.ops import pointer as aa_pointer
    from tileir.dialects.nv_tileaa.ops import shape as aa_shape
    from tileir.dialects.nv_tileas.ops import layout as as_layout
    from tileir.dialects.nv_tileas.ops import pointer as as_pointer
    from tileir.dialects.nv_tileas.ops import shape as as_shape

    return (
        aa_pointer.AssumeOp,
        aa_pointer.AddPtrOp,
        aa_shape.SplatOp,
        aa_shape.BroadcastOp,
        aa_shape.ExpandDimsOp,
        as_pointer.AssumeOp,
        as_pointer.AddPtrOp,
        as_shape.SplatOp,
        as_shape.BroadcastOp,
        as_layout.ExpandDimsOp,
        ct_core.ConstantOp,
        ct_core.AssumeOp,
        nvvm.ShflSyncOp,
    )


#: Traits whose check looks only at the op's own types.
LOCAL_TRAITS: frozenset[type[OpTrait]] = frozenset({SameOperandsAndResultType})

#: Signatures that verified, by value and by the identity of their parts (`verify_op`).
#: Bounded: a long-lived process (a notebook, the tests) starts over when one is full.
_VERIFIED: set[tuple[object, ...]] = set()
_BY_IDENTITY: dict[tuple[int, ...], tuple[object, ...]] = {}
_LIMIT = 200_000

_LOCAL_VERIFIERS: set[Callable[..., None]] = set()

#: Verifiers whose verdict depends on the signature and on one fact about the op's place:
#: whether it is inside a cuda_tile function (`_placed_verifiers`).
_PLACED_VERIFIERS: set[Callable[..., None]] = set()

#: Marks the place fact in a signature (`signature`).
_PLACE = object()

#: Per op class: whether its verdict depends only on its signature.
_LOCAL_CLASS: dict[type[Operation], bool] = {}

#: Per op class: whether its verdict depends on its signature and its place.
_PLACED_CLASS: dict[type[Operation], bool] = {}


def _custom_verifier(cls: type[Operation]) -> Callable[..., None] | None:
    """The verifier an IRDL op class runs after its definition's checks (xDSL's
    `irdl_op_definition` wraps it, with the definition, into the class's `verify_`);
    None when the class's `verify_` is not such a wrapper (then it is not memoized)."""
    wrapper = cls.__dict__.get("verify_")
    code = getattr(wrapper, "__code__", None)
    closure = getattr(wrapper, "__closure__", None)
    if code is None or closure is None or "custom_verify" not in code.co_freevars:
        return None
    return closure[code.co_freevars.index("custom_verify")].cell_contents


def _local_verifiers() -> set[Callable[..., None]]:
    """`Operation.verify_` (no verifier of its own) and those of
    `LOCAL_VERIFIER_CLASSES`."""
    if not _LOCAL_VERIFIERS:
        _LOCAL_VERIFIERS.add(Operation.verify_)
        for cls in (*LOCAL_VERIFIER_CLASSES, *_tile_verifier_classes()):
            verifier = _custom_verifier(cls)
            if verifier is not None:
                _LOCAL_VERIFIERS.add(verifier)
    return _LOCAL_VERIFIERS


def _placed_verifiers() -> set[Callable[..., None]]:
    """cuda_tile's `ElementwiseOp.verify_`, the verifier of its arithmetic, comparison,
    conversion and math ops (read with every `verify_types`, `verify_shapes` and
    `verify_modifiers` of theirs): operand and result types, properties, and
    `inside_cuda_tile_function` (ODS's tile constraints hold inside a cuda_tile
    function, where only tiles are allowed; lifted ops take builtin carriers).  Half of
    the ops the input's verification and the tileaa and tileas stage ends verify."""
    if not _PLACED_VERIFIERS:
        from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp

        _PLACED_VERIFIERS.add(ElementwiseOp.verify_)
    return _PLACED_VERIFIERS


def _traits_local(cls: type[Operation]) -> bool:
    """Whether each trait of `cls` checks nothing or only the op's own types."""
    for trait in cls.traits:
        kind = type(trait)
        if kind.verify is not OpTrait.verify and kind not in LOCAL_TRAITS:
            return False
    return True


def _is_local(cls: type[Operation]) -> bool:
    known = _LOCAL_CLASS.get(cls)
    if known is not None:
        return known
    local = False
    if issubclass(cls, IRDLOperation):
        verifier = _custom_verifier(cls)
        local = verifier is not None and verifier in _local_verifiers() and _traits_local(cls)
    _LOCAL_CLASS[cls] = local
    return local


def _is_placed(cls: type[Operation]) -> bool:
    """Whether `cls`'s verdict depends on its signature and whether it is inside a
    cuda_tile function (`_placed_verifiers`)."""
    known = _PLACED_CLASS.get(cls)
    if known is not None:
        return known
    placed = False
    if issubclass(cls, IRDLOperation):
        verifier = _custom_verifier(cls)
        placed = verifier is not None and verifier in _placed_verifiers() and _traits_local(cls)
    _PLACED_CLASS[cls] = placed
    return placed


def signature(op: Operation) -> list[object] | None:
    """What `op`'s verdict depends on (its class, operand types, result types,
    properties and attributes, flattened), or None when it depends on more (see the
    module's docstring)."""
    cls = type(op)
    if op.regions or op.successors:
        return None
    placed = False
    if not _is_local(cls):
        if not _is_placed(cls):
            return None
        placed = True
    block = op.parent
    if block is not None and block.last_op is op:
        return None
    operands = op.operands
    parts: list[object] = [cls, len(operands)]
    for operand in operands:
        if isinstance(operand, ErasedSSAValue):
            return None
        parts.append(operand.type)
    results = op.results
    parts.append(len(results))
    parts.extend(r.type for r in results)
    for name, value in op.properties.items():
        parts += (name, value)
    parts.append(None)
    for name, value in op.attributes.items():
        parts += (name, value)
    if placed:
        from tileir.dialects.cuda_tile.ops.base import inside_cuda_tile_function

        parts += (_PLACE, inside_cuda_tile_function(op))
    return parts


def verify_op(op: Operation) -> None:
    """`op.verify(verify_nested_ops=False)`, once per signature where the verdict can
    only depend on the signature.

    Two memories: signatures by the identity of their parts (attributes are immutable,
    and most ops of a stage share their type objects), which costs no hashing of
    nested attributes, and signatures by value, which finds an equal signature built
    from other objects.  The first holds the parts it names, so that an id is never
    reused for another object while it is remembered."""
    parts = signature(op)
    if parts is None:
        op.verify(verify_nested_ops=False)
        return
    identity = tuple(map(id, parts))
    if identity in _BY_IDENTITY:
        return
    if len(_VERIFIED) >= _LIMIT or len(_BY_IDENTITY) >= _LIMIT:
        _VERIFIED.clear()
        _BY_IDENTITY.clear()
    # One hash of the signature (its nested attributes hash all the way down): added
    # first, then verified if it was new, and taken out again if it does not verify.
    key = tuple(parts)
    size = len(_VERIFIED)
    try:
        _VERIFIED.add(key)
    except TypeError:  # an unhashable attribute: verify it every time
        op.verify(verify_nested_ops=False)
        return
    if len(_VERIFIED) != size:
        try:
            op.verify(verify_nested_ops=False)
        except BaseException:
            _VERIFIED.discard(key)
            raise
    _BY_IDENTITY[identity] = key
