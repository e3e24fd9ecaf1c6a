"""Reading cuda_tile text.

Two spellings are accepted: the module form (`cuda_tile.module @m { entry ... }`) and
the bare form `tileirdisasm` prints (`entry @k(...) {...}` at top level, no prefixes),
which is wrapped in `cuda_tile.module @kernels` as NVIDIA's bytecode reader does.
Every op remembers where it was written (`loc("file":line:col)`) so diagnostics from
any later pass point back at the source.

`TileirParser` is xDSL's parser with MLIR's behaviour where NVIDIA's tests observe it:

* the diagnostics MLIR's parser gives (`expected ':'`, `expected valid keyword`,
  `use of value '%x' expects different type than prior uses: ...` with a `prior use
  here` note, `operation defines 2 results but was provided 3 to bind`), and the
  `custom op 'cuda_tile.addf' ` prefix MLIR puts on errors raised by an op's custom
  parser;
* empty input is an empty module;
* locations: `loc(...)` after any op (including `#alias` and `#cuda_tile.di_loc`
  locations, name, fused and call-site locations), `#name = loc(...)` alias
  definitions;
* attributes written in the attribute dictionary of a generic op are taken as the
  op's properties when the op declares them (MLIR's inherent attributes).

Several errors raised at once (MLIR emits `expected valid keyword` and the op's own
message for a missing keyword) are one `ParseErrors`, whose message holds all of them
and whose `errors` keeps them apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.utils.exceptions import MultipleSpansParseError, ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tileir.diagnostics import CompileError, SourceLocation, did_you_mean, remember_source
from tileir.dialects.cuda_tile.ops.base import MAX_REGION_DEPTH
from tileir.printing import PINNED

#: The names a parse error offers choices among (`one of: 'approx', 'full'`).
_QUOTED = re.compile(r"'([\w.]+)'")
#: xDSL's errors for a misspelled type or attribute name.
_UNKNOWN_TYPE = re.compile(r"^unknown type: ([\w.]+)")
_NOT_REGISTERED = re.compile(r"'(\w+\.[\w.]+)' is not registered")
#: Element types written without a dialect prefix.
_BUILTIN_TYPE_NAMES = (
    "i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "tf32", "index",
    "f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN",
)  # fmt: skip

#: A value name that ends in `_N`, which xDSL's name hints drop.
_NUMBERED_NAME = re.compile(r"_\d+$")

#: Top-level op names that mark the bare (tileirdisasm) form.
BARE_TOP_LEVEL = ("entry", "global", "testing$func")

#: xDSL's wording of common parse errors -> MLIR's.
_MLIR_WORDING: tuple[tuple[str, str], ...] = (
    ("identifier expected", "expected valid keyword"),
    ("Expected integer literal", "expected integer value"),
    ("operand expected", "expected SSA operand"),
    ("attribute expected", "expected attribute value"),
    ("type expected", "expected type"),
    ("string literal expected", "expected string"),
)


@dataclass
class ParseErrors(ParseError):
    """Several diagnostics raised together; `msg` joins them (one per line)."""

    errors: list[ParseError] = field(default_factory=list[ParseError])


def parse_errors(errors: list[ParseError]) -> ParseError:
    """One exception for `errors` (the first one when there is only one)."""
    if len(errors) == 1:
        return errors[0]
    return ParseErrors(errors[0].span, "\n".join(e.msg for e in errors), errors)


def mlir_wording(message: str) -> str:
    """MLIR's spelling of an xDSL parse error message."""
    if message.startswith("Expected '") and message.count("'") >= 2:
        return "e" + message[1:]
    if message.startswith("'") and "' expected" in message:
        quoted, rest = message[1:].split("' expected", 1)
        return f"expected '{quoted}'{rest}"
    for xdsl_text, mlir_text in _MLIR_WORDING:
        if message.startswith(xdsl_text):
            return mlir_text + message[len(xdsl_text) :]
    return message


def _is_prefixed(error: ParseError) -> bool:
    return bool(getattr(error, "tileir_op_prefixed", False))


