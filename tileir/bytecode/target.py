"""The `tileirbc` target: `tileir-opt K.mlir -t tileirbc -o K.tileirbc`.

Option `bytecode-version` (13.1, 13.2, 13.3 or 13.4; default the newest), given as
`-t 'tileirbc{bytecode-version=13.2}'` or with tileir-opt's `--bytecode-version 13.2`.

xDSL targets write text; this one writes its bytes as the code points 0-255 (Latin-1),
and tileir-opt encodes its output stream as Latin-1 for targets marked `binary_output`,
so every byte arrives unchanged (see `cli.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from tileir.bytecode.version import NEWEST, parse_version
from tileir.bytecode.writer import write_bytecode

BINARY_ENCODING = "latin-1"


@dataclass(frozen=True)
class TileirbcTarget(Target):
    """`-t tileirbc`: CUDA Tile IR bytecode."""

    name = "tileirbc"
    binary_output: ClassVar[bool] = True

    #: "13.1" ... "13.4" (a bare `13.2` in a target spec arrives as a float).
    bytecode_version: str | float = str(NEWEST)

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        version = parse_version(str(self.bytecode_version))
        output.write(write_bytecode(module, version).decode(BINARY_ENCODING))
