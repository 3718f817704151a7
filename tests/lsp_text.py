"""An independent reference for LSP text semantics: offsets in utf-8/utf-16/utf-32, applying
edits. Used by the review tests and by the e2e fake editor.

Written apart from rune_lsp.review on purpose: a test that used the same helpers as the code
under test would confirm its mistakes, and the fake editor must apply edits the way a real
client does even if the server's position logic were wrong.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol.types import AnnotatedTextEdit, Position, Range, TextEdit

_BREAK = re.compile(r"\r\n|\r|\n")


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(char) > 0xFFFF else 1


def _line_starts(text: str) -> list[int]:
    return [0] + [match.end() for match in _BREAK.finditer(text)]


def offset_of(text: str, position: Position, encoding: str) -> int:
    """The string index a position points at; past a line's end clamps to it, as the spec says."""
    starts = _line_starts(text)
    if position.line >= len(starts):
        return len(text)
    start = starts[position.line]
    found = _BREAK.search(text, start)
    content_end = found.start() if found else len(text)
    counted = 0
    for index in range(start, content_end):
        if counted >= position.character:
            return index
        counted += _units(text[index], encoding)
    return content_end


def position_of(text: str, offset: int, encoding: str) -> Position:
    starts = _line_starts(text)
    line = max(i for i, start in enumerate(starts) if start <= offset)
    character = sum(_units(c, encoding) for c in text[starts[line] : offset])
    return Position(line=line, character=character)


def range_of(text: str, needle: str, encoding: str) -> Range:
    """The range of the only occurrence of `needle` (tests name what they type over)."""
    start = text.find(needle)
    if start < 0 or text.find(needle, start + 1) >= 0:
        raise AssertionError(f"{needle!r} must occur exactly once in the buffer")
    return Range(
        start=position_of(text, start, encoding),
        end=position_of(text, start + len(needle), encoding),
    )


def apply_edits(text: str, edits: Sequence[tuple[Range, str]], encoding: str) -> str:
    """Apply non-overlapping edits whose ranges all refer to `text` (LSP TextEdit semantics)."""
    located = sorted(
        (
            (offset_of(text, where.start, encoding), offset_of(text, where.end, encoding), new)
            for where, new in edits
        ),
        key=lambda item: (item[0], item[1]),
        reverse=True,
    )
    for start, end, new_text in located:
        text = text[:start] + new_text + text[end:]
    return text


def apply_text_edits(
    text: str, edits: Sequence[TextEdit | AnnotatedTextEdit], encoding: str = "utf-16"
) -> str:
    """`apply_edits` for lsprotocol edit objects."""
    return apply_edits(text, [(edit.range, edit.new_text) for edit in edits], encoding)
