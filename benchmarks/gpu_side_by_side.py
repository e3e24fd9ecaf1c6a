#!/usr/bin/env python3
"""Two `bench_gpu.py --markdown` tables of the same rows, side by side.

`gpu_session.sh` times the large GEMM rows with the default cubins (`.gpu`) and with a
variant's (`.gpu_tma`: the TMA feeds; `.gpu_base`: an earlier tree) in the same call;
this joins the two tables on the kernel column: each build's microseconds, their ratio,
tileiras's (the first table's, else the second's) and each build's against it, and both
checks.  A row in one table only is listed with `n/a` for the other.

    python benchmarks/gpu_side_by_side.py bench_large.md tma_large.md --labels cp.async TMA
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def read_table(text: str) -> dict[str, dict[str, str]]:
    """The rows of the first markdown table in `text`, by kernel (its first cell), each
    a dict from the header's column names to the cells."""
    header: list[str] | None = None
    rows: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not set(line) <= set("|-: "):
            rows[cells[0]] = dict(zip(header, cells, strict=False))
    return rows


def _us(cell: str | None) -> float | None:
    try:
        return float((cell or "").replace(",", ""))
    except ValueError:
        return None


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a is not None and b else "n/a"


def side_by_side(first: str, second: str, labels: tuple[str, str]) -> str:
    """The markdown table joining `first`'s and `second`'s rows (bench_gpu tables)."""
    a_rows, b_rows = read_table(first), read_table(second)
    x, y = labels
    lines = [
        f"| kernel | {x} (us) | {y} (us) | {y} / {x} | tileiras (us) | {x} / tileiras "
        f"| {y} / tileiras | {x} check | {y} check |",
        "|---|" + "---:|" * 6 + "---|---|",
    ]
    for kernel in [*a_rows, *(k for k in b_rows if k not in a_rows)]:
        a, b = a_rows.get(kernel, {}), b_rows.get(kernel, {})
        ta, tb = _us(a.get("tileir (us)")), _us(b.get("tileir (us)"))
        theirs = _us(a.get("tileiras (us)")) or _us(b.get("tileiras (us)"))
        cells = [
            kernel,
            a.get("tileir (us)", "n/a"),
            b.get("tileir (us)", "n/a"),
            _ratio(tb, ta),
            "n/a" if theirs is None else f"{theirs:.1f}",
            _ratio(ta, theirs),
            _ratio(tb, theirs),
            a.get("tileir check", "n/a"),
            b.get("tileir check", "n/a"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--labels", nargs=2, default=["first", "second"])
    args = parser.parse_args(argv)
    texts = [p.read_text() if p.exists() else "" for p in (args.first, args.second)]
    sys.stdout.write(side_by_side(texts[0], texts[1], (args.labels[0], args.labels[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
