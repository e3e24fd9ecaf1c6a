"""The llvm stage verified while ptxas runs (`compile_module(defer_final_verification=
True)`, `tileir-as` to a cubin): the same checks as before, and an invalid module is
reported as the verifier reports it, with no output written."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tileir import compiler
from tileir.backend.ptx.ptxas import find_ptxas
from tileir.compiler import compile_module, load_module
from tileir.diagnostics import CompileError
from tileir.driver import assembler

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
KERNEL = CORPUS / "vadd_f32.tileirbc"

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")


@dataclass(frozen=True)
class BreakLlvmStage(ModulePass):
    """Puts a `llvm.return` before the first op of each function: a terminator in the
    middle of its block, which the verifier rejects and the PTX printer does not."""

    name = "test-break-llvm-stage"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.walk():
            if isinstance(func, llvm.FuncOp) and func.body.blocks:
                block = func.body.blocks.first
                assert block is not None and block.first_op is not None
                block.insert_op_before(llvm.ReturnOp(), block.first_op)


def _break_last_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    real = compiler.stage_passes

    def stage_passes(*args: object, **kwargs: object) -> list[tuple[str, list[ModulePass]]]:
        stages = real(*args, **kwargs)  # type: ignore[arg-type]
        stage, passes = stages[-1]
        return [*stages[:-1], (stage, [*passes, BreakLlvmStage()])]

    monkeypatch.setattr(compiler, "stage_passes", stage_passes)


def test_the_deferred_verification_is_the_last_stages(monkeypatch: pytest.MonkeyPatch) -> None:
    verified: list[int] = []
    real = compiler.verify_module

    def verify(module: ModuleOp) -> None:
        verified.append(1)
        real(module)

    monkeypatch.setattr(compiler, "verify_module", verify)
    plain = compile_module(load_module(KERNEL), "sm_90a")
    everywhere = len(verified)
    verified.clear()
    deferred = compile_module(load_module(KERNEL), "sm_90a", defer_final_verification=True)
    assert deferred.verification_pending and len(verified) == everywhere - 1
    deferred.verify_deferred()
    assert not deferred.verification_pending and len(verified) == everywhere
    assert deferred.ptx == plain.ptx


def test_an_invalid_module_fails_the_deferred_verification(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _break_last_stage(monkeypatch)
    result = compile_module(load_module(KERNEL), "sm_90a", defer_final_verification=True)
    assert result.ptx is not None  # the printer took it ...
    with pytest.raises(CompileError) as deferred:
        result.verify_deferred()  # ... the verifier does not
    with pytest.raises(CompileError) as in_order:
        compile_module(load_module(KERNEL), "sm_90a")
    assert str(deferred.value) == str(in_order.value)


def test_a_printer_failure_on_an_invalid_module_reports_the_verifier(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _break_last_stage(monkeypatch)

    def module_to_ptx(*args: object, **kwargs: object) -> str:
        raise RuntimeError("the printer met IR it cannot print")

    monkeypatch.setattr(compiler, "module_to_ptx", module_to_ptx)
    with pytest.raises(CompileError, match=r"terminator|last operation"):
        compile_module(load_module(KERNEL), "sm_90a", defer_final_verification=True)


@needs_ptxas
def test_tileir_as_reports_an_invalid_llvm_stage_and_writes_no_cubin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _break_last_stage(monkeypatch)
    messages = []
    for output in ("k.cubin", "k.ptx"):  # verified while ptxas runs / in order
        status = assembler.run([str(KERNEL), "--gpu-name", "sm_90", "-o", str(tmp_path / output)])
        assert status == 1
        assert not (tmp_path / output).exists()
        messages.append(capsys.readouterr().err)
    assert "error" in messages[0] and messages[0] == messages[1]
