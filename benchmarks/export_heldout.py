#!/usr/bin/env python3
"""Export cuTile Python's own kernels (its samples and tests) to Tile IR bytecode.

These are the project's *held-out* kernels: NVIDIA wrote them, the compiler was
not tuned on them, and the code-quality tables (``benchmarks/sass_table.py``)
are measured over them.  The script imports the kernel modules from a checkout
of cuTile Python (it copies no cuTile code) and calls
``cuda.tile.compilation.export_kernel(..., output_format="tileir_bytecode")``
with a hand-written signature per kernel: the dtypes, ranks, constants and
array shapes that the sample's ``main`` or the test's parametrization launches
it with.  No GPU is needed: ``torch``/``cupy`` (which the modules import for
their host code) are replaced by inert stand-ins, and the compute capability
cuTile asks for at import time is answered with ``sm_90``.

Usage::

    python benchmarks/export_heldout.py CUTILE_CHECKOUT OUT_DIR [--only GLOB] [-v]

    git -C /work/.mirror/NVIDIA+cutile-python/repo archive HEAD | tar -x -C /tmp/cutile-python
    python benchmarks/export_heldout.py /tmp/cutile-python /tmp/cutile_samples/bc

Files are named ``s_<sample>_<variant>.tileirbc`` (samples/*.py) and
``t_<kernel>_<variant>.tileirbc`` (test/kernels/*.py and the kernels the
test/test_*.py files define).  ``OUT_DIR/../export_failures.txt`` lists every
kernel that failed to export, with cuTile's reason; ``OUT_DIR/../SAMPLES_READY``
is touched once the samples are written and ``OUT_DIR/../READY`` at the end.
Kernels that need sm_100 (block-scaled f4/e8m0 MMA) are exported for sm_100.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import time
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BYTECODE_VERSION = "13.4"


# ----------------------------------------------------------------- stand-ins


class _Inert:
    """Whatever a module's host code asks of ``torch``: attribute, call, index."""

    def __init__(self, name: str = "torch") -> None:
        self._name = name

    def __getattr__(self, key: str) -> Any:
        if key.startswith("__") and key.endswith("__"):
            raise AttributeError(key)
        return _Inert(f"{self._name}.{key}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # used as a decorator
        return _Inert(f"{self._name}()")

    def __getitem__(self, key: Any) -> Any:
        return _Inert(f"{self._name}[]")

    def __iter__(self) -> Any:
        return iter(())

    def __bool__(self) -> bool:
        return False

    def __or__(self, other: Any) -> Any:
        return self

    __ror__ = __or__

    def __mro_entries__(self, bases: Any) -> tuple[type, ...]:
        return (object,)

    def __hash__(self) -> int:
        return hash(self._name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Inert) and other._name == self._name

    def __repr__(self) -> str:
        return f"<inert {self._name}>"


_TORCH_DTYPES = {
    "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "float32": "float32",
    "float": "float32", "float64": "float64", "double": "float64", "int8": "int8",
    "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8", "bool": "bool_",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
    "float8_e8m0fnu": "float8_e8m0fnu",
}


class _InertModule(types.ModuleType):
    def __getattr__(self, key: str) -> Any:
        if key.startswith("__"):
            raise AttributeError(key)
        return _Inert(f"{self.__name__}.{key}")


class _InertFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    ROOTS = ("torch", "cupy")

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname.split(".")[0] in self.ROOTS:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: Any) -> types.ModuleType:
        module = _InertModule(spec.name)
        module.__path__ = []
        if spec.name == "torch":
            # Kernels use torch dtypes (``ct.arange(n, dtype=torch.int32)``).
            import cuda.tile as ct

            for name, ct_name in _TORCH_DTYPES.items():
                setattr(module, name, getattr(ct, ct_name))
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


def install_stand_ins() -> None:
    sys.meta_path.insert(0, _InertFinder())
    import cuda.tile._cext as cext
    import cuda.tile._compile as compile_
    import cuda.tile._execution as execution

    def capability(*args: Any, **kwargs: Any) -> tuple[int, int]:
        return (9, 0)

    for mod in (cext, compile_, execution):
        mod.get_compute_capability = capability  # type: ignore[attr-defined]


# ---------------------------------------------------------------- signatures

_DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "tf32": "tfloat32", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "bool": "bool_",
    "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2", "e8m0": "float8_e8m0fnu",
    "f4": "float4_e2m1fn",
}
_ITEMSIZE = {
    "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "tf32": 4, "i8": 1, "i16": 2, "i32": 4,
    "i64": 8, "u8": 1, "u16": 2, "u32": 4, "u64": 8, "bool": 1, "e4m3": 1, "e5m2": 1,
    "e8m0": 1, "f4": 1,
}


def dtype(name: str) -> Any:
    import cuda.tile as ct

    return getattr(ct, _DTYPES[name])


def _pow2_divisor(n: int, cap: int = 16) -> int:
    if n == 0:
        return cap
    d = 1
    while d < cap and n % (2 * d) == 0:
        d *= 2
    return d


def A(dt: str, shape: Sequence[int], strides: Sequence[int] | str | None = None) -> Any:
    """An ``ArrayConstraint`` as a JIT launch with this array would assume.

    ``strides`` in elements; ``None`` is row-major, ``"T"`` the transpose of a
    row-major array of the reversed shape (a ``.T`` / ``.mT`` view).
    Shapes and strides are assumed divisible by their largest power of two up
    to 16, the base address by 16 bytes, strides of 1 constant.
    """
    import cuda.tile as ct
    from cuda.tile.compilation import ArrayConstraint

    shape = tuple(shape)
    nd = len(shape)
    if isinstance(strides, str) and strides != "T":
        raise ValueError(strides)
    if strides is None or strides == "T":
        rm: list[int] = []
        s = 1
        src = shape if strides is None else tuple(reversed(shape[-2:]))
        if strides is None:
            for d in reversed(shape):
                rm.insert(0, s)
                s *= d
            st = rm
        else:
            # leading batch dims row-major over the last two transposed
            inner = [1, src[1]]  # (rows, cols) view of a (cols, rows) array
            st = [0] * nd
            st[-1] = inner[1]
            st[-2] = 1
            s = shape[-1] * shape[-2]
            for i in range(nd - 3, -1, -1):
                st[i] = s
                s *= shape[i]
    else:
        st = list(strides)
    return ArrayConstraint(
        dtype(dt),
        nd,
        index_dtype=ct.int32,
        stride_lower_bound_incl=0,
        alias_groups=[],
        may_alias_internally=False,
        stride_constant=[1 if (x == 1 and shape[i] != 1) else None for i, x in enumerate(st)],
        stride_divisible_by=[_pow2_divisor(x) for x in st],
        shape_divisible_by=[_pow2_divisor(x) for x in shape],
        base_addr_divisible_by=16,
    )


def S(dt: str) -> Any:
    """A runtime scalar parameter."""
    from cuda.tile.compilation import ScalarConstraint

    return ScalarConstraint(dtype(dt))


def L(item: Any) -> Any:
    """A list-of-arrays parameter (``item`` describes every element)."""
    from cuda.tile.compilation import ListConstraint

    return ListConstraint(item, alias_groups=[], elements_may_alias=False)


@dataclass
class Spec:
    name: str
    module: str  # path relative to the checkout
    kernel: str | Callable[[types.ModuleType], Any]  # attribute, or made from the module
    params: Callable[[], list[Any]]
    gpu: str = "sm_90"
    note: str = ""
    hints: dict[str, Any] = field(default_factory=dict)


SPECS: list[Spec] = []


def spec(name: str, module: str, kernel: str, gpu: str = "sm_90", **hints: Any) -> Callable:
    def register(fn: Callable[[], list[Any]]) -> Callable[[], list[Any]]:
        SPECS.append(Spec(name, module, kernel, fn, gpu, hints=hints))
        return fn

    return register


def add(name: str, module: str, kernel: str | Callable[[types.ModuleType], Any], params: Callable[[], list[Any]], gpu: str = "sm_90",
        **hints: Any) -> None:
    SPECS.append(Spec(name, module, kernel, params, gpu, hints=hints))


# --------------------------------------------------------------------- export


