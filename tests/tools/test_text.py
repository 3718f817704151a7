from __future__ import annotations

from pathlib import Path

import pytest

from rune_lsp.tools.paths import display_path
from rune_lsp.tools.text import count_lines, iter_lines


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("a", ["a"]),
        ("a\n", ["a"]),
        ("a\n\n", ["a", ""]),
        ("a\r\nb", ["a", "b"]),
        ("a\x0cb\u2028c\n", ["a\x0cb\u2028c"]),  # only \n ends a line, as in ripgrep
    ],
)
def test_lines_and_their_count_agree(text: str, lines: list[str]) -> None:
    assert list(iter_lines(text)) == lines
    assert count_lines(text) == len(lines)


def test_display_path() -> None:
    root = Path("/ws")
    assert display_path(Path("/ws/src/a.py"), root) == "src/a.py"
    assert display_path(root, root) == "."
    assert display_path(Path("/elsewhere/x"), root) == "/elsewhere/x"
