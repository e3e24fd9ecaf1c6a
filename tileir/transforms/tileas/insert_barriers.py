"""`tileas-insert-barriers`: memory order made explicit as `nv_tileas.cta_barrier`s, then
the synchronous memory tokens that implied it are dropped (seed 004 "Mem-Token
Lifecycle"; the op is tileir's, see `tileir/dialects/nv_tileas/ops/synchronization.py`).

A tile is spread over the threads of a CTA, so a token that orders one tiled access
after another orders accesses that different threads may make to the same element.
Seed 004 turns asynchronous tokens into mbarriers (token hop two, run by
`convert-tileaa-to-tileas`); synchronous tokens, all cuTile's `make_token` gives,
carry no runtime value, and what they order becomes CTA barriers here:

1. **Token history.**  Each token's chain is followed back through joins, tiled loads
   (a read), tiled stores (a write) and atomics (both) to the accesses it follows.  A
   block argument, a branch result or a fresh `create_mem_token` starts with none.
   (Prints and grid-dependency ops only order; `convert-tileaa-to-tileas` already
   passed their input token on to what followed them.)
2. **Before.**  A tiled load whose token follows a write, a tiled store whose token
   follows any access, and an atomic whose token follows any access wait at a barrier
   first: the element may be another thread's.  So do release (and acq_rel) stores and
   atomics, so that every thread's earlier accesses are ordered before the release.
3. **After.**  Acquire (and acq_rel) loads and atomics are followed by a barrier, so
   every thread's later accesses are ordered after the acquire.

The barrier goes immediately before (after) the access, in its block, unless one is
already there: an acquire load followed by an access that waits gets one barrier
between them, not two, and running the pass again adds nothing.  Then, in each
function whose tokens are only used by the ops above, joins and `scf` plumbing, the
tokens go: tiled loads, tiled stores and atomics lose their token operand and result,
`scf.for`/`scf.if`/`scf.while` their token results, iter-args and yields, and joins and
`create_mem_token`s are erased.  Program order and the barriers now say everything the
tokens said.  (The atomics are tileir's `nv_tileas.atomic_rmw`/`atomic_cas` by now.)
A function with another token user (`async.token_to_async`) keeps its tokens, and
`convert-tileas-to-llvm` reports them as not supported yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.irdl import IRDLOperation, OptOperandDef, OptResultDef, VarOperandDef, VarResultDef
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileaa.types import MemTokenType
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import MemSemantic

ATOMICS = tas.AtomicRmwOp | tas.AtomicCasOp
TILED = tas.TiledLoadOp | tas.TiledStoreOp
#: The ops whose input token is dropped once the barriers are in place.
TOKEN_CONSUMERS = TILED | ATOMICS
SCF_CARRIERS = scf.ForOp | scf.IfOp | scf.WhileOp
#: What may define and use a token this pass drops.
TOKEN_PRODUCERS = TOKEN_CONSUMERS | SCF_CARRIERS | aa.JoinMemTokenOp | aa.CreateMemTokenOp
TOKEN_USERS = (
    TOKEN_CONSUMERS | scf.ForOp | scf.WhileOp | scf.YieldOp | scf.ConditionOp | aa.JoinMemTokenOp
)


@dataclass(frozen=True)
class TokenHistory:
    """Which kinds of memory access a token's chain has seen."""

    read: bool = False
    write: bool = False

    def __or__(self, other: TokenHistory) -> TokenHistory:
        return TokenHistory(self.read or other.read, self.write or other.write)


def token_history(value: SSAValue, cache: dict[SSAValue, TokenHistory]) -> TokenHistory:
    """Which kinds of memory access the chain of token `value` has seen."""
    if value in cache:
        return cache[value]
    op = value.owner
    history = TokenHistory()
    if isinstance(op, aa.JoinMemTokenOp):
        for t in op.tokens:
            history = history | token_history(t, cache)
    elif isinstance(op, tas.TiledLoadOp) and op.token is not None:
        history = token_history(op.token, cache) | TokenHistory(read=True)
    elif isinstance(op, tas.TiledStoreOp) and op.token is not None:
        history = token_history(op.token, cache) | TokenHistory(write=True)
    elif isinstance(op, ATOMICS):
        history = TokenHistory(read=True, write=True)
        if op.token is not None:
            history = token_history(op.token, cache) | history
    cache[value] = history
    return history


