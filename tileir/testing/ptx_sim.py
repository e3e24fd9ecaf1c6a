"""A numpy simulator for the PTX that tileir emits: check kernels' numbers without a GPU.

``simulate(ptx, grid, args)`` runs one kernel over a whole grid and writes the
results back into the numpy arrays passed as its pointer arguments::

    from tileir.testing import simulate
    simulate(ptx, grid=(10, 1, 1), args=[a, n, stride, out, n, stride])

How it works: the PTX is parsed, its registers and labels resolved, and every
instruction decoded up front (an instruction outside the supported subset fails
before anything runs).  Then the threads of all CTAs execute: each thread has a
program counter, and each step runs one instruction for a group of threads at it,
as one numpy operation over arrays with an element per thread (``ptx_machine``).
Which group is the scheduler's choice (``ptx_sched``, ``warp_order``): by default the
lowest pending instruction for all threads at it (lock-step: threads that branch
apart run their paths one after the other and meet again where the paths join);
``"round-robin"`` runs one warp at a time until it waits, ``"random"`` (with ``seed``)
picks warps at random; results must not depend on it.  Threads that wait are left
out: at a ``bar.sync`` / ``barrier.sync`` / ``bar.arrive`` (``ptx_barriers``: named
barriers 0-15, with a thread count over a subset of warps, counted per warp as the
ISA says), at a warpgroup-collective instruction until their whole warpgroup is
there, or after an ``mbarrier.try_wait`` / ``test_wait`` that failed, until some
mbarrier changes; so warp-specialized kernels (a producer warp feeding consumer
warps) run.  What is modelled:

* ``.shared`` arrays per CTA (``ptx_shared``); ``ldmatrix`` and ``mma.sync`` per whole
  warp (``ptx_mma``); sm_90a's ``wgmma`` (``fence``, ``commit_group``, ``wait_group``
  and ``mma_async`` with f16/bf16/tf32/e4m3/e5m2/s8/u8 operands, A from registers or a
  shared-memory descriptor, B from a descriptor) per whole warpgroup of 128 threads,
  with the fence, wait and proxy rules of the asynchronous instruction (``ptx_wgmma``);
  ``shfl.sync`` (``bfly``/``idx``/``up``/``down``, with the clamp and segment mask),
  failing unless every lane of its member mask executes it together;
* mbarrier objects (``ptx_mbarrier``): ``init``, ``arrive`` (``.expect_tx``,
  ``.noComplete``, ``arrive_drop``), ``expect_tx``, ``complete_tx``, ``test_wait`` /
  ``try_wait`` by phase parity or arrival state, ``inval``; phases, pending arrivals
  and transaction counts as the ISA defines them;
* asynchronous copies (``ptx_async``): sm_80's ``cp.async.{ca,cg}`` with ``src-size``
  zero-fill and ``ignore-src``, ``commit_group`` / ``wait_group`` / ``wait_all`` and
  ``cp.async.mbarrier.arrive{.noinc}``; sm_90's ``cp.async.bulk`` from global to shared
  memory completing on an mbarrier (``complete_tx::bytes``) and from shared to global
  memory in bulk groups (``commit_group`` / ``wait_group{.read}``); ``fence.proxy.async``
  and ``fence.mbarrier_init``.  A copy's bytes land only when a wait observes its
  completion: at the ``wait_group``, or when the mbarrier phase its transaction
  belongs to completes (as late as the hardware may complete it);
* tensor maps built on the device, ``cp.async.bulk.tensor`` loads and stores (``ptx_tma``):
  ``tensormap.replace`` (fields kept in a side table: the map's bit layout is not
  modelled), ``tensormap.cp_fenceproxy``, ``fence.proxy.tensormap::generic``,
  ``prefetch.tensormap``; 1-D to 5-D tile-mode boxes with zero/NaN fill and the
  32/64/128-byte swizzles, loads completing on an mbarrier, stores in bulk groups;
* ``setmaxnreg.{inc,dec}``, with the CTA's register pool it draws on, and ``elect.sync``
  (``ptx_warpctl``);
* ``atom``/``red`` on global memory, the active threads' read-modify-writes one at a
  time, in thread order (one valid execution; atomic writes are not race-checked).

Memory-ordering qualifiers of ``ld``/``st``/``atom`` have no effect (CTAs do not
communicate; within a CTA, ordering comes from the synchronization above).  Votes,
clusters, tensor maps passed as kernel parameters and other warp-level operations are
not supported.

The simulator is also a checker; it raises ``SimulationError`` (with a ``kind``,
the PTX line, the instruction, the thread and the address) for

* a global load or store outside every array argument (arrays sit in a flat
  memory with guard gaps between them), or not aligned to its size;
* a register read in a thread that never wrote it;
* a *race* (``race``): two threads writing the same byte, or a thread reading shared
  bytes another wrote, or writing shared bytes another read, with no synchronization
  ordering the two accesses: a barrier both took part in, an mbarrier arrival and the
  wait that observed its phase (``ptx_order``: vector clocks, so the verdict does not
  depend on the order the warps ran in; ``ptx_races``);
* an *asynchronous race* (``async-race``): an access to bytes a copy has not written
  yet or still reads, an access to bytes a copy wrote that no observed wait orders
  after its completion, a copy overwriting bytes whose readers did not release them
  (a stage refilled too early), a write into shared bytes a ``wgmma`` or
  ``tcgen05.mma`` read that is not ordered after their completion (the
  ``wgmma.wait_group`` that retired them, the ``tcgen05.commit``'s mbarrier phase),
  a generic ``st.shared`` reaching the async proxy
  (``wgmma`` operands, a bulk store's source) without the writer's
  ``fence.proxy.async`` ordered before it, a CTA exiting while a bulk store still
  reads its shared memory;
* a *deadlock* (``deadlock``): every remaining thread waits (at a barrier nobody will
  complete, on an mbarrier phase nobody will complete, at a collective, at a
  ``setmaxnreg.inc`` asking for more registers than its CTA's pool will hold), with
  what each warp waits for;
* misused synchronization: a ``bar.sync`` reached by part of a warp (divergent
  barrier), a warp arriving twice at a barrier, more arrivals than an mbarrier phase
  expects, an mbarrier used before its init is ordered before the use or touched by
  ``ld``/``st``, ``setmaxnreg`` by part of a warpgroup, again without the warpgroup
  synchronizing, in the wrong direction, or in a kernel without ``.maxnreg``;
* a ``bra.uni`` whose threads of one warp disagree;
* an instruction, modifier or directive it does not support, or invalid PTX.

Arithmetic is exact where PTX is exact (see ``ptx_float_ops`` and ``ptx_numeric``).
``.approx`` instructions return the correctly rounded value of the exact
function by default; ``approx="bound"`` moves each result by the error bound
modelled for it (``ptx_float_ops.APPROX_ERROR``), which checks that a test's
tolerance covers the hardware's documented error.

Arguments: a numpy array for each pointer (``.u64``) parameter, a Python (or
numpy) scalar for the others; ``float`` for ``.f32``/``.f64``, ``int`` for
integer parameters.  ``.b16`` parameters take a numpy ``float16``/``bfloat16``
scalar or the raw bits as an ``int``.  An array must be C-contiguous or a view
into a C-contiguous base array; a view places its whole base in memory (like
``tests/corpus/_common.backing_buffer``) at the same relative position, so views
of one base alias, and a view starting ``k`` bytes into its base gets an address
``k`` bytes past a 256-byte boundary (a way to test weaker alignments).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from tileir.testing import (
    ptx_barriers,  # noqa: F401  (registers bar and barrier)
    ptx_mbarrier,  # noqa: F401  (registers mbarrier)
    ptx_mma,  # noqa: F401  (registers ldmatrix and mma.sync)
    ptx_tcgen05,  # noqa: F401  (registers tcgen05: tensor memory, sm_100a)
    ptx_tma,  # noqa: F401  (registers tensormap and prefetch: tensor maps, sm_90a)
    ptx_warpctl,  # noqa: F401  (registers setmaxnreg and elect)
    ptx_wgmma,  # noqa: F401  (registers wgmma)
)
from tileir.testing.ptx_async import finish  # registers cp.async, cp.async.bulk, fence
from tileir.testing.ptx_calls import init_locals, place_locals
from tileir.testing.ptx_decode import Exec
from tileir.testing.ptx_errors import INTERNAL, UNSUPPORTED, SimulationError
from tileir.testing.ptx_globals import init_globals, place_globals
from tileir.testing.ptx_machine import GlobalMemory, Machine, ThreadGrid
from tileir.testing.ptx_numeric import FORMATS, TYPES, UINT, PtxType
from tileir.testing.ptx_ops import decode
from tileir.testing.ptx_parse import Instruction, Kernel, Module, Param, parse_module
from tileir.testing.ptx_program import Program, build_program
from tileir.testing.ptx_sched import WARP_ORDERS, WARPGROUP_OPCODES, Step, release_rendezvous, run
from tileir.testing.ptx_shared import SharedDecl, init_shared, place_shared

__all__ = ["APPROX_MODES", "WARP_ORDERS", "SimulationError", "simulate"]

#: ``nearest``: correctly rounded exact function; ``bound``: worst modelled error.
APPROX_MODES = ("nearest", "bound")


def simulate(
    ptx: str,
    grid: tuple[int, int, int],
    args: Sequence[Any],
    kernel: str | None = None,
    *,
    approx: str = "nearest",
    check_races: bool = True,
    max_steps: int = 1_000_000,
    printed: list[str] | None = None,
    dynamic_shared: int | None = None,
    indirect_arrays: Sequence[np.ndarray] = (),
    warp_order: str = "lockstep",
    seed: int | None = None,
    sm_count: int = 132,
) -> None:
    """Run ``kernel`` (the module's only kernel if ``None``) over ``grid`` CTAs.

    The block size is the kernel's ``.reqntid``.  Array arguments are updated in
    place with what the kernel stored.  Raises ``SimulationError`` on any fault
    or unsupported PTX, or after ``max_steps`` instructions (an endless loop);
    arrays are then left unchanged.  What ``vprintf`` prints (``print_tko``) is
    appended to ``printed``, one string per call, threads in order (``ptx_calls``).
    ``dynamic_shared`` is the launch's dynamic shared memory in bytes (the module's
    ``.extern .shared`` array, ``%dynamic_smem_size``); ``None`` gives what the module
    records for the kernel in ``__tileir_dynamic_smem_bytes_<kernel>``, as
    ``tileir.runtime`` launches it, or 0.
    ``indirect_arrays`` are placed after the array arguments, in order, and updated
    like them: arrays the kernel reaches only through addresses it reads from memory
    (cuTile's lists of arrays pass a table of base addresses).  A ``GlobalMemory``
    that places the same arrays in the same order gives the same addresses, to write
    into such a table beforehand.
    ``warp_order`` is the order the warps run in (``ptx_sched``): ``"lockstep"``,
    ``"round-robin"`` or ``"random"`` (with ``seed``).
    ``sm_count``: the SMs the CTAs are spread over (``%smid`` is the CTA's linear index
    modulo it, ``%nsmid`` is it).
    """
    if approx not in APPROX_MODES:
        raise ValueError(f"approx must be one of {APPROX_MODES}, got {approx!r}")
    if warp_order not in WARP_ORDERS:
        raise ValueError(f"warp_order must be one of {WARP_ORDERS}, got {warp_order!r}")
    k, block, dynamic_shared, program, steps = _prepare(ptx, kernel, dynamic_shared)
    memory = GlobalMemory()
    params = bind_params(k.params, args, memory)
    for i, a in enumerate(indirect_arrays):
        memory.place(a, f"indirect array {i} (shape {a.shape}, {a.dtype})")
    shared = place_shared(program.shared, memory, grid)
    variables = place_globals(program.globals, memory)
    threads = ThreadGrid(grid, block, dynamic_shared, sm_count)
    local = place_locals(program.locals, memory, threads.count)
    memory.materialize()
    machine = Machine(threads, memory, params, approx, check_races, k.maxnreg)
    machine.lines = [ins.line for ins in program.instructions]
    machine.exit_hooks.append(release_rendezvous)
    machine.declare(program.registers)
    init_shared(machine, shared)
    init_globals(machine, variables)
    init_locals(machine, local)
    collective = [
        pc for pc, ins in enumerate(program.instructions) if ins.opcode in WARPGROUP_OPCODES
    ]
    with np.errstate(all="ignore"):
        run(machine, steps, max_steps, warp_order, seed, collective)
        finish(machine)
    memory.write_back()
    if printed is not None:
        printed.extend(machine.printed)


#: ``_prepare``'s last results: a test runs one kernel's PTX several times in a row
#: (aligned and at its declared alignment, nearest and bound, warp orders), and its
#: parse, program and decoded steps (a fifth to a quarter of a small kernel's run) are
#: the same each time: nothing in them changes as a run goes (its state is the
#: ``Machine``'s).
_Prepared = tuple[Kernel, tuple[int, int, int], int, Program, list[Step]]
_PREPARED: dict[tuple[str, str | None, int | None], _Prepared] = {}
_PREPARED_KEPT = 2


def _prepare(ptx: str, kernel: str | None, dynamic_shared: int | None) -> _Prepared:
    """The kernel (with the module's dynamic shared array and globals), its block, the
    launch's dynamic shared bytes, its program and each instruction's step."""
    key = (ptx, kernel, dynamic_shared)
    prepared = _PREPARED.get(key)
    if prepared is not None:
        return prepared
    module = parse_module(ptx)
    k = select_kernel(module, kernel)
    block = k.reqntid
    if block is None:
        raise SimulationError(
            f"kernel {k.name} has no .reqntid: the block size is unknown", kind=UNSUPPORTED
        )
    if dynamic_shared is None:
        from tileir.backend.ptx.target import dynamic_shared_symbol

        dynamic_shared = module.constants.get(dynamic_shared_symbol(k.name), 0)
    if module.dynamic_shared is not None:
        # The extern array is the CTA's dynamic shared memory (at least one aligned
        # slot, so that a launch that gave none still has an address to trap at).
        name, align = module.dynamic_shared
        k = replace(k, body=[SharedDecl(0, name, max(dynamic_shared, align), align), *k.body])
    if module.globals:
        k = replace(k, body=[*module.globals, *k.body])
    program = build_program(k)
    steps = [_instruction_step(ins, decode(ins)) for ins in program.instructions]
    prepared = (k, block, dynamic_shared, program, steps)
    while len(_PREPARED) >= _PREPARED_KEPT:
        del _PREPARED[next(iter(_PREPARED))]
    _PREPARED[key] = prepared
    return prepared


def select_kernel(module: Module, name: str | None) -> Kernel:
    if module.address_size != 64:
        raise SimulationError(f".address_size must be 64, got {module.address_size}")
    if name is None:
        if len(module.kernels) != 1:
            raise SimulationError(
                f"the module has {len(module.kernels)} kernels; name one: "
                + ", ".join(module.kernels)
            )
        return next(iter(module.kernels.values()))
    if name not in module.kernels:
        raise SimulationError(f"no kernel {name}; the module has: " + ", ".join(module.kernels))
    return module.kernels[name]


def _instruction_step(ins: Instruction, execute: Exec) -> Step:
    """Run ``ins`` in the threads at it whose guard holds."""

    def step(m: Machine) -> None:
        m.current = ins
        try:
            active = m.group
            if ins.guard is not None:
                active = active & m.read_pred(ins.guard, m.group)
            if active.any():
                execute(m, active)
        except SimulationError as e:
            raise e.located(ins.line, ins.text) from None
        except Exception as e:  # a simulator bug: say where it happened
            raise SimulationError(
                f"simulator bug: {e!r}", kind=INTERNAL, line=ins.line, instruction=ins.text
            ) from e

    return step


# --------------------------------------------------------------------- parameters


def bind_params(
    params: Sequence[Param], args: Sequence[Any], memory: GlobalMemory
) -> dict[str, tuple[PtxType, int]]:
    """Each parameter's type and value bits; arrays are placed in ``memory``."""
    if len(args) != len(params):
        raise SimulationError(f"the kernel has {len(params)} parameters, got {len(args)} arguments")
    bound: dict[str, tuple[PtxType, int]] = {}
    for i, (p, arg) in enumerate(zip(params, args, strict=True)):
        t = TYPES.get(p.type_name)
        if t is None or t.kind == "pred":
            raise SimulationError(f"unsupported parameter type .{p.type_name} ({p.name})")
        bound[p.name] = (t, _argument_bits(i, p, t, arg, memory))
    return bound


def _argument_bits(i: int, p: Param, t: PtxType, arg: Any, memory: GlobalMemory) -> int:
    if isinstance(arg, np.ndarray):
        if t.bits != 64 or t.is_float:
            raise SimulationError(f"argument {i} is an array but {p.name} is .{t.name}")
        label = f"array argument {i} ({p.name}, shape {arg.shape}, {arg.dtype})"
        return memory.place(arg, label)
    try:
        return scalar_bits(arg, t)
    except (TypeError, ValueError) as e:
        raise SimulationError(f"argument {i} for .{t.name} {p.name}: {e}") from None


def scalar_bits(value: Any, t: PtxType) -> int:
    """The bits of a scalar argument for a parameter of type ``t``.

    A numpy scalar as wide as ``t`` is passed bit for bit; Python floats round to
    nearest into float parameters; ints must fit the parameter's width."""
    if isinstance(value, np.generic):
        same_kind = (value.dtype.kind == "f") == t.is_float or t.kind == "b"
        if value.dtype.itemsize * 8 == t.bits and same_kind:
            return int(np.asarray(value).view(UINT[t.bits]))
        value = value.item()
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int) and not t.is_float:
        if not -(1 << (t.bits - 1)) <= value < (1 << t.bits):
            raise ValueError(f"{value} does not fit in {t.bits} bits")
        return value & ((1 << t.bits) - 1)
    if isinstance(value, int | float) and t.is_float:
        if t.bits == 16:
            raise TypeError("pass a numpy float16/bfloat16 scalar for a 16-bit float")
        fmt = FORMATS[t.name]
        return int(np.asarray(float(value), dtype=fmt.dtype).view(UINT[t.bits]))
    raise TypeError(f"cannot pass {type(value).__name__} {value!r}")