def load(checkout: Path, rel: str) -> types.ModuleType:
    key = "heldout_" + rel.replace("/", "_").removesuffix(".py")
    if key in sys.modules:
        return sys.modules[key]
    path = checkout / rel
    spec_ = importlib.util.spec_from_file_location(key, path)
    assert spec_ is not None and spec_.loader is not None
    module = importlib.util.module_from_spec(spec_)
    sys.modules[key] = module
    spec_.loader.exec_module(module)
    return module


def export_one(checkout: Path, s: Spec, out_dir: Path) -> tuple[bool, str]:
    from cuda.tile import kernel as kernel_type
    from cuda.tile.compilation import CallingConvention, KernelSignature, export_kernel

    try:
        module = load(checkout, s.module)
        kern: Any = getattr(module, s.kernel) if isinstance(s.kernel, str) else s.kernel(module)
        if not isinstance(kern, kernel_type):  # a plain function the test wraps itself
            kern = kernel_type(kern)
        if s.hints:
            kern = kern.replace_hints(**s.hints)
        sig = KernelSignature(list(s.params()), CallingConvention.cutile_python_v1())
        path = out_dir / f"{s.name}.tileirbc"
        export_kernel(kern, [sig], str(path), output_format="tileir_bytecode",
                      gpu_code=s.gpu, bytecode_version=BYTECODE_VERSION)
        return True, f"{path.stat().st_size} B"
    except Exception as exc:
        first = str(exc).strip().splitlines()
        return False, f"{type(exc).__name__}: {first[0] if first else ''}"[:300]


