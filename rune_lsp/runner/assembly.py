"""A run assembled from `Settings`: the one way every front end builds one.

The server and `rune-lsp fix` differ only in their parts (the editor's buffers or the disk,
the editor's review or the terminal's, progress over LSP or on stderr); what a run is made of
is decided here: its tools over the document's scope, the task read under the tools' rules,
the loop and its bounds, the check, and what the receipt and the pending record say about it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from rune_lsp.loop.events import EventSink
from rune_lsp.loop.messages import Message
from rune_lsp.loop.ports import Model
from rune_lsp.loop.records import Outcome, RunResult
from rune_lsp.loop.runtime import AgentLoop, LoopConfig
from rune_lsp.loop.task import FixTarget, FixTask
from rune_lsp.runner.candidates import ScratchChecks, overlap_checks
from rune_lsp.runner.context import (
    failing_focus,
    failing_tests_shown,
    is_test_target,
    module_under_test,
    related_files,
)
from rune_lsp.runner.driver import Recomposed, Reviewer, RunDriver, StopReason
from rune_lsp.runner.run_meta import RunMeta
from rune_lsp.runner.spectrum import NO_SPECTRUM, Spectrum
from rune_lsp.runner.verify import SaveHook, ShellVerifier, Verifier
from rune_lsp.settings import Settings
from rune_lsp.store.pending import PendingStore
from rune_lsp.store.receipts import ReceiptStore
from rune_lsp.store.scrub import secrets_in
from rune_lsp.store.transcripts import TranscriptStore
from rune_lsp.tools.allowed_commands import CommandAllowance
from rune_lsp.tools.documents import DocumentSource
from rune_lsp.tools.errors import AccessDenied, ToolError
from rune_lsp.tools.executor import WorkspaceTools
from rune_lsp.tools.scope import scope_for


class TaskUnreadableError(Exception):
    """The file to fix cannot be read as text (missing, a directory, binary): no run starts."""


def workspace_tools(
    settings: Settings, document: Path, folders: Sequence[Path], documents: DocumentSource
) -> WorkspaceTools:
    """The tools of a run on `document`, over the scope tools/scope.py gives it among the
    workspace `folders` (single-file mode included)."""
    scope = scope_for(document, folders, write_dirs=settings.allowed_write_dirs)
    return WorkspaceTools(
        scope.root, scope.sandbox, documents, command_timeout=settings.command_timeout
    )


def compose_task(tools: WorkspaceTools, target: FixTarget) -> FixTask:
    """The task, with the file's text read under the rules of every tool read: a file
    read_file may not show is not put into the prompt either, and the model is never asked.

    Raises AccessDenied when the rules refuse it, TaskUnreadableError when it is no text.
    """
    try:
        text = tools.task_text(target.path)
    except AccessDenied:
        raise
    except ToolError as exc:
        raise TaskUnreadableError(str(exc)) from None
    if text is None:
        raise TaskUnreadableError(f"cannot read {target.path}")
    related = related_files(tools, target.path, text, None)
    return target.task(tools.show(target.path), text, related)


def with_check_output(
    tools: WorkspaceTools,
    path: Path,
    task: FixTask,
    output: str,
    failed: bool,
    spectrum: Spectrum = NO_SPECTRUM,
) -> Recomposed:
    """The task `task` on the test `path` again, once the first check ran: the files its
    traceback names, the functions its failing tests ran (`spectrum`) and the code they use
    join those shown beside the test, and a long test file is shown as its head and those
    tests (runner/context.py). When the check `failed` and points to a module, the run fixes
    that module instead, asked as Fix this on it would ask (runner/context.module_under_test)."""
    related = related_files(tools, path, task.text, output, spectrum)
    moved = module_under_test(tools, related) if failed else None
    if moved is not None:
        tests = failing_tests_shown(tools, path, task.text, output)
        moved_task = task.moved_to(moved.path, moved.text, moved.focus, moved.beside, tests)
        beside = tuple(related.path for related in moved_task.related)
        return Recomposed(moved_task.prompt(), moved.file, beside)
    focus = failing_focus(tools, path, task.text, output)
    return Recomposed(task.model_copy(update={"related": related, "focus": focus}).prompt())


class UnknownRunError(Exception):
    """A follow-up names a run whose conversation is not kept (unknown, or expired)."""


def follow_up(target: FixTarget, transcripts: TranscriptStore) -> tuple[str, tuple[Message, ...]]:
    """The task and the history of a follow-up turn on run `target.continues`: its
    conversation as the model saw it, then the instruction as the user's next message.
    Raises UnknownRunError when that run's conversation is not kept."""
    run_id = target.continues or ""
    try:
        history = transcripts.load(run_id)
    except ValueError:  # InvalidRunIdError: an id that is no safe file name
        history = None
    if history is None:
        raise UnknownRunError(
            f"run {run_id} cannot be continued: it is unknown or expired (the last "
            f"{transcripts.max_count} finished runs are kept for a follow-up)"
        )
    return target.instruction or "", history


