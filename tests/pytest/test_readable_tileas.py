"""Readable nv_tileas (issue 19, item 3): layouts printed once as `#blocked = ...` aliases
and read back, and one name per value in every stage, from the CLI and the API alike."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import tileir
from tileir.display import ir_text
from tileir.driver import opt
from tileir.printing import TileirPrinter

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SOFTMAX = CORPUS / "softmax_f32_2d.tileirbc"


def unnamed(text: str) -> str:
    """`text` with every value name the same (the parser keeps only a name's base)."""
    return re.sub(r"%[\w$.-]+", "%v", text)


@pytest.fixture(scope="module")
def softmax() -> tileir.Compilation:
    return tileir.compile(SOFTMAX, arch="sm_90a", stop_after="llvm")


def test_layouts_are_aliases_defined_once_at_the_top(softmax: tileir.Compilation) -> None:
    text = softmax.tileas.text
    lines = text.splitlines()
    definitions = [line for line in lines if re.match(r"#\w+ = #nv_tileas\.", line)]
    assert definitions[0].startswith("#blocked = #nv_tileas.blocked<{sizePerThread = ")
    assert "#slice = #nv_tileas.slice<{dim = 1, parent = #blocked}>" in definitions
    assert lines[: len(definitions)] == definitions  # all of them before the module
    body = lines[len(definitions) :]
    assert not any("#nv_tileas.blocked<" in line or "#nv_tileas.slice<" in line for line in body)
    assert "tensor<16x64xf32, #blocked>" in text
    # No op line needs horizontal scrolling any more (the kernel's signature may).
    assert max(len(line) for line in body if not line.lstrip().startswith("func.func")) < 300


def test_aliases_parse_back(softmax: tileir.Compilation) -> None:
    """The aliased text reads back to the same IR: printed in place, the two agree but
    for value names (the parser keeps a name's base, `%reduce` of `%reduce_10`), and the
    text of the module read back reads back to itself."""
    text = softmax.tileas.text
    module = tileir.load(text, name="tileas.mlir")
    assert softmax.tileas.module is not None

    original = ir_text(softmax.tileas.module, local_scope=True)
    assert unnamed(ir_text(module, local_scope=True)) == unnamed(original)
    again = ir_text(module)
    assert again.splitlines()[:3] == text.splitlines()[:3]  # the alias definitions
    assert ir_text(tileir.load(again)) == again


def test_local_scope_prints_layouts_in_place(softmax: tileir.Compilation) -> None:
    module = softmax.tileas.module
    assert module is not None
    import io

    out = io.StringIO()
    TileirPrinter(stream=out, local_scope=True).print_op(module)
    assert "#blocked" not in out.getvalue()
    assert "#nv_tileas.slice<{dim = 1, parent = #nv_tileas.blocked<{" in out.getvalue()
    assert tileir.load(out.getvalue()) is not None


def test_a_value_keeps_its_cuda_tile_name_in_every_stage(softmax: tileir.Compilation) -> None:
    """The row maximum is `%reduce` and the row sum `%reduce_10` in the cuda_tile text;
    so they are in tileaa and tileas, the loaded tile `%tile` and the block id
    `%blockId_x` too."""
    for stage in ("cuda_tile", "tileaa", "tileas"):
        text = softmax.stage(stage).text
        for name in ("%reduce ", "%reduce_10 ", "%tile", "%bcast_12 ", "%blockId_x"):
            assert f"{name}" in text, (stage, name)
    assert "%blockId_x" in softmax.llvm.text


def test_the_cli_prints_the_names_the_api_prints(
    softmax: tileir.Compilation, capsys: pytest.CaptureFixture[str]
) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tileir.driver.assembler", str(SOFTMAX), "--emit=tileas"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == softmax.tileas.text
    # tileir-opt running the passes itself names values the same way.
    assert opt.run([str(SOFTMAX), "-p", "cuda-tile-to-ptx"]) == 0
    assert "%blockId_x" in capsys.readouterr().out  # the llvm stage keeps it too


def test_long_signatures_are_wrapped_and_read_back(softmax: tileir.Compilation) -> None:
    """A cuTile kernel's signature (four to eight parameters per array) was the longest
    line of every stage after cuda_tile; wrapped at `SIGNATURE_WIDTH`, packed, it reads
    back to the same IR.  tileir-opt keeps one line per op (FileCheck)."""
    from tileir.printing import SIGNATURE_WIDTH

    text = softmax.tileas.text
    header = text[text.index("func.func @") : text.index("{\n", text.index("attributes"))]
    lines = header.splitlines()
    assert len(lines) > 2 and lines[0].endswith("(")
    assert all(len(line) <= SIGNATURE_WIDTH for line in lines[1:])  # the name alone may not
    assert all(line.startswith("      ") for line in lines[1:])  # four columns in
    assert any(line.lstrip().startswith("attributes {nv_tileas.kernel") for line in lines)
    module = tileir.load(text)
    assert ir_text(module) == text
    import io

    plain = io.StringIO()
    TileirPrinter(stream=plain).print_op(module)  # no width: tileir-opt's one-line form
    out = plain.getvalue()
    assert re.search(r"func\.func @softmax\w*\(%arg0: [^\n]*%arg9: i32\) attributes \{", out)


def test_wide_stages_of_the_corpus_fit_but_for_names(softmax: tileir.Compilation) -> None:
    """Every line of a corpus kernel's tileaa and tileas signature fits the width; a
    mangled kernel name longer than it stays whole."""
    from tileir.printing import SIGNATURE_WIDTH

    for stage in ("tileaa", "tileas"):
        text = softmax.stage(stage).text
        start = text.index("func.func @")
        for line in text[start : text.index("\n    %", start)].splitlines()[1:]:
            assert len(line) <= SIGNATURE_WIDTH, (stage, line)


#: Kernels whose tileas lines were the longest (up to 547 columns): a dot with its feed
#: clauses and a ring (gemm_e4m3_scaled), loops with many iteration arguments, 4-D
#: tiled loads (attention_heads_f16), a block-scaled dot, a warp-specialized loop (its
#: agents, and the empty `async.wait` that drains it before the next op's results).
WIDE = (
    "gemm_e4m3_scaled",
    "batched_matmul_f16",
    "attention_heads_f16",
    "block_scaled_mm_e4m3",
    "gemm_f16",
)


@pytest.mark.parametrize("kernel", WIDE)
def test_every_tileas_line_fits_and_reads_back(kernel: str) -> None:
    """`--emit=tileas` wraps a line longer than `LINE_WIDTH` where MLIR's syntax allows
    (only a kernel's mangled name may pass it, on a line of its own after `func.func`
    when the header would pass the width, and a string no break may split, alone on its
    line: an entry of a dot's `nv_tileas.operand_feed`), and the wrapped text reads back to the
    same IR: printed again it is the same text, and printed on one line per op it is
    the unwrapped text (but for value names, which the parser keeps only the base of)."""
    from tileir.printing import LINE_WIDTH

    compiled = tileir.compile(CORPUS / f"{kernel}.tileirbc", arch="sm_90a", stop_after="tileas")
    text = compiled.tileas.text
    long = [line for line in text.splitlines() if len(line) > LINE_WIDTH]
    unbreakable = re.compile(r' {6}@\w+\(| +"[^"]*",?\]?')
    assert all(unbreakable.fullmatch(line) for line in long), long
    if kernel == "attention_heads_f16":  # `  func.func @attention...(` was 122 columns
        assert not long and re.search(r"^  func\.func\n {6}@attention_heads_f16_\w+\($", text, re.M)
    module = tileir.load(text, name=f"{kernel}.mlir")
    assert ir_text(module) == text
    assert compiled.tileas.module is not None

    one_line = ir_text(compiled.tileas.module, line_width=None)
    assert max(len(line) for line in one_line.splitlines()) > 2 * LINE_WIDTH  # it did wrap
    assert unnamed(ir_text(module, line_width=None)) == unnamed(one_line)


def test_a_line_breaks_between_tokens_never_in_a_string() -> None:
    from tileir.printing import wrap_line

    line = '    %d = op %a, %b {feed = ["' + "x" * 60 + '", "' + "y" * 60 + '"]} : t1, t2 -> t3'
    pieces = wrap_line(line, 80)
    assert " ".join(p.strip() for p in pieces).replace("[ ", "[") == line.strip()
    assert all(p.startswith("        ") for p in pieces[1:])  # four columns deeper
    assert all(p.count('"') % 2 == 0 for p in pieces)  # no string split
    assert wrap_line('  "' + "z" * 100 + '"', 40) == ['  "' + "z" * 100 + '"']  # cannot break


def test_an_ops_results_stay_together_and_a_header_breaks_between_tokens() -> None:
    """A loop whose `iter_args(` list would pass the width breaks before it (any space
    between tokens, where no list or type break fits), never among the loop's results
    (`%for, %107,` then `%108 = scf.for ...` hid the op)."""
    from tileir.printing import wrap_line

    line = (
        "      %for, %107, %108 = scf.for %loopIdx = %cst_0_i32_0 to %arg15 step %cst_1_i32_22_0 "
        "iter_args(%iterArg0 = %cst_0_f32, %109 = %3, %110 = %106) -> (tensor<64x32xf32>, i32) "
        ": i32 {"
    )
    pieces = wrap_line(line, 100)
    assert pieces[0] == (
        "      %for, %107, %108 = scf.for %loopIdx = %cst_0_i32_0 to %arg15 step %cst_1_i32_22_0"
    )
    assert pieces[1].startswith("          iter_args(%iterArg0 = %cst_0_f32, ")
    assert " ".join(p.strip() for p in pieces) == line.strip()
    assert all(len(p) <= 100 for p in pieces)


ASSEMBLER = (sys.executable, "-m", "tileir.driver.assembler", "--gpu-name", "sm_90a")


def test_the_line_width_is_the_cli_s_to_choose() -> None:
    """`tileir-as --line-width 0` prints one line per op (for FileCheck), as tileir-opt
    does; a negative width is refused with what to give instead."""

    def emit(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*ASSEMBLER, str(CORPUS / "gemm_e4m3_scaled.tileirbc"), "--emit=tileas", *flags],
            capture_output=True,
            text=True,
        )

    wrapped, one_line = emit().stdout, emit("--line-width", "0").stdout
    assert max(map(len, wrapped.splitlines())) <= 120 < max(map(len, one_line.splitlines()))

    def spaced(text: str) -> str:
        return re.sub(r"\[ ", "[", re.sub(r"\s+", " ", text))

    assert spaced(wrapped) == spaced(one_line)  # only where lines break differs
    refused = emit("--line-width", "-1")
    assert refused.returncode != 0
    assert "expected a number of columns, 0 or more (0: never wrap)" in refused.stderr


def test_a_loop_s_registers_keep_the_names_of_its_values() -> None:
    """A loop-carried tile is one block argument per register in the llvm stage, each
    named as the loop's argument was (`%iterArg0` of cuda_tile and nv_tileas), with the
    register's index (`%iterArg0.0`)."""
    compiled = tileir.compile(CORPUS / "row_sum_loop_f32.tileirbc", arch="sm_80", stop_after="llvm")
    assert re.search(r"iter_args\(%iterArg0 = %\w+,\s+%iterArg1 = ", compiled.tileas.text)
    header = re.search(r"\^bb\d+\(%loopIdx: i32, ([^)]*)\):", compiled.llvm.text)
    assert header is not None
    names = re.findall(r"%([\w$.]+): f32", header.group(1))
    assert names[:2] == ["iterArg0.0", "iterArg0.1"] and "iterArg1.0" in names
