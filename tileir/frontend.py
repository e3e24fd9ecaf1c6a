"""Reading cuda_tile text.

Two spellings are accepted: the module form (`cuda_tile.module @m { entry ... }`) and
the bare form `tileirdisasm` prints (`entry @k(...) {...}` at top level, no prefixes),
which is wrapped in `cuda_tile.module @kernels` as NVIDIA's bytecode reader does.
Every op remembers where it was written (`loc("file":line:col)`) so diagnostics from
any later pass point back at the source.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from tileir.diagnostics import CompileError, SourceLocation

#: Top-level op names that mark the bare (tileirdisasm) form.
BARE_TOP_LEVEL = ("entry", "global", "testing$func")


class TileirParser(Parser):
    """xDSL's parser, recording each op's source position as its location, and reading
    hexadecimal float literals in dense attributes as bit patterns, as MLIR does (so
    NaN and infinity constants survive the generic form)."""

    _hex_elements: list[tuple[int, str]] | None = None
    _element_count: int = 0

    def _parse_tensor_literal_element(self):
        token = self._current_token
        if self._hex_elements is not None and token.text.lower().startswith("0x"):
            self._hex_elements.append((self._element_count, token.text))
        self._element_count += 1
        return super()._parse_tensor_literal_element()

    def parse_dense_int_or_fp_elements_attr(self, type):
        saved = (self._hex_elements, self._element_count)
        self._hex_elements, self._element_count = [], 0
        try:
            attr = super().parse_dense_int_or_fp_elements_attr(type)
            hex_elements = self._hex_elements
        finally:
            self._hex_elements, self._element_count = saved
        if hex_elements and isinstance(attr.get_element_type(), AnyFloat):
            attr = _with_float_bit_patterns(attr, hex_elements)
        return attr

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as e:
            # An attribute or type that fails its own verifier while being parsed.
            raise ParseError(span, str(e).split("\n")[0]) from None
        if isinstance(op.location, UnknownLoc):
            where = span.get_location()
            op.location = FileLineColLoc(StringAttr(where.file), IntAttr(where.line), IntAttr(where.col))
        return op


def _with_float_bit_patterns(attr, hex_elements):
    """Reinterpret the hex literals of a float dense attribute as bit patterns."""
    import numpy as np

    from tileir.utils.numeric import numpy_dtype, numpy_to_dense

    el = attr.get_element_type()
    dt = numpy_dtype(el)
    values = np.array(attr.get_values(), dtype=np.float64).astype(dt)
    if len(hex_elements) == 1 and hex_elements[0][0] == 0 and values.size > 1:
        hex_elements = [(i, hex_elements[0][1]) for i in range(values.size)]
    for index, text in hex_elements:
        bits = int(text, 16)
        values[index] = np.frombuffer(bits.to_bytes(dt.itemsize, "little"), dtype=dt)[0]
    return numpy_to_dense(list(values), attr.get_shape(), el)


def parse_text(
    ctx: Context,
    text: str | bytes,
    filename: str = "<input>",
    *,
    implicit_module: bool = True,
) -> ModuleOp:
    """Parse cuda_tile (or any registered dialect's) text into a builtin module."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CompileError(
                f"{filename} is not UTF-8 text (byte {e.start}); bytecode files need a .tileirbc name"
            ) from None
    parser = TileirParser(ctx, text, filename)
    bare = parser._current_token.text in BARE_TOP_LEVEL  # pyright: ignore[reportPrivateUsage]
    if bare:
        parser._parser_state.dialect_stack.append("cuda_tile")  # pyright: ignore[reportPrivateUsage]
    module = parser.parse_module(implicit_module)
    if bare:
        wrap_bare_kernels(module)
    return module


def wrap_bare_kernels(module: ModuleOp) -> None:
    """Move top-level cuda_tile entries and globals into `cuda_tile.module @kernels`."""
    from tileir.dialects.cuda_tile.ops import ModuleOp as CudaTileModule
    from tileir.dialects.cuda_tile.ops.base import CudaTileOp

    loose = [
        op
        for op in module.body.block.ops
        if isinstance(op, CudaTileOp) and not isinstance(op, CudaTileModule)
    ]
    if not loose:
        return
    for op in loose:
        op.detach()
    wrapper = CudaTileModule("kernels", loose)
    wrapper.location = loose[0].location
    module.body.block.add_op(wrapper)


def parse_error(e: ParseError) -> CompileError:
    """A located diagnostic from xDSL's parse error."""
    where = e.span.get_location()
    message = e.msg
    return CompileError(message, SourceLocation(where.file, where.line, int(where.col)))
