"""Showing IR, diffs, ptxas reports, layouts and launch results in Jupyter.

Everything here renders twice: `_repr_html_` (highlighted with pygments where it is
installed, a plain `<pre>` otherwise) and `_repr_markdown_` (fenced code blocks and
tables), so notebooks, `nbconvert` and plain terminals (`str()`) all show something
readable.  IR text always comes from tileir's printer (xDSL's, with NVIDIA's
prefix-free cuda_tile syntax), never from a second printer.

xDSL's own objects (`Operation`, `ModuleOp`) have no rich display; importing
`tileir.api` inside IPython registers HTML and markdown formatters for them
(`register_ipython_formatters`), so a module or op left as a cell's last value is shown
highlighted.
"""

from __future__ import annotations

import difflib
import functools
import html
import io
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xdsl.ir import Operation

if TYPE_CHECKING:
    from tileir.dialects.nv_tileas.layouts import LinearLayout

#: Texts longer than this are shown without highlighting (it makes pages ten times larger).
HIGHLIGHT_LINES = 1500

#: How many lines of each stage a compilation's overview shows (a stage shows all).
PREVIEW_LINES = 200


def preview(text: str, lines: int = PREVIEW_LINES, more: str = "") -> str:
    """The first `lines` lines of `text`, and how many were left out."""
    kept = text.splitlines()
    if len(kept) <= lines:
        return text
    return "\n".join(kept[:lines]) + f"\n// ... {len(kept) - lines} more lines{more}\n"


_BLOCK_STYLE = (
    "max-height:32em;overflow:auto;font-size:12px;line-height:1.35;"
    "background:#f8f8f8;padding:6px;margin:0"
)


# ---------------------------------------------------------------------------
# Text of IR and highlighting
# ---------------------------------------------------------------------------


def ir_text(op: Operation, *, local_scope: bool = False, line_width: int | None = -1) -> str:
    """The text of `op` as tileir prints it (cuda_tile without prefixes inside
    `cuda_tile.module`, nv_tileas/nv_tileaa in their custom forms, layouts as
    `#blocked` aliases unless `local_scope`, long signatures wrapped, and lines longer
    than `line_width` (default `LINE_WIDTH`; None: one line per op, as `tileir-opt` and
    mlir-opt print it, and FileCheck patterns read it)."""
    from tileir.printing import LINE_WIDTH, SIGNATURE_WIDTH, TileirPrinter

    out = io.StringIO()
    TileirPrinter(
        stream=out,
        local_scope=local_scope,
        width=SIGNATURE_WIDTH,
        line_width=LINE_WIDTH if line_width == -1 else line_width,
    ).print_op(op)
    return out.getvalue().rstrip("\n") + "\n"


def op_counts(op: Operation) -> Counter[str]:
    """How many ops of each name `op` holds (itself included)."""
    return Counter(o.name for o in op.walk())


def _mlir_lexer() -> Any:
    """A pygments lexer for MLIR text (pygments has none); None without pygments."""
    try:
        from pygments.lexer import RegexLexer
        from pygments.token import (
            Comment,
            Keyword,
            Name,
            Number,
            String,
            Text,
        )
    except ImportError:
        return None

    class MlirLexer(RegexLexer):
        """MLIR's generic and custom syntax: SSA values, symbols, attributes, types,
        op names and literals."""

        name = "MLIR"
        aliases = ["mlir"]
        tokens = {
            "root": [
                (r"\s+", Text),
                (r"//.*?$", Comment.Single),
                (r'"(\\\\|\\"|[^"])*"', String),
                (r"%[\w$.#:]+", Name.Variable),
                (r"\^[\w$.]+", Name.Label),
                (r"@[\w$.]+", Name.Function),
                (r"#[\w$.]+", Name.Constant),
                (r"![\w$.]+", Keyword.Type),
                (
                    r"(tile|ptr|token|tensor_view|partition_view|tensor|vector|memref|"
                    r"[iuf]\d+|bf16|tf32|f8E4M3FN|f8E5M2|index)(?=[<>,)\s]|$)",
                    Keyword.Type,
                ),
                (r"[a-z_][\w$]*\.[\w$.]+", Name.Builtin),  # dialect.op
                (r"-?0x[0-9a-fA-F]+", Number.Hex),
                (r"-?\d+\.\d*([eE][-+]?\d+)?", Number.Float),
                (r"-?\d+", Number.Integer),
                # Punctuation stays unstyled: no <span> for every comma keeps pages small.
                (r"->|=|:|[{}()\[\]<>,]", Text),
                (r"[A-Za-z_][\w$]*", Text),
                (r".", Text),
            ]
        }

    return MlirLexer()


