"""Part of `convert-tileaa-to-tileas`: nv_tileaa shape ops (and cuda_tile's `insert`,
`cat`, `permute`, `pack` and `unpack`, which lifting keeps) become their nv_tileas forms.

    %s = nv_tileaa.splat %x : i32 -> tensor<64xi32>
    %b = nv_tileaa.broadcast %r : tensor<16x1xi32> -> tensor<16x64xi32>

become tileir's `nv_tileas.splat` / `nv_tileas.broadcast` (seed 003 has neither; see
`tileir.dialects.nv_tileas.ops.shape`) with the same operand and type; the layout pass
then puts a broadcast's source in its result's layout.

    %e = nv_tileaa.expand_dims %x {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>

becomes the seed's layout-family op (seed 003), with the same operand, axis and type:

    %e = nv_tileas.expand_dims %x {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>

The conversion runs before `tileas-assign-layouts`, on tensors without layouts; the
layout pass then puts the source in the slice of the result's layout along `axis`
(`required_operand_layouts`), as it did for the nv_tileaa op.

    %e = nv_tileaa.extract %x[%i, %c1] : tensor<64x64xf8E4M3FN> -> tensor<64x32xf8E4M3FN>

names a sub-tile by its tile coordinates (i32, in units of the result's shape); the seed's
`extract_slice` (seed 003 slice family) names it by element offsets, sizes and strides.
Element offset `d` is coordinate `d` times the result's extent `d`, in index arithmetic
(`index_cast(%i) * extent`); sizes are the result's shape, strides 1:

    %o = arith.index_cast %i : i32 to index
    %e64 = arith.constant 64 : index
    %off = arith.muli %o, %e64 : index
    %p = arith.index_cast %c1 : i32 to index
    %e32 = arith.constant 32 : index
    %off2 = arith.muli %p, %e32 : index
    %e = nv_tileas.extract_slice %x[%off, %off2][64, 32][1, 1]
        : tensor<64x64xf8E4M3FN> to tensor<64x32xf8E4M3FN>

Constant coordinates stay operands too (not static offsets): the lowering then computes
the buffer address from the coordinate's own register, as it did for `nv_tileaa.extract`
(static offsets would move the constant's register and change the PTX of the corpus
kernels that extract, `block_scaled_mm_e4m3` and `scalar_tiles_f32`).  The lowering also
takes static offsets (multiples of the size), as hand-written IR has them.

    %v = nv_tileaa.view %x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %s = nv_tileaa.view %y : tensor<1xf32> -> f32

(cuda_tile's `reshape`, where it is not a splat or inserted unit dimensions) becomes the
seed's *value view* (seed 003 layout family; a tensor result, no indices), to rank 0 too
(the element of a one-element tensor):

    %v = nv_tileas.view %x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %s = nv_tileas.view %y : tensor<1xf32> -> f32

The layout pass leaves both sides of a value view their own layouts; the LLVM lowering
renames registers where the layouts agree on every linear index, and exchanges through
shared memory where they do not.

    %r = cuda_tile.insert %x, %d[%i, %c1] : tensor<16x32xf32>, tensor<64x64xf32>

replaces the block at tile coordinates `(%i, 1)` of `%d` (cut into blocks of the
source's shape): the seed's `insert_slice` (seed 003 slice family) at the element
offsets `extract` gets, sizes the source's shape, strides 1:

    %r = nv_tileas.insert_slice %x into %d[%off, %off2][16, 32][1, 1]
        : tensor<16x32xf32> into tensor<64x64xf32>

A rank-0 destination is a single block, the source itself.  `tileas-canonicalize` folds
only extract_slice offsets, so the lowering reads the coordinates' registers as it did
for `cuda_tile.insert`.

    %c = cuda_tile.cat %a, %b dim = 1 : tensor<16x32xf32>, tensor<16x16xf32> -> tensor<16x48xf32>

has no seed op of its own; in the seed's vocabulary it is a fresh tile filled by an
insertion chain, the second operand shifted along the dimension (static offsets):

    %t = nv_tileas.alloc_tensor : tensor<16x48xf32>
    %1 = nv_tileas.insert_slice %a into %t[0, 0][16, 32][1, 1] : ... into tensor<16x48xf32>
    %c = nv_tileas.insert_slice %b into %1[0, 32][16, 16][1, 1] : ... into tensor<16x48xf32>

The LLVM lowering takes the whole chain as one exchange (every source written into one
buffer, one barrier, one read), as it lowered `cat`.

    %t = cuda_tile.permute %x [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>

becomes the seed's `shuffle` (seed 003 layout family), whose `permutation` has the
same meaning (result dimension `k` is source dimension `permutation[k]`):

    %t = nv_tileas.shuffle %x {permutation = array<i64: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>

The layout pass leaves both sides their own layouts, and the LLVM lowering exchanges
the elements through shared memory (a transpose).

    %b = cuda_tile.pack %x : tensor<64xf16> -> tensor<128xi8>
    %h = cuda_tile.unpack %b : tensor<128xi8> -> tensor<64xf16>

see the same bytes as a tile of another element type: the seed's `reinterpret` (seed 003
layout family, the same bits seen as another tile type), with the same operand and type:

    %b = nv_tileas.reinterpret %x : tensor<64xf16> -> tensor<128xi8>

The layout pass leaves both sides their own layouts, as it did for pack/unpack, and the
LLVM lowering moves the bytes through shared memory (little-endian, as the GPU stores
them).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.carriers import shape_of
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas


class ConvertSplat(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.SplatOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, tas.SplatOp(op.src, op.result.type))


class ConvertBroadcast(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.BroadcastOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, tas.BroadcastOp(op.src, op.result.type))


class ConvertExpandDims(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.ExpandDimsOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, tas.ExpandDimsOp(op.src, op.axis_value, op.result.type))


def element_offsets(
    rewriter: PatternRewriter, coordinates: Sequence[SSAValue], sizes: Sequence[int]
) -> list[int | SSAValue]:
    """The element offsets of the sub-tile at i32 tile `coordinates` (in units of
    `sizes`): `index_cast(coordinate) * size` per dimension, inserted before the op."""
    offsets: list[int | SSAValue] = []
    for coordinate, size in zip(coordinates, sizes, strict=True):
        cast = arith.IndexCastOp(coordinate, IndexType())
        step = arith.ConstantOp(IntegerAttr(size, IndexType()))
        offset = arith.MuliOp(cast, step)
        rewriter.insert([cast, step, offset])
        offsets.append(offset.result)
    return offsets


class ConvertExtract(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.ExtractOp, rewriter: PatternRewriter) -> None:
        sizes = list(shape_of(op.result.type))
        offsets = element_offsets(rewriter, op.indices, sizes)
        rewriter.replace(
            op, tas.ExtractSliceOp(op.source, offsets, sizes, [1] * len(sizes), op.result.type)
        )


class ConvertInsert(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.InsertOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.destination.type, TensorType):
            # A rank-0 destination is one block: the source itself.
            rewriter.replace(op, [], [op.source])
            return
        sizes = list(shape_of(op.source.type))
        offsets = element_offsets(rewriter, op.indices, sizes)
        rewriter.replace(
            op,
            tas.InsertSliceOp(op.source, op.destination, offsets, sizes, [1] * len(sizes)),
        )


class ConvertCat(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.CatOp, rewriter: PatternRewriter) -> None:
        result_type = op.result.type
        assert isinstance(result_type, TensorType)
        lhs_shape, rhs_shape = list(shape_of(op.lhs.type)), list(shape_of(op.rhs.type))
        rank = len(lhs_shape)
        shifted = [lhs_shape[d] if d == op.dimension else 0 for d in range(rank)]
        alloc = tas.AllocTensorOp(result_type)
        first = tas.InsertSliceOp(op.lhs, alloc.result, [0] * rank, lhs_shape, [1] * rank)
        second = tas.InsertSliceOp(op.rhs, first.result, shifted, rhs_shape, [1] * rank)
        rewriter.replace(op, [alloc, first, second])


class ConvertView(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.ViewOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, tas.ViewOp(op.src, op.result.type))


class ConvertPermute(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.PermuteOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, tas.ShuffleOp(op.source, op.perm, op.result.type))


class ConvertByteView(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.PackOp | ct.UnpackOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, tas.ReinterpretOp(op.source, op.result.type))


def shape_patterns() -> list[RewritePattern]:
    """The patterns `convert-tileaa-to-tileas` runs for shape ops."""
    return [
        ConvertSplat(),
        ConvertBroadcast(),
        ConvertExpandDims(),
        ConvertExtract(),
        ConvertInsert(),
        ConvertCat(),
        ConvertView(),
        ConvertPermute(),
        ConvertByteView(),
    ]
