"""nv_tileas types (seed 002): spellings, defaults, uniquing, and the bare `tile<...>`
syntax inside nv_tileas scope."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import NoneAttr, f16, f32
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from tileir.dialects.cuda_tile.types import TileType
from tileir.dialects.nv_tileas.attributes import IteratorKind, Residency, SwizzleMode
from tileir.dialects.nv_tileas.foreign import AsyncValueType, TmaDescriptorTiledType
from tileir.dialects.nv_tileas.layouts import SharedLayoutAttr, tma_incompatibility
from tileir.dialects.nv_tileas.types import (
    DYNAMIC_DIM,
    UNKNOWN_COUNT,
    AsyncTokenType,
    PipelineConsumerTokenType,
    PipelineIteratorType,
    PipelineProducerTokenType,
    TiledViewType,
    TmaDescType,
    unwrap_iterator,
)
from tileir.registry import make_context


def parse_type(text: str) -> Attribute:
    return Parser(make_context(), text).parse_type()


def printed(attr: Attribute) -> str:
    import io

    out = io.StringIO()
    Printer(stream=out).print_attribute(attr)
    return out.getvalue()


def test_tokens_are_parameterless_unique_and_distinct() -> None:
    tokens = [
        PipelineProducerTokenType(),
        PipelineConsumerTokenType(),
        AsyncTokenType(),
        TmaDescType(),
    ]
    assert len(set(tokens)) == 4
    for t in tokens:
        assert t == type(t)()
        assert hash(t) == hash(type(t)())
        assert t.parameters == ()
    assert printed(PipelineProducerTokenType()) == "!nv_tileas.async.pipeline.producer_token"
    assert printed(PipelineConsumerTokenType()) == "!nv_tileas.async.pipeline.consumer_token"
    assert printed(AsyncTokenType()) == "!nv_tileas.async.token"
    assert printed(TmaDescType()) == "!nv_tileas.tma_desc"


def test_iterator_element_only_spelling_has_documented_defaults() -> None:
    t = parse_type("!nv_tileas.async.pipeline.iterator<tile<128x128xf16>>")
    assert isinstance(t, PipelineIteratorType)
    assert t.element_type == TileType([128, 128], f16)
    assert t.count.data == UNKNOWN_COUNT and t.stage_count is None
    assert t.stride.data == 1
    assert t.space is Residency.SMEM
    assert t.kind is IteratorKind.PRODUCER
    assert t == PipelineIteratorType(TileType([128, 128], f16))
    assert printed(t) == "!nv_tileas.async.pipeline.iterator<tile<128x128xf16>>"


def test_iterator_fields_print_parse_and_unique() -> None:
    t = PipelineIteratorType(f32, count=4, stride=2, address_space=Residency.RMEM)
    text = printed(t)
    assert text == "!nv_tileas.async.pipeline.iterator<f32, count = 4, stride = 2, space = rmem>"
    assert parse_type(text) == t
    # All four fields take part in equality: iterators differing in any one differ.
    base = PipelineIteratorType(f32, count=4)
    variants = [
        base.with_fields(element_type=f16),
        base.with_fields(count=2),
        base.with_fields(stride=2),
        base.with_fields(address_space=Residency.TMEM),
        base.with_fields(kind=IteratorKind.CONSUMER),
    ]
    assert all(v != base for v in variants)
    assert base.with_fields() == base
    assert unwrap_iterator(base) == f32 and unwrap_iterator(f16) == f16


def test_producer_and_consumer_iterators_are_distinct_types() -> None:
    """Seed 002: the sides take part in different handshakes; both unwrap to the payload."""
    producer = PipelineIteratorType(f32, count=2)
    consumer = producer.with_fields(kind=IteratorKind.CONSUMER)
    assert producer != consumer and hash(producer) != hash(consumer)
    assert unwrap_iterator(producer) == unwrap_iterator(consumer) == f32
    text = printed(consumer)
    assert text == "!nv_tileas.async.pipeline.iterator<f32, count = 2, kind = consumer>"
    assert parse_type(text) == consumer
    assert (
        parse_type("!nv_tileas.async.pipeline.iterator<f32, count = 2, kind = producer>")
        == producer
    )
    with pytest.raises(ParseError, match="unexpected iterator field 'kind'"):
        parse_type("!nv_tileas.async.pipeline.iterator<f32, kind = consumer, kind = producer>")


def test_iterator_fields_are_verified() -> None:
    with pytest.raises(VerifyException, match="count must be positive"):
        PipelineIteratorType(f32, count=0)
    with pytest.raises(VerifyException, match="stride must be positive"):
        PipelineIteratorType(f32, stride=0)
    with pytest.raises(ParseError, match="unexpected iterator field"):
        parse_type("!nv_tileas.async.pipeline.iterator<f32, phase = 1>")


@pytest.mark.parametrize("residency", list(Residency))
def test_tiled_view_residency_is_a_parameter(residency: Residency) -> None:
    t = TiledViewType([128, 64], f16, residency)
    assert printed(t) == f"!nv_tileas.tiled_view<128x64xf16, {residency.value}>"
    assert parse_type(printed(t)) == t
    assert t.residency_kind is residency
    others = {TiledViewType([128, 64], f16, r) for r in Residency}
    assert len(others) == 4


def test_tiled_view_strides_and_layout() -> None:
    t = parse_type("!nv_tileas.tiled_view<?x?xf16, gmem, strides = [?, 1]>")
    assert isinstance(t, TiledViewType)
    assert t.dims == (DYNAMIC_DIM, DYNAMIC_DIM) and t.element_strides == (DYNAMIC_DIM, 1)
    dense = TiledViewType([4, 8, 16], f32, Residency.GMEM)
    assert dense.element_strides == (128, 16, 1)
    layout = SharedLayoutAttr(SwizzleMode.B128, [1, 0])
    s = TiledViewType([128, 64], f16, Residency.SMEM, layout=layout)
    assert parse_type(printed(s)) == s and s.layout_attr == layout
    assert TiledViewType([8], f32, Residency.SMEM).layout == NoneAttr()
    with pytest.raises(VerifyException, match="2 strides for rank 1"):
        TiledViewType([8], f32, Residency.GMEM, strides=[1, 1])


def test_tma_compatibility_of_shared_layouts() -> None:
    layout = SharedLayoutAttr(SwizzleMode.B128, [1, 0])
    assert tma_incompatibility(layout, (128, 64), 16) is None
    assert "exceeds the 128B swizzle span" in (tma_incompatibility(layout, (128, 128), 16) or "")
    assert "not row-major" in (
        tma_incompatibility(SharedLayoutAttr(SwizzleMode.NONE, [0, 1]), (8, 8), 32) or ""
    )
    assert "multiple of 16" in (tma_incompatibility(None, (8, 2), 32) or "")
    assert tma_incompatibility(None, (8, 4), 32) is None


def test_foreign_types() -> None:
    f = parse_type("!async.value<tile<4xf32>>")
    assert f == AsyncValueType(TileType([4], f32))
    assert printed(f) == "!async.value<tile<4xf32>>"
    assert parse_type("!cute_nvgpu.tma_descriptor_tiled") == TmaDescriptorTiledType()


def test_bare_tiles_are_only_a_spelling() -> None:
    # Inside type parameters the bare and the qualified spelling are the same type.
    a = parse_type("!nv_tileas.async.pipeline.iterator<tile<8xf32>>")
    b = parse_type("!nv_tileas.async.pipeline.iterator<!cuda_tile.tile<8xf32>>")
    assert a == b
    # Outside nv_tileas scope a bare tile is no type.
    with pytest.raises(ParseError):
        parse_type("tile<8xf32>")
