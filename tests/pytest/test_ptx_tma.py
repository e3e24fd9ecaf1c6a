"""TMA in the PTX simulator (``ptx_tma.py``): tensor maps built on the device, copied
into a global pool slot, and 2-D boxes loaded with ``cp.async.bulk.tensor``.

One warp per CTA: thread 0 takes a 128-byte slot from a module-scope ``.global`` pool
(a busy-bitmap word per SM, ``%smid``, ``bfind`` of its free bits, ``atom.global.or``;
given back with ``red.global.and``), the warp zeroes a map in shared memory (a word a
lane, then ``bar.warp.sync``), thread 0 replaces its fields, the warp copies it to the
slot with ``tensormap.cp_fenceproxy``, thread 0 acquires it, expects the box's bytes on
an mbarrier and issues the copy; every thread waits for the phase and dumps the box's
shared bytes.  Boxes of bf16 and f32, with and without a 32-, 64- or 128-byte swizzle,
at coordinates that make some elements out of bounds (zeros).  The 128-byte swizzled
bf16 box must land where ``core_matrices``' 128-byte K-major operand layout puts each
element.  Also 1-D, 3-D and 5-D boxes with traversal strides, two boxes a stage on one
mbarrier with the NaN fill, and a tensor store of the box back into the tensor (clipped
at its edges).  Broken versions must fail: no acquire fence, an expect_tx 16 bytes off either
way, reading before the wait, a field never replaced, a field replaced with no
``bar.warp.sync`` after the other lanes' zeroing, a box row not a multiple of 16 bytes
or wider than its swizzle, the map changed while a copy through it is in flight, the
``cp_fenceproxy`` by part of a warp, a tensor store of an ``st.shared`` with no
``fence.proxy.async``, a CTA exiting with a box in flight.  Each kernel is checked with ptxas for ``sm_90a``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_ptx_sim_scheduling import assembled

from tileir.dialects.nv_tileas.core_matrices import OperandBuffer, swizzled
from tileir.testing import SimulationError, simulate
from tileir.testing.ptx_errors import ASYNC_RACE, DEADLOCK, INVALID, RACE

#: Element type: (numpy dtype, PTX store type, tensormap elemtype value).
_TYPES = {"bf16": (np.uint16, 10), "f32": (np.float32, 7)}
_SWIZZLE_MODES = {0: 0, 32: 1, 64: 2, 128: 3}
SMS = 2


def tma_kernel(
    dtype: str,
    box: tuple[int, ...],
    swizzle: int = 0,
    acquire: bool = True,
    expect_delta: int = 0,
    wait: bool = True,
    skip_field: str | None = None,
    modify_in_flight: bool = False,
    fenceproxy_by_one: bool = False,
    zeroing_synced: bool = True,
    traversal: tuple[int, ...] | None = None,
    nan_fill: bool = False,
    boxes: int = 1,
    destination: str = "shared::cluster",
    hint: bool = False,
    store_shift: tuple[int, int] | None = None,
    store_fenced: bool = True,
    issuer: int = 0,
    dump: bool = True,
    arrives: bool = True,
) -> str:
    """A kernel loading ``boxes`` boxes (``box`` innermost first, every ``traversal``-th
    element) at ``(ctaid.x * box0 - off0 + j * box0, ctaid.y * box1 - off1, -off2, ..)``
    of a ``d0 x d1 x ..`` tensor (byte strides ``s1, s2, ..``) into consecutive shared
    regions, and dumping their bytes to ``out[cta]``."""
    rank = len(box)
    traversal = traversal or (1,) * rank
    _, elemtype = _TYPES[dtype]
    size = 2 if dtype == "bf16" else 4
    one = int(np.prod([-(-b // t) for b, t in zip(box, traversal, strict=True)])) * size
    nbytes = one * boxes
    replace = "tensormap.replace.tile.{}.shared::cta.b1024.{} [%r20], {};"
    fields = {
        "rank": replace.format("rank", "b32", rank - 1),
        "global_address": replace.format("global_address", "b64", "%rd1"),
        **{f"box_dim{i}": replace.format("box_dim", "b32", f"{i}, {b}") for i, b in enumerate(box)},
        **{
            f"global_dim{i}": replace.format("global_dim", "b32", f"{i}, %dim{i}")
            for i in range(rank)
        },
        **{
            f"global_stride{i}": replace.format("global_stride", "b64", f"{i}, %gs{i + 1}")
            for i in range(rank - 1)
        },
        **{
            f"element_stride{i}": replace.format("element_stride", "b32", f"{i}, {t}")
            for i, t in enumerate(traversal)
        },
        "elemtype": replace.format("elemtype", "b32", elemtype),
        "interleave": replace.format("interleave_layout", "b32", 0),
        "swizzle": replace.format("swizzle_mode", "b32", _SWIZZLE_MODES[swizzle]),
        "fill": replace.format("fill_mode", "b32", int(nan_fill)),
    }
    replaces = "\n    ".join(f"@%p1 {v}" for k, v in fields.items() if k != skip_field)
    warp_sync = "bar.warp.sync -1;" if zeroing_synced else ""
    fence = "fence.proxy.tensormap::generic.acquire.gpu [%rd10], 128;" if acquire else ""
    arrive = f"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r22], {nbytes + expect_delta};"
    if not arrives:  # the bytes are expected, but the phase's one arrival never comes
        arrive = f"mbarrier.expect_tx.shared::cta.b64 [%r22], {nbytes + expect_delta};"
    coords = ", ".join(f"%co{i}" for i in range(rank))
    copies = []
    for j in range(boxes):
        copies.append(f"add.u32 %r28, %r21, {j * one};")
        copies.append(f"add.s32 %co0, %r13, {j * box[0]};")
        copies.append(
            f"cp.async.bulk.tensor.{rank}d.{destination}.global.tile.mbarrier::complete_tx::bytes"
            + (".L2::cache_hint" if hint else "")
            + f" [%r28], [%rd10, {{{coords}}}], [%r22]"
            + (", %rd15;" if hint else ";")
        )
    if hint:
        copies.insert(0, "createpolicy.fractional.L2::evict_last.b64 %rd15, 1.0;")
    copy = "\n    ".join(copies)
    if modify_in_flight:  # the copy is in flight until the arrival completes the phase
        issue = f"""{copy}
    tensormap.replace.tile.global_address.global.b1024.b64 [%rd10], %rd1;
    {arrive}"""
    else:
        issue = f"{arrive}\n    {copy}"
    cp_fenceproxy = (
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
        "[%rd10], [%r20], 128;"
    )
    fenceproxy_all, fenceproxy_one = (
        ("", cp_fenceproxy) if fenceproxy_by_one else (cp_fenceproxy, "")
    )
    waiting = (
        """
