"""The NVVM dialect: NVIDIA-specific ops beside the llvm dialect.  Op names follow
upstream MLIR (`nvvm.read.ptx.sreg.tid.x`, `nvvm.barrier0`,
`nvvm.mbarrier.init.shared`); the `ptx` target prints each
(`tileir/backend/ptx/instructions.py`).

The mbarrier ops work on 8-byte mbarrier objects in shared memory
(`!llvm.ptr<3>`), spelled with the `.shared` state space that PTX ISA 7.0 (sm_80)
accepts.  `nvvm.mbarrier.pool.address` is tileir's own: the address of one slot of
the CTA's pool of mbarriers, which token hop two (`tileir/conversions/tileaa_tokens.py`)
hands out, and which the `ptx` target declares once per kernel."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I32, IntegerAttr, i1, i32, i64
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException


class SpecialRegisterOp(IRDLOperation):
    """`%r = nvvm.read.ptx.sreg.<name> : i32`: reads a PTX special register."""

    REGISTER: ClassVar[str]
    res = result_def(i32)
    assembly_format = "attr-dict `:` type($res)"
    traits = traits_def(Pure())

    def __init__(self):
        super().__init__(result_types=[i32])


def _sreg(register: str) -> type[SpecialRegisterOp]:
    class_name = "".join(p.capitalize() for p in register.replace(".", "_").split("_")) + "Op"
    cls = type(
        class_name,
        (SpecialRegisterOp,),
        {
            "name": f"nvvm.read.ptx.sreg.{register}",
            "REGISTER": register,
            "__annotations__": {"REGISTER": ClassVar[str]},
            "__doc__": f"`%{register}`",
        },
    )
    return irdl_op_definition(cls)


TidXOp = _sreg("tid.x")
TidYOp = _sreg("tid.y")
TidZOp = _sreg("tid.z")
NTidXOp = _sreg("ntid.x")
CtaIdXOp = _sreg("ctaid.x")
CtaIdYOp = _sreg("ctaid.y")
CtaIdZOp = _sreg("ctaid.z")
NCtaIdXOp = _sreg("nctaid.x")
NCtaIdYOp = _sreg("nctaid.y")
NCtaIdZOp = _sreg("nctaid.z")
LaneIdOp = _sreg("laneid")

SPECIAL_REGISTERS = [
    TidXOp,
    TidYOp,
    TidZOp,
    NTidXOp,
    CtaIdXOp,
    CtaIdYOp,
    CtaIdZOp,
    NCtaIdXOp,
    NCtaIdYOp,
    NCtaIdZOp,
    LaneIdOp,
]

CTAID = {"x": CtaIdXOp, "y": CtaIdYOp, "z": CtaIdZOp}
NCTAID = {"x": NCtaIdXOp, "y": NCtaIdYOp, "z": NCtaIdZOp}


@irdl_op_definition
class Barrier0Op(IRDLOperation):
    """`nvvm.barrier0`: CTA-wide barrier (`bar.sync 0`); orders the block's memory
    accesses before it with those after it.  It reads and writes memory as far as
    passes can tell, so that dead-code elimination never drops it (an op that only
    reads is trivially dead once its results are)."""

    name = "nvvm.barrier0"
    assembly_format = "attr-dict"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())


# ---------------------------------------------------------------------------
# mbarriers (PTX ISA "Parallel Synchronization and Communication Instructions:
# mbarrier").
# ---------------------------------------------------------------------------

#: mbarrier objects a CTA may hold for mem tokens (seed 004, "Buffer Assignment and
#: Mbarriers — Phase 2": the per-CTA pool of 32).
MBARRIER_POOL_SIZE = 32

#: The state space of the mbarrier objects: shared memory.
SHARED = 3


def shared_pointer() -> LLVMPointerType:
    """`!llvm.ptr<3>`: a pointer into the CTA's shared memory."""
    from xdsl.dialects.builtin import IntAttr

    return LLVMPointerType(IntAttr(SHARED))


def _is_shared_pointer(t: Attribute) -> bool:
    from xdsl.dialects.builtin import IntAttr

    return isinstance(t, LLVMPointerType) and t.addr_space == IntAttr(SHARED)


class MBarrierOp(IRDLOperation):
    """An op on one mbarrier object at a shared-memory address.

    `MIN_PTX_ISA` is the oldest PTX ISA that has the instruction on every target
    tileir supports (sm_80 and newer); the `ptx` target raises `.version` to it."""

    MIN_PTX_ISA: ClassVar[str] = "7.0"

    def _check_address(self, addr: SSAValue) -> None:
        if not _is_shared_pointer(addr.type):
            raise VerifyException(
                f"the mbarrier address must be a shared-memory pointer (!llvm.ptr<3>), got {addr.type}"
            )


