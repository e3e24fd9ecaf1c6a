"""Execute the notebooks of this folder from top to bottom (`make notebooks`).

    python docs/notebooks/run.py                 # run them all; exit 1 on the first error
    python docs/notebooks/run.py 01_tour.ipynb   # run some
    python docs/notebooks/run.py --strip         # remove outputs in place (before a commit)

Each notebook runs in a fresh Python kernel (nbclient + ipykernel, the `notebooks` extra)
with this folder as its working directory; nothing is written back. A failing cell is
reported with its source and the error, and the run stops with exit code 1. Notebooks are
kept in git without outputs: the run also fails when one has outputs or execution counts.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: Seconds one cell may take before the run fails (the whole set takes well under a minute).
CELL_TIMEOUT = 300


def notebooks(names: list[str]) -> list[Path]:
    if not names:
        return sorted(HERE.glob("*.ipynb"))
    paths = []
    for name in names:
        path = Path(name) if Path(name).exists() else HERE / name
        if not path.is_file():
            raise SystemExit(f"run.py: error: no notebook {name}")
        paths.append(path)
    return paths


def has_outputs(nb: Any) -> bool:  # an nbformat NotebookNode
    return any(
        cell.get("outputs") or cell.get("execution_count") is not None
        for cell in nb.cells
        if cell.cell_type == "code"
    )


def strip(path: Path) -> None:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nbformat.write(nb, path)


def run(path: Path) -> float:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(path, as_version=4)
    if has_outputs(nb):
        raise SystemExit(
            f"run.py: error: {path.name} is stored with outputs; "
            f"strip them with `python {Path(__file__).name} --strip`"
        )
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    # The kernel's own stderr (start-up chatter) is shown only when something fails.
    with tempfile.TemporaryFile("w+") as kernel_log:
        try:
            client.execute(stderr=kernel_log)
        except (CellExecutionError, DeadKernelError, CellTimeoutError) as e:
            kernel_log.seek(0)
            report = re.sub(r"\x1b\[[0-9;]*m", "", f"{e}\n{kernel_log.read()}")  # no colours
            print(f"FAILED {path.name}\n{report}", file=sys.stderr)
            raise SystemExit(1) from None
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Execute the notebooks of docs/notebooks.")
    parser.add_argument("notebooks", nargs="*", help="notebooks to run (default: all)")
    parser.add_argument("--strip", action="store_true", help="strip outputs in place")
    args = parser.parse_args(argv)
    paths = notebooks(args.notebooks)
    if args.strip:
        for path in paths:
            strip(path)
        return 0
    total = 0.0
    for path in paths:
        seconds = run(path)
        total += seconds
        print(f"ok   {path.name}  {seconds:.1f} s")
    print(f"all notebooks ran in {total:.1f} s")
    print(f"notebooks: {len(paths)} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
