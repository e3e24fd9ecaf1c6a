"""`convert-tileaa-to-tileas`: nv_tileaa memory ops become nv_tileas tiled memory ops.

Each `nv_tileaa.load` / `store` of a pointer tensor becomes a `nv_tileas.view` of
the pointers (a gmem tiled view) and a `nv_tileas.tiled_load` / `tiled_store` that
carries the widest global-memory copy atom the accesses allow: the axis analysis says
how many elements are contiguous and how aligned the first of them is, and the atom
moves up to 16 bytes per thread (`ldg_128b` = `ld.global.v4.b32`).  A load's constant
fallback value becomes its `padding_value`; memory semantics and scopes carry over.

Each `nv_tileaa.atomic_rmw` / `atomic_cas` becomes tileir's `nv_tileas.atomic_rmw` /
`atomic_cas` on the same tile of pointers (the seed's `tiled_atomic_rmw` addresses a view
at coordinates and takes no mask): mode, compare, value, mask, memory order and scope
carry over.  An atomic is never weak (PTX's `atom`/`red` order at least relaxed), and an
ordered one without a scope is device-scoped (`gpu`), as the lowering always printed it.
The token follows the nv_tileaa one, for `tileas-insert-barriers` to decide from and drop.

`cuda_tile.reduce` / `scan` become `nv_tileas.reduce` / `scan` with their identities and
body (`tileir/conversions/tileaa_reductions.py`); shape ops become their nv_tileas
forms (`tileir/conversions/tileaa_shapes.py`: `splat`, `broadcast`, `expand_dims`,
`extract` -> `extract_slice`, `view` -> value `view`, cuda_tile `permute` -> `shuffle`);
pointer arithmetic and assumptions become tileir's nv_tileas pointer ops
(`tileir/conversions/tileaa_pointers.py`: `addptr` and cuda_tile `offset` -> `addptr`,
`assume` -> `assume` with its cuda_tile predicate); prints, assertions, grid-dependency
control and globals become tileir's nv_tileas `print`, `assert`, `gdc_wait` /
`gdc_launch_dependents` and `global` / `get_global`
(`tileir/conversions/tileaa_effects.py`).  Each kernel's `nv_tileaa.kernel` marker
becomes `nv_tileas.kernel`.  Past this pass only the synchronous mem tokens are left of
nv_tileaa, and `tileas-insert-barriers` drops them.

Queues, puts, gets and execute regions become pipelines and agent switches first
(`tileir/conversions/tileaa_queues.py`, seed 001 "Queue-to-Pipeline Lowering").

Then token hop two (`tileir/conversions/tileaa_tokens.py`): asynchronous mem tokens
(`num_producers` > 0) become mbarrier inits and parity waits.  Synchronous tokens keep
their nv_tileaa form: synchronous global accesses need no barrier resources, and the
LLVM lowering orders them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tileir.analysis.axis_info import AxisInfoAnalysis, element_bytes
from tileir.conversions.cuda_tile_to_tileaa import KERNEL_ATTR as TILEAA_KERNEL_ATTR
from tileir.conversions.tileaa_effects import effect_patterns
from tileir.conversions.tileaa_pointers import pointer_patterns
from tileir.conversions.tileaa_queues import lower_queues_and_agents
from tileir.conversions.tileaa_reductions import reduction_patterns
from tileir.conversions.tileaa_shapes import shape_patterns
from tileir.conversions.tileaa_tokens import fresh_token, lower_mem_tokens
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import (
    AtomicRMWMode,
    MemoryOrderingSemantics,
    MemoryScope,
)
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import (
    KERNEL_ATTR,
    AtomAttr,
    MemScope,
    MemScopeAttr,
    MemSemantic,
    MemSemanticAttr,
    Residency,
    RmwMode,
    RmwModeAttr,
    copy_atom,
)
from tileir.dialects.nv_tileas.ops import bool_array
from tileir.dialects.nv_tileas.types import TiledViewType
from tileir.utils.numeric import dense_splat
from tileir.utils.rewriting import LocatedWalker, TypeDispatch

SEMANTICS = {
    MemoryOrderingSemantics.WEAK: MemSemantic.WEAK,
    MemoryOrderingSemantics.RELAXED: MemSemantic.RELAXED,
    MemoryOrderingSemantics.ACQUIRE: MemSemantic.ACQUIRE,
    MemoryOrderingSemantics.RELEASE: MemSemantic.RELEASE,
    MemoryOrderingSemantics.ACQ_REL: MemSemantic.ACQUIRE_RELEASE,
}
SCOPES = {
    MemoryScope.TL_BLK: MemScope.TL_BLK,
    MemoryScope.DEVICE: MemScope.GPU,
    MemoryScope.SYS: MemScope.SYS,
}


def best_vector(analysis: AxisInfoAnalysis, pointers: SSAValue) -> int:
    """Elements per thread per access along the pointers' most contiguous dim."""
    rank = len(shape_of(pointers.type))
    if rank == 0:
        return 1
    return max(analysis.vector_elements(pointers, d) for d in range(rank))


