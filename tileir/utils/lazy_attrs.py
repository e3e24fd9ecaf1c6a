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

from tileir.utils.lazy_definitions import LazyDefinitions

#: What `irdl_param_attr_definition` sets (or the dataclass decorator it runs reads) that
#: can be read before an attribute of the class exists: every way to make one reads
#: `get_irdl_definition` first.  `get_type_index` only on a `TypedAttribute`.
TRIGGERS = ("get_irdl_definition", "__dataclass_fields__", "__dataclass_params__")
TYPED_TRIGGERS = (*TRIGGERS, "get_type_index")

#: The attributes deferred, and xDSL's `irdl_param_attr_definition` once installed.
_lazy = LazyDefinitions()


def define(cls: type) -> None:
    """Run xDSL's `irdl_param_attr_definition` on each lazily decorated class of
    `cls.__mro__` not yet defined, bases first."""
    _lazy.define(cls)


def define_all() -> None:
    """Define every attribute decorated so far (tests)."""
    _lazy.define_all()


def pending() -> list[type]:
    """The classes decorated but not yet defined."""
    return _lazy.pending()


def lazy_param_attr_definition(cls: type) -> type:
    from xdsl.ir import TypedAttribute
    from xdsl.utils.runtime_final import runtime_final

    if cls in _lazy.deferred:
        return cls
    _lazy.defer(cls, TYPED_TRIGGERS if issubclass(cls, TypedAttribute) else TRIGGERS)
    return runtime_final(cls)


def install() -> bool:
    """Make `@irdl_attr_definition` lazy for the parametrized attributes defined from
    now on (call before xDSL's dialects are imported).  False if xDSL is not the one
    this was written against (then nothing changes)."""
    from xdsl.irdl import attributes

    if _lazy.eager is not None:
        return True
    eager = getattr(attributes, "irdl_param_attr_definition", None)
    if eager is None or not hasattr(attributes.ParamAttrDef, "from_pyrdl"):
        return False
    _lazy.eager = eager
    attributes.irdl_param_attr_definition = lazy_param_attr_definition  # pyright: ignore[reportAttributeAccessIssue]
    return True


def installed() -> bool:
    return _lazy.eager is not None