$L_wait:
    mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r22], 0;
    @!%p3 bra $L_wait;"""
        if wait
        else ""
    )
    storing = ""
    if store_shift is not None:  # thread 0 stores the box back, shifted (2-D)
        # Without the store's own bulk group wait, the dump below may still run; a thread's
        # st.shared into the box first needs fence.proxy.async before the async read.
        poke = "" if store_fenced else "st.shared.b32 [%r21], %r1;"
        storing = f"""
    @!%p1 bra $L_stored;
    {poke}
    add.s32 %co0, %r13, {store_shift[0]};
    add.s32 %co1, %co1, {store_shift[1]};
    cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd10, {{%co0, %co1}}], [%r21];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
$L_stored:"""
    second = (
        f"mov.u32 %r14, %ctaid.y;\n    mul.lo.u32 %r14, %r14, {box[1]};\n"
        "    sub.s32 %co1, %r14, %off1;"
        if rank > 1
        else ""
    )
    params = ", ".join(
        [f".param .u32 d{i}" for i in range(rank)]
        + [f".param .u64 s{i}" for i in range(1, rank)]
        + [f".param .u32 off{i}" for i in range(rank)]
    )
    loads = "\n    ".join(
        [f"ld.param.u32 %dim{i}, [d{i}];" for i in range(rank)]
        + [f"ld.param.u64 %gs{i}, [s{i}];" for i in range(1, rank)]
        + [f"ld.param.u32 %off{i}, [off{i}];" for i in range(rank)]
        + [f"neg.s32 %co{i}, %off{i};" for i in range(2, rank)]
    )
    return f"""
