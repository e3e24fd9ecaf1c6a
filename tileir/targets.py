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

KIB = 1024


@dataclass(frozen=True)
class GpuArch:
    """A target tileir generates PTX for."""

    name: str
    #: The lowest PTX ISA version ptxas accepts for `name`.
    ptx_version: str
    #: Shared memory one CTA may use after opting in (bytes): the "maximum amount of
    #: shared memory per thread block" of the CUDA C++ Programming Guide's table of
    #: technical specifications per compute capability (and the Ampere, Ada, Hopper and
    #: Blackwell tuning guides): 163 KiB on 8.0 and 8.7, 99 KiB on 8.6, 8.9 and 12.x,
    #: 227 KiB on 9.0 and 10.x.  Beyond 48 KiB a launch must opt in, unless the cubin
    #: declares it statically (see `static_shared`).
    shared_per_block: int
    #: Shared memory of one SM (bytes, the largest carve-out); each resident CTA also
    #: takes 1 KiB reserved by the system (same sources).
    shared_per_sm: int
    #: The largest static `.shared` declaration ptxas accepts for `name` (ptxas 13.x:
    #: 48 KiB before sm_90 and on sm_12x, the whole `shared_per_block` on sm_90a and
    #: sm_100a and their relatives); more than that must be dynamic shared memory.
    static_shared: int = 48 * KIB

    @property
    def tcgen05(self) -> bool:
        """Whether the tensor cores take Blackwell's `tcgen05.mma` (tensor memory): the
        architecture-specific data-center targets (PTX ISA, `tcgen05` instructions);
        sm_12x's consumer parts have `mma.sync` only."""
        return self.name in TCGEN05_TARGETS

    @property
    def warp_specialization(self) -> bool:
        """Whether a `wgmma` K loop becomes a producer and a consumer agent: the
        targets with `wgmma` and `setmaxnreg` (sm_90a, PTX ISA `setmaxnreg`)."""
        return self.name in WARP_SPECIALIZED_TARGETS


#: The targets whose tensor cores take `tcgen05.mma` (`GpuArch.tcgen05`).
TCGEN05_TARGETS = frozenset({"sm_100a", "sm_103a"})

#: The targets whose `wgmma` K loops are warp-specialized (`GpuArch.warp_specialization`).
WARP_SPECIALIZED_TARGETS = frozenset({"sm_90a"})

#: Shared memory the system reserves per resident CTA (bytes).
RESERVED_SHARED_PER_CTA = 1 * KIB

_AMPERE_A100 = {"shared_per_block": 163 * KIB, "shared_per_sm": 164 * KIB}
_CONSUMER = {"shared_per_block": 99 * KIB, "shared_per_sm": 100 * KIB}
_HOPPER = {"shared_per_block": 227 * KIB, "shared_per_sm": 228 * KIB}
_HOPPER_STATIC = {**_HOPPER, "static_shared": 227 * KIB}

#: Architectures tileir generates code for, oldest first.
ARCHS: dict[str, GpuArch] = {
    a.name: a
    for a in (
        GpuArch("sm_80", "7.0", **_AMPERE_A100),
        GpuArch("sm_86", "7.1", **_CONSUMER),
        GpuArch("sm_87", "7.4", **_AMPERE_A100),
        GpuArch("sm_89", "7.8", **_CONSUMER),
        GpuArch("sm_90", "7.8", **_HOPPER),
        GpuArch("sm_90a", "8.0", **_HOPPER_STATIC),
        GpuArch("sm_100", "8.6", **_HOPPER),
        GpuArch("sm_100a", "8.6", **_HOPPER_STATIC),
        GpuArch("sm_103a", "8.8", **_HOPPER_STATIC),
        GpuArch("sm_120", "8.7", **_CONSUMER),
        GpuArch("sm_121", "8.8", **_CONSUMER),
    )
}


def ctas_per_sm_by_shared(arch: str, shared_bytes: int) -> int:
    """How many CTAs of `shared_bytes` of shared memory each fit on one SM of `arch`
    (shared memory alone; threads and registers may allow fewer)."""
    target = ARCHS[arch]
    return target.shared_per_sm // (shared_bytes + RESERVED_SHARED_PER_CTA)


#: 32-bit registers of one SM, on every target tileir supports (CUDA C++ Programming
#: Guide, technical specifications per compute capability 8.x to 12.x).
REGISTERS_PER_SM = 64 * KIB
#: The most registers one thread may use (same table).
MAX_REGISTERS_PER_THREAD = 255
#: Registers are allocated to a thread in multiples of 8 (256 per warp).
REGISTER_GRANULE = 8


def allocated_registers(budget: int) -> int:
    """The registers a thread holds for a budget of `budget` (`.maxnreg`, or a
    `setmaxnreg` count): rounded up to the allocation granule (255 holds 256)."""
    return -(-budget // REGISTER_GRANULE) * REGISTER_GRANULE


def register_budget(threads_per_cta: int, ctas_per_sm: int = 1) -> int:
    """Registers per thread that let `ctas_per_sm` CTAs of `threads_per_cta` threads be
    resident on one SM at once: the register file shared out, in allocation granules,
    at most 255 (128 threads, 1 CTA: 255; 384 threads: 168; 256 threads, 2 CTAs: 128)."""
    share = REGISTERS_PER_SM // (threads_per_cta * max(ctas_per_sm, 1))
    return max(min(MAX_REGISTERS_PER_THREAD, share // REGISTER_GRANULE * REGISTER_GRANULE), 16)


def hint_target(arch: str) -> str:
    """The `optimization_hints` key of `arch` (`sm_90a` -> `sm_90`)."""
    return f"sm_{compute_capability(arch)}"


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
