"""`tileir-run`: run a cuda_tile kernel in the reference interpreter (as `xdsl-run`
runs a module), for trying kernels without a GPU.

    tileir-run kernel.tileirbc --grid 3 cutile:randn:37x64 cutile:zeros:37 7 0.5

Each ARG gives one entry parameter, in order:

* a number: a scalar parameter (`7`, `-3`, `0.5`, `1e-3`, `true`);
* `INIT:SHAPE` (`zeros`, `ones`, `arange`, `randn`, `rand`, `full=V`; SHAPE like
  `1024` or `16x64`) or a `.npy` file: an array for a `tile<ptr<T>>` parameter,
  of the pointee's type;
* `cutile:ARRAY`: an array in cuTile's convention, which also fills the next
  parameters with its shape and then its strides (1 + 2*rank parameters).

After the launch the arrays are printed (`--print none` to skip) and, with
`--save DIR`, written as DIR/argN.npy.  Errors are diagnostics, exit status 1.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tileir.diagnostics import CompileError
from tileir.dialects.cuda_tile.types import PointerType, TileType
from tileir.interpreter.errors import ArgumentError
from tileir.interpreter.launcher import find_entry, launch, load
from tileir.interpreter.numerics import dtype_of
from tileir.interpreter.state import Options

_INITS = ("zeros", "ones", "arange", "randn", "rand")


def make_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tileir-run",
        description="Run a cuda_tile entry in tileir's numpy reference interpreter.",
        epilog=__doc__.split("\n\n", 2)[2] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("input", help="a .mlir or .tileirbc file")
    p.add_argument("args", nargs="*", help="one value per entry parameter (see below)")
    p.add_argument("--grid", default="1", help="tile blocks along x[,y[,z]] (default 1)")
    p.add_argument("--entry", help="the entry to run (default: the module's only entry)")
    p.add_argument("--seed", type=int, default=0, help="seed of randn/rand arrays")
    p.add_argument(
        "--print",
        dest="print_mode",
        choices=("arrays", "summary", "none"),
        default="arrays",
        help="what to print after the launch (default: the arrays)",
    )
    p.add_argument("--save", metavar="DIR", help="write every array argument to DIR/argN.npy")
    p.add_argument(
        "--overflow",
        choices=("warn", "error", "ignore"),
        default="warn",
        help="a wrap that an overflow<...> flag rules out (default: warn)",
    )
    p.add_argument(
        "--no-check-assumptions",
        action="store_true",
        help="do not check `assume` predicates and `inbounds` promises",
    )
    p.add_argument("--list-entries", action="store_true", help="print the entries and exit")
    return p


def parse_grid(text: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(d) for d in re.split(r"[,x]", text))
    except ValueError:
        raise ArgumentError(f"--grid '{text}': expected X[,Y[,Z]] positive integers") from None
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise ArgumentError(f"--grid '{text}': expected X[,Y[,Z]] positive integers")
    return dims


def parse_shape(text: str, where: str) -> tuple[int, ...]:
    if not re.fullmatch(r"\d+(x\d+)*", text):
        raise ArgumentError(f"{where}: bad shape '{text}' (expected e.g. 1024 or 16x64)")
    return tuple(int(d) for d in text.split("x"))


def make_array(spec: str, dtype: np.dtype, rng: np.random.Generator, where: str) -> np.ndarray:
    if spec.endswith(".npy"):
        try:
            a = np.load(spec, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise ArgumentError(f"{where}: cannot read '{spec}': {e}") from None
        if a.dtype != dtype:
            raise ArgumentError(f"{where}: '{spec}' holds {a.dtype}, the parameter wants {dtype}")
        return np.ascontiguousarray(a)
    init, _, shape_text = spec.partition(":")
    if not shape_text:
        raise ArgumentError(
            f"{where}: cannot read '{spec}' (expected a number, INIT:SHAPE with INIT one of "
            f"{', '.join(_INITS)}, full=V, or a .npy file)"
        )
    shape = parse_shape(shape_text, where)
    with np.errstate(all="ignore"):
        if init == "zeros":
            a = np.zeros(shape)
        elif init == "ones":
            a = np.ones(shape)
        elif init == "arange":
            a = np.arange(int(np.prod(shape))).reshape(shape)
        elif init == "randn":
            a = rng.standard_normal(shape)
        elif init == "rand":
            a = rng.random(shape)
        elif init.startswith("full="):
            a = np.full(shape, _number(init[5:], where))
        else:
            raise ArgumentError(
                f"{where}: unknown initializer '{init}' (expected one of {', '.join(_INITS)}, full=V)"
            )
        if dtype.kind in "iub" and init in ("randn", "rand"):
            a = np.round(a * 10)
        return a.astype(dtype)


def _number(text: str, where: str) -> int | float | bool:
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ArgumentError(f"{where}: '{text}' is not a number") from None


def build_arguments(
    module: ModuleOp, entry: str | None, specs: list[str], seed: int
) -> tuple[list[Any], list[int]]:
    """The launch arguments and the indices of the array ones."""
    kernel = find_entry(module, entry)
    params = list(kernel.function_type.inputs.data)
    rng = np.random.default_rng(seed)
    values: list[Any] = []
    arrays: list[int] = []
    for spec in specs:
        index = len(values)
        if index >= len(params):
            raise ArgumentError(
                f"too many arguments: entry @{kernel.sym_name.data} takes {len(params)}"
            )
        t = params[index]
        where = f"argument {index}"
        cutile = spec.startswith("cutile:")
        body = spec[len("cutile:") :] if cutile else spec
        pointer = isinstance(t, TileType) and isinstance(t.element_type, PointerType)
        if not pointer:
            if cutile:
                raise ArgumentError(f"{where}: '{spec}' is an array, the parameter is {t}")
            values.append(_number(body, where))
            continue
        assert isinstance(t, TileType) and isinstance(t.element_type, PointerType)
        a = make_array(body, dtype_of(t.element_type.pointee), rng, where)
        arrays.append(index)
        values.append(a)
        if cutile:
            values.extend(int(n) for n in a.shape)
            values.extend(s // a.itemsize for s in a.strides)
    if len(values) != len(params):
        raise ArgumentError(
            f"entry @{kernel.sym_name.data} takes {len(params)} argument(s), got {len(values)} "
            f"({', '.join(str(p).replace('!cuda_tile.', '') for p in params)})"
        )
    return values, arrays


def run(argv: list[str]) -> int:
    args = make_parser().parse_intermixed_args(argv)
    module = load(args.input)
    if args.list_entries:
        from tileir.interpreter.launcher import entries

        for e in entries(module):
            types = ", ".join(str(t).replace("!cuda_tile.", "") for t in e.function_type.inputs)
            print(f"@{e.sym_name.data}({types})")
        return 0
    values, arrays = build_arguments(module, args.entry, args.args, args.seed)
    options = Options(args.overflow, not args.no_check_assumptions)
    result = launch(
        module, parse_grid(args.grid), *values, entry=args.entry, options=options, out=sys.stdout
    )
    for warning in result.warnings:
        print(warning, file=sys.stderr)
    for i in arrays:
        a = values[i]
        if args.print_mode == "arrays":
            print(f"arg{i}: {a.dtype}{list(a.shape)} =\n{np.array2string(a, threshold=64)}")
        elif args.print_mode == "summary":
            print(f"arg{i}: {a.dtype}{list(a.shape)}, sum {a.astype(np.float64).sum():g}")
        if args.save:
            out = Path(args.save)
            try:
                out.mkdir(parents=True, exist_ok=True)
                np.save(out / f"arg{i}.npy", a)
            except OSError as e:
                raise CompileError(f"cannot write {out / f'arg{i}.npy'}: {e.strerror}") from None
    return 0


def main(argv: list[str] | None = None) -> None:
    try:
        code = run(sys.argv[1:] if argv is None else argv)
    except CompileError as e:
        print(e.format(), file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
