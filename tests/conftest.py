"""Settings of the whole test suite (tests/pytest and tests/gpu).

The suite never starts tileir-as's compile server: a server outlives the process that
starts it (until its idle timeout), which a test run must not leave behind, and it
would make every test's compilations depend on the first one's environment.  So
`TILEIR_SERVER=0` here, for every tileir-as and tileir-opt the tests run; the server's
own tests (test_compile_server*.py) and cuTile's exports (test_cutile_shim.py) turn it
on for their subprocesses, each with a private `XDG_RUNTIME_DIR`
(tests/private_server.py), and stop their server when done.  The result cache stays on (its
results are byte-identical, and the suite exercises it), in a directory of this run
rather than the user's ~/.cache/tileir, unless `TILEIR_CACHE_DIR` is set.

Each test process runs the compiler as tileir-as's single run and the server's workers
do (tileir/utils/cold_start.py `single_run_imports`): the compiler's imports frozen out
of the cyclic collector, the youngest generation collected every
`COMPILE_GC_THRESHOLD` allocations, `isinstance` against xDSL's classes answered in C
(tileir/utils/plain_isinstance.py) and xDSL's walks through tileir/utils/fast_ir.py.
That is the configuration cuTile's compilations run in, and it takes about a third off
the suite's CPU (test_corpus_compile's sm_90a cases: 57.6 -> 39.2 s).  Both
replacements are checked against xDSL's own answers (test_plain_isinstance.py,
test_fast_ir.py); `TILEIR_TEST_XDSL_AS_IS=1` runs the suite with xDSL as the Python API
leaves it.

The run's first process makes a directory for the corpus kernels' PTX
(`TILEIR_TEST_PTX_DIR`, tests/pytest/corpus_ptx.py), which xdist's workers inherit, so
that a kernel compiled for a target by one test file is read by the next, and removes it
at the end.
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

os.environ["TILEIR_SERVER"] = "0"

#: `TILEIR_TEST_XDSL_AS_IS=1`: run the tests with xDSL's classes and the collector as
#: the Python API leaves them.
XDSL_AS_IS_ENV = "TILEIR_TEST_XDSL_AS_IS"
#: tests/pytest/corpus_ptx.py's variable (not imported: conftest runs before the tests'
#: path is set up).
PTX_DIR_ENV = "TILEIR_TEST_PTX_DIR"


#: The run's directory of compiled corpus PTX (tests/pytest/corpus_ptx.py), when this
#: process made it.
_made_ptx_dir: str | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _made_ptx_dir
    if not os.environ.get(PTX_DIR_ENV):  # the first process of the run: xdist's workers inherit it
        _made_ptx_dir = os.environ[PTX_DIR_ENV] = tempfile.mkdtemp(prefix="tileir-test-ptx-")
    if os.environ.get(XDSL_AS_IS_ENV) == "1":
        return
    import tileir.compiler  # noqa: F401  (every dialect and pass, before the freeze)
    from tileir.utils import cold_start, fast_ir, plain_isinstance

    plain_isinstance.install()
    fast_ir.install()
    gc.collect()
    gc.freeze()
    gc.set_threshold(cold_start.COMPILE_GC_THRESHOLD, *gc.get_threshold()[1:])


@pytest.fixture(scope="session", autouse=True)
def _tileir_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    if os.environ.get("TILEIR_CACHE_DIR"):
        yield
        return
    os.environ["TILEIR_CACHE_DIR"] = str(tmp_path_factory.mktemp("tileir-cache"))
    try:
        yield
    finally:
        os.environ.pop("TILEIR_CACHE_DIR", None)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _made_ptx_dir is not None:
        shutil.rmtree(_made_ptx_dir, ignore_errors=True)
        os.environ.pop(PTX_DIR_ENV, None)


#: The longest test files (seconds on a 2-core machine, `--durations` and `--junitxml`
#: sums of 2026-11-28), run first: xdist's `--dist loadfile` hands a worker the next file
#: when it is free, so a long file left to the end ran alone while the other worker
#: waited (17.8 minutes of wall time for 13.2 of work per worker).  test_corpus_compile
#: comes after the files the other worker takes meanwhile, so that it reads the PTX
#: test_corpus_simulated compiled (tests/pytest/corpus_ptx.py).
LONGEST_FIRST = (  # seconds per file at 8b35ffe (pytest --junitxml, 2-core machine)
    "test_corpus_simulated.py",  # ~205 s
    "test_bytecode_write.py",  # ~85 s (~45 s of it tileiras's, skipped without it)
    "test_compile_server.py",  # ~70 s
    "test_cutile_shim.py",  # ~58 s
    "test_fuzz_campaign.py",  # ~53 s
    "test_corpus_compile.py",  # ~73 s (later than its time: see above)
    "test_lift_to_tileaa.py",  # ~52 s
    "test_cutile_text_roundtrip.py",
    "test_fp8_codegen.py",
    "test_overlap_attention_dots.py",
    "test_tma_feeds.py",
    "test_ptx_tcgen05.py",
    "test_mma_dot.py",
    "test_pipeline_dot_operands.py",
    "test_tileas_dots.py",
    "test_compile_cache.py",
    "test_atomics_ptxas.py",
    "test_docs_commands.py",
)


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: in order within
