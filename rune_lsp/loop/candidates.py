"""Candidate fixes, checked in a scratch copy before the user sees one (issue 26, point 1).

When: a turn is about to pause for review, the run has a checker and `candidates` > 1, and
every call of the turn became a prepared file edit (nothing of it ran, so it can be swapped).
That turn's edits are candidate 1. The runner checks them in a scratch copy of the workspace
(`Checker.check_changes`: never the user's files or buffers). While they fail and candidates and
iterations are left, the model is asked for another fix: the run's history up to that turn,
then one message showing the fixes tried so far with the check's verdict on each
(`prompts.candidate_request_text`), sampled wider each time (`candidate_temperature`); each
request counts toward the iteration budget. Its answer's code block (or `edit_file` /
`write_file` calls written as text) is prepared like any edit and checked in turn.

What the user sees: the first candidate that passes, marked `checked: passed`; when none does,
the best one (`rank`: the fewest failing tests the check's output counts; a candidate whose
output counts none ranks after every counted one, an unchecked one last; ties go to the
earlier), marked `checked: failed` with a note saying so, unless it fails more tests than the
code as it is (`improves`): then the run ends `incomplete` with nothing shown. The chosen
candidate replaces the turn in the history as if the model had answered it (the losing ones are
never shown to anyone, nor kept in the history), and the run pauses for its review as before.

With `overlap_checks` (the runner's call: the machine has cores for both), the next candidate
is requested while the previous one is checked; that request shows only the verdicts known
when it starts, and is cancelled (its request still counted) when the check passes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, replace
from typing import Any

from rune_lsp.answers import ROWS
from rune_lsp.loop.candidate_choice import (
    Candidate,
    improves,
    rank,
    review_note,
    worse_note,
)
from rune_lsp.loop.config import LoopConfig
from rune_lsp.loop.events import (
    CheckStarted,
    EventEmitter,
    ToolRequested,
    ToolResulted,
    progress_of,
)
from rune_lsp.loop.messages import Message, RawToolCall
from rune_lsp.loop.model_call import ModelCalls
from rune_lsp.loop.normalize import IdAllocator, normalize_calls
from rune_lsp.loop.ports import Checker, ToolDefinition, ToolExecutor
from rune_lsp.loop.prompts import candidate_request_text, tried_fix_text
from rune_lsp.loop.proposals import edit_calls, runs_unchanged
from rune_lsp.loop.state import (
    CheckedStatus,
    PreparedEdit,
    RunState,
    ToolOutcome,
    TurnState,
)
from rune_lsp.loop.stop import Stop, describe
from rune_lsp.text_clip import clip

#: Each retry samples this much wider than the one before, up to `MAX_TEMPERATURE`.
TEMPERATURE_STEP = 0.3
MAX_TEMPERATURE = 1.0
#: Fixes shown in a request for another one (the latest), and the code shown of each.
MAX_SHOWN_TRIED = 3
CODE_SHOWN = 1_500
_EDIT_TOOLS = frozenset({"edit_file", "write_file"})
_LAYOUT_ONLY = "it changes only blank lines, comments or layout of the code as it is now"


def verifies(config: LoopConfig, checker: Checker | None) -> bool:
    """Whether the run's check verifies candidate fixes (rather than only hinting at them)."""
    return checker is not None and config.candidates > 1


def searches(config: LoopConfig, state: RunState, checker: Checker | None) -> bool:
    """Whether the open turn's edits are checked as candidates before they are shown."""
    turn = state.turn
    return (
        verifies(config, checker)
        and bool(turn.pending)
        and not turn.results
        and len(turn.pending) == len(turn.calls)
        and all(isinstance(change, PreparedEdit) for change in turn.pending)
        and bool(state.messages)
        and state.messages[-1].role == "assistant"
    )


def candidate_temperature(base: float, number: int) -> float:
    """Candidate `number`'s sampling temperature: the run's own for the first, each retry
    `TEMPERATURE_STEP` wider up to `MAX_TEMPERATURE` (never below the run's own)."""
    if number <= 1:
        return base
    return max(base, min(MAX_TEMPERATURE, base + TEMPERATURE_STEP * (number - 1)))


def retry_temperature(base: float, notes: int) -> float:
    """The sampling of the turn right after the run's `notes`-th note about a code block (the
    current code sent back while the check fails, a block that could not be placed): as wide as
    candidate `notes + 1`. At the run's own temperature and the server's fixed seed, Qwen2.5-Coder
    1.5B answered the note with the same code again (bench/effect 10_ranked, 19_running_total)."""
    return candidate_temperature(base, notes + 1)


