"""The editor's side of the `local` provider: the offer when Ollama is down, the set-up that
`rune.setupLocal` runs, and work-done progress while the model server is built, downloaded or
started.

A model server that died since (twice, or with its owner) is not "started": `start` and
`rune.setupLocal` give its lease back and provision anew, and "ready" is said only of a server
that answers a health request. Provisioning reports from a worker thread; the reports hop onto
the event loop here. Its progress is cancellable: cancelling it stops the build or download
(nothing half-made is kept) and fails the run that was waiting for it with that reason.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from rune_lsp.server.app import RuneServer

if TYPE_CHECKING:
    from rune_lsp.localmodel.progress import Step
    from rune_lsp.providers.local import LocalHooks, LocalModel
    from rune_lsp.providers.transport import HttpProvider
    from rune_lsp.settings import Settings

#: The provider a run would use under these settings (the run manager's cached one).
ModelFor = Callable[["Settings"], "HttpProvider"]
#: Re-applies the last configuration (lifecycle owns how settings are built).
Reapply = Callable[[], None]

log = logging.getLogger(__name__)

SET_UP = "Set up local model"
NOT_NOW = "Not now"
_REPORT_EVERY = 0.25  # seconds: a download reports five times a second


class LocalSetup:
    def __init__(self, server: RuneServer) -> None:
        self.server = server
        self.token: str | None = None
        self._task: asyncio.Future[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last = ("", 0.0)

    def hooks(self) -> LocalHooks:
        from rune_lsp.providers.local import LocalHooks

        return LocalHooks(progress=self._from_thread, notice=self._notice_from_thread)

    # --- provisioning with progress -----------------------------------------------------------

    async def start(self, model: LocalModel) -> None:
        """`model.ensure_started()` under a progress of its own; raises LocalModelUnavailable
        when it fails or the user cancels that progress."""
        from rune_lsp.providers.local import LocalModelUnavailable

        self._loop = asyncio.get_running_loop()
        if await model.answering():  # every run after the first: nothing to show
            return
        token = f"rune/local/{uuid.uuid4().hex[:8]}"
        started = await self._begin(token, f"Rune: starting the local model ({model.model})")
        inner = asyncio.ensure_future(model.ensure_started())
        self._task = inner
        outcome = "failed"
        try:
            await inner
            outcome = f"{model.model} is up"
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                inner.cancel()
                raise  # the run itself was cancelled
            outcome = "cancelled"
            raise LocalModelUnavailable("setting up the local model was cancelled") from None
        finally:
            self._task = None
            self.token = None
            if started:
                self.server.work_done_progress.end(
                    token, types.WorkDoneProgressEnd(message=outcome)
                )

    async def _begin(self, token: str, title: str) -> bool:
        if not self.server.progress_support:
            return False
        try:
            await asyncio.wait_for(self.server.work_done_progress.create_async(token), 10)
        except Exception as exc:  # no progress, same work
            log.info("no progress token from the client: %s", exc)
            return False
        self.server.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title=title, cancellable=True)
        )
        self.token = token
        return True

    def cancel_token(self, token: types.ProgressToken) -> bool:
        if token != self.token or self._task is None:
            return False
        self._task.cancel()
        return True

    def _from_thread(self, step: Step) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._report, step)

    def _report(self, step: Step) -> None:
        text = step.describe()
        now = time.monotonic()
        if step.message == self._last[0] and now - self._last[1] < _REPORT_EVERY:
            return
        self._last = (step.message, now)
        log.info("local model: %s", text)
        if self.token is not None:
            self.server.work_done_progress.report(
                self.token,
                types.WorkDoneProgressReport(
                    message=text, percentage=step.percent, cancellable=True
                ),
            )

    def _notice_from_thread(self, message: str) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.server.tell, message, types.MessageType.Warning)

    # --- the offer ----------------------------------------------------------------------------

    async def offer_if_needed(self, model_for: ModelFor, reapply: Reapply) -> None:
        """When the user set no provider and Ollama does not answer: use a provisioned local
        model (and say so), or offer to set one up."""
        from rune_lsp.providers.resolve import resolve_provider

        resolution = await resolve_provider(self.server.settings)
        if resolution.note:
            self.use_local(reapply)
            self.server.tell(f"rune: {resolution.note}")
            return
        if resolution.offered is None:
            return
        text = resolution.offer_text(f"`{SET_UP}`")
        self.server.log(f"rune: {text}", types.MessageType.Warning)
        try:
            choice = await self.server.window_show_message_request_async(
                types.ShowMessageRequestParams(
                    type=types.MessageType.Warning,
                    message=f"rune: {text}",
                    actions=[types.MessageActionItem(SET_UP), types.MessageActionItem(NOT_NOW)],
                )
            )
        except Exception as exc:  # a client without message requests: the log says it
            log.info("the offer of a local model went unanswered: %s", exc)
            return
        if choice is not None and choice.title == SET_UP:
            await self.setup(model_for, reapply)

    def use_local(self, reapply: Reapply) -> None:
        """From now on an unset provider means `local` (kept across settings re-reads)."""
        self.server.provider_fallback = "local"
        reapply()

    async def setup(self, model_for: ModelFor, reapply: Reapply) -> dict[str, Any]:
        """`rune.setupLocal`: provision and start the local model now, and use it."""
        from rune_lsp.loop.ports import ModelError
        from rune_lsp.providers.local import LocalModel, LocalModelUnavailable

        self.use_local(reapply)
        settings = self.server.settings
        if settings.provider != "local":  # the user chose a provider: keep theirs
            settings = settings.model_copy(update={"provider": "local"})
        model = model_for(settings)
        if not isinstance(model, LocalModel):  # settings say `local`, so make_model gave one
            raise TypeError(f"expected the local provider, got {type(model).__name__}")
        try:
            await self.start(model)
            if not await model.answering():  # it died right after starting
                url = model.endpoint.base_url
                raise LocalModelUnavailable(f"the local model server at {url} does not answer")
        except ModelError as exc:
            self.server.tell(f"rune: the local model is not set up: {exc}", types.MessageType.Error)
            return {"ready": False, "error": str(exc)}
        self.server.tell(
            f"rune: the local model {model.model} is ready at {model.endpoint.base_url}"
        )
        return {"ready": True, "error": None}
