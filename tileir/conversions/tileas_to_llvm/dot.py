"""`nv_tileas.dot`: the steps every tensor-core engine shares, and the dispatch on the
engine the atom names (`tileas-select-dot-atoms` chose it, `transforms/tileas/dot_plan.py`).

An `fma` atom goes to `fma_dot.py` whole.  For `mma.sync` and `wgmma` atoms this file
checks the shapes against the instruction, writes `a` and `b` (and `acc`, unless it
already is in the `#nv_tileas.mma` layout) into shared memory through the pass's
`Exchange` (row-major padded buffers for `ldmatrix`, core-matrix buffers for `wgmma`),
runs the engine on the accumulator registers (`mma.mma_sync_dot`: `ldmatrix` +
`mma.sync`; `wgmma.wgmma_dot`: matrix descriptors + `wgmma`), and brings the result
into its layout.  The steps, the buffers and the layouts are described in `mma.py`.
"""

from __future__ import annotations

from dataclasses import replace

from xdsl.dialects.builtin import (
    TensorType,
    f16,
    i32,
)
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

import tileir.conversions.tileas_to_llvm.mma as mma
import tileir.conversions.tileas_to_llvm.wgmma as wgmma
from tileir.conversions.tileas_to_llvm.async_copy import AsyncFeeds, ring_key
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import (
    LoweringContext,
    linear_layout,
)
from tileir.conversions.tileas_to_llvm.exchange import (
    ElementKind,
    Exchange,
    check_exchangeable,
    element_kind,
    padded_strides,
)
from tileir.conversions.tileas_to_llvm.fma_dot import lower_fma_dot
from tileir.conversions.tileas_to_llvm.fp8 import is_fp8
from tileir.conversions.tileas_to_llvm.operand_placement import OperandPlacement
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.conversions.tileas_to_llvm.shared_arena import allocate_persistent, available_bytes
from tileir.conversions.tileas_to_llvm.staged_operands import stage_once
from tileir.conversions.tileas_to_llvm.tcgen05 import (
    lower_read_tmem_accumulator,
    lower_scale_tmem_accumulator,
    lower_tcgen05_dot,
    lower_write_tmem_accumulator,
)
from tileir.diagnostics import not_supported
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.core_matrices import BufferView, b_mn_swizzle
from tileir.dialects.nv_tileas.mma_layout import (
    batched_fragment,
    effective_warps,
    mma_linear,
)
from tileir.dialects.nv_tileas.mma_spec import MmaSpec
from tileir.dialects.nv_tileas.ops.tmem import A_IN_REGISTERS_ATTR, A_OWN_BUFFER_ATTR
from tileir.transforms.tileas.dot_plan import dot_warp_grid, wgmma_obstacle
from tileir.transforms.tileas.overlap_attention_dots import wgmma_pending
from tileir.transforms.tileas.pipeline_dot_operands import (
    chained_dot,
    groups_in_flight,
    refills_after_wait,
    turn_by_dot,
)
from tileir.transforms.tileas.ring_budget import marked_staged_once


class LowerReadTmemAccumulator(TilePattern):
    """`nv_tileas.read_tmem_accumulator` -> `tcgen05.ld` (`tcgen05.py`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.ReadTmemAccumulatorOp, rewriter: PatternRewriter) -> None:
        lower_read_tmem_accumulator(op, rewriter, self.ctx)


class LowerWriteTmemAccumulator(TilePattern):
    """`nv_tileas.write_tmem_accumulator` -> `tcgen05.st` (`tcgen05.py`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.WriteTmemAccumulatorOp, rewriter: PatternRewriter) -> None:
        lower_write_tmem_accumulator(op, rewriter, self.ctx)


