"""Lines the way LSP counts them: only `\\n`, `\\r\\n` and `\\r` end a line.

`str.splitlines` also breaks on form feeds, `\\x1c`..`\\x1e`, NEL and the Unicode line
separators; an editor does not, so line numbers computed from it would disagree with the
editor's. This is the one owner of what a line is wherever a line number reaches the user or
the model: the task prompt, the review's hunks and diffs, the terminal's `PATH:LINE`. It imports
nothing, so every layer (the loop included) may use it.
"""

from __future__ import annotations

import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
# Characters `str.splitlines` treats as line breaks but LSP does not.
_EXTRA_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its own terminator; the last may have none."""
    if any(mark in text for mark in _EXTRA_BREAKS):
        return _LINE.findall(text)
    return text.splitlines(keepends=True)  # the fastest splitter, exact without those marks


def line_texts(text: str) -> list[str]:
    """The lines of `text` without their terminators (`str.splitlines()`, LSP's way)."""
    return [strip_terminator(line) for line in split_lines(text)]


def line_count(text: str) -> int:
    """How many lines `split_lines(text)` returns."""
    if not text:
        return 0
    ends = text.count("\n")
    if "\r" in text:
        ends += text.count("\r") - text.count("\r\n")
    return ends + (text[-1] not in "\r\n")


def strip_terminator(line: str) -> str:
    """A line's content without its terminator."""
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith(("\n", "\r")):
        return line[:-1]
    return line


#: The numbering `read_file` and the task's excerpt put before each line (`   12 | code`),
#: which small models copy into the text they send back.
_COPIED_NUMBER = re.compile(r"^[ \t]*(\d+) \|(?: |$)")


def without_copied_numbers(lines: list[str]) -> list[str] | None:
    """`lines` without their `N | ` prefixes when every non-blank one has one, else None."""
    if not any(line.strip() for line in lines):
        return None
    if not all(_COPIED_NUMBER.match(line) for line in lines if line.strip()):
        return None
    return [_COPIED_NUMBER.sub("", line, count=1) if line.strip() else line for line in lines]


def copied_numbers(lines: list[str]) -> list[int] | None:
    """The line numbers `lines` copied (one per non-blank line, in order) when every non-blank
    one has one (see `without_copied_numbers`), else None."""
    found = [_COPIED_NUMBER.match(line) for line in lines if line.strip()]
    if not found or not all(found):
        return None
    return [int(m.group(1)) for m in found if m is not None]


def strip_copied_numbers(text: str) -> str | None:
    """`text` without copied `N | ` prefixes (see `without_copied_numbers`), else None."""
    lines = without_copied_numbers(split_lines(text))
    return None if lines is None else "".join(lines)
