"""What the model double is scripted with: replies, faults, models, and what it records.

All plain frozen dataclasses, so a scenario reads as data and works the same whichever wire
format (Ollama or OpenAI-compatible) the client speaks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Call:
    """A tool call the model makes. `arguments` may be a string to send malformed JSON, and
    `name` anything JSON to send a malformed name.

    Without an `id`, the OpenAI side invents `call_<n>`; the Ollama side sends none, as Ollama
    does.
    """

    name: Any
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """One model answer. Streamed, text and thinking go out a word at a time.

    `chunk_delay` seconds pass between streamed chunks (a slow drip). `finish_reason` defaults
    to what each server says: Ollama `stop`, OpenAI `tool_calls` or `stop`.
    """

    text: str = ""
    tool_calls: tuple[Call, ...] = ()
    thinking: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int = 12
    completion_tokens: int = 5
    chunk_delay: float = 0.0


# --- faults -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HttpError:
    """An HTTP error status with a message, in the server's own error shape."""

    status: int = 500
    message: str = "internal server error"


@dataclass(frozen=True)
class RateLimited:
    message: str = "rate limit exceeded"
    retry_after: int | None = 7


@dataclass(frozen=True)
class ModelMissing:
    """404 model-not-found as the server words it (the model list is not consulted)."""


@dataclass(frozen=True)
class ToolsRejected:
    """400 refusing the `tools` field (llama.cpp without --jinja; Ollama's wording there)."""


@dataclass(frozen=True)
class CutStream:
    """Send `after_chunks` chunks of `reply` (or that many bytes of a plain body's first
    half), then close the socket without finishing the response."""

    after_chunks: int = 1
    reply: Reply = Reply(text="an answer that is cut off somewhere in the middle")


@dataclass(frozen=True)
class InvalidJson:
    """A 200 whose body (or, streamed, whose first line) is not JSON."""

    body: str = "<html><body>502 Bad Gateway</body></html>"


@dataclass(frozen=True)
class Hang:
    """Say nothing (`after_chunks=0`: not even headers), or stop after that many chunks of
    `reply`, until the client gives up or the double stops."""

    after_chunks: int = 0
    reply: Reply = Reply(text="an answer that never ends")


@dataclass(frozen=True)
class FailMidStream:
    """Stream `after_chunks` chunks of `reply`, then the server's in-stream error object (as
    Ollama and llama.cpp do when generation fails); not streamed, a 500 with the message."""

    message: str = "model runner has unexpectedly stopped"
    after_chunks: int = 1
    reply: Reply = Reply(text="an answer that fails part way")


@dataclass(frozen=True)
class Endless:
    """A stream that never ends, as fast as the socket takes it: `text` again and again (a
    model looping on one sentence), or with `varying`, a different piece every time (what no
    repetition check catches: only a size cap stops it). Not streamed, the body never ends."""

    text: str = "I will fix the bug now. "
    varying: bool = False


Fault = (
    HttpError
    | RateLimited
    | ModelMissing
    | ToolsRejected
    | CutStream
    | InvalidJson
    | Hang
    | FailMidStream
    | Endless
)
Scripted = Reply | Fault


# --- models and records -------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelInfo:
    """A model the double serves: listed by `/api/tags` and `/v1/models`, described by
    `/api/show`. Capabilities use Ollama's names: `completion`, `tools`, `thinking`."""

    name: str
    capabilities: tuple[str, ...] = ("completion", "tools", "thinking")
    context_length: int | None = 40960
    architecture: str = "qwen3"


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: Mapping[str, str]  # names lower-cased
    body: Any  # parsed JSON, or None when there was none or it was not JSON
    raw_body: bytes

    @property
    def is_chat(self) -> bool:
        return self.path in ("/api/chat", "/v1/chat/completions")


@dataclass(frozen=True)
class Disconnect:
    """The client closed the connection while the double was still answering."""

    path: str
    at: float  # time.monotonic()


Responder = Callable[[RecordedRequest], Scripted]
