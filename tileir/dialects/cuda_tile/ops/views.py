"""View ops (NVIDIA group Views): describe global memory as tensor_views, tile them
with partition, strided or gather/scatter views, and load and store tiles through
views."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i1
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure

from tileir.dialects.cuda_tile.attributes import (
    OptimizationHintsAttr,
    parse_optimization_hints_body,
    print_optimization_hints_body,
)
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.ops.base import (
    INTEGER,
    POINTER,
    CudaTileOp,
    check_tile_of,
    check_type,
)
from tileir.dialects.cuda_tile.ops.memory import (
    LOAD_ORDERINGS,
    STORE_ORDERINGS,
    TOKEN_TYPE,
    check_memory_model,
    parse_memory_attributes,
    print_memory_attributes,
    verify_hints,
)
from tileir.dialects.cuda_tile.syntax import (
    AsmFormat,
    parse_cuda_tile_type,
    parse_operand_list,
    print_attr_dict,
    print_cuda_tile_type,
)
from tileir.dialects.cuda_tile.types import (
    DYNAMIC,
    GatherScatterViewType,
    PartitionViewType,
    PointerType,
    StridedViewType,
    TensorViewType,
    TileType,
    TileViewType,
    TokenType,
    is_tile_view,
)

# ---------------------------------------------------------------------------
# make_tensor_view
# ---------------------------------------------------------------------------


@irdl_op_definition
class MakeTensorViewOp(CudaTileOp):
    """`%base, shape = [N|%d, ...], strides = [N|%d, ...] : [I ->] tensor_view<...>`.

    A strided view of global memory starting at `base`; dynamic extents and strides
    (`?` in the type) come from operands, all of one integer type `I`."""

    name = "cuda_tile.make_tensor_view"
    SYNTAX: ClassVar[str] = (
        "%base, shape = [N|%n, ...], strides = [N|%s, ...] [{attrs}] : [I ->] tensor_view<...>"
    )
    GROUP: ClassVar[str] = "Views"
    base = operand_def()
    dynamic_shape = var_operand_def()
    dynamic_strides = var_operand_def()
    result = result_def(TensorViewType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def asm_result_names(self) -> Sequence[str | None]:
        return ("tview",)

    @property
    def view_type(self) -> TensorViewType:
        t = self.result.type
        assert isinstance(t, TensorViewType)
        return t

    def shape_values(self) -> list[int | SSAValue]:
        """Each extent: a static int or the dynamic operand."""
        return _mix(self.view_type.dims, self.dynamic_shape)

    def stride_values(self) -> list[int | SSAValue]:
        return _mix(self.view_type.stride_values, self.dynamic_strides)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.base)

        def mixed(values: list[int | SSAValue]) -> None:
            for i, v in enumerate(values):
                if i:
                    printer.print_string(", ")
                if isinstance(v, int):
                    printer.print_string(str(v))
                else:
                    printer.print_operand(v)

        printer.print_string(", shape = [")
        mixed(self.shape_values())
        printer.print_string("], strides = [")
        mixed(self.stride_values())
        printer.print_string("]")
        print_attr_dict(printer, self.attributes, ())
        printer.print_string(" : ")
        dynamic = [*self.dynamic_shape, *self.dynamic_strides]
        if dynamic:
            print_cuda_tile_type(printer, dynamic[0].type)
            printer.print_string(" -> ")
        print_cuda_tile_type(printer, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> MakeTensorViewOp:
        base = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")

        def mixed_list() -> tuple[list[tuple[int, int]], list[UnresolvedOperand], int]:
            pos = parser.pos
            elems: list[tuple[int, int]] = []
            dyn: list[UnresolvedOperand] = []

            def elem() -> None:
                p = parser.pos
                if (v := parser.parse_optional_integer(allow_boolean=False)) is not None:
                    elems.append((v, p))
                    return
                if (o := parser.parse_optional_unresolved_operand()) is not None:
                    dyn.append(o)
                    elems.append((DYNAMIC, p))
                    return
                parser.raise_error("expected either integer or SSA value")

            parser.parse_comma_separated_list(parser.Delimiter.SQUARE, elem)
            return elems, dyn, pos

        parser.parse_keyword("shape")
        parser.parse_punctuation("=")
        shape, dyn_shape, shape_pos = mixed_list()
        parser.parse_punctuation(",")
        parser.parse_keyword("strides")
        parser.parse_punctuation("=")
        strides, dyn_strides, stride_pos = mixed_list()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        index_type: Attribute | None = None
        if dyn_shape or dyn_strides:
            index_type = parse_cuda_tile_type(parser)
            parser.parse_punctuation("->")
        tv_pos = parser.pos
        tv = parse_cuda_tile_type(parser)
        if not isinstance(tv, TensorViewType):
            parser.raise_error(f"expected 'tensor_view' type, but got '{tv}'", tv_pos, parser.pos)

        def compare(
            from_ops: list[tuple[int, int]], from_type: Sequence[int], where: int, name: str
        ) -> None:
            if len(from_ops) != len(from_type):
                parser.raise_error(
                    f"expected {name} declaration to contain {len(from_type)} elements due to "
                    f"tensor_view type, but {len(from_ops)} were provided",
                    where,
                    where + 1,
                )
            for i, ((v, p), t) in enumerate(zip(from_ops, from_type, strict=True)):
                if v != t:
                    show = lambda x: "dynamic" if x == DYNAMIC else str(x)  # noqa: E731
                    parser.raise_error(
                        f"input {name} dimension {i} does not match tensor_view type "
                        f"(expected {show(t)}, got {show(v)})",
                        p,
                        p + 1,
                    )

        compare(shape, tv.dims, shape_pos, "shape")
        compare(strides, tv.stride_values, stride_pos, "stride")
        base_value = parser.resolve_operand(base, TileType([], PointerType(tv.element_type)))
        dyn_values = [parser.resolve_operand(o, index_type) for o in (*dyn_shape, *dyn_strides)]  # pyright: ignore[reportArgumentType]
        return cls.build(
            operands=[base_value, dyn_values[: len(dyn_shape)], dyn_values[len(dyn_shape) :]],
            result_types=[tv],
            attributes=attrs,
        )

    def verify_(self) -> None:
        tv = self.view_type
        check_tile_of(self, self.base, "operand #0", POINTER, rank=0)
        dynamic = [*self.dynamic_shape, *self.dynamic_strides]
        for i, v in enumerate(dynamic):
            check_tile_of(self, v, f"operand #{i + 1}", INTEGER, rank=0, variadic=True)
        base_el = element_type(self.base.type)
        assert isinstance(base_el, PointerType)
        if base_el.pointee != tv.element_type:
            raise self.op_error(
                f"expected pointer to '{tv.element_type}' to build tensor_view of this type, "
                f"got '{base_el.pointee}'"
            )
        n_shape = sum(1 for d in tv.dims if d == DYNAMIC)
        n_strides = sum(1 for s in tv.stride_values if s == DYNAMIC)
        if n_shape != len(self.dynamic_shape):
            raise self.op_error(
                f"expected {n_shape} dynamic shape operands, got {len(self.dynamic_shape)}"
            )
        if n_strides != len(self.dynamic_strides):
            raise self.op_error(
                f"expected {n_strides} dynamic stride operands, got {len(self.dynamic_strides)}"
            )
        for kind, values in (("shape", self.dynamic_shape), ("stride", self.dynamic_strides)):
            for i, v in enumerate(values):
                if v.type != dynamic[0].type:
                    raise self.op_error(
                        f"expected dynamic {kind} index {i} to be of the same type as the "
                        f"other dynamic values ('{dynamic[0].type}'), got '{v.type}'"
                    )


def _mix(static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[int | SSAValue]:
    it = iter(dynamic)
    return [next(it) if v == DYNAMIC else v for v in static]


# ---------------------------------------------------------------------------
# make_partition_view / make_strided_view / make_gather_scatter_view
# ---------------------------------------------------------------------------


class MakeViewOp(CudaTileOp):
    """`%tensor_view : VIEW`: a tile view over a tensor_view (the view type says how
    it is tiled)."""

    GROUP: ClassVar[str] = "Views"
    VIEW_TYPE: ClassVar[type[Attribute]]
    RESULT_NAME: ClassVar[str]

    tensor_view = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def asm_result_names(self) -> Sequence[str | None]:
        return (self.RESULT_NAME,)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tensor_view)
        print_attr_dict(printer, self.attributes, ())
        printer.print_string(" : ")
        print_cuda_tile_type(printer, self.result.type)

    @classmethod
    def parse(cls, parser: Parser):
        tv = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parse_cuda_tile_type(parser)
        if not isinstance(t, cls.VIEW_TYPE):
            mnemonic = cls.VIEW_TYPE.name.split(".", 1)[1]  # pyright: ignore[reportAttributeAccessIssue]
            parser.raise_error(f"expected '{mnemonic}' type, but got '{t}'", pos, parser.pos)
        assert isinstance(t, TileViewType)
        return cls.create(
            operands=[parser.resolve_operand(tv, t.view_tensor)],
            result_types=[t],
            attributes=attrs,
        )

    def verify_(self) -> None:
        tv_type = self.tensor_view.type
        check_type(
            self,
            self.tensor_view,
            "operand #0",
            "tensor view type",
            isinstance(tv_type, TensorViewType),
        )
        view = self.result.type
        mnemonic = self.VIEW_TYPE.name.split(".", 1)[1]  # pyright: ignore[reportAttributeAccessIssue]
        check_type(
            self, self.result, "result #0", f"{mnemonic} type", isinstance(view, self.VIEW_TYPE)
        )
        assert isinstance(view, TileViewType)
        if tv_type != view.view_tensor:
            raise self.op_error(
                f"expected the type of the provided tensor_view value ({tv_type}) to be the "
                f"same as the view's tensor_view type ({view.view_tensor})"
            )


@irdl_op_definition
class MakePartitionViewOp(MakeViewOp):
    """`%tensor_view : partition_view<...>`: tiles the tensor_view in a grid."""

    name = "cuda_tile.make_partition_view"
    SYNTAX: ClassVar[str] = "%tensor_view [{attrs}] : partition_view<...>"
    VIEW_TYPE: ClassVar = PartitionViewType
    RESULT_NAME: ClassVar = "pview"

    @property
    def view_type(self) -> PartitionViewType:
        t = self.result.type
        assert isinstance(t, PartitionViewType)
        return t


@irdl_op_definition
class MakeStridedViewOp(MakeViewOp):
    """`%tensor_view : strided_view<...>` (13.3): tiles placed `traversal_strides`
    elements apart."""

    name = "cuda_tile.make_strided_view"
    SYNTAX: ClassVar[str] = "%tensor_view [{attrs}] : strided_view<...>"
    SINCE: ClassVar[str] = "13.3"
    VIEW_TYPE: ClassVar = StridedViewType
    RESULT_NAME: ClassVar = "sview"


@irdl_op_definition
class MakeGatherScatterViewOp(MakeViewOp):
    """`%tensor_view : gather_scatter_view<...>` (13.3): tiles whose rows along
    `sparse_dim` are gathered from (or scattered to) given offsets."""

    name = "cuda_tile.make_gather_scatter_view"
    SYNTAX: ClassVar[str] = "%tensor_view [{attrs}] : gather_scatter_view<...>"
    SINCE: ClassVar[str] = "13.3"
    VIEW_TYPE: ClassVar = GatherScatterViewType
    RESULT_NAME: ClassVar = "gsview"


# ---------------------------------------------------------------------------
# load_view_tko / store_view_tko
# ---------------------------------------------------------------------------


def view_tile_type(view: Attribute) -> TileType:
    """The tile a view yields per index."""
    assert isinstance(view, TileViewType)
    return view.view_tile_type()


def view_index_rank(view: Attribute) -> int:
    assert isinstance(view, TileViewType)
    return view.index_rank


def _print_view_access_tail(printer: Printer, op: CudaTileOp, token: SSAValue | None) -> None:
    if token is not None:
        printer.print_string(" token = ")
        printer.print_operand(token)
    hints = op.properties.get("optimization_hints")
    if isinstance(hints, OptimizationHintsAttr):
        printer.print_string(" optimization_hints = ")
        print_optimization_hints_body(printer, hints)
    inbounds = op.properties.get("inbounds")
    if isinstance(inbounds, DenseArrayBase) and any(inbounds.get_values()):
        flags = ", ".join("true" if v else "false" for v in inbounds.get_values())
        printer.print_string(f" inbounds = [{flags}]")
    AsmFormat(printer).attr_dict_with_keyword(op)


def print_index_types(printer: Printer, indices: Sequence[SSAValue]) -> None:
    if not indices:
        return
    types = [i.type for i in indices]
    if all(t == types[0] for t in types):
        printer.print_string(", ")
        print_cuda_tile_type(printer, types[0])
    else:
        for t in types:
            printer.print_string(", ")
            print_cuda_tile_type(printer, t)


def _parse_view_access_tail(
    parser: Parser, props: dict[str, Attribute]
) -> tuple[UnresolvedOperand | None, dict[str, Attribute]]:
    token = None
    if parser.parse_optional_keyword("token") is not None:
        parser.parse_punctuation("=")
        token = parser.parse_unresolved_operand()
    if parser.parse_optional_keyword("optimization_hints") is not None:
        parser.parse_punctuation("=")
        props["optimization_hints"] = OptimizationHintsAttr(parse_optimization_hints_body(parser))
    if parser.parse_optional_keyword("inbounds") is not None:
        parser.parse_punctuation("=")
        flags = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_boolean)
        props["inbounds"] = bool_dense_array(flags)
    attrs = parser.parse_optional_attr_dict_with_keyword()
    return token, (dict(attrs.data) if attrs is not None else {})


def parse_index_types(parser: Parser, n: int) -> list[Attribute]:
    types: list[Attribute] = []
    if parser.parse_optional_punctuation(","):
        pos = parser.pos
        types.append(parse_cuda_tile_type(parser))
        while parser.parse_optional_punctuation(","):
            types.append(parse_cuda_tile_type(parser))
        if len(types) == 1:
            types = types * n
        elif len(types) != n:
            parser.raise_error(f"expected {n} index types, got {len(types)}", pos, parser.pos)
    elif n:
        parser.raise_error("index types must be specified when indices are present")
    return types


def bool_dense_array(flags: Sequence[bool]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i1, [1 if f else 0 for f in flags])


class ViewAccessOp(CudaTileOp):
    """Shared verification of load_view_tko / store_view_tko.

    `inbounds` (bytecode 13.4) promises, per index dimension, that the accessed tile
    lies inside the tensor_view, so no bounds check is needed along it."""

    GROUP: ClassVar[str] = "Views"

    def inbounds_flags(self) -> tuple[bool, ...]:
        attr = self.properties.get("inbounds")
        if isinstance(attr, DenseArrayBase):
            return tuple(bool(v) for v in attr.get_values())
        return ()

    def check_view_access(
        self,
        view: SSAValue,
        index: Sequence[SSAValue],
        tile: SSAValue,
        token: SSAValue | None,
        view_position: int,
    ) -> None:
        """NVIDIA's checks, in ODS order: operand and result types, then the index
        count, the tile type and the index types against the view."""
        vt = view.type
        check_type(self, view, f"operand #{view_position}", "TileView instance", is_tile_view(vt))
        first_index = 1 if view_position == 0 else 2
        for i, idx in enumerate(index):
            check_tile_of(self, idx, f"operand #{first_index + i}", INTEGER, variadic=True)
        if token is not None:
            check_type(
                self,
                token,
                f"operand #{first_index + len(index)}",
                TOKEN_TYPE,
                isinstance(token.type, TokenType),
            )
        for i, r in enumerate(self.results):
            if isinstance(r.type, TokenType) or i == len(self.results) - 1:
                check_type(self, r, f"result #{i}", TOKEN_TYPE, isinstance(r.type, TokenType))
        assert isinstance(vt, TileViewType)
        if len(index) != vt.index_rank:
            raise self.op_error(
                f"expected {vt.index_rank} index operands (based on view type), got {len(index)}"
            )
        expected = vt.view_tile_type()
        if tile.type != expected:
            raise self.op_error(
                f"expected tile type to be '{expected}' (based on view type), got '{tile.type}'"
            )
        problem = vt.verify_indices([i.type for i in index])
        if problem is not None:
            raise self.op_error(problem)
        verify_hints(self)


@irdl_op_definition
class LoadViewTkoOp(ViewAccessOp):
    """`SEM [SCOPE] %view[%i, ...] [token = %t] : VIEW, I -> T, token`.

    Loads the tile at index `(i, ...)` of the view.  Elements outside the tensor_view
    read the view's padding value."""

    name = "cuda_tile.load_view_tko"
    SYNTAX: ClassVar[str] = (
        "SEM [SCOPE] %view[%i, ...] [token = %t] [optimization_hints = <...>] [attributes {attrs}] : VIEW, I -> T, token"
    )
    memory_ordering_semantics = prop_def(IntegerAttr)
    memory_scope = opt_prop_def(IntegerAttr)
    optimization_hints = opt_prop_def(OptimizationHintsAttr)
    inbounds = opt_prop_def(DenseArrayBase)
    view = operand_def()
    index = var_operand_def()
    token = opt_operand_def()
    tile = result_def()
    result_token = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def asm_result_names(self) -> Sequence[str | None]:
        return ("tile", "result_token")

    def print(self, printer: Printer) -> None:
        print_memory_attributes(printer, self.properties)
        printer.print_string(" ")
        printer.print_operand(self.view)
        printer.print_string("[")
        printer.print_list(self.index, printer.print_operand)
        printer.print_string("]")
        _print_view_access_tail(printer, self, self.token)
        printer.print_string(" : ")
        print_cuda_tile_type(printer, self.view.type)
        print_index_types(printer, self.index)
        printer.print_string(" -> ")
        print_cuda_tile_type(printer, self.tile.type)
        printer.print_string(", ")
        print_cuda_tile_type(printer, self.result_token.type)

    @classmethod
    def parse(cls, parser: Parser) -> LoadViewTkoOp:
        props: dict[str, Attribute] = {}
        parse_memory_attributes(parser, props)
        view = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        index = parse_operand_list(parser)
        parser.parse_punctuation("]")
        token, attrs = _parse_view_access_tail(parser, props)
        parser.parse_punctuation(":")
        view_t = parse_cuda_tile_type(parser)
        index_types = parse_index_types(parser, len(index))
        parser.parse_punctuation("->")
        tile_t = parse_cuda_tile_type(parser)
        parser.parse_punctuation(",")
        token_t = parse_cuda_tile_type(parser)
        return cls.build(
            operands=[
                parser.resolve_operand(view, view_t),
                [parser.resolve_operand(o, t) for o, t in zip(index, index_types, strict=True)],
                [] if token is None else [parser.resolve_operand(token, TokenType())],
            ],
            result_types=[tile_t, token_t],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        self.check_view_access(self.view, self.index, self.tile, self.token, 0)
        check_memory_model(self, LOAD_ORDERINGS, "load")


@irdl_op_definition
class StoreViewTkoOp(ViewAccessOp):
    """`SEM [SCOPE] %tile, %view[%i, ...] [token = %t] : T, VIEW, I -> token`.

    Stores the tile at index `(i, ...)`; elements outside the tensor_view are not
    written."""

    name = "cuda_tile.store_view_tko"
    SYNTAX: ClassVar[str] = (
        "SEM [SCOPE] %tile, %view[%i, ...] [token = %t] [optimization_hints = <...>] [attributes {attrs}] : T, VIEW, I -> token"
    )
    memory_ordering_semantics = prop_def(IntegerAttr)
    memory_scope = opt_prop_def(IntegerAttr)
    optimization_hints = opt_prop_def(OptimizationHintsAttr)
    inbounds = opt_prop_def(DenseArrayBase)
    tile = operand_def()
    view = operand_def()
    index = var_operand_def()
    token = opt_operand_def()
    result_token = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def print(self, printer: Printer) -> None:
        print_memory_attributes(printer, self.properties)
        printer.print_string(" ")
        printer.print_operand(self.tile)
        printer.print_string(", ")
        printer.print_operand(self.view)
        printer.print_string("[")
        printer.print_list(self.index, printer.print_operand)
        printer.print_string("]")
        _print_view_access_tail(printer, self, self.token)
        printer.print_string(" : ")
        print_cuda_tile_type(printer, self.tile.type)
        printer.print_string(", ")
        print_cuda_tile_type(printer, self.view.type)
        print_index_types(printer, self.index)
        printer.print_string(" -> ")
        print_cuda_tile_type(printer, self.result_token.type)

    @classmethod
    def parse(cls, parser: Parser) -> StoreViewTkoOp:
        props: dict[str, Attribute] = {}
        parse_memory_attributes(parser, props)
        tile = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        view = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        index = parse_operand_list(parser)
        parser.parse_punctuation("]")
        token, attrs = _parse_view_access_tail(parser, props)
        parser.parse_punctuation(":")
        tile_t = parse_cuda_tile_type(parser)
        parser.parse_punctuation(",")
        view_t = parse_cuda_tile_type(parser)
        index_types = parse_index_types(parser, len(index))
        parser.parse_punctuation("->")
        token_t = parse_cuda_tile_type(parser)
        return cls.build(
            operands=[
                parser.resolve_operand(tile, tile_t),
                parser.resolve_operand(view, view_t),
                [parser.resolve_operand(o, t) for o, t in zip(index, index_types, strict=True)],
                [] if token is None else [parser.resolve_operand(token, TokenType())],
            ],
            result_types=[token_t],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        self.check_view_access(self.view, self.index, self.tile, self.token, 1)
        check_memory_model(self, STORE_ORDERINGS, "store")


# ---------------------------------------------------------------------------
# Shapes of views.
# ---------------------------------------------------------------------------


class ShapeQueryOp(CudaTileOp):
    """`%src : V -> T`, one rank-0 integer result per dimension."""

    src = operand_def()
    res = var_result_def()
    traits = traits_def(Pure())

    def expected_rank(self) -> int:
        raise NotImplementedError

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        printer.print_string(" : ")
        print_cuda_tile_type(printer, self.src.type)
        printer.print_string(" -> ")
        print_cuda_tile_type(printer, self.res[0].type)

    @classmethod
    def parse(cls, parser: Parser) -> ShapeQueryOp:
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        pos = parser.pos
        src_t = parse_cuda_tile_type(parser)
        parser.parse_punctuation("->")
        res_t = parse_cuda_tile_type(parser)
        rank = cls.rank_of(parser, src_t, pos)
        return cls.create(
            operands=[parser.resolve_operand(src, src_t)], result_types=[res_t] * rank
        )

    @classmethod
    def rank_of(cls, parser: Parser, t: Attribute, pos: int) -> int:
        raise NotImplementedError

    def verify_(self) -> None:
        self.check_source()
        for i, r in enumerate(self.res):
            check_tile_of(self, r, f"result #{i}", INTEGER, rank=0, variadic=True)
        rank = self.expected_rank()
        if len(self.res) != rank:
            raise self.op_error(
                f"expected {rank} results due to {self.RANK_REASON}, but got {len(self.res)}"
            )

    def check_source(self) -> None:
        raise NotImplementedError

    RANK_REASON: ClassVar = "view index space rank"
    GROUP: ClassVar[str] = "Views"


@irdl_op_definition
class GetIndexSpaceShapeOp(ShapeQueryOp):
    """The number of tiles of a view along each index dimension."""

    name = "cuda_tile.get_index_space_shape"
    SYNTAX: ClassVar[str] = "%view [{attrs}] : VIEW -> tile<iN>  (one result per index dimension)"

    def expected_rank(self) -> int:
        return view_index_rank(self.src.type)

    def check_source(self) -> None:
        check_type(self, self.src, "operand #0", "TileView instance", is_tile_view(self.src.type))

    @classmethod
    def rank_of(cls, parser: Parser, t: Attribute, pos: int) -> int:
        if not isinstance(t, TileViewType):
            parser.raise_error(f"expected tile view, got '{t}'", pos, parser.pos)
        return t.index_rank


@irdl_op_definition
class GetTensorShapeOp(ShapeQueryOp):
    """The extents of a tensor_view."""

    name = "cuda_tile.get_tensor_shape"
    SYNTAX: ClassVar[str] = (
        "%tensor_view [{attrs}] : tensor_view<...> -> tile<iN>  (one result per dimension)"
    )
    RANK_REASON: ClassVar = "tensor rank"

    def expected_rank(self) -> int:
        t = self.src.type
        assert isinstance(t, TensorViewType)
        return t.rank

    def check_source(self) -> None:
        check_type(
            self,
            self.src,
            "operand #0",
            "tensor view type",
            isinstance(self.src.type, TensorViewType),
        )

    @classmethod
    def rank_of(cls, parser: Parser, t: Attribute, pos: int) -> int:
        if not isinstance(t, TensorViewType):
            parser.raise_error(f"expected tensor_view, got '{t}'", pos, parser.pos)
        return t.rank


VIEW_OPS = [
    MakeTensorViewOp,
    MakePartitionViewOp,
    MakeStridedViewOp,
    MakeGatherScatterViewOp,
    LoadViewTkoOp,
    StoreViewTkoOp,
    GetIndexSpaceShapeOp,
    GetTensorShapeOp,
]
