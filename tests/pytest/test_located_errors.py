"""Errors as a user reads them (issue 19, item 1): `str()` of a `CompileError` and the
drivers' stderr give `file:line:col: error: ...`, the source line with a caret under
the column, the notes, "did you mean" for misspelled names, and types in cuda_tile's
own spelling; `message` keeps MLIR's wording for `--verify-diagnostics`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import tileir
from tileir.compiler import compile_module, parse_module_text
from tileir.diagnostics import CompileError, SourceLocation, did_you_mean

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def kernel(body: str) -> str:
    return (
        "cuda_tile.module @m {\n"
        "  entry @k() {\n"
        "    %c = constant <f32: 1.0> : tile<4xf32>\n"
        f"    {body}\n"
        "    return\n"
        "  }\n"
        "}\n"
    )


def error_of(text: str, name: str = "k.mlir") -> CompileError:
    with pytest.raises(CompileError) as e:
        tileir.load(text, name=name)
    return e.value


def test_str_is_located_with_the_source_line_and_a_caret() -> None:
    e = error_of(kernel("%e = exp2f %c : tile<4xf32>"))
    assert str(e).splitlines() == [
        "k.mlir:4:10: error: custom op 'exp2f' is unknown (operation exp2f is not "
        "registered); did you mean 'exp2'?",
        "    %e = exp2f %c : tile<4xf32>",
        "         ^",
    ]


def test_a_file_on_disk_is_quoted_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(kernel("%e = expo %c : tile<4xf32>"))
    with pytest.raises(CompileError) as e:
        tileir.load(path)
    lines = str(e.value).splitlines()
    assert lines[0].startswith(f"{path}:4:10: error: custom op 'expo' is unknown")
    assert lines[0].endswith("did you mean 'exp'?")
    assert lines[1:] == ["    %e = expo %c : tile<4xf32>", "         ^"]


def test_prior_use_is_a_note_and_types_are_spelled_as_cuda_tile_writes_them() -> None:
    text = kernel("%d = addf %c, %c : tile<4xf32>\n    %e = addf %d, %d : tile<8xf32>")
    e = error_of(text)
    # MLIR's wording stays in `message` (NVIDIA's expected-error texts match it) ...
    assert "'!cuda_tile.tile<8xf32>' vs '!cuda_tile.tile<4xf32>'" in e.message
    # ... the rendering speaks cuda_tile.
    assert str(e).splitlines() == [
        "k.mlir:5:15: error: custom op 'cuda_tile.addf' use of value '%d' expects different "
        "type than prior uses: 'tile<8xf32>' vs 'tile<4xf32>'",
        "    %e = addf %d, %d : tile<8xf32>",
        "              ^",
        "k.mlir:4:5: note: prior use here",
        "    %d = addf %c, %c : tile<4xf32>",
        "    ^",
    ]


@pytest.mark.parametrize(
    ("body", "suggestion"),
    [
        ("%e = exp %c rounding<aprox> : tile<4xf32>", "did you mean 'approx'?"),
        ("%e = exp %c : tile<4xf3>", "did you mean 'f32'?"),
        ("%e = exp %c : tile<4xf33>", "did you mean 'f32'?"),  # a short name, one changed
        ("%e = exp %c : tilee<4xf32>", "did you mean 'tile'?"),
        ("%e = cuda_tile.exp %c : !cuda_tile.tilee<4xf32>", "did you mean 'cuda_tile.tile'?"),
        ("%e = cmpf less_thn ordered %c, %c : tile<4xf32> -> tile<4xi1>", "'less_than'?"),
        (
            "%e = cuda_tile.exp2f %c : tile<4xf32>",
            "did you mean 'cuda_tile.exp2' or 'cuda_tile.exp'?",
        ),
    ],
)
def test_misspelled_names_get_the_closest_registered_ones(body: str, suggestion: str) -> None:
    assert str(error_of(kernel(body))).splitlines()[0].endswith(suggestion)


def test_no_suggestion_where_nothing_is_close() -> None:
    assert did_you_mean("zzz", ["exp", "exp2"]) == ""
    assert did_you_mean("exp2f", ["exp", "exp2", "log"]) == "; did you mean 'exp2'?"


def test_a_bad_type_names_the_op_it_was_written_in() -> None:
    e = error_of(kernel("%t = constant <f32: 1.0> : tile<200xf32>"))
    assert e.message == (
        "custom op 'cuda_tile.constant' all dimensions must be powers of two, got 200"
    )


def test_unlocated_errors_read_as_their_message() -> None:
    assert str(CompileError("no such file: x")) == "no such file: x"
    located = CompileError("bad", SourceLocation("nowhere.mlir", 3, 2))
    assert str(located) == "nowhere.mlir:3:2: error: bad"  # no source to quote


def test_python_sources_are_quoted_at_cutile_columns(tmp_path: Path) -> None:
    """cuTile writes Python's 0-based `col_offset`; the caret goes under that column."""
    source = tmp_path / "kern.py"
    source.write_text("def k(x):\n    y = ct.transpose(x)\n")
    e = CompileError("'nv_tileas.shuffle' op needs ...", SourceLocation(str(source), 2, 8))
    assert str(e).splitlines()[1:] == ["    y = ct.transpose(x)", "        ^"]


def test_a_resource_limit_says_what_to_change() -> None:
    text = (CORPUS / "transpose_f32_2d.mlir").read_text()
    text = text.replace("tile=(32x64)", "tile=(128x256)").replace("tile=(64x32)", "tile=(256x128)")
    text = text.replace("tile<32x64xf32>", "tile<128x256xf32>")
    text = text.replace("tile<64x32xf32>", "tile<256x128xf32>")
    with pytest.raises(CompileError) as e:
        compile_module(parse_module_text(text, "transpose.mlir"), "sm_86")
    first, quoted, caret = str(e.value).splitlines()
    assert first.startswith("transpose.mlir:")
    assert (
        "'nv_tileas.shuffle' op exceeds the shared memory limit: an exchange (written as "
        "ct.transpose / ct.permute in cuTile: cuda_tile.permute) needs 132096 bytes"
    ) in first
    assert first.endswith(
        "make the tile smaller, or compile for a target with more shared memory per CTA"
    )
    assert "permute" in quoted and caret.strip() == "^"
    assert "not supported" not in first


def test_tileir_opt_prints_the_caret_and_the_note(tmp_path: Path) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(kernel("%d = addf %c, %c : tile<4xf32>\n    %e = addf %d, %d : tile<8xf32>"))
    for extra in ([], ["--split-input-file"]):
        proc = subprocess.run(
            [sys.executable, "-m", "tileir.driver.opt", str(path), *extra],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 1
        lines = proc.stderr.splitlines()
        assert lines[0].endswith("'tile<8xf32>' vs 'tile<4xf32>'"), lines
        assert lines[2] == "              ^"
        assert lines[3].endswith(":4:5: note: prior use here")
