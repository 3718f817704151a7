"""`make_model` and the providers' ownership of their HTTP client."""

from __future__ import annotations

import httpx

from rune_lsp.loop.messages import Message
from rune_lsp.providers import make_model
from rune_lsp.providers.ollama import OllamaModel
from rune_lsp.providers.openai import OpenAIModel
from rune_lsp.settings import Settings
from tests.doubles.model_double import ModelDouble

ASK = [Message(role="user", content="hi")]


async def test_factory_picks_the_provider_from_settings() -> None:
    ollama = make_model(Settings(provider="ollama"))
    openai = make_model(Settings(provider="openai"))

    assert isinstance(ollama, OllamaModel)
    assert isinstance(openai, OpenAIModel)
    assert ollama.endpoint.base_url == "http://127.0.0.1:11434"
    assert openai.endpoint.base_url == "http://127.0.0.1:8080/v1"
    await ollama.aclose()
    await openai.aclose()


async def test_a_borrowed_client_is_used_and_left_open(double: ModelDouble) -> None:
    async with httpx.AsyncClient(headers={"x-test": "borrowed"}) as client:
        model = make_model(Settings(provider="ollama", base_url=double.ollama_url), client=client)
        await model.chat(ASK, [])
        await model.aclose()

        assert not client.is_closed
        assert all(r.headers.get("x-test") == "borrowed" for r in double.requests)


async def test_an_owned_client_is_created_on_first_use_and_closed(double: ModelDouble) -> None:
    model = make_model(Settings(provider="openai", base_url=double.openai_url))
    assert isinstance(model, OpenAIModel)
    await model.aclose()  # nothing opened yet: nothing to do

    await model.chat(ASK, [])
    client = model._client
    await model.aclose()

    assert client is not None and client.is_closed
    assert (await model.chat(ASK, [])).text == "done"  # a fresh client after closing
    await model.aclose()


def test_repr_names_the_model_and_hides_the_key() -> None:
    model = make_model(
        Settings(provider="openai", base_url="https://u:pw@api.example/v1", api_key="sk-abc")
    )

    assert repr(model) == (
        "OpenAIModel(model='qwen3:14b', base_url='https://api.example/v1', stream=True)"
    )
