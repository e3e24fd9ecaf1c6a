"""Writing .tileirbc: bytecode -> IR -> bytecode -> IR is stable for every corpus kernel
and fixture, text and bytecode agree, each version's limits are diagnosed, and (with
NVIDIA's tools installed) tileirdisasm reads tileir's bytecode back to the same text and
tileiras compiles it."""

from __future__ import annotations

import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from bytecode_support import (
    ALL_FILES,
    CORPUS,
    CORPUS_FILES,
    CTX,
    CUTILE_FILES,
    disassemble,
    entry_lines,
    file_id,
    file_version,
    nvidia_tool,
    printed,
    read_any,
    readable,
)
from xdsl.ir import Operation

from tileir.bytecode import (
    SUPPORTED_VERSIONS,
    BytecodeError,
    EncodeError,
    parse_version,
    read_bytecode,
    write_bytecode,
)
from tileir.bytecode.version import V13_3
from tileir.dialects.cuda_tile.attributes import SymbolVisibility, SymbolVisibilityAttr
from tileir.dialects.cuda_tile.ops import GlobalOp
from tileir.frontend import parse_text

BIN = Path(sys.executable).parent


def _reread(data: bytes, known: bool):
    if known:
        return read_bytecode(data, "<written>", CTX)
    return read_bytecode(data, "<written>", CTX, allow_unregistered=True, verify=False)


@pytest.mark.parametrize("path", ALL_FILES, ids=file_id)
def test_round_trip_is_stable(path: Path) -> None:
    """bytecode -> IR -> bytecode -> IR gives the same IR, locations included, and
    writing that IR again gives the same bytes."""
    module, known = read_any(path.read_bytes(), str(path))
    version = file_version(path)
    first = write_bytecode(module, version)
    again = _reread(first, known)
    assert printed(again, generic=True, debuginfo=True) == printed(
        module, generic=True, debuginfo=True
    )
    assert write_bytecode(again, version) == first


def _one_per_kernel() -> list[Path]:
    """The corpus, and each fixture kernel at the oldest version it was exported in."""
    oldest: dict[str, Path] = {}
    for p in CUTILE_FILES:
        kernel = p.name.split(".")[0]
        if kernel not in oldest or file_version(p) < file_version(oldest[kernel]):
            oldest[kernel] = p
    return CORPUS_FILES + sorted(oldest.values())


@pytest.mark.parametrize("path", _one_per_kernel(), ids=file_id)
def test_every_version_writes_or_says_why_not(path: Path) -> None:
    module, known = read_any(path.read_bytes(), str(path))
    for version in SUPPORTED_VERSIONS:
        try:
            data = write_bytecode(module, version)
        except EncodeError as e:
            # Only a feature newer than the target stops the writer.
            assert version < file_version(path)
            assert (
                "requires bytecode version" in e.message
                or "is not available in bytecode version" in e.message
            )
            continue
        assert data[8:10] == bytes([version.major, version.minor])
        expected = module if version < V13_3 else _with_visibility(module)
        assert printed(_reread(data, known), generic=True) == printed(expected, generic=True)


def _with_visibility(module: Operation) -> Operation:
    """`module` with `public` written out on the globals that have no visibility (read
    from bytecode before 13.3): bytecode 13.3+ always stores one."""
    copy = module.clone()
    for op in copy.walk():
        if isinstance(op, GlobalOp) and op.symbol_visibility is None:
            op.properties["symbol_visibility"] = SymbolVisibilityAttr(SymbolVisibility.PUBLIC)
    return copy


@pytest.mark.parametrize("path", CORPUS_FILES, ids=file_id)
def test_text_written_as_bytecode_reads_back(path: Path) -> None:
    text = path.with_suffix(".mlir")
    module = parse_text(CTX, text.read_text(), str(text))
    again = read_bytecode(write_bytecode(module), "<written>", CTX)
    assert printed(again, generic=True) == printed(module, generic=True)
    # The text's own positions become the debug info: they read back as di_locs at the
    # same positions, in the scope the writer made for the function (the module's
    # location is not stored).
    assert _body_positions(again) == _body_positions(module)


