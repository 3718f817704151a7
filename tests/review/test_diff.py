from __future__ import annotations

import difflib

from rune_lsp.review import colorize, unified_diff
from rune_lsp.review.diff import NO_NEWLINE

from .samples import edit_of, numbered


def test_modified_file_matches_difflib_format() -> None:
    old = numbered(30)
    new = old.replace("line 4\n", "four\n").replace("line 25\n", "")
    expected = "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            "a/src/app.py",
            "b/src/app.py",
        )
    )
    assert unified_diff(edit_of(old, new), display_path="src/app.py") == expected


def test_close_hunks_share_a_section_and_far_ones_do_not() -> None:
    old = numbered(40)
    close = old.replace("line 10\n", "ten\n").replace("line 15\n", "fifteen\n")
    far = old.replace("line 10\n", "ten\n").replace("line 30\n", "thirty\n")
    assert unified_diff(edit_of(old, close), display_path="f").count("@@ -") == 1
    assert unified_diff(edit_of(old, far), display_path="f").count("@@ -") == 2


def test_new_file_comes_from_dev_null() -> None:
    diff = unified_diff(edit_of(None, "a\nb\n", tool="write_file"), display_path="n.py")
    assert diff == "--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,2 @@\n+a\n+b\n"


def test_new_empty_file_still_shows_its_headers() -> None:
    assert unified_diff(edit_of(None, ""), display_path="n.py") == "--- /dev/null\n+++ b/n.py\n"


def test_unchanged_file_is_an_empty_diff() -> None:
    assert unified_diff(edit_of("a\n", "a\n"), display_path="x") == ""


def test_deleting_everything() -> None:
    diff = unified_diff(edit_of("a\nb\n", ""), display_path="x")
    assert diff.endswith("@@ -1,2 +0,0 @@\n-a\n-b\n")


def test_missing_final_newline_is_marked() -> None:
    diff = unified_diff(edit_of("a\nb", "a\nb\n"), display_path="x")
    assert diff.endswith(f"@@ -1,2 +1,2 @@\n a\n-b\n{NO_NEWLINE}+b\n")


def test_crlf_lines_keep_their_endings() -> None:
    diff = unified_diff(edit_of("a\r\nb\r\n", "a\r\nc\r\n"), display_path="x")
    assert diff.endswith("@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n")


def test_colorize_marks_each_kind_of_line() -> None:
    diff = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    assert colorize(diff).splitlines() == [
        "\x1b[1m--- a/x\x1b[0m",
        "\x1b[1m+++ b/x\x1b[0m",
        "\x1b[36m@@ -1,2 +1,2 @@\x1b[0m",
        " a",
        "\x1b[31m-b\x1b[0m",
        "\x1b[32m+c\x1b[0m",
    ]


def test_colorize_tells_removed_lines_that_look_like_headers_from_headers() -> None:
    # A removed line "-- note" prints as "--- note": inside a section it is still a removal.
    diff = unified_diff(edit_of("-- note\n++ more\nkeep\n", "keep\n"), display_path="x")
    coloured = colorize(diff).splitlines()
    assert coloured[3] == "\x1b[31m--- note\x1b[0m"
    assert coloured[4] == "\x1b[31m-++ more\x1b[0m"


def test_colorize_keeps_line_endings_and_dims_markers() -> None:
    diff = unified_diff(edit_of("a\r\nb", "a\r\nc"), display_path="x")
    coloured = colorize(diff)
    assert "\x1b[31m-b\x1b[0m\n" in coloured
    assert "\x1b[2m\\ No newline at end of file\x1b[0m\n" in coloured
    assert " a\r\n" in coloured
