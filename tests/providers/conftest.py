"""Fixtures for provider tests: a model double on 127.0.0.1 and providers pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from rune_lsp.providers import make_model
from rune_lsp.providers.transport import HttpProvider
from rune_lsp.settings import Settings
from tests.doubles.model_double import ModelDouble

Connect = Callable[..., HttpProvider]


@pytest.fixture
def double() -> Iterator[ModelDouble]:
    with ModelDouble() as running:
        yield running


@pytest.fixture(params=["ollama", "openai"])
def provider(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
async def connect(double: ModelDouble) -> AsyncIterator[Connect]:
    """`connect(provider, stream=True, **settings)`: a provider aimed at the double."""
    made: list[HttpProvider] = []

    def make(provider: str, *, stream: bool = True, **overrides: Any) -> HttpProvider:
        values: dict[str, Any] = {
            "provider": provider,
            "base_url": double.base_url(provider),
            "model": "qwen3:14b",
            **overrides,
        }
        model = make_model(Settings(**values), stream=stream)
        made.append(model)
        return model

    yield make
    for model in made:
        await model.aclose()
