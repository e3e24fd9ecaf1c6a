"""The op table of `docs/dialects/cuda_tile.md`, generated from the op definitions
(name, release, NVIDIA group, custom syntax, fields added in later releases) so that
the documentation cannot drift: `tests/pytest/test_cuda_tile_reference.py` checks it.

    python -m tileir.dialects.cuda_tile.reference            # print the table
    python -m tileir.dialects.cuda_tile.reference --write    # update the doc in place
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tileir.dialects.cuda_tile.ops import ALL_OPS, NEWER_OPS, PUBLIC_OPS
from tileir.dialects.cuda_tile.ops.base import CudaTileOp

DOC = Path(__file__).resolve().parents[3] / "docs" / "dialects" / "cuda_tile.md"
BEGIN = "<!-- BEGIN GENERATED OP TABLE (python -m tileir.dialects.cuda_tile.reference --write) -->"
END = "<!-- END GENERATED OP TABLE -->"

#: NVIDIA's groups, in the order of its specification.
GROUP_ORDER = (
    "Core",
    "Control Flow",
    "Floating Point",
    "Integer",
    "Bitwise",
    "Conversions",
    "Memory",
    "Views",
    "Atomics",
    "Miscellaneous",
    "Testing",
)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def since_text(op: type[CudaTileOp]) -> str:
    """`13.1`, or `13.1 (token 13.2)` when fields were added later."""
    extra = ", ".join(f"`{name}` {since}" for name, since in op.FIELD_SINCE.items())
    return f"{op.SINCE} ({extra})" if extra else op.SINCE


def _cell(text: str) -> str:
    return "`" + text.replace("|", "\\|") + "`"


def op_table() -> str:
    """The markdown table: one row per op, grouped as NVIDIA groups them."""
    ops: list[type[CudaTileOp]] = list(ALL_OPS)
    order = {g: i for i, g in enumerate(GROUP_ORDER)}
    ops.sort(key=lambda op: (order.get(op.GROUP, len(order)), op.name))
    lines = [
        f"{len(PUBLIC_OPS)} ops of cuda_tile 13.3, {len(NEWER_OPS)} of 13.4 that cuTile 1.7 "
        "writes, and the test-only `testing$` ops; "
        f"{sum(_version_key(op.SINCE) >= (13, 2) for op in PUBLIC_OPS)} of them "
        "appeared after 13.1.",
        "",
        "| op | group | since | syntax after `%results = op` |",
        "|---|---|---|---|",
    ]
    for op in ops:
        short = op.name.split(".", 1)[1]
        lines.append(f"| `{short}` | {op.GROUP} | {since_text(op)} | {_cell(op.syntax())} |")
    return "\n".join(lines) + "\n"


def generated_section(doc_text: str) -> str | None:
    """The table currently in the doc (between the markers), if any."""
    if BEGIN not in doc_text or END not in doc_text:
        return None
    return doc_text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"


def with_table(doc_text: str) -> str:
    head = doc_text.split(BEGIN, 1)[0]
    tail = doc_text.split(END, 1)[1]
    return f"{head}{BEGIN}\n{op_table()}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Print or write the cuda_tile op table.")
    parser.add_argument("--write", action="store_true", help=f"update {DOC.name} in place")
    args = parser.parse_args(argv)
    if not args.write:
        sys.stdout.write(op_table())
        return 0
    text = DOC.read_text()
    if generated_section(text) is None:
        print(f"{DOC}: the markers {BEGIN!r} / {END!r} are missing", file=sys.stderr)
        return 1
    DOC.write_text(with_table(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
