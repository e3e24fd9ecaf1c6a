"""The compile-time shortcuts of issue 17 compute what xDSL's generic versions compute:
`TypeDispatch` tries the patterns xDSL's `GreedyRewritePatternApplier` would try, in
the same order, and `tileir.transforms.dce` erases the ops xDSL's `dce` erases (checked
at each of the pipeline's three `dce` steps on corpus kernels with loops, branches and
dots, and on a function with an unreachable block; it asks xDSL whether an op is live by
itself once per op class only where the class decides it); the llvm ops LLBuilder
copies from a shape are the ops xDSL's constructors build, `op_shapes.create` and
`op_shapes.insert` do what `Operation.create` and `PatternRewriter.insert` do, and
`dense_to_numpy` reads float bytes as xDSL decodes them; `tileir.transforms.cse` leaves
the IR xDSL's `cse` leaves (at both of the pipeline's `cse` steps, and on loads with and
without a store between them); and `ops_of` lists the ops xDSL's `walk` yields."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32
from xdsl.ir import Block, Operation
from xdsl.parser import Parser
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.dead_code_elimination import region_dce as xdsl_region_dce

from tileir.compiler import load_module, print_ir
from tileir.pipelines import stage_passes
from tileir.registry import make_context
from tileir.transforms.dce import DeadCodeElimination, region_dce
from tileir.utils.rewriting import TypeDispatch

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


class Rename(RewritePattern):
    """Tags the first op of a matching type it sees with its own label."""

    def __init__(self, label: str, log: list[str]):
        self.label, self.log = label, log

    def tag(self, op: Operation, rewriter: PatternRewriter) -> None:
        if "by" not in op.attributes:
            op.attributes["by"] = IntegerAttr(len(self.log), i32)
            self.log.append(f"{self.label}:{op.name}")
            rewriter.has_done_action = True


class OnAddi(Rename):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        self.tag(op, rewriter)


class OnBinary(Rename):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp | arith.MuliOp, rewriter: PatternRewriter) -> None:
        self.tag(op, rewriter)


class OnAnything(Rename):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, arith.ConstantOp | arith.SubiOp):
            self.tag(op, rewriter)


PROGRAM = """
func.func @f(%a: i32) -> i32 {
  %c = arith.constant 3 : i32
  %s = arith.addi %a, %c : i32
  %m = arith.muli %s, %c : i32
  %d = arith.subi %m, %a : i32
  %t = arith.addi %d, %d : i32
  func.return %t : i32
}
"""


def _parse(text: str) -> ModuleOp:
    ctx = Context()
    ctx.load_dialect(arith.Arith)
    ctx.load_dialect(func.Func)
    return Parser(ctx, text).parse_module()


def _rewrite(applier_of: type, module: ModuleOp) -> list[str]:
    log: list[str] = []
    patterns: list[RewritePattern] = [
        OnAnything("any", log),
        OnAddi("addi", log),
        OnBinary("binary", log),
    ]
    applier = (
        GreedyRewritePatternApplier(patterns, dce_enabled=False)
        if applier_of is GreedyRewritePatternApplier
        else TypeDispatch(patterns)
    )
    PatternRewriteWalker(applier).rewrite_module(module)
    return log


def test_type_dispatch_tries_what_xdsl_tries_in_its_order() -> None:
    """Untyped patterns see every op and come first where listed first; a typed one
    sees its type, a union type either member; the first that rewrites wins."""
    theirs, ours = _parse(PROGRAM), _parse(PROGRAM)
    expected = _rewrite(GreedyRewritePatternApplier, theirs)
    assert _rewrite(TypeDispatch, ours) == expected
    tried = ["any:arith.constant", "addi:arith.addi", "binary:arith.muli", "any:arith.subi"]
    assert sorted(expected) == sorted([*tried, "addi:arith.addi"])
    assert str(ours) == str(theirs)


DEAD = """
func.func @g(%a: i32, %b: i1) -> i32 {
  %c = arith.constant 3 : i32
  %dead = arith.muli %a, %c : i32
  %dead2 = arith.addi %dead, %dead : i32
  cf.cond_br %b, ^live(%a : i32), ^other
^live(%x: i32):
  %u = arith.addi %x, %c : i32
  func.return %u : i32
^other:
  %w = arith.subi %a, %c : i32
  %unused = arith.muli %w, %w : i32
  func.return %w : i32
^unreachable:
  %z = arith.addi %a, %a : i32
  func.return %z : i32
}
"""


def test_dce_erases_what_xdsl_erases_with_an_unreachable_block() -> None:
    from xdsl.dialects import cf

    def parse() -> ModuleOp:
        ctx = Context()
        for dialect in (arith.Arith, func.Func, cf.Cf):
            ctx.load_dialect(dialect)
        return Parser(ctx, DEAD).parse_module()

    theirs, ours = parse(), parse()
    xdsl_region_dce(theirs.body)
    region_dce(ours.body)
    assert str(ours) == str(theirs)
    assert "%dead" not in str(ours) and "^unreachable" not in str(theirs)


def _steps_match_xdsl(kernel: str, ours: type, theirs: Callable[[ModuleOp], object]) -> int:
    """Run the pipeline on a corpus kernel; at each step that is a pass of class `ours`,
    apply xDSL's `theirs` to a copy and compare the IR.  The number of such steps."""
    ctx = make_context()
    module = load_module(CORPUS / f"{kernel}.tileirbc", ctx)
    steps = 0
    for _, passes in stage_passes("sm_90a", 4):
        for p in passes:
            if isinstance(p, ours):
                reference = module.clone()
                theirs(reference)
                p.apply(ctx, module)
                assert print_ir(module) == print_ir(reference), p.name
                steps += 1
            else:
                p.apply(ctx, module)
    return steps