def _body_positions(module) -> list[object]:
    from tileir.dialects.cuda_tile.debug_info import DILocAttr

    return [
        op.location.source_loc if isinstance(op.location, DILocAttr) else op.location
        for op in module.walk()
        if op.parent_op() is not None and op.parent_op().name == "cuda_tile.entry"
    ]


def test_versions_gate_what_can_be_written() -> None:
    gelu = read_bytecode((CORPUS / "gelu_tanh_f32.tileirbc").read_bytes(), "gelu", CTX)
    with pytest.raises(
        EncodeError,
        match=r"attribute 'inbounds' requires bytecode version 13\.4\+, but targeting 13\.3",
    ):
        write_bytecode(gelu, parse_version("13.3"))
    atan2 = next(p for p in CUTILE_FILES if p.name.startswith("atan2_op"))
    module = read_bytecode(atan2.read_bytes(), "atan2", CTX)
    with pytest.raises(
        EncodeError,
        match=r"operation 'cuda_tile\.atan2' is not available in bytecode version 13\.1",
    ):
        write_bytecode(module, parse_version("13.1"))
    logistic = read_bytecode((CORPUS / "logistic_f32.tileirbc").read_bytes(), "logistic", CTX)
    # exp's rounding mode exists from 13.3; an approximate exp cannot go to 13.2.
    try:
        write_bytecode(logistic, parse_version("13.2"))
    except EncodeError as e:
        assert "requires bytecode version" in e.message
        assert e.location is not None  # located at the op


def test_unsupported_version_strings() -> None:
    """In cuda-tile-translate's words: a well-formed version outside the range names
    the range (the test-only 250.x exist only with TILEIR_INCLUDE_TESTS=1)."""
    for text in ("12.0", "13.5", "250.0"):
        with pytest.raises(
            ValueError,
            match=rf"^Invalid argument '{text}': the supported versions are \[13\.1 - 13\.4\]$",
        ):
            parse_version(text)
    for text in ("13", "latest", "13.1.2"):
        with pytest.raises(ValueError, match=rf"^Invalid argument '{text}'$"):
            parse_version(text)
    assert str(parse_version("13.2.0")) == "13.2"


def test_only_cuda_tile_modules_are_written() -> None:
    from xdsl.dialects.builtin import ModuleOp

    with pytest.raises(EncodeError, match="has none"):
        write_bytecode(ModuleOp([]))


# ---------------------------------------------------------------------------
# With NVIDIA's tools (the `cutile` extra).
# ---------------------------------------------------------------------------

DISASM = nvidia_tool("tileirdisasm")
TILEIRAS = nvidia_tool("tileiras")
needs_disasm = pytest.mark.skipif(
    DISASM is None, reason="tileirdisasm (cutile extra) is not installed"
)
needs_tileiras = pytest.mark.skipif(
    TILEIRAS is None, reason="tileiras (cutile extra) is not installed"
)


