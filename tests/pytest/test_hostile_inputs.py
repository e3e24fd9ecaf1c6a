"""Hostile inputs (issue 18, item 3): each class of input that once crashed tileir, or
made it print output the next tool rejects, now gets a located diagnostic or correct
output.  One test (or a parametrized family) per class:

* a kernel name PTX cannot spell (rejected at the kernel, as tileiras rejects it);
* a value used before its definition, or by the op that defines it (SSA dominance);
* an integer attribute out of its type's range (permute, cat, reduce dims);
* nesting deeper than the parsers' limits (regions, attributes, types, locations);
* output that cannot be written (`-o /dev/full`, a full pipe), and ptxas failing to
  write the cubin;
* an f16 constant too large for f16 (inf, with a warning, as IEEE rounds it);
* a kernel parameter the lowering does not take (a view, a token);
* reduce/scan bodies that yield or combine with values from outside them;
* source file names PTX strings cannot hold verbatim (quotes, non-ASCII);
* a second set, written after the first was fixed: edge values the constant folder
  meets (division by zero, INT_MIN / -1, shifts past the width, ftoi of NaN and inf),
  PTX keywords and 4000-character kernel names, loops and pointer types nested past the
  limits, a call-site chain 300 deep, a newline in a file name.  None broke tileir.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import PtxasResult, run_ptxas
from tileir.backend.ptx.target import PTX_IDENTIFIER
from tileir.compiler import compile_module, parse_module_text
from tileir.diagnostics import CompileError
from tileir.dialects.cuda_tile.ops.base import MAX_REGION_DEPTH
from tileir.dialects.cuda_tile.warnings import collecting_warnings
from tileir.driver import assembler, opt
from tileir.interpreter import launch as interpret
from tileir.testing import simulate

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
BIN = Path(sys.executable).parent


def compile_text(text: str, name: str = "k.mlir", arch: str = "sm_80", **options: object) -> str:
    result = compile_module(parse_module_text(text, name), arch, **options)  # pyright: ignore[reportArgumentType]
    assert result.ptx is not None
    return result.ptx


def error_of(text: str, name: str = "k.mlir") -> CompileError:
    with pytest.raises(CompileError) as e:
        compile_text(text, name)
    return e.value


def nested_ifs(depth: int) -> str:
    """`depth` nested `if`s in a kernel, the first on line 5, as tileir-opt prints
    modules (inside `module` and `cuda_tile.module`)."""
    lines = ["module {", "cuda_tile.module @m {", "entry @k() {"]
    lines += ["  %c = constant <i1: true> : tile<i1>"]
    lines += ["  " * (i + 1) + "if %c {" for i in range(depth)]
    lines += ["  " * (i + 1) + "}" for i in reversed(range(depth))]
    return "\n".join([*lines, "  return", "}", "}", "}"]) + "\n"


# ---------------------------------------------------------------------------
# Kernel names.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["k?x", "my-kernel", "1k", "_", "a.b", "k\u00e9", "WARP_SZ"])
def test_a_kernel_name_ptx_cannot_spell_is_rejected_at_the_kernel(name: str) -> None:
    e = error_of(f'cuda_tile.module @m {{\n  entry @"{name}"() {{\n    return\n  }}\n}}\n')
    assert "is not a valid PTX identifier" in e.message
    assert e.location is not None and e.location.line == 2


@pytest.mark.parametrize("name", ["k", "k$x", "_k", "$k", "__k_1", "Ret"])
def test_kernel_names_ptx_can_spell_assemble(name: str) -> None:
    assert PTX_IDENTIFIER.fullmatch(name)
    ptx = compile_text(f'entry @"{name}"() {{\n  return\n}}\n')
    assert f".visible .entry {name}(" in ptx
    assert run_ptxas(ptx, "sm_80").ok


# ---------------------------------------------------------------------------
# SSA dominance.
# ---------------------------------------------------------------------------

DOMINANCE_CASES = {
    "its own operand": ("%x = addi %x, %x : tile<i32>", 3, 3),
    "used above its definition": (
        "%y = addi %x, %x : tile<i32>\n    %x = constant <i32: 1> : tile<i32>",
        3,
        4,
    ),
    "an op's result inside its own region": (
        "%r = if %t -> (tile<i32>) {\n      %z = addi %r, %r : tile<i32>\n      yield %z : tile<i32>\n"
        "    } else {\n      yield %r : tile<i32>\n    }",
        4,
        3,
    ),
}


@pytest.mark.parametrize("case", sorted(DOMINANCE_CASES))
def test_a_use_its_definition_does_not_dominate_is_an_error_at_the_use(case: str) -> None:
    body, use_line, def_line = DOMINANCE_CASES[case]
    # The body starts on line 4 (after the module, the entry and %t): lines are given
    # from the body's first line as 1.
    text = (
        "cuda_tile.module @m {\n  entry @k() {\n    %t = constant <i1: true> : tile<i1>\n"
        f"    {body}\n    return\n  }}\n}}\n"
    )
    with pytest.raises(CompileError) as e:
        parse_module_text(text, "k.mlir")
    assert "does not dominate this use" in e.value.message
    assert e.value.location is not None and e.value.location.line == use_line + 1
    notes = getattr(getattr(e.value, "errors", [e.value])[0], "notes", [])
    assert [n.location.line for n in notes if n.location] == [def_line + 1]


def test_values_from_around_a_region_dominate_their_uses_inside() -> None:
    text = (
        "entry @k(%p: tile<ptr<i32>>) {\n  %t = constant <i1: true> : tile<i1>\n"
        "  %a = constant <i32: 1> : tile<i32>\n"
        "  %r = if %t -> (tile<i32>) {\n    %b = addi %a, %a : tile<i32>\n    yield %b : tile<i32>\n"
        "  } else {\n    yield %a : tile<i32>\n  }\n  %s = addi %r, %a : tile<i32>\n  return\n}\n"
    )
    parse_module_text(text, "k.mlir")


# ---------------------------------------------------------------------------
# Integer attributes out of range.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op",
    [
        "%r = permute %c [1, 99999999999999999999] : tile<2x4xf32> -> tile<4x2xf32>",
        "%r = permute %c [4294967296, 0] : tile<2x4xf32> -> tile<4x2xf32>",
        "%r = cat %c, %c dim = 4294967296 : tile<2x4xf32>, tile<2x4xf32> -> tile<4x4xf32>",
        "%r = reduce %c dim=-2147483649 identities=[0.0 : f32] : tile<2x4xf32> -> tile<4xf32>\n"
        "    (%a: tile<f32>, %b: tile<f32>) {\n      yield %a : tile<f32>\n    }",
    ],
)
def test_an_integer_attribute_out_of_range_is_a_located_parse_error(op: str) -> None:
    text = f"entry @k() {{\n  %c = constant <f32: 1.0> : tile<2x4xf32>\n  {op}\n  return\n}}\n"
    e = error_of(text)
    assert "is out of range for i32" in e.message
    assert e.location is not None and e.location.line == 3


# ---------------------------------------------------------------------------
# Nesting.
# ---------------------------------------------------------------------------


def test_regions_nested_to_the_limit_compile_and_round_trip_through_bytecode() -> None:
    from tileir.bytecode import read_bytecode, write_bytecode

    text = nested_ifs(MAX_REGION_DEPTH)
    module = parse_module_text(text, "k.mlir")
    read_bytecode(write_bytecode(module), "k.tileirbc")
    compile_text(text)


def test_regions_nested_past_the_limit_are_a_located_error() -> None:
    depth = MAX_REGION_DEPTH + 1
    e = error_of(nested_ifs(depth))
    assert f"regions nested deeper than {MAX_REGION_DEPTH}" in e.message
    # The first `if` is on line 5; the one past the limit opens the region too many.
    assert e.location is not None and e.location.line == 4 + depth


@pytest.mark.parametrize(
    "text",
    [
        "entry @k() {\n  return {x = " + "[" * 3000 + "]" * 3000 + "}\n}\n",
        "entry @k(%a: " + "tile<ptr<" * 3000 + "f32" + ">>" * 3000 + ") {\n  return\n}\n",
        "entry @k() {\n  %c = constant <f32: " + "[" * 3000 + "1.0" + "]" * 3000 + "> : tile<f32>\n"
        "  return\n}\n",
        "entry @k() {\n  return loc("
        + "callsite(" * 3000
        + 'loc("a":1:1)'
        + ' at loc("b":1:1))' * 3000
        + ")\n}\n",
    ],
    ids=["attributes", "types", "literals", "locations"],
)
def test_syntax_nested_past_the_parsers_stack_is_a_located_error(text: str) -> None:
    e = error_of(text)
    assert e.message.startswith("the input nests too deeply")
    assert e.location is not None and e.location.line in (1, 2)


# ---------------------------------------------------------------------------
# Output that cannot be written.
# ---------------------------------------------------------------------------

FULL = "/dev/full"
needs_dev_full = pytest.mark.skipif(not Path(FULL).exists(), reason="needs /dev/full")


@needs_dev_full
@pytest.mark.parametrize(
    "argv",
    [
        ["-o", FULL, "--emit=ptx"],
        ["-o", FULL, "--gpu-name", "sm_80"],
    ],
)
def test_tileir_as_reports_an_output_it_cannot_write(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert assembler.run([str(CORPUS / "vadd_f32.mlir"), *argv]) == 1
    err = capsys.readouterr().err
    assert f"cannot write output file '{FULL}': No space left on device" in err
    assert "internal compiler error" not in err


@needs_dev_full
@pytest.mark.parametrize("target", [[], ["-t", "tileirbc"]])
def test_tileir_opt_reports_an_output_it_cannot_write(
    target: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert opt.run([str(CORPUS / "vadd_f32.mlir"), *target, "-o", FULL]) == 1
    err = capsys.readouterr().err
    assert f"cannot write output file '{FULL}': No space left on device" in err
    assert "internal compiler error" not in err


@needs_dev_full
@pytest.mark.parametrize(
    "command",
    [
        ["tileir-as", str(CORPUS / "vadd_f32.mlir"), "--emit=ptx"],
        ["tileir-opt", str(CORPUS / "vadd_f32.mlir")],
        ["tileir-opt", str(CORPUS / "vadd_f32.mlir"), "-t", "tileirbc"],
    ],
)
def test_a_full_standard_output_is_reported(command: list[str]) -> None:
    import os

    env = {**os.environ, "TILEIR_SERVER": "0", "TILEIR_NO_CACHE": "1"}
    with open(FULL, "w") as full:
        proc = subprocess.run(
            [str(BIN / command[0]), *command[1:]], stdout=full, stderr=subprocess.PIPE,
            text=True, env=env,
        )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip() == "error: cannot write to standard output: No space left on device"


def test_ptxas_failing_to_write_the_cubin_is_not_called_a_tileir_bug() -> None:
    report = PtxasResult(False, "ptxas fatal   : Failed to write to outp file '/x'", {}, {})
    assert report.could_not_write
    assert report.failure().startswith("ptxas could not write the cubin")
    rejected = PtxasResult(False, "ptxas k.ptx, line 4; fatal   : Parsing error", {}, {})
    assert not rejected.could_not_write
    assert "a tileir bug" in rejected.failure()


@needs_dev_full
def test_run_ptxas_to_an_unwritable_cubin_says_so() -> None:
    ptx = compile_text((CORPUS / "vadd_f32.mlir").read_text())
    report = run_ptxas(ptx, "sm_80", FULL)
    assert report.could_not_write, report.output


# ---------------------------------------------------------------------------
# Float constants out of range.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "element", "becomes"),
    [("1.0e10", "f16", "inf"), ("-70000.0", "f16", "-inf"), ("1.0e40", "f32", "inf")],
)
def test_a_float_constant_out_of_range_rounds_to_inf_with_a_warning(
    literal: str, element: str, becomes: str
) -> None:
    text = (
        f"entry @k() {{\n  %c = constant <{element}: {literal}> : tile<{element}>\n  return\n}}\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warning would fail here
        with collecting_warnings() as said:
            module = parse_module_text(text, "k.mlir")
    assert [w.message for w in said] == [
        f"floating point constant {float(literal):g} is out of the range of {element} "
        f"and becomes {becomes}"
    ]
    location = said[0].location
    assert location is not None and location.line == 2
    assert f"<{element}: 0x" in str(module)  # printed by its bits, as MLIR prints inf


# ---------------------------------------------------------------------------
# Kernel parameters.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("parameter", ["token", "tensor_view<?xf32, strides=[1]>"])
def test_a_kernel_parameter_the_lowering_does_not_take_is_an_error_at_the_kernel(
    parameter: str,
) -> None:
    e = error_of(f"cuda_tile.module @m {{\n  entry @k(%a: {parameter}) {{\n    return\n  }}\n}}\n")
    assert f"kernel parameter #0 has type {parameter};" in str(e)
    assert "LLVM" not in e.message
    assert e.location is not None and e.location.line == 2


# ---------------------------------------------------------------------------
# Reduce and scan bodies with values from outside.
# ---------------------------------------------------------------------------

REDUCE_YIELDS_OUTER = """
entry @k(%x: tile<ptr<f32>>, %s: tile<f32>, %y: tile<ptr<f32>>) {
  %tok = make_token : token
  %c0 = constant <i32: 0> : tile<i32>
  %tv = make_tensor_view %x, shape = [8, 32], strides = [32, 1] : tensor_view<8x32xf32, strides=[32,1]>
  %pv = make_partition_view %tv : partition_view<tile=(8x32), tensor_view<8x32xf32, strides=[32,1]>>
  %t, %t1 = load_view_tko weak %pv[%c0, %c0] token = %tok : partition_view<tile=(8x32), tensor_view<8x32xf32, strides=[32,1]>>, tile<i32> -> tile<8x32xf32>, token
  %r = reduce %t dim=1 identities=[0.0 : f32] : tile<8x32xf32> -> tile<8xf32>
  (%a: tile<f32>, %b: tile<f32>) {
    %m = maxf %a, %b : tile<f32>
    %n = maxf %m, %s : tile<f32>
    yield %n : tile<f32>
  }
  %q = scan %r dim=0 reverse=false identities=[0.0 : f32] : tile<8xf32> -> tile<8xf32>
  (%a: tile<f32>, %b: tile<f32>) {
    yield %s : tile<f32>
  }
  %o = addf %r, %q : tile<8xf32>
  %tvy = make_tensor_view %y, shape = [8], strides = [1] : tensor_view<8xf32, strides=[1]>
  %pvy = make_partition_view %tvy : partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>
  %t2 = store_view_tko weak %o, %pvy[%c0] token = %tok : tile<8xf32>, partition_view<tile=(8), tensor_view<8xf32, strides=[1]>>, tile<i32> -> token
  return
}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_reduce_and_scan_bodies_yielding_and_combining_with_outer_values(arch: str) -> None:
    ptx = compile_text(REDUCE_YIELDS_OUTER, arch=arch)
    assert run_ptxas(ptx, arch).ok
    x = np.random.default_rng(18).standard_normal((8, 32)).astype(np.float32)
    s = np.float32(0.5)
    want = np.zeros(8, np.float32)
    interpret(parse_module_text(REDUCE_YIELDS_OUTER, "k.mlir"), 1, x, s, want)
    got = np.zeros(8, np.float32)
    simulate(ptx, (1, 1, 1), [x, s, got])
    np.testing.assert_array_equal(got, want)
    # A scan whose body yields %s gives %s past the first element.
    reduced = np.maximum(x.max(axis=1), s)
    np.testing.assert_array_equal(want[1:], reduced[1:] + s)


