"""nv_tileaa: the alias-aware tile dialect between cuda_tile and nv_tileas (seed 004)."""

from xdsl.ir import Dialect

from tileir.dialects.nv_tileaa.ops import OPS
from tileir.dialects.nv_tileaa.types import TYPES

NvTileAA = Dialect("nv_tileaa", OPS, TYPES)

__all__ = ["NvTileAA"]
