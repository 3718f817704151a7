"""Reading the editor's messages from stdin on the event loop itself.

pygls reads stdin in a worker thread, one `readline` or `read` per hop, so every message costs
three round trips between that thread and the event loop. While runs stream from a model the
loop is busy, those hops queue behind it, and the editor feels it as code-action latency. When
stdin is a pipe or a socket (as an editor starts a server) asyncio can watch it directly; for
anything else (a regular file, a terminal, another platform) pygls' own reader stays.
"""

from __future__ import annotations

import asyncio
import os
import stat
from typing import BinaryIO

#: Longest header line kept; a longer one is garbage and is skipped as one line.
MAX_HEADER_LINE = 1 << 20


def is_watchable(stream: BinaryIO) -> bool:
    """A pipe or socket on POSIX: selectable, and not shared with stdout the way a terminal
    is (watching it switches the file to non-blocking mode)."""
    if os.name != "posix":
        return False
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):  # no real file descriptor (a test's BytesIO, say)
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class PipeReader:
    """pygls' `AsyncReader` over stdin, read by the event loop without threads."""

    def __init__(self, stream: asyncio.StreamReader, transport: asyncio.ReadTransport) -> None:
        self._stream = stream
        self._transport = transport

    @classmethod
    async def open(cls, stdin: BinaryIO) -> PipeReader:
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader(limit=MAX_HEADER_LINE)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream), stdin
        )
        return cls(stream, transport)

    async def readline(self) -> bytes:
        try:
            return await self._stream.readline()
        except ValueError:
            # Over the limit: asyncio has dropped what it buffered. Hand pygls a line that is
            # no header, so it goes on to the next frame as it does for any garbage line.
            return b"<header line too long>\r\n"

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._stream.readexactly(n)
        except asyncio.IncompleteReadError as cut:
            return cut.partial  # stdin closed mid-body: pygls stops on what is short

    def close(self) -> None:
        self._transport.close()
