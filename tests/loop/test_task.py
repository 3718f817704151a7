"""The task prompt splits lines as the editor does (docs/interface.md: LSP positions) and shows
code as plain fenced code, without line numbers to copy."""

from __future__ import annotations

from rune_lsp.loop.task import FixTask, TaskDiagnostic, fenced, file_listing

#: Form feed, U+2028, NEL and a vertical tab inside lines, plus a lone `\r` (which does end one).
TEXT = "def a():\x0c\n    return 1\u2028  # tail\nx = '\x85'\x0b\ry = 2\nlast\n"


def test_the_range_is_quoted_with_the_lines_lsp_counts() -> None:
    prompt = FixTask(path="mod.py", text=TEXT, start_line=3, end_line=3).prompt()

    # Line 4 as the editor shows it: a lone \r ends line 3, U+2028 and NEL do not end lines.
    assert "Range: lines 4-4:\n```\ny = 2\n```\n" in prompt
    lsp_lines = TEXT[:-1].replace("\r", "\n")  # the lone \r ends a line, as LSP says
    assert f"Range: lines 4-4:\n```\ny = 2\n```\n```\n{lsp_lines}\n```\n" in prompt
    assert " | " not in prompt  # no copied-number gutter anywhere


def test_a_crlf_file_has_no_extra_lines() -> None:
    prompt = FixTask(path="mod.py", text="a\r\nb\r\n").prompt()
    assert "File: mod.py\n```\na\nb\n```\nMake the smallest change" in prompt


def test_a_long_file_shows_an_excerpt_around_the_range_and_says_so() -> None:
    text = "".join(f"x{n} = {n}\n" for n in range(1, 101))
    prompt = FixTask(path="big.py", text=text, start_line=59).prompt()
    assert "Excerpt (lines 40-80 of 100; use read_file for the rest):\n```\nx40 = 40\n" in prompt
    assert "x80 = 80\n```" in prompt and "x81 = 81" not in prompt


def test_a_diagnostic_quotes_its_line() -> None:
    diagnostic = TaskDiagnostic(line=1, message="undefined name 'b'", source="ruff")
    prompt = FixTask(path="m.py", text="def f():\n    return b\n", diagnostics=(diagnostic,))
    assert "- line 2 `return b`: error [ruff]: undefined name 'b'" in prompt.prompt()


def test_a_fence_is_longer_than_any_backticks_in_the_code() -> None:
    assert fenced(['s = "```"'], 100) == '````\ns = "```"\n````'
    assert file_listing("a.md", "") == "a.md is now empty."
