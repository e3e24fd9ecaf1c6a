#!/usr/bin/env python3
"""Build, ahead of a GPU session, every cubin that `bench_gpu.py --prebuilt DIR` launches.

A lent GPU machine has neither NVIDIA's `tileiras` nor the ptxas release tileir is tested
with, and its time is short: so both compilers' cubins of every corpus kernel are built
here, from the same bytecode, and carried.  For each kernel `NAME` the folder gets

* `NAME.tileir.cubin` (and `.ptx`): `tileir.compiler.compile_module` for `--arch`, then
  ptxas, exactly what `tileir-as NAME.tileirbc --gpu-name ARCH -o NAME.cubin` writes;
* `NAME.tileiras.cubin`: `tileiras NAME.tileirbc --gpu-name GPU`, when tileiras is
  installed (the `cutile` extra);
* `manifest.json`: each cubin's entry symbol and block size (tileir's from the PTX's
  `.reqntid`, tileiras's from the cubin's `EIATTR_REQNTID`), ptxas's registers and
  spills, the arch, the compile options, the commit, and the error of whatever did not
  compile; `COMMIT`: the commit (`+ changes` for a tree with uncommitted ones), which
  `gpu_session.sh` prints.

`--option KEY=VALUE` passes a keyword of `tileir.compiler.compile_module` to tileir's
build (`true`/`false` a bool, digits an int), so that a variant is built beside the
default one and the session times both on the same machine:

    python benchmarks/gpu_prepare.py .gpu [--arch sm_90a] [--only NAME]
    python benchmarks/gpu_prepare.py .gpu_tma --option tma_feeds=true   # TMA-fed rings
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
sys.path.insert(0, str(CORPUS))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common  # noqa: E402  # pyright: ignore[reportMissingImports]
from bench_compile import find_tool  # noqa: E402
from bench_gpu import tileiras_cubin  # noqa: E402

#: tileiras's `--gpu-name` for a tileir arch (tileiras picks the `a` features itself).
TILEIRAS_GPU = {"sm_90a": "sm_90", "sm_100a": "sm_100"}


def cubin_reqntid(cubin: Path) -> list[int] | None:
    """The `EIATTR_REQNTID` block size recorded in `cubin`, read with cuobjdump."""
    cuobjdump = find_tool("cuobjdump")
    if cuobjdump is None:
        return None
    text = subprocess.run([cuobjdump, "-elf", str(cubin)], capture_output=True, text=True).stdout
    m = re.search(r"EIATTR_REQNTID\s+Format:\s+\S+\s+Value:\s+((?:0x[0-9a-f]+\s*)+)", text)
    return [int(v, 16) for v in m.group(1).split()] if m else None


def compile_options(pairs: list[str]) -> dict[str, bool | int | str]:
    """`KEY=VALUE` pairs as `compile_module` keywords: `true`/`false` a bool, digits an
    int, anything else a string; a key that is not one of its plain (bool, int, str)
    keywords is an error, so that a misspelt option cannot build the default cubins
    under a variant's name."""
    from tileir.compiler import compile_module

    known = {
        p.name: type(p.default)
        for p in inspect.signature(compile_module).parameters.values()
        if p.kind is p.KEYWORD_ONLY and type(p.default) in (bool, int, str)
    }
    options: dict[str, bool | int | str] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or key not in known:
            raise SystemExit(
                f"--option {pair!r}: expected KEY=VALUE with KEY one of {', '.join(sorted(known))}"
            )
        value: bool | int | str = text
        if text.lower() in ("true", "false"):
            value = text.lower() == "true"
        elif text.lstrip("-").isdigit():
            value = int(text)
        if not isinstance(value, known[key]):
            raise SystemExit(f"--option {pair!r}: {key} takes a {known[key].__name__}")
        options[key] = value
    return options


def commit() -> str:
    """The tree's commit, with `+ changes` where tracked files differ from it."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True
        ).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + (" + changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def build_tileir(
    name: str, arch: str, out: Path, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    from tileir.backend.ptx.ptxas import run_ptxas
    from tileir.compiler import compile_module, load_module
    from tileir.diagnostics import CompileError
    from tileir.interpreter.launcher import find_entry, load
    from tileir.runtime import block_size

    bytecode = CORPUS / f"{name}.tileirbc"
    symbol = find_entry(load(bytecode), None).sym_name.data
    try:
        result = compile_module(load_module(bytecode), arch, **(options or {}))
    except CompileError as e:
        return {"symbol": symbol, "error": e.format()}
    assert result.ptx is not None
    (out / f"{name}.tileir.ptx").write_text(result.ptx)
    report = run_ptxas(result.ptx, arch, str(out / f"{name}.tileir.cubin"))
    if not report.ok:
        return {"symbol": symbol, "error": f"ptxas: {report.output.strip()}"}
    return {
        "symbol": symbol,
        "block": list(block_size(result.ptx, symbol)),
        "registers": report.registers.get(symbol),
        "spills": report.spills.get(symbol),
    }


def build_tileiras(name: str, gpu: str, out: Path, symbol: str) -> dict[str, Any]:
    tileiras = find_tool("tileiras")
    if tileiras is None:
        return {"error": "tileiras is not installed"}
    cubin = tileiras_cubin(tileiras, CORPUS / f"{name}.tileirbc", gpu)
    if isinstance(cubin, str):
        return {"error": cubin}
    path = out / f"{name}.tileiras.cubin"
    path.write_bytes(cubin)
    return {"symbol": symbol, "block": cubin_reqntid(path)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--arch", default="sm_90a")
    parser.add_argument("--only", action="append", metavar="NAME")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a compile_module keyword for tileir's cubins (e.g. tma_feeds=true)",
    )
    parser.add_argument("--no-tileiras", action="store_true", help="build tileir's cubins only")
    args = parser.parse_args(argv)
    options = compile_options(args.option)
    args.out.mkdir(parents=True, exist_ok=True)
    gpu: str = TILEIRAS_GPU.get(args.arch) or args.arch
    manifest: dict[str, Any] = {
        "arch": args.arch,
        "tileiras_gpu": gpu,
        "options": options,
        "commit": commit(),
        "kernels": {},
    }
    (args.out / "COMMIT").write_text(
        manifest["commit"] + "".join(f" {k}={v}" for k, v in options.items()) + "\n"
    )
    for name in args.only or _common.kernel_names():
        ours = build_tileir(name, args.arch, args.out, options)
        theirs = (
            {"error": "not built (--no-tileiras)"}
            if args.no_tileiras
            else build_tileiras(name, gpu, args.out, ours["symbol"])
        )
        manifest["kernels"][name] = {"tileir": ours, "tileiras": theirs}
        status = [
            f"{k}: {v.get('error', 'ok')}" for k, v in (("tileir", ours), ("tileiras", theirs))
        ]
        print(f"{name}: " + "; ".join(s.splitlines()[0] for s in status), flush=True)
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
