"""tileir-opt prints every corpus kernel back exactly as NVIDIA's tileirdisasm printed
it: op names, types, spacing, attributes and SSA names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tileir.compiler import parse_module_text, print_ir

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
KERNELS = sorted(CORPUS.glob("*.mlir"))


def entry_lines(printed: str) -> list[str]:
    """The lines of the printed cuda_tile.module's body, unindented."""
    lines = printed.rstrip("\n").splitlines()
    start = next(i for i, line in enumerate(lines) if "cuda_tile.module" in line) + 1
    # Drop the closing braces of cuda_tile.module and builtin.module.
    body = lines[start:-2]
    indent = len(body[0]) - len(body[0].lstrip())
    return [line[indent:] for line in body]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.stem)
def test_prints_like_tileirdisasm(kernel: Path) -> None:
    original = kernel.read_text().splitlines()
    printed = entry_lines(print_ir(parse_module_text(kernel.read_text(), str(kernel))))
    assert printed == original


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.stem)
def test_generic_form_round_trips(kernel: Path) -> None:
    import io

    from tileir.printing import TileirPrinter

    module = parse_module_text(kernel.read_text(), str(kernel))
    out = io.StringIO()
    TileirPrinter(stream=out, print_generic_format=True).print_op(module)
    again = parse_module_text(out.getvalue(), "<generic>")
    assert entry_lines(print_ir(again)) == kernel.read_text().splitlines()
