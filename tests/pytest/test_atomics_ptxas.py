"""Every atomic cuda_tile allows, assembled by ptxas for sm_80, sm_90a and sm_100a.

The combinations come from the op definitions, through their verifiers: each
`atomic_rmw_tko` mode and `atomic_cas_tko` with every element type, memory ordering and
memory scope the verifier accepts, the old values read or not; and
`atomic_red_view_tko` (no old values) likewise.  For each target, one kernel holds every
combination the target has; its PTX must assemble, and spell each atomic as PTX's
instruction set demands: `red` only for an operation and an order `red` has (issue 13:
an unused `xchg` was printed as `red...exch`, which is not PTX), the signedness of
`max`/`umax`, the order and the scope on the instruction.

A combination a target lacks must be rejected by tileir with a located diagnostic, and
the test shows ptxas rejecting the PTX instruction it would need (`LACKING`).

The PTX simulator runs the sm_90a kernel (every combination), and memory and the old
values must be what numpy computes applying the atomics one after the other.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache

import ml_dtypes
import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, parse_module_text
from tileir.diagnostics import CompileError
from tileir.dialects.cuda_tile.attributes import AtomicRMWMode, MemoryOrderingSemantics, MemoryScope
from tileir.dialects.cuda_tile.types import NUMBER_TYPE_SUMMARY
from tileir.registry import make_context
from tileir.targets import ARCHS, compute_capability
from tileir.testing import simulate

TARGETS = ["sm_80", "sm_90a", "sm_100a"]
#: Targets that lack something (`LACKING`): sm_80 and the last one before sm_90.
TARGETS_LACKING = ["sm_80", "sm_89"]

#: Every type a cuda_tile pointer may point to (`ptr<T>`: a number type).
ELEMENT_TYPES = NUMBER_TYPE_SUMMARY.split(" or ")

#: Elements per atomic: one per thread of the CTA (4 warps), so each atomic is one PTX
#: instruction per thread.
N = 128

CAS = "cas"


@dataclass(frozen=True)
class Atomic:
    """One combination: `op` is `rmw`, `cas` or `red_view`; `mode` an `AtomicRMWMode`
    value (`cas` for compare-and-swap)."""

    op: str
    mode: str
    element: str
    order: str
    scope: str
    used: bool

    def ptx(self) -> str:
        """The PTX instruction the PTX ISA asks for, without its operands: `red` only
        where `red` has the operation (add, min, max, and, or, xor, inc, dec; never
        exch or cas) and the order (relaxed, release)."""
        bits = int(re.sub(r"\D", "", self.element))
        float_add = {"f16": "noftz.f16", "bf16": "noftz.bf16"}.get(self.element, self.element)
        operation = {
            "add": f"add.u{bits}",
            "addf": f"add.{float_add}",
            "and": f"and.b{bits}",
            "or": f"or.b{bits}",
            "xor": f"xor.b{bits}",
            "max": f"max.s{bits}",
            "min": f"min.s{bits}",
            "umax": f"max.u{bits}",
            "umin": f"min.u{bits}",
            "xchg": f"exch.b{bits}",
            CAS: f"cas.b{bits}",
        }[self.mode]
        scope = {"tl_blk": "cta", "device": "gpu", "sys": "sys"}[self.scope]
        red = (
            not self.used
            and self.mode not in ("xchg", CAS)
            and self.order in ("relaxed", "release")
        )
        return f"{'red' if red else 'atom'}.{self.order}.{scope}.global.{operation}"


#: What a target lacks, by (mode, element): the first compute capability that has it
#: and the PTX instruction that needs it, which ptxas rejects below (PTX ISA,
#: `atom`/`red`: ".add.noftz.bf16 requires sm_90 or higher").
LACKING = {("addf", "bf16"): (90, "atom.global.add.noftz.bf16 %rs1, [%rd1], %rs2;")}


def lacks(arch: str, atomic: Atomic) -> bool:
    need = LACKING.get((atomic.mode, atomic.element))
    return need is not None and compute_capability(arch) < need[0]


def is_float(element: str) -> bool:
    return element.startswith(("f", "bf"))


def operands(combos: list[Atomic]) -> list[tuple[int, int]]:
    """Each atomic's operand and the value a `cas` compares with: small integers, so
    that every float sum is exact, negative ones for integer elements, so that `umax`
    differs from `max`.  Never an identity of the mode (0, -1) nor a compare equal to
    the operand: canonicalization would rightly turn such an atomic into a load."""
    rng = np.random.default_rng(13)
    pairs: list[tuple[int, int]] = []
    for c in combos:
        choices = [1, 2, 3] if is_float(c.element) else [-4, -3, -2, 1, 2, 3]
        value, compare = rng.choice(choices, 2, replace=False)
        pairs.append((int(value), int(compare)))
    return pairs


def constant(element: str, value: int) -> str:
    return f"<{element}: {f'{value}.0' if is_float(element) else value}>"


def _probe(op: str, mode: str, element: str, order: str, scope: str) -> str:
    """A module with one two-element atomic (f4 tiles have an even number of elements),
    for the verifier to judge."""
    tile, ptrs = f"tile<2x{element}>", f"tile<2xptr<{element}>>"
    view = f"tensor_view<2x{element}, strides=[1]>"
    lines = [
        f"%r = reshape %p : tile<ptr<{element}>> -> tile<1xptr<{element}>>",
        f"%ptrs = broadcast %r : tile<1xptr<{element}>> -> {ptrs}",
        f"%v, %lt = load_ptr_tko weak %ptrs : {ptrs} -> {tile}, token",
    ]
    if op == "red_view":
        lines += [
            f"%tv = make_tensor_view %p, shape = [2], strides = [1] : {view}",
            f"%pv = make_partition_view %tv : partition_view<tile=(2), {view}>",
            "%c0 = constant <i32: 0> : tile<i32>",
            f"%t = atomic_red_view_tko {order} {scope} %pv[%c0], {mode}, %v : {tile}, "
            f"partition_view<tile=(2), {view}>, tile<i32> -> token",
        ]
    elif op == CAS:
        lines.append(
            f"%old, %t = atomic_cas_tko {order} {scope} %ptrs, %v, %v : {ptrs}, {tile} "
            f"-> {tile}, token"
        )
    else:
        lines.append(
            f"%old, %t = atomic_rmw_tko {order} {scope} %ptrs, {mode}, %v : {ptrs}, {tile} "
            f"-> {tile}, token"
        )
    body = "\n    ".join([*lines, "return"])
    return f"""cuda_tile.module @m {{
  entry @k(%p: tile<ptr<{element}>>) {{
    {body}
  }}
}}"""


def _verifies(op: str, mode: str, element: str, order: str, scope: str) -> bool:
    """Whether the cuda_tile verifier accepts the combination; a rejection must come
    from the atomic op itself (not, say, from a malformed probe)."""
    try:
        parse_module_text(_probe(op, mode, element, order, scope), "probe.mlir")
    except CompileError as e:
        assert "atomic" in e.message, e.message
        return False
    return True


@cache
def allowed_combinations() -> list[Atomic]:
    """Every combination cuda_tile's verifiers accept.  Element types are probed per
    mode with a relaxed device atomic, orders and scopes per op with an i32 atomic of
    its first mode (the verifiers check the three independently)."""
    ops = {
        "rmw": [m.value for m in AtomicRMWMode],
        CAS: [CAS],
        "red_view": [m.value for m in AtomicRMWMode],
    }
    found: list[Atomic] = []
    for op, modes in ops.items():
        probe_mode = modes[0]
        orders = [
            o.value
            for o in MemoryOrderingSemantics
            if _verifies(op, probe_mode, "i32", o.value, "device")
        ]
        scopes = [
            s.value for s in MemoryScope if _verifies(op, probe_mode, "i32", "relaxed", s.value)
        ]
        uses = (False,) if op == "red_view" else (False, True)
        for mode in modes:
            elements = [e for e in ELEMENT_TYPES if _verifies(op, mode, e, "relaxed", "device")]
            found += [
                Atomic(op, mode, e, o, s, u)
                for e in elements
                for o in orders
                for s in scopes
                for u in uses
            ]
    return found


def test_the_enumeration_covers_what_nvidia_allows() -> None:
    """The verifiers' answer, stated once from NVIDIA's op definitions, so that a probe
    gone wrong (everything rejected) cannot shrink the test to nothing."""
    combos = allowed_combinations()
    by_op = Counter(c.op for c in combos)
    # rmw: (2 add + 4 addf + 6 bitwise + 8 min/max + 4 xchg) elements x 4 orders x 3
    # scopes x used/unused; cas: 4 elements; red_view: no xchg, relaxed, tl_blk/device.
    assert by_op == {"rmw": 24 * 4 * 3 * 2, CAS: 4 * 4 * 3 * 2, "red_view": 20 * 2}
    assert {c.element for c in combos if c.mode == "xchg"} == {"i32", "i64", "f32", "f64"}
    assert {c.order for c in combos} == {"relaxed", "acquire", "release", "acq_rel"}


def _element_args(elements: list[str]) -> str:
    return ", ".join(f"%p_{e}: tile<ptr<{e}>>, %o_{e}: tile<ptr<{e}>>" for e in elements)


def batch_kernel(combos: list[Atomic]) -> str:
    """One entry with every atomic of `combos` in order, each on the 128-element array
    `p_T` of its element type, each ordered after the previous one on that array by
    its token.  The old values that are read are chained (`xori`/`addf`) into one
    store to `o_T` per element type."""
    elements = sorted({c.element for c in combos})
    lines = [f"%iota = iota : tile<{N}xi32>", "%c0 = constant <i32: 0> : tile<i32>"]
    token: dict[str, str] = {}
    chain: dict[str, str] = {}
    for e in elements:
        tile, ptrs = f"tile<{N}x{e}>", f"tile<{N}xptr<{e}>>"
        for name in ("p", "o"):
            lines += [
                f"%{name}r_{e} = reshape %{name}_{e} : tile<ptr<{e}>> -> tile<1xptr<{e}>>",
                f"%{name}b_{e} = broadcast %{name}r_{e} : tile<1xptr<{e}>> -> {ptrs}",
                f"%{name}t_{e} = offset %{name}b_{e}, %iota : {ptrs}, tile<{N}xi32> -> {ptrs}",
            ]
        view = f"tensor_view<{N}x{e}, strides=[1]>"
        lines += [
            f"%tv_{e} = make_tensor_view %p_{e}, shape = [{N}], strides = [1] : {view}",
            f"%pv_{e} = make_partition_view %tv_{e} : partition_view<tile=({N}), {view}>",
            f"%t_{e} = make_token : token",
        ]
        token[e] = f"%t_{e}"
    for i, (c, (value, compare)) in enumerate(zip(combos, operands(combos), strict=True)):
        e = c.element
        tile, ptrs = f"tile<{N}x{e}>", f"tile<{N}xptr<{e}>>"
        order = f"{c.order} {c.scope}"
        lines.append(f"%val{i} = constant {constant(e, value)} : {tile}")
        if c.op == "red_view":
            view = f"partition_view<tile=({N}), tensor_view<{N}x{e}, strides=[1]>>"
            lines.append(
                f"%tok{i} = atomic_red_view_tko {order} %pv_{e}[%c0], {c.mode}, %val{i} "
                f"token = {token[e]} : {tile}, {view}, tile<i32> -> token"
            )
        else:
            if c.op == CAS:
                lines.append(f"%cmp{i} = constant {constant(e, compare)} : {tile}")
            args = f"%cmp{i}, %val{i}" if c.op == CAS else f"{c.mode}, %val{i}"
            name = "atomic_cas_tko" if c.op == CAS else "atomic_rmw_tko"
            lines.append(
                f"%old{i}, %tok{i} = {name} {order} %pt_{e}, {args} token={token[e]} "
                f": {ptrs}, {tile} -> {tile}, token"
            )
        token[e] = f"%tok{i}"
        if c.used:
            combine = "addf" if is_float(e) else "xori"
            if e in chain:
                lines.append(f"%acc{i} = {combine} {chain[e]}, %old{i} : {tile}")
                chain[e] = f"%acc{i}"
            else:
                chain[e] = f"%old{i}"
    for e, last in chain.items():
        lines.append(
            f"%st_{e} = store_ptr_tko weak %ot_{e}, {last} token={token[e]} : "
            f"tile<{N}xptr<{e}>>, tile<{N}x{e}> -> token"
        )
    body = "\n    ".join([*lines, "return"])
    return f"""cuda_tile.module @atomics {{
  entry @every_atomic({_element_args(elements)}) {{
    {body}
  }}
}}"""


ATOMIC_LINE = re.compile(r"^\s*@%p\d+ ((?:atom|red)\.[\w.]+)", re.M)


def compile_ptx(text: str, arch: str) -> str:
    ptx = compile_module(parse_module_text(text, "atomics.mlir", make_context()), arch).ptx
    assert ptx is not None
    return ptx


@cache
def batch_ptx(arch: str) -> tuple[list[Atomic], str]:
    """Every atomic `arch` has, in one kernel, and its PTX."""
    combos = [c for c in allowed_combinations() if not lacks(arch, c)]
    return combos, compile_ptx(batch_kernel(combos), arch)


@pytest.mark.parametrize("arch", TARGETS)
def test_every_atomic_the_target_has_assembles(arch: str) -> None:
    combos, ptx = batch_ptx(arch)
    report = run_ptxas(ptx, arch)
    assert report.ok, report.output
    # One instruction per atomic and thread, spelled as the PTX ISA asks.
    assert Counter(ATOMIC_LINE.findall(ptx)) == Counter(c.ptx() for c in combos)


NUMPY_TYPES: dict[str, type] = {
    "i32": np.int32,
    "i64": np.int64,
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
}


def updated(mode: str, memory: np.ndarray, value: np.ndarray, compare: np.ndarray) -> np.ndarray:
    """What one atomic leaves in memory (cuda_tile's semantics of `mode`)."""
    bits = f"u{memory.dtype.itemsize}"
    unsigned = memory.view(bits)
    if mode in ("add", "addf"):
        return memory + value
    if mode in ("and", "or", "xor"):
        return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[mode](
            memory, value
        )
    if mode in ("max", "min"):
        return np.maximum(memory, value) if mode == "max" else np.minimum(memory, value)
    if mode in ("umax", "umin"):
        pick = np.maximum if mode == "umax" else np.minimum
        return pick(unsigned, value.view(bits)).view(memory.dtype)
    if mode == "xchg":
        return value.copy()
    assert mode == CAS
    return np.where(unsigned == compare.view(bits), value, memory)


def batch_arguments(combos: list[Atomic]) -> list[np.ndarray]:
    """The arrays of `batch_kernel(combos)`, in parameter order: `p_T` holding small
    integers (as `operands` chooses them), `o_T` zeros."""
    rng = np.random.default_rng(0)
    args: list[np.ndarray] = []
    for e in sorted({c.element for c in combos}):
        memory = rng.integers(0 if is_float(e) else -4, 4, N).astype(NUMPY_TYPES[e])
        args += [memory, np.zeros(N, NUMPY_TYPES[e])]
    return args


def batch_results(combos: list[Atomic], args: list[np.ndarray]) -> list[np.ndarray]:
    """What `batch_kernel(combos)` leaves in `args`: each thread owns one element of
    each array, so its atomics apply one after the other, in token order."""
    elements = sorted({c.element for c in combos})
    memory = {e: args[2 * i].copy() for i, e in enumerate(elements)}
    chained: dict[str, np.ndarray] = {}
    for c, (v, w) in zip(combos, operands(combos), strict=True):
        e, dtype = c.element, NUMPY_TYPES[c.element]
        old = memory[e]
        value, compare = np.full(N, v, dtype), np.full(N, w, dtype)
        memory[e] = updated(c.mode, old, value, compare).astype(dtype)
        if c.used:
            if e not in chained:
                chained[e] = old
            elif is_float(e):
                chained[e] = (chained[e] + old).astype(dtype)
            else:
                chained[e] = chained[e] ^ old
    # An `o_T` no old value reaches keeps its zeros.
    zeros = {e: np.zeros(N, NUMPY_TYPES[e]) for e in elements}
    return [a for e in elements for a in (memory[e], chained.get(e, zeros[e]))]


def test_the_simulator_runs_every_atomic_as_numpy_does() -> None:
    """The PTX simulator executes every atomic tileir emits (sm_90a, which has them
    all), and memory and the chained old values match a sequential numpy model."""
    combos, ptx = batch_ptx("sm_90a")
    args = batch_arguments(combos)
    expected = batch_results(combos, args)
    simulate(ptx, (1, 1, 1), args)
    for got, want, name in zip(args, expected, _argument_names(combos), strict=True):
        np.testing.assert_array_equal(got, want, err_msg=name)


def _argument_names(combos: list[Atomic]) -> list[str]:
    return [f"{n}_{e}" for e in sorted({c.element for c in combos}) for n in ("p", "o")]


@pytest.mark.parametrize("arch", TARGETS_LACKING)
def test_every_atomic_the_target_lacks_is_a_located_error(arch: str) -> None:
    lacking = [c for c in allowed_combinations() if lacks(arch, c)]
    # bf16 addf: 4 orders x 3 scopes x used/unused, and the view's 2 scopes.
    assert len(lacking) == 4 * 3 * 2 + 2
    for c in lacking:
        with pytest.raises(CompileError) as caught:
            compile_ptx(batch_kernel([c]), arch)
        error = caught.value
        text = batch_kernel([c])
        line = 1 + text[: text.index("atomic_")].count("\n")
        assert error.location is not None
        assert (error.location.file, error.location.line) == ("atomics.mlir", line)
        need = LACKING[(c.mode, c.element)][0]
        assert f"incompatible with architecture '{arch}'" in error.message
        assert f"atomic {c.mode} on {c.element} needs sm_{need} or newer" in error.message


@pytest.mark.parametrize("arch", [*TARGETS, *TARGETS_LACKING[1:]])
def test_what_a_target_lacks_ptxas_rejects_too(arch: str) -> None:
    """The justification of `LACKING`: ptxas refuses the instruction on the targets
    tileir refuses it for, and takes it on the others."""
    for need, instruction in LACKING.values():
        ptx = (
            f".version {ARCHS[arch].ptx_version}\n.target {arch}\n.address_size 64\n"
            ".visible .entry k(.param .u64 a)\n{\n.reg .b16 %rs<3>;\n.reg .b64 %rd<2>;\n"
            f"ld.param.u64 %rd1, [a];\nmov.b16 %rs2, 0;\n{instruction}\nret;\n}}\n"
        )
        report = run_ptxas(ptx, arch)
        assert report.ok == (compute_capability(arch) >= need), report.output
        if not report.ok:
            assert f"requires .target sm_{need} or higher" in report.output, report.output