@dataclass
class CandidateSearch:
    """The candidate search of one turn (see the module docstring); `run` leaves the turn
    holding the chosen candidate, its edits marked."""

    state: RunState
    config: LoopConfig
    checker: Checker
    executor: ToolExecutor
    model_calls: ModelCalls
    tools: Mapping[str, ToolDefinition]
    events: EventEmitter
    new_ids: Callable[[], IdAllocator]
    reason_of: Callable[[str], str]

    def __post_init__(self) -> None:
        # The history up to the turn's answer, which is candidate 1.
        self.history = self.state.messages[:-1]
        self._tasks: list[asyncio.Future[Candidate]] = []
        self._model_failed = False  # a request failed: the search ends with what it has
        self._check_failed = False  # a check could not run: likewise

    async def run(self) -> None:
        """Leave the turn holding the chosen candidate. Raises `Stop` when the best fails more
        tests than the code as it is: the run ends, its turn's calls skipped, nothing shown."""
        tried = [self._first()]
        try:
            checking = self._spawn(self._check(tried[0], tried))
            while True:
                asking = None
                if self.config.overlap_checks and self._may_ask(len(tried)):
                    asking = self._spawn(self._ask(list(tried)))
                tried[-1] = await checking
                if tried[-1].passed:
                    break
                if asking is None:
                    if not self._may_ask(len(tried)):
                        break
                    asking = self._spawn(self._ask(list(tried)))
                tried.append(await asking)
                checking = self._spawn(self._check(tried[-1], tried))
        finally:
            for task in self._tasks:  # a request or check no longer needed, or a cancel
                await _cancelled(task)
        chosen, now = min(tried, key=rank), self.state.failing_tests
        if self.state.check_fails_now and now and not improves(chosen, now):
            raise Stop("incomplete", worse_note(chosen, self.checker.command, len(tried), now))
        await self._install(chosen, len(tried))

    def _spawn(self, work: Coroutine[Any, Any, Candidate]) -> asyncio.Future[Candidate]:
        task = asyncio.ensure_future(work)
        self._tasks.append(task)
        return task

    # --- one candidate ---------------------------------------------------------------------

    def _first(self) -> Candidate:
        self.state.candidates = self.state.candidates.model_copy(
            update={"tried": self.state.candidates.tried + 1}
        )
        turn = self.state.turn
        changes = tuple(c for c in turn.pending if isinstance(c, PreparedEdit))
        return Candidate(
            number=1,
            answer=self.state.messages[-1].content,
            calls=tuple(turn.calls),
            changes=changes,
            from_block=turn.from_block,
        )

    def _may_ask(self, tried: int) -> bool:
        state = self.state
        return (
            not self._model_failed
            and not self._check_failed
            and tried < self.config.candidates
            and state.iterations_used < state.iteration_budget
        )

    async def _ask(self, tried: list[Candidate]) -> Candidate:
        """The next candidate: one model request (an iteration), its answer prepared."""
        number = len(tried) + 1
        shown = [
            tried_fix_text(
                c.number,
                clip(c.code, CODE_SHOWN),
                c.report,
                c.problem,
                c.paths if set(c.paths) - {self.state.target} else (),  # the target goes unsaid
            )
            for c in tried[-MAX_SHOWN_TRIED:]
        ]
        ask = candidate_request_text(shown, self.state.target, self.state.beside)
        request = Message(role="user", content=ask)
        try:
            turn = await self.model_calls.ask(
                ROWS["code_first"],
                history=[*self.history, request],
                temperature=candidate_temperature(self.config.temperature, number),
            )
        except Stop as failure:  # the fixes already written still count
            self._model_failed = True
            return self._unusable(number, "", failure.error)
        stats = self.state.candidates
        self.state.candidates = stats.model_copy(update={"tried": stats.tried + 1})
        # Read as the code-first turn reads: the candidate's code block (or a call a server
        # returned unasked), never a call written as text (answers/table.py).
        reading = await self.model_calls.read(ROWS["code_first"], turn)
        visible, raw = reading.visible, tuple(reading.native)
        from_block = False
        code = reading.code
        if not raw and code is not None:
            if runs_unchanged(self.state, code):
                return self._unusable(number, visible, _LAYOUT_ONLY)
            if code.edits:
                raw, from_block = edit_calls(code), True
            elif code.unchanged:
                return self._unusable(number, visible, "it is the code as it is now")
            elif code.refusal:
                return self._unusable(number, visible, code.refusal)
        if not raw:
            return self._unusable(number, visible, "the answer held no code block to apply")
        return await self._prepare(number, visible, raw, from_block)

    async def _prepare(
        self, number: int, visible: str, raw: tuple[RawToolCall, ...], from_block: bool
    ) -> Candidate:
        ids = self.new_ids()
        calls = normalize_calls(raw, self.tools, ids)
        self.state.next_call_number = ids.next_number
        changes: list[PreparedEdit] = []
        for normalized in calls:
            call = normalized.call
            if call.name not in _EDIT_TOOLS or normalized.arguments is None:
                problem = normalized.error or normalized.skipped or f"{call.name} is no file edit"
                return self._unusable(number, visible, problem)
            edit_id = self.state.new_edit_id()
            try:
                prepared = await self.executor.prepare(
                    call.name,
                    normalized.arguments,
                    call_id=call.id,
                    edit_id=edit_id,
                    reason=self.reason_of(visible),
                )
            except Exception as exc:
                return self._unusable(number, visible, describe(exc))
            if isinstance(prepared, ToolOutcome):
                return self._unusable(number, visible, prepared.content)
            if not isinstance(prepared, PreparedEdit):
                return self._unusable(number, visible, f"{call.name} is no file edit")
            changes.append(prepared.model_copy(update={"call_id": call.id, "edit_id": edit_id}))
        return Candidate(
            number=number,
            answer=visible,
            calls=tuple(n.call for n in calls),
            changes=tuple(changes),
            from_block=from_block,
        )

    def _unusable(self, number: int, visible: str, problem: str) -> Candidate:
        return Candidate(
            number=number, answer=visible, calls=(), changes=(), from_block=False, problem=problem
        )

    async def _check(self, candidate: Candidate, tried: list[Candidate]) -> Candidate:
        """The candidate with the check's verdict on it (an earlier one's, when it makes the
        same files: no second check)."""
        if not candidate.changes:
            return candidate
        same = next((c for c in tried if c.key == candidate.key and c.report is not None), None)
        if same is not None and same is not candidate:
            return replace(candidate, report=same.report)
        await self.events.emit(
            CheckStarted(
                **progress_of(self.state), command=self.checker.command, candidate=candidate.number
            )
        )
        try:
            report = await self.checker.check_changes(candidate.changes)
        except (Stop, asyncio.CancelledError):
            raise
        except Exception as exc:  # unchecked, and so would the next be: the search ends
            self._check_failed = True
            return replace(candidate, problem=f"the check could not run: {describe(exc)}")
        stats = self.state.candidates
        self.state.candidates = stats.model_copy(
            update={
                "checks_run": stats.checks_run + 1,
                "passed": stats.passed + int(report.passed),
            }
        )
        return replace(candidate, report=report)

    # --- the chosen one --------------------------------------------------------------------

    async def _install(self, chosen: Candidate, tried: int) -> None:
        """Make the open turn the chosen candidate's, its edits marked with their verdict."""
        state = self.state
        if chosen.report is None:  # none could be checked: candidate 1 stands, unmarked
            return
        now = state.failing_tests if state.check_fails_now else None
        note = review_note(chosen, self.checker.command, tried, now)
        checked: CheckedStatus = "passed" if chosen.passed else "failed"
        changes = [
            c.model_copy(update={"checked": checked, "check_note": note}) for c in chosen.changes
        ]
        if chosen.number == 1:
            state.turn.pending = list(changes)
            return
        # Candidate 1's calls were announced when the turn started; each gets its result
        # event, so no consumer is left waiting on one (their history entry is replaced).
        replaced = ToolOutcome(
            status="skipped", content=f"replaced by candidate fix {chosen.number}: {note}"
        )
        for call in state.turn.calls:
            await self.events.emit(ToolResulted(**progress_of(state), call=call, outcome=replaced))
        state.messages[-1] = Message(
            role="assistant", content=chosen.answer, tool_calls=chosen.calls
        )
        state.turn = TurnState(
            calls=list(chosen.calls), pending=list(changes), from_block=chosen.from_block
        )
        for call in chosen.calls:
            await self.events.emit(ToolRequested(**progress_of(state), call=call))


async def _cancelled(task: asyncio.Future[Candidate]) -> None:
    """Cancel a candidate's request or check no longer needed, and wait until it ended."""
    if task.done():
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Stop):
        await task
