"""Rewriting that keeps source locations.

MLIR patterns build replacement ops at the location of the op they rewrite, so a
diagnostic from a late pass still points at the user's source line.  xDSL's walker
does not, so tileir's passes use `LocatedWalker`: every op a pattern inserts without a
location of its own takes the location of the op being rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)


@dataclass
class _Tracking(RewritePattern):
    """Remembers which op the wrapped pattern is rewriting."""

    inner: RewritePattern
    current: list[Operation] = field(default_factory=list)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.current.append(op)
        try:
            self.inner.match_and_rewrite(op, rewriter)
        finally:
            self.current.pop()


class LocatedWalker(PatternRewriteWalker):
    def __init__(self, pattern: RewritePattern, **kwargs: object):
        self._tracking = _Tracking(pattern)
        super().__init__(self._tracking, **kwargs)  # pyright: ignore[reportArgumentType]

    def _locate(self, op: Operation) -> None:
        if self._tracking.current and isinstance(op.location, UnknownLoc):
            source = self._tracking.current[-1].location
            for nested in op.walk():
                if isinstance(nested.location, UnknownLoc):
                    nested.location = source

    def _get_rewriter_listener(self) -> PatternRewriterListener:
        listener = super()._get_rewriter_listener()
        listener.operation_insertion_handler = [self._locate, *listener.operation_insertion_handler]
        return listener
