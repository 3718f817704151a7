"""`rune-lsp fix PATH[:LINE[-LINE]]`: the same loop as the server, the disk as the document.

Progress and the review go to stderr; the answer and outcome (or, with `--json`, the run result
and nothing else) go to stdout. Ctrl-C cancels the run cleanly, with a receipt, and exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TextIO

from rune_lsp.cli.errors import EXIT_FAILED, EXIT_OK, UsageError
from rune_lsp.cli.options import settings_from
from rune_lsp.cli.report import render_result, result_json
from rune_lsp.cli.target import OpenedTarget, open_target, parse_target
from rune_lsp.cli.terminal import AnswerSource, StdinAnswers, use_color, width_of
from rune_lsp.loop.messages import Message
from rune_lsp.loop.records import RunResult
from rune_lsp.loop.task import FixTarget, FixTask
from rune_lsp.settings import Settings
from rune_lsp.store.scrub import secrets_in, use_secrets
from rune_lsp.tools.scope import repository_root

if TYPE_CHECKING:
    from rune_lsp.cli.interrupt import Interrupt
    from rune_lsp.cli.review import TerminalReviewer
    from rune_lsp.loop.ports import Model
    from rune_lsp.runner.driver import RunDriver
    from rune_lsp.store.transcripts import TranscriptStore
    from rune_lsp.tools.executor import WorkspaceTools


@dataclass(frozen=True)
class FixRequest:
    opened: OpenedTarget
    instruction: str | None
    preset: bool | None  # --yes / --no; None asks
    continues: str | None = None  # --continue RUN_ID: a follow-up turn on that run


def run_fix(args: argparse.Namespace) -> int:
    settings, warnings = settings_from(args)
    use_secrets(secrets_in(settings.api_key, settings.resolved_base_url))
    for warning in warnings:
        print(warning, file=sys.stderr)
    if args.continues is not None and not (args.instruction or "").strip():
        raise UsageError("--continue needs -m: what to say to the model next")
    request = FixRequest(
        opened=open_target(parse_target(args.target)),
        instruction=args.instruction,
        preset=True if args.yes else False if args.no else None,
        continues=args.continues,
    )
    from rune_lsp.cli.local import provider_for_fix

    chosen = provider_for_fix(settings, preset=request.preset, err=sys.stderr)
    if chosen is None:
        return EXIT_FAILED
    settings = chosen
    answers = None if request.preset is not None else StdinAnswers.from_stdin(sys.stdin)
    result = asyncio.run(fix(settings, request, answers=answers, err=sys.stderr))
    sys.stdout.write(result_json(result) + "\n" if args.json else render_result(result))
    sys.stdout.flush()
    return EXIT_OK if result.outcome == "completed" else EXIT_FAILED


async def fix(
    settings: Settings,
    request: FixRequest,
    *,
    answers: AnswerSource | None,
    err: TextIO,
) -> RunResult:
    """One run to its result; progress, diffs and questions are written to `err`."""
    # Imported here: a usage error is reported before the loop, the providers and the review
    # code (which brings lsprotocol) are loaded.
    from rune_lsp.cli.interrupt import Interrupt
    from rune_lsp.cli.local import hooks_for
    from rune_lsp.loop.ports import ModelError
    from rune_lsp.providers import make_model
    from rune_lsp.providers.local import LocalModel
    from rune_lsp.runner.assembly import (
        TaskUnreadableError,
        UnknownRunError,
        compose_task,
        follow_up,
        not_run,
    )
    from rune_lsp.store.atomic import unwritable
    from rune_lsp.store.protocols import ProtocolMemory
    from rune_lsp.store.transcripts import TranscriptStore
    from rune_lsp.tools.errors import AccessDenied

    run_id = uuid.uuid4().hex[:12]
    shown = request.opened.relative_path
    tools = _tools(settings, request.opened)
    try:
        task = compose_task(tools, _target(request))
    except (AccessDenied, TaskUnreadableError) as exc:  # or the file went away since
        err.write(f"rune-lsp fix {shown}: refused: {exc}\n")
        return not_run(run_id, "failed", str(exc), settings)
    problem = unwritable(settings.resolved_state_dir)
    if problem is not None:  # every review pauses there, and the receipt is kept there
        error = f"{problem}; set RUNE_STATE_DIR or --state-dir to a directory rune-lsp may write"
        err.write(f"rune-lsp fix {shown}: {error}\n")
        return not_run(run_id, "failed", error, settings)
    transcripts = TranscriptStore(settings.resolved_state_dir)
    prompt: FixTask | str = task
    history: tuple[Message, ...] = ()
    if request.continues is not None:  # the instruction after that run's conversation
        try:
            prompt, history = follow_up(_target(request), transcripts)
        except UnknownRunError as exc:
            err.write(f"rune-lsp fix {shown}: {exc}\n")
            return not_run(run_id, "failed", str(exc), settings)
    reviewer = _reviewer(request, tools, answers=answers, err=err)
    settings = await _offer_check(settings, request, tools, reviewer)
    interrupt = Interrupt(err)
    hooks, bar = hooks_for(err)
    model = make_model(settings, local=hooks, protocols=ProtocolMemory(settings.resolved_state_dir))
    err.write(f"rune-lsp fix {shown} · {settings.provider} {model.model}\n")
    try:
        if isinstance(model, LocalModel):
            # Before the run: its progress lines would break into the progress bar's line.
            # Ctrl-C / SIGTERM stop the set-up as they stop a run: what is finished stays.
            starting = asyncio.ensure_future(model.ensure_started())
            try:
                with interrupt.cancelling(starting):
                    await starting
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise
                return not_run(
                    run_id,
                    "cancelled",
                    "cancelled while the local model was being set up",
                    settings,
                )
            except ModelError as exc:
                err.write(f"rune-lsp fix {shown}: the local model could not start: {exc}\n")
                return not_run(run_id, "failed", str(exc), settings)
            finally:
                bar.finish()
        driver = _driver(
            settings,
            request,
            model,
            tools,
            _Conversation(prompt, history, transcripts),
            reviewer=reviewer,
            err=err,
            interrupt=interrupt,
        )
        run = driver.launch(run_id)
        with interrupt.cancelling(run):
            return await _result_of(run, run_id, settings)
    finally:
        await model.aclose()


def _tools(settings: Settings, opened: OpenedTarget) -> WorkspaceTools:
    """The tools over the target's scope: its git repository, else its folder when that is a
    project root, else single-file mode."""
    from rune_lsp.runner.assembly import workspace_tools
    from rune_lsp.tools.documents import DiskDocuments

    path = opened.target.path
    repository = repository_root(path)  # the same answer open_target's root came from
    folders = [repository] if repository is not None else []
    return workspace_tools(settings, path, folders, DiskDocuments())


def _target(request: FixRequest) -> FixTarget:
    target = request.opened.target
    return FixTarget(
        path=target.path,
        start_line=target.start_line,
        end_line=target.end_line,
        instruction=request.instruction,
        continues=request.continues,
    )


@dataclass(frozen=True)
class _Conversation:
    """What the run says to the model first, what came before it (a follow-up's earlier run),
    and where the finished run's conversation is kept for a later `--continue`."""

    prompt: FixTask | str
    history: tuple[Message, ...]
    transcripts: TranscriptStore


def _reviewer(
    request: FixRequest, tools: WorkspaceTools, *, answers: AnswerSource | None, err: TextIO
) -> TerminalReviewer:
    """The y/n review of the run's changes, and of the check rune offers before it."""
    from rune_lsp.cli.review import TerminalReviewer

    return TerminalReviewer(
        root=tools.root,
        out=err,
        answers=answers,
        preset=request.preset,
        color=use_color(err),
        width=width_of(err),
    )


async def _offer_check(
    settings: Settings, request: FixRequest, tools: WorkspaceTools, reviewer: TerminalReviewer
) -> Settings:
    """The run's settings, with the check rune offers when none is configured and the user
    accepts it (`--yes` accepts, `--no` denies): docs/interface.md#an-offered-check."""
    from rune_lsp.loop.state import Approve
    from rune_lsp.runner.offered_check import offered_check

    offer = offered_check(settings, tools.root, request.opened.target.path)
    if offer is None:
        return settings
    decision = await reviewer.decide_command(offer.as_command(), offer.asking)
    return offer.accepted(settings) if isinstance(decision, Approve) else settings


def _driver(
    settings: Settings,
    request: FixRequest,
    model: Model,
    tools: WorkspaceTools,
    conversation: _Conversation,
    *,
    reviewer: TerminalReviewer,
    err: TextIO,
    interrupt: Interrupt,
) -> RunDriver:
    """The server's run machinery with terminal parts: disk documents, y/n review, stderr."""
    from rune_lsp.cli.interrupt import InterruptibleCheck
    from rune_lsp.cli.progress import ProgressPrinter
    from rune_lsp.runner.assembly import assemble
    from rune_lsp.store.receipts import ReceiptStore

    path = request.opened.target.path
    parts = assemble(
        settings,
        model=model,
        tools=tools,
        task=conversation.prompt,
        document=path,
        document_uri=path.as_uri(),
        on_event=ProgressPrinter(err),
        history=conversation.history,
    )
    if parts.verifier is not None:
        # The disk is the document here: nothing unsaved to ask about before the check; the
        # user may stop it with Ctrl-C without losing the run's result.
        check = InterruptibleCheck(
            parts.verifier, command=parts.verifier.command, interrupt=interrupt
        )
        parts = replace(parts, verifier=check)
    return parts.driver(
        reviewer,
        receipt_store=ReceiptStore(settings.resolved_state_dir, max_count=settings.max_receipts),
        transcripts=conversation.transcripts,
    )


async def _result_of(run: asyncio.Future[RunResult], run_id: str, settings: Settings) -> RunResult:
    from rune_lsp.runner.assembly import not_run

    try:
        return await run
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise  # we are being cancelled ourselves, not just the run
        # The driver turns a cancel into a result with a receipt, and a cancelled check is
        # absorbed by InterruptibleCheck; this is the last resort, not the usual path.
        return not_run(
            run_id, "cancelled", "the run was cancelled before it could report its result", settings
        )
