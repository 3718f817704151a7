"""Fixtures for provider tests: a model double on 127.0.0.1 and providers pointed at it."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# `tests.doubles` lives beside the package; make the repository root importable even when
# pytest runs without the project's `pythonpath` setting.
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from rune_lsp.providers.ollama import OllamaModel  # noqa: E402
from rune_lsp.providers.openai import OpenAIModel  # noqa: E402
from rune_lsp.providers.transport import HttpProvider  # noqa: E402
from rune_lsp.settings import Settings  # noqa: E402
from tests.doubles.model_double import ModelDouble  # noqa: E402

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
        settings = Settings(**values)
        model: HttpProvider = (
            OllamaModel(settings, stream=stream)
            if provider == "ollama"
            else OpenAIModel(settings, stream=stream)
        )
        made.append(model)
        return model

    yield make
    for model in made:
        await model.aclose()
