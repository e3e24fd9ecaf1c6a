"""Types of nv_tileas (seed 002).

| type | spelling |
|---|---|
| `PipelineProducerTokenType` | `!nv_tileas.async.pipeline.producer_token` |
| `PipelineConsumerTokenType` | `!nv_tileas.async.pipeline.consumer_token` |
| `AsyncTokenType` | `!nv_tileas.async.token` |
| `PipelineIteratorType` | `!nv_tileas.async.pipeline.iterator<tile<128x128xf16>, count = 2, stride = 1, space = smem, kind = consumer>` |
| `TiledViewType` | `!nv_tileas.tiled_view<128x64xf16, smem, layout = #nv_tileas.shared<...>>` |
| `TmaDescType` | `!nv_tileas.tma_desc` |

The three tokens are parameterless: one canonical instance each, distinct from one
another.  The iterator carries four fields and its side (seed 002's `IteratorKind`);
only the element type is required.  A producer-side and a consumer-side iterator are
distinct types: they take part in different handshakes, so neither can stand for the
other (the pipeline ops' verifiers check the side, rule `iterator-side`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntAttr, NoneAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileir.dialects.nv_tileas.attributes import (
    IteratorKind,
    IteratorKindAttr,
    Residency,
    ResidencyAttr,
)
from tileir.dialects.nv_tileas.syntax import parse_type_bare, print_type_bare

#: A dynamic extent or stride in a tiled view (`?`), as in builtin shaped types.
DYNAMIC_DIM = DYNAMIC_INDEX

#: An iterator whose stage count is not fixed yet (`count = ?`, the default).
UNKNOWN_COUNT = -1


def _dim(d: int) -> str:
    return "?" if d == DYNAMIC_DIM else str(d)


def _parse_dim_list(parser: AttrParser) -> list[int]:
    def entry() -> int:
        if parser.parse_optional_punctuation("?") is not None:
            return DYNAMIC_DIM
        return parser.parse_integer(allow_boolean=False)

    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, entry)


@irdl_attr_definition
class TiledViewType(ParametrizedAttribute, TypeAttribute):
    """`!nv_tileas.tiled_view<128x128xf16, smem>`: a tile-shaped view of storage, with
    its residency (rmem, smem, tmem or gmem) as a parameter.

    Optional trailing fields: `strides = [?, 1]` (element strides per dimension, `?`
    for dynamic; absent means dense row-major) and `layout = #...` (how a shared tile is
    arranged, e.g. `#nv_tileas.shared<{swizzle = 128B, order = [1, 0]}>`).  Extents may
    be dynamic (`?x64xf16`) for global views."""

    name = "nv_tileas.tiled_view"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    residency: ResidencyAttr
    strides: ArrayAttr[IntAttr]
    layout: Attribute

    def __init__(
        self,
        shape: Sequence[int],
        element_type: Attribute,
        residency: Residency,
        strides: Sequence[int] = (),
        layout: Attribute | None = None,
    ):
        super().__init__(
            ArrayAttr([IntAttr(d) for d in shape]),
            element_type,
            ResidencyAttr(residency),
            ArrayAttr([IntAttr(s) for s in strides]),
            layout if layout is not None else NoneAttr(),
        )

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape)

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def residency_kind(self) -> Residency:
        return self.residency.data

    @property
    def layout_attr(self) -> Attribute | None:
        return None if isinstance(self.layout, NoneAttr) else self.layout

    @property
    def element_strides(self) -> tuple[int, ...]:
        """Explicit strides, or the dense row-major ones (dynamic where unknown)."""
        if self.strides.data:
            return tuple(s.data for s in self.strides)
        strides: list[int] = []
        running = 1
        for d in reversed(self.dims):
            strides.append(running)
            running = DYNAMIC_DIM if d == DYNAMIC_DIM or running == DYNAMIC_DIM else running * d
        return tuple(reversed(strides))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        dims = parser.parse_dimension_list()
        if dims:
            parser.parse_shape_delimiter()
        element = parse_type_bare(parser)
        parser.parse_punctuation(",")
        residency = Residency(parser.parse_str_enum(Residency))
        strides: list[int] = []
        layout: Attribute = NoneAttr()
        while parser.parse_optional_punctuation(","):
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            if key == "strides":
                strides = _parse_dim_list(parser)
            elif key == "layout":
                layout = parser.parse_attribute()
            else:
                parser.raise_error(f"unknown tiled_view field '{key}' (expected strides or layout)")
        parser.parse_punctuation(">")
        return (
            ArrayAttr([IntAttr(d) for d in dims]),
            element,
            ResidencyAttr(residency),
            ArrayAttr([IntAttr(s) for s in strides]),
            layout,
        )

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + "".join(f"{_dim(d)}x" for d in self.dims))
        print_type_bare(printer, self.element_type)
        printer.print_string(f", {self.residency.data.value}")
        if self.strides.data:
            printer.print_string(
                ", strides = [" + ", ".join(_dim(s.data) for s in self.strides) + "]"
            )
        if not isinstance(self.layout, NoneAttr):
            printer.print_string(", layout = ")
            printer.print_attribute(self.layout)
        printer.print_string(">")

    def verify(self) -> None:
        if self.strides.data and len(self.strides.data) != len(self.shape.data):
            raise VerifyException(
                f"tiled_view has {len(self.strides.data)} strides for rank {len(self.shape.data)}"
            )


@irdl_attr_definition
class PipelineProducerTokenType(ParametrizedAttribute, TypeAttribute):
    """`!nv_tileas.async.pipeline.producer_token`: producer-side ownership of a stage;
    acquired before writing a stage and consumed by commit.  Carries no data."""

    name = "nv_tileas.async.pipeline.producer_token"


@irdl_attr_definition
class PipelineConsumerTokenType(ParametrizedAttribute, TypeAttribute):
    """`!nv_tileas.async.pipeline.consumer_token`: consumer-side ownership of a stage;
    produced by wait and consumed by release.  Carries no data."""

    name = "nv_tileas.async.pipeline.consumer_token"


@irdl_attr_definition
class AsyncTokenType(ParametrizedAttribute, TypeAttribute):
    """`!nv_tileas.async.token`: completion of asynchronous work (async copies, TMA
    transfers, async dots), observed by `nv_tileas.async.wait`."""

    name = "nv_tileas.async.token"


@irdl_attr_definition
class PipelineIteratorType(ParametrizedAttribute, TypeAttribute):
    """`!nv_tileas.async.pipeline.iterator<T, count = N, stride = S, space = smem, kind = consumer>`:
    the rotating stage iterator of one side of a pipeline.

    * `T` (required): the payload type (typically the tile the producer region yields);
    * `count`: the number of stages it rotates through (`numStages` of its pipeline);
      default `?`, not fixed yet;
    * `stride`: the advance step of `inc_iter`; default 1 (always 1 in current TileAS);
    * `space`: the memory its payload references (rmem, smem, tmem, gmem); default smem;
    * `kind`: the side it walks, `producer` (default) or `consumer` (seed 002's
      `IteratorKind`).  The two sides are distinct types because they take part in
      different handshakes: `create_iterator` of the producer token gives the producer
      side, of the consumer token the consumer side, and the producer ops
      (`produce_one`, `producer_acquire`, `producer_write`) take only the first, the
      consumer ops only the second.  Both unwrap to the same payload type.

    Fields equal to their default are not printed, so `iterator<tile<128x128xf16>>` (the
    spelling of the seeds) is the producer-side iterator with an unfixed count, stride 1,
    in shared memory."""

    name = "nv_tileas.async.pipeline.iterator"

    element_type: Attribute
    count: IntAttr
    stride: IntAttr
    address_space: ResidencyAttr
    iterator_kind: IteratorKindAttr

    def __init__(
        self,
        element_type: Attribute,
        count: int = UNKNOWN_COUNT,
        stride: int = 1,
        address_space: Residency = Residency.SMEM,
        kind: IteratorKind = IteratorKind.PRODUCER,
    ):
        super().__init__(
            element_type,
            IntAttr(count),
            IntAttr(stride),
            ResidencyAttr(address_space),
            IteratorKindAttr(kind),
        )

    @property
    def stage_count(self) -> int | None:
        return None if self.count.data == UNKNOWN_COUNT else self.count.data

    @property
    def space(self) -> Residency:
        return self.address_space.data

    @property
    def kind(self) -> IteratorKind:
        return self.iterator_kind.data

    def with_fields(
        self,
        *,
        element_type: Attribute | None = None,
        count: int | None = None,
        stride: int | None = None,
        address_space: Residency | None = None,
        kind: IteratorKind | None = None,
    ) -> PipelineIteratorType:
        return PipelineIteratorType(
            element_type if element_type is not None else self.element_type,
            count if count is not None else self.count.data,
            stride if stride is not None else self.stride.data,
            address_space if address_space is not None else self.space,
            kind if kind is not None else self.kind,
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        element = parse_type_bare(parser)
        count, stride, space, kind = UNKNOWN_COUNT, 1, Residency.SMEM, IteratorKind.PRODUCER
        seen: list[str] = []
        while parser.parse_optional_punctuation(","):
            pos = parser.pos
            key = parser.parse_identifier()
            if key in seen or key not in ("count", "stride", "space", "kind"):
                parser.raise_error(
                    f"unexpected iterator field '{key}' (expected count, stride, space, kind, "
                    "once each)",
                    pos,
                    parser.pos,
                )
            seen.append(key)
            parser.parse_punctuation("=")
            if key == "count":
                if parser.parse_optional_punctuation("?") is None:
                    count = parser.parse_integer(allow_boolean=False)
            elif key == "stride":
                stride = parser.parse_integer(allow_boolean=False)
            elif key == "space":
                space = Residency(parser.parse_str_enum(Residency))
            else:
                kind = IteratorKind(parser.parse_str_enum(IteratorKind))
        parser.parse_punctuation(">")
        return (
            element,
            IntAttr(count),
            IntAttr(stride),
            ResidencyAttr(space),
            IteratorKindAttr(kind),
        )

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        print_type_bare(printer, self.element_type)
        if self.count.data != UNKNOWN_COUNT:
            printer.print_string(f", count = {self.count.data}")
        if self.stride.data != 1:
            printer.print_string(f", stride = {self.stride.data}")
        if self.space is not Residency.SMEM:
            printer.print_string(f", space = {self.space.value}")
        if self.kind is not IteratorKind.PRODUCER:
            printer.print_string(f", kind = {self.kind.value}")
        printer.print_string(">")

    def verify(self) -> None:
        if self.count.data != UNKNOWN_COUNT and self.count.data < 1:
            raise VerifyException(f"iterator count must be positive or ?, got {self.count.data}")
        if self.stride.data < 1:
            raise VerifyException(f"iterator stride must be positive, got {self.stride.data}")


@irdl_attr_definition
class TmaDescType(ParametrizedAttribute, TypeAttribute):
    """`!nv_tileas.tma_desc`: a TMA tensor-map descriptor built by
    `make_tiled_tma_desc` and consumed by the async TMA ops."""

    name = "nv_tileas.tma_desc"


def unwrap_iterator(t: Attribute) -> Attribute:
    """The payload type of an iterator type; any other type unchanged."""
    return t.element_type if isinstance(t, PipelineIteratorType) else t


TYPES: list[type[Attribute]] = [
    TiledViewType,
    PipelineProducerTokenType,
    PipelineConsumerTokenType,
    AsyncTokenType,
    PipelineIteratorType,
    TmaDescType,
]