def list_uncovered(checkout: Path, specs: Sequence[Spec]) -> list[str]:
    """Module-level ``@ct.kernel`` functions of the checkout that no spec exports.

    Most are tests of diagnostics (kernels that exist to be rejected), of the
    Python front end (tuples, closures, globals) or of cuTile's own IR passes.
    """
    from cuda.tile import kernel as kernel_type

    covered_modules = {s.module for s in specs}
    covered: set[int] = set()
    for s in specs:
        if isinstance(s.kernel, str):
            with contextlib.suppress(BaseException):
                covered.add(id(getattr(load(checkout, s.module), s.kernel)))
    rels = sorted(
        [str(p.relative_to(checkout)) for p in (checkout / "samples").glob("*.py")]
        + [str(p.relative_to(checkout)) for p in (checkout / "test" / "kernels").glob("*.py")]
        + [str(p.relative_to(checkout)) for p in (checkout / "test").glob("test_*.py")])
    out = []
    for rel in rels:
        try:
            module = load(checkout, rel)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            out.append(f"{rel}\t(module)\tnot importable here: {type(exc).__name__}: {exc}"[:300])
            continue
        for name, value in sorted(vars(module).items()):
            if isinstance(value, kernel_type) and id(value) not in covered:
                why = ("module has other kernels exported" if rel in covered_modules
                       else "module not covered")
                out.append(f"{rel}\t{name}\tno signature written ({why})")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("checkout", type=Path, help="cuTile Python checkout (samples/, test/)")
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--only", action="append", help="fnmatch pattern on names (repeatable)")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--list", action="store_true", help="print the names and exit")
    args = parser.parse_args(argv)

    checkout = args.checkout.resolve()
    specs = SPECS
    if args.only:
        specs = [s for s in specs if any(fnmatch.fnmatch(s.name, p) for p in args.only)]
    names = [s.name for s in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SystemExit(f"duplicate names: {dup}")
    if args.list:
        print("\n".join(names))
        return 0

    install_stand_ins()
    sys.path[:0] = [str(checkout / "test"), str(checkout / "samples"), str(checkout)]
    out_dir = args.out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    status_dir = out_dir.parent
    failures: list[str] = []
    ok = 0
    t0 = time.time()
    samples_done = False
    for _i, s in enumerate(specs):
        if not samples_done and not s.name.startswith("s_"):
            if not args.only:
                (status_dir / "SAMPLES_READY").touch()
            samples_done = True
            print(f"-- samples done ({ok} exported, {time.time() - t0:.0f} s)", flush=True)
        good, msg = export_one(checkout, s, out_dir)
        if good:
            ok += 1
        else:
            failures.append(f"{s.name}\t{s.module}:{s.kernel}\t{msg}")
        if args.verbose or not good:
            print(f"{'ok  ' if good else 'FAIL'} {s.name}: {msg}", flush=True)
    if not args.only:
        (status_dir / "SAMPLES_READY").touch()
    if not args.only:
        uncovered = list_uncovered(checkout, specs)
        (status_dir / "not_exported.txt").write_text("".join(u + "\n" for u in uncovered))
        print(f"{len(uncovered)} module-level kernels have no signature here "
              f"(listed in {status_dir / 'not_exported.txt'})")
    fail_file = status_dir / "export_failures.txt"
    fail_file.write_text("".join(f + "\n" for f in failures))
    print(f"exported {ok} of {len(specs)} in {time.time() - t0:.0f} s; "
          f"{len(failures)} failed (listed in {fail_file})")
    if not args.only:
        (status_dir / "READY").touch()
    return 0


# ===================================================================== samples
# samples/*.py: shapes and tiles of each sample's main() (and its host wrapper).

SM = "samples/MatMul.py"
add("s_matmul_f16", SM, "matmul_kernel",
    lambda: [A("f16", (2048, 2048)), A("f16", (2048, 2048)), A("f16", (2048, 2048)), 128, 256, 64])
add("s_matmul_f32_tf32", SM, "matmul_kernel",
    lambda: [A("f32", (2048, 2048)), A("f32", (2048, 2048)), A("f32", (2048, 2048)), 32, 32, 32])
add("s_matmul_f32_ragged", SM, "matmul_kernel",
    lambda: [A("f32", (1000, 500)), A("f32", (500, 700)), A("f32", (1000, 700)), 32, 32, 32])
add("s_persistent_matmul_f16", SM, "persistent_matmul_kernel",
    lambda: [A("f16", (2048, 2048)), A("f16", (2048, 2048)), A("f16", (2048, 2048)), 128, 256, 64])
add("s_persistent_matmul_f32", SM, "persistent_matmul_kernel",
    lambda: [A("f32", (2048, 2048)), A("f32", (2048, 2048)), A("f32", (2048, 2048)), 32, 32, 32])

SB = "samples/BatchMatMul.py"
add("s_bmm_f16", SB, "batch_matmul_kernel",
    lambda: [A("f16", (4, 512, 1024)), A("f16", (4, 1024, 2048)), A("f16", (4, 512, 2048)),
             128, 256, 128])
add("s_bmm_e4m3_f32", SB, "batch_matmul_kernel",
    lambda: [A("e4m3", (4, 512, 1024)), A("e4m3", (4, 1024, 2048)), A("f32", (4, 512, 2048)),
             128, 256, 128])


def _fmha(dt: str, b: int, h: int, sq: int, skv: int, d: int, tm: int, tn: int, causal: bool,
          group: int = 1, input_pos_is_const: bool = False) -> Callable[[], list[Any]]:
    even_k = skv % tn == 0
    return lambda: [
        A(dt, (b, h, sq, d)),
        A(dt, (b, h // group, skv, d)),  # K, loaded transposed with order=(0, 1, 3, 2)
        A(dt, (b, h // group, skv, d)),
        A(dt, (b, h, sq, d)),
        S("f32"), S("i32"), d, h, tm, tn, group, causal, even_k,
    ]


SA = "samples/AttentionFMHA.py"
add("s_fmha_f16_noncausal", SA, "fmha_kernel", _fmha("f16", 2, 8, 128, 128, 64, 128, 128, False))
add("s_fmha_f16_causal", SA, "fmha_kernel", _fmha("f16", 2, 8, 128, 128, 64, 128, 128, True))
add("s_fmha_f16_causal_m64_n64", SA, "fmha_kernel", _fmha("f16", 8, 16, 1024, 1024, 64, 64, 64, True))
add("s_fmha_f16_causal_m64_n32", SA, "fmha_kernel", _fmha("f16", 8, 16, 1024, 1024, 64, 64, 32, True))
add("s_fmha_f16_causal_m256_n128", SA, "fmha_kernel",
    _fmha("f16", 8, 16, 1024, 1024, 64, 256, 128, True))
add("s_fmha_f16_causal_m128_n128_ctas2", SA, "fmha_kernel",
    _fmha("f16", 8, 16, 1024, 1024, 64, 128, 128, True), num_ctas=2)


def _bsmm(swizzled: bool) -> Callable[[], list[Any]]:
    m, n, k, blk = 512, 512, 768, 32
    ks = k // blk
    if swizzled:
        a_s = A("e8m0", (m // 128, ks // 4, 32, 16))
        b_s = A("e8m0", (n // 128, ks // 4, 32, 16))
    else:
        a_s = A("e8m0", (m, ks))
        b_s = A("e8m0", (ks, n), "T")
    return lambda: [A("e4m3", (m, k)), a_s, A("e4m3", (k, n), "T"), b_s, A("f32", (m, n)),
                    256, 256, 128, blk]


SS = "samples/BlockScaledMatMul.py"
add("s_block_scaled_mm_2dscale", SS, "block_scaled_matmul_kernel", _bsmm(False), gpu="sm_100")
add("s_block_scaled_mm_swizzled", SS, "block_scaled_matmul_kernel", _bsmm(True), gpu="sm_100")


def _fft(bs: int, n: int, factors: tuple[int, int, int], d: int, dt: str = "f32") -> Callable:
    f0, f1, f2 = factors
    return lambda: [A(dt, (bs, n * 2 // d, d)), A(dt, (bs, n * 2 // d, d)),
                    A(dt, (f0, f0, 2)), A(dt, (f1, f1, 2)), A(dt, (f2, f2, 2)),
                    A(dt, (f0, f1 * f2, 2)), A(dt, (f1, f2, 2)),
                    n, f0, f1, f2, bs, d]


add("s_fft_n8_f32", "samples/FFT.py", "fft_kernel", _fft(2, 8, (2, 2, 2), 2))
add("s_fft_f32", "samples/FFT.py", "fft_kernel", _fft(2, 1024, (8, 16, 8), 64))

SL = "samples/LayerNorm.py"
add("s_layernorm_fwd_bf16", SL, "layer_norm_fwd",
    lambda: [A("bf16", (1024, 2048)), A("bf16", (2048,)), A("bf16", (2048,)),
             A("bf16", (1024, 2048)), A("f32", (1024,)), A("f32", (1024,)), S("f32"), 1024])
add("s_layernorm_bwd_dx_bf16", SL, "layer_norm_bwd_dx_partial_dwdb",
    lambda: [A("bf16", (1024, 2048)), A("bf16", (1024, 2048)), A("f32", (64, 2048)),
             A("f32", (64, 2048)), A("bf16", (1024, 2048)), A("bf16", (2048,)),
             A("f32", (1024,)), A("f32", (1024,)), A("i32", (64,)), 1024])
add("s_layernorm_bwd_dwdb_bf16", SL, "layer_norm_bwd_dwdb",
    lambda: [A("f32", (64, 2048)), A("f32", (64, 2048)), A("bf16", (2048,)), A("bf16", (2048,)),
             32, 1024])


def _moe(dt: str, tokens: int, k_dim: int, n_dim: int, experts: int, topk: int, routed: bool,
         tm: int = 128, tn: int = 128, tk: int = 64, b_cols: int | None = None) -> Callable:
    m = tokens * topk + experts * (tm - 1)
    m = -(-m // tm) * tm
    return lambda: [A(dt, (tokens if not routed else tokens * topk, k_dim)),
                    A(dt, (experts, n_dim, k_dim)),
                    A(dt, (tokens * topk, n_dim)),
                    A("f32", (tokens * topk,)), A("i32", (m,)), A("i32", (m // tm,)),
                    S("i32"), routed, tm, tn, tk]


SMOE = "samples/MoE.py"
add("s_moe_fused_w1_bf16", SMOE, "fused_moe_kernel", _moe("bf16", 48, 512, 2048, 64, 8, False))
add("s_moe_fused_w2_bf16", SMOE, "fused_moe_kernel", _moe("bf16", 48, 1024, 512, 64, 8, True))
add("s_moe_silu_and_mul_bf16", SMOE, "silu_and_mul_kernel",
    lambda: [A("bf16", (384, 1024), (2048, 1)), A("bf16", (384, 1024), (2048, 1)),
             A("bf16", (384, 1024)), 1024])

ST = "samples/Transpose.py"
add("s_transpose_f16", ST, "transpose_kernel",
    lambda: [A("f16", (1024, 2048)), A("f16", (2048, 1024)), 128, 128])
add("s_transpose_f32", ST, "transpose_kernel",
    lambda: [A("f32", (1024, 2048)), A("f32", (2048, 1024)), 32, 32])

SV = "samples/VectorAddition.py"
add("s_vec_add_1d_f32", SV, "vec_add_kernel_1d",
    lambda: [A("f32", (1 << 20,)), A("f32", (1 << 20,)), A("f32", (1 << 20,)), 1024])
add("s_vec_add_2d_f32", SV, "vec_add_kernel_2d",
    lambda: [A("f32", (512, 1024)), A("f32", (512, 1024)), A("f32", (512, 1024)), 1, 1024])
add("s_vec_add_1d_gather_f32", SV, "vec_add_kernel_1d_gather",
    lambda: [A("f32", (1000,)), A("f32", (1000,)), A("f32", (1000,)), 1024])
add("s_vec_add_2d_gather_f32", SV, "vec_add_kernel_2d_gather",
    lambda: [A("f32", (500, 700)), A("f32", (500, 700)), A("f32", (500, 700)), 1, 1024])

add("s_allgather_matmul_f32", "samples/AllGatherMatmul.py", "gather_matmul_kernel",
    lambda: [L(A("f32", (256, 512))), A("f32", (512, 512)), A("f32", (1024, 512)),
             128, 128, 128])


# ================================================================ test/kernels
# test/kernels/*.py, with the shapes and tuned configurations of the tests and
# benchmarks that launch them (test/bench_*.py, test/benchmark_tuning.json:
# "B200" and "RTX PRO 6000" configurations).

TM = "test/kernels/matmul.py"


def _mm(dt: str, m: int, n: int, k: int, tm: int, tn: int, tk: int, out: str | None = None):
    return lambda: [A(dt, (m, k)), A(dt, (k, n)), A(out or dt, (m, n)), tm, tn, tk]


for _dt, _label in (("f16", "f16"), ("bf16", "bf16"), ("f32", "f32_tf32")):
    add(f"t_matmul_{_label}_256x256x64", TM, "matmul_kernel",
        _mm(_dt, 8192, 8192, 8192, 256, 256, 64))
    add(f"t_matmul_{_label}_256x256x64_ctas2", TM, "matmul_kernel",
        _mm(_dt, 8192, 8192, 8192, 256, 256, 64), num_ctas=2)
    add(f"t_matmul_{_label}_128x128x64", TM, "matmul_kernel",
        _mm(_dt, 1024, 1024, 1024, 128, 128, 64))
add("t_matmul_f32_tf32_128x128x32", TM, "matmul_kernel", _mm("f32", 1024, 1024, 1024, 128, 128, 32))
add("t_matmul_f16_128x128x64_ragged", TM, "matmul_kernel", _mm("f16", 1000, 700, 500, 128, 128, 64))
add("t_matmul_e4m3_f16_128x128x128", TM, "matmul_kernel",
    _mm("e4m3", 1024, 1024, 1024, 128, 128, 128, out="f16"))


def _split_k(dt: str, m: int, n: int, k: int, tm: int, tn: int, tk: int, sk: int):
    locks = 32 * 1 * 8  # _matmul_split_k_lock_count over the search space
    return lambda: [A(dt, (m, k)), A(dt, (k, n)), A(dt, (m, n)), A("i32", (locks,)),
                    A("i32", (locks,)), tm, tn, tk, sk]


add("t_matmul_split_k_f32", TM, "matmul_split_k_kernel", _split_k("f32", 256, 256, 4096, 32, 64, 256, 4))
add("t_matmul_split_k_f16", TM, "matmul_split_k_kernel", _split_k("f16", 256, 256, 4096, 32, 64, 256, 4))
add("t_matmul_split_k_f16_sk8", TM, "matmul_split_k_kernel",
    _split_k("f16", 128, 128, 8192, 32, 64, 256, 8))


def _bmm(dt: str, b: int, m: int, n: int, k: int, tm: int, tn: int, tk: int, out: str = "f32"):
    return lambda: [A(dt, (b, m, k)), A(dt, (b, k, n)), A(out, (b, m, n)), tm, tn, tk]


add("t_batch_matmul_e4m3_f32", TM, "batch_matmul_kernel", _bmm("e4m3", 4, 8192, 8192, 2000, 256, 256, 128))
add("t_batch_matmul_e5m2_f32", TM, "batch_matmul_kernel", _bmm("e5m2", 4, 8192, 8192, 2000, 256, 256, 128))
add("t_batch_matmul_e4m3_f32_128x128x64", TM, "batch_matmul_kernel",
    _bmm("e4m3", 2, 1024, 1024, 1024, 128, 128, 64))

add("t_persistent_matmul_f16_256x256x64", TM, "persistent_matmul_kernel",
    _mm("f16", 8192, 8192, 8192, 256, 256, 64), num_ctas=2)
add("t_persistent_matmul_f16_256x256x32", TM, "persistent_matmul_kernel",
    _mm("f16", 8192, 8192, 8192, 256, 256, 32), num_ctas=2)
add("t_persistent_matmul_f32_256x256x64", TM, "persistent_matmul_kernel",
    _mm("f32", 8192, 8192, 8192, 256, 256, 64), num_ctas=2)


def _scaled(m: int, n: int, k: int, tm: int, tn: int, tk: int, swizzled: bool):
    blk = 32
    ks = k // blk
    return lambda: [
        A("e4m3", (m, k)),
        A("e8m0", (m // 128, ks // 4, 32, 16)) if swizzled else A("e8m0", (m, ks)),
        A("e4m3", (k, n), "T"),
        A("e8m0", (n // 128, ks // 4, 32, 16)) if swizzled else A("e8m0", (ks, n), "T"),
        A("f32", (m, n)), tm, tn, tk, blk]


TSM = "test/kernels/scaled_matmul.py"
add("t_scaled_matmul_swizzled_e4m3", TSM, "block_scaled_matmul_kernel",
    _scaled(8192, 8192, 8192, 256, 256, 128, True), gpu="sm_100", num_ctas=2)
add("t_scaled_matmul_swizzled_e4m3_128", TSM, "block_scaled_matmul_kernel",
    _scaled(8192, 8192, 8192, 128, 128, 128, True), gpu="sm_100", num_ctas=1)
add("t_scaled_matmul_e4m3", TSM, "block_scaled_matmul_kernel",
    _scaled(1024, 1024, 1024, 128, 128, 128, False), gpu="sm_100")

TA = "test/kernels/attention.py"
# test_attention.py: tile (8, 16), hidden 32, q_len 32, k_len 32/63
add("t_attention_test_f16_causal", TA, "fmha_kernel", _fmha("f16", 4, 16, 32, 63, 32, 8, 16, True, 2))
add("t_attention_test_bf16_causal", TA, "fmha_kernel", _fmha("bf16", 4, 16, 32, 63, 32, 8, 16, True, 2))
add("t_attention_test_f32_causal", TA, "fmha_kernel", _fmha("f32", 4, 16, 32, 63, 32, 8, 16, True, 2))
add("t_attention_test_f16_noncausal_even", TA, "fmha_kernel",
    _fmha("f16", 4, 8, 32, 32, 32, 8, 16, False))
add("t_attention_bf16_small", TA, "fmha_kernel", _fmha("bf16", 1, 8, 15, 63, 32, 8, 16, False))
add("t_attention_f16_small_causal", TA, "fmha_kernel", _fmha("f16", 1, 8, 15, 63, 32, 8, 16, True))
add("t_attention_f32_small_causal", TA, "fmha_kernel", _fmha("f32", 1, 8, 15, 63, 32, 8, 16, True))
# bench_attention.py with the tuned configurations (d = 128)
add("t_attention_bf16_m64_n256", TA, "fmha_kernel",
    _fmha("bf16", 8, 32, 1, 1024, 128, 64, 256, False), occupancy=4)
add("t_attention_f16_m64_n256", TA, "fmha_kernel",
    _fmha("f16", 8, 32, 1, 1024, 128, 64, 256, False), occupancy=4)
add("t_attention_f16_m64_n256_gqa", TA, "fmha_kernel",
    _fmha("f16", 8, 32, 1, 1024, 128, 64, 256, False, 4), occupancy=4)
add("t_attention_bf16_m64_n128_decode", TA, "fmha_kernel",
    _fmha("bf16", 8, 32, 1, 1024, 128, 64, 128, False), occupancy=1)
add("t_attention_bf16_d128_causal", TA, "fmha_kernel",
    _fmha("bf16", 1, 32, 8192, 8192, 128, 128, 128, True), occupancy=2)
add("t_attention_f16_d128_causal", TA, "fmha_kernel",
    _fmha("f16", 1, 32, 8192, 8192, 128, 128, 128, True), occupancy=2)
add("t_attention_bf16_d128_causal_gqa", TA, "fmha_kernel",
    _fmha("bf16", 1, 32, 1024, 1024, 128, 128, 128, True, 4), occupancy=2)
add("t_attention_bf16_m64_n64_causal", TA, "fmha_kernel",
    _fmha("bf16", 1, 32, 1024, 1024, 128, 64, 64, True), occupancy=2)

TF = "test/kernels/fft.py"
for _dt, _label in (("f16", "f16"), ("f32", "f32")):
    add(f"t_fft_{_label}", TF, "fft_kernel", _fft(2, 1024, (8, 16, 8), 64, _dt))
    add(f"t_fft_4096_{_label}", TF, "fft_kernel", _fft(2, 4096, (16, 16, 16), 64, _dt))
    add(f"t_fft_ref_{_label}", "test/kernels/fft_ref.py", "fft_kernel",
        (lambda dt: lambda: [A(dt, (16384, 4096, 2)), A(dt, (16384, 4096, 2)),
                             A(dt, (16, 16, 2)), A(dt, (16, 16, 2)), A(dt, (16, 16, 2)),
                             A(dt, (16, 256, 2)), A(dt, (16, 16, 2)), 4096, 16, 16, 16])(_dt))

TMOE = "test/kernels/fused_moe.py"
for _dt in ("f16", "bf16", "f32"):
    add(f"t_fused_moe_{_dt}", TMOE, "fused_moe_kernel", _moe(_dt, 110, 1024, 1024, 16, 4, False))
    add(f"t_fused_moe_w2_{_dt}", TMOE, "fused_moe_kernel", _moe(_dt, 110, 512, 1024, 16, 4, True))
    add(f"t_silu_and_mul_{_dt}", TMOE, "silu_and_mul_kernel",
        (lambda dt: lambda: [A(dt, (440, 512), (1024, 1)), A(dt, (440, 512), (1024, 1)),
                             A(dt, (440, 512)), 512])(_dt))

TG = "test/kernels/group_gemm.py"


def _group(dt: str, mnk: Sequence[tuple[int, int, int]], tm: int, tn: int, tk: int):
    m, n, k = mnk[0]
    return lambda: [L(A(dt, (m, k))), L(A(dt, (k, n))), L(A(dt, (m, n))), 4, tm, tn, tk]


add("t_group_gemm_f16", TG, "grouped_matmul_kernel", _group("f16", [(256, 256, 128)], 16, 8, 8))
add("t_group_gemm_bf16", TG, "grouped_matmul_kernel", _group("bf16", [(256, 256, 128)], 16, 8, 8))
add("t_group_gemm_f32", TG, "grouped_matmul_kernel", _group("f32", [(256, 256, 128)], 16, 8, 8))
add("t_group_gemm_f16_128x128x64", TG, "grouped_matmul_kernel",
    _group("f16", [(1024, 1024, 1024)], 128, 128, 64))

TL = "test/kernels/layer_norm.py"
for _dt in ("bf16", "f32"):
    add(f"t_layer_norm_fwd_{_dt}", TL, "layer_norm_fwd",
        (lambda dt: lambda: [A(dt, (1000, 4000)), A(dt, (4000,)), A(dt, (4000,)), A(dt, (1000, 4000)),
                             A("f32", (1000,)), A("f32", (1000,)), S("f32"), 1024])(_dt))
    add(f"t_layer_norm_bwd_dx_{_dt}", TL, "layer_norm_bwd_dx_partial_dwdb",
        (lambda dt: lambda: [A(dt, (1000, 4000)), A(dt, (1000, 4000)), A("f32", (64, 4000)),
                             A("f32", (64, 4000)), A(dt, (1000, 4000)), A(dt, (4000,)),
                             A("f32", (1000,)), A("f32", (1000,)), A("i32", (64,)), 1024])(_dt))
    add(f"t_layer_norm_bwd_dwdb_{_dt}", TL, "layer_norm_bwd_dwdb",
        (lambda dt: lambda: [A("f32", (64, 4000)), A("f32", (64, 4000)), A(dt, (4000,)),
                             A(dt, (4000,)), 32, 1024])(_dt))

TR = "test/kernels/rms_norm.py"


def _rms(dt: str, n: int, tile: int):
    return lambda: [A(dt, (65536, n)), A(dt, (n,)), A(dt, (65536, n)), A("f32", (65536,)),
                    n, 1e-6, tile]


for _dt, _n, _tile, _warps in (("f16", 1024, 1024, 4), ("f32", 1024, 1024, 4),
                               ("bf16", 2048, 1024, 4), ("f32", 4096, 1024, 4)):
    add(f"t_rms_norm_{_dt}_n{_n}", TR, "rms_norm_kernel", _rms(_dt, _n, _tile),
        num_worker_warps=_warps)
for _dt, _n, _tile, _warps in (("f16", 1024, 512, 4), ("f32", 1024, 256, 4),
                               ("bf16", 2048, 2048, 4), ("f32", 4096, 2048, 8),
                               ("bf16", 1024, 512, 4)):
    _suffix = "" if (_dt, _n) == ("bf16", 1024) else f"_n{_n}"
    add(f"t_rms_norm_gather_{_dt}{_suffix}", TR, "rms_norm_kernel_gather", _rms(_dt, _n, _tile),
        num_worker_warps=_warps)
for _dt, _n, _tm, _tn in (("f16", 1024, 8, 1024), ("f32", 1024, 16, 1024),
                          ("bf16", 2048, 4, 2048), ("f32", 4096, 4, 4096)):
    _name = f"t_rms_norm_persistent_{_dt}" + ("" if _n == 1024 else f"_{_n}")
    add(_name, TR, "rms_norm_kernel_static_persistent",
        (lambda dt, n, tm, tn: lambda: [A(dt, (65536, n)), A(dt, (65536, n)), A(dt, (n,)),
                                        tm, tn, n, 1e-6])(_dt, _n, _tm, _tn))

TT = "test/kernels/transpose.py"
for _dt in ("f16", "f32"):
    add(f"t_transpose_{_dt}_64x64", TT, "transpose_kernel",
        (lambda dt: lambda: [A(dt, (2048, 8000)), A(dt, (8000, 2048)), 64, 64])(_dt))

TV = "test/kernels/vec_add.py"
for _dt in ("f16", "f32"):
    add(f"t_vec_add_1d_{_dt}", TV, "vec_add_kernel_1d",
        (lambda dt: lambda: [A(dt, (1 << 25,)), A(dt, (1 << 25,)), A(dt, (1 << 25,)), 1024])(_dt))
    add(f"t_vec_add_1d_gather_{_dt}", TV, "vec_add_kernel_1d_gather",
        (lambda dt: lambda: [A(dt, (1 << 25,)), A(dt, (1 << 25,)), A(dt, (1 << 25,)), 1024])(_dt))
    add(f"t_vec_add_2d_{_dt}", TV, "vec_add_kernel_2d",
        (lambda dt: lambda: [A(dt, (1 << 20, 32)), A(dt, (1 << 20, 32)), A(dt, (1 << 20, 32)),
                             32, 32])(_dt))
    add(f"t_vec_add_2d_gather_{_dt}", TV, "vec_add_kernel_2d_gather",
        (lambda dt: lambda: [A(dt, (1 << 20, 32)), A(dt, (1 << 20, 32)), A(dt, (1 << 20, 32)),
                             32, 32])(_dt))


# ================================================================ test/test_*.py
# Kernels the tests define, at the tile sizes and dtypes of their parametrizations.

MMA = "test/test_mma.py"


def _mma(dt: str, acc: str, m: int, n: int, k: int, fast: bool | None = False, b_t: bool = False):
    def params() -> list[Any]:
        b = A(dt, (k, n), "T") if b_t else A(dt, (k, n))
        p = [A(dt, (m, k)), b, A(acc, (m, n)), m, n, k]
        return p if fast is None else [*p, fast]
    return params


for _dt, _acc in (("bf16", "f32"), ("f16", "f16"), ("f16", "f32"), ("f32", "f32"), ("f64", "f64")):
    add(f"t_mma_{_dt}_{_acc}", MMA, "mma_kernel", _mma(_dt, _acc, 2, 8, 16))
for _dt in ("e4m3", "e5m2"):
    for _acc in ("f16", "f32"):
        add(f"t_mma_{_dt}_{_acc}", MMA, "mma_kernel", _mma(_dt, _acc, 16, 16, 16, False, True))
        add(f"t_mma_{_dt}_{_acc}_fastacc", MMA, "mma_kernel", _mma(_dt, _acc, 16, 16, 16, True, True))
for _dt in ("i8", "u8"):
    add(f"t_mma_{_dt}_i32", MMA, "mma_kernel", _mma(_dt, "i32", 2, 2, 1))
add("t_mma_f16_f32_64x64x32", MMA, "mma_kernel", _mma("f16", "f32", 64, 64, 32))
add("t_mma_tf32", MMA, "mma_tf32_kernel", _mma("f32", "f32", 8, 2, 4, None))
add("t_mma_batch_f32", MMA, "mma_batch_kernel",
    lambda: [A("f32", (4, 16)), A("f32", (2, 16, 8)), A("f32", (2, 4, 8)), 2, 4, 8, 16])
for _x in ("bf16", "f16", "f32", "f64"):
    add(f"t_matmul_op_{_x}_{_x}", MMA, "matmul_kernel", _mma(_x, _x, 2, 8, 16, None))
add("t_matmul_op_f16_f32", MMA, "matmul_kernel",
    lambda: [A("f16", (2, 16)), A("f32", (16, 8)), A("f32", (2, 8)), 2, 8, 16])
for _dt in ("e4m3", "e5m2"):
    add(f"t_matmul_op_{_dt}", MMA, "matmul_kernel",
        (lambda dt: lambda: [A(dt, (16, 16)), A(dt, (16, 16), "T"), A(dt, (16, 16)), 16, 16, 16])(_dt))
for _dt in ("u8", "i8"):
    add(f"t_matmul_op_{_dt}", MMA, "matmul_kernel",
        (lambda dt: lambda: [A(dt, (16, 16)), A(dt, (16, 16)), A(dt, (16, 16)), 16, 16, 16])(_dt))
for _ra, _rb, _c in ((1, 1, (1,)), (1, 2, (8,)), (1, 3, (2, 8)), (2, 2, (4, 8)), (2, 3, (2, 4, 8))):
    add(f"t_matmul_nd_{_ra}x{_rb}", MMA, "matmul_nd_kernel",
        (lambda ra, rb, c: lambda: [
            A("f32", {1: (16,), 2: (4, 16), 3: (2, 4, 16)}[ra]),
            A("f32", {1: (16,), 2: (16, 8), 3: (2, 16, 8)}[rb]),
            A("f32", c), 2, 4, 8, 16])(_ra, _rb, _c))

MS = "test/test_mma_scaled.py"


def _mma_scaled(dt: str, m: int = 16, n: int = 16, k: int = 64, blk: int = 32):
    ks = k // blk
    return lambda: [A(dt, (m, k)), A("e8m0", (m, ks)), A(dt, (k, n)), A("e8m0", (ks, n)),
                    A("f32", (m, n)), m, n, k, ks]


for _dt in ("e4m3", "e5m2"):
    add(f"t_mma_scaled_{_dt}", MS, "mma_scaled_f8_kernel", _mma_scaled(_dt), gpu="sm_100")
    add(f"t_mma_scaled_general_{_dt}", MS, "mma_scaled_general_kernel",
        (lambda dt: lambda: [A("u8", (16, 64)), A("e8m0", (16, 2)), A("u8", (64, 16)),
                             A("e8m0", (2, 16)), A("f32", (16, 16)), 16, 16, 64, 2,
                             {"e4m3": 1, "e5m2": 2}[dt], 1, False])(_dt), gpu="sm_100")
add("t_mma_scaled_e4m3_128x128x128", MS, "mma_scaled_f8_kernel",
    _mma_scaled("e4m3", 128, 128, 128), gpu="sm_100")
add("t_mma_scaled_batch_e4m3", MS, "batch_mma_scaled_fp8_kernel",
    lambda: [A("e4m3", (16, 128)), A("e8m0", (16, 4)), A("e4m3", (2, 128, 16)),
             A("e8m0", (2, 4, 16)), A("f32", (2, 16, 16)), 2, 16, 16, 128, 4], gpu="sm_100")
for _sdt, _blk in (("e8m0", 32), ("e8m0", 16), ("e4m3", 16)):
    add(f"t_mma_scaled_f4_{_sdt}_b{_blk}", MS, "mma_scaled_general_kernel",
        (lambda sdt, blk: lambda: [A("u8", (16, 32)), A(sdt, (16, 64 // blk)), A("u8", (64, 8)),
                                   A(sdt, (64 // blk, 16)), A("f32", (16, 16)), 16, 16, 64,
                                   64 // blk, 0, 2, False])(_sdt, _blk), gpu="sm_100")


TRD = "test/test_reduction.py"
_FLOATS = ("f16", "bf16", "f32")
_INTS = ("i32", "i64", "i16", "i8")


def _reduce2d(dt: str, keep: bool, out: str | None = None, shape: tuple[int, int] = (512, 128),
              tile: int = 16):
    m, n = shape
    return lambda: [A(dt, (m, n)), A(out or dt, (m, 1) if keep else (m,)), tile, n, keep]


def _factory(maker: str, op: str) -> Callable[[types.ModuleType], Any]:
    import cuda.tile as ct

    return lambda mod: getattr(mod, maker)(getattr(ct, op))


for _op in ("max", "min", "sum", "prod"):
    for _dt in _FLOATS + _INTS:
        add(f"t_reduce_{_op}_{_dt}", TRD, _factory("make_reduce_axis1_2d", _op), _reduce2d(_dt, False))
    add(f"t_reduce_{_op}_f32_keepdims", TRD, _factory("make_reduce_axis1_2d", _op),
        _reduce2d("f32", True))
    add(f"t_reduce_{_op}_f32_all", TRD, _factory("make_reduce_axisNone", _op),
        lambda: [A("f32", (512, 128)), A("f32", (1, 1)), 512, 128, True])
for _op in ("sum", "prod"):
    add(f"t_reduce_{_op}_bool", TRD, _factory("make_reduce_axis1_2d", _op),
        _reduce2d("bool", False, "i32"))
for _op in ("max", "min"):
    add(f"t_reduce_{_op}_f32_axes12", TRD, _factory("make_reduce_max_two_axes", _op),
        lambda: [A("f32", (32, 32, 64)), A("f32", (32,)), 16, 32, 64, False, 1, 2])
for _op in ("argmax", "argmin"):
    for _dt in ("f32", "f16", "i32"):
        add(f"t_reduce_{_op}_{_dt}", TRD, _factory("make_reduce_axis1_2d", _op),
            _reduce2d(_dt, False, "i32", (32, 16)))
    add(f"t_reduce_{_op}_f32_3d", TRD, _factory("make_reduce_axis1_3d", _op),
        lambda: [A("f32", (2, 4, 4)), A("i32", (2, 4)), 16, 4, 4, False])
    add(f"t_reduce_{_op}_f32_all", TRD, _factory("make_reduce_axisNone", _op),
        lambda: [A("f32", (512, 128)), A("i32", (1, 1)), 512, 128, True])

TSC = "test/test_scan.py"
for _dt in _FLOATS + _INTS:
    for _rev in (False, True):
        _r = "_rev" if _rev else ""
        add(f"t_cumsum_{_dt}{_r}", TSC, "cumsum_axis1",
            (lambda dt, rev: lambda: [A(dt, (32, 32)), A(dt, (32, 32)), rev, 32, 32])(_dt, _rev))
        add(f"t_cumprod_{_dt}{_r}_axis0", TSC, "cumprod_axis0",
            (lambda dt, rev: lambda: [A(dt, (16, 32)), A(dt, (16, 32)), rev, 16, 32])(_dt, _rev))
add("t_cumsum_bool_i32", TSC, "cumsum_axis1",
    lambda: [A("bool", (32, 32)), A("i32", (32, 32)), False, 32, 32])
add("t_cumprod_bool_axis0", TSC, "cumprod_axis0",
    lambda: [A("bool", (16, 32)), A("i32", (16, 32)), False, 16, 32])

TSO = "test/test_softmax.py"
for _dt in _FLOATS:
    add(f"t_softmax_{_dt}", TSO, "softmax",
        (lambda dt: lambda: [A(dt, (512, 128)), A(dt, (512, 128)), 16, 128])(_dt))
    add(f"t_softmax_per_row_{_dt}", TSO, "softmax_per_row",
        (lambda dt: lambda: [A(dt, (512, 128)), A(dt, (512, 128)), 512, 128])(_dt))

TAT = "test/test_atomic.py"


def _atomic_op(name: str) -> int:
    import util  # type: ignore[import-not-found]  # cuTile's test/util.py

    return util.AtomicOp[name].value


def _atomic(dt: str, op: str, raw: bool, scalar: bool = False):
    if scalar:
        return lambda: [A(dt, (1,)), A(dt, (1,)), A(dt, (1,)), _atomic_op(op), int(raw)]
    return lambda: [A(dt, (512,)), A(dt, (512,)), A(dt, (512,)), 128, _atomic_op(op), int(raw)]


for _op, _dts in (("ADD", ("f32", "f16", "bf16", "i32", "i64", "f64")), ("XCHG", ("f32", "i64")),
                  ("MAX", ("i32", "i64")), ("MIN", ("i32",)), ("AND", ("i32",)), ("OR", ("i64",)),
                  ("XOR", ("i32",))):
    for _dt in _dts:
        add(f"t_atomic_{_op.lower()}_{_dt}", TAT, "atomic_arith_kernel", _atomic(_dt, _op, False))
add("t_atomic_add_f32_raw", TAT, "atomic_arith_kernel", _atomic("f32", "ADD", True))
add("t_atomic_max_i32_raw", TAT, "atomic_arith_kernel", _atomic("i32", "MAX", True))
add("t_atomic_add_f32_scalar", TAT, "scalar_atomic_arith_kernel", _atomic("f32", "ADD", False, True))
add("t_atomic_xchg_i32_scalar_raw", TAT, "scalar_atomic_arith_kernel",
    _atomic("i32", "XCHG", True, True))
for _dt in ("i32", "i64", "f32"):
    add(f"t_atomic_cas_{_dt}", TAT, "atomic_cas",
        (lambda dt: lambda: [A(dt, (512,)), A(dt, (512,)), A(dt, (512,)), 128, 0])(_dt))
add("t_atomic_cas_i32_raw", TAT, "atomic_cas",
    lambda: [A("i32", (512,)), A("i32", (512,)), A("i32", (512,)), 128, 1])
add("t_atomic_cas_i32_scalar", TAT, "scalar_atomic_cas",
    lambda: [A("i32", (1,)), A("i32", (1,)), A("i32", (1,)), 0])
add("t_atomic_mixed_scalar_tile", TAT, "mixed_scalar_tile_atomic",
    lambda: [A("i32", (1,)), A("i32", (1,))])
add("t_atomic_mixed_scalar_tile_raw", TAT, "raw_memory_mixed_scalar_tile_atomic",
    lambda: [A("i32", (1,)), A("i32", (1,))])


TLS = "test/test_load_store.py"
for _lat in (5, None):
    for _tma in (False, None):
        add(f"t_load_store_matmul_lat{_lat}_tma{_tma}", TLS,
            (lambda lat, tma: lambda mod: __import__("cuda.tile").tile.kernel(
                mod.make_ct_matmul_kernel(lat, tma)))(_lat, _tma),
            lambda: [A("f32", (32, 128)), A("f32", (128, 32)), A("f32", (32, 32)), 32, 16, 64])
    add(f"t_load_store_copy_2d_lat{_lat}", TLS,
        (lambda lat: lambda mod: __import__("cuda.tile").tile.kernel(
            mod.make_array_copy_2d_kernel(lat)))(_lat),
        lambda: [A("f32", (128, 128)), A("f32", (128, 128)), 64, 64])
add("t_load_store_with_hints_f16", TLS, "load_store_with_hints_kernel",
    lambda: [A("f16", (32,)), A("f16", (32,))])
add("t_load_store_copy_1d_f16_to_f32", TLS, "array_copy_1d",
    lambda: [A("f16", (225,)), A("f32", (225,)), 128])
for _k in ("load_store_0d_shape", "load_store_scalar", "load_store_0d_tile_index"):
    add(f"t_{_k}_f16", TLS, _k, lambda: [A("f16", (5,)), A("f16", (5,))])
add("t_copy_2d_no_check_bounds_f32", TLS, "copy_2d_no_check_bounds",
    lambda: [A("f32", (128, 128)), A("f32", (128, 128)), 64, 64])

TCA = "test/test_cast.py"
for _um in (True, False):
    add(f"t_astype_i32_f32{'_method' if _um else ''}", TCA, "array_astype_to_float32",
        (lambda um: lambda: [A("i32", (256,)), A("f32", (256,)), 128, um])(_um))
add("t_astype_tf32", TCA, "kernel_astype_tf32", lambda: [A("f32", (128,)), A("f32", (128,)), 128])
add("t_astype_bool_to_f32", TCA, "array_astype_bool_to_float",
    lambda: [A("f32", (1,))])
add("t_bitcast_f32_i32", TCA, "array_bitcast", lambda: [A("f32", (128,)), A("i32", (128,)), 128])
add("t_astype_f64_f32_rz", TCA, lambda mod: mod.make_astype_to_f32_kernel(
    __import__("cuda.tile").tile.RoundingMode.RZ), lambda: [A("f64", (4,)), A("f32", (4,)), 2, True])
add("t_astype_f32_tf32_rn", TCA, lambda mod: mod.make_astype_to_tf32_kernel(
    __import__("cuda.tile").tile.RoundingMode.RN), lambda: [A("f32", (4,)), A("f32", (4,)), 2, True])

TCP = "test/test_copy.py"
for _dt in ("f16", "f32", "i8", "i64", "bool"):
    add(f"t_copy_1d_{_dt}", TCP, "array_copy_1d",
        (lambda dt: lambda: [A(dt, (225,)), A(dt, (225,)), 128])(_dt))
for _dt in ("f16", "f32"):
    add(f"t_copy_2d_{_dt}", TCP, "array_copy_2d",
        (lambda dt: lambda: [A(dt, (192, 192)), A(dt, (192, 192)), 64, 64])(_dt))
    add(f"t_copy_2d_{_dt}_permuted", TCP, "array_copy_2d",
        (lambda dt: lambda: [A(dt, (128, 128), "T"), A(dt, (128, 128), "T"), 128, 128])(_dt))
    add(f"t_copy_2d_{_dt}_strided", TCP, "array_copy_2d",
        (lambda dt: lambda: [A(dt, (64, 64), (256, 2)), A(dt, (64, 64), (256, 2)), 64, 64])(_dt))
add("t_copy_3d_f32", TCP, "array_copy_3d",
    lambda: [A("f32", (4, 128, 128)), A("f32", (4, 128, 128)), 2, 64, 64])
add("t_copy_3d_f16_permuted", TCP, "array_copy_3d",
    lambda: [A("f16", (128, 128, 4), (1, 128, 16384)), A("f16", (128, 128, 4), (1, 128, 16384)),
             1, 128, 128])

TGS = "test/test_gather_scatter.py"
for _x, _y in (("f32", "f32"), ("f16", "f32"), ("bool", "i32"), ("i8", "i64")):
    add(f"t_gather_copy_1d_{_x}_{_y}", TGS, "array_copy_1d",
        (lambda x, y: lambda: [A(x, (260,)), A(y, (260,)), 256])(_x, _y))
    add(f"t_gather_copy_2d_{_x}_{_y}", TGS, "array_copy_2d",
        (lambda x, y: lambda: [A(x, (128, 192)), A(y, (128, 192)), 128, 32])(_x, _y))
add("t_gather_copy_1d_bool", TGS, "array_copy_1d", lambda: [A("bool", (128,)), A("bool", (128,)), 128])
add("t_gather_scalar_copy_f32", TGS, "scalar_copy", lambda: [A("f32", (8,)), A("f32", (8,))])
add("t_gather_padding_inf_f32", TGS, "custom_padding_constant",
    lambda: [A("f32", (5,)), A("f32", (8,)), float("inf")])
for _k in ("literal_negative_infinity_padding", "custom_padding_1d",
           "custom_padding_1d_broadcasted_to_2d"):
    add(f"t_gather_{_k}_f32", TGS, _k, lambda: [A("f32", (5,)), A("f32", (8,))])

TTR = "test/test_transpose.py"
for _k in ("permute_tile_2d_explicit_axes", "permute_tile_2d_negative_axes",
           "transpose_tile_2d_explicit_axes", "transpose_tile_2d_default_axes"):
    for _dt in ("f16", "f32"):
        add(f"t_{_k}_{_dt}", TTR, _k,
            (lambda dt: lambda: [A(dt, (128, 64)), A(dt, (64, 128)), True])(_dt))
add("t_transpose_tile_3d_explicit_axes_bf16", TTR, "transpose_tile_3d_explicit_axes",
    lambda: [A("bf16", (1, 8, 2)), A("bf16", (1, 2, 8))])
add("t_transpose_tile_2d_same_axis_f32", TTR, "transpose_tile_2d_same_axis",
    lambda: [A("f32", (128, 64)), A("f32", (128, 64))])

TSE = "test/test_select.py"
for _dt in _FLOATS:
    add(f"t_select_masked_copy_{_dt}", TSE, "masked_copy",
        (lambda dt: lambda: [A("bool", (128,)), A(dt, (128,)), A(dt, (128,)), A(dt, (128,)),
                             128])(_dt))
for _dt in ("f32",):
    add(f"t_select_scalar_{_dt}", TSE, "select_scalar",
        lambda: [A("bool", (128,)), A("f32", (128,)), 128])
add("t_select_tensor_scalar_f32", TSE, "select_tensor_scalar",
    lambda: [A("bool", (1, 128)), A("f32", (128, 1)), A("f32", (128, 128)), 1, 128, 128, 1])

TCF = "test/test_control_flow.py"


def _member(cls: str, name: str) -> Callable[[types.ModuleType], Any]:
    return lambda mod: getattr(getattr(mod, cls), name)


for _k in ("plus_n_one_arg", "plus_n_two_args", "plus_n_step2", "plus_n_two_loops",
           "plus_n_two_loops_once_each", "plus_n_scalar_acc", "plus_n_nested_for_loops",
           "plus_n_nested_for_loops_for_two_variables", "plus_n_until_2",
           "nested_cont_break_if"):
    add(f"t_for_{_k}", TCF, _member("TestForLoop", _k),
        lambda: [A("f32", (256,)), S("i32"), 128])
for _k in ("plus_n", "break_in_while", "continue_in_while"):
    add(f"t_while_{_k}", TCF, _member("TestWhileLoop", _k),
        lambda: [A("f32", (256,)), S("i32"), 128])
for _k in ("plus_one_if_true", "plus_or_minus_one"):
    add(f"t_if_{_k}", TCF, _member("TestIfCondtion", _k),
        lambda: [A("f32", (256,)), S("bool"), 128])
for _k in ("plus_one_two_ifs", "plus_one_nested_ifs", "plus_one_two_conditions_and",
           "plus_one_and_in_variable", "plus_one_two_conditions_or"):
    add(f"t_if_{_k}", TCF, _member("TestIfCondtion", _k),
        lambda: [A("f32", (256,)), S("bool"), S("bool"), 128])
add("t_early_return_f32", TCF, "early_return_kernel",
    lambda: [A("f32", (512, 128)), A("f32", (512, 1)), A("f32", (512, 128)), 16, 128, S("bool")])


# The elementwise tests generate their kernels from a template (``array_kernel``,
# written to a file and loaded with ``util.jit_kernel``); the files go to JIT_DIR.
JIT_DIR = Path("/tmp/cutile_heldout_jit")


def _jit(name: str, body: str) -> Callable[[types.ModuleType], Any]:
    def make(mod: types.ModuleType) -> Any:
        JIT_DIR.mkdir(parents=True, exist_ok=True)
        return mod.array_kernel(name, body, JIT_DIR)
    return make


TUN = "test/test_unary_elementwise.py"


def _unary(dt: str, out: str | None = None):
    return lambda: [A(dt, (512,)), A(out or dt, (512,)), 64]


for _op, _dts in (("sqrt", ("f32", "f16", "bf16")), ("rsqrt", ("f32", "f16")),
                  ("log", ("f32", "f16")), ("log2", ("f32",)), ("exp", ("f32", "f16", "bf16")),
                  ("exp2", ("f32", "f16")), ("sin", ("f32",)), ("cos", ("f32", "f16")),
                  ("tan", ("f32",)), ("sinh", ("f32",)), ("cosh", ("f32",)),
                  ("tanh", ("f32", "f16", "bf16"))):
    for _dt in _dts:
        add(f"t_unary_{_op}_{_dt}", TUN, _jit(_op, f"ty = ct.{_op}(tx)"), _unary(_dt))
for _dt in ("f32", "i32", "i8"):
    add(f"t_unary_neg_{_dt}", TUN, _jit("neg", "ty = -tx"), _unary(_dt))
    add(f"t_unary_abs_{_dt}", TUN, _jit("abs", "ty = abs(tx)"), _unary(_dt))
for _dt in ("i32", "i64", "bool"):
    add(f"t_unary_bitwise_not_{_dt}", TUN, _jit("bitwise_not", "ty = ~tx"), _unary(_dt))
add("t_unary_sqrt_f32_ftz", TUN, _jit("sqrt_flush_to_zero", "ty = ct.sqrt(tx, flush_to_zero=True)"),
    _unary("f32"))
add("t_unary_sqrt_i32_to_f32", TUN, _jit("sqrt", "ty = ct.sqrt(tx)"), _unary("i32", "f32"))

TBI = "test/test_binary_elementwise.py"


def _binary(x: str, y: str, z: str):
    return lambda: [A(x, (512,)), A(y, (512,)), A(z, (512,)), 64]


for _sym, _nm in (("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "truediv"), ("//", "floordiv"),
                  ("%", "mod"), ("**", "pow")):
    for _dt in ("f32", "f16", "i32", "i64"):
        if _sym == "**" and _dt.startswith("i"):
            continue
        _out = "f32" if (_sym == "/" and _dt.startswith("i")) else _dt
        add(f"t_binary_{_nm}_{_dt}", TBI, _jit("core_arithmetic", f"tz = tx {_sym} ty"),
            _binary(_dt, _dt, _out))
add("t_binary_add_f16_f32", TBI, _jit("core_arithmetic", "tz = tx + ty"), _binary("f16", "f32", "f32"))
add("t_binary_add_i8_f32", TBI, _jit("core_arithmetic", "tz = tx + ty"), _binary("i8", "f32", "f32"))
add("t_binary_mul_bf16", TBI, _jit("core_arithmetic", "tz = tx * ty"), _binary("bf16", "bf16", "bf16"))
for _sym, _nm in ((">", "gt"), ("<", "lt"), ("==", "eq"), ("!=", "ne")):
    for _dt in ("f32", "i32", "bool"):
        add(f"t_binary_cmp_{_nm}_{_dt}", TBI, _jit("cmp", f"tz = tx {_sym} ty"),
            _binary(_dt, _dt, "bool"))
for _fn in ("maximum", "minimum"):
    for _dt in ("f32", "f16", "i32"):
        add(f"t_binary_{_fn}_{_dt}", TBI, _jit(_fn, f"tz = ct.{_fn}(tx, ty)"), _binary(_dt, _dt, _dt))
for _sym, _nm in (("&", "and"), ("|", "or"), ("^", "xor"), ("<<", "shl"), (">>", "shr")):
    for _dt in ("i32", "i64", "u32"):
        add(f"t_binary_{_nm}_{_dt}", TBI, _jit("bitwise", f"tz = tx {_sym} ty"), _binary(_dt, _dt, _dt))
add("t_binary_atan2_f32", TBI, _jit("atan2", "tz = ct.atan2(tx, ty)"), _binary("f32", "f32", "f32"))
add("t_binary_inplace_mul_f32", TBI, _jit("inplace_bin", "ty *= tx; tz = ty"),
    _binary("f32", "f32", "f32"))
for _fn in ("explicit_broadcast_add", "implicit_broadcast_add"):
    add(f"t_binary_{_fn}_f32", TBI, _fn,
        lambda: [A("f32", (512,)), A("f32", (512,)), A("f32", (512, 512)), 64])

TEX = "test/test_extract.py"
for _dt in _FLOATS:
    add(f"t_extract_1d_{_dt}", TEX, "extract_1d",
        (lambda dt: lambda: [A(dt, (128,)), A(dt, (64,)), 128, True])(_dt))
    add(f"t_extract_2d_{_dt}", TEX, "extract_2d",
        (lambda dt: lambda: [A(dt, (128, 128)), A(dt, (64, 64)), 128, 128])(_dt))

TRS = "test/test_reshape.py"
for _dt in ("f32", "f16"):
    add(f"t_reshape_expanded_copy_{_dt}", TRS, "expanded_copy",
        (lambda dt: lambda: [A(dt, (128,)), A(dt, (1, 128)), 128])(_dt))
    add(f"t_reshape_copy_{_dt}", TRS, "reshape_copy",
        (lambda dt: lambda: [A(dt, (16384,)), A(dt, (128, 128)), 128, 128, True])(_dt))
    add(f"t_reshape_implicit_dim_{_dt}", TRS, "reshape_implicit_dim",
        (lambda dt: lambda: [A(dt, (16384,)), A(dt, (128, 128)), 128, 128])(_dt))


TFM = "test/test_fma.py"
for _k in ("mul_add_kernel", "mul_add_kernel_local_var", "mul_sub_kernel", "add_mul_kernel",
           "sub_mul_kernel"):
    add(f"t_fma_{_k.removesuffix('_kernel')}_f32", TFM, _k,
        lambda: [A("f32", (128, 32)), A("f32", (128, 32)), A("f32", (128, 32)),
                 A("f32", (128, 32)), 32, 32])

add("t_cudagraph_matmul_accumulate_f16", "test/test_cudagraph.py", "matmul_accumulate",
    lambda: [A("f16", (16, 16)), A("f16", (16, 16)), A("f16", (16, 16))])
add("t_cudagraph_add_one_f32", "test/test_cudagraph.py", "add_one", lambda: [A("f32", (1,))])

TLP = "test/test_loop_split.py"
add("t_loop_split_ge_i32", TLP, "split_ge_kernel", lambda: [A("i32", (10,))])
add("t_loop_split_carried_condition_i32", TLP, "loop_carried_condition_kernel",
    lambda: [A("i32", (10,)), S("i32")])
add("t_loop_split_dynamic_boundary_i32", TLP, "dynamic_split_boundary_kernel",
    lambda: [A("i32", (10,)), S("i32")])
add("t_cat2_i32_axis0", "test/test_cat.py", "cat2", lambda: [A("i32", (8,)), 0])


if __name__ == "__main__":
    sys.exit(main())