# ---------------------------------------------------------------------------
# File names in PTX strings.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ['my "kernel".py', "caf\u00e9/k.py", "back\\slash.py"])
def test_source_file_names_ptx_strings_cannot_hold_verbatim_assemble(name: str) -> None:
    text = (
        f'entry @k(%p: tile<ptr<f32>>) {{\n  %c = constant <f32: 1.0> : tile<f32> loc("{name}":3:4)\n'
        "  %t = make_token : token\n"
        "  %s = store_ptr_tko weak %p, %c token = %t : tile<ptr<f32>>, tile<f32> -> token\n"
        "  return\n}\n"
    ).replace('"' + name + '"', '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"')
    ptx = compile_text(text, line_info=True)
    assert ".file 1 " in ptx
    report = run_ptxas(ptx, "sm_80", extra=["-lineinfo"])
    assert report.ok, report.output


# ---------------------------------------------------------------------------
# A second set, written after the first was fixed (issue 18 re-check): edge values the
# compiler folds, PTX keywords as kernel names, and deep nesting of other kinds.
# ---------------------------------------------------------------------------


def _stored(body: str, t: str) -> str:
    """A kernel computing `%r : tile<t>` from constants in `body` and storing it."""
    return (
        f"entry @k(%p: tile<ptr<{t}>>) {{\n{body}\n"
        f"  %s = store_ptr_tko weak %p, %r : tile<ptr<{t}>>, tile<{t}> -> token\n  return\n}}\n"
    )