.version 8.6
.target sm_90a
.address_size 64

.global .align 128 .b8 tmap_pool[{SMS * 32 * 128}];
.global .align 4 .b32 tmap_busy[{SMS}];

.visible .entry tma_box(.param .u64 src, .param .u64 out, {params})
.reqntid 32
{{
    .reg .pred %p<6>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .reg .b32 %dim<5>, %off<5>, %co<5>;
    .reg .b64 %gs<5>;
    .shared .align 1024 .b8 box[{nbytes}];
    .shared .align 128 .b8 smap[128];
    .shared .align 8 .b8 bar[8];

    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [out];
    {loads}
    mov.u32 %r1, %tid.x;
    mov.u32 %r20, smap;
    mov.u32 %r21, box;
    mov.u32 %r22, bar;
    setp.eq.u32 %p1, %r1, 0;
    setp.eq.u32 %p5, %r1, {issuer};
    mov.u32 %r9, 0;
    @!%p1 bra $L_taken;
    // Take a slot: the first clear bit of this SM's word.
    mov.u32 %r4, %smid;
    mov.u64 %rd4, tmap_busy;
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd4, %rd4, %rd5;
$L_try:
    ld.relaxed.gpu.global.b32 %r7, [%rd4];
    not.b32 %r8, %r7;
    setp.eq.u32 %p2, %r8, 0;
    @%p2 nanosleep.u32 512;
    @%p2 bra $L_try;
    bfind.u32 %r5, %r8;
    shl.b32 %r6, 1, %r5;
    atom.acquire.gpu.global.or.b32 %r7, [%rd4], %r6;
    and.b32 %r8, %r7, %r6;
    setp.ne.u32 %p2, %r8, 0;
    @%p2 bra $L_try;
    mad.lo.u32 %r9, %r4, 32, %r5;
    mbarrier.init.shared::cta.b64 [%r22], 1;
$L_taken:
    shfl.sync.idx.b32 %r9, %r9, 0, 31, -1;
    // Build the map in shared memory: every lane zeroes 4 bytes, thread 0 replaces.
    shl.b32 %r10, %r1, 2;
    add.u32 %r10, %r10, %r20;
    st.shared.b32 [%r10], 0;
    {warp_sync}
    {replaces}
    bar.sync 0;
    mov.u64 %rd10, tmap_pool;
    mul.wide.u32 %rd11, %r9, 128;
    add.s64 %rd10, %rd10, %rd11;
    {fenceproxy_all}
    @!%p5 bra $L_issued;
    {fenceproxy_one}
    {fence}
    mov.u32 %r13, %ctaid.x;
    mul.lo.u32 %r13, %r13, {box[0]};
    sub.s32 %r13, %r13, %off0;
    {second}
    {issue}
$L_issued:{waiting}{storing}
    // Dump the box: 4 bytes a thread at a time.
    mov.u32 %r15, %ctaid.y;
    mov.u32 %r16, %nctaid.x;
    mov.u32 %r17, %ctaid.x;
    mad.lo.u32 %r15, %r15, %r16, %r17;
    mul.wide.u32 %rd12, %r15, {nbytes};
    add.s64 %rd12, %rd2, %rd12;
    shl.b32 %r18, %r1, 2;
    {"" if dump else "bra $L_done;"}
$L_dump:
    setp.ge.u32 %p4, %r18, {nbytes};
    @%p4 bra $L_done;
    add.u32 %r19, %r21, %r18;
    ld.shared.b32 %r23, [%r19];
    cvt.u64.u32 %rd13, %r18;
    add.s64 %rd14, %rd12, %rd13;
    st.global.b32 [%rd14], %r23;
    add.u32 %r18, %r18, 128;
    bra $L_dump;
$L_done:
    @!%p1 bra $L_end;
    // Give the slot back.
    mov.u32 %r24, %r5;
    shl.b32 %r25, 1, %r24;
    not.b32 %r25, %r25;
    red.release.gpu.global.and.b32 [%rd4], %r25;
$L_end:
    ret;
}}
"""


def expected_boxes(
    src: np.ndarray,
    box: tuple[int, ...],
    grid: tuple[int, int],
    off: tuple[int, ...],
    swizzle: int = 0,
    traversal: tuple[int, ...] | None = None,
    nan_fill: bool = False,
    boxes: int = 1,
) -> np.ndarray:
    """Per CTA, the boxes' bytes as they land in shared memory (out-of-bounds elements
    zero, or all ones with the NaN fill)."""
    rank = len(box)
    traversal = traversal or (1,) * rank
    dims = src.shape[::-1]
    counts = [-(-b // t) for b, t in zip(box, traversal, strict=True)]
    out = []
    for y in range(grid[1]):
        for x in range(grid[0]):
            raws = []
            for j in range(boxes):
                origin = [-o for o in off]
                origin[0] += x * box[0] + j * box[0]
                if rank > 1:
                    origin[1] += y * box[1]
                tile = np.zeros(counts[::-1], dtype=src.dtype)
                raw_tile = tile.view(np.uint8).reshape(*counts[::-1], -1)
                for index in np.ndindex(*counts[::-1]):
                    at = [origin[i] + index[::-1][i] * traversal[i] for i in range(rank)]
                    if all(0 <= a < n for a, n in zip(at, dims, strict=True)):
                        tile[index] = src[tuple(at[::-1])]
                    elif nan_fill:
                        raw_tile[index] = 0xFF
                raws.append(np.frombuffer(tile.tobytes(), dtype=np.uint8))
            raw = np.concatenate(raws)
            if swizzle:  # by the offset from the 1024-aligned region: the address bits
                placed = np.zeros_like(raw)
                for o in range(0, len(raw), 16):
                    s = swizzled(o, swizzle)
                    placed[s : s + 16] = raw[o : o + 16]
                raw = placed
            out.append(raw)
    return np.stack(out)


def run(
    ptx: str,
    src: np.ndarray,
    box: tuple[int, ...],
    grid: tuple[int, int],
    off: tuple[int, ...] | None = None,
    traversal: tuple[int, ...] | None = None,
    boxes: int = 1,
) -> np.ndarray:
    rank = len(box)
    off = off or (0,) * rank
    traversal = traversal or (1,) * rank
    counts = [-(-b // t) for b, t in zip(box, traversal, strict=True)]
    nbytes = int(np.prod(counts)) * src.itemsize * boxes
    out = np.zeros((grid[0] * grid[1], nbytes), dtype=np.uint8)
    dims = list(src.shape[::-1])
    strides = list(src.strides[::-1][1:])
    simulate(
        assembled(ptx),
        (grid[0], grid[1], 1),
        [src, out, *dims, *strides, *off],
        sm_count=SMS,
    )
    return out


def _source(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """A ``shape`` view of rows padded to 16 bytes (the padding is out of bounds)."""
    rng = np.random.default_rng(7)
    size = 2 if dtype == "bf16" else 4
    pitch = -(-shape[-1] * size // 16) * 16 // size
    padded = (*shape[:-1], pitch)
    if dtype == "bf16":
        base = rng.integers(1, 1 << 15, size=padded, dtype=np.uint16)
    else:
        base = rng.standard_normal(padded).astype(np.float32)
    return base[..., : shape[-1]]


@pytest.mark.parametrize(
    ("dtype", "box", "swizzle", "shape", "off"),
    [
        ("bf16", (64, 8), 128, (13, 100), (5, 3)),  # 64 bf16 = 128-byte rows
        ("bf16", (32, 8), 64, (9, 40), (0, 0)),
        ("f32", (8, 4), 32, (5, 12), (3, 1)),
        ("f32", (12, 3), 0, (5, 20), (4, 2)),  # 48-byte rows, no swizzle
    ],
)
def test_boxes_land_as_numpy_says(dtype, box, swizzle, shape, off):
    src = _source(dtype, shape)
    grid = (2, 2)
    out = run(tma_kernel(dtype, box, swizzle), src, box, grid, off)
    np.testing.assert_array_equal(out, expected_boxes(src, box, grid, off, swizzle))


def test_swizzle_128_matches_core_matrices_k_major():
    """Element (r, k) of a 64 x 16 bf16 box lands where the 128-byte swizzled K-major
    operand buffer of ``core_matrices`` (which the wgmma descriptor tests validate)
    puts it."""
    box = (64, 16)
    src = _source("bf16", (16, 64))
    out = run(tma_kernel("bf16", box, 128), src, box, (1, 1))[0].view(np.uint16)
    buf = OperandBuffer(rows=16, k=64, size=2, mn_major=False, swizzle=128)
    for r in range(16):
        for k in range(64):
            offset = buf.row_offset(r - r % 8) + (r % 8) * buf.swizzle + buf.k_offset(0) + 2 * k
            assert out[swizzled(offset, buf.swizzle) // 2] == src[r, k]


def _fails(ptx: str, kind: str, match: str, box=(64, 8), dtype="bf16"):
    src = _source(dtype, (8, box[0]))
    with pytest.raises(SimulationError, match=match) as e:
        run(ptx, src, box, (1, 1))
    assert e.value.kind == kind


def test_another_lane_of_the_warp_acquires_and_copies():
    """The whole warp releases with ``cp_fenceproxy``: lane 5's acquire sees it."""
    box = (64, 8)
    src = _source("bf16", (8, 64))
    out = run(tma_kernel("bf16", box, 128, issuer=5), src, box, (1, 1))
    np.testing.assert_array_equal(out, expected_boxes(src, box, (1, 1), (0, 0), 128))


