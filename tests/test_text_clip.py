from __future__ import annotations

import pytest

from rune_lsp.text_clip import ELIDED, IN_LINE, clip, shorten, tail_lines


def test_clip_keeps_head_or_tail_and_says_so() -> None:
    assert clip("short", 10) == "short"
    head = clip("abcdefghij", 4)
    assert head.startswith("abcd\n") and "6 more characters elided" in head
    tail = clip("abcdefghij", 4, keep="tail")
    assert tail.endswith("\nghij") and "6 earlier characters elided" in tail


def test_clip_in_a_line_says_how_much_was_cut() -> None:
    assert clip("abcdef", 10, marker=IN_LINE) == "abcdef"
    assert clip("abcdef", 2, marker=IN_LINE) == "ab… [4 more characters]"


def test_clip_keeps_exactly_the_limit_and_adds_its_marker() -> None:
    assert clip("x" * 10, 10) == "x" * 10
    assert clip("x" * 11, 10) == "x" * 10 + ELIDED.format(dropped=1)
    assert clip("abc", 0) == ELIDED.format(dropped=3)


def test_a_clip_marker_can_name_what_was_kept_and_the_whole() -> None:
    marker = " [first {kept} of {total}, {dropped} left out]"
    assert clip("abcdefghij", 3, marker=marker) == "abc [first 3 of 10, 7 left out]"
    assert clip("abcdefghij", 3, keep="tail", marker="<{dropped}>") == "<7>hij"


@pytest.mark.parametrize(
    ("text", "limit", "shown"),
    [
        ("short", 5, "short"),
        ("abcdefgh", 7, "abcd..."),
        ("abcdefgh", 3, "..."),
        ("abcdefgh", 1, "..."),  # no room for text: the marker alone says it was cut
    ],
)
def test_shorten_fits_the_marker_inside_the_limit(text: str, limit: int, shown: str) -> None:
    assert shorten(text, limit) == shown


def test_shorten_takes_its_marker_literally() -> None:
    assert shorten("a table cell", 6, marker="…") == "a tab…"
    marker = "\n[cut at {20}]"  # 14 characters, braces and all
    assert shorten("x" * 50, 20, marker=marker) == "x" * 6 + marker


@pytest.mark.parametrize(
    ("text", "count", "tail"),
    [
        ("", 3, ""),
        ("\n\n", 3, ""),
        ("one\ntwo\nthree\n", 2, "two\nthree"),
        ("one\ntwo\n", 5, "one\ntwo"),
        ("\n\n  indented\nlast  \n\n", 5, "  indented\nlast  "),
        ("a\n\nb\nc\n", 3, "\nb\nc"),  # a blank line inside the tail stays
        ("a\r\nb\r\n", 1, "b"),
        ("a\nb", 0, ""),
    ],
)
def test_tail_lines_keeps_the_last_lines(text: str, count: int, tail: str) -> None:
    assert tail_lines(text, count) == tail
