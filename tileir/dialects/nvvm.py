"""The NVVM dialect: NVIDIA-specific ops beside the llvm dialect.  Op names follow
upstream MLIR (`nvvm.read.ptx.sreg.tid.x`, `nvvm.barrier0`); each knows the PTX it
becomes (`PTX` class constant), which the `ptx` target prints."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import i32
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, result_def, traits_def
from xdsl.traits import MemoryReadEffect, Pure


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
    accesses before it with those after it."""

    name = "nvvm.barrier0"
    assembly_format = "attr-dict"
    traits = traits_def(MemoryReadEffect())


NVVM = Dialect("nvvm", [*SPECIAL_REGISTERS, Barrier0Op], [])
