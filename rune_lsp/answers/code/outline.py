"""The shape of Python-like source as lines: definitions, their extent, indentation.

Just enough structure to find "the definition this code block replaces" without parsing:
a definition is a `def`/`async def`/`class` header line (with the decorators right above it and
any continuation lines of its signature) plus every following line that is blank or indented
deeper than the header. Code that does not parse (the usual state of a file being fixed) still
has this shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["def", "class"]

_HEADER = re.compile(r"^([ \t]*)(async[ \t]+def|def|class)[ \t]+([A-Za-z_]\w*)")
_OPENERS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


@dataclass(frozen=True)
class Definition:
    """One definition in a list of lines: lines `start..end` inclusive (decorators included)."""

    kind: Kind
    name: str
    header: int  # index of the `def`/`class` line
    start: int
    end: int
    indent: str  # the header's leading whitespace


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def header_of(line: str) -> tuple[Kind, str, str] | None:
    """(kind, name, indent) when `line` starts a definition; `async def` counts as `def`."""
    found = _HEADER.match(line)
    if found is None:
        return None
    kind: Kind = "class" if found.group(2) == "class" else "def"
    return kind, found.group(3), found.group(1)


def definitions(lines: list[str], lo: int = 0, hi: int | None = None) -> list[Definition]:
    """Every definition whose header lies in `lines[lo:hi]`, nested ones included."""
    stop = len(lines) if hi is None else hi
    found = []
    for index in range(lo, stop):
        header = header_of(lines[index])
        if header is not None:
            kind, name, indent = header
            start = _decorators_start(lines, index, indent)
            found.append(Definition(kind, name, index, start, _end_of(lines, index), indent))
    return found


def top_level(lines: list[str]) -> list[Definition]:
    """The definitions at the smallest indentation of `lines` (the block's own top level)."""
    every = definitions(lines)
    if not every:
        return []
    base = min(len(d.indent) for d in every)
    return [d for d in every if len(d.indent) == base]


def children(lines: list[str], parent: Definition) -> list[Definition]:
    """The definitions directly inside `parent` (a class's methods)."""
    inner = definitions(lines, parent.header + 1, parent.end + 1)
    if not inner:
        return []
    base = min(len(d.indent) for d in inner)
    return [d for d in inner if len(d.indent) == base]


def _decorators_start(lines: list[str], header: int, indent: str) -> int:
    start = header
    while start > 0:
        above = lines[start - 1]
        if above.strip().startswith("@") and indent_of(above) == indent:
            start -= 1
        else:
            break
    return start


def _end_of(lines: list[str], header: int) -> int:
    """The last non-blank line of the definition whose header is at `header`."""
    width = len(indent_of(lines[header]))
    signature = _signature_end(lines, header)
    last = signature
    for index in range(signature + 1, len(lines)):
        line = lines[index]
        if not line.strip():
            continue
        if len(indent_of(line)) <= width:
            break
        last = index
    return last


def _signature_end(lines: list[str], header: int) -> int:
    """The line that closes the header's brackets (a signature may span lines)."""
    depth = 0
    for index in range(header, len(lines)):
        depth += sum(_OPENERS.get(char, 0) for char in _code_part(lines[index]))
        if depth <= 0:
            return index
    return header  # unbalanced: treat the header as one line


def _code_part(line: str) -> str:
    """The line without a trailing comment or string contents, for bracket counting."""
    out = []
    quote = ""
    for char in line:
        if quote:
            if char == quote:
                quote = ""
            continue
        if char in "\"'":
            quote = char
        elif char == "#":
            break
        else:
            out.append(char)
    return "".join(out)