@needs_disasm
@pytest.mark.parametrize("path", ALL_FILES, ids=file_id)
def test_tileirdisasm_reads_tileirs_bytecode_back(path: Path, tmp_path: Path) -> None:
    """tileirdisasm prints tileir's bytecode of a file exactly as it prints the file."""
    module, _ = read_any(path.read_bytes(), str(path))
    ours = disassemble(write_bytecode(module, file_version(path)), tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == path.with_suffix(".mlir").read_text()


@needs_disasm
@pytest.mark.parametrize("path", CORPUS_FILES, ids=file_id)
def test_tileirdisasm_of_text_written_as_bytecode_equals_the_text(
    path: Path, tmp_path: Path
) -> None:
    text = path.with_suffix(".mlir")
    module = parse_text(CTX, text.read_text(), str(text))
    for version in SUPPORTED_VERSIONS:
        try:
            data = write_bytecode(module, version)
        except EncodeError:
            continue
        ours = disassemble(data, tmp_path)
        assert ours.returncode == 0, ours.stderr
        assert entry_lines(printed(module)) == ours.stdout.splitlines()


def _tileiras(data: bytes, tmp: Path, name: str, arch: str) -> subprocess.CompletedProcess[str]:
    assert TILEIRAS is not None
    src = tmp / f"{name}.tileirbc"
    src.write_bytes(data)
    return subprocess.run(
        [str(TILEIRAS), str(src), "--gpu-name", arch, "-o", str(tmp / f"{name}.cubin")],
        capture_output=True,
        text=True,
    )


@needs_tileiras
def test_tileiras_compiles_tileirs_bytecode(tmp_path: Path) -> None:
    """Every corpus kernel, and each other fixture kernel at the oldest version it has."""
    corpus = {p.stem for p in CORPUS_FILES}
    gpu = {"mma_scaled": "sm_100"}
    # A corpus kernel's MIN_GPU (f8E8M0FNU scales: tileiras refuses them before sm_100).
    for p in CORPUS_FILES:
        least = re.search(r'^MIN_GPU = "(sm_\d+)"', p.with_suffix(".py").read_text(), re.M)
        if least is not None:
            gpu[p.stem] = least.group(1)
    oldest: dict[str, Path] = {}
    for p in CUTILE_FILES:
        kernel = p.name.split(".")[0]
        if kernel in corpus:
            continue
        if kernel not in oldest or file_version(p) < file_version(oldest[kernel]):
            oldest[kernel] = p
    jobs = []
    for path in CORPUS_FILES + sorted(oldest.values()):
        if not readable(path):
            continue
        module, _ = read_any(path.read_bytes(), str(path))
        arch = gpu.get(path.name.split(".")[0], "sm_90")
        jobs.append(
            (file_id(path).replace("/", "_"), write_bytecode(module, file_version(path)), arch)
        )
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(
            pool.map(lambda job: (job[0], _tileiras(job[1], tmp_path, job[0], job[2])), jobs)
        )
    failed = [(name, r.stderr) for name, r in results if r.returncode != 0]
    assert not failed, failed


# ---------------------------------------------------------------------------
# The command line.
# ---------------------------------------------------------------------------


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(BIN / tool), *args], capture_output=True)


