"""Server-sent events: lines in, the `data` of each complete event out.

Only `data` matters for chat completions; `event`, `id` and `retry` fields and comment lines
(`:` keep-alives) are read past. Several `data` lines of one event join with newlines, as the
SSE specification says.
"""

from __future__ import annotations


class SseDecoder:
    """`max_chars` bounds one event's data: lines of `data:` that never end in a blank line
    would otherwise be held without end. Past it, the event is dropped and `overflowed` set."""

    def __init__(self, max_chars: int | None = None) -> None:
        self._data: list[str] = []
        self._size = 0
        self._max_chars = max_chars
        self.overflowed = False

    def feed(self, line: str) -> str | None:
        """One line without its line break; returns an event's data when a blank line ends it."""
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        if field == "data" and not self.overflowed:
            value = value.removeprefix(" ")
            self._size += len(value)
            if self._max_chars is not None and self._size > self._max_chars:
                self.overflowed = True
                self._data = []
                return None
            self._data.append(value)
        return None

    def finish(self) -> str | None:
        """The data of a last event whose blank line never came."""
        return self._dispatch()

    def _dispatch(self) -> str | None:
        if not self._data:
            return None
        data = "\n".join(self._data)
        self._data = []
        self._size = 0
        return data
