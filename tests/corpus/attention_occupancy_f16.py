"""Flash attention with the tiles and the occupancy hint of cuTile's attention test
with head size 128: 128 query rows of one (batch, head) pair per block, 128 keys and
values a tile, head dimension 128, ``occupancy=2``.

``out[b, h] = softmax(q[b, h] @ k[b, h]^T * scale) @ v[b, h]``

Coverage: an occupancy hint the registers cannot meet.  The 128x128 scores S and the
128x128 accumulator O take 64 registers a thread each over the 8 warps their size gives
the kernel, P 32 more; two CTAs of 256 threads leave a thread 128, and ptxas spilled
in the K/V loop at that cap (the held-out ``t_attention_bf16_d128_causal``: 716 bytes
on sm_90a).  Its shared memory lets two CTAs in, so only the registers decide: the
kernel is compiled for one CTA per SM (``.maxnreg 255``) and says why (the
``OccupancyHintNotHonoured`` remark).  On sm_100a S and O live in tensor memory and
the hint holds.  Inputs, numpy reference and tolerance:
``cases/attention_occupancy_f16.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.attention_occupancy_f16 import (
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
def attention_occupancy_f16(q, k, v, out, kv_tiles: int):
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
        acc = ct.mma(ct.astype(p, ct.float16), tv, acc * alpha)
        m_i = m_ij
    o = (acc / l_i).reshape((1, 1, TILE_M, D)).astype(ct.float16)
    ct.store(out, (b, h, i, 0), o)


KERNEL = attention_occupancy_f16


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(
        ct.float16, 4, base_addr_divisible_by=16, stride_divisible_by=[8, 8, 8, 1]
    )
    return [kernel_signature([f16, f16, f16, f16, scalar_constraint(ct.int32)])]
