#!/usr/bin/env python3
"""Code-quality tables: registers, spills and SASS of a tileir tree over a set of kernels.

Subcommands::

    sass_table.py measure --tree TREE -o OUT.json [--arch sm_90a ...] [-j 2] FILE.tileirbc ...
    sass_table.py tileiras -o DIR [--gpu sm_90 --gpu sm_100] [-j 2] FILE.tileirbc ...
    sass_table.py compare A.json B.json [--tileiras DIR] [--kernels]
    sass_table.py tc-list A.json [B.json ...] [-o FILE]

``measure`` compiles every bytecode file with the tileir tree ``TREE`` (a
``git archive`` snapshot of ``tileir/``, imported with ``PYTHONPATH=TREE``,
``TILEIR_SERVER=0 TILEIR_NO_CACHE=1``) to PTX for each architecture (default
``sm_90a``, ``sm_100a`` and ``sm_80``), then runs ``ptxas -arch=ARCH -O3 -v``
(registers, spill store/load bytes, stack frame) and ``cuobjdump -sass`` on its
cubin: the static SASS instruction count and the counts of the instructions the
tables follow (tensor-core MMAs ``HGMMA``/``HMMA``/``UTC*MMA``, ``LDGSTS``,
``UTMALDG``, ``SYNCS`` (mbarriers), ``BAR``, ``USETMAXREG``).  A kernel tileir
rejects, or ptxas rejects, is recorded with its first error line.

``tileiras`` compiles the same files with NVIDIA's ``tileiras`` into
``DIR/NAME.<gpu>.cubin`` (``sm_90`` and ``sm_100`` by default, as tileiras names
them) and writes ``DIR/failures.txt`` with each failure's reason.

``compare`` prints, per architecture: how many kernels compile in A and in B,
the kernels that spill (bytes), registers moved, the sum of SASS instructions
A -> B (ratio), how many got smaller/larger/stayed, and a per-kernel list of the
moves with tileiras's instruction count beside (``cuobjdump -sass`` of its cubin
in ``--tileiras DIR``; sm_90a is compared with tileiras's sm_90, sm_100a with sm_100).

``tc-list`` writes the kernels that use a tensor-core MMA (any HGMMA, HMMA or
UTC*MMA on sm_90a or sm_100a), one name a line.

Run it from anywhere but the repository root (``python -m`` would put the live
tree first on ``sys.path``); it changes to a temporary directory itself.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

DEFAULT_ARCHS = ("sm_90a", "sm_100a", "sm_80")
TILEIRAS_GPUS = ("sm_90", "sm_100")
# tileir arch -> the tileiras cubin it is compared with
TILEIRAS_OF = {"sm_90a": "sm_90", "sm_100a": "sm_100"}
TC_ARCHS = ("sm_90a", "sm_100a")

# Opcode families counted in the SASS (first token of the instruction, before the first '.').
COUNTED = {
    "HGMMA": re.compile(r"^HGMMA$"),
    "HMMA": re.compile(r"^HMMA$"),
    "UTCMMA": re.compile(r"^UTC\w*MMA$"),
    "LDGSTS": re.compile(r"^LDGSTS$"),
    "UTMALDG": re.compile(r"^UTMALDG$"),
    "SYNCS": re.compile(r"^SYNCS$"),
    "BAR": re.compile(r"^BAR$"),
    "USETMAXREG": re.compile(r"^USETMAXREG$"),
}
TC_KEYS = ("HGMMA", "HMMA", "UTCMMA")

SASS_LINE = re.compile(r"^\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)[\s.;]")
PTXAS_REGS = re.compile(r"Used (\d+) registers")
PTXAS_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
PTXAS_STACK = re.compile(r"(\d+) bytes stack frame")


def find_tool(name: str) -> str:
    """An NVIDIA tool next to the ``nvidia.cu13`` package, else on PATH."""
    try:
        import nvidia.cu13 as cu13  # type: ignore[import-not-found]

        for root in getattr(cu13, "__path__", []):
            candidate = Path(root) / "bin" / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    except ImportError:
        pass
    found = shutil.which(name)
    if not found:
        raise SystemExit(f"sass_table.py: '{name}' not found (nvidia.cu13 package or PATH)")
    return found


def kernel_name(path: str | Path) -> str:
    return Path(path).name.removesuffix(".tileirbc")


def first_error(text: str) -> str:
    """The first ``error: ...`` message of a tool's output (past any location prefix)."""
    for line in text.splitlines():
        if (i := line.find("error: ")) >= 0:
            return line[i:].strip()[:300]
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()[:300]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[-1] if lines else "no output")[:300]


