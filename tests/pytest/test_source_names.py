"""cuTile Python's variable names carried through every stage (issue 19, item 3;
`tileir.source_names`): the bytecode names no values, so tileir reads the kernel's source
at the locations the bytecode carries, in the API (`tileir.compile(kernel, signature)`)
and in `tileir-as --python-names` alike."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tileir
from tileir.backend.ptx.ptxas import find_ptxas
from tileir.source_names import name_values_from_python

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
BYTECODE = Path("tests/corpus/tanh_exp_f16_2d.tileirbc")  # from ROOT, as its locations are
EMIT = ("--gpu-name", "sm_90", "--emit=tileas")


def defined_names(text: str) -> list[str]:
    """The SSA names a stage's text defines, in order (a group's first name)."""
    return re.findall(r"^\s*%([A-Za-z_][\w$.]*)(?:, %[\w$.]+)*(?::\d+)? = ", text, re.M)


def compile_corpus_kernel(name: str) -> tileir.Compilation:
    """The corpus kernel `name` compiled from its `@ct.kernel` (names from its Python)."""
    sys.path.insert(0, str(CORPUS))
    try:
        kernel = importlib.import_module(name)
    finally:
        sys.path.remove(str(CORPUS))
    return tileir.compile(kernel.KERNEL, kernel.signatures()[0], arch="sm_90a")


@pytest.fixture(scope="module")
def tanh_exp() -> tileir.Compilation:
    return compile_corpus_kernel("tanh_exp_f16_2d")


def test_a_cutile_kernel_s_values_carry_their_python_names(
    tanh_exp: tileir.Compilation,
) -> None:
    """bm = ct.bid(0); tx = ct.load(...); xf = ct.astype(tx, f32); y = scale * ... : the
    same names in cuda_tile, tileaa and tileas, on the ops that made the values."""
    expected = {
        "cuda_tile": {"bm": "get_tile_block_id", "tx": "load_view_tko", "xf": "ftof", "y": "fma"},
        "tileaa": {"tx": "nv_tileaa.load", "xf": "cuda_tile.ftof", "y": "cuda_tile.fma"},
        "tileas": {"tx": "nv_tileas.tiled_load", "xf": "cuda_tile.ftof", "y": "cuda_tile.fma"},
    }
    for stage, ops in expected.items():
        text = tanh_exp.stage(stage).text
        for name, op in ops.items():
            assert re.search(rf"^\s*%{name}(, %\w+)* = {re.escape(op)} ", text, re.M), (stage, name)
    cuda_tile = tanh_exp.cuda_tile.text
    assert "%tile," not in cuda_tile  # the op's suggestion gave way to the variable's name
    assert "%ftof %tx" not in cuda_tile and "= ftof %tx " in cuda_tile
    assert tileir.load(cuda_tile) is not None  # and the text reads back


def test_the_cli_names_values_as_the_api_does(tanh_exp: tileir.Compilation) -> None:
    """The corpus bytecode is the same kernel's export: with --python-names, tileir-as
    names the same values; without, it keeps the names tileirdisasm prints."""

    def emit(*flags: str) -> str:
        return subprocess.run(
            [sys.executable, "-m", "tileir.driver.assembler", str(BYTECODE), *EMIT, *flags],
            cwd=ROOT,  # the bytecode's locations name tests/corpus/tanh_exp_f16_2d.py
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    named = defined_names(emit("--python-names"))
    assert named == defined_names(tanh_exp.tileas.text)
    assert {"tx", "xf", "y"} <= set(named)
    plain = defined_names(emit())
    assert "tile" in plain and not {"tx", "xf", "y"} & set(plain)


def test_a_named_tile_s_registers_carry_its_name_in_the_llvm_stage(
    tanh_exp: tileir.Compilation,
) -> None:
    """`tx` (32x64 f16, 16 elements a thread) is `%tx.0` ... `%tx.15` in the llvm stage,
    on the values its load made; `xf.i` is the `fpext` of `tx.i`, and `y`'s registers
    the `fma`s; the tile's `ftof` to f16, which has no name, names none."""
    text = tanh_exp.llvm.text
    tx = re.findall(r"^\s*%tx\.(\d+) = llvm\.extractvalue ", text, re.M)
    assert sorted(map(int, tx)) == list(range(16))
    xf = re.findall(r"^\s*%xf\.(\d+) = llvm\.fpext %tx\.(\d+) : f16 to f32", text, re.M)
    assert len(xf) == 16 and all(a == b for a, b in xf)
    fma = r"^\s*%y\.\d+ = llvm\.call_intrinsic \"llvm\.fma\.f32\""
    assert len(re.findall(fma, text, re.M)) == 16
    assert re.search(r"^\s*%\d+ = llvm\.fptrunc %y\.0 ", text, re.M)


