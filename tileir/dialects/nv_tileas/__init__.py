"""nv_tileas: the operational tile dialect (seeds 000-003).

Types (`types`), attributes (`attributes`, `layouts`), ops by family (`ops`), the
memory-consistency and producer/agent interfaces with the safe-rewrite predicate
(`interfaces`), the verifier rules (`verifiers`) and IR builders (`builders`).  The two
foreign types the seeds write (`!async.value`, `!cute_nvgpu.tma_descriptor_tiled`) live
in `foreign`, in dialects of their own.
"""

from xdsl.ir import Dialect, Operation

from tileir.dialects.nv_tileas.attributes import ATTRIBUTES
from tileir.dialects.nv_tileas.foreign import Async, CuteNvgpu
from tileir.dialects.nv_tileas.layouts import LAYOUTS
from tileir.dialects.nv_tileas.mma_layout import MmaLayoutAttr
from tileir.dialects.nv_tileas.ops import OPS
from tileir.dialects.nv_tileas.types import TYPES

NvTileAS = Dialect(
    "nv_tileas", list[type[Operation]](OPS), [*TYPES, *ATTRIBUTES, *LAYOUTS, MmaLayoutAttr]
)

__all__ = ["Async", "CuteNvgpu", "NvTileAS"]
