"""Hunk line ranges as LSP ranges, in the position encoding the client negotiated.

LSP counts characters in UTF-16 code units unless client and server agreed on utf-8 or
utf-32. Hunks cover whole lines, so almost every position has character 0; the exception is
the end of a text without a final newline, which can only be addressed as (last line, its
length), and that length depends on the encoding (an emoji is 1, 2 or 4 units).
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol.types import Position, PositionEncodingKind, Range

from rune_lsp.review.errors import ReviewError, UnsupportedEncodingError
from rune_lsp.review.hunks import Hunk
from rune_lsp.review.lines import Text

Encoding = PositionEncodingKind | str

#: The empty range at a document's start: where a new file's text goes and its diagnostic sits.
FILE_START = Range(start=Position(line=0, character=0), end=Position(line=0, character=0))


def resolve_encoding(encoding: Encoding | None) -> PositionEncodingKind:
    """The encoding as lsprotocol's enum; None means the protocol default, UTF-16."""
    if encoding is None:
        return PositionEncodingKind.Utf16
    try:
        return PositionEncodingKind(encoding)
    except ValueError:
        known = ", ".join(kind.value for kind in PositionEncodingKind)
        raise UnsupportedEncodingError(
            f"unknown position encoding {encoding!r}; expected one of {known}"
        ) from None


def encoded_length(text: str, encoding: Encoding | None) -> int:
    """How many code units `text` takes in `encoding`."""
    kind = resolve_encoding(encoding)
    if kind is PositionEncodingKind.Utf32:
        return len(text)
    if kind is PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    # Characters outside the Basic Multilingual Plane take a surrogate pair in UTF-16.
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


@dataclass(frozen=True, slots=True)
class TextEnd:
    """What positions near the end of a text need: its line breaks and its unfinished tail."""

    terminated_lines: int  # lines that end with a terminator
    tail: str  # text after the last terminator ("" when the text ends with one, or is empty)

    @classmethod
    def of(cls, text: str) -> TextEnd:
        last_newline = text.rfind("\n")
        last_break = max(last_newline, text.rfind("\r", last_newline + 1))
        return cls(Text(text).terminators(0, len(text)), text[last_break + 1 :])

    @property
    def line_count(self) -> int:
        """Lines as `split_lines` counts them (an unfinished tail is a line)."""
        return self.terminated_lines + (1 if self.tail else 0)


def line_start(end: TextEnd, line: int, encoding: Encoding | None = None) -> Position:
    """The position where line `line` begins; `line_count` means the end of the text."""
    if line < 0 or line > end.line_count:
        raise ReviewError(f"line {line} is outside a text of {end.line_count} lines")
    if line <= end.terminated_lines:
        return Position(line=line, character=0)
    # Past an unfinished last line there is no next line to point at: use its end.
    return Position(line=end.terminated_lines, character=encoded_length(end.tail, encoding))


def hunk_range(hunk: Hunk, end: TextEnd, encoding: Encoding | None = None) -> Range:
    """The range of the old text that `hunk` replaces."""
    return Range(
        start=line_start(end, hunk.old_start, encoding),
        end=line_start(end, hunk.old_end, encoding),
    )