def test_the_ptx_marks_each_python_name_where_its_registers_are_written(
    tanh_exp: tileir.Compilation,
) -> None:
    """`// tx.0, tx.1` at the `mov` out of each word of the vector load (not at the edge
    path's scalar loads), `// xf.i` at each `cvt`, `// y.i` at each `fma`; with the
    comments taken out the PTX is the PTX of the same kernel without names, byte for
    byte, and ptxas takes it."""
    named = tanh_exp.ptx.text
    marked = re.findall(r"^\t(\S+).*\t// ([\w., ]+)$", named, re.M)
    by_name: dict[str, set[str]] = {}
    registers: dict[str, list[str]] = {}
    for mnemonic, names in marked:
        for name in names.split(", "):
            base, _, index = name.partition(".")
            by_name.setdefault(base, set()).add(mnemonic)
            registers.setdefault(base, []).append(index)
    expected = {"bm": {"mov.u32"}, "tx": {"mov.b32"}, "xf": {"cvt.f32.f16"}, "y": {"fma.rn.f32"}}
    assert by_name == expected
    assert sorted(map(int, registers["tx"])) == list(range(16))  # 8 words of two halves
    assert sum(1 for _, names in marked if names.startswith("tx.")) == 8
    assert registers["bm"] == [""]  # a scalar is one register, under its own name
    plain = tileir.compile(tileir.load(BYTECODE.read_bytes(), name=str(BYTECODE)), arch="sm_90a")
    assert re.sub(r"\t// [\w., ]+$", "", named, flags=re.M) == plain.ptx.text
    if find_ptxas() is not None:
        report = tanh_exp.ptx.ptxas()
        assert report.ok, report.output


KERNEL_TEXT = """\
cuda_tile.module @m {
  entry @k(%p: tile<f32>) {
    %a = constant <f32: 1.0> : tile<128xf32> loc("k.py":1:0)
    %0, %1, %2 = get_tile_block_id : tile<i32> loc("k.py":2:8)
    %3 = reshape %p : tile<f32> -> tile<1xf32> loc("k.py":3:10)
    %4 = broadcast %3 : tile<1xf32> -> tile<128xf32> loc("k.py":3:10)
    %5 = fma %a, %4, %a : tile<128xf32> loc("k.py":4:4)
    %6 = addf %5, %a : tile<128xf32> loc("k.py":5:10)
    %7 = negf %6 : tile<128xf32> loc("k.py":6:11)
    %8 = exti %0 signed : tile<i32> -> tile<i64> loc("k.py":7:4)
    return
  }
}
"""

KERNEL_SOURCE = """\
def k(a, p):
    b = ct.bid(0)
    acc = a * p
    acc += a
    acc = acc + a
    u, v = -acc, acc
    ct.printf("%d", ct.astype(b, ct.int64))
"""


def test_which_values_python_names() -> None:
    """The last op at an assignment's expression makes the value; the scalar's promotion
    to a tile does not (cuTile fused `acc = a * p` into the fma of `acc += a`); of
    several results the one in use; a tuple target or an expression names nothing."""
    module = tileir.load(KERNEL_TEXT, name="k.mlir")
    assert name_values_from_python(module, {"k.py": KERNEL_SOURCE}.get) == 3
    text = tileir.print_ir(module)
    assert "%b, %blockId_y, %blockId_z = get_tile_block_id" in text
    assert "%bcast = broadcast %reshape" in text  # not `acc`
    assert "%acc = fma %cst_1_f32, %bcast, %cst_1_f32 " in text  # acc += a
    assert "%acc_0 = addf %acc, %cst_1_f32 " in text  # acc = acc + a, unique as MLIR makes it
    assert re.search(r"%\d+ = negf %acc_0", text)  # u, v = ...: no name
    assert tileir.load(text) is not None


