"""Recorded server answers replayed through the providers' own parsing.

The bytes under fixtures/ are shaped like real Ollama, OpenAI, llama.cpp and vLLM output;
httpx's mock transport hands them to the provider exactly as a socket would, in one go.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from rune_lsp.loop.messages import Message, ModelCapabilities, ModelTurn, RawToolCall, Usage
from rune_lsp.providers import make_model, ollama_wire, openai_wire
from rune_lsp.settings import ProviderName, Settings

FIXTURES = Path(__file__).parent / "fixtures"
ASK = [Message(role="user", content="help")]
SHOW = (FIXTURES / "ollama_show_qwen3.json").read_bytes()


def _transport(chat_file: str, content_type: str) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/show":
            return httpx.Response(200, content=SHOW, headers={"content-type": "application/json"})
        body = (FIXTURES / chat_file).read_bytes()
        return httpx.Response(200, content=body, headers={"content-type": content_type})

    return httpx.MockTransport(handle)


async def _replay(
    provider: ProviderName, chat_file: str, content_type: str
) -> tuple[ModelTurn, str]:
    settings = Settings(provider=provider, model="qwen3:14b")
    deltas: list[str] = []
    async with httpx.AsyncClient(transport=_transport(chat_file, content_type)) as client:
        model = make_model(settings, client=client)
        turn = await model.chat(ASK, [], on_delta=deltas.append)
    return turn, "".join(deltas)


async def test_ollama_thinking_then_tool_call() -> None:
    turn, deltas = await _replay("ollama", "ollama_tool_call.ndjson", "application/x-ndjson")

    assert turn == ModelTurn(
        text="",
        thinking="The user wants the failing test fixed, so I should read it first.",
        tool_calls=(
            RawToolCall(
                name="read_file",
                arguments={"end_line": 40, "path": "tests/test_parser.py", "start_line": 1},
            ),
        ),
        usage=Usage(prompt_tokens=1187, completion_tokens=64),
        finish_reason="stop",
    )
    assert deltas == ""


async def test_ollama_inline_think_tags_split_across_chunks() -> None:
    turn, deltas = await _replay("ollama", "ollama_inline_think.ndjson", "application/x-ndjson")

    assert turn.text == "Use `range(len(items))` instead."
    assert deltas == turn.text
    assert turn.thinking == "\nOkay, the off-by-one is in the loop bound.\n"


async def test_openai_fragmented_arguments_of_two_calls() -> None:
    turn, _ = await _replay("openai", "openai_fragmented_tool_calls.sse", "text/event-stream")

    assert turn.tool_calls == (
        RawToolCall(
            id="call_Qk1",
            name="search",
            arguments='{"pattern": "def parse", "glob": "*.py"}',
        ),
        RawToolCall(id="call_Zr7", name="list_dir", arguments='{"path": "src"}'),
    )
    assert turn.text == ""
    assert turn.finish_reason == "tool_calls"
    assert turn.usage == Usage(prompt_tokens=842, completion_tokens=47, cached_tokens=0)


async def test_llamacpp_reasoning_content_is_thinking_not_text() -> None:
    turn, deltas = await _replay("openai", "llamacpp_reasoning.sse", "text/event-stream")

    assert turn.text == "Remove the unused `import os`."
    assert deltas == turn.text
    assert turn.thinking == "The import is unused; removing it is safe."
    assert turn.usage == Usage(prompt_tokens=311, completion_tokens=29)
    assert turn.finish_reason == "stop"


async def test_free_text_before_a_call() -> None:
    turn, deltas = await _replay("openai", "openai_text_then_call.sse", "text/event-stream")

    assert turn.text == "I'll read the config first."
    assert deltas == turn.text
    assert turn.tool_calls == (
        RawToolCall(id="chatcmpl-tool-5b1e", name="read_file", arguments='{"path": "setup.cfg"}'),
    )


async def test_multi_line_arguments_string_is_kept_verbatim() -> None:
    turn, _ = await _replay("openai", "openai_multiline_arguments.json", "application/json")

    (call,) = turn.tool_calls
    assert call.id == "call_8f3a"
    assert call.name == "write_file"
    assert "\n" in call.arguments
    assert json.loads(call.arguments) == {
        "path": "src/greet.py",
        "content": 'def greet(name):\n    return f"Hello, {name}!"\n',
    }
    assert turn.text == ""
    assert turn.usage == Usage(prompt_tokens=655, completion_tokens=51)


async def test_finish_reason_length() -> None:
    turn, _ = await _replay("openai", "openai_length.sse", "text/event-stream")

    assert turn.text == "The function iterates over"
    assert turn.finish_reason == "length"
    assert turn.usage == Usage()


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        (
            "ollama_show_qwen3.json",
            ModelCapabilities(native_tools=True, thinking=True, context_length=40960),
        ),
        (
            "ollama_show_legacy.json",
            ModelCapabilities(native_tools=True, thinking=False, context_length=131072),
        ),
    ],
)
def test_ollama_show(fixture: str, expected: ModelCapabilities) -> None:
    data = json.loads((FIXTURES / fixture).read_text())

    assert ollama_wire.parse_show(data) == expected


@pytest.mark.parametrize(
    ("fixture", "model", "context"),
    [
        ("llamacpp_models.json", "Qwen3-8B-Q4_K_M.gguf", 40960),
        ("vllm_models.json", "Qwen/Qwen2.5-Coder-14B-Instruct", 32768),
    ],
)
def test_models_context_length(fixture: str, model: str, context: int) -> None:
    entries = openai_wire.parse_models(json.loads((FIXTURES / fixture).read_text()))

    assert [(e.id, e.context) for e in entries] == [(model, context)]
