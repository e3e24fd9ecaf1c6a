"""Element values print as MLIR prints them (the float rules of APFloat::toString)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type

from tileir.utils.numeric import format_float

F32, F64, F16, BF16 = Float32Type(), Float64Type(), Float16Type(), BFloat16Type()


@pytest.mark.parametrize(
    ("value", "t", "text"),
    [
        (0.0, F32, "0.000000e+00"),
        (-0.0, F16, "-0.000000e+00"),
        (1.5, F32, "1.500000e+00"),
        (0.1, F32, "1.000000e-01"),
        (65504.0, F16, "6.550400e+04"),
        (0.797884583, F32, "0.797884583"),  # cuTile's GELU constant, as tileirdisasm prints it
        (float(np.float32(1.0 / 3.0)), F32, "0.333333343"),
        (1.0 / 3.0, F64, "0.33333333333333331"),
        (16777216.0, F32, "0x4B800000"),  # no '.' in the short form: MLIR falls back to hex
        (float("inf"), F32, "0x7F800000"),
        (float("-inf"), F32, "0xFF800000"),
        (float("nan"), F32, "0x7FC00000"),
        (float("inf"), BF16, "0x7F80"),
    ],
)
def test_format_float(value: float, t, text: str) -> None:
    assert format_float(value, t) == text
