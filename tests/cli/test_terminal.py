"""Colour decisions and the stdin answer reader."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import AsyncIterator

import pytest

from rune_lsp.cli.terminal import StdinAnswers, use_color


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stream", "environ", "expected"),
    [
        (_Tty(), {}, True),
        (_Tty(), {"TERM": "xterm-256color"}, True),
        (_Tty(), {"NO_COLOR": "1"}, False),
        (_Tty(), {"NO_COLOR": ""}, True),  # no-color.org: only a non-empty value counts
        (_Tty(), {"TERM": "dumb"}, False),
        (io.StringIO(), {}, False),
    ],
)
def test_use_color(stream: io.StringIO, environ: dict[str, str], expected: bool) -> None:
    assert use_color(stream, environ) is expected


class Typist:
    """The write end of the pipe; closing it twice is harmless."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def type(self, data: bytes) -> None:
        assert self._fd is not None
        os.write(self._fd, data)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


@contextlib.asynccontextmanager
async def piped_answers() -> AsyncIterator[tuple[StdinAnswers, Typist]]:
    """StdinAnswers over a fresh pipe, and the pipe's write end.

    Its reader thread is drained to end of input before the read end is closed: a thread still
    reading a closed descriptor number would read whatever pipe the next test gets under it.
    """
    read, write = os.pipe()
    answers, typist = StdinAnswers(read), Typist(write)
    try:
        yield answers, typist
    finally:
        typist.close()
        while await answers.readline():
            pass
        os.close(read)


async def test_lines_arrive_one_per_call_and_end_of_input_stays() -> None:
    async with piped_answers() as (answers, typist):
        typist.type(b"y\nn\nq")
        typist.close()
        assert [await answers.readline() for _ in range(5)] == ["y\n", "n\n", "q", "", ""]


async def test_a_line_split_across_writes_is_one_answer() -> None:
    async with piped_answers() as (answers, typist):
        typist.type(b"ye")
        typist.type(b"s\n")
        assert await answers.readline() == "yes\n"


async def test_undecodable_bytes_do_not_break_reading() -> None:
    async with piped_answers() as (answers, typist):
        typist.type(b"\xff\n")
        assert await answers.readline() == "\ufffd\n"


async def test_a_stdin_without_a_descriptor_is_end_of_input() -> None:
    class NoFd(io.StringIO):
        def fileno(self) -> int:
            raise io.UnsupportedOperation("fileno")

    assert await StdinAnswers.from_stdin(NoFd()).readline() == ""
    assert await StdinAnswers.from_stdin(None).readline() == ""
