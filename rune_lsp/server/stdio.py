"""Reading the editor's messages from stdin on the event loop itself.

pygls reads stdin in a worker thread, one `readline` or `read` per hop, so every message costs
three round trips between that thread and the event loop. While runs stream from a model the
loop is busy, those hops queue behind it, and the editor feels it as code-action latency. When
stdin is a pipe or a socket of its own (as an editor starts a server) asyncio watches it
directly; for anything else (a regular file, a terminal, a socket that is stdout as well,
another platform) pygls' own reader stays.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from typing import BinaryIO

#: Longest header line kept; a longer one is garbage and is skipped as one line.
MAX_HEADER_LINE = 1 << 20


def is_watchable(stream: BinaryIO, *, others: tuple[int, ...] = (1, 2)) -> bool:
    """A pipe or socket on POSIX that is not also one of `others` (stdout, stderr).

    Watching switches the file to non-blocking mode, and that mode belongs to the file, not to
    the descriptor: were stdout the same socket (socat, inetd), a large write to a client that
    is slow to read would fail half-way. A terminal is always shared like that.
    """
    if os.name != "posix":
        return False
    try:
        found = os.fstat(stream.fileno())
    except (OSError, ValueError):  # no real file descriptor (a test's BytesIO, say)
        return False
    if not (stat.S_ISFIFO(found.st_mode) or stat.S_ISSOCK(found.st_mode)):
        return False
    return not any(_same_file(found, fd) for fd in others)


def _same_file(found: os.stat_result, fd: int) -> bool:
    try:
        other = os.fstat(fd)
    except OSError:  # closed
        return False
    return (other.st_dev, other.st_ino) == (found.st_dev, found.st_ino)


class PipeReader:
    """pygls' `AsyncReader` over stdin, read by the event loop without threads."""

    def __init__(
        self, stream: asyncio.StreamReader, transport: asyncio.ReadTransport, fd: int
    ) -> None:
        self._stream = stream
        self._transport = transport
        self._fd = fd

    @classmethod
    async def open(cls, stdin: BinaryIO) -> PipeReader:
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader(limit=MAX_HEADER_LINE)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream), stdin
        )
        return cls(stream, transport, stdin.fileno())

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
        # Blocking again, as the file was found: whoever reads the same stdin after the
        # server (a wrapper shell) would otherwise get EAGAIN.
        with contextlib.suppress(OSError):
            os.set_blocking(self._fd, True)
        self._transport.close()
