"""The Python API (`tileir.load`, `compile`, `run_pass`, `diff`, `launch`) and the rich
display of its objects (tileir.display), on a real cuTile kernel of the corpus."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

import tileir
from tileir import api, display
from tileir.pipelines import STAGES, stage_passes

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
KERNEL = CORPUS / "vadd_f32.tileirbc"
KERNEL_TEXT = CORPUS / "vadd_f32.mlir"


@pytest.fixture(scope="module")
def module() -> ModuleOp:
    return tileir.load(KERNEL)


@pytest.fixture(scope="module")
def result(module: ModuleOp) -> api.Compilation:
    return tileir.compile(module, arch="sm_90a")


# -- import -------------------------------------------------------------------


def test_import_tileir_is_lightweight() -> None:
    code = "import sys, tileir; print('xdsl' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_every_exported_name_resolves() -> None:
    assert sorted(tileir.__all__) == sorted(tileir._EXPORTS)  # pyright: ignore[reportPrivateUsage]
    for name in tileir.__all__:
        assert getattr(tileir, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = tileir.nope  # pyright: ignore[reportAttributeAccessIssue]


# -- load -----------------------------------------------------------------------


def test_load_reads_bytecode_and_text_in_every_form(module: ModuleOp) -> None:
    expected = tileir.print_ir(module)
    assert "entry @vadd_f32" in expected
    text = KERNEL_TEXT.read_text()
    assert tileir.print_ir(tileir.load(str(KERNEL))) == expected
    assert tileir.print_ir(tileir.load(KERNEL.read_bytes())) == expected
    from_text = tileir.print_ir(tileir.load(text))
    assert from_text == tileir.print_ir(tileir.load(KERNEL_TEXT))
    assert from_text == tileir.print_ir(tileir.load(text.encode()))
    assert "addf" in from_text


def test_load_reports_located_errors() -> None:
    with pytest.raises(tileir.CompileError, match=r"^<text>:2:25: error: .*expected ':'"):
        raise_formatted(lambda: tileir.load("entry @k() {\n  %0 = constant <i32: 1> tile<i32>\n}"))
    with pytest.raises(tileir.CompileError, match="no such file"):
        tileir.load("does/not/exist.tileirbc")
    with pytest.raises(tileir.CompileError, match=r"no such file: does/not/exist$"):
        tileir.load("does/not/exist")
    with pytest.raises(tileir.CompileError, match="byte"):
        tileir.load(KERNEL.read_bytes()[:40])
    with pytest.raises(TypeError, match="not int"):
        tileir.load(3)  # pyright: ignore[reportArgumentType]


def raise_formatted(fn: Callable[[], object]) -> None:
    """Re-raise a CompileError with its formatted (located) message."""
    try:
        fn()
    except tileir.CompileError as e:
        raise tileir.CompileError(e.format()) from None


# -- compile --------------------------------------------------------------------


def test_compile_keeps_every_stage(result: api.Compilation) -> None:
    assert list(result.stages) == list(STAGES)
    assert "entry @vadd_f32" in result.cuda_tile.text
    assert "nv_tileaa." in result.tileaa.text
    assert "nv_tileas." in result.tileas.text and "nv_tileaa.load" not in result.tileas.text
    assert "llvm.func" in result.llvm.text
    assert ".visible .entry vadd_f32" in result.ptx.text
    assert result.ptx.module is None
    for stage in ("cuda_tile", "tileaa", "tileas", "llvm"):
        assert isinstance(result.stage(stage).module, ModuleOp)
    assert str(result.ptx) == result.ptx.text


def test_compile_times_every_pass_of_the_pipeline(result: api.Compilation) -> None:
    expected = [(stage, p.name) for stage, passes in stage_passes("sm_90a", 4) for p in passes]
    assert [(p.stage, p.name) for p in result.passes] == [*expected, ("ptx", "emit-ptx")]
    assert all(p.seconds > 0 for p in result.passes)
    assert result.seconds == pytest.approx(sum(t for _, _, t in result.timings))
    conversion = next(p for p in result.passes if p.name == "convert-cuda-tile-to-tileaa")
    assert conversion.ops_before["cuda_tile.entry"] == 1
    assert conversion.ops_after["cuda_tile.entry"] == 0
    assert result.tileas.passes == [p for p in result.passes if p.stage == "tileas"]


def test_compile_leaves_its_input_alone(module: ModuleOp) -> None:
    before = tileir.print_ir(module)
    tileir.compile(module, stop_after="tileaa")
    assert tileir.print_ir(module) == before


def test_compile_stop_after_and_options(module: ModuleOp) -> None:
    partial = tileir.compile(module, stop_after="tileas", num_warps=8)
    assert list(partial.stages) == ["cuda_tile", "tileaa", "tileas"]
    assert partial.options == {"num_warps": 8}
    with pytest.raises(AttributeError, match="stopped after 'tileas'; no 'ptx' stage"):
        _ = partial.ptx
    with pytest.raises(tileir.CompileError, match="unknown stage 'spirv'"):
        tileir.compile(module, stop_after="spirv")
    with pytest.raises(tileir.CompileError, match=r"unknown pipeline option 'bogus'.*num_warps"):
        tileir.compile(module, bogus=1)
    with pytest.raises(tileir.CompileError, match="unknown arch 'sm_12'"):
        tileir.compile(module, arch="sm_12")


def test_stage_diffs_name_the_ops_a_stage_changed(result: api.Compilation) -> None:
    d = result.diff("tileas")
    assert d.title == "tileaa → tileas"
    changed = d.changed_ops
    assert changed["nv_tileaa.load"] == (2, 0)
    assert changed["nv_tileas.tiled_load"] == (0, 2)
    assert d.unified.startswith("--- before\n+++ after")
    assert bool(d) and "nv_tileas.tiled_store 0→1" in d.summary()
    assert result.diff("cuda_tile", "llvm").changed_ops["llvm.func"] == (0, 1)
    with pytest.raises(tileir.CompileError, match="no stage before"):
        result.diff("cuda_tile")


def test_pass_diffs_need_tracing(module: ModuleOp, result: api.Compilation) -> None:
    with pytest.raises(tileir.CompileError, match="trace_passes=True"):
        result.diff("tileas-assign-layouts")
    traced = tileir.compile(module, stop_after="tileas", trace_passes=True)
    d = traced.diff("tileas-assign-layouts")
    assert d and not d.changed_ops  # layouts change types, not ops
    assert "#nv_tileas.blocked" in d.unified
    with pytest.raises(tileir.CompileError, match="ran 2 times; name one of tileaa:cse"):
        tileir.compile(module, trace_passes=True).diff("cse")
    with pytest.raises(tileir.CompileError, match="no pass 'nope'"):
        traced.diff("nope")


def test_ptxas_report(result: api.Compilation) -> None:
    report = result.ptx.ptxas()
    assert report.ok and report.arch == "sm_90a"
    (kernel,) = report.kernels
    assert kernel.name.startswith("vadd_f32") and kernel.registers > 0
    assert kernel.spill_stores == 0 and kernel.spill_loads == 0
    assert "registers" in str(report) and "<table>" in report._repr_html_()
    with pytest.raises(tileir.CompileError, match="ptxas reads PTX"):
        result.llvm.ptxas()


def test_parse_ptxas_output() -> None:
    text = (
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function 'k1' for 'sm_90a'\n"
        "ptxas info    : Function properties for k1\n"
        "    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
        "ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]\n"
        "ptxas info    : Compiling entry function 'k2' for 'sm_90a'\n"
        "ptxas info    : Used 8 registers, 380 bytes cmem[0]\n"
    )
    k1, k2 = display.parse_ptxas_output(text)
    assert (k1.name, k1.registers, k1.spill_stores, k1.spill_loads) == ("k1", 40, 8, 12)
    assert (k1.stack_frame, k1.shared_memory, k1.barriers) == (16, 2048, 1)
    assert (k2.name, k2.registers, k2.spill_stores) == ("k2", 8, 0)


# -- run_pass -------------------------------------------------------------------


def test_run_pass_by_name_spec_class_and_instance(result: api.Compilation) -> None:
    tileaa = result.tileaa.module
    assert tileaa is not None
    before = tileir.print_ir(tileaa)
    by_name = tileir.run_pass(tileaa, "convert-tileaa-to-tileas")
    assert "nv_tileas.tiled_load" in tileir.print_ir(by_name)
    assert tileir.print_ir(tileaa) == before  # copied, not changed

    staged = tileir.run_pass(by_name, "tileas-assign-layouts{num-warps=2}")
    assert "warpsPerCTA = [2]" in tileir.print_ir(staged)
    cls = api.available_passes()["tileas-assign-layouts"]()
    assert "warpsPerCTA = [2]" in tileir.print_ir(tileir.run_pass(by_name, cls, num_warps=2))
    instance = cls(num_warps=2)  # pyright: ignore[reportCallIssue]
    assert tileir.print_ir(tileir.run_pass(by_name, instance)) == tileir.print_ir(staged)
    keyword = tileir.run_pass(by_name, "tileas-assign-layouts", num_warps=2)
    assert tileir.print_ir(keyword) == tileir.print_ir(staged)

    in_place = by_name.clone()
    assert tileir.run_pass(in_place, "canonicalize,cse", in_place=True) is in_place


def test_run_pass_errors(module: ModuleOp) -> None:
    """Each says what is wrong and what would be right (`tileir.pass_specs`)."""
    with pytest.raises(
        tileir.CompileError,
        match=r"unknown pass 'nope'; tileir's passes are .*tileas-canonicalize",
    ):
        tileir.run_pass(module, "nope")
    with pytest.raises(tileir.CompileError, match="did you mean 'tileas-canonicalize'"):
        tileir.run_pass(module, "tileas-canonicalise", num_warps=2)
    with pytest.raises(
        tileir.CompileError,
        match=r"bad pass spec .*: option 'num-warps' of pass 'tileas-assign-layouts' takes an "
        r"integer, not 'many'",
    ):
        tileir.run_pass(module, "tileas-assign-layouts{num-warps=many}")
    with pytest.raises(
        tileir.CompileError,
        match=r"unknown pass 'tileas-asign-layouts'; did you mean 'tileas-assign-layouts'\?; "
        r"tileir's passes are",
    ):
        tileir.run_pass(module, "cse,tileas-asign-layouts")
    with pytest.raises(
        tileir.CompileError,
        match=r"bad options for pass 'tileas-assign-layouts': it has no option 'num-warp'; "
        r"did you mean 'num-warps'\? \(its options: num-warps, arch\)",
    ):
        tileir.run_pass(module, "tileas-assign-layouts", num_warp=2)
    with pytest.raises(tileir.CompileError, match=r"no option 'warps' \(its options: num-warps"):
        tileir.run_pass(module, "tileas-assign-layouts", warps=2)
    with pytest.raises(TypeError, match="not int"):
        tileir.run_pass(module, 3)  # pyright: ignore[reportArgumentType]


def test_run_pass_applies_a_user_pass(module: ModuleOp) -> None:
    class DropAssumes(ModulePass):
        name = "drop-assumes"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            for o in list(op.walk()):
                if o.name == "cuda_tile.assume":
                    o.results[0].replace_all_uses_with(o.operands[0])
                    o.detach()
                    o.erase()

    after = tileir.run_pass(module, DropAssumes())
    d = tileir.diff(module, after)
    assert d.changed_ops == {"cuda_tile.assume": (6, 0)}
    assert Counter(o.name for o in after.walk())["cuda_tile.assume"] == 0


# -- display --------------------------------------------------------------------


def test_compilation_renders_every_stage(result: api.Compilation) -> None:
    page = result._repr_html_()
    for stage in STAGES:
        assert f"<summary><b>{stage}</b>" in page
    assert "convert-tileas-to-llvm" in page and "ptxas -arch=sm_90a -v" in page
    md = result._repr_markdown_()
    assert md.count("```mlir") == 4 and md.count("```ptx") == 1
    assert "| stage | pass | time | ops changed |" in md
    assert "emit-ptx" in str(result)


def test_highlighting_with_and_without_pygments(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "%0 = cuda_tile.addf %a, %b : tile<4xf32> // <sum> & more"
    coloured = display.highlight_html(text, "mlir")
    assert "<span" in coloured and "&lt;sum&gt;" in coloured
    monkeypatch.setitem(sys.modules, "pygments", None)
    plain = display.highlight_html(text, "mlir")
    assert 'class="nv"' not in plain and "&lt;sum&gt; &amp; more" in plain
    assert plain[plain.index("<pre") :].count("<span") == 1  # only the line's own
    with pytest.raises(ValueError, match="unknown language"):
        display.highlight_html(text, "cobol")


def test_ops_render_through_ipython_formatters(module: ModuleOp) -> None:
    formatters = pytest.importorskip("IPython.core.formatters")
    formatter = formatters.DisplayFormatter()
    assert display.register_ipython_formatters(formatter)
    data, _ = formatter.format(module)
    assert "entry" in data["text/html"] and "```mlir" in data["text/markdown"]
    entry = next(op for op in module.walk() if op.name == "cuda_tile.entry")
    data, _ = formatter.format(entry)
    assert "vadd_f32" in data["text/html"]
    # The plain form (a terminal, a stored notebook's text/plain) is the IR, not xDSL's
    # repr with the object's address.
    assert "entry @vadd_f32" in data["text/plain"]
    assert "ModuleOp" not in formatter.format(module)[0]["text/plain"]


def test_unprintable_ops_fall_back_to_the_plain_repr(
    module: ModuleOp, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(op: object) -> str:
        raise ValueError("half-edited IR")

    monkeypatch.setattr(display, "ir_text", broken)
    assert display._op_html(module) is None  # pyright: ignore[reportPrivateUsage]
    formatters = pytest.importorskip("IPython.core.formatters")
    plain = formatters.DisplayFormatter()
    assert display.register_ipython_formatters(plain)
    assert plain.format(module)[0]["text/plain"].startswith("<ModuleOp")
    assert display._op_markdown(module) is None  # pyright: ignore[reportPrivateUsage]


def test_long_lines_wrap_in_html_under_their_indentation(monkeypatch: pytest.MonkeyPatch) -> None:
    """In HTML (Jupyter, the notebooks' pages) each line wraps instead of scrolling, its
    continuation hanging four columns under the line's own indentation; the text keeps
    one line per op."""
    op = "    %tile = nv_tileas.tiled_load %43[%44] mask %42 : " + ", ".join(
        ["tensor<32x64xf16, #blocked>"] * 12
    )
    text = f"func.func @k() {{\n{op}\n}}\n"
    for highlighted in (True, False):
        if not highlighted:
            monkeypatch.setitem(sys.modules, "pygments", None)
        page = display.highlight_html(text, "mlir")
        body = page[page.index("<pre") :]
        assert body.count('<span class="ln ') == 3 and "\n" not in body
        assert '<span class="ln i4">    ' in body and body.count('<span class="ln i0">') == 2
        assert ".tileir-code .i4{padding-left:8ch;text-indent:-8ch}" in page
        assert "white-space:pre-wrap" in page


def test_show_picks_the_language() -> None:
    assert tileir.show(".version 8.7\n.target sm_90a\n").language == "ptx"
    assert tileir.show("%0 = foo").language == "mlir"


def test_compare_table() -> None:
    ref = {"c": np.array([1.0, 2.0, np.nan])}
    runs = {
        "exact": {"c": np.array([1.0, 2.0, np.nan])},
        "off": {"c": np.array([1.0, 2.5, np.nan])},
    }
    table = tileir.compare(ref, runs, times={"exact": 2e-3})
    assert [(r[0], r[2], r[3]) for r in table.rows] == [("exact", 0.0, True), ("off", 0.5, False)]
    assert not table.ok
    assert "NO" in str(table) and "2.000" in table._repr_html_()
    assert "| off | c | 0.5 | NO |  |" in table._repr_markdown_()
    with pytest.raises(KeyError, match="no output 'c'"):
        tileir.compare(ref, {"bad": {}})
    with pytest.raises(ValueError, match="shape"):
        tileir.compare(ref, {"bad": {"c": np.zeros(2)}})


def test_layout_view_owns_every_element_once() -> None:
    from tileir.dialects.nv_tileas.layouts import default_blocked

    layout = default_blocked((16, 32), num_warps=4, vector=4).linear((16, 32))
    view = display.LayoutView(layout, "load")
    assert len(view.owners) == 16 * 32
    assert all(len(owners) == 1 for owners in view.owners.values())
    assert view.owner(0, 0) == (0, 0, 0) and view.owner(0, 1) == (0, 0, 1)
    assert "warp 0 lane 0 reg 0" in view._repr_html_()
    assert view._repr_markdown_().count("\n") > 16


def test_layout_drawing() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from tileir.dialects.nv_tileas.layouts import default_blocked

    layout = default_blocked((8, 16), num_warps=2, vector=2).linear((8, 16))
    ax = display.LayoutView(layout).draw(color_by="lane")
    assert ax.get_xlabel() == "column"
    assert ax.get_title().endswith("(colour: lane; text: lane / register)")  # 128 labels
    big = default_blocked((32, 32), num_warps=4, vector=2).linear((32, 32))
    ax = display.LayoutView(big).draw(color_by="warp")
    assert ax.get_title().endswith("(colour: warp)")  # too many elements to label
    # A 1-D layout (a reduction's result) is one row: no row axis to label.
    row = display.LayoutView(default_blocked((64,), num_warps=2, vector=1).linear((64,)))
    assert row.draw().get_ylabel() == ""
    table = tileir.compare({"c": np.ones(2)}, {"gpu": {"c": np.ones(2)}}, times={"gpu": 1e-3})
    assert table.plot().get_xlabel() == "time (ms)"


# -- launch ---------------------------------------------------------------------


def test_launch_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="unknown backend 'tpu'"):
        tileir.launcher("tpu")
    from tileir.interpreter import launch as interpreter_launch

    assert tileir.launcher("interpreter") is interpreter_launch
    monkeypatch.setitem(api._LAUNCHERS, "gpu", ("tileir.no_such_runtime", "the GPU runtime"))  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(tileir.LaunchUnavailable, match=r"the GPU runtime .* is not part of"):
        tileir.launch(backend="gpu")


def _vadd_arguments() -> tuple[list[object], np.ndarray, np.ndarray]:
    n = 3000  # not a multiple of the 1024-element tile: the last block is masked
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    c = np.full(n, np.nan, dtype=np.float32)
    return [a, n, 1, b, n, 1, c, n, 1], a + b, c


def test_launch_runs_the_interpreter_and_the_gpu_where_there_is_one(module: ModuleOp) -> None:
    args, expected, c = _vadd_arguments()
    tileir.launch(module, (3, 1, 1), *args)
    table = tileir.compare({"c": expected}, {"interpreter": {"c": c}})
    assert table.ok
    args, expected, c = _vadd_arguments()
    try:
        tileir.launch(module, (3, 1, 1), *args, backend="gpu")
    except tileir.LaunchUnavailable as e:
        assert "the GPU runtime cannot run here" in str(e)
    else:
        assert tileir.compare({"c": expected}, {"gpu": {"c": c}}).ok


# -- building IR ----------------------------------------------------------------


def test_user_guide_builder_example_runs() -> None:
    guide = (ROOT / "docs" / "user-guide.md").read_text()
    block = guide.split("<!-- builder-example -->", 1)[1]
    code = block.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, object] = {}
    exec(compile(code, "docs/user-guide.md", "exec"), scope)
    result = scope["result"]
    assert isinstance(result, api.Compilation)
    assert ".visible .entry vadd(" in result.ptx.text


# -- generated reference --------------------------------------------------------


def test_reference_documents_every_pass_and_op() -> None:
    from tileir.reference import render
    from tileir.registry import DIALECTS, PASSES

    page = render()
    for name in PASSES:
        assert f"### `{name}`" in page
    for load in DIALECTS.values():
        for op in load().operations:
            assert f"| `{op.name}` |" in page
    assert "| `num-warps` | `int` | `4` |" in page
