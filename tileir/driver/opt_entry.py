"""`tileir-opt`'s console entry point: the process runs one `tileir-opt` command, so it
starts as tileir-as's single run does (tileir/utils/cold_start.py).  xDSL's classes are
defined on first use, dataclasses' generated methods come from the code table, the
collector is paused over the imports and the imports frozen, and `isinstance` and xDSL's
walks are made cheaper.  A cold `tileir-opt` of a small kernel went from ~1.2-1.5 s to
~0.6-0.7 s of CPU, which is most of what a FileCheck suite of ~260 `tileir-opt` runs
spends.

First, as tileir-as does, it hands the command to the warm compile server
(`client.run_opt`, docs/cli.md): a worker forked from a process that has all of this
imported runs it in this directory and environment, reading this process's standard
input, and sends back its output and exit status (~0.1 s instead of ~0.5 s of CPU).
Without a server (`TILEIR_SERVER=0`, none reachable, the first call while it starts)
the command runs here.

Standard library only here: `tileir.driver.opt` (xDSL, the dialects, the passes) is
imported only after `cold_start.install`.  `python -m tileir.driver.opt` and callers of
`tileir.driver.opt.run` (tests, notebooks) get none of this and keep xDSL as it is."""

from __future__ import annotations


def main() -> None:
    import sys

    from tileir.driver import client

    try:
        status = client.run_opt(sys.argv[1:])  # the compile server's worker runs it
    except KeyboardInterrupt:
        print("tileir-opt: interrupted", file=sys.stderr)
        status = 130
    if status is not None:
        client.exit_at_once(status)
        sys.exit(status)
    from tileir.utils import cold_start

    cold_start.install()
    with cold_start.single_run_imports():
        from tileir.driver import opt
    opt.main()
