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

from rune_lsp.loop.ports import Model
from rune_lsp.loop.runtime import AgentLoop, LoopConfig
from rune_lsp.loop.state import RunEvent, RunResult
from rune_lsp.loop.task import FixTask
from rune_lsp.providers.transport import HttpProvider
from rune_lsp.runner.driver import RunDriver, RunMeta
from rune_lsp.runner.summary import run_summary
from rune_lsp.runner.verify import ShellVerifier
from rune_lsp.server.app import RuneServer
from rune_lsp.server.desk import ReviewDesk
from rune_lsp.server.documents import LspDocuments, path_of
from rune_lsp.server.late import LateLandings
from rune_lsp.server.local_setup import LocalSetup
from rune_lsp.server.notices import RefusalNotice
from rune_lsp.server.progress import RunProgress
from rune_lsp.server.review import LspReviewer
from rune_lsp.server.undo import Undos
from rune_lsp.settings import Settings
from rune_lsp.store.ownership import RunRegistry, SessionLock, new_session_id
from rune_lsp.store.pending import PendingRun, PendingStore
from rune_lsp.store.protocols import ProtocolMemory
from rune_lsp.store.receipts import ReceiptStore
from rune_lsp.store.scrub import secrets_in
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.paths import display_path
from rune_lsp.tools.scope import RunScope, scope_for

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
        self._model: tuple[tuple[object, ...], HttpProvider] | None = None
        self._receipts: ReceiptStore | None = None
        self._closing: set[asyncio.Future[None]] = set()
        self.late = LateLandings(
            server,
            documents,
            lambda: self.receipt_store,
            answer_wait=desk.answer_wait,
            change_grace=desk.change_grace,
        )
        self.undos = Undos(documents, lambda: self.receipt_store, lambda run: run in self.active)

    # --- starting --------------------------------------------------------------------------------

    async def fix(self, task: FixTask, path: Path, request_id: Any) -> RunResult:
        run_id = uuid.uuid4().hex[:12]
        return await self._launch(run_id, _doc_key(path), request_id, path, task.prompt())

    async def resume(self, run_id: str, request_id: Any) -> RunResult:
        record = self.pending_store.claim(run_id, self.session)
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
        task: str,
        *,
        resumed: PendingRun | None = None,
    ) -> RunResult:
        failed = await self._start_local(run_id)
        if failed is not None:
            return failed
        previous = self.registry.current(doc_key)
        if previous is not None and previous.run_id in self.active:
            self.cancel(previous.run_id, reason="superseded")
        generation = self.registry.claim(doc_key, run_id)
        progress = RunProgress(self.server, f"rune/{run_id}", f"Rune: {path.name}")
        driver = self._driver(run_id, path, task, progress)
        coroutine = driver.resume(resumed.state) if resumed else driver.start(run_id)
        run = ActiveRun(
            run_id, doc_key, asyncio.create_task(coroutine), progress, driver, request_id
        )
        self.active[run_id] = run
        outcome = "failed: the run ended unexpectedly"
        try:
            await progress.begin()
            result = await asyncio.shield(run.task)
            outcome = run_summary(result)
            return result
        except asyncio.CancelledError:
            # Either the run's task was cancelled before its first step, or the event loop is
            # closing under us (the editor went away without `shutdown`): finish the run (an
            # open review is kept for `rune.resume`) and return its result instead of
            # re-raising, which pygls would log as a traceback.
            outcome = "cancelled: the server stopped the run"
            run.task.cancel()
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
            return RunResult(
                run_id=run_id,
                outcome="failed",
                error=str(exc),
                iteration_budget=self.server.settings.max_iterations,
            )
        return None

    def _driver(self, run_id: str, path: Path, task: str, progress: RunProgress) -> RunDriver:
        settings = self.server.settings
        tools = self.tools_for(path)
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

        model = self.model(settings)
        # What actually runs: for `local`, its model and the port it got (a test's scripted
        # model has neither).
        served = (model.model, model.endpoint.base_url) if isinstance(model, HttpProvider) else None
        loop = AgentLoop(
            model,
            tools,
            LoopConfig(
                max_iterations=settings.max_iterations,
                repeat_warn_at=settings.repeat_warn_at,
                repeat_block_at=settings.repeat_block_at,
            ),
            on_event=on_event,
        )
        reviewer = LspReviewer(
            desk=self.desk,
            run_id=run_id,
            origin_uri=self.documents.uri_for(path),
            dispatch=loop.prepare_dispatch,
            request_timeout=settings.request_timeout,
            display_path=lambda p: display_path(Path(p), root),
            on_dead=self.late.watch,
            undos=self.undos,
        )
        verifier = None
        if settings.check_command:
            verifier = ShellVerifier(
                settings.check_command,
                cwd=root,
                timeout=settings.command_timeout,
                save_first=self._unsaved,
            )
        driver = RunDriver(
            cancel_keeps_pause=True,
            concurrent_reviews=not self.server.annotation_support,
            loop=loop,
            reviewer=reviewer,
            meta=RunMeta(
                provider=settings.provider,
                model=served[0] if served else settings.model,
                base_url=served[1] if served else settings.resolved_base_url,
                task=task,
                document_uri=self.documents.uri_for(path),
                document_path=str(path),
                secrets=secrets_in(settings.api_key, settings.resolved_base_url),
                session_id=self.session,
                workspace_root=str(root),
            ),
            pending_store=self.pending_store,
            receipt_store=self.receipt_store,
            verifier=verifier,
        )
        return driver

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

    def cancel(self, run_id: str, reason: str = "cancelled") -> bool:
        run = self.active.get(run_id)
        if run is None or run.task.done():
            return False
        run.driver.cancel_keeps_pause = False  # the user's cancel: nothing left to resume
        if reason == "superseded":
            run.driver.supersede()
        self.desk.withdraw(run_id)
        run.task.cancel()
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
        for task in tasks:
            task.cancel()  # not self.cancel: an interruption keeps open reviews for resume
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        if self._model is not None:
            await _close(self._model[1])
            self._model = None
        self.owner.release()  # a pause kept for resume is now another server's to offer

    # --- what runs are built from ----------------------------------------------------------------

    def model(self, settings: Settings) -> HttpProvider:
        from rune_lsp.providers import make_model

        key = (
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
        if self._model is None or self._model[0] != key:
            if self._model is not None:
                closing = asyncio.ensure_future(_close(self._model[1]))
                self._closing.add(closing)
                closing.add_done_callback(self._closing.discard)
            memory = ProtocolMemory(settings.resolved_state_dir)
            hooks = self.local.hooks() if self.local is not None else None
            self._model = (key, make_model(settings, protocols=memory, local=hooks))
        return self._model[1]

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

    def scope(self, path: Path) -> RunScope:
        """Where a run on `path` works and what its tools may touch (tools/scope.py decides,
        single-file mode included)."""
        return scope_for(path, self.folders(), write_dirs=self.server.settings.allowed_write_dirs)

    def tools_for(self, path: Path) -> WorkspaceTools:
        scope = self.scope(path)
        return WorkspaceTools(
            scope.root,
            scope.sandbox,
            self.documents,
            command_timeout=self.server.settings.command_timeout,
        )

    def refused(self, path: Path, reason: str) -> RunResult:
        """The result of a Fix this on a file the tools may not read: it ends before the model
        is asked, so nothing of the file leaves the machine; the user is told why."""
        RefusalNotice(self.server).tell(f"rune refused to fix {path}: {reason}")
        return RunResult(
            run_id=uuid.uuid4().hex[:12],
            outcome="failed",
            error=reason,
            iteration_budget=self.server.settings.max_iterations,
        )

    @property
    def pending_store(self) -> PendingStore:
        """The paused runs under the current `stateDir`, where this server is marked alive
        first: a run it pauses there is never offered as interrupted by another server."""
        root = self.server.settings.resolved_state_dir
        try:
            self.owner.hold(root)
        except OSError as exc:  # an unwritable state dir: pausing there fails on its own
            log.warning("rune: cannot mark this server's runs in %s as live: %s", root, exc)
        return PendingStore(root)

    @property
    def receipt_store(self) -> ReceiptStore:
        """One store while `stateDir` and `maxReceipts` stay: it counts what it wrote, so it
        need not list the directory on every run."""
        settings = self.server.settings
        current = self._receipts
        if (
            current is None
            or current.root != settings.resolved_state_dir
            or current.max_count != settings.max_receipts
        ):
            current = ReceiptStore(settings.resolved_state_dir, max_count=settings.max_receipts)
            self._receipts = current
        return current

    def interrupted(self) -> list[PendingRun]:
        return self.pending_store.list_interrupted(current_session=self.session)


def _doc_key(path: Path) -> str:
    """One key per document however its path is spelled: a document has at most one run."""
    return str(path.resolve())


async def _close(model: Model) -> None:
    close = getattr(model, "aclose", None)
    if close is not None:
        await close()
