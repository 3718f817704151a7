"""pytest-lsp's client, plus what the e2e tests need to see: all traffic, a strict stdout check.

- Every message in either direction is appended to `traffic` in the order the client saw it,
  so tests can assert on ordering (e.g. a plain applyEdit only after the accept command).
- The server's stdout must be pure JSON-RPC framing. pygls' reader silently skips a stray line,
  so a reader wrapper records anything that is not a header or a JSON body in
  `stdout_violations`; the fixtures fail a test that leaves any.
- The server's stderr is kept in `stderr_lines` (and forwarded, so pytest shows it on failure).
- The server process comes from `spares`: started one test ahead, with its own state dir.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from lsprotocol import types
from pygls.io_ import run_async
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, LanguageClientProtocol

from tests.e2e.spares import SPARES, ServerProcess

log = logging.getLogger(__name__)

_HEADER = re.compile(rb"(Content-Length: \d+|Content-Type: [^\r\n]*)?\r\n")


@dataclass(frozen=True)
class Traffic:
    seq: int
    direction: Literal["in", "out"]  # "in": from the server to the editor
    kind: Literal["request", "notification", "response"]
    method: str
    params: Any


class RecordingProtocol(LanguageClientProtocol):
    _server: EditorClient  # type: ignore[assignment]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._answered_raw: set[Any] = set()

    def answer_raw(self, body: str) -> None:
        """Answer the server's request being handled now with `body` as it is (`@ID@` stands
        for the request's id), framed correctly: a broken editor's answer. The handler's own
        result is then not sent."""
        msg_id = self.msg_id
        self._answered_raw.add(msg_id)
        data = body.replace("@ID@", json.dumps(msg_id)).encode()
        assert self.writer is not None
        self.writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(data), data))

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        if msg_id in self._answered_raw:
            self._answered_raw.discard(msg_id)
            return
        super()._send_response(msg_id, result, error)

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> Any:
        self._server.record("in", "request", method_name, params)
        return super()._handle_request(msg_id, method_name, params)

    def _handle_notification(self, method_name: str, params: Any) -> Any:
        self._server.record("in", "notification", method_name, params)
        return super()._handle_notification(method_name, params)

    def send_request(
        self, method: str, params: Any = None, callback: Any = None, msg_id: Any = None
    ) -> Any:
        self._server.record("out", "request", method, params)
        return super().send_request(method, params, callback, msg_id)

    def notify(self, method: str, params: Any = None) -> None:
        self._server.record("out", "notification", method, params)
        super().notify(method, params)


class FramedReader:
    """The server's stdout as pygls reads it, recording whatever is not LSP framing."""

    def __init__(self, reader: asyncio.StreamReader, violations: list[bytes]) -> None:
        self._reader = reader
        self._violations = violations

    async def readline(self) -> bytes:
        line = await self._reader.readline()
        if line and not _HEADER.fullmatch(line):
            self._violations.append(line[:200])
        return line

    async def readexactly(self, n: int) -> bytes:
        body = await self._reader.readexactly(n)
        try:
            json.loads(body)
        except ValueError:
            self._violations.append(body[:200])
        return body


def _command_or_code_action(converter: Any, value: Any) -> types.Command | types.CodeAction:
    # lsprotocol's own hook reads any object with a `command` key as a Command, so a CodeAction
    # that carries a command would come back mangled; a Command's `command` is a string.
    if isinstance(value.get("command"), str):
        return converter.structure(value, types.Command)  # type: ignore[no-any-return]
    return converter.structure(value, types.CodeAction)  # type: ignore[no-any-return]


class EditorClient(LanguageClient):
    def __init__(self) -> None:
        super().__init__(protocol_cls=RecordingProtocol, converter_factory=default_converter)
        converter = self.protocol._converter
        converter.register_structure_hook(
            types.Command | types.CodeAction,
            lambda value, _: _command_or_code_action(converter, value),
        )
        self.traffic: list[Traffic] = []
        self.stdout_violations: list[bytes] = []
        self.stderr_lines: list[str] = []
        self.on_traffic: list[Any] = []  # callables run after each recorded message
        self.process: ServerProcess | None = None
        self.state_dir: Path | None = None

    def record(self, direction: Literal["in", "out"], kind: Any, method: str, params: Any) -> None:
        self.traffic.append(Traffic(len(self.traffic), direction, kind, method, params))
        for callback in self.on_traffic:
            callback()

    async def start_io(self, cmd: str, *args: Any, env: dict[str, str] | None = None) -> None:
        # pygls' own start_io, on a process started ahead of time (see `spares`), with the
        # framing check between the pipe and the reader loop.
        process = SPARES.take([cmd, *args], env or {})
        await process.attach()
        assert process.stdout is not None and process.stderr is not None
        self.process = process
        self.state_dir = process.state_dir
        self.protocol.set_writer(process.stdin)
        connection = asyncio.create_task(
            run_async(
                stop_event=self._stop_event,
                reader=FramedReader(process.stdout, self.stdout_violations),  # type: ignore[arg-type]
                protocol=self.protocol,
                logger=log,
                error_handler=self.report_server_error,
            )
        )
        self._server = process  # type: ignore[assignment]
        notify_exit = asyncio.create_task(self._server_exit())
        self._async_tasks.extend([connection, notify_exit])
        self._stderr_forwarder = asyncio.create_task(self._keep_stderr(process.stderr))

    async def stop(self) -> None:
        await super().stop()
        if self.process is not None:
            self.process.detach()

    async def stderr_read(self, within: float) -> str:
        """The server's whole stderr, once its process closed it (an event, not a pause that a
        loaded machine may outlast)."""
        await asyncio.wait_for(asyncio.shield(self._stderr_forwarder), within)
        return "".join(self.stderr_lines)

    async def _keep_stderr(self, stderr: asyncio.StreamReader) -> None:
        while line := await stderr.readline():
            text = line.decode("utf-8", "replace")
            self.stderr_lines.append(text)
            sys.stderr.write(text)
