"""The nv_tileas contract as a whole: seed 003's op roster and attribute roster, the
15 PipelineOp entries, every verifier rule tested both ways, and docs that match the
definitions."""

from __future__ import annotations

import re
from pathlib import Path

from tileir.dialects.nv_tileas import NvTileAS
from tileir.dialects.nv_tileas.docs import render
from tileir.dialects.nv_tileas.ops import FAMILIES, OPS, TileASOp
from tileir.dialects.nv_tileas.ops.pipeline import PIPELINE_OPS
from tileir.dialects.nv_tileas.verifiers import RULES

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests" / "filecheck" / "dialects" / "nv_tileas"
DOCS = ROOT / "docs" / "dialects" / "nv_tileas.md"

#: Seed 003 "Operation Families", verbatim.
ROSTER = {
    "async pipeline": "async.pipeline.create_pipeline, create_iterator, inc_iter, produce_one, "
    "produce_one_async, consume_one, consume_one_async, producer_acquire, producer_write, "
    "producer_commit, consumer_wait, consumer_read, consumer_release, agent_switch, async.pipeline.yield",
    "async tokens": "async.wait, async.future_wait, async.to_async, async.token_to_async, create_none",
    "tiled memops": "tiled_load, tiled_store, tiled_atomic_rmw, async.tiled_load, async.copy, async.load, "
    "async.store, copy, load, store, gather_load, scatter_store",
    "tensor slices": "alloc_tensor, extract_slice, insert_slice, async.extract_slice, async.insert_slice",
    "layout": "convert_layout, view, expand_dims, reinterpret, shuffle, generate",
    "TMA": "make_tiled_tma_desc, async.tiled_tma_load, async.tiled_tma_store, async.gather_tma_load, "
    "async.scatter_tma_store",
    "compute": "dot, async.dot, reduce, scan",
    "control and metadata": "yield, pragma, cancel_next_program_id, async.cancel_next_program_id",
}

PIPELINE_ENUM = [
    "create_pipeline",
    "produce_one",
    "produce_one_async",
    "consume_one",
    "consume_one_async",
    "consumer_read",
    "producer_write",
    "producer_acquire",
    "producer_commit",
    "consumer_wait",
    "consumer_release",
    "yield",
    "inc_iter",
    "create_iterator",
    "agent_switch",
]


#: tileir's additions to the tiled memops family (not in seed 003).
TILEIR_MEMOPS = {"nv_tileas.atomic_rmw", "nv_tileas.atomic_cas"}

#: tileir's addition to the TMA family: the global view a descriptor maps
#: (`tileas-tma-feeds` builds it from a pointer, extents and strides).
TILEIR_TMA = {"nv_tileas.make_global_view"}


def _full(short: str, family: str) -> str:
    if family == "async pipeline" and not short.startswith("async."):
        return f"nv_tileas.async.pipeline.{short}"
    return f"nv_tileas.{short}"


def test_every_roster_op_exists_in_its_family() -> None:
    for family, names in ROSTER.items():
        expected = {_full(n.strip(), family) for n in names.split(",")}
        # tileir's pointer atomics join seed 003's tiled memops.
        assert {op.name for op in FAMILIES[family]} - TILEIR_MEMOPS - TILEIR_TMA == expected, family
    assert {op.name for op in FAMILIES["tiled memops"]} >= TILEIR_MEMOPS
    # Seed 003's 56, and tileir's synchronization, shape, pointer, debug, globals and
    # tensor-memory families.
    assert {op.name for op in FAMILIES["synchronization"]} == {
        "nv_tileas.cta_barrier",
        "nv_tileas.agent_barrier",
        "nv_tileas.gdc_wait",
        "nv_tileas.gdc_launch_dependents",
    }
    assert {op.name for op in FAMILIES["shape"]} == {"nv_tileas.splat", "nv_tileas.broadcast"}
    assert {op.name for op in FAMILIES["pointer"]} == {"nv_tileas.addptr", "nv_tileas.assume"}
    assert {op.name for op in FAMILIES["debug"]} == {"nv_tileas.print", "nv_tileas.assert"}
    assert {op.name for op in FAMILIES["globals"]} == {"nv_tileas.global", "nv_tileas.get_global"}
    assert {op.name for op in FAMILIES["tensor memory"]} == {
        "nv_tileas.read_tmem_accumulator",
        "nv_tileas.write_tmem_accumulator",
        "nv_tileas.scale_tmem_accumulator",
    }
    assert len(OPS) == 74 == len({op.name for op in OPS})
    assert {op.name for op in NvTileAS.operations} == {op.name for op in OPS}


