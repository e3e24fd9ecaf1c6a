"""sm_100a's tcgen05 rings take the whole-tile test and the counted edge copies
(`tile_bounds.py`, `async_copy._counted_copy`) where a tile's 16-byte groups are cut by
the edge: the tiles inside the matrix copy unpredicated, and a group cut by the edge is
one `cp.async` whose `src-size` counts its elements in bounds, instead of a load and a
store an element.

`gemm_f16` (64 x 32 x 32 tiles, one CTA of 128 threads) with M 50, N 28 and K 44 in
rows padded to 48 and 32 elements (strides stay multiples of 8, as its signature
requires): A's K edge cuts its groups at columns 40..47 (four in bounds), B's N edge at
24..31 (four), and A's rows 50..63 are out.  The padding holds large values, so a copy
that reads past an edge, or drops an element in bounds, changes the product.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_prefix_copies import shorten_prefix_counts

from tileir.compiler import compile_module, load_module
from tileir.testing import simulate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SEED = 20261128
M, N, K = 50, 28, 44
#: The rows' strides (elements) of A (M x K) and of B and C (K x N, M x N).
A_ROW, B_ROW = 48, 32
#: What the padding past each edge holds.
BEYOND = 8.0


def _ptx() -> str:
    out = compile_module(load_module(CORPUS / "gemm_f16.mlir"), "sm_100a").ptx
    assert out is not None
    return out


def _run(text: str) -> None:
    rng = np.random.default_rng(SEED)
    a = np.full((M, A_ROW), BEYOND, dtype=np.float16)
    a[:, :K] = rng.uniform(-1, 1, (M, K))
    b = np.full((K, B_ROW), BEYOND, dtype=np.float16)
    b[:, :N] = rng.uniform(-1, 1, (K, N))
    c = np.full((M, B_ROW), -1.0, dtype=np.float32)
    k_tiles = -(-K // 32)
    args = [a, M, K, A_ROW, 1, b, K, N, B_ROW, 1, c, M, N, B_ROW, 1, k_tiles]
    simulate(text, (1, 1, 1), args)
    expected = a[:, :K].astype(np.float64) @ b[:, :N].astype(np.float64)
    np.testing.assert_allclose(c[:, :N], expected, rtol=1e-5, atol=1e-4)
    assert (c[:, N:] == -1.0).all()  # nothing stored past C's edge


def test_tcgen05_ring_copies_count_the_edge() -> None:
    text = _ptx()
    assert "tcgen05.mma" in text
    # Both rings: a whole-tile test, then a count a column of groups on the edge path
    # and one sized copy a group; no element path (`_copy`'s `tileir_copied`).
    assert text.count("bra.uni tileir_whole;") >= 2
    assert "min.s32 t_c0, t_c0, 8;" in text
    assert "selp.b32 t_n, t_c0, 0, t_p;" in text
    assert "tileir_copied" not in text
    _run(text)


def test_a_count_one_element_short_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The counts one element short (at most 7 of 8): A's element at column 39 and
    B's at 23 of the groups cut by the edge... and every full group's last element
    read as zero, which numpy sees."""
    shorten_prefix_counts(monkeypatch)
    text = _ptx()
    assert "min.s32 t_c0, t_c0, 7;" in text
    with pytest.raises(AssertionError):
        _run(text)