@irdl_op_definition
class MBarrierPoolAddressOp(IRDLOperation):
    """`%bar = nvvm.mbarrier.pool.address %slot {pool_size = 3 : i32} : i32 -> !llvm.ptr<3>`

    (tileir) The shared-memory address of mbarrier `%slot` of the CTA's pool.  The pool
    is an array of `pool_size` 8-byte mbarrier objects (at most 32, seed 004) that the
    `ptx` target declares once per kernel (`.shared .align 8 .b64`); `%slot` is the
    32-bit handle a lowered mem token carries."""

    name = "nvvm.mbarrier.pool.address"
    slot = operand_def(I32)
    pool_size = prop_def(IntegerAttr[I32])
    res = result_def(LLVMPointerType)
    assembly_format = "$slot attr-dict `:` type($slot) `->` type($res)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def __init__(self, slot: SSAValue, pool_size: int):
        super().__init__(
            operands=[slot],
            result_types=[shared_pointer()],
            properties={"pool_size": IntegerAttr(pool_size, i32)},
        )

    @property
    def size(self) -> int:
        return self.pool_size.value.data

    def verify_(self) -> None:
        if not 1 <= self.size <= MBARRIER_POOL_SIZE:
            raise VerifyException(
                f"pool_size must be between 1 and {MBARRIER_POOL_SIZE} (the CTA's mbarrier pool), got {self.size}"
            )
        if not _is_shared_pointer(self.res.type):
            raise VerifyException(
                f"the result must be a shared-memory pointer (!llvm.ptr<3>), got {self.res.type}"
            )


@irdl_op_definition
class MBarrierInitSharedOp(MBarrierOp):
    """`nvvm.mbarrier.init.shared %bar, %count [, predicate = %p] : !llvm.ptr<3>, i32 [, i1]`

    Initializes the mbarrier at `%bar` for `%count` expected arrivals per phase, in
    phase 0 (`mbarrier.init.shared.b64`, sm_80 / PTX 7.0).  With a predicate, only the
    threads where it holds initialize (one thread should, before a CTA barrier)."""

    name = "nvvm.mbarrier.init.shared"
    addr = operand_def(LLVMPointerType)
    count = operand_def(I32)
    predicate = opt_operand_def(i1)
    assembly_format = (
        "$addr `,` $count (`,` `predicate` `=` $predicate^)? attr-dict `:` type(operands)"
    )
    traits = traits_def(MemoryWriteEffect())

    def __init__(self, addr: SSAValue, count: SSAValue, predicate: SSAValue | None = None):
        super().__init__(operands=[addr, count, [] if predicate is None else [predicate]])

    def verify_(self) -> None:
        self._check_address(self.addr)


@irdl_op_definition
class MBarrierArriveSharedOp(MBarrierOp):
    """`%state = nvvm.mbarrier.arrive.shared %bar : !llvm.ptr<3> -> i64`

    Arrives on the mbarrier at `%bar` and returns the state of its current phase
    (`mbarrier.arrive.shared.b64`, sm_80 / PTX 7.0)."""

    name = "nvvm.mbarrier.arrive.shared"
    addr = operand_def(LLVMPointerType)
    res = result_def(i64)
    assembly_format = "$addr attr-dict `:` type($addr) `->` type($res)"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, addr: SSAValue):
        super().__init__(operands=[addr], result_types=[i64])

    def verify_(self) -> None:
        self._check_address(self.addr)


@irdl_op_definition
class MBarrierTestWaitParitySharedOp(MBarrierOp):
    """`%done = nvvm.mbarrier.test.wait.parity.shared %bar, %phase : !llvm.ptr<3>, i32 -> i1`

    Whether the phase of parity `%phase` (0 or 1) of the mbarrier at `%bar` has
    completed, without waiting (`mbarrier.test_wait.parity.shared.b64`, sm_80 / PTX
    7.1)."""

    name = "nvvm.mbarrier.test.wait.parity.shared"
    addr = operand_def(LLVMPointerType)
    phase = operand_def(I32)
    res = result_def(i1)
    assembly_format = "$addr `,` $phase attr-dict `:` type($addr) `,` type($phase) `->` type($res)"
    traits = traits_def(MemoryReadEffect())
    MIN_PTX_ISA: ClassVar[str] = "7.1"

    def __init__(self, addr: SSAValue, phase: SSAValue):
        super().__init__(operands=[addr, phase], result_types=[i1])

    def verify_(self) -> None:
        self._check_address(self.addr)


@irdl_op_definition
class MBarrierTryWaitParitySharedOp(MBarrierOp):
    """`nvvm.mbarrier.try_wait.parity.shared %bar, %phase : !llvm.ptr<3>, i32`

    Blocks until the phase of parity `%phase` of the mbarrier at `%bar` has completed:
    a spin loop on `mbarrier.try_wait.parity.shared.b64` (sm_90 / PTX 7.8, which may
    suspend the thread for a while), and on sm_80, which lacks `try_wait`, on
    `mbarrier.test_wait.parity.shared.b64` (PTX 7.1)."""

    name = "nvvm.mbarrier.try_wait.parity.shared"
    addr = operand_def(LLVMPointerType)
    phase = operand_def(I32)
    assembly_format = "$addr `,` $phase attr-dict `:` type($addr) `,` type($phase)"
    # A wait orders the accesses after it: never dead, never moved across memory ops.
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    MIN_PTX_ISA: ClassVar[str] = "7.1"

    def __init__(self, addr: SSAValue, phase: SSAValue):
        super().__init__(operands=[addr, phase])

    def verify_(self) -> None:
        self._check_address(self.addr)


MBARRIER_OPS: list[type[IRDLOperation]] = [
    MBarrierPoolAddressOp,
    MBarrierInitSharedOp,
    MBarrierArriveSharedOp,
    MBarrierTestWaitParitySharedOp,
    MBarrierTryWaitParitySharedOp,
]

NVVM = Dialect("nvvm", [*SPECIAL_REGISTERS, Barrier0Op, *MBARRIER_OPS], [])