def test_without_the_source_nothing_is_named() -> None:
    module = tileir.load(KERNEL_TEXT, name="k.mlir")
    before = tileir.print_ir(module)
    assert name_values_from_python(module, lambda file: None) == 0
    assert tileir.print_ir(module) == before


def test_a_kernel_without_source_says_where_to_define_it() -> None:
    """cuTile reads the kernel's source: from `python -` (or `-c`) it has none, and the
    error says what to do instead of only cuTile's 'could not get source code'."""
    program = (
        "import cuda.tile as ct, tileir\n"
        "from cuda.tile.compilation import ArrayConstraint\n"
        "@ct.kernel\n"
        "def k(x):\n"
        "    ct.store(x, (0,), ct.load(x, (0,), (16,)))\n"
        "f32 = ArrayConstraint(ct.float32, 1, index_dtype=ct.int32, stride_lower_bound_incl=0,"
        " alias_groups=[], may_alias_internally=False, stride_constant=[1])\n"
        "try:\n"
        "    tileir.compile(k, [f32])\n"
        "except tileir.CompileError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-"], input=program, capture_output=True, text=True, check=True
    ).stdout
    assert "could not get source code" in out
    assert "define the kernel in a file or a notebook cell" in out


def test_a_changed_source_is_read_again(tmp_path: Path) -> None:
    """A long-lived process (the compile server) names values from the source as it is
    now, not as it was first read."""
    source = tmp_path / "k.py"
    text = KERNEL_TEXT.replace('"k.py"', f'"{source}"')
    source.write_text(KERNEL_SOURCE)
    first = tileir.load(text, name="k.mlir")
    name_values_from_python(first)
    assert "%b, %blockId_y" in tileir.print_ir(first)
    renamed = KERNEL_SOURCE.replace("    b = ct.bid(0)", "    q = ct.bid(0)")  # same column
    source.write_text(renamed)
    os.utime(source, (1, 1))  # a different modification time, however fast the test
    second = tileir.load(text, name="k.mlir")
    name_values_from_python(second)
    assert "%q, %blockId_y" in tileir.print_ir(second)


@pytest.fixture(scope="module")
def gemm() -> tileir.Compilation:
    return compile_corpus_kernel("gemm_f16")


def test_a_loop_carried_acc_is_followed_by_name_from_cuda_tile_to_ptx(
    gemm: tileir.Compilation,
) -> None:
    """`acc = ct.full(...)`; `for k in range(k_tiles): ... acc = ct.mma(ta, tb, acc)`:
    the loop's block argument and result are `acc` too (MLIR-unique: `%acc_24`,
    `%acc_22`), and `k` the induction variable, in every stage; in llvm the block
    argument's registers are `%acc_24.i`, and in PTX the moves into them say so."""
    cuda_tile = gemm.cuda_tile.text
    loop = re.search(
        r"%(acc_\d+) = for %k in \(.*\) : tile<i32> iter_values\(%(acc_\d+) = %acc\)", cuda_tile
    )
    assert loop, cuda_tile
    result, carried = loop.groups()
    dot = re.search(rf"%(acc_\d+) = mmaf %ta, %tb, %{carried} ", cuda_tile)
    assert dot and f"continue %{dot[1]} :" in cuda_tile
    assert re.search(rf"store_view_tko weak %{result}, ", cuda_tile)
    assert "iterArg" not in cuda_tile and "loopIdx" not in cuda_tile
    for stage, op in (("tileaa", "nv_tileaa.dot"), ("tileas", "nv_tileas.dot")):
        text = gemm.stage(stage).text
        assert re.search(
            rf"%{result}(, %\d+)* = scf\.for %k = .* iter_args\(%{carried} = %acc", text
        )
        assert f"%{dot[1]} = {op} %ta, %tb, %{carried}" in text, stage
    # The warp-specialized producer's copy of the loop runs the same iterations: `k` too.
    assert re.search(r"scf\.for %k_\d+ = .* iter_args\(%\d+ = ", gemm.tileas.text)
    llvm_text = gemm.llvm.text
    header = re.search(r"^\s*\^bb\d+\(%k: i32, (.*?)\):", llvm_text, re.M | re.S)
    assert header, llvm_text
    assert re.findall(r"%(acc_\d+)\.(\d+): f32", header[1]) == [
        (carried, str(i)) for i in range(16)
    ]
    ptx = gemm.ptx.text
    moves = re.findall(rf"^\tmov\.b32 %f\d+, %f\d+;\t// {carried}\.(\d+)$", ptx, re.M)
    assert sorted(map(int, moves)) == list(range(16))  # the loop's entry edge
    assert re.search(r"^\tmov\.f32 %f\d+, 0f00000000;\t// acc\.0$", ptx, re.M)
    assert re.search(rf"^\twgmma\.mma_async\..*\t// {dot[1]}\.0, ", ptx, re.M)


