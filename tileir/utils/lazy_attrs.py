"""xDSL parametrized attribute definitions built on first use instead of at the class
statement, for a process that imports the compiler to compile once (`tileir-as` cold;
installed by `tileir.utils.cold_start.install`, before xDSL's dialects are imported),
as tileir/utils/lazy_ops.py does for ops.

`@irdl_attr_definition` on a `ParametrizedAttribute` reads the class's annotated
parameters into a `ParamAttrDef` (their constraints, from the evaluated annotations),
turns the class into a frozen dataclass and makes it final: about 0.5 ms a class, 83
classes of xDSL's and tileir's dialects, of which a compilation instantiates 35-45
(`vadd_f32`: 37).  Installed, the decorator makes the class final at once (whether a
class is final decides the constraints that name it: `is_runtime_final`) and puts a
trigger on what the rest would set; the first read of one (`get_irdl_definition`,
through which every attribute is made and verified: `__init__`, `new`, `_verify`;
`get_type_index`; the dataclass fields) runs xDSL's own `irdl_param_attr_definition` on
the class, triggers taken off first: the same `ParamAttrDef`, dataclass methods and
accessors as at the class statement (a test compares every attribute's definition and
class dictionary with the eager ones), only later.

Not for a long-lived process that forks workers (the compile server): each worker would
define again what the next one needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: What `irdl_param_attr_definition` sets (or the dataclass decorator it runs reads) that
#: can be read before an attribute of the class exists: every way to make one reads
#: `get_irdl_definition` first.  `get_type_index` only on a `TypedAttribute`.
TRIGGERS = ("get_irdl_definition", "__dataclass_fields__", "__dataclass_params__")
TYPED_TRIGGERS = (*TRIGGERS, "get_type_index")

#: An attribute a class statement did not define (put back as absent).
_ABSENT: Any = object()

#: Classes decorated but not yet defined -> their own values of the triggers' names.
_pending: dict[type, dict[str, object]] = {}

#: xDSL's `irdl_param_attr_definition`, which `define` runs.
_eager: Callable[[type], type] | None = None


class _Trigger:
    """A class attribute whose first read defines its class, then answers as the
    defined class does."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, owner: type | None = None) -> object:
        cls = owner if owner is not None else type(obj)
        define(cls)
        return getattr(cls if obj is None else obj, self.name)


def define(cls: type) -> None:
    """Run xDSL's `irdl_param_attr_definition` on each lazily decorated class of
    `cls.__mro__` not yet defined, bases first."""
    assert _eager is not None
    for klass in reversed(cls.__mro__):
        own = _pending.pop(klass, None)
        if own is None:
            continue
        for name, value in own.items():
            if value is _ABSENT:
                delattr(klass, name)
            else:
                setattr(klass, name, value)
        _eager(klass)


def define_all() -> None:
    """Define every attribute decorated so far (tests)."""
    while _pending:
        define(next(iter(_pending)))


def pending() -> list[type]:
    """The classes decorated but not yet defined."""
    return list(_pending)


def lazy_param_attr_definition(cls: type) -> type:
    from xdsl.ir import TypedAttribute
    from xdsl.utils.runtime_final import runtime_final

    if cls in _pending:
        return cls
    names = TYPED_TRIGGERS if issubclass(cls, TypedAttribute) else TRIGGERS
    _pending[cls] = {name: cls.__dict__.get(name, _ABSENT) for name in names}
    for name in names:
        setattr(cls, name, _Trigger(name))
    return runtime_final(cls)


def install() -> bool:
    """Make `@irdl_attr_definition` lazy for the parametrized attributes defined from
    now on (call before xDSL's dialects are imported).  False if xDSL is not the one
    this was written against (then nothing changes)."""
    global _eager
    from xdsl.irdl import attributes

    if _eager is not None:
        return True
    eager = getattr(attributes, "irdl_param_attr_definition", None)
    if eager is None or not hasattr(attributes.ParamAttrDef, "from_pyrdl"):
        return False
    _eager = eager
    attributes.irdl_param_attr_definition = lazy_param_attr_definition  # pyright: ignore[reportAttributeAccessIssue]
    return True


def installed() -> bool:
    return _eager is not None