def sass_counts(cubin: str, cuobjdump: str) -> dict[str, int]:
    res = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"cuobjdump: {first_error(res.stderr + res.stdout)}")
    counts = {"sass": 0, **{k: 0 for k in COUNTED}}
    for line in res.stdout.splitlines():
        m = SASS_LINE.match(line)
        if not m:
            continue
        counts["sass"] += 1
        op = m.group(1)
        for key, pattern in COUNTED.items():
            if pattern.match(op):
                counts[key] += 1
    return counts


def ptxas_info(stderr: str) -> dict[str, int]:
    """Registers, spills and stack of the (first) kernel in ``ptxas -v`` output."""
    info: dict[str, int] = {}
    if m := PTXAS_REGS.search(stderr):
        info["regs"] = int(m.group(1))
    if m := PTXAS_SPILL.search(stderr):
        info["spill_stores"] = int(m.group(1))
        info["spill_loads"] = int(m.group(2))
    if m := PTXAS_STACK.search(stderr):
        info["stack"] = int(m.group(1))
    return info


# ------------------------------------------------------------------ measure


# A worker that imports the tree's tileir once and compiles one kernel per request
# (a JSON line with the tileir-as arguments; answers the status and stderr).  The
# output is the same as a fresh ``tileir-as`` process's: the compile server's worker
# compiles the same way.  ``--fresh-process`` starts one process per compile instead.
WORKER = r"""
import contextlib, io, json, sys
from tileir.driver import assembler
for line in sys.stdin:
    argv = json.loads(line)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
        try:
            rc = assembler.run(argv)
        except BaseException as e:  # noqa
            rc, _ = 1, print(f"error: {type(e).__name__}: {e}", file=err)
    sys.__stdout__.write(json.dumps([rc, err.getvalue()[-4000:]]) + "\n")
    sys.__stdout__.flush()
"""


class Workers:
    """``n`` worker processes for one tree, handed out one per thread."""

    def __init__(self, tree: str, work: str, n: int) -> None:
        env = dict(os.environ, PYTHONPATH=tree, TILEIR_SERVER="0", TILEIR_NO_CACHE="1")
        self.free: list[subprocess.Popen[str]] = [
            subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env=env, cwd=work)
            for _ in range(n)]
        self.all = list(self.free)
        self.lock = __import__("threading").Lock()

    def compile(self, argv: list[str]) -> tuple[int, str]:
        with self.lock:
            proc = self.free.pop()
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps(argv) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError("tileir worker died")
            rc, err = json.loads(line)
            return rc, err
        finally:
            with self.lock:
                self.free.append(proc)

    def close(self) -> None:
        for proc in self.all:
            if proc.stdin:
                proc.stdin.close()
            proc.wait()


