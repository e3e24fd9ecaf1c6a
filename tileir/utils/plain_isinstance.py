"""`isinstance` against xDSL's and tileir's abstract base classes at the price of a plain
class check, for a compiler process (`tileir-as`, a compile server and its workers).

Every xDSL IR class (`Operation`, `Attribute`, `OpTrait`, every op and attribute of every
dialect: about 900 classes once the compiler is imported) has `abc.ABCMeta` for its
metaclass, so `isinstance(op, llvm.AddOp)` that is not an exact type match calls
`ABCMeta.__instancecheck__`, a Python frame over `_abc_instancecheck`, where a class of
metaclass `type` is answered in C.  A compilation asks it about 90,000 times a kernel
(2.2 million over 24 held-out kernels: pattern dispatch, `isa`, the verifiers' constraints,
the lowering's own tests), and it was about a tenth of a warm compilation's CPU.

What `ABCMeta` adds to `type`'s answer is virtual subclasses: classes `register`ed with
an ABC, and a `__subclasshook__` that accepts classes outside the inheritance tree.
Neither xDSL nor tileir uses either (checked by the test), and for a class with neither
anywhere among its bases and subclasses, `ABCMeta`'s answer is `type`'s.  `install`
moves such classes of the `xdsl` and `tileir` packages to `PlainCheckABCMeta`, an
`ABCMeta` whose two checks are `type`'s (abstract methods and `register` stay ABCMeta's);
their subclasses defined later inherit it.  Should anything `register` with one of them
later, or define a `__subclasshook__` under one, every class moved goes back to `ABCMeta`
first (`uninstall`), so the answer never differs from `ABCMeta`'s.

Only the driver installs it, in the processes that compile (`tileir.driver.assembler`
under `tileir-as`, the server before it forks its workers); a Python session that
imports tileir as a library keeps xDSL's classes as they are.
"""

from __future__ import annotations

import abc

#: The packages whose classes move.
PACKAGES = ("xdsl.", "tileir.")


class PlainCheckABCMeta(abc.ABCMeta):
    """`ABCMeta`, except that `isinstance` and `issubclass` are `type`'s (in C)."""

    __instancecheck__ = type.__instancecheck__
    __subclasscheck__ = type.__subclasscheck__

    def __new__(
        mcls, name: str, bases: tuple[type, ...], namespace: dict[str, object], /, **kwargs: object
    ):
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        if "__subclasshook__" in namespace:
            uninstall()  # a hook: ABCMeta's answers (for this class's bases too)
        return cls

    def register(cls, subclass: type) -> type:  # type: ignore[override]
        uninstall()  # a virtual subclass: only ABCMeta knows of it
        return abc.ABCMeta.register(cls, subclass)


#: The classes `install` moved (and `uninstall` moves back).
_moved: list[type] = []
#: Whether `install` ran since the last `uninstall`.
_installed = False


def install() -> int:
    """Move the eligible xDSL and tileir classes imported so far; how many moved.  Cheap
    enough to call again (about 2 ms: one walk over the classes)."""
    classes = _abc_classes()
    # ABCMeta consults the registries of a class's subclasses too: no class above one
    # with a virtual subclass moves.
    kept: set[type] = set()
    for cls in classes:
        if abc._get_dump(cls)[0]:  # pyright: ignore[reportAttributeAccessIssue]
            kept.update(cls.__mro__)
    global _installed
    _installed = True
    moved = 0
    hookless: dict[type, bool] = {object: True}
    for cls in classes:
        if (
            type(cls) is abc.ABCMeta
            and cls not in kept
            and (cls.__module__ or "").startswith(PACKAGES)
            and _hookless(cls, hookless)
        ):
            cls.__class__ = PlainCheckABCMeta
            _moved.append(cls)
            moved += 1
    return moved


def uninstall() -> None:
    """Every class `install` moved (and every class defined under one since) back to
    `ABCMeta`."""
    for cls in _abc_classes():
        if type(cls) is PlainCheckABCMeta:
            cls.__class__ = abc.ABCMeta  # pyright: ignore[reportAttributeAccessIssue]
    _moved.clear()
    global _installed
    _installed = False


def installed() -> bool:
    return _installed


def _abc_classes() -> list[type]:
    """Every class whose metaclass is `ABCMeta` or one of its subclasses, found from
    `object` down through `__subclasses__`."""
    found: list[type] = []
    seen: set[type] = set()
    stack: list[type] = [object]
    while stack:
        for sub in type.__subclasses__(stack.pop()):
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
                if isinstance(sub, abc.ABCMeta):
                    found.append(sub)
    return found


def _eligible(cls: type) -> bool:
    """A class of one of `PACKAGES` with no `__subclasshook__` on it or its bases."""
    if not (cls.__module__ or "").startswith(PACKAGES):
        return False
    return not any("__subclasshook__" in vars(base) for base in cls.__mro__[:-1])


def _hookless(cls: type, known: dict[type, bool]) -> bool:
    """`_eligible` but for the package: no `__subclasshook__` on `cls` or its bases
    (`object`'s aside), each class answered once (`known`) as its bases' answers and
    its own dictionary's, instead of a walk of every class's whole MRO (a third of
    `install`'s 10 ms at a cold start)."""
    answer = known.get(cls)
    if answer is None:
        answer = "__subclasshook__" not in vars(cls) and all(
            _hookless(base, known) for base in cls.__bases__
        )
        known[cls] = answer
    return answer
