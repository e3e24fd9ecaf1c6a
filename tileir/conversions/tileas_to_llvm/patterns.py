"""The patterns of `convert-tileas-to-llvm`, one per op family."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tileir.backend.ptx.memory_asm import Qualifiers, load_group, store_group
from tileir.conversions.cuda_tile_to_tileaa import HINTS_ATTR
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import (
    GLOBAL_PTR,
    LoweringContext,
    linear_layout,
    llvm_scalar_type,
)
from tileir.conversions.tileas_to_llvm.fp8 import is_fp8
from tileir.conversions.tileas_to_llvm.scalar import SCALAR_LOWERINGS
from tileir.diagnostics import error_at, not_supported
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import OptimizationHintsAttr
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.hints import OCCUPANCY
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import KERNEL_ATTR, MemScope, MemSemantic
from tileir.dialects.nv_tileas.layouts import WARP_SIZE, LinearLayout
from tileir.targets import hint_target, register_budget
from tileir.utils.bits import register_bits
from tileir.utils.numeric import numpy_dtype


class TilePattern(RewritePattern):
    def __init__(self, ctx: LoweringContext):
        self.ctx = ctx

    def builder(self, rewriter: PatternRewriter, op: Operation) -> LLBuilder:
        return LLBuilder(rewriter, InsertPoint.before(op))


# ---------------------------------------------------------------------------
# Kernels.
# ---------------------------------------------------------------------------


def occupancy_hint(fn: func.FuncOp, arch: str) -> int:
    """The CTAs per SM the kernel's `occupancy` hint asks for on `arch` (its
    `sm_NN` entry, else `default`), or 1."""
    hints = fn.attributes.get(HINTS_ATTR)
    if not isinstance(hints, OptimizationHintsAttr):
        return 1
    chosen = hints.for_target(hint_target(arch))
    value = chosen.data.get(OCCUPANCY) if chosen is not None else None
    return value.value.data if isinstance(value, IntegerAttr) else 1


def lower_kernel_signature(fn: func.FuncOp, rewriter: PatternRewriter, arch: str) -> llvm.FuncOp:
    """func.func @k(...) {nv_tileas.kernel} -> llvm.func @k(...) {nvvm.kernel}.

    The kernel's register budget is `nvvm.maxnreg` (PTX `.maxnreg`): the share of the
    register file that keeps `occupancy` CTAs resident (the hint, default 1), as
    tileiras's cubins record it (`EIATTR_MAXREG_COUNT` 168 for 384 threads).  Without
    it ptxas picks a budget by its own heuristics, and for some large kernels picks 32
    registers and spills tens of KiB (a 128x256 f16 GEMM on sm_80: 32 registers,
    13 KB of spill stores; with `.maxnreg 255`: 255 registers, 2.6 KB)."""
    body = rewriter.move_region_contents_to_new_regions(fn.body)
    block = body.block
    arg_types: list[Attribute] = []
    for arg in list(block.args):
        t = llvm_scalar_type(arg.type)
        arg_types.append(t)
        if t != arg.type:
            new_arg = rewriter.insert_block_argument(block, arg.index, t)
            cast = LoweringContext.pack(rewriter, [new_arg], arg.type)
            cast_op = cast.owner
            assert isinstance(cast_op, Operation)
            cast_op.detach()
            first = block.first_op
            if first is None:
                block.add_op(cast_op)
            else:
                block.insert_op_before(cast_op, first)
            arg.replace_all_uses_with(cast)
            rewriter.erase_block_argument(arg)
    warps = fn.attributes.get("nv_tileas.num_warps")
    num_warps = warps.value.data if warps is not None else 4  # pyright: ignore[reportAttributeAccessIssue]
    ll = llvm.FuncOp(
        fn.sym_name.data,
        llvm.LLVMFunctionType(arg_types, llvm.LLVMVoidType()),
        linkage=llvm.LinkageAttr("external"),
        body=body,
    )
    ll.attributes["nvvm.kernel"] = UnitAttr()
    threads = num_warps * WARP_SIZE
    ll.attributes["nvvm.reqntid"] = DenseArrayBase.from_list(i32, [threads, 1, 1])
    ll.attributes["nvvm.maxnreg"] = IntegerAttr(
        register_budget(threads, occupancy_hint(fn, arch)), i32
    )
    ll.attributes["nv_tileas.num_warps"] = fn.attributes.get(
        "nv_tileas.num_warps"
    ) or DenseArrayBase.from_list(i32, [4])
    ll.location = fn.location
    _ = (ArrayAttr, DictionaryAttr, StringAttr)
    return ll


class LowerKernel(RewritePattern):
    def __init__(self, arch: str):
        self.arch = arch

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        if KERNEL_ATTR not in op.attributes:
            raise error_at(op, "only kernels (functions from cuda_tile entries) can be lowered")
        rewriter.replace(op, lower_kernel_signature(op, rewriter, self.arch))


class LowerReturn(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        if op.arguments:
            raise error_at(op, "kernels return nothing")
        rewriter.replace(op, llvm.ReturnOp())


# ---------------------------------------------------------------------------
# Elementwise and scalar ops.
# ---------------------------------------------------------------------------


class LowerElementwise(TilePattern):
    """Each register of the result is the scalar op applied to the same registers of
    the operands (operands and result share one layout)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.ElementwiseOp, rewriter: PatternRewriter) -> None:
        lowering = SCALAR_LOWERINGS.get(type(op))
        if lowering is None:
            raise not_supported(op, "no code generation for this op")
        b = self.builder(rewriter, op)
        operand_regs = [self.ctx.registers_of(op, v) for v in op.args]
        n = max(len(r) for r in operand_regs)
        results = []
        # Registers that hold the same operand values (a broadcast operand, a splat)
        # share one result, so that equal values stay recognizably equal (a uniform
        # mask guards a whole vector access, LowerTiledLoad).
        computed: dict[tuple[SSAValue, ...], SSAValue] = {}
        for i in range(n):
            args = tuple(regs[i] if len(regs) > 1 else regs[0] for regs in operand_regs)
            if args not in computed:
                computed[args] = lowering(b, op, args)
            results.append(computed[args])
        rewriter.replace(op, [], [self.ctx.result_value(rewriter, results, op.result.type)])


