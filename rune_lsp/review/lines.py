"""The line arithmetic of the diff, over lines as LSP counts them (`rune_lsp.lines` owns what a
line is: only `\\n`, `\\r\\n` and `\\r` end one)."""

from __future__ import annotations


class Text:
    """A text and the line arithmetic the diff needs, searching only where it is told to.

    Whether the text holds any `\\r` is looked up once: most files have none, and then every
    search is a single `find` for `\\n` instead of one for each terminator.
    """

    __slots__ = ("has_cr", "value")

    def __init__(self, value: str) -> None:
        self.value = value
        self.has_cr = "\r" in value

    def __len__(self) -> int:
        return len(self.value)

    def terminators(self, start: int, stop: int) -> int:
        """How many lines end in `value[start:stop]` (a `\\r\\n` counts once)."""
        newlines = self.value.count("\n", start, stop)
        if not self.has_cr:
            return newlines
        return (
            newlines + self.value.count("\r", start, stop) - self.value.count("\r\n", start, stop)
        )

    def is_boundary(self, offset: int) -> bool:
        """Whether `offset` falls between two lines (the two ends of the text included)."""
        text = self.value
        if offset <= 0 or offset >= len(text):
            return offset == 0 or offset == len(text)
        before = text[offset - 1]
        return before == "\n" or (before == "\r" and text[offset] != "\n")

    def line_end(self, start: int, stop: int) -> int:
        """Where the line running through `start` ends (after its terminator), at most `stop`."""
        text = self.value
        newline = text.find("\n", start, stop)
        if self.has_cr:
            carriage = text.find("\r", start, stop if newline < 0 else newline)
            if carriage >= 0:
                return carriage + 2 if carriage + 1 == newline else carriage + 1
        return stop if newline < 0 else newline + 1

    def last_boundary(self, start: int, stop: int) -> int:
        """The last line boundary in `[start, stop]`; `start` when there is none before."""
        text, offset = self.value, stop
        while offset > start and not self.is_boundary(offset):
            newline = text.rfind("\n", start, offset - 1)
            carriage = text.rfind("\r", max(newline, start), offset - 1) if self.has_cr else -1
            offset = max(newline, carriage, start - 1) + 1
        return offset

    def next_boundary(self, start: int, stop: int) -> int:
        """The first line boundary in `[start, stop]`; `stop` when there is none before."""
        offset = start
        while offset < stop and not self.is_boundary(offset):
            offset = self.line_end(offset, stop)
        return offset
