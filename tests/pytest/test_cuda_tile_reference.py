"""The cuda_tile op definitions against NVIDIA's 13.3 op list, and the generated op
table of docs/dialects/cuda_tile.md against the definitions."""

from __future__ import annotations

import re

from bytecode_support import nvidia_path

from tileir.dialects.cuda_tile.ops import ALL_OPS, PUBLIC_OPS
from tileir.dialects.cuda_tile.reference import DOC, GROUP_ORDER, generated_section, op_table

#: cuda_tile 13.3's ops, by release (NVIDIA's `Ops.td`).
OPS_13_2 = {"atan2"}
OPS_13_3 = {
    "alloca",
    "atomic_red_view_tko",
    "make_gather_scatter_view",
    "make_strided_view",
    "mmaf_scaled",
    "pack",
    "unpack",
}
NVIDIA_OPS_TD = "include/cuda_tile/Dialect/CudaTile/IR/Ops.td"


def short(name: str) -> str:
    return name.split(".", 1)[1]


def test_the_doc_table_is_generated_from_the_definitions() -> None:
    current = generated_section(DOC.read_text())
    assert current is not None, "the generated-table markers are missing from the doc"
    assert current == op_table(), (
        "docs/dialects/cuda_tile.md is stale: run "
        "`python -m tileir.dialects.cuda_tile.reference --write`"
    )


def test_one_hundred_public_ops_and_the_testing_ops() -> None:
    names = [short(op.name) for op in PUBLIC_OPS]
    assert len(names) == len(set(names)) == 100
    newer = {"fpowf", "fpowi", "insert", "gdc_wait_tko", "gdc_launch_dependents_tko"}
    testing = {"func", "bytecode_test_new_attribute", "bytecode_test_evolution"}
    assert {short(op.name) for op in ALL_OPS} - set(names) == {
        *(f"testing${t}" for t in testing),
        *newer,
    }


def test_release_of_each_op() -> None:
    for op in PUBLIC_OPS:
        name = short(op.name)
        expected = "13.3" if name in OPS_13_3 else "13.2" if name in OPS_13_2 else "13.1"
        assert expected == op.SINCE, name


def test_ops_releases_and_groups_match_nvidia_ops_td() -> None:
    text = nvidia_path(NVIDIA_OPS_TD).read_text()
    defs = re.findall(r'^def CudaTile_\w+\s*:\s*(\w+)<"([^"]+)",\s*"([^"]+)"', text, re.M)
    groups = {
        "CudaTileFloatingPointOpDef": "Floating Point",
        "CudaTileIntegerOpDef": "Integer",
        "CudaTileBitwiseOpDef": "Bitwise",
        "CudaTileConversionOpDef": "Conversions",
        "CudaTileCoreOpDef": "Core",
        "CudaTileControlFlowOpDef": "Control Flow",
        "CudaTileMemOpDef": "Memory",
        "CudaTile_LoadOpBase": "Memory",
        "CudaTile_StoreOpBase": "Memory",
        "CudaTileViewOpDef": "Views",
        "CudaTileAtomicsOpDef": "Atomics",
        "CudaTileMiscOpDef": "Miscellaneous",
    }
    ours = {short(op.name): op for op in PUBLIC_OPS}
    assert {name for _, name, _ in defs} == set(ours)
    for kind, name, version in defs:
        assert version == ours[name].SINCE, name
        assert groups[kind] == ours[name].GROUP, name


def test_every_op_documents_its_syntax_group_and_later_fields() -> None:
    for op in ALL_OPS:
        assert op.syntax(), op.name
        assert op.GROUP in GROUP_ORDER, op.name
        fields = {name for name, _ in op.get_irdl_definition().properties.items()}
        fields |= {name for name, _ in op.get_irdl_definition().operands}
        fields |= {name for name, _ in op.get_irdl_definition().results}
        for field in op.FIELD_SINCE:
            assert field in fields, (op.name, field)
