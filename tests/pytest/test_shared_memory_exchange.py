"""Layout conversions and permutes through shared memory
(`tileir/conversions/tileas_to_llvm/exchange.py`) and the simulator's
shared memory (`tileir/testing/ptx_shared.py`).

The corpus kernel `transpose_f32_2d` checks a whole transpose against numpy in
the simulator (`test_corpus_simulated.py`) and with ptxas (`test_corpus_compile.py`);
here: the padded buffer's strides and bank conflicts, and the simulator's `.shared`
arrays, `ld.shared`/`st.shared`, races and bounds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileir.compiler import compile_module, parse_module_text
from tileir.conversions.tileas_to_llvm.exchange import bank_conflict_ways, padded_strides
from tileir.diagnostics import CompileError
from tileir.dialects.nv_tileas.layouts import default_blocked
from tileir.testing import SimulationError, simulate


def test_padded_strides_pad_each_row_by_one_word() -> None:
    assert padded_strides([64, 32], 32) == ([132, 4], 64 * 132)
    assert padded_strides([16, 64], 16) == ([132, 2], 16 * 132)
    assert padded_strides([8, 8], 64) == ([72, 8], 8 * 72)
    assert padded_strides([128], 32) == ([4], 512)  # one row: nothing to pad
    assert padded_strides([2, 4, 8], 32) == ([144, 36, 4], 2 * 144)


def _transpose_store_strides(shape: tuple[int, int], bits: int, pad: bool) -> list[int]:
    """Byte strides, by source dimension, at which a transpose writes its source."""
    dst = [shape[1], shape[0]]
    strides, _ = padded_strides(dst, bits)
    if not pad:
        strides = [shape[0] * bits // 8, bits // 8]
    return [strides[1], strides[0]]


@pytest.mark.parametrize("shape", [(32, 64), (64, 64), (128, 32)])
def test_transpose_writes_padded_rows_with_few_bank_conflicts(shape: tuple[int, int]) -> None:
    layout = default_blocked(shape, 4, 4).linear(shape)
    padded = bank_conflict_ways(layout, _transpose_store_strides(shape, 32, pad=True))
    dense = bank_conflict_ways(layout, _transpose_store_strides(shape, 32, pad=False))
    # Four consecutive elements per thread put a warp's columns four rows apart:
    # at most two lanes share a bank once rows are padded, instead of 8 to 32.
    assert padded <= 2
    assert dense >= 8


def test_reads_in_the_result_layout_are_conflict_free() -> None:
    shape = (64, 32)
    layout = default_blocked(shape, 4, 4).linear(shape)
    strides, _ = padded_strides(shape, 32)
    assert bank_conflict_ways(layout, strides) == 1


def _kernel(body: str, ntid: int) -> str:
    return f"""
.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
.reqntid {ntid}, 1, 1
{{
.reg .b32 %r<12>;
.reg .b64 %rd<6>;
.reg .pred %p<2>;
.shared .align 16 .b8 buf[512];
ld.param.u64 %rd1, [out];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, %tid.x;
mov.u32 %r2, buf;
{body}
ret;
}}
"""


def test_shared_array_per_cta_exchanges_through_a_barrier() -> None:
    body = """
shl.b32 %r3, %r1, 2;
add.s32 %r4, %r2, %r3;
mov.u32 %r5, %ctaid.x;
mad.lo.s32 %r6, %r5, 1000, %r1;
st.shared.b32 [%r4], %r6;
bar.sync 0;
add.s32 %r7, %r1, 1;
and.b32 %r7, %r7, 31;
shl.b32 %r8, %r7, 2;
add.s32 %r9, %r2, %r8;
ld.shared.b32 %r10, [%r9];
mad.lo.s32 %r11, %r5, 32, %r1;
mul.wide.u32 %rd3, %r11, 4;
add.s64 %rd4, %rd2, %rd3;
st.global.b32 [%rd4], %r10;
"""
    out = np.zeros(64, dtype=np.int32)
    simulate(_kernel(body, 32), (2, 1, 1), [out])
    lanes = (np.arange(32) + 1) % 32
    np.testing.assert_array_equal(out, np.concatenate([lanes, 1000 + lanes]))


def test_unordered_shared_writes_of_one_byte_race() -> None:
    body = """
st.shared.b32 [%r2], %r1;
"""
    with pytest.raises(SimulationError, match="also writes this byte"):
        simulate(_kernel(body, 32), (1, 1, 1), [np.zeros(1, dtype=np.int32)])


def test_shared_access_past_the_array_is_out_of_bounds() -> None:
    body = """