def barrier_sides(op: Operation, cache: dict[SSAValue, TokenHistory]) -> tuple[bool, bool]:
    """(barrier before, barrier after) for one memory access; (False, False) for others."""
    if isinstance(op, ATOMICS):
        # A read-modify-write after accesses another thread may have made, and the
        # CTA-wide side of acquire/release orders.
        sem = op.semantic()
        h = token_history(op.token, cache) if op.token is not None else TokenHistory()
        before = h.write or h.read or sem in (MemSemantic.RELEASE, MemSemantic.ACQUIRE_RELEASE)
        return before, sem in (MemSemantic.ACQUIRE, MemSemantic.ACQUIRE_RELEASE)
    if isinstance(op, TILED):
        before = False
        if op.token is not None:
            h = token_history(op.token, cache)
            before = h.write if isinstance(op, tas.TiledLoadOp) else (h.write or h.read)
        sem = op.semantic()
        if isinstance(op, tas.TiledStoreOp) and sem in (
            MemSemantic.RELEASE,
            MemSemantic.ACQUIRE_RELEASE,
        ):
            before = True
        after = isinstance(op, tas.TiledLoadOp) and sem in (
            MemSemantic.ACQUIRE,
            MemSemantic.ACQUIRE_RELEASE,
        )
        return before, after
    return False, False


def _barrier_for(access: Operation) -> tas.CtaBarrierOp:
    """A barrier located at the access it orders (diagnostics and line info)."""
    barrier = tas.CtaBarrierOp()
    barrier.location = access.location
    return barrier


def insert_barriers(root: Operation) -> None:
    """Place a `cta_barrier` before and after every access that needs one."""
    cache: dict[SSAValue, TokenHistory] = {}
    for op in list(root.walk()):
        before, after = barrier_sides(op, cache)
        # A barrier right next to the access already serves (two in a row order
        # nothing more than one), which also makes the pass idempotent.
        if before and not isinstance(op.prev_op, tas.CtaBarrierOp):
            Rewriter.insert_op(_barrier_for(op), InsertPoint.before(op))
        if after and not isinstance(op.next_op, tas.CtaBarrierOp):
            Rewriter.insert_op(_barrier_for(op), InsertPoint.after(op))


# ---------------------------------------------------------------------------
# Dropping the tokens.
# ---------------------------------------------------------------------------


def is_token(value: SSAValue | Attribute) -> bool:
    return isinstance(value.type if isinstance(value, SSAValue) else value, MemTokenType)


def _token_values(fn: Operation) -> list[SSAValue]:
    values: list[SSAValue] = []
    for op in fn.walk():
        if op is not fn:
            values += [r for r in op.results if is_token(r)]
        for region in op.regions:
            for block in region.blocks:
                values += [a for a in block.args if is_token(a)]
    return values


def _droppable(value: SSAValue) -> bool:
    """Can every use (and the definition) of a token be dropped?"""
    if isinstance(value, BlockArgument):
        if not isinstance(value.block.parent_op(), scf.ForOp | scf.WhileOp):
            return False
    elif not isinstance(value.owner, TOKEN_PRODUCERS):
        return False
    return all(isinstance(use.operation, TOKEN_USERS) for use in value.uses)