@pytest.mark.parametrize("kernel", ["control_flow_f32", "gemm_bf16_ragged", "attention_f16"])
def test_dce_matches_xdsl_at_every_pipeline_step(kernel: str) -> None:
    assert _steps_match_xdsl(kernel, DeadCodeElimination, lambda m: xdsl_region_dce(m.body)) == 3


def test_dce_asks_a_class_once_only_where_the_class_decides() -> None:
    """Whether an op is live by itself is asked once per class where its traits'
    effects are one set for every op, and every time where an op-level trait computes
    them (scf.for has the effects of its body)."""
    from xdsl.dialects import llvm, scf
    from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

    from tileir.transforms import dce

    a = arith.ConstantOp(IntegerAttr(1, i32))
    add = llvm.AddOp(a.result, a.result)
    assert dce._constant_effects(llvm.AddOp)  # NoMemoryEffect
    assert dce._constant_effects(llvm.StoreOp)  # no effect trait: unknown effects
    assert not dce._constant_effects(scf.ForOp)  # RecursiveMemoryEffect
    for op in (a, add):
        assert dce._would_be_trivially_dead(op) == would_be_trivially_dead(op)
        assert dce._BY_CLASS[type(op)] is True
    dce._BY_CLASS.pop(scf.ForOp, None)
    lb = arith.ConstantOp.from_int_and_width(0, 32)
    loop = scf.ForOp(lb.result, lb.result, lb.result, [], Block(arg_types=[i32]))
    loop.body.block.add_op(scf.YieldOp())
    assert dce._would_be_trivially_dead(loop) == would_be_trivially_dead(loop)
    assert dce._BY_CLASS[scf.ForOp] is None


