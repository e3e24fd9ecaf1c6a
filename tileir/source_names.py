"""cuTile Python's variable names, carried onto the values of the IR it exported.

Tile IR bytecode carries no value names: cuTile 1.7's writer emits debug information
(`DICompileUnit`, `DIFile`, `DISubprogram`, `DILexicalBlock`, `DILoc`, call sites) and no
name locations, and NVIDIA's writer rejects `NameLoc` ("unsupported location").  What it
does carry is, on every op, the Python line and column of the expression the op was
made for.  So where tileir has the kernel's Python source (`tileir.load_cutile`,
`tileir.compile(kernel, signature)`: the source of a `@ct.kernel`, from a file or from a
notebook cell), the value of an assignment `tx = ct.load(...)` is the one made last for
the expression on its right-hand side, and it is given the name `tx`.  That name is the
value's name in every stage: the cuda_tile printer prints it instead of the op's
suggested name (`%tx`, not `%tile`) and `convert-cuda-tile-to-tileaa` pins it for the later
stages (`tileir.printing`, items 2 and 4), in the Python API and in `tileir-as` alike
(`tileir-as --python-names`).

Only plain assignments to one name count (`x = ...`, `x: T = ...`, `x += ...`); a tuple
target, a loop variable or an expression statement names nothing, and a value keeps
the name the cuda_tile text would give it.
"""

from __future__ import annotations

import ast
import functools
import linecache
from collections.abc import Callable

from xdsl.ir import Operation, OpResult

from tileir.diagnostics import location_of
from tileir.dialects.cuda_tile.types import TileType
from tileir.printing import PYTHON_NAMED

#: The source text of a file, or None where it cannot be read.
SourceReader = Callable[[str], str | None]


def _read(file: str) -> str | None:
    """A file's text through `linecache`, which also holds IPython's cells (a file
    changed since it was cached, in the compile server say, is read again)."""
    linecache.checkcache(file)
    lines = linecache.getlines(file)
    return "".join(lines) if lines else None


@functools.lru_cache(maxsize=64)
def _assignments(text: str) -> dict[tuple[int, int], str]:
    """(line, column) of each assigned expression in `text` -> the variable's name."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    names: dict[tuple[int, int], str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        elif isinstance(node, ast.AugAssign):
            target = value = node.target
            # cuTile places the op of `x += y` at the statement (which starts at `x`),
            # and an operator's op at the operator's left operand; both are here.
            if isinstance(target, ast.Name):
                names[(node.value.lineno, node.value.col_offset)] = target.id
        else:
            continue
        if isinstance(target, ast.Name):
            names[(value.lineno, value.col_offset)] = target.id
    return names


def name_values_from_python(root: Operation, read: SourceReader = _read) -> int:
    """Name the values under `root` after the Python variables they were assigned to
    (module doc); returns how many were named.  `read` gives a file's source."""
    last: dict[tuple[str, int, int], Operation] = {}
    texts: dict[str, dict[tuple[int, int], str]] = {}
    # Regions first: a reduce's body is located at the reduce, which made the value.
    for op in root.walk(region_first=True):
        if not op.results:
            continue
        loc = location_of(op)
        if loc is None:
            continue
        if loc.file not in texts:
            text = read(loc.file)
            texts[loc.file] = _assignments(text) if text else {}
        if (loc.line, loc.column) in texts[loc.file] and not _scalar_promotion(op):
            last[(loc.file, loc.line, loc.column)] = op
    named = 0
    for (file, line, column), op in last.items():
        result = _assigned_result(op)
        if result is not None:
            result.name_hint = texts[file][(line, column)] + PYTHON_NAMED
            named += 1
    return named


#: The ops cuTile makes a tile of a scalar operand with (`t * 2.0`: reshape to 1-D, then
#: broadcast), located at the arithmetic they feed.
_PROMOTIONS = ("cuda_tile.reshape", "cuda_tile.broadcast")


def _scalar_promotion(op: Operation) -> bool:
    """Whether `op` is part of a scalar's promotion to a tile: a reshape or broadcast
    whose chain starts at a 0-d tile.  It is not the assigned value even where it is the
    last op at the assignment's location: cuTile fuses `acc = t * 2.0; acc += t` into one
    `fma` located at the second statement, leaving only the promotion at the first."""
    while op.name in _PROMOTIONS and op.operands:
        source = op.operands[0]
        if isinstance(source.type, TileType) and not source.type.shape.data:
            return True
        if not isinstance(source, OpResult):
            return False
        op = source.op
    return False


def _assigned_result(op: Operation) -> OpResult | None:
    """The result of `op` a Python assignment took: its only value that is not a
    memory token, or of several (`ct.bid(0)`: the block id's x, y and z) the only one
    in use."""
    values = [r for r in op.results if "token" not in r.type.name]
    if len(values) > 1:
        values = [r for r in values if r.uses]
    return values[0] if len(values) == 1 else None
