"""Diffs that show what changed (issue 19, item 4): changed words highlighted inside
rewritten lines in HTML, op counts in one place, no empty table."""

from __future__ import annotations

from collections import Counter

from tileir.display import diff_texts

BEFORE = "x\n  %t = nv_tileas.tiled_load %a {atom = #nv_tileas<atom ldg_128b>} : tensor<8xf16, #blocked>\ny\n"
AFTER = "x\n  %t = nv_tileas.tiled_load %a {atom = #nv_tileas<atom ldg_64b>} : tensor<8xf16, #blocked>\ny\n"


def test_changed_words_are_highlighted_in_rewritten_lines() -> None:
    html = diff_texts(BEFORE, AFTER, title="widen")._repr_html_()  # pyright: ignore[reportPrivateUsage]
    assert "<span style='background:#fdb8c0'>ldg_128b</span>" in html
    assert "<span style='background:#acf2bd'>ldg_64b</span>" in html
    # the rest of the line is not marked
    assert "<span style='background:#acf2bd'>#blocked" not in html


def test_no_op_table_when_no_count_changed_and_counts_shown_once() -> None:
    same = diff_texts(BEFORE, AFTER, Counter({"a": 1}), Counter({"a": 1}))
    assert "<table>" not in same._repr_html_()  # pyright: ignore[reportPrivateUsage]
    assert "| op |" not in same._repr_markdown_()  # pyright: ignore[reportPrivateUsage]
    changed = diff_texts(BEFORE, AFTER, Counter({"a": 1}), Counter({"a": 2, "b": 1}))
    html = changed._repr_html_()  # pyright: ignore[reportPrivateUsage]
    assert "<table>" in html and html.count("a 1→2") == 0  # the table has them, not the head
    assert "2 op kinds changed in number" in html
    assert "a 1→2" in changed.summary()  # the text form keeps its one-line summary
