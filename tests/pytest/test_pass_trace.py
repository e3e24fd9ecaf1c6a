"""The IR after every pass from the command line (issue 19, item 2): `tileir-opt` and
`tileir-as` with `--print-ir-after-all`, `--print-ir-after=PASS`, `--dump-dir` and
`--time-passes`, the named pipeline `cuda-tile-to-ptx` expanded pass by pass."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tileir.driver import assembler, opt
from tileir.pipelines import stage_passes

KERNEL = str(Path(__file__).resolve().parents[1] / "corpus" / "vadd_f32.mlir")
HEADER = re.compile(r"^// -----// IR Dump After (\S+) \((.*)\) //----- //$", re.M)

#: The passes of cuda-tile-to-ptx, in order, as `stage:pass`.
STEPS = [f"{stage}:{p.name}" for stage, passes in stage_passes("sm_90a", 4) for p in passes]


def test_print_ir_after_all_expands_the_named_pipeline(capsys: pytest.CaptureFixture[str]) -> None:
    assert opt.run([KERNEL, "-p", "cuda-tile-to-ptx", "--print-ir-after-all"]) == 0
    out, err = capsys.readouterr()
    headers = HEADER.findall(err)
    assert [name for name, _ in headers] == [s.split(":")[1] for s in STEPS]
    assert headers[0][1] == f"tileaa, pass 1 of {len(STEPS)}"
    assert headers[-1][1] == f"llvm, pass {len(STEPS)} of {len(STEPS)}"
    # stdout is the result alone, as without the flag
    assert "IR Dump" not in out and "llvm.func" in out
    # each dump is the module after that pass: the tileaa dumps hold nv_tileaa ops
    tileaa_dump = err.split("IR Dump After tileaa-canonicalize")[1].split("IR Dump After")[0]
    assert "nv_tileaa." in tileaa_dump and "nv_tileas." not in tileaa_dump


def test_print_ir_after_names_passes_or_stage_runs(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [KERNEL, "-p", "cuda-tile-to-ptx", "--print-ir-after=tileas-assign-layouts,llvm:cse"]
    assert opt.run(argv) == 0
    names = [name for name, _ in HEADER.findall(capsys.readouterr().err)]
    assert names == ["tileas-assign-layouts", "cse"]


def test_print_ir_after_a_pass_that_never_ran_is_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert opt.run([KERNEL, "-p", "cuda-tile-to-ptx", "--print-ir-after=tileas-asign"]) == 1
    err = capsys.readouterr().err
    assert "no pass named tileas-asign ran" in err and "tileas:tileas-assign-layouts" in err


def test_dump_dir_writes_one_numbered_file_per_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = tmp_path / "dump"
    assert opt.run([KERNEL, "-p", "cuda-tile-to-ptx,cse", "--dump-dir", str(dump)]) == 0
    capsys.readouterr()
    names = sorted(p.name for p in dump.iterdir())
    expected = ["00_input.mlir"] + [
        f"{i:02d}_{step.split(':')[1]}.mlir" for i, step in enumerate([*STEPS, ":cse"], 1)
    ]
    assert names == expected
    assert "entry @vadd_f32" in (dump / "00_input.mlir").read_text()
    layouts = STEPS.index("tileas:tileas-assign-layouts") + 1
    assert "nv_tileas." in (dump / f"{layouts:02d}_tileas-assign-layouts.mlir").read_text()


def test_time_passes_is_a_table_of_every_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert opt.run([KERNEL, "-p", "cuda-tile-to-ptx", "--time-passes"]) == 0
    err = capsys.readouterr().err
    rows = [line.split() for line in err.splitlines() if re.search(r"\d%$", line)]
    assert [f"{r[0]}:{r[1]}" for r in rows[:-1]] == STEPS
    assert rows[-1][0] == "total" and rows[-1][-1] == "100.0%"


def test_print_between_passes_sees_the_pipeline_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert opt.run([KERNEL, "-p", "cuda-tile-to-ptx", "--print-between-passes"]) == 0
    out = capsys.readouterr().out
    assert len(HEADER.findall(out)) == len(STEPS) - 1  # between: not after the last


def test_tileir_as_traces_its_compilation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = tmp_path / "dump"
    argv = [KERNEL, "--gpu-name", "sm_90", "-o", str(tmp_path / "k.ptx")]
    assert assembler.run([*argv, "--time-passes", "--dump-dir", str(dump)]) == 0
    err = capsys.readouterr().err
    assert re.search(r"^  ptx +emit-ptx +[\d.]+ ", err, re.M)
    assert len(list(dump.iterdir())) == 1 + len(STEPS)
    assert assembler.run([*argv, "--emit=tileas", "--print-ir-after=tileas-canonicalize"]) == 0
    headers = HEADER.findall(capsys.readouterr().err)
    tileas_steps = [s for s in STEPS if not s.startswith("llvm:")]
    canonicalize = tileas_steps.index("tileas:tileas-canonicalize") + 1
    assert headers == [
        ("tileas-canonicalize", f"tileas, pass {canonicalize} of {len(tileas_steps)}")
    ]