def not_run(run_id: str, outcome: Outcome, error: str, settings: Settings) -> RunResult:
    """The result of a run that ended before its first model turn (refused, or its model
    could not start)."""
    return RunResult(
        run_id=run_id, outcome=outcome, error=error, iteration_budget=settings.max_iterations
    )


@dataclass(frozen=True)
class RunParts:
    """One run's loop, check and metadata; a front end adds its reviewer and stores."""

    tools: WorkspaceTools
    loop: AgentLoop
    meta: RunMeta
    verifier: Verifier | None
    recompose: Callable[[str, bool, Spectrum], Recomposed] | None = None
    allowance: CommandAllowance = field(default_factory=CommandAllowance)
    #: The conversation of the run this one continues (a follow-up turn), else ().
    history: tuple[Message, ...] = ()
    candidates: ScratchChecks | None = None

    def driver(
        self,
        reviewer: Reviewer,
        *,
        receipt_store: ReceiptStore,
        pending_store: PendingStore | None = None,
        concurrent_reviews: bool = False,
        cancel_means: StopReason = "cancel",
        transcripts: TranscriptStore | None = None,
    ) -> RunDriver:
        return RunDriver(
            loop=self.loop,
            reviewer=reviewer,
            meta=self.meta,
            pending_store=pending_store,
            receipt_store=receipt_store,
            verifier=self.verifier,
            allowance=self.allowance,
            candidates=self.candidates,
            concurrent_reviews=concurrent_reviews,
            cancel_means=cancel_means,
            recompose=self.recompose,
            history=self.history,
            transcripts=transcripts,
        )


def assemble(
    settings: Settings,
    *,
    model: Model,
    tools: WorkspaceTools,
    task: FixTask | str,
    document: Path,
    document_uri: str,
    on_event: EventSink | None = None,
    session_id: str = "",
    save_first: SaveHook | None = None,
    history: tuple[Message, ...] = (),
) -> RunParts:
    """A run of `task` on `document` (a `FixTask` for a fresh run, recomposed with the first
    check's output; the prompt text of a resumed one or of a follow-up). `save_first`: asked
    before each check which touched documents are still unsaved (an editor's buffers; the disk
    needs none). `history`: the conversation it continues (`follow_up`)."""
    candidates = None
    if settings.check_command and settings.candidates > 1:
        candidates = ScratchChecks(
            settings.check_command,
            root=tools.root,
            documents=tools.documents,
            timeout=settings.command_timeout,
        )
    loop = AgentLoop(
        model,
        tools,
        LoopConfig(
            max_iterations=settings.max_iterations,
            repeat_warn_at=settings.repeat_warn_at,
            repeat_block_at=settings.repeat_block_at,
            first_turn=settings.first_turn,
            candidates=settings.candidates if candidates is not None else 1,
            temperature=settings.temperature,
            overlap_checks=overlap_checks(),
        ),
        on_event=on_event,
    )
    verifier = None
    if settings.check_command:
        verifier = ShellVerifier(
            settings.check_command,
            cwd=tools.root,
            timeout=settings.command_timeout,
            save_first=save_first,
        )
    served_model, served_url = _served(model, settings)
    recompose = None
    if isinstance(task, FixTask) and is_test_target(tools, document):
        recompose = partial(with_check_output, tools, document, task)
    meta = RunMeta(
        provider=settings.provider,
        model=served_model,
        base_url=served_url,
        task=task if isinstance(task, str) else task.prompt(),
        document_uri=document_uri,
        document_path=str(document),
        secrets=secrets_in(settings.api_key, settings.resolved_base_url),
        session_id=session_id,
        workspace_root=str(tools.root),
    )
    allowance = CommandAllowance(settings.allowed_commands)
    return RunParts(
        tools=tools,
        loop=loop,
        meta=meta,
        verifier=verifier,
        recompose=recompose,
        allowance=allowance,
        history=history,
        candidates=candidates,
    )


def _served(model: Model, settings: Settings) -> tuple[str, str]:
    """What actually runs, as the receipt names it: for an HTTP provider its model and
    endpoint (for `local`, the model it chose and the port its server got); a model that is
    no provider (a test's scripted model) goes by the settings."""
    from rune_lsp.providers.transport import HttpProvider  # loaded with the model already

    if isinstance(model, HttpProvider):
        return model.model, model.endpoint.base_url
    return settings.model, settings.resolved_base_url
