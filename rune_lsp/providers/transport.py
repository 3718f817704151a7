"""What both wire formats share: the HTTP client, deadlines, error translation, capability cache.

A provider subclass supplies only what differs between servers: how to discover capabilities,
how to list models, and how it words a missing model. What an error answer says is read in
`error_reply`; a streamed answer is read line by line with `line_reader.LineReader`.
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import ssl
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol, TypeVar

import httpx

from rune_lsp.loop.context_budget import ANSWER_RESERVE, DEFAULT_CONTEXT_LENGTH
from rune_lsp.loop.messages import Message, ModelCapabilities, ModelTurn, ToolSpec
from rune_lsp.loop.ports import ModelError, ToolsUnsupportedError
from rune_lsp.providers.endpoint import Endpoint
from rune_lsp.providers.error_reply import (
    ErrorReply,
    read_error_reply,
    refuses_tools,
    server_message,
)
from rune_lsp.providers.stream_limits import MAX_LINE_BYTES
from rune_lsp.settings import DEFAULT_MAX_OUTPUT_TOKENS, Settings
from rune_lsp.text_clip import shorten

#: httpcore's words for a connection closed before any byte of an answer arrived.
_NO_ANSWER = "Server disconnected without sending a response"
#: Never ask for fewer tokens than this, however small the window: an edit must fit.
_MIN_OUTPUT_TOKENS = 256

_In = TypeVar("_In")
_Out = TypeVar("_Out")


class ProtocolPreferences(Protocol):
    """Per-model protocol choices kept across runs (the state dir's `protocols.json`)."""

    def prefers_text(self, key: str) -> bool: ...

    def remember_text(self, key: str) -> None: ...


def fitted_output_tokens(context_length: int | None) -> int:
    """The `maxOutputTokens` default: the share of the context the history budget leaves free
    for the answer (so prompt plus answer fit the window), at most DEFAULT_MAX_OUTPUT_TOKENS."""
    context = context_length or DEFAULT_CONTEXT_LENGTH
    reserve = math.ceil(context * ANSWER_RESERVE)
    return max(_MIN_OUTPUT_TOKENS, min(DEFAULT_MAX_OUTPUT_TOKENS, reserve))


class HttpProvider(ABC):
    """Holds the (lazily created or borrowed) client and turns transport failures into
    the typed errors of `rune_lsp.providers.errors`."""

    def __init__(
        self,
        settings: Settings,
        *,
        client: httpx.AsyncClient | None = None,
        stream: bool = True,
        protocols: ProtocolPreferences | None = None,
    ) -> None:
        self.endpoint = Endpoint.from_settings(settings)
        self.stream = stream
        self._native_tools_setting = settings.native_tools
        self._context_setting = settings.context_length
        self._max_output_setting = settings.max_output_tokens
        self.temperature = settings.temperature
        self._protocols = protocols
        self._prose_models: set[str] = set()
        self._client = client
        self._owns_client = client is None
        self._discovered: dict[str, ModelCapabilities] = {}
        self._tools_rejected: set[str] = set()
        self._discover_lock = asyncio.Lock()

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model={self.endpoint.model!r}, "
            f"base_url={self.endpoint.display_url!r}, stream={self.stream})"
        )

    @property
    def model(self) -> str:
        return self.endpoint.model

    async def aclose(self) -> None:
        """Closes the client if this provider created it; a borrowed client stays open."""
        if self._client is not None and self._owns_client:
            await self._client.aclose()
            self._client = None

    @abstractmethod
    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_delta: Callable[[str], None] | None = None,
        temperature: float | None = None,
    ) -> ModelTurn:
        """One model call (the loop's `Model.chat`)."""

    # --- capabilities -----------------------------------------------------------------------

    async def capabilities(self) -> ModelCapabilities:
        """The one place the protocol is chosen: what the server says, unless `nativeTools`
        forces it, a model that answered in prose stays on the text protocol, and a server
        that refused `tools` outright wins over everything."""
        discovered = await self._discovered_capabilities()
        native = discovered.native_tools
        adaptive = native and self._native_tools_setting is None
        if self._native_tools_setting is not None:
            native = self._native_tools_setting
        elif native and self._prefers_text():
            native = adaptive = False
        # Forcing `tools` on a server that refused them would only fail every turn.
        if self.model in self._tools_rejected:
            native = adaptive = False
        return discovered.model_copy(
            update={
                "native_tools": native,
                "context_length": self._window(discovered),
                "adaptive_protocol": adaptive,
            }
        )

    def prefer_text_protocol(self) -> None:
        """The loop's report that this model called tools only through the text protocol:
        later runs start with it (remembered in the state dir when one is given)."""
        self._prose_models.add(self.model)
        if self._protocols is not None:
            self._protocols.remember_text(self._protocol_key)

    def _prefers_text(self) -> bool:
        if self.model in self._prose_models:
            return True
        return self._protocols is not None and self._protocols.prefers_text(self._protocol_key)

    @property
    def _protocol_key(self) -> str:
        return f"{self.endpoint.kind}:{self.model}"

    def max_output_tokens(self, window: int | None) -> int:
        """`maxOutputTokens`, else fitted to the window the run works with."""
        return self._max_output_setting or fitted_output_tokens(window)

    def _window(self, discovered: ModelCapabilities) -> int | None:
        """The context the run budgets for: what the server reports, capped by the
        `contextLength` setting (None when neither says)."""
        lengths = [n for n in (self._context_setting, discovered.context_length) if n]
        return min(lengths) if lengths else None

    async def _discovered_capabilities(self) -> ModelCapabilities:
        async with self._discover_lock:
            cached = self._discovered.get(self.model)
            if cached is None:
                cached, cacheable = await self._discover()
                if cacheable:
                    self._discovered[self.model] = cached
            return cached

    @abstractmethod
    async def _discover(self) -> tuple[ModelCapabilities, bool]:
        """What the server says about the model, and whether that answer may be cached."""

    # --- models -----------------------------------------------------------------------------

    @abstractmethod
    async def list_models(self) -> tuple[str, ...]:
        """The model names the server offers (raises a typed error when it cannot say)."""

    async def _models_or_none(self) -> tuple[str, ...] | None:
        try:
            return await self.list_models()
        except ModelError:
            return None

    # --- errors -----------------------------------------------------------------------------

    @abstractmethod
    def _is_missing_model(self, status: int, message: str) -> bool: ...

    async def _status_error(self, reply: ErrorReply, *, sent_tools: bool) -> ModelError:
        message = server_message(reply.text)
        if sent_tools and reply.status in (400, 422) and refuses_tools(message):
            return self._tools_refused(message)
        if self._is_missing_model(reply.status, message):
            return self.endpoint.model_not_found(await self._models_or_none())
        return self.endpoint.http_error(reply.status, message, retry_after=reply.retry_after)

    def _tools_refused(self, message: str) -> ToolsUnsupportedError:
        # Remembered per model, so `capabilities()` reports the text protocol from now on.
        self._tools_rejected.add(self.model)
        return self.endpoint.tools_unsupported(message)

    # --- HTTP -------------------------------------------------------------------------------

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(verify=_tls_context())
            self._owns_client = True
        return self._client

    @asynccontextmanager
    async def _call(self) -> AsyncIterator[None]:
        """One provider call: a total deadline of `requestTimeout`, transport errors typed."""
        endpoint = self.endpoint
        try:
            async with asyncio.timeout(endpoint.timeout):
                yield
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise endpoint.timed_out() from exc
        except httpx.ConnectError as exc:
            raise endpoint.unreachable(exc) from exc
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
            raise endpoint.stream_cut(str(exc) or type(exc).__name__) from exc
        except httpx.HTTPError as exc:
            raise endpoint.unreachable(exc) from exc

    @asynccontextmanager
    async def _open_stream(
        self, path: str, body: dict[str, Any], *, sent_tools: bool
    ) -> AsyncIterator[httpx.Response]:
        """A streamed POST whose status is already checked. Leaving the block (also by
        cancellation) closes the response, and with it the connection if unfinished."""
        response = await self._send("POST", path, body, stream=True)
        try:
            if response.is_error:
                reply = await read_error_reply(response)
                raise await self._status_error(reply, sent_tools=sent_tools)
            yield response
        finally:
            await response.aclose()

    async def _request_json(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        sent_tools: bool = False,
    ) -> Any:
        """A plain request whose answer is one JSON document; call inside `_call()`."""
        response = await self._send(method, path, body, stream=True)
        try:
            if response.is_error:
                reply = await read_error_reply(response)
                raise await self._status_error(reply, sent_tools=sent_tools)
            text = await self.read_text(response)
        finally:
            await response.aclose()
        return self._parsed(json.loads, text)

    async def read_text(self, response: httpx.Response, limit: int = MAX_LINE_BYTES) -> str:
        """The whole body of a streamed response, refusing one larger than `limit` bytes."""
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > limit:
                raise self.endpoint.answer_too_large(limit)
        return body.decode(response.encoding or "utf-8", errors="replace")

    async def _get_json(self, path: str) -> Any:
        """A GET whose answer is one JSON document, as a whole provider call."""
        async with self._call():
            return await self._request_json("GET", path)

    async def _send(
        self, method: str, path: str, body: dict[str, Any] | None, *, stream: bool
    ) -> httpx.Response:
        """Sends the request, and once more if the server had closed the kept-alive connection
        it went out on: llama.cpp's server drops them without notice after a few streamed
        answers. It answered nothing then, so the request never ran and sending it again on a
        fresh connection is safe."""
        client = self._http()
        request = client.build_request(
            method,
            self.endpoint.url(path),
            json=body,
            headers=self.endpoint.headers(),
            timeout=self.endpoint.timeout,
        )
        try:
            return await client.send(request, stream=stream)
        except httpx.RemoteProtocolError as exc:
            if _NO_ANSWER not in str(exc):
                raise
        return await client.send(request, stream=stream)

    def _parsed(self, parse: Callable[[_In], _Out], data: _In) -> _Out:
        """`parse(data)`, its ValueError (pydantic's ValidationError is one) turned into the
        endpoint's invalid-response error quoting the start of what the server sent."""
        try:
            return parse(data)
        except ValueError:
            raise self.endpoint.invalid_response(shorten(str(data), 80)) from None


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # Loading the CA bundle takes tens of milliseconds; every provider can share one context.
    return httpx.create_ssl_context()
