"""Runs as asyncio tasks: start, supersede, cancel (three ways), resume, shut down.

A run never blocks the server: it awaits the model and the reviews while code actions, document
changes and other runs go on. One document has at most one run; a newer one supersedes it.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from rune_lsp.loop.events import RunEvent
from rune_lsp.loop.messages import Message
from rune_lsp.loop.records import RunResult
from rune_lsp.loop.state import Approve, Reject
from rune_lsp.loop.task import FixTarget, FixTask
from rune_lsp.runner.assembly import (
    UnknownRunError,
    assemble,
    compose_task,
    follow_up,
    not_run,
    workspace_tools,
)
from rune_lsp.runner.driver import RunDriver, StopReason
from rune_lsp.runner.offered_check import offered_check
from rune_lsp.runner.summary import run_summary
from rune_lsp.server.app import RuneServer
from rune_lsp.server.approval import ask_to_run
from rune_lsp.server.desk import ReviewDesk
from rune_lsp.server.documents import LspDocuments, path_of
from rune_lsp.server.late import LateLandings
from rune_lsp.server.local_setup import LocalSetup
from rune_lsp.server.models import ModelCache
from rune_lsp.server.notices import MAX_SHOWN, RefusalNotice
from rune_lsp.server.progress import RunProgress
from rune_lsp.server.review import LspReviewer
from rune_lsp.server.state_stores import StateStores
from rune_lsp.server.undo import Undos
from rune_lsp.settings import Settings
from rune_lsp.store.atomic import unwritable
from rune_lsp.store.ownership import RunRegistry, SessionLock, new_session_id
from rune_lsp.store.pending import PendingRun
from rune_lsp.text_clip import clip
from rune_lsp.tools.errors import AccessDenied
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.paths import display_path

log = logging.getLogger(__name__)

#: Custom request to a client that advertised `experimental.runeSaveDocuments`.
SAVE_DOCUMENTS = "rune/saveDocuments"
SAVE_WAIT_SECONDS = 10.0


@dataclass
class ActiveRun:
    run_id: str
    doc_key: str
    task: asyncio.Task[RunResult]
    progress: RunProgress
    driver: RunDriver
    request_id: Any = None


class RunManager:
    def __init__(
        self,
        server: RuneServer,
        documents: LspDocuments,
        desk: ReviewDesk,
        *,
        local: LocalSetup | None = None,
    ) -> None:
        self.server = server
        self.local = local
        self.documents = documents
        self.desk = desk
        self.session = new_session_id()
        self.owner = SessionLock(self.session)
        self.active: dict[str, ActiveRun] = {}
        self.registry = RunRegistry()
        #: The provider for the current settings: `model(settings)`.
        self.model = ModelCache(local)
        self.stores = StateStores(server, self.owner)
        self.late = LateLandings(
            server,
            documents,
            lambda: self.stores.receipts,
            answer_wait=desk.answer_wait,
            change_grace=desk.change_grace,
        )
        self.undos = Undos(documents, lambda: self.stores.receipts, lambda run: run in self.active)

    # --- starting --------------------------------------------------------------------------------

    async def fix(self, target: FixTarget, request_id: Any) -> RunResult:
        """A run on `target`, or the refusal when the rules forbid reading it; raises
        TaskUnreadableError when it is no text."""
        path = target.path
        tools = self.tools_for(path)
        try:
            task = compose_task(tools, target)
        except AccessDenied as exc:
            return self.refused(path, str(exc))
        run_id = uuid.uuid4().hex[:12]
        failed = self._unwritable_state(run_id)
        if failed is not None:
            return failed
        prompt: FixTask | str = task
        history: tuple[Message, ...] = ()
        if target.continues is not None:  # a follow-up: the instruction after the transcript
            try:
                prompt, history = follow_up(target, self.stores.transcripts)
            except UnknownRunError as exc:
                return not_run(run_id, "failed", str(exc), self.server.settings)
        settings = await self._offer_check(tools, path)
        return await self._launch(
            run_id,
            _doc_key(path),
            request_id,
            path,
            prompt,
            tools=tools,
            settings=settings,
            history=history,
        )

    async def _offer_check(self, tools: WorkspaceTools, path: Path) -> Settings:
        """The run's settings: with the check rune offers when none is configured and the user
        accepts it, asked like a `run_command` (docs/interface.md#an-offered-check)."""
        settings = self.server.settings
        offer = offered_check(settings, tools.root, path)
        if offer is None:
            return settings
        decision = await ask_to_run(
            self.server, offer.as_command(), settings.request_timeout, asking=offer.asking
        )
        if isinstance(decision, Approve):
            return offer.accepted(settings)
        why = decision.reason if isinstance(decision, Reject) else "not approved"
        self.server.log(f"rune: the offered check `{offer.command}` was not run: {why}")
        return settings

    async def resume(self, run_id: str, request_id: Any) -> RunResult:
        failed = self._unwritable_state(run_id)
        if failed is not None:
            return failed
        record = self.stores.pending.claim(run_id, self.session)
        path = Path(record.document_path) if record.document_path else Path(record.document_uri)
        return await self._launch(
            run_id, _doc_key(path), request_id, path, record.task, resumed=record
        )

    async def _launch(
        self,
        run_id: str,
        doc_key: str,
        request_id: Any,
        path: Path,
        task: FixTask | str,
        *,
        tools: WorkspaceTools | None = None,
        resumed: PendingRun | None = None,
        settings: Settings | None = None,
        history: tuple[Message, ...] = (),
    ) -> RunResult:
        failed = await self._start_local(run_id)
        if failed is not None:
            return failed
        previous = self.registry.current(doc_key)
        if previous is not None and previous.run_id in self.active:
            self.cancel(previous.run_id, reason="supersede")
        generation = self.registry.claim(doc_key, run_id)
        progress = RunProgress(self.server, f"rune/{run_id}", f"Rune: {path.name}")
        driver = self._driver(
            run_id, path, task, progress, tools or self.tools_for(path), settings, history
        )
        running = driver.launch(run_id, resumed.state if resumed else None)
        run = ActiveRun(run_id, doc_key, running, progress, driver, request_id)
        self.active[run_id] = run
        outcome = "failed: the run ended unexpectedly"
        try:
            await progress.begin()
            result = await asyncio.shield(run.task)
            outcome = run_summary(result)
            if driver.unrunnable is not None:  # the user's configuration, not the model's bug
                self.server.log(driver.unrunnable.message, types.MessageType.Error)
                self.server.tell(
                    clip(f"rune: {driver.unrunnable.message}", MAX_SHOWN), types.MessageType.Error
                )
            return result
        except asyncio.CancelledError:
            # Either the run's task was cancelled before its first step, or the event loop is
            # closing under us (the editor went away without `shutdown`): finish the run (an
            # open review is kept for `rune.resume`) and return its result instead of
            # re-raising, which pygls would log as a traceback.
            outcome = "cancelled: the server stopped the run"
            run.driver.stop("interrupt")
            [finished] = await asyncio.gather(run.task, return_exceptions=True)
            if isinstance(finished, RunResult):
                return finished
            if run.task.cancelled():  # cancelled before its first step: nothing ran
                return run.driver.not_started(run_id)
            raise
        finally:
            self.active.pop(run_id, None)
            if not self.registry.is_current(doc_key, run_id, generation):
                log.info("run %s ended after it was replaced; its result is not current", run_id)
            self.registry.release(doc_key, run_id, generation)
            progress.end(outcome)

    def _unwritable_state(self, run_id: str) -> RunResult | None:
        """The failed result, told to the user, when `stateDir` cannot be written: a run
        pauses there for every review and keeps its receipt there."""
        problem = unwritable(self.server.settings.resolved_state_dir)
        if problem is None:
            return None
        error = f"{problem}; set stateDir (RUNE_STATE_DIR) to a directory rune-lsp may write"
        RefusalNotice(self.server).tell(f"rune: {error}")
        return not_run(run_id, "failed", error, self.server.settings)

    async def _start_local(self, run_id: str) -> RunResult | None:
        """Before a run on the `local` provider: its model server, built, fetched and started
        under a progress of its own when needed. The failed result when it cannot start."""
        from rune_lsp.loop.ports import ModelError
        from rune_lsp.providers.local import LocalModel

        model = self.model(self.server.settings)
        if not isinstance(model, LocalModel) or self.local is None:
            return None
        try:
            await self.local.start(model)
        except ModelError as exc:
            RefusalNotice(self.server).tell(f"rune: the local model could not start: {exc}")
            return not_run(run_id, "failed", str(exc), self.server.settings)
        return None

    def _driver(
        self,
        run_id: str,
        path: Path,
        task: FixTask | str,
        progress: RunProgress,
        tools: WorkspaceTools,
        settings: Settings | None = None,
        history: tuple[Message, ...] = (),
    ) -> RunDriver:
        """`settings`: this run's (an accepted offered check), else the server's."""
        settings = settings or self.server.settings
        root = tools.root
        if tools.sandbox.single_file is not None:
            self.server.log(
                f"rune: no workspace folder and {root} is no project root: single-file mode, "
                f"the tools may use {path} only",
                types.MessageType.Info,
            )
        notice = RefusalNotice(self.server)

        def on_event(event: RunEvent) -> None:
            progress.report(event)
            notice(event)

        parts = assemble(
            settings,
            model=self.model(settings),
            tools=tools,
            task=task,
            document=path,
            document_uri=self.documents.uri_for(path),
            on_event=on_event,
            session_id=self.session,
            save_first=self._unsaved,
            history=history,
        )
        reviewer = LspReviewer(
            desk=self.desk,
            run_id=run_id,
            origin_uri=parts.meta.document_uri,
            recheck=parts.tools.recheck,
            request_timeout=settings.request_timeout,
            display_path=lambda p: display_path(Path(p), root),
            on_dead=self.late.watch,
            undos=self.undos,
        )
        return parts.driver(
            reviewer,
            receipt_store=self.stores.receipts,
            pending_store=self.stores.pending,
            concurrent_reviews=not self.server.annotation_support,
            cancel_means="interrupt",  # an unasked cancel: the editor or the server went away
            transcripts=self.stores.transcripts,
        )

    async def _unsaved(self, paths: Sequence[str]) -> list[str]:
        """Before the check: ask a client that can save to save the touched documents, then
        name those whose buffer still differs from the disk (the check would not see them)."""
        open_paths = [Path(raw) for raw in paths if self.documents.is_open(Path(raw))]
        if open_paths and self.server.client_saves:
            uris = [self.documents.uri_for(path) for path in open_paths]
            try:
                await self.server.ask(SAVE_DOCUMENTS, {"uris": uris}, wait=SAVE_WAIT_SECONDS)
            except Exception as exc:  # the check still runs; the verdict then says unsaved
                log.info("the client did not save %s before the check: %s", uris, exc)
        return [
            str(path)
            for path in open_paths
            if self.documents.read_text(path) != self.documents.disk_text(path)
        ]

    # --- stopping --------------------------------------------------------------------------------

    def cancel(self, run_id: str, reason: StopReason = "cancel") -> bool:
        run = self.active.get(run_id)
        if run is None or not run.driver.stop(reason):
            return False
        self.desk.withdraw(run_id)
        return True

    def cancel_request(self, request_id: Any) -> None:
        for run in list(self.active.values()):
            if run.request_id == request_id:
                self.cancel(run.run_id)

    def cancel_token(self, token: types.ProgressToken) -> None:
        for run in list(self.active.values()):
            if run.progress.token == token:
                self.cancel(run.run_id)

    async def shutdown(self) -> None:
        """Stop every run. One waiting for a review keeps its persisted pause instead of
        ending: a restart is an interruption, not the user's cancel, and the next server offers
        it for `rune.resume` (docs/interface.md#commands)."""
        tasks = [run.task for run in self.active.values()]
        for run in self.active.values():
            run.driver.stop("interrupt")  # not self.cancel: open reviews are kept for resume
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        await self.model.aclose()
        self.owner.release()  # a pause kept for resume is now another server's to offer

    # --- what runs are built from ----------------------------------------------------------------

    def folders(self) -> list[Path]:
        folders = []
        for folder in self.server.workspace.folders.values():
            path = path_of(folder.uri)
            if path is not None:
                folders.append(path.resolve())
        root = self.server.workspace.root_path
        if not folders and root:
            folders.append(Path(root).resolve())
        return folders

    def tools_for(self, path: Path) -> WorkspaceTools:
        return workspace_tools(self.server.settings, path, self.folders(), self.documents)

    def refused(self, path: Path, reason: str) -> RunResult:
        """The result of a Fix this on a file the tools may not read: it ends before the model
        is asked, so nothing of the file leaves the machine; the user is told why."""
        RefusalNotice(self.server).tell(f"rune refused to fix {path}: {reason}")
        return not_run(uuid.uuid4().hex[:12], "failed", reason, self.server.settings)

    def interrupted(self) -> list[PendingRun]:
        return self.stores.pending.list_interrupted(current_session=self.session)


def _doc_key(path: Path) -> str:
    """One key per document however its path is spelled: a document has at most one run."""
    return str(path.resolve())
