"""The debug section, and how its debug info becomes xDSL locations (and back).

    debug   = nfuncs:varint pad4 u32[nfuncs]      start of each function's list
              nlocs:varint  pad8 u64[nlocs]       debug-attribute index per op
              table of debug attributes (u32 offsets)
    attr    = tag:varint payload
      1 DICompileUnit  file
      2 DIFile         name:string directory:string
      3 DILexicalBlock scope file line column
      4 DILoc          scope filename:string line column
      5 DISubprogram   file line name:string linkageName:string compileUnit scopeLine
      6 CallSite       callee caller

A function's location index k >= 1 selects list k: the function's own location, then
one per op in the order the ops are written (nested ops included).  Index 0, as a
function index or as an attribute index, means "unknown location"; attribute index
j >= 1 is attribute j - 1.

Debug info reads back as the dialect's debug-info attributes, as NVIDIA's reader reads
it (test/Bytecode/debug_info.mlir):

| bytecode | xDSL location |
|---|---|
| `DILoc` (on an op or a function) | `#cuda_tile.di_loc<loc("f.py":3:4) in #scope>` (`DILocAttr`), its scope a `#cuda_tile.di_subprogram` or `#cuda_tile.di_lexical_block` with their file and compile unit |
| `callsite(callee at caller)` | a call-site location of those |
| index 0 | `UnknownLoc` |

Locations that already are the dialect's `#cuda_tile.di_loc` (with its `di_subprogram`,
`di_lexical_block`, `di_file`, `di_compile_unit`) are written exactly as they are.
Builtin locations are written by synthesizing the scopes: per function one
`di_subprogram` named after the `NameLoc` (or the symbol), whose linkage name is the
symbol, whose line and scope line are the function's line, in a `di_compile_unit` of
the function's file (split into name and directory); they read back as `di_loc`s in that
synthesized scope.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    LocationAttr,
    NameLoc,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute

from tileir.bytecode.container import read_table, write_table
from tileir.bytecode.stream import PADDING_BYTE, BytecodeError, ByteReader, ByteWriter, EncodeError
from tileir.dialects.cuda_tile.debug_info import (
    DICompileUnitAttr,
    DIFileAttr,
    DILexicalBlockAttr,
    DILocAttr,
    DISubprogramAttr,
    callsite_loc,
    is_location,
)

TAG_COMPILE_UNIT = 1
TAG_FILE = 2
TAG_LEXICAL_BLOCK = 3
TAG_LOC = 4
TAG_SUBPROGRAM = 5
TAG_CALL_SITE = 6

MAX_DEBUG_DEPTH = 64


@dataclass(frozen=True)
class DIFile:
    name: str
    directory: str


@dataclass(frozen=True)
class DICompileUnit:
    file: DIFile


@dataclass(frozen=True)
class DISubprogram:
    file: DIFile
    line: int
    name: str
    linkage_name: str
    compile_unit: DICompileUnit
    scope_line: int


@dataclass(frozen=True)
class DILexicalBlock:
    scope: DISubprogram | DILexicalBlock
    file: DIFile
    line: int
    column: int


@dataclass(frozen=True)
class DILoc:
    scope: DISubprogram | DILexicalBlock
    filename: str
    line: int
    column: int


@dataclass(frozen=True)
class DICallSite:
    callee: DILoc | DICallSite | None
    caller: DILoc | DICallSite | None


DebugAttr = DIFile | DICompileUnit | DISubprogram | DILexicalBlock | DILoc | DICallSite | None

_TAG_NAMES = {
    TAG_COMPILE_UNIT: "DICompileUnit",
    TAG_FILE: "DIFile",
    TAG_LEXICAL_BLOCK: "DILexicalBlock",
    TAG_LOC: "DILoc",
    TAG_SUBPROGRAM: "DISubprogram",
    TAG_CALL_SITE: "CallSite",
}


def _loc(filename: str, line: int, column: int) -> FileLineColLoc:
    return FileLineColLoc(StringAttr(filename), IntAttr(line), IntAttr(column))


def _subprogram_of(scope: DISubprogram | DILexicalBlock) -> DISubprogram:
    while isinstance(scope, DILexicalBlock):
        scope = scope.scope
    return scope


def _skip_padding_bytes(r: ByteReader, alignment: int) -> None:
    """Skip padding bytes (0xCB) up to `alignment`, where a writer may or may not pad."""
    while (r.pos - r.origin) % alignment and not r.at_end() and r.data[r.pos] == PADDING_BYTE:
        r.pos += 1


class DebugInfoReader:
    """The debug section of a file; hands out a location cursor per function."""

    def __init__(self, data: bytes, r: ByteReader | None, strings: list[str]):
        self.data = data
        self.strings = strings
        self.list_starts: list[int] = []
        self.indices: list[int] = []
        self.indices_at = 0
        self.items: list[tuple[int, int]] = []
        self.cache: dict[int, DebugAttr] = {}
        self.locations: dict[tuple[int, bool], Attribute] = {}
        self.active: set[int] = set()
        if r is not None:
            self._parse(r)

    def _parse(self, r: ByteReader) -> None:
        n = r.count("number of functions with debug info", 4)
        if n:
            r.pad(4, "the debug list offsets")
            self.list_starts = [r.le(4, "a debug list offset") for _ in range(n)]
        else:
            # cuTile's writer pads even an empty list (its version probe is such a file).
            _skip_padding_bytes(r, 4)
        m = r.count("number of debug locations", 8)
        if not m:
            _skip_padding_bytes(r, 8)
        if m:
            r.pad(8, "the debug locations")
            self.indices_at = r.pos
            self.indices = [r.le(8, "a debug attribute index") for _ in range(m)]
        self.items = read_table(r, 4, "debug attribute")

    def cursor(self, function_index: int, at: int) -> LocationCursor:
        if function_index == 0:
            return LocationCursor(self, None, at)
        if function_index > len(self.list_starts):
            raise BytecodeError(
                at,
                f"function debug index {function_index} is out of range",
                f"an index up to {len(self.list_starts)} (the debug section's function count)",
            )
        return LocationCursor(self, self.list_starts[function_index - 1], at)

    def attribute(self, index: int, at: int) -> DebugAttr:
        """Debug attribute `index` (1-based; 0 is the unknown location -> None)."""
        if index == 0:
            return None
        if index > len(self.items):
            raise BytecodeError(
                at,
                f"debug attribute index {index} is out of range",
                f"an index up to {len(self.items)}",
            )
        found = self.cache.get(index)
        if found is not None:
            return found
        if index in self.active:
            raise BytecodeError(
                at,
                f"debug attribute {index} refers to itself",
                "attributes that refer to other attributes",
            )
        if len(self.active) >= MAX_DEBUG_DEPTH:
            raise BytecodeError(
                at, f"debug attributes nested deeper than {MAX_DEBUG_DEPTH}", "shallower debug info"
            )
        self.active.add(index)
        try:
            start, end = self.items[index - 1]
            attr = self._decode(ByteReader.over(self.data, start, end))
        finally:
            self.active.discard(index)
        self.cache[index] = attr
        return attr

    def _string(self, r: ByteReader, what: str) -> str:
        return self.strings[r.index(f"{what} string index", len(self.strings))]

    def _ref(self, r: ByteReader, kinds: tuple[type, ...], what: str) -> DebugAttr:
        at = r.pos
        attr = self.attribute(r.varint(f"{what} debug attribute index"), at)
        if not isinstance(attr, kinds):
            got = "an unknown location" if attr is None else type(attr).__name__
            raise BytecodeError(at, f"{what} is {got}", " or ".join(k.__name__ for k in kinds))
        return attr

    def _decode(self, r: ByteReader) -> DebugAttr:
        at = r.pos
        tag = r.varint("a debug attribute tag")
        if tag == TAG_FILE:
            return DIFile(self._string(r, "file name"), self._string(r, "directory"))
        if tag == TAG_COMPILE_UNIT:
            file = self._ref(r, (DIFile,), "compile unit file")
            assert isinstance(file, DIFile)
            return DICompileUnit(file)
        if tag == TAG_SUBPROGRAM:
            file = self._ref(r, (DIFile,), "subprogram file")
            line = r.varint("subprogram line")
            name = self._string(r, "subprogram name")
            linkage = self._string(r, "subprogram linkage name")
            cu = self._ref(r, (DICompileUnit,), "subprogram compile unit")
            scope_line = r.varint("subprogram scope line")
            assert isinstance(file, DIFile) and isinstance(cu, DICompileUnit)
            return DISubprogram(file, line, name, linkage, cu, scope_line)
        if tag == TAG_LEXICAL_BLOCK:
            scope = self._ref(r, (DISubprogram, DILexicalBlock), "lexical block scope")
            file = self._ref(r, (DIFile,), "lexical block file")
            assert isinstance(scope, DISubprogram | DILexicalBlock) and isinstance(file, DIFile)
            return DILexicalBlock(
                scope, file, r.varint("lexical block line"), r.varint("lexical block column")
            )
        if tag == TAG_LOC:
            scope = self._ref(r, (DISubprogram, DILexicalBlock), "location scope")
            assert isinstance(scope, DISubprogram | DILexicalBlock)
            filename = self._string(r, "location file name")
            return DILoc(scope, filename, r.varint("location line"), r.varint("location column"))
        if tag == TAG_CALL_SITE:
            callee = self._ref(r, (DILoc, DICallSite, type(None)), "call site callee")
            caller = self._ref(r, (DILoc, DICallSite, type(None)), "call site caller")
            assert isinstance(callee, DILoc | DICallSite | None) and isinstance(
                caller, DILoc | DICallSite | None
            )
            return DICallSite(callee, caller)
        if tag == 0:
            return None
        raise BytecodeError(at, f"unknown debug attribute tag {tag}", "a tag from 0 to 6")


def _file_attr(f: DIFile) -> DIFileAttr:
    return DIFileAttr(f.name, f.directory)


def _scope_attr(scope: DISubprogram | DILexicalBlock) -> DISubprogramAttr | DILexicalBlockAttr:
    """The dialect attribute of a decoded debug-info scope."""
    if isinstance(scope, DISubprogram):
        return DISubprogramAttr(
            _file_attr(scope.file),
            IntAttr(scope.line),
            StringAttr(scope.name),
            StringAttr(scope.linkage_name),
            DICompileUnitAttr(_file_attr(scope.compile_unit.file)),
            IntAttr(scope.scope_line),
        )
    return DILexicalBlockAttr(
        _scope_attr(scope.scope),
        _file_attr(scope.file),
        IntAttr(scope.line),
        IntAttr(scope.column),
    )


def location_of(attr: DebugAttr, at: int, *, function: bool = False) -> Attribute:
    """The location a debug attribute stands for: a `di_loc` (for a function too:
    `function` only says where it is used), a call site of locations, or unknown."""
    if attr is None:
        return UnknownLoc()
    if isinstance(attr, DILoc):
        return DILocAttr(_loc(attr.filename, attr.line, attr.column), _scope_attr(attr.scope))
    if isinstance(attr, DICallSite):
        return callsite_loc(location_of(attr.callee, at), location_of(attr.caller, at))
    raise BytecodeError(
        at, f"debug attribute {type(attr).__name__} used as a location", "a DILoc or CallSite"
    )


class LocationCursor:
    """Locations of one function: its own, then one per op in write order."""

    def __init__(self, info: DebugInfoReader, start: int | None, at: int):
        self.info = info
        self.next_index = start
        self.at = at
        self.function_has_scope = False

    def next(self, at: int, *, function: bool = False) -> LocationAttr:
        """The next location (a `di_loc` is one, though not of xDSL's builtin kinds)."""
        if self.next_index is None:
            return UnknownLoc()
        i = self.next_index
        if i >= len(self.info.indices):
            raise BytecodeError(
                at,
                f"no debug location for this op (debug location {i} of {len(self.info.indices)})",
                "one debug location per op",
            )
        self.next_index = i + 1
        index = self.info.indices[i]
        if function:
            attr = self.info.attribute(index, self.info.indices_at + 8 * i)
            if not isinstance(attr, DILoc | None):
                raise BytecodeError(
                    at, f"the function's location is a {type(attr).__name__}", "a DILoc"
                )
            self.function_has_scope = attr is not None
        elif index and not self.function_has_scope:
            raise BytecodeError(
                at, "an op has debug info but its function has none", "debug index 0"
            )
        key = (index, function)
        found = self.info.locations.get(key)
        if found is None:
            attr = self.info.attribute(index, self.info.indices_at + 8 * i)
            found = self.info.locations[key] = location_of(attr, at, function=function)
        return cast(LocationAttr, found)


class DebugInfoWriter:
    """Collects per-function location lists and interns debug attributes."""

    def __init__(self, strings: StringInterner):
        self.strings = strings
        self.items: list[bytes] = []
        self.index: dict[bytes, int] = {}
        self.lists: list[list[int]] = []
        self.current: list[int] | None = None
        self.subprogram = 0

    def _intern(self, payload: bytes) -> int:
        found = self.index.get(payload)
        if found is not None:
            return found
        self.items.append(payload)
        self.index[payload] = len(self.items)
        return len(self.items)

    def _attr(self, tag: int, *fields: int) -> int:
        w = ByteWriter()
        w.varint(tag)
        for f in fields:
            w.varint(f)
        return self._intern(bytes(w.buf))

    def begin_function(self, symbol: str, loc: Attribute) -> int:
        """Start a function's list; returns its location index (0: no debug info)."""
        if isinstance(loc, DILocAttr):
            # The dialect's own debug info: written as it is.
            subprogram = _subprogram_attr(loc.scope)
            if subprogram is None:
                self.current = None
                return 0
            self.subprogram = self._di(subprogram)
            self.current = []
            self.lists.append(self.current)
            self.add(loc)
            return len(self.lists)
        name = symbol
        if isinstance(loc, NameLoc):
            name = loc.desc.data
        file_loc = _first_file_loc(loc) if isinstance(loc, LocationAttr) else None
        if file_loc is None:
            self.current = None
            return 0
        filename = file_loc.filename.data
        line = max(0, file_loc.line.data)
        file = self._attr(
            TAG_FILE,
            self.strings(os.path.basename(filename)),
            self.strings(os.path.dirname(filename)),
        )
        unit = self._attr(TAG_COMPILE_UNIT, file)
        self.subprogram = self._attr(
            TAG_SUBPROGRAM, file, line, self.strings(name), self.strings(symbol), unit, line
        )
        self.current = []
        self.lists.append(self.current)
        self.add(file_loc)
        return len(self.lists)

    def add(self, loc: Attribute) -> None:
        """The location of the next op written (of the current function).  An op's
        location must be one the section can hold as NVIDIA's writer takes it: a
        `di_loc`, a file position, unknown, or a call site of those; a named or fused
        location is an error (`unsupported location, got FusedLoc, ...`)."""
        kind = unsupported_op_location(loc)
        if kind is not None:
            raise EncodeError(
                f"unsupported location, got {kind}, expected DILocAttr or CallSiteLoc"
            )
        if self.current is not None:
            self.current.append(self._location(loc))

    def _di(self, attr: Attribute) -> int:
        """A `#cuda_tile.di_*` scope of the dialect, interned."""
        if isinstance(attr, DIFileAttr):
            return self._attr(
                TAG_FILE, self.strings(attr.file_name.data), self.strings(attr.directory.data)
            )
        if isinstance(attr, DICompileUnitAttr):
            return self._attr(TAG_COMPILE_UNIT, self._di(attr.file))
        if isinstance(attr, DISubprogramAttr):
            return self._attr(
                TAG_SUBPROGRAM,
                self._di(attr.file),
                _unsigned(attr.line),
                self.strings(attr.sub_name.data),
                self.strings(attr.linkage_name.data),
                self._di(attr.compile_unit),
                _unsigned(attr.scope_line),
            )
        if isinstance(attr, DILexicalBlockAttr):
            return self._attr(
                TAG_LEXICAL_BLOCK,
                self._di(attr.scope),
                self._di(attr.file),
                _unsigned(attr.line),
                _unsigned(attr.column),
            )
        raise EncodeError(f"debug attribute {attr} cannot be written to bytecode")

    def _location(self, loc: Attribute) -> int:
        if isinstance(loc, DILocAttr):
            source = loc.source_loc
            return self._attr(
                TAG_LOC,
                self._di(loc.scope),
                self.strings(source.filename.data),
                max(0, source.line.data),
                max(0, source.column.data),
            )
        if isinstance(loc, FileLineColLoc):
            return self._attr(
                TAG_LOC,
                self.subprogram,
                self.strings(loc.filename.data),
                max(0, loc.line.data),
                max(0, loc.column.data),
            )
        if isinstance(loc, CallSiteLoc):
            callee, caller = loc.callee, loc.caller
            return self._attr(
                TAG_CALL_SITE,
                self._location(callee) if is_location(callee) else 0,
                self._location(caller) if is_location(caller) else 0,
            )
        if isinstance(loc, NameLoc) and isinstance(loc.location, LocationAttr):
            return self._location(loc.location)
        if isinstance(loc, FusedLoc) and isinstance(loc.locations, ArrayAttr):
            for sub in loc.locations.data:
                if isinstance(sub, LocationAttr) and (index := self._location(sub)):
                    return index
        return 0

    def section(self) -> bytes | None:
        if not self.lists:
            return None
        w = ByteWriter()
        w.varint(len(self.lists))
        w.pad(4)
        start = 0
        for entries in self.lists:
            w.le(start, 4)
            start += len(entries)
        w.varint(start)
        w.pad(8)
        for entries in self.lists:
            for index in entries:
                w.le(index, 8)
        write_table(w, self.items, 4)
        return bytes(w.buf)


def unsupported_op_location(loc: Attribute) -> str | None:
    """The kind of the first part of `loc` that an op's location in bytecode cannot be
    (`NameLoc`, `FusedLoc`, `OpaqueLoc`), looking through call sites; None if none."""
    pending = [loc]
    while pending:
        part = pending.pop()
        if isinstance(part, CallSiteLoc):
            pending += [part.callee, part.caller]
        elif isinstance(part, NameLoc):
            return "NameLoc"
        elif isinstance(part, FusedLoc):
            return "FusedLoc"
        elif not isinstance(part, DILocAttr | FileLineColLoc | UnknownLoc):
            return "OpaqueLoc" if type(part).__name__ == "OpaqueLoc" else "Unknown Attribute"
    return None


def _unsigned(a: Attribute) -> int:
    """An optional unsigned parameter (`IntAttr` or absent `NoneAttr`) as written."""
    return max(0, a.data) if isinstance(a, IntAttr) else 0


def _subprogram_attr(scope: Attribute) -> DISubprogramAttr | None:
    for _ in range(MAX_DEBUG_DEPTH):
        if isinstance(scope, DISubprogramAttr):
            return scope
        if not isinstance(scope, DILexicalBlockAttr):
            return None
        scope = scope.scope
    return None


def _first_file_loc(loc: LocationAttr) -> FileLineColLoc | None:
    if isinstance(loc, FileLineColLoc):
        return loc
    if isinstance(loc, NameLoc) and isinstance(loc.location, LocationAttr):
        return _first_file_loc(loc.location)
    if isinstance(loc, CallSiteLoc) and isinstance(loc.callee, LocationAttr):
        return _first_file_loc(loc.callee)
    if isinstance(loc, FusedLoc) and isinstance(loc.locations, ArrayAttr):
        for sub in loc.locations.data:
            if isinstance(sub, LocationAttr) and (found := _first_file_loc(sub)):
                return found
    return None


class StringInterner:
    """The string table: strings numbered in first-use order."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.items: list[str] = []

    def __call__(self, s: str) -> int:
        found = self.index.get(s)
        if found is not None:
            return found
        self.index[s] = len(self.items)
        self.items.append(s)
        return len(self.items) - 1

    def encoded(self) -> list[bytes]:
        return [s.encode("utf-8") for s in self.items]
