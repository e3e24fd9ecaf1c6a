"""Two costs of defining classes that a compile-once `tileir-as` process need not pay at
import (installed by `tileir.utils.cold_start.install`, before xDSL's dialects are
imported; not in the compile server, not for callers of the Python API):

- **A dataclass's generated docstring** (`lazy_dataclass_docs`).  A dataclass without a
  docstring gets `cls.__doc__ = cls.__name__ + str(inspect.signature(cls))` (minus
  `' -> None'`): a class's signature walks its constructors and formats every
  parameter's annotation, ~100 us each for the ~100 such classes of xDSL's and tileir's
  that a compilation defines (3% of a cold `vadd_f32`), and nothing in a compilation
  reads them.  Installed, `dataclasses` stores a descriptor instead, which on the first
  read of `cls.__doc__` (or an instance's) computes the same text, from the same class,
  the same way (same `except (TypeError, ValueError)`), and returns it from then on.
  A class's `__doc__` is read through `type.__doc__`, which calls a descriptor found in
  the class's own dict (CPython's `type_get_doc`); only `vars(cls)["__doc__"]` shows the
  descriptor.  Python 3.11's `dataclasses` only (where this was checked); elsewhere
  nothing changes.
- **`@op_type_rewrite_pattern`'s signature** (`cheap_pattern_signatures`).  xDSL's
  decorator reads a pattern's `match_and_rewrite(self, op: SomeOp, rewriter)` with
  `inspect.signature(func, eval_str=True)`, which builds a `Signature` and evaluates
  every string annotation with `eval` (`from __future__ import annotations`): ~130
  patterns per compilation, 2-3% of a cold one.  Installed, xDSL's `pattern_rewriter`
  module sees a `signature` that, for a plain function of positional parameters, gives
  the same parameters (names from the code object, in order) whose `annotation` is
  evaluated when read, as `inspect.get_annotations(func, eval_str=True)` evaluates it
  (`eval(text, func.__globals__, None)`); the decorators read the op's annotation
  only.  Anything else (keyword-only or variadic parameters, a wrapped function, an
  explicit `__signature__`, other arguments) goes to `inspect.signature`.  The
  decorator's `impl`, its checks and its errors are xDSL's own.  (The annotations not
  read, `rewriter: PatternRewriter` and `-> None`, are not evaluated: they could only
  fail in code that fails at import anyway.)

Standard library only at import.
"""

from __future__ import annotations

import inspect
import sys
import types
from typing import Any

# -- dataclasses' docstrings -----------------------------------------------------------


#: A `str.replace` call recorded: old, new, count (-1: every occurrence).
_Replacement = tuple[str, str, int]


class _LazyDoc:
    """A dataclass's `__doc__`, computed as `dataclasses` would have on first read."""

    __slots__ = ("cls", "prefix", "replacements", "text")

    def __init__(self, cls: type, prefix: str, replacements: tuple[_Replacement, ...]):
        self.cls = cls
        self.prefix = prefix
        self.replacements = replacements
        self.text: str | None = None

    def __get__(self, obj: object, owner: type | None = None) -> str:
        text = self.text
        if text is None:
            try:
                sig = str(inspect.signature(self.cls))
                for old, new, count in self.replacements:
                    sig = sig.replace(old, new, count)
            except (TypeError, ValueError):
                sig = ""
            text = self.text = self.prefix + sig
        return text


class _LazySignatureText(str):
    """What `str(signature)` gives `dataclasses`: an empty string that remembers its
    class and the `replace` calls made on it, and becomes a `_LazyDoc` when the class's
    name is put in front of it (`name + text`: `str` has no `__add__` for a `str`
    subclass to lose to, so Python asks the right operand's `__radd__`)."""

    cls: type
    replacements: tuple[_Replacement, ...]

    def __new__(cls, klass: type, replacements: tuple[_Replacement, ...] = ()):
        self = super().__new__(cls, "")
        self.cls = klass
        self.replacements = replacements
        return self

    def replace(self, old: str, new: str, count: int = -1, /) -> Any:  # pyright: ignore[reportIncompatibleMethodOverride]
        return _LazySignatureText(self.cls, (*self.replacements, (old, new, count)))

    def __radd__(self, prefix: str) -> Any:
        return _LazyDoc(self.cls, prefix, self.replacements)