def test_llvm_ops_built_from_a_shape_are_the_constructors_ops() -> None:
    """LLBuilder builds the llvm ops it makes most as copies of what xDSL's constructor
    built for the same class, operand types and arguments (`builder._built`): the same
    result types, properties and attributes, the same generic text."""
    from io import StringIO

    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import Float32Type, IntegerType, VectorType, f16, f32, i1, i64
    from xdsl.printer import Printer

    from tileir.conversions.tileas_to_llvm import builder
    from tileir.utils import op_shapes

    def generic(op: Operation) -> str:
        out = StringIO()
        Printer(stream=out, print_generic_format=True).print_op(op)
        return out.getvalue()

    block = Block(arg_types=[i32, i32, i1, f32, f32, VectorType(f16, [2]), IntegerType(64)])
    a, b, c, x, y, v, w = block.args
    cases: list[tuple[type[Operation], list, tuple]] = [
        *((cls, [a, b], ()) for cls in (llvm.AddOp, llvm.AndOp, llvm.XOrOp, llvm.LShrOp)),
        *((cls, [a, b], ()) for cls in (llvm.MulOp, llvm.SDivOp, llvm.URemOp, llvm.ShlOp)),
        *((cls, [x, y], ()) for cls in (llvm.FAddOp, llvm.FMulOp, llvm.FDivOp, llvm.FSubOp)),
        (llvm.FNegOp, [x], ()),
        (llvm.SelectOp, [c, a, b], ()),
        (llvm.ICmpOp, [a, b], (IntegerAttr(2, i64),)),
        (llvm.ZExtOp, [a], (i64,)),
        (llvm.TruncOp, [w], (i32,)),
        (llvm.FPExtOp, [x], (Float32Type(),)),
        (llvm.BitcastOp, [v], (i32,)),
        (llvm.SIToFPOp, [a], (f32,)),
    ]
    op_shapes._SHAPES.clear()
    for cls, operands, args in cases:
        reference = cls(*operands, *args)
        for _ in range(2):  # built by the constructor, then copied from its shape
            op = builder._built(cls, operands, *args)
            assert type(op) is cls
            assert op.result_types == reference.result_types
            assert op.properties == reference.properties
            assert op.attributes == reference.attributes
            assert generic(op) == generic(reference)
            op.verify()


def _generic(op: Operation) -> str:
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue()


def test_create_lays_out_the_op_operation_create_builds() -> None:
    """`op_shapes.create` is `Operation.create` for an op without regions or
    successors: the same fields in the same order, operands with their uses, results
    owned by the op, the unknown location, dicts of its own."""
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import UnrealizedConversionCastOp, f32

    from tileir.utils.op_shapes import create

    block = Block(arg_types=[i32, i32, f32])
    a, b, x = block.args
    properties = dict(llvm.AddOp(a, b).properties)
    cases: list[tuple[type[Operation], list, list, dict, dict]] = [
        (llvm.AddOp, [a, b], [i32], properties, {}),
        (UnrealizedConversionCastOp, [a, b, a], [i32], {}, {}),
        (UnrealizedConversionCastOp, [x], [f32, i32], {}, {"tag": IntegerAttr(1, i32)}),
    ]
    for cls, operands, results, props, attrs in cases:
        reference = cls.create(
            operands=operands, result_types=results, properties=props, attributes=attrs
        )
        op = create(cls, operands, results, props, attrs)
        assert type(op) is cls
        assert list(vars(op)) == list(vars(reference))
        assert _generic(op) == _generic(reference)
        assert op.location == reference.location
        assert op.properties == reference.properties and op.properties is not props
        assert op.attributes == reference.attributes and op.attributes is not attrs
        assert [r.owner for r in op.results] == [op] * len(results)
        assert [r.index for r in op.results] == list(range(len(results)))
        for i, operand in enumerate(operands):
            assert any(u.operation is op and u.index == i for u in operand.uses)
        assert not op.successors and op.regions == () and op.parent is None
        op.verify()


