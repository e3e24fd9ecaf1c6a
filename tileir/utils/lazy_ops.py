"""xDSL op definitions built on an op's first use instead of at its class statement, for
a process that imports the compiler to compile once (`tileir-as` cold; installed by
`tileir.utils.cold_start.install`, before xDSL's dialects are imported).

`@irdl_op_definition` turns a class statement into an op: it reads the class's field
definitions into an `OpDef` (constraints, traits, options) and replaces them with
accessors, about a fifth of a cold process's imports for the ~370 ops of xDSL's and
tileir's dialects.  A compilation creates ops of 50-110 of them (arith: 4 of 47), so
here the decorator only records the class and puts a trigger on it; the first read of
what the definition would have set that can happen before an op of the class exists
(`__new__`, through which every op is made, `traits`, `get_irdl_definition`, `parse`)
runs xDSL's own decorator on the class, after its lazily defined bases, on the class
statement's own attributes (the triggers taken off first).  So each class is defined by
the same code, from the same inputs, in the same order relative to its bases, as at its
class statement: the same `OpDef`, accessors and methods (a test compares every op's
definition with the eager one), only later.  Field accessors (`op.lhs`) need no trigger:
a class's ops exist only after its `__new__` ran.

Not for a long-lived process that forks workers (the compile server): each worker would
define again what the next one needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tileir.utils.lazy_definitions import ABSENT, LazyDefinitions

OpT = TypeVar("OpT", bound=type)

#: What `@irdl_op_definition` sets on a class that can be read before an op of the
#: class exists; `__new__` makes every op (`Op(...)`, `Op.create`, `clone`, copies).
TRIGGERS = ("__new__", "traits", "get_irdl_definition", "parse")


@staticmethod
def _plain_new(cls: type, *args: object, **kwargs: object) -> object:
    """`object.__new__` for a class whose constructor takes arguments."""
    return object.__new__(cls)


def _fix_new(klass: type, own: dict[str, object]) -> None:
    if own["__new__"] is ABSENT:
        # Taking the trigger off leaves CPython's slot for it in place (a class whose
        # `__new__` was set in Python keeps calling it through the MRO), and
        # `object.__new__` so called rejects the constructor's arguments.
        klass.__new__ = _plain_new  # pyright: ignore[reportAttributeAccessIssue]


#: The op classes deferred, and xDSL's `irdl_op_definition` once installed.
_lazy = LazyDefinitions(_fix_new)


def define(cls: type) -> None:
    """Run xDSL's decorator on `cls` and on each lazily decorated class among its bases
    not yet defined, bases first, as their class statements would have."""
    _lazy.define(cls)


def after_definition(cls: OpT, hook: Callable[[OpT], object]) -> OpT:
    """Run `hook(cls)` once `@irdl_op_definition` has defined `cls`: now where it has,
    else right after `define` does (for a decorator that changes what the definition
    set, applied above `@irdl_op_definition`, so that it reads no trigger at import)."""
    _lazy.after_definition(cls, hook)
    return cls


def define_all() -> None:
    """Define every op decorated so far (tests; the docs generators)."""
    _lazy.define_all()


def pending() -> list[type]:
    """The classes decorated but not yet defined."""
    return _lazy.pending()


def lazy_irdl_op_definition(cls: type) -> type:
    from xdsl.irdl import IRDLOperation

    assert issubclass(cls, IRDLOperation), (
        f"class {cls.__name__} should be a subclass of IRDLOperation"
    )
    _lazy.defer(cls, TRIGGERS)
    return cls


def install() -> bool:
    """Make `@irdl_op_definition` lazy for the op classes defined from now on (call before
    xDSL's dialects are imported).  False if xDSL is not the one this was written
    against (then nothing changes)."""
    import xdsl.irdl
    from xdsl.irdl import operations

    if _lazy.eager is not None:
        return True
    eager = operations.irdl_op_definition
    if xdsl.irdl.irdl_op_definition is not eager or not hasattr(
        operations, "get_accessors_from_op_def"
    ):
        return False
    _lazy.eager = eager
    operations.irdl_op_definition = lazy_irdl_op_definition  # pyright: ignore[reportAttributeAccessIssue]
    xdsl.irdl.irdl_op_definition = lazy_irdl_op_definition  # pyright: ignore[reportAttributeAccessIssue]
    return True


def installed() -> bool:
    return _lazy.eager is not None
