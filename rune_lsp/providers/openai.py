"""The `Model` for OpenAI-compatible servers: `{baseUrl}/chat/completions`, streamed as SSE by
default, and `{baseUrl}/models` for the served models and their context size."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from rune_lsp.loop.messages import Message, ModelCapabilities, ModelTurn, ToolSpec
from rune_lsp.loop.ports import ModelError
from rune_lsp.providers import openai_wire as wire
from rune_lsp.providers.errors import ProviderTimeoutError, ProviderUnreachableError
from rune_lsp.providers.line_reader import LineReader
from rune_lsp.providers.sse import SseDecoder
from rune_lsp.providers.stream_limits import MAX_LINE_BYTES
from rune_lsp.providers.transport import HttpProvider

_MISSING_MODEL = re.compile(
    r"model\b.*\b(not found|does not exist|not exist|not a valid|unknown|no such)"
    r"|\b(unknown|no such|invalid) model",
    re.I | re.S,
)

OnDelta = Callable[[str], None]


class OpenAIModel(HttpProvider):
    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_delta: OnDelta | None = None,
        temperature: float | None = None,
    ) -> ModelTurn:
        # Only an already discovered window fits the cap: discovering here would cost a
        # request the loop's `capabilities()` at run start has usually made already.
        cached = self._discovered.get(self.model)
        window = self._window(cached) if cached is not None else self._context_setting
        body = wire.chat_body(
            self.model,
            messages,
            tools,
            stream=self.stream,
            max_tokens=self.max_output_tokens(window),
            temperature=self.temperature if temperature is None else temperature,
        )
        async with self._call():
            if self.stream:
                return await self._stream_chat(body, bool(tools), on_delta)
            data = await self._request_json(
                "POST", "/chat/completions", body, sent_tools=bool(tools)
            )
            turn = self._completion_turn(data)
        if turn.text and on_delta is not None:
            on_delta(turn.text)
        return turn

    async def _stream_chat(
        self, body: dict[str, Any], sent_tools: bool, on_delta: OnDelta | None
    ) -> ModelTurn:
        builder = wire.TurnBuilder()
        decoder = SseDecoder(max_chars=MAX_LINE_BYTES)
        async with self._open_stream("/chat/completions", body, sent_tools=sent_tools) as response:
            if _is_plain_json(response):
                # A server that ignores `stream: true` answers with one completion.
                text = await self.read_text(response)
                turn = self._completion_turn(self._parsed(json.loads, text))
                if turn.text and on_delta is not None:
                    on_delta(turn.text)
                return turn
            lines = LineReader(response)
            async for line in lines:
                self._take_event(decoder.feed(line), builder, on_delta)
                if builder.cut is not None or decoder.overflowed:
                    break  # leaving the block closes the response: the server stops
            else:
                self._take_event(decoder.finish(), builder, on_delta)
            if lines.overflowed or decoder.overflowed:
                builder.limits.stop("size")
        rest = builder.finish()
        if rest and on_delta is not None:
            on_delta(rest)
        if builder.cut is None and not builder.complete:
            raise self.endpoint.stream_cut("no finish reason and no [DONE]")
        return builder.turn()

    def _take_event(
        self, data: str | None, builder: wire.TurnBuilder, on_delta: OnDelta | None
    ) -> None:
        if data is None:
            return
        if data.strip() == wire.DONE:
            builder.saw_done = True
            return
        chunk = self._parsed(wire.parse_chunk, data)
        if chunk.error_message is not None:
            raise self.endpoint.answer_failed(chunk.error_message)
        visible = builder.feed(chunk)
        if visible and on_delta is not None:
            on_delta(visible)

    def _completion_turn(self, data: Any) -> ModelTurn:
        chunk = self._parsed(wire.Chunk.model_validate, data)
        if chunk.error_message is not None:
            raise self.endpoint.answer_failed(chunk.error_message)
        # A completion without choices is quoted as the server sent it, not as parsed.
        return self._parsed(lambda _: wire.completion_turn(chunk), data)

    async def _discover(self) -> tuple[ModelCapabilities, bool]:
        # Native tools are assumed until the server refuses them; `/models` only adds the
        # context size, so a server without it is still usable.
        try:
            entries = await self._model_entries()
        except (ProviderUnreachableError, ProviderTimeoutError):
            return ModelCapabilities(native_tools=True), False
        except ModelError:
            return ModelCapabilities(native_tools=True), True
        entry = next((e for e in entries if e.id == self.model), None)
        context = entry.context if entry is not None else None
        return ModelCapabilities(native_tools=True, context_length=context), True

    async def list_models(self) -> tuple[str, ...]:
        return tuple(entry.id for entry in await self._model_entries())

    async def _model_entries(self) -> tuple[wire.ModelEntry, ...]:
        return self._parsed(wire.parse_models, await self._get_json("/models"))

    def _is_missing_model(self, status: int, message: str) -> bool:
        return status in (400, 404) and bool(_MISSING_MODEL.search(message))


def _is_plain_json(response: httpx.Response) -> bool:
    content_type = str(response.headers.get("content-type", ""))
    return content_type.split(";")[0].strip() == "application/json"