def _binary(op: str, t: str, a: object, b: object, modifier: str = "") -> str:
    return _stored(
        f"  %a = constant <{t}: {a}> : tile<{t}>\n  %b = constant <{t}: {b}> : tile<{t}>\n"
        f"  %r = {op} %a, %b {modifier}: tile<{t}>",
        t,
    )


#: Integer and float edge cases the constant folder meets: division by zero and the one
#: overflowing quotient, shifts past the width, conversions of inf and NaN, INT_MIN.
FOLDED_EDGES = {
    "divi_by_zero": (_binary("divi", "i32", 7, 0, "signed "), np.int32),
    "divi_min_by_minus_one": (_binary("divi", "i32", -2147483648, -1, "signed "), np.int32),
    "remi_by_zero_unsigned": (_binary("remi", "i32", 7, 0, "unsigned "), np.int32),
    "shli_past_the_width": (_binary("shli", "i32", 1, 1000), np.int32),
    "shri_signed_past_the_width": (_binary("shri", "i32", -1, 1000, "signed "), np.int32),
    "remf_by_zero": (_binary("remf", "f32", 1.0, 0.0), np.float32),
    "ftoi_of_nan": (
        _stored(
            "  %a = constant <f32: 0x7FC00000> : tile<f32>\n"
            "  %r = ftoi %a signed : tile<f32> -> tile<i32>",
            "i32",
        ),
        np.int32,
    ),
    "ftoi_of_inf_to_u8": (
        _stored(
            "  %a = constant <f32: 0x7F800000> : tile<f32>\n"
            "  %r = ftoi %a unsigned : tile<f32> -> tile<i8>",
            "i8",
        ),
        np.int8,
    ),
    "negi_of_int_min": (
        _stored(
            "  %a = constant <i32: -2147483648> : tile<i32>\n  %r = negi %a : tile<i32>", "i32"
        ),
        np.int32,
    ),
    "itof_of_i64_max_to_f16": (
        _stored(
            "  %a = constant <i64: 9223372036854775807> : tile<i64>\n"
            "  %r = itof %a signed : tile<i64> -> tile<f16>",
            "f16",
        ),
        np.float16,
    ),
}


