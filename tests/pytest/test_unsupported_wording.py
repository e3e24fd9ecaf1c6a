"""What tileir cannot compile yet, worded so that a user can act on it (issue 19): each
"not supported by tileir yet" error says what, in the user's terms (the op the user
wrote and its cuTile spelling, `tileir.user_terms`), where (the user's line), and what
to do instead; a resource the target lacks is a limit, not a gap; a gap only tileir's
own lowering can reach says it is tileir's to fix.  One test per class of message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tileir
from tileir.compiler import compile_module, parse_module_text
from tileir.diagnostics import REPORT, CompileError, not_supported
from tileir.user_terms import written_as

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
INPUTS = ROOT / "tests" / "filecheck" / "driver" / "Inputs"
ASSEMBLER = (sys.executable, "-m", "tileir.driver.assembler")
OPT = (sys.executable, "-m", "tileir.driver.opt")
LOWERED_TO_TILEAS = "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-assign-layouts"
TO_LLVM_ON_SM70 = "convert-tileas-to-llvm{arch=sm_70}"


def error_of(text: str, arch: str = "sm_80", name: str = "k.mlir") -> CompileError:
    with pytest.raises(CompileError) as e:
        compile_module(parse_module_text(text, name), arch)
    return e.value


def test_an_op_at_a_type_says_which_op_and_what_to_write_instead() -> None:
    """A rounding mode tileir has no f16 lowering for: the op as cuTile spells it, and
    the two ways out (another rounding, or f32)."""
    text = """
entry @k() {
  %v = constant <f16: 1.0> : tile<128xf16>
  %w = divf %v, %v rounding<zero> : tile<128xf16>
  %t = make_token : token
  %0 = print_tko "%f", %w token=%t : tile<128xf16> -> token
  return
}
"""
    e = error_of(text)
    first, quoted, _ = str(e).splitlines()
    assert first == (
        "k.mlir:4:3: error: 'cuda_tile.divf' op is not supported by tileir yet: rounding<zero> "
        "on f16 (written as a / b (ct.truediv) in cuTile); use rounding<nearest_even> or <approx>, "
        "or compute in f32 (ct.astype) and convert the result"
    )
    assert "divf %v, %v rounding<zero>" in quoted


def test_the_cli_prints_the_same_advice_at_the_line() -> None:
    """tileir-as, in tileiras's location form, on the driver's own input."""
    proc = subprocess.run(
        [*ASSEMBLER, str(INPUTS / "unsupported.mlir"), "--gpu-name", "sm_80", "-o", "/dev/null"],
        capture_output=True,
        text=True,
        env={**os.environ, "TILEIR_SERVER": "0"},
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert (
        "unsupported.mlir\":6:3): error: 'cuda_tile.sqrt' op is not supported by tileir yet: "
        "rounding<zero> on f16 (written as ct.sqrt in cuTile); use rounding<nearest_even> or "
        "<approx>, or compute in f32 (ct.astype) and convert the result"
    ) in proc.stderr


@pytest.mark.parametrize(
    ("fmt", "advice"),
    [
        ("%s", "; write the text into the format itself"),
        ("%*d", "; write the width and precision into the format ('%8.3f')"),
        ("%d", "; print a float with %f, %e or %g, or convert it to an integer first"),
    ],
)
def test_a_print_format_says_how_to_write_it(fmt: str, advice: str) -> None:
    text = f"""
