"""The mutation tester's own parts (tileir/testing/mutate.py), without running a
campaign: which mutants a module has, that each is one small change that still compiles,
that the order is the seed's, and that the sandbox imports the mutant."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

from tileir.testing import mutate as M

STREAM = "tileir/bytecode/stream.py"


def test_every_site_of_a_target_is_one_change_that_compiles() -> None:
    sites = M.sites(STREAM)
    kinds = {s.description.split(" ")[0] for s in sites}
    assert {"Add", "Lt", "0", "1", "raise", "and", "not", "condition"} & kinds
    original = ast.dump(ast.parse(M.unparsed_source(STREAM)))
    for site in sites[:: max(1, len(sites) // 15)]:
        text = M.mutated_source(site)
        compile(text, STREAM, "exec")
        assert ast.dump(ast.parse(text)) != original, site


def test_annotations_messages_and_docstrings_are_not_mutated() -> None:
    tree = ast.parse(M.source(STREAM))
    skipped = M._skipped_subtrees(tree)  # pyright: ignore[reportPrivateUsage]
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr | ast.Assert):
            assert id(node) in skipped
    assert not any("docstring" in s.description for s in M.sites(STREAM))


def test_a_campaign_order_depends_on_the_seed_alone() -> None:
    target = M.Target("t", (STREAM,), ())
    first = [s.key for _, s in M.plan(7, [target])]
    assert first == [s.key for _, s in M.plan(7, [target])]
    assert first != [s.key for _, s in M.plan(8, [target])]
    assert sorted(first) == sorted(s.key for s in M.sites(STREAM))


def test_the_sandbox_is_what_the_tests_import() -> None:
    sandbox = M.Sandbox()
    try:
        sandbox.write(STREAM, M.source(STREAM) + "\nMUTANT = True\n")
        env = {**os.environ, "PYTHONPATH": str(sandbox.dir)}
        code = "import tileir.bytecode.stream as s; print(s.MUTANT, s.__file__)"
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=sandbox.dir, env=env, capture_output=True, text=True
        ).stdout
        assert out.startswith("True " + str(sandbox.dir))
        sandbox.restore(STREAM)
        assert "MUTANT" not in (sandbox.dir / STREAM).read_text()
    finally:
        sandbox.remove()