def memory_properties(op: aa.MemoryOrderedOp) -> dict[str, Attribute]:
    props: dict[str, Attribute] = {}
    sem = SEMANTICS[op.semantics()]
    if sem is not MemSemantic.WEAK:
        props["mem_semantic"] = MemSemanticAttr(sem)
    if (scope := op.scope()) is not None:
        props["mem_scope"] = MemScopeAttr(SCOPES[scope])
    return props


def fill_value_attr(value: SSAValue | None) -> Attribute | None:
    """The scalar a `cuda_tile.constant` fills every element with, as an attribute
    (floats compare by value: NaNs, or 0.0 and -0.0, count as one value)."""
    if value is None or not isinstance(value.owner, ct.ConstantOp):
        return None
    el = element_type(value.type)
    splat = dense_splat(value.owner.value)
    if splat is not None:  # the common case: one element read, without numpy
        if isinstance(el, AnyFloat):
            return FloatAttr(float(splat), el)
        assert isinstance(el, IntegerType)
        return IntegerAttr(int(splat), el)
    import numpy as np

    data = value.owner.values().reshape(-1)
    if not data.size:
        return None
    if isinstance(el, AnyFloat):
        as_float = data.astype("float64")
        first = float(as_float[0])
        same = bool(np.isnan(as_float).all()) or bool((as_float == first).all())
        return FloatAttr(first, el) if same else None
    assert isinstance(el, IntegerType)
    first_int = int(data[0])
    return IntegerAttr(first_int, el) if bool((data == data[0]).all()) else None


@dataclass
class MemoryLowering:
    analysis: AxisInfoAnalysis

    def view_of(
        self, op: Operation, pointers: SSAValue, rewriter: PatternRewriter
    ) -> tuple[SSAValue, list[SSAValue]]:
        el = element_type(pointers.type)
        assert isinstance(el, PointerType)
        shape = shape_of(pointers.type)
        view = tas.ViewOp(pointers, TiledViewType(shape, el.pointee, Residency.GMEM))
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        rewriter.insert(view)
        rewriter.insert(zero)
        return view.result, [zero.result] * len(shape)

    def atom(self, direction: str, pointers: SSAValue) -> AtomAttr:
        """The widest copy atom the pointers' contiguity and alignment allow.  A bool
        is one byte in memory, as an i8 is, and moves in vectors of bytes the same way
        (unpacked and compared with zero as loaded, packed as stored): a 32x32 i1 tile
        with 16-byte aligned rows (cuTile's `cumsum` of a bool array) took 8 one-byte
        loads a thread, tileiras one 8-byte load."""
        el = element_type(pointers.type)
        assert isinstance(el, PointerType)
        bits = best_vector(self.analysis, pointers) * element_bytes(el.pointee) * 8
        return AtomAttr(copy_atom(direction, max(8, bits)))


class LowerLoad(RewritePattern):
    def __init__(self, lowering: MemoryLowering):
        self.lowering = lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.LoadOp, rewriter: PatternRewriter) -> None:
        view, coords = self.lowering.view_of(op, op.ptr, rewriter)
        props: dict[str, Attribute] = {"atom": self.lowering.atom("load", op.ptr)}
        props.update(memory_properties(op))
        rank = len(shape_of(op.ptr.type))
        props["in_bounds"] = bool_array([op.mask is None] * rank)
        # A rank-0 access has no dimension to mark out of bounds (in_bounds is empty), so
        # its fallback cannot be a padding_value: it is selected where the mask is off.
        pad = fill_value_attr(op.other) if rank > 0 else None
        if op.mask is not None and pad is not None:
            props["padding_value"] = pad
        load = tas.TiledLoadOp.build(
            operands=[view, coords, [], _opt(op.token), _opt(op.mask)],
            result_types=[op.result.type, [op.result_token.type] if op.token is not None else []],
            properties=props,
        )
        rewriter.insert(load)
        result: SSAValue = load.result
        if op.other is not None and pad is None:
            # A fallback that is not one constant: select it where the mask is off.
            assert op.mask is not None
            select = ct.SelectOp.build_op([op.mask, result, op.other])
            rewriter.insert(select)
            result = select.results[0]
        token: SSAValue = (
            load.result_token if load.result_token is not None else fresh_token(rewriter)
        )
        rewriter.replace(op, [], [result, token])


