"""`mmaf_scaled` (MX block scaling) as bf16 `mmaf`s.

`mmaf_scaled %a, %b, %acc, %sa, %sb` is `acc + (a * sa') @ (b * sb')` where `sa'`
repeats each scale of `sa` over its group of K columns of `a` (and `sb'` over K rows
of `b`), as `tileir.interpreter` computes it.  Before the lift to nv_tileaa it is
rewritten, one K group `g` (K/G wide) at a time, into cuda_tile ops every later
stage already compiles:

    %ag  = extract %a[0, g]   -> [.., M, K/G]      %sag = extract %sa[0, g] -> [.., M, 1]
    %agf = ftof %ag -> f32                         %saf = ftof %sag -> f32  (2^(e-127))
    %as  = ftof (mulf %agf, (broadcast %saf -> [.., M, K/G])) -> bf16  (likewise for b)
    %acc = mmaf %as, %bs, %acc                     -> nv_tileaa.dot, bf16 x bf16 -> f32

The dots are bf16 ones, which every target runs on tensor cores (`mma.sync`, or
`wgmma` on sm_90a), where f32 operands would run on FMAs (NVIDIA's block-scaled
sample on sm_100a was 65,536 `fma.rn.f32` per thread and took minutes to assemble).

bf16 holds the dequantized values exactly: an f8E4M3FN/f8E5M2 value has at most 4
significant bits, bf16 has 8 and f32's exponent range, so a value times a power of
two 2^-127..2^127 is a bf16 value unless it overflows (as in f32) or falls below
2^-126 with bits under 2^-133 (bf16's smallest subnormal; f32 would keep them down to
2^-149) — only with scales near 2^-127.  Each product of two such values is exact in
the tensor cores' f32 accumulation, and the chained dots add the K groups in order;
the result equals the interpreter's f64 sum up to the f32 roundings of the partial
sums (the tensor cores add in an unspecified order within a step, as for any dot).

f4E2M1FN operands (unpacked from bytes: `reinterpret`, `tileas_to_llvm/slices.py`)
take the same path.  Their values (0, +-0.5 .. +-6) have at most 2 significant bits:
times an f8E8M0FNU scale they are exact in bf16 under the same argument; times an
f8E4M3FN scale (at most 4 significant bits, magnitudes 2^-9 .. 448, or NaN) the
product has at most 6 significant bits and lies in 2^-10 .. 2688, a normal bf16
value, so it is exact too (NaN scales give NaN, as in the interpreter).  sm_100a's
block-scaled `tcgen05.mma` (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`, scales
copied to tensor memory by `tcgen05.cp`) does better, and on sm_100a / sm_103a an
`mmaf_scaled` that one takes (`tcgen05_plan.block_scaled_form`: 8-bit floats with one
f8E8M0FNU factor per 32 elements of K, or e2m1 with one per 32 or 16, M a multiple of
128, ...) is kept whole here and lifted to an `nv_tileaa.dot` with scales, which
`convert-tileas-to-llvm` runs on `tcgen05.mma ... .kind::mxf8f6f4.block_scale`, or
`.kind::mxf4` / `.kind::mxf4nvf4` (`tileas_to_llvm/tcgen05.py`).  e2m1 operands must come
unpacked from bytes (`packed_operands`): the dot takes those bytes, two elements each, as
the MMA reads them (`PACKED_F4_ATTR`), B's reloaded K-major (`_k_major_load`).  The
others take the path above, the reason on their last dot (`BLOCK_SCALED_ATTR`, the
`BlockScaledNotNative` remark).

A plain `mmaf` on f8E4M3FN/f8E5M2 operands is not rewritten: it becomes an
`nv_tileaa.dot` on 8-bit floats, which sm_90a computes with `wgmma`, sm_89 on with
8-bit float `mma.sync`, and sm_80 with f16 `mma.sync` on the operands widened
exactly (`tileas_to_llvm/mma.py`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    IntAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
    bf16,
    f32,
    i8,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.diagnostics import not_supported
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import Signedness, SignednessAttr
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import PartitionViewType, TileType
from tileir.dialects.nv_tileaa import ops as aa
from tileir.targets import ARCHS
from tileir.transforms.tileas.tcgen05_plan import BlockScaledForm, block_scaled_form

#: On a tcgen05 target, the last `mmaf` of a decomposed `mmaf_scaled` carries why it is
#: not one block-scaled `tcgen05.mma` (a string; carried to its `nv_tileas.dot`).
BLOCK_SCALED_ATTR = "tileir.block_scaled"
#: `wgmma`'s names of the element types `block_scaled_form` takes.
_KINDS = {
    Float8E4M3FNType: "e4m3",
    Float8E5M2Type: "e5m2",
    Float4E2M1FNType: "e2m1",
    Float8E8M0FNUType: "e8m0",
}


def _insert(ops: list[Operation], op: Operation) -> SSAValue:
    ops.append(op)
    return op.results[0]


def _index(ops: list[Operation], value: int) -> SSAValue:
    return _insert(ops, ct.ConstantOp.splat(value, TileType([], i32)))


def _block(ops: list[Operation], x: SSAValue, axis: int, g: int, width: int) -> SSAValue:
    """Block `g` (`width` wide) of `x` along `axis`."""
    shape = list(shape_of(x.type))
    shape[axis] = width
    indices = [_index(ops, g if d == axis else 0) for d in range(len(shape))]
    t = x.type
    assert isinstance(t, TileType)
    return _insert(
        ops,
        ct.ExtractOp.create(operands=[x, *indices], result_types=[TileType(shape, t.element_type)]),
    )


def _converted(ops: list[Operation], x: SSAValue, to: Attribute) -> SSAValue:
    return _insert(
        ops,
        ct.FToFOp.create(
            operands=[x],
            result_types=[TileType(shape_of(x.type), to)],
            properties=ct.FToFOp.default_properties(),
        ),
    )


def _scaled_block(
    ops: list[Operation], x: SSAValue, scale: SSAValue, axis: int, g: int, width: int
) -> SSAValue:
    """K block `g` of `x` times its scale, computed in f32 and held in bf16 (exactly,
    see the module docstring)."""
    xg = _converted(ops, _block(ops, x, axis, g, width), f32)
    sg = _converted(ops, _block(ops, scale, axis, g, 1), f32)
    shape = list(shape_of(xg.type))
    if width > 1:
        sg = _insert(ops, ct.BroadcastOp.create(operands=[sg], result_types=[TileType(shape, f32)]))
    scaled = _insert(
        ops,
        ct.MulFOp.create(
            operands=[xg, sg],
            result_types=[TileType(shape, f32)],
            properties=ct.MulFOp.default_properties(),
        ),
    )
    return _converted(ops, scaled, bf16)


def _reshaped(v: SSAValue) -> SSAValue | None:
    """The source of a `reshape` (before the lift) or `nv_tileaa.view` (after)."""
    owner = v.owner
    if isinstance(owner, ct.ReshapeOp):
        return owner.args[0]
    if isinstance(owner, aa.ViewOp):
        return owner.src
    return None


def _transposed(v: SSAValue) -> SSAValue | None:
    """The source of a 2-D transpose (`permute [1, 0]`)."""
    owner = v.owner
    if isinstance(owner, ct.PermuteOp) and owner.perm == (1, 0):
        return owner.source
    return None


def unpacked_from(v: SSAValue) -> SSAValue | None:
    """The `[R, C/2]` byte tile the `[R, C]` f4E2M1FN tile `v` was unpacked from, row by
    row (`reshape`, `unpack`, `reshape`: cuTile's `unpack_from_bytes`), or None.  Byte
    `j` of a row holds its elements `2j` (low nibble) and `2j + 1`: the order in which
    the block-scaled MMA reads packed e2m1 (PTX ISA 9.7.16.10.7)."""
    flat = _reshaped(v)
    unpack = flat.owner if flat is not None else None
    if not isinstance(unpack, ct.UnpackOp):
        return None
    source = _reshaped(unpack.source)
    shape = shape_of(v.type)
    if source is None or len(shape) != 2:
        return None
    if list(shape_of(source.type)) != [shape[0], shape[1] // 2] or element_type(source.type) != i8:
        return None
    return source


def packed_operands(op: ct.MmaFScaledOp | aa.DotOp) -> tuple[SSAValue, SSAValue] | str:
    """A's `[M, K/2]` bytes and B's `[N, K/2]` bytes (B's rows are its columns: K
    contiguous, as `kind::mxf4*` takes both operands) of an e2m1 x e2m1 block-scaled
    dot, or why its operands are not read packed."""
    lhs, rhs = (op.lhs, op.rhs)
    a = unpacked_from(lhs)
    if a is None:
        return "A is not unpacked from a byte tile of its rows (cuTile unpack_from_bytes)"
    b_rows = _transposed(rhs)
    b = unpacked_from(b_rows) if b_rows is not None else None
    if b is None:
        return (
            "B is not the transpose of a tile unpacked from bytes of its columns (kind::mxf4 "
            "reads B K-major, two elements a byte)"
        )
    return a, b


def _plain_load(b: SSAValue) -> ct.LoadViewTkoOp | None:
    """The load of `b` (B's `[N, K/2]` bytes) where it is one through a 2-D partition view
    without a dim_map that nothing else reads; else None."""
    load = b.owner
    if not isinstance(load, ct.LoadViewTkoOp) or b is not load.tile or not b.has_one_use():
        return None
    view = load.view.type
    maker = load.view.owner
    if not isinstance(view, PartitionViewType) or view.dim_map_values != (0, 1):
        return None
    return load if isinstance(maker, ct.MakePartitionViewOp) else None


def _k_major_load(load: ct.LoadViewTkoOp) -> SSAValue:
    """B's `[N, K/2]` bytes (`load`, `_plain_load`) loaded K-major instead, `[K/2, N]`
    through a transposed partition view (as cuTile's `order=(1, 0)` loads), and
    transposed back for the unpack that nothing will read: the tile the ring pipeline
    and the MMA read."""
    view, maker = load.view.type, load.view.owner
    assert isinstance(view, PartitionViewType) and isinstance(maker, ct.MakePartitionViewOp)
    transposed = PartitionViewType.new(
        (
            ArrayAttr(list(reversed(view.tile_shape.data))),
            view.tensor_view,
            ArrayAttr([IntAttr(1), IntAttr(0)]),
            view.padding_value,
        )
    )
    new_view = ct.MakePartitionViewOp.create(
        operands=list(maker.operands), result_types=[transposed], attributes=dict(maker.attributes)
    )
    Rewriter.insert_op(new_view, InsertPoint.after(maker))
    b = load.tile
    rows, cols = shape_of(b.type)
    index = list(load.index)
    token = [load.token] if load.token is not None else []
    new_load = ct.LoadViewTkoOp.create(
        operands=[new_view.results[0], index[1], index[0], *token],
        result_types=[TileType([cols, rows], i8), load.result_token.type],
        properties=dict(load.properties),
        attributes=dict(load.attributes),
    )
    back = ct.PermuteOp.create(
        operands=[new_load.tile],
        result_types=[b.type],
        properties={"permutation": DenseArrayBase.from_list(i32, [1, 0])},
    )
    Rewriter.insert_op([new_load, back], InsertPoint.before(load))
    load.result_token.replace_all_uses_with(new_load.result_token)
    b.replace_all_uses_with(back.results[0])
    load.detach()
    load.erase()
    return new_load.tile


def packed_dot_operands(op: ct.MmaFScaledOp) -> tuple[SSAValue, SSAValue]:
    """The lift's operands of the dot of `op` (an `mmaf_scaled` marked `PACKED_F4_ATTR`,
    its operands on carriers): A's `[M, K/2]` bytes and B's `[K/2, N]` bytes, K-major (the
    load `_k_major_load` made)."""
    packed = packed_operands(op)
    b = _transposed(packed[1]) if not isinstance(packed, str) else None
    if isinstance(packed, str) or b is None:
        raise not_supported(op, "packed e2m1 operands that decompose-scaled-dots did not mark")
    return packed[0], b


def native_form(
    op: ct.MmaFScaledOp, arch: str, num_warps: int, n_parts: int = 1
) -> BlockScaledForm | str:
    """The block-scaled `tcgen05.mma` that computes `op` (or each of its `n_parts`
    slices along N, as `split-dot-accumulators` would cut it) on `arch` with
    `num_warps` warps, or why none does."""
    kinds = [_KINDS.get(type(element_type(v.type)), str(element_type(v.type))) for v in
             (op.lhs, op.rhs, op.lhs_scale)]  # fmt: skip
    a_shape, b_shape = shape_of(op.lhs.type), shape_of(op.rhs.type)
    m, k = a_shape[-2:]
    groups = shape_of(op.lhs_scale.type)[-1]
    mnk = (m, b_shape[-1] // n_parts, k)
    form = block_scaled_form(
        arch, kinds[0], kinds[1], kinds[2], k // groups, mnk, len(a_shape), num_warps
    )
    if isinstance(form, BlockScaledForm) and form.packed:
        packed = packed_operands(op)
        if isinstance(packed, str):
            return f"e2m1 x e2m1 operands: {packed}"
        if _plain_load(packed[1]) is None:
            return (
                "e2m1 x e2m1 operands: B's bytes are not one load through a 2-D partition "
                "view that only the unpack reads (tileir reloads them K-major)"
            )
    return form


def _tile(ops: list[Operation], cls: type[Operation], operands: list[SSAValue], t: Attribute,
          properties: dict[str, Attribute] | None = None) -> SSAValue:  # fmt: skip
    return _insert(
        ops, cls.create(operands=operands, result_types=[t], properties=properties or {})
    )


def _fold_scale_signs(op: ct.MmaFScaledOp, a: SSAValue, b: SSAValue) -> None:
    """f8E4M3FN scales as the UE4M3 factors `kind::mxf4nvf4` reads, which have no sign:
    each factor's sign goes into the e2m1 elements it scales (their sign bits, 0x88 of
    each byte of the group flipped), and `op` takes the magnitudes (bit 7 cleared):
    `(a * s) = (a * sign(s)) * |s|`, exactly.  `a` (A's `[M, K/2]` bytes) and `b` (B's
    `[K/2, N]`, K-major) are flipped and unpacked again for `op`."""
    ops: list[Operation] = []
    for data, scale, k_dim in ((a, op.lhs_scale, 1), (b, op.rhs_scale, 0)):
        shape = list(shape_of(scale.type))
        bytes_t = TileType(shape, i8)
        bits = _tile(ops, ct.BitcastOp, [scale], bytes_t)
        seven = _insert(ops, ct.ConstantOp.splat(7, bytes_t))
        sign = _tile(ops, ct.ShRIOp, [bits, seven], bytes_t,
                     {"signedness": SignednessAttr(Signedness.SIGNED)})  # fmt: skip
        flip = _insert(ops, ct.ConstantOp.splat(-0x78, bytes_t))  # 0x88
        mask = _tile(ops, ct.AndIOp, [sign, flip], bytes_t)
        # Each factor over the 8 bytes (16 elements) of its group along K.
        wide = list(shape)
        wide.insert(k_dim + 1, 1)
        mask = _tile(ops, ct.ReshapeOp, [mask], TileType(wide, i8))
        wide[k_dim + 1] = 8
        mask = _tile(ops, ct.BroadcastOp, [mask], TileType(wide, i8))
        mask = _tile(ops, ct.ReshapeOp, [mask], data.type)
        flipped = _tile(ops, ct.XOrIOp, [data, mask], data.type)
        magnitude = _insert(ops, ct.ConstantOp.splat(0x7F, bytes_t))
        magnitude = _tile(ops, ct.AndIOp, [bits, magnitude], bytes_t)
        magnitude = _tile(ops, ct.BitcastOp, [magnitude], scale.type)
        # The operand unpacked again from the flipped bytes (`packed_operands`' form;
        # the old unpacks die with their last reader).
        rows = flipped if k_dim == 1 else _transpose(ops, flipped)
        r, c = shape_of(rows.type)
        f4 = element_type(op.lhs.type)
        flat = _tile(ops, ct.ReshapeOp, [rows], TileType([r * c], i8))
        flat = _tile(ops, ct.UnpackOp, [flat], TileType([2 * r * c], f4))
        operand = _tile(ops, ct.ReshapeOp, [flat], TileType([r, 2 * c], f4))
        operand = operand if k_dim == 1 else _transpose(ops, operand)
        Rewriter.insert_op(ops, InsertPoint.before(op))
        ops = []
        op.operands[1 - k_dim] = operand
        op.operands[3 + (1 - k_dim)] = magnitude


def _transpose(ops: list[Operation], x: SSAValue) -> SSAValue:
    t = x.type
    assert isinstance(t, TileType)
    r, c = shape_of(t)
    perm: dict[str, Attribute] = {"permutation": DenseArrayBase.from_list(i32, [1, 0])}
    return _tile(ops, ct.PermuteOp, [x], TileType([c, r], t.element_type), perm)


def _pack_operands(op: ct.MmaFScaledOp) -> None:
    """Mark `op` for the lift, which hands its dot A's and B's bytes (`PACKED_F4_ATTR`),
    B's loaded K-major (`_k_major_load`), the signs of f8E4M3FN scales folded into them
    (`_fold_scale_signs`)."""
    packed = packed_operands(op)
    assert not isinstance(packed, str)  # native_form checked
    load = _plain_load(packed[1])
    assert load is not None
    b = _k_major_load(load)
    if isinstance(element_type(op.lhs_scale.type), Float8E4M3FNType):
        _fold_scale_signs(op, packed[0], b)
    op.attributes[aa.PACKED_F4_ATTR] = UnitAttr()


def decompose_scaled_mma(module: ModuleOp, arch: str = "", num_warps: int = 4) -> None:
    """Rewrite every `mmaf_scaled` in `module` as described in the module docstring,
    but those a block-scaled `tcgen05.mma` of `arch` takes (none without an `arch`)."""
    target = ARCHS.get(arch)
    for op in list(module.walk()):
        if not isinstance(op, ct.MmaFScaledOp):
            continue
        why: str | None = None
        if target is not None and target.tcgen05:
            form = native_form(op, arch, num_warps)
            if isinstance(form, BlockScaledForm):
                if form.packed:
                    _pack_operands(op)
                continue
            why = form
        for operand in (op.lhs, op.rhs):
            el = element_type(operand.type)
            if not isinstance(el, Float8E4M3FNType | Float8E5M2Type | Float4E2M1FNType):
                raise not_supported(
                    op,
                    f"mmaf_scaled on {el} operands",
                    instead="use float8_e4m3fn, float8_e5m2 or float4_e2m1fn operands",
                )
        ops: list[Operation] = []
        rank = len(shape_of(op.lhs.type))
        k = shape_of(op.lhs.type)[-1]
        groups = shape_of(op.lhs_scale.type)[-1]
        width = k // groups
        acc: SSAValue = op.acc
        for g in range(groups):
            a = _scaled_block(ops, op.lhs, op.lhs_scale, rank - 1, g, width)
            b = _scaled_block(ops, op.rhs, op.rhs_scale, rank - 2, g, width)
            # The last dot, whose result is the accumulator's, keeps the discardable
            # attributes (split-dot-accumulators' decision).
            kept = dict(op.attributes) if g == groups - 1 else {}
            if g == groups - 1 and why is not None:
                kept[BLOCK_SCALED_ATTR] = StringAttr(why)
            acc = _insert(
                ops,
                ct.MmaFOp.create(
                    operands=[a, b, acc], result_types=[op.result.type], attributes=kept
                ),
            )
        Rewriter.insert_op(ops, InsertPoint.before(op))
        op.result.replace_all_uses_with(acc)
        op.detach()
        op.erase()
