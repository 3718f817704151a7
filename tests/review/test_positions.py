from __future__ import annotations

import pytest
from lsprotocol.types import Position, PositionEncodingKind, Range

from rune_lsp.review import (
    ReviewError,
    TextEnd,
    UnsupportedEncodingError,
    compute_hunks,
    encoded_length,
    hunk_range,
    resolve_encoding,
)
from rune_lsp.review.positions import line_start


def rng(a: int, b: int, c: int, d: int) -> Range:
    return Range(start=Position(line=a, character=b), end=Position(line=c, character=d))


@pytest.mark.parametrize(
    ("given", "kind"),
    [
        (None, PositionEncodingKind.Utf16),
        ("utf-16", PositionEncodingKind.Utf16),
        ("utf-8", PositionEncodingKind.Utf8),
        (PositionEncodingKind.Utf32, PositionEncodingKind.Utf32),
    ],
)
def test_resolve_encoding(given: str | None, kind: PositionEncodingKind) -> None:
    assert resolve_encoding(given) is kind


def test_unknown_encoding_is_a_typed_error_naming_the_known_ones() -> None:
    with pytest.raises(UnsupportedEncodingError, match="utf-16"):
        resolve_encoding("latin-1")


@pytest.mark.parametrize(
    ("text", "utf8", "utf16", "utf32"),
    [
        ("abc", 3, 3, 3),
        ("é", 2, 1, 1),
        ("😀", 4, 2, 1),  # outside the BMP: a surrogate pair in UTF-16
        ("a😀é𝄞", 1 + 4 + 2 + 4, 1 + 2 + 1 + 2, 4),
    ],
)
def test_encoded_length_counts_code_units(text: str, utf8: int, utf16: int, utf32: int) -> None:
    assert encoded_length(text, "utf-8") == utf8
    assert encoded_length(text, "utf-16") == utf16
    assert encoded_length(text, None) == utf16
    assert encoded_length(text, "utf-32") == utf32


@pytest.mark.parametrize(
    ("text", "terminated", "tail", "count"),
    [
        ("", 0, "", 0),
        ("a", 0, "a", 1),
        ("a\n", 1, "", 1),
        ("a\r\nb", 1, "b", 2),
        ("a\rb\r", 2, "", 2),
        ("x\n😀", 1, "😀", 2),
    ],
)
def test_text_end(text: str, terminated: int, tail: str, count: int) -> None:
    end = TextEnd.of(text)
    assert (end.terminated_lines, end.tail, end.line_count) == (terminated, tail, count)


def test_line_start_past_an_unfinished_last_line_is_its_end_in_the_encoding() -> None:
    end = TextEnd.of("x\na😀")
    assert line_start(end, 1) == Position(line=1, character=0)
    assert line_start(end, 2) == Position(line=1, character=3)
    assert line_start(end, 2, "utf-8") == Position(line=1, character=5)
    assert line_start(end, 2, "utf-32") == Position(line=1, character=2)
    with pytest.raises(ReviewError):
        line_start(end, 3)


def test_line_start_after_a_final_newline_is_the_empty_last_line() -> None:
    assert line_start(TextEnd.of("a\nb\n"), 2) == Position(line=2, character=0)


def test_hunk_in_the_middle_spans_whole_lines() -> None:
    old = "a\nb\nc\n"
    (hunk,) = compute_hunks(old, "a\nB\nc\n")
    assert hunk_range(hunk, TextEnd.of(old)) == rng(1, 0, 2, 0)


def test_hunk_replacing_an_unfinished_last_line_ends_at_its_width() -> None:
    old = "keep\n😀é"
    (hunk,) = compute_hunks(old, "keep\nplain\n")
    end = TextEnd.of(old)
    assert hunk_range(hunk, end) == rng(1, 0, 1, 3)
    assert hunk_range(hunk, end, "utf-8") == rng(1, 0, 1, 6)
    assert hunk_range(hunk, end, PositionEncodingKind.Utf32) == rng(1, 0, 1, 2)


def test_insertion_at_the_end_of_a_terminated_file_is_an_empty_range_after_it() -> None:
    old = "a\nb\n"
    (hunk,) = compute_hunks(old, "a\nb\nc\n")
    assert hunk_range(hunk, TextEnd.of(old)) == rng(2, 0, 2, 0)


def test_crlf_lines_count_once() -> None:
    old = "a\r\nb\r\nc\r\n"
    (hunk,) = compute_hunks(old, "a\r\nb\r\nC\r\n")
    assert hunk_range(hunk, TextEnd.of(old)) == rng(2, 0, 3, 0)
