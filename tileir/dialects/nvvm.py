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

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
    DenseArrayBase,
    IntegerAttr,
    StringAttr,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.dialects.llvm import LLVMPointerType, LLVMStructType
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
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


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """`nvvm.barrier id = %id number_of_threads = %n : i32, i32`: named barrier `%id`
    (0-15) of `%n` threads, a multiple of 32 (`bar.sync id, n`; PTX ISA "bar, barrier").
    The warps that reach it wait until `%n` threads' warps have; a warp-specialized
    agent's CTA-wide barriers become its own (`tileas_to_llvm/agents.py`).  Memory
    effects as `nvvm.barrier0`'s."""

    name = "nvvm.barrier"
    barrier_id = operand_def(I32)
    number_of_threads = operand_def(I32)
    assembly_format = (
        "`id` `=` $barrier_id `number_of_threads` `=` $number_of_threads attr-dict "
        "`:` type($barrier_id) `,` type($number_of_threads)"
    )
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, barrier_id: SSAValue, number_of_threads: SSAValue):
        super().__init__(operands=[barrier_id, number_of_threads])


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


# ---------------------------------------------------------------------------
# Warp shuffles (PTX ISA "Data Movement and Conversion Instructions: shfl.sync").
# ---------------------------------------------------------------------------

#: The modes of `shfl.sync`: which lane each thread reads.
SHFL_KINDS = ("bfly", "up", "down", "idx")


@irdl_op_definition
class ShflSyncOp(IRDLOperation):
    """`%r = nvvm.shfl.sync bfly %mask, %val, %offset, %clamp : i32 -> i32`

    Every thread of `%mask` reads `%val` from another lane of the warp
    (`shfl.sync.<kind>.b32`, sm_30 / PTX 6.0): `bfly` the lane `lane ^ offset`, `up` and
    `down` the lane `lane -/+ offset`, `idx` the lane `offset`; `%clamp` packs the
    segment mask and the clamp lane (PTX's operand `c`), and a thread whose source lane
    is out of range keeps its own value.  Named and shaped as upstream MLIR's
    `nvvm.shfl.sync` (without `return_value_and_is_valid`: tileir never reads the
    predicate); the value is one 32-bit word.  The `ptx` target prints an operand that an
    `llvm.mlir.constant` defines as an immediate when the constant has no other use.
    Convergent: no `Pure`, so that no pass drops or moves it."""

    name = "nvvm.shfl.sync"
    thread_mask = operand_def(I32)
    val = operand_def(Attribute)
    offset = operand_def(I32)
    mask_and_clamp = operand_def(I32)
    kind = prop_def(StringAttr)
    res = result_def(Attribute)

    def __init__(
        self,
        kind: str,
        thread_mask: SSAValue,
        val: SSAValue,
        offset: SSAValue,
        mask_and_clamp: SSAValue,
        result_type: Attribute | None = None,
    ):
        super().__init__(
            operands=[thread_mask, val, offset, mask_and_clamp],
            result_types=[val.type if result_type is None else result_type],
            properties={"kind": StringAttr(kind)},
        )

    def verify_(self) -> None:
        if self.kind.data not in SHFL_KINDS:
            raise VerifyException(
                f"kind must be one of {', '.join(SHFL_KINDS)}, got '{self.kind.data}'"
            )
        if self.val.type not in (i32, f32):
            raise VerifyException(
                f"the value must be one 32-bit word (i32 or f32), got {self.val.type}"
            )
        if self.res.type != self.val.type:
            raise VerifyException(
                f"the result type {self.res.type} must be the value's type {self.val.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ShflSyncOp:
        kind = parser.parse_identifier()
        thread_mask = parser.parse_operand()
        parser.parse_punctuation(",")
        val = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_operand()
        parser.parse_punctuation(",")
        mask_and_clamp = parser.parse_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        val_type = parser.parse_type()
        parser.parse_punctuation("->")
        res_type = parser.parse_type()
        value = parser.resolve_operand(val, val_type)
        op = cls(kind, thread_mask, value, offset, mask_and_clamp, res_type)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.val.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.res.type)