class LowerConstant(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.ConstantOp, rewriter: PatternRewriter) -> None:
        data = op.values().reshape(-1)
        el = element_type(op.result.type)
        if isinstance(el, PointerType):
            raise not_supported(op, "pointer constants")
        if not bool((data == data[0]).all()) and data.dtype.kind != "f":
            raise not_supported(op, "non-splat dense constants")
        if data.dtype.kind == "f" and not (
            bool((data == data[0]).all()) or bool(np_isnan_all(data))
        ):
            raise not_supported(op, "non-splat dense constants")
        b = self.builder(rewriter, op)
        value = data[0].item() if hasattr(data[0], "item") else data[0]
        if is_fp8(el):  # held as its bits in an i8 register
            scalar = b.const(int(data[:1].view("int8")[0]), i8)
        elif isinstance(el, IntegerType):
            scalar = b.const(int(value), el)
        else:
            scalar = b.const(float(value), el)
        t = op.result.type
        count = linear_layout(op, t).num_registers if isinstance(t, TensorType) else 1
        rewriter.replace(op, [], [self.ctx.result_value(rewriter, [scalar] * count, t)])


def np_isnan_all(data: object) -> bool:
    import numpy as np

    return bool(np.isnan(np.asarray(data, dtype=np.float64)).all())