def test_copy_without_acquire_fence_fails():
    _fails(tma_kernel("bf16", (64, 8), 128, acquire=False), RACE, "has not acquired")


def test_expect_tx_16_more_bytes_never_completes():
    _fails(tma_kernel("bf16", (64, 8), 128, expect_delta=16), DEADLOCK, "tx-count 16")


def test_expect_tx_16_fewer_bytes_fails():
    _fails(tma_kernel("bf16", (64, 8), 128, expect_delta=-16), INVALID, "expects only 1008 more")


def test_reading_before_the_wait_fails():
    _fails(
        tma_kernel("bf16", (64, 8), 128, wait=False),
        ASYNC_RACE,
        "has not written yet|no wait this thread observed",
    )


def test_field_never_replaced_fails():
    _fails(tma_kernel("bf16", (64, 8), 128, skip_field="rank"), INVALID, "rank was never written")
    _fails(
        tma_kernel("bf16", (64, 8), 128, skip_field="global_stride0"),
        INVALID,
        r"global_stride \(ord 0\) was never written",
    )


def test_box_rows_must_fit_16_bytes_and_the_swizzle():
    _fails(tma_kernel("bf16", (4, 8)), INVALID, "4 is not a multiple of 16|8 bytes, not a multiple")
    _fails(tma_kernel("bf16", (128, 2), 128), INVALID, "more than the 128-byte swizzle", (128, 2))


