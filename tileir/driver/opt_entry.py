"""`tileir-opt`'s console entry point: the process runs one `tileir-opt` command, so it
starts as tileir-as's single run does (tileir/utils/cold_start.py).  xDSL's classes are
defined on first use, dataclasses' generated methods come from the code table, the
collector is paused over the imports and the imports frozen, and `isinstance` and xDSL's
walks are made cheaper.  A cold `tileir-opt` of a small kernel went from ~1.2-1.5 s to
~0.6-0.7 s of CPU, which is most of what a FileCheck suite of ~260 `tileir-opt` runs
spends.

Standard library only here: `tileir.driver.opt` (xDSL, the dialects, the passes) is
imported only after `cold_start.install`.  `python -m tileir.driver.opt` and callers of
`tileir.driver.opt.run` (tests, notebooks) get none of this and keep xDSL as it is."""

from __future__ import annotations


def main() -> None:
    from tileir.utils import cold_start

    cold_start.install()
    with cold_start.single_run_imports():
        from tileir.driver import opt
    opt.main()
