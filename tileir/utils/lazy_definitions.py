"""Class definitions deferred to first use: what tileir/utils/lazy_ops.py (ops) and
tileir/utils/lazy_attrs.py (parametrized attributes) share.

An xDSL definition decorator (`irdl_op_definition`, `irdl_param_attr_definition`) does
its work at the class statement.  Deferred, the class is recorded with its own values of
the names the definition would set that can be read before an instance exists, and each
of those names gets a trigger; the first read of one takes the triggers off, puts the
class statement's values back and runs the eager decorator on the class, after its
deferred bases (the same code, inputs and order as at the class statement, only later).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

#: An attribute a class statement did not define (put back as absent).
ABSENT: Any = object()


class _Trigger:
    """A class attribute whose first read defines its class, then answers as the
    defined class does."""

    __slots__ = ("name", "owner")

    def __init__(self, name: str, owner: LazyDefinitions) -> None:
        self.name = name
        self.owner = owner

    def __get__(self, obj: object, owner: type | None = None) -> object:
        cls = owner if owner is not None else type(obj)
        self.owner.define(cls)
        return getattr(cls if obj is None else obj, self.name)


class LazyDefinitions:
    """The classes one decorator deferred, and the decorator (`eager`, set by the
    module's `install`).  `fix_up(cls, own)` runs after `eager` on each class (`own`:
    the class statement's values of the triggers' names); hooks registered by
    `after_definition` after that."""

    def __init__(self, fix_up: Callable[[type, dict[str, object]], None] | None = None) -> None:
        self.eager: Callable[[type], type] | None = None
        self.fix_up = fix_up
        self.deferred: dict[type, dict[str, object]] = {}
        self.hooks: dict[type, list[Callable[[Any], object]]] = {}

    def defer(self, cls: type, names: Iterable[str]) -> None:
        """Record `cls` (once) and put a trigger on each of `names`."""
        if cls in self.deferred:
            return
        names = tuple(names)
        self.deferred[cls] = {name: cls.__dict__.get(name, ABSENT) for name in names}
        for name in names:
            setattr(cls, name, _Trigger(name, self))

    def define(self, cls: type) -> None:
        """Run the eager decorator on each deferred class of `cls.__mro__` not yet
        defined, bases first, as their class statements would have."""
        assert self.eager is not None
        for klass in reversed(cls.__mro__):
            own = self.deferred.pop(klass, None)
            if own is None:
                continue
            for name, value in own.items():
                if value is ABSENT:
                    delattr(klass, name)
                else:
                    setattr(klass, name, value)
            self.eager(klass)
            if self.fix_up is not None:
                self.fix_up(klass, own)
            for hook in self.hooks.pop(klass, ()):
                hook(klass)

    def after_definition(self, cls: type, hook: Callable[[Any], object]) -> None:
        """Run `hook(cls)` once `cls` is defined: now where it is, else right after
        `define` defines it."""
        if cls in self.deferred:
            self.hooks.setdefault(cls, []).append(hook)
        else:
            hook(cls)

    def define_all(self) -> None:
        """Define every class deferred so far (tests; the docs generators)."""
        while self.deferred:
            self.define(next(iter(self.deferred)))

    def pending(self) -> list[type]:
        """The classes deferred but not yet defined."""
        return list(self.deferred)