def test_llbuilder_shaped_ops_are_its_constructors_ops() -> None:
    """Every LLBuilder method that builds from a shape (`op_shapes.shaped`) gives, the
    second time (copied from the shape), the ops it gave the first time (built by
    xDSL's constructors): the same generic text, one op per call, verified."""
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import VectorType, f16, f32, i8, i64
    from xdsl.pattern_rewriter import PatternRewriter
    from xdsl.rewriter import InsertPoint

    from tileir.conversions.tileas_to_llvm.builder import LLBuilder
    from tileir.conversions.tileas_to_llvm.context import LoweringContext
    from tileir.dialects import nvvm
    from tileir.utils import op_shapes

    def build(anchor: Operation, args: tuple) -> None:
        a, b, x, y, h, p, s, w = args
        ll = LLBuilder(PatternRewriter(anchor), InsertPoint.before(anchor))
        built = [
            ll.const(7, i32),
            ll.const(-1, i8),
            ll.const(1.5, f32),
            ll.const(-0.0, f32),
            ll.const(0.0, f32),
            ll.immediate(3, i32),
            ll.immediate(-2, i64),
            *(ll.icmp(pr, a, b, signed=sg) for pr in ("lt", "ge", "eq") for sg in (True, False)),
            ll.fcmp("olt", x, y),
            ll.fma(x, y, x),
            ll.intrinsic("llvm.nvvm.ex2.approx.f", [x], f32),
            ll.gep(p, a, f16),
            ll.gep(p, w, f32),
            ll.shared_pointer(a),
            ll.shared_pointer(a, 16),
            ll.load(p, f32),
            ll.load(p, i32, 4),
            *ll.load_words(s, 4, i32),
            ll.pack_halves(h, h),
            ll.undef_vector(f16, 2),
        ]
        assert all(value.owner.parent is anchor.parent for value in built)
        ll.store(x, p)
        ll.store(a, p, 8)
        ll.store_words([a, b], s)
        ll.store_words([x] * 4, s)
        ll.extract(ll.load(p, llvm.LLVMStructType.from_type_list([i32, f32])), 1, f32)
        ll._inline_asm("mov.b32 $0, $1;", "=r,r", [a], [i32], True)
        ll._inline_asm("mov.b32 $0, $2; mov.b32 $1, $2;", "=r,=r,r", [a], [i32, i32], True)
        ll._inline_asm("bar.sync 0;", "", [], [], True, min_ptx_isa="8.0")
        ll._inline_asm("bar.sync 1;", "", [], [], False)
        LoweringContext.pack(ll.rewriter, [a, b, a], VectorType(i32, [3]))

    texts = []
    op_shapes._SHAPES.clear()
    for _ in range(2):
        types = [i32, i32, f32, f32, f16, llvm.LLVMPointerType(), nvvm.shared_pointer(), i64]
        block = Block(arg_types=types)
        anchor = llvm.UnreachableOp()
        block.add_op(anchor)
        build(anchor, tuple(block.args))
        ops = list(block.ops)[:-1]
        for op in ops:
            op.verify()
        texts.append([_generic(op) for op in ops])
    assert len(texts[0]) > 40
    assert texts[0] == texts[1]
    zeros = [t for t in texts[1] if "llvm.mlir.constant" in t and "0.0" in t]
    assert len(zeros) == 2 and len(set(zeros)) == 2  # -0.0 and 0.0 kept apart


def test_a_long_elementwise_chain_compiles_through_tileaa() -> None:
    """tileaa-drop-unit-dims followed elementwise operands by recursion: a chain of
    1,500 ops (benchmarks/bench_scaling.py's kernel) overflowed Python's stack."""
    import sys

    sys.path.insert(0, str(CORPUS.parents[1] / "benchmarks"))
    from bench_scaling import kernel_text  # pyright: ignore[reportMissingImports]

    from tileir.compiler import compile_module
    from tileir.frontend import parse_text

    ctx = make_context()
    module = parse_text(ctx, kernel_text(1500))
    result = compile_module(module, "sm_90a", stop_after="tileaa", keep_stages=True, ctx=ctx)
    text = result.stages["tileaa"]
    assert text.count("mulf") == 375  # every fourth op of the chain
    assert "nv_tileaa.store weak %19, %x1500," in text.replace("\n", " ")