_LANGUAGES = ("mlir", "ptx", "diff", "text")


def highlight_html(text: str, language: str = "mlir") -> str:
    """`text` as an HTML block, highlighted when pygments is available; colours are
    inline, so the block renders the same without any stylesheet."""
    if language not in _LANGUAGES:
        raise ValueError(f"unknown language '{language}'; expected one of {', '.join(_LANGUAGES)}")
    plain = f'<style>{_LINE_CSS}</style><pre class="{_CSS_CLASS}" style="{_BLOCK_STYLE}">'
    if text.count("\n") > HIGHLIGHT_LINES:
        # Highlighting multiplies the size of the page by ten; long texts stay plain.
        return plain + _soft_wrapped(html.escape(text)) + "</pre>"
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name
    except ImportError:
        return plain + _soft_wrapped(html.escape(text)) + "</pre>"
    lexer = _mlir_lexer() if language == "mlir" else get_lexer_by_name(language)
    formatter = HtmlFormatter(nowrap=True, style="default")
    body = highlight(text, lexer, formatter)
    return (
        f"<style>{_pygments_css()}\n{_LINE_CSS}</style>"
        f'<pre class="{_CSS_CLASS}" style="{_BLOCK_STYLE}">{_soft_wrapped(body)}</pre>'
    )


def _soft_wrapped(body: str) -> str:
    """The lines of an HTML-escaped (or highlighted) block, each in a `.ln` span whose
    wrapped continuation hangs under its indentation (`_LINE_CSS`)."""
    out = []
    for line in body.split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        level = min(indent - indent % 2, _MAX_HANGING_INDENT)
        out.append(f'<span class="ln i{level}">{line or " "}</span>')
    if out and out[-1] == '<span class="ln i0"> </span>':
        out.pop()  # the text's final newline
    return "".join(out)


#: The class scoping highlighting rules, so they cannot restyle the rest of a page.
_CSS_CLASS = "tileir-code"

#: The deepest indentation (in spaces) a wrapped line's continuation follows.
_MAX_HANGING_INDENT = 24

#: Each line of a block is a block of its own that wraps instead of scrolling, its
#: continuation lines four columns deeper than the line's own indentation (`.iN`: N
#: leading spaces): an nv_tileas op of 300 columns reads without horizontal scrolling,
#: and the text itself (what `.text` and the CLI give) keeps one line per op.
_LINE_CSS = (
    f".{_CSS_CLASS} .ln{{display:block;white-space:pre-wrap;overflow-wrap:anywhere}}"
    + "".join(
        f".{_CSS_CLASS} .i{n}{{padding-left:{n + 4}ch;text-indent:-{n + 4}ch}}"
        for n in range(0, _MAX_HANGING_INDENT + 1, 2)
    )
)


@functools.cache
def _pygments_css() -> str:
    from pygments.formatters import HtmlFormatter

    rules = HtmlFormatter(style="default").get_style_defs(f".{_CSS_CLASS}")
    # Only token rules: the formatter's own background and line-number rules would
    # fight the block style.
    return "\n".join(line for line in rules.splitlines() if f".{_CSS_CLASS} ." in line)


