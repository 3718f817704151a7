"""Server processes started one test ahead, so a test does not wait for the server's imports.

Importing pygls and lsprotocol takes a second or more on a busy machine, and every e2e test
starts its own server. `SparePool.take` hands out a process that was started while the previous
test ran (same command and environment) and starts the next one at once. Each process gets
its own fresh `RUNE_STATE_DIR` (a caller that sets one gets a process started for it alone).
Processes are plain `subprocess.Popen`s, because each test runs
its own event loop; `ServerProcess` attaches their pipes to the loop of the test that uses them.
A spare nobody took is killed by `close()` (and exits by itself when its stdin closes).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

_POLL = 0.01
STATE_DIR = "RUNE_STATE_DIR"


class PipeWriter:
    """The server's stdin as pygls' writer (`write`, `close`)."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._pipe = pipe

    def write(self, data: bytes) -> None:
        with contextlib.suppress(BrokenPipeError, ValueError):  # the server already left
            self._pipe.write(data)
            self._pipe.flush()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._pipe.close()


class ServerProcess:
    """What pygls and pytest-lsp use of an `asyncio.subprocess.Process`, over a Popen."""

    def __init__(self, popen: subprocess.Popen[bytes], state_dir: Path) -> None:
        self.popen = popen
        self.state_dir = state_dir
        self.stdin = PipeWriter(_pipe(popen.stdin))
        self.stdout: asyncio.StreamReader | None = None
        self.stderr: asyncio.StreamReader | None = None
        self._transports: list[asyncio.BaseTransport] = []

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    async def attach(self) -> None:
        """Read stdout and stderr through the running loop."""
        self.stdout = await self._reader(_pipe(self.popen.stdout))
        self.stderr = await self._reader(_pipe(self.popen.stderr))

    async def _reader(self, pipe: IO[bytes]) -> asyncio.StreamReader:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=2**24)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        self._transports.append(transport)
        return reader

    async def wait(self) -> int:
        # A Popen offers nothing to await (and a thread blocked in wait() would outlive a
        # test that gives up on a hung server), so poll.
        while (code := self.popen.poll()) is None:  # noqa: ASYNC110
            await asyncio.sleep(_POLL)
        return code

    def terminate(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.popen.terminate()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.popen.kill()

    def detach(self) -> None:
        """Close the pipes' transports (before the test's loop closes)."""
        for transport in self._transports:
            transport.close()
        self._transports.clear()
        self.stdin.close()


class SparePool:
    def __init__(self) -> None:
        self._base: Path | None = None
        self._spare: tuple[tuple[tuple[str, ...], frozenset[tuple[str, str]]], ServerProcess] | None
        self._spare = None
        self._count = 0

    def take(self, command: Sequence[str], env: Mapping[str, str]) -> ServerProcess:
        """A started server for `command` and `env` (plus its own RUNE_STATE_DIR); the next one
        starts now. A caller that names its own RUNE_STATE_DIR gets a process started now."""
        if STATE_DIR in env:
            return _spawn(command, env, Path(env[STATE_DIR]))
        # pytest sets PYTEST_CURRENT_TEST per test; it must not make every spare a mismatch.
        env = {k: v for k, v in env.items() if k != "PYTEST_CURRENT_TEST"}
        key = (tuple(command), frozenset(env.items()))
        spare, self._spare = self._spare, None
        if spare is not None and (spare[0] != key or spare[1].returncode is not None):
            _stop(spare[1])
            spare = None
        process = spare[1] if spare is not None else self._start(command, env)
        self._spare = (key, self._start(command, env))
        return process

    def _start(self, command: Sequence[str], env: Mapping[str, str]) -> ServerProcess:
        if self._base is None:
            self._base = Path(tempfile.mkdtemp(prefix="rune-e2e-state-"))
        self._count += 1
        state_dir = self._base / f"server-{self._count}"
        return _spawn(command, {**env, STATE_DIR: str(state_dir)}, state_dir)

    def close(self) -> None:
        spare, self._spare = self._spare, None
        if spare is not None:
            _stop(spare[1])
        if self._base is not None:
            shutil.rmtree(self._base, ignore_errors=True)
            self._base = None


def _spawn(command: Sequence[str], env: Mapping[str, str], state_dir: Path) -> ServerProcess:
    popen = subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env),
    )
    return ServerProcess(popen, state_dir)


def _stop(process: ServerProcess) -> None:
    process.kill()
    process.popen.wait(timeout=10)
    for pipe in (process.popen.stdin, process.popen.stdout, process.popen.stderr):
        if pipe is not None:
            pipe.close()


def _pipe(pipe: IO[bytes] | None) -> IO[bytes]:
    if pipe is None:
        raise RuntimeError("the server process was started without a pipe")
    return pipe


SPARES = SparePool()

__all__ = ["SPARES", "ServerProcess", "SparePool"]