CSE_PROGRAM = """
func.func @h(%m: memref<4xi32>, %i: index, %b: i1) -> i32 {
  %c = arith.constant 3 : i32
  %c2 = arith.constant 3 : i32
  %x = memref.load %m[%i] : memref<4xi32>
  %y = memref.load %m[%i] : memref<4xi32>
  memref.store %c, %m[%i] : memref<4xi32>
  %z = memref.load %m[%i] : memref<4xi32>
  %s = arith.addi %x, %y : i32
  %s2 = arith.addi %s, %z : i32
  %r = scf.if %b -> (i32) {
    %c3 = arith.constant 3 : i32
    %q = arith.addi %x, %c3 : i32
    scf.yield %q : i32
  } else {
    %q2 = arith.addi %x, %c2 : i32
    %q3 = arith.addi %x, %c : i32
    scf.yield %q3 : i32
  }
  %dead = arith.muli %s2, %s2 : i32
  %t = arith.addi %s2, %r : i32
  %t2 = arith.addi %s2, %r : i32
  %u = arith.addi %t, %t2 : i32
  func.return %u : i32
}
"""


def test_cse_does_what_xdsl_cse_does() -> None:
    """Equal constants merged, nested regions seeing the outer ones, two loads merged
    only where nothing writes between them, dead ops erased: the same IR as xDSL's
    `cse` (which tileir's keys by a hash computed once per op)."""
    from xdsl.dialects import memref, scf
    from xdsl.transforms.common_subexpression_elimination import cse as xdsl_cse

    from tileir.transforms.cse import CommonSubexpressionElimination

    def parse() -> ModuleOp:
        ctx = Context()
        for dialect in (arith.Arith, func.Func, memref.MemRef, scf.Scf):
            ctx.load_dialect(dialect)
        return Parser(ctx, CSE_PROGRAM).parse_module()

    theirs, ours = parse(), parse()
    xdsl_cse(theirs)
    CommonSubexpressionElimination().apply(Context(), ours)
    assert str(ours) == str(theirs)
    text = str(ours)
    assert text.count("memref.load") == 2  # %y merged into %x, %z kept (a store between)
    assert text.count("arith.constant") == 1 and "arith.muli" not in text


@pytest.mark.parametrize("kernel", ["control_flow_f32", "attention_f16"])
def test_cse_matches_xdsl_at_every_pipeline_step(kernel: str) -> None:
    from xdsl.transforms.common_subexpression_elimination import cse as xdsl_cse

    from tileir.transforms.cse import CommonSubexpressionElimination

    assert _steps_match_xdsl(kernel, CommonSubexpressionElimination, xdsl_cse) == 2


def test_ops_of_is_xdsl_walk_forward_and_reversed() -> None:
    """`ops_of` lists the ops `Operation.walk` yields, in its order, at every stage of a
    kernel with loops and branches."""
    from tileir.utils.walk import ops_of

    ctx = make_context()
    module = load_module(CORPUS / "control_flow_f32.tileirbc", ctx)
    seen = 0
    for _, passes in stage_passes("sm_90a", 4):
        for p in passes:
            p.apply(ctx, module)
        for reverse in (False, True):
            theirs = list(module.walk(reverse=reverse))
            ours = ops_of(module, reverse=reverse)
            assert len(ours) == len(theirs)
            assert all(a is b for a, b in zip(ours, theirs, strict=True))
            seen += len(ours)
    assert seen > 100


LATE_DEFINITION = """
func.func @f(%a: i32) -> i32 {
  cf.br ^def
^use(%x: i32):
  %u = arith.muli %c, %k : i32
  %kept = arith.addi %c, %c : i32
  func.return %x : i32
^def:
  %c = arith.constant 3 : i32
  %k = arith.constant 4 : i32
  cf.br ^use(%a : i32)
}
"""


def test_cleanup_erases_a_definition_whose_last_use_comes_first_in_layout() -> None:
    """The lowering's cleanup walks once, last op first; a definition laid out after its
    dead user (here a block the entry branches to first) is erased once the user is,
    and an op whose kind the cleanup does not erase keeps what it uses."""
    from xdsl.dialects import cf

    from tileir.conversions.tileas_to_llvm.cleanup import cleanup

    ctx = Context()
    for dialect in (arith.Arith, func.Func, cf.Cf):
        ctx.load_dialect(dialect)
    module = Parser(ctx, LATE_DEFINITION).parse_module()
    cleanup(module)
    text = str(module)
    assert "arith.muli" not in text and "arith.constant 4" not in text
    assert "arith.addi" in text and "arith.constant 3" in text


