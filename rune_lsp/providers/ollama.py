"""The `Model` for Ollama's native API: `/api/chat` streamed as NDJSON, `/api/show` for
capabilities, `/api/tags` for the installed models."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from rune_lsp.loop.messages import Message, ModelCapabilities, ModelTurn, ToolSpec
from rune_lsp.providers import ollama_wire as wire
from rune_lsp.providers.line_reader import LineReader
from rune_lsp.providers.transport import HttpProvider

#: The window asked of Ollama when the `contextLength` setting is unset (tokens).
OLLAMA_DEFAULT_WINDOW = 8_192

_MISSING_MODEL = re.compile(r"model\b.*\bnot found", re.I | re.S)


class OllamaModel(HttpProvider):
    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_delta: Callable[[str], None] | None = None,
        temperature: float | None = None,
    ) -> ModelTurn:
        discovered = await self._discovered_capabilities()
        window = self._window(discovered)
        body = wire.chat_body(
            self.model,
            messages,
            tools,
            think=discovered.thinking,
            stream=self.stream,
            num_ctx=window,
            num_predict=self.max_output_tokens(window),
            temperature=self.temperature if temperature is None else temperature,
        )
        builder = wire.TurnBuilder()
        async with self._call():
            if self.stream:
                await self._stream_chat(body, builder, bool(tools), on_delta)
            else:
                data = await self._request_json("POST", "/api/chat", body, sent_tools=bool(tools))
                visible = builder.feed(
                    self._checked(self._parsed(wire.ChatChunk.model_validate, data))
                )
                if visible and on_delta is not None:
                    on_delta(visible)
        if builder.cut is not None:
            rest = builder.finish()
            if rest and on_delta is not None:
                on_delta(rest)
        elif not builder.done:
            raise self.endpoint.stream_cut("no final chunk with `done: true`")
        return builder.turn()

    async def _stream_chat(
        self,
        body: dict[str, Any],
        builder: wire.TurnBuilder,
        sent_tools: bool,
        on_delta: Callable[[str], None] | None,
    ) -> None:
        async with self._open_stream("/api/chat", body, sent_tools=sent_tools) as response:
            lines = LineReader(response)
            async for line in lines:
                if not line.strip():
                    continue
                visible = builder.feed(self._checked(self._parsed(wire.parse_chunk, line)))
                if visible and on_delta is not None:
                    on_delta(visible)
                if builder.cut is not None:
                    break  # leaving the block closes the response: the server stops
            if lines.overflowed:
                builder.limits.stop("size")

    def _window(self, discovered: ModelCapabilities) -> int:
        """Ollama serves whatever `num_ctx` it is sent, and without one a window often far
        smaller than the model's (it then drops the start of the conversation without a
        word). So rune always sends one: the `contextLength` setting, else the trained
        length up to OLLAMA_DEFAULT_WINDOW (a bigger window costs the user memory), never
        more than the model was trained for."""
        wanted = self._context_setting or OLLAMA_DEFAULT_WINDOW
        trained = discovered.context_length
        return min(wanted, trained) if trained else wanted

    def _checked(self, chunk: wire.ChatChunk) -> wire.ChatChunk:
        if chunk.error:
            raise self.endpoint.answer_failed(chunk.error)
        return chunk

    async def _discover(self) -> tuple[ModelCapabilities, bool]:
        async with self._call():
            data = await self._request_json("POST", "/api/show", {"model": self.model})
        return self._parsed(wire.parse_show, data), True

    async def list_models(self) -> tuple[str, ...]:
        return self._parsed(wire.parse_tags, await self._get_json("/api/tags"))

    def _is_missing_model(self, status: int, message: str) -> bool:
        return status == 404 and bool(_MISSING_MODEL.search(message))
