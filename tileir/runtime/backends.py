"""The CUDA driver, through cuda-python (`cuda.bindings.driver`) or CuPy, imported
only when a launch needs it.

A backend loads a cubin, allocates and copies device memory and launches a kernel
with its parameters packed as the PTX entry declares them (pointers `.u64`,
scalars at their own width).  A kernel whose cubin holds the constant
`__tileir_dynamic_smem_bytes_<entry>` (tileir's arena in dynamic shared memory, before
sm_90: docs/codegen.md) is opted in to that much dynamic shared memory when it is
loaded (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`) and launched with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from tileir.backend.ptx.target import dynamic_shared_symbol
from tileir.diagnostics import CompileError


class GpuUnavailable(CompileError):
    """No CUDA driver, device or Python binding to run on."""


@dataclass
class LoadedKernel:
    """A loaded entry and the dynamic shared memory each launch of it passes."""

    function: Any
    dynamic_shared: int = 0


class Backend(Protocol):
    name: str

    def capability(self) -> tuple[int, int]: ...
    def load(self, cubin: bytes, entry: str) -> Any: ...
    def upload(self, data: np.ndarray) -> int: ...
    def download(self, address: int, out: np.ndarray) -> None: ...
    def free(self, address: int) -> None: ...
    def launch(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        params: list[np.ndarray],
    ) -> None: ...
    def time_launches(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        params: list[np.ndarray],
        repeats: int,
    ) -> float:
        """Milliseconds per launch of `repeats` back-to-back launches, between two
        CUDA events (after one untimed launch)."""
        ...

    def copy_time(self, nbytes: int, repeats: int) -> float:
        """Milliseconds per device-to-device copy of `nbytes` (between CUDA events)."""
        ...

    def device_name(self) -> str: ...


@dataclass
class CudaPythonBackend:
    """cuda-python's driver bindings."""

    driver: Any
    context: Any
    device: Any
    modules: list[Any] = field(default_factory=list[Any])
    name: str = "cuda-python"

    @classmethod
    def open(cls, ordinal: int) -> CudaPythonBackend:
        try:
            from cuda.bindings import driver  # pyright: ignore[reportMissingImports]
        except ImportError:
            from cuda import cuda as driver  # pyright: ignore[reportMissingImports, reportAttributeAccessIssue]
        _check(driver, driver.cuInit(0), "cuInit")
        device = _check(driver, driver.cuDeviceGet(ordinal), "cuDeviceGet")
        context = _check(
            driver, driver.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain"
        )
        _check(driver, driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
        return cls(driver, context, device)

    def capability(self) -> tuple[int, int]:
        d = self.driver
        attr = d.CUdevice_attribute
        major = _check(
            d,
            d.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.device),
            "cuDeviceGetAttribute",
        )
        minor = _check(
            d,
            d.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.device),
            "cuDeviceGetAttribute",
        )
        return int(major), int(minor)

    def load(self, cubin: bytes, entry: str) -> Any:
        d = self.driver
        image = np.frombuffer(cubin, dtype=np.uint8)
        module = _check(d, d.cuModuleLoadData(image.ctypes.data), "cuModuleLoadData")
        self.modules.append(module)  # loaded modules stay alive as long as the backend
        function = _check(d, d.cuModuleGetFunction(module, entry.encode()), "cuModuleGetFunction")
        if not may_declare(cubin, dynamic_shared_symbol(entry)):
            return LoadedKernel(function)
        err, address, size = d.cuModuleGetGlobal(module, dynamic_shared_symbol(entry).encode())
        if int(err) != 0 or int(size) != 4:  # no such constant: no dynamic shared memory
            return LoadedKernel(function)
        value = np.zeros(1, dtype=np.uint32)
        _check(d, d.cuMemcpyDtoH(value.ctypes.data, address, 4), "cuMemcpyDtoH")
        attribute = d.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        _check(d, d.cuFuncSetAttribute(function, attribute, int(value[0])), "cuFuncSetAttribute")
        return LoadedKernel(function, int(value[0]))

    def upload(self, data: np.ndarray) -> int:
        d = self.driver
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        address = _check(d, d.cuMemAlloc(max(raw.size, 1)), "cuMemAlloc")
        if raw.size:
            _check(d, d.cuMemcpyHtoD(address, raw.ctypes.data, raw.size), "cuMemcpyHtoD")
        return int(address)

    def download(self, address: int, out: np.ndarray) -> None:
        d = self.driver
        raw = out.view(np.uint8).reshape(-1)
        if raw.size:
            _check(d, d.cuMemcpyDtoH(raw.ctypes.data, address, raw.size), "cuMemcpyDtoH")

    def free(self, address: int) -> None:
        self.driver.cuMemFree(address)

    def launch(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        params: list[np.ndarray],
    ) -> None:
        d = self.driver
        pointers = np.array([p.ctypes.data for p in params], dtype=np.uint64)
        kernel: LoadedKernel = function
        _check(
            d,
            d.cuLaunchKernel(
                kernel.function, *grid, *block, kernel.dynamic_shared, 0, pointers.ctypes.data, 0
            ),
            "cuLaunchKernel",
        )
        _check(d, d.cuCtxSynchronize(), "cuCtxSynchronize (the kernel failed)")

    def _timed(self, run: Any, repeats: int) -> float:
        d = self.driver
        run()  # warm-up, untimed
        _check(d, d.cuCtxSynchronize(), "cuCtxSynchronize (the kernel failed)")
        start = _check(d, d.cuEventCreate(0), "cuEventCreate")
        stop = _check(d, d.cuEventCreate(0), "cuEventCreate")
        _check(d, d.cuEventRecord(start, 0), "cuEventRecord")
        for _ in range(repeats):
            run()
        _check(d, d.cuEventRecord(stop, 0), "cuEventRecord")
        _check(d, d.cuEventSynchronize(stop), "cuEventSynchronize (the kernel failed)")
        elapsed = _check(d, d.cuEventElapsedTime(start, stop), "cuEventElapsedTime")
        d.cuEventDestroy(start)
        d.cuEventDestroy(stop)
        return float(elapsed) / repeats

    def time_launches(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        params: list[np.ndarray],
        repeats: int,
    ) -> float:
        d = self.driver
        pointers = np.array([p.ctypes.data for p in params], dtype=np.uint64)
        kernel: LoadedKernel = function

        def run() -> None:
            _check(
                d,
                d.cuLaunchKernel(
                    kernel.function,
                    *grid,
                    *block,
                    kernel.dynamic_shared,
                    0,
                    pointers.ctypes.data,
                    0,
                ),
                "cuLaunchKernel",
            )

        return self._timed(run, repeats)

    def copy_time(self, nbytes: int, repeats: int) -> float:
        d = self.driver
        src = _check(d, d.cuMemAlloc(nbytes), "cuMemAlloc")
        dst = _check(d, d.cuMemAlloc(nbytes), "cuMemAlloc")
        try:
            return self._timed(
                lambda: _check(d, d.cuMemcpyDtoDAsync(dst, src, nbytes, 0), "cuMemcpyDtoD"),
                repeats,
            )
        finally:
            d.cuMemFree(src)
            d.cuMemFree(dst)

    def device_name(self) -> str:
        name = _check(self.driver, self.driver.cuDeviceGetName(256, self.device), "cuDeviceGetName")
        return bytes(name).split(b"\0", 1)[0].decode()


