"""The `cp.async` copies of operand rings addressed from the thread's first address
(`async_copy.py` with `affine_addresses.py`), run in the PTX simulator.

Every group a thread copies into a ring is the first group's global address plus a
constant, or plus a `mul.wide.u32` of the row stride by a constant
(tests/filecheck/conversions/tileas_to_llvm_ring_addresses.test shows the PTX).  The
pipelined corpus GEMMs that use them match numpy in test_pipeline_dot_operands.py,
test_tf32_rings.py and test_attention_operands.py; here each kind of offset is broken
on purpose and the simulator must notice: a constant offset one element off (a tf32 B
group 32 columns along, read one column late: wrong products) and a stride offset of
the wrong number of rows (a warp-specialized producer's A group read 48 rows down
instead of 32: out of bounds at the ragged edge).  Offsets the simulator could not tell
apart would prove nothing about the addresses.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tileir.compiler import compile_module, load_module
from tileir.testing import SimulationError

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
if str(CORPUS) not in sys.path:
    sys.path.insert(0, str(CORPUS))
import _common  # noqa: E402  # pyright: ignore[reportMissingImports]

SEED = 20261126


def _ptx(name: str, arch: str) -> str:
    ptx = compile_module(load_module(CORPUS / f"{name}.mlir"), arch).ptx
    assert ptx is not None
    return ptx


def _wrong_constant_offset(ptx: str) -> str:
    """The element copies of a group 128 bytes after the thread's first (B of
    `gemm_tf32`, 32 f32 columns along) from 132 bytes: one column late."""
    copied = set(re.findall(r"cp\.async\.ca\.shared\.global \[%r\d+\], \[(%rd\d+)\+", ptx))

    def late(m: re.Match[str]) -> str:
        return f"add.s64 {m[1]}, {m[2]}, 132;" if m[1] in copied else m[0]

    return re.sub(r"add\.s64 (%rd\d+), (%rd\d+), 128;", late, ptx)


def _wrong_stride_offset(ptx: str) -> str:
    """The 16-byte copies of a group 32 f16 rows after the thread's first (A of
    `gemm_f16`, `stride * 64` bytes) from `stride * 96` bytes: 48 rows down."""
    copied = set(re.findall(r"cp\.async\.cg\.shared\.global \[%r\d+\], \[(%rd\d+)\]", ptx))
    offsets = {
        m[3] for m in re.finditer(r"add\.s64 (%rd\d+), (%rd\d+), (%rd\d+);", ptx) if m[1] in copied
    }

    def down(m: re.Match[str]) -> str:
        return f"mul.wide.u32 {m[1]}, {m[2]}, 96;" if m[1] in offsets else m[0]

    return re.sub(r"mul\.wide\.u32 (%rd\d+), (%r\d+), 64;", down, ptx)


def test_constant_offset_one_element_off_is_caught() -> None:
    """sm_80, a ring in front of `mma.sync`: the right offsets match numpy, the broken
    one does not (the columns of the group read late are wrong)."""
    ptx = _ptx("gemm_tf32", "sm_80")
    _common.simulate_case("gemm_tf32", ptx, SEED)
    broken = _wrong_constant_offset(ptx)
    assert broken != ptx
    with pytest.raises(AssertionError, match="Mismatched elements"):
        _common.simulate_case("gemm_tf32", broken, SEED)


def test_stride_offset_off_by_rows_is_caught() -> None:
    """sm_90a, the producer warp of a warp-specialized pipeline: the right offsets match
    numpy; the broken one reads past A at the ragged edge."""
    ptx = _ptx("gemm_f16", "sm_90a")
    assert "setmaxnreg.dec" in ptx
    _common.simulate_case("gemm_f16", ptx, SEED)
    broken = _wrong_stride_offset(ptx)
    assert broken != ptx
    with pytest.raises(SimulationError, match="out-of-bounds"):
        _common.simulate_case("gemm_f16", broken, SEED)
