"""The ops of the cuda_tile dialect, grouped by NVIDIA's families."""

from tileir.dialects.cuda_tile.ops.control_flow import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.control_flow import CONTROL_FLOW_OPS
from tileir.dialects.cuda_tile.ops.conversion import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.conversion import CONVERSION_OPS
from tileir.dialects.cuda_tile.ops.core import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.core import CORE_OPS
from tileir.dialects.cuda_tile.ops.floating_point import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.floating_point import FLOATING_POINT_OPS
from tileir.dialects.cuda_tile.ops.integer import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.integer import INTEGER_OPS
from tileir.dialects.cuda_tile.ops.memory import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.memory import MEMORY_OPS
from tileir.dialects.cuda_tile.ops.views import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.views import VIEW_OPS

ALL_OPS = [
    *CORE_OPS,
    *FLOATING_POINT_OPS,
    *INTEGER_OPS,
    *CONVERSION_OPS,
    *MEMORY_OPS,
    *CONTROL_FLOW_OPS,
    *VIEW_OPS,
]
