"""Wire formats of the model servers rune talks to, behind the loop's `Model` port.

`make_model` picks the provider the settings name. Providers own an `httpx.AsyncClient`
(created on first use unless one is passed in) and must be closed with `aclose()`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from rune_lsp.providers.ollama import OllamaModel
from rune_lsp.providers.openai import OpenAIModel
from rune_lsp.providers.transport import HttpProvider, ProtocolPreferences
from rune_lsp.settings import Settings

if TYPE_CHECKING:
    from rune_lsp.providers.local import LocalHooks

__all__ = ["OllamaModel", "OpenAIModel", "make_model"]


def make_model(
    settings: Settings,
    *,
    client: httpx.AsyncClient | None = None,
    stream: bool = True,
    protocols: ProtocolPreferences | None = None,
    local: LocalHooks | None = None,
) -> HttpProvider:
    """The provider for `settings.provider`; a given `client` is borrowed, never closed.
    `protocols` keeps per-model protocol choices across runs (none: this process only);
    `local` says how the `local` provider reports its provisioning (default: silently)."""
    if settings.provider == "ollama":
        return OllamaModel(settings, client=client, stream=stream, protocols=protocols)
    if settings.provider == "local":
        # Imported here: only the local provider needs the process machinery.
        from rune_lsp.providers.local import LocalModel

        return LocalModel(settings, client=client, stream=stream, protocols=protocols, hooks=local)
    return OpenAIModel(settings, client=client, stream=stream, protocols=protocols)
