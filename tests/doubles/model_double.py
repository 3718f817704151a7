"""A real model server on 127.0.0.1 for tests: Ollama's and the OpenAI-compatible wire formats.

It runs in a background thread, so an in-process async client and a language server running as
a subprocess can both talk to it. Chat answers come from a script (a queue of `Reply` and fault
values), or from a `responder` callable for dynamic scenarios, or else from `default`.

    with ModelDouble() as double:
        double.script(Reply(tool_calls=(Call("read_file", {"path": "a.py"}),)), Reply(text="ok"))
        settings = Settings(provider="ollama", base_url=double.ollama_url, model="qwen3:14b")
        ...
        assert double.chat_requests[0].body["tools"][0]["function"]["name"] == "read_file"

Endpoints: `/api/chat` (NDJSON streamed, or one JSON object with `stream: false`), `/api/show`,
`/api/tags`; `/v1/chat/completions` (SSE streamed with `stream: true`, JSON otherwise),
`/v1/models`. Like the real servers it answers 404 for a model it does not serve (unless
`serve_any_model`, as llama.cpp does), 400 for `tools` to a model without the `tools`
capability and for Ollama's `think` to one without `thinking`, and 401 when `api_key` is set
and not presented as a bearer token.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from tests.doubles import ollama_format, openai_format
from tests.doubles.answers import Answer, text_answer
from tests.doubles.replies import (
    Call,
    CutStream,
    Disconnect,
    Endless,
    FailMidStream,
    Fault,
    Hang,
    HttpError,
    InvalidJson,
    ModelInfo,
    ModelMissing,
    RateLimited,
    RecordedRequest,
    Reply,
    Responder,
    Scripted,
    ToolsRejected,
)

__all__ = [
    "Call",
    "CutStream",
    "Disconnect",
    "Endless",
    "FailMidStream",
    "Fault",
    "Hang",
    "HttpError",
    "InvalidJson",
    "ModelDouble",
    "ModelInfo",
    "ModelMissing",
    "RateLimited",
    "RecordedRequest",
    "Reply",
    "Responder",
    "Scripted",
    "ToolsRejected",
]

DEFAULT_REPLY = Reply(text="done")
_POLL = 0.02  # seconds between checks for a client that left or a double that stops


class ModelDouble:
    def __init__(
        self,
        *,
        models: Iterable[ModelInfo] = (ModelInfo("qwen3:14b"),),
        default: Scripted = DEFAULT_REPLY,
        responder: Responder | None = None,
        api_key: str | None = None,
        serve_any_model: bool = False,
        port: int = 0,
    ) -> None:
        self.models = tuple(models)
        # llama.cpp answers with its one loaded model whatever name a request gives.
        self.serve_any_model = serve_any_model
        self.default = default
        self.responder = responder
        self.api_key = api_key
        self._script: deque[Scripted] = deque()
        self._requests: list[RecordedRequest] = []
        self._disconnects: list[Disconnect] = []
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        # 0 picks a free port on start; after that the double keeps it, so `start()` after
        # `stop()` comes back at the same URL.
        self.port = port

    # --- lifecycle --------------------------------------------------------------------------

    def start(self) -> ModelDouble:
        self._stopping.clear()
        self._server = _Server(("127.0.0.1", self.port), _Handler, self)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"model-double:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stops listening and drops every open connection; the port then refuses."""
        self._stopping.set()
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        server.drop_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def refuse_connections(self) -> None:
        """Stop listening but keep `port`, so clients configured with the URL get refused."""
        self.stop()

    def __enter__(self) -> ModelDouble:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def ollama_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def base_url(self, provider: str) -> str:
        return self.ollama_url if provider == "ollama" else self.openai_url

    # --- scripting --------------------------------------------------------------------------

    def script(self, *items: Scripted) -> None:
        """Queue answers for the next chat requests, in order."""
        with self._changed:
            self._script.extend(items)

    @property
    def remaining(self) -> int:
        with self._changed:
            return len(self._script)

    def _next_answer(self, request: RecordedRequest) -> Scripted:
        if self.responder is not None:
            return self.responder(request)
        with self._changed:
            return self._script.popleft() if self._script else self.default

    # --- records ----------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._changed:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.is_chat]

    def last_chat_body(self) -> Any:
        chats = self.chat_requests
        if not chats:
            raise AssertionError("the double received no chat request")
        return chats[-1].body

    def wait_for_chat(self, timeout: float, count: int = 1) -> bool:
        """Whether `count` chat requests arrived within `timeout` seconds (blocking: call it
        through `asyncio.to_thread` from async code)."""
        with self._changed:
            return self._changed.wait_for(
                lambda: sum(r.is_chat for r in self._requests) >= count, timeout=timeout
            )

    def wait_for_disconnect(self, timeout: float) -> Disconnect | None:
        """The first time a client left mid-answer, waiting up to `timeout` seconds for it."""
        with self._changed:
            self._changed.wait_for(lambda: bool(self._disconnects), timeout=timeout)
            return self._disconnects[0] if self._disconnects else None

    def _record(self, request: RecordedRequest) -> None:
        with self._changed:
            self._requests.append(request)
            self._changed.notify_all()

    def _record_disconnect(self, path: str) -> None:
        with self._changed:
            self._disconnects.append(Disconnect(path=path, at=time.monotonic()))
            self._changed.notify_all()

    def _model(self, name: object) -> ModelInfo | None:
        # Like Ollama, `qwen3` names `qwen3:latest`.
        for model in self.models:
            if name in (model.name, f"{model.name}:latest") or model.name == f"{name}:latest":
                return model
        if self.serve_any_model and self.models:
            return self.models[0]
        return None

    # --- routing ----------------------------------------------------------------------------

    def _answer(self, request: RecordedRequest) -> Answer:
        refusal = self._refuse_unauthorized(request)
        if refusal is not None:
            return refusal
        body = request.body if isinstance(request.body, dict) else {}
        match (request.method, request.path):
            case ("GET", "/api/tags"):
                return ollama_format.tags(self.models)
            case ("POST", "/api/show"):
                model = self._model(body.get("model"))
                if model is None:
                    return ollama_format.model_missing(str(body.get("model")))
                return ollama_format.show(model)
            case ("POST", "/api/chat"):
                return self._ollama_chat(request, body)
            case ("GET", "/v1/models"):
                return openai_format.models(self.models)
            case ("POST", "/v1/chat/completions"):
                return self._openai_chat(request, body)
        return text_answer("404 page not found", 404)

    def _refuse_unauthorized(self, request: RecordedRequest) -> Answer | None:
        if self.api_key is None:
            return None
        given = request.headers.get("authorization", "").removeprefix("Bearer ")
        if given == self.api_key:
            return None
        # Real servers quote the key they got; the client must not repeat it to users.
        message = f"Incorrect API key provided: {given or '(none)'}"
        if request.path.startswith("/v1/"):
            return openai_format.error(401, message, "invalid_api_key")
        return ollama_format.error(401, message)

    def _ollama_chat(self, request: RecordedRequest, body: dict[str, Any]) -> Answer:
        name = str(body.get("model"))
        model = self._model(name)
        if model is None:
            return ollama_format.model_missing(name)
        if body.get("tools") and "tools" not in model.capabilities:
            return ollama_format.tools_rejected(name)
        if body.get("think") and "thinking" not in model.capabilities:
            return ollama_format.thinking_rejected(name)
        return ollama_format.chat(
            self._next_answer(request),
            model=name,
            stream=body.get("stream", True) is not False,
            think=bool(body.get("think")),
        )

    def _openai_chat(self, request: RecordedRequest, body: dict[str, Any]) -> Answer:
        name = str(body.get("model"))
        model = self._model(name)
        if model is None:
            return openai_format.model_missing(name)
        if body.get("tools") and "tools" not in model.capabilities:
            return openai_format.tools_rejected()
        options = body.get("stream_options")
        return openai_format.chat(
            self._next_answer(request),
            model=name,
            stream=body.get("stream") is True,
            include_usage=isinstance(options, dict) and options.get("include_usage") is True,
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self, address: tuple[str, int], handler: type[_Handler], double: ModelDouble
    ) -> None:
        self.double = double
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()
        with self._connections_lock:
            self._connections.add(connection)
        return connection, address

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class _ClientLeft(Exception):
    pass