def measure_one(tree: str, bc: str, arch: str, tools: dict[str, str], work: str,
                workers: Workers | None) -> dict[str, Any]:
    name = kernel_name(bc)
    ptx = os.path.join(work, f"{name}.{arch}.ptx")
    cubin = os.path.join(work, f"{name}.{arch}.cubin")
    t0 = time.monotonic()
    argv = [bc, "--gpu-name", arch, "-o", ptx]
    if workers is not None:
        rc, err = workers.compile(argv)
    else:
        env = dict(os.environ, PYTHONPATH=tree, TILEIR_SERVER="0", TILEIR_NO_CACHE="1")
        res = subprocess.run([sys.executable, "-m", "tileir.driver.assembler", *argv],
                             capture_output=True, text=True, env=env, cwd=work)
        rc, err = res.returncode, res.stderr + res.stdout
    rec: dict[str, Any] = {"compile_s": round(time.monotonic() - t0, 2)}
    if rc != 0 or not os.path.exists(ptx):
        rec["error"] = "tileir: " + first_error(err)
        return rec
    rec["ptx_bytes"] = os.path.getsize(ptx)
    res = subprocess.run([tools["ptxas"], f"-arch={arch}", "-O3", "-v", ptx, "-o", cubin],
                         capture_output=True, text=True)
    if res.returncode != 0:
        rec["error"] = "ptxas: " + first_error(res.stderr + res.stdout)
        return rec
    rec.update(ptxas_info(res.stderr))
    try:
        rec.update(sass_counts(cubin, tools["cuobjdump"]))
    except RuntimeError as exc:
        rec["error"] = str(exc)
    for path in (ptx, cubin):
        if os.path.exists(path):
            os.unlink(path)
    return rec


def cmd_measure(args: argparse.Namespace) -> int:
    tree = str(Path(args.tree).resolve())
    if not (Path(tree) / "tileir" / "__init__.py").is_file():
        raise SystemExit(f"sass_table.py: {tree} has no tileir/ package")
    tools = {"ptxas": find_tool("ptxas"), "cuobjdump": find_tool("cuobjdump")}
    files = [str(Path(f).resolve()) for f in expand(args.files)]
    jobs = [(f, a) for f in files for a in args.arch]
    result: dict[str, Any] = {
        "tree": tree, "label": args.label or Path(tree).name, "archs": list(args.arch),
        "kernels": {kernel_name(f): {} for f in files}}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sass_table.") as work, \
            concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        workers = None if args.fresh_process else Workers(tree, work, args.jobs)
        futures = {pool.submit(measure_one, tree, f, a, tools, work, workers): (f, a)
                   for f, a in jobs}
        for done, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            f, a = futures[fut]
            result["kernels"][kernel_name(f)][a] = fut.result()
            if args.progress and done % args.progress == 0:
                print(f"  {done}/{len(jobs)} ({time.monotonic() - t0:.0f} s)", file=sys.stderr,
                      flush=True)
        if workers is not None:
            workers.close()
    result["wall_s"] = round(time.monotonic() - t0, 1)
    Path(args.output).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    errors = sum(1 for k in result["kernels"].values() for r in k.values() if "error" in r)
    print(f"{len(files)} kernels x {len(args.arch)} archs in {result['wall_s']} s, "
          f"{errors} failed; wrote {args.output}")
    return 0


def expand(files: Iterable[str]) -> list[str]:
    """Files, directories (their *.tileirbc) and @LIST files (one path a line)."""
    out: list[str] = []
    for f in files:
        if f.startswith("@"):
            out += [line.strip() for line in Path(f[1:]).read_text().splitlines() if line.strip()]
        elif Path(f).is_dir():
            out += sorted(str(p) for p in Path(f).glob("*.tileirbc"))
        else:
            out.append(f)
    seen: dict[str, str] = {}
    for f in out:
        seen.setdefault(kernel_name(f), f)
    return list(seen.values())


# ------------------------------------------------------------------ tileiras


def tileiras_one(tileiras: str, bc: str, gpu: str, out_dir: str) -> tuple[str, str, str | None]:
    name = kernel_name(bc)
    cubin = os.path.join(out_dir, f"{name}.{gpu}.cubin")
    res = subprocess.run([tileiras, bc, "--gpu-name", gpu, "-o", cubin],
                         capture_output=True, text=True)
    if res.returncode != 0 or not os.path.exists(cubin):
        return name, gpu, first_error(res.stderr + res.stdout)
    return name, gpu, None


