"""Reading cuda_tile text.

Two spellings are accepted: the module form (`cuda_tile.module @m { entry ... }`) and
the bare form `tileirdisasm` prints (`entry @k(...) {...}` at top level, no prefixes),
which is wrapped in `cuda_tile.module @kernels` as NVIDIA's bytecode reader does.
Every op remembers where it was written (`loc("file":line:col)`) so diagnostics from
any later pass point back at the source.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from tileir.diagnostics import CompileError, SourceLocation

#: Top-level op names that mark the bare (tileirdisasm) form.
BARE_TOP_LEVEL = ("entry", "global", "testing$func")


class TileirParser(Parser):
    """xDSL's parser, recording each op's source position as its location."""

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

    loose = [op for op in module.body.block.ops if op.name.startswith("cuda_tile.") and op.name != "cuda_tile.module"]
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
