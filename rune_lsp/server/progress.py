"""Work-done progress for a run: `step N/M · what happens now`, cancellable from the editor."""

from __future__ import annotations

import logging
from pathlib import Path

from lsprotocol import types

from rune_lsp.loop.state import (
    ModelTurnStarted,
    PendingApproval,
    PreparedEdit,
    RunEnded,
    RunEvent,
    ToolRequested,
    describe_call,
)
from rune_lsp.server.app import RuneServer

log = logging.getLogger(__name__)


def progress_message(event: RunEvent) -> str | None:
    """The report text for an event, or None for events that do not change the message."""
    if isinstance(event, ModelTurnStarted):
        return f"{event.step} · asking the model"
    if isinstance(event, ToolRequested):
        return f"{event.step} · {describe_call(event.call)}"
    if isinstance(event, PendingApproval):
        targets = ", ".join(_target(change) for change in event.pending)
        return f"{event.step} · waiting for review: {targets}"
    if isinstance(event, RunEnded):
        return f"{event.step} · {event.result.outcome}"
    return None


def _target(change: object) -> str:
    if isinstance(change, PreparedEdit):
        return f"{change.tool} {Path(change.path).name}"
    command = getattr(change, "command", "")
    return f"run_command {command}"


class RunProgress:
    """One `$/progress` token per run. Without client support it only logs."""

    def __init__(self, server: RuneServer, token: types.ProgressToken, title: str) -> None:
        self._server = server
        self.token = token
        self._title = title
        self._started = False

    async def begin(self) -> None:
        if not self._server.progress_support:
            return
        try:
            await self._server.work_done_progress.create_async(self.token)
        except Exception as exc:  # a client that refuses a token still gets its result
            log.info("client refused progress token %s: %s", self.token, exc)
            return
        self._server.work_done_progress.begin(
            self.token,
            types.WorkDoneProgressBegin(title=self._title, cancellable=True, message="starting"),
        )
        self._started = True

    def report(self, event: RunEvent) -> None:
        message = progress_message(event)
        if message is None:
            return
        log.info("%s", message)
        if self._started:
            self._server.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message, cancellable=True)
            )

    def end(self, message: str) -> None:
        if self._started:
            self._server.work_done_progress.end(
                self.token, types.WorkDoneProgressEnd(message=message)
            )
            self._started = False
        self._server.work_done_progress.tokens.pop(self.token, None)
