"""Wire formats of the model servers rune talks to, behind the loop's `Model` port.

`make_model` picks the provider the settings name. Providers own an `httpx.AsyncClient`
(created on first use unless one is passed in) and must be closed with `aclose()`.
"""

from __future__ import annotations

import httpx

from rune_lsp.providers.ollama import OllamaModel
from rune_lsp.providers.openai import OpenAIModel
from rune_lsp.providers.transport import HttpProvider, ProtocolPreferences
from rune_lsp.settings import Settings

__all__ = ["OllamaModel", "OpenAIModel", "make_model"]


def make_model(
    settings: Settings,
    *,
    client: httpx.AsyncClient | None = None,
    stream: bool = True,
    protocols: ProtocolPreferences | None = None,
) -> HttpProvider:
    """The provider for `settings.provider`; a given `client` is borrowed, never closed.
    `protocols` keeps per-model protocol choices across runs (none: this process only)."""
    if settings.provider == "ollama":
        return OllamaModel(settings, client=client, stream=stream, protocols=protocols)
    return OpenAIModel(settings, client=client, stream=stream, protocols=protocols)
