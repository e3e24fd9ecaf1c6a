"""Pass specs xDSL refuses, explained: what was wrong and what to write instead.

A pass spec (`tileir-opt -p 'a,b{opt=v}'`, `tileir.run_pass(module, "a{opt=v}")`) that
xDSL cannot build fails with its own words: `Unrecognized passes: ['x']`, `Provided
arguments ["num_warp"] not found in expected arguments ["num_warps", "arch"]`,
`Incompatible types: given ('x',), expected <class 'int'>`.  They name neither the pass
nor the option as the user spelled it (options are written with dashes), and say
nothing of what would be right.  `explain_pass_spec` reads the spec again and says which
pass or option is wrong, the closest names that exist, the options a pass has, and the
kind of value an option takes.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline

from tileir.diagnostics import did_you_mean

#: Registered passes, by name (`tileir.api.available_passes()`).
Passes = Mapping[str, Callable[[], type[ModulePass]]]


def explain_pass_spec(spec: str, error: Exception, passes: Passes) -> str:
    """What is wrong with `spec`, which xDSL refused with `error` (its own message where
    nothing better is found)."""
    try:
        parsed = list(parse_pipeline(spec))
    except Exception:  # a malformed spec: xDSL's message points at the place
        return str(error)
    unknown = [p.name for p in parsed if p.name not in passes]
    if unknown:
        names = list(passes)
        return "; ".join(f"unknown pass '{n}'{did_you_mean(n, names)}" for n in unknown)
    for pass_spec in parsed:
        problem = _option_problem(pass_spec, passes[pass_spec.name]())
        if problem is not None:
            return problem
    return str(error)


def options_of(cls: type[ModulePass]) -> dict[str, Any]:
    """A pass's options as a spec spells them (`num-warps`), with their types."""
    hints = typing.get_type_hints(cls)
    return {
        f.name.replace("_", "-"): hints.get(f.name, Any)
        for f in dataclasses.fields(cls)
        if f.init and f.name != "name"
    }


def _option_problem(pass_spec: ArgSpec, cls: type[ModulePass]) -> str | None:
    from xdsl.utils.arg_spec import _convert_arg_to_type  # pyright: ignore[reportPrivateUsage]

    options = options_of(cls)
    listing = ", ".join(options) or "none"
    for given, value in pass_spec.parameters.items():
        name = given.replace("_", "-")
        if name not in options:
            close = did_you_mean(name, options)
            return f"pass '{cls.name}' has no option '{name}'{close} (its options: {listing})"
        try:
            _convert_arg_to_type(value, options[name])
        except ValueError:
            shown = " ".join(str(v) for v in value) or "nothing"
            return (
                f"option '{name}' of pass '{cls.name}' takes {_kind(options[name])}, not '{shown}'"
            )
    required = {f.replace("_", "-") for f in cls.required_fields()}
    missing = sorted(required - {g.replace("_", "-") for g in pass_spec.parameters})
    if missing:
        return f"pass '{cls.name}' needs the option{'s' if len(missing) > 1 else ''} " + (
            ", ".join(f"'{m}'" for m in missing) + f" ({cls.name}{{{missing[0]}=...}})"
        )
    return None


def _kind(hint: Any) -> str:
    """`int`, `a string`, `true or false`, `int or nothing`, ... for a pass option's type."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        kinds = [_kind(a) for a in args if a is not type(None)]
        return " or ".join(kinds) + (" (or nothing)" if type(None) in args else "")
    if typing.get_origin(hint) is tuple:
        return "a list of " + (_kind(args[0]) if args else "values")
    names = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))
