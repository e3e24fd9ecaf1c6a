"""The compute family: MMA and region-bearing reductions (seed 003).

`dot` / `async.dot` multiply-accumulate with an MMA atom from the catalog (the atom's
operand element types must be those of a, b and the accumulator).  `reduce` and `scan`
combine elements along an axis with a region (two element arguments per operand: the
running value, then the next element; one yield per operand).  Their region bodies may
carry ordering-sensitive ops, so both are memory-consistency ops (seed 000).

`identities` (optional, one typed attribute per operand) holds each combinator's neutral
element, as cuda_tile's `reduce`/`scan` carry it: a reduce along a dimension of one element
combines it with the identity, and a scan starts from it.  The seed's ops do not list it;
`convert-tileaa-to-tileas` always sets it, so the lowering needs nothing from cuda_tile.

Over a pipeline iterator (seed 002 "Iterator Propagation") a reduce or scan that
collapses the stage dimension divides the iterator's `count` by `reduction_factor`
(default 1), which must divide it; the region still combines the payload's elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import ClassVar

from xdsl.dialects.builtin import I32, AnyFloat, ArrayAttr, BoolAttr, FloatAttr, IntegerAttr, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure, RecursiveMemoryEffect

from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileas.attributes import AtomAttr, AtomKind
from tileir.dialects.nv_tileas.foreign import AsyncValueType
from tileir.dialects.nv_tileas.interfaces import MemoryConsistencyOp
from tileir.dialects.nv_tileas.ops.base import TileASOp
from tileir.dialects.nv_tileas.syntax import bare_tile_syntax
from tileir.dialects.nv_tileas.types import PipelineIteratorType
from tileir.dialects.nv_tileas.verifiers import (
    DOT_ATOM,
    DOT_SHAPES,
    ITERATOR_REDUCTION_FACTOR,
    REDUCE_AXIS,
    REDUCE_IDENTITIES,
    REDUCE_REGION,
    fail,
)

#: On a block-scaled `nv_tileas.dot` (the scale groups along K, `K / G`): its scales
#: are the raw tiles of their pipeline stage's slots, whose bytes are already laid out
#: as `tcgen05.cp` copies them (`ScaleFactorBuffer`), not `[M, K/G]` and `[K/G, N]`:
#: the MMA warp copies them from the slots (`tileas-tcgen05-agents`).
COPIED_SCALES_ATTR = "nv_tileas.copied_scales"


def check_dot(
    op: Operation,
    atom: AtomAttr,
    a: Attribute,
    b: Attribute,
    acc: Attribute,
    result: Attribute,
    scales: tuple[Attribute, Attribute] | None = None,
) -> None:
    info = atom.info
    if info.kind is not AtomKind.MMA:
        raise fail(op, f"needs an MMA atom, got '{info.name}' ({info.kind.value})")
    types = (element_type(a), element_type(b), element_type(acc))
    if info.operands is not None and tuple(str(t) for t in types) != info.operands:
        raise fail(
            op,
            f"atom '{info.name}' multiplies {info.operands[0]} x {info.operands[1]} into {info.operands[2]}, "
            f"not {types[0]} x {types[1]} into {types[2]}",
        )
    if info.operands is None and not all(isinstance(t, AnyFloat) for t in types):
        raise fail(
            op,
            f"atom '{info.name}' multiplies floats, not {types[0]} x {types[1]} into {types[2]}",
        )
    sa, sb, sc = shape_of(a), shape_of(b), shape_of(acc)
    batch = sa[:-2] if len(sa) == 3 else ()
    if (
        len(sa) not in (2, 3)
        or len(sb) != len(sa)
        or len(sc) != len(sa)
        or sa[-1] != sb[-2]
        or (*batch, sa[-2], sb[-1]) != tuple(sc)
        or tuple(sb[:-2]) != batch
    ):
        raise fail(op, f"expects a: MxK, b: KxN, acc: MxN, got {list(sa)}, {list(sb)}, {list(sc)}")
    if result != acc:
        raise fail(op, f"result type {result} must be the accumulator type {acc}")
    if (info.block_scale is not None) != (scales is not None):
        raise fail(
            op,
            f"atom '{info.name}' takes the scales of a and b"
            if info.block_scale is not None
            else f"atom '{info.name}' is not block-scaled: no scales",
        )
    if scales is not None and info.block_scale is not None:
        ta, tb = scales
        ga = shape_of(ta)[-1] if shape_of(ta) else 0
        scale = {"ue8m0": "f8E8M0FNU", "ue4m3": "f8E4M3FN"}[info.block_scale[2]]
        copied = op.attributes.get(COPIED_SCALES_ATTR)
        if isinstance(copied, IntegerAttr):
            # Raw slot tiles (`COPIED_SCALES_ATTR`): as many factors as `[M, K/G]`, `[K/G, N]`.
            g = copied.value.data
            if (
                g <= 0
                or sa[-1] % g
                or prod(shape_of(ta)) != sa[-2] * g
                or prod(shape_of(tb)) != g * sb[-1]
                or any(str(element_type(t)) != scale for t in scales)
            ):
                raise fail(op, f"copied scales {ta}, {tb} are not {g} groups of {scale}")
            return
        if (
            not ga
            or sa[-1] % ga
            or tuple(shape_of(ta)) != (*batch, sa[-2], ga)
            or tuple(shape_of(tb)) != (*batch, ga, sb[-1])
            or any(str(element_type(t)) != scale for t in scales)
        ):
            raise fail(
                op,
                f"scales {ta}, {tb} are not MxK/G and K/G x N {scale} for a: {list(sa)}, "
                f"b: {list(sb)}",
            )


@bare_tile_syntax
@irdl_op_definition
class DotOp(TileASOp):
    """`%d = nv_tileas.dot %a, %b, %acc {atom = #nv_tileas<atom mma_f16_f16_f32>} : tile<128x128xf16>, tile<128x128xf16>, tile<128x128xf32> -> tile<128x128xf32>`

    `acc + a x b` with the MMA atom (rank 2, or rank 3 with a leading batch
    dimension: one product per matrix of the batch).  The atom names the engine and
    the instruction: `mma.sync` (`mma_*`), `wgmma` (`wgmma_m64n{N}k{K}_*`, computed
    and waited for here) or the CUDA cores (`fma*`); `tileas-select-dot-atoms` chooses
    it and `convert-tileas-to-llvm` follows it.  A block-scaled atom
    (`tcgen05_mma_mxf8f6f4_*`, `tcgen05_mma_mxf4*_e2m1_*` on i8 tiles of e2m1 pairs,
    K counted in bytes; sm_100a) takes the scale factors of a and b too:
    `nv_tileas.dot %a, %b, %acc scales %sa, %sb {atom = ...} : ta, tb, tacc scales tsa,
    tsb -> tresult`, `acc + (a * sa') x (b * sb')` with each factor of `sa` (`[M, K/G]`)
    over `G` columns of K of a, of `sb` (`[K/G, N]`) over `G` rows of b.  With
    `nv_tileas.copied_scales = K/G` (a warp-specialized MMA warp's dot,
    `tileas-tcgen05-agents`) the scales are the raw tiles of their pipeline slots, whose
    bytes are laid out as `tcgen05.cp` copies them: as many factors, any shape."""

    name = "nv_tileas.dot"
    a = operand_def()
    b = operand_def()
    acc = operand_def()
    a_scale = opt_operand_def()
    b_scale = opt_operand_def()
    atom = prop_def(AtomAttr)
    result = result_def()
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    traits = traits_def(Pure())
    assembly_format = (
        "$a `,` $b `,` $acc (`scales` $a_scale^ `,` $b_scale)? attr-dict `:` type($a) `,` "
        "type($b) `,` type($acc) (`scales` type($a_scale)^ `,` type($b_scale))? `->` "
        "type($result)"
    )
    RULES: ClassVar[tuple[str, ...]] = (DOT_ATOM, DOT_SHAPES)

    def __init__(
        self,
        a: SSAValue,
        b: SSAValue,
        acc: SSAValue,
        atom: AtomAttr,
        scales: tuple[SSAValue, SSAValue] | None = None,
    ):
        sa, sb = ([scales[0]], [scales[1]]) if scales is not None else ([], [])
        super().__init__(
            operands=[a, b, acc, sa, sb], result_types=[acc.type], properties={"atom": atom}
        )

    @property
    def scales(self) -> tuple[SSAValue, SSAValue] | None:
        """The scale factors of a block-scaled dot (a's, b's), else None."""
        if self.a_scale is None or self.b_scale is None:
            return None
        return self.a_scale, self.b_scale

    def verify_(self) -> None:
        scales = self.scales
        types = (scales[0].type, scales[1].type) if scales is not None else None
        if (self.a_scale is None) != (self.b_scale is None):
            raise fail(self, "a block-scaled dot takes the scales of both a and b")
        check_dot(self, self.atom, self.a.type, self.b.type, self.acc.type, self.result.type, types)


@bare_tile_syntax
@irdl_op_definition
class AsyncDotOp(TileASOp):
    """`%f = nv_tileas.async.dot %a, %b, %acc {atom = #nv_tileas<atom wgmma_f16_f16_f32>} : tile<64x16xf16>, tile<16x128xf16>, tile<64x128xf32> -> !async.value<tile<64x128xf32>>`

    `dot` completing asynchronously (wgmma): a future of the accumulator."""

    name = "nv_tileas.async.dot"
    a = operand_def()
    b = operand_def()
    acc = operand_def()
    atom = prop_def(AtomAttr)
    result = result_def(AsyncValueType)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryConsistencyOp())
    assembly_format = (
        "$a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc) `->` type($result)"
    )
    RULES: ClassVar[tuple[str, ...]] = (DOT_ATOM, DOT_SHAPES)

    def __init__(self, a: SSAValue, b: SSAValue, acc: SSAValue, atom: AtomAttr):
        super().__init__(
            operands=[a, b, acc], result_types=[AsyncValueType(acc.type)], properties={"atom": atom}
        )

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, AsyncValueType)
        check_dot(self, self.atom, self.a.type, self.b.type, self.acc.type, t.value_type)


def _payload(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, PipelineIteratorType) else t


class AxisRegionOp(TileASOp):
    """Shared pieces of reduce and scan."""

    inputs = var_operand_def()
    axis = prop_def(IntegerAttr[I32])
    identities = opt_prop_def(ArrayAttr)
    reduction_factor = opt_prop_def(IntegerAttr[I32])
    outputs = var_result_def()
    body = region_def("single_block")
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryConsistencyOp(), RecursiveMemoryEffect())
    assembly_format = "$inputs attr-dict `:` type($inputs) `->` type($outputs) $body"
    RULES: ClassVar[tuple[str, ...]] = (
        REDUCE_REGION,
        REDUCE_AXIS,
        REDUCE_IDENTITIES,
        ITERATOR_REDUCTION_FACTOR,
    )

    KEEPS_SHAPE: ClassVar[bool] = False

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        axis: int,
        result_types: Sequence[Attribute],
        body: Sequence[Operation] | None = None,
        *,
        identities: Sequence[Attribute] | None = None,
        reduction_factor: int | None = None,
        region: Region | None = None,
    ):
        """`region` (already holding the body, arguments in this op's order) is taken
        as it is; otherwise a block of the right arguments is made around `body`."""
        if region is None:
            elements = [element_type(_payload(v.type)) for v in inputs]
            block = Block(arg_types=[*elements, *elements])
            if body is not None:
                block.add_ops(body)
            region = Region(block)
        props: dict[str, Attribute] = {"axis": IntegerAttr(axis, i32)}
        if identities is not None:
            props["identities"] = ArrayAttr(identities)
        if reduction_factor is not None:
            props["reduction_factor"] = IntegerAttr(reduction_factor, i32)
        super().__init__(
            operands=[list(inputs)],
            result_types=[list(result_types)],
            regions=[region],
            properties=props,
        )

    @property
    def dimension(self) -> int:
        """The axis combined along."""
        return self.axis.value.data

    def verify_(self) -> None:
        if len(self.outputs) != len(self.inputs) or not self.inputs:
            raise self.op_error(
                f"needs one result per operand, got {len(self.inputs)} operands and {len(self.outputs)} results"
            )
        axis = self.axis.value.data
        factor = self.reduction_factor.value.data if self.reduction_factor is not None else 1
        elements: list[Attribute] = []
        for value, result in zip(self.inputs, self.outputs, strict=True):
            operand_t, result_t = value.type, result.type
            if isinstance(operand_t, PipelineIteratorType):
                if not isinstance(result_t, PipelineIteratorType):
                    raise self.op_error(
                        f"reducing iterator {operand_t} must give an iterator, got {result_t}"
                    )
                count = operand_t.stage_count
                if factor < 1 or (count is not None and count % factor):
                    raise self.op_error(
                        f"reduction factor {factor} does not divide the iterator count {count}"
                    )
                want_count = operand_t.count.data if count is None else count // factor
                if (
                    result_t.count.data,
                    result_t.stride,
                    result_t.address_space,
                    result_t.kind,
                ) != (want_count, operand_t.stride, operand_t.address_space, operand_t.kind):
                    raise self.op_error(
                        f"result iterator {result_t} must have count {want_count} and the "
                        "operand's stride, space and side"
                    )
            shape = list(shape_of(_payload(operand_t)))
            if not 0 <= axis < len(shape):
                raise self.op_error(f"axis {axis} is out of range for rank {len(shape)}")
            want = shape if self.KEEPS_SHAPE else shape[:axis] + shape[axis + 1 :]
            el = element_type(_payload(operand_t))
            if list(shape_of(_payload(result_t))) != want or element_type(_payload(result_t)) != el:
                raise self.op_error(
                    f"result {result_t} must have shape {want} and element type {el}"
                )
            elements.append(el)
        if self.identities is not None:
            self.verify_identities(elements)
        block = self.body.block
        if [a.type for a in block.args] != [*elements, *elements]:
            raise self.op_error(
                f"region must take ({', '.join(str(e) for e in [*elements, *elements])}): the running "
                "values, then the next elements"
            )
        last = block.last_op
        yielded = [v.type for v in last.operands] if last is not None else []
        if yielded != elements:
            raise self.op_error(f"region must yield ({', '.join(str(e) for e in elements)})")

    def verify_identities(self, elements: Sequence[Attribute]) -> None:
        assert self.identities is not None
        given = self.identities.data
        if len(given) != len(elements):
            raise self.op_error(
                f"needs one identity per operand, got {len(given)} for {len(elements)} operands"
            )
        for i, (identity, el) in enumerate(zip(given, elements, strict=True)):
            if not isinstance(identity, IntegerAttr | FloatAttr) or identity.type != el:
                raise self.op_error(f"identity #{i} must be a {el} value, got {identity}")


@bare_tile_syntax
@irdl_op_definition
class ReduceOp(AxisRegionOp):
    """`%r = nv_tileas.reduce %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32> { ^bb0(%acc : f32, %v : f32): %s = arith.addf %acc, %v : f32  nv_tileas.yield %s : f32 }`

    Combines the elements along `axis` with the region; the axis disappears."""

    name = "nv_tileas.reduce"


@bare_tile_syntax
@irdl_op_definition
class ScanOp(AxisRegionOp):
    """`%r = nv_tileas.scan %x {axis = 0 : i32, reverse = false} : tensor<8xf32> -> tensor<8xf32> { ^bb0(%acc : f32, %v : f32): ... nv_tileas.yield %s : f32 }`

    Inclusive prefix combination along `axis` (from the end with `reverse = true`)."""

    name = "nv_tileas.scan"
    reverse = opt_prop_def(BoolAttr)
    KEEPS_SHAPE: ClassVar[bool] = True

    @property
    def is_reverse(self) -> bool:
        """Does the scan run from the end of the axis?"""
        return self.reverse is not None and bool(self.reverse.value.data)


COMPUTE_OPS: list[type[TileASOp]] = [DotOp, AsyncDotOp, ReduceOp, ScanOp]
