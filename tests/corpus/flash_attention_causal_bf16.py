"""Causal flash attention in two loops, as NVIDIA's FMHA samples split it: the key
tiles wholly before a block's queries need no mask, the diagonal tile does.

``out[b, h] = softmax(causal(q[b, h] @ k[b, h]^T * scale)) @ v[b, h]``

Coverage: two K/V loops in one kernel, each with both products on tensor cores (64-row
bf16 tiles; ``wgmma`` on sm_90a), so both loops' operands go through rings of their
own, which live only while their loop runs and so share one region of shared memory;
Q loaded once before the loops and read by the first product of both (written to shared
memory once); K read transposed by ``order``; the probabilities P, computed from the
scores' accumulator, the A of the second product (in registers on sm_90a); a causal mask
by ``where`` on the diagonal tile; a first loop of no iteration (block 0).  Inputs,
numpy reference and tolerance: ``cases/flash_attention_causal_bf16.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.flash_attention_causal_bf16 import (
    HEADS,
    TILE,
    TOLERANCE,
    D,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]

SCALE = 0.125


def _scores(tq, k, b, h, j):
    """The scores of TILE queries against key tile `j`."""
    tk = ct.load(k, (b, h, 0, j), (1, 1, D, TILE), order=(0, 1, 3, 2)).reshape((D, TILE))
    return ct.mma(tq, tk, ct.full((TILE, TILE), 0.0, dtype=ct.float32)) * SCALE


def _accumulate(s, v, b, h, j, m_i, l_i, acc):
    """The online softmax's step over scores `s` of key tile `j`."""
    m_ij = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
    p = ct.exp(s - m_ij)
    alpha = ct.exp(m_i - m_ij)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    tv = ct.load(v, (b, h, j, 0), (1, 1, TILE, D)).reshape((TILE, D))
    acc = ct.mma(ct.astype(p, ct.bfloat16), tv, acc * alpha)
    return m_ij, l_i, acc


@ct.kernel
def flash_attention_causal_bf16(q, k, v, out):
    """TILE query rows of one (batch, head) pair: the key tiles before them, then the
    diagonal one, masked."""
    i, bh = ct.bid(0), ct.bid(1)
    b, h = bh // HEADS, bh % HEADS
    tq = ct.load(q, (b, h, i, 0), (1, 1, TILE, D)).reshape((TILE, D))
    m_i = ct.full((TILE, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.full((TILE, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE, D), 0.0, dtype=ct.float32)
    for j in range(i):
        m_i, l_i, acc = _accumulate(_scores(tq, k, b, h, j), v, b, h, j, m_i, l_i, acc)
    rows = ct.arange(TILE, dtype=ct.int32)[:, None]
    cols = ct.arange(TILE, dtype=ct.int32)[None, :]
    for j in range(i, i + 1):
        s = ct.where(rows >= cols, _scores(tq, k, b, h, j), -1.0e30)
        m_i, l_i, acc = _accumulate(s, v, b, h, j, m_i, l_i, acc)
    o = (acc / l_i).reshape((1, 1, TILE, D)).astype(ct.bfloat16)
    ct.store(out, (b, h, i, 0), o)


KERNEL = flash_attention_causal_bf16


def signatures() -> list[KernelSignature]:
    bf16 = array_constraint(
        ct.bfloat16, 4, base_addr_divisible_by=16, stride_divisible_by=[8, 8, 8, 1]
    )
    return [kernel_signature([bf16, bf16, bf16, bf16])]
