"""Delivering run events to an optional sink that may be sync or async.

Progress is best effort: a sink that raises is logged and ignored, never allowed to end a run.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable

from rune_lsp.loop.state import RunEvent

EventSink = Callable[[RunEvent], Awaitable[None] | None]

log = logging.getLogger(__name__)


class EventEmitter:
    def __init__(self, sink: EventSink | None) -> None:
        self._sink = sink
        self._scheduled: set[asyncio.Future[None]] = set()

    async def emit(self, event: RunEvent) -> None:
        pending = self._call(event)
        if pending is not None:
            try:
                await pending
            except Exception:
                log.exception("run event sink failed on %s", event.kind)

    def emit_soon(self, event: RunEvent) -> None:
        """For sync callbacks (model deltas): an async sink's work is awaited by `drain`."""
        pending = self._call(event)
        if pending is not None:
            future = asyncio.ensure_future(pending)
            self._scheduled.add(future)
            future.add_done_callback(self._done)

    async def drain(self) -> None:
        if self._scheduled:
            await asyncio.gather(*self._scheduled, return_exceptions=True)

    def cancel_scheduled(self) -> None:
        for future in self._scheduled:
            future.cancel()

    def _call(self, event: RunEvent) -> Awaitable[None] | None:
        if self._sink is None:
            return None
        try:
            result = self._sink(event)
        except Exception:
            log.exception("run event sink failed on %s", event.kind)
            return None
        return result if inspect.isawaitable(result) else None

    def _done(self, future: asyncio.Future[None]) -> None:
        self._scheduled.discard(future)
        if not future.cancelled() and future.exception() is not None:
            log.error("run event sink failed: %s", future.exception())
