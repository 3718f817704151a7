"""The Ollama provider against the double: exact request bodies and parsed turns."""

from __future__ import annotations

from collections.abc import Callable

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
from rune_lsp.providers.transport import HttpProvider
from tests.doubles.model_double import Call, ModelDouble, ModelInfo, Reply

Connect = Callable[..., HttpProvider]

READ_FILE = ToolSpec(
    name="read_file",
    description="Read a file of the workspace.",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
)

CONVERSATION = [
    Message(role="system", content="You fix code."),
    Message(role="user", content="Fix a.py"),
    Message(
        role="assistant",
        content="Let me look.",
        tool_calls=(ToolCall(id="call_1", name="read_file", arguments={"path": "a.py"}),),
    ),
    Message(role="tool", content="print('hi')", tool_call_id="call_1", name="read_file"),
]

NO_THINKING = ModelInfo("llama3.2:3b", capabilities=("completion", "tools"), architecture="llama")


async def test_request_maps_messages_tool_results_and_tools(
    double: ModelDouble, connect: Connect
) -> None:
    await connect("ollama").chat(CONVERSATION, [READ_FILE])

    assert double.last_chat_body() == {
        "model": "qwen3:14b",
        "messages": [
            {"role": "system", "content": "You fix code."},
            {"role": "user", "content": "Fix a.py"},
            {
                "role": "assistant",
                "content": "Let me look.",
                "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "a.py"}}}],
            },
            {"role": "tool", "content": "print('hi')", "tool_name": "read_file"},
        ],
        "stream": True,
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "read_file",
                    "description": "Read a file of the workspace.",
                    "parameters": READ_FILE.parameters,
                },
            }
        ],
        "think": True,
        # Trained for 40,960 tokens; asked for the default window, never Ollama's own default.
        # The output cap is fitted to that window (a quarter, at most 2048); sampling is low.
        "options": {"num_ctx": 8192, "num_predict": 2048, "temperature": 0.2},
    }


@pytest.mark.parametrize(
    ("setting", "trained", "window"),
    [
        (None, 40960, 8192),  # the default window, well under the trained length
        (None, 4096, 4096),  # never more than the model was trained for
        (None, None, 8192),  # /api/show says nothing: the default window
        (16384, 40960, 16384),  # the setting wins
        (65536, 40960, 40960),  # ... up to the trained length
    ],
)
async def test_the_window_asked_of_ollama_is_the_one_the_history_is_fitted_to(
    double: ModelDouble, connect: Connect, setting: int | None, trained: int | None, window: int
) -> None:
    double.models = (ModelInfo("qwen3:14b", context_length=trained),)
    model = connect("ollama", context_length=setting)

    assert (await model.capabilities()).context_length == window
    await model.chat([Message(role="user", content="hi")], [])
    assert double.last_chat_body()["options"]["num_ctx"] == window


async def test_no_tools_field_when_the_loop_sends_none(
    double: ModelDouble, connect: Connect
) -> None:
    await connect("ollama").chat([Message(role="user", content="hi")], [])

    assert "tools" not in double.last_chat_body()


async def test_streamed_turn_keeps_thinking_apart_and_reports_deltas(
    double: ModelDouble, connect: Connect
) -> None:
    double.script(
        Reply(
            text="I will read it.",
            thinking="The user wants a fix.",
            tool_calls=(Call("read_file", {"path": "a.py"}),),
            prompt_tokens=31,
            completion_tokens=9,
        )
    )
    deltas: list[str] = []

    turn = await connect("ollama").chat(CONVERSATION, [READ_FILE], on_delta=deltas.append)

    assert turn.text == "I will read it."
    assert deltas == ["I ", "will ", "read ", "it."]
    assert turn.thinking == "The user wants a fix."
    assert turn.tool_calls == (RawToolCall(id=None, name="read_file", arguments={"path": "a.py"}),)
    assert turn.usage == Usage(prompt_tokens=31, completion_tokens=9)
    assert turn.finish_reason == "stop"


async def test_non_streamed_turn(double: ModelDouble, connect: Connect) -> None:
    double.script(
        Reply(text="Done.", thinking="easy", tool_calls=(Call("list_dir", {"path": "."}),))
    )
    deltas: list[str] = []

    turn = await connect("ollama", stream=False).chat(
        CONVERSATION, [READ_FILE], on_delta=deltas.append
    )

    assert double.last_chat_body()["stream"] is False
    assert turn.text == "Done."
    assert deltas == ["Done."]
    assert turn.thinking == "easy"
    assert turn.tool_calls == (RawToolCall(name="list_dir", arguments={"path": "."}),)
    assert turn.usage == Usage(prompt_tokens=12, completion_tokens=5)


