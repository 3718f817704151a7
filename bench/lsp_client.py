"""A minimal JSON-RPC-over-stdio LSP client: enough to time servers without a framework in the way.

It answers the server's own requests from a table of handlers (null for anything unknown, as
a lenient editor would), counts notifications, and never reads more than the framing needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ServerRequestHandler = Callable[[Any], Any]


class LspError(Exception):
    """The server answered a request with a JSON-RPC error, or went away before answering."""

    def __init__(self, method: str, error: Any) -> None:
        super().__init__(f"{method}: {error}")
        self.method = method
        self.error = error


def frame(message: Mapping[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class LspClient:
    def __init__(
        self,
        process: asyncio.subprocess.Process,
        handlers: Mapping[str, ServerRequestHandler] | None = None,
    ) -> None:
        if process.stdin is None or process.stdout is None:
            raise ValueError("the server process needs piped stdin and stdout")
        self.process = process
        self._stdin = process.stdin
        self._stdout = process.stdout
        self.handlers = dict(handlers or {})
        self.notifications: Counter[str] = Counter()
        self.messages: list[str] = []  # window/showMessage texts, for diagnosing a failed run
        self._pending: dict[int, tuple[str, asyncio.Future[Any]]] = {}
        self._next_id = 0
        self._reader = asyncio.create_task(self._read_loop())

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        stderr_path: Path | None = None,
        handlers: Mapping[str, ServerRequestHandler] | None = None,
    ) -> LspClient:
        stderr: Any = asyncio.subprocess.DEVNULL
        if stderr_path is not None:
            stderr = stderr_path.open("ab")
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                cwd=cwd,
                env=dict(env) if env is not None else None,
            )
        finally:
            if stderr_path is not None:
                stderr.close()  # the child holds its own copy
        return cls(process, handlers)

    @property
    def pid(self) -> int:
        return self.process.pid

    # --- sending ------------------------------------------------------------------------------

    def send_request(self, method: str, params: Any) -> tuple[int, asyncio.Future[Any]]:
        """Send without waiting: the id (for `$/cancelRequest`) and the future of the result."""
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[self._next_id] = (method, future)
        message = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self._stdin.write(frame(message))
        return self._next_id, future

    async def request(self, method: str, params: Any = None, within: float = 120) -> Any:
        _, future = self.send_request(method, params)
        await self._stdin.drain()
        return await asyncio.wait_for(future, within)

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._stdin.write(frame(message))

    # --- receiving ----------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        try:
            while True:
                message = await self._read_message()
                if message is None:
                    break
                self._dispatch(message)
        finally:
            for method, future in self._pending.values():
                if not future.done():
                    future.set_exception(LspError(method, "the server closed its output"))
            self._pending.clear()

    async def _read_message(self) -> Any:
        length = None
        while True:
            try:
                line = await self._stdout.readuntil(b"\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return None
            if line == b"\r\n":
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length is None:
            return None
        try:
            body = await self._stdout.readexactly(length)
        except asyncio.IncompleteReadError:
            return None
        return json.loads(body)

    def _dispatch(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        method = message.get("method")
        if method is None:
            entry = self._pending.pop(message.get("id", -1), None)
            if entry is None or entry[1].done():
                return
            name, future = entry
            if "error" in message:
                future.set_exception(LspError(name, message["error"]))
            else:
                future.set_result(message.get("result"))
            return
        if "id" in message:
            self._answer(message["id"], method, message.get("params"))
            return
        self.notifications[method] += 1
        if method == "window/showMessage":
            params = message.get("params") or {}
            self.messages.append(str(params.get("message", "")))

    def _answer(self, request_id: Any, method: str, params: Any) -> None:
        handler = self.handlers.get(method)
        result = handler(params) if handler is not None else None
        self._stdin.write(frame({"jsonrpc": "2.0", "id": request_id, "result": result}))

    # --- ending -------------------------------------------------------------------------------

    async def close(self, within: float = 5) -> None:
        """`shutdown` then `exit`; a server that does not leave in time is killed."""
        if self.process.returncode is None:
            with contextlib.suppress(LspError, OSError, TimeoutError, ConnectionError):
                await self.request("shutdown", None, within=within)
                self.notify("exit")
                await self._stdin.drain()
            with contextlib.suppress(OSError, ConnectionError):
                self._stdin.close()
            try:
                await asyncio.wait_for(self.process.wait(), within)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                await self.process.wait()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


def rss_kib(pid: int) -> int:
    """VmRSS of a live process, in KiB, from /proc (Linux only)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise OSError(f"no VmRSS for pid {pid}")


def cpu_seconds(pid: int) -> float:
    """CPU time all threads of a live process have run so far, from /proc/<pid>/task/*/schedstat.

    Unlike wall time, this barely moves when other processes load the machine.
    """
    total_ns = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total_ns += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that just ended
    return total_ns / 1e9


def server_env() -> dict[str, str]:
    """This environment without RUNE_* overrides, which would beat the bench's settings."""
    return {k: v for k, v in os.environ.items() if not k.startswith("RUNE_")}