class _Stopping(Exception):
    pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small streamed chunks must not wait for ACKs
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        # The test output is no place for an access log.
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        double = self.server.double
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            raw_body=raw,
        )
        double._record(request)
        try:
            self._send(double._answer(request))
        except _Stopping:
            self.close_connection = True
        except (_ClientLeft, BrokenPipeError, ConnectionResetError):
            if not double._stopping.is_set():
                double._record_disconnect(self.path)
            self.close_connection = True

    def _send(self, answer: Answer) -> None:
        if answer.hang_after == 0 or (answer.body is not None and answer.hang_after is not None):
            self._wait(None)
            return
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        for name, value in answer.headers:
            self.send_header(name, value)
        if answer.body is not None:
            self._send_body(answer)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for index, chunk in enumerate(answer.chunks):
            if index == answer.cut_after:
                self._cut()
                return
            if index == answer.hang_after:
                self._wait(None)
                return
            if index and answer.chunk_delay:
                self._wait(answer.chunk_delay)
            self._write_chunk(chunk)
        if answer.endless is not None:
            self._send_endless(answer.endless)
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _write_chunk(self, chunk: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.flush()

    def _send_endless(self, make: Callable[[int], bytes]) -> None:
        """Chunks for as long as the client reads them (a write to a closed socket raises)."""
        index = 0
        while not self.server.double._stopping.is_set():
            self._write_chunk(make(index))
            index += 1
        raise _Stopping

    def _send_body(self, answer: Answer) -> None:
        assert answer.body is not None
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        if answer.cut_after is not None:
            self.wfile.write(answer.body[: len(answer.body) // 2])
            self._cut()
            return
        self.wfile.write(answer.body)
        self.wfile.flush()

    def _cut(self) -> None:
        self.wfile.flush()
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

    def _wait(self, seconds: float | None) -> None:
        """Sleep `seconds` (None: for ever), raising if the client leaves or the double stops."""
        double = self.server.double
        deadline = None if seconds is None else time.monotonic() + seconds
        while not double._stopping.is_set():
            remaining = _POLL if deadline is None else deadline - time.monotonic()
            if remaining <= 0:
                return
            readable, _, _ = select.select([self.connection], [], [], min(_POLL, remaining))
            if readable:
                try:
                    peeked = self.connection.recv(1, socket.MSG_PEEK)
                except OSError:
                    peeked = b""
                if not peeked:
                    raise _ClientLeft
                time.sleep(_POLL)  # the client sent more (a pipelined request): not ours
        raise _Stopping
