"""What the bytecode writer refuses before it writes a byte, in NVIDIA's words (its
test/Bytecode tests check them): ops outside the cuda_tile dialect, module bodies other
than functions and globals, op locations the debug section cannot hold, types newer
than the target version, types bytecode has no encoding for."""

from __future__ import annotations

import pytest

from tileir.bytecode import write_bytecode
from tileir.bytecode.stream import EncodeError
from tileir.bytecode.version import V13_1
from tileir.compiler import parse_module_text
from tileir.driver.verify_diagnostics import diagnostics_of
from tileir.registry import make_context


def module(text: str):
    ctx = make_context()
    ctx.allow_unregistered = True
    return parse_module_text(text, "w.mlir", ctx)


def encode_error(text: str, **options: object) -> EncodeError:
    with pytest.raises(EncodeError) as e:
        write_bytecode(module(text), **options)  # pyright: ignore[reportArgumentType]
    return e.value


def test_an_op_of_another_dialect_is_an_error_at_the_module_after_a_remark_at_the_op() -> None:
    e = encode_error(
        'cuda_tile.module @kernels {\n  entry @k() {\n    "test.op"() : () -> ()\n'
        "    return\n  }\n}\n"
    )
    assert e.message == "'cuda_tile.module' op only ops from the 'cuda_tile' dialect are allowed"
    kinds = [(d.severity, d.message, d.location.line if d.location else None)
             for d in diagnostics_of(e)]  # fmt: skip
    assert kinds == [("remark", "invalid op: test.op", 3), ("error", e.message, 1)]


def test_a_module_body_op_other_than_a_function_or_global_is_an_error() -> None:
    e = encode_error(
        "cuda_tile.module @kernels {\n  cuda_tile.constant <f32: 5.0> : !cuda_tile.tile<f32>\n}\n"
    )
    assert e.message.endswith("only function and global ops are allowed in the body")


@pytest.mark.parametrize(
    ("loc", "kind"),
    [
        ('loc(fused["a.py":1:1, "a.py":1:2])', "FusedLoc"),
        ('loc("name"("a.py":1:1))', "NameLoc"),
        ('loc(callsite(fused["a.py":1:1, "a.py":1:2] at "a.py":2:1))', "FusedLoc"),
    ],
)
def test_an_op_location_the_debug_section_cannot_hold_is_an_error(loc: str, kind: str) -> None:
    e = encode_error(
        "cuda_tile.module @kernels {\n  entry @k() {\n"
        f"    %a = constant <i32: 1> : tile<i32> {loc}\n    return\n  }}\n}}\n"
    )
    assert e.message == f"unsupported location, got {kind}, expected DILocAttr or CallSiteLoc"


def test_a_type_newer_than_the_target_version_is_unlocated_in_nvidias_words() -> None:
    e = encode_error(
        "cuda_tile.module @kernels {\n  entry @k(%a: tile<f8E8M0FNU>) {\n    return\n  }\n}\n",
        version=V13_1,
    )
    assert e.message == "type 'Float8E8M0FNU' requires bytecode version 13.2+, targeting 13.1"
    assert e.location is None


def test_a_type_bytecode_cannot_encode() -> None:
    e = encode_error(
        "cuda_tile.module @kernels {\n  cuda_tile.entry @k(%a : tensor<2xi16>) {\n"
        "    cuda_tile.return\n  }\n}\n"
    )
    assert e.message == "unsupported type in bytecode writer: tensor<2xi16>"