@pytest.mark.parametrize("case", sorted(FOLDED_EDGES))
def test_edge_values_fold_as_the_instructions_compute_them(case: str) -> None:
    """ptxas takes the PTX, and what it stores is what the interpreter computes (the
    folded constant agrees with the unfolded instruction)."""
    text, dtype = FOLDED_EDGES[case]
    ptx = compile_text(text)
    assert run_ptxas(ptx, "sm_80").ok
    want = np.zeros(1, dtype)
    interpret(parse_module_text(text, "k.mlir"), 1, want)
    got = np.zeros(1, dtype)
    simulate(ptx, (1, 1, 1), [got])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["add", "ret", "reg", "k" * 4000])
def test_ptx_keywords_and_long_names_are_kernel_names_ptxas_takes(name: str) -> None:
    ptx = compile_text(f'entry @"{name}"() {{\n  return\n}}\n')
    assert f".visible .entry {name}(" in ptx
    assert run_ptxas(ptx, "sm_80").ok


def _nested_fors(depth: int) -> str:
    loops = "".join(
        "  " * i + f"  for %i{i} in (%z to %o, step %o) : tile<i32> {{\n" for i in range(depth)
    )
    ends = "".join("  " * i + "  }\n" for i in reversed(range(depth)))
    return (
        "entry @k() {\n  %z = constant <i32: 0> : tile<i32>\n  %o = constant <i32: 1> : tile<i32>\n"
        + loops
        + ends
        + "  return\n}\n"
    )


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        (_nested_fors(70), "regions nested deeper than 64", 70),
        (
            "entry @k(%a: tile<" + "ptr<" * 500 + "f32" + ">" * 500 + ">) {\n  return\n}\n",
            "nests too deeply",
            1,
        ),
        (
            "entry @k() {\n  %z = constant <i32: 0> : tile<i32>\n  %o = constant <i32: 1> : tile<i32>\n"
            "  for %i in (%z to %o, step %o) : tile<i32> {\n    %x = addi %x, %i : tile<i32>\n  }\n"
            "  return\n}\n",
            "does not dominate this use",
            5,
        ),
        (
            "entry @k() {\n  %t = constant <f32: 0.0> : tile<8xf32>\n"
            "  %r = reduce %t dim=4294967296 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>\n"
            "  (%a: tile<f32>, %b: tile<f32>) {\n    yield %a : tile<f32>\n  }\n  return\n}\n",
            "out of range for i32",
            3,
        ),
    ],
    ids=["for_nested_70", "pointer_type_nested_500", "self_use_in_a_loop", "reduce_dim_2_32"],
)
def test_more_nesting_and_range_errors_are_located(text: str, message: str, line: int) -> None:
    e = error_of(text)
    assert message in e.message
    assert e.location is not None and e.location.line == line


