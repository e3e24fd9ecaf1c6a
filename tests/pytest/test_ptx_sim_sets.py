"""The simulator's sets by sorting (`ptx_numeric.unique`, `unique_counts`, `unique_inverse`)
give exactly what `np.unique` gives, for the dtypes and sizes the simulator uses them on."""

from __future__ import annotations

import numpy as np
import pytest

from tileir.testing.ptx_numeric import unique, unique_counts, unique_inverse


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32, np.uint32, np.bool_])
@pytest.mark.parametrize("size", [0, 1, 2, 7, 4096])
@pytest.mark.parametrize("high", [2, 1000, 1 << 40])
def test_sets_by_sorting_equal_np_unique(dtype: type, size: int, high: int) -> None:
    rng = np.random.default_rng(size * 31 + high)
    a = rng.integers(0, high, size=size).astype(dtype)
    expected = np.unique(a)
    got = unique(a)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    values, counts = np.unique(a, return_counts=True)
    got_values, got_counts = unique_counts(a)
    np.testing.assert_array_equal(got_values, values)
    np.testing.assert_array_equal(got_counts, counts)
    values, inverse = np.unique(a, return_inverse=True)
    got_values, got_inverse = unique_inverse(a)
    np.testing.assert_array_equal(got_values, values)
    np.testing.assert_array_equal(got_inverse, inverse.reshape(-1))
    np.testing.assert_array_equal(got_values[got_inverse], a)


def test_unique_flattens_like_np_unique() -> None:
    a = np.array([[3, 1, 3], [2, 1, 0]], dtype=np.int64)
    np.testing.assert_array_equal(unique(a), np.unique(a))
