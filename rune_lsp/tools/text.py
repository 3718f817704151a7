"""Line handling shared by the tools, so line numbers agree between read, search and edit.

A line ends at `\n` (a preceding `\r` belongs to the ending, not the text), as in ripgrep.
"""

from __future__ import annotations

from collections.abc import Iterator


def iter_lines(text: str) -> Iterator[str]:
    """The lines of `text` without their endings; a final newline starts no extra line."""
    start = 0
    length = len(text)
    while start < length:
        end = text.find("\n", start)
        if end == -1:
            end = length
        line = text[start:end]
        yield line[:-1] if line.endswith("\r") else line
        start = end + 1


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)
