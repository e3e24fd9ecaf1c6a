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
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, parse_module_text
from tileir.diagnostics import CompileError
from tileir.dialects.cuda_tile.attributes import AtomicRMWMode, MemoryOrderingSemantics, MemoryScope
from tileir.dialects.cuda_tile.types import NUMBER_TYPE_SUMMARY
from tileir.registry import make_context
from tileir.targets import ARCHS, compute_capability

TARGETS = ["sm_80", "sm_90a", "sm_100a"]
#: ... and for what a target lacks, also the last one before sm_90.
LACKING_TARGETS = [*TARGETS, "sm_89"]

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


def constant(element: str, value: int) -> str:
    literal = f"{value}.0" if element.startswith(("f", "bf")) else str(value)
    return f"<{element}: {literal}>"


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
    """One entry with every atomic of `combos`, each on a 128-element tile of its
    element type.  The old values that are read are chained (`xori`/`addf`) into one
    store per element type."""
    elements = sorted({c.element for c in combos})
    lines = ["%iota = iota : tile<128xi32>", "%c0 = constant <i32: 0> : tile<i32>"]
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
            f"%val_{e} = constant {constant(e, 3)} : {tile}",
            f"%cmp_{e} = constant {constant(e, 5)} : {tile}",
            f"%tv_{e} = make_tensor_view %p_{e}, shape = [{N}], strides = [1] : {view}",
            f"%pv_{e} = make_partition_view %tv_{e} : partition_view<tile=({N}), {view}>",
        ]
    chain = {e: "" for e in elements}
    for i, c in enumerate(combos):
        e = c.element
        tile, ptrs = f"tile<{N}x{e}>", f"tile<{N}xptr<{e}>>"
        head = f"%old{i}, %tok{i} ="
        if c.op == "red_view":
            view = f"partition_view<tile=({N}), tensor_view<{N}x{e}, strides=[1]>>"
            lines.append(
                f"%tok{i} = atomic_red_view_tko {c.order} {c.scope} %pv_{e}[%c0], {c.mode}, "
                f"%val_{e} : {tile}, {view}, tile<i32> -> token"
            )
            continue
        if c.op == CAS:
            lines.append(
                f"{head} atomic_cas_tko {c.order} {c.scope} %pt_{e}, %cmp_{e}, %val_{e} "
                f": {ptrs}, {tile} -> {tile}, token"
            )
        else:
            lines.append(
                f"{head} atomic_rmw_tko {c.order} {c.scope} %pt_{e}, {c.mode}, %val_{e} "
                f": {ptrs}, {tile} -> {tile}, token"
            )
        if c.used:
            combine = "addf" if e.startswith(("f", "bf")) else "xori"
            if chain[e]:
                lines.append(f"%acc{i} = {combine} {chain[e]}, %old{i} : {tile}")
                chain[e] = f"%acc{i}"
            else:
                chain[e] = f"%old{i}"
    for e, last in chain.items():
        if last:
            lines.append(
                f"%st_{e} = store_ptr_tko weak %ot_{e}, {last} : tile<{N}xptr<{e}>>, "
                f"tile<{N}x{e}> -> token"
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


@pytest.mark.parametrize("arch", TARGETS)
def test_every_atomic_the_target_has_assembles(arch: str) -> None:
    combos = [c for c in allowed_combinations() if not lacks(arch, c)]
    ptx = compile_ptx(batch_kernel(combos), arch)
    report = run_ptxas(ptx, arch)
    assert report.ok, report.output
    # One instruction per atomic and thread, spelled as the PTX ISA asks.
    assert Counter(ATOMIC_LINE.findall(ptx)) == Counter(c.ptx() for c in combos)


def lacking_combinations(arch: str) -> Iterator[Atomic]:
    return (c for c in allowed_combinations() if lacks(arch, c))


@pytest.mark.parametrize("arch", LACKING_TARGETS)
def test_every_atomic_the_target_lacks_is_a_located_error(arch: str) -> None:
    for c in lacking_combinations(arch):
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


@pytest.mark.parametrize("arch", LACKING_TARGETS)
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
