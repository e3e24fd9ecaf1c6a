"""CUDA Tile IR bytecode (`.tileirbc`), versions 13.1 to 13.4: reading and writing.

    from tileir.bytecode import read_bytecode, write_bytecode, parse_version

    module = read_bytecode(Path("k.tileirbc").read_bytes(), "k.tileirbc")
    data = write_bytecode(module, parse_version("13.2"))

The format as implemented is described in docs/bytecode.md.  Modules: `stream`
(varints, bounded reads), `container` (header, sections, tables), `types`,
`constants`, `attributes`, `debug_info`, `optable` (one row per op), `instructions`
(op encoding from the rows), `reader`, `writer`, `target` (`-t tileirbc`) and `cli`
(tileir-opt's hooks).
"""

from tileir.bytecode.container import is_bytecode
from tileir.bytecode.reader import read_bytecode
from tileir.bytecode.stream import BytecodeError, EncodeError
from tileir.bytecode.version import NEWEST, SUPPORTED_VERSIONS, BytecodeVersion, parse_version
from tileir.bytecode.writer import write_bytecode

__all__ = [
    "NEWEST",
    "SUPPORTED_VERSIONS",
    "BytecodeError",
    "BytecodeVersion",
    "EncodeError",
    "is_bytecode",
    "parse_version",
    "read_bytecode",
    "write_bytecode",
]
