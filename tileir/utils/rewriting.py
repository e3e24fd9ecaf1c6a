"""Rewriting that keeps source locations.

MLIR patterns build replacement ops at the location of the op they rewrite, so a
diagnostic from a late pass still points at the user's source line.  xDSL's walker
does not, so tileir's passes use `LocatedWalker`: every op a pattern inserts without a
location of its own takes the location of the op being rewritten.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.worklist import _MISSING, Worklist  # pyright: ignore[reportPrivateUsage]

from tileir.utils.walk import ops_of


@dataclass
class _Tracking(RewritePattern):
    """Remembers which op the wrapped pattern is rewriting, and the ops it inserted."""

    inner: RewritePattern
    current: list[Operation] = field(default_factory=list)
    inserted: list[list[Operation]] = field(default_factory=list)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.current.append(op)
        self.inserted.append([])
        try:
            self.inner.match_and_rewrite(op, rewriter)
        finally:
            self.current.pop()
            self.inserted.pop()


#: Told of each op a pattern replaces: the op, the values replacing its results, and
#: the ops the pattern inserted while rewriting it (`LocatedWalker(on_replace=...)`).
ReplaceHook = Callable[[Operation, Sequence[SSAValue | None], Sequence[Operation]], None]


class _OpWorklist(Worklist[Operation]):
    """xDSL's `Worklist` (a stack; an op pushed while it is in it keeps its place; a
    removed op leaves a hole), keyed by the op's `id` instead of the op: the same
    entries, without a Python `__hash__` call (IRDL ops hash by `id` in Python) for
    each op pushed, popped or removed."""

    def __init__(self) -> None:
        super().__init__()
        self._ids: dict[int, int] = {}

    def __bool__(self) -> bool:
        stack = self._stack
        while stack and stack[-1] is _MISSING:
            stack.pop()
        return bool(stack)

    def push(self, item: Operation) -> None:
        key = id(item)
        if key not in self._ids:
            self._ids[key] = len(self._stack)
            self._stack.append(item)

    def push_all(self, items: Iterable[Operation]) -> None:
        """`push` each of `items`, in order."""
        ids, stack = self._ids, self._stack
        for item in items:
            key = id(item)
            if key not in ids:
                ids[key] = len(stack)
                stack.append(item)

    def pop(self) -> Operation:
        stack = self._stack
        try:
            while (item := stack.pop()) is _MISSING:
                pass
        except IndexError:
            raise IndexError("pop from empty worklist") from None
        del self._ids[id(item)]
        return cast(Operation, item)

    def remove(self, item: Operation) -> None:
        index = self._ids.pop(id(item), None)
        if index is not None:
            self._stack[index] = _MISSING


class LocatedWalker(PatternRewriteWalker):
    """`PatternRewriteWalker` whose inserted ops take the rewritten op's location.

    Its pattern is tried on an op as xDSL's walker tries it, with less around each try:
    a `GreedyRewritePatternApplier` without folding is run as the `TypeDispatch` of its
    patterns (the same patterns tried in the same order, its trivial dead-code erasure
    kept), and an op for which such a dispatch has no pattern and nothing to erase is
    popped and left without the rewriter being reset for it (no pattern would have seen
    it).  The worklist holds the ops xDSL's holds, in the same order (`_OpWorklist`)."""

    def __init__(
        self, pattern: RewritePattern, *, on_replace: ReplaceHook | None = None, **kwargs: object
    ):
        if type(pattern) is GreedyRewritePatternApplier and not pattern.folding_enabled:
            pattern = TypeDispatch(pattern.rewrite_patterns, dce_enabled=pattern.dce_enabled)
        self._dispatch = pattern if isinstance(pattern, TypeDispatch) else None
        self._tracking = _Tracking(pattern)
        self._on_replace = on_replace
        super().__init__(self._tracking, **kwargs)  # pyright: ignore[reportArgumentType]
        self._worklist = _OpWorklist()

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        worklist = cast(_OpWorklist, self._worklist)
        worklist.push_all(
            op.walk(reverse=not self.walk_reverse, region_first=not self.walk_regions_first)
        )

    def _process_worklist(self, listener: PatternRewriterListener) -> bool:
        """xDSL's `_process_worklist`: pop each op and try the pattern on it with the
        rewriter reset to it (no action yet, inserting before it, no name hint); an
        error in a pattern becomes the op's error.  An op the dispatch has nothing for
        is only popped."""
        worklist = self._worklist
        if not worklist:
            return False
        dispatch = self._dispatch
        idle = dispatch.idle if dispatch is not None else None
        pattern = self.pattern
        done = False
        rewriter: PatternRewriter | None = None
        op = worklist.pop()
        while True:
            if idle is None or not idle(type(op)):
                if rewriter is None:
                    rewriter = PatternRewriter(op)
                    rewriter.extend_from_listener(listener)
                rewriter.has_done_action = False
                rewriter._current_operation = op  # pyright: ignore[reportPrivateUsage]
                block = op.parent
                rewriter.insertion_point = (
                    InsertPoint(block, op) if block is not None else InsertPoint.before(op)
                )
                rewriter._name_hint = None  # pyright: ignore[reportPrivateUsage]
                try:
                    pattern.match_and_rewrite(op, rewriter)
                except Exception as err:
                    op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
                done |= rewriter.has_done_action
            if not worklist:
                return done
            op = worklist.pop()

    def _locate(self, op: Operation) -> None:
        if self._tracking.current:
            self._tracking.inserted[-1].append(op)
            if isinstance(op.location, UnknownLoc):
                source = self._tracking.current[-1].location
                if not op.regions:  # most inserted ops: no walk to start
                    op.location = source
                    return
                for nested in ops_of(op):
                    if isinstance(nested.location, UnknownLoc):
                        nested.location = source

    def _replaced(self, op: Operation, new_results: Sequence[SSAValue | None]) -> None:
        if self._on_replace is not None and self._tracking.inserted:
            self._on_replace(op, new_results, self._tracking.inserted[-1])

    def _get_rewriter_listener(self) -> PatternRewriterListener:
        listener = super()._get_rewriter_listener()
        listener.operation_insertion_handler = [self._locate, *listener.operation_insertion_handler]
        if self._on_replace is not None:
            listener.operation_replacement_handler = [
                *listener.operation_replacement_handler,
                self._replaced,
            ]
        return listener


