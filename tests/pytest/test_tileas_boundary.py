"""The boundary rule (ARCHITECTURE.md, issue 14): after the tileas stage a corpus kernel
holds nv_tileas ops, scf/arith/func, and the per-element cuda_tile compute ops on builtin
carriers (the stated exception: elementwise ops, constants, `iota` and the grid queries)
and nothing else; and no nv_tileaa op, type or attribute anywhere, the kernel marker
included (`nv_tileas.kernel`).  A structural op leaking past `convert-tileaa-to-tileas`,
or an nv_tileaa type or attribute left on a value or an op, fails here."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp
from xdsl.ir import Attribute, Operation, ParametrizedAttribute

from tileir.compiler import compile_module, load_module
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import KERNEL_ATTR

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
KERNELS = sorted(CORPUS.glob("*.tileirbc"))
_TESTS = Path(__file__).resolve().parents[1]
#: Kernels with what no corpus kernel has: prints, assertions, grid-dependency control
#: and globals (cuTile's own exports, and a FileCheck test's kernels).
EFFECT_KERNELS = [
    _TESTS / "pytest" / "bytecode_fixtures" / "cutile" / "printing.13.1.mlir",
    _TESTS / "pytest" / "bytecode_fixtures" / "cutile" / "grid_dependency.13.4.mlir",
    _TESTS / "filecheck" / "conversions" / "tileas_to_llvm_printing.mlir",
    _TESTS / "filecheck" / "conversions" / "tileaa_to_tileas_effects.mlir",
]

_BOUNDARY_DIALECTS = ("nv_tileas.", "scf.", "arith.", "func.", "builtin.")
_PER_ELEMENT = (ElementwiseOp, ct.ConstantOp, ct.IotaOp, ct.GetTileBlockIdOp, ct.GetNumTileBlocksOp)
_EARLIER = "nv_tileaa."

_STAGES: dict[Path, ModuleOp] = {}


def _tileas(kernel: Path) -> ModuleOp:
    """The kernel after the tileas stage on sm_90a (compiled once per test session)."""
    if kernel not in _STAGES:
        module = load_module(kernel)
        compile_module(module, "sm_90a", stop_after="tileas")
        _STAGES[kernel] = module
    return _STAGES[kernel]


def _past_the_boundary(op: Operation) -> bool:
    return not op.name.startswith(_BOUNDARY_DIALECTS) and not isinstance(op, _PER_ELEMENT)


def _earlier_names(attr: Attribute) -> set[str]:
    """The nv_tileaa types and attributes inside `attr`, parameters included."""
    found: set[str] = set()
    if isinstance(attr, ParametrizedAttribute):
        if attr.name.startswith(_EARLIER):
            found.add(attr.name)
        for p in attr.parameters:
            found |= _earlier_names(p)
    elif isinstance(attr, ArrayAttr):
        for a in attr.data:  # pyright: ignore[reportUnknownVariableType]
            found |= _earlier_names(a)  # pyright: ignore[reportUnknownArgumentType]
    elif isinstance(attr, DictionaryAttr):
        for name, a in attr.data.items():
            found |= {name} if name.startswith(_EARLIER) else set()
            found |= _earlier_names(a)
    return found


def _earlier_types_and_attributes(module: ModuleOp) -> set[str]:
    """Every nv_tileaa name on an op's attributes (their names too), properties, results
    and block arguments."""
    found: set[str] = set()
    for op in module.walk():
        for name, attr in (*op.attributes.items(), *op.properties.items()):
            if name.startswith(_EARLIER):
                found.add(name)
            found |= _earlier_names(attr)
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        for v in values:
            found |= _earlier_names(v.type)
    return found


@pytest.mark.parametrize("kernel", KERNELS + EFFECT_KERNELS, ids=lambda p: p.stem)
def test_only_nv_tileas_and_the_per_element_exception_cross(kernel: Path) -> None:
    module = _tileas(kernel)
    left = sorted({op.name for op in module.walk() if _past_the_boundary(op)})
    assert not left, f"{kernel.stem}: {left}"
    assert not _earlier_types_and_attributes(module), kernel.stem


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.stem)
def test_every_kernel_carries_the_nv_tileas_marker(kernel: Path) -> None:
    functions = [op for op in _tileas(kernel).walk() if isinstance(op, func.FuncOp)]
    assert functions and all(KERNEL_ATTR in fn.attributes for fn in functions)


def test_the_converted_forms_reach_the_tileas_stage() -> None:
    """What the last ops to cross became is there, on the kernels that had them: pointer
    arithmetic and facts (every kernel), reshapes (GEMMs, reductions to a scalar) and
    permutes (transposes)."""
    seen: Counter[str] = Counter()
    for kernel in KERNELS:
        for op in _tileas(kernel).walk():
            if isinstance(op, tas.ViewOp):
                seen["value view" if op.is_value_view else "pointer view"] += 1
            else:
                seen[op.name] += 1
    for name in ("nv_tileas.addptr", "nv_tileas.assume", "nv_tileas.shuffle", "value view"):
        assert seen[name] > 0, name
    transpose = [op for op in _tileas(CORPUS / "transpose_f32_2d.tileirbc").walk()]
    assert any(isinstance(op, tas.ShuffleOp) and op.perm == (1, 0) for op in transpose)


def test_effects_reach_the_tileas_stage_as_nv_tileas_ops() -> None:
    """Prints, assertions, grid-dependency control and globals cross as tileir's nv_tileas
    forms, without the tokens that only ordered them."""
    seen = Counter(op.name for kernel in EFFECT_KERNELS for op in _tileas(kernel).walk())
    for name in (
        "nv_tileas.print",
        "nv_tileas.assert",
        "nv_tileas.gdc_wait",
        "nv_tileas.gdc_launch_dependents",
        "nv_tileas.global",
        "nv_tileas.get_global",
    ):
        assert seen[name] > 0, name
