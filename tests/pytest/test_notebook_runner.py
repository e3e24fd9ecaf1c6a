"""The notebooks' staleness check (docs/notebooks/run.py, issue 19 item 7): the notebooks are
published with their outputs, and `make test` fails when a stored output is no longer what
the notebook prints, but not for what differs between any two runs (durations, addresses,
a cell kernel's process id, picture bytes) or for a cell tagged machine-dependent.  These
tests run no kernel: `make notebooks` executes the real ones."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")

RUNNER = Path(__file__).resolve().parents[2] / "docs" / "notebooks" / "run.py"


@pytest.fixture(scope="module")
def run() -> ModuleType:
    spec = importlib.util.spec_from_file_location("notebook_runner", RUNNER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def notebook(*outputs: list[Any], tags: tuple[list[str], ...] = ()) -> Any:
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell("# title"))
    for i, cell_outputs in enumerate(outputs):
        cell = nbformat.v4.new_code_cell(f"cell_{i}()")
        cell.outputs = cell_outputs
        if i < len(tags):
            cell.metadata["tags"] = tags[i]
        nb.cells.append(cell)
    return nb


def stream(text: str) -> Any:
    return nbformat.v4.new_output("stream", name="stdout", text=text)


def result(data: dict[str, Any]) -> Any:
    return nbformat.v4.new_output("execute_result", data=data, execution_count=1)


def test_the_same_outputs_are_current(run: ModuleType) -> None:
    stored = notebook([stream("registers: 64\n")], [result({"text/plain": "ok"})])
    assert (
        run.stale_cells(
            stored, notebook([stream("registers: 64\n")], [result({"text/plain": "ok"})])
        )
        == []
    )


def test_a_changed_output_is_stale_and_shown(run: ModuleType) -> None:
    stored = notebook([stream("17 passes\nregisters: 64\n")])
    fresh = notebook([stream("18 passes\nregisters: 64\n")])
    (problem,) = run.stale_cells(stored, fresh)
    assert problem.startswith("cell 1 (cell_0())")
    assert "-17 passes" in problem and "+18 passes" in problem


def test_what_differs_between_runs_is_not_compared(run: ModuleType) -> None:
    stored = notebook(
        [stream("compiled in 211 ms (11%), tileiras 0.45s\nvadd   12.5 ms\n")],
        [result({"text/plain": "<object at 0x7f3a2b1c9d80>", "image/png": "iVBORw0KGgo="})],
        [stream("/tmp/ipykernel_17766/2466487529.py:13:4: remark\n")],
    )
    fresh = notebook(
        [stream("compiled in 323.5 ms (9%), tileiras 1.2s\nvadd  112.5 ms\n")],
        [result({"text/plain": "<object at 0x7f99aa00bb11>", "image/png": "AAAA"})],
        [stream("/tmp/ipykernel_18206/2466487529.py:13:4: remark\n")],
    )
    assert run.stale_cells(stored, fresh) == []
    # A picture that appears or disappears is a change.
    no_picture = notebook(
        [stream("compiled in 1 ms (1%), tileiras 1s\nvadd 1 ms\n")],
        [result({"text/plain": "<object at 0x7f99aa00bb11>"})],
        [stream("/tmp/ipykernel_1/2466487529.py:13:4: remark\n")],
    )
    assert len(run.stale_cells(stored, no_picture)) == 1


def test_machine_dependent_cells_only_run(run: ModuleType) -> None:
    stored = notebook([stream("GPU: none, skipping\n")], tags=(["machine-dependent"],))
    assert run.stale_cells(stored, notebook([stream("GPU: sm_90a\n")])) == []


def test_a_notebook_stored_without_outputs_is_stale(run: ModuleType) -> None:
    assert run.stale_cells(notebook([]), notebook([stream("x\n")])) == [
        "it is stored without outputs"
    ]


def test_the_published_notebooks_have_outputs(run: ModuleType) -> None:
    """Every notebook of docs/notebooks is stored executed: a code host shows its outputs."""
    paths = run.notebooks([])
    assert len(paths) >= 4
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        code = [cell for cell in nb.cells if cell.cell_type == "code"]
        assert all(cell.execution_count is not None for cell in code), path.name
        assert sum(bool(cell.outputs) for cell in code) >= len(code) // 2, path.name
