"""Settings of the whole test suite (tests/pytest and tests/gpu).

The suite never starts tileir-as's compile server: a server outlives the process that
starts it (until its idle timeout), which a test run must not leave behind, and it
would make every test's compilations depend on the first one's environment.  So
`TILEIR_SERVER=0` here, for every tileir-as the tests run; the server's own tests
(test_compile_server.py) turn it on for their subprocesses, each with a private
`XDG_RUNTIME_DIR`, and stop their server in teardown.  The result cache stays on (its
results are byte-identical, and the suite exercises it), in a directory of this run
rather than the user's ~/.cache/tileir, unless `TILEIR_CACHE_DIR` is set.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

os.environ["TILEIR_SERVER"] = "0"


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
