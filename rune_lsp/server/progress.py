"""Work-done progress for a run: `step N/M · what happens now`, cancellable from the editor."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types

from rune_lsp.interface import MODEL_TEXT
from rune_lsp.loop.events import ModelDelta, PendingApproval, RunEnded, RunEvent, step_line
from rune_lsp.loop.state import PreparedEdit
from rune_lsp.runner.summary import run_summary
from rune_lsp.server.app import RuneServer

log = logging.getLogger(__name__)

#: Seconds to wait for the client to accept a progress token before running without one.
CREATE_TIMEOUT = 10.0


def progress_message(event: RunEvent) -> str | None:
    """The report text for an event, or None for events that do not change the message."""
    if isinstance(event, PendingApproval):
        targets = ", ".join(_target(change) for change in event.pending)
        return f"{event.step} · waiting for review: {targets}"
    if isinstance(event, RunEnded):
        return f"{event.step} · {run_summary(event.result)}"
    return step_line(event)


def _target(change: object) -> str:
    if isinstance(change, PreparedEdit):
        return f"{change.tool} {Path(change.path).name}"
    command = getattr(change, "command", "")
    return f"run_command {command}"


class RunProgress:
    """One `$/progress` token per run. Without client support it only logs.

    The run starts while the client is still accepting the token; what it reports meanwhile
    is sent right after the begin, so no step is lost.
    """

    def __init__(self, server: RuneServer, token: types.ProgressToken, title: str) -> None:
        self._server = server
        self.token = token
        self._title = title
        self._started = False
        self._backlog: list[str] = []

    async def begin(self) -> None:
        if not self._server.progress_support:
            return
        try:
            await asyncio.wait_for(
                self._server.work_done_progress.create_async(self.token), CREATE_TIMEOUT
            )
        except Exception as exc:  # a client that refuses a token still gets its result
            log.info("no progress token %s from the client: %s", self.token, exc)
            return
        self._server.work_done_progress.begin(
            self.token,
            types.WorkDoneProgressBegin(title=self._title, cancellable=True, message="starting"),
        )
        self._started = True
        for message in self._backlog:
            self._send(message)
        self._backlog.clear()

    def report(self, event: RunEvent) -> None:
        if isinstance(event, ModelDelta):
            self._stream(event.text, event.step)
            return
        message = progress_message(event)
        if message is None:
            return
        log.info("%s", message)
        if self._started:
            self._send(message)
        else:
            self._backlog.append(message)

    def _stream(self, text: str, step: str) -> None:
        """The model's words as they come, to a client that shows them (the Rune view): the
        progress message says only what step the run is at. Each piece names its model turn's
        step, so a client tells one answer from the next (an answer asked again, a retry)."""
        if text and self._server.client_streams_text:
            params = {"token": self.token, "text": text, "step": step}
            self._server.protocol.notify(MODEL_TEXT, params)

    def _send(self, message: str) -> None:
        self._server.work_done_progress.report(
            self.token, types.WorkDoneProgressReport(message=message, cancellable=True)
        )

    def end(self, message: str) -> None:
        self._backlog.clear()
        if self._started:
            self._server.work_done_progress.end(
                self.token, types.WorkDoneProgressEnd(message=message)
            )
            self._started = False
        self._server.work_done_progress.tokens.pop(self.token, None)
