"""`tileir-opt --verify-diagnostics`: annotation parsing, matching and the driver's exit
codes, with MLIR's semantics (mlir/lib/IR/Diagnostics.cpp)."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import MultipleSpansParseError, ParseError, PassFailedException
from xdsl.utils.lexer import Input, Span

from tileir.diagnostics import CompileError, SourceLocation
from tileir.driver.opt import TileirOptMain
from tileir.driver.verify_diagnostics import (
    Diagnostic,
    ExpectedDiagnostic,
    Mismatch,
    check_diagnostics,
    compile_annotation_regex,
    diagnostic_of,
    first_code_line,
    parse_expectations,
)

BIN = Path(sys.executable).parent
FILE = "t.mlir"


def expectations(text: str, line_offset: int = 0) -> list[ExpectedDiagnostic]:
    found, problems = parse_expectations(text, FILE, line_offset)
    assert problems == []
    return found


def where(line: int, column: int = 1) -> SourceLocation:
    return SourceLocation(FILE, line, column)


def error(line: int | None, message: str, column: int = 3) -> Diagnostic:
    return Diagnostic("error", message, None if line is None else where(line, column))


# ------------------------------------------------------------------ annotations


def test_an_annotation_means_its_own_line() -> None:
    (e,) = expectations("a\n  %x = op // expected-error {{bad op}}\n")
    assert (e.severity, e.text, e.line) == ("error", "bad op", 2)
    assert e.annotation == where(2, 14)
    assert e.pattern is None


@pytest.mark.parametrize("severity", ["error", "warning", "note", "remark"])
def test_every_kind(severity: str) -> None:
    (e,) = expectations(f"// expected-{severity} {{{{m}}}}")
    assert e.severity == severity


@pytest.mark.parametrize(
    ("designator", "line"),
    [("@+1", 4), ("@+3", 6), ("@-2", 1), (" @+1", 4), ("@+1 ", 4)],
)
def test_relative_lines(designator: str, line: int) -> None:
    text = f"a\nb\n// expected-error{designator}{{{{m}}}}\nd\ne\nf\n"
    (e,) = expectations(text)
    assert e.line == line


def test_below_and_above_skip_annotation_lines() -> None:
    text = "\n".join(
        [
            "op1",  # 1
            "// expected-error@above {{first}}",  # 2
            "// expected-error@above {{second}}",  # 3
            "// expected-note@below {{third}}",  # 4
            "// expected-note@below {{fourth}}",  # 5
            "// a plain comment is a line like any other",  # 6
            "op2",  # 7
        ]
    )
    assert [e.line for e in expectations(text)] == [1, 1, 6, 6]


def test_below_with_nothing_after_it_names_the_last_line() -> None:
    (e,) = expectations("op\n// expected-error@below {{m}}")
    assert e.line == 2


def test_above_at_the_top_names_the_first_line() -> None:
    (e,) = expectations("// expected-error@above {{m}}\nop")
    assert e.line == 1


def test_unknown_location() -> None:
    (e,) = expectations("// expected-error@unknown {{m}}")
    assert e.line is None


def test_markers() -> None:
    text = "// expected-error@#here {{m}}\nop\nop // #here\n"
    (e,) = expectations(text)
    assert e.line == 3


def test_marker_problems() -> None:
    text = "op // #m\nop // #m\n// expected-error@#other {{x}}\n"
    found, problems = parse_expectations(text, FILE)
    assert found == []
    assert [(p.line, p.message) for p in problems] == [
        (2, "marker '#m' already defined on line 1"),
        (3, "use of undefined marker '#other'"),
    ]


def test_line_offset_gives_lines_of_the_whole_file() -> None:
    (e,) = expectations("\n// expected-error@+1 {{m}}\nop\n", line_offset=10)
    assert e.line == 13
    assert e.annotation == where(12, 4)


def test_text_runs_from_the_first_open_to_the_last_close() -> None:
    (e,) = expectations("// expected-error {{a {{b}} c}}  \n")
    assert e.text == "a {{b}} c"
    assert e.matches("x a {{b}} c y")  # without -re, braces are literal
    assert not e.matches("a b c")


def test_text_is_a_substring_not_a_regex() -> None:
    (e,) = expectations("// expected-error {{got (2) .*}}")
    assert e.matches("'op' got (2) .* here")
    assert not e.matches("got (2) anything")


@pytest.mark.parametrize(
    "line",
    [
        "// expected-error without braces",
        "// expected-error {{unterminated",
        "// expected-failure {{m}}",
        "// expected-error {{m}} trailing text",
        "// expected-error@+x {{m}}",
    ],
)
def test_not_annotations(line: str) -> None:
    assert expectations(line) == []


def test_regex_fragments() -> None:
    (e,) = expectations("// expected-error-re {{op #{{[0-9]+}} (of {{[[:digit:]]+}}) is bad}}")
    assert e.pattern is not None
    assert e.matches("'x' op #12 (of 3) is bad")
    assert not e.matches("op #a (of 3) is bad")
    assert not e.matches("op #1 of 3 is bad")  # parentheses outside {{ }} are literal


def test_regex_is_searched_not_anchored() -> None:
    pattern, _ = compile_annotation_regex("b{{.}}d")
    assert pattern is not None and pattern.search("abcde")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a {{b", "found start of regex with no end '}}'"),
        ("a {{(}}", "invalid regex: "),
    ],
)
def test_bad_regexes(text: str, problem: str) -> None:
    pattern, why = compile_annotation_regex(text)
    assert pattern is None and why.startswith(problem)
    found, problems = parse_expectations(f"op\n  // expected-error-re {{{{{text}}}}}", FILE)
    assert found == []
    assert [(p.line, p.column) for p in problems] == [(2, 6)]
    assert problems[0].message.startswith(problem)


# --------------------------------------------------------------------- matching


def test_all_matched() -> None:
    expected = expectations("op // expected-error {{bad}}\nop2 // expected-warning {{odd}}")
    produced = [error(1, "very bad"), Diagnostic("warning", "odd one", where(2))]
    assert check_diagnostics(expected, produced, FILE) == []


def test_unexpected_and_missing() -> None:
    expected = expectations("op\nop // expected-error {{bad}}")
    problems = check_diagnostics(expected, [error(1, "bad")], FILE)
    assert [p.format() for p in problems] == [
        "t.mlir:1:3: error: unexpected error: bad",
        't.mlir:2:7: error: expected error "bad" was not produced',
    ]


def test_the_column_does_not_count() -> None:
    expected = expectations("op // expected-error {{bad}}")
    assert check_diagnostics(expected, [error(1, "bad", column=40)], FILE) == []


def test_wrong_kind_is_a_near_miss() -> None:
    expected = expectations("op // expected-warning {{bad}}")
    problems = check_diagnostics(expected, [error(1, "bad")], FILE)
    assert [p.message for p in problems] == [
        "'error' diagnostic emitted when expecting a 'warning'",
        'expected warning "bad" was not produced',
    ]


def test_notes_are_matched_like_diagnostics() -> None:
    text = "op // expected-error {{bad}}\nop // expected-note {{see here}}"
    note = Diagnostic("note", "see here", where(2))
    produced = [Diagnostic("error", "bad", where(1), (note,))]
    assert check_diagnostics(expectations(text), produced, FILE) == []
    problems = check_diagnostics(expectations(text), [error(1, "bad")], FILE)
    assert [p.message for p in problems] == ['expected note "see here" was not produced']


def test_identical_annotations_expect_as_many_diagnostics() -> None:
    text = "op // expected-error {{bad}}\n// expected-error@above {{bad}}"
    expected = expectations(text)
    assert check_diagnostics(expected, [error(1, "bad"), error(1, "bad")], FILE) == []
    problems = check_diagnostics(expected, [error(1, "bad")], FILE)
    assert [p.line for p in problems] == [2]


def test_one_annotation_takes_repeated_diagnostics() -> None:
    # As in MLIR: a matched expectation still matches (the verifier may run twice).
    expected = expectations("op // expected-error {{bad}}")
    assert check_diagnostics(expected, [error(1, "bad"), error(1, "bad")], FILE) == []


def test_unknown_locations() -> None:
    expected = expectations("// expected-error@unknown {{lost}}")
    assert check_diagnostics(expected, [error(None, "lost")], FILE) == []
    (problem,) = check_diagnostics([], [error(None, "lost")], FILE, split_line=7)
    assert problem.format() == (
        "t.mlir:7: error: unexpected error: lost (the diagnostic has no source location; "
        "it comes from the input starting at line 7)"
    )
    # A located diagnostic does not match @unknown.
    problems = check_diagnostics(expected, [error(1, "lost")], FILE)
    assert len(problems) == 2


def test_a_diagnostic_in_another_file_is_unexpected() -> None:
    expected = expectations("op // expected-error {{bad}}")
    elsewhere = Diagnostic("error", "bad", SourceLocation("other.mlir", 1, 1))
    problems = check_diagnostics(expected, [elsewhere], FILE)
    assert [p.format() for p in problems] == [
        "other.mlir:1:1: error: unexpected error: bad",
        't.mlir:1:7: error: expected error "bad" was not produced',
    ]


def test_mismatch_quotes_the_source_line() -> None:
    assert Mismatch(FILE, 3, 5, "m").format("  x = y") == "t.mlir:3:5: error: m\n  x = y\n    ^"
    assert Mismatch(FILE, 3, None, "m").format("  x = y") == "t.mlir:3: error: m"


def test_first_code_line() -> None:
    assert first_code_line("\n\n  op\n", line_offset=4) == 7
    assert first_code_line("", line_offset=4) == 5


# ------------------------------------------------------- diagnostics of errors


def test_diagnostic_of_compile_error() -> None:
    assert diagnostic_of(CompileError("bad", where(3, 2))) == error(3, "bad", column=2)
    assert diagnostic_of(CompileError("bad")) == error(None, "bad")


def test_diagnostic_of_compile_error_with_severity_and_notes() -> None:
    e = CompileError("odd", where(1))
    e.severity = "warning"  # pyright: ignore[reportAttributeAccessIssue]
    e.notes = [CompileError("see here", where(2))]  # pyright: ignore[reportAttributeAccessIssue]
    assert diagnostic_of(e) == Diagnostic(
        "warning", "odd", where(1), (Diagnostic("note", "see here", where(2)),)
    )


def test_diagnostic_of_parse_errors() -> None:
    source = Input("abc\ndef\n", FILE)
    e = ParseError(Span(5, 6, source, line_offset=10), "bad token")
    assert diagnostic_of(e) == Diagnostic("error", "bad token", where(12, 2))
    multi = MultipleSpansParseError(
        Span(4, 5, source), "redefinition", "originally here:", [(Span(0, 1, source), None)]
    )
    assert diagnostic_of(multi) == Diagnostic(
        "error", "redefinition", where(2), (Diagnostic("note", "originally here", where(1)),)
    )


# ------------------------------------------------------------------ the driver

EXTI = """cuda_tile.module @m{n} {{
  entry @k() {{
    %c = constant <i32: 1> : tile<i32>
    %e = exti %c signed : tile<i32> -> tile<{ty}>{annotation}
    return
  }}
}}
"""


def chunk(n: int, ty: str = "i64", annotation: str = "") -> str:
    return EXTI.format(n=n, ty=ty, annotation=annotation)


NARROWING = " // expected-error {{extending to smaller or identical integer}}"


def opt(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "tileir-opt"), *args], capture_output=True, text=True, input=stdin
    )


def write(tmp_path: Path, *chunks: str) -> Path:
    path = tmp_path / "k.mlir"
    path.write_text("// -----\n".join(chunks))
    return path


def test_exit_0_when_every_chunk_matches(tmp_path: Path) -> None:
    path = write(tmp_path, chunk(0), chunk(1, "i16", NARROWING), chunk(2))
    proc = opt(str(path), "--split-input-file", "--verify-diagnostics")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.count("// -----") == 2
    assert "cuda_tile.module @m0" in proc.stdout and "cuda_tile.module @m2" in proc.stdout


def test_exit_1_when_one_chunk_mismatches_and_all_chunks_are_checked(tmp_path: Path) -> None:
    path = write(tmp_path, chunk(0, "i16"), chunk(1, "i16", NARROWING), chunk(2, "i64", NARROWING))
    proc = opt(str(path), "--split-input-file", "--verify-diagnostics")
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 2
    assert re.fullmatch(
        rf"{re.escape(str(path))}:4:\d+: error: unexpected error: 'cuda_tile.exti' op extending to smaller or identical integer",
        errors[0],
    )
    assert errors[1] == (
        f'{path}:20:53: error: expected error "extending to smaller or identical integer" was not produced'
    )
    assert "Traceback" not in proc.stderr


def test_parse_errors_are_diagnostics_at_whole_file_lines(tmp_path: Path) -> None:
    bad = chunk(1).replace("signed", "sideways")
    path = write(tmp_path, chunk(0), bad)
    proc = opt(str(path), "--split-input-file", "--verify-diagnostics")
    assert proc.returncode == 1
    assert f"{path}:12:" in proc.stderr and "unexpected error: " in proc.stderr
    # The same line without the flag.
    plain = opt(str(path), "--split-input-file")
    assert plain.returncode == 1 and f"{path}:12:" in plain.stderr
    annotated = bad.replace("tile<i64>\n", "tile<i64> // expected-error {{expected signedness}}\n")
    path = write(tmp_path, chunk(0), annotated)
    assert opt(str(path), "--split-input-file", "--verify-diagnostics").returncode == 0


def test_verifier_lines_without_the_flag_are_whole_file_lines(tmp_path: Path) -> None:
    path = write(tmp_path, chunk(0), chunk(1, "i16"))
    proc = opt(str(path), "--split-input-file")
    assert proc.returncode == 1
    assert re.match(
        rf"{re.escape(str(path))}:12:\d+: error: 'cuda_tile.exti' op extending", proc.stderr
    )


def test_parsing_diagnostics_alongside(tmp_path: Path) -> None:
    # The conformance harness passes both flags, as xdsl-opt needs them.
    path = write(tmp_path, chunk(0, "i16", NARROWING))
    proc = opt(str(path), "--verify-diagnostics", "--parsing-diagnostics")
    assert proc.returncode == 0, proc.stderr


def test_without_split_input_file(tmp_path: Path) -> None:
    path = write(tmp_path, chunk(0, "i16", NARROWING) + chunk(1))
    assert opt(str(path), "--verify-diagnostics").returncode == 0
    path = write(tmp_path, chunk(0, "i16") + chunk(1))
    assert opt(str(path), "--verify-diagnostics").returncode == 1


def test_stdin() -> None:
    proc = opt("--verify-diagnostics", stdin=chunk(0, "i16"))
    assert proc.returncode == 1
    assert re.match(r"stdin:4:\d+: error: unexpected error: 'cuda_tile.exti' op", proc.stderr)


def test_output_flags_still_work(tmp_path: Path) -> None:
    path = write(tmp_path, chunk(0), chunk(1, "i16", NARROWING))
    out = tmp_path / "out.mlir"
    proc = opt(
        str(path),
        "--split-input-file",
        "--verify-diagnostics",
        "--print-op-generic",
        "-o",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert '"cuda_tile.exti"' in out.read_text()


def test_a_wrong_expectation_fails_as_in_the_conformance_harness(tmp_path: Path) -> None:
    path = write(tmp_path, chunk(0, "i16", NARROWING.replace("{{", "{{tileir-mutation-check ")))
    assert opt(str(path), "--verify-diagnostics").returncode == 1


# In process: diagnostics raised by passes, located or not.


@dataclass(frozen=True)
class FailingPass(ModulePass):
    name = "test-fail-without-location"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise PassFailedException("the pass gave up")


@dataclass(frozen=True)
class BreakingPass(ModulePass):
    """Makes every `exti` extend to its own width, which its verifier rejects."""

    name = "test-break-exti"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if inner.name == "cuda_tile.exti":
                # The operand's type: an "extension" to the same width.
                inner.results[0]._type = inner.operands[0].type  # pyright: ignore[reportPrivateUsage]


def run_with_passes(
    path: Path, capsys: pytest.CaptureFixture[str], *passes: type[ModulePass]
) -> tuple[bool, str]:
    main = TileirOptMain(args=[str(path), "--verify-diagnostics"])
    for p in passes:
        main.register_pass(p.name, lambda p=p: p)
    main.args.passes = ",".join(p.name for p in passes)
    main.setup_pipeline()
    ok = main.run_verifying_diagnostics()
    return ok, capsys.readouterr().err


def test_a_diagnostic_without_location(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, chunk(0))
    ok, err = run_with_passes(path, capsys, FailingPass)
    assert not ok
    assert err.startswith(
        f"{path}:1: error: unexpected error: the pass gave up (the diagnostic has no source location"
    )
    path = write(tmp_path, "// expected-error@unknown {{gave up}}\n" + chunk(0))
    ok, err = run_with_passes(path, capsys, FailingPass)
    assert ok, err


def test_ir_a_pass_breaks_is_reported_at_the_broken_op(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, chunk(0))
    ok, err = run_with_passes(path, capsys, BreakingPass)
    assert not ok
    assert re.match(
        rf"{re.escape(str(path))}:4:\d+: error: unexpected error: 'cuda_tile.exti' op extending",
        err,
    )
    path = write(tmp_path, chunk(0, "i64", NARROWING))
    ok, err = run_with_passes(path, capsys, BreakingPass)
    assert ok, err
