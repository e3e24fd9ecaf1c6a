"""Single-head attention on one tile of keys: ``softmax(q @ k.T) @ v``.

``out = softmax(q @ k.T, axis=1) @ v`` (f16 inputs, f32 scores and output)

Coverage: two ``ct.mma`` (f16 into f32) with a transposed operand (``ct.transpose`` of
the key tile, an exchange through shared memory), a row softmax on the accumulator
(``max``/``sum`` reductions and ``exp`` on the MMA layout), a cast of the
probabilities to f16 between the products; 32-row query tiles, 64 keys, head size 32.
Inputs, numpy reference and tolerance: ``cases/attention_f16.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.attention_f16 import SEQ, TILE_M, TOLERANCE, D, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def attention_f16(q, k, v, out):
    """One TILE_M-row block of queries against all SEQ keys."""
    i = ct.bid(0)
    tq = ct.load(q, (i, 0), (TILE_M, D), padding_mode=ct.PaddingMode.ZERO)
    tk = ct.load(k, (0, 0), (SEQ, D), padding_mode=ct.PaddingMode.ZERO)
    tv = ct.load(v, (0, 0), (SEQ, D), padding_mode=ct.PaddingMode.ZERO)
    s = ct.mma(tq, ct.transpose(tk), ct.full((TILE_M, SEQ), 0.0, dtype=ct.float32))
    e = ct.exp(s - ct.max(s, axis=1, keepdims=True))
    p = ct.astype(e / ct.sum(e, axis=1, keepdims=True), ct.float16)
    ct.store(out, (i, 0), ct.mma(p, tv, ct.full((TILE_M, D), 0.0, dtype=ct.float32)))


KERNEL = attention_f16


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(ct.float16, 2, base_addr_divisible_by=16, stride_divisible_by=[8, 1])
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    return [kernel_signature([f16, f16, f16, f32])]
