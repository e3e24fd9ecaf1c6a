"""The reference interpreter: numpy semantics of every cuda_tile op.

    from tileir.interpreter import launch
    launch("kernel.tileirbc", (gx, gy, gz), x, y, out, n)

runs an entry over a grid of tile blocks, as cuTile's `ct.launch` would on a GPU,
with numpy arrays for pointer parameters (updated in place).  The op semantics are
xDSL interpreter functions (`register_cuda_tile` adds them to any
`xdsl.interpreter.Interpreter`); `docs/interpreter.md` lists the choices made where
cuTile leaves a result unspecified.
"""

from tileir.interpreter.errors import ArgumentError, KernelAssertionError, KernelError
from tileir.interpreter.launcher import LaunchResult, call, launch, register_cuda_tile
from tileir.interpreter.state import Options

__all__ = [
    "ArgumentError",
    "KernelAssertionError",
    "KernelError",
    "LaunchResult",
    "Options",
    "call",
    "launch",
    "register_cuda_tile",
]
