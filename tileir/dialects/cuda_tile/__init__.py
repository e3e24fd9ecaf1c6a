"""The cuda_tile dialect: NVIDIA's public CUDA Tile IR, the input of tileir."""

from xdsl.ir import Dialect

from tileir.dialects.cuda_tile.attributes import ATTRIBUTES
from tileir.dialects.cuda_tile.debug_info import DEBUG_INFO_ATTRIBUTES
from tileir.dialects.cuda_tile.ops import ALL_OPS
from tileir.dialects.cuda_tile.types import TYPES

CudaTile = Dialect("cuda_tile", ALL_OPS, [*TYPES, *ATTRIBUTES, *DEBUG_INFO_ATTRIBUTES])

__all__ = ["CudaTile"]