def test_a_call_site_chain_300_deep_and_a_newline_in_a_file_name_assemble() -> None:
    deep = "callsite(" * 300 + '"a.py":1:1' + ' at "b.py":2:2)' * 300
    text = f"entry @k() {{\n  return loc({deep})\n}}\n"
    ptx = compile_text(text, line_info=True)
    assert run_ptxas(ptx, "sm_80", extra=["-lineinfo"]).ok
    ptx = compile_text('entry @k() {\n  return loc("a\\nb.py":1:1)\n}\n', line_info=True)
    assert run_ptxas(ptx, "sm_80", extra=["-lineinfo"]).ok


# ---------------------------------------------------------------------------
# A third set, held out from the fixes (issue 18's re-check).
# ---------------------------------------------------------------------------


def _pointer_parameters(n: int) -> str:
    params = ", ".join(f"%a{i}: tile<ptr<f32>>" for i in range(n))
    return f"entry @k({params}) {{\n  return\n}}\n"


def test_parameters_past_4352_bytes_take_ptx_8_1_and_assemble() -> None:
    """545 pointers are 4360 bytes of parameters: more than PTX before 8.1 allows, so
    the module says `.version 8.1` (ptxas rejected sm_80's 7.0 with them)."""
    ptx = compile_text(_pointer_parameters(545))
    assert ".version 8.1" in ptx
    assert run_ptxas(ptx, "sm_80").ok
    assert ".version 7.0" in compile_text(_pointer_parameters(544))


