from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rune_lsp.lines import line_count, split_lines, strip_terminator
from rune_lsp.review.lines import Text

TEXTS = st.lists(st.sampled_from(["a", "é", "😀", "\n", "\r", "\r\n", "\x0c", "\u2028"])).map(
    "".join
)


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("a", ["a"]),
        ("a\nb\n", ["a\n", "b\n"]),
        ("a\r\nb", ["a\r\n", "b"]),
        ("a\rb\r", ["a\r", "b\r"]),
        ("\n\n", ["\n", "\n"]),
        ("a\r\n\rb", ["a\r\n", "\r", "b"]),
    ],
)
def test_split_lines_breaks_only_on_lsp_terminators(text: str, lines: list[str]) -> None:
    assert split_lines(text) == lines


def test_split_lines_keeps_form_feeds_and_unicode_separators_inside_lines() -> None:
    # str.splitlines would break at each of these; an editor does not.
    text = "a\x0cb\u2028c\x1dd\x85e\nf"
    assert split_lines(text) == ["a\x0cb\u2028c\x1dd\x85e\n", "f"]


@given(TEXTS)
def test_split_lines_round_trips_and_agrees_with_line_count(text: str) -> None:
    lines = split_lines(text)
    assert "".join(lines) == text
    assert line_count(text) == len(lines)
    assert all(line for line in lines)


@given(TEXTS)
def test_text_boundaries_are_exactly_the_line_starts(text: str) -> None:
    view = Text(text)
    starts = {0, len(text)}
    position = 0
    for line in split_lines(text):
        position += len(line)
        starts.add(position)
    assert {k for k in range(len(text) + 1) if view.is_boundary(k)} == starts
    assert view.terminators(0, len(text)) == sum(
        1 for line in split_lines(text) if line[-1] in "\r\n"
    )


@given(TEXTS, st.data())
def test_text_searches_find_the_nearest_boundaries(text: str, data: st.DataObject) -> None:
    view = Text(text)
    offset = data.draw(st.integers(0, len(text)))
    before = view.last_boundary(0, offset)
    after = view.next_boundary(offset, len(text))
    assert view.is_boundary(before) and before <= offset
    assert view.is_boundary(after) and after >= offset
    assert not any(view.is_boundary(k) for k in range(before + 1, offset))
    assert not any(view.is_boundary(k) for k in range(offset + 1, after))


def test_line_end_treats_crlf_as_one_terminator() -> None:
    view = Text("ab\r\ncd\ref")
    assert view.line_end(0, 9) == 4
    assert view.line_end(4, 9) == 7
    assert view.line_end(7, 9) == 9


@pytest.mark.parametrize(
    ("line", "content"), [("a\r\n", "a"), ("a\n", "a"), ("a\r", "a"), ("a", "a"), ("\n", "")]
)
def test_strip_terminator(line: str, content: str) -> None:
    assert strip_terminator(line) == content


def test_copied_numbers_are_stripped_only_when_every_line_has_one() -> None:
    from rune_lsp.lines import strip_copied_numbers

    assert strip_copied_numbers("   9 | x = 1\n  10 |\n  11 |     y\n") == "x = 1\n\n    y\n"
    assert strip_copied_numbers("9 | x = 1\ny = 2\n") is None
    assert strip_copied_numbers("") is None