async def test_call_id_is_taken_when_ollama_sends_one(
    double: ModelDouble, connect: Connect
) -> None:
    double.script(Reply(tool_calls=(Call("read_file", {"path": "b.py"}, id="call_x1"),)))

    turn = await connect("ollama").chat(CONVERSATION, [READ_FILE])

    assert turn.tool_calls[0].id == "call_x1"


async def test_finish_reason_length_is_kept(double: ModelDouble, connect: Connect) -> None:
    double.script(Reply(text="a long", finish_reason="length"))

    turn = await connect("ollama").chat(CONVERSATION, [])

    assert turn.finish_reason == "length"


async def test_model_without_thinking_gets_no_think_and_inline_thinking_is_hidden(
    double: ModelDouble, connect: Connect
) -> None:
    double.models = (NO_THINKING,)
    double.script(Reply(text="The answer.", thinking="Inline reasoning."))
    deltas: list[str] = []

    turn = await connect("ollama", model="llama3.2:3b").chat(
        CONVERSATION, [READ_FILE], on_delta=deltas.append
    )

    assert "think" not in double.last_chat_body()
    assert turn.text == "The answer."
    assert "".join(deltas) == "The answer."
    assert turn.thinking == "Inline reasoning."


async def test_capabilities_come_from_one_show_request(
    double: ModelDouble, connect: Connect
) -> None:
    model = connect("ollama")

    first = await model.capabilities()
    await model.chat(CONVERSATION, [READ_FILE])
    second = await model.capabilities()

    # 8192: the window asked of Ollama, not the 40960 the model was trained for.
    assert (
        first
        == second
        == ModelCapabilities(
            native_tools=True, thinking=True, context_length=8192, adaptive_protocol=True
        )
    )
    shows = [r for r in double.requests if r.path == "/api/show"]
    assert [r.body for r in shows] == [{"model": "qwen3:14b"}]


async def test_model_without_tools_capability_reports_no_native_tools(
    double: ModelDouble, connect: Connect
) -> None:
    double.models = (ModelInfo("gemma:2b", capabilities=("completion",), context_length=8192),)

    caps = await connect("ollama", model="gemma:2b").capabilities()

    assert caps == ModelCapabilities(native_tools=False, thinking=False, context_length=8192)


@pytest.mark.parametrize(("setting", "expected"), [(True, True), (False, False), (None, False)])
async def test_native_tools_setting_overrides_discovery(
    double: ModelDouble, connect: Connect, setting: bool | None, expected: bool
) -> None:
    double.models = (ModelInfo("gemma:2b", capabilities=("completion",)),)

    caps = await connect("ollama", model="gemma:2b", native_tools=setting).capabilities()

    assert caps.native_tools is expected


async def test_disabling_native_tools_on_a_tools_model(connect: Connect) -> None:
    caps = await connect("ollama", native_tools=False).capabilities()

    assert caps.native_tools is False


async def test_forced_tools_refused_by_ollama_switch_to_text_protocol(
    double: ModelDouble, connect: Connect
) -> None:
    double.models = (ModelInfo("gemma:2b", capabilities=("completion",)),)
    model = connect("ollama", model="gemma:2b", native_tools=True)

    with pytest.raises(ToolsUnsupportedError, match="does not support tools"):
        await model.chat(CONVERSATION, [READ_FILE])

    assert (await model.capabilities()).native_tools is False
    turn = await model.chat(CONVERSATION, [])
    assert turn.text == "done"


async def test_api_key_is_sent_as_bearer_on_every_request(
    double: ModelDouble, connect: Connect
) -> None:
    double.api_key = "ollama-key-123"

    await connect("ollama", api_key="ollama-key-123").chat(CONVERSATION, [])

    assert {r.path for r in double.requests} == {"/api/show", "/api/chat"}
    assert all(r.headers["authorization"] == "Bearer ollama-key-123" for r in double.requests)


async def test_no_authorization_header_without_a_key(double: ModelDouble, connect: Connect) -> None:
    await connect("ollama").chat(CONVERSATION, [])

    assert all("authorization" not in r.headers for r in double.requests)
