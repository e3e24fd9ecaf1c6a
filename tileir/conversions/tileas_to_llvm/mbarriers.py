"""mbarrier instructions as the lowering issues them (PTX ISA, *mbarrier*): the
initialization by one thread, the parity wait and the arrivals.  The pipelines of
warp-specialized agents (`agents.py`) and the full barriers of one-agent rings
(`async_copy.py`) both go through these."""

from __future__ import annotations

from xdsl.dialects.builtin import i32
from xdsl.ir import SSAValue

from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import FunctionState

#: Bytes of one mbarrier object.
MBARRIER_BYTES = 8


def cta_thread_zero(b: LLBuilder, state: FunctionState) -> SSAValue:
    assert state.tid is not None
    return b.icmp("eq", state.tid, b.const(0, i32))


def init_mbarrier(b: LLBuilder, address: SSAValue, count: int, first: SSAValue) -> None:
    """`mbarrier.init` of the object at `address` expecting `count` arrivals, in the
    thread where `first` holds (one thread; a CTA barrier must follow before any use)."""
    asm = ptx.PtxAsm()
    mine = asm.input(first, "b")
    asm.instr(
        "mbarrier.init.shared::cta.b64",
        ptx.address(asm.input(address, "r")),
        ptx.immediate(count),
        guard=mine,
    )
    b.asm(asm)


def invalidate_mbarrier(b: LLBuilder, address: SSAValue, first: SSAValue) -> None:
    """`mbarrier.inval` of the object at `address`, in the thread where `first` holds
    (after a CTA barrier that every use of it precedes); its bytes may then be
    initialized again."""
    asm = ptx.PtxAsm()
    mine = asm.input(first, "b")
    asm.instr("mbarrier.inval.shared::cta.b64", ptx.address(asm.input(address, "r")), guard=mine)
    b.asm(asm)


def wait_parity(b: LLBuilder, barrier: SSAValue, parity: SSAValue) -> None:
    """Spin on `mbarrier.try_wait.parity` until the phase of `parity` has completed."""
    asm = ptx.PtxAsm()
    address = asm.input(barrier, "r")
    phase = asm.input(parity, "r")
    asm.register("pred", "t_done")
    asm.label("tileir_wait")
    asm.instr("mbarrier.try_wait.parity.shared::cta.b64", "t_done", ptx.address(address), phase)
    asm.instr("bra", "tileir_wait", guard="t_done", negate=True)
    b.asm(asm, min_ptx_isa="7.8")


def instruction(
    b: LLBuilder, name: str, *operands: SSAValue | int, min_ptx_isa: str | None = None
) -> None:
    """One instruction whose operands are immediates and shared addresses."""
    asm = ptx.PtxAsm()
    parts = [
        ptx.immediate(v) if isinstance(v, int) else ptx.address(asm.input(v, "r")) for v in operands
    ]
    asm.instr(name, *parts)
    b.asm(asm, min_ptx_isa=min_ptx_isa)


def arrive(b: LLBuilder, barrier: SSAValue, count: SSAValue | None = None, first: int = 0) -> None:
    """`mbarrier.arrive` on `barrier` (its state discarded); only where `count >= first`
    when `first` is positive."""
    asm = ptx.PtxAsm()
    address = ptx.address(asm.input(barrier, "r"))
    guard = None
    if count is not None and first:
        asm.register("pred", "t_some")
        asm.instr("setp.ge.u32", "t_some", asm.input(count, "r"), ptx.immediate(first))
        guard = "t_some"
    asm.instr("mbarrier.arrive.shared::cta.b64", "_", address, guard=guard)
    b.asm(asm)


def arrive_after_copies(b: LLBuilder, barrier: SSAValue) -> None:
    """The thread's arrival on `barrier` for its `cp.async` copies so far and its
    synchronous stores: `cp.async.mbarrier.arrive` (without `.noinc` it raises the
    phase's pending count by one and lowers it again when the copies land: no net
    arrival, PTX ISA) and `mbarrier.arrive`, which counts and releases the thread's
    stores (an element path's `st.shared`).  So the barrier expects one arrival a
    copying thread, and its phase completes once every such thread's copies landed."""
    instruction(b, "cp.async.mbarrier.arrive.shared::cta.b64", barrier)
    arrive(b, barrier)
