"""Batched (rank-3) tensor-core dots keep their loop-carried accumulator in the
`mma.sync` registers (`#nv_tileas.mma<{warpsPerCTA = [1, wm, wn]}>`,
`tileir/transforms/tileas/mma_layouts.py`)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tileir.compiler import compile_module, load_module
from tileir.conversions.tileas_to_llvm.mma import accumulator_layout
from tileir.dialects.nv_tileas.mma_layout import MmaLayoutAttr

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]


def test_batched_mma_layout_holds_each_matrix_in_the_2d_fragment() -> None:
    """`#nv_tileas.mma<{warpsPerCTA = [1, wm, wn]}>`: a batched accumulator, each
    matrix of the batch in the 2-D layout, the batch index in the highest registers
    (what the `mma.sync` lowering reads and writes in place)."""
    from xdsl.context import Context
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import VerifyException

    from tileir.dialects.nv_tileas import NvTileAS
    from tileir.dialects.nv_tileas.mma_layout import batched_fragment

    attr = MmaLayoutAttr(2, 2, batched=True)
    assert str(attr) == "#nv_tileas.mma<{warpsPerCTA = [1, 2, 2]}>"
    assert attr.rank == 3 and (attr.wm, attr.wn) == (2, 2)
    ctx = Context()
    ctx.load_dialect(NvTileAS)
    assert Parser(ctx, str(attr)).parse_attribute() == attr
    linear = attr.linear((4, 32, 32))
    assert linear == batched_fragment(accumulator_layout(32, 32, 4), 4)
    per_matrix = accumulator_layout(32, 32, 4).num_registers
    assert linear.coord(per_matrix * 3, 5, 1) == (3, *accumulator_layout(32, 32, 4).coord(0, 5, 1))
    with pytest.raises(VerifyException, match=r"\[1, M, N\]"):
        Parser(ctx, "#nv_tileas.mma<{warpsPerCTA = [2, 2, 1]}>").parse_attribute().verify()


def _loop_body(ptx: str) -> str:
    """The PTX of the first `scf.for` loop: from its body label to its back edge."""
    head = re.search(r"^(\$L__\w+)_2:$", ptx, re.MULTILINE)
    assert head is not None
    end = ptx.index(f"bra.uni {head.group(1)}_1;", head.end())
    return ptx[head.end() : end]


@pytest.mark.parametrize(("name", "arch"), [("batched_matmul_f16", "sm_90a")])
def test_batched_accumulator_stays_in_mma_registers(name: str, arch: str) -> None:
    """A batched (2x32x32) dot's loop-carried accumulator takes the batched MMA layout
    (`mma_layouts.mma_layout_for`): the K loop's one barrier is the ring's (the slot's
    reads before it is refilled), and it no longer writes and reads the accumulator
    through shared memory (32 stores, 32 loads and three more barriers an iteration
    before); the result is converted once, after the loop.  Simulated against numpy."""
    ptx = compile_module(load_module(CORPUS / f"{name}.tileirbc"), arch).ptx
    assert ptx is not None
    body = _loop_body(ptx)
    assert body.count("mma.sync.aligned") == 8
    assert body.count("bar.sync") == 1
    assert "st.shared" not in body and "ld.shared" not in body
    _common.simulate_case(name, ptx, 0)


def test_four_matrix_batch_permuted_after_the_loop() -> None:
    """A batch of four (two batch bits in the registers) whose accumulator is permuted
    (each matrix transposed) on its way to the store: the conversion out of the batched
    MMA layout after the loop, simulated on sm_80 against numpy."""
    import numpy as np

    from tileir.compiler import parse_module_text
    from tileir.testing import simulate

    text = (CORPUS / "batched_matmul_f16.mlir").read_text().replace("2x32x32", "4x32x32")
    store = "%1 = store_view_tko weak %for, %pview_39[%blockId_x, %blockId_y_32, %blockId_z_36]"
    assert store in text
    text = text.replace(
        store,
        "%t = permute %for [0, 2, 1] : tile<4x32x32xf32> -> tile<4x32x32xf32>\n"
        "  %1 = store_view_tko weak %t, %pview_39[%blockId_x, %blockId_z_36, %blockId_y_32]",
    )
    ptx = compile_module(parse_module_text(text, "batched_transposed.mlir"), "sm_80").ptx
    assert ptx is not None
    b, m, n, k = 4, 64, 96, 64
    rng = np.random.default_rng(5)
    lhs = rng.uniform(-1, 1, (b, m, k)).astype(np.float16)
    rhs = rng.uniform(-1, 1, (b, k, n)).astype(np.float16)
    inputs = _common.make_kernel_inputs(
        params=("a", "b", "c", "k_tiles"),
        arrays={"a": lhs, "b": rhs, "c": _common.empty_output((b, n, m), np.float32)},
        scalars={"k_tiles": k // 32},
        outputs=("c",),
        grid=(1, m // 32, n // 32),
    )
    simulate(ptx, inputs["grid"], _common.flatten_args(inputs))
    expected = np.transpose(lhs.astype(np.float64) @ rhs.astype(np.float64), (0, 2, 1))
    np.testing.assert_allclose(inputs["arrays"]["c"], expected, rtol=1e-5, atol=1e-4)
