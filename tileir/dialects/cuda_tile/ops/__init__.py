"""The ops of the cuda_tile dialect, grouped by NVIDIA's families."""

from tileir.dialects.cuda_tile.ops.atomics import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.atomics import ATOMIC_OPS
from tileir.dialects.cuda_tile.ops.control_flow import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.control_flow import CONTROL_FLOW_OPS
from tileir.dialects.cuda_tile.ops.conversion import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.conversion import CONVERSION_OPS
from tileir.dialects.cuda_tile.ops.core import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.core import CORE_OPS
from tileir.dialects.cuda_tile.ops.floating_point import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.floating_point import (
    FLOATING_POINT_OPS,
    FLOATING_POINT_OPS_13_4,
)
from tileir.dialects.cuda_tile.ops.globals import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.globals import GLOBAL_OPS
from tileir.dialects.cuda_tile.ops.integer import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.integer import INTEGER_OPS
from tileir.dialects.cuda_tile.ops.memory import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.memory import MEMORY_OPS
from tileir.dialects.cuda_tile.ops.misc import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.misc import MISC_OPS
from tileir.dialects.cuda_tile.ops.mma import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.mma import MMA_OPS
from tileir.dialects.cuda_tile.ops.newer import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.newer import NEWER_OPS_13_4
from tileir.dialects.cuda_tile.ops.reductions import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.reductions import REDUCTION_OPS
from tileir.dialects.cuda_tile.ops.shape import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.shape import SHAPE_OPS
from tileir.dialects.cuda_tile.ops.testing import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.testing import TESTING_OPS
from tileir.dialects.cuda_tile.ops.views import *  # noqa: F403
from tileir.dialects.cuda_tile.ops.views import VIEW_OPS

#: NVIDIA's public ops (cuda_tile 13.3: 100 of them).
PUBLIC_OPS = [
    *CORE_OPS,
    *SHAPE_OPS,
    *REDUCTION_OPS,
    *GLOBAL_OPS,
    *FLOATING_POINT_OPS,
    *INTEGER_OPS,
    *CONVERSION_OPS,
    *MMA_OPS,
    *MEMORY_OPS,
    *ATOMIC_OPS,
    *VIEW_OPS,
    *CONTROL_FLOW_OPS,
    *MISC_OPS,
]

#: Ops of later releases that cuTile Python writes (13.4: `fpowf`, `fpowi`, `insert`,
#: `gdc_wait_tko`, `gdc_launch_dependents_tko`).
NEWER_OPS = [*FLOATING_POINT_OPS_13_4, *NEWER_OPS_13_4]

#: Every op the dialect registers: the public ones, the newer ones and NVIDIA's
#: test-only `testing$func`.
ALL_OPS = [*PUBLIC_OPS, *NEWER_OPS, *TESTING_OPS]