def _rebuild_without_tokens(op: IRDLOperation) -> IRDLOperation:
    """`op` again without its optional token operand and result, built through its IRDL definition so operand segment
    sizes are recomputed."""
    op_def = type(op).get_irdl_definition()
    operands: list[SSAValue | list[SSAValue]] = []
    for name, odef in op_def.operands:
        value = getattr(op, name)
        if isinstance(odef, OptOperandDef):
            operands.append([] if value is None or is_token(value) else [value])
        elif isinstance(odef, VarOperandDef):
            operands.append(list(value))
        else:
            operands.append(value)
    result_types: list[Attribute | list[Attribute]] = []
    for name, rdef in op_def.results:
        value = getattr(op, name)
        if isinstance(rdef, OptResultDef):
            if value is None or is_token(value):
                result_types.append([])
            else:
                result_types.append([value.type])
        elif isinstance(rdef, VarResultDef):
            result_types.append([r.type for r in value])
        else:
            result_types.append(value.type)
    segments = ("operandSegmentSizes", "resultSegmentSizes")
    props = {k: v for k, v in op.properties.items() if k not in segments}
    new = type(op).build(
        operands=operands,
        result_types=result_types,
        properties=props,
        attributes=dict(op.attributes),
    )
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    kept = _keep(op.results)
    for old, repl in zip(kept, new.results, strict=True):
        old.replace_all_uses_with(repl)
    Rewriter.erase_op(op)
    return new


def _keep(values: Iterable[SSAValue]) -> list[SSAValue]:
    return [v for v in values if not is_token(v)]


def _erase_token_args(block: Block) -> None:
    for arg in [a for a in block.args if is_token(a)]:
        block.erase_arg(arg)


def _strip_terminator(block: Block) -> None:
    term = block.last_op
    if isinstance(term, scf.YieldOp):
        term.operands = _keep(term.operands)
    elif isinstance(term, scf.ConditionOp):
        term.operands = [term.condition, *_keep(term.args)]


def _rebuild_scf(op: scf.ForOp | scf.IfOp | scf.WhileOp) -> None:
    """`op` without token results, iter-args and yields (their uses are gone)."""
    if isinstance(op, scf.ForOp):
        operands = [op.lb, op.ub, op.step, *_keep(op.iter_args)]
    elif isinstance(op, scf.WhileOp):
        operands = _keep(op.arguments)
    else:
        operands = [op.cond]
    regions = [op.detach_region(r) for r in list(op.regions)]
    for region in regions:
        for block in region.blocks:
            _erase_token_args(block)
            _strip_terminator(block)
    new = type(op).create(
        operands=operands,
        result_types=[r.type for r in _keep(op.results)],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
        regions=regions,
    )
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    for old, repl in zip(_keep(op.results), new.results, strict=True):
        old.replace_all_uses_with(repl)
    Rewriter.erase_op(op)


def drop_tokens(fn: Operation) -> bool:
    """Remove the synchronous memory tokens of `fn`; False (and nothing changed) when
    some token has a user this pass does not know."""
    values = _token_values(fn)
    if not values:
        return True
    if not all(_droppable(v) for v in values):
        return False
    body = fn.regions[0].blocks.first
    assert body is not None
    # Every token use first goes to one placeholder, so each op can then lose its token
    # operands and results independently of the others.
    placeholder = aa.CreateMemTokenOp()
    Rewriter.insert_op(placeholder, InsertPoint.at_start(body))
    for v in values:
        v.replace_all_uses_with(placeholder.result)
    for op in list(fn.walk()):
        if isinstance(op, TILED | ATOMICS):
            _rebuild_without_tokens(op)
    for op in list(fn.walk(region_first=True)):
        if isinstance(op, SCF_CARRIERS) and (
            any(is_token(r) for r in op.results) or any(is_token(v) for v in op.operands)
        ):
            _rebuild_scf(op)
    for op in list(fn.walk(reverse=True)):
        if isinstance(op, aa.JoinMemTokenOp | aa.CreateMemTokenOp) and op is not placeholder:
            Rewriter.erase_op(op)
    assert not placeholder.result.uses
    Rewriter.erase_op(placeholder)
    return True


@dataclass(frozen=True)
class InsertBarriersPass(ModulePass):
    """A `nv_tileas.cta_barrier` wherever a token orders accesses that different
    threads may make to one element, or an acquire/release needs the whole CTA; then
    the synchronous tokens are dropped."""

    name = "tileas-insert-barriers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        insert_barriers(op)
        for fn in op.walk():
            if isinstance(fn, func.FuncOp) and fn.body.blocks:
                drop_tokens(fn)
