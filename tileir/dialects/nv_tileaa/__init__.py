"""nv_tileaa: the alias-aware tile dialect between cuda_tile and nv_tileas (seed 004)."""

from xdsl.ir import Dialect, Operation

from tileir.dialects.nv_tileaa.ops import OPS
from tileir.dialects.nv_tileaa.types import TYPES

_OPERATIONS: list[type[Operation]] = list(OPS)
NvTileAA = Dialect("nv_tileaa", _OPERATIONS, TYPES)

__all__ = ["NvTileAA"]
