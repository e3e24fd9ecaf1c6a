"""The interpreter's global memory: numpy buffers at virtual byte addresses.

A pointer is a byte address (an int64).  Every launch argument array is mapped with
the buffer it views, so a `strided_view`-style array (a corner of a bigger buffer)
can be reached through its strides, and two arguments viewing one buffer alias as
they would on the device.  A buffer's address keeps its host address modulo 256, so
alignment promises (`assume div_by<16>`) hold or fail as they would for memory from
`cudaMalloc` holding the same offsets.

Accesses are checked: an address outside every mapped buffer, or not aligned to the
element size, is an error naming the op, never a silent read of other memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Where the first buffer is placed; each buffer gets its own 2^36-byte slot.
_FIRST_SLOT = 1 << 36
_SLOT = 1 << 36


class MemoryFault(Exception):
    """An access the memory cannot serve; the op turns it into a KernelError."""


@dataclass
class Allocation:
    base: int
    data: np.ndarray  # uint8, one dimension, writable unless read-only
    name: str
    read_only: bool = False

    @property
    def end(self) -> int:
        return self.base + self.data.size


def _root(a: np.ndarray) -> np.ndarray:
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root


def byte_view(root: np.ndarray) -> np.ndarray:
    """The bytes of a contiguous buffer, as a writable uint8 view (no copy)."""
    if root.flags.c_contiguous:
        flat = root.reshape(-1)
    elif root.flags.f_contiguous:
        flat = root.T.reshape(-1)
    else:
        raise MemoryFault("the array does not view a contiguous buffer")
    if flat.dtype.itemsize == 0 or flat.size == 0:
        return np.zeros(0, dtype=np.uint8)
    return flat.view(np.uint8)


@dataclass
class Memory:
    allocations: list[Allocation] = field(default_factory=list[Allocation])
    _by_host: dict[tuple[int, int], Allocation] = field(
        default_factory=dict[tuple[int, int], Allocation]
    )
    _next_slot: int = _FIRST_SLOT

    # -- mapping ------------------------------------------------------------
    def _place(self, data: np.ndarray, name: str, low_bits: int, read_only: bool) -> Allocation:
        base = self._next_slot + low_bits
        slots = 1 + (data.size + low_bits) // _SLOT
        self._next_slot += slots * _SLOT
        alloc = Allocation(base, data, name, read_only)
        self.allocations.append(alloc)
        return alloc

    def map_array(self, a: np.ndarray, name: str) -> int:
        """Map the buffer `a` views; returns the address of `a`'s first element."""
        root = _root(a)
        host = root.__array_interface__["data"][0]
        key = (host, root.nbytes)
        alloc = self._by_host.get(key)
        if alloc is None:
            data = byte_view(root)
            alloc = self._place(data, name, host % 256, not a.flags.writeable)
            self._by_host[key] = alloc
        return alloc.base + (a.__array_interface__["data"][0] - host)

    def allocate(self, nbytes: int, alignment: int, name: str, init: bytes | None = None) -> int:
        """Fresh zeroed (or `init`) memory aligned to `alignment` bytes."""
        data = np.zeros(max(nbytes, 0), dtype=np.uint8)
        if init is not None:
            data[: len(init)] = np.frombuffer(init, dtype=np.uint8)
        # Slots start at multiples of 2^36: aligned to any power of two asked for.
        del alignment
        return self._place(data, name, 0, False).base

    # -- access -------------------------------------------------------------
    def _locate(self, addresses: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """For each address: the index of its allocation and the byte offset in it."""
        bases = np.array([a.base for a in self.allocations], dtype=np.int64)
        order = np.argsort(bases)
        sorted_bases = bases[order]
        pos = np.searchsorted(sorted_bases, addresses, side="right") - 1
        which = np.where(pos >= 0, order[np.clip(pos, 0, None)], -1)
        ends = np.array([a.end for a in self.allocations], dtype=np.int64)
        ok = (which >= 0) & (addresses + size <= ends[np.clip(which, 0, None)])
        if not ok.all():
            bad = int(addresses[~ok][0])
            raise MemoryFault(
                f"out-of-bounds access of {size} byte(s) at address {bad:#x}: {self.describe(bad)}"
            )
        offsets = addresses - bases[which]
        return which, offsets

    def describe(self, address: int) -> str:
        """Where `address` lies relative to the mapped buffers (for diagnostics)."""
        best: tuple[int, str] | None = None
        for a in self.allocations:
            if a.base <= address < a.end:
                return f"inside '{a.name}'"
            distance = address - a.end if address >= a.end else a.base - address
            side = "past the end of" if address >= a.end else "before"
            text = f"{distance} byte(s) {side} '{a.name}' ({a.data.size} bytes)"
            if best is None or distance < best[0]:
                best = (distance, text)
        return best[1] if best else "no memory is mapped"

    def _check_alignment(self, addresses: np.ndarray, size: int) -> None:
        if size > 1:
            misaligned = addresses % size != 0
            if misaligned.any():
                bad = int(addresses[misaligned][0])
                raise MemoryFault(f"misaligned {size}-byte access at address {bad:#x}")

    def _byte_index(
        self, addresses: np.ndarray, size: int
    ) -> list[tuple[int, np.ndarray, np.ndarray]]:
        which, offsets = self._locate(addresses, size)
        groups: list[tuple[int, np.ndarray, np.ndarray]] = []
        for w in np.unique(which):
            sel = np.nonzero(which == w)[0]
            index = offsets[sel][:, None] + np.arange(size, dtype=np.int64)[None, :]
            groups.append((int(w), sel, index))
        return groups

    def load(self, addresses: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """Elements of `dtype` at each address (a flat int64 array)."""
        addresses = np.asarray(addresses, dtype=np.int64).reshape(-1)
        size = dtype.itemsize
        out = np.zeros((addresses.size, size), dtype=np.uint8)
        if addresses.size:
            self._check_alignment(addresses, size)
            for w, sel, index in self._byte_index(addresses, size):
                out[sel] = self.allocations[w].data[index]
        return out.reshape(-1).view(dtype)

    def store(self, addresses: np.ndarray, values: np.ndarray) -> None:
        """Write each value at its address, in order (a later duplicate wins)."""
        addresses = np.asarray(addresses, dtype=np.int64).reshape(-1)
        if not addresses.size:
            return
        values = np.ascontiguousarray(values).reshape(-1)
        size = values.dtype.itemsize
        self._check_alignment(addresses, size)
        raw = values.view(np.uint8).reshape(-1, size)
        for w, sel, index in self._byte_index(addresses, size):
            alloc = self.allocations[w]
            if alloc.read_only:
                raise MemoryFault(f"store to read-only memory '{alloc.name}'")
            alloc.data[index] = raw[sel]