def may_declare(image: bytes, symbol: str) -> bool:
    """Whether `image` (a cubin, or PTX text the driver compiles) may define `symbol`: its
    name is in the image as a whole word (an ELF string table holds every symbol's name
    NUL-terminated; PTX declares it followed by a space, `;` or `[`).  Asking the driver
    for a global a module does not have is an API error that compute-sanitizer reports
    (2 "errors" of memcheck on an H200 for every kernel without dynamic shared memory,
    2026-11-27), so the lookup is skipped where the name cannot be there.  (Looking for
    the NUL-terminated name alone missed it in PTX: the sm_80 PTX of a kernel with a
    dynamic arena, JIT-compiled on an H200, launched without its shared memory and
    stopped at its entry check's `trap`, 2026-11-27.)"""
    return re.search(re.escape(symbol.encode()) + rb"(?![A-Za-z0-9_$])", image) is not None


def _check(driver: Any, result: Any, what: str) -> Any:
    """cuda-python returns (error, value...); raise on an error."""
    if not isinstance(result, tuple):
        result = (result,)
    err = result[0]
    if int(err) != 0:
        _, text = driver.cuGetErrorString(err)
        message = text.decode() if isinstance(text, bytes) else str(err)
        raise GpuUnavailable(f"{what} failed: {message}")
    rest = result[1:]
    return rest[0] if len(rest) == 1 else rest


