"""Every corpus kernel, compiled by tileir and run in the PTX simulator, against numpy.

For each kernel in ``tests/corpus`` and each target, tileir compiles the kernel's
cuda_tile text to PTX; the simulator (``tileir.testing``) runs it over the
kernel's grid on ``make_inputs(default_rng(SEED))``, and every output must match
``reference(...)`` within the kernel's ``TOLERANCE``, with inputs left untouched.
The simulator also fails the test on any out-of-bounds or misaligned access, read
of an unwritten register, or two threads writing one byte.

Each kernel runs in three variants:

* ``nearest``: arrays 256-byte aligned (as ``cudaMalloc`` gives), ``.approx``
  instructions correctly rounded;
* ``bound``: the same, with each ``.approx`` result moved by its modelled
  worst-case error, so a tolerance too tight for the GPU's approximations fails (a
  kernel whose PTX has no ``.approx`` or ``div.full`` instruction, the only ones this
  mode changes, is not run again: its ``bound`` case is skipped as the ``nearest`` run);
* ``min-align``: every array placed only as aligned as the kernel's signature
  promises (``base_addr_divisible_by``, read from the entry's mangled name), so
  vector accesses that assume more alignment than promised fail.

A kernel whose sm_90a PTX is its sm_80 PTX but for ``.version`` and ``.target`` (38 of
the 61, every kernel without a dot), which the simulator does not read, is run once:
its sm_90a cases are skipped as the sm_80 runs.

Needs neither a GPU nor cuda-tile: inputs and references come from
``tests/corpus/cases/<name>.py``.  A kernel tileir cannot compile yet is an
expected failure carrying tileir's diagnostic; known tileir bugs are strict
expected failures (``KNOWN_BUGS``), so fixing one makes its test fail until the
entry is removed.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tileir.diagnostics import CompileError
from tileir.testing import SimulationError, simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402
from corpus_ptx import corpus_ptx  # noqa: E402

ARCHES = ("sm_80", "sm_90a")
SEED = 0
#: ``(approx mode, array placement)`` of each run.
VARIANTS = {
    "nearest": ("nearest", "aligned"),
    "bound": ("bound", "aligned"),
    "min-align": ("nearest", "minimal"),
}


#: The instructions whose results ``approx="bound"`` moves (tileir/testing/ptx_float_ops.py).
APPROXIMATE = re.compile(r"\.approx\b|\bdiv\.full\b")


@dataclass(frozen=True)
class KnownBug:
    """A tileir bug that makes a kernel fail in the simulator with error ``kind``."""

    kind: str
    reason: str


class KnownBugFault(Exception):
    """The simulator hit a ``KnownBug`` (what the strict xfail expects)."""


#: Kernels that fail through a known tileir bug, as strict expected failures: the
#: test expects a ``SimulationError`` of ``kind`` and fails once the bug is fixed.
#: For example ``"clamp_f32_2d": KnownBug(MISALIGNED, "tileir bug: ...")``.
KNOWN_BUGS: dict[str, KnownBug] = {}


def _params() -> list[object]:
    params = []
    for name in _common.kernel_names():
        bug = KNOWN_BUGS.get(name)
        marks = (
            [pytest.mark.xfail(strict=True, raises=KnownBugFault, reason=bug.reason)] if bug else []
        )
        for arch in ARCHES:
            for variant in VARIANTS:
                params.append(
                    pytest.param(name, arch, variant, marks=marks, id=f"{name}-{arch}-{variant}")
                )
    return params


@pytest.mark.parametrize(("name", "arch", "variant"), _params())
def test_corpus_kernel_matches_reference(name: str, arch: str, variant: str) -> None:
    ptx = corpus_ptx(name, arch)
    if isinstance(ptx, CompileError):
        pytest.xfail(f"tileir cannot compile {name}: {ptx.format()}")
    approx, placement = VARIANTS[variant]
    if approx == "bound" and not APPROXIMATE.search(ptx):
        pytest.skip("no .approx or div.full instruction: the nearest run is this run")
    if arch != ARCHES[0] and same_program(ptx, corpus_ptx(name, ARCHES[0])):
        pytest.skip(f"the PTX is {ARCHES[0]}'s but for its header: the {ARCHES[0]} run is this run")
    case = _common.load_case_module(name)
    inputs = case.make_inputs(np.random.default_rng(SEED))
    if placement == "minimal":
        inputs = at_declared_alignment(inputs, declared_alignments(ptx))
    arrays = inputs["arrays"]
    inputs_before = {k: a.copy() for k, a in arrays.items() if k not in inputs["outputs"]}
    # Outputs may also be inputs (in-place updates): the reference sees the arrays
    # as they were before the launch.
    expected = case.reference(_common.copy_inputs(inputs))
    try:
        simulate(ptx, inputs["grid"], _common.flatten_args(inputs), approx=approx)
    except SimulationError as e:
        bug = KNOWN_BUGS.get(name)
        if bug is not None and e.kind == bug.kind:
            raise KnownBugFault(f"{bug.reason}\n{e}") from e
        raise
    for k, before in inputs_before.items():
        np.testing.assert_array_equal(arrays[k], before, err_msg=f"the kernel changed input {k}")
    check_outputs(case, inputs, expected)


#: The module header's directives that name the target; the simulator reads neither.
_HEADER = re.compile(r"^\.(?:version|target)\b.*$", re.MULTILINE)


def same_program(ptx: str, other: str | CompileError) -> bool:
    """Whether two targets' PTX differ only in `.version` and `.target`, which the
    simulator ignores (it runs what the instructions say): then one run checks both."""
    return isinstance(other, str) and _HEADER.sub("", ptx) == _HEADER.sub("", other)


def declared_alignments(ptx: str) -> list[int]:
    """``base_addr_divisible_by`` of each array parameter, from the entry's mangled
    name (cuTile spells an array ``A<rank><dtype>_..._p<bytes>``; no ``_p``: 1)."""
    m = re.search(r"\.entry\s+([\w$]+)", ptx)
    assert m is not None
    tokens = m.group(1).split("_")
    start = next(i for i, t in enumerate(tokens) if re.fullmatch(r"K[a-z]\d+", t))
    alignments: list[int] = []
    for token in tokens[start + 1 :]:
        if re.fullmatch(r"A\d+[a-z][a-z0-9]*", token):
            alignments.append(1)
        elif (p := re.fullmatch(r"p(\d+)", token)) and alignments:
            alignments[-1] = int(p.group(1))
    return alignments


def at_declared_alignment(
    inputs: _common.KernelInputs, alignments: list[int]
) -> _common.KernelInputs:
    """``inputs`` with every array moved to an address aligned to what its parameter
    declares and no more: ``k`` bytes past a 256-byte boundary, ``k`` the declared
    alignment (at least the element size)."""
    names = list(inputs["arrays"])
    assert len(names) == len(alignments), (names, alignments)
    moved = {n: shifted(inputs["arrays"][n], a) for n, a in zip(names, alignments, strict=True)}
    return _common.make_kernel_inputs(
        params=inputs["params"],
        arrays=moved,
        scalars=inputs["scalars"],
        constants=inputs["constants"],
        outputs=inputs["outputs"],
        grid=inputs["grid"],
    )


def shifted(a: np.ndarray, alignment: int) -> np.ndarray:
    """A copy of ``a`` (and of the buffer it views) starting ``alignment`` bytes into a
    fresh byte buffer, which the simulator places 256-byte aligned."""
    buffer = _common.backing_buffer(a)
    offset = max(alignment, a.itemsize)
    raw = np.zeros(offset + buffer.nbytes, dtype=np.uint8)
    moved = raw[offset:].view(buffer.dtype).reshape(buffer.shape)
    moved[...] = buffer
    return moved if buffer is a else _common.strided_view(moved, a.shape)


def check_outputs(
    case: ModuleType, inputs: _common.KernelInputs, expected: dict[str, np.ndarray]
) -> None:
    """Compare every output with the reference; the message lists the first mismatches."""
    problems = []
    for out in inputs["outputs"]:
        rtol, atol = case.TOLERANCE[out]
        message = mismatches(inputs["arrays"][out], expected[out], rtol, atol)
        if message:
            problems.append(f"output {out!r} (rtol={rtol}, atol={atol}): {message}")
    assert not problems, "\n".join(problems)


def mismatches(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> str:
    """``''`` if ``|got - want| <= atol + rtol * |want|`` everywhere (NaN matching NaN,
    an infinity the same infinity), else a description of the differing elements."""
    if np.issubdtype(want.dtype, np.integer):
        g, w = got.astype(np.int64), want.astype(np.int64)
        bad = np.abs(g - w) > atol + rtol * np.abs(w)
    else:
        g, w = got.astype(np.float64), want.astype(np.float64)
        same = (np.isnan(g) & np.isnan(w)) | (np.isinf(w) & (g == w))
        with np.errstate(invalid="ignore"):
            bad = ~same & ~(np.abs(g - w) <= atol + rtol * np.abs(w))
    if not bad.any():
        return ""
    index = np.argwhere(bad)
    shown = ", ".join(
        f"{tuple(int(i) for i in ix)}: want {w[tuple(ix)]!r} got {g[tuple(ix)]!r}"
        for ix in index[:8]
    )
    return f"{len(index)} of {bad.size} elements differ; {shown}"
