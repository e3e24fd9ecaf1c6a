"""The `xdsl.universe` plugin: stock `xdsl-opt` sees tileir's dialects (`cuda_tile`,
`nv_tileaa`, `nv_tileas`, `nvvm`), its passes and the `ptx` target.

Printing through stock `xdsl-opt` keeps the `cuda_tile.` prefixes (its printer has no
default-dialect support); `tileir-opt` prints NVIDIA's prefix-free form."""

from xdsl.universe import Universe

from tileir.registry import DIALECTS, PASSES, TARGETS

UNIVERSE = Universe(all_dialects=DIALECTS, all_passes=PASSES, all_targets=TARGETS)  # pyright: ignore[reportArgumentType]