class LowerIota(TilePattern):
    """Register r holds coordinate R(r) XOR T(lane, warp) along the only dimension."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.IotaOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        layout = linear_layout(op, t)
        state = self.ctx.function_state(op)
        base = state.thread_coord(rewriter, layout, 0)
        b = self.builder(rewriter, op)
        el = element_type(t)
        assert isinstance(el, IntegerType)
        values = []
        for r in range(layout.num_registers):
            offset = layout.register_coord(r)[0]
            v = b.xor(base, b.const(offset, i32)) if offset else base
            values.append(b.int_cast(v, el, signed=False) if el != i32 else v)
        rewriter.replace(op, [], [self.ctx.pack(rewriter, values, t)])


class LowerGridQuery(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: ct.GetTileBlockIdOp | ct.GetNumTileBlocksOp, rewriter: PatternRewriter
    ) -> None:
        table = nvvm.CTAID if isinstance(op, ct.GetTileBlockIdOp) else nvvm.NCTAID
        b = self.builder(rewriter, op)
        values = [b.v(table[axis]()) for axis in "xyz"]
        rewriter.replace(op, [], values)


class LowerAssume(TilePattern):
    """`nv_tileas.assume`: the facts were used by the analyses; the value passes through."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.AssumeOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, [], [op.value])


# ---------------------------------------------------------------------------
# Shape ops: registers are reused, never moved between threads.
# ---------------------------------------------------------------------------


def register_map(op: Operation, src: LinearLayout, res: LinearLayout, project) -> list[int]:
    """For each result register, the source register holding the same element, where
    `project` maps result coordinates to source coordinates.  The lane and warp parts
    of the two layouts must agree under `project` (same thread holds it)."""
    if (
        tuple(project(b) for b in res.lanes) != src.lanes
        or tuple(project(b) for b in res.warps) != src.warps
    ):
        raise error_at(
            op, "source and result layouts distribute threads differently; insert a convert_layout"
        )
    where: dict[tuple[int, ...], int] = {}
    for s in range(src.num_registers):
        where.setdefault(src.register_coord(s), s)
    out = []
    for r in range(res.num_registers):
        key = project(res.register_coord(r))
        if key not in where:
            raise error_at(op, "result register has no source register in this thread")
        out.append(where[key])
    return out


class LowerSplat(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.SplatOp, rewriter: PatternRewriter) -> None:
        (scalar,) = self.ctx.registers_of(op, op.src)
        n = linear_layout(op, op.result.type).num_registers
        rewriter.replace(op, [], [self.ctx.pack(rewriter, [scalar] * n, op.result.type)])


