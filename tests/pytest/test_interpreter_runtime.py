"""The GPU runtime's host side, which needs no GPU: targets, block sizes read from
PTX, the cubin tileir builds, and the diagnostic when no GPU can run it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileir.interpreter.launcher import find_entry, load
from tileir.runtime import GpuUnavailable, arch_for, block_size, compile_kernel, launch

VADD = Path(__file__).resolve().parents[1] / "corpus" / "vadd_f32.tileirbc"


def test_arch_for_capability() -> None:
    assert arch_for((8, 0)) == "sm_80"
    assert arch_for((8, 9)) == "sm_89"
    assert arch_for((9, 0)) == "sm_90a"
    assert arch_for((10, 0)) == "sm_100a"
    with pytest.raises(GpuUnavailable, match=r"compute capability 7\.5"):
        arch_for((7, 5))


def test_block_size_is_the_entrys_reqntid() -> None:
    ptx = (
        ".visible .entry a(\n\t.param .u64 a_param_0\n)\n.reqntid 64, 1, 1\n{\n}\n"
        ".visible .entry b(\n\t.param .u64 b_param_0\n)\n.reqntid 256\n{\n}\n"
    )
    assert block_size(ptx, "a") == (64, 1, 1)
    assert block_size(ptx, "b") == (256, 1, 1)
    with pytest.raises(Exception, match=r"no \.reqntid"):
        block_size(ptx, "c")


def test_compile_kernel_builds_a_cubin_once() -> None:
    module = load(VADD)
    name = find_entry(module, None).sym_name.data
    kernel = compile_kernel(module, name, "sm_90a")
    assert kernel.cubin.startswith(b"\x7fELF")
    assert kernel.block == block_size(kernel.ptx, name)
    assert compile_kernel(module, name, "sm_90a") is kernel


def test_launch_without_a_gpu_is_a_diagnostic() -> None:
    from tileir.runtime.launcher import backend

    try:
        backend()
    except GpuUnavailable:
        pass
    else:
        pytest.skip("a GPU is available: tests/gpu covers the launch")
    x = np.zeros(8, np.float32)
    with pytest.raises(GpuUnavailable, match="no usable CUDA GPU"):
        launch(VADD, 1, x, 8, 1, x.copy(), 8, 1, x.copy(), 8, 1)


class InterpretingBackend:
    """A stand-in for the CUDA driver that runs the interpreter on the device
    buffers: it checks what the runtime hands a driver (the cubin's entry, the block
    size, parameters packed in order, buffers copied in and back) without a GPU."""

    name = "interpreting"

    def __init__(self, module_path: Path) -> None:
        self.module_path = module_path
        self.buffers: dict[int, np.ndarray] = {}
        self.next_address = 1 << 40
        self.launches: list[tuple[str, tuple[int, int, int], tuple[int, int, int]]] = []

    def capability(self) -> tuple[int, int]:
        return (9, 0)

    def load(self, cubin: bytes, entry: str) -> str:
        assert cubin.startswith(b"\x7fELF")
        return entry

    def upload(self, data: np.ndarray) -> int:
        address = self.next_address
        self.next_address += 1 << 32
        self.buffers[address] = np.array(data, dtype=np.uint8).reshape(-1)
        return address

    def download(self, address: int, out: np.ndarray) -> None:
        out.view(np.uint8).reshape(-1)[...] = self.buffers[address]

    def free(self, address: int) -> None:
        del self.buffers[address]

    def launch(
        self,
        function: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        params: list[np.ndarray],
    ) -> None:
        from tileir.dialects.cuda_tile.types import PointerType
        from tileir.interpreter import launch as interpret
        from tileir.interpreter.numerics import dtype_of

        self.launches.append((function, grid, block))
        module = load(self.module_path)
        entry = find_entry(module, function)
        args: list[object] = []
        for t, p in zip(entry.function_type.inputs.data, params, strict=True):
            el = t.element_type  # pyright: ignore[reportAttributeAccessIssue]
            if isinstance(el, PointerType):
                assert p.dtype == np.uint64
                address = int(p[0])
                base = max(b for b in self.buffers if b <= address)
                raw = self.buffers[base][address - base :]
                dt = dtype_of(el.pointee)
                args.append(raw[: raw.size // dt.itemsize * dt.itemsize].view(dt))
            else:
                assert p.dtype == dtype_of(el) and p.shape == (1,)
                args.append(p[0].item())
        interpret(module, grid, *args)

    def time_launches(
        self,
        function: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        params: list[np.ndarray],
        repeats: int,
    ) -> float:
        for _ in range(repeats):
            self.launch(function, grid, block, params)
        return 0.5  # the stand-in's "milliseconds per launch"

    def copy_time(self, nbytes: int, repeats: int) -> float:
        return 1.0

    def device_name(self) -> str:
        return "stand-in"


def test_time_kernel_launches_tileirs_cubin_or_another(monkeypatch: pytest.MonkeyPatch) -> None:
    """`time_kernel` copies the arguments in once, launches tileir's cubin with its
    `.reqntid` block (or a given cubin with the given block) `repeats` times, returns
    the backend's time and frees every buffer."""
    import tileir.runtime.launcher as runtime

    fake = InterpretingBackend(VADD)
    monkeypatch.setattr(runtime, "_BACKEND", fake)
    x = np.arange(8, dtype=np.float32)
    args = (x, 8, 1, x.copy(), 8, 1, np.zeros(8, np.float32), 8, 1)
    assert runtime.time_kernel(VADD, 1, *args, repeats=3) == 0.5
    assert len(fake.launches) == 3 and fake.launches[0][2] != (1, 1, 1)
    elf = runtime.compile_kernel(load(VADD), fake.launches[0][0], "sm_90a").cubin
    fake.launches.clear()
    runtime.time_kernel(VADD, 1, *args, cubin=elf, repeats=2)
    assert [launch[2] for launch in fake.launches] == [(1, 1, 1)] * 2
    assert not fake.buffers
    assert not args[6].any()  # timing does not copy results back