def test_map_modified_while_a_copy_is_in_flight_fails():
    _fails(tma_kernel("bf16", (64, 8), 128, modify_in_flight=True), ASYNC_RACE, "still copies")


def test_cp_fenceproxy_by_part_of_a_warp_fails():
    _fails(tma_kernel("bf16", (64, 8), 128, fenceproxy_by_one=True), INVALID, "only some threads")


def test_replacing_fields_the_other_lanes_zeroed_unsynchronized_fails():
    _fails(tma_kernel("bf16", (64, 8), 128, zeroing_synced=False), RACE, "unordered")


@pytest.mark.parametrize(
    ("box", "shape", "off", "traversal"),
    [
        ((8,), (37,), (3,), None),  # 1-D
        ((4, 3, 2), (2, 5, 6), (2, 1, 1), (1, 2, 1)),  # 3-D, every other row
        ((4, 2, 2, 2, 2), (2, 3, 2, 3, 5), (1, 0, 1, 0, 1), (1, 1, 3, 1, 2)),  # 5-D
    ],
)
def test_ranks_and_traversal_strides(box, shape, off, traversal):
    src = _source("f32", shape)
    ptx = tma_kernel("f32", box, traversal=traversal)
    out = run(ptx, src, box, (2, 1), off, traversal)
    np.testing.assert_array_equal(out, expected_boxes(src, box, (2, 1), off, 0, traversal))