def cmd_tileiras(args: argparse.Namespace) -> int:
    tileiras = find_tool("tileiras")
    out_dir = str(Path(args.output).resolve())
    os.makedirs(out_dir, exist_ok=True)
    files = [str(Path(f).resolve()) for f in expand(args.files)]
    t0 = time.monotonic()
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futs = [pool.submit(tileiras_one, tileiras, f, g, out_dir) for f in files for g in args.gpu]
        for fut in concurrent.futures.as_completed(futs):
            name, gpu, err = fut.result()
            if err is not None:
                failures.append(f"{name}\t{gpu}\t{err}")
    failures.sort()
    Path(out_dir, "failures.txt").write_text("".join(f + "\n" for f in failures))
    print(f"tileiras: {len(files)} kernels x {len(args.gpu)} gpus in "
          f"{time.monotonic() - t0:.0f} s, {len(failures)} failed "
          f"(listed in {out_dir}/failures.txt)")
    return 0


# ------------------------------------------------------------------ compare


def load_table(path: str) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def spill(rec: dict[str, Any]) -> int:
    return rec.get("spill_stores", 0) + rec.get("spill_loads", 0)


def ok(rec: dict[str, Any] | None) -> bool:
    return rec is not None and "error" not in rec and "sass" in rec


def tileiras_sass(tdir: str | None, name: str, arch: str, cache: dict[str, int | None],
                  cuobjdump: str) -> int | None:
    gpu = TILEIRAS_OF.get(arch)
    if tdir is None or gpu is None:
        return None
    cubin = os.path.join(tdir, f"{name}.{gpu}.cubin")
    if cubin not in cache:
        try:
            cache[cubin] = sass_counts(cubin, cuobjdump)["sass"] if os.path.exists(cubin) else None
        except RuntimeError:
            cache[cubin] = None
    return cache[cubin]


def compare(a: dict[str, Any], b: dict[str, Any], tdir: str | None, show_all: bool) -> str:
    cuobjdump = find_tool("cuobjdump")
    cache: dict[str, int | None] = {}
    out: list[str] = []
    names = sorted(set(a["kernels"]) & set(b["kernels"]))
    archs = [x for x in a["archs"] if x in b["archs"]]
    out.append(f"A = {a.get('label')} ({a.get('tree')}), B = {b.get('label')} ({b.get('tree')}), "
               f"{len(names)} kernels in both")
    for arch in archs:
        ra = {n: a["kernels"][n].get(arch) for n in names}
        rb = {n: b["kernels"][n].get(arch) for n in names}
        both = [n for n in names if ok(ra[n]) and ok(rb[n])]
        out.append("")
        out.append(f"== {arch}: compile A {sum(ok(ra[n]) for n in names)}/{len(names)}, "
                   f"B {sum(ok(rb[n]) for n in names)}/{len(names)}")
        for label, recs in (("A", ra), ("B", rb)):
            failed = [n for n in names if not ok(recs[n])]
            if failed:
                out.append(f"   {label} fails: " + ", ".join(
                    f"{n} ({(recs[n] or {}).get('error', 'missing')[:80]})" for n in failed))
        sa = {n: spill(ra[n]) for n in names if ok(ra[n]) and spill(ra[n])}
        sb = {n: spill(rb[n]) for n in names if ok(rb[n]) and spill(rb[n])}
        out.append(f"   spilling: A {len(sa)} ({sum(sa.values())} B), B {len(sb)} "
                   f"({sum(sb.values())} B)" + (": " + ", ".join(
                       f"{n} {sa.get(n, 0)}->{sb.get(n, 0)}" for n in sorted(set(sa) | set(sb)))
                       if sa or sb else ""))
        moved = [n for n in both if ra[n].get("regs") != rb[n].get("regs")]
        up = sum(1 for n in moved if rb[n]["regs"] > ra[n]["regs"])
        out.append(f"   registers moved: {len(moved)} ({up} up, {len(moved) - up} down)")
        suma = sum(ra[n]["sass"] for n in both)
        sumb = sum(rb[n]["sass"] for n in both)
        ratio = sumb / suma if suma else float("nan")
        smaller = sum(1 for n in both if rb[n]["sass"] < ra[n]["sass"])
        larger = sum(1 for n in both if rb[n]["sass"] > ra[n]["sass"])
        out.append(f"   SASS instructions (both compile, {len(both)}): {suma} -> {sumb} "
                   f"({ratio:.4f}); smaller {smaller}, larger {larger}, "
                   f"same {len(both) - smaller - larger}")
        tiras = {n: tileiras_sass(tdir, n, arch, cache, cuobjdump) for n in both}
        have_t = [n for n in both if tiras[n] is not None]
        if have_t:
            out.append(f"   tileiras {TILEIRAS_OF[arch]} on the {len(have_t)} it compiles: "
                       f"{sum(tiras[n] or 0 for n in have_t)} (A {sum(ra[n]['sass'] for n in have_t)}"
                       f", B {sum(rb[n]['sass'] for n in have_t)})")
        rows = [n for n in both if show_all or ra[n]["sass"] != rb[n]["sass"]
                or ra[n].get("regs") != rb[n].get("regs") or spill(ra[n]) != spill(rb[n])]
        if rows:
            out.append(f"   {'kernel':48} {'sass A -> B':^18} {'regs':^12} {'spill':^12} "
                       f"{'tileiras':>8}")
        for n in sorted(rows, key=lambda n: rb[n]["sass"] - ra[n]["sass"]):
            t = tiras[n]
            out.append(f"   {n:48} {ra[n]['sass']:>7} -> {rb[n]['sass']:<7} "
                       f"{ra[n].get('regs', '?'):>4} -> {rb[n].get('regs', '?'):<4} "
                       f"{spill(ra[n]):>4} -> {spill(rb[n]):<4} {t if t is not None else '-':>8}")
    return "\n".join(out)