def test_dense_to_numpy_reads_float_bytes_as_xdsl_decodes_them() -> None:
    """`dense_to_numpy` takes an f16, bf16, f32, f64, f8E4M3FN or f8E5M2 tensor's
    bytes as they are (xDSL decodes each element in Python): the array xDSL's decoded
    values give, bit for bit, for random bit patterns (zeros' signs, infinities and
    subnormals among them); an array with a NaN goes through xDSL's decoding."""
    import ml_dtypes
    import numpy as np
    from xdsl.dialects.builtin import (
        BFloat16Type,
        DenseIntOrFPElementsAttr,
        Float8E4M3FNType,
        Float8E5M2Type,
        TensorType,
        f16,
        f32,
        f64,
    )

    from tileir.utils.numeric import dense_to_numpy, numpy_dtype

    rng = np.random.default_rng(0)
    for el, dt in (
        (f16, np.float16),
        (BFloat16Type(), ml_dtypes.bfloat16),
        (f32, np.float32),
        (f64, np.float64),
        (Float8E4M3FNType(), ml_dtypes.float8_e4m3fn),
        (Float8E5M2Type(), ml_dtypes.float8_e5m2),
    ):
        patterns = np.frombuffer(rng.bytes(600 * np.dtype(dt).itemsize), dtype=dt)
        infinite = [np.inf, -np.inf] if dt != ml_dtypes.float8_e4m3fn else []  # no inf
        specials = np.array([0.0, -0.0, *infinite], dtype=dt)
        finite = np.concatenate([patterns[~np.isnan(patterns)][:400], specials])
        nan = np.concatenate([finite, patterns[np.isnan(patterns)][:1], np.array([np.nan], dt)])
        for values in (finite, nan):
            shape = [len(values) // 2, 2] if len(values) % 2 == 0 else [len(values)]
            attr = DenseIntOrFPElementsAttr.from_list(
                TensorType(el, shape), [float(v) for v in values]
            )
            array = dense_to_numpy(attr)
            decoded = np.array(attr.get_values(), dtype=np.float64).astype(numpy_dtype(el))
            assert array.dtype == decoded.dtype and list(array.shape) == shape
            assert array.tobytes() == decoded.tobytes()
            assert array.flags.writeable and array.flags.c_contiguous


def test_insert_does_what_the_rewriter_insert_does() -> None:
    """`op_shapes.insert` links a new op before the insertion point as
    `PatternRewriter.insert` does: the block's order and first op, the op's parent, the
    result's name hint, the action flag and the insertion listeners; at a block's end
    it is the rewriter's own insertion."""
    from xdsl.dialects import llvm
    from xdsl.pattern_rewriter import PatternRewriter
    from xdsl.rewriter import InsertPoint

    from tileir.utils.op_shapes import insert

    def run(use_insert: bool) -> tuple[list[str], list[str], bool, list[str | None]]:
        block = Block(arg_types=[i32, i32])
        a, b = block.args
        first = llvm.UnreachableOp()
        block.add_op(first)
        seen: list[str] = []
        rewriter = PatternRewriter(first)
        rewriter.operation_insertion_handler.append(lambda op: seen.append(op.name))
        rewriter.has_done_action = False
        rewriter.name_hint = "r"
        ops = [llvm.AddOp(a, b), llvm.MulOp(a, b), llvm.SubOp(a, b)]
        points = [InsertPoint.before(first), InsertPoint.before(first), InsertPoint.at_end(block)]
        for op, point in zip(ops, points, strict=True):
            if use_insert:
                insert(rewriter, op, point)
            else:
                rewriter.insert(op, point)
            assert op.parent is block
        assert block.first_op is ops[0] and block.last_op is ops[2]
        order = [op.name for op in block.ops]
        backwards, op = [], block.last_op
        while op is not None:
            backwards.append(op.name)
            op = op.prev_op
        assert backwards == order[::-1]
        hints = [op.results[0].name_hint for op in ops]
        return order, seen, rewriter.has_done_action, hints

    assert run(True) == run(False)
