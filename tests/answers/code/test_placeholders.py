"""What a comment in a block says about code left out (answers/code/placeholders.py)."""

from __future__ import annotations

import pytest

from rune_lsp.answers.code.placeholders import comment_markers, is_placeholder


@pytest.mark.parametrize(
    "line",
    [
        "    # ...",
        "    pass  # existing code",
        "    # rest of the code",
        "    # the rest remains the same",
        "    # stays the same",
        "    # original logic",
        "    # previous implementation",
        "    # keep as is",
        "    # etc.",
        "    # snip",
        "    # (same)",
        "    # and so on",
        "    # more code",
    ],
)
def test_a_comment_standing_for_code_left_out_is_a_placeholder(line: str) -> None:
    assert is_placeholder(line)


@pytest.mark.parametrize(
    "line",
    [
        "    # strip tabs, spaces, etc.",
        "    # keep the original order",
        "    # the same key twice counts once",
        "    text = '#'",
        "    total += 1",
    ],
)
def test_a_real_comment_or_code_is_not(line: str) -> None:
    assert not is_placeholder(line)


def test_a_line_of_thousands_of_hashes_is_read_in_one_pass() -> None:
    # A leading `#.*` in the pattern backtracked from every `#`: 13 s for 20,000 of them.
    assert not is_placeholder("    x = '" + "#" * 20_000 + "'")
    assert is_placeholder("# " * 10_000 + "rest of the code")


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("calc.js", "  // ... mul unchanged ..."),
        ("calc.ts", "  /* rest of the code */"),
        ("main.go", "\t// etc."),
        ("query.sql", "-- remaining columns as before"),
        ("page.html", "  <!-- snip -->"),
        ("notes.txt", "// other functions"),
    ],
)
def test_each_language_s_comment_can_stand_for_code(path: str, line: str) -> None:
    assert is_placeholder(line, comment_markers(path))


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("calc.js", "const rest = [...items];"),  # a spread, in no comment
        ("calc.js", "  // round to two digits"),
        ("query.sql", "SELECT a - b AS rest_of_it FROM t;"),
        ("app.py", "    url = 'http://example.com'  # the API"),
    ],
)
def test_code_and_real_comments_are_no_placeholder(path: str, line: str) -> None:
    assert not is_placeholder(line, comment_markers(path))
