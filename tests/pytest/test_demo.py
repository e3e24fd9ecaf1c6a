"""`make demo` shows what the stages did (issue 19, item 6): the kernel's load followed
from a partition view to a masked `nv_tileaa.load`, a `tiled_load` with a 16-byte atom on a
`#blocked` layout, and `ld.global.v4`, under one name, then the remarks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tileir import demo


def test_the_demo_follows_the_load_through_the_stages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert demo.main(["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    stages = {part.split(":", 1)[0]: part for part in out.split("\n-- stage ")[1:]}
    assert list(stages) == ["cuda_tile", "tileaa", "tileas", "ptx"]
    assert "%tile, %result_token = load_view_tko" in stages["cuda_tile"]
    assert "%tile, %result_token = nv_tileaa.load" in stages["tileaa"]
    assert "#blocked = #nv_tileas.blocked<" in stages["tileas"]
    assert "%tile = nv_tileas.tiled_load" in stages["tileas"] and "ldg_128b" in stages["tileas"]
    assert "ld.global.v4" in stages["ptx"] and "st.global.v4" in stages["ptx"]
    assert "GlobalLoadVectorized" in out and "tanh_exp_f16_2d.mlir:" in out