CARRIED_TEXT = """\
cuda_tile.module @m {
  entry @k(%n: tile<i32>) {
    %a = constant <f32: 0.0> : tile<16xf32> loc("l.py":2:10)
    %b = constant <f32: 1.0> : tile<16xf32> loc("l.py":3:8)
    %lo = constant <i32: 0> : tile<i32> loc("l.py":4:4)
    %one = constant <i32: 1> : tile<i32> loc("l.py":4:4)
    %r:2 = for %iv in (%lo to %n, step %one) : tile<i32> iter_values(%x = %a, %y = %b)
        -> (tile<16xf32>, tile<16xf32>) {
      %c = addf %x, %y : tile<16xf32> loc("l.py":5:15)
      %d = mulf %c, %c : tile<16xf32> loc("l.py":6:12)
      continue %c, %d : tile<16xf32>, tile<16xf32> loc("l.py":4:4)
    } loc("l.py":4:4)
    %z = cmpi greater_than %n, %lo, signed : tile<i32> -> tile<i1> loc("l.py":9:7)
    %s = if %z -> (tile<16xf32>) {
      %e = addf %r#1, %r#1 : tile<16xf32> loc("l.py":10:12)
      yield %e : tile<16xf32> loc("l.py":9:4)
    } else {
      %f = negf %r#1 : tile<16xf32> loc("l.py":12:12)
      yield %f : tile<16xf32> loc("l.py":9:4)
    } loc("l.py":9:4)
    %w:2 = loop iter_values(%p = %n, %q = %s) : tile<i32>, tile<16xf32>
        -> tile<i32>, tile<16xf32> {
      %g = cmpi greater_than_or_equal %p, %n, signed : tile<i32> -> tile<i1> loc("l.py":15:11)
      if %g {
        break %p, %q : tile<i32>, tile<16xf32> loc("l.py":16:12)
      } loc("l.py":15:8)
      %h = addi %p, %one : tile<i32> loc("l.py":17:12)
      %o = addf %q, %q : tile<16xf32> loc("l.py":18:12)
      continue %h, %o : tile<i32>, tile<16xf32> loc("l.py":14:4)
    } loc("l.py":14:4)
    return
  }
}
"""

CARRIED_SOURCE = """\
def k(n):
    m_i = ct.zeros((16,))
    s = ct.ones((16,))
    for j in range(n):
        m_ij = m_i + s
        t = m_ij * m_ij
        m_i = m_ij
        s = t
    if n > 0:
        u = s + s
    else:
        u = -s
    v = u
    while True:
        if n >= n:
            break
        n = n + 1
        v = v + v
"""


def test_which_variable_a_loop_or_an_if_carries() -> None:
    """A slot takes the name of the variable before the loop where the loop assigns it
    (`m_i = m_ij` carries `m_i`, not `m_ij`), else of the value an iteration ends with
    (`v = u` made no op: the value before the `while` is `u`'s, which the loop does not
    assign); an `if`'s result the name both branches give; a `loop`'s results those of
    its `break`; a `for`'s induction variable the statement's variable.  Unique as
    MLIR makes names, and the text reads back."""
    module = tileir.load(CARRIED_TEXT, name="l.mlir")
    name_values_from_python(module, {"l.py": CARRIED_SOURCE}.get)
    text = tileir.print_ir(module)
    assert (
        "%m_i_0, %s_1 = for %j in (%cst_0_i32 to %arg0, step %cst_1_i32) : tile<i32> "
        "iter_values(%m_i_2 = %m_i, %s_3 = %s)" in text
    )
    assert "%m_ij = addf %m_i_2, %s_3 " in text and "continue %m_ij, %t :" in text
    assert "%u = if %0 -> (tile<16xf32>)" in text and "addf %s_1, %s_1 " in text
    assert "%n, %v = loop iter_values(%n_2 = %arg0, %v_3 = %u) " in text
    assert "break %n_2, %v_3 :" in text
    assert tileir.load(text) is not None
