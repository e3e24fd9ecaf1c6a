"""Checking `optimization_hints` against the op that carries them.

An `optimization_hints=<sm_90 = {num_cta_in_cga = 2}, default = {...}>` attribute
maps targets (`sm_80` ... `sm_121`, `default`) to hint dictionaries.  Which hints an
op accepts, and their ranges, follow NVIDIA's rules:

| hint | ops | values |
|---|---|---|
| `num_cta_in_cga` | entry | power of two <= 16 (1 on sm_8x) |
| `num_worker_warps_per_cta` | entry | power of two <= 32 |
| `occupancy` | entry | 1 to 32 |
| `allow_tma` | load/store_view_tko | boolean |
| `latency` | load/store_view_tko, load/store_ptr_tko | 1 to 10 |

As in NVIDIA's tools, bad hints are silent by default.  `HINT_POLICY.warn` (the
`-Wunsupported-hints` flag) reports each bad hint as a warning;
`HINT_POLICY.error` (`-Werr-hints`) also makes the op fail to verify with
`Optimization hints verification failed`.  Warnings go to `HINT_POLICY.sink` when
one is set, else through `tileir.dialects.cuda_tile.warnings.emit_warning` (tileir-opt
sets the policy from its `--Wunsupported-hints` and `--Werr-hints` flags).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation

from tileir.diagnostics import CompileError
from tileir.dialects.cuda_tile.warnings import emit_warning, make_warning

KNOWN_TARGETS = (
    "sm_80",
    "sm_86",
    "sm_87",
    "sm_88",
    "sm_89",
    "sm_90",
    "sm_100",
    "sm_103",
    "sm_110",
    "sm_120",
    "sm_121",
    "default",
)

#: The attribute a kernel's entry hints travel under, from cuda_tile to nv_tileas.
HINTS_ATTR = "cuda_tile.optimization_hints"

NUM_CTA_IN_CGA = "num_cta_in_cga"
NUM_WORKER_WARPS_PER_CTA = "num_worker_warps_per_cta"
OCCUPANCY = "occupancy"
ALLOW_TMA = "allow_tma"
LATENCY = "latency"

#: Targets without clusters: one CTA per CGA.
_SINGLE_CTA_TARGETS = ("sm_80", "sm_86", "sm_87", "sm_88", "sm_89")


@dataclass
class HintPolicy:
    """How bad hints are reported (see the module doc)."""

    warn: bool = False
    error: bool = False
    sink: Callable[[CompileError], None] | None = field(default=None)

    def report(self, op: Operation, message: str) -> None:
        if self.sink is not None:
            self.sink(make_warning(op, message))
        else:
            emit_warning(op, message)


HINT_POLICY = HintPolicy()


def _int_value(value: Attribute) -> int | None:
    if isinstance(value, IntegerAttr) and isinstance(value.type, IntegerType):
        if value.type.width.data == 1:
            return None
        return value.value.data
    return None


def _power_of_two_at_most(value: int, limit: int) -> bool:
    return 0 < value <= limit and value & (value - 1) == 0


def check_hint(target: str, key: str, value: Attribute) -> str | None:
    """Why `key = value` is not a valid hint for `target` (None when it is)."""
    number = _int_value(value)
    where = f"{target}.{key}"
    if key == NUM_CTA_IN_CGA:
        if number is None:
            return f"integer value expected for {where}"
        if target.startswith(_SINGLE_CTA_TARGETS) and number != 1:
            return f"expected 1 for {where}"
        if not _power_of_two_at_most(number, 16):
            return f"expected power-of-two ≤ 16 for {where}"
        return None
    if key == NUM_WORKER_WARPS_PER_CTA:
        if number is None:
            return f"integer value expected for {where}"
        if not _power_of_two_at_most(number, 32):
            return f"expected power-of-two ≤ 32 for {where}"
        return None
    if key == ALLOW_TMA:
        is_bool = (
            isinstance(value, IntegerAttr)
            and isinstance(value.type, IntegerType)
            and value.type.width.data == 1
        )
        return None if is_bool else f"boolean value expected for {where}"
    if key == LATENCY:
        if number is None:
            return f"integer value expected for {where}"
        if not 1 <= number <= 10:
            return f"integer value in the range [1, 10] is expected for {where}"
        return None
    if key == OCCUPANCY:
        if number is None:
            return f"integer value expected for {where}"
        if not 1 <= number <= 32:
            return f"integer value in the range [1, 32] is expected for {where}"
        return None
    return f"unknown param {key} for {target}"


def hints_for(op_name: str) -> tuple[str, ...]:
    """The hint keys op `op_name` accepts."""
    short = op_name.removeprefix("cuda_tile.")
    if short == "entry":
        return (NUM_CTA_IN_CGA, NUM_WORKER_WARPS_PER_CTA, OCCUPANCY)
    if short in ("load_view_tko", "store_view_tko"):
        return (LATENCY, ALLOW_TMA)
    if short in ("load_ptr_tko", "store_ptr_tko"):
        return (LATENCY,)
    return ()


def hint_problems(op_name: str, hints: DictionaryAttr) -> list[str]:
    """Every problem with `hints` on op `op_name`, in NVIDIA's order."""
    allowed = hints_for(op_name)
    problems: list[str] = []
    for target, entry in hints.data.items():
        if not isinstance(entry, DictionaryAttr):
            continue
        if target not in KNOWN_TARGETS:
            problems.append(f"unknown hint key {target}")
            continue
        for key, value in entry.data.items():
            if allowed and key not in allowed:
                problems.append(f"{key} is not known hint for current Operation")
                continue
            problem = check_hint(target, key, value)
            if problem is not None:
                problems.append(problem)
    return problems


def verify_optimization_hints(op: Operation, hints: DictionaryAttr) -> str | None:
    """Check `hints` on `op` under `HINT_POLICY`; the verifier error (without the op
    prefix), or None."""
    for target, entry in hints.data.items():
        if not isinstance(entry, DictionaryAttr):
            return (
                f"expected dictionary attribute for optimization_hints entry `{target}` got "
                f"value={entry}"
            )
    if not HINT_POLICY.warn:
        return None
    problems = hint_problems(op.name, hints)
    for problem in problems:
        HINT_POLICY.report(op, problem)
    if problems and HINT_POLICY.error:
        return "Optimization hints verification failed"
    return None