class LowerBroadcast(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.BroadcastOp, rewriter: PatternRewriter) -> None:
        src_shape = shape_of(op.src.type)
        src = linear_layout(op, op.src.type)
        res = linear_layout(op, op.result.type)

        def project(c: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(0 if s == 1 else x for x, s in zip(c, src_shape, strict=True))

        mapping = register_map(op, src, res, project)
        regs = self.ctx.registers_of(op, op.src)
        rewriter.replace(
            op, [], [self.ctx.pack(rewriter, [regs[m] for m in mapping], op.result.type)]
        )


class LowerExpandDims(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.ExpandDimsOp, rewriter: PatternRewriter) -> None:
        axis = op.axis.value.data
        if not shape_of(op.src.type):
            (scalar,) = self.ctx.registers_of(op, op.src)
            n = linear_layout(op, op.result.type).num_registers
            rewriter.replace(op, [], [self.ctx.pack(rewriter, [scalar] * n, op.result.type)])
            return
        src = linear_layout(op, op.src.type)
        res = linear_layout(op, op.result.type)

        def project(c: tuple[int, ...]) -> tuple[int, ...]:
            return c[:axis] + c[axis + 1 :]

        mapping = register_map(op, src, res, project)
        regs = self.ctx.registers_of(op, op.src)
        rewriter.replace(
            op, [], [self.ctx.pack(rewriter, [regs[m] for m in mapping], op.result.type)]
        )


class LowerAddPtr(TilePattern):
    """`nv_tileas.addptr`: one `getelementptr` of the pointee type per register."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.AddPtrOp, rewriter: PatternRewriter) -> None:
        ptrs = self.ctx.registers_of(op, op.ptr)
        offsets = self.ctx.registers_of(op, op.offset)
        el = element_type(op.ptr.type)
        assert isinstance(el, PointerType)
        b = self.builder(rewriter, op)
        n = max(len(ptrs), len(offsets))
        values = [
            b.gep(
                ptrs[i if len(ptrs) > 1 else 0], offsets[i if len(offsets) > 1 else 0], el.pointee
            )
            for i in range(n)
        ]
        rewriter.replace(op, [], [self.ctx.result_value(rewriter, values, op.results[0].type)])


# ---------------------------------------------------------------------------
# Memory.
# ---------------------------------------------------------------------------

PTX_SCOPE = {
    MemScope.TL_BLK: "cta",
    MemScope.CLUSTER: "cluster",
    MemScope.GPU: "gpu",
    MemScope.SYS: "sys",
}


def qualifiers(op: tas.TiledMemoryOp) -> Qualifiers:
    sem = op.semantic()
    if sem is MemSemantic.WEAK:
        return Qualifiers()
    scope = op.properties.get("mem_scope")
    ptx_scope = PTX_SCOPE[scope.data] if scope is not None else "gpu"  # pyright: ignore[reportAttributeAccessIssue]
    name = {MemSemantic.ACQUIRE_RELEASE: "acq_rel"}.get(sem, sem.value)
    return Qualifiers(name, ptx_scope)


def element_bits(t: Attribute) -> int:
    return register_bits(element_type(t))


def vector_groups(
    layout: LinearLayout, atom_bits: int, bits: int, vector_ok: bool
) -> tuple[int, list[int]]:
    """(elements per access, first register of each distinct group)."""
    vec = max(1, atom_bits // bits) if vector_ok else 1
    first = layout.registers[0] if layout.registers else None
    if first is not None and sum(1 for x in first if x) == 1:
        dim = next(i for i, x in enumerate(first) if x)
        vec = min(vec, layout.contiguous_registers(dim))
    else:
        vec = 1
    # Registers that only repeat another register (zero bases) are not accessed twice.
    distinct = [r for r in range(0, layout.num_registers, vec) if _is_representative(layout, r)]
    return vec, distinct


def _is_representative(layout: LinearLayout, r: int) -> bool:
    """False for registers that only repeat another (a set bit along a zero basis)."""
    return not any(r >> i & 1 and not any(basis) for i, basis in enumerate(layout.registers))


def representative(layout: LinearLayout, r: int) -> int:
    for i, basis in enumerate(layout.registers):
        if r >> i & 1 and not any(basis):
            r &= ~(1 << i)
    return r


def padding_bits(op: tas.TiledLoadOp) -> int:
    pad = op.properties.get("padding_value")
    if pad is None:
        return 0
    import numpy as np
    from xdsl.dialects.builtin import FloatAttr, IntegerAttr

    el = element_type(op.result.type)
    if isinstance(pad, FloatAttr):
        raw = np.asarray(pad.value.data).astype(numpy_dtype(el)).tobytes()
        return int.from_bytes(raw, "little")
    if isinstance(pad, IntegerAttr):
        return pad.value.data
    return 0


def one_predicate(preds: Sequence[SSAValue]) -> bool:
    """Whether a group's element predicates are one value (then the group moves all or
    nothing with one guarded vector access, `memory_asm`)."""
    return bool(preds) and all(p is preds[0] for p in preds)


class LowerTiledLoad(TilePattern):
    """Groups of contiguous registers move with one vector instruction of the atom's
    width; masked groups fall back to per-element predicated loads at the edges."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.TiledLoadOp, rewriter: PatternRewriter) -> None:
        view = op.view.owner
        if not isinstance(view, tas.ViewOp):
            raise not_supported(op, "tiled loads from views other than global pointer tiles")
        t = op.result.type
        el = element_type(t)
        is_bool = isinstance(el, IntegerType) and el.width.data == 1
        storage = i8 if is_bool else llvm_scalar_type(el)
        bits = element_bits(t)
        ptrs = self.ctx.registers_of(op, view.src)
        masks = self.ctx.registers_of(op, op.mask) if op.mask is not None else None
        quals = qualifiers(op)
        layout = linear_layout(op, t) if shape_of(t) else None
        if layout is not None:
            vec, groups = vector_groups(layout, op.atom.info.bits, bits, quals.semantic == "weak")
        else:
            # A scalar: every thread loads it (every thread holds the value).
            vec, groups = 1, [0]
        b = self.builder(rewriter, op)
        values: dict[int, SSAValue] = {}
        pad = padding_bits(op)
        for g in groups:
            regs = list(range(g, g + vec))
            masked = masks is not None
            preds = [masks[r] for r in regs] if masks is not None else []
            uniform = one_predicate(preds)
            if uniform:
                preds = preds[:1]
            addresses = [ptrs[r] for r in regs] if masked and not uniform else [ptrs[g]]
            group = load_group(storage, bits, vec, addresses, preds, pad, quals)
            outs = b.asm(group, side_effects=quals.semantic != "weak")
            for r, v in zip(regs, outs, strict=True):
                values[r] = b.icmp("ne", v, b.const(0, i8)) if is_bool else v
        if layout is None:
            result = [values[0]]
        else:
            result = [values[representative(layout, r)] for r in range(layout.num_registers)]
        replacement: list[SSAValue] = [self.ctx.pack(rewriter, result, t)]
        if op.result_token is not None:
            replacement.append(_token_placeholder(rewriter, op))
        rewriter.replace(op, [], replacement)


