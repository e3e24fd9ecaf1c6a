"""Warp-control instructions of warp-specialized kernels in the PTX simulator:
``setmaxnreg`` and ``elect.sync``.

Written from the PTX ISA's *setmaxnreg* and *elect.sync* sections.

* ``setmaxnreg.{inc,dec}.sync.aligned.u32 N``: moves the warp's per-thread register
  budget to ``N`` (24 .. 256, a multiple of 8).  It has no effect on values here (the
  simulator has as many registers as the PTX declares), but the rules are checked: all
  threads of the warpgroup execute the same ``setmaxnreg`` together (the scheduler
  gathers the warpgroup first, ``ptx_sched``; a warpgroup with some threads exited or
  elsewhere is an error), all its warps synchronize (a barrier joining them) before the
  next ``setmaxnreg``, ``.inc`` does not lower the budget and ``.dec`` does not raise it
  (the first one in a kernel has nothing to compare with).
* ``elect.sync d|p, membermask``: every thread of ``membermask`` executes it together;
  the leader is the lowest active lane of the mask (the ISA only says it is the same
  one every time); ``d`` (or the sink ``_``) gets its lane number, ``p`` is true in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tileir.testing.ptx_decode import Exec, Mods, decoder, invalid, lanes_of, operands
from tileir.testing.ptx_errors import INVALID
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_numeric import TYPES
from tileir.testing.ptx_parse import Imm, Instruction, Reg, Vec
from tileir.testing.ptx_program import SINK


@dataclass
class _Registers:
    #: Per warpgroup: its register budget after its last setmaxnreg, the line, and each
    #: thread's own time then (the warps must have synchronized since).
    budget: dict[int, int] = field(default_factory=dict)
    times: dict[int, tuple[np.ndarray, np.ndarray, str]] = field(default_factory=dict)


def _state(m: Machine) -> _Registers:
    state = m.extensions.get(__name__)
    if isinstance(state, _Registers):
        return state
    state = _Registers()
    m.extensions[__name__] = state
    return state


@decoder("setmaxnreg")
def decode_setmaxnreg(ins: Instruction) -> Exec:
    mods = Mods(ins)
    action = mods.one_of(("inc", "dec"))
    if action is None:
        raise invalid(ins, "setmaxnreg needs .inc or .dec")
    if not (mods.flag("sync") and mods.flag("aligned")):
        raise invalid(ins, "setmaxnreg without .sync.aligned")
    if mods.type("u") != TYPES["u32"]:
        raise invalid(ins, "setmaxnreg is .u32")
    mods.done()
    (n,) = operands(ins, 1)
    if not isinstance(n, Imm) or not isinstance(n.value, int):
        raise invalid(ins, f"setmaxnreg takes a literal register count, got {n}")
    count = int(n.value)
    if not 24 <= count <= 256 or count % 8:
        raise invalid(ins, f"setmaxnreg register count {count} (24 .. 256, a multiple of 8)")
    text = ins.text

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        threads = m.threads
        groups = threads.warpgroup[lanes]
        state = _state(m)
        for g in np.unique(groups).tolist():
            members = np.flatnonzero(threads.warpgroup == g)
            here = lanes[groups == g]
            if len(here) != len(members):
                missing = np.zeros(m.count, dtype=bool)
                missing[members] = True
                missing[here] = False
                raise m.fail(
                    f"`{text}` executed by {len(here)} of the {len(members)} threads of a "
                    "warpgroup (every warp of the warpgroup executes the same setmaxnreg)",
                    missing if missing.any() else int(here[0]),
                    kind=INVALID,
                )
            previous = state.times.get(g)
            if previous is not None:
                before, times, where = previous
                local = m.order.local[before]
                seen = m.order.clock[np.ix_(here, local)]
                if (seen <= times[None, :]).any():
                    raise m.fail(
                        f"setmaxnreg again without the warps of the warpgroup synchronizing "
                        f"since the last one (`{where}`)",
                        int(here[0]),
                        kind=INVALID,
                    )
            budget = state.budget.get(g)
            if budget is not None and (
                (action == "inc" and count < budget) or (action == "dec" and count > budget)
            ):
                raise m.fail(
                    f"setmaxnreg.{action} to {count} registers from {budget}",
                    int(here[0]),
                    kind=INVALID,
                )
            state.budget[g] = count
            # The warpgroup's threads must meet again before the next one: remember
            # their times now, then tick, so only a later release satisfies the check.
            state.times[g] = (here, m.order.now(here).copy(), text)
            m.order.tick(here)

    return run


@decoder("elect")
def decode_elect(ins: Instruction) -> Exec:
    mods = Mods(ins)
    if not mods.flag("sync"):
        raise invalid(ins, "elect without .sync")
    mods.done()
    d, mask = operands(ins, 2)
    if not isinstance(d, Vec) or len(d.items) != 2:
        raise invalid(ins, "elect.sync's destination is d|p")
    lane_dest, pred_dest = d.items
    if not isinstance(lane_dest, Reg) or not isinstance(pred_dest, Reg):
        raise invalid(ins, "elect.sync's destination is d|p")

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        masks = m.read(mask, TYPES["u32"], act)[lanes].astype(np.int64)
        laneid = m.threads.special("%laneid").astype(np.int64)
        leader = np.zeros(m.count, dtype=bool)
        chosen = np.zeros(m.count, dtype=np.uint32)
        for w in np.unique(m.threads.warp[lanes]).tolist():
            at = m.threads.warp[lanes] == w
            here = lanes[at]
            member = masks[at]
            if (member != member[0]).any():
                raise m.fail("elect.sync: the threads disagree on the member mask", int(here[0]))
            bits = int(member[0])
            ids = laneid[here]
            if ((bits >> ids) & 1 == 0).any():
                raise m.fail("elect.sync executed by a lane outside its member mask", int(here[0]))
            if len(here) != bin(bits).count("1"):
                raise m.fail(
                    "elect.sync: not every lane of the member mask executes it together",
                    int(here[0]),
                )
            first = int(here[int(np.argmin(ids))])
            leader[first] = True
            chosen[here] = laneid[first]
        if lane_dest.name != SINK:
            m.write_bits(lane_dest, chosen, TYPES["b32"], act)
        m.write_pred(pred_dest, leader, act)

    return run
