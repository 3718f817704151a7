"""The server's model provider: one at a time, built for the current settings.

A provider holds an HTTP client (and, for `local`, a lease on a model server), so it is kept
across runs and replaced only when a setting it is built from changes; the old one is closed
in the background, never under a run still using it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rune_lsp.loop.ports import Model
from rune_lsp.providers.transport import HttpProvider
from rune_lsp.settings import Settings
from rune_lsp.store.protocols import ProtocolMemory

if TYPE_CHECKING:
    from rune_lsp.server.local_setup import LocalSetup


class ModelCache:
    """Call it with the settings for the provider they name."""

    def __init__(self, local: LocalSetup | None = None) -> None:
        self._local = local
        self._current: tuple[tuple[object, ...], HttpProvider] | None = None
        self._closing: set[asyncio.Future[None]] = set()

    def __call__(self, settings: Settings) -> HttpProvider:
        from rune_lsp.providers import make_model

        key = _key(settings)
        if self._current is None or self._current[0] != key:
            if self._current is not None:
                closing = asyncio.ensure_future(_close(self._current[1]))
                self._closing.add(closing)
                closing.add_done_callback(self._closing.discard)
            memory = ProtocolMemory(settings.resolved_state_dir)
            hooks = self._local.hooks() if self._local is not None else None
            self._current = (key, make_model(settings, protocols=memory, local=hooks))
        return self._current[1]

    async def aclose(self) -> None:
        if self._current is not None:
            await _close(self._current[1])
            self._current = None


def _key(settings: Settings) -> tuple[object, ...]:
    """Every setting a provider is built from."""
    return (
        settings.provider,
        settings.resolved_base_url,
        settings.model,
        settings.api_key,
        settings.request_timeout,
        settings.native_tools,
        settings.context_length,
        settings.max_output_tokens,
        settings.temperature,
        settings.resolved_state_dir,
        settings.local_model,
        settings.local_server_path,
        settings.local_port,
        settings.local_threads,
    )


async def _close(model: Model) -> None:
    close = getattr(model, "aclose", None)  # a test's scripted model may have none
    if close is not None:
        await close()
