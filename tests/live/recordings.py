"""Recorded llama-server answers: where they live, how they are described, and a plain reading
of them that the replay tests compare the provider's parsing against.

`tests/live/record_fixtures.py` writes them; `tests/providers/test_recorded_llama.py` replays
them. The reading here is deliberately naive (one loop over the raw JSON, no shared code with
the provider), so a parser bug cannot hide in both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

FIXTURES = Path(__file__).resolve().parents[1] / "providers" / "fixtures" / "llama"
MANIFEST = FIXTURES / "manifest.json"

#: Properties a recording was checked for when it was made, so replays may rely on them.
Expect = Literal["text", "tool_calls", "length", "text_protocol_call", "error", "models"]


class Recording(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    file: str
    method: Literal["GET", "POST"]
    path: str
    status: int
    content_type: str
    stream: bool = False
    request: dict[str, Any] | None = None
    expect: tuple[Expect, ...] = ()
    grammar: str | None = None  # the server's GBNF when the answer was constrained

    def body(self) -> bytes:
        return (FIXTURES / self.file).read_bytes()


class Manifest(BaseModel):
    model_config = ConfigDict(frozen=True)

    server: str
    model: str
    recordings: tuple[Recording, ...]

    def named(self, name: str) -> Recording:
        return next(r for r in self.recordings if r.name == name)


def load_manifest() -> Manifest:
    return Manifest.model_validate_json(MANIFEST.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Folded:
    """A chat answer read by hand: visible text, (name, arguments) per call, and the rest."""

    text: str
    calls: tuple[tuple[str, str], ...]
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


def sse_events(body: bytes) -> list[Any]:
    """The JSON of each `data:` line, without the closing `[DONE]`."""
    events = []
    for line in body.decode("utf-8").splitlines():
        if line.startswith("data:"):
            data = line[len("data:") :].strip()
            if data != "[DONE]":
                events.append(json.loads(data))
    return events


def fold(recording: Recording) -> Folded:
    return fold_body(recording.body(), stream=recording.stream)


def fold_body(body: bytes, *, stream: bool) -> Folded:
    events = sse_events(body) if stream else [json.loads(body)]
    text: list[str] = []
    names: dict[int, str] = {}
    arguments: dict[int, str] = {}
    finish: str | None = None
    usage: dict[str, Any] = {}
    for event in events:
        for choice in event.get("choices", [])[:1]:
            part = choice.get("delta") or choice.get("message") or {}
            text.append(part.get("content") or "")
            for position, call in enumerate(part.get("tool_calls") or []):
                index = call.get("index", position)
                function = call.get("function", {})
                names[index] = names.get(index, "") + (function.get("name") or "")
                arguments[index] = arguments.get(index, "") + (function.get("arguments") or "")
            finish = choice.get("finish_reason") or finish
        usage = event.get("usage") or usage
    return Folded(
        text="".join(text),
        calls=tuple((names[i], arguments.get(i, "")) for i in sorted(names)),
        finish_reason=finish,
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
    )
