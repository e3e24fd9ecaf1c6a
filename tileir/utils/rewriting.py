"""Rewriting that keeps source locations.

MLIR patterns build replacement ops at the location of the op they rewrite, so a
diagnostic from a late pass still points at the user's source line.  xDSL's walker
does not, so tileir's passes use `LocatedWalker`: every op a pattern inserts without a
location of its own takes the location of the op being rewritten.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)

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


class LocatedWalker(PatternRewriteWalker):
    def __init__(
        self, pattern: RewritePattern, *, on_replace: ReplaceHook | None = None, **kwargs: object
    ):
        self._tracking = _Tracking(pattern)
        self._on_replace = on_replace
        super().__init__(self._tracking, **kwargs)  # pyright: ignore[reportArgumentType]

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


def _typed_rewrite(pattern: RewritePattern) -> tuple[type | None, _Rewrite | None]:
    """The op type an `@op_type_rewrite_pattern` method matches and the method it wraps,
    read from the wrapper's closure; `(None, None)` for any other pattern (it is then
    tried on every op, as xDSL's applier tries it)."""
    method = getattr(type(pattern), "match_and_rewrite", None)
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
    _table: dict[type, list[tuple[RewritePattern, _Rewrite | None]]] = field(
        init=False, default_factory=dict[type, list[tuple[RewritePattern, _Rewrite | None]]]
    )
    _typed: list[tuple[RewritePattern, type | None, _Rewrite | None]] = field(
        init=False, default_factory=list[tuple[RewritePattern, type | None, _Rewrite | None]]
    )

    def __post_init__(self) -> None:
        self._typed = [(p, *_typed_rewrite(p)) for p in self.patterns]

    def _for(self, cls: type) -> list[tuple[RewritePattern, _Rewrite | None]]:
        chosen: list[tuple[RewritePattern, _Rewrite | None]] = []
        for pattern, wanted, inner in self._typed:
            if wanted is None:
                chosen.append((pattern, None))
            elif issubclass(cls, wanted):
                chosen.append((pattern, inner))
        self._table[cls] = chosen
        return chosen

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
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
