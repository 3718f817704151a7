"""The event-loop stdin reader: what pygls' reader loop needs from it, on a real pipe."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from rune_lsp.server.stdio import MAX_HEADER_LINE, PipeReader, is_watchable


@pytest.fixture
def pipe() -> Iterator[tuple[BinaryIO, int]]:
    read_fd, write_fd = os.pipe()
    with open(read_fd, "rb", buffering=0) as reader:
        try:
            yield reader, write_fd
        finally:
            with contextlib.suppress(OSError):  # the test closed it
                os.close(write_fd)


def test_pipes_and_sockets_are_watched_files_and_buffers_are_not(tmp_path: Path) -> None:
    read_fd, write_fd = os.pipe()
    left, right = socket.socketpair()
    try:
        with open(read_fd, "rb", buffering=0) as piped:
            assert is_watchable(piped)
        assert is_watchable(left.makefile("rb"))
        regular = tmp_path / "frames"
        regular.write_bytes(b"")
        with regular.open("rb") as on_disk:
            assert not is_watchable(on_disk)  # epoll cannot watch a regular file
        assert not is_watchable(io.BytesIO(b""))  # no file descriptor at all
    finally:
        os.close(write_fd)
        left.close()
        right.close()


def test_a_socket_that_is_also_stdout_is_left_to_pygls() -> None:
    # socat and inetd hand a server one socket as stdin and stdout: switching it to
    # non-blocking mode for reading would make large writes to a slow client fail.
    left, right = socket.socketpair()
    try:
        stdin = left.makefile("rb")
        assert is_watchable(stdin, others=())
        assert not is_watchable(stdin, others=(left.fileno(),))
        duplicate = os.dup(left.fileno())  # another descriptor of the same socket
        try:
            assert not is_watchable(stdin, others=(duplicate,))
        finally:
            os.close(duplicate)
    finally:
        left.close()
        right.close()


async def test_closing_leaves_stdin_blocking_as_it_was_found(
    pipe: tuple[BinaryIO, int],
) -> None:
    stdin, _ = pipe
    reader = await PipeReader.open(stdin)
    assert not os.get_blocking(stdin.fileno())  # watched by the event loop meanwhile
    reader.close()
    assert os.get_blocking(stdin.fileno())


async def test_reads_header_lines_and_exact_bodies(pipe: tuple[BinaryIO, int]) -> None:
    stdin, write_fd = pipe
    reader = await PipeReader.open(stdin)
    os.write(write_fd, b"Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]")
    assert await reader.readline() == b"Content-Length: 2\r\n"
    assert await reader.readline() == b"\r\n"
    assert await reader.readexactly(2) == b"{}"
    assert await reader.readline() == b"Content-Length: 3\r\n"
    assert await reader.readline() == b"\r\n"
    assert await reader.readexactly(3) == b"[1]"
    reader.close()


async def test_end_of_input_reads_as_empty_and_a_cut_body_as_short(
    pipe: tuple[BinaryIO, int],
) -> None:
    stdin, write_fd = pipe
    reader = await PipeReader.open(stdin)
    os.write(write_fd, b'Content-Length: 10\r\n\r\n{"a"')
    os.close(write_fd)
    assert await reader.readline() == b"Content-Length: 10\r\n"
    assert await reader.readline() == b"\r\n"
    assert await reader.readexactly(10) == b'{"a"'  # pygls gives up on a short body
    assert await reader.readline() == b""  # and stops at the end of input
    reader.close()


async def test_an_overlong_line_reads_as_one_garbage_line(pipe: tuple[BinaryIO, int]) -> None:
    stdin, write_fd = pipe
    reader = await PipeReader.open(stdin)
    # Written from a thread: the pipe holds far less than the line.
    junk = b"x" * (MAX_HEADER_LINE + 10) + b"\r\nContent-Length: 2\r\n"
    writer = asyncio.get_running_loop().run_in_executor(None, os.write, write_fd, junk)
    line = await reader.readline()
    assert not line.startswith(b"Content-Length")  # a line pygls skips as no header
    rest = b""
    while not rest.endswith(b"Content-Length: 2\r\n"):
        rest = await reader.readline()
    await writer
    reader.close()


@pytest.mark.parametrize("watched", [True, False], ids=["pipe", "regular file"])
def test_a_body_that_is_not_json_costs_one_log_line_either_way(
    tmp_path: Path, watched: bool
) -> None:
    frames = b"".join(
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        for body in (b'{"jsonrpc": "2.0", "id": 1, "result": {"appl', b"\xff\xfe not utf-8")
    )
    source = tmp_path / "stdin.bin"
    source.write_bytes(frames)
    with source.open("rb") as on_disk:
        done = subprocess.run(
            [sys.executable, "-m", "rune_lsp"],
            input=frames if watched else None,
            stdin=None if watched else on_disk,
            capture_output=True,
            timeout=60,
        )
    assert done.returncode == 0
    stderr = done.stderr.decode()
    assert "Traceback" not in stderr, stderr
    assert stderr.count("unreadable message from the client") == 2, stderr
