"""Server-sent events: lines in, the `data` of each complete event out.

Only `data` matters for chat completions; `event`, `id` and `retry` fields and comment lines
(`:` keep-alives) are read past. Several `data` lines of one event join with newlines, as the
SSE specification says.
"""

from __future__ import annotations


class SseDecoder:
    def __init__(self) -> None:
        self._data: list[str] = []

    def feed(self, line: str) -> str | None:
        """One line without its line break; returns an event's data when a blank line ends it."""
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        if field == "data":
            self._data.append(value.removeprefix(" "))
        return None

    def finish(self) -> str | None:
        """The data of a last event whose blank line never came."""
        return self._dispatch()

    def _dispatch(self) -> str | None:
        if not self._data:
            return None
        data = "\n".join(self._data)
        self._data = []
        return data