def test_runtime_hands_the_driver_what_the_interpreter_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """grid_stride_f16_2d reads a strided view of a bigger buffer: the pointer keeps its
    offset into the uploaded buffer, and only the written buffer changes."""
    import sys

    import tileir.runtime.launcher as runtime
    from tileir.interpreter import launch as interpret

    corpus = VADD.parent
    sys.path.insert(0, str(corpus))
    import _common  # pyright: ignore[reportMissingImports]

    for name in ("grid_stride_f16_2d", "saxpy_f32"):
        path = corpus / f"{name}.tileirbc"
        fake = InterpretingBackend(path)
        monkeypatch.setattr(runtime, "_BACKEND", fake)
        case = _common.load_case_module(name)
        on_device = case.make_inputs(np.random.default_rng(0))
        reference = case.make_inputs(np.random.default_rng(0))
        result = launch(path, on_device["grid"], *_common.flatten_args(on_device))
        interpret(path, reference["grid"], *_common.flatten_args(reference))
        for n, a in reference["arrays"].items():
            np.testing.assert_array_equal(on_device["arrays"][n], a, err_msg=n)
        ((symbol, grid, block),) = fake.launches
        assert (symbol, grid) == (result.entry, tuple(on_device["grid"]))
        assert block == result.block and result.arch == "sm_90a"
        assert not fake.buffers  # every device buffer was freed


def test_runtime_keeps_a_pointer_offset_into_its_buffer(monkeypatch: pytest.MonkeyPatch) -> None:
    import tileir.runtime.launcher as runtime

    fake = InterpretingBackend(VADD)
    monkeypatch.setattr(runtime, "_BACKEND", fake)
    buffer = np.arange(48, dtype=np.float32)
    assert buffer.__array_interface__["data"][0] % 16 == 0
    # Three views of one buffer, 16-byte aligned as the kernel assumes.
    a, b, c = buffer[4:12], buffer[20:28], buffer[32:40]
    launch(VADD, 1, a, 8, 1, b, 8, 1, c, 8, 1)
    np.testing.assert_array_equal(buffer[32:40], np.arange(4, 12) + np.arange(20, 28))
    np.testing.assert_array_equal(buffer[:32], np.arange(32))  # nothing else written
    np.testing.assert_array_equal(buffer[40:], np.arange(40, 48))
    assert len(fake.launches) == 1


def test_the_dynamic_shared_memory_lookup_skips_cubins_without_the_constant() -> None:
    """A cubin without `__tileir_dynamic_smem_bytes_<kernel>` (every sm_90a one: its
    arena is static) is loaded without asking the driver for that global, an API error
    compute-sanitizer reports; one that may have it (its name in the image) is asked."""
    from tileir.backend.ptx.target import dynamic_shared_symbol
    from tileir.runtime.backends import CudaPythonBackend, may_declare

    module = load(VADD)
    name = find_entry(module, None).sym_name.data
    static = compile_kernel(module, name, "sm_90a").cubin
    assert not may_declare(static, dynamic_shared_symbol(name))

    asked: list[bytes] = []

    class Driver:
        def cuModuleLoadData(self, image: object) -> tuple[int, str]:
            return 0, "module"

        def cuModuleGetFunction(self, module: object, entry: bytes) -> tuple[int, str]:
            return 0, "function"

        def cuModuleGetGlobal(self, module: object, symbol: bytes) -> tuple[int, int, int]:
            asked.append(symbol)
            return 500, 0, 0  # CUDA_ERROR_NOT_FOUND

    gpu = CudaPythonBackend(Driver(), None, None)
    assert gpu.load(static, name).dynamic_shared == 0
    assert asked == []
    gpu.load(static + dynamic_shared_symbol(name).encode() + b"\0", name)
    assert asked == [dynamic_shared_symbol(name).encode()]


def test_the_dynamic_shared_memory_lookup_finds_the_constant_in_ptx() -> None:
    """PTX text handed to the driver (the sm_80 PTX of a kernel with a dynamic arena,
    JIT-compiled for a newer GPU) declares the constant followed by `;`, not NUL: its
    name is found as a whole word, and a longer name that only starts with it is not."""
    from tileir.backend.ptx.target import dynamic_shared_symbol
    from tileir.compiler import compile_module, load_module
    from tileir.runtime.backends import may_declare

    corpus = Path(__file__).resolve().parents[1] / "corpus"
    module = load_module(corpus / "gemm_bf16_big_tile.tileirbc")
    name = find_entry(load(corpus / "gemm_bf16_big_tile.tileirbc"), None).sym_name.data
    ptx = compile_module(module, "sm_80").ptx
    assert ptx is not None and "__tileir_dynamic_smem[]" in ptx
    assert may_declare(ptx.encode(), dynamic_shared_symbol(name))
    assert not may_declare(ptx.encode(), dynamic_shared_symbol(name[:-1]))