def test_parameters_past_32764_bytes_are_an_error_at_the_kernel() -> None:
    """4097 pointers are 32776 bytes: past what PTX allows any kernel (ptxas rejected
    them, and tileir-as called that a tileir bug)."""
    e = error_of(_pointer_parameters(4097))
    assert "takes 4097 parameters of 32776 bytes" in e.message
    assert e.location is not None and e.location.line == 1


HELD_OUT = {
    "constant_literal_count": (
        "%c = constant <f32: [1.0, 2.0, 3.0]> : tile<4xf32>",
        "does not match type",
    ),
    "tile_past_the_element_limit": (
        "%c = constant <f32: 1.0> : tile<1048576x1024xf32>",
        "maximum of 16777216 elements",
    ),
    "permute_repeats_a_dimension": (
        "%t = constant <f32: 0.0> : tile<4x8xf32>\n"
        "  %r = permute %t [0, 0] : tile<4x8xf32> -> tile<4x4xf32>",
        "permutation elements to be unique",
    ),
    "bitcast_of_another_width": (
        "%x = constant <i32: 1> : tile<i32>\n  %r = bitcast %x : tile<i32> -> tile<f16>",
        "types must be equal width",
    ),
    "broadcast_to_fewer_elements": (
        "%t = constant <f32: 1.0> : tile<8xf32>\n  %r = broadcast %t : tile<8xf32> -> tile<4xf32>",
        "compatible with that of the result tile",
    ),
    "mmaf_of_mismatched_k": (
        "%a = constant <f16: 1.0> : tile<16x16xf16>\n"
        "  %b = constant <f16: 1.0> : tile<32x16xf16>\n"
        "  %c = constant <f32: 0.0> : tile<16x16xf32>\n"
        "  %r = mmaf %a, %b, %c : tile<16x16xf16>, tile<32x16xf16>, tile<16x16xf32>",
        "dim 1 of lhs (16) and dim 0 of rhs (32) must match",
    ),
    "if_with_results_and_no_else": (
        "%c = constant <i1: true> : tile<i1>\n  %r = if %c -> (tile<i32>) {\n"
        "    %x = constant <i32: 1> : tile<i32>\n    yield %x : tile<i32>\n  }",
        "must define else branch",
    ),
    "reduce_with_an_identity_too_many": (
        "%t = constant <f32: 0.0> : tile<8xf32>\n"
        "  %r = reduce %t dim=0 identities=[0.0 : f32, 1.0 : f32] : tile<8xf32> -> tile<f32>\n"
        "  (%a: tile<f32>, %b: tile<f32>) {\n    yield %a : tile<f32>\n  }",
        "1 operands and 2 identities",
    ),
    "assume_bounds_inverted": (
        "%x = constant <i32: 1> : tile<i32>\n  %y = assume bounded<5, 1>, %x : tile<i32>",
        "lower bound to be less than or equal to upper bound",
    ),
    "assume_div_by_zero": (
        "%x = constant <i32: 1> : tile<i32>\n  %y = assume div_by<0>, %x : tile<i32>",
        "divisor must be a power of 2",
    ),
    "loop_carries_another_type": (
        "%z = constant <i32: 0> : tile<i32>\n  %f = constant <f32: 0.0> : tile<f32>\n"
        "  %r = for %i in (%z to %z, step %z) : tile<i32> iter_values(%a = %z) -> (tile<i32>) {\n"
        "    continue %f : tile<f32>\n  }",
        "should have operand types that match the parent loop return types",
    ),
    "tensor_view_stride_zero": (
        "%p = constant <i64: 0> : tile<i64>\n"
        "  %q = int_to_ptr %p : tile<i64> -> tile<ptr<f32>>\n"
        "  %tv = make_tensor_view %q, shape = [64], strides = [0] : "
        "tensor_view<64xf32, strides=[0]>",
        "expected strictly positive integer, got 0",
    ),
}


@pytest.mark.parametrize("case", sorted(HELD_OUT))
def test_held_out_invalid_kernels_are_located_errors(case: str) -> None:
    body, message = HELD_OUT[case]
    e = error_of(f"entry @k() {{\n  {body}\n  return\n}}\n")
    assert message in e.message
    assert e.location is not None and 2 <= e.location.line <= 2 + body.count("\n")
