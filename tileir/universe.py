"""The `xdsl.universe` plugin: stock `xdsl-opt` sees tileir's dialects (`cuda_tile`,
`nv_tileaa`, `nv_tileas`, `nvvm`), its passes and the `ptx` target (not `tileirbc`).

Printing through stock `xdsl-opt` keeps the `cuda_tile.` prefixes (its printer has no
default-dialect support); `tileir-opt` prints NVIDIA's prefix-free form."""

from xdsl.universe import Universe

from tileir.registry import DIALECTS, PASSES, TARGETS

#: `tileirbc` writes bytes, which stock xdsl-opt's text output would mangle; only
#: tileir-opt (whose output stream keeps them) offers it.
TEXT_TARGETS = {name: factory for name, factory in TARGETS.items() if name != "tileirbc"}

UNIVERSE = Universe(all_dialects=DIALECTS, all_passes=PASSES, all_targets=TEXT_TARGETS)  # pyright: ignore[reportArgumentType]
