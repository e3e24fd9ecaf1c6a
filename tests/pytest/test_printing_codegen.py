"""print_tko on the GPU prints what the interpreter prints.

The PTX calls `vprintf` with a rewritten format and arguments widened by C's variadic
promotions (`tileir/conversions/tileas_to_llvm/printing.py`).  Here a model of vprintf
(C printf reading each argument as the rewritten conversion says: 32-bit ints read as
signed for %d/%i/%c and unsigned for %u/%x/%o, `ll` as 64 bits, doubles) is applied to
the rewritten format and the promoted values, and must give the interpreter's text for
the original format and values.  The diagnostics for what vprintf cannot print are
checked on compiled kernels."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, IntegerType
from xdsl.ir import Attribute, SSAValue

from tileir.compiler import compile_module, load_module
from tileir.conversions.tileas_to_llvm.printing import rewrite_format
from tileir.diagnostics import CompileError
from tileir.interpreter.control import printf

_C_SPEC = re.compile(r"%([-+ #0]*)(\d+)?(?:\.(\d+))?(ll)?([diouxXeEfgGcp%])")


class _Value:
    """Stands for an SSA value: rewrite_format reads only the type."""

    def __init__(self, t: Attribute) -> None:
        self.type = t


def _ir_type(dtype: np.dtype) -> Attribute:
    if dtype == np.bool_:
        return IntegerType(1)
    if dtype.kind == "i":
        return IntegerType(dtype.itemsize * 8)
    return {
        np.dtype(np.float16): Float16Type(),
        np.dtype(ml_dtypes.bfloat16): BFloat16Type(),
        np.dtype(np.float32): Float32Type(),
        np.dtype(np.float64): Float64Type(),
    }[dtype]


def _promote(value: np.ndarray, kind: str) -> int | float:
    """The value as stored in the argument buffer, read back as vprintf reads it."""
    v = np.asarray(value)
    if kind == "f64":
        return float(v.astype(np.float64))
    bits = 1 if v.dtype == np.bool_ else v.dtype.itemsize * 8
    raw = int(v.astype(np.int64)) & ((1 << bits) - 1)  # the bits, zero-extended
    signed = raw - (1 << bits) if raw >> (bits - 1) else raw  # sign-extended (i1: -1)
    if kind in ("s32", "char", "s64"):
        return signed
    return raw  # u32 (zero-extended to 32 bits), u64


def _vprintf(fmt: str, values: list[int | float]) -> str:
    it = iter(values)

    def one(m: re.Match[str]) -> str:
        flags, width, precision, _, conv = m.groups()
        if conv == "%":
            return "%"
        spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
        value = next(it)
        if conv == "c":
            return chr(int(value) & 0xFF)
        if conv == "p":
            return f"{int(value):#x}"
        return (spec + conv.replace("i", "d")) % value

    return _C_SPEC.sub(one, fmt)


CASES: list[tuple[str, list[Any]]] = [
    ("block %d sum %f\n", [np.int32(3), np.float32(1.5)]),
    ("%d %u %x %o\n", [np.int8(-3), np.int8(-3), np.int16(-2), np.int32(8)]),
    ("%ld %lx %llu\n", [np.int64(-5), np.int64(-1), np.int64(2**40)]),
    (
        "%hhd %hd %5.2f|%-8.3e|%g\n",
        [
            np.int32(300),
            np.int32(70000),
            np.float16(2.5),
            np.float64(1e-7),
            ml_dtypes.bfloat16(3.0),
        ],
    ),
    (
        "%a %A %F %E %G\n",
        [np.float32(0.1), np.float64(2.0), np.float32(-1.25), np.float32(1e20), np.float64(1e-10)],
    ),
    ("%d %u\n", [np.bool_(True), np.bool_(True)]),
    ("%c%c!\n", [np.int32(72), np.int8(105)]),
    ("%f of an int\n", [np.int32(-7)]),
    ("100%% and %d, extra %d %f\n", [np.int32(1)]),
    ("%+05d % d %#x %#o\n", [np.int32(42), np.int32(7), np.int32(255), np.int32(8)]),
]


@pytest.mark.parametrize(("fmt", "values"), CASES)
def test_vprintf_prints_what_the_interpreter_prints(fmt: str, values: list[Any]) -> None:
    args = [np.asarray(v) for v in values]
    ssa = [cast(SSAValue, _Value(_ir_type(a.dtype))) for a in args]
    rewritten, kinds = rewrite_format(cast(Any, None), fmt, ssa)
    device = _vprintf(rewritten, [_promote(a, k) for a, k in zip(args, kinds, strict=False)])
    assert device == printf(fmt, args)


KERNEL = """
entry @k(%x: tile<f32>) {
  %t = make_token : token
  %0 = print_tko "FORMAT", %x token=%t : tile<f32> -> token
  return
}
"""


@pytest.mark.parametrize(
    ("fmt", "message"),
    [
        ("%s", "'%s' in a print format"),
        ("%*d", "'\\*' widths and precisions"),
        ("%d", "'%d' of a floating-point argument"),
    ],
)
def test_unprintable_formats_are_reported(tmp_path: Path, fmt: str, message: str) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL.replace("FORMAT", fmt))
    with pytest.raises(CompileError, match=message):
        compile_module(load_module(path), "sm_90a")
