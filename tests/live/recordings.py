"""Recorded llama-server answers: where they live, how they are described, and a plain reading
of them that the replay tests compare the provider's parsing against.

`tests/live/record_fixtures.py` writes them; `tests/providers/test_recorded_llama.py` and
`test_recorded_coder.py` replay them. SmolLM2's live under fixtures/llama/, each real coding
model's (`--coder NAME`) under fixtures/NAME/, each directory with its own manifest. The
reading here is deliberately naive (one loop over the raw JSON, no shared code with the
provider), so a parser bug cannot hide in both.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

FIXTURES_ROOT = Path(__file__).resolve().parents[1] / "providers" / "fixtures"
FIXTURES = FIXTURES_ROOT / "llama"
MANIFEST = FIXTURES / "manifest.json"

#: Properties a recording was checked for when it was made, so replays may rely on them.
#: `written_call`: a tool call written as text (a JSON object with "name" and "arguments");
#: `code_block`: a fenced block of code; both are what small models send instead of calls.
Expect = Literal[
    "text",
    "tool_calls",
    "length",
    "text_protocol_call",
    "error",
    "models",
    "written_call",
    "code_block",
]


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
    task: str | None = None  # a coding model's fix case (tests/live/coder_cases.py)
    shape: str | None = None  # how it was asked: native, plain or text

    def body(self, directory: Path = FIXTURES) -> bytes:
        return (directory / self.file).read_bytes()


class Manifest(BaseModel):
    model_config = ConfigDict(frozen=True)

    server: str
    model: str
    recordings: tuple[Recording, ...]

    def named(self, name: str) -> Recording:
        return next(r for r in self.recordings if r.name == name)


def load_manifest(directory: Path = FIXTURES) -> Manifest:
    return Manifest.model_validate_json((directory / "manifest.json").read_text(encoding="utf-8"))


def coder_dirs() -> list[Path]:
    """The recorded coding models' fixture directories (everything but SmolLM2's)."""
    return sorted(
        path
        for path in FIXTURES_ROOT.iterdir()
        if path.is_dir() and path != FIXTURES and (path / "manifest.json").is_file()
    )


@dataclass(frozen=True)
class Folded:
    """A chat answer read by hand: visible text, (name, arguments) per call, and the rest."""

    text: str
    calls: tuple[tuple[str, str], ...]
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cached_tokens: int | None = None  # llama-server's `timings.cache_n`: prompt reused from cache


def sse_events(body: bytes) -> list[Any]:
    """The JSON of each `data:` line, without the closing `[DONE]`."""
    events = []
    for line in body.decode("utf-8").splitlines():
        if line.startswith("data:"):
            data = line[len("data:") :].strip()
            if data != "[DONE]":
                events.append(json.loads(data))
    return events


def fold(recording: Recording, directory: Path = FIXTURES) -> Folded:
    return fold_body(recording.body(directory), stream=recording.stream)


_WRITTEN_CALL = re.compile(r'\{\s*"name"\s*:\s*"[^"]+"\s*,\s*"arguments"\s*:')
_CODE_BLOCK = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n.*?\b(?:def|class|return)\b.*?```", re.S)


def shown(folded: Folded) -> tuple[Expect, ...]:
    """What a coding model's answer holds, read plainly: native calls, a call written as
    text, a code block, visible text, a cut at the token limit."""
    found: list[Expect] = []
    if folded.calls:
        found.append("tool_calls")
    if _WRITTEN_CALL.search(folded.text):
        found.append("written_call")
    if _CODE_BLOCK.search(folded.text):
        found.append("code_block")
    if folded.text.strip():
        found.append("text")
    if folded.finish_reason == "length":
        found.append("length")
    return tuple(found)


def fold_body(body: bytes, *, stream: bool) -> Folded:
    events = sse_events(body) if stream else [json.loads(body)]
    text: list[str] = []
    names: dict[int, str] = {}
    arguments: dict[int, str] = {}
    finish: str | None = None
    usage: dict[str, Any] = {}
    timings: dict[str, Any] = {}
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
        timings = event.get("timings") or timings
    return Folded(
        text="".join(text),
        calls=tuple((names[i], arguments.get(i, "")) for i in sorted(names)),
        finish_reason=finish,
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
        cached_tokens=timings.get("cache_n"),
    )
