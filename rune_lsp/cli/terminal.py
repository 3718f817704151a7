"""What the terminal can do: colours, its width, typed answers read without blocking the event
loop, and the one gate every line the CLI prints passes (`shown_streams`)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import shutil
import sys
import threading
from collections.abc import Iterator, Mapping
from typing import Protocol, TextIO, cast

from rune_lsp.store.scrub import scrub_shown

#: Columns assumed when the output is no terminal (a pipe, a file, a test's capture).
DEFAULT_WIDTH = 80


def use_color(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Colour only for a terminal, and never when NO_COLOR is set (no-color.org) or TERM=dumb."""
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def width_of(stream: TextIO) -> int:
    """The terminal's columns for `stream`, or DEFAULT_WIDTH when it is no terminal."""
    isatty = getattr(stream, "isatty", None)
    if isatty is None or not isatty():
        return DEFAULT_WIDTH
    return max(20, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


class ShownStream(io.TextIOBase):
    """A text stream that writes to `stream` what `scrub_shown` leaves: the configured API
    key, a base URL's password and well-known token shapes masked. Each write is scrubbed
    whole, so a printer writes a line or a block at once, never a secret in pieces."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(scrub_shown(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()


@contextlib.contextmanager
def shown_streams() -> Iterator[None]:
    """While a command runs, everything it prints to stdout and stderr is scrubbed: the one
    place the CLI's output leaves the process (issue 25, item 2: the answer, the review and
    the result once showed the key the model quoted)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = cast(TextIO, ShownStream(out)), cast(TextIO, ShownStream(err))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


class AnswerSource(Protocol):
    async def readline(self) -> str:
        """The next line typed, with its newline; "" at end of input (and ever after)."""
        ...


class StdinAnswers:
    """Lines from a file descriptor (stdin), read by one daemon thread with `os.read`.

    Not `asyncio.to_thread`: a read still blocked when Ctrl-C cancels the run would keep
    `asyncio.run` waiting for the executor at exit. Not `sys.stdin` either: a daemon thread
    parked inside its buffered reader can abort the interpreter at shutdown.
    """

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._lines: asyncio.Queue[str] | None = None
        self._ended = False

    @classmethod
    def from_stdin(cls, stdin: TextIO | None) -> StdinAnswers:
        """Answers from `stdin`; one without a file descriptor (none, or replaced) has none."""
        try:
            return cls(stdin.fileno() if stdin is not None else -1)
        except (OSError, ValueError):
            return cls(-1)  # reading -1 fails at once: end of input, so nothing is approved

    async def readline(self) -> str:
        if self._ended:
            return ""
        if self._lines is None:
            self._lines = asyncio.Queue()
            reader = threading.Thread(
                target=self._pump,
                args=(asyncio.get_running_loop(), self._lines),
                name="rune-stdin",
                daemon=True,
            )
            reader.start()
        line = await self._lines.get()
        self._ended = line == ""
        return line

    def _pump(self, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str]) -> None:
        def deliver(data: bytes) -> None:
            text = data.decode("utf-8", errors="replace")
            # The loop is gone once the command has finished; nobody is asking any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(lines.put_nowait, text)

        buffered = b""
        while True:
            try:
                chunk = os.read(self._fd, 4096)
            except OSError:  # stdin closed or unusable: the same as end of input
                chunk = b""
            if not chunk:
                if buffered:
                    deliver(buffered)
                deliver(b"")
                return
            buffered += chunk
            while b"\n" in buffered:
                line, _, buffered = buffered.partition(b"\n")
                deliver(line + b"\n")