class LowerStore(RewritePattern):
    def __init__(self, lowering: MemoryLowering):
        self.lowering = lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.StoreOp, rewriter: PatternRewriter) -> None:
        view, coords = self.lowering.view_of(op, op.ptr, rewriter)
        props: dict[str, Attribute] = {"atom": self.lowering.atom("store", op.ptr)}
        props.update(memory_properties(op))
        rank = len(shape_of(op.ptr.type))
        props["in_bounds"] = bool_array([op.mask is None] * rank)
        store = tas.TiledStoreOp.build(
            operands=[view, op.value, coords, [], _opt(op.token), _opt(op.mask)],
            result_types=[[op.result_token.type] if op.token is not None else []],
            properties=props,
        )
        rewriter.insert(store)
        token = store.result_token if store.result_token is not None else fresh_token(rewriter)
        rewriter.replace(op, [], [token])


RMW_MODES = {mode: RmwMode(mode.value) for mode in AtomicRMWMode}


def atomic_properties(op: aa.AtomicRmwOp | aa.AtomicCasOp) -> dict[str, Attribute]:
    """An atomic's order and scope: weak reads as relaxed, no scope as the device's."""
    sem = SEMANTICS[op.semantics()]
    return {
        "mem_semantic": MemSemanticAttr(MemSemantic.RELAXED if sem is MemSemantic.WEAK else sem),
        "mem_scope": MemScopeAttr(SCOPES[op.scope() or MemoryScope.DEVICE]),
    }


def _atomic_token(op: aa.AtomicRmwOp | aa.AtomicCasOp, rewriter: PatternRewriter) -> list[SSAValue]:
    """The token operand of the nv_tileas atomic: the nv_tileaa one, or a fresh token when
    there is none but the old token result is used (a token result needs an operand)."""
    if op.token is not None:
        return [op.token]
    return [fresh_token(rewriter)] if op.result_token.uses else []


def _replace_atomic(
    op: aa.AtomicRmwOp | aa.AtomicCasOp,
    new: tas.AtomicRmwOp | tas.AtomicCasOp,
    rewriter: PatternRewriter,
) -> None:
    new.location = op.location
    rewriter.insert(new)
    token = new.result_token if new.result_token is not None else fresh_token(rewriter)
    rewriter.replace(op, [], [new.result, token])


class LowerAtomicRmw(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.AtomicRmwOp, rewriter: PatternRewriter) -> None:
        token = _atomic_token(op, rewriter)
        props = atomic_properties(op)
        props["rmw_mode"] = RmwModeAttr(RMW_MODES[op.rmw_mode()])
        new = tas.AtomicRmwOp.build(
            operands=[op.ptr, op.value, _opt(op.mask), token],
            result_types=[op.result.type, [t.type for t in token]],
            properties=props,
        )
        _replace_atomic(op, new, rewriter)


class LowerAtomicCas(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.AtomicCasOp, rewriter: PatternRewriter) -> None:
        token = _atomic_token(op, rewriter)
        new = tas.AtomicCasOp.build(
            operands=[op.ptr, op.compare, op.value, _opt(op.mask), token],
            result_types=[op.result.type, [t.type for t in token]],
            properties=atomic_properties(op),
        )
        _replace_atomic(op, new, rewriter)


def _opt(v: SSAValue | None) -> list[SSAValue]:
    return [] if v is None else [v]


def mark_kernels(module: ModuleOp) -> None:
    """`func.func @k() attributes {nv_tileaa.kernel}` -> `{nv_tileas.kernel}`."""
    for fn in module.walk():
        if isinstance(fn, func.FuncOp) and TILEAA_KERNEL_ATTR in fn.attributes:
            fn.attributes = {
                KERNEL_ATTR if name == TILEAA_KERNEL_ATTR else name: value
                for name, value in fn.attributes.items()
            }


@dataclass(frozen=True)
class ConvertTileAAToTileASPass(ModulePass):
    """nv_tileaa loads and stores -> nv_tileas views and tiled loads/stores with atoms;
    atomics -> nv_tileas pointer atomics; shape, pointer and assume ops, prints,
    assertions, grid-dependency control, globals and the kernel marker -> their
    nv_tileas forms."""

    name = "convert-tileaa-to-tileas"

    #: The target whose CTA resources bound `nv_tileaa.execute` (seed 004).
    arch: str = "sm_90a"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_queues_and_agents(op, self.arch)
        lower_mem_tokens(op)
        lowering = MemoryLowering(AxisInfoAnalysis())
        LocatedWalker(
            TypeDispatch(
                [
                    LowerLoad(lowering),
                    LowerStore(lowering),
                    LowerAtomicRmw(),
                    LowerAtomicCas(),
                    *reduction_patterns(),
                    *shape_patterns(),
                    *pointer_patterns(),
                    *effect_patterns(),
                ],
            ),
            apply_recursively=False,
        ).rewrite_module(op)
        mark_kernels(op)
