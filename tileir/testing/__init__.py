"""Testing tools for tileir: a numpy simulator of the PTX tileir emits.

``simulate`` runs a kernel on the CPU and writes its results into numpy arrays,
so tests can check compiled kernels against numpy references without a GPU.
"""

from tileir.testing.ptx_errors import (
    ASYNC_RACE,
    DEADLOCK,
    INTERNAL,
    INVALID,
    MISALIGNED,
    OUT_OF_BOUNDS,
    RACE,
    UNINITIALIZED,
    UNSUPPORTED,
    SimulationError,
)
from tileir.testing.ptx_sim import APPROX_MODES, simulate

__all__ = [
    "APPROX_MODES",
    "ASYNC_RACE",
    "DEADLOCK",
    "INTERNAL",
    "INVALID",
    "MISALIGNED",
    "OUT_OF_BOUNDS",
    "RACE",
    "UNINITIALIZED",
    "UNSUPPORTED",
    "SimulationError",
    "simulate",
]
