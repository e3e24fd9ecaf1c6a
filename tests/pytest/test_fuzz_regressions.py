"""Every distinct finding of the compiler fuzzer (tileir/testing/fuzz.py), kept as an
input in fuzz_regressions/: each must now be compiled (and assembled by ptxas) or
rejected with a located diagnostic.  A finding not fixed yet has a `<name>.xfail` beside
it holding its signature: the test is then `xfail(strict=True)`, so that the fix shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tileir.testing.fuzz import FINDING, run_isolated

HERE = Path(__file__).parent / "fuzz_regressions"
INPUTS = sorted(p for p in HERE.iterdir() if p.suffix in (".tileirbc", ".mlir"))


def _case(path: Path) -> object:
    reason = path.with_suffix(".xfail")
    if not reason.exists():
        return pytest.param(path, id=path.name)
    mark = pytest.mark.xfail(strict=True, reason=reason.read_text().strip())
    return pytest.param(path, id=path.name, marks=[mark])


@pytest.mark.parametrize("path", [_case(p) for p in INPUTS])
def test_fuzz_finding_is_fixed(path: Path) -> None:
    outcome = run_isolated(path.read_bytes(), path.suffix == ".tileirbc")
    assert outcome.kind != FINDING, f"{outcome.signature}\n{outcome.detail}"


def test_there_are_regression_inputs() -> None:
    assert INPUTS
