"""PTX virtual registers: one allocator per kernel, one class per machine type.

PTX has unlimited typed virtual registers; ptxas allocates the physical ones.  Each
SSA value gets a register of its class on first use (struct-typed values, the
multi-output inline-asm results, get one register per member), and the kernel
declares `.reg .b32 %r<N>;` for every class it used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntAttr,
    IntegerType,
)
from xdsl.ir import Attribute, SSAValue


def is_shared_pointer(t: Attribute) -> bool:
    """`!llvm.ptr<3>`: a shared-memory address, which is 32 bits wide (the data layout's
    `p3:32:32`, NVPTX's short pointers): the CTA's shared window is below 4 GiB, and
    tileir keeps its shared addresses in 32-bit registers (`ld.shared [%r1]`)."""
    return isinstance(t, llvm.LLVMPointerType) and t.addr_space == IntAttr(SHARED_ADDRESS_SPACE)


#: The LLVM address space of shared memory.
SHARED_ADDRESS_SPACE = 3


@dataclass(frozen=True)
class RegisterClass:
    decl: str  # .reg type
    prefix: str
    bits: int


PRED = RegisterClass("pred", "%p", 1)
B16 = RegisterClass("b16", "%rs", 16)
B32 = RegisterClass("b32", "%r", 32)
F32 = RegisterClass("f32", "%f", 32)
B64 = RegisterClass("b64", "%rd", 64)
F64 = RegisterClass("f64", "%fd", 64)

ORDER = (PRED, B16, B32, F32, B64, F64)


def register_class(t: Attribute) -> RegisterClass:
    if isinstance(t, IntegerType):
        w = t.width.data
        if w == 1:
            return PRED
        if w <= 16:
            return B16
        if w == 32:
            return B32
        if w == 64:
            return B64
    if isinstance(t, Float16Type | BFloat16Type):
        return B16
    if isinstance(t, Float32Type):
        return F32
    if isinstance(t, Float64Type):
        return F64
    if isinstance(t, llvm.LLVMPointerType):
        return B32 if is_shared_pointer(t) else B64
    raise ValueError(f"no PTX register class for {t}")


@dataclass
class RegisterAllocator:
    counters: dict[RegisterClass, int] = field(default_factory=lambda: {c: 0 for c in ORDER})
    names: dict[SSAValue, str | list[str]] = field(default_factory=dict)

    def new(self, cls: RegisterClass) -> str:
        self.counters[cls] += 1
        return f"{cls.prefix}{self.counters[cls]}"

    def new_for(self, t: Attribute) -> str:
        return self.new(register_class(t))

    def of(self, value: SSAValue) -> str:
        """The register holding `value` (allocated on first sight)."""
        name = self.names.get(value)
        if name is None:
            name = self.new_for(value.type)
            self.names[value] = name
        assert isinstance(name, str)
        return name

    def struct_of(self, value: SSAValue) -> list[str]:
        name = self.names.get(value)
        if name is None:
            t = value.type
            assert isinstance(t, llvm.LLVMStructType)
            name = [self.new_for(m) for m in t.types]
            self.names[value] = name
        assert isinstance(name, list)
        return name

    def alias(self, value: SSAValue, register: str) -> None:
        self.names[value] = register

    def assign_struct(self, value: SSAValue, registers: list[str]) -> None:
        """`value` (a struct) lives in `registers`, one per member."""
        self.names[value] = registers

    def declarations(self) -> list[str]:
        return [
            f".reg .{c.decl} {c.prefix}<{self.counters[c] + 1}>;" for c in ORDER if self.counters[c]
        ]
