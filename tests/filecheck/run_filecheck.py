"""`filecheck` for lit, started as `python -S` (tests/filecheck/lit.cfg): the same
filecheck package, without the interpreter's `site` scan (and the editable install's
import hook) or the `importlib.metadata` import that filecheck's `main` makes only for
`--version`; ~0.2 -> ~0.08 s of CPU a run, and lit runs it ~370 times.

    python -S run_filecheck.py SITE_PACKAGES [FILECHECK ARGS...]
"""

import importlib
import sys
import types

sys.path.insert(0, sys.argv.pop(1))


def _version(name: str) -> str:
    """`importlib.metadata.version`, imported when `filecheck --version` asks."""
    del sys.modules["importlib.metadata"]
    import importlib.metadata

    return importlib.metadata.version(name)


_metadata = types.ModuleType("importlib.metadata")
_metadata.version = _version  # type: ignore[attr-defined]
sys.modules["importlib.metadata"] = _metadata
importlib.metadata = _metadata  # type: ignore[attr-defined]

from filecheck.main import main  # noqa: E402

sys.argv[0] = "filecheck"
main()
