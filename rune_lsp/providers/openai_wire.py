"""The OpenAI-compatible wire format (`/chat/completions`, `/models`), with no I/O.

Covers what llama.cpp, vLLM, LM Studio, Ollama's `/v1` and hosted APIs send: SSE deltas whose
tool calls arrive in fragments keyed by `index`, arguments as a JSON string, and reasoning as
`reasoning_content` (or `reasoning`) beside the content.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from rune_lsp.loop.messages import Message, ModelTurn, RawToolCall, ToolSpec, TurnCut, Usage
from rune_lsp.providers.stream_limits import TurnLimiter
from rune_lsp.providers.thinking import InlineThinkingSplitter

DONE = "[DONE]"

# --- requests -----------------------------------------------------------------------------------


def chat_body(
    model: str,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    stream: bool,
    max_tokens: int | None = None,
    temperature: float | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "messages": [wire_message(m) for m in messages],
        "stream": stream,
    }
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if temperature is not None:
        body["temperature"] = temperature
    if stream:
        # Without this, streamed answers carry no token counts at all.
        body["stream_options"] = {"include_usage": True}
    if tools:
        body["tools"] = [wire_tool(t) for t in tools]
    return body


def wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def wire_message(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": json.dumps(call.arguments, ensure_ascii=False),
                },
            }
            for call in message.tool_calls
        ]
    if message.role == "tool" and message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    return out


# --- answers ------------------------------------------------------------------------------------


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


def _string_or_none(value: Any) -> Any:
    return value if isinstance(value, str) else None


#: A call id that is not a string is dropped, not fatal: the loop gives the call a fresh one.
CallId = Annotated[str | None, BeforeValidator(_string_or_none)]


class _Function(_Lenient):
    # Any: a name that is not a string is the loop's to pair as invalid; failing the chunk
    # here would lose every other call of the turn.
    name: Any = None
    # A JSON string by the spec; some servers send an object, which is passed on as it is.
    arguments: Any = None


class _ToolCall(_Lenient):
    index: int | None = None
    id: CallId = None
    function: _Function = Field(default_factory=_Function)


class _Content(_Lenient):
    """A streamed `delta` or a whole `message`: the same fields either way."""

    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    tool_calls: list[_ToolCall] | None = None

    @property
    def reasoning_text(self) -> str | None:
        return self.reasoning_content or self.reasoning


class _Choice(_Lenient):
    delta: _Content | None = None
    message: _Content | None = None
    finish_reason: str | None = None


class _PromptDetails(_Lenient):
    cached_tokens: int | None = None


class _Usage(_Lenient):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_tokens_details: _PromptDetails | None = None


class _Timings(_Lenient):
    """llama.cpp's own counts, on an answer's last chunk: prompt tokens evaluated (`prompt_n`)
    and reused from its cache (`cache_n`), tokens generated (`predicted_n`)."""

    prompt_n: int | None = None
    cache_n: int | None = None
    predicted_n: int | None = None


class _Error(_Lenient):
    message: str = ""


class Chunk(_Lenient):
    """One SSE event of a streamed answer, or a whole non-streamed completion."""

    choices: list[_Choice] = Field(default_factory=list)
    usage: _Usage | None = None
    timings: _Timings | None = None
    error: _Error | str | None = None

    @property
    def error_message(self) -> str | None:
        if self.error is None:
            return None
        text = self.error if isinstance(self.error, str) else self.error.message
        return text or "unspecified error"


def parse_chunk(data: str) -> Chunk:
    """Raises ValueError (pydantic's ValidationError is one) for anything but a chunk."""
    return Chunk.model_validate(json.loads(data))


@dataclass
class _CallSlot:
    id: str | None = None
    name: Any = ""  # the fragments joined; a name sent as a non-string is kept as it came
    arguments: list[str] = field(default_factory=list)
    whole_arguments: Any = None  # a non-string `arguments`, kept as sent

    def raw(self) -> RawToolCall:
        arguments = (
            "".join(self.arguments) if self.whole_arguments is None else self.whole_arguments
        )
        return RawToolCall(id=self.id, name=self.name, arguments=arguments)


class TurnBuilder:
    """Folds streamed chunks into one turn; `feed` returns the new visible text.

    Everything fed is counted by `limits`; once `cut` is set the caller stops feeding.
    """

    def __init__(self) -> None:
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._slots: dict[int, _CallSlot] = {}
        self._inline = InlineThinkingSplitter()
        self._usage: _Usage | None = None
        self._timings: _Timings | None = None
        self._finish_reason: str | None = None
        self.saw_done = False
        self.limits = TurnLimiter()

    @property
    def complete(self) -> bool:
        """A stream is whole once it said `[DONE]` or gave a finish reason."""
        return self.saw_done or self._finish_reason is not None

    @property
    def cut(self) -> TurnCut | None:
        """Set once the runtime cut the stream (size or repetition)."""
        return self.limits.cut

    def feed(self, chunk: Chunk) -> str:
        visible = ""
        for choice in chunk.choices[:1]:
            part = choice.delta or choice.message
            if part is not None:
                visible = self._take(part)
            if choice.finish_reason:
                self._finish_reason = choice.finish_reason
        self._usage = chunk.usage or self._usage
        self._timings = chunk.timings or self._timings
        self._text.append(visible)
        return visible

    def finish(self) -> str:
        """Visible text held back by the thinking splitter; call once, at the end."""
        rest = self._inline.finish()
        self._text.append(rest)
        return rest

    def turn(self) -> ModelTurn:
        thinking = "".join(self._thinking) + self._inline.thinking
        cut = self.limits.finished(self._finish_reason)
        return ModelTurn(
            text="".join(self._text),
            tool_calls=tuple(slot.raw() for _, slot in sorted(self._slots.items())),
            thinking=thinking or None,
            usage=usage_of(self._usage, self._timings),
            finish_reason=self._finish_reason or (cut.reason if cut else None),
            cut=cut,
        )

    def _take(self, part: _Content) -> str:
        if part.reasoning_text:
            self._thinking.append(part.reasoning_text)
            self.limits.thinking(part.reasoning_text)
        for fragment in part.tool_calls or ():
            self._merge(fragment)
        if not part.content:
            return ""
        self.limits.text(part.content)
        return self._inline.feed(part.content)

    def _merge(self, fragment: _ToolCall) -> None:
        slot = self._slots.setdefault(self._slot_index(fragment), _CallSlot())
        if fragment.id:
            slot.id = fragment.id
        name = fragment.function.name
        if isinstance(name, str) and isinstance(slot.name, str):
            slot.name += name
            self.limits.arguments(name)
        elif name is not None and name != "":
            slot.name = name
        arguments = fragment.function.arguments
        if isinstance(arguments, str):
            slot.arguments.append(arguments)
            self.limits.arguments(arguments)
        elif arguments is not None:
            slot.whole_arguments = arguments
            self.limits.arguments(json.dumps(arguments, default=str))

    def _slot_index(self, fragment: _ToolCall) -> int:
        if fragment.index is not None:
            return fragment.index
        # Servers that leave out `index` start a new call with a new id, else continue the last.
        known = {slot.id for slot in self._slots.values()}
        if not self._slots or (fragment.id and fragment.id not in known):
            return max(self._slots, default=-1) + 1
        return max(self._slots)


def usage_of(usage: _Usage | None, timings: _Timings | None) -> Usage:
    """The turn's tokens: llama.cpp's `timings` where it sent them, else the OpenAI `usage`.

    Both count the whole prompt and its cached part (`usage.prompt_tokens` and
    `prompt_tokens_details.cached_tokens`; `cache_n` + `prompt_n` and `cache_n`); the timings
    win because some llama.cpp versions put only the evaluated part in `usage.prompt_tokens`.
    """
    usage = usage or _Usage()
    details = usage.prompt_tokens_details
    prompt, cached = usage.prompt_tokens, details.cached_tokens if details else None
    if timings is not None and timings.prompt_n is not None and timings.cache_n is not None:
        prompt, cached = timings.prompt_n + timings.cache_n, timings.cache_n
    elif prompt is None and timings is not None:
        prompt = timings.prompt_n  # a llama.cpp too old to split off the cached part
    completion = usage.completion_tokens
    if completion is None and timings is not None:
        completion = timings.predicted_n
    return Usage(prompt_tokens=prompt, completion_tokens=completion, cached_tokens=cached)


def completion_turn(chunk: Chunk) -> ModelTurn:
    """A non-streamed completion as a turn; raises ValueError when it has no choice."""
    if not chunk.choices:
        raise ValueError("a completion without choices")
    builder = TurnBuilder()
    builder.feed(chunk)
    builder.finish()
    return builder.turn()


# --- models -------------------------------------------------------------------------------------


class _Meta(_Lenient):
    n_ctx: int | None = None  # the context llama-server serves (`-c`)
    n_ctx_train: int | None = None


class ModelEntry(_Lenient):
    id: str
    # Which field holds the context size depends on the server: llama.cpp `meta.n_ctx` (what
    # it serves; `n_ctx_train` from older builds), OpenRouter and LM Studio `context_length` /
    # `max_context_length`, vLLM `max_model_len`.
    meta: _Meta | None = None
    context_length: int | None = None
    max_context_length: int | None = None
    max_model_len: int | None = None

    @property
    def context(self) -> int | None:
        """Tokens a request may hold. A llama-server started with `-c 8192` for a model trained
        on 32,768 takes 8,192: planning the history for 32,768 would overflow it, unfitted."""
        candidates = (
            self.meta.n_ctx if self.meta else None,
            self.meta.n_ctx_train if self.meta else None,
            self.context_length,
            self.max_context_length,
            self.max_model_len,
        )
        return next((c for c in candidates if c is not None and c > 0), None)


class _ModelList(_Lenient):
    data: list[ModelEntry] = Field(default_factory=list)


def parse_models(data: Any) -> tuple[ModelEntry, ...]:
    """Entries of `/models`; raises ValueError for another shape."""
    return tuple(_ModelList.model_validate(data).data)
