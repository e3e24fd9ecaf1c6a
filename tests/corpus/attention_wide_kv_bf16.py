"""Attention over wide key tiles with an occupancy hint its shared memory cannot meet:
64 query rows of one (batch, head) pair per block, 256 keys and values a tile, head
dimension 128, ``occupancy=2``.

``out[b, h] = softmax(q[b, h] @ k[b, h]^T * scale) @ v[b, h]``

Coverage: the shape of NVIDIA's 64x256 attention tests.  The hint asks for two CTAs per
SM, which would cap each of the 256 threads at 128 registers; but the K and V tiles
(64 KiB each, bf16) and the scores' exchange take more than half of an SM's shared
memory, so one CTA per SM is all it can get and the kernel keeps the registers the
hint would have withheld (``.maxnreg 255`` on sm_90a: no spills where 128 spilled).
Also: a 64x256 score tile reduced along its rows, P of 256 columns as the second
product's A, the result rounded to bf16.  Inputs, numpy reference and tolerance:
``cases/attention_wide_kv_bf16.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.attention_wide_kv_bf16 import (
    SEQ,
    TILE_M,
    TOLERANCE,
    D,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]

SCALE = 0.125


@ct.kernel(occupancy=2)
def attention_wide_kv_bf16(q, k, v, out, kv_tiles: int):
    """TILE_M query rows of one (batch, head) pair, online softmax over KV tiles."""
    i, bh = ct.bid(0), ct.bid(1)
    b, h = bh // 1, bh % 1
    tq = ct.load(q, (b, h, i, 0), (1, 1, TILE_M, D)).reshape((TILE_M, D))
    m_i = ct.full((TILE_M, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE_M, D), 0.0, dtype=ct.float32)
    for j in range(kv_tiles):
        tk = ct.load(k, (b, h, 0, j), (1, 1, D, SEQ), order=(0, 1, 3, 2)).reshape((D, SEQ))
        s = ct.mma(tq, tk, ct.full((TILE_M, SEQ), 0.0, dtype=ct.float32)) * SCALE
        m_ij = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_ij)
        alpha = ct.exp(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        tv = ct.load(v, (b, h, j, 0), (1, 1, SEQ, D)).reshape((SEQ, D))
        acc = ct.mma(ct.astype(p, ct.bfloat16), tv, acc * alpha)
        m_i = m_ij
    o = (acc / l_i).reshape((1, 1, TILE_M, D)).astype(ct.bfloat16)
    ct.store(out, (b, h, i, 0), o)


KERNEL = attention_wide_kv_bf16


def signatures() -> list[KernelSignature]:
    bf16 = array_constraint(
        ct.bfloat16, 4, base_addr_divisible_by=16, stride_divisible_by=[8, 8, 8, 1]
    )
    return [kernel_signature([bf16, bf16, bf16, bf16, scalar_constraint(ct.int32)])]