entry @k(%x: tile<f32>) {{
  %t = make_token : token
  %0 = print_tko "{fmt}", %x token=%t : tile<f32> -> token
  return
}}
"""
    message = error_of(text, "sm_90a").message
    assert message.startswith("'nv_tileas.print' op is not supported by tileir yet: ")
    assert "(written as ct.printf / ct.print in cuTile: cuda_tile.print_tko)" in message
    assert message.endswith(advice)


def test_an_unknown_target_is_a_target_not_an_op() -> None:
    """No `'builtin.module' op` in front of a target name, and the targets to choose."""
    proc = subprocess.run(
        [*OPT, str(CORPUS / "vadd_f32.mlir"), "-p", f"{LOWERED_TO_TILEAS},{TO_LLVM_ON_SM70}"],
        capture_output=True,
        text=True,
        env={**os.environ, "TILEIR_SERVER": "0"},
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "error: target sm_70 is not supported by tileir: compile for one of sm_80, " in (
        proc.stderr
    )
    assert "' op " not in proc.stderr


def test_a_gap_of_tileirs_own_lowering_says_whose_it_is() -> None:
    """An internal op in a state no cuTile kernel leads to: the op the user wrote (the
    load), and that the gap is tileir's, with what to send."""
    case = ROOT / "tests" / "filecheck" / "conversions" / "tileas_to_llvm_tiled_memory_invalid.mlir"
    text = case.read_text().split("// -----")[0]  # a tiled load at coordinate 1, line 13
    module = tileir.load(text, name=str(case))
    module = tileir.run_pass(module, "tileas-assign-layouts")
    with pytest.raises(CompileError) as e:
        tileir.run_pass(module, "convert-tileas-to-llvm{arch=sm_80}")
    assert e.value.message == (
        "'nv_tileas.tiled_load' op is not supported by tileir yet: a tiled access of a pointer "
        "view at a coordinate or offset other than 0 (written as ct.load in cuTile: "
        f"cuda_tile.load_view_tko); {REPORT}"
    )
    assert e.value.location is not None and e.value.location.line == 13


def test_a_resource_limit_is_a_limit_in_the_users_terms() -> None:
    """A 256x256 f32 transpose: the exchange is named as the user wrote it, worded as a
    limit of the target with what to change, and nowhere as "not supported"."""
    text = (CORPUS / "transpose_f32_2d.mlir").read_text()
    text = text.replace("tile=(32x64)", "tile=(256x256)").replace("tile=(64x32)", "tile=(256x256)")
    text = text.replace("tile<32x64xf32>", "tile<256x256xf32>")
    text = text.replace("tile<64x32xf32>", "tile<256x256xf32>")
    message = error_of(text, "sm_90a", "transpose.mlir").message
    assert "exceeds the shared memory limit: an exchange (written as ct.transpose" in message
    assert message.endswith(
        "make the tile smaller, or compile for a target with more shared memory per CTA"
    )
    assert "not supported" not in message


def test_user_terms_name_the_op_the_user_wrote() -> None:
    """An internal op names its cuda_tile origin and cuTile's spelling; a cuda_tile op
    its spelling only; one cuTile has no spelling for, nothing; and `instead` replaces
    the default advice."""
    module = tileir.load((CORPUS / "row_reduce_2d.mlir").read_text(), name="r.mlir")
    reduce_op = next(op for op in module.walk() if op.name == "cuda_tile.reduce")
    assert written_as(reduce_op) == (
        " (written as ct.sum / ct.max / ct.min / ct.prod / ct.argmax / ct.reduce in cuTile)"
    )
    view = next(op for op in module.walk() if op.name == "cuda_tile.make_tensor_view")
    assert written_as(view) == ""
    tileas = tileir.compile(module, arch="sm_80", stop_after="tileas").tileas.module
    assert tileas is not None
    lowered = next(op for op in tileas.walk() if op.name == "nv_tileas.reduce")
    assert written_as(lowered) == (
        " (written as ct.sum / ct.max / ct.min / ct.prod / ct.argmax / ct.reduce in cuTile: "
        "cuda_tile.reduce)"
    )
    message = not_supported(lowered, "a thing", instead="do another").message
    assert message == (
        f"'nv_tileas.reduce' op is not supported by tileir yet: a thing{written_as(lowered)}; "
        "do another"
    )
    assert not_supported(view).message.endswith(f"is not supported by tileir yet; {REPORT}")
