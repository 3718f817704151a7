"""The OpenAI-compatible provider against a real llama-server and a real (tiny) model.

Only what must hold whatever the model says is asserted: a typed turn whose streamed pieces add
up to its text, a finish reason, token counts, and calls the loop can take apart without error.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from rune_lsp.loop.messages import Message, ModelTurn, Usage
from rune_lsp.loop.normalize import IdAllocator, normalize_calls
from rune_lsp.providers import make_model
from rune_lsp.providers.openai import OpenAIModel
from rune_lsp.providers.transport import HttpProvider
from rune_lsp.settings import Settings
from rune_lsp.tools.catalog import TOOLS
from tests.live.llama import MODEL_ALIAS, LlamaOptions, LlamaServer, StartLlama

pytestmark = pytest.mark.live

SPECS = [tool.spec for tool in TOOLS]
DEFINITIONS = {tool.spec.name: tool for tool in TOOLS}
#: The server's reasons, plus "repetition": the provider's own cut of a stream that repeats
#: itself (providers/stream_limits.py), which a tiny model like SmolLM2 does readily.
FINISH_REASONS = {"stop", "length", "tool_calls", "repetition"}
TURNS_IN_A_ROW = 12


def settings_for(llama: LlamaServer) -> Settings:
    return Settings(
        provider="openai", base_url=llama.base_url, model=MODEL_ALIAS, request_timeout=120
    )


@pytest.fixture
async def model(llama: LlamaServer) -> AsyncIterator[HttpProvider]:
    made = make_model(settings_for(llama))
    yield made
    await made.aclose()


def assert_typed_turn(turn: ModelTurn) -> None:
    assert isinstance(turn, ModelTurn)
    assert turn.finish_reason in FINISH_REASONS
    if turn.cut is not None and turn.cut.reason != "length":
        # The provider closed the stream itself: the server's last chunk, which carries the
        # token counts, never came, and the counts stay unknown rather than made up.
        assert turn.usage == Usage()
        return
    assert turn.usage.prompt_tokens and turn.usage.prompt_tokens > 0
    assert turn.usage.completion_tokens is not None


async def test_plain_turn_streams_the_text_it_returns(model: HttpProvider) -> None:
    deltas: list[str] = []

    turn = await model.chat(
        [Message(role="user", content="Say hello in one short sentence.")],
        [],
        on_delta=deltas.append,
    )

    assert_typed_turn(turn)
    assert turn.text.strip()
    assert "".join(deltas) == turn.text
    assert turn.tool_calls == ()


async def test_plain_turn_without_streaming(llama: LlamaServer) -> None:
    model = OpenAIModel(settings_for(llama), stream=False)
    try:
        turn = await model.chat([Message(role="user", content="Name one colour.")], [])
    finally:
        await model.aclose()

    assert_typed_turn(turn)
    assert turn.text.strip()


async def test_tool_turn_gives_calls_the_loop_can_take_apart(model: HttpProvider) -> None:
    turn = await model.chat(
        [
            Message(role="system", content="You are a coding agent. Use your tools."),
            Message(role="user", content="Read the file calc.py."),
        ],
        SPECS,
    )

    assert_typed_turn(turn)
    # Whatever the model made of it: each call comes out with a name, an id, an object for
    # arguments, and either valid arguments or the message that asks for a repair.
    normalized = normalize_calls(turn.tool_calls, DEFINITIONS, IdAllocator(set(), 1))
    for item in normalized:
        assert item.call.id
        assert isinstance(item.call.arguments, dict)
        assert (item.arguments is None) != (item.error is None)
    if turn.finish_reason == "tool_calls":
        assert turn.tool_calls, "finish_reason tool_calls with no call"


async def test_capabilities_and_model_list_come_from_the_server(llama: LlamaServer) -> None:
    model = OpenAIModel(settings_for(llama))
    try:
        capabilities = await model.capabilities()
        served = await model.list_models()
    finally:
        await model.aclose()

    assert MODEL_ALIAS in served
    assert capabilities.native_tools is True
    # llama.cpp reports the context it serves (`-c`) in `meta.n_ctx`: the history's budget.
    assert capabilities.context_length == llama.install.context


async def test_native_tools_off_sends_no_tools_and_the_model_still_answers(
    llama: LlamaServer,
) -> None:
    settings = settings_for(llama).model_copy(update={"native_tools": False})
    model = make_model(settings)
    try:
        capabilities = await model.capabilities()
        turn = await model.chat([Message(role="user", content="Say ok.")], [])
    finally:
        await model.aclose()

    assert capabilities.native_tools is False
    assert_typed_turn(turn)


async def test_many_streamed_turns_on_one_connection_all_answer(start_llama: StartLlama) -> None:
    # llama.cpp's server closes a kept-alive connection after a few streamed answers without
    # saying so; before the provider sent such a request again, one turn in a handful failed.
    short = start_llama(LlamaOptions(max_predict=30))
    # Each request names its own output cap now (`maxOutputTokens`), over the server's `-n`.
    model = make_model(settings_for(short).model_copy(update={"max_output_tokens": 30}))
    try:
        turns = [
            await model.chat([Message(role="user", content=f"Count to {n}.")], [])
            for n in range(TURNS_IN_A_ROW)
        ]
    finally:
        await model.aclose()

    assert len(turns) == TURNS_IN_A_ROW
    for turn in turns:
        assert_typed_turn(turn)
