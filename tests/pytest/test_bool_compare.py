"""Ordered comparisons of i1 tiles (`cmpi less_than %a, %b, signed : tile<Nxi1>`), as
cuTile writes `a < b` on two boolean arrays: compiled by tileir and run in the PTX
simulator, against numpy and against the interpreter.

An i1 is 1 when true as an unsigned number and -1 as a signed one, so that signed, true
is *below* false (`true < false` holds); PTX has no ordered compare of predicates, so the
lowering spells each as `and`/`or` of one value with the other's negation
(`instructions._emit_i1_order`).  NVIDIA's held-out `t_binary_cmp_gt_bool` and
`t_binary_cmp_lt_bool` did not compile before (issue: held-out kernels tileir rejects).
"""

from __future__ import annotations

import numpy as np
import pytest
from elementwise_kernels import compile_text, kernel_text, run_kernel

from tileir.compiler import parse_module_text
from tileir.interpreter import launch

PREDICATES = {
    "less_than": np.less,
    "less_than_or_equal": np.less_equal,
    "greater_than": np.greater,
    "greater_than_or_equal": np.greater_equal,
    "equal": np.equal,
    "not_equal": np.not_equal,
}
N = 128


def operands() -> tuple[np.ndarray, np.ndarray]:
    """Every pair of i1 values, many times over, in an order no lane pattern repeats."""
    rng = np.random.default_rng(7)
    a = np.tile([False, False, True, True], N // 4)
    b = np.tile([False, True, False, True], N // 4)
    order = rng.permutation(N)
    return a[order], b[order]


def reference(predicate: str, signedness: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The comparison of the i1 values as integers: 0/1 unsigned, 0/-1 signed."""
    scale = -1 if signedness == "signed" else 1
    return PREDICATES[predicate](a.astype(np.int8) * scale, b.astype(np.int8) * scale)


@pytest.mark.parametrize("signedness", ["signed", "unsigned"])
@pytest.mark.parametrize("predicate", PREDICATES)
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_bool_compare_matches_numpy_and_interpreter(
    predicate: str, signedness: str, arch: str
) -> None:
    text = kernel_text([f"%r = cmpi {predicate} %x0, %x1, {signedness} -> i1"], ["i1", "i1"], "i1")
    a, b = operands()
    want = reference(predicate, signedness, a, b)
    got = run_kernel(compile_text(text, arch), [a, b], np.dtype(np.bool_))
    np.testing.assert_array_equal(got, want)
    interpreted = np.zeros(N, np.bool_)
    launch(parse_module_text(text, "kernel.mlir"), (1, 1, 1), a.copy(), b.copy(), interpreted, N)
    np.testing.assert_array_equal(interpreted, want)


def test_signed_true_is_below_false() -> None:
    """The one case where signed and unsigned orders differ, spelled out."""
    text = kernel_text(["%r = cmpi less_than %x0, %x1, signed -> i1"], ["i1", "i1"], "i1")
    a = np.array([True, False] * (N // 2))
    b = np.array([False, True] * (N // 2))
    got = run_kernel(compile_text(text), [a, b], np.dtype(np.bool_))
    np.testing.assert_array_equal(got, a & ~b)