def test_tileir_opt_reads_and_writes_bytecode(tmp_path: Path) -> None:
    out = tmp_path / "v.tileirbc"
    proc = _run(
        "tileir-opt",
        str(CORPUS / "vadd_f32.mlir"),
        "-t",
        "tileirbc",
        "--bytecode-version",
        "13.2",
        "-o",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    data = out.read_bytes()
    assert data[:12] == b"\x7fTileIR\x00\x0d\x02\x00\x00"
    back = _run("tileir-opt", str(out))
    assert back.returncode == 0, back.stderr
    assert entry_lines(back.stdout.decode()) == (CORPUS / "vadd_f32.mlir").read_text().splitlines()
    # The target option, and stdout.
    proc = _run(
        "tileir-opt", str(CORPUS / "vadd_f32.mlir"), "-t", "tileirbc{bytecode-version=13.1}"
    )
    assert proc.returncode == 0 and proc.stdout[8:10] == b"\x0d\x01"
    default = _run("tileir-opt", str(CORPUS / "vadd_f32.mlir"), "-t", "tileirbc")
    assert default.stdout[8:10] == b"\x0d\x04"


def test_tileir_opt_bytecode_errors(tmp_path: Path) -> None:
    proc = _run(
        "tileir-opt",
        str(CORPUS / "gelu_tanh_f32.mlir"),
        "-t",
        "tileirbc",
        "--bytecode-version",
        "13.1",
    )
    assert proc.returncode == 1
    assert (
        b"gelu_tanh_f32.mlir:" in proc.stderr and b"requires bytecode version 13.4+" in proc.stderr
    )
    proc = _run(
        "tileir-opt", str(CORPUS / "vadd_f32.mlir"), "-t", "tileirbc{bytecode-version=12.0}"
    )
    assert proc.returncode == 1 and b"Invalid argument '12.0'" in proc.stderr
    proc = _run("tileir-opt", str(CORPUS / "vadd_f32.mlir"), "--bytecode-version", "13.2")
    assert proc.returncode == 1 and b"--bytecode-version applies only to -t tileirbc" in proc.stderr
    assert b"Traceback" not in proc.stderr


def test_tileir_as_compiles_bytecode(tmp_path: Path) -> None:
    out = tmp_path / "k.ptx"
    proc = _run(
        "tileir-as", str(CORPUS / "vadd_f32.tileirbc"), "--gpu-name", "sm_90", "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert ".visible .entry vadd_f32" in out.read_text()
    bad = tmp_path / "bad.tileirbc"
    bad.write_bytes((CORPUS / "vadd_f32.tileirbc").read_bytes()[:100])
    proc = _run("tileir-as", str(bad), "--gpu-name", "sm_90", "-o", str(out))
    assert proc.returncode == 1
    assert b"bad.tileirbc: error: at byte" in proc.stderr and b"Traceback" not in proc.stderr


def test_bytecode_error_is_a_located_compile_error() -> None:
    with pytest.raises(BytecodeError) as info:
        read_bytecode(b"\x7fTileIR\x00\x0d\x01", "short.tileirbc", CTX)
    assert info.value.format() == (
        "short.tileirbc: error: at byte 10: unexpected end of data reading the version tag; "
        "expected 2 bytes, 0 left"
    )


def test_dialect_debug_info_is_written_as_it_is(tmp_path: Path) -> None:
    """Locations that are the dialect's `#cuda_tile.di_loc` keep their scopes exactly
    (subprogram lines, lexical blocks); builtin ones get synthesized scopes."""
    from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr

    from tileir.dialects.cuda_tile.debug_info import (
        DICompileUnitAttr,
        DIFileAttr,
        DILexicalBlockAttr,
        DILocAttr,
        DISubprogramAttr,
    )

    module = read_bytecode((CORPUS / "vadd_f32.tileirbc").read_bytes(), "vadd", CTX)
    entry = next(op for op in module.walk() if op.name == "cuda_tile.entry")
    symbol = entry.properties["sym_name"]
    file = DIFileAttr.new((StringAttr("k.py"), StringAttr("/src")))
    unit = DICompileUnitAttr.new((file,))
    sub = DISubprogramAttr.new((file, IntAttr(10), StringAttr("k"), symbol, unit, IntAttr(11)))
    block = DILexicalBlockAttr.new((sub, file, IntAttr(12), IntAttr(3)))

    def at(line: int) -> FileLineColLoc:
        return FileLineColLoc(StringAttr("/src/k.py"), IntAttr(line), IntAttr(4))

    entry.location = DILocAttr.new((at(10), sub))
    ops = list(entry.regions[0].block.ops)
    for i, op in enumerate(ops):
        op.location = DILocAttr.new((at(20 + i), block if i % 2 else sub))
    data = write_bytecode(module)

    again = read_bytecode(data, "again", CTX)
    entry2 = next(op for op in again.walk() if op.name == "cuda_tile.entry")
    # Read back as they were written: the same di_loc attributes, scopes included.
    assert entry2.location == entry.location
    assert [op.location for op in entry2.regions[0].block.ops] == [op.location for op in ops]
    if DISASM is not None:
        path = tmp_path / "di.tileirbc"
        path.write_bytes(data)
        text = subprocess.run([str(DISASM), "-g", str(path)], capture_output=True, text=True).stdout
        assert 'line = 10, name = "k"' in text and "scopeLine = 11" in text
        assert (
            "#cuda_tile.di_lexical_block<scope = #di_subprogram, file = #di_file, line = 12, column = 3>"
            in text
        )


ROWS_TEXT = (
    Path(__file__).resolve().parents[1]
    / "filecheck"
    / "bytecode"
    / "rows_without_cutile_files.mlir"
)


@needs_disasm
def test_rows_without_cutile_files_match_tileirdisasm(tmp_path: Path) -> None:
    """Rows no cuTile export reaches (ptr_to_int, int_to_ptr, ptr_to_ptr, mulhii,
    get_tensor_shape, alloca, make_strided_view, atomic_red_view_tko): NVIDIA's
    disassembler reads tileir's encoding of them back to the text tileir prints."""
    module = parse_text(CTX, ROWS_TEXT.read_text(), str(ROWS_TEXT))
    ours = disassemble(write_bytecode(module), tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.splitlines() == entry_lines(printed(module))
