"""Result pruning of region ops (seed 004 rows "Queue result pruning" and "Pragma result
pruning", "Queue and Pragma Pruning").

Earlier lowering gives `queue.get` and `pragma` every value that might be consumed;
once some results have no user, the op is rebuilt with the survivors only and its
terminator yields just those, in their original relative order (reordering live
results would change what downstream consumers see even where the types match).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileaa.ops.base import terminator
from tileir.dialects.nv_tileaa.ops.regions import RESULT_REFERENCE


def live_result_indices(op: Operation, pinned: Collection[int] = ()) -> list[int]:
    """`live_result_indices`: the results that have a user or that the op's payload
    `pinned`, in increasing (original) order."""
    return [i for i, r in enumerate(op.results) if r.uses or i in pinned]


def prune_region_results(
    op: Operation,
    live: Sequence[int],
    rebuild: Callable[[Region, list[Attribute]], Operation],
    rewriter: PatternRewriter,
) -> None:
    """`prune_region_results`: `op` rebuilt (by `rebuild`, from its moved body and the
    live result types) with the `live` results only, in order; the body's terminator
    yields the matching operands, and each live result is replaced by its survivor.
    The dropped results have no user, so nothing else sees the change."""
    body = op.regions[0]
    last = terminator(body)
    assert last is not None
    new_terminator = type(last).create(
        operands=[last.operands[i] for i in live],
        attributes=dict(last.attributes),
        properties=dict(last.properties),
    )
    rewriter.replace(last, new_terminator, [])
    new_body = rewriter.move_region_contents_to_new_regions(body)
    replacement = rebuild(new_body, [op.results[i].type for i in live])
    new_values: list[SSAValue | None] = [None] * len(op.results)
    for new_index, old_index in enumerate(live):
        new_values[old_index] = replacement.results[new_index]
    rewriter.replace(op, replacement, new_values)


class PruneQueueGetResults(RewritePattern):
    """`prune_queue_get_results`: a `queue.get` whose results are partly unused is
    rebuilt with the used ones (its `queue.yield` yielding only those); the stage is
    still consumed, so a get left with no result stays.

    Safety: the result order of the remaining values is preserved."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.QueueGetOp, rewriter: PatternRewriter) -> None:
        live = live_result_indices(op)
        if len(live) == len(op.results):
            return
        queue, index = op.queue, op.index
        attributes = dict(op.attributes)

        def rebuild(body: Region, types: list[Attribute]) -> Operation:
            new = aa.QueueGetOp(queue, body, types, index)
            new.attributes.update(attributes)
            return new

        prune_region_results(op, live, rebuild, rewriter)


def renumber_directive(directive: str, new_index: dict[int, int]) -> str:
    """`directive` with every `$N` result reference renumbered after pruning."""
    return RESULT_REFERENCE.sub(lambda m: f"${new_index[int(m.group(1))]}", directive)


class PrunePragmaResults(RewritePattern):
    """`prune_pragma_results`: a `pragma` whose carried results are partly unused is
    rebuilt with the used ones, its `yield` rewritten to match, and the `$N` result
    references of its directives renumbered.

    Safety: the pragma's semantic payload is independent of the removed result: a
    result that a directive names (`$N`) is kept even without users; the remaining
    results keep their relative order."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.PragmaOp, rewriter: PatternRewriter) -> None:
        live = live_result_indices(op, op.referenced_results())
        if len(live) == len(op.results):
            return
        new_index = {old: new for new, old in enumerate(live)}
        properties: dict[str, Attribute] = {}
        for key, value in op.properties.items():
            if key in ("ocgEnterDirectives", "ocgLeaveDirectives") and isinstance(value, ArrayAttr):
                value = ArrayAttr(
                    [
                        StringAttr(renumber_directive(d.data, new_index))
                        for d in value.data
                        if isinstance(d, StringAttr)
                    ]
                )
            properties[key] = value
        attributes = dict(op.attributes)

        def rebuild(body: Region, types: list[Attribute]) -> Operation:
            return aa.PragmaOp.create(
                result_types=types, regions=[body], properties=properties, attributes=attributes
            )

        prune_region_results(op, live, rebuild, rewriter)


REGION_PATTERNS: tuple[type[RewritePattern], ...] = (PruneQueueGetResults, PrunePragmaResults)