class _LazySignature:
    __slots__ = ("cls",)

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __str__(self) -> Any:
        return _LazySignatureText(self.cls)


def _doc_signature(obj: Any, *args: Any, **kwargs: Any) -> Any:
    if args or kwargs or not isinstance(obj, type):
        return inspect.signature(obj, *args, **kwargs)
    return _LazySignature(obj)


def _with_signature(signature: Any, name: str) -> types.ModuleType:
    """A stand-in for the `inspect` module whose `signature` is `signature`."""
    proxy = types.ModuleType(name)
    proxy.__dict__.update(inspect.__dict__)
    proxy.signature = signature  # pyright: ignore[reportAttributeAccessIssue]
    return proxy


def lazy_dataclass_docs() -> bool:
    """Make `dataclasses` compute a generated docstring on its first read.  False where
    `dataclasses` is not the one this was checked against (then nothing changes)."""
    import dataclasses

    current = getattr(dataclasses, "inspect", None)
    if getattr(current, "signature", None) is _doc_signature:
        return True
    if sys.version_info[:2] != (3, 11) or current is not inspect:
        return False
    dataclasses.inspect = _with_signature(_doc_signature, "inspect")  # pyright: ignore[reportAttributeAccessIssue]
    return True


# -- op_type_rewrite_pattern's signature -----------------------------------------------

_SIMPLE = ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)


class _Parameter:
    """A positional parameter: its name, and its annotation evaluated on read as
    `inspect.get_annotations(func, eval_str=True)` evaluates it."""

    __slots__ = ("func", "name")

    def __init__(self, func: types.FunctionType, name: str) -> None:
        self.func = func
        self.name = name

    @property
    def annotation(self) -> Any:
        value = self.func.__annotations__.get(self.name, inspect.Parameter.empty)
        if isinstance(value, str):
            value = eval(value, self.func.__globals__, None)
        return value


class _Signature:
    __slots__ = ("parameters",)

    def __init__(self, parameters: dict[str, _Parameter]) -> None:
        self.parameters = parameters


def pattern_signature(func: Any, *args: Any, eval_str: bool = False, **kwargs: Any) -> Any:
    """`inspect.signature(func, eval_str=True)` as xDSL's rewrite-pattern decorators read
    it (`parameters`, each one's `name` and `annotation`), for a plain function of
    positional parameters; `inspect.signature` itself for anything else."""
    if (
        args
        or kwargs
        or not eval_str
        or type(func) is not types.FunctionType
        or "__wrapped__" in func.__dict__
        or "__signature__" in func.__dict__
    ):
        return inspect.signature(func, *args, eval_str=eval_str, **kwargs)
    code = func.__code__
    if code.co_flags & ~_SIMPLE or code.co_kwonlyargcount:
        return inspect.signature(func, eval_str=eval_str)
    names = code.co_varnames[: code.co_argcount]
    return _Signature({name: _Parameter(func, name) for name in names})


def cheap_pattern_signatures() -> bool:
    """Give xDSL's `pattern_rewriter` module `pattern_signature` for its decorators.
    False where the module does not read signatures as this was written against."""
    from xdsl import pattern_rewriter

    current = getattr(pattern_rewriter, "inspect", None)
    if getattr(current, "signature", None) is pattern_signature:
        return True
    if current is not inspect:
        return False
    setattr(pattern_rewriter, "inspect", _with_signature(pattern_signature, "inspect"))  # noqa: B010
    return True
