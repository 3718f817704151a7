"""A counting pass-through in front of llama-server, so every arm is measured the same way.

Each agent (rune-lsp, Aider) talks to this proxy as its OpenAI-compatible endpoint. It forwards
each request to llama-server unchanged, streams the answer back as it arrives, and reads the
server's own `timings` from the answer (streamed or whole): prompt tokens processed, prompt
tokens reused from the cache, tokens generated, and the request's wall time. Nothing here
depends on how an agent counts tokens.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

#: Generous: a turn's limit is the agent's business; the proxy must never be the one to cut it.
UPSTREAM_TIMEOUT = 900.0
_HOP_HEADERS = frozenset({"connection", "transfer-encoding", "content-length", "keep-alive"})


@dataclass(frozen=True)
class Exchange:
    """One model request as llama-server answered it."""

    path: str
    status: int
    seconds: float
    processed_tokens: int  # prompt tokens evaluated (timings.prompt_n)
    cached_tokens: int  # prompt tokens reused from the server's cache (timings.cache_n)
    completion_tokens: int  # timings.predicted_n
    finished: bool = True  # False: cut before the server's last chunk (its tokens are unknown)

    @property
    def prompt_tokens(self) -> int:
        return self.processed_tokens + self.cached_tokens


def read_timings(body: bytes) -> dict[str, Any]:
    """The last `timings` object in a JSON answer or an SSE stream ({} when there is none)."""
    text = body.decode("utf-8", errors="replace")
    candidates = [text]
    if "data:" in text:
        candidates = [
            line[len("data:") :].strip() for line in text.splitlines() if line.startswith("data:")
        ]
    found: dict[str, Any] = {}
    for candidate in candidates:
        try:
            event = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(event, dict) and isinstance(event.get("timings"), dict):
            found = event["timings"]
    return found


def _exchange(path: str, status: int, started: float, body: bytes) -> Exchange:
    timings = read_timings(body)
    return Exchange(
        path=path,
        status=status,
        seconds=time.perf_counter() - started,
        processed_tokens=int(timings.get("prompt_n", 0)),
        cached_tokens=int(timings.get("cache_n", 0)),
        completion_tokens=int(timings.get("predicted_n", 0)),
        finished=bool(timings),
    )


class CountingProxy:
    """`with CountingProxy(upstream) as proxy:` an endpoint at `proxy.base_url`; `take()`
    returns (and forgets) the exchanges since the last call."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")  # e.g. http://127.0.0.1:PORT (no /v1)
        self._lock = threading.Lock()
        self._exchanges: list[Exchange] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def take(self) -> list[Exchange]:
        with self._lock:
            taken, self._exchanges = self._exchanges, []
        return taken

    def _record(self, exchange: Exchange) -> None:
        with self._lock:
            self._exchanges.append(exchange)

    def __enter__(self) -> CountingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._forward(None)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self._forward(self.rfile.read(length))

            def _forward(self, body: bytes | None) -> None:
                started = time.perf_counter()
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in _HOP_HEADERS and k.lower() != "host"
                }
                received = bytearray()
                status = 0
                try:
                    with (
                        httpx.Client(timeout=UPSTREAM_TIMEOUT) as client,
                        client.stream(
                            self.command, proxy.upstream + self.path, content=body, headers=headers
                        ) as answer,
                    ):
                        status = answer.status_code
                        self.send_response(status)
                        for key, value in answer.headers.items():
                            if key.lower() not in _HOP_HEADERS:
                                self.send_header(key, value)
                        self.send_header("connection", "close")
                        self.end_headers()
                        for chunk in answer.iter_raw():
                            received += chunk
                            self.wfile.write(chunk)
                            self.wfile.flush()
                except (OSError, httpx.HTTPError):
                    pass  # the agent hung up (its own timeout) or the server failed: still counted
                finally:
                    if self.path.endswith("/chat/completions"):
                        proxy._record(_exchange(self.path, status, started, bytes(received)))

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the bench prints its own summary

        return Handler