def _markdown_block(text: str, language: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{language if language != 'text' else ''}\n{text.rstrip()}\n{fence}\n"


def _md_cell(value: object) -> str:
    return str(value).replace("|", "\\|")


def _md_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(_md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _html_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    head = "".join(f"<th style='text-align:left'>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


@dataclass
class IRView:
    """A piece of text (IR or PTX) that renders highlighted; `str()` is the text."""

    text: str
    language: str = "mlir"
    title: str | None = None

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<IRView {self.title or self.language}: {self.text.count(chr(10))} lines>"

    def _repr_html_(self) -> str:
        title = f"<b>{html.escape(self.title)}</b>" if self.title else ""
        return title + highlight_html(self.text, self.language)

    def _repr_markdown_(self) -> str:
        title = f"**{self.title}**\n\n" if self.title else ""
        return title + _markdown_block(self.text, self.language)


def show(obj: Operation | str, title: str | None = None) -> IRView:
    """A displayable view of an op (any op, printed by tileir's printer) or of text
    (PTX when it looks like PTX, MLIR otherwise)."""
    if isinstance(obj, Operation):
        return IRView(ir_text(obj), "mlir", title or obj.name)
    language = "ptx" if re.search(r"^\s*\.version\s", obj, re.M) else "mlir"
    return IRView(obj, language, title)


# ---------------------------------------------------------------------------
# Diffs
# ---------------------------------------------------------------------------


@dataclass
class IRDiff:
    """What changed between two versions of some IR: the op-count delta (which ops a
    pass created and removed) and the line diff of the printed text."""

    before: str
    after: str
    before_ops: Counter[str]
    after_ops: Counter[str]
    title: str = "diff"
    context: int = 2

    @property
    def changed_ops(self) -> dict[str, tuple[int, int]]:
        """op name -> (count before, count after), for every op whose count changed."""
        names = sorted(set(self.before_ops) | set(self.after_ops))
        return {
            n: (self.before_ops[n], self.after_ops[n])
            for n in names
            if self.before_ops[n] != self.after_ops[n]
        }

    @property
    def unified(self) -> str:
        """The unified diff of the two texts (empty when they are equal)."""
        lines = difflib.unified_diff(
            self.before.splitlines(),
            self.after.splitlines(),
            "before",
            "after",
            n=self.context,
            lineterm="",
        )
        return "\n".join(lines)

    @property
    def changed_lines(self) -> tuple[int, int]:
        """(lines removed, lines added)."""
        removed = added = 0
        for line in self.unified.splitlines()[2:]:
            if line.startswith("-"):
                removed += 1
            elif line.startswith("+"):
                added += 1
        return removed, added

    def __bool__(self) -> bool:
        return self.before != self.after

    def summary(self) -> str:
        if not self:
            return "no change"
        removed, added = self.changed_lines
        parts = [f"-{removed}/+{added} lines"]
        for name, (b, a) in self.changed_ops.items():
            parts.append(f"{name} {b}→{a}")
        return "; ".join(parts)

    def __str__(self) -> str:
        return f"{self.title}: {self.summary()}\n{self.unified}"

    def __repr__(self) -> str:
        return f"<IRDiff {self.title}: {self.summary()}>"

    def _op_rows(self) -> list[tuple[str, int, int, str]]:
        return [(n, b, a, f"{a - b:+d}") for n, (b, a) in self.changed_ops.items()]

    def _head(self) -> str:
        """The title and the changed lines; op counts go in the table below it (not both)."""
        if not self:
            return "no change"
        removed, added = self.changed_lines
        ops = len(self.changed_ops)
        kinds = f", {ops} op kind{'s' if ops != 1 else ''} changed in number" if ops else ""
        return f"-{removed}/+{added} lines{kinds}"

    def _repr_html_(self) -> str:
        head = f"<b>{html.escape(self.title)}</b>: {html.escape(self._head())}"
        if not self:
            return head
        table = _html_table(("op", "before", "after", "change"), self._op_rows())
        return head + (table if self.changed_ops else "") + word_diff_html(self.unified)

    def _repr_markdown_(self) -> str:
        head = f"**{self.title}**: {self._head()}\n\n"
        if not self:
            return head
        table = _md_table(("op", "before", "after", "change"), self._op_rows())
        body = (table + "\n") if self.changed_ops else ""
        return head + body + _markdown_block(self.unified, "diff")


#: Words of a line for the word-level diff: identifiers and numbers (`ldg_128b`,
#: `%tile`, `#blocked1`) whole, everything else one character at a time.
_WORD = re.compile(r"[%#@!^]?[\w.$-]+|\s+|.")

_DIFF_STYLES = {
    "-": ("#ffeef0", "#fdb8c0"),  # line background, changed-word background
    "+": ("#e6ffed", "#acf2bd"),
    " ": ("", ""),
}


def word_diff_html(unified: str) -> str:
    """A unified diff as HTML in which each removed line that was rewritten as an added
    one (paired in order within a run of `-` then `+` lines) has its changed words
    highlighted, as code review tools show them: an `ldg_128b -> ldg_64b` change stands
    out of a 300-character line."""
    lines = unified.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(("---", "+++")) or not line or line[0] not in "-+":
            out.append(_diff_line(line))
            i += 1
            continue
        removed: list[str] = []
        while i < len(lines) and lines[i].startswith("-") and not lines[i].startswith("---"):
            removed.append(lines[i][1:])
            i += 1
        added: list[str] = []
        while i < len(lines) and lines[i].startswith("+") and not lines[i].startswith("+++"):
            added.append(lines[i][1:])
            i += 1
        paired = min(len(removed), len(added))
        marked = [_mark_words(removed[k], added[k]) for k in range(paired)]
        out += [_styled("-", m[0]) for m in marked]
        out += [_diff_line("-" + text) for text in removed[paired:]]
        out += [_styled("+", m[1]) for m in marked]
        out += [_diff_line("+" + text) for text in added[paired:]]
    body = "".join(out)
    return f"<pre style='white-space:pre;overflow-x:auto;line-height:1.3'>{body}</pre>"


def _mark_words(before: str, after: str) -> tuple[str, str]:
    """The two lines as HTML, the words that differ between them highlighted."""
    a, b = _WORD.findall(before), _WORD.findall(after)
    old: list[str] = []
    new: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        left, right = html.escape("".join(a[i1:i2])), html.escape("".join(b[j1:j2]))
        if tag == "equal":
            old.append(left)
            new.append(right)
            continue
        if left:
            old.append(f"<span style='background:{_DIFF_STYLES['-'][1]}'>{left}</span>")
        if right:
            new.append(f"<span style='background:{_DIFF_STYLES['+'][1]}'>{right}</span>")
    return "".join(old), "".join(new)


def _styled(sign: str, marked: str) -> str:
    background = _DIFF_STYLES[sign][0]
    return f"<div style='background:{background}'>{sign}{marked}</div>"


def _diff_line(line: str) -> str:
    sign = line[0] if line and line[0] in "-+" and not line.startswith(("---", "+++")) else " "
    background = _DIFF_STYLES[sign][0]
    style = f" style='background:{background}'" if background else ""
    return f"<div{style}>{html.escape(line) or '&nbsp;'}</div>"


def diff_texts(
    before: str,
    after: str,
    before_ops: Counter[str] | None = None,
    after_ops: Counter[str] | None = None,
    title: str = "diff",
) -> IRDiff:
    return IRDiff(before, after, before_ops or Counter(), after_ops or Counter(), title)


# ---------------------------------------------------------------------------
# ptxas
# ---------------------------------------------------------------------------


@dataclass
class KernelResources:
    """What `ptxas -v` reports for one kernel."""

    name: str
    registers: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    stack_frame: int = 0
    shared_memory: int = 0
    barriers: int = 0


@dataclass
class PtxasReport:
    """ptxas's verdict on some PTX: whether it assembled, and each kernel's registers,
    spills, stack and shared memory."""

    arch: str
    ok: bool
    output: str
    kernels: list[KernelResources] = field(default_factory=list[KernelResources])

    ROWS = ("registers", "spill_stores", "spill_loads", "stack_frame", "shared_memory", "barriers")

    def _rows(self) -> list[tuple[object, ...]]:
        return [(k.name, *(getattr(k, r) for r in self.ROWS)) for k in self.kernels]

    def _header(self) -> tuple[str, ...]:
        return (
            "kernel",
            "registers",
            "spill stores (B)",
            "spill loads (B)",
            "stack (B)",
            "smem (B)",
            "barriers",
        )

    def __str__(self) -> str:
        status = "ok" if self.ok else "REJECTED"
        lines = [f"ptxas -arch={self.arch}: {status}"]
        for k in self.kernels:
            lines.append(
                f"  {k.name}: {k.registers} registers, {k.spill_stores} B spill stores, "
                f"{k.spill_loads} B spill loads, {k.stack_frame} B stack, "
                f"{k.shared_memory} B smem"
            )
        if not self.ok:
            lines.append(self.output)
        return "\n".join(lines)

    def __repr__(self) -> str:
        kernels = ", ".join(f"{k.name}: {k.registers} registers" for k in self.kernels)
        return f"<PtxasReport {self.arch} {'ok' if self.ok else 'rejected'}: {kernels}>"

    def _repr_html_(self) -> str:
        status = "ok" if self.ok else "<span style='color:#b00'>rejected</span>"
        out = f"<b>ptxas -arch={html.escape(self.arch)} -v</b>: {status}"
        out += _html_table(self._header(), self._rows())
        if not self.ok:
            out += highlight_html(self.output, "text")
        return out

    def _repr_markdown_(self) -> str:
        status = "ok" if self.ok else "**rejected**"
        out = f"**ptxas -arch={self.arch} -v**: {status}\n\n" + _md_table(
            self._header(), self._rows()
        )
        if not self.ok:
            out += "\n" + _markdown_block(self.output, "text")
        return out


_RESOURCE_PATTERNS = {
    "registers": r"Used (\d+) registers",
    "spill_stores": r"(\d+) bytes spill stores",
    "spill_loads": r"(\d+) bytes spill loads",
    "stack_frame": r"(\d+) bytes stack frame",
    "shared_memory": r"(\d+) bytes smem",
    "barriers": r"used (\d+) barriers",
}


def parse_ptxas_output(text: str) -> list[KernelResources]:
    """The per-kernel resources in `ptxas -v` output."""
    kernels: list[KernelResources] = []
    current: KernelResources | None = None
    for line in text.splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?([\w$.]+)'?", line)
        if m:
            name = m.group(1)
            found = [k for k in kernels if k.name == name]
            current = found[0] if found else KernelResources(name)
            if not found:
                kernels.append(current)
            continue
        if current is None:
            continue
        for attr, pattern in _RESOURCE_PATTERNS.items():
            m = re.search(pattern, line)
            if m:
                setattr(current, attr, int(m.group(1)))
    return kernels


def ptxas_report(ptx: str, arch: str) -> PtxasReport:
    """Assemble `ptx` with `ptxas -arch=<arch> -v` and read its resource report.
    FileNotFoundError when there is no ptxas (install the `nvidia-cuda-nvcc` wheel)."""
    from tileir.backend.ptx.ptxas import run_ptxas

    result = run_ptxas(ptx, arch)
    return PtxasReport(arch, result.ok, result.output, parse_ptxas_output(result.output))


# ---------------------------------------------------------------------------
# Launch results
# ---------------------------------------------------------------------------


@dataclass
class Comparison:
    """Outputs of several runs of one kernel checked against a reference, with their
    times: one row per (run, output)."""

    rows: list[tuple[str, str, float, bool, float | None]]
    rtol: float
    atol: float

    @property
    def ok(self) -> bool:
        return all(row[3] for row in self.rows)

    def _table(self) -> tuple[tuple[str, ...], Sequence[tuple[object, ...]]]:
        header = (
            "run",
            "output",
            "max |error|",
            f"allclose (rtol={self.rtol:g}, atol={self.atol:g})",
            "time (ms)",
        )
        rows = [
            (run, out, f"{err:.3g}", "yes" if ok else "NO", "" if t is None else f"{t * 1e3:.3f}")
            for run, out, err, ok, t in self.rows
        ]
        return header, rows

    def __str__(self) -> str:
        header, rows = self._table()
        widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
        return "\n".join(
            "  ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True))
            for line in [header, *rows]
        )

    def __repr__(self) -> str:
        return f"<Comparison of {len(self.rows)} outputs: {'all match' if self.ok else 'MISMATCH'}>"

    def _repr_html_(self) -> str:
        return _html_table(*self._table())

    def _repr_markdown_(self) -> str:
        return _md_table(*self._table())

    def plot(self, ax: Any = None) -> Any:
        """A bar chart of the runs' times (matplotlib); returns the axes."""
        import matplotlib.pyplot as plt

        times: dict[str, float] = {}
        for run, _, _, _, t in self.rows:
            if t is not None:
                times[run] = t * 1e3
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 2.5))
        ax.barh(list(times), list(times.values()), color="#4c72b0")
        ax.set_xlabel("time (ms)")
        return ax


def compare(
    reference: Mapping[str, Any],
    runs: Mapping[str, Mapping[str, Any]],
    times: Mapping[str, float] | None = None,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> Comparison:
    """Check each run's outputs (name -> array) against `reference` (name -> array);
    `times` gives each run's time in seconds.  A run missing an output is an error."""
    import numpy as np

    rows: list[tuple[str, str, float, bool, float | None]] = []
    for run, outputs in runs.items():
        for name, expected in reference.items():
            if name not in outputs:
                raise KeyError(f"run '{run}' has no output '{name}'")
            want = np.asarray(expected)
            got = np.asarray(outputs[name])
            if got.shape != want.shape:
                raise ValueError(
                    f"run '{run}' output '{name}' has shape {got.shape}, expected {want.shape}"
                )
            w = want.astype(np.float64)
            g = got.astype(np.float64)
            both_nan = np.isnan(w) & np.isnan(g)
            err = np.where(both_nan, 0.0, np.abs(g - w))
            max_err = float(np.nanmax(err)) if err.size else 0.0
            ok = bool(np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True))
            rows.append((run, name, max_err, ok, None if times is None else times.get(run)))
    return Comparison(rows, rtol, atol)


# ---------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------


@dataclass
class LayoutView:
    """Who holds each element of a 2-D (or 1-D) tile under a `LinearLayout`: element
    (i, j) is in register `r` of lane `l` of warp `w`.  Elements held by several
    threads (a replicated layout) list all of them in `owners`."""

    layout: LinearLayout
    title: str = "layout"
    owners: dict[tuple[int, int], list[tuple[int, int, int]]] = field(
        default_factory=dict[tuple[int, int], list[tuple[int, int, int]]]
    )

    def __post_init__(self) -> None:
        if not self.owners:
            self.owners = layout_owners(self.layout)

    @property
    def shape(self) -> tuple[int, int]:
        s = self.layout.shape
        return (1, s[0]) if len(s) == 1 else (s[0], s[1])

    def owner(self, i: int, j: int) -> tuple[int, int, int]:
        """(warp, lane, register) of the first thread holding element (i, j)."""
        return self.owners[(i, j)][0]

    def __repr__(self) -> str:
        return f"<LayoutView {self.title}: {self.summary()}>"

    def summary(self) -> str:
        lay = self.layout
        return (
            f"{'x'.join(map(str, lay.shape))} tile over {lay.num_warps} warps x 32 lanes, "
            f"{lay.num_registers} registers per thread"
        )

    def _repr_html_(self) -> str:
        rows, cols = self.shape
        shown_cols = min(cols, 64)
        shown_rows = min(rows, 64)
        cells = []
        for i in range(shown_rows):
            tds = []
            for j in range(shown_cols):
                w, ln, r = self.owner(i, j)
                hue = (w * 97 + ln * 11) % 360
                tds.append(
                    f"<td title='warp {w} lane {ln} reg {r}' style='background:hsl({hue},60%,80%);"
                    f"font-size:9px;padding:1px 2px;text-align:center'>{w}.{ln}<br>r{r}</td>"
                )
            cells.append("<tr>" + "".join(tds) + "</tr>")
        note = (
            ""
            if (rows, cols) == (shown_rows, shown_cols)
            else f" (first {shown_rows}x{shown_cols} shown)"
        )
        caption = f"<b>{html.escape(self.title)}</b>: {html.escape(self.summary())}{note}; cell = warp.lane, register"
        return caption + "<table style='border-collapse:collapse'>" + "".join(cells) + "</table>"

    def _repr_markdown_(self) -> str:
        rows, cols = self.shape
        header = [""] + [str(j) for j in range(min(cols, 16))]
        body = [
            [str(i)] + ["{}.{} r{}".format(*self.owner(i, j)) for j in range(min(cols, 16))]
            for i in range(min(rows, 16))
        ]
        return f"**{self.title}**: {self.summary()}; cell = warp.lane rREG\n\n" + _md_table(
            header, body
        )

    def draw(self, ax: Any = None, *, color_by: str = "warp", annotate: bool | None = None) -> Any:
        """Draw the tile with matplotlib: one square per element, coloured by `warp`,
        `lane` or `register`, labelled `lane/register` when the tile is small enough."""
        import matplotlib.pyplot as plt
        import numpy as np

        if color_by not in ("warp", "lane", "register"):
            raise ValueError("color_by must be 'warp', 'lane' or 'register'")
        rows, cols = self.shape
        index = {"warp": 0, "lane": 1, "register": 2}[color_by]
        grid = np.zeros((rows, cols))
        for (i, j), owners in self.owners.items():
            grid[i, j] = owners[0][index]
        if ax is None:
            _, ax = plt.subplots(figsize=(min(12, 1 + cols * 0.35), min(8, 1 + rows * 0.35)))
        # One distinct colour per warp, lane or register (32 lanes must be told apart),
        # with a colour bar that names them.
        from matplotlib.colors import BoundaryNorm, ListedColormap

        count = int(grid.max()) + 1
        palette = [*plt.get_cmap("tab20").colors, *plt.get_cmap("tab20b").colors]  # pyright: ignore[reportAttributeAccessIssue]
        cmap = (
            ListedColormap(palette[:count])
            if count <= len(palette)
            else plt.get_cmap("viridis", count)
        )
        norm = BoundaryNorm(np.arange(-0.5, count + 0.5), cmap.N)
        image = ax.imshow(grid, cmap=cmap, norm=norm, aspect="equal")
        step = 1 if count <= 16 else 2 if count <= 32 else 4
        ax.figure.colorbar(
            image, ax=ax, ticks=range(0, count, step), label=color_by, fraction=0.046, pad=0.04
        )
        if annotate is None:
            annotate = rows * cols <= 256  # each label costs a few ms to draw
        if annotate:
            size = 7 if rows * cols <= 128 else 5
            for (i, j), owners in self.owners.items():
                _, ln, r = owners[0]
                ax.text(j, i, f"{ln}\n{r}", ha="center", va="center", fontsize=size)
        legend = f"colour: {color_by}; text: lane / register" if annotate else f"colour: {color_by}"
        ax.set_title(f"{self.title}\n({legend})", fontsize=9)
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # element indices, not 2.5
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("column")
        ax.set_ylabel("row" if rows > 1 else "")
        if rows == 1:
            ax.set_yticks([])
        return ax


def layout_owners(layout: LinearLayout) -> dict[tuple[int, int], list[tuple[int, int, int]]]:
    """Element (row, column) -> every (warp, lane, register) holding it."""
    owners: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for w in range(layout.num_warps):
        for ln in range(32):
            for r in range(layout.num_registers):
                c = layout.coord(r, ln, w)
                key = (0, c[0]) if len(c) == 1 else (c[0], c[1])
                owners.setdefault(key, []).append((w, ln, r))
    return owners


# ---------------------------------------------------------------------------
# IPython
# ---------------------------------------------------------------------------


def _printable(op: Operation) -> str | None:
    """The text of `op`, or None when it cannot be printed (IR in the middle of an
    edit): IPython then falls back to the plain repr instead of showing an error."""
    try:
        return ir_text(op)
    except Exception:
        return None


def _op_html(op: Operation) -> str | None:
    text = _printable(op)
    return None if text is None else IRView(text, "mlir")._repr_html_()


def _op_markdown(op: Operation) -> str | None:
    text = _printable(op)
    return None if text is None else IRView(text, "mlir")._repr_markdown_()


def _op_plain(op: Operation, printer: Any, cycle: bool) -> None:
    """The plain-text form (a terminal IPython, a notebook's text/plain output): the IR,
    not xDSL's object repr with its memory address."""
    text = _printable(op)
    printer.text(repr(op) if text is None or cycle else text.rstrip("\n"))


def register_ipython_formatters(formatter: Any = None) -> bool:
    """Show xDSL ops highlighted in IPython: registers HTML and markdown formatters
    for `Operation` on `formatter` (an IPython `DisplayFormatter`; the running
    shell's when omitted), and the IR text as their plain form.  Returns False outside
    IPython."""
    if formatter is None:
        try:
            from IPython.core.getipython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
        if shell is None:
            return False
        formatter = shell.display_formatter  # pyright: ignore[reportAttributeAccessIssue]
    formatter.formatters["text/html"].for_type(Operation, _op_html)
    formatter.formatters["text/markdown"].for_type(Operation, _op_markdown)
    formatter.formatters["text/plain"].for_type(Operation, _op_plain)
    return True