@dataclass
class CupyBackend:
    """CuPy's driver wrappers."""

    cupy: Any
    buffers: dict[int, Any]
    name: str = "cupy"

    @classmethod
    def open(cls, ordinal: int) -> CupyBackend:
        import cupy  # pyright: ignore[reportMissingImports]

        cupy.cuda.Device(ordinal).use()
        return cls(cupy, {})

    def capability(self) -> tuple[int, int]:
        cc = self.cupy.cuda.Device().compute_capability
        return int(cc[:-1]), int(cc[-1])

    def load(self, cubin: bytes, entry: str) -> Any:
        module = self.cupy.cuda.function.Module()
        module.load(cubin)
        function = module.get_function(entry)
        if not may_declare(cubin, dynamic_shared_symbol(entry)):
            return LoadedKernel((function, module))
        try:
            constant = module.get_global(dynamic_shared_symbol(entry))
        except Exception:  # no such constant: no dynamic shared memory
            return LoadedKernel((function, module))
        value = np.zeros(1, dtype=np.uint32)
        constant.copy_to_host(value.ctypes.data, 4)
        function.max_dynamic_shared_size_bytes = int(value[0])
        return LoadedKernel((function, module), int(value[0]))

    def upload(self, data: np.ndarray) -> int:
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        buffer = self.cupy.cuda.alloc(max(raw.size, 1))
        if raw.size:
            buffer.copy_from_host(raw.ctypes.data, raw.size)
        self.buffers[int(buffer.ptr)] = buffer
        return int(buffer.ptr)

    def download(self, address: int, out: np.ndarray) -> None:
        raw = out.view(np.uint8).reshape(-1)
        if raw.size:
            self.buffers[address].copy_to_host(raw.ctypes.data, raw.size)

    def free(self, address: int) -> None:
        self.buffers.pop(address, None)

    def launch(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        params: list[np.ndarray],
    ) -> None:
        loaded: LoadedKernel = function
        kernel, _module = loaded.function
        kernel(grid, block, tuple(p[0] for p in params), shared_mem=loaded.dynamic_shared)
        self.cupy.cuda.runtime.deviceSynchronize()

    def _timed(self, run: Any, repeats: int) -> float:
        cuda = self.cupy.cuda
        run()  # warm-up, untimed
        cuda.runtime.deviceSynchronize()
        start, stop = cuda.Event(), cuda.Event()
        start.record()
        for _ in range(repeats):
            run()
        stop.record()
        stop.synchronize()
        return float(cuda.get_elapsed_time(start, stop)) / repeats

    def time_launches(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        params: list[np.ndarray],
        repeats: int,
    ) -> float:
        loaded: LoadedKernel = function
        kernel, _module = loaded.function
        values = tuple(p[0] for p in params)
        shared = loaded.dynamic_shared
        return self._timed(lambda: kernel(grid, block, values, shared_mem=shared), repeats)

    def copy_time(self, nbytes: int, repeats: int) -> float:
        src = self.cupy.cuda.alloc(nbytes)
        dst = self.cupy.cuda.alloc(nbytes)
        return self._timed(lambda: dst.copy_from_device_async(src, nbytes), repeats)

    def device_name(self) -> str:
        props = self.cupy.cuda.runtime.getDeviceProperties(self.cupy.cuda.Device().id)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)


def open_backend(ordinal: int = 0) -> Backend:
    """cuda-python if it is installed, else CuPy; `GpuUnavailable` says why neither
    can run."""
    reasons: list[str] = []
    for opener in (CudaPythonBackend.open, CupyBackend.open):
        try:
            return opener(ordinal)
        except ImportError as e:
            reasons.append(str(e))
        except GpuUnavailable as e:
            reasons.append(e.message)
        except Exception as e:  # a driver without a device, an unusable install
            reasons.append(f"{type(e).__name__}: {e}")
    raise GpuUnavailable("no usable CUDA GPU: " + "; ".join(reasons))
