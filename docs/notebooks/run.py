"""Execute the notebooks of this folder, and keep the outputs they are published with current.

    python docs/notebooks/run.py                 # run them all; fail when a stored output is stale
    python docs/notebooks/run.py 01_tour.ipynb   # run some
    python docs/notebooks/run.py --write         # run them and store their outputs (make docs)
    python docs/notebooks/run.py --html DIR      # the stored notebooks as HTML pages (make docs)

The notebooks are published with their outputs: a code host renders the stored `.ipynb`
(IR, tables, layout pictures) without running anything, and `make docs` also renders them
as HTML under `docs/_build/html/notebooks/` (a derived copy, not kept in git). Stored
outputs go stale when the compiler changes, so `make test` executes every notebook in a
fresh Python kernel (nbclient + ipykernel, the `notebooks` extra; this folder as its
working directory; nothing is written back) and compares each code cell's new outputs
with the stored ones; a difference fails the run, showing it, until `make docs` (or
`run.py --write`) stores the new outputs.  The comparison leaves out what differs from one
run to the next on any machine: durations (`12.3 ms`, `0.45s`) and their shares
(`(11%)`), object addresses, and the bytes of pictures (matplotlib's PNGs vary with its
version and fonts; that a cell draws one is compared), and the process id in the file name
IPython gives a cell's code.  A cell whose output depends on the
machine (a GPU or not) carries the tag `machine-dependent` in its metadata: it must run,
its output is not compared.  A failing cell is reported with its source and the error,
and the run stops with exit code 1.
"""

from __future__ import annotations

import argparse
import difflib
import html
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: Seconds one cell may take before the run fails (the whole set takes well under a minute).
CELL_TIMEOUT = 300

#: The metadata tag of a cell whose output depends on the machine (not compared).
MACHINE_DEPENDENT = "machine-dependent"

#: What differs between two runs of an unchanged notebook, and what stands for it.
_VOLATILE = [
    (re.compile(r"\x1b\[[0-9;]*m"), ""),  # terminal colours
    # A duration, with the padding that right-aligns it in a column.
    (re.compile(r" *\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\s?(?:ms|us|µs|ns|s)\b"), " <time>"),
    (re.compile(r"\(\d+(?:\.\d+)?%\)"), "(<share>)"),
    (re.compile(r"\b0x[0-9a-fA-F]{8,}\b"), "<address>"),
    # A kernel defined in a cell: its file is named after the kernel process.
    (re.compile(r"ipykernel_\d+"), "ipykernel"),
]


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


def normalized(text: str) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def comparable(cell: Any) -> list[str]:  # an nbformat code cell
    """A cell's outputs as the lines the staleness check compares."""
    lines: list[str] = []
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream":
            lines.append(f"[{output['name']}]")
            lines += normalized(output["text"]).splitlines()
        elif kind == "error":
            lines.append(f"[error] {output['ename']}: {normalized(output['evalue'])}")
        else:
            for mime, data in sorted(output.get("data", {}).items()):
                lines.append(f"[{kind} {mime}]")
                if mime.startswith("image/"):
                    continue
                text = data if isinstance(data, str) else json.dumps(data, sort_keys=True)
                lines += normalized(text).splitlines()
    return lines


def machine_dependent(cell: Any) -> bool:
    return MACHINE_DEPENDENT in cell.get("metadata", {}).get("tags", [])


def execute(path: Path) -> tuple[Any, float]:
    """The notebook at `path` executed from top to bottom (outputs replaced), and seconds."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        record_timing=False,  # no wall-clock timestamps in the stored cells
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
    return nb, time.perf_counter() - start


def stale_cells(stored: Any, fresh: Any) -> list[str]:
    """What differs between the stored outputs and the fresh ones, per code cell."""
    problems: list[str] = []
    pairs = [
        (i, old, new)
        for i, (old, new) in enumerate(zip(stored.cells, fresh.cells, strict=True))
        if old.cell_type == "code"
    ]
    if not any(old.get("outputs") for _, old, _ in pairs):
        return ["it is stored without outputs"]
    for i, old, new in pairs:
        if machine_dependent(old):
            continue
        before, after = comparable(old), comparable(new)
        if before != after:
            diff = list(difflib.unified_diff(before, after, "stored", "now", n=1, lineterm=""))
            shown = "\n".join(line[:160] for line in diff[:30])
            more = f"\n    ... ({len(diff) - 30} more diff lines)" if len(diff) > 30 else ""
            problems.append(f"cell {i} ({first_line(old.source)}):\n{shown}{more}")
    return problems


def first_line(source: str) -> str:
    return next((line for line in source.splitlines() if line.strip()), "")[:60]


def check(path: Path) -> float:
    import nbformat

    stored = nbformat.read(path, as_version=4)
    fresh, seconds = execute(path)
    problems = stale_cells(stored, fresh)
    if problems:
        print(
            f"STALE {path.name}: its stored outputs are not what it prints now; "
            f"store the new ones with `make docs` (or `python docs/notebooks/run.py --write "
            f"{path.name}`) and commit them\n  " + "\n  ".join(problems),
            file=sys.stderr,
        )
        raise SystemExit(1)
    return seconds


def write(path: Path) -> float:
    import nbformat

    fresh, seconds = execute(path)
    nbformat.write(fresh, path)
    return seconds


def write_html(paths: list[Path], folder: Path) -> None:
    """Each stored notebook as one HTML page (nbconvert, the `docs` extra), and an index."""
    try:
        import nbformat
        from nbconvert import HTMLExporter
    except ImportError as e:
        raise SystemExit(
            f"run.py: error: --html needs nbconvert (pip install -e '.[docs]'): {e}"
        ) from None
    folder.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(template_name="lab")
    items = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": path.stem}})
        (folder / f"{path.stem}.html").write_text(body)
        title = next(
            (
                line.lstrip("# ").strip()
                for cell in nb.cells
                if cell.cell_type == "markdown"
                for line in cell.source.splitlines()
                if line.startswith("# ")
            ),
            path.stem,
        )
        items.append(f'<li><a href="{path.stem}.html">{html.escape(title)}</a></li>')
    (folder / "index.html").write_text(
        "<!doctype html><meta charset='utf-8'><title>tileir notebooks</title>"
        "<h1>tileir notebooks</h1><ul>" + "".join(items) + "</ul>\n"
    )
    print(f"wrote {len(paths)} notebooks as HTML to {folder}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Execute the notebooks of docs/notebooks.")
    parser.add_argument("notebooks", nargs="*", help="notebooks to run (default: all)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="store the new outputs")
    mode.add_argument("--html", metavar="DIR", type=Path, help="write the stored ones as HTML")
    args = parser.parse_args(argv)
    paths = notebooks(args.notebooks)
    if args.html is not None:
        write_html(paths, args.html)
        return 0
    total = 0.0
    for path in paths:
        seconds = write(path) if args.write else check(path)
        total += seconds
        print(f"{'wrote' if args.write else 'ok  '} {path.name}  {seconds:.1f} s")
    print(f"all notebooks ran in {total:.1f} s")
    print(f"notebooks: {len(paths)} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
