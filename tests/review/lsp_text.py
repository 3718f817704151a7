"""An independent reference for LSP text semantics, to check the review code against.

Written separately from rune_lsp.review.lines on purpose: a test that used the same helpers
as the code under test would confirm its mistakes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol.types import AnnotatedTextEdit, Position, TextEdit

_BREAK = re.compile(r"\r\n|\r|\n")


def units(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(char) > 0xFFFF else 1


def offset_of(text: str, position: Position, encoding: str) -> int:
    """The string index an LSP position points at (clamped as the spec says)."""
    starts = [0] + [match.end() for match in _BREAK.finditer(text)]
    if position.line >= len(starts):
        return len(text)
    start = starts[position.line]
    found = _BREAK.search(text, start)
    content_end = found.start() if found else len(text)
    counted = 0
    for index in range(start, content_end):
        if counted >= position.character:
            return index
        counted += units(text[index], encoding)
    return content_end


def apply_text_edits(
    text: str, edits: Sequence[TextEdit | AnnotatedTextEdit], encoding: str = "utf-16"
) -> str:
    """The text after applying non-overlapping edits that all refer to the original text."""
    located = sorted(
        (
            (
                offset_of(text, edit.range.start, encoding),
                offset_of(text, edit.range.end, encoding),
                edit.new_text,
            )
            for edit in edits
        ),
        reverse=True,
    )
    for start, end, new_text in located:
        text = text[:start] + new_text + text[end:]
    return text


def line_content(text: str, line: int) -> str:
    return _BREAK.split(text)[line]
