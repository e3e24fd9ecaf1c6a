"""Reductions whose body is one symmetric op of its two arguments (`ct.sum`, `ct.max`,
bitwise ops: `reductions.symmetric_body`) combine a butterfly's pair in either order:
each lane (or warp) applies the body to (the other's value, its own), with no selects
that first put the pair in the tree's order, and both sides still hold the same bits.
Run as PTX in the simulator against the interpreter, bit for bit, across registers,
lanes and warps: an f32 sum (the tree's rounding shows), a max over signed zeros and
NaNs (-0 orders below +0 on both sides of a pair), an xor.  The order-sensitive bodies,
which keep their selects, are tests/pytest/test_order_sensitive_reductions.py's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_order_sensitive_reductions import (
    BODIES,
    REDUCE_CASES,
    assert_bit_exact,
    kernel,
    run_both,
    stacked,
)

#: body name -> (key type, payload type, identities, body lines), as BODIES.
SYMMETRIC: dict[str, tuple[str, str, str, list[str]]] = {
    "sum": (
        "f32",
        "",
        "0.000000e+00 : f32",
        ["%s = addf %e0, %a0 : tile<f32>", "yield %s : tile<f32>"],
    ),
    "max": (
        "f32",
        "",
        "0xFF800000 : f32",
        ["%m = maxf %a0, %e0 : tile<f32>", "yield %m : tile<f32>"],
    ),
    "xor": ("i32", "", "0 : i32", ["%v = xori %e0, %a0 : tile<i32>", "yield %v : tile<i32>"]),
}


def keys(body: str, shape: tuple[int, ...], dim: int, rng: np.random.Generator) -> np.ndarray:
    if body == "xor":
        return rng.integers(-(2**31), 2**31, shape, dtype=np.int64).astype(np.int32)
    x = rng.standard_normal(shape).astype(np.float32) * np.float32(1e3)
    if body != "max":
        return x
    # Rows (lines along `dim`) of negative values and -0: their maximum is -0; every
    # third row also holds a +0 (the maximum), every third a few NaNs (ignored).
    lines = np.moveaxis(-np.abs(x), dim, -1).copy()
    n = lines.shape[-1]
    flat = lines.reshape(-1, n)
    flat[:, rng.random(n) < 0.25] = np.float32(-0.0)
    for row in range(flat.shape[0]):
        if row % 3 == 1:
            flat[row, rng.integers(0, n)] = np.float32(0.0)
        elif row % 3 == 2:
            flat[row, rng.integers(0, n, 3)] = np.float32(np.nan)
    return np.ascontiguousarray(np.moveaxis(flat.reshape(lines.shape), -1, dim))


@pytest.mark.parametrize(("tile", "dim", "blocks"), [REDUCE_CASES[0], REDUCE_CASES[3]])
@pytest.mark.parametrize("body", sorted(SYMMETRIC))
def test_symmetric_reduce_without_selects_matches_interpreter(
    body: str,
    tile: tuple[int, int],
    dim: int,
    blocks: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(BODIES, body, SYMMETRIC[body])
    shape = stacked(tile, dim, blocks)
    x = keys(body, shape, dim, np.random.default_rng([len(body), *shape]))
    out = np.zeros(tuple(s for i, s in enumerate(shape) if i != dim), x.dtype)
    text = kernel("reduce", body, tile, dim, blocks=blocks)
    got, want, ptx = run_both(text, "sm_90a", [x], [out], tmp_path, blocks)
    assert_bit_exact(got, want)
    assert "shfl.sync.bfly" in ptx
    assert "selp" not in ptx, "a symmetric body's butterfly selects nothing"
    if body == "max":  # the rows' maxima: -0 where no +0 is in the row
        rows = got[0].reshape(-1)
        assert not np.isnan(rows).any() and (rows == 0).all()
        np.testing.assert_array_equal(np.signbit(rows), np.arange(rows.size) % 3 != 1)