# ---------------------------------------------------------------------------
# Warp-level matrix multiply (PTX ISA "Warp Level Matrix Multiply-Accumulate
# Instructions": ldmatrix, mma.sync).
# ---------------------------------------------------------------------------

#: Fragment layouts: `row` reads the 8x8 matrices as stored, `col` transposed
#: (upstream MLIR's `#nvvm.mma_layout`).
MMA_LAYOUTS = ("row", "col")
#: The operand types of `mma.sync` tileir emits, as PTX spells them.
MMA_MULTIPLICAND_TYPES = ("f16", "bf16", "tf32", "s8", "u8", "e4m3", "e5m2")
#: The accumulator types, as PTX spells them (`f16`: two halves per i32 register).
MMA_ACCUMULATOR_TYPES = ("f16", "f32", "s32")


def _check_choice(what: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise VerifyException(f"{what} must be one of {', '.join(choices)}, got '{value}'")


def _struct_or_word(count: int, t: Attribute) -> Attribute:
    """One register of type `t`, or a struct of `count` of them (upstream's result)."""
    return t if count == 1 else LLVMStructType.from_type_list([t] * count)


def _result_words(result: Attribute) -> list[Attribute]:
    return list(result.types) if isinstance(result, LLVMStructType) else [result]


@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """`%r = nvvm.ldmatrix %addr {num = 4 : i32, layout = "row"} : (i32) -> !llvm.struct<(i32, i32, i32, i32)>`

    Each thread receives, per 8x8 matrix of 16-bit elements, the 32-bit word of its row
    (`ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16`, sm_75 / PTX 6.5); the
    threads of the warp give the rows' shared-memory addresses (lanes 0-7 the first
    matrix, ...).  `layout = "col"` transposes (`.trans`).  As upstream MLIR's
    `nvvm.ldmatrix`, one word for `num = 1`, a struct of `num` words otherwise; unlike
    it, the address is the 32-bit shared-window address tileir keeps in an i32 (what
    the `r` constraint of the inline asm it replaces took), not an `!llvm.ptr<3>`.
    Reads memory: no `Pure`, so that it is never dropped or reordered."""

    name = "nvvm.ldmatrix"
    ptr = operand_def(I32)
    num = prop_def(IntegerAttr[I32])
    layout = prop_def(StringAttr)
    res = result_def(Attribute)
    assembly_format = "$ptr attr-dict `:` `(` type($ptr) `)` `->` type($res)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, ptr: SSAValue, num: int, layout: str = "row"):
        super().__init__(
            operands=[ptr],
            result_types=[_struct_or_word(num, i32)],
            properties={"num": IntegerAttr(num, i32), "layout": StringAttr(layout)},
        )

    @property
    def count(self) -> int:
        return self.num.value.data

    def verify_(self) -> None:
        if self.count not in (1, 2, 4):
            raise VerifyException(f"num must be 1, 2 or 4 matrices, got {self.count}")
        _check_choice("layout", self.layout.data, MMA_LAYOUTS)
        if self.res.type != _struct_or_word(self.count, i32):
            raise VerifyException(
                f"the result must be {_struct_or_word(self.count, i32)} for num = {self.count}, got {self.res.type}"
            )


@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """`%d = nvvm.mma.sync A[%a0, ...] B[%b0, ...] C[%c0, ...] {shape = array<i32: 16, 8, 16>, ...} : (...) -> !llvm.struct<(...)>`

    One warp-wide `mma.sync.aligned.m16n8k{k}.row.col.{acc}.{a}.{b}.{acc}` (sm_80):
    D = A x B + C on fragments in registers, A and B as 32-bit words of packed
    elements, C and D as `f32` / `s32` registers or `i32` words of two halves.  Shaped
    as upstream MLIR's `nvvm.mma.sync` (`shape`, `layoutA`, `layoutB`,
    `multiplicandAPtxType`, `multiplicandBPtxType`; the result a struct of D's
    registers), with the accumulator type an attribute too (`accumulatorPtxType`),
    since tileir packs f16 pairs into i32 words where upstream uses `vector<2xf16>`.
    8-bit float operands need PTX ISA 8.4, with an f16 accumulator 8.7 (`MIN_PTX_ISA`).
    Printed generically; no `Pure`, as the inline asm it replaces."""

    name = "nvvm.mma.sync"
    operandA = var_operand_def(I32)
    operandB = var_operand_def(I32)
    operandC = var_operand_def(Attribute)
    shape = prop_def(DenseArrayBase[I32])
    layoutA = prop_def(StringAttr)
    layoutB = prop_def(StringAttr)
    multiplicandAPtxType = prop_def(StringAttr)
    multiplicandBPtxType = prop_def(StringAttr)
    accumulatorPtxType = prop_def(StringAttr)
    res = result_def(LLVMStructType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        a: Sequence[SSAValue],
        b: Sequence[SSAValue],
        c: Sequence[SSAValue],
        shape: tuple[int, int, int],
        types: tuple[str, str, str],
        layouts: tuple[str, str] = ("row", "col"),
    ):
        a_type, b_type, acc_type = types
        super().__init__(
            operands=[list(a), list(b), list(c)],
            result_types=[LLVMStructType.from_type_list([v.type for v in c])],
            properties={
                "shape": DenseArrayBase.from_list(i32, list(shape)),
                "layoutA": StringAttr(layouts[0]),
                "layoutB": StringAttr(layouts[1]),
                "multiplicandAPtxType": StringAttr(a_type),
                "multiplicandBPtxType": StringAttr(b_type),
                "accumulatorPtxType": StringAttr(acc_type),
            },
        )

    @property
    def mnk(self) -> tuple[int, int, int]:
        m, n, k = (int(v) for v in self.shape.get_values())
        return m, n, k

    @property
    def MIN_PTX_ISA(self) -> str | None:
        if self.multiplicandAPtxType.data not in ("e4m3", "e5m2"):
            return None
        return "8.7" if self.accumulatorPtxType.data == "f16" else "8.4"

    def verify_(self) -> None:
        if len(self.shape.get_values()) != 3:
            raise VerifyException("shape must be m, n, k")
        m, n, k = self.mnk
        if (m, n) != (16, 8) or k not in (8, 16, 32):
            raise VerifyException(f"shape must be m16n8k8, m16n8k16 or m16n8k32, got m{m}n{n}k{k}")
        if (self.layoutA.data, self.layoutB.data) != ("row", "col"):
            raise VerifyException("m16n8 mma.sync takes layoutA = row and layoutB = col")
        _check_choice(
            "multiplicandAPtxType", self.multiplicandAPtxType.data, MMA_MULTIPLICAND_TYPES
        )
        _check_choice(
            "multiplicandBPtxType", self.multiplicandBPtxType.data, MMA_MULTIPLICAND_TYPES
        )
        acc = self.accumulatorPtxType.data
        _check_choice("accumulatorPtxType", acc, MMA_ACCUMULATOR_TYPES)
        register = {"f16": i32, "f32": f32, "s32": i32}[acc]
        words = 2 if acc == "f16" else 4
        if [v.type for v in self.operandC] != [register] * words:
            raise VerifyException(f"C must be {words} {register} registers for a {acc} accumulator")
        if _result_words(self.res.type) != [register] * words:
            raise VerifyException(f"the result must be a struct of {words} {register} registers")
        if len(self.operandA) not in (2, 4) or len(self.operandB) not in (1, 2):
            raise VerifyException("A takes 2 or 4 words and B 1 or 2")


@irdl_op_definition
class FenceProxyOp(IRDLOperation):
    """`nvvm.fence.proxy {kind = "async.shared", space = "cta"}`

    Orders the generic proxy's accesses before it with the async proxy's after it
    (`fence.proxy.async.shared::cta`, sm_90 / PTX 8.0): what `st.shared` wrote becomes
    visible to `wgmma`.  Upstream MLIR's `nvvm.fence.proxy`, its `kind` and `space` as
    strings.  Orders memory: never dropped or moved."""

    name = "nvvm.fence.proxy"
    kind = prop_def(StringAttr)
    space = prop_def(StringAttr)
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    MIN_PTX_ISA: ClassVar[str] = "8.0"

    def __init__(self, kind: str = "async.shared", space: str = "cta"):
        super().__init__(properties={"kind": StringAttr(kind), "space": StringAttr(space)})

    def verify_(self) -> None:
        if (self.kind.data, self.space.data) != ("async.shared", "cta"):
            raise VerifyException(
                'tileir emits only the async proxy fence on the CTA\'s shared memory (kind = "async.shared", space = "cta")'
            )


# ---------------------------------------------------------------------------
# Warpgroup matrix multiply (PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-
# Accumulate Instructions": wgmma.fence, wgmma.mma_async, wgmma.commit_group,
# wgmma.wait_group), sm_90a.
# ---------------------------------------------------------------------------


class WgmmaSyncOp(IRDLOperation):
    """A `wgmma` instruction that only orders: every warp of the warpgroup runs it
    together.  It orders register and memory accesses around the asynchronous
    multiplies, so it reads and writes memory as far as passes can tell: never
    dropped, never moved across another memory op."""

    assembly_format = "attr-dict"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    MIN_PTX_ISA: ClassVar[str] = "8.0"


@irdl_op_definition
class WgmmaFenceAlignedOp(WgmmaSyncOp):
    """`nvvm.wgmma.fence.aligned`: orders the warpgroup's earlier accesses to the
    accumulator (and A) registers before the `wgmma.mma_async` that follows
    (`wgmma.fence.sync.aligned`, sm_90a / PTX 8.0).  Upstream MLIR's name."""

    name = "nvvm.wgmma.fence.aligned"


@irdl_op_definition
class WgmmaGroupSyncAlignedOp(WgmmaSyncOp):
    """`nvvm.wgmma.commit.group.sync.aligned`: closes the uncommitted
    `wgmma.mma_async` of the warpgroup into one group (`wgmma.commit_group.sync.aligned`,
    sm_90a / PTX 8.0).  Upstream MLIR's name."""

    name = "nvvm.wgmma.commit.group.sync.aligned"


@irdl_op_definition
class WgmmaWaitGroupSyncOp(WgmmaSyncOp):
    """`nvvm.wgmma.wait.group.sync.aligned 0`: waits until at most `group` committed
    groups are still in flight (`wgmma.wait_group.sync.aligned N`, sm_90a / PTX 8.0);
    with 0, every multiply has written its accumulator, which may then be read.
    Upstream MLIR's name and `group` attribute."""

    name = "nvvm.wgmma.wait.group.sync.aligned"
    group = prop_def(IntegerAttr[I64])
    assembly_format = "attr-dict $group"

    def __init__(self, group: int = 0):
        super().__init__(properties={"group": IntegerAttr(group, i64)})

    def verify_(self) -> None:
        if self.group.value.data < 0:
            raise VerifyException(f"group must be at least 0, got {self.group.value.data}")


#: Operand types of `wgmma.mma_async` (as PTX spells them), with K and the
#: accumulator types each allows: 16-bit floats K = 16, tf32 K = 8, 8-bit K = 32.
WGMMA_OPERAND_TYPES: dict[str, tuple[int, tuple[str, ...]]] = {
    "f16": (16, ("f32", "f16")),
    "bf16": (16, ("f32",)),
    "tf32": (8, ("f32",)),
    "e4m3": (32, ("f32", "f16")),
    "e5m2": (32, ("f32", "f16")),
    "s8": (32, ("s32",)),
    "u8": (32, ("s32",)),
}
#: Operand types whose pairs `wgmma.mma_async` accepts beyond equal types.
_WGMMA_TYPE_FAMILIES = ({"e4m3", "e5m2"}, {"s8", "u8"})
#: `scaleD`: whether D's old value is added (`one`) or ignored (`zero`).
WGMMA_SCALE_OUT = ("one", "zero")
#: `scaleA` / `scaleB`: `neg` negates the operand (floating-point types only).
WGMMA_SCALE_IN = ("one", "neg")
#: The largest N of one `wgmma.mma_async` (PTX ISA).
WGMMA_MAX_N = 256
#: 32-bit words of a thread's A fragment of one K step, when A is in registers: 32
#: bytes of A a thread (64 rows by 32 bytes of K over a warpgroup's 128 threads).
WGMMA_A_REGISTERS = 4


#: The properties of `nvvm.wgmma.mma_async`, written in its attribute dictionary.
_WGMMA_PROPERTIES = (
    "shape",
    "typeA",
    "typeB",
    "typeD",
    "scaleD",
    "scaleA",
    "scaleB",
    "layoutA",
    "layoutB",
)


@irdl_op_definition
class WgmmaMmaAsyncOp(IRDLOperation):
    """`%d = nvvm.wgmma.mma_async %descA, %descB, %c {shape = array<i32: 64, 32, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "row"} : !llvm.struct<(f32, ...)> -> !llvm.struct<(f32, ...)>`

    One warpgroup-wide `wgmma.mma_async.sync.aligned.m64n{N}k{K}.{typeD}.{typeA}.{typeB}`
    (sm_90a / PTX 8.0): D = A x B (+ C when `scaleD` is `one`), A and B both in shared
    memory, given by their 64-bit matrix descriptors, C and D the warpgroup's
    accumulator fragment (a struct of N/2 `f32` or `i32` registers, or of N/4 `i32`
    words of two halves for an f16 accumulator).  As upstream MLIR's
    `nvvm.wgmma.mma_async`: the accumulator goes in and comes out as one struct of the
    same type; `layoutA = "row"` and `layoutB = "col"` are the K-major operands, the
    other layouts the transposed (MN-major) ones, which only 16-bit types have
    (`imm-trans-a/b`); `scaleA/B = "neg"` negates an operand (floats only).  As
    upstream, A may instead be in registers: a struct of 4 i32 words holding the
    thread's elements of A's fragment (PTX ISA, "Register Fragments and Shared Memory
    Matrix Layouts" of wgmma: the rows and columns `mma.sync`'s m16n8k16 A fragment
    gives a warp, warp `w` of the warpgroup taking rows 16w ..); it is then K-major
    (`layoutA = "row"`, no `imm-trans-a`).  Unlike
    upstream, types, scales and layouts are strings and the shape a dense array, as
    for `nvvm.mma.sync`; `satfinite` is not supported.  Mixed `s8`/`u8` operands need
    PTX ISA 8.4 (`MIN_PTX_ISA`).

    The multiply is asynchronous: `nvvm.wgmma.fence.aligned` must come before it and
    `nvvm.wgmma.commit.group.sync.aligned` and `nvvm.wgmma.wait.group.sync.aligned`
    after it, before D is read.  The `ptx` target gives D the registers of C when C
    has no other use (a chain of K steps accumulates in place, as the instruction
    does), and otherwise copies C into D's registers first.  Reads shared memory: no
    `Pure`."""

    name = "nvvm.wgmma.mma_async"
    #: A's matrix descriptor (an i64), or A itself in registers: a struct of 4 i32 words,
    #: the warpgroup's A fragment of one K step (`WGMMA_A_REGISTERS`).
    descriptorA = operand_def(EqAttrConstraint(i64) | BaseAttr(LLVMStructType))
    descriptorB = operand_def(i64)
    inouts = operand_def(LLVMStructType)
    shape = prop_def(DenseArrayBase[I32])
    typeA = prop_def(StringAttr)
    typeB = prop_def(StringAttr)
    typeD = prop_def(StringAttr)
    scaleD = prop_def(StringAttr)
    scaleA = prop_def(StringAttr)
    scaleB = prop_def(StringAttr)
    layoutA = prop_def(StringAttr)
    layoutB = prop_def(StringAttr)
    results_ = result_def(LLVMStructType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaMmaAsyncOp:
        """`%a, %b, %c {...} : [type(%a),] type(%c) -> type(result)`: A's type is
        written only for A in registers (a descriptor is an i64)."""
        names = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            names.append(parser.parse_unresolved_operand())
        attributes = dict(parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        if parser.parse_optional_punctuation(","):
            types.append(parser.parse_type())
        parser.parse_punctuation("->")
        result = parser.parse_type()
        a_type = types[0] if len(types) == 2 else i64
        operand_types = (a_type, i64, types[-1])
        operands = [parser.resolve_operand(n, t) for n, t in zip(names, operand_types, strict=True)]
        properties = {k: attributes.pop(k) for k in _WGMMA_PROPERTIES if k in attributes}
        return cls.build(
            operands=operands,
            result_types=[result],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes({**self.properties, **self.attributes})
        printer.print_string(" : ")
        if isinstance(self.descriptorA.type, LLVMStructType):
            printer.print_attribute(self.descriptorA.type)
            printer.print_string(", ")
        printer.print_attribute(self.inouts.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.results_.type)

    def __init__(
        self,
        descriptor_a: SSAValue,
        descriptor_b: SSAValue,
        inouts: SSAValue,
        shape: tuple[int, int, int],
        types: tuple[str, str, str],
        layouts: tuple[str, str] = ("row", "col"),
        scales: tuple[str, str, str] = ("one", "one", "one"),
    ):
        type_a, type_b, type_d = types
        scale_d, scale_a, scale_b = scales
        super().__init__(
            operands=[descriptor_a, descriptor_b, inouts],
            result_types=[inouts.type],
            properties={
                "shape": DenseArrayBase.from_list(i32, list(shape)),
                "typeA": StringAttr(type_a),
                "typeB": StringAttr(type_b),
                "typeD": StringAttr(type_d),
                "scaleD": StringAttr(scale_d),
                "scaleA": StringAttr(scale_a),
                "scaleB": StringAttr(scale_b),
                "layoutA": StringAttr(layouts[0]),
                "layoutB": StringAttr(layouts[1]),
            },
        )

    @property
    def mnk(self) -> tuple[int, int, int]:
        m, n, k = (int(v) for v in self.shape.get_values())
        return m, n, k

    @property
    def MIN_PTX_ISA(self) -> str:
        return "8.4" if {self.typeA.data, self.typeB.data} == {"s8", "u8"} else "8.0"

    def verify_(self) -> None:
        if len(self.shape.get_values()) != 3:
            raise VerifyException("shape must be m, n, k")
        m, n, k = self.mnk
        a, b, d = self.typeA.data, self.typeB.data, self.typeD.data
        _check_choice("typeA", a, tuple(WGMMA_OPERAND_TYPES))
        _check_choice("typeB", b, tuple(WGMMA_OPERAND_TYPES))
        if a != b and not any({a, b} <= family for family in _WGMMA_TYPE_FAMILIES):
            raise VerifyException(f"typeA {a} and typeB {b} cannot be multiplied together")
        k_of_type, accumulators = WGMMA_OPERAND_TYPES[a]
        _check_choice(f"typeD of {a} operands", d, accumulators)
        if m != 64 or k != k_of_type or n % 8 or not 8 <= n <= WGMMA_MAX_N:
            raise VerifyException(
                f"shape must be m64nNk{k_of_type} with N a multiple of 8 up to "
                f"{WGMMA_MAX_N} for {a} operands, got m{m}n{n}k{k}"
            )
        _check_choice("scaleD", self.scaleD.data, WGMMA_SCALE_OUT)
        _check_choice("scaleA", self.scaleA.data, WGMMA_SCALE_IN)
        _check_choice("scaleB", self.scaleB.data, WGMMA_SCALE_IN)
        _check_choice("layoutA", self.layoutA.data, MMA_LAYOUTS)
        _check_choice("layoutB", self.layoutB.data, MMA_LAYOUTS)
        if d == "s32" and "neg" in (self.scaleA.data, self.scaleB.data):
            raise VerifyException("integer operands cannot be negated (scaleA/B = neg)")
        if k != 16 and (self.layoutA.data, self.layoutB.data) != ("row", "col"):
            raise VerifyException(
                f"only 16-bit operands may be transposed: {a} takes layoutA = row and layoutB = col"
            )
        if isinstance(self.descriptorA.type, LLVMStructType):
            if _result_words(self.descriptorA.type) != [i32] * WGMMA_A_REGISTERS:
                raise VerifyException(
                    f"A in registers must be a struct of {WGMMA_A_REGISTERS} i32 words"
                )
            if self.layoutA.data != "row":
                raise VerifyException("A in registers is K-major: layoutA must be row")
        register = f32 if d == "f32" else i32
        words = n // 4 if d == "f16" else n // 2
        if _result_words(self.inouts.type) != [register] * words:
            raise VerifyException(
                f"the accumulator must be a struct of {words} {register} registers for m{m}n{n} into {d}"
            )
        if self.results_.type != self.inouts.type:
            raise VerifyException(
                f"the result type {self.results_.type} must be the accumulator's {self.inouts.type}"
            )


WGMMA_OPS: list[type[IRDLOperation]] = [
    WgmmaFenceAlignedOp,
    WgmmaMmaAsyncOp,
    WgmmaGroupSyncAlignedOp,
    WgmmaWaitGroupSyncOp,
]


# ---------------------------------------------------------------------------
# Programmatic dependent launch (PTX ISA "griddepcontrol"), sm_90.
# ---------------------------------------------------------------------------

#: What `griddepcontrol` does: wait for the grids this one depends on, or let the
#: grids that depend on this one launch.
GRIDDEPCONTROL_KINDS = ("wait", "launch_dependents")


@irdl_op_definition
class GriddepcontrolOp(IRDLOperation):
    """`nvvm.griddepcontrol wait` / `nvvm.griddepcontrol launch_dependents`

    `griddepcontrol.wait` blocks until the prerequisite grids have completed and their
    memory is visible; `griddepcontrol.launch_dependents` lets the dependent grids
    launch early (sm_90 / PTX 7.8).  Upstream MLIR's name and kinds, the kind a string.
    Orders memory: never dropped or moved."""

    name = "nvvm.griddepcontrol"
    kind = prop_def(StringAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    MIN_PTX_ISA: ClassVar[str] = "7.8"

    def __init__(self, kind: str):
        super().__init__(properties={"kind": StringAttr(kind)})

    def verify_(self) -> None:
        _check_choice("kind", self.kind.data, GRIDDEPCONTROL_KINDS)

    @classmethod
    def parse(cls, parser: Parser) -> GriddepcontrolOp:
        op = cls(parser.parse_identifier())
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data}")
        printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------
# Asynchronous copies (PTX ISA "Data Movement and Conversion Instructions: cp.async").
# ---------------------------------------------------------------------------


@irdl_op_definition
class CpAsyncCommitGroupOp(IRDLOperation):
    """`nvvm.cp.async.commit.group`: closes the thread's group of `cp.async` copies
    issued since the last commit (`cp.async.commit_group`, sm_80).  Upstream MLIR's
    name.  Orders memory: never dropped or moved."""

    name = "nvvm.cp.async.commit.group"
    assembly_format = "attr-dict"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self):
        super().__init__()


@irdl_op_definition
class CpAsyncWaitGroupOp(IRDLOperation):
    """`nvvm.cp.async.wait.group 1`: waits until at most `n` of the thread's committed
    groups are still in flight (`cp.async.wait_group N`, sm_80; 0 waits for all).
    Upstream MLIR's name and `n` attribute.  Orders memory: never dropped or moved."""

    name = "nvvm.cp.async.wait.group"
    n = prop_def(IntegerAttr[I32])
    assembly_format = "$n attr-dict"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, n: int):
        super().__init__(properties={"n": IntegerAttr(n, i32)})

    def verify_(self) -> None:
        if self.n.value.data < 0:
            raise VerifyException(f"n must be at least 0, got {self.n.value.data}")


CP_ASYNC_OPS = [CpAsyncCommitGroupOp, CpAsyncWaitGroupOp]


NVVM = Dialect(
    "nvvm",
    [
        *SPECIAL_REGISTERS,
        Barrier0Op,
        BarrierOp,
        *MBARRIER_OPS,
        ShflSyncOp,
        LdMatrixOp,
        MmaSyncOp,
        FenceProxyOp,
        *WGMMA_OPS,
        *CP_ASYNC_OPS,
        GriddepcontrolOp,
    ],
    [],
)