def test_pipeline_enum_order() -> None:
    assert [
        op.name.removeprefix("nv_tileas.async.pipeline.") for op in PIPELINE_OPS
    ] == PIPELINE_ENUM


def test_attribute_roster_and_table_attributes() -> None:
    """Every attribute the seed names appears on the ops that own it."""
    props: dict[str, set[str]] = {}
    for op in OPS:
        for name in op.get_irdl_definition().properties:
            props.setdefault(name, set()).add(op.name.removeprefix("nv_tileas."))
    owners = {
        "atom": {
            "tiled_load",
            "copy",
            "dot",
            "async.tiled_tma_load",
            "gather_load",
            "scatter_store",
        },
        "padding_value": {
            "tiled_load",
            "tiled_store",
            "load",
            "gather_load",
            "async.gather_tma_load",
        },
        "consumer_idx": {
            "async.pipeline.consumer_wait",
            "async.pipeline.consumer_read",
            "async.pipeline.consume_one",
        },
        "ocgEnterDirectives": {"pragma"},
        "ocgLeaveDirectives": {"pragma"},
        "operandSegmentSizes": {
            "tiled_load",
            "tiled_store",
            "tiled_atomic_rmw",
            "async.tiled_tma_load",
        },
        "mem_semantic": {"tiled_load", "tiled_store", "tiled_atomic_rmw"},
        "mem_scope": {"tiled_load", "tiled_store", "tiled_atomic_rmw"},
        "in_bounds": {"tiled_load", "tiled_store"},
        "rmw_mode": {"tiled_atomic_rmw"},
        "swizzle_mode": {"make_tiled_tma_desc"},
        "oob_mode": {"make_tiled_tma_desc"},
        "numStages": {"async.pipeline.create_pipeline"},
        "producerGroupId": {"async.pipeline.create_pipeline"},
        "consumerGroupId": {"async.pipeline.create_pipeline"},
        "sharedMem": {"async.pipeline.create_pipeline"},
        "dynamic": {"async.pipeline.create_pipeline"},
        "producer_types": {"async.pipeline.produce_one", "async.pipeline.produce_one_async"},
        "consumer_types": {"async.pipeline.consume_one", "async.pipeline.consume_one_async"},
        "num_agents_per_group": {"async.pipeline.agent_switch"},
        "max_regs": {"async.pipeline.agent_switch"},
        "isolated": {"async.pipeline.agent_switch"},
    }
    for name, ops in owners.items():
        assert ops <= props.get(name, set()), (name, ops - props.get(name, set()))


def _rule_tags(path: Path) -> list[tuple[str, list[str]]]:
    """(chunk text, RULE ids) for each `// -----` chunk."""
    chunks = path.read_text().split("// -----")
    return [(c, re.findall(r"// RULE: ([a-z0-9-]+)", c)) for c in chunks]


def test_every_rule_has_an_invalid_and_a_valid_case() -> None:
    invalid: set[str] = set()
    valid: set[str] = set()
    for path in sorted(TESTS.glob("*.mlir")):
        for chunk, tags in _rule_tags(path):
            assert set(tags) <= set(RULES), (path.name, set(tags) - set(RULES))
            if path.stem.endswith("_invalid"):
                if "// RUN:" in chunk and "expected-error" not in chunk:
                    continue
                assert tags, f"{path.name}: a case without a RULE tag"
                assert chunk.count("expected-error") == 1, (
                    f"{path.name}: one expected-error per case"
                )
                invalid |= set(tags)
            else:
                valid |= set(tags)
    assert set(RULES) - invalid == set(), "rules without an invalid case"
    assert set(RULES) - valid == set(), "rules without a valid case"


def test_every_rule_is_enforced_by_an_op() -> None:
    enforced = {r for op in OPS if issubclass(op, TileASOp) for r in op.RULES}
    assert enforced == set(RULES)


def test_invalid_files_use_verify_diagnostics() -> None:
    for path in TESTS.glob("*_invalid.mlir"):
        run_lines = [line for line in path.read_text().splitlines() if line.startswith("// RUN:")]
        assert run_lines and all(
            "--split-input-file --verify-diagnostics" in r for r in run_lines
        ), path.name


def test_docs_match_the_definitions() -> None:
    assert DOCS.read_text() == render(), (
        "docs/dialects/nv_tileas.md is stale: run "
        "`python -m tileir.dialects.nv_tileas.docs docs/dialects/nv_tileas.md`"
    )
