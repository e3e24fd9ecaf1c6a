"""The GPUs tileir compiles for: one list, shared by `tileir-as --gpu-name`, the
`cuda-tile-to-ptx{arch=...}` pipeline, `convert-tileas-to-llvm{arch=...}` and `-t ptx`.

Each `--gpu-name` a user may give (tileiras's spelling) maps to the architecture tileir
compiles for.  As tileiras does, sm_90, sm_100 and sm_103 select their arch-specific
`a` features.  Every architecture has the lowest PTX ISA `.version` ptxas accepts for it
(checked with ptxas 13.x), so PTX that needs nothing newer assembles with the oldest
ptxas that knows the target.
"""

from __future__ import annotations

from dataclasses import dataclass

from tileir.diagnostics import CompileError


@dataclass(frozen=True)
class GpuArch:
    """A target tileir generates PTX for."""

    name: str
    #: The lowest PTX ISA version ptxas accepts for `name`.
    ptx_version: str


#: Architectures tileir generates code for, oldest first.
ARCHS: dict[str, GpuArch] = {
    a.name: a
    for a in (
        GpuArch("sm_80", "7.0"),
        GpuArch("sm_86", "7.1"),
        GpuArch("sm_87", "7.4"),
        GpuArch("sm_89", "7.8"),
        GpuArch("sm_90", "7.8"),
        GpuArch("sm_90a", "8.0"),
        GpuArch("sm_100", "8.6"),
        GpuArch("sm_100a", "8.6"),
        GpuArch("sm_103a", "8.8"),
        GpuArch("sm_120", "8.7"),
        GpuArch("sm_121", "8.8"),
    )
}

#: `--gpu-name` values (tileiras's list, where tileir supports the target) and the
#: architecture each compiles for.
GPU_NAMES: dict[str, str] = {
    "sm_80": "sm_80",
    "sm_86": "sm_86",
    "sm_87": "sm_87",
    "sm_89": "sm_89",
    "sm_90": "sm_90a",
    "sm_90a": "sm_90a",
    "sm_100": "sm_100a",
    "sm_100a": "sm_100a",
    "sm_103": "sm_103a",
    "sm_103a": "sm_103a",
    "sm_120": "sm_120",
    "sm_121": "sm_121",
}

#: The PTX ISA that introduced `.language`, with which a kernel is marked as a Tile IR
#: kernel (`EIATTR_LANGUAGE: TILEIR` in the cubin), as tileiras marks its kernels.
TILE_LANGUAGE_PTX_VERSION = "9.2"


def supported_gpu_names() -> str:
    return ", ".join(GPU_NAMES)


def resolve_gpu_name(name: str, what: str = "--gpu-name") -> str:
    """The architecture tileir compiles `name` for (a `--gpu-name` or an arch such as
    `sm_90a`); an unknown name is an error that lists the supported ones."""
    arch = GPU_NAMES.get(name) or (name if name in ARCHS else None)
    if arch is None:
        raise CompileError(f"unknown {what} '{name}'; tileir supports {supported_gpu_names()}")
    return arch


def compute_capability(arch: str) -> int:
    """`sm_90a` -> 90: the number that feature requirements ("sm_90 or higher") compare."""
    return int(arch.removeprefix("sm_").rstrip("abf"))


def ptx_version(arch: str, at_least: str | None = None) -> str:
    """The `.version` to print for `arch`: its lowest, or `at_least` if newer."""
    version = ARCHS[arch].ptx_version
    if at_least is not None and _as_tuple(at_least) > _as_tuple(version):
        return at_least
    return version


def _as_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))
