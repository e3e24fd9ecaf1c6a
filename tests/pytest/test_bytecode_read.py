"""Reading .tileirbc: every version cuTile Python writes (13.1 to 13.4, with and
without a target architecture) gives the IR NVIDIA's tileirdisasm shows, and debug info
becomes locations."""

from __future__ import annotations

from pathlib import Path

import pytest
from bytecode_support import (
    CORPUS,
    CORPUS_FILES,
    CTX,
    CUTILE,
    CUTILE_FILES,
    entry_lines,
    file_id,
    file_version,
    ir_shape,
    nvidia_path,
    printed,
    read_any,
)
from xdsl.dialects.builtin import UnknownLoc

from tileir.bytecode import BytecodeError, read_bytecode
from tileir.dialects.cuda_tile.debug_info import DILocAttr, DISubprogramAttr
from tileir.frontend import parse_text


def test_fixtures_cover_every_version() -> None:
    versions = {str(file_version(p)) for p in CUTILE_FILES}
    assert versions == {"13.1", "13.2", "13.3", "13.4"}
    assert len(CORPUS_FILES) >= 12


@pytest.mark.parametrize("path", CORPUS_FILES, ids=file_id)
def test_corpus_prints_like_tileirdisasm(path: Path) -> None:
    """Read and printed, a corpus kernel is the `tileirdisasm` text committed beside it."""
    module = read_bytecode(path.read_bytes(), str(path), CTX)
    expected = path.with_suffix(".mlir").read_text().splitlines()
    assert entry_lines(printed(module)) == expected


@pytest.mark.parametrize("path", CORPUS_FILES + CUTILE_FILES, ids=file_id)
def test_bytecode_and_tileirdisasm_text_give_the_same_ir(path: Path) -> None:
    """The IR read from the file equals the IR tileir parses from NVIDIA's disassembly of
    it (locations aside): ops, operands, types, properties, regions."""
    module, known = read_any(path.read_bytes(), str(path))
    if not known:
        # An op the dialect lacks still: the plain read names it and its offset.
        with pytest.raises(
            BytecodeError, match=r"at byte \d+: op '\w+' is not supported by tileir yet"
        ):
            read_bytecode(path.read_bytes(), str(path), CTX)
        return
    text = path.with_suffix(".mlir").read_text()
    from_text = parse_text(CTX, text, str(path.with_suffix(".mlir")))
    assert ir_shape(module) == ir_shape(from_text)


def test_opcode_0x54_reads_as_fpowf_in_every_version() -> None:
    """Opcode 0x54 is `fpowf` as tileirdisasm prints it, in 13.1-13.3 files too (cuTile's
    encoder is `encode_FPowFOp`); `pow`, 13.3's name, still parses and writes."""
    for path in sorted(CUTILE.glob("math_ops.13.*.tileirbc")):
        module = read_bytecode(path.read_bytes(), str(path), CTX)
        names = {op.name for op in module.walk()}
        assert "cuda_tile.fpowf" in names and "cuda_tile.pow" not in names, path.name


def test_debug_info_becomes_locations() -> None:
    module = read_bytecode((CORPUS / "vadd_f32.tileirbc").read_bytes(), "vadd_f32.tileirbc", CTX)
    entry = next(op for op in module.walk() if op.name == "cuda_tile.entry")
    # As NVIDIA's reader reads it: the dialect's di_loc in the kernel's di_subprogram.
    assert isinstance(entry.location, DILocAttr)
    subprogram = entry.location.scope
    assert isinstance(subprogram, DISubprogramAttr) and subprogram.sub_name.data == "vadd_f32"
    ops = list(entry.regions[0].block.ops)
    first = ops[0].location
    assert isinstance(first, DILocAttr) and first.scope == subprogram
    source = first.source_loc
    assert (source.filename.data, source.line.data, source.column.data) == (
        "tests/corpus/vadd_f32.py",
        29,
        0,
    )
    addf = next(op for op in ops if op.name == "cuda_tile.addf")
    assert isinstance(addf.location, DILocAttr) and addf.location.source_loc.line.data == 34
    # cuTile gives `return` no location (debug index 0).
    assert isinstance(ops[-1].location, UnknownLoc)
    text = printed(module, debuginfo=True)
    assert "#cuda_tile.di_subprogram<file = #di_file, line = " in text
    assert 'name = "vadd_f32"' in text and 'loc("tests/corpus/vadd_f32.py":29:0)' in text


def test_version_14_is_rejected_with_the_supported_range() -> None:
    data = bytearray((CORPUS / "vadd_f32.tileirbc").read_bytes())
    data[8:10] = bytes([14, 0])
    with pytest.raises(
        BytecodeError, match=r"at byte 8: unsupported Tile version 14\.0\.0.*\[13\.1 - 13\.4\]"
    ):
        read_bytecode(bytes(data), "x", CTX)


def test_unregistered_mode_reads_ops_tileir_lacks() -> None:
    """`allow_unregistered` (tileir-opt --allow-unregistered-dialect) keeps every op."""
    unknown = [p for p in CUTILE_FILES if not read_any(p.read_bytes())[1]]
    for path in unknown:
        module = read_bytecode(
            path.read_bytes(), str(path), CTX, allow_unregistered=True, verify=False
        )
        names = {op.op_name.data for op in module.walk() if op.name == "builtin.unregistered"}  # pyright: ignore[reportAttributeAccessIssue]
        assert names and all(n.startswith("cuda_tile.") for n in names)


def test_nvidia_written_13_1_files() -> None:
    """The three 13.1 files NVIDIA's own writer made for its tests."""
    inputs = nvidia_path("test/Bytecode/versioning/Inputs/13.1")
    negi = read_bytecode((inputs / "negi-op-13.1.tileirbc").read_bytes(), "negi", CTX)
    assert sum(op.name == "cuda_tile.negi" for op in negi.walk()) == 2
    with pytest.raises(
        BytecodeError,
        match=r"type 'Float4E2M1FN' requires bytecode version 13\.3\+, file version is 13\.1",
    ):
        read_bytecode((inputs / "f4e2m1fn-in-13.1.tileirbc").read_bytes(), "f4", CTX)
    module, _ = read_any((inputs / "print-op-13.1.tileirbc").read_bytes(), "print")
    assert "print_tko" in printed(module)


def test_load_module_reads_bytecode() -> None:
    """`tileir.compiler.load_module` (tileir-as) takes bytecode."""
    from tileir.compiler import load_module

    module = load_module(CORPUS / "saxpy_f32.tileirbc")
    assert entry_lines(printed(module)) == (CORPUS / "saxpy_f32.mlir").read_text().splitlines()