def _mark_prefixed(error: ParseError) -> None:
    object.__setattr__(error, "tileir_op_prefixed", True)


class TileirParser(Parser):
    """xDSL's parser with MLIR's diagnostics and locations (see the module doc), and
    reading hexadecimal float literals in dense attributes as bit patterns, as MLIR
    does (so NaN and infinity constants survive the generic form)."""

    _hex_elements: list[tuple[int, str]] | None = None
    _element_count: int = 0

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        super().__init__(ctx, input, name)
        #: Where each SSA name was defined or first used (for `prior use here`).
        self.value_spans: dict[str, Span] = {}
        self._use_depth = {}
        self._deferred_locations = []

    def _parse_block(self) -> Block:
        """A region's next block; where no block label follows (xDSL would say only
        ` in block definition`), say what was expected: the text ended before the
        region's closing `}`, or something that is not an op stands in the body."""
        kind = self._current_token.kind
        if kind is MLIRTokenKind.EOF:
            self.raise_error("unexpected end of input: expected '}' to close the region")
        if kind is not MLIRTokenKind.CARET_IDENT:
            self.raise_error(
                "expected an operation, a block label (^bb) or '}' to close the region"
            )
        return super()._parse_block()

    # -- diagnostics --------------------------------------------------------
    def raise_error(self, msg, at_position=None, end_position=None):  # pyright: ignore[reportIncompatibleMethodOverride, reportMissingParameterType]
        wording = mlir_wording(msg)
        current = self._current_token.span
        at_current = at_position is None or (
            isinstance(at_position, Span)
            and (at_position.start, at_position.end) == (current.start, current.end)
        )
        if wording != msg and at_current:
            # A wrong-token error ("expected ','"): reported where MLIR reports it.
            at_position = end_position = self._wrong_token_position()
        try:
            super().raise_error(wording, at_position, end_position)  # pyright: ignore[reportArgumentType, reportCallIssue]
        except ParseError as e:
            e.msg += self._suggestion(e.msg, _written_word(e.span))
            raise

    def _suggestion(self, message: str, written: str) -> str:
        """`; did you mean 'x'?` for a misspelled name: a keyword outside the choices
        a message lists (`expected rounding mode to be one of: 'approx', 'full'`), an
        unknown type (`unknown type: f3`), an unregistered attribute or type
        (`'cuda_tile.tilee' is not registered`)."""
        if " one of" in message and (choices := _QUOTED.findall(message.split(" one of", 1)[1])):
            return did_you_mean(written, choices)
        if (found := _UNKNOWN_TYPE.search(message)) is not None:
            return did_you_mean(found.group(1), self._type_names())
        if (found := _NOT_REGISTERED.search(message)) is not None:
            dialect, _, _ = found.group(1).partition(".")
            names = self._dialect_names(dialect, False)
            return did_you_mean(found.group(1), names)
        return ""

    def _dialect_names(self, dialect: str, operations: bool) -> list[str]:
        """The qualified names of `dialect`'s ops (or of its attributes and types)."""
        loaded = self.ctx.get_optional_dialect(dialect)
        if loaded is None:
            return []
        members = loaded.operations if operations else loaded.attributes
        return [member.name for member in members]

    def _type_names(self) -> list[str]:
        """The type names a bare type may be (the default dialects' types without their
        prefix, builtin element types)."""
        names: list[str] = list(_BUILTIN_TYPE_NAMES)
        for dialect in self._parser_state.dialect_stack:
            names += [n.partition(".")[2] for n in self._dialect_names(dialect, False)]
        return names

    def _wrong_token_position(self) -> int:
        """MLIR reports a missing token at the end of the previous token when the
        current one starts a line (skipping blank lines and `//` comments), so that the
        error points where the token was expected."""
        token = self._current_token
        text = token.span.input.content
        original = token.span.start
        if token.kind is MLIRTokenKind.EOF and original > 0:
            original -= 1
        end = original
        while True:
            while end > 0 and text[end - 1] in " \t":
                end -= 1
            if end == 0:
                return original
            if text[end - 1] not in "\n\r":
                return end
            end -= 1
            line_start = max(text.rfind("\n", 0, end), text.rfind("\r", 0, end)) + 1
            comment = text.find("//", line_start, end)
            if comment != -1:
                end = comment

    def resolve_operand(self, operand: UnresolvedOperand, type: Attribute) -> SSAValue:  # pyright: ignore[reportIncompatibleMethodOverride]
        name = operand.operand_name
        values = self.ssa_values.get(name)
        prior: SSAValue | None = None
        if values is not None and operand.index < len(values):
            prior = values[operand.index]
        elif values is None:
            prior = self.forward_ssa_references.get(name, {}).get(operand.index)
        if prior is not None and prior.type != type:
            shown = f"%{name}" if operand.index == 0 else f"%{name}#{operand.index}"
            message = (
                f"use of value '{shown}' expects different type than prior uses: "
                f"'{type}' vs '{prior.type}'"
            )
            prior_span = self.value_spans.get(name)
            if prior_span is None:
                raise ParseError(operand.span, message)
            raise MultipleSpansParseError(
                operand.span, message, None, [(prior_span, "prior use here")]
            )
        if values is None and name not in self.value_spans:
            self.value_spans[name] = operand.span
            self._use_depth[name] = self._depth
        return super().resolve_operand(operand, type)

    def _register_ssa_definition(self, name: str, values, span: Span) -> None:  # pyright: ignore[reportMissingParameterType]
        # A value used before a region and defined inside it is not visible at the use.
        if name in self.forward_ssa_references and self._use_depth.get(name, 0) < self._depth:
            self.raise_error("use of undeclared SSA value name", self.value_spans.get(name))
        self.value_spans[name] = span
        super()._register_ssa_definition(name, values, span)
        if len(values) == 1 and _NUMBERED_NAME.search(name) and SSAValue.is_valid_name(name):
            # xDSL keeps `reduce` of `%reduce_10`; tileir's printer prints the value as
            # written (`tileir.printing`, item 4), so text reads back to itself.
            values[0].name_hint = name + PINNED

    #: Region nesting while parsing, and the nesting of each value's first use.
    _depth: int = 0
    _use_depth: dict[str, int]

    def parse_optional_region(self, arguments=None):  # pyright: ignore[reportMissingParameterType]
        self._depth += 1
        # The module, the cuda_tile.module and the function's body are around the
        # nesting that the limit counts (the bytecode reader's, from the function in).
        if self._depth > MAX_REGION_DEPTH + 3:
            self.raise_error(
                f"regions nested deeper than {MAX_REGION_DEPTH} inside a function (tileir's limit)"
            )
        try:
            return super().parse_optional_region(arguments)
        finally:
            self._depth -= 1

    # -- module -------------------------------------------------------------
    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """As xDSL's, but empty input (or input holding only alias definitions) is an
        empty module, and undefined values are reported as MLIR reports them."""
        if allow_implicit_module:
            ops: list[Operation] = []
            while self._current_token.kind != MLIRTokenKind.EOF:
                if self._current_token.kind in (
                    MLIRTokenKind.HASH_IDENT,
                    MLIRTokenKind.EXCLAMATION_IDENT,
                ):
                    self._parse_alias_def()
                    continue
                if self._current_token.kind == MLIRTokenKind.FILE_METADATA_BEGIN:
                    self._parse_file_metadata_dictionary()
                    continue
                if (op := self.parse_optional_operation()) is not None:
                    ops.append(op)
                    continue
                self.raise_error("expected operation name in quotes")
            if len(ops) == 1 and isinstance(ops[0], ModuleOp):
                module = ops[0]
            else:
                module = ModuleOp(ops)
        else:
            module = super().parse_module(allow_implicit_module)
        if self.forward_ssa_references:
            name = next(iter(self.forward_ssa_references))
            span = self.value_spans.get(name)
            self.raise_error("use of undeclared SSA value name", span)
        self._resolve_deferred_locations(module)
        return module

    #: Location aliases used before their definition: (placeholder, alias, use).
    _deferred_locations: list[tuple[Attribute, str, Span]]

    def _peek_is_bare_alias(self) -> bool:
        """Whether the `#name` at hand is an alias reference (not `#dialect.attr<`)."""
        return "." not in self._current_token.text

    def _resolve_deferred_locations(self, module: Operation) -> None:
        from tileir.dialects.cuda_tile.debug_info import is_location

        if not self._deferred_locations:
            return
        resolved: dict[Attribute, Attribute] = {}
        for placeholder, name, span in self._deferred_locations:
            target = self.attribute_aliases.get(name)
            if target is None:
                self.raise_error("operation location alias was never defined", span)
            if not is_location(target):
                self.raise_error(f"expected location, but found '{target}'", span)
            resolved[placeholder] = target
        for op in module.walk():
            if op.location in resolved:
                op.location = resolved[op.location]  # pyright: ignore[reportAttributeAccessIssue]

    def _parse_alias_def(self) -> None:
        """`#name = attr`, and MLIR's location aliases `#name = loc(...)`."""
        token = self._current_token
        if token.kind == MLIRTokenKind.HASH_IDENT:
            self._consume_token()
            name = token.text
            if name in self.attribute_aliases:
                self.raise_error(f"redefinition of attribute alias id '{name[1:]}'", token.span)
            self.parse_punctuation("=")
            location = self.parse_optional_location()
            self.attribute_aliases[name] = (
                location if location is not None else self.parse_attribute()
            )
            return
        super()._parse_alias_def()

    # -- locations -----------------------------------------------------------
    def _parse_location(self):  # pyright: ignore[reportIncompatibleMethodOverride]
        from tileir.dialects.cuda_tile.debug_info import (
            callsite_loc,
            fused_loc,
            is_location,
            name_loc,
        )

        if self.parse_optional_keyword("unknown"):
            return UnknownLoc()
        if (text := self.parse_optional_str_literal()) is not None:
            if self.parse_optional_punctuation(":") is None:
                child: Attribute = UnknownLoc()
                if self._current_token.kind == MLIRTokenKind.L_PAREN:
                    self.parse_punctuation("(")
                    child = self._parse_location()
                    self.parse_punctuation(")")
                    return name_loc(text, child)
                return NameLoc(StringAttr(text), NoneAttr())
            line = self.parse_integer(allow_boolean=False, allow_negative=False)
            self.parse_punctuation(":")
            column = self.parse_integer(allow_boolean=False, allow_negative=False)
            return FileLineColLoc(StringAttr(text), IntAttr(line), IntAttr(column))
        if self._current_token.kind == MLIRTokenKind.HASH_IDENT:
            token = self._current_token
            if token.text not in self.attribute_aliases and self._peek_is_bare_alias():
                # A location alias defined later in the file (MLIR prints them after
                # the module): resolved when the module is complete.
                self._consume_token()
                placeholder = NameLoc(
                    StringAttr(f"tileir.deferred_location.{len(self._deferred_locations)}"),
                    NoneAttr(),
                )
                self._deferred_locations.append((placeholder, token.text, token.span))
                return placeholder
            pos = self.pos
            attr = self.parse_attribute()
            if not is_location(attr):
                self.raise_error("expected location attribute", pos)
            return attr  # pyright: ignore[reportReturnType]
        if self.parse_optional_keyword("callsite"):
            self.parse_punctuation("(")
            callee = self._parse_location()
            self.parse_keyword("at")
            caller = self._parse_location()
            self.parse_punctuation(")")
            return callsite_loc(callee, caller)
        if self.parse_optional_keyword("fused"):
            metadata = None
            if self.parse_optional_punctuation("<"):
                metadata = self.parse_attribute()
                self.parse_punctuation(">")
            locations = self.parse_comma_separated_list(
                self.Delimiter.SQUARE, lambda: self._parse_location()
            )
            return fused_loc(locations, metadata)
        self.raise_error("expected location instance")

    # -- operations -----------------------------------------------------------
    def parse_operation(self) -> Operation:
        # An error about a nested op is final: the custom parser of the op around it
        # does not prefix it (MLIR prefixes only what an op's own parser reports).
        try:
            return self._parse_located_operation()
        except ParseError as e:
            _mark_prefixed(e)
            raise

    def _parse_located_operation(self) -> Operation:
        start = self._current_token.span
        name = None
        try:
            results = self._parse_op_result_list()
            name = self._current_token.text
            op = self._parse_operation_body()
        except VerifyException as e:
            # An attribute or type that fails its own verifier while being parsed: the
            # message names the op it was written in, as an op's own parser errors do.
            message = str(e).split("\n")[0]
            if name is not None:
                message = f"custom op '{self._qualified_op_name(name)}' {message}"
            raise ParseError(start, message) from None
        if not self._ended_with_location():
            position = start.get_location()
            op.location = FileLineColLoc(
                StringAttr(position.file), IntAttr(position.line), IntAttr(position.col)
            )
        declared = sum(size for _, size in results)
        if declared and not op.results:
            self.raise_error("cannot name an operation with no results", start)
        if declared and declared != len(op.results):
            self.raise_error(
                f"operation defines {len(op.results)} results but was provided {declared} to bind",
                start,
            )
        index = 0
        for span, size in results:
            self._register_ssa_definition(span.text[1:], op.results[index : index + size], span)
            index += size
        return op

    def _parse_operation_body(self) -> Operation:
        name_token = self._parse_optional_token(MLIRTokenKind.BARE_IDENT)
        if name_token is None:
            op_name = self.expect(self.parse_optional_str_literal, "operation name expected")
            op_type = self._get_op_by_name(op_name)
            self._parser_state.dialect_stack.append(op_type.dialect_name())
            try:
                op = self._parse_generic_operation(op_type)
            finally:
                self._parser_state.dialect_stack.pop()
            _take_inherent_attributes(op)
            return op
        op_type = self._get_op_by_name(name_token.text, name_token.span)
        self._parser_state.dialect_stack.append(op_type.dialect_name())
        try:
            op = op_type.parse(self)
        except ParseError as e:
            if not _is_prefixed(e):
                errors = e.errors if isinstance(e, ParseErrors) else [e]
                for error in errors:
                    error.msg = f"custom op '{op_type.name}' {error.msg}"
                if isinstance(e, ParseErrors):
                    e.msg = "\n".join(error.msg for error in errors)
                _mark_prefixed(e)
            raise
        finally:
            self._parser_state.dialect_stack.pop()
        if (location := self.parse_optional_location()) is not None:
            op.location = location
        return op

    #: Where the token after the last parsed `loc(...)` starts.
    _after_location: int = -1

    def parse_optional_location(self):  # pyright: ignore[reportIncompatibleMethodOverride]
        location = super().parse_optional_location()
        if location is not None:
            self._after_location = self._current_token.span.start
        return location

    def _ended_with_location(self) -> bool:
        """Whether the op just parsed ended with an explicit `loc(...)`."""
        return self._after_location == self._current_token.span.start

    def _qualified_op_name(self, written: str) -> str:
        """The registered name of the op written `written` (bare, or a quoted generic
        name) in the current dialect scope; `written` itself if none."""
        name = written.strip('"')
        op_type = self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)
        return op_type.name if op_type is not None else name

    def _get_op_by_name(self, name: str, written: Span | None = None) -> type[Operation]:
        """The op class of `name`; an unknown name is reported at `written` (where the
        name stands; by default, where the parser is), with the closest known names."""
        op_type = self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)
        if op_type is not None:
            return op_type
        self._unknown_op(name, written)

    def _unknown_op(self, name: str, at: Span | None) -> NoReturn:
        if "." in name:
            dialect = name.split(".", 1)[0]
            names = self._dialect_names(dialect, True)
            if not names:
                self.raise_error(
                    f"Dialect `{dialect}' not found for custom op '{name}' "
                    f"(operation {name} is not registered)",
                    at,
                )
        else:
            stack = self._parser_state.dialect_stack
            names = [n.partition(".")[2] for d in stack for n in self._dialect_names(d, True)]
        self.raise_error(
            f"custom op '{name}' is unknown (operation {name} is not registered)"
            + did_you_mean(name, names),
            at,
        )

    # -- dense literals ---------------------------------------------------------
    def _parse_tensor_literal_element(self):
        token = self._current_token
        if self._hex_elements is not None and token.text.lower().startswith("0x"):
            self._hex_elements.append((self._element_count, token.text))
        self._element_count += 1
        return super()._parse_tensor_literal_element()

    def parse_optional_builtin_int_or_float_attr(self):  # pyright: ignore[reportIncompatibleMethodOverride]
        """xDSL's, with a hexadecimal float literal wider than its type (`0xFFFFFFFFF :
        f32`) an error at the literal instead of an `OverflowError`."""
        token = self._current_token
        try:
            return super().parse_optional_builtin_int_or_float_attr()
        except OverflowError:
            self.raise_error(
                f"hexadecimal float literal {token.text} has more bits than its type",
                token.span.start,
                token.span.end,
            )

    def parse_dense_int_or_fp_elements_attr(self, type):  # pyright: ignore[reportMissingParameterType]
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


