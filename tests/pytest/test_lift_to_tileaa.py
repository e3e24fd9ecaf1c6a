"""Issue 4 acceptance: every cuTile kernel we hold (the corpus, text and bytecode, and the
69 cuTile exports of the bytecode fixtures) goes through
`convert-cuda-tile-to-tileaa,tileaa-canonicalize`, verifies, prints and re-parses; the
printed nv_tileaa holds `nv_tileaa.create_mem_token` where cuda_tile had `make_token` and
`nv_tileaa.join_mem_token` where it had `join_tokens`, one for one.

A few exports still fail for reasons outside this pass (listed in `BLOCKED` with the
diagnostic they give).  They are checked too: each must fail with exactly that message
(anything else is a regression), and once the blocker is fixed the test fails until the
entry is removed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tileir.compiler import load_module, parse_module_text, print_ir
from tileir.conversions.cuda_tile_to_tileaa import ConvertCudaTileToTileAAPass
from tileir.diagnostics import CompileError, verify_module
from tileir.registry import make_context
from tileir.transforms.tileaa.canonicalize import TileAACanonicalizePass

TESTS = Path(__file__).resolve().parents[1]
CORPUS = TESTS / "corpus"
FIXTURES = TESTS / "pytest" / "bytecode_fixtures" / "cutile"
KERNELS = sorted([*CORPUS.glob("*.mlir"), *CORPUS.glob("*.tileirbc"), *FIXTURES.glob("*.mlir")])

#: File-name prefix -> the diagnostic its known blocker gives (a regex).
BLOCKED: dict[str, str] = {}


def blocker(path: Path) -> str | None:
    for prefix, message in BLOCKED.items():
        if path.name.startswith(prefix):
            return message
    return None


def lift(path: Path) -> tuple[str, str]:
    """The module after the lift alone (where hop one is counted: canonicalization may
    then erase a token nothing uses) and after `tileaa-canonicalize`, re-parsed."""
    ctx = make_context()
    module = load_module(path, ctx)
    ConvertCudaTileToTileAAPass().apply(ctx, module)
    verify_module(module)
    lifted = print_ir(module)
    TileAACanonicalizePass().apply(ctx, module)
    verify_module(module)
    text = print_ir(module)
    reparsed = parse_module_text(text, f"{path.name} (lifted)", make_context())
    assert print_ir(reparsed) == text, "printing the re-parsed module changed it"
    return lifted, text


def count_ops(text: str, name: str) -> int:
    """Occurrences of an op, in its prefixed or prefix-free printed form."""
    return len(re.findall(rf"(?:^|[=\s])(?:cuda_tile\.)?{re.escape(name)}\b", text, re.M))


def test_kernel_set_is_complete() -> None:
    assert len(list(FIXTURES.glob("*.mlir"))) == 69
    assert len(KERNELS) >= 69 + 28


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lifts_to_tileaa(path: Path) -> None:
    expected_failure = blocker(path)
    if expected_failure is not None:
        with pytest.raises(CompileError) as info:
            lift(path)
        assert re.search(expected_failure, str(info.value)), str(info.value)
        pytest.xfail(f"known blocker outside this pass: {expected_failure}")
    lifted, text = lift(path)
    assert "cuda_tile.module" not in text and "cuda_tile.entry" not in text
    for op in (
        "load_view_tko",
        "store_view_tko",
        "load_ptr_tko",
        "store_ptr_tko",
        "atomic_rmw_tko",
        "atomic_cas_tko",
        "make_partition_view",
        "mmai",
        "cuda_tile.if",
        "cuda_tile.loop",
        "cuda_tile.for",
    ):
        assert op not in text, f"{op} survived the lifting"
    if path.suffix == ".mlir":
        source = path.read_text()
        assert lifted.count("nv_tileaa.create_mem_token") == count_ops(source, "make_token")
        assert lifted.count("nv_tileaa.join_mem_token") == count_ops(source, "join_tokens")