ld.shared.b32 %r3, [%r2+512];
"""
    with pytest.raises(SimulationError, match="outside every array"):
        simulate(_kernel(body, 32), (1, 1, 1), [np.zeros(1, dtype=np.int32)])


def test_malformed_shared_declaration_is_reported() -> None:
    ptx = _kernel("", 32).replace(".shared .align 16 .b8 buf[512];", ".shared .f32 buf;")
    with pytest.raises(SimulationError, match="unsupported shared-memory declaration"):
        simulate(ptx, (1, 1, 1), [np.zeros(1, dtype=np.int32)])


CORPUS = Path(__file__).resolve().parents[1] / "corpus"


@pytest.mark.parametrize(
    ("dtype", "tile", "arch"),
    [
        ("f16", (16, 64), "sm_80"),  # 16-bit elements, two per bank word
        ("f32", (8, 16), "sm_90a"),  # a small tile: one element per thread
        ("i8", (32, 32), "sm_100a"),  # bytes in 16-bit registers
    ],
)
def test_transpose_variants_match_numpy(dtype: str, tile: tuple[int, int], arch: str) -> None:
    """The corpus transpose with other element types and tile shapes."""
    text = (CORPUS / "transpose_f32_2d.mlir").read_text()
    tm, tn = tile
    text = text.replace("tile=(32x64)", f"tile=({tm}x{tn})").replace(
        "tile=(64x32)", f"tile=({tn}x{tm})"
    )
    text = text.replace("tile<32x64xf32>", f"tile<{tm}x{tn}xf32>").replace(
        "tile<64x32xf32>", f"tile<{tn}x{tm}xf32>"
    )
    text = text.replace("f32", dtype).replace("div_by<4>", "div_by<1>")
    ptx = compile_module(parse_module_text(text, "transpose.mlir"), arch).ptx
    assert ptx is not None
    np_type = {"f16": np.float16, "f32": np.float32, "i8": np.int8}[dtype]
    m, n = 4 * tm, 3 * tn
    x = np.random.default_rng(1).uniform(-100, 100, (m, n)).astype(np_type)
    out = np.zeros((n, m), dtype=np_type)
    simulate(ptx, (m // tm, n // tn, 1), [x, m, n, n, 1, out, n, m, m, 1])
    np.testing.assert_array_equal(out, x.T)


def test_contiguous_aligned_registers_move_together() -> None:
    from xdsl.dialects.builtin import f16, f32

    from tileir.conversions.tileas_to_llvm.exchange import ElementKind, vector_width

    half = ElementKind(16, False, f16)
    single = ElementKind(32, False, f32)
    layout = default_blocked((64, 32), 4, 8).linear((64, 32))  # 8 contiguous per thread
    # 16-byte padded rows (the dot's operand buffers): whole 16-byte vectors.
    assert vector_width(layout, [32 * 2 + 16, 2], half) == 8
    # One-word padding keeps rows 4-byte aligned only: pairs of halves.
    assert vector_width(layout, [32 * 2 + 4, 2], half) == 2
    four = default_blocked((64, 32), 4, 4).linear((64, 32))
    assert vector_width(four, [32 * 4 + 4, 4], single) == 1
    assert vector_width(four, [32 * 4 + 16, 4], single) == 4
    # Written transposed: no register runs along the buffer's rows.
    assert vector_width(four, [4, 64 * 4 + 4], single) == 1


def test_gemm_operands_reach_shared_memory_in_16_byte_stores() -> None:
    from tileir.compiler import load_module

    ptx = compile_module(load_module(CORPUS / "gemm_f16.mlir"), "sm_80").ptx
    assert ptx is not None
    lines = [line.strip() for line in ptx.splitlines()]
    stores = [s for s in lines if "st.shared" in s]
    # The f16 operands go from global memory straight into their ring slots
    # (tileas-pipeline-dot-operands): one 16-byte cp.async per group of 8 halves, and
    # element by element only where the mask cuts a group (guarded by t_none).
    copies = [s for s in lines if s.startswith("@t_all cp.async")]
    assert copies and all(s.endswith(", 16;") and ".cg." in s for s in copies)
    operands = [s for s in stores if "%f" not in s]
    assert operands and all(s.startswith("@t_none st.shared.b16") for s in operands)
    # The f32 accumulator (%f), staged for 16-byte global stores (tileas-widen-stores),
    # as the MMA fragment's pairs, into rows padded so that those are aligned too.
    epilogue = [s for s in stores if "%f" in s]
    assert len(epilogue) == 8 and all("st.shared.v2.b32" in s for s in epilogue)


def test_exchanges_of_a_kernel_share_one_arena() -> None:
    """attention_f16 exchanges several times (the key tile's transpose, both dots'
    operands, layout conversions); each exchange ends at a barrier, so all of them
    reuse one arena as large as the largest."""
    from tileir.compiler import load_module

    ptx = compile_module(load_module(CORPUS / "attention_f16.mlir"), "sm_80").ptx
    assert ptx is not None
    assert ptx.count(".shared .align 16 .b8 tileir_xchg_") == 1
    assert ptx.count("bar.sync 0;") >= 8


FIXTURES = Path(__file__).resolve().parent / "bytecode_fixtures" / "cutile"


@pytest.mark.parametrize(("i", "j", "arch"), [(0, 0, "sm_80"), (1, 0, "sm_90a"), (1, 1, "sm_100a")])
def test_cat_permute_extract_match_numpy(i: int, j: int, arch: str) -> None:
    """cuTile's `shapes` export: `cat((t, t), axis=0)`, `permute((1, 0))`, `extract`
    of a 16x16 sub-tile at tile coordinates (i, j), `bitcast` and `where`."""
    text = (FIXTURES / "shapes.13.4.mlir").read_text()
    for name, value in (
        ("%cst_0_i32_15 = constant <i32: 0>", i),
        ("%cst_0_i32_16 = constant <i32: 0>", j),
    ):
        assert name in text
        text = text.replace(name, name.replace("<i32: 0>", f"<i32: {value}>"))
    ptx = compile_module(parse_module_text(text, "shapes.mlir"), arch).ptx
    assert ptx is not None
    rng = np.random.default_rng(2)
    x = rng.uniform(-4, 4, (16, 32)).astype(np.float32)
    x[0, :4] = [0.0, -0.0, 1.0, -1.0]
    out = np.zeros((16, 16), dtype=np.float32)
    out2 = np.zeros(32, dtype=np.int32)
    simulate(ptx, (1, 1, 1), [x, 16, 32, 32, 1, out, 16, 16, 16, 1, out2, 32, 1])
    p = np.concatenate([x, x], axis=0).T
    e = p[16 * i : 16 * i + 16, 16 * j : 16 * j + 16]
    expected = np.where(e.view(np.int32) > 0, e, -e)
    np.testing.assert_array_equal(out.view(np.int32), expected.view(np.int32))
    np.testing.assert_array_equal(out2, np.arange(32))


@pytest.mark.parametrize("arch", ["sm_80", "sm_100a"])
def test_pack_and_unpack_bytes(arch: str) -> None:
    """cuTile's `packing` export: the bytes of a 64 x f32 tile, and back."""
    text = (FIXTURES / "packing.13.4.mlir").read_text()
    ptx = compile_module(parse_module_text(text, "packing.mlir"), arch).ptx
    assert ptx is not None
    x = np.random.default_rng(4).uniform(-4, 4, 64).astype(np.float32)
    x[:3] = [np.nan, -0.0, np.inf]
    out = np.zeros(256, dtype=np.uint8)
    out2 = np.zeros(64, dtype=np.float32)
    simulate(ptx, (1, 1, 1), [x, 64, 1, out, 256, 1, out2, 64, 1])
    np.testing.assert_array_equal(out, x.view(np.uint8))
    np.testing.assert_array_equal(out2.view(np.uint32), x.view(np.uint32))


def test_an_exchange_over_the_arena_budget_is_reported_at_its_op() -> None:
    """A 128x256 f32 transpose needs 129 KiB of buffer (rows padded): more than the
    99 KiB a CTA may use on sm_86, a located diagnostic, not a ptxas failure."""
    text = (CORPUS / "transpose_f32_2d.mlir").read_text()
    text = text.replace("tile=(32x64)", "tile=(128x256)").replace("tile=(64x32)", "tile=(256x128)")
    text = text.replace("tile<32x64xf32>", "tile<128x256xf32>").replace(
        "tile<64x32xf32>", "tile<256x128xf32>"
    )
    expected = (
        r"exceeds the shared memory limit: an exchange \(written as ct\.transpose / "
        r"ct\.permute in cuTile: cuda_tile\.permute\) needs 132096 bytes \(101376 are "
        r"available: a CTA may use 101376 bytes of shared memory on sm_86\); make the tile "
        r"smaller"
    )
    with pytest.raises(CompileError, match=expected) as e:
        compile_module(parse_module_text(text, "transpose.mlir"), "sm_86")
    assert "nv_tileas.shuffle" in str(e.value)
