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
target or an expression statement names nothing, and a value keeps the name the
cuda_tile text would give it.

A variable a loop carries has no op of its own: cuTile makes it a block argument of
the loop's body (`%iterArg0`) and a result of the loop (`%for`), and an `if` that
assigns it in a branch makes it a result of the `if`.  Those take the variable's name
too (`name_carried_values`): `acc` of `acc = ct.mma(ta, tb, acc)` in a K loop is `%acc`
before the loop, in the loop's body and after it, and the `for` statement's variable
(`for k in range(...)`) names the loop's induction variable.  Which variable a slot
carries is not recorded, so it is read off the values it joins: the value it starts
from (the variable before the loop) or the values each iteration ends with, whichever
is a variable the statement assigns (`m_i = m_ij` at the end of an attention loop
carries `m_i`, which the start names, not `m_ij`).
"""

from __future__ import annotations

import ast
import functools
import linecache
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Operation, OpResult, SSAValue

from tileir.diagnostics import location_of
from tileir.dialects.cuda_tile.ops.control_flow import (
    BreakOp,
    ContinueOp,
    ForOp,
    IfOp,
    LoopOp,
    YieldOp,
)
from tileir.dialects.cuda_tile.types import TileType
from tileir.printing import PYTHON_NAMED, python_name

#: The source text of a file, or None where it cannot be read.
SourceReader = Callable[[str], str | None]


def _read(file: str) -> str | None:
    """A file's text through `linecache`, which also holds IPython's cells (a file
    changed since it was cached, in the compile server say, is read again)."""
    linecache.checkcache(file)
    lines = linecache.getlines(file)
    return "".join(lines) if lines else None


@functools.lru_cache(maxsize=64)
def _tree(text: str) -> ast.Module | None:
    """`text` parsed (once for both tables below), or None where it is not Python."""
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


@functools.lru_cache(maxsize=64)
def _assignments(text: str) -> dict[tuple[int, int], str]:
    """(line, column) of each assigned expression in `text` -> the variable's name."""
    tree = _tree(text)
    if tree is None:
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
    return named + name_carried_values(root, read)


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


@dataclass(frozen=True)
class _Statement:
    """What a compound statement (`for`, `while`, `if`) assigns: the names stored
    anywhere in it, and a `for`'s own variable."""

    stored: frozenset[str]
    target: str | None = None


@functools.lru_cache(maxsize=64)
def _statements(text: str) -> dict[tuple[int, int], _Statement]:
    """(line, column) of each `for`, `while` and `if` statement in `text` -> what it
    assigns (cuTile locates a loop or an `if` at its statement)."""
    tree = _tree(text)
    if tree is None:
        return {}
    found: dict[tuple[int, int], _Statement] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.For | ast.While | ast.If):
            continue
        stored = frozenset(
            name.id
            for part in ast.iter_child_nodes(node)
            for name in ast.walk(part)
            if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store)
        )
        target = (
            node.target.id
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name)
            else None
        )
        found[(node.lineno, node.col_offset)] = _Statement(stored, target)
    return found


def name_carried_values(root: Operation, read: SourceReader = _read) -> int:
    """Name the block arguments and results of the loops and `if`s under `root` after
    the Python variables they carry, and each `for`'s induction variable after the
    statement's variable (module doc); returns how many were named.  Run after the
    assignments are named: a slot's name comes from the values it joins, and a loop's
    from those of the loops and `if`s in and around it, so it repeats until no name is
    added."""
    controls = [op for op in root.walk() if isinstance(op, ForOp | LoopOp | IfOp)]
    statements = {op: _statement_of(op, read) for op in controls}
    named = 0
    while True:
        added = sum(_name_slots(op, statements[op]) for op in controls)
        if not added:
            return named
        named += added


def _statement_of(op: Operation, read: SourceReader) -> _Statement | None:
    loc = location_of(op)
    if loc is None:
        return None
    text = read(loc.file)
    return _statements(text).get((loc.line, loc.column)) if text else None


def _name_slots(op: ForOp | LoopOp | IfOp, statement: _Statement | None) -> int:
    """Name the unnamed values of `op`'s slots (`_slots`); returns how many.  A name
    must be one the statement assigns (where the statement is known), and goes to one
    slot of the op only."""
    slots = _slots(op)
    taken = {(group, n) for values, _, group in slots for v in values if (n := python_name(v))}
    named = 0
    target = statement.target if statement is not None and isinstance(op, ForOp) else None
    if isinstance(op, ForOp) and target is not None and python_name(op.induction_var) is None:
        op.induction_var.name_hint = target + PYTHON_NAMED
        named += 1
    for values, sources, group in slots:
        if all(python_name(v) is not None for v in values):
            continue
        candidates = [n for v in sources if (n := python_name(v)) is not None]
        if statement is not None:
            candidates = [n for n in candidates if n in statement.stored]
        name = next((n for n in candidates if (group, n) not in taken), None)
        if name is None:
            continue
        taken.add((group, name))
        for value in values:
            if python_name(value) is None:
                value.name_hint = name + PYTHON_NAMED
                named += 1
    return named


#: A carried slot: the values one variable is (a block argument and a result, or one
#: of them), the values it joins (the variable before the op first), and its group:
#: the slots of one group carry different variables (a `loop`'s results are a group of
#: their own, as they need not be its block arguments).
_Slot = tuple[list[SSAValue], list[SSAValue], int]


def _slots(op: ForOp | LoopOp | IfOp) -> list[_Slot]:
    """The carried slots of `op` (`_Slot`)."""
    if isinstance(op, IfOp):
        yields = [
            block.last_op
            for region in (op.then_region, op.else_region)
            for block in region.blocks
            if isinstance(block.last_op, YieldOp)
        ]
        return [([r], [y.operands[i] for y in yields], 0) for i, r in enumerate(op.results)]
    exits = _exits(op)
    continues = [e for e in exits if isinstance(e, ContinueOp)]
    slots: list[_Slot] = []
    for i, arg in enumerate(op.iter_args):
        values: list[SSAValue] = [arg]
        if isinstance(op, ForOp):
            values.append(op.results[i])
        slots.append((values, [op.init_values[i], *(c.operands[i] for c in continues)], 0))
    if isinstance(op, LoopOp):
        breaks = [e for e in exits if isinstance(e, BreakOp)]
        slots.extend(([r], [b.operands[i] for b in breaks], 1) for i, r in enumerate(op.results))
    return slots


def _exits(loop: ForOp | LoopOp) -> list[Operation]:
    """The `continue`s and `break`s that leave `loop`'s body, not a nested loop's."""
    found: list[Operation] = []
    stack = [loop.body]
    while stack:
        for op in stack.pop().ops:
            if isinstance(op, ContinueOp | BreakOp):
                found.append(op)
            elif not isinstance(op, ForOp | LoopOp):
                stack.extend(block for region in op.regions for block in region.blocks)
    return found
