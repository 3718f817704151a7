"""Drive one run from start (or resume) to its result, whatever the front end.

The loop pauses whenever the model proposes a change; a `Reviewer` (the editor's review flow, or
the terminal's y/n prompt) turns each pending change into a decision, one at a time. The driver
persists the paused state before asking anyone, so a crash while a review is open loses nothing,
then verifies the result and stores the receipt. The LSP server and the CLI share this code.
What the records need besides the state is `RunMeta` (runner/run_meta.py); the results of runs
stopped before they ended on their own are worded in runner/run_results.py.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, Protocol

from rune_lsp.loop.events import CheckStarted, EventEmitter, Progress, TargetMoved
from rune_lsp.loop.messages import Message
from rune_lsp.loop.records import RunResult
from rune_lsp.loop.runtime import AgentLoop
from rune_lsp.loop.state import (
    Approve,
    Decision,
    Finished,
    Landed,
    PreparedChange,
    PreparedCommand,
    PreparedEdit,
    RunOutcome,
    RunState,
)
from rune_lsp.review.diff import unified_diff
from rune_lsp.runner.check_result import CheckCannotRun, CheckCannotRunError
from rune_lsp.runner.run_meta import RunMeta, pending_run, receipt_of
from rune_lsp.runner.run_results import cancelled, check_cannot_run, displayed, superseded
from rune_lsp.runner.spectrum import NO_SPECTRUM, Spectrum
from rune_lsp.runner.verify import (
    CandidateChecks,
    CheckFeed,
    CheckOutcome,
    Verifier,
    annotate_answer,
    changed_paths,
    report_of,
    verified_from,
)
from rune_lsp.store.pending import PendingStore
from rune_lsp.store.receipt import CheckRecord
from rune_lsp.store.receipt_builder import DIFF_CAP
from rune_lsp.store.receipts import ReceiptStore
from rune_lsp.store.transcripts import TranscriptStore
from rune_lsp.text_clip import clip
from rune_lsp.tools.allowed_commands import CommandAllowance
from rune_lsp.tools.paths import display_path

log = logging.getLogger(__name__)

#: Why a run is stopped before it ends on its own: the user's cancel (nothing is left to
#: resume), a newer run on its document (`superseded`), or an interruption (the server shuts
#: down or the editor went away: an open review's pause is kept for `rune.resume`).
StopReason = Literal["cancel", "supersede", "interrupt"]


class Reviewer(Protocol):
    async def decide(self, change: PreparedChange, state: RunState) -> Decision:
        """Ask the user about one change; the answer may come from the editor applying it."""
        ...

    async def withdraw(self) -> None:
        """The run is over while a review is open: take the open review away."""
        ...


@dataclass(frozen=True)
class Recomposed:
    """The task once the first check ran: its prompt, and the file the run fixes when that is
    not the document (a failing test's module under test), else None."""

    task: str
    target: Path | None = None
    #: The files shown beside `target` as where the bug may be instead, as the model names them.
    beside: tuple[str, ...] = ()


@dataclass
class RunDriver:
    loop: AgentLoop
    reviewer: Reviewer
    meta: RunMeta
    pending_store: PendingStore | None = None
    receipt_store: ReceiptStore | None = None
    verifier: Verifier | None = None
    #: Commands that run without asking: `allowedCommands`, and those the user allowed for the
    #: rest of this run.
    allowance: CommandAllowance = field(default_factory=CommandAllowance)
    started_at: float = field(default_factory=time.time)
    #: An earlier run's conversation this run continues (a follow-up turn), and where a
    #: finished run's conversation is kept for one (store/transcripts.py).
    history: tuple[Message, ...] = ()
    transcripts: TranscriptStore | None = None
    _state: RunState | None = None
    #: What a cancellation nobody explained with `stop` means. The server says `interrupt`:
    #: a cancel nobody asked for means the editor or the server went away.
    cancel_means: StopReason = "cancel"
    _stopped: StopReason | None = field(init=False, default=None)
    _task: asyncio.Task[RunResult] | None = field(init=False, default=None)
    _feed: CheckFeed | None = field(init=False, default=None)
    #: The task again, given the first check's output, whether it failed, and what its failing
    #: tests ran (runner/assembly.py: on a failing test, the module it points to becomes the
    #: file the run fixes); None (a target that is no test) keeps `meta.task`.
    recompose: Callable[[str, bool, Spectrum], Recomposed] | None = None
    #: The file the run fixes when it is not the document: the module under test.
    _moved_to: Path | None = field(init=False, default=None)
    _beside: tuple[str, ...] = field(init=False, default=())
    #: Set when the run ended because its check cannot run: the front end tells the user.
    unrunnable: CheckCannotRun | None = field(init=False, default=None)
    #: Candidate fixes' checks in a scratch copy (with `candidates` > 1 and a check).
    candidates: CandidateChecks | None = None

    def __post_init__(self) -> None:
        if self.verifier is not None:
            self._feed = CheckFeed(self.verifier, self.candidates)

    #: Whether the pending changes of one turn are all put to the user at once, to be decided
    #: in any order (mode B's diagnostics), rather than one after another (VS Code keeps one
    #: refactor preview at a time; a terminal asks one question at a time).
    concurrent_reviews: bool = False

    async def start(self, run_id: str) -> RunResult:
        return await self._drive(lambda: self._begin(run_id), run_id)

    async def _begin(self, run_id: str) -> RunOutcome:
        """A fresh run: with a check, the check first (it may not be able to run at all, and
        its traceback names files the task then shows), then the loop, which takes that check's
        report as its own first check."""
        first_check = None
        if self._feed is not None:
            events = EventEmitter(self.loop.on_event)
            progress = Progress(
                run_id=run_id, iterations_used=0, iteration_budget=self.loop.config.max_iterations
            )
            await events.emit(CheckStarted(**progress, command=self._feed.command))
            first = await self._feed.first()
            first_check = report_of(first)
            if self.recompose is not None:
                record = first.record
                spectrum = NO_SPECTRUM
                # A check cut by its time-out would be cut again: only a failure is recorded.
                if not first.passed and not record.timed_out and self.candidates is not None:
                    spectrum = await self.candidates.spectrum()
                output = f"{record.stdout_tail}\n{record.stderr_tail}"
                recomposed = self.recompose(output, not first.passed, spectrum)
                self._moved_to, self._beside = recomposed.target, recomposed.beside
                self.meta = replace(self.meta, task=recomposed.task)
                if recomposed.target is not None:
                    moved = self._shown(recomposed.target)
                    await events.emit(TargetMoved(**progress, path=moved))
        return await self.loop.run(
            self.meta.task,
            run_id=run_id,
            target=self._target(),
            beside=self._beside,
            checker=self._feed,
            history=self.history,
            first_check=first_check,
        )

    def _target(self) -> str | None:
        """The file the run is asked to change, named as the model sees it: the document it was
        started on (`Fix this`, `rune-lsp fix`), or the module a failing test on it points to."""
        if self._moved_to is not None:
            return self._shown(self._moved_to)
        path = self.meta.document_path
        return None if path is None else self._shown(Path(path))

    def _shown(self, path: Path) -> str:
        """`path` as the model sees it: relative to the workspace root when inside it."""
        root = self.meta.workspace_root
        return display_path(path, Path(root)) if root else str(path)

    async def resume(self, state: RunState) -> RunResult:
        """Continue a persisted pause: decisions already taken stand, the rest are asked again
        against the current text (an edit whose target changed meanwhile comes back stale)."""
        return await self._drive(lambda: self._review_and_resume(state), state.run_id)

    def launch(self, run_id: str, resumed: RunState | None = None) -> asyncio.Task[RunResult]:
        """The run (or the continuation of a persisted pause) as a task `stop` can stop."""
        self._task = asyncio.ensure_future(self.resume(resumed) if resumed else self.start(run_id))
        return self._task

    def stop(self, reason: StopReason) -> bool:
        """Stop the launched run for `reason`, which decides its outcome (`superseded` says
        so in the result and the receipt) and whether an open review's pause is kept. False
        when it is not running; the first reason given stands."""
        if self._task is None or self._task.done():
            return False
        if self._stopped is None:
            self._stopped = reason
        self._task.cancel()
        return True

    @property
    def _stop_reason(self) -> StopReason:
        return self._stopped or self.cancel_means

    @property
    def _keeps_pause(self) -> bool:
        return self._stop_reason == "interrupt"

    async def _drive(self, first_step: _Step, run_id: str) -> RunResult:
        try:
            return await self._drive_to_end(first_step, run_id)
        finally:  # every end, a cancel included: nothing of the scratch copy outlives the run
            if self._feed is not None:
                await asyncio.shield(self._feed.close())

    async def _drive_to_end(self, first_step: _Step, run_id: str) -> RunResult:
        state: RunState | None
        try:
            outcome = await first_step()
            while not isinstance(outcome, Finished):
                outcome = await self._review_and_resume(outcome.state)
            result, state = outcome.result, outcome.state
        except asyncio.CancelledError:
            await self.reviewer.withdraw()
            result, state = self._cancelled(run_id), self._state
        except CheckCannotRunError as exc:
            return self._store_receipt(self._unrunnable(run_id, exc), None, exc.record)
        if self.candidates is not None and self.verifier is not None and state is not None:
            result = result.model_copy(update={"candidates": state.candidates})
        result = self._relabelled(result)
        check = await self._verify(result)
        result = result.model_copy(
            update={
                "verified": verified_from(check),
                "answer": annotate_answer(result.answer, check),
                "edits": displayed(result.edits, self.meta.workspace_root),
            }
        )
        result = self._store_receipt(result, state, check)
        if self.transcripts is not None and state is not None:
            self.transcripts.save(run_id, state.messages, secrets=self.meta.secrets)
        if self.pending_store is not None and not self._keeps_pause:
            self.pending_store.discard(run_id)
        return result

    async def _review_and_resume(self, state: RunState) -> RunOutcome:
        self._state = state
        self._persist(state)
        undecided = state.turn.undecided
        for change in undecided:
            if isinstance(change, PreparedEdit) and change.edit_id not in state.diffs:
                state.diffs[change.edit_id] = clip(
                    unified_diff(change, display_path=change.path), DIFF_CAP
                )
        if self.concurrent_reviews and len(undecided) > 1:
            async with asyncio.TaskGroup() as group:
                for change in undecided:
                    group.create_task(self._review_one(change, state))
        else:
            for change in undecided:
                await self._review_one(change, state)
        # Every decision is taken: from here the loop owns the state again, and a crash
        # before the next pause has no open review left to resume.
        if self.pending_store is not None:
            self.pending_store.discard(state.run_id)
        return await self.loop.resume(state, checker=self._feed)

    async def _review_one(self, change: PreparedChange, state: RunState) -> None:
        decision = await self._decision(change, state)
        if isinstance(decision, Landed) and decision.diff:  # what landed of a partial edit
            state.diffs[change.edit_id] = clip(decision.diff, DIFF_CAP)
            decision = decision.model_copy(update={"diff": ""})
        state.turn.decide(change.edit_id, decision)
        if state.turn.undecided:  # after the last decision the pause is discarded by the caller
            self._persist(state)

    async def _decision(self, change: PreparedChange, state: RunState) -> Decision:
        if not isinstance(change, PreparedCommand):
            return await self.reviewer.decide(change, state)
        if self.allowance.allows(change.command):
            return Approve()
        decision = await self.reviewer.decide(change, state)
        if isinstance(decision, Approve) and decision.for_run:
            self.allowance = self.allowance.adding(change.command)
        return decision

    def _persist(self, state: RunState) -> None:
        if self.pending_store is None:
            return
        try:
            self.pending_store.save(pending_run(self.meta, state), secrets=self.meta.secrets)
        except OSError as exc:  # the disk failed since the run began: the review goes on
            log.warning(
                "could not keep run %s's paused review (%s): it cannot be resumed after a restart",
                state.run_id,
                exc,
            )

    def not_started(self, run_id: str) -> RunResult:
        """The result of a run whose task was cancelled before it ever ran; like every run,
        it leaves a receipt saying how it ended."""
        self._state = None
        return self._store_receipt(self._relabelled(self._cancelled(run_id)), None, None)

    def _unrunnable(self, run_id: str, exc: CheckCannotRunError) -> RunResult:
        """The check cannot run: the user's configuration to fix, before any model turn."""
        self.unrunnable = exc.problem
        return check_cannot_run(run_id, exc.problem.message, budget=self.loop.config.max_iterations)

    def _relabelled(self, result: RunResult) -> RunResult:
        return superseded(result) if self._stop_reason == "supersede" else result

    def _cancelled(self, run_id: str) -> RunResult:
        return cancelled(
            run_id,
            self._state,
            budget=self.loop.config.max_iterations,
            keeps_pause=self._keeps_pause,
        )

    async def _verify(self, result: RunResult) -> CheckOutcome | None:
        if self.verifier is None or result.outcome in ("cancelled", "superseded"):
            return None
        changed = changed_paths(result.edits)
        if not changed:
            return None
        if self._feed is not None and (current := self._feed.current_for(result.edits)):
            return current
        return await self.verifier.verify(changed)

    def _store_receipt(
        self, result: RunResult, state: RunState | None, check: CheckOutcome | CheckRecord | None
    ) -> RunResult:
        if self.receipt_store is None:
            return result
        try:
            path = self.receipt_store.receipt_path(result.run_id)
            result = result.model_copy(update={"receipt": str(path)})
            receipt = receipt_of(
                self.meta,
                result,
                state,
                check.record if isinstance(check, CheckOutcome) else check,
                started_at=self.started_at,
                ended_at=time.time(),
            )
            self.receipt_store.write(receipt)
        except OSError as exc:  # a full disk must not cost the user the run's result
            log.warning("could not write the receipt for run %s: %s", result.run_id, exc)
            result = result.model_copy(update={"receipt": None})
        return result


class _Step(Protocol):
    async def __call__(self) -> RunOutcome: ...
