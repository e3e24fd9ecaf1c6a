"""nv_tileas: the operational tile dialect (seeds 000-003)."""

from xdsl.ir import Dialect

from tileir.dialects.nv_tileas.attributes import ATTRIBUTES
from tileir.dialects.nv_tileas.layouts import LAYOUTS
from tileir.dialects.nv_tileas.ops import OPS
from tileir.dialects.nv_tileas.types import TYPES

NvTileAS = Dialect("nv_tileas", OPS, [*TYPES, *ATTRIBUTES, *LAYOUTS])

__all__ = ["NvTileAS"]
