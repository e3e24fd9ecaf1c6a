"""One stage of a batched DFT on the CUDA cores: 2x16x16 f32 matrices times 2x16x256
column blocks, as each of the twelve dots of cuTile's FFT sample.

``out[b, :, cols] = w[b] @ x[b, :, cols]`` for b = 0, 1 and one 256-column block a tile.

Coverage: ``ct.matmul`` of 3-D f32 tiles → a batched ``mmaf`` with f32 operands, which
no tensor-core instruction takes: a dot on FMAs (``fma_dot.py``) whose 8192-element
accumulator gets 16 warps (``dot_warps``: a CUDA-core dot's thread also holds its
operand values), 16 accumulator registers a thread.  Exact multiples of the tile
(``shape_divisible_by=[2, 16, 16]``); 16-byte aligned rows; 1-D grid over the column blocks.
Inputs, numpy reference and tolerance: ``cases/batched_dft_f32.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.batched_dft_f32 import BATCH, COLS, SIZE, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def batched_dft_f32(w, x, out):
    """Column block i of every batch: w[b] @ x[b, :, block]."""
    i = ct.bid(0)
    tw = ct.load(w, (0, 0, 0), (BATCH, SIZE, SIZE))
    tx = ct.load(x, (0, 0, i), (BATCH, SIZE, COLS))
    ct.store(out, (0, 0, i), ct.matmul(tw, tx))


KERNEL = batched_dft_f32


def signatures() -> list[KernelSignature]:
    def array() -> object:
        return array_constraint(
            ct.float32,
            3,
            base_addr_divisible_by=16,
            stride_divisible_by=[16, 16, 1],
            shape_divisible_by=[2, 16, 16],
        )

    return [kernel_signature([array(), array(), array()])]
