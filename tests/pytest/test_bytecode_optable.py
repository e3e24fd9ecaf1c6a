"""The op table: consistent, complete for the dialect, and (with cuTile installed) in
agreement with the per-op encodings cuTile Python ships for 13.1-13.4."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bytecode_support import CTX

from tileir.bytecode.instructions import op_class
from tileir.bytecode.optable import BY_NAME, BY_OPCODE, ROWS, VARIADIC
from tileir.bytecode.version import (
    MAX_OPCODE,
    SUPPORTED_VERSIONS,
    TESTING_OPCODES,
    TESTING_VERSIONS,
)
from tileir.dialects.cuda_tile import CudaTile


def test_opcodes_and_names_are_unique() -> None:
    assert len(BY_OPCODE) == len(ROWS)
    assert len({row.name for row in ROWS}) == len(ROWS)


def test_each_version_admits_its_opcodes() -> None:
    """Release ops have the next opcodes of their version; the testing ops (250.x) have
    NVIDIA's testing range, from 0x3000."""
    for row in ROWS:
        if row.since in TESTING_VERSIONS:
            assert row.opcode >= TESTING_OPCODES, row.name
            continue
        assert row.opcode <= MAX_OPCODE[row.since], row.name
        older = [v for v in SUPPORTED_VERSIONS if v < row.since]
        if older:
            assert row.opcode > MAX_OPCODE[older[-1]], row.name


def test_every_dialect_op_has_a_row() -> None:
    """Each cuda_tile op class can be written (except test-only ops)."""
    missing = [
        op.name
        for op in CudaTile.operations
        if op.name.removeprefix("cuda_tile.") not in BY_NAME and "testing$" not in op.name
    ]
    assert not missing


#: Fields of the bytecode the dialect does not model yet: a file that sets one gets a
#: diagnostic ("tileir's 'ftoi' has no field 'saturating'") instead of an op.
KNOWN_DIALECT_GAPS: dict[str, set[str]] = {"ftoi": {"saturating"}}


def test_rows_build_their_ops_generically() -> None:
    """Where the dialect has the op, its IRDL definition has a field for every
    attribute of the row, and segment sizes where the row has several optional or
    variadic operand groups."""
    from xdsl.irdl import IRDLOperation

    from tileir.bytecode.instructions import _segment_option

    for row in ROWS:
        if row.structural:
            continue
        cls = op_class(CTX, row, allow_unregistered=False)
        if cls is None:
            continue
        assert issubclass(cls, IRDLOperation)
        definition = cls.get_irdl_definition()
        fields = set(definition.properties) | set(definition.attributes)
        missing = {a.name for a in row.attrs} - fields - KNOWN_DIALECT_GAPS.get(row.name, set())
        assert not missing, (row.name, missing)
        if row.attr_sized and sum(o.kind != "single" for o in row.operands) > 1:
            assert _segment_option(cls) is not None, row.name
        if any(o.kind == VARIADIC for o in row.operands) and _segment_option(cls) is not None:
            assert len(definition.operands) == len(row.operands), row.name


CUTILE_ENCODINGS = None
try:
    import cuda.tile._bytecode.encodings as _encodings  # type: ignore[import-not-found]

    CUTILE_ENCODINGS = Path(_encodings.__file__)
except ImportError:
    pass


@pytest.mark.skipif(
    CUTILE_ENCODINGS is None, reason="cuTile Python (cutile extra) is not installed"
)
def test_opcodes_agree_with_cutile() -> None:
    """cuTile's generated encoders: the opcode and the version of each op up to 13.4."""
    assert CUTILE_ENCODINGS is not None
    source = CUTILE_ENCODINGS.read_text()
    theirs: dict[int, str] = {}
    for m in re.finditer(
        r"def encode_(\w+)\((?:  # since (\S+))?.*?# Opcode\n\s+encode_varint\((\d+), _buf\)",
        source,
        re.S,
    ):
        since = m.group(2) or "13.1"
        if since in ("13.1", "13.2", "13.3", "13.4"):
            theirs[int(m.group(3))] = since
    theirs = {opcode: since for opcode, since in theirs.items() if opcode < 0x1000}  # no previews
    ours = {row.opcode: str(row.since) for row in ROWS if row.opcode < TESTING_OPCODES}
    assert ours == theirs
