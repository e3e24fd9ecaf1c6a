"""`--verify-diagnostics`: the diagnostics of a run checked against the `expected-*`
annotations written in its input, with the semantics of MLIR's
`SourceMgrDiagnosticVerifierHandler` (`mlir/lib/IR/Diagnostics.cpp`).

An annotation is a comment that names a diagnostic some line must produce:

    %1 = exti %0 signed : tile<i32> -> tile<i16>  // expected-error {{smaller or identical}}
    // expected-error@+1 {{...}}       the line below (`@-2`: two lines up)
    // expected-error@below {{...}}    the next line that holds no annotation
    // expected-error@above {{...}}    the previous line that holds no annotation
    // expected-error@unknown {{...}}  a diagnostic that has no source location
    // expected-error@#end {{...}}     the line marked `// #end` (clang's markers; not MLIR)
    // expected-error-re {{op #{{[0-9]+}} is bad}}

The kinds are `error`, `warning`, `note` and `remark`; without a designator the
annotation's own line is meant.  The expected text runs from the first `{{` to the last
`}}` of the line.  Without `-re` it must occur in the diagnostic's message as written
(`{{` inside it included).  With `-re`, text outside inner `{{ }}` is literal and each
`{{re}}` is a POSIX extended regular expression, and the whole is searched for in the
message.

Matching is MLIR's: a produced diagnostic (and each of its notes) matches an expectation
of the same file, line (the column does not count), kind and message.  A diagnostic that
matches none is an `unexpected error`; one that matches an expectation of another kind is
reported as such; an expectation nothing matched is `expected error "..." was not
produced`.  One difference: where several expectations match, an unmatched one is
preferred, so two identical annotations expect two diagnostics.

Everything here is pure: the driver (`tileir.driver.opt`) runs each `// -----` chunk,
turns what it raised into `Diagnostic`s and prints the `Mismatch`es this module returns.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from xdsl.utils.exceptions import MultipleSpansParseError, ParseError

from tileir.diagnostics import CompileError, SourceLocation
from tileir.frontend import parse_error

Severity = Literal["error", "warning", "note", "remark"]

SEVERITIES: tuple[Severity, ...] = ("error", "warning", "note", "remark")

#: MLIR's annotation syntax (`SourceMgrDiagnosticVerifierHandlerImpl::expected`), plus
#: clang's `@#marker` designator.  Searched in each line with trailing blanks removed.
ANNOTATION = re.compile(
    r"expected-(?P<severity>error|note|remark|warning)(?P<regex>-re)? *"
    r"(?:@(?P<designator>[+-][0-9]+|above|below|unknown|#[A-Za-z_][\w.$-]*))? *"
    r"\{\{(?P<text>.*)\}\}$"
)

#: A marker definition, clang style: a comment that starts with `#name`.
MARKER = re.compile(r"//\s*#(?P<name>[A-Za-z_][\w.$-]*)")

#: POSIX character classes that Python's `re` lacks, for `-re` annotations.
_POSIX_CLASSES = {
    "[:alnum:]": r"a-zA-Z0-9",
    "[:alpha:]": r"a-zA-Z",
    "[:blank:]": r" \t",
    "[:cntrl:]": r"\x00-\x1f\x7f",
    "[:digit:]": r"0-9",
    "[:graph:]": r"\x21-\x7e",
    "[:lower:]": r"a-z",
    "[:print:]": r"\x20-\x7e",
    "[:punct:]": r"!-/:-@\[-`{-~",
    "[:space:]": r" \t\n\r\f\v",
    "[:upper:]": r"A-Z",
    "[:xdigit:]": r"0-9A-Fa-f",
}


@dataclass(frozen=True)
class Diagnostic:
    """A diagnostic the tool produced: its kind, message, where (if known), and notes."""

    severity: Severity
    message: str
    location: SourceLocation | None = None
    notes: tuple[Diagnostic, ...] = ()

    def flattened(self) -> Iterator[Diagnostic]:
        """The diagnostic, then its notes, in the order MLIR's handler sees them."""
        yield self
        for note in self.notes:
            yield from note.flattened()