class LowerScaleTmemAccumulator(TilePattern):
    """`nv_tileas.scale_tmem_accumulator` -> `tcgen05.ld`, `mul`, `tcgen05.st`
    (`tcgen05.py`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.ScaleTmemAccumulatorOp, rewriter: PatternRewriter) -> None:
        lower_scale_tmem_accumulator(op, rewriter, self.ctx)


class LowerDot(TilePattern):
    """`nv_tileas.dot` -> its operands through shared memory, then the engine its atom
    names: `mma.sync` (`mma.py`), `wgmma` (`wgmma.py`) or FMAs (`fma_dot.py`)."""

    def __init__(self, ctx: LoweringContext, exchange: Exchange, feeds: AsyncFeeds):
        super().__init__(ctx)
        self.exchange = exchange
        self.feeds = feeds
        feeds.placement = self.placement
        #: The buffers of A of their own (`A_OWN_BUFFER_ATTR`), by kernel and ring key.
        self.own_a: dict[tuple[int, object], SSAValue] = {}
        #: The two buffers in turn that the links of a chain share (`TURN_BY_DOT_ATTR`),
        #: by kernel, loop, operand and size.
        self.chain_turns: dict[tuple[int, int | None, int, int], SSAValue] = {}

    def _check(self, op: tas.DotOp) -> tuple[MmaSpec, int, int, int]:
        """The instruction family of `op`'s atom, and M, N, K, checked against the
        shapes the instruction takes."""
        a_t, b_t = op.a.type, op.b.type
        assert isinstance(a_t, TensorType) and isinstance(b_t, TensorType)
        info = op.atom.info
        spec = info.mma_spec
        if spec is None or info.engine not in ("mma.sync", "wgmma", "tcgen05"):
            raise not_supported(op, f"a dot on atom '{info.name}'")
        a_shape, b_shape = a_t.get_shape(), b_t.get_shape()
        if len(a_shape) not in (2, 3):
            raise not_supported(
                op,
                f"a rank-{len(a_shape)} dot",
                instead="use 2-D tiles, or 3-D ones for a batch of dots",
            )
        (m, k), (_, n) = a_shape[-2:], b_shape[-2:]
        k_unit = 16 if spec.integer else spec.k_step  # i8: m16n8k16 takes a 16-byte tail
        if m % 16 or k % k_unit or n % 8:
            raise not_supported(
                op,
                f"dot of a {m}x{k} by a {k}x{n} tile (mma.sync needs M a multiple of 16, "
                f"K of {k_unit} and N of 8)",
                instead="pad the tiles to those multiples (padding_mode=ct.PaddingMode.ZERO "
                "loads zeros past the array's edge)",
            )
        return spec, m, n, k

    def _check_wgmma(
        self, op: tas.DotOp, spec: MmaSpec, mnk: tuple[int, int, int], grid: tuple[int, int]
    ) -> int:
        """The N of `op`'s `wgmma` atom, which must fit the dot on this target."""
        shape = op.atom.info.mma_shape
        assert shape is not None
        rank = len(shape_of(op.acc.type))
        why = wgmma_obstacle(self.ctx.arch, spec.integer, mnk, spec.k_step, grid, rank)
        columns = mnk[1] // grid[1]
        if why is None and columns % shape[1]:
            why = f"its {columns} columns per warpgroup are no multiple of N = {shape[1]}"
        if why is not None:
            raise not_supported(op, f"a dot on atom '{op.atom.data}': {why}")
        return shape[1]

    def placement(self, op: tas.DotOp) -> OperandPlacement:
        """Where `op` reads A and B in shared memory (the same for the dot and for the
        asynchronous copies that fill its rings, `async_copy.py`)."""
        spec, m, n, k = self._check(op)
        lhs_t, acc_t = op.a.type, op.acc.type
        assert isinstance(lhs_t, TensorType) and isinstance(acc_t, TensorType)
        batched = len(lhs_t.get_shape()) == 3
        batch = lhs_t.get_shape()[0] if batched else 1
        a_layout = linear_layout(op, op.a.type)
        b_layout = linear_layout(op, op.b.type)
        if op.atom.info.engine == "mma.sync" and not wgmma.b_mn_major(spec.element_bytes, b_layout):
            # A 16-bit B that came K-contiguous: stored N x K, one vector a run.
            spec = replace(spec, b_k_contiguous=spec.element_bytes == 2)
        grid = dot_warp_grid(op, acc_t)
        frag = mma_linear((m, n), *grid)
        if batched:
            # The batch index is the highest register bits (registers of batch i are
            # per_batch * i + the 2-D fragment's).
            frag = batched_fragment(frag, batch)
        exchange_acc = not (
            linear_layout(op, acc_t) == frag and linear_layout(op, op.result.type) == frag
        )
        accumulator = element_kind(op, acc_t)
        acc_shape = [batch, m, n] if batched else [m, n]
        c_strides, c_size = padded_strides(acc_shape, accumulator.bits)
        size = spec.element_bytes
        # A: M x K row-major.  B: K x N row-major for 16-bit elements (ldmatrix.trans
        # gives the column fragments); N x K (transposed on the way in) for bytes and
        # tf32 words, which ldmatrix cannot transpose.
        a_pitch = size * k + mma.OPERAND_ROW_PAD
        b_pitch = size * (k if spec.k_major_b else n) + mma.OPERAND_ROW_PAD
        a_batch = m * a_pitch
        b_batch = (n if spec.k_major_b else k) * b_pitch
        a_strides = [a_pitch, size]
        b_strides = [size, b_pitch] if spec.k_major_b else [b_pitch, size]
        views = [BufferView(a_layout, a_strides), BufferView(b_layout, b_strides)]
        # sm_90a: the warpgroup MMA reads A and B from core-matrix buffers.
        operand_buffers = None
        wgmma_n = 0
        if op.atom.info.engine in ("wgmma", "tcgen05"):
            # tcgen05 (sm_100a) reads the same core-matrix buffers (`tcgen05.py`).
            if op.atom.info.engine == "wgmma":
                wgmma_n = self._check_wgmma(op, spec, (m, n, k), grid)
            state = self.ctx.function_state(op)
            limit = available_bytes(state, [c_size] if exchange_acc else [])
            operand_buffers = wgmma.operand_buffers(
                (m, n, k), size, (a_layout, b_layout), limit, b_mn_swizzle(op)
            )
            a_batch, b_batch = (buffer.bytes for buffer in operand_buffers)
            views = [
                operand_buffers[0].view(a_layout, 1),
                operand_buffers[1].view(b_layout, 0),
            ]
        elif batched:
            views = [
                BufferView(layout, [per_batch, *strides])
                for (layout, strides, _), per_batch in zip(views, (a_batch, b_batch), strict=True)
            ]
        return OperandPlacement(
            spec,
            (m, n, k),
            batch,
            grid,
            frag,
            (a_pitch, b_pitch),
            (a_batch, b_batch),
            views,
            operand_buffers,
            wgmma_n,
            (c_strides, c_size),
        )

    def _double_buffered(
        self, op: tas.DotOp, use_wgmma: bool, fed: list[SSAValue | None], a_in_registers: bool
    ) -> list[int]:
        """The operands of `op` written each iteration into one of two buffers in turn:
        where `tileas-pipeline-dot-operands` left a `wgmma` group in flight with an
        operand computed from its loads' slots, every operand that no ring feeds, no
        register fragment carries and that is not staged once."""
        if not (use_wgmma and groups_in_flight(op)):
            return []
        return [i for i in (0, 1) if fed[i] is None and not (i == 0 and a_in_registers)]

    def _buffer_in_turn(
        self, op: tas.DotOp, rewriter: PatternRewriter, index: int, size: int, alignment: int
    ) -> SSAValue:
        """This iteration's buffer of operand `index`, `double_buffered` (`size`
        bytes): the first of two in an even iteration, the second in an odd one.  They
        live while the loop runs (`AsyncFeeds.loop_of`), beside its rings: the group in
        flight reads one while the next iteration writes the other, across the exchanges
        between.  The links of a chain that share their buffers (`TURN_BY_DOT_ATTR`,
        an even number of them) take them dot by dot: link `j` the buffer `j mod 2`."""
        state = self.ctx.function_state(op)
        scope = self.feeds.loop_of.get(id(op))
        turn = turn_by_dot(op)
        b = LLBuilder(rewriter, InsertPoint.before(op))
        if turn is not None:
            place, links = turn
            assert links % 2 == 0, "an odd chain shares no buffers (`turn_chain`)"
            key = (id(state), scope, index, size)
            if key not in self.chain_turns:
                self.chain_turns[key] = allocate_persistent(
                    state, rewriter, 2 * size, scope, alignment
                )
            return b.add(self.chain_turns[key], b.const(place % 2 * size, i32))
        base = allocate_persistent(state, rewriter, 2 * size, scope, alignment)
        parity = self.feeds.iteration_parity(b, op)
        if parity is None:
            raise not_supported(
                op,
                "a wgmma group in flight with an operand that no ring read back under "
                "mbarriers computes",
            )
        return b.add(base, b.mul(parity, b.const(size, i32)))

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.DotOp, rewriter: PatternRewriter) -> None:
        if op.atom.info.engine == "fma":
            lower_fma_dot(op, rewriter, self.ctx, self.exchange)
            return
        if op.atom.info.engine == "tcgen05":
            lower_tcgen05_dot(op, rewriter, self.ctx, self.exchange, self.feeds)
            return
        place = self.feeds.placement_of(op) or self.placement(op)
        spec = place.spec
        m, n, k = place.mnk
        batch = place.batch
        a_vals = self.ctx.registers_of(op, op.a)
        b_vals = self.ctx.registers_of(op, op.b)
        acc_vals = self.ctx.registers_of(op, op.acc)
        a_layout = linear_layout(op, op.a.type)
        b_layout = linear_layout(op, op.b.type)
        acc_layout = linear_layout(op, op.acc.type)
        for layout in (a_layout, b_layout, acc_layout):
            check_exchangeable(op, layout)
        state = self.ctx.function_state(op)
        wm, wn = place.grid
        em, en = effective_warps((m, n), wm, wn)
        frag = place.fragment
        per_batch = mma_linear((m, n), wm, wn).num_registers
        # An accumulator (and result) already in the MMA layout stays in registers.
        acc_in_registers = acc_layout == frag
        result_in_registers = linear_layout(op, op.result.type) == frag
        if spec.a == "f16" and is_fp8(element_type(op.a.type)):
            # An `mma_*_via_f16` atom (no 8-bit float instruction takes the dot:
            # `dot_plan.float8_widening_reason`): f16 ones on the operands widened exactly.
            widen = LLBuilder(rewriter, InsertPoint.before(op))
            a_vals = mma.widened_to_f16(widen, a_vals, element_type(op.a.type), self.ctx.arch)
            b_vals = mma.widened_to_f16(widen, b_vals, element_type(op.b.type), self.ctx.arch)
            operand = ElementKind(16, False, f16)
        else:
            operand = element_kind(op, op.a.type)
        accumulator = element_kind(op, op.acc.type)
        a_batch, b_batch = place.batch_bytes
        a_pitch, b_pitch = place.pitches
        c_strides, c_size = place.accumulator
        operand_buffers = place.operand_buffers
        use_wgmma = operand_buffers is not None
        # Operands an asynchronous pipeline already put in shared memory (a ring
        # buffer's slot, `async_copy.py`) are read there; the others are written first.
        fed = [self.feeds.ring_address(op, i) for i in (0, 1)]
        # A in registers (attention's P): no buffer, no writes (`A_IN_REGISTERS_ATTR`).
        a_in_registers = use_wgmma and fed[0] is None and A_IN_REGISTERS_ATTR in op.attributes
        # Operands the loop does not change, written once before it (attention's Q).
        for i in marked_staged_once(op) if use_wgmma else []:
            if fed[i] is None and not (i == 0 and a_in_registers):
                fed[i] = stage_once(
                    state,
                    rewriter,
                    self.exchange,
                    (a_vals, b_vals)[i],
                    place.views[i],
                    batch * (a_batch, b_batch)[i],
                    operand,
                )
        # Operands written each iteration while the previous iteration's group still
        # reads its buffer: two buffers in turn (`double_buffered`).
        turns = self._double_buffered(op, use_wgmma, fed, a_in_registers)
        for i in turns:
            size = batch * (a_batch, b_batch)[i]
            fed[i] = self._buffer_in_turn(op, rewriter, i, size, place.alignment(i))
        # A in a buffer of its own (`A_OWN_BUFFER_ATTR`): written here as a transient
        # operand would be, but no transient use, so exchanges while the product is in
        # flight leave it alone; one a ring key (the loop's product and its copy after
        # the loop), in the scope of the rings of its B.
        own_a: SSAValue | None = None
        if (
            use_wgmma
            and fed[0] is None
            and not a_in_registers
            and A_OWN_BUFFER_ATTR in op.attributes
        ):
            key = (id(state), ring_key(op))
            if key not in self.own_a:
                ring = self.feeds.by_dot.get((ring_key(op), 1))
                scope = None if ring is None else ring.scope
                self.own_a[key] = allocate_persistent(
                    state, rewriter, batch * a_batch, scope, place.alignment(0)
                )
            own_a = self.own_a[key]
        alloc = self.exchange.allocator
        transient = [
            i
            for i, f in enumerate(fed)
            if f is None and not (i == 0 and (a_in_registers or own_a is not None))
        ]
        sizes = [batch * (a_batch, b_batch)[i] for i in transient]
        alignments = [place.alignment(i) for i in transient]
        if not (acc_in_registers and result_in_registers):
            sizes.append(c_size)
        buffers = iter(alloc.allocate(op, state, rewriter, sizes, alignments) if sizes else [])
        smem_a = fed[0] if fed[0] is not None else own_a
        if smem_a is None and not a_in_registers:
            smem_a = next(buffers)
        smem_b = fed[1] if fed[1] is not None else next(buffers)
        if smem_a is None:
            smem_a = smem_b  # (its descriptor is not used)
        smem_c = next(buffers, None)

        # The thread's addresses in the operand buffers: once, in the kernel's prologue,
        # for the arena's fixed buffers; per use for a ring's slot.
        at = self.builder(rewriter, op) if any(fed) else state.prologue_builder(rewriter)
        descriptors: tuple[SSAValue, SSAValue] | None = None
        base_a = base_b = smem_a
        if operand_buffers is not None:
            descriptors = wgmma.operand_descriptors(
                at, state, (smem_a, smem_b), operand_buffers, (wm, wn)
            )
        else:
            base_a, base_b = mma.ldmatrix_bases(
                at, state, spec, smem_a, smem_b, a_pitch, b_pitch, wm, em, en
            )

        b = LLBuilder(rewriter, InsertPoint.before(op))
        ex = self.exchange
        if turns:
            # Every warp has passed its `wgmma.wait_group` of the previous iteration, so
            # the group of the iteration before it, which read this turn's buffer, is
            # complete in every warpgroup.
            b.op(nvvm.Barrier0Op())
        wrote = False
        for i, (vals, (layout, strides, swizzle), smem, ring) in enumerate(
            zip((a_vals, b_vals), place.views, (smem_a, smem_b), fed, strict=True)
        ):
            if (ring is None or i in turns) and not (i == 0 and a_in_registers):
                ex.write(b, rewriter, state, vals, layout, strides, smem, operand, swizzle=swizzle)
                wrote = True
        if smem_c is not None and not acc_in_registers:
            ex.write(b, rewriter, state, acc_vals, acc_layout, c_strides, smem_c, accumulator)
            wrote = True
        if not self.feeds.pipelined(op):
            # (A pipeline's consumer_wait has ordered its stage before the dot.)
            if use_wgmma and wrote:
                # The writes above (generic proxy) must be visible to wgmma (async
                # proxy).  Ring slots need no fence of this thread's: `cp.async`'s bytes
                # none (`agents.LowerConsumer`), an edge tile's element stores the
                # fence of the thread that stored them (`async_copy._copy`).
                b.op(nvvm.FenceProxyOp())
            # Rings under mbarriers whose waits ordered every copy before this thread's
            # reads, nothing written above, and no group in flight whose slots this
            # iteration's barrier would free (with rings refilled after the wait, the
            # barrier after the product frees them): no CTA barrier (`async_copy.py`).
            if not (
                acc_in_registers
                and (not groups_in_flight(op) or refills_after_wait(op))
                and wgmma_pending(op) is None
                and self.feeds.ordered_by_mbarriers(op)
            ):
                b.op(nvvm.Barrier0Op())
        if acc_in_registers:
            c = list(acc_vals)
        else:
            assert smem_c is not None
            c = ex.read(b, rewriter, state, frag, c_strides, smem_c, accumulator)

        # f16: two halves per 32-bit accumulator register, {f0, f1} and {f2, f3}.
        word_type = i32 if spec.acc == "f16" else accumulator.register_type

        def pack(block: list[SSAValue]) -> list[SSAValue]:
            if spec.acc != "f16":
                return block
            return [b.pack_halves(block[i], block[i + 1]) for i in range(0, len(block), 2)]

        def unpack(words: list[SSAValue]) -> list[SSAValue]:
            if spec.acc != "f16":
                return words
            return [h for w in words for h in b.unpack_halves(w, accumulator.register_type)]

        # `wgmma` groups left in flight (`tileas-pipeline-dot-operands` chose it): both
        # operands in rings that keep the slots they read (or in buffers in turn,
        # `double_buffered`), the accumulator loop-carried
        # in registers as the instruction writes it, a word per element.
        in_flight = 0
        if (
            use_wgmma
            and all(f is not None for f in fed)
            and acc_in_registers
            and result_in_registers
            and word_type == accumulator.register_type
        ):
            in_flight = groups_in_flight(op)
        # A product of an attention loop rotated by `tileas-overlap-attention-dots`:
        # committed and left running, `wgmma.wait_group` of its pending count after it.
        pending = wgmma_pending(op)
        if pending is not None:
            if not (use_wgmma and acc_in_registers and result_in_registers):
                raise not_supported(
                    op, "a wgmma group left pending without its accumulator in registers"
                )
            in_flight = pending
        m_reps, n_reps, k_steps = m // (16 * em), n // (8 * en), k // spec.k_step
        # i8 K that is 16 past a multiple of 32: a last m16n8k16 step on 16 bytes.
        tail = int(spec.integer and k % spec.k_step != 0)
        if descriptors is not None and operand_buffers is not None:
            wgmma.wgmma_dot(
                b,
                spec,
                place.wgmma_n,
                c,
                descriptors,
                operand_buffers,
                (m, n),
                (wm, wn),
                word_type,
                (pack, unpack),
                in_flight,
                wgmma.register_a(b, a_vals, a_layout, spec.k_step, 16 * wm)
                if a_in_registers
                else None,
                in_place=pending is None,
                # A link of a chain of dots on one accumulator: the chain's last dot
                # commits them all as one group (`chained_dot`), unless the links
                # share their buffers in turn, each committing its own.
                commit=not (
                    in_flight
                    and pending is None
                    and chained_dot(op.result)
                    and turn_by_dot(op) is None
                ),
            )
        else:
            mma.mma_sync_dot(
                b,
                spec,
                c,
                (base_a, base_b),
                (a_batch, b_batch),
                (a_pitch, b_pitch),
                (batch, per_batch),
                (m_reps, n_reps, k_steps, tail),
                (em, en),
                word_type,
                (pack, unpack),
            )
        # Every warp is done reading the operand buffers (and the accumulator's)
        # before anything writes them again; with groups in flight, the ring keeps the
        # slots they read, and the next iteration's barrier frees the older ones, or,
        # where the ring has only the slots the loop reads (`refills_after_wait`), this
        # barrier after every warp's `wgmma.wait_group` frees the slot of the group it
        # retired, which the body's copies then refill.
        if not in_flight or refills_after_wait(op):
            b.op(nvvm.Barrier0Op())
        if result_in_registers:
            result = c
        else:
            assert smem_c is not None
            ex.write(b, rewriter, state, c, frag, c_strides, smem_c, accumulator)
            b.op(nvvm.Barrier0Op())
            result_layout = linear_layout(op, op.result.type)
            result = ex.read(b, rewriter, state, result_layout, c_strides, smem_c, accumulator)
            b.op(nvvm.Barrier0Op())
        rewriter.replace(op, [], [self.ctx.pack(rewriter, result, op.result.type)])
