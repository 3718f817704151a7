"""Against a real model server, when one is named; skipped (with the reason) otherwise.

    RUNE_LIVE_OLLAMA=http://127.0.0.1:11434 RUNE_LIVE_MODEL=qwen3:0.6b pytest -m live
    RUNE_LIVE_OPENAI=http://127.0.0.1:8080/v1 pytest -m live

Only what must hold whatever the model says is asserted: a typed turn, and calls that parse.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator

import pytest

from rune_lsp.loop.messages import Message, ModelTurn, ToolSpec
from rune_lsp.providers import make_model
from rune_lsp.providers.openai import OpenAIModel
from rune_lsp.providers.transport import HttpProvider
from rune_lsp.settings import Settings

pytestmark = pytest.mark.live

ENV = {"ollama": "RUNE_LIVE_OLLAMA", "openai": "RUNE_LIVE_OPENAI"}
DEFAULT_OLLAMA_MODEL = "qwen3:0.6b"
ADD = ToolSpec(
    name="add",
    description="Add two integers and return the sum.",
    parameters={
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)


@pytest.fixture(params=["ollama", "openai"])
async def live(request: pytest.FixtureRequest) -> AsyncIterator[HttpProvider]:
    provider: str = request.param
    base_url = os.environ.get(ENV[provider])
    if not base_url:
        pytest.skip(f"no live {provider} server: set {ENV[provider]} to its base URL")
    model_name = os.environ.get("RUNE_LIVE_MODEL") or DEFAULT_OLLAMA_MODEL
    if provider == "openai" and not os.environ.get("RUNE_LIVE_MODEL"):
        # Whatever the server serves first.
        lister = OpenAIModel(Settings(provider="openai", base_url=base_url))
        try:
            served = await lister.list_models()
        finally:
            await lister.aclose()
        if not served:
            pytest.skip(f"the server at {base_url} lists no models")
        model_name = served[0]
    settings = Settings(
        provider=provider,
        base_url=base_url,
        model=model_name,
        api_key=os.environ.get("RUNE_API_KEY"),
        request_timeout=600,
    )
    model = make_model(settings)
    yield model
    await model.aclose()


async def test_plain_turn(live: HttpProvider) -> None:
    deltas: list[str] = []

    turn = await live.chat(
        [Message(role="user", content="Say hello in one short sentence.")],
        [],
        on_delta=deltas.append,
    )

    assert isinstance(turn, ModelTurn)
    assert "".join(deltas) == turn.text
    assert turn.finish_reason is not None
    assert "<think>" not in turn.text


async def test_tool_turn(live: HttpProvider) -> None:
    caps = await live.capabilities()
    if not caps.native_tools:
        pytest.skip(f"{live.model} has no native tool calling")

    turn = await live.chat(
        [Message(role="user", content="Use the add tool to add 2 and 3.")], [ADD]
    )

    assert isinstance(turn, ModelTurn)
    for call in turn.tool_calls:
        assert call.name == "add"
        arguments = (
            json.loads(call.arguments) if isinstance(call.arguments, str) else call.arguments
        )
        assert isinstance(arguments, dict)