def cmd_compare(args: argparse.Namespace) -> int:
    print(compare(load_table(args.a), load_table(args.b), args.tileiras, args.kernels))
    return 0


def tc_kernels(tables: Sequence[dict[str, Any]]) -> list[str]:
    names = set()
    for t in tables:
        for name, recs in t["kernels"].items():
            for arch in TC_ARCHS:
                rec = recs.get(arch)
                if ok(rec) and any(rec.get(k, 0) for k in TC_KEYS):
                    names.add(name)
    return sorted(names)


def cmd_tc_list(args: argparse.Namespace) -> int:
    names = tc_kernels([load_table(p) for p in args.tables])
    text = "".join(n + "\n" for n in names)
    if args.output:
        Path(args.output).write_text(text)
        print(f"{len(names)} tensor-core kernels -> {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("measure", help="compile with a tileir tree; ptxas -v and SASS counts")
    p.add_argument("--tree", required=True, help="directory holding a tileir/ package")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--arch", action="append", help=f"default {', '.join(DEFAULT_ARCHS)}")
    p.add_argument("--label", help="name shown by compare (default: the tree's folder name)")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--progress", type=int, default=0, metavar="N", help="report every N compiles")
    p.add_argument("--fresh-process", action="store_true",
                   help="one tileir-as process per compile (default: one importing worker per job)")
    p.add_argument("files", nargs="+", help="bytecode files, directories, or @LIST")
    p.set_defaults(fn=cmd_measure)
    p = sub.add_parser("tileiras", help="NVIDIA tileiras cubins of each kernel")
    p.add_argument("-o", "--output", required=True, help="output directory")
    p.add_argument("--gpu", action="append", help=f"default {', '.join(TILEIRAS_GPUS)}")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("files", nargs="+")
    p.set_defaults(fn=cmd_tileiras)
    p = sub.add_parser("compare", help="print the before -> after table")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tileiras", metavar="DIR", help="tileiras cubins (NAME.sm_90.cubin ...)")
    p.add_argument("--kernels", action="store_true", help="list every kernel, moved or not")
    p.set_defaults(fn=cmd_compare)
    p = sub.add_parser("tc-list", help="kernels with a tensor-core MMA on sm_90a or sm_100a")
    p.add_argument("tables", nargs="+")
    p.add_argument("-o", "--output")
    p.set_defaults(fn=cmd_tc_list)
    args = parser.parse_args(argv)
    if getattr(args, "arch", None) is None and args.cmd == "measure":
        args.arch = list(DEFAULT_ARCHS)
    if getattr(args, "gpu", None) is None and args.cmd == "tileiras":
        args.gpu = list(TILEIRAS_GPUS)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
