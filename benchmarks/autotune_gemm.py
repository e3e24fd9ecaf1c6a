"""The autotuning case of benchmarks/bench_compile.py: one f16 GEMM (f32 accumulator, a K
loop, an f16 epilogue) in 16 configurations of its tile shape, as cuTile's autotuner
would compile them, exported to Tile IR bytecode with cuTile Python (`cuda-tile`, no
GPU needed).

    python benchmarks/autotune_gemm.py OUT_DIR     # OUT_DIR/gemm_<tm>x<tn>x<tk>.tileirbc
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import cuda.tile as ct

#: (tile_m, tile_n, tile_k): 4 x 2 x 2 = 16 configurations.
CONFIGS = list(itertools.product((32, 64, 128, 256), (64, 128), (32, 64)))


@ct.kernel
def gemm_tuned(
    a, b, c, k_tiles: int, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]
):
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.full((tm, tn), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ta = ct.load(a, (i, k), (tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, (k, j), (tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, (i, j), ct.astype(acc, ct.float16))


def export(out_dir: Path, gpu: str = "sm_90", bytecode_version: str = "13.4") -> list[Path]:
    from cuda.tile.compilation import (
        ArrayConstraint,
        CallingConvention,
        KernelSignature,
        ScalarConstraint,
    )

    def array(dtype: object) -> ArrayConstraint:
        return ArrayConstraint(
            dtype,
            2,
            index_dtype=ct.int32,
            base_addr_divisible_by=16,
            stride_divisible_by=[8, 1],
            stride_constant=[None, 1],
            stride_lower_bound_incl=0,
            alias_groups=[],
            may_alias_internally=False,
        )

    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for tm, tn, tk in CONFIGS:
        path = out_dir / f"gemm_{tm}x{tn}x{tk}.tileirbc"
        signature = KernelSignature(
            [
                array(ct.float16),
                array(ct.float16),
                array(ct.float16),
                ScalarConstraint(ct.int32),
                tm,
                tn,
                tk,
            ],
            CallingConvention.cutile_python_v1(),
        )
        from cuda.tile.compilation import export_kernel

        export_kernel(
            gemm_tuned,
            [signature],
            str(path),
            output_format="tileir_bytecode",
            gpu_code=gpu,
            bytecode_version=bytecode_version,
        )
        written.append(path)
    return written


if __name__ == "__main__":
    for p in export(Path(sys.argv[1])):
        print(p)