_Rewrite = Callable[[RewritePattern, Operation, PatternRewriter], None]


#: Per pattern class: what `_typed_rewrite` read from it.
_TYPED: dict[type, tuple[type | None, _Rewrite | None]] = {}

#: Per (pattern classes of a `TypeDispatch`, op class): the positions of the patterns
#: that op class meets (`TypeDispatch._for`).  Passes make their dispatch afresh for
#: each run, and the classes' answers do not change.
_CHOSEN: dict[tuple[tuple[type, ...], type], tuple[int, ...]] = {}


def _typed_rewrite(pattern: RewritePattern) -> tuple[type | None, _Rewrite | None]:
    """The op type an `@op_type_rewrite_pattern` method matches and the method it wraps,
    read from the wrapper's closure (once per pattern class); `(None, None)` for any
    other pattern (it is then tried on every op, as xDSL's applier tries it)."""
    known = _TYPED.get(type(pattern))
    if known is None:
        known = _TYPED[type(pattern)] = _read_typed_rewrite(type(pattern))
    return known


def _read_typed_rewrite(pattern_class: type) -> tuple[type | None, _Rewrite | None]:
    method = getattr(pattern_class, "match_and_rewrite", None)
    code = getattr(method, "__code__", None)
    closure = getattr(method, "__closure__", None)
    if code is None or closure is None or code.co_name != "impl":
        return None, None
    cells = dict(zip(code.co_freevars, closure, strict=True))
    expected = cells.get("expected_type")
    func = cells.get("func")
    if expected is None or func is None:
        return None, None
    wanted, inner = expected.cell_contents, func.cell_contents
    if not callable(inner):
        return None, None
    return wanted, cast(_Rewrite, inner)


@dataclass
class TypeDispatch(RewritePattern):
    """`GreedyRewritePatternApplier(patterns, dce_enabled=False)`, keyed by op type.

    xDSL's applier calls every pattern on every op, and an `@op_type_rewrite_pattern`
    pattern then tests the op's type (an ABC `isinstance`): with thirty patterns and
    thousands of ops that was most of a conversion's dispatch (1.7 million pattern calls
    over the held-out kernels).  Here the patterns that can match an op's class are
    found once per class, in their given order, and only they are tried; the first that
    rewrites the op ends its turn, as in xDSL's applier, so the result is the same."""

    patterns: list[RewritePattern]
    #: As the applier's `dce_enabled`: an op that is trivially dead is erased first.
    dce_enabled: bool = False
    _table: dict[type, list[tuple[RewritePattern, _Rewrite | None]]] = field(
        init=False, default_factory=dict[type, list[tuple[RewritePattern, _Rewrite | None]]]
    )
    _typed: list[tuple[RewritePattern, type | None, _Rewrite | None]] = field(
        init=False, default_factory=list[tuple[RewritePattern, type | None, _Rewrite | None]]
    )
    _is_dead: Callable[[Operation], bool] | None = field(init=False, default=None)
    _classes: tuple[type, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        self._typed = [(p, *_typed_rewrite(p)) for p in self.patterns]
        self._classes = tuple(type(p) for p in self.patterns)
        if self.dce_enabled:
            from xdsl.transforms.dead_code_elimination import is_trivially_dead

            self._is_dead = is_trivially_dead

    def idle(self, cls: type) -> bool:
        """Whether nothing can happen to an op of class `cls`: no pattern to try and no
        dead-code erasure."""
        if self.dce_enabled:
            return False
        chosen = self._table.get(cls)
        if chosen is None:
            chosen = self._for(cls)
        return not chosen

    def _for(self, cls: type) -> list[tuple[RewritePattern, _Rewrite | None]]:
        key = (self._classes, cls)
        positions = _CHOSEN.get(key)
        if positions is None:
            positions = _CHOSEN[key] = tuple(
                i
                for i, (_, wanted, _) in enumerate(self._typed)
                if wanted is None or issubclass(cls, wanted)
            )
        typed = self._typed
        chosen = [(typed[i][0], typed[i][2]) for i in positions]
        self._table[cls] = chosen
        return chosen

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if self._is_dead is not None and self._is_dead(op):
            rewriter.erase(op)
            return
        chosen = self._table.get(type(op))
        if chosen is None:
            chosen = self._for(type(op))
        for pattern, inner in chosen:
            if inner is None:
                pattern.match_and_rewrite(op, rewriter)
            else:
                inner(pattern, op, rewriter)
            if rewriter.has_done_action:
                return
