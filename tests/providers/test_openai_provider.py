"""The OpenAI-compatible provider against the double: exact request bodies and parsed turns."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from rune_lsp.loop.messages import (
    Message,
    ModelCapabilities,
    RawToolCall,
    ToolCall,
    ToolSpec,
    Usage,
)
from rune_lsp.loop.ports import ToolsUnsupportedError
from rune_lsp.providers.errors import ProviderHTTPError
from rune_lsp.providers.openai import OpenAIModel
from rune_lsp.providers.transport import HttpProvider
from rune_lsp.settings import Settings
from tests.doubles.model_double import (
    Call,
    HttpError,
    ModelDouble,
    ModelInfo,
    Reply,
    ToolsRejected,
)

Connect = Callable[..., HttpProvider]

EDIT_FILE = ToolSpec(
    name="edit_file",
    description="Replace text in a file.",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old_text": {"type": "string"},
            "new_text": {"type": "string"},
        },
        "required": ["path", "old_text", "new_text"],
    },
    mutating=True,
)

CONVERSATION = [
    Message(role="system", content="You fix code."),
    Message(role="user", content="Rename x"),
    Message(
        role="assistant",
        content="",
        tool_calls=(
            ToolCall(id="call_9", name="edit_file", arguments={"path": "é.py", "old_text": "x"}),
        ),
    ),
    Message(role="tool", content="applied", tool_call_id="call_9", name="edit_file"),
]


async def test_streamed_request_maps_messages_tool_results_and_tools(
    double: ModelDouble, connect: Connect
) -> None:
    await connect("openai").chat(CONVERSATION, [EDIT_FILE])

    body = double.last_chat_body()
    assert body == {
        "model": "qwen3:14b",
        "messages": [
            {"role": "system", "content": "You fix code."},
            {"role": "user", "content": "Rename x"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "call_9",
                        "type": "function",
                        "function": {
                            "name": "edit_file",
                            "arguments": '{"path": "é.py", "old_text": "x"}',
                        },
                    }
                ],
            },
            {"role": "tool", "content": "applied", "tool_call_id": "call_9"},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        # No window known yet: the cap fits the default one (a quarter of 8192).
        "max_tokens": 2048,
        "temperature": 0.2,
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "edit_file",
                    "description": "Replace text in a file.",
                    "parameters": EDIT_FILE.parameters,
                },
            }
        ],
    }
    assert double.chat_requests[0].path == "/v1/chat/completions"


async def test_non_streamed_request_has_no_stream_options(
    double: ModelDouble, connect: Connect
) -> None:
    await connect("openai", stream=False).chat(CONVERSATION, [])

    body = double.last_chat_body()
    assert body["stream"] is False
    assert "stream_options" not in body
    assert "tools" not in body


async def test_streamed_fragments_are_reassembled(double: ModelDouble, connect: Connect) -> None:
    arguments = '{"path": "src/app.py", "old_text": "a = 1\\n", "new_text": "a = 2\\n"}'
    double.script(
        Reply(
            text="Changing it.",
            thinking="Need to edit.",
            tool_calls=(
                Call("edit_file", arguments, id="call_a"),
                Call("read_file", {"path": "b.py"}),
            ),
            prompt_tokens=100,
            completion_tokens=40,
        )
    )
    deltas: list[str] = []

    turn = await connect("openai").chat(CONVERSATION, [EDIT_FILE], on_delta=deltas.append)

    assert turn.text == "Changing it."
    assert deltas == ["Changing ", "it."]
    assert turn.thinking == "Need to edit."
    assert turn.tool_calls[0] == RawToolCall(id="call_a", name="edit_file", arguments=arguments)
    assert turn.tool_calls[1].name == "read_file"
    assert json.loads(turn.tool_calls[1].arguments) == {"path": "b.py"}
    assert turn.tool_calls[1].id
    assert turn.usage == Usage(prompt_tokens=100, completion_tokens=40)
    assert turn.finish_reason == "tool_calls"


async def test_non_streamed_turn(double: ModelDouble, connect: Connect) -> None:
    double.script(
        Reply(
            text="Here.",
            thinking="Short.",
            tool_calls=(Call("list_dir", {"path": "."}, id="c1"),),
            finish_reason="tool_calls",
        )
    )
    deltas: list[str] = []

    turn = await connect("openai", stream=False).chat(CONVERSATION, [], on_delta=deltas.append)

    assert turn.text == "Here."
    assert deltas == ["Here."]
    assert turn.thinking == "Short."
    assert turn.tool_calls == (RawToolCall(id="c1", name="list_dir", arguments='{"path": "."}'),)
    assert turn.usage == Usage(prompt_tokens=12, completion_tokens=5)
    assert turn.finish_reason == "tool_calls"


async def test_finish_reason_length_is_kept(double: ModelDouble, connect: Connect) -> None:
    double.script(Reply(text="cut", finish_reason="length"))

    turn = await connect("openai").chat(CONVERSATION, [])

    assert turn.finish_reason == "length"


async def test_capabilities_read_context_from_models_once(
    double: ModelDouble, connect: Connect
) -> None:
    model = connect("openai")

    first = await model.capabilities()
    second = await model.capabilities()

    assert (
        first
        == second
        == ModelCapabilities(native_tools=True, context_length=40960, adaptive_protocol=True)
    )
    assert [r.path for r in double.requests] == ["/v1/models"]


async def test_unlisted_model_has_unknown_context(double: ModelDouble, connect: Connect) -> None:
    double.serve_any_model = True

    caps = await connect("openai", model="whatever.gguf").capabilities()

    assert caps == ModelCapabilities(native_tools=True, context_length=None, adaptive_protocol=True)


async def test_the_context_length_setting_caps_what_the_server_reports(
    double: ModelDouble, connect: Connect
) -> None:
    assert (await connect("openai", context_length=16384).capabilities()).context_length == 16384
    assert (await connect("openai", context_length=65536).capabilities()).context_length == 40960
    double.serve_any_model = True
    unknown = connect("openai", model="whatever.gguf", context_length=4096)
    assert (await unknown.capabilities()).context_length == 4096
    await unknown.chat([Message(role="user", content="hi")], [])
    assert "options" not in double.last_chat_body()  # Ollama's field, not the OpenAI API's


async def test_native_tools_off_by_setting(connect: Connect) -> None:
    caps = await connect("openai", native_tools=False).capabilities()

    assert caps.native_tools is False


async def test_tools_rejected_once_is_remembered(double: ModelDouble, connect: Connect) -> None:
    double.script(ToolsRejected())
    model = connect("openai")
    assert (await model.capabilities()).native_tools is True

    with pytest.raises(ToolsUnsupportedError, match="tools param requires --jinja"):
        await model.chat(CONVERSATION, [EDIT_FILE])

    assert (await model.capabilities()).native_tools is False
    turn = await model.chat(CONVERSATION, [])
    assert turn.text == "done"
    assert (await model.capabilities()).native_tools is False


async def test_rejection_wins_over_forced_native_tools(
    double: ModelDouble, connect: Connect
) -> None:
    double.models = (ModelInfo("plain", capabilities=("completion",)),)
    model = connect("openai", model="plain", native_tools=True)

    with pytest.raises(ToolsUnsupportedError):
        await model.chat(CONVERSATION, [EDIT_FILE])

    assert (await model.capabilities()).native_tools is False


async def test_a_400_not_about_tools_is_no_tools_rejection(
    double: ModelDouble, connect: Connect
) -> None:
    double.script(HttpError(400, "messages must alternate"))
    model = connect("openai")

    with pytest.raises(ProviderHTTPError):
        await model.chat(CONVERSATION, [EDIT_FILE])

    assert (await model.capabilities()).native_tools is True


async def test_api_key_is_sent_as_bearer(double: ModelDouble, connect: Connect) -> None:
    double.api_key = "sk-test-abc"
    model = connect("openai", api_key="sk-test-abc")

    await model.capabilities()
    await model.chat(CONVERSATION, [])

    assert [r.path for r in double.requests] == ["/v1/models", "/v1/chat/completions"]
    assert all(r.headers["authorization"] == "Bearer sk-test-abc" for r in double.requests)


async def test_no_authorization_header_without_a_key(double: ModelDouble, connect: Connect) -> None:
    await connect("openai").chat(CONVERSATION, [])

    assert all("authorization" not in r.headers for r in double.requests)


async def test_server_that_ignores_stream_true_still_works() -> None:
    # Some servers answer a streamed request with one JSON completion; no double needed to
    # show that, only a transport that does it.
    completion = {
        "choices": [{"message": {"content": "plain answer"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
    }

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=completion)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        model = OpenAIModel(Settings(provider="openai", model="m"), client=client)
        deltas: list[str] = []
        turn = await model.chat(CONVERSATION, [], on_delta=deltas.append)

    assert turn.text == "plain answer"
    assert deltas == ["plain answer"]
    assert turn.usage == Usage(prompt_tokens=3, completion_tokens=2)