class LowerTiledStore(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.TiledStoreOp, rewriter: PatternRewriter) -> None:
        view = op.view.owner
        if not isinstance(view, tas.ViewOp):
            raise not_supported(op, "tiled stores to views other than global pointer tiles")
        t = op.value.type
        el = element_type(t)
        is_bool = isinstance(el, IntegerType) and el.width.data == 1
        bits = element_bits(t)
        ptrs = self.ctx.registers_of(op, view.src)
        values = self.ctx.registers_of(op, op.value)
        masks = self.ctx.registers_of(op, op.mask) if op.mask is not None else None
        quals = qualifiers(op)
        if shape_of(t):
            layout = linear_layout(op, t)
            vec, groups = vector_groups(layout, op.atom.info.bits, bits, quals.semantic == "weak")
            owner = self.ctx.function_state(op).owner_predicate(rewriter, layout)
        else:
            # A scalar: every thread holds the same value; one thread stores it.
            vec, groups = 1, [0]
            owner = self.ctx.function_state(op).owner_predicate_all(rewriter)
        b = self.builder(rewriter, op)
        for g in groups:
            regs = list(range(g, g + vec))
            masked = masks is not None or owner is not None
            preds = [masks[r] for r in regs] if masks is not None else []
            uniform = not preds or one_predicate(preds)
            if preds and uniform:
                preds = preds[:1]
            if owner is not None:
                preds = [b.and_(p, owner) for p in preds] if preds else [owner]
            addresses = [ptrs[r] for r in regs] if masked and not uniform else [ptrs[g]]
            data = [values[r] for r in regs]
            if is_bool:
                data = [b.zext(v, i8) for v in data]
            b.asm(store_group(bits, data, addresses, preds, quals))
        replacement = [_token_placeholder(rewriter, op)] if op.result_token is not None else []
        rewriter.replace(op, [], replacement)


def _token_placeholder(rewriter: PatternRewriter, op: Operation) -> SSAValue:
    """Tokens have no runtime value: ordering was resolved into barriers."""
    token = aa.CreateMemTokenOp()
    rewriter.insert(token, InsertPoint.before(op))
    return token.result


class EraseTokens(RewritePattern):
    """Memory tokens carry no data; once every user is lowered they disappear."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: aa.CreateMemTokenOp | aa.JoinMemTokenOp, rewriter: PatternRewriter
    ) -> None:
        if not op.result.uses:
            rewriter.erase(op)


class EraseDead(RewritePattern):
    """Views, index constants and casts left without users."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: tas.ViewOp | arith.ConstantOp | arith.IndexCastOp | arith.MuliOp,
        rewriter: PatternRewriter,
    ) -> None:
        if not any(r.uses for r in op.results):
            rewriter.erase(op)


_ = (GLOBAL_PTR, i64)
