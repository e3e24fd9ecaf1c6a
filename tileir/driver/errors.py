"""Last line of defence of the drivers: an unexpected exception is a tileir bug, reported
as an `internal compiler error` diagnostic with exit code 1, never a bare traceback.

`TILEIR_TRACEBACK=1` prints the Python traceback as well (for reporting the bug)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

TRACEBACK_ENV = "TILEIR_TRACEBACK"


def report_internal_error(tool: str, error: BaseException) -> int:
    if os.environ.get(TRACEBACK_ENV, "") not in ("", "0"):
        import traceback  # only here: it imports textwrap, ms of every start

        traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
    detail = str(error).split("\n")[0]
    what = f"{type(error).__name__}: {detail}" if detail else type(error).__name__
    print(f"error: internal compiler error in {tool}: {what}", file=sys.stderr)
    print(
        f"note: this is a tileir bug; rerun with {TRACEBACK_ENV}=1 for the Python traceback "
        "and report it with the input file",
        file=sys.stderr,
    )
    return 1


def guarded(tool: str, run: Callable[[], int]) -> int:
    """`run()`, with any unexpected exception turned into an internal-error diagnostic."""
    try:
        return run()
    except KeyboardInterrupt:
        print(f"{tool}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        return report_internal_error(tool, e)
