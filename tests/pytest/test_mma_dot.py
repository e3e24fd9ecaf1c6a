"""Tensor-core `mmaf` (`tileir/conversions/tileas_to_llvm/mma.py`): the MMA
accumulator layout, the warp grid, GEMMs of other types, tile shapes and ragged
sizes in the PTX simulator against numpy, and the diagnostics for what is not
supported yet.  The corpus kernel `gemm_f16` is the main end-to-end check
(`test_corpus_simulated.py`, `test_corpus_compile.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, parse_module_text
from tileir.conversions.tileas_to_llvm.mma import accumulator_layout, warp_grid
from tileir.dialects.nv_tileas.core_matrices import OperandBuffer
from tileir.dialects.nv_tileas.layouts import LinearLayout
from tileir.dialects.nv_tileas.mma_layout import MmaLayoutAttr, effective_warps
from tileir.testing import simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def test_warp_grid_uses_every_warp_it_can() -> None:
    assert warp_grid(64, 32, 4) == (4, 1)
    assert warp_grid(32, 64, 4) == (2, 2)
    assert warp_grid(16, 64, 4) == (1, 4)
    assert warp_grid(16, 8, 4) == (4, 1)  # one block: three warps hold copies
    assert warp_grid(128, 128, 8) == (8, 1)
    assert effective_warps((16, 8), 4, 1) == (1, 1)
    assert effective_warps((32, 64), 4, 1) == (2, 1)


@pytest.mark.parametrize(("m", "n", "warps"), [(64, 32, 4), (32, 64, 4), (16, 8, 4), (32, 16, 1)])
def test_accumulator_layout_is_the_mma_fragment(m: int, n: int, warps: int) -> None:
    layout = accumulator_layout(m, n, warps)
    held: dict[tuple[int, ...], set[int]] = {}
    for w in range(warps):
        for lane in range(32):
            for r in range(layout.num_registers):
                coord = layout.coord(r, lane, w)
                held.setdefault(coord, set()).add(w)
                # Fragment element f of a 16x8 block: rows g, g+8 and columns 2c, 2c+1.
                g, c, f = lane // 4, lane % 4, r % 4
                assert coord[0] % 16 == g + 8 * (f >> 1)
                assert coord[1] % 8 == 2 * c + (f & 1)
    assert len(held) == m * n
    # Every element is held by the same number of warps: those left over.
    em, en = effective_warps((m, n), *warp_grid(m, n, warps))
    assert {len(ws) for ws in held.values()} == {warps // (em * en)}


def test_mma_layout_attribute_prints_parses_and_verifies() -> None:
    from xdsl.context import Context
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import VerifyException

    from tileir.dialects.nv_tileas import NvTileAS

    attr = MmaLayoutAttr(2, 2)
    assert str(attr) == "#nv_tileas.mma<{warpsPerCTA = [2, 2]}>"
    ctx = Context()
    ctx.load_dialect(NvTileAS)
    assert Parser(ctx, str(attr)).parse_attribute() == attr
    assert attr.linear((32, 64)) == accumulator_layout(32, 64, 4)
    with pytest.raises(VerifyException, match="powers of two"):
        MmaLayoutAttr(3, 1)
    # A row reduction's slice of it: the 1-wide column is held by the lanes of a row.
    row = attr.linear((32, 1))
    assert {row.coord(0, lane, 0) for lane in range(32)} == {(r, 0) for r in range(8)}


def _gemm_text(dtype: str, tm: int, tn: int, tk: int) -> str:
    text = (CORPUS / "gemm_f16.mlir").read_text()
    for old, new in (
        (
            "tile=(64x32), padding_value = zero, tensor_view<?x?xf16",
            "tile=(@A), padding_value = zero, tensor_view<?x?xf16",
        ),
        ("tile=(32x32)", "tile=(@B)"),
        ("tile=(64x32), tensor_view<?x?xf32", "tile=(@C), tensor_view<?x?xf32"),
        ("tile<64x32xf16>", "tile<@Axf16>"),
        ("tile<32x32xf16>", "tile<@Bxf16>"),
        ("tile<64x32xf32>", "tile<@Cxf32>"),
    ):
        assert old in text
        text = text.replace(old, new)
    text = text.replace("@A", f"{tm}x{tk}").replace("@B", f"{tk}x{tn}").replace("@C", f"{tm}x{tn}")
    return text.replace("f16", dtype)


def _check_gemm(
    ptx: str, dtype: str, tile: tuple[int, int, int], size: tuple[int, int, int]
) -> None:
    """`_gemm_text`'s kernel compiled to `ptx`, simulated on an M x N x K problem of
    `dtype` (f16 or bf16) operands, against numpy."""
    import ml_dtypes

    tm, tn, tk = tile
    m, n, k = size
    np_type = np.float16 if dtype == "f16" else ml_dtypes.bfloat16
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (m, k)).astype(np_type)
    b = rng.uniform(-1, 1, (k, n)).astype(np_type)
    c = np.zeros((m, n), dtype=np.float32)
    grid = (-(-m // tm), -(-n // tn), 1)
    simulate(ptx, grid, [a, m, k, k, 1, b, k, n, n, 1, c, m, n, n, 1, -(-k // tk)])
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(
    ("dtype", "tile", "size", "arch"),
    [
        ("bf16", (64, 32, 32), (128, 96, 96), "sm_90a"),
        ("f16", (32, 64, 16), (70, 136, 40), "sm_80"),  # ragged M, N and K
        ("f16", (16, 8, 16), (40, 24, 56), "sm_100a"),  # one 16x8 block: spare warps
    ],
)
def test_gemm_variants_match_numpy(
    dtype: str, tile: tuple[int, int, int], size: tuple[int, int, int], arch: str
) -> None:
    tm, tn, tk = tile
    ptx = compile_module(parse_module_text(_gemm_text(dtype, tm, tn, tk), "gemm.mlir"), arch).ptx
    assert ptx is not None
    _check_gemm(ptx, dtype, tile, size)


@pytest.mark.parametrize(
    ("dtype", "tile", "arch"),
    [
        ("f32", (32, 32, 16), "sm_80"),  # f32 operands: no tensor-core path
        ("f16", (16, 16, 8), "sm_90a"),  # K tile not a multiple of 16
        ("f64", (16, 8, 8), "sm_100a"),
    ],
)
def test_other_dots_run_on_fma(dtype: str, tile: tuple[int, int, int], arch: str) -> None:
    """Dots the tensor cores do not take are computed with FMAs in the accumulator's
    type (ragged sizes)."""
    tm, tn, tk = tile
    text = _gemm_text(dtype, tm, tn, tk)
    if dtype == "f64":
        text = (
            text.replace("xf32", "xf64").replace("<f32:", "<f64:").replace("ptr<f32>", "ptr<f64>")
        )
    ptx = compile_module(parse_module_text(text, "gemm.mlir"), arch).ptx
    assert ptx is not None
    assert "mma.sync" not in ptx
    np_type = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[dtype]
    out_type = np.float64 if dtype == "f64" else np.float32
    m, n, k = 40, 24, 3 * tk + 8  # strides stay multiples of 8 elements, as declared
    rng = np.random.default_rng(13)
    a = rng.uniform(-1, 1, (m, k)).astype(np_type)
    b = rng.uniform(-1, 1, (k, n)).astype(np_type)
    c = np.zeros((m, n), dtype=out_type)
    grid = (-(-m // tm), -(-n // tn), 1)
    simulate(ptx, grid, [a, m, k, k, 1, b, k, n, n, 1, c, m, n, n, 1, -(-k // tk)])
    expected = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-12 if dtype == "f64" else 1e-5
    np.testing.assert_allclose(c, expected, rtol=tol, atol=tol * 10)


def _tf32_gemm_text(tm: int, tn: int, tk: int) -> str:
    """`_gemm_text` on f32 arrays whose tiles are rounded to tf32 (`ftof`, nearest
    even) before the `mmaf`, as cuTile's `astype(ct.tfloat32)` writes it."""
    text = _gemm_text("f32", tm, tn, tk)
    a, b, c = f"tile<{tm}x{tk}", f"tile<{tk}x{tn}", f"tile<{tm}x{tn}"
    mma = f"%2 = mmaf %tile, %tile_25, %iterArg0 : {a}xf32>, {b}xf32>, {c}xf32>"
    assert mma in text
    return text.replace(
        mma,
        f"%ta = ftof %tile : {a}xf32> -> {a}xtf32>\n"
        f"    %tb = ftof %tile_25 : {b}xf32> -> {b}xtf32>\n"
        f"    %2 = mmaf %ta, %tb, %iterArg0 : {a}xtf32>, {b}xtf32>, {c}xf32>",
    )


