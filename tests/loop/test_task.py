"""The task prompt numbers lines as the editor does (CONTRACT section 3: LSP positions)."""

from __future__ import annotations

from rune_lsp.loop.task import FixTask

#: Form feed, U+2028, NEL and a vertical tab inside lines, plus a lone `\r` (which does end one).
TEXT = "def a():\x0c\n    return 1\u2028  # tail\nx = '\x85'\x0b\ry = 2\nlast\n"


def test_the_excerpt_numbers_lines_as_lsp_does() -> None:
    prompt = FixTask(path="mod.py", text=TEXT, start_line=3, end_line=3).prompt()

    assert "Range: lines 4-4" in prompt
    assert "Excerpt (lines 1-5 of 5;" in prompt
    assert "    3 | x = '\x85'\x0b\n" in prompt
    assert "    4 | y = 2\n" in prompt  # the line the editor shows as line 4
    assert "    5 | last\n" in prompt
    assert "    2 |     return 1\u2028  # tail\n" in prompt


def test_a_crlf_file_has_no_extra_lines() -> None:
    prompt = FixTask(path="mod.py", text="a\r\nb\r\n").prompt()

    assert "Excerpt (lines 1-2 of 2;" in prompt
    assert "    2 | b\n" in prompt
