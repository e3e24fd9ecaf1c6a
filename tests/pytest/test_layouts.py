"""Distributed layouts as linear maps: which elements each thread holds."""

from __future__ import annotations

import itertools

import pytest

from tileir.dialects.nv_tileas.layouts import (
    BlockedLayoutAttr,
    SliceLayoutAttr,
    default_blocked,
)


def covered(layout, shape):
    """Every (register, lane, warp) -> coordinate, as a multiset of coordinates."""
    ll = layout.linear(shape)
    seen: dict[tuple[int, ...], int] = {}
    for r, lane, warp in itertools.product(range(ll.num_registers), range(32), range(ll.num_warps)):
        c = ll.coord(r, lane, warp)
        assert all(0 <= x < s for x, s in zip(c, shape, strict=True)), c
        seen[c] = seen.get(c, 0) + 1
    return seen


@pytest.mark.parametrize("shape", [(256,), (1024,), (16, 64), (64, 16), (2, 8), (8, 32, 4)])
def test_blocked_layout_covers_every_element_equally(shape: tuple[int, ...]) -> None:
    layout = default_blocked(shape, num_warps=4, vector=4)
    seen = covered(layout, shape)
    total = 1
    for d in shape:
        total *= d
    assert len(seen) == total
    assert len(set(seen.values())) == 1  # replication, if any, is uniform


def test_blocked_registers_are_contiguous_along_the_fastest_dim() -> None:
    layout = BlockedLayoutAttr([1, 4], [2, 16], [4, 1], [1, 0])
    ll = layout.linear((16, 64))
    assert ll.contiguous_registers(1) == 4
    assert [ll.register_coord(r) for r in range(4)] == [(0, 0), (0, 1), (0, 2), (0, 3)]
    # Lane 1 starts four columns to the right, lane 16 one row down.
    assert ll.lane_coord(1) == (0, 4)
    assert ll.lane_coord(16) == (1, 0)
    assert ll.warp_coord(1) == (2, 0)
    # 16 rows over 2 x 4 threads: each thread wraps to a second row, 8 rows down.
    assert ll.num_registers == 8 and ll.register_coord(4) == (8, 0)


def test_slice_layout_drops_a_dimension() -> None:
    parent = BlockedLayoutAttr([1, 4], [2, 16], [4, 1], [1, 0])
    cols = SliceLayoutAttr(0, parent).linear((64,))
    # A thread holds the columns it holds in the parent, for every row.
    for lane in range(32):
        for r in range(cols.num_registers):
            parent_coord = parent.linear((1, 64)).coord(r, lane, 0)
            assert cols.coord(r, lane, 0) == (parent_coord[1],)


def test_small_tile_is_replicated_not_dropped() -> None:
    layout = default_blocked((8,), num_warps=4, vector=1)
    seen = covered(layout, (8,))
    assert sorted(seen) == [(i,) for i in range(8)]