def _round_to_tf32(x: np.ndarray) -> np.ndarray:
    """Round to nearest even at tf32's 10th fraction bit (finite f32 values)."""
    bits = x.view(np.uint32).astype(np.uint64)
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & ~np.uint64(0x1FFF)
    return bits.astype(np.uint32).view(np.float32)


@pytest.mark.parametrize(
    ("arch", "tile", "size", "warps", "instruction"),
    [
        ("sm_80", (64, 32, 32), (128, 96, 96), 4, "mma.sync.aligned.m16n8k8.row.col.f32.tf32"),
        ("sm_100a", (32, 64, 16), (70, 136, 40), 4, "mma.sync.aligned.m16n8k8"),  # ragged
        ("sm_90a", (64, 32, 32), (128, 96, 96), 4, "wgmma.mma_async.sync.aligned.m64n32k8."),
        ("sm_90a", (128, 128, 32), (200, 136, 64), 8, "wgmma.mma_async.sync.aligned.m64n128k8"),
        ("sm_90a", (32, 64, 32), (64, 128, 64), 4, "mma.sync.aligned.m16n8k8"),  # 2 x 2 warps
        ("sm_80", (16, 8, 4), (40, 24, 24), 4, None),  # K tile 4: FMAs
    ],
)
def test_tf32_dots(
    arch: str,
    tile: tuple[int, int, int],
    size: tuple[int, int, int],
    warps: int,
    instruction: str | None,
) -> None:
    """f32 tiles rounded to tf32, then `mmaf`: `mma.sync` m16n8k8 (A by `ldmatrix.x4`, B
    written N x K and read by a plain `ldmatrix.x2`), sm_90a's `wgmma` m64nNk8 (both
    operands K-major, no transpose immediates), or FMAs where the K tile is no multiple
    of 8; against numpy on the rounded operands, and accepted by ptxas."""
    tm, tn, tk = tile
    module = parse_module_text(_tf32_gemm_text(tm, tn, tk), "gemm.mlir")
    ptx = compile_module(module, arch, num_warps=warps).ptx
    assert ptx is not None
    if instruction is None:
        assert "mma" not in ptx and "fma.rn.f32" in ptx
    else:
        assert instruction in ptx and ".tf32.tf32" in ptx
    if "wgmma" in (instruction or ""):
        assert "mma.sync" not in ptx and "ldmatrix" not in ptx
    assert run_ptxas(ptx, arch).ok
    m, n, k = size
    rng = np.random.default_rng(21)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.zeros((m, n), dtype=np.float32)
    grid = (-(-m // tm), -(-n // tn), 1)
    simulate(ptx, grid, [a, m, k, k, 1, b, k, n, n, 1, c, m, n, n, 1, -(-k // tk)])
    expected = _round_to_tf32(a).astype(np.float64) @ _round_to_tf32(b).astype(np.float64)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


FIXTURES = Path(__file__).resolve().parent / "bytecode_fixtures" / "cutile"


@pytest.mark.parametrize(
    ("signs", "arch", "size"),
    [
        ("signed signed", "sm_80", 32),
        ("unsigned signed", "sm_90a", 32),  # 2x2 warps: mma.sync
        ("signed unsigned", "sm_100a", 32),
        ("signed signed", "sm_90a", 64),  # 4x1 warps: wgmma
        ("unsigned signed", "sm_90a", 64),
        ("signed unsigned", "sm_90a", 64),
        ("signed unsigned", "sm_100a", 64),  # tcgen05 kind::i8, M = 64
        ("unsigned signed", "sm_100a", 128),  # M = 128
    ],
)
def test_mmai_is_exact(signs: str, arch: str, size: int) -> None:
    """cuTile's `matmul_i8` export (one i8 tile, i32 accumulator) with each operand's
    signedness: `mma.sync` m16n8k32 on s8/u8, or on sm_90a with 64-row tiles `wgmma`
    m64nNk32 (mixed signs need PTX ISA 8.4, newer than sm_90a's lowest, 8.0), on sm_100a
    with 64 rows or more `tcgen05.mma.kind::i8` (the instruction descriptor's A/B type
    codes spell the signedness); exact against numpy, accepted by ptxas."""
    text = (FIXTURES / "matmul_i8.13.4.mlir").read_text().replace("32x32", f"{size}x{size}")
    assert "signed signed :" in text
    text = text.replace("signed signed :", f"{signs} :")
    ptx = compile_module(parse_module_text(text, "matmul_i8.mlir"), arch).ptx
    assert ptx is not None
    sign_a, sign_b = signs.split()
    kinds = ["u8" if sign == "unsigned" else "s8" for sign in (sign_a, sign_b)]
    if arch == "sm_90a" and size == 64:
        assert f"wgmma.mma_async.sync.aligned.m64n64k32.s32.{kinds[0]}.{kinds[1]}" in ptx
        assert (".version 8.4" in ptx) == (kinds[0] != kinds[1])
    elif arch == "sm_100a" and size >= 64:
        assert "tcgen05.mma.cta_group::1.kind::i8" in ptx
    else:
        assert f"mma.sync.aligned.m16n8k32.row.col.s32.{kinds[0]}.{kinds[1]}.s32" in ptx
    assert run_ptxas(ptx, arch).ok
    _check_mmai(ptx, signs, size, 5)


def _check_mmai(ptx: str, signs: str, size: int, seed: int) -> None:
    """The `matmul_i8` export's PTX, simulated on random i8 tiles, equals numpy's
    product of the operands read with `signs`."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, (size, size)).astype(np.int8)
    b = rng.integers(-128, 128, (size, size)).astype(np.int8)
    c = np.zeros((size, size), dtype=np.int32)
    dims = [size, size, size, 1]
    simulate(ptx, (1, 1, 1), [a, *dims, b, *dims, c, *dims])
    sign_a, sign_b = signs.split()
    wa = a.view(np.uint8) if sign_a == "unsigned" else a
    wb = b.view(np.uint8) if sign_b == "unsigned" else b
    np.testing.assert_array_equal(c, wa.astype(np.int64) @ wb.astype(np.int64))


def test_loop_carried_accumulator_stays_in_mma_registers() -> None:
    """tileas-assign-layouts gives the K loop's accumulator the MMA layout: each
    iteration only waits for its operands, which cp.async copies put in a ring of two
    slots (tileas-pipeline-dot-operands; two barriers around the tensor cores, one
    after the loop).  The result then goes once through the arena to a layout of four
    f32 a thread (tileas-widen-stores; one more barrier, between its writes and reads:
    nothing writes shared memory after the reads, so none closes them,
    llvm-defer-read-barriers) and is stored in 16-byte vectors, no longer in the MMA
    registers' 8-byte ones."""
    from tileir.compiler import load_module

    ptx = compile_module(load_module(CORPUS / "gemm_f16.mlir"), "sm_80").ptx
    assert ptx is not None
    # The epilogue's 64 rows of 32 f32 + 32 bytes (10240), then the ring: two slots of
    # A (64 rows of 32 halves + 16 bytes) and B (32 rows of 32 halves + 16 bytes).
    assert ptx.count(".shared .align 16 .b8 tileir_xchg_0[25600];") == 1
    assert ptx.count("bar.sync 0;") == 4
    assert "st.global.v4.b32" in ptx and "st.global.v2.b32" not in ptx


def test_cutile_matmul_export_casts_and_stores_from_mma_registers() -> None:
    """cuTile's `matmul_f16` export: 64x64 accumulator over a K loop of 64x32 by
    32x64 f16 tiles, cast to f16 and stored (through shared memory, in 16-byte vectors:
    tileas-widen-stores); ragged M and N."""
    text = (FIXTURES / "matmul_f16.13.4.mlir").read_text()
    ptx = compile_module(parse_module_text(text, "matmul_f16.mlir"), "sm_90a").ptx
    assert ptx is not None
    m, n, k = 80, 72, 64
    rng = np.random.default_rng(11)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.zeros((m, n), dtype=np.float16)
    simulate(ptx, (2, 2, 1), [a, m, k, k, 1, b, k, n, n, 1, c, m, n, n, 1, k // 32])
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(c, expected.astype(np.float16), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize(
    ("arch", "instruction"),
    [
        ("sm_80", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"),
        ("sm_90a", "wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16"),
    ],
)
def test_f16_accumulator(arch: str, instruction: str) -> None:
    """mmaf with an f16 accumulator: `mma.sync .f16.f16.f16.f16` (sm_80) or `wgmma
    ... .f16.f16.f16` (sm_90a), two halves per accumulator register; each K step
    rounds to f16."""
    text = _gemm_text("f16", 64, 32, 32).replace("xf32", "xf16").replace("<f32:", "<f16:")
    text = text.replace("A2f32", "A2f16").replace("ptr<f32>", "ptr<f16>")
    ptx = compile_module(parse_module_text(text, "gemm.mlir"), arch).ptx
    assert ptx is not None
    assert instruction in ptx
    m, n, k = 128, 64, 64
    rng = np.random.default_rng(9)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.zeros((m, n), dtype=np.float16)
    simulate(ptx, (m // 64, n // 32, 1), [a, m, k, k, 1, b, k, n, n, 1, c, m, n, n, 1, k // 32])
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), expected, rtol=1e-2, atol=1e-2)


# -- sm_90a: wgmma ------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "tile", "size", "warps"),
    [
        ("f16", (64, 32, 32), (128, 96, 96), 4),  # one warpgroup, two K steps
        ("bf16", (128, 64, 32), (200, 136, 64), 4),  # two row slabs per warpgroup, ragged
        ("f16", (128, 128, 32), (256, 136, 96), 8),  # two warpgroups
        ("f16", (64, 256, 16), (64, 256, 48), 4),  # N = 256: the widest wgmma
        ("f16", (64, 512, 16), (64, 512, 16), 4),  # two 256-wide blocks
        ("f16", (64, 64, 32), (128, 200, 64), 8),  # 4 x 2 warps: warpgroups along N
        ("bf16", (128, 128, 32), (128, 128, 32), 16),  # 8 x 2 warps: 2 x 2 warpgroups
        ("f16", (64, 512, 16), (64, 512, 16), 8),  # 256 columns per warpgroup
    ],
)
def test_sm90a_dots_run_on_wgmma(
    dtype: str, tile: tuple[int, int, int], size: tuple[int, int, int], warps: int
) -> None:
    """On sm_90a a dot whose warps lie along M in whole warpgroups runs on
    `wgmma.mma_async` (A and B through no-swizzle K-major descriptors), matching numpy
    in the simulator."""
    tm, tn, tk = tile
    module = parse_module_text(_gemm_text(dtype, tm, tn, tk), "gemm.mlir")
    ptx = compile_module(module, "sm_90a", num_warps=warps).ptx
    assert ptx is not None
    # Warps grow for accumulators over 64 registers a thread (64x256 on 4: 8 warps).
    warps = max(warps, 8 if tm * tn > 64 * warps * 32 else warps)
    # A K loop of one or two warpgroups may be warp-specialized: a producer warpgroup
    # besides (one warpgroup with K steps to pipeline always is).
    specialized = "setmaxnreg" in ptx
    assert not specialized or warps in (4, 8)
    if warps == 4 and size[2] > tk:
        assert specialized
    assert f".reqntid {32 * (warps + 4 * specialized)}, 1, 1" in ptx
    per_group = tn // warp_grid(tm, tn, warps)[1]  # a warpgroup's columns
    assert f"wgmma.mma_async.sync.aligned.m64n{min(per_group, 256)}k16.f32.{dtype}.{dtype}" in ptx
    assert "mma.sync" not in ptx and "ldmatrix" not in ptx
    # Operands the threads store (`st.shared`) reach `wgmma` through a proxy fence; ring
    # copies need none (a group cut by the edge is a zero-filling `cp.async` of its
    # in-bounds prefix, `async_copy._prefix_copy`). The simulator reports a missing one.
    if "cp.async" not in ptx:
        assert "fence.proxy.async.shared::cta;" in ptx
    _check_gemm(ptx, dtype, tile, size)


@pytest.mark.parametrize(
    ("arch", "m", "signs"),
    [
        ("sm_80", 32, "signed signed"),
        ("sm_90a", 64, "unsigned signed"),
        ("sm_100a", 16, "signed unsigned"),
    ],
)
def test_mmai_with_k_16(arch: str, m: int, signs: str) -> None:
    """An i8 dot over K = 16 (half of m16n8k32's K): one `mma.sync` m16n8k16 step from
    `ldmatrix.x2`/`.x1` fragments, exact; sm_90a keeps `mma.sync` (wgmma's 8-bit K is
    32)."""
    from elementwise_kernels import dot_kernel_text

    text = dot_kernel_text("i8", "i8", "i32", m, 32, 16, f"mmai {signs}")
    ptx = compile_module(parse_module_text(text, "k.mlir"), arch).ptx
    assert ptx is not None
    kinds = ["u8" if sign == "unsigned" else "s8" for sign in signs.split()]
    assert f"mma.sync.aligned.m16n8k16.row.col.s32.{kinds[0]}.{kinds[1]}.s32" in ptx
    assert "m16n8k32" not in ptx and "wgmma" not in ptx
    assert run_ptxas(ptx, arch).ok
    rng = np.random.default_rng(29)
    a = rng.integers(-128, 128, (m, 16)).astype(np.int8)
    b = rng.integers(-128, 128, (16, 32)).astype(np.int8)
    c0 = rng.integers(-1000, 1000, (m, 32)).astype(np.int32)
    got = c0.copy()
    simulate(ptx, (1, 1, 1), [a, b, got])
    wa = a.view(np.uint8) if kinds[0] == "u8" else a
    wb = b.view(np.uint8) if kinds[1] == "u8" else b
    np.testing.assert_array_equal(got, wa.astype(np.int64) @ wb.astype(np.int64) + c0)


@pytest.mark.parametrize(
    ("arch", "tile", "warps"),
    [
        ("sm_80", (64, 32, 32), 4),  # no wgmma before Hopper
        ("sm_100a", (32, 64, 32), 4),  # nor after it (tcgen05 takes M = 64 or 128)
        ("sm_90a", (32, 64, 32), 4),  # 2 x 2 warps: no whole warpgroup along M
        ("sm_90a", (64, 64, 32), 2),  # fewer warps than a warpgroup
    ],
)
def test_dots_that_keep_mma_sync(arch: str, tile: tuple[int, int, int], warps: int) -> None:
    tm, tn, tk = tile
    module = parse_module_text(_gemm_text("f16", tm, tn, tk), "gemm.mlir")
    ptx = compile_module(module, arch, num_warps=warps).ptx
    assert ptx is not None
    assert "mma.sync.aligned.m16n8k16" in ptx
    assert "wgmma" not in ptx


@pytest.mark.parametrize(
    ("shape", "k_dim", "size", "mn_major", "pad"),
    [
        ((32, 64), 0, 2, True, 16),  # B, 16-bit: MN-major
        ((32, 64), 0, 2, False, 0),
        ((64, 256), 0, 1, False, 32),  # B, 8-bit: K-major
        ((16, 8), 0, 2, True, 0),
        ((64, 32), 1, 2, False, 32),  # A: K-major
        ((128, 64), 1, 1, False, 0),
        ((32, 64), 0, 4, False, 16),  # B, tf32: K-major
        ((64, 16), 1, 4, False, 0),  # A, tf32
    ],
)
def test_operand_buffer_places_elements_as_the_descriptor_reads_them(
    shape: tuple[int, int], k_dim: int, size: int, mn_major: bool, pad: int
) -> None:
    """Every element (row r, column k) of an operand written through the buffer's
    view lands where the no-swizzle canonical layout puts it for the buffer's LBO and
    SBO (K-major: lines are rows of 16 bytes of K; MN-major: lines are K indices of 8
    rows), each element once, within the buffer."""
    from tileir.conversions.tileas_to_llvm.wgmma import OperandBuffer
    from tileir.dialects.nv_tileas.layouts import default_blocked

    layout = default_blocked(shape, 4, 8).linear(shape)
    k = shape[k_dim]
    buffer = OperandBuffer(shape[1 - k_dim], k, size, mn_major, pad)
    seen: set[int] = set()
    for kk, row, address in _written(layout, buffer, k_dim):
        if mn_major:
            core = (row % 8) * size + (kk % 8) * 16
            expected = core + (kk // 8) * buffer.lbo + (row // 8) * buffer.sbo
        else:
            t = 16 // size
            core = (row % 8) * 16 + (kk % t) * size
            expected = core + (kk // t) * buffer.lbo + (row // 8) * buffer.sbo
        assert address == expected
        assert 0 <= address < buffer.bytes
        seen.add(address)
    assert len(seen) == shape[0] * shape[1]
    assert buffer.lbo % 16 == 0 and buffer.sbo % 16 == 0


def _written(
    layout: LinearLayout, buffer: OperandBuffer, k_dim: int
) -> Iterator[tuple[int, int, int]]:
    """`(k, row, byte address)` of every element of `layout` (K along `k_dim`) written
    through `buffer`'s view, swizzled as the buffer is."""
    from tileir.dialects.nv_tileas.core_matrices import swizzled

    view, strides, swizzle = buffer.view(layout, k_dim)
    for w in range(layout.num_warps):
        for lane in range(32):
            for r in range(layout.num_registers):
                coord = layout.coord(r, lane, w)
                linear = sum(x * s for x, s in zip(view.coord(r, lane, w), strides, strict=True))
                yield coord[k_dim], coord[1 - k_dim], swizzled(linear, swizzle)


def test_operand_buffers_are_padded_against_bank_conflicts() -> None:
    """gemm_f16's 64x32 A and 32x32 B (blocked, 8 halves per thread): swizzling A's
    K-major lines 64 bytes wide and padding B's MN-major core matrices apart make the
    16-byte stores conflict-free (A as dense as without either)."""
    from tileir.conversions.tileas_to_llvm.exchange import vector_conflict_ways
    from tileir.conversions.tileas_to_llvm.wgmma import OperandBuffer, operand_buffers
    from tileir.dialects.nv_tileas.layouts import default_blocked

    a_layout = default_blocked((64, 32), 4, 8).linear((64, 32))
    b_layout = default_blocked((32, 32), 4, 8).linear((32, 32))
    a, b = operand_buffers((64, 32, 32), 2, (a_layout, b_layout), 48 * 1024)
    assert not a.mn_major and b.mn_major
    assert (a.swizzle, a.bytes, b.swizzle) == (64, 4096, 0) and b.pad > 0
    # Without room for the padding, the buffers are dense (a 64-by-32 and a 32-by-32
    # f16 tile: 4096 + 2048 bytes).
    dense = operand_buffers((64, 32, 32), 2, (a_layout, b_layout), 6144)
    assert [x.pad for x in dense] == [0, 0] and sum(x.bytes for x in dense) == 6144
    for buffer, layout, k_dim in ((a, a_layout, 1), (b, b_layout, 0)):
        unpadded = OperandBuffer(buffer.rows, buffer.k, 2, buffer.mn_major, 0)
        assert vector_conflict_ways(*unpadded.view(layout, k_dim)[:2], 2) > 1
        view, strides, swizzle = buffer.view(layout, k_dim)
        assert vector_conflict_ways(view, strides, 2, swizzle) == 1


@pytest.mark.parametrize(
    ("shape", "k_dim", "size", "swizzle", "wn"),
    [
        ((64, 32), 1, 2, 64, 1),  # gemm_f16's A
        ((128, 64), 1, 2, 128, 1),  # A, two warpgroups
        ((64, 64), 0, 2, 128, 2),  # K-major 16-bit B (attention's K), two column groups
        ((128, 64), 0, 1, 128, 1),  # 8-bit B
        ((64, 128), 1, 1, 64, 1),  # 8-bit A, two 64-byte columns
        ((32, 64), 0, 4, 128, 1),  # tf32 B
        ((16, 64), 1, 4, 32, 1),  # tf32 A, 32-byte lines
    ],
)
def test_swizzled_buffer_places_elements_as_the_isa_decoder_reads_them(
    shape: tuple[int, int], k_dim: int, size: int, swizzle: int, wn: int
) -> None:
    """Every element of a swizzled K-major operand written through the buffer's view (and
    `swizzled`) lands where the simulator's ISA-tested descriptor decoder
    (`ptx_wgmma._k_major_offsets` and its XOR) reads it for the descriptor the lowering
    builds: LBO/SBO, the swizzle mode, each K step's start (`k_offset`) and each 64-row
    block's or `wn`-interleaved 8-row group's (`row_offset`, SBO times `wn`); each K step
    starts in the first line of an aligned atom, as the decoder requires."""
    from tileir.conversions.tileas_to_llvm.wgmma import SWIZZLE_MODE
    from tileir.dialects.nv_tileas.core_matrices import OperandBuffer
    from tileir.dialects.nv_tileas.layouts import default_blocked
    from tileir.testing.ptx_wgmma import _SWIZZLE_WIDTH, _k_major_offsets

    assert _SWIZZLE_WIDTH[SWIZZLE_MODE[swizzle]] == swizzle
    layout = default_blocked(shape, 4, 8).linear(shape)
    rows, k = shape[1 - k_dim], shape[k_dim]
    buffer = OperandBuffer(rows, k, size, False, swizzle=swizzle)
    assert buffer.align == 8 * swizzle and buffer.bytes == rows * k * size
    assert buffer.view(layout, k_dim).swizzle == swizzle
    step = 32 // size  # a K step's 32 bytes
    block = 64 if wn == 1 else 8 * wn  # rows one descriptor reads: a block, or interleaved
    seen: set[int] = set()
    for kk, row, address in _written(layout, buffer, k_dim):
        # The descriptor of this row's block (or column group j of wn) at K step ks.
        j = row // 8 % wn
        first = row - row % block + 8 * j
        start = buffer.row_offset(first) + buffer.k_offset(kk // step * step)
        assert start % (8 * swizzle) < swizzle
        rr = (row - first) // (8 * wn) * 8 + row % 8
        offsets = _k_major_offsets(rr + 1, swizzle, buffer.lbo, wn * buffer.sbo)
        expected = start + int(offsets[rr, kk % step * size])
        expected ^= ((expected >> 7) & (swizzle // 16 - 1)) << 4
        assert address == expected
        assert 0 <= address < buffer.bytes
        seen.add(address)
    assert len(seen) == shape[0] * shape[1]


def test_swizzle_is_chosen_where_it_conflicts_no_more_than_padding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With `SWIZZLE_OPERANDS`, gemm_f16's 64x32 A takes the 64-byte swizzle and a 128x64
    f16 A the 128-byte one: conflict-free like the padded layouts (dense pad 0 is 4- and
    8-way), and as small as dense; a K of 8 halves (one 16-byte line) keeps the padding."""
    from tileir.dialects.nv_tileas import core_matrices
    from tileir.dialects.nv_tileas.core_matrices import OperandBuffer, vector_conflict_ways
    from tileir.dialects.nv_tileas.layouts import default_blocked

    monkeypatch.setattr(core_matrices, "SWIZZLE_OPERANDS", True)
    for shape, width, dense_ways in (((64, 32), 64, 4), ((128, 64), 128, 8)):
        layout = default_blocked(shape, 4, 8).linear(shape)
        chosen = core_matrices.choose_layout(shape[0], shape[1], 2, False, layout, 1)
        assert chosen.swizzle == width and chosen.bytes == shape[0] * shape[1] * 2
        assert vector_conflict_ways(*chosen.view(layout, 1)[:2], 2, width) == 1
        dense = OperandBuffer(shape[0], shape[1], 2, False)
        assert vector_conflict_ways(*dense.view(layout, 1)[:2], 2) == dense_ways
    narrow = default_blocked((64, 8), 4, 8).linear((64, 8))
    assert core_matrices.choose_layout(64, 8, 2, False, narrow, 1).swizzle == 0


@pytest.mark.parametrize(
    ("signs", "arch", "size"),
    [
        ("signed signed", "sm_80", 2),
        ("unsigned signed", "sm_90a", 8),
        ("signed unsigned", "sm_100a", 4),
        ("unsigned unsigned", "sm_90a", 2),
    ],
)
def test_small_mmai_runs_on_multiply_adds(signs: str, arch: str, size: int) -> None:
    """i8 tiles no `mma.sync` shape fits (cuTile's `test_mma.py` multiplies 2x1 by 1x2)
    run on the CUDA cores: each operand widened to i32 by its signedness, products and
    sums modulo 2^32; exact against numpy, accepted by ptxas."""
    text = (FIXTURES / "matmul_i8.13.4.mlir").read_text().replace("32x32", f"{size}x{size}")
    text = text.replace("signed signed :", f"{signs} :")
    ptx = compile_module(parse_module_text(text, "matmul_i8.mlir"), arch).ptx
    assert ptx is not None
    assert "mma" not in ptx and "mul.lo.s32" in ptx
    assert run_ptxas(ptx, arch).ok
    _check_mmai(ptx, signs, size, 6)
