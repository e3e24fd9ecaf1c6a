"""Runtime values that are not plain tiles: tokens and views.

Tiles are numpy arrays of the element type (`numerics.dtype_of`; pointers are int64
byte addresses).  Tokens only order memory operations, and the interpreter runs
every op in program order, so a token carries nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tileir.dialects.cuda_tile.attributes import PaddingValue


@dataclass(frozen=True)
class Token:
    """A memory token (ordering only)."""


TOKEN = Token()


@dataclass(frozen=True)
class TensorView:
    """`tensor_view`: a base address, element type, shape and strides (elements)."""

    base: int
    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    def addresses(self, coords: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Byte addresses of the elements at tensor coordinates `coords` (one array
        per dimension, broadcast together) and which of them lie inside the tensor."""
        shape = np.broadcast_shapes(*(c.shape for c in coords)) if coords else ()
        inside = np.ones(shape, dtype=np.bool_)
        offset = np.zeros(shape, dtype=np.int64)
        for c, extent, stride in zip(coords, self.shape, self.strides, strict=True):
            inside &= (c >= 0) & (c < extent)
            offset = offset + c.astype(np.int64) * stride
        return self.base + offset * self.dtype.itemsize, inside


@dataclass(frozen=True)
class TileView:
    """`partition_view`, `strided_view` or `gather_scatter_view` over a tensor view.

    Index `k` selects along tile dimension `k`, which runs along tensor dimension
    `dim_map[k]`; the tile's first element there is at `index[k] * step[k]` (`step`
    is the tile shape for partitions, the traversal strides for strided views).
    A gather/scatter view takes, at `sparse_dim`, a 1-d tile of tensor coordinates.
    """

    kind: str  # "partition" | "strided" | "gather_scatter"
    tensor: TensorView
    tile: tuple[int, ...]
    step: tuple[int, ...]
    dim_map: tuple[int, ...]
    padding: PaddingValue | None
    sparse_dim: int | None = None

    def index_space(self) -> tuple[int, ...]:
        out: list[int] = []
        for k, step in enumerate(self.step):
            extent = self.tensor.shape[self.dim_map[k]]
            if k == self.sparse_dim:
                out.append(extent)
            else:
                out.append(-(-extent // step))
        return tuple(out)

    def check_indices(self, index: list[np.ndarray]) -> str | None:
        """Why `index` lies outside the index space (None when it is inside)."""
        space = self.index_space()
        for k, (i, extent) in enumerate(zip(index, space, strict=True)):
            if k == self.sparse_dim:
                continue
            value = int(i)
            if not 0 <= value < extent:
                shown = ", ".join(str(int(j)) if j.ndim == 0 else "[...]" for j in index)
                return (
                    f"index ({shown}) is outside the view's index space "
                    f"({'x'.join(map(str, space))}) in dimension {k}"
                )
        return None

    def outside_tile(self) -> tuple[np.ndarray, np.ndarray]:
        """Addresses and bounds of a tile whose index lies outside the index space:
        no element is in bounds (the addresses are never used)."""
        return np.zeros(self.tile, np.int64), np.zeros(self.tile, np.bool_)

    def element_addresses(self, index: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Byte addresses of the tile's elements at `index` and which are in bounds."""
        rank = len(self.tile)
        grids = np.indices(self.tile, dtype=np.int64) if rank else []
        coords: list[np.ndarray] = [np.zeros((), dtype=np.int64)] * len(self.tensor.shape)
        for k in range(rank):
            if k == self.sparse_dim:
                rows = np.asarray(index[k]).astype(np.int64)
                coord = rows[grids[k]]
            else:
                coord = int(index[k]) * self.step[k] + grids[k]
            coords[self.dim_map[k]] = coord
        return self.tensor.addresses(coords)


def padding_scalar(padding: PaddingValue | None, dtype: np.dtype) -> np.ndarray:
    """The value out-of-bounds elements of a load take (zero when none is set: cuTile
    leaves them unspecified, the interpreter makes them zero)."""
    value = {
        None: 0.0,
        PaddingValue.ZERO: 0.0,
        PaddingValue.NEG_ZERO: -0.0,
        PaddingValue.NAN: float("nan"),
        PaddingValue.POS_INF: float("inf"),
        PaddingValue.NEG_INF: float("-inf"),
    }[padding]
    if dtype.kind in "iub":
        return np.zeros((), dtype=dtype)
    return np.asarray(value).astype(dtype)