def test_nan_fill_and_two_boxes_a_stage():
    """Two 64 x 4 bf16 boxes side by side along K on one mbarrier (a GEMM stage's
    K-major columns), out-of-bounds elements filled with a NaN; the ``.shared::cta``
    destination and an ``.L2::cache_hint`` policy (ignored)."""
    box, off = (64, 4), (100, 1)
    src = _source("bf16", (6, 150))
    ptx = tma_kernel("bf16", box, 128, nan_fill=True, boxes=2, destination="shared::cta", hint=True)
    out = run(ptx, src, box, (2, 2), off, boxes=2)
    expected = expected_boxes(src, box, (2, 2), off, 128, nan_fill=True, boxes=2)
    np.testing.assert_array_equal(out, expected)
    assert (out == 0xFF).any()


def test_tensor_store_writes_the_box_back_inside_the_tensor():
    """Thread 0 stores the loaded 16 x 4 f32 box (64-byte swizzled in shared memory)
    back 5 columns left and 2 rows down, through the same map: the elements that land
    outside the tensor are not written."""
    box, off, shift = (16, 4), (3, 1), (-5, 2)
    src = _source("f32", (6, 20))
    before = src.copy()
    ptx = tma_kernel("f32", box, 64, store_shift=shift)
    out = run(ptx, src, box, (1, 1), off)
    loaded = expected_boxes(before, box, (1, 1), off, 64)
    np.testing.assert_array_equal(out, loaded)
    tile = expected_boxes(before, box, (1, 1), off)[0].view(np.float32).reshape(4, 16)
    expected = before.copy()
    for r in range(4):
        for c in range(16):
            y, x = r - off[1] + shift[1], c - off[0] + shift[0]
            if 0 <= y < 6 and 0 <= x < 20:
                expected[y, x] = tile[r, c]
    np.testing.assert_array_equal(src, expected)


def test_tensor_store_of_an_unfenced_st_shared_fails():
    _fails(
        tma_kernel("bf16", (64, 8), 128, store_shift=(0, 0), store_fenced=False),
        ASYNC_RACE,
        "fence.proxy.async",
    )


def test_exiting_with_a_box_in_flight_fails():
    """No arrival on the stage's mbarrier and no wait: the CTA exits with the box in
    flight."""
    ptx = tma_kernel("bf16", (64, 8), 128, arrives=False, wait=False, dump=False)
    _fails(ptx, ASYNC_RACE, "exited while .* may still write its shared memory")
