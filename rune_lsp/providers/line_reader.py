"""A streamed body as lines, each bounded: what NDJSON (Ollama) and SSE (OpenAI) are read from.

The line breaks are HTTP's and JSON's: `\n`, `\r\n` or `\r`, also when a `\r\n` arrives split
between two chunks.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx

from rune_lsp.providers.stream_limits import MAX_LINE_BYTES

_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


class LineReader:
    """The lines of a streamed body (without their breaks: `\n`, `\r\n` or `\r`), none
    held longer than `limit` bytes: a longer one ends the reading with `overflowed` set, since
    holding it would grow memory with whatever the server sends."""

    def __init__(self, response: httpx.Response, limit: int = MAX_LINE_BYTES) -> None:
        self._response = response
        self._limit = limit
        self.overflowed = False

    async def __aiter__(self) -> AsyncIterator[str]:
        buffer = bytearray()
        async for chunk in self._response.aiter_bytes():
            buffer += chunk
            start = 0
            for found in _LINE_BREAK.finditer(buffer):
                if found.group() == b"\r" and found.end() == len(buffer):
                    break  # maybe the first half of a `\r\n` split between chunks
                yield _decoded(buffer[start : found.start()])
                start = found.end()
            del buffer[:start]
            if len(buffer) > self._limit:
                self.overflowed = True
                return
        if buffer:
            yield _decoded(buffer.rstrip(b"\r"))


def _decoded(line: bytes | bytearray) -> str:
    # JSON wire formats are UTF-8; a broken byte must not end the answer.
    return line.decode("utf-8", errors="replace")