def _written_word(span: Span[str] | Span[bytes]) -> str:
    """The name an error at `span` is about: the identifier there, or else the last one
    before it on its line (a keyword parser reports a bad `rounding<aprox>` after the
    `>`)."""
    text = span.input.content
    if isinstance(text, bytes):
        return ""
    written = text[span.start : span.end].strip()
    if _IDENTIFIER.fullmatch(written):
        return written
    line_start = text.rfind("\n", 0, span.start) + 1
    words = _IDENTIFIER.findall(text[line_start : span.start])
    return words[-1] if words else written


_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*")


def _take_inherent_attributes(op: Operation) -> None:
    """MLIR accepts an op's inherent attributes in its attribute dictionary; they are
    the op's properties here."""
    if not isinstance(op, IRDLOperation) or not op.attributes:
        return
    properties = type(op).get_irdl_definition().properties
    for name in list(op.attributes):
        if name in properties and name not in op.properties:
            op.properties[name] = op.attributes.pop(name)


def _with_float_bit_patterns(attr, hex_elements):  # pyright: ignore[reportMissingParameterType, reportUnknownParameterType]
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
    remember_source(filename, text)
    parser = TileirParser(ctx, text, filename)
    bare = _starts_bare(parser)
    if bare:
        parser._parser_state.dialect_stack.append("cuda_tile")  # pyright: ignore[reportPrivateUsage]
    try:
        module = parser.parse_module(implicit_module)
    except RecursionError:
        # Types, attributes, locations and literals nest without a bound in the syntax;
        # the parser recurses on each level.  Past Python's stack: a located error.
        module = None
    if module is None:
        parser.raise_error("the input nests too deeply for tileir's parser")
    if bare:
        wrap_bare_kernels(module)
    return module


def _starts_bare(parser: TileirParser) -> bool:
    """Whether the first op of the input is a bare `entry`/`global` (after aliases)."""
    lexer_state = parser._parser_state  # pyright: ignore[reportPrivateUsage]
    token = lexer_state.current_token
    return token.text in BARE_TOP_LEVEL


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
    """A located diagnostic from xDSL's parse error; its other spans (xDSL's
    `MultipleSpansParseError`: `prior use here`) become notes, and each error of a
    `ParseErrors` one of `errors`."""
    several = e.errors if isinstance(e, ParseErrors) else []
    if len(several) > 1:
        located = [parse_error(inner) for inner in several]
        error = CompileError(located[0].message, located[0].location, located[0].notes)
        error.errors = located  # pyright: ignore[reportAttributeAccessIssue]
        return error
    notes: list[CompileError] = []
    if isinstance(e, MultipleSpansParseError):
        for span, text in e.refs:
            where = span.get_location()
            text = text or (e.ref_text or "").rstrip().rstrip(":") or "see here"
            notes.append(CompileError(text, SourceLocation(where.file, where.line, int(where.col))))
    where = e.span.get_location()
    return CompileError(e.msg, SourceLocation(where.file, where.line, int(where.col)), notes)
