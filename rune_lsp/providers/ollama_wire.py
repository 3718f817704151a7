"""Ollama's native wire format (`/api/chat`, `/api/show`, `/api/tags`), with no I/O.

Request bodies are built from the loop's messages; answers are validated into small pydantic
models and folded into one `ModelTurn`. Kept apart from the HTTP code so recorded responses
can be replayed through exactly the parsing the provider uses.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from rune_lsp.loop.messages import (
    Message,
    ModelCapabilities,
    ModelTurn,
    RawToolCall,
    ToolSpec,
    TurnCut,
    Usage,
)
from rune_lsp.providers.openai_wire import CallId, _Lenient, wire_tool  # the same shapes
from rune_lsp.providers.stream_limits import TurnLimiter
from rune_lsp.providers.thinking import InlineThinkingSplitter

# --- requests -----------------------------------------------------------------------------------


def chat_body(
    model: str,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    think: bool,
    stream: bool,
    num_ctx: int | None = None,
    num_predict: int | None = None,
    temperature: float | None = None,
) -> dict[str, Any]:
    """`think` is only ever sent as true: Ollama rejects it for models that cannot think."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [wire_message(m) for m in messages],
        "stream": stream,
    }
    given = {"num_ctx": num_ctx, "num_predict": num_predict, "temperature": temperature}
    options = {key: value for key, value in given.items() if value is not None}
    if options:
        body["options"] = options
    if tools:
        body["tools"] = [wire_tool(t) for t in tools]
    if think:
        body["think"] = True
    return body


def wire_message(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        out["tool_calls"] = [
            {"function": {"name": call.name, "arguments": call.arguments}}
            for call in message.tool_calls
        ]
    if message.role == "tool" and message.name:
        out["tool_name"] = message.name
    return out


# --- answers ------------------------------------------------------------------------------------


class _Function(_Lenient):
    name: Any = ""  # not always a string: the loop pairs such a call as invalid
    arguments: Any = None


class _ToolCall(_Lenient):
    id: CallId = None
    function: _Function = Field(default_factory=_Function)


class _Message(_Lenient):
    content: str | None = None
    thinking: str | None = None
    tool_calls: list[_ToolCall] | None = None


class ChatChunk(_Lenient):
    """One NDJSON line of a streamed answer, or the whole non-streamed answer."""

    message: _Message | None = None
    done: bool = False
    done_reason: str | None = None
    prompt_eval_count: int | None = None  # the whole prompt, cached part included
    prompt_eval_cached_count: int | None = None  # of it, reused from the cache (newer Ollama)
    eval_count: int | None = None
    error: str | None = None


def parse_chunk(line: str) -> ChatChunk:
    """Raises ValueError (pydantic's ValidationError is one) for anything but a chunk."""
    return ChatChunk.model_validate(json.loads(line))


class TurnBuilder:
    """Folds chunks into one turn; `feed` returns the new visible text, for streaming.

    Everything fed is counted by `limits`; once `cut` is set the caller stops feeding.
    """

    def __init__(self) -> None:
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._calls: list[RawToolCall] = []
        self._inline = InlineThinkingSplitter()
        self._usage = Usage()
        self._finish_reason: str | None = None
        self.done = False
        self.limits = TurnLimiter()

    @property
    def cut(self) -> TurnCut | None:
        """Set once the runtime cut the stream (size or repetition)."""
        return self.limits.cut

    def feed(self, chunk: ChatChunk) -> str:
        visible = ""
        if chunk.message is not None:
            if chunk.message.thinking:
                self._thinking.append(chunk.message.thinking)
                self.limits.thinking(chunk.message.thinking)
            if chunk.message.content:
                self.limits.text(chunk.message.content)
                visible = self._inline.feed(chunk.message.content)
            for call in chunk.message.tool_calls or ():
                self.limits.arguments(str(call.function.name))
                self.limits.arguments(json.dumps(call.function.arguments, default=str))
                self._calls.append(
                    RawToolCall(
                        id=call.id, name=call.function.name, arguments=call.function.arguments
                    )
                )
        if chunk.done:
            self.done = True
            self._finish_reason = chunk.done_reason
            self._usage = Usage(
                prompt_tokens=chunk.prompt_eval_count,
                completion_tokens=chunk.eval_count,
                cached_tokens=chunk.prompt_eval_cached_count,
            )
            visible += self._inline.finish()
        self._text.append(visible)
        return visible

    def finish(self) -> str:
        """Visible text held back by the thinking splitter when the stream was cut short."""
        if self.done:
            return ""
        rest = self._inline.finish()
        self._text.append(rest)
        return rest

    def turn(self) -> ModelTurn:
        thinking = "".join(self._thinking) + self._inline.thinking
        cut = self.limits.finished(self._finish_reason)
        return ModelTurn(
            text="".join(self._text),
            tool_calls=tuple(self._calls),
            thinking=thinking or None,
            usage=self._usage,
            finish_reason=self._finish_reason or (cut.reason if cut else None),
            cut=cut,
        )


# --- model metadata -----------------------------------------------------------------------------


class _ShowReply(_Lenient):
    capabilities: list[str] | None = None
    model_info: dict[str, Any] = Field(default_factory=dict)
    template: str = ""


def parse_show(data: Any) -> ModelCapabilities:
    """Capabilities from `/api/show`; raises ValueError for another shape."""
    reply = _ShowReply.model_validate(data)
    if reply.capabilities is None:
        # Ollama before `capabilities` existed: a template that renders tools takes them.
        native_tools, thinking = ".Tools" in reply.template, False
    else:
        native_tools = "tools" in reply.capabilities
        thinking = "thinking" in reply.capabilities
    return ModelCapabilities(
        native_tools=native_tools,
        thinking=thinking,
        context_length=_trained_context(reply.model_info),
    )


def _trained_context(model_info: dict[str, Any]) -> int | None:
    arch = model_info.get("general.architecture")
    if not isinstance(arch, str):
        return None
    value = model_info.get(f"{arch}.context_length")
    # bool is an int too; a flag is no length.
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


class _TagEntry(_Lenient):
    name: str


class _Tags(_Lenient):
    models: list[_TagEntry] = Field(default_factory=list)


def parse_tags(data: Any) -> tuple[str, ...]:
    """Installed model names from `/api/tags`; raises ValueError for another shape."""
    return tuple(entry.name for entry in _Tags.model_validate(data).models)