@dataclass(frozen=True)
class ExpectedDiagnostic:
    """One `expected-*` annotation."""

    severity: Severity
    text: str
    """The expected text as written between the outer `{{ }}`."""
    line: int | None
    """The line the diagnostic must be on; `None` for `@unknown`."""
    annotation: SourceLocation
    """Where the annotation itself is written (`expected-` starts there)."""
    pattern: re.Pattern[str] | None = field(default=None, compare=False)
    """For `-re` annotations, the compiled regular expression."""

    def matches(self, message: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(message) is not None
        return self.text in message


@dataclass(frozen=True)
class Mismatch:
    """A difference between what was expected and what was produced, reported as an error
    at `file:line:column` (the line or column left out where unknown)."""

    file: str
    line: int | None
    column: int | None
    message: str

    def format(self, source_line: str | None = None) -> str:
        """MLIR's form; with the source line, it is quoted with a caret under the column."""
        where = ":".join(
            str(part) for part in (self.file, self.line, self.column) if part is not None
        )
        text = f"{where}: error: {self.message}"
        if source_line is not None and self.column is not None:
            text += f"\n{source_line}\n{' ' * (self.column - 1)}^"
        return text

    @staticmethod
    def at(location: SourceLocation, message: str) -> Mismatch:
        return Mismatch(location.file, location.line, location.column, message)


def diagnostics_of(error: CompileError | ParseError) -> list[Diagnostic]:
    """The diagnostics an error carries: one, or one per error of an error that holds
    several in `errors` (as the frontend's `ParseErrors` does)."""
    several: Sequence[CompileError | ParseError] = getattr(error, "errors", None) or ()
    if several:
        return [d for inner in several for d in diagnostics_of(inner)]
    return [diagnostic_of(error)]


def diagnostic_of(error: CompileError | ParseError) -> Diagnostic:
    """The diagnostic an error carries.  A `ParseError` is located at its span (give it the
    chunk's `line_offset` first); its other spans (xDSL's `MultipleSpansParseError`) become
    notes.  A `CompileError` may carry a `severity` (default `error`) and `notes` (a
    sequence of `CompileError`s); both are read when present."""
    if isinstance(error, ParseError):
        notes: list[Diagnostic] = []
        if isinstance(error, MultipleSpansParseError):
            for span, message in error.refs:
                where = span.get_location()
                text = message or (error.ref_text or "").rstrip().rstrip(":") or "see here"
                notes.append(
                    Diagnostic("note", text, SourceLocation(where.file, where.line, where.col))
                )
        located = parse_error(error)
        return Diagnostic("error", located.message, located.location, tuple(notes))
    severity = getattr(error, "severity", "error")
    if severity not in SEVERITIES:
        severity = "error"
    notes = [replace(diagnostic_of(note), severity="note") for note in getattr(error, "notes", ())]
    return Diagnostic(severity, error.message, error.location, tuple(notes))


# ------------------------------------------------------------------ annotations


def parse_expectations(
    text: str, filename: str, line_offset: int = 0
) -> tuple[list[ExpectedDiagnostic], list[Mismatch]]:
    """The annotations of `text` (one `// -----` chunk, or a whole file), and the
    problems with them (a `-re` pattern that does not compile, an undefined marker).

    `line_offset` is the number of lines of the file before `text`: lines are reported
    as lines of the whole file, as MLIR reports them.  Annotation lines are
    "designator" lines: `@above` and `@below` skip them, and an `@below` with no line
    after it points at the last line.
    """
    lines = text.split("\n")
    markers, problems = _markers(lines, filename, line_offset)
    expectations: list[ExpectedDiagnostic] = []
    last_plain_line = 0  # 0-based index of the last line without an annotation
    waiting_for_next_line: list[int] = []  # indices into `expectations` of `@below`s
    for index, raw in enumerate(lines):
        found = ANNOTATION.search(raw.rstrip())
        if found is None:
            for waiting in waiting_for_next_line:
                expectations[waiting] = replace(expectations[waiting], line=index + 1 + line_offset)
            waiting_for_next_line.clear()
            last_plain_line = index
            continue
        where = SourceLocation(filename, index + 1 + line_offset, found.start() + 1)
        severity: Severity = found["severity"]  # pyright: ignore[reportAssignmentType]
        expected_text: str = found["text"]
        pattern = None
        if found["regex"]:
            pattern, error = compile_annotation_regex(expected_text)
            if pattern is None:
                problems.append(Mismatch.at(where, error))
                continue
        line: int | None = where.line
        designator: str | None = found["designator"]
        if designator is None:
            pass
        elif designator[0] in "+-":
            line = where.line + int(designator)
        elif designator == "unknown":
            line = None
        elif designator == "above":
            line = last_plain_line + 1 + line_offset
        elif designator == "below":
            waiting_for_next_line.append(len(expectations))
            line = len(lines) + line_offset  # if no line follows
        else:
            line = markers.get(designator[1:])
            if line is None:
                problems.append(Mismatch.at(where, f"use of undefined marker '{designator}'"))
                continue
        expectations.append(ExpectedDiagnostic(severity, expected_text, line, where, pattern))
    return expectations, problems


def _markers(
    lines: Sequence[str], filename: str, line_offset: int
) -> tuple[dict[str, int], list[Mismatch]]:
    """Clang-style markers: `// #name` makes `@#name` designate its line."""
    markers: dict[str, int] = {}
    problems: list[Mismatch] = []
    for index, raw in enumerate(lines):
        for found in MARKER.finditer(raw):
            name, line = found["name"], index + 1 + line_offset
            if name in markers:
                where = SourceLocation(filename, line, found.start("name"))
                problems.append(
                    Mismatch.at(where, f"marker '#{name}' already defined on line {markers[name]}")
                )
            else:
                markers[name] = line
    return markers, problems


def compile_annotation_regex(text: str) -> tuple[re.Pattern[str] | None, str]:
    """The regular expression of an `expected-*-re` text: literal outside `{{ }}`,
    POSIX extended regex inside (MLIR's `ExpectedDiag::computeRegex`).  Returns the
    pattern, or `None` and why it cannot be compiled."""
    parts: list[str] = []
    rest = text
    while rest:
        start = rest.find("{{")
        if start < 0:
            parts.append(re.escape(rest))
            break
        parts.append(re.escape(rest[:start]))
        rest = rest[start + 2 :]
        end = rest.find("}}")
        if end < 0:
            return None, "found start of regex with no end '}}'"
        fragment = _posix_to_python(rest[:end])
        try:
            re.compile(fragment)
        except re.error as e:
            return None, f"invalid regex: {e}"
        parts.append(f"({fragment})")
        rest = rest[end + 2 :]
    return re.compile("".join(parts)), ""


def _posix_to_python(regex: str) -> str:
    for posix, python in _POSIX_CLASSES.items():
        regex = regex.replace(posix, python)
    return regex


# --------------------------------------------------------------------- matching


def check_diagnostics(
    expected: Sequence[ExpectedDiagnostic],
    produced: Sequence[Diagnostic],
    filename: str,
    split_line: int = 1,
) -> list[Mismatch]:
    """Every mismatch between `expected` and `produced` (one chunk's worth of each), in
    the order MLIR reports them: each unexpected diagnostic as it comes, then each
    expectation nothing matched.  `split_line` is where the chunk starts, to report a
    diagnostic that has no location."""
    matched = [False] * len(expected)
    problems: list[Mismatch] = []
    for diagnostic in (d for top in produced for d in top.flattened()):
        problem = _process(diagnostic, expected, matched, filename, split_line)
        if problem is not None:
            problems.append(problem)
    for was_matched, expectation in zip(matched, expected, strict=True):
        if not was_matched:
            problems.append(
                Mismatch.at(
                    expectation.annotation,
                    f'expected {expectation.severity} "{expectation.text}" was not produced',
                )
            )
    return problems


def _process(
    diagnostic: Diagnostic,
    expected: Sequence[ExpectedDiagnostic],
    matched: list[bool],
    filename: str,
    split_line: int,
) -> Mismatch | None:
    """Match one diagnostic (MLIR's `SourceMgrDiagnosticVerifierHandler::process`)."""
    where = diagnostic.location
    if where is None:
        candidates = [i for i, e in enumerate(expected) if e.line is None]
    elif where.file == filename:
        candidates = [i for i, e in enumerate(expected) if e.line == where.line]
    else:  # a location in another file: no annotations there
        candidates = []
    same_text = [i for i in candidates if expected[i].matches(diagnostic.message)]
    same_kind = [i for i in same_text if expected[i].severity == diagnostic.severity]
    if same_kind:
        fresh = [i for i in same_kind if not matched[i]]
        matched[(fresh or same_kind)[0]] = True
        return None
    if same_text:
        near_miss = expected[same_text[-1]]
        return Mismatch.at(
            near_miss.annotation,
            f"'{diagnostic.severity}' diagnostic emitted when expecting a '{near_miss.severity}'",
        )
    unexpected = f"unexpected {diagnostic.severity}: {diagnostic.message}"
    if where is None:
        return Mismatch(
            filename,
            split_line,
            None,
            f"{unexpected} (the diagnostic has no source location; it comes from the "
            f"input starting at line {split_line})",
        )
    return Mismatch.at(where, unexpected)


def first_code_line(text: str, line_offset: int = 0) -> int:
    """The line of the first non-blank line of a chunk, counted in the whole file."""
    for index, raw in enumerate(text.split("\n")):
        if raw.strip():
            return index + 1 + line_offset
    return 1 + line_offset
